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
- Speed: nothing is per-event Python on the frequent path. Events are framed column-wise from
  log_pos (the Python walk only where that chain breaks, e.g. in a relay log); CRC32 is checked
  for a whole chunk in two passes (see `_verify`); header fields and the bodies of the frequent
  types (QUERY, XID, GTID, TABLE_MAP, rows events, ANNOTATE_ROWS) are gathered with numpy
  straight from the file's bytes, each type on its own rows, and their `details` text built
  with Arrow compute functions. Every other event, and any frequent one that does not have the
  regular shape, goes through `protocol.events.decode_event` + `binlog.rows.event_row` (the
  reference decoder), so the two paths cannot disagree on anything but the fast path's checks
  being laxer about bytes nobody reports (e.g. status variables after sql_mode).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlog.reader import BinlogFileError
from binlog.rows import ROW_FIELDS, event_row
from protocol.errors import ProtocolError
from protocol.events import (
    BINLOG_MAGIC,
    CHECKSUM_LEN,
    HEADER_LEN,
    MAX_EVENT_SIZE,
    EventType,
    decode_event,
    format_description_checksum,
    type_name,
)

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
    EventType.BINLOG_CHECKPOINT_EVENT, *FAST_TYPES,
})
_TYPE_NAMES = pa.array([type_name(code) for code in range(256)], pa.string())
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
    while off < stop:
        size = _SIZE(buf, off + 9)[0]
        if size < HEADER_LEN:
            raise ValueError(off)
        if off + size > n:
            break
        add(off)
        off += size
    return offsets, off


_RAMP = np.arange(0, dtype=np.uint32)


def _ramp(m: int) -> np.ndarray:
    """0, 1, ..., m - 1 as uint32 (kept between calls: one chunk's worth)."""
    global _RAMP
    if len(_RAMP) < m:
        _RAMP = np.arange(max(m, CHUNK_BYTES), dtype=np.uint32)
    return _RAMP[:m]


def frame(buf: bytes, base: int, limit: int) -> tuple[np.ndarray, int]:
    """`walk(buf, 0, limit)` as an int64 array, fast for binlogs: there an event's log_pos is the
    file offset of its end, so every position p where log_pos - event_size == base + p is a
    candidate start (found column-wise for all p at once); the candidates that chain from offset
    0 (each starting where the previous one ends) are events. Where the chain breaks (a relay
    log, whose events carry the master's log_pos, or bytes that merely look like a header), the
    Python walk takes over from the last event of the chain."""
    n = len(buf)
    m = max(0, min(limit, n - HEADER_LEN + 1))  # positions whose header fits in buf
    size = np.ndarray((m,), dtype="<u4", buffer=buf, offset=9, strides=(1,))
    log_pos = np.ndarray((m,), dtype="<u4", buffer=buf, offset=13, strides=(1,))
    start = np.subtract(log_pos, size)
    np.subtract(start, _ramp(m), out=start)
    cand = np.flatnonzero(start == np.uint32(base & 0xFFFFFFFF))
    cand = cand[size[cand] >= HEADER_LEN]
    if len(cand) and cand[0] == 0:
        ends = cand + _Bytes(buf).u(cand + 9, 4)
        cand, ends = cand[ends <= n], ends[ends <= n]
        broken = np.flatnonzero(cand[1:] != ends[:-1])
        chain = len(cand) if not len(broken) else int(broken[0]) + 1
        if chain and cand[0] == 0:
            start = int(ends[chain - 1])
            rest, stop = walk(buf, start, limit)
            if not rest:
                return cand[:chain].astype(np.int64), start
            return np.concatenate([cand[:chain], np.asarray(rest, dtype=np.int64)]), stop
    rest, stop = walk(buf, 0, limit)
    return np.asarray(rest, dtype=np.int64), stop


