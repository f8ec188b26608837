"""The engine: MySQL sessions over embedded SQLite, built for group commit and semi-sync AFTER_SYNC.

Files. `datadir/__engine__.sqlite` (the writer's main database: the meta of commits that touched
no schema) and one `datadir/<schema>.sqlite` per MySQL database, ATTACHed under the schema's name,
so `db.table` resolves natively. Every file is in WAL mode with synchronous=FULL (or NORMAL, see
`Engine.open`).

Any number of databases (the design, and why). SQLite holds at most ATTACH_LIMIT (10) files on
one connection, so each connection attaches files on demand and detaches the least recently used
one to make room. Kept: one file per database (existing datadirs open unchanged; DROP DATABASE
deletes a file; a transaction across files stays atomic through the multi-file redo record below,
which needs nothing new). Rejected: several databases per file or one file with namespaced tables
(every table reference, the authorizer's table names and the catalog would need renaming, and a
datadir conversion); a build of SQLite with a larger limit (125 at most, not 1,000). Rules:
- the writer attaches a statement's target database before running it (with every database its
  foreign keys join it to, whose files the FK triggers read), and any other database the
  statement names when SQLite, compiling it, reports it missing (nothing has run: it is retried).
  It never detaches a file the open group wrote or read (SQLite refuses: the file is in the
  transaction), so a group holds at most ATTACH_LIMIT databases: an autocommit statement that
  finds no room lets the group commit and runs after it; a statement of a longer transaction
  gets 1105 (a transaction writes at most ATTACH_LIMIT databases);
- a reader attaches what a query reports missing the same way. A REPEATABLE READ snapshot takes
  each file's view at its first read (as with one file per database before) and reads at most
  ATTACH_LIMIT databases (then 1105). While there are at most ATTACH_LIMIT databases every
  connection holds every file, and WITH CONSISTENT SNAPSHOT takes all views at its start; beyond,
  it takes the default database's and refuses to read another (1105), never a later view;
- the single-database hot path costs one dict lookup per write (the target is attached).

Threads. One writer connection, used only from the single writer thread; reader connections
(one per reader thread) see only what SQLite has committed. The event loop never calls SQLite.

Writer lock and group commit (who may call what). `Engine.writer_lock` is a FIFO lock. A session
takes it at its first write (autocommit write, or the first write after BEGIN) and holds it until
its transaction ends; each logical transaction is a SAVEPOINT inside the writer connection's open
SQLite transaction. COMMIT releases the savepoint (changes stay in the open SQLite transaction,
invisible to readers; the RELEASE itself runs at the writer thread's next operation, so COMMIT
needs no thread hop), returns a `CommittedTxn` and releases the lock. A session cancelled while
its autocommit statement runs has that statement undone: nothing unlogged is ever committed. The committer (the master's
group-commit pipeline) then takes the same lock — so every session already queued commits first and
joins the group — writes the binlog, fsyncs, waits for acks, and calls `commit_group(meta)`: the one
real SQLite COMMIT, which stores `meta` in the same transaction. `rollback_group()` discards every
transaction since the last commit_group (for a failed binlog write). A failed `commit_group` (a
full disk: SQLite then rolls the transaction back itself) leaves the engine as `rollback_group`
does; `replay_group` runs the group again from the caller's log under the held lock. An error
that makes SQLite end the open transaction mid-group (SQLITE_FULL in a statement) is noticed:
later writes begin a new transaction (never autocommit) and the group's commit fails.
Consequence, unlike InnoDB: a write transaction (reading through the writer) sees transactions that
are logically committed but not yet group-committed; sessions without the lock read through readers
and see only group-committed data: by default each SELECT the newest (READ COMMITTED); with
`Session.isolation = REPEATABLE_READ` a transaction reads one snapshot taken at its first read
(on a reader connection the session pins until the transaction ends) until it becomes a writer.
A locking read (SELECT ... FOR UPDATE / LOCK IN SHARE MODE) inside a transaction
takes the writer lock, so read-modify-write transactions serialize. A session holding the lock
(an open write transaction) makes every other writer, and the committer, wait: at most
`lock_wait_timeout` seconds for sessions (then 1205).

Durability and meta (the scheme, chosen for atomicity): commit_group writes the meta dict, with a
group sequence number, into every file the group wrote (each schema file touched, or the main file
when none was), inside the SQLite transaction it commits, so a file's data and its meta row are
always committed together. SQLite commits the files of a multi-file WAL transaction one after the
other, so a group that wrote several files also stores a redo record (its statements with their
contexts and the file each wrote) in each of them. At open, a file that misses the newest group
while that group's record names it (a crash between the files' commits) gets the group's
statements re-run and committed with the group's meta (`Engine.repaired` lists such files). After
`open()` every file agrees with `meta()`: exactly the groups up to it are in. `schema_metas()`
shows each file's meta. A live commit can stop between the files too (a full disk): the group
then counts as committed, and its statements are re-run on the files that miss it, as at open
(`_rerun_torn`, the one repair): before `commit_group` returns (or by `replay_group`, which then
never runs the group again), and for a replicated batch (`apply_transactions`) before the next
batch.

DDL is not transactional in MySQL: it ends the open transaction and becomes its own statement of
the same `CommittedTxn` (see `CommittedTxn.binlog_transactions`). CREATE DATABASE creates and
attaches its file at once; DROP DATABASE drops the tables in the open transaction and deletes the
file after the next commit_group.

(A dropped database's file is marked in that commit, so a file that outlives it is deleted at open.)

Auto-increment ids are handed out by the engine (per-table counters, never reused within a run,
restarted from MAX(id)+1 at open, like InnoDB before 8.0), so `StatementContext.insert_id`
reproduces the master's ids on a replica. NOW() and friends are the statement's timestamp (UTC),
`StatementContext.timestamp` when replaying.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import os
import queue
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from engine import coltypes, decimal_math, explain, functions, infoschema, values
from engine.catalog import (
    DECIMAL_COLLATION,
    VIEW_PREFIX,
    Table,
    TokenCursor,
    View,
    mysql_literal,
    sql_literal,
)
from engine.ddl import DdlAction, DdlParser
from engine.foreign_keys import FkTriggers, fk_error
from engine.lexer import (
    SyntaxError_,
    extract,
    inline_sysvars,
    literal_texts,
    quote_ident,
    syntax_error,
    tokenize,
)
from engine.translate import (
    CONN_ID,
    CURDATE,
    CURTIME,
    DATABASE,
    FOUND,
    LAST_ID,
    NOW,
    ROW_COUNT,
    STORE,
    UNIX_NOW,
    Plan,
    Translator,
)
from protocol.errors import (
    ER_BAD_DB_ERROR,
    ER_BAD_FIELD_ERROR,
    ER_BAD_NULL_ERROR,
    ER_DB_CREATE_EXISTS,
    ER_DUP_ENTRY,
    ER_EMPTY_QUERY,
    ER_INVALID_CHARACTER_STRING,
    ER_KEY_NOT_FOUND,
    ER_LOCK_WAIT_TIMEOUT,
    ER_NO_DEFAULT_FOR_FIELD,
    ER_NO_SUCH_TABLE,
    ER_NO_TABLES_USED,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_RECORD_FILE_FULL,
    ER_SERVER_SHUTDOWN,
    ER_SP_DOES_NOT_EXIST,
    ER_TABLE_EXISTS_ERROR,
    ER_TOO_MANY_DATABASES,
    ER_UNKNOWN_ERROR,
    SQLError,
)

READ_COMMITTED, REPEATABLE_READ = "READ-COMMITTED", "REPEATABLE-READ"
MAIN_FILE = "__engine__.sqlite"
META_TABLE = "__engine_meta"
CATALOG_TABLE = "__engine_catalog"
SEQ_KEY = "__seq"
REDO_KEY = "__redo"
DROPPED_KEY = "__dropped"
ATTACH_LIMIT = 10  # SQLite's SQLITE_MAX_ATTACHED (the most files one connection can hold)
PLAN_CACHE_SIZE = 4096
# A replicated statement: (sql, context, default database[, table whose row it must find]).
ReplicatedStatement = tuple[Any, ...]
MAX_CACHED_SHAPE = 16384  # bulk INSERTs (one shape per row count) are translated, not cached
SERVER_VERSION = "10.11.0-semisync"


# --- values exchanged with the master and the slave ---------------------------------------------


@dataclass
class StatementContext:
    """Values that make a replayed statement reproduce the master's rows."""

    timestamp: int | None = None
    insert_id: int | None = None
    last_insert_id: int | None = None
    rand_seed: tuple[int, int] | None = None
    user_vars: dict[str, object] = field(default_factory=dict)
    foreign_key_checks: bool = True  # off: the master ran it with foreign_key_checks=0 (Q_FLAGS2)


@dataclass(frozen=True)
class LoggedStatement:
    db: str | None
    sql: str  # the original MySQL text
    timestamp: int
    insert_id: int | None = None  # first auto-increment id generated (INTVAR INSERT_ID)
    last_insert_id: int | None = None  # LAST_INSERT_ID() used by the statement (INTVAR LAST_INSERT_ID)
    is_ddl: bool = False
    rand_seed: tuple[int, int] | None = None  # RAND() seeds before the statement (RAND event)
    user_vars: tuple[tuple[str, object], ...] = ()  # @variables read, with their values (USER_VAR events)
    foreign_key_checks: bool = True  # the session's foreign_key_checks when it ran

    def context(self) -> StatementContext:
        return StatementContext(self.timestamp, self.insert_id, self.last_insert_id, self.rand_seed,
                                dict(self.user_vars), self.foreign_key_checks)


@dataclass
class CommittedTxn:
    """What one call committed (logically), in order. `binlog_transactions()` splits it the way
    the binlog must carry it: each run of DML statements is one BEGIN ... XID transaction, each
    DDL statement its own QUERY event (a DDL statement commits the transaction before it)."""

    statements: list[LoggedStatement]

    def binlog_transactions(self) -> list[list[LoggedStatement]]:
        groups: list[list[LoggedStatement]] = []
        run: list[LoggedStatement] = []
        for stmt in self.statements:
            if stmt.is_ddl:
                if run:
                    groups.append(run)
                    run = []
                groups.append([stmt])
            else:
                run.append(stmt)
        if run:
            groups.append(run)
        return groups


@dataclass(frozen=True, slots=True)
class Access:
    """What one statement touches, for a privilege check (`Session.access`): the tables and
    columns its SQLite translation reads and writes as SQLite's authorizer reports them while
    compiling it -- whatever the statement's shape (CTEs, subqueries, UNION, joins) -- plus the
    MySQL-level facts SQLite cannot see. Engine-internal tables are left out."""

    kind: str  # the plan's kind: "select", "write", "ddl", "admin", "noop", "begin", ...
    target: tuple[str, str] | None = None  # the written (schema, table) of a "write"
    reads: tuple[tuple[str, str, str], ...] = ()  # (schema, table, column; '' when none is read)
    writes: tuple[tuple[str, str, str], ...] = ()  # (INSERT | UPDATE | DELETE, schema, table)
    locking: bool = False  # SELECT ... FOR UPDATE / LOCK IN SHARE MODE
    upsert: bool = False  # INSERT ... ON DUPLICATE KEY UPDATE


_AUTH_WRITES = {sqlite3.SQLITE_INSERT: "INSERT", sqlite3.SQLITE_UPDATE: "UPDATE", sqlite3.SQLITE_DELETE: "DELETE"}


