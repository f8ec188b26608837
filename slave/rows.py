"""Row images of row-based replication (TABLE_MAP + WRITE/UPDATE/DELETE_ROWS v1 and v2).

Contract
- `TableLayout.from_table_map(TableMap)` reads the column types and their metadata once per
  TABLE_MAP; `decode_rows(layout, Rows)` turns a rows event into `RowChange`s: the before image
  (UPDATE/DELETE) and the after image (WRITE/UPDATE), each a tuple of Python values indexed by
  column position (None = SQL NULL, `MISSING` = not in the image).
- Values: int, float, Decimal, bytes (strings and blobs: the slave decides text or binary by its
  own column type), `datetime.date`, `datetime.datetime`, `datetime.timedelta` (TIME).
  Integer columns are decoded signed: the binlog says nothing about signedness unless the master
  logs optional metadata, so `as_unsigned` corrects a negative value for an UNSIGNED column.
- A column type we do not decode raises `UnsupportedColumnType` naming it, so the applier stops
  with an error that says which type (never a silent wrong value). Truncated images raise
  `RemoteProtocolError` (the master's event is corrupt).

Layouts follow MySQL's binlog row format (libbinlogevents `value.cpp`, MariaDB `log_event.cc`),
read for the byte layout, not copied.
"""

from __future__ import annotations

import datetime
import struct
from dataclasses import dataclass
from typing import Any

from protocol.errors import RemoteProtocolError
from protocol.events import EventType, Rows, TableMap, decode_packed_decimal
from protocol.messages import FieldType
from protocol.packets import decode_lenenc_int

MISSING = object()  # a column that is not part of a row image (partial images)

_WRITE = {EventType.WRITE_ROWS_EVENT_V1, EventType.WRITE_ROWS_EVENT}
_UPDATE = {EventType.UPDATE_ROWS_EVENT_V1, EventType.UPDATE_ROWS_EVENT}
_DELETE = {EventType.DELETE_ROWS_EVENT_V1, EventType.DELETE_ROWS_EVENT}


class UnsupportedColumnType(Exception):
    """A row image holds a column type the slave cannot apply."""

    def __init__(self, type_name: str, table: str, column: int) -> None:
        super().__init__(f"unsupported column type {type_name} in row event for {table} (column {column + 1})")
        self.type_name = type_name


def _type_name(code: int) -> str:
    try:
        return FieldType(code).name
    except ValueError:
        return f"type {code}"


# Bytes of metadata each column type carries in TABLE_MAP.
_META_BYTES: dict[int, int] = {
    FieldType.FLOAT: 1,
    FieldType.DOUBLE: 1,
    FieldType.BLOB: 1,
    FieldType.GEOMETRY: 1,
    FieldType.JSON: 1,
    FieldType.TIMESTAMP2: 1,
    FieldType.DATETIME2: 1,
    FieldType.TIME2: 1,
    FieldType.VARCHAR: 2,
    FieldType.VAR_STRING: 2,
    FieldType.BIT: 2,
    FieldType.NEWDECIMAL: 2,
    FieldType.STRING: 2,
    FieldType.ENUM: 2,
    FieldType.SET: 2,
}


@dataclass(frozen=True, slots=True)
class TableLayout:
    """What a TABLE_MAP says of one table: where it is and how its columns are encoded."""

    table_id: int
    db: str
    table: str
    types: tuple[int, ...]
    meta: tuple[int, ...]  # one integer per column (its metadata bytes, little-endian)

    @classmethod
    def from_table_map(cls, tm: TableMap) -> TableLayout:
        raw = tm.metadata
        pos = 0
        meta = []
        for code in tm.column_types:
            n = _META_BYTES.get(code, 0)
            chunk = raw[pos : pos + n]
            if len(chunk) != n:
                raise RemoteProtocolError(f"TABLE_MAP for {tm.db}.{tm.table}: truncated column metadata")
            if code in (FieldType.STRING, FieldType.ENUM, FieldType.SET, FieldType.NEWDECIMAL):
                meta.append(chunk[0] << 8 | chunk[1])  # (real type | precision) << 8 | (length | scale)
            else:
                meta.append(int.from_bytes(chunk, "little"))
            pos += n
        return cls(tm.table_id, tm.db, tm.table, tuple(tm.column_types), tuple(meta))

    @property
    def name(self) -> str:
        return f"{self.db}.{self.table}"


@dataclass(frozen=True, slots=True)
class RowChange:
    kind: str  # "insert" | "update" | "delete"
    before: tuple[Any, ...] | None
    after: tuple[Any, ...] | None


