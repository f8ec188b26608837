"""The relay log: the master's events, byte for byte, in MySQL binlog v4 files on the slave.

Files: `NAME.000001`, `NAME.000002`, ... listed one per line in `NAME.index`. Each file starts
with the binlog magic and *our own* FORMAT_DESCRIPTION event (server_id = the slave's, checksum
algorithm = the master's, so `mysqlbinlog` reads the master's events that follow), then the
master's events exactly as received, with the master's log_pos: the artificial ROTATE and the
FORMAT_DESCRIPTION a dump starts with (they give the master's coordinates), then everything
else except heartbeats (WL#342: heartbeats never reach the relay log).

Ownership and durability
- The IO task is the only writer: `start_file` once per connection to the master (so every
  file begins with the master's ROTATE and FORMAT_DESCRIPTION), `append` per event (buffered in
  memory), `flush` (one write(2) per batch), `sync` (fsync; blocking, so the IO task runs it in
  a worker thread while the event loop keeps serving).
- The applier only reads, and only up to `readable` (a `RelayPosition`), which the IO task
  moves forward to the end of the last *complete transaction* once it is on disk per
  sync_relay_log. A partial transaction exists only at the tail of the file being written.

Failed writes (disk full, I/O errors)
- A write(2) or fsync that fails leaves the file at its last good end: after a failed write,
  the end of what earlier writes handed to the OS (`flushed`); after a failed fsync, the end
  of what an earlier fsync made durable (`synced`; the pages written since may be lost, whatever
  a later fsync says). The buffer is dropped: nothing of the failed batch is written later, the
  master sends it again. The relay log is then `damaged` until `cut_back` has cut the file to
  its last complete transaction at or before that end and made it durable (it may fail as well;
  call it again once the disk allows). Nothing is acked meanwhile: acks follow a good fsync.
- `start_file` that fails removes what it created; the index is replaced whole or not at all.

The resume rule (after kill -9, a lost connection or any IO task restart)
- The IO task asks the master for the position right after the last complete transaction in
  the relay log, and the relay log is truncated there first: a torn event and a transaction
  whose end never arrived are cut off, and are sent again by the master. Every transaction is
  thus in the relay log whole, exactly once, and nothing before the resume point is missing.
- `GroupTracker` decides where transactions end, the same way live (IO task) and when
  `recover` scans the last file at startup: after XID, after COMMIT/ROLLBACK of a BEGIN group or
  a MariaDB GTID group, after a statement outside any group (DDL, a non-transactional
  statement with its INTVAR/RAND/USER_VAR events), never inside a group.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import RemoteProtocolError
from protocol.events import (
    BINLOG_CHECKSUM_ALG_CRC32,
    BINLOG_CHECKSUM_ALG_OFF,
    BINLOG_MAGIC,
    FL_STANDALONE,
    LOG_EVENT_ARTIFICIAL_F,
    ROWS_STMT_END_F,
    EventHeader,
    EventType,
    FormatDescription,
    Rotate,
    Rows,
    decode_event,
    decode_header,
    encode_body_event,
    event_checksum_ok,
    gtid_flags2,
    query_text,
    set_log_pos,
    split_events,
)
from protocol.position import BinlogPosition

SERVER_VERSION = "10.11.99-semisync-log"

# Events that belong to the statement or row change that follows them.
_PREFIX_EVENTS = frozenset(
    {
        EventType.INTVAR_EVENT,
        EventType.RAND_EVENT,
        EventType.USER_VAR_EVENT,
        EventType.TABLE_MAP_EVENT,
        EventType.ANNOTATE_ROWS_EVENT,
    }
)
_ROWS_EVENTS = frozenset(
    {
        EventType.WRITE_ROWS_EVENT_V1,
        EventType.UPDATE_ROWS_EVENT_V1,
        EventType.DELETE_ROWS_EVENT_V1,
        EventType.WRITE_ROWS_EVENT,
        EventType.UPDATE_ROWS_EVENT,
        EventType.DELETE_ROWS_EVENT,
    }
)


@dataclass(frozen=True, slots=True, order=True)
class RelayPosition:
    """A place in the relay log: file sequence number, then byte offset (orders like MySQL)."""

    seq: int
    pos: int
    name: str = ""


_KIND_PEEK = 64  # bytes of a statement enough to tell BEGIN/COMMIT/ROLLBACK (after blanks)
_KIND_HEAD = 32  # characters of a statement, after blanks, that `statement_kind` looks at


def statement_kind(query: str) -> str:
    """BEGIN, COMMIT, ROLLBACK or OTHER for a QUERY event's statement."""
    head = query.lstrip()[:_KIND_HEAD].upper()
    word = head.split(None, 1)[0].rstrip(";") if head else ""
    if word == "BEGIN" or " ".join(head.split()[:2]).rstrip(";") == "START TRANSACTION":
        return "BEGIN"
    if word in ("COMMIT", "ROLLBACK"):
        return word
    return "OTHER"


