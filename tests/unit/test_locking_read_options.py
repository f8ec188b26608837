"""A locking read's NOWAIT, WAIT n and SKIP LOCKED (MariaDB 10.6's; engine.translate
`lock_option`, `Session._lock_wait_of`). The engine's writer lock stands for every row: while
another session's transaction holds it, NOWAIT is 1205 at once and WAIT n 1205 after n seconds
(not lock_wait_timeout's 50), and SKIP LOCKED waits for that transaction as FOR UPDATE does,
then returns what it committed (no row another transaction holds, none skipped); with nobody
holding the lock each reads as FOR UPDATE."""

from __future__ import annotations

import asyncio
import time

import pytest

from engine import Engine
from protocol.errors import SQLError


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    for sql in ("CREATE DATABASE q", "CREATE TABLE q.t (id INT PRIMARY KEY, v INT)",
                "INSERT INTO q.t VALUES (1, 10), (2, 20)"):
        await session.execute(sql)
        async with engine.writer_lock:
            await engine.commit_group({})
    yield engine
    await engine.close()


async def writer_holding(engine: Engine):
    """A session whose open transaction wrote id 1 (it holds the writer lock)."""
    s = engine.session(2)
    await s.execute("BEGIN")
    await s.execute("UPDATE q.t SET v = 11 WHERE id = 1")
    return s


async def test_each_option_reads_as_for_update_when_nobody_holds_the_lock(engine):
    s = engine.session(3)
    for option in ("NOWAIT", "WAIT 1", "SKIP LOCKED"):
        await s.execute("BEGIN")
        res = await s.execute(f"SELECT id, v FROM q.t ORDER BY id FOR UPDATE {option}")
        assert res.rows == [(1, 10), (2, 20)] and engine.writer_lock.owner is s
        await s.execute("ROLLBACK")
    res = await s.execute("SELECT id FROM q.t WHERE id = 2 LOCK IN SHARE MODE NOWAIT")
    assert res.rows == [(2,)]


async def test_nowait_and_wait_n_fail_with_1205_while_another_transaction_holds_the_lock(engine):
    holder = await writer_holding(engine)
    s = engine.session(3)
    await s.execute("BEGIN")
    started = time.monotonic()
    with pytest.raises(SQLError) as nowait:
        await s.execute("SELECT id FROM q.t WHERE id = 2 FOR UPDATE NOWAIT")
    assert nowait.value.code == 1205 and time.monotonic() - started < 5
    started = time.monotonic()
    with pytest.raises(SQLError) as waited:
        await s.execute("SELECT id FROM q.t WHERE id = 2 FOR UPDATE WAIT 1")
    assert waited.value.code == 1205 and 0.5 < time.monotonic() - started < 20
    assert engine.writer_lock.owner is holder
    await holder.execute("ROLLBACK")
    await s.execute("ROLLBACK")


async def test_skip_locked_waits_for_the_holder_and_reads_what_it_committed(engine):
    holder = await writer_holding(engine)
    s = engine.session(3)
    await s.execute("BEGIN")
    read = asyncio.ensure_future(s.execute("SELECT id, v FROM q.t ORDER BY id FOR UPDATE SKIP LOCKED"))
    for _ in range(50):
        await asyncio.sleep(0)
    assert not read.done()
    await holder.execute("COMMIT")  # (committed logically: it reads through the writer)
    res = await asyncio.wait_for(read, 10)
    assert res.rows == [(1, 11), (2, 20)] and engine.writer_lock.owner is s
    await s.execute("ROLLBACK")
    async with engine.writer_lock:
        await engine.commit_group({})