def _internal(schema: str | None, table: str | None) -> bool:
    return not schema or schema in ("main", "temp") or not table or table.startswith(("__", "sqlite_"))


@dataclass
class Result:
    columns: list[str] = field(default_factory=list)
    # per column: its `coltypes.ColumnType` (or, for catalog answers, a coarse kind:
    # integer/double/string/blob/datetime/null)
    column_types: list[Any] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    affected_rows: int = 0
    last_insert_id: int = 0
    info: str = ""
    in_transaction: bool = False
    committed: CommittedTxn | None = None

    @property
    def is_result_set(self) -> bool:
        return bool(self.columns)


_DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$")


def column_types(rows: list[tuple], ncols: int) -> list[str]:
    types = []
    for i in range(ncols):
        kind = "null" if rows else "string"
        for row in rows:
            v = row[i]
            if v is None:
                continue
            if isinstance(v, int):
                kind = "integer"
            elif isinstance(v, float):
                kind = "double"
            elif isinstance(v, bytes):
                kind = "blob"
            else:
                kind = "datetime" if _DATETIME.match(v) else "string"
            break
        types.append(kind)
    return types


# --- the writer lock ------------------------------------------------------------------------------


class WriterLock:
    """A strictly FIFO asyncio lock with an owner; ownership passes straight to the next waiter."""

    def __init__(self) -> None:
        self._owner: object | None = None
        self._waiters: collections.deque[tuple[asyncio.Future, object]] = collections.deque()

    @property
    def owner(self) -> object | None:
        return self._owner

    def locked(self) -> bool:
        return self._owner is not None

    async def acquire(self, owner: object, timeout: float | None = None) -> None:
        if self._owner is None and not self._waiters:
            self._owner = owner
            return
        fut = asyncio.get_running_loop().create_future()
        entry = (fut, owner)
        self._waiters.append(entry)
        try:
            if timeout is None:
                await fut
            else:
                async with asyncio.timeout(timeout):
                    await fut
        except BaseException:
            if fut.done() and not fut.cancelled():
                self.release()  # ownership arrived as we gave up: pass it on
            else:
                fut.cancel()
                try:
                    self._waiters.remove(entry)
                except ValueError:
                    pass
            raise

    def release(self) -> None:
        self._owner = None
        while self._waiters:
            fut, owner = self._waiters.popleft()
            if not fut.done():
                self._owner = owner
                fut.set_result(None)
                return

    async def __aenter__(self) -> WriterLock:
        await self.acquire(asyncio.current_task())
        return self

    async def __aexit__(self, *exc) -> None:
        self.release()


# --- SQLite errors -> MySQL errors ----------------------------------------------------------------


# What SQLite raises for a statement it refuses, before running any of it: its own errors, and
# a statement text or string value that is not UTF-8 (the client's bytes, kept as surrogates).
SQLITE_INPUT_ERRORS = (sqlite3.Error, UnicodeEncodeError)


def map_sqlite_error(exc: sqlite3.Error | UnicodeEncodeError, database: str | None) -> SQLError:
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start : exc.end].encode("utf-8", "surrogateescape")
        return SQLError(ER_INVALID_CHARACTER_STRING, "utf8mb4", bad.hex().upper())
    msg = str(exc)
    m = re.match(r"no such table: (?:([^.]+)\.)?(.+)", msg)
    if m:
        return SQLError(ER_NO_SUCH_TABLE, m.group(1) or database or "", m.group(2))
    m = re.match(r"no such column: (.+)", msg)
    if m:
        return SQLError(ER_BAD_FIELD_ERROR, m.group(1), "field list")
    m = re.match(r"table (?:\"?\w+\"?\.)?\"?([^\"]+)\"? already exists", msg)
    if m:
        return SQLError(ER_TABLE_EXISTS_ERROR, m.group(1))
    m = re.search(r'near "(.*)": syntax error', msg)
    if m or "syntax error" in msg or "incomplete input" in msg:
        return syntax_error(m.group(1) if m else "")
    m = re.match(r'unrecognized token: "(.*)"', msg)
    if m:
        # MySQL's bitwise XOR has no SQLite operator: unsupported, never a wrong value; any
        # other token SQLite cannot read is a syntax error
        if m.group(1) == "^":
            return SQLError(ER_NOT_SUPPORTED_YET, "the ^ (bitwise XOR) operator")
        return syntax_error(m.group(1))
    if msg == "no tables specified":  # SELECT * without FROM
        return SQLError(ER_NO_TABLES_USED)
    if "ambiguous column name" in msg:
        return SQLError(ER_UNKNOWN_ERROR, msg.replace("ambiguous column name: ", "Column '") + "' is ambiguous")
    if msg == "user-defined function raised exception" and (error := functions.raised()) is not None:
        return error  # a function failed the statement with MySQL's error (functions.raise_sql)
    if msg == "interrupted":  # KILL QUERY (SessionFunctions.interrupt)
        return SQLError(ER_QUERY_INTERRUPTED)
    if "no such function" in msg:
        name = msg.split(":", 1)[1].strip()
        # MariaDB looks a stored function up in the current database, if there is one
        return SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION", f"{database}.{name}" if database else name)
    return SQLError(ER_UNKNOWN_ERROR, f"engine: {msg}")


# --- threads --------------------------------------------------------------------------------------


class ThreadLane:
    """`threads` threads serving one queue; `call()` runs a function there, awaited from the loop.
    (Half the hop latency of run_in_executor: one queue put, one call_soon_threadsafe back.)"""

    def __init__(self, threads: int, name: str):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        self._threads = [threading.Thread(target=self._serve, name=f"{name}-{n}", daemon=True)
                         for n in range(threads)]
        for thread in self._threads:
            thread.start()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            loop, fut, fn, args = item
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                loop.call_soon_threadsafe(_settle, fut, None, exc)
            else:
                loop.call_soon_threadsafe(_settle, fut, result, None)

    def call(self, fn, *args) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if self._stopped:
            fut.set_exception(SQLError(ER_SERVER_SHUTDOWN))
        else:
            self._queue.put((loop, fut, fn, args))
        return fut

    def shutdown(self) -> None:
        self._stopped = True
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()


def _settle(fut: asyncio.Future, result: object, exc: BaseException | None) -> None:
    if fut.cancelled():
        return
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)


# --- per-thread connections -------------------------------------------------------------------


def _open_connection(path: Path, state: functions.ConnectionState, synchronous: str = "FULL") -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, cached_statements=512)
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA cache_size=-32768")
    conn.execute("PRAGMA case_sensitive_like=OFF")
    functions.register(conn, state)
    infoschema.register(conn)
    decimal_math.register(conn)
    conn.create_collation(DECIMAL_COLLATION, values.compare_decimal)
    return conn


class _Reader:
    """A reader connection, used by one reader thread at a time: taken from the engine's pool for
    one query, or pinned by a session for its transaction's snapshot."""

    def __init__(self, path: Path):
        self.state = functions.ConnectionState()
        self.conn = _open_connection(path, self.state)
        self.attached: dict[str, Path] = {}


class Snapshot:
    """A session's read view inside a transaction (REPEATABLE READ): a pinned reader connection
    whose SQLite read transaction starts at the first SELECT and ends with the transaction."""

    reader: _Reader | None = None
    # WITH CONSISTENT SNAPSHOT over more databases than a connection holds: the ones whose view
    # it took at its start (any other is refused, never read from a later view)
    fixed: set[str] | None = None


# --- the engine ------------------------------------------------------------------------------------


