"""Temporal functions to the microsecond, as MariaDB 10.11 computes and types them, without a
server (tests/integration/test_fractional_functions_mariadb.py compares with the real one):
UNIX_TIMESTAMP / TIME_TO_SEC keep the fraction of the time they read and are DECIMALs of its
digits, FROM_UNIXTIME / SEC_TO_TIME keep the fraction of the number they read (past six digits
truncated) and take its digits, TIMESTAMP(x, t) adds a time, TIME_FORMAT keeps a negative time's
sign, DATE_FORMAT has no decimals, date
arithmetic on a string literal or character column has its or the interval's digits;
SYSDATE is the clock as the call runs, `Session.one_statement_time` LOAD DATA's one time; a
time stored cut is MariaDB's note 1265."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.catalog import Column
from engine.coltypes import declared_type, text_value
from engine.functions import (
    date_add,
    from_unixtime,
    sec_to_time,
    time_format,
    time_to_sec,
    timestamp,
    unix_timestamp,
)
from engine.translate import STORE
from engine.values import stored_literal
from protocol.messages import FieldType
from tests.unit.test_types import types_of


def test_unix_timestamp_keeps_the_times_microseconds_within_timestamps_range():
    assert unix_timestamp("2024-01-01 10:00:00.25") == 1704103200.25
    assert unix_timestamp("2024-01-01 10:00:00.1234567") == 1704103200.123456  # (truncated)
    assert unix_timestamp("2024-01-01 10:00:00") == 1704103200
    assert type(unix_timestamp("2024-01-01")) is int
    assert unix_timestamp("1960-01-01") is None and unix_timestamp("2038-01-19 03:14:08") is None
    assert unix_timestamp("1970-01-01 00:00:00") == 0 and unix_timestamp(None) is None


def test_from_unixtime_and_sec_to_time_read_the_numbers_digits_exactly():
    assert from_unixtime(1700000000.123456) == "2023-11-14 22:13:20.123456"
    assert from_unixtime(1700000000.1234567) == "2023-11-14 22:13:20.123456"
    assert from_unixtime("1700000000.5") == "2023-11-14 22:13:20.500000"
    assert from_unixtime(1700000000) == "2023-11-14 22:13:20"
    assert from_unixtime(1700000000.5, "%Y %f") == "2023 500000"
    assert from_unixtime(-1) is None and from_unixtime(1 << 31) is None
    assert sec_to_time(3661.5) == "01:01:01.500000" and sec_to_time(3661) == "01:01:01"
    assert sec_to_time(-3661.25) == "-01:01:01.250000"
    assert sec_to_time(-4000000.5) == "-838:59:59.999999"  # (the clip; the type's digits cut it)
    assert time_to_sec("10:00:00.5") == 36000.5 and time_to_sec("-01:00:00.5") == -3600.5
    assert type(time_to_sec("10:00:00")) is int
    assert timestamp("2024-01-01", "10:00:00.5") == "2024-01-01 10:00:00.500000"
    assert timestamp("2024-01-01 01:00:00", "-02:00:00") == "2023-12-31 23:00:00"
    assert timestamp("2024-01-01 01:00:00.5") == "2024-01-01 01:00:00.500000"
    assert time_format("-01:00:00.5", "%H:%i %f") == "-01:00 500000" and time_format("-00:00:01", "x%T") == "-x00:00:01"


@pytest.mark.parametrize(("expr", "code", "decimals"), [
    ("UNIX_TIMESTAMP(dt)", FieldType.NEWDECIMAL, 6), ("UNIX_TIMESTAMP(NOW(2))", FieldType.NEWDECIMAL, 2),
    ("UNIX_TIMESTAMP('2024-01-01 10:00:00.25')", FieldType.NEWDECIMAL, 2),
    ("UNIX_TIMESTAMP('2024-01-01')", FieldType.LONGLONG, 0), ("UNIX_TIMESTAMP(v)", FieldType.NEWDECIMAL, 6),
    ("UNIX_TIMESTAMP(x)", FieldType.NEWDECIMAL, 6), ("UNIX_TIMESTAMP(n)", FieldType.NEWDECIMAL, 2),
    ("UNIX_TIMESTAMP()", FieldType.LONGLONG, 0), ("UNIX_TIMESTAMP(id)", FieldType.LONGLONG, 0),
    ("TIME_TO_SEC('10:00:00.5')", FieldType.NEWDECIMAL, 1), ("TIME_TO_SEC('10:00:00')", FieldType.LONGLONG, 0),
    ("FROM_UNIXTIME(1700000000.12)", FieldType.DATETIME, 2), ("FROM_UNIXTIME(id)", FieldType.DATETIME, 0),
    ("FROM_UNIXTIME(x)", FieldType.DATETIME, 39), ("FROM_UNIXTIME(v)", FieldType.DATETIME, 39),
    ("SEC_TO_TIME(3661.5)", FieldType.TIME, 1), ("SEC_TO_TIME(x)", FieldType.TIME, 6),
    ("SEC_TO_TIME(id)", FieldType.TIME, 0),
    ("TIMESTAMP('2024-01-01', '10:00:00.5')", FieldType.DATETIME, 1),
    ("DATE_FORMAT(dt, '%f')", FieldType.VAR_STRING, 0), ("TIME_FORMAT(dt, '%f')", FieldType.VAR_STRING, 0),
    ("UNIX_TIMESTAMP('abc')", FieldType.NEWDECIMAL, 6), ("TIME('abc')", FieldType.TIME, 6),
    ("TIME('10:00')", FieldType.TIME, 0),
])
def test_fraction_digits_type_the_result_as_mariadb(expr, code, decimals):
    (ct,) = types_of(f"SELECT {expr} FROM t")
    assert (ct.type, ct.decimals) == (code, decimals)


def test_date_arithmetic_on_a_string_has_the_literals_the_columns_or_the_intervals_digits():
    assert date_add("2024-01-01 10:00:00.5", 1, "DAY", 1, 1) == "2024-01-02 10:00:00.5"
    assert date_add("2024-01-01", 1.5, "SECOND", 1, 1) == "2024-01-01 00:00:01.5"
    assert date_add("2024-01-01 10:00:00", 0, "MICROSECOND", 1, 1) == "2024-01-01 10:00:00.000000"
    assert date_add("2024-01-01", "1.5", "SECOND", 1, 1) == "2024-01-01 00:00:01.500000"
    assert date_add("2024-01-01", 1, "DAY", 1, 1) == "2024-01-02"
    assert date_add("2024-01-01 10:00:00.5", 1, "DAY", 1) == "2024-01-02 10:00:00.500000"  # (no literal)
    (char,) = types_of("SELECT DATE_ADD('2024-01-01', INTERVAL 1.50 SECOND) FROM t")
    assert (char.type, char.decimals, char.temporal_text) == (FieldType.STRING, 2, True)
    assert text_value(char, "2024-01-01 00:00:01.5") == "2024-01-01 00:00:01.50" and text_value(char, "2024-01-02") \
        == "2024-01-02"
    (dt,) = types_of("SELECT dt - INTERVAL 1.5 SECOND FROM t")  # (a DATETIME(6))
    assert (dt.type, dt.decimals) == (FieldType.DATETIME, 6)
    (d3,) = types_of("SELECT DATE_ADD(CAST(v AS DATETIME), INTERVAL 1.125 SECOND) FROM t")
    assert (d3.type, d3.decimals) == (FieldType.DATETIME, 3)
    (column,) = types_of("SELECT DATE_ADD(v, INTERVAL 1 DAY) FROM t")  # (a character column's: 6)
    assert (column.type, column.decimals) == (FieldType.STRING, 6)
    (expression,) = types_of("SELECT DATE_ADD(CONCAT(v, ''), INTERVAL 1 DAY) FROM t")  # (as a column's)
    assert (expression.type, expression.decimals, expression.temporal_text) == (FieldType.STRING, 6, True)
    assert date_add("2024-01-01 10:00:00", 1, "DAY", 1, 2) == "2024-01-02 10:00:00.000000"
    assert date_add("2024-01-01", 1, "DAY", 1, 2) == "2024-01-02"


def test_an_unfixed_fraction_is_sent_with_six_digits():
    (ct,) = types_of("SELECT FROM_UNIXTIME(x) FROM t")
    assert text_value(ct, "2023-11-14 22:13:20.125") == "2023-11-14 22:13:20.125000"
    assert text_value(declared_type("datetime", ["2"], False, False), "2024-01-01 10:00:00.5") \
        == "2024-01-01 10:00:00.50"


async def test_sysdate_is_the_clock_as_the_call_runs_a_cut_cast_notes_and_load_data_time_is_one(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    session = engine.session(1)
    try:
        session.fixed_time, session.fixed_micros = 1_000_000_000, 500_000  # SET timestamp
        result = await session.execute("SELECT SYSDATE(6) > NOW(6), NOW(6), LENGTH(SYSDATE(2)), SYSDATE() > NOW()")
        assert [tuple(row) for row in result.rows] == [(1, "2001-09-09 01:46:40.500000", 22, 1)]
        result = await session.execute("SELECT CAST('10:00:00.1234567' AS TIME(6)), CAST('10:00:00.5' AS TIME(6))")
        assert [tuple(row) for row in result.rows] == [("10:00:00.123456", "10:00:00.500000")]
        assert list(result.warnings) == [("Note", 1292, "Truncated incorrect time value: '10:00:00.1234567'")]
        with session.one_statement_time():  # SET timestamp's time stays
            assert session.fixed_time == 1_000_000_000
        session.fixed_time = None
        with session.one_statement_time():  # the clock's, read once
            first = (await session.execute("SELECT NOW(6)")).rows
            assert session.fixed_time is not None and (await session.execute("SELECT NOW(6)")).rows == first
        assert session.fixed_time is None
    finally:
        await session.close()
        await engine.close()


@pytest.mark.parametrize(("base", "args", "value", "noted"), [
    ("datetime", ["6"], "2024-01-01 10:00:00.1234567", True), ("datetime", ["3"], "2024-01-01 10:00:00.1239", False),
    ("time", ["3"], "10:00:00.12345678", True), ("timestamp", [], "2024-01-01 10:00:00.9999999", True),
    ("date", [], "2024-01-01 10:00:00", True), ("date", [], "2024-01-01 00:00:00.5", False),
    ("date", [], 20240101101010, True), ("date", [], 20240101, False), ("datetime", [], 20240101100000, False),
])
def test_a_time_stored_cut_is_noted_as_mariadb(base, args, value, noted):
    col = Column("c", base, args)
    warnings: list = []
    stored_literal((STORE, 0, False, col, 2, "`d`.`t`.`c`", False, False), [value], None, warnings)
    assert warnings == ([(2, "Note", 1265, "Data truncated for column 'c' at row 2")] if noted else [])
