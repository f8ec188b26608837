"""Binlog events (binlog format v4, as MySQL 5.x and MariaDB 10.x write them), sans-IO.

Contract:
- An event is `header (19 bytes) + body + [CRC32 footer (4 bytes) when the binlog checksum is on]`.
  `event_size` in the header counts all three. `log_pos` is the offset just past the event in the
  binlog it belongs to (0 for artificial events sent by a dump thread, e.g. the fake ROTATE).
- Events move as raw `bytes`; only the framer and header accessors (`split_events`,
  `decode_header`, `event_type`, `route_fields`, `event_checksum_ok`, ...: struct unpacks, no
  copy, on a memoryview at an offset too) run on the hot paths (dump, IO task, relay log,
  binlog reader). `decode_event` builds a typed body only for the event types someone acts on;
  every other type is carried as `Unknown(data)`.
- This module is the only owner of event byte layouts: code elsewhere frames, reads header
  fields, strips or checks CRC32 footers and rewrites FDs through the functions here, never by
  offsets of its own (tests/unit/test_layering.py). The pipeline's vectorised decoders take their
  offsets from `HEADER_FIELD_AT` and the `*_FIELD_AT` tables, derived from the declarations.
- Every wire layout is declared once below with `construct`, fields in wire order. The header's
  hot path (`decode_header`) uses a `struct.Struct` derived from that same declaration.
- Only `ProtocolError`s leave this module: corrupt or truncated input raises
  `RemoteProtocolError`; encoding a value that cannot be represented raises `LocalProtocolError`.
- Text fields (file names, db, query, ...) are `str` decoded as UTF-8 with `surrogateescape`, so
  any byte string survives decode -> encode unchanged.

The layouts follow MariaDB's sql/log_event*.cc and MySQL's libbinlogevents (read, not copied).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from decimal import Decimal
from enum import IntEnum
from typing import Any, ClassVar, NamedTuple

from construct import (
    Adapter,
    Array,
    Bytes,
    Const,
    Construct,
    ConstructError,
    Flag,
    GreedyBytes,
    If,
    Int8ul,
    Int16ul,
    Int32ul,
    Int64ul,
    Rebuild,
    Struct,
    Terminated,
    len_,
    this,
)
from construct import (
    BytesInteger as _BytesInteger,
)

from protocol.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.packets import LenencInt, decode_lenenc_int, encode_text, fixed_struct

try:  # the compiled twin of `encode_events` (protocol/_framing.c), where setup.py built it
    from protocol._framing import encode_events as _native_encode_events
except ImportError:
    _native_encode_events = None

BINLOG_MAGIC = b"\xfebin"
HEADER_LEN = 19
CHECKSUM_LEN = 4
# Set on events a dump thread makes up (fake ROTATE, GTID_LIST on GTID connect): log_pos means nothing.
LOG_EVENT_ARTIFICIAL_F = 0x20
LOG_EVENT_BINLOG_IN_USE_F = 0x01  # set in a binlog's FD while the server has the file open
LOG_EVENT_SUPPRESS_USE_F = 0x08
BINLOG_CHECKSUM_ALG_OFF = 0
BINLOG_CHECKSUM_ALG_CRC32 = 1
BINLOG_CHECKSUM_ALG_UNDEF = 255
# The largest event a server accepts (MySQL's max_allowed_packet ceiling, 1 GiB).
MAX_EVENT_SIZE = 1 << 30


class EventType(IntEnum):
    """Binlog event type codes (MySQL's `Log_event_type` plus MariaDB's 160+ range)."""

    UNKNOWN_EVENT = 0
    START_EVENT_V3 = 1
    QUERY_EVENT = 2
    STOP_EVENT = 3
    ROTATE_EVENT = 4
    INTVAR_EVENT = 5
    LOAD_EVENT = 6
    SLAVE_EVENT = 7
    CREATE_FILE_EVENT = 8
    APPEND_BLOCK_EVENT = 9
    EXEC_LOAD_EVENT = 10
    DELETE_FILE_EVENT = 11
    NEW_LOAD_EVENT = 12
    RAND_EVENT = 13
    USER_VAR_EVENT = 14
    FORMAT_DESCRIPTION_EVENT = 15
    XID_EVENT = 16
    BEGIN_LOAD_QUERY_EVENT = 17
    EXECUTE_LOAD_QUERY_EVENT = 18
    TABLE_MAP_EVENT = 19
    PRE_GA_WRITE_ROWS_EVENT = 20
    PRE_GA_UPDATE_ROWS_EVENT = 21
    PRE_GA_DELETE_ROWS_EVENT = 22
    WRITE_ROWS_EVENT_V1 = 23
    UPDATE_ROWS_EVENT_V1 = 24
    DELETE_ROWS_EVENT_V1 = 25
    INCIDENT_EVENT = 26
    HEARTBEAT_LOG_EVENT = 27
    IGNORABLE_LOG_EVENT = 28
    ROWS_QUERY_LOG_EVENT = 29
    WRITE_ROWS_EVENT = 30
    UPDATE_ROWS_EVENT = 31
    DELETE_ROWS_EVENT = 32
    GTID_LOG_EVENT = 33
    ANONYMOUS_GTID_LOG_EVENT = 34
    PREVIOUS_GTIDS_LOG_EVENT = 35
    TRANSACTION_CONTEXT_EVENT = 36
    VIEW_CHANGE_EVENT = 37
    XA_PREPARE_LOG_EVENT = 38
    PARTIAL_UPDATE_ROWS_EVENT = 39
    TRANSACTION_PAYLOAD_EVENT = 40
    HEARTBEAT_LOG_EVENT_V2 = 41
    GTID_TAGGED_LOG_EVENT = 42
    ANNOTATE_ROWS_EVENT = 160
    BINLOG_CHECKPOINT_EVENT = 161
    GTID_EVENT = 162
    GTID_LIST_EVENT = 163
    START_ENCRYPTION_EVENT = 164
    QUERY_COMPRESSED_EVENT = 165
    WRITE_ROWS_COMPRESSED_EVENT_V1 = 166
    UPDATE_ROWS_COMPRESSED_EVENT_V1 = 167
    DELETE_ROWS_COMPRESSED_EVENT_V1 = 168
    WRITE_ROWS_COMPRESSED_EVENT = 169
    UPDATE_ROWS_COMPRESSED_EVENT = 170
    DELETE_ROWS_COMPRESSED_EVENT = 171


_TYPE_NAMES = {t.value: t.name for t in EventType}

# The types that code running for every event compares with, as plain ints: an IntEnum member's
# lookup (`EventType.QUERY_EVENT`) costs several times the comparison itself.
TYPE_FD = int(EventType.FORMAT_DESCRIPTION_EVENT)
TYPE_ROTATE = int(EventType.ROTATE_EVENT)
TYPE_GTID = int(EventType.GTID_EVENT)
TYPE_GTID_LIST = int(EventType.GTID_LIST_EVENT)
TYPE_QUERY = int(EventType.QUERY_EVENT)
TYPE_XID = int(EventType.XID_EVENT)
TYPE_INTVAR = int(EventType.INTVAR_EVENT)
TYPE_RAND = int(EventType.RAND_EVENT)
TYPE_USER_VAR = int(EventType.USER_VAR_EVENT)
TYPE_TABLE_MAP = int(EventType.TABLE_MAP_EVENT)
TYPE_HEARTBEAT = int(EventType.HEARTBEAT_LOG_EVENT)
TYPE_HEARTBEAT_V2 = int(EventType.HEARTBEAT_LOG_EVENT_V2)


def type_name(type_code: int) -> str:
    """MySQL's name of an event type (`QUERY_EVENT`), `UNKNOWN_EVENT_<n>` for codes we do not know."""
    return _TYPE_NAMES.get(type_code) or f"UNKNOWN_EVENT_{type_code}"


# ---------------------------------------------------------------------------------------------
# Small construct building blocks
# ---------------------------------------------------------------------------------------------
class _Text(Adapter):
    """Bytes <-> str (UTF-8, surrogateescape: any bytes round-trip)."""

    def _decode(self, obj: bytes, context: Any, path: str) -> str:
        return bytes(obj).decode("utf-8", "surrogateescape")

    def _encode(self, obj: str, context: Any, path: str) -> bytes:
        return obj.encode("utf-8", "surrogateescape")


_text = encode_text


# MySQL's length-encoded integer, declared once in protocol.packets.
LenEncInt = LenencInt
Int48ul = _BytesInteger(6, swapped=True)
Int24ul = _BytesInteger(3, swapped=True)

_PARSE_ERRORS = (ConstructError, ValueError, OverflowError, struct.error, IndexError, UnicodeError, TypeError)


_COMPILED: dict[int, Construct] = {}


def _fast(con: Construct) -> Construct:
    """construct's compiled form of a layout (several times faster), or the layout itself when it
    cannot be compiled (same declaration; golden, round-trip and fuzz tests run on this path)."""
    fast = _COMPILED.get(id(con))
    if fast is None:
        try:
            fast = con.compile()
        except Exception:  # construct cannot compile some layouts (lambdas): use them as declared
            fast = con
        _COMPILED[id(con)] = fast
    return fast


def _parse(con: Construct, data: bytes | memoryview, what: str) -> Any:
    try:
        return _fast(con).parse(data)
    except ProtocolError:
        raise
    except _PARSE_ERRORS as e:
        raise RemoteProtocolError(f"corrupt {what}: {e}") from None


def _build(con: Construct, obj: dict[str, Any], what: str) -> bytes:
    try:
        return _fast(con).build(obj)
    except ProtocolError:
        raise
    except _PARSE_ERRORS as e:
        raise LocalProtocolError(f"cannot encode {what}: {e}") from None


# ---------------------------------------------------------------------------------------------
# The common header
# ---------------------------------------------------------------------------------------------
HEADER = Struct(
    "timestamp" / Int32ul,
    "type_code" / Int8ul,
    "server_id" / Int32ul,
    "event_size" / Int32ul,
    "log_pos" / Int32ul,
    "flags" / Int16ul,
)
# The hot path: the same layout as one struct.Struct (derived from HEADER, not declared twice).
_HEADER_STRUCT = struct.Struct("<" + "".join(sc.subcon.fmtstr.lstrip("<") for sc in HEADER.subcons))
assert _HEADER_STRUCT.size == HEADER_LEN == HEADER.sizeof()
_unpack_header = _HEADER_STRUCT.unpack_from
_pack_header = _HEADER_STRUCT.pack


def _offsets(con: Struct) -> dict[str, int]:
    """Where each field of a fixed-size layout starts, from its declaration."""
    out, at = {}, 0
    for sc in con.subcons:
        out[sc.name] = at
        at += sc.sizeof()
    return out


# Where each header field starts in an event. Code outside protocol/ that must frame events
# without calling into this module per event (the pipeline's vectorised scanner) takes its
# offsets from here; everything else uses the accessors below.
HEADER_FIELD_AT: dict[str, int] = _offsets(HEADER)
TYPE_CODE_AT = HEADER_FIELD_AT["type_code"]
EVENT_SIZE_AT = HEADER_FIELD_AT["event_size"]
LOG_POS_AT = HEADER_FIELD_AT["log_pos"]
FLAGS_AT = HEADER_FIELD_AT["flags"]
_unpack_size = struct.Struct("<I").unpack_from
# The header fields a dump session routes an event by, in one unpack (derived from HEADER).
_ROUTE = struct.Struct(
    "<" + "".join(
        _HEADER_STRUCT.format[1 + i] if sc.name in ("type_code", "log_pos", "flags") else f"{sc.sizeof()}x"
        for i, sc in enumerate(HEADER.subcons)
    )
)
assert _ROUTE.size == HEADER_LEN


class EventHeader(NamedTuple):
    """The 19-byte common header of every event."""

    timestamp: int
    type_code: int
    server_id: int
    event_size: int
    log_pos: int
    flags: int

    def encode(self) -> bytes:
        return _pack_header(*self)

    @property
    def artificial(self) -> bool:
        return bool(self.flags & LOG_EVENT_ARTIFICIAL_F)

    @property
    def type_name(self) -> str:
        return type_name(self.type_code)


_new_header = tuple.__new__


def decode_header(buf: bytes | bytearray | memoryview, offset: int = 0) -> EventHeader:
    """Decode the 19-byte header at `offset` of `buf` (no copy). Raises RemoteProtocolError if short."""
    try:
        return _new_header(EventHeader, _unpack_header(buf, offset))
    except struct.error:
        raise RemoteProtocolError(
            f"truncated event header at offset {offset}: need {HEADER_LEN} bytes"
        ) from None


def event_size_at(buf: bytes | bytearray | memoryview, offset: int = 0) -> int | None:
    """The `event_size` of the event starting at `offset`, or None if the header is incomplete."""
    if len(buf) - offset < HEADER_LEN:
        return None
    return _unpack_size(buf, offset + EVENT_SIZE_AT)[0]


def event_type(event: bytes | bytearray | memoryview) -> int:
    """The type code of a whole event (or of its header)."""
    return event[TYPE_CODE_AT]


# (type_code, log_pos, flags) of a whole event in one unpack: what a dump session routes by.
route_fields: Callable[..., tuple[int, int, int]] = _ROUTE.unpack_from


