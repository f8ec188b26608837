"""log_slave_updates on real parts in tmp_path: the applier commits through the group commit
(`GroupCommit.commit_replicated`), so a replica's binlog holds the replicated transactions with
their origin's server_id and event timestamps, and the engine commits the applier's position
with the binlog position; a crash between the binlog write and the engine commit is replayed by
recovery, and the applier skips exactly what recovery replayed (nothing twice, nothing lost).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from binlog.reader import iter_events
from binlog.writer import BinlogWriter
from engine import Engine, StatementContext
from master import recovery
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from master.recovery import read_transactions, recover
from protocol.errors import ER_UNKNOWN_ERROR, SQLError
from protocol.events import EventType, Query, decode_event
from semisync.interface import BinlogStorageObserver, ReplicationInterface, StorageParam
from slave import applier as applier_module
from slave.applier import META_RELAY_POS, META_RELAY_SKIP, Applier, ReadyTransaction
from tests.unit.test_slave_applier import Relay, count_rows, until

MASTER_ID = 1  # the relay log's events (tests.support.relay_stream: timestamp 1 on every event)
OWN_ID = 2  # the replica's own server_id: its binlog's format description


class Node:
    """A replica's commit side: engine, binlog writer and group commit in tmp_path."""

    def __init__(self, tmp_path, abort=None, synchronous: str = "FULL") -> None:
        self.tmp_path = tmp_path
        self.abort = abort
        self.synchronous = synchronous

    async def open(self) -> Node:
        self.engine = await Engine.open(self.tmp_path / "db", readers=1, synchronous=self.synchronous)
        self.report = await recover(self.engine, self.tmp_path, "node-bin")
        self.writer = BinlogWriter(self.tmp_path, "node-bin", server_id=OWN_ID, checksum=True,
                                   max_size=1 << 20, server_version="10.11.99-semisync-log")
        self.writer.open()
        kw = {"abort": self.abort} if self.abort else {}
        self.pipeline = GroupCommit(self.engine, self.writer, BinlogEnd(self.writer.end_position),
                                    ReplicationInterface(), server_id=OWN_ID, sync_binlog=lambda: 1, **kw)
        return self

    def applier(self, relay: Relay, apply_user_statement=None) -> Applier:
        return Applier(self.engine, relay.log, table_columns=lambda db, table: None,
                       make_context=lambda **kw: StatementContext(**kw),
                       apply_user_statement=apply_user_statement,
                       commit=self.pipeline.commit_replicated)

    async def close(self) -> None:
        self.pipeline.close()
        self.writer.close()
        await self.engine.close()


def binlog(tmp_path) -> list[tuple[int, int, str]]:
    """(server_id, timestamp, query) of every QUERY and XID ('XID') event after each file's FD."""
    out = []
    for path in sorted(tmp_path.glob("node-bin.0*")):
        for _off, raw in iter_events(path, 4):
            ev = decode_event(raw, checksum=True)
            if isinstance(ev.body, Query):  # a QUERY_EVENT
                out.append((ev.header.server_id, ev.header.timestamp, ev.body.query))
            elif ev.type_code == EventType.XID_EVENT:
                out.append((ev.header.server_id, ev.header.timestamp, "XID"))
    return out


def inserts(tmp_path) -> list[str]:
    return [q for _sid, _ts, q in binlog(tmp_path) if q.startswith("INSERT")]


async def run_until(applier: Applier, predicate) -> asyncio.Task:
    task = asyncio.create_task(applier.run())
    await until(predicate)
    return task


async def stop(applier: Applier, task: asyncio.Task) -> None:
    applier.stop()
    await asyncio.wait_for(task, 10)


class Died(BaseException):
    """The process ending in the middle of a commit (kill -9)."""


async def apply_all(node: Node, relay: Relay, apply_user_statement=None) -> Applier:
    """Run an applier until it applied the whole relay log, then stop it."""
    applier = node.applier(relay, apply_user_statement)
    task = await run_until(applier, lambda: applier.relay_pos == relay.log.size)
    await stop(applier, task)
    return applier


