"""engine/: the SQL surface tools use -- system variables in expressions (and their values in
the binlogged text), MySQL functions, named locks, FOUND_ROWS/ROW_COUNT, EXPLAIN, KILL QUERY's
interrupt, SHOW ENGINES / TABLE STATUS / FULL COLUMNS."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine import Engine, functions, strfuncs
from protocol.errors import SQLError
from protocol.messages import FieldType
from tests.unit.test_engine import run


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    yield engine
    await engine.close()


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20), n INT, KEY ix_n (n))")
    await run(engine, session, "INSERT INTO t (v, n) VALUES ('a', 1), ('b', 2), ('c', 3)")
    return session


async def one(session, sql):
    return (await session.execute(sql)).rows[0]


# --- system variables -------------------------------------------------------------------------


async def test_system_variables_anywhere_in_an_expression(engine, db):
    values = {"@@version": "10.11.99-x", "@@global.read_only": 0, "@@server_id": 2, "@@sql_mode": "A,B"}
    db.sysvar_reader = values.__getitem__
    assert await one(db, "SELECT @@version, NOW() IS NOT NULL") == ("10.11.99-x", 1)
    assert await one(db, "SELECT @@global.read_only + 0") == (0,)
    assert (await db.execute("SELECT v FROM t WHERE id = @@server_id")).rows == [("b",)]
    assert await one(db, "SELECT concat(@@sql_mode, ',C')") == ("A,B,C",)
    # a write is binlogged with the values it read, not the names (a slave has its own)
    result = await db.execute("UPDATE t SET v = concat(@@sql_mode, '@@server_id') WHERE id = @@server_id")
    [stmt] = result.committed.statements
    assert stmt.sql == "UPDATE t SET v = concat('A,B', '@@server_id') WHERE id = 2"


async def test_system_variables_without_a_reader_are_refused(engine, db):
    with pytest.raises(SQLError) as e:
        await db.execute("SELECT @@version + 1")
    assert e.value.code == 1235


# --- functions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("expr, expected", [
    ("CRC32('a')", 3904355907),
    ("HEX(255)", "FF"), ("HEX('A')", "41"), ("HEX(-1)", "FFFFFFFFFFFFFFFF"), ("UNHEX('4142')", b"AB"),
    ("UNHEX('zz')", None),
    ("TO_BASE64('a')", "YQ=="), ("FROM_BASE64('YQ==')", b"a"),
    ("CONCAT_WS(',', 'a', NULL, 'b')", "a,b"), ("LPAD('a', 3, 'x')", "xxa"), ("RPAD('a', 3, 'x')", "axx"),
    ("SUBSTRING_INDEX('a.b.c', '.', -2)", "b.c"), ("FIND_IN_SET('b', 'a,b')", 2), ("FIELD('b', 'a', 'b')", 2),
    ("ELT(2, 'a', 'b')", "b"), ("ELT(3, 'a', 'b')", None), ("INSERT('abcd', 2, 1, 'X')", "aXcd"),
    ("LOCATE('b', 'abc')", 2), ("REVERSE('abc')", "cba"),
    ("REGEXP_REPLACE('abcb', 'b', 'x')", "axcx"), ("REGEXP_SUBSTR('abc', 'b.')", "bc"),
    ("REGEXP_INSTR('abc', 'c')", 3), ("'abc' REGEXP 'B'", 1),
    ("STR_TO_DATE('02/01/2020', '%d/%m/%Y')", "2020-01-02"),
    ("STR_TO_DATE('2020-01-02 03:04:05', '%Y-%m-%d %H:%i:%s')", "2020-01-02 03:04:05"),
    ("DATE_FORMAT('2020-01-02 03:04:05', '%Y/%m/%d %H:%i')", "2020/01/02 03:04"),
    ("DATE_ADD('2020-01-31', INTERVAL 1 MONTH)", "2020-02-29"),
    ("TIMESTAMPDIFF(DAY, '2020-01-01', '2020-02-01')", 31),
    ("TIMESTAMPDIFF(MONTH, '2020-01-31', '2020-02-29')", 0),
    ("TIMESTAMPDIFF(MONTH, '2020-01-15', '2020-03-15')", 2),
    ("DATEDIFF('2020-02-01', '2020-01-01')", 31), ("LAST_DAY('2020-02-03')", "2020-02-29"),
    ("DAYOFWEEK('2020-01-01')", 4), ("WEEK('2020-01-10')", 1),
    ("CONV('ff', 16, 10)", "255"), ("CONV(255, 10, 16)", "FF"),
    ("JSON_EXTRACT('{\"a\": [1, \"x\"]}', '$.a[1]')", '"x"'), ("JSON_UNQUOTE('\"a\"')", "a"),
    # a JSON string found by JSON_EXTRACT compared with a string: by its characters (MariaDB's
    # Arg_comparator::compare_json_str), any other value by its JSON text
    ("'x' = JSON_EXTRACT('\"x\"', '$')", 1), ("JSON_EXTRACT('{\"a\": \"b\"}', '$.a') < 'c'", 1),
    ("JSON_UNQUOTE(JSON_EXTRACT('{\"c\": \"x\"}', '$.c')) = JSON_EXTRACT('\"x\"', '$')", 1),
    ("JSON_EXTRACT('{\"a\": 1}', '$.a') = '1'", 1), ("JSON_EXTRACT('[\"x\"]', '$') = '[\"x\"]'", 1),
    ("JSON_EXTRACT('\"x\"', '$') = JSON_EXTRACT('\"x\"', '$')", 0),
    ("JSON_VALID('{')", 0), ("JSON_CONTAINS('[1, 2]', '1')", 1), ("JSON_CONTAINS('{\"a\": 1}', '2', '$.a')", 0),
    # the values MariaDB 10.11 gives (tests/integration/test_functions_mariadb.py compares them live)
    ("DATE_FORMAT('2024-01-05 13:04:05', '%e %c %r %D %k %l %w %U %u %V %v %X %x %% %z')",
     "5 1 01:04:05 PM 5th 13 1 5 00 01 53 01 2023 2024 % z"),
    ("DATE_FORMAT('2024-12-30', '%U %u %V %v %X %x')", "52 53 52 01 2024 2025"),
    ("WEEK('2024-12-30', 3)", 1), ("WEEK('2021-01-01', 2)", 52), ("WEEK('2021-01-03', 7)", 52), ("WEEK('2021-01-03', 5)", 0),
    ("YEARWEEK('2021-01-01')", 202052), ("YEARWEEK('2024-12-30', 1)", 202501),
    ("DAYNAME('2024-01-05')", "Friday"), ("MONTHNAME('2024-1-5')", "January"), ("YEAR('2024/01/05')", 2024),
    ("HOUR('838:00:00')", 838), ("MINUTE('2024-1-5 1:2:3')", 2), ("TIME_TO_SEC('-01:00:30')", -3630),
    ("SEC_TO_TIME(-61)", "-00:01:01"), ("DATE_ADD('2024-1-31', INTERVAL 1 MONTH)", "2024-02-29"),
    ("CAST(1.7 AS SIGNED)", 2), ("CAST(-1.5 AS SIGNED)", -2), ("CAST('1.7' AS SIGNED)", 1),
    ("CAST(3.5e0 AS SIGNED)", 4), ("CAST(-1 AS UNSIGNED)", 18446744073709551615),
    ("CAST(18446744073709551615 AS SIGNED)", -1), ("CAST('10:11' AS TIME)", "10:11:00"),
    ("CAST('2024-1-5' AS DATE)", "2024-01-05"), ("CAST('x' AS DATE)", None), ("CAST('abcdef' AS CHAR(3))", "abc"),
    ("'3x' * 2", "6"), ("TRIM(BOTH 'ab' FROM 'ababcab')", "c"), ("TRIM(LEADING FROM '  a  ')", "a  "),
    ("1 XOR 1", 0), ("1 XOR NULL", None), ("N'nat'", "nat"), ("QUOTE('a''b')", "'a\\'b'"),
    ("SPACE(2)", "  "), ("BIN(-1)", "1" * 64), ("OCT(8)", "10"), ("BIT_COUNT(-1)", 64), ("ORD('é')", 50089),
    ("LOG(8) > 2", 1), ("7 MOD 3", 1), ("SUBSTRING('abc', 0)", ""),
    ("SUBSTRING('abc', 2, -1)", ""), ("SUBSTR('abcd' FROM 2 FOR 2)", "bc"), ("POSITION('c' IN 'abc')", 3),
    ("EXTRACT(DAY_MINUTE FROM '2024-01-05 10:11:12')", 51011), ("TIMEDIFF('10:00:00', '09:30:00')", "00:30:00"),
    ("MAKEDATE(2024, 60)", "2024-02-29"), ("TO_DAYS('2024-01-05')", 739255), ("FROM_DAYS(739255)", "2024-01-05"),
    ("PERIOD_ADD(202411, 3)", 202502), ("NULL IS UNKNOWN", 1), ("JSON_ARRAY(1, JSON_OBJECT('a', 'x'))", '[1, {"a": "x"}]'),
    ("JSON_TYPE('[1]')", "ARRAY"), ("MAKE_SET(5, 'a', 'b', 'c')", "a,c"), ("CONVERT_TZ('2024-01-05 23:00:00', '+00:00', '+02:00')",
                                                                      "2024-01-06 01:00:00"),
])
async def test_mysql_functions(engine, db, expr, expected):
    assert await one(db, f"SELECT {expr}") == (expected,)


@pytest.mark.parametrize("operator", ["->", "->>"])
async def test_mysqls_json_operators_are_mariadbs_syntax_error(engine, db, operator):
    # MariaDB 10.11 has neither (SQLite's own answered)
    with pytest.raises(SQLError) as e:
        await db.execute(f"SELECT '{{\"a\": \"x\"}}' {operator} '$.a'")
    assert e.value.code == 1064


async def test_an_unknown_function_is_1305_never_an_answer(engine, db):
    with pytest.raises(SQLError) as e:
        await db.execute("SELECT nosuchfn(1)")
    assert (e.value.code, e.value.message) == (1305, "FUNCTION test.nosuchfn does not exist")
    with pytest.raises(SQLError) as e:
        await engine.session(2).execute("SELECT nosuchfn(1)")  # no current database
    assert (e.value.code, e.value.message) == (1305, "FUNCTION nosuchfn does not exist")


async def test_bit_xor_checksum_as_pt_table_checksum_computes_it(engine, db):
    crc = await one(db, "SELECT COUNT(*) AS cnt, COALESCE(LOWER(CONV(BIT_XOR(CAST(CRC32(CONCAT_WS('#', id, "
                        "convert(v using utf8mb4), n, CONCAT(ISNULL(v), ISNULL(n)))) AS UNSIGNED)), 10, 16)), 0) FROM t")
    import zlib
    expected = 0
    for i, v in ((1, "a"), (2, "b"), (3, "c")):
        expected ^= zlib.crc32(f"{i}#{v}#{i}#00".encode())
    assert crc == (3, format(expected, "x"))


async def test_found_rows_and_row_count(engine, db):
    await db.execute("SELECT SQL_CALC_FOUND_ROWS * FROM t ORDER BY id LIMIT 1")
    assert await one(db, "SELECT FOUND_ROWS()") == (3,)
    await db.execute("SELECT * FROM t WHERE id < 3")
    assert await one(db, "SELECT FOUND_ROWS()") == (2,)
    assert await one(db, "SELECT ROW_COUNT()") == (-1,)
    await run(engine, db, "UPDATE t SET n = n + 1 WHERE id < 3")
    assert await one(db, "SELECT ROW_COUNT()") == (2,)


async def test_named_locks_are_server_wide_and_released_at_disconnect(engine, db):
    other = engine.session(2)
    assert await one(db, "SELECT GET_LOCK('L', 0), IS_USED_LOCK('L')") == (1, 1)
    start = time.monotonic()
    assert await one(other, "SELECT GET_LOCK('l', 0.2), IS_FREE_LOCK('L')") == (0, 0)
    assert time.monotonic() - start >= 0.2
    assert await one(other, "SELECT RELEASE_LOCK('L')") == (0,)  # not its own
    await db.close()
    assert await one(other, "SELECT GET_LOCK('L', 0), RELEASE_LOCK('L'), RELEASE_LOCK('L')") == (1, 1, None)


async def test_interrupt_ends_a_sleep_and_a_long_read_with_1317(engine, db):
    task = asyncio.ensure_future(db.execute("SELECT SLEEP(30)"))
    await asyncio.sleep(0.3)
    db.interrupt()
    with pytest.raises(SQLError) as e:  # MariaDB 10.11's answer (MySQL's SLEEP returns 1)
        await asyncio.wait_for(task, 10)
    assert e.value.code == 1317
    await run(engine, db, "CREATE TABLE n (i INT PRIMARY KEY)")
    await run(engine, db, "INSERT INTO n VALUES " + ",".join(f"({i})" for i in range(400)))
    task = asyncio.ensure_future(db.execute("SELECT count(*) FROM n a, n b, n c, n d"))
    await asyncio.sleep(0.5)
    db.interrupt()
    with pytest.raises(SQLError) as e:
        await asyncio.wait_for(task, 10)
    assert e.value.code == 1317
    db.clear_interrupt()  # (the session's statement boundary)
    assert await one(db, "SELECT count(*) FROM n") == (400,)  # the session goes on


async def test_an_interrupt_before_the_statement_reaches_the_engine_still_ends_it(engine, db):
    """KILL QUERY of a statement the processlist shows but whose engine work has not begun (under
    load, the loop runs the KILL between them): the read still ends with 1317 when it starts, not
    after its whole run; the interrupt holds until the session clears it at the statement's end."""
    await run(engine, db, "CREATE TABLE n (i INT PRIMARY KEY)")
    await run(engine, db, "INSERT INTO n VALUES " + ",".join(f"({i})" for i in range(400)))
    db.interrupt()
    start = time.monotonic()
    with pytest.raises(SQLError) as e:
        await asyncio.wait_for(db.execute("SELECT count(*) FROM n a, n b, n c, n d"), 30)
    assert e.value.code == 1317 and time.monotonic() - start < 10
    db.clear_interrupt()
    assert await one(db, "SELECT count(*) FROM n") == (400,)