def query_kind(text: memoryview | bytes) -> str:
    """`statement_kind` of a QUERY event's raw statement bytes, decoding only their start."""
    head = bytes(text[:_KIND_PEEK]).decode("utf-8", "surrogateescape")
    if len(text) > _KIND_PEEK and len(head.lstrip()) <= _KIND_HEAD:  # mostly blanks: look at all of it
        head = bytes(text).decode("utf-8", "surrogateescape")
    return statement_kind(head)


class GroupTracker:
    """Follows the master's coordinates and the transaction boundaries through its events.

    `feed` returns True when the event leaves the stream between two transactions. `master` is
    the position right after the last event received (None before the first ROTATE).
    Parse only what you decide on: `feed` reads the header, a GTID's flags and the start of a
    QUERY's statement in place; it builds typed bodies only for ROTATE, FORMAT_DESCRIPTION and a
    rows event outside a group. It never checks CRC32 footers: its callers (the IO task, `recover`)
    verify every event's checksum before they feed it.
    """

    def __init__(self, master: BinlogPosition | None, checksum: bool) -> None:
        self.master = master
        self.checksum = checksum
        self.in_group = False
        self.pending = False

    @property
    def at_boundary(self) -> bool:
        return not self.in_group and not self.pending

    def feed(self, event: bytes | memoryview, header: EventHeader | None = None) -> bool:
        h = header or decode_header(event)
        t = h.type_code
        if t == EventType.ROTATE_EVENT:
            rot = decode_event(event, self.checksum).body
            assert isinstance(rot, Rotate)
            self.master = BinlogPosition(rot.next_file, rot.position)
            return self.at_boundary
        if t == EventType.FORMAT_DESCRIPTION_EVENT:
            fd = decode_event(event, False).body
            assert isinstance(fd, FormatDescription)
            self.checksum = fd.checksum
        if h.log_pos and not h.artificial and self.master is not None:
            self.master = BinlogPosition(self.master.file, h.log_pos)
        if t == EventType.GTID_EVENT:
            if gtid_flags2(event) & FL_STANDALONE:
                self.pending = True  # the statement that follows belongs to it
            else:
                self.in_group = True
        elif t == EventType.QUERY_EVENT:
            kind = query_kind(query_text(event, self.checksum))
            if kind == "BEGIN":
                self.in_group = True
            elif kind in ("COMMIT", "ROLLBACK") or not self.in_group:
                self.in_group = False
            self.pending = False if not self.in_group else self.pending
        elif t == EventType.XID_EVENT:
            self.in_group = False
            self.pending = False
        elif t in _PREFIX_EVENTS:
            if not self.in_group:
                self.pending = True
        elif t in _ROWS_EVENTS and not self.in_group:
            rows = decode_event(event, self.checksum).body
            assert isinstance(rows, Rows)
            self.pending = not rows.flags & ROWS_STMT_END_F
        return self.at_boundary


@dataclass(frozen=True, slots=True)
class Recovered:
    """What `RelayLog.recover` found: where to ask the master to resume, and where the relay
    log's complete transactions end (the applier may read up to there)."""

    resume: BinlogPosition | None
    readable: RelayPosition | None
    truncated_bytes: int


