"""`Applier`: the slave SQL thread. Applies the relay log to the slave's own database, one
transaction at a time, and remembers where it is in the same database transaction.

Contract
- Reads the relay log only up to `RelayLog.readable` (the end of the last complete, durable
  transaction the IO task published), with the binlog reader (`binlog.reader.iter_open_events`, the
  current relay file kept open from batch to batch); wakes up on `notify()`, and a wakeup from
  idle waits up to `commit_wait` (slave_commit_wait_usec) for more (`_gather`). What the relay
  log still holds in memory (`RelayLog.tail`: the events the IO task just appended) is taken
  from there, not read back from the file.
- Every event is decoded with `protocol.events.decode_parts` (`decode_event`'s header and
  body, without the Event); one read from the file has its CRC32 checked again (as MariaDB's SQL
  thread does with slave_sql_verify_checksum, ON by default): the IO task checked it on receipt
  and recovery checks the relay tail after a crash, but a file written and fsynced whole can
  still be damaged on disk later. One taken from the tail is the bytes the IO task checked on
  receipt, never read from a disk: no second check.
- A transaction (BEGIN or a MariaDB GTID .. XID/COMMIT) is its statements, each with its
  context (event timestamp, INSERT_ID / LAST_INSERT_ID from INTVAR, RAND seeds, user variables
  from USER_VAR) and default database. Consecutive complete transactions are applied in batches
  with ONE `engine.apply_transactions([statements, ...], meta)`, `meta` = the applier's position
  after the batch's last transaction (relay file + offset, master file + Exec_Master_Log_Pos).
  The engine commits all of them and the position in one SQLite transaction, so after a crash
  the data and the position agree: nothing is applied twice or skipped (crash-safe slave,
  MySQL's relay_log_info_repository=TABLE). A batch ends at MAX_BATCH_TRANSACTIONS /
  MAX_BATCH_STATEMENTS, when nothing more is readable, before an event that applies nothing
  (the position moves past it only after the batch) and before a user statement; a transaction
  with anything but DML (DDL, ...) is applied alone. A batch is all or nothing: if it fails, its
  transactions are applied one by one, so those before the failing one are committed and the
  error is the failing one's, as without batching.
- A statement outside a transaction (DDL, a non-transactional statement) is applied alone, the
  same way. ROLLBACK discards the group, but for its CREATE / DROP TEMPORARY TABLE statements
  (a rollback does not undo them: engine/temporary.py), applied as its transaction.
- Row events (TABLE_MAP + WRITE/UPDATE/DELETE_ROWS v1/v2) become INSERT / UPDATE / DELETE
  statements on the slave's table, columns matched by position; an UPDATE/DELETE finds its row
  by the primary key when the table has one, otherwise by every column of the before image.
- User and grant statements (CREATE/DROP/ALTER/RENAME USER, GRANT, REVOKE, SET PASSWORD) are
  replayed through the server's user store (`server.apply_user_statement`); a failure there is
  logged and skipped, never stops the applier. Each statement of a committed DDL transaction
  then goes to the `after_ddl` seam (`server.routines.after_replicated_ddl`: the routine grants
  MariaDB's SQL thread makes and takes), whose failure is logged the same way.
- A MariaDB master's statement-format LOAD DATA [LOCAL] INFILE: its file's blocks
  (Begin_load_query, Append_block) are appended to a file in the datadir as they are read
  (SQL_LOAD-<our server_id>-<origin>-<file_id>.data, as MariaDB's slave writes them), never held
  in memory; Execute_load_query runs its statement on that file (MariaDB's rewrite: the master's
  file name and LOCAL replaced by it, with the master's duplicate handling) through the `load_rows`
  seam (`server.load_data.replicated_load`: the file cut into rows and stored as the server's own
  LOAD DATA stores them), whose INSERT / REPLACE statements join the event's transaction with its
  context (timestamp, sql_mode, user variables with each row's @variables, INSERT_ID on the
  first); with log_slave_updates the binlog carries those statements, which any replica applies.
  The file is removed then, and by Delete_file (the load failed on the master); files a stopped
  run left are removed at the next start, which reads the load's events again from the relay log
  (the position moves only past whole transactions). A load that failed part-way on the master
  (Execute_load_query with an error code: rows of a non-transactional table kept up to the
  error), or a server without the seam, stops the applier with 1235.
- Any other error stops the applier with Last_SQL_Errno / Last_SQL_Error (MySQL's wording); the
  IO task keeps running. START SLAVE [SQL_THREAD] retries from the saved position.
- Relay log files the applier has finished are purged when relay_log_purge is ON (the
  default; OFF keeps them, for an audit of the relay log; never the one the IO task writes),
  once the engine has fsynced what was applied from them (`Engine.sync`; a stopped applier
  leaves it fsynced too, before CHANGE MASTER or RESET SLAVE drop the relay log); a purge that
  fails (a full disk cannot write the new index) leaves them for the next one.
- A failed engine commit (a full disk: SQLITE_FULL) is an error like any other: nothing of the
  batch is committed, the position stays with the data, the applier stops; START SLAVE once the
  space is back goes on from there (MariaDB's SQL thread stops on a full table the same way).
- GTIDs (MariaDB's, from a GTID event): each transaction's GTID is `ReadyTransaction.gtid` (the
  binlog keeps it, log_slave_updates) and `@@gtid_slave_pos` (`gtid_slave_pos`, META_GTID_SLAVE_POS)
  is committed in its meta, in the same engine transaction as its data and position. With
  gtid_strict_mode (`strict_mode()`) a GTID not above its domain's last one stops the applier
  before it with ER_GTID_STRICT_OUT_OF_ORDER (1950). `wait_for_gtids` (MASTER_GTID_WAIT) is woken
  by each commit that moves the position, no polling.
- MASTER_DELAY (`sql_delay()`, MariaDB's `sql_delay_event`): before every event but a ROTATE
  or FORMAT_DESCRIPTION (and the relay log's own), the task waits until the slave's clock has
  passed the event's timestamp + clock_diff_with_master (the IO task's, measured from the
  master's UNIX_TIMESTAMP() at connect) + MASTER_DELAY, applying the batch read before it
  first; one timer per wait, ended by `stop` (the event is read again at the next start).
  `delay_end` is SQL_Remaining_Delay's source and the running state's. The wait holds only the
  applier: the IO task receives, writes the relay log and acks as before, and MASTER_POS_WAIT /
  MASTER_GTID_WAIT wait for the delayed apply.
- Commit seam. A batch goes to the `commit` callable given at construction (`CommitReplicated`)
  as `ReadyTransaction`s: the statements, the applier's position after each (`meta`), the
  server_id of the server that first wrote it (from its events) and whether it is a user
  statement (already applied to the user store: to binlog, not to run). All or nothing, SQLError
  on failure. With log_slave_updates the server's group commit is that callable
  (`GroupCommit.commit_replicated`: binlogged with the origin's server_id and timestamps, and
  committed with the applier's position and the binlog position in one engine transaction);
  without a binlog the default commits straight to the engine (`apply_transactions`, the
  engine's meta merged, never replaced). A call of the seam is never cancelled with the applier
  (STOP SLAVE cancels it after its timeout, e.g. during a semi-sync wait): it finishes in the
  background, and the next run waits for it before it loads its position.
- Crash between the binlog and the engine (log_slave_updates): a group in this server's binlog
  but not in the engine is replayed by crash recovery (`master.recovery`), which leaves in the
  meta (`META_RELAY_SKIP`) how many relay log transactions after the applier's position it
  holds. At start the applier skips exactly that many whole transactions that apply something
  (statements or a user statement; each is one binlog transaction), in order, each skipped one
  committed as an empty step with its position and the count left, so the count and the
  position always agree (`tests/unit/test_slave_lsu.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO

from binlog.reader import BinlogFileError, iter_open_events, open_binlog
from engine.results import UNFOLLOWED_SQL_MODES
from engine.temporary import keeps_transaction
from protocol.errors import (
    ER_GTID_STRICT_OUT_OF_ORDER,
    ER_NOT_SUPPORTED_YET,
    ER_SLAVE_CONVERSION_FAILED,
    ER_SLAVE_RELAY_LOG_READ_FAILURE,
    ER_UNKNOWN_ERROR,
    ProtocolError,
    SQLError,
)
from protocol.events import (
    BINLOG_MAGIC,
    FL_STANDALONE,
    INTVAR_INSERT_ID,
    INTVAR_LAST_INSERT_ID,
    LOG_EVENT_ARTIFICIAL_F,
    ROWS_STMT_END_F,
    SQL_MODE_NO_AUTO_VALUE_ON_ZERO,
    SQL_MODES,
    TYPE_FD,
    TYPE_GTID,
    TYPE_GTID_LIST,
    TYPE_INTVAR,
    TYPE_QUERY,
    TYPE_RAND,
    TYPE_ROTATE,
    TYPE_TABLE_MAP,
    TYPE_USER_VAR,
    TYPE_XID,
    AppendBlock,
    BeginLoadQuery,
    Body,
    DeleteFile,
    EventHeader,
    EventType,
    ExecuteLoadQuery,
    FormatDescription,
    Gtid,
    Query,
    Rand,
    Rows,
    TableMap,
    UserVar,
    decode_event,
    decode_parts,
    event_type,
    sql_mode_names,
    statement_replay,
    user_var_value,
)
from protocol.gtid import GtidPosition, gtid_wait_reached
from protocol.position import BinlogPosition
from protocol.statements import OTHER_FIRST, statement_kind
from slave.relay_log import RelayLog
from slave.rows import (
    MISSING,
    RowChange,
    TableLayout,
    UnsupportedColumnType,
    as_unsigned,
    decode_rows,
    is_rows_event,
)

# the sql_mode bits of UNFOLLOWED_SQL_MODES, as a QUERY's Q_SQL_MODE_CODE carries them
_UNFOLLOWED_MASK = sum(1 << SQL_MODES.index(name) for name in UNFOLLOWED_SQL_MODES)

log = logging.getLogger("semisync.slave.sql")

USER_STATEMENT_PREFIXES = (
    "CREATE USER", "DROP USER", "ALTER USER", "RENAME USER", "GRANT", "REVOKE", "SET PASSWORD",
    "FLUSH PRIVILEGES",
)

# A batch (one engine commit, one fsync) holds at most this many transactions / statements.
MAX_BATCH_TRANSACTIONS = 64
MAX_BATCH_STATEMENTS = 1024
_DML = ("INSERT", "UPDATE", "DELETE", "REPLACE")  # the statements a batch may hold
# The first characters of a QUERY that can start neither BEGIN/COMMIT/ROLLBACK/START
# TRANSACTION (`statement_kind`'s OTHER_FIRST) nor a user statement (USER_STATEMENT_PREFIXES):
# such a QUERY is a plain statement without a look at its words (the letters of INSERT,
# UPDATE ...; ASCII only, as OTHER_FIRST).
_PLAIN_FIRST = frozenset(c for c in OTHER_FIRST
                         if c.isalpha() and c.upper() not in {p[0] for p in USER_STATEMENT_PREFIXES})
# DML whose first letter a user statement shares (DELETE: DROP USER, REPLACE: RENAME USER /
# REVOKE): a QUERY whose first seven characters start with one of these is a plain statement too
_PLAIN_HEADS = ("DELETE", "REPLACE")


# a statement-format LOAD DATA INFILE as a MariaDB master logs it: its file's bytes, then the
# statement that loads them (or DELETE_FILE: the load failed)
_LOAD_FILE_EVENTS = frozenset({int(EventType.BEGIN_LOAD_QUERY_EVENT), int(EventType.APPEND_BLOCK_EVENT),
                               int(EventType.EXECUTE_LOAD_QUERY_EVENT), int(EventType.DELETE_FILE_EVENT)})
# the spooled files' names, in the slave's datadir (MariaDB's slave_load_file_stem)
LOAD_FILE_PREFIX = "SQL_LOAD-"

# The rows seam: (the LOAD DATA statement an Execute_load_query event runs, its default database,
# its file's bytes, its sql_mode) -> the statements that store its rows, each with its row's
# @variables (server.load_data.replicated_load); SQLError where the load fails.
LoadRows = Callable[[str, str | None, bytes, int | None], list[tuple[str, dict[str, Any]]]]


# Slave_SQL_Running_State, MariaDB's texts
STATE_IDLE = "Slave has read all relay log; waiting for more updates"
STATE_DELAYING = "Waiting until MASTER_DELAY seconds after master executed event"

# The meta keys (engine.meta()) holding the applier's position.
META_RELAY_FILE = "relay_log_file"
META_RELAY_POS = "relay_log_pos"
META_MASTER_FILE = "relay_master_log_file"
META_MASTER_POS = "exec_master_log_pos"
# Relay log transactions after the position that are applied already (written by crash
# recovery, `master.recovery.META_RELAY_SKIP`; see the module docstring).
META_RELAY_SKIP = "relay_log_skip"
# `@@gtid_slave_pos`: the GTID of the last transaction applied in each domain, committed with
# the transaction (MariaDB's mysql.gtid_slave_pos, updated in the same engine transaction).
META_GTID_SLAVE_POS = "gtid_slave_pos"


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class ApplierError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# (sql, StatementContext, default db), and for a row event's UPDATE/DELETE the table whose row it
# must find (1032 when it does not, as MySQL's slave)
Statement = tuple[str, Any, str | None] | tuple[str, Any, str | None, str | None]


@dataclass(frozen=True, slots=True)
class ReadyTransaction:
    """A complete transaction read from the relay log, waiting in the applier's batch, and what
    the commit seam gets."""

    statements: list[Statement]
    meta: dict[str, Any]  # the applier's position after it (committed with it)
    end: int  # relay offset after it
    timestamp: int
    server_id: int = 0  # the server that first wrote it (its events' server_id)
    user_statement: bool = False  # statements[0] is a user statement the user store applied
    gtid: Gtid | None = None  # its MariaDB GTID (the origin's), None from a master without GTIDs
    gtid_slave_pos: GtidPosition | None = None  # @@gtid_slave_pos after it (its meta's, as a value)
    master_start: tuple[str, int] = ("", 0)  # the master's file and position before it (shown should it fail)
    # its first statement DML (not a user statement): Slave_Transactional_Groups counts it once
    # committed, Slave_DDL_Groups any other with statements (decided as `_commit` reads them;
    # the binlog's group commit writes a one-statement transaction not DML alone by it). None:
    # not decided (the commit seam reads the first statement itself)
    transactional: bool | None = None


# The commit seam: all of the transactions with the last one's meta, or none (SQLError).
CommitReplicated = Callable[[Sequence[ReadyTransaction]], Awaitable[None]]


class Applier:
    def __init__(
        self,
        engine: Any,
        relay: RelayLog,
        *,
        table_columns: Callable[[str, str], list[SlaveColumn] | None],
        make_context: Callable[..., Any],
        apply_user_statement: Callable[[str], Any] | None = None,
        after_ddl: Callable[[str, str | None], None] | None = None,
        master_clock_offset: Callable[[], float] = lambda: 0.0,
        commit: CommitReplicated | None = None,
        strict_mode: Callable[[], bool] = lambda: False,
        binlog_recent: Callable[[int], Gtid | None] = lambda _domain: None,
        purge: Callable[[], bool] = lambda: True,
        commit_wait: Callable[[], float] = lambda: 0.0,
        sql_delay: Callable[[], int] = lambda: 0,
        clock_diff_with_master: Callable[[], int] = lambda: 0,
        clock: Callable[[], float] = time.time,
        load_rows: LoadRows | None = None,
    ) -> None:
        self.engine = engine
        self.load_rows = load_rows  # None: a LOAD DATA's file events stop the applier (1235)
        self.sql_delay = sql_delay  # MASTER_DELAY, in seconds (`_delay`)
        self.clock_diff_with_master = clock_diff_with_master  # the slave's clock minus the master's
        self.clock = clock
        self.commit_wait = commit_wait  # slave_commit_wait_usec, in seconds (see `_gather`)
        self.purge = purge  # relay_log_purge: drop each relay file once applied
        self.strict_mode = strict_mode
        self.binlog_recent = binlog_recent
        self.commit: CommitReplicated = commit or self.commit_to_engine
        self.relay = relay
        self.table_columns = table_columns
        self.make_context = make_context
        self.apply_user_statement = apply_user_statement
        self.after_ddl = after_ddl
        self.master_clock_offset = master_clock_offset
        self._idle: asyncio.Future[None] | None = None  # the loop's wait for `notify` or `stop`
        # the SQL task's loop, taken when `_run` starts (CPython 3.11's get_running_loop makes a
        # getpid(2) per call: several per batch)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        self.running = False
        self.last_errno = 0
        self.last_error = ""
        # Where the next event to apply starts, and the master coordinates applied so far.
        self.relay_file = ""
        self.relay_pos = 4
        self.master_file = ""
        self.master_pos = 0
        self.last_master_timestamp = 0
        self.applied_transactions = 0
        # SHOW SLAVE STATUS's Slave_DDL_Groups / Slave_Transactional_Groups, SHOW ALL SLAVES
        # STATUS's Executed_log_entries (events read and acted on)
        self.ddl_groups = 0
        self.transactional_groups = 0
        self.executed_events = 0
        self._skip = 0  # META_RELAY_SKIP: transactions still to skip (already applied)
        # @@gtid_slave_pos as committed, and as it stands after the batch read so far
        self.gtid_slave_pos = GtidPosition()
        self._read_pos = self.gtid_slave_pos
        # set (and dropped) when gtid_slave_pos moves; made by the first waiter only: a commit
        # nobody waits for makes no Event
        self._pos_changed: asyncio.Event | None = None
        self._committing: asyncio.Future[None] | None = None  # the commit seam's call in flight
        # Complete transactions read but not yet applied (see `_flush`).
        self._batch: list[ReadyTransaction] = []
        self._batch_statements = 0
        self._held: tuple[str, BinaryIO] | None = None  # the relay file `_read` keeps open
        # `_gather`: when the last `notify` came (monotonic time) and how long after the one
        # before it, the wait in progress, and how many callers wait for the applier to reach a
        # position (they end any wait)
        self._last_notify = float("-inf")
        self._notify_gap = float("inf")
        self._gathering: asyncio.Future[None] | None = None
        self._urgent = 0
        # `_delay`: while the task waits for MASTER_DELAY, when the wait ends (the slave's
        # clock, whole seconds) and the future that `stop` or the timer settles
        self.delay_end: int | None = None
        self._delaying: asyncio.Future[None] | None = None

    # -- position ---------------------------------------------------------------------------------
    def load_position(self) -> None:
        meta = self.engine.meta() or {}
        self.relay_file = str(meta.get(META_RELAY_FILE) or "")
        self.relay_pos = int(meta.get(META_RELAY_POS) or 4)
        self.master_file = str(meta.get(META_MASTER_FILE) or "")
        self.master_pos = int(meta.get(META_MASTER_POS) or 0)
        self._skip = int(meta.get(META_RELAY_SKIP) or 0)
        self.gtid_slave_pos = self._read_pos = GtidPosition.parse(str(meta.get(META_GTID_SLAVE_POS) or ""))

    def set_gtid_slave_pos(self, pos: GtidPosition) -> dict[str, Any]:
        """SET GLOBAL gtid_slave_pos (the SQL thread stopped): the position to commit."""
        self.gtid_slave_pos = self._read_pos = pos
        self._moved()
        return self._meta(self.relay_file, self.relay_pos)

    def _moved(self) -> None:
        changed, self._pos_changed = self._pos_changed, None
        if changed is not None:
            changed.set()

    async def wait_for_gtids(self, wanted: Sequence[Gtid], timeout: float | None) -> bool:
        """MASTER_GTID_WAIT: True once `@@gtid_slave_pos` reaches `wanted` (woken by each
        commit that moves it), False after `timeout` seconds (None: no limit)."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        with self.urgent():
            while not gtid_wait_reached(wanted, self.gtid_slave_pos):
                changed = self._pos_changed
                if changed is None:
                    changed = self._pos_changed = asyncio.Event()
                if deadline is None:
                    await changed.wait()
                    continue
                left = deadline - loop.time()
                if left <= 0:
                    return False
                try:
                    await asyncio.wait_for(changed.wait(), left)
                except TimeoutError:
                    return gtid_wait_reached(wanted, self.gtid_slave_pos)
            return True

    @contextlib.contextmanager
    def urgent(self) -> Iterator[None]:
        """While someone waits for the applier to reach a position (MASTER_GTID_WAIT,
        MASTER_POS_WAIT), it applies what is readable at once: no `_gather` wait, and the one in
        progress ends."""
        self._urgent += 1
        self._end_gather()
        try:
            yield
        finally:
            self._urgent -= 1

    def reset_position(self, master_file: str = "", master_pos: int = 0) -> dict[str, Any]:
        self.relay_file, self.relay_pos = "", 4
        self.master_file, self.master_pos = master_file, master_pos
        self._skip = 0  # the relay log it counted in is gone
        return self._meta(self.relay_file, self.relay_pos)

    async def commit_position(self, meta: dict[str, Any]) -> None:
        """Commit a position alone (after a relay log reset), through the commit seam."""
        await self.commit([ReadyTransaction([], meta, int(meta.get(META_RELAY_POS) or 4), 0)])

    async def commit_to_engine(self, transactions: Sequence[ReadyTransaction]) -> None:
        """The commit seam without a binlog: one engine commit of the transactions (user
        statements are the user store's: nothing to run) with the engine's meta, the applier's
        position of the last one over it."""
        meta = {**self.engine.meta(), **transactions[-1].meta}
        await self.engine.apply_transactions([t.statements for t in transactions if not t.user_statement], meta)

    def _meta(self, relay_file: str, relay_pos: int) -> dict[str, Any]:
        return {
            META_RELAY_FILE: relay_file,
            META_RELAY_POS: relay_pos,
            META_MASTER_FILE: self.master_file,
            META_MASTER_POS: self.master_pos,
            META_RELAY_SKIP: self._skip,
            META_GTID_SLAVE_POS: str(self._read_pos),
        }

    def seconds_behind(self, io_running: bool) -> int | None:
        if not self.running or not io_running:
            return None
        readable = self.relay.readable
        if readable is None or not self.last_master_timestamp:
            return 0
        if self.relay_file and self._position() >= readable:
            return 0
        return max(0, int(time.time() + self.master_clock_offset() - self.last_master_timestamp))

    def _position(self) -> BinlogPosition:
        """Where the next event to apply starts (with a relay file)."""
        return self.relay.position_of(self.relay_file, self.relay_pos)

    def _applied_up_to(self, readable: BinlogPosition) -> bool:
        """Nothing to apply before `readable`: no relay file yet, or the next event to apply
        starts at or after it (`_position() >= readable`; in the current file, the offsets)."""
        if not self.relay_file:
            return True
        if readable.file == self.relay_file:
            return self.relay_pos >= readable.pos
        return self._position() >= readable

    # -- lifecycle ----------------------------------------------------------------------------
    def notify(self) -> None:
        """More of the relay log is readable (the IO task, after each batch it made durable)."""
        now = time.monotonic()
        self._notify_gap, self._last_notify = now - self._last_notify, now
        if self._idle is not None:
            _resolve(self._idle)

    def stop(self) -> None:
        self._stopping = True
        if self._idle is not None:
            _resolve(self._idle)
        self._end_gather()
        if self._delaying is not None:
            _resolve(self._delaying)

    @property
    def state(self) -> str:
        """Slave_SQL_Running_State (MariaDB's texts) of a running SQL task."""
        return STATE_DELAYING if self.delay_end is not None else STATE_IDLE

    def remaining_delay(self) -> int | None:
        """SQL_Remaining_Delay: the seconds left while the task waits for MASTER_DELAY, else None."""
        end = self.delay_end
        return None if end is None else max(0, end - int(self.clock()))

    async def _delay(self, timestamp: int) -> None:
        """MASTER_DELAY (MariaDB's `sql_delay_event`): an event the master executed at
        `timestamp` (its clock) is applied once the slave's clock has passed `timestamp` +
        clock_diff_with_master + MASTER_DELAY, in whole seconds as MariaDB counts them: the wait
        is that end minus the current second, from now, so an event received within the second
        the master stamped it is applied no sooner than MASTER_DELAY after its receipt. One
        timer, no polling; `stop` ends the wait (the event is then not applied). The IO task
        receives, writes and acks on its own meanwhile."""
        delay = self.sql_delay()
        if not delay or not timestamp:
            return
        end = timestamp + self.clock_diff_with_master() + delay
        now = int(self.clock())
        if end <= now or self._stopping:
            return
        await self._flush()  # what was read before it is due already: applied first
        loop = self._loop
        assert loop is not None  # (the SQL task's: `_run` set it)
        waiting = self._delaying = loop.create_future()
        self.delay_end = end
        timer = loop.call_later(end - now, _resolve, waiting)
        try:
            await waiting
        finally:
            timer.cancel()
            self._delaying = None
            self.delay_end = None

    async def _gather(self) -> None:
        """slave_commit_wait_usec: a transaction that wakes the applier from idle waits up to
        that long for the ones after it, so that they are applied, binlogged, fsynced and committed
        as one batch (a batch's fixed work is most of a slave's cost when each transaction would
        be its own: MariaDB's binlog_commit_wait_usec gathers a master's group the same way).
        No wait when it is 0, when the arrival that woke it came more than that long after the
        one before it (arrivals sparser than the wait: the wait would gather nothing, only delay
        the batch until next to the next arrival, which the IO task must then read, fsync and
        ack on the same loop), while someone waits for a position (`urgent`) or once the applier
        is stopping; the wait ends early for those. Only visibility waits: the IO task acks on
        its own fsync of the relay log, never on the applier."""
        wait = self.commit_wait()
        if wait <= 0 or self._notify_gap > wait or self._urgent or self._stopping:
            return
        loop = self._loop
        assert loop is not None
        gathering = self._gathering = loop.create_future()
        timer = loop.call_later(wait, _resolve, gathering)
        try:
            await gathering
        finally:
            timer.cancel()
            self._gathering = None

    def _end_gather(self) -> None:
        if self._gathering is not None:
            _resolve(self._gathering)

    def run(self) -> Awaitable[None]:
        """The SQL task's body. Called when the task is created, so that a stop() issued before
        the task first runs (START SLAVE, then STOP SLAVE at once) is not undone by it."""
        self.running = True
        self._stopping = False
        self.last_errno, self.last_error = 0, ""
        return self._serve()

    async def _serve(self) -> None:
        try:
            await self._run()
        except ApplierError as e:
            self.last_errno, self.last_error = e.code, e.message
            log.error("slave SQL task stops: %s", e.message)
        except OSError as e:  # reading the relay log failed (an I/O error)
            self.last_errno = ER_SLAVE_RELAY_LOG_READ_FAILURE.code
            self.last_error = ER_SLAVE_RELAY_LOG_READ_FAILURE.format(f"could not read relay log file {self.relay_file}: {e}")
            log.error("slave SQL task stops: %s", self.last_error)
        finally:
            self._close_relay()
            self.running = False

    async def _run(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        if self._committing is not None and not self._committing.done():
            # a commit the task left when it was cancelled (STOP SLAVE during a semi-sync wait)
            # finishes first: the position loaded below must include it
            await asyncio.wait([self._committing])
        self.load_position()
        self._batch, self._batch_statements = [], 0
        self._drop_load_files()  # of a run that stopped mid-load: its events are read again
        stream = _Stream()
        if self.relay_file and self.relay.path(self.relay_file).exists():
            self._prime(stream)
        else:
            files = self.relay.files()
            later = [f for f in files if not self.relay_file or f > self.relay_file]
            self.relay_file = later[0] if later else ""
            self.relay_pos = 4
        while not self._stopping:
            readable = self.relay.readable
            if not self.relay_file:
                files = self.relay.files()
                if files:
                    self.relay_file, self.relay_pos = files[0], 4
                    stream = _Stream()
            if readable is None or self._applied_up_to(readable):
                # nothing to apply: wait for the next `notify` (or `stop`); neither can come
                # between the check and the wait (no await between them, all on the loop)
                idle = self._idle = loop.create_future()
                try:
                    await idle
                finally:
                    self._idle = None
                await self._gather()
                continue
            end = readable.pos if readable.file == self.relay_file else None
            await self._apply_range(stream, end)
            if end is None and not self._stopping:
                nxt = self.relay.next_file(self.relay_file)
                if nxt is None:
                    await asyncio.sleep(0.01)
                    continue
                # Finished a file: go to the next one and drop the finished ones.
                self.relay_file, self.relay_pos = nxt, 4
                self._close_relay()  # finished: purged below (relay_log_purge)
                stream = _Stream()
                if not self.purge():
                    continue
                try:
                    await self.engine.sync()  # the applied transactions no longer need those files
                    self.relay.purge_before(nxt)
                except OSError as e:  # e.g. a full disk: the index stays as it was, purged later
                    log.warning("slave SQL: could not purge relay log files before %s: %s", nxt, e)
            readable = self.relay.readable
            if readable is not None and not self._applied_up_to(readable):
                # more to apply: the loop's other work first (nothing more: the wait above yields)
                await asyncio.sleep(0)
        # stopped: what it applied is durable before CHANGE MASTER or RESET SLAVE drops the relay log
        await self.engine.sync()

    def _read(self, start: int, end: int | None) -> Iterator[tuple[int, bytes]]:
        """The current relay file's whole events in [start, end) (to its end when None), read
        with the binlog reader; what it cannot read stops the applier (1594). The file stays
        open from one batch to the next while it is the same file (same name and inode: a
        relay file cut back is the same file, one made anew under the name is not)."""
        path = self.relay.path(self.relay_file)
        try:
            yield from iter_open_events(self._relay_handle(path), path, start, end)
        except FileNotFoundError:
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, ER_SLAVE_RELAY_LOG_READ_FAILURE.format(f"relay log file {self.relay_file} is missing")) from None
        except BinlogFileError as e:
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, ER_SLAVE_RELAY_LOG_READ_FAILURE.format(str(e))) from None

    def _relay_handle(self, path: Path) -> BinaryIO:
        held = self._held
        if held is not None:
            name, f = held
            if name == self.relay_file and os.fstat(f.fileno()).st_ino == os.stat(path).st_ino:
                return f
            self._close_relay()
        f = open_binlog(path)
        self._held = (self.relay_file, f)
        return f

    def _close_relay(self) -> None:
        if self._held is not None:
            self._held[1].close()
            self._held = None

    def _prime(self, stream: _Stream) -> None:
        """Re-read the current file up to the saved position for its FD (checksum) settings."""
        for _offset, ev in self._read(len(BINLOG_MAGIC), self.relay_pos):
            if event_type(ev) == TYPE_FD:
                fd = decode_event(ev, False).body
                assert isinstance(fd, FormatDescription)
                stream.checksum = fd.checksum

    async def _apply_range(self, stream: _Stream, end: int | None) -> None:
        count = 0
        held = self.relay.tail(self.relay_file, self.relay_pos, end)
        from_file = held is None
        try:
            for offset, ev in self._read(self.relay_pos, end) if held is None else held:
                if self._stopping:
                    break
                await self._event(stream, ev, offset + len(ev), from_file)
                count += 1
                if count % 64 == 0:
                    await asyncio.sleep(0)
        except ApplierError:
            await self._flush()  # the transactions before the failing event apply first
            raise
        await self._flush()  # nothing more readable now (or stopping): apply what was read

    # -- one event ------------------------------------------------------------------------------
    async def _event(self, stream: _Stream, ev: bytes | memoryview, end: int, verify: bool = True) -> None:
        body: Any  # the class its type code decodes to (FormatDescription for TYPE_FD, ...)
        try:
            # (an FD's own algorithm byte decides its checksum, whatever `checksum` says: decode_event's rule)
            h, body = decode_parts(ev, stream.checksum, verify=verify)
        except ProtocolError as e:  # (a short event too: its header cannot be read)
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, ER_SLAVE_RELAY_LOG_READ_FAILURE.format(e.message)) from None
        t = h.type_code
        if t != TYPE_FD and t != TYPE_ROTATE and h.server_id != self.relay.server_id and self.sql_delay():
            await self._delay(h.timestamp)  # MASTER_DELAY (MariaDB delays every event but these)
            if self._stopping:
                return  # stopped while it waited: not applied, read again at the next start
        self.executed_events += 1
        # (the body's class follows from the type code, as `decode_parts` decodes it: no
        # isinstance per event)
        if t == TYPE_FD:
            stream.checksum = body.checksum
            if h.server_id == self.relay.server_id:  # our own, first in every relay file
                await self._advance(stream, end)
                return
            if body.create_timestamp and not h.flags & LOG_EVENT_ARTIFICIAL_F:
                # the first binlog of a master that started: its threads' temporary tables are
                # gone with them (MariaDB's Format_description_log_event::do_apply_event)
                await self._flush()
                await self.engine.drop_replicated_temporary()
        elif t == TYPE_ROTATE:
            # The master's coordinates continue in `next_file` (artificial or real ROTATE).
            self.master_file, self.master_pos = body.next_file, body.position
            stream.master_end = body.position
        moves = not h.flags & LOG_EVENT_ARTIFICIAL_F or t == TYPE_GTID_LIST  # a dump by GTID's skip (relay_log.py)
        if h.log_pos and moves and t != TYPE_ROTATE and self.master_file:
            stream.master_end = h.log_pos
        if h.timestamp:
            stream.timestamp = h.timestamp
        if t != TYPE_FD and t != TYPE_ROTATE:
            stream.server_id = h.server_id  # the transaction's origin, kept in our binlog
        if t == TYPE_QUERY:
            await self._query(stream, body, h.timestamp, end)
        elif t == TYPE_XID:
            await self._commit(stream, end)
        elif t == TYPE_GTID:
            if not body.flags2 & FL_STANDALONE:
                stream.begin()
            stream.gtid = Gtid(body.domain_id, h.server_id, body.seq_no)
        elif t == TYPE_INTVAR:
            if body.type == INTVAR_INSERT_ID:
                stream.insert_id = body.value
            elif body.type == INTVAR_LAST_INSERT_ID:
                stream.last_insert_id = body.value
        elif t == TYPE_RAND:
            assert isinstance(body, Rand)
            stream.rand_seed = (body.seed1, body.seed2)
        elif t == TYPE_USER_VAR:
            assert isinstance(body, UserVar)
            stream.user_vars[body.name] = user_var_value(body, errors="replace")
        elif t == TYPE_TABLE_MAP:
            assert isinstance(body, TableMap)
            stream.tables[body.table_id] = TableLayout.from_table_map(body)
        elif t in _LOAD_FILE_EVENTS:
            await self._load_event(stream, body, h, end)
        elif is_rows_event(t):
            assert isinstance(body, Rows)
            self._rows(stream, t, body, h.timestamp)
            if not stream.in_group and body.flags & ROWS_STMT_END_F:
                await self._commit(stream, end)
        else:
            # ROTATE, FD, STOP, GTID_LIST, BINLOG_CHECKPOINT, ANNOTATE_ROWS, ...: nothing to apply.
            if not stream.in_group and not stream.statements:
                await self._advance(stream, end)

    async def _advance(self, stream: _Stream, end: int) -> None:
        """Move past an event that applies nothing (after the transactions read before it)."""
        await self._flush()
        self.relay_pos = end
        if stream.master_end:
            self.master_pos = stream.master_end

    async def _query(self, stream: _Stream, q: Query, timestamp: int, end: int) -> None:
        sql = q.query
        if sql[:1] in _PLAIN_FIRST or sql[:7].upper().startswith(_PLAIN_HEADS):
            # INSERT, UPDATE, DELETE ...: no transaction boundary, no user statement
            await self._statement(stream, q, sql, timestamp, end)
            return
        kind = statement_kind(sql)
        if kind == "BEGIN":
            stream.begin()
            return
        if kind == "COMMIT":
            await self._commit(stream, end)
            return
        if kind == "ROLLBACK":
            # a transaction binlogged although rolled back: what it did to temporary tables
            # stays (as MariaDB's replica runs it and rolls back), the rest is discarded
            kept = [s for s in stream.statements if keeps_transaction(s[0])]
            if kept:
                stream.statements = kept
                await self._commit(stream, end)
                return
            stream.reset()
            await self._advance(stream, end)
            return
        head = " ".join(sql.lstrip().split(None, 2)[:2]).upper()
        if head.startswith(USER_STATEMENT_PREFIXES):
            await self._flush()  # the user store sees the transactions before it applied
            if stream.in_group:  # applied with its group, not binlogged on its own
                await self._user_statement(sql)
                return
            stream.reset_context()
            stream.statements = [(sql, self.make_context(timestamp=timestamp), q.db or None)]
            await self._commit(stream, end, user_statement=True)  # applied (or skipped) there
            return
        await self._statement(stream, q, sql, timestamp, end)

    async def _statement(self, stream: _Stream, q: Query, sql: str, timestamp: int, end: int) -> None:
        """A QUERY that is a statement to run (not a boundary, not a user statement): into the
        open transaction with the context its prefix events gave it."""
        stream.statements.append((sql, self._context(stream, q, sql, timestamp), q.db or None))
        stream.reset_context()
        if not stream.in_group:
            await self._commit(stream, end)

    def _context(self, stream: _Stream, q: Query | ExecuteLoadQuery, sql: str, timestamp: int,
                 row_vars: dict[str, Any] | None = None, first: bool = True) -> Any:
        """The context a statement of `q` runs with: its prefix events' and its status
        variables' (`row_vars`: a loaded row's @variables over the user variables; `first`: the
        statement that takes the INSERT_ID); a sql_mode the engine does not follow stops the
        applier before it."""
        fk_checks, mode, microseconds, step = statement_replay(q.status_vars)
        if mode & _UNFOLLOWED_MASK:
            # written under a sql_mode the engine does not follow: stop before it, as for a failure
            unfollowed = next(name for name in sql_mode_names(mode) if name in UNFOLLOWED_SQL_MODES)
            message = SQLError(ER_NOT_SUPPORTED_YET, f"sql_mode {unfollowed}").message
            raise ApplierError(ER_NOT_SUPPORTED_YET.code,
                               f"Error '{message}' on query. Default database: '{q.db or ''}'. Query: '{sql}'")
        # (the stream's dict is the statement's own: `reset_context` gives the next one a new dict)
        user_vars = {**stream.user_vars, **row_vars} if row_vars else stream.user_vars
        return self.make_context(
            timestamp=timestamp,
            insert_id=stream.insert_id if first else None,
            last_insert_id=stream.last_insert_id,
            rand_seed=stream.rand_seed,
            user_vars=user_vars,
            foreign_key_checks=fk_checks,
            no_auto_value_on_zero=bool(mode & SQL_MODE_NO_AUTO_VALUE_ON_ZERO),
            sql_mode=mode,  # (its strictness: what it stored adjusted is stored so here)
            microseconds=microseconds,
            auto_increment=step,  # (the ids after INSERT_ID: Q_AUTO_INCREMENT)
            # (whose temporary tables its names find: engine/temporary.py)
            thread_id=q.thread_id, server_id=stream.server_id,
        )

    # -- LOAD DATA INFILE as its file's events ---------------------------------------------------
    async def _load_event(self, stream: _Stream, body: Body, h: EventHeader, end: int) -> None:
        """One of a LOAD DATA's events (the module's header)."""
        if isinstance(body, AppendBlock):  # (BeginLoadQuery is one)
            self._spool(stream, body, h.server_id)
        elif isinstance(body, ExecuteLoadQuery):
            await self._load(stream, body, h.timestamp, end)
        elif isinstance(body, DeleteFile):
            _drop(stream.loads.pop(body.file_id, None))
            if not stream.in_group and not stream.statements:  # (as any event that applies nothing)
                await self._advance(stream, end)

    def _spool(self, stream: _Stream, body: AppendBlock, origin: int) -> None:
        """A block of a LOAD DATA's file: appended to its file in the datadir (MariaDB's
        SQL_LOAD-* file), never held in memory; BEGIN_LOAD_QUERY starts the file anew."""
        spool = stream.loads.get(body.file_id)
        if isinstance(body, BeginLoadQuery):
            _drop(spool)
            path = self.relay.path(f"{LOAD_FILE_PREFIX}{self.relay.server_id}-{origin}-{body.file_id}.data")
            spool = stream.loads[body.file_id] = open(path, "wb")  # noqa: SIM115 - closed by _load / _drop
        elif spool is None:
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, ER_SLAVE_RELAY_LOG_READ_FAILURE.format(
                f"Append_block for file_id {body.file_id} without its Begin_load_query"))
        spool.write(body.block)

    async def _load(self, stream: _Stream, q: ExecuteLoadQuery, timestamp: int, end: int) -> None:
        """EXECUTE_LOAD_QUERY: its statement loads the spooled file, in the open transaction,
        as the statements that store its rows (`load_rows`), each with the event's context (the
        INSERT_ID its first one); the file is gone after it."""
        spool = stream.loads.pop(q.file_id, None)
        if spool is None:
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, ER_SLAVE_RELAY_LOG_READ_FAILURE.format(
                f"Execute_load_query for file_id {q.file_id} without its Begin_load_query"))
        spool.close()
        path = Path(spool.name)
        try:
            sql = q.statement(str(path))
            if self.load_rows is None or q.error_code:
                # (a load that failed part-way on the master: its non-transactional table keeps
                # the rows before the error, which this engine cannot reproduce)
                what = (f"LOAD DATA INFILE that failed on the master (error {q.error_code})" if q.error_code
                        else "LOAD DATA INFILE replicated as its file (Begin_load_query, Execute_load_query events)")
                raise ApplierError(ER_NOT_SUPPORTED_YET.code, SQLError(ER_NOT_SUPPORTED_YET, what).message)
            try:
                rows = self.load_rows(sql, q.db or None, path.read_bytes(), statement_replay(q.status_vars)[1])
            except SQLError as e:
                raise ApplierError(
                    e.code, f"Error '{e.message}' on query. Default database: '{q.db or ''}'. Query: '{sql}'") from None
        finally:
            path.unlink(missing_ok=True)
        for k, (statement, variables) in enumerate(rows):
            stream.statements.append((statement, self._context(stream, q, sql, timestamp, variables, k == 0), q.db or None))
        stream.reset_context()
        if not stream.in_group:
            await self._commit(stream, end)

    def _drop_load_files(self) -> None:
        """Remove the spooled files a stopped run left (their events are read again)."""
        for path in self.relay.datadir.glob(f"{LOAD_FILE_PREFIX}{self.relay.server_id}-*.data"):
            path.unlink(missing_ok=True)

    async def _user_statement(self, sql: str) -> bool:
        """Apply a user statement to the user store; False if it failed (logged, skipped)."""
        if self.apply_user_statement is None:
            return False
        try:
            result = self.apply_user_statement(sql)
            if asyncio.iscoroutine(result):
                await result
        except Exception as e:  # noqa: BLE001 - a user statement never stops the applier
            log.warning("slave SQL: user statement skipped (%s): %s", e, sql[:200])
            return False
        return True

    async def _commit(self, stream: _Stream, end: int, user_statement: bool = False) -> None:
        """A complete transaction: into the batch, applied once the batch is full or nothing
        more is readable (`_flush`)."""
        statements = stream.statements
        gtid = stream.gtid
        replayed = bool(statements and self._skip)  # by crash recovery: in our binlog already
        if gtid is not None and not replayed and self.strict_mode():
            self._check_strict(gtid)  # before anything of it counts as read
        master_start = (self.master_file, self.master_pos)
        if stream.master_end:
            self.master_pos = stream.master_end
        timestamp, server_id = stream.timestamp, stream.server_id
        stream.reset()
        # DDL (anything but DML) is applied alone, as it always was: the engine cannot take back
        # all of it (CREATE DATABASE makes its file at once), so it is never re-run after a
        # failed batch, and the next rows events find the tables as it leaves them.
        alone = first_dml = False
        for k, statement in enumerate(statements):  # (a loop: no generator per transaction)
            if not statement[0].lstrip()[:7].upper().startswith(_DML):
                alone = True
                break
            if not k:
                first_dml = True
        if alone:
            await self._flush()
        if replayed:
            # in the engine and the binlog already: crash recovery replayed it (module docstring)
            self._skip -= 1
            log.info("slave SQL: skipped a transaction recovery replayed (%d more to skip)", self._skip)
            statements = []
        elif user_statement and not await self._user_statement(statements[0][0]):
            statements = []  # failed here: not binlogged either
        if gtid is not None:
            self._read_pos = self._read_pos.with_gtid(gtid)
        ready = ReadyTransaction(statements, self._meta(self.relay_file, end), end, timestamp, server_id,
                                 user_statement, gtid, self._read_pos, master_start,
                                 first_dml and bool(statements) and not user_statement)
        self._batch.append(ready)
        self._batch_statements += len(statements)
        if alone or len(self._batch) >= MAX_BATCH_TRANSACTIONS or self._batch_statements >= MAX_BATCH_STATEMENTS:
            await self._flush()

    def _after_ddl(self, statements: list) -> None:
        """The `after_ddl` seam told of each statement of a committed DDL transaction; a failure
        there is logged, never stops the applier (as a user statement's)."""
        assert self.after_ddl is not None
        for sql, _ctx, db, *_ in statements:
            try:
                self.after_ddl(sql, db)
            except Exception as e:  # noqa: BLE001 - the statement is committed: go on
                log.warning("slave SQL: after a DDL statement (%s): %s", e, sql[:200])

    def _check_strict(self, gtid: Gtid) -> None:
        """gtid_strict_mode (the caller asks it first: OFF, the default, looks nothing up): a
        GTID not above its domain's last one (applied here, or in this server's binlog:
        `binlog_recent`) stops the SQL thread before the transaction, nothing of it applied,
        with MariaDB's 1950 (out of order, or a duplicate)."""
        for last in (self._read_pos.get(gtid.domain_id), self.binlog_recent(gtid.domain_id)):
            if last is not None and gtid.seq_no <= last.seq_no:
                raise ApplierError(ER_GTID_STRICT_OUT_OF_ORDER.code, ER_GTID_STRICT_OUT_OF_ORDER.format(gtid, last))

    async def _flush(self) -> None:
        """Apply the batch: ONE engine commit holding every transaction of it and the position
        after its last one. If that fails, the transactions are applied one by one, so that
        those before the failing one are committed and the error names the failing statement,
        as without batching."""
        batch, self._batch = self._batch, []
        self._batch_statements = 0
        if not batch:
            return
        if len(batch) > 1:
            try:
                await self._commit_shielded(batch)
            except SQLError:
                pass  # nothing of the batch was committed: find the failing transaction
            else:
                self._applied(batch)
                return
        for ready in batch:
            try:
                await self._commit_shielded([ready])
            except SQLError as e:
                # Relay_Master_Log_File / Exec_Master_Log_Pos: where the failing transaction starts, as MariaDB's
                self.master_file, self.master_pos = ready.master_start
                self._read_pos = self.gtid_slave_pos
                sql, _ctx, db, *_ = ready.statements[-1] if ready.statements else ("", None, None)
                failing = getattr(e, "statement", None) or sql
                raise ApplierError(
                    e.code,
                    f"Error '{e.message}' on query. Default database: '{db or ''}'. Query: '{failing}'",
                ) from None
            self._applied([ready])

    async def _commit_shielded(self, transactions: list[ReadyTransaction]) -> None:
        """The commit seam, not cancelled with the applier: a group commit that has written the
        binlog must reach the engine with its position (a cancelled leader would leave its data
        for a later group to commit without the applier's position)."""
        loop = self._loop
        assert loop is not None
        # what asyncio.shield does: the applier waits on a future of its own, so that cancelling
        # it leaves the commit running; the task settles that future in its last step (no done
        # callback between: the applier goes on in the next turn of the loop)
        outcome = loop.create_future()
        self._committing = loop.create_task(_commit_telling(self.commit(transactions), outcome))
        await outcome

    def _applied(self, batch: list[ReadyTransaction]) -> None:
        last = batch[-1]
        self.relay_pos = last.end
        self.last_master_timestamp = last.timestamp
        self.applied_transactions += len(batch)
        moved = False
        for t in batch:
            if t.transactional:
                self.transactional_groups += 1
            elif t.statements:  # (a user statement is DDL too, as MariaDB counts it)
                self.ddl_groups += 1
                if self.after_ddl is not None and not t.user_statement:
                    self._after_ddl(t.statements)
            if t.gtid is not None:
                moved = True
        if moved:
            assert last.gtid_slave_pos is not None  # `_commit` sets it on every transaction it batches
            self.gtid_slave_pos = last.gtid_slave_pos
            self._moved()

    # -- row events -------------------------------------------------------------------------------
    def _rows(self, stream: _Stream, t: int, rows: Rows, timestamp: int) -> None:
        layout = stream.tables.get(rows.table_id)
        if layout is None:
            raise ApplierError(
                ER_SLAVE_RELAY_LOG_READ_FAILURE.code,
                f"rows event for table id {rows.table_id} without its TABLE_MAP; the event's master log {self.master_file}, end_log_pos {stream.master_end}",
            )
        try:
            changes = decode_rows(layout, t, rows)
        except UnsupportedColumnType as e:
            raise ApplierError(ER_SLAVE_CONVERSION_FAILED.code, str(e)) from None
        except ProtocolError as e:
            raise ApplierError(ER_SLAVE_RELAY_LOG_READ_FAILURE.code, e.message) from None
        columns = self.table_columns(layout.db, layout.table)
        if columns is None:
            raise ApplierError(
                1146, f"Table '{layout.db}.{layout.table}' doesn't exist (applying a row event)"
            )
        ctx = self.make_context(timestamp=timestamp, insert_id=None, last_insert_id=None, rand_seed=None, user_vars={},
                                row_image=True)
        for change in changes:
            sql = _row_statement(layout, columns, change)
            # an UPDATE/DELETE image must find its row (1032 otherwise, as MySQL's slave)
            stream.statements.append((sql, ctx, layout.db, None if change.kind == "insert" else layout.table))


