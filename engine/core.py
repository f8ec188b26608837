"""The engine: MySQL sessions over embedded SQLite, built for group commit and semi-sync AFTER_SYNC.

Files. `datadir/__engine__.sqlite` (the writer's main database: the meta of commits that touched
no schema) and one `datadir/<schema>.sqlite` per MySQL database, ATTACHed under the schema's name,
so `db.table` resolves natively. Every file is in WAL mode with synchronous=FULL (or NORMAL, see
`Engine.open`). The files are the process's alone (`engine.connections`' header: SQLite's
unix-excl VFS): an open on a datadir whose files another process holds fails (`DatadirInUse`).

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

Threads. One writer connection, used from the single writer thread; reader connections
(one per reader thread, the loop's reader, and those pinned by snapshots) see only what SQLite
has committed. The event loop
calls SQLite itself, without a hop, for three things only, each bounded:
- a read outside a writer's transaction (`Plan.inline` of a SELECT: not a locking read, and
  calling no function that waits or changes state, `functions.VOLATILE`, nor one whose one call
  may take long, `functions.UNBOUNDED`) runs on the loop's reader
  (`connections.ReaderPool.query_on_loop`), or inside a REPEATABLE READ snapshot on the
  snapshot's pinned connection (its first read, which takes the view, on a reader of the loop's
  own that the snapshot then pins), which stops a query after a budget of
  SQLite's steps (not of time: hence no such call), or when the database is busy or a file must
  be attached; the read then runs again, from the start, on a reader thread (it has no side
  effect, so that is the same read once; a snapshot's in the same view, or, for its first read,
  in the view that thread takes);
- a write whose work is bounded (`Plan.inline`, decided by `Engine.plan_for` from the
  translation and the catalog, once per cached plan; the rule is at INLINE_ROWS) runs
  `_w_write` on the loop when the writer lane is idle (`ThreadLane.idle`: nothing queued,
  running or unsettled), so the writer connection is still used by one thread at a time and in
  the lane's order. Such a write, autocommit or in a transaction, is an INSERT of at most
  INLINE_ROWS rows of plain values, or an UPDATE / DELETE of one table whose WHERE is an
  equality on every column of its primary key (or of a UNIQUE key of NOT NULL columns), with SET
  values of placeholders, columns, + and -, on a table that no foreign key references with
  CASCADE or SET NULL: SQLite's work is a few index updates and foreign key lookups per row, for
  at most INLINE_ROWS rows. Its session holds the writer lock, as for every write; it runs in one
  step of its task (nothing can cancel it half-way), and its answers (rows affected, errors, the
  binlogged statement) are the writer thread's;
- a `commit_group` that writes WAL frames and nothing else (`durable=False` under synchronous
  NORMAL, no other file's commits to fsync first, no file to delete, no torn group, no
  checkpoint due: `commits_on_loop`) runs on the loop when the writer lane is idle, as such a
  write does. SQLite's automatic checkpoint is off on the writer connection, so that no commit
  on the loop copies the WAL: the writer thread checkpoints after every CHECKPOINT_GROUPS
  commits (the commit on which one is due takes the hop), and restarts the WAL after the next
  commit when the snapshots' gate wants it (`engine.walbound`: the WAL's bound under
  overlapping REPEATABLE READ snapshots; that commit takes the hop too).

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
A committer may let go of the lock while its written group waits for its commit (`Engine.settle`,
`engine.concurrency.Settle`): single-statement writes then run and join the open transaction,
and the group's commit, with the lock back, covers them too; a session whose writes hold the lock
across statements (an explicit transaction, autocommit off, a locking read) first waits for that
group's commit, so it never keeps the group from committing.
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
contexts and the file each wrote) in each of them. A commit writes only the meta rows that differ
from what the file's last commit left there (the engine keeps a copy of each file's meta table,
changed only once a commit succeeded; a file it is not sure of gets its table rewritten whole), so
each file's table holds exactly its last commit's meta either way. At open, a file that misses the
newest group while that group's record names it (a crash between the files' commits) gets the
group's statements re-run and committed with the group's meta (`Engine.repaired` lists such files).
After `open()` every file agrees with `meta()`: exactly the groups up to it are in. `schema_metas()`
shows each file's meta. A live commit can stop between the files too (a full disk): the group then
counts as committed, and its statements are re-run on the files that miss it, as at open
(`_rerun_torn`, the one repair): before `commit_group` returns (or by `replay_group`, which then
never runs the group again), and for a replicated batch (`apply_transactions`) before the next
batch.

fsync (synchronous NORMAL, what a server runs). SQLite does not fsync at COMMIT; the engine
fsyncs the WAL of the files a commit wrote right after it, so every commit is as durable as
under FULL, except `commit_group(meta, durable=False)`: the caller's own log (the binlog,
fsynced before) holds that group and replays it after `meta()` if a power loss undoes it. A
power loss undoes WAL frames per file, so the engine keeps what it may lose one suffix of the
groups that recovery can replay from the oldest lost `meta()`: before a commit to other files
than the unsynced ones, or a commit of several files, the unsynced files are fsynced first. So
the unsynced commits are always one group (its redo record repairs it across files, as above) or
a run of groups on one file. `sync()` fsyncs them (before the log that would replay them loses
files: a relay log purge, PURGE/RESET MASTER), and so does a DROP DATABASE's commit before it
deletes the file. A failed fsync stops the process, as InnoDB's
does: the commit is visible already, and failing it would make its caller run it again.

DDL is not transactional in MySQL: it ends the open transaction and becomes its own statement of
the same `CommittedTxn` (see `CommittedTxn.binlog_transactions`). CREATE DATABASE creates and
attaches its file at once; DROP DATABASE drops the tables in the open transaction and deletes the
file after the next commit_group.

(A dropped database's file is marked in that commit, so a file that outlives it is deleted at open.)

Auto-increment ids are handed out by the engine (per-table counters, never reused), row by row as
MariaDB hands them out (`engine.autoinc`: an ignored row's id goes to the next row), so
`StatementContext.insert_id` reproduces the master's ids on a replica, ours or MariaDB's. Each
table's largest id a row took or gave (`StatementIds.top`, raised to its rows' MAX wherever ids
are written otherwise: UPDATE of the column, multi-table writes, triggers) is kept in its file's
`__engine_autoinc`, written by the next commit of that file (in the same SQLite transaction
as the rows it covers: a table's rows and its counter live in one file) unless every statement
of the group was an INSERT that wrote all its rows (its ids are in rows: MAX + 1 finds them, and
a group that deletes one writes the counter), or by a clean close: at open a table counts on
past the larger of it and its rows' MAX, as InnoDB's persistent counter does (MariaDB 10.2's
MDEV-6076). So a committed row's id is never handed out again, after a restart or a crash, even
once the row is deleted; an id of a rolled-back statement is not either once such a commit or
close followed it. TRUNCATE, ALTER TABLE ... AUTO_INCREMENT = n and DROP start a table's counter
again (`DdlAction.reset_auto`); RENAME carries it (`DdlAction.moved_auto`). NOW() and friends are the statement's timestamp (UTC),
`StatementContext.timestamp` when replaying.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import secrets
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from engine import (
    autoinc,
    fixedbin,
    functions,
    infoschema,
    multiwrite,
    system_schemas,
    temporary,
    viewcols,
    walbound,
)
from engine.catalog import DATABASE_KEY, VIEW_PREFIX, DatabaseOptions, Table, TokenCursor, View
from engine.concurrency import Handover, Settle, ThreadLane, WriterLock
from engine.connections import (
    ATTACH_LIMIT,
    BUSY_TIMEOUT_MS,
    PAGE_SIZE,
    DatadirInUse,
    ReaderPool,
    connect,
    open_connection,
)
from engine.ddl import VIEW_NAME_ERRORS, CopyStore, DdlAction, missing_routine
from engine.errors import SQLITE_INPUT_ERRORS, map_sqlite_error, parsing
from engine.exact import plan_kind
from engine.foreign_keys import FkTriggers, fk_error
from engine.lexer import quote_ident, syntax_error, tokenize
from engine.results import ReplicatedStatement, StatementContext, statement_time
from engine.routines import ROUTINE_PREFIX, Routine, catalog_key
from engine.session import PLAN_CACHE_SIZE, Session
from engine.translate import Plan, Translator
from engine.triggers import (
    TRIGGER_PREFIX,
    Trigger,
    TriggerSwitch,
    install_sql,
    ordered,
    plan_effects,
    sqlite_names,
)
from protocol.errors import (
    ER_AUTOINC_ERANGE,
    ER_BAD_FIELD_ERROR,
    ER_BAD_NULL_ERROR,
    ER_CONSTRAINT_FAILED,
    ER_DB_CREATE_EXISTS,
    ER_DUP_ENTRY,
    ER_EMPTY_QUERY,
    ER_KEY_NOT_FOUND,
    ER_LOCK_WAIT_TIMEOUT,
    ER_NO_DB_ERROR,
    ER_NO_DEFAULT_FOR_FIELD,
    ER_NO_REFERENCED_ROW_2,
    ER_NO_SUCH_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_RECORD_FILE_FULL,
    ER_SP_DOES_NOT_EXIST,
    ER_TOO_MANY_DATABASES,
    ER_UNKNOWN_ERROR,
    ER_WRONG_VALUE_COUNT_ON_ROW,
    WARN_DATA_TRUNCATED,
    SQLError,
)

log = logging.getLogger("semisync.engine")

MAIN_FILE = "__engine__.sqlite"
_ROWID_MAX = (1 << 63) - 1  # an integer primary key is SQLite's rowid
META_TABLE = "__engine_meta"
CATALOG_TABLE = "__engine_catalog"
AUTOINC_TABLE = "__engine_autoinc"  # per schema file: lower(table) -> the largest id its rows took
SEQ_KEY = "__seq"
REDO_KEY = "__redo"
DROPPED_KEY = "__dropped"
# The writes bounded enough for the event loop (`Plan.inline`, see "Threads"): SQLite's work is a
# few index updates and the foreign key triggers' lookups per row, for at most INLINE_ROWS rows.
# - an INSERT of at most INLINE_ROWS rows of plain values (placeholders only: no function, no
#   subquery, no ON CONFLICT);
# - an UPDATE or DELETE of at most one row: one table, no ORDER BY, LIMIT or RETURNING; its
#   WHERE is `column = ?` joined by AND, naming every column of the PRIMARY KEY or of a UNIQUE
#   key of NOT NULL columns (an index lookup; more `column = ?` may follow); each SET value a
#   placeholder, a bare column or a sum of them (+, -), as is or through the engine's type check
#   (`mysql_store`, with its `iif(typeof ...)` shortcut for integer columns); and the table is
#   no foreign key's parent with a CASCADE or SET NULL action (a cascade touches any number of
#   rows; a RESTRICT check is one lookup); and the table has no user trigger (`engine.triggers`).
INLINE_ROWS = 8
_INLINE_INSERT = re.compile(
    r'INSERT INTO "[^"]*"\."[^"]*" \([^()]*\) VALUES \( \?(?: , \?)* \)(?: , \( \?(?: , \?)* \))*\Z')
# REPLACE ... VALUES (rows of expressions) and REPLACE ... SELECT: `_w_replace` runs them a row at
# a time, as MariaDB does
_REPLACE_VALUES = re.compile(r'(?P<head>REPLACE INTO "[^"]*"\."[^"]*") \((?P<columns>[^()]*)\) VALUES (?P<rows>\(.*\))\Z', re.S)
_REPLACE_SELECT = re.compile(r'(?P<head>REPLACE INTO "[^"]*"\."[^"]*")(?: \((?P<columns>[^()]*)\))? (?P<select>SELECT .*)\Z', re.S)
_IDENT = r'(?:"(?:[^"]|"")*"|[A-Za-z_][A-Za-z0-9_$]*)'
# an INSERT's translation up to its VALUES / SELECT (`_values_apart`, `_select_apart`)
_INSERT_HEAD = re.compile(
    r'(?P<head>INSERT (?:OR IGNORE )?INTO "(?:[^"]|"")*"\."(?:[^"]|"")*"(?: AS "(?:[^"]|"")*")? \((?P<columns>(?:[^()"]|"(?:[^"]|"")*")*)\)) '
    r'(?P<rest>.*)\Z', re.S)
_UPSERT_AFTER_SELECT = " WHERE true ON CONFLICT DO UPDATE SET "  # (Translator: INSERT ... SELECT ... ON DUPLICATE)
_NUMBERED = "SELECT *, ? + row_number() OVER () - 1 FROM "  # (Translator: INSERT ... SELECT numbering ids)
_SUM = rf'(?:\?|{_IDENT})(?: [+-] (?:\?|{_IDENT}))*'
_STORED = rf"mysql_store\(\( {_SUM} \), '(?:[^']|'')*'\)"
_VALUE = (rf"(?:{_SUM}|{_STORED}|iif\(typeof\(\( {_SUM} \)\) = 'integer' AND \( {_SUM} \) BETWEEN -?\d+ AND \d+, "
          rf"\( {_SUM} \), {_STORED}\))")
_SET = rf'"(?:[^"]|"")*" = {_VALUE}'
_KEY_EQ = rf'({_IDENT}) = \?'
_INLINE_ROW_WRITE = re.compile(
    rf'(?:UPDATE "[^"]*"\."[^"]*" SET {_SET}(?: , {_SET})*|DELETE FROM "[^"]*"\."[^"]*") '
    rf'WHERE (?P<where>{_IDENT} = \?(?: AND {_IDENT} = \?)*)\Z')
_CASCADING = ("CASCADE", "SET NULL")
# A read may run on the loop's reader unless it calls a function that waits or changes state
# (SLEEP, GET_LOCK, RAND's generator, LAST_INSERT_ID(expr), UUID ...) or one whose one call may
# take long (REPEAT, LPAD, a regular expression, SQLite's zeroblob ...): see "Threads".
_LOOP_UNSAFE_CALL = re.compile(
    r"\b(?:" + "|".join(sorted(functions.VOLATILE | functions.UNBOUNDED)) + r")\s*\(|\bREGEXP\b", re.IGNORECASE)
# The writer's WAL checkpoint (SQLite's automatic one is off on the writer connection): after
# every CHECKPOINT_GROUPS group commits, on the writer thread.
CHECKPOINT_GROUPS = 64
MAX_CACHED_SHAPE = 16384  # bulk INSERTs (one shape per row count) are translated, not cached
SERVER_VERSION = "10.11.0-semisync"


def _consumed(fut: asyncio.Future) -> None:
    """A call nobody awaits: its exception taken (the engine closing), never reported unseen."""
    if not fut.cancelled():
        fut.exception()


# --- the engine ------------------------------------------------------------------------------------


class Engine:
    def __init__(self, datadir: Path, readers: int, synchronous: str = "FULL"):
        self.datadir = Path(datadir)
        self.synchronous = synchronous
        self.writer_lock = WriterLock()
        # a group in the committer's log awaiting its commit without the lock (`Settle`)
        self.settle = Settle()
        # logically committed transactions not yet in the committer's queue (`Handover`)
        self.handover = Handover()
        self.lock_wait_timeout = 50.0
        self._writer = ThreadLane(1, "engine-writer")
        self._readers = ThreadLane(readers, "engine-reader")
        # (the map read by a C call, no Python frame: the loop's reads ask for it each time)
        self._pool = ReaderPool(self.datadir / MAIN_FILE, functools.partial(getattr, self, "schemas"),
                                self.auto_counter)
        self._wconn_: sqlite3.Connection | None = None
        self._wstate = functions.ConnectionState()
        # the functions' state of the replicated transactions' sessions (`_replicated_functions`)
        self._replicated_fx: functions.SessionFunctions | None = None
        self.schemas: dict[str, Path] = {}  # every database -> its file (replaced, never mutated)
        # the files attached to the writer connection, least recently used first (writer thread)
        self._w_attached: collections.OrderedDict[str, Path] = collections.OrderedDict()
        self.catalog: dict[str, dict[str, Table]] = {}  # schema -> lower(table) -> Table
        self.views: dict[str, dict[str, View]] = {}  # schema -> lower(view) -> View (never in catalog)
        self.triggers: dict[str, dict[str, Trigger]] = {}  # schema -> lower(trigger) -> Trigger
        self.routines: dict[str, dict[str, Routine]] = {}  # schema -> `Routine.key` -> Routine
        # schema -> its options (CREATE / ALTER DATABASE's); a schema without: the server's
        self.database_options: dict[str, DatabaseOptions] = {}
        self._catalog_version = 0
        # this open's token in the owners of temporary tables (`engine.temporary`): a table a
        # session of an earlier open left is nobody's
        self.open_token = secrets.token_hex(temporary.TOKEN_BYTES)
        # the owners of the catalog's temporary tables, as of a catalog version (`temporary_owners`)
        self._owners: tuple[int, frozenset[str]] = (-1, frozenset())
        # False: the catalog holds no temporary table, so no session has one (`Session.owner`,
        # tested inline on every statement); True: it may hold one. Set wherever a catalog that
        # may hold one comes in (a file attached, the files' catalogs read again, DDL that
        # makes one), made exact again when one goes (`_temporary_changed`)
        self.temporary_any = False
        self._plans: dict[tuple, Plan] = {}
        # (translated sql, catalog version) -> what it reads and writes (Session.access)
        self._accesses: dict[tuple[str, int], tuple[tuple, tuple]] = {}
        self._auto: dict[tuple[str, str], int] = {}  # next AUTO_INCREMENT id per (schema, lower(table))
        self._auto_stale: set[tuple[str, str]] = set()
        # the largest id a row took or gave per table (`autoinc.StatementIds.top`), what the
        # files' AUTOINC_TABLE holds of it, the tables whose value differs from the file's (or
        # that `_auto_reset` starts again there), written by their file's next commit, and the
        # tables whose rows may hold ids beyond it (multi-table writes, triggers: counted again
        # before that commit)
        self._auto_top: dict[tuple[str, str], int] = {}
        self._auto_saved: dict[tuple[str, str], int] = {}
        self._auto_dirty: set[tuple[str, str]] = set()
        self._auto_reset: set[tuple[str, str]] = set()
        self._auto_unsure: set[tuple[str, str]] = set()
        # every statement of the open group was an INSERT that wrote all its rows (none failed,
        # none was undone): every id it took is in a row, which MAX + 1 finds at open, so its
        # commit need not write the raised counters (kept raised: the next other group writes them)
        self._auto_in_rows = True
        self._touched: set[str] = set()
        self._pending_drops: list[tuple[str, Path]] = []
        self._seq = 0
        self._meta: dict[str, str] = {}
        self._schema_metas: dict[str, dict[str, str]] = {}
        # each file's meta table as its last commit left it, every row (writer side only): a
        # commit writes only the rows that differ. A file is absent while what its table holds is
        # not known for sure (from the start of a commit until it succeeds, after a failed one,
        # a file attached or dropped): its next commit rewrites the table whole.
        self._stored_meta: dict[str, dict[str, str]] = {}
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
        # (schema, stored name) of the temporary tables the current logical transaction made or
        # dropped (`_w_ddl_kept`), and where each of its savepoints stood in that list
        self._txn_temporary: list[tuple[str, str]] = []
        self._temporary_marks: dict[str, int] = {}
        self._torn: tuple[list[str], list[list], dict[str, str]] | None = None
        self._sync_pending: set[str] = set()
        # files holding commits not fsynced yet (synchronous NORMAL, `durable=False`): either
        # one group's files, or one file that a run of single-file groups wrote
        self._unsynced: set[str] = set()
        self.repaired: list[str] = []  # files brought up to the last group at open (torn commit)
        self._fk = FkTriggers()  # the writer connection's foreign key triggers
        self._copy_store = CopyStore()  # ALTER TABLE's values stored in a column's new type
        self._triggers_on = TriggerSwitch()  # whether the files' user triggers fire (`engine.triggers`)
        self._fk_in_txn = False  # they were (re)installed inside the open SQLite transaction
        self._uncheckpointed = 0  # groups committed since the writer's last WAL checkpoint
        # the WAL's bound under overlapping snapshots (`engine.walbound`): the sessions' first
        # reads in a snapshot pass it, the writer's checkpoints tell it the WAL's size
        self.snapshots = walbound.SnapshotGate(self._request_wal_restart)

    # --- lifecycle ---------------------------------------------------------------------------

    @classmethod
    async def open(cls, datadir: Path, *, readers: int = 4, synchronous: str = "FULL",
                   keep_left_temporary: bool = False) -> Engine:
        """`synchronous="FULL"`: SQLite fsyncs every commit. `"NORMAL"`: SQLite does not, the
        engine does (see "Durability and meta"): every commit is as durable as with FULL,
        except a `commit_group(meta, durable=False)`, whose caller replays it from its own
        durable log after `meta()` (the binlog) if a power loss undoes it.
        The temporary tables an earlier open's sessions left are dropped, or with
        `keep_left_temporary` kept for a replay of the binlog's statements that used them
        (crash recovery: `replay_owner`), until `drop_left_temporary`."""
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        engine = cls(Path(datadir), readers, synchronous)
        engine.datadir.mkdir(parents=True, exist_ok=True)
        try:
            await engine._on_writer(engine._w_open)
        except DatadirInUse:
            await engine.close()  # (its threads; nothing of the datadir was touched)
            raise
        if engine._torn is not None:
            await engine._repair()  # (its statements may use the left temporary tables: kept till then)
        if not keep_left_temporary:
            await engine.drop_left_temporary()
        return engine

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.snapshots.shutdown()
        await self._on_writer(self._w_close)
        self._writer.shutdown()
        self._readers.shutdown()
        self._pool.close()

    @property
    def _wconn(self) -> sqlite3.Connection:
        """The writer connection (writer thread only). The functions every write runs
        (`_w_lost`, `_w_begin`, `_w_end`, `_w_execute`) check `_wconn_` inline instead."""
        assert self._wconn_ is not None, "engine not open"
        return self._wconn_

    def _on_writer(self, fn, *args) -> asyncio.Future:
        return self._writer.call(fn, *args)

    def _on_reader(self, fn, *args) -> asyncio.Future:
        return self._readers.call(fn, *args)

    def _w_open(self) -> None:
        self._wconn_ = open_connection(self.datadir / MAIN_FILE, self._wstate, self.synchronous, self.auto_counter,
                                       datadir=self.datadir)
        # checkpoints are the writer thread's, every CHECKPOINT_GROUPS groups (`_w_checkpoint`),
        # never in a commit the loop runs
        self._wconn_.execute("PRAGMA wal_autocheckpoint=0")
        self._fk.register(self._wconn_)
        self._triggers_on.register(self._wconn_)
        self._copy_store.register(self._wconn_)
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
                self._forget_counters(name)
                self._pending_drops.append((name, path))
                self.schemas = {k: v for k, v in self.schemas.items() if k != name}
                self.catalog = {k: v for k, v in self.catalog.items() if k != name}
                continue
        self._w_finish_drops()
        self._w_fk_install()
        self._stored_meta = dict(metas)
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
            self._w_close_tops()
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
        self._wconn.execute(f"CREATE TABLE IF NOT EXISTS {s}.{AUTOINC_TABLE} (name TEXT PRIMARY KEY, top INTEGER)")

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
            conn = connect(path, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {META_TABLE} (k TEXT PRIMARY KEY, v TEXT)")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {CATALOG_TABLE} (name TEXT PRIMARY KEY, def TEXT)")
            conn.execute(f"CREATE TABLE IF NOT EXISTS {AUTOINC_TABLE} (name TEXT PRIMARY KEY, top INTEGER)")
            conn.close()
        self._wconn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
        self._w_attached[name] = path
        self._stored_meta.pop(name, None)  # a new file, or one made again under an old name
        self._sync_pending.add(name)
        self._w_set_synchronous()
        self._w_ensure_tables(name)
        tables = self._w_read_catalog(name)
        self.catalog = {**self.catalog, name: tables}
        self.schemas = {**self.schemas, name: path}
        self._catalog_version += 1
        self.temporary_any = self.temporary_any or any(temporary.is_temporary(t.name) for t in tables.values())
        self._w_load_tops(name)

    def _w_load_tops(self, schema: str) -> None:
        """The counters `schema`'s file keeps (AUTOINC_TABLE): each table counts on past its
        largest id (checked against its rows at its next use, `_auto_stale`). A file attached
        again holds what the engine had committed there: what is newer here stays."""
        for name, top in self._wconn.execute(f"SELECT name, top FROM {quote_ident(schema)}.{AUTOINC_TABLE}"):
            key = (schema, name)
            self._auto_saved.setdefault(key, top)
            if key in self._auto_reset or top <= self._auto_top.get(key, 0):
                continue
            self._auto_top[key] = top
            self._auto[key] = max(self._auto.get(key, 1), top + 1)
            self._auto_stale.add(key)

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
        default_owner = session.temporary_owner
        while self._torn is not None:
            torn, self._torn = self._torn, None
            lagging, statements, meta = torn
            try:
                for target, db, sql, ts, last_id, seed, insert_id, _is_ddl, *rest in statements:
                    if target is not None and target not in lagging:
                        continue
                    session._database = db
                    ts, micros = statement_time(ts)
                    context = StatementContext(ts, insert_id, last_id, tuple(seed) if seed else None,
                                               sql_mode=rest[0] if rest else None, microseconds=micros,
                                               auto_increment=tuple(rest[2]) if len(rest) > 2 else autoinc.ONE)
                    # its session's temporary tables (`_redo_entry`), which the open that repairs
                    # the group keeps until then (`open`)
                    session.temporary_owner = rest[1] if len(rest) > 1 and rest[1] is not None else default_owner
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

    # --- public API --------------------------------------------------------------------------

    def session(self, connection_id: int = 0) -> Session:
        return Session(self, connection_id)

    def has_database(self, name: str) -> bool:
        """A database made here, information_schema, or a system database (`system_schemas`)."""
        return name in self.schemas or name.lower() == infoschema.NAME or name in system_schemas.OPTIONS

    def databases(self) -> list[str]:
        """The databases made here, by name."""
        return sorted(self.schemas)

    def listed_databases(self) -> list[str]:
        """What SHOW DATABASES and information_schema.SCHEMATA list after information_schema:
        the databases made here and the listed system ones (`system_schemas.LISTED`), by name."""
        return sorted([*self.schemas, *system_schemas.LISTED])

    def listed_tables(self, schema: str) -> list[Table]:
        """The tables information_schema lists in `schema`: a database's made here, a system
        database's its own (`system_schemas.listed_tables`)."""
        if schema in self.schemas:
            return [t for t in self.catalog.get(schema, {}).values() if not temporary.is_temporary(t.name)]
        return system_schemas.listed_tables(schema)

    def table(self, schema: str, name: str) -> Table | None:
        tables = self.catalog.get(schema)
        return None if tables is None else tables.get(name.lower())

    def temporary_of(self, owner: str) -> Callable[[str, str], str | None]:
        """(schema, name) -> the stored name of `owner`'s temporary table `name` in `schema`, or
        None where it has none."""
        def stored(schema: str, name: str) -> str | None:
            found = self.table(schema, temporary.stored_name(owner, name))
            return None if found is None else found.name
        return stored

    def _temporary_changed(self) -> None:
        """`temporary_any` made exact after the catalog gained or lost a temporary table."""
        self.temporary_any = any(temporary.is_temporary(t.name) for tables in self.catalog.values()
                                 for t in tables.values())

    def temporary_drops(self, owner: str) -> list[tuple[str, str]]:
        """What ends `owner`'s temporary tables, as MariaDB binlogs it at a session's end: per
        database (by name), (database, `temporary.drop_statement` of its tables, the newest
        first), to run in that database."""
        drops = []
        for schema, tables in sorted(self.catalog.items()):
            names = [temporary.shown_name(t.name) for t in tables.values() if temporary.owner_of(t.name) == owner]
            if names:
                drops.append((schema, temporary.drop_statement(names[::-1])))
        return drops

    def resolver(self, owner: str) -> Callable[[str, str], Table | None]:
        """`table` as `owner`'s session resolves a name: its temporary table first."""
        def table(schema: str, name: str) -> Table | None:
            return self.table(schema, temporary.stored_name(owner, name)) or self.table(schema, name)
        return table

    def temporary_owners(self) -> frozenset[str]:
        """The owners (`Session.temporary_owner`) of the catalog's temporary tables; read again
        once per catalog version."""
        version, owners = self._owners
        if version != self._catalog_version:
            owners = frozenset(owner for tables in self.catalog.values() for t in tables.values()
                               if (owner := temporary.owner_of(t.name)) is not None)
            self._owners = (self._catalog_version, owners)
        return owners

    def view(self, schema: str, name: str) -> View | None:
        views = self.views.get(schema)
        return None if views is None else views.get(name.lower())

    def _triggered(self, target: tuple[str, str]) -> set[str]:
        """The events of the table's triggers (none: an empty set)."""
        return {t.event for t in self.triggers.get(target[0], {}).values() if t.table.lower() == target[1].lower()}

    def routine(self, schema: str, kind: str, name: str) -> Routine | None:
        """The stored procedure or function (`kind`) `schema`.`name`, None where there is none."""
        return self.routines.get(schema, {}).get(catalog_key(kind, name))

    def trigger(self, schema: str, name: str) -> Trigger | None:
        found = self.triggers.get(schema)
        return None if found is None else found.get(name.lower())

    def view_table(self, schema: str, name: str) -> Table:
        """The view's stand-in table, as DESCRIBE and SHOW COLUMNS read it (`viewcols`; 1235
        where its columns cannot be told as MariaDB tells them)."""
        translator = Translator([], "", schema, self.table, set(self.schemas), [])
        translator.view_of = self.view
        translator.views_in = lambda schema: list(self.views.get(schema, {}).values())
        translator.options_of = self.options_of
        try:
            return translator.view_table(schema, name)
        except viewcols.Unknown:
            raise viewcols.refused(schema, name) from None

    def options_of(self, name: str) -> DatabaseOptions:
        """The options of database `name` (information_schema's: utf8mb3's)."""
        if name.lower() == infoschema.NAME:
            return infoschema.DATABASE_OPTIONS
        return self.database_options.get(name) or system_schemas.OPTIONS.get(name) or DatabaseOptions()

    def _w_read_catalog(self, name: str) -> dict[str, Table]:
        """One schema file's catalog rows: its tables (returned), its views (into `views`) and
        its options (into `database_options`)."""
        tables, views, found, kept = {}, {}, {}, {}
        options = DatabaseOptions()
        for key, text in self._wconn.execute(f"SELECT name, def FROM {quote_ident(name)}.{CATALOG_TABLE}"):
            if key == DATABASE_KEY:
                options = DatabaseOptions.from_json(text)
            elif key.startswith(VIEW_PREFIX):
                view = View.from_json(text)
                views[view.name.lower()] = view
            elif key.startswith(TRIGGER_PREFIX):
                trigger = Trigger.from_json(text)
                found[trigger.name.lower()] = trigger
            elif key.startswith(ROUTINE_PREFIX):
                kept[key] = Routine.from_json(text)
            else:
                table = Table.from_json(text)
                tables[table.name.lower()] = table
        self.views = {**self.views, name: views}
        self.triggers = {**self.triggers, name: found}
        self.routines = {**self.routines, name: kept}
        self.database_options = {**self.database_options, name: options}
        return tables

    def meta(self) -> dict[str, str]:
        """The meta stored by the last commit_group (after open: the newest one on disk)."""
        return dict(self._meta)

    def schema_metas(self) -> dict[str, dict[str, str]]:
        """Each file's committed meta, as read at open (`main` = the engine's own file)."""
        return {k: dict(v) for k, v in self._schema_metas.items()}

    async def commit_group(self, meta: dict[str, str], *, durable: bool = True,
                           first: Callable[[], object] | None = None) -> None:
        """The real SQLite COMMIT of every transaction committed since the last group, with `meta`
        stored in the same transaction (its keys update the stored meta, keys it lacks keep their
        values: a server's binlog position and its applier's position live side by side). Call
        it holding `writer_lock`. A commit that stopped between the group's files is completed on the others before it returns; if that fails
        too, SQLError as for a failed commit, but the group is durable where it reached:
        `replay_group` (or the repair at open) only completes it. `durable=False` (honoured
        with synchronous NORMAL) returns before the commit is fsynced: only for a caller whose
        own log holds the group durably and is replayed after `meta()` at recovery.
        `first` (the caller's blocking step that must precede the commit, e.g. the group's
        binlog write) runs on the writer thread just before it, in the same trip; if it raises,
        its exception propagates and nothing is committed (the caller tells the two apart)."""
        meta = {str(k): str(v) for k, v in meta.items()}
        if first is None and self.commits_on_loop(durable):
            self._w_commit_group(meta, durable)  # bounded, no fsync: no hop ("Threads")
        elif first is None:
            await self._on_writer(self._w_commit_group, meta, durable)
        else:
            await self._on_writer(self._w_first_then_commit, first, meta, durable)
        if self._torn is not None:
            # stopped between the group's files: the others get it before any later write
            await self._complete_torn()

    def commits_on_loop(self, durable: bool) -> bool:
        """Whether the loop may run a `commit_group` without `first` itself: the writer lane is idle, and the
        commit writes WAL frames only -- no fsync (durable=False under synchronous NORMAL, and no
        other file's unsynced commits to sync first), no file to delete, no torn group to
        complete, and no checkpoint due (`_w_commit_group` runs those on the writer thread)."""
        if durable or self.synchronous == "FULL" or not self._writer.idle():
            return False
        if (self._pending_drops or self._torn is not None or self._uncheckpointed >= CHECKPOINT_GROUPS
                or self.snapshots.due):
            return False
        targets = self._group_targets()
        return not self._unsynced or (len(targets) == 1 and self._unsynced == set(targets))

    def _group_targets(self) -> list[str]:
        """The files the open group commits to: each database it wrote, or the main file."""
        return [s for s in self._touched if s in self.schemas] or ["main"]

    def _w_first_then_commit(self, first: Callable[[], object], meta: dict[str, str], durable: bool) -> None:
        first()
        self._w_commit_group(meta, durable)

    def _w_commit_group(self, meta: dict[str, str], durable: bool = True) -> None:
        """All or nothing per file: on failure (SQLITE_FULL, SQLITE_IOERR ...) the group is
        rolled back (SQLite may already have done so) and the engine is as after
        `rollback_group`. SQLite commits the files of a WAL transaction one after the other, so
        a full disk can stop a commit after some of them: that group is durable (its redo
        record is in the files that have it, as after a crash between the commits, which
        `open` repairs), so it counts as committed and `_torn` names the files that miss it,
        for `_rerun_torn`. Reported as failed, it would be run again: twice where it is."""
        meta = {**self._meta, **meta}
        conn = self._wconn
        seq = self._seq + 1
        targets: list[str] = []
        try:
            if self._w_lost():
                # committing the meta (and what came after the loss) would hide the loss
                raise sqlite3.OperationalError("the group's transaction was rolled back by an earlier error")
            if self._sp_done:
                # first: the last transaction's statements join the redo record (its savepoint
                # is let go by the COMMIT below, or by the rollback when the commit fails)
                self._w_end(True, release=False)
            targets = self._group_targets()
            rows = {**meta, SEQ_KEY: str(seq)}
            if len(targets) > 1:
                record = {"seq": seq, "targets": targets, "statements": self._group_log}
                rows[REDO_KEY] = json.dumps(record)
            if not conn.in_transaction:
                conn.execute("BEGIN")
            for schema in targets:
                self._w_store_meta(schema, rows)
            tops = self._w_store_tops(targets) if self._auto_reset or not self._auto_in_rows else []
            if self._unsynced and (len(targets) > 1 or self._unsynced != set(targets)):
                self._w_sync()  # what a power loss may undo stays one suffix of the groups
            conn.execute("COMMIT")
            self._began = self._lost = False
            for schema in targets:
                self._stored_meta[schema] = rows
            self._auto_in_rows = True
            for key, top in tops:
                self._auto_dirty.discard(key)
                self._auto_reset.discard(key)
                if top is None:
                    self._auto_saved.pop(key, None)
                else:
                    self._auto_saved[key] = top
            if self.synchronous != "FULL":
                self._unsynced.update(targets)
                if durable:
                    self._w_sync()
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
            for schema in committed:  # (their counters as the group left them: the rerun skips their statements)
                self._w_load_tops(schema)
            if self.synchronous != "FULL":
                self._unsynced.update(committed)
        self._seq = seq
        self._meta = dict(meta)
        for schema in targets:
            self._schema_metas[schema] = dict(meta)
        self._touched = set()
        self._group_log = []
        self._fk_in_txn = False
        self._w_finish_drops()
        self._w_set_synchronous()
        self._uncheckpointed += 1
        if self.snapshots.due and self._writer.on_lane():
            self._w_restart_wal()
        elif self._uncheckpointed >= CHECKPOINT_GROUPS and self._writer.on_lane():
            self._w_checkpoint()

    def _w_store_meta(self, schema: str, rows: dict[str, str]) -> None:
        """Make `schema`'s meta table hold exactly `rows` (in the open transaction): only the
        rows that differ from what its last commit left, or, when that is not known, all of them.
        Until the caller's commit succeeds the file counts as not known (`_stored_meta`)."""
        conn = self._wconn
        s = quote_ident(schema)
        stored = self._stored_meta.pop(schema, None)
        if stored is None:
            conn.execute(f"DELETE FROM {s}.{META_TABLE}")
            conn.executemany(f"INSERT INTO {s}.{META_TABLE} (k, v) VALUES (?, ?)", rows.items())
            return
        gone = [(k,) for k in stored if k not in rows]
        if gone:
            conn.executemany(f"DELETE FROM {s}.{META_TABLE} WHERE k = ?", gone)
        # a row the table holds is updated in place (its key's index entry stays: one page less
        # to write than a REPLACE's delete and insert); a new key is inserted
        updated = [(v, k) for k, v in rows.items() if k in stored and stored[k] != v]
        if updated and conn.executemany(f"UPDATE {s}.{META_TABLE} SET v = ? WHERE k = ?", updated).rowcount != len(updated):
            # (`stored` did not hold what the table holds: every row written as before)
            conn.executemany(f"INSERT OR REPLACE INTO {s}.{META_TABLE} (k, v) VALUES (?, ?)", rows.items())
            return
        added = [(k, v) for k, v in rows.items() if k not in stored]
        if added:
            conn.executemany(f"INSERT OR REPLACE INTO {s}.{META_TABLE} (k, v) VALUES (?, ?)", added)

    def _w_store_tops(self, targets: list[str]) -> list[tuple[tuple[str, str], int | None]]:
        """The counters of the tables in `targets`' files that changed since those files' last
        commit, written in the open transaction (so a table's counter is as durable as its rows;
        a group whose ids are all in its rows, `_auto_in_rows`, writes only those started again):
        a table started again (`_auto_reset`) loses its row first; a counter never goes down
        otherwise. Returns what was written (None: removed), for after the commit."""
        conn = self._wconn
        for key in [k for k in self._auto_unsure if k[0] in targets]:
            table = self.table(*key)
            if table is not None and table.auto_column is not None:
                self._w_recount(key)
            self._auto_unsure.discard(key)
        written = []
        for key in [k for k in self._auto_dirty if k[0] in targets and (k in self._auto_reset or not self._auto_in_rows)]:
            s = quote_ident(key[0])
            if key in self._auto_reset:
                conn.execute(f"DELETE FROM {s}.{AUTOINC_TABLE} WHERE name = ?", (key[1],))
            top = self._auto_top.get(key)
            if top is not None:
                self._w_raise_stored(key[0], key[1], top)
            written.append((key, top))
        return written

    def _w_close_tops(self) -> None:
        """At a clean close, the ids that rolled-back statements took since their files' last
        commit are kept too (as InnoDB keeps them: its counter is written with each row it tries),
        raised only: a table started again by DDL the close rolled back keeps its row."""
        raised = [(key[1], self._auto_top[key], key[0]) for key in self._auto_dirty
                  if key in self._auto_top and key not in self._auto_reset and key[0] in self._w_attached]
        if not raised:
            return
        conn = self._wconn
        try:
            conn.execute("BEGIN")
            for name, top, schema in raised:
                self._w_raise_stored(schema, name, top)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:  # (the ids past the rows committed are what is lost)
            log.warning("engine: the counters of rolled-back statements not kept: %s", exc)
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    def _w_raise_stored(self, schema: str, name: str, top: int) -> None:
        """`schema`'s AUTOINC_TABLE row of table `name` raised to `top` (made if missing)."""
        self._wconn.execute(f"INSERT INTO {quote_ident(schema)}.{AUTOINC_TABLE} (name, top) VALUES (?, ?) "
                            "ON CONFLICT (name) DO UPDATE SET top = max(top, excluded.top)", (name, top))

    def _forget_counters(self, schema: str, tables: set[str] | None = None) -> None:
        """Every counter of a dropped database (its file goes, with its AUTOINC_TABLE), or of its
        `tables` (lower-case names) only."""
        def gone(key: tuple[str, str]) -> bool:
            return key[0] == schema and (tables is None or key[1] in tables)

        for data in (self._auto, self._auto_top, self._auto_saved):
            for key in [k for k in data if gone(k)]:
                del data[key]
        for keys in (self._auto_stale, self._auto_dirty, self._auto_reset, self._auto_unsure):
            keys.difference_update([k for k in keys if gone(k)])

    def _w_top(self, key: tuple[str, str], top: int) -> None:
        """A row of table `key` took or gave id `top`: its persisted counter covers it."""
        if top > self._auto_top.get(key, 0):
            self._auto_top[key] = top
            self._auto_dirty.add(key)

    def _w_checkpoint(self) -> None:
        """Copy the WAL of every attached file into its database (PASSIVE: never waits for a
        reader), as SQLite's automatic checkpoint would at a commit, one file at a time, to tell
        the snapshots' gate whether a file's WAL is past its bound (`engine.walbound`: its
        frames, each a page and a 24-byte header); a failure is logged, the commit stands and
        the next one tries again."""
        conn = self._wconn
        over = False
        try:
            for name in ("main", *self._w_attached):
                frames = conn.execute(f"PRAGMA {quote_ident(name)}.wal_checkpoint(PASSIVE)").fetchone()[1]
                over = over or frames * (PAGE_SIZE + 24) > walbound.WAL_BOUND_BYTES
            self._uncheckpointed = 0
        except sqlite3.Error as exc:
            log.warning("engine checkpoint failed: %s", exc)
        self.snapshots.over = over

    def _request_wal_restart(self) -> None:
        """The snapshots' gate wants the WAL restarted (on the loop): `_w_restart_wal` on the
        writer now, which runs it if no group is open (else that group's commit does)."""
        if not self._closed:
            self._on_writer(self._w_restart_wal).add_done_callback(_consumed)

    def _w_restart_wal(self) -> None:
        """The snapshots' gate's RESTART checkpoint (`engine.walbound`), between groups: every
        attached file's WAL copied into it and no reader left in one, so that the next commit
        writes from each WAL's start; without waiting (a reader still in a WAL makes it fail).
        The gate is told whether it was done."""
        gate = self.snapshots
        conn = self._wconn
        if not gate.due or conn.in_transaction:
            return  # (done already; or a group is open: its commit runs it)
        gate.due = False
        done = False
        try:
            conn.execute("PRAGMA busy_timeout=0")
            try:
                done = not conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0]
            finally:
                conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        except sqlite3.Error as exc:
            log.warning("engine checkpoint failed: %s", exc)
        if done:
            self._uncheckpointed = 0
            gate.over = False
        gate.restarted(done)

    async def sync(self) -> None:
        """Make every commit durable (fsync what `durable=False` commits left), e.g. before the
        log that would replay them loses files."""
        await self._on_writer(self._w_sync)

    def _w_sync(self) -> None:
        """fsync the WAL of each file holding unsynced commits (SQLite's own fsync at COMMIT
        under synchronous FULL, done later). A failure stops the process, as InnoDB does on a
        failed fsync: the commits are done and visible, whether they are durable is unknown,
        and reporting them failed would make their caller run them again."""
        dropping = dict(self._pending_drops)
        for schema in sorted(self._unsynced):
            path = self.datadir / MAIN_FILE if schema == "main" else self.schemas.get(schema, dropping.get(schema))
            if path is None:  # dropped: its file is gone with the commits
                continue
            try:
                fd = os.open(f"{path}-wal", os.O_RDONLY)
            except FileNotFoundError:  # checkpointed and removed: in the database file, synced
                continue
            try:
                os.fsync(fd)
            except OSError as exc:
                fsync_failed(f"{path}-wal", exc)
            finally:
                os.close(fd)
        self._unsynced = set()

    def _w_committed(self, targets: list[str], seq: int) -> list[str]:
        """The files among `targets` whose meta is group `seq`'s (none when unreadable)."""
        try:
            return [t for t in targets if int(self._w_read_meta(t).get(SEQ_KEY, "0")) == seq]
        except sqlite3.Error:
            return []

    def _w_finish_drops(self) -> None:
        if self._pending_drops and self._unsynced:
            self._w_sync()  # the DROP is durable before its file goes: a replay never needs it
        for name, path in self._pending_drops:
            try:
                self._wconn.execute("DETACH DATABASE " + quote_ident(name))
            except sqlite3.Error:
                pass
            self._w_attached.pop(name, None)
            self._stored_meta.pop(name, None)
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
        self._txn_temporary, self._temporary_marks = [], {}
        # the catalog may describe rolled-back DDL: reload it from the files
        for name, path in list(self._pending_drops):
            self.schemas = {**self.schemas, name: path}
        self._pending_drops = []
        catalog = dict(self.catalog)  # a detached file had nothing of the group (it was not used)
        for name in self._w_attached:
            catalog[name] = self._w_read_catalog(name)
        self.catalog = catalog
        self._catalog_version += 1
        self._temporary_changed()
        self._plans.clear()
        # the counters as the files have them: the group's ids were never committed
        self._auto = {key: top + 1 for key, top in self._auto_saved.items()}
        self._auto_stale = set(self._auto)
        self._auto_top = dict(self._auto_saved)
        self._auto_dirty, self._auto_reset, self._auto_unsure = set(), set(), set()
        self._auto_in_rows = True
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

    async def drop_replicated_temporary(self) -> None:
        """End every temporary table the replicated master threads made (`_run_replicated`), as
        MariaDB's replica closes them (Relay_log_info::close_temporary_tables) when the master
        it applies from has started again (a FORMAT_DESCRIPTION with its creation time) or it is
        given a new one: each owner's `DROP TEMPORARY TABLE IF EXISTS` per database, committed
        with the meta as it is (no position moves), binlogged by nobody (MariaDB's replica logs
        no event for them)."""
        await self._drop_temporary(o for o in self.temporary_owners() if o.startswith(f"{self.open_token}r"))

    async def drop_left_temporary(self) -> None:
        """End the temporary tables an earlier open's sessions left, which `open` kept for the
        replay of crash recovery (`keep_left_temporary`); committed as `drop_replicated_temporary`."""
        await self._drop_temporary(o for o in self.temporary_owners() if not o.startswith(self.open_token))

    def replay_owner(self, context: StatementContext, replicated: bool, token: str | None = None) -> str:
        """The owner whose temporary tables a statement of our own binlog (its Query event's
        thread id and server_id in `context`) used when it first ran: a session of the open
        `token` (this one's by default), or a replicated master thread of it (`replicated`:
        log_slave_updates)."""
        token = self.open_token if token is None else token
        if replicated:
            return temporary.replicated_owner(token, context.server_id, context.thread_id or 0)
        return temporary.client_owner(token, context.thread_id or 0)

    async def _drop_temporary(self, owners: Iterable[str]) -> None:
        transactions = [[(sql, StatementContext(temporary_owner=owner), schema)]
                        for owner in sorted(owners) for schema, sql in self.temporary_drops(owner)]
        if transactions:
            await self.apply_transactions(transactions, self.meta())

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
        # the torn commit stored `meta` merged over the meta before it, as every commit does
        if self._torn is not None and self._torn[2] == {**self._meta, **meta}:
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
                await self._run_replicated(statements)
                self._sp_done = True  # as COMMIT: RELEASE at the writer's next operation
            await self._on_writer(self._w_commit_group, {str(k): str(v) for k, v in meta.items()})
        except BaseException:
            await self._on_writer(self._w_rollback_group)
            raise

    async def run_replicated(self, transactions: Sequence[Sequence[ReplicatedStatement]]) -> None:
        """Run replicated transactions in order as ONE logical transaction, for a committer that
        binlogs them before its `commit_group` (a slave's group commit, log_slave_updates). Call
        it holding `writer_lock`. On success they are logically committed (in the open group,
        invisible to readers, made durable by the next `commit_group`); on any error all of them
        are undone, and nothing else of the open group, and the error propagates. Statements as
        `apply_transactions` takes them."""
        try:
            for statements in transactions:
                await self._run_replicated(statements)
        except BaseException:
            await self._on_writer(self._w_end, False)
            raise
        self._sp_done = True  # as COMMIT: RELEASE at the writer's next operation

    async def _run_replicated(self, statements: Sequence[ReplicatedStatement]) -> None:
        """One replicated transaction's statements, in a fresh session under the held lock."""
        session = self._locked_session(self._replicated_functions())
        session.found_rows = True  # UPDATE: rows matched, as a row event's "found" check needs
        # the committer binlogs a replicated transaction from its relay log context
        # (`commit_replicated`), never from this session's statements: none are kept
        session.sql_log_bin = False
        try:
            for sql, context, db, *must_find in statements:
                session._database = db
                if context is not None and context.temporary_owner is not None:
                    session.temporary_owner = context.temporary_owner
                elif context is not None and context.thread_id is not None:
                    session.temporary_owner = temporary.replicated_owner(self.open_token, context.server_id,
                                                                         context.thread_id)
                result = await session.execute(sql, context)
                if must_find and must_find[0] and not result.affected_rows:
                    raise SQLError(ER_KEY_NOT_FOUND, must_find[0])
        except BaseException:
            self._replicated_fx = None  # a statement may still run on it (a cancelled read)
            raise

    def _replicated_functions(self) -> functions.SessionFunctions:
        """The functions' state for the next replicated transaction's session: the last one's,
        renewed (building one costs a threading.Event and two locks), its RAND() generator kept
        (as the slave SQL thread's, which a RAND event's seeds set and which goes on from them),
        unless that transaction left it holding a named lock (GET_LOCK: the lock stays with it,
        as with a session of its own) or failed; then a new one."""
        fx = self._replicated_fx
        if fx is None or functions.LOCKS.holds_any(fx):
            fx = self._replicated_fx = functions.SessionFunctions(functions.session_rand(0))
        else:
            fx.renew(fx.rand)
        return fx

    def _locked_session(self, fx: functions.SessionFunctions | None = None) -> Session:
        """A fresh session under the writer lock its caller holds (never released by it), on
        `fx` when given (`Session`'s)."""
        session = Session(self, 0, fx)
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
        _, rows = await self._on_reader(self._pool.query, sql, (), None, schema)
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
        conn = self._wconn_
        assert conn is not None, "engine not open"
        if self._began and not conn.in_transaction:
            if self._group_log or self._txn_log or self._sp_done:
                self._lost = True  # (with nothing of the group in it, nothing was lost)
            self._began = self._sp_open = self._sp_done = False
        return self._lost

    def _w_begin(self) -> None:
        conn = self._wconn_
        assert conn is not None, "engine not open"
        self._w_lost()
        if self._sp_done:
            self._w_end(True)
        if not self._sp_open:
            if not conn.in_transaction:
                conn.execute("BEGIN")
                self._began = True
            conn.execute("SAVEPOINT txn")
            self._sp_open = True

    def _w_end(self, commit: bool, release: bool = True) -> None:
        """End the logical transaction: keep (RELEASE) or undo (ROLLBACK TO) its savepoint. A
        savepoint whose transaction already committed (`_sp_done`) belongs to an earlier
        transaction: it is kept. `release=False` (with `commit`): the caller's COMMIT or
        ROLLBACK of the SQLite transaction, next on the writer, ends the savepoint with it."""
        self._w_lost()
        if self._sp_done and not commit:
            self._w_end(True)
        if commit:
            self._group_log.extend(self._txn_log)
        self._txn_log = []
        self._sp_done = False
        if self._sp_open:
            conn = self._wconn_
            assert conn is not None, "engine not open"
            if not commit:
                conn.execute("ROLLBACK TO txn")
                if self._txn_temporary:
                    self._w_keep_temporary()
                self._w_fk_after_rollback()
                self._auto_in_rows = False  # (ids its rows took are gone with them)
            if release or not commit:
                conn.execute("RELEASE txn")
            self._sp_open = False
        self._txn_temporary = []
        self._temporary_marks = {}

    def _w_savepoint(self, kind: str, name: str, log: tuple) -> None:
        self._w_begin()
        sql = {"savepoint": "SAVEPOINT", "rollback_to": "ROLLBACK TO", "release": "RELEASE"}[kind]
        try:
            self._wconn.execute(f"{sql} {quote_ident('u_' + name.lower())}")
        except sqlite3.OperationalError:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "SAVEPOINT", name) from None
        if kind == "savepoint":
            self._temporary_marks[name.lower()] = len(self._txn_temporary)
        if kind == "rollback_to":
            if self._txn_temporary:
                self._w_keep_temporary(self._temporary_marks.get(name.lower(), 0))
            self._w_fk_after_rollback()
            self._auto_in_rows = False
        # logged for every file (target None): a redo re-runs it with the statements it undoes
        self._txn_log.append(_redo_entry(None, log, None, False))

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
        conn = self._wconn_
        assert conn is not None, "engine not open"
        while True:
            try:
                return conn.execute(sql, args)
            except sqlite3.OperationalError as exc:
                missing = self._w_missing(exc)
                if missing is None:
                    raise
                self._w_need((missing,))

    def _w_write(self, plan: Plan, args, end: bool, forced: int | None, rand, database, log: tuple,
                 fk_checks: bool = True, zero_is_value: bool = False, sql_mode: int | None = None,
                 triggers: bool = True, step: autoinc.Step = autoinc.ONE):
        target = plan.target[0] if plan.target else None
        multi = plan.multi
        if target is not None and (target not in self._w_attached or self._fk.linked(target) or multi is not None):
            self._w_need(multi.schemas if multi is not None else (target,))
        self._w_begin()
        self._fk.enabled = fk_checks
        self._triggers_on.enabled = triggers
        stamp = log[2]  # (`statement_time`'s timestamp, inline)
        self._triggers_on.time = stamp if type(stamp) is int else stamp[0]
        self._triggers_on.used = plan.trigger_reads
        self._triggers_on.held = False  # (a statement a trigger failed while it held them)
        # a parent whose keys cascade: the statement and its cascades are undone together
        guard = plan.target is not None and ((plan.target[0], plan.target[1].lower()) in self._fk.cascading
                                             or (multi is not None and multi.cascades(self._fk.cascading)))
        first = None
        generated: list[int] = []
        apart = None  # rows run one at a time (`_w_rows_apart`)
        if plan.returning is None and (plan.ignore or (plan.ids_returned and (
                plan.nrows > 1 or plan.auto_select_slot is not None or plan.auto_selected_at is not None))
                or (step != autoinc.ONE and plan.auto_select_slot is not None)):  # (SQLite numbers by 1)
            args = list(args)
            apart = _values_apart(plan, args) if plan.nrows else _select_apart(plan, args, self.table(*plan.target))
            if apart is not None and self._w_ids_all_given(plan, apart, zero_is_value) and not (
                    plan.ignore and self._triggered(plan.target)):  # (with triggers: `_w_rows_apart`'s plain INSERTs)
                apart = None  # every row names its id: the one INSERT ... SELECT stores them as they are
        if apart is None and plan.ignore and self._triggered(plan.target):
            raise SQLError(ER_NOT_SUPPORTED_YET, "this INSERT IGNORE on a table with triggers")
        if apart is None and step != autoinc.ONE and plan.auto_select_slot is not None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "this INSERT ... SELECT with auto_increment_increment or _offset")
        if apart is None and plan.auto_slots is not None:
            args = list(args)
            generated = self._w_assign_ids(plan, args, forced, zero_is_value, step)
            first = generated[0] if generated else None
        elif apart is None and plan.auto_select_slot is not None:
            args = list(args)
            first = self._w_next_id(plan, forced)
            args[plan.auto_select_slot] = first
        self._wstate.fx = rand
        try:
            if guard:
                self._wconn.execute("SAVEPOINT __fk")
            order = None
            if plan.returning_order is not None:  # DELETE ... ORDER BY ... LIMIT ... RETURNING
                chosen = self._w_execute(plan.returning_order, args[:len(args) - len(plan.returning.args)])
                order = {rowid: n for n, (rowid,) in enumerate(chosen)}
            returned = ids = None
            replaced = None
            if plan.replaces:
                replaced = self._w_replace(plan, args, zero_is_value)
                if replaced is None and self._triggered(plan.target):
                    raise SQLError(ER_NOT_SUPPORTED_YET, "this REPLACE on a table with triggers")
            if replaced is not None:
                affected = replaced
            elif apart is not None:
                affected, ids, first, generated = self._w_rows_apart(plan, args, apart, forced, zero_is_value, step)
            elif plan.row_order is not None:
                affected = self._w_rows_in_order(plan, args)
            elif multi is not None:
                affected = multiwrite.run(self._wconn, self._w_execute, multi, plan.sql, args, rand)
                self._touched.update(multi.schemas)
                if plan.auto_dirty:
                    written = [(t.schema, t.name.lower()) for t in multi.targets]
                    self._auto_stale.update(written)
                    self._auto_unsure.update(written)
            else:
                cur = self._w_execute(plan.sql, args)
                if plan.returning is not None:  # RETURNING: the rows are read before the cascades
                    names, rows = [d[0] for d in cur.description], cur.fetchall()
                    if order is not None:  # in the ORDER BY's order, as MariaDB deletes them; rowid dropped
                        names, rows = names[:-1], [row[:-1] for row in sorted(rows, key=lambda row: order[row[-1]])]
                    elif plan.ids_returned:  # each row's id last: not the client's
                        ids, names, rows = [row[-1] for row in rows], names[:-1], [row[:-1] for row in rows]
                    returned = (names, rows)
                elif plan.ids_returned:
                    ids = [row[0] for row in cur]
                affected = cur.rowcount
                if plan.selects and rand is not None:  # (every row read went in or met its key)
                    rand.records = affected
            if guard:
                self._touched.update(self._fk.cascade(self._wconn))
                self._wconn.execute("RELEASE __fk")
        except (*SQLITE_INPUT_ERRORS, SQLError) as exc:
            self._auto_in_rows = False  # (ids it took may be in no row)
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
        inserted, last_row = self._w_insert_ids(plan, args, generated, first, ids, affected, rand) \
            if plan.auto_insert else (None, 0)
        if plan.auto_select_slot is not None and first is not None and apart is None:
            key = (plan.target[0], plan.target[1].lower())
            numbered = max(affected, 0)  # (all numbered: no row is left out without IGNORE)
            self._auto[key] = max(self._auto[key], first + (numbered if forced is not None else
                                                           autoinc.select_reservation(numbered)))
            if numbered:
                self._w_top(key, first + numbered - 1)
            if affected <= 0:
                first = None
        self._touched.add(plan.target[0])
        if self._auto_in_rows and (plan.ignore or plan.upsert or plan.replaces or plan.trigger_writes or multi is not None
                                   or not plan.sql.startswith("INSERT")):
            self._auto_in_rows = False  # (it may remove rows, or leave ids in none)
        # (a torn group's rerun: its sql_mode last, when not the default's)
        self._txn_log.append(_redo_entry(plan.target[0], log, first, False, sql_mode, step))
        if plan.auto_dirty:  # (ids the statement's rows gave: the counter and its top from the rows now)
            key = (plan.target[0], plan.target[1].lower())
            table = self.table(*plan.target)
            if table is not None and table.auto_column is not None:
                before = self._auto_top.get(key, 0)
                self._w_recount(key)
                if plan.sql.startswith("UPDATE") and self._auto_top.get(key, 0) > before:
                    # (InnoDB's update_row keeps the id after the one an UPDATE raised it to)
                    self._w_top(key, self._auto_top[key] + 1)
        if plan.trigger_writes:  # (ids the triggers wrote: the counters read again)
            self._auto_stale.update(plan.trigger_writes)
            self._auto_unsure.update(plan.trigger_writes)
        if end:
            self._sp_done = True
        return affected, first, returned, inserted, last_row

    def _w_insert_ids(self, plan: Plan, args: list, generated: list[int], numbered: int | None,
                      ids: list | None, affected: int, fx) -> tuple[int | None, int]:
        """An INSERT / REPLACE's ids as MySQL gives them (sql_insert.cc: mysql_insert,
        select_insert::send_eof): the first generated id of a row actually inserted (it becomes
        LAST_INSERT_ID()), else None and, when rows were inserted or changed, the AUTO_INCREMENT
        value of the last row written (an explicit id, an updated row's), which the OK packet
        carries unless the statement called LAST_INSERT_ID(expr) (`Session._written`); else 0.
        `generated`: the ids handed to a VALUES list; `numbered`: the first id an INSERT ... SELECT
        numbers its rows from; `ids`: with `Plan.ids_returned`, the id of each row written."""
        if ids is not None:  # IGNORE / ON DUPLICATE KEY UPDATE: the rows inserted or updated, in order
            if plan.auto_slots is not None or generated:
                fresh = set(generated)
                inserted = next((i for i in ids if i in fresh), None)
            else:  # numbered ids are above every id the table had
                inserted = next((i for i in ids if numbered is not None and i >= numbered), None)
            written = affected - fx.upserts_unchanged > 0  # inserted, or updated with a change
            return inserted, int(ids[-1]) if written and ids and ids[-1] is not None else 0
        if generated:
            return generated[0], 0
        if affected <= 0:
            return None, 0
        if numbered is not None:
            return numbered, 0
        slot = plan.auto_slots[-1] if plan.auto_slots else None
        if slot is not None:
            try:
                return None, int(args[slot])
            except (TypeError, ValueError):
                pass
        table = self.table(*plan.target)
        if table is not None and table.auto_column is not None and table.rowid_alias() is table.auto_column:
            return None, self._wconn.execute("SELECT last_insert_rowid()").fetchone()[0]
        return None, 0

    def _w_counter(self, plan: Plan) -> int:
        """The next AUTO_INCREMENT id of the plan's table."""
        key = (plan.target[0], plan.target[1].lower())
        nxt = self._auto.get(key)
        if nxt is None or key in self._auto_stale:
            nxt = self._w_recount(key)
        return nxt

    def _w_recount(self, key: tuple[str, str]) -> int:
        """The next AUTO_INCREMENT id of table `key` checked against its rows: past their MAX
        (which its persisted top covers too), at least the table's AUTO_INCREMENT=."""
        table = self.table(*key)
        assert table is not None and table.auto_column is not None
        top = self._wconn.execute(
            f"SELECT max({quote_ident(table.auto_column.name)}) FROM {quote_ident(key[0])}.{quote_ident(table.name)}"
        ).fetchone()[0]
        top = int(top or 0)
        self._w_top(key, top)
        nxt = max(self._auto.get(key) or 1, top + 1, table.auto_increment_start or 1)
        self._auto_stale.discard(key)
        self._auto[key] = nxt
        return nxt

    def auto_counter(self, schema: str, name: str) -> int | None:
        """The writer's AUTO_INCREMENT counter of `schema`.`name` (None before a statement used
        it or its file gave one at open); at least MAX + 1 of the committed rows read with it.
        Called on any thread (a read of the writer's dict, which its thread replaces entries of)."""
        return self._auto.get((schema, name.lower()))

    def next_auto_increment(self, table: Table) -> int | None:
        """The id the next row of `table` would get (SHOW CREATE TABLE's AUTO_INCREMENT=n): the
        writer's counter once a statement used it, else MAX + 1 of the latest commit (at least
        the table's AUTO_INCREMENT=); None when that cannot be read on the loop now. Called on
        the loop (a read of the writer's dict, which its thread replaces entries of)."""
        key = (table.schema, table.name.lower())
        counted = self._auto.get(key)
        if counted is not None and key not in self._auto_stale:
            return counted
        assert table.auto_column is not None
        answer = self._pool.query_on_loop(
            f"SELECT max({quote_ident(table.auto_column.name)}) FROM {quote_ident(table.schema)}.{quote_ident(table.name)}",
            [], None, None)
        if answer is None:
            return None
        top = answer[1][0][0]
        return max(counted or 1, int(top or 0) + 1, table.auto_increment_start or 1)

    def _w_next_id(self, plan: Plan, forced: int | None) -> int:
        nxt = self._w_counter(plan)
        return forced if forced is not None else nxt

    def _w_assign_ids(self, plan: Plan, args: list, forced: int | None, zero_is_value: bool = False,
                      step: autoinc.Step = autoinc.ONE) -> list[int]:
        """The ids handed to a VALUES list's rows that leave theirs to AUTO_INCREMENT, in order,
        every row written (`engine.autoinc`; `forced`: the first one, as the binlog's INSERT_ID
        says; `step`: auto_increment_increment and _offset)."""
        key = (plan.target[0], plan.target[1].lower())
        slots = plan.auto_slots
        if len(slots) == 1 and slots[0] is not None:  # one row: with its own id, nothing to hand out
            value = args[slots[0]]
            if type(value) is int and (value or zero_is_value) and value <= _ROWID_MAX:
                counter = self._w_counter(plan)  # (`StatementIds.given`, then `done(True)`)
                if step != autoinc.ONE:
                    self._auto[key] = max(counter, autoinc.counter_past(value, 1, step))
                else:
                    self._auto[key] = value + 1 if value >= counter else counter
                self._w_top(key, value)
                return []
        ids = autoinc.StatementIds(self._w_counter(plan), len(plan.auto_slots), forced, step)
        generated: list[int] = []
        for row, slot in enumerate(plan.auto_slots, 1):
            if slot is not None:
                taken = self._w_row_id(plan, args, slot, ids, row, zero_is_value)
                if taken is not None:
                    generated.append(taken)
            ids.done(True)
        self._auto[key] = ids.counter
        self._w_top(key, ids.top)
        return generated

    def _w_row_id(self, plan: Plan, args: list, slot: int, ids: autoinc.StatementIds, row: int,
                  zero_is_value: bool = False) -> int | None:
        """The id of one row whose AUTO_INCREMENT value is `args[slot]`: taken from `ids` (and
        put in `args`) when the row leaves it to AUTO_INCREMENT, else None (the row's own value
        told to `ids`). 0 leaves it to AUTO_INCREMENT too, unless `zero_is_value` (sql_mode
        NO_AUTO_VALUE_ON_ZERO: only NULL does)."""
        value = args[slot]
        if value is None or (not zero_is_value and (value == 0 or value == "0" or value == "")):
            taken = ids.take()
            if taken > _ROWID_MAX:  # the key is SQLite's rowid: no id past it (MariaDB's 167 at a type's end)
                table = self.table(*plan.target)
                column = table.auto_column.name if table is not None and table.auto_column else "?"
                raise SQLError(ER_AUTOINC_ERANGE, column, row)
            args[slot] = taken
            return taken
        try:
            explicit = int(value)
        except (TypeError, ValueError):
            return None
        if explicit <= _ROWID_MAX:  # (one past it fails to be stored: the counter stays)
            ids.given(explicit)
        return None

    def _w_ids_all_given(self, plan: Plan, apart: _Apart, zero_is_value: bool) -> bool:
        """An INSERT ... SELECT whose rows give the AUTO_INCREMENT column its values (no IGNORE, no
        upsert, a SELECT without RAND()) where no row's value asks for the next id (NULL, or 0
        without NO_AUTO_VALUE_ON_ZERO): the rows need not run one at a time. The SELECT runs once
        more here, filtered, in the writer's transaction (nothing changes between the two)."""
        if plan.auto_selected_at is None or plan.ignore or plan.upsert or plan.uses_rand or apart.select is None:
            return False
        names = ", ".join(f"c{n}" for n in range(len(apart.columns)))
        at = f"c{apart.slot}"
        asks = f"{at} IS NULL" if zero_is_value else f"{at} IS NULL OR {at} IN (0, '0', '')"  # (`_w_row_id`'s zeros)
        try:
            found = self._w_execute(f"WITH __s({names}) AS ({apart.select}) SELECT 1 FROM __s WHERE {asks} LIMIT 1",
                                    apart.select_args).fetchone()
        except sqlite3.Error:  # (a SELECT of another width: the rows one at a time say 1136)
            return False
        return found is None

    def _w_rows_apart(self, plan: Plan, args: list, apart: _Apart, forced: int | None, zero_is_value: bool = False,
                      step: autoinc.Step = autoinc.ONE) -> tuple[int, list | None, int | None, list[int]]:
        """INSERT IGNORE, an INSERT ... ON DUPLICATE KEY UPDATE whose rows may leave their ids to
        AUTO_INCREMENT, and an INSERT ... SELECT numbering them under an auto_increment_increment
        or _offset (`step`) other than 1, run a row at a time as MariaDB runs them: each row's values
        computed, then the row inserted, so that a row left out or updating gives its id to the
        next (`engine.autoinc`) and each row IGNORE leaves out is a warning naming the key it met
        (`_w_left_out`). Returns the affected rows, the id of each row written (as RETURNING gives
        them), the statement's first id and the ids of rows inserted with one. In a savepoint: a
        failing row undoes the others."""
        key = (plan.target[0], plan.target[1].lower())
        table = self.table(*plan.target)
        conn, fx = self._wconn, self._wstate.fx
        counted = table is not None and table.auto_column is not None
        ids = autoinc.StatementIds(self._w_counter(plan) if counted else 1, apart.estimate, forced, step)
        affected, written_ids, generated = 0, [], []
        conn.execute("SAVEPOINT __rows")
        try:
            rows: Iterable[tuple[str | None, list, int | None]] = apart.rows
            if apart.select is not None:  # all its rows first, as MariaDB reads a SELECT of the table it fills
                rows = [(None, [*row, None] if apart.numbered else list(row), len(row) if apart.numbered else apart.slot)
                        for row in self._w_execute(apart.select, apart.select_args).fetchall()]
                if rows and len(rows[0][1]) != len(apart.columns):
                    raise SQLError(ER_WRONG_VALUE_COUNT_ON_ROW, 1)  # (a SELECT of another width)
            if fx is not None:
                fx.records = len(rows)
            for n, (computed, row_args, slot) in enumerate(rows, 1):
                if fx is not None:  # (ON DUPLICATE KEY UPDATE's stored values name this row)
                    fx.current_row = n
                taken = self._w_row_id(plan, row_args, slot, ids, n, zero_is_value) if slot is not None else None
                values = self._w_execute(computed, row_args).fetchone() if computed is not None else row_args
                changed_before = (fx.upserts_changed, fx.upserts_unchanged) if fx is not None else (0, 0)
                marks = sum(changed_before)
                one = apart.one
                if plan.ignore and self._triggered(plan.target) and self._w_left_out(table, apart.columns, values) is None:
                    one = one.replace("INSERT OR IGNORE ", "INSERT ", 1)  # (else its triggers' statements would ignore too)
                try:
                    cur = self._w_execute(one, [*values, *apart.tail_args])
                except sqlite3.IntegrityError as exc:
                    cols = _unique_failed(exc)
                    if cols is None or table is None:
                        raise
                    updated = self._w_upsert_updated(table, apart, values, cols) if plan.upsert else None
                    if updated is None:  # the row is the one that met the key
                        lower = [c.lower() for c in apart.columns]
                        updated = [values[lower.index(c.lower())] if c.lower() in lower else "?" for c in cols]
                    elif plan.ignore and fx is not None:  # its update met another key: left as it was, warned of
                        fx.upserts_changed, fx.upserts_unchanged = changed_before
                        error = SQLError(ER_DUP_ENTRY, _key_shown(table, cols, updated), table.key_name_for(cols))
                        fx.warnings.append((n, "Warning", error.code, error.message))
                        ids.done(False)
                        continue
                    raise SQLError(ER_DUP_ENTRY, _key_shown(table, cols, updated), table.key_name_for(cols)) from None
                got = [value for (value,) in cur] if plan.ids_returned else []
                count = max(cur.rowcount, 0)
                affected += count
                updated = fx is not None and fx.upserts_changed + fx.upserts_unchanged != marks
                if count == 0 and plan.ignore and fx is not None and table is not None:
                    left_out = self._w_left_out(table, apart.columns, values)
                    if left_out is not None:
                        fx.warnings.append((n, *left_out))
                ids.done(count > 0 and not updated)
                written_ids.extend(got)
                if taken is not None and count > 0 and not updated:
                    generated.append(taken)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO __rows")
                conn.execute("RELEASE __rows")
            if counted:
                self._auto[key] = max(self._auto.get(key, 1), ids.counter)
                self._w_top(key, ids.top)
            raise
        conn.execute("RELEASE __rows")
        if counted:
            self._auto[key] = max(self._auto.get(key, 1), ids.counter)
            self._w_top(key, ids.top)
        # (without `Plan.ids_returned`, an INSERT ... SELECT run apart for its step: no row's id read)
        return affected, written_ids if plan.ids_returned else None, ids.first, generated

    def _w_rows_in_order(self, plan: Plan, args: list) -> int:
        """An UPDATE ... ORDER BY (`Plan.row_order`): the rowids it matches in that order, then
        each row updated alone, in a savepoint (a failing row undoes the others), its stored
        values' warnings and errors naming its place in that order, as MariaDB's; a row that
        meets a unique key is 1062 naming its new key, read while the rows before it stand
        updated. Returns the rows updated."""
        split = len(args) - plan.order_args
        head, tail = list(args[:split]), args[split:]
        limit = -1
        if plan.row_limit:  # (the rows taken counted here, the refused ones not)
            limit, tail = tail[-1], [*tail[:-1], -1]
        conn = self._wconn
        rowids = [rowid for (rowid,) in self._w_execute(plan.row_order, tail).fetchall()]
        affected, fx = 0, self._wstate.fx
        ignore = plan.sql.startswith("UPDATE OR IGNORE ")
        conn.execute("SAVEPOINT __rows")
        try:
            for n, rowid in enumerate(rowids, 1):
                if limit == 0:
                    break
                limit -= 1
                if fx is not None:  # (its stored values' warnings and errors name this row)
                    fx.current_row = n
                row_args = [*head, rowid]
                counts = (fx.upserts_changed, fx.upserts_unchanged) if fx is not None else (0, 0)
                try:
                    affected += max(self._w_execute(plan.sql, row_args).rowcount, 0)
                except sqlite3.OperationalError:
                    error = functions.raised()
                    if error is None:
                        raise
                    if not (ignore and fx is not None and error.code == ER_CONSTRAINT_FAILED.code):
                        raise error from None
                    # UPDATE IGNORE: a row its CHECK refuses left as it was, warned of, not matched
                    # (nor taken under a LIMIT)
                    fx.upserts_changed, fx.upserts_unchanged = counts
                    fx.warnings.append((n, "Warning", error.code, error.message))
                    limit += 1
                except sqlite3.IntegrityError as exc:
                    refused = fk_error(exc)
                    if ignore and fx is not None and refused is not None \
                            and refused.code == ER_NO_REFERENCED_ROW_2.code:
                        # UPDATE IGNORE: a row its foreign key refuses left as it was, matched, no warning
                        fx.upserts_changed, fx.upserts_unchanged = counts[0], counts[1] + 1
                        continue
                    table = self.table(*plan.target)
                    cols = _unique_failed(exc)
                    if cols is None or table is None:
                        raise
                    shown = self._w_duplicate_updated(table, cols, plan, row_args)
                    raise SQLError(ER_DUP_ENTRY, shown, table.key_name_for(cols)) from None
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK TO __rows")
                conn.execute("RELEASE __rows")
            raise
        conn.execute("RELEASE __rows")
        return affected

    def _w_left_out(self, table: Table, columns: list[str], values: Sequence) -> tuple[str, int, str] | None:
        """The warning MariaDB gives for a row INSERT IGNORE left out: 1062 naming the first
        unique key its values meet (`_w_key_met`); None when no key tells (a key column the
        statement did not set)."""
        found = self._w_key_met(table, columns, values)
        if found is None:
            return None
        index, met, _ = found
        error = SQLError(ER_DUP_ENTRY, "-".join(_show(v) for v in met), "PRIMARY" if index.primary else index.name)
        return ("Warning", error.code, error.message)

    def _w_key_met(self, table: Table, columns: list[str], values: Sequence) -> tuple[Any, list, int] | None:
        """The first unique key a row's values (`columns`) meet in the table, PRIMARY first as
        InnoDB checks them: (the index, the row's values of it, the rowid of the row holding
        them); None when they meet none the statement set every column of."""
        lower = [c.lower() for c in columns]
        for index in sorted(table.indexes, key=lambda index: not index.primary):
            if not (index.primary or index.unique) or any(c.lower() not in lower for c in index.columns):
                continue
            met = [values[lower.index(c.lower())] for c in index.columns]
            if None in met:
                continue
            where = " AND ".join(f"{quote_ident(c)} = ?" for c in index.columns)
            held = self._wconn.execute(f"SELECT rowid FROM {quote_ident(table.schema)}.{quote_ident(table.name)} "
                                       f"WHERE {where} LIMIT 1", met).fetchone()
            if held is not None:
                return index, met, held[0]
        return None

    def _w_upsert_updated(self, table: Table, apart: _Apart, values: Sequence, cols: list[str]) -> list | None:
        """An ON DUPLICATE KEY UPDATE row whose statement failed on the unique key `cols`: the
        values of that key its update gave the row its values met (`_w_key_met`), which MariaDB's
        1062 names, read by a SELECT of the update's assignments over that row (`excluded` its
        values; the statement's counts and warnings as they were before); None when they meet
        no row (the insert itself failed) or the update cannot be read so."""
        _, upsert, assignments = apart.one.partition(" ON CONFLICT DO UPDATE SET ")
        found = self._w_key_met(table, apart.columns, values) if upsert else None
        if found is None:
            return None
        assignments = assignments.partition(" RETURNING ")[0]
        lower = [c.lower() for c in apart.columns]
        parts = [a.split("=", 1) for a in _top_level_split(assignments)]
        names = [_unquote(name.strip()).lower() for name, _ in parts]

        def excluded(m: re.Match) -> str:
            name = m.group(1).replace('""', '"').lower()
            return f'"__excluded"."c{lower.index(name)}"' if name in lower else m.group(0)

        exprs = [_EXCLUDED.sub(excluded, expr) for _, expr in parts]
        held = ", ".join(quote_ident(c) for c in cols)
        columns = ", ".join(f'? AS "c{k}"' for k in range(len(values)))
        name = f"{quote_ident(table.schema)}.{quote_ident(table.name)}"
        try:
            with self._w_fx_kept():
                row = self._wconn.execute(
                    f'WITH "__excluded" AS (SELECT {columns}) SELECT {held}, {", ".join(exprs)} '
                    f'FROM {name}, "__excluded" WHERE {name}.rowid = ?',
                    [*values, *apart.tail_args, found[2]]).fetchone()
        except (sqlite3.Error, SQLError):
            return None
        if row is None:
            return None
        new = dict(zip(names, row[len(cols):], strict=True))
        return [new.get(c.lower(), old) for c, old in zip(cols, row[:len(cols)], strict=True)]

    def _w_replace(self, plan: Plan, args, zero_is_value: bool = False) -> int | None:
        """REPLACE ... VALUES or ... SELECT (no RETURNING) run a row at a time, as MariaDB runs
        it: each row's values are computed (a VALUES row's expressions, as the statement would
        store them, just before it goes in; a SELECT's rows all before the first), the rows they
        meet on any unique key (one whose values are all non-NULL) are deleted, and the row is
        inserted. Returns MariaDB's affected rows, those inserted plus those deleted (SQLite's
        REPLACE counts only the inserts); None for any other statement, or a SELECT that numbers
        AUTO_INCREMENT ids itself (SQLite runs it whole). A SELECT row leaving its AUTO_INCREMENT
        value to the table (0 or NULL) is refused (1235: no id is handed out here). A row replaced by
        an equal one counts once where MariaDB updates in place (below). Several rows run in a
        savepoint: a failing row undoes the others."""
        table = self.table(*plan.target) if plan.target and plan.returning is None else None
        m = None if table is None else _REPLACE_VALUES.match(plan.sql) or _REPLACE_SELECT.match(plan.sql)
        if m is None:
            return None
        names = m.group("columns")
        columns = ([_unquote(name).lower() for name in re.findall(_IDENT, names)]
                   if names is not None else [c.name.lower() for c in table.columns])
        rows: Iterable[tuple]
        if m.re is _REPLACE_VALUES:
            found = _value_rows(m.group("rows"))
            if found is None or len(found) != plan.nrows or sum(n for _, n in found) != len(args):
                return None

            def each_row() -> Iterator[tuple]:
                at = 0
                for text, n in found:
                    yield self._w_execute(f"SELECT {text}", args[at:at + n]).fetchone()
                    at += n
            rows, count = each_row(), len(found)
        else:
            if plan.auto_select_slot is not None:
                return None
            rows = self._w_execute(m.group("select"), args).fetchall()
            if any(len(row) != len(columns) for row in rows):
                return None  # (SQLite's error for it)
            count = len(rows)
            auto = table.auto_column
            at = columns.index(auto.name.lower()) if auto is not None and auto.name.lower() in columns else None
            if at is not None and any(row[at] is None or (not zero_is_value and row[at] in (0, "0", ""))
                                      for row in rows):
                raise SQLError(ER_NOT_SUPPORTED_YET, "REPLACE ... SELECT leaving AUTO_INCREMENT values to the table")
            if self._wstate.fx is not None:
                self._wstate.fx.records = count
        select = f"SELECT rowid FROM {quote_ident(table.schema)}.{quote_ident(table.name)} WHERE "
        keys = []
        for index in table.indexes:
            if not (index.primary or index.unique):
                continue
            key_names = [c.lower() for c in index.columns]
            if any(c not in columns for c in key_names):
                return None  # a key column left to its default: SQLite's count
            keys.append((select + " AND ".join(f"{quote_ident(c)} = ?" for c in index.columns),
                         [columns.index(c) for c in key_names]))
        one = f"{m.group('head')} ({', '.join(quote_ident(c) for c in columns)}) VALUES ({', '.join('?' * len(columns))})"
        # MariaDB updates the row met in place when its key is the table's last unique one and no
        # foreign key references the table (write_record's ha_update_row): a row stored as it
        # was is not counted as deleted (HA_ERR_RECORD_IS_THE_SAME). Here: the one unique key.
        whole = None
        # a table with triggers: the rows met deleted apart (its DELETE triggers fire, MariaDB's
        # delete and insert), the row then INSERTed, not REPLACEd (a trigger's statements would
        # take SQLite's REPLACE as their own conflict policy)
        events = self._triggered((table.schema, table.name))
        triggered = bool(events)
        if triggered:
            one = "INSERT" + one[len("REPLACE"):]
            remove = f"DELETE FROM {quote_ident(table.schema)}.{quote_ident(table.name)} WHERE rowid = ?"
        if len(keys) == 1 and not self._fk.referenced(table) and "DELETE" not in events:
            whole = f"SELECT * FROM {quote_ident(table.schema)}.{quote_ident(table.name)} WHERE rowid = ?"
        conn = self._wconn
        several = count > 1
        if several:
            conn.execute("SAVEPOINT __replace")
        try:
            affected = 0
            for values in rows:
                if len(values) != len(columns):
                    raise SQLError(ER_WRONG_VALUE_COUNT_ON_ROW, 1)
                met: set[int] = set()
                for sql, positions in keys:
                    key = [values[i] for i in positions]
                    if None not in key:
                        met.update(rowid for (rowid,) in self._w_execute(sql, key))
                before = self._w_execute(whole, list(met)).fetchone() if whole is not None and met else None
                for rowid in sorted(met) if triggered else ():
                    self._w_execute(remove, [rowid])
                self._w_execute(one, values)
                if before is not None and before == self._w_execute(whole, [conn.execute(
                        "SELECT last_insert_rowid()").fetchone()[0]]).fetchone():
                    affected += 1
                else:
                    affected += 1 + len(met)
        except BaseException:
            if several and conn.in_transaction:
                conn.execute("ROLLBACK TO __replace")
                conn.execute("RELEASE __replace")
            raise
        if several:
            conn.execute("RELEASE __replace")
        return affected

    def _w_write_error(self, exc: sqlite3.Error | UnicodeEncodeError | OverflowError, plan: Plan, args,
                       database) -> SQLError:
        msg = str(exc)
        fk = fk_error(exc) if isinstance(exc, sqlite3.Error) else None
        if fk is not None:
            return fk
        table = self.table(*plan.target) if plan.target else None
        cols = _unique_failed(exc)
        named = re.match(r"UNIQUE constraint failed: ([^.,]+)\.", msg)
        if cols is not None and table is not None and named is not None and named.group(1) != table.name:
            other = self.table(table.schema, named.group(1))  # a trigger's row: its value not told
            return SQLError(ER_DUP_ENTRY, "?", other.key_name_for(cols) if other is not None else "?")
        if cols is not None and table is not None:
            assigned = self._wstate.fx.trigger_assigned if self._wstate.fx is not None else None
            if assigned is not None and len(cols) == 1 and assigned[0].startswith(
                    f"`{table.schema}`.`{table.name}`.`{table.column(cols[0]).name}` "):
                shown = _key_shown(table, cols, [assigned[1]])  # (a BEFORE trigger's SET NEW.col met the key)
            else:
                shown = self._w_duplicate_value(table, cols, plan, args)
            return SQLError(ER_DUP_ENTRY, shown, f"{table.key_name_for(cols)}")
        if plan.returning is not None and msg.startswith("no such column: "):
            # the write's own clauses compile alone: a column they lack is RETURNING's
            try:
                self._wconn.execute(plan.returning.sql, args[len(args) - len(plan.returning.args):])
            except sqlite3.Error as again:
                if str(again) == msg:
                    return SQLError(ER_BAD_FIELD_ERROR, msg[len("no such column: "):], "RETURNING")
        m = re.match(r"NOT NULL constraint failed: (.+)", msg)
        if m:
            col = m.group(1).split(".")[-1]
            if plan.insert_columns and col.lower() not in (c.lower() for c in plan.insert_columns):
                return SQLError(ER_NO_DEFAULT_FOR_FIELD, col)
            return SQLError(ER_BAD_NULL_ERROR, col)
        if msg == "datatype mismatch" and table is not None and (key := table.rowid_alias()) is not None:
            # the key is SQLite's rowid, a signed 64-bit integer: a BIGINT UNSIGNED / BIT(64) key
            # above 9223372036854775807 cannot be held (MariaDB holds it)
            return SQLError(ER_NOT_SUPPORTED_YET, f"values of the key column '{key.name}' above {_ROWID_MAX}")
        if isinstance(exc, sqlite3.OperationalError) and getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL":
            return SQLError(ER_RECORD_FILE_FULL, plan.target[1] if plan.target else "?")  # InnoDB's answer
        return map_sqlite_error(exc, database)

    def _w_duplicate_value(self, table: Table, cols: list[str], plan: Plan, args) -> str:
        """The value MySQL names in 1062 ('a-b' for a composite key), found among the statement's
        rows for an INSERT; '?' when it cannot be told."""
        if plan.upsert and (shown := self._w_duplicate_upserted(table, cols, plan, args)) is not None:
            return shown
        if plan.selects:
            return self._w_duplicate_selected(table, cols, plan, args)
        if plan.sql.startswith("UPDATE "):
            return self._w_duplicate_updated(table, cols, plan, args)
        lower = [c.lower() for c in plan.insert_columns]
        if not plan.insert_columns or any(c.lower() not in lower for c in cols) or not plan.nrows:
            return "?"
        nrows = plan.nrows
        if nrows == 0 or len(args) % nrows:
            return "?"
        width = len(args) // nrows
        sql = _key_held(table, cols)
        candidates = []
        for r in range(nrows):
            row = args[r * width:(r + 1) * width]
            values = [row[lower.index(c.lower())] for c in cols]
            candidates.append(values)
            if self._wconn.execute(sql, values).fetchone():
                return _key_shown(table, cols, values)
        seen = set()
        for values in candidates:  # a duplicate within the statement itself
            key = tuple(values)
            if key in seen:
                return _key_shown(table, cols, values)
            seen.add(key)
        return _key_shown(table, cols, candidates[0])

    def _w_duplicate_updated(self, table: Table, cols: list[str], plan: Plan, args) -> str:
        """An UPDATE's value in 1062: its new values read again by a SELECT of its assignments
        (the failed statement left the table as before it), its rows taken in the primary key's
        order as MariaDB's scan takes them, up to the first whose new key another row holds by
        then; '?' when it cannot be told (ORDER BY / LIMIT, a value that fails again)."""
        m = _UPDATE_SQL.match(plan.sql)
        if m is None or plan.multi is not None:
            return "?"
        bare = _without_quotes(m.group("set"))
        if bare.count("(") != bare.count(")"):  # (its WHERE was a subquery's)
            return "?"
        assigned = _top_level_split(m.group("set"))
        names = [a.split("=", 1)[0].strip().strip('"').replace('""', '"').lower() for a in assigned]
        exprs = [a.split("=", 1)[1] for a in assigned]
        where = m.group("where")
        if where is not None and re.search(r"\b(ORDER|LIMIT|RETURNING)\b", _without_quotes(where)):
            return "?"
        name = f"{quote_ident(table.schema)}.{quote_ident(table.name)}"
        primary = table.primary
        order = ", ".join(quote_ident(c) for c in primary.columns) if primary is not None else "rowid"
        keys = ", ".join(quote_ident(c) for c in cols)
        try:
            held = {r[0]: list(r[1:]) for r in self._wconn.execute(f"SELECT rowid, {keys} FROM {name}")}
            rows = self._wconn.execute(f"SELECT rowid, {', '.join(exprs)} FROM {name}"
                                       f"{' WHERE ' + where if where else ''} ORDER BY {order}", args).fetchall()
        except (sqlite3.Error, SQLError):
            return "?"
        lower = [c.lower() for c in cols]

        def folded(values: list) -> tuple:
            return tuple(v.casefold() if isinstance(v, str) else v for v in values)

        for row in rows:
            new = [row[1 + names.index(c)] if c in names else held[row[0]][k] for k, c in enumerate(lower)]
            if None not in new and any(r != row[0] and folded(v) == folded(new) for r, v in held.items()):
                return _key_shown(table, cols, new)
            held[row[0]] = new
        return "?"

    @contextlib.contextmanager
    def _w_fx_kept(self) -> Iterator[None]:
        """The running statement's counts, warnings and stored rows as they were before the
        block (an expression read again to name a key, not a row the statement wrote)."""
        fx = self._wstate.fx
        if fx is None:
            yield
            return
        changed, unchanged, warned, stored = fx.upserts_changed, fx.upserts_unchanged, len(fx.warnings), dict(fx.stored_rows)
        try:
            yield
        finally:
            fx.upserts_changed, fx.upserts_unchanged = changed, unchanged
            del fx.warnings[warned:]
            fx.stored_rows.clear()
            fx.stored_rows.update(stored)

    def _w_duplicate_upserted(self, table: Table, cols: list[str], plan: Plan, args) -> str | None:
        """An INSERT ... ON DUPLICATE KEY UPDATE's value in 1062 where a row's update met the
        key (`_w_upsert_updated`): its rows run again one at a time (the failed statement left
        the table as before it), in a savepoint undone after, up to the one that fails; None
        when a row's own values met it or it cannot be told."""
        apart = _values_apart(plan, list(args)) if plan.nrows else _select_apart(plan, list(args), table)
        if apart is None:
            return None
        conn, wanted = self._wconn, [c.lower() for c in cols]
        conn.execute("SAVEPOINT __upserted")
        try:
            with self._w_fx_kept():  # (its rows' counts and warnings are not the statement's)
                rows = apart.rows if apart.select is None else [
                    (None, [*row, None] if apart.numbered else list(row), None)
                    for row in self._w_execute(apart.select, apart.select_args).fetchall()]
                for computed, row_args, _ in rows:
                    values = self._w_execute(computed, row_args).fetchone() if computed is not None else row_args
                    try:
                        self._w_execute(apart.one, [*values, *apart.tail_args])
                    except sqlite3.IntegrityError as exc:
                        if [c.lower() for c in _unique_failed(exc) or ()] != wanted:
                            return None
                        updated = self._w_upsert_updated(table, apart, values, cols)
                        return None if updated is None else _key_shown(table, cols, updated)
        except (sqlite3.Error, SQLError):
            return None
        finally:
            conn.execute("ROLLBACK TO __upserted")
            conn.execute("RELEASE __upserted")
        return None

    def _w_duplicate_selected(self, table: Table, cols: list[str], plan: Plan, args) -> str:
        """An INSERT ... SELECT's value in 1062: its SELECT read again (the failed statement left
        the table as before it) up to the first row whose key the table or an earlier row holds,
        as MariaDB stops there; '?' when the translation's SELECT cannot be told apart."""
        m = _INSERT_SELECT.match(plan.sql)
        if m is None:
            return "?"
        select = m.group("select")
        if plan.ids_returned and table.auto_column is not None:  # (the ids it reads back: not the SELECT's)
            select = select.removesuffix(f" RETURNING {quote_ident(table.auto_column.name)}")
        named = [c.replace('""', '"') for c in _QUOTED_NAME.findall(m.group("cols") or "")] \
            or [c.name for c in table.columns]
        lower = [c.lower() for c in named]
        if any(c.lower() not in lower for c in cols):
            return "?"
        at = [lower.index(c.lower()) for c in cols]
        held = _key_held(table, cols)
        seen = set()
        for row in self._wconn.execute(select, args):
            values = tuple(row[k] for k in at)
            if values in seen or self._wconn.execute(held, values).fetchone():
                return _key_shown(table, cols, values)
            seen.add(values)
        return "?"

    def _w_key_broken(self, action: DdlAction, sql: str) -> SQLError | None:
        """MariaDB's 1062 for the unique key `sql` makes that the table's rows break (an ALTER
        TABLE's, a CREATE UNIQUE INDEX's), None for another failure: a copy names the first row
        of its order whose key an earlier row holds; InnoDB, building the index in place from its
        sorted keys, the first key held twice in the index's order."""
        if not sql.startswith("CREATE UNIQUE INDEX") or not action.put:
            return None
        table = action.put[0]
        index = next((i for i in table.indexes if i.unique and table.sqlite_index(i) == sql), None)
        if index is None:
            return None
        q = quote_ident
        cols = ", ".join(q(c) for c in index.columns)
        present = " AND ".join(f"{q(c)} IS NOT NULL" for c in index.columns)
        clustered = table.clustered_key()
        order = ", ".join(q(c) for c in clustered.columns) if clustered is not None else "rowid"
        found = self._wconn.execute(
            f"SELECT {cols} FROM (SELECT {cols}, ROW_NUMBER() OVER (PARTITION BY {cols} ORDER BY {order}) AS n, "
            f"ROW_NUMBER() OVER (ORDER BY {order}) AS at FROM {q(table.schema)}.{q(table.name)} WHERE {present}) "
            f"WHERE n = 2 ORDER BY {'at' if action.copied is not None else cols} LIMIT 1").fetchone()
        if found is None:
            return None
        return SQLError(ER_DUP_ENTRY, _key_shown(table, index.columns, found), index.name)

    def _w_ddl(self, action: DdlAction, log: tuple) -> None:
        self._w_end(True)  # the implicit commit of the open transaction
        self._auto_in_rows = False
        self._fk.drop(self._wconn)  # (SQLite's ALTER ... RENAME checks every trigger)
        try:
            self._w_ddl_apply(action)
        finally:
            self._w_fk_install()
        target = action.create_schema or action.drop_schema or action.schema
        self._group_log.append(_redo_entry(target, log, None, True))

    def _w_ddl_kept(self, action: DdlAction, log: tuple) -> None:
        """A CREATE / DROP TEMPORARY TABLE inside the open transaction, which MariaDB does not
        commit: applied under a savepoint of its own (a failure undoes it alone), its statement
        logged with the transaction's. Temporary tables are not transactional there: the names
        it makes or drops are kept (`_txn_temporary`) for a rollback of the transaction, or to a
        savepoint before it, to leave them as the catalog has them (`_w_keep_temporary`)."""
        self._w_begin()
        self._fk.drop(self._wconn)
        try:
            self._w_ddl_apply(action, kept=True)
        finally:
            self._w_fk_install()
        self._txn_temporary.extend((t.schema, t.name) for t in action.put)
        self._txn_temporary.extend(action.delete)
        self._txn_log.append(_redo_entry(action.schema, log, None, True))

    def _w_keep_temporary(self, since: int = 0) -> None:
        """After a rollback: the temporary tables made or dropped in the transaction (from the
        `since`-th name of `_txn_temporary`), which SQLite undid, made or dropped again as the
        catalog has them (MariaDB's rollback leaves a temporary table it made, empty, and does
        not bring back one it dropped)."""
        conn = self._wconn
        for schema, name in dict.fromkeys(self._txn_temporary[since:]):
            if schema not in self.schemas:
                continue
            if conn.execute(f"SELECT 1 FROM {quote_ident(schema)}.sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
                            (name,)).fetchone():
                conn.execute(f"DROP TABLE {quote_ident(schema)}.{quote_ident(name)}")
            conn.execute(f"DELETE FROM {quote_ident(schema)}.{CATALOG_TABLE} WHERE name = ?", (name,))
            table = self.table(schema, name)
            if table is not None:
                for sql in table.sqlite_create():
                    conn.execute(sql)
                conn.execute(f"INSERT INTO {quote_ident(schema)}.{CATALOG_TABLE} (name, def) VALUES (?, ?)",
                             (table.name, table.to_json()))

    def _w_ddl_apply(self, action: DdlAction, kept: bool = False) -> None:
        """Apply a DDL action in a transaction of its own; `kept`: under a savepoint of the
        open transaction instead (`_w_ddl_kept`)."""
        conn = self._wconn
        if action.noop:
            return
        if action.create_schema is not None:
            name = action.create_schema
            self._w_attach(name, self.datadir / f"{name}.sqlite")
            self._touched.add(name)
            if action.database_options is not None:
                self._w_begin()
                self._w_put_options(name, action.database_options)
                self._w_end(True)
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
                self._stored_meta.pop(name, None)
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
            self.triggers = {k: v for k, v in self.triggers.items() if k != name}
            self.routines = {k: v for k, v in self.routines.items() if k != name}
            self.database_options = {k: v for k, v in self.database_options.items() if k != name}
            self._touched.discard(name)
            self._touched.add("main")
            self._forget_counters(name)
            self._after_ddl([])
            return
        needed = {action.schema, *(t.schema for t in action.put), *(s for s, _ in action.delete),
                  *(fk.ref_schema for t in action.put for fk in t.foreign_keys)}
        self._w_need(needed & self.schemas.keys())
        if kept:
            conn.execute("SAVEPOINT ddl")
        else:
            self._w_begin()
        try:
            for sql, args in action.view_selects:
                self._w_check_view(sql, args)
            if self.triggers.get(action.schema) and action.schema in self.schemas:
                # (SQLite's DROP / RENAME check every trigger of the file: made again below)
                for name in sqlite_names(conn, action.schema):
                    conn.execute(f"DROP TRIGGER {quote_ident(action.schema)}.{quote_ident(name)}")
            # the copy's NULLs, in its order: by row, then by column
            nulls = sorted((row, n, fill.new_name) for n, fill in enumerate(action.null_fills)
                           for (row,) in conn.execute(fill.rows_sql()).fetchall())
            if nulls and action.strict:
                raise SQLError(WARN_DATA_TRUNCATED, nulls[0][2], nulls[0][0])
            if action.copied is not None:  # (MariaDB copies it: its OK counts the rows)
                action.rows_copied = conn.execute(f"SELECT count(*) FROM {quote_ident(action.copied[0])}."
                                                  f"{quote_ident(action.copied[1])}").fetchone()[0]
            action.warnings.extend(("Warning", WARN_DATA_TRUNCATED.code, WARN_DATA_TRUNCATED.format(name, row))
                                   for row, _, name in nulls)
            self._copy_store.begin()
            for sql in action.sql:
                try:
                    conn.execute(sql)
                except sqlite3.IntegrityError:
                    broken = self._w_key_broken(action, sql)
                    if broken is None:
                        raise
                    raise broken from None
            action.warnings.extend(self._copy_store.warned())
            if action.ignore:  # (the rows ALTER IGNORE's copy left out)
                made = action.put[0]
                action.duplicates = action.rows_copied - conn.execute(
                    f"SELECT count(*) FROM {quote_ident(made.schema)}.{quote_ident(made.name)}").fetchone()[0]
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
            schema_triggers = self._w_put_triggers(action)
            for routine in action.drop_routines:
                conn.execute(f"DELETE FROM {quote_ident(routine.schema)}.{CATALOG_TABLE} WHERE name = ?", (routine.key,))
            for routine in action.put_routines:
                conn.execute(f"INSERT OR REPLACE INTO {quote_ident(routine.schema)}.{CATALOG_TABLE} (name, def) "
                             "VALUES (?, ?)", (routine.key, routine.to_json()))
            if action.database_options is not None:
                self._w_put_options(action.schema, action.database_options)
        except (sqlite3.Error, SQLError) as exc:
            if kept:
                conn.execute("ROLLBACK TO ddl")
                conn.execute("RELEASE ddl")
            else:
                self._w_end(False)
            raise (exc if isinstance(exc, SQLError) else map_sqlite_error(exc, action.schema)) from None
        if kept:
            conn.execute("RELEASE ddl")
        else:
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
        if any(temporary.is_temporary(t.name) for t in action.put) or any(
                temporary.is_temporary(name) for _, name in action.delete):
            self._temporary_changed()
        views = {schema: dict(v) for schema, v in self.views.items()}
        for schema, name in action.drop_views:
            views.get(schema, {}).pop(name.lower(), None)
        for view in action.put_views:
            views.setdefault(view.schema, {})[view.name.lower()] = view
        self.views = views
        if schema_triggers is not None:
            self.triggers = {**self.triggers, action.schema: schema_triggers}
        if action.put_routines or action.drop_routines:
            kept = dict(self.routines.get(action.schema, {}))
            for routine in action.drop_routines:
                kept.pop(routine.key, None)
            kept.update((routine.key, routine) for routine in action.put_routines)
            self.routines = {**self.routines, action.schema: kept}
        self._touched.add(action.schema)
        self._after_ddl(action.reset_auto, action.keep_auto, action.moved_auto)

    def _w_put_triggers(self, action: DdlAction) -> dict[str, Trigger] | None:
        """The triggers of `action.schema` after the action (None: unchanged), written to its
        catalog, and its SQLite triggers made again from them for the tables the action leaves
        (`triggers.install_sql`): a dropped table's triggers go with it, a renamed one's follow
        it. A trigger the action makes whose body cannot run here fails it (1235)."""
        schema = action.schema
        before = self.triggers.get(schema, {})
        if not before and not action.put_triggers or schema not in self.schemas:
            return None
        tables = {**self.catalog.get(schema, {})}
        for s, name in action.delete:
            if s == schema:
                tables.pop(name.lower(), None)
        tables.update((t.name.lower(), t) for t in action.put if t.schema == schema)
        found = {k: copy.copy(t) for k, t in before.items() if (schema, t.name) not in action.drop_triggers}
        for trigger in found.values():
            for s, old, new in action.renamed:
                if s == schema and trigger.table.lower() == old.lower():
                    trigger.table = new
        found.update((t.name.lower(), t) for t in action.put_triggers)
        found = {k: t for k, t in found.items() if t.table.lower() in tables}
        conn = self._wconn
        for key in before:
            conn.execute(f"DELETE FROM {quote_ident(schema)}.{CATALOG_TABLE} WHERE name = ?", (TRIGGER_PREFIX + key,))
        for key, trigger in found.items():
            conn.execute(f"INSERT INTO {quote_ident(schema)}.{CATALOG_TABLE} (name, def) VALUES (?, ?)",
                         (TRIGGER_PREFIX + key, trigger.to_json()))
        made = {t.name.lower() for t in action.put_triggers}
        catalog = {**self.catalog, schema: tables}

        def plan_of(shape: str, database: str, params: list) -> Plan:
            saved, self.catalog = self.catalog, catalog  # (the tables as the action leaves them)
            try:
                return self._make_plan(shape, database, params)
            finally:
                self.catalog = saved

        for sql in install_sql(schema, found.values(), tables.get, plan_of, made):
            conn.execute(sql)
        return found

    def _w_check_view(self, sql: str, args) -> None:
        """A view's SELECT compiled, never run (`DdlAction.view_selects`): MariaDB's error of
        its names raised, any other let be."""
        try:
            self._w_execute("EXPLAIN " + sql, args).fetchall()
        except SQLITE_INPUT_ERRORS as exc:
            error = map_sqlite_error(exc, None)
            if error.code in VIEW_NAME_ERRORS:
                raise error from None

    def _w_put_options(self, name: str, options: DatabaseOptions) -> None:
        """A database's options into its file's catalog, inside the writer's open transaction
        (the map follows at once: DDL is never rolled back once applied)."""
        self._wconn.execute(f"INSERT OR REPLACE INTO {quote_ident(name)}.{CATALOG_TABLE} (name, def) VALUES (?, ?)",
                            (DATABASE_KEY, options.to_json()))
        self.database_options = {**self.database_options, name: options}

    def _after_ddl(self, reset_auto, keep_auto=(), moved_auto=()) -> None:
        for schema, name in reset_auto:  # (started again: its file's row goes at the commit)
            key = (schema, name.lower())
            self._auto.pop(key, None)
            self._auto_top.pop(key, None)
            self._auto_stale.discard(key)
            self._auto_unsure.discard(key)
            self._auto_reset.add(key)
            self._auto_dirty.add(key)
        for schema, old, new in moved_auto:  # (in the statement's order: a swap through a third name)
            before, after = (schema, old.lower()), (schema, new.lower())
            counter, top = self._auto.pop(before, None), self._auto_top.pop(before, None)
            self._auto_stale.discard(before)
            self._auto_unsure.discard(before)
            self._auto_reset.update((before, after))
            self._auto_dirty.update((before, after))
            self._auto.pop(after, None)
            self._auto_top.pop(after, None)
            if counter is not None:
                self._auto[after] = counter
                self._auto_stale.add(after)
            if top is not None:
                self._auto_top[after] = top
        for schema, name in keep_auto:  # (the counter stays, checked against the rows again)
            if (schema, name.lower()) in self._auto:
                self._auto_stale.add((schema, name.lower()))
        self._catalog_version += 1
        self._plans = {}

    # --- planning ----------------------------------------------------------------------------

    def plan_for(self, shape: str, database: str | None, params: list[object], visible: Any = None,
                 live_rows: Callable[[str], list[tuple]] | None = None, mode: int = 0,
                 owner: str | None = None) -> Plan:
        """The cached translation of `shape`. `visible` (a privilege check's `sees_database(db)`,
        `sees_table(db, t)`, `sees_columns(db, t)`) narrows what information_schema lists;
        `live_rows(view)` gives the rows of information_schema's server views (PROCESSLIST, the
        variables) now; such plans are not cached. `mode`: the session's `results.write_mode`
        (0, the default sql_mode's, or the plans of another, cached apart). `owner`: the asking
        session's `temporary_owner` while it has temporary tables (its names resolve to them
        first: its plans are cached apart)."""
        key = self._plan_key(shape, database, mode, owner)
        plan = self._plans.get(key) if visible is None else None
        if plan is not None and plan.literal_kinds and not self.reads_kinds(plan, params):
            plan, key = self._of_kinds(plan, key, params)
        if plan is not None:  # (a shape whose plan reads a live view is never cached)
            return plan
        lowered = shape.lower()
        if infoschema.reads_live(lowered) or (visible is not None and infoschema.NAME in lowered) or (
                database == infoschema.MYSQL and database not in self.schemas):  # (`user` after USE mysql)
            return parsing(self._make_plan, shape, database, params, visible, live_rows, mode, owner)
        plan = self._plans.get(key)
        if plan is None:
            plan = parsing(self._make_plan, shape, database, params, None, None, mode, owner)
            plan.inline = self._inline(plan)
            for counted in (plan.changed, plan.found):  # (the same rows, counted)
                if counted is not None:
                    counted.inline = plan.inline
            if plan.cacheable and len(shape) <= MAX_CACHED_SHAPE:
                if len(self._plans) >= PLAN_CACHE_SIZE:
                    self._plans.clear()
                self._plans[key] = plan
        return plan

    def _plan_key(self, shape: str, database: str | None, mode: int, owner: str | None) -> tuple:
        """Where `plan_for` caches the plan of `shape` (its arguments as it takes them)."""
        key: tuple = (shape, database, self._catalog_version) if not mode else (
            shape, database, self._catalog_version, mode)
        return key if owner is None else (*key, owner)

    def cached_plan(self, plan: Plan, shape: str, database: str | None, mode: int, owner: str | None) -> bool:
        """Whether `plan`, which `plan_for` just gave for `shape` (no `visible`; `mode` and
        `owner` as it took them), is the one it gives for any literals of the kinds it read
        (`reads_kinds`) while the catalog stays: the cache's, not one made for these literals
        alone (a plan reading a live view, one with literals inlined, a shape too long to cache)."""
        return self._plans.get(self._plan_key(shape, database, mode, owner)) is plan

    def reads_kinds(self, plan: Plan, params: list[object]) -> bool:
        """Whether `params` hold the kinds of literals `plan`'s translation read
        (`Plan.literal_kinds`): numbers where it read numbers, and so on."""
        count = len(params)
        for n, recorded in plan.literal_kinds:
            if recorded is True and n < count and type(params[n]) is int:
                continue  # an integer where the plan read a number (the common case, no call)
            if (n < count and plan_kind(params[n], recorded)) != recorded:
                return False
        return True

    def _of_kinds(self, plan: Plan, key: tuple, params: list[object]) -> tuple[Plan | None, tuple]:
        """The plan cached for the kinds `params` hold where `plan`, cached under `key`, read
        other kinds (`reads_kinds` does not hold), if any, and its key."""
        count = len(params)
        kinds = tuple(n < count and plan_kind(params[n], kind) for n, kind in plan.literal_kinds)
        key = (*key, kinds)
        return self._plans.get(key), key

    def _inline(self, plan: Plan) -> bool:
        """The event loop may run `plan` itself ("Threads"): a read with no side effect (the
        loop's reader stops it if it runs long; it then runs again on a reader thread), or a
        write bounded enough (INLINE_ROWS' comment); decided from the translation and the
        catalog, once per cached plan (a DDL makes new plans)."""
        if plan.kind == "select":
            return not (plan.locking or plan.uses_rand or plan.sets_last_id or plan.calc_found) \
                and _LOOP_UNSAFE_CALL.search(plan.sql) is None
        if plan.kind != "write" or plan.returning is not None or plan.target is None:
            return False
        if self._triggered(plan.target):
            return False  # (its triggers' statements are not bounded)
        if plan.nrows:
            return plan.nrows <= INLINE_ROWS and _INLINE_INSERT.match(plan.sql) is not None
        m = _INLINE_ROW_WRITE.match(plan.sql)
        table = self.table(*plan.target) if m is not None else None
        if table is None:
            return False
        named = {_unquote(name).lower() for name in re.findall(_KEY_EQ, m.group("where"))}
        if not any(key is not None and key <= named for key in map(table.unique_key, table.indexes)):
            return False
        parent = (table.schema, table.name.lower())
        return not any(fk.on_delete in _CASCADING or fk.on_update in _CASCADING
                       for tables in self.catalog.values() for child in tables.values()
                       for fk in child.foreign_keys if (fk.ref_schema, fk.ref_table.lower()) == parent)

    def _make_plan(self, shape: str, database: str | None, params: list[object], visible: Any = None,
                   live_rows: Callable[[str], list[tuple]] | None = None, mode: int = 0,
                   owner: str | None = None) -> Plan:
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
            return Plan(kind, _completion(tokens, shape) if kind in ("commit", "rollback") else "", [])
        if first == "DO":  # DO expr, ...: the session runs the SELECT of them and drops its rows
            return Plan("do", "", [])
        if first in ("CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE"):
            return Plan("ddl", "", [], cacheable=False)
        explained = ("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE")
        if first in ("SHOW", "DESCRIBE", "DESC", "USE", "ANALYZE", "OPTIMIZE", "CHECK", "REPAIR", "CHECKSUM") or (
                first == "EXPLAIN" and second not in explained and not (
                    second in ("EXTENDED", "PARTITIONS") and len(tokens) > 2 and tokens[2].upper in explained)):
            return Plan("admin", "", [], cacheable=False)
        if first in ("LOCK", "UNLOCK"):
            return Plan("noop", "", [])
        if first == "CALL":  # no stored procedure exists here (CREATE PROCEDURE is 1235)
            cur = TokenCursor(tokens, params, shape)
            cur.next()
            schema, name = cur.qualified()
            if (schema or database) is None:
                raise SQLError(ER_NO_DB_ERROR)
            raise missing_routine("PROCEDURE", name, schema or database)
        if first in ("XA", "HANDLER"):
            raise SQLError(ER_NOT_SUPPORTED_YET, "XA transactions" if first == "XA" else "HANDLER")
        if first == "EXPLAIN":
            return Plan("explain", "", [], cacheable=False)
        lookup = self.table if owner is None else self.resolver(owner)
        if visible is None:
            translator = Translator(tokens, shape, database, lookup, set(self.schemas), params,
                                    self.listed_tables, set(self.listed_databases()), live_rows=live_rows)
        else:
            def tables(schema: str, sees=visible.sees_table) -> list[Table]:
                return [t for t in self.listed_tables(schema) if sees(schema, t.name)]

            translator = Translator(tokens, shape, database, lookup, set(self.schemas), params, tables,
                                    {schema for schema in self.listed_databases() if visible.sees_database(schema)},
                                    lambda schema: tables(schema, visible.sees_columns), live_rows)
        if owner is not None:
            translator.temporary = self.temporary_of(owner)
        translator.view_of = self.view
        translator.write_mode = mode
        translator.views_in = lambda schema: list(self.views.get(schema, {}).values())
        translator.triggers_in = lambda schema: ordered(self.triggers.get(schema, {}).values())
        translator.routines_in = lambda schema: sorted(self.routines.get(schema, {}).values(),
                                                       key=lambda r: (r.name.lower(), r.kind))
        translator.options_of = self.options_of
        plan = translator.plan()
        if plan.kind == "write" and plan.target is not None and self.triggers.get(plan.target[0]):
            if plan.sql.startswith("UPDATE OR IGNORE ") and self._triggered(plan.target):
                # (SQLite's OR IGNORE would be its triggers' statements' conflict policy too)
                raise SQLError(ER_NOT_SUPPORTED_YET, "UPDATE IGNORE of a table with triggers")
            notes, reads, writes = plan_effects(plan, self.triggers[plan.target[0]].values(), first, self.table)
            for counted in (plan, plan.changed, plan.found):  # (UPDATE's plans of its counts too)
                if counted is not None:
                    counted.unsafe += notes
                    counted.trigger_reads, counted.trigger_writes = reads, writes
            if plan.changed is not None and plan.multi is None and "UPDATE" in self._triggered(plan.target):
                # (the rows it leaves as they were fire the triggers too)
                plan.changed = dataclasses.replace(plan.found, writes_unchanged=True)
        return plan


