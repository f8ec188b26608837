"""engine/: transactions, the writer lock, group commit, visibility, lock wait timeout, meta; what
INNODB_TRX lists of a transaction (`Session.open_transaction`)."""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import time

import pytest

import engine.core as engine_core
from engine import Engine
from engine.concurrency import WriterLock
from engine.connections import connect
from protocol.errors import SQLError
from tests.support.lanes import watch_lane


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    setup = engine.session(99)
    await setup.execute("CREATE DATABASE d")
    setup.database = "d"
    await setup.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "0"})
    yield engine
    await engine.close()


def session(engine, n):
    s = engine.session(n)
    s.database = "d"
    return s


async def count(s) -> int:
    return (await s.execute("SELECT COUNT(*) FROM t")).rows[0][0]


async def test_uncommitted_and_not_group_committed_writes_are_invisible_to_others(engine):
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("BEGIN")
    r = await a.execute("INSERT INTO t (v) VALUES (1)")
    assert r.committed is None and r.in_transaction
    assert await count(a) == 1  # the writer sees its own write
    assert await count(b) == 0
    r = await a.execute("COMMIT")
    assert [s.sql for s in r.committed.statements] == ["INSERT INTO t (v) VALUES (1)"]
    assert not r.in_transaction and not engine.writer_lock.locked()
    assert await count(b) == 0  # logically committed, not yet engine-committed
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert await count(b) == 1
    assert engine.meta() == {"pos": "1"}


async def test_rollback_undoes_only_its_own_transaction(engine):
    a, b, c = session(engine, 1), session(engine, 2), session(engine, 3)
    await a.execute("INSERT INTO t (v) VALUES (1)")  # autocommit: logically committed
    await b.execute("START TRANSACTION")
    await b.execute("INSERT INTO t (v) VALUES (2)")
    await b.execute("UPDATE t SET v = 100")
    await b.execute("ROLLBACK")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "2"})
    assert (await c.execute("SELECT v FROM t")).rows == [(1,)]


async def test_sessions_queue_on_the_writer_lock_in_fifo_order(engine):
    sessions = [session(engine, n) for n in range(1, 5)]
    order = []
    await sessions[0].execute("BEGIN")
    await sessions[0].execute("INSERT INTO t (v) VALUES (0)")

    async def writer(n):
        s = sessions[n]
        await s.execute("BEGIN")
        await s.execute(f"INSERT INTO t (v) VALUES ({n})")
        order.append(n)
        await s.execute("COMMIT")

    tasks = []
    for n in (1, 2, 3):
        tasks.append(asyncio.create_task(writer(n)))
        await asyncio.sleep(0.05)  # queue them in a known order
    assert order == []  # all wait for session 0
    await sessions[0].execute("COMMIT")
    await asyncio.gather(*tasks)
    assert order == [1, 2, 3]
    async with engine.writer_lock:
        await engine.commit_group({"pos": "3"})
    r = await session(engine, 9).execute("SELECT v FROM t ORDER BY id")
    assert r.rows == [(0,), (1,), (2,), (3,)]


async def test_group_commit_makes_several_transactions_visible_at_once(engine):
    reader = session(engine, 9)
    writers = [session(engine, n) for n in range(1, 4)]
    committed = []
    for n, s in enumerate(writers):
        r = await s.execute(f"INSERT INTO t (v) VALUES ({n})")
        committed.append(r.committed)
        assert await count(reader) == 0
    assert all(c is not None for c in committed)
    # the committer queues behind any waiting session, then commits them all in one SQLite COMMIT
    async with engine.writer_lock:
        await engine.commit_group({"pos": "group"})
    assert await count(reader) == 3
    assert engine.meta() == {"pos": "group"}


async def test_committer_queues_behind_waiting_sessions(engine):
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("BEGIN")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    b_task = asyncio.create_task(b.execute("INSERT INTO t (v) VALUES (2)"))
    await asyncio.sleep(0.05)
    seen = []

    async def committer():
        async with engine.writer_lock:
            seen.append(b_task.done())
            await engine.commit_group({"pos": "x"})

    c_task = asyncio.create_task(committer())
    await asyncio.sleep(0.05)
    await a.execute("COMMIT")
    await asyncio.gather(b_task, c_task)
    assert seen == [True]  # b's transaction joined the group
    assert await count(session(engine, 3)) == 2


async def test_lock_wait_timeout_is_1205(engine):
    engine.lock_wait_timeout = 0.2
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("BEGIN")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    with pytest.raises(SQLError) as e:
        await b.execute("INSERT INTO t (v) VALUES (2)")
    assert e.value.code == 1205
    assert await count(b) == 0  # b can still read
    await a.execute("COMMIT")
    await b.execute("INSERT INTO t (v) VALUES (2)")  # and write, once the lock is free
    async with engine.writer_lock:
        await engine.commit_group({})
    assert await count(b) == 2


async def test_a_timed_out_waiter_is_skipped_and_the_lock_stays_fifo():
    """WriterLock: a waiter whose deadline passed gets TimeoutError and is never handed the
    lock; the others keep their order; `try_acquire` takes only a free lock nobody waits for."""
    lock = WriterLock()
    assert lock.try_acquire("a") and not lock.try_acquire("b")
    late = asyncio.ensure_future(lock.acquire("late", timeout=0.05))
    patient = asyncio.ensure_future(lock.acquire("patient"))
    with pytest.raises(TimeoutError):
        await late
    lock.release()
    await asyncio.wait_for(patient, 2)
    assert lock.owner == "patient" and not lock.try_acquire("b")
    cancelled = asyncio.ensure_future(lock.acquire("cancelled", timeout=5))
    await asyncio.sleep(0)
    cancelled.cancel()
    lock.release()
    assert lock.owner is None and lock.try_acquire("b")


async def test_a_statements_waits_for_the_writer_lock_are_counted(engine):
    """Innodb_row_lock_*'s numbers: a session's write that waits is counted, with its time, when
    it gets the lock or gives up; a wait that is not a statement's (`enqueue` not counted) is not."""
    lock = engine.writer_lock
    holder, waiter = session(engine, 1), session(engine, 2)
    await holder.execute("BEGIN")
    await holder.execute("INSERT INTO t (v) VALUES (1)")
    blocked = asyncio.ensure_future(waiter.execute("INSERT INTO t (v) VALUES (2)"))
    for _ in range(100):
        if lock.waiting():
            break
        await asyncio.sleep(0.01)
    assert (lock.waiting(), lock.waits, lock.wait_seconds) == (1, 1, 0.0)
    internal = lock.enqueue("internal")
    await asyncio.sleep(0.05)
    await holder.execute("COMMIT")
    await asyncio.wait_for(blocked, 5)
    assert lock.waiting() == 0 and lock.waits == 1 and 0.04 < lock.wait_seconds == lock.longest_wait < 5
    lock.abandon(internal, "internal")
    assert lock.waits == 1


