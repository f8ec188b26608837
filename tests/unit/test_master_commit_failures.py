"""The group commit (master.commit) when the disk fails: a binlog write or fsync failing
(ENOSPC, EIO) fails the whole group with 1026 and leaves the binlog and the engine as before;
an engine commit failing after the binlog write stops the server (binlog_error_action=
ABORT_SERVER) or is replayed from the binlog before the next group (IGNORE_ERROR)."""

from __future__ import annotations

import asyncio
import errno
import os

import pytest

import binlog.writer as writer_module
from binlog.reader import scan_file
from binlog.syncer import NativeSyncer
from master.commit import IGNORE_ERROR
from protocol.errors import SQLError
from semisync.interface import BinlogStorageObserver
from tests.unit.test_master_commit import Session, binlog_values, engine_values, pipeline  # noqa: F401


async def commit_many(engine, gc, values: list[int]) -> list[BaseException | None]:
    """One session per value, all committing at once (they form groups)."""

    async def one(i: int) -> BaseException | None:
        s = engine.session(100 + i)
        try:
            res = await s.execute(f"INSERT INTO g.t (v) VALUES ({i})")
            await gc.commit(Session(100 + i), res.committed)
            return None
        except SQLError as exc:
            return exc
        finally:
            await s.close()

    return list(await asyncio.gather(*(one(i) for i in values)))


@pytest.mark.parametrize("held", [False, True], ids=["one-step", "held"])
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
@pytest.mark.parametrize("where", ["write", "fdatasync"])
async def test_a_failed_binlog_write_fails_the_whole_group_with_1026(pipeline, monkeypatch, code, where, held):  # noqa: F811
    """In one step with the engine commit (no observer holds groups) and held for an observer
    (semi-sync), where the fdatasync runs on the binlog I/O thread or on the compiled syncer."""
    engine, writer, end, interface, gc = pipeline
    if held:
        interface.storage.add_observer(BinlogStorageObserver())  # holds every group
    path = writer.directory / writer.current_file
    before, published = path.read_bytes(), end.position
    real = getattr(os, where)
    failing = {"on": True}

    def fault(*args):
        if failing["on"]:
            raise OSError(code, os.strerror(code))
        return real(*args)

    monkeypatch.setattr(writer_module.os, where, fault)
    if gc.native_sync and where == "fdatasync":  # the syncer's thread calls fdatasync(2) in C
        native = NativeSyncer.fdatasync

        def syncer_fault(self, fd):
            if not failing["on"]:
                return native(self, fd)
            done = asyncio.get_running_loop().create_future()
            done.set_exception(OSError(code, os.strerror(code)))
            return done

        monkeypatch.setattr(NativeSyncer, "fdatasync", syncer_fault)
    results = await commit_many(engine, gc, list(range(5)))
    assert all(isinstance(r, SQLError) for r in results)
    err = results[0]
    assert err.code == 1026
    assert err.message == f"Error writing file 'mysql-bin' (errno: {code} \"{os.strerror(code)}\")"
    assert path.read_bytes() == before and end.position == published  # nothing written, nothing published
    assert await engine_values(engine) == []
    # the disk is back: the next group commits, at the old end, and nothing of the failed one shows
    failing["on"] = False
    assert await commit_many(engine, gc, [10, 11]) == [None, None]
    assert await engine_values(engine) == [10, 11]
    assert sorted(binlog_values(writer, writer.end_position.pos)) == [10, 11]
    assert scan_file(path).clean and end.position == writer.end_position


def fail_engine_commits(monkeypatch, engine, times: int) -> list[int]:
    """The engine's next `times` group commits fail as SQLite's do on a full disk: SQLite rolls
    the open transaction back itself and reports an error."""
    calls: list[int] = []
    real = engine._w_commit_group

    def commit_group(meta, durable=True):
        calls.append(1)
        if len(calls) <= times and engine._wconn.in_transaction:
            engine._wconn.execute("ROLLBACK")
        return real(meta, durable)

    monkeypatch.setattr(engine, "_w_commit_group", commit_group)
    return calls


