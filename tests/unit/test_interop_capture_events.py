"""Golden bytes from a real MariaDB 10.11 semi-sync master and replica
(../shared/interop/mariadb-semisync-replica-connect.pcap): every binlog event packet of the dump
and every ack parses to the values the capture's decode shows, and re-encodes byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    EventType,
    FormatDescription,
    Heartbeat,
    MariaGtid,
    Query,
    Rotate,
    Rows,
    TableMap,
    Xid,
    decode_event,
    encode_body_event,
    event_checksum_ok,
)
from protocol.position import BinlogPosition
from protocol.semisync_wire import decode_ack, encode_ack, semisync_header, split_semisync_header
from tests.support.pcap import mysql_packets

CAPTURE = Path(__file__).resolve().parents[3] / "shared" / "interop" / "mariadb-semisync-replica-connect.pcap"
COM_BINLOG_DUMP = 0x12
FILE = "master-bin.000001"

# (type, log_pos, flags, ack requested) of every event packet, in order (from the capture's decode)
EXPECTED_STREAM = [
    (EventType.ROTATE_EVENT, 0, LOG_EVENT_ARTIFICIAL_F, False),
    (EventType.FORMAT_DESCRIPTION_EVENT, 0, 0, False),
    (EventType.GTID_EVENT, 504, 0x08, False),
    (EventType.QUERY_EVENT, 668, 0, True),
    (EventType.GTID_EVENT, 710, 0x08, False),
    (EventType.TABLE_MAP_EVENT, 843, 0, False),
    (EventType.WRITE_ROWS_EVENT_V1, 894, 0, False),
    (EventType.XID_EVENT, 925, 0, True),
    (EventType.GTID_EVENT, 967, 0x08, False),
    (EventType.TABLE_MAP_EVENT, 1100, 0, False),
    (EventType.WRITE_ROWS_EVENT_V1, 1151, 0, False),
    (EventType.XID_EVENT, 1182, 0, True),
    (EventType.GTID_EVENT, 1224, 0x08, False),
    (EventType.TABLE_MAP_EVENT, 1350, 0, False),
    (EventType.WRITE_ROWS_EVENT_V1, 1394, 0, False),
    (EventType.TABLE_MAP_EVENT, 1520, 0, False),
    (EventType.WRITE_ROWS_EVENT_V1, 1564, 0, False),
    (EventType.XID_EVENT, 1595, 0, True),
    (EventType.HEARTBEAT_LOG_EVENT, 1595, 0, False),
    (EventType.HEARTBEAT_LOG_EVENT, 1595, 0, False),
    (EventType.HEARTBEAT_LOG_EVENT, 1595, 0, False),
]


@pytest.fixture(scope="module")
def dump():
    if not CAPTURE.exists():
        pytest.fail(f"capture missing: {CAPTURE}")
    packets = mysql_packets(CAPTURE)
    start = next(i for i, p in enumerate(packets) if p.direction == "C->S" and p.payload[:1] == bytes([COM_BINLOG_DUMP]))
    events = [p for p in packets[start + 1 :] if p.direction == "S->C" and p.payload[:2] == b"\x00\xef"]
    acks = [p for p in packets[start + 1 :] if p.direction == "C->S"]
    return events, acks


def test_every_event_packet_parses_to_the_captured_values(dump):
    events, _ = dump
    assert len(events) == len(EXPECTED_STREAM) == 21
    for packet, (type_code, log_pos, flags, need_ack_expected) in zip(events, EXPECTED_STREAM, strict=True):
        assert packet.payload[0] == 0x00  # OK byte
        need_ack, raw = split_semisync_header(packet.payload[1:])
        assert need_ack is need_ack_expected
        assert event_checksum_ok(raw)
        ev = decode_event(raw, checksum=True)
        assert (ev.type_code, ev.log_pos, ev.header.flags) == (type_code, log_pos, flags)
        assert ev.header.server_id == 1 and ev.header.event_size == len(raw)


def test_decoded_bodies(dump):
    events, _ = dump
    bodies = [decode_event(split_semisync_header(p.payload[1:])[1], checksum=True).body for p in events]
    assert bodies[0] == Rotate(462, FILE)
    fd = bodies[1]
    assert isinstance(fd, FormatDescription)
    assert (fd.binlog_version, fd.server_version, fd.header_length, fd.checksum_alg) == (4, "10.11.19-MariaDB-0+deb12u1-log", 19, 1)
    assert [(b.seq_no, b.domain_id, b.flags2) for b in bodies if isinstance(b, MariaGtid)] == [(2, 0, 0x29), (3, 0, 0x0C), (4, 0, 0x0C), (5, 0, 0x0C)]
    q = bodies[3]
    assert isinstance(q, Query) and q.db == "" and q.query.startswith("CREATE TABLE IF NOT EXISTS sbtest.hs_probe")
    assert [b.xid for b in bodies if isinstance(b, Xid)] == [73, 75, 78]
    maps = [b for b in bodies if isinstance(b, TableMap)]
    assert {(m.table_id, m.db, m.table) for m in maps} == {(19, "sbtest", "hs_probe")}
    assert all(r.table_id == 19 for r in bodies if isinstance(r, Rows))
    assert [b for b in bodies if isinstance(b, Heartbeat)] == [Heartbeat(FILE)] * 3


def test_every_event_packet_reencodes_byte_for_byte(dump):
    events, _ = dump
    for packet in events:
        need_ack, raw = split_semisync_header(packet.payload[1:])
        ev = decode_event(raw, checksum=True)
        h = ev.header
        again = encode_body_event(ev.body, timestamp=h.timestamp, server_id=h.server_id, log_pos=h.log_pos, flags=h.flags, checksum=True)
        assert b"\x00" + semisync_header(need_ack) + again == packet.payload


def test_acks_name_the_end_position_of_each_flagged_event(dump):
    events, acks = dump
    assert [a.seq for a in acks] == [0, 0, 0, 0]
    flagged = [
        decode_event(raw, checksum=True).log_pos
        for need_ack, raw in (split_semisync_header(p.payload[1:]) for p in events)
        if need_ack
    ]
    positions = [decode_ack(a.payload).position for a in acks]
    assert positions == [BinlogPosition(FILE, pos) for pos in flagged] == [BinlogPosition(FILE, p) for p in (668, 925, 1182, 1595)]
    assert [encode_ack(pos) for pos in positions] == [a.payload for a in acks]
