"""Our slave replicating from a stock MariaDB 10.11 semi-sync master (the real peer).

What is proven here, against MariaDB's own counters:
- MariaDB counts our slave as a semi-sync client (Rpl_semi_sync_master_clients = 1), every
  transaction committed while it is connected is acknowledged in time (yes_tx grows by the
  number of transactions, no_tx does not grow), with binlog_format STATEMENT and ROW;
- our slave's tables equal MariaDB's (every common column type; INSERT/UPDATE/DELETE, a
  multi-statement transaction, auto-increment ids, user variables, RAND());
- MariaDB's heartbeats are counted (Slave_received_heartbeats) and never reach the relay log.
"""

from __future__ import annotations

import time
import urllib.request

import pytest

from config.slave import SlaveConfig
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.net import free_port
from tests.support.slave_daemon import (
    SlaveThread,
    normalized_rows,
    query,
    slave_status,
    status,
    wait_until,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]

TABLE = (
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, tiny TINYINT, small SMALLINT, "
    "big BIGINT, u INT UNSIGNED, v VARCHAR(40), c CHAR(8), txt TEXT, b BLOB, n DECIMAL(12,3), "
    "f FLOAT, dbl DOUBLE, dt DATETIME, d DATE, tm TIME, ts TIMESTAMP NULL, maybe INT)"
)
COLUMNS = "id, tiny, small, big, u, v, c, txt, b, n, f, dbl, dt, d, tm, maybe"


def start_master(tmp_path, binlog_format: str) -> MariaDBServer:
    master = MariaDBServer(
        tmp_path / "master",
        binlog_format=binlog_format,
        extra=["--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=10000"],
    ).start()
    # written before any slave follows: the first commit waits for an ack no slave can send, so
    # with a 100 ms timeout, 10 s again after: semi-sync stays enabled with its status OFF (timed
    # out) until a semi-sync slave catches up, as the tests here (and test_slave_admin's,
    # test_slave_durability's) expect, without waiting out the whole 10 s
    master.execute_all([
        "SET GLOBAL rpl_semi_sync_master_timeout = 100",
        "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO repl@'%'",
        "CREATE DATABASE d",
        TABLE,
        "SET GLOBAL rpl_semi_sync_master_timeout = 10000",
    ])
    assert master.status("Rpl_semi_sync_master_status")["Rpl_semi_sync_master_status"] == "OFF"
    return master


def slave_config(tmp_path, master: MariaDBServer, **kw) -> SlaveConfig:
    values = dict(
        datadir=tmp_path / "slave", port=free_port(), server_id=2, master_host="127.0.0.1",
        master_port=master.port, master_user="repl", master_password="replpw",
        rpl_semi_sync_slave_enabled=True, master_heartbeat_period=0.2, master_connect_retry=1,
    )
    values.update(kw)
    return SlaveConfig(**values)


def workload(i: int) -> list[str]:
    """One transaction per call (autocommit statements or BEGIN..COMMIT)."""
    kind = i % 4
    if kind == 0:
        return [
            f"INSERT INTO d.t (tiny, small, big, u, v, c, txt, b, n, f, dbl, dt, d, tm, ts, maybe) VALUES "
            f"({i % 100 - 50}, {i * 7 - 300}, {i * 1000003 - 5}, {4000000000 - i}, 'v{i} ''q''', 'c{i}', "
            f"'text {i}', 'blob{i}', {i}.125, {i}.5, {i}.25e3, '2024-01-02 03:04:{i % 60:02d}', "
            f"'2024-02-{i % 28 + 1:02d}', '1{i % 10}:2{i % 10}:3{i % 10}', '2024-03-04 05:06:07', NULL)"
        ]
    if kind == 1:
        return [
            "BEGIN",
            f"INSERT INTO d.t (v, maybe) VALUES ('multi {i}', {i})",
            f"UPDATE d.t SET maybe = {i}, v = CONCAT(v, '+') WHERE id % 5 = {i % 5}",
            "COMMIT",
        ]
    if kind == 2:
        return [f"SET @x = {i}", "INSERT INTO d.t (v, maybe) VALUES ('uservar', @x)"]
    return [f"DELETE FROM d.t WHERE id = {i // 2}"]