class _Stream:
    """What the applier carries between events of one relay log file."""

    def __init__(self) -> None:
        self.checksum = False
        self.in_group = False
        self.statements: list[Statement] = []
        self.tables: dict[int, TableLayout] = {}
        self.master_end = 0
        self.timestamp = 0
        self.server_id = 0
        self.gtid: Gtid | None = None  # the GTID event that began the current transaction
        self.loads: dict[int, BinaryIO] = {}  # LOAD DATA files being spooled, by file_id
        self.reset_context()

    def begin(self) -> None:
        self.in_group = True
        self.statements = []

    def reset_context(self) -> None:
        self.insert_id: int | None = None
        self.last_insert_id: int | None = None
        self.rand_seed: tuple[int, int] | None = None
        self.user_vars: dict[str, Any] = {}

    def reset(self) -> None:
        self.in_group = False
        self.gtid = None
        self.statements = []
        self.tables = {}
        for spool in self.loads.values():
            _drop(spool)
        self.loads = {}
        self.reset_context()


def _drop(spool: BinaryIO | None) -> None:
    """Close and remove a spooled LOAD DATA file."""
    if spool is not None:
        spool.close()
        Path(spool.name).unlink(missing_ok=True)


async def _commit_telling(commit: Awaitable[None], outcome: asyncio.Future[None]) -> None:
    """The commit seam's call (`_commit_shielded`'s task): its outcome passed to the future the
    applier waits on as it ends, and retrieved here even when the applier was cancelled (the
    commit ended after it): the task itself ends without an exception unless it is cancelled or
    stops the loop (KeyboardInterrupt, SystemExit)."""
    try:
        await commit
    except asyncio.CancelledError:
        if not outcome.done():
            outcome.cancel()
        raise
    except BaseException as exc:  # the applier's to raise, through `outcome`
        if not outcome.done():
            outcome.set_exception(exc)
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise  # (the loop's too, as from any task)
    else:
        if not outcome.done():
            outcome.set_result(None)


