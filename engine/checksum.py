"""CHECKSUM TABLE: MariaDB 10.11's number for an InnoDB table holding the same rows under the same
column types (sql/handler.cc, `handler::calculate_checksum`), so that a master and its replicas,
ours or MariaDB's, can be compared by it.

Per row, zlib's CRC32 (MariaDB's `my_checksum`) over the record's null bytes, then on over each
column that is not NULL, in the table's order; the table's checksum is the sum of its rows' CRCs
modulo 2^32 (0 for an empty table). The null bytes are those of MariaDB's record: a bit per
nullable column, in order, set for NULL, after a first bit that is always set unless the records
are packed (HA_OPTION_PACK_RECORD, which MariaDB's CREATE TABLE sets for a table with a TEXT,
BLOB or JSON column, or a VARCHAR or VARBINARY one unless ROW_FORMAT=FIXED, or for any table of
ROW_FORMAT=DYNAMIC or PAGE), and the bits past the last one set. A VARCHAR,
VARBINARY, TEXT, BLOB, JSON or BIT column counts as its string value, any other as its bytes in
MariaDB's record format: integers little-endian in their pack length, FLOAT and DOUBLE as IEEE
little-endian, DECIMAL in decimal2bin's format, DATE / DATETIME / TIMESTAMP / TIME in MariaDB's
(MySQL 5.6's) binary formats, YEAR in one byte, ENUM its member's number, SET its members' bits,
CHAR(n) padded with spaces to n times its character set's longest character, BINARY(n) with zero
bytes. Character columns are written in the character set their definition names
(`Column.charset`: utf8mb4, utf8mb3, latin1 (MariaDB's cp1252), ascii, binary); a column in any
other is refused with 1235 by `layout`, before anything is read, never given a number of its own;
so is a table with generated columns.

`layout(table)` describes a table's rows once, as text; the SQLite aggregate
`mysql_checksum(layout, column, ...)`, registered on every connection, folds the rows one at a
time on whichever connection reads them (a reader in the session's snapshot, or the writer inside
its transaction), so a table is never held in memory whole. A TIMESTAMP is read as a time of the
server's system time zone, MariaDB's time_zone SYSTEM, the only one this engine knows."""

from __future__ import annotations

import json
import re
import sqlite3
import struct
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from engine.catalog import CHAR_TYPES, Column, Table
from engine.lexer import quote_ident
from protocol.charsets import CHARSETS
from protocol.errors import ER_NOT_SUPPORTED_YET, SQLError

# the columns MariaDB's checksum reads as their string value (BLOB_FLAG, VARCHAR, BIT); all but
# BIT make the table's records packed
_STRING_VALUED = {"varchar", "varbinary", "tinytext", "text", "mediumtext", "longtext", "json",
                  "tinyblob", "blob", "mediumblob", "longblob"}
_BLOB_FLAGGED = _STRING_VALUED - {"varchar", "varbinary"}
_INT_BYTES = {"tinyint": 1, "smallint": 2, "mediumint": 3, "int": 4, "integer": 4, "bigint": 8}
_DIG2BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)  # bytes of a group of 0..9 decimal digits (decimal2bin)
_DATETIME_INT_OFS = 0x8000000000
_TIMEF_INT_OFS = 0x800000
_TIMEF_OFS = 0x800000000000
_DATE = re.compile(r"(\d+)-(\d+)-(\d+)(?:[ T](\d+):(\d+):(\d+)(?:\.(\d*))?)?")
_TIME = re.compile(r"(-)?(\d+):(\d+):(\d+)(?:\.(\d*))?")


@dataclass(frozen=True)
class TableChecksum:
    """One table of a CHECKSUM TABLE: its name as the answer shows it ('db.t'), and either the
    SQLite read that computes its number (`sql` with `args`) or none: its `value` (NULL unless
    given), with `error` as an Error warning when there is one (a table that does not exist)."""

    name: str
    sql: str | None = None
    args: tuple = ()
    value: int | None = None
    error: SQLError | None = None


