"""A view's columns as MariaDB 10.11 describes them (1235 for every view before): DESCRIBE, SHOW
[FULL] COLUMNS / SHOW FIELDS and information_schema.COLUMNS of views over columns, joins, literals,
COUNT(*) under GROUP BY and a column list, against a live MariaDB; a view whose
columns `engine.viewcols` cannot tell (a string computed from columns, an outer join, a view's
column read through another view) answers
1235. And `mariadb-dump` of a database holding views, which reads SHOW FIELDS of each view to
write its stand-in table, succeeds (rc 2 before)."""

from __future__ import annotations

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
    "CREATE DATABASE d",
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
]

QUERIES = [
    "DESCRIBE d.w", "DESCRIBE d.w2", "DESCRIBE d.w3", "DESCRIBE d.w4", "DESCRIBE d.w6",
    "SHOW FULL COLUMNS FROM d.w3", "SHOW FIELDS FROM w2 FROM d", "SHOW COLUMNS FROM d.w3 LIKE 'a%'",
    "SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME LIKE 'w%'"
    " ORDER BY TABLE_NAME, ORDINAL_POSITION",
]

# views whose columns are not told here: their DESCRIBE answers 1235
REFUSED = [
    "CREATE VIEW d.x1 AS SELECT CONCAT(a, 'z') AS y FROM d.t",
    "CREATE VIEW d.x2 AS SELECT t.id, u.name FROM d.t LEFT JOIN d.u ON u.t_id = t.id",
    "CREATE VIEW d.x3 AS SELECT id, a AS aa FROM d.w",
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


@pytest.mark.skipif(shutil.which("mariadb-dump") is None, reason="needs mariadb-client")
def test_mariadb_dump_of_a_database_with_views_succeeds(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        for statement in [*SETUP, "INSERT INTO d.t (id, a, h) VALUES (1, 'one', 7)"]:
            master.query(statement)
        dumped = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{master.port}", "-uroot", "d"],
                                capture_output=True, text=True, timeout=60)
        assert dumped.returncode == 0, dumped.stderr
        assert "Temporary table structure for view `w6`" in dumped.stdout
        assert "VIEW `w2` AS" in dumped.stdout
    finally:
        master.stop()