class _Bytes:
    """Little-endian unsigned integers at any byte offsets of a buffer, one gather each (numpy
    views of the buffer as u2/u4/u8 with a stride of one byte)."""

    def __init__(self, buf: bytes) -> None:
        self.a = np.frombuffer(buf, dtype=np.uint8)
        n = len(buf)
        self._views = {
            width: np.ndarray((max(0, n - width + 1),), dtype=f"<u{width}", buffer=buf, strides=(1,))
            for width in (2, 4, 8)
        }

    def u(self, idx: np.ndarray, width: int) -> np.ndarray:
        """`width` (1, 2, 4, 6 or 8) bytes at each offset in idx, as int64 (8 bytes wrap)."""
        if width == 1:
            return self.a[idx].astype(np.int64)
        if width == 6:
            return self._views[8][idx].astype(np.int64) & 0xFFFF_FFFF_FFFF
        return self._views[width][idx].astype(np.int64)


def _segments(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate the byte ranges a[starts[i]:starts[i]+lengths[i]] -> (int32 offsets, bytes)."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    if total == 0:
        return offsets.astype(np.int32), np.zeros(0, dtype=np.uint8)
    # the byte positions to gather: +1 from byte to byte, a jump where each range begins
    rows = np.flatnonzero(lengths)
    first, size = starts[rows], lengths[rows]
    step = np.ones(total, dtype=np.int64)
    step[0] = first[0]
    step[offsets[rows[1:]]] = first[1:] - (first[:-1] + size[:-1] - 1)
    return offsets.astype(np.int32), a[np.cumsum(step)]


def _validity(valid: np.ndarray) -> tuple[pa.Buffer | None, int]:
    nulls = int(len(valid) - np.count_nonzero(valid))
    if nulls == 0:
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), nulls


def _strings(a: np.ndarray, starts: np.ndarray, lengths: np.ndarray, valid: np.ndarray) -> pa.Array:
    lengths = np.where(valid, lengths, 0)
    offsets, data = _segments(a, starts, lengths)
    bitmap, nulls = _validity(valid)
    arr = pa.StringArray.from_buffers(
        len(valid), pa.py_buffer(offsets), pa.py_buffer(data), bitmap, nulls
    )
    try:
        arr.validate(full=True)
    except pa.ArrowInvalid:
        # not UTF-8 somewhere: decode row by row, replacing what is not
        binary = pa.Array.from_buffers(pa.binary(), len(valid), [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)], nulls)
        arr = pa.array(
            [None if v is None else v.decode("utf-8", "replace") for v in binary.to_pylist()], pa.string()
        )
    return arr


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


def _ints(values: np.ndarray, valid: np.ndarray) -> pa.Array:
    bitmap, nulls = _validity(valid)
    return pa.Array.from_buffers(pa.int64(), len(valid), [bitmap, pa.py_buffer(np.ascontiguousarray(values, dtype=np.int64))], nulls)


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


