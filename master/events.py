"""How a committed transaction is written to the binlog (statement-based, as MySQL 5.7 does).

Contract
- `transaction_events(statements, ...)` turns the statements of one binlog transaction (a run of
  DML statements, see `CommittedTxn.binlog_transactions`) into `EventSpec`s for
  `BinlogWriter.append`: QUERY `BEGIN`; per statement INTVAR LAST_INSERT_ID and INTVAR INSERT_ID
  when the statement used or generated one, RAND when it used RAND(), then the QUERY (its db, its
  timestamp, so NOW() replicates); then XID. A DDL statement is one QUERY and nothing else.
- Every QUERY carries the status variables a replica needs to execute it as we did: flags2 0
  (autocommit, unique and foreign key checks on), sql_mode 0, catalog `std`, auto_increment 1/1,
  utf8mb4 character sets, and time zone `+00:00` (our NOW() is UTC). MariaDB's `mysqlbinlog`
  turns them into `SET @@session...` lines; a MariaDB replica applies them per event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.events import (
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    EventType,
    Intvar,
    Query,
    Rand,
    Xid,
    encode_status_vars,
)

UTF8MB4_GENERAL_CI = 45

STATUS_VARS = encode_status_vars(
    flags2=0,
    sql_mode=0,
    catalog="std",
    auto_increment=(1, 1),
    charset=(UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI, UTF8MB4_GENERAL_CI),
    time_zone="+00:00",
)

# (type_code, body, timestamp, flags): binlog.writer.EventSpec
EventSpec = tuple[int, bytes, int, int]


def query_event(sql: str, db: str | None, timestamp: int, thread_id: int) -> EventSpec:
    body = Query(thread_id=thread_id, db=db or "", query=sql, status_vars=STATUS_VARS).encode()
    return (EventType.QUERY_EVENT, body, timestamp, 0)


def transaction_events(statements: Sequence[Any], *, xid: int, thread_id: int) -> list[EventSpec]:
    """The events of one binlog transaction (statements are engine `LoggedStatement`s)."""
    first = statements[0]
    if first.is_ddl:
        return [query_event(first.sql, first.db, first.timestamp, thread_id)]
    events = [query_event("BEGIN", first.db, first.timestamp, thread_id)]
    for stmt in statements:
        ts = stmt.timestamp
        if stmt.last_insert_id is not None:
            events.append((EventType.INTVAR_EVENT, Intvar(INTVAR_LAST_INSERT_ID, stmt.last_insert_id).encode(), ts, 0))
        if stmt.insert_id is not None:
            events.append((EventType.INTVAR_EVENT, Intvar(INTVAR_INSERT_ID, stmt.insert_id).encode(), ts, 0))
        if getattr(stmt, "rand_seed", None) is not None:
            seed1, seed2 = stmt.rand_seed
            events.append((EventType.RAND_EVENT, Rand(seed1, seed2).encode(), ts, 0))
        events.append(query_event(stmt.sql, stmt.db, ts, thread_id))
    events.append((EventType.XID_EVENT, Xid(xid).encode(), statements[-1].timestamp, 0))
    return events
