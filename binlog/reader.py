"""Reading binlog and relay log files: raw events by offset, across the index, torn-tail recovery.

Contract:
- Readers never lock the writer out (WL#5721): they read a file's bytes up to a bound (`end`, the
  writer's published end position, or what is on disk) and stop at an incomplete event, which a
  file being appended may end with. Events come back as raw `bytes`, framed by protocol's
  `split_events` (nothing is decoded beyond the header's size field).
- `iter_checked` walks a whole file checking each event (the first is a FORMAT_DESCRIPTION_EVENT,
  CRC32 per the last FD before the event: a relay log file holds its own FD and its master's).
- `scan_file` and `truncate_torn_tail` are for recovery at start-up, when nobody writes the file:
  the binlog ends after its last complete, well-formed event (CRC32-checked when the file's FD
  says so); anything after it is a torn write and is cut off, as MySQL does. `cut_file` cuts a
  file nobody writes at any offset (a relay log at its last complete transaction).
- Errors about file contents raise `BinlogFileError` (with the offset where it was found).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from binlog.index import read_index
from protocol.errors import ProtocolError
from protocol.events import (
    BINLOG_MAGIC,
    EventFramingError,
    EventType,
    decode_header,
    event_checksum_ok,
    event_size_at,
    event_type,
    format_description_checksum,
    split_events,
)
from protocol.position import BinlogPosition

READ_CHUNK = 1 << 20


class BinlogFileError(Exception):
    """A binlog file's contents are not a valid binlog at `offset`."""

    def __init__(self, path: Path | str, offset: int, message: str) -> None:
        super().__init__(f"{path}: at offset {offset}: {message}")
        self.path = Path(path)
        self.offset = offset
        self.message = message