@dataclass(frozen=True)
class ChecksumTables:
    """CHECKSUM TABLE's tables, in the statement's order: the session runs their reads."""

    tables: list[TableChecksum]


def read(table: Table) -> TableChecksum:
    """The table's checksum read: `mysql_checksum` over all its columns (1235 for a column it
    cannot write as MariaDB's record holds it)."""
    columns = ", ".join(quote_ident(col.name) for col in table.columns)
    sql = f"SELECT coalesce(mysql_checksum(?, {columns}), 0) FROM {quote_ident(table.schema)}.{quote_ident(table.name)}"
    return TableChecksum(f"{table.schema}.{table.name}", sql, (layout(table),))


def layout(table: Table) -> str:
    """The table's row as `mysql_checksum` reads it: whether its records are packed, and per
    column whether it may be NULL and how its value is written; a table with generated columns is
    refused with 1235 (MariaDB's record places them otherwise)."""
    if any(col.generated is not None for col in table.columns):
        raise SQLError(ER_NOT_SUPPORTED_YET, "CHECKSUM TABLE of a table with generated columns")
    packed = table.row_format in ("DYNAMIC", "PAGE") or any(
        col.base in _STRING_VALUED and (table.row_format != "FIXED" or col.base in _BLOB_FLAGGED)
        for col in table.columns)
    return json.dumps([packed, [[col.nullable, *_column_form(col)] for col in table.columns]])


# the character sets whose record MariaDB's checksum reads are held to here (the module's contract)
_RECORD_CHARSETS = frozenset({"utf8mb4", "utf8mb3", "latin1", "ascii", "binary"})


def _charset(col: Column):
    name = col.charset or "utf8mb4"
    cs = CHARSETS.get(name)
    if cs is None or name not in _RECORD_CHARSETS:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"CHECKSUM TABLE of a column in character set {name}")
    return cs


def _nums(col: Column) -> list[int]:
    return [int(a) for a in col.args if a.strip().isdigit()]


def _column_form(col: Column) -> list:
    """[kind, its parameters] of a column (`_encoder` turns it into a function)."""
    base, nums = col.base, _nums(col)
    if base in _INT_BYTES:
        return ["int", _INT_BYTES[base]]
    if base == "bit":
        return ["bit", ((nums[0] if nums else 1) + 7) // 8]
    if base == "year":
        return ["year"]
    if base in ("float", "double", "real") and len(nums) == 2:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"CHECKSUM TABLE of a {base.upper()}(M,D) column (its values are"
                       " not stored rounded to D digits, as MariaDB stores them)")
    if base in ("double", "real") or base == "float" and len(nums) == 1 and nums[0] > 24:
        return ["double"]
    if base == "float":
        return ["float"]
    if base in ("decimal", "numeric"):
        precision = nums[0] if nums else 10
        return ["decimal", precision, nums[1] if len(nums) > 1 else 0]
    if base in ("date", "datetime", "timestamp", "time"):
        return [base, nums[0] if nums else 0]
    if base in ("enum", "set"):
        members = col.members
        if base == "enum":
            return ["enum", members, 1 if len(members) < 256 else 2]
        size = (len(members) + 7) // 8
        return ["set", members, 8 if size > 4 else size]
    if base in ("binary", "varbinary") or base.endswith("blob"):
        return ["binary", nums[0] if nums else 1] if base == "binary" else ["string", "binary"]
    if base in CHAR_TYPES:
        cs = _charset(col)
        if base == "char":
            return ["char", (nums[0] if nums else 1) * cs.mbmaxlen, cs.name]
        return ["string", cs.name]
    raise SQLError(ER_NOT_SUPPORTED_YET, f"CHECKSUM TABLE of a {base} column")


# --- the values as MariaDB's record holds them ------------------------------------------------------

def _text(value: object) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


def _in_charset(value: object, charset: str) -> bytes:
    if isinstance(value, bytes):
        return value
    if charset == "binary":
        return _text(value).encode("utf-8", "surrogateescape")
    return CHARSETS[charset].encode(_text(value))


