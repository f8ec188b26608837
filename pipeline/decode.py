"""Binlog bytes -> Arrow record batches, one row per event, fast.

Contract:
- A row is `source_row(event_row(...))` of the reference decoder (`binlog.rows.event_row`, what
  `semisync binlog --json` prints): the keys in `CORE_FIELDS` as typed columns (null when the
  event has no such key) and every other key in `details`, a compact JSON object in
  `ROW_FIELDS` order (null when there is none); `flat_row` turns a row back into the reference
  row. `ARROW_SCHEMA` is CORE_FIELDS then `details`. Integers are int64 (an unsigned 64-bit value
  above 2**63 - 1, e.g. a huge XID, wraps to negative; in `details` it is printed unsigned, as
  the reference prints it); text that is not valid UTF-8 gets U+FFFD.
- `decode_range(path, label, start, end, checksum)` reads the complete events that start in
  [start, end) of one file. `start` must be an event boundary (4, or a split point found by
  `scan_boundaries`); `checksum` is the CRC32 setting in force there (the last
  FORMAT_DESCRIPTION before `start`). A half-written last event is left out (a file being
  appended); an impossible event size, a CRC32 mismatch or a corrupt body raises
  `BinlogFileError` naming the offset of the event.
- Speed: nothing is per-event Python on the frequent path. Two implementations of the fast
  path give the same rows (the tests hold both to the reference, and to each other on damaged
  files): the C scanner (`pipeline.native`, `pipeline/_binlog_scan.c`: a walk over the event
  sizes, a CRC32 per event, the columns of the frequent events in one pass) when it was built
  (`NATIVE`), and else numpy: events framed column-wise from log_pos (see `frame`; the Python
  walk only where that chain breaks, e.g. in a relay log); CRC32 checked for a whole chunk in
  two passes (see `_verify`); the header and the fixed part of the frequent bodies (QUERY,
  XID, GTID, TABLE_MAP, rows events) from one 48-byte gather per event, each type decoded on
  its own rows, text columns copied out of the chunk by one Arrow `take` each, and `details`
  text built once per distinct shape (a QUERY's thread_id/exec_time/error_code/sql_mode, a
  GTID's flags2/commit_id, a TABLE_MAP's column types) with Arrow compute functions. Every
  other event, and any frequent one that does not have the regular shape, goes through
  `protocol.events.decode_event` + `binlog.rows.event_row` (the reference decoder), so the
  paths cannot disagree on anything but the fast paths' checks being laxer about bytes nobody
  reports (e.g. status variables after sql_mode).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlog.reader import BinlogFileError
from binlog.rows import ROW_FIELDS, event_row
from pipeline import native
from protocol.errors import ProtocolError
from protocol.events import (
    BINLOG_MAGIC,
    CHECKSUM_LEN,
    EVENT_SIZE_AT,
    FL_COMPLETED_XA,
    FL_GROUP_COMMIT_ID,
    FL_PREPARED_XA,
    FL_STANDALONE,
    GTID_FIELD_AT,
    GTID_PADDING_LEN,
    HEADER_FIELD_AT,
    HEADER_LEN,
    LOG_POS_AT,
    MAX_EVENT_SIZE,
    Q_FLAGS2_CODE,
    Q_SQL_MODE_CODE,
    QUERY_FIELD_AT,
    ROWS_V1_FIELD_AT,
    ROWS_V2_FIELD_AT,
    STATUS_VAR_LEN,
    TABLE_MAP_FIELD_AT,
    TYPE_CODE_AT,
    XID_BODY_LEN,
    EventType,
    decode_event,
    format_description_checksum,
    type_name,
)
from protocol.statements import BEGIN_SQL, GROUP_END_SQL

_ARROW_TYPES = {"int": pa.int64(), "str": pa.string()}  # the kinds of CORE_FIELDS
# The typed columns: where an event is, its header, and the body fields most events have or
# that jobs filter on. Every other key of a row (each rare on its own) goes into `details`.
CORE_FIELDS = (
    "file", "pos", "size", "type_code", "type", "server_id", "timestamp", "log_pos", "flags",
    "db", "query", "xid", "gtid", "next_file", "next_pos", "table_id", "table", "rows_flags",
)
DETAIL_FIELDS = tuple(name for name in ROW_FIELDS if name not in CORE_FIELDS)
ARROW_SCHEMA = pa.schema(
    [pa.field(name, _ARROW_TYPES[ROW_FIELDS[name]]) for name in CORE_FIELDS] + [pa.field("details", pa.string())]
)
COLUMNS = list(ARROW_SCHEMA.names)
HEADER_COLUMNS = ("file", "pos", "size", "type_code", "type", "server_id", "timestamp", "log_pos", "flags")
BODY_COLUMNS = [name for name in COLUMNS if name not in HEADER_COLUMNS]


def details_json(row: dict[str, Any]) -> str | None:
    """The `details` value of a row: its keys outside CORE_FIELDS as compact JSON, in
    ROW_FIELDS order (None when it has none)."""
    extra = {name: _utf8(row[name]) for name in DETAIL_FIELDS if name in row}
    return json.dumps(extra, separators=(",", ":"), ensure_ascii=False) if extra else None


def source_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row of `semisync binlog --json` as the source gives it: core keys plus `details`."""
    out = {name: row[name] for name in CORE_FIELDS if name in row}
    details = details_json(row)
    if details is not None:
        out["details"] = details
    return out


def flat_row(row: dict[str, Any]) -> dict[str, Any]:
    """The inverse of `source_row`: a source row (nulls left out or not) as `semisync binlog
    --json` prints it."""
    out = {k: v for k, v in row.items() if v is not None and k != "details"}
    if row.get("details") is not None:
        out.update(json.loads(row["details"]))
    return out


# Read this much of a file at a time (one record batch per chunk).
CHUNK_BYTES = 8 << 20

_SIZE = struct.Struct("<I").unpack_from

