"""engine/: views kept in the catalog and expanded where they are read (CREATE/DROP VIEW, SELECT)."""

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


async def rows(engine, session, sql):
    return [tuple(r) for r in (await run(engine, session, sql)).rows]


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (i INT PRIMARY KEY, s VARCHAR(10))")
    await run(engine, session, "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    return session


async def test_select_from_a_view_alone_filtered_and_joined(engine, db):
    await run(engine, db, "CREATE VIEW v AS SELECT i, s FROM t WHERE i > 1 AND s <> 'zz'")
    assert await rows(engine, db, "SELECT * FROM v ORDER BY i") == [(2, "b"), (3, "c")]
    assert await rows(engine, db, "SELECT s FROM v WHERE i = 3") == [("c",)]
    assert await rows(engine, db, "SELECT t.s, w.i FROM t JOIN v AS w ON w.i = t.i ORDER BY t.i") == [
        ("b", 2), ("c", 3)]
    assert await rows(engine, db, "SELECT v.i FROM test.v WHERE v.s = 'b'") == [(2,)]


async def test_column_list_replace_and_view_of_a_view(engine, db):
    await run(engine, db, "CREATE VIEW v (x, y) AS SELECT i * 10, s FROM t")
    assert await rows(engine, db, "SELECT x FROM v WHERE y = 'a'") == [(10,)]
    await run(engine, db, "CREATE VIEW w AS SELECT x FROM v WHERE x > 15")
    assert await rows(engine, db, "SELECT x FROM w ORDER BY x") == [(20,), (30,)]
    await run(engine, db, "CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER "
                          "VIEW v (x, y) AS SELECT i * 100, s FROM t")
    assert await rows(engine, db, "SELECT x FROM w ORDER BY x") == [(100,), (200,), (300,)]  # the new v
    await run(engine, db, "ALTER VIEW w AS SELECT 7")
    assert await rows(engine, db, "SELECT * FROM w") == [(7,)]


async def test_names_clash_and_drop(engine, db):
    await run(engine, db, "CREATE VIEW v AS SELECT 1")
    for sql in ("CREATE VIEW t AS SELECT 1", "CREATE VIEW v AS SELECT 2", "CREATE TABLE v (i INT)"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert e.value.code == 1050, sql
    await run(engine, db, "CREATE VIEW w AS SELECT 2")
    with pytest.raises(SQLError) as e:
        await run(engine, db, "DROP VIEW nosuch")
    assert e.value.code == 4092 and "test.nosuch" in str(e.value)
    with pytest.raises(SQLError) as e:  # w is dropped, as MariaDB does, and only w is binlogged
        await db.execute("DROP VIEW w, nosuch")
    assert e.value.code == 4092 and [s.sql for s in e.value.committed.statements] == ["DROP VIEW `test`.`w`"]
    async with engine.writer_lock:
        await engine.commit_group({})
    await run(engine, db, "DROP VIEW IF EXISTS v, nosuch")
    for gone in ("v", "w"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, f"SELECT * FROM {gone}")
        assert e.value.code == 1146


async def test_views_survive_a_restart(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (i INT)")
    await run(engine, session, "INSERT INTO t VALUES (5)")
    await run(engine, session, "CREATE VIEW v AS SELECT i + 1 AS j FROM t WHERE i = 5")
    await engine.close()
    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        session.database = "test"
        assert await rows(engine, session, "SELECT j FROM v") == [(6,)]
    finally:
        await engine.close()


async def test_repeated_column_names_of_a_derived_table_cte_or_view_are_1060(engine, db):
    """A derived table's, a common table expression's or a view's columns are a table's: a name
    repeated (case-insensitively) is MariaDB's 1060 naming the second as written; the top-level
    SELECT may repeat one, a CTE's or view's column list renames them."""
    for sql, repeated in (("SELECT * FROM (SELECT 1 AS a, 2 AS A) d", "A"),
                          ("SELECT d.i FROM (SELECT i, s, i FROM t) d", "i"),
                          ("SELECT * FROM (SELECT *, s FROM t) d", "s"),
                          ("SELECT * FROM (SELECT COUNT(*), count(*) FROM t) d", "count(*)"),
                          ("SELECT * FROM t WHERE i IN (SELECT a FROM (SELECT 1 AS a, 2 AS a) d)", "a"),
                          ("WITH c AS (SELECT 1 AS a, 2 AS a) SELECT 1", "a"),
                          ("WITH c (x, x) AS (SELECT 1, 2) SELECT * FROM c", "x"),
                          ("CREATE VIEW w AS SELECT i, I FROM t", "I"),
                          ("CREATE VIEW w (x, x) AS SELECT 1, 2", "x")):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert (e.value.code, e.value.message) == (1060, f"Duplicate column name '{repeated}'"), sql
    assert await rows(engine, db, "SELECT 1 AS a, 2 AS a") == [(1, 2)]
    assert await rows(engine, db, "WITH c (x, y) AS (SELECT 1 AS a, 2 AS a) SELECT * FROM c") == [(1, 2)]
    assert await rows(engine, db, "SELECT * FROM (SELECT 1 AS b, 2 AS a UNION SELECT 2 AS a, 2 AS a) d") == [(1, 2), (2, 2)]
    await run(engine, db, "CREATE VIEW w (x, y) AS SELECT i, i FROM t")
    assert await rows(engine, db, "SELECT * FROM w WHERE x = 1") == [(1, 1)]