async def _times_out(lock: WriterLock, wait: asyncio.Future, owner: str) -> None:
    """`wait` ends in TimeoutError (within a second), and its waiter abandons it."""
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(wait, 1)
    assert not wait.cancelled()  # the lock's timeout, not wait_for's
    lock.abandon(wait, owner)


async def test_writer_lock_enqueue_without_a_task():
    """WriterLock.enqueue (a session's wait, no task): a timed-out or cancelled waiter leaves
    no trace (the free lock is taken at once after it); a waiter whose task is cancelled as
    ownership arrives passes the lock on through `abandon`."""
    lock = WriterLock()
    assert lock.try_acquire("a")
    await _times_out(lock, lock.enqueue("late", timeout=0.05), "late")
    gone = lock.enqueue("gone", timeout=5)
    gone.cancel()  # KILL QUERY
    lock.abandon(gone, "gone")
    lock.release()
    assert lock.owner is None and lock.try_acquire("b")

    async def waiter(fut):
        try:
            await fut
        except BaseException:
            lock.abandon(fut, "w")
            raise

    arrived = lock.enqueue("w", timeout=5)
    after = lock.enqueue("after")
    task = asyncio.ensure_future(waiter(arrived))
    await asyncio.sleep(0)
    lock.release()  # ownership passes to "w" ...
    task.cancel()  # ... whose task is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await task
    assert lock.owner == "after" and after.done()


def _counting_timers(monkeypatch, loop) -> list[float]:
    """The delays of every timer the loop is asked for from now on."""
    asked: list[float] = []
    call_at = loop.call_at

    def counted(when, callback, *args, **kwargs):
        asked.append(when - loop.time())
        return call_at(when, callback, *args, **kwargs)

    monkeypatch.setattr(loop, "call_at", counted)
    monkeypatch.setattr(loop, "call_later", lambda delay, cb, *a, **k: counted(loop.time() + delay, cb, *a, **k))
    return asked


async def test_many_timed_waits_on_a_contended_lock_share_one_timer(monkeypatch):
    """WriterLock: waiters with alike timeouts arm no timer of their own (the first wait's
    deadline comes before theirs), and each still gets the lock in FIFO order."""
    loop = asyncio.get_running_loop()
    asked = _counting_timers(monkeypatch, loop)
    lock = WriterLock()
    assert lock.try_acquire("holder")
    got = []
    for round_ in range(50):
        waits = [(lock.enqueue((round_, n), timeout=50), (round_, n)) for n in range(16)]
        for fut, owner in waits:
            lock.release()
            assert fut.done() and fut.exception() is None and lock.owner == owner
            got.append(owner)
    assert got == [(r, n) for r in range(50) for n in range(16)]
    assert len(asked) == 1 and 49 < asked[0] <= 50


async def test_each_timed_wait_times_out_at_its_own_deadline():
    """WriterLock: a later waiter with a shorter timeout times out first, at its deadline; a
    waiter whose deadline the timer was not armed for (the wait that armed it got the lock)
    times out at its own deadline, not at the earlier one's; neither is handed the lock."""
    loop = asyncio.get_running_loop()
    lock = WriterLock()
    assert lock.try_acquire("holder")
    start = loop.time()
    quick = lock.enqueue("quick", timeout=0.1)  # arms the timer for start + 0.1
    lock.release()  # ... and gets the lock: the timer stays armed
    assert lock.owner == "quick"
    slow = lock.enqueue("slow", timeout=0.4)
    short = lock.enqueue("short", timeout=0.2)
    timed_out = {}
    for fut, name in ((slow, "slow"), (short, "short")):
        fut.add_done_callback(lambda f, name=name: timed_out.setdefault(name, loop.time() - start))
    await asyncio.sleep(0.15)  # the timer fired at 0.1 and found no deadline passed
    assert not slow.done() and not short.done() and quick.exception() is None
    await _times_out(lock, short, "short")
    assert not slow.done()
    await _times_out(lock, slow, "slow")
    assert 0.2 <= timed_out["short"] < 0.35 and 0.4 <= timed_out["slow"] < 0.55
    lock.release()
    assert lock.owner is None and lock.try_acquire("next")


async def test_a_wait_queued_behind_expired_ones_still_times_out_and_is_woken():
    """WriterLock: after the shared timer timed some waiters out, a wait queued later gets
    a timer again (no lost timeout), and a release still hands the lock to a live waiter."""
    lock = WriterLock()
    assert lock.try_acquire("holder")
    await _times_out(lock, lock.enqueue("first", timeout=0.05), "first")
    await _times_out(lock, lock.enqueue("later", timeout=0.05), "later")
    woken = lock.enqueue("woken", timeout=0.05)
    lock.release()
    assert woken.done() and woken.exception() is None and lock.owner == "woken"
    await asyncio.sleep(0.1)  # the timer armed for `woken` fires, finds nobody
    lock.release()
    assert lock.owner is None and lock.try_acquire("next")


def test_a_lock_used_on_another_loop_times_its_waits_out_there():
    """WriterLock: the shared timer is on the loop of the waits; a lock whose timer was armed
    on a loop that is gone arms one on the loop it is used on now."""
    lock = WriterLock()
    assert lock.try_acquire("holder")

    async def gone() -> None:
        lock.enqueue("gone", timeout=0.05)  # arms the timer on this loop, which closes before it fires

    asyncio.run(gone())

    async def later() -> None:  # its deadline is after the gone timer's
        await _times_out(lock, lock.enqueue("later", timeout=0.2), "later")

    asyncio.run(later())


async def test_rollback_group_discards_logically_committed_transactions(engine):
    a = session(engine, 1)
    await a.execute("INSERT INTO t (v) VALUES (1)")
    await a.execute("CREATE TABLE t2 (x INT)")
    async with engine.writer_lock:
        await engine.rollback_group()
    assert await count(a) == 0
    assert engine.table("d", "t2") is None
    with pytest.raises(SQLError) as e:
        await a.execute("SELECT * FROM t2")
    assert e.value.code == 1146


async def test_completion_type_follows_a_commit_or_rollback_that_says_neither(engine):
    """completion = 1 (CHAIN): the next transaction begins, unless AND NO CHAIN; 2 (RELEASE): the
    result asks for a disconnect, unless NO RELEASE; never COMMIT's answer-on-receipt path."""
    a = session(engine, 1)
    a.completion = 1
    await a.execute("BEGIN")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    assert a.commit_now("COMMIT") is None
    r = await a.execute("COMMIT")
    assert r.committed is not None and r.in_transaction and not r.release
    r = await a.execute("ROLLBACK AND NO CHAIN")
    assert not r.in_transaction
    a.completion = 2
    await a.execute("BEGIN")
    assert (await a.execute("COMMIT NO RELEASE")).release is False
    r = await a.execute("ROLLBACK")
    assert r.release and not r.in_transaction


