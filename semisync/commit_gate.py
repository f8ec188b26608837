"""The commit gate: committing sessions waiting until their binlog position is replicated.

Contract
- One waiter per binlog position: sessions that wait for the same position (a commit group
  waits once, but a shell may also call once per session) share it and wake together.
- Waiters are kept in a heap ordered by position, so an ack for position P pops exactly the
  waiters at or before P and wakes each once (no broadcast to every waiting session).
- Every waiter ends exactly once, with an `Outcome`: ACKED (replicated in time), TIMED_OUT (its
  own deadline passed: the gate resolves it, then calls `on_timeout(position, transactions)`
  so the plugin can switch  semi-sync off), RELEASED (semi-sync switched off, was disabled or uninstalled, RESET MASTER),
  or SHUTDOWN (the server stopped waiting: the commit is in doubt).
- Deadlines use the running loop's clock (`loop.call_at`), so a test can drive them with a loop
  whose `time` is a fake clock. One timer serves every waiter: it is armed for the earliest
  deadline when none is armed for an earlier one, and left alone when a waiter is released;
  when it fires it expires every waiter then due (in deadline order; within 1 ms is due, as
  uvloop's timers are of millisecond resolution) and is armed again for the earliest deadline
  left. So a waiter released in time (every acked commit group) arms and cancels no timer.
- Each waiting session awaits a future of its own, which the waiter's release settles (no
  shared future to shield from a cancelled session): a session that is cancelled leaves the
  waiter to the others; the last one to leave removes it. `wait` is `enter`, the await of the
  future it returns, then `leave` (always, also when cancelled); a caller that is itself a
  coroutine may make those three steps in its own frame (no coroutine of the gate's per wait).
- Single-threaded: everything runs on the event loop thread, so no locks.
"""

from __future__ import annotations

import asyncio
import enum
import heapq
import itertools
from collections.abc import Callable

from protocol.position import BinlogPosition


class Outcome(enum.Enum):
    ACKED = "acked"
    TIMED_OUT = "timed out"
    RELEASED = "released"
    SHUTDOWN = "shutdown"


class _Waiter:
    __slots__ = ("position", "futures", "deadline", "transactions", "outcome")

    def __init__(self, position: BinlogPosition, deadline: float):
        self.position = position
        self.futures: list[asyncio.Future[Outcome]] = []  # one per waiting session
        self.deadline = deadline  # on the loop's clock
        self.transactions = 0
        self.outcome: Outcome | None = None  # set once, when released


_DUE_EARLY = 0.001  # a deadline this close is due when the timer fires (millisecond timers)


