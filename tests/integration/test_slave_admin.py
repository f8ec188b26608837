"""The slave's SQL surface and failure handling, with a stock MariaDB 10.11 master.

- Without --master-host the slave waits: SHOW SLAVE STATUS is empty, START SLAVE is 1200;
  CHANGE MASTER TO + START SLAVE replicates; CHANGE MASTER TO while running is 1198; STOP SLAVE
  [IO_THREAD|SQL_THREAD]; RESET SLAVE ALL forgets the master.
- rpl_semi_sync_slave_enabled set with SET GLOBAL takes effect at the next IO task start.
- An applier error stops the SQL thread with Last_SQL_Errno/Last_SQL_Error; the IO thread runs on.
- slave_net_timeout: when the master goes silent (no heartbeats), the slave reconnects.
- A master with our own server_id is refused (the IO thread stops with an error).
"""

from __future__ import annotations

import time

import pymysql
import pytest

from config.slave import SlaveConfig
from tests.integration.test_slave_mariadb_master import caught_up, start_master
from tests.support.mariadb import mariadb_available
from tests.support.net import free_port
from tests.support.slave_daemon import SlaveThread, query, slave_status, status, wait_until
from tests.support.wire_proxy import WireProxy

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]


def bare_config(tmp_path, **kw) -> SlaveConfig:
    return SlaveConfig(datadir=tmp_path / "slave", port=free_port(), server_id=kw.pop("server_id", 3), **kw)


def error_code(port: int, sql: str) -> int:
    with pytest.raises(pymysql.err.MySQLError) as raised:
        query(port, sql)
    return raised.value.args[0]


def clients(master) -> str:
    return master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"]


def test_change_master_start_stop_reset_and_semisync_at_next_start(tmp_path):
    master = start_master(tmp_path, "STATEMENT")
    try:
        with SlaveThread(bare_config(tmp_path)) as slave:
            port = slave.port
            assert slave_status(port) == {}
            assert error_code(port, "START SLAVE") == 1200
            query(port, f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, "
                        "MASTER_USER='repl', MASTER_PASSWORD='replpw', MASTER_HEARTBEAT_PERIOD=0.5, "
                        "MASTER_CONNECT_RETRY=1")
            st = slave_status(port)
            assert st["Master_Host"] == "127.0.0.1" and st["Slave_IO_Running"] == "No"
            assert st["Using_Gtid"] == "Slave_Pos"  # MariaDB 10.10+'s default without a file/position
            assert len(query(port, "SHOW REPLICA STATUS")) == 1  # MariaDB's spelling
            assert query(port, "SHOW SLAVE HOSTS") == []
            assert status(port, "Slave_heartbeat_period")["Slave_heartbeat_period"] == "0.500"
            query(port, "START SLAVE")
            wait_until(lambda: slave_status(port)["Slave_IO_Running"] == "Yes", what="IO running")
            assert error_code(port, "CHANGE MASTER TO MASTER_PORT=1") == 1198
            assert error_code(port, "RESET SLAVE") == 1198
            # semi-sync was OFF at this IO start: MariaDB sees no semi-sync client
            assert status(port, "Rpl_semi_sync_slave_status")["Rpl_semi_sync_slave_status"] == "OFF"
            query(port, "SET GLOBAL rpl_semi_sync_slave_enabled = ON")
            master.execute_all(["INSERT INTO d.t (v) VALUES ('async')"])
            time.sleep(0.5)
            assert clients(master) == "0"
            query(port, "STOP SLAVE IO_THREAD")
            st = slave_status(port)
            assert st["Slave_IO_Running"] == "No" and st["Slave_SQL_Running"] == "Yes"
            query(port, "START SLAVE IO_THREAD")
            wait_until(lambda: clients(master) == "1", what="semi-sync after the IO restart")
            # The new relay file (our FD, the master's ROTATE + FD) keeps Exec_Master_Log_Pos right.
            wait_until(lambda: caught_up(master, slave), what="caught up after the IO restart")
            assert status(port, "Rpl_semi_sync_slave_status")["Rpl_semi_sync_slave_status"] == "ON"
            # A dump by GTID starts at its file's beginning, which MariaDB's semi-sync master does
            # not count as caught up (its dump_start takes the start position as an ack): semi-sync,
            # switched OFF by the async commit's timeout, is ON again at the next transaction's ack.
            master.execute_all(["INSERT INTO d.t (v) VALUES ('switches semi-sync on')"])
            wait_until(lambda: master.status("Rpl_semi_sync_master_status")["Rpl_semi_sync_master_status"] == "ON",
                       what="MariaDB's semi-sync ON again")
            before = int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
            master.execute_all(["INSERT INTO d.t (v) VALUES ('semi-sync')"])
            assert int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]) == before + 1
            wait_until(lambda: query(port, "SELECT COUNT(*) FROM d.t")[0][0] in (3, "3"), what="the rows applied")
            query(port, "STOP SLAVE")
            st = slave_status(port)
            assert st["Slave_IO_Running"] == "No" and st["Slave_SQL_Running"] == "No"
            query(port, "RESET SLAVE ALL")
            assert slave_status(port) == {}
            assert not list((tmp_path / "slave").glob("relay-bin.0*"))
    finally:
        master.stop()


