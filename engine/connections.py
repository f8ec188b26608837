"""The engine's SQLite connections: how each one is opened (WAL, the engine's synchronous level, the
MySQL functions, information_schema, CHECKSUM TABLE's aggregate, the DECIMAL collation and
SOUNDS LIKE's registered), and the readers: `ReaderPool` hands a reader connection to a reader thread for one
query, or pins one in a session's REPEATABLE READ `Snapshot` for its transaction; `access` compiles
(never runs) a statement on a reader to learn what it reads and writes. A connection is used by one
thread at a time: the writer connection by the writer thread only, a reader by the reader thread
running its query (a pinned one by its session's queries, one at a time). Readers see only what
SQLite has committed. A connection holds at most ATTACH_LIMIT database files; a reader attaches
what a query reports missing by the rules in `engine.core`'s header (a snapshot never mixes views).

The loop's reader (`ReaderPool.query_on_loop`): one more reader connection, used by the event
loop thread only, for a plain read outside a snapshot (`engine.core`'s header, "Threads"). It
must never hold the loop long, so it runs with no busy wait (`busy_timeout=0`) and a step budget
(a progress handler stops the query after LOOP_READ_STEPS virtual machine steps, counted from
each query's start; set on a connection at the loop's first query on it and left there until a
reader thread runs a query on it, which takes it off: `Reader.budgeted`); a query that
runs out of steps, finds the database busy, or needs a file attached gives up with no result
(`None`): the caller runs it on a reader thread, from the start. Such a query has no side
effect (`engine.core` lets only reads calling no function that waits or changes state here),
so a query stopped half-way and run again is the same query run once.
A REPEATABLE READ snapshot's read runs on the loop the same way, on the snapshot's pinned
connection: a read inside an open read transaction waits for no lock, and a stopped one runs
again on a reader thread in the same view. Its first read, which takes the view, begins the read
transaction on the loop too, on a reader of the loop's own (`Reader.loop_begun`: no busy wait,
like the loop's reader; kept apart from the reader threads' so that none of theirs ever runs
without one), which the snapshot then pins; when that first read cannot run on the loop (busy,
over its budget, a file to attach) nothing is pinned and it runs on a reader thread, which takes
the view then (either way the view is the first read's). That view is of every database the
reader holds, taken before the first read (`view_sql`): SQLite would take each file's at the
transaction's first read of that file, where InnoDB's read view covers every table from the
transaction's first read. Not while a query of the snapshot still runs on a reader thread
(`Snapshot.running`: a cancelled one), nor when the connection's files differ from the engine's
databases (attaching is the reader threads' work; looked at again only when the engine's map of
databases or the connection's files change: `Reader.matched`). A snapshot's end (`end_snapshot`:
the COMMIT of a read transaction, which waits for nothing) runs on the loop, but while such a
query runs (then on a reader thread).

The files are the process's alone (`connect`): every connection opens them through SQLite's
"unix-excl" VFS (an ATTACH takes its connection's VFS), which takes an exclusive lock on a file
at the first use of it in the process and keeps it while any connection of the process holds
the file, and keeps the file's WAL-index in the process's memory instead of a `-shm` file: the
WAL-index locks the connections take (the writer's write lock, every read transaction's read
mark) are then taken in memory, with no system call, and after a crash the first connection
rebuilds the WAL-index from the WAL as it did from a `-shm` file. Another process (a second
server on the datadir, a tool opening a file) finds the file locked (SQLITE_BUSY, "database is
locked"); the engine's open says so for its datadir (`claim`, `DatadirInUse`). Every connection
of the process to these files must use that VFS: one through another would release the
process's lock when it lets go of its own. Where `engine/_walframes.c` builds and loads, the files
are opened through its shim over unix-excl, "unix-excl-frames" (`VFS`), which hands every open to
unix-excl itself (the same locks, the same WAL-index in memory: a connection through either VFS
shares them) and writes each WAL frame, its header and its page, in one system call instead of
two; the files' bytes, the order of their writes and what each sync covers are unix-excl's."""

from __future__ import annotations

import re
import sqlite3
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from engine import (
    checksum,
    collation,
    decimal_math,
    fixedbin,
    functions,
    infoschema,
    strfuncs,
    triggers,
    values,
)
from engine.catalog import DECIMAL_COLLATION
from engine.errors import SQLITE_INPUT_ERRORS, map_sqlite_error
from engine.lexer import quote_ident
from protocol.errors import ER_QUERY_INTERRUPTED, ER_TOO_MANY_DATABASES, SQLError

