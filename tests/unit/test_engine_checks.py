"""CHECK constraints survive a restart (the catalog keeps them, SQLite's table enforces them)
and a rebuild; a write they refuse is 4025 and leaves nothing behind. CREATE TABLE ... SELECT,
in every form, is MySQL's 1235 and makes no table (its SELECT was read as table options: an
empty table was made), as is a generated column (it was 1064)."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError


async def _run(engine: Engine, *statements: str) -> list:
    session = engine.session(1)
    session.database = "d"
    results = []
    try:
        for sql in statements:
            results.append(await session.execute(sql))
            await engine.commit_group({})
    finally:
        await session.close()
    return results


async def _engine_with_d(tmp_path) -> Engine:
    engine = await Engine.open(tmp_path / "db", readers=1)
    session = engine.session(1)
    await session.execute("CREATE DATABASE d")
    await engine.commit_group({})
    await session.close()
    return engine


async def test_checks_survive_a_restart_and_a_rebuild(tmp_path):
    engine = await _engine_with_d(tmp_path)
    try:
        await _run(engine, "CREATE TABLE t (id INT PRIMARY KEY, a DECIMAL(5,2) CHECK (a > 1.5), CHECK (id < 100))",
                   "INSERT INTO t VALUES (1, 2)")
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "db", readers=1)
    try:
        with pytest.raises(SQLError) as refused:
            await _run(engine, "INSERT INTO t VALUES (2, 1.5)")
        assert (refused.value.code, refused.value.message) == (4025, "CONSTRAINT `t.a` failed for `d`.`t`")
        await _run(engine, "ALTER TABLE t ADD COLUMN b INT", "RENAME TABLE t TO t2")
        with pytest.raises(SQLError) as refused:
            await _run(engine, "INSERT INTO t2 VALUES (100, 2, 0)")
        assert refused.value.message == "CONSTRAINT `CONSTRAINT_1` failed for `d`.`t2`"
        (shown,) = await _run(engine, "SHOW CREATE TABLE t2")
        assert "`a` decimal(5,2) DEFAULT NULL CHECK (`a` > 1.5)" in shown.rows[0][1]
        assert "CONSTRAINT `CONSTRAINT_1` CHECK (`id` < 100)" in shown.rows[0][1]
        (rows,) = await _run(engine, "SELECT id, a, b FROM t2")
        assert [tuple(r) for r in rows.rows] == [(1, "2.00", None)]
    finally:
        await engine.close()


async def test_create_table_select_is_refused(tmp_path):
    engine = await _engine_with_d(tmp_path)
    try:
        for sql in ("CREATE TABLE a AS SELECT 1", "CREATE TABLE a SELECT 1", "CREATE TABLE a (x INT) SELECT 1",
                    "CREATE TABLE a (x INT) ENGINE=InnoDB AS SELECT 1", "CREATE TABLE a (SELECT 1)",
                    "CREATE TABLE a (x INT) IGNORE SELECT 1"):
            with pytest.raises(SQLError) as refused:
                await _run(engine, sql)
            assert refused.value.code == 1235, sql
        (tables,) = await _run(engine, "SHOW TABLES")
        assert tables.rows == []
    finally:
        await engine.close()