def framed_size(body_len: int, checksum: bool) -> int:
    """The event_size of an event with a body of `body_len` bytes (and a CRC32 footer if on)."""
    return HEADER_LEN + body_len + (CHECKSUM_LEN if checksum else 0)


class EventFramingError(RemoteProtocolError):
    """Bytes that cannot be an event: `event_size` is below the header's length or above
    MAX_EVENT_SIZE. `offset` is where the event starts in the buffer given to the framer."""

    def __init__(self, offset: int, size: int) -> None:
        super().__init__(f"impossible event size {size}")
        self.offset = offset
        self.size = size


def split_events(buf: Any, offset: int = 0) -> Iterator[tuple[int, Any]]:
    """THE event framer: yields (offset, event) for each complete event of `buf` (back-to-back
    events) from `offset` on, each a slice of `buf` (bytes slices copy, memoryview slices do not).
    Stops before an incomplete event: it starts at the last offset + len(event), or `offset`
    when nothing was yielded. Raises EventFramingError (with its offset) on an impossible
    event_size, so garbage is never taken for a huge event to wait for."""
    end = len(buf)
    unpack = _unpack_size
    size_at = EVENT_SIZE_AT
    while end - offset >= HEADER_LEN:
        size = unpack(buf, offset + size_at)[0]
        if size < HEADER_LEN or size > MAX_EVENT_SIZE:
            raise EventFramingError(offset, size)
        nxt = offset + size
        if nxt > end:
            return
        yield offset, buf[offset:nxt]
        offset = nxt


# -- checksums -----------------------------------------------------------------------------------
def event_checksum_ok(event: bytes | bytearray | memoryview) -> bool:
    """Does the event end in the CRC32 of everything before its last 4 bytes?

    A FORMAT_DESCRIPTION's CRC32 is that of the event with LOG_EVENT_BINLOG_IN_USE_F cleared
    (MySQL's and MariaDB's checksum test masks it: the server sets the flag in the file it has
    open and clears it at close without recomputing the footer). The same event's CRC32 over the
    flag as set is accepted too: what this package wrote into the active file before it masked
    (a crashed datadir of an earlier version must still recover)."""
    n = len(event)
    if n < HEADER_LEN + CHECKSUM_LEN:
        return False
    mv = memoryview(event)
    footer = _unpack_size(event, n - CHECKSUM_LEN)[0]
    if _crc32(mv[:-CHECKSUM_LEN]) == footer:
        return True
    return mv[TYPE_CODE_AT] == EventType.FORMAT_DESCRIPTION_EVENT and _fd_crc32(mv) == footer


_crc32 = zlib.crc32


def _fd_crc32(event: memoryview | bytearray) -> int:
    """The CRC32 of a FORMAT_DESCRIPTION (footer excluded) as the server records it: computed
    with LOG_EVENT_BINLOG_IN_USE_F cleared in the flags' low byte."""
    crc = zlib.crc32(event[:FLAGS_AT])
    crc = zlib.crc32(bytes([event[FLAGS_AT] & ~LOG_EVENT_BINLOG_IN_USE_F & 0xFF]), crc)
    return zlib.crc32(event[FLAGS_AT + 1 : len(event) - CHECKSUM_LEN], crc)


def _seal(buf: bytearray) -> bytes:
    """The event in `buf` with its CRC32 footer recomputed (an FD's with the in-use flag masked)."""
    if buf[TYPE_CODE_AT] == EventType.FORMAT_DESCRIPTION_EVENT:
        crc = _fd_crc32(buf)
    else:
        crc = zlib.crc32(memoryview(buf)[:-CHECKSUM_LEN])
    buf[-CHECKSUM_LEN:] = crc.to_bytes(CHECKSUM_LEN, "little")
    return bytes(buf)


def set_log_pos(event: bytes | bytearray, log_pos: int, *, checksum: bool) -> bytes:
    """A copy of `event` with its header's log_pos replaced (and its CRC32 recomputed if on)."""
    buf = bytearray(event)
    buf[LOG_POS_AT : LOG_POS_AT + 4] = log_pos.to_bytes(4, "little")
    return _seal(buf) if checksum else bytes(buf)


def strip_checksum(event: bytes | bytearray | memoryview) -> bytes:
    """The event without its CRC32 footer and with event_size fixed, for a reader that expects
    none; a FORMAT_DESCRIPTION keeps its (always present) footer but says the algorithm is OFF."""
    if event[TYPE_CODE_AT] == EventType.FORMAT_DESCRIPTION_EVENT:
        buf = bytearray(event)
        buf[-CHECKSUM_LEN - 1] = BINLOG_CHECKSUM_ALG_OFF
        return _seal(buf)
    size = len(event) - CHECKSUM_LEN
    return b"".join((event[:EVENT_SIZE_AT], size.to_bytes(4, "little"), event[EVENT_SIZE_AT + 4 : size]))


def rewrite_format_description(
    event: bytes | bytearray | memoryview, *, in_use: bool = False, past_start: bool = False
) -> bytes:
    """A whole FORMAT_DESCRIPTION_EVENT with LOG_EVENT_BINLOG_IN_USE_F set as `in_use` says,
    and, `past_start`, log_pos and the creation time zeroed (what a dump sends when it starts
    past the FD: the replica must neither move its position nor drop its temporary tables);
    its CRC32 footer (always present on an FD) recomputed."""
    if len(event) < HEADER_LEN + _FD_CREATED_AT + 4 + CHECKSUM_LEN or event[TYPE_CODE_AT] != EventType.FORMAT_DESCRIPTION_EVENT:
        raise RemoteProtocolError("not a whole FORMAT_DESCRIPTION_EVENT")
    buf = bytearray(event)
    flags = int.from_bytes(buf[FLAGS_AT : FLAGS_AT + 2], "little") & ~LOG_EVENT_BINLOG_IN_USE_F
    if in_use:
        flags |= LOG_EVENT_BINLOG_IN_USE_F
    buf[FLAGS_AT : FLAGS_AT + 2] = flags.to_bytes(2, "little")
    if past_start:
        buf[LOG_POS_AT : LOG_POS_AT + 4] = bytes(4)
        at = HEADER_LEN + _FD_CREATED_AT
        buf[at : at + 4] = bytes(4)
    return _seal(buf)


def in_use_flag(event: bytes | bytearray | memoryview) -> bool:
    """Is LOG_EVENT_BINLOG_IN_USE_F set in this event's header (an FD: the file was not closed)?"""
    return bool(int.from_bytes(event[FLAGS_AT : FLAGS_AT + 2], "little") & LOG_EVENT_BINLOG_IN_USE_F)


# ---------------------------------------------------------------------------------------------
# Typed bodies. Each has TYPE_CODE, `encode() -> body bytes` and `_decode(body, header)`.
# ---------------------------------------------------------------------------------------------
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


class Body:
    """Base of typed event bodies."""

    TYPE_CODE: ClassVar[int]
    _WIRE: ClassVar[Construct]

    def encode(self) -> bytes:
        """The body's bytes: by the struct path of its type where it has one (`_FAST_ENCODE`,
        held byte-identical to the declaration by tests), else by the declaration."""
        fast = _FAST_ENCODE.get(type(self))
        if fast is not None:
            out = fast(self)
            if out is not None:
                return out
        return self.encode_declared()

    def encode_declared(self) -> bytes:
        """The body's bytes built from its construct declaration: the reference encoder."""
        return _build(self._WIRE, self._to_wire(), type(self).__name__)

    def _to_wire(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _field_names(type(self))}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Body:
        parsed = _parse(cls._WIRE, body, type_name(header.type_code))
        return cls(*[parsed[name] for name in _field_names(cls)])


# MariaDB 10.11's post-header lengths, indexed by type code - 1 (what a v4 FD advertises).
# Only non-zero entries are listed.
_POST_HEADER_LENGTHS: dict[int, int] = {
    EventType.START_EVENT_V3: 56,
    EventType.QUERY_EVENT: 13,
    EventType.ROTATE_EVENT: 8,
    EventType.LOAD_EVENT: 18,
    EventType.CREATE_FILE_EVENT: 4,
    EventType.APPEND_BLOCK_EVENT: 4,
    EventType.EXEC_LOAD_EVENT: 4,
    EventType.DELETE_FILE_EVENT: 4,
    EventType.NEW_LOAD_EVENT: 18,
    EventType.FORMAT_DESCRIPTION_EVENT: 228,
    EventType.BEGIN_LOAD_QUERY_EVENT: 4,
    EventType.EXECUTE_LOAD_QUERY_EVENT: 26,
    EventType.TABLE_MAP_EVENT: 8,
    EventType.WRITE_ROWS_EVENT_V1: 8,
    EventType.UPDATE_ROWS_EVENT_V1: 8,
    EventType.DELETE_ROWS_EVENT_V1: 8,
    EventType.INCIDENT_EVENT: 2,
    EventType.WRITE_ROWS_EVENT: 10,
    EventType.UPDATE_ROWS_EVENT: 10,
    EventType.DELETE_ROWS_EVENT: 10,
    # MariaDB advertises 10 for codes 39-41 (MySQL's partial-update/payload/heartbeat-v2 range).
    39: 10,
    40: 10,
    41: 10,
    EventType.BINLOG_CHECKPOINT_EVENT: 4,
    EventType.GTID_EVENT: 19,
    EventType.GTID_LIST_EVENT: 4,
    EventType.QUERY_COMPRESSED_EVENT: 13,
    EventType.WRITE_ROWS_COMPRESSED_EVENT_V1: 8,
    EventType.UPDATE_ROWS_COMPRESSED_EVENT_V1: 8,
    EventType.DELETE_ROWS_COMPRESSED_EVENT_V1: 8,
    EventType.WRITE_ROWS_COMPRESSED_EVENT: 10,
    EventType.UPDATE_ROWS_COMPRESSED_EVENT: 10,
    EventType.DELETE_ROWS_COMPRESSED_EVENT: 10,
}
_NUMBER_OF_EVENT_TYPES = max(EventType)
DEFAULT_POST_HEADER_LENGTHS = bytes(
    _POST_HEADER_LENGTHS.get(code, 0) for code in range(1, _NUMBER_OF_EVENT_TYPES + 1)
)
SERVER_VERSION_LEN = 50


