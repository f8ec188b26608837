"""ALTER TABLE's ALGORITHM= / LOCK= and ALTER IGNORE as MariaDB 10.11 answers them on InnoDB:
members appended to an ENUM or SET change only the table's metadata (instant: no rows copied,
ALGORITHM=INSTANT accepted) while the column keeps its bytes, other member changes copy (1846
for INSTANT); LOCK=NONE refused where the change copies the table (1846 with InnoDB's reason, or
"COPY algorithm requires a lock"), accepted where it does not; ALTER IGNORE TABLE ... ADD UNIQUE
copies the table, keeping the first row of each duplicate group in the primary key's order
("Records: n  Duplicates: d"). Each statement runs on a stock MariaDB and on our master and the
answers are compared (affected rows, info, warnings, SHOW CREATE TABLE, rows); the rows ALTER
IGNORE left also on replicas of our master (a MariaDB replica and our slave)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    assert_same_rows,
    mariadb_and_ours,
    ok_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.e (id INT PRIMARY KEY, e ENUM('a','b'), s SET('x','y')) CHARSET utf8mb4",
    "INSERT INTO d.e VALUES (1, 'a', 'x'), (2, 'b', 'y')",
    "CREATE TABLE d.l (id INT PRIMARY KEY, v INT, w VARCHAR(10)) CHARSET utf8mb4",
    "INSERT INTO d.l VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'a'), (4, 1, 'c')",
    "CREATE TABLE d.m (id INT AUTO_INCREMENT PRIMARY KEY, v INT, w INT) CHARSET utf8mb4",
    "INSERT INTO d.m (v, w) VALUES (3, 1), (1, 2), (1, 3), (2, 1), (3, 2), (NULL, 5), (NULL, 5)",
]

ENUMS = [
    "ALTER TABLE e MODIFY e ENUM('a','b','c')",
    "ALTER TABLE e MODIFY e ENUM('a','b','c','d'), ALGORITHM=INSTANT",
    "ALTER TABLE e MODIFY e ENUM('a','b','c','d','e'), ALGORITHM=INPLACE, LOCK=NONE",
    "ALTER TABLE e MODIFY s SET('x','y','z'), ALGORITHM=INSTANT",
    "ALTER TABLE e MODIFY e ENUM('z','a','b','c','d','e'), ALGORITHM=INSTANT",  # (not at the end)
    "ALTER TABLE e MODIFY e ENUM('z','a','b','c','d','e','f')",
    "ALTER TABLE e MODIFY e ENUM('z','a','b')",  # (members dropped: a copy)
    "SHOW CREATE TABLE e",
    "SELECT * FROM e ORDER BY id",
]

LOCKS = [
    "ALTER TABLE l ADD INDEX (v), LOCK=NONE",
    "ALTER TABLE l ADD COLUMN x INT, LOCK=NONE",
    "ALTER TABLE l ADD COLUMN y INT, ALGORITHM=INSTANT, LOCK=NONE",
    "ALTER TABLE l MODIFY w VARCHAR(5), LOCK=NONE",
    "ALTER TABLE l MODIFY w VARCHAR(5), LOCK=SHARED",
    "ALTER TABLE l MODIFY w VARCHAR(6), LOCK=EXCLUSIVE",
    "ALTER TABLE l MODIFY w VARCHAR(7), ALGORITHM=COPY, LOCK=NONE",
    "ALTER ONLINE TABLE l MODIFY w VARCHAR(7)",
    "ALTER ONLINE TABLE l ADD INDEX i2 (w)",
    "ALTER TABLE l LOCK=DEFAULT, ADD INDEX i3 (x)",
    "SHOW CREATE TABLE l",
]

IGNORES = [
    "ALTER TABLE l ADD UNIQUE (v)",
    "ALTER IGNORE TABLE l ADD UNIQUE uw (w), ALGORITHM=INPLACE",
    "ALTER IGNORE TABLE l ADD UNIQUE uw (w), LOCK=NONE",
    "ALTER IGNORE TABLE l ADD UNIQUE (v)",
    "SELECT * FROM l ORDER BY id",
    "ALTER IGNORE TABLE m ADD UNIQUE (v), ADD UNIQUE (w)",
    "SELECT * FROM m ORDER BY id",
    "ALTER IGNORE TABLE m ADD COLUMN z INT",
    "SHOW CREATE TABLE m",
    "INSERT INTO m (v, w) VALUES (4, 4)",
    "SELECT * FROM m ORDER BY id",
]


@pytest.mark.parametrize("statements", [ENUMS, LOCKS, IGNORES], ids=["enum", "lock", "ignore"])
def test_alter_answers_as_mariadb(tmp_path, statements):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        theirs, mine = (ok_answers(server, SETUP, statements) for server in (reference, ours))
    assert mine == theirs, answer_differences(theirs, mine)


def test_replicas_leave_out_the_rows_alter_ignore_left_out(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            ok_answers(server, SETUP, [sql for sql in IGNORES if sql.startswith(("ALTER IGNORE", "INSERT"))])
        for name in ("l", "m"):
            assert_same_rows(reference, ours, replicas, f"SELECT * FROM d.{name} ORDER BY id")
