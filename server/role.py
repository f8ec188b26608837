"""The seam between the shared server shell and the role it serves.

Contract
- A `Server` holds exactly one `Role`. The server owns the listener, the client sessions,
  authentication, users, system/status variables, plugins and the generic admin statements;
  the role owns everything replication-specific. A daemon's role is `node.role.NodeRole`, which
  holds both sides at once (the source side: binlog and dump sessions; the replica side: IO
  task, relay log and applier) and dispatches to them; a role that attaches sub-roles attaches
  each to the same server.
- Life cycle: `Server.__init__` calls `role.attach(server)` once (the role may keep the server
  to reach `server.engine`, `server.variables`, `server.plugins`, `server.sessions` ...).
  `Server.start()` binds the listening socket (so `server.port` is known), then awaits
  `role.start()`, and only then accepts clients. `Server.shutdown(deadline)` stops accepting,
  drains and closes every session (dump sessions included), then awaits
  `role.shutdown(deadline)`.
- Statements (COM_QUERY, one statement at a time after multi-statement splitting). The server
  computes `keyword`: the statement's first two words, upper-cased, joined by one space (a
  word is a run of letters, digits, `_`, `$`; e.g. "SHOW MASTER", "START SLAVE",
  "SELECT BINLOG_GTID_POS", "INSERT INTO", or one word when there is only one). Per statement:
  1. `role.claims(keyword)` (must be cheap: a set lookup); when True the server awaits
     `role.execute(session, sql, keyword)`; a non-None result is the statement's answer.
     Returning None falls through to the server's own handling.
  2. the server's admin statements (SHOW VARIABLES/STATUS/PROCESSLIST/PLUGINS/GRANTS, SET,
     SELECT @@var / @var / DATABASE() ..., USE, KILL, CREATE/DROP USER, GRANT,
     INSTALL/UNINSTALL PLUGIN, FLUSH STATUS/PRIVILEGES/TABLES);
  3. when `role.read_only` is True, a writing statement (INSERT, UPDATE, DELETE, REPLACE,
     CREATE/DROP/ALTER/TRUNCATE/RENAME of tables or databases, LOAD) is refused with
     ER_OPTION_PREVENTS_STATEMENT ('--read-only') before the engine sees it, unless the
     account holds READ_ONLY ADMIN (ALL PRIVILEGES does), as MariaDB 10.11;
  4. the engine: `await session.engine_session.execute(sql)`. When the result carries
     `committed` (a transaction that wrote something just ended with a commit), the server
     awaits `role.commit(session, result.committed)` before answering the client. The server
     never cancels a session while it is in `role.commit` (KILL and shutdown wait for it), so a
     group commit is not cut in half. Where `role.commits_now`, a COMMIT may instead be begun
     in the session's receive callback: `role.commit_now(session, committed)` is called in the
     same step as the engine ended the transaction, and must have queued it there (no await
     in between) so that no commit of the engine leaves it out; the session awaits what it
     returns before answering, as it awaits `role.commit`.
  A role raises `protocol.errors.SQLError` to answer with an ERR packet; anything else is a bug
  (logged, ERR 1105, connection closed).
- Commands other than COM_QUERY / COM_INIT_DB / COM_PING / COM_QUIT / COM_PROCESS_KILL go to
  `role.handle_command(session, cmd)` first (COM_REGISTER_SLAVE, COM_BINLOG_DUMP,
  COM_BINLOG_DUMP_GTID); False means "not mine" and the client gets ER_UNKNOWN_COM_ERROR.
  Privileges: the server already checked REPLICATION SLAVE for those three commands (ERR 1227
  otherwise) before calling the role.
  A dump takes the connection over: the role writes with `session.write(bytes)` /
  `await session.drain()` and may install `session.set_raw_reader(callback)` so that incoming
  bytes go to the callback (the master's ack receiver) instead of the command parser. While a
  raw reader is installed after `handle_command` returned, the session stops reading commands
  and waits until the connection closes (`session.close()` by the role, the peer, KILL or
  shutdown). The role may also run the whole dump inside `handle_command` and return when it
  ends; the connection is then closed if a raw reader is still installed.
- Variables: `system_variables()` and `status_variables()` are providers the server registers
  at attach time (see server/variables.py for `SystemVariable`). `status_variables()` is called
  on every SHOW STATUS and returns the current values.
- User statements: after CREATE USER / DROP USER / GRANT changed the user table the server
  awaits `role.after_user_change(session, statement)` with the statement rewritten the way
  MariaDB binlogs it (passwords only as `IDENTIFIED BY PASSWORD '*HEX'`), so a master may write
  it to its binlog. The slave's applier replays such a statement with
  `server.apply_user_statement(sql)`.
- Replication threads and tables: `system_threads()` are the role's threads the processlist
  lists next to the sessions (a replica's Slave_IO / Slave_SQL), each with a connection id the
  server gave out; KILL of an id no session has goes to `kill_thread(id)` (False: no such
  thread, 1094). `semisync_slaves()` are information_schema.RPL_SEMI_SYNC_SLAVES' rows, which
  the server shows only while the semi-sync master plugin is installed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.listener import Server
    from server.session import ClientSession
    from server.variables import SystemVariable


class Role:
    """Base class of the roles (node, and its source and replica sides). Every method has a harmless default."""

    #: "node", "master", "slave" ... (shown in logs; the server does not branch on it).
    name: str = "role"
    #: Two-word (or one-word) keywords this role answers, see the module docstring.
    CLAIMS: frozenset[str] = frozenset()
    #: The global read_only (SET GLOBAL read_only sets it): while True, client writes are refused
    #: with ERR 1290 before the engine runs them.
    read_only: bool = False
    #: `commit_now` begins a commit synchronously (then a COMMIT may be answered on receipt).
    commits_now: bool = False

    server: Server | None = None

    def attach(self, server: Server) -> None:
        """Called once by `Server.__init__`."""
        self.server = server

    # -- variables ------------------------------------------------------------------------

    def system_variables(self) -> Iterable[SystemVariable]:
        """The role's own system variables (e.g. master: log_bin ON, binlog_checksum)."""
        return ()

    def status_variables(self) -> Mapping[str, Any]:
        """Current values of the role's status variables (name -> value), read per SHOW STATUS."""
        return {}

    # -- replication threads and tables ---------------------------------------------------

    def system_threads(self) -> list[tuple[int, str, float, str]]:
        """(connection id, Command, start time on the monotonic clock, State) of each thread."""
        return []

    async def kill_thread(self, connection_id: int) -> bool:
        """Stop the thread with this id; False when none of `system_threads()` has it."""
        return False

    def semisync_slaves(self) -> list[tuple]:
        """(SERVER_ID, HOST, PORT, ACKED_LOG_FILE, ACKED_LOG_POS) of each registered slave."""
        return []

    # -- statements -----------------------------------------------------------------------

    def claims(self, keyword: str) -> bool:
        """True when `keyword` (e.g. "SHOW MASTER") starts a statement this role executes."""
        return keyword in self.CLAIMS or keyword.partition(" ")[0] in self.CLAIMS

    async def execute(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """Execute a claimed statement. Return an `engine` Result, a protocol OK/ResultSet, or
        None to let the server handle the statement itself. Raise SQLError for an ERR."""
        return None

    def commit(self, session: ClientSession, txn: Any) -> Awaitable[None]:
        """Make the engine transaction `txn` (a `CommittedTxn` from the engine) durable and
        visible; the awaitable ends when the client may get its OK. The master runs the group
        commit here (binlog write, after_flush, sync, after_sync, engine commit, after_commit).
        Nothing is done before it is awaited; a role that only forwards returns the coroutine of
        the part it forwards to (no frame of its own on each resumption of the commit)."""
        raise NotImplementedError

    def commit_now(self, session: ClientSession, txn: Any) -> Awaitable[None]:
        """`commit` begun synchronously, where `commits_now`: before this returns, `txn` is
        queued where no commit of the engine can leave it out (the caller released the writer
        lock in this same step, without a task); the awaitable ends as `commit` would."""
        raise NotImplementedError

    async def after_user_change(self, session: ClientSession, statement: str) -> None:
        """A user-table statement just succeeded (see module docstring); default: nothing."""
        return None

    # -- commands -------------------------------------------------------------------------

    async def handle_command(self, session: ClientSession, cmd: Any) -> bool:
        """COM_REGISTER_SLAVE / COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID. Return False when the
        command is not this role's (the client gets ERR 1047)."""
        return False

    # -- life cycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """After the listener is bound (server.port is known), before clients are served."""
        return None

    async def shutdown(self, deadline: float) -> None:
        """After every session was closed; `deadline` is a loop.time() value."""
        return None


class NullRole(Role):
    """No binlog, no replication: commits go straight to the engine in groups.

    Every committing session takes a ticket; whoever gets the engine's writer lock first runs
    `engine.commit_group({})`, which makes every transaction logically committed so far durable,
    and the sessions whose ticket it covered return without a commit of their own. Used by the
    server's own tests and as the simplest example of a role.
    """

    name = "null"

    def __init__(self) -> None:
        self._issued = 0  # tickets handed out to committing sessions
        self._durable = 0  # every ticket up to this one is group-committed

    async def commit(self, session: ClientSession, txn: Any) -> None:
        assert self.server is not None
        engine = self.server.engine
        self._issued += 1
        ticket = self._issued
        async with engine.writer_lock:
            if self._durable >= ticket:
                return
            covered = self._issued
            await engine.commit_group({})
            self._durable = covered
