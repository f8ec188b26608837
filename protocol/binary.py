"""The binary (prepared statement) protocol: COM_STMT_* commands, their answers, binary values.

Each wire format is declared once below, fields in wire order, after MySQL's client/server
protocol (COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE,
COM_STMT_RESET, COM_STMT_FETCH; "Binary Protocol Value"; "Binary Protocol Resultset Row") and
MariaDB's sql/sql_prepare.cc where they differ (MariaDB always sends the warning count of the
prepare answer). Sans-IO: bytes in, values out.

Contracts:
- `decode_stmt_command(payload)` gives the typed command for a COM_STMT_* payload, its fixed
  fields read with a `struct.Struct` derived from the command's declaration; the declaration
  (`decode_stmt_command_declared`) is the reference it is held equal to, and decides on a payload
  shorter than the fixed fields. A COM_STMT_EXECUTE's parameter block can only be read with the
  statement's parameter count and the types bound before, so it is carried raw
  (`ComStmtExecute.params`) and read by `decode_execute_params` once the server found the
  statement. A packet shorter than its fixed fields is malformed; bytes after the fixed fields
  of COM_STMT_CLOSE, COM_STMT_RESET and COM_STMT_FETCH are ignored (mysqld's parse_packet),
  those after the parameter values are malformed. Both raise only
  `RemoteProtocolError(ER_MALFORMED_PACKET, fatal=False)`: the server answers it with an ERR
  and keeps the connection.
- MariaDB's COM_STMT_BULK_EXECUTE (`ComStmtBulkExecute`) carries its parameters raw as well,
  read by `decode_bulk_rows` with the statement's parameter count: [types], then rows to the
  end of the packet, each value after an `Indicator` byte (NULL, DEFAULT and IGNORE carry no
  value); what does not read is the same `RemoteProtocolError`.
- Parameter values come out as Python values: None, int, float, `decimal.Decimal` (DECIMAL,
  NEWDECIMAL whose text is a finite number; any other text stays its bytes, whose leading
  number the server reads, as mysqld does), bytes (strings and blobs, in the client's
  encoding, uninterpreted),
  `datetime.date`, `datetime.datetime`, `datetime.timedelta` (TIME).
- Binary rows are encoded by each column's MySQL type code, flags and decimals, i.e. from the
  column definition that is sent with them: a `BinaryRowEncoder` decides each column's value
  encoder once for a list of columns (`encode_binary_row` for a single row); a value that the
  column's type cannot carry raises `LocalProtocolError` (the server chose the wrong type: our
  bug), as `UncarriedValue` naming the column. `encode_binary_row_reference`, one value at a
  time, is the reference the encoder is held equal to (bytes and errors).
- `PrepareOK`, `BinaryResultSet` and `BinaryRows` are responses with `payloads(capabilities)`
  and `status`, framed by `protocol.connection.ServerConnection.send` as a text result set is.
  The rows of the last two may be given already encoded for their columns (`encoded_rows`).
"""

from __future__ import annotations

import datetime
import decimal
import enum
import functools
import operator
import re
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import construct as c

from protocol.errors import ER_MALFORMED_PACKET, LocalProtocolError, RemoteProtocolError
from protocol.messages import (
    DEPRECATE_EOF,
    EOF,
    EOF_HEADER,
    EXTENDED_METADATA,
    OK,
    Capability,
    ColumnDefinition,
    ColumnFlag,
    FieldType,
    ServerStatus,
    _native_rows,  # protocol._rows, where setup.py built it (else None)
)
from protocol.packets import (
    decode_lenenc_bytes,
    encode_lenenc_bytes,
    encode_lenenc_int,
    fixed_struct,
    frame_payloads,
)

# a result set's rows framed after its column block in one call (`BinaryRowEncoder.answer`)
_native_answer = None if _native_rows is None else _native_rows.answer

COM_STMT_PREPARE = 0x16
COM_STMT_EXECUTE = 0x17
COM_STMT_SEND_LONG_DATA = 0x18
COM_STMT_CLOSE = 0x19
COM_STMT_RESET = 0x1A
COM_STMT_FETCH = 0x1C
COM_STMT_BULK_EXECUTE = 0xFA  # MariaDB's, for a client that negotiated STMT_BULK_OPERATIONS
STMT_COMMANDS = frozenset({
    COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE, COM_STMT_RESET,
    COM_STMT_FETCH, COM_STMT_BULK_EXECUTE,
})

# COM_STMT_EXECUTE flags (include/mysql_com.h enum_cursor_type)
CURSOR_TYPE_NO_CURSOR = 0
CURSOR_TYPE_READ_ONLY = 1
CURSOR_TYPE_FOR_UPDATE = 2
CURSOR_TYPE_SCROLLABLE = 4
PARAMETER_COUNT_AVAILABLE = 8  # MySQL 8 query attributes: never sent to us (not advertised)

UNSIGNED_PARAM = 0x80  # the flag byte of a parameter type: the value is unsigned

# COM_STMT_BULK_EXECUTE flags (MariaDB's include/mysql_com.h): the types come with the rows
# (else those of the statement's last execution), and MariaDB 11.5's per-row results, which
# 10.11 refuses (1295) as every other flag
BULK_SEND_UNIT_RESULTS = 64
BULK_SEND_TYPES_TO_SERVER = 128


class Indicator(enum.IntEnum):
    """A bulk row's byte before each parameter (MariaDB's enum_indicator_type): a value
    follows (NONE) or the parameter is NULL, the column's DEFAULT, or IGNORE (an INSERT's
    DEFAULT, an UPDATE leaves the column as it is)."""

    NONE = 0
    NULL = 1
    DEFAULT = 2
    IGNORE = 3


_PARSE_ERRORS = (c.ConstructError, ValueError, IndexError, TypeError, OverflowError, KeyError,
                 struct.error, decimal.InvalidOperation)


def _malformed(what: str) -> RemoteProtocolError:
    return RemoteProtocolError(f"malformed {what}", error=ER_MALFORMED_PACKET, fatal=False)


def _stmt_command(code: int, *fields: c.Construct) -> c.Struct:
    return c.Struct("command" / c.Const(code, c.Int8ul), "statement_id" / c.Int32ul, *fields)