async def test_ddl_commits_the_open_transaction_first(engine):
    a = session(engine, 1)
    await a.execute("BEGIN")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    r = await a.execute("CREATE TABLE t2 (x INT)")
    assert not r.in_transaction and not engine.writer_lock.locked()
    split = r.committed.binlog_transactions()
    assert [[(s.sql, s.is_ddl) for s in txn] for txn in split] == [
        [("INSERT INTO t (v) VALUES (1)", False)], [("CREATE TABLE t2 (x INT)", True)]]
    await a.execute("ROLLBACK")  # nothing left to roll back
    async with engine.writer_lock:
        await engine.commit_group({})
    assert await count(a) == 1


async def test_autocommit_off_and_close_rolls_back(engine):
    a = session(engine, 1)
    a.autocommit = False
    r = await a.execute("INSERT INTO t (v) VALUES (1)")
    assert r.committed is None and r.in_transaction
    await a.close()
    assert not engine.writer_lock.locked()
    b = session(engine, 2)
    b.autocommit = False
    await b.execute("INSERT INTO t (v) VALUES (2)")
    committed = await b.set_autocommit(True)
    assert [s.sql for s in committed.statements] == ["INSERT INTO t (v) VALUES (2)"]
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await b.execute("SELECT v FROM t")).rows == [(2,)]


async def test_meta_survives_reopen(tmp_path):
    engine = await Engine.open(tmp_path / "m")
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    s.database = "d"
    await s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    await s.execute("INSERT INTO t VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({"file": "mysql-bin.000001", "pos": "1234"})
    await s.execute("INSERT INTO t VALUES (2)")  # never group-committed: lost at close
    await engine.close()
    engine = await Engine.open(tmp_path / "m")
    try:
        assert engine.meta() == {"file": "mysql-bin.000001", "pos": "1234"}
        assert (await engine.session(1).execute("SELECT id FROM d.t")).rows == [(1,)]
        assert engine.schema_metas()["d"] == {"file": "mysql-bin.000001", "pos": "1234"}
    finally:
        await engine.close()


def stored_meta(path, column: str = "v") -> dict[str, str]:
    """Every row of a database file's meta table, as committed (read beside the engine, through
    its VFS): its value, or its `column` (`rowid`)."""
    conn = connect(path)
    try:
        return dict(conn.execute(f"SELECT k, {column} FROM {engine_core.META_TABLE}").fetchall())
    finally:
        conn.close()


class _FailingCommit:
    """The writer connection, whose next COMMITs fail as SQLite's do on a full disk."""

    def __init__(self, conn: sqlite3.Connection, failures: int) -> None:
        self._conn, self.failures = conn, failures

    def execute(self, sql, *args):
        if sql == "COMMIT" and self.failures:
            self.failures -= 1
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


async def test_a_group_commit_writes_only_the_meta_rows_that_changed(tmp_path, monkeypatch):
    """commit_group writes the meta rows whose values changed since the file's last commit
    (and the group number), removes the rows the group does not store (a multi-file group's
    redo record), and after a failed commit rewrites the file's meta whole: each file's meta
    table always holds exactly the meta of its last commit."""
    engine = await Engine.open(tmp_path / "m")
    s = engine.session(1)
    try:
        await s.execute("CREATE DATABASE d")
        await s.execute("CREATE DATABASE e")
        s.database = "d"
        await s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        await s.execute("CREATE TABLE e.t (id INT PRIMARY KEY)")
        keys = {f"k{n}": str(n) for n in range(10)}
        async with engine.writer_lock:  # the group of the DDL wrote both files: a redo record
            await engine.commit_group({**keys, "pos": "1"})
        assert engine_core.REDO_KEY in stored_meta(tmp_path / "m" / "d.sqlite")
        for pos, changes in ((2, 3), (3, 2)):
            await s.execute(f"INSERT INTO t VALUES ({pos})")
            before = engine._wconn.total_changes
            async with engine.writer_lock:
                await engine.commit_group({"pos": str(pos)})
            # pos and the group number (and once, the redo record deleted), nothing else
            assert engine._wconn.total_changes - before == changes
            assert stored_meta(tmp_path / "m" / "d.sqlite") == {**keys, "pos": str(pos), engine_core.SEQ_KEY: str(pos)}

        await s.execute("BEGIN")  # a group of two files stores its redo record in both
        await s.execute("INSERT INTO t VALUES (4)")
        await s.execute("INSERT INTO e.t VALUES (4)")
        await s.execute("COMMIT")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "4"})
        assert engine_core.REDO_KEY in stored_meta(tmp_path / "m" / "d.sqlite")
        await s.execute("INSERT INTO t VALUES (5)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "5"})
        assert stored_meta(tmp_path / "m" / "d.sqlite") == {**keys, "pos": "5", engine_core.SEQ_KEY: "5"}

        # a commit that fails after its meta rows were written leaves nothing of them behind:
        # the same values committed next are written again
        failing = _FailingCommit(engine._wconn_, failures=1)
        monkeypatch.setattr(engine, "_wconn_", failing)
        await s.execute("INSERT INTO t VALUES (6)")
        with pytest.raises(SQLError):
            async with engine.writer_lock:
                await engine.commit_group({"pos": "6", "k0": "changed"})
        assert stored_meta(tmp_path / "m" / "d.sqlite")["pos"] == "5"
        await s.execute("INSERT INTO t VALUES (6)")  # the failed group was rolled back
        async with engine.writer_lock:
            await engine.commit_group({"pos": "6", "k0": "changed"})
        assert failing.failures == 0
        expected = {**keys, "k0": "changed", "pos": "6"}
        assert stored_meta(tmp_path / "m" / "d.sqlite") == {**expected, engine_core.SEQ_KEY: "6"}
        monkeypatch.undo()
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "m")
    try:
        assert engine.meta() == expected
        assert (await engine.session(1).execute("SELECT id FROM d.t")).rows == [(2,), (3,), (4,), (5,), (6,)]
    finally:
        await engine.close()


