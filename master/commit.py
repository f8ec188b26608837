"""`GroupCommit`: the master's commit pipeline (MySQL's ordered_commit stages) and its hooks.

Contract (who may call what, what is durable when)
- `commit(session, txn)` is `Role.commit`: the session's engine transaction `txn` is logically
  committed (it is in the writer connection's open SQLite transaction, invisible to readers, and
  the session has released the engine's writer lock). It returns when the client may get its OK.
  `commit_now(session, txn)` (`Role.commit_now`) is the same begun synchronously, for a session
  that released the lock in the same step without a task (a COMMIT answered on receipt): the
  transaction is queued and a leader holds or waits for the lock before it returns (a task of
  its own leads that group), so no group commits the transaction's changes without it; the
  future it returns is settled as `commit` returns or raises.
- Ordering. Committers queue up. One of them, the flush leader, waits for the engine's FIFO
  writer lock: every session already waiting for that lock runs and logically commits before
  the leader gets it, so their transactions join this group. Holding the lock, the leader takes
  the whole queue: a group's order in the binlog is the engine's commit order, and
  `engine.commit_group` commits exactly the group's transactions.
  The leader takes the queue in the step it gets the lock, unless a transaction is on its way
  to the queue (`engine.handover.pending`, `engine.concurrency.Handover`); then it first waits
  one loop turn for it. Why nothing is left out: a transaction gets into the writer's open
  SQLite transaction only under the lock, and whoever lets go of the lock either ended its
  transaction without a trace there (rolled back, undone) or committed it logically and handed
  it out (`Handover.hand`: the engine session's four ends of a transaction, `commit_replicated`
  here) in the same step; `_join` takes it back in the step that queues it. The leader holds
  the lock from its check to taking the queue (one step), so nothing is added meanwhile: with
  nothing on its way, every transaction of the open SQLite transaction is in the queue taken,
  in an open group (taken from an earlier queue) or in a group written before, and no group
  commits engine rows whose binlog events are in the next group. The usual paths (a session's
  write or COMMIT, `commit_now`, the applier's `commit_replicated`) hand out and queue in one
  step: their leader waits for no loop turn. One that queues in a later step (a commit made a
  task of its own, `asyncio.shield`) is waited for, as is a transaction dropped after it was
  handed out (then every leader waits one turn, as all did before `Handover`).
- Stages of one group, in order (WL#4398 hook names):
  `before_commit` (each transaction) -> flush: events appended and written to the OS -> sync:
  fsync every `sync_binlog` groups (0 = never) -> `after_flush` (position = the group's end;
  after the sync when there is one, as WL#4398 puts it) -> publish the binlog end position (dump sessions' update signal; after the sync, so a
  slave never receives what the master could lose; with the group's events as the writer
  encoded them, `BinlogEnd.tail`, which dump sessions at the group's start send without
  reading the file) -> `after_sync` (the AFTER_SYNC semi-sync
  wait, once per group) -> engine commit (`commit_group` with the group's end as the engine's
  meta, atomically; without its own fsync when this group's binlog write was fsynced: recovery
  replays the binlog after the engine's meta, so the binlog's fsync is the group's one
  durability point) -> writer lock released -> `after_commit` (the AFTER_COMMIT wait, once per
  group) -> every session of the group is woken: with its OK, or with ER_SERVER_SHUTDOWN when
  a waiting hook decided `CommitVerdict.IN_DOUBT` (the server is shutting down and no slave
  acked the group: it is committed on the master, in its binlog, and reaches the slaves when
  they reconnect, but the client is never told it succeeded).
  A rotation at max_binlog_size happens inside the flush, after the group (the writer's rule).
- The AFTER_SYNC wait without the writer lock. When an observer `waits_after_sync()` (semi-sync
  ON with AFTER_SYNC), fewer than OPEN_GROUPS_MAX groups are open, nothing needs the engine
  settled (`engine.concurrency.Settle`) and the binlog did not rotate after the group, the
  leader leaves the group open (`_Open`): it releases the writer lock before `after_sync`.
  Single-statement writes then run into the engine's open SQLite transaction and the next group
  forms, is written, synced and published, and waits for its own ack, open too while the limit
  allows. SQLite commits only the whole open transaction, so the first run of `_run_group` that
  may not leave its group open commits every open group with its own, once all their
  `after_sync` returned (acks are positions: the last group's ack covers the others); when no
  group followed, the first open group's leader takes the lock back after its ack and commits
  the open ones (with what the queue holds) itself. Nothing becomes visible to readers or
  committed in the engine before its own ack; each group's sessions get their own group's
  verdict. Who would hold the lock across statements (an explicit transaction's writes, FLUSH
  TABLES WITH READ LOCK, `exclusive()`) waits for the open groups' commit first and keeps others
  from opening meanwhile. A failed write of a later group rolls back the engine's open
  transaction, the open groups with it: after their acks they are replayed from the binlog,
  committed, and their sessions answered (the failed group's leader holds the lock until then).
  An engine commit failing for them replays them all (one binlog file holds them).
- The fdatasync without the writer lock. A group that may be left open (the same conditions,
  its write making no rotation due) is left open as soon as it is written, before its
  fdatasync on the compiled syncer's thread returns (`_open_unsynced`): single-statement
  writes run during the fdatasync too, and the next group's leader waits for it before it
  takes the lock (`_lead_after_sync`), so that they join its group. Nothing changes for the
  group itself: after_flush, the publish and after_sync follow its fdatasync, so no slave
  receives it and nobody is answered before it is durable. The binlog is written by one group at a time: a run of `_run_group`
  writes nothing, and takes no open group, before that fdatasync returned (`_syncing`). If it
  fails, the writer cuts the group back as ever, and the engine's open transaction holds the
  group's rows, those of the open groups before it and those of the writes that ran since the
  lock went (logically committed, queued for the next group: who writes or holds the lock
  across statements waits for the open group). The first run to hold the lock then undoes it
  all before anything else (`_undo_failed_sync`): the engine's open transaction rolled back,
  the group's sessions and every queued one answered 1026 (none of their rows is in the
  engine or the binlog), the open groups before it replayed from the binlog after their acks.
- Empty delegates cost nothing: no hook parameter is built when no observer is registered.
- Failures. A failed binlog write or fsync (ENOSPC, EIO) fails the group as a whole: the
  writer cuts the file back to where the group started (nothing of it is ever written later,
  nothing was published), the engine's group is rolled back, `after_rollback` runs for each
  transaction and every session gets MariaDB's error for it, 1026 ER_ERROR_ON_WRITE naming the
  binlog and the errno. The server goes on: reads are served, and the next group writes again once
  the disk does. A failed engine commit AFTER the binlog write (SQLITE_FULL on COMMIT) must not
  leave the binlog ahead of the engine: that group is in the binlog (the source of truth) and
  may be on slaves, so its sessions are never told it failed. `binlog_error_action` decides:
  ABORT_SERVER (MySQL's name and default) logs and stops the process at once, answering no one
  (their clients see a lost connection: in doubt), and recovery replays the group at the next
  start; IGNORE_ERROR goes on serving: it reads the group back from the binlog and replays it
  into the engine (`Engine.replay_group`), retrying until it commits, still holding the
  engine's writer lock so that no other transaction runs before the group is in; then the group
  goes on as if its commit had worked. A commit that SQLite stopped between two database files
  is durable in those it reached: the engine completes it in the others, never runs it twice.
  A group holding replicated transactions (`commit_replicated`) is always replayed, whatever
  binlog_error_action says: a replica whose disk is full keeps serving and its applier goes on
  once the engine commits (as its SQL thread waited for space before it had a binlog).
  Unlike MySQL: MySQL's binlog_error_action is about binlog write errors, which MySQL cannot
  undo, and its IGNORE_ERROR then turns binary logging off until a restart. We never stop
  binary logging: a failed binlog write is always undone and fails its group (as MariaDB
  does), whichever value is set; the value only decides what an engine commit failing after
  the binlog write does.
- A client commit whose statements all ran with sql_log_bin off carries none: it commits in its
  group and writes nothing (no GTID, no semi-sync wait when the group wrote nothing else).
- `exclusive()` gives FLUSH BINARY LOGS, PURGE and RESET MASTER the writer's side of the binlog
  (the engine's writer lock: no group is in flight), and `append_statement` binlogs a statement
  that is not an engine transaction (CREATE USER, GRANT ...) as its own group.
- `commit_replicated(transactions)` is the applier's commit (log_slave_updates): the replicated
  transactions run in the engine as one logical transaction under the writer lock
  (`Engine.run_replicated`: all of them or, on an error, none), then join the queue like a
  session's commit and go through the same stages in the same group as client commits. When
  the lock is free and nobody waits for it (no group is forming, nothing else is logically
  committed: a replica's usual case), they lead their own group under that one holding of
  the lock, without handing it over and taking it back (the same stages, one group). Each
  is written as ONE binlog transaction (a lone DDL or user statement as a standalone GTID and
  its QUERY, anything else GTID ... XID), with the server_id of the server that first wrote it,
  its origin GTID (`ReplicatedTransaction.gtid`; None: numbered here in this server's domain)
  and its events' timestamps; one that ran nothing (a position-only step) writes no event; a user statement
  (`user_statement`: applied to the user store by the applier) is binlogged, not run. With
  `log_bin=False` (log_slave_updates OFF) nothing of them is binlogged, but they still commit in
  the group. The group's engine meta is the engine's meta with the binlog end and the last
  replicated transaction's `meta` (the applier's position) over it: the applier's position is
  committed in the same SQLite transaction as the binlog position that covers it. A group that
  wrote no event skips the flush hooks, the publish and the semi-sync wait (nothing to ack).
- GTIDs (`master.gtid_state.BinlogGtids`): every binlog transaction starts with a GTID event; a
  client's gets `@@session.gtid_domain_id-server_id-next seq`. The GTIDs are recorded in the
  binlog state as the group is appended (a rotation inside the group's write lists them in the
  next file's GTID_LIST); a group whose write fails puts the state back as it was.
- The engine's meta is merged, never replaced: a group commits only its own keys and the
  engine merges them over its current meta, so keys other parts keep there (the applier's
  position, the count recovery leaves for the applier, see `master.recovery`) survive client
  groups.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from binlog.syncer import NativeSyncer
from binlog.syncer import available as syncer_available
from binlog.writer import KEEP_EVENTS_MAX, BinlogWriter
from engine.concurrency import Handover, ThreadLane
from engine.results import LoggedStatement
from master.binlog_end import BinlogEnd
from master.events import transaction_events
from master.gtid_state import BinlogGtids
from master.recovery import read_transactions
from protocol.errors import (
    ER_ERROR_ON_WRITE,
    ER_LOCK_WAIT_TIMEOUT,
    ER_SERVER_SHUTDOWN,
    ER_UNKNOWN_ERROR,
    SQLError,
)
from protocol.events import Gtid
from protocol.position import BinlogPosition
from semisync.interface import DONE, CommitVerdict, ReplicationInterface, StorageParam, TransParam

log = logging.getLogger("semisync.master.commit")


ABORT_SERVER = "ABORT_SERVER"
IGNORE_ERROR = "IGNORE_ERROR"
BINLOG_ERROR_ACTIONS = (ABORT_SERVER, IGNORE_ERROR)
_REPLAY_RETRY_MAX = 2.0  # seconds between replays of a group while the engine keeps failing
LOOP_WRITE_MAX = KEEP_EVENTS_MAX  # a larger group is written on the binlog I/O thread, not the loop
OPEN_GROUPS_MAX = 2  # groups waiting for their acks without the writer lock at once (module docstring)


class CommitSession(Protocol):
    """The session a commit belongs to, as the pipeline and the hooks see it (None: no client
    session waits for the commit; its events get thread_id 0 and no State is shown)."""

    @property
    def connection_id(self) -> int:  # the binlog events' thread_id, TransParam.connection_id
        ...

    def set_state(self, state: str | None) -> None:
        """SHOW PROCESSLIST's State, e.g. while a waiting hook holds the commit."""