if TYPE_CHECKING:
    from engine.translate import Plan

ATTACH_LIMIT = 10  # SQLite's SQLITE_MAX_ATTACHED (the most files one connection can hold)
# The loop's reader: a progress handler call every LOOP_READ_CHECK virtual machine steps, and a
# query stopped after LOOP_READ_STEPS of them (at most a few hundred microseconds).
LOOP_READ_CHECK = 1000
LOOP_READ_STEPS = 20_000
PAGE_CACHE_BYTES = 32 << 20  # each connection's page cache (what innodb_buffer_pool_size reports)
PAGE_SIZE = 4096  # SQLite's default page size, which the engine's files keep (innodb_page_size)
BUSY_TIMEOUT_MS = 10_000  # a reader thread's or the writer's longest wait for a lock


def _vfs() -> str:
    """The VFS of the engine's files: "unix-excl-frames" (`engine/_walframes.c`: unix-excl with each
    WAL frame written in one system call) when the compiled shim registers in the SQLite this
    Python uses, else "unix-excl" itself: the same files, written the same way."""
    try:
        from engine import _walframes
    except ImportError:
        return "unix-excl"
    major, minor, patch = sqlite3.sqlite_version_info
    if _walframes.register(major * 1_000_000 + minor * 1000 + patch):
        return "unix-excl-frames"
    return "unix-excl"


VFS = _vfs()  # the files are the process's alone (the module's header)

# A literal number with more digits than a double holds is a Decimal (`lexer.decode_number`); where
# the translation binds it as SQLite's own number (not as its exact text: `engine.exact`,
# `Translator.exact_item`), it is the double it was before
sqlite3.register_adapter(Decimal, float)


class DatadirInUse(Exception):
    """Another process holds the engine's files (a second server on the datadir)."""


def connect(path: Path, **options) -> sqlite3.Connection:
    """A bare connection to an engine file, through VFS (the module's header)."""
    return sqlite3.connect(f"{path.absolute().as_uri()}?vfs={VFS}", uri=True, **options)


def claim(conn: sqlite3.Connection, datadir: Path) -> None:
    """Take the process's lock on `conn`'s file (its first read, with no busy wait): another
    process that holds it makes the engine's open fail with `DatadirInUse` (`conn` closed)."""
    try:
        conn.execute("PRAGMA schema_version")
    except sqlite3.OperationalError as exc:
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY:
            raise
        conn.close()
        raise DatadirInUse(
            f"the engine's files in {datadir} are locked by another process: is another server "
            f"running on this datadir? ({exc})") from None


def open_connection(path: Path, state: functions.ConnectionState, synchronous: str = "FULL",
                    counter: infoschema.Counter = infoschema.no_counter,
                    datadir: Path | None = None) -> sqlite3.Connection:
    """A connection to the engine's files with its functions; `counter` the engine's
    AUTO_INCREMENT counters (`infoschema.register`). With `datadir` (the writer's, at the
    engine's open) it first `claim`s the file."""
    conn = connect(path, isolation_level=None, check_same_thread=False, cached_statements=512, timeout=0)
    if datadir is not None:
        claim(conn, datadir)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute(f"PRAGMA cache_size=-{PAGE_CACHE_BYTES // 1024}")
    conn.execute("PRAGMA case_sensitive_like=OFF")
    functions.register(conn, state)
    infoschema.register(conn, counter)
    decimal_math.register(conn, functions.divided_by_zero(state))
    checksum.register(conn)
    triggers.register_idle(conn)
    conn.create_collation(DECIMAL_COLLATION, values.compare_decimal)
    conn.create_collation(strfuncs.SOUNDEX_COLLATION, strfuncs.compare_soundex)
    collation.register(conn)
    fixedbin.register(conn)
    return conn


