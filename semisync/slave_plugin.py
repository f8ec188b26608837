"""The semi-sync slave plugin (MySQL's semisync_slave), built only on `semisync.interface`.

Contract (the slave shell's IO task calls the binlog relay IO hooks; see `semisync.interface`)
- `thread_start`: snapshots `rpl_semi_sync_slave_enabled` for this IO task (a change takes
  effect at the next IO task start, as in mysqld). `thread_stop`: status OFF.
- `before_request_transmit` (once per connection, before COM_BINLOG_DUMP): if enabled, returns
  `NEGOTIATION` for the IO task to run on its connection (the plugin runs no I/O): the probe
  `SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'`, where any row means the master has
  semi-sync, then `SET @rpl_semi_sync_slave= 1`. No row, or ERR 1193, refuses it; any other ERR
  is a connection error (the IO task's). `after_request_transmit` tells the outcome: granted,
  this connection is semi-sync (status ON); refused: replicate asynchronously, warn, status OFF.
- `after_read_event` (each event packet, payload after the OK byte): on a semi-sync connection
  strips the `EF flag` header (RemoteProtocolError if missing) and reports `need_ack`.
- `after_queue_event(param, read, end, synced)` (each event, after it is in the relay log;
  `synced` = the relay log has been fsynced up to and including it): returns the position to
  ack, or None. Durability rule: a position is returned only when `synced` is True, i.e. never
  for an event that is not durable. A flagged event that is not yet synced is remembered; the
  first later call with `synced` True returns it (or the latest flagged one since: acks are
  cumulative). When several events are queued and synced together the IO task may call
  `after_queue_event` for each of them after one fsync: it must send only the LAST non-None
  value returned for the batch, once (it covers every earlier one).
- `after_read_events` / `after_queue_events` (the IO task's hooks for one read): the same
  decisions for the whole read in one call (the headers stripped in one pass; the pending
  position is the last flagged event's end, returned once when `synced`), held equal to the
  per-event hooks by tests/unit/test_semisync_slave.py.
- `after_reset_slave`: forget what was pending.
Heartbeats are not queued, so the IO task does not call `after_queue_event` for them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from protocol.errors import ER_UNKNOWN_SYSTEM_VARIABLE
from protocol.position import BinlogPosition
from protocol.semisync_wire import split_semisync_header, split_semisync_headers
from semisync.interface import (
    BinlogRelayIOObserver,
    DumpRequest,
    Expect,
    MasterStatement,
    QueuedEvents,
    ReadBatch,
    ReadEvent,
    RelayIOParam,
    ReplicationInterface,
)
from semisync.variables import (
    SLAVE_ENABLED,
    SLAVE_TRACE_LEVEL,
    SLAVE_VARIABLES,
    TRACE_DETAIL,
    TRACE_GENERAL,
    PluginVariables,
    Variables,
    on_off,
)

log = logging.getLogger("semisync.slave")

PLUGIN_NAME = "rpl_semi_sync_slave"
PROBE = MasterStatement(
    "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'", Expect.ROWS,
    refused_by=frozenset({ER_UNKNOWN_SYSTEM_VARIABLE.code}),
)
REQUEST = MasterStatement("SET @rpl_semi_sync_slave= 1", Expect.OK)
NEGOTIATION = DumpRequest("semi-sync negotiation", (PROBE, REQUEST), semi_sync=True)


@dataclass
class _IoTask:
    """One IO task, kept in its `RelayIOParam.observer_state[plugin]`."""

    enabled: bool  # rpl_semi_sync_slave_enabled when the task started
    semi_sync: bool = False  # negotiated on the current connection
    pending: BinlogPosition | None = None  # latest flagged event not yet acked


class SemiSyncSlavePlugin(PluginVariables, BinlogRelayIOObserver):
    name = PLUGIN_NAME
    _trace_spec = SLAVE_TRACE_LEVEL
    _log = log

    def __init__(
        self,
        interface: ReplicationInterface,
        *,
        settings: Mapping[str, object] | None = None,
        **_: object,
    ):
        self._interface = interface
        self._vars = Variables(SLAVE_VARIABLES)
        for spec, value in self._vars.initial(settings):
            self._vars.store(spec, value)
        self._stored()
        self._installed = False
        self._tasks: dict[int, _IoTask] = {}  # id(state) -> state, for the global status

    # -----------------------------------------------------------------------------------------
    # Lifecycle, variables, status

    def install(self) -> None:
        if not self._installed:
            self._installed = True
            self._interface.relay_io.add_observer(self)

    def uninstall(self) -> None:
        if self._installed:
            self._interface.relay_io.remove_observer(self)
            self._installed = False
            self._tasks.clear()

    @property
    def installed(self) -> bool:
        return self._installed

    def set_variable(self, name: str, value: object) -> None:
        """`SET GLOBAL`: validated at once; `enabled` is read at the next IO task start."""
        self._validate(name, value)

    @property
    def status(self) -> bool:
        """Rpl_semi_sync_slave_status: an IO task runs with semi-sync negotiated."""
        return self._installed and any(t.semi_sync for t in self._tasks.values())

    def status_variables(self, aliases: bool = False) -> dict[str, int | str]:
        if not self._installed:
            return {}
        names = ("Rpl_semi_sync_slave_status", "Rpl_semi_sync_replica_status") if aliases else ("Rpl_semi_sync_slave_status",)
        return {name: on_off(self.status) for name in names}

    def flush_status(self) -> None:
        return None  # no counters

    def describe(self) -> str:
        return f"semi-sync slave: enabled={on_off(bool(self._vars[SLAVE_ENABLED.name]))} status={on_off(self.status)}"

    # -----------------------------------------------------------------------------------------
    # Binlog relay IO observer

    def thread_start(self, param: RelayIOParam) -> None:
        # Status turns ON only once `before_request_transmit` has negotiated semi-sync.
        task = _IoTask(enabled=bool(self._vars[SLAVE_ENABLED.name]))
        param.observer_state[self] = task
        self._tasks[id(task)] = task

    def thread_stop(self, param: RelayIOParam) -> None:
        task = param.observer_state.pop(self, None)
        if isinstance(task, _IoTask):
            self._tasks.pop(id(task), None)

    def before_request_transmit(self, param: RelayIOParam) -> DumpRequest | None:
        task = self._task(param)
        task.semi_sync = False
        task.pending = None
        return NEGOTIATION if task.enabled else None

    def after_request_transmit(self, param: RelayIOParam, request: DumpRequest, granted: bool) -> None:
        if request is not NEGOTIATION:
            return
        task = self._task(param)
        task.semi_sync = granted
        if granted:
            self._trace(TRACE_GENERAL, "semi-sync requested from %s:%d", param.master_host, param.master_port)
        else:
            log.warning(
                "Master server %s:%d does not support semi-sync, fallback to asynchronous replication",
                param.master_host, param.master_port,
            )

    def after_read_event(self, param: RelayIOParam, packet: memoryview) -> ReadEvent:
        if self._semi_sync_task(param) is None:
            return ReadEvent(packet)
        need_ack, event = split_semisync_header(packet)
        return ReadEvent(event, need_ack)

    def after_queue_event(
        self, param: RelayIOParam, read: ReadEvent, end: BinlogPosition, synced: bool
    ) -> BinlogPosition | None:
        task = self._semi_sync_task(param)
        if task is None:
            return None
        if read.need_ack:
            task.pending = end  # a later flagged event covers an earlier one (cumulative acks)
        return self._take_ack(task, synced)

    def after_read_events(self, param: RelayIOParam, batch: ReadBatch) -> None:
        if self._semi_sync_task(param) is not None:
            batch.flag(split_semisync_headers(batch.events))

    def after_queue_events(self, param: RelayIOParam, queued: QueuedEvents, synced: bool) -> BinlogPosition | None:
        # (per batch: `_semi_sync_task` and `_take_ack` inline, the per-event hooks' helpers)
        task = param.observer_state.get(self)
        if task.__class__ is not _IoTask or not task.semi_sync or not queued.events:
            return None
        flagged = queued.flagged
        pending = queued.ends[flagged[-1]] if flagged else task.pending  # cumulative: the last covers the rest
        if not synced or pending is None:
            task.pending = pending
            return None
        task.pending = None
        if self._trace_level & TRACE_DETAIL:
            self._trace(TRACE_DETAIL, "ack %s (durable in the relay log)", pending)
        return pending

    def after_reset_slave(self, param: RelayIOParam) -> None:
        task = param.observer_state.get(self)
        if isinstance(task, _IoTask):
            task.pending = None

    # -----------------------------------------------------------------------------------------

    def _semi_sync_task(self, param: RelayIOParam) -> _IoTask | None:
        """The IO task's state when its connection is semi-sync, else None."""
        task = param.observer_state.get(self)
        return task if isinstance(task, _IoTask) and task.semi_sync else None

    def _take_ack(self, task: _IoTask, synced: bool) -> BinlogPosition | None:
        """The pending position, once it is durable (`synced`): returned once, then forgotten."""
        if not synced or task.pending is None:
            return None
        ack, task.pending = task.pending, None
        self._trace(TRACE_DETAIL, "ack %s (durable in the relay log)", ack)
        return ack

    def _task(self, param: RelayIOParam) -> _IoTask:
        task = param.observer_state.get(self)
        if not isinstance(task, _IoTask):  # installed after the IO task started
            self.thread_start(param)
            task = param.observer_state[self]
        return task
