"""The ack container of WL#7169: the latest ack of every slave, and what N of them cover.

Contract
- `insert(server_id, position)` records a slave's ack. A slave's entry only moves forward (a
  stale or duplicate ack changes nothing); slaves are told apart by server_id, so a slave that
  reconnects keeps its entry.
- `replicated` is the largest position that at least `size` (N = wait_for_slave_count)
  distinct slaves have acked at or beyond: the N-th largest of the latest acks, or None while
  fewer than N slaves have acked anything. It can move backwards when N grows (the caller keeps
  its own reply position, which never does).
- `resize(n)` changes N at run time and returns the new `replicated`, so that lowering N can
  release waiting commits at once.

WL#7169 keeps N-1 slots and empties them as positions get reported; this keeps one entry per
slave and computes the N-th largest on each insert. The set of slaves is small (the worklog
notes the same), so the sort costs less than the bookkeeping it avoids, and the answer is the
definition itself.
"""

from __future__ import annotations

from protocol.position import BinlogPosition


class AckContainer:
    __slots__ = ("_size", "_acks")

    def __init__(self, size: int = 1):
        if size < 1:
            raise ValueError("an ack container needs N >= 1")
        self._size = size
        self._acks: dict[int, BinlogPosition] = {}

    @property
    def size(self) -> int:
        return self._size

    def insert(self, server_id: int, position: BinlogPosition) -> BinlogPosition | None:
        """Record an ack; return `replicated` afterwards."""
        acks = self._acks
        known = acks.get(server_id)
        if known is None or known < position:
            acks[server_id] = position
        if self._size == 1:  # (the usual N: `replicated` without its call)
            return max(acks.values())
        return self.replicated

    def resize(self, size: int) -> BinlogPosition | None:
        if size < 1:
            raise ValueError("an ack container needs N >= 1")
        self._size = size
        return self.replicated

    @property
    def replicated(self) -> BinlogPosition | None:
        if len(self._acks) < self._size:
            return None
        if self._size == 1:
            return max(self._acks.values())
        return sorted(self._acks.values(), reverse=True)[self._size - 1]

    def latest(self, server_id: int) -> BinlogPosition | None:
        return self._acks.get(server_id)

    def clear(self) -> None:
        self._acks.clear()

    def __len__(self) -> int:
        return len(self._acks)
