"""How a committed transaction is written to the binlog (statement-based, as MySQL 5.7 does).

Contract
- `transaction_events(statements, ...)` turns the statements of one binlog transaction (a run of
  DML statements, see `CommittedTxn.binlog_transactions`) into `EventSpec`s for
  `BinlogWriter.append`: the transaction's GTID event (MariaDB's layout, see below), or QUERY
  `BEGIN` when it has no GTID; per statement INTVAR LAST_INSERT_ID and INTVAR INSERT_ID
  when the statement used or generated one, RAND when it used RAND(), USER_VAR for each @variable
  it read, then the QUERY (its db, its timestamp, so NOW() replicates); then XID (MySQL's order),
  or QUERY `COMMIT` for one that wrote no row of a base table (`LoggedStatement.base_write`:
  MariaDB's InnoDB takes no part in its commit), or QUERY `ROLLBACK` for a rolled-back
  transaction binlogged for what it did to temporary tables (its last statement `ROLLBACK`:
  engine/temporary.py). A DDL statement is one QUERY and nothing else.
- A GTID (MariaDB 10.11's Gtid_log_event, as its binlog shows) replaces the BEGIN QUERY: flags2
  FL_TRANSACTIONAL | FL_ALLOW_PARALLEL for a DML transaction (our engine is transactional),
  FL_DDL | FL_ALLOW_PARALLEL for one that made or dropped a temporary table, FL_ALLOW_PARALLEL
  alone for an autocommit statement that named one (`LoggedStatement.temporary_ddl`,
  `.temporary_autocommit`), FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL before a lone DDL or user statement
  (no XID, no COMMIT); header flag LOG_EVENT_SUPPRESS_USE_F; no commit_id (a replica may run
  them in parallel within the domain's order only).
- Every QUERY carries the status variables a replica needs to execute it as we did: flags2 0
  (autocommit, unique and foreign key checks on; OPTION_NO_FOREIGN_KEY_CHECKS for a statement run
  with foreign_key_checks=0, as MariaDB writes it), sql_mode the bits of the session's sql_mode
  (`LoggedStatement.sql_mode`; a statement without one, the default sql_mode's, with
  NO_AUTO_VALUE_ON_ZERO where it ran under it), as MariaDB writes them: a replica then stores what
  the statement stored (an id for its 0 into an AUTO_INCREMENT column under NO_AUTO_VALUE_ON_ZERO,
  values adjusted without strict mode), catalog `std`, auto_increment_increment / _offset the
  session's (`LoggedStatement.auto_increment`: a replica numbers the rows after INSERT_ID by them),
  utf8mb4 character sets, and time zone `+00:00` (our NOW() is UTC). MariaDB's `mysqlbinlog`
  turns them into `SET @@session...` lines; a MariaDB replica applies them per event.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from protocol.events import (
    DECIMAL_RESULT,
    DEFAULT_SQL_MODE,
    FL_ALLOW_PARALLEL,
    FL_DDL,
    FL_STANDALONE,
    FL_TRANSACTIONAL,
    INT_RESULT,
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    LOG_EVENT_SUPPRESS_USE_F,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    REAL_RESULT,
    SQL_MODE_NO_AUTO_VALUE_ON_ZERO,
    STRING_RESULT,
    TYPE_GTID,
    TYPE_INTVAR,
    TYPE_QUERY,
    TYPE_XID,
    USER_VAR_UNSIGNED_F,
    EventType,
    Gtid,
    Rand,
    UserVar,
    encode_packed_decimal,
    encode_status_vars,
    gtid_body,
    intvar_body,
    query_body,
    xid_body,
)

UTF8MB4_GENERAL_CI = 45
BINARY = 63

def _status_vars(fk_checks: bool, sql_mode: int, auto_increment: tuple[int, int]) -> bytes:
    return encode_status_vars(
        flags2=0 if fk_checks else OPTION_NO_FOREIGN_KEY_CHECKS,
        sql_mode=sql_mode,
        catalog="std",
        auto_increment=auto_increment,
        charset=(UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI),
        time_zone="+00:00",
    )


# a statement's status variables by (foreign_key_checks, sql_mode bits, auto_increment_increment
# and _offset): the only session state a statement carries beside its INTVAR / RAND / USER_VAR
# events; built once per triple seen (a server's sessions run under a few sql_modes; past
# _STATUS_VARS_KEPT triples they are built each time)
_STATUS_VARS: dict[tuple[bool, int, tuple[int, int]], bytes] = {}
_STATUS_VARS_KEPT = 64


def status_vars(fk_checks: bool, sql_mode: int, auto_increment: tuple[int, int] = (1, 1)) -> bytes:
    got = _STATUS_VARS.get((fk_checks, sql_mode, auto_increment))
    if got is None:
        got = _status_vars(fk_checks, sql_mode, auto_increment)
        if len(_STATUS_VARS) < _STATUS_VARS_KEPT:
            _STATUS_VARS[fk_checks, sql_mode, auto_increment] = got
    return got


STATUS_VARS = status_vars(True, DEFAULT_SQL_MODE)  # a statement of the defaults

# (type_code, body, timestamp, flags): binlog.writer.EventSpec
EventSpec = tuple[int, bytes, int, int]


def query_event(sql: str, db: str | None, timestamp: int, thread_id: int, fk_checks: bool = True,
                zero_is_value: bool = False, sql_mode: int | None = None,
                microseconds: int | None = None, auto_increment: tuple[int, int] = (1, 1)) -> EventSpec:
    """`sql_mode`: the session's sql_mode bits (None: the default sql_mode's, with
    NO_AUTO_VALUE_ON_ZERO where `zero_is_value`), written as MariaDB writes them; `microseconds`:
    the fraction of `timestamp` the statement read (MariaDB's Q_HRNOW, last of the status
    variables here as there); `auto_increment`: the session's auto_increment_increment and
    _offset."""
    if sql_mode is None:
        sql_mode = DEFAULT_SQL_MODE | SQL_MODE_NO_AUTO_VALUE_ON_ZERO if zero_is_value else DEFAULT_SQL_MODE
    status = status_vars(fk_checks, sql_mode, auto_increment)
    if microseconds is not None:
        status += encode_status_vars(microseconds=microseconds)
    return (TYPE_QUERY, query_body(thread_id, db or "", sql, status), timestamp, 0)


# a statement's QUERY body up to its text (the fixed part, the status variables, the database
# name) by what decides it: the thread id, the database and the status variables' session state;
# the same bytes for every statement a session runs in one database under one sql_mode (a
# statement that read its time's microseconds carries them: built whole). Cleared when it holds
# _QUERY_HEADS_KEPT (connections come and go with their thread ids).
_QUERY_HEADS: dict[tuple[int, str | None, bool, bool, int | None, tuple[int, int]], bytes] = {}
_QUERY_HEADS_KEPT = 256


def statement_query(stmt: Any, thread_id: int, timestamp: int) -> EventSpec:
    """The QUERY event of an engine `LoggedStatement` (with what its session ran it under):
    `query_event`'s, its body the kept head (`_QUERY_HEADS`) and the text."""
    if stmt.microseconds is None:
        key = (thread_id, stmt.db, stmt.foreign_key_checks, stmt.no_auto_value_on_zero, stmt.sql_mode,
               stmt.auto_increment)
        head = _QUERY_HEADS.get(key)
        if head is None:
            if len(_QUERY_HEADS) >= _QUERY_HEADS_KEPT:
                _QUERY_HEADS.clear()
            # (`query_body` of an empty text: the body's bytes before the text)
            head = _QUERY_HEADS[key] = query_event("", stmt.db, timestamp, thread_id, stmt.foreign_key_checks,
                                                   stmt.no_auto_value_on_zero, stmt.sql_mode,
                                                   auto_increment=stmt.auto_increment)[1]
        try:
            return (TYPE_QUERY, head + stmt.sql.encode("utf-8", "surrogateescape"), timestamp, 0)
        except UnicodeEncodeError:
            pass  # (`query_body` refuses it: below)
    return query_event(stmt.sql, stmt.db, timestamp, thread_id, stmt.foreign_key_checks,
                       stmt.no_auto_value_on_zero, stmt.sql_mode, stmt.microseconds, stmt.auto_increment)