async def crash_in_engine_commit(node: Node, applier: Applier) -> None:
    """Run the applier until its next engine commit, which dies (after the binlog write)."""

    async def dies(meta, *, durable=True, first=None):
        if first is not None:
            first()  # the group's binlog write, when it shares the engine commit's trip
        raise Died()

    node.engine.commit_group = dies  # type: ignore[method-assign]
    try:
        await asyncio.wait_for(applier.run(), 10)
    except Died:
        pass
    node.pipeline.close()
    node.writer.close()
    await node.engine.close()


def test_recovery_and_the_applier_name_the_same_meta_key():
    assert recovery.META_RELAY_SKIP == applier_module.META_RELAY_SKIP


async def test_replicated_transactions_are_binlogged_with_their_origin_and_one_group_per_batch(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 21))
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    events = binlog(tmp_path)
    # the DDL as lone QUERY events, the 20 inserts as BEGIN ... XID: every event with the
    # master's server_id and the master's timestamp (1), none with ours
    assert [q for _s, _t, q in events[:2]] == ["CREATE DATABASE d", "CREATE TABLE t (id INT PRIMARY KEY)"]
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 21)]
    assert {(sid, ts) for sid, ts, _q in events} == {(MASTER_ID, 1)}
    assert sum(q == "XID" for _s, _t, q in events) == 20
    assert node.pipeline.groups == 3  # each DDL alone, then the 20 inserts: ONE group, one fsync
    # the engine's meta: the binlog end AND the applier's position, committed together
    meta = node.engine.meta()
    assert meta["binlog_file"] == node.writer.current_file
    assert int(meta["binlog_pos"]) == node.writer.end_position.pos
    assert int(meta[META_RELAY_POS]) == relay.log.size
    # the binlog reads back as 22 replicated transactions
    names = node.writer.files()
    txns = list(read_transactions(tmp_path, names, type(node.writer.end_position)(names[0], 4)))
    assert len(txns) == 22 and all(t.replicated for t in txns)
    await node.close()


async def test_applied_batches_skip_the_engine_fsync_and_a_stopped_applier_leaves_them_fsynced(tmp_path):
    """The binlog's fsync covers each applied batch (recovery replays it): the engine commit does
    not fsync; once stopped, nothing applied waits for an fsync (CHANGE MASTER and RESET SLAVE
    drop the relay log that the replay's skip count refers to)."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 6))
    node = await Node(tmp_path, synchronous="NORMAL").open()
    unsynced: list[set[str]] = []
    commit_group = node.engine.commit_group

    async def observed(meta, *, durable=True, first=None):
        await commit_group(meta, durable=durable, first=first)
        unsynced.append(set(node.engine._unsynced))

    node.engine.commit_group = observed  # type: ignore[method-assign]
    applier = node.applier(relay)
    task = await run_until(applier, lambda: applier.relay_pos == relay.log.size)
    assert unsynced[-1] == {"d"}  # the last batch: committed, not fsynced by the engine
    await stop(applier, task)
    assert node.engine._unsynced == set()
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 6)]
    await node.close()


async def test_a_client_commit_keeps_the_applier_position_in_the_meta(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    session = node.engine.session(7)
    result = await session.execute("INSERT INTO d.t VALUES (100)")
    await node.pipeline.commit(None, result.committed)
    meta = node.engine.meta()
    assert int(meta[META_RELAY_POS]) == relay.log.size  # still there after a client group
    assert int(meta["binlog_pos"]) == node.writer.end_position.pos
    assert binlog(tmp_path)[-2][0] == OWN_ID  # the client's own insert carries our server_id
    await node.close()


def replicated(n: int, relay_pos: int) -> ReadyTransaction:
    """An applier's transaction inserting `n` into d.t, its position `relay_pos`."""
    statement = (f"INSERT INTO t VALUES ({n})", StatementContext(timestamp=1), "d")
    return ReadyTransaction([statement], {META_RELAY_POS: relay_pos}, relay_pos, 1, MASTER_ID)


