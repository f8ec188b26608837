"""`IoTask`: the slave IO thread. Connects to the master, asks for its binlog from the saved
position, writes the events to the relay log and acknowledges them when semi-sync asks.

Contract
- One IoTask per START SLAVE [IO_THREAD]; `run()` loops connect -> dump -> (error) ->
  reconnect, until `stop()` or a fatal error (then `last_error` tells why and `run()` returns).
  Connection errors and lost connections are not fatal: as mysqld, a lost dump is reconnected
  at once and a failed connection attempt is retried every `connect_retry` seconds.
  Fatal (the IO thread stops, as in mysqld): the master has our server_id, an ERR during the
  dump (e.g. 1236), a bad event checksum (1743), a heartbeat that disagrees with what we
  received (1623), a relay log write or fsync failure other than a full disk (1595).
- A full disk (ENOSPC, EDQUOT) does not stop the task: as mysqld writes its binary and relay
  logs (MY_WAIT_IF_FULL: "Disk is full writing ... Waiting for someone to free space..."), it
  waits for free space and goes on by itself. The failed batch is dropped (the relay log is cut
  back to its last complete, durable transaction, see slave/relay_log.py), the connection is
  closed, Last_IO_Errno is 1595 with the reason and Slave_IO_State "Waiting for disk space"; once
  the file system has room for the failed write (checked every second, and retried at least
  every minute, as mysqld), the task reconnects and the master sends the dropped events again.
- One owner per socket direction: this task is the only reader of the master connection and,
  after COM_BINLOG_DUMP, the only writer (acks), or hands the ack writing to its relay syncer's
  thread for the rest of the connection; or, with the receiver thread, that thread reads the
  socket from COM_BINLOG_DUMP on and writes acks while it runs, the task only while it is
  paused (below).
- MASTER_SSL=1: the greeting is answered with an SSLRequest and the same stream is upgraded to
  TLS (StreamWriter.start_tls; the master's certificate checked against MASTER_SSL_CA when set,
  its name when MASTER_SSL_VERIFY_SERVER_CERT=1) before the login; a TLS failure, or a master
  that does not offer TLS, is a failed connection attempt (2026), retried as any other.
- Hooks of WL#4398's binlog relay IO interface, in this order: `thread_start`; per connection
  `before_request_transmit` (after COM_REGISTER_SLAVE, before COM_BINLOG_DUMP; observers return
  the statements they need answered, this task runs them); `after_request_transmit` with each
  request's outcome once COM_BINLOG_DUMP is sent; `after_read_events` with the event packets
  of each read (`after_read_event` per packet, unless an observer decides them at once);
  `after_queue_events` with them once they are in the relay log and durable per
  sync_relay_log (`after_queue_event` per event by default); `thread_stop` when the task ends.
- Batching and durable acks: every read drains *all* complete packets already received, then
  the batch is written with one write(2) and, when sync_relay_log says so, one fsync (on the
  task's own relay I/O thread: binlog.syncer's compiled one, which never takes the GIL, where
  it was built, else a one-thread `ThreadLane`; no executor hop per batch). Only then
  is `after_queue_events(synced=True)` called for the batch's events, and at most ONE ack is
  sent: the last position the observers returned (acks are cumulative). No ack ever
  leaves before the fsync that covers the acked event. With sync_relay_log = N > 1 the fsync
  happens once N events have been written since the last one, and a flagged event waits for it;
  with 0 the OS decides and an event counts as durable once written.
- The receiver thread (slave/receiver.py, slave/_receiver.c; where it was built, on a plain-TCP
  connection with sync_relay_log=1 and the real fsync): while the tracker knows the master's
  position and the connection holds no part of a packet, the thread frames each read, takes
  the packets protocol/_dumpscan.h decides (the same checks as below, and the semi-sync
  header split as the slave plugin's `after_read_events` splits it), appends their events to
  the relay file with one write(2), fsyncs, and only then writes the ack of the last flagged
  event; the task counts each batch after the fact (`_received`: the tracker, the relay log's
  offsets and tail, `after_queue_events(synced=True)`, whose ack is the one the thread sent;
  `after_read_events` is not called for the events the thread took). The first packet it
  leaves (the dump's first events, a ROTATE or FORMAT_DESCRIPTION, a heartbeat, anything
  malformed, an ERR) pauses it and takes the path below; so does a batch that fills the relay
  file (the task rotates). The task writes to the relay log and the socket only while the thread
  is paused, and counts a stopped thread's last batches before any cut-back.
- Heartbeats (WL#342) are counted and checked against the coordinates received so far (file
  must match, position must not be beyond ours; by GTID it may be: the master skips what the slave
  has); they never reach the relay log. Anything read
  (event or heartbeat) resets the `slave_net_timeout` clock; nothing for that long reconnects
  (a read waiting that long aborts the connection: one timer per connection, no task per read).
- The resume rule is the relay log's (slave/relay_log.py): each connection starts a new relay
  file and asks for the position after the last complete transaction; on a disconnect the
  partial transaction at the tail is cut off first. A ROTATE that takes the master to another
  binlog file starts a new relay file too (the old one fsynced first), with that ROTATE first.
- By GTID (MASTER_USE_GTID = slave_pos | current_pos, `IoSettings.use_gtid`): the same, but the
  place is `io_pos` (Gtid_IO_Pos), per domain the GTID of the last complete transaction in the
  relay log, or where the SQL thread's position says when the relay log has none of the domain.
  As MariaDB's slave asks (sql/slave.cc), after `@mariadb_slave_capability`:
  `SELECT @@GLOBAL.gtid_domain_id`, `SET @slave_connect_state='<io_pos>'`,
  `SET @slave_gtid_strict_mode=0|1`, `SET @slave_gtid_ignore_duplicates=0`; COM_BINLOG_DUMP
  then carries the last coordinates we had (the master starts where the GTIDs say).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from binlog.syncer import NativeSyncer, NotSent, Syncer
from binlog.syncer import available as syncer_available
from engine.concurrency import ThreadLane
from protocol.connection import (
    NEED_DATA,
    BinlogPacket,
    ClientConnection,
    ConnectionClosed,
    LoginOK,
    TlsUpgrade,
)
from protocol.errors import (
    CR_CONN_HOST_ERROR,
    CR_SERVER_LOST,
    CR_SSL_CONNECTION_ERROR,
    ER_MASTER_FATAL_ERROR_READING_BINLOG,
    ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE,
    ER_SLAVE_FATAL_ERROR,
    ER_SLAVE_HEARTBEAT_FAILURE,
    ER_SLAVE_MASTER_COM_FAILURE,
    ER_SLAVE_RELAY_LOG_WRITE_FAILURE,
    MySQLError,
    ProtocolError,
    RemoteProtocolError,
)
from protocol.events import (
    TYPE_FD,
    TYPE_HEARTBEAT,
    TYPE_HEARTBEAT_V2,
    TYPE_ROTATE,
    FormatDescription,
    Heartbeat,
    Rotate,
    decode_event,
    decode_header,
    event_checksum_ok,
)
from protocol.gtid import GtidPosition
from protocol.messages import EOF, ERR, OK, ResultSet
from protocol.position import BinlogPosition
from semisync.interface import (
    BinlogRelayIODelegate,
    DumpRequest,
    QueuedEvents,
    ReadBatch,
    RelayIOParam,
)
from server.tls import client_context
from slave import receiver as native
from slave.receiver import NativeReceiver, Record
from slave.relay_log import GroupTracker, RelayLog, TakenRun

log = logging.getLogger("semisync.slave.io")

READ_CHUNK = 1 << 20
MARIADB_SLAVE_CAPABILITY = 4  # MARIA_SLAVE_CAPABILITY_GTID: we understand every MariaDB event


class FatalIoError(Exception):
    """The IO task must stop (MySQL stops the slave IO thread)."""

    def __init__(self, error: MySQLError, *args: object, message: str | None = None) -> None:
        self.error = error
        self.message = message if message is not None else error.format(*args)
        super().__init__(self.message)


class RelayWriteError(Exception):
    """A relay log write or fsync failed (the relay log is cut back, or still `damaged`)."""

    def __init__(self, error: OSError) -> None:
        self.error = error
        super().__init__(str(error))


class RetryableIoError(Exception):
    """The connection failed or was lost: reconnect after connect_retry."""

    def __init__(self, error: MySQLError, *args: object, message: str | None = None) -> None:
        self.error = error
        self.message = message if message is not None else error.format(*args)
        super().__init__(self.message)


@dataclass(frozen=True, slots=True)
class IoSettings:
    host: str
    port: int
    user: str
    password: str
    server_id: int
    heartbeat_period: float
    connect_retry: float
    net_timeout: float
    sync_relay_log: int
    report_port: int = 0
    max_relay_log_size: int = 1 << 30  # a new relay file at the next transaction boundary
    ssl: bool = False  # MASTER_SSL: upgrade the connection to TLS before logging in
    ssl_ca: str = ""  # MASTER_SSL_CA
    ssl_verify_server_cert: bool = False  # MASTER_SSL_VERIFY_SERVER_CERT
    use_gtid: bool = False  # ask by GTID (@slave_connect_state = io_pos)
    gtid_strict_mode: bool = False  # @slave_gtid_strict_mode


# Slave_IO_State texts (MySQL 5.7's wording).
STATE_CONNECTING = "Connecting to master"
STATE_REGISTERING = "Registering slave on master"
STATE_REQUESTING = "Requesting binlog dump"
STATE_WAITING = "Waiting for master to send event"
STATE_QUEUEING = "Queueing master event to the relay log"
STATE_RECONNECTING = "Waiting to reconnect after a failed master event read"
STATE_DISK_FULL = "Waiting for disk space"  # MySQL 8's stage name

DISK_FULL_CHECK = 1.0  # seconds between looks at the free space while the disk is full
DISK_FULL_RETRY = 60.0  # retry at least this often anyway (mysqld's MY_WAIT_FOR_USER_TO_FIX_PANIC)
DISK_FULL_REPEAT = 600.0  # the warning is logged again this often (mysqld's MY_WAIT_GIVE_USER_A_MESSAGE)
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


class IoTask:
    def __init__(
        self,
        settings: IoSettings,
        relay: RelayLog,
        delegate: BinlogRelayIODelegate,
        start: BinlogPosition,
        *,
        on_progress: Callable[[], None] = lambda: None,
        fsync: Callable[[int], None] = os.fsync,
        io_pos: GtidPosition | None = None,
        rescan_io_pos: Callable[[], GtidPosition] | None = None,
    ) -> None:
        self.settings = settings
        self.relay = relay
        self.delegate = delegate
        self.on_progress = on_progress
        self._fsync = fsync
        # Where the next connection resumes: right after the last complete transaction.
        self.resume = start
        # Gtid_IO_Pos: where a connection by GTID resumes (the relay log's last complete GTIDs);
        # after a cut-back found in the file itself, `rescan_io_pos` reads it from the relay log.
        self.io_pos = io_pos if io_pos is not None else GtidPosition()
        self._rescan_io_pos = rescan_io_pos
        self._file_origin = start  # the master's position where the current relay file began
        self.boundary_offset: int | None = None
        self.tracker = GroupTracker(start, True)
        self.state = ""
        self.running = "No"  # Slave_IO_Running: Yes | Connecting | No
        self.last_errno = 0
        self.last_error = ""
        self.master_server_id = 0
        self.master_clock_offset = 0.0
        self.clock_diff_with_master = 0  # MASTER_DELAY's clock correction (slave/applier.py)
        self.received_heartbeats = 0
        self.last_heartbeat = 0.0
        self.semi_sync = False
        self._stopping = False
        self._dumping = False  # the current connection got as far as COM_BINLOG_DUMP
        self._writer: asyncio.StreamWriter | None = None
        self._link: _Link | None = None
        # The relay log's fsyncs, off the loop: one thread while `run()` runs.
        self._relay_io: Syncer | None = None
        self._events_since_sync = 0
        self._master_fd: bytes | None = None  # the master's latest FORMAT_DESCRIPTION event
        self._unsynced = QueuedEvents()  # flagged events written, not yet fsynced
        self.acks_sent = 0
        self.param = RelayIOParam(settings.server_id, settings.host, settings.port, start)

    # -- what SHOW SLAVE STATUS shows -----------------------------------------------------------
    @property
    def read_position(self) -> BinlogPosition:
        """Master_Log_File / Read_Master_Log_Pos: the end of the last event received."""
        return self.tracker.master or self.resume

    # -- lifecycle ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask the task to end: it notices at its next step; a read in progress is cut short by
        closing the connection (nothing half-written: acks are whole packets or nothing)."""
        self._stopping = True
        if self._link is not None and self._link.receiver is not None:
            self._link.receiver.shutdown()  # the thread's own descriptor keeps the socket open
        if self._writer is not None:
            if self._writer.get_extra_info("sslcontext") is not None:
                # a TLS close waits for the master's close_notify while our read stays pending
                self._writer.transport.abort()
            else:
                self._writer.close()

    async def run(self) -> None:
        if self.delegate:
            self.delegate.thread_start(self.param)
        self._relay_io = relay_syncer(self._fsync)
        try:
            while not self._stopping:
                self.running = "Connecting"
                failed: OSError | None = None
                try:
                    await self._session()
                except FatalIoError as e:
                    self._set_error(e.error.code, e.message)
                    log.error("slave IO task stops: %s", e.message)
                    return
                except RelayWriteError as e:
                    failed = e.error
                except (RetryableIoError, OSError, asyncio.IncompleteReadError, ProtocolError, TimeoutError) as e:
                    if not self._stopping:
                        self._note_retry(e)
                finally:
                    replicating = self._dumping
                    failed = await self._close_connection() or failed
                if failed is not None and not self._stopping:
                    if not await self._wait_for_space(failed):
                        return
                    continue
                if self._stopping:
                    break
                self.state = STATE_RECONNECTING
                self.running = "Connecting"
                # As mysqld: a lost dump is retried at once; a failed connect waits connect_retry.
                await self._sleep(0.05 if replicating else self.settings.connect_retry)
        finally:
            self.running = "No"
            self.state = ""
            self.semi_sync = False
            syncer, self._relay_io = self._relay_io, None
            syncer.close()  # a lane waits for an fsync still running (a cancelled task's)
            if self.delegate:
                self.delegate.thread_stop(self.param)

    async def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stopping and time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    def _note_retry(self, e: BaseException) -> None:
        """Last_IO_Errno / Last_IO_Error for an error the task recovers from by reconnecting."""
        if isinstance(e, RetryableIoError):
            code, message = e.error.code, e.message
        else:
            error = CR_CONN_HOST_ERROR if self.state == STATE_CONNECTING else CR_SERVER_LOST
            detail = (e.message if isinstance(e, ProtocolError) else str(e)) or type(e).__name__
            s = self.settings
            code = error.code
            message = (
                f"error reconnecting to master '{s.user}@{s.host}:{s.port}' - retry-time: "
                f"{s.connect_retry:g}  message: {detail}"
            )
        self._set_error(code, message)
        log.warning("slave IO: %s", message)

    def _set_error(self, code: int, message: str) -> None:
        self.last_errno = code
        self.last_error = message

    async def _close_connection(self) -> OSError | None:
        """Drop the socket; cut the relay log back to the last complete transaction. Returns the
        error of a relay log that could not be cut back (it stays `damaged`)."""
        self.semi_sync = False
        self._dumping = False
        writer, self._writer = self._writer, None
        link, self._link = self._link, None
        failed: OSError | None = None
        if link is not None:
            for record in link.close():  # the receiver's batches it wrote: counted before any cut
                try:
                    self._received(record)
                except RelayWriteError as e:
                    failed = e.error
                except RetryableIoError:
                    pass
        if writer is not None:
            writer.close()
            try:
                await asyncio.wait_for(writer.wait_closed(), 1.0)
            except (OSError, TimeoutError, asyncio.CancelledError):
                pass
        failed = self._settle_relay() or failed
        self.tracker = GroupTracker(self.resume, self.tracker.checksum)
        self._unsynced = QueuedEvents()
        self.boundary_offset = None
        return failed

    def _settle_relay(self) -> OSError | None:
        """Leave the relay log at the end of its last complete transaction and `resume` right
        after it. After a failed write or fsync that end is found in the file itself
        (`RelayLog.cut_back`); if even that fails, the relay log stays damaged, `resume` is where
        its current file began, and the next attempt (or the next IO task) settles it first."""
        relay = self.relay
        if relay.damaged is None and relay.current is not None and self.boundary_offset is not None:
            try:
                relay.truncate_tail(self.boundary_offset)
                relay.close()
                return None
            except OSError:
                pass  # the relay log is damaged now: cut it back below
        if relay.damaged is None:
            return None
        try:
            at = relay.cut_back()
        except OSError as e:
            self.resume = self._file_origin
            return e
        self.resume = at if at is not None else self._file_origin
        if self._rescan_io_pos is not None:
            self.io_pos = self._rescan_io_pos()
        return None

    async def _wait_for_space(self, failed: OSError) -> bool:
        """After a relay log write failure: False if the task must stop (an I/O error: Last_IO_Errno
        1595, START SLAVE once it is repaired); on a full disk, wait until the file system has room
        for the failed write and the relay log is settled, then True (reconnect)."""
        relay = self.relay
        where = relay.path(relay.current) if relay.current else relay.datadir
        if failed.errno not in DISK_FULL_ERRNOS:
            self._set_error(ER_SLAVE_RELAY_LOG_WRITE_FAILURE.code, ER_SLAVE_RELAY_LOG_WRITE_FAILURE.format(
                f"could not write '{where}' (Errcode: {failed.errno} \"{failed.strerror}\")"))
            log.error("slave IO task stops: %s", self.last_error)
            return False
        need = max(relay.failed_bytes, 1 << 16)
        message = ER_SLAVE_RELAY_LOG_WRITE_FAILURE.format(
            f"Disk is full writing '{where}' (Errcode: {failed.errno} \"{failed.strerror}\"). "
            "Waiting for someone to free space...")
        self._set_error(ER_SLAVE_RELAY_LOG_WRITE_FAILURE.code, message)
        self.state = STATE_DISK_FULL
        self.running = "Connecting"
        started = warned = time.monotonic()
        log.warning("slave IO: %s (retry when %d bytes are free)", message, need)
        while not self._stopping:
            await self._sleep(DISK_FULL_CHECK)
            now = time.monotonic()
            if now - warned >= DISK_FULL_REPEAT:
                warned = now
                log.warning("slave IO: %s", message)
            if relay.damaged is not None:
                failed_again = self._settle_relay()
                if failed_again is not None:
                    if failed_again.errno not in DISK_FULL_ERRNOS:
                        return await self._wait_for_space(failed_again)
                    continue
            if _free_bytes(relay.datadir) >= need or now - started >= DISK_FULL_RETRY:
                log.info("slave IO: disk space available again, reconnecting at %s", self.resume)
                return True
        return False

    # -- one connection -------------------------------------------------------------------------
    async def _session(self) -> None:
        s = self.settings
        if self.relay.damaged is not None:  # an earlier task left it so: settle it first
            failed = self._settle_relay()
            if failed is not None:
                raise RelayWriteError(failed)
        self.state = STATE_CONNECTING
        try:
            reader, writer = await asyncio.wait_for(
                # limit: the stream stops reading from the master past 2 x READ_CHUNK unconsumed,
                # so a fast master waits in the kernel while we write and fsync a batch.
                asyncio.open_connection(s.host, s.port, limit=READ_CHUNK), timeout=max(s.net_timeout, 1.0)
            )
        except (OSError, TimeoutError) as e:
            raise RetryableIoError(
                CR_CONN_HOST_ERROR,
                message=f"error connecting to master '{s.user}@{s.host}:{s.port}' - retry-time: {s.connect_retry:g}  message: {e}",
            ) from None
        self._writer = writer
        conn = ClientConnection(
            s.user, s.password,
            attributes={"_client_name": "semisync", "program_name": "semisync-slave", "_os": "linux"},
            tls=s.ssl,
        )
        link = self._link = _Link(conn, reader, writer, s.net_timeout)
        try:
            login = await link.response()
            if isinstance(login, TlsUpgrade):
                # MASTER_SSL=1: the SSLRequest went out; TLS on this socket, then the login
                context = client_context(Path(s.ssl_ca) if s.ssl_ca else None, s.ssl_verify_server_cert)
                await asyncio.wait_for(writer.start_tls(context, server_hostname=s.host),
                                       timeout=max(s.net_timeout, 1.0))
                conn.tls_established()
                login = await link.response()
        except (ssl.SSLError, RemoteProtocolError) as e:
            if isinstance(e, RemoteProtocolError) and "SSL" not in e.message:
                raise
            raise RetryableIoError(
                CR_SSL_CONNECTION_ERROR,
                message=f"error connecting to master '{s.user}@{s.host}:{s.port}' - retry-time: {s.connect_retry:g}  message: SSL connection error: {e}",
            ) from None
        if isinstance(login, ERR):
            raise RetryableIoError(
                MySQLError(login.code, login.sqlstate, "%s"),
                message=f"error connecting to master '{s.user}@{s.host}:{s.port}' - retry-time: {s.connect_retry:g}  message: {login.message}",
            )
        assert isinstance(login, LoginOK)
        checksum = await self._bootstrap(link)
        self.state = STATE_REGISTERING
        reply = await link.roundtrip(conn.register_slave(s.server_id, port=s.report_port))
        if isinstance(reply, ERR):
            raise RetryableIoError(ER_SLAVE_MASTER_COM_FAILURE, "COM_REGISTER_SLAVE", reply.message)

        # Semi-sync (or any other observer) negotiates here: each observer returns the
        # statements it needs answered; this task runs them on its connection. Whether the dump
        # carries the semi-sync header is what a granted request said (the connection must know
        # it to accept the master's sequence restart after a flagged event, and to allow acks).
        self.param.master_position = self.resume
        requests = self.delegate.before_request_transmit(self.param) if self.delegate else []
        outcomes = [(request, await self._request(link, request)) for request in requests]
        self.semi_sync = any(request.semi_sync and granted for request, granted in outcomes)

        # A new relay log file per connection; the previous one ended at a transaction boundary.
        try:
            self.relay.start_file(checksum)
        except OSError as e:
            raise RelayWriteError(e) from None
        self._file_origin = self.resume
        self.boundary_offset = self.relay.size
        self.tracker = GroupTracker(None, checksum)
        self._events_since_sync = 0

        self.state = STATE_REQUESTING
        start = self.resume
        rx = self._receiver_for(link)
        writer.write(conn.binlog_dump(start.pos if start.file else 4, 0, s.server_id, start.file, semisync=self.semi_sync))
        await writer.drain()
        for request, granted in outcomes:
            self.delegate.after_request_transmit(self.param, request, granted)
        self.running = "Yes"
        self._dumping = True
        self.last_errno, self.last_error = 0, ""
        self.state = STATE_WAITING
        log.info(
            "slave IO: replicating from %s:%d at %s (semi-sync %s)",
            s.host, s.port, start, "on" if self.semi_sync else "off",
        )
        if rx is not None:
            await self._receive_loop(link, rx)
            return
        syncer = self._relay_io
        if self.semi_sync and isinstance(syncer, NativeSyncer) and writer.get_extra_info("ssl_object") is None:
            # acks leave from the relay log's syncer thread right after their fsync (see _commit_batch)
            link.acks_by(syncer, writer.get_extra_info("socket").fileno())
        await self._read_loop(link)

    async def _request(self, link: _Link, request: DumpRequest) -> bool:
        """Run an observer's statements before COM_BINLOG_DUMP: True when each got the answer it
        expects; False at the first that did not (or an ERR the statement names as a refusal)."""
        for statement in request.statements:
            answer = await link.query(statement.sql)
            if isinstance(answer, ERR) and answer.code not in statement.refused_by:
                raise RetryableIoError(ER_SLAVE_MASTER_COM_FAILURE, request.purpose, answer.message)
            if not statement.granted_by(answer):
                return False
        return True

    async def _bootstrap(self, link: _Link) -> bool:
        """The queries a MariaDB 10.11 replica sends before registering (see
        ../shared/interop/mariadb-replica-handshake.txt). Returns whether events carry CRC32."""
        s = self.settings
        answer = await link.query("SELECT UNIX_TIMESTAMP()")
        if isinstance(answer, ResultSet) and answer.rows and answer.rows[0][0]:
            try:
                master_now, now = float(answer.rows[0][0]), time.time()
            except ValueError:
                self.master_clock_offset = 0.0
            else:
                self.master_clock_offset = master_now - now
                # MariaDB's clock_diff_with_master: whole seconds, the slave's minus the master's
                self.clock_diff_with_master = int(now) - int(master_now)
        answer = await link.query("SHOW VARIABLES LIKE 'SERVER_ID'")
        if isinstance(answer, ResultSet) and answer.rows:
            master_id = int(answer.rows[0][1] or 0)
            self.master_server_id = master_id
            if master_id == s.server_id:
                raise FatalIoError(
                    ER_SLAVE_FATAL_ERROR,
                    "The slave I/O thread stops because master and slave have equal MySQL server "
                    "ids; these ids must be different for replication to work",
                )
        if s.heartbeat_period > 0:
            await link.query(f"SET @master_heartbeat_period= {int(round(s.heartbeat_period * 1e9))}")
        checksum = False
        answer = await link.query("SET @master_binlog_checksum= @@global.binlog_checksum")
        if isinstance(answer, OK):
            answer = await link.query("SELECT @master_binlog_checksum")
            if isinstance(answer, ResultSet) and answer.rows:
                checksum = (answer.rows[0][0] or "").upper() == "CRC32"
        await link.query(f"SET @mariadb_slave_capability={MARIADB_SLAVE_CAPABILITY}")
        if s.use_gtid:
            await link.query("SELECT @@GLOBAL.gtid_domain_id")
            for sql in (
                f"SET @slave_connect_state='{self.io_pos}'",
                f"SET @slave_gtid_strict_mode={int(s.gtid_strict_mode)}",
                "SET @slave_gtid_ignore_duplicates=0",
            ):
                answer = await link.query(sql)
                if isinstance(answer, ERR):
                    raise FatalIoError(ER_MASTER_FATAL_ERROR_READING_BINLOG, answer.code, answer.message)
        return checksum

    # -- the read loop ------------------------------------------------------------------------
    async def _read_loop(self, link: _Link) -> None:
        while not self._stopping:
            data = await link.read()
            if not data:
                raise RetryableIoError(CR_SERVER_LOST)
            link.conn.receive_data(data)
            await self._take_received(link)

    async def _take_received(self, link: _Link) -> None:
        """Every whole packet the connection holds: queued, then written, fsynced and acked as
        one batch (`_commit_batch`)."""
        conn = link.conn
        queued = QueuedEvents()
        while True:
            payloads = conn.next_binlog_payloads()  # the event packets, framed in one pass
            if payloads:
                self._queue_packets(payloads, queued)
            ev = conn.next_event()
            if ev is NEED_DATA:
                break
            if isinstance(ev, BinlogPacket):
                self._queue_packets([ev.payload], queued)
            elif isinstance(ev, ERR):
                raise FatalIoError(
                    ER_MASTER_FATAL_ERROR_READING_BINLOG, ev.code, ev.message,
                )
            elif isinstance(ev, EOF | OK | ConnectionClosed):
                raise RetryableIoError(CR_SERVER_LOST)
        if queued.events:
            await self._commit_batch(link, queued)

    # -- the receiver thread's path (slave/receiver.py) -----------------------------------------
    def _receiver_for(self, link: _Link) -> NativeReceiver | None:
        """The receiver thread for this dump, started before COM_BINLOG_DUMP (so the loop reads
        nothing of the dump), where it applies: built, a plain-TCP connection, sync_relay_log=1
        (an fsync per read, as `_commit_batch` makes then), the real fsync(2) (a stand-in is
        a test's: it takes the Python path), nothing received and not taken."""
        writer = link.writer
        if not (native.available() and self.settings.sync_relay_log == 1 and self._fsync is os.fsync
                and writer.get_extra_info("ssl_object") is None and not getattr(link.reader, "_buffer", b"")):
            return None
        sock = writer.get_extra_info("socket")
        if sock is None:
            return None
        writer.transport.pause_reading()
        writer.transport.set_write_buffer_limits(0)  # drain() returns only once all is written
        link.receiver = NativeReceiver(sock.fileno(), self.settings.net_timeout, asyncio.get_running_loop())
        return link.receiver

    async def _receive_loop(self, link: _Link, rx: NativeReceiver) -> None:
        """`_read_loop` with the socket read by the receiver thread. While the tracker knows the
        master's position and the connection is between packets, the thread takes the packets
        it can decide itself (protocol/_dumpscan.h) and writes, fsyncs and acks each read as
        `_commit_batch` would; this loop counts its batches afterwards (`_received`). What it
        leaves (the dump's first events, a ROTATE or FORMAT_DESCRIPTION, a heartbeat, anything
        malformed, an ERR) comes back as bytes and takes the Python path (`_take_received`),
        the thread paused meanwhile, handing over the bytes it reads next as they are until the
        connection is between packets again; then it goes on. A batch after which the thread
        goes on is counted in the receiver's reader callback (`_received`), without a turn
        of this task; what that raises, this loop raises. The stream's state (`resume_dump`) is
        taken from the record the thread pauses at (a HANDOFF, a BATCH returned here): the state
        after a batch it goes on from is only ever read after a later record replaced it."""
        conn = link.conn
        rx.take_batches(self._received)
        running = False
        while not self._stopping:
            if not running:
                await link.writer.drain()  # nothing of ours still buffered: the thread may write
                state = conn.dump_state() if self.tracker.master is not None else None
                if state is None:
                    rx.go_raw()
                else:
                    seq, after_ack = state
                    ack, at = conn.ack_template(self.tracker.master.file) if self.semi_sync else (b"", 0)
                    rx.go(self.relay.descriptor, self.relay.size, self.settings.max_relay_log_size,
                          self.semi_sync, self.tracker.checksum, seq, after_ack, ack, at, b"")
                running = True
            for record in await rx.next():
                if record.kind == native.BATCH:
                    conn.resume_dump(record.seq, record.after_ack)  # the stream's state after it
                    self._received(record)
                    running = not record.paused
                    continue
                running = False
                if record.kind == native.HANDOFF:
                    conn.resume_dump(record.seq, record.after_ack)
                if record.kind in (native.HANDOFF, native.RAW):
                    conn.receive_data(record.data)
                    await self._take_received(link)
                else:
                    self._received(record)

    def _received(self, record: Record) -> None:
        """Count what the receiver thread did: a batch's events queued as `_queue_packets`
        queues them (the relay log's bytes written and fsynced already), the applier told, the
        observers' `after_queue_events` called after the fact (the ack it decides is the one
        the thread sent). Any other record raises what the Python path raises for it."""
        kind = record.kind
        if kind != native.BATCH and kind != native.NOT_SENT:
            self._not_counted(record)
            return
        queued = QueuedEvents()
        self._queue_events(record.events, record.flagged, queued, written=True)
        self._events_since_sync = 0
        self.relay.readable_to(self.boundary_offset or 0)
        self.on_progress()
        observers = self.delegate.observers
        ack = self.delegate.after_queue_events(self.param, queued, True) if observers else None
        self.param.master_position = self.tracker.master or self.resume  # `read_position`
        if kind == native.NOT_SENT:
            raise RetryableIoError(CR_SERVER_LOST, message=f"the ack could not be sent: {os.strerror(record.err)}")
        if record.acked >= 0:
            self.acks_sent += 1
            if ack is None or ack.pos != record.acked:
                log.error("slave IO: the receiver thread acked %d, the observers decided %s", record.acked, ack)
        if record.paused:
            self._rotate_if_full()
        self.state = STATE_WAITING

    def _not_counted(self, record: Record) -> None:
        """A record of the receiver thread that holds no durable batch: raises what the Python
        path raises for it; RAW / HANDOFF bytes (a stopped thread's) wrote nothing."""
        kind = record.kind
        if kind == native.CLOSED:
            raise RetryableIoError(CR_SERVER_LOST)
        if kind == native.TIMEOUT:
            raise RetryableIoError(
                CR_SERVER_LOST,
                message=f"nothing received from the master for slave_net_timeout={self.settings.net_timeout:g}s")
        if kind == native.RECV_ERROR:
            raise RetryableIoError(CR_SERVER_LOST, message=f"reading from the master: {os.strerror(record.err)}")
        if kind == native.WRITE_FAILED:
            self.relay.write_failed(len(record.data))  # the thread cut the file back
            raise RelayWriteError(OSError(record.err, os.strerror(record.err)))
        if kind == native.SYNC_FAILED:  # written, not durable: cut back as `_commit_batch` would
            self.relay.written_run(record.events, False)
            self.relay.sync_failed()
            raise RelayWriteError(OSError(record.err, os.strerror(record.err)))

    # -- queueing a read's events ---------------------------------------------------------------
    def _queue_packets(self, payloads: list[bytes | memoryview], queued: QueuedEvents) -> None:
        """Event packets of one read: strip (observers), then `_queue_events`."""
        read = ReadBatch(payloads)
        if self.delegate.observers:
            self.delegate.after_read_events(self.param, read)
        self._queue_events(read.events, read.flagged, queued)

    def _queue_events(self, events: list[bytes | memoryview], flagged: list[int], queued: QueuedEvents,
                      written: bool = False) -> None:
        """Verify, count heartbeats, and queue the events in the relay log and in `queued`: runs
        of them at once where the compiled scan takes them (`GroupTracker.take_run`), the rest
        one by one (`_queue_event`, the reference the runs are held equal to). `written`: the
        receiver thread wrote and fsynced them already (`RelayLog.written_run`), after it checked
        their CRC32 footers (protocol/_dumpscan.h, under the tracker's `checksum`): the runs do
        not check them again."""
        i, count = 0, len(events)
        while i < count:
            run = self.tracker.take_run(events, i, written)
            if run is not None and run.stop > i:
                self._queue_run(events[i:run.stop], i, run, flagged, queued, written)
                i = run.stop
                if i == count:
                    break
            self._queue_event(events[i], i in flagged, queued, written)
            i += 1

    def _queue_run(self, events: list[bytes | memoryview], start: int, run: TakenRun, flagged: list[int],
                   queued: QueuedEvents, written: bool = False) -> None:
        """The events the tracker took at once (read.events[start:run.stop]), queued as
        `_queue_event` would queue each."""
        self.state = STATE_QUEUEING
        try:
            ends = self.relay.written_run(events, True) if written else self.relay.append_run(events)
        except OSError as e:
            raise FatalIoError(ER_SLAVE_RELAY_LOG_WRITE_FAILURE, str(e)) from None
        self._events_since_sync += len(events)
        master = self.tracker.master
        assert master is not None, "a run is taken only with the master's position known"
        positions = list(map(BinlogPosition, repeat(master.file), run.positions))
        if run.last_boundary >= 0:
            self.boundary_offset = ends[run.last_boundary - start]
            self.resume = positions[run.last_boundary - start]
            for gtid in run.closed:
                self.io_pos = self.io_pos.with_gtid(gtid)
        if flagged and (start or flagged[-1] >= run.stop):  # the run's own, counted from its start
            flagged = [i - start for i in flagged if start <= i < run.stop]
        queued.add_run(events, positions, flagged)

    def _queue_event(self, event: bytes | memoryview, need_ack: bool, queued: QueuedEvents,
                     written: bool = False) -> None:
        """One event: verify it, follow a ROTATE or a heartbeat, queue it."""
        tracker = self.tracker
        header = decode_header(event)
        if header.event_size != len(event):
            raise FatalIoError(
                ER_SLAVE_RELAY_LOG_WRITE_FAILURE,
                f"event of {len(event)} bytes says event_size {header.event_size}",
            )
        t = header.type_code
        if t == TYPE_FD:
            fd = decode_event(event, False).body
            assert isinstance(fd, FormatDescription)
            if fd.checksum and not event_checksum_ok(event):
                raise FatalIoError(ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE)
            self._master_fd = bytes(event)
        elif tracker.checksum and not event_checksum_ok(event):
            raise FatalIoError(ER_NETWORK_READ_EVENT_CHECKSUM_FAILURE)
        if t == TYPE_HEARTBEAT or t == TYPE_HEARTBEAT_V2:
            self._heartbeat(event, header.log_pos)
            return
        self.state = STATE_QUEUEING
        if t == TYPE_ROTATE and self._master_moves(event):
            self._follow_rotate()
        try:
            end_offset = self.relay.written_run([event], True)[0] if written else self.relay.append(event)
        except OSError as e:
            raise FatalIoError(ER_SLAVE_RELAY_LOG_WRITE_FAILURE, str(e)) from None
        self._events_since_sync += 1
        if tracker.feed(event, header):
            self.boundary_offset = end_offset
            if tracker.master is not None:
                self.resume = tracker.master
            if tracker.closed_gtid is not None:
                self.io_pos = self.io_pos.with_gtid(tracker.closed_gtid)
        master = tracker.master
        queued.add(event, master if master is not None else self.resume, need_ack)

    def _with_unsynced(self, queued: QueuedEvents) -> QueuedEvents:
        """`queued` after the flagged events an earlier batch wrote and did not fsync (about to
        be durable with this batch's fsync)."""
        if not self._unsynced.events:
            return queued
        held, self._unsynced = self._unsynced, QueuedEvents()
        held.extend(queued)
        return held

    def _master_moves(self, event: memoryview) -> bool:
        """Whether a ROTATE takes the master to another binlog file, between two transactions:
        the real one that ends a file, or an artificial one to the next file after a file the
        master crashed in. The artificial ROTATE a dump starts with (nothing received yet) and
        the one that repeats a real ROTATE's file keep the current relay file."""
        ours = self.tracker.master
        if ours is None or not self.tracker.at_boundary:
            return False
        rot = decode_event(event, self.tracker.checksum, verify=False).body
        assert isinstance(rot, Rotate)
        return rot.next_file != ours.file

    def _follow_rotate(self) -> None:
        """A new relay file for the master's next binlog file (`RelayLog.follow_rotate`; on the
        loop, as `rotate` is: the applier changes the index too). The file begins where the old
        one's last transaction left the master."""
        self._file_origin = self.tracker.master or self.resume
        try:
            self.relay.follow_rotate(self.tracker.checksum, self._fsync)
        except OSError as e:
            raise RelayWriteError(e) from None
        self.boundary_offset = self.relay.size
        self.on_progress()

    def _heartbeat(self, event: memoryview | bytes, log_pos: int) -> None:
        hb = decode_event(event, self.tracker.checksum, verify=False).body
        assert isinstance(hb, Heartbeat)
        pos = hb.position if hb.position is not None else log_pos
        ours = self.tracker.master
        # by GTID the master may have skipped events the slave has (MariaDB's slave: "Slave can
        # have lower coordinates, if some event from master was omitted")
        ahead = pos > ours.pos and not self.settings.use_gtid if ours is not None else False
        if ours is not None and (hb.log_ident != ours.file or ahead):
            raise FatalIoError(
                ER_SLAVE_HEARTBEAT_FAILURE,
                f"heartbeat says {hb.log_ident}:{pos}, the slave received up to {ours}",
            )
        self.received_heartbeats += 1
        self.last_heartbeat = time.time()

    async def _sync_relay(self) -> None:
        """fsync the relay log off the loop (the loop does nothing else with the relay log
        meanwhile: the IO task awaits it)."""
        assert self._relay_io is not None, "the relay log's syncer lives while run() runs"
        await self.relay.sync_on(self._relay_io)

    async def _commit_batch(self, link: _Link, queued: QueuedEvents) -> None:
        """One write, at most one fsync, at most one (cumulative) ack for everything just read.
        Where the relay log's syncer thread sends acks (`_Link.acks_by`: the compiled syncer, a
        plain-TCP semi-sync dump), a batch that is fsynced has its ack decided before the fsync
        and written by that thread the moment the fsync succeeded, without waiting for this
        loop (busy with the applier); a failed fsync sends nothing."""
        try:
            self.relay.flush()
            n = self.settings.sync_relay_log
            rotate_due = self.relay.size >= self.settings.max_relay_log_size and self.boundary_offset == self.relay.size
            due = bool(n) and (self._events_since_sync >= n or rotate_due)
        except OSError as e:
            raise RelayWriteError(e) from None  # nothing of the batch stays, nothing is acked
        synced = due or n == 0
        ack: BinlogPosition | None = None
        decided = False
        if due and link.ack_fd is not None and self.delegate.observers:
            queued = self._with_unsynced(queued)
            ack = self.delegate.after_queue_events(self.param, queued, True)  # sent only once durable
            decided = True
        sent = False
        try:
            if due:
                if ack is not None:  # decided above: this link's acks are the syncer thread's
                    assert link.ack_fd is not None and isinstance(self._relay_io, NativeSyncer)
                    sent = await self.relay.sync_then_send(self._relay_io, link.ack_fd, link.conn.ack(ack))
                else:
                    await self._sync_relay()
                self._events_since_sync = 0
        except NotSent as e:
            raise RetryableIoError(CR_SERVER_LOST, message=f"the ack could not be sent: {e}") from None
        except OSError as e:
            raise RelayWriteError(e) from None  # nothing of the batch stays, nothing is acked
        if synced:
            self.relay.readable_to(self.boundary_offset or 0)
            self.on_progress()
        if self.delegate.observers and not decided:
            if synced:
                queued = self._with_unsynced(queued)
            ack = self.delegate.after_queue_events(self.param, queued, synced)
            if not synced:
                self._unsynced.extend(queued, flagged_only=True)
        self.param.master_position = self.read_position
        if ack is not None and self.semi_sync:
            if not sent:
                link.writer.write(link.conn.ack(ack))
                await link.writer.drain()
            self.acks_sent += 1
        self._rotate_if_full()
        self.state = STATE_WAITING

    def _rotate_if_full(self) -> None:
        """A new relay file once the current one reached max_relay_log_size at a transaction's end."""
        if (
            self.relay.size >= self.settings.max_relay_log_size
            and self.boundary_offset == self.relay.size
            and self.tracker.master is not None
        ):
            # On the loop, not in a worker thread: the applier changes the index (purge) too.
            self._file_origin = self.tracker.master
            try:
                self.relay.rotate(self.tracker.master, self.master_server_id, self._master_fd, self.tracker.checksum)
            except OSError as e:
                raise RelayWriteError(e) from None
            self.boundary_offset = self.relay.size
            self._events_since_sync = 0
            self.on_progress()


