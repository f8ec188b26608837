"""MariaDB Connector/Python (PyPI `mariadb`, over libmariadb) against a stock MariaDB 10.11 and
our master: a table of every column type written with prepared statements (`executemany`,
the binary protocol) and read back over the binary and the text protocol, the result column
types, updates and deletes by `executemany`, errors (codes, SQLSTATEs, the exception classes
the connector picks from them): the same from both servers. A TLS login to ours with its CA.

`executemany` of an INSERT: both announce MARIADB_CLIENT_STMT_BULK_OPERATIONS and run the rows
as one COM_STMT_BULK_EXECUTE (all or none kept, `lastrowid` the first id made: server/bulk.py;
tests/integration/test_bulk_execute_mariadb.py has the other statements, Connector/J and the
replicas)."""

from __future__ import annotations

import datetime
import decimal

import pytest

mariadb = pytest.importorskip("mariadb")

from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import mariadb_and_ours  # noqa: E402

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(180),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

COLUMNS = ("ti TINYINT, si SMALLINT UNSIGNED, bi BIGINT, f FLOAT, d DOUBLE, dc DECIMAL(12,3), "
           "s VARCHAR(20), b VARBINARY(10), tx TEXT, bl BLOB, dt DATETIME(6), da DATE, tm TIME(3), "
           "ts TIMESTAMP NULL, j JSON, e ENUM('a','b'), bits BIT(8), y YEAR, ub BIGINT UNSIGNED")
NAMES = [column.split()[0] for column in COLUMNS.split(", ")]
ROWS = [
    (1, 65535, -2**63, 1.5, 2.25, decimal.Decimal("123.456"), "héllo ✓", b"\x00\x01", "text", b"\xff" * 3,
     datetime.datetime(2024, 1, 2, 3, 4, 5, 600000), datetime.date(2024, 2, 29),
     datetime.timedelta(hours=-1, seconds=1, microseconds=500000), datetime.datetime(2024, 1, 1),
     '{"a": 1}', "b", 5, 2024, 2**64 - 1),
    (-128, 0, 2**63 - 1, -0.25, 1e300, decimal.Decimal("-0.001"), "", b"", "", b"",
     datetime.datetime(1000, 1, 1), datetime.date(9999, 12, 31), datetime.timedelta(hours=838, minutes=59, seconds=59),
     None, "[]", "a", 0, 1901, 0),
    (None,) * 19,
]
INSERT = f"INSERT INTO t ({', '.join(NAMES)}) VALUES ({', '.join('?' * len(NAMES))})"


# MariaDB refuses a bulk execution under a STATEMENT binlog ("Only row based replication
# supported for bulk operations", 1235 ...): the reference logs rows
ROW_BINLOG = ("--binlog-format=ROW",)


def connect(port: int, **kw):
    return mariadb.connect(host="127.0.0.1", port=port, user="root", password="", **kw)


def fresh_table(conn) -> None:
    cur = conn.cursor()
    cur.execute("CREATE DATABASE mc CHARACTER SET utf8mb4")
    cur.execute("USE mc")
    cur.execute(f"CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, {COLUMNS})")


def error_of(cur, sql: str, args=()) -> tuple:
    try:
        cur.execute(sql, args)
    except mariadb.Error as exc:
        return type(exc).__name__, getattr(exc, "errno", None), getattr(exc, "sqlstate", None), str(exc)
    return ("no error",)


def answers(port: int) -> list:
    conn = connect(port)
    try:
        fresh_table(conn)
        cur = conn.cursor()
        out: list = []
        cur.executemany(INSERT, ROWS)
        out.append(("inserted", cur.rowcount))
        cur.execute("SELECT * FROM t WHERE id > ? ORDER BY id", (0,))  # binary protocol
        out.append(("described", [d[:2] for d in cur.description]))
        out.append(("binary rows", cur.fetchall()))
        cur.execute("SELECT * FROM t ORDER BY id")  # text protocol
        out.append(("text rows", cur.fetchall()))
        binary = conn.cursor(binary=True)  # binary protocol without parameters
        binary.execute("SELECT id, dc * 2, CONCAT(s, '!'), dt + INTERVAL 1 DAY, j FROM t ORDER BY id")
        out.append(("binary expressions", [d[:2] for d in binary.description], binary.fetchall()))
        cur.executemany("UPDATE t SET s = ? WHERE id = ?", [("x", 1), ("y", 2), ("z", 99)])
        out.append(("updated", cur.rowcount))
        cur.executemany("DELETE FROM t WHERE id = ?", [(3,), (99,)])
        out.append(("deleted", cur.rowcount))
        cur.execute("SELECT id, s FROM t WHERE s IN (?, ?) ORDER BY id", ("x", "y"))
        out.append(("after", cur.fetchall()))
        out.append(error_of(cur, "SELECT * FROM nosuch"))
        out.append(error_of(cur, "INSERT INTO t (id) VALUES (?)", (1,)))
        out.append(error_of(cur, "SELEC ?", (1,)))
        out.append(error_of(cur, "INSERT INTO t (ti) VALUES (?)", (300,)))
        out.append(error_of(cur, "SELECT ?", ()))
        return out
    finally:
        conn.close()


def test_connector_answers_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as (reference, ours):
        theirs, mine = answers(reference.port), answers(ours.port)
    for want, got in zip(theirs, mine, strict=True):
        assert got == want


def test_tls_login_with_the_generated_ca(tmp_path):
    with mariadb_and_ours(tmp_path) as (_, ours):
        conn = connect(ours.port, ssl_ca=str(ours.datadir / "ca.pem"), ssl_verify_cert=True)
        try:
            cur = conn.cursor()
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            assert cur.fetchone()[1]
            assert conn.tls_version.startswith("TLSv1.")
        finally:
            conn.close()


def bulk_answers(port: int) -> tuple:
    conn = connect(port)
    try:
        fresh_table(conn)
        cur = conn.cursor()
        cur.executemany("INSERT INTO t (s) VALUES (?)", [("a",), ("b",), ("c",)])
        made = cur.lastrowid
        failed = error_of(cur, "SELECT 1")  # (a cursor for the next executemany)
        try:
            cur.executemany("INSERT INTO t (id, s) VALUES (?, ?)", [(10, "kept?"), (1, "duplicate")])
        except mariadb.Error as exc:
            failed = (exc.errno, exc.sqlstate)
        cur.execute("SELECT id, s FROM t ORDER BY id")
        return made, failed, cur.fetchall()
    finally:
        conn.close()


def test_executemany_as_one_bulk_statement(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as (reference, ours):
        assert bulk_answers(ours.port) == bulk_answers(reference.port)