class Reader:
    """A reader connection, used by one reader thread at a time: taken from the engine's pool for
    one query, or pinned by a session for its transaction's snapshot."""

    def __init__(self, path: Path, counter: infoschema.Counter = infoschema.no_counter):
        self.state = functions.ConnectionState()
        self.conn = open_connection(path, self.state, counter=counter)
        self.attached: dict[str, Path] = {}
        self.loop_cursor: sqlite3.Cursor | None = None  # its queries run on the event loop (`query_on_loop`)
        # the engine's map of databases it was last found to hold exactly (`_current`): the engine
        # replaces the map on any change, and `sync_attached` / `attach_missing` forget it when
        # they change `attached`, so the same object needs no new look
        self.matched: dict[str, Path] | None = None
        # the step budget's progress handler is set on its connection (`query_on_loop`): set on
        # the loop once, until a reader thread runs a query on it (`_off_loop`)
        self.budgeted = False
        # one of the readers whose snapshot the loop begins (`ReaderPool._begin_on_loop`): no
        # busy wait, back to their own free list
        self.loop_begun = False


class Snapshot:
    """A session's read view inside a transaction (REPEATABLE READ): a pinned reader connection
    whose SQLite read transaction starts at the first SELECT (its view of every file the reader
    holds: `view_sql`) and ends with the transaction."""

    reader: Reader | None = None
    running: bool = False  # a query of it runs on a reader thread (set and cleared there)
    # the WAL bound's epoch it was admitted in before its first read (`engine.walbound`), None
    # until then and after its end
    epoch: int | None = None
    # WITH CONSISTENT SNAPSHOT over more databases than a connection holds: the ones whose view
    # it took at its start (any other is refused, never read from a later view)
    fixed: set[str] | None = None


_AUTH_WRITES = {sqlite3.SQLITE_INSERT: "INSERT", sqlite3.SQLITE_UPDATE: "UPDATE", sqlite3.SQLITE_DELETE: "DELETE"}


def _busy_or_missing(exc: sqlite3.OperationalError) -> bool:
    """SQLITE_BUSY / SQLITE_LOCKED, or a table of a database the connection has not attached."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or str(exc).startswith("no such table: ")


def _internal(schema: str | None, table: str | None) -> bool:
    return not schema or schema in ("main", "temp") or not table or table.startswith(("__", "sqlite_"))


def _current(attached: dict[str, Path], schemas: dict[str, Path]) -> bool:
    """Whether a reader has exactly the engine's databases attached, each as the file object the
    engine holds now: a database dropped and created again has a new one under the same name
    and path, whose old file the reader must not read on."""
    return len(attached) == len(schemas) and all(schemas.get(name) is path for name, path in attached.items())


def view_sql(files) -> str:
    """One read of each of `files`' schema (attached names, "main" the engine's own): run first in
    a read transaction, it takes the transaction's view of every one of them at once."""
    return "SELECT " + " + ".join(f"(SELECT count(*) FROM {quote_ident(f)}.sqlite_master)" for f in files)


