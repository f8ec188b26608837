"""Crash recovery of the master at startup: make the engine and the binlog agree.

Contract (the binlog is the source of truth: a transaction is in both or in neither)
- Runs before anything else touches the binlog or the engine (no client, no dump session), once,
  after `Engine.open` and before `BinlogWriter.open`.
- The last binlog file loses a torn trailing event (a write cut by the crash), and a trailing
  transaction without its XID (BEGIN or GTID ... and no XID, a standalone GTID without its
  statement: a group cut in the middle) is truncated from the binlog too. Neither ever reached the engine: the engine commits a group only after
  its binlog write (and sync).
- The engine's meta (`binlog_file`, `binlog_pos`, stored atomically by every `commit_group`)
  says where the engine stands in the binlog. Every complete transaction after that point (a
  group written and synced but whose engine commit the crash prevented) is replayed into the
  engine with `engine.apply_transaction`, with the statement context the events carry (the
  event's timestamp for NOW(), INTVAR INSERT_ID / LAST_INSERT_ID, RAND seeds, USER_VARs), each with its own
  end position as the new meta.
- User statements (CREATE USER, GRANT, ...) are in the binlog for replicas; the user table is
  durable on its own, so they are not replayed here.
- On a replica that logs what it applies (log_slave_updates), the binlog also holds replicated
  transactions: those whose server_id is not the one of their file's FORMAT_DESCRIPTION (this
  server's). A group of them may be in the binlog (and on this server's own replicas) while
  the crash kept it out of the engine AND out of the applier's position, committed with it.
  Recovery replays them like any other and counts them, user statements included (one binlog
  transaction each, as the applier writes one per relay log transaction it applied), and
  commits with each replayed transaction `META_RELAY_SKIP` = the count so far plus what the
  meta held: the number of whole relay log transactions after the applier's position that are
  already applied. The applier skips exactly that many when it starts (`slave.applier`), so
  nothing is applied twice and nothing twice reaches this server's replicas. Every
  replayed or counted transaction moves the meta's binlog position, so a second crash in
  recovery counts nothing twice.
- The engine's meta is merged, never replaced (the applier's keys stay).
- Recovery never cuts what a slave may have acknowledged or what the engine committed. Only
  bytes after the last complete transaction are cut (a torn tail: an incomplete event, or zeros;
  a group without its XID):
  the commit path publishes a group to dump sessions only after its write and sync, and a failed
  write or sync is cut back at once (binlog.writer), so such bytes were never sent; and they lie
  after the engine's position. When the engine stands past the end of the binlog (the binlog
  lost data the engine has), or the last file is damaged (CRC mismatch, impossible event size)
  so that what follows cannot be read, recovery raises `RecoveryError` and the server does not
  start: cutting would lose acknowledged commits or let the binlog miss what the engine has
  (as mysqld's "Crash recovery failed", where a human decides; cf. MariaDB's
  TC_LOG_BINLOG::recover and MDEV-21117, which truncates only transactions no slave can have).
- With `truncate_uncommitted` (--init-rpl-role SLAVE, MariaDB's MDEV-21117 / MDEV-33465
  recovery of a crashed master that rejoins as a slave) nothing is replayed: the binlog's tail
  after the engine's position is cut off instead. Every event there that is not a file's own
  (FORMAT_DESCRIPTION, GTID_LIST, BINLOG_CHECKPOINT, ROTATE, STOP) belongs to a transaction the
  engine never committed (under AFTER_SYNC: one no slave acked, or whose ack came too late), so
  the cut is at the first such event: a GTID event, or the BEGIN / lone statement of a binlog
  without GTIDs. Files after the cut's file are removed: the index is rewritten without them
  first (atomically), then they are unlinked, then the cut's file is truncated and fsynced, so a
  crash in between leaves a state that the same recovery finishes (files the index no longer
  names may stay behind: the writer overwrites each when it reaches its name). The cut file
  is left flagged in use if it was the active one: it is now the last file of the index, whose
  flag `BinlogWriter.open` clears before it starts the next file. MariaDB's line is logged ("Successfully truncated binlog file:...
  to remove transactions starting from GTID d-s-n", the GTID of the event at the cut; a binlog
  without GTIDs names the position instead). Nothing is logged or cut when the engine has
  every transaction of the binlog. Afterwards the engine and the binlog agree, the binlog's
  GTID state (rebuilt from the files when the writer opens) lacks the removed GTIDs, and the
  applier's position and relay log skip count, committed with the engine, are untouched: a
  removed transaction that reached a slave comes back from the new master like any other.
- `read_transactions` reads transactions back from the binlog; the group commit uses it to
  replay a group whose engine commit failed (binlog_error_action=IGNORE_ERROR).
The caller then opens the binlog writer on a new file, as MySQL does at every start.
"""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from binlog.index import fsync_directory, read_index, write_index
from binlog.reader import (
    cut_file,
    file_checksum,
    iter_events,
    scan_file,
    torn_tail,
    truncate_torn_tail,
)
from engine import temporary
from engine.results import StatementContext
from protocol.events import (
    FL_STANDALONE,
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    SQL_MODE_NO_AUTO_VALUE_ON_ZERO,
    EventType,
    Gtid,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    UserVar,
    Xid,
    decode_event,
    decode_header,
    event_type,
    statement_replay,
    user_var_value,
)
from protocol.position import BinlogPosition, file_sequence

