"""Seeded mutation fuzzing: whatever bytes a peer or a disk hands us, only ProtocolError escapes
decode_event (incl. decoding a Query's status variables), decode_ack and split_semisync_header.
Mutations of golden MariaDB events and of our own encodings, with the CRC32 fixed up after the
mutation half of the time so that the body parsers (not just the checksum) see the damage."""

from __future__ import annotations

import random
import zlib

from protocol.errors import ProtocolError
from protocol.events import (
    EventType,
    Heartbeat,
    MariaGtid,
    Query,
    Rows,
    TableMap,
    UserVar,
    decode_event,
    encode_body_event,
    encode_event,
    encode_status_vars,
)
from protocol.position import BinlogPosition
from protocol.semisync_wire import decode_ack, encode_ack, split_semisync_header
from tests.unit.test_events import GOLDEN

ROUNDS = 110_000


def seeds() -> list[tuple[bytes, bool]]:
    out = [(raw, not name.endswith("_NOCRC")) for name, raw in GOLDEN.items()]
    extra = [
        Query(1, 0, 0, "db", "SELECT 1", encode_status_vars(flags2=1, sql_mode=2, catalog="std", auto_increment=(1, 1), charset=(33, 33, 8), time_zone="SYSTEM", invoker=("u", "h"), updated_db_names=["a"], xid=5)),
        UserVar("v", False, 2, 33, b"\x01" * 8, 1),
        MariaGtid(5, 1, 0x02, commit_id=9),
        MariaGtid(6, 1, 0x40, xa_xid=(1, 2, 2, b"abcd")),
        TableMap(1, 0, "d", "t", b"\x03\x0f", b"\x14\x00", b"\x02", b"\x01\x02"),
        Rows(EventType.WRITE_ROWS_EVENT, 1, 1, b"\x02\xff\x00\x01", b"\x00\x00"),
        Heartbeat("master-bin.000001"),
    ]
    for body in extra:
        for checksum in (True, False):
            out.append((encode_body_event(body, timestamp=1, server_id=2, log_pos=300, checksum=checksum), checksum))
    hb2 = bytes([1, 5]) + b"f.001" + bytes([2, 1, 7, 0])
    out.append((encode_event(EventType.HEARTBEAT_LOG_EVENT_V2, hb2, timestamp=0, server_id=1, log_pos=0, checksum=True), True))
    return out


def mutate(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 8))):
        op = rng.randrange(7)
        if op == 0 and buf:
            buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            buf[rng.randrange(len(buf))] = rng.choice((0, 1, 0x7F, 0x80, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF, rng.randrange(256)))
        elif op == 2:
            del buf[rng.randrange(len(buf) + 1) :]
        elif op == 3:
            pos = rng.randrange(len(buf) + 1)
            buf[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
        elif op == 4 and len(buf) > 1:
            start = rng.randrange(len(buf))
            del buf[start : start + rng.randrange(1, 8)]
        elif op == 5 and len(buf) >= 23:
            # lengths inside bodies live right after the header: hit them harder
            buf[rng.randrange(19, min(len(buf), 40))] = rng.randrange(256)
        else:
            buf += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4)))
    return bytes(buf)


def fix_frame(rng: random.Random, event: bytes, checksum: bool) -> bytes:
    """Make size (and CRC) consistent again, so the body parsers get the mutated body."""
    if len(event) < 19 or rng.random() < 0.3:
        return event
    buf = bytearray(event)
    buf[9:13] = len(buf).to_bytes(4, "little")
    if (checksum or buf[4] == EventType.FORMAT_DESCRIPTION_EVENT) and len(buf) >= 23:
        buf[-4:] = zlib.crc32(bytes(buf[:-4])).to_bytes(4, "little")
    return bytes(buf)


def test_decoders_raise_only_protocol_errors():
    rng = random.Random(0x5E915E)
    corpus = seeds()
    acks = [encode_ack(BinlogPosition("master-bin.000001", 668)), encode_ack(BinlogPosition("relay-bin.999999", 2**40))]
    decoded = rejected = 0
    for i in range(ROUNDS):
        raw, checksum = corpus[i % len(corpus)]
        data = fix_frame(rng, mutate(rng, raw), checksum)
        try:
            ev = decode_event(data, checksum=checksum if rng.random() < 0.9 else not checksum)
            if isinstance(ev.body, Query):
                ev.body.status  # noqa: B018 - decoding status variables must not escape either
            decoded += 1
        except ProtocolError:
            rejected += 1
        if i % 4 == 0:
            try:
                decode_ack(mutate(rng, acks[i % 2]))
            except ProtocolError:
                pass
            try:
                split_semisync_header(mutate(rng, b"\xef\x01" + raw[:30]))
            except ProtocolError:
                pass
    # the fuzzer reached the body parsers, not only the framing checks
    assert decoded > ROUNDS // 10 and rejected > ROUNDS // 10