class Engine:
    def __init__(self, datadir: Path, readers: int, synchronous: str = "FULL"):
        self.datadir = Path(datadir)
        self.synchronous = synchronous
        self.writer_lock = WriterLock()
        self.lock_wait_timeout = 50.0
        self._writer = ThreadLane(1, "engine-writer")
        self._readers = ThreadLane(readers, "engine-reader")
        self._free_readers: list[_Reader] = []
        self._free_lock = threading.Lock()
        self._wconn_: sqlite3.Connection | None = None
        self._wstate = functions.ConnectionState()
        self.schemas: dict[str, Path] = {}  # every database -> its file (replaced, never mutated)
        # the files attached to the writer connection, least recently used first (writer thread)
        self._w_attached: collections.OrderedDict[str, Path] = collections.OrderedDict()
        self.catalog: dict[str, dict[str, Table]] = {}  # schema -> lower(table) -> Table
        self.views: dict[str, dict[str, View]] = {}  # schema -> lower(view) -> View (never in catalog)
        self._catalog_version = 0
        self._plans: dict[tuple, Plan] = {}
        # (translated sql, catalog version) -> what it reads and writes (Session.access)
        self._accesses: dict[tuple[str, int], tuple[tuple, tuple]] = {}
        self._auto: dict[tuple[str, str], int] = {}  # next AUTO_INCREMENT id per (schema, lower(table))
        self._auto_stale: set[tuple[str, str]] = set()
        self._touched: set[str] = set()
        self._pending_drops: list[tuple[str, Path]] = []
        self._seq = 0
        self._meta: dict[str, str] = {}
        self._schema_metas: dict[str, dict[str, str]] = {}
        self._closed = False
        self._sp_open = False  # the writer's savepoint of the current logical transaction
        self._began = False  # the writer's SQLite transaction was begun for the group's work
        # SQLite rolled that transaction back on an error (SQLITE_FULL, SQLITE_IOERR): the
        # group's work is gone, and its commit must fail (the master replays it from its binlog)
        self._lost = False
        # its transaction committed: RELEASE at the next writer operation (until then a
        # cancelled autocommit statement can still be undone with ROLLBACK TO)
        self._sp_done = False
        # statements of the current logical transaction / of the group (writer thread only), for
        # the redo record of a group that writes several files
        self._txn_log: list[list] = []
        self._group_log: list[list] = []
        self._torn: tuple[list[str], list[list], dict[str, str]] | None = None
        self._sync_pending: set[str] = set()
        self.repaired: list[str] = []  # files brought up to the last group at open (torn commit)
        self._fk = FkTriggers()  # the writer connection's foreign key triggers
        self._fk_in_txn = False  # they were (re)installed inside the open SQLite transaction

    # --- lifecycle ---------------------------------------------------------------------------

    @classmethod
    async def open(cls, datadir: Path, *, readers: int = 4, synchronous: str = "FULL") -> Engine:
        """`synchronous="NORMAL"` skips the fsync of each engine commit: a power loss may then
        undo the last groups, data and meta together (WAL stays consistent) — safe when the
        caller replays from its own durable log after `meta()` (the binlog, the relay log)."""
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        engine = cls(Path(datadir), readers, synchronous)
        engine.datadir.mkdir(parents=True, exist_ok=True)
        await engine._on_writer(engine._w_open)
        if engine._torn is not None:
            await engine._repair()
        return engine

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self._on_writer(self._w_close)
        self._writer.shutdown()
        self._readers.shutdown()
        for reader in self._free_readers:
            self._discard(reader)
        self._free_readers = []

    @property
    def _wconn(self) -> sqlite3.Connection:
        """The writer connection (writer thread only)."""
        assert self._wconn_ is not None, "engine not open"
        return self._wconn_

    def _on_writer(self, fn, *args) -> asyncio.Future:
        return self._writer.call(fn, *args)

    def _on_reader(self, fn, *args) -> asyncio.Future:
        return self._readers.call(fn, *args)

    def _w_open(self) -> None:
        self._wconn_ = _open_connection(self.datadir / MAIN_FILE, self._wstate, self.synchronous)
        self._fk.register(self._wconn_)
        self._w_ensure_tables("main")
        metas = {"main": self._w_read_meta("main")}
        for path in sorted(self.datadir.glob("*.sqlite")):
            name = path.stem
            if path.name == MAIN_FILE or name.startswith("__"):
                continue
            self._w_attach(name, path)
            metas[name] = self._w_read_meta(name)
            self._w_evict(ATTACH_LIMIT - 1, keep={name})  # (no transaction is open: any file may go)
            if DROPPED_KEY in metas[name]:
                del metas[name]
                self._pending_drops.append((name, path))
                self.schemas = {k: v for k, v in self.schemas.items() if k != name}
                self.catalog = {k: v for k, v in self.catalog.items() if k != name}
                continue
        self._w_finish_drops()
        self._w_fk_install()
        best = max(metas.values(), key=lambda m: int(m.get(SEQ_KEY, "0")))
        self._seq = max(int(m.get(SEQ_KEY, "0")) for m in metas.values())
        self._meta = _public(best)
        self._schema_metas = {k: _public(v) for k, v in metas.items()}
        # a group that wrote several files and was cut by a crash between their commits
        redo = json.loads(best.get(REDO_KEY) or "null")
        if redo is not None and redo["seq"] == self._seq:
            lagging = [t for t in redo["targets"]
                       if t in metas and int(metas[t].get(SEQ_KEY, "0")) < self._seq]
            if lagging:
                self._torn = (lagging, redo["statements"], self._meta)

    def _w_close(self) -> None:
        if self._wconn_ is not None:
            if self._wconn_.in_transaction:
                self._wconn_.execute("ROLLBACK")
            self._wconn_.close()
            self._wconn_ = None

    def _w_set_synchronous(self) -> None:
        """The engine's synchronous level on every attached file (SQLite refuses it inside a
        transaction: then it is done after the next commit)."""
        if self._wconn.in_transaction:
            return
        for name in self._sync_pending:
            if name in self._w_attached:
                self._wconn.execute(f"PRAGMA {quote_ident(name)}.synchronous={self.synchronous}")
        self._sync_pending = set()

    def _w_ensure_tables(self, schema: str) -> None:
        s = quote_ident(schema)
        self._wconn.execute(f"CREATE TABLE IF NOT EXISTS {s}.{META_TABLE} (k TEXT PRIMARY KEY, v TEXT)")
        self._wconn.execute(f"CREATE TABLE IF NOT EXISTS {s}.{CATALOG_TABLE} (name TEXT PRIMARY KEY, def TEXT)")

    def _w_read_meta(self, schema: str) -> dict[str, str]:
        rows = self._wconn.execute(f"SELECT k, v FROM {quote_ident(schema)}.{META_TABLE}").fetchall()
        return dict(rows)

    def _w_attach(self, name: str, path: Path) -> None:
        """Make a database known (its file created if new) and attached, its catalog loaded."""
        self._w_evict(ATTACH_LIMIT - 1, keep=set())
        if len(self._w_attached) >= ATTACH_LIMIT:
            raise SQLError(ER_TOO_MANY_DATABASES, ATTACH_LIMIT, "written by one group commit")
        if not path.exists():
            # create the file in WAL mode outside the writer's transaction
            conn = sqlite3.connect(str(path), isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (k TEXT PRIMARY KEY, v TEXT)")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {CATALOG_TABLE} (name TEXT PRIMARY KEY, def TEXT)")
            conn.close()
        self._wconn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
        self._w_attached[name] = path
        self._sync_pending.add(name)
        self._w_set_synchronous()
        self._w_ensure_tables(name)
        tables = self._w_read_catalog(name)
        self.catalog = {**self.catalog, name: tables}
        self.schemas = {**self.schemas, name: path}
        self._catalog_version += 1

    def _w_evict(self, room: int, keep: set[str]) -> bool:
        """Detach least recently used files until at most `room` stay attached: never one in
        `keep`, one the open group wrote or is dropping, nor one its transaction read (SQLite
        refuses: "database is locked"). True when any was detached."""
        detached = False
        dropping = {name for name, _ in self._pending_drops}
        for name in list(self._w_attached):
            if len(self._w_attached) <= room:
                break
            if name in keep or name in self._touched or name in dropping:
                continue
            try:
                self._wconn.execute("DETACH DATABASE " + quote_ident(name))
            except sqlite3.OperationalError:
                continue
            del self._w_attached[name]
            self._sync_pending.discard(name)
            detached = True
        return detached

    def _w_need(self, names) -> None:
        """Attach the files of the databases `names` and of every database their foreign keys
        link them to (the FK triggers of a file need the other end attached), detaching the least
        recently used ones to stay within ATTACH_LIMIT; 1105 when the open group holds too many."""
        wanted = self._fk.closure(names)
        missing = [n for n in wanted if n not in self._w_attached and n in self.schemas]
        for name in wanted:
            if name in self._w_attached:
                self._w_attached.move_to_end(name)
        if not missing:
            return
        self._w_evict(ATTACH_LIMIT - len(missing), keep=wanted)
        if len(self._w_attached) + len(missing) > ATTACH_LIMIT:
            self._w_fk_install()
            error = SQLError(ER_TOO_MANY_DATABASES, ATTACH_LIMIT, "written by one group commit")
            error.group_full = bool(self._touched)  # type: ignore[attr-defined]  # room after its commit
            raise error
        for name in missing:
            path = self.schemas[name]
            self._wconn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
            self._w_attached[name] = path
            self._sync_pending.add(name)
        self._w_set_synchronous()
        self._w_fk_install()

    def _w_missing(self, exc: sqlite3.Error) -> str | None:
        """The known database a statement failed to find because its file is not attached."""
        m = re.match(r"no such table: ([^.]+)\.", str(exc))
        if m and m.group(1) in self.schemas and m.group(1) not in self._w_attached:
            return m.group(1)
        return None

    async def _repair(self) -> None:
        """Re-run the last group's statements on the files that missed its commit, then commit them
        with the group's meta: afterwards every file agrees with `meta()` again."""
        assert self._torn is not None
        lagging = self._torn[0]
        session = self.session(0)
        session.autocommit = False
        await session._acquire()
        session._pinned = True
        try:
            await self._rerun_torn(session)
        finally:
            session._pinned = False
            session._statements = []
            session._in_txn = False
            session._release()
        self.repaired = list(lagging)

    async def _rerun_torn(self, session: Session) -> None:
        """The torn group's statements again on the files that missed its commit, committed there
        with the group's meta (`session` holds the writer lock), until every file has it (a
        rerun stopped between files again leaves fewer behind). On failure `_torn` stays."""
        while self._torn is not None:
            torn, self._torn = self._torn, None
            lagging, statements, meta = torn
            try:
                for target, db, sql, ts, last_id, seed, insert_id, _is_ddl in statements:
                    if target is not None and target not in lagging:
                        continue
                    session._database = db
                    context = StatementContext(ts, insert_id, last_id, tuple(seed) if seed else None)
                    try:
                        await session.execute(sql, context)
                    except SQLError as exc:
                        if exc.code != ER_DB_CREATE_EXISTS.code:  # its file is made before the commit
                            raise
                await self._on_writer(self._w_end, True)
                self._touched = set(lagging)
                await self._on_writer(self._w_commit_group, meta)
            except BaseException:
                self._torn = torn
                raise

    async def _complete_torn(self) -> None:
        """`_rerun_torn` under the writer lock the caller holds; if it fails the engine is as
        after `rollback_group` (and the group still torn)."""
        try:
            await self._rerun_torn(self._locked_session())
        except BaseException:
            await self._on_writer(self._w_rollback_group)
            raise

    # --- reads through reader connections ----------------------------------------------------

    def _checkout(self) -> _Reader:
        with self._free_lock:
            reader = self._free_readers.pop() if self._free_readers else None
        if reader is None:
            reader = _Reader(self.datadir / MAIN_FILE)
        self._sync_attached(reader)
        return reader

    def _discard(self, reader: _Reader) -> None:
        try:
            reader.conn.close()
        except sqlite3.Error:
            pass

    def _checkin(self, reader: _Reader) -> None:
        with self._free_lock:
            self._free_readers.append(reader)

    def _sync_attached(self, reader: _Reader) -> None:
        """Detach the dropped databases (outside a read transaction only: a snapshot keeps the
        files it started with). While there are at most ATTACH_LIMIT databases every one is
        attached; beyond, a query attaches the files it finds missing (`_r_attach`)."""
        schemas = self.schemas
        if reader.attached == schemas:
            return
        if not reader.conn.in_transaction:
            for name in list(reader.attached):
                if schemas.get(name) != reader.attached[name]:
                    reader.conn.execute("DETACH DATABASE " + quote_ident(name))
                    del reader.attached[name]
        if len(schemas) <= ATTACH_LIMIT:
            for name, path in schemas.items():
                if name not in reader.attached and len(reader.attached) < ATTACH_LIMIT:
                    reader.conn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
                    reader.attached[name] = path

    def _r_attach(self, reader: _Reader, exc: sqlite3.Error, snapshot: Snapshot | None) -> bool:
        """Attach the file of the database a query failed to find (False: not such a failure),
        detaching the oldest ones it holds that its transaction has not read."""
        m = re.match(r"no such table: ([^.]+)\.", str(exc))
        name = m.group(1) if m else None
        if name is None or name not in self.schemas or name in reader.attached:
            return False
        if snapshot is not None and snapshot.fixed is not None and name not in snapshot.fixed:
            # its view would be taken now, not with the others': never a mixed snapshot
            raise SQLError(ER_TOO_MANY_DATABASES, ATTACH_LIMIT, "in a WITH CONSISTENT SNAPSHOT transaction "
                           "(the default database's view is taken at its start)")
        for old in list(reader.attached):
            if len(reader.attached) < ATTACH_LIMIT:
                break
            try:
                reader.conn.execute("DETACH DATABASE " + quote_ident(old))
            except sqlite3.OperationalError:
                continue  # read by the open transaction
            del reader.attached[old]
        if len(reader.attached) >= ATTACH_LIMIT:
            raise SQLError(ER_TOO_MANY_DATABASES, ATTACH_LIMIT, "read by one transaction")
        path = self.schemas[name]
        reader.conn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
        reader.attached[name] = path
        return True

    def _r_query(self, sql: str, args, rand, database, snapshot: Snapshot | None = None):
        if snapshot is not None:
            if snapshot.reader is None:
                snapshot.reader = self._checkout()
            reader = snapshot.reader
            self._sync_attached(reader)
            if not reader.conn.in_transaction:
                reader.conn.execute("BEGIN")  # the snapshot is taken by the first read
        else:
            reader = self._checkout()
        reader.state.fx = rand
        if rand is not None:
            rand.running_on(reader.conn)
        try:
            if rand is not None and rand.interrupted.is_set():
                raise SQLError(ER_QUERY_INTERRUPTED)  # killed before it started
            while True:
                try:
                    cur = reader.conn.execute(sql, args)
                    rows = cur.fetchall()
                    break
                except sqlite3.OperationalError as exc:
                    if not self._r_attach(reader, exc, snapshot):
                        raise
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, database) from None
        finally:
            if rand is not None:
                rand.running_on(None)
            reader.state.fx = None
            if snapshot is None:
                self._checkin(reader)
        return [d[0] for d in cur.description or ()], rows

    def _r_end_snapshot(self, reader: _Reader) -> None:
        try:
            if reader.conn.in_transaction:
                reader.conn.execute("COMMIT")
        except sqlite3.Error:
            self._discard(reader)  # still busy (a cancelled query): never reuse it
            return
        self._checkin(reader)

    def _r_access(self, plan: Plan, args) -> tuple[tuple, tuple]:
        """Compile (EXPLAIN: never run) the plan's SQL on a reader with an authorizer that
        records every table and column it reads, and every table it writes."""
        reads: dict[tuple[str, str, str], None] = {}
        writes: dict[tuple[str, str, str], None] = {}

        def authorize(action: int, arg1: str | None, arg2: str | None, schema: str | None, _src) -> int:
            if action == sqlite3.SQLITE_READ:
                if not _internal(schema, arg1):
                    reads[(schema, arg1, arg2 or "")] = None  # type: ignore[index]
            elif action in _AUTH_WRITES and not _internal(schema, arg1):
                writes[(_AUTH_WRITES[action], schema, arg1)] = None  # type: ignore[index]
            return sqlite3.SQLITE_OK

        reader = self._checkout()
        reader.conn.set_authorizer(authorize)
        try:
            reader.conn.execute("EXPLAIN " + plan.sql, args).fetchall()
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, None) from None
        finally:
            reader.conn.set_authorizer(None)
            self._checkin(reader)
        return tuple(reads), tuple(writes)

    # --- public API --------------------------------------------------------------------------

    def session(self, connection_id: int = 0) -> Session:
        return Session(self, connection_id)

    def has_database(self, name: str) -> bool:
        return name in self.schemas or name.lower() == infoschema.NAME

    def databases(self) -> list[str]:
        return sorted(self.schemas)

    def table(self, schema: str, name: str) -> Table | None:
        tables = self.catalog.get(schema)
        return None if tables is None else tables.get(name.lower())

    def view(self, schema: str, name: str) -> View | None:
        views = self.views.get(schema)
        return None if views is None else views.get(name.lower())

    def _w_read_catalog(self, name: str) -> dict[str, Table]:
        """One schema file's catalog rows: its tables (returned) and its views (into `views`)."""
        tables, views = {}, {}
        for key, text in self._wconn.execute(f"SELECT name, def FROM {quote_ident(name)}.{CATALOG_TABLE}"):
            if key.startswith(VIEW_PREFIX):
                view = View.from_json(text)
                views[view.name.lower()] = view
            else:
                table = Table.from_json(text)
                tables[table.name.lower()] = table
        self.views = {**self.views, name: views}
        return tables

    def meta(self) -> dict[str, str]:
        """The meta stored by the last commit_group (after open: the newest one on disk)."""
        return dict(self._meta)

    def schema_metas(self) -> dict[str, dict[str, str]]:
        """Each file's committed meta, as read at open (`main` = the engine's own file)."""
        return {k: dict(v) for k, v in self._schema_metas.items()}

    async def commit_group(self, meta: dict[str, str]) -> None:
        """The real SQLite COMMIT of every transaction committed since the last group, with `meta`
        stored in the same transaction. Call it holding `writer_lock`. A commit that stopped
        between the group's files is completed on the others before it returns; if that fails
        too, SQLError as for a failed commit, but the group is durable where it reached:
        `replay_group` (or the repair at open) only completes it."""
        meta = {str(k): str(v) for k, v in meta.items()}
        await self._on_writer(self._w_commit_group, meta)
        if self._torn is not None:
            # stopped between the group's files: the others get it before any later write
            await self._complete_torn()

    def _w_commit_group(self, meta: dict[str, str]) -> None:
        """All or nothing per file: on failure (SQLITE_FULL, SQLITE_IOERR ...) the group is
        rolled back (SQLite may already have done so) and the engine is as after
        `rollback_group`. SQLite commits the files of a WAL transaction one after the other, so
        a full disk can stop a commit after some of them: that group is durable (its redo
        record is in the files that have it, as after a crash between the commits, which
        `open` repairs), so it counts as committed and `_torn` names the files that miss it,
        for `_rerun_torn`. Reported as failed, it would be run again: twice where it is."""
        conn = self._wconn
        seq = self._seq + 1
        targets: list[str] = []
        try:
            if self._w_lost():
                # committing the meta (and what came after the loss) would hide the loss
                raise sqlite3.OperationalError("the group's transaction was rolled back by an earlier error")
            if self._sp_done:
                self._w_end(True)  # first: the last transaction's statements join the redo record
            targets = [s for s in self._touched if s in self.schemas] or ["main"]
            rows = list(meta.items()) + [(SEQ_KEY, str(seq))]
            if len(targets) > 1:
                record = {"seq": seq, "targets": targets, "statements": self._group_log}
                rows.append((REDO_KEY, json.dumps(record)))
            if not conn.in_transaction:
                conn.execute("BEGIN")
            for schema in targets:
                s = quote_ident(schema)
                conn.execute(f"DELETE FROM {s}.{META_TABLE}")
                conn.executemany(f"INSERT INTO {s}.{META_TABLE} (k, v) VALUES (?, ?)", rows)
            conn.execute("COMMIT")
            self._began = self._lost = False
        except sqlite3.Error as exc:
            statements = self._group_log
            try:
                self._w_rollback_group()
            except sqlite3.Error:
                pass  # the commit's error is the one to report
            committed = self._w_committed(targets, seq) if len(targets) > 1 else []
            if not committed:
                raise SQLError(ER_UNKNOWN_ERROR, f"engine commit failed: {exc}") from None
            self._torn = ([t for t in targets if t not in committed], statements, dict(meta))
            targets = committed
        self._seq = seq
        self._meta = dict(meta)
        for schema in targets:
            self._schema_metas[schema] = dict(meta)
        self._touched = set()
        self._group_log = []
        self._fk_in_txn = False
        self._w_finish_drops()
        self._w_set_synchronous()

    def _w_committed(self, targets: list[str], seq: int) -> list[str]:
        """The files among `targets` whose meta is group `seq`'s (none when unreadable)."""
        try:
            return [t for t in targets if int(self._w_read_meta(t).get(SEQ_KEY, "0")) == seq]
        except sqlite3.Error:
            return []

    def _w_finish_drops(self) -> None:
        for name, path in self._pending_drops:
            try:
                self._wconn.execute("DETACH DATABASE " + quote_ident(name))
            except sqlite3.Error:
                pass
            self._w_attached.pop(name, None)
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(str(path) + suffix)
                except FileNotFoundError:
                    pass
        self._pending_drops = []

    async def rollback_group(self) -> None:
        """Discard every transaction committed since the last commit_group (a failed binlog write).
        Call it holding `writer_lock`."""
        await self._on_writer(self._w_rollback_group)

    def _w_rollback_group(self) -> None:
        self._began = self._lost = False
        if self._wconn.in_transaction:
            self._wconn.execute("ROLLBACK")
        self._sp_open = self._sp_done = False
        self._touched = set()
        self._txn_log = []
        self._group_log = []
        # the catalog may describe rolled-back DDL: reload it from the files
        for name, path in list(self._pending_drops):
            self.schemas = {**self.schemas, name: path}
        self._pending_drops = []
        catalog = dict(self.catalog)  # a detached file had nothing of the group (it was not used)
        for name in self._w_attached:
            catalog[name] = self._w_read_catalog(name)
        self.catalog = catalog
        self._catalog_version += 1
        self._plans.clear()
        self._auto.clear()
        self._w_fk_install()

    def _w_fk_install(self) -> None:
        """The FK triggers of the attached files (TEMP triggers are part of the open transaction:
        a rollback after a change of the attached files installs them again)."""
        attached = self._w_attached
        self._fk.install(self._wconn, [t for s in attached for t in self.catalog.get(s, {}).values()],
                         lambda s, t: self.table(s, t) if s in attached else None,
                         [t for tables in self.catalog.values() for t in tables.values()])
        self._fk_in_txn = self._wconn.in_transaction

    def _w_fk_after_rollback(self) -> None:
        if self._fk_in_txn:
            self._w_fk_install()

    async def apply_transaction(self, statements: Sequence[ReplicatedStatement], meta: dict[str, str]) -> None:
        """Run a replicated transaction atomically and store `meta` in the same SQLite commit (the
        applier's crash-safe position). Takes the writer lock for the whole transaction; any
        transaction still waiting for a commit_group is committed with it."""
        await self.apply_transactions([statements], meta)

    async def apply_transactions(self, transactions: Sequence[Sequence[ReplicatedStatement]],
                                 meta: dict[str, str]) -> None:
        """`apply_transaction` for several replicated transactions in order: each runs in a fresh
        session (nothing of one leaks into the next) and ends as a COMMIT does (its savepoint is
        released), then ONE SQLite commit stores all of them with `meta` (one fsync per batch).
        All or nothing: on any error the whole batch is rolled back (with whatever else was
        waiting for a commit_group) and the error propagates; the caller may retry the
        transactions one by one to commit those before the failing one. The writer lock is held
        for the whole batch (SQLError 1205 after `lock_wait_timeout` waiting for it). A statement
        (sql, context, default db) may name a table fourth: a row event's UPDATE/DELETE, which
        must find its row, so one that matches none raises 1032 naming the table (MySQL's
        HA_ERR_KEY_NOT_FOUND)."""
        owner = object()
        try:
            await self.writer_lock.acquire(owner, self.lock_wait_timeout)
        except TimeoutError:
            raise SQLError(ER_LOCK_WAIT_TIMEOUT) from None
        try:
            await self._apply_locked(transactions, meta)
        finally:
            self.writer_lock.release()

    async def replay_group(self, transactions: Sequence[Sequence[ReplicatedStatement]],
                           meta: dict[str, str]) -> None:
        """The master's group commit after `commit_group` failed (its binlog written): discard
        whatever the failed commit left, run the group's `transactions` again (read back from
        the binlog) and commit them with `meta`, all or nothing, as `apply_transactions` does.
        Call it holding `writer_lock`, so that no other transaction runs in between. A group
        whose failed commit reached some of its files is durable there: it is completed on the
        others (`_rerun_torn`, as at open), never run again where it is."""
        meta = {str(k): str(v) for k, v in meta.items()}
        await self._on_writer(self._w_rollback_group)
        if self._torn is not None and self._torn[2] == meta:
            await self._complete_torn()
            return
        await self._apply_locked(transactions, meta)

    async def _apply_locked(self, transactions: Sequence[Sequence[ReplicatedStatement]],
                            meta: dict[str, str]) -> None:
        try:
            if self._torn is not None:  # an earlier batch's commit stopped between its files
                await self._rerun_torn(self._locked_session())
            if self._sp_done or self._touched:
                # a client's transaction committed but not yet group-committed (a slave with
                # read_only OFF): made durable first, so that a failing batch cannot take it along
                await self._on_writer(self._w_commit_group, dict(self._meta))
            for statements in transactions:
                session = self._locked_session()
                session.found_rows = True  # UPDATE: rows matched, as a row event's "found" check needs
                for sql, context, db, *must_find in statements:
                    session._database = db
                    result = await session.execute(sql, context)
                    if must_find and must_find[0] and not result.affected_rows:
                        raise SQLError(ER_KEY_NOT_FOUND, must_find[0])
                self._sp_done = True  # as COMMIT: RELEASE at the writer's next operation
            await self._on_writer(self._w_commit_group, {str(k): str(v) for k, v in meta.items()})
        except BaseException:
            await self._on_writer(self._w_rollback_group)
            raise

    def _locked_session(self) -> Session:
        """A fresh session under the writer lock its caller holds (never released by it)."""
        session = self.session(0)
        session.autocommit = False
        session._holds_lock = session._pinned = True
        return session

    async def table_digest(self, schema: str, table: str) -> str:
        """An order-independent digest of a table's rows (committed data)."""
        t = self.table(schema, table)
        if t is None:
            raise SQLError(ER_NO_SUCH_TABLE, schema, table)
        cols = ", ".join(quote_ident(c.name) for c in t.columns)
        sql = f"SELECT {cols} FROM {quote_ident(schema)}.{quote_ident(t.name)}"
        _, rows = await self._on_reader(self._r_query, sql, (), None, schema)
        acc = 0
        for row in rows:
            h = hashlib.sha256(repr(tuple(_canonical(v) for v in row)).encode()).digest()
            acc = (acc + int.from_bytes(h[:16], "big")) % (1 << 128)
        return f"{len(rows)}:{acc:032x}"

    # --- the writer thread's side of sessions --------------------------------------------------

    def _w_lost(self) -> bool:
        """Did SQLite roll the writer's transaction back under us (an error such as SQLITE_FULL
        ends the whole transaction, not only the statement)? Then the savepoints are gone too:
        later writes start a new SQLite transaction (never autocommit), and the group's commit
        fails until `rollback_group`."""
        if self._began and not self._wconn.in_transaction:
            if self._group_log or self._txn_log or self._sp_done:
                self._lost = True  # (with nothing of the group in it, nothing was lost)
            self._began = self._sp_open = self._sp_done = False
        return self._lost

    def _w_begin(self) -> None:
        conn = self._wconn
        self._w_lost()
        if self._sp_done:
            self._w_end(True)
        if not self._sp_open:
            if not conn.in_transaction:
                conn.execute("BEGIN")
                self._began = True
            conn.execute("SAVEPOINT txn")
            self._sp_open = True

    def _w_end(self, commit: bool) -> None:
        """End the logical transaction: keep (RELEASE) or undo (ROLLBACK TO) its savepoint. A
        savepoint whose transaction already committed (`_sp_done`) belongs to an earlier
        transaction: it is kept."""
        self._w_lost()
        if self._sp_done and not commit:
            self._w_end(True)
        if commit:
            self._group_log.extend(self._txn_log)
        self._txn_log = []
        self._sp_done = False
        if self._sp_open:
            if not commit:
                self._wconn.execute("ROLLBACK TO txn")
                self._w_fk_after_rollback()
            self._wconn.execute("RELEASE txn")
            self._sp_open = False

    def _w_savepoint(self, kind: str, name: str, log: tuple) -> None:
        self._w_begin()
        sql = {"savepoint": "SAVEPOINT", "rollback_to": "ROLLBACK TO", "release": "RELEASE"}[kind]
        try:
            self._wconn.execute(f"{sql} {quote_ident('u_' + name.lower())}")
        except sqlite3.OperationalError:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name) from None
        if kind == "rollback_to":
            self._w_fk_after_rollback()
        # logged for every file (target None): a redo re-runs it with the statements it undoes
        self._txn_log.append([None, *log, None, False])

    def _w_undo_cancelled(self) -> None:
        """Undo the autocommit statement whose session was cancelled while it ran."""
        self._sp_done = False
        self._w_end(False)

    def _r_query_writer(self, sql: str, args, rand, database):
        self._wstate.fx = rand
        try:
            cur = self._w_execute(sql, args)
            rows = cur.fetchall()
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, database) from None
        finally:
            self._wstate.fx = None
        return [d[0] for d in cur.description or ()], rows

    def _w_execute(self, sql: str, args) -> sqlite3.Cursor:
        """Execute on the writer, attaching a database's file the statement found missing
        (SQLite fails it while compiling: nothing ran) and trying again."""
        while True:
            try:
                return self._wconn.execute(sql, args)
            except sqlite3.OperationalError as exc:
                missing = self._w_missing(exc)
                if missing is None:
                    raise
                self._w_need((missing,))

    def _w_write(self, plan: Plan, args, end: bool, forced: int | None, rand, database, log: tuple,
                 fk_checks: bool = True):
        target = plan.target[0] if plan.target else None
        if target is not None and (target not in self._w_attached or self._fk.linked(target)):
            self._w_need((target,))
        self._w_begin()
        self._fk.enabled = fk_checks
        # a parent whose keys cascade: the statement and its cascades are undone together
        guard = plan.target is not None and (plan.target[0], plan.target[1].lower()) in self._fk.cascading
        first = None
        if plan.auto_slots is not None:
            args = list(args)
            first = self._w_assign_ids(plan, args, forced)
        elif plan.auto_select_slot is not None:
            args = list(args)
            first = self._w_next_id(plan, forced)
            args[plan.auto_select_slot] = first
        self._wstate.fx = rand
        try:
            if guard:
                self._wconn.execute("SAVEPOINT __fk")
            cur = self._w_execute(plan.sql, args)
            affected = cur.rowcount
            if guard:
                self._touched.update(self._fk.cascade(self._wconn))
                self._wconn.execute("RELEASE __fk")
        except (*SQLITE_INPUT_ERRORS, SQLError) as exc:
            self._fk.discard_notes()
            if guard and self._wconn.in_transaction:
                self._wconn.execute("ROLLBACK TO __fk")
                self._wconn.execute("RELEASE __fk")
                self._w_fk_after_rollback()
            error = exc if isinstance(exc, SQLError) else self._w_write_error(exc, plan, args, database)
            if end:
                self._w_end(False)
            raise error from None
        finally:
            self._wstate.fx = None
        if plan.auto_select_slot is not None and first is not None:
            key = (plan.target[0], plan.target[1].lower())
            self._auto[key] = max(self._auto[key], first + max(affected, 0))
            if affected <= 0:
                first = None
        self._touched.add(plan.target[0])
        self._txn_log.append([plan.target[0], *log, first, False])
        if plan.auto_dirty:
            self._auto_stale.add((plan.target[0], plan.target[1].lower()))
        if end:
            self._sp_done = True
        return affected, first

    def _w_counter(self, plan: Plan) -> int:
        """The next AUTO_INCREMENT id of the plan's table."""
        schema, name = plan.target
        key = (schema, name.lower())
        nxt = self._auto.get(key)
        if nxt is None or key in self._auto_stale:
            table = self.table(schema, name)
            assert table is not None and table.auto_column is not None
            top = self._wconn.execute(
                f"SELECT max({quote_ident(table.auto_column.name)}) FROM {quote_ident(schema)}.{quote_ident(table.name)}"
            ).fetchone()[0]
            nxt = max(nxt or 1, int(top or 0) + 1, table.auto_increment_start or 1)
            self._auto_stale.discard(key)
            self._auto[key] = nxt
        return nxt

    def _w_next_id(self, plan: Plan, forced: int | None) -> int:
        nxt = self._w_counter(plan)
        return forced if forced is not None else nxt

    def _w_assign_ids(self, plan: Plan, args: list, forced: int | None) -> int | None:
        key = (plan.target[0], plan.target[1].lower())
        nxt = self._w_counter(plan)
        first = None
        for slot in plan.auto_slots:
            if slot is None:
                continue
            value = args[slot]
            if value is None or value == 0 or value == "0" or value == "":
                if first is None and forced is not None:
                    nxt = forced
                args[slot] = nxt
                if first is None:
                    first = nxt
                nxt += 1
            else:
                try:
                    explicit = int(value)
                except (TypeError, ValueError):
                    continue
                if explicit >= nxt:
                    nxt = explicit + 1
        self._auto[key] = nxt
        return first

    def _w_write_error(self, exc: sqlite3.Error | UnicodeEncodeError, plan: Plan, args, database) -> SQLError:
        msg = str(exc)
        fk = fk_error(exc) if isinstance(exc, sqlite3.Error) else None
        if fk is not None:
            return fk
        table = self.table(*plan.target) if plan.target else None
        m = re.match(r"UNIQUE constraint failed: (.+)", msg)
        if m and table is not None:
            cols = [c.strip().split(".")[-1] for c in m.group(1).split(",")]
            return SQLError(ER_DUP_ENTRY, self._w_duplicate_value(table, cols, plan, args),
                            f"{table.key_name_for(cols)}")
        m = re.match(r"NOT NULL constraint failed: (.+)", msg)
        if m:
            col = m.group(1).split(".")[-1]
            if plan.insert_columns and col.lower() not in (c.lower() for c in plan.insert_columns):
                return SQLError(ER_NO_DEFAULT_FOR_FIELD, col)
            return SQLError(ER_BAD_NULL_ERROR, col)
        if isinstance(exc, sqlite3.OperationalError) and getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
            return SQLError(ER_RECORD_FILE_FULL, plan.target[1] if plan.target else "?")  # InnoDB's answer
        return map_sqlite_error(exc, database)

    def _w_duplicate_value(self, table: Table, cols: list[str], plan: Plan, args) -> str:
        """The value MySQL names in 1062 ('a-b' for a composite key), found among the statement's
        rows for an INSERT; '?' when it cannot be told."""
        lower = [c.lower() for c in plan.insert_columns]
        if not plan.insert_columns or any(c.lower() not in lower for c in cols) or not plan.nrows:
            return "?"
        nrows = plan.nrows
        if nrows == 0 or len(args) % nrows:
            return "?"
        width = len(args) // nrows
        where = " AND ".join(f"{quote_ident(c)} = ?" for c in cols)
        sql = f"SELECT 1 FROM {quote_ident(table.schema)}.{quote_ident(table.name)} WHERE {where}"
        candidates = []
        for r in range(nrows):
            row = args[r * width:(r + 1) * width]
            values = [row[lower.index(c.lower())] for c in cols]
            candidates.append(values)
            if self._wconn.execute(sql, values).fetchone():
                return "-".join(_show(v) for v in values)
        seen = set()
        for values in candidates:  # a duplicate within the statement itself
            key = tuple(values)
            if key in seen:
                return "-".join(_show(v) for v in values)
            seen.add(key)
        return "-".join(_show(v) for v in candidates[0])

    def _w_ddl(self, action: DdlAction, log: tuple) -> None:
        self._w_end(True)  # the implicit commit of the open transaction
        self._fk.drop(self._wconn)  # (SQLite's ALTER ... RENAME checks every trigger)
        try:
            self._w_ddl_apply(action)
        finally:
            self._w_fk_install()
        target = action.create_schema or action.drop_schema or action.schema
        self._group_log.append([target, *log, None, True])

    def _w_ddl_apply(self, action: DdlAction) -> None:
        conn = self._wconn
        if action.noop:
            return
        if action.create_schema is not None:
            name = action.create_schema
            self._w_attach(name, self.datadir / f"{name}.sqlite")
            self._touched.add(name)
            return
        if action.drop_schema is not None:
            name = action.drop_schema
            self._w_need((name,))
            self._w_begin()
            try:
                for table in self.catalog.get(name, {}).values():
                    conn.execute(f"DROP TABLE {quote_ident(name)}.{quote_ident(table.name)}")
                conn.execute(f"DELETE FROM {quote_ident(name)}.{CATALOG_TABLE}")
                # if the file outlives the commit (a crash before it is deleted), open() deletes it
                conn.execute(f"INSERT OR REPLACE INTO {quote_ident(name)}.{META_TABLE} (k, v) VALUES (?, '1')",
                             (DROPPED_KEY,))
            except sqlite3.Error as exc:
                self._w_end(False)
                raise map_sqlite_error(exc, name) from None
            self._w_end(True)
            self._pending_drops.append((name, self.schemas[name]))
            self.schemas = {k: v for k, v in self.schemas.items() if k != name}
            self.catalog = {k: v for k, v in self.catalog.items() if k != name}
            self.views = {k: v for k, v in self.views.items() if k != name}
            self._touched.discard(name)
            self._touched.add("main")
            self._after_ddl([])
            return
        needed = {action.schema, *(t.schema for t in action.put), *(s for s, _ in action.delete),
                  *(fk.ref_schema for t in action.put for fk in t.foreign_keys)}
        self._w_need(needed & self.schemas.keys())
        self._w_begin()
        try:
            for sql in action.sql:
                conn.execute(sql)
            for child, fk in action.check_foreign_keys:
                self._fk.check_existing(conn, child, fk)
            for schema, name in action.delete:
                conn.execute(f"DELETE FROM {quote_ident(schema)}.{CATALOG_TABLE} WHERE name = ?", (name,))
            for table in action.put:
                conn.execute(f"INSERT OR REPLACE INTO {quote_ident(table.schema)}.{CATALOG_TABLE} (name, def) "
                             "VALUES (?, ?)", (table.name, table.to_json()))
            for schema, name in action.drop_views:
                conn.execute(f"DELETE FROM {quote_ident(schema)}.{CATALOG_TABLE} WHERE name = ?",
                             (VIEW_PREFIX + name.lower(),))
            for view in action.put_views:
                conn.execute(f"INSERT OR REPLACE INTO {quote_ident(view.schema)}.{CATALOG_TABLE} (name, def) "
                             "VALUES (?, ?)", (VIEW_PREFIX + view.name.lower(), view.to_json()))
        except (sqlite3.Error, SQLError) as exc:
            self._w_end(False)
            raise (exc if isinstance(exc, SQLError) else map_sqlite_error(exc, action.schema)) from None
        self._w_end(True)
        catalog = dict(self.catalog)
        for schema, name in action.delete:
            tables = dict(catalog[schema])
            tables.pop(name.lower(), None)
            catalog[schema] = tables
        for table in action.put:
            tables = dict(catalog[table.schema])
            tables[table.name.lower()] = table
            catalog[table.schema] = tables
        self.catalog = catalog
        views = {schema: dict(v) for schema, v in self.views.items()}
        for schema, name in action.drop_views:
            views.get(schema, {}).pop(name.lower(), None)
        for view in action.put_views:
            views.setdefault(view.schema, {})[view.name.lower()] = view
        self.views = views
        self._touched.add(action.schema)
        self._after_ddl(action.reset_auto)

    def _after_ddl(self, reset_auto) -> None:
        for schema, name in reset_auto:
            self._auto.pop((schema, name.lower()), None)
            self._auto_stale.discard((schema, name.lower()))
        self._catalog_version += 1
        self._plans = {}

    # --- planning ----------------------------------------------------------------------------

    def plan_for(self, shape: str, database: str | None, params: list[object], visible: Any = None,
                 processlist: Callable[[], list[tuple]] | None = None) -> Plan:
        """The cached translation of `shape`. `visible` (a privilege check's `sees_database(db)`,
        `sees_table(db, t)`, `sees_columns(db, t)`) narrows what information_schema lists;
        `processlist` gives information_schema.PROCESSLIST's rows now; such plans are not cached."""
        lowered = shape.lower()
        if infoschema.NAME in lowered and (visible is not None or "processlist" in lowered):
            return parsing(self._make_plan, shape, database, params, visible, processlist)
        key = (shape, database, self._catalog_version)
        plan = self._plans.get(key)
        if plan is None:
            plan = parsing(self._make_plan, shape, database, params)
            if plan.cacheable and len(shape) <= MAX_CACHED_SHAPE:
                if len(self._plans) >= PLAN_CACHE_SIZE:
                    self._plans.clear()
                self._plans[key] = plan
        return plan

    def _make_plan(self, shape: str, database: str | None, params: list[object], visible: Any = None,
                   processlist: Callable[[], list[tuple]] | None = None) -> Plan:
        tokens = tokenize(shape)
        if not tokens:
            raise SQLError(ER_EMPTY_QUERY)
        first = tokens[0].upper
        second = tokens[1].upper if len(tokens) > 1 else ""
        words = [t.upper or t.text for t in tokens]
        savepoint = _savepoint_statement(words, tokens)
        if savepoint is not None:
            return savepoint
        if first in ("BEGIN", "COMMIT", "ROLLBACK") or (first == "START" and second == "TRANSACTION"):
            kind = {"BEGIN": "begin", "START": "begin", "COMMIT": "commit", "ROLLBACK": "rollback"}[first]
            if kind == "commit" and "RELEASE" in (t.upper for t in tokens):
                raise SQLError(ER_NOT_SUPPORTED_YET, "COMMIT RELEASE")
            return Plan(kind, "", [])
        if first in ("CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE"):
            return Plan("ddl", "", [], cacheable=False)
        if first in ("SHOW", "DESCRIBE", "DESC", "USE", "ANALYZE", "OPTIMIZE", "CHECK") or (
                first == "EXPLAIN" and second not in ("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE")):
            return Plan("admin", "", [], cacheable=False)
        if first in ("LOCK", "UNLOCK"):
            return Plan("noop", "", [])
        if first == "EXPLAIN":
            return Plan("explain", "", [], cacheable=False)
        if visible is None:
            translator = Translator(tokens, shape, database, self.table, set(self.schemas), params,
                                    lambda schema: list(self.catalog.get(schema, {}).values()),
                                    processlist=processlist)
        else:
            def tables(schema: str, sees=visible.sees_table) -> list[Table]:
                return [t for t in self.catalog.get(schema, {}).values() if sees(schema, t.name)]

            translator = Translator(tokens, shape, database, self.table, set(self.schemas), params, tables,
                                    {schema for schema in self.schemas if visible.sees_database(schema)},
                                    lambda schema: tables(schema, visible.sees_columns), processlist)
        translator.view_of = self.view
        translator.views_in = lambda schema: list(self.views.get(schema, {}).values())
        return translator.plan()


