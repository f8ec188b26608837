"""Integer overflow and DOUBLE rounding in the engine: the checked arithmetic calls
(`functions._checked`), the plans that use them (`exact.Finder.arithmetic`: only where an
operand may pass 63 bits, never an INT column's `k + 1`), 1690's printed expression with the
statement's literal texts, ROUND of a literal with an exponent, HEX of a literal past 2^63."""

from __future__ import annotations

import operator

import pytest

from engine import Engine, decimal_math, functions
from engine.lexer import extract
from protocol.errors import ER_DATA_OUT_OF_RANGE, SQLError


@pytest.fixture
async def db(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    for sql in ("CREATE DATABASE d",
                "CREATE TABLE d.t (id INT PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED, k INT, f DOUBLE)",
                "INSERT INTO d.t VALUES (1, 9223372036854775807, 18446744073709551615, 5, 2.5)"):
        await session.execute(sql)
        async with engine.writer_lock:
            await engine.commit_group({"last": sql[:40]})
    session.database = "d"
    yield engine, session
    await engine.close()


async def error_of(session, sql: str) -> SQLError:
    with pytest.raises(SQLError) as excinfo:
        await session.execute(sql)
    return excinfo.value


def test_checked_arithmetic_keeps_each_kind_in_its_range():
    add, sub = functions._checked(operator.add, "mysql_dec_add"), functions._checked(operator.sub, "mysql_dec_sub")
    assert add(9223372036854775806, 1, "ssf", "x") == 9223372036854775807
    assert add(-1, "18446744073709551615", "lud", "x") == "18446744073709551614"  # BIGINT UNSIGNED: digits
    assert sub(5, 5, "uld", "x") == 0
    assert add(2, 0.5, "lld", "x") == "2.5"  # a literal with a point: exactly
    assert add(2, 0.5, "slf", "x") == 2.5  # beside a BIGINT column: SQLite's double, as before
    assert add(None, 1, "ssf", "x") is None
    for fn, a, b, kinds, what in ((add, 9223372036854775807, 1, "ssf", "BIGINT"),
                                  (sub, 5, 6, "uld", "BIGINT UNSIGNED"),
                                  (add, "18446744073709551615", 1, "lld", "BIGINT UNSIGNED"),
                                  (add, 1e308, 1e308, "lld", "DOUBLE")):
        with pytest.raises(SQLError) as excinfo:
            fn(a, b, kinds, "a + b")
        functions.raised()  # (taken, as the statement's error mapping takes it)
        assert excinfo.value.error is ER_DATA_OUT_OF_RANGE
        assert excinfo.value.message == f"{what} value is out of range in 'a + b'"


def test_round_of_a_double_literal_is_half_to_even_and_of_a_decimal_half_away():
    assert decimal_math._round(2.5) == 2.0 and decimal_math._round(-2.5) == -2.0
    assert decimal_math._round(0.125, 2) == 0.12
    assert decimal_math._round("2.5") == "3" and decimal_math._round("-2.5") == "-3"
    assert decimal_math._negate(2.5) == -2.5 and decimal_math._negate("2.5") == "-2.5"


def test_hex_of_a_number_past_64_bits_is_the_largest():
    assert functions.hex_number("18446744073709551615") == "FFFFFFFFFFFFFFFF"
    assert functions.hex_number("18446744073709551616") == "FFFFFFFFFFFFFFFF"


async def test_overflow_fails_with_the_expression_as_mariadb_prints_it(db):
    _, session = db
    for sql, message in (
            ("SELECT b + 1 FROM t", "BIGINT value is out of range in '`d`.`t`.`b` + 1'"),
            ("SELECT (b + 1) * 2 FROM t x", "BIGINT value is out of range in '`d`.`x`.`b` + 1'"),
            ("SELECT 2 - CAST(3 AS UNSIGNED)", "BIGINT UNSIGNED value is out of range in '2 - cast(3 as unsigned)'"),
            ("SELECT ~0 + 1", "BIGINT UNSIGNED value is out of range in '~0 + 1'"),
            ("SELECT u * 2 FROM t", "BIGINT UNSIGNED value is out of range in '`d`.`t`.`u` * 2'"),
            ("SELECT -9223372036854775808 - 1", "BIGINT value is out of range in '-9223372036854775808 - 1'"),
            ("SELECT 1e308 * 10", "DOUBLE value is out of range in '1e308 * 10'")):
        error = await error_of(session, sql)
        assert (error.code, error.message) == (1690, message), sql
    r = await session.execute("SELECT b - 1, u - 1, ROUND(2.5e0), ROUND(2.5), HEX(18446744073709551615) FROM t")
    assert [tuple(map(str, row)) for row in r.rows] == [
        ("9223372036854775806", "18446744073709551614", "2", "3", "FFFFFFFFFFFFFFFF")]


async def test_only_arithmetic_that_may_pass_63_bits_is_checked(db):
    engine, _ = db

    def sql(statement: str) -> str:
        shape, params = extract(statement)
        return engine.plan_for(shape, "d", params).sql

    assert "mysql_int" not in sql("UPDATE t SET k = k + 1 WHERE id = 1")  # (the benchmarked write)
    assert "mysql_int" not in sql("SELECT k * k, k + k, f * 2 FROM t")
    assert "mysql_int_add" in sql("SELECT b + 1 FROM t") and "mysql_int_mul" in sql("SELECT k * k * k FROM t")
    assert "mysql_int_neg" in sql("SELECT -b FROM t")
