"""`Session`: one client connection's view of the engine (not for concurrent use).

A statement is planned (the engine's cached translation, `Engine.plan_for`) and run where the
engine's contract says (`engine.core`'s header): reads on a reader thread (a plain one on the
loop's reader first), or through the writer connection once the session holds the writer lock;
writes, DDL and savepoints on the writer thread under the writer lock, taken at the
transaction's first write and held until it ends; SHOW / DESCRIBE from the catalog
(`engine.admin`) on the loop. COMMIT (or an autocommit write, or DDL) returns the
`CommittedTxn` the caller must binlog before `Engine.commit_group`; a statement run with
`sql_log_bin` off commits with it but is left out of it (MariaDB decides per statement), so a
transaction of such statements only returns an empty one.
`Session.isolation` chooses READ COMMITTED or REPEATABLE READ reads; `Session.access` tells what
a statement would read and write, for the shell's privilege check; `interrupt()` is KILL QUERY.
Errors are `SQLError`s with MySQL codes, never sqlite3's."""

from __future__ import annotations

import asyncio
import functools
import math
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from engine import (
    charset_literals,
    coltypes,
    explain,
    fixedbin,
    functions,
    routines,
    temporary,
    values,
)
from engine.admin import AsSelect, Logged, checksum_answer, run_admin
from engine.catalog import SERVER_COLLATION, Table, TokenCursor, View, mysql_literal, sql_literal
from engine.checksum import ChecksumTables
from engine.connections import ATTACH_LIMIT, Snapshot, view_sql
from engine.ddl import VIEW_NAME_ERRORS, DdlAction, DdlParser, account_text
from engine.errors import in_clause, parsing, with_literal_texts
from engine.exprtypes import SelectTypes
from engine.lexer import (
    SyntaxError_,
    extract,
    inline_sysvars,
    literal_texts,
    mysql_ident,
    quote_ident,
    syntax_error,
    tokenize,
)
from engine.results import (
    PER_ROW,
    QUIET_DIVISION,
    Access,
    CommittedTxn,
    LoggedStatement,
    Result,
    StatementContext,
    write_mode,
)
from engine.translate import (
    CONN_ID,
    CURDATE,
    CURRENT_USER,
    CURTIME,
    DATABASE,
    FIXEDBIN,
    FOUND,
    LAST_ID,
    NOW,
    NOW_US,
    ROW_COUNT,
    STORE,
    TYPED,
    UNIX_NOW,
    USER,
    WRITTEN,
    Plan,
)
from engine.values import CHARS, INTEGER, LITERAL, NEGATED
from protocol.charsets import Charset
from protocol.errors import (
    ER_BAD_DB_ERROR,
    ER_BAD_FIELD_ERROR,
    ER_BAD_NULL_ERROR,
    ER_BINLOG_UNSAFE_ROUTINE,
    ER_BINLOG_UNSAFE_STATEMENT,
    ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION,
    ER_DIVISION_BY_ZERO,
    ER_LOCK_WAIT_TIMEOUT,
    ER_NO_DEFAULT_FOR_FIELD,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_SP_DOES_NOT_EXIST,
    ER_SP_FETCH_NO_DATA,
    ER_TOO_MANY_ROWS,
    ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN,
    ER_WARNING_NOT_COMPLETE_ROLLBACK,
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
    SQLError,
)
from protocol.events import sql_mode_names

if TYPE_CHECKING:
    from engine.core import Engine

READ_COMMITTED, REPEATABLE_READ = "READ-COMMITTED", "REPEATABLE-READ"
PLAN_CACHE_SIZE = 4096  # entries of the engine's plan cache, and of its access cache
TRANSACTION_PLANS = 16  # BEGIN / COMMIT texts a session keeps the plans of (`Session._transaction_plan`)


_EXPLAIN_PREFIX = re.compile(r"^\s*EXPLAIN\s+(?:(EXTENDED|PARTITIONS)\s+)?", re.I)
_TRAILING_LIMIT = re.compile(r"\sLIMIT\s+\?(?:\s*(?:,|OFFSET)\s*\?)?\s*$", re.I)


def _literal(value: object) -> str:
    return mysql_literal(value) if isinstance(value, str) else sql_literal(value)


def _consume(fut: asyncio.Future) -> None:
    if not fut.cancelled():
        fut.exception()

# --- sessions ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PreparedRead:
    """A read `Session.select_now` answered, kept to run again for other values (see
    `Session.prepare_read`): its plan, whose arguments are the statement's literals in order,
    the database and catalog version it was planned in, and its result columns' names, types
    (none read from a literal or a row) and their converter."""

    plan: Plan
    database: str | None
    catalog: int
    names: list[str]
    types: list[coltypes.ColumnType]
    convert: Callable[[tuple], tuple] | None


@dataclass(slots=True)
class KeptWrite:
    """A prepared write's text around its placeholders (`pieces`) and what `Session.write_kept`
    keeps of it, so that an execution whose placeholders hold plain values (non-negative
    integers, text quoted as it is: server/prepared.py's `_plain_values`) runs without lexing
    and planning its text again: the plan `write_now` would take, the statement's literals with
    a slot per placeholder (`slots`: where each one's value stands among them), the values'
    kinds, and the state it was planned in (`state`: the database, the catalog version, the
    write mode, the stored functions); its plan is another's for literals of other kinds
    (`Plan.literal_kinds`), which an execution's values are then checked for. `refused`: the state and kinds under which it could not
    be kept (not tried again until one of them changes)."""

    pieces: tuple[str, ...]
    plan: Plan | None = None
    literals: list[object] = field(default_factory=list)
    slots: tuple[int, ...] = ()
    kinds: tuple[type, ...] = ()
    state: tuple = ()
    kinds_read: bool = False  # its plan's literal kinds are asked of each execution's values
    refused: tuple | None = None


@dataclass(frozen=True, slots=True)
class OpenTransaction:
    """What information_schema.INNODB_TRX shows of a session's open transaction
    (`Session.open_transaction`): when it began (wall clock; None: it is the running
    statement's own, an autocommit write), whether it writes (holds or waits for the writer
    lock: InnoDB gives such a transaction an id), since when it waits for that lock (None: not
    waiting), and how it reads."""

    started: float | None
    writer: bool
    waiting_since: float | None
    read_only: bool
    isolation: str
    foreign_key_checks: bool


@dataclass(slots=True)
class _Write:
    """One write statement, ready to run on the writer connection (`Engine._w_write`)."""
    session: Session
    plan: Plan
    args: Any
    sql: str  # as logged: system variables read inline
    written: str  # as the client wrote it
    params: Any
    context: StatementContext | None
    timestamp: int
    rand_seed: Any
    last_id: int | None  # the LAST_INSERT_ID() it reads, when it reads one
    micros: int | None  # its time's microseconds, when it reads them (NOW(6) ...)
    modes: tuple[bool, bool, int | None]  # its foreign_key_checks, NO_AUTO_VALUE_ON_ZERO, sql_mode (`Session._modes`)
    step: tuple[int, int]  # its auto_increment_increment and _offset (`Session._step`)

    def call(self, end: bool) -> tuple:
        """`Engine._w_write`'s arguments; `end`: the statement ends its transaction."""
        session, context = self.session, self.context
        forced = context.insert_id if context is not None else None
        stamp = self.timestamp if self.micros is None else [self.timestamp, self.micros]  # `results.statement_time`
        log = (session._database, self.sql, stamp, self.last_id, self.rand_seed,
               session.owner() if session.engine.temporary_any else None)
        return (self.plan, self.args, end, forced, session._fx, session._database, log, *self.modes,
                context is None or not context.row_image, self.step)