class LaneSyncer:
    """The relay log's fsyncs on a Python thread (`ThreadLane`): where binlog._syncer was not
    built, and for an `fsync` stand-in (tests). The same contract as `NativeSyncer`."""

    def __init__(self, fsync: Callable[[int], None]) -> None:
        self._lane = ThreadLane(1, "relay-io")
        self._fsync = fsync

    def fsync(self, fd: int) -> asyncio.Future[None]:
        return self._lane.call(self._fsync, fd)

    def close(self) -> None:
        self._lane.shutdown()  # waits for an fsync still running


def relay_syncer(fsync: Callable[[int], None]) -> Syncer:
    """The compiled syncer for the real fsync(2), else a `LaneSyncer` of `fsync`."""
    if fsync is os.fsync and syncer_available():
        return NativeSyncer.open()
    return LaneSyncer(fsync)


def _free_bytes(path: os.PathLike[str] | str) -> int:
    """Bytes an unprivileged writer may still use on `path`'s file system."""
    try:
        st = os.statvfs(path)
    except OSError:
        return 0
    return st.f_bavail * st.f_frsize


class _Link:
    """The master connection while this task owns it: request/response helpers and reads with
    the slave_net_timeout.

    The timeout is a watchdog, not a `wait_for` per read (a task and a timer each time, once per
    batch): one timer per connection looks at the read in progress; when one has waited
    `timeout` seconds, it aborts the transport, and the read reports the timeout. `close()`
    stops the watchdog."""

    def __init__(self, conn: ClientConnection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> None:
        self.conn = conn
        self.reader = reader
        self.writer = writer
        self.timeout = timeout
        self._loop = asyncio.get_running_loop()
        self._waiting_since: float | None = None  # when the read in progress began
        self.timed_out = False
        self._watchdog = self._loop.call_later(timeout, self._watch) if timeout > 0 else None
        # the socket's descriptor of the relay log's syncer thread, which writes the acks (acks_by)
        self.ack_fd: int | None = None
        self._ack_syncer: NativeSyncer | None = None
        self.receiver: NativeReceiver | None = None  # the thread that reads the dump (`IoTask._receiver_for`)

    def _watch(self) -> None:
        since, now = self._waiting_since, self._loop.time()
        if since is not None and now - since >= self.timeout:
            self._watchdog = None
            self.timed_out = True
            self.writer.transport.abort()  # the read in progress ends (EOF or an error)
            return
        wait = self.timeout if since is None else self.timeout - (now - since)
        self._watchdog = self._loop.call_later(wait, self._watch)

    def acks_by(self, syncer: NativeSyncer, sock: int) -> None:
        """From now on the acks of this connection are written by `syncer`'s thread, on a dup
        of `sock` that the thread closes after this link's last request (`close`). The thread
        then owns the socket's write direction: nothing else is written to it."""
        self.ack_fd, self._ack_syncer = syncer.adopt(sock), syncer

    def close(self) -> list[Record]:
        """Stop the watchdog and the threads' use of the socket; the receiver's records not
        taken yet (batches it wrote: the caller counts them)."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self.ack_fd is not None and self._ack_syncer is not None:
            self._ack_syncer.release(self.ack_fd)
            self.ack_fd = self._ack_syncer = None
        receiver, self.receiver = self.receiver, None
        return receiver.stop() if receiver is not None else []

    async def read(self) -> bytes:
        if self.timed_out:
            raise self._timeout_error()
        self._waiting_since = self._loop.time()
        try:
            data = await self.reader.read(READ_CHUNK)
        except (OSError, asyncio.IncompleteReadError):
            if self.timed_out:
                raise self._timeout_error() from None
            raise
        finally:
            self._waiting_since = None
        if self.timed_out:
            raise self._timeout_error()
        return data

    def _timeout_error(self) -> RetryableIoError:
        return RetryableIoError(
            CR_SERVER_LOST, message=f"nothing received from the master for slave_net_timeout={self.timeout:g}s"
        )

    async def response(self) -> Any:
        while True:
            ev = self.conn.next_event()
            out = self.conn.data_to_send()  # the login / auth switch answers it produced
            if out:
                self.writer.write(out)
                await self.writer.drain()
            if ev is NEED_DATA:
                data = await self.read()
                self.conn.receive_data(data)
                continue
            if isinstance(ev, ConnectionClosed):
                raise RetryableIoError(CR_SERVER_LOST)
            return ev

    async def roundtrip(self, wire: bytes) -> Any:
        self.writer.write(wire)
        await self.writer.drain()
        return await self.response()

    async def query(self, sql: str) -> Any:
        return await self.roundtrip(self.conn.query(sql))
