"""`semisync slave`: the slave daemon. `run(config)` runs it in the foreground; `SlaveDaemon`
is the same thing for in-process use (tests).

Three lifecycle phases (STYLE.md habit 7)
- startup: open the engine (`<datadir>/db`), build the server shell with the slave role, load
  the semi-sync slave plugin (its `rpl_semi_sync_slave_enabled` from the configuration), bind,
  recover the relay log (torn tail / partial transaction cut off). With `--master-host` the
  connection settings of the configuration replace those of master.info (the position is kept)
  and replication starts at once; without it, a master.info from an earlier CHANGE MASTER TO
  starts replication too (mysqld without --skip-slave-start), otherwise the slave waits for
  CHANGE MASTER TO + START SLAVE.
- serve: until SIGTERM/SIGINT, which only set a flag.
- shutdown: stop accepting clients, stop the IO task and the applier (each finishes its current
  step; the relay log is cut back to a transaction boundary), close the engine, under a deadline.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from config.slave import SlaveConfig
from semisync.interface import ReplicationInterface
from server.daemon import run_foreground
from server.files import secure_datadir
from server.listener import Server
from slave.applier import SlaveColumn
from slave.master_info import MasterInfo
from slave.replication import STATUS_COLUMNS, Replication
from slave.role import SlaveRole

log = logging.getLogger("semisync.slave")

SERVER_VERSION = "5.5.5-10.11.99-semisync-log"
SLAVE_PLUGIN = "rpl_semi_sync_slave"


class SlaveDaemon:
    def __init__(self, config: SlaveConfig, *, fsync: Any = os.fsync, max_relay_log_size: int = 1 << 30) -> None:
        self.config = config
        self.fsync = fsync
        self.max_relay_log_size = max_relay_log_size
        self.engine: Any = None
        self.server: Server | None = None
        self.role: SlaveRole | None = None
        self.interface = ReplicationInterface()
        self.metrics: Any = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    @property
    def replication(self) -> Replication:
        assert self.role is not None and self.role.replication is not None
        return self.role.replication

    # -- startup ------------------------------------------------------------------------------
    async def start(self) -> None:
        from engine.core import Engine

        cfg = self.config
        datadir = Path(cfg.datadir)
        secure_datadir(datadir)  # before any file in it is opened: 0700, files 0600
        self.engine = await Engine.open(datadir / "db")
        self.role = SlaveRole(
            self._make_replication, sync_relay_log=cfg.sync_relay_log, relay_log=cfg.relay_log,
            net_timeout=cfg.slave_net_timeout,
        )
        self.server = Server.for_daemon(
            self.role,
            cfg,
            server_version=SERVER_VERSION,
            engine=self.engine,
            interface=self.interface,
            plugin_options={"settings": {"rpl_semi_sync_slave_enabled": cfg.rpl_semi_sync_slave_enabled}},
        )
        self.server.plugins.load(SLAVE_PLUGIN)
        await self.server.start()
        if cfg.metrics_port:
            await self._start_metrics(cfg.bind_address, cfg.metrics_port)
        rep = self.replication
        if cfg.master_host:
            changes = {
                "host": cfg.master_host, "port": cfg.master_port, "user": cfg.master_user,
                "password": cfg.master_password, "heartbeat_period": cfg.master_heartbeat_period,
                "connect_retry": cfg.master_connect_retry,
            }
            if rep.info.host != cfg.master_host or rep.info.port != cfg.master_port:
                rep.change_master(changes)
                await rep.persist_reset()
            else:
                rep.info = rep.info.with_changes(**changes)
        if rep.info.configured:
            await rep.start()

    async def _start_metrics(self, bind: str, port: int) -> None:
        """Prometheus `GET /metrics`: status and variables as mysqld_exporter names them, and
        the numeric SHOW SLAVE STATUS columns."""
        from server.metrics import MetricsServer, build_registry

        server = self.server
        assert server is not None

        def slave_status() -> dict[str, Any] | None:
            row = self.replication.status_row()
            return None if row is None else dict(zip(STATUS_COLUMNS, row, strict=True))

        registry, _ = build_registry(
            server.variables.status,
            lambda: server.variables.show_variables(None, None, None),
            slave_status,
        )
        self.metrics = MetricsServer(registry, bind, port)
        await self.metrics.start()

    def _make_replication(self, server: Server) -> Replication:
        cfg = self.config
        engine = self.engine

        def table_columns(db: str, name: str) -> list[SlaveColumn] | None:
            table = engine.table(db, name)
            if table is None:
                return None
            pk = {c.lower() for c in table.primary.columns} if table.primary is not None else set()
            return [
                SlaveColumn(c.name, c.base.lower(), bool(c.unsigned), tuple(c.args or ()), c.name.lower() in pk)
                for c in table.columns
            ]

        from engine.results import StatementContext

        def make_context(**kw: Any) -> Any:
            return StatementContext(**kw)

        return Replication(
            datadir=Path(cfg.datadir),
            server_id=cfg.server_id,
            relay_basename=cfg.relay_log,
            sync_relay_log=cfg.sync_relay_log,
            net_timeout=cfg.slave_net_timeout,
            defaults=MasterInfo(
                host=cfg.master_host, port=cfg.master_port, user=cfg.master_user,
                password=cfg.master_password, heartbeat_period=cfg.master_heartbeat_period,
                connect_retry=cfg.master_connect_retry,
            ),
            engine=engine,
            delegate=self.interface.relay_io,
            table_columns=table_columns,
            make_context=make_context,
            apply_user_statement=server.apply_user_statement,
            report_port=lambda: server.port,
            fsync=self.fsync,
            max_relay_log_size=self.max_relay_log_size,
        )

    # -- serve / shutdown ---------------------------------------------------------------------------
    async def serve_until_shutdown(self) -> None:
        assert self.server is not None
        await self.server.serve_until_shutdown()

    def request_shutdown(self) -> None:
        if self.server is not None:
            self.server.request_shutdown()

    async def shutdown(self, timeout: float = 10.0) -> None:
        if self.metrics is not None:
            await self.metrics.stop()
            self.metrics = None
        if self.server is not None:
            await self.server.shutdown(timeout)  # stops the role: IO task and applier
            self.server.plugins.shutdown()
        if self.engine is not None:
            await self.engine.close()
            self.engine = None


def run(config: SlaveConfig) -> None:
    """Run the slave in the foreground until SIGTERM/SIGINT."""
    daemon = SlaveDaemon(config)
    run_foreground(daemon, lambda: f"slave listening on {config.bind_address}:{daemon.port}")
