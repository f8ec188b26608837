"""The `binlog` PySpark data source: binlog and relay log files as a DataFrame, batch or streaming.

    spark.dataSource.register(BinlogDataSource)
    spark.read.format("binlog").load("/var/lib/mysql/master-bin.0*")
    spark.readStream.format("binlog").load("/var/lib/mysql/relay-bin.*")

Contract:
- One row per event with the columns of `pipeline.decode.ARROW_SCHEMA`: the typed columns
  `CORE_FIELDS` (where the event is, its header, and the body fields most events have or jobs
  filter on) and `details`, the row's other keys of `semisync binlog --json` as a compact JSON
  object (null when none; `pipeline.decode.flat_row` gives the flat row back). `file` is the
  file's absolute path. `gtid` is set on every event of a GTID group (`pipeline.decode.with_gtids`),
  as `semisync binlog --json` prints it. Rows reach Spark as Arrow record batches.
- The path (`load(path)`, or option `paths`: a JSON list) is a file, a directory (its binlog-named
  files, `name.NNNNNN`) or a glob; files are read in name order. Nothing matched, or a matched
  file that is not a binlog (bad magic number): `BinlogSourceError` at planning, naming the path.
- Batch: partitions of about option `maxPartitionBytes` (default 16 MiB): small files packed
  together, a file larger than twice that split in even pieces at event boundaries found by a
  header walk on the driver (at GTID events in a file that has them: each piece starts with a
  whole transaction). A half-written last event is
  left out; corrupt data fails the task with the file and offset.
- Streaming: the offset is, per file, the end of its last complete event and the CRC32 setting in
  force there; a GTID group not yet ended there is held back with its first event until its end
  is written (a micro-batch holds whole transactions, so each event has its `gtid`) (`{"files": {path: {"pos": int, "crc": bool}}}`), so a half-written event is held
  back until it is complete, and a query restarted from its checkpoint resumes exactly after the
  last event it committed. New files matching the path are picked up from offset 4.
- Options: `verifyChecksums` ("true"): check every event's CRC32 when the file has them.
"""

from __future__ import annotations