class Session:
    """One client connection's view of the engine. Not for concurrent use."""

    def __init__(self, engine: Engine, connection_id: int, fx: functions.SessionFunctions | None = None):
        """`fx`: the functions' state to run on, renewed by the caller (a fresh one when None)."""
        self.engine = engine
        self.connection_id = connection_id
        # whose temporary tables the session's names resolve to first (`engine.temporary`): its
        # own; a replicated statement's, its master thread's (`Engine._run_replicated`)
        self.temporary_owner = temporary.client_owner(engine.open_token, connection_id)
        self._database: str | None = None
        # @@collation_database (and so @@character_set_database): the default database's, taken
        # when it becomes the default (USE) and when this session alters it, the server's without
        # one; SET changes it until then, as MariaDB's `thd->db_charset`
        self.collation_database = SERVER_COLLATION
        self.autocommit = True
        self.found_rows = False  # CLIENT_FOUND_ROWS: UPDATE reports matched rather than changed rows
        self.fixed_time: int | None = None  # SET timestamp = n: the statements' time (`_now`)
        self.fixed_micros = 0  # and its microseconds
        self._micros = 0  # the running statement's time's microseconds (`_now`)
        self.foreign_key_checks = True  # the session's foreign_key_checks
        # sql_mode NO_AUTO_VALUE_ON_ZERO (set by the server shell): 0 into an AUTO_INCREMENT
        # column is stored as 0, only NULL takes the next id
        self.no_auto_value_on_zero = False
        # how the session's writes store what strict mode refuses (`results.write_mode`; 0: the
        # default sql_mode's, strict), and its sql_mode bits, which its statements are binlogged
        # with (`follow_sql_mode`; None: never set, the default sql_mode)
        self.write_mode = 0
        self.sql_mode: int | None = None
        # auto_increment_increment and _offset (set by the server shell): the ids a statement
        # hands out (`engine.autoinc`), binlogged with it (Q_AUTO_INCREMENT)
        self.auto_increment = (1, 1)
        self.sql_log_bin = True  # off: the session's statements are committed, never binlogged
        self._unlogged = False  # the open transaction wrote with sql_log_bin off
        # the open transaction made or dropped a temporary table, which its rollback cannot
        # undo (`_ddl_kept`)
        self._kept_temporary = False
        self.user_vars: dict[str, object] = {}
        # the session's character_set_connection when it is not utf8 (its string literals are
        # that character set's: engine.charset_literals), and whether the client's
        # character_set_results converts answers; both set by the server shell
        self.connection_charset: Charset | None = None
        self.items_converted = True
        # `@@variable` text -> its value (set by the server shell, which owns the variables;
        # None: statements reading system variables are refused)
        self.sysvar_reader: Callable[[str], object] | None = None
        # `@@variable` text -> its result column's type (`coltypes.sysvar_type` of its value)
        self.sysvar_type: Callable[[str], coltypes.ColumnType] | None = None
        # a user variable's value and whether it was set -> its result column's type
        # (`coltypes.uservar_type` in the connection's character set)
        self.uservar_type: Callable[[object, bool], coltypes.ColumnType] | None = None
        # USER() (user@host of the client) and CURRENT_USER() (the account), as the server logged in
        self.user_text = ""
        self.current_user_text = ""
        # CREATE FUNCTION's binlog rule for a client's session, the shell's: () -> (it applies,
        # the account holds SUPER) (`engine.ddl.DdlParser.check_function_creator`)
        self.creator_checks: Callable[[], tuple[bool, bool]] | None = None
        # the rows of information_schema's server views (PROCESSLIST, the system and status
        # variables: infoschema.LIVE) as this session may see them, by view name (set by the
        # server shell, which owns the sessions and variables; None: those views are empty)
        self.live_reader: Callable[[str], list[tuple]] | None = None
        self.last_insert_id = 0
        self.found = 0  # FOUND_ROWS(): rows the last SELECT returned (or would have without LIMIT)
        self.row_count = -1  # ROW_COUNT(): rows the last statement changed (-1 after a SELECT)
        self._in_txn = False  # inside BEGIN ... COMMIT (or autocommit=0)
        self._txn_started = 0.0  # when the open transaction (`_in_txn`) began, wall clock
        self._wait_started = 0.0  # when the current wait for the writer lock (`_lock_wait`) began
        self._read_only = False  # the open transaction began READ ONLY (its writes are 1792)
        self._holds_lock = False
        self._pinned = False  # apply_transaction keeps the lock across statements
        self._snapshot = Snapshot()  # the read view of the current transaction
        self._named_savepoints: list[str] = []  # savepoints set before the transaction's first write
        # the transaction's savepoints as its binlog statements hold them, in order: (name in
        # lower case, how many of `_statements` stand before the point, None: set before the
        # transaction logged anything), `_binlog_savepoint`'s
        self._savepoint_marks: list[tuple[str, int | None]] = []
        # a BEGIN's or COMMIT's text -> its plan's (kind, sql), as `_kind` and `commit_now` read
        # them (`_transaction_plan`: a client repeats these few texts)
        self._transaction_plans: dict[str, tuple[str, str]] = {}
        # READ COMMITTED (every SELECT sees the newest group-committed data) or REPEATABLE READ
        # (a transaction reads one snapshot); the shell sets a client's from transaction_isolation
        # (REPEATABLE READ by default, InnoDB's) and SET TRANSACTION ISOLATION LEVEL. Left READ
        # COMMITTED here: a session that holds the writer lock throughout (the applier's, a
        # repair's) reads through the writer, which no level changes
        self.isolation = READ_COMMITTED
        # completion_type (set by the shell): what a COMMIT / ROLLBACK that does not say is
        # followed by, 0 nothing (NO_CHAIN), 1 the next transaction (CHAIN), 2 a disconnect (RELEASE)
        self.completion = 0
        self._statements: list[LoggedStatement] = []
        # A privilege check's view (`sees_database`, `sees_table`) narrowing information_schema;
        # None: everything is listed.
        self.visible: Any = None
        self._fx = fx if fx is not None else functions.SessionFunctions(functions.session_rand(connection_id))
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
        self.collation_database = SERVER_COLLATION if name is None else self.engine.options_of(name).collation

    @property
    def in_transaction(self) -> bool:
        return self._in_txn or self._holds_lock

    @property
    def writes_in_transaction(self) -> bool:
        """A write now would not end a transaction: one is open, or autocommit is off."""
        return self._in_txn or self._holds_lock or not self.autocommit

    def _write_mode_of(self, context: StatementContext | None) -> int:
        """How one statement stores what strict mode refuses: a replayed one's own sql_mode's (the
        master's), else the session's (`results.write_mode`)."""
        return self.write_mode if context is None else write_mode(context.sql_mode)

    def _fk_checks(self, context: StatementContext | None) -> bool:
        """foreign_key_checks for one statement: a replayed one's own (the master's), else the session's."""
        return self.foreign_key_checks if context is None else self.foreign_key_checks and context.foreign_key_checks

    def _zero_is_value(self, context: StatementContext | None) -> bool:
        """NO_AUTO_VALUE_ON_ZERO for one statement: a replayed one's own (the master's), else the session's."""
        return self.no_auto_value_on_zero if context is None else context.no_auto_value_on_zero

    def follow_sql_mode(self, sql_mode: int, zero_is_value: bool) -> None:
        """The session's sql_mode, as its bits (Q_SQL_MODE's), set by the server shell: its
        NO_AUTO_VALUE_ON_ZERO (`zero_is_value`) and its strictness (`write_mode`)."""
        self.no_auto_value_on_zero = zero_is_value
        self.write_mode = write_mode(sql_mode)
        self.sql_mode = sql_mode

    def _sql_mode(self, context: StatementContext | None) -> int | None:
        """The sql_mode bits one statement runs under: a replayed one's own (the master's), else
        the session's; None: the default sql_mode."""
        return self.sql_mode if context is None else context.sql_mode

    def _step(self, context: StatementContext | None) -> tuple[int, int]:
        """auto_increment_increment and _offset for one statement: a replayed one's own (the
        master's), else the session's."""
        return self.auto_increment if context is None else context.auto_increment

    def _modes(self, context: StatementContext | None) -> tuple[bool, bool, int | None]:
        """`_fk_checks`, `_zero_is_value` and `_sql_mode` of one statement, read together."""
        if context is None:
            return self.foreign_key_checks, self.no_auto_value_on_zero, self.sql_mode
        return self.foreign_key_checks and context.foreign_key_checks, context.no_auto_value_on_zero, context.sql_mode

    def _log(self, stmt: LoggedStatement) -> None:
        """The statement into the transaction's binlog statements, unless sql_log_bin is off."""
        if self.sql_log_bin:
            self._statements.append(stmt)
        else:
            self._unlogged = True

    # --- statement execution ---------------------------------------------------------------

    async def execute(self, sql: str, context: StatementContext | None = None, *,
                      lock_reads: bool = True) -> Result:
        """Run one statement. Errors are `SQLError`s with MySQL codes, never sqlite3's.
        `lock_reads=False`: a locking read (FOR UPDATE) reads as a plain one, without taking
        the writer lock (the shell's choice for an account that may not lock)."""
        try:
            return await self._execute(sql, context, lock_reads)
        except SyntaxError_ as exc:
            raise routines.qualified_call_error(sql, self._function, self._database) or exc.with_literals(sql) from None
        except SQLError as exc:
            placed = in_clause(with_literal_texts(exc, sql), sql)
            if placed is exc:
                raise
            raise placed from None

    def _expanded(self, sql: str) -> str:
        """`sql` with its stored functions' calls written out (`routines.expand_calls`); the
        statement binlogged stays `sql`, as MariaDB's."""
        if "(" not in sql:  # (no call: neither a marker, `refuse_markers`, nor a function)
            return sql
        engine = self.engine
        routines.refuse_markers(sql, self._database)
        if not routines.may_call(engine.routines, sql):
            return sql
        return routines.expand_calls(sql, self._function, self._database)

    def _function(self, schema: str, name: str) -> routines.Routine | None:
        """The stored function a call names; MariaDB's 1418 for a client's call of one unsafe to
        log under binlog_format STATEMENT (Item_sp::execute_impl: the binlog on,
        log_bin_trust_function_creators OFF)."""
        routine = self.engine.routine(schema, "FUNCTION", name)
        if (routine is not None and self.creator_checks is not None and routines.unsafe_to_log(routine)
                and self.sysvar_reader is not None and self.sysvar_reader("@@binlog_format") == "STATEMENT"
                and self.creator_checks()[0]):
            raise SQLError(ER_BINLOG_UNSAFE_ROUTINE)
        return routine

    def owner(self) -> str | None:
        """`temporary_owner` while the session has temporary tables (`Engine.plan_for`'s), else None.
        The statements' paths test `Engine.temporary_any` inline before they call it (no
        temporary table anywhere: None, at the cost of one attribute)."""
        if not self.engine.temporary_any:
            return None
        owner = self.temporary_owner
        return owner if owner in self.engine.temporary_owners() else None

    def table(self, schema: str, name: str) -> Table | None:
        """The table `name` of `schema` as the session resolves it: its temporary one first."""
        owner = self.owner()
        return self.engine.table(schema, name) if owner is None else self.engine.resolver(owner)(schema, name)

    def temporary_drops(self) -> list[tuple[str, str]]:
        """What ends the session's temporary tables (`Engine.temporary_drops`)."""
        owner = self.owner()
        return [] if owner is None else self.engine.temporary_drops(owner)

    def _plan(self, sql: str) -> tuple[Plan, list[object]]:
        """The statement's plan and literals, without running it."""
        plan, params, _, _ = self._planned(sql)
        return plan, params

    def _planned(self, sql: str) -> tuple[Plan, list[object], dict[int, str], str]:
        """The statement's plan under the session's sql_mode (as `_execute` plans it), its
        literals as the plan reads them, the literals a replica's statement writes otherwise
        (`_charset_literals`) and the text planned (`_expanded`), whose literals they are."""
        try:
            expanded = self._expanded(sql)
            shape, params = extract(expanded)
            engine = self.engine
            plan = engine.plan_for(shape, self._database, params, self.visible, self.live_reader,
                                   self.write_mode, self.owner() if engine.temporary_any else None)
        except SyntaxError_ as exc:
            raise exc.with_literals(sql) from None
        params, logged = self._charset_literals(plan, params)
        return plan, params, logged, expanded

    def _charset_literals(self, plan: Plan, params: list[object]) -> tuple[list[object], dict[int, str]]:
        """`params` as `plan` reads them where a string literal is not utf8 (a latin1 or cp1251
        connection's, `_latin1 '..'`: `engine.charset_literals.read`), and the literals the
        binlog's statement writes otherwise; on a utf8 connection, with no introducer, `params`."""
        if (self.connection_charset is None and not plan.introduced) or plan.kind not in ("write", "select"):
            return params, {}
        return charset_literals.read(plan, params, self.connection_charset, self.items_converted)

    async def access(self, sql: str) -> Access:
        """What `sql` would read and write, for the shell's privilege check (accounts without
        ALL PRIVILEGES only: the compile costs a reader hop the first time a translation is
        seen). Raises the SQLError running it would raise when it cannot be planned."""
        engine = self.engine
        plan, params = self._plan(sql)
        if plan.kind == "explain":  # EXPLAIN needs what running the statement needs
            return await self.access(_EXPLAIN_PREFIX.sub("", sql, count=1))
        if plan.kind == "do":  # DO needs what its SELECT needs
            return await self.access(_do_select(sql))
        if plan.kind not in ("select", "write"):
            return Access(plan.kind)
        # keyed by the translation only: FOR UPDATE, the target and the like are the plan's
        key = (plan.sql, engine._catalog_version)
        touched = engine._accesses.get(key)
        if touched is None:
            expanded = self._expanded(sql)
            try:
                args = self._args(plan, params, None, int(time.time()), expanded)
            except SQLError:
                if not plan.literals_up_front:
                    raise
                plan, params, _ = self._per_row_planned(expanded, None)
                args = self._args(plan, params, None, int(time.time()), expanded)
            touched = await engine._on_reader(engine._pool.access, plan, args)
            if len(engine._accesses) >= PLAN_CACHE_SIZE:
                engine._accesses.clear()
            engine._accesses[key] = touched
        reads, writes = touched
        target = plan.target
        if engine.temporary_any and self.owner() is not None:  # its own temporary tables: no privilege but the one that made them
            reads = tuple(r for r in reads if not temporary.is_temporary(r[1]))
            writes = tuple(w for w in writes if not temporary.is_temporary(w[2]))
            target = None if target is not None and temporary.is_temporary(target[1]) else target
        return Access(plan.kind, target, reads, writes, plan.locking, plan.upsert)

    def select_now(self, sql: str) -> Result | None:
        """The Result of `sql` when it is a read without the writer (no lock held, no locking
        read inside a transaction) that the loop answers at once in its view (the latest commit,
        or the transaction's snapshot, whose view its first read takes: `_read_view`), with a cached plan
        the loop may run, no FOUND_ROWS count, within the loop reader's step budget, as
        `execute` would give it; None when it is not (then nothing of the session changed that
        `execute` does not set again). The shell's path for a prepared SELECT
        (server/prepared.py)."""
        if self._holds_lock:
            return None
        try:
            plan, params, _, sql = self._planned(sql)  # (`sql`: the text whose literals `params` are)
            if plan.kind != "select" or not plan.inline or plan.calc_found or self._locks(plan):
                return None
            args = self._args(plan, params, None, self._now(None), sql)
            self._rand_for(plan, None)
            view = self._read_view()
            if view is not None and view.epoch is None and not self.engine.snapshots.admit(view):
                return None  # (the gate is closed: `execute` waits at it)
            answer = self.engine._pool.query_on_loop(plan.sql, args, self._fx, self._database, view)
        except SQLError:
            return None  # a read without side effects: `execute` runs it again and raises it
        if answer is None:
            return None
        return self._selected(plan, *answer, sql, params)

    def prepare_read(self, sql: str, params: list[object], result: Result) -> PreparedRead | None:
        """`sql`, which `select_now` just answered with `result`, as a `PreparedRead` when its
        literals are `params` (the same values of the same types, in order), its plan takes
        nothing but them as arguments, names its columns (`_names_without_literals`) and types
        them without reading a literal or a row, does not lock, and has no side effect to repeat
        (LAST_INSERT_ID(expr), RAND()); else None. Another text of the same shape then reads
        through `read_prepared` with that text's literals."""
        plan, literals = self._plan(sql)
        typer = plan.result_types
        types = typer.static_types() if isinstance(typer, SelectTypes) else None
        if (literals != params or list(map(type, literals)) != list(map(type, params))
                or not plan.identity or not _names_without_literals(plan.names) or plan.locking or plan.into_vars
                or plan.sets_last_id or plan.uses_rand or types is None or types != result.column_types):
            return None
        types = list(types)
        return PreparedRead(plan, self._database, self.engine._catalog_version, list(result.columns), types,
                            coltypes.converter(types))

    def read_prepared(self, prepared: PreparedRead, params: list[object], ints: bool = False) -> Result | None:
        """`select_now` of a text whose shape is `prepared`'s and whose literals are `params`
        (the caller's word; `ints`: all of them ints, none held as text), without parsing it;
        None where `select_now` would decline, or when the catalog or the database changed since
        `prepare_read`."""
        rows = self.prepared_rows(prepared, params if ints else _bytes_where_not_utf8(params))
        if rows is None:
            return None
        # (`in_transaction` without the writer lock, which this session does not hold)
        return Result(columns=prepared.names, column_types=prepared.types, rows=rows,
                      in_transaction=self._in_txn, warnings=self._warnings() if self._fx.warnings else ())

    def prepared_rows(self, prepared: PreparedRead, args: Sequence[object], plain: bool = False) -> list | None:
        """The rows of `read_prepared` of `args` (its params as SQLite takes them), the session
        then as that leaves it; None where it declines. `plain`: only a read in autocommit outside
        a transaction (after which the session's status is AUTOCOMMIT alone) that warns of
        nothing (its caller needs no `Result` to carry warnings), else None (then
        `read_prepared`, which reads again: a read repeats without side effects)."""
        if (self._holds_lock or self.visible is not None
                or prepared.catalog != self.engine._catalog_version or prepared.database != self._database):
            return None
        in_view = self._in_txn or not self.autocommit
        if plain and in_view:
            return None
        view = self._read_view() if in_view else None
        if view is not None and view.epoch is None and not self.engine.snapshots.admit(view):
            return None  # (the gate is closed: `execute` waits at it)
        fx = self._fx
        fx.start_statement()  # (`_rand_for`'s start: `prepare_read` keeps no read that calls RAND())
        if fx.warnings:
            fx.warnings = []
        try:
            answer = self.engine._pool.query_on_loop(prepared.plan.sql, args, fx, self._database, view, False)  # names=False, without a keyword
        except SQLError:
            return None  # as select_now
        if answer is None or plain and fx.warnings:
            return None
        rows = answer[1]
        self.found, self.row_count = len(rows), -1
        convert = prepared.convert
        if convert is not None:
            rows = [convert(row) for row in rows]
        return rows

    async def _execute(self, sql: str, context: StatementContext | None, lock_reads: bool = True) -> Result:
        engine = self.engine
        expanded = self._expanded(sql)
        shape, params = extract(expanded)
        mode = self.write_mode if context is None else write_mode(context.sql_mode)  # (`_write_mode_of`, inline)
        plan = engine.plan_for(shape, self._database, params, self.visible, self.live_reader, mode,
                               self.owner() if engine.temporary_any else None)
        params, logged = self._charset_literals(plan, params)
        if logged and expanded is not sql:  # (its literals are numbered in the expanded text)
            raise SQLError(ER_NOT_SUPPORTED_YET, "a stored function's call with these literals")
        kind = plan.kind
        if kind == "write":
            return await self._write(sql, plan, params, context, logged, expanded)
        if kind == "select":
            if plan.into_vars:
                return self._into(plan.into_vars, await self._select(expanded, plan, params, context, lock_reads))
            return await self._select(expanded, plan, params, context, lock_reads)
        if kind == "begin":
            committed = await self._end_transaction(commit=True)
            self._begin_now()
            self._read_only = _READ_ONLY.search(shape) is not None
            if self.isolation == REPEATABLE_READ and "CONSISTENT" in shape.upper():
                await self._take_snapshot()
            return self._result(committed=committed)
        if kind in ("commit", "rollback"):
            read_only = self._read_only
            committed = await self._end_transaction(commit=kind == "commit")
            said = plan.sql.split()  # the clauses written (`core._completion`), else completion_type's
            if "chain" in said or self.completion == 1 and "no_chain" not in said:
                self._begin_now()  # the next transaction, in the same access mode
                self._read_only = read_only
            result = self._result(committed=committed)
            result.release = "release" in said or self.completion == 2 and "no_release" not in said
            return result
        if kind in ("savepoint", "rollback_to", "release"):
            return await self._savepoint(sql, plan, context)
        if kind == "ddl":
            return await self._ddl(sql, shape, params, context)
        if kind == "admin":
            return await self._admin(sql, shape, params, context)
        if kind == "explain":
            return await self._explain(expanded, shape, params, context)
        if kind == "do":  # DO expr, ...: the SELECT of them (the same literals), its rows dropped
            select = engine.plan_for(_do_select(shape), self._database, params, self.visible, self.live_reader,
                                     owner=self.owner())
            done = await self._select(expanded, select, params, context, lock_reads=False)
            return self._result(warnings=done.warnings)
        return self._result()

    async def _explain(self, sql: str, shape: str, params, context) -> Result:
        """EXPLAIN [EXTENDED|PARTITIONS] SELECT/UPDATE/DELETE/INSERT/REPLACE (engine/explain.py)."""
        engine = self.engine
        modifier = _EXPLAIN_PREFIX.match(shape).group(1)
        if modifier and modifier.upper() == "EXTENDED":
            raise SQLError(ER_NOT_SUPPORTED_YET, "EXPLAIN EXTENDED")
        inner = _EXPLAIN_PREFIX.sub("", shape, count=1)
        plan = engine.plan_for(inner, self._database, params, self.visible, self.live_reader, owner=self.owner())
        if plan.kind not in ("select", "write"):
            raise syntax_error(inner)
        args = self._args(plan, params, context, self._now(context), sql)
        read = plan.sql
        if plan.row_order is not None:  # an UPDATE ... ORDER BY: the rows it reads are its SELECT's
            read, args = plan.row_order, args[len(args) - plan.order_args:]
        self._fx.start_statement()
        _, steps = await engine._on_reader(engine._pool.query, "EXPLAIN QUERY PLAN " + read, args, self._fx,
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
        columns, types = list(explain.COLUMNS), list(explain.COLUMN_TYPES)
        if modifier:  # PARTITIONS: NULL after `table`, nothing is partitioned here
            columns.insert(3, "partitions")
            types.insert(3, explain.PARTITIONS_TYPE)
            rows = [(*row[:3], None, *row[3:]) for row in rows]
        return Result(columns=columns, column_types=types, rows=rows, in_transaction=self.in_transaction)

    async def _count_rows(self, schema: str | None, name: str | None) -> int | None:
        """The row count of a table SQLite's plan names (None when it names the main file)."""
        engine = self.engine
        table = engine.table(schema, name) if schema and name else None
        if table is None:
            return None
        _, counted = await engine._on_reader(
            engine._pool.query, f"SELECT count(*) FROM {quote_ident(table.schema)}.{quote_ident(table.name)}", [],
            self._fx, self._database)
        return counted[0][0]

    def _result(self, **kw) -> Result:
        return Result(in_transaction=self.in_transaction, **kw)

    def _into(self, names: tuple[str, ...], selected: Result) -> Result:
        """SELECT ... INTO @a, ...: the one row's values into the user variables, no rows
        answered; none, the warning 1329 and the variables unchanged; more than one, 1172 after
        the first row's values were set, as MariaDB's."""
        rows = selected.rows or []
        if rows and len(rows[0]) != len(names):
            raise SQLError(ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT)
        if not rows:
            return self._result(warnings=(*selected.warnings, ("Warning", ER_SP_FETCH_NO_DATA.code,
                                                                SQLError(ER_SP_FETCH_NO_DATA).message)))
        for name, value in zip(names, rows[0], strict=True):
            self.user_vars[name] = value
        if len(rows) > 1:
            raise SQLError(ER_TOO_MANY_ROWS)
        return self._result(warnings=selected.warnings)

    async def _take_snapshot(self) -> None:
        """START TRANSACTION WITH CONSISTENT SNAPSHOT: the transaction's read view of every
        database file is taken now (one read of each file's schema), not at its first read."""
        engine = self.engine
        files = ["main", *engine.schemas]
        if len(engine.schemas) > ATTACH_LIMIT:
            files = ["main", *([self._database] if self._database else [])]
            self._snapshot.fixed = set(files[1:])
        if self._snapshot.epoch is None:
            await engine.snapshots.enter(self._snapshot)
        await engine._on_reader(engine._pool.query, view_sql(files), [], None, self._database, self._snapshot)

    def _now(self, context: StatementContext | None) -> int:
        """The statement's time (NOW() and friends, the binlog's timestamp): a replayed
        statement's own, else the session's SET timestamp = n (as MariaDB's: what a replay of
        mariadb-binlog's output relies on), else the clock. Its microseconds (NOW(6)) are kept
        for the statement's arguments (`_micros`)."""
        if context is not None and context.timestamp is not None:
            self._micros = context.microseconds or 0
            return context.timestamp
        if self.fixed_time is not None:
            self._micros = self.fixed_micros
            return self.fixed_time
        now = time.time_ns() // 1000
        self._micros = now % 1_000_000
        return now // 1_000_000

    @contextmanager
    def one_statement_time(self) -> Iterator[None]:
        """The statements run inside take one statement's time: the clock's now, read once,
        unless SET timestamp already fixes it (LOAD DATA runs its rows as INSERTs of their own;
        MariaDB gives every row of its one statement the same DEFAULT CURRENT_TIMESTAMP)."""
        if self.fixed_time is not None:
            yield
            return
        self.fixed_time, self.fixed_micros = divmod(time.time_ns() // 1000, 1_000_000)
        try:
            yield
        finally:
            self.fixed_time, self.fixed_micros = None, 0

    def _args(self, plan: Plan, params: list[object], context: StatementContext | None,
              timestamp: int, sql: str = "") -> list[object]:
        """The plan's arguments from the statement's literals; the statement's warnings start
        here (a literal stored adjusted under IGNORE adds one)."""
        if self._fx.warnings:
            self._fx.warnings = []
        if plan.identity:
            return _bytes_where_not_utf8(params)
        steps = plan.arg_steps
        if steps is None:
            steps = plan.arg_steps = _arg_steps(plan)
        if steps:  # literals read inline (`values.literal_step`); the first one a step does not take: all read below
            held = []
            for step in steps:
                v = params[step[1]]
                kind = step[0]
                if kind == LITERAL:
                    if type(v) is str:
                        if not v.isascii():
                            v = _as_held(v)
                    elif type(v) is not int:
                        v = _as_held(v)
                elif kind == INTEGER:
                    if type(v) is not int or not step[2] <= v <= step[3]:
                        break
                elif kind == CHARS:
                    if type(v) is not str or not v.isascii():
                        break
                    if step[3]:
                        v = v.rstrip(" ")
                    if len(v) > step[2]:
                        break
                elif kind == NEGATED:
                    if type(v) is not int or not step[2] <= -v <= step[3]:
                        break
                    v = -v
                elif type(v) is not int:  # AS_IS
                    break
                held.append(v)
            else:
                return held
        if plan.hybrids:  # (never an identity plan)
            params = values.hybrid_params(params, plan.hybrids)
        args: list[object] = []
        texts: list[str] | None = None  # the literals' texts, read once, for a number with a point
        stored: dict[int, object] | None = None  # a literal stored twice (UPDATE's changed-rows test): once
        for source in plan.args:
            if type(source) is int:
                args.append(_as_held(params[source]))
            elif source[0] == STORE:  # (a literal into a column: the most frequent after a plain one)
                if stored is None:
                    stored = {}
                elif id(source) in stored:
                    args.append(stored[id(source)])
                    continue
                if texts is None and type(params[source[1]]) is float:
                    texts = literal_texts(sql)
                value = stored[id(source)] = values.stored_literal(source, params, texts, self._fx.warnings)
                args.append(value)
            elif source == NOW:
                args.append(_fmt_time(timestamp, "%Y-%m-%d %H:%M:%S"))
            elif source == UNIX_NOW:
                args.append(timestamp)
            elif source == NOW_US:
                args.append(self._micros)
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
            elif source == USER:
                args.append(self.user_text)
            elif source == CURRENT_USER:
                args.append(self.current_user_text)
            elif source == FOUND:
                args.append(self.found)
            elif source == ROW_COUNT:
                args.append(self.row_count)
            elif source[0] == "const":
                args.append(source[1])
            elif source[0] == "var":  # a DECIMAL's digits as text: SQLite would take a double
                value = self._user_var(source[1], context)
                args.append(format(value, "f") if type(value) is Decimal else value)
            elif source[0] == "sysvar":
                args.append(self._sysvar(source[1]))
            elif source[0] == "bytes":
                args.append(values.binary_literal(params[source[1]]))
            elif source[0] == TYPED:
                args.append(values.typed_literal(source[2], params[source[1]]))
            elif source[0] == FIXEDBIN:
                args.append(fixedbin.bound(source[2], params[source[1]], self._fx.warnings))
            elif source[0] == WRITTEN:
                if texts is None and any(type(params[n]) in _WRITTEN_NUMBERS for n in source[1] if n >= 0):
                    texts = literal_texts(sql)
                args.append("\n".join(texts[n] if n >= 0 and type(params[n]) in _WRITTEN_NUMBERS and texts
                                       and n < len(texts) else "" for n in source[1]))
            else:
                raise AssertionError(source)
        return args

    def _sysvar(self, text: str) -> object:
        if self.sysvar_reader is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "system variables inside this statement")
        return self.sysvar_reader(text)

    def _account_literal(self, call: str) -> str:
        """USER() / CURRENT_USER() (`call` as written) as the literal of its value here."""
        return _literal(self.current_user_text if call.upper().startswith("CURRENT_USER") else self.user_text)

    def _take_last_id(self) -> bool:
        """After a statement that called LAST_INSERT_ID(expr): its value becomes the session's."""
        value, self._fx.set_last_id = self._fx.set_last_id, None
        if value is None:
            return False
        self.last_insert_id = value
        return True

    def _bare_user_var(self, name: str) -> tuple[coltypes.ColumnType, object]:
        """A select-list item `@name`: its column (`uservar_type`) and value, the variable's as
        it holds it (a DECIMAL's own digits: SQLite read it as a double)."""
        assert self.uservar_type is not None
        value = self.user_vars.get(name.lower())
        ct = self.uservar_type(value, name.lower() in self.user_vars)
        return ct, format(value, "f") if isinstance(value, Decimal) else value

    def _user_var(self, name: str, context: StatementContext | None) -> object:
        if context is not None and name in context.user_vars:
            return context.user_vars[name]
        return self.user_vars.get(name)

    def _rand_for(self, plan: Plan, context: StatementContext | None) -> tuple[int, int] | None:
        self._fx.start_statement()
        if not plan.uses_rand:
            return None
        if context is not None and context.rand_seed is not None:
            self._fx.rand = functions.RandState(*context.rand_seed)
        return (self._fx.rand.seed1, self._fx.rand.seed2)

    async def _select(self, sql: str, plan: Plan, params, context, lock_reads: bool = True) -> Result:
        engine = self.engine
        timestamp = self._now(context)
        args = self._args(plan, params, context, timestamp, sql)
        self._rand_for(plan, context)
        if lock_reads and self._locks(plan):
            # SELECT ... FOR UPDATE: the rows must not change before this transaction ends, so it
            # becomes a writer now (and reads what it will update, as InnoDB's locking read does)
            if not self._in_txn:
                self._begin_now()
            await self._acquire(across=True, timeout=self._lock_wait_of(plan, params))
        if self._holds_lock:
            names, rows = await engine._on_writer(engine._r_query_writer, plan.sql, args, self._fx, self._database)
        else:
            snapshot = self._read_view()
            if snapshot is not None and snapshot.epoch is None:
                await engine.snapshots.enter(snapshot)  # (its first read: `engine.walbound`)
            answer = None
            if plan.inline:  # no hop unless it runs long (core's "Threads")
                answer = engine._pool.query_on_loop(plan.sql, args, self._fx, self._database, snapshot)
            if answer is None:
                answer = await engine._on_reader(engine._pool.query, plan.sql, args, self._fx, self._database,
                                                 snapshot)
            names, rows = answer
        result = self._selected(plan, names, rows, sql, params)
        if plan.calc_found and (m := _TRAILING_LIMIT.search(plan.sql)) is not None:
            count_sql = "SELECT count(*) FROM (" + plan.sql[:m.start()] + ")"
            count_args = args[:len(args) - plan.sql[m.start():].count("?")]
            if self._holds_lock:
                _, counted = await engine._on_writer(engine._r_query_writer, count_sql, count_args, self._fx,
                                                     self._database)
            else:
                _, counted = await engine._on_reader(engine._pool.query, count_sql, count_args, self._fx,
                                                     self._database, snapshot)
            self.found = counted[0][0]
        return result

    def _lock_wait_of(self, plan: Plan, params: list[object]) -> float | None:
        """A locking read's own wait (NOWAIT, WAIT n; None: lock_wait_timeout): NOWAIT is 1205
        at once when another session's transaction holds the writer lock or waits for it."""
        if plan.lock_wait is None or self._holds_lock:
            return None
        how, n = plan.lock_wait
        if how == "nowait":
            if any(isinstance(party, Session) for party in self.engine.writer_lock.parties()):
                raise SQLError(ER_LOCK_WAIT_TIMEOUT)
            return None
        seconds = params[n] if n is not None and n < len(params) else None
        return float(seconds) if isinstance(seconds, int | float) and seconds >= 0 else None

    def _locks(self, plan: Plan) -> bool:
        """A locking read (FOR UPDATE) that takes the writer lock here (inside a transaction)."""
        return plan.locking and (self._in_txn or not self.autocommit)

    def _read_view(self) -> Snapshot | None:
        """A read's view: the transaction's snapshot under REPEATABLE READ, else the latest
        commit (None). Without autocommit the read begins the transaction."""
        if self._in_txn is False and not self.autocommit:
            self._begin_now()
        return self._snapshot if self._in_txn and self.isolation == REPEATABLE_READ else None

    def _selected(self, plan: Plan, names: list[str], rows: list[tuple], sql: str, params) -> Result:
        """A read's Result from its rows: LAST_INSERT_ID(expr) taken, FOUND_ROWS() (the rows
        returned; SQL_CALC_FOUND_ROWS counts them again after) and ROW_COUNT() set."""
        if plan.sets_last_id:
            self._take_last_id()
        if self._fx.assigned is not None:  # @x := ...: the session's variables from now on
            self.user_vars.update(self._fx.assigned)
            self._fx.assigned = None
        self.found, self.row_count = len(rows), -1
        if plan.names is not None:
            names = _column_names(plan.names, names, sql, params)
        types, rows = result_types(plan, names, rows, sql, params, self.sysvar_type,
                                   self._bare_user_var if self.uservar_type is not None else None)
        return Result(columns=names, column_types=types, rows=rows, in_transaction=self.in_transaction,
                      warnings=self._warnings() if self._fx.warnings else ())

    def _warnings(self) -> tuple[tuple[str, int, str], ...]:
        """The statement's warnings and notes as SHOW WARNINGS lists them: by row, and in a row
        in the order they came (`SessionFunctions.warn`)."""
        if not self._fx.warnings:
            return ()
        if self.write_mode & QUIET_DIVISION:  # (no ERROR_FOR_DIVISION_BY_ZERO: x / 0 is NULL, unremarked)
            self._fx.warnings = [w for w in self._fx.warnings if w[2] != ER_DIVISION_BY_ZERO.code]
        return tuple(warning[1:] for warning in sorted(self._fx.warnings, key=_row_of))

    def _begin_now(self) -> None:
        """A transaction begins (BEGIN, or the first statement without autocommit)."""
        self._in_txn = True
        self._txn_started = time.time()
        self._kept_temporary = False
        self._savepoint_marks = []

    def open_transaction(self) -> OpenTransaction | None:
        """The session's open transaction as INNODB_TRX lists it; None when it has none (nor
        runs a write that holds or waits for the writer lock). A transaction is listed from
        its BEGIN (InnoDB lists one from its first read of a table)."""
        waiting = self._lock_wait is not None
        writer = self._holds_lock or waiting
        if not (self._in_txn or writer):
            return None
        return OpenTransaction(self._txn_started if self._in_txn else None, writer,
                               self._wait_started if waiting else None, self._read_only, self.isolation,
                               self.foreign_key_checks)

    async def _acquire(self, across: bool = False, timeout: float | None = None) -> None:
        """Take the writer lock for this statement's write; `across`: it is kept after the
        statement (a transaction's writes), so it is taken only once no committed group waits
        open in the writer's transaction (`Engine.settle`): that group could not commit before
        this transaction ends. `timeout`: the wait's limit, if not lock_wait_timeout (1205)."""
        if self._holds_lock:
            return
        lock = self.engine.writer_lock
        settle = self.engine.settle
        if self._take_free(across):  # free: nothing to wait for
            await self._lock_taken()
            return
        loop = asyncio.get_running_loop()
        limit = self._lock_wait_limit() if timeout is None else timeout
        deadline = loop.time() + limit
        self._wait_started = time.time()
        if across:
            settle.wanted += 1  # no group opens before this session holds the lock
        wait = None
        try:
            if across and settle.is_open:
                self._lock_wait = settle.closed()  # interrupt() cancels it
                await asyncio.wait_for(self._lock_wait, limit)
            if not lock.try_acquire(self):
                wait = self._lock_wait = lock.enqueue(self, max(0.0, deadline - loop.time()), counted=True)  # no task
                await wait  # cancelling the caller cancels the wait too
        except TimeoutError:
            if wait is not None:
                lock.abandon(wait, self)
            raise SQLError(ER_LOCK_WAIT_TIMEOUT) from None
        except asyncio.CancelledError:
            if wait is not None:
                lock.abandon(wait, self)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the session itself is cancelled (KILL CONNECTION, shutdown)
            raise SQLError(ER_QUERY_INTERRUPTED) from None  # interrupt(): KILL QUERY
        except BaseException:
            if wait is not None:
                lock.abandon(wait, self)
            raise
        finally:
            self._lock_wait = None
            if across:
                settle.wanted -= 1
        await self._lock_taken()

    def _lock_wait_limit(self) -> float:
        """How long a write waits for the writer lock: the session's innodb_lock_wait_timeout
        (the shell's variable, read when a wait begins), else the engine's."""
        if self.sysvar_reader is not None:
            seconds = self.sysvar_reader("@@innodb_lock_wait_timeout")
            if isinstance(seconds, int):
                return float(seconds)
        return self.engine.lock_wait_timeout

    def _take_free(self, across: bool) -> bool:
        """Take the writer lock now if nothing need be waited for (`_acquire`'s first step): it
        is free and nobody waits, and for `across` no group is open."""
        return not (across and self.engine.settle.is_open) and self.engine.writer_lock.try_acquire(self)

    async def _lock_taken(self) -> None:
        self._holds_lock = True
        names, self._named_savepoints = self._named_savepoints, []
        for name in names:  # the savepoints named before this first write, made real (the binlog has none of them)
            await self._savepoint_on_writer("savepoint", name, "SAVEPOINT " + mysql_ident(name), int(time.time()))

    def _release(self) -> None:
        self._unlogged = False
        if self._holds_lock and not self._pinned:
            self._holds_lock = False
            self.engine.writer_lock.release()

    def write_now(self, sql: str) -> Result | None:
        """`execute` of a write inside a transaction (`writes_in_transaction`) run by the loop at
        once: an inline plan (bounded: core's "Threads") while the writer lane is idle, without
        RETURNING, by a session that holds the writer lock or takes it now (free, nobody
        waiting, no group open, no savepoint named before it to make real); the same Result, or
        the same SQLError, as `execute`. None when it is not such a write (nothing of the
        session changed). The shell's path for a transaction's writes answered as they arrive
        (server/prepared.py)."""
        engine = self.engine
        if (not (self._in_txn or self._holds_lock or not self.autocommit)  # (`writes_in_transaction`)
                or self._read_only or not engine._writer.idle()
                or not self._holds_lock and engine.writer_lock.locked()):  # (before the plan: cheap)
            return None
        try:
            plan, params, logged, expanded = self._planned(sql)
        except SQLError:
            return None  # `execute` raises it
        return self._write_on_loop(sql, plan, params, logged, expanded)

    def write_kept(self, kept: KeptWrite, sql: str, values: list[object]) -> Result | None:
        """`write_now(sql)` of an execution of the prepared write `kept` whose placeholders hold
        `values`, each a non-negative int or a str with nothing to escape (the caller's word, as
        is that `sql` is `kept.pieces` around their literals): the same Result, SQLError or None.
        The first such execution, and the first after the session's database, sql_mode, the
        catalog or the stored functions changed or with values of other kinds, plans `sql` as
        `write_now` does and keeps what it can (`_keep_write`); the others take the kept plan
        with `values` in its slots, without reading the text. The text stays what is logged."""
        engine = self.engine
        if (not (self._in_txn or self._holds_lock or not self.autocommit)  # (`write_now`'s, inline)
                or self._read_only or not engine._writer.idle()
                or not self._holds_lock and engine.writer_lock.locked()):
            return None
        state = (self._database, engine._catalog_version, self.write_mode, engine.routines)
        if (kept.state != state or kept.kinds != tuple(map(type, values)) or self.connection_charset is not None
                or self.visible is not None) and not self._keep_write(kept, sql, values, state):
            return self.write_now(sql)
        params = kept.literals.copy()
        for n, value in zip(kept.slots, values, strict=True):
            params[n] = value
        plan = kept.plan
        if kept.kinds_read and not engine.reads_kinds(plan, params):  # type: ignore[arg-type]
            return self.write_now(sql)
        return self._write_on_loop(sql, plan, params, {}, sql)  # type: ignore[arg-type]

    def _keep_write(self, kept: KeptWrite, sql: str, values: list[object], state: tuple) -> bool:
        """Keep in `kept` the plan and literals of `sql`, its text with `values` in its
        placeholders (plain: `write_kept`), under the session's `state`, when the text's
        literals are the values where the placeholders stand and the same otherwise whatever
        the values of their kinds (the text bound with other values of the same kinds lexes to
        the same shape and differs in exactly those slots), it calls no stored function, is read in utf8
        (no introducer, a utf8 connection, no privilege narrowing) and its plan is the engine's
        cached one for its shape (the session's own while it has temporary tables, whose names
        its plan resolves first: `engine.temporary`; making or dropping one changes the
        catalog's version, so the state); False when not (nothing kept, not tried again under the same
        state and kinds)."""
        kinds = tuple(map(type, values))
        kept.plan, kept.state = None, ()
        if kept.refused == (state, kinds) or self.connection_charset is not None or self.visible is not None:
            return False
        kept.refused = (state, kinds)
        others = [str(v ^ 1) if type(v) is int else "'" + v + "_'" for v in values]  # type: ignore[operator]
        try:
            if self._expanded(sql) is not sql:
                return False
            shape, literals = extract(sql)
            other_shape, other_literals = extract(_joined(kept.pieces, others))
            if other_shape != shape or len(other_literals) != len(literals):
                return False
            slots = tuple(n for n, (a, b) in enumerate(zip(literals, other_literals, strict=True))
                          if a != b or type(a) is not type(b))
            if len(slots) != len(values) or any(
                    type(literals[n]) is not type(v) or literals[n] != v for n, v in zip(slots, values, strict=True)):
                return False
            engine = self.engine
            owner = self.owner() if engine.temporary_any else None
            plan = engine.plan_for(shape, self._database, literals, None, self.live_reader, self.write_mode, owner)
        except SQLError:
            return False
        if (plan.kind != "write" or plan.introduced
                or not engine.cached_plan(plan, shape, self._database, self.write_mode, owner)):
            return False
        kept.plan, kept.literals, kept.slots, kept.kinds, kept.state = plan, literals, slots, kinds, state
        kept.refused = None
        # the plan read the kind of a placeholder's literal other than an integer's being a number
        kept.kinds_read = any(n in slots and not (recorded is True and kinds[slots.index(n)] is int)
                              for n, recorded in plan.literal_kinds)
        return True

    def _write_on_loop(self, sql: str, plan: Plan, params: list[object], logged: dict[int, str],
                       expanded: str) -> Result | None:
        """`write_now` of `sql` planned (`_planned`'s four), once its tests of the session and
        the writer hold."""
        if plan.kind != "write" or not plan.inline or plan.returning is not None:
            return None
        if not self._holds_lock:  # `_acquire(across=True)` when it would not wait
            if self._named_savepoints or not self._take_free(True):
                return None
            self._holds_lock = True
        if not self._in_txn:
            self._begin_now()
        write = self._write_args(sql, plan, params, None, logged, expanded)
        return self._written(write, *self.engine._w_write(*write.call(False)))

    def _write_args(self, sql: str, plan: Plan, params, context, logged: dict[int, str], expanded: str) -> _Write:
        """A write's plan (the found-rows variant), arguments and what its binlog entry carries
        (`logged`: the literals it writes otherwise, `_charset_literals`); `expanded`: the text
        planned (`_expanded`), whose literals `params` are, the binlog's `sql`."""
        if plan.changed is not None:
            plan = plan.found if self.found_rows else plan.changed
        timestamp = self._now(context)
        try:
            args = self._args(plan, params, context, timestamp, expanded)
        except SQLError:
            if not plan.literals_up_front:
                raise
            return self._per_row_write(sql, context, expanded)
        if plan.literals_up_front and self._fx.warnings:
            return self._per_row_write(sql, context, expanded)
        rand_seed = self._rand_for(plan, context)
        written = expanded  # as the client wrote it: RETURNING's names read its literals
        if logged:
            sql = charset_literals.logged(sql, logged)
        if plan.sysvars:  # the binlog carries the values read here, not the names
            sql = inline_sysvars(sql, lambda text: _literal(self._sysvar(text)), self._account_literal)
        last_id = args_last_id(context, self.last_insert_id) if plan.uses_last_id else None
        micros = self._micros if plan.uses_fraction else None
        return _Write(self, plan, args, sql, written, params, context, timestamp, rand_seed, last_id, micros,
                      self._modes(context), self._step(context))

    def _per_row_planned(self, expanded: str, context: StatementContext | None) -> tuple[Plan, list[object], dict[int, str]]:
        """`_planned` for an UPDATE whose plan converts its literals before any row is read, one
        of which that refused or warned of (`Plan.literals_up_front`): its plan storing them per
        row updated (`results.PER_ROW`)."""
        shape, params = extract(expanded)
        plan = self.engine.plan_for(shape, self._database, params, self.visible, self.live_reader,
                                    self._write_mode_of(context) | PER_ROW, self.owner())
        params, logged = self._charset_literals(plan, params)
        return plan, params, logged

    def _per_row_write(self, sql: str, context: StatementContext | None, expanded: str) -> _Write:
        """`_write_args` of the `_per_row_planned` UPDATE, writing each matched row (its SET
        evaluated, and warned of, once per row)."""
        plan, params, logged = self._per_row_planned(expanded, context)
        if plan.found is not None:
            plan = replace(plan.found, writes_unchanged=True)
        return self._write_args(sql, plan, params, context, logged, expanded)

    async def _write(self, sql: str, plan: Plan, params, context, logged: dict[int, str], expanded: str) -> Result:
        engine = self.engine
        if self._read_only:
            if self._in_txn:
                raise SQLError(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION)
            self._read_only = False  # (its transaction ended by a DDL's implicit commit)
        write = self._write_args(sql, plan, params, context, logged, expanded)
        if not self.autocommit and not self._in_txn:
            self._begin_now()
        end = not self._in_txn
        if not self._holds_lock:  # (no coroutine for a session that holds it: a replicated transaction's)
            await self._acquire(across=not end)
        try:
            deadline = time.monotonic() + engine.lock_wait_timeout
            while True:
                try:
                    if write.plan.inline and engine._writer.idle():  # bounded: no hop (core's "Threads")
                        done = engine._w_write(*write.call(end))
                    else:
                        done = await engine._on_writer(engine._w_write, *write.call(end))
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
        return self._written(write, *done, end=end)

    def _written(self, write: _Write, affected: int, first_id: int | None, returned: Any,
                 inserted: int | None, last_row: int, *, end: bool = False) -> Result:
        """A write's Result once it ran: logged, LAST_INSERT_ID taken, and with `end` (an
        autocommit write) the transaction it ends, committed logically (the lock let go).
        `first_id` is the binlog's INSERT_ID (the first id handed out, whether or not its row went
        in); the client's id is MySQL's (`Engine._w_insert_ids`): a generated id of an inserted
        row, else LAST_INSERT_ID(expr)'s value, else the last row's id (`last_row`)."""
        plan, context = write.plan, write.context
        if self.sql_log_bin:  # `_log`, with the statement built only when it is logged
            fk_checks, zero_is_value, sql_mode = write.modes
            self._statements.append(LoggedStatement(
                db=self._database, sql=write.sql, timestamp=write.timestamp, insert_id=first_id,
                last_insert_id=write.last_id, is_ddl=False, rand_seed=write.rand_seed,
                user_vars=tuple((name, self._user_var(name, context)) for name in plan.user_vars) if plan.user_vars
                else (), foreign_key_checks=fk_checks, no_auto_value_on_zero=zero_is_value, sql_mode=sql_mode,
                microseconds=write.micros, auto_increment=write.step,
                **(_temporary_marks(plan, end) if self.engine.temporary_any else {})))
        else:
            self._unlogged = True
        client_id = last_row
        if plan.sets_last_id and self._take_last_id():
            client_id = self.last_insert_id
        if inserted is not None:  # (over LAST_INSERT_ID(expr), as MySQL's end of statement)
            self.last_insert_id = client_id = inserted
        committed = None
        if end:
            committed = self.engine.handover.hand(CommittedTxn(self._statements))
            self._statements = []
            self._release()
        copied = affected  # (an upsert's: rows inserted or updated, unchanged ones too)
        if plan.upsert:  # MySQL: 1 per row inserted, 2 per row updated, 0 per row left unchanged
            changed, unchanged = self._fx.upserts_changed, self._fx.upserts_unchanged
            copied -= unchanged  # (the rows inserted or changed)
            affected += changed - (0 if self.found_rows else unchanged)
        if plan.counts_rows:  # an UPDATE: "Rows matched: 2  Changed: 1  Warnings: 0"
            changed = self._fx.upserts_changed
            matched = changed + self._fx.upserts_unchanged
            if not plan.writes_unchanged:  # (UPDATE IGNORE of a table with triggers: 1235)
                # rows UPDATE IGNORE left as they were (a key they would meet), counted as changing
                changed -= (matched if self.found_rows else changed) - affected
            affected = matched if self.found_rows else changed
        for row, name in plan.nulls_stored:
            self._fx.warnings.append((row, "Warning", ER_BAD_NULL_ERROR.code, SQLError(ER_BAD_NULL_ERROR, name).message))
        for row, name, table in plan.generated_ignored:
            self._fx.warnings.append((row, "Warning", ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN.code,
                                      SQLError(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN, name, table).message))
        for name in plan.defaults_taken:
            self._fx.warnings.append((0, "Warning", ER_NO_DEFAULT_FOR_FIELD.code,
                                      SQLError(ER_NO_DEFAULT_FOR_FIELD, name).message))
        if plan.unsafe and self.sql_log_bin:  # (MariaDB's notes 1592: only for a statement it binlogs)
            self._fx.warnings.extend((math.inf, "Note", ER_BINLOG_UNSAFE_STATEMENT.code, note) for note in plan.unsafe)
        info = ""
        if plan.nrows > 1 or plan.selects:  # what MySQL says after a multi-row INSERT / REPLACE: the rows that met a key
            records = plan.nrows or self._fx.records
            if plan.replaces:
                duplicates = affected - records  # (each replaced row: deleted, then inserted)
            elif plan.upsert and plan.ignore:  # IGNORE's: the rows neither inserted nor changed
                duplicates = records - copied
            elif plan.upsert:
                duplicates = self._fx.upserts_changed  # (rows the UPDATE left as they were: none)
            else:
                duplicates = records - affected  # IGNORE's rows left out
            info = f"Records: {records}  Duplicates: {max(duplicates, 0)}  Warnings: {len(self._fx.warnings)}"
        elif plan.counts_rows:
            shown = len(self._fx.warnings)
            if plan.notes_after_info and plan.unsafe and self.sql_log_bin:
                shown -= len(plan.unsafe)
            info = f"Rows matched: {matched}  Changed: {changed}  Warnings: {shown}"
        self.row_count = affected
        if returned is not None:  # ... RETURNING: the rows written, as a result set
            self.row_count = -1  # ROW_COUNT() after a result set, as MariaDB's
            names, rows = returned
            names, types, rows = returned_columns(plan.returning, names, rows, write.written, write.params)
            return Result(columns=names, column_types=types, rows=rows, affected_rows=affected,
                          last_insert_id=client_id, in_transaction=self.in_transaction, committed=committed)
        return Result(affected_rows=affected, last_insert_id=client_id, info=info,
                      in_transaction=self._in_txn or self._holds_lock, committed=committed,
                      warnings=self._warnings() if self._fx.warnings else ())

    async def describe(self, sql: str) -> Result | None:
        """The result columns of a write that returns rows (INSERT/REPLACE/DELETE ... RETURNING),
        found without writing (COM_STMT_PREPARE); None for any other statement. An unknown
        column of the list is 1054 in 'RETURNING', as MariaDB's prepare says."""
        engine = self.engine
        plan, params = self._plan(sql)
        described = plan.returning
        if described is None:
            return None
        args = self._args(described, params, None, int(time.time()), sql)
        try:
            names, _ = await engine._on_reader(engine._pool.query, described.sql, args, self._fx,
                                               self._database)
        except SQLError as exc:
            if exc.error is ER_BAD_FIELD_ERROR:  # its SELECT reads nothing but the list
                column = exc.message[len("Unknown column '"):exc.message.rindex("' in '")]
                raise SQLError(ER_BAD_FIELD_ERROR, column, "RETURNING") from None
            raise
        names, types, _ = returned_columns(described, names, [], sql, params)
        await self.access(sql)  # the whole write compiles (an aggregate in the list is 1111)
        return Result(columns=names, column_types=types)

    def sets_variables(self, sql: str) -> bool:
        """Whether `sql` is a SELECT ... INTO @a, ... (a prepare must not run it: no columns, and
        its variables are set when it executes); False when it does not plan."""
        try:
            plan, _ = self._plan(sql)
        except SQLError:
            return False
        return bool(plan.into_vars)

    async def describe_select(self, sql: str) -> Result:
        """A SELECT's result columns, their names and MySQL types (a table column's with its
        `origin`), without reading its rows: what CREATE TABLE ... SELECT makes its columns of."""
        engine = self.engine
        plan, params = self._plan(sql)
        if plan.kind != "select":
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE TABLE ... SELECT of anything but a SELECT")
        args = self._args(plan, params, None, self._now(None), sql)
        self._rand_for(plan, None)
        names, _ = await engine._on_reader(engine._pool.query, f"SELECT * FROM ({plan.sql}) LIMIT 0", args,
                                           self._fx, self._database)
        return self._selected(plan, names, [], sql, params)

    async def _savepoint(self, sql: str, plan: Plan, context) -> Result:
        """SAVEPOINT / ROLLBACK TO / RELEASE SAVEPOINT inside a transaction: SQLite savepoints
        nested in the transaction's own, logged like statements (a replica re-runs them)."""
        if not (self._in_txn or not self.autocommit):
            if plan.kind == "savepoint":
                return self._result()  # MySQL: a savepoint outside a transaction ends with it
            raise SQLError(ER_SP_DOES_NOT_EXIST, "SAVEPOINT", plan.sql)
        if not self._in_txn:
            self._begin_now()
        if not self._holds_lock:
            # nothing written in this transaction yet: the savepoint is only a name until its
            # first write (taking the writer now would end a REPEATABLE READ snapshot, e.g.
            # mariadb-dump's SAVEPOINT sp / ROLLBACK TO SAVEPOINT sp around each table)
            self._name_savepoint(plan.kind, plan.sql)
            return self._result()
        timestamp = self._now(context)
        await self._savepoint_on_writer(plan.kind, plan.sql, sql, timestamp)
        self._binlog_savepoint(plan.kind, plan.sql, timestamp)
        if plan.kind == "rollback_to" and self._kept_temporary:  # (MariaDB's, whatever it undid)
            return self._result(warnings=(("Warning", ER_WARNING_NOT_COMPLETE_ROLLBACK.code,
                                           ER_WARNING_NOT_COMPLETE_ROLLBACK.format()),))
        return self._result()

    async def _savepoint_on_writer(self, kind: str, name: str, sql: str, timestamp: int) -> None:
        """The savepoint on the writer, `sql` in the engine's redo record (which keeps what a
        rollback to it undid: the binlog's is `_binlog_savepoint`)."""
        log = (self._database, sql, timestamp, None, None, None)
        await self.engine._on_writer(self.engine._w_savepoint, kind, name, log)

    def _binlog_savepoint(self, kind: str, name: str, timestamp: int) -> None:
        """What the binlog keeps of SAVEPOINT / ROLLBACK TO / RELEASE SAVEPOINT `name`, as
        MariaDB 10.11's binlog_savepoint_set / binlog_savepoint_rollback write it: SAVEPOINT
        `name` (quoted, without a database) once the transaction has logged a statement, none
        before; ROLLBACK TO cuts the statements logged since the savepoint out of the
        transaction (all of them for one set before it logged anything), unless it made or
        dropped a temporary table (`_kept_temporary`), which a rollback cannot undo: then
        ROLLBACK TO `name` is logged, for a replica to run; RELEASE logs nothing."""
        key = name.lower()
        marks = self._savepoint_marks
        at = next((i for i in range(len(marks) - 1, -1, -1) if marks[i][0] == key), None)
        if kind == "savepoint":
            if at is not None:
                del marks[at]  # (a name set again moves to the end)
            if self._statements:
                self._log(LoggedStatement(db=None, sql="SAVEPOINT " + mysql_ident(name), timestamp=timestamp,
                                          base_write=False))
                marks.append((key, len(self._statements)))
            else:
                marks.append((key, None))
            return
        mark = None if at is None else marks[at][1]
        if at is not None:
            del marks[at + 1 if kind == "rollback_to" else at:]
        if kind == "release" or not self._statements:
            return
        if self._kept_temporary:
            self._log(LoggedStatement(db=None, sql="ROLLBACK TO " + mysql_ident(name), timestamp=timestamp,
                                      base_write=False))
        else:
            del self._statements[mark or 0:]

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
        snapshot = self._snapshot
        if snapshot.epoch is not None:
            self.engine.snapshots.leave(snapshot)
        reader, snapshot.reader = snapshot.reader, None
        snapshot.fixed = None
        if reader is None:
            return
        if snapshot.running:  # a query of it runs on a reader thread (a cancelled one): ended there; nobody waits
            self.engine._on_reader(self.engine._pool.end_snapshot, reader).add_done_callback(_consume)
        else:  # (a read transaction's COMMIT waits for nothing: `connections`' header)
            self.engine._pool.end_snapshot(reader)

    def begin_now(self, sql: str) -> Result | None:
        """`execute` of BEGIN / START TRANSACTION when the transaction it ends wrote nothing
        (no writer lock to let go, nothing to commit) and it takes no snapshot at once (WITH
        CONSISTENT SNAPSHOT): the same Result, at once. None for any other statement (nothing
        of the session changed). The shell's path for a BEGIN answered as it arrives."""
        if self._holds_lock or "CONSISTENT" in sql.upper() or self._kind(sql) != "begin":
            return None
        self._end_unwritten()
        self._begin_now()
        self._read_only = _READ_ONLY.search(sql) is not None
        return self._result()

    def commit_now(self, sql: str) -> Result | None:
        """`execute` of COMMIT at once (its engine part never waits: the writer's savepoint is
        released at its next operation, the lock let go): the same Result, whose `committed`
        the caller hands to the group commit in this same step. None for any other statement
        (nothing of the session changed). The shell's path for a COMMIT answered as it arrives."""
        planned = self._transaction_plan(sql)
        if planned is None or planned[0] != "commit" or planned[1] or self.completion:  # (CHAIN, RELEASE: `execute`'s)
            return None
        return self._result(committed=self._end_committed())

    def _kind(self, sql: str) -> str | None:
        """The kind of `sql`'s plan; None when it cannot be planned (`execute` raises that)."""
        planned = self._transaction_plan(sql)
        return None if planned is None else planned[0]

    def _transaction_plan(self, sql: str) -> tuple[str, str] | None:
        """The kind and SQLite text of `sql`'s plan; None when it cannot be planned. Those of a
        BEGIN or COMMIT are kept by their text (at most TRANSACTION_PLANS): neither the catalog,
        the database nor the sql_mode changes them, and a text that plans as one calls no stored
        function."""
        planned = self._transaction_plans.get(sql)
        if planned is not None:
            return planned
        try:
            plan = self._plan(sql)[0]
        except SQLError:
            return None
        planned = (plan.kind, plan.sql)
        if plan.kind in ("begin", "commit") and len(self._transaction_plans) < TRANSACTION_PLANS:
            self._transaction_plans[sql] = planned
        return planned

    def _end_view(self) -> None:
        """A transaction's end, for its reads: no longer in one, its names and snapshot dropped."""
        self._in_txn = False
        self._kept_temporary = False
        self._read_only = False
        self._named_savepoints = []
        self._end_snapshot()

    def _end_unwritten(self) -> None:
        """The end of a transaction that holds no writer lock (wrote nothing)."""
        self._end_view()
        self._statements = []

    async def _end_transaction(self, commit: bool) -> CommittedTxn | None:
        if commit:
            return self._end_committed()
        if not self._holds_lock:
            self._end_unwritten()
            return None
        kept = self._kept_temporary
        self._end_view()
        engine = self.engine
        statements, unlogged = self._statements, self._unlogged
        try:
            await engine._on_writer(engine._w_end, False)
        finally:
            self._statements = []
            self._release()
        if not kept:
            return None
        # what it did to temporary tables stays: binlogged with the statements, ended by
        # ROLLBACK (MariaDB's binlog_rollback of a transaction that cannot safely roll back)
        if statements:
            statements.append(LoggedStatement(db=self._database, sql="ROLLBACK", timestamp=self._now(None)))
        return engine.handover.hand(CommittedTxn(statements)) if statements or unlogged else None

    def _end_committed(self) -> CommittedTxn | None:
        """COMMIT's end of the transaction, at once: what it wrote, logically committed (the
        writer's savepoint released at its next operation: no hop), the lock let go."""
        if not self._holds_lock:
            self._end_unwritten()
            return None
        self._end_view()
        self.engine._sp_done = True
        statements, self._statements = self._statements, []
        unlogged = self._unlogged
        self._release()
        if statements or unlogged:
            return self.engine.handover.hand(CommittedTxn(statements))
        return None

    async def _ddl(self, sql: str, shape: str, params, context, logged: Logged | None = None) -> Result:
        """DDL: commits the open transaction first (returned in the same CommittedTxn, or carried
        by the SQLError as `.committed` when the DDL itself fails) and is never rolled back.
        `logged`: an admin statement MariaDB binlogs, run as a DDL that changes nothing and
        answered with its rows."""
        engine = self.engine
        timestamp = self._now(context)
        tokens = tokenize(shape)

        def parse() -> DdlAction:
            if logged is not None:
                return DdlAction(logged.schema, noop=True)
            cur = TokenCursor(tokens, params, sql)
            parser = DdlParser(cur, self._database, engine.table, set(engine.schemas))
            parser.foreign_key_checks = self._fk_checks(context)
            parser.temporary = engine.temporary_of(self.temporary_owner)
            parser.temporary_name = functools.partial(temporary.stored_name, self.temporary_owner)
            parser.all_tables = lambda: [t for tables in engine.catalog.values() for t in tables.values()]
            parser.view_of = engine.view
            parser.trigger_of = engine.trigger
            parser.routine_of = engine.routine
            parser.triggers_in = lambda schema: engine.triggers.get(schema, {}).values()
            parser.sql_mode = _mode_text(self._sql_mode(context))
            parser.database_options = engine.options_of
            parser.shape = shape
            if self.current_user_text:
                user, _, host = self.current_user_text.rpartition("@")
                parser.current_user = account_text(user, host)
                parser.creator_checks = self.creator_checks
            return parsing(parser.parse)

        if ((self._in_txn or not self.autocommit) and not self._pinned and logged is None
                and temporary.keeps_transaction(shape)):
            return await self._ddl_kept(sql, parse, context, timestamp)
        parsed = parse()  # a syntax error commits nothing
        if self.connection_charset is not None and not sql.isascii():
            charset_literals.check_ddl(parsed, engine.table)  # nor a connection's literal it would keep
        self._end_snapshot()
        await self._acquire()
        try:
            action = parse()
            action.view_selects = [found for view in action.put_views
                                   if (found := self._view_select(view, timestamp)) is not None]
            # (the redo record keeps the statement whole where the binlog splits it)
            log = (self._database, sql if action.logged_first else action.logged or sql, timestamp, None, None,
                   self.owner())
            sql = action.logged or sql
            affected = _schema_rows(engine, action)
            await engine._on_writer(engine._w_ddl, action, log)
        except SQLError as exc:
            statements, self._statements = self._statements, []
            unlogged = self._unlogged
            self._in_txn = False
            self._release()
            exc.committed = (  # type: ignore[attr-defined]
                engine.handover.hand(CommittedTxn(statements)) if statements or unlogged else None)
            raise
        except BaseException:
            self._statements = []
            self._in_txn = False
            self._release()
            raise
        if action.binlogged:
            for text, bare in [*action.logged_first, (sql, action.logged_bare)]:
                self._log(LoggedStatement(db=None if bare else self._database, sql=text, timestamp=timestamp,
                                          is_ddl=True, foreign_key_checks=self._fk_checks(context),
                                          sql_mode=self._sql_mode(context)))
        self.row_count = 0
        if action.drop_schema is not None and action.drop_schema == self._database:
            self.database = None  # (MariaDB's: no default database then)
        elif action.database_options is not None and action.schema == self._database:
            self.collation_database = self.engine.options_of(action.schema).collation
        committed = engine.handover.hand(CommittedTxn(self._statements))
        self._statements = []
        self._in_txn = False
        self._release()
        if action.late_error is not None:
            action.late_error.committed = committed  # type: ignore[attr-defined]
            raise action.late_error
        if logged is not None:
            return replace(logged.result, committed=committed, in_transaction=self.in_transaction)
        return Result(committed=committed, in_transaction=self.in_transaction,
                      affected_rows=affected + action.rows_copied,
                      warnings=(*(("Note", note.code, note.message) for note in action.notes), *action.warnings),
                      info=f"Records: {action.rows_copied}  Duplicates: {action.duplicates}  "
                           f"Warnings: {len(action.notes) + len(action.warnings)}" if action.records else "")

    async def _ddl_kept(self, sql: str, parse: Callable[[], DdlAction], context, timestamp: int) -> Result:
        """CREATE / DROP TEMPORARY TABLE in a transaction: MariaDB commits nothing for them. The
        statement joins the transaction (binlogged in its group), and a rollback keeps what it
        made or dropped (`Engine._w_ddl_kept`), binlogging the transaction then with ROLLBACK
        (`_end_transaction`) so that a replica makes or drops the table too. Without autocommit
        it is the transaction's first statement as any write is."""
        engine = self.engine
        if not self._in_txn:
            self._begin_now()
        await self._acquire(across=True)
        if sql.lstrip().upper().startswith("DROP"):  # (even one that drops none, or fails: MariaDB's)
            self._kept_temporary = True
        action = parse()
        log = (self._database, sql, timestamp, None, None, self.owner())
        await engine._on_writer(engine._w_ddl_kept, action, log)
        if action.binlogged:
            self._log(LoggedStatement(db=None if action.logged_bare else self._database, sql=action.logged or sql,
                                      timestamp=timestamp, foreign_key_checks=self._fk_checks(context),
                                      sql_mode=self._sql_mode(context), base_write=False, temporary_ddl=True))
        self._kept_temporary = self._kept_temporary or not action.noop
        self.row_count = 0
        return Result(in_transaction=self.in_transaction,
                      warnings=tuple(("Note", note.code, note.message) for note in action.notes))

    def _view_select(self, view: View, timestamp: int) -> tuple[str, list[object]] | None:
        """The SQL and arguments of `view`'s SELECT as reading the view runs it (in its own
        database), for `DdlAction.view_selects`: its planning raises what MariaDB's CREATE VIEW
        does of its names (`VIEW_NAME_ERRORS`); None where it fails otherwise (nothing checked)."""
        shape, params = extract(view.select)
        try:
            plan = self.engine.plan_for(shape, view.schema, params, self.visible, self.live_reader)
        except SQLError as exc:
            if exc.code in VIEW_NAME_ERRORS:
                raise
            return None
        return plan.sql, self._args(plan, params, None, timestamp, view.select)

    async def _admin(self, sql: str, shape: str, params, context) -> Result:
        answer = parsing(run_admin, self, TokenCursor(tokenize(shape), params, sql), shape)
        if isinstance(answer, AsSelect):  # (its literals: the statement's, in order, then its own)
            plan = self.engine.plan_for(answer.shape, self._database, answer.params, self.visible, self.live_reader)
            return await self._select(sql, plan, answer.params, context, lock_reads=False)
        if isinstance(answer, ChecksumTables):
            return await self._checksums(answer)
        if isinstance(answer, Logged):  # ANALYZE / OPTIMIZE / REPAIR TABLE, binlogged as MariaDB's
            return await self._ddl(sql, shape, params, context, answer)
        return answer

    async def _checksums(self, answer: ChecksumTables) -> Result:
        """CHECKSUM TABLE: each table's read (`engine.checksum`) in this statement's view, the
        transaction's snapshot, or on the writer while this session holds the writer lock."""
        engine = self.engine
        snapshot = None if self._holds_lock else self._read_view()
        if snapshot is not None and snapshot.epoch is None:
            await engine.snapshots.enter(snapshot)
        rows, warnings = [], []
        for table in answer.tables:
            value = table.value
            if table.sql is not None:
                if self._holds_lock:
                    _, found = await engine._on_writer(engine._r_query_writer, table.sql, table.args, self._fx,
                                                       self._database)
                else:
                    _, found = await engine._on_reader(engine._pool.query, table.sql, table.args, self._fx,
                                                       self._database, snapshot)
                value = found[0][0]
            if table.error is not None:
                warnings.append(("Error", table.error.code, table.error.message))
            rows.append((table.name, value))
        return checksum_answer(rows, warnings, self)

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

    def clear_interrupt(self) -> None:
        """The statement `interrupt` was for has ended (the session's statement boundary)."""
        self._fx.clear_interrupt()

    async def close(self) -> CommittedTxn | None:
        """Roll back an open transaction, release the writer lock and the named locks. Returned:
        the rolled-back transaction the caller must still binlog (`_end_transaction`), or None."""
        functions.LOCKS.release_all(self._fx)
        return await self._end_transaction(commit=False)


def result_types(plan: Plan, names: list[str], rows: list[tuple], sql: str, params: list[object],
                 sysvar_type: Callable[[str], coltypes.ColumnType] | None = None,
                 user_var: Callable[[str], tuple[coltypes.ColumnType, object]] | None = None,
                 ) -> tuple[list[coltypes.ColumnType], list[tuple]]:
    """Each result column's MySQL type (from the schema and the expression; a bare `@@name` item
    by `sysvar_type`; a bare `@name` item, in a statement that assigns none, by `user_var`, its
    value the variable's; for an expression the typer does not know, the one type all its values
    fit) and the rows in that type's text form (DECIMAL scale, binary strings as bytes,
    fractional seconds ...)."""
    typed: list[coltypes.ColumnType | None] = []
    typer = plan.result_types
    if typer is not None:
        typed = typer.types(values.hybrid_params(params, plan.hybrids) if plan.hybrids else params,
                            lambda: literal_texts(sql))
    if len(typed) != len(names):
        typed = [None] * len(names)
    if sysvar_type is not None and isinstance(typer, SelectTypes) and len(typer.items) == len(typed):
        typed = [sysvar_type(item[0].text) if t is None and len(item) == 1 and item[0].kind == "sysvar" else t
                 for t, item in zip(typed, typer.items, strict=True)]
    types = [t if t is not None else coltypes.from_rows(rows, i) for i, t in enumerate(typed)]
    convert = coltypes.converter(types)
    if convert is not None:
        rows = [convert(row) for row in rows]
    if user_var is not None and plan.user_vars and isinstance(typer, SelectTypes) \
            and len(typer.items) == len(types) and "mysql_set_var(" not in plan.sql:
        for i, item in enumerate(typer.items):
            if len(item) == 1 and item[0].kind == "var":
                types[i], value = user_var(item[0].text)
                rows = [(*row[:i], value, *row[i + 1:]) for row in rows]
    return types, rows


def returned_columns(described: Plan, names: list[str], rows: list[tuple], sql: str,
                     params: list[object]) -> tuple[list[str], list[coltypes.ColumnType], list[tuple]]:
    """A RETURNING list's column names, types and rows, as its SELECT's (`Plan.returning`)."""
    if described.names is not None:
        names = _column_names(described.names, names, sql, params)
    types, rows = result_types(described, names, rows, sql, params)
    return names, types, rows


# the literals a WRITTEN argument gives the text of: numbers with a point or an exponent
# (a Decimal: `lexer.decode_number`'s long number)
_WRITTEN_NUMBERS = (float, Decimal)


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
    if isinstance(v, bytes):  # (X'..', or a hybrid read as a string: `values.hybrid_params`)
        return values.binary_value(v)
    return v


def _utf8_name(text: str) -> str:
    raw = text.encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "replace").replace("\ufffd", "?")