# Event types whose bodies the fast path decodes.
QUERY = EventType.QUERY_EVENT
XID = EventType.XID_EVENT
GTID = EventType.GTID_EVENT
TABLE_MAP = EventType.TABLE_MAP_EVENT
ANNOTATE = EventType.ANNOTATE_ROWS_EVENT
ROWS_V1 = (EventType.WRITE_ROWS_EVENT_V1, EventType.UPDATE_ROWS_EVENT_V1, EventType.DELETE_ROWS_EVENT_V1)
ROWS_V2 = (EventType.WRITE_ROWS_EVENT, EventType.UPDATE_ROWS_EVENT, EventType.DELETE_ROWS_EVENT)
FAST_TYPES = frozenset({QUERY, XID, GTID, TABLE_MAP, ANNOTATE, *ROWS_V1, *ROWS_V2})
# Types the reference decoder gives a typed body (every other type's row is header-only).
_TYPED = frozenset({
    EventType.FORMAT_DESCRIPTION_EVENT, EventType.ROTATE_EVENT, EventType.INTVAR_EVENT,
    EventType.RAND_EVENT, EventType.USER_VAR_EVENT, EventType.STOP_EVENT,
    EventType.HEARTBEAT_LOG_EVENT, EventType.HEARTBEAT_LOG_EVENT_V2, EventType.GTID_LIST_EVENT,
    EventType.BINLOG_CHECKPOINT_EVENT, EventType.BEGIN_LOAD_QUERY_EVENT, EventType.APPEND_BLOCK_EVENT,
    EventType.EXECUTE_LOAD_QUERY_EVENT, EventType.DELETE_FILE_EVENT, *FAST_TYPES,
})
_TYPE_NAMES = pa.array([type_name(code) for code in range(256)], pa.string())
_IS_ROWS_V2 = np.zeros(256, dtype=bool)
_IS_ROWS_V2[list(ROWS_V2)] = True
_SLOW_TYPES = np.zeros(256, dtype=bool)
_SLOW_TYPES[[t for t in _TYPED if t not in FAST_TYPES]] = True


# ---------------------------------------------------------------------------------------------
# Framing: where the events are
# ---------------------------------------------------------------------------------------------
def walk(buf: bytes, start: int, limit: int) -> tuple[list[int], int]:
    """Offsets of the complete events in buf[start:] that start before `limit`, and where the
    walk stopped (the first incomplete or unread event). Raises ValueError(offset) on an event
    size below the header length."""
    offsets: list[int] = []
    add = offsets.append
    off = start
    stop = min(limit, len(buf) - HEADER_LEN + 1)
    n = len(buf)
    size_at = EVENT_SIZE_AT
    while off < stop:
        size = _SIZE(buf, off + size_at)[0]
        if size < HEADER_LEN:
            raise ValueError(off)
        if off + size > n:
            break
        add(off)
        off += size
    return offsets, off


