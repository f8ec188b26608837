"""Calls of stored functions whose body is `RETURN expr` against a live MariaDB 10.11: answers and
result columns (names, types, lengths) of calls in select lists, VALUES, WHERE and SET,
qualified `db.f(...)`, arguments converted to the parameters' types and the value to the
RETURNS type, 1318 on a wrong argument count, 1305 for an unknown function, 1235 for a body not
run here; the statements binlogged as written, and the replicas (a MariaDB replica of ours and our
slave) computing the same rows."""

from __future__ import annotations

import pytest

from tests.integration.test_routines_mariadb import _created, _routine_statements
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    defined_answers,
    mariadb_and_ours,
    ok_answer,
    ok_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

SETUP = [
    "CREATE DATABASE sf CHARACTER SET utf8mb4",
    "CREATE TABLE sf.t (id INT PRIMARY KEY, a INT, s VARCHAR(30), d DECIMAL(8,2))",
]

FUNCTIONS = [
    "CREATE DEFINER=root@localhost FUNCTION twice(a INT) RETURNS INT DETERMINISTIC RETURN a * 2",
    "CREATE DEFINER=root@localhost FUNCTION label(a INT, b VARCHAR(10)) RETURNS VARCHAR(30) NO SQL"
    " RETURN CONCAT(b, '-', a)",
    "CREATE DEFINER=root@localhost FUNCTION third(x DECIMAL(10,4)) RETURNS DECIMAL(6,2) DETERMINISTIC BEGIN RETURN x / 3; END",
    "CREATE DEFINER=root@localhost FUNCTION bumped(a INT) RETURNS BIGINT DETERMINISTIC RETURN twice(a) + twice(twice(1))",
    "CREATE DEFINER=root@localhost FUNCTION total(k INT) RETURNS DECIMAL(10,2) READS SQL DATA"
    " RETURN (SELECT SUM(a) + SUM(d) FROM t WHERE id <= k)",
    "CREATE DEFINER=root@localhost FUNCTION looping() RETURNS INT DETERMINISTIC BEGIN DECLARE i INT DEFAULT 0;"
    " WHILE i < 3 DO SET i = i + 1; END WHILE; RETURN i; END",
]

WRITES = [
    "INSERT INTO t VALUES (1, twice(2), label(1, 'one'), third(9))",
    "INSERT INTO t VALUES (2, sf.twice(2.6), label(2.4, 'a long text here'), third('6'))",
    "INSERT INTO t (id, a) SELECT id + 10, bumped(id) FROM t",
    "UPDATE t SET s = label(a, s) WHERE a = twice(2)",
    "INSERT INTO t (id, d) VALUES (30, total(100))",
    "INSERT INTO t (id, a, s, d) VALUES (twice(20), 2.5, 'it''s', 1.25), (41, 1e0, twice(3), 7)",
    "DO twice(1), 'x'",
    "UPDATE t SET d = total(11) WHERE id = 11",
    "DELETE FROM t WHERE id = twice(6)",
]

PREPARED = ("SELECT twice(?), label(?, ?), id FROM t WHERE a = twice(?)", ((3, 5), (3, 6), (253, "x"), (3, 2)))

READS = [
    "SELECT twice(21), label(7, 'x'), third(1.5), bumped(3)",
    "SELECT sf.twice(5) AS v, twice(id) + 1, SF.Twice(1) FROM t ORDER BY id",
    "SELECT id FROM t WHERE a = twice(3) OR s = label(2, 'a long tex') ORDER BY id",
    "SELECT twice(NULL), label(NULL, 'x'), third(0.3)",
    "SELECT twice(a) INTO @v FROM t WHERE id = 1",
    "SELECT id, total(2), total(NULL), total(@v) FROM t ORDER BY id",
    "SELECT twice(1)+twice(2), 1 + TWICE(2) AS x, `twice` (3) y, sf.`twice`(4), 'b', 3",
    "SELECT @v, MAX(twice(id)) AS m, (SELECT MAX(a) FROM t) AS n, (SELECT MAX(twice(a)) FROM t) AS o FROM t",
    "SELECT label(id, s) FROM t WHERE label(id, s) LIKE '%-1' ORDER BY label(id, s) DESC",
]

ERRORS = [
    "SELECT twice(1, 2)",
    "SELECT twice()",
    "SELECT nope(1)",
    "SELECT sf.nope(1)",
    "SELECT other.twice(1)",
    "SELECT mysql_returned(1, `int`)",
    "SET @w = twice(4)",
    "SELECT twice('abc')",
    "SELECT twice(3000000000)",
    "SELECT label(1, 'more than ten')",
    "SELECT total(id) FROM t",
    "SELECT looping()",
]


def test_stored_functions_answer_and_replicate_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        answers, defined, refused, prepared = [], [], [], []
        for server in (reference, ours):
            _created(server, SETUP, FUNCTIONS, "sf")
            conn = server.connect("sf")
            try:
                answers.append([(sql, ok_answer(conn, sql)) for sql in WRITES])
                refused.append([(sql, ok_answer(conn, sql)[:2]) for sql in ERRORS])
            finally:
                conn.close()
            defined.append(defined_answers(server.port, "sf", READS))
            prepared.append(defined_answers(server.port, "sf", [PREPARED])[0][2][-1])  # (its rows)
        assert answers[1] == answers[0]
        assert defined[1] == defined[0]
        assert prepared[1] == prepared[0] == [(10, b"x-6", 1)]
        assert refused[1][:-2] == refused[0][:-2]
        assert refused[1][-2:] == [(sql, ("error", 1235)) for sql in ERRORS[-2:]]  # (made, not run here)
        # each write binlogged as the client wrote it, the calls in it
        assert _routine_statements(ours, "CREATE TABLE sf.t") == _routine_statements(reference, "CREATE TABLE sf.t")
        assert_same_rows(reference, ours, replicas, "SELECT * FROM sf.t ORDER BY id")


SQL_MODES = [
    "SET sql_mode = ''",
    "CREATE FUNCTION lax(a TINYINT, s CHAR(2)) RETURNS INT DETERMINISTIC RETURN a + LENGTH(s)",
    "CREATE FUNCTION small(a INT) RETURNS TINYINT DETERMINISTIC RETURN a",
    "SET sql_mode = DEFAULT",
    "CREATE FUNCTION strict1(a TINYINT) RETURNS TINYINT DETERMINISTIC RETURN a DIV 2",
    # strict: an argument stored as a column strictly stores it, whatever mode the function was made in
    "SELECT lax(300, 'ab')",
    "SELECT lax('x', 'a')",
    "SELECT lax(1, 'abc')",
    "SELECT small(300)",  # (its value stored under the mode it was made in: adjusted, warned of)
    "SET sql_mode = ''",
    "SELECT strict1(300)",
    "INSERT INTO t VALUES (1, lax(1000, 'abc'))",
    "SELECT * FROM t",
]


def test_arguments_follow_the_callers_sql_mode_and_the_value_the_functions(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        setup = ["CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, a INT)"]
        assert ok_answers(ours, setup, SQL_MODES) == ok_answers(reference, setup, SQL_MODES)
