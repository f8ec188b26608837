"""RENAME TABLE with several pairs against a live MariaDB 10.11: the pairs run one after the
other, so that a later pair sees the earlier ones (`a TO tmp, b TO a, tmp TO b` swaps two tables,
a chain renames through a name the statement itself made and freed); their rows, keys,
AUTO_INCREMENT and mixed-case names follow the tables. A pair that fails (a table that does not
exist, a name taken) fails the statement with nothing renamed. Each statement runs on a stock
MariaDB and on our master and the answers are compared."""

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
    "CREATE TABLE d.e (id INT PRIMARY KEY, v VARCHAR(5))",
    "INSERT INTO d.e VALUES (1, 'a'), (2, 'b')",
    "CREATE TABLE d.f (id INT PRIMARY KEY AUTO_INCREMENT, w INT, KEY kw (w))",
    "INSERT INTO d.f (w) VALUES (10), (20)",
    "CREATE TABLE d.MixedCase (x INT, KEY kx (x))",
    "INSERT INTO d.MixedCase VALUES (7)",
]

QUERIES = [
    "RENAME TABLE e TO e2, e2 TO e",
    "RENAME TABLE e TO tmp, f TO e, tmp TO f",
    "SHOW TABLES",
    "SHOW CREATE TABLE e",
    "SHOW CREATE TABLE f",
    "SELECT * FROM e ORDER BY id",
    "SELECT * FROM f ORDER BY id",
    "INSERT INTO e (w) VALUES (30)",
    "SELECT * FROM e ORDER BY id",
    "RENAME TABLE MixedCase TO mc2, mc2 TO MixedCase2",
    "SELECT * FROM MixedCase2",
    "RENAME TABLE e TO x1, nosuch TO x2",
    "RENAME TABLE e TO x1, f TO x1",
    "SHOW TABLES",
]


def test_rename_pairs_in_order_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("SELECT * FROM f ORDER BY id", ("rows", ((1, "a"), (2, "b")))) in theirs
        assert ours == theirs
