"""The one server that `semisync master` and `semisync slave` run. `run(config)` runs it in the
foreground; `NodeDaemon` is the same thing for in-process use (tests).

Both commands are presets of `config.node.NodeConfig` (config/master.py, config/slave.py): the
daemon never asks which one started it. Every server has a source side and a replica side
(node/role.py), both semi-sync plugins loaded, and its own binlog. The replica side's applier
commits through the source side's group commit (`GroupCommit.commit_replicated`), which
binlogs the replicated transactions when --log-slave-updates is ON.

Three lifecycle phases (STYLE.md habit 7)
- startup: open the engine (`<datadir>/db`), crash recovery of the binlog (`master.recovery`:
  torn tail and incomplete transaction cut from the binlog, complete ones the engine lacks
  replayed; with `--init-rpl-role SLAVE` cut off instead, all of them), the binlog's GTID
  state rebuilt from what recovery left (`master.gtid_state`),
  open the binlog on a new file (as mysqld does at every start) and store the
  engine's place in it (the applier's stored position kept: the engine merges meta keys), build
  the server shell with the node role and the replication interface, load both semi-sync
  plugins (MariaDB's built-ins; their variables from the configuration), bind and serve;
  Prometheus metrics on --metrics-port. Then the replica side: the relay log was recovered when
  the role started (torn tail / partial transaction cut off); with `--master-host` the
  connection settings of the configuration replace those of master.info (the position is kept)
  and replication starts at once; without it, a master.info from an earlier CHANGE MASTER TO
  starts replication too (mysqld without --skip-slave-start), otherwise the replica side waits
  for CHANGE MASTER TO + START SLAVE.
- serve: until SIGTERM/SIGINT, whose handlers only request the shutdown.
- shutdown (bounded by deadlines): stop accepting and close idle connections; commits waiting
  for semi-sync acks get up to rpl_semi_sync_master_timeout while the dump connections stay
  open (MariaDB's MDEV-11853), then the master plugin releases the rest in doubt: their clients
  get ER_SERVER_SHUTDOWN, never OK (Percona's PS-9916); dump connections are closed, busy
  sessions finish their statement within SHUTDOWN_TIMEOUT; the IO task and the applier stop
  (each finishes its current step; the relay log is cut back to a transaction boundary); the
  commit pipeline drains; the binlog is flushed, fsynced and closed (its in-use flag cleared);
  the engine is closed.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from pathlib import Path
from typing import Any

from binlog.index import read_index
from binlog.writer import BinlogWriter
from config.node import BinlogChecksum, InitRplRole, NodeConfig
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from master.gtid_state import BinlogGtids, read_binlog_state
from master.recovery import RecoveryError, recover
from master.role import MasterRole
from node.role import NodeRole
from semisync.interface import ReplicationInterface
from server.daemon import run_foreground
from server.files import secure_datadir
from server.listener import Server
from server.load_data import replicated_load
from server.routines import after_replicated_ddl
from slave.applier import SlaveColumn
from slave.master_info import MasterInfo
from slave.replication import DEFAULT_USE_GTID, STATUS_COLUMNS, Replication
from slave.role import SlaveRole

log = logging.getLogger("semisync.node")

# "MariaDB" in the greeting's version is how clients tell a MariaDB server (MaxScale's monitor,
# server.cc: a case-insensitive "mariadb" makes it manage GTIDs, SHOW ALL SLAVES STATUS, failover
# and switchover; Connector/C's mariadb_connection(); SQLAlchemy's MariaDB dialect, which then
# sends INSERT/DELETE ... RETURNING). The "5.5.5-" prefix is MariaDB's replication hack that
# every client strips; the binlog's format description carries the version without it.
SERVER_VERSION = "5.5.5-10.11.99-MariaDB-semisync-log"
BINLOG_SERVER_VERSION = "10.11.99-MariaDB-semisync-log"
MASTER_PLUGIN = "rpl_semi_sync_master"
SLAVE_PLUGIN = "rpl_semi_sync_slave"
SHUTDOWN_TIMEOUT = 10.0


def plugin_settings(config: NodeConfig) -> dict[str, Any]:
    """Start-up values of both plugins' variables (each plugin takes the names it knows)."""
    return {
        "rpl_semi_sync_master_enabled": config.rpl_semi_sync_master_enabled,
        "rpl_semi_sync_master_timeout": config.rpl_semi_sync_master_timeout,
        "rpl_semi_sync_master_wait_for_slave_count": config.rpl_semi_sync_master_wait_for_slave_count,
        "rpl_semi_sync_master_wait_no_slave": config.rpl_semi_sync_master_wait_no_slave,
        "rpl_semi_sync_master_wait_point": str(config.rpl_semi_sync_master_wait_point),
        "rpl_semi_sync_master_trace_level": config.rpl_semi_sync_master_trace_level,
        "rpl_semi_sync_slave_enabled": config.rpl_semi_sync_slave_enabled,
    }