def fsync_failed(path: str, exc: OSError) -> None:
    """An fsync of committed engine data failed: log and end the process now (the restart's
    recovery replays from the binlog whatever the engine lost)."""
    log.critical("fsync of %s failed after its commit: %s; the server stops (recovery at the next start)", path, exc)
    logging.shutdown()
    os._exit(1)


def _unquote(ident: str) -> str:
    """A column name of translated SQL: bare, or in SQLite's double quotes."""
    return ident[1:-1].replace('""', '"') if ident.startswith('"') else ident


def _value_rows(text: str) -> list[tuple[str, int]] | None:
    """The rows of a translated VALUES list, `( e1 , e2 ) , ( e3 , e4 )`: each row's expressions
    (the text inside its parentheses) and how many parameters they take; None when the text is
    not such a list."""
    found = _value_rows_at(text)
    return found[0] if found is not None and found[1] == len(text) else None


def _value_rows_at(text: str) -> tuple[list[tuple[str, int]], int] | None:
    """The rows of the translated VALUES list that `text` starts with (as `_value_rows`) and
    where the list ends; None when it starts with no such list."""
    rows: list[tuple[str, int]] = []
    i = 0
    while True:
        closed = _closing(text, i)
        if closed is None:
            return None
        end, params = closed
        rows.append((text[i + 1:end], params))
        i = end + 1
        if text[i:i + 3] != " , ":
            return rows, i
        i += 3


