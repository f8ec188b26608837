"""`DumpSession`: one slave's binlog dump (WL#5721's Binlog_sender), with heartbeats (WL#342).

Contract (who may call what, which rule each step follows)
- The master role creates a `DumpSession` for a COM_BINLOG_DUMP and awaits `run()`; it returns
  when the dump ends (slave gone, KILL, shutdown, NON_BLOCK caught up, or an error the slave was
  told about with ERR 1236). The session's connection is then the role's to close.
- Before anything is sent the request is validated: the file must be in the index (ERR 1236
  "Could not find first log file name in binary log index file", also for a purged file) and the
  position must be an event boundary in it (ERR 1236 otherwise).
- A damaged binlog (an impossible event size, zero bytes where an event should be, a CRC32
  mismatch when the file has checksums, a read error) ends the dump with ERR 1236 in mysqld's
  words ("bogus data in log event", "event read from binlog did not pass crc check", "I/O error
  reading log event", "binlog truncated in the middle of event; ...", then "; the first event '<file>' at <pos>, the last event read from
  '<file>' at <pos>, the last byte read from '<file>' at <offset>.") and an error in the log;
  nothing after the damage is sent. Every event read from the file is CRC32-checked when the
  file has them; the events of the group taken from memory (below) are not: the check catches
  a file damaged on disk, and these never came from the disk (our encoder computed their CRC32).
- The stream: an artificial ROTATE (log_pos 0, LOG_EVENT_ARTIFICIAL_F, position = the requested
  one), the file's FORMAT_DESCRIPTION (log_pos 0 and no creation time when starting past it, as
  mysqld does; LOG_EVENT_BINLOG_IN_USE_F cleared), then the file's events from the position on.
  A finished file ends with its real ROTATE; the session then opens the next file of the index
  and sends an artificial ROTATE to it (as MariaDB's mysql_binlog_send does for every file: a
  client reading one file, mariadb-binlog without --to-last-log, stops there), its
  FORMAT_DESCRIPTION and events. A file the master crashed in has no ROTATE at its end: the
  next file starts with its artificial ROTATE all the same, or
  the slave would take the new file's events for the old file's.
- Readers never take the writer's lock: events are read from the file up to the published end
  position (`BinlogEnd`, published only after the sync stage), then the session waits for the
  next publish. A session that stands exactly at the start of the group the last publish made
  visible (`BinlogEnd.tail`: same file, same offset; the usual case of a slave that keeps up)
  takes that group's events from memory instead, as the writer encoded them: the same events,
  offsets and bytes the file holds there, never past the published end. Any other position (a
  catch-up, a slave connecting in the middle, another file, a group too large to be kept)
  reads the file. A session that sends every group as it comes (no GTID skipping, a slave of
  capability 4) and is parked at the published end gets such a group sent from the publishing
  call itself (`_pushed`, while its own task is suspended in that wait: still the connection's
  one writer): the same batch, hooks and bytes as when it is woken to send it. When it waited
  `@master_heartbeat_period` (nanoseconds, 0 = none) with nothing to send (since the wait began
  or the last group sent from a publish), it sends a HEARTBEAT (type 27, body = current file
  name, log_pos = current position, timestamp 0).
- Checksums: a slave that ran `SET @master_binlog_checksum= @@global.binlog_checksum` gets the
  events as they are in the file (CRC32 when the file has it). A checksum-unaware slave gets
  every event without its CRC32 footer (event_size fixed) and FORMAT_DESCRIPTIONs saying NONE.
  The first artificial ROTATE comes before any FORMAT_DESCRIPTION, so the slave cannot know the
  file's algorithm yet: it carries a CRC32 only when `@master_binlog_checksum` asked for one
  (mariadb-binlog sets 'NONE'); every later artificial event and heartbeat follows the
  algorithm of the FORMAT_DESCRIPTION sent before it (MariaDB's current_checksum_alg).
  This is MariaDB's behaviour (it logs "Master is configured to log replication events with
  checksum, but will not send such events to slaves that cannot process them"); MySQL refuses
  such a slave with ERR 1236 instead.
- Binlog transmit hooks (WL#4398): `transmit_start` once, `reserve_header` once, then around
  every packet `before_send_event` (on a fresh copy of the reserved header, so an observer that
  went away leaves flag 0) and `after_send_event`; `transmit_stop` once at the end, whatever the
  reason. The per-packet pair runs only when an observer asked for it in `transmit_start`
  (`TransmitParam.event_hooks`; the semi-sync plugin does for a semi-sync slave): a dump to
  any other slave frames its events with no hook and no per-event object. When the reserved header is not empty (semi-sync), every packet carries it, artificial
  events and heartbeats included.
- Writes: the events of one read batch (what was published since the last one, usually a commit
  group; at most about `_BATCH_BYTES`) are framed in one pass (`ServerConnection.send_events`)
  and go to the transport in ONE write: `before_send_events` for the batch (a `SendBatch`; by
  default `before_send_event` for each event in order), the write, then `after_send_events`. So every
  event of the batch is "in flight" before any byte of it can reach the slave, and "sent" only
  once the write returned. Artificial events and heartbeats are written on their own.
- A dump by GTID (`gtid_start`, the `StartFilter` of `protocol.gtid.find_dump_start`) reads its
  file from the beginning and leaves out the event groups up to each requested GTID; after the
  group in which one was reached it sends a fake GTID_LIST of the GTIDs it went by
  (`GtidSkipper`, as sql_repl.cc's send_event_to_slave). Skipped events get no transmit hook.
- `@mariadb_slave_capability` below 4 (MySQL's and old slaves, unset = 0): a GTID event goes out
  as a BEGIN of the same size, a standalone GTID, a GTID_LIST and (below 3) a
  BINLOG_CHECKPOINT are left out for a slave that tolerates holes (2), else replaced by a no-op
  USER_VAR of the same size (`compatible_event`), so the slave's positions stay right.
- The read side of the connection belongs to the ack receiver (`master.ack_receiver`) from the
  moment the stream starts; this coroutine only writes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from binlog.index import read_index
from binlog.reader import BinlogFileError, file_checksum, iter_events, iter_range
from master.binlog_end import BinlogEnd
from protocol.connection import ServerConnection
from protocol.errors import (
    ER_MASTER_FATAL_ERROR_READING_BINLOG,
    MySQLError,
    ProtocolError,
    RemoteProtocolError,
)
from protocol.events import (
    BINLOG_MAGIC,
    FL_STANDALONE,
    LOG_EVENT_ARTIFICIAL_F,
    EventType,
    Gtid,
    GtidList,
    Heartbeat,
    MariaGtid,
    Rotate,
    decode_event,
    encode_event,
    event_checksum_ok,
    event_type,
    gtid_as_begin,
    gtid_flags2,
    query_text,
    rewrite_format_description,
    route_fields,
    same_size_no_op,
    strip_checksum,
)
from protocol.gtid import BinlogState, StartFilter
from protocol.messages import BINLOG_DUMP_NON_BLOCK, ERR, ComBinlogDump
from protocol.position import BinlogPosition
from protocol.statements import query_kind
from semisync.interface import BinlogTransmitDelegate, SendBatch, SendParam, TransmitParam

log = logging.getLogger("semisync.master.dump")

STATE_WAITING = "Master has sent all binlog to slave; waiting for more updates"
STATE_SENDING = "Sending binlog event to slave"

ERR_NO_FIRST_LOG = "Could not find first log file name in binary log index file"
ERR_NEXT_LOG = "could not find next log; the first event '%s' at %d, the last event read from '%s' at %d"
# mysqld's reasons for a binlog it cannot read (Binlog_sender::log_read_error_msg), and the
# coordinates it appends to them
LOG_READ_BOGUS = "bogus data in log event"
LOG_READ_CHECKSUM_FAILURE = "event read from binlog did not pass crc check"
LOG_READ_IO = "I/O error reading log event"
LOG_READ_TRUNC = "binlog truncated in the middle of event; consider out of disk space on master"
ERR_READING = ("%s; the first event '%s' at %d, the last event read from '%s' at %d, "
               "the last byte read from '%s' at %d.")

_BATCH_BYTES = 256 << 10  # read (and drain the socket) in batches of about this much
_INLINE_READ = 64 << 10  # reads up to this size run on the loop (page cache, microseconds)


class DumpError(Exception):
    """The dump cannot go on; `message` goes to the slave in an ERR packet (1236 unless `error`
    says otherwise)."""

    def __init__(self, message: str, error: MySQLError = ER_MASTER_FATAL_ERROR_READING_BINLOG) -> None:
        super().__init__(message)
        self.message = message
        self.error = error


# The events that belong to the event group of the GTID before them (MariaDB's
# Log_event::is_part_of_group): a standalone group ends with the first other event.
_PART_OF_GROUP = frozenset({
    EventType.GTID_EVENT, EventType.INTVAR_EVENT, EventType.RAND_EVENT, EventType.USER_VAR_EVENT,
    EventType.TABLE_MAP_EVENT, EventType.ANNOTATE_ROWS_EVENT,
})


class GtidSkipper:
    """A dump by GTID's first steps (send_event_to_slave): the event groups up to each requested
    GTID (`StartFilter`) are skipped; after the group in which a requested GTID was reached, a
    fake GTID_LIST (LOG_EVENT_ARTIFICIAL_F, timestamp 0, log_pos = the group's end) lists the
    GTIDs the dump went by, so the slave's position moves on although it received nothing. A
    start the binlog cannot serve (a hole under the slave's strict mode, a domain that turned
    up without the requested GTID) ends the dump with MariaDB's error."""

    def __init__(self, start: StartFilter, server_id: int) -> None:
        self._start = start
        self._server_id = server_id
        self._seen = BinlogState()  # the GTIDs the dump went by
        self._skip = 0  # 0: sending; _SKIP_STANDALONE / _SKIP_TRANSACTION: inside a skipped group
        self._fake_due = False

    @property
    def done(self) -> bool:
        """Every requested GTID went by: nothing more to skip or announce."""
        return not self._start.waiting and not self._skip and not self._fake_due

    def filter(self, batch: Sequence[tuple[int, bytes]], crc: bool) -> list[tuple[int, bytes]]:
        """The events of `batch` (of a file whose events end in a CRC32 when `crc`) to send, with
        the fake GTID_LISTs among them, each at the offset its end position implies."""
        out: list[tuple[int, bytes]] = []
        for offset, event in batch:
            kind = event_type(event)
            if kind == EventType.GTID_EVENT and self._start.waiting:
                decoded = decode_event(event, checksum=crc)
                body = decoded.body
                assert isinstance(body, MariaGtid)
                gtid = Gtid(body.domain_id, decoded.header.server_id, body.seq_no)
                self._seen.update(gtid)
                reached_before = len(self._start.waiting)
                try:
                    skip = self._start.skip(gtid)
                except RemoteProtocolError as e:
                    raise DumpError(e.message, e.error) from None
                if len(self._start.waiting) < reached_before:
                    self._fake_due = True
                if skip:
                    self._skip = _SKIP_STANDALONE if body.flags2 & FL_STANDALONE else _SKIP_TRANSACTION
            if self._skip:
                if self._skip == _SKIP_STANDALONE and kind not in _PART_OF_GROUP:
                    self._skip = 0
                elif self._skip == _SKIP_TRANSACTION and _ends_transaction(event, kind, crc):
                    self._skip = 0
            else:
                out.append((offset, event))
            if self._fake_due and not self._skip:
                end = offset + len(event)
                fake = encode_event(
                    EventType.GTID_LIST_EVENT, GtidList(self._seen.gtid_list()).encode(), timestamp=0,
                    server_id=self._server_id, log_pos=end, flags=LOG_EVENT_ARTIFICIAL_F, checksum=crc,
                )
                out.append((end - len(fake), fake))
                self._fake_due = False
        return out


_SKIP_STANDALONE = 1
_SKIP_TRANSACTION = 2

# @mariadb_slave_capability (MariaDB's MARIA_SLAVE_CAPABILITY_*): what the slave understands
CAPABILITY_TOLERATE_HOLES = 2  # events may be left out of the stream
CAPABILITY_BINLOG_CHECKPOINT = 3
CAPABILITY_GTID = 4


def slave_capability(user_vars: dict[str, Any]) -> int:
    """`@mariadb_slave_capability` (0, unknown, when unset: MySQL's and old MariaDB slaves)."""
    value = user_vars.get("mariadb_slave_capability")
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("ascii", "replace")
    try:
        return int(value) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def compatible_event(event: bytes, capability: int, crc: bool) -> bytes | None:
    """The event as a slave of `capability` can take it (send_event_to_slave's rules): a GTID
    becomes a BEGIN of the same size (a standalone one, a GTID_LIST and, below
    BINLOG_CHECKPOINT, a BINLOG_CHECKPOINT are left out for a slave that tolerates holes, else
    replaced by a same-size no-op, so the slave's positions stay right); every other event is
    sent as it is. None: leave it out."""
    kind = event_type(event)
    if kind == EventType.GTID_EVENT and capability < CAPABILITY_GTID:
        if not gtid_flags2(event) & FL_STANDALONE:
            begin = gtid_as_begin(event, crc)
            if begin is not None:
                return begin
    elif not ((kind == EventType.GTID_LIST_EVENT and capability < CAPABILITY_GTID)
              or (kind == EventType.BINLOG_CHECKPOINT_EVENT and capability < CAPABILITY_BINLOG_CHECKPOINT)):
        return event
    if capability >= CAPABILITY_TOLERATE_HOLES:
        return None
    return same_size_no_op(event, crc)


def _ends_transaction(event: bytes, kind: int, crc: bool) -> bool:
    if kind == EventType.XID_EVENT:
        return True
    return kind == EventType.QUERY_EVENT and query_kind(query_text(event, crc)) in ("COMMIT", "ROLLBACK")


@dataclass(frozen=True, slots=True)
class BinlogSource:
    """Where a dump session reads: the binlog directory, its basename, the published end."""

    directory: Path
    basename: str
    server_id: int
    end: BinlogEnd


def heartbeat_period(user_vars: dict[str, Any]) -> float:
    """`@master_heartbeat_period` (nanoseconds, as the slave sets it) in seconds; 0 = none."""
    value = user_vars.get("master_heartbeat_period")
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    try:
        nanos = float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0
    return max(0.0, nanos / 1e9)


def checksum_aware(user_vars: dict[str, Any]) -> bool:
    """Did the slave say which checksum it expects (`SET @master_binlog_checksum= ...`)?"""
    return user_vars.get("master_binlog_checksum") is not None


def connect_checksum(user_vars: dict[str, Any]) -> bool:
    """Does `@master_binlog_checksum` ask for CRC32 on the events sent before the first
    FORMAT_DESCRIPTION (MariaDB's get_binlog_checksum_value_at_connect)? Anything but NONE
    (or unset) does."""
    value = user_vars.get("master_binlog_checksum")
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("latin-1")
    return value is not None and str(value).strip().upper() != "NONE"


class DamagedBinlog(Exception):
    """The binlog file cannot be read at `offset`; `reason` is mysqld's wording for it."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(f"{reason} at offset {offset}")
        self.offset = offset
        self.reason = reason


def read_events(path: Path, start: int, end: int, at_least: int = 0, crc: bool = False) -> list[tuple[int, bytes]]:
    """The complete events in [start, end) of a file (at least `at_least` of them if present),
    each CRC32-checked when `crc`. The events before a damaged one come back first; reading at
    the damage raises DamagedBinlog (an impossible event: a bad size, zero bytes; a CRC32
    mismatch; a read error). A small range past the file's first event (a streaming dump a few
    groups behind) is read with one pread (`iter_range`): the file's start was read before."""
    events: list[tuple[int, bytes]] = []
    small = not at_least and start > len(BINLOG_MAGIC) and 0 < end - start <= _INLINE_READ
    try:
        for offset, event in (iter_range if small else iter_events)(path, start, end):
            if crc and not event_checksum_ok(event):
                raise DamagedBinlog(offset, LOG_READ_CHECKSUM_FAILURE)
            events.append((offset, event))
            if at_least and len(events) >= at_least:
                break
    except BinlogFileError as e:
        damage = DamagedBinlog(e.offset, LOG_READ_BOGUS)
    except OSError as e:
        damage = DamagedBinlog(events[-1][0] + len(events[-1][1]) if events else start, f"{LOG_READ_IO} ({e})")
    except DamagedBinlog as e:
        damage = e
    else:
        return events
    if events:
        return events  # the damage is met by the next read, after these are sent
    raise damage


