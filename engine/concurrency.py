"""The two ways work crosses between the event loop and the engine's threads.

`WriterLock` is the engine's one writer lock (loop side only): strictly FIFO, with an owner;
ownership passes straight to the next waiter, so a committer queued behind sessions runs after
every one of them (the group commit of `engine.core`'s header). A waiter that gives up (timeout,
cancellation) as ownership arrives passes it on; a timed-out waiter is never handed it.
`try_acquire` takes a free lock nobody waits for at once (no future, no task); `enqueue` is a
wait without a task (a session's: KILL QUERY cancels its future), `abandon` ends it. A wait's
timeout is a deadline on the loop clock; one timer per lock, armed no later than the earliest
deadline of a waiter still waiting, times out every waiter whose deadline passed (no timer per
wait: a wait that gets the lock leaves nothing to cancel).
`ThreadLane` is N threads serving one queue: `call()` runs a function on one of them and returns
a future of the calling loop, settled through call_soon_threadsafe (a future cancelled meanwhile
is left alone: the result is dropped, the work was done); `idle()` says no call is queued,
running or unsettled. After `shutdown()` a call fails with 1053. Every SQLite call goes through
a lane (the engine's one writer thread, its N reader threads), except the bounded writes and
commits the loop runs itself while the writer lane is idle and the plain reads it runs on its
own reader connection (`engine.core`'s header, "Threads")."""

from __future__ import annotations

import asyncio
import collections
import queue
import threading
import time
from typing import Any

from protocol.errors import ER_SERVER_SHUTDOWN, SQLError


