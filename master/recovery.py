"""Crash recovery of the master at startup: make the engine and the binlog agree.

Contract (the binlog is the source of truth: a transaction is in both or in neither)
- Runs before anything else touches the binlog or the engine (no client, no dump session), once,
  after `Engine.open` and before `BinlogWriter.open`.
- The last binlog file loses a torn trailing event (a write cut by the crash), and a trailing
  transaction without its XID (BEGIN ... and no XID: a group cut in the middle) is truncated
  from the binlog too. Neither ever reached the engine: the engine commits a group only after
  its binlog write (and sync).
- The engine's meta (`binlog_file`, `binlog_pos`, stored atomically by every `commit_group`)
  says where the engine stands in the binlog. Every complete transaction after that point (a
  group written and synced but whose engine commit the crash prevented) is replayed into the
  engine with `engine.apply_transaction`, with the statement context the events carry (the
  event's timestamp for NOW(), INTVAR INSERT_ID / LAST_INSERT_ID, RAND seeds, USER_VARs), each with its own
  end position as the new meta.
- User statements (CREATE USER, GRANT, ...) are in the binlog for replicas; the user table is
  durable on its own, so they are not replayed here.
The caller then opens the binlog writer on a new file, as MySQL does at every start.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlog.index import read_index
from binlog.reader import file_checksum, iter_events, truncate_torn_tail
from engine.core import StatementContext
from master.events import user_var_value
from protocol.events import (
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    Intvar,
    Query,
    Rand,
    UserVar,
    Xid,
    decode_event,
)
from protocol.position import BinlogPosition, file_sequence

log = logging.getLogger("semisync.master.recovery")

_USER_STATEMENTS = ("CREATE USER", "DROP USER", "GRANT", "REVOKE", "RENAME USER", "ALTER USER", "SET PASSWORD")


@dataclass
class RecoveryReport:
    torn_bytes: int = 0
    partial_bytes: int = 0
    replayed: int = 0
    start: BinlogPosition | None = None

    def __str__(self) -> str:
        return (
            f"replayed {self.replayed} transaction(s) from {self.start}; cut {self.torn_bytes} torn "
            f"byte(s) and {self.partial_bytes} byte(s) of an incomplete transaction"
        )


def replay_start(names: list[str], meta: dict[str, str]) -> BinlogPosition | None:
    """Where the engine stands in the binlog: the first position it may not have."""
    if not names:
        return None
    file, pos = meta.get("binlog_file"), meta.get("binlog_pos")
    if not file or pos is None:
        return BinlogPosition(names[0], 4)
    if file in names:
        return BinlogPosition(file, int(pos))
    # The engine's file is gone (purged, or RESET MASTER): replay the files after it, if any.
    seq = file_sequence(file)[1]
    for name in names:
        if file_sequence(name)[1] > seq:
            return BinlogPosition(name, 4)
    return None


async def recover(engine: Any, directory: Path, basename: str) -> RecoveryReport:
    report = RecoveryReport()
    names = read_index(directory, basename)
    names = [n for n in names if (directory / n).exists()]
    if not names:
        return report
    last = directory / names[-1]
    size = last.stat().st_size
    report.torn_bytes = size - truncate_torn_tail(last)
    start = replay_start(names, engine.meta())
    report.start = start
    if start is None:
        return report
    last_size = last.stat().st_size
    if start.file == names[-1] and start.pos > last_size:
        log.error(
            "the engine is ahead of the binlog (engine at %s, binlog ends at %d): the binlog lost "
            "synced data (sync_binlog != 1?)", start, last_size,
        )
        return report

    pending: list[tuple[str, StatementContext, str | None]] | None = None
    pending_start: BinlogPosition | None = None
    context = StatementContext()
    for name in names[names.index(start.file):]:
        path = directory / name
        checksum = file_checksum(path)
        offset0 = start.pos if name == start.file else 4
        for offset, raw in iter_events(path, offset0):
            event = decode_event(raw, checksum=checksum)
            end = BinlogPosition(name, offset + len(raw))
            body = event.body
            if isinstance(body, Query):
                sql = body.query
                db = body.db or None
                if sql == "BEGIN":
                    pending, pending_start = [], BinlogPosition(name, offset)
                    context = StatementContext()
                elif pending is not None:
                    if sql == "COMMIT":
                        await _apply(engine, pending, end)
                        report.replayed += 1
                        pending = None
                    else:
                        context.timestamp = event.header.timestamp
                        pending.append((sql, context, db))
                    context = StatementContext()
                elif sql.upper().startswith(_USER_STATEMENTS):
                    log.info("recovery: %s is not replayed (the user table is durable on its own)", sql[:60])
                else:  # DDL: its own transaction
                    context.timestamp = event.header.timestamp
                    await _apply(engine, [(sql, context, db)], end)
                    report.replayed += 1
                    context = StatementContext()
            elif isinstance(body, Intvar):
                if body.type == INTVAR_INSERT_ID:
                    context.insert_id = body.value
                elif body.type == INTVAR_LAST_INSERT_ID:
                    context.last_insert_id = body.value
            elif isinstance(body, Rand):
                context.rand_seed = (body.seed1, body.seed2)
            elif isinstance(body, UserVar):
                context.user_vars[body.name] = user_var_value(body)
            elif isinstance(body, Xid) and pending is not None:
                await _apply(engine, pending, end)
                report.replayed += 1
                pending = None
    if pending is not None and pending_start is not None:
        path = directory / pending_start.file
        report.partial_bytes = path.stat().st_size - pending_start.pos
        _truncate(path, pending_start.pos)
        log.warning("recovery: cut an incomplete transaction at %s (%d bytes)", pending_start, report.partial_bytes)
    if report.replayed or report.torn_bytes or report.partial_bytes:
        log.warning("recovery: %s", report)
    return report


async def _apply(engine: Any, statements: list[tuple[str, StatementContext, str | None]], end: BinlogPosition) -> None:
    await engine.apply_transaction(statements, {"binlog_file": end.file, "binlog_pos": str(end.pos)})


def _truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())
