"""Row images as `mariadb-binlog -v` prints them (`### INSERT INTO `db`.`t`` / `### SET` /
`###   @1=...`), for `semisync binlog -v`.

The values come from the applier's one row decoder (`slave.rows.decode_rows`, with the table
map's column types and metadata); this module only spells them as mariadb-binlog's
`log_event_print_value` does: integers signed with their unsigned reading in parentheses when
negative, FLOAT as `%-20g`, DOUBLE as `%-.20g`, strings and blobs quoted with bytes below 0x20 as
`\\xNN` (every other byte as it is), DATE as 'YYYY:MM:DD', DATETIME and TIME quoted with their
fractional digits, TIMESTAMP as seconds since the epoch, ENUM as its index, SET and BIT as bits.
"""

from __future__ import annotations

import calendar
import datetime
from decimal import Decimal
from typing import Any

from protocol.messages import FieldType
from slave.rows import MISSING, RowChange, TableLayout, as_unsigned

_INTS = {FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG, FieldType.LONGLONG}
_STATEMENT = {"insert": ("INSERT INTO", None, "SET"), "update": ("UPDATE", "WHERE", "SET"),
              "delete": ("DELETE FROM", "WHERE", None)}


def value_text(value: Any, code: int, meta: int) -> bytes:
    """One column value as mariadb-binlog -v prints it after `@N=`."""
    if value is None:
        return b"NULL"
    if code in _INTS:
        unsigned = as_unsigned(value, code)
        return f"{value} ({unsigned})".encode() if unsigned != value else str(value).encode()
    if code == FieldType.FLOAT:
        return f"{value:<20g}".encode()
    if code == FieldType.DOUBLE:
        return f"{value:.20g}".encode()
    if code == FieldType.NEWDECIMAL and isinstance(value, Decimal):
        return f"{value:f}".encode()
    if code == FieldType.STRING and meta >> 8 in (FieldType.ENUM, FieldType.SET):
        if meta >> 8 == FieldType.ENUM:
            return str(value).encode()
        return f"b'{value:0{8 * (meta & 0xFF)}b}'".encode()
    if code == FieldType.BIT:
        return f"b'{value:0{(meta >> 8) * 8 + (meta & 0xFF)}b}'".encode()
    if isinstance(value, bytes):
        return _quoted(value)
    if code == FieldType.DATE:
        text = value.strftime("%Y:%m:%d") if isinstance(value, datetime.date) else str(value).replace("-", ":")
        return f"'{text}'".encode()
    if code in (FieldType.DATETIME2, FieldType.DATETIME):
        return f"'{_datetime(value)}{_fraction(value, meta if code == FieldType.DATETIME2 else 0)}'".encode()
    if code in (FieldType.TIMESTAMP2, FieldType.TIMESTAMP):
        if isinstance(value, str):
            return b"0"
        seconds = calendar.timegm(value.timetuple())
        return f"{seconds}{_fraction(value, meta if code == FieldType.TIMESTAMP2 else 0)}".encode()
    if code in (FieldType.TIME2, FieldType.TIME) and isinstance(value, datetime.timedelta):
        sign = "-" if value < datetime.timedelta(0) else ""
        total = abs(value)
        seconds = total.days * 86400 + total.seconds
        fsp = meta if code == FieldType.TIME2 else 0
        frac = f".{total.microseconds:06d}"[: fsp + 1] if fsp else ""
        return f"'{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{frac}'".encode()
    return str(value).encode()


def _datetime(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if isinstance(value, datetime.datetime) else str(value)


def _fraction(value: Any, fsp: int) -> str:
    if not fsp:
        return ""
    micro = value.microsecond if isinstance(value, datetime.datetime) else 0  # a zero date: text
    return f".{micro:06d}"[: fsp + 1]


def _quoted(raw: bytes) -> bytes:
    """mariadb-binlog's my_b_write_quoted: bytes below 0x20 as \\xNN, the rest as they are."""
    out = bytearray(b"'")
    for byte in raw:
        out += bytes([byte]) if byte > 0x1F else b"\\x%02x" % byte
    out += b"'"
    return bytes(out)


def image(layout: TableLayout, row: tuple[Any, ...]) -> dict[str, bytes]:
    """`@N` -> value text of the columns a row image holds."""
    return {f"@{i + 1}": value_text(v, layout.types[i], layout.meta[i])
            for i, v in enumerate(row) if v is not MISSING}


def text_lines(layout: TableLayout, change: RowChange) -> bytes:
    """The `###` lines of one changed row."""
    verb, before, after = _STATEMENT[change.kind]
    lines = [b"### %s `%s`.`%s`" % (verb.encode(), layout.db.encode(errors="surrogateescape"),
                                     layout.table.encode(errors="surrogateescape"))]
    for label, row in ((before, change.before), (after, change.after)):
        if label is not None and row is not None:
            lines.append(b"### " + label.encode())
            lines += [b"###   %s=%s" % (k.encode(), v) for k, v in image(layout, row).items()]
    return b"\n".join(lines) + b"\n"


def json_value(layout: TableLayout, change: RowChange) -> dict[str, Any]:
    """One changed row for `--json -v`: its kind, and its images as `@N` -> the same text."""
    out: dict[str, Any] = {"kind": change.kind, "db": layout.db, "table": layout.table}
    for key, row in (("before", change.before), ("after", change.after)):
        if row is not None:
            out[key] = {k: v.decode("utf-8", "replace") for k, v in image(layout, row).items()}
    return out