async def test_a_group_commit_updates_its_changed_meta_rows_in_place(tmp_path):
    """A meta row whose value changed is updated where it is (its rowid and its key's index
    entry stay: one page fewer to write per commit than a delete and insert), a new key is
    added; and a row the engine believed stored but the file lacks is written all the same."""
    engine = await Engine.open(tmp_path / "m")
    s = engine.session(1)
    path = tmp_path / "m" / "d.sqlite"
    try:
        await s.execute("CREATE DATABASE d")
        s.database = "d"
        await s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "1", "file": "f.1"})
        rowids = stored_meta(path, "rowid")
        await s.execute("INSERT INTO t VALUES (2)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "2", "new": "x"})
        after = stored_meta(path, "rowid")
        assert {k: after[k] for k in rowids} == rowids
        seq = int(stored_meta(path)[engine_core.SEQ_KEY])
        assert stored_meta(path) == {"pos": "2", "file": "f.1", "new": "x", engine_core.SEQ_KEY: str(seq)}

        engine._wconn.execute(f"DELETE FROM d.{engine_core.META_TABLE} WHERE k = 'pos'")  # behind the engine
        await s.execute("INSERT INTO t VALUES (3)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "3"})
        assert stored_meta(path) == {"pos": "3", "file": "f.1", "new": "x", engine_core.SEQ_KEY: str(seq + 1)}
    finally:
        await engine.close()


async def test_a_group_commit_ends_the_last_transaction_s_savepoint_with_its_commit(tmp_path):
    """The last transaction's savepoint is not released on its own before the group's COMMIT
    (which ends it); the group is committed whole, and the next group's transactions begin and
    undo their own savepoints as before."""
    engine = await Engine.open(tmp_path / "m")
    s = engine.session(1)
    try:
        await s.execute("CREATE DATABASE d")
        s.database = "d"
        await s.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        await s.execute("INSERT INTO t VALUES (1)")
        await s.execute("INSERT INTO t VALUES (2)")
        ran: list[str] = []
        engine._wconn.set_trace_callback(ran.append)
        try:
            async with engine.writer_lock:
                await engine.commit_group({"pos": "1"})
        finally:
            engine._wconn.set_trace_callback(None)
        assert "RELEASE txn" not in ran and "COMMIT" in ran
        assert not engine._wconn.in_transaction
        await s.execute("INSERT INTO t VALUES (3)")
        with pytest.raises(SQLError):
            await s.execute("INSERT INTO t VALUES (3)")  # undone alone: 3 stays
        async with engine.writer_lock:
            await engine.commit_group({"pos": "2"})
        assert (await engine.session(2).execute("SELECT id FROM d.t")).rows == [(1,), (2,), (3,)]
    finally:
        await engine.close()


async def test_select_for_update_in_a_transaction_serializes_read_modify_write(engine):
    a, b, c = session(engine, 1), session(engine, 2), session(engine, 3)
    await c.execute("INSERT INTO t (id, v) VALUES (1, 10)")
    async with engine.writer_lock:
        await engine.commit_group({})

    async def increment(s):
        await s.execute("BEGIN")
        v = (await s.execute("SELECT v FROM t WHERE id = 1 FOR UPDATE")).rows[0][0]
        await asyncio.sleep(0.02)
        await s.execute(f"UPDATE t SET v = {v + 1} WHERE id = 1")
        await s.execute("COMMIT")

    await asyncio.gather(increment(a), increment(b))
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await c.execute("SELECT v FROM t WHERE id = 1")).rows == [(12,)]  # no lost update
    assert not engine.writer_lock.locked()
    # autocommit locking reads take no lock
    await c.execute("SELECT v FROM t FOR UPDATE")
    assert not engine.writer_lock.locked()


async def test_synchronous_normal_is_an_option(tmp_path):
    with pytest.raises(ValueError):
        await Engine.open(tmp_path / "x", synchronous="OFF")
    engine = await Engine.open(tmp_path / "n", synchronous="NORMAL")
    try:
        s = engine.session(1)
        await s.execute("CREATE DATABASE d")
        await s.execute("CREATE TABLE d.t (x INT)")
        await s.execute("INSERT INTO d.t VALUES (1)")
        async with engine.writer_lock:
            await engine.commit_group({"g": "1"})
        levels = await engine._on_writer(
            lambda: [engine._wconn.execute(f"PRAGMA {db}.synchronous").fetchone()[0] for db in ("main", "d")])
        assert levels == [1, 1]  # NORMAL
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "n")
    try:
        assert engine.meta() == {"g": "1"}
        assert (await engine.session(2).execute("SELECT x FROM d.t")).rows == [(1,)]
    finally:
        await engine.close()


def record_fsyncs(monkeypatch) -> list[str]:
    """The files the engine fsyncs itself (the WALs), in order."""
    synced: list[str] = []
    real = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.path.basename(os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(engine_core.os, "fsync", fsync)
    return synced


async def commit(engine: Engine, sql: str, *, durable: bool = True) -> None:
    s = engine.session(1)
    await s.execute(sql)
    await s.close()
    async with engine.writer_lock:
        await engine.commit_group({"g": sql}, durable=durable)


async def test_synchronous_normal_fsyncs_each_commit_unless_told_and_keeps_the_losable_ones_a_suffix(tmp_path, monkeypatch):
    engine = await Engine.open(tmp_path / "n", synchronous="NORMAL")
    try:
        for sql in ("CREATE DATABASE d", "CREATE DATABASE e", "CREATE TABLE d.t (x INT)", "CREATE TABLE e.t (x INT)"):
            await commit(engine, sql)
        synced = record_fsyncs(monkeypatch)
        await commit(engine, "INSERT INTO d.t VALUES (1)")  # durable: fsynced as FULL would
        assert synced == ["d.sqlite-wal"]
        synced.clear()
        # not durable (the caller's log has them): a run of groups on one file, no fsync
        await commit(engine, "INSERT INTO d.t VALUES (2)", durable=False)
        await commit(engine, "INSERT INTO d.t VALUES (3)", durable=False)
        assert synced == []
        # another file: the earlier ones first, so a power loss undoes a suffix of the groups
        await commit(engine, "INSERT INTO e.t VALUES (4)", durable=False)
        assert synced == ["d.sqlite-wal"]
        synced.clear()
        # a group of two files: what came before is fsynced first, the group stays unsynced
        s = engine.session(1)
        await s.execute("BEGIN")
        await s.execute("INSERT INTO d.t VALUES (5)")
        await s.execute("INSERT INTO e.t VALUES (5)")
        await s.execute("COMMIT")
        await s.close()
        async with engine.writer_lock:
            await engine.commit_group({"g": "two files"}, durable=False)
        assert synced == ["e.sqlite-wal"]
        synced.clear()
        # the next group, even on one of its files, comes after the group is fsynced whole
        await commit(engine, "INSERT INTO d.t VALUES (6)", durable=False)
        assert sorted(synced) == ["d.sqlite-wal", "e.sqlite-wal"]
        synced.clear()
        await engine.sync()  # e.g. before the log that would replay them loses files
        assert synced == ["d.sqlite-wal"]
        synced.clear()
        await engine.sync()
        assert synced == []
        # a durable group fsyncs what is unsynced too: the meta-only group on the main file
        await commit(engine, "INSERT INTO d.t VALUES (7)", durable=False)
        async with engine.writer_lock:
            await engine.commit_group({"g": "position only"})
        assert sorted(synced) == ["__engine__.sqlite-wal", "d.sqlite-wal"]
        synced.clear()
        # a dropped database's file goes only once the DROP is durable
        await commit(engine, "INSERT INTO e.t VALUES (8)", durable=False)
        await commit(engine, "DROP DATABASE e", durable=False)
        # (e's insert before the DROP's commit, on another file; the DROP before e's file goes)
        assert synced == ["e.sqlite-wal", "__engine__.sqlite-wal"]
        assert not (tmp_path / "n" / "e.sqlite").exists()
        assert engine._unsynced == set()
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "n")
    try:
        assert engine.meta() == {"g": "DROP DATABASE e"}
        assert (await engine.session(2).execute("SELECT x FROM d.t ORDER BY x")).rows == [(1,), (2,), (3,), (5,), (6,), (7,)]
    finally:
        await engine.close()