def _strings_at(a: np.ndarray, n: int, spans: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> pa.Array:
    """A string column of n rows: rows idx of each (idx, starts, lengths) span get those bytes
    of `a`, the others null."""
    starts = np.zeros(n, dtype=np.int64)
    lengths = np.zeros(n, dtype=np.int64)
    valid = np.zeros(n, dtype=bool)
    for idx, at, length in spans:
        starts[idx] = at
        lengths[idx] = length
        valid[idx] = True
    return _strings(a, starts, lengths, valid)


def _scatter(n: int, pieces: list[tuple[np.ndarray, pa.Array]]) -> pa.Array:
    """A string column of n rows: row idx[k] of each (idx, values) piece gets values[k], the
    others null."""
    pos = np.full(n, -1, dtype=np.int64)
    used, start = [], 0
    for idx, values in pieces:
        if len(idx):
            pos[idx] = np.arange(start, start + len(idx))
            start += len(idx)
            used.append(values)
    if not used:
        return pa.nulls(n, pa.string())
    return pa.concat_arrays(used).take(pa.array(pos, mask=pos < 0))


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
    n = len(offsets)
    r = _Bytes(buf)
    a, U = r.a, r.u
    o = np.asarray(offsets, dtype=np.int64)
    cols = _Columns(n)
    A = cols.arrays
    size = U(o + 9, 4)
    tcode = a[o + 4].astype(np.int64)
    server_id = U(o + 5, 4)
    every = np.ones(n, dtype=bool)
    A["file"] = pa.repeat(pa.scalar(label, pa.string()), n)
    A["pos"] = _ints(o + base, every)
    A["size"] = _ints(size, every)
    A["type_code"] = _ints(tcode, every)
    A["type"] = _TYPE_NAMES.take(pa.array(tcode))
    A["server_id"] = _ints(server_id, every)
    A["timestamp"] = _ints(U(o, 4), every)
    A["log_pos"] = _ints(U(o + 13, 4), every)
    A["flags"] = _ints(U(o + 17, 2), every)

    b = o + HEADER_LEN  # body start
    body_len = size - HEADER_LEN - np.where(checksum, CHECKSUM_LEN, 0)
    slow_mask = _SLOW_TYPES[tcode].copy()
    ints: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {"xid": [], "table_id": [], "rows_flags": []}
    texts: dict[str, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {"db": [], "query": [], "table": []}
    built: dict[str, list[tuple[np.ndarray, pa.Array]]] = {"gtid": [], "details": []}

    def rows_of(*codes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row indices, body starts, body lengths) of the events of these types."""
        idx = np.flatnonzero(tcode == codes[0]) if len(codes) == 1 else np.flatnonzero(np.isin(tcode, codes))
        return idx, b[idx], body_len[idx]

    def keep(idx: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """The rows whose body has the regular shape; the others go to the reference decoder."""
        slow_mask[idx[~ok]] = True
        return ok

    # -- QUERY_EVENT: thread_id exec_time db_len error_code status_vars_len | status | db \0 query
    qi, qb, qlen = rows_of(QUERY)
    ok = qlen >= 13
    qb_ok = np.where(ok, qb, 0)
    sv_len = np.where(ok, U(qb_ok + 11, 2), 0)
    db_len = np.where(ok, a[qb_ok + 8], 0).astype(np.int64)
    q_db = qb + 13 + sv_len
    q_text = q_db + db_len + 1
    ok &= q_text <= qb + qlen
    ok &= a[np.where(ok, q_text - 1, 0)] == 0
    # sql_mode: Q_SQL_MODE_CODE first, or right after Q_FLAGS2_CODE (how MariaDB/MySQL order them)
    sv = qb + 13
    first = np.where(ok & (sv_len >= 9), a[np.where(ok & (sv_len >= 9), sv, 0)], 255)
    second = np.where(ok & (sv_len >= 14) & (first == 0), a[np.where(ok & (sv_len >= 14), sv + 5, 0)], 255)
    mode_at = np.where(first == 1, sv + 1, np.where(second == 1, sv + 6, -1))
    has_mode = mode_at >= 0
    # anything else carrying sql_mode (or no regular layout): the reference decoder
    ok &= has_mode | (sv_len == 0) | ((first == 0) & (sv_len == 5))
    keep(qi, ok)
    qi, qb, qlen, q_db, db_len, q_text, mode_at, has_mode = (
        x[ok] for x in (qi, qb, qlen, q_db, db_len, q_text, mode_at, has_mode)
    )
    texts["db"].append((qi, q_db, db_len))
    texts["query"].append((qi, q_text, qb + qlen - q_text))
    mode = _text(U(np.where(has_mode, mode_at, 0), 8).view(np.uint64))
    built["details"].append((qi, _concat(
        '{"thread_id":', _text(U(qb, 4)), ',"exec_time":', _text(U(qb + 4, 4)),
        ',"error_code":', _text(U(qb + 9, 2)),
        pc.if_else(pa.array(has_mode), _concat(',"sql_mode":', mode), ""), "}",
    )))

    # -- XID_EVENT: xid (8 bytes, nothing after)
    xi, xb, xlen = rows_of(XID)
    ok = keep(xi, xlen == 8)
    ints["xid"].append((xi[ok], U(xb[ok], 8)))

    # -- GTID_EVENT (MariaDB): seq_no domain_id flags2 [commit_id | padding]
    gi, gb, glen = rows_of(GTID)
    ok = glen >= 13
    flags2 = np.where(ok, a[np.where(ok, gb + 12, 0)], 0).astype(np.int64)
    committed = (flags2 & 0x02) != 0
    ok &= committed | ((flags2 & 0xC0) == 0)  # XA: reference decoder
    ok &= np.where(committed, glen >= 21, glen >= 19)
    plain = ok & ~committed
    pad = np.zeros(len(gi), dtype=np.int64)
    for k in range(6):
        pad |= a[np.where(plain, gb + 13 + k, 0)] * plain
    ok &= ~(plain & (pad != 0))
    keep(gi, ok)
    gi, gb, flags2, committed = gi[ok], gb[ok], flags2[ok], committed[ok]
    built["gtid"].append((gi, pc.binary_join_element_wise(
        _text(U(gb + 8, 4)), _text(server_id[gi]), _text(U(gb, 8).view(np.uint64)), "-"
    )))
    commit_id = _text(U(np.where(committed, gb + 13, 0), 8).view(np.uint64))
    built["details"].append((gi, _concat(
        '{"flags2":', _text(flags2), pc.if_else(pa.array(committed), _concat(',"commit_id":', commit_id), ""), "}"
    )))

    # -- TABLE_MAP_EVENT: table_id(6) flags(2) db_len db \0 table_len table \0 ncols types mlen meta nullbits
    ti, tb, tlen = rows_of(TABLE_MAP)
    t_end = tb + tlen
    ok = tlen >= 13
    t_db_len = np.where(ok, a[np.where(ok, tb + 8, 0)], 0).astype(np.int64)
    t_tl_at = tb + 9 + t_db_len + 1
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
    keep(ti, ok)
    ti, tb, t_db_len, t_tl_at, t_tl, t_nc_at, ncols = (x[ok] for x in (ti, tb, t_db_len, t_tl_at, t_tl, t_nc_at, ncols))
    ints["table_id"].append((ti, U(tb, 6)))
    texts["db"].append((ti, tb + 9, t_db_len))
    texts["table"].append((ti, t_tl_at + 1, t_tl))
    ct_off, ct_data = _segments(a, t_nc_at + 1, ncols)
    types = pc.binary_join(pa.ListArray.from_arrays(pa.array(ct_off), _DECIMAL.take(pa.array(ct_data))), ",")
    built["details"].append((ti, _concat('{"column_types":[', types, "]}")))

    # -- rows events: table_id(6) flags(2) [extra_len(2) extra] rows
    ri, rb, rlen = rows_of(*ROWS_V1, *ROWS_V2)
    v2 = np.isin(tcode[ri], ROWS_V2)
    ok = rlen >= np.where(v2, 10, 8)
    extra_len = np.where(v2 & ok, U(np.where(v2 & ok, rb + 8, 0), 2), 2)
    ok &= ~v2 | ((extra_len >= 2) & (8 + extra_len <= rlen))
    keep(ri, ok)
    ri, rb = ri[ok], rb[ok]
    ints["table_id"].append((ri, U(rb, 6)))
    ints["rows_flags"].append((ri, U(rb + 6, 2)))

    # -- ANNOTATE_ROWS_EVENT: the statement
    ai, ab, alen = rows_of(ANNOTATE)
    texts["query"].append((ai, ab, alen))

    for name, pieces in ints.items():
        A[name] = _ints_at(n, pieces)
    for name, spans in texts.items():
        A[name] = _strings_at(a, n, spans)
    for name, parts in built.items():
        A[name] = _scatter(n, parts)

    # the reference decoder for everything else
    slow: dict[int, dict[str, Any]] = {}
    for i in np.flatnonzero(slow_mask).tolist():
        off = int(offsets[i])
        raw = buf[off : off + int(size[i])]
        try:
            ev = decode_event(raw, checksum=bool(checksum[i]))
        except ProtocolError as e:
            raise BinlogFileError(path, base + off, f"corrupt event: {e.message}") from None
        slow[i] = source_row(event_row(label, base + off, ev))
    return cols.finish(slow)


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
                offsets, stop = frame(buf, off, len(buf) if end is None else end - off)
            except ValueError as e:
                at = e.args[0]
                raise BinlogFileError(path, off + at, f"impossible event size {_SIZE(buf, at + 9)[0]}") from None
            if not len(offsets):
                # the next event does not fit in what was read
                size = _SIZE(buf, 9)[0]
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
    size = _SIZE(buf, off + 9)[0]
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
    for i in np.flatnonzero(a[o + 4] == EventType.FORMAT_DESCRIPTION_EVENT).tolist():
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
    r = _Bytes(buf)
    o = np.asarray(offsets, dtype=np.int64)
    checked = flags & (r.a[o + 4] != EventType.FORMAT_DESCRIPTION_EVENT)
    if not checked.any():
        return
    sizes = r.u(o + 9, 4)
    lo, hi = int(o[0]), int(o[-1] + sizes[-1])
    model = np.zeros(hi - lo, dtype=np.uint8)
    for i in np.flatnonzero(~checked).tolist():  # events without a footer: the same bytes
        model[o[i] - lo : o[i] - lo + sizes[i]] = r.a[o[i] : o[i] + sizes[i]]
    lengths = sizes[checked] - CHECKSUM_LEN
    crc_of_zeros = np.zeros(int(lengths.max()) + 1, dtype=np.uint32)
    for length in np.flatnonzero(np.bincount(lengths)).tolist():
        crc_of_zeros[length] = zlib.crc32(bytes(length))
    footers = np.ndarray((len(model) - CHECKSUM_LEN + 1,), dtype="<u4", buffer=model, strides=(1,))
    footers[o[checked] + lengths - lo] = crc_of_zeros[lengths]
    if zlib.crc32(model) != zlib.crc32(memoryview(buf)[lo:hi]):
        _verify_each(buf, o[checked], sizes[checked], path, base)
        raise BinlogFileError(path, base + lo, "CRC32 mismatch in this range")  # not reached


def _verify_each(buf: bytes, o: np.ndarray, sizes: np.ndarray, path: str, base: int) -> None:
    """The event-by-event CRC32 check: raises for the first event whose footer is wrong."""
    body_end = o + sizes - CHECKSUM_LEN
    mv = memoryview(buf)
    crc = zlib.crc32
    computed = np.array([crc(mv[s:e]) for s, e in zip(o.tolist(), body_end.tolist(), strict=True)], dtype=np.int64)
    bad = np.flatnonzero(computed != _Bytes(buf).u(body_end, 4))
    if len(bad):
        off = int(o[bad[0]])
        raise BinlogFileError(path, base + off, f"{type_name(buf[off + 4])}: CRC32 mismatch")


def scan_boundaries(
    path: str, start: int, end: int, *, every: int | None, crc: bool, chunk_bytes: int = CHUNK_BYTES
) -> list[tuple[int, bool]]:
    """Walk the event headers of `path` from the boundary `start` up to byte `end`: returns
    (offset, CRC32 setting there) for `start`, for the first boundary past each further `every`
    bytes (None: none), and last for the end of the last complete event before `end` (so a
    half-written event is left out)."""
    open_binlog(path)
    off = max(start, len(BINLOG_MAGIC))
    points = [(off, crc)]
    next_split = off + every if every else None
    with open(path, "rb") as f:
        while off < end:
            f.seek(off)
            buf = f.read(min(chunk_bytes, end - off))
            try:
                offsets, stop = frame(buf, off, len(buf))
            except ValueError as e:
                at = e.args[0]
                raise BinlogFileError(path, off + at, f"impossible event size {_SIZE(buf, at + 9)[0]}") from None
            if not len(offsets):
                size = _SIZE(buf, 9)[0] if len(buf) >= HEADER_LEN else 0
                if size > MAX_EVENT_SIZE:
                    raise BinlogFileError(path, off, f"impossible event size {size}")
                if len(buf) < HEADER_LEN or off + size > end:
                    break  # half-written
                offsets, stop = np.zeros(1, dtype=np.int64), size
            flags, crc = _checksums(buf, offsets, crc, path, off)
            if next_split is not None:
                # the first boundary at or past each split mark (flags[i]: the setting at event i)
                o = offsets + off
                while (i := int(np.searchsorted(o, next_split))) < len(o):
                    points.append((int(o[i]), bool(flags[i])))
                    next_split = int(o[i]) + every  # type: ignore[operator]
            off += stop
    if points[-1][0] != off:
        points.append((off, crc))
    return points
