"""Both plugins replayed against a real MariaDB 10.11 semi-sync conversation (../shared/interop).

Master side: the capture's binlog stream is sent again through our master plugin, with each
transaction committed (after_flush + AFTER_SYNC wait) before its events go out, and the
replica's captured acks handed to `handle_ack`. Transaction boundaries come from the GTID events,
not from the flags, so the plugin's header bytes can be compared with MariaDB's for every packet
(artificial ROTATE, FORMAT_DESCRIPTION, events, heartbeats).
Slave side: MariaDB's event packets go through our slave plugin; the acks it decides, encoded,
must be the replica's captured ack payloads byte for byte.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from protocol.messages import ComBinlogDump, decode_command
from protocol.position import BinlogPosition
from protocol.semisync_wire import decode_ack, encode_ack
from semisync.interface import RelayIOParam, ReplicationInterface
from semisync.slave_plugin import NEGOTIATION, SemiSyncSlavePlugin
from tests.support.pcap import CapturedPacket, mysql_packets
from tests.support.semisync_harness import HEARTBEAT_EVENT, FakeClockLoop, MasterHarness

CAPTURE = Path(__file__).resolve().parents[3] / "shared" / "interop" / "mariadb-semisync-replica-connect.pcap"
GTID_EVENT = 162
ARTIFICIAL_F = 0x20
COM_BINLOG_DUMP = 0x12


def stream(packets: list[CapturedPacket]) -> list[CapturedPacket]:
    """The packets after COM_BINLOG_DUMP: event packets (S->C) and acks (C->S)."""
    start = next(i for i, p in enumerate(packets) if p.direction == "C->S" and p.payload[:1] == bytes([COM_BINLOG_DUMP]))
    return packets[start + 1 :]


def event_fields(payload: bytes) -> tuple[int, int, int]:
    """(type, log_pos, flags) of the event in a semi-sync event packet (00 EF flag event)."""
    event = payload[3:]
    return event[4], struct.unpack_from("<I", event, 13)[0], struct.unpack_from("<H", event, 17)[0]


@pytest.fixture(scope="module")
def packets() -> list[CapturedPacket]:
    return mysql_packets(CAPTURE)


def test_master_plugin_sets_the_flags_mariadb_set(packets):
    dump_request = next(p for p in packets if p.direction == "C->S" and p.payload[:1] == bytes([COM_BINLOG_DUMP]))
    request = decode_command(dump_request.payload)
    assert isinstance(request, ComBinlogDump)
    binlog = request.filename
    events = [p for p in stream(packets) if p.direction == "S->C"]
    # Transaction ends from the GTID events: the event before each GTID, and the last event.
    logged = [(i, event_fields(p.payload)) for i, p in enumerate(events) if event_fields(p.payload)[1]]
    ends: set[int] = set()
    previous = None
    for _, (type_code, log_pos, _) in logged:
        if type_code == GTID_EVENT and previous is not None:
            ends.add(previous)
        if type_code != HEARTBEAT_EVENT:
            previous = log_pos
    ends.add(previous)

    fl = FakeClockLoop()
    try:
        m = MasterHarness(fl)
        dump = m.connect(request.server_id, start=BinlogPosition(binlog, request.position))
        waits = []
        committed: set[int] = set()
        for p in stream(packets):
            if p.direction == "C->S":
                m.ack(dump, decode_ack(p.payload).position)
                continue
            type_code, log_pos, flags = event_fields(p.payload)
            heartbeat = type_code == HEARTBEAT_EVENT
            artificial = bool(flags & ARTIFICIAL_F) or log_pos == 0
            if not heartbeat and not artificial:
                end = min(e for e in ends if e >= log_pos)  # this event's transaction
                if end not in committed:  # committed before its first event goes out
                    waits.append(m.commit(BinlogPosition(binlog, end)))
                    committed.add(end)
            end_position = None if artificial else BinlogPosition(binlog, log_pos)
            ours = m.send(dump, end_position, type_code, heartbeat=heartbeat, artificial=artificial)
            assert bytes([0xEF, ours]) == p.payload[1:3], f"event type {type_code} ending at {log_pos}"
        assert len(waits) == 4 and all(w.done() for w in waits)
        assert (m.status("yes_tx"), m.status("no_tx"), m.status("net_waits"), m.status("status")) == (4, 0, 4, "ON")
    finally:
        fl.close()


def test_slave_plugin_acks_what_the_mariadb_replica_acked(packets):
    interface = ReplicationInterface()
    plugin = SemiSyncSlavePlugin(interface, settings={"rpl_semi_sync_slave_enabled": "ON"})
    plugin.install()

    param = RelayIOParam(2, "127.0.0.1", 13306, BinlogPosition("master-bin.000001", 462))
    interface.relay_io.thread_start(param)
    # the master granted the negotiation (the replica's capture has its semi-sync dump)
    assert interface.relay_io.before_request_transmit(param) == [NEGOTIATION]
    interface.relay_io.after_request_transmit(param, NEGOTIATION, True)
    ours: list[bytes] = []
    theirs: list[bytes] = []
    binlog = "master-bin.000001"
    for p in stream(packets):
        if p.direction == "C->S":
            theirs.append(p.payload)
            continue
        type_code, log_pos, _ = event_fields(p.payload)
        read = interface.relay_io.after_read_event(param, memoryview(p.payload[1:]))
        assert bytes(read.event) == p.payload[3:]
        if type_code == HEARTBEAT_EVENT:
            continue  # never queued
        ack = interface.relay_io.after_queue_event(param, read, BinlogPosition(binlog, log_pos), True)
        if ack is not None:
            ours.append(encode_ack(ack))
    assert ours == theirs and len(ours) == 4
