"""CREATE TABLE ... SELECT against a live MariaDB 10.11 (`server/create_select.py`): the new
table's SHOW CREATE TABLE, its rows and the statement's answer are MariaDB's for copied columns
(type, NOT NULL, DEFAULT; AUTO_INCREMENT becoming DEFAULT 0, keys not copied) and expressions
(literals, COUNT, SUM / AVG, NOW(), CONCAT, NULL, DECIMAL and DOUBLE literals, unsigned
arithmetic); IF NOT EXISTS of an existing table inserts nothing and notes 1050; a SELECT failing
half-way leaves no table. The CREATE and the INSERT it stands for reach a MariaDB replica of our
master, which ends with the same table and rows.

Column definitions and table options before the SELECT: the declared columns the SELECT does not
name come first, then the SELECT's in its order (a declared one keeping its declaration), then
the keys; REPLACE replaces, a duplicate key without it is 1062 and leaves no table, a column
name repeated in the SELECT is 1060. IGNORE keeps the first row of each key, as MySQL and as
MariaDB's own INSERT IGNORE ... SELECT do: MariaDB 10.11's CREATE ... IGNORE SELECT into the new
(empty) table also loses the row before each duplicate (its empty-table bulk insert), which is
not followed here, so that case is compared with MariaDB's CREATE TABLE then INSERT IGNORE.
Against a MariaDB that binlogs: REPLACE's unsafe-statement note (1592) in MariaDB's words for a
CREATE ... REPLACE SELECT, in SHOW WARNINGS and the OK's count.

Left out: a JSON column copied (MariaDB: longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
here the table holds it so, but SHOW CREATE TABLE names no collation); a table option naming
another character set (the table keeps utf8mb4); the warnings of IGNORE (1062 per row left out).
CREATE TEMPORARY TABLE ... SELECT: tests/integration/test_temporary_tables_mariadb.py."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import reference_ours_and_replica

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE ct DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE ct.s (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20) NOT NULL DEFAULT 'x', n DECIMAL(8,2),"
    " d DATETIME(3), b BLOB, u INT UNSIGNED, t TEXT, e ENUM('a','b') NOT NULL, KEY kv (v))",
    "INSERT INTO ct.s (v, n, d, b, u, t, e) VALUES ('a', 1.5, '2024-01-01 00:00:00.123', 'bb', 5, 'tt', 'b'),"
    " ('b', NULL, NULL, NULL, NULL, NULL, 'a')",
    "CREATE TABLE ct.dup (k INT, w VARCHAR(5))",
    "INSERT INTO ct.dup VALUES (1, 'x'), (1, 'y'), (2, 'z')",
]

STATEMENTS = [
    "CREATE TABLE c1 AS SELECT * FROM s",
    "CREATE TABLE c2 SELECT id, v, n * 2 AS n2, 1 AS one, 'lit' AS l, COUNT(*) AS cnt, NOW() AS now_,"
    " CONCAT(v, 'x') AS cv, NULL AS nul, 1.5 AS dec_, 1e0 AS dbl, u + 1 AS u1, SUM(n) AS sn, AVG(id) AS a"
    " FROM s GROUP BY id, v, n, u",
    "CREATE TABLE IF NOT EXISTS c2 AS SELECT 1 AS one",
    "CREATE TABLE c3 (SELECT v, e FROM s WHERE id = 1)",
    "CREATE TABLE c4 AS SELECT id, 10 DIV (id - 1) AS q FROM s",
    "CREATE TABLE c1 SELECT 1",
    "CREATE TABLE c5 (a INT, z INT DEFAULT 7, PRIMARY KEY (a)) SELECT v AS b, id AS a FROM s",
    "CREATE TABLE c6 (`w` CHAR(3) NOT NULL DEFAULT 'q', KEY kw (w), n INT DEFAULT 5) ENGINE=InnoDB SELECT k AS w FROM dup",
    "CREATE TABLE c7 (k INT PRIMARY KEY) REPLACE SELECT k, w FROM dup ORDER BY w",
    "CREATE TABLE c8 ENGINE=InnoDB AS SELECT k FROM dup",
    "CREATE TABLE c9 (k INT PRIMARY KEY) SELECT k FROM dup",
    "CREATE TABLE c9 (x VARCHAR(2)) SELECT 'abc' AS x",
    "CREATE TABLE c9 (id INT PRIMARY KEY) SELECT 2 AS id, 1 AS ID",
    "CREATE TABLE c9 SELECT 1 AS a, 2 AS a",
]


def run(port: int) -> list:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="ct", autocommit=True)
    out: list = []
    try:
        with conn.cursor() as cur:
            cur.execute("SET timestamp = 1700000000")  # (NOW() the same on both servers)
            for sql in STATEMENTS:
                try:
                    affected = cur.execute(sql)
                    result = conn._result
                    shown = ()
                    if result.warning_count:
                        cur.execute("SHOW WARNINGS")
                        shown = cur.fetchall()
                    out.append((sql, affected, result.message, shown))
                except pymysql.MySQLError as exc:
                    out.append((sql, "error", exc.args[0]))
            cur.execute("SHOW TABLES")
            tables = [row[0] for row in cur.fetchall()]
            out.append(tables)
            for table in tables:
                cur.execute(f"SHOW CREATE TABLE {table}")
                out.append(cur.fetchall())
                cur.execute(f"SELECT * FROM {table} ORDER BY 1")
                out.append(cur.fetchall())
        return out
    finally:
        conn.close()


def test_create_table_select_as_mariadb_and_replicated(tmp_path):
    # (a reference that binlogs: its unsafe-statement notes, CREATE ... REPLACE SELECT's, compared too)
    with reference_ours_and_replica(tmp_path, reference_log_bin="master-bin") as (reference, ours, replica):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        expected = run(reference.port)
        assert expected[2][1:] == (0, b"", (("Note", 1050, "Table 'c2' already exists"),))
        assert expected[4] == (STATEMENTS[4], "error", 1365)  # (strict mode: 10 DIV 0 in a write)
        tables = len(STATEMENTS)
        assert expected[tables] == ["c1", "c2", "c3", "c5", "c6", "c7", "c8", "dup", "s"]
        assert expected[tables - 4:tables] == [(sql, "error", code) for sql, code in zip(STATEMENTS[-4:], (1062, 1406, 1060, 1060), strict=True)]
        assert "`id` int(11) NOT NULL DEFAULT 0" in expected[tables + 1][0][1]
        assert run(ours.port)[:len(expected)] == expected
        for table in ("c1", "c2", "c3", "c5", "c6", "c7"):  # a MariaDB replica of ours makes the same tables
            want = ours.query(f"SHOW CREATE TABLE ct.{table}")
            wait_for(lambda t=table, w=want: _created(replica, t) == w, 90, message=f"the replica's ct.{table}")
            assert replica.query(f"SELECT * FROM ct.{table} ORDER BY 1") == ours.query(f"SELECT * FROM ct.{table} ORDER BY 1")


def _created(server, table: str):
    try:
        return server.query(f"SHOW CREATE TABLE ct.{table}")
    except pymysql.MySQLError:
        return None


def test_create_table_ignore_select_keeps_the_first_row_of_each_key(tmp_path):
    """IGNORE: what MariaDB's CREATE TABLE then INSERT IGNORE ... SELECT leave (module docstring)."""
    with reference_ours_and_replica(tmp_path) as (reference, ours, replica):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        reference.query("CREATE TABLE ct.ig (k INT PRIMARY KEY, w VARCHAR(5))")  # (w as the SELECT copies it)
        reference.query("INSERT IGNORE INTO ct.ig SELECT k, w FROM ct.dup ORDER BY w")
        ours.query("CREATE TABLE ct.ig (k INT PRIMARY KEY) IGNORE SELECT k, w FROM ct.dup ORDER BY w")
        want = reference.query("SELECT * FROM ct.ig ORDER BY k")
        assert [tuple(row) for row in want] == [(1, "x"), (2, "z")]
        assert ours.query("SELECT * FROM ct.ig ORDER BY k") == want
        assert ours.query("SHOW CREATE TABLE ct.ig") == reference.query("SHOW CREATE TABLE ct.ig")
        wait_for(lambda: _created(replica, "ig") is not None, 90, message="the replica's ct.ig")
        wait_for(lambda: replica.query("SELECT * FROM ct.ig ORDER BY k") == want, 30, message="the replica's rows")