_EXPLAIN_PREFIX = re.compile(r"^\s*EXPLAIN\s+(?:EXTENDED\s+|PARTITIONS\s+)?", re.I)
_TRAILING_LIMIT = re.compile(r"\sLIMIT\s+\?(?:\s*(?:,|OFFSET)\s*\?)?\s*$", re.I)


def _literal(value: object) -> str:
    return mysql_literal(value) if isinstance(value, str) else sql_literal(value)


def _consume(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()


def _show(v: object) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _public(meta: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in meta.items() if not k.startswith("__")}


def _canonical(v: object) -> object:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


# --- sessions ----------------------------------------------------------------------------------


class Session:
    """One client connection's view of the engine. Not for concurrent use."""

    def __init__(self, engine: Engine, connection_id: int):
        self.engine = engine
        self.connection_id = connection_id
        self._database: str | None = None
        self.autocommit = True
        self.found_rows = False  # CLIENT_FOUND_ROWS: UPDATE reports matched rather than changed rows
        self.foreign_key_checks = True  # the session's foreign_key_checks
        self.user_vars: dict[str, object] = {}
        # `@@variable` text -> its value (set by the server shell, which owns the variables;
        # None: statements reading system variables are refused)
        self.sysvar_reader: Callable[[str], object] | None = None
        # information_schema.PROCESSLIST's rows as this session may see them (set by the server
        # shell, which owns the sessions; None: the table is empty)
        self.processlist_reader: Callable[[], list[tuple]] | None = None
        self.last_insert_id = 0
        self.found = 0  # FOUND_ROWS(): rows the last SELECT returned (or would have without LIMIT)
        self.row_count = -1  # ROW_COUNT(): rows the last statement changed (-1 after a SELECT)
        self._in_txn = False  # inside BEGIN ... COMMIT (or autocommit=0)
        self._holds_lock = False
        self._pinned = False  # apply_transaction keeps the lock across statements
        self._snapshot = Snapshot()  # the read view of the current transaction
        self._named_savepoints: list[str] = []  # savepoints set before the transaction's first write
        # READ COMMITTED (default: every SELECT sees the newest group-committed data) or
        # REPEATABLE READ (InnoDB's default: a transaction reads one snapshot); the shell maps
        # SET [SESSION] TRANSACTION ISOLATION LEVEL / tx_isolation onto it
        self.isolation = READ_COMMITTED
        self._statements: list[LoggedStatement] = []
        # A privilege check's view (`sees_database`, `sees_table`) narrowing information_schema;
        # None: everything is listed.
        self.visible: Any = None
        self._fx = functions.SessionFunctions(
            functions.RandState(int(time.time()) ^ (connection_id * 0x9E3779B1), connection_id + 17))
        self._fx.connection_id = connection_id
        self._lock_wait: asyncio.Future | None = None  # waiting for the writer lock (KILL QUERY cancels it)

    @property
    def database(self) -> str | None:
        return self._database

    @database.setter
    def database(self, name: str | None) -> None:
        if name is not None and not self.engine.has_database(name):
            raise SQLError(ER_BAD_DB_ERROR, name)
        self._database = name

    @property
    def in_transaction(self) -> bool:
        return self._in_txn or self._holds_lock

    def _fk_checks(self, context: StatementContext | None) -> bool:
        """foreign_key_checks for one statement: a replayed one's own (the master's), else the session's."""
        return self.foreign_key_checks if context is None else self.foreign_key_checks and context.foreign_key_checks

    # --- statement execution ---------------------------------------------------------------

    async def execute(self, sql: str, context: StatementContext | None = None, *,
                      lock_reads: bool = True) -> Result:
        """Run one statement. Errors are `SQLError`s with MySQL codes, never sqlite3's.
        `lock_reads=False`: a locking read (FOR UPDATE) reads as a plain one, without taking
        the writer lock (the shell's choice for an account that may not lock)."""
        try:
            return await self._execute(sql, context, lock_reads)
        except SyntaxError_ as exc:
            raise exc.with_literals(sql) from None

    async def access(self, sql: str) -> Access:
        """What `sql` would read and write, for the shell's privilege check (accounts without
        ALL PRIVILEGES only: the compile costs a reader hop the first time a translation is
        seen). Raises the SQLError running it would raise when it cannot be planned."""
        engine = self.engine
        try:
            shape, params = extract(sql)
            plan = engine.plan_for(shape, self._database, params, self.visible, self.processlist_reader)
        except SyntaxError_ as exc:
            raise exc.with_literals(sql) from None
        if plan.kind == "explain":  # EXPLAIN needs what running the statement needs
            return await self.access(_EXPLAIN_PREFIX.sub("", sql, count=1))
        if plan.kind not in ("select", "write"):
            return Access(plan.kind)
        # keyed by the translation only: FOR UPDATE, the target and the like are the plan's
        key = (plan.sql, engine._catalog_version)
        touched = engine._accesses.get(key)
        if touched is None:
            args = self._args(plan, params, None, int(time.time()), sql)
            touched = await engine._on_reader(engine._r_access, plan, args)
            if len(engine._accesses) >= PLAN_CACHE_SIZE:
                engine._accesses.clear()
            engine._accesses[key] = touched
        reads, writes = touched
        return Access(plan.kind, plan.target, reads, writes, plan.locking, plan.upsert)

    async def _execute(self, sql: str, context: StatementContext | None, lock_reads: bool = True) -> Result:
        engine = self.engine
        shape, params = extract(sql)
        plan = engine.plan_for(shape, self._database, params, self.visible, self.processlist_reader)
        kind = plan.kind
        if kind == "write":
            return await self._write(sql, plan, params, context)
        if kind == "select":
            return await self._select(sql, plan, params, context, lock_reads)
        if kind == "begin":
            committed = await self._end_transaction(commit=True)
            self._in_txn = True
            if self.isolation == REPEATABLE_READ and "CONSISTENT" in shape.upper():
                await self._take_snapshot()
            return self._result(committed=committed)
        if kind == "commit":
            committed = await self._end_transaction(commit=True)
            return self._result(committed=committed)
        if kind == "rollback":
            await self._end_transaction(commit=False)
            return self._result()
        if kind in ("savepoint", "rollback_to", "release"):
            return await self._savepoint(sql, plan, context)
        if kind == "ddl":
            return await self._ddl(sql, shape, params, context)
        if kind == "admin":
            return await self._admin(sql, shape, params)
        if kind == "explain":
            return await self._explain(sql, shape, params, context)
        return self._result()

    async def _explain(self, sql: str, shape: str, params, context) -> Result:
        """EXPLAIN [EXTENDED|PARTITIONS] SELECT/UPDATE/DELETE/INSERT/REPLACE (engine/explain.py)."""
        engine = self.engine
        inner = _EXPLAIN_PREFIX.sub("", shape, count=1)
        plan = engine.plan_for(inner, self._database, params, self.visible, self.processlist_reader)
        if plan.kind not in ("select", "write"):
            raise syntax_error(inner)
        args = self._args(plan, params, context, _timestamp(context), sql)
        self._fx.start_statement()
        _, steps = await engine._on_reader(engine._r_query, "EXPLAIN QUERY PLAN " + plan.sql, args, self._fx,
                                           self._database)
        found, notes = explain.accesses(steps)
        for access in found:
            if access.schema is None and access.name:  # the session's database, else the one that has it
                holders = [s for s in dict.fromkeys([self._database, *engine.schemas])
                           if s and engine.table(s, access.name)]
                access.schema = holders[0] if len(holders) == 1 or holders[:1] == [self._database] else None
            access.rows = 1 if access.unique_lookup else await self._count_rows(access.schema, access.name)
            if access.schema and access.name:
                access.key_len = explain.key_len(engine.table(access.schema, access.name), access)
        has_where = re.search(r"\bWHERE\b", inner, re.I) is not None
        rows = explain.rows(found, notes, has_where, delete=inner.lstrip()[:6].upper() == "DELETE")
        return Result(columns=list(explain.COLUMNS), column_types=list(explain.COLUMN_TYPES),
                      rows=rows, in_transaction=self.in_transaction)

    async def _count_rows(self, schema: str | None, name: str | None) -> int | None:
        """The row count of a table SQLite's plan names (None when it names the main file)."""
        engine = self.engine
        table = engine.table(schema, name) if schema and name else None
        if table is None:
            return None
        _, counted = await engine._on_reader(
            engine._r_query, f"SELECT count(*) FROM {quote_ident(table.schema)}.{quote_ident(table.name)}", [],
            self._fx, self._database)
        return counted[0][0]

    def _result(self, **kw) -> Result:
        return Result(in_transaction=self.in_transaction, **kw)

    async def _take_snapshot(self) -> None:
        """START TRANSACTION WITH CONSISTENT SNAPSHOT: the transaction's read view of every
        database file is taken now (one read of each file's schema), not at its first read."""
        engine = self.engine
        files = ["main", *engine.schemas]
        if len(engine.schemas) > ATTACH_LIMIT:
            files = ["main", *([self._database] if self._database else [])]
            self._snapshot.fixed = set(files[1:])
        sql = "SELECT " + " + ".join(f"(SELECT count(*) FROM {quote_ident(f)}.sqlite_master)" for f in files)
        await engine._on_reader(engine._r_query, sql, [], None, self._database, self._snapshot)

    def _args(self, plan: Plan, params: list[object], context: StatementContext | None,
              timestamp: int, sql: str = "") -> list[object]:
        if plan.identity:
            return _bytes_where_not_utf8(params)
        args: list[object] = []
        texts: list[str] | None = None
        for source in plan.args:
            if type(source) is int:
                args.append(_as_held(params[source]))
            elif source == NOW:
                args.append(_fmt_time(timestamp, "%Y-%m-%d %H:%M:%S"))
            elif source == UNIX_NOW:
                args.append(timestamp)
            elif source == CURDATE:
                args.append(_fmt_time(timestamp, "%Y-%m-%d"))
            elif source == CURTIME:
                args.append(_fmt_time(timestamp, "%H:%M:%S"))
            elif source == LAST_ID:
                if context is not None and context.last_insert_id is not None:
                    args.append(context.last_insert_id)
                else:
                    args.append(self.last_insert_id)
            elif source == DATABASE:
                args.append(self._database)
            elif source == CONN_ID:
                args.append(self.connection_id)
            elif source == FOUND:
                args.append(self.found)
            elif source == ROW_COUNT:
                args.append(self.row_count)
            elif source[0] == "const":
                args.append(source[1])
            elif source[0] == "var":
                args.append(self._user_var(source[1], context))
            elif source[0] == "sysvar":
                args.append(self._sysvar(source[1]))
            elif source[0] == "bytes":
                v = params[source[1]]
                args.append(values.binary_value(v.encode("utf-8", "surrogateescape") if isinstance(v, str) else v))
            elif source[0] == STORE:
                _, index, binary, col, row, where, negative = source
                v = params[index]
                if isinstance(v, float):  # a number with a point: exactly as written (DECIMAL)
                    if texts is None:
                        texts = literal_texts(sql)
                    v = Decimal(texts[index])
                if negative:
                    v = v.copy_negate() if isinstance(v, Decimal) else -v  # no context rounding
                elif binary and isinstance(v, str):
                    v = v.encode("utf-8", "surrogateescape")
                args.append(values.store(col, v, row, where))
            else:
                raise AssertionError(source)
        return args

    def _sysvar(self, text: str) -> object:
        if self.sysvar_reader is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "system variables inside this statement")
        return self.sysvar_reader(text)

    def _take_last_id(self) -> bool:
        """After a statement that called LAST_INSERT_ID(expr): its value becomes the session's."""
        value, self._fx.set_last_id = self._fx.set_last_id, None
        if value is None:
            return False
        self.last_insert_id = value
        return True

    def _user_var(self, name: str, context: StatementContext | None) -> object:
        if context is not None and name in context.user_vars:
            return context.user_vars[name]
        return self.user_vars.get(name)

    def _rand_for(self, plan: Plan, context: StatementContext | None) -> tuple[int, int] | None:
        self._fx.set_last_id = None
        self._fx.upserts_changed = self._fx.upserts_unchanged = 0
        self._fx.start_statement()
        if not plan.uses_rand:
            return None
        if context is not None and context.rand_seed is not None:
            self._fx.rand = functions.RandState(*context.rand_seed)
        return (self._fx.rand.seed1, self._fx.rand.seed2)

    async def _select(self, sql: str, plan: Plan, params, context, lock_reads: bool = True) -> Result:
        engine = self.engine
        timestamp = _timestamp(context)
        args = self._args(plan, params, context, timestamp, sql)
        self._rand_for(plan, context)
        if plan.locking and lock_reads and (self._in_txn or not self.autocommit):
            # SELECT ... FOR UPDATE: the rows must not change before this transaction ends, so it
            # becomes a writer now (and reads what it will update, as InnoDB's locking read does)
            self._in_txn = True
            await self._acquire()
        if self._holds_lock:
            names, rows = await engine._on_writer(engine._r_query_writer, plan.sql, args, self._fx, self._database)
        else:
            if self._in_txn is False and not self.autocommit:
                self._in_txn = True
            snapshot = self._snapshot if self._in_txn and self.isolation == REPEATABLE_READ else None
            names, rows = await engine._on_reader(engine._r_query, plan.sql, args, self._fx, self._database,
                                                  snapshot)
        if plan.sets_last_id:
            self._take_last_id()
        self.found, self.row_count = len(rows), -1
        if plan.calc_found and (m := _TRAILING_LIMIT.search(plan.sql)) is not None:
            count_sql = "SELECT count(*) FROM (" + plan.sql[:m.start()] + ")"
            count_args = args[:len(args) - plan.sql[m.start():].count("?")]
            if self._holds_lock:
                _, counted = await engine._on_writer(engine._r_query_writer, count_sql, count_args, self._fx,
                                                     self._database)
            else:
                _, counted = await engine._on_reader(engine._r_query, count_sql, count_args, self._fx,
                                                     self._database, snapshot)
            self.found = counted[0][0]
        if plan.names is not None:
            names = _column_names(plan.names, names, sql, params)
        types, rows = result_types(plan, names, rows, sql, params)
        return Result(columns=names, column_types=types, rows=rows, in_transaction=self.in_transaction)

    async def _acquire(self) -> None:
        if self._holds_lock:
            return
        wait = self._lock_wait = asyncio.ensure_future(
            self.engine.writer_lock.acquire(self, self.engine.lock_wait_timeout))
        try:
            await wait  # cancelling the caller cancels the wait too
        except TimeoutError:
            raise SQLError(ER_LOCK_WAIT_TIMEOUT) from None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the session itself is cancelled (KILL CONNECTION, shutdown)
            raise SQLError(ER_QUERY_INTERRUPTED) from None  # interrupt(): KILL QUERY
        finally:
            self._lock_wait = None
        self._holds_lock = True
        names, self._named_savepoints = self._named_savepoints, []
        for name in names:  # the savepoints named before this first write, made real
            sql = "SAVEPOINT `" + name.replace("`", "``") + "`"  # MySQL's quoting: it goes to the binlog
            await self._savepoint_on_writer("savepoint", name, sql, int(time.time()))

    def _release(self) -> None:
        if self._holds_lock and not self._pinned:
            self._holds_lock = False
            self.engine.writer_lock.release()

    async def _write(self, sql: str, plan: Plan, params, context) -> Result:
        engine = self.engine
        if plan.changed is not None and not self.found_rows:
            plan = plan.changed
        timestamp = _timestamp(context)
        args = self._args(plan, params, context, timestamp, sql)
        rand_seed = self._rand_for(plan, context)
        if plan.sysvars:  # the binlog carries the values read here, not the names
            sql = inline_sysvars(sql, lambda text: _literal(self._sysvar(text)))
        if not self.autocommit:
            self._in_txn = True
        end = not self._in_txn
        await self._acquire()
        forced = context.insert_id if context is not None else None
        try:
            last_id = args_last_id(context, self.last_insert_id) if plan.uses_last_id else None
            log = (self._database, sql, timestamp, last_id, rand_seed)
            deadline = time.monotonic() + engine.lock_wait_timeout
            while True:
                try:
                    affected, first_id = await engine._on_writer(
                        engine._w_write, plan, args, end, forced, self._fx, self._database, log,
                        self._fk_checks(context))
                    break
                except SQLError as exc:
                    # the open group holds every file a connection can: an autocommit statement
                    # lets the group commit (the committer queues on the lock) and runs after it
                    if not (end and not self._pinned and getattr(exc, "group_full", False)
                            and time.monotonic() < deadline):
                        raise
                    self._release()
                    await asyncio.sleep(0.001)
                    await self._acquire()
        except asyncio.CancelledError:
            if end:
                # the statement may still run in the writer thread: undo it there (the lane is
                # FIFO and we still hold the lock), so that nothing unlogged is ever committed
                engine._on_writer(engine._w_undo_cancelled).add_done_callback(_consume)
                self._statements = []
                self._release()
            raise
        except BaseException:
            if end:
                self._statements = []
                self._release()
            raise
        stmt = LoggedStatement(
            db=self._database, sql=sql, timestamp=timestamp, insert_id=first_id,
            last_insert_id=last_id, is_ddl=False, rand_seed=rand_seed,
            user_vars=tuple((name, self._user_var(name, context)) for name in plan.user_vars),
            foreign_key_checks=self._fk_checks(context))
        if first_id is not None:
            self.last_insert_id = first_id
        if plan.sets_last_id and self._take_last_id():
            first_id = first_id if first_id is not None else self.last_insert_id
        self._statements.append(stmt)
        committed = None
        if end:
            committed = CommittedTxn(self._statements)
            self._statements = []
            self._release()
        if plan.upsert:  # MySQL: 1 per row inserted, 2 per row updated, 0 per row left unchanged
            changed, unchanged = self._fx.upserts_changed, self._fx.upserts_unchanged
            affected += changed - (0 if self.found_rows else unchanged)
        info = ""
        if plan.nrows > 1:  # what MySQL says after a multi-row INSERT
            info = f"Records: {plan.nrows}  Duplicates: {max(plan.nrows - affected, 0)}  Warnings: 0"
        self.row_count = affected
        return Result(affected_rows=affected, last_insert_id=first_id or 0, info=info,
                      in_transaction=self.in_transaction, committed=committed)

    async def _savepoint(self, sql: str, plan: Plan, context) -> Result:
        """SAVEPOINT / ROLLBACK TO / RELEASE SAVEPOINT inside a transaction: SQLite savepoints
        nested in the transaction's own, logged like statements (a replica re-runs them)."""
        if not (self._in_txn or not self.autocommit):
            if plan.kind == "savepoint":
                return self._result()  # MySQL: a savepoint outside a transaction ends with it
            raise SQLError(ER_SP_DOES_NOT_EXIST, "SAVEPOINT", plan.sql)
        self._in_txn = True
        if not self._holds_lock:
            # nothing written in this transaction yet: the savepoint is only a name until its
            # first write (taking the writer now would end a REPEATABLE READ snapshot, e.g.
            # mariadb-dump's SAVEPOINT sp / ROLLBACK TO SAVEPOINT sp around each table)
            self._name_savepoint(plan.kind, plan.sql)
            return self._result()
        await self._savepoint_on_writer(plan.kind, plan.sql, sql, _timestamp(context))
        return self._result()

    async def _savepoint_on_writer(self, kind: str, name: str, sql: str, timestamp: int) -> None:
        log = (self._database, sql, timestamp, None, None)
        await self.engine._on_writer(self.engine._w_savepoint, kind, name, log)
        self._statements.append(LoggedStatement(db=self._database, sql=sql, timestamp=timestamp))

    def _name_savepoint(self, kind: str, name: str) -> None:
        """SAVEPOINT / ROLLBACK TO / RELEASE before the transaction's first write: MySQL's rules
        on the list of names (a name set again moves to the end; ROLLBACK TO keeps the name and
        drops the later ones; RELEASE drops it and the later ones)."""
        keys = [n.lower() for n in self._named_savepoints]
        if kind == "savepoint":
            if name.lower() in keys:
                del self._named_savepoints[keys.index(name.lower())]
            self._named_savepoints.append(name)
            return
        if name.lower() not in keys:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name)
        del self._named_savepoints[keys.index(name.lower()) + (1 if kind == "rollback_to" else 0):]

    def _end_snapshot(self) -> None:
        reader, self._snapshot.reader = self._snapshot.reader, None
        self._snapshot.fixed = None
        if reader is not None:  # ended in a reader thread, then back to the pool; nobody waits
            self.engine._on_reader(self.engine._r_end_snapshot, reader).add_done_callback(_consume)

    async def _end_transaction(self, commit: bool) -> CommittedTxn | None:
        self._in_txn = False
        self._named_savepoints = []
        self._end_snapshot()
        if not self._holds_lock:
            self._statements = []
            return None
        engine = self.engine
        try:
            if commit:
                engine._sp_done = True  # RELEASE at the writer's next operation: no hop
            else:
                await engine._on_writer(engine._w_end, False)
        finally:
            statements, self._statements = self._statements, []
            self._release()
        if commit and statements:
            return CommittedTxn(statements)
        return None

    async def _ddl(self, sql: str, shape: str, params, context) -> Result:
        """DDL: commits the open transaction first (returned in the same CommittedTxn, or carried
        by the SQLError as `.committed` when the DDL itself fails) and is never rolled back."""
        engine = self.engine
        timestamp = _timestamp(context)
        tokens = tokenize(shape)

        def parse() -> DdlAction:
            cur = TokenCursor(tokens, params, sql)
            parser = DdlParser(cur, self._database, engine.table, set(engine.schemas))
            parser.foreign_key_checks = self._fk_checks(context)
            parser.all_tables = lambda: [t for tables in engine.catalog.values() for t in tables.values()]
            parser.view_of = engine.view
            parser.shape = shape
            return parsing(parser.parse)

        parse()  # a syntax error commits nothing
        self._end_snapshot()
        await self._acquire()
        try:
            action = parse()
            sql = action.logged or sql
            log = (self._database, sql, timestamp, None, None)
            await engine._on_writer(engine._w_ddl, action, log)
        except SQLError as exc:
            statements, self._statements = self._statements, []
            self._in_txn = False
            self._release()
            exc.committed = CommittedTxn(statements) if statements else None  # type: ignore[attr-defined]
            raise
        except BaseException:
            self._statements = []
            self._in_txn = False
            self._release()
            raise
        self._statements.append(LoggedStatement(db=self._database, sql=sql, timestamp=timestamp, is_ddl=True,
                                                foreign_key_checks=self._fk_checks(context)))
        self.row_count = 0
        committed = CommittedTxn(self._statements)
        self._statements = []
        self._in_txn = False
        self._release()
        if action.late_error is not None:
            action.late_error.committed = committed  # type: ignore[attr-defined]
            raise action.late_error
        return Result(committed=committed, in_transaction=self.in_transaction)

    async def _admin(self, sql: str, shape: str, params) -> Result:
        from engine.admin import run_admin

        return parsing(run_admin, self, TokenCursor(tokenize(shape), params, sql))

    async def set_autocommit(self, value: bool) -> CommittedTxn | None:
        """SET autocommit: turning it on commits an open transaction, as MySQL does."""
        committed = None
        if value and not self.autocommit:
            committed = await self._end_transaction(commit=True)
        self.autocommit = value
        return committed

    def interrupt(self) -> None:
        """KILL QUERY: the running statement stops -- a read on a reader connection at once
        (1317), a SLEEP() or GET_LOCK() wait anywhere, a wait for the writer lock (1317). A
        write already running on the writer connection completes: that connection also commits
        other sessions' groups, so it is never interrupted."""
        self._fx.interrupt()
        if self._lock_wait is not None:
            self._lock_wait.cancel()

    async def close(self) -> None:
        """Roll back an open transaction, release the writer lock and the named locks."""
        functions.LOCKS.release_all(self._fx)
        await self._end_transaction(commit=False)