class ReaderPool:
    """The engine's reader connections: taken by a reader thread for one query (`query`), or
    pinned by a session's snapshot for its transaction (`end_snapshot` gives it back). Methods
    run on a reader thread, but `close()`. `schemas` is the engine's map of every database to
    its file, read afresh at each use (the engine replaces it, never mutates it); `counter` its
    AUTO_INCREMENT counters, which information_schema.TABLES shows."""

    def __init__(self, main_file: Path, schemas: Callable[[], dict[str, Path]],
                 counter: infoschema.Counter = infoschema.no_counter) -> None:
        self._main_file = main_file
        self._schemas = schemas
        self._counter = counter
        self._free_readers: list[Reader] = []
        self._free_loop_begun: list[Reader] = []  # the loop's readers for a snapshot's first read
        self._free_lock = threading.Lock()
        self._loop_reader: Reader | None = None
        self._loop_steps = 0  # progress handler calls of the query running on the loop (`query_on_loop`)
        self._closed = False

    @property
    def schemas(self) -> dict[str, Path]:
        return self._schemas()

    def close(self) -> None:
        """Close the idle readers (after the reader threads stopped)."""
        self._closed = True
        for reader in (*self._free_readers, *self._free_loop_begun):
            self.discard(reader)
        self._free_readers = self._free_loop_begun = []
        if self._loop_reader is not None:
            self.discard(self._loop_reader)
            self._loop_reader = None

    def checkout(self) -> Reader:
        with self._free_lock:
            reader = self._free_readers.pop() if self._free_readers else None
        if reader is None:
            reader = Reader(self._main_file, self._counter)
        self.sync_attached(reader)
        return reader

    def discard(self, reader: Reader) -> None:
        try:
            reader.conn.close()
        except sqlite3.Error:
            pass

    def checkin(self, reader: Reader) -> None:
        with self._free_lock:
            (self._free_loop_begun if reader.loop_begun else self._free_readers).append(reader)

    def sync_attached(self, reader: Reader) -> None:
        """Detach the dropped databases (outside a read transaction only: a snapshot keeps the
        files it started with). While there are at most ATTACH_LIMIT databases every one is
        attached; beyond, a query attaches the files it finds missing (`attach_missing`)."""
        schemas = self.schemas
        if _current(reader.attached, schemas):
            return
        if not reader.conn.in_transaction:
            for name in list(reader.attached):
                if schemas.get(name) is not reader.attached[name]:
                    reader.conn.execute("DETACH DATABASE " + quote_ident(name))
                    del reader.attached[name]
                    reader.matched = None
        if len(schemas) <= ATTACH_LIMIT:
            for name, path in schemas.items():
                if name not in reader.attached and len(reader.attached) < ATTACH_LIMIT:
                    reader.conn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
                    reader.attached[name] = path
                    reader.matched = None

    def attach_missing(self, reader: Reader, exc: sqlite3.Error, snapshot: Snapshot | None) -> bool:
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
            reader.matched = None
        if len(reader.attached) >= ATTACH_LIMIT:
            raise SQLError(ER_TOO_MANY_DATABASES, ATTACH_LIMIT, "read by one transaction")
        path = self.schemas[name]
        reader.conn.execute("ATTACH DATABASE ? AS " + quote_ident(name), (str(path),))
        reader.attached[name] = path
        reader.matched = None
        return True

    def query(self, sql: str, args, rand, database, snapshot: Snapshot | None = None):
        if snapshot is not None:
            if snapshot.reader is None:
                snapshot.reader = self.checkout()
            reader = snapshot.reader
            self.sync_attached(reader)
            begin = not reader.conn.in_transaction
        else:
            reader = self.checkout()
            begin = False
        if reader.budgeted:
            self._off_loop(reader)
        reader.state.fx = rand
        if rand is not None:
            rand.running_on(reader.conn)
        if snapshot is not None:
            snapshot.running = True
        try:
            if begin:  # the snapshot is taken by the first read, of every database the reader holds
                reader.conn.execute("BEGIN")
                if len(reader.attached) > 1:
                    reader.conn.execute(view_sql(reader.attached)).fetchall()
            if rand is not None and rand.interrupted.is_set():
                raise SQLError(ER_QUERY_INTERRUPTED)  # killed before it started
            while True:
                try:
                    cur = reader.conn.execute(sql, args)
                    rows = cur.fetchall()
                    break
                except sqlite3.OperationalError as exc:
                    if not self.attach_missing(reader, exc, snapshot):
                        raise
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, database) from None
        finally:
            if rand is not None:
                rand.running_on(None)
            reader.state.fx = None
            if snapshot is None:
                self.checkin(reader)
            else:
                snapshot.running = False
        return [d[0] for d in cur.description or ()], rows

    def query_on_loop(self, sql: str, args, rand, database, snapshot: Snapshot | None = None, names: bool = True):
        """`query` on the event loop thread: on the loop's reader, or in `snapshot` on its pinned
        connection once its read transaction has begun (the module's header). The names (None
        unless `names`) and rows, or None when the query did not run or was stopped (its step
        budget, a busy database, a file to attach) and must run on a reader thread (which
        answers 1053 once the pool is closed). The query runs with the step budget (counted
        from its start; the progress handler stays on the connection until a reader thread
        runs a query on it: `_off_loop`), through the reader's loop cursor (a cursor object per
        query costs more than the point read it runs)."""
        if self._closed:
            return None
        if snapshot is None:
            reader = self._loop_reader
            if reader is None:
                reader = self._loop_reader = Reader(self._main_file, self._counter)
                reader.conn.execute("PRAGMA busy_timeout=0")
            schemas = self._schemas()
            if schemas is not reader.matched and not self._matches(reader, schemas, True):
                return None
        else:
            reader = snapshot.reader
            if reader is None:
                return self._begin_on_loop(snapshot, sql, args, rand, database, names)
            if snapshot.running or not reader.conn.in_transaction:
                return None
            schemas = self._schemas()
            if schemas is not reader.matched and not self._matches(reader, schemas, False):
                return None  # (attaching in a read transaction is the reader threads' work)
        if rand is not None and rand.kill_pending:
            raise SQLError(ER_QUERY_INTERRUPTED)  # killed before it started
        reader.state.fx = rand
        self._loop_steps = 0
        if not reader.budgeted:
            reader.conn.set_progress_handler(self._loop_step, LOOP_READ_CHECK)
            reader.budgeted = True
        cur = reader.loop_cursor
        if cur is None:
            cur = reader.loop_cursor = reader.conn.cursor()
        try:
            rows = cur.execute(sql, args).fetchall()
        except sqlite3.OperationalError as exc:
            if self._loop_steps > LOOP_READ_STEPS // LOOP_READ_CHECK or _busy_or_missing(exc):
                return None
            raise map_sqlite_error(exc, database) from None
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, database) from None
        finally:
            reader.state.fx = None
        return [d[0] for d in cur.description or ()] if names else None, rows

    def _matches(self, reader: Reader, schemas: dict[str, Path], attach: bool) -> bool:
        """Whether `reader` holds exactly the databases of `schemas` (`_current`), kept as its
        `matched`; `attach`: outside a read transaction, made to hold them first (`sync_attached`)
        while there are at most ATTACH_LIMIT (beyond, attaching on demand is the reader threads'
        work)."""
        if not _current(reader.attached, schemas):
            if not attach or len(schemas) > ATTACH_LIMIT:
                return False
            self.sync_attached(reader)
            if not _current(reader.attached, schemas):
                return False
        reader.matched = schemas
        return True

    def _begin_on_loop(self, snapshot: Snapshot, sql: str, args, rand, database, names: bool):
        """`query_on_loop` of a snapshot's first read: its read transaction begun on a reader of
        the loop's own, pinned in `snapshot` once the read ran (or failed as it would on a reader
        thread, which pins its reader too); None with nothing pinned (the reader's transaction
        ended, no view kept) when it did not run: a reader thread runs it and takes the view."""
        schemas = self._schemas()
        if snapshot.fixed is not None or len(schemas) > ATTACH_LIMIT:
            return None  # (WITH CONSISTENT SNAPSHOT pins its reader at its start; attaching is the threads')
        with self._free_lock:
            reader = self._free_loop_begun.pop() if self._free_loop_begun else None
        if reader is None:
            reader = Reader(self._main_file, self._counter)
            reader.conn.execute("PRAGMA busy_timeout=0")  # (the loop never waits for a lock)
            reader.loop_begun = True
        if schemas is not reader.matched and not self._matches(reader, schemas, True):
            self.checkin(reader)
            return None
        reader.conn.execute("BEGIN")
        snapshot.reader = reader
        answer = None  # (the queries now run in its transaction: the view of every file first)
        if len(reader.attached) < 2 or self.query_on_loop(view_sql(reader.attached), (), None, database, snapshot,
                                                          False) is not None:
            answer = self.query_on_loop(sql, args, rand, database, snapshot, names)
        if answer is None:  # (not run: busy, over the budget, a file to attach)
            snapshot.reader = None
            self.end_snapshot(reader)
        return answer

    def _loop_step(self) -> int:
        self._loop_steps += 1
        return self._loop_steps > LOOP_READ_STEPS // LOOP_READ_CHECK

    def _off_loop(self, reader: Reader) -> None:
        """A reader a reader thread runs a query on (a snapshot's, or one of the pool that a
        snapshot read on the loop with): without the loop's step budget, which would stop a
        long read there (the loop sets it again at its next query on it)."""
        reader.conn.set_progress_handler(None, 0)
        reader.budgeted = False

    def end_snapshot(self, reader: Reader) -> None:
        """End a snapshot's read transaction (on the loop, or on a reader thread while a query of
        the snapshot may still run there) and give its reader back."""
        try:
            if reader.conn.in_transaction:
                reader.conn.execute("COMMIT")
        except sqlite3.Error:
            self.discard(reader)  # still busy (a cancelled query): never reuse it
            return
        self.checkin(reader)

    def access(self, plan: Plan, args) -> tuple[tuple, tuple]:
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

        reader = self.checkout()
        if reader.budgeted:
            self._off_loop(reader)
        reader.conn.set_authorizer(authorize)
        try:
            reader.conn.execute("EXPLAIN " + plan.sql, args).fetchall()
        except SQLITE_INPUT_ERRORS as exc:
            raise map_sqlite_error(exc, None) from None
        finally:
            reader.conn.set_authorizer(None)
            self.checkin(reader)
        return tuple(reads), tuple(writes)
