"""Stored procedures' control flow against a live MariaDB 10.11: WHILE, REPEAT and LOOP with
LEAVE / ITERATE of their labels, the CASE statement (simple and searched; 1339 without a match),
nested BEGIN ... END blocks with their own DECLAREs (a name hiding an outer one, DEFAULTs
evaluated at each entry), cursors read to their end under a CONTINUE HANDLER FOR NOT FOUND,
handlers of error codes, SQLSTATEs and SQLEXCEPTION (CONTINUE and EXIT, the innermost and most
specific chosen, an EXIT one rolling a transaction back), the cursors' errors; the label errors MariaDB's parser gives at CREATE; the binlog's text
(each statement a loop runs, its variables as NAME_CONST(...)) and the replicas of ours (a
MariaDB replica and our slave) ending with the master's rows; a loop without an end stopped by
KILL QUERY and by max_statement_time as MariaDB's is."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pymysql
import pytest

from tests.integration.test_routines_mariadb import SETUP, _created, _results, _routine_statements
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    mariadb_and_ours,
    ok_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

PROCEDURES = [
    "CREATE DEFINER=root@localhost PROCEDURE fill(IN n INT)\n"
    "BEGIN\n"
    "  DECLARE i INT DEFAULT 0;\n"
    "  DECLARE total INT DEFAULT n * 10;\n"
    "  outer_loop: WHILE i < n DO\n"
    "    SET i = i + 1;\n"
    "    IF i = 2 THEN ITERATE outer_loop; END IF;\n"
    "    INSERT INTO t VALUES (i, total + i, CONCAT('w', i));\n"
    "    IF i >= 4 THEN LEAVE Outer_Loop; END IF;\n"
    "  END WHILE outer_loop;\n"
    "  SELECT i, total;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE rounds(IN n INT, OUT r VARCHAR(40))\n"
    "BEGIN\n"
    "  DECLARE k INT DEFAULT 0;\n"
    "  DECLARE s VARCHAR(40) DEFAULT '';\n"
    "  REPEAT\n"
    "    SET k = k + 1;\n"
    "    SET s = CONCAT(s, k);\n"
    "  UNTIL k >= n END REPEAT;\n"
    "  spin: LOOP\n"
    "    SET k = k - 1;\n"
    "    IF k <= 0 THEN LEAVE spin; END IF;\n"
    "    IF MOD(k, 2) = 0 THEN ITERATE spin; END IF;\n"
    "    INSERT INTO log (what, n) VALUES (CONCAT('spin ', k), k / 4);\n"
    "  END LOOP spin;\n"
    "  SET r = s;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE repeat_iterate(OUT r INT)\n"
    "BEGIN DECLARE k INT DEFAULT 0;\n"
    "  again: REPEAT SET k = k + 1; IF k < 3 THEN ITERATE again; END IF; UNTIL TRUE END REPEAT again;\n"
    "  SET r = k; END",
    "CREATE DEFINER=root@localhost PROCEDURE classify(IN x INT)\n"
    "BEGIN\n"
    "  CASE x\n"
    "    WHEN 1 THEN INSERT INTO log (what, n) VALUES ('one', x);\n"
    "    WHEN CASE WHEN x > 1 THEN 2 END THEN INSERT INTO log (what, n) VALUES ('two', x);\n"
    "    ELSE INSERT INTO log (what, n) VALUES ('many', x);\n"
    "  END CASE;\n"
    "  CASE\n"
    "    WHEN x < 0 THEN SELECT 'negative';\n"
    "    WHEN x BETWEEN 0 AND 2 THEN SELECT 'small', CASE x WHEN 1 THEN 'a' ELSE 'b' END AS c;\n"
    "  END CASE;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE scopes(INOUT v INT)\n"
    "BEGIN\n"
    "  DECLARE a INT DEFAULT 1;\n"
    "  DECLARE i INT DEFAULT 0;\n"
    "  body: BEGIN\n"
    "    DECLARE a INT DEFAULT v * 100;\n"
    "    DECLARE b VARCHAR(10) DEFAULT CONCAT('b', a);\n"
    "    INSERT INTO t VALUES (50 + v, a, b);\n"
    "    WHILE i < 2 DO\n"
    "      BEGIN\n"
    "        DECLARE c INT DEFAULT i * 1000 + a;\n"
    "        SET i = i + 1;\n"
    "        INSERT INTO t VALUES (100 + v * 10 + i, c, b);\n"
    "      END;\n"
    "    END WHILE;\n"
    "    IF v > 1 THEN LEAVE body; END IF;\n"
    "    SET a = a + 1;\n"
    "    INSERT INTO t VALUES (200 + v, a, 'inner');\n"
    "  END body;\n"
    "  INSERT INTO t VALUES (300 + v, a, 'outer');\n"
    "  SET v = a + i;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE copy_rows(IN lo INT)\n"
    "BEGIN\n"
    "  DECLARE done INT DEFAULT FALSE;\n"
    "  DECLARE k, v INT;\n"
    "  DECLARE w VARCHAR(20);\n"
    "  DECLARE cur CURSOR FOR SELECT id, a, s FROM t WHERE id >= lo ORDER BY id;\n"
    "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = TRUE;\n"
    "  OPEN cur;\n"
    "  read_loop: LOOP\n"
    "    FETCH cur INTO k, v, w;\n"
    "    IF done THEN LEAVE read_loop; END IF;\n"
    "    INSERT INTO log (what, n) VALUES (CONCAT('copied ', w), v / 8);\n"
    "  END LOOP;\n"
    "  CLOSE cur;\n"
    "  SELECT COUNT(*), k FROM log;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE exits(OUT r VARCHAR(30))\n"
    "BEGIN\n"
    "  DECLARE x INT DEFAULT 0;\n"
    "  SET r = 'start';\n"
    "  b: BEGIN\n"
    "    DECLARE EXIT HANDLER FOR SQLSTATE '02000' SET r = CONCAT(r, ' exited');\n"
    "    SELECT a INTO x FROM t WHERE id = -1;\n"
    "    SET r = 'not here';\n"
    "  END b;\n"
    "  SET r = CONCAT(r, ' after');\n"
    "  SELECT a INTO x FROM t WHERE id = -2;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE cursor_errors(IN what INT)\n"
    "BEGIN\n"
    "  DECLARE x INT;\n"
    "  DECLARE c CURSOR FOR SELECT id, a FROM t ORDER BY id DESC;\n"
    "  IF what = 1 THEN FETCH c INTO x; END IF;\n"
    "  OPEN c;\n"
    "  IF what = 2 THEN OPEN c; END IF;\n"
    "  IF what = 3 THEN FETCH c INTO x; END IF;\n"
    "  CLOSE c;\n"
    "  IF what = 4 THEN CLOSE c; END IF;\n"
    "  OPEN c;\n"
    "  FETCH NEXT FROM c INTO x, x;\n"
    "  SELECT x;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE drain() BEGIN DECLARE x INT; DECLARE c CURSOR FOR SELECT 1;"
    " OPEN c; FETCH c INTO x; FETCH c INTO x; END",
    "CREATE DEFINER=root@localhost PROCEDURE guarded(IN k INT, OUT r VARCHAR(60))\n"
    "BEGIN\n"
    "  DECLARE dups INT DEFAULT 0;\n"
    "  DECLARE CONTINUE HANDLER FOR 1062 SET dups = dups + 1;\n"
    "  DECLARE CONTINUE HANDLER FOR SQLSTATE '23000' SET r = CONCAT(r, ' state');\n"
    "  SET r = '';\n"
    "  INSERT INTO t VALUES (k, 1, 'g');\n"
    "  INSERT INTO t VALUES (k, 2, 'g');\n"
    "  INSERT INTO t VALUES (NULL, 3, 'g');\n"
    "  inner_b: BEGIN\n"
    "    DECLARE EXIT HANDLER FOR SQLEXCEPTION SET r = CONCAT(r, ' exit');\n"
    "    INSERT INTO t VALUES (k, 4, 'g');\n"
    "    SET r = 'not here';\n"
    "  END inner_b;\n"
    "  BEGIN\n"
    "    INSERT INTO t VALUES (k, 5, 'g');\n"
    "    SET r = CONCAT(r, ' continued');\n"
    "  END;\n"
    "  IF k > 100 THEN SELECT * FROM nope; END IF;\n"
    "  SET r = CONCAT(r, ' dups=', dups);\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE txn(IN k INT, OUT r VARCHAR(30))\n"
    "BEGIN\n"
    "  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; SET r = 'rolled back'; END;\n"
    "  SET r = 'committed';\n"
    "  START TRANSACTION;\n"
    "  INSERT INTO log (what, n) VALUES ('txn', k);\n"
    "  INSERT INTO t VALUES (k, 0, 'txn');\n"
    "  COMMIT;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE checked(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE msg VARCHAR(60) DEFAULT CONCAT('bad k ', k);\n"
    "  DECLARE EXIT HANDLER FOR SQLEXCEPTION\n"
    "    BEGIN ROLLBACK; SET @fails = IFNULL(@fails, 0) + 1, @failed = k; RESIGNAL; END;\n"
    "  IF k < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = msg, MYSQL_ERRNO = 1644; END IF;\n"
    "  IF k = 0 THEN SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'just a warning'; END IF;\n"
    "  START TRANSACTION;\n"
    "  INSERT INTO t VALUES (k, 0, 'checked');\n"
    "  COMMIT;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE lonely() RESIGNAL",
    "CREATE DEFINER=root@localhost PROCEDURE forever() BEGIN DECLARE i INT DEFAULT 0;"
    " l: LOOP SET i = i + 1; END LOOP l; END",
    "CREATE DEFINER=root@localhost PROCEDURE spin() l: LOOP ITERATE l; END LOOP",
]

CALLS = ["CALL fill(3)", "CALL fill(9)", "CALL rounds(5, @r)", "CALL repeat_iterate(@k)", "CALL classify(1)",
         "CALL classify(2)", "CALL classify(-3)", "CALL classify(5)", "CALL classify(NULL)", "SET @v = 1",
         "CALL scopes(@v)", "SET @v = 2", "CALL scopes(@v)", "CALL copy_rows(3)"]

ASKED = ["SELECT @r, @k, @v", "CALL exits(@e)", "SELECT @e", "CALL cursor_errors(1)", "CALL cursor_errors(2)",
         "CALL cursor_errors(3)", "CALL cursor_errors(4)", "CALL cursor_errors(5)", "CALL drain()",
         "CALL guarded(1, @g)", "SELECT @g", "CALL guarded(50, @g)", "SELECT @g", "CALL guarded(101, @g)",
         "CALL txn(1, @x)", "CALL txn(999, @y)", "SELECT @x, @y", "CALL checked(-5)", "CALL checked(0)",
         "CALL checked(0)", "CALL checked(407)", "SELECT @fails, @failed", "CALL lonely()",
         "CREATE DEFINER=root@localhost PROCEDURE warned() BEGIN DECLARE x INT; SELECT a INTO x FROM t WHERE id = -2;"
         " SET x = 1; END", "CALL warned()", "SHOW CREATE PROCEDURE fill", "SHOW CREATE PROCEDURE spin"]

# MariaDB's parser's errors at CREATE (nothing made, nothing binlogged)
BAD = [
    "CREATE PROCEDURE bad_end() BEGIN l1: LOOP LEAVE l1; END LOOP l2; END",
    "CREATE PROCEDURE bad_block_end() b: BEGIN SELECT 1; END c",
    "CREATE PROCEDURE bad_unlabelled_end() BEGIN WHILE 1 DO SELECT 1; END WHILE w; END",
    "CREATE PROCEDURE bad_twice() BEGIN l1: LOOP l1: LOOP LEAVE l1; END LOOP; END LOOP; END",
    "CREATE PROCEDURE bad_twice_block() a: BEGIN b: BEGIN a: WHILE 1 DO SELECT 1; END WHILE; END; END",
    "CREATE PROCEDURE bad_leave() BEGIN LEAVE nowhere; END",
    "CREATE PROCEDURE bad_iterate() b: BEGIN ITERATE b; END",
    "CREATE PROCEDURE bad_outside() BEGIN a: BEGIN SELECT 1; END a; LEAVE a; END",
    "CREATE PROCEDURE bad_handler() BEGIN l: LOOP BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION LEAVE l;"
    " SELECT 1; END; END LOOP; END",
    "CREATE PROCEDURE bad_return() BEGIN SELECT 1; RETURN 1; END",
    "CREATE PROCEDURE bad_dup() BEGIN DECLARE x INT; DECLARE y, X INT; BEGIN DECLARE x INT; END; END",
    "CREATE PROCEDURE bad_label_stmt() BEGIN c: SELECT 'a'; END",
    "CREATE PROCEDURE bad_declare_after() BEGIN SELECT 1;\n  DECLARE x INT; END",
    "CREATE PROCEDURE bad_empty_loop() BEGIN LOOP END LOOP; END",
    "CREATE PROCEDURE bad_empty_if() BEGIN IF 1 THEN ELSE SELECT 1; END IF; END",
    "CREATE PROCEDURE bad_empty_case() BEGIN CASE 1 WHEN 1 THEN ELSE SELECT 1; END CASE; END",
    "CREATE PROCEDURE\nbad_lines()\nBEGIN\n  WHILE 0 DO SELECT 1; END WHILE w;\nEND",
    "SHOW PROCEDURE STATUS LIKE 'bad%'",
    "CREATE DEFINER=root@localhost PROCEDURE good_siblings() BEGIN a: BEGIN END a; A: LOOP LEAVE a; END LOOP; END",
    "CALL good_siblings()",
]


def test_loops_case_and_blocks_run_log_and_replicate_as_mariadbs(tmp_path):
    compared_with_mariadb(tmp_path, PROCEDURES, CALLS, ASKED + BAD)


def compared_with_mariadb(tmp_path, procedures: list[str], calls: list[str], asked: list[str],
                          more: Callable[[Any], list] | None = None) -> None:
    """`procedures` made in sp on a MariaDB master and on ours (each with a MariaDB replica, ours
    with our slave too): each of `calls`' results (`_results`), each of `asked`'s `ok_answer` and
    what `more(connection)` gives the same on both, the binlogs' statements the same, and sp.t
    and sp.log alike on the masters and the replicas."""
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        results, answers = [], []
        for server in (reference, ours):
            _created(server, SETUP, procedures)
            conn = server.connect("sp")
            try:
                results.append([(sql, _results(conn, sql)) for sql in calls])
                answers.append([(sql, *ok_answer(conn, sql)) for sql in asked] + (more(conn) if more else []))
            finally:
                conn.close()
        assert answer_differences(*results) == ""
        assert answer_differences(*answers) == ""
        assert _routine_statements(ours) == _routine_statements(reference)
        for sql in ("SELECT * FROM sp.t ORDER BY id", "SELECT * FROM sp.log ORDER BY id"):
            assert_same_rows(reference, ours, replicas, sql)


def _interrupted(server, sql: str, stop: str | None) -> tuple:
    """`sql`'s error on one connection (after 0.5 s, `stop` of another, {id} its thread), then
    whether that connection still answers."""
    victim = server.connect("sp")
    got: dict[str, object] = {}

    def run():
        started = time.monotonic()
        try:
            victim.cursor().execute(sql)
            got["answer"] = "ok"
        except pymysql.MySQLError as exc:
            got["answer"] = exc.args[:2]
        got["took"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.5)
    if stop is not None:
        killer = server.connect()
        try:
            killer.cursor().execute(stop.format(id=victim.thread_id()))
        finally:
            killer.close()
    thread.join(30)
    assert not thread.is_alive() and got["took"] < 20
    try:
        with victim.cursor() as cur:
            cur.execute("SELECT 1")
            return got["answer"], cur.fetchall()
    finally:
        victim.close()


def test_a_loop_without_an_end_is_stopped_by_kill_query_and_max_statement_time(tmp_path):
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        got = []
        for server in (mariadb, ours):
            _created(server, SETUP, PROCEDURES[-2:])
            got.append([_interrupted(server, "CALL forever()", "KILL QUERY {id}"),
                        _interrupted(server, "CALL spin()", "KILL QUERY {id}"),
                        _interrupted(server, "SET STATEMENT max_statement_time = 1 FOR CALL spin()", None)])
        assert got[1] == got[0]
        assert got[0][0][0][0] == 1317