COM_STMT_PREPARE_FORMAT = c.Struct("command" / c.Const(COM_STMT_PREPARE, c.Int8ul), "query" / c.GreedyBytes)
COM_STMT_EXECUTE_FORMAT = _stmt_command(
    COM_STMT_EXECUTE,
    "flags" / c.Int8ul,
    "iteration_count" / c.Int32ul,
    # null bitmap, new-params-bound flag, [types], values: see decode_execute_params
    "params" / c.GreedyBytes,
)
COM_STMT_BULK_EXECUTE_FORMAT = _stmt_command(
    COM_STMT_BULK_EXECUTE,
    "flags" / c.Int16ul,
    # [types], then rows of (indicator, [value]) per parameter: see decode_bulk_rows
    "params" / c.GreedyBytes,
)
COM_STMT_SEND_LONG_DATA_FORMAT = _stmt_command(
    COM_STMT_SEND_LONG_DATA, "param_id" / c.Int16ul, "data" / c.GreedyBytes,
)
# Bytes after the fixed fields of these three are ignored, as mysqld's parse_packet does: a
# COM_STMT_CLOSE has no answer, and an ERR to one would put the client out of step.
COM_STMT_CLOSE_FORMAT = _stmt_command(COM_STMT_CLOSE)
COM_STMT_RESET_FORMAT = _stmt_command(COM_STMT_RESET)
COM_STMT_FETCH_FORMAT = _stmt_command(COM_STMT_FETCH, "num_rows" / c.Int32ul)

# The answer to COM_STMT_PREPARE (COM_STMT_PREPARE_OK), followed by the parameter and column
# definitions, each block closed by an EOF unless the client asked CLIENT_DEPRECATE_EOF.
PREPARE_OK_FORMAT = c.Struct(
    "status" / c.Const(0, c.Int8ul),
    "statement_id" / c.Int32ul,
    "num_columns" / c.Int16ul,
    "num_params" / c.Int16ul,
    "reserved" / c.Const(0, c.Int8ul),
    "warning_count" / c.Int16ul,
    c.Terminated,
)


@dataclass(frozen=True, slots=True)
class ComStmtPrepare:
    query: bytes

    def encode(self) -> bytes:
        return COM_STMT_PREPARE_FORMAT.build(dict(query=self.query))


@dataclass(frozen=True, slots=True)
class ComStmtExecute:
    statement_id: int
    flags: int = 0
    iteration_count: int = 1
    params: bytes = b""  # raw: null bitmap, new-params-bound flag, types, values

    def encode(self) -> bytes:
        return COM_STMT_EXECUTE_FORMAT.build(dict(
            statement_id=self.statement_id, flags=self.flags, iteration_count=self.iteration_count,
            params=self.params,
        ))


@dataclass(frozen=True, slots=True)
class ComStmtBulkExecute:
    statement_id: int
    flags: int = BULK_SEND_TYPES_TO_SERVER
    params: bytes = b""  # raw: [types], rows of indicators and values

    def encode(self) -> bytes:
        return COM_STMT_BULK_EXECUTE_FORMAT.build(dict(
            statement_id=self.statement_id, flags=self.flags, params=self.params,
        ))


@dataclass(frozen=True, slots=True)
class ComStmtSendLongData:
    statement_id: int
    param_id: int
    data: bytes

    def encode(self) -> bytes:
        return COM_STMT_SEND_LONG_DATA_FORMAT.build(dict(
            statement_id=self.statement_id, param_id=self.param_id, data=self.data,
        ))


@dataclass(frozen=True, slots=True)
class ComStmtClose:
    statement_id: int

    def encode(self) -> bytes:
        return COM_STMT_CLOSE_FORMAT.build(dict(statement_id=self.statement_id))


@dataclass(frozen=True, slots=True)
class ComStmtReset:
    statement_id: int

    def encode(self) -> bytes:
        return COM_STMT_RESET_FORMAT.build(dict(statement_id=self.statement_id))


@dataclass(frozen=True, slots=True)
class ComStmtFetch:
    statement_id: int
    num_rows: int

    def encode(self) -> bytes:
        return COM_STMT_FETCH_FORMAT.build(dict(statement_id=self.statement_id, num_rows=self.num_rows))


StmtCommand = (ComStmtPrepare | ComStmtExecute | ComStmtSendLongData | ComStmtClose | ComStmtReset | ComStmtFetch
               | ComStmtBulkExecute)

# Each command: its name, its declaration, its type (fields named and ordered as declared).
_COMMANDS: dict[int, tuple[str, c.Struct, type[StmtCommand]]] = {
    COM_STMT_PREPARE: ("COM_STMT_PREPARE", COM_STMT_PREPARE_FORMAT, ComStmtPrepare),
    COM_STMT_EXECUTE: ("COM_STMT_EXECUTE", COM_STMT_EXECUTE_FORMAT, ComStmtExecute),
    COM_STMT_SEND_LONG_DATA: ("COM_STMT_SEND_LONG_DATA", COM_STMT_SEND_LONG_DATA_FORMAT, ComStmtSendLongData),
    COM_STMT_CLOSE: ("COM_STMT_CLOSE", COM_STMT_CLOSE_FORMAT, ComStmtClose),
    COM_STMT_RESET: ("COM_STMT_RESET", COM_STMT_RESET_FORMAT, ComStmtReset),
    COM_STMT_FETCH: ("COM_STMT_FETCH", COM_STMT_FETCH_FORMAT, ComStmtFetch),
    COM_STMT_BULK_EXECUTE: ("COM_STMT_BULK_EXECUTE", COM_STMT_BULK_EXECUTE_FORMAT, ComStmtBulkExecute),
}


def decode_stmt_command_declared(payload: bytes) -> StmtCommand:
    """`decode_stmt_command` by the construct declarations: the reference."""
    entry = _COMMANDS.get(payload[0]) if payload else None
    if entry is None:
        raise LocalProtocolError(f"not a COM_STMT command: {payload[:1].hex()}")
    what, fmt, cls = entry
    try:
        parsed = fmt.parse(payload)
    except _PARSE_ERRORS:
        raise _malformed(what) from None
    return cls(*(parsed[f.name] for f in fields(cls)))


def _struct_path(fmt: c.Struct, cls: type) -> tuple[struct.Struct, type, bool]:
    """A command's fixed fields as one `struct.Struct` derived from its declaration, the command
    type built from them (its fields are the declaration's, in wire order, after the command
    byte) and whether a greedy byte string follows them."""
    subcons = list(fmt.subcons)
    greedy = isinstance(subcons[-1].subcon, type(c.GreedyBytes))
    fixed = subcons[:-1] if greedy else subcons
    assert [sc.name for sc in subcons[1:]] == [f.name for f in fields(cls)], cls
    return fixed_struct(fixed), cls, greedy


_STRUCT_PATHS = {code: _struct_path(fmt, cls) for code, (_, fmt, cls) in _COMMANDS.items()}


def decode_stmt_command(payload: bytes) -> StmtCommand:
    """The typed COM_STMT_* command of a command payload (first byte: the command).

    Read by `struct.Struct`s derived from the declarations (`_STRUCT_PATHS`); a payload shorter
    than its fixed fields goes to the declaration (`decode_stmt_command_declared`), which decides
    what it raises. Tests hold the two equal on every input."""
    path = _STRUCT_PATHS.get(payload[0]) if payload else None
    if path is None or len(payload) < path[0].size:
        return decode_stmt_command_declared(payload)
    layout, cls, greedy = path
    fixed = layout.unpack_from(payload)
    if greedy:
        return cls(*fixed[1:], payload[layout.size :])
    return cls(*fixed[1:])