class CommittedTransaction(Protocol):
    """A logically committed engine transaction (`engine.core.CommittedTxn`): what it binlogs."""

    def binlog_transactions(self) -> list[Any]:
        """The binlog transactions in order, each as `_flush_and_sync` turns it into events."""
        ...


def abort_server(message: str) -> None:
    """binlog_error_action=ABORT_SERVER: log and end the process now, answering no client."""
    log.critical(message)
    logging.shutdown()
    os._exit(1)


@dataclass(slots=True)
class _OneStep:
    """A group written, synced and committed in one step (`_commit_one_step`): the meta it
    committed, and the engine's failure after the write (None: committed)."""

    meta: dict[str, str]
    written: bool = False
    error: BaseException | None = None

    def write(self, writer: BinlogWriter, sync: bool) -> None:  # on the engine's writer thread
        writer.write_group(sync)
        self.written = True


@dataclass(slots=True)
class _Ticket:
    session: CommitSession | None
    txn: CommittedTransaction
    done: asyncio.Future[None]
    param: TransParam | None = None
    end: BinlogPosition | None = None
    # (server_id, statements, origin GTID) of each binlog transaction, taken once per group by
    # `_transactions` (server_id None: this server's; GTID None: to be numbered here)
    binlog: Sequence[tuple[int | None, list[Any], Gtid | None]] = ()


