"""`BinlogEnd`: the published end of the master's binlog and its update signal (WL#5721).

Contract
- One writer (the group commit pipeline, or a rotation / RESET MASTER under the writer lock)
  calls `publish(position)` after the bytes up to `position` are written to the OS *and* synced
  per sync_binlog: a dump session never reads past it, so a slave never receives what the
  master could lose in a crash.
- Any number of readers (dump sessions, SHOW BINLOG EVENTS) read `position` and wait for the
  next publish with `await wait(seen, timeout)` (or on the shared future `changed(seen)`
  beside other things); no reader ever takes the writer's lock.
- `generation` grows by one on every publish (RESET MASTER may move the position backwards;
  readers compare generations, not positions, to know that something changed).
- `tail`: the bytes the last publish made visible, when the publisher knows them (the group
  commit hands over the group it just wrote, `binlog.writer.WrittenGroup`: file, [start, end),
  its events as the writer encoded them). Only the LAST group (memory stays bounded); kept
  only when it ends exactly at the published position, in its file; every publish replaces it,
  and a publish without one (rotation, RESET MASTER, a group not known event by event) clears
  it. So a dump session at `tail.start` of `tail.file` reading up to the published end may take
  these events instead of reading them back from the file: the same events, offsets and bytes.
  Whoever is about to change the file's bytes below the published end without a publish first
  (RESET MASTER deletes the files and starts `.000001` again) calls `drop_tail()` before it.
  A failed group write publishes nothing: the file is cut back to the published end, which the
  tail still describes.
- `tail_events` and `tail_sends`: what the dump sessions derive from `tail` to send it as it is
  (its events' bytes as a list; their `SendBatch` for the transmit hooks), made by the first
  session that sends it and used by the others; every publish and `drop_tail` clears them.
- Followers (`follow(push)`): callables run by `publish`, synchronously and in order, after the
  position, the tail and the generation are updated and the shared future settled. A dump session
  parked at the end follows, so that the group just published is sent from the publishing call
  instead of through a wakeup of the dump's task (`DumpSession._pushed`). A follower must not
  raise, nor follow or unfollow while it runs.
Everything runs on the event loop's thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from binlog.writer import WrittenGroup
from protocol.position import BinlogPosition
from semisync.interface import SendBatch


class BinlogEnd:
    __slots__ = ("position", "generation", "tail", "tail_events", "tail_sends", "_changed", "_followers")

    def __init__(self, position: BinlogPosition) -> None:
        self.position = position
        self.generation = 0
        self.tail: WrittenGroup | None = None
        self.tail_events: list[bytes] | None = None
        self.tail_sends: SendBatch | None = None
        self._changed: asyncio.Future[None] | None = None
        self._followers: list[Callable[[], None]] = []

    def publish(self, position: BinlogPosition, tail: WrittenGroup | None = None) -> None:
        self.position = position
        if tail is not None and (tail.file != position.file or tail.end != position.pos):
            tail = None  # not what ends at the published position (a rotation right after it)
        self.tail = tail
        self.tail_events = self.tail_sends = None
        self.generation += 1
        changed, self._changed = self._changed, None
        if changed is not None and not changed.done():
            changed.set_result(None)
        for push in self._followers:
            push()

    def follow(self, push: Callable[[], None]) -> None:
        """Run `push()` at every publish from now on, until `unfollow(push)`."""
        self._followers.append(push)

    def unfollow(self, push: Callable[[], None]) -> None:
        self._followers.remove(push)

    def drop_tail(self) -> None:
        """Forget `tail` (its file's bytes are about to change without a publish first)."""
        self.tail = None
        self.tail_events = self.tail_sends = None

    async def wait(self, seen: int, timeout: float | None) -> bool:
        """Wait until `generation` differs from `seen` (True) or `timeout` seconds pass (False)."""
        changed = self.changed(seen)
        if changed is None:
            return True
        # asyncio.wait never cancels the shared future, whoever times out first.
        await asyncio.wait((changed,), timeout=timeout)
        return self.generation != seen

    def changed(self, seen: int) -> asyncio.Future[None] | None:
        """The future the next publish settles (shared by every reader: never cancel it), or
        None when `generation` already differs from `seen`. A reader that waits for other
        things too waits on it beside them, without a task of its own."""
        if self.generation != seen:
            return None
        if self._changed is None or self._changed.done():
            self._changed = asyncio.get_running_loop().create_future()
        return self._changed
