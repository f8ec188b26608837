"""A literal its column cannot hold, assigned by an UPDATE's SET or by ON DUPLICATE KEY UPDATE,
against a live MariaDB 10.11: stored, refused or warned of per row the statement updates, as
MariaDB converts it. An UPDATE that matches no row is OK with 0 rows matched and no warning
(ours refused the literal before reading a row: 1406 / 1264 / 1292 / 4078); one that matches
rows gives strict mode's error and leaves them, or under IGNORE or a sql_mode without strictness
stores the adjusted value with a warning for each row. A UUID, INET6 or INET4 column assigned
text that names none is 1292 (ON DUPLICATE KEY UPDATE stored NULL with an OK there: its `=`
was read as a comparison), NULL (the zero value when NOT NULL) with the warning under IGNORE.
Each statement runs on a stock MariaDB and on our master, in strict and lax sql_mode, inside
a transaction too, and the answers (rows affected, info, warnings) and the rows are compared."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import answer_differences, mariadb_and_ours, ok_answers

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, s VARCHAR(3), n TINYINT, dt DATE, u UUID, i6 INET6, i4 INET4,"
    " un UUID NOT NULL DEFAULT '00000000-0000-0000-0000-000000000001', f DOUBLE, y YEAR, e ENUM('x', 'y'))"
    " CHARSET utf8mb4",
    "INSERT INTO d.t (id, s, n, dt, u, i6, i4) VALUES (1, 'a', 1, '2020-01-01', '6ccd780c-baba-1026-9564-5b8c656024db',"
    " '::1', '1.2.3.4'), (2, 'b', 2, '2020-01-02', NULL, NULL, NULL), (3, 'c', 3, '2020-01-03', NULL, NULL, NULL)",
]

ROWS = "SELECT * FROM t ORDER BY id"

STATEMENTS = [
    # no row matched: OK, whatever the literal
    "UPDATE t SET s = 'abcdef' WHERE id = 5",
    "UPDATE t SET n = 300 WHERE id > 5",
    "UPDATE t SET dt = 'nope', s = 'toolong' WHERE id = 5",
    "UPDATE t SET s = 'abcdef', n = -300 WHERE s LIKE 'z%'",
    "UPDATE t SET u = 'not-a-uuid' WHERE id = 5",
    "UPDATE t SET i6 = 'zz' WHERE id = 5",
    "UPDATE t SET i4 = '1.2.3.999' WHERE s = 'zz'",
    "UPDATE t SET y = 3000, e = 'z' WHERE id = 5",
    "UPDATE IGNORE t SET n = 300 WHERE id = 5",
    "UPDATE t SET dt = '2020-01-01 10:00:00' WHERE id = 5",  # (its note 1265 only for a row updated)
    # a number into a UUID: refused before any row, as MariaDB
    "UPDATE t SET u = 12 WHERE id = 5",
    "UPDATE t SET u = 12 WHERE id = 1",
    # rows matched: strict mode's error, the rows left
    "UPDATE t SET s = 'abcdef' WHERE id = 2",
    "UPDATE t SET n = 300 WHERE id = 2",
    "UPDATE t SET s = 'x', dt = 'nope' WHERE id = 1",
    "UPDATE t SET u = 'not-a-uuid' WHERE id = 1",
    "UPDATE t SET s = 'xyz', n = -5 WHERE id = 2",
    # IGNORE: the adjusted value, a warning per row (a row it leaves as it was too)
    "UPDATE IGNORE t SET n = 300 WHERE id IN (1, 3)",
    "UPDATE IGNORE t SET s = 'abcdef' WHERE id > 1",
    "UPDATE IGNORE t SET s = 'abcdef', n = -300 WHERE id >= 2",
    "UPDATE IGNORE t SET u = 'not-a-uuid' WHERE id IN (1, 2)",
    "UPDATE IGNORE t SET un = 'nope' WHERE id = 1",
    "UPDATE IGNORE t SET n = -300, s = 'abcdefg' WHERE id IN (1, 3)",  # (a row's warnings in the SET's order)
    "UPDATE IGNORE t SET dt = '2020-01-01 10:00:00', n = 300 WHERE id = 3",
    ROWS,
    "BEGIN",
    "UPDATE t SET n = 300 WHERE id = 5",
    "UPDATE t SET u = 'not-a-uuid' WHERE id = 5",
    "UPDATE t SET n = 300 WHERE id = 1",
    "COMMIT",
    "SET sql_mode = ''",
    "UPDATE t SET n = 300 WHERE id = 5",
    "UPDATE t SET n = 300 WHERE id IN (1, 2)",
    "UPDATE t SET dt = 'nope' WHERE id = 2",
    "UPDATE t SET u = 'not-a-uuid' WHERE id = 2",
    "UPDATE t SET u = 'not-a-uuid' WHERE id = 5",
    "BEGIN",
    "UPDATE t SET n = 300 WHERE id = 55",
    "COMMIT",
    ROWS,
    "SET sql_mode = DEFAULT",
    # ON DUPLICATE KEY UPDATE: only a row that meets a key
    "INSERT INTO t (id, u) VALUES (1, '6ccd780c-baba-1026-9564-5b8c656024dd') ON DUPLICATE KEY UPDATE u = 'not-a-uuid'",
    "INSERT INTO t (id, u) VALUES (9, '6ccd780c-baba-1026-9564-5b8c656024dd') ON DUPLICATE KEY UPDATE u = 'not-a-uuid'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE i6 = 'zz'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE i4 = '1.2.3.999'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE n = VALUES(n), u = 'not-a-uuid'",
    "INSERT INTO t SET id = 1 ON DUPLICATE KEY UPDATE u = 'not-a-uuid'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE u = 12",
    "INSERT INTO t (id) VALUES (10) ON DUPLICATE KEY UPDATE u = 12",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE n = 300",
    "INSERT INTO t (id) VALUES (11) ON DUPLICATE KEY UPDATE n = 300",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE s = 'toolong'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE dt = 'nope'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE f = 'abc'",
    "INSERT INTO t (id) VALUES (20) ON DUPLICATE KEY UPDATE f = 'abc'",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE y = 3000",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE e = 'z'",
    "INSERT IGNORE INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE u = 'not-a-uuid'",
    "INSERT IGNORE INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE n = 300",
    "INSERT IGNORE INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE s = 'toolong', dt = 'nope'",
    "INSERT IGNORE INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE un = 'nope'",
    "INSERT IGNORE INTO t (id) VALUES (2) ON DUPLICATE KEY UPDATE i6 = 'zz', i4 = 'x'",
    "INSERT IGNORE INTO t (id) VALUES (3) ON DUPLICATE KEY UPDATE f = 'abc', y = 3000, e = 'z'",
    ROWS,
    "SET sql_mode = ''",
    "INSERT INTO t (id) VALUES (1) ON DUPLICATE KEY UPDATE u = 'not-a-uuid'",
    "INSERT INTO t (id) VALUES (1), (2) ON DUPLICATE KEY UPDATE n = -300",
    "INSERT INTO t (id) VALUES (2) ON DUPLICATE KEY UPDATE n = 300, s = 'toolong', dt = 'nope'",
    "INSERT INTO t (id) VALUES (2), (3) ON DUPLICATE KEY UPDATE f = '1.5x'",
    ROWS,
]


def test_assigned_literals_are_stored_per_row_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs = ok_answers(reference, SETUP, STATEMENTS)
        mine = ok_answers(ours, SETUP, STATEMENTS)
    assert mine == theirs, answer_differences(theirs, mine)
