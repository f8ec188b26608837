"""The group commit pipeline (master.commit) on a real engine and a real binlog in tmp_path:
stage order and hooks, grouping under concurrency, the binlog and the engine agreeing at every
group boundary, publication only after the sync."""

from __future__ import annotations

import asyncio
import inspect
import sys

import pytest

from binlog.reader import iter_events
from binlog.syncer import NativeSyncer
from binlog.syncer import available as syncer_available
from binlog.writer import BinlogWriter
from engine.core import Engine
from engine.results import CommittedTxn
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from protocol.events import EventType, Query, decode_event
from semisync.interface import (
    DONE,
    BinlogStorageObserver,
    Delegate,
    ReplicationInterface,
    StorageParam,
    TransactionObserver,
    TransParam,
)


class Session:
    def __init__(self, connection_id: int) -> None:
        self.connection_id = connection_id
        self.states: list[str | None] = []

    def set_state(self, state: str | None) -> None:
        self.states.append(state)


@pytest.fixture(params=["native", "lane"])
async def pipeline(tmp_path, request):
    """A pipeline whose synced groups are written on the loop and fdatasynced on the compiled
    syncer ("native", where binlog._syncer was built; its engine under synchronous NORMAL, as
    the node's, so that a group fsynced in the binlog commits on the loop), or written and
    fsynced on the binlog I/O thread or, in one step, the engine's writer thread ("lane"; its
    engine under FULL, which commits on that thread): every test runs on both."""
    if request.param == "native" and not syncer_available():
        pytest.skip("binlog._syncer was not built")
    engine = await Engine.open(tmp_path / "db", synchronous="NORMAL" if request.param == "native" else "FULL")
    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                          server_version="10.11.99-semisync-log")
    writer.open()
    end = BinlogEnd(writer.end_position)
    interface = ReplicationInterface()
    gc = GroupCommit(engine, writer, end, interface, server_id=1, sync_binlog=lambda: 1)
    gc.native_sync = request.param == "native"
    s = engine.session(1)
    for sql in ("CREATE DATABASE g", "CREATE TABLE g.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"):
        res = await s.execute(sql)
        await gc.commit(Session(1), res.committed)
    await s.close()
    yield engine, writer, end, interface, gc
    gc.close()
    writer.close()
    await engine.close()


def binlog_values(writer: BinlogWriter, upto: int) -> list[int]:
    """Values of the INSERTs of XID-terminated transactions in [4, upto) of the current file."""
    values, pending = [], []
    for _off, raw in iter_events(writer.directory / writer.current_file, 4, upto):
        ev = decode_event(raw, checksum=True)
        if isinstance(ev.body, Query) and ev.body.query.startswith("INSERT"):  # a QUERY_EVENT
            pending.append(int(ev.body.query.rsplit("(", 1)[1].rstrip(")")))
        elif ev.type_code == EventType.XID_EVENT:
            values += pending
            pending = []
    return values


async def engine_values(engine: Engine) -> list[int]:
    s = engine.session(99)
    res = await s.execute("SELECT v FROM g.t")
    await s.close()
    return sorted(r[0] for r in res.rows)


async def test_concurrent_commits_form_groups_and_binlog_and_engine_agree_at_each_boundary(pipeline):
    engine, writer, end, interface, gc = pipeline
    log: list[tuple] = []
    checks: list[tuple[list[int], list[int]]] = []
    previous_end = [writer.end_position.pos]

    class Observer(TransactionObserver, BinlogStorageObserver):
        def before_commit(self, param: TransParam) -> None:
            log.append(("before_commit", param.connection_id))

        def after_flush(self, param: StorageParam) -> None:
            # not yet published: dump sessions must not see an unsynced group
            assert end.position.pos == previous_end[0] < param.position.pos
            log.append(("after_flush", param.transactions))

        async def after_sync(self, param: StorageParam) -> None:
            assert end.position == writer.end_position
            assert param.position == end.position
            # the engine holds exactly the transactions of the groups before this one
            checks.append((await engine_values(engine), sorted(binlog_values(writer, previous_end[0]))))
            previous_end[0] = param.position.pos
            log.append(("after_sync", param.transactions))

        async def after_commit(self, param: TransParam) -> None:
            log.append(("after_commit", param.transactions))

    observer = Observer()
    interface.transaction.add_observer(observer)
    interface.storage.add_observer(observer)

    async def client(n: int) -> None:
        s = engine.session(10 + n)
        for i in range(15):
            res = await s.execute(f"INSERT INTO g.t (v) VALUES ({n * 100 + i})")
            # as the server shell does: the commit runs shielded, in a task of its own
            await asyncio.shield(gc.commit(Session(10 + n), res.committed))
        await s.close()

    await asyncio.wait_for(asyncio.gather(*(client(n) for n in range(8))), 60)
    assert len(checks) == gc.groups - 2  # every group but the two DDL ones was observed
    for in_engine, in_binlog in checks:
        assert in_engine == in_binlog
    final = await engine_values(engine)
    assert final == sorted(binlog_values(writer, writer.end_position.pos)) == sorted(
        n * 100 + i for n in range(8) for i in range(15))
    sizes = [entry[1] for entry in log if entry[0] == "after_flush"]
    assert sum(sizes) == 120 and max(sizes) > 1  # concurrent committers shared groups
    # per group: before_commit for each, then after_flush, after_sync, after_commit once
    i = 0
    while i < len(log):
        j = i
        while log[j][0] == "before_commit":
            j += 1
        n = j - i
        assert log[j:j + 3] == [("after_flush", n), ("after_sync", n), ("after_commit", n)]
        i = j + 3
    assert engine.meta() == {"binlog_file": writer.current_file, "binlog_pos": str(writer.end_position.pos)}


