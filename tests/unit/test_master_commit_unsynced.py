"""A group left open as soon as it is written, before its fdatasync on the compiled syncer
returned (master.commit, `GroupCommit._open_unsynced`): single-statement writes run during the
fdatasync; nothing of the group is published, flushed to the observers or acked before it
returned; the next group is led, and written, only after it (the writes that ran meanwhile in
it); a failed one undoes, with the group, every
write that ran meanwhile (1026 to each), and keeps the open group before it (replayed, OK)."""

from __future__ import annotations

import asyncio
import errno
import os

import pytest

from binlog.syncer import NativeSyncer
from protocol.errors import SQLError
from tests.unit.test_master_commit import Session, binlog_values, engine_values, pipeline  # noqa: F401
from tests.unit.test_master_commit_open import HeldAcks, insert, until


class HeldSyncs:
    """The compiled syncer's fdatasync, each call held until the test lets it return (made
    then, for real) or fail."""

    def __init__(self, monkeypatch) -> None:
        self.calls: list[tuple[int, asyncio.Future]] = []
        held = self

        def fdatasync(self, fd):
            done = asyncio.get_running_loop().create_future()
            held.calls.append((fd, done))
            return done

        monkeypatch.setattr(NativeSyncer, "fdatasync", fdatasync)

    def pending(self) -> int:
        return sum(1 for _fd, done in self.calls if not done.done())

    def finish(self, code: int = 0) -> None:
        """The oldest pending fdatasync returns (0) or fails with `code`."""
        fd, done = next((fd, done) for fd, done in self.calls if not done.done())
        if code:
            done.set_exception(OSError(code, os.strerror(code)))
        else:
            os.fdatasync(fd)
            done.set_result(None)


def held(pipeline, monkeypatch) -> tuple[HeldAcks, HeldSyncs]:  # noqa: F811
    """The pipeline's acks and its compiled syncer's fdatasyncs held by the test."""
    engine, writer, end, interface, gc = pipeline
    if not gc.native_sync:
        pytest.skip("a group synced on the binlog I/O thread keeps the writer lock through its fsync")
    acks = HeldAcks()
    interface.storage.add_observer(acks)
    return acks, HeldSyncs(monkeypatch)


async def test_a_write_runs_while_the_open_group_is_fdatasynced_and_is_written_after_it(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    acks, syncs = held(pipeline, monkeypatch)
    published = end.position
    first = asyncio.ensure_future(insert(engine, gc, 1, 11))
    await until(lambda: syncs.pending() == 1, "the first group's fdatasync runs")
    written = writer.end_position
    # open already: the lock is free, nothing is flushed to the observers nor published
    assert engine.settle.is_open and not engine.writer_lock.locked()
    assert end.position == published and acks.flushed == [] and not acks.waiting
    # single-statement writes run now, and their commits queue: their leader waits for that
    # fdatasync without the lock, so that the second write runs too and joins its group
    sessions, commits = [], []
    for value in (2, 3):
        s = engine.session(10 + value)
        res = await asyncio.wait_for(s.execute(f"INSERT INTO g.t (v) VALUES ({value})"), 10)
        sessions.append(s)
        commits.append(asyncio.ensure_future(gc.commit(Session(10 + value), res.committed)))
        for _ in range(50):
            await asyncio.sleep(0)
    second, third = commits
    # but their group waits for that fdatasync: nothing more is written to the binlog
    assert writer.end_position == written and syncs.pending() == 1 and not second.done()
    syncs.finish()
    await until(lambda: syncs.pending() == 1 and len(syncs.calls) == 2, "the second group's fdatasync runs")
    end1 = acks.flushed[0].position.pos
    assert end1 == written.pos == end.position.pos  # the first published after its fdatasync only
    assert writer.end_position.pos > end1 and len(acks.flushed) == 1 and list(acks.waiting) == [end1]
    syncs.finish()
    await until(lambda: len(acks.waiting) == 2, "the second group waits for its ack")
    end2 = acks.flushed[1].position.pos
    assert acks.flushed[1].transactions == 2  # one group: the two writes that ran during the fdatasync
    assert sorted(binlog_values(writer, end2)) == [1, 2, 3] and await engine_values(engine) == []
    acks.ack(end1)
    acks.ack(end2)
    await asyncio.wait_for(asyncio.gather(first, second, third), 10)
    for s in sessions:
        await s.close()
    assert await engine_values(engine) == [1, 2, 3] and engine.meta()["binlog_pos"] == str(end2)
    assert not engine.settle.is_open and not engine.writer_lock.locked()


async def test_a_failed_fdatasync_of_an_open_group_undoes_the_writes_that_ran_during_it(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    acks, syncs = held(pipeline, monkeypatch)
    path = writer.directory / writer.current_file
    before, published, last_gtid = path.read_bytes(), end.position, gc.gtids.state.most_recent(0)
    first = asyncio.ensure_future(insert(engine, gc, 1, 11))
    await until(lambda: syncs.pending() == 1, "the first group's fdatasync runs")
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: gc._in_flight == 2, "the second write ran and its commit joined")
    syncs.finish(errno.EIO)
    results = await asyncio.wait_for(asyncio.gather(first, second, return_exceptions=True), 10)
    assert all(isinstance(r, SQLError) and r.code == 1026 for r in results)
    assert path.read_bytes() == before and end.position == published and acks.flushed == []
    assert gc.gtids.state.most_recent(0) == last_gtid  # the group's GTID given back
    assert await engine_values(engine) == []
    assert not engine.settle.is_open and not engine.writer_lock.locked() and not gc._open
    # the disk is back: the next group commits at the old end
    monkeypatch.undo()
    acks.auto = True
    await insert(engine, gc, 3, 13)
    assert await engine_values(engine) == [3] == binlog_values(writer, writer.end_position.pos)


async def test_a_failed_fdatasync_keeps_the_open_group_before_it(pipeline, monkeypatch):  # noqa: F811
    """The open group before it is in the engine's open transaction too: after its ack it is
    replayed from the binlog, committed and answered OK."""
    engine, writer, end, interface, gc = pipeline
    acks, syncs = held(pipeline, monkeypatch)
    first = asyncio.ensure_future(insert(engine, gc, 1, 11))
    await until(lambda: syncs.pending() == 1, "the first group's fdatasync runs")
    syncs.finish()
    await until(lambda: acks.waiting, "the first group waits for its ack")
    end1 = acks.flushed[-1].position.pos
    second = asyncio.ensure_future(insert(engine, gc, 2, 12))
    await until(lambda: syncs.pending() == 1, "the second group's fdatasync runs")
    third = asyncio.ensure_future(insert(engine, gc, 3, 13))
    await until(lambda: gc._in_flight == 3, "the third write ran and its commit joined")
    syncs.finish(errno.ENOSPC)
    await until(lambda: not gc._queue and engine.writer_lock.locked() and not engine.settle.wanted
                and end1 in acks.waiting and len(acks.waiting) == 1, "the undoing waits for the open group's ack")
    for _ in range(20):
        await asyncio.sleep(0)
    assert not first.done()  # waits for its ack
    acks.ack(end1)
    results = await asyncio.wait_for(asyncio.gather(first, second, third, return_exceptions=True), 10)
    assert results[0] is None and all(isinstance(r, SQLError) and r.code == 1026 for r in results[1:])
    assert await engine_values(engine) == [1] == binlog_values(writer, writer.end_position.pos)
    assert engine.meta()["binlog_pos"] == str(end1) == str(end.position.pos)
    assert not engine.settle.is_open and not engine.writer_lock.locked() and not gc._open