def _arg_steps(plan: Plan) -> tuple:
    """`Plan.arg_steps`: a step per argument source when each is a literal or a literal stored
    as a column holds it that `values.literal_step` serves (no hybrid literals); else ()."""
    if plan.hybrids:
        return ()
    steps: list[tuple] = []
    for source in plan.args:
        step: tuple | None
        if type(source) is int:
            step = (LITERAL, source)
        elif type(source) is tuple and source[0] == STORE:
            step = values.literal_step(source)
        else:
            step = None
        if step is None:
            return ()
        steps.append(step)
    return tuple(steps)


def _joined(pieces: tuple[str, ...], texts: list[str]) -> str:
    """`pieces` (a prepared statement's text around its placeholders) with `texts` between them."""
    out = [pieces[0]]
    for text, piece in zip(texts, pieces[1:], strict=True):
        out.append(text)
        out.append(piece)
    return "".join(out)


def _bytes_where_not_utf8(params: list[object]) -> list[object]:
    for v in params:
        if (type(v) is str and not v.isascii()) or type(v) is bytes:
            return [_as_held(p) for p in params]
    return params


def args_last_id(context: StatementContext | None, session_value: int) -> int:
    if context is not None and context.last_insert_id is not None:
        return context.last_insert_id
    return session_value