def _version_tuple(server_version: str) -> tuple[int, int, int]:
    parts: list[int] = []
    for chunk in server_version.split("-", 1)[0].split(".")[:3]:
        digits = "".join(ch for ch in chunk if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return parts[0], parts[1], parts[2]


def _has_checksum_alg(server_version: str) -> bool:
    """FDs of servers from MySQL 5.6.1 / MariaDB 5.3 on end with the checksum-algorithm byte."""
    version = _version_tuple(server_version)
    mariadb = "mariadb" in server_version.lower() or "-maria-" in server_version.lower()
    return version >= ((5, 3, 0) if mariadb else (5, 6, 1))


_FD_FIXED = Struct(
    "binlog_version" / Int16ul,
    "server_version" / Bytes(SERVER_VERSION_LEN),
    "create_timestamp" / Int32ul,
    "header_length" / Int8ul,
)
_FD_FIXED_LEN = _FD_FIXED.sizeof()  # 57
_FD_CREATED_AT = _offsets(_FD_FIXED)["create_timestamp"]  # in the body


@dataclass(frozen=True, slots=True)
class FormatDescription(Body):
    """FORMAT_DESCRIPTION_EVENT: the first event of every binlog; says how to read the rest.

    On the wire: fixed part, post-header lengths, checksum algorithm byte, then (always, even when
    the algorithm is OFF) a 4-byte CRC32 of the event. `encode()` returns the body up to and
    including the algorithm byte; `encode_event` appends the CRC32 footer.
    """

    TYPE_CODE: ClassVar[int] = EventType.FORMAT_DESCRIPTION_EVENT
    binlog_version: int = 4
    server_version: str = ""
    create_timestamp: int = 0
    header_length: int = HEADER_LEN
    post_header_lengths: bytes = DEFAULT_POST_HEADER_LENGTHS
    checksum_alg: int = BINLOG_CHECKSUM_ALG_CRC32

    @property
    def checksum(self) -> bool:
        return self.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32

    def encode(self) -> bytes:
        version = _text(self.server_version)
        if len(version) > SERVER_VERSION_LEN:
            raise LocalProtocolError(f"server_version longer than {SERVER_VERSION_LEN} bytes")
        fixed = _build(
            _FD_FIXED,
            {
                "binlog_version": self.binlog_version,
                "server_version": version.ljust(SERVER_VERSION_LEN, b"\x00"),
                "create_timestamp": self.create_timestamp,
                "header_length": self.header_length,
            },
            "FormatDescription",
        )
        tail = b"" if self.checksum_alg == BINLOG_CHECKSUM_ALG_UNDEF else bytes([self.checksum_alg])
        return fixed + bytes(self.post_header_lengths) + tail

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> FormatDescription:
        # `body` here is everything after the header, footer included (see decode_event).
        fixed = _parse(_FD_FIXED, body[:_FD_FIXED_LEN], "FORMAT_DESCRIPTION_EVENT")
        version = bytes(fixed.server_version).split(b"\x00", 1)[0].decode("utf-8", "surrogateescape")
        rest = body[_FD_FIXED_LEN:]
        if _has_checksum_alg(version):
            if len(rest) < 1 + CHECKSUM_LEN:
                raise RemoteProtocolError("corrupt FORMAT_DESCRIPTION_EVENT: no checksum algorithm")
            alg = rest[-1 - CHECKSUM_LEN]
            post = bytes(rest[: -1 - CHECKSUM_LEN])
        else:
            alg, post = BINLOG_CHECKSUM_ALG_UNDEF, bytes(rest)
        if fixed.header_length < HEADER_LEN:
            raise RemoteProtocolError(f"corrupt FORMAT_DESCRIPTION_EVENT: header length {fixed.header_length}")
        return cls(fixed.binlog_version, version, fixed.create_timestamp, fixed.header_length, post, alg)


@dataclass(frozen=True, slots=True)
class Rotate(Body):
    """ROTATE_EVENT: the next binlog is `next_file`, continue at `position`."""

    TYPE_CODE: ClassVar[int] = EventType.ROTATE_EVENT
    _WIRE: ClassVar[Construct] = Struct("position" / Int64ul, "next_file" / _Text(GreedyBytes))
    position: int
    next_file: str


# Query status variables (MySQL's Q_* codes, MariaDB's 128+), in the wire order of each entry.
OPTION_NO_FOREIGN_KEY_CHECKS = 1 << 26  # a bit of Q_FLAGS2_CODE: the statement ran with foreign_key_checks=0
Q_FLAGS2_CODE = 0
Q_SQL_MODE_CODE = 1
Q_CATALOG_CODE = 2
Q_AUTO_INCREMENT = 3
Q_CHARSET_CODE = 4
Q_TIME_ZONE_CODE = 5
Q_CATALOG_NZ_CODE = 6
Q_LC_TIME_NAMES_CODE = 7
Q_CHARSET_DATABASE_CODE = 8
Q_TABLE_MAP_FOR_UPDATE_CODE = 9
Q_MASTER_DATA_WRITTEN_CODE = 10
Q_INVOKER = 11
Q_UPDATED_DB_NAMES = 12
Q_MICROSECONDS = 13
Q_COMMIT_TS = 14
Q_COMMIT_TS2 = 15
Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP = 16
Q_DDL_LOGGED_WITH_XID = 17
Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18
Q_SQL_REQUIRE_PRIMARY_KEY = 19
Q_DEFAULT_TABLE_ENCRYPTION = 20
Q_HRNOW = 128
Q_XID = 129

_PascalText = Struct("len" / Rebuild(Int8ul, len_(this.data)), "data" / Bytes(this.len))
_STATUS_VAR_VALUES: dict[int, Construct] = {
    Q_FLAGS2_CODE: Int32ul,
    Q_SQL_MODE_CODE: Int64ul,
    Q_CATALOG_CODE: Struct("len" / Int8ul, "data" / Bytes(this.len), Const(b"\x00")),
    Q_AUTO_INCREMENT: Struct("increment" / Int16ul, "offset" / Int16ul),
    Q_CHARSET_CODE: Struct("client" / Int16ul, "connection" / Int16ul, "server" / Int16ul),
    Q_TIME_ZONE_CODE: _PascalText,
    Q_CATALOG_NZ_CODE: _PascalText,
    Q_LC_TIME_NAMES_CODE: Int16ul,
    Q_CHARSET_DATABASE_CODE: Int16ul,
    Q_TABLE_MAP_FOR_UPDATE_CODE: Int64ul,
    Q_MASTER_DATA_WRITTEN_CODE: Int32ul,
    Q_INVOKER: Struct("user" / _PascalText, "host" / _PascalText),
    Q_MICROSECONDS: Int24ul,
    Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP: Int8ul,
    Q_DDL_LOGGED_WITH_XID: Int64ul,
    Q_DEFAULT_COLLATION_FOR_UTF8MB4: Int16ul,
    Q_SQL_REQUIRE_PRIMARY_KEY: Int8ul,
    Q_DEFAULT_TABLE_ENCRYPTION: Int8ul,
    Q_HRNOW: Int24ul,
    Q_XID: Int64ul,
}


class _UpdatedDbNames(Construct):
    """Q_UPDATED_DB_NAMES: a count, then that many NUL-terminated names (254 = too many, none)."""

    def _parse(self, stream: Any, context: Any, path: str) -> list[bytes]:
        first = stream.read(1)
        if len(first) != 1:
            raise ConstructError("updated db names: no count")
        count = first[0]
        names: list[bytes] = []
        if count == 254:
            return names
        for _ in range(count):
            name = bytearray()
            while True:
                ch = stream.read(1)
                if not ch:
                    raise ConstructError("updated db names: unterminated")
                if ch == b"\x00":
                    break
                name += ch
            names.append(bytes(name))
        return names

    def _build(self, obj: list[bytes], stream: Any, context: Any, path: str) -> list[bytes]:
        stream.write(bytes([len(obj)]) + b"".join(bytes(n) + b"\x00" for n in obj))
        return obj


_STATUS_VAR_VALUES[Q_UPDATED_DB_NAMES] = _UpdatedDbNames()


@dataclass(frozen=True, slots=True)
class QueryStatus:
    """The decoded status variables of a QUERY_EVENT (None: not present)."""

    flags2: int | None = None
    sql_mode: int | None = None
    catalog: str | None = None
    auto_increment_increment: int | None = None
    auto_increment_offset: int | None = None
    charset_client: int | None = None
    collation_connection: int | None = None
    collation_server: int | None = None
    time_zone: str | None = None
    lc_time_names: int | None = None
    collation_database: int | None = None
    table_map_for_update: int | None = None
    master_data_written: int | None = None
    invoker_user: str | None = None
    invoker_host: str | None = None
    updated_db_names: tuple[str, ...] | None = None
    microseconds: int | None = None  # Q_MICROSECONDS (MySQL) or Q_HRNOW (MariaDB)
    explicit_defaults_for_timestamp: int | None = None
    xid: int | None = None
    # Codes seen, in order; decoding stops at the first code we do not know (its length is unknown).
    codes: tuple[int, ...] = ()
    undecoded: bytes = b""


def _s(b: bytes) -> str:
    return bytes(b).decode("utf-8", "surrogateescape")


# sql_mode's bits as Q_SQL_MODE_CODE carries them: MariaDB's mode names in bit order
SQL_MODES = (
    "REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "IGNORE_BAD_TABLE_OPTIONS",
    "ONLY_FULL_GROUP_BY", "NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "POSTGRESQL", "ORACLE", "MSSQL",
    "DB2", "MAXDB", "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS", "MYSQL323", "MYSQL40", "ANSI",
    "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES", "ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL",
    "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE", "NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH",
    "EMPTY_STRING_IS_NULL", "SIMULTANEOUS_ASSIGNMENT", "TIME_ROUND_FRACTIONAL",
)


def sql_mode_names(mask: int) -> list[str]:
    """The names of the modes a Q_SQL_MODE_CODE value sets, in bit order."""
    return [name for bit, name in enumerate(SQL_MODES) if mask >> bit & 1]


SQL_MODE_NO_AUTO_VALUE_ON_ZERO = 1 << SQL_MODES.index("NO_AUTO_VALUE_ON_ZERO")
# MariaDB 10.11's default sql_mode as those bits (what a session that never set one runs under)
DEFAULT_SQL_MODE_NAMES = ("STRICT_TRANS_TABLES", "ERROR_FOR_DIVISION_BY_ZERO", "NO_AUTO_CREATE_USER",
                          "NO_ENGINE_SUBSTITUTION")
DEFAULT_SQL_MODE = sum(1 << SQL_MODES.index(name) for name in DEFAULT_SQL_MODE_NAMES)


def statement_modes(status_vars: bytes | memoryview) -> tuple[bool, int]:
    """What a QUERY ran under that its replay must follow: (foreign_key_checks, sql_mode); no
    flags2: checks on, no sql_mode: 0. MySQL and MariaDB write flags2 first and sql_mode second:
    then their bytes are read; otherwise the status variables are decoded (the applier and crash
    recovery ask this of every statement they replay)."""
    if len(status_vars) >= 14 and status_vars[0] == Q_FLAGS2_CODE and status_vars[5] == Q_SQL_MODE_CODE:
        flags2, mode = int.from_bytes(status_vars[1:5], "little"), int.from_bytes(status_vars[6:14], "little")
    else:
        decoded = decode_status_vars(status_vars)
        flags2, mode = decoded.flags2 or 0, decoded.sql_mode or 0
    return not flags2 & OPTION_NO_FOREIGN_KEY_CHECKS, mode


_REPLAY_MODES: dict[bytes, tuple[bool, int, None, tuple[int, int]]] = {}
_REPLAY_MODES_KEPT = 256  # distinct status variables kept (a session's statements share theirs)


def statement_replay(status_vars: bytes) -> tuple[bool, int, int | None, tuple[int, int]]:
    """`statement_modes` and `statement_microseconds` of one QUERY, and its auto_increment_increment
    and _offset: (foreign_key_checks, sql_mode, microseconds, (increment, offset)), (1, 1) without
    Q_AUTO_INCREMENT. The answers for status variables without Q_HRNOW are kept (a session writes
    the same ones for all its statements: the applier and crash recovery ask once per distinct
    value)."""
    got = _REPLAY_MODES.get(status_vars)
    if got is not None:
        return got
    fk_checks, mode = statement_modes(status_vars)
    decoded = decode_status_vars(status_vars)
    step = (decoded.auto_increment_increment or 1, decoded.auto_increment_offset or 1)
    if decoded.microseconds is not None:
        return fk_checks, mode, decoded.microseconds, step
    answer = (fk_checks, mode, None, step)
    if len(_REPLAY_MODES) < _REPLAY_MODES_KEPT:
        _REPLAY_MODES[bytes(status_vars)] = answer
    return answer


def statement_microseconds(status_vars: bytes | memoryview) -> int | None:
    """The fraction of a QUERY's time its statement read (NOW(6), a DATETIME(6) column's
    DEFAULT CURRENT_TIMESTAMP(6): MariaDB's Q_HRNOW), which its replay must read too; None when
    the statement read none (most: the variables are decoded only when Q_HRNOW's code may be
    among them)."""
    if Q_HRNOW not in bytes(status_vars):
        return None
    return decode_status_vars(status_vars).microseconds


def decode_status_vars(data: bytes | memoryview) -> QueryStatus:
    """Decode a QUERY_EVENT's status variables (RemoteProtocolError when one is truncated)."""
    values: dict[str, Any] = {}
    codes: list[int] = []
    mv = memoryview(data)
    pos = 0
    while pos < len(mv):
        code = mv[pos]
        con = _STATUS_VAR_VALUES.get(code)
        if con is None:
            break
        reader = _Reader(mv, pos + 1)
        try:
            v = con.parse_stream(reader)
        except _PARSE_ERRORS as e:
            raise RemoteProtocolError(f"corrupt QUERY_EVENT status variable {code}: {e}") from None
        pos = reader.pos
        codes.append(code)
        if code == Q_FLAGS2_CODE:
            values["flags2"] = v
        elif code == Q_SQL_MODE_CODE:
            values["sql_mode"] = v
        elif code in (Q_CATALOG_CODE, Q_CATALOG_NZ_CODE):
            values["catalog"] = _s(v.data)
        elif code == Q_AUTO_INCREMENT:
            values["auto_increment_increment"] = v.increment
            values["auto_increment_offset"] = v.offset
        elif code == Q_CHARSET_CODE:
            values["charset_client"] = v.client
            values["collation_connection"] = v.connection
            values["collation_server"] = v.server
        elif code == Q_TIME_ZONE_CODE:
            values["time_zone"] = _s(v.data)
        elif code == Q_LC_TIME_NAMES_CODE:
            values["lc_time_names"] = v
        elif code == Q_CHARSET_DATABASE_CODE:
            values["collation_database"] = v
        elif code == Q_TABLE_MAP_FOR_UPDATE_CODE:
            values["table_map_for_update"] = v
        elif code == Q_MASTER_DATA_WRITTEN_CODE:
            values["master_data_written"] = v
        elif code == Q_INVOKER:
            values["invoker_user"] = _s(v.user.data)
            values["invoker_host"] = _s(v.host.data)
        elif code == Q_UPDATED_DB_NAMES:
            values["updated_db_names"] = tuple(_s(n) for n in v)
        elif code in (Q_MICROSECONDS, Q_HRNOW):
            values["microseconds"] = v
        elif code == Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP:
            values["explicit_defaults_for_timestamp"] = v
        elif code == Q_XID:
            values["xid"] = v
    return QueryStatus(**values, codes=tuple(codes), undecoded=bytes(mv[pos:]))


class _Reader:
    """A minimal read-only stream over a memoryview that reports where parsing stopped."""

    __slots__ = ("mv", "pos")

    def __init__(self, mv: memoryview, pos: int) -> None:
        self.mv = mv
        self.pos = pos

    def read(self, n: int = -1) -> bytes:
        end = len(self.mv) if n < 0 else min(len(self.mv), self.pos + n)
        data = bytes(self.mv[self.pos : end])
        self.pos = end
        return data

    def tell(self) -> int:
        return self.pos

    def seek(self, pos: int, whence: int = 0) -> int:
        self.pos = pos if whence == 0 else (self.pos + pos if whence == 1 else len(self.mv) + pos)
        return self.pos


def encode_status_vars(
    *,
    flags2: int | None = None,
    sql_mode: int | None = None,
    catalog: str | None = None,
    auto_increment: tuple[int, int] | None = None,
    charset: tuple[int, int, int] | None = None,
    time_zone: str | None = None,
    lc_time_names: int | None = None,
    collation_database: int | None = None,
    invoker: tuple[str, str] | None = None,
    updated_db_names: list[str] | None = None,
    microseconds: int | None = None,
    xid: int | None = None,
) -> bytes:
    """Build QUERY_EVENT status variables in the order MariaDB writes them (`microseconds`:
    MariaDB's Q_HRNOW, the fraction of the statement's time it read)."""
    items: list[tuple[int, Any]] = []
    if flags2 is not None:
        items.append((Q_FLAGS2_CODE, flags2))
    if sql_mode is not None:
        items.append((Q_SQL_MODE_CODE, sql_mode))
    if catalog is not None:
        items.append((Q_CATALOG_NZ_CODE, {"data": _text(catalog)}))
    if auto_increment is not None:
        items.append((Q_AUTO_INCREMENT, {"increment": auto_increment[0], "offset": auto_increment[1]}))
    if charset is not None:
        items.append((Q_CHARSET_CODE, dict(zip(("client", "connection", "server"), charset, strict=True))))
    if time_zone is not None:
        items.append((Q_TIME_ZONE_CODE, {"data": _text(time_zone)}))
    if lc_time_names is not None:
        items.append((Q_LC_TIME_NAMES_CODE, lc_time_names))
    if collation_database is not None:
        items.append((Q_CHARSET_DATABASE_CODE, collation_database))
    if invoker is not None:
        items.append((Q_INVOKER, {"user": {"data": _text(invoker[0])}, "host": {"data": _text(invoker[1])}}))
    if updated_db_names is not None:
        items.append((Q_UPDATED_DB_NAMES, [_text(n) for n in updated_db_names]))
    if microseconds is not None:
        items.append((Q_HRNOW, microseconds))
    if xid is not None:
        items.append((Q_XID, xid))
    out = bytearray()
    for code, value in items:
        out.append(code)
        out += _build(_STATUS_VAR_VALUES[code], value, f"status variable {code}")  # type: ignore[arg-type]
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Query(Body):
    """QUERY_EVENT: a statement (DDL, BEGIN/COMMIT, or DML in statement format)."""

    TYPE_CODE: ClassVar[int] = EventType.QUERY_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        "thread_id" / Int32ul,
        "exec_time" / Int32ul,
        "db_len" / Rebuild(Int8ul, len_(this.db)),
        "error_code" / Int16ul,
        "status_vars_len" / Rebuild(Int16ul, len_(this.status_vars)),
        "status_vars" / Bytes(this.status_vars_len),
        "db" / Bytes(this.db_len),
        Const(b"\x00"),
        "query" / GreedyBytes,
    )
    thread_id: int = 0
    exec_time: int = 0
    error_code: int = 0
    db: str = ""
    query: str = ""
    status_vars: bytes = b""

    def _to_wire(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id,
            "exec_time": self.exec_time,
            "error_code": self.error_code,
            "status_vars": self.status_vars,
            "db": _text(self.db),
            "query": _text(self.query),
        }

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Query:
        p = _parse(cls._WIRE, body, "QUERY_EVENT")
        return cls(p.thread_id, p.exec_time, p.error_code, _s(p.db), _s(p.query), bytes(p.status_vars))

    @property
    def status(self) -> QueryStatus:
        return decode_status_vars(self.status_vars)