async def test_empty_delegates_and_sync_binlog_zero(pipeline, monkeypatch):
    engine, writer, end, interface, gc = pipeline
    synced: list[int] = []
    gc.sync_binlog = lambda: 0
    monkeypatch.setattr(writer, "sync", lambda: synced.append(1))
    s = engine.session(5)
    for i in range(3):
        res = await s.execute(f"INSERT INTO g.t (v) VALUES ({i})")
        await gc.commit(Session(5), res.committed)
    await s.close()
    assert synced == []
    assert end.position == writer.end_position
    assert await engine_values(engine) == [0, 1, 2]


async def test_a_group_asks_no_delegate_its_truth_and_splits_each_transaction_once(pipeline, monkeypatch):
    """A group's stages test the delegates' observer tuples (no `Delegate.__bool__`, a Python
    call each) and take each transaction's binlog transactions once (its count and its events),
    with observers registered and without."""
    engine, writer, end, interface, gc = pipeline
    truths: list[str] = []
    monkeypatch.setattr(Delegate, "__bool__", lambda d: truths.append(type(d).__name__) or bool(d.observers))
    splits: list[int] = []
    split = CommittedTxn.binlog_transactions
    monkeypatch.setattr(CommittedTxn, "binlog_transactions", lambda txn: splits.append(1) or split(txn))
    hooks: list[str] = []

    class Observer(TransactionObserver, BinlogStorageObserver):
        def before_commit(self, param: TransParam) -> None:
            hooks.append("before_commit")

        def after_flush(self, param: StorageParam) -> None:
            hooks.append("after_flush")

        async def after_sync(self, param: StorageParam) -> None:
            hooks.append("after_sync")

        async def after_commit(self, param: TransParam) -> None:
            hooks.append("after_commit")

    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    await gc.commit(Session(5), res.committed)
    observer = Observer()
    interface.transaction.add_observer(observer)
    interface.storage.add_observer(observer)
    res = await s.execute("INSERT INTO g.t (v) VALUES (2)")
    await gc.commit(Session(5), res.committed)
    await s.close()
    assert hooks == ["before_commit", "after_flush", "after_sync", "after_commit"]
    assert truths == [] and splits == [1, 1]
    assert sorted(binlog_values(writer, writer.end_position.pos)) == await engine_values(engine) == [1, 2]


async def commit_profiled(gc: GroupCommit, session: Session, committed: CommittedTxn) -> list[tuple[str, bool]]:
    """`gc.commit(session, committed)`, with the frames of master/commit.py it entered or resumed
    meanwhile: (name, whether a coroutine's)."""
    frames: list[tuple[str, bool]] = []

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and code.co_filename.endswith("commit.py"):
            frames.append((code.co_name, bool(code.co_flags & inspect.CO_COROUTINE)))

    sys.setprofile(profile)
    try:
        await gc.commit(session, committed)
    finally:
        sys.setprofile(None)
    return frames


