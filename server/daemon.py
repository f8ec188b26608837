"""The foreground lifecycle shared by `semisync master` and `semisync slave`.

Three phases (STYLE.md habit 7): startup (`daemon.start()`), serve (until a signal), shutdown
(`daemon.shutdown()`, which drains under its own deadline). Signal handlers only request the
shutdown; they never do the work themselves.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Callable
from typing import Any, Protocol

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


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
        logging.getLogger("semisync").info("%s", started())
        await daemon.serve_until_shutdown()
    finally:
        await daemon.shutdown()


def run_foreground(daemon: Daemon, started: Callable[[], str]) -> Any:
    """Run `daemon` on uvloop in the foreground until SIGTERM/SIGINT."""
    import uvloop

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)
    return uvloop.run(serve(daemon, started))