log = logging.getLogger("semisync.master.recovery")

_USER_STATEMENTS = ("CREATE USER", "DROP USER", "GRANT", "REVOKE", "RENAME USER", "ALTER USER", "SET PASSWORD",
                    "FLUSH PRIVILEGES")

# The engine meta key holding how many relay log transactions after the applier's position are
# in the binlog and the engine already (`slave.applier` reads it under the same name).
META_RELAY_SKIP = "relay_log_skip"


# Events a binlog file has of its own, outside every transaction.
_FILE_EVENTS = frozenset({
    EventType.FORMAT_DESCRIPTION_EVENT, EventType.ROTATE_EVENT, EventType.STOP_EVENT,
    EventType.GTID_LIST_EVENT, EventType.BINLOG_CHECKPOINT_EVENT, EventType.PREVIOUS_GTIDS_LOG_EVENT,
})


@dataclass(frozen=True)
class Truncation:
    """The uncommitted tail cut off by --init-rpl-role SLAVE: `file` cut from `old_size` bytes
    to `pos`, the files after it (`removed`) deleted; `gtid`: the first removed transaction's
    (None in a binlog without GTIDs)."""

    file: str
    old_size: int
    pos: int
    gtid: Gtid | None
    removed: tuple[str, ...] = ()

    def message(self) -> str:
        """MariaDB's line (sql/log.cc, MYSQL_BIN_LOG::truncate_and_remove_binlogs), the file named
        as the index names it."""
        start = f"GTID {self.gtid}" if self.gtid is not None else f"position {self.file}:{self.pos}"
        return (f"Successfully truncated binlog file:./{self.file} from previous file size {self.old_size} "
                f"to pos:{self.pos} to remove transactions starting from {start}")


@dataclass
class RecoveryReport:
    torn_bytes: int = 0
    partial_bytes: int = 0
    replayed: int = 0
    replicated: int = 0  # of the replayed or skipped transactions, those another server wrote
    start: BinlogPosition | None = None
    truncation: Truncation | None = None

    def __str__(self) -> str:
        return (
            f"replayed {self.replayed} transaction(s) from {self.start} ({self.replicated} replicated "
            f"one(s) the applier skips); cut {self.torn_bytes} torn "
            f"byte(s) and {self.partial_bytes} byte(s) of an incomplete transaction"
        )


