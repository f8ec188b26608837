"""Stored procedures' conditions against a live MariaDB 10.11: DECLARE ... CONDITION FOR a SQLSTATE
or an error code, handlers and SIGNAL naming one (a block's names seen by its inner blocks, not
outside it); handlers FOR SQLWARNING and for the code of a warning or a note (the last of a
statement's conditions that has a handler taken); GET DIAGNOSTICS of the statement (NUMBER,
ROW_COUNT) and of a condition (MYSQL_ERRNO, RETURNED_SQLSTATE, MESSAGE_TEXT) into locals and user
variables, in a handler and out of one, a number naming no condition; RESIGNAL alone, with SET,
with a SQLSTATE or a condition's name, caught by an outer handler; the errors MariaDB's parser
gives at CREATE (an undeclared condition 1319 or cursor 1324, SIGNAL of a condition of an error
code 1646, a condition or handler twice 1332 / 1413, declarations out of order 1337 / 1338, an
UNDO handler and GET STACKED DIAGNOSTICS 1064); a handled warning RESIGNALled; the items a SIGNAL
sets read by GET DIAGNOSTICS; a division by a variable that is 0 (1365); MariaDB's note 4094
("At line n in db.name") after an error that ended a routine, one per routine it left; the
results, errors and warnings, the binlog's text and what a MariaDB replica and our slave end with."""

from __future__ import annotations

import pytest

from tests.integration.test_routine_loops_mariadb import compared_with_mariadb
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import ok_answer

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