async def test_an_after_commit_that_does_not_wait_is_answered_without_a_coroutine(pipeline):
    """An after_commit hook that answers the finished awaitable (the semi-sync plugin at
    AFTER_SYNC) is not awaited through a coroutine of the pipeline's: the group's sessions are
    answered in the frame that committed it. A hook that waits is still awaited."""
    engine, writer, end, interface, gc = pipeline
    hooks: list[str] = []

    class NotWaiting(TransactionObserver):
        def after_commit(self, param: TransParam):  # type: ignore[override]
            hooks.append("after_commit")
            return DONE

    class Waiting(TransactionObserver):
        async def after_commit(self, param: TransParam) -> None:
            await asyncio.sleep(0)
            hooks.append("awaited")

    s = engine.session(5)
    interface.transaction.add_observer(NotWaiting())
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    coroutines = [name for name, coroutine in await commit_profiled(gc, Session(5), res.committed) if coroutine]
    assert hooks == ["after_commit"]
    assert "_answer" not in coroutines and "_after_commit" not in coroutines and "commit" in coroutines
    interface.transaction.add_observer(Waiting())
    res = await s.execute("INSERT INTO g.t (v) VALUES (2)")
    await gc.commit(Session(5), res.committed)
    await s.close()
    assert hooks == ["after_commit", "after_commit", "awaited"]
    assert await engine_values(engine) == [1, 2]


async def test_a_commit_that_finds_the_lock_free_runs_its_group_without_a_leader_frame(pipeline):
    """`commit` with the writer lock free and nothing on its way to the queue takes its group in
    the step it queues (as `_lead` would in that step) and awaits the group's run itself: no
    `_lead` frame to resume at each of the group's wakeups. A commit that finds a leader
    joins its group as before."""
    engine, writer, end, interface, gc = pipeline
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    frames = [name for name, _ in await commit_profiled(gc, Session(5), res.committed)]
    assert "_run_group" in frames and "_lead" not in frames
    groups = gc.groups
    others = [engine.session(6 + i) for i in range(3)]
    results = [await o.execute(f"INSERT INTO g.t (v) VALUES ({2 + i})") for i, o in enumerate(others)]
    await asyncio.gather(*(gc.commit(Session(6 + i), r.committed) for i, r in enumerate(results)))
    for o in (s, *others):
        await o.close()
    assert gc.groups == groups + 1  # the three in one group: the first led it, the others joined
    assert sorted(binlog_values(writer, writer.end_position.pos)) == await engine_values(engine) == [1, 2, 3, 4]


async def test_the_engine_commit_skips_its_fsync_only_when_the_binlog_fsynced_the_group(pipeline, monkeypatch):
    engine, writer, end, interface, gc = pipeline
    calls: list[tuple[dict[str, str], bool]] = []
    commit_group = engine.commit_group

    async def spy(meta: dict[str, str], *, durable: bool = True, first=None) -> None:
        calls.append((meta, durable))
        await commit_group(meta, durable=durable, first=first)

    monkeypatch.setattr(engine, "commit_group", spy)
    s = engine.session(5)
    # sync_binlog: each group / never / every second group (the unsynced one before counts)
    for every in (1, 0, 2, 2):
        gc.sync_binlog = lambda every=every: every
        res = await s.execute(f"INSERT INTO g.t (v) VALUES ({every})")
        await gc.commit(Session(5), res.committed)
    await s.close()
    # not durable only when recovery can replay it from a binlog that was fsynced
    assert [durable for _meta, durable in calls] == [False, True, False, True]
    # the group's keys only: the engine merges them over its meta (no copy of it here)
    assert [set(meta) for meta, _durable in calls] == [{"binlog_file", "binlog_pos"}] * 4
    assert engine.meta()["binlog_pos"] == str(writer.end_position.pos)


async def test_a_group_no_observer_holds_is_written_synced_and_committed_in_one_trip(pipeline, monkeypatch):
    """No storage observer holds groups: the binlog write and the engine commit share one trip
    to the engine's writer thread (no binlog I/O hop), and after_flush follows the commit with
    after_sync not called; an observer that holds groups sees the write before the commit."""
    engine, writer, end, interface, gc = pipeline
    seen: list[tuple[str, str, str]] = []  # (hook, the engine's binlog_pos, the group's end)

    class Observer(BinlogStorageObserver):
        holds = False

        def holds_groups(self) -> bool:
            return self.holds

        def after_flush(self, param: StorageParam) -> None:
            seen.append(("after_flush", engine.meta()["binlog_pos"], str(param.position.pos)))

        async def after_sync(self, param: StorageParam) -> None:
            seen.append(("after_sync", engine.meta()["binlog_pos"], str(param.position.pos)))

    hops: list[str] = []
    run_io = gc.run_io

    async def counted(fn, *args):
        hops.append(fn.__name__)
        return await run_io(fn, *args)

    monkeypatch.setattr(gc, "run_io", counted)
    observer = Observer()
    interface.storage.add_observer(observer)
    s = engine.session(5)
    for holds in (False, True):
        observer.holds = holds
        res = await s.execute(f"INSERT INTO g.t (v) VALUES ({int(holds)})")
        await gc.commit(Session(5), res.committed)
    await s.close()
    (one_step, committed, pos1), (flushed, before, pos2), (synced, still_before, pos2_) = seen
    assert (one_step, committed) == ("after_flush", pos1)  # the engine has the group already
    assert (flushed, synced) == ("after_flush", "after_sync") and pos2 == pos2_
    assert before == still_before == pos1  # held: the engine commits after after_sync
    assert engine.meta()["binlog_pos"] == pos2 == str(writer.end_position.pos)
    # only the held group went to the binlog's I/O thread, and only without the compiled syncer
    assert hops == ([] if gc.native_sync else ["write_group"])
    assert binlog_values(writer, writer.end_position.pos) == [0, 1]