# A statement-format LOAD DATA [LOCAL] INFILE as MariaDB's master logs it (sql_load.cc): the
# file's bytes in blocks under a file_id (BEGIN_LOAD_QUERY, then APPEND_BLOCKs; a block is at
# most read_buffer_size bytes of a server-side file, one network packet of a client's), then
# EXECUTE_LOAD_QUERY, the statement that loads them; DELETE_FILE when the load failed with
# nothing to replay (log_event.h's Begin_load_query_log_event ... Delete_file_log_event).
# EXECUTE_LOAD_QUERY's dup_handling (enum_load_dup_handling): what the slave's statement says
LOAD_DUP_ERROR, LOAD_DUP_IGNORE, LOAD_DUP_REPLACE = 0, 1, 2
_LOAD_DUP_WORDS = {LOAD_DUP_ERROR: b"", LOAD_DUP_IGNORE: b" IGNORE", LOAD_DUP_REPLACE: b" REPLACE"}


@dataclass(frozen=True, slots=True)
class AppendBlock(Body):
    """APPEND_BLOCK_EVENT: the next block of file `file_id`."""

    TYPE_CODE: ClassVar[int] = EventType.APPEND_BLOCK_EVENT
    _WIRE: ClassVar[Construct] = Struct("file_id" / Int32ul, "block" / GreedyBytes)
    file_id: int
    block: bytes


class BeginLoadQuery(AppendBlock):
    """BEGIN_LOAD_QUERY_EVENT: a LOAD DATA's file starts; its first block (APPEND_BLOCK's layout)."""

    __slots__ = ()
    TYPE_CODE: ClassVar[int] = EventType.BEGIN_LOAD_QUERY_EVENT


@dataclass(frozen=True, slots=True)
class DeleteFile(Body):
    """DELETE_FILE_EVENT: the load of file `file_id` failed on the master; nothing to load."""

    TYPE_CODE: ClassVar[int] = EventType.DELETE_FILE_EVENT
    _WIRE: ClassVar[Construct] = Struct("file_id" / Int32ul, Terminated)
    file_id: int


@dataclass(frozen=True, slots=True)
class ExecuteLoadQuery(Body):
    """EXECUTE_LOAD_QUERY_EVENT: a QUERY whose statement loads file `file_id`. Bytes
    [fn_pos_start, fn_pos_end) of the statement are the master's " LOCAL INFILE 'name' [REPLACE |
    IGNORE]", which the slave replaces with its own copy of the file (`statement`)."""

    TYPE_CODE: ClassVar[int] = EventType.EXECUTE_LOAD_QUERY_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        *Query._WIRE.subcons[:5],  # QUERY's post-header, then this event's
        "file_id" / Int32ul,
        "fn_pos_start" / Int32ul,
        "fn_pos_end" / Int32ul,
        "dup_handling" / Int8ul,
        *Query._WIRE.subcons[5:],
    )
    thread_id: int = 0
    exec_time: int = 0
    error_code: int = 0
    file_id: int = 0
    fn_pos_start: int = 0
    fn_pos_end: int = 0
    dup_handling: int = LOAD_DUP_ERROR
    db: str = ""
    query: str = ""
    status_vars: bytes = b""

    def _to_wire(self) -> dict[str, Any]:
        return {**{name: getattr(self, name) for name in _field_names(type(self))},
                "db": _text(self.db), "query": _text(self.query)}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> ExecuteLoadQuery:
        p = _parse(cls._WIRE, body, "EXECUTE_LOAD_QUERY_EVENT")
        if not p.fn_pos_start <= p.fn_pos_end <= len(p.query):
            raise RemoteProtocolError("corrupt EXECUTE_LOAD_QUERY_EVENT: file name offsets outside its statement")
        return cls(p.thread_id, p.exec_time, p.error_code, p.file_id, p.fn_pos_start, p.fn_pos_end,
                   p.dup_handling, _s(p.db), _s(p.query), bytes(p.status_vars))

    def statement(self, file_name: str) -> str:
        """The statement that loads `file_name` as the slave runs it (MariaDB's
        Execute_load_query_log_event::do_apply_event): the master's file part, LOCAL with it,
        replaced by INFILE 'file_name', the duplicate handling the master decided on and INTO."""
        query = _text(self.query)
        own = b" INFILE " + _text(_quoted(file_name)) + _LOAD_DUP_WORDS.get(self.dup_handling, b"") + b" INTO"
        return _s(query[:self.fn_pos_start] + own + query[self.fn_pos_end:])

    @property
    def status(self) -> QueryStatus:
        return decode_status_vars(self.status_vars)


def _quoted(text: str) -> str:
    """A string literal of `text` (a file name)."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True, slots=True)
class Xid(Body):
    """XID_EVENT: COMMIT of a transaction on a transactional engine."""

    TYPE_CODE: ClassVar[int] = EventType.XID_EVENT
    _WIRE: ClassVar[Construct] = Struct("xid" / Int64ul, Terminated)
    xid: int


INTVAR_LAST_INSERT_ID = 1
INTVAR_INSERT_ID = 2


@dataclass(frozen=True, slots=True)
class Intvar(Body):
    """INTVAR_EVENT: LAST_INSERT_ID (1) or INSERT_ID (2) for the next statement."""

    TYPE_CODE: ClassVar[int] = EventType.INTVAR_EVENT
    _WIRE: ClassVar[Construct] = Struct("type" / Int8ul, "value" / Int64ul, Terminated)
    type: int
    value: int


@dataclass(frozen=True, slots=True)
class Rand(Body):
    """RAND_EVENT: the seeds of RAND() for the next statement."""

    TYPE_CODE: ClassVar[int] = EventType.RAND_EVENT
    _WIRE: ClassVar[Construct] = Struct("seed1" / Int64ul, "seed2" / Int64ul, Terminated)
    seed1: int
    seed2: int


# USER_VAR value types (Item_result)
STRING_RESULT = 0
REAL_RESULT = 1
INT_RESULT = 2
ROW_RESULT = 3
DECIMAL_RESULT = 4
USER_VAR_UNSIGNED_F = 0x01


@dataclass(frozen=True, slots=True)
class UserVar(Body):
    """USER_VAR_EVENT: `SET @name = value` for the next statement. `value` is the raw binary value
    (8-byte LE for INT/REAL, bytes for STRING, MySQL's packed decimal for DECIMAL). `flags` (None:
    absent, as in old servers) carries UNSIGNED_F."""

    TYPE_CODE: ClassVar[int] = EventType.USER_VAR_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        "name_len" / Rebuild(Int32ul, len_(this.name)),
        "name" / Bytes(this.name_len),
        "is_null" / Flag,
        "rest"
        / If(
            this.is_null == 0,
            Struct(
                "type" / Int8ul,
                "charset" / Int32ul,
                "value_len" / Rebuild(Int32ul, len_(this.value)),
                "value" / Bytes(this.value_len),
                "flags" / GreedyBytes,
            ),
        ),
        Terminated,
    )
    name: str
    is_null: bool = False
    type: int = STRING_RESULT
    charset: int = 33
    value: bytes = b""
    flags: int | None = 0

    def _to_wire(self) -> dict[str, Any]:
        rest = None
        if not self.is_null:
            flags = b"" if self.flags is None else bytes([self.flags])
            rest = {"type": self.type, "charset": self.charset, "value": self.value, "flags": flags}
        return {"name": _text(self.name), "is_null": self.is_null, "rest": rest}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> UserVar:
        p = _parse(cls._WIRE, body, "USER_VAR_EVENT")
        if p.is_null:
            return cls(_s(p.name), True, STRING_RESULT, 0, b"", None)
        r = p.rest
        if len(r.flags) > 1:
            raise RemoteProtocolError("corrupt USER_VAR_EVENT: trailing bytes after the flags")
        flags = r.flags[0] if r.flags else None
        return cls(_s(p.name), False, r.type, r.charset, bytes(r.value), flags)


BINARY_CHARSET = 63  # a STRING_RESULT in this charset is bytes, not text
_DIG_PER_DEC = 9
_DIG_TO_BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def decode_packed_decimal(data: bytes | memoryview, pos: int, precision: int, scale: int) -> tuple[Decimal, int]:
    """MySQL's packed DECIMAL (decimal2bin) at `pos`: groups of 9 digits in 4 bytes big-endian,
    sign in the top bit, negative numbers stored with every bit inverted. Returns the value and
    the offset after it; RemoteProtocolError when the bytes are short."""
    intg = precision - scale
    size = (intg // _DIG_PER_DEC) * 4 + _DIG_TO_BYTES[intg % _DIG_PER_DEC]
    size += (scale // _DIG_PER_DEC) * 4 + _DIG_TO_BYTES[scale % _DIG_PER_DEC]
    end = pos + size
    if size == 0 or end > len(data):
        raise RemoteProtocolError(f"truncated DECIMAL({precision},{scale})")
    buf = bytearray(data[pos:end])
    negative = not buf[0] & 0x80
    buf[0] ^= 0x80
    if negative:
        buf = bytearray(b ^ 0xFF for b in buf)
    off = 0
    digits = ""

    def take(nbytes: int, ndigits: int) -> str:
        nonlocal off
        v = int.from_bytes(buf[off : off + nbytes], "big")
        off += nbytes
        return str(v).rjust(ndigits, "0")

    lead = intg % _DIG_PER_DEC
    if lead:
        digits += take(_DIG_TO_BYTES[lead], lead)
    for _ in range(intg // _DIG_PER_DEC):
        digits += take(4, 9)
    frac = ""
    for _ in range(scale // _DIG_PER_DEC):
        frac += take(4, 9)
    tail = scale % _DIG_PER_DEC
    if tail:
        frac += take(_DIG_TO_BYTES[tail], tail)
    text = (digits.lstrip("0") or "0") + ("." + frac if scale else "")
    return Decimal(("-" if negative else "") + text), end


def encode_packed_decimal(value: Decimal) -> tuple[int, int, bytes]:
    """`value` as MySQL's packed DECIMAL (`decode_packed_decimal`'s inverse) of its own digits:
    (precision, scale, bytes), precision at least 1 (0.5 is DECIMAL(1,1))."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int), "a finite Decimal"
    text = "".join(map(str, digits))
    scale = max(-exponent, 0)
    text = text + "0" * max(exponent, 0)
    intg_text = text[:len(text) - scale] if scale < len(text) else ""
    frac_text = text[len(text) - scale:] if scale else ""
    frac_text = frac_text.rjust(scale, "0")
    intg_text = intg_text.lstrip("0")
    intg = len(intg_text)
    out = bytearray()
    lead = intg % _DIG_PER_DEC
    if lead:
        out += int(intg_text[:lead]).to_bytes(_DIG_TO_BYTES[lead], "big")
    for at in range(lead, intg, _DIG_PER_DEC):
        out += int(intg_text[at:at + _DIG_PER_DEC]).to_bytes(4, "big")
    whole = scale - scale % _DIG_PER_DEC
    for at in range(0, whole, _DIG_PER_DEC):
        out += int(frac_text[at:at + _DIG_PER_DEC]).to_bytes(4, "big")
    if scale % _DIG_PER_DEC:
        out += int(frac_text[whole:]).to_bytes(_DIG_TO_BYTES[scale % _DIG_PER_DEC], "big")
    if not out:  # 0: one digit
        intg, out = 1, bytearray(1)
    if sign and any(out):
        out = bytearray(b ^ 0xFF for b in out)
    out[0] ^= 0x80
    return intg + scale, scale, bytes(out)