async def test_a_commit_without_fsync_runs_on_the_loop_and_every_nth_checkpoints_on_the_writer(tmp_path, monkeypatch):
    """`commit_group(durable=False)` under synchronous NORMAL writes WAL frames only: the loop
    runs it when the writer thread is idle. A commit that fsyncs (durable, another file's
    unsynced groups first), a busy writer thread, or a due WAL checkpoint takes the hop; the
    checkpoint (SQLite's automatic one is off on the writer) runs there after its commit."""
    monkeypatch.setattr(engine_core, "CHECKPOINT_GROUPS", 3)
    engine = await Engine.open(tmp_path / "n", synchronous="NORMAL")
    try:
        for sql in ("CREATE DATABASE d", "CREATE DATABASE e", "CREATE TABLE d.t (x INT)", "CREATE TABLE e.t (x INT)"):
            await commit(engine, sql)
        hops = watch_hops(engine, monkeypatch)
        checkpoints: list[bool] = []
        real_checkpoint = engine._w_checkpoint
        monkeypatch.setattr(engine, "_w_checkpoint",
                            lambda: checkpoints.append(engine._writer.on_lane()) or real_checkpoint())
        engine._uncheckpointed = 0
        await commit(engine, "INSERT INTO d.t VALUES (1)", durable=False)
        await commit(engine, "INSERT INTO d.t VALUES (2)", durable=False)
        assert hops == [] and checkpoints == []
        await commit(engine, "INSERT INTO d.t VALUES (3)", durable=False)  # the third: a checkpoint is due
        assert hops == [] and checkpoints == [] and engine._uncheckpointed == 3
        await commit(engine, "INSERT INTO d.t VALUES (4)", durable=False)
        assert hops == ["_w_commit_group"] and checkpoints == [True] and engine._uncheckpointed == 0
        del hops[:]
        await commit(engine, "INSERT INTO e.t VALUES (5)", durable=False)  # d's groups are fsynced first
        await commit(engine, "INSERT INTO e.t VALUES (6)")  # durable
        assert hops == ["_w_commit_group", "_w_commit_group"]
        del hops[:]
        s = engine.session(1)
        await s.execute("INSERT INTO d.t VALUES (7)")
        async with engine.writer_lock:
            busy = engine._on_writer(time.sleep, 0.02)
            await engine.commit_group({"g": "INSERT INTO d.t VALUES (7)"}, durable=False)
        assert busy.done() and hops == ["sleep", "_w_commit_group"]
        reader = engine.session(2)
        assert (await reader.execute("SELECT x FROM d.t ORDER BY x")).rows == [(i,) for i in (1, 2, 3, 4, 7)]
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "n")
    try:
        assert engine.meta() == {"g": "INSERT INTO d.t VALUES (7)"}
        assert (await engine.session(2).execute("SELECT x FROM e.t ORDER BY x")).rows == [(5,), (6,)]
    finally:
        await engine.close()


async def test_a_failed_fsync_after_the_commit_stops_the_process(tmp_path, monkeypatch, caplog):
    """The commit is done and visible: reported as failed, its caller would run it again."""
    engine = await Engine.open(tmp_path / "n", synchronous="NORMAL")
    try:
        await commit(engine, "CREATE DATABASE d")
        await commit(engine, "CREATE TABLE d.t (x INT)")

        class Exited(Exception):
            pass

        def fsync(fd: int) -> None:
            raise OSError(errno.EIO, "Input/output error")

        def exit_(status: int) -> None:
            raise Exited(status)

        monkeypatch.setattr(engine_core.os, "fsync", fsync)
        monkeypatch.setattr(engine_core.os, "_exit", exit_)
        monkeypatch.setattr(engine_core.logging, "shutdown", lambda: None)
        await commit(engine, "INSERT INTO d.t VALUES (1)", durable=False)  # no fsync asked
        with pytest.raises(Exited) as exited:
            await commit(engine, "INSERT INTO d.t VALUES (2)")
        assert exited.value.args == (1,)
        assert "fsync of" in caplog.text and "d.sqlite-wal failed after its commit" in caplog.text
    finally:
        monkeypatch.undo()
        await engine.close()


async def test_synchronous_full_leaves_every_fsync_to_sqlite(tmp_path, monkeypatch):
    engine = await Engine.open(tmp_path / "f")
    try:
        await commit(engine, "CREATE DATABASE d")
        await commit(engine, "CREATE TABLE d.t (x INT)")
        synced = record_fsyncs(monkeypatch)
        await commit(engine, "INSERT INTO d.t VALUES (1)", durable=False)
        await commit(engine, "INSERT INTO d.t VALUES (2)")
        await engine.sync()
        assert synced == []
    finally:
        await engine.close()


async def test_a_rollback_after_another_sessions_autocommit_keeps_it(engine):
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("INSERT INTO t (v) VALUES (1)")  # logically committed, RELEASE deferred
    await b.execute("BEGIN")
    await b.execute("SELECT v FROM t FOR UPDATE")  # b holds the lock, wrote nothing
    await b.execute("ROLLBACK")
    await b.execute("BEGIN")
    await b.execute("INSERT INTO t (v) VALUES (2)")
    await b.execute("ROLLBACK")
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await b.execute("SELECT v FROM t")).rows == [(1,)]


async def test_a_cancelled_autocommit_write_is_undone_not_committed_unlogged(engine):
    a, b = session(engine, 1), session(engine, 2)
    # (an expression: the statement goes to the writer thread, see the test below)
    task = asyncio.create_task(a.execute("INSERT INTO t (v) VALUES (1 + 0)"))
    await asyncio.sleep(0)  # a has the lock and its statement is queued for the writer thread
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    r = await b.execute("INSERT INTO t (v) VALUES (2)")
    assert [s.sql for s in r.committed.statements] == ["INSERT INTO t (v) VALUES (2)"]
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await b.execute("SELECT v FROM t")).rows == [(2,)]


