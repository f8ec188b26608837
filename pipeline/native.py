"""The C scanner of the `binlog` source (`pipeline/_binlog_scan.c`), through ctypes.

Contract:
- `LIB` is the loaded library, or None when it was not built: setup.py builds it at install when
  a C compiler is there, and installing goes on without it when not. `pipeline.decode` then
  uses its numpy decoder, which gives the same rows (the tests hold both to the reference).
- `frame(buf, limit)` is `decode.walk(buf, 0, limit)` as an int64 array; ValueError(offset) for
  an event size below the header length.
- `verify(buf, offsets, check)`: the first event (of those with `check`) whose CRC32 footer is
  wrong, or None.
- `columns(buf, offsets, base, checksum, kind)` scans the complete events at `offsets` of `buf`
  (`kind[type_code]`: one of the K_* values, what to decode of that type) and returns a `Scan`:
  the int columns `INTS`, the text columns `TEXTS` as offsets and bytes, which rows are not
  null, and which rows are the reference decoder's (their body columns are left null).
- The K_* values and the column orders are the C file's enums, declared there and here only;
  `VERSION` is its SS_VERSION, and a library built from another version is refused.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from protocol.events import HEADER_LEN

VERSION = 2  # the C file's SS_VERSION
K_HEADER, K_SLOW, K_QUERY, K_XID, K_GTID, K_TABLE_MAP, K_ROWS_V1, K_ROWS_V2, K_ANNOTATE = range(9)
INTS = ("pos", "size", "type_code", "server_id", "timestamp", "log_pos", "flags", "xid", "table_id", "rows_flags")
NULLABLE_INTS = INTS[7:]  # the others are in every row
TEXTS = ("db", "query", "table", "gtid", "details")


def _load() -> ctypes.CDLL | None:
    here = Path(__file__).resolve().parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = here / f"_binlog_scan{suffix}"
        if path.exists():
            lib = ctypes.CDLL(str(path))
            break
    else:
        return None
    ptr, i64 = ctypes.c_void_p, ctypes.c_int64
    lib.ss_version.restype = i64
    if lib.ss_version() != VERSION:
        raise ImportError(f"{path} was built from another version of _binlog_scan.c "
                          f"({lib.ss_version()}, this code needs {VERSION}): rebuild it with `pip install -e .`")
    lib.ss_frame.argtypes = [ctypes.c_char_p, i64, i64, ptr, i64, ctypes.POINTER(i64)]
    lib.ss_frame.restype = i64
    lib.ss_columns.argtypes = [ctypes.c_char_p, i64, i64, ptr, i64, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr]
    lib.ss_columns.restype = i64
    lib.ss_verify.argtypes = [ctypes.c_char_p, i64, ptr, i64, ptr]
    lib.ss_verify.restype = i64
    lib.ss_text_caps.argtypes = [i64, i64, ptr]
    lib.ss_text_caps.restype = None
    return lib


LIB = _load()


def frame(buf: bytes, limit: int) -> tuple[np.ndarray, int]:
    assert LIB is not None
    offsets = np.empty(len(buf) // HEADER_LEN + 1, dtype=np.int64)
    stop = ctypes.c_int64()
    count = LIB.ss_frame(buf, len(buf), limit, offsets.ctypes.data, len(offsets), ctypes.byref(stop))
    if count < 0:
        raise ValueError(stop.value)
    return offsets[:count], stop.value


class Scan(NamedTuple):
    ints: np.ndarray  # len(INTS) rows of one int64 per event
    valid: np.ndarray  # bool rows: NULLABLE_INTS then TEXTS, True where not null
    slow: np.ndarray  # bool per event: the reference decoder's
    texts: list[tuple[np.ndarray, np.ndarray]]  # per TEXTS: int32 offsets (count + 1), bytes


def _empty(shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An uninitialised array in Arrow's memory pool: it keeps freed memory for the next chunk,
    where fresh numpy arrays this size are new pages from the kernel every time (measured:
    4.3 against 13 ms per 8 MiB chunk, most of it page faults)."""
    size = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return np.frombuffer(pa.allocate_buffer(size), dtype=dtype).reshape(shape)


def columns(buf: bytes, offsets: np.ndarray, base: int, checksum: np.ndarray, kind: np.ndarray) -> Scan:
    assert LIB is not None and isinstance(buf, bytes)
    count, n = len(offsets), len(buf)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    crc = np.ascontiguousarray(checksum, dtype=np.uint8)
    kind = np.ascontiguousarray(kind, dtype=np.uint8)
    ints = _empty((len(INTS), count), np.int64)
    valid = _empty((len(NULLABLE_INTS) + len(TEXTS), count), np.uint8)
    slow = _empty((count,), np.uint8)
    text_offsets = _empty((len(TEXTS), count + 1), np.int32)
    caps = np.empty(len(TEXTS), dtype=np.int64)  # upper bounds: pages never written cost no memory
    LIB.ss_text_caps(n, count, caps.ctypes.data)
    data = [_empty((int(cap),), np.uint8) for cap in caps]
    pointers = (ctypes.c_void_p * len(data))(*[d.ctypes.data for d in data])
    rc = LIB.ss_columns(buf, n, base, offsets.ctypes.data, count, crc.ctypes.data, kind.ctypes.data,
                        ints.ctypes.data, valid.ctypes.data, slow.ctypes.data, text_offsets.ctypes.data,
                        pointers, caps.ctypes.data)
    if rc != 0:
        raise AssertionError(f"_binlog_scan.ss_columns returned {rc}: a caller bug (offsets or capacities)")
    texts = [(text_offsets[t], data[t][: text_offsets[t][-1]]) for t in range(len(TEXTS))]
    return Scan(ints, valid.view(bool), slow.view(bool), texts)


def verify(buf: bytes, offsets: np.ndarray, check: np.ndarray) -> int | None:
    """The index of the first event i with check[i] whose CRC32 footer is wrong, or None."""
    assert LIB is not None and isinstance(buf, bytes)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    check = np.ascontiguousarray(check, dtype=np.uint8)
    rc = LIB.ss_verify(buf, len(buf), offsets.ctypes.data, len(offsets), check.ctypes.data)
    if rc < -1:
        raise AssertionError(f"_binlog_scan.ss_verify returned {rc}: a caller bug (offsets)")
    return None if rc == -1 else int(rc)