def _savepoint_statement(words: list[str], tokens) -> Plan | None:
    """SAVEPOINT x / ROLLBACK [WORK] TO [SAVEPOINT] x / RELEASE SAVEPOINT x (name in Plan.sql)."""
    if words[:1] == ["SAVEPOINT"] and len(words) == 2:
        return Plan("savepoint", tokens[1].text, [])
    if words[:2] == ["RELEASE", "SAVEPOINT"] and len(words) == 3:
        return Plan("release", tokens[2].text, [])
    if words[:1] == ["ROLLBACK"]:
        rest = words[1:]
        if rest[:1] == ["WORK"]:
            rest = rest[1:]
        if rest[:1] == ["TO"]:
            rest = rest[1:]
            if rest[:1] == ["SAVEPOINT"]:
                rest = rest[1:]
            if len(rest) == 1:
                return Plan("rollback_to", tokens[-1].text, [])
            raise syntax_error(" ".join(words))
    return None


def result_types(plan: Plan, names: list[str], rows: list[tuple], sql: str,
                 params: list[object]) -> tuple[list[coltypes.ColumnType], list[tuple]]:
    """Each result column's MySQL type (from the schema and the expression; for an expression
    the typer does not know, the one type all its values fit) and the rows in that type's text
    form (DECIMAL scale, binary strings as bytes, fractional seconds ...)."""
    typed: list[coltypes.ColumnType | None] = []
    if plan.result_types is not None:
        typed = plan.result_types.types(params, lambda: literal_texts(sql))
    if len(typed) != len(names):
        typed = [None] * len(names)
    types = [t if t is not None else coltypes.from_rows(rows, i) for i, t in enumerate(typed)]
    convert = coltypes.converter(types)
    if convert is not None:
        rows = [convert(row) for row in rows]
    return types, rows