def user_var_value(body: UserVar, errors: str = "surrogateescape") -> object:
    """The value a USER_VAR_EVENT sets: None, int (signed, or unsigned with UNSIGNED_F), float,
    Decimal (value = precision, scale, packed decimal), bytes (binary strings) or str (other
    strings, decoded as UTF-8 with `errors`)."""
    if body.is_null:
        return None
    value = body.value
    if body.type == INT_RESULT:
        return int.from_bytes(value[:8], "little", signed=not (body.flags or 0) & USER_VAR_UNSIGNED_F)
    if body.type == REAL_RESULT:
        return _unpack_double(value[:8])[0]
    if body.type == DECIMAL_RESULT:
        if len(value) < 2:
            raise RemoteProtocolError("corrupt USER_VAR_EVENT: DECIMAL without precision and scale")
        return decode_packed_decimal(value, 2, value[0], value[1])[0]
    if body.type == STRING_RESULT and body.charset == BINARY_CHARSET:
        return bytes(value)
    return bytes(value).decode("utf-8", errors)


_unpack_double = struct.Struct("<d").unpack


@dataclass(frozen=True, slots=True)
class Stop(Body):
    """STOP_EVENT: the server shut down cleanly; the binlog ends here."""

    TYPE_CODE: ClassVar[int] = EventType.STOP_EVENT
    _WIRE: ClassVar[Construct] = Struct(Terminated)

    def _to_wire(self) -> dict[str, Any]:
        return {}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Stop:
        _parse(cls._WIRE, body, "STOP_EVENT")
        return cls()


@dataclass(frozen=True, slots=True)
class Heartbeat(Body):
    """HEARTBEAT_LOG_EVENT (27): the master is alive; `log_ident` is its current binlog and the
    header's log_pos its position. Decoded from HEARTBEAT_LOG_EVENT_V2 (41) too (`position` set)."""

    TYPE_CODE: ClassVar[int] = EventType.HEARTBEAT_LOG_EVENT
    _WIRE: ClassVar[Construct] = Struct("log_ident" / _Text(GreedyBytes))
    log_ident: str
    position: int | None = None

    def _to_wire(self) -> dict[str, Any]:
        return {"log_ident": self.log_ident}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Heartbeat:
        if header.type_code == EventType.HEARTBEAT_LOG_EVENT_V2:
            return _decode_heartbeat_v2(body)
        return cls(_parse(cls._WIRE, body, "HEARTBEAT_LOG_EVENT").log_ident)


# HEARTBEAT_LOG_EVENT_V2 (MySQL 8.0.26+): type/length/value fields, type and length
# length-encoded, the position a length-encoded integer inside its value, unknown types skipped,
# type 0 ends the list (MySQL's libbinlogevents codec).
_HB_V2_FIELD = Struct("type" / LenEncInt, "length" / LenEncInt, "value" / Bytes(this.length))
_HB_V2_LOG_FILENAME = 1
_HB_V2_LOG_POSITION = 2


def _decode_heartbeat_v2(body: memoryview) -> Heartbeat:
    reader = _Reader(body, 0)
    ident, position = "", None
    try:
        while reader.pos < len(body):
            if body[reader.pos] == 0:  # end mark
                break
            f = _HB_V2_FIELD.parse_stream(reader)
            if f.type == _HB_V2_LOG_FILENAME:
                ident = _s(f.value)
            elif f.type == _HB_V2_LOG_POSITION:
                position = LenEncInt.parse(f.value)
    except _PARSE_ERRORS as e:
        raise RemoteProtocolError(f"corrupt HEARTBEAT_LOG_EVENT_V2: {e}") from None
    return Heartbeat(ident, position)


# MariaDB GTID flags2
FL_STANDALONE = 0x01
FL_GROUP_COMMIT_ID = 0x02
FL_TRANSACTIONAL = 0x04
FL_ALLOW_PARALLEL = 0x08
FL_WAITED = 0x10
FL_DDL = 0x20
FL_PREPARED_XA = 0x40
FL_COMPLETED_XA = 0x80
# MariaDB GTID flags_extra (the byte after the flags2-dependent fields, when present)
FL_EXTRA_MULTI_ENGINE = 0x01  # extra_engines follows: the other 2PC engines (255 for an XA PREPARE)
FL_START_ALTER = 0x02  # binlog_alter_two_phase: the START ALTER of a two-phase ALTER
FL_COMMIT_ALTER = 0x04  # ... its COMMIT ALTER; sa_seq_no (the START ALTER's seq_no) follows
FL_ROLLBACK_ALTER = 0x08  # ... its ROLLBACK ALTER; sa_seq_no follows
_FL_EXTRA_KNOWN = FL_EXTRA_MULTI_ENGINE | FL_START_ALTER | FL_COMMIT_ALTER | FL_ROLLBACK_ALTER
# MariaDB's GTID_HEADER_LEN: a GTID body shorter than this is zero-padded to it.
GTID_HEADER_LEN = 19

_GTID_EXTRA_WIRE = Struct(
    "flags_extra" / Int8ul,
    "extra_engines" / If(this.flags_extra & FL_EXTRA_MULTI_ENGINE, Int8ul),
    "sa_seq_no" / If(this.flags_extra & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER), Int64ul),
    "rest" / GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class MariaGtid(Body):
    """MariaDB GTID_EVENT (162): starts an event group; the GTID is domain-server-seq (server_id
    from the header). As MariaDB 10.11 writes it (sql/log_event.cc, Gtid_log_event): seq_no,
    domain_id, flags2; `commit_id` iff flags2 has FL_GROUP_COMMIT_ID; then `xa_xid` (format_id,
    gtrid_len, bqual_len, data) iff FL_PREPARED_XA or FL_COMPLETED_XA; then, only when non-zero,
    the `flags_extra` byte with `extra_engines` (FL_EXTRA_MULTI_ENGINE) and `sa_seq_no`
    (FL_COMMIT_ALTER / FL_ROLLBACK_ALTER); a body shorter than GTID_HEADER_LEN is zero-padded to
    it. `extra` is whatever follows (after the padding), kept raw; with flags_extra bits this
    module does not know, everything after the known fields is `extra` (no padding rule)."""

    TYPE_CODE: ClassVar[int] = EventType.GTID_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        "seq_no" / Int64ul,
        "domain_id" / Int32ul,
        "flags2" / Int8ul,
        "commit_id" / If(this.flags2 & FL_GROUP_COMMIT_ID, Int64ul),
        "xa_xid"
        / If(
            this.flags2 & (FL_PREPARED_XA | FL_COMPLETED_XA),
            Struct(
                "format_id" / Int32ul,
                "gtrid_len" / Int8ul,
                "bqual_len" / Int8ul,
                "data" / Bytes(this.gtrid_len + this.bqual_len),
            ),
        ),
        "tail" / GreedyBytes,  # flags_extra and its fields (_GTID_EXTRA_WIRE), padding, extra
    )
    seq_no: int
    domain_id: int = 0
    flags2: int = 0
    commit_id: int | None = None
    xa_xid: tuple[int, int, int, bytes] | None = None
    extra: bytes = b""
    flags_extra: int = 0
    extra_engines: int | None = None
    sa_seq_no: int | None = None

    def _to_wire(self) -> dict[str, Any]:
        if bool(self.flags2 & FL_GROUP_COMMIT_ID) != (self.commit_id is not None):
            raise LocalProtocolError("MariaGtid: commit_id must be given iff flags2 has FL_GROUP_COMMIT_ID")
        if bool(self.flags2 & (FL_PREPARED_XA | FL_COMPLETED_XA)) != (self.xa_xid is not None):
            raise LocalProtocolError("MariaGtid: xa_xid must be given iff flags2 has an XA flag")
        if bool(self.flags_extra & FL_EXTRA_MULTI_ENGINE) != (self.extra_engines is not None):
            raise LocalProtocolError("MariaGtid: extra_engines must be given iff flags_extra has FL_EXTRA_MULTI_ENGINE")
        if bool(self.flags_extra & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER)) != (self.sa_seq_no is not None):
            raise LocalProtocolError("MariaGtid: sa_seq_no must be given iff flags_extra has FL_COMMIT_ALTER/FL_ROLLBACK_ALTER")
        xa = None
        if self.xa_xid is not None:
            fmt, g, b, data = self.xa_xid
            xa = {"format_id": fmt, "gtrid_len": g, "bqual_len": b, "data": data}
        fixed = {"seq_no": self.seq_no, "domain_id": self.domain_id, "flags2": self.flags2,
                 "commit_id": self.commit_id, "xa_xid": xa, "tail": b""}
        fixed_len = len(_build(self._WIRE, fixed, "MariaGtid"))
        tail = b""
        if self.flags_extra:
            tail = _build(_GTID_EXTRA_WIRE, {"flags_extra": self.flags_extra, "extra_engines": self.extra_engines,
                                             "sa_seq_no": self.sa_seq_no, "rest": b""}, "MariaGtid flags_extra")
        elif self.extra[:1] not in (b"", b"\x00") and fixed_len >= GTID_HEADER_LEN:
            # a reader takes the first byte after the fields for flags_extra
            raise LocalProtocolError("MariaGtid: extra after the fields must start with a zero byte without flags_extra")
        if not self.flags_extra & ~_FL_EXTRA_KNOWN:
            tail += bytes(max(0, GTID_HEADER_LEN - fixed_len - len(tail)))
        return {**fixed, "tail": tail + self.extra}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> MariaGtid:
        p = _parse(cls._WIRE, body, "GTID_EVENT")
        xa = None if p.xa_xid is None else (p.xa_xid.format_id, p.xa_xid.gtrid_len, p.xa_xid.bqual_len, bytes(p.xa_xid.data))
        if xa is not None and len(xa[3]) != xa[1] + xa[2]:  # construct's compiled Bytes(n) reads short
            raise RemoteProtocolError("corrupt GTID_EVENT: the XA xid runs past the event")
        tail = bytes(p.tail)
        flags_extra, engines, sa_seq_no = 0, None, None
        if tail[:1] not in (b"", b"\x00"):
            e = _parse(_GTID_EXTRA_WIRE, tail, "GTID_EVENT flags_extra")
            flags_extra, engines, sa_seq_no, tail = e.flags_extra, e.extra_engines, e.sa_seq_no, bytes(e.rest)
        if not flags_extra & ~_FL_EXTRA_KNOWN:
            pad = max(0, GTID_HEADER_LEN - (len(body) - len(tail)))
            if len(tail) < pad or any(tail[:pad]):
                raise RemoteProtocolError("corrupt GTID_EVENT: shorter than 19 bytes or non-zero padding")
            tail = tail[pad:]
        return cls(p.seq_no, p.domain_id, p.flags2, p.commit_id, xa, tail, flags_extra, engines, sa_seq_no)

    def gtid(self, server_id: int) -> str:
        return f"{self.domain_id}-{server_id}-{self.seq_no}"


@dataclass(frozen=True, slots=True)
class Gtid:
    domain_id: int
    server_id: int
    seq_no: int

    def __str__(self) -> str:
        return f"{self.domain_id}-{self.server_id}-{self.seq_no}"


_GTID_WIRE = Struct("domain_id" / Int32ul, "server_id" / Int32ul, "seq_no" / Int64ul)