async def test_a_synced_group_no_observer_holds_wakes_no_python_thread(pipeline, monkeypatch):
    """A replica's group (no storage observer holds groups) fsynced per sync_binlog=1, on the
    node's engine (synchronous NORMAL): written on the loop, fdatasynced on the compiled
    syncer's thread, then committed on the loop; neither the engine's writer thread nor the
    binlog's I/O thread is called. The engine commit follows the fdatasync's answer, and
    after_flush sees the group committed, as in one trip."""
    engine, writer, end, interface, gc = pipeline
    if not gc.native_sync:
        pytest.skip("the lane's group goes to the engine's writer thread")
    steps: list[str] = []

    class Observer(BinlogStorageObserver):
        def holds_groups(self) -> bool:
            return False

        def after_flush(self, param: StorageParam) -> None:
            steps.append("after_flush" if engine.meta()["binlog_pos"] == str(param.position.pos) else "uncommitted")

    interface.storage.add_observer(Observer())
    s = engine.session(5)
    res = await s.execute("INSERT INTO g.t (v) VALUES (1)")
    fdatasync, commit_group, writer_call, io_call = NativeSyncer.fdatasync, engine.commit_group, engine._writer.call, gc._io.call

    def synced(self, fd):
        done = fdatasync(self, fd)
        done.add_done_callback(lambda _: steps.append("fdatasync"))
        return done

    async def committed(meta, **kwargs):
        steps.append("commit")
        await commit_group(meta, **kwargs)

    def thread(name):
        def call(fn, *args):
            steps.append(name)
            return (writer_call if name == "writer thread" else io_call)(fn, *args)
        return call

    monkeypatch.setattr(NativeSyncer, "fdatasync", synced)
    monkeypatch.setattr(engine, "commit_group", committed)
    monkeypatch.setattr(engine._writer, "call", thread("writer thread"))
    monkeypatch.setattr(gc._io, "call", thread("binlog I/O thread"))
    await gc.commit(Session(5), res.committed)
    monkeypatch.undo()
    await s.close()
    assert steps == ["fdatasync", "commit", "after_flush"]
    assert writer.synced_position == writer.end_position == end.position
    assert await engine_values(engine) == [1] == binlog_values(writer, writer.end_position.pos)


def engine_commits(monkeypatch, engine: Engine, writer: BinlogWriter) -> list[tuple[list[int], list[int]]]:
    """For each engine commit of a group, once it is done: the values the engine then holds, and
    the values the binlog holds up to the position that commit stored (they must be equal)."""
    boundaries: list[tuple[list[int], list[int]]] = []
    commit_group = engine.commit_group

    async def recording(meta: dict[str, str], **kwargs) -> None:
        await commit_group(meta, **kwargs)
        boundaries.append((await engine_values(engine), binlog_values(writer, int(meta["binlog_pos"]))))

    monkeypatch.setattr(engine, "commit_group", recording)
    return boundaries


async def _lead_behind(engine: Engine, gc: GroupCommit, holder) -> asyncio.Task:
    """A leader waiting for the writer lock that `holder` holds: a user statement's group."""
    leader = asyncio.ensure_future(gc.append_statement(Session(2), "CREATE USER u"))
    for _ in range(3):
        await asyncio.sleep(0)
    assert engine.writer_lock.parties()[0] is holder and len(engine.writer_lock.parties()) == 2
    return leader