async def test_a_plain_insert_runs_on_the_loop_only_when_the_writer_thread_is_idle(engine, monkeypatch):
    """An INSERT of plain values runs without a hop when the writer thread has nothing queued
    or running, and through the writer thread after what it has: the same ids, the same
    errors, the same binlogged statement either way. Without a hop it completes in its task's
    first step: a cancel can only come after it, when its caller holds its CommittedTxn."""
    a = session(engine, 1)
    hops = watch_hops(engine, monkeypatch)
    inline = await a.execute("INSERT INTO t (v) VALUES (1)")
    assert hops == [] and inline.last_insert_id == 1
    assert [s.sql for s in inline.committed.statements] == ["INSERT INTO t (v) VALUES (1)"]
    busy = engine._on_writer(time.sleep, 0.05)
    hopped = await a.execute("INSERT INTO t (v) VALUES (2)")
    assert hops == ["sleep", "_w_write"] and busy.done() and hopped.last_insert_id == 2
    assert [s.sql for s in hopped.committed.statements] == ["INSERT INTO t (v) VALUES (2)"]
    errors = []
    for busy_writer in (False, True):
        del hops[:]
        if busy_writer:
            engine._on_writer(time.sleep, 0.01)
        with pytest.raises(SQLError) as e:
            await a.execute("INSERT INTO t (id, v) VALUES (1, 9)")
        errors.append((e.value.error.code, e.value.message, hops[-1:]))
    assert errors == [(1062, errors[0][1], []), (1062, errors[0][1], ["_w_write"])]
    task = asyncio.create_task(a.execute("INSERT INTO t (v) VALUES (3)"))
    await asyncio.sleep(0)
    task.cancel()  # too late: the statement ran in the task's first step
    assert (await task).last_insert_id == 3
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await a.execute("SELECT id, v FROM t ORDER BY id")).rows == [(1, 1), (2, 2), (3, 3)]


def watch_hops(engine, monkeypatch) -> list[str]:
    """The names of the functions handed to the writer thread from now on, in order."""
    return watch_lane(engine._writer, monkeypatch)


async def run_where(s, sql: str, busy: bool, hops: list[str]) -> tuple:
    """`sql` run with the writer thread idle or busy: what it answered (rows affected, the
    binlogged statements, or the error) and whether it was handed to the writer thread."""
    del hops[:]
    if busy:
        s.engine._on_writer(time.sleep, 0.01)
    try:
        r = await s.execute(sql)
    except SQLError as exc:
        answer = (exc.error.code, exc.message)
    else:
        answer = (r.affected_rows, [st.sql for st in r.committed.statements] if r.committed else None)
    return answer, "_w_write" in hops


ROW_TABLES = [
    "CREATE TABLE w (id INT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(20) NOT NULL DEFAULT '', "
    "u INT NOT NULL, n INT, UNIQUE KEY (u), UNIQUE KEY (n), KEY (k))",
    "CREATE TABLE p (id INT PRIMARY KEY)",
    "CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
    "CREATE TABLE cp (id INT PRIMARY KEY)",
    "CREATE TABLE cc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES cp (id) ON DELETE CASCADE)",
    "INSERT INTO w (id, k, u, n) VALUES (1, 1, 1, 1), (2, 1, 2, 2), (3, 1, 3, 3), (4, 1, 4, 4), "
    "(11, 1, 11, 11), (12, 1, 12, 12), (13, 1, 13, 13), (14, 1, 14, 14)",
    "INSERT INTO p VALUES (1), (2), (11), (12)", "INSERT INTO ch VALUES (1, 1), (11, 11)",
    "INSERT INTO cp VALUES (1), (2)", "INSERT INTO cc VALUES (1, 1), (2, 2)",
]


async def row_tables(engine) -> None:
    s = session(engine, 98)
    for sql in ROW_TABLES:
        await s.execute(sql)
    async with engine.writer_lock:
        await engine.commit_group({})


async def test_an_update_or_delete_of_one_row_by_its_key_runs_on_the_loop_only_when_the_writer_thread_is_idle(
        engine, monkeypatch):
    """sysbench oltp_write_only's UPDATEs and DELETE (one row by its primary key, or by a
    UNIQUE key of NOT NULL columns; SET values of placeholders, columns, + and -) run without a
    hop when the writer thread is idle, and through it after what it has: the same rows affected
    (changed rows, as without CLIENT_FOUND_ROWS), the same binlogged statements, autocommit or
    in a transaction."""
    await row_tables(engine)
    a = session(engine, 1)
    hops = watch_hops(engine, monkeypatch)
    script = ["UPDATE w SET k=k+1 WHERE id={0}", "UPDATE w SET c='x' WHERE id={0}",
              "UPDATE w SET c='x' WHERE id={0}", "UPDATE w SET k = k + 2, c = c WHERE `id` = {0}",
              "UPDATE w SET k=-1 WHERE u={1}", "UPDATE w SET c=k WHERE id={1} AND u={1}",
              "DELETE FROM w WHERE id={2}", "DELETE FROM w WHERE id={2}", "UPDATE p SET id={3} WHERE id={4}"]
    answers = {}
    for busy, base in ((False, 0), (True, 10)):
        answers[busy] = []
        for sql in script:
            sql = sql.format(base + 1, base + 2, base + 3, base + 5, base + 2)
            answer, hopped = await run_where(a, sql, busy, hops)
            assert hopped == busy, sql
            assert answer[1] == [sql]
            answers[busy].append(answer[0])
        await a.execute("BEGIN")
        answer, hopped = await run_where(a, f"UPDATE w SET k=k+1 WHERE id={base + 4}", busy, hops)
        assert answer == (1, None) and hopped == busy
        answer, hopped = await run_where(a, f"DELETE FROM w WHERE u={base + 4}", busy, hops)
        assert answer == (1, None) and hopped == busy
        committed = (await a.execute("COMMIT")).committed
        assert [st.sql for st in committed.statements] == [
            f"UPDATE w SET k=k+1 WHERE id={base + 4}", f"DELETE FROM w WHERE u={base + 4}"]
    assert answers[False] == answers[True] == [1, 1, 0, 1, 1, 1, 1, 0, 1]
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await a.execute("SELECT id, k, c, u FROM w ORDER BY id")).rows == [
        (1, 4, "x", 1), (2, -1, "-1", 2), (11, 4, "x", 11), (12, -1, "-1", 12)]
    assert (await a.execute("SELECT id FROM p ORDER BY id")).rows == [(1,), (5,), (11,), (15,)]