@dataclass(frozen=True, slots=True)
class GtidList(Body):
    """MariaDB GTID_LIST_EVENT (163): the binlog state (last GTID per domain/server) at this point.
    The count's top 4 bits are flags (`list_flags`). `extra`: bytes after the list, kept raw
    (MariaDB 10.11 pads an empty list with two zero bytes)."""

    TYPE_CODE: ClassVar[int] = EventType.GTID_LIST_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        "count_and_flags" / Int32ul,
        "gtids" / Array(this.count_and_flags & 0x0FFFFFFF, _GTID_WIRE),
        "extra" / GreedyBytes,
    )
    gtids: tuple[Gtid, ...] = ()
    list_flags: int = 0
    extra: bytes = b""

    def _to_wire(self) -> dict[str, Any]:
        if len(self.gtids) > 0x0FFFFFFF or not 0 <= self.list_flags < 16:
            raise LocalProtocolError("GtidList: too many GTIDs or bad flags")
        return {
            "count_and_flags": len(self.gtids) | (self.list_flags << 28),
            "gtids": [{"domain_id": g.domain_id, "server_id": g.server_id, "seq_no": g.seq_no} for g in self.gtids],
            "extra": self.extra,
        }

    @classmethod
    def of(cls, gtids: tuple[Gtid, ...], list_flags: int = 0) -> GtidList:
        """The event MariaDB 10.11 writes for `gtids`: an empty list is followed by two zero
        bytes (seen in every file it starts), a non-empty one by nothing."""
        return cls(gtids, list_flags, b"" if gtids else bytes(2))

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> GtidList:
        p = _parse(cls._WIRE, body, "GTID_LIST_EVENT")
        gtids = tuple(Gtid(g.domain_id, g.server_id, g.seq_no) for g in p.gtids)
        return cls(gtids, p.count_and_flags >> 28, bytes(p.extra))


@dataclass(frozen=True, slots=True)
class BinlogCheckpoint(Body):
    """MariaDB BINLOG_CHECKPOINT_EVENT (161): crash recovery needs binlogs from `file` on."""

    TYPE_CODE: ClassVar[int] = EventType.BINLOG_CHECKPOINT_EVENT
    _WIRE: ClassVar[Construct] = Struct(
        "file_len" / Rebuild(Int32ul, len_(this.file)), "file" / Bytes(this.file_len), Terminated
    )
    file: str

    def _to_wire(self) -> dict[str, Any]:
        return {"file": _text(self.file)}

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> BinlogCheckpoint:
        p = _parse(cls._WIRE, body, "BINLOG_CHECKPOINT_EVENT")
        if len(p.file) != p.file_len:  # construct's compiled Bytes(n) reads short
            raise RemoteProtocolError("corrupt BINLOG_CHECKPOINT_EVENT: the file name runs past the event")
        return cls(_s(p.file))


@dataclass(frozen=True, slots=True)
class AnnotateRows(Body):
    """MariaDB ANNOTATE_ROWS_EVENT (160): the statement behind the following row events."""

    TYPE_CODE: ClassVar[int] = EventType.ANNOTATE_ROWS_EVENT
    _WIRE: ClassVar[Construct] = Struct("query" / _Text(GreedyBytes))
    query: str


