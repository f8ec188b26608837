"""engine.session.Session.access: the tables and columns a statement's translation reads and
writes, as SQLite's authorizer reports them (the privilege check's source, server/privileges.py)."""

from __future__ import annotations

import pytest

from engine.core import Engine
from protocol.errors import SQLError


@pytest.fixture
async def session(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    s = engine.session(1)
    for sql in ["CREATE DATABASE q", "CREATE TABLE q.t (id INT PRIMARY KEY, a INT)",
                "CREATE TABLE q.u (id INT PRIMARY KEY, a INT)"]:
        result = await s.execute(sql)
        async with engine.writer_lock:
            await engine.commit_group({"n": sql})
        assert result.committed is not None
    yield s
    await engine.close()


def tables(access) -> set[tuple[str, str]]:
    return {(db, t) for db, t, _ in access.reads}


@pytest.mark.parametrize("sql", [
    "WITH a AS (SELECT 1) SELECT * FROM q.u",
    "WITH a AS (SELECT 1 AS x) SELECT * FROM q.t, q.u",
    "SELECT id FROM q.t UNION SELECT id FROM q.u",
    "SELECT * FROM q.t WHERE id IN (SELECT id FROM q.u)",
    "SELECT (SELECT MAX(a) FROM q.u)",
    "SELECT * FROM (SELECT id FROM q.u) d",
    "SELECT COUNT(*) FROM q.u",
    "SELECT 1 FROM q.t JOIN q.u ON q.t.id = q.u.id",
])
async def test_every_shape_reports_the_tables_it_reads(session, sql):
    assert ("q", "u") in tables(await session.access(sql))


async def test_writes_and_the_columns_read_of_the_target(session):
    a = await session.access("UPDATE q.t SET a = 1")
    assert a.kind == "write" and a.target == ("q", "t") and a.reads == ()
    assert ("UPDATE", "q", "t") in a.writes
    a = await session.access("UPDATE q.t SET a = 1 WHERE id = 2")
    assert ("q", "t", "id") in a.reads
    a = await session.access("INSERT INTO q.t (id, a) SELECT id, a FROM q.u")
    assert ("INSERT", "q", "t") in a.writes and tables(a) == {("q", "u")}
    a = await session.access("INSERT INTO q.t VALUES (1, 1) ON DUPLICATE KEY UPDATE a = 2")
    assert a.upsert


async def test_the_locking_flag_is_the_statements_not_the_cached_translations(session):
    # SELECT ... and SELECT ... FOR UPDATE share one translation: the cache must not mix them
    assert not (await session.access("SELECT * FROM q.t")).locking
    assert (await session.access("SELECT * FROM q.t FOR UPDATE")).locking
    assert (await session.access("SELECT * FROM q.t LOCK IN SHARE MODE")).locking
    assert not (await session.access("SELECT * FROM q.t")).locking


async def test_unplannable_statements_raise_what_running_them_would(session):
    with pytest.raises(SQLError) as err:
        await session.access("SELECT * FROM q.nosuch")
    assert err.value.code == 1146
    assert (await session.access("CREATE TABLE q.x (id INT)")).kind == "ddl"


async def test_a_string_that_is_not_utf8_is_checked_as_the_engine_runs_it(session):
    # the client's bytes arrive as surrogates: a binary string, as MariaDB reads it (no error)
    sql = b"SELECT * FROM q.t WHERE a = '\xd0'".decode("utf-8", "surrogateescape")
    assert ("q", "t") in tables(await session.access(sql))
    assert (await session.execute(sql)).rows == []


async def test_literals_stored_by_column_are_checked_as_execution_stores_them(session):
    # a number with a point is read from its text, a binary string keeps any byte
    access = await session.access("INSERT INTO q.t (id, a) VALUES (1, 2.5)")
    assert access.kind == "write"
    sql = b"INSERT INTO q.u (id, a) VALUES (2, '\xd0')".decode("utf-8", "surrogateescape")
    with pytest.raises(SQLError) as raised:  # an integer column: not a number, as execution says
        await session.access(sql)
    assert raised.value.error.code == 1366
