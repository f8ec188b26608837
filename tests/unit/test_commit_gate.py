"""The commit gate (semisync.commit_gate): sessions that wait for one position share its waiter,
each with a future of its own, so that one session's cancellation ends only its
own wait (no `asyncio.shield` per wait)."""

from __future__ import annotations

import asyncio

from protocol.position import BinlogPosition
from semisync.commit_gate import CommitGate, Outcome

P = BinlogPosition("mysql-bin.000001", 400)


async def test_sessions_at_one_position_each_await_their_own_future_and_only_the_last_cancelled_ends_the_wait():
    timeouts: list[tuple[BinlogPosition, int]] = []
    gate = CommitGate(lambda position, transactions: timeouts.append((position, transactions)))
    first = asyncio.ensure_future(gate.wait(P, 10.0, 2))
    second = asyncio.ensure_future(gate.wait(P, 10.0, 1))
    await asyncio.sleep(0)
    assert len(gate) == 1 and gate.sessions == 2 and gate.transactions == 3
    futures = gate.futures()
    assert len(futures) == 2  # one per session, each awaited as it is
    assert {id(f) for f in futures} == {id(first._fut_waiter), id(second._fut_waiter)}  # type: ignore[attr-defined]
    first.cancel()
    await asyncio.sleep(0)
    assert first.cancelled() and not second.done()
    assert len(gate) == 1 and gate.sessions == 1 and gate.transactions == 1
    assert gate.release_up_to(P) == 1
    assert await second is Outcome.ACKED
    assert len(gate) == 0 and gate.sessions == 0 and timeouts == []
    # the last session cancelled removes the waiter (the gate's one timer finds nothing due)
    only = asyncio.ensure_future(gate.wait(P, 10.0))
    await asyncio.sleep(0)
    assert len(gate) == 1
    only.cancel()
    await asyncio.sleep(0)
    assert only.cancelled() and len(gate) == 0 and gate.sessions == 0 and gate.futures() == []
    assert gate.release_up_to(P) == 0  # its heap entry is skipped