_EXECUTE_LAYOUT = _STRUCT_PATHS[COM_STMT_EXECUTE][0]
# the layout's command byte and statement id, read in one call (`EXECUTE_HEAD.unpack_from(payload)`,
# the id second), and where its flags byte lies
EXECUTE_HEAD = struct.Struct(_EXECUTE_LAYOUT.format[:3])
_FLAGS_AT = EXECUTE_HEAD.size


def plain_execute(payload: bytes) -> tuple[int, bytes] | None:
    """The statement id and parameter block that `decode_stmt_command` reads from `payload`, a
    COM_STMT_EXECUTE's (its first byte the command), when its flags are 0 (no cursor); None for
    any other payload."""
    layout = _EXECUTE_LAYOUT
    if len(payload) < layout.size or payload[0] != COM_STMT_EXECUTE:
        return None
    _, statement_id, flags, _ = layout.unpack_from(payload)
    if flags:
        return None
    return statement_id, payload[layout.size :]


# ---------------------------------------------------------------------------------------------
# Binary values (parameters in, row values out)

_INTEGERS: dict[int, tuple[struct.Struct, struct.Struct]] = {  # type -> (signed, unsigned)
    FieldType.TINY: (struct.Struct("<b"), struct.Struct("<B")),
    FieldType.SHORT: (struct.Struct("<h"), struct.Struct("<H")),
    FieldType.YEAR: (struct.Struct("<h"), struct.Struct("<H")),
    FieldType.INT24: (struct.Struct("<i"), struct.Struct("<I")),
    FieldType.LONG: (struct.Struct("<i"), struct.Struct("<I")),
    FieldType.LONGLONG: (struct.Struct("<q"), struct.Struct("<Q")),
}
_FLOAT = struct.Struct("<f")
_DOUBLE = struct.Struct("<d")
_DECIMALS = frozenset({FieldType.DECIMAL, FieldType.NEWDECIMAL})
# a DECIMAL parameter's text that is a number (`decimal.Decimal` reads more: NaN, Infinity, 1_0)
_DECIMAL_TEXT = re.compile(rb"[ \t\n\r\f\v]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\r\f\v]*")
_DATES = frozenset({FieldType.DATE, FieldType.NEWDATE})
_DATETIMES = frozenset({FieldType.DATETIME, FieldType.TIMESTAMP, FieldType.DATETIME2, FieldType.TIMESTAMP2})
_TIMES = frozenset({FieldType.TIME, FieldType.TIME2})
# Length-encoded byte strings: every string, blob and the types MySQL sends as their text.
_STRINGS = frozenset({
    FieldType.VARCHAR, FieldType.BIT, FieldType.JSON, FieldType.ENUM, FieldType.SET,
    FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB, FieldType.BLOB,
    FieldType.VAR_STRING, FieldType.STRING, FieldType.GEOMETRY,
})
PARAM_TYPES = frozenset({
    *_INTEGERS, FieldType.FLOAT, FieldType.DOUBLE, FieldType.NULL, *_DECIMALS, *_DATES,
    *_DATETIMES, *_TIMES, *_STRINGS,
})

# Binary temporal layouts, by their length byte (0 = all zero).
_DATE = struct.Struct("<HBB")
_DATETIME = struct.Struct("<HBBBBB")
_DATETIME_US = struct.Struct("<HBBBBBI")
_TIME = struct.Struct("<BIBBB")
_TIME_US = struct.Struct("<BIBBBI")


@dataclass(frozen=True, slots=True)
class ZeroDate:
    """MySQL's zero date or datetime ('0000-00-00 ...'), which Python's datetime cannot hold;
    also any date with a zero month or day (`year`, `month`, `day` as sent)."""

    year: int = 0
    month: int = 0
    day: int = 0
    hour: int = 0
    minute: int = 0
    second: int = 0
    microsecond: int = 0
    has_time: bool = False


def _read_temporal(ftype: int, data: bytes, pos: int) -> tuple[Any, int]:
    n = data[pos]
    body = data[pos + 1 : pos + 1 + n]
    if len(body) != n:
        raise IndexError("temporal value runs past the packet")
    end = pos + 1 + n
    if ftype in _TIMES:
        if n == 0:
            return datetime.timedelta(0), end
        if n == 8:
            neg, days, h, m, s = _TIME.unpack(body)
            us = 0
        elif n == 12:
            neg, days, h, m, s, us = _TIME_US.unpack(body)
        else:
            raise ValueError(f"TIME of {n} bytes")
        # hours beyond 23 are allowed: C clients send a TIME's hours with day 0 (MYSQL_TIME)
        if m > 59 or s > 59 or us > 999_999 or neg > 1:
            raise ValueError("TIME out of range")
        value = datetime.timedelta(days=days, hours=h, minutes=m, seconds=s, microseconds=us)
        return (-value if neg else value), end
    if n == 0:
        return ZeroDate(has_time=ftype not in _DATES), end
    if n == 4:
        y, mo, d = _DATE.unpack(body)
        h = mi = s = us = 0
    elif n == 7:
        y, mo, d, h, mi, s = _DATETIME.unpack(body)
        us = 0
    elif n == 11:
        y, mo, d, h, mi, s, us = _DATETIME_US.unpack(body)
    else:
        raise ValueError(f"{FieldType(ftype).name} of {n} bytes")
    if h > 23 or mi > 59 or s > 59 or us > 999_999 or mo > 12 or d > 31:
        raise ValueError("date or time field out of range")
    if ftype in _DATES:
        if not (mo and d and y):
            return ZeroDate(y, mo, d), end
        return datetime.date(y, mo, d), end
    if not (mo and d and y):
        return ZeroDate(y, mo, d, h, mi, s, us, True), end
    return datetime.datetime(y, mo, d, h, mi, s, us), end


def _read_value(ftype: int, unsigned: bool, data: bytes, pos: int) -> tuple[Any, int]:
    ints = _INTEGERS.get(ftype)
    if ints is not None:
        fmt = ints[1] if unsigned else ints[0]
        return fmt.unpack_from(data, pos)[0], pos + fmt.size
    if ftype == FieldType.DOUBLE:
        return _DOUBLE.unpack_from(data, pos)[0], pos + 8
    if ftype == FieldType.FLOAT:
        return _FLOAT.unpack_from(data, pos)[0], pos + 4
    if ftype in _DATES or ftype in _DATETIMES or ftype in _TIMES:
        return _read_temporal(ftype, data, pos)
    raw, end = decode_lenenc_bytes(data, pos)
    if raw is None:
        raise ValueError("NULL marker in place of a length")
    if ftype in _DECIMALS and _DECIMAL_TEXT.fullmatch(raw):
        return decimal.Decimal(raw.decode("ascii")), end
    return bytes(raw), end


@dataclass(frozen=True, slots=True)
class ParamType:
    type: int
    unsigned: bool = False