async def test_interrupt_ends_a_wait_for_the_writer_lock(engine, db):
    holder = engine.session(2)
    holder.database = "test"
    await holder.execute("BEGIN")
    await holder.execute("INSERT INTO t (v) VALUES ('held')")
    task = asyncio.ensure_future(db.execute("INSERT INTO t (v) VALUES ('waits')"))
    await asyncio.sleep(0.3)
    db.interrupt()
    with pytest.raises(SQLError) as e:
        await asyncio.wait_for(task, 10)
    assert e.value.code == 1317
    db.clear_interrupt()
    await run(engine, holder, "COMMIT")
    await run(engine, db, "INSERT INTO t (v) VALUES ('after')")
    assert [r[0] for r in (await db.execute("SELECT v FROM t WHERE id > 3 ORDER BY id")).rows] == ["held", "after"]


# --- EXPLAIN and SHOW -------------------------------------------------------------------------


async def test_explain_in_mariadbs_shape(engine, db):
    result = await db.execute("EXPLAIN SELECT * FROM t WHERE 1=1")
    assert result.columns == ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref",
                              "rows", "Extra"]
    assert result.rows == [(1, "SIMPLE", "t", "ALL", None, None, None, None, "3", "Using where")]
    assert (await one(db, "EXPLAIN SELECT * FROM t WHERE id = 2"))[2:9] == (
        "t", "const", "PRIMARY", "PRIMARY", "4", "const", "1")  # key_len: INT NOT NULL
    assert (await one(db, "EXPLAIN SELECT * FROM test.t x WHERE n > 1 ORDER BY v"))[2:7] == (
        "x", "range", "ix_n", "ix_n", "5")  # a nullable INT
    assert (await one(db, "EXPLAIN UPDATE t SET v = 'x' WHERE n = 1"))[3:6] == ("ref", "ix_n", "ix_n")
    assert (await one(db, "EXPLAIN DELETE FROM t WHERE v = 1"))[3] == "ALL"
    assert (await one(db, "EXPLAIN DELETE FROM t"))[-1] == "Deleting all rows"
    assert (await one(db, "EXPLAIN SELECT 1"))[-1] == "No tables used"


