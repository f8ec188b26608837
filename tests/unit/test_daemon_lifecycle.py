"""server.daemon.serve: the three phases in order, and the collector's serving settings taken
between startup and serve."""

from __future__ import annotations

import gc

import pytest

from server import daemon as lifecycle


class Recorder:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.threshold_while_serving: int | None = None
        self.frozen_while_serving = 0

    async def start(self) -> None:
        self.calls.append("start")

    async def serve_until_shutdown(self) -> None:
        self.calls.append("serve")
        self.threshold_while_serving = gc.get_threshold()[0]
        self.frozen_while_serving = gc.get_freeze_count()

    def request_shutdown(self) -> None:
        self.calls.append("request")

    async def shutdown(self) -> None:
        self.calls.append("shutdown")


@pytest.fixture
def restore_gc():
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


async def test_serve_settles_the_heap_after_startup(restore_gc) -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    daemon = Recorder()
    await lifecycle.serve(daemon, lambda: "started")
    assert daemon.calls == ["start", "serve", "shutdown"]
    assert daemon.threshold_while_serving == lifecycle.GC_YOUNG_THRESHOLD
    assert daemon.frozen_while_serving > 0  # what startup left alive is no longer walked
    assert gc.get_threshold()[1:] == (10, 10)  # the older generations keep theirs


async def test_a_failed_startup_still_shuts_down_without_settling(restore_gc) -> None:
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)

    class Broken(Recorder):
        async def start(self) -> None:
            raise OSError("port in use")

    daemon = Broken()
    with pytest.raises(OSError):
        await lifecycle.serve(daemon, lambda: "started")
    assert daemon.calls == ["shutdown"]
    assert gc.get_threshold()[0] == 700 and gc.get_freeze_count() == 0