class CommitGate:
    def __init__(self, on_timeout: Callable[[BinlogPosition, int], None]):
        self._on_timeout = on_timeout
        self._waiters: dict[BinlogPosition, _Waiter] = {}
        # (position, tie-breaker); an entry whose waiter is gone from `_waiters` is skipped.
        self._heap: list[tuple[BinlogPosition, int, _Waiter]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None  # due at `_timer_at`, the deadlines' timer
        self._timer_at = 0.0
        self._timer_loop: asyncio.AbstractEventLoop | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of the last `enter`, while it runs
        self.sessions = 0  # sessions waiting right now (Rpl_semi_sync_master_wait_sessions)

    def __len__(self) -> int:
        return len(self._waiters)

    def __contains__(self, position: BinlogPosition) -> bool:
        return position in self._waiters

    @property
    def max_position(self) -> BinlogPosition | None:
        return max(self._waiters) if self._waiters else None

    def futures(self) -> list[asyncio.Future[Outcome]]:
        """The pending waiters' futures (to await them all, e.g. at shutdown)."""
        return [f for w in self._waiters.values() for f in w.futures]

    @property
    def transactions(self) -> int:
        """Transactions whose commit waits right now (each wait says how many it stands for)."""
        return sum(w.transactions for w in self._waiters.values())

    async def wait(self, position: BinlogPosition, timeout: float, transactions: int = 1) -> Outcome:
        """Wait until `position` is released; `timeout` (seconds) applies to a new waiter only."""
        waiter, future = self.enter(position, timeout, transactions)
        try:
            return await future
        finally:
            self.leave(waiter, future, transactions)

    def enter(self, position: BinlogPosition, timeout: float,
              transactions: int = 1) -> tuple[_Waiter, asyncio.Future[Outcome]]:
        """`wait`'s start: the waiter of `position` (made, with its deadline `timeout` seconds
        from now, when there is none) and this session's future, which its release settles.
        The caller awaits the future, then calls `leave` with both, whatever happened."""
        loop = self._loop  # (kept: CPython 3.11's get_running_loop makes a getpid(2) per call)
        if loop is None or not loop.is_running():  # (a stopped loop is not the caller's)
            loop = self._loop = asyncio.get_running_loop()
        waiter = self._waiters.get(position)
        if waiter is None:
            waiter = _Waiter(position, loop.time() + timeout)
            if self._timer is None or waiter.deadline < self._timer_at or self._timer_loop is not loop:
                self._arm(loop, waiter.deadline)
            self._waiters[position] = waiter
            heapq.heappush(self._heap, (position, next(self._order), waiter))
        future = loop.create_future()
        waiter.futures.append(future)
        waiter.transactions += transactions
        self.sessions += 1
        return waiter, future

    def leave(self, waiter: _Waiter, future: asyncio.Future[Outcome], transactions: int = 1) -> None:
        """`wait`'s end, for what `enter` returned: released, or cancelled meanwhile."""
        futures = waiter.futures
        futures.remove(future)
        waiter.transactions -= transactions
        self.sessions -= 1
        if not futures and waiter.outcome is None:
            # Every session of this waiter was cancelled: nobody is left to release.
            self._forget(waiter)

    def release_up_to(self, position: BinlogPosition) -> int:
        """Resolve every waiter at or before `position` as ACKED; return how many."""
        released = 0
        heap, waiters = self._heap, self._waiters
        while heap and not position < heap[0][0]:
            waiter = heapq.heappop(heap)[2]
            if waiters.get(waiter.position) is waiter:
                self._resolve(waiter, Outcome.ACKED)
                released += 1
        return released

    def release_all(self, outcome: Outcome = Outcome.RELEASED) -> int:
        waiters = list(self._waiters.values())
        for waiter in waiters:
            self._resolve(waiter, outcome)
        self._heap.clear()
        return len(waiters)

    def _arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at, self._timer_loop = when, loop
        self._timer = loop.call_at(when, self._expire)

    def _expire(self) -> None:
        """The timer: every waiter due resolved as TIMED_OUT, then `on_timeout` for it (which may
        release the others); the timer armed again for the earliest deadline left."""
        self._timer = None
        loop = self._timer_loop  # (the timer's own)
        assert loop is not None
        due_by = loop.time() + _DUE_EARLY
        due = [w for w in self._waiters.values() if w.deadline <= due_by]
        due.sort(key=lambda w: w.deadline)  # (stable: waiters of one deadline in their order)
        for waiter in due:
            if self._waiters.get(waiter.position) is waiter:  # (not released by an earlier one's on_timeout)
                self._resolve(waiter, Outcome.TIMED_OUT)
                self._on_timeout(waiter.position, waiter.transactions)
        if self._waiters and self._timer is None:
            self._arm(loop, min(w.deadline for w in self._waiters.values()))

    def _resolve(self, waiter: _Waiter, outcome: Outcome) -> None:
        waiters = self._waiters
        if waiters.get(waiter.position) is waiter:  # (`_forget`, without its frame: once per ack)
            del waiters[waiter.position]
        waiter.outcome = outcome
        for future in waiter.futures:
            if not future.done():  # (a session's own, cancelled with it)
                future.set_result(outcome)

    def _forget(self, waiter: _Waiter) -> None:
        if self._waiters.get(waiter.position) is waiter:
            del self._waiters[waiter.position]
