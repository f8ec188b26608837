"""The semi-sync slave plugin through the binlog relay IO delegate, as the slave's IO task runs it."""

from __future__ import annotations

import logging
import random

import pytest

from protocol.errors import (
    ER_UNKNOWN_ERROR,
    ER_UNKNOWN_SYSTEM_VARIABLE,
    RemoteProtocolError,
    SQLError,
)
from protocol.messages import ERR, OK, ResultSet
from protocol.semisync_wire import semisync_header
from semisync.interface import (
    BinlogRelayIOObserver,
    Expect,
    QueuedEvents,
    ReadBatch,
    ReadEvent,
    RelayIOParam,
    ReplicationInterface,
)
from semisync.slave_plugin import NEGOTIATION, PROBE, REQUEST, SemiSyncSlavePlugin
from tests.support.semisync_harness import pos

EVENT = b"\x57\x51\x02\x6b\x10" + bytes(26)  # an XID event's bytes (content does not matter here)
PROBE_QUERY, REQUEST_QUERY = PROBE.sql, REQUEST.sql


class MasterFailed(Exception):
    """The IO task's connection error: an ERR the statement does not name as a refusal."""


class FakeMaster:
    """Answers the IO task's queries as a master with or without semi-sync."""

    def __init__(self, rows=None, error: int = 0):
        self.rows = rows
        self.error = error
        self.queries: list[str] = []

    def answer(self, sql: str) -> OK | ERR | ResultSet:
        self.queries.append(sql)
        if sql == PROBE_QUERY:
            if self.error:
                return ERR(self.error, "HY000", "x")
            if self.rows is not None:
                return ResultSet(("Variable_name", "Value"), tuple(self.rows))
        return OK()


class IoTask:
    """Runs the relay IO hooks as slave/io_task.py does, the master's answers in memory."""

    def __init__(self, master: FakeMaster, enabled: bool = True):
        self.master = master
        self.interface = ReplicationInterface()
        self.plugin = SemiSyncSlavePlugin(self.interface, settings={"rpl_semi_sync_slave_enabled": enabled})
        self.plugin.install()
        self.param = RelayIOParam(2, "127.0.0.1", 3306, pos(4))
        self.relay = self.interface.relay_io

    def start(self) -> None:
        self.relay.thread_start(self.param)
        self.connect()

    def connect(self) -> None:
        """One connection's negotiation: the requests' statements run in order, each outcome
        reported once COM_BINLOG_DUMP is sent."""
        outcomes = []
        for request in self.relay.before_request_transmit(self.param):
            granted = True
            for statement in request.statements:
                answer = self.master.answer(statement.sql)
                if isinstance(answer, ERR) and answer.code not in statement.refused_by:
                    raise MasterFailed(answer.code)
                if not statement.granted_by(answer):
                    granted = False
                    break
            outcomes.append((request, granted))
        for request, granted in outcomes:
            self.relay.after_request_transmit(self.param, request, granted)

    def read(self, payload: bytes) -> ReadEvent:
        return self.relay.after_read_event(self.param, memoryview(payload))

    def queue(self, read: ReadEvent, end: int, synced: bool):
        return self.relay.after_queue_event(self.param, read, pos(end), synced)


def test_the_negotiation_is_statements_with_typed_answers():
    assert NEGOTIATION.semi_sync and NEGOTIATION.statements == (PROBE, REQUEST)
    assert PROBE.expect is Expect.ROWS and PROBE.refused_by == {ER_UNKNOWN_SYSTEM_VARIABLE.code}
    assert REQUEST.expect is Expect.OK and not REQUEST.refused_by
    rows = ResultSet(("Variable_name", "Value"), (("rpl_semi_sync_master_enabled", "OFF"),))
    assert PROBE.granted_by(rows) and not PROBE.granted_by(ResultSet(("a",), ()))
    assert not PROBE.granted_by(OK()) and not PROBE.granted_by(ERR(ER_UNKNOWN_SYSTEM_VARIABLE.code, "HY000", "x"))
    assert REQUEST.granted_by(OK()) and not REQUEST.granted_by(rows)


SEMI_SYNC_MASTER = [("rpl_semi_sync_master_enabled", "ON")]


def test_negotiates_with_a_semi_sync_master():
    master = FakeMaster(SEMI_SYNC_MASTER)
    io = IoTask(master)
    assert io.plugin.status_variables() == {"Rpl_semi_sync_slave_status": "OFF"}
    io.start()
    assert master.queries == [PROBE_QUERY, REQUEST_QUERY]
    assert io.plugin.status_variables() == {"Rpl_semi_sync_slave_status": "ON"}
    io.relay.thread_stop(io.param)
    assert io.plugin.status_variables() == {"Rpl_semi_sync_slave_status": "OFF"}


