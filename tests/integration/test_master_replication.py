"""Replicas of the master daemon: python-mysql-replication's BinLogStreamReader (it sees each
transaction's MariaDB GTID event) and a stock MariaDB 10.11 replica (file/position mode), both
over the real replication protocol."""

from __future__ import annotations

import time

import pymysql
import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import (
    HeartbeatLogEvent,
    MariadbGtidEvent,
    QueryEvent,
    RotateEvent,
    XidEvent,
)

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.master import (  # noqa: F401 (master_fixture: the `master` fixture)
    make_repl_user,
    master_fixture,
    start_master,
    start_replica,
    wait_caught_up,
)

pytestmark = pytest.mark.timeout(240)




def _connect_without_information_schema(**kw):
    # BinLogStreamReader's control connection logs in to `information_schema`, which the server
    # shell does not offer as a database; it only reads table metadata for row events (we have none).
    if kw.get("db") == "information_schema":
        kw.pop("db")
    return pymysql.connect(**kw)


@pytest.mark.parametrize("checksum", ["CRC32", "NONE"])
def test_python_mysql_replication_gets_every_transaction_across_a_rotation_and_heartbeats(tmp_path, checksum):
    master = start_master(tmp_path, f"--binlog-checksum={checksum}")
    try:
        _python_mysql_replication_stream(master)
    finally:
        master.stop()


def _python_mysql_replication_stream(master: Daemon) -> None:
    conn = master.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE pr")
    cur.execute("CREATE TABLE pr.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    expected = []
    for i in range(5):
        cur.execute(f"INSERT INTO pr.t (v) VALUES ({i})")
        expected.append([f"INSERT INTO pr.t (v) VALUES ({i})"])
    conn.begin()
    cur.execute("INSERT INTO pr.t (v) VALUES (100)")
    cur.execute("UPDATE pr.t SET v = v + 1 WHERE v < 3")
    conn.commit()
    expected.append(["INSERT INTO pr.t (v) VALUES (100)", "UPDATE pr.t SET v = v + 1 WHERE v < 3"])
    conn.begin()
    cur.execute("DELETE FROM pr.t")
    conn.rollback()
    cur.execute("FLUSH BINARY LOGS")
    for i in range(3):
        cur.execute(f"INSERT INTO pr.t (v) VALUES ({200 + i})")
        expected.append([f"INSERT INTO pr.t (v) VALUES ({200 + i})"])

    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": master.port, "user": "root", "password": ""},
        server_id=99, blocking=True, resume_stream=True, log_file="mysql-bin.000001", log_pos=4,
        only_events=[MariadbGtidEvent, QueryEvent, XidEvent, RotateEvent, HeartbeatLogEvent], slave_heartbeat=0.2,
        report_slave=("pyrepl", "", "", 3399), pymysql_wrapper=_connect_without_information_schema,
    )
    transactions: list[list[str]] = []
    ddl: list[str] = []
    current: list[str] | None = None
    rotations: list[str] = []
    gtids: list[str] = []
    heartbeats = 0
    deadline = time.monotonic() + 60
    try:
        for event in stream:
            assert time.monotonic() < deadline, "stream too slow"
            if isinstance(event, MariadbGtidEvent):  # a transaction's start, or a lone DDL's
                gtids.append(event.gtid)
                if not event.flags & 1:  # not FL_STANDALONE
                    current = []
            elif isinstance(event, QueryEvent):
                query = event.query
                if query == "BEGIN":
                    current = []
                elif current is not None:
                    current.append(query)
                else:
                    ddl.append(query)
            elif isinstance(event, XidEvent):
                assert current is not None
                transactions.append(current)
                current = None
            elif isinstance(event, RotateEvent):
                rotations.append(event.next_binlog)
            elif isinstance(event, HeartbeatLogEvent):
                heartbeats += 1
                if len(transactions) == len(expected):
                    hosts = master.query("SHOW SLAVE HOSTS")
                    assert (99, "pyrepl", 3399, 1) in [tuple(h[:4]) for h in hosts]
                if heartbeats >= 3:
                    break
    finally:
        stream.close()
    assert ddl == ["CREATE DATABASE pr", "CREATE TABLE pr.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"]
    assert transactions == expected
    assert gtids == [f"0-1-{n}" for n in range(1, len(ddl) + len(expected) + 1)]
    assert "mysql-bin.000002" in rotations
    assert heartbeats >= 3
    conn.close()








def mixed_workload(master: Daemon) -> None:
    conn = master.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE mix")
    cur.execute("CREATE TABLE mix.orders (id INT AUTO_INCREMENT PRIMARY KEY, item VARCHAR(40), qty INT, "
                "created DATETIME)")
    cur.execute("CREATE TABLE mix.audit (id INT AUTO_INCREMENT PRIMARY KEY, order_id INT, note VARCHAR(40))")
    for i in range(30):
        cur.execute("INSERT INTO mix.orders (item, qty, created) VALUES (%s, %s, NOW())", (f"item-{i}", i))
    for i in range(10):
        conn.begin()
        cur.execute("INSERT INTO mix.orders (item, qty, created) VALUES (%s, 1, NOW())", (f"tx-{i}",))
        cur.execute("INSERT INTO mix.audit (order_id, note) VALUES (LAST_INSERT_ID(), 'created')")
        cur.execute("UPDATE mix.orders SET qty = qty + 1 WHERE id = %s", (i + 1,))
        if i % 3 == 0:
            conn.rollback()
        else:
            conn.commit()
    cur.execute("FLUSH BINARY LOGS")
    cur.execute("DELETE FROM mix.orders WHERE qty % 4 = 0")
    cur.execute("ALTER TABLE mix.audit ADD COLUMN extra INT DEFAULT 7")
    cur.execute("INSERT INTO mix.audit (order_id, note) VALUES (0, 'after alter')")
    cur.execute("SET @note = 'from a variable', @oid = 12345")
    cur.execute("INSERT INTO mix.audit (order_id, note) VALUES (@oid, @note)")
    conn.close()


def table_rows(server, sql: str) -> list[tuple]:
    return [tuple(r) for r in server.query(sql)]


@pytest.mark.mariadb
@pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed")
def test_stock_mariadb_replica_replicates_a_mixed_workload_and_gets_heartbeats(master, tmp_path):
    make_repl_user(master)
    replica = start_replica(tmp_path, master)
    try:
        mixed_workload(master)
        st = wait_caught_up(master, replica)
        assert st["Slave_IO_Running"] == "Yes" and st["Slave_SQL_Running"] == "Yes"
        for sql in ("SELECT * FROM mix.orders ORDER BY id", "SELECT * FROM mix.audit ORDER BY id"):
            assert table_rows(replica, sql) == table_rows(master, sql), sql
        assert len(table_rows(master, "SELECT * FROM mix.orders")) > 20
        before = int(replica.status("Slave_received_heartbeats")["Slave_received_heartbeats"])
        time.sleep(1.5)
        after = int(replica.status("Slave_received_heartbeats")["Slave_received_heartbeats"])
        assert after >= before + 3, (before, after)
        hosts = master.query("SHOW SLAVE HOSTS")
        assert [h[0] for h in hosts] == [2]
    finally:
        replica.stop()