@dataclass(slots=True)
class _Written:
    """A group in the binlog, from its flush to its wakeups: what its engine commit and its
    sessions' answers need. `waited`: whether its after_sync ran (`verdicts`, `seconds`).
    `flushed`: the `StorageParam` its after_flush got, which its after_sync gets too."""

    group: list[_Ticket]
    start: BinlogPosition
    end: BinlogPosition
    count: int
    synced: bool
    flushed: StorageParam | None = None
    waited: bool = False
    verdicts: list[CommitVerdict | None] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(slots=True, eq=False)
class _Open:
    """A written group whose committer let go of the engine's writer lock for its after_sync
    (`GroupCommit._wait_open`): its transactions wait in the engine's open transaction, and
    the next run of `_run_group` under the lock commits them with its own group (`taken`)."""

    written: _Written
    acked: asyncio.Future[None]  # its after_sync returned (`written.verdicts` set)
    committed: asyncio.Future[None]  # its engine commit is done and its sessions are answered
    taken: bool = False
    # a group opened before its fdatasync returned (`GroupCommit._open_unsynced`): settled when
    # that fdatasync returned and the group was published, or failed (`GroupCommit._sync_failure`)
    synced: asyncio.Future[None] | None = None


class GroupCommit:
    def __init__(
        self,
        engine: Any,
        writer: BinlogWriter,
        end: BinlogEnd,
        interface: ReplicationInterface,
        *,
        server_id: int,
        sync_binlog: Callable[[], int],
        binlog_error_action: Callable[[], str] = lambda: ABORT_SERVER,
        abort: Callable[[str], None] = abort_server,
        gtids: BinlogGtids | None = None,
    ) -> None:
        self.engine = engine
        self.gtids = BinlogGtids() if gtids is None else gtids
        self.writer = writer
        self.end = end
        self.interface = interface
        self.server_id = server_id
        self.sync_binlog = sync_binlog
        self.binlog_error_action = binlog_error_action
        self._abort = abort
        self._closed = False
        self._queue: list[_Ticket] = []
        self._open: list[_Open] = []  # written groups waiting for their acks without the lock
        # the open group whose fdatasync runs without the lock (`_open_unsynced`): the binlog's
        # next write waits for it; and a failed one's error, until a holder of the lock undoes it
        self._syncing: _Open | None = None
        self._sync_failure: tuple[BaseException, _Open] | None = None
        self._leader_waiting = False
        self._leaders: set[asyncio.Task[None]] = set()  # `commit_now`'s leaders, running
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop commits run on (`_running_loop`)
        self._unsynced_groups = 0
        self._group_synced = False  # the last group's binlog write was fsynced
        self._xid = int(time.time()) << 16  # XID values only need to differ (a restart moves on)
        self._io = ThreadLane(1, "binlog-io")
        # the group's fdatasync off the loop without a Python thread (`_write_group`); opened
        # on the loop at the first synced group
        self.native_sync = syncer_available()
        self._syncer: NativeSyncer | None = None
        self._in_flight = 0
        self._idle: asyncio.Event | None = None
        # counters (SHOW STATUS: Binlog_commits, Binlog_group_commits)
        self.commits = 0
        self.groups = 0
        self.in_doubt = 0  # transactions answered ER_SERVER_SHUTDOWN (CommitVerdict.IN_DOUBT)
        # called with the seconds a group spent in the after_sync + after_commit hooks (metrics)
        self.on_group_waited: Callable[[float], None] | None = None

    # -- the session's side -----------------------------------------------------------------

    async def commit(self, session: CommitSession | None, txn: CommittedTransaction) -> None:
        ticket, lead = self._join(session, txn, awaited=True)
        try:
            if lead is not None:
                await lead
            await ticket.done
        finally:
            self._left()

    def commit_now(self, session: CommitSession | None, txn: CommittedTransaction) -> asyncio.Future[None]:
        """`commit` begun at once (module docstring): the future is settled when the client may
        get its OK, or with the group's error."""
        ticket, lead = self._join(session, txn)
        ticket.done.add_done_callback(self._settled)
        if lead is not None:
            leader = ticket.done.get_loop().create_task(lead)
            self._leaders.add(leader)
            leader.add_done_callback(self._led)
        return ticket.done

    def _join(self, session: CommitSession | None, txn: CommittedTransaction, *,
              awaited: bool = False) -> tuple[_Ticket, Coroutine[Any, Any, None] | None]:
        """Queue `txn` (in flight from now) and, when no leader holds or waits for the writer
        lock, become it at once: the lock taken or queued for here, and the coroutine that leads
        the group (`_lead`) returned with the ticket; else None with it. `awaited`: the caller
        awaits that coroutine in this step; then, when the lock is free and nothing is on its
        way to the queue, the group is taken here as `_lead` would take it in that step, and
        the coroutine returned is the group's run itself (no `_lead` frame to resume)."""
        loop = self._loop  # (`_running_loop` without its frame: once per commit)
        if loop is None or not loop.is_running():
            loop = self._loop = asyncio.get_running_loop()
        ticket = _Ticket(session, txn, loop.create_future())
        self._queue.append(ticket)
        Handover.take(txn)
        self._in_flight += 1
        if self._leader_waiting:
            return ticket, None
        self._leader_waiting = True
        if self._syncing is not None:
            return ticket, self._lead_after_sync()
        lock = self.engine.writer_lock
        if not lock.try_acquire(self):
            return ticket, self._lead(lock.enqueue(self))
        if awaited and not self.engine.handover.pending:
            return ticket, self._take_group()
        return ticket, self._lead(None)

    def _settled(self, done: asyncio.Future[None]) -> None:
        """A `commit_now` ticket's end: no longer in flight; its error is its awaiter's (or, when
        nobody awaits it, a session that ended meanwhile, nobody's)."""
        self._left()
        if not done.cancelled():
            done.exception()

    def _led(self, leader: asyncio.Task[None]) -> None:
        self._leaders.discard(leader)
        if not leader.cancelled() and leader.exception() is not None:
            log.error("group commit leader failed", exc_info=leader.exception())

    def _left(self) -> None:
        """A commit is no longer in flight (`wait_idle`)."""
        self._in_flight -= 1
        if not self._in_flight and self._idle is not None:
            self._idle.set()

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        """The running loop, kept from the last call while it runs: CPython 3.11's
        `asyncio.get_running_loop` makes a getpid(2) per call, several per commit group. The
        caller runs on a loop; a loop that stopped is never the caller's, so a pipeline that
        outlives its loop (tests) takes the next one. `_join` makes the same check inline (a
        frame costs more user-space instructions than the getpid's call); a ticket's future
        gives its loop without either (`Future.get_loop`)."""
        loop = self._loop
        if loop is None or not loop.is_running():
            loop = self._loop = asyncio.get_running_loop()
        return loop

    async def commit_replicated(self, transactions: Sequence[ReplicatedTransaction], *, log_bin: bool = True) -> None:
        """The applier's commit (module docstring): run `transactions` in the engine, then
        commit them with their binlog events (unless `log_bin` is False) and the last one's
        `meta`, in one group. All or nothing: an engine error (SQLError, with the writer lock
        back) or a failed binlog write (1026) leaves the engine and the binlog without any."""
        if not transactions:
            return
        engine = self.engine
        lock = engine.writer_lock
        statements = [t.statements for t in transactions if not t.user_statement]
        txn = _ReplicatedTxn(list(transactions), log_bin)
        if lock.try_acquire(self):
            # Free, and nobody waits for it: no group is forming (a committer queues only with a
            # leader that holds or waits for the lock), and nothing else is logically committed
            # in the engine. The batch leads its own group under this one holding of the lock:
            # no hand-over, no turn of the loop for joiners (none can commit without the lock).
            try:
                await engine.run_replicated(statements)
            except BaseException:
                lock.release()
                raise
            ticket = _Ticket(None, txn, self._running_loop().create_future())
            self._in_flight += 1
            try:
                await self._run_group([ticket])
            except BaseException:
                if ticket.done.done() and not ticket.done.cancelled():
                    ticket.done.exception()  # the raise below is the batch's answer
                raise
            finally:
                self._left()
            await ticket.done  # settled by the group: None, or the group's error
            return
        owner = object()
        try:
            await lock.acquire(owner, engine.lock_wait_timeout)
        except TimeoutError:
            raise SQLError(ER_LOCK_WAIT_TIMEOUT) from None
        try:
            await engine.run_replicated(statements)
        except BaseException:
            lock.release()
            raise
        engine.handover.hand(txn)  # in the open SQLite transaction until this ticket is queued
        lock.release()
        # no await between the release and the queueing: the group that commits them takes this ticket
        await self.commit(None, txn)

    async def append_statement(self, session: Any, sql: str, db: str | None = None) -> None:
        """Binlog one statement that changed no engine data (a user statement) as a group."""
        stmt = _Statement(db, sql, int(time.time()))
        await self.commit(session, _Txn([stmt]))

    async def wait_idle(self, timeout: float) -> bool:
        """Wait until no commit is in flight (shutdown); False if still busy after `timeout`."""
        if not self._in_flight:
            return True
        self._idle = asyncio.Event()
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        except TimeoutError:
            return False

    @asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """The writer's side of the binlog, between groups (engine writer lock held)."""
        lock = self.engine.writer_lock
        owner = object()
        await self.engine.settle.acquire_settled(lock, owner)  # no group between binlog and engine
        try:
            # the binlog may lose files (PURGE, RESET MASTER): the engine must not need them
            await self.engine.sync()
            yield
        finally:
            lock.release()

    async def run_io(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run a blocking binlog call on the binlog's own I/O thread (never on the loop). The
        call runs once queued, even if the caller is cancelled meanwhile (the leader never is)."""
        return await self._io.call(fn, *args)

    def close(self) -> None:
        self._closed = True
        self._io.shutdown()
        if self._syncer is not None:
            self._syncer.close()
            self._syncer = None

    async def _write_group(self, sync: bool, release: Callable[[], None] | None = None) -> None:
        """The group's write and fsync, all or nothing (`BinlogWriter.write_group`). A group
        of up to `LOOP_WRITE_MAX` bytes is written on the loop (a page-cache copy) and its
        fdatasync runs on the compiled syncer's thread (`binlog.syncer`: no GIL hand-over, no
        wakeup through call_soon_threadsafe); a rotation it makes due runs on the binlog I/O
        thread. A larger group, or any without the compiled syncer (`native_sync` False),
        is written and fsynced on the binlog I/O thread. Either way a failure cuts the file back
        to where the group started (on the syncer's path a cancelled wait does too).
        `release`: called once the group is written and its fdatasync is about to start on the
        syncer, unless the write made a rotation due (`_open_unsynced`: the writer lock goes)."""
        writer = self.writer
        if not self.native_sync or writer.buffered > LOOP_WRITE_MAX:
            await self.run_io(writer.write_group, sync)
            return
        syncer = None
        if sync:  # opened before the write: a failure to start its thread leaves nothing written
            syncer = self._syncer = self._syncer or NativeSyncer.open()
        mark = writer.write_group_begin()
        pending = writer.sync_begin() if syncer else None
        if syncer and pending is not None:
            if release is not None and not writer.rotation_due:
                release()
            try:
                await syncer.fdatasync(pending[0])
            except BaseException:
                writer.write_group_failed(mark)
                raise
            writer.sync_done(*pending)
        if writer.write_group_end(mark):
            await self.run_io(writer.rotate_if_full)

    async def _commit_one_step(self, done: _OneStep, sync: bool) -> None:
        """A group no observer holds, written (fsynced when `sync`), then committed in the engine
        (`done.written` set in between): without a Python thread when it can be, as
        `_write_group` writes a synced group on the loop and fdatasyncs it on the compiled
        syncer's thread, and the engine then commits on the loop (no fsync, its writer lane idle:
        `Engine.commits_on_loop`); otherwise one trip to the engine's writer thread does both.
        Either way a group whose binlog write was fsynced is committed without the engine's
        fsync (recovery replays it from the binlog)."""
        writer, engine = self.writer, self.engine
        if sync and self.native_sync and writer.buffered <= LOOP_WRITE_MAX and engine.commits_on_loop(durable=False):
            await self._write_group(sync)
            done.written = True
            await engine.commit_group(done.meta, durable=False)
        else:
            await engine.commit_group(done.meta, durable=not sync, first=functools.partial(done.write, writer, sync))

    # -- the leader ---------------------------------------------------------------------------

    async def _lead(self, wait: asyncio.Future[None] | None) -> None:
        """Lead the next group (`_join`): the writer lock already taken (`wait` None) or waited
        for here."""
        lock = self.engine.writer_lock
        if wait is not None:
            try:
                await wait
            except BaseException:
                lock.abandon(wait, self)
                self._leader_waiting = False
                raise
        if self.engine.handover.pending:
            # a transaction in the SQLite transaction we commit is not queued yet: its session
            # let go of the lock and queues it in a later step (module docstring, "Ordering")
            try:
                await asyncio.sleep(0)
            except BaseException:
                lock.release()
                raise
        await self._take_group()

    async def _lead_after_sync(self) -> None:
        """Lead the next group once the binlog's last group returned from its fdatasync
        (`_open_unsynced`): the writes that run meanwhile join this group, which takes the lock
        after them, where holding it from now on would let none run and write a group of one."""
        try:
            while (syncing := self._syncing) is not None and syncing.synced is not None:
                await asyncio.shield(syncing.synced)
        except BaseException:
            self._leader_waiting = False
            raise
        lock = self.engine.writer_lock
        await self._lead(None if lock.try_acquire(self) else lock.enqueue(self))

    def _take_group(self) -> Coroutine[Any, Any, None]:
        """The leader, holding the writer lock, takes the queue: the run of that group."""
        self._leader_waiting = False
        group, self._queue = self._queue, []
        return self._run_group(group)

    async def _run_group(self, group: list[_Ticket], *, commit: bool = False) -> None:
        """The stages of one group (module docstring), from the flush to the wakeups. The
        caller holds the engine's writer lock, which is released here (after the engine
        commit, or on a failure), and has taken `group` from the queue. The group is left open
        (`_wait_open`) when it may be; otherwise (or with `commit`) this run commits it with
        every group left open before it (`_open`), in one engine commit after their after_sync.
        A group that may be left open is left open as its fdatasync starts (`_open_unsynced`);
        a run writes nothing and takes no open group before such an fdatasync returned, and
        when it failed, undoes it first (`_undo_failed_sync`)."""
        lock = self.engine.writer_lock
        released = False
        opened: list[_Open] = []  # the open groups this run commits
        try:
            syncing = self._syncing
            if syncing is not None and syncing.synced is not None:
                await syncing.synced  # (settled with `_syncing` cleared; none opens before this run writes)
            if self._sync_failure is not None:
                await self._undo_failed_sync(group)
                return
            if not group and not self._open:
                return
            count = _transactions(group) if group else 0
            start = self.writer.pending_position
            storage = self.interface.storage
            if not storage.observers:  # (the tuple, not the delegate: no Python call per group)
                storage = None
            one_step = not self._open and not (storage is not None and storage.holds_groups())
            end, done, flushed = start, None, None  # (an empty group: the open ones' commit alone)
            release = None
            if group and storage is not None and not one_step and not commit and self._may_open_unsynced(storage):
                release = functools.partial(self._open_unsynced, group, start, count)
            try:
                if group:
                    end, done, flushed = await self._flush_and_sync(group, count, one_step, start, release)
            except BaseException as exc:
                early = self._syncing  # (set by `release` only: none ran when this run began)
                if early is not None:
                    released = True
                    await self._sync_failed(early, exc)
                    return
                opened = self._take_open()
                await self._fail(group, exc, opened)
                return
            early = self._syncing
            if early is not None and early.synced is not None:  # left open as its fdatasync started
                released = True
                self._syncing = None
                early.synced.set_result(None)
                early.written.flushed = flushed
                await self._wait_open(early.written, storage, early)
                return
            if end == start or done is not None:
                storage = None  # nothing written: nothing to ack; one step: nobody waits there
            this = _Written(group, start, end, count, self._group_synced and end != start, flushed) if group else None
            if this is not None and storage is not None and not commit and self._may_open(storage, end):
                released = True  # by `_wait_open`
                await self._wait_open(this, storage)
                return
            opened = self._take_open()
            if this is not None and storage is not None:
                await self._after_sync(storage, this)
            parts = [o.written for o in opened]
            if this is not None:
                parts.append(this)
            for o in opened:
                await o.acked
            tickets = [t for part in parts for t in part.group]
            meta = self._group_meta(tickets, end) if done is None else done.meta
            try:
                if done is None:
                    # a group whose binlog write was fsynced needs no engine fsync: recovery replays
                    # it from the binlog if a power loss undoes its engine commit (every group in
                    # this commit must be such, or have no transaction)
                    durable = False
                    for part in parts:
                        if part.group and not part.synced:
                            durable = True
                    await self.engine.commit_group(meta, durable=durable)
                elif done.error is not None:
                    raise done.error
            except Exception as exc:
                replicated = any(isinstance(t.txn, _ReplicatedTxn) for t in tickets)
                await self._engine_failed(parts[0].start, end, meta, exc, replicated)
            except BaseException as exc:
                log.critical("engine commit failed after the binlog write of the group ending at %s: %s", end, exc)
                self._wake(tickets, SQLError(ER_UNKNOWN_ERROR, f"engine commit failed: {exc}"))
                raise
            self._close_open(opened)
            lock.release()
            released = True
            for part in parts:
                await self._answer(part)
        finally:
            # (committers that queued after we took the group lead the next one themselves)
            if not released:
                self._close_open(opened)
                lock.release()
            for o in opened:
                if not o.committed.done():
                    o.committed.set_result(None)

    def _may_open(self, storage: Any, end: BinlogPosition) -> bool:
        """Whether a written group may wait for its after_sync without the writer lock: fewer
        than OPEN_GROUPS_MAX are open, an observer waits there (`waits_after_sync`), nothing
        needs the engine settled (`Settle.may_open`), and the binlog did not rotate after it (a
        replay of the groups one engine commit covers reads one file, `_read_group`)."""
        return self.writer.pending_position == end and self._may_open_unsynced(storage)

    def _may_open_unsynced(self, storage: Any) -> bool:
        """`_may_open` before the group is written: all but the rotation, which `_write_group`
        tests before it calls `_open_unsynced`."""
        return (len(self._open) < OPEN_GROUPS_MAX and not self._closed and self.engine.settle.may_open()
                and storage.waits_after_sync())

    def _open_unsynced(self, group: list[_Ticket], start: BinlogPosition, count: int) -> None:
        """`_write_group`'s `release` (the lock held, the group written, no rotation due, its
        fdatasync about to start on the syncer's thread): the group is open from now on
        (`_syncing`) and the writer lock goes, so that single-statement writes run during the
        fdatasync, as they do during its ack wait. Its after_flush, publish and after_sync
        follow the fdatasync as for any group (`_run_group`, `_wait_open`)."""
        loop = group[0].done.get_loop()
        this = _Written(group, start, self.writer.end_position, count, True)
        self._syncing = _Open(this, loop.create_future(), loop.create_future(), synced=loop.create_future())
        self._open.append(self._syncing)
        self.engine.settle.open()
        self.engine.writer_lock.release()

    async def _sync_failed(self, failed: _Open, exc: BaseException) -> None:
        """The fdatasync of a group left open before it returned (`_open_unsynced`) failed: the
        writer cut the group back and `_flush_and_sync` put the GTID state back. The engine's
        open transaction holds the group's rows, the open groups' before it and those of every
        write that ran since the lock went: the first run to hold the lock undoes them all
        (`_undo_failed_sync`), a run that waited for this fdatasync or else this one. Nothing
        is written to the binlog before that (`_run_group`), nor does anyone hold the lock
        across statements (the group is open: `engine.concurrency.Settle`)."""
        self._syncing = None
        self._sync_failure = (exc, failed)
        if failed.synced is not None:
            failed.synced.set_result(None)
        lock = self.engine.writer_lock
        await lock.acquire(failed)
        try:
            if self._sync_failure is not None:
                await self._undo_failed_sync([])
        finally:
            lock.release()

    async def _undo_failed_sync(self, group: list[_Ticket]) -> None:
        """A failed fdatasync's undoing (`_sync_failed`), holding the lock: the engine's open
        transaction rolled back; the failed group's sessions, `group`'s (the caller's, taken
        from the queue) and the queue's (logically committed since the lock went) answered with
        the error (1026, nothing of theirs is in the engine or the binlog); the open groups
        before it replayed from the binlog after their acks and answered (`_fail`)."""
        assert self._sync_failure is not None
        exc, failed = self._sync_failure
        self._sync_failure = None
        if self.engine.handover.pending:  # as in `_lead` (module docstring, "Ordering")
            await asyncio.sleep(0)
        queued, self._queue = self._queue, []
        self._open.remove(failed)
        opened = self._take_open()
        try:
            await self._fail([*failed.written.group, *group, *queued], exc, opened)
        finally:
            if not self._open:
                self.engine.settle.close()
            for fut in (failed.acked, *(o.committed for o in (failed, *opened))):
                if not fut.done():
                    fut.set_result(None)

    async def _wait_open(self, this: _Written, storage: Any, opened: _Open | None = None) -> None:
        """Leave `this` open (`_Open`), release the writer lock (single-statement writes run
        and join the engine's open transaction; the next group is written), wait for its
        after_sync, then commit it: a later run of `_run_group` under the lock already did or
        will (`taken`), or this one takes the lock back and runs the queue's group, empty or
        not, which commits it with every open group. A leader is never cancelled (the sessions'
        `committing`); if one were, the next group to run commits the open ones. `opened`: the
        group is open already, and the lock gone, since its fdatasync started (`_open_unsynced`)."""
        lock = self.engine.writer_lock
        if opened is None:
            loop = this.group[0].done.get_loop()  # (its tickets' loop: no getpid(2), see `_running_loop`)
            opened = _Open(this, loop.create_future(), loop.create_future())
            self._open.append(opened)
            self.engine.settle.open()
            lock.release()
        try:
            await self._after_sync(storage, this)
        finally:
            opened.acked.set_result(None)
        if not opened.taken:
            if not lock.try_acquire(opened):
                await lock.acquire(opened)
            if self.engine.handover.pending:  # as in `_lead` (module docstring, "Ordering")
                try:
                    await asyncio.sleep(0)
                except BaseException:
                    lock.release()
                    raise
            if not opened.taken:
                queued, self._queue = self._queue, []
                await self._run_group(queued, commit=True)
                return
            lock.release()
        await opened.committed

    async def _after_sync(self, storage: Any, this: _Written) -> None:
        param = this.flushed
        if param is None:  # (an observer registered since the flush)
            param = StorageParam(self.server_id, this.end, this.count, [t.param for t in this.group if t.param is not None])
        timed = self.on_group_waited is not None  # (`seconds` is only for it)
        started = time.monotonic() if timed else 0.0
        this.waited = True
        try:
            this.verdicts.append(await storage.after_sync(param))
        except Exception:
            log.exception("after_sync observer failed for the group ending at %s", this.end)
        if timed:
            this.seconds += time.monotonic() - started

    def _take_open(self) -> list[_Open]:
        """Every open group, for this run (holding the lock) to commit."""
        for o in self._open:
            o.taken = True
        return list(self._open)

    def _close_open(self, opened: list[_Open]) -> None:
        """The open groups taken are committed or given up: no longer open (before the lock
        goes; none opened since they were taken, as that needs the lock)."""
        if opened:
            self._open = [o for o in self._open if o not in opened]
            if not self._open:
                self.engine.settle.close()

    def _answer(self, this: _Written) -> Awaitable[None]:
        """A committed group's end: the counters, the after_commit hook, its sessions' answers.
        What is left to await: `DONE` when it is all done here (no observer, or the hook did
        not wait: it answered `DONE`), else the coroutine that awaits the hook, then answers."""
        self.commits += this.count
        self.groups += 1
        transaction = self.interface.transaction
        if not transaction.observers or this.end == this.start:
            self._answered(this, False, 0.0)
            return DONE
        started = time.monotonic() if self.on_group_waited is not None else 0.0
        try:
            wait = transaction.after_commit(TransParam(
                0, self.server_id, this.end, functools.partial(_set_group_state, this.group),
                transactions=this.count,
            ))
        except Exception:
            log.exception("after_commit observer failed for the group ending at %s", this.end)
            wait = DONE
        if wait is not DONE:
            return self._after_commit(this, wait, started)
        self._answered(this, True, started)
        return DONE

    async def _after_commit(self, this: _Written, wait: Awaitable[CommitVerdict | None], started: float) -> None:
        try:
            this.verdicts.append(await wait)
        except Exception:
            log.exception("after_commit observer failed for the group ending at %s", this.end)
        self._answered(this, True, started)

    def _answered(self, this: _Written, hooked: bool, started: float) -> None:
        """The group's sessions woken, with the waiting hooks' verdict; `hooked`: after_commit
        ran (from `started`, for `on_group_waited`)."""
        on_group_waited = self.on_group_waited
        if on_group_waited is not None:
            if hooked:
                this.seconds += time.monotonic() - started
            if this.waited or hooked:
                on_group_waited(this.seconds)
        if CommitVerdict.IN_DOUBT in this.verdicts:
            self.in_doubt += this.count
            self._wake(this.group, SQLError(ER_SERVER_SHUTDOWN))
        else:
            self._wake(this.group, None)

    def _group_meta(self, group: list[_Ticket], end: BinlogPosition) -> dict[str, str]:
        """The engine meta keys a group commits (the engine merges them over its meta): the
        applier's position after the group's replicated transactions (if any), the binlog end."""
        meta: dict[str, Any] = {}
        for ticket in group:
            if isinstance(ticket.txn, _ReplicatedTxn):
                meta.update(ticket.txn.transactions[-1].meta)
        if meta:  # (the applier's keys and values as strings; a client group has none)
            meta = {str(k): str(v) for k, v in meta.items()}
        meta["binlog_file"] = end.file
        meta["binlog_pos"] = str(end.pos)
        return meta

    async def _flush_and_sync(self, group: list[_Ticket], count: int, one_step: bool, start: BinlogPosition,
                              release: Callable[[], None] | None = None,
                              ) -> tuple[BinlogPosition, _OneStep | None, StorageParam | None]:
        """Append the group's events and write them (fsynced per sync_binlog), then
        `after_flush` and the publish. `one_step` (no storage observer holds groups): the write,
        its sync and the engine commit follow each other here (`_commit_one_step`), and the
        `_OneStep` returned says how the engine commit went; otherwise it is None and the
        caller commits the engine. A failed write raises (nothing of the group is written).
        `start`: the writer's pending position (the caller holds the lock since it read it).
        Returned with them: the `StorageParam` after_flush got (None: no storage observer), which
        the group's after_sync gets too. `release`: `_write_group`'s."""
        done = flushed = None
        interface = self.interface
        transaction, storage = interface.transaction, interface.storage
        if not transaction.observers:  # the tuples tested: no Python call per group
            transaction = None
        if not storage.observers:
            storage = None
        writer = self.writer
        gtids = self.gtids
        before, checkpoint_due = gtids.snapshot(), gtids.checkpoint_due  # put back if the write fails
        end = start
        try:
            for ticket in group:
                session = ticket.session
                thread_id = session.connection_id if session is not None else 0
                if transaction is not None or storage is not None:
                    set_state = session.set_state if session is not None else None
                    ticket.param = TransParam(thread_id, self.server_id, None, set_state)
                    if transaction is not None:
                        transaction.before_commit(ticket.param)
                for server_id, stmts, origin in ticket.binlog:
                    self._xid += 1
                    gtid = self._gtid(session, server_id, origin)
                    events = transaction_events(stmts, xid=self._xid, thread_id=thread_id, gtid=gtid)
                    checkpoint = gtids.take_checkpoint()
                    if checkpoint is not None:
                        writer.append([checkpoint])
                    end = writer.append(events, gtid.server_id)
                ticket.end = end
                if ticket.param is not None:
                    ticket.param.position = end
            if end == start:  # nothing to write (replicated position-only steps, log_slave_updates OFF)
                return end, None, None
            self._unsynced_groups += 1
            every = self.sync_binlog()
            sync = bool(every) and self._unsynced_groups >= every
            # write, and fsync when sync_binlog says so; all or nothing (a failure leaves the
            # binlog where the group started): `_write_group`, or, in one step, the write and
            # the engine commit right after it (`_commit_one_step`)
            if one_step:
                done = _OneStep(self._group_meta(group, end))
                try:
                    await self._commit_one_step(done, sync)
                except BaseException as exc:
                    if not done.written:
                        raise  # nothing of the group is written (the writer cut it back)
                    done.error = exc  # written: the caller's path for an engine commit failure
            else:
                await self._write_group(sync, release)
            self._group_synced = sync
        except BaseException:
            gtids.restore(before)
            gtids.checkpoint_due = checkpoint_due
            raise
        if sync:
            self._unsynced_groups = 0
        if storage is not None:  # WL#4398: after the flush, and after the sync when the group was synced
            try:  # (the group is written: a failing observer must not make it look failed)
                flushed = StorageParam(self.server_id, end, count, [t.param for t in group if t.param is not None])
                storage.after_flush(flushed)
            except Exception:
                log.exception("after_flush observer failed for the group ending at %s", end)
        # with the group's events as written (`writer.last_group`, this write's: the writer lock
        # is held), so that dump sessions at the group's start need not read them back
        self.end.publish(writer.end_position, writer.last_group)
        return end, done, flushed

    def _gtid(self, session: CommitSession | None, server_id: int | None, origin: Gtid | None) -> Gtid:
        """The GTID of one binlog transaction, recorded in the binlog state: a replicated one's
        origin GTID, or the next of the session's domain (`server_id`: the origin of a replicated
        transaction that came without a GTID; None: ours, `BinlogGtids.own_gtid`)."""
        state = self.gtids.state
        if origin is not None:
            state.update(origin)
            return origin
        if server_id is None:
            return self.gtids.own_gtid(session, self.server_id)
        return state.next_gtid(self.gtids.domain_for(session), server_id)

    async def _fail(self, group: list[_Ticket], exc: BaseException, opened: Sequence[_Open] = ()) -> None:
        """A failed binlog write: the engine's open transaction is rolled back and the group's
        sessions get the error. The open groups (`opened`) in that transaction are in the
        binlog: after their after_sync they are replayed from there and committed (one file
        holds them, `_may_open`), and their sessions answered."""
        log.error("binlog write of a group of %d failed (the group is rolled back): %s", len(group), exc)
        try:
            await self.engine.rollback_group()
        except Exception:
            log.exception("engine rollback after a failed binlog write failed")
        transaction = self.interface.transaction
        if transaction:
            for ticket in group:
                if ticket.param is not None:
                    transaction.after_rollback(ticket.param)
        self._wake(group, write_error(self.writer.basename, exc))
        if opened:
            first, last = opened[0].written, opened[-1].written
            for o in opened:
                await o.acked
            log.warning("the groups %s to %s, written before the failed one, are replayed from the binlog",
                        first.start, last.end)
            await self._replay(first.start, last.end,
                               self._group_meta([t for o in opened for t in o.written.group], last.end))
            self._close_open(list(opened))
            for o in opened:
                await self._answer(o.written)

    async def _engine_failed(self, start: BinlogPosition, end: BinlogPosition, meta: dict[str, str],
                             exc: Exception, replicated: bool = False) -> None:
        """The engine could not commit a group that is in the binlog: stop the server, or replay
        the group from the binlog until the engine has it (see the module docstring). Returns
        only when the engine has the group; the writer lock stays held meanwhile."""
        # a replica's applier waits for its disk, as it did before it had a binlog: never stopped
        action = IGNORE_ERROR if replicated else self.binlog_error_action()
        if action != IGNORE_ERROR:
            self._abort(
                f"engine commit failed after the binlog write of the group {start} to {end}: {exc}. "
                "binlog_error_action is ABORT_SERVER: the server is being stopped; the group is "
                "replayed from the binlog into the engine at the next start"
            )
            raise RuntimeError("binlog_error_action=ABORT_SERVER did not stop the server")
        log.error("engine commit failed after the binlog write of the group %s to %s: %s; "
                  "replaying it from the binlog (binlog_error_action=IGNORE_ERROR)", start, end, exc)
        replay = asyncio.ensure_future(self._replay(start, end, meta))
        while True:
            try:
                await asyncio.shield(replay)
                return
            except asyncio.CancelledError:
                if replay.done():
                    raise
                # The lock must not go before the engine has the group, and once it has it,
                # the group is committed: finish, and answer its sessions OK, cancelled or not.
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()

    async def _replay(self, start: BinlogPosition, end: BinlogPosition, meta: dict[str, str]) -> None:
        delay, attempts = 0.05, 0
        while True:
            attempts += 1
            try:
                transactions = await self.run_io(_read_group, self.writer.directory, start, end,
                                                 self.engine.replay_owner)
                await self.engine.replay_group(transactions, meta)
            except Exception as exc:
                if self._closed:
                    raise
                if attempts == 1 or attempts % 100 == 0:
                    log.error("replay of the group %s to %s into the engine failed (attempt %d), "
                              "retrying: %s", start, end, attempts, exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, _REPLAY_RETRY_MAX)
                continue
            log.warning("the group %s to %s is in the engine: replayed from the binlog (%d attempt(s))",
                        start, end, attempts)
            return

    @staticmethod
    def _wake(group: list[_Ticket], error: BaseException | None) -> None:
        for ticket in group:
            if not ticket.done.done():
                if error is None:
                    ticket.done.set_result(None)
                else:
                    ticket.done.set_exception(error)


def write_error(log_name: str, exc: BaseException) -> SQLError:
    """What a client gets for a failed binlog write: MariaDB's 1026 naming the binlog (its
    basename, as MariaDB's MYSQL_BIN_LOG does: "Error writing file 'mysql-bin' (errno: 28 "No
    space left on device")") and the errno."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return SQLError(ER_ERROR_ON_WRITE, log_name, f'{exc.errno} "{os.strerror(exc.errno)}"')
    return SQLError(ER_UNKNOWN_ERROR, f"Error writing to binlog: {exc}")


