"""0x.. and b'..' / 0b.. literals, MariaDB's hybrids: the lexer's `Hybrid` values and shape mark,
the translation reading each as a number or a string by its place (`Translator.read_hybrids`), the
plans kept apart by it, and the value stored into a column (`values.stored_literal`)."""

from __future__ import annotations

import pytest

from engine import Engine, values
from engine.lexer import HYBRID_MARK, Hybrid, _extract_py, extract
from protocol.errors import ER_NOT_SUPPORTED_YET, SQLError
from tests.unit.test_engine import run


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    yield engine
    await engine.close()


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    for sql in ("CREATE DATABASE test",
                "CREATE TABLE test.t (id INT PRIMARY KEY, i INT, v VARCHAR(10), b VARBINARY(10), u BIGINT UNSIGNED)"):
        await run(engine, session, sql)
    session.database = "test"
    session.run = lambda sql: run(engine, session, sql)
    return session


async def rows(session, sql):
    """The rows in the engine's text form (a DOUBLE's, a DECIMAL's as text)."""
    return (await session.run(sql)).rows


@pytest.mark.parametrize("extractor", [extract, _extract_py])
def test_hybrids_are_marked_and_x_quoted_hex_is_bytes(extractor):
    shape, params = extractor("SELECT 0x10, X'10', b'101', 0b1, B'', 'a'")
    assert shape == "SELECT ?, ?, ?, ?, ?, ?" + HYBRID_MARK
    assert params == [b"\x10", b"\x10", b"\x05", b"\x01", b"", "a"]
    assert [type(p) for p in params[:5]] == [Hybrid, bytes, Hybrid, Hybrid, Hybrid]
    assert extractor("SELECT X'10', 1") == ("SELECT ?, ?", [b"\x10", 1])


def test_a_hybrids_number_is_its_last_eight_bytes_unsigned():
    assert Hybrid(b"\x10").number == 16
    assert Hybrid(b"").number == 0
    assert Hybrid(b"\xff" * 8).number == "18446744073709551615"  # past BIGINT: its digits
    assert Hybrid(bytes(range(1, 11))).number == 0x030405060708090A


async def test_arithmetic_comparison_and_cast_read_the_number(db):
    assert await rows(db, "SELECT 0x10 + 1, -0x10, 0x10 DIV 3, 0x41 = 65, 0x10 > 9, CAST(0x10 AS SIGNED)") == [
        (17, -16, 5, 1, 1, 16)]
    assert await rows(db, "SELECT B'101' + 0, 0b101 + 1, ABS(0x10), 0x10 BETWEEN 1 AND 20, 0x10 IN (16)") == [
        (5, 6, 16, 1, 1)]


async def test_string_places_read_the_bytes(db):
    assert await rows(db, "SELECT 0x41, b'1000001', CONCAT(0x41, 1), 0x41 = 'A', X'10' + 1") == [
        (b"A", b"A", b"A1", 1, "1")]


async def test_unsigned_arithmetic_is_checked_as_bigint_unsigned(db):
    assert await rows(db, "SELECT 0x7FFFFFFFFFFFFFFF + 1") == [(9223372036854775808,)]
    with pytest.raises(SQLError) as excinfo:
        await db.execute("SELECT 0x10 - 17")
    assert "BIGINT UNSIGNED value is out of range in '0x10 - 17'" in excinfo.value.message


async def test_a_column_decides_a_comparison_and_a_stored_value(db):
    await db.run("INSERT INTO t VALUES (1, 0x10, 0x41, 0x42, 0xFFFFFFFFFFFFFFFF)")
    await db.run("INSERT INTO t (id, i, v) SELECT 2, b'11', b'1000011'")
    await db.run("UPDATE t SET i = i + 0x1 WHERE v = 0x41 AND i = 0x10")
    assert await rows(db, "SELECT id, i, v, b, u FROM t ORDER BY id") == [
        (1, 17, "A", b"B", 18446744073709551615), (2, 3, "C", None, None)]
    assert await rows(db, "SELECT id FROM t WHERE i IN (0x11, 0x3) AND u = 0xFFFFFFFFFFFFFFFF") == [(1,)]


async def test_hybrid_and_other_literals_have_plans_of_their_own(db):
    for sql, want in (("SELECT 0x10 + 1", 17), ("SELECT X'10' + 1", "1"), ("SELECT 16 + 1", 17),
                      ("SELECT 0xFFFFFFFFFFFFFFFF + 0", 18446744073709551615), ("SELECT 0x10 + 1", 17),
                      ("SELECT 16 + 1" + HYBRID_MARK, 17), ("SELECT 0x10 + 1", 17)):
        assert await rows(db, sql) == [(want,)], sql


async def test_what_is_not_told_here_is_1235(db):
    await db.run("CREATE VIEW w AS SELECT i + 1 AS a FROM t")
    for sql in ("SELECT a FROM w WHERE a = 0x11", "SELECT GREATEST(0x10, 1)",
                "SELECT 0xFFFFFFFFFFFFFFFF = 18446744073709551615"):
        with pytest.raises(SQLError) as excinfo:
            await db.execute(sql)
        assert excinfo.value.code == ER_NOT_SUPPORTED_YET.code, sql


def test_a_binary_string_read_as_a_number_is_warned_of_as_printed():
    assert values.number_warning(b"\x10", "DOUBLE") == ("Warning", 1292, "Truncated incorrect DOUBLE value: '\\x10'")
    assert values.number_warning(b"12", "DOUBLE") is None


async def test_a_string_that_is_no_number_fails_a_strict_write(db):
    with pytest.raises(SQLError) as excinfo:
        await db.run("INSERT INTO t (id, i) VALUES (3, X'20' + 1)")
    assert excinfo.value.code == 1292
    await db.run("UPDATE t SET i = 'x1' + 1")  # no row: nothing computed, nothing refused (MariaDB's)
    await db.run("INSERT IGNORE INTO t (id, i) VALUES (3, X'20' + 1)")
    assert await rows(db, "SELECT id, i FROM t") == [(3, 1)]
    with pytest.raises(SQLError) as excinfo:
        await db.run("UPDATE t SET i = 'x1' + 1")
    assert excinfo.value.code == 1292