def test_applier_error_stops_only_the_sql_thread(tmp_path):
    master = start_master(tmp_path, "STATEMENT")
    try:
        config = bare_config(tmp_path, master_host="127.0.0.1", master_port=master.port, master_user="repl",
                             master_password="replpw", master_connect_retry=1, master_heartbeat_period=0.5)
        with SlaveThread(config) as slave:
            conn = master.connect()
            with conn.cursor() as cur:
                cur.execute("SET sql_log_bin = 0")
                cur.execute("CREATE TABLE d.master_only (a INT)")
                cur.execute("SET sql_log_bin = 1")
                cur.execute("INSERT INTO d.master_only VALUES (1)")
                cur.execute("INSERT INTO d.t (v) VALUES ('after the error')")
            conn.close()
            st = wait_until(lambda: (s := slave_status(slave.port))["Slave_SQL_Running"] == "No" and s,
                            what="the SQL thread stops")
            assert st["Last_SQL_Errno"] == 1146
            assert "master_only" in st["Last_SQL_Error"]
            assert st["Last_Errno"] == st["Last_SQL_Errno"]
            assert st["Slave_IO_Running"] == "Yes"
            assert st["Seconds_Behind_Master"] is None
            # The IO thread keeps receiving: the next transaction is in the relay log.
            file, pos = master.query("SHOW MASTER STATUS")[0][:2]
            wait_until(lambda: int(slave_status(slave.port)["Read_Master_Log_Pos"]) == int(pos), what="IO reads on")
            assert int(slave_status(slave.port)["Exec_Master_Log_Pos"]) < int(pos)
    finally:
        master.stop()


def test_silent_master_is_reconnected_after_slave_net_timeout(tmp_path):
    master = start_master(tmp_path, "ROW")
    proxy = WireProxy(master.port)
    try:
        config = bare_config(tmp_path, master_host="127.0.0.1", master_port=proxy.port, master_user="repl",
                             master_password="replpw", master_connect_retry=0.5, slave_net_timeout=1.5,
                             master_heartbeat_period=0.3)
        with SlaveThread(config) as slave:
            wait_until(lambda: slave_status(slave.port)["Slave_IO_Running"] == "Yes", what="IO running")
            assert proxy.connections == 1
            proxy.hold()  # the master's heartbeats no longer arrive
            wait_until(lambda: proxy.connections >= 2, timeout=10, what="a reconnect after slave_net_timeout")
            proxy.release()
            wait_until(lambda: slave_status(slave.port)["Slave_IO_Running"] == "Yes", what="IO running again")
            # A new relay log file (our FD, the master's ROTATE + FD) keeps the master coordinates.
            wait_until(lambda: caught_up(master, slave), what="caught up after the reconnect")
            master.execute_all(["INSERT INTO d.t (v) VALUES ('after reconnect')"])
            wait_until(lambda: query(slave.port, "SELECT COUNT(*) FROM d.t")[0][0] in (1, "1"), what="applied")
    finally:
        proxy.close()
        master.stop()


def test_master_with_our_server_id_is_refused(tmp_path):
    master = start_master(tmp_path, "STATEMENT")
    try:
        config = bare_config(tmp_path, server_id=1, master_host="127.0.0.1", master_port=master.port,
                             master_user="repl", master_password="replpw", master_connect_retry=1)
        with SlaveThread(config) as slave:
            st = wait_until(lambda: (s := slave_status(slave.port))["Last_IO_Errno"] != 0 and s,
                            what="the IO thread error")
            assert st["Last_IO_Errno"] == 1593
            assert "equal MySQL server ids" in st["Last_IO_Error"]
            wait_until(lambda: slave_status(slave.port)["Slave_IO_Running"] == "No", what="IO stopped")
    finally:
        master.stop()


def test_corrupt_event_checksum_stops_the_io_thread(tmp_path):
    master = start_master(tmp_path, "ROW")
    proxy = WireProxy(master.port)
    try:
        config = bare_config(tmp_path, master_host="127.0.0.1", master_port=proxy.port, master_user="repl",
                             master_password="replpw", master_connect_retry=0.5, master_heartbeat_period=0.2)
        with SlaveThread(config) as slave:
            wait_until(lambda: slave_status(slave.port)["Slave_IO_Running"] == "Yes", what="IO running")
            received = int(status(slave.port, "Slave_received_heartbeats")["Slave_received_heartbeats"])
            wait_until(lambda: int(status(slave.port, "Slave_received_heartbeats")["Slave_received_heartbeats"]) > received,
                       what="a heartbeat")
            proxy.corrupt_next()  # the next heartbeat arrives with a bad CRC32
            st = wait_until(lambda: (s := slave_status(slave.port))["Last_IO_Errno"] != 0 and s, what="IO error")
            assert st["Last_IO_Errno"] == 1743
            wait_until(lambda: slave_status(slave.port)["Slave_IO_Running"] == "No", what="IO thread stopped")
    finally:
        proxy.close()
        master.stop()