def _decimal_bytes(value: object, precision: int, scale: int) -> bytes:
    """decimal2bin (strings/decimal.c): the integer digits, then the fraction's, in groups of
    nine (four bytes) with a shorter group at the outer ends, big-endian; a negative value's
    bytes inverted; the first bit flipped."""
    text = _text(value).strip()
    negative = text.startswith("-")
    whole, _, frac = text.lstrip("+-").partition(".")
    whole = whole.lstrip("0")[-(precision - scale):] if precision > scale else ""
    digits_whole = whole.rjust(precision - scale, "0")
    digits_frac = frac[:scale].ljust(scale, "0")
    out = bytearray()
    lead = (precision - scale) % 9
    groups = [digits_whole[:lead]] if lead else []
    groups += [digits_whole[i:i + 9] for i in range(lead, len(digits_whole), 9)]
    groups += [digits_frac[i:i + 9] for i in range(0, len(digits_frac), 9)]
    for group in groups:
        out += int(group).to_bytes(_DIG2BYTES[len(group)], "big")
    if negative and (whole.strip("0") or digits_frac.strip("0")):
        out = bytearray(b ^ 0xFF for b in out)
    if out:
        out[0] ^= 0x80
    return bytes(out)


def _micros(frac: str | None) -> int:
    return int((frac or "").ljust(6, "0")[:6])