def test_a_master_whose_semi_sync_is_disabled_still_negotiates():
    master = FakeMaster([("rpl_semi_sync_master_enabled", "OFF")])
    io = IoTask(master)
    io.start()
    assert master.queries == [PROBE_QUERY, REQUEST_QUERY] and io.plugin.status


@pytest.mark.parametrize("master", [FakeMaster([]), FakeMaster(None), FakeMaster(error=ER_UNKNOWN_SYSTEM_VARIABLE.code)])
def test_a_master_without_semi_sync_gets_asynchronous_replication_and_a_warning(master, caplog):
    caplog.set_level(logging.WARNING, logger="semisync.slave")
    io = IoTask(master)
    io.start()
    assert master.queries == [PROBE_QUERY]
    assert not io.plugin.status
    assert any("does not support semi-sync" in r.getMessage() for r in caplog.records)
    read = io.read(EVENT)  # no header expected: the packet passes untouched
    assert bytes(read.event) == EVENT and not read.need_ack
    assert io.queue(read, 100, True) is None


def test_other_probe_errors_reach_the_io_task():
    io = IoTask(FakeMaster(error=ER_UNKNOWN_ERROR.code))
    with pytest.raises(MasterFailed):
        io.start()
    assert not io.plugin.status


def test_disabled_slave_does_not_ask():
    master = FakeMaster(SEMI_SYNC_MASTER)
    io = IoTask(master, enabled=False)
    io.start()
    assert master.queries == [] and not io.plugin.status


def test_enabled_takes_effect_at_the_next_io_task_start():
    master = FakeMaster(SEMI_SYNC_MASTER)
    io = IoTask(master, enabled=False)
    io.start()
    io.plugin.set_variable("rpl_semi_sync_slave_enabled", "ON")
    io.connect()  # a reconnect of the same task
    assert master.queries == [] and not io.plugin.status
    io.relay.thread_stop(io.param)
    io.start()
    assert master.queries == [PROBE_QUERY, REQUEST_QUERY] and io.plugin.status


def test_header_is_stripped_and_the_flag_noted():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    plain = io.read(semisync_header(False) + EVENT)
    flagged = io.read(semisync_header(True) + EVENT)
    assert bytes(plain.event) == EVENT and not plain.need_ack
    assert bytes(flagged.event) == EVENT and flagged.need_ack
    with pytest.raises(RemoteProtocolError):
        io.read(EVENT)  # the magic is missing
    with pytest.raises(RemoteProtocolError):
        io.read(b"\xef")


def test_ack_only_once_the_flagged_event_is_synced():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    flagged = io.read(semisync_header(True) + EVENT)
    assert io.queue(flagged, 300, synced=False) is None  # in the relay log, not yet durable
    plain = io.read(semisync_header(False) + EVENT)
    assert io.queue(plain, 350, synced=True) == pos(300)  # the sync covers the earlier event
    assert io.queue(plain, 400, synced=True) is None  # nothing pending any more


def test_unflagged_events_are_never_acked():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    plain = io.read(semisync_header(False) + EVENT)
    assert [io.queue(plain, p, synced=True) for p in (100, 200)] == [None, None]


def test_several_flagged_events_with_one_sync_give_one_cumulative_ack():
    """The IO task queues a batch, fsyncs once, then calls after_queue_event for each event and
    sends only the last non-None answer."""
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    batch = [(100, True), (150, False), (200, True), (300, True), (320, False)]
    reads = [(io.read(semisync_header(flag) + EVENT), end) for end, flag in batch]
    answers = [io.queue(read, end, synced=True) for read, end in reads]
    assert answers == [pos(100), None, pos(200), pos(300), None]
    assert [a for a in answers if a is not None][-1] == pos(300)


def test_flagged_events_queued_unsynced_then_one_sync_ack_the_last_flagged():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    answers = [
        io.queue(io.read(semisync_header(flag) + EVENT), end, synced)
        for end, flag, synced in [(100, True, False), (200, True, False), (250, False, True)]
    ]
    assert answers == [None, None, pos(200)]


def test_reset_slave_and_reconnect_forget_pending_acks():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    io.queue(io.read(semisync_header(True) + EVENT), 100, synced=False)
    io.relay.after_reset_slave(io.param)
    assert io.queue(io.read(semisync_header(False) + EVENT), 150, synced=True) is None
    io.queue(io.read(semisync_header(True) + EVENT), 200, synced=False)
    io.connect()  # reconnect: the master resends
    assert io.queue(io.read(semisync_header(False) + EVENT), 250, synced=True) is None


