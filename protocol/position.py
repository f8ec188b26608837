"""`BinlogPosition`: a place in a binlog sequence (file name + byte offset).

Positions are values, never bare tuples. They order the way MySQL orders them: first by the
file's numeric extension (`mysql-bin.000009` < `mysql-bin.000010` < `mysql-bin.1000000`), then by
offset. Positions in files of different basenames do not compare (a `LocalProtocolError` is raised
by `__lt__`), because no replication rule can use such a comparison.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering


def file_sequence(name: str) -> tuple[str, int]:
    """Split `base.000123` into (`base`, 123). A name without a numeric extension has sequence -1."""
    base, dot, ext = name.rpartition(".")
    if dot and ext.isdigit():
        return base, int(ext)
    return name, -1


@total_ordering
@dataclass(frozen=True, slots=True)
class BinlogPosition:
    file: str
    pos: int

    def _key(self) -> tuple[int, int]:
        return file_sequence(self.file)[1], self.pos

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, BinlogPosition):
            return NotImplemented
        if self.file == other.file:  # the usual case (positions of the active file): no name parsing
            return self.pos < other.pos
        if file_sequence(self.file)[0] != file_sequence(other.file)[0]:
            from protocol.errors import LocalProtocolError

            raise LocalProtocolError(f"cannot order positions of different binlogs: {self} vs {other}")
        return self._key() < other._key()

    def __str__(self) -> str:
        return f"{self.file}:{self.pos}"


ZERO = BinlogPosition("", 0)