class _Scratch:
    """Work arrays kept between chunks, so that a chunk's byte-wise passes do not fault in fresh
    pages every time: `ramp` holds 0, 1, 2, ... modulo 256, `diff` and `hit` are outputs, `zeros`
    the CRC32 check's model, `positions` 0, 1, 2, ... as int32."""

    def __init__(self) -> None:
        self.size = -1
        self._zeros = np.zeros(0, dtype=np.uint8)
        self._positions = np.zeros(0, dtype=np.int32)

    def get(self, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if self.size < m:
            self.size = max(m, CHUNK_BYTES)
            self.ramp = np.arange(self.size + 256, dtype=np.uint64).astype(np.uint8)
            self.diff = np.empty(self.size, dtype=np.uint8)
            self.hit = np.empty(self.size, dtype=bool)
        return self.ramp, self.diff[:m], self.hit[:m]

    def zeros(self, m: int) -> np.ndarray:
        """m zero bytes, which the caller must leave zero again."""
        if len(self._zeros) < m:
            self._zeros = np.zeros(max(m, CHUNK_BYTES), dtype=np.uint8)
        return self._zeros[:m]

    def positions(self, m: int) -> np.ndarray:
        """0, 1, ..., m - 1 as int32."""
        if len(self._positions) < m:
            self._positions = np.arange(max(m, CHUNK_BYTES), dtype=np.int32)
        return self._positions[:m]


_SCRATCH = _Scratch()


def frame(buf: bytes, base: int, limit: int) -> tuple[np.ndarray, int]:
    """`walk(buf, 0, limit)` as an int64 array, fast for binlogs: there an event's log_pos is the
    file offset of its end, so every event start p has log_pos - event_size == base + p. That
    holds modulo 256 for the low bytes of the two fields, which two byte-wise passes test at
    every p at once; the few thousand positions it lets through are tested on the whole fields,
    and those that chain from offset 0 (each starting where the previous one ends) are events.
    Where the chain breaks (a relay log, whose events carry the master's log_pos, or bytes that
    merely look like a header), the Python walk takes over from the last event of the chain."""
    n = len(buf)
    m = max(0, min(limit, n - HEADER_LEN + 1))  # positions whose header fits in buf
    a = np.frombuffer(buf, dtype=np.uint8)
    ramp, diff, hit = _SCRATCH.get(m)
    np.subtract(a[LOG_POS_AT : LOG_POS_AT + m], a[EVENT_SIZE_AT : EVENT_SIZE_AT + m], out=diff)  # low bytes: log_pos - size
    first = base & 0xFF
    np.equal(diff, ramp[first : first + m], out=hit)  # == (base + p) mod 256
    cand = np.flatnonzero(hit)
    assert LOG_POS_AT == EVENT_SIZE_AT + 4
    fields = _uints(buf, cand + EVENT_SIZE_AT, 8)  # event_size, then log_pos
    size = fields & 0xFFFFFFFF
    good = (((fields >> 32) - size - cand - base) & 0xFFFFFFFF == 0) & (size >= HEADER_LEN)
    cand, size = cand[good], size[good]
    if len(cand) and cand[0] == 0:
        ends = cand + size
        cand, ends = cand[ends <= n], ends[ends <= n]
        broken = np.flatnonzero(cand[1:] != ends[:-1])
        chain = len(cand) if not len(broken) else int(broken[0]) + 1
        if chain and cand[0] == 0:
            start = int(ends[chain - 1])
            rest, stop = walk(buf, start, limit)
            if not rest:
                return cand[:chain], start
            return np.concatenate([cand[:chain], np.asarray(rest, dtype=np.int64)]), stop
    rest, stop = walk(buf, 0, limit)
    return np.asarray(rest, dtype=np.int64), stop


# The C scanner (pipeline.native) frames and decodes when it was built; else the numpy functions
# here do (`frame`, `_numpy_columns`), which give the same rows, only slower.
NATIVE = native.LIB is not None


def _frame(buf: bytes, base: int, limit: int) -> tuple[np.ndarray, int]:
    return native.frame(buf, limit) if NATIVE else frame(buf, base, limit)


def _uints(buf: bytes, idx: np.ndarray, width: int) -> np.ndarray:
    """The `width`-byte (4 or 8) little-endian unsigned integer at each offset in idx, as int64
    (8 bytes wrap): one gather from a view of buf with a stride of one byte."""
    view = np.ndarray((max(0, len(buf) - width + 1),), dtype=f"<u{width}", buffer=buf, strides=(1,))
    return view[idx].astype(np.int64)


def _ranges(buf: pa.Buffer, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """The byte ranges buf[starts[k]:ends[k]] (ascending and apart) as a binary array, copied out
    by one Arrow `take`: with the gaps between them they are the strings of one binary array
    over buf, whose even strings are taken."""
    bounds = np.empty(2 * len(starts), dtype=np.int32)
    bounds[0::2] = starts
    bounds[1::2] = ends
    gapped = pa.Array.from_buffers(pa.binary(), max(len(bounds) - 1, 0), [None, pa.py_buffer(bounds), buf])
    return gapped.take(pa.array(_SCRATCH.positions(len(starts)) * 2))


def _offsets(array: pa.Array) -> np.ndarray:
    """The int32 offsets of a string or binary array (len(array) + 1 of them)."""
    return np.frombuffer(array.buffers()[1], dtype=np.int32, count=len(array) + 1, offset=array.offset * 4)


def _validity(valid: np.ndarray) -> tuple[pa.Buffer | None, int]:
    nulls = int(len(valid) - np.count_nonzero(valid))
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), nulls


def _as_text(binary: pa.Array) -> pa.Array:
    """A binary array as a string array: text that is not UTF-8 gets U+FFFD."""
    bitmap, offsets, data = binary.buffers()
    text = pa.StringArray.from_buffers(len(binary), offsets, data, bitmap, binary.null_count, binary.offset)
    if data is not None and data.size and np.frombuffer(data, dtype=np.uint8).max() >= 0x80:
        try:
            text.validate(full=True)
        except pa.ArrowInvalid:
            text = pa.array([None if v is None else v.decode("utf-8", "replace") for v in binary.to_pylist()], pa.string())
    return text


def _utf8(value: Any) -> Any:
    """A reference-decoded value for Arrow: text that was not UTF-8 (surrogate escapes) gets U+FFFD."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    elif isinstance(value, list):
        return [_utf8(v) for v in value]
    return value


def _ints(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """An int64 column (valid None: no nulls)."""
    bitmap, nulls = (None, 0) if valid is None else _validity(valid)
    data = pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))
    return pa.Array.from_buffers(pa.int64(), len(values), [bitmap, data], nulls)


_DECIMAL = pa.array([str(i) for i in range(256)], pa.string())


def _text(values: np.ndarray) -> pa.Array:
    """Integers as decimal text."""
    return pa.array(values).cast(pa.string())


def _concat(*parts: Any) -> pa.Array:
    """Element-wise concatenation of string arrays and constants."""
    return pc.binary_join_element_wise(*parts, "")


def _ints_at(n: int, pieces: list[tuple[np.ndarray, np.ndarray]]) -> pa.Array:
    """An int64 column of n rows: rows idx of each (idx, values) piece get the values, the
    others null."""
    values = np.zeros(n, dtype=np.int64)
    valid = np.zeros(n, dtype=bool)
    for idx, vals in pieces:
        values[idx] = vals
        valid[idx] = True
    return _ints(values, valid)


def _strings_at(buf: pa.Buffer, n: int, spans: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> pa.Array:
    """A string column of n rows: rows idx of each (idx, starts, lengths) span get those bytes
    of `buf`, the others null. (Each row's span lies in its own event, so in row order the
    spans are ascending and apart, as `_ranges` needs.)"""
    starts = np.zeros(n, dtype=np.int32)
    ends = np.zeros(n, dtype=np.int32)
    valid = np.zeros(n, dtype=bool)
    for idx, at, length in spans:
        starts[idx] = at
        ends[idx] = at + length
        valid[idx] = True
    rows = np.flatnonzero(valid)
    if not len(rows):
        return pa.nulls(n, pa.string())
    return _spread(valid, _as_text(_ranges(buf, starts[rows], ends[rows])))


def _spread(valid: np.ndarray, compact: pa.Array) -> pa.Array:
    """A string column of len(valid) rows: the valid ones get the strings of `compact` (no
    nulls, first offset 0) in order, the others null. The same bytes: only the offsets are
    spread, each null row repeating the offset before it."""
    offsets = _offsets(compact)
    spread = np.empty(len(valid) + 1, dtype=np.int32)
    spread[0] = 0
    spread[1:] = offsets[np.cumsum(valid, dtype=np.int32)]
    bitmap, nulls = _validity(valid)
    return pa.StringArray.from_buffers(len(valid), pa.py_buffer(spread), compact.buffers()[2], bitmap, nulls)


def _distinct(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct values of a 1-D array of fixed-size records, each record's index among
    them): text built from a record is built once per distinct record."""
    width = keys.dtype.itemsize
    enc = pc.dictionary_encode(
        pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), len(keys), [None, pa.py_buffer(np.ascontiguousarray(keys))])
    )
    uniq = enc.dictionary
    values = np.frombuffer(uniq.buffers()[1], dtype=keys.dtype, count=len(uniq), offset=uniq.offset * width)
    return values, enc.indices.to_numpy()


