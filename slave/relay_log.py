"""The relay log: the master's events, byte for byte, in MySQL binlog v4 files on the slave.

Files: `NAME.000001`, `NAME.000002`, ... listed one per line in `NAME.index`. Each file starts
with the binlog magic and *our own* FORMAT_DESCRIPTION event (server_id = the slave's, checksum
algorithm = the master's, so `mysqlbinlog` reads the master's events that follow), then the
master's events exactly as received, with the master's log_pos: the artificial ROTATE and the
FORMAT_DESCRIPTION a dump starts with (they give the master's coordinates), then everything
else except heartbeats (WL#342: heartbeats never reach the relay log).

The files are the binlog's (`binlog.BinlogWriter` writes them, `binlog.reader` reads and checks
them, `binlog.index` lists them); this module adds only the relay log's policy: a file per
connection and per master binlog file, whole transactions only, the cut-back to the last complete transaction, the purge of
applied files. The layout on disk is what it always was (no in-use flag in our FD, an index of
bare names), so existing datadirs carry on.

Ownership and durability
- The IO task is the only writer: `start_file` once per connection to the master (so every
  file begins with the master's ROTATE and FORMAT_DESCRIPTION), `follow_rotate` when the master
  moves to another binlog file (a ROTATE naming a file other than the one it was in: the new
  relay file begins with that ROTATE, as MariaDB's relay log does, so each relay file holds one
  master file's GTIDs at most), `rotate` at max_relay_log_size, `append` per event (buffered in
  memory), `flush` (one write(2) per batch), `sync` (fsync; blocking, so the IO task runs it in
  its relay I/O thread while the event loop keeps serving). Or the IO task's receiver thread
  (slave/_receiver.c) appends and fsyncs a batch itself through `descriptor`, while the IO task
  writes nothing, and the task counts it afterwards (`written_run`; `write_failed` /
  `sync_failed` when the thread's write or fsync failed: the same cut-back as `flush` / `sync`).
  The applier reads the files with `binlog.reader` and purges those it finished (`purge_before`).
- The tail: the events `append` buffered into the current file (its own FD excepted), the last
  TAIL_BYTES_MAX of them at least, stay in memory as they were appended (`tail`), so the applier
  takes what it has not read yet from there instead of reading the file back. They are the
  file's bytes: anything that cuts or replaces the file (a failed write or fsync, `truncate_tail`,
  `cut_back`, a new file, `reset`, `close`) forgets the tail first.
- The applier only reads, and only up to `readable` (a `BinlogPosition` in the relay log's files), which the IO task
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
- The master's coordinates follow each event's log_pos (not an artificial event's, except a
  GTID_LIST's: a dump by GTID says with a fake one where its skipping ended, as MariaDB's slave
  reads it).
- `GroupTracker` decides where transactions end, the same way live (IO task) and when
  `recover` scans the last file at startup: after XID, after COMMIT/ROLLBACK of a BEGIN group or
  a MariaDB GTID group, after a statement outside any group (DDL, a non-transactional
  statement with its INTVAR/RAND/USER_VAR events), never inside a group.
"""

from __future__ import annotations

import errno
from bisect import bisect_left
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

from binlog.index import write_index
from binlog.reader import BinlogFileError, cut_file, iter_checked
from binlog.syncer import NativeSyncer, NotSent, Syncer
from binlog.writer import BinlogWriter
from protocol import eventscan
from protocol.errors import ProtocolError
from protocol.events import (
    BINLOG_MAGIC,
    FL_STANDALONE,
    LOG_EVENT_ARTIFICIAL_F,
    ROWS_STMT_END_F,
    TYPE_FD,
    TYPE_GTID,
    TYPE_GTID_LIST,
    TYPE_QUERY,
    TYPE_ROTATE,
    TYPE_XID,
    EventHeader,
    EventType,
    FormatDescription,
    Gtid,
    Rotate,
    Rows,
    decode_event,
    decode_header,
    encode_body_event,
    gtid_fields,
    query_text,
    set_log_pos,
)
from protocol.position import BinlogPosition, file_sequence
from protocol.statements import query_kind

SERVER_VERSION = "10.11.99-MariaDB-semisync-log"
TAIL_BYTES_MAX = 256 * 1024  # events of the current file kept in memory for the applier (at least)
INDEX_PREFIX = ""  # `NAME.index` lists bare file names, as it always has

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


