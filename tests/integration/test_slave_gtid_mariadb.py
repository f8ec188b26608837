"""Our slave replicating by GTID from a stock MariaDB 10.11 semi-sync master (the real peer).

What is proven here:
- CHANGE MASTER TO ... MASTER_USE_GTID=slave_pos, START SLAVE: every transaction is acked in time
  (MariaDB's Rpl_semi_sync_master_yes_tx grows by their number, no_tx does not), the tables are
  equal, @@gtid_slave_pos is MariaDB's @@gtid_binlog_pos, and the GTIDs in our relay log and in
  our binlog (log_slave_updates) are MariaDB's, in order, as `mariadb-binlog` reads the files;
- after our restart the slave asks MariaDB by GTID (MariaDB's general log shows
  `SET @slave_connect_state` with our gtid_slave_pos) and goes on without a gap or a duplicate;
- MASTER_GTID_WAIT returns 0 once applied and -1 on a timeout; SET GLOBAL gtid_slave_pos while
  the slave runs is 1198 (nothing changes), a malformed value 1941, two GTIDs of a domain 1943;
- SHOW SLAVE STATUS starts with MariaDB 10.11's columns in its order, SHOW ALL SLAVES STATUS has
  exactly MariaDB's, both asked of the live MariaDB;
- a transaction of another GTID domain is applied and kept in its own domain; with
  gtid_strict_mode a GTID out of its domain's order (a local write on the slave first) stops the
  SQL thread with MariaDB's 1950, nothing of it applied;
- SET GLOBAL gtid_slave_pos answers OK only once the value is committed: kill -9 of our daemon
  right after the OK loses nothing.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pymysql
import pytest

from binlog.index import read_index
from config.slave import SlaveConfig
from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.net import free_port
from tests.support.slave_daemon import SlaveThread, query, slave_status, wait_until

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]

_GTID = re.compile(r"\bGTID (\d+-\d+-\d+)")


def file_gtids(paths: list[Path]) -> list[str]:
    """The GTIDs of the files' GTID events, in order, as mariadb-binlog prints them."""
    out: list[str] = []
    for path in paths:
        text = subprocess.run(["mariadb-binlog", "--no-defaults", str(path)], capture_output=True,
                              text=True, check=True, timeout=60).stdout
        out += _GTID.findall(text)
    return out


def indexed(datadir: Path, basename: str) -> list[Path]:
    return [datadir / name for name in read_index(datadir, basename)]


def start_master(tmp_path: Path) -> MariaDBServer:
    master = MariaDBServer(
        tmp_path / "master", binlog_format="ROW",
        extra=["--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=10000",
               "--general-log=ON", "--log-output=TABLE"],
    ).start()
    # written with semi-sync off, then on again: no slave follows yet, so with
    # rpl_semi_sync_master_wait_no_slave the first commit would wait out the whole timeout (10 s)
    master.execute_all([
        "SET GLOBAL rpl_semi_sync_master_enabled = OFF",
        "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO repl@'%'",
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
        "SET GLOBAL rpl_semi_sync_master_enabled = ON",
    ])
    return master


def slave_config(tmp_path: Path, **kw) -> SlaveConfig:
    values = dict(datadir=tmp_path / "slave", port=free_port(), server_id=2,
                  rpl_semi_sync_slave_enabled=True, master_heartbeat_period=0.5)
    values.update(kw)
    return SlaveConfig(**values)


def change_master(port: int, master: MariaDBServer) -> None:
    query(port, f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
                "MASTER_PASSWORD='replpw', MASTER_CONNECT_RETRY=1, MASTER_USE_GTID=slave_pos")


def error_of(port: int, sql: str) -> tuple[int, str]:
    with pytest.raises(pymysql.err.MySQLError) as caught:
        query(port, sql)
    return caught.value.args[0], caught.value.args[1]


def caught_up(master: MariaDBServer, port: int) -> bool:
    pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
    return query(port, "SELECT @@gtid_slave_pos")[0][0] == pos


def connect_states(master: MariaDBServer) -> list[str]:
    rows = master.query("SELECT argument FROM mysql.general_log WHERE argument LIKE 'SET @slave_connect_state%'")
    return [r[0].decode() if isinstance(r[0], bytes) else r[0] for r in rows]


