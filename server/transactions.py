"""information_schema.INNODB_TRX, INNODB_LOCKS and INNODB_LOCK_WAITS: the sessions' open
transactions and their waits for the engine's one writer lock, in MariaDB 10.11's columns.

Contract: the rows are read from the sessions (`engine.session.Session.open_transaction`) and
from the writer lock's queue (`WriterLock.parties`) at the moment of the statement; the asking
session needs PROCESS (1227 otherwise, as MariaDB's). A transaction that writes (holds or waits
for the writer lock) has a non-zero `trx_id`, as InnoDB gives one at its first write; a reading
one shows 0, as InnoDB's read-only transactions do. The ids are handed out in the order the
transactions are first listed and kept while they stay open (`TransactionIds`).

The writer lock is one lock over every table, granted strictly in arrival order: a waiting
session waits for its holder and for every session queued before it, so INNODB_LOCK_WAITS has
one row per (waiter, session ahead of it) and INNODB_LOCKS one row per lock in such a pair, each
shown as an exclusive TABLE lock on no particular table (lock_table "`*`.`*`"). Holders that are
not client sessions (the slave's applier, the group commit, FLUSH TABLES WITH READ LOCK) have no
transaction row, so no wait on them is listed; their waiters still show LOCK WAIT.
"""

from __future__ import annotations

import itertools
import time
from datetime import datetime
from typing import TYPE_CHECKING

from engine.session import OpenTransaction

if TYPE_CHECKING:
    from server.session import ClientSession
    from server.session_host import SessionHost

# what lock_table says of the writer lock: it covers every table
WRITER_LOCK_TABLE = "`*`.`*`"
_ISOLATION = {"READ-UNCOMMITTED": "READ UNCOMMITTED", "READ-COMMITTED": "READ COMMITTED",
              "REPEATABLE-READ": "REPEATABLE READ", "SERIALIZABLE": "SERIALIZABLE"}


# a transaction, as long as it is open: (connection id, its BEGIN's wall-clock time or None,
# the start of the autocommit write it is (monotonic) or None)
TransactionKey = tuple[int, float | None, float | None]


class TransactionIds:
    """The ids of the writing transactions listed so far: one per `TransactionKey`, increasing,
    kept while the transaction is open."""

    def __init__(self) -> None:
        self._next = itertools.count(1)
        self._ids: dict[TransactionKey, int] = {}

    def assign(self, open_now: list[TransactionKey]) -> dict[TransactionKey, int]:
        """Ids for the writing transactions open now (in the order given); the others forgotten."""
        self._ids = {key: self._ids.get(key) or next(self._next) for key in open_now}
        return self._ids


def _listed(server: SessionHost, ids: TransactionIds
            ) -> list[tuple[ClientSession, OpenTransaction, float, int]]:
    """(session, its transaction, the transaction's start, its id) of every open transaction,
    by start. An autocommit write's transaction began with its statement."""
    wall, now = time.time(), time.monotonic()
    found = []
    for cid, s in sorted(server.sessions.items()):
        es = s.engine_session
        trx = es.open_transaction() if es is not None else None
        if trx is not None:
            key = (cid, trx.started, None if trx.started is not None else s.since)
            started = trx.started if trx.started is not None else wall - (now - s.since)
            found.append((key, s, trx, started))
    found.sort(key=lambda item: (item[3], item[0][0]))
    assigned = ids.assign([key for key, _s, trx, _started in found if trx.writer])
    return [(s, trx, started, assigned.get(key, 0)) for key, s, trx, started in found]


def _lock_id(trx_id: int) -> str:
    """The writer lock's id as one transaction holds or requests it (InnoDB's table lock id is
    "trx id:table id"; the writer lock has no table: 0)."""
    return f"{trx_id}:0"


def _waits(server: SessionHost, listed: list[tuple[ClientSession, OpenTransaction, float, int]]
           ) -> list[tuple[int, int]]:
    """(requesting trx id, blocking trx id) for each waiter of the writer lock and each client
    session's transaction ahead of it in the lock's queue."""
    trx_of = {id(s.engine_session): trx_id for s, _trx, _started, trx_id in listed if trx_id}
    ahead: list[int] = []
    pairs = []
    for n, party in enumerate(server.engine.writer_lock.parties()):
        trx_id = trx_of.get(id(party))
        if n and trx_id is not None:  # a waiter (the first party may be the holder)
            pairs.extend((trx_id, blocking) for blocking in ahead)
        if trx_id is not None:
            ahead.append(trx_id)
    return pairs


def _datetime(seconds: float) -> datetime:
    return datetime.fromtimestamp(int(seconds))


def infoschema_rows(session: ClientSession, view: str) -> list[tuple]:
    """The rows of `view` ("innodb_trx", "innodb_locks", "innodb_lock_waits"); 1227 without PROCESS."""
    session.require("PROCESS")
    server = session.server
    listed = _listed(server, server.transactions)
    waits = _waits(server, listed)
    if view == "innodb_lock_waits":
        return [(waiting, _lock_id(waiting), blocking, _lock_id(blocking)) for waiting, blocking in waits]
    if view == "innodb_locks":
        in_waits = sorted({trx_id for pair in waits for trx_id in pair})
        return [(_lock_id(trx_id), trx_id, "X", "TABLE", WRITER_LOCK_TABLE, None, None, None, None, None)
                for trx_id in in_waits]
    rows = []
    for s, trx, started, trx_id in listed:
        waiting = trx.waiting_since is not None
        running = s.info is not None
        rows.append((
            trx_id, "LOCK WAIT" if waiting else "RUNNING", _datetime(started),
            _lock_id(trx_id) if waiting else None, _datetime(trx.waiting_since) if waiting else None,
            # weight, tables in use and locked, lock structs and their memory, rows locked and
            # modified: InnoDB's own accounting of row locks and undo, which the engine keeps
            # no count of (one lock over every table, no row locks)
            0, s.connection_id, None if s.info is None else s.info[:1024], "" if running else None,
            0, 0, 0, 0, 0, 0,
            0,  # concurrency tickets: MariaDB 10.11 hands out none (0)
            _ISOLATION.get(trx.isolation, trx.isolation), int(bool(s.sysvars.get("unique_checks", True))),
            int(trx.foreign_key_checks), None, int(trx.read_only),
            0,  # autocommit non-locking reads run outside any transaction here
        ))
    return rows
