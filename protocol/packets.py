"""MySQL packet framing and length-encoded values (sans-IO).

Every MySQL message travels in packets: a 4-byte header (3-byte little-endian payload length,
1-byte sequence id) followed by the payload. A payload of 0xFFFFFF bytes or more is split into
chunks of exactly `MAX_PAYLOAD` bytes, each followed by the next chunk with the next sequence id,
and ends with a shorter (possibly empty) chunk. `PacketDecoder` joins those chunks again and
checks that they carry consecutive sequence ids; which sequence id a *message* must start with
is the business of the connection state machine (`protocol.connection`), not of this module.

Contracts:
- `encode_packet` never fails for bytes-like input; a sequence id wraps modulo 256.
- `PacketDecoder.next_packet` returns whole logical packets or None (needs more bytes); the only
  exception it raises is `RemoteProtocolError` (payload larger than `max_packet`:
  ER_NET_PACKET_TOO_LARGE; continuation chunk out of sequence: ER_NET_PACKETS_OUT_OF_ORDER).

The header is declared once as `PACKET_HEADER` (construct). The hot path uses `_HEADER`, its
compiled form: a little-endian uint32 equal to `length | seq << 24`.

Length-encoded integers and strings (the `lenenc` family of the protocol) are declared here too:
`LenencInt` / `LenencBytes` for construct declarations, and plain functions for hot loops.
`fixed_struct` derives the `struct.Struct` of a declaration's fixed-size fields, for the struct
paths of other modules (a layout is declared once, with construct).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

import construct as c

from protocol.errors import (
    ER_NET_PACKET_TOO_LARGE,
    ER_NET_PACKETS_OUT_OF_ORDER,
    LocalProtocolError,
    RemoteProtocolError,
)

try:  # the compiled twin of `frame_payloads` (protocol/_rows.c), where setup.py built it
    from protocol._rows import frame as _native_frame
except ImportError:
    _native_frame = None

MAX_PAYLOAD = 0xFFFFFF
HEADER_SIZE = 4

PACKET_HEADER = c.Struct(
    "length" / c.Int24ul,
    "seq" / c.Int8ul,
)
# Compiled form of PACKET_HEADER: one uint32 LE == length | seq << 24.
_HEADER = struct.Struct("<I")
pack_header = _pack_header = _HEADER.pack
"""`pack_header(length | seq << 24)`: the 4 header bytes (for hand-framed hot paths)."""
_unpack_header_from = _HEADER.unpack_from


@dataclass(frozen=True, slots=True)
class Packet:
    """One logical packet: `seq` of its first chunk, the joined payload, and how many chunks."""

    seq: int
    payload: bytes
    chunks: int = 1

    @property
    def next_seq(self) -> int:
        """The sequence id the peer's next packet in the same exchange must carry."""
        return (self.seq + self.chunks) & 0xFF


def encode_packet(payload: bytes, seq: int) -> tuple[bytes, int]:
    """Frame `payload` starting at sequence id `seq`; return (wire bytes, next sequence id)."""
    n = len(payload)
    seq &= 0xFF
    if n < MAX_PAYLOAD:
        return _pack_header(n | seq << 24) + payload, (seq + 1) & 0xFF
    parts: list[bytes | memoryview] = []
    view = memoryview(payload)
    off = 0
    while n - off >= MAX_PAYLOAD:
        parts.append(_pack_header(MAX_PAYLOAD | seq << 24))
        parts.append(view[off : off + MAX_PAYLOAD])
        off += MAX_PAYLOAD
        seq = (seq + 1) & 0xFF
    parts.append(_pack_header((n - off) | seq << 24))
    parts.append(view[off:])
    return b"".join(parts), (seq + 1) & 0xFF


def frame_payloads(payloads: Iterable[bytes], seq: int) -> tuple[bytes, int]:
    """`encode_packet` of each payload in turn, joined: (wire bytes, the next sequence id). A
    list or tuple of payloads is offered to the compiled twin first (`protocol._rows.frame`: bytes
    each under MAX_PAYLOAD, framed in one pass), which frames them as the loop below would or
    declines them all. A payload under MAX_PAYLOAD (a result's rows) gets its header here,
    without a copy of its own."""
    if _native_frame is not None and type(payloads) in (list, tuple):
        framed = _native_frame(payloads, seq)
        if framed is not None:
            return framed
    return _frame_payloads_py(payloads, seq)


def _frame_payloads_py(payloads: Iterable[bytes], seq: int) -> tuple[bytes, int]:
    parts: list[bytes] = []
    append = parts.append
    seq &= 0xFF
    for payload in payloads:
        n = len(payload)
        if n < MAX_PAYLOAD:
            append((n | seq << 24).to_bytes(4, "little"))
            append(payload)
            seq = (seq + 1) & 0xFF
        else:
            wire, seq = encode_packet(payload, seq)
            append(wire)
    return b"".join(parts), seq