def run_workload(master: MariaDBServer, count: int, start: int = 0) -> None:
    conn = master.connect()
    try:
        with conn.cursor() as cur:
            for i in range(start, start + count):
                for sql in workload(i):
                    cur.execute(sql)
    finally:
        conn.close()


def master_rows(master: MariaDBServer) -> list[tuple]:
    return normalized_rows(master.query(f"SELECT {COLUMNS} FROM d.t"))


def slave_rows(slave: SlaveThread) -> list[tuple]:
    async def read():
        session = slave.daemon.engine.session(0)
        try:
            result = await session.execute(f"SELECT {COLUMNS} FROM d.t")
            return result.rows
        finally:
            await session.close()

    return normalized_rows(slave.call(read))


def caught_up(master: MariaDBServer, slave: SlaveThread) -> bool:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    st = slave_status(slave.port)
    return st.get("Relay_Master_Log_File") == file and int(st["Exec_Master_Log_Pos"]) == int(pos)


@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_semisync_from_mariadb_master(tmp_path, binlog_format):
    master = start_master(tmp_path, binlog_format)
    try:
        # Small relay log files: the slave rotates its relay log many times during the workload.
        with SlaveThread(slave_config(tmp_path, master), max_relay_log_size=2048) as slave:
            wait_until(lambda: status(slave.port, "Rpl_semi_sync_slave_status").get("Rpl_semi_sync_slave_status") == "ON",
                       what="semi-sync negotiated")
            wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                       what="MariaDB sees one semi-sync client")
            before = master.status("Rpl_semi_sync_master_%")
            transactions = 40
            run_workload(master, transactions // 2)
            master.execute_all(["FLUSH BINARY LOGS"])  # a real ROTATE in the middle of the stream
            run_workload(master, transactions // 2, start=transactions // 2)
            after = master.status("Rpl_semi_sync_master_%")
            assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) == transactions
            assert after["Rpl_semi_sync_master_no_tx"] == before["Rpl_semi_sync_master_no_tx"]
            assert after["Rpl_semi_sync_master_status"] == "ON"

            wait_until(lambda: caught_up(master, slave), what="slave applied everything")
            assert slave_rows(slave) == master_rows(master)
            st = slave_status(slave.port)
            assert st["Slave_IO_Running"] == "Yes" and st["Slave_SQL_Running"] == "Yes"
            assert st["Last_IO_Errno"] == 0 and st["Last_SQL_Errno"] == 0
            assert st["Master_Server_Id"] == 1
            assert st["Master_Log_File"] == st["Relay_Master_Log_File"] == "master-bin.000002"
            # Applied relay log files were purged; the index lists what is left.
            relay_dir = tmp_path / "slave"

            def purged() -> list[str] | None:
                listed = (relay_dir / "relay-bin.index").read_text().split()
                on_disk = sorted(p.name for p in relay_dir.glob("relay-bin.0*"))
                return listed if on_disk == listed and len(listed) <= 2 else None

            listed = wait_until(purged, what="applied relay log files purged")
            assert int(listed[-1].rsplit(".", 1)[1]) >= 4  # rotated several times
            # The master's CREATE USER / GRANT were replayed into the slave's user store.
            grants = " ".join(g[0] for g in query(slave.port, "SHOW GRANTS FOR 'repl'@'%'"))
            assert "REPLICATION SLAVE" in grants
            # Writes from clients (an account without READ_ONLY ADMIN, replicated from the
            # master) are refused on the slave.
            master.execute_all(["CREATE USER app@'%' IDENTIFIED BY 'apppw'", "GRANT INSERT ON d.* TO app@'%'"])
            wait_until(lambda: query(slave.port, "SELECT user FROM mysql.global_priv WHERE user = 'app'"),
                       what="the client account replicated")
            with pytest.raises(Exception) as refused:
                query(slave.port, "INSERT INTO d.t (v) VALUES ('client write')", user="app", password="apppw")
            assert refused.value.args[0] == 1290
    finally:
        master.stop()


def test_heartbeats_from_idle_mariadb_master(tmp_path):
    master = start_master(tmp_path, "ROW")
    try:
        metrics_port = free_port()
        with SlaveThread(slave_config(tmp_path, master, master_heartbeat_period=0.2, metrics_port=metrics_port)) as slave:
            wait_until(lambda: caught_up(master, slave), what="slave caught up")
            hb = status(slave.port, "Slave_%")
            assert hb["Slave_heartbeat_period"] == "0.200"
            relay_files = sorted((tmp_path / "slave").glob("relay-bin.0*"))
            sizes = {p.name: p.stat().st_size for p in relay_files}
            start = int(hb["Slave_received_heartbeats"])
            t0 = time.monotonic()
            time.sleep(3.0)
            elapsed = time.monotonic() - t0
            got = int(status(slave.port, "Slave_received_heartbeats")["Slave_received_heartbeats"]) - start
            # 5 per second expected; allow scheduling noise on a loaded CI machine.
            assert 0.6 * 5 * elapsed <= got <= 1.4 * 5 * elapsed + 1, got
            assert {p.name: p.stat().st_size for p in sorted((tmp_path / "slave").glob("relay-bin.0*"))} == sizes
            st = slave_status(slave.port)
            assert st["Slave_IO_Running"] == "Yes"
            metrics = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
            assert "mysql_global_status_slave_received_heartbeats " in metrics
            assert f"mysql_slave_status_read_master_log_pos {float(st['Read_Master_Log_Pos'])}" in metrics
    finally:
        master.stop()


@pytest.mark.slow
def test_event_over_16_mib_from_mariadb(tmp_path):
    """A 17 MiB row: the WRITE_ROWS event travels in several MySQL packets (0xFFFFFF chunks)."""
    master = MariaDBServer(
        tmp_path / "master", binlog_format="ROW",
        extra=["--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=20000",
               "--max-allowed-packet=256M"],
    ).start()
    try:
        master.execute_all([  # semi-sync off while no slave follows (as in start_master)
            "SET GLOBAL rpl_semi_sync_master_enabled = OFF",
            "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
            "CREATE DATABASE d",
            "CREATE TABLE d.big (id INT PRIMARY KEY, b LONGBLOB)",
            "SET GLOBAL rpl_semi_sync_master_enabled = ON",
        ])
        with SlaveThread(slave_config(tmp_path, master)) as slave:
            wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                       what="semi-sync client")
            before = int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
            master.execute_all([
                "INSERT INTO d.big VALUES (1, REPEAT('x', 17 * 1024 * 1024))",
                "INSERT INTO d.big VALUES (2, 'small')",
            ])
            assert int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]) == before + 2
            wait_until(lambda: caught_up(master, slave), timeout=120, what="the big row applied")
            assert query(slave.port, "SELECT id, LENGTH(b) FROM d.big ORDER BY id") == [(1, 17 * 1024 * 1024), (2, 5)]
    finally:
        master.stop()


