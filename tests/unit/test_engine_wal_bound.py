"""engine/walbound.py: the WAL's bound under overlapping REPEATABLE READ snapshots. Snapshots
that always overlap keep SQLite's WAL from restarting; past the bound new snapshots' first reads
wait for the older snapshots to end, the writer restarts the WAL, and the waiting ones take their
views then (no longer than the gate's limit). The bound and the checkpoint's period are made
small here so that a few dozen commits pass the bound."""

from __future__ import annotations

import asyncio
import struct

import pytest

import engine.core as core
import engine.walbound as walbound
from engine import Engine
from engine.connections import connect
from engine.session import REPEATABLE_READ

BOUND = 128 << 10
ROWS = 2000


@pytest.fixture
async def engine(tmp_path, monkeypatch):
    monkeypatch.setattr(walbound, "WAL_BOUND_BYTES", BOUND)
    monkeypatch.setattr(core, "CHECKPOINT_GROUPS", 2)
    engine = await Engine.open(tmp_path / "data", synchronous="NORMAL")
    setup = engine.session(99)
    await setup.execute("CREATE DATABASE d")
    setup.database = "d"
    await setup.execute("CREATE TABLE t (id INT PRIMARY KEY, c VARCHAR(200))")
    for start in range(0, ROWS, 500):
        await setup.execute("INSERT INTO t VALUES " + ", ".join(f"({i}, 'v0')" for i in range(start + 1, start + 501)))
    await commit(engine)
    yield engine
    await engine.close()


def session(engine, n, isolation=REPEATABLE_READ):
    s = engine.session(n)
    s.database = "d"
    s.isolation = isolation
    return s


async def commit(engine):
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"}, durable=False)


async def write_group(engine, writer, n):
    """One group that rewrites 100 rows (about 25 KB of WAL frames)."""
    first = n * 100 % ROWS + 1
    await writer.execute(f"UPDATE t SET c = '{(str(n) * 150)[:150]}' WHERE id BETWEEN {first} AND {first + 99}")
    await commit(engine)


def wal_path(engine):
    return engine.datadir / "d.sqlite-wal"


def wal_size(engine):
    return wal_path(engine).stat().st_size


def wal_restarts(engine):
    """The WAL header's checkpoint sequence number: one more at each restart of the WAL."""
    with open(wal_path(engine), "rb") as f:
        return struct.unpack(">I", f.read(16)[12:16])[0]


async def first_read(s, sql="SELECT c FROM t WHERE id = 1"):
    await s.execute("BEGIN")
    return (await s.execute(sql)).rows


async def test_overlapping_snapshots_under_continuous_writes_keep_the_wal_under_its_bound(engine):
    """Three sessions' snapshots overlap all the time while a writer commits 150 groups of
    about 25 KB of frames each (3.7 MB): the WAL restarts again and again and its file never
    grows much past the bound (without the gate it grows by every group)."""
    done = False
    largest = 0

    async def reader(n):
        s = session(engine, n)
        await asyncio.sleep(0.002 * n)  # (staggered: some snapshot is always open)
        while not done:
            assert (await first_read(s, "SELECT COUNT(*) FROM t"))[0][0] == ROWS
            await asyncio.sleep(0.006)
            await s.execute("SELECT c FROM t WHERE id = 7")
            await s.execute("COMMIT")

    readers = [asyncio.create_task(reader(n)) for n in range(1, 4)]
    writer = session(engine, 10)
    restarts = wal_restarts(engine)
    try:
        for n in range(150):
            await write_group(engine, writer, n)
            largest = max(largest, wal_size(engine))
            await asyncio.sleep(0.001)
    finally:
        done = True
        await asyncio.gather(*readers)
    assert largest < 4 * BOUND, largest
    assert wal_restarts(engine) - restarts >= 5
    assert engine.snapshots.closings >= 5 and engine.snapshots.expired == 0


async def test_a_long_open_snapshot_stalls_new_ones_once_for_the_limit_then_the_wal_grows_until_it_ends(
        engine, monkeypatch):
    """An idle transaction's snapshot keeps the WAL from restarting: the first new snapshot past
    the bound waits GATE_WAIT and goes on; later ones do not wait while it stays open (the WAL
    grows, as InnoDB's history under a long-open view). Once it ends, the gate closes again at
    the next new snapshot, and the WAL restarts as soon as the ones open then have ended."""
    monkeypatch.setattr(walbound, "GATE_WAIT", 0.3)
    gate = engine.snapshots
    idle, writer = session(engine, 1), session(engine, 10)
    assert await first_read(idle) == [("v0",)]
    n = 0
    while not gate.over:
        await write_group(engine, writer, n)
        n += 1
    loop = asyncio.get_running_loop()
    a, b, c = session(engine, 2), session(engine, 3), session(engine, 4)
    started = loop.time()
    await first_read(a)  # waits the limit: `idle` does not end
    waited = loop.time() - started
    assert 0.25 <= waited < 5 and (gate.closings, gate.expired) == (1, 1)
    await first_read(b)  # `idle` is a straggler now: no gate until it ends
    assert (gate.closings, gate.expired) == (1, 1)
    for _ in range(4):
        await write_group(engine, writer, n)
        n += 1
    assert gate.over
    restarts = wal_restarts(engine)
    assert (await idle.execute("SELECT c FROM t WHERE id = 1")).rows == [("v0",)]  # (its view throughout)
    await idle.execute("COMMIT")
    monkeypatch.setattr(walbound, "GATE_WAIT", 30.0)  # (from here on the gate opens by the restart only)
    waiting = asyncio.create_task(first_read(c))  # closes the gate: `a` and `b` are open
    await asyncio.sleep(0.05)
    assert not waiting.done() and gate.closings == 2
    await a.execute("COMMIT")
    await b.execute("COMMIT")
    await asyncio.wait_for(waiting, 5)
    assert gate.expired == 1 and not gate.over
    await write_group(engine, writer, n)
    assert wal_restarts(engine) == restarts + 1