class PacketDecoder:
    """Incremental packet reader: `feed(bytes)`, then `next_packet()` until it returns None."""

    __slots__ = ("_buf", "_pos", "max_packet", "_chunks", "_chunk_seq", "_chunk_len", "_first_seq")

    def __init__(self, max_packet: int = 1 << 30) -> None:
        self.max_packet = max_packet
        self._buf = bytearray()
        self._pos = 0
        self._chunks: list[bytes] = []  # full 0xFFFFFF chunks of a packet still being joined
        self._chunk_len = 0
        self._chunk_seq = 0
        self._first_seq = 0

    def feed(self, data: bytes) -> None:
        if self._pos and self._pos == len(self._buf):
            self._buf.clear()
            self._pos = 0
        self._buf += data

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as a packet (including joined chunks)."""
        return len(self._buf) - self._pos + self._chunk_len

    def take_unread(self) -> bytes:
        """The bytes received after the last complete packet, handed back (the buffer is then
        empty): what follows a packet that switches the stream to another layer (TLS)."""
        if self._chunks:
            raise LocalProtocolError("take_unread inside a multi-chunk packet")
        rest = bytes(self._buf[self._pos :])
        self._buf.clear()
        self._pos = 0
        return rest

    def take_packets(self, lead: int) -> list[tuple[int, bytes]]:
        """Every complete packet already buffered whose payload starts with the byte `lead`, in
        one pass: (sequence id, payload after `lead`) each, as `next_packet` would return them
        one by one (the same checks). Stops before the first packet that is incomplete, starts
        with another byte, or is a chunk of a packet of 16 MiB or more: `next_packet` returns
        that one. Nothing is taken while a multi-chunk packet is being joined."""
        out: list[tuple[int, bytes]] = []
        if self._chunks:
            return out
        buf = self._buf
        pos = self._pos
        end_of_data = len(buf)
        unpack = _unpack_header_from
        limit = min(MAX_PAYLOAD, self.max_packet + 1)
        while end_of_data - pos > HEADER_SIZE:
            (word,) = unpack(buf, pos)
            length = word & 0xFFFFFF
            end = pos + HEADER_SIZE + length
            if length == 0 or length >= limit or end > end_of_data or buf[pos + HEADER_SIZE] != lead:
                break
            out.append((word >> 24, bytes(buf[pos + HEADER_SIZE + 1 : end])))
            pos = end
        if out:
            self._consumed(pos)
        return out

    def _consumed(self, end: int) -> None:
        """The buffer is read up to `end`; its consumed prefix is dropped once it dominates it."""
        self._pos = end
        if end > 65536 and end * 2 > len(self._buf):
            del self._buf[:end]
            self._pos = 0

    def whole(self, data: bytes) -> bytes | None:
        """The payload of `data` when, with nothing buffered, it is exactly one packet of sequence
        id 0 that `next_packet` would return after `feed(data)` (not empty, under 16 MiB, within
        `max_packet`); else None. Nothing is buffered either way: a caller that does not take the
        payload feeds `data`."""
        if self._pos != len(self._buf) or self._chunks:
            return None
        length = len(data) - HEADER_SIZE
        if length <= 0 or length >= MAX_PAYLOAD or length > self.max_packet:
            return None
        if _unpack_header_from(data)[0] != length:  # (sequence id 0 in the high byte)
            return None
        return data[HEADER_SIZE:]

    @property
    def in_packet(self) -> bool:
        """True when a packet has started arriving but is not complete."""
        return self.buffered > 0

    def next_packet(self) -> Packet | None:
        while True:
            buf = self._buf
            pos = self._pos
            if len(buf) - pos < HEADER_SIZE:
                return None
            (word,) = _unpack_header_from(buf, pos)
            length = word & 0xFFFFFF
            seq = word >> 24
            if self._chunks and seq != self._chunk_seq:
                raise RemoteProtocolError(
                    f"continuation chunk has sequence id {seq}, expected {self._chunk_seq}",
                    error=ER_NET_PACKETS_OUT_OF_ORDER,
                )
            if self._chunk_len + length > self.max_packet:
                raise RemoteProtocolError(
                    f"packet of at least {self._chunk_len + length} bytes exceeds {self.max_packet}",
                    error=ER_NET_PACKET_TOO_LARGE,
                )
            end = pos + HEADER_SIZE + length
            if len(buf) < end:
                return None
            body = bytes(buf[pos + HEADER_SIZE : end])
            self._consumed(end)
            if length == MAX_PAYLOAD:
                if not self._chunks:
                    self._first_seq = seq
                self._chunks.append(body)
                self._chunk_len += length
                self._chunk_seq = (seq + 1) & 0xFF
                continue
            if self._chunks:
                self._chunks.append(body)
                payload = b"".join(self._chunks)
                count = len(self._chunks)
                first = self._first_seq
                self._chunks = []
                self._chunk_len = 0
                return Packet(first, payload, count)
            return Packet(seq, body)


# ---------------------------------------------------------------------------------------------
# Length-encoded integers and strings.
#
# Wire format (declared by `LenencInt` below): value < 0xFB -> 1 byte; 0xFC + uint16;
# 0xFD + uint24; 0xFE + uint64. 0xFB alone means NULL in a text result row; 0xFF is never a
# length (it starts an ERR packet).

NULL_MARKER = 0xFB
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")
_U64 = struct.Struct("<Q")


def encode_lenenc_int(value: int) -> bytes:
    if value < 0xFB:
        return bytes((value,))
    if value <= 0xFFFF:
        return b"\xfc" + _U16.pack(value)
    if value <= 0xFFFFFF:
        return b"\xfd" + _U32.pack(value)[:3]
    return b"\xfe" + _U64.pack(value)


_ONE_BYTE_LENGTHS = [bytes((n,)) for n in range(0xFB)]


def encode_lenenc_bytes(value: bytes) -> bytes:
    n = len(value)
    if n < 0xFB:
        return _ONE_BYTE_LENGTHS[n] + value  # every result value: no bytes((n,)) per call
    return encode_lenenc_int(n) + value


def decode_lenenc_int(data: bytes | memoryview, pos: int = 0) -> tuple[int | None, int]:
    """Read a lenenc int at `pos`: (value or None for the NULL marker, position after it).

    Raises `RemoteProtocolError` on truncation or the 0xFF byte.
    """
    try:
        first = data[pos]
        if first < 0xFB:
            return first, pos + 1
        if first == 0xFC:
            end = pos + 3
            if end > len(data):
                raise IndexError
            return _U16.unpack_from(data, pos + 1)[0], end
        if first == 0xFD:
            end = pos + 4
            if end > len(data):
                raise IndexError
            return data[pos + 1] | data[pos + 2] << 8 | data[pos + 3] << 16, end
        if first == 0xFE:
            end = pos + 9
            if end > len(data):
                raise IndexError
            return _U64.unpack_from(data, pos + 1)[0], end
        if first == NULL_MARKER:
            return None, pos + 1
    except (IndexError, struct.error):
        raise RemoteProtocolError("truncated length-encoded integer") from None
    raise RemoteProtocolError("0xFF is not a length-encoded integer")


def decode_lenenc_bytes(data: bytes, pos: int = 0) -> tuple[bytes | None, int]:
    """Read a lenenc string at `pos`: (bytes or None for NULL, position after it)."""
    n, pos = decode_lenenc_int(data, pos)
    if n is None:
        return None, pos
    end = pos + n
    if end > len(data):
        raise RemoteProtocolError("truncated length-encoded string")
    return bytes(data[pos:end]), end


def decode_text(raw: bytes) -> str:
    """Wire bytes -> str: UTF-8 with surrogateescape, so any bytes round-trip."""
    return raw.decode("utf-8", "surrogateescape")


def encode_text(text: str) -> bytes:
    """str -> wire bytes (the inverse of `decode_text`); a str no byte string stands for is
    our own misuse."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        from protocol.errors import LocalProtocolError

        raise LocalProtocolError(f"text cannot be encoded: {text!r}") from exc