def _params_in(text: str) -> int | None:
    """The parameters (`?`) of a translated SQL text; None when a quote does not close."""
    found = _closing(f"({text})", 0)
    return None if found is None else found[1]


def _closing(text: str, i: int) -> tuple[int, int] | None:
    """Where the parenthesis at text[i] closes, and the parameters between; None when text[i]
    opens none or it does not close. Quoted strings and identifiers are skipped as SQLite reads
    them."""
    n = len(text)
    if i >= n or text[i] != "(":
        return None
    depth, params = 0, 0
    while i < n:
        ch = text[i]
        if ch in "'\"`":
            end = i + 1
            while True:
                end = text.find(ch, end)
                if end < 0:
                    return None
                if text[end + 1:end + 2] != ch:
                    break
                end += 2
            i = end + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i, params
        elif ch == "?":
            params += 1
        i += 1
    return None


class _Apart:
    """An INSERT's rows to run one at a time (`Engine._w_rows_apart`): `one`, the INSERT of one
    row's values (`columns`) with `tail_args` after them; the rows are `rows`, each the SELECT
    that computes a VALUES row's values, its arguments and the index of its AUTO_INCREMENT
    argument, or for INSERT ... SELECT the rows of `select` (`select_args`), an id added last
    to each when `numbered`, else at `slot` each row's own AUTO_INCREMENT value (None: the rows give
    none). `estimate`: the rows MariaDB reserves ids for at once (0: unknown)."""

    __slots__ = ("one", "columns", "tail_args", "rows", "select", "select_args", "numbered", "slot", "estimate")

    def __init__(self, one: str, columns: list[str], tail_args: list, rows=None, select=None, select_args=(),
                 numbered=False, slot=None, estimate=0):
        self.one, self.columns, self.tail_args = one, columns, tail_args
        self.rows: list[tuple[str | None, list, int | None]] = rows if rows is not None else []
        self.select: str | None = select
        self.select_args: list = list(select_args)
        self.numbered, self.slot, self.estimate = numbered, slot, estimate