async def test_a_lone_statement_is_binlogged_by_the_kind_the_applier_decided_not_read_again(tmp_path):
    """The group commit writes a one-statement transaction alone (a standalone QUERY, no XID)
    or as BEGIN ... XID by the kind the applier carried (`ReadyTransaction.transactional`); only
    an undecided one (None) has its text read again."""
    relay = Relay(tmp_path)
    node = await Node(tmp_path).open()
    await apply_all(node, relay)  # the DDL
    decided = [replace(replicated(1, 1000), transactional=False),  # DDL, though the text reads as DML
               replace(replicated(2, 1001), transactional=True), replicated(3, 1002)]
    await node.pipeline.commit_replicated(decided)
    await node.pipeline.commit_replicated([replicated(4, 1003)])  # undecided: its text says DML
    events = [q for _s, _t, q in binlog(tmp_path)][2:]
    # (each transaction opened by its GTID event: a lone statement has no XID after it)
    assert events == ["INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)", "XID",
                      "INSERT INTO t VALUES (3)", "XID", "INSERT INTO t VALUES (4)", "XID"]
    await node.close()


async def test_a_batch_that_finds_the_writer_lock_free_leads_its_own_group(tmp_path):
    """No client holds or waits for the lock: the batch runs and commits under one holding of
    it, as one group; a client writing meanwhile waits, and commits in the next group."""
    relay = Relay(tmp_path)
    node = await Node(tmp_path).open()
    await apply_all(node, relay)  # the DDL
    groups = node.pipeline.groups
    session = node.engine.session(7)

    async def client() -> None:
        result = await session.execute("INSERT INTO d.t VALUES (100)")
        await node.pipeline.commit(None, result.committed)

    batch = asyncio.ensure_future(node.pipeline.commit_replicated([replicated(1, 1000)]))
    await asyncio.sleep(0)  # the batch holds the lock and runs its statement
    assert node.engine.writer_lock.locked()
    await asyncio.gather(batch, client())
    assert node.pipeline.groups == groups + 2
    assert inserts(tmp_path) == ["INSERT INTO t VALUES (1)", "INSERT INTO d.t VALUES (100)"]
    assert [sid for sid, _ts, q in binlog(tmp_path) if q.startswith("INSERT")] == [MASTER_ID, OWN_ID]
    meta = node.engine.meta()
    assert int(meta[META_RELAY_POS]) == 1000 and int(meta["binlog_pos"]) == node.writer.end_position.pos
    assert await count_rows(node.engine) == 2 and not node.engine.writer_lock.locked()
    await node.close()


async def test_a_batch_that_waits_for_a_client_joins_the_client_s_group_after_it(tmp_path):
    """A client's open transaction holds the lock: the batch waits for it, runs after the
    client's COMMIT and joins the group the client leads, binlogged after the client's."""
    relay = Relay(tmp_path)
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    groups = node.pipeline.groups
    session = node.engine.session(7)
    await session.execute("BEGIN")
    await session.execute("INSERT INTO d.t VALUES (100)")  # holds the writer lock
    batch = asyncio.ensure_future(node.pipeline.commit_replicated([replicated(1, 1000)]))
    await asyncio.sleep(0.05)
    assert not batch.done() and inserts(tmp_path) == []

    async def client_commit() -> None:  # as the server's session: queued as COMMIT returns
        result = await session.execute("COMMIT")
        await node.pipeline.commit(None, result.committed)

    await asyncio.gather(batch, client_commit())
    assert node.pipeline.groups == groups + 1  # one group: the client's, then the batch
    assert inserts(tmp_path) == ["INSERT INTO d.t VALUES (100)", "INSERT INTO t VALUES (1)"]
    meta = node.engine.meta()
    assert int(meta[META_RELAY_POS]) == 1000 and int(meta["binlog_pos"]) == node.writer.end_position.pos
    assert await count_rows(node.engine) == 2
    await node.close()


