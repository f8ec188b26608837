"""A group waiting for its AFTER_SYNC ack without the engine's writer lock (master.commit,
`GroupCommit._wait_open`; engine.concurrency.Settle): single-statement writes run meanwhile and
the next group is written, readers see neither group before every group in the engine's open
transaction is acked, one engine commit covers them; what holds the lock across statements
(an explicit transaction, the binlog's exclusive operations) waits for the open group; a failed
write of the next group leaves the open one committed (replayed from the binlog) and answered."""

from __future__ import annotations

import asyncio
import errno
import os
import threading

import binlog.writer as writer_module
from binlog.syncer import NativeSyncer
from master.commit import IGNORE_ERROR
from protocol.errors import SQLError
from semisync.interface import BinlogStorageObserver, CommitVerdict, StorageParam
from tests.unit.test_master_commit import Session, binlog_values, engine_values, pipeline  # noqa: F401
from tests.unit.test_master_commit_failures import fail_engine_commits


class HeldAcks(BinlogStorageObserver):
    """An after_sync that waits (like semi-sync's) until the test acks the group's end."""

    def __init__(self) -> None:
        self.flushed: list[StorageParam] = []
        self.waiting: dict[int, asyncio.Future] = {}  # group end pos -> its ack
        self.verdicts: dict[int, CommitVerdict | None] = {}
        self.auto = False  # ack every group at once

    def waits_after_sync(self) -> bool:
        return True

    def after_flush(self, param: StorageParam) -> None:
        self.flushed.append(param)

    async def after_sync(self, param: StorageParam) -> CommitVerdict | None:
        if self.auto:
            return None
        fut = self.waiting.setdefault(param.position.pos, asyncio.get_running_loop().create_future())
        await fut
        return self.verdicts.get(param.position.pos)

    def ack(self, pos: int) -> None:
        self.waiting.setdefault(pos, asyncio.get_running_loop().create_future()).set_result(None)


async def until(predicate, what: str) -> None:
    for _ in range(2000):
        if predicate():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never happened: {what}")


async def insert(engine, gc, value: int, sid: int):
    """A session's autocommit INSERT and its commit, as the server runs them."""
    s = engine.session(sid)
    try:
        res = await s.execute(f"INSERT INTO g.t (v) VALUES ({value})")
        await asyncio.shield(gc.commit(Session(sid), res.committed))
    finally:
        await s.close()


def failing_fdatasync(monkeypatch, code: int) -> list[int]:
    """Every binlog fdatasync fails with `code`, on the binlog I/O thread and on the compiled
    syncer alike; the list returned gets an entry per failed call."""
    failed: list[int] = []

    def fault(*args):
        failed.append(1)
        raise OSError(code, os.strerror(code))

    def syncer_fault(self, fd):
        failed.append(1)
        done = asyncio.get_running_loop().create_future()
        done.set_exception(OSError(code, os.strerror(code)))
        return done

    monkeypatch.setattr(writer_module.os, "fdatasync", fault)
    monkeypatch.setattr(NativeSyncer, "fdatasync", syncer_fault)
    return failed


async def open_group(pipe, acks: HeldAcks, value: int) -> tuple[asyncio.Task, int]:
    """Commit `value` as a group that is written and waits for its ack; its end's pos."""
    engine, writer, end, interface, gc = pipe
    first = asyncio.ensure_future(insert(engine, gc, value, 10 + value))
    await until(lambda: acks.waiting, "the group waits for its ack")
    await until(lambda: engine.settle.is_open and not engine.writer_lock.locked(), "the lock is released")
    return first, acks.flushed[-1].position.pos


async def two_open_groups(pipe, acks: HeldAcks) -> tuple[asyncio.Task, int, asyncio.Future, int]:
    """Commit 1 and 2 as two groups that wait for their acks without the lock; each one's end."""
    engine, writer, end, interface, gc = pipe
    first, end1 = await open_group(pipe, acks, 1)
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2 and not engine.writer_lock.locked(), "the second group is open")
    return first, end1, second, acks.flushed[-1].position.pos


async def test_the_next_group_runs_while_one_waits_and_one_commit_covers_both_after_both_acks(pipeline):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    groups = gc.groups
    first, end1 = await open_group(pipeline, acks, 1)
    # a single-statement write takes the lock now, and its group is written behind the open one
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    end2 = acks.flushed[-1].position.pos
    assert end1 < end2 == writer.end_position.pos == end.position.pos  # written and published
    assert sorted(binlog_values(writer, end2)) == [1, 2]
    assert await engine_values(engine) == []  # neither is visible before its ack
    acks.ack(end1)
    for _ in range(20):
        await asyncio.sleep(0)
    # the first is acked but shares the engine's open transaction with the unacked second
    assert not first.done() and await engine_values(engine) == []
    acks.ack(end2)
    await asyncio.wait_for(asyncio.gather(first, second), 10)
    assert await engine_values(engine) == [1, 2]
    assert engine.meta()["binlog_pos"] == str(end2)
    assert gc.groups == groups + 2 and not engine.settle.is_open and not engine.writer_lock.locked()


