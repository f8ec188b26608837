"""`MasterRole`: the source side of the one server (node/role.py holds it with the replica
side; server/role.py is the seam).

Contract
- Commits go through the group commit pipeline (`master.commit.GroupCommit`).
- COM_REGISTER_SLAVE registers (server_id, host, port) for SHOW SLAVE HOSTS until the connection
  closes; a replica claiming this master's own server_id is refused with 1593. COM_BINLOG_DUMP
  runs a `DumpSession` inside `handle_command` (the connection is the dump's until it ends). A dump from a server_id that already has one replaces it: the old
  connection is killed first (mysqld's kill_zombie_dump_threads).
- A dump by GTID (the slave set `@slave_connect_state`, as a MariaDB replica with MASTER_USE_GTID
  does; `@slave_gtid_strict_mode`, `@slave_gtid_ignore_duplicates` read too) starts at the
  beginning of the file `protocol.gtid.find_dump_start` picks through the files' GTID_LISTs,
  skipping the groups the slave has (`master.dump.GtidSkipper`); the file and position it sent
  do not count. A malformed state gets 1941/1943, GTIDs the binlog cannot serve 1236, in
  MariaDB's words; the dump does not start and the connection stays usable.
- ROLLBACK runs on the engine, then calls the `after_rollback` hook.
- Master statements: SHOW MASTER STATUS, SHOW BINARY LOGS (= SHOW MASTER LOGS), SHOW BINLOG
  EVENTS, SHOW SLAVE HOSTS (MariaDB's four columns), FLUSH BINARY LOGS (and FLUSH LOGS; after
  it and after a rotation by size the files older than binlog_expire_logs_seconds are purged
  as by BEFORE, `_purge_expired`), PURGE
  BINARY LOGS TO (ER_LOG_IN_USE for a file a dump session still reads) and BEFORE 'datetime' (`purge_before`: MariaDB's
  purge_logs_before_date, by file modification time, stopping silently at a file in use), RESET MASTER (binlog reset, `after_reset_master`, dump
  sessions ended; the GTID state is cleared), `SELECT BINLOG_GTID_POS(file, pos)` (the GTID
  position a dump from there starts at, from the file's GTID_LIST and its GTID events before
  `pos`; NULL for a file not in the index or a position that is no event boundary).
  Writers of the binlog (FLUSH, PURGE, RESET) first commit the session's open transaction (as
  mysqld's implicit commit), then run between commit groups under the engine's writer lock
  (`GroupCommit.exclusive`; interruptible while they wait for it, whole once their work
  starts: `_exclusive`); readers (SHOW ...) read up to the published end.
- `semisync_slaves()`: information_schema.RPL_SEMI_SYNC_SLAVES' rows, one per registered slave
  (as SHOW SLAVE HOSTS lists them) with its latest semi-sync ack (NULLs before its first).
- Variables: log_bin ON, log_bin_basename, log_bin_index (binlog_format, STATEMENT only, is
  the server's: `server.core_variables`), binlog_checksum, sync_binlog, max_binlog_size and
  binlog_error_action (dynamic), gtid_mode OFF (MySQL's GTIDs; log_slave_updates is the node's); MariaDB's gtid_binlog_pos and
  gtid_binlog_state (read only, from `master.gtid_state`), gtid_domain_id (GLOBAL and SESSION: a
  session's own transactions get its value) and gtid_strict_mode (GLOBAL, dynamic). A session's
  sql_log_bin off: its writes and user statements commit here and are never binlogged (no GTID).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlog.index import read_index
from binlog.reader import iter_events
from binlog.show_events import EVENT_COLUMNS, binlog_event_rows
from binlog.writer import BinlogWriter
from master.ack_receiver import AckReceiver
from master.binlog_end import BinlogEnd
from master.commit import ABORT_SERVER, BINLOG_ERROR_ACTIONS, GroupCommit, write_error
from master.dump import BinlogSource, DumpSession
from master.gtid_state import BinlogGtids, file_gtid_list, file_gtid_lists, gtids_in
from protocol.errors import (
    ER_ERROR_WHEN_EXECUTING_COMMAND,
    ER_LOG_IN_USE,
    ER_MASTER_FATAL_ERROR_READING_BINLOG,
    ER_SLAVE_FATAL_ERROR,
    ER_UNKNOWN_TARGET_BINLOG,
    RemoteProtocolError,
    SQLError,
)
from protocol.gtid import (
    BinlogState,
    DumpStart,
    GtidPosition,
    binlog_gtid_pos,
    find_dump_start,
    parse_connect_state,
)
from protocol.messages import (
    ERR,
    MASTER_STATUS_COLUMNS,
    OK,
    ComBinlogDump,
    ComBinlogDumpGtid,
    ComRegisterSlave,
    FieldType,
    ResultSet,
    column,
    show_number,
    show_text,
)
from semisync.interface import ReplicationInterface, TransParam
from server.role import Role
from server.sql import Tokens
from server.users import ALL, REPLICATION_CLIENT, REPLICATION_SLAVE, SUPER
from server.variables import Scope, SystemVariable, check_bool, check_enum, check_int

SAME_SERVER_ID = (
    "master and slave have equal MariaDB server ids; these ids must be different for replication to work"
)

log = logging.getLogger("semisync.master")

_RELOAD = (ALL, "RELOAD")  # SUPER is not enough (MariaDB 10.11)
_REPLICATION_CLIENT = (ALL, SUPER, REPLICATION_CLIENT, REPLICATION_SLAVE)
# SHOW SLAVE HOSTS: MariaDB 10.11's four columns; each slave's acked position is
# RPL_SEMI_SYNC_SLAVES' (`semisync_slaves`)
_SLAVE_HOSTS_COLUMNS = (show_number("Server_id", FieldType.LONG, 10, unsigned=True), show_text("Host", 20),
                        show_number("Port", FieldType.LONG, 7, unsigned=True),
                        show_number("Master_id", FieldType.LONG, 10, unsigned=True))


@dataclass
class SlaveHost:
    server_id: int
    host: str
    port: int
    master_id: int
    connection_id: int


class MasterRole(Role):
    name = "master"
    commits_now = True
    CLAIMS = frozenset({
        "SHOW MASTER", "SHOW BINARY", "SHOW BINLOG", "SHOW SLAVE", "SHOW REPLICAS",
        "FLUSH BINARY", "FLUSH LOGS", "FLUSH LOCAL", "FLUSH NO_WRITE_TO_BINLOG", "PURGE BINARY", "PURGE MASTER",
        "RESET MASTER",
        "SELECT BINLOG_GTID_POS", "ROLLBACK",
    })

    def __init__(
        self,
        *,
        writer: BinlogWriter,
        end: BinlogEnd,
        pipeline: GroupCommit,
        interface: ReplicationInterface,
        server_id: int,
        checksum: bool,
        sync_binlog: int = 1,
        binlog_error_action: str = ABORT_SERVER,
        gtids: BinlogGtids | None = None,
    ) -> None:
        self.gtids = pipeline.gtids if gtids is None else gtids
        # this server's @@gtid_slave_pos (the replica side's): a dump may start after what it
        # applied without logging it
        self.slave_pos: Callable[[], GtidPosition] = GtidPosition
        self._sync_binlog = sync_binlog
        self._binlog_error_action = binlog_error_action
        self.writer = writer
        self.end = end
        self.pipeline = pipeline
        self.interface = interface
        self.server_id = server_id
        self.checksum = checksum
        self.acks = AckReceiver()
        self.dumps: dict[int, DumpSession] = {}  # connection_id -> dump
        self.slaves: dict[int, SlaveHost] = {}  # server_id -> registration
        self.source = BinlogSource(writer.directory, writer.basename, server_id, end)
        self._expiring: asyncio.Task[None] | None = None  # `_expire_after_rotation`'s purge

    @property
    def directory(self) -> Path:
        return self.writer.directory

    def gtid_binlog_state(self) -> BinlogState:
        """A copy of the binlog's GTID state (`@@gtid_binlog_state`)."""
        return self.gtids.state.copy()

    # -- variables ----------------------------------------------------------------------------

    def system_variables(self) -> Iterable[SystemVariable]:
        w = self.writer
        base = str(w.directory / w.basename)

        def set_max_size(value: Any) -> None:
            w.max_size = int(value)

        return (
            SystemVariable("log_bin", True),
            SystemVariable("log_bin_basename", base),
            SystemVariable("log_bin_index", base + ".index"),
            SystemVariable("binlog_checksum", "CRC32" if self.checksum else "NONE"),
            SystemVariable("sync_binlog", self._sync_binlog, Scope.GLOBAL, dynamic=True,
                           check=check_int(0, 2**32 - 1), on_set=self._set_sync_binlog),
            SystemVariable("max_binlog_size", w.max_size, Scope.GLOBAL, dynamic=True,
                           check=check_int(4096, 1 << 30, 4096), on_set=set_max_size),
            SystemVariable("binlog_error_action", self._binlog_error_action, Scope.GLOBAL, dynamic=True,
                           check=check_enum(*BINLOG_ERROR_ACTIONS), on_set=self._set_binlog_error_action),
            SystemVariable("gtid_mode", "OFF"),  # MySQL's GTIDs: never; ours are MariaDB's
            SystemVariable("gtid_binlog_pos", getter=lambda: str(self.gtids.state.binlog_pos())),
            SystemVariable("gtid_binlog_state", getter=lambda: str(self.gtids.state)),
            SystemVariable("gtid_domain_id", self.gtids.domain_id, Scope.BOTH, dynamic=True,
                           check=check_int(0, 2**32 - 1), on_set=self._set_gtid_domain_id),
            SystemVariable("gtid_strict_mode", self.gtids.strict_mode, Scope.GLOBAL, dynamic=True,
                           check=check_bool, on_set=self._set_gtid_strict_mode),
            # the seq_no of the session's next binlogged transaction (0: the domain's next)
            SystemVariable("gtid_seq_no", 0, Scope.SESSION, dynamic=True, check=check_int(0, 2**64 - 1),
                           session_set=self._set_gtid_seq_no),
        )

    def _set_gtid_seq_no(self, session: Any, value: int) -> None:
        self.gtids.check_seq_no(session, value, self.server_id)
        session.sysvars["gtid_seq_no"] = value

    def _set_gtid_domain_id(self, value: Any) -> None:
        self.gtids.domain_id = int(value)

    def _set_gtid_strict_mode(self, value: Any) -> None:
        self.gtids.strict_mode = bool(value)

    def _set_sync_binlog(self, value: Any) -> None:
        self._sync_binlog = int(value)

    def sync_binlog(self) -> int:
        return self._sync_binlog

    def _set_binlog_error_action(self, value: Any) -> None:
        self._binlog_error_action = str(value)

    def binlog_error_action(self) -> str:
        return self._binlog_error_action

    def status_variables(self) -> Mapping[str, Any]:
        return {
            "Binlog_commits": self.pipeline.commits,
            "Binlog_group_commits": self.pipeline.groups,
        }

    # -- commits -----------------------------------------------------------------------------

    def commit(self, session: Any, txn: Any) -> Awaitable[None]:
        return self.pipeline.commit(session, txn)

    def commit_now(self, session: Any, txn: Any) -> Awaitable[None]:
        return self.pipeline.commit_now(session, txn)

    async def after_user_change(self, session: Any, statement: str) -> None:
        es = getattr(session, "engine_session", None)
        if es is not None and not es.sql_log_bin:
            return  # changed on this server only, as MariaDB does with sql_log_bin off
        await self.pipeline.append_statement(session, statement)

    # -- life cycle ----------------------------------------------------------------------------

    async def start(self) -> None:
        self.acks.start()
        loop = asyncio.get_running_loop()

        def size_rotated() -> None:  # (on the thread that rotated: never fails the rotation)
            try:
                loop.call_soon_threadsafe(self._expire_after_rotation)
            except RuntimeError:  # the loop is closed: the server stopped
                pass

        self.writer.on_size_rotated = size_rotated

    async def shutdown(self, deadline: float) -> None:
        loop = asyncio.get_running_loop()
        if self._expiring is not None:  # (a purge begun is let finish, as the commits are)
            await asyncio.wait({self._expiring}, timeout=max(0.1, deadline - loop.time()))
        for dump in list(self.dumps.values()):
            dump.stop()
            dump.session.close()
        if not await self.pipeline.wait_idle(max(0.1, deadline - loop.time())):
            log.warning("shutdown: commits still in flight at the deadline")
        await self.acks.stop()

    # -- commands ------------------------------------------------------------------------------

    async def handle_command(self, session: Any, cmd: Any) -> bool:
        if isinstance(cmd, ComRegisterSlave):
            if cmd.server_id == self.server_id:
                # A replica with our own server_id would skip every event as its own (mysqld's
                # slave I/O thread stops on it with 1593: the same code and words here).
                log.warning("refused COM_REGISTER_SLAVE from %s: it uses this master's server_id %d",
                            session.peer, cmd.server_id)
                session.write(session.conn.send(ERR.from_error(ER_SLAVE_FATAL_ERROR, SAME_SERVER_ID)))
                return True
            self._register(session, cmd)
            session.write(session.conn.send(OK(status=session.status_flags())))
            return True
        if isinstance(cmd, ComBinlogDump):
            await self._dump(session, cmd)
            return True
        if isinstance(cmd, ComBinlogDumpGtid):
            session.write(session.conn.send(ERR.from_error(
                ER_MASTER_FATAL_ERROR_READING_BINLOG,
                message="GTID auto-positioning (COM_BINLOG_DUMP_GTID) is not supported: this master has "
                        "MariaDB GTIDs; connect with @slave_connect_state (MASTER_USE_GTID)",
            )))
            return True
        return False

    def _register(self, session: Any, cmd: ComRegisterSlave) -> None:
        host = cmd.host or session.host
        self.slaves[cmd.server_id] = SlaveHost(cmd.server_id, host, cmd.port, cmd.master_id or self.server_id,
                                               session.connection_id)
        connection_id = session.connection_id

        def forget(_fut: Any) -> None:
            entry = self.slaves.get(cmd.server_id)
            if entry is not None and entry.connection_id == connection_id:
                del self.slaves[cmd.server_id]

        asyncio.ensure_future(session.closed()).add_done_callback(forget)

    async def _dump(self, session: Any, cmd: ComBinlogDump) -> None:
        gtid_start = None
        connect_state = _user_text(session.user_vars.get("slave_connect_state"))
        if connect_state is not None:
            # a dump by GTID (MASTER_USE_GTID=slave_pos|current_pos): the file and position
            # asked for do not count; the start is where the GTIDs say
            try:
                start = await self._gtid_dump_start(connect_state, session.user_vars)
            except RemoteProtocolError as e:
                log.info("dump by GTID to slave %d refused: %s", cmd.server_id, e.message)
                session.write(session.conn.send(ERR.from_exception(e)))
                return
            cmd = dataclasses.replace(cmd, filename=start.file, position=4)
            gtid_start = start.filter
        for other in list(self.dumps.values()):
            if other.slave_server_id == cmd.server_id and other.session is not session:
                log.info("slave %d reconnected: ending its old dump (connection %d)",
                         cmd.server_id, other.session.connection_id)
                other.stop()
                other.session.kill()

        def started(dump: DumpSession) -> None:
            self.dumps[session.connection_id] = dump
            self.acks.attach(dump)

        dump = DumpSession(self.source, session, cmd, self.interface.transmit, on_start=started, gtid_start=gtid_start)
        try:
            await dump.run()
        finally:
            if self.dumps.get(session.connection_id) is dump:
                del self.dumps[session.connection_id]

    async def _gtid_dump_start(self, connect_state: str, user_vars: dict[str, Any]) -> DumpStart:
        """Where a dump asking for `connect_state` starts (1941/1943 for a malformed one, 1236
        for GTIDs the binlog cannot serve, as mysqld words them)."""
        request = parse_connect_state(connect_state)
        names = read_index(self.directory, self.writer.basename)
        files = await asyncio.to_thread(file_gtid_lists, self.directory, names)
        return find_dump_start(
            files, request, self.gtids.state, slave_pos=self.slave_pos(), server_id=self.server_id,
            slave_strict_mode=_user_flag(user_vars.get("slave_gtid_strict_mode")),
            slave_ignore_duplicates=_user_flag(user_vars.get("slave_gtid_ignore_duplicates")),
        )

    # -- statements ----------------------------------------------------------------------------

    async def execute(self, session: Any, sql: str, keyword: str) -> Any:
        if keyword.startswith("ROLLBACK"):
            return await self._rollback(session, sql)
        t = Tokens(sql)
        first = t.next().upper
        if first == "SHOW":
            return await self._show(session, t)
        if first == "SELECT":
            return await self._binlog_gtid_pos(t, sql)
        # FLUSH, PURGE and RESET commit the session's open transaction first, as in mysqld (it
        # holds the engine's writer lock, which they need)
        await self._implicit_commit(session)
        if first == "FLUSH":
            t.accept_word("LOCAL", "NO_WRITE_TO_BINLOG")
            if t.accept_word("BINARY"):
                t.expect_word("LOGS")
                t.expect_end()
                session.require(*_RELOAD)
                await self.rotate(session)
                return OK()
            if t.accept_word("LOGS"):
                if t.at_end():
                    session.require(*_RELOAD)
                    await self.rotate(session)
                return None  # the server answers FLUSH LOGS
            return None
        if first == "PURGE":
            t.expect_word("BINARY", "MASTER")
            t.expect_word("LOGS")
            if t.accept_word("BEFORE"):
                if t.at_end():
                    raise t.error()
                session.require(ALL, SUPER, "BINLOG ADMIN")
                before = await _unix_time(session, sql[t.items[t.i].pos:])
                if before is not None:
                    await self.purge_before(before, session)
                return OK()
            t.expect_word("TO")
            name = t.name()
            t.expect_end()
            session.require(ALL, SUPER, "BINLOG ADMIN")
            await self.purge_to(name, session)
            return OK()
        if first == "RESET":
            t.expect_word("MASTER")
            t.expect_end()
            session.require(*_RELOAD)
            await self.reset_master(session)
            return OK()
        return None

    async def _rollback(self, session: Any, sql: str) -> Any:
        """ROLLBACK runs on the engine as usual, binlogged through the group commit when it must
        be (a temporary table it made or dropped stays: engine/temporary.py); then the
        `after_rollback` hook (WL#4398); with RELEASE the session ends after its answer."""
        es = session.engine_session
        had_transaction = es.in_transaction
        result = await es.execute(sql)
        if result.committed is not None:
            await self._committed(session, result.committed)
        transaction = self.interface.transaction
        if transaction and had_transaction:
            transaction.after_rollback(TransParam(session.connection_id, self.server_id, None, session.set_state))
        if result.release:  # ROLLBACK RELEASE
            session.kill_after_reply()
        return result

    async def _implicit_commit(self, session: Any) -> None:
        es = getattr(session, "engine_session", None)
        if es is not None and es.in_transaction:
            result = await es.execute("COMMIT")
            if result.committed is not None:
                await self._committed(session, result.committed)

    async def _committed(self, session: Any, committed: Any) -> None:
        """`committed` through the group commit, queued before anything else runs (the writer
        lock is free now): not in a task of its own; the session's `committing` keeps it from
        being cancelled."""
        step = self.commit(session, committed)
        committing = getattr(session, "committing", None)
        await (committing(step) if committing is not None else asyncio.shield(step))

    async def _show(self, session: Any, t: Tokens) -> Any:
        what = t.next().upper
        if what == "MASTER" and t.accept_word("STATUS"):
            t.expect_end()
            session.require(*_REPLICATION_CLIENT)
            end = self.end.position
            return ResultSet(
                MASTER_STATUS_COLUMNS,  # (MariaDB's four: no MySQL Executed_Gtid_Set)
                ((end.file, end.pos, "", ""),),
            )
        if what in ("BINARY", "MASTER"):
            t.expect_word("LOGS")
            t.expect_end()
            session.require(*_REPLICATION_CLIENT)
            return ResultSet((show_text("Log_name", 255), show_number("File_size", FieldType.LONGLONG, 20, unsigned=True)),
                             tuple(self._binary_logs()))
        if what == "BINLOG":
            return await self._show_binlog_events(session, t)
        if what in ("SLAVE", "REPLICA", "REPLICAS") and (what == "REPLICAS" or t.accept_word("HOSTS")):
            t.expect_end()
            session.require(ALL, "REPLICATION MASTER ADMIN")
            rows = tuple((s.server_id, s.host, s.port, s.master_id) for s in self._registered())
            return ResultSet(_SLAVE_HOSTS_COLUMNS, rows)
        return None

    def _registered(self) -> list[SlaveHost]:
        return sorted(self.slaves.values(), key=lambda s: s.server_id)

    def semisync_slaves(self) -> list[tuple]:
        rows = []
        for slave in self._registered():
            acked = self.acks.acked.get(slave.server_id)
            rows.append((slave.server_id, slave.host, slave.port,
                         acked.file if acked else None, acked.pos if acked else None))
        return rows

    def _binary_logs(self) -> list[tuple[str, int]]:
        end = self.end.position
        rows = []
        for name in read_index(self.directory, self.writer.basename):
            path = self.directory / name
            if name == end.file:
                size = end.pos
            else:
                try:
                    size = path.stat().st_size
                except FileNotFoundError:
                    continue
            rows.append((name, size))
        return rows

    async def _show_binlog_events(self, session: Any, t: Tokens) -> Any:
        t.expect_word("EVENTS")
        session.require(*_REPLICATION_CLIENT)
        names = read_index(self.directory, self.writer.basename)
        name, start, limit, offset = t.events_range(names[0] if names else "")
        if name not in names:
            raise SQLError(ER_ERROR_WHEN_EXECUTING_COMMAND, "SHOW BINLOG EVENTS", "Could not find target log")
        end = self.end.position
        bound = end.pos if name == end.file else None
        rows = await asyncio.to_thread(binlog_event_rows, self.directory / name, name, start, limit, offset, bound)
        return ResultSet(EVENT_COLUMNS, tuple(rows))

    async def _binlog_gtid_pos(self, t: Tokens, sql: str) -> Any:
        """`SELECT BINLOG_GTID_POS(file, pos)`: the GTID position a dump from (file, pos) starts
        at, from the file's GTID_LIST and its GTID events before `pos`; NULL for a file not in
        the index, a position that is not an event boundary of it (pos < 4 counts as 4), or a
        NULL argument, as MariaDB answers."""
        t.expect_word("BINLOG_GTID_POS")
        t.expect_op("(")
        args: list[Any] = []
        while not t.accept_op(")"):
            minus = "-" if t.accept_op("-") else ""
            tok = t.next()
            args.append(None if tok.is_word("NULL") else minus + tok.text)
            t.accept_op(",")
        if not t.at_end() or len(args) != 2:
            return None  # something more complex: not ours
        label = sql.strip().rstrip(";")[len("SELECT"):].strip()
        return ResultSet((column(label),), ((await self._gtid_pos_at(*args),),))

    async def _gtid_pos_at(self, file: Any, pos: Any) -> str | None:
        if file is None or pos is None:
            return None
        try:
            pos = int(pos)
        except ValueError:
            return None
        if pos < 0:
            return None
        pos = max(pos, 4)
        name = str(file)
        end = self.end.position
        if name not in read_index(self.directory, self.writer.basename):
            return None
        return await asyncio.to_thread(_gtid_pos_in, self.directory / name, pos, end.pos if name == end.file else None)

    # -- binlog administration (between commit groups) ---------------------------------------

    async def _exclusive(self, session: Any, work: Callable[[], Awaitable[None]]) -> None:
        """FLUSH / PURGE / RESET's binlog work, on the writer's side (`GroupCommit.exclusive`).
        Waiting for it may be interrupted (KILL QUERY, max_statement_time: nothing is done yet);
        the work itself runs whole (`ClientSession.committing`): cancelled half-way, the writer
        lock would be let go while the binlog's I/O thread still rotates or deletes files, and
        the client told a failure for work that was done (MariaDB answers OK then)."""
        async with self.pipeline.exclusive():
            committing = getattr(session, "committing", None)
            await (committing(work()) if committing is not None else work())

    async def rotate(self, session: Any = None) -> None:
        async def work() -> None:
            try:
                await self.pipeline.run_io(self.writer.rotate)
            except OSError as exc:  # undone by the writer: the old file stays the active one
                raise write_error(self.writer.basename, exc) from None
            self.end.publish(self.writer.end_position)

        await self._exclusive(session, work)
        await self._purge_expired(session)

    async def _purge_expired(self, session: Any = None) -> None:
        """After FLUSH BINARY LOGS or a rotation by size: the files older than
        binlog_expire_logs_seconds (expire_logs_days) go, as `purge_before` purges (a file a dump
        session still reads stays, with those after it), MariaDB's rotate_and_purge; 0 keeps
        every file."""
        seconds = self._expire_seconds()
        if seconds:
            await self.purge_before(time.time() - seconds, session)

    def _expire_seconds(self) -> int:
        """binlog_expire_logs_seconds (0 while the role serves no server)."""
        if self.server is None:
            return 0
        return self.server.variables.get("binlog_expire_logs_seconds", None, Scope.GLOBAL)

    def _expire_after_rotation(self) -> None:
        """The binlog rotated by size (`BinlogWriter.on_size_rotated`, from the thread that
        rotated, through the loop): `_purge_expired` runs as a task of its own, once the group
        that filled the file is over (it needs the writer's side, `_exclusive`); one at a time."""
        if not self._expire_seconds() or (self._expiring is not None and not self._expiring.done()):
            return
        self._expiring = asyncio.get_running_loop().create_task(self._purge_expired_logged())

    async def _purge_expired_logged(self) -> None:
        try:
            await self._purge_expired()
        except (OSError, SQLError) as exc:  # (tried again at the next rotation)
            log.error("purging the binlog files older than binlog_expire_logs_seconds failed: %s", exc)

    async def purge_to(self, name: str, session: Any = None) -> None:
        async def work() -> None:
            names = self.writer.files()
            if name not in names:
                raise SQLError(ER_UNKNOWN_TARGET_BINLOG)
            doomed = names[: names.index(name)]
            readers = {d.file for d in self.dumps.values()}
            if readers & set(doomed):
                raise SQLError(ER_LOG_IN_USE)
            await self.pipeline.run_io(self.writer.purge_to, name)

        await self._exclusive(session, work)

    async def purge_before(self, before: float, session: Any = None) -> None:
        """PURGE BINARY LOGS BEFORE: MariaDB's purge_logs_before_date. From the oldest file on,
        each whose last modification is before `before` (a Unix time, whole seconds compared)
        goes; the first that is not, the active file, or one a dump session still reads ends
        the run (those after it stay, and no error is raised for them)."""
        async def work() -> None:
            names = self.writer.files()
            readers = {d.file for d in self.dumps.values()}
            keep_from = None
            for i, name in enumerate(names[:-1]):
                if name in readers:
                    break
                try:
                    modified = (self.directory / name).stat().st_mtime
                except FileNotFoundError:  # not there any more: nothing to keep
                    keep_from = names[i + 1]
                    continue
                if int(modified) >= int(before):
                    break
                keep_from = names[i + 1]
            if keep_from is not None:
                await self.pipeline.run_io(self.writer.purge_to, keep_from)

        await self._exclusive(session, work)

    async def reset_master(self, session: Any = None) -> None:
        async def work() -> None:
            for dump in list(self.dumps.values()):
                dump.stop()
                dump.session.close()
            self.gtids.reset()  # the new first file's GTID_LIST is empty, as MariaDB's
            # the files go: no dump may take the last group from memory any more (a new
            # .000001 may have a boundary where the tail starts)
            self.end.drop_tail()
            await self.pipeline.run_io(self.writer.reset)
            end = self.writer.end_position
            # the engine's place in the new binlog (crash recovery replays from here)
            assert self.server is not None
            await self.server.engine.commit_group({"binlog_file": end.file, "binlog_pos": str(end.pos)})
            self.end.publish(end)
            transmit = self.interface.transmit
            if transmit:
                transmit.after_reset_master()

        await self._exclusive(session, work)