_TABLE_MAP_WIRE = Struct(
    "table_id" / Int48ul,
    "flags" / Int16ul,
    "db_len" / Rebuild(Int8ul, len_(this.db)),
    "db" / Bytes(this.db_len),
    Const(b"\x00"),
    "table_len" / Rebuild(Int8ul, len_(this.table)),
    "table" / Bytes(this.table_len),
    Const(b"\x00"),
    "column_count" / Rebuild(LenEncInt, len_(this.column_types)),
    "column_types" / Bytes(this.column_count),
    "metadata_len" / Rebuild(LenEncInt, len_(this.metadata)),
    "metadata" / Bytes(this.metadata_len),
    "null_bitmap" / Bytes((this.column_count + 7) // 8),
    "optional_metadata" / GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class TableMap(Body):
    """TABLE_MAP_EVENT (19): binds a table id to db.table and its column types for row events."""

    TYPE_CODE: ClassVar[int] = EventType.TABLE_MAP_EVENT
    _WIRE: ClassVar[Construct] = _TABLE_MAP_WIRE
    table_id: int
    flags: int
    db: str
    table: str
    column_types: bytes
    metadata: bytes = b""
    null_bitmap: bytes = b""
    optional_metadata: bytes = b""

    def _to_wire(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "flags": self.flags,
            "db": _text(self.db),
            "table": _text(self.table),
            "column_types": self.column_types,
            "metadata": self.metadata,
            "null_bitmap": self.null_bitmap,
            "optional_metadata": self.optional_metadata,
        }

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> TableMap:
        p = _parse(cls._WIRE, body, "TABLE_MAP_EVENT")
        return cls(
            p.table_id, p.flags, _s(p.db), _s(p.table), bytes(p.column_types),
            bytes(p.metadata), bytes(p.null_bitmap), bytes(p.optional_metadata),
        )


# TABLE_MAP optional metadata (MySQL 8.0 / MariaDB 10.5 binlog_row_metadata): TLV fields, each a
# type byte, a lenenc length and the value.
TABLE_MAP_SIGNEDNESS = 1  # a bit per numeric column, most significant first: 1 = UNSIGNED
TABLE_MAP_DEFAULT_CHARSET = 2  # the most common collation, then (character column, collation) exceptions
TABLE_MAP_COLUMN_CHARSET = 3  # each character column's collation
TABLE_MAP_COLUMN_NAME = 4  # each column's name as a lenenc string
# The column types the SIGNEDNESS bitmap has a bit for (MariaDB counts YEAR among them).
_NUMERIC_TYPES = frozenset({0, 1, 2, 3, 4, 5, 8, 9, 13, 246})  # DECIMAL TINY SHORT LONG FLOAT DOUBLE LONGLONG INT24 YEAR NEWDECIMAL


@dataclass(frozen=True, slots=True)
class TableMapMetadata:
    """What a TABLE_MAP's optional metadata says of its columns (None: not logged; the server
    logs them with binlog_row_metadata=MINIMAL (signedness) or FULL (names too))."""

    unsigned: tuple[bool, ...] | None = None  # per column; False for non-numeric columns
    names: tuple[str, ...] | None = None
    # The collation ids of the character columns (CHAR, VARCHAR, TEXT/BLOB: not ENUM/SET), by
    # their index among those columns: `collations.get(k, default_collation)`.
    default_collation: int | None = None
    collations: dict[int, int] = field(default_factory=dict)


def table_map_metadata(tm: TableMap) -> TableMapMetadata:
    """Decode a TABLE_MAP's optional metadata: the fields this reader uses (signedness, column
    names, the character columns' collations); others are skipped by their length.
    RemoteProtocolError when a field is truncated or does not match the column count."""
    data = memoryview(tm.optional_metadata)
    ncols = len(tm.column_types)
    unsigned: tuple[bool, ...] | None = None
    names: tuple[str, ...] | None = None
    default: int | None = None
    collations: dict[int, int] = {}
    pos = 0
    while pos < len(data):
        kind = data[pos]
        length, start = decode_lenenc_int(data, pos + 1)
        end = start + (length or 0)
        if end > len(data):
            raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: truncated optional metadata field {kind}")
        value = data[start:end]
        if kind == TABLE_MAP_SIGNEDNESS:
            numeric = [code in _NUMERIC_TYPES for code in tm.column_types]
            if len(value) * 8 < sum(numeric):
                raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: SIGNEDNESS shorter than its numeric columns")
            bits, n = [], 0
            for is_numeric in numeric:
                bits.append(is_numeric and bool(value[n >> 3] & (0x80 >> (n & 7))))
                n += is_numeric
            unsigned = tuple(bits)
        elif kind == TABLE_MAP_COLUMN_NAME:
            found, at = [], 0
            while at < len(value):
                size, at = decode_lenenc_int(value, at)
                if size is None or at + size > len(value):
                    raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: truncated column name")
                found.append(_s(bytes(value[at : at + size])))
                at += size
            if len(found) != ncols:
                raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: {len(found)} column names for {ncols} columns")
            names = tuple(found)
        elif kind in (TABLE_MAP_DEFAULT_CHARSET, TABLE_MAP_COLUMN_CHARSET):
            numbers, at = [], 0
            while at < len(value):
                number, at = decode_lenenc_int(value, at)
                numbers.append(number or 0)
            if kind == TABLE_MAP_COLUMN_CHARSET:
                collations = dict(enumerate(numbers))
            elif numbers and len(numbers) % 2:
                default, collations = numbers[0], dict(zip(numbers[1::2], numbers[2::2], strict=True))
            else:
                raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: DEFAULT_CHARSET without its pairs")
        pos = end
    return TableMapMetadata(unsigned, names, default, collations)


ROWS_V1_TYPES = frozenset({EventType.WRITE_ROWS_EVENT_V1, EventType.UPDATE_ROWS_EVENT_V1, EventType.DELETE_ROWS_EVENT_V1})
ROWS_V2_TYPES = frozenset({EventType.WRITE_ROWS_EVENT, EventType.UPDATE_ROWS_EVENT, EventType.DELETE_ROWS_EVENT})
ROWS_STMT_END_F = 0x0001

_ROWS_V1_WIRE = Struct("table_id" / Int48ul, "flags" / Int16ul, "rows" / GreedyBytes)
_ROWS_V2_WIRE = Struct(
    "table_id" / Int48ul,
    "flags" / Int16ul,
    "extra_len" / Rebuild(Int16ul, len_(this.extra) + 2),
    "extra" / Bytes(this.extra_len - 2),
    "rows" / GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class Rows(Body):
    """WRITE/UPDATE/DELETE_ROWS (v1: 23-25, v2: 30-32). Only the post-header is decoded; `rows`
    (column count, bitmaps, row images) stays raw. `extra` is v2's extra data (None for v1)."""

    TYPE_CODE: ClassVar[int] = EventType.WRITE_ROWS_EVENT
    type_code: int
    table_id: int
    flags: int
    rows: bytes
    extra: bytes | None = None

    def encode(self) -> bytes:
        if self.type_code in ROWS_V1_TYPES:
            wire, data = _ROWS_V1_WIRE, {"table_id": self.table_id, "flags": self.flags, "rows": self.rows}
        elif self.type_code in ROWS_V2_TYPES:
            wire = _ROWS_V2_WIRE
            data = {"table_id": self.table_id, "flags": self.flags, "extra": self.extra or b"", "rows": self.rows}
        else:
            raise LocalProtocolError(f"Rows: {type_name(self.type_code)} is not a rows event type")
        return _build(wire, data, "Rows")

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Rows:
        if header.type_code in ROWS_V1_TYPES:
            p = _parse(_ROWS_V1_WIRE, body, type_name(header.type_code))
            return cls(header.type_code, p.table_id, p.flags, bytes(p.rows), None)
        p = _parse(_ROWS_V2_WIRE, body, type_name(header.type_code))
        return cls(header.type_code, p.table_id, p.flags, bytes(p.rows), bytes(p.extra))


@dataclass(frozen=True, slots=True)
class Unknown(Body):
    """Any event type we do not decode: the body bytes as they are."""

    TYPE_CODE: ClassVar[int] = EventType.UNKNOWN_EVENT
    data: bytes

    def encode(self) -> bytes:
        return self.data

    @classmethod
    def _decode(cls, body: memoryview, header: EventHeader) -> Unknown:
        return cls(bytes(body))


_BODIES: dict[int, type[Body]] = {
    EventType.FORMAT_DESCRIPTION_EVENT: FormatDescription,
    EventType.ROTATE_EVENT: Rotate,
    EventType.QUERY_EVENT: Query,
    EventType.XID_EVENT: Xid,
    EventType.INTVAR_EVENT: Intvar,
    EventType.RAND_EVENT: Rand,
    EventType.USER_VAR_EVENT: UserVar,
    EventType.STOP_EVENT: Stop,
    EventType.HEARTBEAT_LOG_EVENT: Heartbeat,
    EventType.HEARTBEAT_LOG_EVENT_V2: Heartbeat,
    EventType.GTID_EVENT: MariaGtid,
    EventType.GTID_LIST_EVENT: GtidList,
    EventType.BINLOG_CHECKPOINT_EVENT: BinlogCheckpoint,
    EventType.ANNOTATE_ROWS_EVENT: AnnotateRows,
    EventType.TABLE_MAP_EVENT: TableMap,
    EventType.BEGIN_LOAD_QUERY_EVENT: BeginLoadQuery,
    EventType.APPEND_BLOCK_EVENT: AppendBlock,
    EventType.DELETE_FILE_EVENT: DeleteFile,
    EventType.EXECUTE_LOAD_QUERY_EVENT: ExecuteLoadQuery,
    **{t: Rows for t in ROWS_V1_TYPES | ROWS_V2_TYPES},
}


# ---------------------------------------------------------------------------------------------
# Whole events
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Event:
    """A decoded event: its header, typed body, and the raw bytes it came from."""

    header: EventHeader
    body: Body
    raw: bytes = field(repr=False)

    @property
    def type_code(self) -> int:
        return self.header.type_code

    @property
    def log_pos(self) -> int:
        return self.header.log_pos


def decode_event(event: bytes | bytearray | memoryview, checksum: bool, *, verify: bool = True) -> Event:
    """Decode one whole event (exactly `event_size` bytes).

    `checksum`: the binlog checksum is CRC32 (from the binlog's FD, or the master's
    @@binlog_checksum) - the footer is verified and stripped. A FORMAT_DESCRIPTION_EVENT carries
    its own algorithm byte, which decides for it. Raises RemoteProtocolError on any corruption.
    `verify=False` strips a non-FD event's footer without checking it: only for bytes whose CRC32
    the caller itself checked (`event_checksum_ok`) and that were not stored since (an event just
    received, handed on in memory).
    The bodies a replica applies are read by their struct path (`_FAST_DECODE`), which gives up
    on anything but a well-formed body; the declaration (`decode_event_declared`) decides then,
    and is the reference the struct path is held equal to by tests.
    """
    return _decode_event(event, checksum, None, verify)


def decode_parts(event: bytes | bytearray | memoryview, checksum: bool, *, verify: bool = True,
                 bodies: dict[int, Callable[[memoryview, EventHeader], Body | None]] | None = None,
                 ) -> tuple[EventHeader, Body]:
    """`decode_event`'s header and body, without the `Event` and its copy of the bytes: for a
    reader that keeps neither the event nor its bytes (the applier, per event it applies). The
    same checks, the same errors. `bodies`: the struct decoders tried first (None: the struct
    path's, `_FAST_DECODE`; {}: every body by its declaration)."""
    # (`decode_header` and, for a non-FD event, `event_checksum_ok` inline: this runs for every
    # event a replica applies)
    mv = memoryview(event)
    try:
        header = _new_header(EventHeader, _unpack_header(mv, 0))
    except struct.error:
        raise RemoteProtocolError(f"truncated event header at offset 0: need {HEADER_LEN} bytes") from None
    n = len(mv)
    if header[3] != n:  # event_size
        raise RemoteProtocolError(
            f"{type_name(header.type_code)}: event_size {header.event_size} but {n} bytes"
        )
    if header[1] == TYPE_FD:
        fd = FormatDescription._decode(mv[HEADER_LEN:], header)
        if fd.checksum_alg not in (BINLOG_CHECKSUM_ALG_OFF, BINLOG_CHECKSUM_ALG_CRC32, BINLOG_CHECKSUM_ALG_UNDEF):
            raise RemoteProtocolError(f"FORMAT_DESCRIPTION_EVENT: unknown checksum algorithm {fd.checksum_alg}")
        if fd.checksum and not event_checksum_ok(mv):
            raise RemoteProtocolError("FORMAT_DESCRIPTION_EVENT: CRC32 mismatch")
        return header, fd
    if checksum:
        if n < HEADER_LEN + CHECKSUM_LEN:
            raise RemoteProtocolError(f"{type_name(header.type_code)}: too short for a CRC32 footer")
        body_mv = mv[HEADER_LEN:-CHECKSUM_LEN]
        if verify and _crc32(mv[:-CHECKSUM_LEN]) != _unpack_size(mv, n - CHECKSUM_LEN)[0]:
            raise RemoteProtocolError(f"{type_name(header.type_code)} at log_pos {header.log_pos}: CRC32 mismatch")
    else:
        body_mv = mv[HEADER_LEN:]
    decode = (_FAST_DECODE if bodies is None else bodies).get(header[1])
    body = None if decode is None else decode(body_mv, header)
    if body is None:
        body = _BODIES.get(header.type_code, Unknown)._decode(body_mv, header)
    return header, body


def decode_event_declared(event: bytes | bytearray | memoryview, checksum: bool) -> Event:
    """`decode_event` with every body parsed by its construct declaration: the reference."""
    return _decode_event(event, checksum, {}, True)


def _decode_event(event: bytes | bytearray | memoryview, checksum: bool,
                  fast: dict[int, Callable[[memoryview, EventHeader], Body | None]] | None, verify: bool) -> Event:
    header, body = decode_parts(event, checksum, verify=verify, bodies=fast)
    return Event(header, body, event if type(event) is bytes else bytes(event))


# ---------------------------------------------------------------------------------------------
# Body offsets for column-wise decoders (the pipeline reads these fields of many events at once
# with numpy and C instead of decoding each body): where each leading fixed-size field of a body
# starts, and the key of its first variable-size part, from the declarations above.
# ---------------------------------------------------------------------------------------------
def _leading_offsets(con: Struct) -> dict[str, int]:
    out, at = {}, 0
    for sc in con.subcons:
        out[sc.name] = at
        try:
            at += sc.sizeof()
        except (ConstructError, KeyError):  # a variable-size field: what follows has no fixed offset
            break
    return out


QUERY_FIELD_AT = _leading_offsets(Query._WIRE)  # ... "status_vars": the post-header's length
GTID_FIELD_AT = _leading_offsets(MariaGtid._WIRE)  # ... "commit_id" (or the padding)
GTID_PADDING_LEN = GTID_HEADER_LEN - GTID_FIELD_AT["commit_id"]  # a GTID without commit_id, XA or flags_extra
TABLE_MAP_FIELD_AT = _leading_offsets(_TABLE_MAP_WIRE)  # ... "db": the database name
ROWS_V1_FIELD_AT = _leading_offsets(_ROWS_V1_WIRE)  # ... "rows"
ROWS_V2_FIELD_AT = _leading_offsets(_ROWS_V2_WIRE)  # ... "extra" (extra_len counts itself)
XID_BODY_LEN = Xid._WIRE.subcons[0].sizeof()  # the xid, and nothing after it
# The value sizes of the fixed-size QUERY status variables (the code byte comes before each).
STATUS_VAR_LEN = {code: con.sizeof() for code, con in _STATUS_VAR_VALUES.items() if code in (Q_FLAGS2_CODE, Q_SQL_MODE_CODE)}


# ---------------------------------------------------------------------------------------------
# Peeks: what a replica's IO path decides on (is this QUERY a BEGIN/COMMIT? is this GTID
# standalone?), read in place from a whole event without building its body and without checking
# its CRC32 again: the caller framed the event and verified its footer already. The offsets come
# from the declarations above (`Query._WIRE`, `MariaGtid._WIRE`), not from a second layout.
# ---------------------------------------------------------------------------------------------
_QUERY_FIXED = fixed_struct(Query._WIRE.subcons[:5])
_QUERY_FIELDS = [sc.name for sc in Query._WIRE.subcons[:5]]
_QUERY_DB_LEN = _QUERY_FIELDS.index("db_len")
_QUERY_STATUS_LEN = _QUERY_FIELDS.index("status_vars_len")
_GTID_FLAGS2_AT = HEADER_LEN + sum(sc.sizeof() for sc in MariaGtid._WIRE.subcons[:2])
assert MariaGtid._WIRE.subcons[2].name == "flags2"


def query_text(event: bytes | bytearray | memoryview, checksum: bool) -> memoryview:
    """The statement bytes of a whole QUERY_EVENT (a view, no copy; `checksum`: the event ends
    in a CRC32 footer, which is not part of the text and is not verified here)."""
    mv = memoryview(event)
    end = len(mv) - (CHECKSUM_LEN if checksum else 0)
    try:
        fixed = _QUERY_FIXED.unpack_from(mv, HEADER_LEN)
    except struct.error:
        raise RemoteProtocolError("corrupt QUERY_EVENT: shorter than its post-header") from None
    start = HEADER_LEN + _QUERY_FIXED.size + fixed[_QUERY_STATUS_LEN] + fixed[_QUERY_DB_LEN] + 1
    if start > end or mv[start - 1] != 0:
        raise RemoteProtocolError("corrupt QUERY_EVENT: status variables or db run past the event")
    return mv[start:end]


def gtid_flags2(event: bytes | bytearray | memoryview) -> int:
    """The flags2 byte of a whole MariaDB GTID_EVENT (FL_STANDALONE, ...)."""
    if len(event) <= _GTID_FLAGS2_AT:
        raise RemoteProtocolError("corrupt GTID_EVENT: too short for flags2")
    return event[_GTID_FLAGS2_AT]


def gtid_fields(event: bytes | bytearray | memoryview) -> tuple[int, int, int]:
    """(seq_no, domain_id, flags2) of a whole MariaDB GTID_EVENT, read in place: what a reader
    that follows transaction boundaries needs, without building the body."""
    try:
        return _GTID_FIXED.unpack_from(event, HEADER_LEN)
    except struct.error:
        raise RemoteProtocolError("corrupt GTID_EVENT: too short for its fixed fields") from None


# ---------------------------------------------------------------------------------------------
# The struct path: the bodies a replica applies and a group commit writes (QUERY, GTID, XID,
# INTVAR, RAND, USER_VAR, TABLE_MAP, ROWS, ROTATE) read and built with `struct.Struct`s derived
# from the declarations above, not declared a second time. A decoder gives up (None) on anything
# but a well-formed body, an encoder (None) on any value it does not write as the declaration
# does: the declaration decides then, and raises what it raises. So the two paths agree on every
# input (tests/unit/test_events_fast.py holds them byte- and value-identical over our binlogs,
# MariaDB's and mutated events); construct stays the reference.
# ---------------------------------------------------------------------------------------------
def _then(con: Construct) -> Construct:
    """The construct a named `If` field holds when its condition is true."""
    return con.subcon.thensubcon


assert _QUERY_FIELDS == ["thread_id", "exec_time", "db_len", "error_code", "status_vars_len"]
_QUERY_POST_HEADER_LEN = _QUERY_FIXED.size
_FIXED_BODIES: dict[type, struct.Struct] = {cls: fixed_struct(cls._WIRE.subcons[:-1]) for cls in (Xid, Intvar, Rand)}
_GTID_FIXED = fixed_struct(MariaGtid._WIRE.subcons[:3])  # seq_no, domain_id, flags2
_GTID_COMMIT_ID = fixed_struct([_then(MariaGtid._WIRE.subcons[3])])
_GTID_XA = FL_PREPARED_XA | FL_COMPLETED_XA
_USER_VAR_NAME_LEN = fixed_struct(UserVar._WIRE.subcons[:1])
_USER_VAR_VALUE = fixed_struct(_then(UserVar._WIRE.subcons[3]).subcons[:3])  # type, charset, value_len
_USER_VAR_NAME_AT = _USER_VAR_NAME_LEN.size
_ROTATE_POSITION = fixed_struct(Rotate._WIRE.subcons[:1])
_TABLE_ID_LEN = _TABLE_MAP_WIRE.subcons[0].sizeof()
_U16 = fixed_struct(_TABLE_MAP_WIRE.subcons[1:2])  # a table map's and a rows event's flags, v2's extra_len
_LENENC_ONE_BYTE = 0xFB  # a lenenc int below this is its own single byte


def _decode_fixed(cls: type[Body]) -> Callable[[memoryview, EventHeader], Body | None]:
    layout = _FIXED_BODIES[cls]

    def decode(body: memoryview, header: EventHeader) -> Body | None:
        return cls(*layout.unpack_from(body)) if len(body) == layout.size else None

    return decode


def _encode_fixed(body: Body) -> bytes | None:
    try:
        return _FIXED_BODIES[type(body)].pack(*[getattr(body, name) for name in _field_names(type(body))])
    except struct.error:
        return None


def _decode_query(body: memoryview, header: EventHeader) -> Query | None:
    n = len(body)
    if n < _QUERY_POST_HEADER_LEN:
        return None
    thread_id, exec_time, db_len, error_code, status_vars_len = _QUERY_FIXED.unpack_from(body)
    db_at = _QUERY_POST_HEADER_LEN + status_vars_len
    nul = db_at + db_len
    if nul >= n or body[nul] != 0:
        return None
    # (`_s` of each text, without its frame and its copy of the bytes)
    return Query(thread_id, exec_time, error_code, str(body[db_at:nul], "utf-8", "surrogateescape"),
                 str(body[nul + 1 :], "utf-8", "surrogateescape"), bytes(body[_QUERY_POST_HEADER_LEN:db_at]))


def _encode_query(q: Query) -> bytes | None:
    status_vars = q.status_vars
    if type(status_vars) is not bytes:
        return None
    db = _text(q.db)
    try:
        head = _QUERY_FIXED.pack(q.thread_id, q.exec_time, len(db), q.error_code, len(status_vars))
    except struct.error:
        return None
    return b"".join((head, status_vars, db, b"\x00", _text(q.query)))


def _decode_gtid(body: memoryview, header: EventHeader) -> MariaGtid | None:
    n = len(body)
    if n < GTID_HEADER_LEN:
        return None
    seq_no, domain_id, flags2 = _GTID_FIXED.unpack_from(body)
    if flags2 & _GTID_XA:
        return None
    at = _GTID_FIXED.size
    commit_id = None
    if flags2 & FL_GROUP_COMMIT_ID:
        if n < at + _GTID_COMMIT_ID.size:
            return None
        commit_id = _GTID_COMMIT_ID.unpack_from(body, at)[0]
        at += _GTID_COMMIT_ID.size
    pad = GTID_HEADER_LEN - at if at < GTID_HEADER_LEN else 0
    if at < n and body[at] != 0:  # flags_extra: the declaration reads it
        return None
    if body[at : at + pad] != _GTID_PADDING[:pad]:  # (padding not all zero: the declaration decides)
        return None
    return MariaGtid(seq_no, domain_id, flags2, commit_id, None, bytes(body[at + pad :]))


def _encode_gtid(g: MariaGtid) -> bytes | None:
    if (g.xa_xid is not None or g.flags2 & _GTID_XA or g.flags_extra or g.extra or g.extra_engines is not None
            or g.sa_seq_no is not None or bool(g.flags2 & FL_GROUP_COMMIT_ID) != (g.commit_id is not None)):
        return None
    try:
        out = _GTID_FIXED.pack(g.seq_no, g.domain_id, g.flags2)
        if g.commit_id is not None:
            out += _GTID_COMMIT_ID.pack(g.commit_id)
    except struct.error:
        return None
    return out + bytes(max(0, GTID_HEADER_LEN - len(out)))


# -- bodies from their fields --------------------------------------------------------------------
# The struct paths of the bodies a committing server writes for every transaction (GTID, INTVAR,
# QUERY, XID), taking the fields themselves: no Body object per event. Held byte-identical to
# `Body.encode` of the same fields by tests/unit/test_events_fast.py.
_GTID_PADDING = bytes(GTID_HEADER_LEN - _GTID_FIXED.size)
_pack_query_fixed = _QUERY_FIXED.pack
_pack_gtid_fixed = _GTID_FIXED.pack
_pack_xid = _FIXED_BODIES[Xid].pack
_pack_intvar = _FIXED_BODIES[Intvar].pack


def query_body(thread_id: int, db: str, query: str, status_vars: bytes) -> bytes:
    """A QUERY_EVENT body (exec_time 0, error_code 0): `Query(thread_id, 0, 0, db, query,
    status_vars).encode()`."""
    try:  # (`_text` inline: its error raised by it below)
        name = db.encode("utf-8", "surrogateescape")
        text = query.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        name, text = _text(db), _text(query)
    try:
        head = _pack_query_fixed(thread_id, 0, len(name), 0, len(status_vars))
    except struct.error as e:
        raise LocalProtocolError(f"cannot encode QUERY_EVENT: {e}") from None
    return b"".join((head, status_vars, name, b"\x00", text))


def gtid_body(seq_no: int, domain_id: int, flags2: int) -> bytes:
    """A GTID_EVENT body without commit_id, XA xid or flags_extra: `MariaGtid(seq_no,
    domain_id, flags2).encode()`."""
    if flags2 & (FL_GROUP_COMMIT_ID | _GTID_XA):
        raise LocalProtocolError(f"gtid_body: flags2 {flags2:#x} asks for fields it does not write")
    try:
        return _pack_gtid_fixed(seq_no, domain_id, flags2) + _GTID_PADDING
    except struct.error as e:
        raise LocalProtocolError(f"cannot encode GTID_EVENT: {e}") from None


def xid_body(xid: int) -> bytes:
    """An XID_EVENT body: `Xid(xid).encode()`."""
    try:
        return _pack_xid(xid)
    except struct.error as e:
        raise LocalProtocolError(f"cannot encode XID_EVENT: {e}") from None


def intvar_body(kind: int, value: int) -> bytes:
    """An INTVAR_EVENT body: `Intvar(kind, value).encode()`."""
    try:
        return _pack_intvar(kind, value)
    except struct.error as e:
        raise LocalProtocolError(f"cannot encode INTVAR_EVENT: {e}") from None


def _decode_user_var(body: memoryview, header: EventHeader) -> UserVar | None:
    n = len(body)
    if n < _USER_VAR_NAME_AT:
        return None
    at = _USER_VAR_NAME_AT + _USER_VAR_NAME_LEN.unpack_from(body)[0]
    if at >= n:
        return None
    name = _s(body[_USER_VAR_NAME_AT:at])
    if body[at]:  # is_null
        return UserVar(name, True, STRING_RESULT, 0, b"", None) if at + 1 == n else None
    at += 1
    if n < at + _USER_VAR_VALUE.size:
        return None
    type_, charset, value_len = _USER_VAR_VALUE.unpack_from(body, at)
    at += _USER_VAR_VALUE.size
    end = at + value_len
    if end > n or n - end > 1:
        return None
    return UserVar(name, False, type_, charset, bytes(body[at:end]), body[end] if end < n else None)


def _encode_user_var(v: UserVar) -> bytes | None:
    if type(v.is_null) is not bool or type(v.value) is not bytes or not (v.flags is None or 0 <= v.flags <= 0xFF):
        return None
    name = _text(v.name)
    try:
        head = _USER_VAR_NAME_LEN.pack(len(name))
        if v.is_null:
            return b"".join((head, name, b"\x01"))
        value = _USER_VAR_VALUE.pack(v.type, v.charset, len(v.value))
    except struct.error:
        return None
    flags = b"" if v.flags is None else bytes((v.flags,))
    return b"".join((head, name, b"\x00", value, v.value, flags))


def _decode_table_map(body: memoryview, header: EventHeader) -> TableMap | None:
    n = len(body)
    db_at = TABLE_MAP_FIELD_AT["db"]
    if n < db_at:
        return None
    db_end = db_at + body[TABLE_MAP_FIELD_AT["db_len"]]
    table_at = db_end + 2
    if table_at > n or body[db_end] != 0:
        return None
    table_end = table_at + body[db_end + 1]
    if table_end + 2 > n or body[table_end] != 0 or body[table_end + 1] >= _LENENC_ONE_BYTE:
        return None
    types_at = table_end + 2
    types_end = types_at + body[table_end + 1]
    if types_end >= n or body[types_end] >= _LENENC_ONE_BYTE:
        return None
    meta_at = types_end + 1
    meta_end = meta_at + body[types_end]
    bitmap_end = meta_end + (types_end - types_at + 7) // 8
    if bitmap_end > n:
        return None
    return TableMap(
        int.from_bytes(body[:_TABLE_ID_LEN], "little"), _U16.unpack_from(body, TABLE_MAP_FIELD_AT["flags"])[0],
        _s(body[db_at:db_end]), _s(body[table_at:table_end]), bytes(body[types_at:types_end]),
        bytes(body[meta_at:meta_end]), bytes(body[meta_end:bitmap_end]), bytes(body[bitmap_end:]),
    )


def _decode_rows(body: memoryview, header: EventHeader) -> Rows | None:
    t = header.type_code
    n = len(body)
    if t in ROWS_V1_TYPES:
        at = ROWS_V1_FIELD_AT["rows"]
        extra = None
    else:
        at = ROWS_V2_FIELD_AT["extra"]
        if n < at:
            return None
        extra_len = _U16.unpack_from(body, ROWS_V2_FIELD_AT["extra_len"])[0]
        extra_end = at + extra_len - 2
        if extra_len < 2 or extra_end > n:
            return None
        extra = bytes(body[at:extra_end])
        at = extra_end
    if n < at:
        return None
    table_id = int.from_bytes(body[:_TABLE_ID_LEN], "little")
    return Rows(t, table_id, _U16.unpack_from(body, ROWS_V1_FIELD_AT["flags"])[0], bytes(body[at:]), extra)


def _decode_rotate(body: memoryview, header: EventHeader) -> Rotate | None:
    if len(body) < _ROTATE_POSITION.size:
        return None
    return Rotate(_ROTATE_POSITION.unpack_from(body)[0], _s(body[_ROTATE_POSITION.size :]))


_FAST_DECODE: dict[int, Callable[[memoryview, EventHeader], Body | None]] = {
    EventType.QUERY_EVENT: _decode_query,
    EventType.GTID_EVENT: _decode_gtid,
    EventType.XID_EVENT: _decode_fixed(Xid),
    EventType.INTVAR_EVENT: _decode_fixed(Intvar),
    EventType.RAND_EVENT: _decode_fixed(Rand),
    EventType.USER_VAR_EVENT: _decode_user_var,
    EventType.TABLE_MAP_EVENT: _decode_table_map,
    EventType.ROTATE_EVENT: _decode_rotate,
    **{t: _decode_rows for t in ROWS_V1_TYPES | ROWS_V2_TYPES},
}
_FAST_ENCODE: dict[type, Callable[[Any], bytes | None]] = {
    Query: _encode_query,
    MariaGtid: _encode_gtid,
    Xid: _encode_fixed,
    Intvar: _encode_fixed,
    Rand: _encode_fixed,
    UserVar: _encode_user_var,
}


def encode_event(
    type_code: int,
    body: bytes,
    *,
    timestamp: int,
    server_id: int,
    log_pos: int,
    flags: int = 0,
    checksum: bool,
) -> bytes:
    """Frame a body as an event: header (event_size computed) + body + CRC32 footer if `checksum`.
    A FORMAT_DESCRIPTION_EVENT always gets the CRC32 footer (MariaDB writes it even when the
    algorithm is OFF), computed with LOG_EVENT_BINLOG_IN_USE_F masked, as the server does."""
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        checksum = True
    size = HEADER_LEN + len(body) + (CHECKSUM_LEN if checksum else 0)
    try:
        head = _pack_header(timestamp, type_code, server_id, size, log_pos, flags)
    except struct.error as e:
        raise LocalProtocolError(f"cannot encode event header: {e}") from None
    event = head + body
    if type_code == EventType.FORMAT_DESCRIPTION_EVENT:
        return _seal(bytearray(event + bytes(CHECKSUM_LEN)))  # the in-use flag masked
    if checksum:
        event += zlib.crc32(event).to_bytes(4, "little")
    return event


def encode_events(
    specs: Iterable[tuple[int, bytes, int, int]], *, server_id: int, offset: int, checksum: bool
) -> list[tuple[int, bytes]]:
    """Events written one after another from byte `offset` of a binlog file: each spec
    (type_code, body, timestamp, flags) framed as `encode_event` frames it, with log_pos its end
    offset; returns (start offset, event) for each. Not for a FORMAT_DESCRIPTION_EVENT (its
    footer does not follow `checksum`: `encode_event` it alone). A list of specs is offered to
    the compiled twin first (`protocol._framing.encode_events`, a commit group's events in one
    call), which frames them as the loop below would or declines them all."""
    if _native_encode_events is not None and type(specs) is list:
        framed = _native_encode_events(specs, server_id, offset, checksum)
        if framed is not None:
            return framed
    return _encode_events_py(specs, server_id=server_id, offset=offset, checksum=checksum)


def _encode_events_py(
    specs: Iterable[tuple[int, bytes, int, int]], *, server_id: int, offset: int, checksum: bool
) -> list[tuple[int, bytes]]:
    footer = CHECKSUM_LEN if checksum else 0
    framing = HEADER_LEN + footer
    crc32 = zlib.crc32
    out: list[tuple[int, bytes]] = []
    end = offset
    for type_code, body, timestamp, flags in specs:
        if type_code == TYPE_FD:
            raise LocalProtocolError("encode_events: a FORMAT_DESCRIPTION_EVENT is encoded alone")
        start = end
        size = framing + len(body)
        end += size
        try:
            event = _pack_header(timestamp, type_code, server_id, size, end, flags) + body
        except struct.error as e:
            raise LocalProtocolError(f"cannot encode event header: {e}") from None
        if footer:
            event += crc32(event).to_bytes(4, "little")
        out.append((start, event))
    return out


def encode_body_event(
    body: Body, *, timestamp: int, server_id: int, log_pos: int, flags: int = 0, checksum: bool
) -> bytes:
    """`encode_event` for a typed body (the type code comes from the body)."""
    type_code = body.type_code if isinstance(body, Rows) else body.TYPE_CODE
    return encode_event(
        type_code, body.encode(), timestamp=timestamp, server_id=server_id, log_pos=log_pos,
        flags=flags, checksum=checksum,
    )


def format_description_checksum(fd_event: bytes | bytearray | memoryview) -> bool:
    """Does this FORMAT_DESCRIPTION_EVENT (whole event) say the binlog uses CRC32?"""
    ev = decode_event(fd_event, checksum=False)
    if not isinstance(ev.body, FormatDescription):
        raise RemoteProtocolError(f"expected FORMAT_DESCRIPTION_EVENT, got {type_name(ev.type_code)}")
    return ev.body.checksum


def _same_header(event: bytes | bytearray | memoryview, body: Body, checksum: bool) -> bytes:
    h = decode_header(event)
    return encode_body_event(body, timestamp=h.timestamp, server_id=h.server_id, log_pos=h.log_pos, flags=h.flags,
                             checksum=checksum)


def gtid_as_begin(event: bytes | bytearray | memoryview, checksum: bool) -> bytes | None:
    """A transaction's whole GTID_EVENT as a QUERY `BEGIN` of the same size, its header kept, for
    a slave that knows no GTIDs (MariaDB's Gtid_log_event::make_compatible_event: a GTID body
    of GTID_HEADER_LEN bytes is exactly an empty-db BEGIN). None: a GTID of another size."""
    begin = Query(query="BEGIN")
    if framed_size(len(begin.encode()), checksum) != len(event):
        return None
    return _same_header(event, begin, checksum)


def same_size_no_op(event: bytes | bytearray | memoryview, checksum: bool) -> bytes:
    """A whole event replaced by a USER_VAR setting a NULL user variable, of the same size and
    header (MariaDB's dummy event for a slave that cannot take the event nor a hole in the
    stream: its positions stay right). Needs a body of at least 6 bytes."""
    name_len = len(event) - framed_size(0, checksum) - _USER_VAR_NULL_OVERHEAD
    if name_len < 1:
        raise LocalProtocolError(f"an event of {len(event)} bytes is too small for a same-size no-op")
    name = ("!dummyvar" + "_" * name_len)[:name_len]
    return _same_header(event, UserVar(name, is_null=True, flags=None), checksum)


_USER_VAR_NULL_OVERHEAD = 5  # name_len (4) + is_null (1)