def _distinct_bytes(buf: pa.Buffer, starts: np.ndarray, ends: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """`_distinct` for the (ascending, apart) byte ranges [starts[k], ends[k]) of buf: (a
    binary array of the distinct ones, each range's index among them)."""
    enc = pc.dictionary_encode(_ranges(buf, starts, ends))
    return enc.dictionary, enc.indices.to_numpy()


def _code_lists(binary: pa.Array) -> pa.Array:
    """Each byte string of a binary array as the list of its bytes' decimal texts."""
    offsets = _offsets(binary)
    data = binary.buffers()[2]
    codes = np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    return pa.ListArray.from_arrays(pa.array(offsets - offsets[0]), _DECIMAL.take(pa.array(codes)))


def _from_texts(n: int, pieces: list[tuple[np.ndarray, pa.Array, np.ndarray]]) -> pa.Array:
    """A string column of n rows: row idx[k] of each (idx, texts, which) piece gets
    texts[which[k]], the others null."""
    pick = np.zeros(n, dtype=np.int32)
    valid = np.zeros(n, dtype=bool)
    used, start = [], 0
    for idx, texts, which in pieces:
        if len(idx):
            pick[idx] = which + start
            valid[idx] = True
            start += len(texts)
            used.append(texts)
    if not used:
        return pa.nulls(n, pa.string())
    texts = pa.concat_arrays(used) if len(used) > 1 else used[0]
    return _spread(valid, texts.take(pa.array(pick[valid])))


# The first _WINDOW bytes of every event are gathered in one pass: its header and the fixed part
# of the frequent bodies (up to a QUERY's sql_mode after Q_FLAGS2), as records of these layouts.
_WINDOW = 48
_B = HEADER_LEN  # where a body starts in the window


def _layout(**fields: tuple[str, int]) -> np.dtype:
    return np.dtype({"names": list(fields), "formats": [f for f, _ in fields.values()],
                     "offsets": [at for _, at in fields.values()], "itemsize": _WINDOW})


# Every offset below comes from protocol.events' declarations.
_H = HEADER_FIELD_AT
_HEADER = _layout(timestamp=("<u4", _H["timestamp"]), type_code=("u1", _H["type_code"]),
                  server_id=("<u4", _H["server_id"]), size=("<u4", _H["event_size"]),
                  log_pos=("<u4", _H["log_pos"]), flags=("<u2", _H["flags"]))
# QUERY_EVENT: thread_id exec_time db_len error_code status_vars_len | status vars (sql_mode is
# the first one, or the one after Q_FLAGS2_CODE: how MariaDB and MySQL order them)
_Q = QUERY_FIELD_AT
_Q_POST_HEADER = _Q["status_vars"]  # where the status variables start
_SV_MODE = 1 + STATUS_VAR_LEN[Q_SQL_MODE_CODE]  # code byte + sql_mode
_SV_FLAGS2 = 1 + STATUS_VAR_LEN[Q_FLAGS2_CODE]  # code byte + flags2
_QUERY = _layout(thread_id=("<u4", _B + _Q["thread_id"]), exec_time=("<u4", _B + _Q["exec_time"]),
                 db_len=("u1", _B + _Q["db_len"]), error_code=("<u2", _B + _Q["error_code"]),
                 sv_len=("<u2", _B + _Q["status_vars_len"]), code1=("u1", _B + _Q_POST_HEADER),
                 mode1=("<u8", _B + _Q_POST_HEADER + 1), code2=("u1", _B + _Q_POST_HEADER + _SV_FLAGS2),
                 mode2=("<u8", _B + _Q_POST_HEADER + _SV_FLAGS2 + 1))
# GTID_EVENT (MariaDB): seq_no domain_id flags2 [commit_id | 6 bytes of padding]
_G = GTID_FIELD_AT
_GTID = _layout(seq_no=("<u8", _B + _G["seq_no"]), domain_id=("<u4", _B + _G["domain_id"]),
                flags2=("u1", _B + _G["flags2"]), commit_id=("<u8", _B + _G["commit_id"]))
_XID = _layout(xid=("<u8", _B))
# TABLE_MAP_EVENT and rows events: table_id(6) flags(2) then db_len | extra_len(2, v2 rows)
_T = TABLE_MAP_FIELD_AT
assert _T["table_id"] == ROWS_V2_FIELD_AT["table_id"] and _T["flags"] == ROWS_V2_FIELD_AT["flags"]
_TABLE = _layout(table_id=("<u8", _B + _T["table_id"]), flags=("<u2", _B + _T["flags"]),
                 db_len=("u1", _B + _T["db_len"]), extra_len=("<u2", _B + ROWS_V2_FIELD_AT["extra_len"]))
_TABLE_MAP_MIN = _T["db"] + 4  # db \0 table_len table \0 column_count: at least 4 more bytes
_QUERY_KEY = np.dtype([("thread_id", "<u4"), ("exec_time", "<u4"), ("error_code", "<u2"), ("has_mode", "u1"),
                       ("mode", "<u8")])
_GTID_KEY = np.dtype([("flags2", "u1"), ("committed", "u1"), ("commit_id", "<u8")])


def _windows(buf: bytes, o: np.ndarray) -> np.ndarray:
    """The _WINDOW bytes at each (ascending) offset of buf, one void record each, zero-padded
    past the end of buf (view them as a layout above to read fields)."""
    last = len(buf) - _WINDOW
    if last >= 0:
        records = np.ndarray((last + 1,), dtype=f"V{_WINDOW}", buffer=buf, strides=(1,))
        out = records[np.minimum(o, last)]
    else:
        out = np.zeros(len(o), dtype=f"V{_WINDOW}")
    for i in range(int(np.searchsorted(o, last, side="right")), len(o)):  # the last few events
        out[i] = np.void(bytes(buf[o[i] : o[i] + _WINDOW]).ljust(_WINDOW, b"\0"))
    return out


# ---------------------------------------------------------------------------------------------
# One chunk of events -> one record batch
# ---------------------------------------------------------------------------------------------
class _Columns:
    """The columns of one batch being built: Arrow arrays by name, null where not set."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.arrays: dict[str, pa.Array] = {}

    def finish(self, slow: dict[int, dict[str, Any]]) -> pa.RecordBatch:
        """The batch, with the rows in `slow` (row index -> reference row) put in."""
        n = self.n
        if slow:
            rows = sorted(slow)
            where = np.zeros(n, dtype=bool)
            where[rows] = True
            mask = pa.array(where)
            # row i of a column <- values[k] for the k-th slow row, null elsewhere
            picks = np.full(n, -1, dtype=np.int64)
            picks[rows] = np.arange(len(rows))
            take = pa.array(picks, mask=picks < 0)
            for name in BODY_COLUMNS:  # the header columns are decoded alike for every event
                if not any(name in slow[i] for i in rows):
                    continue
                typ = ARROW_SCHEMA.field(name).type
                values = pa.array([_utf8(slow[i].get(name)) for i in rows], typ).take(take)
                current = self.arrays.get(name)
                self.arrays[name] = values if current is None else pc.if_else(mask, values, current)
        cols = [
            self.arrays.get(name) if name in self.arrays else pa.nulls(n, ARROW_SCHEMA.field(name).type)
            for name in COLUMNS
        ]
        return pa.RecordBatch.from_arrays(cols, schema=ARROW_SCHEMA)


def decode_chunk(
    buf: bytes, offsets: np.ndarray, base: int, label: str, checksum: np.ndarray, path: str
) -> pa.RecordBatch:
    """Rows for the events at `offsets` of `buf` (buf[0] is file offset `base`); `checksum[i]`:
    event i ends in a CRC32 footer (already verified)."""
    cols, slow_mask, tcode = (_native_columns if NATIVE else _numpy_columns)(buf, offsets, base, checksum)
    cols.arrays["file"] = pa.repeat(pa.scalar(label, pa.string()), cols.n)
    cols.arrays["type"] = _TYPE_NAMES.take(pa.array(tcode))
    # the reference decoder for everything else
    slow: dict[int, dict[str, Any]] = {}
    for i in np.flatnonzero(slow_mask).tolist():
        off = int(offsets[i])
        raw = buf[off : off + _SIZE(buf, off + EVENT_SIZE_AT)[0]]
        try:
            ev = decode_event(raw, checksum=bool(checksum[i]))
        except ProtocolError as e:
            raise BinlogFileError(path, base + off, f"corrupt event: {e.message}") from None
        slow[i] = source_row(event_row(label, base + off, ev))
    return cols.finish(slow)


# kind[type_code]: what the C scanner decodes of an event of that type
_KIND = np.full(256, native.K_HEADER, dtype=np.uint8)
_KIND[_SLOW_TYPES] = native.K_SLOW
_KIND[[QUERY, XID, GTID, TABLE_MAP, ANNOTATE]] = [native.K_QUERY, native.K_XID, native.K_GTID, native.K_TABLE_MAP,
                                                  native.K_ANNOTATE]
_KIND[list(ROWS_V1)] = native.K_ROWS_V1
_KIND[list(ROWS_V2)] = native.K_ROWS_V2


def _native_columns(
    buf: bytes, offsets: np.ndarray, base: int, checksum: np.ndarray
) -> tuple[_Columns, np.ndarray, np.ndarray]:
    """`_numpy_columns` by the C scanner."""
    scan = native.columns(buf, offsets, base, checksum, _KIND)
    cols = _Columns(len(offsets))
    valid = dict(zip(native.NULLABLE_INTS + native.TEXTS, scan.valid, strict=True))
    for name, values in zip(native.INTS, scan.ints, strict=True):
        cols.arrays[name] = _ints(values, valid.get(name))
    for name, (offs, data) in zip(native.TEXTS, scan.texts, strict=True):
        bitmap, nulls = _validity(valid[name])
        binary = pa.BinaryArray.from_buffers(pa.binary(), len(offsets), [bitmap, pa.py_buffer(offs), pa.py_buffer(data)], nulls)
        cols.arrays[name] = _as_text(binary)
    return cols, scan.slow, scan.ints[native.INTS.index("type_code")]


def _numpy_columns(
    buf: bytes, offsets: np.ndarray, base: int, checksum: np.ndarray
) -> tuple[_Columns, np.ndarray, np.ndarray]:
    """The columns of the events at `offsets` but `file` and `type`, the rows that are the
    reference decoder's (their body columns left null), and the type codes."""
    n = len(offsets)
    a = np.frombuffer(buf, dtype=np.uint8)
    o = np.asarray(offsets, dtype=np.int64)
    win = _windows(buf, o)
    source = pa.py_buffer(buf)
    head = win.view(_HEADER)
    cols = _Columns(n)
    A = cols.arrays
    size = head["size"].astype(np.int64)
    tcode = head["type_code"].astype(np.int64)
    A["pos"] = _ints(o + base)
    A["size"] = _ints(size)
    A["type_code"] = _ints(tcode)
    for name in ("server_id", "timestamp", "log_pos", "flags"):
        A[name] = _ints(head[name])

    b = o + HEADER_LEN  # body start
    body_len = size - HEADER_LEN - np.where(checksum, CHECKSUM_LEN, 0)
    slow_mask = _SLOW_TYPES[tcode].copy()
    ints: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {"xid": [], "table_id": [], "rows_flags": []}
    texts: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {"db": [], "query": [], "table": []}
    built: dict[str, list[tuple[np.ndarray, pa.Array, np.ndarray]]] = {"gtid": [], "details": []}

    # the rows of each type, ascending: a stable (radix) sort of the type codes
    by_type = np.argsort(head["type_code"], kind="stable")
    count = np.bincount(tcode, minlength=256)
    type_end = np.cumsum(count)

    def rows_of(*codes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(row indices, body starts, body lengths, windows) of the events of these types."""
        idx = np.concatenate([by_type[type_end[c] - count[c] : type_end[c]] for c in codes])
        return idx, b[idx], body_len[idx], win[idx]

    def keep(idx: np.ndarray, ok: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        """Sends the rows whose body does not have the regular shape to the reference decoder;
        returns the selection of the others from arrays of these rows."""
        if ok.all():
            return lambda x: x
        slow_mask[idx[~ok]] = True
        return lambda x: x[ok]

    # -- QUERY_EVENT
    qi, qb, qlen, qw = rows_of(QUERY)
    q = qw.view(_QUERY)
    ok = qlen >= _Q_POST_HEADER
    sv_len = np.where(ok, q["sv_len"], 0).astype(np.int64)
    db_len = np.where(ok, q["db_len"], 0).astype(np.int64)
    q_db = qb + _Q_POST_HEADER + sv_len
    q_text = q_db + db_len + 1
    ok &= q_text <= qb + qlen
    ok &= a[np.where(ok, q_text - 1, 0)] == 0
    # sql_mode: Q_SQL_MODE_CODE first, or right after Q_FLAGS2_CODE
    first = np.where(ok & (sv_len >= _SV_MODE), q["code1"], 255)
    second = np.where(ok & (sv_len >= _SV_FLAGS2 + _SV_MODE) & (first == Q_FLAGS2_CODE), q["code2"], 255)
    has_mode = (first == Q_SQL_MODE_CODE) | (second == Q_SQL_MODE_CODE)
    # anything else carrying sql_mode (or no regular layout): the reference decoder
    ok &= has_mode | (sv_len == 0) | ((first == Q_FLAGS2_CODE) & (sv_len == _SV_FLAGS2))
    sel = keep(qi, ok)
    qi, qb, qlen, qw, q_db, db_len, q_text, has_mode, first = map(
        sel, (qi, qb, qlen, qw, q_db, db_len, q_text, has_mode, first)
    )
    q = qw.view(_QUERY)
    texts["db"].append((qi, q_db, db_len))
    texts["query"].append((qi, q_text, qb + qlen - q_text))
    key = np.zeros(len(qi), dtype=_QUERY_KEY)
    for name in ("thread_id", "exec_time", "error_code"):
        key[name] = q[name]
    key["has_mode"] = has_mode
    key["mode"] = np.where(first == Q_SQL_MODE_CODE, q["mode1"], np.where(has_mode, q["mode2"], 0))
    uniq, which = _distinct(key)
    built["details"].append((qi, _concat(
        '{"thread_id":', _text(uniq["thread_id"]), ',"exec_time":', _text(uniq["exec_time"]),
        ',"error_code":', _text(uniq["error_code"]),
        pc.if_else(pa.array(uniq["has_mode"] != 0), _concat(',"sql_mode":', _text(uniq["mode"])), ""), "}",
    ), which))

    # -- XID_EVENT: xid (8 bytes, nothing after)
    xi, _, xlen, xw = rows_of(XID)
    sel = keep(xi, xlen == XID_BODY_LEN)
    ints["xid"].append((sel(xi), sel(xw).view(_XID)["xid"].view(np.int64)))

    # -- GTID_EVENT (MariaDB)
    gi, _, glen, gw = rows_of(GTID)
    g = gw.view(_GTID)
    committed = (g["flags2"] & FL_GROUP_COMMIT_ID) != 0
    ok = committed | ((g["flags2"] & (FL_PREPARED_XA | FL_COMPLETED_XA)) == 0)  # XA: reference decoder
    ok &= np.where(committed, glen >= _G["commit_id"] + 8, glen >= _G["commit_id"] + GTID_PADDING_LEN)
    ok &= committed | (g["commit_id"] & 0xFFFF_FFFF_FFFF == 0)  # the padding is zeros
    sel = keep(gi, ok)
    gi, gw, committed = map(sel, (gi, gw, committed))
    g = gw.view(_GTID)
    built["gtid"].append((gi, pc.binary_join_element_wise(
        _text(g["domain_id"]), _text(head["server_id"][gi]), _text(g["seq_no"]), "-"
    ), _SCRATCH.positions(len(gi))))
    key = np.zeros(len(gi), dtype=_GTID_KEY)
    key["flags2"] = g["flags2"]
    key["committed"] = committed
    key["commit_id"] = np.where(committed, g["commit_id"], 0)
    uniq, which = _distinct(key)
    built["details"].append((gi, _concat(
        '{"flags2":', _text(uniq["flags2"]),
        pc.if_else(pa.array(uniq["committed"] != 0), _concat(',"commit_id":', _text(uniq["commit_id"])), ""), "}"
    ), which))

    # -- TABLE_MAP_EVENT: table_id(6) flags(2) db_len db \0 table_len table \0 ncols types mlen meta nullbits
    ti, tb, tlen, tw = rows_of(TABLE_MAP)
    t_end = tb + tlen
    ok = tlen >= _TABLE_MAP_MIN
    t_db_len = np.where(ok, tw.view(_TABLE)["db_len"], 0).astype(np.int64)
    t_tl_at = tb + _T["db"] + t_db_len + 1
    ok &= t_tl_at + 1 < t_end
    t_tl = np.where(ok, a[np.where(ok, t_tl_at, 0)], 0).astype(np.int64)
    t_nc_at = t_tl_at + 1 + t_tl + 1
    ok &= t_nc_at < t_end
    ok &= (a[np.where(ok, t_tl_at - 1, 0)] == 0) & (a[np.where(ok, t_nc_at - 1, 0)] == 0)
    ncols = np.where(ok, a[np.where(ok, t_nc_at, 0)], 0).astype(np.int64)
    ok &= ncols < 251
    t_ml_at = t_nc_at + 1 + ncols
    ok &= t_ml_at < t_end
    mlen = np.where(ok, a[np.where(ok, t_ml_at, 0)], 0).astype(np.int64)
    ok &= (mlen < 251) & (t_ml_at + 1 + mlen + (ncols + 7) // 8 <= t_end)
    sel = keep(ti, ok)
    ti, tb, tw, t_db_len, t_tl_at, t_tl, t_nc_at, ncols = map(sel, (ti, tb, tw, t_db_len, t_tl_at, t_tl, t_nc_at, ncols))
    ints["table_id"].append((ti, (tw.view(_TABLE)["table_id"] & 0xFFFF_FFFF_FFFF).view(np.int64)))
    texts["db"].append((ti, tb + _T["db"], t_db_len))
    texts["table"].append((ti, t_tl_at + 1, t_tl))
    # column_types: the text of each distinct list of type codes, built once
    types, which = _distinct_bytes(source, t_nc_at + 1, t_nc_at + 1 + ncols)
    codes = _code_lists(types)
    built["details"].append((ti, _concat('{"column_types":[', pc.binary_join(codes, ","), "]}"), which))

    # -- rows events: table_id(6) flags(2) [extra_len(2) extra] rows
    ri, _, rlen, rw = rows_of(*ROWS_V1, *ROWS_V2)
    v2 = _IS_ROWS_V2[tcode[ri]]
    ok = rlen >= np.where(v2, ROWS_V2_FIELD_AT["extra"], ROWS_V1_FIELD_AT["rows"])
    extra_len = np.where(v2 & ok, rw.view(_TABLE)["extra_len"], 2)  # extra_len counts its own 2 bytes
    ok &= ~v2 | ((extra_len >= 2) & (ROWS_V2_FIELD_AT["extra_len"] + extra_len <= rlen))
    sel = keep(ri, ok)
    ri, rw = sel(ri), sel(rw).view(_TABLE)
    ints["table_id"].append((ri, (rw["table_id"] & 0xFFFF_FFFF_FFFF).view(np.int64)))
    ints["rows_flags"].append((ri, rw["flags"]))

    # -- ANNOTATE_ROWS_EVENT: the statement
    ai, ab, alen, _ = rows_of(ANNOTATE)
    sel = keep(ai, alen >= 0)
    texts["query"].append((sel(ai), sel(ab), sel(alen)))

    for name, pieces in ints.items():
        A[name] = _ints_at(n, pieces)
    for name, spans in texts.items():
        A[name] = _strings_at(source, n, spans)
    for name, parts in built.items():
        A[name] = _from_texts(n, parts)
    return cols, slow_mask, tcode


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------
def open_binlog(path: str) -> int:
    """Check the magic number; returns the file's size. BinlogFileError if it is not a binlog."""
    with open(path, "rb") as f:
        magic = f.read(len(BINLOG_MAGIC))
        size = os.fstat(f.fileno()).st_size
    if magic != BINLOG_MAGIC:
        raise BinlogFileError(path, 0, "not a binlog file (bad magic number)")
    return size


def decode_range(
    path: str,
    label: str,
    start: int,
    end: int | None,
    checksum: bool,
    *,
    verify_checksums: bool = True,
    chunk_bytes: int = CHUNK_BYTES,
) -> Iterator[pa.RecordBatch]:
    """Record batches for the complete events starting in [start, end) of `path` (end None: to
    the end of the file as it is now). See the module contract."""
    open_binlog(path)
    off = max(start, len(BINLOG_MAGIC))
    with open(path, "rb") as f:
        while end is None or off < end:
            f.seek(off)
            buf = f.read(chunk_bytes)
            if len(buf) < HEADER_LEN:
                return
            try:
                offsets, stop = _frame(buf, off, len(buf) if end is None else end - off)
            except ValueError as e:
                at = e.args[0]
                raise BinlogFileError(path, off + at, f"impossible event size {_SIZE(buf, at + EVENT_SIZE_AT)[0]}") from None
            if not len(offsets):
                # the next event does not fit in what was read
                size = _SIZE(buf, EVENT_SIZE_AT)[0]
                if size > MAX_EVENT_SIZE:
                    raise BinlogFileError(path, off, f"impossible event size {size}")
                if len(buf) < chunk_bytes:
                    return  # half-written, at the end of the file
                f.seek(off)
                buf = f.read(size)
                if len(buf) < size:
                    return
                offsets, stop = np.zeros(1, dtype=np.int64), size
            flags, checksum = _checksums(buf, offsets, checksum, path, off)
            if verify_checksums:
                _verify(buf, offsets, flags, path, off)
            yield decode_chunk(buf, offsets, off, label, flags, path)
            off += stop


def _fd_checksum(buf: bytes, off: int, path: str, base: int) -> bool:
    size = _SIZE(buf, off + EVENT_SIZE_AT)[0]
    try:
        return format_description_checksum(buf[off : off + size])
    except ProtocolError as e:
        raise BinlogFileError(path, base + off, f"corrupt FORMAT_DESCRIPTION_EVENT: {e.message}") from None


def _checksums(buf: bytes, offsets: np.ndarray, checksum: bool, path: str, base: int) -> tuple[np.ndarray, bool]:
    """Per event: does it end in a CRC32 footer (as the last FORMAT_DESCRIPTION before it says)?
    Also the setting after the last event."""
    a = np.frombuffer(buf, dtype=np.uint8)
    o = np.asarray(offsets, dtype=np.int64)
    flags = np.full(len(offsets), checksum, dtype=bool)
    for i in np.flatnonzero(a[o + TYPE_CODE_AT] == EventType.FORMAT_DESCRIPTION_EVENT).tolist():
        checksum = _fd_checksum(buf, int(offsets[i]), path, base)
        flags[i + 1 :] = checksum
    return flags, checksum


def _verify(buf: bytes, offsets: np.ndarray, flags: np.ndarray, path: str, base: int) -> None:
    """CRC32 of every event that has a footer (FORMAT_DESCRIPTION checks its own when decoded).

    Two CRC32 passes over the whole range instead of one call per event: an event followed by
    its own CRC32 is a block whose CRC32 is a constant, so the CRC32 of a run of such blocks
    depends only on their lengths, and equals that of a run of zero-filled blocks of the same
    lengths, each followed by the CRC32 of its zeros. If it does not, `_verify_each` finds the
    event. (A single corrupt event is detected exactly when its own check would detect it: the
    bytes after it multiply its error polynomial by a power of x, which CRC32's generator never
    divides.)"""
    a = np.frombuffer(buf, dtype=np.uint8)
    o = np.asarray(offsets, dtype=np.int64)
    checked = flags & (a[o + TYPE_CODE_AT] != EventType.FORMAT_DESCRIPTION_EVENT)
    if not checked.any():
        return
    if NATIVE:  # event by event, in C
        bad = native.verify(buf, o, checked)
        if bad is not None:
            raise _crc_mismatch(buf, int(o[bad]), path, base)
        return
    sizes = np.empty(len(o), dtype=np.int64)  # the events are back to back
    sizes[:-1] = o[1:] - o[:-1]
    sizes[-1] = _SIZE(buf, int(o[-1]) + EVENT_SIZE_AT)[0]
    lo, hi = int(o[0]), int(o[-1] + sizes[-1])
    model = _SCRATCH.zeros(hi - lo)
    copied = np.flatnonzero(~checked).tolist()
    for i in copied:  # events without a footer: the same bytes
        model[o[i] - lo : o[i] - lo + sizes[i]] = a[o[i] : o[i] + sizes[i]]
    lengths = sizes[checked] - CHECKSUM_LEN
    at = o[checked] + lengths - lo
    footers = np.ndarray((len(model) - CHECKSUM_LEN + 1,), dtype="<u4", buffer=model, strides=(1,))
    footers[at] = _crc_of_zeros(lengths)
    intact = zlib.crc32(model.data) == zlib.crc32(memoryview(buf)[lo:hi])
    footers[at] = 0  # the scratch back to zeros
    for i in copied:
        model[o[i] - lo : o[i] - lo + sizes[i]] = 0
    if not intact:
        _verify_each(buf, o[checked], sizes[checked], path, base)
        raise BinlogFileError(path, base + lo, "CRC32 mismatch in this range")  # not reached


_ZEROS_CRC = np.zeros(0, dtype=np.uint32)
_ZEROS_KNOWN = np.zeros(0, dtype=bool)


def _crc_of_zeros(lengths: np.ndarray) -> np.ndarray:
    """CRC32 of `length` zero bytes, for each length (kept between calls)."""
    global _ZEROS_CRC, _ZEROS_KNOWN
    top = int(lengths.max()) + 1
    if len(_ZEROS_CRC) < top:
        _ZEROS_CRC = np.concatenate([_ZEROS_CRC, np.zeros(top - len(_ZEROS_CRC), dtype=np.uint32)])
        _ZEROS_KNOWN = np.concatenate([_ZEROS_KNOWN, np.zeros(top - len(_ZEROS_KNOWN), dtype=bool)])
    for length in np.unique(lengths[~_ZEROS_KNOWN[lengths]]).tolist():
        _ZEROS_CRC[length] = zlib.crc32(bytes(length))
        _ZEROS_KNOWN[length] = True
    return _ZEROS_CRC[lengths]


def _verify_each(buf: bytes, o: np.ndarray, sizes: np.ndarray, path: str, base: int) -> None:
    """The event-by-event CRC32 check: raises for the first event whose footer is wrong."""
    body_end = o + sizes - CHECKSUM_LEN
    mv = memoryview(buf)
    crc = zlib.crc32
    computed = np.array([crc(mv[s:e]) for s, e in zip(o.tolist(), body_end.tolist(), strict=True)], dtype=np.int64)
    bad = np.flatnonzero(computed != _uints(buf, body_end, 4))
    if len(bad):
        raise _crc_mismatch(buf, int(o[bad[0]]), path, base)


def _crc_mismatch(buf: bytes, off: int, path: str, base: int) -> BinlogFileError:
    return BinlogFileError(path, base + off, f"{type_name(buf[off + TYPE_CODE_AT])}: CRC32 mismatch")


def scan_boundaries(
    path: str, start: int, end: int, *, every: int | None, crc: bool, chunk_bytes: int = CHUNK_BYTES
) -> list[tuple[int, bool]]:
    """Walk the event headers of `path` from the boundary `start` up to byte `end`: returns
    (offset, CRC32 setting there) for `start`, for the first boundary past each further `every`
    bytes (None: none), and last for the end of the last complete event before `end` (so a
    half-written event is left out). Once the file has shown a GTID event, a split boundary is
    the first GTID event past the mark: a range then starts with a whole transaction, so the
    GTID of each of its events is known from the range alone."""
    open_binlog(path)
    off = max(start, len(BINLOG_MAGIC))
    points = [(off, crc)]
    next_split = off + every if every else None
    seen_gtid = False
    with open(path, "rb") as f:
        while off < end:
            f.seek(off)
            buf = f.read(min(chunk_bytes, end - off))
            try:
                offsets, stop = _frame(buf, off, len(buf))
            except ValueError as e:
                at = e.args[0]
                raise BinlogFileError(path, off + at, f"impossible event size {_SIZE(buf, at + EVENT_SIZE_AT)[0]}") from None
            if not len(offsets):
                size = _SIZE(buf, EVENT_SIZE_AT)[0] if len(buf) >= HEADER_LEN else 0
                if size > MAX_EVENT_SIZE:
                    raise BinlogFileError(path, off, f"impossible event size {size}")
                if len(buf) < HEADER_LEN or off + size > end:
                    break  # half-written
                offsets, stop = np.zeros(1, dtype=np.int64), size
            flags, crc = _checksums(buf, offsets, crc, path, off)
            if next_split is not None:
                # the first boundary (GTID event) at or past each split mark (flags[i]: the
                # setting at event i)
                at = np.arange(len(offsets))
                gtids = np.frombuffer(buf, dtype=np.uint8)[offsets + TYPE_CODE_AT] == GTID
                seen_gtid |= bool(gtids.any())
                if seen_gtid:
                    at = at[gtids]
                o = offsets[at] + off
                while (k := int(np.searchsorted(o, next_split))) < len(o):
                    points.append((int(o[k]), bool(flags[at[k]])))
                    next_split = int(o[k]) + every  # type: ignore[operator]
            off += stop
    if points[-1][0] != off:
        points.append((off, crc))
    return points


# ---------------------------------------------------------------------------------------------
# Transactions: the GTID of every event of a MariaDB GTID group
# ---------------------------------------------------------------------------------------------
# A group is its GTID event and the events after it up to its end: an XID, a COMMIT/ROLLBACK
# query (XA PREPARE/COMMIT/ROLLBACK too), or, when the GTID is standalone (FL_STANDALONE: DDL,
# a non-transactional statement), its first query, unless that is a BEGIN. Events between groups (FORMAT_DESCRIPTION,
# GTID_LIST, BINLOG_CHECKPOINT, ROTATE, STOP) belong to none. Which statements begin and end
# one: protocol.statements' rule (ROLLBACK [WORK] TO [SAVEPOINT] x ends nothing).
_FLAGS2 = r'"flags2":(?P<flags2>\d+)'


@dataclass
class OpenGroup:
    """The GTID group open at the end of what was read so far (None between groups)."""

    gtid: str
    standalone: bool


def _matches(texts: pa.Array, pattern: str) -> np.ndarray:
    return pc.fill_null(pc.match_substring_regex(texts, pattern, ignore_case=True), False).to_numpy(zero_copy_only=False)


def gtid_groups(batch: pa.RecordBatch, carry: OpenGroup | None) -> tuple[np.ndarray, pa.Array, OpenGroup | None]:
    """Which GTID group each row of a batch belongs to: (index into the returned GTIDs per row,
    -1 for none; the GTIDs, the first the carried group's; the group open after the batch).
    `carry`: the group open before the batch (from the previous batch of the same file)."""
    n = batch.num_rows
    tcode = batch.column("type_code").to_numpy(zero_copy_only=False)
    is_gtid = tcode == GTID
    starts = np.flatnonzero(is_gtid)
    gtids = pa.concat_arrays([pa.array([carry.gtid if carry else None], pa.string()),
                              batch.column("gtid").take(pa.array(starts))])
    flags2 = pc.extract_regex(batch.column("details").take(pa.array(starts)), _FLAGS2).field("flags2")
    standalone = np.zeros(len(starts) + 1, dtype=bool)
    standalone[0] = bool(carry and carry.standalone)
    standalone[1:] = (pc.cast(flags2, pa.int64()).to_numpy(zero_copy_only=False) & FL_STANDALONE) != 0
    gid = np.cumsum(is_gtid)  # 0: the carried group
    queries = np.flatnonzero(tcode == QUERY)
    texts = batch.column("query").take(pa.array(queries))
    # a BEGIN as a group's first query opens a transaction even under a standalone GTID
    groups_of, first = np.unique(gid[queries], return_index=True)
    standalone[groups_of[_matches(texts.take(pa.array(first)), BEGIN_SQL)]] = False
    is_end = tcode == XID
    is_end[queries] = _matches(texts, GROUP_END_SQL) | standalone[gid[queries]]
    ends_before = np.cumsum(is_end) - is_end  # ends in the batch before each row
    base = np.zeros(len(starts) + 1, dtype=np.int64)
    base[1:] = ends_before[starts]
    inside = (ends_before - base[gid] == 0) & ((gid > 0) | (carry is not None))
    group = np.where(inside, gid, -1)
    after = carry
    if n:
        last = int(gid[-1])
        gtid = gtids[last].as_py()
        open_after = bool(inside[-1] and not is_end[-1])
        after = OpenGroup(gtid, bool(standalone[last])) if open_after and gtid is not None else None
    return group, gtids, after


def with_gtids(batch: pa.RecordBatch, carry: OpenGroup | None) -> tuple[pa.RecordBatch, OpenGroup | None]:
    """The batch with `gtid` set on every event of a GTID group (the group's GTID), and the
    group open after it. The rows are otherwise the decoder's."""
    group, gtids, after = gtid_groups(batch, carry)
    if gtids.null_count == len(gtids):
        return batch, after
    values = gtids.take(pa.array(group, mask=group < 0))
    return batch.set_column(COLUMNS.index("gtid"), "gtid", values), after


def gtid_batches(batches: Iterator[pa.RecordBatch], carry: OpenGroup | None = None) -> Iterator[pa.RecordBatch]:
    """`with_gtids` over the batches of one file, in order."""
    for batch in batches:
        batch, carry = with_gtids(batch, carry)
        yield batch