async def test_show_engines_table_status_full_columns(engine, db):
    engines = await db.execute("SHOW ENGINES")
    assert engines.columns == ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"]
    assert [r[:2] + r[3:] for r in engines.rows] == [("InnoDB", "DEFAULT", "YES", "NO", "YES")]
    status = await db.execute("SHOW TABLE STATUS WHERE Name = 't'")
    assert len(status.columns) == 20 and status.columns[:5] == ["Name", "Engine", "Version", "Row_format", "Rows"]
    assert status.rows[0][:4] == ("t", "InnoDB", 10, "Dynamic")
    # information_schema.TABLES' numbers under the listing's names, typed as MariaDB declares them
    rows = (await db.execute("SELECT COUNT(*) FROM t")).rows[0][0]
    by_name = dict(zip(status.columns, status.rows[0], strict=True))
    assert by_name["Rows"] == rows and by_name["Data_length"] > 0 and by_name["Max_data_length"] == 0
    assert [ct.type for ct in status.column_types[4:7]] == [FieldType.LONGLONG] * 3
    assert status.column_types[11].type == FieldType.DATETIME and by_name["Create_time"] is None
    assert (await db.execute("SHOW TABLE STATUS LIKE 'nothing'")).rows == []
    assert [r[0] for r in (await db.execute("SHOW TABLE STATUS WHERE Rows >= 0 AND Name LIKE 't%'")).rows] == ["t"]
    full = await db.execute("SHOW FULL COLUMNS FROM t")
    assert full.columns == ["Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"]
    assert full.rows[1][:3] == ("v", "varchar(20)", "utf8mb4_general_ci")
    assert full.rows[0][2] is None