async def _unix_time(session: Any, expression: str) -> float | None:
    """PURGE ... BEFORE's datetime expression, evaluated as the session's own SELECT (its
    privileges checked) in its time zone (None: not a datetime, as MariaDB's 1292 warning then
    purges nothing)."""
    result = await session.execute(f"SELECT UNIX_TIMESTAMP({expression})")
    rows = getattr(result, "rows", None)
    value = rows[0][0] if rows else None
    return None if value is None else float(value)


def _user_text(value: Any) -> str | None:
    """A user variable's value as text (None: unset or NULL)."""
    if value is None:
        return None
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _user_flag(value: Any) -> bool:
    """A user variable as mysqld's val_int() reads a flag: unset, NULL, 0 or '0' is false."""
    text = _user_text(value)
    if text is None:
        return False
    try:
        return int(float(text.strip() or "0")) != 0
    except ValueError:
        return False


def _gtid_pos_in(path: Path, pos: int, bound: int | None) -> str | None:
    """BINLOG_GTID_POS for an event boundary `pos` of the file at `path` (None: not one)."""
    boundaries = {4}
    for offset, raw in iter_events(path, 4, bound):
        if offset >= pos:
            break
        boundaries.add(offset + len(raw))
    if pos not in boundaries:
        return None
    listed = file_gtid_list(path) or ()
    return str(binlog_gtid_pos(listed, gtids_in(path, pos)))


