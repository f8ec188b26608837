"""The foreground lifecycle shared by `semisync master` and `semisync slave`.

Three phases (STYLE.md habit 7): startup (`daemon.start()`), serve (until a signal), shutdown
(`daemon.shutdown()`, which drains under its own deadline). Signal handlers only request the
shutdown; they never do the work themselves.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from collections.abc import Callable
from typing import Any, Protocol

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

# The young generation's threshold while serving (Python's default is 700). A slave holds a few
# thousand young containers at a time between its IO task and its applier (events, batches,
# statements), so at 700 its collector ran about 25 times a second under load, each pass walking
# the same live batches; at this threshold it seldom runs at all. Cycles are still collected.
GC_YOUNG_THRESHOLD = 10_000


class Daemon(Protocol):
    async def start(self) -> None: ...

    async def serve_until_shutdown(self) -> None: ...

    def request_shutdown(self) -> None: ...

    async def shutdown(self) -> None: ...


async def serve(daemon: Daemon, started: Callable[[], str]) -> None:
    """Start `daemon`, log `started()`, serve until SIGTERM/SIGINT, then shut it down."""
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, daemon.request_shutdown)
    try:
        await daemon.start()
        settle_heap()
        logging.getLogger("semisync").info("%s", started())
        await daemon.serve_until_shutdown()
    finally:
        await daemon.shutdown()


def settle_heap() -> None:
    """After startup: what startup built (modules, configuration, catalogs) lives as long as
    the process, so the collector stops walking it (`gc.freeze`), and the young generation gets
    the serving threshold."""
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def run_foreground(daemon: Daemon, started: Callable[[], str]) -> Any:
    """Run `daemon` on uvloop in the foreground until SIGTERM/SIGINT."""
    import uvloop

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    return uvloop.run(serve(daemon, started))