def decode_rows(layout: TableLayout, event_type: int, rows: Rows) -> list[RowChange]:
    """Every row of a rows event, in order."""
    data = memoryview(rows.rows)
    ncols, pos = decode_lenenc_int(data, 0)
    if ncols is None or ncols > len(layout.types):
        raise RemoteProtocolError(f"rows event for {layout.name}: {ncols} columns, table map has {len(layout.types)}")
    bitmap_len = (ncols + 7) // 8
    present = _bits(data[pos : pos + bitmap_len], ncols)
    pos += bitmap_len
    present_after = present
    if event_type in _UPDATE:
        present_after = _bits(data[pos : pos + bitmap_len], ncols)
        pos += bitmap_len
    changes: list[RowChange] = []
    while pos < len(data):
        if event_type in _WRITE:
            after, pos = _row(layout, data, pos, present)
            changes.append(RowChange("insert", None, after))
        elif event_type in _DELETE:
            before, pos = _row(layout, data, pos, present)
            changes.append(RowChange("delete", before, None))
        elif event_type in _UPDATE:
            before, pos = _row(layout, data, pos, present)
            after, pos = _row(layout, data, pos, present_after)
            changes.append(RowChange("update", before, after))
        else:
            raise RemoteProtocolError(f"event type {event_type} is not a rows event")
    return changes


def is_rows_event(type_code: int) -> bool:
    return type_code in _WRITE or type_code in _UPDATE or type_code in _DELETE


def _bits(raw: memoryview, n: int) -> list[bool]:
    if len(raw) < (n + 7) // 8:
        raise RemoteProtocolError("rows event: truncated column bitmap")
    return [bool(raw[i >> 3] & (1 << (i & 7))) for i in range(n)]


def _row(layout: TableLayout, data: memoryview, pos: int, present: list[bool]) -> tuple[tuple[Any, ...], int]:
    count = sum(present)
    null_len = (count + 7) // 8
    nulls = _bits(data[pos : pos + null_len], count)
    pos += null_len
    values: list[Any] = [MISSING] * len(layout.types)
    k = 0
    for i, is_present in enumerate(present):
        if not is_present:
            continue
        if nulls[k]:
            values[i] = None
        else:
            values[i], pos = _value(layout, i, data, pos)
        k += 1
    return tuple(values), pos


def _take(data: memoryview, pos: int, n: int) -> tuple[bytes, int]:
    end = pos + n
    if end > len(data):
        raise RemoteProtocolError("rows event: truncated row image")
    return bytes(data[pos:end]), end


def _int_le(data: memoryview, pos: int, n: int) -> tuple[int, int]:
    raw, pos = _take(data, pos, n)
    return int.from_bytes(raw, "little", signed=True), pos


