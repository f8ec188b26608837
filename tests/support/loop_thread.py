"""An asyncio (uvloop) event loop on a daemon thread, so blocking clients can drive a test while
our async daemons run in-process.

`LoopThread.start(starter)` runs the coroutine `starter()` on the new loop and returns once it
finished (re-raising its exception in the calling thread); `call(x)` runs a coroutine, or a
function returning one (or a plain value), on the loop and waits for its result; `stop(stopper)`
awaits `stopper()` on the loop, then stops the loop and joins the thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any


class LoopThread:
    def __init__(self, name: str) -> None:
        self.name = name
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def start(self, starter: Callable[[], Awaitable[Any]], timeout: float = 60.0) -> None:
        import uvloop

        ready = threading.Event()
        error: list[BaseException] = []

        def run() -> None:
            loop = uvloop.new_event_loop()
            self.loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(starter())
            except BaseException as exc:  # reported to the starting thread
                error.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name=self.name, daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise TimeoutError(f"{self.name} did not start within {timeout}s")
        if error:
            self.loop = None
            raise error[0]

    @property
    def running(self) -> bool:
        return self.loop is not None

    def call(self, work: Any, timeout: float = 60.0) -> Any:
        """Run a coroutine, or a callable returning a coroutine or a value, on the loop."""
        assert self.loop is not None, f"{self.name} is not running"

        async def wrapper() -> Any:
            result = work() if callable(work) else work
            if asyncio.iscoroutine(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(wrapper(), self.loop).result(timeout)

    def stop(self, stopper: Callable[[], Awaitable[Any]] | None = None, timeout: float = 60.0) -> None:
        if self.loop is None:
            return
        try:
            if stopper is not None:
                self.call(stopper, timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            if self._thread is not None:
                self._thread.join(30)
            self.loop = None