async def test_an_open_group_alone_commits_after_its_ack(pipeline):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    assert await engine_values(engine) == []
    acks.ack(end1)
    await asyncio.wait_for(first, 10)
    assert await engine_values(engine) == [1]
    assert engine.meta()["binlog_pos"] == str(end1)
    assert not engine.settle.is_open and not engine.writer_lock.locked()


async def test_an_explicit_transaction_waits_for_the_open_group_to_commit(pipeline):  # noqa: F811
    """Its writes would hold the lock across statements: the open group could not commit."""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    s = engine.session(50)
    await s.execute("BEGIN")
    write = asyncio.ensure_future(s.execute("INSERT INTO g.t (v) VALUES (50)"))
    for _ in range(50):
        await asyncio.sleep(0)
    assert not write.done() and not engine.writer_lock.locked()
    # and meanwhile no other group opens: a single-statement write is written, then waits locked
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    assert not write.done()
    acks.ack(end1)
    acks.ack(acks.flushed[-1].position.pos)
    await asyncio.wait_for(asyncio.gather(first, second), 10)
    await asyncio.wait_for(write, 10)
    assert await engine_values(engine) == [1, 2]  # committed before the transaction's write ran
    acks.auto = True
    res = await s.execute("COMMIT")
    await gc.commit(Session(50), res.committed)
    await s.close()
    assert await engine_values(engine) == [1, 2, 50]


async def test_the_binlogs_exclusive_side_waits_for_the_open_group(pipeline):  # noqa: F811
    """FLUSH / PURGE / RESET MASTER (and FLUSH TABLES WITH READ LOCK, through the same
    `Settle.acquire_settled`) never find the binlog ahead of the engine."""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    seen: list[tuple[list[int], str]] = []

    async def exclusive() -> None:
        async with gc.exclusive():
            seen.append((await engine_values(engine), engine.meta()["binlog_pos"]))

    task = asyncio.ensure_future(exclusive())
    for _ in range(50):
        await asyncio.sleep(0)
    assert not task.done() and engine.settle.wanted == 1 and not engine.settle.may_open()
    # a single-statement write still runs; its group commits the open one
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    assert engine.writer_lock.locked()
    acks.ack(end1)
    acks.ack(acks.flushed[-1].position.pos)
    await asyncio.wait_for(asyncio.gather(first, second, task), 10)
    assert seen == [([1, 2], str(writer.end_position.pos))]
    assert engine.settle.wanted == 0


async def test_each_group_keeps_its_own_verdict(pipeline):  # noqa: F811
    """An in-doubt open group (shutdown, no ack) answers ER_SERVER_SHUTDOWN; the group that
    committed it with its own ack answers OK."""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    acks.verdicts[end1] = CommitVerdict.IN_DOUBT
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    acks.ack(end1)
    acks.ack(acks.flushed[-1].position.pos)
    results = await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 10)
    assert isinstance(results[0], SQLError) and results[0].code == 1053 and results[1] is None
    assert await engine_values(engine) == [1, 2] and gc.in_doubt == 1


async def test_a_failed_write_of_the_next_group_keeps_the_open_one(pipeline, monkeypatch):  # noqa: F811
    """The rollback of the engine's open transaction takes the open group with it: after its
    ack it is replayed from the binlog and committed, and its session gets its OK; the failed
    group's session gets 1026 and nothing of it is in the binlog or the engine."""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    path = writer.directory / writer.current_file
    size = path.stat().st_size
    code = errno.ENOSPC
    failed = failing_fdatasync(monkeypatch, code)
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: failed, "the second group's fdatasync failed")
    monkeypatch.undo()
    await until(lambda: path.stat().st_size == size, "the failed group cut back (on the lane: a thread)")
    assert end.position.pos == end1  # nothing published
    assert not first.done()  # waits for its ack; the failed group's leader holds the lock till then
    acks.ack(end1)
    results = await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 10)
    assert results[0] is None and isinstance(results[1], SQLError) and results[1].code == 1026
    assert await engine_values(engine) == [1] and binlog_values(writer, writer.end_position.pos) == [1]
    assert engine.meta()["binlog_pos"] == str(end1)
    assert not engine.settle.is_open and not engine.writer_lock.locked()
    acks.auto = True
    await insert(engine, gc, 3, 13)  # the next group commits as usual
    assert await engine_values(engine) == [1, 3]