def _temporary_marks(plan: Plan, autocommit: bool) -> dict[str, bool]:
    """What the binlog says of a write `plan` for the temporary tables it names
    (`LoggedStatement.base_write`, `.temporary_autocommit`; `autocommit`: it ends its transaction)."""
    if plan.multi is not None:
        only_temporary = all(temporary.is_temporary(target.name) for target in plan.multi.targets)
    else:
        only_temporary = temporary.is_temporary(plan.target[1])
    return {"base_write": not only_temporary,
            "temporary_autocommit": autocommit and temporary.PREFIX in plan.sql}  # (its SQL names one)


def _schema_rows(engine: Engine, action: DdlAction) -> int:
    """The affected rows MariaDB reports for a DDL action: 1 for CREATE DATABASE, the tables and
    views DROP DATABASE drops, else 0."""
    if action.noop:
        return 0
    if action.create_schema is not None:
        return 1
    if action.drop_schema is not None:
        return len(engine.catalog.get(action.drop_schema, {})) + len(engine.views.get(action.drop_schema, {}))
    return 0


def _do_select(text: str) -> str:
    """`DO expr, ...` (a statement or its shape) as the SELECT of its expressions: the same
    literals in the same places (DO is the first token: no literal comes before it)."""
    return "SELECT" + text[tokenize(text)[0].end:]