def _fraction_bytes(usec: int, fsp: int) -> bytes:
    """The fraction after a DATETIME's or TIMESTAMP's whole seconds (MySQL 5.6's format)."""
    if fsp <= 0:
        return b""
    if fsp <= 2:
        return (usec // 10000).to_bytes(1, "big")
    if fsp <= 4:
        return (usec // 100).to_bytes(2, "big")
    return usec.to_bytes(3, "big")


def _date_parts(value: object) -> tuple[int, ...]:
    m = _DATE.match(_text(value).strip())
    if m is None:
        raise ValueError(f"not a date: {value!r}")
    return (*(int(g or 0) for g in m.groups()[:6]), _micros(m.group(7)))


def _date_bytes(value: object) -> bytes:
    year, month, day = _date_parts(value)[:3]
    return (year * 512 + month * 32 + day).to_bytes(3, "little")


def _datetime_bytes(value: object, fsp: int) -> bytes:
    year, month, day, hour, minute, second, usec = _date_parts(value)
    ymd = ((year * 13 + month) << 5) | day
    whole = (ymd << 17) | (hour << 12) | (minute << 6) | second
    return (whole + _DATETIME_INT_OFS).to_bytes(5, "big") + _fraction_bytes(usec, fsp)


def _timestamp_bytes(value: object, fsp: int) -> bytes:
    year, month, day, hour, minute, second, usec = _date_parts(value)
    seconds = 0 if year == 0 else int(time.mktime((year, month, day, hour, minute, second, 0, 0, -1)))
    return seconds.to_bytes(4, "big") + _fraction_bytes(usec, fsp)


def _time_bytes(value: object, fsp: int) -> bytes:
    """my_time_packed_to_binary: the packed time (negative for a negative TIME) offset to
    unsigned; a negative time's fraction is C's remainder, so its bytes count down."""
    m = _TIME.match(_text(value).strip())
    if m is None:
        raise ValueError(f"not a time: {value!r}")
    sign, hour, minute, second, frac = m.groups()
    usec = _micros(frac)
    packed = (((int(hour) << 12) | (int(minute) << 6) | int(second)) << 24) + usec
    if sign:
        packed = -packed
    if fsp >= 5:
        return (packed + _TIMEF_OFS).to_bytes(6, "big")
    whole = ((packed >> 24) + _TIMEF_INT_OFS).to_bytes(3, "big")
    rest = -usec if sign else usec  # C's packed % 2^24
    if fsp == 0:
        return whole
    if fsp <= 2:
        return whole + (int(rest / 10000) & 0xFF).to_bytes(1, "big")
    return whole + (int(rest / 100) & 0xFFFF).to_bytes(2, "big")


def _year_byte(value: object) -> bytes:
    year = int(value)
    return bytes((year - 1900 if year else 0,))


def _member_number(members: list[str], text: str) -> int:
    if text in members:
        return members.index(text) + 1
    low = text.lower()
    return next((k + 1 for k, member in enumerate(members) if member.lower() == low), 0)


def _enum_bytes(value: object, members: list[str], size: int) -> bytes:
    if isinstance(value, int):
        return value.to_bytes(size, "little")
    return _member_number(members, _text(value)).to_bytes(size, "little")


def _set_bytes(value: object, members: list[str], size: int) -> bytes:
    bits = 0
    if isinstance(value, int):
        bits = value
    else:
        for part in _text(value).split(","):
            number = _member_number(members, part) if part else 0
            if number:
                bits |= 1 << (number - 1)
    return bits.to_bytes(size, "little")


def _int_bytes(value: object, size: int) -> bytes:
    return (int(value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _encoder(form: list) -> Callable[[object], bytes]:
    kind, *args = form
    if kind == "int":
        return lambda v: _int_bytes(v, args[0])
    if kind == "bit":
        return lambda v: _int_bytes(v, args[0])[::-1]  # (Field_bit::val_str: big-endian)
    if kind == "year":
        return _year_byte
    if kind in ("float", "double"):
        packer = struct.Struct("<f" if kind == "float" else "<d")
        return lambda v: packer.pack(float(v))
    if kind == "decimal":
        return lambda v: _decimal_bytes(v, args[0], args[1])
    if kind == "date":
        return _date_bytes
    if kind in ("datetime", "timestamp", "time"):
        temporal = {"datetime": _datetime_bytes, "timestamp": _timestamp_bytes, "time": _time_bytes}[kind]
        return lambda v: temporal(v, args[0])
    if kind == "enum":
        return lambda v: _enum_bytes(v, args[0], args[1])
    if kind == "set":
        return lambda v: _set_bytes(v, args[0], args[1])
    if kind == "binary":
        return lambda v: _in_charset(v, "binary")[:args[0]].ljust(args[0], b"\0")
    if kind == "char":
        pad = b"\0" if args[1] == "binary" else b" "
        return lambda v: _in_charset(v, args[1])[:args[0]].ljust(args[0], pad)
    return lambda v: _in_charset(v, args[0])


class _Row:
    """A table's rows as `layout` described them: `crc(values)` is one row's CRC32."""

    def __init__(self, text: str):
        packed, forms = json.loads(text)
        first = 0 if packed else 1
        nullable = [k for k, (null_ok, *_) in enumerate(forms) if null_ok]
        bits = first + len(nullable)
        template = bytearray((bits + 7) // 8)
        if template:
            if not packed:
                template[0] |= 1
            if bits % 8:
                template[-1] |= 256 - (1 << (bits % 8))  # the bits past the last one
        self.template = bytes(template)
        self.null_bits = [(k, (first + n) // 8, 1 << ((first + n) % 8)) for n, k in enumerate(nullable)]
        self.encoders = [(k, _encoder(form)) for k, (_, *form) in enumerate(forms)]

    def crc(self, values: tuple) -> int:
        nulls = bytearray(self.template)
        for k, at, bit in self.null_bits:
            if values[k] is None:
                nulls[at] |= bit
        crc = zlib.crc32(nulls) if nulls else 0
        for k, encode in self.encoders:
            value = values[k]
            if value is not None:
                crc = zlib.crc32(encode(value), crc)
        return crc


_row = lru_cache(maxsize=64)(_Row)


class _Checksum:
    """mysql_checksum(layout, column, ...): the sum of the rows' CRCs modulo 2^32."""

    def __init__(self) -> None:
        self.total = 0

    def step(self, text: str, *values: object) -> None:
        self.total += _row(text).crc(values)

    def finalize(self) -> int:
        return self.total & 0xFFFFFFFF


def register(conn: sqlite3.Connection) -> None:
    conn.create_aggregate("mysql_checksum", -1, _Checksum)  # type: ignore[arg-type]
