"""`BinlogWriter`: appends events to a sequence of binlog files (`basename.000001`, ...) + `.index`.

Used for the master's binlog and the slave's relay log (same format, same files). The binlog
builds its own events (`append`) and rotates by size (`max_size`) with a ROTATE event; the relay
log (slave/relay_log.py) appends the master's events as received (`append_raw`), starts a file
per connection to its master (`start_file`, the master's checksum setting), cuts back to its
transaction boundaries (`truncate`) and rotates itself (`max_size=None`); its files carry no
in-use flag (`mark_in_use=False`) and its index lists bare names (`index_prefix=""`), as they
always have.

Contract (who may call what, what is durable when):
- One owner calls the mutating methods (`open`, `append*`, `flush`, `sync`, `rotate`,
  `start_file`, `truncate`, `purge_to`, `reset`, `close`); they are not thread-safe. Any number of readers may read the files at the
  same time with `binlog.reader`, bounded by `end_position` (MySQL's binlog_end_pos, WL#5721).
- `append*` only buffers in memory: nothing is visible to readers, nor durable.
  `flush()` writes the buffer to the OS (after_flush: readable by dump threads, lost on an OS
  crash) and advances `end_position`. `sync()` fsyncs it (after_sync: durable). Callers decide
  the policy (sync_binlog, sync_relay_log).
- `append(...)` takes one transaction (or commit group): each event's log_pos is set to its end
  offset in the file. If the file has reached `max_size` after a flush, `flush()` rotates: ROTATE
  event, fsync, close, new file with magic + FORMAT_DESCRIPTION_EVENT, index updated (fsync), so
  rotation never splits a transaction appended in one call. After such a rotation by size
  `on_size_rotated` (when set) is called, on the thread that rotated.
- `append_raw(event)` appends an already-encoded event unchanged (a relay log keeps the master's
  log_pos, as MySQL's relay log does); the caller is responsible for its checksum matching ours.
- `start_file(checksum)` ends the current file as it is (no ROTATE) and starts the next one of
  the index; `truncate(offset)` forgets everything after `offset` (buffered bytes dropped, the
  file cut and fsynced), as a failed write's cut-back does, but raising when the cut fails.
- A new file starts with the magic number and our FORMAT_DESCRIPTION_EVENT (log_pos = its end),
  then the events `header(name, previous)` returns (the binlog's GTID_LIST and
  BINLOG_CHECKPOINT; `previous` is the file rotated from, None otherwise), flagged LOG_EVENT_BINLOG_IN_USE_F (when `mark_in_use`) until `close()` clears it;
  `open(new_file=False)` continues the last file after cutting a torn tail
  (`binlog.reader.torn_tail`: an incomplete event, or zeros a crash left after the last event),
  `open(new_file=True)` (MySQL's master behaviour at restart) starts the next file. A last file with real corruption (CRC mismatch, garbage) is
  never modified beyond its FD flags: a new file is started after it.
- Rotation fsyncs the old file before the new one is created, so a transaction's end position
  returned by `append` is durable once `flush()` rotated, even though `sync()` then syncs the
  new file.
- `last_group`: what the last `write_group` wrote, as the events the writer encoded for it
  (`WrittenGroup`: file, [start, end), each (offset, event) as in the file), kept for the
  publisher to hand to readers (`master.binlog_end.BinlogEnd.tail`) so that they need not read
  back what was just written. None when the group is not known event by event (bytes appended
  raw, a buffer cut inside it, more than `KEEP_EVENTS_MAX` bytes) and as soon as anything else
  writes or cuts the file (a rotation, including one right after the group, RESET, a cut-back),
  so it never describes bytes that are not the file's.
- Write failures are atomic. A failed write (ENOSPC, EIO, a short write then an error) leaves
  the file exactly at its last good end: it is cut back (ftruncate, then fsync), the failed
  buffer is dropped (nothing of it is ever written later) and the OSError propagates; offsets,
  `end_position` and the next `append`'s log_pos are those of the last good end. `write_group`
  is the commit path's all-or-nothing step: write, and fsync when asked (fdatasync, as MySQL's
  my_sync: the data and the file size, without the timestamps); in halves
  (`write_group_begin`, the fsync made elsewhere between `sync_begin` and `sync_done`, then
  `write_group_end` or `write_group_failed`, then `rotate_if_full`) the same; a failed fsync cuts
  the group back too (it was never published: readers stop at the published end, which moves
  only after the sync). A failed `sync()` on its own raises and cuts nothing (with
  sync_binlog > 1 what it covers may be published already). If the cut-back itself fails, the
  writer refuses every write until a retry of it succeeds (tried before each write).
- Rotation is all or nothing too: the next file is made whole first (magic + FD, fsync, the
  directory fsynced), then the ROTATE is written to the old file and fsynced, then the index
  names the new file. Any failure undoes what was done (ROTATE cut off, new file removed): the
  old file stays the active one and the index never names a file that is missing or lacks its
  header. A rotation due to max_size that fails is only logged (the group before it is
  durable) and tried again after the next group.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from binlog.index import (
    file_name,
    fsync_directory,
    index_path,
    next_file_name,
    read_index,
    write_index,
)
from binlog.reader import BinlogFileError, iter_events, scan_file, torn_tail, truncate_torn_tail
from protocol.errors import LocalProtocolError, ProtocolError
from protocol.events import (
    BINLOG_CHECKSUM_ALG_CRC32,
    BINLOG_CHECKSUM_ALG_OFF,
    BINLOG_MAGIC,
    LOG_EVENT_BINLOG_IN_USE_F,
    EventType,
    FormatDescription,
    Rotate,
    encode_body_event,
    encode_event,
    encode_events,
    event_type,
    framed_size,
    in_use_flag,
    rewrite_format_description,
)
from protocol.position import BinlogPosition

log = logging.getLogger("semisync.binlog")

# (type_code, body bytes, timestamp, flags)
EventSpec = tuple[int, bytes, int, int]

KEEP_EVENTS_MAX = 64 << 10  # a larger group is not kept as events (`last_group`): readers read it


@dataclass(frozen=True, slots=True)
class WrittenGroup:
    """The bytes [start, end) of `file` one `write_group` wrote, as the events the writer
    encoded (each (offset, event), byte for byte what the file holds there)."""

    file: str
    start: int
    end: int
    events: tuple[tuple[int, bytes], ...]


class BinlogWriter:
    def __init__(
        self,
        directory: Path | str,
        basename: str,
        *,
        server_id: int,
        checksum: bool,
        max_size: int | None,
        server_version: str,
        mark_in_use: bool = True,
        index_prefix: str = "./",
        header: Callable[[str, str | None], Iterable[EventSpec]] | None = None,
    ) -> None:
        if max_size is not None and max_size < 4096:
            raise LocalProtocolError(f"max_size {max_size} is below 4096 bytes")
        self.directory = Path(directory)
        self.basename = basename
        self.server_id = server_id
        self.checksum = checksum
        self.max_size = max_size
        self.on_size_rotated: Callable[[], None] | None = None  # (the master's expiry of old files)
        self.server_version = server_version
        self.mark_in_use = mark_in_use  # LOG_EVENT_BINLOG_IN_USE_F in the FD while a file is written
        self.index_prefix = index_prefix  # before each name in the index (binlog.index.write_index)
        self.header = header  # the events after each new file's FD
        self._fd: int = -1
        self._name = ""
        self._flushed = 0  # bytes of the current file written to the OS
        self._synced = 0
        self._buf = bytearray()
        # the buffer's events as encoded, (offset, event); None: the buffer holds bytes not
        # framed here (`append_raw`, a cut inside it) or more than KEEP_EVENTS_MAX
        self._events: list[tuple[int, bytes]] | None = []
        self.last_group: WrittenGroup | None = None  # see the module docstring
        self._framing = framed_size(0, checksum)  # what an event adds to its body: header, footer
        self._cut_pending: int | None = None  # a failed cut-back's target: no write until it is done
        self._group_events: list[tuple[int, bytes]] | None = None  # between write_group_begin and _end

    # -- lifecycle ---------------------------------------------------------------------------
    def open(self, new_file: bool = True) -> BinlogPosition:
        """Start writing: continue the last file of the index (`new_file=False`, after cutting a
        torn tail), or start the next file (`new_file=True`, what a MySQL master does at every
        start). Creates `basename.000001` when there is no index yet. Returns `end_position`."""
        if self._fd >= 0:
            raise LocalProtocolError("binlog already open")
        self.directory.mkdir(parents=True, exist_ok=True)
        names = read_index(self.directory, self.basename)
        if not names:
            self._create(file_name(self.basename, 1), [])
            return self.end_position
        last = names[-1]
        path = self.directory / last
        scanned = scan_file(path) if path.exists() else None
        if scanned is not None and torn_tail(path, scanned):
            # a torn write (or zeros a crash left after the last event): cut it off. Real
            # corruption is left for a human; we only start a new file after it.
            truncate_torn_tail(path, scanned)
            scanned = scan_file(path)
        continuable = (
            scanned is not None
            and scanned.last_complete_end > len(BINLOG_MAGIC)
            and scanned.checksum is self.checksum
            and scanned.error is None
        )
        if new_file or not continuable:
            if scanned is not None:
                self._clear_in_use(path)
            self._create(next_file_name(last), names)
            return self.end_position
        size = scanned.last_complete_end  # type: ignore[union-attr]
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._name = last
        self._flushed = self._synced = size
        return self.end_position

    def close(self) -> None:
        """Flush, fsync, clear the FD's in-use flag and close. Safe to call twice."""
        if self._fd < 0:
            return
        try:
            self._write_buffer()
            if self._synced != self._flushed:
                os.fsync(self._fd)
        finally:
            os.close(self._fd)
            self._fd = -1
        if self.mark_in_use:
            self._clear_in_use(self.directory / self._name)

    def __enter__(self) -> BinlogWriter:
        if self._fd < 0:
            self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- appending ---------------------------------------------------------------------------
    def append(self, events: Iterable[EventSpec], server_id: int | None = None) -> BinlogPosition:
        """Buffer one transaction's events; each gets log_pos = its end offset in this file and
        `server_id` (default: this server's; a replicated transaction keeps its origin's).
        Returns the end position of the last event (what an ack for this transaction names)."""
        self._require_open()
        origin = self.server_id if server_id is None else server_id
        end = self._flushed + len(self._buf)
        framed = encode_events(events, server_id=origin, offset=end, checksum=self.checksum)
        if not framed:
            return BinlogPosition(self._name, end)
        out = self._buf
        for _start, event in framed:
            out += event
        start, event = framed[-1]
        end = start + len(event)
        kept = self._events
        if kept is not None:
            if end - self._flushed <= KEEP_EVENTS_MAX:
                kept += framed
            else:
                self._events = None
        return BinlogPosition(self._name, end)

    def append_raw(self, event: bytes | memoryview) -> int:
        """Buffer one already-encoded event unchanged; returns its end offset in this file."""
        self._require_open()
        self._buf += event
        self._events = None
        return self._flushed + len(self._buf)

    def written_elsewhere(self, size: int, synced: bool) -> int:
        """`size` bytes another writer of this file's descriptor put at its end (a slave's
        receiver thread, slave/_receiver.c), counted as written (and, `synced`, as fsynced): the
        buffer must be empty and no cut pending. Returns the new flushed end."""
        if self._fd < 0 or self._buf or self._cut_pending is not None:  # (once per batch: no `_require_open` frame)
            self._require_open()
            raise LocalProtocolError("bytes written elsewhere while the writer holds a buffer or a cut")
        self.last_group = None
        self._flushed += size
        if synced:
            self._synced = self._flushed
        return self._flushed

    @property
    def descriptor(self) -> int:
        """The current file's descriptor (O_APPEND), for a writer elsewhere (`written_elsewhere`)."""
        self._require_open()
        return self._fd

    @property
    def pending_position(self) -> BinlogPosition:
        """Where the next appended event starts (flushed + buffered)."""
        return BinlogPosition(self._name, self._flushed + len(self._buf))

    # -- durability --------------------------------------------------------------------------
    def flush(self) -> BinlogPosition:
        """Write buffered events to the OS; rotate if the file reached max_size. Returns the new
        `end_position` (in the new file after a rotation). A failed write leaves the file at its
        last good end, drops the buffer and raises the OSError."""
        self._require_open()
        self._write_buffer()
        self.rotate_if_full()
        return self.end_position

    def write_group(self, sync: bool) -> BinlogPosition:
        """One commit group, all or nothing: write the buffer and, when `sync`, fsync it. On an
        OSError from either, the file is cut back to where the group started, the buffer is
        dropped and the error propagates. Then rotate if the file reached max_size (a failed
        rotation is logged: the group is written). Returns the new `end_position`."""
        mark = self.write_group_begin()
        pending = self.sync_begin() if sync else None
        if pending is not None:
            try:
                os.fdatasync(pending[0])
            except OSError:
                self.write_group_failed(mark)
                raise
            self.sync_done(*pending)
        self.write_group_end(mark)
        self.rotate_if_full()
        return self.end_position

    # `write_group` in halves, for a group whose fsync is made elsewhere (`binlog.syncer`):
    # `write_group_begin`, then `sync_begin` / the fsync / `sync_done`, then `write_group_end`
    # (or `write_group_failed`), then `rotate_if_full` where blocking is allowed. The caller
    # writes nothing else to the writer in between.
    def write_group_begin(self) -> int:
        """Write the buffer (a failed write cuts back and raises, as in `write_group`); returns
        the group's start offset, the mark to end or fail it with."""
        self._require_open()
        mark = self._flushed
        self._group_events = self._write_buffer()
        return mark

    def write_group_failed(self, mark: int) -> None:
        """The group's fsync failed (or its caller gave up on it): the file ends at `mark` again,
        as after a failed `write_group`."""
        self._group_events = None
        self._cut_back(mark)

    def write_group_end(self, mark: int) -> bool:
        """The group is written (and synced, if it was to be): it is the file's `last_group`.
        Returns whether the file reached max_size (`rotate_if_full` is due)."""
        events, self._group_events = self._group_events, None
        if events:
            self.last_group = WrittenGroup(self._name, mark, self._flushed, tuple(events))
        return self.rotation_due

    @property
    def rotation_due(self) -> bool:
        """Whether what is written reached max_size: the next `rotate_if_full` rotates."""
        return self.max_size is not None and self._flushed >= self.max_size

    @property
    def buffered(self) -> int:
        """Bytes appended and not yet written."""
        return len(self._buf)

    def sync(self, fsync: Callable[[int], None] | None = None) -> BinlogPosition:
        """fsync what is flushed (`fsync`: os.fsync, or a stand-in). Returns the position that is
        now durable. A failure raises and cuts nothing (see the module docstring; the commit path
        uses `write_group`)."""
        pending = self.sync_begin()
        if pending is not None:
            (fsync or os.fsync)(pending[0])
            self.sync_done(*pending)
        return self.synced_position

    def sync_begin(self) -> tuple[int, int] | None:
        """For an fsync made elsewhere (`binlog.syncer`, off the caller's thread): the descriptor
        to fsync and the flushed end it will cover, or None when all is durable already. The
        caller writes nothing to this writer until it calls `sync_done` (or gives up)."""
        self._require_open()
        return None if self._synced == self._flushed else (self._fd, self._flushed)

    def sync_done(self, fd: int, end: int) -> BinlogPosition:
        """An fsync of `sync_begin`'s descriptor `fd` returned: what it covered, `end`, is durable
        (unless the file was closed or cut below `end` since: then nothing changes)."""
        if fd == self._fd and self._synced < end <= self._flushed:
            self._synced = end
        return self.synced_position

    @property
    def end_position(self) -> BinlogPosition:
        """The end of what is flushed (readers may read up to here)."""
        return BinlogPosition(self._name, self._flushed)

    @property
    def synced_position(self) -> BinlogPosition:
        """The end of what is known durable (fsynced) in the current file."""
        return BinlogPosition(self._name, self._synced)

    @property
    def current_file(self) -> str:
        return self._name

    @property
    def is_open(self) -> bool:
        return self._fd >= 0

    def truncate(self, offset: int) -> BinlogPosition:
        """Forget everything of the current file after `offset`: buffered bytes past it are
        dropped (those before it stay buffered); when it is before the flushed end, the file is
        cut there and fsynced. A failed cut leaves the offsets at `offset`, is retried before the
        next write, and its OSError propagates. Returns `pending_position`."""
        self._require_open()
        if offset < self._flushed:
            self._drop_buffer()
            self._cut_to(offset)
        else:
            if offset < self._flushed + len(self._buf):
                self._events = None  # (the relay log's cut: it appends raw events anyway)
            del self._buf[offset - self._flushed :]
            if self._cut_pending is not None:
                self._cut_to(self._cut_pending)
        return self.pending_position

    # -- files -------------------------------------------------------------------------------
    def start_file(self, checksum: bool | None = None) -> BinlogPosition:
        """End the current file as it is (closed, no ROTATE event) and start the next one of the
        index (`.000001` without one), whose events carry a CRC32 when `checksum` (unchanged when
        None). Returns `end_position` (after the new file's FD). A failure leaves no new file
        and an index without it, and the writer closed."""
        self.close()
        if checksum is not None:
            self.checksum = checksum
        self.directory.mkdir(parents=True, exist_ok=True)
        names = read_index(self.directory, self.basename)
        self._create(next_file_name(names[-1]) if names else file_name(self.basename, 1), names)
        return self.end_position

    def rotate(self) -> BinlogPosition:
        """FLUSH BINARY LOGS: start the next file (magic + FD, fsynced), ROTATE event to it in
        this one (fsynced), update the index, close this one. Returns the new end position. All
        or nothing: an OSError leaves this file the active one, without the ROTATE, and the
        index and the directory as they were."""
        self._require_open()
        self._write_buffer()  # what is buffered belongs to the old file
        next_name = next_file_name(self._name)
        next_path = self.directory / next_name
        new_fd, header_len = self._start_file(next_path, self._name)
        mark = self._flushed
        try:
            self.append([(EventType.ROTATE_EVENT, Rotate(4, next_name).encode(), int(time.time()), 0)])
            self._write_buffer()
            os.fsync(self._fd)
            names = read_index(self.directory, self.basename)
            if next_name not in names:
                write_index(self.directory, self.basename, [*names, next_name], self.index_prefix)
        except OSError:
            if next_name not in read_index(self.directory, self.basename):
                # undone: the old file stays the active one, without the ROTATE
                os.close(new_fd)
                _unlink(next_path)
                self._cut_back(mark)
                raise
            # the index was replaced (only its directory fsync failed): the rotation happened
            log.warning("binlog rotation to %s: the index directory could not be fsynced", next_name)
        old_fd, old_path = self._fd, self.directory / self._name
        self._fd, self._name = new_fd, next_name
        self._flushed = self._synced = header_len
        os.close(old_fd)
        self._clear_in_use(old_path)
        log.info("binlog rotated to %s", next_name)
        return self.end_position

    def files(self) -> list[str]:
        """The binlog files, in index order (SHOW BINARY LOGS)."""
        return read_index(self.directory, self.basename)

    def purge_to(self, name: str) -> list[str]:
        """PURGE BINARY LOGS TO 'name': delete the files before `name` (never the active one).
        Returns the names deleted. LocalProtocolError if `name` is not in the index."""
        names = self.files()
        if name not in names:
            raise LocalProtocolError(f"{name} is not in {self.basename}.index")
        keep_from = names.index(name)
        if self._fd >= 0 and self._name in names:
            keep_from = min(keep_from, names.index(self._name))
        doomed = names[:keep_from]
        if not doomed:
            return []
        write_index(self.directory, self.basename, names[keep_from:], self.index_prefix)
        for old in doomed:
            try:
                (self.directory / old).unlink()
            except FileNotFoundError:
                pass
        return doomed

    def reset(self, new_file: bool = True) -> BinlogPosition:
        """RESET MASTER / RESET SLAVE: delete every file and the index, start at `.000001` (or,
        `new_file=False`, leave the writer closed with no file: `start_file` begins `.000001`)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._drop_buffer()
        self.last_group = None
        self._cut_pending = None
        names = self.files()
        try:  # the index first: it never names a file that is gone
            index_path(self.directory, self.basename).unlink()
        except FileNotFoundError:
            pass
        for old in names:
            _unlink(self.directory / old)
        if not new_file:
            self._name, self._flushed, self._synced = "", 0, 0
            return self.end_position
        self._create(file_name(self.basename, 1), [])
        return self.end_position

    # -- internals ---------------------------------------------------------------------------
    def _require_open(self) -> None:
        if self._fd < 0:
            raise LocalProtocolError("binlog is not open")

    def _write_buffer(self) -> list[tuple[int, bytes]] | None:
        """Write the buffer whole, or leave the file at its last good end and drop the buffer.
        Returns the events written, as encoded (None: not known event by event)."""
        self.last_group = None  # whatever is written now, the file no longer ends with it
        if self._cut_pending is not None:
            self._retry_cut_back()
        if not self._buf:
            self._events = []
            return []
        # dropped whatever happens: never written later
        data, self._buf = self._buf, bytearray()
        events, self._events = self._events, []
        mark = self._flushed
        try:
            _write_all(self._fd, data)
        except OSError:
            self._cut_back(mark)
            raise
        self._flushed = mark + len(data)
        return events

    def _drop_buffer(self) -> None:
        self._buf.clear()
        self._events = []

    def _cut_back(self, mark: int) -> None:
        """After a failed write or fsync: the file ends at `mark` again (ftruncate + fsync) and
        the offsets are `mark`'s. A failed cut-back is remembered and retried before the next
        write."""
        try:
            self._cut_to(mark)
        except OSError as exc:
            log.error("binlog %s: could not cut the file back to %d after a failed write: %s", self._name, mark, exc)

    def _cut_to(self, mark: int) -> None:
        """The offsets are `mark`'s; the file is cut there (ftruncate + fsync), or the cut stays
        pending (retried before the next write) and the OSError propagates."""
        self._flushed = mark
        self._synced = min(self._synced, mark)
        self.last_group = None
        self._cut_pending = mark
        os.ftruncate(self._fd, mark)
        os.fsync(self._fd)
        self._cut_pending = None

    def _retry_cut_back(self) -> None:
        mark = self._cut_pending
        assert mark is not None
        self._cut_back(mark)
        if self._cut_pending is not None:
            self._drop_buffer()  # this group fails as a whole
            raise OSError(errno.EIO, f"binlog {self._name} could not be cut back to {mark} after a failed write")

    def rotate_if_full(self) -> None:
        """Rotate when the file reached max_size; a failed rotation is logged and tried again
        after the next group."""
        if self.max_size is None or self._flushed < self.max_size:
            return
        try:
            self.rotate()
        except OSError as exc:
            log.error("binlog rotation after %s failed, it stays the active file until the next try: %s",
                      self._name, exc)
            return
        if self.on_size_rotated is not None:
            self.on_size_rotated()

    def format_description(self, flags: int = LOG_EVENT_BINLOG_IN_USE_F, created: bool = True) -> bytes:
        """Our FORMAT_DESCRIPTION_EVENT as written at offset 4 of each new file. Its creation
        time is 0 in a file a rotation started (`created` False), as MariaDB's: a replica takes
        one that is set for a master that started, and drops the temporary tables of its threads."""
        now = int(time.time())
        fd = FormatDescription(
            binlog_version=4,
            server_version=self.server_version,
            create_timestamp=now if created else 0,
            checksum_alg=BINLOG_CHECKSUM_ALG_CRC32 if self.checksum else BINLOG_CHECKSUM_ALG_OFF,
        )
        body = fd.encode()
        end = len(BINLOG_MAGIC) + framed_size(len(body), True)  # an FD always has its CRC32
        return encode_body_event(
            fd, timestamp=now, server_id=self.server_id, log_pos=end, flags=flags,
            checksum=True,
        )

    def _create(self, name: str, names: list[str]) -> None:
        path = self.directory / name
        fd, size = self._start_file(path)
        if name not in names:
            try:
                write_index(self.directory, self.basename, [*names, name], self.index_prefix)
            except OSError:
                if name not in read_index(self.directory, self.basename):
                    os.close(fd)
                    _unlink(path)
                    raise
        self._fd = fd
        self._name = name
        self._flushed = self._synced = size

    def _start_file(self, path: Path, previous: str | None = None) -> tuple[int, int]:
        """A new file with the magic number, our FD and the `header` events, fsynced with its
        directory: (fd, size). On failure the file is removed and the OSError propagates (the
        index is not touched)."""
        flags = LOG_EVENT_BINLOG_IN_USE_F if self.mark_in_use else 0
        data = bytearray(BINLOG_MAGIC + self.format_description(flags, created=previous is None))
        for type_code, body, timestamp, flags in self.header(path.name, previous) if self.header else ():
            data += encode_event(
                type_code, body, timestamp=timestamp, server_id=self.server_id,
                log_pos=len(data) + self._framing + len(body), flags=flags, checksum=self.checksum,
            )
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        try:
            _write_all(fd, data)
            os.fsync(fd)
            fsync_directory(self.directory)
        except OSError:
            os.close(fd)
            _unlink(path)
            raise
        return fd, len(data)

    def _clear_in_use(self, path: Path) -> None:
        """Rewrite the FD's flags without LOG_EVENT_BINLOG_IN_USE_F (the file was closed cleanly).
        A failure is only logged: the file's events are whole either way."""
        try:
            try:
                first = next(iter_events(path), None)
            except BinlogFileError:
                return
            if first is None or event_type(first[1]) != EventType.FORMAT_DESCRIPTION_EVENT or not in_use_flag(first[1]):
                return
            with open(path, "r+b") as f:
                f.seek(first[0])
                f.write(rewrite_format_description(first[1], in_use=False))
                f.flush()
                os.fsync(f.fileno())
        except FileNotFoundError:
            return
        except (OSError, ProtocolError) as exc:  # the file is whole; only its "not closed cleanly" flag stays
            log.warning("binlog %s: could not clear its in-use flag: %s", path.name, exc)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    written = 0
    try:
        while written < len(view):
            written += os.write(fd, view[written:])
    finally:
        view.release()


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


__all__ = ["KEEP_EVENTS_MAX", "BinlogWriter", "EventSpec", "WrittenGroup"]