def check_start(directory: Path, basename: str, position: BinlogPosition) -> bool:
    """Raise DumpError unless `position` is an event boundary of a file in the index; whether
    the event that ends there is a ROTATE (the file is finished, and the slave knows its next)."""
    names = read_index(directory, basename)
    path = directory / position.file
    if position.file not in names or not path.exists():
        raise DumpError(ERR_NO_FIRST_LOG)
    pos = position.pos
    if pos < len(BINLOG_MAGIC):
        raise DumpError("Client requested master to start replication from position < 4")
    size = path.stat().st_size
    if pos > size:
        raise DumpError("Client requested master to start replication from position > file size")
    if pos == len(BINLOG_MAGIC):
        return False
    try:
        for offset, event in iter_events(path, len(BINLOG_MAGIC), pos):
            if offset + len(event) == pos:
                return event_type(event) == EventType.ROTATE_EVENT
    except BinlogFileError as e:
        raise DumpError(f"bogus data in log event: {e.message}") from None
    raise DumpError(
        f"Client requested master to start replication from an impossible position; "
        f"the first event '{position.file}' at {pos} is not an event boundary"
    )


class DumpClient(Protocol):
    """The slave's client session (`server.session.ClientSession`) as a dump uses it: the dump
    writes; the ack receiver takes the read side (`set_raw_reader`); the role may kill it."""

    @property
    def connection_id(self) -> int: ...
    @property
    def user_vars(self) -> dict[str, Any]: ...  # `SET @master_heartbeat_period` ... lives here
    @property
    def conn(self) -> ServerConnection: ...  # logged in: the sans-IO connection, DUMPING once started
    @property
    def is_closed(self) -> bool: ...
    @property
    def writing_paused(self) -> bool: ...  # the transport is above its high-water mark
    def write(self, data: bytes) -> None: ...
    async def drain(self) -> None: ...
    async def closed(self) -> None: ...
    def set_raw_reader(self, callback: Callable[[bytes], None] | None) -> None: ...
    def set_state(self, state: str | None) -> None: ...
    def set_command(self, command: str) -> None: ...
    def close(self) -> None: ...
    def kill(self) -> None: ...


