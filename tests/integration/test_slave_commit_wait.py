"""slave_commit_wait_usec on a real slave process replicating from our master, semi-sync on:
- the variable (default 5000, SET GLOBAL, DEFAULT, clamped to one second, 1232 for a non-number);
- a burst of master commits that arrive while the SQL thread waits is applied as fewer
  group commits of the slave's own binlog (Binlog_group_commits) than transactions, every row
  there;
- after a long idle the first transaction is applied without the wait (sparse writes);
- MASTER_GTID_WAIT ends a wait in progress: it answers long before the wait would end.
"""

from __future__ import annotations

import time

import pymysql
import pytest

from tests.support.slave_daemon import master_with_slaves, status, wait_applied, wait_until

WAIT_USEC = 1_000_000  # the largest: a gather that is not cut short is plain to see


def slave_rows(slave) -> int:
    return int(slave.query("SELECT COUNT(*) FROM d.t")[0][0])


def groups(slave) -> tuple[int, int]:
    st = status(slave.port, "Binlog_%commits")
    return int(st["Binlog_commits"]), int(st["Binlog_group_commits"])


def test_the_sql_thread_gathers_a_burst_and_not_a_lone_transaction(tmp_path):
    with master_with_slaves(tmp_path, 1, semisync=True, connect_retry=0.5) as (master, (slave,)):
        assert slave.query("SELECT @@global.slave_commit_wait_usec")[0][0] == 5000
        assert slave.query("SHOW GLOBAL VARIABLES LIKE 'slave_commit_wait_usec'") == [("slave_commit_wait_usec", "5000")]
        slave.query("SET GLOBAL slave_commit_wait_usec = 1000001")  # clamped, as mysqld's integers
        assert slave.query("SELECT @@global.slave_commit_wait_usec")[0][0] == 1_000_000
        with pytest.raises(pymysql.err.OperationalError) as wrong:
            slave.query("SET GLOBAL slave_commit_wait_usec = 'soon'")
        assert wrong.value.args[0] == 1232  # ER_WRONG_TYPE_FOR_VAR
        slave.query(f"SET GLOBAL slave_commit_wait_usec = {WAIT_USEC}")
        assert slave.query("SELECT @@global.slave_commit_wait_usec")[0][0] == WAIT_USEC

        master.query("CREATE DATABASE d")
        master.query("CREATE TABLE d.t (id INT PRIMARY KEY)")
        wait_applied(master, slave)

        # a burst: commits, binlog groups of the slave
        before = groups(slave)
        for n in range(1, 11):
            master.query(f"INSERT INTO d.t VALUES ({n})")
        wait_applied(master, slave)
        commits, group_commits = (a - b for a, b in zip(groups(slave), before, strict=True))
        assert slave_rows(slave) == 10 and commits == 10
        assert group_commits < commits, (commits, group_commits)

        # sparse: after more than twice the wait, the next one is applied at once
        time.sleep(2 * WAIT_USEC / 1e6 + 0.5)
        master.query("INSERT INTO d.t VALUES (11)")
        started = time.monotonic()
        wait_until(lambda: slave_rows(slave) == 11, timeout=10, interval=0.01, what="the lone row applied")
        assert time.monotonic() - started < WAIT_USEC / 1e6 / 2

        # soon after it: the SQL thread waits; MASTER_GTID_WAIT does not wait the wait out
        master.query("INSERT INTO d.t VALUES (12)")
        pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
        started = time.monotonic()
        assert slave.query(f"SELECT MASTER_GTID_WAIT('{pos}', 10)")[0][0] == 0
        assert time.monotonic() - started < WAIT_USEC / 1e6 / 2
        assert slave_rows(slave) == 12

        slave.query("SET GLOBAL slave_commit_wait_usec = DEFAULT")
        assert slave.query("SELECT @@global.slave_commit_wait_usec")[0][0] == 5000
