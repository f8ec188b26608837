"""The next AUTO_INCREMENT that information_schema.TABLES and SHOW TABLE STATUS show: the table's
counter, as SHOW CREATE TABLE's AUTO_INCREMENT=n, not MAX + 1 of the rows (after the top rows are
deleted, or an INSERT rolled back, MariaDB shows the counter: 4 and 5 where MAX + 1 said 2); a
TRUNCATE counts from 1 again, its table's AUTO_INCREMENT= forgotten (the next row got the
CREATE's 50, MariaDB's 1); ALTER TABLE ... AUTO_INCREMENT = n sets the counter again every time,
to n or past the rows (a second ALTER to the n the table already had left the counter where it
was: go-sql-driver's probe saw ids 6 and 9 where MariaDB gave 3). Each statement runs on a stock MariaDB and on our master and the
answers are compared (SHOW TABLE STATUS' Name and Auto_increment)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    both_answer,
    mariadb_and_ours,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
         "CREATE TABLE d.b (id INT AUTO_INCREMENT PRIMARY KEY) AUTO_INCREMENT=50"]

NEXT = "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' ORDER BY 1"
STATUS = "SHOW TABLE STATUS FROM d"

QUERIES = [
    "INSERT INTO a (v) VALUES (1), (2), (3)",
    "DELETE FROM a WHERE id > 1",
    NEXT, STATUS,
    "BEGIN", "INSERT INTO a (v) VALUES (9)", "ROLLBACK",
    NEXT, STATUS,
    "INSERT INTO b VALUES (), ()",
    "DELETE FROM b",
    NEXT, STATUS,
    "TRUNCATE b",
    NEXT, STATUS,
    "SHOW CREATE TABLE b",
    "INSERT INTO b VALUES ()",
    "INSERT INTO a (v) VALUES (4)",
    "SELECT * FROM b",
    "SELECT * FROM a",
    NEXT,
    # ALTER TABLE ... AUTO_INCREMENT = n sets the counter to n, or past the rows' MAX, each time
    # (the second ALTER to the same n too: the table's AUTO_INCREMENT= was already n)
    "INSERT INTO a (v) VALUES (5), (6)",
    "DELETE FROM a WHERE id > 2",
    "ALTER TABLE a AUTO_INCREMENT = 3",
    "INSERT INTO a (v) VALUES (7)",
    "INSERT INTO a (v) VALUES (8), (9)",
    "DELETE FROM a WHERE id > 2",
    "ALTER TABLE a AUTO_INCREMENT = 3",
    "INSERT INTO a (v) VALUES (10)",
    "ALTER TABLE a AUTO_INCREMENT = 1",
    "INSERT INTO a (v) VALUES (11)",
    "SELECT * FROM a",
    NEXT,
]


def _shown(answers: list[tuple]) -> list[tuple]:
    """SHOW TABLE STATUS' rows cut to (Name, Auto_increment): its sizes and times are the
    engines' own."""
    return [(sql, ("rows", tuple((row[0], row[10]) for row in got[1])) if sql == STATUS else got)
            for sql, got in answers]


def test_next_auto_increment_is_the_counter(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        theirs, mine = (_shown(answers) for answers in both_answer(reference, ours, SETUP, QUERIES))
    assert mine == theirs, answer_differences(theirs, mine)