def _insert_head(plan: Plan) -> tuple[re.Match, list[str]] | None:
    m = _INSERT_HEAD.match(plan.sql)
    if m is None:
        return None
    return m, [_unquote(name) for name in re.findall(_IDENT, m.group("columns"))]


def _values_apart(plan: Plan, args: list) -> _Apart | None:
    """INSERT ... VALUES as one statement per row (`_Apart`); None when the translation is not
    the form this reads."""
    head = _insert_head(plan)
    if head is None or not head[0].group("rest").startswith("VALUES "):
        return None
    m, columns = head
    rest = m.group("rest")[len("VALUES "):]
    found = _value_rows_at(rest)
    if found is None or len(found[0]) != plan.nrows:
        return None
    rows_found, end = found
    used = sum(n for _, n in rows_found)
    if used > len(args):
        return None
    rows: list[tuple[str | None, list, int | None]] = []
    at = 0
    for (text, n), slot in zip(rows_found, plan.auto_slots or [None] * plan.nrows, strict=True):
        if slot is not None and not at <= slot < at + n:
            return None
        rows.append((f"SELECT {text}", args[at:at + n], None if slot is None else slot - at))
        at += n
    one = f"{m.group('head')} VALUES ({', '.join('?' * len(columns))}){rest[end:]}"
    return _Apart(one, columns, args[used:], rows=rows, estimate=plan.nrows)