def user_var(name: str, value: object) -> UserVar:
    """The USER_VAR event body that sets `@name` to `value` (as the statement read it)."""
    if value is None:
        return UserVar(name, is_null=True, flags=None)
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        unsigned = value >= 1 << 63
        raw = (value & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
        return UserVar(name, type=INT_RESULT, charset=BINARY, value=raw, flags=USER_VAR_UNSIGNED_F if unsigned else 0)
    if isinstance(value, float):
        return UserVar(name, type=REAL_RESULT, charset=BINARY, value=struct.pack("<d", value))
    if isinstance(value, Decimal):  # precision, scale, the packed digits (MariaDB's DECIMAL_RESULT)
        precision, scale, packed = encode_packed_decimal(value)
        return UserVar(name, type=DECIMAL_RESULT, charset=BINARY, value=bytes((precision, scale)) + packed)
    if isinstance(value, bytes | bytearray | memoryview):
        return UserVar(name, type=STRING_RESULT, charset=BINARY, value=bytes(value))
    return UserVar(name, type=STRING_RESULT, charset=UTF8MB4_GENERAL_CI,
                   value=str(value).encode("utf-8", "surrogateescape"))


GTID_FLAGS_TRANSACTION = FL_TRANSACTIONAL | FL_ALLOW_PARALLEL
# the last statement of a transaction binlogged although rolled back (a temporary table it made
# or dropped stays: `engine.session.Session._ddl_kept`), written as its own QUERY in place of XID
ROLLBACK = "ROLLBACK"
# the end of a transaction that wrote no row of a base table (`LoggedStatement.base_write`), in
# place of XID, as MariaDB's binlog_commit ends one that its InnoDB took no part in
COMMIT = "COMMIT"
GTID_FLAGS_STANDALONE = FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL
# a transaction that made or dropped a temporary table (`LoggedStatement.temporary_ddl`)
GTID_FLAGS_TEMPORARY_DDL = FL_DDL | FL_ALLOW_PARALLEL


def gtid_event(gtid: Gtid, flags2: int, timestamp: int) -> EventSpec:
    """The GTID event that starts an event group (its server_id is the header's: the writer's
    `server_id` argument must be `gtid.server_id`)."""
    return (TYPE_GTID, gtid_body(gtid.seq_no, gtid.domain_id, flags2), timestamp, LOG_EVENT_SUPPRESS_USE_F)


def transaction_events(
    statements: Sequence[Any], *, xid: int, thread_id: int, gtid: Gtid | None = None
) -> list[EventSpec]:
    """The events of one binlog transaction (statements are engine `LoggedStatement`s), started
    by `gtid`'s GTID event (None: by BEGIN, a binlog without GTIDs). A replicated transaction's
    events carry its origin's thread id (`LoggedStatement.thread_id`), as MariaDB's replica
    writes them with log_slave_updates, so that its replicas keep temporary tables by it."""
    first = statements[0]
    if first.thread_id is not None:
        thread_id = first.thread_id
    if first.is_ddl:
        query = statement_query(first, thread_id, first.timestamp)
        if gtid is None:
            return [query]
        return [gtid_event(gtid, GTID_FLAGS_STANDALONE, first.timestamp), query]
    events: list[EventSpec] = []  # (its GTID or BEGIN put first at the end: the flags depend on the statements)
    last = statements[-1]
    rolled_back = last.sql == ROLLBACK
    base_write = temporary_ddl = False
    for stmt in statements[:-1] if rolled_back else statements:
        ts = stmt.timestamp
        base_write = base_write or stmt.base_write
        temporary_ddl = temporary_ddl or stmt.temporary_ddl
        if stmt.last_insert_id is not None:
            events.append((TYPE_INTVAR, intvar_body(INTVAR_LAST_INSERT_ID, stmt.last_insert_id), ts, 0))
        if stmt.insert_id is not None:
            events.append((TYPE_INTVAR, intvar_body(INTVAR_INSERT_ID, stmt.insert_id), ts, 0))
        if stmt.rand_seed is not None:
            seed1, seed2 = stmt.rand_seed
            events.append((EventType.RAND_EVENT, Rand(seed1, seed2).encode(), ts, 0))
        for name, value in stmt.user_vars:
            events.append((EventType.USER_VAR_EVENT, user_var(name, value).encode(), ts, 0))
        events.append(statement_query(stmt, thread_id, ts))
    if rolled_back:
        events.append(query_event(ROLLBACK, None, last.timestamp, thread_id))
    elif base_write:
        events.append((TYPE_XID, xid_body(xid), last.timestamp, 0))
    else:
        events.append(query_event(COMMIT, None, last.timestamp, thread_id))
    if gtid is None:
        events.insert(0, query_event("BEGIN", first.db, first.timestamp, thread_id))
    else:
        flags2 = (GTID_FLAGS_TEMPORARY_DDL if temporary_ddl else FL_ALLOW_PARALLEL if last.temporary_autocommit
                  else GTID_FLAGS_TRANSACTION)
        events.insert(0, gtid_event(gtid, flags2, first.timestamp))
    return events
