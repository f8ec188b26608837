"""How a committed transaction is written to the binlog (statement-based, as MySQL 5.7 does).

Contract
- `transaction_events(statements, ...)` turns the statements of one binlog transaction (a run of
  DML statements, see `CommittedTxn.binlog_transactions`) into `EventSpec`s for
  `BinlogWriter.append`: the transaction's GTID event (MariaDB's layout, see below), or QUERY
  `BEGIN` when it has no GTID; per statement INTVAR LAST_INSERT_ID and INTVAR INSERT_ID
  when the statement used or generated one, RAND when it used RAND(), USER_VAR for each @variable
  it read, then the QUERY (its db, its timestamp, so NOW() replicates); then XID (MySQL's order). A DDL statement is one QUERY and nothing else.
- A GTID (MariaDB 10.11's Gtid_log_event, as its binlog shows) replaces the BEGIN QUERY: flags2
  FL_TRANSACTIONAL | FL_ALLOW_PARALLEL for a DML transaction (our engine is transactional; XID
  at its end), FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL before a lone DDL or user statement
  (no XID, no COMMIT); header flag LOG_EVENT_SUPPRESS_USE_F; no commit_id (a replica may run
  them in parallel within the domain's order only).
- Every QUERY carries the status variables a replica needs to execute it as we did: flags2 0
  (autocommit, unique and foreign key checks on; OPTION_NO_FOREIGN_KEY_CHECKS for a statement run
  with foreign_key_checks=0, as MariaDB writes it), sql_mode 0 (NO_AUTO_VALUE_ON_ZERO for a statement
  run under it: its 0 into an AUTO_INCREMENT column is that id), catalog `std`, auto_increment 1/1,
  utf8mb4 character sets, and time zone `+00:00` (our NOW() is UTC). MariaDB's `mysqlbinlog`
  turns them into `SET @@session...` lines; a MariaDB replica applies them per event.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from protocol.events import (
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
    encode_status_vars,
    gtid_body,
    intvar_body,
    query_body,
    xid_body,
)

UTF8MB4_GENERAL_CI = 45
BINARY = 63

def _status_vars(fk_checks: bool, zero_is_value: bool) -> bytes:
    return encode_status_vars(
        flags2=0 if fk_checks else OPTION_NO_FOREIGN_KEY_CHECKS,
        sql_mode=SQL_MODE_NO_AUTO_VALUE_ON_ZERO if zero_is_value else 0,
        catalog="std",
        auto_increment=(1, 1),
        charset=(UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI),
        time_zone="+00:00",
    )


# a statement's status variables by (foreign_key_checks, sql_mode NO_AUTO_VALUE_ON_ZERO): the
# only session state a statement carries beside its INTVAR / RAND / USER_VAR events
_STATUS_VARS = {(fk, zero): _status_vars(fk, zero) for fk in (True, False) for zero in (True, False)}
STATUS_VARS = _STATUS_VARS[True, False]  # a statement of the defaults

# (type_code, body, timestamp, flags): binlog.writer.EventSpec
EventSpec = tuple[int, bytes, int, int]


def query_event(sql: str, db: str | None, timestamp: int, thread_id: int, fk_checks: bool = True,
                zero_is_value: bool = False, microseconds: int | None = None) -> EventSpec:
    """`microseconds`: the fraction of `timestamp` the statement read (MariaDB's Q_HRNOW, last
    of the status variables here as there)."""
    status = _STATUS_VARS[fk_checks, zero_is_value]
    if microseconds is not None:
        status += encode_status_vars(microseconds=microseconds)
    body = query_body(thread_id, db or "", sql, status)
    return (TYPE_QUERY, body, timestamp, 0)


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
    if isinstance(value, bytes | bytearray | memoryview):
        return UserVar(name, type=STRING_RESULT, charset=BINARY, value=bytes(value))
    return UserVar(name, type=STRING_RESULT, charset=UTF8MB4_GENERAL_CI,
                   value=str(value).encode("utf-8", "surrogateescape"))


GTID_FLAGS_TRANSACTION = FL_TRANSACTIONAL | FL_ALLOW_PARALLEL
GTID_FLAGS_STANDALONE = FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL


def gtid_event(gtid: Gtid, flags2: int, timestamp: int) -> EventSpec:
    """The GTID event that starts an event group (its server_id is the header's: the writer's
    `server_id` argument must be `gtid.server_id`)."""
    return (TYPE_GTID, gtid_body(gtid.seq_no, gtid.domain_id, flags2), timestamp, LOG_EVENT_SUPPRESS_USE_F)


def transaction_events(
    statements: Sequence[Any], *, xid: int, thread_id: int, gtid: Gtid | None = None
) -> list[EventSpec]:
    """The events of one binlog transaction (statements are engine `LoggedStatement`s), started
    by `gtid`'s GTID event (None: by BEGIN, a binlog without GTIDs)."""
    first = statements[0]
    if first.is_ddl:
        query = query_event(first.sql, first.db, first.timestamp, thread_id, getattr(first, "foreign_key_checks", True),
                            getattr(first, "no_auto_value_on_zero", False))
        if gtid is None:
            return [query]
        return [gtid_event(gtid, GTID_FLAGS_STANDALONE, first.timestamp), query]
    if gtid is None:
        events = [query_event("BEGIN", first.db, first.timestamp, thread_id)]
    else:
        events = [gtid_event(gtid, GTID_FLAGS_TRANSACTION, first.timestamp)]
    for stmt in statements:
        ts = stmt.timestamp
        if stmt.last_insert_id is not None:
            events.append((TYPE_INTVAR, intvar_body(INTVAR_LAST_INSERT_ID, stmt.last_insert_id), ts, 0))
        if stmt.insert_id is not None:
            events.append((TYPE_INTVAR, intvar_body(INTVAR_INSERT_ID, stmt.insert_id), ts, 0))
        if getattr(stmt, "rand_seed", None) is not None:
            seed1, seed2 = stmt.rand_seed
            events.append((EventType.RAND_EVENT, Rand(seed1, seed2).encode(), ts, 0))
        for name, value in getattr(stmt, "user_vars", ()):
            events.append((EventType.USER_VAR_EVENT, user_var(name, value).encode(), ts, 0))
        events.append(query_event(stmt.sql, stmt.db, ts, thread_id, getattr(stmt, "foreign_key_checks", True),
                                  getattr(stmt, "no_auto_value_on_zero", False), getattr(stmt, "microseconds", None)))
    events.append((TYPE_XID, xid_body(xid), statements[-1].timestamp, 0))
    return events
