"""engine/: writes under a sql_mode without STRICT_TRANS_TABLES / STRICT_ALL_TABLES
(`results.write_mode`): values strict mode refuses stored adjusted, with MariaDB's warnings, the
plans of the default mode unchanged, and the statement logged with its sql_mode bits
(tests/integration/test_lax_sql_mode_mariadb.py holds them equal to MariaDB's, on its replicas too)."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.results import DIVISION_NULL, LAX_VALUES, QUIET_DIVISION, StatementContext, write_mode
from protocol.errors import SQLError
from protocol.events import SQL_MODES

STRICT = 1 << SQL_MODES.index("STRICT_TRANS_TABLES")
DIVISION = 1 << SQL_MODES.index("ERROR_FOR_DIVISION_BY_ZERO")


@pytest.fixture
async def db(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    for sql in ("CREATE DATABASE test",
                "CREATE TABLE test.t (id INT PRIMARY KEY, v VARCHAR(5), c TINYINT, n INT, d DATE, nn INT NOT NULL)"):
        await session.execute(sql)
        async with engine.writer_lock:
            await engine.commit_group({"last": sql[:40]})
    session.database = "test"
    yield session
    await engine.close()


async def run(db, sql, context=None):
    """`sql` run and, when it commits, group committed (so that a read sees it)."""
    result = await db.execute(sql, context)
    if result.committed is not None:
        async with db.engine.writer_lock:
            await db.engine.commit_group({"last": sql[:40]})
    return result


async def rows(db):
    return (await db.execute("SELECT * FROM t ORDER BY id")).rows


def test_the_write_mode_of_sql_mode_bits():
    assert write_mode(None) == write_mode(STRICT | DIVISION) == 0
    assert write_mode(0) == LAX_VALUES | DIVISION_NULL | QUIET_DIVISION
    assert write_mode(DIVISION) == LAX_VALUES | DIVISION_NULL
    assert write_mode(STRICT) == DIVISION_NULL | QUIET_DIVISION


async def test_non_strict_stores_adjusted_values_with_warnings(db):
    db.follow_sql_mode(0, False)
    result = await run(db, "INSERT INTO t VALUES (1, 'abcdefgh', 1000, '12abc', '2024-02-30', 1)")
    assert result.warnings == (
        ("Warning", 1265, "Data truncated for column 'v' at row 1"),
        ("Warning", 1264, "Out of range value for column 'c' at row 1"),
        ("Warning", 1265, "Data truncated for column 'n' at row 1"),
        ("Warning", 1265, "Data truncated for column 'd' at row 1"),
    )
    assert await rows(db) == [(1, "abcde", 127, 12, "0000-00-00", 1)]
    assert result.committed.statements[0].sql_mode == 0  # (binlogged with its session's bits)
    result = await run(db, "INSERT INTO t (id, nn) VALUES (2, NULL), (3, 2)")
    assert result.warnings == (("Warning", 1048, "Column 'nn' cannot be null"),)
    result = await run(db, "INSERT INTO t (id, n) VALUES (4, 1/0)")
    assert result.warnings == (("Warning", 1364, "Field 'nn' doesn't have a default value"),)
    result = await run(db, "UPDATE t SET c = c - 300, v = CONCAT(v, 'xyz') WHERE id = 1")
    assert sorted(w[1] for w in result.warnings) == [1264, 1265]
    assert [r[:4] for r in await rows(db)] == [(1, "abcde", -128, 12), (2, None, None, None), (3, None, None, None),
                                               (4, None, None, None)]
    assert [r[5] for r in await rows(db)] == [1, 0, 2, 0]
    with pytest.raises(SQLError) as err:  # a single row's NULL stays an error, as MariaDB's
        await run(db, "INSERT INTO t (id, nn) VALUES (5, NULL)")
    assert err.value.code == 1048


async def test_the_default_sql_mode_still_refuses(db):
    db.follow_sql_mode(0, False)
    await run(db, "INSERT INTO t (id, v, nn) VALUES (1, 'abcdefgh', 1)")
    db.follow_sql_mode(STRICT | DIVISION, False)
    for sql, code in (("INSERT INTO t (id, v, nn) VALUES (2, 'abcdefgh', 1)", 1406),
                      ("INSERT INTO t (id) VALUES (2)", 1364),
                      ("INSERT INTO t (id, n, nn) VALUES (2, 1/0, 1)", 1365)):
        with pytest.raises(SQLError) as err:
            await db.execute(sql)
        assert err.value.code == code
    result = await run(db, "INSERT INTO t (id, nn) VALUES (2, 1)")
    assert result.committed.statements[0].sql_mode == STRICT | DIVISION  # (written as the session ran it)


async def test_without_error_for_division_by_zero_a_write_stores_null(db):
    db.follow_sql_mode(STRICT, False)
    assert (await run(db, "INSERT INTO t (id, n, nn) VALUES (1, 1/0, 1)")).warnings == ()
    assert (await db.execute("SELECT 1/0")).warnings == ()
    db.follow_sql_mode(DIVISION, False)
    assert (await run(db, "INSERT INTO t (id, n, nn) VALUES (2, 1/0, 1)")).warnings == (
        ("Warning", 1365, "Division by 0"),)
    assert [r[3] for r in await rows(db)] == [None, None]


async def test_a_replayed_statement_follows_the_masters_sql_mode(db):
    """A replica's (or recovery's) statement runs under its QUERY's sql_mode, not the session's."""
    await run(db, "INSERT INTO t (id, v, nn) VALUES (1, 'abcdefgh', 1)", StatementContext(sql_mode=0))
    with pytest.raises(SQLError) as err:
        await run(db, "INSERT INTO t (id, v, nn) VALUES (2, 'abcdefgh', 1)", StatementContext())
    assert err.value.code == 1406
    assert await rows(db) == [(1, "abcde", None, None, None, 1)]


def test_a_statement_is_binlogged_with_its_sessions_sql_mode():
    """Every QUERY carries its session's sql_mode bits, the default sql_mode's for a session that
    set none (a replica that reads 0 replays it without strict mode, another plan), as MariaDB
    writes them; the applier's reading of them gives back the strictness it ran under."""
    from engine.results import LoggedStatement
    from master.events import transaction_events
    from protocol.events import (
        DEFAULT_SQL_MODE,
        SQL_MODE_NO_AUTO_VALUE_ON_ZERO,
        decode_parts,
        encode_events,
        statement_modes,
    )

    def written(**kw):
        specs = transaction_events([LoggedStatement("d", "INSERT INTO t VALUES (1)", 1, **kw)], xid=1, thread_id=1)
        _, query = decode_parts(encode_events(specs[1:2], server_id=1, offset=4, checksum=False)[0][1], False)
        return statement_modes(query.status_vars)[1]

    assert written() == DEFAULT_SQL_MODE and write_mode(DEFAULT_SQL_MODE) == 0
    assert written(no_auto_value_on_zero=True) == DEFAULT_SQL_MODE | SQL_MODE_NO_AUTO_VALUE_ON_ZERO
    assert written(sql_mode=STRICT) == STRICT
    assert written(sql_mode=0) == 0 and write_mode(0) == LAX_VALUES | DIVISION_NULL | QUIET_DIVISION