async def test_the_snapshots_taken_just_before_and_just_after_the_restart_see_their_own_views(engine):
    """A snapshot taken before the gate closes keeps its view while others wait, can still
    write and commit (it waits on the writer, never on the gate); the one that waited takes its
    view after the restart: the latest commit, and not the commits after it, though the WAL
    restarts under it."""
    gate = engine.snapshots
    before, after, writer, latest = session(engine, 1), session(engine, 2), session(engine, 10), session(engine, 3)
    assert await first_read(before) == [("v0",)]
    await writer.execute("UPDATE t SET c = 'v1' WHERE id = 1")
    await commit(engine)
    n = 1
    while not gate.over:
        await write_group(engine, writer, n)
        n += 1
    restarts = wal_restarts(engine)
    await after.execute("BEGIN")
    assert gate.closings == 0
    assert after.select_now("SELECT c FROM t WHERE id = 1") is None  # (the loop's path declines at the gate)
    assert gate.closings == 1 and after._snapshot.epoch is None
    waiting = asyncio.create_task(after.execute("SELECT c FROM t WHERE id = 1"))
    await asyncio.sleep(0.05)
    assert not waiting.done()
    assert (await before.execute("SELECT c FROM t WHERE id = 1")).rows == [("v0",)]
    await write_group(engine, writer, n)  # the commits go on while it waits
    await before.execute("UPDATE t SET c = 'before' WHERE id = 2")
    await before.execute("COMMIT")
    await commit(engine)
    assert (await asyncio.wait_for(waiting, 5)).rows == [("v1",)]
    assert gate.expired == 0 and not gate.over
    await writer.execute("UPDATE t SET c = 'v2' WHERE id = 1")
    await commit(engine)
    assert wal_restarts(engine) == restarts + 1  # (the WAL restarted under `after`'s view)
    assert (await after.execute("SELECT c FROM t WHERE id IN (1, 2) ORDER BY id")).rows == [("v1",), ("before",)]
    await after.execute("COMMIT")
    assert await first_read(latest, "SELECT c FROM t WHERE id IN (1, 2) ORDER BY id") == [("v2",), ("before",)]
    await latest.execute("COMMIT")


async def test_a_snapshot_waiting_at_the_gate_can_be_cancelled(engine):
    """A first read cancelled while it waits at the gate (its client gone) is not counted: the
    gate opens once the others end, as if it had never come."""
    gate = engine.snapshots
    before, writer, gone, later = session(engine, 1), session(engine, 10), session(engine, 2), session(engine, 3)
    await first_read(before)
    n = 0
    while not gate.over:
        await write_group(engine, writer, n)
        n += 1
    waiting = asyncio.create_task(first_read(gone))
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await before.execute("COMMIT")
    await asyncio.wait_for(first_read(later), 5)
    assert gate.expired == 0 and not gate.over


async def test_a_reader_outside_the_snapshots_that_stays_in_the_wal_stalls_them_for_the_limit_then_rests(
        engine, monkeypatch):
    """A read transaction outside the snapshots (a long autocommit SELECT; here a connection
    of the test's own, in the process as the engine's are) fails every restart: new snapshots
    wait the limit once, then the gate stays open a while (GATE_WAIT after the first such limit),
    and closes again after it."""
    monkeypatch.setattr(walbound, "GATE_WAIT", 0.3)
    gate = engine.snapshots
    long_read = connect(engine.datadir / "d.sqlite", isolation_level=None, check_same_thread=False)
    try:
        writer = session(engine, 10)
        long_read.execute("BEGIN")
        assert long_read.execute("SELECT COUNT(*) FROM t").fetchone() == (ROWS,)
        n = 0
        while not gate.over:
            await write_group(engine, writer, n)
            n += 1
        a, b, c = session(engine, 1), session(engine, 2), session(engine, 3)
        await asyncio.wait_for(first_read(a), 5)  # waits the limit: the restarts fail
        assert (gate.closings, gate.expired) == (1, 1) and gate.over
        await first_read(b)  # the gate rests
        assert gate.closings == 1
        await a.execute("COMMIT")
        await b.execute("COMMIT")
        await asyncio.sleep(0.35)
        long_read.execute("COMMIT")
        await asyncio.wait_for(first_read(c), 5)  # closes it again: the restart is done now
        assert (gate.closings, gate.expired) == (2, 1) and not gate.over
    finally:
        long_read.close()