# the largest master position the compiled scan holds (a signed 64-bit log_pos); past it the
# events are fed one by one
_SCAN_POS_MAX = (1 << 63) - 1


class GroupTracker:
    """Follows the master's coordinates and the transaction boundaries through its events.

    `feed` returns True when the event leaves the stream between two transactions. `master` is
    the position right after the last event received (None before the first ROTATE).
    Parse only what you decide on: `feed` reads the header, a MariaDB GTID's fixed fields
    (`closed_gtid`: the GTID of the transaction the event just completed, else None; `gtids`:
    per domain the last complete one) and the start of a QUERY's statement in place; it builds
    typed bodies only for ROTATE, FORMAT_DESCRIPTION and a rows event outside a group. It never
    checks CRC32 footers: its callers (the IO task, `recover`) verify every event's checksum
    before they feed it.
    """

    def __init__(self, master: BinlogPosition | None, checksum: bool) -> None:
        self.master = master
        self.checksum = checksum
        self.in_group = False
        self.pending = False
        self.closed_gtid: Gtid | None = None
        self.gtids: dict[int, Gtid] = {}
        self._open_gtid: Gtid | None = None

    @property
    def at_boundary(self) -> bool:
        return not self.in_group and not self.pending

    def feed(self, event: bytes | memoryview, header: EventHeader | None = None) -> bool:
        h = header or decode_header(event)
        t = h.type_code
        self.closed_gtid = None
        if t == TYPE_ROTATE:
            rot = decode_event(event, self.checksum, verify=False).body
            assert isinstance(rot, Rotate)
            self.master = BinlogPosition(rot.next_file, rot.position)
            return self.at_boundary
        if t == TYPE_FD:
            fd = decode_event(event, False).body
            assert isinstance(fd, FormatDescription)
            self.checksum = fd.checksum
        # a dump by GTID that skipped groups says where it is with a fake (artificial) GTID_LIST
        # whose log_pos is the end of the last group skipped (sql_repl.cc's fake_gtid_list_event)
        master = self.master
        if h.log_pos and master is not None and (not h.flags & LOG_EVENT_ARTIFICIAL_F or t == TYPE_GTID_LIST):
            self.master = BinlogPosition(master.file, h.log_pos)
        # (in_group and pending are read and written as locals: this runs for every event received)
        in_group, pending = self.in_group, self.pending
        if t == TYPE_GTID:
            seq_no, domain_id, flags2 = gtid_fields(event)
            self._open_gtid = Gtid(domain_id, h.server_id, seq_no)
            if flags2 & FL_STANDALONE:
                pending = True  # the statement that follows belongs to it
            else:
                in_group = True
        elif t == TYPE_QUERY:
            kind = query_kind(query_text(event, self.checksum))
            if kind == "BEGIN":
                in_group = True
            elif kind in ("COMMIT", "ROLLBACK") or not in_group:
                in_group = False
            if not in_group:
                pending = False
        elif t == TYPE_XID:
            in_group = pending = False
        elif t in _PREFIX_EVENTS:
            if not in_group:
                pending = True
        elif t in _ROWS_EVENTS and not in_group:
            rows = decode_event(event, self.checksum, verify=False).body
            assert isinstance(rows, Rows)
            pending = not rows.flags & ROWS_STMT_END_F
        self.in_group, self.pending = in_group, pending
        boundary = not in_group and not pending  # `at_boundary`
        opened = self._open_gtid
        if opened is not None and boundary and t != TYPE_GTID:
            self.closed_gtid = self.gtids[opened.domain_id] = opened
            self._open_gtid = None
        return boundary

    def take_run(self, events: list[bytes | memoryview], start: int, verified: bool = False) -> TakenRun | None:
        """`feed` for events[start:] at once in compiled code (`protocol.eventscan`), each event
        checked first as the IO task checks it (event_size, the CRC32 footer with `checksum`,
        unless `verified`: the receiver thread checked these very bytes' footers already):
        None where the module was not built; else what was taken, up to the first event to be
        checked and fed one by one (`TakenRun.stop`). The tracker is where `feed` would have
        left it after the taken events (`closed_gtid` aside: None)."""
        scan = eventscan.scan
        if scan is None:
            return None
        master = self.master
        if master is None or master.pos > _SCAN_POS_MAX:  # (a ROTATE may name any 64-bit position)
            return TakenRun(start, -1, [], [])
        opened = self._open_gtid
        held = None if opened is None else (opened.domain_id, opened.server_id, opened.seq_no)
        state: list[Any] = [master.pos, self.in_group, self.pending, held]
        stop, last_boundary, positions, closed = scan(events, start, self.checksum, state, verified)
        if stop == start:
            return TakenRun(start, -1, [], [])
        log_pos, self.in_group, self.pending, now_open = state
        if log_pos != master.pos:
            self.master = BinlogPosition(master.file, log_pos)
        if now_open != held:
            self._open_gtid = None if now_open is None else Gtid(*now_open)
        self.closed_gtid = None
        if not closed:
            return TakenRun(stop, last_boundary, positions, [])
        if len(closed) > 1:  # the last of each domain
            closed = list({g[0]: g for g in closed}.values())
        gtids = [Gtid(*g) for g in closed]
        for gtid in gtids:
            self.gtids[gtid.domain_id] = gtid
        return TakenRun(stop, last_boundary, positions, gtids)