def _seq_of(name: str) -> int:
    return int(name.rpartition(".")[2])


class RelayLog:
    def __init__(self, datadir: Path, basename: str, server_id: int) -> None:
        self.datadir = Path(datadir)
        self.basename = basename
        self.server_id = server_id
        self.index_path = self.datadir / f"{basename}.index"
        self._fd: int | None = None
        self._buffer = bytearray()
        self.current: str | None = None
        self.size = 0  # bytes of the current file, buffered ones included
        self.flushed = 0  # bytes of the current file handed to the OS
        self.synced = 0  # bytes of the current file known durable
        self.readable: RelayPosition | None = None
        # After a failed write or fsync: the current file's last good end, until `cut_back`.
        self.damaged: int | None = None
        self.failed_bytes = 0  # the size of the write that failed

    # -- index ------------------------------------------------------------------------------
    def files(self) -> list[str]:
        if not self.index_path.exists():
            return []
        names = [Path(line.strip()).name for line in self.index_path.read_text().splitlines()]
        return [n for n in names if n]

    def _write_index(self, names: list[str]) -> None:
        """Replace the index whole (write a temporary file, fsync, rename): a failure leaves the
        old index."""
        tmp = self.index_path.with_suffix(".index_tmp")
        try:
            with open(tmp, "w") as f:
                f.write("".join(f"{n}\n" for n in names))
                f.flush()
                os.fsync(f.fileno())
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, self.index_path)
        self._sync_dir()

    def _sync_dir(self) -> None:
        dir_fd = os.open(self.datadir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def path(self, name: str) -> Path:
        return self.datadir / name

    def space(self) -> int:
        """Relay_Log_Space: the total size of the relay log files."""
        total = 0
        for name in self.files():
            try:
                total += self.path(name).stat().st_size
            except FileNotFoundError:
                pass
        return total + len(self._buffer)

    def position_of(self, name: str, pos: int) -> RelayPosition:
        return RelayPosition(_seq_of(name), pos, name)

    def next_file(self, name: str) -> str | None:
        files = self.files()
        if name in files:
            i = files.index(name)
            return files[i + 1] if i + 1 < len(files) else None
        later = [f for f in files if _seq_of(f) > _seq_of(name)]
        return later[0] if later else None

    # -- startup ------------------------------------------------------------------------------
    def recover(self) -> Recovered:
        """Cut the last file back to its last complete transaction; drop trailing files that hold
        no event of the master. Returns where to resume."""
        self.datadir.mkdir(parents=True, exist_ok=True)
        files = self.files()
        # Files on disk that never made it into the index (crash between create and index write).
        truncated = 0
        while files:
            name = files[-1]
            path = self.path(name)
            if not path.exists():
                files.pop()
                self._write_index(files)
                continue
            data = path.read_bytes()
            tracker, boundary_offset = _scan(data)
            if tracker is None or tracker.master is None:
                path.unlink()
                truncated += len(data)
                files.pop()
                self._write_index(files)
                continue
            if boundary_offset < len(data):
                with open(path, "r+b") as f:
                    f.truncate(boundary_offset)
                    f.flush()
                    os.fsync(f.fileno())
                truncated += len(data) - boundary_offset
            self.readable = self.position_of(name, boundary_offset)
            return Recovered(tracker.master, self.readable, truncated)
        return Recovered(None, None, truncated)

    # -- writing (IO task only) ----------------------------------------------------------------
    def start_file(self, checksum: bool) -> str:
        """Close the current file and begin the next one with the magic and our FD event."""
        self.close()
        files = self.files()
        seq = max([_seq_of(f) for f in files], default=0) + 1
        name = f"{self.basename}.{seq:06d}"
        fd_body = FormatDescription(
            server_version=SERVER_VERSION,
            create_timestamp=int(time.time()),
            checksum_alg=BINLOG_CHECKSUM_ALG_CRC32 if checksum else BINLOG_CHECKSUM_ALG_OFF,
        )
        probe = encode_body_event(fd_body, timestamp=int(time.time()), server_id=self.server_id, log_pos=0, checksum=True)
        fd_event = encode_body_event(
            fd_body, timestamp=int(time.time()), server_id=self.server_id,
            log_pos=len(BINLOG_MAGIC) + len(probe), checksum=True,
        )
        head = BINLOG_MAGIC + fd_event
        path = self.path(name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            _write_all(fd, head)
            os.fsync(fd)
            self._write_index([*files, name])
        except OSError:
            os.close(fd)
            if name not in self.files():
                path.unlink(missing_ok=True)
            raise
        self._fd = fd
        self.current = name
        self.size = self.flushed = self.synced = len(head)
        # The previous file was cut back to its last complete transaction (`truncate_tail`)
        # before this one began, so all of it is readable; this one is, up to its FD.
        self.readable = self.position_of(name, len(head))
        return name

    def rotate(self, master: BinlogPosition, master_server_id: int, master_fd: bytes | None, checksum: bool) -> str:
        """Continue in a new file at a transaction boundary (the current file reached
        max_relay_log_size). The new file starts the way a new connection's does - our FD, an
        artificial ROTATE to the master's current coordinates, the master's FD (log_pos 0) - so
        the applier and `recover` read it on its own. Everything is fsynced first: the old file
        becomes readable to its end."""
        self.flush()
        self.sync()
        name = self.start_file(checksum)
        rotate = encode_body_event(
            Rotate(master.pos, master.file), timestamp=0, server_id=master_server_id, log_pos=0,
            flags=LOG_EVENT_ARTIFICIAL_F, checksum=checksum,
        )
        self.append(rotate)
        if master_fd is not None:
            fd = decode_event(master_fd, False).body
            assert isinstance(fd, FormatDescription)
            self.append(set_log_pos(master_fd, 0, checksum=fd.checksum))
        self.flush()
        self.sync()
        self.readable = self.position_of(name, self.size)
        return name

    def append(self, event: bytes | memoryview) -> int:
        """Buffer one event; returns its end offset in the current file."""
        self._buffer += event
        self.size += len(event)
        return self.size

    def flush(self) -> None:
        """Hand the buffer to the OS. On failure the file is cut back to `flushed` (see the
        header) and the OSError propagates."""
        if self._buffer and self._fd is not None:
            try:
                while self._buffer:
                    n = os.write(self._fd, self._buffer)
                    del self._buffer[:n]
            except OSError:
                self._failed(self.flushed)
                raise
        self.flushed = self.size

    def sync(self, fsync: Callable[[int], None] = os.fsync) -> int:
        """fsync what was flushed (blocking: the IO task runs it in a worker thread, and does
        nothing else with the relay log meanwhile). Returns the offset that is now durable. On
        failure the file is cut back to `synced` (never below what the applier may have read)
        and the OSError propagates."""
        upto = self.flushed
        if self._fd is not None:
            try:
                fsync(self._fd)
            except OSError:
                self._failed(max(self.synced, self._readable_here()))
                raise
        self.synced = max(self.synced, upto)
        return upto

    def _readable_here(self) -> int:
        readable = self.readable
        return readable.pos if readable is not None and readable.name == self.current else 0

    def _failed(self, good_end: int) -> None:
        """A write or fsync failed: forget everything after `good_end` and try to cut the file
        there at once (`cut_back` finishes the job, or retries it)."""
        self.failed_bytes = self.size - good_end
        self._buffer.clear()
        self.size = self.flushed = good_end
        self.synced = min(self.synced, good_end)
        self.damaged = good_end if self.damaged is None else min(self.damaged, good_end)
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, good_end)
            except OSError:
                pass

    def cut_back(self) -> BinlogPosition | None:
        """After a failed write or fsync (`damaged`): cut the current file to its last complete
        transaction at or before the last good end, fsync it and close it. Returns the master's
        coordinates right after that transaction (None when the file holds no event of the
        master: resume where the file began). Raises OSError when the disk still refuses; the
        relay log stays damaged."""
        assert self.damaged is not None and self.current is not None
        path = self.path(self.current)
        fd, self._fd = self._fd, None
        try:
            if fd is None:
                fd = os.open(path, os.O_RDWR)
            with open(path, "rb") as f:
                data = f.read(self.damaged)
            tracker, boundary = _scan(data)
            if tracker is None:  # start_file makes the head durable before the file is current
                raise OSError(errno.EIO, f"relay log file {self.current} lost its header")
            os.ftruncate(fd, boundary)
            os.fsync(fd)
        finally:
            if fd is not None:
                os.close(fd)
        self.size = self.flushed = self.synced = boundary
        self.damaged = None
        here = self.position_of(self.current, boundary)
        if self.readable is None or self.readable < here:
            self.readable = here  # durable, whole transactions
        return tracker.master

    def truncate_tail(self, offset: int) -> None:
        """Cut the current file back to `offset` (a transaction boundary) before resuming, and
        make what stays durable: the next file begins after it."""
        if offset > self.flushed:  # whole transactions still in the buffer: keep those
            del self._buffer[offset - self.flushed:]
            self.size = offset
            self.flush()
        else:
            self._buffer.clear()
            self.size = self.flushed
        if self._fd is not None and offset < self.size:
            os.ftruncate(self._fd, offset)
            self.size = self.flushed = offset
            self.synced = min(self.synced, offset)
        if self._fd is not None and self.synced < self.size:
            self.sync()

    def close(self) -> None:
        """Flush and close the current file (closed even when the flush fails)."""
        if self._fd is not None:
            try:
                self.flush()
            finally:
                os.close(self._fd)
                self._fd = None

    # -- housekeeping -----------------------------------------------------------------------------
    def purge_before(self, name: str) -> list[str]:
        """Delete the files listed before `name` (fully applied ones)."""
        files = self.files()
        if name not in files:
            return []
        i = files.index(name)
        gone = files[:i]
        if not gone:
            return []
        self._write_index(files[i:])
        for old in gone:
            self.path(old).unlink(missing_ok=True)
        return gone

    def reset(self) -> None:
        """RESET SLAVE: delete every relay log file and the index."""
        self._buffer.clear()
        self.size = self.flushed
        self.close()
        self.damaged = None
        for name in self.files():
            self.path(name).unlink(missing_ok=True)
        self.index_path.unlink(missing_ok=True)
        self.current = None
        self.size = self.flushed = self.synced = 0
        self.readable = None


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]


