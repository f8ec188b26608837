"""What goes into and comes out of the engine: plain values, nothing that touches SQLite.

`Result` is one statement's answer; `CommittedTxn` (its `LoggedStatement`s, in order) is what a
commit hands to the binlog; `StatementContext` is what a replayed statement needs to reproduce
the master's rows (the binlog's TIMESTAMP, INTVAR, RAND and USER_VAR context), and a
`ReplicatedStatement` carries it to `Engine.apply_transactions`; `Access` is what a statement
reads and writes, for the shell's privilege check. They live apart from the engine and its
sessions so that the modules answering statements (`engine.admin`) and the engine's callers
(server, master, slave) take values without importing the engine."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from protocol.events import SQL_MODES

# A replicated statement: (sql, context, default database[, table whose row it must find]).
ReplicatedStatement = tuple[Any, ...]


@dataclass
class StatementContext:
    """Values that make a replayed statement reproduce the master's rows."""

    timestamp: int | None = None
    insert_id: int | None = None
    last_insert_id: int | None = None
    rand_seed: tuple[int, int] | None = None
    user_vars: dict[str, object] = field(default_factory=dict)
    foreign_key_checks: bool = True  # off: the master ran it with foreign_key_checks=0 (Q_FLAGS2)
    no_auto_value_on_zero: bool = False  # the master ran it with sql_mode NO_AUTO_VALUE_ON_ZERO (Q_SQL_MODE)
    sql_mode: int | None = None  # the sql_mode bits it ran under (Q_SQL_MODE); None: the default's strictness
    microseconds: int | None = None  # the fraction of `timestamp` the statement read (Q_HRNOW)
    # the master's auto_increment_increment and _offset (Q_AUTO_INCREMENT): the ids after INSERT_ID
    auto_increment: tuple[int, int] = (1, 1)
    # a row event's change: the master's triggers' rows come in their own events, so none fire
    # (MariaDB's slave_run_triggers_for_rbr=NO)
    row_image: bool = False
    # the master's thread that ran it and that master's server_id (its Query event's): its names
    # resolve to that thread's temporary tables (engine/temporary.py); None: the applier's own
    thread_id: int | None = None
    server_id: int = 0
    # the session whose temporary tables its names find, given outright (`Engine.replay_owner`:
    # a replay of our own binlog); None: the master thread's above
    temporary_owner: str | None = None


def statement_time(stamp: int | list[int]) -> tuple[int, int | None]:
    """A statement's time as the engine's redo record keeps it: its timestamp, or [timestamp,
    microseconds] when it read them -> (timestamp, microseconds or None)."""
    return (stamp, None) if isinstance(stamp, int) else (stamp[0], stamp[1])


@dataclass(slots=True)
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
    no_auto_value_on_zero: bool = False  # sql_mode NO_AUTO_VALUE_ON_ZERO when it ran: 0 an id, not a request
    # the session's sql_mode bits, written in its QUERY as they are (None: a session that set
    # none, written as the default sql_mode's)
    sql_mode: int | None = None
    microseconds: int | None = None  # the fraction of its time it read (NOW(6) ...): binlogged as Q_HRNOW
    # the thread that ran it on its origin server, a replicated statement's (its QUERY event's
    # thread id, which a replica keeps temporary tables by): binlogged with it; None: the session's
    thread_id: int | None = None
    auto_increment: tuple[int, int] = (1, 1)  # auto_increment_increment and _offset: Q_AUTO_INCREMENT
    # it wrote a row of a base table (False: a temporary table's only, or none: CREATE / DROP
    # TEMPORARY TABLE and savepoints in a transaction): a binlog transaction of none such ends
    # with QUERY COMMIT, not XID, as MariaDB's, whose InnoDB stays out of the two-phase commit
    # when only temporary tables were written
    base_write: bool = True
    # for its group's GTID flags, as MariaDB's Gtid_log_event sets them: `temporary_ddl`, a
    # CREATE / DROP TEMPORARY TABLE inside the transaction (the group's GTID says ddl, not
    # trans); `temporary_autocommit`, an autocommit statement that read or wrote a temporary
    # table (neither ddl nor trans: a replica does not run it optimistically in parallel)
    temporary_ddl: bool = False
    temporary_autocommit: bool = False

    def context(self) -> StatementContext:
        return StatementContext(self.timestamp, self.insert_id, self.last_insert_id, self.rand_seed,
                                dict(self.user_vars), self.foreign_key_checks, self.no_auto_value_on_zero,
                                self.sql_mode, self.microseconds, auto_increment=self.auto_increment)


