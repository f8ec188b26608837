"""engine/translate.py `query_forms`: query expressions in brackets and UNION DISTINCT read as
the query SQLite runs, the brackets of a call's argument left alone."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
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
    await run(engine, session, "CREATE TABLE t (a INT PRIMARY KEY)")
    await run(engine, session, "INSERT INTO t VALUES (1), (2), (3)")
    return session


async def rows(engine, session, sql):
    return [tuple(r) for r in (await run(engine, session, sql)).rows]


@pytest.mark.parametrize(("sql", "want"), [
    ("(SELECT 1)", [(1,)]),
    ("((SELECT a FROM t ORDER BY a DESC LIMIT 1))", [(3,)]),
    ("(SELECT a FROM t ORDER BY a DESC LIMIT 2) ORDER BY a LIMIT 1", [(2,)]),
    ("(SELECT a FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT a FROM t ORDER BY a DESC LIMIT 1) ORDER BY 1", [(1,), (3,)]),
    ("((SELECT 1) UNION (SELECT 2)) UNION ALL (SELECT 2) ORDER BY 1", [(1,), (2,), (2,)]),
    ("(SELECT 4) UNION ALL ((SELECT 1) UNION (SELECT 1)) ORDER BY 1", [(1,), (4,)]),
    ("SELECT a FROM t UNION DISTINCT SELECT 1 ORDER BY 1", [(1,), (2,), (3,)]),
    ("WITH c AS (SELECT 5 AS x) (SELECT x FROM c) UNION ALL (SELECT a FROM t ORDER BY a LIMIT 1) ORDER BY 1",
     [(1,), (5,)]),
    ("SELECT a, COALESCE((SELECT 5), 2), ((SELECT 6)) FROM t WHERE a IN ((SELECT 1) UNION (SELECT 3)) ORDER BY a",
     [(1, 5, 6), (3, 5, 6)]),
])
async def test_bracketed_queries_read_as_sqlite_runs_them(engine, db, sql, want):
    assert await rows(engine, db, sql) == want


async def test_insert_from_a_bracketed_query(engine, db):
    await run(engine, db, "INSERT INTO t (a) ((SELECT 10) UNION (SELECT 11))")
    await run(engine, db, "INSERT INTO t (SELECT 12)")
    assert await rows(engine, db, "SELECT a FROM t WHERE a > 3 ORDER BY a") == [(10,), (11,), (12,)]


@pytest.mark.parametrize(("sql", "code"), [
    ("SELECT 1 UNION (SELECT 2) FOR UPDATE", 1221),
    ("SELECT 1 EXCEPT ALL SELECT 2", 1235),
])
async def test_forms_refused(engine, db, sql, code):
    with pytest.raises(SQLError) as e:
        await run(engine, db, sql)
    assert e.value.code == code
