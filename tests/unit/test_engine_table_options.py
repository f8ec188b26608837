"""engine/catalog.py `KEPT_OPTIONS`: table options that change nothing here kept in the catalog
(across a reopen), printed by SHOW CREATE TABLE and TABLES.CREATE_OPTIONS in MariaDB's order,
changed by ALTER TABLE only where it names them."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from tests.unit.test_engine import run


async def _shown(engine, session) -> tuple[str, str]:
    create = (await run(engine, session, "SHOW CREATE TABLE t")).rows[0][1]
    options = (await run(engine, session, "SELECT CREATE_OPTIONS FROM information_schema.TABLES"
                                          " WHERE TABLE_NAME = 't'")).rows[0][0]
    return create.rsplit(") ", 1)[1], options


async def test_kept_options_printed_altered_and_reopened(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE d")
    session.database = "d"
    await run(engine, session, "CREATE TABLE t (id INT PRIMARY KEY) KEY_BLOCK_SIZE=4 ROW_FORMAT=compressed"
                               " TABLE_CHECKSUM=1 CHECKSUM=0 PACK_KEYS=0 MAX_ROWS=9 MIN_ROWS=0 STATS_PERSISTENT=DEFAULT")
    assert await _shown(engine, session) == (
        "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci MAX_ROWS=9 PACK_KEYS=0 CHECKSUM=1"
        " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4",
        "max_rows=9 pack_keys=0 checksum=1 row_format=COMPRESSED key_block_size=4")
    await run(engine, session, "ALTER TABLE t PACK_KEYS=DEFAULT, ROW_FORMAT=DEFAULT STATS_SAMPLE_PAGES=3")
    await engine.close()
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    session.database = "d"
    assert await _shown(engine, session) == (
        "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci MAX_ROWS=9 STATS_SAMPLE_PAGES=3 CHECKSUM=1"
        " KEY_BLOCK_SIZE=4", "max_rows=9 stats_sample_pages=3 checksum=1 key_block_size=4")
    for sql in ("CREATE TABLE u (id INT) PACK_KEYS=abc", "CREATE TABLE u (id INT) MAX_ROWS='7'"):
        with pytest.raises(SQLError) as e:
            await run(engine, session, sql)
        assert e.value.code == 1064, sql
    await engine.close()
