"""The replication interface of WL#4398: four observer interfaces, each managed by a delegate.

Contract
- The server shells (`master/`, `slave/`) own every socket, file and lock. At the points the
  worklog names they call the delegate's hook; observers (plugins such as semi-sync) decide.
- Hooks keep WL#4398's names. Synchronous hooks return decisions (header bytes, an ack to send,
  the statements to run before COM_BINLOG_DUMP): an observer never does I/O;
  the two waiting points of the commit path, `after_sync` and `after_commit`, are coroutines,
  because that is where semi-sync holds a committing session until slaves acknowledge.
- A delegate holds any number of observers, called in registration order. Observers may be
  added or removed while hooks run: every call iterates over the tuple it started with, so a
  removal takes effect at the next call and never disturbs one in progress.
- An empty delegate costs nothing: it is falsy, so call sites write `if delegate: ...`, and each
  hook returns at once without creating a coroutine when there is nothing to call. The waiting
  hooks (`after_commit`, `after_sync`) are plain methods returning an awaitable:
  `await delegate.after_sync(p)` as usual; with no observer the awaitable is a shared finished
  one, with one observer it is that observer's coroutine (no wrapper).
- A delegate with one observer (semi-sync alone, the usual) costs no frame of its own: each
  hook whose call is then the observer's own call (same arguments, its answer) IS the
  observer's bound method, looked up when the observer is added or another one removed (as
  WL#4398's observer structs of function pointers are read at registration): an observer that
  replaces a hook on its instance after registering is not seen until the set changes.
- The commit path's waiting hooks return a decision: None (or `CommitVerdict.PROCEED`) lets
  the shell answer the client as usual; `CommitVerdict.IN_DOUBT` means the transaction is
  durable in the binlog but no slave is known to hold it and the server is shutting down: the
  shell must not answer OK (it sends ER_SERVER_SHUTDOWN), whatever the other observers said.
- An observer that raises aborts the hook; the exception propagates to the shell, which turns
  it into an error for that session or connection (as a non-zero return does in MySQL).

Which shell calls what, and when (see docs/ARCHITECTURE.md for the whole path of a commit):
- Transaction (`master/`): `before_commit` before the flush stage, `after_commit` after the
  engine commit and before the client's OK, `after_rollback` after a rollback.
- Binlog storage (`master/`): `after_flush` once per commit group after its events are written
  to the binlog file (position = the group's end), `after_sync` once per group after the sync
  stage (fsync per sync_binlog) and before the engine commit. When no observer `holds_groups()`
  (semi-sync master disabled), the group's write, sync and engine commit are one step and
  `after_flush` follows it; `after_sync` is not called. When an observer `waits_after_sync()`,
  the shell may run the next statements and write the next group during that wait: a group's
  `after_flush` may then come before the previous group's `after_sync` returned.
- Binlog transmit (`master/`, one call per dump session): `transmit_start` when a dump begins,
  `transmit_stop` when it ends, `reserve_header` once per session to obtain the extra header
  bytes that follow the packet's 0x00 OK byte, `before_send_event` before each event packet
  (it may set the flag in the reserved header), `after_send_event` after the packet is written
  (these two only on a session where an observer set `TransmitParam.event_hooks` in
  `transmit_start`: a dump no observer follows pays nothing per event); for the events of one
  transport write (a read batch) the shell calls `before_send_events` before the write and
  `after_send_events` after it, once per observer, with the batch's events as a `SendBatch`
  (the `SendParam`s built on demand, and each event's place as a plain int) and a list of
  headers, each the reserved header until an observer replaces it; by default they run the
  per-event hooks in order,
  `after_reset_master` on RESET MASTER. `handle_ack` for each semi-sync ack a slave sends on
  its dump connection: the shell's ack receiver owns the read side of those connections and
  runs the hook (as mysqld's Ack_receiver calls the plugin's handleAck); an observer raises
  `RemoteProtocolError` for an ack that breaks the protocol, and the shell drops that slave.
- Binlog relay IO (`slave/`): `thread_start` before connecting, `thread_stop` after the
  connection closed, `before_request_transmit` after connecting and before COM_BINLOG_DUMP: an
  observer returns a `DumpRequest` (the statements for the IO task to run on the master
  connection, and the answer each needs), never runs them itself; `after_request_transmit` with
  the outcome of each request once COM_BINLOG_DUMP is sent (not a WL#4398 hook: there the
  plugin runs its queries on the IO thread's connection itself); `after_read_event` for each packet
  read (strips the extra header, notes the flag), `after_queue_event` after the event is in
  the relay log (and synced per sync_relay_log), `after_reset_slave` on RESET SLAVE. The shell
  calls them for all the packets of one read at once, once per observer: `after_read_events`
  with a `ReadBatch`, then `after_queue_events` with the read's events as `QueuedEvents` (with
  several observers the delegate runs `after_queue_event` event by event instead, so that the
  ack is the last position returned in the stream's order); by default they run the per-event
  hooks in order.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from protocol.events import LOG_EVENT_ARTIFICIAL_F
from protocol.messages import ERR, OK, ResultSet
from protocol.position import BinlogPosition

# ---------------------------------------------------------------------------------------------
# Decisions


class CommitVerdict(enum.Enum):
    """What `after_sync` / `after_commit` decided about the commit they held (None = PROCEED)."""

    PROCEED = "proceed"
    # Durable on the master, unknown on every slave, and the server is going down: the client
    # must not be told the commit succeeded (ER_SERVER_SHUTDOWN instead, as Percona's PS-9916).
    IN_DOUBT = "in doubt"


# ---------------------------------------------------------------------------------------------
# Parameters handed to the hooks (Trans_param, Binlog_storage_param, ... in MySQL)


@dataclass(slots=True)
class TransParam:
    """One committing (or rolling back) client session."""

    connection_id: int
    server_id: int
    # End of the transaction's last event in the binlog; None if it wrote nothing to the binlog.
    position: BinlogPosition | None = None
    # Lets a waiting observer show itself in SHOW PROCESSLIST ("Waiting for semi-sync ACK ...").
    set_state: Callable[[str | None], None] | None = None
    # How many transactions this call stands for: a shell that calls `after_commit` once per
    # commit group (with the group's last position) passes the group's size, so that counters
    # such as Rpl_semi_sync_master_yes_tx count transactions, not groups.
    transactions: int = 1


@dataclass(slots=True)
class StorageParam:
    """One commit group, after its events were written (`after_flush`) or synced (`after_sync`)."""

    server_id: int
    position: BinlogPosition  # end of the group's last event
    transactions: int = 1  # how many transactions the group holds
    # The sessions of the group (their TransParam), so a waiting observer can mark each one.
    sessions: Sequence[TransParam] = ()


@dataclass(slots=True)
class TransmitParam:
    """One dump session (WL#5721's Binlog_sender) serving one slave."""

    connection_id: int
    slave_server_id: int
    flags: int  # COM_BINLOG_DUMP flags
    # The connection's user variables (`SET @rpl_semi_sync_slave = 1` lives here), lower-case names.
    user_vars: Mapping[str, Any]
    start: BinlogPosition
    # During `reserve_header`: where the called observer's slice of the reserved header begins
    # (the bytes the observers before it reserved). Set by the delegate before each call.
    header_offset: int = 0
    # Per-session scratch space owned by the observers (keyed by observer), never by the shell.
    observer_state: dict[object, Any] = field(default_factory=dict)
    # Set by an observer in `transmit_start` when it needs `before_send_event` and
    # `after_send_event` for this session; when none does, the shell calls neither.
    event_hooks: bool = False


@dataclass(slots=True)
class SendParam:
    """The event packet about to be sent (`before_send_event`) or just sent (`after_send_event`)."""

    type_code: int
    # End position of the event in the master's binlog (its log_pos). None for artificial events
    # and heartbeats, which never request an ack.
    end: BinlogPosition | None
    artificial: bool = False
    heartbeat: bool = False


class SendBatch(Sequence[SendParam]):
    """The events of one transport write of a dump (a read batch of binlog `file`), as the
    `SendParam`s of `before_send_events` / `after_send_events`, each built only when asked for.

    `routes` is each event's (type code, log_pos, flags), in order (`protocol.events.route_fields`).
    `places[i]` is event i's end in `file` (its log_pos), 0 for one without a place (log_pos 0,
    or artificial): an observer that decides a whole batch reads these plain ints and builds no
    object per event; `end` is the end of the last event with a place (None: no event has one).
    Read-only: the shell may hand one batch to the hooks of every dump session that sends the
    same events (a published group, `master.dump`)."""

    __slots__ = ("file", "places", "end", "_routes", "_params")

    def __init__(self, file: str, routes: Sequence[tuple[int, int, int]]) -> None:
        self.file = file
        self._routes = routes
        places = self.places = [0 if flags & LOG_EVENT_ARTIFICIAL_F else log_pos for _, log_pos, flags in routes]
        end = None
        for pos in reversed(places):
            if pos:
                end = BinlogPosition(file, pos)
                break
        self.end = end
        self._params: list[SendParam] | None = None

    def __len__(self) -> int:
        return len(self._routes)

    def last_end(self) -> BinlogPosition | None:
        """`end`."""
        return self.end

    def __getitem__(self, index):  # type: ignore[override]
        params = self._params
        if params is None:
            file = self.file
            params = self._params = [
                SendParam(type_code, BinlogPosition(file, log_pos) if log_pos else None,
                          bool(flags & LOG_EVENT_ARTIFICIAL_F), False)
                for type_code, log_pos, flags in self._routes
            ]
        return params[index]


@dataclass(slots=True)
class RelayIOParam:
    """The slave IO task: its master, and its place in the master's binlog."""

    server_id: int
    master_host: str
    master_port: int
    master_position: BinlogPosition
    observer_state: dict[object, Any] = field(default_factory=dict)


class Expect(enum.Enum):
    """The answer a `MasterStatement` needs for its request to go on."""

    ROWS = "a result set with at least one row"
    OK = "an OK packet"


@dataclass(frozen=True, slots=True)
class MasterStatement:
    """One statement for the IO task to run on the master connection before COM_BINLOG_DUMP,
    and how to read its answer."""

    sql: str
    expect: Expect
    # ERR codes meaning that the master lacks what is asked (as an answer other than `expect`):
    # the request is refused and the dump goes on without it. Any other ERR is a failure of the
    # connection (the IO task reconnects).
    refused_by: frozenset[int] = frozenset()

    def granted_by(self, answer: OK | ERR | ResultSet) -> bool:
        """Does the master's `answer` let the request go on? (An ERR outside `refused_by` is
        the caller's failure to raise before asking.)"""
        if self.expect is Expect.ROWS:
            return isinstance(answer, ResultSet) and bool(answer.rows)
        return isinstance(answer, OK)


@dataclass(frozen=True, slots=True)
class DumpRequest:
    """What one observer asks of the master before COM_BINLOG_DUMP (`before_request_transmit`).
    The IO task runs `statements` in order; the request is granted when each got the answer it
    expects, refused at the first that did not (the rest are not run)."""

    purpose: str  # names the request in errors ("Master command <purpose> failed: ...")
    statements: tuple[MasterStatement, ...]
    # Granted: COM_BINLOG_DUMP asks for the semi-sync header (`EF flag`) before every event.
    semi_sync: bool = False


@dataclass(slots=True)
class ReadEvent:
    """What `after_read_event` leaves of a packet: the event bytes and whether an ack is due."""

    event: memoryview | bytes
    need_ack: bool = False


class ReadBatch:
    """The event packets of one read of the dump connection, for `after_read_events`.

    `events[i]` is packet i's payload after the OK byte until observers strip their headers from
    it (an observer replaces the item, as `after_read_event` returns it); `flagged` holds the
    indexes of the packets whose master asked for an ack, ascending (`flag` adds to it)."""

    __slots__ = ("events", "flagged")

    def __init__(self, events: list[bytes | memoryview]) -> None:
        self.events = events
        self.flagged: list[int] = []

    def flag(self, indexes: list[int]) -> None:
        """Add `indexes` (ascending) to `flagged`."""
        if not self.flagged:
            self.flagged = indexes
        elif indexes:
            self.flagged = sorted(set(self.flagged).union(indexes))


class QueuedEvents:
    """Events in the relay log, for `after_queue_events`: `events[i]` (what `after_read_events`
    left of its packet) ends at `ends[i]` in the master's binlog (what an ack of it names);
    `flagged` holds the indexes of those whose master asked for an ack, ascending. The IO task
    appends only; observers read."""

    __slots__ = ("events", "ends", "flagged")

    def __init__(self) -> None:
        self.events: list[bytes | memoryview] = []
        self.ends: list[BinlogPosition] = []
        self.flagged: list[int] = []

    def add(self, event: bytes | memoryview, end: BinlogPosition, flagged: bool) -> None:
        if flagged:
            self.flagged.append(len(self.events))
        self.events.append(event)
        self.ends.append(end)

    def add_run(self, events: list[bytes | memoryview], ends: list[BinlogPosition], flagged: list[int]) -> None:
        """`add` for each of `events`; `flagged`: the indexes in `events` of the flagged ones, ascending."""
        if flagged:
            base = len(self.events)
            self.flagged += [base + i for i in flagged] if base else flagged
        self.events += events
        self.ends += ends

    def extend(self, other: QueuedEvents, flagged_only: bool = False) -> None:
        """Append `other`'s events (only its flagged ones with `flagged_only`)."""
        chosen = other.flagged if flagged_only else range(len(other.events))
        marked = set(other.flagged)
        for i in chosen:
            self.add(other.events[i], other.ends[i], i in marked)

    def reads(self) -> list[tuple[ReadEvent, BinlogPosition]]:
        """Each event as `after_queue_event` gets it, with its end."""
        marked = set(self.flagged)
        return [(ReadEvent(event, i in marked), end) for i, (event, end) in enumerate(zip(self.events, self.ends, strict=True))]


# ---------------------------------------------------------------------------------------------
# Observer interfaces: subclass and override the hooks you need; the defaults do nothing.


class TransactionObserver:
    def before_commit(self, param: TransParam) -> None:
        return None

    async def after_commit(self, param: TransParam) -> CommitVerdict | None:
        return None

    def after_rollback(self, param: TransParam) -> None:
        return None


class BinlogStorageObserver:
    def after_flush(self, param: StorageParam) -> None:
        return None

    async def after_sync(self, param: StorageParam) -> CommitVerdict | None:
        return None

    def holds_groups(self) -> bool:
        """Whether the next group must stop between its sync and its engine commit for this
        observer (an `after_sync` that may wait, an `after_flush` that must come before the
        commit). False lets the shell write, sync and commit the group in one step, then call
        `after_flush`; `after_sync` is not called for that group."""
        return True

    def waits_after_sync(self) -> bool:
        """Whether this observer's `after_sync` of the next group may wait for something outside
        the server (a slave's ack). True lets the shell release the engine's writer lock during
        that wait, so that the next statements run and the next group is written meanwhile; the
        group's engine commit still comes after its `after_sync` (and may cover later groups)."""
        return False


class BinlogTransmitObserver:
    def transmit_start(self, param: TransmitParam) -> None:
        return None

    def transmit_stop(self, param: TransmitParam) -> None:
        return None

    def reserve_header(self, param: TransmitParam) -> bytes:
        return b""

    def before_send_event(self, param: TransmitParam, header: bytearray, event: SendParam) -> None:
        """May set bytes of `header`: the concatenation of every observer's reserved bytes, in
        registration order. An observer notes its slice's offset (`param.header_offset`) when
        `reserve_header` is called."""
        return None

    def after_send_event(self, param: TransmitParam, event: SendParam) -> None:
        return None

    def before_send_events(
        self, param: TransmitParam, headers: MutableSequence[bytes], events: Sequence[SendParam]
    ) -> None:
        """`before_send_event` for each event of one transport write, in order: `headers[i]` is
        `events[i]`'s header, which an observer changes by replacing the item (same length).
        An observer may override it to decide the batch in one call (the shell passes a
        `SendBatch`)."""
        if len(headers) != len(events):
            raise ValueError(f"{len(events)} events, {len(headers)} headers")
        for i, event in enumerate(events):
            header = bytearray(headers[i])
            self.before_send_event(param, header, event)
            headers[i] = bytes(header)

    def after_send_events(self, param: TransmitParam, events: Sequence[SendParam]) -> None:
        """`after_send_event` for each event of one transport write, in order."""
        for event in events:
            self.after_send_event(param, event)

    def after_reset_master(self) -> None:
        return None

    def handle_ack(self, param: TransmitParam, position: BinlogPosition) -> None:
        """A semi-sync ack for `position`, read from `param`'s dump connection. Raise
        `RemoteProtocolError` for an ack that breaks the protocol (the shell drops the slave)."""
        return None


class BinlogRelayIOObserver:
    def thread_start(self, param: RelayIOParam) -> None:
        return None

    def thread_stop(self, param: RelayIOParam) -> None:
        return None

    def before_request_transmit(self, param: RelayIOParam) -> DumpRequest | None:
        """Return what to ask of the master before COM_BINLOG_DUMP, or None."""
        return None

    def after_request_transmit(self, param: RelayIOParam, request: DumpRequest, granted: bool) -> None:
        """COM_BINLOG_DUMP is sent; `request` (any observer's: compare with `is`) was granted or
        refused on this connection."""
        return None

    def after_read_event(self, param: RelayIOParam, packet: memoryview) -> ReadEvent:
        return ReadEvent(packet)

    def after_queue_event(
        self, param: RelayIOParam, read: ReadEvent, end: BinlogPosition, synced: bool
    ) -> BinlogPosition | None:
        """Return the position to acknowledge to the master now, or None."""
        return None

    def after_read_events(self, param: RelayIOParam, batch: ReadBatch) -> None:
        """`after_read_event` for each packet of one read, in order: `batch.events[i]` becomes
        what it leaves of packet i, and the packets it flags join `batch.flagged`. An observer
        may override it to handle the read in one call."""
        events = batch.events
        flagged = []
        for i, packet in enumerate(events):
            read = self.after_read_event(param, memoryview(packet))
            events[i] = read.event
            if read.need_ack:
                flagged.append(i)
        batch.flag(flagged)

    def after_queue_events(self, param: RelayIOParam, queued: QueuedEvents, synced: bool) -> BinlogPosition | None:
        """`after_queue_event` for each event of `queued` (never empty), in order; the last
        position it returned. An observer may override it to decide the batch in one call."""
        ack = None
        for read, end in queued.reads():
            decided = self.after_queue_event(param, read, end, synced)
            if decided is not None:
                ack = decided
        return ack

    def after_reset_slave(self, param: RelayIOParam) -> None:
        return None


# ---------------------------------------------------------------------------------------------
# Delegates

ObserverT = TypeVar("ObserverT")


class _Done:
    """An awaitable that is already finished (returns None): the empty delegate's answer, and
    an observer's when it does not wait. Awaiting it runs no Python code: `await` calls a
    static `__await__` without the instance, here the empty tuple's iterator factory (C)."""

    __slots__ = ()

    __await__ = staticmethod(().__iter__)


DONE: Awaitable[None] = _Done()


def _waiting_hook(observers: tuple[Any, ...], hook: str, param: Any) -> Awaitable[Any]:
    """Run an async hook of none or several observers (a lone observer's hook is the
    delegate's, `Delegate.LONE_HOOKS`: its own awaitable): nothing to create when empty."""
    if not observers:
        return DONE
    return _each(observers, hook, param)


async def _each(observers: tuple[Any, ...], hook: str, param: Any) -> Any:
    """Every observer's wait, in order; IN_DOUBT if any of them decided so."""
    verdict = None
    for o in observers:
        if await getattr(o, hook)(param) is CommitVerdict.IN_DOUBT:
            verdict = CommitVerdict.IN_DOUBT
    return verdict


class Delegate(Generic[ObserverT]):
    """An ordered, copy-on-write set of observers. Falsy when empty. `observers` is the tuple
    itself (read it, never assign it: `add_observer` / `remove_observer` replace it): a caller
    on a per-group path tests it instead of the delegate, a truth test without a Python call.
    With exactly one observer, each hook named in `LONE_HOOKS` is that observer's bound method
    (an instance attribute over the class's method, set whenever the set changes); with none
    or several, the class's method runs them."""

    __slots__ = ("observers", "__dict__")
    #: the hooks whose call with one observer is exactly that observer's call
    LONE_HOOKS: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.observers: tuple[ObserverT, ...] = ()

    def add_observer(self, observer: ObserverT) -> None:
        if observer not in self.observers:
            self.observers = self.observers + (observer,)
            self._bind_hooks()

    def remove_observer(self, observer: ObserverT) -> None:
        self.observers = tuple(o for o in self.observers if o is not observer)
        self._bind_hooks()

    def _bind_hooks(self) -> None:
        observers, bound = self.observers, self.__dict__
        for name in self.LONE_HOOKS:
            if len(observers) == 1:
                bound[name] = getattr(observers[0], name)
            else:
                bound.pop(name, None)

    def __bool__(self) -> bool:
        return bool(self.observers)

    def __len__(self) -> int:
        return len(self.observers)


class TransactionDelegate(Delegate[TransactionObserver]):
    LONE_HOOKS = ("before_commit", "after_commit", "after_rollback")

    def before_commit(self, param: TransParam) -> None:
        for o in self.observers:
            o.before_commit(param)

    def after_commit(self, param: TransParam) -> Awaitable[CommitVerdict | None]:
        return _waiting_hook(self.observers, "after_commit", param)

    def after_rollback(self, param: TransParam) -> None:
        for o in self.observers:
            o.after_rollback(param)


class BinlogStorageDelegate(Delegate[BinlogStorageObserver]):
    LONE_HOOKS = ("after_flush", "after_sync", "holds_groups", "waits_after_sync")

    def after_flush(self, param: StorageParam) -> None:
        for o in self.observers:
            o.after_flush(param)

    def after_sync(self, param: StorageParam) -> Awaitable[CommitVerdict | None]:
        return _waiting_hook(self.observers, "after_sync", param)

    def holds_groups(self) -> bool:
        for o in self.observers:  # (asked once per group: a loop, no generator)
            if o.holds_groups():
                return True
        return False

    def waits_after_sync(self) -> bool:
        for o in self.observers:
            if o.waits_after_sync():
                return True
        return False


class BinlogTransmitDelegate(Delegate[BinlogTransmitObserver]):
    """The reserved header of a session is fixed at `transmit_start` time: the observers present
    then, in order, each own a slice of it (their offsets are kept in the param)."""

    # (not `reserve_header`: it sets each observer's offset in the param first)
    LONE_HOOKS = ("transmit_start", "transmit_stop", "before_send_event", "after_send_event",
                  "before_send_events", "after_send_events", "after_reset_master", "handle_ack")

    def transmit_start(self, param: TransmitParam) -> None:
        for o in self.observers:
            o.transmit_start(param)

    def transmit_stop(self, param: TransmitParam) -> None:
        for o in self.observers:
            o.transmit_stop(param)

    def reserve_header(self, param: TransmitParam) -> bytes:
        parts = []
        offset = 0
        for o in self.observers:
            param.header_offset = offset
            part = o.reserve_header(param)
            parts.append(part)
            offset += len(part)
        return b"".join(parts)

    def before_send_event(self, param: TransmitParam, header: bytearray, event: SendParam) -> None:
        for o in self.observers:
            o.before_send_event(param, header, event)

    def after_send_event(self, param: TransmitParam, event: SendParam) -> None:
        for o in self.observers:
            o.after_send_event(param, event)

    def before_send_events(
        self, param: TransmitParam, headers: MutableSequence[bytes], events: Sequence[SendParam]
    ) -> None:
        for o in self.observers:  # observer by observer: each sets only its own header slice
            o.before_send_events(param, headers, events)

    def after_send_events(self, param: TransmitParam, events: Sequence[SendParam]) -> None:
        for o in self.observers:
            o.after_send_events(param, events)

    def after_reset_master(self) -> None:
        for o in self.observers:
            o.after_reset_master()

    def handle_ack(self, param: TransmitParam, position: BinlogPosition) -> None:
        for o in self.observers:
            o.handle_ack(param, position)


class BinlogRelayIODelegate(Delegate[BinlogRelayIOObserver]):
    # (not `before_request_transmit`: it answers a list of the observers' requests)
    LONE_HOOKS = ("thread_start", "thread_stop", "after_request_transmit", "after_read_event", "after_queue_event",
                  "after_read_events", "after_queue_events", "after_reset_slave")

    def thread_start(self, param: RelayIOParam) -> None:
        for o in self.observers:
            o.thread_start(param)

    def thread_stop(self, param: RelayIOParam) -> None:
        for o in self.observers:
            o.thread_stop(param)

    def before_request_transmit(self, param: RelayIOParam) -> list[DumpRequest]:
        """Every observer's request, in registration order (those that ask nothing left out)."""
        requests = []
        for o in self.observers:
            request = o.before_request_transmit(param)
            if request is not None:
                requests.append(request)
        return requests

    def after_request_transmit(self, param: RelayIOParam, request: DumpRequest, granted: bool) -> None:
        for o in self.observers:
            o.after_request_transmit(param, request, granted)

    def after_read_event(self, param: RelayIOParam, packet: memoryview) -> ReadEvent:
        read = ReadEvent(packet)
        for o in self.observers:
            step = o.after_read_event(param, memoryview(read.event))
            read = ReadEvent(step.event, read.need_ack or step.need_ack)
        return read

    def after_queue_event(
        self, param: RelayIOParam, read: ReadEvent, end: BinlogPosition, synced: bool
    ) -> BinlogPosition | None:
        ack = None
        for o in self.observers:
            decided = o.after_queue_event(param, read, end, synced)
            if decided is not None:
                ack = decided
        return ack

    def after_read_events(self, param: RelayIOParam, batch: ReadBatch) -> None:
        for o in self.observers:  # observer by observer: each strips its own header
            o.after_read_events(param, batch)

    def after_queue_events(self, param: RelayIOParam, queued: QueuedEvents, synced: bool) -> BinlogPosition | None:
        observers = self.observers
        ack = None  # several: the last decision in the stream's order, as per event
        for read, end in queued.reads():
            for o in observers:
                decided = o.after_queue_event(param, read, end, synced)
                if decided is not None:
                    ack = decided
        return ack

    def after_reset_slave(self, param: RelayIOParam) -> None:
        for o in self.observers:
            o.after_reset_slave(param)


@dataclass
class ReplicationInterface:
    """The four delegates of one server. A plugin registers its observers here on install and
    removes them on uninstall."""

    transaction: TransactionDelegate = field(default_factory=TransactionDelegate)
    storage: BinlogStorageDelegate = field(default_factory=BinlogStorageDelegate)
    transmit: BinlogTransmitDelegate = field(default_factory=BinlogTransmitDelegate)
    relay_io: BinlogRelayIODelegate = field(default_factory=BinlogRelayIODelegate)