async def test_what_monitoring_reads_typed_as_mariadb_declares_it(engine, db):
    """INNODB_CMP's zero counters per page size up to the engine's 4 KiB pages; performance_schema
    as MariaDB's with the schema OFF: its tables, empty; mysql.user's columns typed as declared."""
    cmp = await db.execute("SELECT page_size, compress_ops FROM information_schema.INNODB_CMP")
    assert cmp.rows == [(1024, 0), (2048, 0), (4096, 0)]
    assert [ct.type for ct in cmp.column_types] == [FieldType.LONG] * 2
    assert (await db.execute("SELECT * FROM information_schema.INNODB_CMP_PER_INDEX")).rows == []
    metrics = await db.execute("SELECT COUNT(*), MAX(ENABLED), MAX(COUNT) FROM information_schema.INNODB_METRICS")
    assert metrics.rows == [(195, 0, 0)]
    named = await db.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'INNODB_METRICS'"
                             " AND COLUMN_NAME IN ('status', 'enabled')")
    assert named.rows == [("ENABLED",)]  # a column's name compared without regard to case
    digest = await db.execute("SELECT COUNT(*), SUM(COUNT_STAR) FROM performance_schema.events_statements_summary_by_digest")
    assert digest.rows == [(0, None)]
    waits = await db.execute("SELECT EVENT_NAME, COUNT_STAR FROM performance_schema.events_waits_summary_global_by_event_name")
    assert waits.rows == [] and [ct.type for ct in waits.column_types] == [FieldType.VAR_STRING, FieldType.LONGLONG]
    with pytest.raises(SQLError) as missing:
        await db.execute("SELECT * FROM performance_schema.no_such_table")
    assert missing.value.code == 1146
    user = await db.execute("SELECT max_questions, max_statement_time FROM mysql.user")  # (no server shell: no rows)
    assert user.rows == [] and [ct.type for ct in user.column_types] == [FieldType.LONGLONG, FieldType.NEWDECIMAL]


def test_uuid_short_increases():
    a, b = functions.uuid_short(), functions.uuid_short()
    assert b == a + 1


