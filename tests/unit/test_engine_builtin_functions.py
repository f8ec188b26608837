"""The translation of NAME_CONST, COERCIBILITY, BENCHMARK, SFORMAT, CHAR(... USING latin1) and
the percentile window functions (MEDIAN, PERCENTILE_CONT / PERCENTILE_DISC WITHIN GROUP): their
answers, and what each refuses (1235, or MariaDB's own error) rather than answer otherwise
than MariaDB would."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from tests.unit.test_engine import run


@pytest.fixture
async def session(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE d")
    session.database = "d"
    await run(engine, session, "CREATE TABLE e (id INT PRIMARY KEY, c CHAR(1), v VARCHAR(5), n INT)")
    await run(engine, session, "INSERT INTO e VALUES (1, 'a', 'x', 10), (2, 'b', 'y', 20), (3, 'a', 'z', 30),"
                               " (4, 'b', NULL, NULL)")
    yield engine, session
    await engine.close()


async def _rows(session, sql: str) -> list[tuple]:
    engine, s = session
    return [tuple(row) for row in (await run(engine, s, sql)).rows]


async def _error(session, sql: str) -> int:
    engine, s = session
    with pytest.raises(SQLError) as excinfo:
        await run(engine, s, sql)
    return excinfo.value.code


async def test_name_const_is_its_value(session):
    assert await _rows(session, "SELECT NAME_CONST('x', 5), NAME_CONST('y', -1.5), NAME_CONST('z', NULL)") == \
        [(5, "-1.5", None)]
    assert await _error(session, "SELECT NAME_CONST('x', n) FROM e") == 1210
    assert await _error(session, "SELECT NAME_CONST(1, 2)") == 1210


async def test_coercibility_from_the_expressions_form(session):
    assert await _rows(session, "SELECT COERCIBILITY('a'), COERCIBILITY(v), COERCIBILITY(n), COERCIBILITY(NULL),"
                                " COERCIBILITY(USER()), COERCIBILITY(v COLLATE utf8mb4_bin), COERCIBILITY(@u),"
                                " COERCIBILITY(2) FROM e WHERE id = 1") == [(4, 2, 5, 6, 3, 0, 2, 5)]
    assert await _error(session, "SELECT COERCIBILITY(CONCAT(v, 'a')) FROM e") == 1235


async def test_benchmark_of_an_expression_with_effects_is_refused(session):
    assert await _rows(session, "SELECT BENCHMARK(3, n + 1) FROM e WHERE id = 1") == [(0,)]
    for sql in ("SELECT BENCHMARK(3, RAND())", "SELECT BENCHMARK(3, @a := 1)", "SELECT BENCHMARK(2, SLEEP(1))"):
        assert await _error(session, sql) == 1235, sql


async def test_sformat_reads_a_decimal_as_a_double_and_refuses_what_it_does_not_write(session):
    assert await _rows(session, "SELECT SFORMAT('{}', CAST(1.50 AS DECIMAL(5,2)))") == [("1.5",)]
    assert await _error(session, "SELECT SFORMAT('{name}', 1)") == 1235


async def test_char_using_latin1_past_ascii_only_as_a_select_item(session):
    assert await _rows(session, "SELECT CHAR(233 USING latin1), CHAR(65 USING latin1) = 'A'") == [("é", 1)]
    assert await _error(session, "SELECT LENGTH(CHAR(233 USING latin1))") == 1235
    assert await _error(session, "SELECT CONCAT(CHAR(233 USING ascii), 'x')") == 1235


async def test_percentiles_over_the_whole_partition(session):
    assert await _rows(session, "SELECT id, MEDIAN(n) OVER (), PERCENTILE_CONT(0.25) WITHIN GROUP (ORDER BY n DESC)"
                                " OVER (PARTITION BY c), PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY v) OVER ()"
                                " FROM e ORDER BY id") == \
        [(k, "20.0000000000", "25.0000000000" if k % 2 else "20.0000000000", "y") for k in (1, 2, 3, 4)]
    assert await _error(session, "SELECT MEDIAN(n) OVER (ORDER BY id) FROM e") == 1064
    assert await _error(session, "SELECT MEDIAN(n) FROM e") == 1064
    assert await _error(session, "SELECT PERCENTILE_CONT(1.5) WITHIN GROUP (ORDER BY n) OVER () FROM e") == 4103
    assert await _error(session, "SELECT PERCENTILE_CONT(NULL) WITHIN GROUP (ORDER BY n) OVER () FROM e") == 4104
    assert await _error(session, "SELECT MEDIAN(v) OVER () FROM e") == 4101
    assert await _error(session, "SELECT PERCENTILE_CONT(n) WITHIN GROUP (ORDER BY n) OVER () FROM e") == 1235


async def test_timestamp_add_months_last_value_current_role(session):
    assert await _rows(session, "SELECT TIMESTAMP('2020-01-01', '10:00:00.5'), ADD_MONTHS('2020-01-31', 1),"
                                " LAST_VALUE(1, 'z'), CURRENT_ROLE()") == [("2020-01-01 10:00:00.5", "2020-02-29", "z", None)]


async def test_exp_and_pow_out_of_range_fail_and_logarithms_of_nonpositives_are_null(session):
    for sql in ("SELECT EXP(710)", "SELECT POW(2, 1024)", "SELECT POW(0, -1)", "SELECT POW(-8, 0.5)"):
        assert await _error(session, sql) == 1690, sql
    engine, s = session
    result = await run(engine, s, "SELECT LN(0), LOG(2, 8), LOG(1, 8), LOG2(8), LOG10(-1)")
    assert [tuple(row) for row in result.rows] == [(None, "3", None, "3", None)]
    assert [w[1] for w in result.warnings] == [1365, 1365, 1365]


async def test_aes_round_trip_and_sec_to_time_fraction(session):
    assert await _rows(session, "SELECT HEX(AES_ENCRYPT('a', 'k')), AES_DECRYPT(AES_ENCRYPT('abc', 'k'), 'k'),"
                                " AES_DECRYPT('x', 'k'), SEC_TO_TIME(1.5), SEC_TO_TIME(5)") == \
        [("53E61674DBCC997DD27BD802A2EB9F22", b"abc", None, "00:00:01.5", "00:00:05")]


def test_variance_inverse_leaves_the_recurrence_of_the_rows_left():
    from engine.functions import _StdDevSamp

    values = [10, 20.5, None, -3, 7]
    window = _StdDevSamp()
    for v in values:
        window.step(v)
    window.inverse(values[0])
    window.inverse(values[2])
    fresh = _StdDevSamp()
    for v in values[1:]:
        fresh.step(v)
    assert window.count == fresh.count == 3
    assert abs(window.value() - fresh.value()) < 1e-12
    window.inverse(20.5), window.inverse(-3), window.inverse(7)
    assert window.value() is None and window.count == 0


async def test_variances_over_an_ordered_or_named_window_are_refused(session):
    assert await _rows(session, "SELECT id, STD(n) OVER (PARTITION BY c) FROM e ORDER BY id") == \
        [(1, "10.0000"), (2, "0.0000"), (3, "10.0000"), (4, "0.0000")]
    for sql in ("SELECT STD(n) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM e",
                "SELECT VAR_POP(n) OVER (PARTITION BY c ORDER BY id) FROM e",
                "SELECT VARIANCE(n) OVER w FROM e WINDOW w AS (PARTITION BY c)"):
        assert await _error(session, sql) == 1235, sql