def _as_held(v: object) -> object:
    """A string literal as SQLite must hold it to compare with stored binary strings
    (`values.binary_value`): bytes that are not UTF-8 (kept as surrogates from the wire, or an
    X'..' literal) as a BLOB, any other as TEXT."""
    if type(v) is str:
        if v.isascii():
            return v
        try:
            v.encode("utf-8")
            return v
        except UnicodeEncodeError:
            return v.encode("utf-8", "surrogateescape")
    if type(v) is bytes:
        return values.binary_value(v)
    return v


def _utf8_name(text: str) -> str:
    raw = text.encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "replace").replace("\ufffd", "?")


def _bytes_where_not_utf8(params: list[object]) -> list[object]:
    for v in params:
        if (type(v) is str and not v.isascii()) or type(v) is bytes:
            return [_as_held(p) for p in params]
    return params


def parsing(fn, *args):
    """Run a parser: running off the end of a malformed statement is the client's syntax error."""
    try:
        return fn(*args)
    except (IndexError, KeyError, ValueError, TypeError, AttributeError):
        raise syntax_error("") from None


def args_last_id(context: StatementContext | None, session_value: int) -> int:
    if context is not None and context.last_insert_id is not None:
        return context.last_insert_id
    return session_value


def _timestamp(context: StatementContext | None) -> int:
    if context is not None and context.timestamp is not None:
        return context.timestamp
    return int(time.time())


def _fmt_time(ts: int, fmt: str) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime(fmt)


def _column_names(templates: list[Any], names: list[str], sql: str, params: list[Any]) -> list[str]:
    if len(templates) != len(names):
        return names
    raw: list[str] | None = None
    out = []
    for template, name in zip(templates, names, strict=False):
        if template is None:
            out.append(name)
        elif template[0] == "value" and isinstance(params[template[1]], str):
            # SELECT 'abc' names its column abc (bytes that are not UTF-8 as '?', as MariaDB)
            name = params[template[1]]
            out.append(name if name.isascii() else _utf8_name(name))
        elif template[0] == "value":
            if raw is None:
                raw = literal_texts(sql)
            out.append(raw[template[1]])  # SELECT 1e3 names its column 1e3
        else:
            parts = []
            for part in template[1]:
                if isinstance(part, int):
                    if raw is None:
                        raw = literal_texts(sql)
                    parts.append(raw[part])
                else:
                    parts.append(part)
            out.append("".join(parts))
    return out
