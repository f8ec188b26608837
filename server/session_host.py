"""`SessionHost`: what a client session (server/session.py) and the parts that act for it
(server/prepared.py, server/processlist.py) may use of the server that accepted it -- and
nothing else of it. `server.listener.Server` is the one implementation; a session never names it.

Contract
- The session reads these members each time it needs them and keeps none: `role` is whichever
  role the server holds at that moment.
- Members, by what a session does with them:
  * its identity and accounting: `next_connection_id()` once, `register_session` before the
    greeting, `unregister_session` at its end (twice is harmless), `sessions` (counted against
    max_connections; listed by SHOW PROCESSLIST), `transactions` (the ids INNODB_TRX gives their
    transactions), `stats` (`SessionStats`: the counters
    behind the status variables that a session increments, only on the loop thread);
  * login: `server_version` (the greeting), `tls_context` (None: no TLS offered), `users`
    (accounts), `connection_control` (host blocking, login delays);
  * statements: `variables` (system variables: defaults of a new session, limits, @@ reads),
    `engine` (one engine session per client session, the writer lock for FLUSH TABLES WITH READ
    LOCK), `role` (claims statements and commands first, and commits transactions), `admin`
    (the shell's own statements), `version_number` (executable comments), `query_logs`
    (the slow and general query logs: server/query_logs.py);
  * `uptime` (COM_STATISTICS) and `request_shutdown()` (COM_SHUTDOWN: only sets a flag).
"""

from __future__ import annotations

import ssl
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.core import Engine
    from server.admin import Admin
    from server.connection_control import ConnectionControl
    from server.query_logs import QueryLogs
    from server.role import Role
    from server.session import ClientSession
    from server.transactions import TransactionIds
    from server.users import UserStore
    from server.variables import Variables


class SessionStats(Protocol):
    """The server's counters a session moves (status variables: Questions, Aborted_connects,
    Aborted_clients, Bytes_received, Bytes_sent, Slow_queries, the Com_* counts)."""

    questions: int
    slow_queries: int
    aborted_connects: int
    aborted_clients: int
    bytes_received: int
    bytes_sent: int
    errors: int
    com: Counter[str]

    def com_name(self, keyword: str) -> str | None: ...

    def count_command(self, keyword: str, sql: str = "") -> None: ...


class SessionHost(Protocol):
    @property
    def server_version(self) -> str: ...

    @property
    def version_number(self) -> int: ...

    @property
    def tls_context(self) -> ssl.SSLContext | None: ...

    @property
    def engine(self) -> Engine: ...

    @property
    def transactions(self) -> TransactionIds: ...

    @property
    def variables(self) -> Variables: ...

    @property
    def users(self) -> UserStore: ...

    @property
    def connection_control(self) -> ConnectionControl: ...

    @property
    def stats(self) -> SessionStats: ...

    @property
    def role(self) -> Role: ...

    @property
    def admin(self) -> Admin: ...

    @property
    def sessions(self) -> Mapping[int, ClientSession]: ...

    @property
    def uptime(self) -> int: ...

    def next_connection_id(self) -> int: ...

    def register_session(self, session: ClientSession) -> None: ...

    def unregister_session(self, session: ClientSession) -> None: ...

    def request_shutdown(self) -> None: ...

    @property
    def query_logs(self) -> QueryLogs: ...