def decode_execute_params(
    block: bytes, count: int, bound: Sequence[ParamType] | None, long_data: Sequence[bool] = (),
) -> tuple[list[Any], list[ParamType]]:
    """Read a COM_STMT_EXECUTE parameter block: (values, the types they were read with).

    `bound` are the types of the previous execution (the client may leave the
    new-params-bound flag at 0 and reuse them); a parameter whose `long_data[i]` is set takes its
    value from COM_STMT_SEND_LONG_DATA and has none here (the value is returned as None and
    the caller substitutes it), unless the NULL bitmap says NULL."""
    if count == 0:
        return [], []  # MySQL reads nothing more of a statement without parameters
    try:
        nbytes = (count + 7) // 8
        if len(block) < nbytes + 1:
            raise IndexError("parameter block shorter than the NULL bitmap and flag")
        nulls = block[:nbytes]
        pos = nbytes
        new_bound = block[pos]
        pos += 1
        if new_bound > 1:
            raise ValueError("new-params-bound flag is neither 0 nor 1")
        if new_bound:
            types, pos = _read_types(block, pos, count)
        elif bound is None:
            raise ValueError("parameters never bound")
        else:
            types = list(bound)
        values: list[Any] = []
        for i, ptype in enumerate(types):
            if nulls[i >> 3] & (1 << (i & 7)) or ptype.type == FieldType.NULL:
                values.append(None)
            elif i < len(long_data) and long_data[i]:
                values.append(None)
            else:
                value, pos = _read_value(ptype.type, ptype.unsigned, block, pos)
                values.append(value)
        if pos != len(block):
            raise ValueError(f"{len(block) - pos} bytes after the last parameter")
    except (*_PARSE_ERRORS, RemoteProtocolError):  # a lenenc reader's error: ours to word
        raise _malformed("COM_STMT_EXECUTE") from None
    return values, types


def _read_types(block: bytes, pos: int, count: int) -> tuple[list[ParamType], int]:
    types = []
    for _ in range(count):
        ftype, flag = block[pos], block[pos + 1]
        pos += 2
        if ftype not in PARAM_TYPES:
            raise ValueError(f"unknown parameter type {ftype}")
        types.append(ParamType(ftype, bool(flag & UNSIGNED_PARAM)))
    return types, pos


def decode_bulk_rows(block: bytes, count: int, bound: Sequence[ParamType] | None, send_types: bool,
                     ) -> tuple[list[list[Any]], list[ParamType]]:
    """Read a COM_STMT_BULK_EXECUTE's parameters (`ComStmtBulkExecute.params`): (the rows,
    the types they were read with). The types come first when the flags said
    BULK_SEND_TYPES_TO_SERVER (`send_types`), else `bound` are the statement's last ones; then
    rows to the end of the packet, each parameter an `Indicator` byte and, after NONE, its
    value. A value is read as `decode_execute_params` reads it; a NULL is None and a DEFAULT
    or IGNORE the `Indicator` itself. At least one row, none cut short."""
    try:
        if send_types:
            types, pos = _read_types(block, 0, count)
        elif bound is None or len(bound) != count:
            raise ValueError("parameters never bound")
        else:
            types, pos = list(bound), 0
        rows: list[list[Any]] = []
        end = len(block)
        while pos < end or not rows:
            row: list[Any] = []
            for ptype in types:
                indicator = Indicator(block[pos])
                pos += 1
                if indicator is Indicator.NONE:
                    if ptype.type == FieldType.NULL:
                        row.append(None)
                        continue
                    value, pos = _read_value(ptype.type, ptype.unsigned, block, pos)
                    row.append(value)
                else:
                    row.append(None if indicator is Indicator.NULL else indicator)
            rows.append(row)
        if pos != end:
            raise IndexError("the last row runs past the packet")
    except (*_PARSE_ERRORS, RemoteProtocolError):
        raise _malformed("COM_STMT_BULK_EXECUTE") from None
    return rows, types


def encode_bulk_rows(types: Sequence[ParamType], rows: Sequence[Sequence[Any]], send_types: bool = True) -> bytes:
    """The parameters of a COM_STMT_BULK_EXECUTE (client side: tests, fuzz): None is NULL, an
    `Indicator` stands for itself."""
    out = [b"".join(bytes((t.type, UNSIGNED_PARAM if t.unsigned else 0)) for t in types) if send_types else b""]
    for row in rows:
        for ptype, value in zip(types, row, strict=True):
            if value is None:
                out.append(bytes((Indicator.NULL,)))
            elif isinstance(value, Indicator):
                out.append(bytes((value,)))
            else:
                out.append(bytes((Indicator.NONE,)) + encode_param(ptype, value))
    return b"".join(out)


_FIXED_INTS = {FieldType.TINY: "bB", FieldType.SHORT: "hH", FieldType.YEAR: "hH", FieldType.INT24: "iI",
               FieldType.LONG: "iI", FieldType.LONGLONG: "qQ"}


class IntParams:
    """The layout of a COM_STMT_EXECUTE parameter block `decode_execute_params` read: every
    parameter a non-NULL integer of a fixed-size type, the types sent with the block or not, as
    that block had them. `read` gives the values of a block laid out the same way (byte for byte
    up to the values, of the same size), as `decode_execute_params` would read them with the same
    bound types, or None for any other block."""

    __slots__ = ("_prefix", "_values", "_size", "_execute_size", "_execute_values")

    def __init__(self, prefix: bytes, values: struct.Struct) -> None:
        self._prefix = prefix
        self._values = values
        self._size = len(prefix) + values.size
        self._execute_size = _EXECUTE_LAYOUT.size + self._size  # (`read_execute`'s whole payload)
        self._execute_values = _EXECUTE_LAYOUT.size + len(prefix)

    @classmethod
    def of(cls, block: bytes, count: int, types: Sequence[ParamType]) -> IntParams | None:
        """The layout of `block`, which `decode_execute_params` read as `types`, when it is one."""
        nbytes = (count + 7) // 8
        if count == 0 or len(block) <= nbytes or any(block[:nbytes]):
            return None
        codes = []
        for ptype in types:
            pair = _FIXED_INTS.get(ptype.type)
            if pair is None:
                return None
            codes.append(pair[ptype.unsigned])
        values = struct.Struct("<" + "".join(codes))
        prefix = nbytes + 1 + (2 * count if block[nbytes] else 0)
        if len(block) != prefix + values.size:
            return None
        return cls(bytes(block[:prefix]), values)

    def read(self, block: bytes) -> tuple[int, ...] | None:
        if len(block) != self._size or not block.startswith(self._prefix):
            return None
        return self._values.unpack_from(block, len(self._prefix))

    def read_execute(self, payload: bytes) -> tuple[int, ...] | None:
        """`read` of the parameter block of `payload`, a COM_STMT_EXECUTE's (its first byte the
        command), when its flags are 0: what `plain_execute` then `read` give, in one call (the
        statement id is the caller's to read: `EXECUTE_HEAD`); None for any other
        payload."""
        if (len(payload) != self._execute_size or payload[0] != COM_STMT_EXECUTE or payload[_FLAGS_AT]
                or not payload.startswith(self._prefix, _EXECUTE_LAYOUT.size)):
            return None
        return self._values.unpack_from(payload, self._execute_values)