def _follow_modes(context: StatementContext, status_vars: bytes | memoryview) -> None:
    """What a binlogged statement ran under that its replay follows (`statement_replay`):
    foreign_key_checks, sql_mode NO_AUTO_VALUE_ON_ZERO (a 0 it wrote into an AUTO_INCREMENT
    column is that id), its strictness (a value it stored adjusted is stored so again) and the
    microseconds of its time it read (Q_HRNOW), its auto_increment_increment and _offset (the ids
    after INSERT_ID)."""
    context.foreign_key_checks, mode, context.microseconds, context.auto_increment = statement_replay(status_vars)
    context.no_auto_value_on_zero = bool(mode & SQL_MODE_NO_AUTO_VALUE_ON_ZERO)
    context.sql_mode = mode


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


class RecoveryError(Exception):
    """The binlog and the engine cannot be made to agree without losing or inventing data: the
    server must not start (a human decides, as with mysqld's "Crash recovery failed")."""


@dataclass
class BinlogTransaction:
    """One transaction read back from the binlog: its statements with their context and
    default database, where it starts, and where it ends (None: no XID/COMMIT before the end
    of what was read, an incomplete transaction); `replicated`: written with another server's
    server_id than its file's (log_slave_updates); `user_statement`: a user statement (only
    when asked for)."""

    statements: list[tuple[str, StatementContext, str | None]]
    start: BinlogPosition
    end: BinlogPosition | None
    replicated: bool = False
    user_statement: bool = False


def read_transactions(
    directory: Path, names: list[str], start: BinlogPosition, stop: BinlogPosition | None = None,
    *, user_statements: bool = False,
) -> Iterator[BinlogTransaction]:
    """The transactions of the binlog from `start` (an event boundary) to `stop` (or the end of
    the last file of `names`), in order. DDL is a transaction of its own; user statements
    (CREATE USER, GRANT ...) are skipped (the user table is durable on its own), or with
    `user_statements` yielded as transactions of their own. A last transaction without its end
    comes last, with `end` None."""
    pending: list[tuple[str, StatementContext, str | None]] | None = None
    pending_start = start
    pending_origin = False
    standalone = False  # a standalone GTID event came: its one statement is next
    context = StatementContext()
    for name in names[names.index(start.file):]:
        path = directory / name
        checksum = file_checksum(path)
        own = _file_server_id(path)
        offset0 = start.pos if name == start.file else 4
        bound = stop.pos if stop is not None and name == stop.file else None
        for offset, raw in iter_events(path, offset0, bound):
            event = decode_event(raw, checksum=checksum)
            end = BinlogPosition(name, offset + len(raw))
            body = event.body
            replicated = event.header.server_id != own
            if isinstance(body, MariaGtid):  # starts a group, as BEGIN does (or one lone statement)
                pending_start, pending_origin = BinlogPosition(name, offset), replicated
                pending = None if body.flags2 & FL_STANDALONE else []
                standalone = pending is None
                context = StatementContext()
            elif isinstance(body, Query):
                sql = body.query
                db = body.db or None
                if sql == "BEGIN" and pending is not None and not pending:
                    pass  # a GTID's group spelled out (MariaDB writes no BEGIN after a GTID)
                elif sql == "BEGIN":
                    pending, pending_start = [], BinlogPosition(name, offset)
                    pending_origin = replicated
                    context = StatementContext()
                elif pending is not None:
                    if sql == "COMMIT":
                        yield BinlogTransaction(pending, pending_start, end, pending_origin)
                        pending = None
                    else:
                        context.timestamp = event.header.timestamp
                        _follow_modes(context, body.status_vars)
                        context.thread_id, context.server_id = body.thread_id, event.header.server_id
                        pending.append((sql, context, db))
                    context = StatementContext()
                elif " ".join(sql.split(None, 2)[:2]).upper().startswith(_USER_STATEMENTS):
                    if user_statements:
                        yield BinlogTransaction([(sql, context, db)], _lone_start(standalone, pending_start, name, offset),
                                                end, replicated, user_statement=True)
                    context = StatementContext()
                else:  # DDL: its own transaction
                    context.timestamp = event.header.timestamp
                    _follow_modes(context, body.status_vars)
                    context.thread_id, context.server_id = body.thread_id, event.header.server_id
                    yield BinlogTransaction([(sql, context, db)], _lone_start(standalone, pending_start, name, offset),
                                            end, replicated)
                    context = StatementContext()
                standalone = False
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
                yield BinlogTransaction(pending, pending_start, end, pending_origin)
                pending = None
        if stop is not None and name == stop.file:
            break
    if pending is not None or standalone:  # a group whose end (or lone statement) is missing
        yield BinlogTransaction(pending or [], pending_start, None, pending_origin)