async def test_a_write_of_unbounded_work_goes_to_the_writer_thread_even_when_it_is_idle(engine, monkeypatch):
    """A WHERE that is not an equality on a whole unique key of NOT NULL columns, a function in
    SET, a multi-table UPDATE, LIMIT, or a table a foreign key references ON DELETE CASCADE
    (the decision is made again after the DDL that adds such a key)."""
    await row_tables(engine)
    a = session(engine, 1)
    hops = watch_hops(engine, monkeypatch)
    for sql in ["UPDATE w SET c='y' WHERE k=1", "UPDATE w SET c='y' WHERE id > 12", "UPDATE w SET c='y' WHERE c='x'",
                "UPDATE w SET c='y' WHERE n=1", "UPDATE w SET c=CONCAT(c, 'z') WHERE id=1",
                "UPDATE w SET k=k*2 WHERE id=1", "UPDATE w, p SET w.k=7 WHERE w.id=p.id AND p.id=1",
                "UPDATE w SET c='y' WHERE id=1 OR id=2", "DELETE FROM w WHERE id=1 LIMIT 1", "DELETE FROM cp WHERE id=1"]:
        assert (await run_where(a, sql, False, hops))[1], sql
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await a.execute("SELECT id FROM cc")).rows == [(2,)]  # the cascade ran
    assert not (await run_where(a, "DELETE FROM p WHERE id=2", False, hops))[1]  # RESTRICT: one lookup
    await a.execute("CREATE TABLE pc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) "
                    "ON UPDATE SET NULL)")
    assert (await run_where(a, "DELETE FROM p WHERE id=12", False, hops))[1]


async def test_a_key_write_on_the_loop_fails_as_on_the_writer_thread(engine, monkeypatch):
    """Duplicate keys (1062), foreign keys (1451 from a parent, 1452 from a child) and a value
    out of range (1264, raised by the type check SQLite calls): the same errors inline and
    hopped, and the failed statement leaves nothing behind."""
    await row_tables(engine)
    a = session(engine, 1)
    hops = watch_hops(engine, monkeypatch)
    for sql in ["UPDATE w SET u=2 WHERE id=1", "UPDATE w SET id=id+1 WHERE id=1", "DELETE FROM p WHERE id=1",
                "UPDATE p SET id=id+100 WHERE id=1", "UPDATE ch SET pid=99 WHERE id=1",
                "UPDATE w SET k=k+2147483647 WHERE id=1"]:
        answers = [await run_where(a, sql, busy, hops) for busy in (False, True)]
        assert [hopped for _answer, hopped in answers] == [False, True], sql
        assert answers[0][0] == answers[1][0] and answers[0][0][0] in (1062, 1264, 1451, 1452), sql
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await a.execute("SELECT id, k, u FROM w WHERE id < 5 ORDER BY id")).rows == [
        (1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 1, 4)]
    assert (await a.execute("SELECT id, pid FROM ch ORDER BY id")).rows == [(1, 1), (11, 11)]


async def test_a_dropped_database_file_that_outlived_its_commit_is_deleted_at_open(tmp_path):
    engine = await Engine.open(tmp_path / "m")
    s = engine.session(1)
    await s.execute("CREATE DATABASE gone")
    await s.execute("CREATE TABLE gone.t (x INT)")
    async with engine.writer_lock:
        await engine.commit_group({"g": "1"})
    await s.execute("DROP DATABASE gone")
    engine._w_finish_drops = lambda: None  # the crash: committed, file not yet deleted
    async with engine.writer_lock:
        await engine.commit_group({"g": "2"})
    assert (tmp_path / "m" / "gone.sqlite").exists()
    await engine.close()
    engine = await Engine.open(tmp_path / "m")
    try:
        assert not engine.has_database("gone") and not (tmp_path / "m" / "gone.sqlite").exists()
        assert engine.meta() == {"g": "2"}
    finally:
        await engine.close()


async def test_savepoints_inside_a_transaction(engine):
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("BEGIN")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    await a.execute("SAVEPOINT sp1")
    await a.execute("INSERT INTO t (v) VALUES (2)")
    await a.execute("ROLLBACK TO SAVEPOINT sp1")
    await a.execute("INSERT INTO t (v) VALUES (3)")
    await a.execute("RELEASE SAVEPOINT sp1")
    with pytest.raises(SQLError) as e:
        await a.execute("ROLLBACK TO sp1")
    assert e.value.code == 1305
    r = await a.execute("COMMIT")
    logged = [s.sql for s in r.committed.statements]
    # MariaDB's binlog: the savepoint quoted, what a rollback to it undid left out, RELEASE not logged
    assert logged == ["INSERT INTO t (v) VALUES (1)", "SAVEPOINT `sp1`", "INSERT INTO t (v) VALUES (3)"]
    assert [s.db for s in r.committed.statements] == ["d", None, "d"]
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await b.execute("SELECT v FROM t ORDER BY v")).rows == [(1,), (3,)]
    assert (await b.execute("SAVEPOINT outside")).committed is None  # autocommit: nothing to do
    # a replica re-running the logged statements gets the same rows
    replica = await Engine.open(engine.datadir.parent / "replica")
    try:
        await replica.apply_transaction([("CREATE DATABASE d", r.committed.statements[0].context(), None)], {})
        await replica.apply_transaction([("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
                                          r.committed.statements[0].context(), "d")], {})
        await replica.apply_transaction([(s.sql, s.context(), s.db) for s in r.committed.statements], {"x": "1"})
        assert await replica.table_digest("d", "t") == await engine.table_digest("d", "t")
    finally:
        await replica.close()