# How a write stores what the default sql_mode (STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO)
# refuses, as a plan's translation follows it (`write_mode`; 0: the default's, refused):
# LAX_VALUES, no STRICT_TRANS_TABLES / STRICT_ALL_TABLES: a value out of its column's range or
# kind stored adjusted with a warning (`engine.values.adjusted`), a NULL for a NOT NULL column of
# a multi-row INSERT and a NOT NULL column without a default left out stored as its implicit
# default (warnings 1048, 1364); DIVISION_NULL, not both strict and ERROR_FOR_DIVISION_BY_ZERO:
# a division by zero in a write is NULL. QUIET_DIVISION (no ERROR_FOR_DIVISION_BY_ZERO: a
# division by zero is no warning) changes only a statement's warnings. SIGNED_SUBTRACTION
# (NO_UNSIGNED_SUBTRACTION): a subtraction with an unsigned operand is a BIGINT, not a BIGINT
# UNSIGNED (`engine.exact.Finder.arithmetic`).
LAX_VALUES, DIVISION_NULL, QUIET_DIVISION, SIGNED_SUBTRACTION = 1, 2, 4, 16
# Not an sql_mode's: the plan of a single-table UPDATE whose SET literals are stored (and refused)
# per row updated, as MariaDB stores them, instead of before any row is read (`Plan.literals_up_front`)
PER_ROW = 8
_STRICT = 1 << SQL_MODES.index("STRICT_TRANS_TABLES") | 1 << SQL_MODES.index("STRICT_ALL_TABLES")
_DIVISION_ERROR = 1 << SQL_MODES.index("ERROR_FOR_DIVISION_BY_ZERO")
_NO_UNSIGNED_SUBTRACTION = 1 << SQL_MODES.index("NO_UNSIGNED_SUBTRACTION")


def write_mode(sql_mode: int | None) -> int:
    """The `LAX_VALUES` | `DIVISION_NULL` | `QUIET_DIVISION` | `SIGNED_SUBTRACTION` of the
    sql_mode bits `sql_mode` (None: the default sql_mode, 0)."""
    if sql_mode is None:
        return 0
    mode = 0 if sql_mode & _STRICT else LAX_VALUES | DIVISION_NULL
    if not sql_mode & _DIVISION_ERROR:
        mode |= DIVISION_NULL | QUIET_DIVISION
    if sql_mode & _NO_UNSIGNED_SUBTRACTION:
        mode |= SIGNED_SUBTRACTION
    return mode


# the sql_mode flags that change how a statement is read or what it answers, which the engine
# does not follow: a session may not set them (1235, `server.core_variables`) and the applier
# stops at a replicated statement written under one, rather than answer otherwise than MariaDB
UNFOLLOWED_SQL_MODES = ("PIPES_AS_CONCAT", "ANSI_QUOTES", "HIGH_NOT_PRECEDENCE", "NO_BACKSLASH_ESCAPES",
                        "PAD_CHAR_TO_FULL_LENGTH", "EMPTY_STRING_IS_NULL")


@dataclass
class CommittedTxn:
    """What one call committed (logically), in order. `binlog_transactions()` splits it the way
    the binlog must carry it: each run of DML statements is one BEGIN ... XID transaction, each
    DDL statement its own QUERY event (a DDL statement commits the transaction before it)."""

    statements: list[LoggedStatement]
    # the engine's `concurrency.Handover` while on its way to the committer's queue, else None
    handover: Any = field(default=None, repr=False, compare=False)

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
    # the statement's notes and warnings, (level, code, message) as SHOW WARNINGS lists them
    warnings: tuple[tuple[str, int, str], ...] = ()
    # COMMIT / ROLLBACK ... RELEASE: the connection ends after this answer (a class attribute,
    # not a field: no statement's Result pays for it; set on the instance that releases)
    release = False



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
