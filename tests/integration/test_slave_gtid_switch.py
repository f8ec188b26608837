"""Our slave by GTID from our master, as INTERFACE.md ("Roles, GTIDs and failover") fixes it.

- `--master-host` without a file/position replicates by GTID (Using_Gtid Slave_Pos, semi-sync
  acks); the slave's @@gtid_slave_pos, @@gtid_current_pos and binlog position are the master's
  GTIDs (log_slave_updates keeps them);
- kill -9 of the slave while the master writes: restarted, it resumes by GTID (the relay log's
  last complete GTID over @@gtid_slave_pos), each row once;
- the roles switch back by GTID: the slave is promoted, the old master is demoted with
  `CHANGE MASTER TO ..., MASTER_USE_GTID = current_pos` (its own GTIDs, which the promoted slave
  holds in its binlog) and gets the new master's writes, none twice.
"""

from __future__ import annotations

import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.slave_daemon import master_with_slaves, slave_status

pytestmark = [pytest.mark.slow]


def rows(daemon: Daemon) -> list[tuple]:
    return sorted(daemon.query("SELECT id, v FROM d.t"))


def insert(daemon: Daemon, first: int, count: int) -> None:
    conn = daemon.connect()
    with conn.cursor() as cur:
        for i in range(first, first + count):
            cur.execute(f"INSERT INTO d.t VALUES ({i}, 'row {i}')")
    conn.close()


def var(daemon: Daemon, name: str) -> str:
    return daemon.query(f"SELECT @@{name}")[0][0]


def test_slave_by_gtid_survives_kill_9_and_the_roles_switch_by_gtid(tmp_path):
    with master_with_slaves(tmp_path, 1, semisync=True, connect_retry=0.5) as (master, (slave,)):
        for sql in ("CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))"):
            master.query(sql)
        wait_for(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                 message="the slave acks")
        before = int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        insert(master, 1, 10)
        assert int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]) - before == 10
        pos = var(master, "gtid_binlog_pos")
        assert pos.startswith("0-1-")
        wait_for(lambda: var(slave, "gtid_slave_pos") == pos, message="the slave applied the master's GTIDs")
        assert slave_status(slave.port)["Using_Gtid"] == "Slave_Pos"
        assert var(slave, "gtid_current_pos") == pos  # replicated GTIDs in its binlog do not count twice
        assert var(slave, "gtid_binlog_pos") == pos  # log_slave_updates keeps the origin's GTIDs

        # kill -9 while the master writes; the restart resumes by GTID (the master's first commit
        # after the kill waits for an ack the dead slave cannot send: a short timeout, not 10 s)
        master.query("SET GLOBAL rpl_semi_sync_master_timeout = 500")
        writer = master.connect()
        with writer.cursor() as cur:
            for i in range(11, 31):
                cur.execute(f"INSERT INTO d.t VALUES ({i}, 'row {i}')")
                if i == 15:
                    slave.kill9()
        writer.close()
        slave.start()
        wait_for(lambda: rows(slave) == rows(master), message="the slave resumed by GTID")
        pos = var(master, "gtid_binlog_pos")
        wait_for(lambda: var(slave, "gtid_slave_pos") == pos, message="gtid_slave_pos after the restart")
        assert len(rows(slave)) == 30

        # switch: promote the slave, demote the master by current_pos
        for sql in ("STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF",
                    "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
            slave.query(sql)
        # the demoted master acks as a semi-sync slave: the new master's commits do not wait out
        # its timeout for an ack
        for sql in ("SET GLOBAL read_only = ON", "SET GLOBAL rpl_semi_sync_slave_enabled = ON",
                    f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={slave.port}, MASTER_USER='repl', "
                    "MASTER_PASSWORD='replpw', MASTER_CONNECT_RETRY=0.5, MASTER_USE_GTID=current_pos",
                    "START SLAVE"):
            master.query(sql)
        wait_for(lambda: slave_status(master.port)["Slave_IO_Running"] == "Yes", message="the old master connects")
        assert slave_status(master.port)["Using_Gtid"] == "Current_Pos"
        insert(slave, 31, 5)
        new_pos = var(slave, "gtid_binlog_pos")
        assert new_pos.startswith("0-2-")
        wait_for(lambda: rows(master) == rows(slave), message="the old master has the new master's rows")
        wait_for(lambda: var(master, "gtid_current_pos") == new_pos, message="the old master's current_pos")
        st = slave_status(master.port)
        assert st["Last_SQL_Errno"] in (0, "0") and st["Last_IO_Errno"] in (0, "0")
        assert len(rows(master)) == 35
