"""COM_STMT_BULK_EXECUTE (server/bulk.py) against a stock MariaDB 10.11 with a ROW binlog (with
STATEMENT it refuses every bulk write, 4033): MariaDB Connector/Python's `executemany` of
INSERT, REPLACE, INSERT ... ON DUPLICATE KEY UPDATE, INSERT ... SET, UPDATE and DELETE, DEFAULT
and IGNORE indicators, RETURNING, a failing row, the statements MariaDB refuses (1295, 4032), the
session's Com_stmt_execute and LAST_INSERT_ID(); MariaDB Connector/J's batches with
useBulkStmts=true; a client without MARIADB_CLIENT_STMT_BULK_OPERATIONS (1295); and the bulk
writes on our master replicated to our slave and to a MariaDB replica, each holding the rows a
MariaDB that ran the same bulk writes holds."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pymysql
import pytest

mariadb = pytest.importorskip("mariadb")

from protocol.binary import ComStmtBulkExecute, ParamType, encode_bulk_rows  # noqa: E402
from protocol.messages import FieldType  # noqa: E402
from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import (  # noqa: E402
    assert_same_rows,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

ROW_BINLOG = ("--binlog-format=ROW",)
DEFAULT = mariadb.constants.INDICATOR.DEFAULT
IGNORE = mariadb.constants.INDICATOR.IGNORE
TABLE = "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, s VARCHAR(10), n INT DEFAULT 7)"

# (statement, rows): each run by one executemany, in order, on the same table
STEPS = [
    ("INSERT INTO t (s) VALUES (?)", [("a",), ("b",), ("c",)]),
    ("SELECT LAST_INSERT_ID()", None),
    ("INSERT INTO t (id, s) VALUES (?, ?)", [(10, "x"), (1, "dup")]),  # 1062: neither row stays
    ("UPDATE t SET s = ? WHERE id = ?", [("u1", 1), ("u2", 2), ("u9", 99)]),
    ("UPDATE t SET s = ? WHERE s = ?", [("v", "c"), ("wwwwwwwwwwwwwwwwwwwwwww", "u2")]),  # 1406 at row 2: row 1 stays
    ("DELETE FROM t WHERE id = ?", [(3,), (99,)]),
    ("REPLACE INTO t (id, s) VALUES (?, ?)", [(1, "r1"), (50, "r50")]),
    ("INSERT INTO t (id, s) VALUES (?, ?) ON DUPLICATE KEY UPDATE s = VALUES(s)", [(1, "o1"), (60, "o60")]),
    ("INSERT INTO t (id, s) VALUES (?, ?) ON DUPLICATE KEY UPDATE s = ?", [(1, "p1", "q1"), (70, "p70", "q70")]),
    ("INSERT INTO t SET id = ?, s = ?", [(80, "s80"), (81, "s81")]),
    ("INSERT INTO t SET id = ?, s = ?", [(90, "s90"), (80, "dup")]),  # row by row, undone whole
    ("INSERT INTO t (s, n) VALUES (?, ?)", [("d1", DEFAULT), ("d2", 5), ("d3", IGNORE)]),
    ("UPDATE t SET s = ?, n = ? WHERE id = ?", [("i1", IGNORE, 1), (DEFAULT, 9, 2)]),
    ("UPDATE t SET n = ? + 1 WHERE id = ?", [(DEFAULT, 1)]),  # 4032
    ("UPDATE t SET s = 'x' WHERE n = ?", [(DEFAULT,)]),  # 4032
    ("INSERT INTO t (id, s, n) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE n = ?, s = ?",
     [(1, "q", 1, DEFAULT, IGNORE), (2, "r", 1, 5, DEFAULT)]),  # IGNORE: an INSERT's DEFAULT
    ("SELECT ?", [(1,), (2,)]),  # 1295
    ("INSERT INTO t (s) SELECT ?", [("sel1",), ("sel2",)]),  # 1295
    ("INSERT INTO t (s) VALUES (?) RETURNING id, s", [("ret1",), ("ret2",), ("ret3",)]),
    ("INSERT INTO t (s) VALUES (CONCAT(?, 'x'))", [("abcdefghij",)]),  # 1406
    ("SELECT LAST_INSERT_ID()", None),
    ("SHOW SESSION STATUS LIKE 'Com_stmt_execute'", None),
    ("SELECT * FROM t ORDER BY id", None),
    # more rows than one of our statements holds (server/bulk.py ROWS_PER_STATEMENT): row 2400
    # too long, none kept; then all kept, the OK's id the last row's
    ("INSERT INTO t (id, s) VALUES (?, ?)", [(1000 + i, "wwwwwwwwwwww" if i == 2399 else f"b{i}") for i in range(2500)]),
    ("INSERT INTO t (id, s) VALUES (?, ?)", [(1000 + i, f"b{i}") for i in range(2500)]),
    ("SELECT COUNT(*), SUM(id), MAX(s) FROM t", None),
    # more values than one statement of our engine takes
    ("INSERT INTO t (n, s) VALUES (?, ?)", [(i, "m") for i in range(130000)]),
    ("SELECT COUNT(*), SUM(n) FROM t WHERE s = 'm'", None),
]


@contextmanager
def table_cursor(port: int, database: str) -> Iterator[Any]:
    """A Connector/Python cursor (autocommit) in a new `database` holding the empty TABLE."""
    conn = mariadb.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    try:
        cur = conn.cursor()
        cur.execute(f"CREATE DATABASE {database}")
        cur.execute(f"USE {database}")
        cur.execute(TABLE)
        yield cur
    finally:
        conn.close()


def connector_answers(port: int) -> list[tuple]:
    with table_cursor(port, "bk") as cur:
        out: list[tuple] = []
        for sql, rows in STEPS:
            try:
                if rows is None:
                    cur.execute(sql)
                    out.append((sql, cur.fetchall()))
                    continue
                cur.executemany(sql, rows)
                fetched = cur.fetchall() if cur.description else None
                out.append((sql, cur.rowcount, cur.lastrowid, cur.warnings, fetched))
            except mariadb.Error as exc:
                out.append((sql, "error", exc.errno, exc.sqlstate, str(exc)))
        return out


def test_bulk_statements_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as (reference, ours):
        theirs, mine = connector_answers(reference.port), connector_answers(ours.port)
    # what the comparison stands on: MariaDB ran the INSERT as one statement of three rows
    assert theirs[0] == ("INSERT INTO t (s) VALUES (?)", 3, 1, 0, None)
    assert ("INSERT INTO t (id, s) VALUES (?, ?)", "error", 1062, "23000",
            "Duplicate entry '1' for key 'PRIMARY'") in theirs
    for want, got in zip(theirs, mine, strict=True):
        assert got == want


# (statement, rows) each run on the rows (1, 'a'), (2, 'b'), (3, 'c'): the row a bulk UPDATE's
# error names is its own execution's, counted by the rows that execution's scan read
ROW_NUMBERED = [
    ("UPDATE t SET s = ? WHERE s = ?", [("v", "a"), ("wwwwwwwwwwwwwwwwwwwww", "c")]),  # MariaDB: row 3
    ("UPDATE t SET s = ? WHERE s = ?", [("wwwwwwwwwwwwwwwwwwwww", "b"), ("v", "c")]),  # row 2
    ("UPDATE t SET s = ? WHERE id = ?", [("v", 1), ("v", 2), ("wwwwwwwwwwwwwwwwwwwww", 3)]),  # row 1
]


def row_numbered_answers(port: int) -> list[tuple]:
    with table_cursor(port, "bn") as cur:
        out: list[tuple] = []
        for sql, rows in ROW_NUMBERED:
            cur.execute("DELETE FROM t")
            cur.execute("INSERT INTO t (id, s) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
            try:
                cur.executemany(sql, rows)
                out.append((sql, "ok"))
            except mariadb.Error as exc:
                out.append((sql, exc.errno, str(exc)))
            cur.execute("SELECT id, s FROM t ORDER BY id")
            out.append(tuple(cur.fetchall()))
        return out


def test_a_bulk_update_s_error_names_the_row_of_its_own_execution_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as (reference, ours):
        theirs, mine = row_numbered_answers(reference.port), row_numbered_answers(ours.port)
    # what the comparison stands on: MariaDB's rows are not the bulk rows' numbers
    assert [t[2][-5:] for t in theirs[::2]] == ["row 3", "row 2", "row 1"]
    assert mine == theirs


def test_a_client_without_bulk_operations_gets_1295(tmp_path):
    block = encode_bulk_rows([ParamType(FieldType.LONGLONG)], [[1], [2]])
    answers = []
    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as servers:
        for server in servers:
            conn = pymysql.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)
            try:
                conn.query("CREATE DATABASE nb")
                conn.select_db("nb")
                conn.query("CREATE TABLE t (a BIGINT)")
                conn._execute_command(0x16, "INSERT INTO t VALUES (?)")  # COM_STMT_PREPARE
                prepared = conn._read_packet()
                statement_id = int.from_bytes(prepared.get_all_data()[1:5], "little")
                conn._read_packet()  # the parameter's definition
                conn._read_packet()  # its EOF (PyMySQL does not ask CLIENT_DEPRECATE_EOF)
                payload = ComStmtBulkExecute(statement_id, 128, block).encode()
                conn._execute_command(payload[0], payload[1:])
                try:
                    conn._read_packet()
                    answers.append("ok")
                except pymysql.MySQLError as exc:
                    answers.append(exc.args)
                with conn.cursor() as cur:
                    cur.execute("SELECT COUNT(*) FROM t")
                    answers.append(cur.fetchall())
            finally:
                conn.close()
    theirs, mine = answers[:2], answers[2:]
    assert theirs[0][0] == 1295
    assert mine == theirs


CONNECTOR_J = Path("/usr/share/java/mariadb-java-client.jar")
JAVA = shutil.which("java")
PROBE = Path(__file__).resolve().parents[1] / "support" / "java" / "ConnectorJBulk.java"


@pytest.mark.skipif(JAVA is None or not CONNECTOR_J.exists(),
                    reason="needs java and Debian's libmariadb-java (Makefile APT_PACKAGES)")
def test_connector_j_bulk_batches_as_mariadb(tmp_path):
    def probe(port: int) -> list[str]:
        assert JAVA is not None
        proc = subprocess.run([JAVA, "-cp", str(CONNECTOR_J), str(PROBE),
                               f"jdbc:mariadb://127.0.0.1:{port}/?user=root&useBulkStmts=true", "jb"],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, f"the probe failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        return [re.sub(r"\(conn=\d+\) ", "", line) for line in proc.stdout.splitlines()]

    with mariadb_and_ours(tmp_path, mariadb_extra=ROW_BINLOG) as (reference, ours):
        theirs, mine = probe(reference.port), probe(ours.port)
    assert mine == theirs
    # the 40 rows of the first batch went as one execution (one per row: 40 and more)
    [status] = [line for line in mine if line.startswith("STATUS ")]
    assert int(status.split()[-1]) < 40
    assert "duplicate error 1062 23000 Duplicate entry '1' for key 'PRIMARY'" in mine


def bulk_writes(port: int) -> None:
    with table_cursor(port, "rp") as cur:
        cur.executemany("INSERT INTO t (s, n) VALUES (?, ?)", [(f"r{i}", i) for i in range(200)])
        try:
            cur.executemany("INSERT INTO t (id, s) VALUES (?, ?)", [(500, "gone"), (1, "dup")])
        except mariadb.Error:
            pass
        cur.executemany("UPDATE t SET s = ?, n = ? WHERE id = ?", [("u", DEFAULT, 5), ("v", IGNORE, 6)])
        cur.executemany("DELETE FROM t WHERE id = ?", [(7,), (8,)])
        cur.executemany("REPLACE INTO t (id, s) VALUES (?, ?)", [(9, "r9"), (900, "r900")])
        cur.executemany("INSERT INTO t (id, s) VALUES (?, ?) ON DUPLICATE KEY UPDATE s = ?",
                        [(10, "x", "on10"), (901, "s901", "y")])
        cur.executemany("INSERT INTO t (s) VALUES (?)", [("after",)])
        cur.connection.autocommit = False
        cur.executemany("INSERT INTO t (s) VALUES (?)", [("txn1",), ("txn2",)])
        cur.connection.commit()


def test_bulk_writes_replicate_to_our_slave_and_a_mariadb_replica(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        bulk_writes(reference.port)
        bulk_writes(ours.port)
        assert_same_rows(reference, ours, replicas, "SELECT * FROM rp.t ORDER BY id")