@pytest.mark.parametrize("value, shown", [
    # what MariaDB 10.11 shows for each (read from a running mariadbd)
    ("STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION,STRICT_TRANS_TABLES",
     "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
    ("no_engine_substitution,ansi_quotes", "ANSI_QUOTES,NO_ENGINE_SUBSTITUTION"),
    ("TRADITIONAL", "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                    "TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"),
    ("ANSI", "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI"),
    ("ORACLE", "PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ORACLE,NO_KEY_OPTIONS,NO_TABLE_OPTIONS,NO_FIELD_OPTIONS,"
               "NO_AUTO_CREATE_USER,SIMULTANEOUS_ASSIGNMENT"),
    ("MYSQL40", "MYSQL40,HIGH_NOT_PRECEDENCE"),
    ("STRICT_TRANS_TABLES,,NO_ZERO_DATE", "STRICT_TRANS_TABLES,NO_ZERO_DATE"),
    ("", ""),
])
def test_sql_mode_is_listed_as_mariadb_lists_it(value, shown):
    from server.core_variables import check_sql_mode
    assert check_sql_mode(value) == shown


@pytest.mark.parametrize("value, refused", [
    ("ANSI_QUOTES", "ANSI_QUOTES"), ("ANSI", "PIPES_AS_CONCAT"), ("ORACLE", "PIPES_AS_CONCAT"),
    ("MYSQL40", "HIGH_NOT_PRECEDENCE"), ("NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES", "NO_BACKSLASH_ESCAPES"),
    ("pad_char_to_full_length", "PAD_CHAR_TO_FULL_LENGTH"), ("EMPTY_STRING_IS_NULL", "EMPTY_STRING_IS_NULL"),
])
def test_a_sql_mode_the_engine_does_not_follow_is_refused(value, refused):
    """SET sql_mode of a mode that would change answers unfollowed is 1235, never accepted."""
    from server.core_variables import check_served_sql_mode
    with pytest.raises(SQLError) as error:
        check_served_sql_mode(value)
    assert error.value.code == 1235 and refused in error.value.message


def test_the_modes_the_engine_follows_or_that_change_no_answer_are_accepted():
    from server.core_variables import check_served_sql_mode
    for value in ("TRADITIONAL", "NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES", "", "ONLY_FULL_GROUP_BY"):
        assert check_served_sql_mode(value) is not None


@pytest.mark.parametrize("value", ["bogus", " strict_trans_tables "])
def test_an_unknown_sql_mode_is_refused(value):
    from server.core_variables import check_sql_mode
    with pytest.raises(ValueError):
        check_sql_mode(value)


async def test_functions_given_non_utf8_bytes_return_them_as_bytes(engine, db):
    # a client's invalid UTF-8 reaches functions as surrogates: the result is a binary string
    assert await one(db, "SELECT CONCAT(X'D0FE', 'x'), REVERSE(CONCAT('a', _binary'\udcd0'))") == (
        b"\xd0\xfex", b"\xd0a")


@pytest.mark.parametrize("expr, expected", [
    ("LPAD('a', 'x3', 'y')", ""), ("LEFT('abc', '2abc')", "ab"), ("REPEAT('ab', '2')", "abab"),
    ("REPEAT('a', 100000000000)", None), ("LPAD('a', 100000000000, 'b')", None),
    ("FROM_UNIXTIME(1e300)", None), ("DATE_ADD('2020-01-01', INTERVAL 1e15 DAY)", None),
    ("SLEEP('0.01x')", 0),
])
async def test_odd_arguments_get_mysqls_conversions_not_1105(engine, db, expr, expected):
    assert await one(db, f"SELECT {expr}") == (expected,)


async def test_uuid_in_a_write_replays_the_same_on_a_slave(engine, db):
    from engine import StatementContext
    await run(engine, db, "CREATE TABLE u (id INT PRIMARY KEY, a VARCHAR(36), b VARCHAR(36))")
    result = await db.execute("INSERT INTO u VALUES (1, UUID(), UUID())")
    [stmt] = result.committed.statements
    async with engine.writer_lock:
        await engine.commit_group({})
    assert stmt.rand_seed is not None  # binlogged as a RAND event before the statement
    a, b = await one(db, "SELECT a, b FROM u")
    assert a != b and len(a) == 36 and a[14] == "1"
    # the slave's applier: the same statement with the binlogged context, into another copy
    await run(engine, db, "CREATE TABLE u2 (id INT PRIMARY KEY, a VARCHAR(36), b VARCHAR(36))")
    replica = engine.session(9)
    replica.database = "test"
    ctx = StatementContext(timestamp=stmt.timestamp, rand_seed=stmt.rand_seed)
    await run(engine, replica, "INSERT INTO u2 VALUES (1, UUID(), UUID())", ctx)
    assert await one(db, "SELECT a, b FROM u2") == (a, b)


async def test_bit_operators_sqlite_lacks_are_mysqls_64_bit_unsigned_ones(db):
    """`^` (SQLite has no XOR) and `~` (SQLite's is signed) as MySQL's, on BIGINT UNSIGNED."""
    result = await db.execute("SELECT 5 ^ 3, ~0, ~5, -1 ^ 0, 1.6 ^ 0, NULL ^ 1, 6 ^ 3 ^ 1")
    assert [list(r) for r in result.rows] == [[6, 18446744073709551615, 18446744073709551610,
                                               18446744073709551615, 2, None, 4]]


async def test_unsigned_64_bit_values_are_read_as_numbers(db):
    """BIGINT UNSIGNED and BIT columns hold values past 2^63 as their digits (SQLite's integers
    stop there): HEX, BIN, BIT_COUNT, the bit operators, CAST AS SIGNED and comparisons read the
    number, as MariaDB does, never the digits' text or SQLite's largest integer."""
    await run(db.engine, db, "CREATE TABLE w (id INT PRIMARY KEY, u BIGINT UNSIGNED, b BIT(64), y BIT(8))")
    await run(db.engine, db, "INSERT INTO w VALUES (1, 18446744073709551615, 18446744073709551615, 255),"
                             " (2, 9223372036854775808, b'1000000000000000000000000000000000000000000000000000000000000000',"
                             " x'7F'), (3, 5, x'FFFFFFFFFFFFFFFF', 'a')")
    result = await db.execute("SELECT HEX(u), HEX(b), BIN(u), BIT_COUNT(b), u & 1, u | 1, u >> 1, u << 1, 1 << u,"
                              " b & 1, CAST(u AS SIGNED), CAST(b AS SIGNED), b + 0, HEX(y), y + 0 FROM w ORDER BY id")
    ones = "1" * 64
    # (a number past 2^63 leaves SQLite as its digits; HEX and BIN are strings)
    assert [[int(v) if isinstance(v, str) and v.isdigit() and 2 < k != 13 else v for k, v in enumerate(r)]
            for r in result.rows] == [
        ["FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF", ones, 64, 1, (1 << 64) - 1, (1 << 63) - 1, (1 << 64) - 2, 0,
         1, -1, -1, (1 << 64) - 1, "FF", 255],
        ["8000000000000000", "8000000000000000", "1" + "0" * 63, 1, 0, (1 << 63) + 1, 1 << 62, 0, 1,
         0, -(1 << 63), -(1 << 63), 1 << 63, "7F", 127],
        ["5", "FFFFFFFFFFFFFFFF", "101", 64, 1, 5, 2, 10, 32, 1, 5, -1, (1 << 64) - 1, "61", 97]]
    found = await db.execute("SELECT id FROM w WHERE b = 18446744073709551615 OR u BETWEEN 9223372036854775807"
                             " AND 9223372036854775809 ORDER BY b, id")
    assert [r[0] for r in found.rows] == [2, 1, 3]
    for sql, code in [("INSERT INTO w VALUES (4, 1, 1, 256)", 1406), ("INSERT INTO w VALUES (4, 1, 1, 'ab')", 1406),
                      ("INSERT INTO w VALUES (4, 1, 18446744073709551616, 1)", 1264),
                      ("INSERT INTO w VALUES (4, 1, x'010000000000000000', 1)", 1406)]:
        with pytest.raises(SQLError) as raised:
            await run(db.engine, db, sql)
        assert raised.value.error.code == code, sql
    await run(db.engine, db, "UPDATE w SET b = b + 1, y = y - 1 WHERE id = 2")
    assert await one(db, "SELECT b + 0, y + 0 FROM w WHERE id = 2") in [((1 << 63) + 1, 126),
                                                                       (str((1 << 63) + 1), 126)]


async def test_update_ignore_computes_on_its_tables_columns_exactly(db):
    """UPDATE IGNORE t reads t's column types as UPDATE t does (IGNORE is no table name): a
    BIGINT UNSIGNED or DECIMAL computed exactly, not as SQLite's double."""
    await run(db.engine, db, "CREATE TABLE g (id INT PRIMARY KEY, u BIGINT UNSIGNED, d DECIMAL(30,2))")
    await run(db.engine, db, "INSERT INTO g VALUES (1, 18446744073709551615, 1234567890123456789012.34)")
    await run(db.engine, db, "UPDATE IGNORE g SET u = u - 1, d = d + 0.01 WHERE id = 1")
    assert await one(db, "SELECT CAST(u AS CHAR), d FROM g") == ("18446744073709551614", "1234567890123456789012.35")


async def test_bit_operators_are_unsigned_on_signed_integers_too(db):
    """MySQL's & | << >> are over 64 bits unsigned, SQLite's signed: -1 | 0 is 2^64-1, not -1."""
    result = await db.execute("SELECT 1 << 63, -1 | 0, -1 >> 1, -1 & 5, -8 >> 1, 1 << 64, 5 & NULL")
    assert [[int(v) if isinstance(v, str) else v for v in r] for r in result.rows] == [
        [1 << 63, (1 << 64) - 1, (1 << 63) - 1, 5, ((1 << 64) - 8) >> 1, 0, None]]


@pytest.mark.parametrize("sql, code", [
    ("SELECT 1 $ 2", 1064),  # a token SQLite cannot read: a syntax error, not 1105
])
async def test_operators_sqlite_lacks_get_mysqls_errors(db, sql, code):
    with pytest.raises(SQLError) as raised:
        await db.execute(sql)
    assert raised.value.error.code == code


async def test_an_integer_overflow_is_refused_never_stored(db):
    """BIGINT arithmetic past its range fails with 1690, as mysqld's (SQLite's own would make a
    REAL), the row keeps its value."""
    await run(db.engine, db, "CREATE TABLE big (id INT PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED)")
    await run(db.engine, db, "INSERT INTO big VALUES (1, 9223372036854775807, 18446744073709551615)")
    for sql in ["UPDATE big SET b = b + 1", "UPDATE big SET b = b * 2", "UPDATE big SET u = u + 1",
                "UPDATE big SET b = -b - 2"]:
        with pytest.raises(SQLError) as raised:
            await run(db.engine, db, sql)
        assert raised.value.error.code == 1690, sql
    assert await one(db, "SELECT b, u FROM big") == (9223372036854775807, 18446744073709551615)


async def test_multi_table_delete_names_its_target_by_alias_with_or_without_star(db):
    await run(db.engine, db, "CREATE TABLE dt (id INT PRIMARY KEY)")
    await run(db.engine, db, "CREATE TABLE du (id INT PRIMARY KEY, w INT)")
    await run(db.engine, db, "INSERT INTO dt VALUES (1), (2), (3)")
    await run(db.engine, db, "INSERT INTO du VALUES (1, 10), (2, 20), (3, 30)")
    for sql in ["DELETE a.* FROM dt a JOIN du b ON a.id = b.id WHERE b.w = 10",
                "DELETE FROM a.* USING dt AS a, du AS b WHERE a.id = b.id AND b.w = 20",
                "DELETE a FROM test.dt AS a JOIN test.du AS b ON a.id = b.id WHERE b.w = 30"]:
        await run(db.engine, db, sql)
    assert await one(db, "SELECT COUNT(*) FROM dt") == (0,)


async def test_a_database_made_again_is_read_from_its_new_file(engine, db):
    """A reader attached to a database that is dropped and created again under the same name (the
    same path) reads the new file: it read on in the old, unlinked one (1146 for a table the new
    one has, or the old rows), depending on whether a read came between the DROP and the CREATE."""
    session = engine.session(2)
    for rounds in range(3):
        await run(engine, session, "DROP DATABASE IF EXISTS again")
        await run(engine, session, "CREATE DATABASE again")
        await run(engine, session, f"CREATE TABLE again.t{rounds} (id INT PRIMARY KEY)")
        await run(engine, session, f"INSERT INTO again.t{rounds} VALUES ({rounds})")
        assert (await session.execute(f"SELECT id FROM again.t{rounds}")).rows == [(rounds,)]
        assert (await db.execute(f"SELECT COUNT(*) FROM again.t{rounds}")).rows == [(1,)]


async def test_a_key_past_sqlites_rowid_is_refused_and_the_session_goes_on(engine, db):
    """An integer primary key is SQLite's rowid (signed 64 bits): a BIGINT UNSIGNED key above
    9223372036854775807 is 1235, not a datatype mismatch, and does not move the AUTO_INCREMENT
    counter (the next id came out past the rowid: an internal error that ended the connection);
    the last id handed out past the rowid is MariaDB's 167."""
    await run(engine, db, "CREATE TABLE big (id BIGINT UNSIGNED PRIMARY KEY AUTO_INCREMENT, v INT)")
    for sql in ("INSERT INTO big (id, v) VALUES (18446744073709551600, 1)",
                "INSERT INTO big (id, v) VALUES (9223372036854775808, 1)"):
        with pytest.raises(SQLError) as err:
            await db.execute(sql)
        assert err.value.code == 1235
    await run(engine, db, "INSERT INTO big (v) VALUES (2)")
    await run(engine, db, "INSERT INTO big (id, v) VALUES (9223372036854775807, 3)")
    with pytest.raises(SQLError) as err:
        await db.execute("INSERT INTO big (v) VALUES (4)")
    assert err.value.code == 167
    assert (await db.execute("SELECT id, v FROM big ORDER BY id")).rows == [(1, 2), (9223372036854775807, 3)]


async def test_a_read_only_transaction_refuses_writes_on_every_path(engine, db):
    """START TRANSACTION READ ONLY: a write is 1792 through `execute` and is declined by the
    receipt path (`write_now`), a BEGIN answered on receipt (`begin_now`) reads the access mode
    too; the next transaction writes again."""
    for begin in (lambda: db.execute("START TRANSACTION READ ONLY"),
                  lambda: _now(db.begin_now("START TRANSACTION READ ONLY"))):
        await begin()
        assert db.write_now("INSERT INTO t (v) VALUES ('ro')") is None
        with pytest.raises(SQLError) as err:
            await db.execute("INSERT INTO t (v) VALUES ('ro')")
        assert err.value.code == 1792
        await run(engine, db, "COMMIT")
        await run(engine, db, "BEGIN")
        await run(engine, db, "INSERT INTO t (v) VALUES ('rw')")
        await run(engine, db, "COMMIT")
    assert (await db.execute("SELECT COUNT(*) FROM t WHERE v = 'ro'")).rows == [(0,)]
    assert (await db.execute("SELECT COUNT(*) FROM t WHERE v = 'rw'")).rows == [(2,)]


async def _now(result):
    assert result is not None
    return result


# --- warnings and an UPDATE's counts ---------------------------------------------------------


async def test_ignore_warnings_in_row_order_and_update_counts(engine, db):
    """A statement's warnings (`Result.warnings`) as MariaDB lists them: each row IGNORE left out
    (1062 naming the key), each value it adjusted, in the rows' order; an UPDATE's info counts
    the rows it matched and changed (affected: changed, or matched with CLIENT_FOUND_ROWS); the
    notes of IF [NOT] EXISTS. tests/integration/test_ignore_mariadb.py compares them live."""
    await run(engine, db, "CREATE TABLE w (id INT PRIMARY KEY, u VARCHAR(3) UNIQUE, n TINYINT)")
    await run(engine, db, "INSERT INTO w VALUES (1, 'a', 1)")
    r = await run(engine, db, "INSERT IGNORE INTO w VALUES (2, 'abcd', 2), (1, 'b', 3), (3, 'a', 4), (4, 'd', 999)")
    assert (r.affected_rows, r.info) == (2, "Records: 4  Duplicates: 2  Warnings: 4")
    assert r.warnings == (("Warning", 1265, "Data truncated for column 'u' at row 1"),
                          ("Warning", 1062, "Duplicate entry '1' for key 'PRIMARY'"),
                          ("Warning", 1062, "Duplicate entry 'a' for key 'u'"),
                          ("Warning", 1264, "Out of range value for column 'n' at row 4"))
    r = await run(engine, db, "UPDATE w SET n = 2 WHERE id <= 2")
    assert (r.affected_rows, r.info, r.warnings) == (1, "Rows matched: 2  Changed: 1  Warnings: 0", ())
    db.found_rows = True
    r = await run(engine, db, "UPDATE w SET n = 5 WHERE id <= 2")
    assert (r.affected_rows, r.info) == (2, "Rows matched: 2  Changed: 2  Warnings: 0")
    r = await run(engine, db, "UPDATE w SET n = 5 WHERE id <= 4")
    assert (r.affected_rows, r.info) == (3, "Rows matched: 3  Changed: 1  Warnings: 0")
    r = await run(engine, db, "DROP TABLE IF EXISTS nope, w")
    assert r.warnings == (("Note", 1051, "Unknown table 'test.nope'"),)
    r = await run(engine, db, "CREATE DATABASE IF NOT EXISTS test")
    assert r.warnings == (("Note", 1007, "Can't create database 'test'; database exists"),)


async def test_div_and_mod_before_a_parenthesis_are_the_operators(engine, db):
    """`x DIV (y)` and `x MOD (y)` (were 1064: read as calls of a function DIV / MOD); MOD(x, y)
    stays the function."""
    r = await run(engine, db, "SELECT id, 10 DIV (n + 1), 10 MOD (n + 2), MOD(10, n), (n) DIV (2) FROM t ORDER BY id")
    assert r.rows == [(1, 5, 1, 0, 0), (2, 3, 2, 0, 1), (3, 2, 0, 1, 1)]


async def test_show_create_table_names_the_next_auto_increment(engine, db):
    """SHOW CREATE TABLE's AUTO_INCREMENT=n, as MariaDB's: the id the next row would get (the
    counter, ids a failed statement reserved included), left out while it is 1."""
    await run(engine, db, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE)")
    assert "AUTO_INCREMENT=" not in (await run(engine, db, "SHOW CREATE TABLE a")).rows[0][1]
    await run(engine, db, "INSERT INTO a (u) VALUES (1), (2), (3)")
    with pytest.raises(SQLError):
        await run(engine, db, "INSERT INTO a (u) VALUES (4), (1)")  # 4 and 5 reserved, then 1062
    assert ") ENGINE=InnoDB AUTO_INCREMENT=6 DEFAULT CHARSET" in (await run(engine, db, "SHOW CREATE TABLE a")).rows[0][1]
    assert "ENGINE=InnoDB AUTO_INCREMENT=4 DEFAULT" in (await run(engine, db, "SHOW CREATE TABLE t")).rows[0][1]


async def test_an_enum_or_set_read_as_a_number_is_its_members_number_or_bits(engine, db):
    await run(engine, db, "CREATE TABLE m (id INT PRIMARY KEY, e ENUM('x','y','it''s'), s SET('a','b','c'))")
    await run(engine, db, "INSERT INTO m VALUES (1, 'x', 'a'), (2, 'it''s', 'a,c'), (3, NULL, '')")
    assert (await db.execute("SELECT e + 0, s + 0, e * 2, s & 4 FROM m ORDER BY id")).rows == [
        (1, 1, 2, 0), (3, 5, 6, 4), (None, 0, None, 0)]
    assert (await db.execute("SELECT id FROM m WHERE e = 3 OR s = 1 ORDER BY id")).rows == [(1,), (2,)]
    assert (await db.execute("SELECT id FROM m WHERE e IN (1, 2) ORDER BY id")).rows == [(1,)]
    assert (await db.execute("SELECT id FROM m WHERE e ORDER BY id")).rows == [(1,), (2,)]
    assert (await db.execute("SELECT id FROM m WHERE e = 'x'")).rows == [(1,)]  # a string: its text
    assert await one(db, "SELECT SUM(e), SUM(s), MAX(e) FROM m") == ('4', '6', 'x')  # DECIMALs; MAX: by text
    assert await one(db, "SELECT CAST(e AS UNSIGNED) FROM m WHERE id = 2") == (3,)


async def test_a_scalar_subquery_of_more_than_one_row_is_1242(engine, db):
    with pytest.raises(SQLError) as err:
        await db.execute("SELECT (SELECT id FROM t WHERE n > 1)")
    assert err.value.code == 1242 and err.value.sqlstate == "21000"
    with pytest.raises(SQLError) as err:  # correlated: on the outer row where it finds two
        await db.execute("SELECT id, (SELECT v FROM t t2 WHERE t2.n >= t.n AND t2.id <> t.id) FROM t ORDER BY id")
    assert err.value.code == 1242
    assert (await db.execute("SELECT (SELECT id FROM t WHERE n > 2), (SELECT id FROM t WHERE n > 5),"
                             " (SELECT MAX(id) FROM t), (SELECT 7)")).rows == [(3, None, 3, 7)]
    assert (await db.execute("SELECT COUNT(*) FROM t, (SELECT id FROM t WHERE n < 3) AS d")).rows == [(6,)]
    assert (await db.execute("SELECT id FROM t WHERE n = (SELECT n FROM t WHERE v = 'b')")).rows == [(2,)]
    with pytest.raises(SQLError) as err:  # a write's too: nothing written
        await db.execute("UPDATE t SET v = (SELECT v FROM t t2 WHERE t2.n > 1) WHERE id = 1")
    assert err.value.code == 1242
    assert (await db.execute("SELECT v FROM t WHERE id = 1")).rows == [('a',)]


async def test_select_star_over_using_or_natural_lists_the_common_columns_once_first(engine, db):
    await run(engine, db, "CREATE TABLE p (id INT PRIMARY KEY, g INT, v INT)")
    await run(engine, db, "CREATE TABLE q (g INT, id INT, w INT)")
    await run(engine, db, "INSERT INTO p VALUES (1, 5, 10)")
    await run(engine, db, "INSERT INTO q VALUES (5, 2, 20)")
    r = await db.execute("SELECT * FROM p JOIN q USING (g)")
    assert (r.columns, r.rows) == (["g", "id", "v", "id", "w"], [(5, 1, 10, 2, 20)])
    r = await db.execute("SELECT * FROM p RIGHT JOIN q USING (g)")  # the right side leads
    assert (r.columns, r.rows) == (["g", "id", "w", "id", "v"], [(5, 2, 20, 1, 10)])
    r = await db.execute("SELECT * FROM q NATURAL LEFT JOIN p")  # g and id in q's order: no match
    assert (r.columns, r.rows) == (["g", "id", "w", "v"], [(5, 2, 20, None)])
    r = await db.execute("SELECT * FROM p, q")  # no USING: every table's columns in turn
    assert r.columns == ["id", "g", "v", "g", "id", "w"]


async def test_count_distinct_of_several_expressions_counts_rows_without_null(db):
    """COUNT(DISTINCT a, b): each distinct combination once, a row with any NULL left out,
    strings compared by the column's collation ('x' and 'X ' one value under general_ci)."""
    await run(db.engine, db, "CREATE TABLE c (id INT PRIMARY KEY, a INT, s VARCHAR(5), k VARCHAR(5) COLLATE utf8mb4_bin)")
    await run(db.engine, db, "INSERT INTO c VALUES (1, 1, 'x', 'x'), (2, 1, 'X ', 'X'), (3, NULL, 'x', 'x'),"
                             " (4, 2, NULL, 'x'), (5, 2, 'y', 'y')")
    result = await db.execute("SELECT COUNT(DISTINCT a, s), COUNT(DISTINCT a, k), COUNT(DISTINCT s, k) FROM c")
    assert result.rows == [(2, 4, 3)]
    result = await db.execute("SELECT a, COUNT(DISTINCT s, k) FROM c GROUP BY a ORDER BY a")
    assert result.rows == [(None, 1), (1, 2), (2, 1)]


async def test_sounds_like_compares_soundex_values(db):
    result = await db.execute("SELECT 'Robert' SOUNDS LIKE 'Rupert', 'a' SOUNDS LIKE 'b', NULL SOUNDS LIKE 'a',"
                              " NOT 'a' SOUNDS LIKE 'b', 'é' SOUNDS LIKE 'É'")
    assert result.rows == [(1, 0, None, 1, 1)]
    assert result.column_types[0].type == FieldType.LONG


def test_soundex_takes_every_character_from_u00c0_as_a_letter():
    """MariaDB's my_uni_isalpha: an emoji is a letter (its first), with a vowel's code."""
    assert strfuncs.soundex("😀abc") == "😀120"