# -- SQL for row changes ------------------------------------------------------------------------------


def _ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True, slots=True)
class SlaveColumn:
    """A column of the slave's own table, as the row applier needs it."""

    name: str
    base: str  # lower-case MySQL type name (int, varchar, blob, enum ...)
    unsigned: bool = False
    args: tuple[str, ...] = ()  # enum/set members (quoted), lengths
    primary: bool = False
    generated: bool = False  # GENERATED ALWAYS AS (...): the slave computes it, a row image's value is skipped


def _column_info(col: SlaveColumn) -> tuple[str, str, bool, tuple[str, ...]]:
    return col.name, col.base, col.unsigned, col.args


_BINARY_BASES = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bit"}


def _literal(value: Any, col: Any, type_code: int) -> str:
    if value is None:
        return "NULL"
    name, base, unsigned, args = _column_info(col)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        if base in ("enum",) and args:
            return _string(_unquote(args[value - 1]) if 0 < value <= len(args) else "")
        if base in ("set",) and args:
            members = [_unquote(a) for i, a in enumerate(args) if value & (1 << i)]
            return _string(",".join(members))
        if unsigned:
            value = as_unsigned(value, type_code)
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        if base in _BINARY_BASES:
            return "X'" + value.hex() + "'"
        return _string(value.decode("utf-8", "replace"))
    if isinstance(value, datetime.datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
        if value.microsecond:
            text += f".{value.microsecond:06d}"
        return _string(text)
    if isinstance(value, datetime.date):
        return _string(value.isoformat())
    if isinstance(value, datetime.timedelta):
        sign = "-" if value < datetime.timedelta(0) else ""
        micros = abs(value) // datetime.timedelta(microseconds=1)
        total, us = divmod(micros, 1000000)
        frac = f".{us:06d}" if us else ""
        return _string(f"{sign}{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}{frac}")
    return _string(str(value))


def _unquote(arg: str) -> str:
    if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "'\"":
        return arg[1:-1].replace(arg[0] * 2, arg[0])
    return arg


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _row_statement(layout: TableLayout, columns: list[Any], change: RowChange) -> str:
    table = f"{_ident(layout.db)}.{_ident(layout.table)}"
    if len(columns) < len(layout.types):
        raise ApplierError(
            ER_SLAVE_CONVERSION_FAILED.code,
            f"table {layout.name} has {len(columns)} columns on the slave, the master's row has {len(layout.types)}",
        )

    def pairs(image: tuple[Any, ...]) -> list[tuple[str, str]]:
        out = []
        for i, value in enumerate(image):
            col = columns[i]
            if value is MISSING or col.generated:
                continue
            out.append((_column_info(col)[0], _literal(value, col, layout.types[i])))
        return out

    def where(image: tuple[Any, ...]) -> str:
        cond = []
        for i, value in enumerate(image):
            if value is MISSING or (keys and i not in keys) or columns[i].generated:
                continue
            name = _ident(_column_info(columns[i])[0])
            lit = _literal(value, columns[i], layout.types[i])
            cond.append(f"{name} IS NULL" if lit == "NULL" else f"{name} = {lit}")
        if not cond:
            raise ApplierError(ER_UNKNOWN_ERROR.code, f"row event for {layout.name}: no column to find the row by")
        return " AND ".join(cond)

    if change.kind == "insert":
        assert change.after is not None
        items = pairs(change.after)
        names = ", ".join(_ident(n) for n, _ in items)
        values = ", ".join(v for _, v in items)
        return f"INSERT INTO {table} ({names}) VALUES ({values})"
    # a row image changes exactly one row: without a primary key, one of identical rows
    keys = _primary_key_positions(columns)  # where() finds the row by these (all columns if none)
    one = "" if keys else " LIMIT 1"
    if change.kind == "update":
        assert change.before is not None and change.after is not None
        sets = ", ".join(f"{_ident(n)} = {v}" for n, v in pairs(change.after))
        return f"UPDATE {table} SET {sets} WHERE {where(change.before)}{one}"
    assert change.before is not None
    return f"DELETE FROM {table} WHERE {where(change.before)}{one}"


def _primary_key_positions(columns: list[SlaveColumn]) -> set[int]:
    return {i for i, c in enumerate(columns) if c.primary}


__all__ = ["Applier", "ApplierError", "CommitReplicated", "ReadyTransaction", "SlaveColumn"]