def test_row_events_change_one_row_each_and_a_missing_row_stops_the_applier_with_1032(tmp_path):
    """ROW format from MariaDB: a rows event's image changes exactly one row, also among
    identical rows of a table without a primary key; an UPDATE or DELETE image whose row the
    slave does not have stops the applier with 1032 (MySQL's slave_exec_mode=STRICT), and
    replication resumes once the row is there and the slave is started again."""
    master = MariaDBServer(tmp_path / "master", binlog_format="ROW").start()
    try:
        master.execute_all([
            "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
            "CREATE DATABASE d",
            "CREATE TABLE d.nokey (a INT, b VARCHAR(10))",
            "CREATE TABLE d.k (id INT PRIMARY KEY, v INT)",
            "INSERT INTO d.nokey VALUES (1, 'x'), (1, 'x'), (1, 'x'), (2, 'y')",
            "INSERT INTO d.k VALUES (1, 10), (2, 20)",
        ])
        # the repair below is a local write in the master's GTID domain: allowed without
        # gtid_strict_mode (with it, the master's next GTID would stop the applier with 1950)
        config = slave_config(tmp_path, master, rpl_semi_sync_slave_enabled=False, gtid_strict_mode=False)
        with SlaveThread(config) as slave:
            both = "SELECT a, b FROM d.nokey ORDER BY a, b"
            wait_until(lambda: query(slave.port, both) == master.query(both), what="the first rows")
            master.execute_all([
                "DELETE FROM d.nokey WHERE a = 1 LIMIT 1",
                "UPDATE d.nokey SET b = 'z' WHERE a = 1 LIMIT 1",
            ])
            assert master.query(both) == [(1, "x"), (1, "z"), (2, "y")]
            wait_until(lambda: query(slave.port, both) == master.query(both),
                       what="one of the identical rows deleted, one updated")

            query(slave.port, "SET GLOBAL read_only = OFF")
            query(slave.port, "DELETE FROM d.k WHERE id = 2")
            master.execute_all(["UPDATE d.k SET v = 21 WHERE id = 2"])

            def stopped() -> dict | None:
                st = slave_status(slave.port)
                return st if st["Last_SQL_Errno"] not in (0, "0") else None

            st = wait_until(stopped, what="the applier stops on the missing row")
            assert int(st["Last_SQL_Errno"]) == 1032
            assert "Can't find record in 'k'" in st["Last_SQL_Error"]
            assert st["Slave_SQL_Running"] == "No" and st["Slave_IO_Running"] == "Yes"

            query(slave.port, "INSERT INTO d.k VALUES (2, 20)")
            query(slave.port, "START SLAVE")
            wait_until(lambda: query(slave.port, "SELECT id, v FROM d.k ORDER BY id") == [(1, 10), (2, 21)],
                       what="the update applied once its row is there")
    finally:
        master.stop()