def _read_group(directory: Path, start: BinlogPosition, end: BinlogPosition,
                owner: Callable[[Any, bool], str]) -> list[list[Any]]:
    """The transactions of the group [start, end) of one binlog file, as `replay_group` runs them:
    each statement with the temporary tables of the session that ran it (`owner`:
    `Engine.replay_owner`, this open's sessions, which still have them)."""
    transactions = []
    for txn in read_transactions(directory, [start.file], start, end):
        if txn.end is None:
            raise OSError(errno.EIO, f"the group {start} to {end} is incomplete in the binlog")
        for _sql, context, _db in txn.statements:
            context.temporary_owner = owner(context, txn.replicated)
        transactions.append(txn.statements)
    return transactions


def _set_group_state(group: list[_Ticket], state: str | None) -> None:
    """SHOW PROCESSLIST's State of every session of `group` (the group's `TransParam.set_state`
    at after_commit, bound with `functools.partial`: nothing runs unless an observer waits)."""
    for ticket in group:
        if ticket.session is not None:
            ticket.session.set_state(state)


@dataclass(slots=True)
class _Statement:
    """A binlogged statement that is not an engine transaction (see `append_statement`)."""

    db: str | None
    sql: str
    timestamp: int
    insert_id: int | None = None
    last_insert_id: int | None = None
    is_ddl: bool = True
    # what `master.events.transaction_events` reads of an engine `LoggedStatement`: the defaults
    rand_seed: None = None
    user_vars: tuple = ()
    foreign_key_checks: bool = True
    no_auto_value_on_zero: bool = False
    sql_mode: int | None = None
    microseconds: int | None = None
    thread_id: None = None


