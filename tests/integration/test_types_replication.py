"""Every MySQL column type through replication, exactly: the rows of test_types_mariadb written
through our master with PyMySQL (every byte value, DECIMAL, fractions, edge values, NULLs)
arrive identical, as PyMySQL reads them, on two of our slaves and on a stock MariaDB 10.11
replica of our master (statement-based binlog: the values travel in the SQL text); so do the
rows mysql-connector-python (pure Python, and its C extension where it loads) writes through
prepared INSERTs, every column a typed parameter (the binlog holds them as the statement with
its values inlined)."""

from __future__ import annotations

import pytest

from tests.integration.test_types_mariadb import (
    COLUMNS,
    EVERY_BYTE,
    PREPARED_ROWS,
    ROWS,
    TABLE,
    cext_loads,
    connector_call,
    insert_sql,
    prepared_insert,
)
from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.master import make_repl_user, start_master, start_replica, wait_caught_up
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SELECT = f"SELECT id, {', '.join(COLUMNS)} FROM ty.alltypes ORDER BY id"
SELECT_PREPARED = SELECT.replace("ty.alltypes", "ty.ps")


def start_slave(tmp_path, name: str, server_id: int, master: Daemon) -> Daemon:
    return Daemon("slave", tmp_path / name, [
        f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
        "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
    ]).start()


def caught_up(master: Daemon, slave: Daemon) -> bool:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    st = slave_status(slave.port)
    if st.get("Last_SQL_Error"):
        raise AssertionError(f"slave error: {st['Last_SQL_Error']}")
    return st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == int(pos)


def write_alltypes(server, *changes: str) -> tuple[tuple, str, int]:
    """Database ty, table alltypes with ROWS, then `changes`: (the rows read back, the binlog end)."""
    conn = server.connect(charset="utf8mb4")
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE ty CHARACTER SET utf8mb4")
            cur.execute("USE ty")
            cur.execute(TABLE)
            cur.executemany(insert_sql(), ROWS)
            for sql in changes:
                cur.execute(sql)
            cur.execute("SHOW MASTER STATUS")
            file, pos = cur.fetchone()[:2]
            cur.execute(SELECT)
            return cur.fetchall(), file, int(pos)
    finally:
        conn.close()


def read_rows(server, select: str) -> tuple:
    conn = server.connect(charset="utf8mb4")
    try:
        with conn.cursor() as cur:
            cur.execute(select)
            return cur.fetchall()
    finally:
        conn.close()


def same_rows(server, expected: tuple, select: str = SELECT) -> None:
    got = read_rows(server, select)
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert [(n, a, b) for n, a, b in zip(["id", *COLUMNS], row, want, strict=True) if a != b] == [], server


def test_every_type_arrives_exactly_on_our_slaves_and_a_mariadb_replica(tmp_path):
    master = start_master(tmp_path)
    servers: list = []
    try:
        make_repl_user(master)
        servers += [start_slave(tmp_path, "s1", 11, master), start_slave(tmp_path, "s2", 12, master)]
        replica = start_replica(tmp_path, master)
        servers.append(replica)
        expected, _, _ = write_alltypes(master, "UPDATE alltypes SET d = 12345678.91, bn = X'FF', "
                                        "dt6 = '2001-02-03 04:05:06.070809' WHERE id = 3")
        assert expected[1][1 + COLUMNS.index("vb")] == EVERY_BYTE
        pytest.importorskip("mysql.connector")
        prepared_insert(master.port, master.root_password, "ps")
        prepared = read_rows(master, SELECT_PREPARED)
        assert len(prepared) == len(PREPARED_ROWS)
        assert prepared[1][1 + COLUMNS.index("bl")] == EVERY_BYTE
        tables = [(SELECT_PREPARED, prepared)]
        if cext_loads():  # mysql-connector's C extension: its own binary parameter encoder
            connector_call(prepared_insert, master.port, master.root_password, "ps_cext", use_pure=False)
            select = SELECT.replace("ty.alltypes", "ty.ps_cext")
            tables.append((select, read_rows(master, select)))
        for slave in servers[:2]:
            wait_until(lambda s=slave: caught_up(master, s), timeout=60, what="our slave to catch up")
        wait_caught_up(master, replica)
        for server in servers:
            same_rows(server, expected)
            for select, rows in tables:
                same_rows(server, rows, select)
    finally:
        for server in servers:
            server.stop()
        master.stop()


def test_our_slave_applies_a_mariadb_masters_row_events_of_every_type_exactly(tmp_path):
    from config.slave import SlaveConfig
    from tests.support.mariadb import MariaDBServer
    from tests.support.net import free_port
    from tests.support.slave_daemon import SlaveThread

    master = MariaDBServer(tmp_path / "master", binlog_format="ROW").start()
    try:
        master.execute_all(["CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
                            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'"])
        config = SlaveConfig(datadir=tmp_path / "slave", port=free_port(), server_id=2,
                             master_host="127.0.0.1", master_port=master.port, master_user="repl",
                             master_password="replpw", master_heartbeat_period=0.2, master_connect_retry=1)
        with SlaveThread(config) as slave:
            expected, file, pos = write_alltypes(
                master, "UPDATE alltypes SET d = -12345678.91, bn = X'FF', tm6 = '-12:34:56.789012', "
                "dt6 = '2001-02-03 04:05:06.070809', b = b'1010' WHERE id = 3", "DELETE FROM alltypes WHERE id = 1")

            def applied() -> bool:
                st = slave_status(slave.port)
                if st.get("Last_SQL_Error"):
                    raise AssertionError(st["Last_SQL_Error"])
                return st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == pos

            wait_until(applied, timeout=60, what="the slave to apply the row events")
            assert len(expected) == 3
            same_rows(slave, expected)
    finally:
        master.stop()
