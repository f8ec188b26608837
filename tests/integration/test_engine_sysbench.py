"""engine/: every statement sysbench's oltp_insert, oltp_write_only and oltp_read_write send with
--db-ps-mode=disable (prepare, run, cleanup), taken from the installed Lua scripts and replayed with
the values sysbench would inline, on concurrent sessions committing through a group committer."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest

from engine import Engine

LUA = Path("/usr/share/sysbench/oltp_common.lua")
TABLES, TABLE_SIZE, THREADS, EVENTS = 2, 200, 4, 15
RANGE_SIZE = 10


def lua_statements() -> tuple[str, dict[str, str]]:
    """The CREATE TABLE template and the stmt_defs of oltp_common.lua."""
    text = LUA.read_text()
    create_match = re.search(r"query = string.format\(\[\[\n(CREATE TABLE.*?)\]\]", text, re.S)
    defs_match = re.search(r"local stmt_defs = \{(.*?)\n\}", text, re.S)
    assert create_match and defs_match, f"{LUA} no longer has the CREATE TABLE template and stmt_defs"
    create, defs_block = create_match.group(1), defs_match.group(1)
    defs = dict(re.findall(r"(\w+) = \{\s*\"([^\"]+)\"", defs_block))
    return create, defs


def sb_string(rng: random.Random, template: str) -> str:
    return "".join(rng.choice("0123456789") if ch == "#" else ch for ch in template)


C_TEMPLATE = "-".join(["###########"] * 10)
PAD_TEMPLATE = "-".join(["###########"] * 5)


def inline(template: str, table: int, *values: object) -> str:
    """sysbench's client-side prepared statement: ? -> the value as a literal."""
    sql = template.replace("%u", str(table))
    for v in values:
        literal = f"'{v}'" if isinstance(v, str) else str(v)
        sql = sql.replace("?", literal, 1)
    return sql


class GroupCommitter:
    """The master's pipeline in miniature: tickets, one commit_group per lock turn."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.issued = self.durable = self.groups = 0

    async def commit(self) -> None:
        self.issued += 1
        ticket = self.issued
        async with self.engine.writer_lock:
            if self.durable >= ticket:
                return
            covered = self.issued
            await self.engine.commit_group({"ticket": str(covered)})
            self.durable = covered
            self.groups += 1


async def execute(session, committer, sql):
    result = await session.execute(sql)
    if result.committed is not None:
        await committer.commit()
    return result


def create_table_sql(template: str, n: int) -> str:
    # oltp_common.lua's create_table() for the mysql driver, --auto-inc=on (the default)
    return template.replace("%d", str(n), 1).replace("%s", "INTEGER NOT NULL AUTO_INCREMENT", 1) \
        .replace("%s", "PRIMARY KEY", 1).replace("%s", "/*! ENGINE = innodb */", 1).replace("%s", "", 1)


async def prepare(engine, committer, create_template, rng):
    s = engine.session(100)
    await execute(s, committer, "CREATE DATABASE sbtest")
    s.database = "sbtest"
    for n in range(1, TABLES + 1):
        await execute(s, committer, create_table_sql(create_template, n))
        rows = [f"({rng.randint(1, TABLE_SIZE)}, '{sb_string(rng, C_TEMPLATE)}', '{sb_string(rng, PAD_TEMPLATE)}')"
                for _ in range(TABLE_SIZE)]
        for start in range(0, TABLE_SIZE, 75):  # the driver flushes its bulk buffer in chunks
            await execute(s, committer, f"INSERT INTO sbtest{n}(k, c, pad) VALUES" + ",".join(rows[start:start + 75]))
        await execute(s, committer, f"CREATE INDEX k_{n} ON sbtest{n}(k)")


async def oltp_event(session, committer, defs, rng, *, reads: bool):
    tnum = lambda: rng.randint(1, TABLES)  # noqa: E731
    get_id = lambda: rng.randint(1, TABLE_SIZE)  # noqa: E731
    await execute(session, committer, "BEGIN")
    if reads:
        t = tnum()
        for _ in range(10):
            r = await execute(session, committer, inline(defs["point_selects"], t, get_id()))
            assert len(r.rows) <= 1
        for key in ("simple_ranges", "sum_ranges", "order_ranges", "distinct_ranges"):
            t, i = tnum(), get_id()
            await execute(session, committer, inline(defs[key], t, i, i + RANGE_SIZE - 1))
    t = tnum()
    r = await execute(session, committer, inline(defs["index_updates"], t, get_id()))
    t = tnum()
    await execute(session, committer, inline(defs["non_index_updates"], t, sb_string(rng, C_TEMPLATE), get_id()))
    t, i, k = tnum(), get_id(), get_id()
    await execute(session, committer, inline(defs["deletes"], t, i))
    await execute(session, committer, inline(defs["inserts"], t, i, k, sb_string(rng, C_TEMPLATE),
                                             sb_string(rng, PAD_TEMPLATE)))
    r = await execute(session, committer, "COMMIT")
    assert r.committed is not None


async def oltp_insert_event(session, committer, rng):
    # oltp_insert.lua, --auto-inc=on: id 0 means "next id"
    table = f"sbtest{rng.randint(1, TABLES)}"
    r = await execute(session, committer, f"INSERT INTO {table} (id, k, c, pad) VALUES (0, {rng.randint(1, TABLE_SIZE)}, "
                                          f"'{sb_string(rng, C_TEMPLATE)}', '{sb_string(rng, PAD_TEMPLATE)}')")
    assert r.last_insert_id > TABLE_SIZE


@pytest.mark.skipif(not LUA.exists(), reason="sysbench is installed by `make test`")
@pytest.mark.parametrize("script", ["oltp_insert", "oltp_write_only", "oltp_read_write"])
async def test_sysbench_statement_set(tmp_path, script):
    create_template, defs = lua_statements()
    assert set(defs) >= {"point_selects", "simple_ranges", "sum_ranges", "order_ranges", "distinct_ranges",
                         "index_updates", "non_index_updates", "deletes", "inserts"}
    engine = await Engine.open(tmp_path / "data")
    committer = GroupCommitter(engine)
    rng = random.Random(script)
    try:
        await prepare(engine, committer, create_template, rng)

        async def thread(n):
            session = engine.session(n)
            session.database = "sbtest"
            trng = random.Random(f"{script}-{n}")
            for _ in range(EVENTS):
                if script == "oltp_insert":
                    await oltp_insert_event(session, committer, trng)
                else:
                    await oltp_event(session, committer, defs, trng, reads=script == "oltp_read_write")
            await session.close()

        await asyncio.gather(*(thread(n) for n in range(1, THREADS + 1)))
        reader = engine.session(200)
        reader.database = "sbtest"
        total = 0
        for n in range(1, TABLES + 1):
            total += (await reader.execute(f"SELECT COUNT(*) FROM sbtest{n}")).rows[0][0]
        expected = TABLES * TABLE_SIZE + (THREADS * EVENTS if script == "oltp_insert" else 0)
        assert total == expected  # delete+insert pairs keep the size; nothing pending, nothing lost
        assert committer.groups < committer.issued or committer.issued < 3  # groups did form
        cleanup = engine.session(300)
        cleanup.database = "sbtest"
        for n in range(1, TABLES + 1):
            await execute(cleanup, committer, f"DROP TABLE IF EXISTS sbtest{n}")
        assert (await cleanup.execute("SHOW TABLES")).rows == []
    finally:
        await engine.close()
