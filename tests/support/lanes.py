"""Watching the engine's thread lanes: which calls a test's statements hand to a lane's threads."""

from __future__ import annotations

from engine.concurrency import ThreadLane


def watch_lane(lane: ThreadLane, monkeypatch) -> list[str]:
    """The names of the functions handed to `lane` from now on, in order."""
    hops: list[str] = []
    call = lane.call
    monkeypatch.setattr(lane, "call", lambda fn, *args: hops.append(fn.__name__) or call(fn, *args))
    return hops