def _value(layout: TableLayout, i: int, data: memoryview, pos: int) -> tuple[Any, int]:
    code = layout.types[i]
    meta = layout.meta[i]
    if code == FieldType.TINY:
        return _int_le(data, pos, 1)
    if code == FieldType.SHORT:
        return _int_le(data, pos, 2)
    if code == FieldType.INT24:
        return _int_le(data, pos, 3)
    if code == FieldType.LONG:
        return _int_le(data, pos, 4)
    if code == FieldType.LONGLONG:
        return _int_le(data, pos, 8)
    if code == FieldType.YEAR:
        raw, pos = _take(data, pos, 1)
        return (raw[0] + 1900 if raw[0] else 0), pos
    if code == FieldType.FLOAT:
        raw, pos = _take(data, pos, 4)
        return struct.unpack("<f", raw)[0], pos
    if code == FieldType.DOUBLE:
        raw, pos = _take(data, pos, 8)
        return struct.unpack("<d", raw)[0], pos
    if code == FieldType.NEWDECIMAL:
        return decode_packed_decimal(data, pos, meta >> 8, meta & 0xFF)
    if code in (FieldType.VARCHAR, FieldType.VAR_STRING):
        n_len = 1 if meta < 256 else 2
        raw, pos = _take(data, pos, n_len)
        return _take(data, pos, int.from_bytes(raw, "little"))
    if code == FieldType.STRING:
        real_type = meta >> 8
        if real_type in (FieldType.ENUM, FieldType.SET):
            raw, pos = _take(data, pos, meta & 0xFF)
            return int.from_bytes(raw, "little"), pos
        # CHAR(n): the max byte length's top bits are folded into the real type byte.
        max_len = (((real_type & 0x30) ^ 0x30) << 4) | (meta & 0xFF)
        n_len = 1 if max_len < 256 else 2
        raw, pos = _take(data, pos, n_len)
        return _take(data, pos, int.from_bytes(raw, "little"))
    if code == FieldType.BLOB:
        raw, pos = _take(data, pos, meta)
        return _take(data, pos, int.from_bytes(raw, "little"))
    if code == FieldType.DATE:
        raw, pos = _take(data, pos, 3)
        v = int.from_bytes(raw, "little")
        return _date(v >> 9, (v >> 5) & 15, v & 31), pos
    if code == FieldType.TIME:
        v, pos = _int_le(data, pos, 3)
        sign = -1 if v < 0 else 1
        v = abs(v)
        return sign * datetime.timedelta(hours=v // 10000, minutes=v // 100 % 100, seconds=v % 100), pos
    if code == FieldType.DATETIME:
        raw, pos = _take(data, pos, 8)
        v = int.from_bytes(raw, "little")
        d, t = divmod(v, 1000000)
        return _datetime(d // 10000, d // 100 % 100, d % 100, t // 10000, t // 100 % 100, t % 100, 0), pos
    if code == FieldType.TIMESTAMP:
        raw, pos = _take(data, pos, 4)
        return _timestamp(int.from_bytes(raw, "little"), 0), pos
    if code == FieldType.TIMESTAMP2:
        raw, pos = _take(data, pos, 4)
        frac, pos = _fraction(data, pos, meta)
        return _timestamp(int.from_bytes(raw, "big"), frac), pos
    if code == FieldType.DATETIME2:
        raw, pos = _take(data, pos, 5)
        v = int.from_bytes(raw, "big") - 0x8000000000
        frac, pos = _fraction(data, pos, meta)
        ym = v >> 22 & 0x1FFFF
        return _datetime(ym // 13, ym % 13, v >> 17 & 31, v >> 12 & 31, v >> 6 & 63, v & 63, frac), pos
    if code == FieldType.TIME2:
        return _time2(data, pos, meta)
    if code == FieldType.BIT:
        nbytes = (meta >> 8) + ((meta & 0xFF) + 7) // 8
        raw, pos = _take(data, pos, nbytes)
        return int.from_bytes(raw, "big"), pos
    raise UnsupportedColumnType(_type_name(code), layout.name, i)


def _date(y: int, m: int, d: int) -> datetime.date | str:
    try:
        return datetime.date(y, m, d)
    except ValueError:  # MySQL's zero dates
        return f"{y:04d}-{m:02d}-{d:02d}"


def _datetime(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int) -> datetime.datetime | str:
    try:
        return datetime.datetime(y, mo, d, h, mi, s, us)
    except ValueError:
        return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}"


def _timestamp(seconds: int, us: int) -> datetime.datetime | str:
    if seconds == 0 and us == 0:
        return "0000-00-00 00:00:00"
    # Shown in UTC: the slave's engine has no time zone of its own.
    value = datetime.datetime.fromtimestamp(seconds, datetime.UTC).replace(tzinfo=None)
    return value.replace(microsecond=us)


def _fraction(data: memoryview, pos: int, fsp: int) -> tuple[int, int]:
    n = (fsp + 1) // 2
    if not n:
        return 0, pos
    raw, pos = _take(data, pos, n)
    v = int.from_bytes(raw, "big")
    return v * 10 ** (6 - 2 * n), pos


def _time2(data: memoryview, pos: int, fsp: int) -> tuple[datetime.timedelta, int]:
    n = (fsp + 1) // 2
    raw, pos = _take(data, pos, 3 + n)
    packed = int.from_bytes(raw, "big") - (0x800000 << (8 * n))
    # The integer part and the fraction together form one signed fixed-point number.
    neg = packed < 0
    packed = abs(packed)
    frac = packed & ((1 << (8 * n)) - 1) if n else 0
    hms = packed >> (8 * n)
    us = frac * 10 ** (6 - 2 * n) if n else 0
    value = datetime.timedelta(hours=hms >> 12 & 0x3FF, minutes=hms >> 6 & 63, seconds=hms & 63, microseconds=us)
    return (-value if neg else value), pos


def as_unsigned(value: int, type_code: int) -> int:
    """The unsigned reading of an integer decoded signed (for UNSIGNED columns on the slave)."""
    bits: dict[int, int] = {FieldType.TINY: 8, FieldType.SHORT: 16, FieldType.INT24: 24, FieldType.LONG: 32, FieldType.LONGLONG: 64}
    n = bits.get(type_code)
    if n is None or value >= 0:
        return value
    return value + (1 << n)