def iter_events(path: Path | str, start: int = 4, end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield (offset, raw event) for the complete events in [start, end) of one file.

    Stops quietly at `end` (exclusive bound, e.g. the writer's published end position) or at an
    incomplete event (a file being appended, or a torn tail). Raises BinlogFileError for a bad
    magic number or an impossible event size.
    """
    with open_binlog(path) as f:
        yield from iter_open_events(f, path, start, end)


def open_binlog(path: Path | str) -> BinaryIO:
    """One binlog or relay log file opened for `iter_open_events` (a reader that comes back to the
    same file keeps it open); BinlogFileError for a bad magic number. Unbuffered: every read
    reads the file, so a reader that keeps it open never gets bytes the writer has since cut
    back and written again (a relay file cut back to its last whole transaction)."""
    f = open(path, "rb", buffering=0)  # noqa: SIM115 - the caller closes it
    if f.read(len(BINLOG_MAGIC)) != BINLOG_MAGIC:
        f.close()
        raise BinlogFileError(path, 0, "not a binlog file (bad magic number)")
    return f


def iter_open_events(f: BinaryIO, path: Path | str, start: int = 4, end: int | None = None) -> Iterator[tuple[int, bytes]]:
    """`iter_events` on a file `open_binlog` opened (`path` names it in errors)."""
    start = max(start, len(BINLOG_MAGIC))
    f.seek(start)
    buf = b""
    buf_offset = start  # file offset of buf[0]; buf never holds bytes past `end`
    while True:
        pos = 0
        try:
            for at, event in split_events(buf):
                yield buf_offset + at, event
                pos = at + len(event)
        except EventFramingError as e:
            raise BinlogFileError(path, buf_offset + e.offset, e.message) from None
        buf = buf[pos:]
        buf_offset += pos
        # read a chunk, or at least the rest of the event that is pending
        pending = event_size_at(buf)
        to_read = READ_CHUNK if pending is None else max(READ_CHUNK, pending - len(buf))
        if end is not None:
            to_read = min(to_read, end - buf_offset - len(buf))
        if to_read <= 0:
            return
        data = f.read(to_read)
        if not data:
            return
        buf = buf + data if buf else data


def iter_all(
    directory: Path | str, basename: str, from_position: BinlogPosition
) -> Iterator[tuple[BinlogPosition, bytes]]:
    """Yield (start position, raw event) from `from_position` on, following the index: the rest of
    that file, then every later file from offset 4. Each file is read as it is on disk now."""
    directory = Path(directory)
    names = read_index(directory, basename)
    if from_position.file not in names:
        raise BinlogFileError(directory / (from_position.file or basename), 0, "file not in the index")
    for name in names[names.index(from_position.file) :]:
        start = from_position.pos if name == from_position.file else len(BINLOG_MAGIC)
        for offset, event in iter_events(directory / name, start):
            yield BinlogPosition(name, offset), event


def iter_checked(path: Path | str, end: int | None = None) -> Iterator[tuple[int, bytes, bool]]:
    """Yield (offset, raw event, checksum) for a whole file's events from offset 4 up to `end`,
    each one checked: the first must be a FORMAT_DESCRIPTION_EVENT, and an event's CRC32 is
    verified when the last FD before it says the file uses one (`checksum`, also what decodes the
    event). Stops quietly where `iter_events` does; raises BinlogFileError at the first event
    that is not well-formed (its offset is where the good events end)."""
    checksum: bool | None = None
    for offset, event in iter_events(path, len(BINLOG_MAGIC), end):
        header = decode_header(event)
        if header.type_code == EventType.FORMAT_DESCRIPTION_EVENT:
            try:
                checksum = format_description_checksum(event)
            except ProtocolError as e:
                raise BinlogFileError(path, offset, e.message) from None
        elif checksum is None:
            raise BinlogFileError(path, offset, "first event is not a FORMAT_DESCRIPTION_EVENT")
        elif checksum and not event_checksum_ok(event):
            raise BinlogFileError(path, offset, f"CRC32 mismatch in {header.type_name} at offset {offset}")
        yield offset, event, checksum


def file_checksum(path: Path | str) -> bool:
    """Does this binlog file use CRC32 (per its FORMAT_DESCRIPTION_EVENT)?"""
    for offset, event in iter_events(path, 4):
        if event_type(event) != EventType.FORMAT_DESCRIPTION_EVENT:
            raise BinlogFileError(path, offset, "first event is not a FORMAT_DESCRIPTION_EVENT")
        try:
            return format_description_checksum(event)
        except ProtocolError as e:
            raise BinlogFileError(path, offset, e.message) from None
    raise BinlogFileError(path, 4, "no FORMAT_DESCRIPTION_EVENT")


@dataclass(frozen=True, slots=True)
class ScanResult:
    """Where a binlog file's valid events end.

    `last_complete_end`: offset just past the last complete, well-formed event (4 for a file with
    only the magic number, 0 if not even that). `torn`: the file continues past that with an
    incomplete event (a torn write). `error`: why the bytes after `last_complete_end` are not an
    event (bad magic, impossible size, CRC mismatch), or None."""

    last_complete_end: int
    torn: bool
    error: str | None
    size: int
    checksum: bool | None = None

    @property
    def clean(self) -> bool:
        return not self.torn and self.error is None


def scan_file(path: Path | str) -> ScanResult:
    """Walk a whole binlog file, checking every event's frame (and CRC32 when the FD says so)."""
    path = Path(path)
    size = path.stat().st_size
    with open(path, "rb") as f:
        magic = f.read(len(BINLOG_MAGIC))
    if magic != BINLOG_MAGIC[: len(magic)]:
        return ScanResult(0, False, "not a binlog file (bad magic number)", size)
    if len(magic) < len(BINLOG_MAGIC):
        return ScanResult(0, True, None, size)
    checksum: bool | None = None
    end = len(BINLOG_MAGIC)
    try:
        for offset, event, event_checksum in iter_checked(path):
            if checksum is None:
                checksum = event_checksum  # the file's own FD
            end = offset + len(event)
    except BinlogFileError as e:
        return ScanResult(end, False, e.message, size, checksum)
    return ScanResult(end, end < size, None, size, checksum)


def torn_tail(path: Path | str, scanned: ScanResult) -> bool:
    """Is what follows the last good event of a file only what a write cut by a crash leaves:
    an incomplete event, or zeros? Anything else (a CRC32 mismatch, an impossible event) is
    damage, for a human to look at: the events after it may be good (and acknowledged)."""
    if scanned.torn or scanned.last_complete_end >= scanned.size:
        return scanned.torn
    with open(path, "rb") as f:
        f.seek(scanned.last_complete_end)
        tail = f.read()
    return not tail.strip(b"\x00")


def truncate_torn_tail(path: Path | str, scanned: ScanResult | None = None) -> int:
    """Cut a file back to the end of its last complete, well-formed event (crash recovery of the
    last binlog/relay log, when nothing writes it). Returns the new size. `scanned`: the result of
    a `scan_file(path)` just done, to not read the file twice."""
    path = Path(path)
    result = scanned if scanned is not None else scan_file(path)
    if result.last_complete_end < result.size:
        cut_file(path, result.last_complete_end)
    return result.last_complete_end


def cut_file(path: Path | str, size: int) -> None:
    """Cut a file that nobody writes back to `size` bytes, durably (truncate + fsync)."""
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())


def iter_range(path: Path | str, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """`iter_events` for a small range of a file whose magic number was read before (a dump's
    read of a few commit groups; the group just published it takes from memory): one pread,
    no buffered file object. Same results: the complete events in [start, end),
    BinlogFileError at an impossible event size."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.pread(fd, end - start, start)
    finally:
        os.close(fd)
    try:
        for at, event in split_events(data):
            yield start + at, event
    except EventFramingError as e:
        raise BinlogFileError(path, start + e.offset, e.message) from None
