"""An expression's NULL for a NOT NULL column under IGNORE, and ON DUPLICATE KEY UPDATE's
literals, as MariaDB 10.11 answers them. INSERT IGNORE ... SELECT NULL and UPDATE IGNORE ... SET c
= NULL store the column's implicit default with the warning 1048 (the row was left out, the row
left unchanged: SQLite's OR IGNORE skips a NOT NULL failure). A literal of ON DUPLICATE KEY
UPDATE is stored (and refused) only for a row the statement updates: 'q' for an ENUM('x','y')
failed the INSERT of a new row with 1265. Each statement runs on a stock MariaDB and on our
master."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.nn (id INT PRIMARY KEY, a INT NOT NULL, s VARCHAR(5) NOT NULL,"
         " en ENUM('x','y') NOT NULL DEFAULT 'x', dt DATE NOT NULL) DEFAULT CHARSET=utf8mb4"]

QUERIES = [
    "INSERT IGNORE INTO d.nn (id, a, s, dt) SELECT 1, NULL, NULL, NULL",
    "SHOW WARNINGS",
    "SELECT * FROM d.nn",
    "INSERT IGNORE INTO d.nn (id, a, s, dt) VALUES (3, NULL, 'x', '2024-01-01'), (4, 5, NULL, '2024-01-02')",
    "SHOW WARNINGS",
    "INSERT INTO d.nn (id, a, s, dt) VALUES (9, 1, 'a', '2024-01-09') ON DUPLICATE KEY UPDATE en = 'q'",
    "SELECT * FROM d.nn ORDER BY id",
    "INSERT INTO d.nn (id, a, s, dt) VALUES (9, 1, 'a', '2024-01-09') ON DUPLICATE KEY UPDATE en = 'q'",
    "INSERT INTO d.nn (id, a, s, dt) VALUES (9, 1, 'a', '2024-01-09') ON DUPLICATE KEY UPDATE en = 'y', s = 'b'",
    "UPDATE IGNORE d.nn SET a = NULL, dt = NULL WHERE id = 9",
    "SHOW WARNINGS",
    "SELECT * FROM d.nn ORDER BY id",
]


def test_ignore_nulls_and_upsert_literals_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert dict(theirs)["SELECT * FROM d.nn"][1][0][:3] == (1, 0, "")
        assert ours == theirs
