"""A view's columns as MariaDB 10.11 describes them (1235 for every view before): DESCRIBE, SHOW
[FULL] COLUMNS / SHOW FIELDS and information_schema.COLUMNS of views over columns, joins, LEFT
JOINs (their tables' columns nullable), literals, COUNT(*) under GROUP BY, + - * of numbers,
CONCAT, a column list, views of views, against a live MariaDB; a view whose columns `engine.viewcols` cannot tell (CONCAT of a number, a RIGHT JOIN, a view of one) answers
1235. And `mariadb-dump` of a database holding views, which reads SHOW FIELDS of each view to
write its stand-in table (rc 2 before): its output of ours is its output of MariaDB but for the
server version and the views' DEFINER and SELECT, and loads into a fresh MariaDB and a fresh
server of ours alike."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

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

# views whose columns are not told here: their DESCRIBE answers 1235
REFUSED = [
    "CREATE VIEW d.x1 AS SELECT CONCAT(a, 1) AS y FROM d.t",
    "CREATE VIEW d.x2 AS SELECT t.id, u.name FROM d.t RIGHT JOIN d.u ON u.t_id = t.id",
    "CREATE VIEW d.x3 AS SELECT id FROM d.x2",
]


def test_view_columns_are_described_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ours == theirs


def test_a_view_whose_columns_cannot_be_told_answers_1235(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        _, ours = both_answer(reference, master, SETUP + REFUSED, ["DESCRIBE d.x1", "DESCRIBE d.x2", "DESCRIBE d.x3",
                                                                "SELECT COUNT(*) FROM information_schema.COLUMNS"
                                                                " WHERE TABLE_NAME LIKE 'x%'"])
        assert [answer[1][:2] for answer in ours[:3]] == [("error", 1235)] * 3
        assert "'DESCRIBE or SHOW COLUMNS of the view d.x1'" in ours[0][1][3]  # (it names the view)
        assert ours[3][1] == ("rows", ((0,),))


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
        for statement in [*SETUP, "INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7)"]:
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
    "SELECT * FROM d.t ORDER BY id", "SHOW FULL TABLES FROM d"]


@pytest.mark.skipif(shutil.which("mariadb-dump") is None or shutil.which("mariadb") is None,
                    reason="needs mariadb-client")
def test_mariadb_dump_of_views_loads_into_mariadb_and_into_ours_alike(tmp_path):
    """mariadb-dump of ours (its views' stand-in tables from SHOW FIELDS) loaded into a fresh
    MariaDB and into a fresh server of ours gives both the same tables, views and rows."""
    rows = ["INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7), (2, NULL, 8)", "INSERT INTO d.u VALUES (1, 1, 'abc')",
            "INSERT INTO d.l VALUES (1, 'lat', 3)"]
    source = Daemon("master", tmp_path / "source", ["--server-id=2"]).start()
    try:
        for statement in [*SETUP, *rows]:
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
