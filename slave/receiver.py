"""`NativeReceiver`: a slave's binlog dump read, framed, written to the relay log, fsynced and
acknowledged on a thread that never takes the GIL (slave/_receiver.c), its records awaited on
the event loop. Used by slave/io_task.py for plain-TCP dumps with sync_relay_log=1.

Contract
- `available()` says whether slave._receiver was built (setup.py, where a C compiler is);
  without it the IO task reads on the loop (`IoTask._read_loop`), the reference path.
- `NativeReceiver(sock, timeout, loop)` starts the thread on a dup of the socket; the caller has
  paused its own reading of the socket first (`transport.pause_reading()`) and reads nothing of
  it any more. The thread starts paused. `go(...)` lets it take the dump's packets itself (fast
  mode), `go_raw()` have it hand back the next bytes as received; both only while it is paused,
  which it is after every record but a BATCH whose `paused` is False.
- `next()` waits for the next records (a list, in the thread's order). A BATCH's events are in
  the relay file already, fsynced, and its ack (`acked`: the log_pos, or -1) left after the
  fsync returned 0. Every other kind pauses the thread (see slave/_receiver.c for each).
- `take_batches(handler)`: a BATCH after which the thread goes on (`paused` False) is given to
  `handler` in the loop's reader callback, in the thread's order, instead of waking the caller
  waiting in `next()`: only while nothing is queued for `next()` ahead of it, so the caller and
  the handler see the records in the thread's order. What the handler raises is raised by the
  next `next()`; the records after it are queued, handed to nobody (`next()` raises first), and
  `stop()` returns them.
- The socket's write direction: the thread writes acks only while it runs in fast mode; the
  caller writes only while it is paused, and nothing it wrote may still be buffered when it
  lets the thread go (the IO task's transport has a write buffer limit of 0 and drains).
- `shutdown()` ends a read in progress (the socket is shut down: a CLOSED record). `stop()` ends
  the thread and returns the records `next()` did not return yet: batches it wrote, which the
  caller counts before it cuts the relay log back (an acked event is never cut).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import Protocol

try:
    from slave import _receiver
except ImportError:  # no C compiler where it was installed: the IO task reads on the loop
    _receiver = None

if _receiver is not None:
    BATCH, HANDOFF, CLOSED, TIMEOUT = _receiver.BATCH, _receiver.HANDOFF, _receiver.CLOSED, _receiver.TIMEOUT
    RECV_ERROR, RAW, WRITE_FAILED = _receiver.RECV_ERROR, _receiver.RAW, _receiver.WRITE_FAILED
    SYNC_FAILED, NOT_SENT = _receiver.SYNC_FAILED, _receiver.NOT_SENT
else:
    BATCH = HANDOFF = CLOSED = TIMEOUT = RECV_ERROR = RAW = WRITE_FAILED = SYNC_FAILED = NOT_SENT = -1


def available() -> bool:
    return _receiver is not None


class Record(Protocol):
    """What the thread queued (slave/_receiver.c's `Record`, a struct sequence: made and read
    without a Python call)."""

    kind: int
    err: int
    data: bytes  # the bytes received (HANDOFF, CLOSED, RAW), the batch whose write failed (WRITE_FAILED)
    events: list[bytes]  # a written batch's events (BATCH, SYNC_FAILED, NOT_SENT), in order; else empty
    flagged: list[int]  # indexes in `events` of those that asked for an ack, ascending
    acked: int  # the log_pos the ack named, or -1 (none sent)
    seq: int  # the stream's next sequence id after the record
    after_ack: bool
    paused: bool  # a BATCH after which the thread waits (the relay file reached its max size)


class NativeReceiver:
    def __init__(self, sock: int, timeout: float, loop: asyncio.AbstractEventLoop) -> None:
        if _receiver is None:
            raise RuntimeError("slave._receiver was not built (no C compiler at install)")
        self._rx = _receiver.Receiver(sock, max(int(timeout * 1000), 0))
        self._loop = loop
        self._wake = self._rx.wake_fd
        self._records: collections.deque[Record] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._handler: Callable[[Record], None] | None = None
        self._failed: BaseException | None = None  # what the handler raised, for `next()`
        loop.add_reader(self._wake, self._woken)

    def take_batches(self, handler: Callable[[Record], None]) -> None:
        self._handler = handler

    def go(self, relay_fd: int, relay_size: int, max_size: int, semisync: bool, checksum: bool,
           seq: int, after_ack: bool, ack: bytes, ack_pos_at: int, data: bytes) -> None:
        self._rx.go(relay_fd, relay_size, max_size, semisync, checksum, seq, after_ack, ack, ack_pos_at, data)

    def go_raw(self) -> None:
        self._rx.go_raw()

    async def next(self) -> list[Record]:
        while not self._records and self._failed is None:
            if self._wake < 0:
                raise RuntimeError("the receiver is stopped")
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self._failed is not None:
            failed, self._failed = self._failed, None
            self._handler = None  # the records after it are `stop()`'s
            raise failed
        out = list(self._records)
        self._records.clear()
        return out

    def _woken(self) -> None:
        records, handler = self._records, self._handler
        for record in self._rx.take():
            if handler is not None and not records and record.kind == BATCH and not record.paused and self._failed is None:
                try:
                    handler(record)
                except BaseException as e:  # noqa: BLE001 - the caller's, raised by its `next()`
                    self._failed = e
            else:
                records.append(record)
        if (records or self._failed is not None) and self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def shutdown(self) -> None:
        if self._wake >= 0:
            self._rx.shutdown()

    def stop(self) -> list[Record]:
        """End the thread (waits for a write or fsync it is in); the records not returned yet."""
        if self._wake < 0:
            return []
        self._loop.remove_reader(self._wake)
        self._wake = -1
        self._records.extend(self._rx.stop())
        out = list(self._records)
        self._records.clear()
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_exception(RuntimeError("the receiver is stopped"))
        return out