class ParamsLayout:
    """The layout of a COM_STMT_EXECUTE parameter block `decode_execute_params` read: every
    parameter non-NULL, an integer of a fixed-size type or the bytes of a string type (each
    shorter than 251 bytes: its length in one byte), the types sent with the block or not, as
    that block had them. `read` gives the values of a block laid out the same way (byte for byte
    up to the values, its strings of any such length), as `decode_execute_params` would read them
    with the same bound types, or None for any other block. (`IntParams`: integers only, in one
    step, and a kept read's whole command.)"""

    __slots__ = ("_prefix", "_at", "_steps")

    def __init__(self, prefix: bytes, steps: tuple[struct.Struct | None, ...]) -> None:
        self._prefix = prefix
        self._at = len(prefix)
        self._steps = steps  # a run of integers read at once, or None: a string

    @classmethod
    def of(cls, block: bytes, count: int, types: Sequence[ParamType]) -> ParamsLayout | None:
        """The layout of `block`, which `decode_execute_params` read as `types`, when it is one."""
        nbytes = (count + 7) // 8
        if count == 0 or len(block) <= nbytes or any(block[:nbytes]):
            return None
        steps: list[struct.Struct | None] = []
        codes = ""
        for ptype in types:
            pair = _FIXED_INTS.get(ptype.type)
            if pair is not None:
                codes += pair[ptype.unsigned]
                continue
            if ptype.type not in _STRINGS:
                return None
            if codes:
                steps.append(struct.Struct("<" + codes))
                codes = ""
            steps.append(None)
        if codes:
            steps.append(struct.Struct("<" + codes))
        prefix = nbytes + 1 + (2 * count if block[nbytes] else 0)
        layout = cls(bytes(block[:prefix]), tuple(steps))
        return layout if layout.read(block) is not None else None

    def read(self, block: bytes) -> list[Any] | None:
        if not block.startswith(self._prefix):
            return None
        pos = self._at
        values: list[Any] = []
        try:
            for step in self._steps:
                if step is None:
                    n = block[pos]
                    if n > 250:  # (a NULL marker or a longer length)
                        return None
                    pos += 1 + n
                    values.append(block[pos - n : pos])
                else:
                    values += step.unpack_from(block, pos)
                    pos += step.size
        except (IndexError, struct.error):
            return None
        return values if pos == len(block) else None


def encode_param(ptype: ParamType, value: Any) -> bytes:
    """One parameter value as a client sends it (the inverse of the decoder; tests and fuzz)."""
    ints = _INTEGERS.get(ptype.type)
    if ints is not None:
        return (ints[1] if ptype.unsigned else ints[0]).pack(value)
    return _encode_value(ptype.type, value, 6)


