"""Stored procedures' FOR loops and cursors with parameters against a live MariaDB 10.11: FOR i IN
[REVERSE] lower .. upper (the bounds evaluated once, the variable its loop's own, ITERATE and LEAVE
of labels, the variable set in a round, no round for an empty range, 1048 for a NULL bound), FOR record IN cursor [(arguments)] and
FOR record IN (SELECT ...) (the record's fields in statements, the cursor closed after the
loop), DECLARE ... CURSOR (parameters) FOR and OPEN cursor(arguments); the errors MariaDB's parser
gives at CREATE (1324 / 1327 for a cursor not declared, 4080 for a count of arguments); the results, the
binlog's text (a record's field as NAME_CONST('record.field', value)) and what a MariaDB replica
and our slave end with; a FOR loop stopped by KILL QUERY and by max_statement_time."""

from __future__ import annotations

import pytest

from tests.integration.test_routine_loops_mariadb import _interrupted, compared_with_mariadb
from tests.integration.test_routines_mariadb import SETUP, _created
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

PROCEDURES = [
    "CREATE DEFINER=root@localhost PROCEDURE ranges(IN n INT, OUT r VARCHAR(100))\n"
    "BEGIN\n"
    "  DECLARE i INT DEFAULT 100;\n"
    "  SET r = '';\n"
    "  outer_for: FOR i IN 1 .. n DO\n"
    "    IF i = 2 THEN ITERATE outer_for; END IF;\n"
    "    INSERT INTO t VALUES (i, i * 10, CONCAT('f', i));\n"
    "    FOR j IN REVERSE 1..i DO\n"
    "      SET r = CONCAT(r, i, ':', j, ' ');\n"
    "      IF j = 2 THEN LEAVE outer_for; END IF;\n"
    "    END FOR;\n"
    "  END FOR outer_for;\n"
    "  SET r = CONCAT(r, 'i=', i);\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE bounds(IN m INT, OUT c INT)\n"
    "BEGIN\n"
    "  SET c = 0;\n"
    "  FOR k IN m..m + 2 DO\n"
    "    SET m = m + 10;\n"
    "    SET c = c + 1;\n"
    "    INSERT INTO log (what, n) VALUES (CONCAT('k', k), m);\n"
    "  END FOR;\n"
    "  FOR k IN 5..1 DO SET c = c + 100; END FOR;\n"
    "  FOR k IN REVERSE 2..2 DO SET c = c + 10000; END FOR;\n"
    "  FOR k IN 1.6..3.5 DO SET c = c + k * 100000; END FOR;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE null_bound(IN which INT)\n"
    "BEGIN\n"
    "  DECLARE c INT DEFAULT 0;\n"
    "  IF which = 1 THEN FOR k IN NULL..3 DO SET c = c + 1; END FOR; END IF;\n"
    "  IF which = 2 THEN FOR k IN 1..NULL DO SET c = c + 1; END FOR; END IF;\n"
    "  IF which = 3 THEN FOR k IN REVERSE NULL..2 DO SET c = c + 1; END FOR; END IF;\n"
    "  FOR k IN 1..10 DO SET k = k + 3; SET c = c * 100 + k; END FOR;\n"
    "  SELECT c;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE copy_for(IN lo INT)\n"
    "BEGIN\n"
    "  DECLARE total INT DEFAULT 0;\n"
    "  DECLARE cur CURSOR (low INT) FOR SELECT id, a, s FROM t WHERE id >= low ORDER BY id;\n"
    "  FOR rec IN cur(lo) DO\n"
    "    INSERT INTO log (what, n) VALUES (CONCAT('rec ', rec.s), rec.a / 8);\n"
    "    SET total = total + rec.a;\n"
    "  END FOR;\n"
    "  FOR q IN (SELECT COUNT(*) AS c, MAX(s) AS top FROM t) DO\n"
    "    SELECT q.c, q.top, total;\n"
    "  END FOR;\n"
    "  OPEN cur(lo + 1);\n"
    "  BEGIN\n"
    "    DECLARE x, y INT;\n"
    "    DECLARE z VARCHAR(20);\n"
    "    FETCH cur INTO x, y, z;\n"
    "    SELECT x, y, z;\n"
    "  END;\n"
    "  CLOSE cur;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE reopened()\n"
    "BEGIN\n"
    "  DECLARE c CURSOR FOR SELECT id FROM t;\n"
    "  OPEN c;\n"
    "  FOR r IN c DO SELECT r.id; END FOR;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE endless_for() BEGIN DECLARE s INT DEFAULT 0;"
    " FOR i IN 1..2000000000 DO SET s = s + 1; END FOR; END",
]

CALLS = ["CALL ranges(4, @r)", "SELECT @r", "CALL ranges(1, @r)", "SELECT @r", "CALL bounds(7, @c)", "SELECT @c",
         "CALL copy_for(3)", "CALL reopened()",
         "CALL null_bound(1)", "CALL null_bound(2)", "CALL null_bound(3)", "CALL null_bound(4)"]

# what MariaDB's parser refuses at CREATE (nothing made, nothing binlogged)
BAD = [
    "CREATE PROCEDURE bad_for_cursor() BEGIN FOR r IN nope DO SELECT 1; END FOR; END",
    "CREATE PROCEDURE bad_open_count() BEGIN DECLARE c CURSOR (p INT) FOR SELECT p; OPEN c; END",
    "CREATE PROCEDURE bad_for_count() BEGIN DECLARE c CURSOR FOR SELECT 1; FOR r IN c(1) DO SELECT 1; END FOR; END",
    "CREATE PROCEDURE bad_for_label() BEGIN l: FOR i IN 1..2 DO SELECT i; END FOR m; END",
    "CREATE PROCEDURE bad_for_iterate() BEGIN FOR i IN 1..2 DO ITERATE nope; END FOR; END",
    "SHOW PROCEDURE STATUS LIKE 'bad%'",
    "SHOW CREATE PROCEDURE ranges",
]


def test_for_loops_and_cursor_parameters_run_log_and_replicate_as_mariadbs(tmp_path):
    compared_with_mariadb(tmp_path, PROCEDURES, CALLS, BAD)


def test_a_for_loop_is_stopped_by_kill_query_and_max_statement_time(tmp_path):
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        got = []
        for server in (mariadb, ours):
            _created(server, SETUP, PROCEDURES[-1:])
            got.append([_interrupted(server, "CALL endless_for()", "KILL QUERY {id}"),
                        _interrupted(server, "SET STATEMENT max_statement_time = 1 FOR CALL endless_for()", None)])
        assert got[1] == got[0]
        assert got[0][0][0][0] == 1317