async def test_log_slave_updates_off_commits_through_the_group_without_binlogging(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    node = await Node(tmp_path).open()
    before = node.writer.end_position

    async def commit(transactions):
        await node.pipeline.commit_replicated(transactions, log_bin=False)

    applier = Applier(node.engine, relay.log, table_columns=lambda db, table: None,
                      make_context=lambda **kw: StatementContext(**kw), commit=commit)
    task = await run_until(applier, lambda: applier.applied_transactions == 5)
    await stop(applier, task)
    assert node.writer.end_position == before and binlog(tmp_path) == []
    assert await count_rows(node.engine) == 3
    assert int(node.engine.meta()[META_RELAY_POS]) == relay.log.size
    await node.close()


async def test_a_crash_between_binlog_and_engine_is_replayed_once_and_skipped_by_the_applier(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    committed_relay_pos = int(node.engine.meta()[META_RELAY_POS])

    # the next batch (4..9) reaches the binlog (fsynced), then the engine commit dies
    relay.transactions(range(4, 10))
    await crash_in_engine_commit(node, node.applier(relay))
    # the process is gone: the group is in the binlog, not in the engine, the position unmoved
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 10)]

    relay.transactions(range(10, 13))  # the IO task went on before the crash
    node = await Node(tmp_path).open()
    assert node.report.replayed == 6 and node.report.replicated == 6
    assert await count_rows(node.engine) == 9
    assert int(node.engine.meta()[META_RELAY_POS]) == committed_relay_pos
    assert node.engine.meta()[META_RELAY_SKIP] == "6"
    await apply_all(node, relay)
    # each row once in the engine, each transaction once in the binlog, the skip count used up
    session = node.engine.session(5)
    result = await session.execute("SELECT id FROM d.t ORDER BY id")
    assert [r[0] for r in result.rows] == list(range(1, 13))
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 13)]
    assert node.engine.meta()[META_RELAY_SKIP] == "0"
    await node.close()