def encode_execute_params(types: Sequence[ParamType], values: Sequence[Any], send_types: bool = True) -> bytes:
    """The parameter block of a COM_STMT_EXECUTE (client side: tests, fuzz)."""
    if not types:
        return b""
    bitmap = bytearray((len(types) + 7) // 8)
    parts = []
    for i, (ptype, value) in enumerate(zip(types, values, strict=True)):
        if value is None:
            bitmap[i >> 3] |= 1 << (i & 7)
        else:
            parts.append(encode_param(ptype, value))
    head = bytes(bitmap) + (b"\x01" + b"".join(
        bytes((t.type, UNSIGNED_PARAM if t.unsigned else 0)) for t in types) if send_types else b"\x00")
    return head + b"".join(parts)


# ---------------------------------------------------------------------------------------------
# Binary result rows


def _parse_date_text(text: str) -> tuple[int, ...]:
    """'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' (as the engine keeps them) -> fields."""
    date, _, clock = text.strip().partition(" ")
    if "T" in date:
        date, _, clock = date.partition("T")
    y, mo, d = (int(p) for p in date.split("-"))
    h = mi = s = us = 0
    if clock:
        whole, _, frac = clock.partition(".")
        h, mi, s = (int(p) for p in whole.split(":"))
        us = int((frac + "000000")[:6]) if frac else 0
    return y, mo, d, h, mi, s, us


def _datetime_fields(value: Any) -> tuple[int, ...]:
    if isinstance(value, datetime.datetime):
        return (value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond)
    if isinstance(value, datetime.date):
        return value.year, value.month, value.day, 0, 0, 0, 0
    if isinstance(value, ZeroDate):
        return (value.year, value.month, value.day, value.hour, value.minute, value.second, value.microsecond)
    if isinstance(value, bytes):
        value = value.decode("ascii")
    return _parse_date_text(str(value))


def _time_fields(value: Any) -> tuple[int, int, int, int, int, int]:
    """(negative, days, hours, minutes, seconds, microseconds) of a TIME value."""
    if isinstance(value, datetime.timedelta):
        neg = value < datetime.timedelta(0)
        total = -value if neg else value
        secs = total.seconds
        return int(neg), total.days, secs // 3600, secs // 60 % 60, secs % 60, total.microseconds
    if isinstance(value, datetime.time):
        return 0, 0, value.hour, value.minute, value.second, value.microsecond
    if isinstance(value, bytes):
        value = value.decode("ascii")
    text = str(value).strip()
    neg = text.startswith("-")
    whole, _, frac = text.lstrip("+-").partition(".")
    parts = [int(p) for p in whole.split(":")]
    if len(parts) != 3:
        raise ValueError(f"not a TIME: {text!r}")
    h, m, s = parts
    us = int((frac + "000000")[:6]) if frac else 0
    return int(neg), h // 24, h % 24, m, s, us


def _encode_temporal(ftype: int, value: Any) -> bytes:
    if ftype in _TIMES:
        neg, days, h, m, s, us = _time_fields(value)
        if not (days or h or m or s or us):
            return b"\x00"
        if us:
            return b"\x0c" + _TIME_US.pack(neg, days, h, m, s, us)
        return b"\x08" + _TIME.pack(neg, days, h, m, s)
    y, mo, d, h, mi, s, us = _datetime_fields(value)
    if ftype in _DATES:
        h = mi = s = us = 0
    if us:
        return b"\x0b" + _DATETIME_US.pack(y, mo, d, h, mi, s, us)
    if h or mi or s:
        return b"\x07" + _DATETIME.pack(y, mo, d, h, mi, s)
    if y or mo or d:
        return b"\x04" + _DATE.pack(y, mo, d)
    return b"\x00"


def _as_int(value: Any) -> int:
    if isinstance(value, bool | int):
        return int(value)
    if isinstance(value, float):
        if value != int(value):
            raise ValueError(f"{value!r} is not an integer")
        return int(value)
    if isinstance(value, bytes):
        value = value.decode("ascii")
    if isinstance(value, decimal.Decimal):
        if value != value.to_integral_value():
            raise ValueError(f"{value!r} is not an integer")
        return int(value)
    return int(str(value))


def _as_text(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, float):
        return repr(value).encode()
    return str(value).encode()


def _encode_decimal(value: Any) -> bytes:
    if isinstance(value, float):
        value = decimal.Decimal(repr(value))
    elif isinstance(value, bytes):
        value = value.decode("ascii")
    text = str(value)
    decimal.Decimal(text)  # a number, or this column's type was wrong
    return encode_lenenc_bytes(text.encode("ascii"))


def _encode_value(ftype: int, value: Any, decimals: int, unsigned: bool = False) -> bytes:
    ints = _INTEGERS.get(ftype)
    if ints is not None:
        return (ints[1] if unsigned else ints[0]).pack(_as_int(value))
    if ftype == FieldType.DOUBLE:
        return _DOUBLE.pack(float(value))
    if ftype == FieldType.FLOAT:
        return _FLOAT.pack(float(value))
    if ftype in _DATES or ftype in _DATETIMES or ftype in _TIMES:
        return _encode_temporal(ftype, value)
    if ftype in _DECIMALS:
        return _encode_decimal(value)
    if ftype in _STRINGS:
        return encode_lenenc_bytes(_as_text(value))
    raise ValueError(f"no binary form for type {ftype}")


# What a value's encoding raises when its column's type cannot carry it.
_ENCODE_ERRORS = (ValueError, TypeError, OverflowError, struct.error, decimal.InvalidOperation, UnicodeError)
_UNSIGNED = int(ColumnFlag.UNSIGNED)
_call = operator.call  # map(_call, encoders, values): each value through its column's encoder


def _encode_text(value: Any) -> bytes:
    """`encode_lenenc_bytes(_as_text(value))`, str and bytes tried first."""
    cls = type(value)
    if cls is str:
        return encode_lenenc_bytes(value.encode("utf-8", "surrogateescape"))
    if cls is bytes:
        return encode_lenenc_bytes(value)
    return encode_lenenc_bytes(_as_text(value))


def _no_binary_form(ftype: int, value: Any) -> bytes:
    raise ValueError(f"no binary form for type {ftype}")


@functools.cache
def _value_encoder(ftype: int, unsigned: bool) -> Callable[[Any], bytes] | None:
    """The binary form of a non-NULL value of a column of type `ftype` (what `_encode_value`
    gives, decided here once per type); None for a NULL column, whose values are always sent as
    NULL."""
    if ftype == FieldType.NULL:
        return None
    ints = _INTEGERS.get(ftype)
    if ints is not None:
        pack = (ints[1] if unsigned else ints[0]).pack
        return lambda value: pack(value) if type(value) is int else pack(_as_int(value))
    if ftype == FieldType.DOUBLE or ftype == FieldType.FLOAT:
        pack = (_DOUBLE if ftype == FieldType.DOUBLE else _FLOAT).pack
        return lambda value: pack(float(value))
    if ftype in _DATES or ftype in _DATETIMES or ftype in _TIMES:
        return functools.partial(_encode_temporal, ftype)
    if ftype in _DECIMALS:
        return _encode_decimal
    if ftype in _STRINGS:
        return _encode_text
    return functools.partial(_no_binary_form, ftype)


class UncarriedValue(LocalProtocolError):
    """A row value that its column's type cannot carry (`column`: its index in the row)."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.column = column


_NATIVE_INTEGERS = {FieldType.TINY: "bB", FieldType.SHORT: "hH", FieldType.YEAR: "hH", FieldType.INT24: "iI",
                    FieldType.LONG: "iI", FieldType.LONGLONG: "qQ"}


def _native_kind(ftype: int, unsigned: bool) -> str | None:
    """A column's kind for `protocol._rows.encode` (its contract); None: a type it leaves to Python."""
    if ftype == FieldType.NULL:
        return "n"
    ints = _NATIVE_INTEGERS.get(ftype)
    if ints is not None:
        return ints[1] if unsigned else ints[0]
    if ftype == FieldType.DOUBLE:
        return "d"
    return "s" if ftype in _STRINGS else None


class BinaryRowEncoder:
    """Binary Protocol Resultset Rows for one list of column definitions: 0x00, the NULL bitmap
    (offset 2), the non-NULL values each in the binary form of its column's type. Each column's
    value encoder is chosen once, when the encoder is made; a row then costs one call per value.
    A value its column cannot carry raises `UncarriedValue` (the first such column of the row)."""

    __slots__ = ("_encoders", "_head", "_kinds", "_nbytes", "_null_column", "columns", "native_answer")

    def __init__(self, columns: Sequence[ColumnDefinition]) -> None:
        self.columns = tuple(columns)
        types = [(int(col.type), bool(int(col.flags) & _UNSIGNED)) for col in self.columns]
        self._encoders = [_value_encoder(*t) for t in types]
        kinds = [_native_kind(*t) for t in types]
        # every column of a kind the compiled encoder takes: a list of rows goes through it first
        self._kinds = None if None in kinds else "".join(kinds).encode()  # type: ignore[arg-type]
        # `answer`'s compiled twin with the kinds bound (None where it has none): its caller
        # asks `answer` where it declines (`ServerConnection.send_binary_rows`)
        self.native_answer = (None if self._kinds is None or _native_answer is None
                              else functools.partial(_native_answer, self._kinds))
        self._nbytes = (len(self.columns) + 9) // 8
        self._head = b"\x00" + bytes(self._nbytes)  # a row without NULLs
        self._null_column = None in self._encoders

    def encode(self, values: Sequence[Any]) -> bytes:
        """One row."""
        return self.encode_rows((values,))[0]

    def encode_rows(self, rows: Iterable[Sequence[Any]]) -> list[bytes]:
        """Each row, in order (one call for a result set: the loop stays in one frame). A list
        or tuple of tuples is offered to the compiled encoder first (`protocol._rows`), which encodes
        them as the loop below would or declines the whole list."""
        kinds = self._kinds
        if kinds is not None and _native_rows is not None and type(rows) in (list, tuple):
            encoded = _native_rows.encode(rows, kinds)
            if encoded is not None:
                return encoded
        encoders = self._encoders
        width = len(encoders)
        head = self._head
        null_column = self._null_column
        out: list[bytes] = []
        append = out.append
        values: Sequence[Any] = ()
        try:
            for values in rows:
                if len(values) != width:
                    raise LocalProtocolError(f"row has {len(values)} values for {width} columns")
                if null_column or None in values:
                    append(self._encode_nulls(values))
                else:
                    # no None among the encoders here: no NULL column
                    append(head + b"".join(map(_call, encoders, values)))  # type: ignore[arg-type]
        except _ENCODE_ERRORS:
            raise self._uncarried(values) from None
        return out

    def answer(self, head: bytes, rows: Sequence[Sequence[Any]], closing: bytes, seq: int) -> bytes:
        """A result set's bytes from its rows on, in one call: `head` (the framed column block)
        as it is, then each row encoded (`encode_rows`) and the payload `closing`, framed as
        packets from sequence id `seq`. A list or tuple of tuples is offered to the compiled
        twin first (`protocol._rows.answer`), which gives these bytes or declines the whole
        answer. Raises what `encode_rows` raises (`UncarriedValue`)."""
        kinds = self._kinds
        if kinds is not None and _native_answer is not None:
            wire = _native_answer(kinds, head, rows, closing, seq)
            if wire is not None:
                return wire
        return self.answer_encoded(head, rows, closing, seq)

    def answer_encoded(self, head: bytes, rows: Sequence[Sequence[Any]], closing: bytes, seq: int) -> bytes:
        """`answer` through the Python encoders alone: the reference, and the path of an answer
        the compiled twin declined (`native_answer` returned None)."""
        return head + frame_payloads((*self.encode_rows(rows), closing), seq)[0]

    def _encode_nulls(self, values: Sequence[Any]) -> bytes:
        bitmap = 0
        parts = []
        bit = 4  # the first column's bit: offset 2
        for encode, value in zip(self._encoders, values, strict=True):
            if value is None or encode is None:
                bitmap |= bit
            else:
                parts.append(encode(value))
            bit <<= 1
        return b"\x00" + bitmap.to_bytes(self._nbytes, "little") + b"".join(parts)

    def _uncarried(self, values: Sequence[Any]) -> LocalProtocolError:
        for i, (col, encode, value) in enumerate(zip(self.columns, self._encoders, values, strict=True)):
            if value is None or encode is None:
                continue
            try:
                encode(value)
            except _ENCODE_ERRORS as exc:
                return UncarriedValue(f"column {col.name!r} ({col.type}) cannot carry {value!r}: {exc}", i)
        return LocalProtocolError(f"row cannot be encoded: {values!r}")


def encode_binary_row(columns: Sequence[ColumnDefinition], values: Sequence[Any]) -> bytes:
    """One Binary Protocol Resultset Row (`BinaryRowEncoder`; make one encoder for many rows)."""
    return BinaryRowEncoder(columns).encode(values)


def encode_binary_row_reference(columns: Sequence[ColumnDefinition], values: Sequence[Any]) -> bytes:
    """`encode_binary_row` one value at a time through `_encode_value`: the reference the
    encoder is held equal to by tests (same bytes, same errors)."""
    width = len(columns)
    if len(values) != width:
        raise LocalProtocolError(f"row has {len(values)} values for {width} columns")
    bitmap = bytearray((width + 9) // 8)
    parts = [b"\x00", b""]
    for i, (col, value) in enumerate(zip(columns, values, strict=True)):
        if value is None or col.type == FieldType.NULL:
            bitmap[(i + 2) >> 3] |= 1 << ((i + 2) & 7)
            continue
        try:
            parts.append(_encode_value(col.type, value, col.decimals, bool(col.flags & ColumnFlag.UNSIGNED)))
        except _ENCODE_ERRORS as exc:
            raise LocalProtocolError(f"column {col.name!r} ({col.type}) cannot carry {value!r}: {exc}") from None
    parts[1] = bytes(bitmap)
    return b"".join(parts)


def decode_binary_row(payload: bytes, columns: Sequence[ColumnDefinition]) -> tuple[Any, ...]:
    """A binary row's values (client side: tests). Strings come back as bytes, DECIMAL as Decimal."""
    width = len(columns)
    nbytes = (width + 9) // 8
    try:
        if payload[0] != 0:
            raise ValueError("binary row does not start with 0x00")
        bitmap = payload[1 : 1 + nbytes]
        if len(bitmap) != nbytes:
            raise IndexError("short NULL bitmap")
        pos = 1 + nbytes
        values: list[Any] = []
        for i, col in enumerate(columns):
            if bitmap[(i + 2) >> 3] & (1 << ((i + 2) & 7)):
                values.append(None)
                continue
            value, pos = _read_value(col.type, bool(col.flags & ColumnFlag.UNSIGNED), payload, pos)
            values.append(value)
        if pos != len(payload):
            raise ValueError(f"{len(payload) - pos} trailing bytes")
    except (*_PARSE_ERRORS, RemoteProtocolError) as exc:
        raise RemoteProtocolError(f"malformed binary row: {exc}") from None
    return tuple(values)


# ---------------------------------------------------------------------------------------------
# Responses


# Flags as plain ints: an int & an IntFlag member runs the enum's __rand__, slow for every answer.
_CURSOR_EXISTS = int(ServerStatus.CURSOR_EXISTS)
_LAST_ROW_SENT = int(ServerStatus.LAST_ROW_SENT)


def _terminator(capabilities: int, status: int, warnings: int = 0) -> bytes:
    """The packet closing a block: EOF, or OK with header 0xFE under CLIENT_DEPRECATE_EOF."""
    if capabilities & DEPRECATE_EOF:
        return OK(0, 0, status, warnings).encode(capabilities, header=EOF_HEADER)
    return EOF(warnings, status).encode()


def _row_payloads(columns: Sequence[ColumnDefinition], rows: Sequence[Sequence[Any]],
                  encoded: Sequence[bytes] | None) -> list[bytes]:
    if encoded is not None:
        return list(encoded)
    return BinaryRowEncoder(columns).encode_rows(rows)


PARAM_DEFINITION = ColumnDefinition("?", FieldType.NULL, charset=63, length=0, flags=ColumnFlag.BINARY)


@dataclass(frozen=True, slots=True)
class PrepareOK:
    """COM_STMT_PREPARE_OK, then `num_params` parameter definitions and the column definitions,
    each block followed by an EOF unless CLIENT_DEPRECATE_EOF (no EOF after an empty block)."""

    statement_id: int
    columns: tuple[ColumnDefinition, ...]
    num_params: int
    warnings: int = 0
    status: int = ServerStatus.AUTOCOMMIT  # for the EOFs

    def payloads(self, capabilities: int = 0) -> list[bytes]:
        out = [PREPARE_OK_FORMAT.build(dict(
            statement_id=self.statement_id, num_columns=len(self.columns), num_params=self.num_params,
            warning_count=self.warnings,
        ))]
        deprecate_eof = capabilities & Capability.CLIENT_DEPRECATE_EOF
        extended = bool(capabilities & EXTENDED_METADATA)
        if self.num_params:
            param = PARAM_DEFINITION.encode(extended)
            out.extend(param for _ in range(self.num_params))
            if not deprecate_eof:
                out.append(EOF(0, self.status).encode())
        if self.columns:
            out.extend(col.encode(extended) for col in self.columns)
            if not deprecate_eof:
                out.append(EOF(0, self.status).encode())
        return out

    @classmethod
    def decode(cls, payload: bytes) -> PrepareOK:
        """The first packet only (client side: tests); columns are placeholders by count."""
        try:
            v = PREPARE_OK_FORMAT.parse(payload)
        except _PARSE_ERRORS as exc:
            raise RemoteProtocolError(f"malformed COM_STMT_PREPARE_OK: {exc}") from None
        return cls(v.statement_id, tuple(ColumnDefinition("") for _ in range(v.num_columns)),
                   v.num_params, v.warning_count)


@dataclass(frozen=True, slots=True)
class BinaryResultSet:
    """The answer to COM_STMT_EXECUTE with columns: column count, definitions, [EOF], binary
    rows, EOF/OK. With `cursor` (CURSOR_TYPE_READ_ONLY) no rows follow the definitions: the
    block is closed with SERVER_STATUS_CURSOR_EXISTS and COM_STMT_FETCH reads the rows (the
    closing packet is sent whatever CLIENT_DEPRECATE_EOF says, as MySQL's open cursor does)."""

    columns: tuple[ColumnDefinition, ...]
    rows: tuple[Sequence[Any], ...] = ()
    status: int = ServerStatus.AUTOCOMMIT
    warnings: int = 0
    cursor: bool = False
    encoded_rows: Sequence[bytes] | None = None  # the rows already encoded for `columns`; then `rows` is not read
    # `col.encode(extended)` of each of `columns` (`extended`: the connection's EXTENDED_METADATA),
    # kept by the caller
    encoded_columns: Sequence[bytes] | None = None

    def payloads(self, capabilities: int = 0) -> list[bytes]:
        encoded = self.encoded_columns
        if encoded is None:
            extended = bool(capabilities & EXTENDED_METADATA)
            encoded = [col.encode(extended) for col in self.columns]
        if self.cursor:
            out = [encode_lenenc_int(len(encoded)), *encoded]
            out.append(_terminator(capabilities, self.status | _CURSOR_EXISTS, self.warnings))
            return out
        out = _column_block(encoded, capabilities, self.status, self.warnings)
        out.extend(_row_payloads(self.columns, self.rows, self.encoded_rows))
        out.append(_terminator(capabilities, self.status, self.warnings))
        return out


def _column_block(encoded_columns: Sequence[bytes], capabilities: int, status: int, warnings: int) -> list[bytes]:
    """A result set's packets before its rows: column count, definitions, and the EOF after
    them unless CLIENT_DEPRECATE_EOF."""
    out = [encode_lenenc_int(len(encoded_columns)), *encoded_columns]
    if not capabilities & DEPRECATE_EOF:
        out.append(EOF(warnings, status).encode())
    return out


class ResultHead:
    """What a result set, binary or text (no cursor, no warnings, no more results), sends around
    its rows for one column list on one connection, kept across answers: its column block
    (`_column_block`, the same in both protocols) framed from sequence id 1, where the answer to
    a command starts, and its closing packet's payload, each made once per server status (a
    handful of flag sets). `ServerConnection.send_rows` frames the rows between them: the bytes
    `send` gives for the `BinaryResultSet`, or for the text `ResultSet` of rows encoded by
    `messages.text_row_payloads`; `send_binary_rows` encodes binary rows in the same pass
    (`BinaryRowEncoder.answer`)."""

    __slots__ = ("columns", "encoded_columns", "packets", "_capabilities", "arounds")

    def __init__(self, columns: Sequence[ColumnDefinition], encoded_columns: Sequence[bytes],
                 capabilities: int) -> None:
        self.columns = tuple(columns)
        self.encoded_columns = tuple(encoded_columns)
        self.packets = len(_column_block(self.encoded_columns, capabilities, 0, 0))  # (whatever the status)
        self._capabilities = capabilities
        self.arounds: dict[int, tuple[bytes, bytes]] = {}  # `around`'s, by status (read by `send_binary_rows`)

    @classmethod
    def of(cls, columns: Sequence[ColumnDefinition], capabilities: int) -> ResultHead:
        """The head of `columns` on a connection of `capabilities` (each column encoded with
        MariaDB's extended type info when the client asked for it)."""
        extended = bool(capabilities & EXTENDED_METADATA)
        return cls(columns, [col.encode(extended) for col in columns], capabilities)

    def block(self, status: int) -> list[bytes]:
        """The column block's payloads, unframed."""
        return _column_block(self.encoded_columns, self._capabilities, status, 0)

    def around(self, status: int) -> tuple[bytes, bytes]:
        """What goes around the rows for `status`: the column block framed from sequence id 1,
        and the closing packet's payload."""
        pair = self.arounds.get(status)
        if pair is None:
            pair = self.arounds[status] = (frame_payloads(self.block(status), 1)[0],
                                           _terminator(self._capabilities, status))
        return pair


@dataclass(frozen=True, slots=True)
class BinaryRows:
    """The answer to COM_STMT_FETCH: up to the rows asked, then EOF/OK with CURSOR_EXISTS, and
    LAST_ROW_SENT once the cursor is exhausted."""

    columns: tuple[ColumnDefinition, ...]
    rows: tuple[Sequence[Any], ...]
    last: bool
    status: int = ServerStatus.AUTOCOMMIT
    warnings: int = 0
    encoded_rows: Sequence[bytes] | None = None  # as BinaryResultSet's

    def payloads(self, capabilities: int = 0) -> list[bytes]:
        out = _row_payloads(self.columns, self.rows, self.encoded_rows)
        status = self.status | _CURSOR_EXISTS
        if self.last:
            status |= _LAST_ROW_SENT
        out.append(_terminator(capabilities, status, self.warnings))
        return out


BINARY_RESPONSES = (PrepareOK, BinaryResultSet, BinaryRows)

__all__ = [
    "BINARY_RESPONSES", "BULK_SEND_TYPES_TO_SERVER", "BULK_SEND_UNIT_RESULTS", "COM_STMT_BULK_EXECUTE",
    "COM_STMT_CLOSE", "COM_STMT_EXECUTE", "COM_STMT_FETCH", "COM_STMT_PREPARE",
    "COM_STMT_RESET", "COM_STMT_SEND_LONG_DATA", "CURSOR_TYPE_READ_ONLY", "EXECUTE_HEAD", "STMT_COMMANDS",
    "BinaryResultSet", "BinaryRows", "ComStmtBulkExecute", "ComStmtClose", "ComStmtExecute", "ComStmtFetch",
    "ComStmtPrepare", "ComStmtReset", "ComStmtSendLongData", "ParamType", "ParamsLayout", "PrepareOK", "ZeroDate",
    "BinaryRowEncoder", "UncarriedValue", "decode_binary_row", "decode_execute_params",
    "Indicator", "decode_bulk_rows", "encode_bulk_rows",
    "decode_stmt_command", "decode_stmt_command_declared", "encode_binary_row",
    "encode_binary_row_reference", "encode_execute_params", "encode_param", "plain_execute",
]