async def test_no_group_opens_while_the_binlogs_exclusive_side_waits(pipeline, monkeypatch):  # noqa: F811
    """A group written while FLUSH / PURGE / RESET MASTER waits for the lock waits for its ack
    holding the lock: opened, it would let that operation in with the binlog ahead of the engine.
    (A group fdatasynced on the compiled syncer is open from its write on, before the operation
    came here: the operation waits for its commit. A group written after it came is held on
    both paths: `test_the_binlogs_exclusive_side_waits_for_the_open_group`.)"""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    syncing = asyncio.Event()
    go = threading.Event()
    real = os.fdatasync

    def slow(fd):  # the binlog I/O thread's fdatasync
        loop.call_soon_threadsafe(syncing.set)
        go.wait(10)
        return real(fd)

    def slow_native(self, fd):  # the compiled syncer's
        syncing.set()
        done = loop.create_future()
        asyncio.ensure_future(asyncio.to_thread(go.wait, 10)).add_done_callback(
            lambda _f: done.set_result(real(fd)))
        return done

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(writer_module.os, "fdatasync", slow)
    monkeypatch.setattr(NativeSyncer, "fdatasync", slow_native)
    first = asyncio.ensure_future(insert(engine, gc, 1, 11))
    await asyncio.wait_for(syncing.wait(), 10)  # the group is being synced
    seen: list[list[int]] = []

    async def exclusive() -> None:
        async with gc.exclusive():
            seen.append(await engine_values(engine))

    task = asyncio.ensure_future(exclusive())
    await until(lambda: engine.settle.wanted == 1, "the exclusive side waits")
    go.set()
    await until(lambda: acks.waiting, "the group waits for its ack")
    for _ in range(50):
        await asyncio.sleep(0)
    if gc.native_sync:
        assert engine.settle.is_open and not engine.writer_lock.locked() and not task.done()
    else:
        assert engine.writer_lock.locked() and not engine.settle.is_open and not task.done()
    acks.ack(acks.flushed[-1].position.pos)
    await asyncio.wait_for(asyncio.gather(first, task), 10)
    assert seen == [[1]]


async def test_an_engine_commit_failing_for_two_groups_replays_both_from_the_binlog(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    gc.binlog_error_action = lambda: IGNORE_ERROR
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1 = await open_group(pipeline, acks, 1)
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    calls = fail_engine_commits(monkeypatch, engine, times=2)
    acks.ack(end1)
    acks.ack(acks.flushed[-1].position.pos)
    assert await asyncio.wait_for(asyncio.gather(first, second), 10) == [None, None]
    assert len(calls) == 3  # the commit and a replay failed, the second replay worked
    assert await engine_values(engine) == [1, 2] == sorted(binlog_values(writer, writer.end_position.pos))
    assert engine.meta()["binlog_pos"] == str(writer.end_position.pos)


async def test_two_groups_wait_open_and_the_third_commits_all_three(pipeline):  # noqa: F811
    """Up to OPEN_GROUPS_MAX (2) groups wait without the lock; the next one waits holding it and
    its commit, after the three acks, covers all three."""
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1, second, end2 = await two_open_groups(pipeline, acks)
    third = asyncio.ensure_future(insert(engine, gc, 3, 13))
    await until(lambda: len(acks.waiting) == 3, "the third group waits for its ack")
    end3 = acks.flushed[-1].position.pos
    assert engine.writer_lock.locked() and end1 < end2 < end3
    assert sorted(binlog_values(writer, end3)) == [1, 2, 3] and await engine_values(engine) == []
    acks.ack(end1)
    acks.ack(end2)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not first.done() and not second.done() and await engine_values(engine) == []
    acks.ack(end3)
    await asyncio.wait_for(asyncio.gather(first, second, third), 10)
    assert await engine_values(engine) == [1, 2, 3] and engine.meta()["binlog_pos"] == str(end3)
    assert not engine.settle.is_open and not engine.writer_lock.locked()


async def test_a_failed_write_after_two_open_groups_keeps_both(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    first, end1, second, end2 = await two_open_groups(pipeline, acks)
    code = errno.EIO
    failed = failing_fdatasync(monkeypatch, code)
    third = asyncio.ensure_future(insert(engine, gc, 3, 13))
    await until(lambda: failed, "the third group's fdatasync failed")
    monkeypatch.undo()
    acks.ack(end1)
    acks.ack(end2)
    results = await asyncio.wait_for(asyncio.gather(first, second, third, return_exceptions=True), 10)
    assert results[:2] == [None, None] and isinstance(results[2], SQLError) and results[2].code == 1026
    assert await engine_values(engine) == [1, 2] == sorted(binlog_values(writer, writer.end_position.pos))
    assert engine.meta()["binlog_pos"] == str(end2) == str(end.position.pos)
    assert not engine.settle.is_open and not engine.writer_lock.locked()