def _lone_start(standalone: bool, gtid_start: BinlogPosition, name: str, offset: int) -> BinlogPosition:
    """Where a lone statement's transaction starts: at its GTID event when one came before it."""
    return gtid_start if standalone else BinlogPosition(name, offset)


def _file_server_id(path: Path) -> int:
    """The server_id of a binlog file's FORMAT_DESCRIPTION: the server that wrote the file."""
    for _offset, raw in iter_events(path, 4):
        return decode_header(raw).server_id
    return 0


async def recover(engine: Any, directory: Path, basename: str, *, truncate_uncommitted: bool = False) -> RecoveryReport:
    """Make the engine and the binlog agree (see the module docstring): replay the binlog's
    tail the engine lacks, or with `truncate_uncommitted` cut it off; RecoveryError when that
    would need cutting what the engine committed or reading a damaged binlog. Then the
    temporary tables the crashed open's sessions left (kept by `Engine.open` for the replay)
    are dropped."""
    report = await _recover(engine, directory, basename, truncate_uncommitted)
    await engine.drop_left_temporary()
    return report


def _replay_owner(engine: Any, sql: str, context: StatementContext, replicated: bool, token: str) -> str:
    """The owner whose temporary tables a replayed statement resolves to: its session's (or
    replicated thread's) in the crashed open, found among the tables that open left (a table
    its CREATE TEMPORARY made is in the state the statement expects: the engine stands at the
    group before it); `token`, the replay's own, when none is left. Two earlier opens' tables
    for the same thread cannot be told apart: RecoveryError naming the statement."""
    mine = engine.replay_owner(context, replicated, "")
    tokens = {temporary.open_token_of(o) for o in engine.temporary_owners()
              if o[len(temporary.open_token_of(o)):] == mine and not o.startswith(engine.open_token)}
    if len(tokens) > 1:
        raise RecoveryError(
            f"the binlog's statement '{sql}' (thread {context.thread_id}) may use a temporary "
            f"table that {len(tokens)} earlier runs of this server left; which one it used "
            "cannot be told. Not starting: drop those tables' files or restore a backup.")
    return engine.replay_owner(context, replicated, tokens.pop() if tokens else token)


