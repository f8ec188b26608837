"""`Replication`: the slave's replication state - master.info, the relay log, the IO task and
the applier - and the operations the SQL surface (slave/role.py) and the daemon call.

Contract
- Owned by the event loop; every method is called from it. START/STOP SLAVE start and stop the
  two tasks; CHANGE MASTER TO and RESET SLAVE require both stopped (ER_SLAVE_MUST_STOP 1198).
- Where the IO task starts (the resume rule of slave/relay_log.py): the position after the last
  complete transaction in the relay log; when the relay log holds none of the master's events,
  master.info's MASTER_LOG_FILE/POS (from CHANGE MASTER TO; the master's first binlog if empty).
- MASTER_DELAY (master.info's `sql_delay`) is read by the applier before each event; CHANGE
  MASTER TO sets it (both threads stopped, as every CHANGE MASTER TO here and in MariaDB),
  RESET SLAVE [ALL] sets it back to 0.
- CHANGE MASTER TO with MASTER_LOG_FILE/POS, or a change of MASTER_HOST/PORT, starts over: the
  relay log is deleted (as mysqld does) and the applier continues from the new relay log.
- By GTID (master.info's `use_gtid`, MASTER_USE_GTID): the IO task asks for the GTIDs after
  `io_pos`: at START SLAVE, @@gtid_slave_pos (as stored in the engine, loaded at construction
  even before the SQL thread runs; current_pos: @@gtid_current_pos) with, per domain,
  the last complete GTID in the relay log over it (the relay log holds what the SQL thread has
  not applied yet); a later START SLAVE goes on from the last IO task's `io_pos`. CHANGE MASTER
  TO, as MariaDB 10.11: slave_pos for a server without master.info; MASTER_LOG_FILE/POS alone
  set `no` (note 4190), with MASTER_USE_GTID = slave_pos|current_pos they are ignored (note
  1618); otherwise the setting is kept. `SET GLOBAL gtid_slave_pos` needs both threads stopped (1198, nothing changes); by
  GTID it also drops the relay log, which was read for the old position.
- `rpl_semi_sync_slave_enabled` is read by the semi-sync plugin at each IO task start.
- The processlist's replication threads (`threads()`, as a MariaDB replica lists them): each
  task takes a connection id of the server (`thread_id`) when START SLAVE starts it and is
  listed as "system user"'s Slave_IO / Slave_SQL row, its state the IO task's / applier's,
  until it stops. KILL [QUERY] of such an id stops that thread as STOP SLAVE IO_THREAD /
  SQL_THREAD does (`kill_thread`), without an error of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.errors import (
    ER_BAD_SLAVE,
    ER_IMPLICIT_USING_GTID,
    ER_NOT_SUPPORTED_YET,
    ER_RELAY_LOG_INIT,
    ER_SLAVE_MUST_STOP,
    ER_WARN_OPTION_IGNORED,
    SQLError,
)
from protocol.gtid import BinlogState, Gtid, GtidPosition, current_pos
from protocol.position import BinlogPosition
from semisync.interface import BinlogRelayIODelegate
from slave import master_info
from slave.applier import Applier, CommitReplicated, LoadRows, SlaveColumn
from slave.io_task import IoSettings, IoTask
from slave.master_info import MasterInfo
from slave.relay_log import RelayLog

log = logging.getLogger("semisync.slave")

# SHOW SLAVE STATUS: MariaDB 10.11's columns in its order, then the MySQL 5.7 columns MariaDB
# lacks (tests/integration/test_slave_gtid_mariadb.py compares them with a live MariaDB).
MARIADB_STATUS_COLUMNS = (
    "Slave_IO_State", "Master_Host", "Master_User", "Master_Port", "Connect_Retry",
    "Master_Log_File", "Read_Master_Log_Pos", "Relay_Log_File", "Relay_Log_Pos",
    "Relay_Master_Log_File", "Slave_IO_Running", "Slave_SQL_Running", "Replicate_Do_DB",
    "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table", "Last_Errno", "Last_Error",
    "Skip_Counter", "Exec_Master_Log_Pos", "Relay_Log_Space", "Until_Condition",
    "Until_Log_File", "Until_Log_Pos", "Master_SSL_Allowed", "Master_SSL_CA_File",
    "Master_SSL_CA_Path", "Master_SSL_Cert", "Master_SSL_Cipher", "Master_SSL_Key",
    "Seconds_Behind_Master", "Master_SSL_Verify_Server_Cert", "Last_IO_Errno", "Last_IO_Error",
    "Last_SQL_Errno", "Last_SQL_Error", "Replicate_Ignore_Server_Ids", "Master_Server_Id",
    "Master_SSL_Crl", "Master_SSL_Crlpath", "Using_Gtid", "Gtid_IO_Pos",
    "Replicate_Do_Domain_Ids", "Replicate_Ignore_Domain_Ids", "Parallel_Mode", "SQL_Delay",
    "SQL_Remaining_Delay", "Slave_SQL_Running_State", "Slave_DDL_Groups",
    "Slave_Non_Transactional_Groups", "Slave_Transactional_Groups", "Replicate_Rewrite_DB",
)
STATUS_COLUMNS = MARIADB_STATUS_COLUMNS + (
    "Master_UUID", "Master_Info_File", "Master_Retry_Count", "Master_Bind",
    "Last_IO_Error_Timestamp", "Last_SQL_Error_Timestamp", "Retrieved_Gtid_Set",
    "Executed_Gtid_Set", "Auto_Position", "Channel_Name", "Master_TLS_Version",
)
# SHOW ALL SLAVES STATUS: exactly MariaDB 10.11's, one row per connection (ours: the default one)
ALL_STATUS_COLUMNS = ("Connection_name", "Slave_SQL_State", *MARIADB_STATUS_COLUMNS) + (
    "Retried_transactions", "Max_relay_log_size", "Executed_log_entries",
    "Slave_received_heartbeats", "Slave_heartbeat_period", "Gtid_Slave_Pos",
)
USE_GTID = {"NO": "no", "SLAVE_POS": "slave_pos", "CURRENT_POS": "current_pos"}
# MASTER_USE_GTID of a new connection (MariaDB 10.10+, ../shared/INTERFACE.md): slave_pos
# unless a file/position is given
DEFAULT_USE_GTID = "slave_pos"
_USING_GTID = {"no": "No", "slave_pos": "Slave_Pos", "current_pos": "Current_Pos"}


class Replication:
    def __init__(
        self,
        *,
        datadir: Path,
        server_id: int,
        relay_basename: str,
        sync_relay_log: int,
        net_timeout: float,
        defaults: MasterInfo,
        engine: Any,
        delegate: BinlogRelayIODelegate,
        table_columns: Callable[[str, str], list[SlaveColumn] | None],
        make_context: Callable[..., Any],
        apply_user_statement: Callable[[str], Any] | None,
        after_ddl: Callable[[str, str | None], None] | None = None,
        report_port: Callable[[], int] = lambda: 0,
        fsync: Callable[[int], None] = os.fsync,
        max_relay_log_size: int = 1 << 30,
        commit_replicated: CommitReplicated | None = None,
        gtid_strict_mode: Callable[[], bool] = lambda: False,
        binlog_state: Callable[[], BinlogState] = BinlogState,
        binlog_recent: Callable[[int], Gtid | None] = lambda _domain: None,
        relay_log_purge: Callable[[], bool] = lambda: True,
        commit_wait: Callable[[], float] = lambda: 0.0,
        thread_id: Callable[[], int] = lambda: 0,
        load_rows: LoadRows | None = None,
    ) -> None:
        self.datadir = Path(datadir)
        self.server_id = server_id
        self.sync_relay_log = sync_relay_log
        self.net_timeout = net_timeout
        self.delegate = delegate
        self.report_port = report_port
        self.fsync = fsync
        self.max_relay_log_size = max_relay_log_size
        self.gtid_strict_mode = gtid_strict_mode
        self.binlog_state = binlog_state
        self.thread_id = thread_id
        self.info = master_info.load(self.datadir) or defaults
        self.relay = RelayLog(self.datadir, relay_basename, server_id)
        recovered = self.relay.recover()
        self.relay_resume = recovered.resume
        if recovered.truncated_bytes:
            log.info("relay log: cut %d bytes after the last complete transaction", recovered.truncated_bytes)
        self.engine = engine
        self.applier = Applier(
            engine, self.relay,
            table_columns=table_columns, make_context=make_context,
            apply_user_statement=apply_user_statement,
            after_ddl=after_ddl,
            master_clock_offset=lambda: self.io.master_clock_offset if self.io else 0.0,
            commit=commit_replicated,
            strict_mode=gtid_strict_mode, binlog_recent=binlog_recent, purge=relay_log_purge,
            commit_wait=commit_wait,
            sql_delay=lambda: self.info.sql_delay,
            clock_diff_with_master=lambda: self.io.clock_diff_with_master if self.io else 0,
            load_rows=load_rows,
        )
        # The SQL thread's stored position (@@gtid_slave_pos above all) from the start: the first
        # IO task asks by GTID from it before the SQL task has run (the relay log may hold no GTID).
        self.applier.load_position()
        self.io: IoTask | None = None
        self._io_task: asyncio.Task[None] | None = None
        self._sql_task: asyncio.Task[None] | None = None
        self.received_heartbeats = 0  # of earlier IO tasks (WL#342: reset by CHANGE MASTER)
        self.sent_acks = 0  # semi-sync acks of earlier IO tasks (Rpl_semi_sync_slave_send_ack)
        self._pending_meta: dict[str, Any] | None = None  # applier position to store after a reset
        self._temporary_ended = False  # a relay log reset: the replicated temporary tables go (`persist_reset`)
        self._last_io: tuple[int, str] = (0, "")
        self._persisting: asyncio.Task[None] | None = None  # SET GLOBAL gtid_slave_pos's commit
        # the running tasks' processlist ids and start times (loop clock): (id, since)
        self._io_thread: tuple[int, float] = (0, 0.0)
        self._sql_thread: tuple[int, float] = (0, 0.0)

    # -- state ------------------------------------------------------------------------------------
    @property
    def io_running(self) -> bool:
        return self._io_task is not None and not self._io_task.done()

    @property
    def sql_running(self) -> bool:
        return self._sql_task is not None and not self._sql_task.done()

    @property
    def heartbeats(self) -> int:
        return self.received_heartbeats + (self.io.received_heartbeats if self.io else 0)

    @property
    def acks(self) -> int:
        """The semi-sync acks the IO tasks sent."""
        return self.sent_acks + (self.io.acks_sent if self.io else 0)

    def start_position(self) -> BinlogPosition:
        if self.io is not None:
            return self.io.resume
        if self.relay_resume is not None:
            return self.relay_resume
        return BinlogPosition(self.info.log_file, self.info.log_pos if self.info.log_file else 4)

    # -- START / STOP -----------------------------------------------------------------------------
    @property
    def using_gtid(self) -> bool:
        return self.info.use_gtid != "no"

    def gtid_io_start(self) -> GtidPosition:
        """Where a new IO task asks by GTID: the SQL thread's position (@@gtid_slave_pos, or
        @@gtid_current_pos), each domain's last complete GTID in the relay log over it."""
        base = self.applier.gtid_slave_pos
        if self.info.use_gtid == "current_pos":
            base = current_pos(self.binlog_state(), base, self.server_id)
        for gtid in self.relay.gtids().values():
            base = base.with_gtid(gtid)
        return base

    def set_gtid_slave_pos(self, pos: GtidPosition) -> None:
        """SET GLOBAL gtid_slave_pos: both threads stopped (1198). The position is committed to
        the engine before the SQL thread can start again and before the SET's OK (`persisted`)."""
        if self.io_running or self.sql_running:
            raise SQLError(ER_SLAVE_MUST_STOP)
        meta = self.applier.set_gtid_slave_pos(pos)
        if self.using_gtid:
            self._drop_relay_log(self.applier.master_file, self.applier.master_pos)
            meta = self._pending_meta or meta
        self._pending_meta = meta
        self._persisting = asyncio.ensure_future(self.persist_reset())

    async def persisted(self) -> None:
        """Wait for the last `set_gtid_slave_pos` to be committed to the engine (its SET's OK
        waits here); a failed commit raises here, once. A cancelled waiter leaves the commit
        running."""
        persisting = self._persisting
        if persisting is not None:
            try:
                await asyncio.shield(persisting)
            finally:
                if persisting.done() and self._persisting is persisting:
                    self._persisting = None

    async def start(self, io: bool = True, sql: bool = True) -> None:
        if not self.info.configured:
            raise SQLError(ER_BAD_SLAVE)
        if self._persisting is not None:
            await self._persisting
            self._persisting = None
        if io and not self.io_running:
            if self.net_timeout < self.info.heartbeat_period:
                log.warning(
                    "slave_net_timeout (%gs) is less than MASTER_HEARTBEAT_PERIOD (%gs): the "
                    "slave will reconnect to an idle master", self.net_timeout, self.info.heartbeat_period,
                )
            if self.io is not None:
                self.received_heartbeats += self.io.received_heartbeats
                self.sent_acks += self.io.acks_sent
            settings = IoSettings(
                host=self.info.host or "", port=self.info.port, user=self.info.user,
                password=self.info.password, server_id=self.server_id,
                heartbeat_period=self.info.heartbeat_period, connect_retry=self.info.connect_retry,
                net_timeout=self.net_timeout, sync_relay_log=self.sync_relay_log,
                report_port=self.report_port(), max_relay_log_size=self.max_relay_log_size,
                ssl=bool(self.info.ssl), ssl_ca=self.info.ssl_ca,
                ssl_verify_server_cert=bool(self.info.ssl_verify_server_cert),
                use_gtid=self.using_gtid, gtid_strict_mode=self.gtid_strict_mode(),
            )
            io_pos = GtidPosition()
            if self.using_gtid:
                io_pos = self.io.io_pos if self.io is not None and self.io.settings.use_gtid else self.gtid_io_start()
            self.io = IoTask(
                settings, self.relay, self.delegate, self.start_position(),
                on_progress=self.applier.notify, fsync=self.fsync,
                io_pos=io_pos, rescan_io_pos=self.gtid_io_start if self.using_gtid else None,
            )
            self._io_task = asyncio.create_task(self.io.run(), name="slave-io")
            self._io_thread = (self.thread_id(), time.monotonic())
        # (after the IO thread: its id is the lower one, as a MariaDB replica's)
        if sql and not self.sql_running:
            self._sql_task = asyncio.create_task(self.applier.run(), name="slave-sql")
            self._sql_thread = (self.thread_id(), time.monotonic())

    async def stop(self, io: bool = True, sql: bool = True, timeout: float = 10.0) -> None:
        if self._persisting is not None:  # SET GLOBAL gtid_slave_pos's commit ends first
            await self._persisting
            self._persisting = None
        tasks = []
        if io and self._io_task is not None:
            assert self.io is not None
            self.io.stop()
            tasks.append(self._io_task)
        if sql and self._sql_task is not None:
            self.applier.stop()
            tasks.append(self._sql_task)
        if not tasks:
            return
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.wait(pending, timeout=2.0)
        if io:
            self._io_task = None
            if self.io is not None:
                self.relay_resume = self.io.resume
                try:
                    self._save_info(self.io.resume)
                except OSError as e:  # master.info keeps its older position; the relay log has the newer one
                    log.error("Failed to flush master info file: %s", e)
        if sql:
            self._sql_task = None

    def _save_info(self, position: BinlogPosition | None = None) -> None:
        if position is not None and position.file:
            self.info = self.info.with_changes(log_file=position.file, log_pos=position.pos)
        master_info.save(self.datadir, self.info)

    def _store_info(self, info: MasterInfo) -> None:
        """Make `info` the settings, master.info first: if it cannot be written, the statement
        fails with 1380 (mysqld's "Failed to flush master info file") and nothing changes."""
        try:
            master_info.save(self.datadir, info)
        except OSError as e:
            log.error("Failed to flush master info file: %s", e)
            raise SQLError(ER_RELAY_LOG_INIT, f"Failed to flush master info file ({e})") from None
        self.info = info

    # -- CHANGE MASTER / RESET --------------------------------------------------------------------
    def change_master(self, changes: dict[str, Any]) -> list[tuple[str, int, str]]:
        """CHANGE MASTER TO (both threads stopped: 1198); returns the notes MariaDB gives."""
        if self.io_running or self.sql_running:
            raise SQLError(ER_SLAVE_MUST_STOP)
        notes: list[tuple[str, int, str]] = []  # MariaDB 10.11's notes
        self._check_relay_position(changes)
        by_position = [option for option, field in (
            ("MASTER_LOG_FILE", "log_file"), ("MASTER_LOG_POS", "log_pos"),
            ("RELAY_LOG_FILE", "relay_log_file"), ("RELAY_LOG_POS", "relay_log_pos"),
        ) if field in changes]
        changes.pop("relay_log_file", None)  # checked above: the SQL thread stays where it is
        changes.pop("relay_log_pos", None)
        if by_position and changes.get("use_gtid", "no") != "no":  # by GTID: the position is ignored
            notes += [("Note", ER_WARN_OPTION_IGNORED.code, ER_WARN_OPTION_IGNORED.format(o)) for o in by_position]
            changes.pop("log_file", None)
            changes.pop("log_pos", None)
        elif by_position:
            if self.info.use_gtid != "no" and "use_gtid" not in changes:
                notes.append(("Note", ER_IMPLICIT_USING_GTID.code,
                              ER_IMPLICIT_USING_GTID.format("CHANGE MASTER TO", _USING_GTID[self.info.use_gtid], "No")))
            changes["use_gtid"] = "no"
        elif "use_gtid" not in changes and not self.info.configured:
            changes["use_gtid"] = DEFAULT_USE_GTID
        new_source = (
            "log_file" in changes or "log_pos" in changes
            or ("host" in changes and changes["host"] != self.info.host)
            or ("port" in changes and changes["port"] != self.info.port)
        )
        if new_source:
            if "log_file" not in changes:
                changes.setdefault("log_file", "")
                changes.setdefault("log_pos", 4)
            changes.setdefault("log_pos", 4)
        if "heartbeat_period" not in changes and new_source:
            changes["heartbeat_period"] = self.info.heartbeat_period
        self._store_info(self.info.with_changes(**changes))
        if new_source:
            self._drop_relay_log(changes.get("log_file", ""), int(changes.get("log_pos", 4)))
        self.received_heartbeats = 0
        if self.io is not None:
            self.io.received_heartbeats = 0
        return notes

    def _check_relay_position(self, changes: dict[str, Any]) -> None:
        """RELAY_LOG_FILE / RELAY_LOG_POS: only the SQL thread's own position (SHOW SLAVE STATUS's
        Relay_Log_File / Relay_Log_Pos), without a new master position; anything else is 1235.
        MariaDB purges the relay log at every CHANGE MASTER TO that names neither, and a failover
        tool lifting a delayed replica's MASTER_DELAY names them to keep it; here the relay log
        is kept unless the source changes, so they change nothing but Using_Gtid (as MariaDB's:
        a position in the relay log is a file/position setting, note 4190)."""
        if "relay_log_file" not in changes and "relay_log_pos" not in changes:
            return
        here = (self.applier.relay_file or (self.relay.current or ""), self.applier.relay_pos)
        wanted = (changes.get("relay_log_file", here[0]), changes.get("relay_log_pos", here[1]))
        if wanted != here or "log_file" in changes or "log_pos" in changes:
            raise SQLError(ER_NOT_SUPPORTED_YET,
                           "RELAY_LOG_FILE / RELAY_LOG_POS other than the SQL thread's position")

    def _drop_relay_log(self, master_file: str, master_pos: int) -> None:
        self.relay.reset()
        self.relay_resume = None
        self.io = None
        self._pending_meta = self.applier.reset_position(master_file, master_pos)
        self._temporary_ended = True

    async def persist_reset(self) -> None:
        """After a relay log reset: forget the applier position in the engine as well, and the
        replicated master threads' temporary tables (a new master's thread ids are not the old
        one's; MariaDB's replica closes them there too)."""
        meta = self._pending_meta
        if meta is not None:
            await self.applier.commit_position(meta)
            self._pending_meta = None
        if self._temporary_ended:
            await self.engine.drop_replicated_temporary()
            self._temporary_ended = False

    def reset(self, all_: bool, default_period: float) -> None:
        if self.io_running or self.sql_running:
            raise SQLError(ER_SLAVE_MUST_STOP)
        if self.delegate:
            param = self.io.param if self.io is not None else None
            if param is not None:
                self.delegate.after_reset_slave(param)
        self._drop_relay_log("", 0)
        self.received_heartbeats = 0
        if all_:
            master_info.remove(self.datadir)
            self.info = MasterInfo(heartbeat_period=default_period, connect_retry=self.info.connect_retry)
        else:
            # RESET SLAVE keeps the connection settings, forgets the position (MySQL 5.7) and
            # MASTER_DELAY (MariaDB's clear_sql_delay).
            self._store_info(self.info.with_changes(log_file="", log_pos=4, heartbeat_period=default_period,
                                                    sql_delay=0))

    # -- the processlist's replication threads -------------------------------------------------------
    def threads(self) -> list[tuple[int, str, float, str]]:
        """(id, command, start time on the monotonic clock, state) of each running thread."""
        rows = []
        if self.io_running and self.io is not None:
            rows.append((self._io_thread[0], "Slave_IO", self._io_thread[1], self.io.state))
        if self.sql_running:
            rows.append((self._sql_thread[0], "Slave_SQL", self._sql_thread[1], self.applier.state))
        return rows

    async def kill_thread(self, connection_id: int) -> bool:
        """KILL of a running thread's id: that thread stopped; False when no thread has it."""
        if self.io_running and self._io_thread[0] == connection_id:
            await self.stop(io=True, sql=False)
            return True
        if self.sql_running and self._sql_thread[0] == connection_id:
            await self.stop(io=False, sql=True)
            return True
        return False

    # -- SHOW SLAVE STATUS ------------------------------------------------------------------------
    def status_row(self) -> tuple[Any, ...] | None:
        values = self._status_values()
        return None if values is None else tuple(values[name] for name in STATUS_COLUMNS)

    def all_status_row(self) -> tuple[Any, ...] | None:
        """SHOW ALL SLAVES STATUS's row of the default connection."""
        values = self._status_values()
        if values is None:
            return None
        applier = self.applier
        values.update(
            Connection_name="",
            Slave_SQL_State=values["Slave_SQL_Running_State"],
            Retried_transactions=0,
            Max_relay_log_size=self.max_relay_log_size,
            Executed_log_entries=applier.executed_events,
            Slave_received_heartbeats=self.heartbeats,
            Slave_heartbeat_period=float(self.info.heartbeat_period),
            Gtid_Slave_Pos=str(applier.gtid_slave_pos),
        )
        return tuple(values[name] for name in ALL_STATUS_COLUMNS)

    def _status_values(self) -> dict[str, Any] | None:
        if not self.info.configured:
            return None
        io = self.io
        read = io.read_position if io is not None else self.start_position()
        applier = self.applier
        io_running = io.running if io is not None and self.io_running else "No"
        sql_running = "Yes" if self.sql_running else "No"
        relay_file = applier.relay_file or (self.relay.current or "")
        io_pos = GtidPosition()  # Gtid_IO_Pos: only by GTID
        if self.using_gtid:
            io_pos = io.io_pos if io is not None else self.gtid_io_start()
        values: dict[str, Any] = {name: "" for name in STATUS_COLUMNS}
        values.update(
            Slave_IO_State=io.state if io is not None and self.io_running else "",
            Master_Host=self.info.host,
            Master_User=self.info.user,
            Master_Port=self.info.port,
            Connect_Retry=_number(self.info.connect_retry),
            Master_Log_File=read.file,
            Read_Master_Log_Pos=read.pos,
            Relay_Log_File=relay_file,
            Relay_Log_Pos=applier.relay_pos,
            Relay_Master_Log_File=applier.master_file,
            Slave_IO_Running=io_running,
            Slave_SQL_Running=sql_running,
            Last_Errno=applier.last_errno,
            Last_Error=applier.last_error,
            Skip_Counter=0,
            Exec_Master_Log_Pos=applier.master_pos,
            Relay_Log_Space=self.relay.space(),
            Until_Condition="None",
            Until_Log_Pos=0,
            Master_SSL_Allowed="Yes" if self.info.ssl else "No",
            Master_SSL_CA_File=self.info.ssl_ca,
            Seconds_Behind_Master=applier.seconds_behind(io_running == "Yes"),
            Master_SSL_Verify_Server_Cert="Yes" if self.info.ssl_verify_server_cert else "No",
            Last_IO_Errno=io.last_errno if io is not None else 0,
            Last_IO_Error=io.last_error if io is not None else "",
            Last_SQL_Errno=applier.last_errno,
            Last_SQL_Error=applier.last_error,
            Master_Server_Id=io.master_server_id if io is not None else 0,
            Master_Info_File=str(self.datadir / master_info.FILE_NAME),
            SQL_Delay=self.info.sql_delay,
            SQL_Remaining_Delay=applier.remaining_delay(),
            Slave_SQL_Running_State=applier.state if self.sql_running else "",
            Master_Retry_Count=86400,
            Auto_Position=0,
            Using_Gtid=_USING_GTID.get(self.info.use_gtid, "No"),
            Gtid_IO_Pos=str(io_pos),
            Parallel_Mode="optimistic",  # MariaDB's default slave_parallel_mode (one SQL thread here)
            Slave_DDL_Groups=applier.ddl_groups,
            Slave_Non_Transactional_Groups=0,  # every table is transactional
            Slave_Transactional_Groups=applier.transactional_groups,
        )
        return values

    def status_variables(self) -> dict[str, Any]:
        return {
            "Slave_heartbeat_period": f"{self.info.heartbeat_period:.3f}",
            "Slave_received_heartbeats": self.heartbeats,
            "Rpl_semi_sync_slave_send_ack": self.acks,  # (MariaDB's: sent by the IO task, not the plugin)
            "Slave_running": "ON" if self.io_running and self.sql_running and self.io and self.io.running == "Yes" else "OFF",
            "Slave_last_heartbeat": (
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.io.last_heartbeat))
                if self.io is not None and self.io.last_heartbeat else ""
            ),
        }


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value