@dataclass(frozen=True, slots=True)
class _Txn:
    statements: list[_Statement]

    def binlog_transactions(self) -> list[list[_Statement]]:
        return [self.statements]


class ReplicatedTransaction(Protocol):
    """One transaction the applier commits (its `ReadyTransaction`)."""

    @property
    def statements(self) -> Sequence[tuple[Any, ...]]: ...  # (sql, StatementContext, db[, table])

    @property
    def meta(self) -> Mapping[str, Any]: ...  # the applier's position after it

    @property
    def server_id(self) -> int: ...  # the server that first wrote it

    @property
    def user_statement(self) -> bool: ...  # one user statement, already applied to the user store

    @property
    def gtid(self) -> Gtid | None: ...  # its origin's GTID; None: numbered as ours (a master without GTIDs)

    @property
    def transactional(self) -> bool | None: ...  # its first statement DML, as the applier decided; None: undecided


_DML = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@dataclass(slots=True)
class _ReplicatedTxn:
    """A `commit_replicated` call's transactions, as one ticket of a group."""

    transactions: list[ReplicatedTransaction]
    log_bin: bool
    handover: Any = None  # the engine's `Handover` between the lock's release and the queueing

    def binlog_transactions(self) -> list[tuple[int, list[LoggedStatement], Gtid | None]]:
        if not self.log_bin:
            return []
        out = []
        for txn in self.transactions:
            if not txn.statements:
                continue
            # DDL (anything but DML) is binlogged alone: the kind the applier decided, else the text's
            alone = txn.user_statement
            if not alone and len(txn.statements) == 1:
                dml = txn.transactional
                if dml is None:
                    dml = str(txn.statements[0][0]).lstrip()[:7].upper().startswith(_DML)
                alone = not dml
            out.append((txn.server_id, [_logged(s, alone) for s in txn.statements], getattr(txn, "gtid", None)))
        return out


