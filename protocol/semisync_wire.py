"""The semi-synchronous replication wire format (MySQL semisync plugin, MariaDB's built-in), sans-IO.

Contract (what a stock MariaDB 10.11 peer does, see ../shared/interop/):
- On a semi-sync dump, every binlog event packet is `00` (OK byte) + `EF` (magic) + flag + event.
  Flag 1 (`need_ack`) asks the slave to acknowledge that event once it is durable in its relay log;
  the master sets it only on the last event of a transaction it waits for.
- The slave's ack is its own packet (sequence id 0): `EF` + 8-byte little-endian binlog position
  (the end position, i.e. the acked event's log_pos) + binlog file name, no NUL.
This module only converts bytes <-> values; the packet framing (length + sequence id) belongs to
the MySQL packet layer. Only `ProtocolError`s escape: `RemoteProtocolError` for bad input.
"""

from __future__ import annotations

import struct
from collections.abc import MutableSequence
from dataclasses import dataclass

from construct import Const, GreedyBytes, Int8ul, Int64ul, Struct

from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.position import BinlogPosition

SEMI_SYNC_MAGIC = 0xEF
SEMI_SYNC_ACK_REQUESTED = 0x01
SEMI_SYNC_NO_ACK = 0x00
# MySQL's FN_REFLEN: the longest binlog file name a server accepts.
MAX_LOG_NAME_LEN = 511

_MAGIC = Const(bytes([SEMI_SYNC_MAGIC]))
ACK = Struct(
    "magic" / _MAGIC,
    "position" / Int64ul,
    "file" / GreedyBytes,
)
HEADER = Struct(
    "magic" / _MAGIC,
    "flag" / Int8ul,
)
# The ack's fixed part (magic, position) as one struct derived from the declaration: an ack is
# built on every slave and parsed on the master once per commit group and slave (construct took
# 10-20 µs for each). ACK stays the reference (tests/unit/test_semisync_wire.py).
_ACK_FIXED = struct.Struct("<" + "".join(
    f"{sc.sizeof()}s" if isinstance(sc.subcon, Const) else sc.subcon.fmtstr.lstrip("<") for sc in ACK.subcons[:2]
))
_ACK_FIXED_LEN = _ACK_FIXED.size
_MAGIC_BYTES = bytes([SEMI_SYNC_MAGIC])
ACK_MAX_LEN = _ACK_FIXED_LEN + MAX_LOG_NAME_LEN
"""The largest valid ack payload."""
_HEADER_LEN = 2
_HEADERS = {True: HEADER.build({"flag": SEMI_SYNC_ACK_REQUESTED}), False: HEADER.build({"flag": SEMI_SYNC_NO_ACK})}


@dataclass(frozen=True, slots=True)
class SemiSyncAck:
    """A slave's acknowledgement: everything up to `position` is durable in its relay log."""

    position: BinlogPosition

    def encode(self) -> bytes:
        return encode_ack(self.position)


def encode_ack(position: BinlogPosition) -> bytes:
    """The ack packet's payload: EF + 8-byte LE position + file name (no NUL)."""
    name = position.file.encode("utf-8", "surrogateescape")
    if not name or len(name) > MAX_LOG_NAME_LEN or b"\x00" in name:
        raise LocalProtocolError(f"semi-sync ack: bad binlog file name {position.file!r}")
    if not 0 <= position.pos < 1 << 64:
        raise LocalProtocolError(f"semi-sync ack: position {position.pos} out of range")
    return _ACK_FIXED.pack(_MAGIC_BYTES, position.pos) + name


ACK_POSITION_AT = 1
"""Where an ack payload's 8-byte little-endian position starts (after the magic)."""
ACK_POSITION_LEN = _ACK_FIXED_LEN - ACK_POSITION_AT
"""The ack position's length in bytes."""
assert _ACK_FIXED.unpack(_ACK_FIXED.pack(_MAGIC_BYTES, 0x0102030405060708))[1] == 0x0102030405060708


def decode_ack(payload: bytes | bytearray | memoryview) -> SemiSyncAck:
    """Parse an ack packet's payload. RemoteProtocolError for a bad magic, length or file name."""
    data = bytes(payload)
    if len(data) < _ACK_FIXED_LEN + 1:
        raise RemoteProtocolError(f"semi-sync ack: {len(data)} bytes is too short")
    if data[0] != SEMI_SYNC_MAGIC:
        raise RemoteProtocolError(f"semi-sync ack: bad magic {data[0]:#04x}")
    _, position = _ACK_FIXED.unpack_from(data)
    name = data[_ACK_FIXED_LEN:]
    if len(name) > MAX_LOG_NAME_LEN or b"\x00" in name:
        raise RemoteProtocolError(f"semi-sync ack: bad binlog file name {name[:64]!r}")
    return SemiSyncAck(BinlogPosition(name.decode("utf-8", "surrogateescape"), position))


def semisync_header(flag: bool) -> bytes:
    """The 2 bytes between the OK byte and the event of a semi-sync dump packet."""
    return _HEADERS[bool(flag)]


def split_semisync_header(payload_after_ok_byte: bytes | bytearray | memoryview) -> tuple[bool, memoryview]:
    """(need_ack, event) from an event packet's payload after its OK byte (no copy).

    RemoteProtocolError if the magic is missing or the flag is neither 0 nor 1."""
    mv = memoryview(payload_after_ok_byte)
    if len(mv) < _HEADER_LEN:
        raise RemoteProtocolError("semi-sync event packet: missing the semi-sync header")
    if mv[0] != SEMI_SYNC_MAGIC:
        raise RemoteProtocolError(f"semi-sync event packet: magic {mv[0]:#04x}, expected 0xef")
    flag = mv[1]
    if flag not in (SEMI_SYNC_NO_ACK, SEMI_SYNC_ACK_REQUESTED):
        raise RemoteProtocolError(f"semi-sync event packet: bad flag {flag:#04x}")
    return flag == SEMI_SYNC_ACK_REQUESTED, mv[_HEADER_LEN:]


def split_semisync_headers(packets: MutableSequence[bytes | memoryview]) -> list[int]:
    """`split_semisync_header` for every event packet of one read, in place: `packets[i]`
    becomes its event (a view, no copy). Returns the indexes of the packets whose flag asks for
    an ack, ascending. The same checks and errors, at the first packet that breaks them."""
    flagged = []
    ack, no_ack = _HEADERS[True], _HEADERS[False]
    for i, packet in enumerate(packets):
        head = packet[:_HEADER_LEN]
        if head == ack:
            flagged.append(i)
        elif head != no_ack:
            split_semisync_header(packet)  # raises: says what is wrong with it
        packets[i] = memoryview(packet)[_HEADER_LEN:]
    return flagged


__all__ = [
    "ACK",
    "HEADER",
    "SEMI_SYNC_MAGIC",
    "ACK_POSITION_AT",
    "ACK_POSITION_LEN",
    "SemiSyncAck",
    "decode_ack",
    "encode_ack",
    "semisync_header",
    "split_semisync_header",
    "split_semisync_headers",
]