class NodeDaemon:
    def __init__(self, config: NodeConfig, *, fsync: Any = os.fsync, max_relay_log_size: int = 1 << 30) -> None:
        self.config = config
        self.fsync = fsync  # the relay log's (tests count or fail it)
        self.max_relay_log_size = max_relay_log_size
        self.interface = ReplicationInterface()
        self.engine: Any = None
        self.writer: BinlogWriter | None = None
        self.server: Server | None = None
        self.role: NodeRole | None = None
        self.pipeline: GroupCommit | None = None
        self.metrics: Any = None
        self._metric_series: Any = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    @property
    def plugin(self) -> Any:
        """The semi-sync master plugin (None once uninstalled)."""
        assert self.server is not None
        return self.server.plugins.get(MASTER_PLUGIN)

    @property
    def replication(self) -> Replication:
        assert self.role is not None and self.role.replica.replication is not None
        return self.role.replica.replication

    # -- startup --------------------------------------------------------------------------------

    async def start(self) -> None:
        from engine.connections import DatadirInUse
        from engine.core import Engine

        cfg = self.config
        datadir = Path(cfg.datadir)
        secure_datadir(datadir)  # before any file in it is opened: 0700, files 0600
        # NORMAL: the group commit skips the engine's fsync of a group its binlog fsynced
        # (the temporary tables a crash left: what recovery's replay may use, dropped by it)
        try:
            self.engine = await Engine.open(datadir / "db", synchronous="NORMAL", keep_left_temporary=True)
        except DatadirInUse as exc:
            log.critical("%s", exc)
            raise SystemExit(1) from None
        try:
            await recover(  # logs what it did
                self.engine, datadir, cfg.log_bin, truncate_uncommitted=cfg.init_rpl_role == InitRplRole.SLAVE,
            )
        except RecoveryError as exc:
            log.critical("crash recovery failed: %s", exc)
            raise SystemExit(1) from None
        # the binlog's GTID state as recovery left the files: the new file's GTID_LIST lists it
        state = await asyncio.to_thread(read_binlog_state, datadir, read_index(datadir, cfg.log_bin))
        gtids = BinlogGtids(state, domain_id=cfg.gtid_domain_id, strict_mode=cfg.gtid_strict_mode)
        writer = self.writer = BinlogWriter(
            datadir, cfg.log_bin, server_id=cfg.server_id,
            checksum=cfg.binlog_checksum == BinlogChecksum.CRC32,
            max_size=cfg.max_binlog_size, server_version=BINLOG_SERVER_VERSION,
            header=gtids.header_events,
        )
        await asyncio.to_thread(writer.open, True)
        end = BinlogEnd(writer.end_position)
        # After recovery the engine holds everything the binlog has: its place is the new file's
        # start (also for a fresh engine, or a binlog directory that was emptied by hand).
        async with self.engine.writer_lock:
            await self.engine.commit_group({"binlog_file": end.position.file, "binlog_pos": str(end.position.pos)})
        self.pipeline = GroupCommit(
            self.engine, writer, end, self.interface, server_id=cfg.server_id,
            sync_binlog=lambda: cfg.sync_binlog, gtids=gtids,  # until the role below owns them
        )
        source = MasterRole(
            writer=writer, end=end, pipeline=self.pipeline, interface=self.interface,
            server_id=cfg.server_id, checksum=writer.checksum, sync_binlog=cfg.sync_binlog,
            binlog_error_action=str(cfg.binlog_error_action), gtids=gtids,
        )
        # SET GLOBAL sync_binlog / binlog_error_action land in the role: the pipeline asks the
        # role's own methods (bound: no frame between, sync_binlog is asked once per group)
        self.pipeline.sync_binlog = source.sync_binlog
        self.pipeline.binlog_error_action = source.binlog_error_action
        replica = SlaveRole(
            self._make_replication, sync_relay_log=cfg.sync_relay_log, relay_log=cfg.relay_log,
            net_timeout=cfg.slave_net_timeout, relay_log_purge=cfg.relay_log_purge,
            commit_wait_usec=cfg.slave_commit_wait_usec,
        )
        self.role = NodeRole(source, replica, read_only=cfg.read_only, log_slave_updates=cfg.log_slave_updates,
                             init_rpl_role=str(cfg.init_rpl_role))
        self.server = Server.for_daemon(
            self.role,
            cfg,
            server_version=SERVER_VERSION,
            engine=self.engine,
            interface=self.interface,
            # Every instance of the plugins (also one made by INSTALL PLUGIN) reports to metrics;
            # without them an ack's round trip goes nowhere (no call per ack).
            plugin_options={
                "settings": plugin_settings(cfg),
                "on_ack_round_trip": self._ack_round_trip if cfg.metrics_port else None,
                "on_status_change": self._status_changed,
            },
        )
        self.server.plugins.load(MASTER_PLUGIN)
        self.server.plugins.load(SLAVE_PLUGIN)
        await self.server.start()
        if cfg.metrics_port:
            await self._start_metrics(cfg.bind_address, cfg.metrics_port)
        await self._start_replica()

    async def _start_replica(self) -> None:
        cfg = self.config
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
        """Prometheus `GET /metrics`: status and variables as mysqld_exporter names them, the
        commit wait histogram, each slave's acked position and semi-sync ON/OFF switches, and
        the numeric SHOW SLAVE STATUS columns."""
        from protocol.position import file_sequence
        from server.metrics import MetricsServer, build_registry

        server, role, pipeline = self.server, self.role, self.pipeline
        assert server is not None and role is not None and pipeline is not None

        def slave_status() -> dict[str, Any] | None:
            row = self.replication.status_row()
            return None if row is None else dict(zip(STATUS_COLUMNS, row, strict=True))

        registry, series = build_registry(
            server.variables.status, lambda: server.variables.show_variables(None, None, None), slave_status,
        )

        def group_waited(seconds: float) -> None:
            series.commit_wait.observe(seconds)

        def acked(server_id: int, position: Any) -> None:
            series.acked_pos.labels(str(server_id)).set(position.pos)
            series.acked_file.labels(str(server_id)).set(file_sequence(position.file)[1])

        pipeline.on_group_waited = group_waited
        role.source.acks.on_ack = acked
        self._metric_series = series
        self.metrics = MetricsServer(registry, bind, port)
        await self.metrics.start()

    def _ack_round_trip(self, server_id: int, seconds: float) -> None:
        if self._metric_series is not None:
            self._metric_series.ack_latency.labels(str(server_id)).observe(seconds)

    def _status_changed(self, on: bool) -> None:
        if self._metric_series is not None:
            self._metric_series.transitions.labels("on" if on else "off").inc()

    def _make_replication(self, server: Server) -> Replication:
        cfg = self.config
        engine = self.engine
        assert self.pipeline is not None
        gtids = self.pipeline.gtids

        def table_columns(db: str, name: str) -> list[SlaveColumn] | None:
            table = engine.table(db, name)
            if table is None:
                return None
            pk = {c.lower() for c in table.primary.columns} if table.primary is not None else set()
            return [
                SlaveColumn(c.name, c.base.lower(), bool(c.unsigned), tuple(c.args or ()), c.name.lower() in pk,
                            c.generated is not None)
                for c in table.columns
            ]

        from engine.results import StatementContext

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
                use_gtid=DEFAULT_USE_GTID if cfg.master_host else "no",
            ),
            engine=engine,
            delegate=self.interface.relay_io,
            table_columns=table_columns,
            make_context=StatementContext,  # (called per replicated statement: no frame around it)
            apply_user_statement=server.apply_user_statement,
            after_ddl=functools.partial(after_replicated_ddl, server),
            report_port=lambda: server.port,
            fsync=self.fsync,
            max_relay_log_size=self.max_relay_log_size,
            # the applier's commit: the group commit, binlogging them when log_slave_updates is ON
            commit_replicated=functools.partial(self.pipeline.commit_replicated, log_bin=self.config.log_slave_updates),
            gtid_strict_mode=lambda: gtids.strict_mode,
            binlog_state=lambda: gtids.state.copy(),
            # the strict check against the binlog: only what the applier logs there
            binlog_recent=gtids.state.most_recent if cfg.log_slave_updates else lambda _domain: None,
            relay_log_purge=self._relay_log_purge,
            commit_wait=self._commit_wait,
            thread_id=server.next_connection_id,
            load_rows=lambda sql, db, data, mode: replicated_load(engine, sql, db, data, mode),
        )

    def _commit_wait(self) -> float:
        """@@slave_commit_wait_usec in seconds, the replica side's variable, as the applier reads it."""
        assert self.role is not None
        return self.role.replica.commit_wait()

    def _relay_log_purge(self) -> bool:
        """@@relay_log_purge, the replica side's variable, as the applier reads it."""
        assert self.role is not None
        return self.role.replica.relay_log_purge

    # -- serve / shutdown -----------------------------------------------------------------------

    async def serve_until_shutdown(self) -> None:
        assert self.server is not None
        await self.server.serve_until_shutdown()

    def request_shutdown(self) -> None:
        if self.server is not None:
            self.server.request_shutdown()

    async def shutdown(self, timeout: float = SHUTDOWN_TIMEOUT) -> None:
        if self.metrics is not None:
            await self.metrics.stop()
            self.metrics = None
        if self.server is not None:
            plugin = self.plugin
            # Commits waiting for acks get up to rpl_semi_sync_master_timeout while the dump
            # connections stay open; the plugin then releases the rest in doubt (ER_SERVER_SHUTDOWN).
            drain = plugin.shutdown if plugin is not None and hasattr(plugin, "shutdown") else None
            await self.server.shutdown(timeout, drain=drain)  # stops the role: IO task, applier, dumps
            self.server.plugins.shutdown()
            self.server = None
        if self.pipeline is not None:
            await self.pipeline.wait_idle(timeout)
            if self.pipeline.in_doubt:
                log.error("shutdown: %d commit(s) left in doubt: durable in the binlog, acked by no slave, "
                          "their clients got ER_SERVER_SHUTDOWN (1053)", self.pipeline.in_doubt)
            self.pipeline.close()
            self.pipeline = None
        if self.writer is not None:
            await asyncio.to_thread(self.writer.close)
            self.writer = None
        if self.engine is not None:
            await self.engine.close()
            self.engine = None


def run(config: NodeConfig) -> None:
    """Run the server in the foreground until SIGTERM/SIGINT."""
    daemon = NodeDaemon(config)
    run_foreground(
        daemon,
        lambda: f"listening on {config.bind_address}:{daemon.port} "
        f"(binlog {daemon.writer.end_position if daemon.writer else '?'}, read_only "
        f"{'ON' if config.read_only else 'OFF'})",
    )
