"""INSERT IGNORE and UPDATE IGNORE store what strict mode refuses adjusted, as MariaDB 10.11 does
with a warning (`values.adjusted`): a string without a number is 0 and '12abc' 12, an integer or
DECIMAL beyond its column is clipped to the column's range, a string cut to the column's length,
an ENUM's unknown member '', an impossible date the zero date. Each statement runs on a stock
MariaDB and on our master and the answers and the rows left are compared.

The warnings and notes too (`Result.warnings`, SHOW WARNINGS, the OK's count and info): each
value IGNORE adjusts (1264, 1265, 1366 ...), each row it leaves out (1062 naming the key), a NULL
it stores as a NOT NULL column's implicit default (1048), and the notes of IF [NOT] EXISTS
(1007, 1008, 1050, 1051, 4092, 1973, 1974), and UPDATE IGNORE's note 1592 ("unsafe statement"),
against a MariaDB with a statement binlog as ours.

Left out, where the two still differ: a NOT NULL column without a default left out under IGNORE
(MariaDB stores the implicit default; here 1364), UPDATE IGNORE ... SET c = NULL (MariaDB stores
the implicit default; here the row is left), a NULL bound by a prepared statement for a NOT NULL
column under INSERT IGNORE (the row is left out, without a warning); an UPDATE IGNORE storing an
expression's adjusted value in rows it leaves unchanged (MariaDB warns for them too; a literal's
is warned of once per row updated, changed or not: test_assigned_literals_mariadb.py), and an
UPDATE's "at row n" (MariaDB counts the rows it read, here the rows it updated)."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL DEFAULT 0, tn TINYINT, u INT UNSIGNED,"
    " v VARCHAR(3), x TEXT, b VARBINARY(2), d DECIMAL(5,2), e ENUM('a','b'), dt DATE, ts DATETIME(2), f DOUBLE)"
    " DEFAULT CHARSET=utf8mb4",
]

QUERIES = [
    "INSERT IGNORE INTO t (n) VALUES ('zz')",
    "INSERT IGNORE INTO t (n) VALUES ('12abc')",
    "INSERT IGNORE INTO t (tn) VALUES (300)",
    "INSERT IGNORE INTO t (tn) VALUES (-300), (5), ('7x')",
    "INSERT IGNORE INTO t (u) VALUES (-1)",
    "INSERT IGNORE INTO t (v, b) VALUES ('abcdef', 'xyz')",
    "INSERT IGNORE INTO t (d) VALUES (12345.678)",
    "INSERT IGNORE INTO t (d) VALUES (-12345.678)",
    "INSERT IGNORE INTO t (d) VALUES ('x')",
    "INSERT IGNORE INTO t (e) VALUES ('c')",
    "INSERT IGNORE INTO t (dt, ts) VALUES ('2024-02-30', 'nope')",
    "INSERT IGNORE INTO t (f) VALUES ('1.5e3x')",
    "INSERT INTO t (tn) VALUES (300)",
    "UPDATE IGNORE t SET tn = 1000 WHERE id = 1",
    "UPDATE IGNORE t SET v = 'toolong', e = 'zz' WHERE id = 2",
    "UPDATE t SET tn = 1000 WHERE id = 3",
    "SELECT id, n, tn, u, v, x, b, d, e, dt, ts, f FROM t ORDER BY id",
]


def test_ignore_stores_adjusted_values_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("INSERT INTO t (tn) VALUES (300)", ("error", 1264, "22003",
                                                      "Out of range value for column 'tn' at row 1")) in theirs
        assert ours == theirs


WARNED = [
    "DROP DATABASE IF EXISTS nowhere",
    "CREATE DATABASE IF NOT EXISTS d",
    "CREATE TABLE w (id INT PRIMARY KEY, u VARCHAR(3) UNIQUE, n TINYINT, e ENUM('x', 'y') NOT NULL)",
    "CREATE TABLE IF NOT EXISTS w (id INT)",
    "DROP TABLE IF EXISTS nope, w2",
    "DROP VIEW IF EXISTS v",
    "INSERT INTO w VALUES (1, 'a', 1, 'x')",
    "INSERT IGNORE INTO w VALUES (1, 'b', 2, 'x'), (2, 'a', 3, 'x'), (3, 'c', 4, 'y'), (4, 'toolong', 1000, 'x')",
    "INSERT IGNORE INTO w VALUES (5, 'x', 'abc', 'y')",
    "INSERT IGNORE INTO w VALUES (10, CONCAT('to', 'olong'), 1000 + 1, 'x')",
    "INSERT IGNORE INTO w (id, u) VALUES (NULL, 'n1')",
    "INSERT IGNORE INTO w VALUES (20, NULL, NULL, NULL), (21, 'a', NULL, 'x'), (22, 'zz', NULL, 'y')",
    "INSERT IGNORE INTO w (id, u, n, e) SELECT id + 100, CONCAT(u, 'bcdef'), n + 300, 'y' FROM w WHERE id < 3",
    "INSERT IGNORE INTO w (id, u, n, e) SELECT id, u, n, e FROM w WHERE id < 3",
    "INSERT IGNORE INTO w SELECT * FROM w WHERE id < 4",  # no column list: a 1062 per row left out too
    "UPDATE IGNORE w SET n = n - 1000 WHERE id BETWEEN 1 AND 4",
    "UPDATE IGNORE w SET u = CONCAT(u, u, u) WHERE id IN (1, 2, 3)",
    "UPDATE w SET n = n WHERE id < 5",
    "UPDATE IGNORE w SET n = 500 WHERE id = 3",
    "DROP USER IF EXISTS nobody@'%'",
    "CREATE USER IF NOT EXISTS warned@'%'",
    "CREATE USER IF NOT EXISTS warned@'%'",
    "SELECT * FROM w ORDER BY id",
]


def warned(port: int) -> list[tuple]:
    """Each statement's rows affected, its own warning count (the OK's), info, rows, and SHOW
    WARNINGS when it had any; then SHOW COUNT(*) WARNINGS / ERRORS, SHOW WARNINGS LIMIT and the
    counters after a statement with two."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d", autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for sql in WARNED:
                affected = cur.execute(sql)
                result = conn._result  # (PyMySQL keeps the OK's warning count and info there)
                count = result.warning_count
                rows = cur.fetchall() if cur.description else ()
                shown = ()
                if count:
                    cur.execute("SHOW WARNINGS")
                    shown = cur.fetchall()
                out.append((sql, affected, count, result.message, rows, shown))
            cur.execute("INSERT IGNORE INTO w VALUES (1, 'q', 1, 'x'), (2, 'q', 1, 'x')")
            for sql in ("SHOW COUNT(*) WARNINGS", "SHOW COUNT(*) ERRORS", "SHOW WARNINGS LIMIT 1",
                        "SHOW WARNINGS LIMIT 1, 1", "SELECT @@warning_count, @@error_count"):
                cur.execute(sql)
                out.append((sql, [d[0] for d in cur.description], cur.fetchall()))
        return out
    finally:
        conn.close()


def test_ignore_warnings_and_notes_as_mariadb(tmp_path):
    reference = MariaDBServer(tmp_path / "mdb")
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1"])
    try:
        reference.start()
        ours.start()
        for server in (reference, ours):
            server.query("CREATE DATABASE d")
        expected = warned(reference.port)
        said = {row[0]: row[1:] for row in expected}
        assert said[WARNED[7]][1:] == (4, b"&Records: 4  Duplicates: 2  Warnings: 4", (), (
            ("Warning", 1062, "Duplicate entry '1' for key 'PRIMARY'"),
            ("Warning", 1062, "Duplicate entry 'a' for key 'u'"),
            ("Warning", 1265, "Data truncated for column 'u' at row 4"),
            ("Warning", 1264, "Out of range value for column 'n' at row 4")))
        assert said[WARNED[0]][1:] == (1, b"", (), (("Note", 1008, "Can't drop database 'nowhere'; database doesn't exist"),))
        assert warned(ours.port) == expected
    finally:
        ours.stop()
        reference.stop()