class TakenRun(NamedTuple):
    """What `GroupTracker.take_run` took: events[start:stop]; the index of the last of them that
    ended a transaction (-1: none); the master's offset after each (in the tracker's file); the
    last GTID the run's boundaries completed in each domain."""

    stop: int
    last_boundary: int
    positions: list[int]
    closed: list[Gtid]


@dataclass(frozen=True, slots=True)
class Recovered:
    """What `RelayLog.recover` found: where to ask the master to resume, and where the relay
    log's complete transactions end (the applier may read up to there)."""

    resume: BinlogPosition | None
    readable: BinlogPosition | None
    truncated_bytes: int


def _seq_of(name: str) -> int:
    return file_sequence(name)[1]


class RelayLog:
    """The relay log's policy on the binlog's file stack (`binlog.BinlogWriter`, `binlog.reader`,
    `binlog.index`): whole transactions only, cut back on reconnect and restart, applied files
    purged. The files, the index, the format description, append/flush/fsync/truncate and the
    torn-write rules are the binlog's."""

    def __init__(self, datadir: Path, basename: str, server_id: int) -> None:
        self.datadir = Path(datadir)
        self.basename = basename
        self.server_id = server_id
        # Our FD first in each file (the master's checksum setting, given per file), then the
        # master's events as received: the writer builds no event and never rotates by itself.
        self._writer = BinlogWriter(
            self.datadir, basename, server_id=server_id, checksum=False, max_size=None,
            server_version=SERVER_VERSION, mark_in_use=False, index_prefix=INDEX_PREFIX,
        )
        self.readable: BinlogPosition | None = None
        # After a failed write or fsync: the current file's last good end, until `cut_back`.
        self.damaged: int | None = None
        self.failed_bytes = 0  # the size of the write that failed
        # (start offset, event) of the current file's last appended events, back to back to `size`
        self._tail: list[tuple[int, bytes | memoryview]] = []
        self._tail_bytes = 0

    @property
    def current(self) -> str | None:
        """The file being written (the last one started), None before the first."""
        return self._writer.current_file or None

    @property
    def size(self) -> int:
        """Bytes of the current file, buffered ones included."""
        return self._writer.pending_position.pos

    @property
    def flushed(self) -> int:
        """Bytes of the current file handed to the OS."""
        return self._writer.end_position.pos

    @property
    def synced(self) -> int:
        """Bytes of the current file known durable."""
        return self._writer.synced_position.pos

    # -- files ------------------------------------------------------------------------------
    def files(self) -> list[str]:
        return self._writer.files()

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
        return total + self.size - self.flushed

    def position_of(self, name: str, pos: int) -> BinlogPosition:
        return BinlogPosition(name, pos)

    def readable_to(self, offset: int) -> None:
        """The applier may read the current file up to `offset` (the end of a complete
        transaction, durable per sync_relay_log: the IO task's call after each batch)."""
        self.readable = BinlogPosition(self._writer.current_file or "", offset)

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
        truncated = 0
        while files:
            name = files[-1]
            path = self.path(name)
            if not path.exists():  # listed, never made (a crash between index and file)
                files.pop()
                write_index(self.datadir, self.basename, files, INDEX_PREFIX)
                continue
            size = path.stat().st_size
            tracker, boundary_offset = _scan(path)
            if tracker is None or tracker.master is None:
                path.unlink()
                truncated += size
                files.pop()
                write_index(self.datadir, self.basename, files, INDEX_PREFIX)
                continue
            if boundary_offset < size:
                cut_file(path, boundary_offset)
                truncated += size - boundary_offset
            self.readable = self.position_of(name, boundary_offset)
            return Recovered(tracker.master, self.readable, truncated)
        return Recovered(None, None, truncated)

    def gtids(self) -> dict[int, Gtid]:
        """Per domain, the GTID of the last complete transaction in the relay log's files (what
        MariaDB shows as Gtid_IO_Pos, beyond @@gtid_slave_pos). Reads every file."""
        out: dict[int, Gtid] = {}
        for name in self.files():
            path = self.path(name)
            if path.exists():
                tracker, _ = _scan(path)
                if tracker is not None:
                    out.update(tracker.gtids)
        return out

    # -- writing (IO task only) ----------------------------------------------------------------
    def start_file(self, checksum: bool) -> str:
        """Close the current file and begin the next one with the magic and our FD event."""
        self._forget_tail()
        self._writer.start_file(checksum)
        name = self._writer.current_file
        # The previous file was cut back to its last complete transaction (`truncate_tail`)
        # before this one began, so all of it is readable; this one is, up to its FD.
        self.readable = self.position_of(name, self.size)
        return name

    def follow_rotate(self, checksum: bool, fsync: Callable[[int], None] | None = None) -> str:
        """Continue in a new file at a transaction boundary because the master moved to its next
        binlog file (MariaDB's process_io_rotate -> rotate_relay_log): the master's ROTATE and
        what follows it go into the new file, so a relay file never holds GTIDs from before and
        after a master file's GTID_LIST (`mariadb-binlog` reads each one in its strict GTID mode).
        Everything is fsynced first (`fsync` as in `sync`): the old file becomes readable to
        its end."""
        self.flush()
        self.sync(fsync)
        return self.start_file(checksum)

    def rotate(self, master: BinlogPosition, master_server_id: int, master_fd: bytes | None, checksum: bool) -> str:
        """Continue in a new file at a transaction boundary (the current file reached
        max_relay_log_size). The new file starts the way a new connection's does - our FD, an
        artificial ROTATE to the master's current coordinates, the master's FD (log_pos 0) - so
        the applier and `recover` read it on its own. Everything is fsynced first: the old file
        becomes readable to its end."""
        name = self.follow_rotate(checksum)
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
        """Buffer one event; returns its end offset in the current file. The event is kept in
        the tail: bytes that do not change (bytes, or a view of bytes)."""
        end = self._writer.append_raw(event)
        size = len(event)
        self._tail.append((end - size, event))
        self._tail_bytes += size
        if self._tail_bytes > 2 * TAIL_BYTES_MAX:
            self._trim_tail()
        return end

    def _trim_tail(self) -> None:
        """Keep the newest TAIL_BYTES_MAX of the tail (at least; called past twice that: amortized)."""
        keep, kept = len(self._tail), 0
        while keep and kept < TAIL_BYTES_MAX:
            keep -= 1
            kept += len(self._tail[keep][1])
        del self._tail[:keep]
        self._tail_bytes = kept

    def append_run(self, events: list[bytes | memoryview]) -> list[int]:
        """`append` for each of `events` in one step: their end offsets in the current file."""
        start = self._writer.pending_position.pos
        ends = list(accumulate(map(len, events), initial=start))
        self._writer.append_raw(b"".join(events))
        return self._keep(events, ends)

    def written_run(self, events: list[bytes | memoryview], synced: bool) -> list[int]:
        """`append_run` for events the receiver thread (slave/_receiver.c) already wrote at the
        end of the current file through `descriptor` (and, `synced`, fsynced): counted and kept
        in the tail, not written again. Nothing may be buffered."""
        size = sum(map(len, events))
        start = self._writer.written_elsewhere(size, synced) - size  # (no buffer: the file's end)
        return self._keep(events, list(accumulate(map(len, events), initial=start)))

    @property
    def descriptor(self) -> int:
        """The current file's descriptor, for the receiver thread's writes (`written_run`)."""
        return self._writer.descriptor

    def _keep(self, events: list[bytes | memoryview], ends: list[int]) -> list[int]:
        """The tail after events that end at `ends[1:]` (ends[0]: where the first begins)."""
        start = ends[0]
        self._tail += zip(ends, events, strict=False)  # ends has one more: the last end
        del ends[0]
        self._tail_bytes += ends[-1] - start if events else 0
        if self._tail_bytes > 2 * TAIL_BYTES_MAX:
            self._trim_tail()
        return ends

    def tail(self, name: str, start: int, end: int | None) -> list[tuple[int, bytes | memoryview]] | None:
        """The events of relay file `name` in [start, end) as (offset, event), when the tail holds
        all of them (`start` and `end` are event boundaries in it); None otherwise: read the file.
        The list is the caller's (appends after the call do not change it)."""
        tail = self._tail
        if end is None or name != self.current or not tail or start < tail[0][0]:
            return None
        first = bisect_left(tail, start, key=_offset)
        last = bisect_left(tail, end, key=_offset)
        if first == len(tail) or tail[first][0] != start or last == 0:
            return None
        at, event = tail[last - 1]
        if at + len(event) != end:
            return None
        return tail[first:last]

    def _forget_tail(self) -> None:
        self._tail = []
        self._tail_bytes = 0

    def flush(self) -> None:
        """Hand the buffer to the OS. On failure the file is cut back to `flushed` (see the
        header) and the OSError propagates."""
        if not self._writer.is_open:
            return
        pending = self.size - self.flushed
        try:
            self._writer.flush()
        except OSError:
            self._failed(self.flushed, pending)  # the writer left the file at its last good end
            raise

    def sync(self, fsync: Callable[[int], None] | None = None) -> int:
        """fsync what was flushed (blocking: the IO task runs it on its relay I/O thread, and does
        nothing else with the relay log meanwhile). Returns the offset that is now durable. On
        failure the file is cut back to `synced` (never below what the applier may have read)
        and the OSError propagates."""
        if not self._writer.is_open:
            return self.synced
        try:
            return self._writer.sync(fsync).pos
        except OSError:
            self._sync_failed()
            raise

    async def sync_on(self, syncer: Syncer) -> int:
        """`sync` with the fsync itself made by `syncer` (`binlog.syncer.NativeSyncer`, or the IO
        task's thread lane) while the loop goes on: the same outcome, the same cut-back on
        failure. The caller writes nothing to the relay log until it returns."""
        await self._fsync_by(syncer.fsync)
        return self.synced

    async def sync_then_send(self, syncer: NativeSyncer, sock: int, data: bytes) -> bool:
        """`sync_on` whose fsync is followed, on the syncer's thread and only once it succeeded,
        by `data` written to the socket `sock` (`NativeSyncer.fsync_then_send`: a slave's ack,
        sent the moment the events it names are durable). False when there was nothing to fsync:
        nothing was sent. A failed send (`binlog.syncer.NotSent`) leaves the relay log synced."""
        return await self._fsync_by(lambda fd: syncer.fsync_then_send(fd, sock, data))

    async def _fsync_by(self, fsync: Callable[[int], Awaitable[None]]) -> bool:
        """The fsync of what was written since the last one, made by `fsync(fd)` elsewhere: False
        when there was nothing to fsync (no call). A failed fsync cuts the file back (`sync`'s
        rule) and raises; `NotSent` (the fsync succeeded, what followed it did not) counts the
        fsync and raises."""
        if not self._writer.is_open:
            return False
        pending = self._writer.sync_begin()
        if pending is None:
            return False
        try:
            await fsync(pending[0])
        except NotSent:
            self._writer.sync_done(*pending)
            raise
        except OSError:
            self._sync_failed()
            raise
        self._writer.sync_done(*pending)
        return True

    def write_failed(self, size: int) -> None:
        """A write of `size` bytes that the receiver thread made failed (it cut the file back to
        `flushed`): the relay log is damaged there, as after a failed `flush`."""
        self._failed(self.flushed, size)

    def sync_failed(self) -> None:
        """An fsync the receiver thread made failed (its batch counted with `written_run(...,
        False)`): cut back as after a failed `sync`."""
        self._sync_failed()

    def _sync_failed(self) -> None:
        good_end = max(self.synced, self._readable_here())
        self._failed(good_end, self.size - good_end)

    def _readable_here(self) -> int:
        readable = self.readable
        return readable.pos if readable is not None and readable.file == self.current else 0

    def _failed(self, good_end: int, failed_bytes: int) -> None:
        """A write or fsync failed: forget everything after `good_end` and try to cut the file
        there at once (`cut_back` finishes the job, or retries it)."""
        self._forget_tail()
        self.failed_bytes = failed_bytes
        self.damaged = good_end if self.damaged is None else min(self.damaged, good_end)
        try:
            self._writer.truncate(good_end)
        except OSError:
            pass

    def cut_back(self) -> BinlogPosition | None:
        """After a failed write or fsync (`damaged`): cut the current file to its last complete
        transaction at or before the last good end, fsync it and close it. Returns the master's
        coordinates right after that transaction (None when the file holds no event of the
        master: resume where the file began). Raises OSError when the disk still refuses; the
        relay log stays damaged."""
        assert self.damaged is not None and self.current is not None
        self._forget_tail()
        path = self.path(self.current)
        tracker, boundary = _scan(path, self.damaged)
        if tracker is None:  # start_file makes the head durable before the file is current
            raise OSError(errno.EIO, f"relay log file {self.current} lost its header")
        if self._writer.is_open:
            self._writer.truncate(boundary)
            self._writer.close()
        else:
            cut_file(path, boundary)
        self.damaged = None
        here = self.position_of(self.current, boundary)
        if self.readable is None or self.readable < here:
            self.readable = here  # durable, whole transactions
        return tracker.master

    def truncate_tail(self, offset: int) -> None:
        """Cut the current file back to `offset` (a transaction boundary) before resuming, and
        make what stays durable: the next file begins after it. Whole transactions still
        buffered before `offset` are written. A failure leaves the relay log damaged."""
        self._forget_tail()
        if not self._writer.is_open:
            return
        synced = self.synced
        try:
            self._writer.truncate(offset)
        except OSError:
            good_end = min(offset, max(synced, self._readable_here()))
            self._failed(good_end, self.size - good_end)
            raise
        self.flush()
        if self.synced < self.size:
            self.sync()

    def close(self) -> None:
        """Flush and close the current file (closed even when the flush fails)."""
        self._forget_tail()
        if not self._writer.is_open:
            return
        try:
            self.flush()
        finally:
            self._writer.close()

    # -- housekeeping -----------------------------------------------------------------------------
    def purge_before(self, name: str) -> list[str]:
        """Delete the files listed before `name` (fully applied ones)."""
        if name not in self.files():
            return []
        return self._writer.purge_to(name)

    def reset(self) -> None:
        """RESET SLAVE: delete every relay log file and the index."""
        self._forget_tail()
        self._writer.reset(new_file=False)
        self.damaged = None
        self.readable = None


_offset = itemgetter(0)


def _scan(path: Path, end: int | None = None) -> tuple[GroupTracker | None, int]:
    """Follow a relay file's events (up to `end`): (tracker after the last complete transaction,
    its offset). Each event is checked as `binlog.reader.iter_checked` does; the first one that
    is torn or corrupt ends the scan (everything from there is cut off).

    The tracker is None when the file does not even hold our own FD event."""
    tracker: GroupTracker | None = None
    boundary = len(BINLOG_MAGIC)
    boundary_master: BinlogPosition | None = None
    try:
        for off, ev, checksum in iter_checked(path, end):
            if tracker is None:  # our own FD (iter_checked refuses a file that starts otherwise)
                tracker = GroupTracker(None, checksum)
                boundary = off + len(ev)
            elif tracker.feed(ev):
                boundary = off + len(ev)
                boundary_master = tracker.master
    except (BinlogFileError, ProtocolError):
        pass
    if tracker is None:
        return None, 0
    tracker.master = boundary_master
    tracker.in_group = tracker.pending = False
    return tracker, boundary


__all__ = ["GroupTracker", "Recovered", "RelayLog"]