def _logged(statement: tuple[Any, ...], ddl: bool) -> LoggedStatement:
    """A replicated statement as the binlog carries it: the context it was applied with (an
    engine `StatementContext`: the origin's timestamp, INSERT_ID, LAST_INSERT_ID, RAND seeds,
    user variables, what its session ran it under)."""
    sql, context, db = statement[0], statement[1], statement[2]
    timestamp = context.timestamp
    return LoggedStatement(
        db, sql, int(time.time()) if timestamp is None else timestamp, context.insert_id,
        context.last_insert_id, ddl, context.rand_seed, tuple(context.user_vars.items()),
        context.foreign_key_checks, context.no_auto_value_on_zero, context.sql_mode, context.microseconds,
        context.thread_id,
    )


def _transactions(group: list[_Ticket]) -> int:
    """How many transactions a group commits (semi-sync's yes_tx/no_tx, Binlog_commits): one
    per client commit that binlogs anything (sql_log_bin), one per replicated transaction
    binlogged. Each ticket's binlog transactions (`_Ticket.binlog`) are taken here, once."""
    count = 0
    for ticket in group:
        txn = ticket.txn
        if isinstance(txn, _ReplicatedTxn):
            ticket.binlog = binlog = txn.binlog_transactions()
            count += len(binlog)
        else:
            runs = txn.binlog_transactions()
            if runs:
                ticket.binlog = [(None, stmts, None) for stmts in runs]
                count += 1
    return count