async def test_a_commit_queued_in_the_step_that_released_the_lock_costs_its_leader_no_loop_turn(pipeline, monkeypatch):
    """A session's COMMIT lets go of the writer lock and hands its transaction to the queue in
    one step (module docstring, "Ordering"): the leader it woke takes the queue, that
    transaction in it, as it gets the lock, without a turn of the loop."""
    engine, writer, end, interface, gc = pipeline
    boundaries = engine_commits(monkeypatch, engine, writer)
    s = engine.session(5)
    await s.execute("BEGIN")
    await s.execute("INSERT INTO g.t (v) VALUES (1)")  # the writer lock held until COMMIT
    leader = await _lead_behind(engine, gc, s)
    turns: list[float] = []
    sleep = asyncio.sleep

    async def counted(delay: float, *args, **kwargs):
        turns.append(delay)
        return await sleep(delay, *args, **kwargs)

    monkeypatch.setattr(asyncio, "sleep", counted)
    groups = gc.groups
    res = await s.execute("COMMIT")
    assert engine.handover.pending == 1  # handed out, not yet queued
    await gc.commit(Session(5), res.committed)
    await leader
    assert engine.handover.pending == 0
    assert 0 not in turns  # the leader waited for no loop turn
    assert gc.groups == groups + 1  # one group: the user statement and the transaction
    assert boundaries == [([1], [1])]
    await s.close()


async def test_a_commit_queued_a_step_after_the_lock_went_is_in_the_group_of_the_leader_it_woke(pipeline, monkeypatch):
    """The lock's release and the commit's queueing in different steps (a commit run as a task
    of its own): the leader the release woke waits for it (`Handover.pending`) before taking
    the queue, so that its engine commit holds no row whose binlog events are in the next group."""
    engine, writer, end, interface, gc = pipeline
    boundaries = engine_commits(monkeypatch, engine, writer)
    s = engine.session(5)
    await s.execute("BEGIN")
    await s.execute("INSERT INTO g.t (v) VALUES (1)")
    leader = await _lead_behind(engine, gc, s)
    groups = gc.groups
    res = await s.execute("COMMIT")  # the leader is woken ...
    late = asyncio.ensure_future(gc.commit(Session(5), res.committed))  # ... before this task's first step
    await asyncio.gather(leader, late)
    assert boundaries == [([1], [1])]  # not ([1], []): the engine's row without its events
    assert gc.groups == groups + 1
    assert engine.handover.pending == 0
    await s.close()


async def test_an_open_group_taking_the_lock_back_waits_for_a_commit_queued_a_step_after_the_lock_went(pipeline, monkeypatch):
    """The open group's leader (`_wait_open`) takes the writer lock back after its ack; a
    transaction written meanwhile whose commit is queued a step after the lock went to that
    leader is waited for, and committed in the engine with its binlog events."""
    engine, writer, end, interface, gc = pipeline
    boundaries = engine_commits(monkeypatch, engine, writer)
    ack = asyncio.Event()

    class Observer(BinlogStorageObserver):
        def holds_groups(self) -> bool:
            return True

        def waits_after_sync(self) -> bool:
            return True

        async def after_sync(self, param: StorageParam) -> None:
            await ack.wait()

    interface.storage.add_observer(Observer())
    a, b = engine.session(5), engine.session(6)
    res = await a.execute("INSERT INTO g.t (v) VALUES (1)")
    first = asyncio.ensure_future(gc.commit(Session(5), res.committed))
    while not engine.settle.is_open:  # the first group written, open, waiting for its ack
        await asyncio.sleep(0)
    res = await b.execute("INSERT INTO g.t (v) VALUES (2)")  # into the open transaction; not queued yet
    holder = object()
    assert engine.writer_lock.try_acquire(holder)
    ack.set()
    while len(engine.writer_lock.parties()) < 2:  # the open group's leader waits for the lock
        await asyncio.sleep(0)
    engine.writer_lock.release()  # that leader is woken ...
    late = asyncio.ensure_future(gc.commit(Session(6), res.committed))  # ... before this task's first step
    await asyncio.gather(first, late)
    assert boundaries == [([1, 2], [1, 2])]  # not ([1, 2], [1]): a row without its events
    assert engine.handover.pending == 0
    await a.close()
    await b.close()


async def test_rotation_after_a_group_at_max_binlog_size(pipeline):
    engine, writer, end, interface, gc = pipeline
    writer.max_size = 4096
    s = engine.session(5)
    for i in range(40):
        res = await s.execute(f"INSERT INTO g.t (v) VALUES ({i})")
        await gc.commit(Session(5), res.committed)
    await s.close()
    files = writer.files()
    assert len(files) > 1
    assert end.position == writer.end_position and end.position.file == files[-1]
    # no transaction is split between two files: each file's last event before ROTATE is an XID
    for name in files[:-1]:
        types = [raw[4] for _off, raw in iter_events(writer.directory / name)]
        assert types[-1] == EventType.ROTATE_EVENT and types[-2] == EventType.XID_EVENT