async def test_a_second_crash_before_the_skipping_is_committed_adds_to_the_count(tmp_path):
    """Restarted after a crash, the applier's first group holds the skipped transactions (as
    position-only steps) and new ones; that group dies too: recovery adds what it replays to
    the count it found, and the applier then skips both."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 3))
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    relay.transactions(range(3, 6))
    await crash_in_engine_commit(node, node.applier(relay))
    node = await Node(tmp_path).open()
    assert node.engine.meta()[META_RELAY_SKIP] == "3"
    relay.transactions(range(6, 9))
    await crash_in_engine_commit(node, node.applier(relay))
    node = await Node(tmp_path).open()
    assert node.report.replicated == 3 and node.engine.meta()[META_RELAY_SKIP] == "6"
    await apply_all(node, relay)
    assert await count_rows(node.engine) == 8
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 9)]
    assert node.engine.meta()[META_RELAY_SKIP] == "0"
    await node.close()


async def test_user_statements_are_binlogged_with_their_origin_and_counted_by_recovery(tmp_path):
    relay = Relay(tmp_path)
    applied: list[str] = []

    async def apply_user_statement(sql):
        applied.append(sql)

    relay.append([relay.stream.event(Query(db="", query="CREATE USER 'u'@'%'"))])
    relay.transactions([1])
    node = await Node(tmp_path).open()
    await apply_all(node, relay, apply_user_statement)
    assert applied == ["CREATE USER 'u'@'%'"]
    assert (MASTER_ID, 1, "CREATE USER 'u'@'%'") in binlog(tmp_path)

    # a crash after the binlog write of the next user statement and transaction
    relay.append([relay.stream.event(Query(db="", query="GRANT ALL ON *.* TO 'u'@'%'"))])
    relay.transactions([2])
    await crash_in_engine_commit(node, node.applier(relay, apply_user_statement))
    node = await Node(tmp_path).open()
    # the GRANT (its own group, committed) is not replayed, the insert is; both are counted only
    # if lost: here the GRANT's group committed, the insert's did not
    assert node.report.replicated == 1 and node.engine.meta()[META_RELAY_SKIP] == "1"
    await apply_all(node, relay, apply_user_statement)
    assert applied.count("GRANT ALL ON *.* TO 'u'@'%'") == 1
    assert inserts(tmp_path) == ["INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (2)"]
    assert await count_rows(node.engine) == 2
    await node.close()


async def test_recovery_counts_a_lost_replicated_user_statement(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions([1])
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    relay.append([relay.stream.event(Query(db="", query="CREATE USER 'v'@'%'"))])
    applied: list[str] = []

    async def apply_user_statement(sql):
        applied.append(sql)
    await crash_in_engine_commit(node, node.applier(relay, apply_user_statement))
    node = await Node(tmp_path).open()
    assert node.report.replicated == 1 and node.report.replayed == 0
    await apply_all(node, relay, apply_user_statement)
    assert applied == ["CREATE USER 'v'@'%'"]  # once: before the crash, not again after it
    assert [q for _s, _t, q in binlog(tmp_path)].count("CREATE USER 'v'@'%'") == 1
    await node.close()


async def test_a_failing_replicated_transaction_commits_those_before_it_and_nothing_of_a_client(tmp_path):
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    relay.transactions([2, 9])  # a duplicate key, then one that must not be applied
    node = await Node(tmp_path).open()
    applier = node.applier(relay)
    await asyncio.wait_for(applier.run(), 10)
    assert applier.last_errno == 1062
    assert await count_rows(node.engine) == 3
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 4)]
    assert int(node.engine.meta()["binlog_pos"]) == node.writer.end_position.pos
    await node.close()


async def test_a_replicated_group_whose_engine_commit_fails_is_replayed_not_aborted(tmp_path):
    """A full disk failing the engine commit after the binlog write: the applier's group is
    replayed from the binlog (as IGNORE_ERROR), whatever binlog_error_action says."""
    aborted: list[str] = []
    relay = Relay(tmp_path)
    relay.transactions(range(1, 4))
    node = await Node(tmp_path, abort=aborted.append).open()
    await apply_all(node, relay)
    relay.transactions(range(4, 8))
    real = node.engine.commit_group
    failures = [1]

    async def fails_once(meta, *, durable=True, first=None):
        if failures:
            failures.pop()
            if first is not None:
                first()  # the group's binlog write, when it shares the engine commit's trip
            await node.engine.rollback_group()  # what SQLite does to a failed COMMIT
            raise SQLError(ER_UNKNOWN_ERROR, "engine commit failed: database or disk is full")
        await real(meta, durable=durable, first=first)

    node.engine.commit_group = fails_once  # type: ignore[method-assign]
    await apply_all(node, relay)
    assert aborted == [] and not failures
    assert await count_rows(node.engine) == 7
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 8)]
    meta = node.engine.meta()
    assert int(meta[META_RELAY_POS]) == relay.log.size and int(meta["binlog_pos"]) == node.writer.end_position.pos
    await node.close()


async def test_stop_slave_during_a_semi_sync_wait_leaves_the_group_to_commit_with_its_position(tmp_path):
    """STOP SLAVE cancels an applier whose group waits for a sub-slave's ack (after_sync): the
    group still commits with the applier's position, and the restarted applier starts after it."""
    relay = Relay(tmp_path)
    relay.transactions(range(1, 3))
    node = await Node(tmp_path).open()
    await apply_all(node, relay)
    released, waiting = asyncio.Event(), asyncio.Event()

    class WaitsForAck(BinlogStorageObserver):
        async def after_sync(self, param: StorageParam) -> None:
            waiting.set()
            await released.wait()

    node.pipeline.interface.storage.add_observer(WaitsForAck())
    relay.transactions(range(3, 6))
    applier = node.applier(relay)
    task = asyncio.create_task(applier.run())
    await asyncio.wait_for(waiting.wait(), 10)
    task.cancel()  # STOP SLAVE after its timeout
    await asyncio.gather(task, return_exceptions=True)
    released.set()  # the ack arrives
    task = asyncio.create_task(applier.run())  # START SLAVE
    await until(lambda: applier.relay_pos == relay.log.size)
    await stop(applier, task)
    assert applier.last_errno == 0, applier.last_error
    assert await count_rows(node.engine) == 5
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 6)]
    assert int(node.engine.meta()[META_RELAY_POS]) == relay.log.size
    await node.close()
