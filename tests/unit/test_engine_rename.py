"""RENAME TABLE's pairs one after the other (`engine.ddl.DdlParser.rename_tables`): a swap
through a temporary name, a table with CHECK constraints (made again under its new name) in a
chain, the AUTO_INCREMENT counter following its table, and a failing pair leaving every table as
it was (tests/integration/test_rename_mariadb.py compares the answers with MariaDB's)."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError


async def _run(engine: Engine, *statements: str) -> list:
    session = engine.session(1)
    session.database = "d"
    try:
        results = []
        for sql in statements:
            results.append(await session.execute(sql))
            await engine.commit_group({})
        return results
    finally:
        await session.close()


async def test_swap_and_chains(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    try:
        session = engine.session(1)
        await session.execute("CREATE DATABASE d")
        await engine.commit_group({})
        await session.close()
        await _run(engine, "CREATE TABLE a (id INT PRIMARY KEY AUTO_INCREMENT, v INT, KEY kv (v))",
                   "INSERT INTO a (v) VALUES (1), (2), (3)",
                   "CREATE TABLE b (id INT PRIMARY KEY, c INT, CONSTRAINT pos CHECK (c > 0))",
                   "INSERT INTO b VALUES (10, 5)")
        await _run(engine, "RENAME TABLE a TO tmp, b TO a, tmp TO b")
        rows = await _run(engine, "SELECT * FROM a", "SELECT * FROM b ORDER BY id", "SHOW TABLES")
        assert [r.rows for r in rows] == [[(10, 5)], [(1, 1), (2, 2), (3, 3)], [("a",), ("b",)]]
        (inserted,) = await _run(engine, "INSERT INTO b (v) VALUES (4)")
        assert inserted.last_insert_id == 4  # the counter went with its table
        with pytest.raises(SQLError) as refused:
            await _run(engine, "INSERT INTO a VALUES (11, 0)")
        assert refused.value.code == 4025  # the CHECK went with its table too
        await _run(engine, "RENAME TABLE a TO c, c TO d2, b TO a")
        rows = await _run(engine, "SHOW TABLES", "SELECT COUNT(*) FROM a", "SELECT * FROM d2")
        assert [r.rows for r in rows] == [[("a",), ("d2",)], [(4,)], [(10, 5)]]
        for sql, code in (("RENAME TABLE a TO x, nosuch TO y", 1146), ("RENAME TABLE a TO x, d2 TO x", 1050)):
            with pytest.raises(SQLError) as refused:
                await _run(engine, sql)
            assert refused.value.code == code
        (tables,) = await _run(engine, "SHOW TABLES")
        assert tables.rows == [("a",), ("d2",)]
    finally:
        await engine.close()