PROCEDURES = [
    "CREATE DEFINER=root@localhost PROCEDURE named(IN k INT, OUT r VARCHAR(80))\n"
    "BEGIN\n"
    "  DECLARE dup_key CONDITION FOR 1062;\n"
    "  DECLARE no_good CONDITION FOR SQLSTATE '23000';\n"
    "  DECLARE mine CONDITION FOR SQLSTATE VALUE '45001';\n"
    "  DECLARE CONTINUE HANDLER FOR dup_key SET r = CONCAT(r, ' dup');\n"
    "  DECLARE CONTINUE HANDLER FOR no_good SET r = CONCAT(r, ' state');\n"
    "  SET r = 'start';\n"
    "  INSERT INTO t VALUES (k, 1, 'n');\n"
    "  INSERT INTO t VALUES (k, 2, 'n');\n"
    "  INSERT INTO t VALUES (NULL, 3, 'n');\n"
    "  b: BEGIN\n"
    "    DECLARE EXIT HANDLER FOR mine SET r = CONCAT(r, ' mine');\n"
    "    IF k > 10 THEN SIGNAL mine SET MESSAGE_TEXT = 'big k'; END IF;\n"
    "    INSERT INTO log (what, n) VALUES ('small', k);\n"
    "  END b;\n"
    "  INSERT INTO log (what, n) VALUES (r, k);\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE raise_it(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE oops CONDITION FOR SQLSTATE '45000';\n"
    "  IF k > 0 THEN SIGNAL oops SET MESSAGE_TEXT = 'oops', MYSQL_ERRNO = 5001; END IF;\n"
    "  SIGNAL oops;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE scoped()\n"
    "BEGIN\n"
    "  DECLARE c CONDITION FOR SQLSTATE '45000';\n"
    "  BEGIN\n"
    "    DECLARE c CONDITION FOR SQLSTATE '45002';\n"
    "    DECLARE EXIT HANDLER FOR c SET @got = 'inner 45002';\n"
    "    SIGNAL c;\n"
    "  END;\n"
    "  BEGIN\n"
    "    DECLARE EXIT HANDLER FOR c SET @got = CONCAT(@got, ', outer 45000');\n"
    "    SIGNAL SQLSTATE '45000';\n"
    "  END;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE warned_on(IN k INT, OUT r VARCHAR(80))\n"
    "BEGIN\n"
    "  DECLARE x INT DEFAULT 0;\n"
    "  DECLARE CONTINUE HANDLER FOR SQLWARNING SET r = CONCAT(r, ' warning');\n"
    "  SET r = 'start';\n"
    "  INSERT IGNORE INTO t VALUES (k, 7, 'w');\n"
    "  INSERT IGNORE INTO t VALUES (k, 8, 'w');\n"
    "  SELECT a INTO x FROM t WHERE id = -1;\n"
    "  SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'signalled';\n"
    "  b: BEGIN\n"
    "    DECLARE EXIT HANDLER FOR 1365 SET r = CONCAT(r, ' division');\n"
    "    DO 1 / 0;\n"
    "    SET r = CONCAT(r, ' not here');\n"
    "  END b;\n"
    "  INSERT INTO log (what, n) VALUES (r, x);\n"
    "  DO 1 / 0;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE unhandled_warning(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET @nf = 1;\n"
    "  INSERT INTO log (what, n) VALUES ('before', k);\n"
    "  DO 1 / 0;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE first_wins(OUT r VARCHAR(40))\n"
    "BEGIN\n"
    "  DECLARE x INT;\n"
    "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET r = 'not found';\n"
    "  DECLARE CONTINUE HANDLER FOR SQLWARNING SET r = 'warning';\n"
    "  SELECT a INTO x FROM t WHERE id = -1;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE diag(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE n, e, c INT;\n"
    "  DECLARE st CHAR(5);\n"
    "  DECLARE msg VARCHAR(200);\n"
    "  DECLARE EXIT HANDLER FOR SQLEXCEPTION\n"
    "  BEGIN\n"
    "    GET DIAGNOSTICS n = NUMBER;\n"
    "    GET CURRENT DIAGNOSTICS CONDITION 1 e = MYSQL_ERRNO, st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;\n"
    "    GET DIAGNOSTICS CONDITION n @e = MYSQL_ERRNO, @st = RETURNED_SQLSTATE;\n"
    "    INSERT INTO log (what, n) VALUES (CONCAT(st, ' ', LEFT(msg, 30)), e);\n"
    "    SELECT n, e, st, msg;\n"
    "  END;\n"
    "  INSERT INTO t VALUES (k, 1, 'd'), (k + 1, 1, 'd');\n"
    "  GET DIAGNOSTICS c = ROW_COUNT, n = NUMBER;\n"
    "  SELECT c, n;\n"
    "  IF k > 100 THEN SIGNAL SQLSTATE '45123' SET MESSAGE_TEXT = 'custom', MYSQL_ERRNO = 5123; END IF;\n"
    "  INSERT INTO t VALUES (k, 2, 'd');\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE diag_bad()\n"
    "BEGIN\n"
    "  DECLARE x INT;\n"
    "  SELECT a INTO x FROM t WHERE id = -9;\n"
    "  GET DIAGNOSTICS CONDITION 2 @bad = MYSQL_ERRNO;\n"
    "  GET DIAGNOSTICS @num = NUMBER;\n"
    "  GET DIAGNOSTICS CONDITION 1 @first = MESSAGE_TEXT;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE resig(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE mine CONDITION FOR SQLSTATE '45009';\n"
    "  DECLARE msg VARCHAR(40) DEFAULT CONCAT('k is ', k);\n"
    "  DECLARE id INT DEFAULT k + 500;\n"
    "  DECLARE EXIT HANDLER FOR 1062\n"
    "  BEGIN\n"
    "    IF k = 1 THEN RESIGNAL SET MESSAGE_TEXT = 'dup again'; END IF;\n"
    "    IF k = 2 THEN RESIGNAL SQLSTATE '45000'; END IF;\n"
    "    IF k = 3 THEN RESIGNAL SQLSTATE VALUE '45000' SET MYSQL_ERRNO = 5555, MESSAGE_TEXT = msg; END IF;\n"
    "    IF k = 4 THEN RESIGNAL; END IF;\n"
    "    RESIGNAL mine SET MESSAGE_TEXT = msg;\n"
    "  END;\n"
    "  INSERT INTO t VALUES (id, 0, 'r');\n"
    "  INSERT INTO t VALUES (id, 1, 'r');\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE resig_caught(OUT r VARCHAR(100))\n"
    "BEGIN\n"
    "  DECLARE n INT;\n"
    "  DECLARE CONTINUE HANDLER FOR SQLSTATE '45000'\n"
    "  BEGIN\n"
    "    GET DIAGNOSTICS n = NUMBER;\n"
    "    GET DIAGNOSTICS CONDITION n r = MESSAGE_TEXT;\n"
    "  END;\n"
    "  BEGIN\n"
    "    DECLARE EXIT HANDLER FOR 1062 RESIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'converted';\n"
    "    INSERT INTO t VALUES (600, 0, 'c');\n"
    "    INSERT INTO t VALUES (600, 0, 'c');\n"
    "  END;\n"
    "  SET r = CONCAT(IFNULL(r, 'null'), ' after ', n);\n"
    "END",
    # a warning a handler RESIGNALs: a warning again (its text as SET says), or an error of the
    # SQLSTATE given
    "CREATE DEFINER=root@localhost PROCEDURE resig_warning(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE CONTINUE HANDLER FOR SQLWARNING\n"
    "  BEGIN\n"
    "    IF k = 1 THEN RESIGNAL; END IF;\n"
    "    IF k = 2 THEN RESIGNAL SET MESSAGE_TEXT = 'warned again'; END IF;\n"
    "    IF k = 3 THEN RESIGNAL SQLSTATE '45000'; END IF;\n"
    "  END;\n"
    "  INSERT IGNORE INTO t VALUES (700, 0, 'w'), (700, 1, 'w');\n"
    "  INSERT INTO log (what, n) VALUES ('after resignal', k);\n"
    "END",
    # a division by a variable that is 0 (1365, as a literal's), the items a SIGNAL sets
    "CREATE DEFINER=root@localhost PROCEDURE divided(IN k INT)\n"
    "BEGIN\n"
    "  DECLARE z INT DEFAULT 0;\n"
    "  DECLARE co, sco, tn, cn VARCHAR(64);\n"
    "  DECLARE EXIT HANDLER FOR SQLEXCEPTION\n"
    "  BEGIN\n"
    "    GET DIAGNOSTICS CONDITION 1 co = CLASS_ORIGIN, sco = SUBCLASS_ORIGIN, tn = TABLE_NAME, cn = COLUMN_NAME;\n"
    "    SELECT co, sco, tn, cn;\n"
    "  END;\n"
    "  DO k / z;\n"
    "  SELECT k / z, z / 0;\n"
    "  IF k > 1 THEN SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = 'mine', TABLE_NAME = 't'; END IF;\n"
    "  INSERT INTO t VALUES (k, 1, 'dup'), (k, 2, 'dup');\n"
    "END",
    # an error two routines deep: a note 4094 for each
    "CREATE DEFINER=root@localhost PROCEDURE outer_call(IN k INT) COMMENT 'calls'\n"
    "BEGIN\n"
    "  CALL raise_it(k);\n"
    "END",
]