def test_variables_and_uninstall():
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    p = io.plugin
    assert p.system_variables() == {"rpl_semi_sync_slave_enabled": "ON", "rpl_semi_sync_slave_trace_level": "32"}
    p.set_variable("rpl_semi_sync_replica_enabled", "false")
    assert p.get_variable("rpl_semi_sync_slave_enabled") == 0
    with pytest.raises(SQLError) as e:
        p.set_variable("rpl_semi_sync_slave_enabled", "maybe")
    assert e.value.code == 1231
    p.uninstall()
    assert not io.relay and p.system_variables() == {} and p.status_variables() == {}
    with pytest.raises(SQLError) as e:
        p.get_variable("rpl_semi_sync_slave_enabled")
    assert e.value.code == 1193


# -- one read at a time: the batch hooks decide as the per-event hooks ---------------------------

class Tagger(BinlogRelayIOObserver):
    """Another observer with only per-event hooks: strips a one-byte tag of its own (1 = ack)."""

    def after_read_event(self, param, packet):
        return ReadEvent(packet[1:], packet[0] == 1)

    def after_queue_event(self, param, read, end, synced):
        return end if synced and read.need_ack and end.pos % 3 == 0 else None


def _reads(rng: random.Random, tagged: bool, semi_sync: bool) -> list[tuple[list[bytes], bool]]:
    """Reads of the dump connection: each a list of packets (payload after the OK byte) and
    whether the relay log is fsynced after it."""
    reads = []
    for _ in range(rng.randint(1, 12)):
        packets = []
        for _ in range(rng.randint(1, 6)):
            packet = EVENT + bytes([rng.randrange(256)])
            if tagged:
                packet = bytes([rng.random() < 0.3]) + packet
            if semi_sync:
                packet = semisync_header(rng.random() < 0.3) + packet
            packets.append(packet)
        reads.append((packets, rng.random() < 0.6))
    return reads


def _per_event(io: IoTask, reads) -> list:
    """The IO task's rule with the per-event hooks: every read's events, flags and ack."""
    seen, unsynced, end = [], [], 100
    for packets, synced in reads:
        queued = []
        for packet in packets:
            read = io.read(packet)
            end += 10
            queued.append((read, pos(end)))
        ack = None
        for read, at in (unsynced + queued if synced else queued):
            decided = io.relay.after_queue_event(io.param, read, at, synced)
            if decided is not None:
                ack = decided
        unsynced = [] if synced else unsynced + [(r, e) for r, e in queued if r.need_ack]
        seen.append(([bytes(r.event) for r, _ in queued], [i for i, (r, _) in enumerate(queued) if r.need_ack], ack))
    return seen


def _batched(io: IoTask, reads) -> list:
    """The same through `after_read_events` / `after_queue_events`, as slave/io_task.py calls them."""
    seen, unsynced, end = [], QueuedEvents(), 100
    for packets, synced in reads:
        batch = ReadBatch(list(packets))
        io.relay.after_read_events(io.param, batch)
        queued = QueuedEvents()
        flagged = set(batch.flagged)
        for i, event in enumerate(batch.events):
            end += 10
            queued.add(event, pos(end), i in flagged)
        told = queued
        if synced and unsynced.events:
            told, unsynced = unsynced, QueuedEvents()
            told.extend(queued)
        ack = io.relay.after_queue_events(io.param, told, synced)
        if not synced:
            unsynced.extend(queued, flagged_only=True)
        seen.append(([bytes(e) for e in queued.events], list(queued.flagged), ack))
    return seen


@pytest.mark.parametrize("seed", range(60))
def test_a_read_at_once_decides_exactly_as_the_per_event_hooks(seed):
    rng = random.Random(seed)
    semi_sync, tagged = seed % 3 != 2, seed % 2 == 1
    reads = _reads(rng, tagged, semi_sync)
    results = []
    for run in (_per_event, _batched):
        io = IoTask(FakeMaster(SEMI_SYNC_MASTER if semi_sync else []))
        if tagged:  # after the semi-sync plugin: it sees the packets the plugin left
            io.interface.relay_io.add_observer(Tagger())
        io.start()
        results.append((run(io, reads), io.plugin.status_variables()))
    assert results[0] == results[1]
    if semi_sync and not tagged:  # not vacuous: a flagged event with a sync after it is acked
        flagged_then_synced = any(flags and any(s for _, s in reads[n:])
                                  for n, (_, flags, _) in enumerate(results[0][0]))
        assert any(ack for _, _, ack in results[0][0]) == flagged_then_synced


@pytest.mark.parametrize("bad", [b"\xef", b"\xee\x00", b"\xef\x02"])
def test_a_read_at_once_refuses_the_packet_the_per_event_hook_refuses(bad):
    io = IoTask(FakeMaster(SEMI_SYNC_MASTER))
    io.start()
    with pytest.raises(RemoteProtocolError) as one:
        io.read(bad + EVENT)
    batch = ReadBatch([semisync_header(True) + EVENT, bad + EVENT])
    with pytest.raises(RemoteProtocolError) as whole:
        io.relay.after_read_events(io.param, batch)
    assert str(whole.value) == str(one.value)
