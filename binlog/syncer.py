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
_FSYNC, _FDATASYNC = 0, 1


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

    def _call(self, fd: int, kind: int) -> asyncio.Future[None]:
        done = self._loop.create_future()
        if self._requests < 0:
            done.set_exception(OSError(errno.EBADF, "the syncer is closed"))
            return done
        os.write(self._requests, _MESSAGE.pack(fd, kind))  # 8 bytes: whole, and the pipe has room
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
        for _fd, err in _MESSAGE.iter_unpack(data):  # whole messages: each was written at once
            done = self._waiting.popleft()
            if done.done():  # its caller went away (cancelled)
                continue
            if err:
                done.set_exception(OSError(err, os.strerror(err)))
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
