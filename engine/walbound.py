"""The WAL's bound under overlapping REPEATABLE READ snapshots: `SnapshotGate`.

SQLite's rule (sqlite.org/wal.html, "Avoiding Excessively Large WAL Files"; wal.c's
walTryBeginRead and walRestartLog): the writer writes its frames from the WAL's start again only
when every frame has been copied into the database file and no read transaction holds a read
mark in the WAL; a read transaction that begins while the WAL is all copied takes mark 0 (the
database file only), which does not keep the WAL from restarting; a checkpoint copies frames
only up to the oldest mark held. At READ COMMITTED every read is its own short read transaction,
so the writer's checkpoint (`Engine._w_checkpoint`) soon finds the WAL copied and free and it
restarts. A snapshot holds its marks (one per file: it takes its view of every file) from its
first read to its transaction's end; sessions' snapshots that overlap all the time (sysbench's
`oltp_read_write` at 4 threads) always hold one, and the WAL grows with every commit while the
load lasts.

The gate: when the writer's checkpoint finds a file's WAL past WAL_BOUND_BYTES (`over`, set on
the writer thread), the next snapshot's first read closes the gate. New snapshots' first reads
then wait (`enter`, a task's wait on the loop: neither the loop nor the writer thread waits)
until every snapshot admitted before has ended (`leave`); then the writer, after a group's
COMMIT (its connection in no transaction), runs a RESTART checkpoint (`Engine._w_restart_wal`):
the whole WAL copied and no reader left in it. It never waits: a read outside the snapshots
still in the WAL makes it fail, and it is tried again RETRY_WAIT later or after the next
commit. Once it is done the gate opens, the waiting snapshots take their views on the database
file (mark 0), and the writer's next commit writes from the WAL's start. A snapshot's view is
still its first read's (a waiting one has read nothing: its first read runs after the gate
opens); the commit path does not wait for the gate, nor does any read outside a snapshot; a
snapshot admitted before never waits for it, so it can always end (its transaction's writes and
COMMIT included).

The limit (GATE_WAIT): a snapshot held open long (an idle transaction) would stall every new
one. Past GATE_WAIT the gate opens without a restart; the snapshots still open then (the
stragglers) are waited for no more, and the gate does not close again until the last of them
has ended: meanwhile the WAL grows, as InnoDB's undo history grows under a long-open read view
(its purge never passes the oldest view). A read outside the snapshots that stays in the WAL
(a long autocommit SELECT) fails every restart and cannot be waited for that way: when the limit
passes with no snapshot open (the k-th time in a row), the gate stays open GATE_WAIT * 2**k (at
most REST_MAX), so such a reader stalls new snapshots for a shrinking part of the time; a
restart done starts the count again.

Threads: everything here runs on the event loop but `restarted`, which the writer thread calls,
`over`, which the writer thread sets, and `due`, which it reads and clears (bools, each read as
it stands: at worst one RESTART checkpoint too many, which waits for nothing)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.connections import Snapshot

# A file's WAL past this size closes the gate. Twice SQLite's own automatic checkpoint size
# (1,000 pages: about 4 MB), above the 6 MB a READ COMMITTED sysbench load's WAL reaches between
# restarts on this machine, so the gate closes under overlapping snapshots only, about once a
# second at the 4-8 MB per second four sysbench sessions write.
WAL_BOUND_BYTES = 8 << 20
# The longest a snapshot's first read waits at the closed gate (seconds): many times a
# transaction's length under load (tens of milliseconds), short against a client's patience.
GATE_WAIT = 1.0
# A RESTART checkpoint that found a reader in the WAL is tried again this long after (seconds).
RETRY_WAIT = 0.005
# The longest the gate stays open after limits in a row (seconds).
REST_MAX = 64.0


class SnapshotGate:
    """The snapshots' gate (the module's header). While `due`, the writer runs a RESTART
    checkpoint after its next commit; `request` has it run one now if no group is open
    (`Engine._w_restart_wal`). Its outcome comes back through `restarted`."""

    def __init__(self, request: Callable[[], None]) -> None:
        self.over = False  # a file's WAL is past WAL_BOUND_BYTES (the writer's checkpoint says)
        self.due = False  # a RESTART checkpoint is wanted (the writer clears it as it runs one)
        self._request = request
        self._epoch = 0  # a snapshot admitted in an earlier epoch outlived a gate's limit
        self._open = 0  # snapshots admitted in this epoch and not ended
        self._stragglers = 0  # snapshots of earlier epochs not ended
        self._opened: asyncio.Event | None = None  # while the gate is closed: set as it opens
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timers: list[asyncio.TimerHandle] = []
        self._limits = 0  # limits reached in a row
        self._rest_until = 0.0  # (loop time) the gate stays open until then, after a limit
        self.closings = 0  # times the gate closed, and of those the times it opened at its limit
        self.expired = 0

    def admit(self, snapshot: Snapshot) -> bool:
        """Admit `snapshot`, whose first read comes (False: the gate is closed, `enter` waits)."""
        if self._opened is None:
            if not self.over or self._stragglers or self._rest_until and self._resting():
                snapshot.epoch = self._epoch
                self._open += 1
                return True
            self._close()
        return False

    async def enter(self, snapshot: Snapshot) -> None:
        """`admit`, waiting while the gate is closed (cancellable: nothing counted then)."""
        while not self.admit(snapshot):
            await self._opened.wait()  # type: ignore[union-attr]

    def leave(self, snapshot: Snapshot) -> None:
        """`snapshot`, admitted, has ended (its transaction did)."""
        epoch, snapshot.epoch = snapshot.epoch, None
        if epoch != self._epoch:
            self._stragglers -= 1
            return
        self._open -= 1
        if not self._open and self._opened is not None:
            self._ask()

    def restarted(self, done: bool) -> None:
        """The writer's RESTART checkpoint's outcome (any thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._restarted, done)

    def shutdown(self) -> None:
        """The engine closes: the waiting snapshots go on (to its closed readers' error)."""
        self._open_gate()

    def _resting(self) -> bool:
        """Still in the rest after a limit (else it is over)."""
        if self._loop.time() < self._rest_until:  # type: ignore[union-attr]
            return True
        self._rest_until = 0.0
        return False

    def _close(self) -> None:
        self.closings += 1
        self._loop = loop = asyncio.get_running_loop()
        self._opened = asyncio.Event()
        self._timers = [loop.call_later(GATE_WAIT, self._expire)]
        if not self._open:
            self._ask()

    def _ask(self) -> None:
        self.due = True
        self._request()

    def _restarted(self, done: bool) -> None:
        if self._opened is None:
            return  # (opened at its limit meanwhile)
        if done:
            self._limits = 0
            self._open_gate()
        else:
            self._timers.append(self._loop.call_later(RETRY_WAIT, self._ask))  # type: ignore[union-attr]

    def _expire(self) -> None:
        """GATE_WAIT has passed: the snapshots still open become stragglers and the gate opens;
        with none (a reader outside the snapshots failed the restart), it rests too."""
        self.expired += 1
        if not self._open:
            self._rest_until = self._loop.time() + min(GATE_WAIT * 2 ** self._limits, REST_MAX)  # type: ignore[union-attr]
            self._limits += 1
        self._stragglers += self._open
        self._open = 0
        self._epoch += 1
        self._open_gate()

    def _open_gate(self) -> None:
        self.due = False
        opened, self._opened = self._opened, None
        for timer in self._timers:
            timer.cancel()
        self._timers = []
        if opened is not None:
            opened.set()
