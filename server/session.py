"""One client connection: handshake, authentication, the command loop.

Contract
- A `ClientSession` is the asyncio.Protocol of one accepted socket. It owns the socket's read
  side (bytes go into `self.conn`, a sans-IO `protocol.connection.ServerConnection`) until a
  role installs a raw reader (`set_raw_reader`), and the write side through `write()`.
- Commands run one at a time, in order, in the session's own task (`_run`). A statement's
  response is written before the next command is read. Nothing here blocks the loop. One
  exception, same order: while the task waits for a command with nothing unanswered,
  `data_received` answers the commands just received itself as long as each is a prepared
  SELECT with a kept read (`PreparedStatements.answer_on_receipt`, which never yields); the first
  it does not answer (or the error of reading it) goes to the task (`_received`) before any
  later byte is read.
- Bounded memory (back-pressure): the socket is read only while the task waits for input.
  Bytes that arrive while nobody waits (a command runs, a pipelining client sends ahead) pause
  reading until the task asks for more, so they wait in the kernel, not here; before reading
  the next command the task waits for the transport's write buffer to drain below its
  high-water mark (a client that does not read its answers is not answered faster than it
  reads). What one connection holds is thus bounded by one packet (the connection's limit:
  `PRE_AUTH_MAX_PACKET` before login, max_allowed_packet after) plus one socket read. A role's
  raw reader (the ack receiver) takes bytes as they come; it bounds its own input.
- Fairness: a command may complete without the task ever giving the loop back (a read on the
  engine's loop reader, a key write); a client that pipelines such commands would then hold
  the loop for as long as its answers fit the socket's buffers. So after YIELD_EVERY commands
  in a row that found their bytes already received, the task lets the loop run the others once.
- TLS (server/tls.py): the greeting offers CLIENT_SSL; after an SSLRequest a `TlsChannel` sits
  between the socket and `self.conn` (decrypt in `data_received`, encrypt in `write`), so the
  read loop, its pausing and the raw reader work on plain bytes as before (what a login in the
  clear may do: server/login.py). `session_status()`: Ssl_cipher, Ssl_version.
- Every accepted socket counts against max_connections (as mysqld's connection_count): past
  max_connections + 1 the greeting is replaced by ER_CON_COUNT_ERROR and the socket closed;
  the last slot is only for an account with SUPER or CONNECTION ADMIN, checked at login.
- Who broke the rules decides what happens (STYLE.md habit 4):
  * `SQLError` from the engine, the role or the admin code -> ERR packet, session goes on;
  * `RemoteProtocolError` from the connection -> its ERR if the protocol still allows one, then
    this connection is closed (a non-fatal one -- a malformed command -- only gets the ERR);
  * anything else is our bug -> logged with its traceback, ERR 1105, this connection closed.
  No exception ever leaves a session: the server keeps serving everyone else.
- What a role may use (see server/role.py): `connection_id`, `user` (login name), `host`
  (client address), `peer` ("addr:port"), `account` (server.users.Account), `user_vars`
  (lower-case names without '@', shared with the engine session), `sysvars`, `engine_session`,
  `conn` (the ServerConnection: `send()`, `start_dump()`, `send_event()`, `send_eof()`),
  `transport`, `write(bytes)`, `await drain()`, `set_raw_reader(callback | None)`,
  `set_state(str | None)` and `set_command(str)` (SHOW PROCESSLIST), `status_flags()` (for an
  OK the role sends itself), `has_privilege(*names)`, `require(*names)` (raises 1227),
  `await commit(txn)` (hand an engine transaction to `role.commit`), `await committing(step)`
  (a step through the group commit, never cancelled), `await closed()`,
  `is_closed`, `close()`, `kill()`.
- The login phase is `server.login.log_in` (TLS, authentication, login defences, the engine
  session's setup). Login defences here (server/connection_control.py): a blocked host gets
  ER_HOST_IS_BLOCKED in place of the greeting; a handshake that times out before the login is
  answered, or a malformed one, counts against its host.
- Privileges: an account without ALL PRIVILEGES gets a `privileges` checker at login
  (server/privileges.py); every engine statement, and every SET that evaluates one, passes it
  before the engine runs it (`evaluate_select` for a SET's or an EXECUTE's values). With ALL, `privileges` is None and nothing is checked.
- The binary protocol (COM_STMT_*) is `self.prepared` (server/prepared.py): it runs each
  execution through `run_statement`, the path of every COM_QUERY statement (a SELECT the loop
  answers at once, of either protocol, through `run_read_now` / `run_prepared_read`: what
  `run_statement` would do for it, without yielding), and answers with `send_result` /
  `send_error` or its own binary answers through `conn.send`.
  SQL-level PREPARE / EXECUTE (server/sql_prepared.py, an admin handler) keep their
  statements there too, under their names, and run an execution through `execute`.
- KILL: `kill()` closes the connection; a statement running in a role is cancelled, one inside
  the engine or the group commit (`committing`: `role.commit`, a user statement's binlog group)
  completes first (its answer goes nowhere). `kill_query()` fails
  the running statement with 1317: a role statement at once (cancelled), an engine read, a
  SLEEP()/GET_LOCK() wait or a wait for the writer lock at once (`engine Session.interrupt()`),
  a running write when it completes (at the next statement boundary); the connection stays.
- max_statement_time (MariaDB's, seconds): a statement still running that long after it
  started is interrupted as by KILL QUERY, for itself only, and fails with 1969
  (`run_statement`, `limit_statement`; SET STATEMENT re-arms it with its own value).
- The query logs (server/query_logs.py): a COM_QUERY or COM_STMT_EXECUTE is timed by the clock
  reads that set `since` (SHOW PROCESSLIST's Time) at its start and at its end, a command
  answered on receipt from the receipt's own start; one longer than the session's
  long_query_time (`slow_after`; under SET STATEMENT long_query_time = n FOR, n until the
  statement was timed: `statement_timed`) counts in Slow_queries, logs off or on (`_slow`).
  While either log is open the commands are not answered on receipt: each takes the task's
  path, which writes the general log's line when it starts (`log_statement`) and the slow log's
  entry when it ends.
- SHOW WARNINGS' list (`diagnostics`): a statement's own warnings or error replace it; a
  statement without any keeps it unless it names a table (`_clears_warnings`, MariaDB's rule),
  and SHOW WARNINGS / ERRORS / COUNT(*) never clear it.
- sql_select_limit below its maximum (`select_limit`) cuts a top-level SELECT's rows and those
  of the SHOW statements MariaDB answers from information_schema (`_limited`); while it is set,
  no statement is answered on the loop (`_reads_now`), so that the fast paths never look at it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import ssl
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine import coltypes
from engine.coltypes import ColumnType
from engine.errors import IntoFile
from engine.lexer import mysql_ident
from engine.routines import may_call
from protocol.auth import make_salt
from protocol.binary import COM_STMT_EXECUTE, STMT_COMMANDS, ResultHead
from protocol.charsets import (
    BINARY,
    CHARSETS,
    COLLATION_NAMES,
    UTF8MB4,
    Charset,
    collation_charset,
    for_results,
    unspoken_collation,
)
from protocol.connection import (
    DEFAULT_SERVER_CAPABILITIES,
    NEED_DATA,
    ConnectionClosed,
    LocalInfileData,
    LocalInfileEnd,
    ServerConnection,
    ServerState,
)
from protocol.errors import (
    ER_CANT_CHANGE_TX_CHARACTERISTICS,
    ER_CANT_UPDATE_WITH_READLOCK,
    ER_CON_COUNT_ERROR,
    ER_EMPTY_QUERY,
    ER_HOST_IS_BLOCKED,
    ER_LOCK_WAIT_TIMEOUT,
    ER_NET_PACKET_TOO_LARGE,
    ER_NET_READ_ERROR,
    ER_NO_SUCH_TABLE,
    ER_OPTION_PREVENTS_STATEMENT,
    ER_QUERY_INTERRUPTED,
    ER_SERVER_SHUTDOWN,
    ER_SP_DOES_NOT_EXIST,
    ER_SPECIFIC_ACCESS_DENIED_ERROR,
    ER_STATEMENT_TIMEOUT,
    ER_TABLEACCESS_DENIED_ERROR,
    ER_UNKNOWN_CHARACTER_SET,
    ER_UNKNOWN_COM_ERROR,
    ER_UNKNOWN_ERROR,
    MySQLError,
    RemoteProtocolError,
    SQLError,
)
from protocol.messages import (
    CHARSET_UTF8MB4_GENERAL_CI,
    EOF,
    ERR,
    MARIADB_CLIENT_EXTENDED_METADATA,
    MARIADB_CLIENT_STMT_BULK_OPERATIONS,
    OK,
    Capability,
    ChangeUser,
    ComBinlogDump,
    ComBinlogDumpGtid,
    ComInitDB,
    ComPing,
    ComProcessKill,
    ComQuery,
    ComQuit,
    ComRegisterSlave,
    ComUnknown,
    FieldList,
    ResultSet,
    ServerStatus,
    decode_command,
    text_row_payloads,
)
from protocol.packets import encode_packet
from server import (
    create_select,
    field_list,
    file_statements,
    load_data,
    processlist,
    routines,
    table_locks,
    transactions,
)
from server import sql as sqltext
from server.core_variables import apply_completion, apply_isolation, sql_mode_bits
from server.login import change_user, log_in
from server.prepared import (
    ANSWERED_LATER,
    BEGINS_NOW,
    WRITES_NOW,
    PreparedStatements,
    result_columns,
)
from server.privileges import Privileges
from server.table_locks import WRITE, TableLocks
from server.tls import TlsChannel
from server.users import ALL, REPLICATION_CLIENT, REPLICATION_SLAVE, SUPER, Account, shown
from server.variables import Scope, select_value

if TYPE_CHECKING:
    from engine.session import KeptWrite, PreparedRead
    from server.session_host import SessionHost

log = logging.getLogger("semisync.server.session")

_AUTOCOMMIT = int(ServerStatus.AUTOCOMMIT)
_IN_TRANS = int(ServerStatus.IN_TRANS)
_MORE = int(ServerStatus.MORE_RESULTS_EXISTS)

# Statements refused on a read-only role (first keyword).
# The statements a session holding LOCK TABLES has checked against its locks
_LOCK_CHECKED_DML = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH", "TABLE", "VALUES"})
_LOCK_CHECKED_DDL = frozenset({"CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME"})
WRITE_KEYWORDS = frozenset({
    "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "LOAD",
})
# Fairness (module header): the commands a pipelining client gets in a row before the others run.
YIELD_EVERY = 16
# The `mysql` tables the server shell answers: each account's rows of each (no column,
# proxy or role grants exist, so those tables are empty)
_MYSQL_ROWS: dict[str, Callable[[Account], list[tuple]]] = {
    "user": lambda a: [a.user_row()],
    "global_priv": lambda a: [(a.host, a.user, a.global_priv())],
    "db": Account.db_rows,
    "tables_priv": Account.tables_priv_rows,
    "procs_priv": Account.procs_priv_rows,
    **dict.fromkeys(("columns_priv", "proxies_priv", "roles_mapping"), lambda a: []),
}
# the column blocks of text results a connection keeps (`ClientSession._text_head`; 0: none, each
# result set is built whole)
TEXT_HEADS = 64
COM_RESET_CONNECTION = 0x1F
COM_SHUTDOWN = 0x08
COM_STATISTICS = 0x09
COM_SET_OPTION = 0x1B
MULTI_STATEMENTS_ON, MULTI_STATEMENTS_OFF = 0, 1  # COM_SET_OPTION's two options
COM_REFRESH = 0x07
COM_FIELD_LIST = 0x04  # mysql_list_fields (`mariadb-show -v`): server/field_list.py
COM_DEBUG = 0x0D  # mysql_dump_debug_info (`mariadb-admin debug`): SUPER, then an EOF
REFRESH_HOSTS = 0x08  # COM_REFRESH's flag for FLUSH HOSTS (`mariadb-admin flush-hosts`)
# what log_slow_admin_statements OFF keeps out of the slow log (MariaDB's admin statements)
_ADMIN_STATEMENTS = frozenset({
    "ALTER TABLE", "CREATE INDEX", "DROP INDEX", "OPTIMIZE TABLE", "ANALYZE TABLE", "CHECK TABLE",
    "REPAIR TABLE", "OPTIMIZE", "ANALYZE", "CHECK", "REPAIR",
})
_DIAGNOSTIC_STATEMENTS = frozenset({"SHOW WARNINGS", "SHOW ERRORS", "SHOW COUNT"})
# SHOW statements (the word after SHOW [FULL | GLOBAL | SESSION | LOCAL]) that MariaDB answers
# from information_schema, as a SELECT that sql_select_limit limits
_SELECT_LIMITED_SHOWS = frozenset({
    "TABLES", "DATABASES", "SCHEMAS", "TABLE", "COLUMNS", "FIELDS", "INDEX", "INDEXES", "KEYS", "VARIABLES",
    "STATUS", "CHARACTER", "CHARSET", "COLLATION", "ENGINES", "STORAGE", "PLUGINS", "OPEN", "TRIGGERS", "EVENTS",
})
_SHOW_MODIFIERS = frozenset({"FULL", "GLOBAL", "SESSION", "LOCAL", "EXTENDED"})


def _select_limited(keyword: str, sql: str) -> bool:
    """Whether sql_select_limit limits the statement's rows: a SELECT (WITH ... SELECT), or one
    of `_SELECT_LIMITED_SHOWS`."""
    first, _, second = keyword.partition(" ")
    if first in ("SELECT", "WITH"):
        return True
    if first != "SHOW":
        return False
    if second in _SHOW_MODIFIERS:
        second = next((word for word in _leading_words(sql)[1:] if word not in _SHOW_MODIFIERS), "")
    return second in _SELECT_LIMITED_SHOWS


def _leading_words(sql: str) -> list[str]:
    """The first four words of `sql`, upper-case ([] for text the tokenizer cannot read: the
    statement's own parse answers it)."""
    try:
        return [tok.text.upper() for tok in sqltext.iter_tokens(sql) if tok.kind == "WORD"][:4]
    except SQLError:
        return []


# statements (first word) that name tables, whatever follows (`_clears_warnings`); EXECUTE's
# prepared statement is taken to
_TABLE_STATEMENTS = frozenset({
    "INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD", "TRUNCATE", "CHECK", "ANALYZE", "OPTIMIZE", "REPAIR",
    "CHECKSUM", "LOCK", "HANDLER", "DESCRIBE", "DESC", "EXPLAIN", "TABLE", "CALL", "EXECUTE", "WITH", "VALUES",
})
# CREATE / ALTER / DROP / RENAME of these (the second word) name tables; of a database, a user,
# a role and the like, none
_TABLE_OBJECTS = frozenset({
    "TABLE", "TABLES", "TEMPORARY", "INDEX", "UNIQUE", "FULLTEXT", "SPATIAL", "VIEW", "TRIGGER", "OR", "ONLINE",
    "IGNORE", "DEFINER", "ALGORITHM", "SQL",
})

# Statements (dispatch keyword) that need one of these privileges, whoever executes them
# (SHOW SLAVE STATUS and SHOW SLAVE HOSTS share a keyword: `_SHOW_SLAVE_HOSTS` tells them apart).
STATEMENT_PRIVILEGES: dict[str, tuple[str, ...]] = {
    "SHOW MASTER": (SUPER, REPLICATION_CLIENT),
    "SHOW BINARY": (SUPER, REPLICATION_CLIENT),
    "SHOW BINLOG": (REPLICATION_CLIENT,),  # BINLOG MONITOR alone, not SUPER (MariaDB 10.11)
    "SHOW SLAVE": (SUPER, "SLAVE MONITOR"),
    "SHOW REPLICA": (SUPER, "SLAVE MONITOR"),
    "SHOW ALL": (SUPER, "SLAVE MONITOR"),
    "SHOW RELAYLOG": ("SLAVE MONITOR",),  # not SUPER (MariaDB 10.11)
    "SHOW REPLICAS": ("REPLICATION MASTER ADMIN",),
    "CHANGE MASTER": (SUPER, "REPLICATION SLAVE ADMIN"),
    "START SLAVE": (SUPER, "REPLICATION SLAVE ADMIN"),
    "STOP SLAVE": (SUPER, "REPLICATION SLAVE ADMIN"),
    "START REPLICA": (SUPER, "REPLICATION SLAVE ADMIN"),
    "STOP REPLICA": (SUPER, "REPLICATION SLAVE ADMIN"),
    "RESET SLAVE": ("RELOAD",),
    "RESET REPLICA": ("RELOAD",),
    "RESET MASTER": ("RELOAD",),
    "PURGE BINARY": (SUPER, "BINLOG ADMIN"),
    "PURGE MASTER": (SUPER, "BINLOG ADMIN"),
    "FLUSH BINARY": ("RELOAD",),
    "SHOW ENGINE": ("PROCESS",),
}
_SHOW_SLAVE_HOSTS = re.compile(r"\s*SHOW\s+(SLAVE|REPLICA)\s+HOSTS\b", re.IGNORECASE)
# Role commands needing REPLICATION SLAVE.
_REPLICATION_COMMANDS = (ComRegisterSlave, ComBinlogDump, ComBinlogDumpGtid)


class UserVars(dict):
    """User variables: names are case-insensitive (stored lower case, without '@')."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        return super().__getitem__(key.lower())

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key.lower(), value)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key.lower() if isinstance(key, str) else key)

    def get(self, key: str, default: Any = None) -> Any:
        return super().get(key.lower(), default)


class _Killed(Exception):
    """Raised inside the session task when KILL closed the connection."""


@dataclass(frozen=True, slots=True)
class _CommitBegun:
    """A COMMIT answered on receipt whose transaction went to the role's commit
    (`ClientSession.run_commit_now`): the session's task answers it with `result` once `done`."""

    result: Any
    done: Awaitable[None]
    statement: str
    command: str  # SHOW PROCESSLIST's Command while it waits: Query or Execute


class ClientSession(asyncio.Protocol):
    def __init__(self, server: SessionHost) -> None:
        self.server = server
        self.connection_id = server.next_connection_id()
        self.transport: Any = None  # an asyncio or uvloop transport
        self.conn: ServerConnection | None = None
        self.tls: TlsChannel | None = None  # the TLS layer, once the client asked for it
        self.account: Account | None = None
        self.password_used = False  # the login gave a password (1045's "using password: YES")
        self.user = "unauthenticated user"
        self.host = ""  # client address (no port)
        self.peer = ""  # "address:port" as SHOW PROCESSLIST shows it
        self.user_vars: dict[str, Any] = UserVars()
        self.sysvars: dict[str, Any] = server.variables.session_defaults()
        self.engine_session: Any = None
        # SHOW PROCESSLIST
        self.command = "Connect"
        self.state: str | None = "login"
        self.info: str | None = None
        self.since = time.monotonic()
        self.connected_at = time.time()
        # internals
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task | None = None
        self._wakeup: asyncio.Future | None = None
        self._unyielded = 0  # commands in a row whose bytes were already received ("Fairness")
        self._raw_reader: Callable[[bytes], None] | None = None
        self._closed = self._loop.create_future()
        self._drain_waiter: asyncio.Future | None = None
        # writing: the transport's buffer is above its high-water mark (`drain` would wait); plain
        # attributes, as `is_closed`, which a dump asks per group
        self.writing_paused = False
        self.is_closed = False  # the socket is closed (`closed()` is over)
        self._reading_paused = False  # reading: see "Bounded memory" in the module header
        self._busy = False  # executing a command (for shutdown draining)
        self._received: Any = None  # a command (or its RemoteProtocolError) read on receipt, for the task
        self._declined = False  # `_run_now` declined the COM_QUERY in `_received` (`_query_on_receipt`)
        self._backup_lock: object | None = None  # FLUSH TABLES WITH READ LOCK: the writer lock's owner
        self.table_locks: TableLocks | None = None  # LOCK TABLES (server/table_locks.py)
        self._next_isolation = False  # SET TRANSACTION (no scope) set the next transaction's level
        self._in_commit = False
        self._in_engine = False
        self._query_killed = False
        self.reads_unhindered = False  # `_reads_now(None)` as last asked, until a command or KILL (`unhindered`)
        self._killed = False
        # max_statement_time: the running statement's timer, its start, whether it fired
        self._statement_timer: asyncio.TimerHandle | None = None
        self._statement_start = 0.0
        self._timed_out = False
        self.statements_timed_out = 0  # Max_statement_time_exceeded (SHOW SESSION STATUS)
        # the slow query log (server/query_logs.py): the session's long_query_time, its
        # Slow_queries, its Bytes_sent, and while the slow log is open the running statement's
        # text and what was sent before it (`_slow`)
        self.slow_after = float(self.sysvars.get("long_query_time", 10.0))
        # sql_select_limit below its maximum: the rows a top-level SELECT returns (`_limited`)
        self.select_limit: int | None = None
        self.take_select_limit()
        # the session's long_query_time while `slow_after` is a SET STATEMENT's, until that
        # statement was timed (`statement_timed`)
        self.slow_after_back: float | None = None
        self.slow_queries = 0
        self.bytes_sent = 0
        self._logged: tuple[str, int] | None = None
        self.logged_result: Any = None
        self._shutting_down = False
        self._login_timeout: asyncio.Timeout | None = None
        self._multi = False
        self.failed_change_users = 0  # COM_CHANGE_USER refused on this connection (server/login.py)
        self._all_privileges = False  # refreshed at login; global GRANT/REVOKE apply at next login
        # Checks for an account without ALL (server/privileges.py); None: every statement allowed.
        self.privileges: Privileges | None = None
        # SHOW WARNINGS / SHOW ERRORS: (Level, Code, Message) of the previous statement.
        self.diagnostics: list[tuple[str, int, str]] = []
        self.prepared = PreparedStatements(self)  # COM_STMT_*
        # the column blocks of the text result sets sent, by (names, types): `send_result`
        self._text_heads: dict[tuple[tuple[str, ...], tuple[Any, ...]], ResultHead] = {}
        # character_set_results when answers are converted for it (latin1, cp1251, gbk ...; binary: the
        # column definitions only); None: sent as stored (the utf8 family, NULL)
        self.results_charset: Charset | None = None
        # the collation a column of characters names to the client (a definition's charsetnr):
        # the handshake's or SET NAMES ... COLLATE's, as MariaDB's; None: character_set_results'
        # default (after SET character_set_results)
        self.results_collation: int | None = None

    # -- asyncio.Protocol -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # uvloop's transports are not asyncio.Transport subclasses
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple):
            self.host = str(peer[0])
            self.peer = f"{peer[0]}:{peer[1]}"
        else:
            self.host = self.peer = "localhost"
        server = self.server
        self.conn = ServerConnection(
            self.connection_id,
            server.server_version,
            make_salt(os.urandom(20)),
            # MariaDB's greeting: CLIENT_MYSQL cleared, MARIADB_CLIENT_EXTENDED_METADATA offered
            # (a JSON column or value is then tagged with the "json" format, as MariaDB's) and
            # MARIADB_CLIENT_STMT_BULK_OPERATIONS (COM_STMT_BULK_EXECUTE: server/bulk.py)
            DEFAULT_SERVER_CAPABILITIES & ~Capability.CLIENT_LONG_PASSWORD,
            mariadb_capabilities=MARIADB_CLIENT_EXTENDED_METADATA | MARIADB_CLIENT_STMT_BULK_OPERATIONS,
            # collation_server's number at start (utf8mb4_general_ci), as mysqld's greeting: a
            # client that names no character set (PHP's mysqlnd) takes this one
            charset=CHARSET_UTF8MB4_GENERAL_CI,
            max_packet=server.variables.get("max_allowed_packet", None, Scope.GLOBAL),
            tls=server.tls_context is not None,
        )
        if len(server.sessions) >= server.variables.get("max_connections", None, Scope.GLOBAL) + 1:
            # mysqld's create_new_thread: max_connections + 1 sockets at most (the last one for
            # SUPER); the next one gets 1040 instead of the greeting.
            self._refuse_at_accept(ER_CON_COUNT_ERROR)
            return
        if server.connection_control.blocked(self.host, server.variables.get("max_connect_errors", None, Scope.GLOBAL)):
            # mysqld's host cache: the ERR goes in place of the greeting, and nothing is read
            self._refuse_at_accept(ER_HOST_IS_BLOCKED, self.host)
            return
        server.register_session(self)
        self.transport.write(self.conn.greeting())
        self._task = self._loop.create_task(self._run(), name=f"session-{self.connection_id}")

    def _refuse_at_accept(self, error: MySQLError, *args: object) -> None:
        """An ERR in place of the greeting, then the socket is closed (never registered)."""
        conn = self.conn
        assert conn is not None  # made just before, in connection_made
        self.server.stats.aborted_connects += 1
        self.transport.write(conn.send(ERR.from_error(error, *args)))
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        self.server.stats.bytes_received += len(data)
        if self.tls is not None:
            data = self._decrypt(data)
            if not data:
                return
        reader = self._raw_reader
        if reader is not None:
            try:
                reader(data)
            except Exception:  # the role's bug: this connection only
                log.exception("session %d (%s): raw reader failed", self.connection_id, self.peer)
                self.close()
            return
        waiter = self._wakeup
        waiting = waiter is not None and not waiter.done()
        if waiting and self.engine_session is not None and not self.server.query_logs.active:  # logged in: commands
            try:
                if self._answered_on_receipt(data):  # (it takes `data` into the connection)
                    return  # the task waits on for the next command
            except Exception:  # as in `_run`: this connection only
                self._our_bug()
                self.close()
                return
        else:
            self.conn.receive_data(data)  # type: ignore[union-attr]
        if waiting:
            waiter.set_result(None)  # type: ignore[union-attr]
        elif not self._reading_paused and not self.transport.is_closing():
            # Nobody waits for these bytes: stop reading until the task asks for more.
            self._reading_paused = True
            self.transport.pause_reading()

    def _answered_on_receipt(self, data: bytes) -> bool:
        """`data` received and the commands in it answered here while the task waits for one,
        as long as each is one `PreparedStatements.answer_on_receipt` or `_query_on_receipt`
        answers (at most YIELD_EVERY: see "Fairness"); True when no byte of a command is left for
        the task. A command it does not answer is left for the task (`_received`), as is an error
        in reading one. `data` that is exactly one command (a client waiting for each answer
        sends no more) is read without the packet reader, and a COM_STMT_EXECUTE without a
        command object when `PreparedStatements.kept_answer` (a client's prepared point reads) or
        `execute_on_receipt` takes it."""
        conn = self.conn
        assert conn is not None
        if self.writing_paused or self._shutting_down or self._killed or self._received is not None:
            conn.receive_data(data)
            return False
        started = time.monotonic()  # (Slow_queries: what the task's path times with `since`)
        payload = conn.whole_command(data)
        if payload is not None:
            if payload[0] == COM_STMT_EXECUTE:  # (its command object only for the task)
                prepared = self.prepared
                if not (prepared.kept_any and prepared.kept_answer(payload) or prepared.execute_on_receipt(payload)):
                    self._received = decode_command(payload, conn.client_charset)
                    return False
                if self._received is not None:  # (a COMMIT begun: its answer is the task's)
                    return False
            else:
                try:
                    event = decode_command(payload, conn.client_charset)
                except RemoteProtocolError as exc:
                    self._received = exc
                    return False
                if not self._answered_now(event):
                    return False
            self.since = now = time.monotonic()  # idle from now (Time, wait_timeout)
            if now - started > self.slow_after:
                self._slow(now - started)
            return True
        conn.receive_data(data)
        for _ in range(YIELD_EVERY):
            try:
                event = conn.next_event()
            except RemoteProtocolError as exc:
                self._received = exc
                return False
            if event is NEED_DATA:
                self.since = time.monotonic()
                return True
            if not self._answered_now(event):
                return False
            self.since = now = time.monotonic()
            if now - started > self.slow_after:
                self._slow(now - started)
            if conn.drained:  # (what the next `next_event` would say)
                return True
            started = now
        return False

    def _answered_now(self, event: Any) -> bool:
        """Answer `event`, a command just read, here when `PreparedStatements.answer_on_receipt`
        or `_query_on_receipt` does; True when nothing of it is left for the task, else it is
        left there (`_received`: a command neither answers, or a COMMIT begun here whose answer
        is the task's, after its commit)."""
        if type(event) is ComQuery:
            answered = self._query_on_receipt(event)
        else:
            answered = self.prepared.answer_on_receipt(event)
        if not answered:
            self._received = event
            return False
        return self._received is None

    def _query_on_receipt(self, event: ComQuery) -> bool:
        """Answer `event`, a COM_QUERY, here and now when it is one statement that `_com_query`
        would answer through `run_read_now` (a SELECT), `run_write_now` (a write inside a
        transaction) or `run_begin_now` (a BEGIN), or a COMMIT `run_commit_now` begins; True
        when answered or begun (counted as `_com_query` counts it). When `_run_now` declined
        it, `_com_query` does not ask it again (`_declined`)."""
        sql = event.sql
        if ";" in sql:
            return False
        try:
            if sql[:6].upper() == "COMMIT":
                result = self.run_commit_now(sql, sqltext.head(sql))
            else:
                result = self._run_now(sql)
                self._declined = result is None
        except SQLError as exc:
            result = exc
        if result is None:
            return False
        self.server.stats.questions += 1
        if isinstance(result, SQLError):
            self._send_error(result)
        elif result is not ANSWERED_LATER:
            self.send_result(result, 0)
        return True

    def _run_now(self, statement: str) -> Any:
        """One statement of a COM_QUERY answered on the loop at once: a SELECT through
        `run_read_now`, a BEGIN through `run_begin_now`, a write inside a transaction through
        `run_write_now`; None when it must take `run_statement`'s way. Raises the SQLError it
        failed with."""
        head = statement[:6].upper()
        if head == "SELECT":  # (after blanks or a comment: the statement path)
            return self.run_read_now(statement, sqltext.head(statement))
        if head[:5] in BEGINS_NOW:
            return self.run_begin_now(statement, sqltext.head(statement))
        es = self.engine_session
        if es is not None and es.writes_in_transaction and statement.lstrip()[:7].upper().startswith(WRITES_NOW):
            return self.run_write_now(statement, sqltext.head(statement))
        return None

    def _our_bug(self) -> None:
        """An exception that is neither the client's nor a statement's: logged with its traceback,
        ERR 1105 to the client (the caller ends the connection)."""
        log.exception("session %d (%s): unexpected error", self.connection_id, self.peer)
        self._send_err_if_possible(ERR.from_error(ER_UNKNOWN_ERROR, "internal error; see the server log"))

    def _decrypt(self, data: bytes) -> bytes:
        """Socket bytes through the TLS layer; its handshake records are written back here
        (this is the socket's reader). A TLS failure closes the connection."""
        tls = self.tls
        assert tls is not None
        try:
            plain = tls.receive(data)
        except ssl.SSLError as exc:
            log.info("session %d (%s): TLS failed: %s", self.connection_id, self.peer, exc)
            if self.account is None:
                self.server.connection_control.handshake_failed(self.host)
                self.server.stats.aborted_connects += 1
            self.transport.abort()
            return b""
        out = tls.outgoing()
        if out and not self.transport.is_closing():
            self.transport.write(out)
        if tls.peer_closed:  # close_notify: the client is done; so is this connection
            self.transport.close()
        return plain

    def session_status(self, global_scope: bool = False) -> dict[str, Any]:
        """The status variables with a session value (SHOW [SESSION] STATUS); those shown at
        both scopes only (Ssl_*: the asking connection's, as MariaDB shows them) for GLOBAL."""
        tls = self.tls
        values: dict[str, Any] = {"Ssl_cipher": tls.cipher if tls else "", "Ssl_version": tls.version if tls else ""}
        if not global_scope:
            values["Max_statement_time_exceeded"] = self.statements_timed_out
            values["Slow_queries"] = self.slow_queries
            values["Bytes_sent"] = self.bytes_sent
        return values

    def _resume_reading(self) -> None:
        if self._reading_paused:
            self._reading_paused = False
            if not self.transport.is_closing():
                self.transport.resume_reading()

    def eof_received(self) -> bool:
        if self._raw_reader is None and self.conn is not None:
            self.conn.receive_data(b"")
            self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.conn is not None and self._raw_reader is None:
            self.conn.receive_data(b"")
        if not self._closed.done():
            self.is_closed = True
            self._closed.set_result(None)
        self._wake()
        waiter = self._drain_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        self.server.unregister_session(self)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        waiter = self._drain_waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _wake(self) -> None:
        waiter = self._wakeup
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- the role's handles -----------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            self.bytes_sent += len(data)  # (the slow log's Bytes_sent: the protocol's bytes, as mysqld's)
            if self.tls is not None:
                data = self.tls.encrypt(data)
            self.server.stats.bytes_sent += len(data)
            transport.write(data)

    async def drain(self) -> None:
        """Wait until the transport's write buffer is below its high-water mark."""
        if self.writing_paused and not self.is_closed:
            self._drain_waiter = self._loop.create_future()
            await self._drain_waiter
            self._drain_waiter = None

    def set_raw_reader(self, callback: Callable[[bytes], None] | None) -> None:
        """Route incoming bytes to `callback` (None: back to the command loop). The callback
        gets bytes as they arrive (reading resumes if the command loop had paused it)."""
        self._raw_reader = callback
        if callback is not None:
            self._resume_reading()

    def set_state(self, state: str | None) -> None:
        """The State column of SHOW PROCESSLIST."""
        self.state = state

    def set_command(self, command: str) -> None:
        """The Command column of SHOW PROCESSLIST (e.g. 'Binlog Dump')."""
        self.command = command
        self.since = time.monotonic()

    async def closed(self) -> None:
        await asyncio.shield(self._closed)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def kill(self) -> None:
        """KILL [CONNECTION]: close the connection. A statement that is running in a role (a
        dump, a slow admin statement) is cancelled; one inside the engine or in `role.commit`
        is left to finish (cancelling it could leave a write in the engine that never reaches
        the binlog), and its answer goes nowhere."""
        self._killed = True
        self._query_killed = True
        self.reads_unhindered = False
        self.close()
        self._cancel_if_safe()

    def _cancel_if_safe(self) -> None:
        task = self._task
        if task is None or task.done() or task is asyncio.current_task():
            return  # a session killing itself answers first (see Admin.kill)
        if self._busy and not (self._in_commit or self._in_engine):
            task.cancel()

    def kill_after_reply(self) -> None:
        """KILL of one's own connection: the statement's answer is sent, then the connection ends."""
        self._killed = True

    def _end_kill(self) -> None:
        """The statement (or command) a KILL QUERY or max_statement_time ended is over: the
        engine session's interrupt, which its statements do not clear, is cleared with it."""
        self._query_killed = False
        if self.engine_session is not None:
            self.engine_session.clear_interrupt()

    async def interruption_point(self) -> None:
        """Where a stored procedure's loop passes each round: other tasks run (a KILL QUERY or
        the statement's time limit arrives), then the statement fails with 1317 (1969: see
        `run_statement`) once either ended it."""
        await asyncio.sleep(0)
        if self._query_killed:
            raise SQLError(ER_QUERY_INTERRUPTED)

    def kill_query(self) -> None:
        """KILL QUERY: the running statement fails with ER_QUERY_INTERRUPTED -- at once when it
        runs in a role (cancelled), else (engine, role.commit) when it reaches the next
        statement boundary; the connection stays."""
        if self._busy:
            self._query_killed = True
            self.reads_unhindered = False
            self._cancel_if_safe()
            if self._in_engine and self.engine_session is not None:
                self.engine_session.interrupt()

    @property
    def database(self) -> str | None:
        es = self.engine_session
        return es.database if es is not None else None

    def idle_timeout(self) -> float:
        """Seconds this session may sit between commands (wait_timeout / interactive_timeout)."""
        interactive = self.conn is not None and self.conn.capabilities & Capability.CLIENT_INTERACTIVE
        name = "interactive_timeout" if interactive else "wait_timeout"
        return float(self.sysvars.get(name, 28800))

    @property
    def busy(self) -> bool:
        return self._busy

    # -- the session task -------------------------------------------------------------------------

    async def _next_event(self) -> Any:
        conn = self.conn
        assert conn is not None
        while True:
            event = self._received
            if event is not None:  # read by `_answered_on_receipt`, not answered there
                self._received = None
                if isinstance(event, RemoteProtocolError):
                    raise event
            else:
                event = conn.next_event()
            if event is not NEED_DATA:
                self._unyielded += 1
                if self._unyielded >= YIELD_EVERY:  # see "Fairness" in the module header
                    self._unyielded = 0
                    await asyncio.sleep(0)
                return event
            self._unyielded = 0
            self._resume_reading()
            self._wakeup = self._loop.create_future()
            await self._wakeup
            self._wakeup = None

    async def _run(self) -> None:
        try:
            timeout = self.server.variables.get("connect_timeout", None, Scope.GLOBAL)
            try:
                async with asyncio.timeout(timeout) as self._login_timeout:
                    logged_in = await log_in(self)
            except TimeoutError:
                # mysqld's connect_timeout: a client that does not finish its login is dropped.
                self.server.stats.aborted_connects += 1
                self.server.connection_control.handshake_failed(self.host)
                log.info("session %d (%s): no login within %ss", self.connection_id, self.peer, timeout)
                return
            if logged_in:
                await self._command_loop()
        except asyncio.CancelledError:
            pass
        except _Killed:
            pass
        except RemoteProtocolError as exc:
            if self.account is None:  # a malformed handshake: counts against max_connect_errors
                self.server.connection_control.handshake_failed(self.host)
            self._protocol_error(exc)
        except Exception:
            self._our_bug()
        finally:
            self._busy = False
            await self._finish()

    async def lock_for_backup(self) -> None:
        """FLUSH TABLES WITH READ LOCK: end this session's transaction (an implicit commit, as
        mysqld's), then hold the engine's writer lock, waiting (up to lock_wait_timeout, then
        1205) for the commits in flight: the binlog and the data stand still until
        `unlock_backup`."""
        if self._backup_lock is not None:
            return
        await self._commit_open()
        await self._hold_writer()

    async def _commit_open(self) -> None:
        """The implicit commit of the session's open transaction (FLUSH TABLES WITH READ LOCK,
        LOCK TABLES, UNLOCK TABLES under table locks)."""
        es = self.engine_session
        if es is not None and es.in_transaction:
            await self._engine_execute("COMMIT")

    async def _hold_writer(self) -> None:
        """Hold the engine's writer lock until `unlock_backup` (FLUSH TABLES WITH READ LOCK, LOCK
        TABLES of READ locks only)."""
        engine = self.server.engine
        owner = object()
        try:
            # a group written to the binlog but not yet committed is waited for: the binlog and
            # the data stand still together
            await engine.settle.acquire_settled(engine.writer_lock, owner,
                                                float(self.sysvars.get("lock_wait_timeout", engine.lock_wait_timeout)))
        except TimeoutError:
            raise SQLError(ER_LOCK_WAIT_TIMEOUT) from None
        self._backup_lock = owner

    async def lock_tables(self, sql: str) -> None:
        """LOCK TABLES (server/table_locks.py): the privileges, an implicit commit, the earlier
        locks ended, every table known (1146; a view's tables locked with it), then held."""
        tables = table_locks.parse(sql, self.database)
        if self.privileges is not None:
            await self.privileges.check(sql, "LOCK")
        await self.unlock_tables()
        await self._commit_open()
        es = self.engine_session
        engine = self.server.engine
        under_views: dict[tuple[str, str], str] = {}
        for (schema, _), (name, mode) in tables.items():
            if engine.view(schema, name) is not None and es is not None:
                access = await es.access(f"SELECT * FROM {mysql_ident(schema)}.{mysql_ident(name)}")
                for under_schema, under, _column in access.reads:
                    if under_views.get((under_schema, under.lower())) != WRITE:
                        under_views[(under_schema, under.lower())] = mode
            elif (es.table(schema, name) if es is not None else engine.table(schema, name)) is None:
                raise SQLError(ER_NO_SUCH_TABLE, schema, name)
        owned = (lambda schema, name: False) if es is None else (
            lambda schema, name: es.engine.temporary_of(es.temporary_owner)(schema, name) is not None)
        locks = TableLocks(tables, under_views, owned)
        if locks.all_read:
            await self._hold_writer()
        self.table_locks = locks

    async def unlock_tables(self) -> None:
        """UNLOCK TABLES (and BEGIN under LOCK TABLES): the table locks and a FLUSH TABLES WITH
        READ LOCK ended; a transaction begun under table locks committed."""
        if self.table_locks is not None:
            self.table_locks = None
            await self._commit_open()
        self.unlock_backup()

    async def _locked_statement(self, sql: str, keyword: str) -> None:
        """A statement of a session holding table locks, checked against them before it runs
        (server/table_locks.py); BEGIN / START TRANSACTION ends them."""
        locks = self.table_locks
        assert locks is not None
        first = keyword.partition(" ")[0]
        if keyword in ("BEGIN", "START TRANSACTION"):
            self.table_locks = None
            self.unlock_backup()
        elif first in _LOCK_CHECKED_DML and self.engine_session is not None:
            try:
                access = await self.engine_session.access(sql)
            except SQLError:
                return  # a statement the engine cannot plan (SELECT ... INTO OUTFILE ...) runs as it would
            named = table_locks.references(sql, self.database)
            engine = self.server.engine
            views = {(schema, name.lower()) for schema, name, _ in named if engine.view(schema, name) is not None}
            locks.check_access(access.writes, access.reads, named, views)
        elif first in _LOCK_CHECKED_DDL:
            locks.check_ddl(sql, self.database)
        elif first in ("SHOW", "DESCRIBE", "DESC"):
            locks.check_show(sql, self.database)

    def unlock_backup(self) -> None:
        if self._backup_lock is not None and self.server.engine.writer_lock.owner is self._backup_lock:
            self.server.engine.writer_lock.release()
        self._backup_lock = None

    async def _finish(self) -> None:
        self.prepared.close_all()
        self.table_locks = None
        self.unlock_backup()
        self.close()
        es = self.engine_session
        if es is not None:
            try:
                await self._close_engine_session()
                await self.drop_temporary_tables()
            except Exception:
                log.exception("session %d: closing the engine session failed", self.connection_id)
        self.engine_session = None
        self.server.unregister_session(self)

    def _protocol_error(self, exc: RemoteProtocolError) -> None:
        if exc.code == ER_NET_PACKET_TOO_LARGE.code:
            self.server.stats.aborted_clients += 1
        log.info("session %d (%s): %s", self.connection_id, self.peer, exc.message)
        self._send_err_if_possible(ERR.from_exception(exc))

    def _send_err_if_possible(self, err: ERR) -> None:
        conn = self.conn
        if conn is None or self.transport is None or self.transport.is_closing():
            return
        if conn.state in (ServerState.ERROR, ServerState.RESPONDING, ServerState.AUTHENTICATING):
            try:
                self.write(conn.send(err))
            except Exception:  # the protocol forbids an ERR here: just close
                pass

    # -- commands ---------------------------------------------------------------------------------

    def status_flags(self) -> int:
        es = self.engine_session
        if es is None:
            return _AUTOCOMMIT
        flags = _AUTOCOMMIT if es.autocommit else 0
        if getattr(es, "in_transaction", False):
            flags |= _IN_TRANS
        return flags

    async def _command_loop(self) -> None:
        server = self.server
        stats = server.stats
        while True:
            if self.writing_paused:
                await self.drain()  # the previous answers first: see "Bounded memory"
            try:
                event = await self._next_event()
            except RemoteProtocolError as exc:
                if exc.fatal:
                    raise
                self._send_err_if_possible(ERR.from_exception(exc))
                continue
            if isinstance(event, ConnectionClosed) or isinstance(event, ComQuit):
                if type(event) is ComQuit and (general := self.general_log) is not None:
                    general.line(self.connection_id, "Quit", "")
                return
            if self._shutting_down and type(event) is not _CommitBegun:
                self.write(self.conn.send(ERR.from_error(ER_SERVER_SHUTDOWN)))  # type: ignore[union-attr]
                return
            self._busy = True
            self.reads_unhindered = False  # (the command may move what it asks: `unhindered`)
            try:
                if type(event) is ComQuery:
                    await self._com_query(event.sql)
                elif type(event) is _CommitBegun:
                    await self._answer_commit(event)
                else:
                    stats.questions += 1
                    await self._other_command(event)
            finally:
                self._busy = False
                self._end_kill()
                self.info = None
                if self.command in ("Query", "Execute", "Sleep"):
                    now = time.monotonic()
                    if self.command != "Sleep" and now - self.since > self.slow_after:
                        self._slow(now - self.since)
                    if self.slow_after_back is not None:
                        self.statement_timed()
                    self.command = "Sleep"
                    self.since = now  # idle from now (Time, wait_timeout)
            if self._raw_reader is not None:
                # A role took the connection over (binlog dump): it owns it until it closes.
                await self.closed()
                return
            if self._killed:
                return

    async def _other_command(self, event: Any) -> None:
        conn = self.conn
        assert conn is not None
        if type(event) is ComUnknown and event.code in STMT_COMMANDS:  # (the commands' types are apart)
            if event.code == COM_STMT_EXECUTE:
                self.set_command("Execute")
            await self.prepared.handle(bytes((event.code,)) + event.payload)
        elif isinstance(event, ComPing):
            self.server.stats.com["Com_admin_commands"] += 1  # (mysqld's com_other)
            self.write(conn.send(OK(status=self.status_flags())))
        elif isinstance(event, ComInitDB):
            if (general := self.general_log) is not None:
                general.line(self.connection_id, "Init DB", event.db)
            await self._respond_one(self._guarded(self.server.admin.use_database(self, event.db)))
        elif isinstance(event, ComProcessKill):
            await self._respond_one(self._guarded(self.server.admin.kill(self, event.connection_id, query=False)))
        elif isinstance(event, _REPLICATION_COMMANDS):
            if not self.has_privilege(REPLICATION_SLAVE):
                self._send_error(SQLError(ER_SPECIFIC_ACCESS_DENIED_ERROR, "REPLICATION SLAVE"))
                return
            handled = await self.server.role.handle_command(self, event)
            if not handled:
                self._send_error(SQLError(ER_UNKNOWN_COM_ERROR))
            elif self._raw_reader is None and conn.state is ServerState.RESPONDING:
                # The role handled the command but left no response (a dump that ended).
                self.close()
        elif isinstance(event, ComUnknown) and event.code == COM_RESET_CONNECTION:
            await self._reset_connection()
        elif isinstance(event, ComUnknown) and event.code == ChangeUser.COMMAND:
            await change_user(self, event.payload)
        elif isinstance(event, ComUnknown) and event.code == COM_SET_OPTION:
            self._set_option(event.payload)
        elif isinstance(event, ComUnknown) and event.code == COM_STATISTICS:
            self.server.stats.com["Com_show_status"] += 1  # (as mysqld counts it)
            self._statistics()
        elif isinstance(event, ComUnknown) and event.code == COM_REFRESH:
            try:
                self.require(ALL, "RELOAD")
            except SQLError as exc:
                self._send_error(exc)
                return
            if event.payload[:1] and event.payload[0] & REFRESH_HOSTS:
                self.server.connection_control.flush_hosts()
            self.write(conn.send(OK(status=self.status_flags())))
        elif isinstance(event, ComUnknown) and event.code == COM_FIELD_LIST:
            await self._respond_one(self._guarded(field_list.field_list(self, event.payload)))
        elif isinstance(event, ComUnknown) and event.code == COM_DEBUG:
            try:  # (mysqld writes its debug information to the error log; nothing to write here)
                self.require(ALL, SUPER)
            except SQLError as exc:
                self._send_error(exc)
                return
            self.write(conn.send(EOF(status=self.status_flags())))
        elif isinstance(event, ComUnknown) and event.code == COM_SHUTDOWN:
            try:
                self.require(ALL, SUPER, "SHUTDOWN")
            except SQLError as exc:
                self._send_error(exc)
                return
            self.server.request_shutdown()
            self.write(conn.send(EOF(status=self.status_flags())))
        else:
            handled = await self.server.role.handle_command(self, event)
            if not handled:
                self._send_error(SQLError(ER_UNKNOWN_COM_ERROR))

    def _set_option(self, payload: bytes) -> None:
        """COM_SET_OPTION (mysql_set_server_option; PHP's multi_query sends it around its query):
        multi-statements on (0) or off (1) for this connection, answered with an EOF, as mysqld
        does; any other option is an unknown command."""
        self.server.stats.com["Com_set_option"] += 1
        option = int.from_bytes(payload[:2], "little") if len(payload) == 2 else None
        if option not in (MULTI_STATEMENTS_ON, MULTI_STATEMENTS_OFF):
            self._send_error(SQLError(ER_UNKNOWN_COM_ERROR))
            return
        self._multi = option == MULTI_STATEMENTS_ON
        self.write(self.conn.send(EOF(status=self.status_flags())))  # type: ignore[union-attr]

    def _statistics(self) -> None:
        """COM_STATISTICS (`mysqladmin status`): one text packet, mysqld's wording. The
        ServerConnection has no message for it, so the exchange is closed with send(OK) for
        its state and sequence bookkeeping, and the text packet is written in its place."""
        server = self.server
        uptime = max(server.uptime, 1)
        text = (
            f"Uptime: {server.uptime}  Threads: {len(server.sessions)}  "
            f"Questions: {server.stats.questions}  Slow queries: {server.stats.slow_queries}  Opens: 0  Open tables: 0  "
            f"Queries per second avg: {server.stats.questions / uptime:.3f}"
        )
        conn = self.conn
        assert conn is not None
        conn.send(OK(status=self.status_flags()))  # bytes unused: see the docstring
        wire, _ = encode_packet(text.encode(), 1)
        self.write(wire)

    async def _reset_connection(self) -> None:
        """COM_RESET_CONNECTION: roll back, forget user variables and session variables, keep
        the login and the current database (as mysqld does)."""
        server = self.server
        old = self.engine_session
        database = old.database
        await self.start_again()
        self.engine_session = server.engine.session(self.connection_id)
        self.engine_session.user_vars = self.user_vars
        self.engine_session.sysvar_reader = self.read_sysvar
        self.engine_session.sysvar_type = self.sysvar_type
        self.engine_session.uservar_type = self.uservar_column
        self.engine_session.live_reader = self.read_infoschema
        self.engine_session.creator_checks = self.creator_checks
        self.engine_session.user_text, self.engine_session.current_user_text = old.user_text, old.current_user_text
        self.engine_session.found_rows = old.found_rows
        self.engine_session.database = database
        self.engine_charsets()
        self.engine_sql_mode()
        self.engine_auto_increment()
        apply_isolation(self)
        apply_completion(self)
        self.write(self.conn.send(OK(status=self.status_flags())))  # type: ignore[union-attr]

    async def start_again(self) -> None:
        """What COM_RESET_CONNECTION and COM_CHANGE_USER end of a session: its transaction rolled
        back (the engine session closed, its locks let go), its user variables, prepared
        statements and session variables gone, its temporary tables dropped. The caller opens
        the next engine session."""
        await self._close_engine_session()
        await self.drop_temporary_tables()
        self.user_vars.clear()
        self.prepared.close_all()
        self.sysvars = self.server.variables.session_defaults()
        self.slow_after = float(self.sysvars.get("long_query_time", 10.0))
        self.take_select_limit()
        login = self.conn.login if self.conn is not None else None
        self.take_charset_number(None if login is None else login.charset)  # (the login's, as MariaDB's)

    async def _close_engine_session(self) -> None:
        """The engine session's end: its transaction rolled back, binlogged when it must be (a
        temporary table it made or dropped stays: engine/temporary.py)."""
        rolled_back = await self.engine_session.close()
        if rolled_back is not None:
            await self.commit(rolled_back)

    async def drop_temporary_tables(self) -> None:
        """The end of the session's temporary tables (engine/temporary.py), its transaction
        rolled back before: each database's `DROP TEMPORARY TABLE IF EXISTS`, run in it and
        committed (binlogged, with this connection's thread id) as any DDL, as MariaDB ends them."""
        es = self.engine_session
        es.autocommit = True  # (each DROP its own statement, committed: none begins a transaction)
        for schema, sql in es.temporary_drops():
            es.database = schema
            result = await es.execute(sql)
            if result.committed is not None:
                await self.committing(self.server.role.commit(self, result.committed))

    async def _guarded(self, coro: Any) -> Any:
        try:
            return await coro
        except SQLError as exc:
            return exc

    async def _respond_one(self, aw: Any) -> None:
        result = await aw
        if isinstance(result, SQLError):
            self._send_error(result)
        else:
            self.send_result(result, 0)

    def _send_error(self, exc: SQLError) -> None:
        self.server.stats.errors += 1
        self.diagnostics = [*exc.warnings, ("Error", exc.error.code, exc.message), *exc.trace]
        message = exc.message if self.results_charset is None else self.results_charset.wire_text(exc.message)
        self.write(self.conn.send(ERR(exc.error.code, exc.error.sqlstate, message)))  # type: ignore[union-attr]

    # -- the connection's character sets ----------------------------------------------------------

    def take_charset_number(self, number: int | None) -> None:
        """A handshake's (or COM_CHANGE_USER's) character set, by its collation's number: the
        session's character_set_client, _connection, _results and collation_connection, as
        MariaDB's thd_init_client_charset sets them; a number that is none of ours
        (protocol.charsets.COLLATION_NAMES) leaves the server's defaults, as MariaDB's, except
        one of a character set MariaDB speaks and this server does not (`unspoken_collation`):
        1115, the session unchanged, rather than its bytes read in another character set."""
        unspoken = None if number is None else unspoken_collation(number)
        if unspoken is not None:
            raise SQLError(ER_UNKNOWN_CHARACTER_SET, unspoken)
        found = None if number is None else collation_charset(number)
        self.results_collation = None
        if found is not None:
            cs, collation = found
            self.sysvars.update(character_set_client=cs.name, character_set_connection=cs.name,
                                character_set_results=cs.name, collation_connection=collation)
            self.results_collation = number
        self.charsets_changed()

    def charsets_changed(self) -> None:
        """character_set_client or character_set_results may have changed (SET NAMES, SET, a
        login): the connection reads COM_QUERY's text in the first (`ServerConnection
        .client_charset`; prepared statements read theirs through it too), answers and error
        messages are converted to the second (`results_charset`). A kept prepared read keeps
        its answer's column definitions encoded, so every one is let go."""
        client = CHARSETS.get(self.sysvars.get("character_set_client"))  # type: ignore[arg-type]
        if self.conn is not None:
            self.conn.client_charset = client if client is not None and client.converts else None
        results = CHARSETS.get(self.sysvars.get("character_set_results"))  # type: ignore[arg-type]
        number = self.results_collation
        if results is not None and number is not None and number != results.number \
                and COLLATION_NAMES.get(number, "").partition("_")[0] == results.name:
            results = replace(results, number=number)  # (utf8mb4_unicode_ci: 224)
        # answers as stored for utf8mb4_general_ci (what the engine's columns say) and NULL;
        # converted (texts) or described again (utf8mb3's lengths, another collation) otherwise
        self.results_charset = (results if results is not None and (results.converts or results is BINARY
                                                                    or results.number != UTF8MB4.number) else None)
        self.prepared.forget_kept()
        if self.engine_session is not None:
            self.engine_charsets()

    def engine_sql_mode(self) -> None:
        """The engine session follows the session's sql_mode where the engine follows one:
        NO_AUTO_VALUE_ON_ZERO, strictness and ERROR_FOR_DIVISION_BY_ZERO (the modes it does not
        follow cannot be set: core_variables)."""
        modes = str(self.sysvars.get("sql_mode") or "")
        self.engine_session.follow_sql_mode(sql_mode_bits(modes), "NO_AUTO_VALUE_ON_ZERO" in modes.split(","))

    def engine_auto_increment(self) -> None:
        """The engine session hands out ids by the session's auto_increment_increment and _offset."""
        self.engine_session.auto_increment = (int(self.sysvars.get("auto_increment_increment") or 1),
                                              int(self.sysvars.get("auto_increment_offset") or 1))

    def engine_charsets(self) -> None:
        """The engine session reads string literals in character_set_connection (a latin1 or cp1251 one's
        bytes where they matter: `engine.charset_literals`), a select item of one sent in its own
        character set when character_set_results is NULL or binary."""
        name = str(self.sysvars.get("character_set_connection")).lower()
        connection = None if name in ("utf8mb4", "utf8mb3", "utf8") else CHARSETS.get(name, Charset(name, 0, 4, True))
        self.engine_session.connection_charset = connection
        self.engine_session.items_converted = self.sysvars.get("character_set_results") not in (None, "binary")

    def in_results_charset(self, message: ResultSet) -> ResultSet:
        """`message` as a client of `results_charset` receives it (its column names and text in
        that character set, its definitions saying it: `protocol.charsets.result_column`)."""
        cs = self.results_charset
        if cs is None:
            return message
        columns, rows = for_results(message.columns, message.rows, cs)
        return ResultSet(columns, rows, message.status, message.warnings)

    def has_privilege(self, *privileges: str) -> bool:
        account = self.account
        return account is not None and account.has(*privileges)

    @contextmanager
    def acting_as(self, account: Account) -> Iterator[None]:
        """The statements inside run with `account`'s privileges and as its CURRENT_USER() (a SQL
        SECURITY DEFINER routine's body, MariaDB's change_security_context); the session's own
        account again after them, whatever they raised."""
        es = self.engine_session
        saved = self.account, self.privileges, self._all_privileges, es.current_user_text, es.visible
        self.account = account
        self._all_privileges = account.has(ALL)
        self.privileges = None if self._all_privileges else Privileges(self, acting=account)
        es.current_user_text = f"{account.user}@{account.host}"
        es.visible = self.privileges
        try:
            yield
        finally:
            self.account, self.privileges, self._all_privileges, es.current_user_text, es.visible = saved

    def creator_checks(self) -> tuple[bool, bool]:
        """CREATE FUNCTION's binlog rule (`engine.ddl.DdlParser.check_function_creator`): whether
        it applies (the binlog open, log_bin_trust_function_creators OFF) and whether the account
        (a DEFINER routine's inside it) holds SUPER."""
        applies = bool(self.read_sysvar("@@log_bin") in (1, "1", "ON")
                       and not self.read_sysvar("@@global.log_bin_trust_function_creators"))
        return applies, self.has_privilege(ALL, SUPER)

    def require(self, *privileges: str) -> None:
        """Raise ER_SPECIFIC_ACCESS_DENIED_ERROR unless the user holds one of `privileges`
        (ALL PRIVILEGES always does)."""
        if not self.has_privilege(*privileges):
            named = [shown(p) for p in privileges if p != ALL] or [SUPER]
            raise SQLError(ER_SPECIFIC_ACCESS_DENIED_ERROR, ", ".join(named))

    async def _com_query(self, sql: str) -> None:
        self.server.stats.questions += 1
        self.command = "Query"
        self.since = time.monotonic()
        if self._multi and ";" in sql:
            statements = sqltext.split_statements(sql)
        else:
            statements = [sql]
        logged = self.server.query_logs.active
        if logged:
            self.log_statement("Query", sql, statements[0])
        last = len(statements) - 1
        declined, self._declined = self._declined, False
        for i, statement in enumerate(statements):
            if i and logged:
                self._logged = (statement, self.bytes_sent)
            try:
                # (a statement `_run_now` declined on receipt: its answer is the same either way)
                result = None if declined else self._run_now(statement)
                if result is None:
                    result = await self.run_statement(statement)
            except SQLError as exc:
                self._send_error(exc if i == last else sqltext.in_packet(exc, sql, statements, i))
                return  # mysqld stops a multi-statement at the first error
            self.send_result(result, _MORE if i < last else 0)
            if self._killed:  # (KILL of itself, RELEASE: the answer goes out, then the end)
                self.close()
                return
            if self._raw_reader is not None:
                return
            if i < last:  # each statement of a multi-statement is timed apart, as mysqld's
                self.logged_result = result
                now = time.monotonic()
                if now - self.since > self.slow_after:
                    self._slow(now - self.since)
                if self.slow_after_back is not None:
                    self.statement_timed()
                self.since = now
            elif logged:
                self.logged_result = result

    @property
    def general_log(self) -> Any:
        """The general log while it is open, unless this session's sql_log_off is ON."""
        general = self.server.query_logs.general
        return None if general is None or self.sysvars.get("sql_log_off") else general

    def log_statement(self, command: str, text: str, statement: str) -> None:
        """A statement begins while a query log is open: the general log's line (`command`
        with `text`, as received), and for the slow log the statement (`statement`, what its
        entry shows) and the bytes sent before it."""
        logs = self.server.query_logs
        if (general := self.general_log) is not None:
            general.line(self.connection_id, command, text)
        if logs.slow is not None:
            self._logged = (statement, self.bytes_sent)
            self.logged_result = None

    def _slow(self, took: float) -> None:
        """A statement ran longer than long_query_time (`took` seconds): counted (Slow_queries,
        whether or not the slow log is open, as mysqld's), and written to the slow log when it is
        open and the session's slow_query_log is ON (an admin statement only with
        log_slow_admin_statements)."""
        self.slow_queries += 1
        self.server.stats.slow_queries += 1
        slow = self.server.query_logs.slow
        logged, self._logged = self._logged, None
        if slow is None or logged is None or not self.sysvars.get("slow_query_log"):
            return
        statement, sent_before = logged
        if (not self.sysvars.get("log_slow_admin_statements", True)
                and sqltext.head(statement) in _ADMIN_STATEMENTS):
            return
        result, self.logged_result = self.logged_result, None
        rows = getattr(result, "rows", None)
        slow.entry(user_host=self.user_host(), thread_id=self.connection_id, db=self.database,
                   query_time=took, rows_sent=len(rows) if rows is not None and getattr(result, "columns", None) else 0,
                   rows_affected=getattr(result, "affected_rows", 0) or 0,
                   bytes_sent=self.bytes_sent - sent_before, statement=statement)

    def user_host(self) -> str:
        """The slow log's "# User@Host:": the account's user, the login name, the host (no name
        is resolved: empty) and the address, as mysqld writes them."""
        account = self.account
        user = account.user if account is not None else self.user
        return f"{user}[{self.user}] @  [{self.host}]"

    async def run_statement(self, statement: str) -> Any:
        """One statement of COM_QUERY or COM_STMT_EXECUTE: `execute` with KILL QUERY's rules
        (1317 for this statement only) and max_statement_time's (1969: see `limit_statement`).
        Raises SQLError; the caller answers."""
        self.info = statement
        if self._query_killed:
            raise SQLError(ER_QUERY_INTERRUPTED)
        self._statement_start = self._loop.time()
        limit = self.sysvars.get("max_statement_time")
        if limit:
            self.limit_statement(limit)
        try:
            return await self.execute(statement)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if self._killed or not self._query_killed or task is None:
                raise  # KILL CONNECTION or shutdown: the session ends
            task.uncancel()  # KILL QUERY: only this statement ends
            raise self._interrupted() from None
        except SQLError as exc:
            if self._timed_out and exc.error is ER_QUERY_INTERRUPTED:
                raise self._interrupted() from None
            raise
        finally:
            if self._statement_timer is not None:
                self._statement_timer.cancel()
                self._statement_timer = None
            if self._timed_out:  # the limit ends this statement only, unlike KILL QUERY
                self._timed_out = False
                self._end_kill()

    def run_read_now(self, statement: str, keyword: str) -> Any:
        """`run_statement` of a read the engine answers on the loop at once (`engine Session
        .select_now`): its Result, or None when the statement must take `run_statement`'s way
        (then nothing was counted). `keyword` is `sqltext.head(statement)`, known to the caller.
        Only what `execute` would do for such a read is done: no role or admin handler claims
        it, the account has every privilege, no statement time limit, KILL QUERY or
        executable comment applies. It never yields, so nobody sees it running (no `info`)."""
        if not self._loop_answers(statement, keyword):
            return None
        result = self.engine_session.select_now(statement)
        if result is not None:
            self._counted(keyword, statement)
        return result

    def run_begin_now(self, statement: str, keyword: str, unclaimed: bool = False, passes: bool = False) -> Any:
        """`run_statement` of BEGIN / START TRANSACTION answered on the loop at once (engine
        `Session.begin_now`: the transaction it ends wrote nothing): its Result, or None when
        the statement must take `run_statement`'s way (then nothing was counted), as
        `run_read_now`; `unclaimed` and `passes` as `run_write_now`'s."""
        if self.engine_session is None or not (
                (self.reads_unhindered or self.unhindered()) if passes
                else self._loop_answers(statement, None if unclaimed else keyword)):
            return None
        result = self.engine_session.begin_now(statement)
        if result is not None:
            self._counted(keyword, statement)
        return result

    def run_commit_now(self, statement: str, keyword: str, command: str = "Query", unclaimed: bool = False,
                       passes: bool = False) -> Any:
        """`run_statement` of COMMIT begun on the loop at once where the role commits at once
        (`Role.commits_now`): the engine ends the transaction (`Session.commit_now`) and what it
        wrote goes to `Role.commit_now` in the same step; then the answer is the session task's
        once that commit is over (`_CommitBegun` becomes the next command: ANSWERED_LATER is
        returned; `command` is the processlist's meanwhile). A transaction that wrote nothing is
        answered at once: its Result. None when the statement must take `run_statement`'s way
        (nothing was counted), as `run_read_now`; `unclaimed` and `passes` as `run_write_now`'s."""
        es = self.engine_session
        if es is None or not self.server.role.commits_now or not (
                (self.reads_unhindered or self.unhindered()) if passes
                else self._loop_answers(statement, None if unclaimed else keyword)):
            return None
        result = es.commit_now(statement)
        if result is None:
            return None
        self._counted(keyword, statement)
        if result.committed is None:
            return result
        self._in_commit = True  # (KILL and shutdown leave the session alone: see `committing`)
        self._received = _CommitBegun(result, self.server.role.commit_now(self, result.committed), statement, command)
        return ANSWERED_LATER

    async def _answer_commit(self, begun: _CommitBegun) -> None:
        """The answer of a COMMIT begun on receipt, once its commit is over, as `_com_query` and
        `PreparedStatements.handle` give it (meanwhile SHOW PROCESSLIST shows the statement)."""
        self.set_command(begun.command)
        self.info = begun.statement
        try:
            await self.committing(begun.done)
        except SQLError as exc:
            self._send_error(exc)
            return
        self.send_result(begun.result, 0)

    def _loop_answers(self, statement: str, keyword: str | None) -> bool:
        """Nothing but the engine answers `statement` (`keyword` its `sqltext.head`; None: no
        handler claims it, as the caller decided) and nothing of the session's state sends it
        `run_statement`'s way: no executable comment, no admin handler, `_reads_now`, no call of
        a stored function (whose DEFINER's privileges `_checked_execute` checks)."""
        return not ("/*!" in statement or "/*M!" in statement or not self._reads_now(keyword)
                    or keyword is not None and self.server.admin.claims(statement, keyword)
                    or may_call(self.server.engine.routines, statement))

    def run_prepared_read(self, prepared: PreparedRead, keyword: str, params: list[object],
                          ints: bool = False) -> Any:
        """`run_read_now` of a text of `prepared`'s shape whose literals are `params` (the
        prepared statement's word: its text around the values is the one `run_read_now`
        answered, so nothing but the session's state can decline it now; the role's claims on
        `keyword` were asked then, and are fixed once the server runs; `ints`: all of them ints)."""
        if not self._reads_now(None):
            return None
        result = self.engine_session.read_prepared(prepared, params, ints)
        if result is not None:  # (`_counted` of a prepared read, which names a table)
            self.server.stats.count_command(keyword)
            if self.diagnostics:
                self.diagnostics = []
        return result

    def unhindered(self) -> bool:
        """`_reads_now(None)`, kept in `reads_unhindered` for the kept reads and the prepared
        statements answered on receipt that follow (`PreparedStatements.kept_answer`, and
        `run_write_now` and its siblings with `passes`, ask the flag, and this only when it is
        down). What it
        asks moves only inside a command of the session's task (SET, LOCK TABLES, SET
        TRANSACTION, COM_CHANGE_USER, a stored routine's definer: each command drops the flag as
        it starts, `_command_loop`) or by a KILL (`kill`, `kill_query` drop it too); the
        statements answered on receipt move none of it, and none is answered on receipt while
        the task runs a command."""
        self.reads_unhindered = unhindered = self._reads_now(None)
        return unhindered

    def run_write_now(self, statement: str, keyword: str, unclaimed: bool = False, kept: KeptWrite | None = None,
                      values: list[object] | None = None, passes: bool = False) -> Any:
        """`run_statement` of a write inside the session's transaction run on the loop at once
        (`engine Session.write_now`: its writer lock held or free): its Result, or the SQLError
        it failed with, or None when the statement must take `run_statement`'s way (then
        nothing was counted). As `run_read_now`, with what `execute` refuses a write
        for besides: a read-only server, FLUSH TABLES WITH READ LOCK held by this session.
        `unclaimed`: the caller knows no role or admin handler claims `keyword` (a prepared
        write's, decided when it was prepared: the claims are fixed once the server runs).
        `kept`: the prepared write whose execution `statement` is, its placeholders holding
        `values`, plain (engine `Session.write_kept`, which plans the text only when it must).
        `passes`: the caller knows that `statement`'s text passes `_loop_answers`' tests of a
        text (a prepared statement's, unclaimed: `PreparedStatement.passes_text`), so only the
        session's state is asked (`_reads_now(None)`, through `reads_unhindered`)."""
        es = self.engine_session  # (`write_now` declines a write outside a transaction itself)
        if es is None or self.server.role.read_only or self._backup_lock is not None or not (
                (self.reads_unhindered or self.unhindered()) if passes
                else self._loop_answers(statement, None if unclaimed else keyword)):
            return None
        try:
            result = es.write_now(statement) if kept is None else es.write_kept(kept, statement, values)  # type: ignore[arg-type]
        except SQLError:
            self._counted(keyword, statement)
            raise
        if result is not None:
            self._counted(keyword, statement)
        return result

    def _reads_now(self, keyword: str | None) -> bool:
        """Nothing of the session's state sends a statement headed `keyword` `run_statement`'s
        way: no KILL QUERY pending, no next-transaction isolation to restore, an account with
        every privilege, no statement time limit, no role statement (None: none, as the caller
        decided)."""
        return not (self._query_killed or self._next_isolation or not self._all_privileges or self.table_locks
                    or self.sysvars.get("max_statement_time") or self.select_limit is not None
                    or keyword is not None and self.server.role.claims(keyword))

    def _counted(self, keyword: str, statement: str | None) -> None:
        """What `execute` does first for a statement the loop answers (`statement` None: a
        prepared read's)."""
        self.server.stats.count_command(keyword)
        if self.diagnostics and self._clears_warnings(keyword, statement):
            self.diagnostics = []

    @staticmethod
    def _clears_warnings(keyword: str, statement: str | None) -> bool:
        """Whether a statement starts with an empty warnings list: one that names a table (a
        write, table DDL or administration, a SHOW answered from information_schema or of a
        table's definition, a SELECT, SET or DO reading one); the others (SELECT 1, SET @a = 1,
        USE, BEGIN, CREATE DATABASE, GRANT, FLUSH, SHOW PROCESSLIST ...) keep the previous
        statement's, as MariaDB clears the list for a statement with tables only (a statement's
        own warnings replace it anyway). The diagnostic statements never clear it
        (`_DIAGNOSTIC_STATEMENTS`); nor is this asked while the list is empty, so that it costs
        a statement nothing then."""
        if statement is None:  # (a prepared read)
            return True
        first, _, second = keyword.partition(" ")
        if first in _TABLE_STATEMENTS:
            return True
        if first in ("CREATE", "ALTER", "DROP", "RENAME"):
            return second in _TABLE_OBJECTS
        if first == "SHOW":
            return _select_limited(keyword, statement) or second == "CREATE" and any(
                word in ("TABLE", "VIEW", "TRIGGER") for word in _leading_words(statement))
        return first in ("SELECT", "SET", "DO") and sqltext.names_a_table(statement)

    def statement_timed(self) -> None:
        """A statement run under SET STATEMENT long_query_time was timed with that value: the
        session's is back."""
        self.slow_after, self.slow_after_back = self.slow_after_back, None

    def take_select_limit(self) -> None:
        """The session's sql_select_limit as `select_limit` (None at its maximum: no limit)."""
        limit = self.sysvars.get("sql_select_limit")
        self.select_limit = None if limit is None or limit >= 2**64 - 1 else int(limit)

    def _limited(self, sql: str, result: Any) -> Any:
        """A top-level SELECT's (or a SHOW's that MariaDB answers as a SELECT) result cut to
        sql_select_limit rows, unless it has its own LIMIT (subqueries, INSERT ... SELECT and
        the like are never limited by it); FOUND_ROWS() then counts the rows returned, unless
        SQL_CALC_FOUND_ROWS counted them."""
        limit = self.select_limit
        rows = getattr(result, "rows", None)
        if limit is None or rows is None or len(rows) <= limit or sqltext.limits_itself(sql):
            return result
        if isinstance(result, ResultSet):
            result = replace(result, rows=tuple(rows)[:limit])
        else:
            result.rows = rows[:limit]
        if self.engine_session is not None and "SQL_CALC_FOUND_ROWS" not in sql.upper():
            self.engine_session.found = limit
        return result

    def limit_statement(self, seconds: float) -> None:
        """max_statement_time (MariaDB's): the running statement is interrupted `seconds` after
        it started (0: never), as KILL QUERY interrupts it (see `kill_query`: what runs on the
        writer connection completes), and fails with 1969 instead of 1317. Called at the start
        of each client statement with the session's value, and by SET STATEMENT
        max_statement_time=N FOR with its own. The applier runs no ClientSession statement, so
        replicated transactions are never limited (MariaDB's slave threads ignore it too)."""
        if self._statement_timer is not None:
            self._statement_timer.cancel()
            self._statement_timer = None
        if seconds > 0:
            self._statement_timer = self._loop.call_at(self._statement_start + seconds, self._statement_timeout)

    def _statement_timeout(self) -> None:
        self._statement_timer = None
        self._timed_out = True
        self.kill_query()

    def _interrupted(self) -> SQLError:
        """The error of an interrupted statement: 1969 (counted) when max_statement_time ended it."""
        if not self._timed_out:
            return SQLError(ER_QUERY_INTERRUPTED)
        self.statements_timed_out += 1
        self.server.stats.max_statement_time_exceeded += 1
        return SQLError(ER_STATEMENT_TIMEOUT)

    async def read_local_infile(self, filename: str) -> bytes:
        """The file a LOAD DATA LOCAL INFILE names, asked of the client and read from the
        following packets (the statement's answer follows)."""
        conn = self.conn
        assert conn is not None
        self.write(conn.request_local_infile(filename))
        pieces = []
        while True:
            event = await self._next_event()
            if isinstance(event, LocalInfileEnd):
                return b"".join(pieces)
            if not isinstance(event, LocalInfileData):  # (ConnectionClosed: nothing was loaded)
                raise RemoteProtocolError("the client closed the connection while sending a LOAD DATA LOCAL file",
                                          error=ER_NET_READ_ERROR)
            pieces.append(event.data)

    def send_more_result(self, result: Any) -> None:
        """Send a result set ahead of the command's answer (a procedure's SELECT in CALL),
        with SERVER_MORE_RESULTS_EXISTS and, as MariaDB's during a routine, no warnings counted
        in its end (they stay in the diagnostics area)."""
        self.send_result(result, _MORE, counted=False)

    def send_error(self, exc: SQLError) -> None:
        """Answer the command with an ERR (counted, and kept for SHOW WARNINGS)."""
        self._send_error(exc)

    def send_result(self, result: Any, more: int = 0, counted: bool = True) -> None:
        """Answer the command with a statement's result (OK or text result set); `more`: the
        SERVER_MORE_RESULTS_EXISTS flag of a result set sent ahead of it (`send_more_result`);
        `counted`: its warnings counted in the result set's end."""
        conn = self.conn
        assert conn is not None
        flags = self.status_flags() | more
        if isinstance(result, (OK, ResultSet, FieldList)):
            message = replace(result, status=flags)
        elif result is None:
            message = OK(status=flags)
        else:
            warnings = result.warnings
            if warnings:  # (the statement began with none)
                self.diagnostics = list(warnings)
            if result.columns:
                if not warnings and not more and TEXT_HEADS and self.results_charset is None:
                    self.write(conn.send_rows(self._text_head(result), flags,
                                              text_row_payloads(result.rows, len(result.columns))))
                    return
                message = ResultSet(result_columns(result), result.rows, flags, len(warnings) if counted else 0)
            else:  # (the info, "Records: 2  Duplicates: 0  Warnings: 0", length-encoded as MariaDB's)
                self.write(conn.send_ok(result.affected_rows, result.last_insert_id or 0, flags, len(warnings),
                                        result.info or ""))
                return
        if self.results_charset is not None and type(message) is ResultSet:
            message = self.in_results_charset(message)
        self.write(conn.send(message))

    def _text_head(self, result: Any) -> ResultHead:
        """The `ResultHead` of an engine Result's columns on this connection, kept by their names
        and types (at most TEXT_HEADS of them: the statements a client repeats)."""
        key = (tuple(result.columns), tuple(result.column_types or ()))
        head = self._text_heads.get(key)
        if head is None:
            if len(self._text_heads) >= TEXT_HEADS:
                self._text_heads.clear()
            assert self.conn is not None
            head = self._text_heads[key] = ResultHead.of(result_columns(result), self.conn.capabilities)
        return head

    def execute(self, sql: str) -> Awaitable[Any]:
        """Run one statement (see server/role.py for the order of the handlers): the awaitable
        of its result, which does all of it (nothing runs or raises before it is awaited). It
        is the step that decides, with no frame of its own on each resumption of the statement
        (a commit's several)."""
        if "/*!" in sql or "/*M!" in sql:
            # Executable comments (mysqldump, mysqladmin: `SHOW /*!50002 GLOBAL */ STATUS`) are
            # read as a server of our version reads them, before anything looks at the text.
            sql = sqltext.unwrap_comments(sql, self.server.version_number)
        keyword = sqltext.head(sql)
        if not keyword:
            return self._without_keyword(sql)
        if self.select_limit is not None and _select_limited(keyword, sql):
            return self._limited_dispatch(sql, keyword)
        return self._dispatch(sql, keyword)

    async def _without_keyword(self, sql: str) -> Any:
        """`execute` of a text without a leading word (after executable comments were read)."""
        if not sql:
            return None  # only comments, or a version above ours: nothing to run
        if sqltext.is_blank(sql):
            raise SQLError(ER_EMPTY_QUERY)
        return await self._checked_execute(sql, "")

    async def _limited_dispatch(self, sql: str, keyword: str) -> Any:
        """`execute` of a statement that sql_select_limit may cut (`_limited`)."""
        return self._limited(sql, await self._dispatch(sql, keyword))

    async def _dispatch(self, sql: str, keyword: str) -> Any:
        """`execute` of a statement with a leading keyword."""
        server = self.server
        server.stats.count_command(keyword, sql)
        if self.diagnostics and keyword not in _DIAGNOSTIC_STATEMENTS and self._clears_warnings(keyword, sql):
            self.diagnostics = []
        if self._all_privileges is False:
            required = STATEMENT_PRIVILEGES.get(keyword)
            if required is not None and keyword in ("SHOW SLAVE", "SHOW REPLICA") and _SHOW_SLAVE_HOSTS.match(sql):
                required = STATEMENT_PRIVILEGES["SHOW REPLICAS"]
            if required is not None:
                self.require(*required)
        if self.table_locks is not None and keyword.partition(" ")[0] not in ("LOCK", "UNLOCK"):
            await self._locked_statement(sql, keyword)
        if keyword.startswith("LOAD"):  # LOAD DATA [LOCAL] INFILE: a file into a table
            return await load_data.load_data(self, sql)
        if keyword in ("CREATE TABLE", "CREATE TEMPORARY") and "SELECT" in sql.upper():  # CREATE TABLE ... SELECT
            made = await create_select.create_select(self, sql)
            if made is not None:
                return made
        role = server.role
        if role.claims(keyword):
            result = await role.execute(self, sql, keyword)
            if result is not None:
                return result
        first = keyword.partition(" ")[0]
        handler = server.admin.handlers.get(first)
        if handler is not None:
            result = await handler(self, sql, keyword)
            if result is not None:
                return result
        if role.read_only and first in WRITE_KEYWORDS and not self.has_privilege(ALL, "READ_ONLY ADMIN"):
            raise SQLError(ER_OPTION_PREVENTS_STATEMENT, "--read-only")  # MariaDB 10.11: READ_ONLY ADMIN writes
        if self._backup_lock is not None and first in WRITE_KEYWORDS:
            raise SQLError(ER_CANT_UPDATE_WITH_READLOCK)
        try:
            result = await self._checked_execute(sql, first)
        except IntoFile:  # SELECT ... INTO OUTFILE / DUMPFILE: the file is the server's to write
            return await file_statements.select_into_file(self, sql)
        if first == "CREATE" or first == "DROP":  # a routine's automatic grants (automatic_sp_privileges)
            routines.after_ddl(self, sql)
        return result

    def evaluate_now(self, sql: str) -> Any:
        """`evaluate_select`'s Result answered on the loop at once, where nothing but the engine
        answers `sql` (`_loop_answers`, `engine Session.select_now`); else None (then
        `evaluate_select` runs it). A stored procedure's conditions and SETs in a loop take it."""
        if not self._loop_answers(sql, None):
            return None
        return self.engine_session.select_now(sql)

    async def evaluate_select(self, sql: str) -> Any:
        """A SELECT of expressions (a SET's, an EXECUTE's USING values) run by the engine after
        the privilege check, not counted as a statement of the client's."""
        return await self._checked_execute(sql, "SELECT")

    def _checked_execute(self, sql: str, first: str) -> Awaitable[Any]:
        """An engine statement, after the privilege check of an account without ALL: the
        awaitable of its result (with ALL the engine's step itself, no frame of its own)."""
        privileges = self.privileges
        if privileges is None:
            if may_call(self.server.engine.routines, sql):
                return self._definers_checked_execute(sql)
            return self._engine_execute(sql)
        return self._privileged_execute(privileges, sql, first)

    async def _definers_checked_execute(self, sql: str) -> Any:
        """`_checked_execute` for an account with ALL of a statement that may call a stored
        function: a SQL SECURITY DEFINER function's body reads its tables as its definer."""
        await Privileges(self).check_definers(sql)
        return await self._engine_execute(sql)

    async def _privileged_execute(self, privileges: Privileges, sql: str, first: str) -> Any:
        """`_checked_execute` for an account without ALL."""
        self.engine_session.visible = privileges  # information_schema lists what the account sees
        verdict = await privileges.check(sql, first)
        result = await self._engine_execute(sql, lock_reads=verdict.lock_reads)
        if verdict.keep is not None and result.rows:
            result.rows = [row for row in result.rows if verdict.keep(row)]
        return result

    def read_infoschema(self, view: str) -> list[tuple]:
        """The rows of information_schema's server views (`view` lower-case: processlist,
        global_variables, session_variables, global_status, session_status, plugins,
        rpl_semi_sync_slaves (empty unless the semi-sync master plugin is installed and the account
        may SHOW SLAVE HOSTS), innodb_trx, innodb_locks, innodb_lock_waits: server/transactions.py,
        user_privileges, schema_privileges, table_privileges (every account's with SELECT on
        mysql, else the session's own) as this session may see them; the variables' names
        upper-case, as MariaDB lists them; global_priv, user, db, tables_priv, columns_priv,
        procs_priv, proxies_priv and roles_mapping are the `mysql` tables' (1142 without SELECT
        on the table)."""
        if view == "processlist":
            return processlist.infoschema_rows(self.server, processlist.shown_user(self))
        if view == "plugins":
            return self.server.plugins.infoschema_rows()
        if view == "rpl_semi_sync_slaves":  # the semi-sync master plugin's, as SHOW SLAVE HOSTS needs
            if not self.server.plugins.registry.is_installed("rpl_semi_sync_master") or not self.has_privilege(
                    ALL, "REPLICATION MASTER ADMIN"):
                return []
            return self.server.role.semisync_slaves()
        if view.startswith("innodb_"):
            return transactions.infoschema_rows(self, view)
        if view.endswith("_privileges"):  # USER_ / SCHEMA_ / TABLE_PRIVILEGES: others' rows for SELECT on mysql only
            accounts = self.server.users.accounts()
            if self.account is None or not self.account.holds("SELECT", "mysql"):
                accounts = [a for a in accounts if self.account is not None
                            and (a.user, a.host) == (self.account.user, self.account.host)]
            return [row for account in accounts for row in account.privilege_rows(view)]
        if view in _MYSQL_ROWS:  # the `mysql` tables: for SELECT on them only
            if self.account is None or not self.account.may_read("mysql", view):
                raise SQLError(ER_TABLEACCESS_DENIED_ERROR, "SELECT", self.user, self.host, "mysql", view)
            return [row for account in self.server.users.accounts() for row in _MYSQL_ROWS[view](account)]
        variables = self.server.variables
        if view.endswith("_status"):
            rows = variables.show_status(None, self.session_status(view == "global_status"))
        else:
            rows = variables.show_variables(self, Scope.GLOBAL if view == "global_variables" else None, None)
        return [(name.upper(), "" if value is None else value) for name, value in rows]

    def read_sysvar(self, text: str) -> Any:
        """`@@name`, `@@global.name`, `@@session.name` as SELECT shows it (the engine reads
        system variables through this; 1193 for an unknown one)."""
        return select_value(self._sysvar(text))

    def sysvar_type(self, text: str) -> ColumnType:
        """`SELECT @@name`'s result column (`read_sysvar`'s text), as MariaDB types it."""
        return self.sysvar_column(self._sysvar(text))

    def sysvar_column(self, value: Any) -> ColumnType:
        """The result column of a system variable of `value`: a string's in character_set_results
        (`coltypes.sysvar_type`)."""
        return coltypes.sysvar_type(value, *self._results_text())

    def uservar_column(self, value: Any, is_set: bool) -> ColumnType:
        """The result column of a user variable holding `value` (`is_set`: it was ever set): a
        string's in character_set_results (`coltypes.uservar_type`)."""
        return coltypes.uservar_type(value, is_set, *self._results_text())

    def _results_text(self) -> tuple[int, int]:
        """character_set_results' collation number and bytes per character, as a result's text
        column is described in it (utf8mb4's when it is unset or binary)."""
        results = CHARSETS.get(self.sysvars.get("character_set_results"))  # type: ignore[arg-type]
        if results is None or results is BINARY:
            return CHARSET_UTF8MB4_GENERAL_CI, coltypes.MB
        return results.number, results.mbmaxlen

    def _sysvar(self, text: str) -> Any:
        scope: Scope | None = None
        name = text[2:]
        prefix, dot, rest = name.partition(".")
        if dot and prefix.lower() in ("global", "session", "local"):
            scope = Scope.GLOBAL if prefix.lower() == "global" else Scope.SESSION
            name = rest
        return self.server.variables.get(name.lower(), self, scope)

    def isolate_next_transaction(self, level: str) -> None:
        """SET TRANSACTION ISOLATION LEVEL without a scope: `level` for the next transaction
        only (an autocommit statement is one), then the session's level again."""
        es = self.engine_session
        if es is not None and es.in_transaction:
            raise SQLError(ER_CANT_CHANGE_TX_CHARACTERISTICS)
        apply_isolation(self, level)
        self._next_isolation = True

    async def _engine_execute(self, sql: str, lock_reads: bool = True) -> Any:
        if self._query_killed:  # (a KILL QUERY between `run_statement`'s check and here)
            raise SQLError(ER_QUERY_INTERRUPTED)
        self._in_engine = True
        try:
            result = await self.engine_session.execute(sql, lock_reads=lock_reads)
        except SQLError as exc:
            self._in_engine = False
            # A failing DDL still committed the transaction before it (MySQL's implicit commit).
            committed = getattr(exc, "committed", None)
            if committed is not None:
                await self.commit(committed)
            if exc.code == ER_SP_DOES_NOT_EXIST.code:
                raise routines.function_call_refused(self, exc) from None
            raise
        finally:
            self._in_engine = False
            if self._next_isolation and not (self.engine_session and self.engine_session.in_transaction):
                self._next_isolation = False  # that transaction is over: the session's level again
                apply_isolation(self)
        if result.committed is not None:
            # `commit(...)`, awaited without `committing`'s frame: never cancelled
            self._in_commit = True
            try:
                await self.server.role.commit(self, result.committed)
            finally:
                self._in_commit = False
        if result.release:  # COMMIT / ROLLBACK RELEASE
            self.kill_after_reply()
        return result

    def commit(self, committed: Any) -> Awaitable[None]:
        """Hand a logically committed engine transaction to the role (group commit), once
        awaited (the coroutine of `committing`: no frame of its own on each resumption)."""
        return self.committing(self.server.role.commit(self, committed))

    async def committing(self, step: Awaitable[Any]) -> Any:
        """Await a step that goes through the group commit (a commit; the binlog group of a
        user statement, node/role.py): never cancelled -- KILL, KILL QUERY, max_statement_time
        and shutdown leave a session alone inside it, so no group is left half-way."""
        self._in_commit = True
        try:
            return await step
        finally:
            self._in_commit = False