class _LenencIntConstruct(c.Construct):
    """construct adapter for a length-encoded integer (NULL marker not allowed)."""

    def _parse(self, stream, context, path):
        first = c.stream_read(stream, 1, path)[0]
        if first < 0xFB:
            return first
        if first == 0xFC:
            return _U16.unpack(c.stream_read(stream, 2, path))[0]
        if first == 0xFD:
            return int.from_bytes(c.stream_read(stream, 3, path), "little")
        if first == 0xFE:
            return _U64.unpack(c.stream_read(stream, 8, path))[0]
        raise c.ExplicitError(f"byte {first:#x} does not start a length-encoded integer", path=path)

    def _build(self, obj, stream, context, path):
        if not isinstance(obj, int) or obj < 0 or obj >= 1 << 64:
            raise c.IntegerError(f"{obj!r} is not a length-encoded integer value", path=path)
        data = encode_lenenc_int(obj)
        c.stream_write(stream, data, len(data), path)
        return obj

    def _sizeof(self, context, path):
        raise c.SizeofError("length-encoded integers have a variable size", path=path)


LenencInt = _LenencIntConstruct()
LenencBytes = c.Prefixed(LenencInt, c.GreedyBytes)


def fixed_struct(fields: Iterable[c.Construct]) -> struct.Struct:
    """One little-endian `struct.Struct` for fixed-size construct fields, in order (each a
    FormatField, maybe inside Renamed, Const, Rebuild ...): a struct path derived from a
    declaration instead of a second layout."""
    formats = []
    for con in fields:
        while not hasattr(con, "fmtstr"):
            con = con.subcon
        formats.append(con.fmtstr.lstrip("<"))
    return struct.Struct("<" + "".join(formats))