async def test_read_committed_by_default(engine):
    a, b = session(engine, 1), session(engine, 2)
    await b.execute("BEGIN")
    assert await count(b) == 0
    await a.execute("INSERT INTO t (v) VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({})
    assert await count(b) == 1


async def test_repeatable_read_transactions_read_a_consistent_snapshot(engine):
    from engine.session import REPEATABLE_READ

    a, b = session(engine, 1), session(engine, 2)
    b.isolation = REPEATABLE_READ
    await b.execute("BEGIN")
    assert await count(b) == 0  # the snapshot starts here
    await a.execute("INSERT INTO t (v) VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({})
    assert await count(a) == 1
    assert await count(b) == 0  # REPEATABLE READ: still the snapshot
    await b.execute("COMMIT")
    assert await count(b) == 1
    b.autocommit = False
    assert await count(b) == 1
    await a.execute("INSERT INTO t (v) VALUES (2)")
    async with engine.writer_lock:
        await engine.commit_group({})
    assert await count(b) == 1
    await b.set_autocommit(True)
    assert await count(b) == 2


async def test_statements_after_close_fail_with_1053(tmp_path):
    engine = await Engine.open(tmp_path / "c")
    s = engine.session(1)
    await engine.close()
    with pytest.raises(SQLError) as e:
        await s.execute("SELECT 1")
    assert e.value.code == 1053


async def committed_insert(engine, s, v: int) -> None:
    await s.execute(f"INSERT INTO t (v) VALUES ({v})")
    async with engine.writer_lock:
        await engine.commit_group({})


async def test_consistent_snapshot_is_taken_at_start_and_kept_across_savepoints_of_a_reader(engine):
    """mariadb-dump --single-transaction: START TRANSACTION WITH CONSISTENT SNAPSHOT reads the
    data as it was at that statement, and its SAVEPOINT sp / ROLLBACK TO SAVEPOINT sp around each
    table neither take the writer nor move the snapshot."""
    from engine.session import REPEATABLE_READ

    reader, writer = session(engine, 1), session(engine, 2)
    await committed_insert(engine, writer, 1)
    reader.isolation = REPEATABLE_READ
    await reader.execute("START TRANSACTION /*!40100 WITH CONSISTENT SNAPSHOT */")
    await committed_insert(engine, writer, 2)  # after the snapshot, before the first read
    assert await count(reader) == 1
    await reader.execute("SAVEPOINT sp")
    assert not engine.writer_lock.locked()
    await committed_insert(engine, writer, 3)
    assert await count(reader) == 1
    await reader.execute("ROLLBACK TO SAVEPOINT sp")
    assert await count(reader) == 1
    await reader.execute("RELEASE SAVEPOINT sp")
    with pytest.raises(SQLError) as e:
        await reader.execute("ROLLBACK TO SAVEPOINT sp")
    assert e.value.code == 1305
    assert (await reader.execute("COMMIT")).committed is None
    assert await count(reader) == 3
    # without CONSISTENT SNAPSHOT the snapshot is the first read's, as InnoDB's
    await reader.execute("START TRANSACTION")
    await committed_insert(engine, writer, 4)
    assert await count(reader) == 4
    await reader.execute("COMMIT")


async def test_savepoints_named_before_the_first_write_still_undo_it(engine):
    a, b = session(engine, 1), session(engine, 2)
    await a.execute("BEGIN")
    await a.execute("SAVEPOINT before")
    await a.execute("SAVEPOINT again")
    await a.execute("RELEASE SAVEPOINT again")
    await a.execute("INSERT INTO t (v) VALUES (1)")
    await a.execute("ROLLBACK TO SAVEPOINT before")
    await a.execute("INSERT INTO t (v) VALUES (2)")
    r = await a.execute("COMMIT")
    # set before the transaction logged anything: none of them binlogged, and a rollback to one
    # leaves out everything logged before it
    assert [s.sql for s in r.committed.statements] == ["INSERT INTO t (v) VALUES (2)"]
    async with engine.writer_lock:
        await engine.commit_group({})
    assert (await b.execute("SELECT v FROM t")).rows == [(2,)]


# --- what information_schema.INNODB_TRX lists (Session.open_transaction) -----------------------


async def test_a_transaction_from_begin_a_writer_from_its_write_a_waiter_while_it_waits(engine):
    a, b = session(engine, 1), session(engine, 2)
    assert a.open_transaction() is None
    before = time.time()
    await a.execute("BEGIN")
    trx = a.open_transaction()
    assert trx is not None and not trx.writer and trx.waiting_since is None and trx.started >= before
    await a.execute("INSERT INTO t (v) VALUES (1)")
    assert a.open_transaction().writer and a.open_transaction().started == trx.started
    write = asyncio.create_task(b.execute("INSERT INTO t (v) VALUES (2)"))  # autocommit: waits
    await asyncio.sleep(0.05)
    waiting = b.open_transaction()
    assert waiting is not None and waiting.writer and waiting.started is None
    assert waiting.waiting_since is not None and waiting.waiting_since >= before
    assert engine.writer_lock.parties() == [a, b]
    await a.execute("COMMIT")
    await write
    assert a.open_transaction() is None and b.open_transaction() is None
    a.autocommit = False
    await a.execute("SELECT * FROM t")  # the first read without autocommit begins one
    assert a.open_transaction() is not None and a.open_transaction().isolation == a.isolation
    await a.execute("ROLLBACK")
    assert a.open_transaction() is None


async def test_and_chain_begins_the_next_transaction_in_the_same_access_mode(engine):
    s = session(engine, 1)
    await s.execute("BEGIN")
    await s.execute("INSERT INTO t (v) VALUES (1)")
    r = await s.execute("COMMIT AND CHAIN")
    assert r.committed is not None and r.in_transaction and not r.release
    await s.execute("INSERT INTO t (v) VALUES (2)")
    r = await s.execute("ROLLBACK WORK AND CHAIN NO RELEASE")
    assert r.committed is None and r.in_transaction
    await s.execute("START TRANSACTION READ ONLY")
    await s.execute("COMMIT AND CHAIN")
    with pytest.raises(SQLError) as e:
        await s.execute("INSERT INTO t (v) VALUES (3)")
    assert e.value.code == 1792  # still READ ONLY
    r = await s.execute("ROLLBACK AND NO CHAIN")
    assert not r.in_transaction


async def test_release_is_told_and_the_forms_mariadb_refuses_are_1064(engine):
    s = session(engine, 1)
    assert (await s.execute("COMMIT RELEASE")).release
    assert (await s.execute("ROLLBACK WORK RELEASE")).release
    assert not (await s.execute("COMMIT NO RELEASE")).release
    for sql, near in [("COMMIT AND CHAIN RELEASE", "RELEASE"), ("COMMIT NO CHAIN", "CHAIN"), ("COMMIT AND", ""),
                      ("ROLLBACK RELEASE NO RELEASE", "NO RELEASE")]:
        with pytest.raises(SQLError) as e:
            await s.execute(sql)
        assert e.value.code == 1064 and f"near '{near}'" in e.value.message, sql


async def test_begin_and_commit_on_receipt_plan_their_text_once(engine, monkeypatch):
    """`begin_now` and `commit_now` keep a BEGIN's and a COMMIT's plan by its text: a session
    repeating them plans each once, and answers them as before (a COMMIT with CHAIN, or any
    other text, is still declined)."""
    from engine.session import Session

    planned: list[str] = []
    original = Session._plan

    def counted(self, sql):
        planned.append(sql)
        return original(self, sql)

    monkeypatch.setattr(Session, "_plan", counted)
    a = session(engine, 1)
    for n in range(3):
        assert a.begin_now("BEGIN") is not None
        await a.execute(f"INSERT INTO t (v) VALUES ({n})")
        done = a.commit_now("COMMIT")
        assert done is not None and done.committed is not None
    assert a.begin_now("SELECT 1") is None and a.commit_now("COMMIT AND CHAIN") is None
    assert planned == ["BEGIN", "COMMIT", "SELECT 1", "COMMIT AND CHAIN"]
    assert a.commit_now("COMMIT AND CHAIN") is None and planned[-1] == "COMMIT AND CHAIN"