class WriterLock:
    """A strictly FIFO asyncio lock with an owner; ownership passes straight to the next waiter.

    Waits with a timeout share one timer: it is armed at the earliest deadline of a waiter still
    waiting (or earlier), and when it fires it times out every waiter whose deadline passed and
    arms itself again for the earliest one left. A wait that gets the lock before its deadline
    leaves nothing to cancel: when the timeouts are alike, later waiters' deadlines come after
    the armed one, so a contended lock costs no timer per wait."""

    def __init__(self) -> None:
        self._owner: object | None = None
        # (future, owner, deadline on the loop clock or None), in arrival order
        self._waiters: collections.deque[tuple[asyncio.Future, object, float | None]] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0  # when `_timer` fires: never after a waiting waiter's deadline
        self._timer_loop: asyncio.AbstractEventLoop | None = None  # the loop `_timer` is on
        # the counted waits so far (a statement's, `enqueue(counted=True)`: SHOW STATUS's
        # Innodb_row_lock_*): how many began, their seconds and the longest, added when each
        # ends; when each one waiting began (monotonic)
        self.waits = 0
        self.wait_seconds = 0.0
        self.longest_wait = 0.0
        self._since: dict[asyncio.Future, float] = {}

    @property
    def owner(self) -> object | None:
        return self._owner

    def locked(self) -> bool:
        return self._owner is not None

    def parties(self) -> list[object]:
        """The owner (if any) and each waiter's owner, in order: whom a wait now queues behind."""
        return ([] if self._owner is None else [self._owner]) + [owner for _, owner, _ in self._waiters]

    def try_acquire(self, owner: object) -> bool:
        """Take the lock now if it is free and nobody waits (no future, no task); else False."""
        if self._owner is None and not self._waiters:
            self._owner = owner
            return True
        return False

    async def acquire(self, owner: object, timeout: float | None = None) -> None:
        if self.try_acquire(owner):
            return
        fut = self.enqueue(owner, timeout)
        try:
            await fut
        except BaseException:
            self.abandon(fut, owner)
            raise

    def enqueue(self, owner: object, timeout: float | None = None, *, counted: bool = False) -> asyncio.Future:
        """Queue `owner` behind the waiters, without a task: the future is settled with None
        when ownership passes to `owner`, with TimeoutError after `timeout` seconds. An await
        of it that ends in an exception (its timeout, its cancellation: KILL QUERY cancels it,
        a cancelled task cancels what it awaits) must call `abandon(fut, owner)`. A `counted`
        wait is a statement's, which InnoDB would count as a row-lock wait."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if counted:
            self.waits += 1
            self._since[fut] = time.monotonic()
        if timeout is None:
            self._waiters.append((fut, owner, None))
            return fut
        deadline = loop.time() + timeout
        self._waiters.append((fut, owner, deadline))
        if self._timer is None or deadline < self._timer_at or self._timer_loop is not loop:
            self._arm(loop, deadline)
        return fut

    def _arm(self, loop: asyncio.AbstractEventLoop, when: float) -> None:
        if self._timer is not None and self._timer_loop is loop:
            self._timer.cancel()  # (a timer of a loop the lock was used on before is left to it)
        self._timer = loop.call_at(when, self._expire, loop)
        self._timer_at, self._timer_loop = when, loop

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        """The shared timer: settle every wait whose deadline passed with TimeoutError (`release`
        skips a settled future), then arm for the earliest deadline still ahead."""
        if loop is not self._timer_loop:
            return  # a timer left on a loop the lock is no longer used on
        self._timer = None
        now = loop.time()
        earliest: float | None = None
        for fut, _owner, deadline in self._waiters:
            if deadline is None or fut.done():
                continue
            if deadline <= now:
                fut.set_exception(TimeoutError())
            elif earliest is None or deadline < earliest:
                earliest = deadline
        if earliest is not None:
            self._arm(loop, earliest)

    def abandon(self, fut: asyncio.Future, owner: object) -> None:
        """The waiter of `fut` gives up: forgotten, or, when ownership arrived as it gave up,
        the lock is passed on."""
        if fut.done() and not fut.cancelled() and fut.exception() is None:
            self.release()
        else:
            fut.cancel()
            self._forget(fut)
            self._ended(fut)

    def waiting(self) -> int:
        """How many counted waits for the lock are under way."""
        return len(self._since)

    def _ended(self, fut: asyncio.Future) -> None:
        since = self._since.pop(fut, None)
        if since is not None:
            waited = time.monotonic() - since
            self.wait_seconds += waited
            self.longest_wait = max(self.longest_wait, waited)

    def _forget(self, fut: asyncio.Future) -> None:
        for entry in self._waiters:
            if entry[0] is fut:
                self._waiters.remove(entry)
                return

    def release(self) -> None:
        self._owner = None
        while self._waiters:
            fut, owner, _deadline = self._waiters.popleft()
            if not fut.done():
                self._owner = owner
                fut.set_result(None)
                self._ended(fut)
                return
            self._ended(fut)

    async def __aenter__(self) -> WriterLock:
        await self.acquire(asyncio.current_task())
        return self

    async def __aexit__(self, *exc) -> None:
        self.release()


class Settle:
    """Whether the writer's open SQLite transaction holds groups written to their committer's own
    log (the binlog) that wait for their engine commit without the writer lock: a committer may
    release the lock while it waits (an AFTER_SYNC ack, `master.commit`), so that single-statement
    writes run meanwhile; the group's commit then takes the lock back and commits them with it.

    Who holds the lock for longer than one statement (an explicit transaction's writes,
    FLUSH TABLES WITH READ LOCK, the binlog's exclusive operations) takes it only when no group is
    open (`acquire_settled`), and while it waits no group opens (`may_open` is False): an open
    group could not commit before it let go of the lock, and FLUSH TABLES WITH READ LOCK or RESET
    MASTER must not find the binlog ahead of the engine. Loop side only."""

    def __init__(self) -> None:
        self._open = 0  # groups open
        self._closed: list[asyncio.Future] = []  # waiters for the open groups' end
        self.wanted = 0  # waiters in acquire_settled (and sessions waiting the same way)

    @property
    def is_open(self) -> bool:
        return self._open > 0

    def may_open(self) -> bool:
        """Whether a committer may release the writer lock before its group's engine commit
        (how many may be open at once is the committer's rule)."""
        return not self.wanted

    def open(self) -> None:
        self._open += 1

    def close(self) -> None:
        """Every open group is committed (one engine commit covers them) or rolled back: the
        waiters go on."""
        self._open = 0
        waiters, self._closed = self._closed, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    def closed(self) -> asyncio.Future:
        """A future settled when no group is open (already settled when none is). Cancelling
        it cancels only this wait."""
        fut = asyncio.get_running_loop().create_future()
        if self._open:
            self._closed.append(fut)
        else:
            fut.set_result(None)
        return fut

    async def acquire_settled(self, lock: WriterLock, owner: object, timeout: float | None = None) -> None:
        """`lock.acquire(owner)` once no group is open, waiting at most `timeout` seconds in all
        (TimeoutError); no group opens meanwhile, nor before the caller holds the lock."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        self.wanted += 1
        try:
            if self._open:
                await asyncio.wait_for(self.closed(), timeout)
            await lock.acquire(owner, None if deadline is None else max(0.0, deadline - loop.time()))
        finally:
            self.wanted -= 1


class Handover:
    """The logically committed transactions on their way from the party that let go of the writer
    lock with them in the writer's open SQLite transaction to the committer's queue. A session
    hands its `CommittedTxn` out as it lets go of the lock (`hand`, `engine.session`); the
    committer `take`s it as it queues it (`master.commit.GroupCommit`). While none is on its
    way (`pending` 0), every transaction in the open SQLite transaction is queued, or in a group
    the committer already holds: a committer that has just taken the lock may take its queue
    without waiting for anyone. A transaction handed out and never queued (dropped by its
    caller) leaves `pending` above 0 for good: committers then wait a loop turn before taking
    their queue, as they would for one on its way. Loop side only."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending = 0

    def hand(self, txn: Any) -> Any:
        """`txn` (with a `handover` attribute) is on its way to the committer; returned."""
        txn.handover = self
        self.pending += 1
        return txn

    @staticmethod
    def take(txn: Any) -> None:
        """`txn` is queued by its committer (one that was not handed out is left alone)."""
        handover = getattr(txn, "handover", None)
        if handover is not None:
            txn.handover = None
            handover.pending -= 1


class ThreadLane:
    """`threads` threads serving one queue; `call()` runs a function there, awaited from the loop.
    (Half the hop latency of run_in_executor: one queue put, one call_soon_threadsafe back.)"""

    def __init__(self, threads: int, name: str):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        self._pending = 0  # calls made and not yet settled on the loop (loop side only)
        self._threads = [threading.Thread(target=self._serve, name=f"{name}-{n}", daemon=True)
                         for n in range(threads)]
        for thread in self._threads:
            thread.start()

    def _serve(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            loop, fut, fn, args = item
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
                loop.call_soon_threadsafe(self._settle, fut, None, exc)
            else:
                loop.call_soon_threadsafe(self._settle, fut, result, None)

    def call(self, fn, *args) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        if self._stopped:
            fut.set_exception(SQLError(ER_SERVER_SHUTDOWN))
        else:
            self._pending += 1
            self._queue.put((loop, fut, fn, args))
        return fut

    def idle(self) -> bool:
        """No call is queued, running, or unsettled: the lane's threads touch nothing of what
        they serve until the next `call()` (loop side only)."""
        return self._pending == 0 and not self._stopped

    def on_lane(self) -> bool:
        """The calling thread is one of the lane's."""
        return threading.current_thread() in self._threads

    def _settle(self, fut: asyncio.Future, result: object, exc: BaseException | None) -> None:
        self._pending -= 1
        if fut.cancelled():
            return
        if exc is not None:
            fut.set_exception(exc)
        else:
            fut.set_result(result)

    def shutdown(self) -> None:
        self._stopped = True
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()