def _select_apart(plan: Plan, args: list, table: Table | None) -> _Apart | None:
    """INSERT ... SELECT as the SELECT it runs first, then one INSERT per row (`_Apart`),
    numbering the rows' ids when the translation does; None when it is not the form this
    reads."""
    head = _insert_head(plan)
    if head is None or table is None:
        return None
    m, columns = head
    rest = m.group("rest")
    if plan.auto_select_slot is not None:
        if plan.auto_select_slot != 0 or not rest.startswith(_NUMBERED):
            return None
        rest = rest[len(_NUMBERED):]
        closed = _closing(rest, 0)
        if closed is None:
            return None
        end, used = closed
        select, tail, select_args = f"SELECT * FROM {rest[:end + 1]}", rest[end + 1:], args[1:1 + used]
        tail_args = args[1 + used:]
    else:
        end = len(rest)
        if plan.ids_returned and table.auto_column is not None:
            returning = f" RETURNING {quote_ident(table.auto_column.name)}"
            if not rest.endswith(returning):
                return None
            end -= len(returning)
        if plan.upsert:
            end = rest.rfind(_UPSERT_AFTER_SELECT, 0, end)
            if end < 0:
                return None
        select, tail = rest[:end], rest[end:]
        in_tail = _params_in(tail)
        if in_tail is None or in_tail > len(args):
            return None
        select_args, tail_args = args[:len(args) - in_tail], args[len(args) - in_tail:]
    if tail.startswith(" WHERE true"):  # (SQLite's upsert-after-SELECT rule: not for VALUES)
        tail = tail[len(" WHERE true"):]
    one = f"{m.group('head')} VALUES ({', '.join('?' * len(columns))}){tail}"
    return _Apart(one, columns, tail_args, select=select, select_args=select_args,
                  numbered=plan.auto_select_slot is not None, slot=plan.auto_selected_at)