def test_slave_by_gtid_from_mariadb_semisync_master_resumes_by_gtid(tmp_path):
    master = start_master(tmp_path)
    try:
        cfg = slave_config(tmp_path)
        with SlaveThread(cfg) as slave:
            port = slave.port
            assert query(port, "SHOW SLAVE STATUS") == []
            change_master(port, master)
            # the column lists, next to a live MariaDB's (its own slave settings are never started)
            master.execute_all(["CHANGE MASTER 'probe' TO MASTER_HOST='127.0.0.1', MASTER_PORT=1, MASTER_USER='x'"])
            with master.connect() as conn, conn.cursor() as cur:
                cur.execute("SHOW SLAVE 'probe' STATUS")
                theirs = [d[0] for d in cur.description]
                cur.execute("SHOW ALL SLAVES STATUS")
                theirs_all = [d[0] for d in cur.description]
            with slave.connect() as conn, conn.cursor() as cur:
                cur.execute("SHOW SLAVE STATUS")
                ours = [d[0] for d in cur.description]
                row = dict(zip(ours, cur.fetchone(), strict=True))
                cur.execute("SHOW ALL REPLICAS STATUS")
                ours_all = [d[0] for d in cur.description]
                all_row = dict(zip(ours_all, cur.fetchone(), strict=True))
            master.execute_all(["RESET SLAVE 'probe' ALL"])
            assert ours[:len(theirs)] == theirs
            assert "Master_UUID" in ours[len(theirs):] and "Auto_Position" in ours[len(theirs):]  # MySQL 5.7's
            assert ours_all == theirs_all
            assert row["Using_Gtid"] == "Slave_Pos" and all_row["Connection_name"] == ""

            query(port, "START SLAVE")
            wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                       what="MariaDB counts our slave as a semi-sync client")
            before = master.status("Rpl_semi_sync_master_%_tx")
            for i in range(1, 21):
                master.execute_all([f"INSERT INTO d.t VALUES ({i}, 'v{i}')"])
            after = master.status("Rpl_semi_sync_master_%_tx")
            assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) == 20
            assert after["Rpl_semi_sync_master_no_tx"] == before["Rpl_semi_sync_master_no_tx"]
            wait_until(lambda: caught_up(master, port), what="gtid_slave_pos reaches MariaDB's gtid_binlog_pos")
            master_pos = master.query("SELECT @@gtid_binlog_pos")[0][0]
            assert query(port, f"SELECT MASTER_GTID_WAIT('{master_pos}', 5)") == [(0,)]
            assert query(port, "SELECT MASTER_GTID_WAIT('0-1-999999', 0.2)") == [(-1,)]
            assert query(port, "SELECT id, v FROM d.t ORDER BY id") == [(i, f"v{i}") for i in range(1, 21)]
            st = slave_status(port)
            assert st["Using_Gtid"] == "Slave_Pos" and st["Gtid_IO_Pos"] == master_pos
            assert query(port, "SELECT @@gtid_current_pos")[0][0] == master_pos  # MariaDB's, not ours

            # bad input: nothing changes
            assert error_of(port, "SET GLOBAL gtid_slave_pos = '0-1-1'")[0] == 1198
            assert error_of(port, "SET GLOBAL gtid_slave_pos = '0-1'")[0] == 1198  # running: checked first
            assert error_of(port, "SELECT MASTER_GTID_WAIT('0-1')") == (1941, "Could not parse GTID list")
            assert query(port, "SELECT @@gtid_slave_pos")[0][0] == master_pos

            # the GTIDs of our relay log and binlog are MariaDB's, in order
            master_gtids = file_gtids(master.binlog_files())
            assert master_gtids and master_gtids[-1] == master_pos
            assert file_gtids(indexed(cfg.datadir, cfg.relay_log)) == master_gtids
            assert file_gtids(indexed(cfg.datadir, cfg.log_bin)) == master_gtids

            assert error_of(port, "STOP SLAVE 'other'") == (1617, "There is no master connection 'other'")
            query(port, "STOP SLAVE ''")  # MariaDB's default connection, by name
            assert error_of(port, "SET GLOBAL gtid_slave_pos = '0-1'")[0] == 1941
            assert error_of(port, "SET GLOBAL gtid_slave_pos = '0-1-1,0-2-2'")[0] == 1943
            assert query(port, "SELECT @@gtid_slave_pos")[0][0] == master_pos

        # written while we are down; our restart resumes by GTID from gtid_slave_pos (the first
        # of them waits for an ack no slave can send: a short timeout, not the 10 s one)
        master.execute_all(["SET GLOBAL rpl_semi_sync_master_timeout = 500"])
        for i in range(21, 31):
            master.execute_all([f"INSERT INTO d.t VALUES ({i}, 'v{i}')"])
        with SlaveThread(cfg) as slave:
            port = slave.port
            query(port, "START SLAVE")  # stopped before the restart: master.info keeps the setting
            wait_until(lambda: caught_up(master, port), what="caught up after the restart")
            assert query(port, "SELECT id, v FROM d.t ORDER BY id") == [(i, f"v{i}") for i in range(1, 31)]
            assert connect_states(master)[-1] == f"SET @slave_connect_state='{master_pos}'"
            assert file_gtids(indexed(cfg.datadir, cfg.log_bin)) == file_gtids(master.binlog_files())
    finally:
        master.stop()