class DumpSession:
    """Streams one binlog to one slave (see the module docstring)."""

    def __init__(
        self,
        source: BinlogSource,
        session: DumpClient,
        request: ComBinlogDump,
        transmit: BinlogTransmitDelegate,
        *,
        on_start: Callable[[DumpSession], None] | None = None,
        gtid_start: StartFilter | None = None,
    ) -> None:
        self.source = source
        # a dump by GTID: the request's file at 4, skipping the groups the slave has
        self.skipper = None if gtid_start is None else GtidSkipper(gtid_start, source.server_id)
        self.session = session
        self.request = request
        self.transmit = transmit
        self.slave_server_id = request.server_id
        self.non_block = bool(request.flags & BINLOG_DUMP_NON_BLOCK)
        user_vars = session.user_vars
        self.period = heartbeat_period(user_vars)
        self.aware = checksum_aware(user_vars)
        self.capability = slave_capability(user_vars)
        self.connect_crc = connect_checksum(user_vars)
        self.param: TransmitParam | None = None
        self._event_hooks = False  # an observer wants before/after_send_event (fixed at start)
        self.header = b""
        self.start = BinlogPosition("", 0)  # where the slave asked to start
        self.file = ""  # the file being read (PURGE refuses it)
        self.pos = 0
        self.crc = False  # send CRC32 footers (the file has them and the slave knows)
        self.strip = False  # the file has CRC32 footers the slave does not expect
        self.events_sent = 0
        self.heartbeats_sent = 0
        self._on_start = on_start
        self._stopped = False
        self._wake: asyncio.Future[None] | None = None  # the wait in progress (`_wait`)
        # a dump that sends every group as it comes is sent to from the publish (`_pushed`)
        self._pushes = self.capability >= CAPABILITY_GTID and self.skipper is None
        self._push = self._pushed  # (one bound method: follow and unfollow the same)
        self._push_error: Exception | None = None
        self._seen = 0  # the generation the dump has sent up to, while it waits
        self._idle_since = 0.0  # the loop time the heartbeat period runs from, while it waits
        self._timer: asyncio.TimerHandle | None = None
        self._closed_waiter: asyncio.Future[None] | None = None  # the session's closing, while streaming

    @property
    def semisync(self) -> bool:
        return bool(self.header)

    @property
    def position(self) -> BinlogPosition:
        return BinlogPosition(self.file, self.pos)

    def stop(self) -> None:
        """End the dump at the next event boundary (KILL, replacement, shutdown)."""
        self._stopped = True
        self._wake_up()

    # -- the whole dump ---------------------------------------------------------------------

    async def run(self) -> None:
        source, session = self.source, self.session
        filename = self.request.filename
        if not filename:  # an empty name means the first file of the index, as in mysqld
            names = read_index(source.directory, source.basename)
            filename = names[0] if names else ""
        start = BinlogPosition(filename, self.request.position)
        try:
            await asyncio.to_thread(check_start, source.directory, source.basename, start)
        except DumpError as e:
            session.write(session.conn.send(ERR.from_error(ER_MASTER_FATAL_ERROR_READING_BINLOG, message=e.message)))
            return
        self.file, self.pos = start.file, start.pos
        self.start = start
        transmit = self.transmit
        param = self.param = TransmitParam(
            connection_id=session.connection_id,
            slave_server_id=self.slave_server_id,
            flags=self.request.flags,
            user_vars=dict(session.user_vars),
            start=start,
        )
        if transmit:
            transmit.transmit_start(param)
        try:
            if transmit:
                self.header = transmit.reserve_header(param)
                self._event_hooks = param.event_hooks
            session.conn.start_dump(self.semisync)
            session.set_command("Binlog Dump")
            if self._on_start is not None:
                self._on_start(self)
            await self._stream(start)
        except DumpError as e:
            log.info("dump to slave %d: %s", self.slave_server_id, e.message)
            self._send_error(e.message, e.error)
        except ProtocolError as e:  # the connection's state machine ended (peer quit, dropped)
            log.info("dump to slave %d ended: %s", self.slave_server_id, e.message)
        except ConnectionError as e:
            log.info("dump to slave %d: connection lost: %s", self.slave_server_id, e)
        finally:
            if self._closed_waiter is not None:
                self._closed_waiter.cancel()
            if transmit:
                transmit.transmit_stop(param)

    def _send_error(self, message: str, error: MySQLError = ER_MASTER_FATAL_ERROR_READING_BINLOG) -> None:
        session = self.session
        if session.is_closed:
            return
        try:
            session.write(session.conn.send(ERR.from_error(error, message=message)))
        except ProtocolError:
            pass

    def _ended(self) -> bool:
        return self._stopped or self.session.is_closed

    async def _stream(self, start: BinlogPosition) -> None:
        source = self.source
        first = True
        while not self._ended():
            path = source.directory / self.file
            try:
                file_crc = file_checksum(path)
            except (OSError, BinlogFileError) as e:
                raise DumpError(f"could not open log file '{self.file}': {e}") from None
            # the artificial ROTATE goes before this file's FORMAT_DESCRIPTION: the algorithm
            # the slave knows is the previous file's (the connect value for the first)
            rotate_crc = (self.connect_crc and self.aware) if first else self.crc
            self.strip = file_crc and not self.aware
            self.crc = file_crc and self.aware
            if first and self.strip:
                log.warning(
                    "Master is configured to log replication events with checksum, but will not send "
                    "such events to slaves that cannot process them (slave %d)", self.slave_server_id,
                )
            at = start if first else BinlogPosition(self.file, self.pos)
            self._send(self._artificial_rotate(at, rotate_crc), None, artificial=True)
            await self._send_file_start(path, past_start=first and self.pos > len(BINLOG_MAGIC))
            first = False
            if not await self._send_file(path):
                return
            if not self._next_file():
                return

    async def _send_file_start(self, path: Path, *, past_start: bool) -> None:
        try:
            first = read_events(path, len(BINLOG_MAGIC), path.stat().st_size, 1)
        except DamagedBinlog as e:
            raise self._damaged(e) from None
        for _offset, event in first:
            if event_type(event) != EventType.FORMAT_DESCRIPTION_EVENT:
                raise DumpError(f"the first event of '{self.file}' is not a FORMAT_DESCRIPTION_EVENT")
            fd = rewrite_format_description(event, in_use=False, past_start=past_start)
            if self.strip:
                fd = strip_checksum(fd)
            if self.pos == len(BINLOG_MAGIC):
                self.pos += len(event)
            self._send(fd, None, artificial=True)
            return
        raise DumpError(f"'{self.file}' has no FORMAT_DESCRIPTION_EVENT")

    async def _send_file(self, path: Path) -> bool:
        """Send the events of the current file, waiting at its end while it is the active file.
        True when the file is finished (go to the next), False when the dump ends."""
        end = self.source.end
        session = self.session
        while not self._ended():
            generation = end.generation
            published = end.position
            active = published.file == self.file
            if active:
                limit = published.pos
            else:
                try:
                    limit = path.stat().st_size
                except FileNotFoundError:
                    raise DumpError(f"log file '{self.file}' was removed while it was being read") from None
            if self.pos < limit:
                session.set_state(STATE_SENDING)
                stop = min(limit, self.pos + _BATCH_BYTES)
                crc = self.crc or self.strip
                tail = end.tail  # the group the last publish made visible (it ends at `published`)
                batch: Sequence[tuple[int, bytes]]
                if tail is not None and tail.start == self.pos and tail.end == stop and tail.file == self.file:
                    # as the writer encoded it: no read, and no CRC32 check (that guards against
                    # a file damaged on disk; these bytes never came from it)
                    batch = tail.events
                else:
                    batch = await self._read(path, stop, limit, crc)
                batch_end = batch[-1][0] + len(batch[-1][1])
                skipper = self.skipper
                if skipper is not None:
                    batch = skipper.filter(batch, crc)
                    if skipper.done:
                        self.skipper = None
                        self._pushes = self.capability >= CAPABILITY_GTID
                if self.capability < CAPABILITY_GTID:
                    batch = [(o, sent) for o, event in batch if (sent := compatible_event(event, self.capability, crc))]
                if batch:
                    self._send_batch(batch)
                self.pos = batch_end
                await session.drain()
                continue
            if not active:
                return True
            if self.non_block:
                session.write(session.conn.send_eof())
                session.set_raw_reader(None)
                return False
            session.set_state(STATE_WAITING)
            if not await self._wait(end, generation):
                self._send(self._heartbeat(), None, heartbeat=True)
                self.heartbeats_sent += 1
        return False

    async def _read(self, path: Path, stop: int, limit: int, crc: bool) -> list[tuple[int, bytes]]:
        """The events of the file from the position up to `stop` (at least one, up to `limit`:
        an event larger than a batch is read whole); ERR 1236 for a damaged file. A small read
        (one commit group) costs less than a thread hop; a catch-up reads its batches in a
        worker thread, off the event loop."""
        try:
            if stop - self.pos <= _INLINE_READ:
                batch = read_events(path, self.pos, stop, 0, crc)
            else:
                batch = await asyncio.to_thread(read_events, path, self.pos, stop, 0, crc)
            if not batch:  # an event larger than a batch: read it whole
                batch = await asyncio.to_thread(read_events, path, self.pos, limit, 1, crc)
            if not batch:  # an event's size goes past the end of what may be read
                raise DamagedBinlog(self.pos, LOG_READ_TRUNC)
        except DamagedBinlog as e:
            raise self._damaged(e) from None
        return batch

    async def _wait(self, end: BinlogEnd, generation: int) -> bool:
        """Wait for a publish, the end of the dump or the heartbeat period; False on a timeout.

        At most one future and one heartbeat timer per wait, and no task. A dump that takes every
        group as it comes (no GTID skipping, no capability rewriting: `_pushes`) follows the
        binlog end (`BinlogEnd.follow`): each publish runs `_pushed`, which sends the group it
        made visible from the publishing call when the dump stands at its start, and otherwise
        settles this wait; such a dump stays parked across any number of groups, and its timer
        measures the idleness since the last group it sent (`_beat`). Any other dump waits on
        the publish's shared future. The session's closing and `stop()` settle the wait too."""
        if end.generation != generation:
            return True
        loop = asyncio.get_running_loop()
        if self._closed_waiter is None:
            self._closed_waiter = asyncio.ensure_future(self.session.closed())
            self._closed_waiter.add_done_callback(self._wake_up)
        if self._ended() or self._closed_waiter.done():
            return True
        wake = self._wake = loop.create_future()
        self._seen = generation
        pushes = self._pushes
        changed = None
        if pushes:
            end.follow(self._push)
        else:
            changed = end.changed(generation)
            assert changed is not None
            changed.add_done_callback(self._wake_up)
        period = self.period
        if period:
            self._idle_since = loop.time()
            self._timer = loop.call_later(period, self._beat)
        try:
            await wake
        finally:
            self._wake = None
            if changed is None:
                end.unfollow(self._push)
            else:
                changed.remove_done_callback(self._wake_up)  # the shared future outlives this wait
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        error, self._push_error = self._push_error, None
        if error is not None:
            raise error
        if self._seen != generation:  # groups were sent from the publish: drain before the next
            await self.session.drain()
        # a publish not sent from it; or stopped or closed (the caller's loop sees it); else the
        # heartbeat is due
        return end.generation != self._seen or self._ended() or self._closed_waiter.done()

    def _wake_up(self, _: object = None) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def _pushed(self) -> None:
        """At a publish, while the dump is parked in `_wait` (its task suspended, so this is the
        dump's one writer): the group the publish made visible (`BinlogEnd.tail`), sent as
        `_send_file` sends it when it stands at the group's start; in any other case (another
        file or offset, a group larger than a batch, the transport above its high-water mark,
        the dump ending) the wait is settled and `_send_file` decides. After a write that took
        the transport above its high-water mark the wait is settled too, so the dump drains
        before anything more is sent. An error of the write goes to the dump's task."""
        wake = self._wake
        if wake is None or wake.done():
            return
        end = self.source.end
        tail = end.tail
        session = self.session
        if (tail is None or tail.start != self.pos or tail.file != self.file
                or tail.end - tail.start > _BATCH_BYTES or session.writing_paused
                or self._stopped or session.is_closed):
            wake.set_result(None)
            return
        try:
            self._send_batch(tail.events)
        except Exception as e:  # (the dump's task raises it, as if it had written; never the publish)
            self._push_error = e
            wake.set_result(None)
            return
        self._seen = end.generation
        if self.period:
            self._idle_since = wake.get_loop().time()  # (the wait's loop: no getpid(2) per group)
        if session.writing_paused:
            wake.set_result(None)

    def _beat(self) -> None:
        """The heartbeat timer of a wait: due `period` after the wait began or after the last
        group `_pushed` sent, whichever is later; armed again for the rest when a push came
        in between (uvloop's timers are of millisecond resolution: within 1 ms is due)."""
        self._timer = None
        wake = self._wake
        if wake is None or wake.done():
            return
        loop = wake.get_loop()
        left = self._idle_since + self.period - loop.time()
        if left > 0.001:
            self._timer = loop.call_later(left, self._beat)
            return
        wake.set_result(None)

    def _damaged(self, e: DamagedBinlog) -> DumpError:
        """ERR 1236 for a binlog this dump cannot read, worded as mysqld's (with where the dump
        started, the end of the last event it read, and where the damage is)."""
        log.error("dump to slave %d: binlog %s is damaged at offset %d: %s",
                  self.slave_server_id, self.file, e.offset, e.reason)
        start = self.start
        return DumpError(ERR_READING % (e.reason, start.file, start.pos, self.file, self.pos, self.file, e.offset))

    def _next_file(self) -> bool:
        names = read_index(self.source.directory, self.source.basename)
        if self.file not in names or names.index(self.file) + 1 >= len(names):
            raise DumpError(ERR_NEXT_LOG % (self.request.filename, self.request.position, self.file, self.pos))
        self.file = names[names.index(self.file) + 1]
        self.pos = len(BINLOG_MAGIC)
        return True

    # -- packets ----------------------------------------------------------------------------

    def _artificial_rotate(self, start: BinlogPosition, crc: bool) -> bytes:
        return encode_event(
            EventType.ROTATE_EVENT, Rotate(start.pos, start.file).encode(), timestamp=0,
            server_id=self.source.server_id, log_pos=0, flags=LOG_EVENT_ARTIFICIAL_F,
            checksum=crc,
        )

    def _heartbeat(self) -> bytes:
        return encode_event(
            EventType.HEARTBEAT_LOG_EVENT, Heartbeat(self.file).encode(), timestamp=0,
            server_id=self.source.server_id, log_pos=self.pos, flags=0, checksum=self.crc,
        )

    def _send(
        self,
        event: bytes,
        end: BinlogPosition | None,
        *,
        artificial: bool = False,
        heartbeat: bool = False,
    ) -> None:
        """One packet on its own (artificial events, heartbeats): hooks around one write."""
        wire, info = self._packet(event, end, artificial, heartbeat, event_type(event))
        self.session.write(wire)
        self.events_sent += 1
        if info is not None:
            self.transmit.after_send_event(self.param, info)  # type: ignore[arg-type]

    def _send_batch(self, batch: Sequence[tuple[int, bytes]]) -> None:
        """The events of one read batch (the usual: one commit group) in ONE transport write.

        `before_send_events` runs for the batch before the write (it decides each event's flag
        and records what is in flight, so an ack racing the write is never "beyond" what was
        sent) and `after_send_events` after it, each the per-event hook for every event in order
        by default (only on a session an observer follows: `TransmitParam.event_hooks`). Each event
        whose flag asks for an ack still restarts the sequence ids after it: the packets are
        framed in one pass (`ServerConnection.send_events`) and written at once."""
        last = batch[-1]
        self.pos = last[0] + len(last[1])
        published = self.source.end
        tail = published.tail
        # the group the last publish made visible, as the writer encoded it: what every dump
        # that sends it derives from it is made once (`BinlogEnd.tail_events`, `tail_sends`)
        shared = tail is not None and batch is tail.events
        if self.strip:
            events = [strip_checksum(event) for _, event in batch]
        elif not shared:
            events = [event for _, event in batch]
        elif (events := published.tail_events) is None:  # type: ignore[assignment]
            events = published.tail_events = [event for _, event in batch]
        conn = self.session.conn
        if not self._event_hooks:
            self.session.write(conn.send_events(events, self.header))
            self.events_sent += len(events)
            return
        transmit, param = self.transmit, self.param
        if not shared:
            infos = SendBatch(self.file, [route_fields(event) for _, event in batch])
        elif (infos := published.tail_sends) is None:  # type: ignore[assignment]
            infos = published.tail_sends = SendBatch(self.file, [route_fields(event) for _, event in batch])
        headers = [self.header] * len(events)  # each the reserved header until an observer sets it
        transmit.before_send_events(param, headers, infos)  # type: ignore[arg-type]
        self.session.write(conn.send_events(events, headers))
        self.events_sent += len(events)
        transmit.after_send_events(param, infos)  # type: ignore[arg-type]

    def _packet(
        self, event: bytes, end: BinlogPosition | None, artificial: bool, heartbeat: bool, type_code: int
    ) -> tuple[bytes, SendParam | None]:
        """The packet for one event, after `before_send_event` set its header; with it the
        SendParam for `after_send_event` (None: no observer to tell)."""
        transmit, header = self.transmit, self.header
        if not self._event_hooks:
            return self.session.conn.send_event(event, header), None
        info = SendParam(type_code, end, artificial, heartbeat)
        buf = bytearray(header)  # a fresh copy: an observer that went away leaves flag 0
        transmit.before_send_event(self.param, buf, info)  # type: ignore[arg-type]
        return self.session.conn.send_event(event, bytes(buf) if header else header), info