async def test_an_engine_commit_failing_after_the_binlog_write_is_replayed_from_the_binlog(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline
    gc.binlog_error_action = lambda: IGNORE_ERROR
    calls = fail_engine_commits(monkeypatch, engine, times=3)
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    await gc.commit(Session(5), res.committed)  # OK: only once the engine has it
    assert len(calls) == 4  # three failed commits (the first and two replays), then one that worked
    assert await engine_values(engine) == [1]
    assert engine.meta() == {"binlog_file": end.position.file, "binlog_pos": str(end.position.pos)}
    # the next group follows it, and binlog and engine agree
    res = await s.execute("INSERT INTO g.t (v) VALUES (2)")
    await gc.commit(Session(5), res.committed)
    await s.close()
    assert await engine_values(engine) == [1, 2] == sorted(binlog_values(writer, writer.end_position.pos))


async def test_an_engine_commit_failing_after_the_binlog_write_stops_the_server_by_default(pipeline, monkeypatch):  # noqa: F811
    engine, writer, end, interface, gc = pipeline

    class Stopped(Exception):
        pass

    messages: list[str] = []

    def abort(message: str) -> None:
        messages.append(message)
        raise Stopped

    gc._abort = abort
    fail_engine_commits(monkeypatch, engine, times=1)
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    with pytest.raises(Stopped):
        await gc.commit(Session(5), res.committed)
    await s.close()
    [message] = messages
    assert "binlog_error_action is ABORT_SERVER" in message and "replayed" in message
    assert binlog_values(writer, writer.end_position.pos) == [1]  # in the binlog, for recovery


async def test_a_transaction_sqlite_rolled_back_behind_the_group_is_not_committed_as_empty(pipeline):  # noqa: F811
    """SQLite may roll the whole open transaction back on an error (SQLITE_FULL in a statement):
    the group's commit must then fail rather than store the meta alone."""
    engine, writer, end, interface, gc = pipeline
    s = engine.session(5)
    await s.execute("INSERT INTO g.t (v) VALUES (1)")  # logically committed, in the open group
    await engine._on_writer(engine._wconn.execute, "ROLLBACK")  # what SQLite does on SQLITE_FULL
    await s.execute("INSERT INTO g.t (v) VALUES (2)")  # a later transaction: never autocommitted
    assert await engine_values(engine) == []
    async with engine.writer_lock:
        with pytest.raises(SQLError, match="rolled back"):
            await engine.commit_group({"binlog_file": "x", "binlog_pos": "1"})
    await s.close()
    assert engine.meta().get("binlog_file") != "x"
    assert await engine_values(engine) == []


async def test_a_transaction_sqlite_rolled_back_with_nothing_of_the_group_in_it_loses_nothing(pipeline):  # noqa: F811
    """A first statement failing on a full disk ends SQLite's transaction with nothing else in
    it: the next group commits normally (no binlog_error_action for a loss that did not happen)."""
    engine, writer, end, interface, gc = pipeline
    gc._abort = pytest.fail  # (the default would end the test process)
    await engine._on_writer(engine._w_begin)  # the statement began the group's transaction ...
    await engine._on_writer(engine._wconn.execute, "ROLLBACK")  # ... and failed: SQLite rolled back
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    await gc.commit(Session(5), res.committed)  # no binlog_error_action
    await s.close()
    assert await engine_values(engine) == [1] == binlog_values(writer, writer.end_position.pos)


async def test_a_leader_cancelled_during_the_replay_finishes_it_and_answers_ok(pipeline, monkeypatch):  # noqa: F811
    """The writer lock is not released before the engine has the group, and a group the engine
    has is committed: cancelling the leader's session then changes nothing."""
    engine, writer, end, interface, gc = pipeline
    gc.binlog_error_action = lambda: IGNORE_ERROR
    calls = fail_engine_commits(monkeypatch, engine, times=4)
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    leader = asyncio.ensure_future(gc.commit(Session(5), res.committed))
    for _ in range(500):
        if len(calls) >= 2:  # the first replay failed: retrying
            break
        await asyncio.sleep(0.01)
    leader.cancel()
    await leader  # no CancelledError: the commit completed
    await s.close()
    assert len(calls) == 5 and await engine_values(engine) == [1]


async def test_a_replayed_group_writes_the_temporary_table_of_its_session(pipeline, monkeypatch):  # noqa: F811
    """Session 5's temporary `t` shadows the base `g.t`: the group replayed from the binlog after
    its failed engine commit writes that temporary table (its session's, still there), as the
    statement did when it ran, not the base table."""
    engine, writer, end, interface, gc = pipeline
    gc.binlog_error_action = lambda: IGNORE_ERROR
    s = engine.session(5)
    s.database = "g"
    res = await s.execute("CREATE TEMPORARY TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await gc.commit(Session(5), res.committed)
    calls = fail_engine_commits(monkeypatch, engine, times=1)
    res = await s.execute("INSERT INTO t (v) VALUES (9)")
    await asyncio.wait_for(gc.commit(Session(5), res.committed), 30)
    assert len(calls) == 2  # the failed commit, then the replay's
    assert await engine_values(engine) == []
    assert (await s.execute("SELECT v FROM t")).rows == [(9,)]
    await s.close()