import gc
import glob
import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    InputPartition,
)
from pyspark.sql.types import (
    DataType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from binlog.reader import BinlogFileError
from binlog.rows import ROW_FIELDS
from pipeline.decode import (
    CORE_FIELDS,
    GTID,
    decode_range,
    gtid_batches,
    gtid_groups,
    open_binlog,
    scan_boundaries,
)

_SPARK_TYPES: dict[str, DataType] = {"int": LongType(), "str": StringType()}
SCHEMA = StructType(
    [StructField(name, _SPARK_TYPES[ROW_FIELDS[name]]) for name in CORE_FIELDS] + [StructField("details", StringType())]
)
DEFAULT_MAX_PARTITION_BYTES = 16 << 20
_BINLOG_NAME = re.compile(r"\.\d{6}$")
_GLOB_CHARS = re.compile(r"[*?\[]")


class BinlogSourceError(ValueError):
    """The path given to the `binlog` source names no binlog, or a file that is not one."""


def expand_paths(patterns: Sequence[str]) -> list[str]:
    """Absolute paths of the files the patterns name, in order, without duplicates."""
    found: list[str] = []
    for pattern in patterns:
        if os.path.isdir(pattern):
            names = sorted(n for n in os.listdir(pattern) if _BINLOG_NAME.search(n))
            matches = [os.path.join(pattern, n) for n in names if os.path.isfile(os.path.join(pattern, n))]
        elif _GLOB_CHARS.search(pattern):
            matches = sorted(p for p in glob.glob(pattern) if os.path.isfile(p) and not p.endswith(".index"))
        else:
            matches = [pattern] if os.path.isfile(pattern) else []
        if not matches:
            raise BinlogSourceError(f"binlog source: {pattern!r} matches no file")
        found += [os.path.abspath(p) for p in matches]
    return list(dict.fromkeys(found))


def _patterns(options: Mapping[str, str]) -> list[str]:
    if "paths" in options:
        paths = json.loads(options["paths"])
        if isinstance(paths, str):
            paths = [paths]
    elif "path" in options:
        paths = [options["path"]]
    else:
        raise BinlogSourceError("binlog source: no path given (load(PATH) or option paths)")
    return [str(p) for p in paths]


def _flag(options: Mapping[str, str], name: str, default: bool) -> bool:
    value = options.get(name)
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def _check(path: str) -> int:
    try:
        return open_binlog(path)
    except BinlogFileError as e:
        raise BinlogSourceError(f"binlog source: {e}") from None


# Events starting in [start, end) of a file (end None: its end when read); crc: the CRC32
# setting in force at start.
Range = tuple[str, int, "int | None", bool]


@dataclass
class Ranges(InputPartition):
    """One task's work: ranges of files, read in order (small files are packed together so that
    a directory of many small binlogs is not one task per file)."""

    ranges: list[Range]

    def __init__(self, ranges: list[Range]) -> None:
        super().__init__(ranges[0][:2])
        self.ranges = ranges


def pack(ranges: list[tuple[Range, int]], max_bytes: int) -> list[InputPartition]:
    """Group consecutive (range, bytes) into partitions of about `max_bytes`."""
    parts: list[InputPartition] = []
    group: list[Range] = []
    size = 0
    for rng, nbytes in ranges:
        if group and size + nbytes > max_bytes:
            parts.append(Ranges(group))
            group, size = [], 0
        group.append(rng)
        size += nbytes
    if group:
        parts.append(Ranges(group))
    return parts


# Rows per record batch handed to Spark. The decoder works on 8 MiB chunks (about 150k events)
# and its batches are cut into slices of this many rows (no copy): Spark turns each batch into
# rows column by column, and a batch of 4096 rows (under 1 MiB) stays in the CPU's cache while
# it does, which took about a fifth off the JVM's time per row, measured.
BATCH_ROWS = 4096


def _settle_worker() -> None:
    """Spark's Python daemon runs a full `gc.collect()` after every task a reused worker ends.
    With pyspark, pyarrow and numpy loaded that walks some 50k objects, 30-80 ms each time: as
    much as decoding a sixth of a 16 MiB partition. `gc.freeze()` moves the objects alive now
    (the modules loaded) out of every later collection; what tasks make is collected as usual."""
    global _SETTLED
    if not _SETTLED:
        gc.freeze()
        _SETTLED = True


_SETTLED = False


def _read(partition: InputPartition, verify: bool) -> Iterator[pa.RecordBatch]:
    assert isinstance(partition, Ranges)
    _settle_worker()
    for path, start, end, crc in partition.ranges:
        for batch in gtid_batches(decode_range(path, path, start, end, crc, verify_checksums=verify)):
            for at in range(0, batch.num_rows, BATCH_ROWS):
                yield batch.slice(at, BATCH_ROWS)


class BinlogReader(DataSourceReader):
    def __init__(self, options: Mapping[str, str]) -> None:
        self.paths = expand_paths(_patterns(options))
        for path in self.paths:
            _check(path)
        self.max_bytes = int(options.get("maxPartitionBytes", DEFAULT_MAX_PARTITION_BYTES))
        self.verify = _flag(options, "verifyChecksums", True)

    def partitions(self) -> Sequence[InputPartition]:
        ranges: list[tuple[Range, int]] = []
        for path in self.paths:
            size = os.path.getsize(path)
            if size <= 2 * self.max_bytes:
                ranges.append(((path, 4, None, False), size))
                continue
            # even pieces of at most about max_bytes; the last runs to the end (as it is when read)
            pieces = -(-size // self.max_bytes)
            points = scan_boundaries(path, 4, size, every=-(-size // pieces), crc=False)[:-1]
            for i, (start, crc) in enumerate(points):
                end = points[i + 1][0] if i + 1 < len(points) else None
                ranges.append(((path, start, end, crc), (size if end is None else end) - start))
        return pack(ranges, self.max_bytes)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(partition, self.verify)


def _whole_groups_end(path: str, begin: int, end: int, crc: bool) -> int:
    """`end`, or where the GTID group still open there starts: a micro-batch ends with a whole
    transaction, so the next one starts at a GTID event and every event gets its group's GTID
    (the open group follows once its end is written)."""
    carry = None
    open_at: int | None = None
    try:
        for batch in decode_range(path, path, begin, end, crc, verify_checksums=False):
            group, _, carry = gtid_groups(batch, carry)
            if carry is None:
                open_at = None
            elif group[-1] > 0:  # the open group started in this batch: at its group[-1]-th GTID event
                starts = np.flatnonzero(batch.column("type_code").to_numpy(zero_copy_only=False) == GTID)
                open_at = batch.column("pos")[int(starts[group[-1] - 1])].as_py()
    except BinlogFileError:
        return end  # the task reading the range reports the damage
    return end if open_at is None else open_at


class BinlogStreamReader(DataSourceStreamReader):
    def __init__(self, options: Mapping[str, str]) -> None:
        self.patterns = _patterns(options)
        self.max_bytes = int(options.get("maxPartitionBytes", DEFAULT_MAX_PARTITION_BYTES))
        self.verify = _flag(options, "verifyChecksums", True)

    def _files(self) -> list[str]:
        try:
            paths = expand_paths(self.patterns)
        except BinlogSourceError:
            return []  # nothing written yet: an empty stream so far
        return [p for p in paths if os.path.getsize(p) >= 4]

    def initialOffset(self) -> dict[str, Any]:
        return {"files": {}}

    def latestOffset(self, start: dict[str, Any] | None = None, limit: Any = None) -> dict[str, Any]:
        known: dict[str, dict[str, Any]] = dict((start or {}).get("files", {}))
        latest: dict[str, dict[str, Any]] = {}
        for path in self._files():
            _check(path)
            begin = known.get(path, {"pos": 4, "crc": False})
            size = os.path.getsize(path)
            points = scan_boundaries(path, begin["pos"], size, every=None, crc=begin["crc"])
            end, crc = points[-1]
            latest[path] = {"pos": _whole_groups_end(path, begin["pos"], end, begin["crc"]), "crc": crc}
        for path, off in known.items():
            latest.setdefault(path, off)  # a file that went away (purged) keeps its offset
        return {"files": latest}

    def partitions(self, start: dict[str, Any], end: dict[str, Any]) -> Sequence[InputPartition]:
        before = start.get("files", {})
        ranges: list[tuple[Range, int]] = []
        for path, off in sorted(end.get("files", {}).items()):
            begin = before.get(path, {"pos": 4, "crc": False})
            if off["pos"] > begin["pos"]:
                ranges.append(((path, begin["pos"], off["pos"], begin["crc"]), off["pos"] - begin["pos"]))
        return pack(ranges, self.max_bytes)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(partition, self.verify)

    def commit(self, end: dict[str, Any]) -> None:
        pass


class BinlogDataSource(DataSource):
    """`spark.read.format("binlog")` / `spark.readStream.format("binlog")` (see the module docstring)."""

    @classmethod
    def name(cls) -> str:
        return "binlog"

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        return BinlogReader(self.options)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return BinlogStreamReader(self.options)


def register(spark: Any) -> None:
    """Make `format("binlog")` available in this SparkSession."""
    spark.dataSource.register(BinlogDataSource)
