"""A view's columns as MariaDB 10.11 describes them (1235 for every view before): DESCRIBE, SHOW
[FULL] COLUMNS / SHOW FIELDS and information_schema.COLUMNS of views over columns, joins, LEFT
JOINs (their tables' columns nullable), literals, COUNT(*) under GROUP BY, + - * of numbers,
CONCAT, a column list, views of views, against a live MariaDB; and of views of any other shape
whose SELECT is typed (`SHAPES`: functions, aggregates, grouping without GROUP BY, window
functions, derived tables, UNION, RIGHT and NATURAL joins, literal-only arithmetic, '', X'..',
mixed-charset CONCAT, subqueries, temporal functions: 1235 each before). A view whose columns
`engine.viewcols` cannot tell (a WITH) answers 1235. And `mariadb-dump` of a database holding
views, which reads SHOW FIELDS of each view to write its stand-in table (rc 2 before): its output
of ours is its output of MariaDB but for the server version and the views' DEFINER and SELECT,
and loads into a fresh MariaDB and a fresh server of ours alike. CREATE / ALTER VIEW naming an
unknown table or column fails as MariaDB's (1146, 1054, 1052; it made the view before) and makes
nor binlogs anything; information_schema.VIEWS.IS_UPDATABLE is MariaDB's (always NO before)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, defined_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d CHARACTER SET utf8mb4",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a VARCHAR(5) DEFAULT 'x', b DECIMAL(6,2) NOT NULL DEFAULT 1.5,"
    " c DATETIME, f DOUBLE, g TEXT, h BIGINT UNSIGNED NOT NULL, k INT AUTO_INCREMENT UNIQUE, e ENUM('p','q'))"
    " DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE d.u (id INT PRIMARY KEY, t_id INT, name CHAR(3) NOT NULL) DEFAULT CHARSET=utf8mb4",
    "CREATE VIEW d.w AS SELECT id, a FROM d.t",
    "CREATE VIEW d.w2 AS SELECT id, a, COUNT(*) AS n, 5 AS lit, 'abc' AS s, 1.5 AS dl, NULL AS nl,"
    " 12345678901 AS big FROM d.t GROUP BY id, a",
    "CREATE VIEW d.w3 AS SELECT * FROM d.t",
    "CREATE VIEW d.w4 AS SELECT t.id, u.name, t.b AS bb FROM d.t JOIN d.u ON u.t_id = t.id",
    "CREATE VIEW d.w6 (p, q) AS SELECT id, a FROM d.t",
    "CREATE TABLE d.l (id INT PRIMARY KEY, l1 VARCHAR(4) CHARACTER SET latin1 NOT NULL, s SMALLINT)"
    " DEFAULT CHARSET=utf8mb4",
    "CREATE VIEW d.w7 AS SELECT id + 1 AS p1, id * 2 AS p2, id - k AS p3, h + 1 AS p5, b + 1 AS p6, b * 2 AS p7,"
    " k + 1 AS p9, id + 1.5 AS p10 FROM d.t",
    "CREATE VIEW d.w8 AS SELECT CONCAT(a, 'z') AS c1, CONCAT(l1, 'z') AS c2, CONCAT(a, a) AS c3,"
    " CONCAT(u.name, '-', t.a) AS c4, CONCAT('a', 'b') AS c5, s + 1 AS p4, s + l.id AS p8"
    " FROM d.t JOIN d.u JOIN d.l",
    "CREATE VIEW d.w9 AS SELECT id, a AS aa FROM d.w",
    "CREATE VIEW d.wa AS SELECT w.id, w.a FROM d.w AS w JOIN d.u ON u.id = w.id",
    "CREATE VIEW d.wb AS SELECT * FROM d.w2",
    "CREATE VIEW d.wc (x, y) AS SELECT * FROM d.w",
    "CREATE VIEW d.wd AS SELECT t.id, u.name, u.id AS uid, u.t_id, t.b, t.k FROM d.t LEFT JOIN d.u ON u.t_id = t.id",
    "CREATE VIEW d.we AS SELECT w.*, u.name, COUNT(*) AS n FROM d.u LEFT OUTER JOIN d.w ON w.id = u.t_id"
    " GROUP BY w.id, w.a, u.name",
    "CREATE VIEW d.wf AS SELECT x.*, t.id AS tid FROM d.t LEFT JOIN d.l AS x ON x.id = t.id",
    "CREATE VIEW d.wg AS SELECT id, name, uid FROM d.wd",
]

QUERIES = [
    "DESCRIBE d.w", "DESCRIBE d.w2", "DESCRIBE d.w3", "DESCRIBE d.w4", "DESCRIBE d.w6",
    "DESCRIBE d.w7", "DESCRIBE d.w8", "DESCRIBE d.w9", "DESCRIBE d.wa", "DESCRIBE d.wb", "DESCRIBE d.wc",
    "DESCRIBE d.wd", "DESCRIBE d.we", "DESCRIBE d.wf", "DESCRIBE d.wg",
    "SHOW FULL COLUMNS FROM d.w8",
    "SHOW FULL COLUMNS FROM d.w3", "SHOW FIELDS FROM w2 FROM d", "SHOW COLUMNS FROM d.w3 LIKE 'a%'",
    "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME LIKE 'w%'"
    " ORDER BY TABLE_NAME, ORDINAL_POSITION",
]

# views of other shapes, each answered 1235 before (their stand-in columns from the typing of
# their SELECT's result set, `exprtypes`)
SHAPES = [
    "CREATE TABLE d.m (id INT PRIMARY KEY, a VARCHAR(5) DEFAULT 'x', b DECIMAL(6,2) NOT NULL DEFAULT 1.5, c DATETIME,"
    " f DOUBLE, g TEXT, k INT NOT NULL, dt DATE, fl FLOAT, l1 VARCHAR(4) CHARACTER SET latin1 NOT NULL, tm TIME(3),"
    " y YEAR, bl BLOB, e ENUM('p','q')) DEFAULT CHARSET=utf8mb4",
    "CREATE VIEW d.s1 AS SELECT UPPER(a) AS ua, LENGTH(a) AS la, NOW() AS n, ABS(id) AS ab, SUM(b) AS sb, AVG(id) AS av,"
    " MAX(c) AS mc, MIN(a) AS ma, COUNT(a) AS ca, GROUP_CONCAT(a) AS gc FROM d.m GROUP BY id",
    "CREATE VIEW d.s2 AS SELECT SUM(b) AS sb, COUNT(*) AS n, MAX(a) AS ma, id, 5 AS five, id + 1 AS p, 'x' AS s,"
    " COUNT(*) + 1 AS c1 FROM d.m",
    "CREATE VIEW d.s3 AS SELECT x.id, x.a, x.n FROM (SELECT id, a, id * 2 AS n FROM d.m) AS x",
    "CREATE VIEW d.s4 AS SELECT id, a FROM d.m UNION SELECT id, name FROM d.u",
    "CREATE VIEW d.s5 AS SELECT m.id, u.name, m.a, u.id + 1 AS ui FROM d.m RIGHT JOIN d.u ON u.t_id = m.id",
    "CREATE VIEW d.s6 AS SELECT * FROM d.m NATURAL JOIN d.u",
    "CREATE VIEW d.s7 AS SELECT 1 + 2 AS s, 2 * 3.5 AS p, '' AS e, X'4142' AS x, CONCAT(l1, a) AS cc, CONCAT(a, 1) AS c1,"
    " CONCAT(l1, 'z') AS cl, 1e3 AS dbl, f + 1 AS ff, fl * 2 AS ff2, id / 3 AS dv, -1 AS neg, 1.50 AS d2 FROM d.m",
    "CREATE VIEW d.s8 AS SELECT DATE(c) AS d1, c + INTERVAL 1 DAY AS d2, IFNULL(a, 'z') AS i1, COALESCE(id, k) AS co,"
    " CASE WHEN id > 1 THEN 'a' ELSE 'bb' END AS cs, id > 1 AS cmp, CAST(id AS CHAR) AS ch, g AS gg, CONCAT(g, 'x') AS gx,"
    " REPEAT(a, 200) AS rp, e, dt, tm, y, bl, CURDATE() AS cd, CURTIME() AS ct, NOW(3) AS n3 FROM d.m",
    "CREATE VIEW d.s9 AS SELECT m.id, u.name, UPPER(u.name) AS un, u.id + 1 AS ui FROM d.m LEFT JOIN d.u ON u.t_id = m.id",
    "CREATE VIEW d.s10 AS SELECT 'abc' AS s, 5 AS n, NULL AS nl, TRUE AS tr",
    "CREATE VIEW d.s11 AS SELECT (SELECT MAX(id) FROM d.u) AS sq, EXISTS (SELECT 1 FROM d.u) AS ex, id FROM d.m",
    "CREATE VIEW d.s12 AS SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn, 7 AS f FROM d.m",
    "CREATE VIEW d.s13 AS SELECT DISTINCT a FROM d.m",
    "CREATE VIEW d.s14 AS SELECT * FROM d.u LEFT JOIN d.m USING (id)",
    "CREATE VIEW d.s15 AS SELECT ub, nm FROM (SELECT UPPER(s5.name) AS ub, m.a AS nm FROM d.s5 JOIN d.m) AS z",
    "CREATE VIEW d.s16 AS SELECT x.*, m.k FROM d.s4 AS x JOIN d.m ON m.id = x.id",
]
SHAPE_QUERIES = [f"DESCRIBE d.s{n}" for n in range(1, 17)] + [
    "SHOW FULL COLUMNS FROM d.s7", "SHOW FULL COLUMNS FROM d.s8",
    "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME LIKE 's%'"
    " ORDER BY TABLE_NAME, ORDINAL_POSITION",
]

# a view whose columns are not told here (its SELECT is not typed): its DESCRIBE answers 1235
REFUSED = [
    "CREATE VIEW d.x1 AS WITH c AS (SELECT id FROM d.t) SELECT id FROM c",
    "CREATE VIEW d.x2 AS SELECT id FROM d.x1",
]


def test_view_columns_are_described_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ours == theirs


def test_views_of_every_typed_shape_are_described_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP + SHAPES, SHAPE_QUERIES)
        assert ours == theirs


# the result columns a view's are described from, as a SELECT's: outer joins' sides nullable,
# MIN / MAX / NULLIF nullable, IFNULL / EXISTS / NOW(3) / comparisons of NOT NULL operands not, a
# negative integer's sign counted, REPEAT's length, a UNION's strings in characters
RESULT_QUERIES = [
    "SELECT t.id, u.name, u.id FROM d.t LEFT JOIN d.u ON u.t_id = t.id",
    "SELECT t.id, u.name, t.a FROM d.t RIGHT JOIN d.u ON u.t_id = t.id",
    "SELECT MAX(id), MIN(h), NULLIF(id, 1), IFNULL(a, 'z'), EXISTS (SELECT 1 FROM d.u), NOW(3), id > 1, h = 7, -1,"
    " REPEAT(a, 200) FROM d.t",
    "SELECT id, a FROM d.t UNION SELECT id, name FROM d.u",
]


def test_the_result_columns_views_are_described_from_are_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for statement in [*SETUP, "INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7), (2, NULL, 8)",
                              "INSERT INTO d.u VALUES (1, 1, 'abc')"]:
                server.query(statement)
        theirs, ours = (defined_answers(server.port, "d", RESULT_QUERIES) for server in (reference, master))
    assert [answer[1][0] for answer in ours] == [answer[1][0] for answer in theirs]


def test_a_view_whose_columns_cannot_be_told_answers_1235(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        _, ours = both_answer(reference, master, SETUP + REFUSED, ["DESCRIBE d.x1", "DESCRIBE d.x2",
                                                                "SELECT COUNT(*) FROM information_schema.COLUMNS"
                                                                " WHERE TABLE_NAME LIKE 'x%'"])
        assert [answer[1][:2] for answer in ours[:2]] == [("error", 1235)] * 2
        assert "'DESCRIBE or SHOW COLUMNS of the view d.x1'" in ours[0][1][3]  # (it names the view)
        assert ours[2][1] == ("rows", ((0,),))


# CREATE / ALTER VIEW whose SELECT names what is not there: MariaDB's error, nothing made
MISNAMED = [
    "CREATE VIEW d.y1 AS SELECT nope FROM d.t",
    "CREATE VIEW d.y2 AS SELECT id FROM d.nope",
    "CREATE VIEW d.y3 AS SELECT id FROM d.t JOIN d.u",
    "CREATE VIEW d.y4 AS SELECT a FROM d.t WHERE zz = 1",
    "CREATE VIEW d.y5 AS SELECT a FROM d.t ORDER BY zz",
    "CREATE VIEW d.y6 AS SELECT a FROM d.t WHERE a IN (SELECT zz FROM d.u)",
    "CREATE VIEW d.y7 AS SELECT t.nope FROM d.t",
    "CREATE VIEW d.y8 AS SELECT a FROM nope.t",
    "CREATE OR REPLACE VIEW d.w AS SELECT zz FROM d.t",
    "ALTER VIEW d.w AS SELECT id FROM d.gone",
]
UPDATABLE = [
    "CREATE VIEW d.z1 AS SELECT id + 1 AS p FROM d.t",
    "CREATE VIEW d.z2 AS SELECT id, a FROM d.t LIMIT 3",
    "CREATE VIEW d.z3 AS SELECT id, ROW_NUMBER() OVER () AS r FROM d.t",
    "CREATE ALGORITHM=TEMPTABLE VIEW d.z4 AS SELECT id FROM d.t",
    "CREATE VIEW d.z5 AS SELECT id, (SELECT 1) AS s FROM d.t WHERE id IN (SELECT id FROM d.u)",
    "CREATE VIEW d.z6 AS SELECT * FROM (SELECT id FROM d.t) AS x",
    "CREATE VIEW d.z7 AS SELECT id, RAND() AS r FROM d.t",
]


def test_a_view_naming_what_is_not_there_fails_as_mariadbs_and_makes_nothing(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        before = master.query("SHOW MASTER STATUS")[0][:2]
        theirs, ours = both_answer(reference, master, SETUP, MISNAMED + UPDATABLE + [
            "SHOW FULL TABLES FROM d", "DESCRIBE d.w",
            "SELECT TABLE_NAME, IS_UPDATABLE FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'd'"
            " ORDER BY TABLE_NAME"])
        assert ours == theirs
        assert [answer[1][1] for answer in ours[:len(MISNAMED)]] == [1054, 1146, 1052, 1054, 1054, 1054, 1054, 1146,
                                                                      1054, 1146]
        logged = [row[5] for row in master.query(f"SHOW BINLOG EVENTS IN '{before[0]}' FROM {before[1]}")]
        assert not any(" d.y" in text or "zz" in text or "gone" in text for text in logged)


def _dump(port: int, *options: str) -> str:
    dumped = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{port}", "-uroot", *options, "--databases", "d"],
                            capture_output=True, text=True, timeout=60)
    assert dumped.returncode == 0, dumped.stderr
    return dumped.stdout


# what mariadb-dump writes otherwise of the same schema: the server's version, and the view's
# DEFINER and SELECT (SHOW CREATE VIEW prints the SELECT as written, MariaDB rewrites it)
_NOT_COMPARED = re.compile(r"^(-- Server version.*|/\*!50013 DEFINER=.*|/\*!50001 VIEW .*)$", re.MULTILINE)


@pytest.mark.skipif(shutil.which("mariadb-dump") is None, reason="needs mariadb-client")
def test_mariadb_dump_of_ours_writes_what_it_writes_of_mariadb(tmp_path):
    """The dump of the same tables, views and rows from each server: the same text, the views'
    stand-in tables included, but for the lines `_NOT_COMPARED`."""
    with mariadb_and_ours(tmp_path) as (reference, master):
        for statement in [*SETUP, *SHAPES, "INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7)"]:
            reference.query(statement)
            master.query(statement)
        theirs, ours = (_NOT_COMPARED.sub("", _dump(server.port, "--skip-dump-date")) for server in (reference, master))
    assert ours == theirs


def _load(port: int, dump: str) -> None:
    loaded = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot"], input=dump,
                            capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0, loaded.stderr


VIEWS = ["w", "w2", "w3", "w4", "w6", "w7", "w8", "w9", "wa", "wb", "wc", "wd", "we", "wf", "wg"]
READ_BACK = [f"SELECT * FROM d.{view} ORDER BY 1, 2" for view in VIEWS] + [f"DESCRIBE d.{view}" for view in VIEWS] + [
    "SELECT * FROM d.t ORDER BY id", "SHOW FULL TABLES FROM d"] + [f"DESCRIBE d.s{n}" for n in range(1, 17)]


@pytest.mark.skipif(shutil.which("mariadb-dump") is None or shutil.which("mariadb") is None,
                    reason="needs mariadb-client")
def test_mariadb_dump_of_views_loads_into_mariadb_and_into_ours_alike(tmp_path):
    """mariadb-dump of ours (its views' stand-in tables from SHOW FIELDS) loaded into a fresh
    MariaDB and into a fresh server of ours gives both the same tables, views and rows."""
    rows = ["INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7), (2, NULL, 8)", "INSERT INTO d.u VALUES (1, 1, 'abc')",
            "INSERT INTO d.l VALUES (1, 'lat', 3)"]
    source = Daemon("master", tmp_path / "source", ["--server-id=2"]).start()
    try:
        for statement in [*SETUP, *SHAPES, *rows]:
            source.query(statement)
        dump = _dump(source.port)
    finally:
        source.stop()
    assert "Temporary table structure for view `w6`" in dump
    with mariadb_and_ours(tmp_path) as (reference, master):
        # the views' DEFINER is the account that made them, ours' root@'%': a server loading the
        # dump needs that account, as for any dump whose views name their definer (1449 otherwise)
        reference.query("CREATE USER root@'%'")
        reference.query("GRANT ALL ON *.* TO root@'%'")
        assert "DEFINER=`root`@`%`" in dump
        _load(reference.port, dump)
        _load(master.port, dump)
        theirs, ours = both_answer(reference, master, [], READ_BACK)
        assert ours == theirs