def _scan(data: bytes) -> tuple[GroupTracker | None, int]:
    """Follow a relay file's events: (tracker after the last complete transaction, its offset).

    The tracker is None when the file does not even hold our own FD event."""
    if not data.startswith(BINLOG_MAGIC):
        return None, 0
    offset = len(BINLOG_MAGIC)
    tracker: GroupTracker | None = None
    boundary = offset
    boundary_master: BinlogPosition | None = None
    try:
        for off, ev in split_events(data, offset):
            h = decode_header(ev)
            if tracker is None:
                if h.type_code != EventType.FORMAT_DESCRIPTION_EVENT:
                    return None, 0
                fd = decode_event(ev, False).body
                assert isinstance(fd, FormatDescription)
                tracker = GroupTracker(None, fd.checksum)
                boundary = off + len(ev)
                continue
            if tracker.checksum and h.type_code != EventType.FORMAT_DESCRIPTION_EVENT and not event_checksum_ok(ev):
                break  # a torn or corrupt tail: everything from here is cut off
            if tracker.feed(ev, h):
                boundary = off + len(ev)
                boundary_master = tracker.master
    except RemoteProtocolError:
        pass
    if tracker is None:
        return None, 0
    tracker.master = boundary_master
    tracker.in_group = tracker.pending = False
    return tracker, boundary


def read_events(path: Path, start: int, end: int | None) -> list[tuple[int, bytes]]:
    """The whole events of a relay file between byte offsets `start` and `end` (EOF if None):
    (offset, event bytes) pairs. Used by the applier."""
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read() if end is None else f.read(max(0, end - start))
    out = []
    for off, ev in split_events(data, 0):
        out.append((start + off, bytes(ev)))
    return out


__all__ = ["GroupTracker", "Recovered", "RelayLog", "RelayPosition", "read_events", "statement_kind"]
