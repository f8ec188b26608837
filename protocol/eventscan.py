"""A run of received binlog events checked and followed in one compiled call (`protocol/_eventscan.c`).

`scan(events, start, checksum, state[, verified]) -> (stop, last_boundary, positions, closed)`, or None
where the module was not built (no C compiler at install): then every event goes the per-event
way. The contract is the C file's header: from `start`, each event whose size, CRC32 footer and
boundary meaning it decides exactly as the per-event path of the slave's IO task does
(`slave.relay_log.GroupTracker.feed` with the IO task's checks, the reference) is taken, up to
the first it leaves to that path. tests/unit/test_eventscan.py holds the two equal over streams
of every kind of event, corrupt ones included; tests/unit/test_slave_io_task.py holds the relay
log's bytes, the acks and the positions equal with and without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:
    from protocol import _eventscan
except ImportError:  # built without a C compiler
    _eventscan = None  # type: ignore[assignment]

ScanResult = tuple[int, int, list[int], list[tuple[int, int, int]]]

scan: Callable[[list[Any], int, bool, list[Any], bool], ScanResult] | None = (
    _eventscan.scan if _eventscan is not None else None
)
