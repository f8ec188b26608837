"""`Replication`: the slave's replication state - master.info, the relay log, the IO task and
the applier - and the operations the SQL surface (slave/role.py) and the daemon call.

Contract
- Owned by the event loop; every method is called from it. START/STOP SLAVE start and stop the
  two tasks; CHANGE MASTER TO and RESET SLAVE require both stopped (ER_SLAVE_MUST_STOP 1198).
- Where the IO task starts (the resume rule of slave/relay_log.py): the position after the last
  complete transaction in the relay log; when the relay log holds none of the master's events,
  master.info's MASTER_LOG_FILE/POS (from CHANGE MASTER TO; the master's first binlog if empty).
- CHANGE MASTER TO with MASTER_LOG_FILE/POS, or a change of MASTER_HOST/PORT, starts over: the
  relay log is deleted (as mysqld does) and the applier continues from the new relay log.
- `rpl_semi_sync_slave_enabled` is read by the semi-sync plugin at each IO task start.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.errors import ER_BAD_SLAVE, ER_RELAY_LOG_INIT, ER_SLAVE_MUST_STOP, SQLError
from protocol.position import BinlogPosition
from semisync.interface import BinlogRelayIODelegate
from slave import master_info
from slave.applier import Applier, CommitReplicated, SlaveColumn
from slave.io_task import IoSettings, IoTask
from slave.master_info import MasterInfo
from slave.relay_log import RelayLog

log = logging.getLogger("semisync.slave")

STATUS_COLUMNS = (
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
    "Master_UUID", "Master_Info_File", "SQL_Delay", "SQL_Remaining_Delay",
    "Slave_SQL_Running_State", "Master_Retry_Count", "Master_Bind", "Last_IO_Error_Timestamp",
    "Last_SQL_Error_Timestamp", "Master_SSL_Crl", "Master_SSL_Crlpath", "Retrieved_Gtid_Set",
    "Executed_Gtid_Set", "Auto_Position", "Replicate_Rewrite_DB", "Channel_Name",
    "Master_TLS_Version",
)


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
        report_port: Callable[[], int] = lambda: 0,
        fsync: Callable[[int], None] = os.fsync,
        max_relay_log_size: int = 1 << 30,
        commit_replicated: CommitReplicated | None = None,
    ) -> None:
        self.datadir = Path(datadir)
        self.server_id = server_id
        self.sync_relay_log = sync_relay_log
        self.net_timeout = net_timeout
        self.delegate = delegate
        self.report_port = report_port
        self.fsync = fsync
        self.max_relay_log_size = max_relay_log_size
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
            master_clock_offset=lambda: self.io.master_clock_offset if self.io else 0.0,
            commit=commit_replicated,
        )
        self.io: IoTask | None = None
        self._io_task: asyncio.Task[None] | None = None
        self._sql_task: asyncio.Task[None] | None = None
        self.received_heartbeats = 0  # of earlier IO tasks (WL#342: reset by CHANGE MASTER)
        self._pending_meta: dict[str, Any] | None = None  # applier position to store after a reset
        self._last_io: tuple[int, str] = (0, "")

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

    def start_position(self) -> BinlogPosition:
        if self.io is not None:
            return self.io.resume
        if self.relay_resume is not None:
            return self.relay_resume
        return BinlogPosition(self.info.log_file, self.info.log_pos if self.info.log_file else 4)

    # -- START / STOP -----------------------------------------------------------------------------
    async def start(self, io: bool = True, sql: bool = True) -> None:
        if not self.info.configured:
            raise SQLError(ER_BAD_SLAVE)
        if sql and not self.sql_running:
            self._sql_task = asyncio.create_task(self.applier.run(), name="slave-sql")
        if io and not self.io_running:
            if self.net_timeout < self.info.heartbeat_period:
                log.warning(
                    "slave_net_timeout (%gs) is less than MASTER_HEARTBEAT_PERIOD (%gs): the "
                    "slave will reconnect to an idle master", self.net_timeout, self.info.heartbeat_period,
                )
            if self.io is not None:
                self.received_heartbeats += self.io.received_heartbeats
            settings = IoSettings(
                host=self.info.host or "", port=self.info.port, user=self.info.user,
                password=self.info.password, server_id=self.server_id,
                heartbeat_period=self.info.heartbeat_period, connect_retry=self.info.connect_retry,
                net_timeout=self.net_timeout, sync_relay_log=self.sync_relay_log,
                report_port=self.report_port(), max_relay_log_size=self.max_relay_log_size,
                ssl=bool(self.info.ssl), ssl_ca=self.info.ssl_ca,
                ssl_verify_server_cert=bool(self.info.ssl_verify_server_cert),
            )
            self.io = IoTask(
                settings, self.relay, self.delegate, self.start_position(),
                on_progress=self.applier.notify, fsync=self.fsync,
            )
            self._io_task = asyncio.create_task(self.io.run(), name="slave-io")

    async def stop(self, io: bool = True, sql: bool = True, timeout: float = 10.0) -> None:
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
    def change_master(self, changes: dict[str, Any]) -> None:
        if self.io_running or self.sql_running:
            raise SQLError(ER_SLAVE_MUST_STOP)
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

    def _drop_relay_log(self, master_file: str, master_pos: int) -> None:
        self.relay.reset()
        self.relay_resume = None
        self.io = None
        self._pending_meta = self.applier.reset_position(master_file, master_pos)

    async def persist_reset(self) -> None:
        """After a relay log reset: forget the applier position in the engine as well."""
        meta = self._pending_meta
        if meta is not None:
            await self.applier.commit_position(meta)
            self._pending_meta = None

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
            # RESET SLAVE keeps the connection settings, forgets the position (MySQL 5.7).
            self._store_info(self.info.with_changes(log_file="", log_pos=4, heartbeat_period=default_period))

    # -- SHOW SLAVE STATUS ------------------------------------------------------------------------
    def status_row(self) -> tuple[Any, ...] | None:
        if not self.info.configured:
            return None
        io = self.io
        read = io.read_position if io is not None else self.start_position()
        applier = self.applier
        io_running = io.running if io is not None and self.io_running else "No"
        sql_running = "Yes" if self.sql_running else "No"
        relay_file = applier.relay_file or (self.relay.current or "")
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
            SQL_Delay=0,
            SQL_Remaining_Delay=None,
            Slave_SQL_Running_State=(
                "Slave has read all relay log; waiting for more updates" if self.sql_running else ""
            ),
            Master_Retry_Count=86400,
            Auto_Position=0,
        )
        return tuple(values[name] for name in STATUS_COLUMNS)

    def status_variables(self) -> dict[str, Any]:
        return {
            "Slave_heartbeat_period": f"{self.info.heartbeat_period:.3f}",
            "Slave_received_heartbeats": self.heartbeats,
            "Slave_running": "ON" if self.io_running and self.sql_running and self.io and self.io.running == "Yes" else "OFF",
            "Slave_last_heartbeat": (
                time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.io.last_heartbeat))
                if self.io is not None and self.io.last_heartbeat else ""
            ),
        }


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value