def test_other_domain_applied_and_strict_mode_stops_out_of_order_gtid(tmp_path):
    master = start_master(tmp_path)
    # its slave never acks: semi-sync off on the master, or its first commit waits out the timeout
    master.execute_all(["SET GLOBAL rpl_semi_sync_master_enabled = OFF"])
    try:
        with SlaveThread(slave_config(tmp_path, rpl_semi_sync_slave_enabled=False)) as slave:
            port = slave.port
            change_master(port, master)
            query(port, "START SLAVE")
            with master.connect() as conn, conn.cursor() as cur:
                cur.execute("SET SESSION gtid_domain_id = 7")
                cur.execute("INSERT INTO d.t VALUES (1, 'domain 7')")
            master.execute_all(["INSERT INTO d.t VALUES (2, 'domain 0')"])
            wait_until(lambda: caught_up(master, port), what="both domains applied")
            pos = query(port, "SELECT @@gtid_slave_pos")[0][0]
            assert re.fullmatch(r"0-1-\d+,7-1-1", pos), pos

            # a local write on the slave takes the domain's next seq_no: the master's next GTID
            # would be out of order in our binlog
            query(port, "SET GLOBAL read_only = OFF")
            query(port, "INSERT INTO d.t VALUES (100, 'local')")
            master.execute_all(["INSERT INTO d.t VALUES (3, 'refused')"])
            st = wait_until(lambda: (s := slave_status(port))["Last_SQL_Errno"] not in (0, "0") and s,
                            what="the SQL thread stops")
            assert int(st["Last_SQL_Errno"]) == 1950 and st["Slave_SQL_Running"] == "No"
            assert "which would create an out-of-order sequence number" in st["Last_SQL_Error"]
            assert query(port, "SELECT v FROM d.t WHERE id = 3") == []
            assert query(port, "SELECT @@gtid_slave_pos")[0][0] == pos  # nothing of it applied
            assert st["Slave_IO_Running"] == "Yes"
    finally:
        master.stop()


def test_set_gtid_slave_pos_is_durable_when_it_answers_ok(tmp_path):
    """Each round: SET GLOBAL gtid_slave_pos, kill -9 as soon as the OK arrives, restart: the
    value set is the value read back (the OK follows the engine's commit)."""
    node = Daemon("slave", tmp_path / "node", ["--server-id=7"])
    values = ["0-1-5", "0-1-6,1-2-3", "", "0-3-1000,2-2-7"]
    try:
        node.start()
        for value in values:
            conn = node.connect()
            with conn.cursor() as cur:
                cur.execute(f"SET GLOBAL gtid_slave_pos = '{value}'")
                node.kill9()  # nothing between the OK and the kill
            conn.close()
            node.start()
            assert node.query("SELECT @@gtid_slave_pos") == [(value,)], node.tail()
    finally:
        node.stop()