# an INSERT ... SELECT as the translation writes it (`translate`: INSERT INTO "db"."t" ("c", ...) SELECT ...)
_INSERT_SELECT = re.compile(r'INSERT INTO "(?:[^"]|"")*"\."(?:[^"]|"")*"(?: AS "(?:[^"]|"")*")?(?: \((?P<cols>(?:"(?:[^"]|"")*"(?:, )?)+)\))? '
                            r"(?P<select>SELECT\b.*)", re.DOTALL)
_QUOTED_NAME = re.compile(r'"((?:[^"]|"")*)"')


def _unique_failed(exc: BaseException) -> list[str] | None:
    """The columns of the unique key SQLite's error says a row met; None for another error."""
    m = re.match(r"UNIQUE constraint failed: (.+)", str(exc))
    return None if m is None else [c.strip().split(".")[-1] for c in m.group(1).split(",")]


_UPDATE_SQL = re.compile(r'UPDATE (?:OR \w+ )?"(?:[^"]|"")*"\."(?:[^"]|"")*" SET (?P<set>.*?)(?: WHERE (?P<where>.*))?$',
                         re.S)


_EXCLUDED = re.compile(r'\bexcluded\."((?:[^"]|"")*)"')


def _without_quotes(sql: str) -> str:
    return re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"", "''", sql)


