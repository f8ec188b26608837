"""The semi-sync master plugin (MySQL's semisync_master), built only on `semisync.interface`.

Contract (who calls what; see `semisync.interface` for when the shell runs each hook)
- The master shell constructs `SemiSyncMasterPlugin(interface, clock=..., settings=...)` at
  startup and calls `install()`; `uninstall()` removes its observers and releases every waiting
  commit (none is lost or left hanging). Variables and status exist only while installed.
- Observers: transaction (`after_commit`: the AFTER_COMMIT wait), binlog storage (`after_flush`:
  records the group's end as the largest committed position, and as a position that needs an ack;
  `after_sync`: the AFTER_SYNC wait), binlog transmit (semi-sync clients, the `EF flag` header,
  what was sent to which slave, RESET MASTER). The shell must run `after_flush` before it
  publishes the group's end to the dump sessions, so that the flag decision sees the group.
- Acks: `handle_ack(param, position)`, the binlog transmit hook the master's ack receiver (it
  owns the read side of the dump sockets) runs for each ack read from a dump session. An ack
  from a session that did not ask for semi-sync, or beyond what was handed to that session's
  socket, raises `RemoteProtocolError` (drop that connection) and releases nothing; an ack
  behind the reply position moves nothing.
- Waiting: a commit group waits once, for its last position, in `after_sync` (AFTER_SYNC) or in
  `after_commit` (AFTER_COMMIT), at most `rpl_semi_sync_master_timeout` ms (the value when its
  wait began; a new timeout applies to the waits that begin after the change). It ends ACKED when
  N = `wait_for_slave_count` distinct slaves acked at or past its position (WL#7169), else it
  is released unacked: on its own timeout (semi-sync switches OFF) or when semi-sync is switched
  off, disabled, uninstalled or RESET MASTER runs. The commit then proceeds; only the
  counters differ (`yes_tx` for acked, `no_tx` otherwise; both count transactions).
- Shutdown (`await shutdown(grace)`, called by the shell before it closes the dump connections,
  so acks still arrive): when semi-sync is ON, waiting commits get up to `grace` seconds (the
  timeout) to be acked, as MariaDB delays its shutdown (MDEV-11853); from the moment it begins,
  no unacked commit is ever reported as committed: a wait that ends unacked (the shutdown's
  release, its own timeout, which then leaves semi-sync ON) returns `CommitVerdict.IN_DOUBT`,
  and so does every later commit that is not acked, even if semi-sync switched OFF meanwhile. The shell answers those clients ER_SERVER_SHUTDOWN (Percona's
  PS-9916 logs the forced shutdown as an error); the log says how many transactions.
- Status OFF: commits do not wait (`no_tx`); events at or after the largest committed position
  are flagged, so the ack of a caught-up slave (or a semi-sync slave connecting at or past that
  position: its start position counts as its ack, as in mysqld) switches semi-sync back ON.

Everything runs on the event loop's thread; the waits are asyncio futures (`commit_gate`).
Counters follow mysqld's semisync status variables; times are microseconds. Differences from
mysqld, on purpose: `tx_waits`/`tx_wait_time` count only waits that ended with an ack (so the
average is the ack latency, not skewed by timeouts); `no_times` counts switches from ON to OFF
(disabling while ON is one), never an OFF that was already OFF; `wait_no_slave=OFF` also keeps
semi-sync from switching ON while fewer than N semi-sync slaves are connected.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.position import BinlogPosition
from protocol.semisync_wire import semisync_header
from semisync.ack_container import AckContainer
from semisync.commit_gate import CommitGate, Outcome
from semisync.interface import (
    DONE,
    BinlogStorageObserver,
    BinlogTransmitObserver,
    CommitVerdict,
    ReplicationInterface,
    SendBatch,
    SendParam,
    StorageParam,
    TransactionObserver,
    TransmitParam,
    TransParam,
)
from semisync.variables import (
    MASTER_ENABLED,
    MASTER_TIMEOUT,
    MASTER_TRACE_LEVEL,
    MASTER_VARIABLES,
    MASTER_WAIT_FOR_SLAVE_COUNT,
    MASTER_WAIT_NO_SLAVE,
    MASTER_WAIT_POINT,
    TRACE_DETAIL,
    TRACE_GENERAL,
    TRACE_NET_WAIT,
    PluginVariables,
    Variables,
    on_off,
)

log = logging.getLogger("semisync.master")

PLUGIN_NAME = "rpl_semi_sync_master"
WAITING_STATE = "Waiting for semi-sync ACK from slave"
_USER_VARS = ("rpl_semi_sync_slave", "rpl_semi_sync_replica")


def wants_semi_sync(user_vars: Mapping[str, Any]) -> bool:
    """Did the dump connection `SET @rpl_semi_sync_slave = 1` (or the MySQL 8 name)?"""
    for name in _USER_VARS:
        value = user_vars.get(name)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        if isinstance(value, str):
            text = value.strip().lower()
            if text in ("true", "on"):
                return True
            try:
                value = float(text)
            except ValueError:
                continue
        if isinstance(value, int | float) and value:
            return True
    return False


@dataclass
class _Counters:
    """The resettable counters (FLUSH STATUS, RESET MASTER)."""

    yes_tx: int = 0
    no_tx: int = 0
    no_times: int = 0
    tx_waits: int = 0
    tx_wait_time: int = 0
    net_waits: int = 0
    net_wait_time: int = 0
    wait_pos_backtraverse: int = 0
    timefunc_failures: int = 0

    def zero(self) -> None:
        for f in fields(self):
            setattr(self, f.name, 0)


@dataclass
class _Dump:
    """One semi-sync dump session, kept in its `TransmitParam.observer_state[plugin]`."""

    server_id: int
    offset: int = 0  # where our two header bytes sit in the reserved header
    # Highest event end handed to the socket. Set before the write (not after it): the slave's
    # ack can reach the ack receiver before the dump coroutine resumes after its write.
    in_flight: BinlogPosition | None = None
    sent: BinlogPosition | None = None  # highest event end whose write completed
    # (end, send time) of flagged events not yet acked, for net_wait_time; bounded so that a
    # slave that never acks cannot grow it without limit.
    flagged: deque[tuple[BinlogPosition, float]] = field(default_factory=lambda: deque(maxlen=4096))


class SemiSyncMasterPlugin(
    PluginVariables, TransactionObserver, BinlogStorageObserver, BinlogTransmitObserver
):
    name = PLUGIN_NAME
    _trace_spec = MASTER_TRACE_LEVEL
    _log = log

    def __init__(
        self,
        interface: ReplicationInterface,
        *,
        clock: Callable[[], float] = time.monotonic,
        settings: Mapping[str, object] | None = None,
        on_ack_round_trip: Callable[[int, float], None] | None = None,
        on_status_change: Callable[[bool], None] | None = None,
        **_: object,
    ):
        self._interface = interface
        self._clock = clock
        self._vars = Variables(MASTER_VARIABLES)
        for spec, value in self._vars.initial(settings):
            self._vars.store(spec, value)
        self._stored()
        self._installed = False
        self._on = False
        self._clients = 0
        self._counters = _Counters()
        # acks asked of slaves (events sent flagged) and acks received: since startup, as
        # MariaDB's Rpl_semi_sync_master_request_ack / _get_ack (FLUSH STATUS leaves them)
        self._acks_requested = 0
        self._acks_received = 0
        self._container = AckContainer(self._count)
        self._gate = CommitGate(self._on_wait_timeout)
        self._reply: BinlogPosition | None = None  # largest position N slaves acked; only grows
        self._commit_max: BinlogPosition | None = None  # largest flushed group end
        # Group ends flushed while ON and not yet replicated: the events to flag (ordered set).
        self._active: dict[BinlogPosition, None] = {}
        # Shutdown began while ON: an unacked commit is in doubt from now on, never OK.
        self._stopping = False
        self._stopped = False  # ... and the shutdown's wait is over: nothing waits any more
        self._in_doubt = 0  # transactions whose wait timed out since the shutdown began
        # Optional listeners for the shell's metrics; called synchronously, must not block.
        # on_ack_round_trip(server_id, seconds): a slave acked an ack-requested event.
        # on_status_change(on): semi-sync status switched.
        self.on_ack_round_trip = on_ack_round_trip
        self.on_status_change = on_status_change

    # -----------------------------------------------------------------------------------------
    # Lifecycle

    def install(self) -> None:
        if self._installed:
            return
        self._installed = True
        self._on = self._enabled and (self._wait_no_slave or self._clients >= self._count)
        self._interface.transaction.add_observer(self)
        self._interface.storage.add_observer(self)
        self._interface.transmit.add_observer(self)
        self._trace(TRACE_GENERAL, "installed: %s", self.describe())

    def uninstall(self) -> None:
        if not self._installed:
            return
        self._interface.transaction.remove_observer(self)
        self._interface.storage.remove_observer(self)
        self._interface.transmit.remove_observer(self)
        self._installed = False
        self._on = False
        self._active.clear()
        released = self._gate.release_all(Outcome.RELEASED)
        if released:
            log.warning("semi-sync master uninstalled: released %d waiting commit(s) unacked", released)

    @property
    def installed(self) -> bool:
        return self._installed

    async def shutdown(self, grace: float | None = None) -> int:
        """Server shutdown: when semi-sync is ON, give waiting commits (and those that begin
        meanwhile) up to `grace` seconds (default: the timeout) to be acked, then release the
        rest in doubt. Acks keep being handled meanwhile. Returns the transactions left in doubt."""
        if grace is None:
            grace = self._timeout_seconds
        self._stopping = self._stopping or self.status
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        if len(self._gate):
            log.info("Delaying shutdown to await semi-sync ACK: %d commit(s) waiting, up to %.3f s",
                     self._gate.transactions, grace)
        while len(self._gate) and deadline > loop.time():
            await asyncio.wait(self._gate.futures(), timeout=deadline - loop.time())
        in_doubt = self._in_doubt + self._gate.transactions
        self._stopped = self._stopping
        self._gate.release_all(Outcome.SHUTDOWN)
        if in_doubt:
            log.error(
                "SEMISYNC: Forced shutdown: %d commit(s) not acked by any slave within %.3f s are "
                "in doubt (durable in the binlog, their clients get ER_SERVER_SHUTDOWN)", in_doubt, grace,
            )
        return in_doubt

    # -----------------------------------------------------------------------------------------
    # Variables and status

    def set_variable(self, name: str, value: object) -> None:
        """`SET GLOBAL name = value`: validated (1231/1232), effective at once. None = DEFAULT."""
        spec, old, new = self._validate(name, value)
        if spec is MASTER_ENABLED and new != old:
            self._enable() if new else self._disable()
        elif spec is MASTER_WAIT_FOR_SLAVE_COUNT:
            self._advance(self._container.resize(self._count))
            self._switch_off_without_slaves()
        elif spec is MASTER_WAIT_NO_SLAVE:
            self._switch_off_without_slaves()
            self._try_switch_on()

    def status_variables(self, aliases: bool = False) -> dict[str, int | str]:
        """`SHOW GLOBAL STATUS` rows (times in microseconds); with `aliases`, also the MySQL 8
        `Rpl_semi_sync_source_*` names. Empty while uninstalled."""
        if not self._installed:
            return {}
        c = self._counters
        values: dict[str, int | str] = {
            "clients": self._clients,
            "net_avg_wait_time": c.net_wait_time // c.net_waits if c.net_waits else 0,
            "net_wait_time": c.net_wait_time,
            "net_waits": c.net_waits,
            "no_times": c.no_times,
            "no_tx": c.no_tx,
            "status": on_off(self.status),
            "timefunc_failures": c.timefunc_failures,
            "tx_avg_wait_time": c.tx_wait_time // c.tx_waits if c.tx_waits else 0,
            "tx_wait_time": c.tx_wait_time,
            "tx_waits": c.tx_waits,
            "wait_pos_backtraverse": c.wait_pos_backtraverse,
            "wait_sessions": self._gate.sessions,
            "yes_tx": c.yes_tx,
        }
        prefixes = ("Rpl_semi_sync_master_", "Rpl_semi_sync_source_") if aliases else ("Rpl_semi_sync_master_",)
        shown = {prefix + key: value for prefix in prefixes for key, value in values.items()}
        # MariaDB's own, which MySQL 8 has no source_ name for
        shown["Rpl_semi_sync_master_get_ack"] = self._acks_received
        shown["Rpl_semi_sync_master_request_ack"] = self._acks_requested
        return shown

    def flush_status(self) -> None:
        """FLUSH STATUS: zero the counters (not the gauges: clients, status, wait_sessions)."""
        self._counters.zero()

    @property
    def status(self) -> bool:
        return self._installed and self._enabled and self._on

    @property
    def clients(self) -> int:
        return self._clients

    @property
    def reply_position(self) -> BinlogPosition | None:
        return self._reply

    @property
    def commit_position(self) -> BinlogPosition | None:
        return self._commit_max

    def is_semi_sync_session(self, param: TransmitParam) -> bool:
        """Is this dump session a semi-sync client (its acks go to `handle_ack`)?"""
        return isinstance(param.observer_state.get(self), _Dump)

    def describe(self) -> str:
        return (
            f"semi-sync master: enabled={on_off(self._enabled)} status={on_off(self.status)} "
            f"clients={self._clients} wait_for_slave_count={self._count} "
            f"timeout={self._vars[MASTER_TIMEOUT.name]}ms wait_point={self._vars[MASTER_WAIT_POINT.name]} "
            f"reply={self._reply} committed={self._commit_max} waiting={self._gate.sessions}"
        )

    # -----------------------------------------------------------------------------------------
    # Binlog storage and transaction observers: recording and waiting

    def after_flush(self, param: StorageParam) -> None:
        position = param.position
        if self._commit_max is None or self._commit_max < position:
            self._commit_max = position
        if self._enabled and self._on:
            self._active[position] = None

    def holds_groups(self) -> bool:
        # disabled: after_sync never waits and after_flush only tracks the binlog end
        return self._enabled

    def waits_after_sync(self) -> bool:
        # switched OFF (no slave acks), after_sync counts the group as async and returns
        return (self._enabled and self._installed and self._on
                and self._wait_point == "AFTER_SYNC")

    # The two waiting hooks hand the shell the wait's own coroutine (or the finished `DONE`),
    # so that a group's wait resumes no frame of theirs.
    def after_sync(self, param: StorageParam) -> Awaitable[CommitVerdict | None]:  # type: ignore[override]
        if self._wait_point == "AFTER_SYNC":
            return self._wait(param.position, param.transactions, param.sessions)
        return DONE

    def after_commit(self, param: TransParam) -> Awaitable[CommitVerdict | None]:  # type: ignore[override]
        if self._wait_point == "AFTER_COMMIT":
            return self._wait(param.position, param.transactions, (param,))
        return DONE

    async def _wait(
        self,
        position: BinlogPosition | None,
        transactions: int,
        sessions: Iterable[TransParam],
    ) -> CommitVerdict | None:
        """The wait of `after_sync` / `after_commit`: while it lasts, each of `sessions` that
        can show a state (`TransParam.set_state`) shows WAITING_STATE."""
        if not self._enabled or not self._installed or position is None:
            return None
        c = self._counters
        if not self._on:
            c.no_tx += transactions
            # switched OFF after a shutdown began while ON (e.g. its dumps closed, with
            # wait_no_slave OFF): still unacked, so still in doubt
            return CommitVerdict.IN_DOUBT if self._stopping else None
        if self._reply is not None and not self._reply < position:
            c.yes_tx += transactions  # acked before we got here (the dump can outrun us)
            return None
        if self._stopped:
            c.no_tx += transactions
            log.error("SEMISYNC: Forced shutdown: the commit at %s (%d transaction(s)) is in doubt",
                      position, transactions)
            return CommitVerdict.IN_DOUBT
        if position not in self._gate:
            highest = self._gate.max_position
            if highest is not None and position < highest:
                c.wait_pos_backtraverse += 1
            # Flushed while OFF and switched ON since: make sure its event gets flagged.
            self._active.setdefault(position, None)
        for session in sessions:
            if session.set_state is not None:
                session.set_state(WAITING_STATE)
        start = self._clock()
        gate = self._gate  # (its `wait`'s steps in this frame: no coroutine of the gate's per group)
        waiter, released = gate.enter(position, self._timeout_seconds, transactions)
        try:
            outcome = await released
        finally:
            gate.leave(waiter, released, transactions)
            for session in sessions:
                if session.set_state is not None:
                    session.set_state(None)
        if outcome is Outcome.ACKED:
            c.yes_tx += transactions
            c.tx_waits += 1
            c.tx_wait_time += max(0, round((self._clock() - start) * 1_000_000))  # µs
            if self._trace_level & TRACE_DETAIL:
                self._log.debug("commit at %s acked", position)
            return None
        c.no_tx += transactions
        if self._stopping or outcome is Outcome.SHUTDOWN:
            return CommitVerdict.IN_DOUBT
        return None

    def _on_wait_timeout(self, position: BinlogPosition, transactions: int) -> None:
        log.warning(
            "Timeout waiting for reply of binlog %s (%d ms), semi-sync up to %s",
            position, self._vars[MASTER_TIMEOUT.name], self._reply,
        )
        if self._stopping:
            self._in_doubt += transactions
            return  # shutting down: stay ON, so that no later commit is answered OK unacked
        self._switch_off(f"timeout of {self._vars[MASTER_TIMEOUT.name]} ms waiting for {position}")

    # -----------------------------------------------------------------------------------------
    # Binlog transmit observer: semi-sync clients and the header

    def transmit_start(self, param: TransmitParam) -> None:
        if not wants_semi_sync(param.user_vars):
            return
        dump = _Dump(param.slave_server_id)
        param.observer_state[self] = dump
        param.event_hooks = True  # the flag and what is in flight are decided per event
        self._clients += 1
        log.info("Start semi-sync binlog_dump to slave (server_id: %d), pos(%s); semi-sync clients: %d",
                 dump.server_id, param.start, self._clients)
        if param.start.file:
            # A slave asking for position P holds everything before P: that is its first ack.
            dump.in_flight = param.start
            try:
                self._ack(dump.server_id, param.start)
            except ProtocolError:
                log.warning("slave %d asks for %s, not in this binlog", dump.server_id, param.start)

    def transmit_stop(self, param: TransmitParam) -> None:
        dump = param.observer_state.pop(self, None)
        if not isinstance(dump, _Dump):
            return
        self._clients -= 1
        log.info("Stop semi-sync binlog_dump to slave (server_id: %d); semi-sync clients: %d",
                 dump.server_id, self._clients)
        self._switch_off_without_slaves()

    def reserve_header(self, param: TransmitParam) -> bytes:
        dump = param.observer_state.get(self)
        if not isinstance(dump, _Dump):
            return b""
        dump.offset = param.header_offset
        return semisync_header(False)

    # The hooks below run for every event sent to a semi-sync slave, batch by batch (a read
    # batch is one transport write) or alone. Only a real binlog event (a place in the binlog:
    # not a heartbeat, not artificial) is in flight or flagged; while ON only a group's end
    # (`_active`) can need an ack, which is tested first. Nothing runs between the events of a
    # batch, so the state is read once per batch.
    def before_send_event(self, param: TransmitParam, header: bytearray, event: SendParam) -> None:
        headers = [bytes(header)]
        self.before_send_events(param, headers, (event,))
        header[:] = headers[0]

    def before_send_events(
        self, param: TransmitParam, headers: MutableSequence[bytes], events: Sequence[SendParam]
    ) -> None:
        dump = param.observer_state.get(self)
        if type(dump) is not _Dump:
            return
        if type(events) is SendBatch and self._on:
            self._before_batch(dump, headers, events)
            return
        active, on = self._active, self._on
        for i, event in enumerate(events):
            if not _is_binlog_event(event):
                headers[i] = _with_flag(headers[i], dump.offset, _NO_ACK)
                continue
            end = event.end
            assert end is not None
            dump.in_flight = end
            flag = _NO_ACK
            if (end in active or not on) and self._needs_ack(end):
                flag = _ACK
                dump.flagged.append((end, self._clock()))
                self._acks_requested += 1
            headers[i] = _with_flag(headers[i], dump.offset, flag)

    def _before_batch(self, dump: _Dump, headers: MutableSequence[bytes], batch: SendBatch) -> None:
        """`before_send_events` while ON, on the batch's places as ints: the same decisions as
        the per-event loop (held equal by tests/unit/test_semisync_master.py), with an object
        only for the events that ask for an ack and for the last one in flight. While ON only
        a waiting group's end (`_active`) can ask; every other header gets our flag cleared."""
        places, file, at = batch.places, batch.file, dump.offset
        first = headers[0] if headers else _NO_ACK
        # (the usual: every header the reserved one, ours cleared in it: compared once)
        if first[at:at + 2] != _NO_ACK or headers.count(first) != len(headers):
            for i, header in enumerate(headers):
                if header[at:at + 2] != _NO_ACK:
                    headers[i] = _with_flag(header, at, _NO_ACK)
        waiting = None  # the waiting group ends (`_active`, usually one) that end an event of the batch
        in_batch: set[int] | None = None
        for end in self._active:
            if end.file == file:
                if in_batch is None:
                    in_batch = set(places)
                if end.pos in in_batch:
                    if waiting is None:
                        waiting = [end]
                    else:
                        waiting.append(end)
        if waiting is not None:
            if len(waiting) > 1:
                waiting.sort()
            for end in waiting:
                if self._needs_ack(end):
                    i = places.index(end.pos)
                    headers[i] = _with_flag(headers[i], at, _ACK)
                    dump.flagged.append((end, self._clock()))
                    self._acks_requested += 1
        last = batch.end
        if last is not None:
            dump.in_flight = last

    def after_send_event(self, param: TransmitParam, event: SendParam) -> None:
        self.after_send_events(param, (event,))

    def after_send_events(self, param: TransmitParam, events: Sequence[SendParam]) -> None:
        dump = param.observer_state.get(self)
        if type(dump) is not _Dump:
            return
        if type(events) is SendBatch:  # the batch's last event with a place is the highest sent
            last = events.end
            if last is not None:
                dump.sent = last
            return
        for event in reversed(events):
            if _is_binlog_event(event):
                dump.sent = event.end
                return

    def after_reset_master(self) -> None:
        released = self._gate.release_all(Outcome.RELEASED)
        self._container.clear()
        self._active.clear()
        self._reply = None
        self._commit_max = None
        self._counters.zero()
        log.info("RESET MASTER: semi-sync positions and counters reset (%d waiter(s) released)", released)

    def _needs_ack(self, end: BinlogPosition) -> bool:
        """Does the binlog event ending at `end` ask the slave for an ack?"""
        if not self._enabled:
            return False
        try:
            if self._on:
                return end in self._active and (self._reply is None or self._reply < end)
            # OFF: ask the slave to confirm it caught up with the largest committed position.
            return self._commit_max is not None and not end < self._commit_max
        except ProtocolError:  # a position of another binlog basename: never ours to flag
            return False

    # -----------------------------------------------------------------------------------------
    # Acks

    def handle_ack(self, param: TransmitParam, position: BinlogPosition) -> None:
        """An ack read from the dump session `param` by the ack receiver."""
        if not self._installed:
            return  # a session that outlived an UNINSTALL PLUGIN: its acks decide nothing now
        dump = param.observer_state.get(self)
        if not isinstance(dump, _Dump):
            raise RemoteProtocolError(
                f"semi-sync ack for {position} from a dump session that did not ask for semi-sync"
            )
        try:
            beyond = dump.in_flight is None or dump.in_flight < position
        except ProtocolError:
            beyond = True
        if beyond:
            raise RemoteProtocolError(
                f"semi-sync ack for {position} from slave {dump.server_id} is beyond the last "
                f"event sent to it ({dump.in_flight})"
            )
        self._acks_received += 1
        now = self._clock()
        flagged, trace = dump.flagged, self._trace_level  # (the trace level read here, not per call)
        while flagged and not position < flagged[0][0]:
            took = now - flagged.popleft()[1]
            counters = self._counters
            counters.net_waits += 1
            counters.net_wait_time += max(0, round(took * 1_000_000))  # µs
            if trace & TRACE_NET_WAIT:
                self._log.debug("ack round trip from slave %d: %.3f ms", dump.server_id, took * 1e3)
            if self.on_ack_round_trip is not None:
                self.on_ack_round_trip(dump.server_id, took)
        if trace & TRACE_DETAIL:
            self._log.debug("got reply at %s from slave %d", position, dump.server_id)
        self._advance(self._container.insert(dump.server_id, position))  # _ack

    def _ack(self, server_id: int, position: BinlogPosition) -> None:
        self._advance(self._container.insert(server_id, position))

    def _advance(self, replicated: BinlogPosition | None) -> None:
        """N slaves acked up to `replicated`: move the reply position, release, maybe switch ON."""
        if replicated is not None and (self._reply is None or self._reply < replicated):
            self._reply = replicated
            while self._active:
                first = next(iter(self._active))
                if replicated < first:
                    break
                del self._active[first]
            released = self._gate.release_up_to(replicated)
            if released and self._trace_level & TRACE_DETAIL:
                self._log.debug("released %d waiter(s) up to %s", released, replicated)
        if not self._on:
            self._try_switch_on()

    # -----------------------------------------------------------------------------------------
    # Switching

    def _try_switch_on(self) -> None:
        if self._on or not self._enabled or not self._installed or self._reply is None:
            return
        if not self._wait_no_slave and self._clients < self._count:
            return
        if self._commit_max is not None and self._reply < self._commit_max:
            return
        self._switch_on(f"{self._count} slave(s) acked up to {self._reply}, the largest committed position")

    def _switch_on(self, reason: str) -> None:
        self._on = True
        log.info("Semi-sync replication switched ON at %s: %s", self._commit_max, reason)
        if self.on_status_change is not None:
            self.on_status_change(True)

    def _switch_off(self, reason: str) -> None:
        if not self._on:
            return
        self._on = False
        self._counters.no_times += 1
        self._active.clear()
        released = self._gate.release_all(Outcome.RELEASED)
        log.warning(
            "Semi-sync replication switched OFF at %s (reply position %s): %s; %d waiting commit(s) released",
            self._commit_max, self._reply, reason, released,
        )
        if self.on_status_change is not None:
            self.on_status_change(False)

    def _switch_off_without_slaves(self) -> None:
        if self._on and not self._wait_no_slave and self._clients < self._count:
            self._switch_off(
                f"{self._clients} semi-sync slave(s) connected, fewer than wait_for_slave_count="
                f"{self._count}, and rpl_semi_sync_master_wait_no_slave is OFF"
            )

    def _enable(self) -> None:
        if self._wait_no_slave or self._clients >= self._count:
            self._switch_on("rpl_semi_sync_master_enabled set to ON")
        else:
            log.info("semi-sync master enabled; status stays OFF until %d semi-sync slave(s) ack", self._count)

    def _disable(self) -> None:
        self._switch_off("rpl_semi_sync_master_enabled set to OFF")
        self._gate.release_all(Outcome.RELEASED)
        self._active.clear()

    # -----------------------------------------------------------------------------------------

    def _stored(self) -> None:
        super()._stored()
        v = self._vars
        self._enabled = bool(v[MASTER_ENABLED.name])
        self._count = int(v[MASTER_WAIT_FOR_SLAVE_COUNT.name])
        self._wait_no_slave = bool(v[MASTER_WAIT_NO_SLAVE.name])
        self._timeout_seconds = int(v[MASTER_TIMEOUT.name]) / 1000.0
        self._wait_point = str(v[MASTER_WAIT_POINT.name])


def _is_binlog_event(event: SendParam) -> bool:
    """A real binlog event with a place in the binlog (not a heartbeat, not artificial)."""
    return event.end is not None and not event.heartbeat and not event.artificial


_NO_ACK, _ACK = semisync_header(False), semisync_header(True)


def _with_flag(header: bytes, at: int, ours: bytes) -> bytes:
    """`header` with our two bytes (at `at`) set to `ours`."""
    if header[at:at + 2] == ours:
        return header
    return header[:at] + ours + header[at + 2:]