def test_row_events_of_a_table_with_generated_columns(tmp_path):
    """ROW format from MariaDB carries the generated columns' values in its row images: the
    slave computes its own (SQLite refuses a write into one) and finds rows by the others."""
    master = MariaDBServer(tmp_path / "master", binlog_format="ROW").start()
    try:
        master.execute_all([
            "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
            "CREATE DATABASE d",
            "CREATE TABLE d.g (id INT PRIMARY KEY, a INT, twice INT AS (a * 2) VIRTUAL,"
            " label VARCHAR(20) AS (CONCAT('n', a)) STORED, KEY (label)) DEFAULT CHARSET=utf8mb4",
            "CREATE TABLE d.gk (a INT, b INT AS (a + 1) PERSISTENT)",
            "INSERT INTO d.g (id, a) VALUES (1, 10), (2, 20), (3, 30)",
            "INSERT INTO d.gk (a) VALUES (1), (2)",
        ])
        config = slave_config(tmp_path, master, rpl_semi_sync_slave_enabled=False)
        with SlaveThread(config) as slave:
            rows = "SELECT * FROM d.g ORDER BY id"
            keyless = "SELECT * FROM d.gk ORDER BY a"
            wait_until(lambda: query(slave.port, rows) == master.query(rows), what="the first rows")
            master.execute_all([
                "UPDATE d.g SET a = 11 WHERE id = 1",
                "DELETE FROM d.g WHERE id = 2",
                "UPDATE d.gk SET a = 5 WHERE a = 2",
                "DELETE FROM d.gk WHERE a = 1",
            ])
            assert master.query(rows) == [(1, 11, 22, "n11"), (3, 30, 60, "n30")]
            wait_until(lambda: query(slave.port, rows) == master.query(rows)
                       and query(slave.port, keyless) == master.query(keyless), what="the row changes applied")
            assert slave_status(slave.port)["Last_SQL_Errno"] in (0, "0")
    finally:
        master.stop()