async def _recover(engine: Any, directory: Path, basename: str, truncate_uncommitted: bool) -> RecoveryReport:
    report = RecoveryReport()
    names = read_index(directory, basename)
    names = [n for n in names if (directory / n).exists()]
    if not names:
        return report
    last = directory / names[-1]
    scanned = scan_file(last)
    start = replay_start(names, engine.meta())
    report.start = start
    if start is not None and start.file == names[-1] and start.pos > scanned.last_complete_end:
        raise RecoveryError(
            f"the engine is ahead of the binlog: the engine committed up to {start}, but "
            f"{names[-1]} ends at {scanned.last_complete_end}"
            + (f" ({scanned.error})" if scanned.error else "")
            + ". The binlog lost data the engine has (a disk that lost synced writes, or a "
            "binlog file replaced by hand); its slaves may lack it. Not starting: restore the "
            "binlog, or rebuild this master from a slave."
        )
    if scanned.error is not None and not torn_tail(last, scanned):
        raise RecoveryError(
            f"binlog {names[-1]} is damaged at offset {scanned.last_complete_end}: {scanned.error}. "
            "Crash recovery cannot read past it (the engine stands at "
            f"{start}). Not starting: repair or restore the binlog file."
        )
    report.torn_bytes = scanned.size - truncate_torn_tail(last, scanned)
    if start is None:
        return report
    if truncate_uncommitted:
        if report.torn_bytes:
            log.warning("recovery: cut %d torn byte(s) from %s", report.torn_bytes, names[-1])
        report.truncation = truncate_tail(directory, basename, names, start)
        if report.truncation is not None:
            log.info("%s", report.truncation.message())
        return report
    skip = int(engine.meta().get(META_RELAY_SKIP) or 0)
    token = secrets.token_hex(temporary.TOKEN_BYTES)  # the replay's own sessions' (`_replay_owner`)
    for txn in read_transactions(directory, names, start, user_statements=True):
        if txn.end is None:
            # a group cut by the crash before its sync: never published, so no slave has it,
            # and after the engine's position, so the engine has none of it either
            path = directory / txn.start.file
            report.partial_bytes = path.stat().st_size - txn.start.pos
            _truncate(path, txn.start.pos)
            log.warning("recovery: cut an incomplete transaction at %s (%d bytes)", txn.start, report.partial_bytes)
            break
        if txn.replicated:
            report.replicated += 1
        if txn.user_statement:
            if not txn.replicated:
                continue  # the user table has it; the applier has nothing to skip
            statements = []
        else:
            statements = txn.statements
            for sql, context, _db in statements:
                context.temporary_owner = _replay_owner(engine, sql, context, txn.replicated, token)
            report.replayed += 1
        meta = {**engine.meta(), "binlog_file": txn.end.file, "binlog_pos": str(txn.end.pos)}
        if skip or report.replicated:
            meta[META_RELAY_SKIP] = str(skip + report.replicated)
        await engine.apply_transaction(statements, meta)
    if report.replayed or report.replicated or report.torn_bytes or report.partial_bytes:
        log.warning("recovery: %s", report)
    return report


def truncate_tail(directory: Path, basename: str, names: list[str], start: BinlogPosition) -> Truncation | None:
    """Cut off every transaction of the binlog (files `names`) from `start` (the engine's
    position) on, as the module docstring says; None when there is none."""
    cut = _first_transaction_event(directory, names, start)
    if cut is None:
        return None
    at, gtid = cut
    path = directory / at.file
    old_size = path.stat().st_size
    listed = read_index(directory, basename)
    removed = tuple(listed[listed.index(at.file) + 1:])
    if removed:
        write_index(directory, basename, listed[: len(listed) - len(removed)])
        for name in removed:
            (directory / name).unlink(missing_ok=True)
        fsync_directory(directory)
    cut_file(path, at.pos)
    return Truncation(at.file, old_size, at.pos, gtid, removed)


def _first_transaction_event(
    directory: Path, names: list[str], start: BinlogPosition,
) -> tuple[BinlogPosition, Gtid | None] | None:
    """Where the first transaction after `start` begins (its first event that is not a file's
    own), with its GTID when that event is a GTID event; None when no transaction follows."""
    for name in names[names.index(start.file):]:
        path = directory / name
        for offset, raw in iter_events(path, start.pos if name == start.file else 4):
            if event_type(raw) in _FILE_EVENTS:
                continue
            gtid = None
            if event_type(raw) == EventType.GTID_EVENT:
                event = decode_event(raw, checksum=file_checksum(path))
                assert isinstance(event.body, MariaGtid)
                gtid = Gtid(event.body.domain_id, event.header.server_id, event.body.seq_no)
            return BinlogPosition(name, offset), gtid
    return None


def _truncate(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)
        f.flush()
        os.fsync(f.fileno())