def _top_level_split(sql: str) -> list[str]:
    """`sql` cut at its commas outside parentheses and quotes."""
    out, depth, quote, start = [], 0, None, 0
    for k, ch in enumerate(sql):
        if quote is not None:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(sql[start:k])
            start = k + 1
    return [*out, sql[start:]]


def _key_held(table: Table, cols: list[str]) -> str:
    """The query of whether `table` holds a key's values (`cols`' values bound in order), for 1062's value."""
    where = " AND ".join(f"{quote_ident(c)} = ?" for c in cols)
    return f"SELECT 1 FROM {quote_ident(table.schema)}.{quote_ident(table.name)} WHERE {where}"


def _key_shown(table: Table, cols: list[str], values) -> str:
    """A key's values as 1062 names them: a UUID's or an INET's as its column holds it (the
    statement may write it otherwise)."""
    shown = []
    for name, v in zip(cols, values, strict=True):
        col = table.column(name)
        if col is not None and col.base in fixedbin.KINDS and isinstance(v, str | bytes):
            v = fixedbin.canonical(col.base, v) or v
        shown.append(_show(v))
    return "-".join(shown)


def _show(v: object) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


def _redo_entry(target: str | None, log: tuple, insert_id: int | None, is_ddl: bool,
                sql_mode: int | None = None, step: autoinc.Step = autoinc.ONE) -> list:
    """A statement of the redo record (`_rerun_torn`): [target file, db, sql, time, LAST_INSERT_ID,
    RAND seed, INSERT_ID, is DDL], then its sql_mode when not the default's, the owner of its
    session's temporary tables when it had any (`log`'s last: `Session.owner`), and its
    auto_increment_increment and _offset when not 1 and 1 (each before it then written, None)."""
    *head, owner = log
    entry = [target, *head, insert_id, is_ddl]
    if step != autoinc.ONE:
        entry += [sql_mode, owner, list(step)]
    elif owner is not None:
        entry += [sql_mode, owner]
    elif sql_mode is not None:
        entry.append(sql_mode)
    return entry


