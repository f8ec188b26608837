"""The value 1062 names for an INSERT ... SELECT, against a live MariaDB 10.11: the first row, in
the SELECT's order, whose key the table or an earlier row of the statement holds (a primary key,
a UNIQUE key, a composite key as 'a-b', the ids AUTO_INCREMENT numbers, the column list in any
order or none); the statement leaves the table as it was. Each statement runs on a stock MariaDB
and on our master and the answers are compared (the message's value was '?')."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(5), UNIQUE KEY uv (v))",
    "CREATE TABLE d.u (k INT, w VARCHAR(5))",
    "INSERT INTO d.t VALUES (1, 'a')",
    "INSERT INTO d.u VALUES (5, 'p'), (6, 'q'), (1, 'r'), (7, 'a')",
    "CREATE TABLE d.c2 (a INT, b INT, PRIMARY KEY (a, b))",
    "INSERT INTO d.c2 VALUES (1, 2)",
]

QUERIES = [
    "INSERT INTO t (id, v) SELECT k, w FROM u",
    "INSERT INTO t SELECT k, w FROM u WHERE k <> 1",
    "INSERT INTO t (v) SELECT w FROM u",
    "INSERT INTO t (id, v) SELECT k + 10, 'z' FROM u",
    "INSERT INTO t (v, id) SELECT CONCAT(w, k), 5 FROM u ORDER BY k DESC",
    "INSERT INTO c2 SELECT 1, 2",
    "INSERT INTO c2 (b, a) SELECT 3, k FROM u ORDER BY k",
    "SELECT * FROM t ORDER BY id",
    "SELECT * FROM c2 ORDER BY a, b",
]


def test_insert_select_duplicate_named_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("INSERT INTO t (id, v) SELECT k, w FROM u",
                ("error", 1062, "23000", "Duplicate entry '1' for key 'PRIMARY'")) in theirs
        assert ours == theirs
