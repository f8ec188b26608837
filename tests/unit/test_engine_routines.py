"""engine/routines.py: stored procedures and functions kept in the catalog, their bodies cut into
steps, variables written in as NAME_CONST; the splitter keeping a body whole."""

from __future__ import annotations

import pytest

from engine import Engine, routines
from protocol.errors import SQLError
from server.sql import split_statements
from tests.unit import test_engine_views
from tests.unit.test_engine import run
from tests.unit.test_engine_triggers import error

engine = test_engine_views.engine  # (its fixture: an engine in a fresh datadir)
rows = test_engine_views.rows

PROC = ("CREATE DEFINER=app@'%' PROCEDURE p(IN x INT, OUT y VARCHAR(10)) COMMENT 'it''s' "
        "BEGIN DECLARE z INT DEFAULT 2; SET z = z + x; IF z > 3 THEN INSERT INTO t VALUES (x, z, 'a;b'); "
        "ELSE SET y = 'small'; END IF; END")


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (id INT PRIMARY KEY, a INT, s VARCHAR(10))")
    return session


async def test_kept_shown_dropped_and_kept_across_a_restart(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    db = engine.session(1)
    await run(engine, db, "CREATE DATABASE test")
    db.database = "test"
    await run(engine, db, PROC)
    await run(engine, db, "CREATE FUNCTION f(a INT) RETURNS DECIMAL(6,2) DETERMINISTIC RETURN a / 3")
    assert await error(engine, db, PROC) == 1304
    shown = (await rows(engine, db, "SHOW CREATE PROCEDURE p"))[0]
    assert shown[2] == ("CREATE DEFINER=`app`@`%` PROCEDURE `p`(IN x INT, OUT y VARCHAR(10))\n"
                        "    COMMENT 'it\\'s'\n" + PROC[PROC.index("BEGIN"):])
    assert (await rows(engine, db, "SHOW CREATE FUNCTION f"))[0][2].startswith(
        "CREATE DEFINER=`root`@`localhost` FUNCTION `f`(a INT) RETURNS decimal(6,2)\n    DETERMINISTIC\n")
    assert await rows(engine, db, "SELECT ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, DTD_IDENTIFIER FROM "
                                  "information_schema.ROUTINES ORDER BY ROUTINE_NAME") == [
        ("f", "FUNCTION", "decimal", "decimal(6,2)"), ("p", "PROCEDURE", "", None)]
    assert await rows(engine, db, "SELECT SPECIFIC_NAME, ORDINAL_POSITION, PARAMETER_MODE, PARAMETER_NAME, "
                                  "DTD_IDENTIFIER FROM information_schema.PARAMETERS") == [
        ("f", 0, None, None, "decimal(6,2)"), ("f", 1, "IN", "a", "int(11)"),
        ("p", 1, "IN", "x", "int(11)"), ("p", 2, "OUT", "y", "varchar(10)")]
    await run(engine, db, "DROP FUNCTION f")
    assert await error(engine, db, "DROP FUNCTION f") == 1305
    await engine.close()
    again = await Engine.open(tmp_path / "data")
    try:
        session = again.session(2)
        session.database = "test"
        assert (await rows(again, session, "SHOW CREATE PROCEDURE p"))[0][2] == shown[2]
        assert await rows(again, session, "SHOW PROCEDURE STATUS") != []
        assert await rows(again, session, "SHOW FUNCTION STATUS") == []
    finally:
        await again.close()


def test_body_steps_and_bound_variables():
    steps = routines.body_steps(PROC[PROC.index("BEGIN"):])
    assert [s.kind for s in steps] == ["declare", "set", "if"]
    assert (steps[0].names, steps[0].type, steps[0].default) == (["z"], "INT", "2")
    assert steps[1].assignments == [("z", "z + x")]
    (condition, then), (otherwise, other) = steps[2].branches
    assert (condition, then[0].text, otherwise, other[0].assignments) == (
        "z > 3", "INSERT INTO t VALUES (x, z, 'a;b')", None, [("y", "'small'")])
    # a name as a plain identifier is bound; a column of a table, a function and a user variable are not
    assert routines.bind("UPDATE t SET a = x WHERE t.x = x AND @x = 1 AND x(1)", {"x": "NAME_CONST('x',5)"}) == \
        "UPDATE t SET a = NAME_CONST('x',5) WHERE t.x = NAME_CONST('x',5) AND @x = 1 AND x(1)"
    # a column MariaDB's grammar names where no variable stands is not bound
    x = {"x": "X", "n": "N"}
    assert routines.bind("INSERT INTO t (x, n) VALUES (x, n + 1) ON DUPLICATE KEY UPDATE n = x, a = n", x) == \
        "INSERT INTO t (x, n) VALUES (X, N + 1) ON DUPLICATE KEY UPDATE n = X, a = N"
    assert routines.bind("UPDATE t SET x = n, a = (x = 1) WHERE n = x", x) == "UPDATE t SET x = N, a = (X = 1) WHERE N = X"
    assert routines.bind("INSERT t SET n = x", x) == "INSERT t SET n = X"
    assert routines.bind("SELECT x AS n, n = x FROM t", x) == "SELECT X AS n, N = X FROM t"
    assert routines.bind("REPLACE INTO t SELECT x, n FROM u", x) == "REPLACE INTO t SELECT X, N FROM u"
    into = routines.body_steps("BEGIN SELECT a, s INTO v, w FROM t WHERE id = (SELECT 1); SELECT 1 INTO @u; END")
    assert [(s.kind, s.text, s.names) for s in into] == [
        ("select_into", "SELECT a, s FROM t WHERE id = (SELECT 1)", ["v", "w"]), ("sql", "SELECT 1 INTO @u", [])]
    cursor, opened = routines.body_steps("BEGIN DECLARE c CURSOR (p INT, q CHAR(2)) FOR SELECT p; OPEN c(1, 'a,b'); END")
    assert (cursor.text, cursor.assignments, opened.label, opened.args) == (
        "SELECT p", [("p", "INT"), ("q", "CHAR(2)")], "c", ["1", "'a,b'"])
    # a cursor FOR loop's record's fields are bound as `record.field`
    assert routines.bind("SELECT r.a, t.r, r.a(1), x.r.a", {"r.a": "A", "r": "R"}) == "SELECT A, t.r, r.a(1), x.r.a"


def test_loops_case_and_blocks_as_steps():
    body = ("BEGIN DECLARE i INT DEFAULT 0; l: WHILE i < (SELECT CASE WHEN 1 THEN 3 END) DO SET i = i + 1;"
            " IF CASE i WHEN 2 THEN 1 END THEN ITERATE l; END IF; b: BEGIN DECLARE i INT DEFAULT 5; LEAVE L;"
            " END b; END WHILE l; REPEAT SET i = i - 1; UNTIL i <= CASE WHEN i THEN 0 END END REPEAT;"
            " CASE i WHEN 0 THEN SELECT 'zero'; WHEN 1 THEN BEGIN END; ELSE SELECT i; END CASE; END")
    declare, loop, repeat, case = routines.body_steps(body)
    assert (loop.kind, loop.label, loop.text) == ("while", "l", "i < (SELECT CASE WHEN 1 THEN 3 END)")
    assert [s.kind for s in loop.steps] == ["set", "if", "block"]
    assert loop.steps[1].branches[0][0] == "CASE i WHEN 2 THEN 1 END"
    assert [(s.kind, s.label) for s in loop.steps[1].branches[0][1] + loop.steps[2].steps] == [
        ("iterate", "l"), ("declare", ""), ("leave", "L")]
    assert (repeat.kind, repeat.text) == ("repeat", "i <= CASE WHEN i THEN 0 END")
    assert (case.kind, case.text, [when for when, _ in case.branches]) == ("case", "i", ["0", "1", None])
    cursor, handler, *rest = routines.body_steps(
        "BEGIN DECLARE c CURSOR FOR SELECT a FROM t; DECLARE EXIT HANDLER FOR SQLSTATE VALUE '02000', NOT FOUND"
        " BEGIN SELECT 1; END; OPEN c; FETCH NEXT FROM c INTO x, y; FETCH c INTO z; CLOSE c; END")
    assert (cursor.kind, cursor.names, cursor.text) == ("cursor", ["c"], "SELECT a FROM t")
    assert (handler.kind, handler.text, handler.steps[0].kind) == ("handler", "EXIT", "block")
    assert [(s.kind, s.label, s.names) for s in rest] == [
        ("open", "c", []), ("fetch", "c", ["x", "y"]), ("fetch", "c", ["z"]), ("close", "c", [])]
    # a condition's name stands for its value in handlers and SIGNAL
    _, _, handler, signal = routines.body_steps(
        "BEGIN DECLARE d CONDITION FOR 1062; DECLARE mine CONDITION FOR SQLSTATE VALUE '45001';"
        " DECLARE CONTINUE HANDLER FOR NOT FOUND, SQLEXCEPTION, SQLWARNING, d, mine, SQLSTATE '23000' SET x = 1;"
        " SIGNAL mine SET MESSAGE_TEXT = 'm'; END")
    assert handler.names == ["NOT FOUND", "SQLEXCEPTION", "SQLWARNING", "1062", "SQLSTATE 45001", "SQLSTATE 23000"]
    assert signal.text == "SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'm'"
    diagnostics = routines.body_steps("BEGIN GET DIAGNOSTICS x = NUMBER, @r = ROW_COUNT;"
                                      " GET CURRENT DIAGNOSTICS CONDITION x @e = MYSQL_ERRNO, m = MESSAGE_TEXT; END")
    assert [(s.kind, s.text, s.assignments) for s in diagnostics] == [
        ("diagnostics", "", [("x", "NUMBER"), ("@r", "ROW_COUNT")]),
        ("diagnostics", "x", [("@e", "MYSQL_ERRNO"), ("m", "MESSAGE_TEXT")])]
    ranged, cursor_loop, select_loop = routines.body_steps(
        "BEGIN l: FOR i IN REVERSE 1..n + 1 DO ITERATE l; END FOR l; FOR r IN c(1) DO SELECT r.a; END FOR;"
        " FOR q IN (SELECT '1..2' AS a) DO SELECT q.a; END FOR; END".replace("BEGIN", "BEGIN DECLARE c CURSOR (p INT)"
                                                                           " FOR SELECT p AS a;"))[1:]
    assert (ranged.kind, ranged.label, ranged.names, ranged.text, ranged.default, ranged.type) == (
        "for", "l", ["i"], "1", "n + 1", "REVERSE")
    assert (cursor_loop.kind, cursor_loop.type, cursor_loop.args) == ("for_cursor", "c", ["1"])
    assert (select_loop.kind, select_loop.type, select_loop.text) == ("for_cursor", "", "SELECT '1..2' AS a")
    _, resignal, alone = routines.body_steps("BEGIN DECLARE c CONDITION FOR SQLSTATE '45001';"
                                             " RESIGNAL c SET MYSQL_ERRNO = 5; RESIGNAL; END")
    assert (resignal.kind, resignal.text, alone.text) == ("resignal", "RESIGNAL SQLSTATE '45001' SET MYSQL_ERRNO = 5", "")
    # GET DIAGNOSTICS' string items; an UNDO handler and GET STACKED: MariaDB 10.11's 1064 at CREATE
    (diagnostics,) = routines.body_steps("BEGIN GET DIAGNOSTICS CONDITION 1 @c = CLASS_ORIGIN, @t = TABLE_NAME; END")
    assert diagnostics.assignments == [("@c", "CLASS_ORIGIN"), ("@t", "TABLE_NAME")]
    for refused, near in (("BEGIN\nDECLARE UNDO HANDLER FOR SQLWARNING SELECT 1; END", "UNDO HANDLER FOR SQLWARNING"),
                          ("BEGIN GET STACKED DIAGNOSTICS @n = NUMBER; END", "STACKED DIAGNOSTICS @n")):
        with pytest.raises(SQLError) as e:
            routines.check_body(refused, "PROCEDURE", 3)
        assert e.value.code == 1064 and f"near '{near}" in e.value.message
        assert e.value.message.endswith(f"at line {3 + refused.count(chr(10))}")


@pytest.mark.parametrize(("body", "code", "message"), [
    ("BEGIN l1: LOOP LEAVE l1; END LOOP l2; END", 1310, "End-label l2 without match"),
    ("b: BEGIN SELECT 1; END c", 1310, "End-label c without match"),
    ("BEGIN l1: LOOP l1: LOOP LEAVE l1; END LOOP; END LOOP; END", 1309, "Redefining label l1"),
    ("BEGIN LEAVE nowhere; END", 1308, "LEAVE with no matching label: nowhere"),
    ("b: BEGIN ITERATE b; END", 1308, "ITERATE with no matching label: b"),
    ("BEGIN a: BEGIN SELECT 1; END a; LEAVE a; END", 1308, "LEAVE with no matching label: a"),
    ("BEGIN l: LOOP BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION LEAVE l; END; END LOOP; END", 1308,
     "LEAVE with no matching label: l"),
    ("BEGIN SELECT 1; RETURN 1; END", 1313, "RETURN is only allowed in a FUNCTION"),
    ("BEGIN DECLARE x INT; DECLARE y, X INT; END", 1331, "Duplicate variable: X"),
    ("BEGIN WHILE 0 DO SELECT 1; END WHILE w; END", 1064, "near 'w; END' at line 1"),
    ("BEGIN c: SELECT 'a'; END", 1064, "near 'SELECT 'a'; END' at line 1"),
    ("BEGIN SELECT 1;\n DECLARE x INT; END", 1064, "near 'DECLARE x INT; END' at line 2"),
    ("BEGIN LOOP END LOOP; END", 1064, "near 'END LOOP; END' at line 1"),
    ("BEGIN DECLARE CONTINUE HANDLER FOR nope SET @a = 1; END", 1319, "Undefined CONDITION: nope"),
    ("BEGIN BEGIN DECLARE c CONDITION FOR 1062; END; SIGNAL c; END", 1319, "Undefined CONDITION: c"),
    ("BEGIN DECLARE c CONDITION FOR 1062; SIGNAL c; END", 1646,
     "SIGNAL/RESIGNAL can only use a CONDITION defined with SQLSTATE"),
    ("BEGIN DECLARE c CONDITION FOR 1062; DECLARE C CONDITION FOR 1063; END", 1332, "Duplicate condition: C"),
    ("BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE C CURSOR FOR SELECT 2; END", 1333, "Duplicate cursor: C"),
    ("BEGIN DECLARE c CONDITION FOR 1062; DECLARE EXIT HANDLER FOR c, 1062 SET @a = 1; END", 1413,
     "Duplicate handler declared in the same block"),
    ("BEGIN DECLARE c CURSOR FOR SELECT 1; DECLARE x INT; END", 1337,
     "Variable or condition declaration after cursor or handler declaration"),
    ("BEGIN DECLARE EXIT HANDLER FOR SQLWARNING SET @a = 1; DECLARE c CURSOR FOR SELECT 1; END", 1338,
     "Cursor declaration after handler declaration"),
    ("BEGIN DECLARE x INT; BEGIN DECLARE c CURSOR FOR SELECT 1; END; FETCH c INTO x; END", 1324, "Undefined CURSOR: c"),
    ("BEGIN FOR r IN nope DO SELECT 1; END FOR; END", 1327, "Undeclared variable: nope"),
    ("BEGIN DECLARE c CURSOR (p INT) FOR SELECT p; OPEN c; END", 4080, "Incorrect parameter count to cursor 'c'"),
    ("BEGIN DECLARE c CONDITION FOR SQLSTATE '00000'; END", 1407, "Bad SQLSTATE: '00000'"),
    ("BEGIN DECLARE c CONDITION FOR 0; END", 1525, "Incorrect CONDITION value: '0'"),
    ("BEGIN l: FOR i IN 1..2 DO SELECT i; END FOR m; END", 1310, "End-label m without match"),
])
def test_label_errors_at_create(body, code, message):
    with pytest.raises(SQLError) as e:
        routines.check_body(body, "PROCEDURE")
    assert (e.value.code, e.value.message if code != 1064 else e.value.message[-len(message):]) == (code, message)


async def test_name_const_of_a_string_as_mariadbs_binlog_writes_it(engine, db):
    await run(engine, db, "INSERT INTO t VALUES ( NAME_CONST('x',1), 2, "
                          "NAME_CONST('y',_utf8mb4'it\\'s' COLLATE 'utf8mb4_general_ci'))")
    assert await rows(engine, db, "SELECT * FROM t") == [(1, 2, "it's")]


def test_a_routine_body_is_one_statement():
    proc = ("CREATE DEFINER=`root`@`localhost` PROCEDURE p() BEGIN IF 1 THEN SELECT CASE WHEN 1 THEN 2 END; "
            "END IF; CASE 1 WHEN 1 THEN SELECT 1; END CASE; WHILE 0 DO SELECT 1; END WHILE; END")
    func = "CREATE FUNCTION f() RETURNS INT RETURN 1"
    assert split_statements(f"{proc}; {func}; SELECT 2") == [proc, func, "SELECT 2"]


async def test_a_function_returning_an_expression_is_called_where_an_expression_stands(engine, db):
    await run(engine, db, "CREATE FUNCTION twice(a INT) RETURNS INT DETERMINISTIC RETURN a * 2")
    await run(engine, db, "CREATE FUNCTION tag(s VARCHAR(3), n INT) RETURNS VARCHAR(10) BEGIN RETURN CONCAT(s, n); END")
    await run(engine, db, "CREATE FUNCTION t(a INT) RETURNS INT RETURN twice(twice(a))")  # (named as the table)
    await run(engine, db, "CREATE FUNCTION nope_body() RETURNS INT BEGIN DECLARE i INT DEFAULT 1; RETURN i; END")
    await run(engine, db, "INSERT INTO t (id, a, s) VALUES (1, twice(2.6), tag('ab', 1))")
    await run(engine, db, "INSERT INTO test.t(id, a) VALUES (2, test.t(1))")
    await run(engine, db, "UPDATE t SET a = twice(a) WHERE id = twice(1) - 1")
    assert await rows(engine, db, "SELECT id, a, s, twice(id) FROM t ORDER BY id") == [
        (1, 12, "ab1", 2), (2, 4, None, 4)]
    result = await run(engine, db, "SELECT twice(21), tag(NULL, 1) AS x")
    assert (result.columns, result.rows) == (["twice(21)", "x"], [(42, None)])
    assert await error(engine, db, "SELECT twice(1, 2)") == 1318
    assert await error(engine, db, "SELECT test.nope(1)") == 1305
    assert await error(engine, db, "SELECT tag('abcd', 1)") == 1406  # (strict: too long for VARCHAR(3))
    assert await error(engine, db, "SELECT nope_body()") == 1235
    await run(engine, db, "CREATE FUNCTION outer_a(x INT) RETURNS INT RETURN x + a")  # (MariaDB: 1054 at the call)
    assert await error(engine, db, "SELECT outer_a(1) FROM t") == 1235
    assert await error(engine, db, "SELECT mysql_returned(1, `int`)") == 1305  # (the expansion's own words)
    assert await rows(engine, db, "SELECT 'mysql_returned(1)'") == [("mysql_returned(1)",)]
    # the text a statement is planned from; the binlog keeps the statement as written
    assert routines.expand_calls("CREATE VIEW v AS SELECT twice(1)", lambda s, n: None, "test") == \
        "CREATE VIEW v AS SELECT twice(1)"


async def test_a_function_reading_a_table_is_called_from_its_own_database_only(engine, db):
    await run(engine, db, "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')")
    await run(engine, db, "CREATE FUNCTION total(k INT) RETURNS INT RETURN (SELECT SUM(a) FROM t WHERE id <= k)")
    await run(engine, db, "CREATE DATABASE other")
    await run(engine, db, "CREATE TABLE other.t (id INT PRIMARY KEY, a INT)")
    assert await rows(engine, db, "SELECT total(2), test.total(1)") == [(30, 10)]
    assert await error(engine, db, "SELECT total(id) FROM t") == 1235  # (id would be the subquery's)
    db.database = "other"  # (its `t` would be other.t: MariaDB reads test.t)
    assert await error(engine, db, "SELECT test.total(2)") == 1235


def test_steps_know_the_line_mariadb_names_in_note_4094():
    # a statement's line is where it ends (MariaDB numbers the instruction once it is read),
    # counted from the line the body starts on in the routine's SHOW CREATE text
    first, second, branch = routines.body_steps(
        "BEGIN\n  SELECT 1;\n  INSERT INTO t\n    VALUES (1);\n  IF 1 THEN\n    DO 2; END IF;\nEND", 2)
    assert (first.line, second.line, branch.line, branch.branches[0][1][0].line) == (3, 5, 6, 7)
    routine = routines.Routine("d", "p", "PROCEDURE", "", "BEGIN SELECT 1; END", comment="x", deterministic=True)
    assert routine.body_line() == 4  # (the head, DETERMINISTIC, COMMENT: a line each)