def _public(meta: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in meta.items() if not k.startswith("__")}


def _canonical(v: object) -> object:
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _completion(tokens: list, shape: str) -> str:
    """COMMIT / ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]: the clauses written, as words
    joined by a space: "chain" (the next transaction begins, in the same access mode) or
    "no_chain", "release" (the connection closes after the answer) or "no_release"; "" for none
    (completion_type then decides). AND CHAIN with RELEASE is MariaDB's syntax error."""
    words = [t.upper for t in tokens]
    n = len(tokens)
    i = 2 if words[1:2] == ["WORK"] else 1

    def near(at: int) -> SQLError:
        return syntax_error(shape[tokens[at].start:] if at < n else "")

    def expect(word: str) -> None:
        nonlocal i
        if i >= n or words[i] != word:
            raise near(i)
        i += 1

    said: list[str] = []
    if i < n and words[i] == "AND":
        i += 1
        if i < n and words[i] == "NO":
            i += 1
            expect("CHAIN")
            said.append("no_chain")
        else:
            expect("CHAIN")
            said.append("chain")
    if i < n and words[i] == "NO":
        i += 1
        expect("RELEASE")
        said.append("no_release")
    elif i < n and words[i] == "RELEASE" and said != ["chain"]:
        i += 1
        said.append("release")
    if i < n:
        raise near(i)
    return " ".join(said)


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