_READ_ONLY = re.compile(r"\bREAD\s+ONLY\b", re.I)  # START TRANSACTION READ ONLY [, ...]




def _fmt_time(ts: int, fmt: str) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime(fmt)


def _names_without_literals(templates: list[Any] | None) -> bool:
    """No column name of `Plan.names` is read from a literal (`_column_names`' templates)."""
    return templates is None or all(
        t is None or (t[0] == "text" and not any(isinstance(part, int) for part in t[1])) for t in templates)


def _column_names(templates: list[Any], names: list[str], sql: str, params: list[Any]) -> list[str]:
    if len(templates) != len(names):
        return names
    raw: list[str] | None = None
    out = []
    for template, name in zip(templates, names, strict=False):
        if template is None:
            out.append(name)
            continue
        if template[0] == "introduced":  # a string named by its value, a hex or bit literal as written
            if raw is None:
                raw = literal_texts(sql)
            template = ("value", template[1]) if raw[template[1]][:1] in "'\"" else ("text", template[2])
        if template[0] == "value" and isinstance(params[template[1]], str):
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


def _row_of(warning: tuple) -> int:
    """A statement's warning's row (they are listed in the rows' order, as MariaDB lists them)."""
    return warning[0]


def _mode_text(sql_mode: int | None) -> str:
    """sql_mode's bits as @@sql_mode writes them (None: the default's)."""
    if sql_mode is None:
        return "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
    return ",".join(sql_mode_names(sql_mode))
