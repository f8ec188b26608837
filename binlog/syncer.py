"""`NativeSyncer`: fsync(2) of a log file on a thread that never takes the GIL, awaited on the
event loop.

Contract
- `NativeSyncer.open(loop)` starts one thread of `binlog._syncer` (binlog/_syncer.c, built by
  setup.py where a C compiler is; `available()` says whether it was). `fsync(fd)` (or
  `fdatasync(fd)`) returns a future that is done once fsync(2) (fdatasync(2)) of `fd` returned: None, or its OSError (errno as the call
  gave it). Calls are served one at a time, in order. The caller keeps `fd` open until the future
  is done and does not write to the file meanwhile (what the fsync covers is what was written
  before the call); a caller that goes away before the answer only leaves a harmless fsync behind.
- The thread calls no Python API: the fsync costs the loop one write(2) of 8 bytes and the
  answer one read(2) in the loop's reader callback, with no GIL hand-over to a Python thread
  (a `ThreadLane` call takes the GIL twice on its thread and wakes the loop through
  call_soon_threadsafe). The waiting side is the loop's own poll, as for a socket.
- `fsync_then_send(fd, sock, data)`: fsync(2) of `fd` and, only once it returned 0, `data`
  written whole to the socket `sock` by the same thread, without waiting for the loop (a slave's
  ack, which may leave only once its relay log is durable). The future: None once both are done;
  the fsync's OSError (nothing sent); or `NotSent` when the send failed after a good fsync.
  `sock` is the thread's own descriptor: `adopt(sock)` takes a dup of a socket for it and
  `release(fd)` has the thread close it after everything requested before, so that no send can
  reach a number the caller's socket gave back and another connection took.
- `close()` stops reading answers (futures still waiting get an OSError) and ends the thread
  after the fsync it is in; use it once the loop is done with the syncer, on the loop.
- Without the compiled module the caller keeps its thread lane (slave/io_task.py's
  `LaneSyncer`: the same `fsync(fd)` / `close()` with the call on a Python thread; the master's
  group commit writes and fsyncs the group on its binlog I/O thread); tests hold the two equal
  (tests/unit/test_binlog_syncer.py, the IO task's and the group commit's tests on both).
"""

from __future__ import annotations

import asyncio
import collections
import errno
import os
import struct
from collections.abc import Awaitable
from typing import Protocol

try:
    from binlog import _syncer
except ImportError:  # no C compiler where it was installed: callers use their thread lane
    _syncer = None

_MESSAGE = struct.Struct("=ii")  # binlog/_syncer.c: a descriptor and a kind / an errno
_FSYNC, _FDATASYNC, _FSYNC_SEND, _CLOSE = 0, 1, 2, 3
SEND_MAX = 2048  # binlog/_syncer.c's limit on the bytes of one fsync-then-send


class NotSent(OSError):
    """`fsync_then_send`: the fsync succeeded, the send did not (some of the bytes may have left)."""


def available() -> bool:
    return _syncer is not None


class Syncer(Protocol):
    """What a log's owner awaits its fsyncs with: `NativeSyncer`, or a thread lane's twin."""

    def fsync(self, fd: int) -> Awaitable[None]:
        """Done once fsync(2) of `fd` returned (its OSError, if it failed)."""
        ...

    def close(self) -> None:
        """No more calls; the thread ends."""


class NativeSyncer:
    def __init__(self, loop: asyncio.AbstractEventLoop, requests: int, answers: int) -> None:
        self._loop = loop
        self._requests = requests
        self._answers = answers
        self._waiting: collections.deque[asyncio.Future[None]] = collections.deque()
        os.set_blocking(answers, False)
        loop.add_reader(answers, self._answered)

    @classmethod
    def open(cls, loop: asyncio.AbstractEventLoop | None = None) -> NativeSyncer:
        if _syncer is None:
            raise RuntimeError("binlog._syncer was not built (no C compiler at install)")
        requests, answers = _syncer.start()
        return cls(loop or asyncio.get_running_loop(), requests, answers)

    def fsync(self, fd: int) -> asyncio.Future[None]:
        return self._call(fd, _FSYNC)

    def fdatasync(self, fd: int) -> asyncio.Future[None]:
        """As `fsync`, with fdatasync(2) (the data and the size, not the timestamps: a binlog's
        group, as MySQL's my_sync)."""
        return self._call(fd, _FDATASYNC)

    def fsync_then_send(self, fd: int, sock: int, data: bytes) -> asyncio.Future[None]:
        if not 0 < len(data) <= SEND_MAX:
            raise ValueError(f"fsync_then_send takes 1 to {SEND_MAX} bytes, not {len(data)}")
        return self._call(fd, _FSYNC_SEND, _MESSAGE.pack(sock, len(data)) + data)

    def adopt(self, sock: int) -> int:
        """A descriptor of the thread's own for the socket `sock` (a dup), for `fsync_then_send`."""
        return os.dup(sock)

    def release(self, fd: int) -> None:
        """The thread closes `fd` (from `adopt`) after what was requested before; nothing waits
        for it. Closed here at once when the thread is gone."""
        if self._requests < 0:
            os.close(fd)
            return
        done = self._call(fd, _CLOSE)
        done.add_done_callback(_settled)  # nobody awaits it: an answer lost at close is no error

    def _call(self, fd: int, kind: int, extra: bytes = b"") -> asyncio.Future[None]:
        done = self._loop.create_future()
        if self._requests < 0:
            done.set_exception(OSError(errno.EBADF, "the syncer is closed"))
            return done
        # one write(2) under PIPE_BUF: whole, in order with the others, and the pipe has room
        os.write(self._requests, _MESSAGE.pack(fd, kind) + extra)
        self._waiting.append(done)
        return done

    def _answered(self) -> None:
        try:
            data = os.read(self._answers, _MESSAGE.size * 64)
        except BlockingIOError:
            return
        if not data:  # the thread ended: nothing more will be answered
            self._stop_reading()
            return
        for fd, err in _MESSAGE.iter_unpack(data):  # whole messages: each was written at once
            done = self._waiting.popleft()
            if done.done():  # its caller went away (cancelled), or nobody waits (a release)
                continue
            if err:
                done.set_exception((NotSent if fd == -1 else OSError)(err, os.strerror(err)))
            else:
                done.set_result(None)

    def _stop_reading(self) -> None:
        if self._answers >= 0:
            self._loop.remove_reader(self._answers)
            os.close(self._answers)
            self._answers = -1
        while self._waiting:
            done = self._waiting.popleft()
            if not done.done():
                done.set_exception(OSError(errno.EIO, "the syncer stopped before answering"))

    def close(self) -> None:
        if self._requests >= 0:
            os.close(self._requests)  # the thread ends after its current fsync
            self._requests = -1
        self._stop_reading()


def _settled(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()  # retrieved
