"""The relay log starts a new file where the master starts its next binlog file.

A slave by GTID replicates across several master rotations (FLUSH BINARY LOGS) and a reconnect,
its SQL thread stopped so no relay file is purged. Then:
- `mariadb-binlog` in its default mode (the GTID state check on) reads every relay file, so no
  relay file holds GTIDs from before and after a master file's GTID_LIST;
- the GTIDs of the relay files, in order, are the master's binlog GTIDs, each once;
- there is a relay file per master binlog file at least (one per connection on top);
- the SQL thread started, the slave applies them all (its gtid_slave_pos is the master's) and
  purges the relay files it finished; with relay_log_purge OFF it keeps them.
Against our master and a stock MariaDB 10.11 master.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_slave_gtid_mariadb import (
    change_master,
    file_gtids,
    indexed,
    slave_config,
)
from tests.integration.test_slave_gtid_mariadb import start_master as start_mariadb_master
from tests.support.daemons import wait_for
from tests.support.faults import unreadable_logs
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import SlaveThread, master_with_slaves, query, slave_status

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]

ROTATIONS = 3
ROWS_PER_FILE = 3


def rotate_while_writing(run, reconnect, row: int = 0) -> None:
    """Rows (ids after `row`), FLUSH BINARY LOGS, rows...; `reconnect` once in between."""
    for n in range(ROTATIONS + 1):
        for _ in range(ROWS_PER_FILE):
            row += 1
            run(f"INSERT INTO d.t VALUES ({row}, 'file {n}')")
        if n == 1:
            reconnect()
        if n < ROTATIONS:
            run("FLUSH BINARY LOGS")


def check_relay_files(relay_files: list[Path], master_files: list[Path]) -> None:
    for path in relay_files:
        # default mode: exit 1 with "Binary logs are missing data for domain 0 ..." otherwise
        file_gtids([path])  # check=True
    assert len(relay_files) >= len(master_files) > ROTATIONS
    master_gtids = file_gtids(master_files)
    assert len(master_gtids) >= (ROTATIONS + 1) * ROWS_PER_FILE
    assert file_gtids(relay_files) == master_gtids


def io_caught_up(port: int, master_pos: str) -> bool:
    st = slave_status(port)
    return st["Gtid_IO_Pos"] == master_pos and st["Slave_IO_Running"] == "Yes"


def test_relay_file_per_master_file_from_our_master(tmp_path):
    with master_with_slaves(tmp_path, 1, semisync=True, connect_retry=0.5) as (master, (slave,)):
        for sql in ("CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))"):
            master.query(sql)
        wait_for(lambda: slave_status(slave.port)["Slave_IO_Running"] == "Yes", message="the slave connects")
        pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
        wait_for(lambda: slave.query("SELECT @@gtid_slave_pos")[0][0] == pos, message="the schema applied")
        slave.query("STOP SLAVE SQL_THREAD")

        def reconnect() -> None:
            slave.query("STOP SLAVE IO_THREAD")
            slave.query("START SLAVE IO_THREAD")

        rotate_while_writing(master.query, reconnect)
        pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
        wait_for(lambda: io_caught_up(slave.port, pos), timeout=60, message="the relay log holds every GTID")
        check_relay_files(indexed(slave.datadir, "relay-bin"), indexed(master.datadir, "mysql-bin"))
        assert unreadable_logs(slave.datadir) == []

        slave.query("START SLAVE SQL_THREAD")
        wait_for(lambda: slave.query("SELECT @@gtid_slave_pos")[0][0] == pos, timeout=60,
                 message="the slave applied every relay file")
        assert sorted(slave.query("SELECT id, v FROM d.t")) == sorted(master.query("SELECT id, v FROM d.t"))
        wait_for(lambda: len(indexed(slave.datadir, "relay-bin")) == 1, message="the applied relay files purged")
        assert unreadable_logs(slave.datadir) == []

        # relay_log_purge OFF keeps the applied files; ON again purges them at the next finished file
        assert slave.query("SELECT @@global.relay_log_purge")[0][0] == 1
        slave.query("SET GLOBAL relay_log_purge = OFF")
        rotate_while_writing(master.query, lambda: None, row=50)
        pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
        wait_for(lambda: slave.query("SELECT @@gtid_slave_pos")[0][0] == pos, timeout=60, message="applied with purge OFF")
        assert len(indexed(slave.datadir, "relay-bin")) > ROTATIONS
        slave.query("SET GLOBAL relay_log_purge = ON")
        master.query("FLUSH BINARY LOGS")
        master.query("INSERT INTO d.t VALUES (99, 'purge on')")
        wait_for(lambda: len(indexed(slave.datadir, "relay-bin")) == 1, message="purged again once ON")

        # kill -9, more rotations while it is down and after its restart: each row once (the
        # master's first commit waits for an ack the dead slave cannot send: a short timeout)
        master.query("SET GLOBAL rpl_semi_sync_master_timeout = 500")
        slave.kill9()
        rotate_while_writing(master.query, lambda: None, row=100)
        slave.start()
        pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
        wait_for(lambda: slave.query("SELECT @@gtid_slave_pos")[0][0] == pos, timeout=60,
                 message="the restarted slave caught up")
        assert sorted(slave.query("SELECT id, v FROM d.t")) == sorted(master.query("SELECT id, v FROM d.t"))
        assert unreadable_logs(slave.datadir) == []


def test_relay_file_per_master_file_from_mariadb(tmp_path):
    master = start_mariadb_master(tmp_path)
    try:
        cfg = slave_config(tmp_path)
        with SlaveThread(cfg) as slave:
            port = slave.port
            change_master(port, master)
            query(port, "START SLAVE")
            wait_for(lambda: slave_status(port)["Slave_IO_Running"] == "Yes", message="the slave connects")
            query(port, "STOP SLAVE SQL_THREAD")

            def run(sql: str) -> None:
                # every other row under another server_id: domain 0 holds GTIDs of two server
                # ids, and each next file's GTID_LIST names both
                rowid = int(sql.split("(")[1].split(",")[0]) if sql.startswith("INSERT") else 0
                master.execute_all([f"SET SESSION server_id = {5 if rowid % 2 else 1}", sql])

            def reconnect() -> None:
                query(port, "STOP SLAVE IO_THREAD")
                query(port, "START SLAVE IO_THREAD")

            rotate_while_writing(run, reconnect)
            pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
            wait_for(lambda: io_caught_up(port, pos), timeout=60, message="the relay log holds every GTID")
            check_relay_files(indexed(cfg.datadir, cfg.relay_log), master.binlog_files())
            assert unreadable_logs(cfg.datadir) == []

            query(port, "START SLAVE SQL_THREAD")
            wait_for(lambda: query(port, "SELECT @@gtid_slave_pos")[0][0] == pos, timeout=60,
                     message="the slave applied every relay file")
            assert query(port, "SELECT id, v FROM d.t ORDER BY id") == master.query("SELECT id, v FROM d.t ORDER BY id")
            wait_for(lambda: len(indexed(cfg.datadir, cfg.relay_log)) == 1, message="the applied relay files purged")
    finally:
        master.stop()