CALLS = ["CALL named(3, @r)", "SELECT @r", "CALL named(11, @r)", "SELECT @r", "CALL raise_it(1)",
         "CALL raise_it(0)", "CALL scoped()", "SELECT @got", "CALL warned_on(20, @w)", "SELECT @w",
         "CALL first_wins(@f)", "SELECT @f", "CALL diag(30)", "CALL diag(40)", "SELECT @e, @st", "CALL diag(200)",
         "CALL diag_bad()", "SELECT @bad, @num, @first", "CALL resig_caught(@rc)", "SELECT @rc", "CALL divided(1)",
         "CALL divided(2)"]

# OKs with their warnings
ASKED = ["CALL warned_on(21, @w)", "CALL diag_bad()", "CALL named(40, @r)", "CALL unhandled_warning(2)",
         "CALL resig_warning(1)", "CALL resig_warning(2)", "CALL divided(0)"]
# errors, and what SHOW WARNINGS lists after them (each routine's note 4094 after the error)
FAILING = ["CALL raise_it(1)", "CALL resig(1)", "CALL resig(2)", "CALL resig(3)", "CALL resig(4)", "CALL resig(5)",
           "CALL resig_warning(3)", "CALL outer_call(1)", "CALL outer_call(0)"]

# what MariaDB's parser refuses at CREATE (nothing made, nothing binlogged)
BAD = [
    "CREATE PROCEDURE bad_handler() BEGIN DECLARE CONTINUE HANDLER FOR nope SET @a = 1; END",
    "CREATE PROCEDURE bad_signal() BEGIN SIGNAL nope; END",
    "CREATE PROCEDURE bad_signal_code() BEGIN DECLARE c CONDITION FOR 1062; SIGNAL c; END",
    "CREATE PROCEDURE bad_scope() BEGIN BEGIN DECLARE c CONDITION FOR 1062; END; SIGNAL c; END",
    "CREATE PROCEDURE bad_dup_cond() BEGIN DECLARE c CONDITION FOR 1062; DECLARE C CONDITION FOR 1063; END",
    "CREATE PROCEDURE bad_dup_handler() BEGIN DECLARE c CONDITION FOR 1062;"
    " DECLARE CONTINUE HANDLER FOR c, 1062 SET @a = 1; END",
    "CREATE PROCEDURE bad_var_after() BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END",
    "CREATE PROCEDURE bad_cond_after() BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING SET @a = 1;"
    " DECLARE c CONDITION FOR 1062; END",
    "CREATE PROCEDURE bad_cursor_after() BEGIN DECLARE CONTINUE HANDLER FOR SQLWARNING SET @a = 1;"
    " DECLARE c CURSOR FOR SELECT 1; END",
    "CREATE PROCEDURE bad_open() BEGIN OPEN nope; END",
    "CREATE PROCEDURE bad_fetch() BEGIN DECLARE x INT; BEGIN DECLARE c CURSOR FOR SELECT 1; END; FETCH c INTO x; END",
    "CREATE PROCEDURE bad_state() BEGIN DECLARE c CONDITION FOR SQLSTATE '00000'; END",
    "CREATE PROCEDURE bad_zero() BEGIN DECLARE c CONDITION FOR 0; END",
    # MariaDB 10.11's grammar has no UNDO handler and no GET STACKED DIAGNOSTICS
    "CREATE PROCEDURE bad_undo()\nBEGIN\n  DECLARE UNDO HANDLER FOR SQLEXCEPTION SET @a = 1;\nEND",
    "CREATE PROCEDURE bad_stacked() BEGIN DECLARE n INT; DECLARE EXIT HANDLER FOR SQLEXCEPTION"
    " GET STACKED DIAGNOSTICS CONDITION 1 n = MYSQL_ERRNO, @m = MESSAGE_TEXT, @s = RETURNED_SQLSTATE; SELECT 1; END",
    "SHOW PROCEDURE STATUS LIKE 'bad%'",
]


def test_conditions_handlers_and_diagnostics_run_log_and_replicate_as_mariadbs(tmp_path):
    compared_with_mariadb(tmp_path, PROCEDURES, CALLS, ASKED + BAD, lambda conn: [
        answer for sql in FAILING for answer in ((sql, *ok_answer(conn, sql)), ("SHOW WARNINGS", _warnings(conn)))])


def _warnings(conn) -> tuple:
    """SHOW WARNINGS' rows."""
    with conn.cursor() as cur:
        cur.execute("SHOW WARNINGS")
        return cur.fetchall()
