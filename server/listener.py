"""The server: one listening socket, its client sessions, and the shared registries.

Contract (three lifecycle phases, STYLE.md habit 7)
- `Server(...)` builds the registries (variables, users, plugins, processlist) and attaches the
  role; nothing is bound and no task runs yet.
- `await start()` binds (port 0 picks a free port; `server.port` is the real one), reinstalls
  the plugins persisted by earlier INSTALL PLUGIN, awaits `role.start()`, then accepts clients.
- Serving: every accepted socket gets a `ClientSession` (server/session.py). Connection ids are
  unique for the server's lifetime. `request_shutdown()` only sets a flag (safe from a signal
  handler registered with loop.add_signal_handler, and used by the SHUTDOWN statement);
  `await serve_until_shutdown()` returns when it is set. Idle sessions are closed after their
  wait_timeout by a once-a-second sweep.
- `await shutdown(timeout, drain=None)`: stop accepting; idle sessions are closed at once;
  then `await drain()` when given (the master's semi-sync wait for acks: MariaDB's shutdown
  phase 1 leaves the sessions waiting for acks and the dump connections alone, MDEV-11853), so
  connections a role took over (dumps) stay open until it returns and are closed then; busy
  sessions get until the deadline (now + timeout, counted after the drain) to finish their
  statement (a new command gets ER_SERVER_SHUTDOWN); then the rest are killed (a statement in
  a role is cancelled, one in the engine or in role.commit completes); finally
  `role.shutdown(deadline)` with the same absolute loop.time() deadline. The engine and the
  plugins belong to the caller and stay open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from semisync.interface import ReplicationInterface
from server import core_variables
from server.admin import Admin
from server.connection_control import ConnectionControl
from server.core_variables import COM_BY_KEYWORD
from server.file_statements import FileAccess
from server.plugins import PluginManager
from server.query_logs import QueryLogs, header
from server.role import Role
from server.session import ClientSession
from server.tls import certificate_files, server_context
from server.transactions import TransactionIds
from server.users import UserStore
from server.variables import Variables

log = logging.getLogger("semisync.server")

DEFAULT_MAX_ALLOWED_PACKET = 16 << 20  # 16 MiB, MariaDB 10.11's default
DEFAULT_MAX_CONNECT_ERRORS = 100  # as MariaDB
IDLE_SWEEP_SECONDS = 1.0


def _version_number(server_version: str) -> int:
    """10.11.99 for "5.5.5-10.11.99-MariaDB-semisync-log" -> 101199, as executable comments compare."""
    text = server_version.removeprefix("5.5.5-")
    parts = (text.split("-", 1)[0].split(".") + ["0", "0"])[:3]
    try:
        major, minor, patch = (int("".join(c for c in p if c.isdigit()) or 0) for p in parts)
    except ValueError:
        return 0
    return major * 10000 + minor * 100 + patch


# SHOW GLOBAL / SESSION / LOCAL <what>: the word after the scope (comments around it skipped)
_SCOPES = frozenset({"SHOW GLOBAL", "SHOW SESSION", "SHOW LOCAL"})
_SCOPED_SHOW = re.compile(r"(?is)(?:\s|/\*.*?\*/)*show\b(?:\s|/\*.*?\*/)*(?:global|session|local)\b(?:\s|/\*.*?\*/)*(\w+)")


# A statement's head (`sqltext.head`: two words) -> its Com_ counter: COM_BY_KEYWORD's, and the
# heads counted by their first word as they are first met (up to _COM_HEADS_MAX of them, so that
# clients naming ever new tables cannot grow it; past that a head is resolved each time)
_COM_BY_HEAD = dict(COM_BY_KEYWORD)
_COM_HEADS_MAX = len(COM_BY_KEYWORD) + 1024


def _com_name(keyword: str, sql: str) -> str | None:
    """The Com_ counter of a statement headed `keyword` that is not a key of `_COM_BY_HEAD`:
    SHOW GLOBAL / SESSION / LOCAL by the word after the scope (read from `sql`), any other by
    its first word (and then kept in `_COM_BY_HEAD`); None: not counted."""
    first = keyword.partition(" ")[0]
    if keyword in _SCOPES:  # (never kept: the counter is the next word's)
        shown = _SCOPED_SHOW.match(sql)
        return COM_BY_KEYWORD.get(first if shown is None else f"SHOW {shown.group(1).upper()}")
    name = COM_BY_KEYWORD.get(first)
    if name is not None and len(_COM_BY_HEAD) < _COM_HEADS_MAX:
        _COM_BY_HEAD[keyword] = name
    return name


class ComCounts(dict[str, int]):
    """The Com_ counters by name, 0 for one never counted. Not a `collections.Counter`: that
    class defines `__delitem__` in Python, which makes every `com[name] += 1` store through a
    Python-level slot (twice the cost of a dict's store; a kept read counts two)."""

    __slots__ = ()

    def __missing__(self, name: str) -> int:
        return 0


class ServerStats:
    """Counters behind the core status variables (plain ints: only the loop thread writes)."""

    __slots__ = ("started", "questions", "connections", "aborted_connects", "aborted_clients",
                 "bytes_received", "bytes_sent", "errors", "com", "max_used_connections",
                 "max_statement_time_exceeded", "slow_queries")

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.questions = 0
        self.connections = 0
        self.aborted_connects = 0
        self.aborted_clients = 0
        self.bytes_received = 0
        self.bytes_sent = 0
        self.errors = 0
        self.max_used_connections = 0
        self.max_statement_time_exceeded = 0
        self.slow_queries = 0  # statements over their session's long_query_time (Slow_queries)
        self.com = ComCounts()

    @staticmethod
    def com_name(keyword: str) -> str | None:
        """The Com_ counter `count_command(keyword)` moves (None: none), for a caller that counts
        the same statement's executions itself (a kept prepared read's)."""
        name = _COM_BY_HEAD.get(keyword)
        return name if name is not None else _com_name(keyword, "")

    def count_command(self, keyword: str, sql: str = "") -> None:
        """Count a statement under its Com_ name (unknown statements are not counted, so
        that clients cannot grow the table); SHOW GLOBAL / SESSION / LOCAL STATUS and
        VARIABLES by the word after the scope, read from `sql`, as mysqld counts them."""
        name = _COM_BY_HEAD.get(keyword)
        if name is None:
            name = _com_name(keyword, sql)
            if name is None:
                return
        self.com[name] += 1

    def flush(self) -> None:
        """FLUSH STATUS: reset the counters mysqld resets (not Uptime, Connections)."""
        self.questions = 0
        self.bytes_received = 0
        self.bytes_sent = 0
        self.errors = 0
        self.aborted_clients = 0
        self.aborted_connects = 0
        self.max_statement_time_exceeded = 0
        self.slow_queries = 0
        self.com.clear()


class Server:
    def __init__(
        self,
        role: Role,
        *,
        bind_address: str,
        port: int,
        server_id: int,
        datadir: Path,
        root_password: str,
        server_version: str,
        engine: Any,
        interface: ReplicationInterface,
        max_allowed_packet: int = DEFAULT_MAX_ALLOWED_PACKET,
        plugin_options: Mapping[str, Any] | None = None,
        max_connect_errors: int = DEFAULT_MAX_CONNECT_ERRORS,
        tls: bool = False,
        ssl_cert: Path | None = None,
        ssl_key: Path | None = None,
        ssl_ca: Path | None = None,
        require_secure_transport: bool = False,
        secure_file_priv: str | None = None,
    ) -> None:
        self.role = role
        self.bind_address = bind_address
        self.port = port
        self.server_id = server_id
        self.datadir = Path(datadir)
        self.server_version = server_version
        self.version_number = _version_number(server_version)
        self.engine = engine
        self.interface = interface
        self.max_allowed_packet = max_allowed_packet
        self.max_connect_errors = max_connect_errors
        self.connection_control = ConnectionControl()
        self.stats = ServerStats()
        self.sessions: dict[int, ClientSession] = {}
        self.transactions = TransactionIds()  # INNODB_TRX's ids (server/transactions.py)
        self.variables = Variables()
        self.datadir.mkdir(parents=True, exist_ok=True)
        self.users = UserStore(self.datadir / "users.json")
        # TLS (server/tls.py): offered to every client when on; the files are made at first start
        self.tls_files = certificate_files(self.datadir, ssl_cert, ssl_key, ssl_ca) if tls else None
        self.tls_context = server_context(self.tls_files) if self.tls_files is not None else None
        self.require_secure_transport = require_secure_transport
        # the directory of the server-side file statements (server/file_statements.py)
        self.file_access = FileAccess.configured(secure_file_priv, self.datadir)
        self.users.ensure_root(root_password)
        # the slow and general query logs, opened by their variables (core_variables)
        self.query_logs = QueryLogs(self.datadir, core_variables.host_name(), lambda: header(
            os.path.abspath(sys.argv[0] or sys.executable), server_version.removeprefix("5.5.5-"), self.port, ""))
        self.plugins = PluginManager(self, self.datadir / "plugins.json", **(plugin_options or {}))
        self.admin = Admin(self)
        self._next_id = 0
        self._listener: asyncio.base_events.Server | None = None
        self._sweeper: asyncio.Task | None = None
        self._shutdown_requested = asyncio.Event()
        self._started_at = time.time()
        core_variables.register(self)
        role.attach(self)
        self.variables.add(role.system_variables())
        self.variables.add_status(role.status_variables)

    @classmethod
    def for_daemon(
        cls,
        role: Role,
        config: Any,
        *,
        server_version: str,
        engine: Any,
        interface: ReplicationInterface,
        plugin_options: Mapping[str, Any] | None = None,
    ) -> Server:
        """The server of a daemon, from the options every daemon config has (MasterConfig and
        SlaveConfig: bind_address, port, server_id, datadir, root_password, max_connect_errors,
        the ssl_* options and require_secure_transport)."""
        return cls(
            role,
            bind_address=config.bind_address,
            port=config.port,
            server_id=config.server_id,
            datadir=Path(config.datadir),
            root_password=config.root_password,
            server_version=server_version,
            engine=engine,
            interface=interface,
            plugin_options=plugin_options,
            max_connect_errors=config.max_connect_errors,
            tls=True,
            ssl_cert=config.ssl_cert,
            ssl_key=config.ssl_key,
            ssl_ca=config.ssl_ca,
            require_secure_transport=config.require_secure_transport,
            secure_file_priv=config.secure_file_priv,
        )

    # -- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._listener = await loop.create_server(
            lambda: ClientSession(self),
            host=self.bind_address,
            port=self.port,
            reuse_address=True,
            start_serving=False,
            backlog=512,
        )
        self.port = self._listener.sockets[0].getsockname()[1]
        await self.plugins.load_persisted()
        await self.role.start()
        await self._listener.start_serving()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_idle(), name="idle-sweeper")
        log.info("listening on %s:%d", self.bind_address, self.port)

    def request_shutdown(self) -> None:
        """Ask the serve phase to end (safe to call from a signal handler)."""
        self._shutdown_requested.set()

    @property
    def shutdown_requested(self) -> bool:
        return self._shutdown_requested.is_set()

    async def serve_until_shutdown(self) -> None:
        await self._shutdown_requested.wait()

    async def shutdown(self, timeout: float = 10.0, drain: Callable[[], Awaitable[Any]] | None = None) -> None:
        loop = asyncio.get_running_loop()
        self._shutdown_requested.set()
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._listener is not None:
            self._listener.close()
        sessions = list(self.sessions.values())
        for s in sessions:
            s._shutting_down = True
            if not s.busy and s._raw_reader is None:
                s.close()
        if drain is not None:
            try:
                await drain()
            except Exception:  # a bug in the drain must not keep the server from stopping
                log.exception("shutdown: waiting for the commits in flight failed")
        deadline = loop.time() + timeout
        for s in sessions:
            if s._raw_reader is not None:
                s.close()
        busy = [s._task for s in sessions if s._task is not None and not s._task.done()]
        if busy:
            await asyncio.wait(busy, timeout=max(0.0, deadline - loop.time()))
        for s in sessions:
            s.kill()
        leftover = [s._task for s in sessions if s._task is not None and not s._task.done()]
        if leftover:
            await asyncio.wait(leftover, timeout=max(0.5, deadline - loop.time()))
        await self.role.shutdown(deadline)
        self.query_logs.close()
        if self._listener is not None:
            try:
                await asyncio.wait_for(self._listener.wait_closed(), max(0.1, deadline - loop.time()))
            except TimeoutError:
                pass

    async def _sweep_idle(self) -> None:
        """mysqld's wait_timeout (interactive_timeout for CLIENT_INTERACTIVE clients): close
        sessions idle between commands for longer than their timeout. Checked once a second, so
        the command path pays nothing for it."""
        while True:
            await asyncio.sleep(IDLE_SWEEP_SECONDS)
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.account is None or session.busy or session._raw_reader is not None:
                    continue
                if now - session.since > session.idle_timeout():
                    log.info("session %d (%s): idle for more than %ss, closed", session.connection_id,
                             session.peer, session.idle_timeout())
                    self.stats.aborted_clients += 1
                    session.close()

    # -- sessions ----------------------------------------------------------------------------------

    def next_connection_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def register_session(self, session: ClientSession) -> None:
        self.sessions[session.connection_id] = session
        self.stats.connections += 1
        if len(self.sessions) > self.stats.max_used_connections:
            self.stats.max_used_connections = len(self.sessions)

    def unregister_session(self, session: ClientSession) -> None:
        if self.sessions.get(session.connection_id) is session:
            del self.sessions[session.connection_id]

    @property
    def uptime(self) -> int:
        return int(time.monotonic() - self.stats.started)

    # -- for roles ---------------------------------------------------------------------------------

    async def apply_user_statement(self, sql: str) -> None:
        """Replay a CREATE USER / DROP USER / GRANT / REVOKE statement without a client (the
        slave's applier). Raises SQLError like the client path."""
        await self.admin.apply_user_statement(sql)
