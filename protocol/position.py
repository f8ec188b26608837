"""`BinlogPosition`: a place in a binlog sequence (file name + byte offset).

Positions are values, never bare tuples. They order the way MySQL orders them: first by the
file's numeric extension (`mysql-bin.000009` < `mysql-bin.000010` < `mysql-bin.1000000`), then by
offset. Positions in files of different basenames do not compare (a `LocalProtocolError` is raised
by `__lt__`), because no replication rule can use such a comparison.

Two implementations with one contract, held equal by tests/unit/test_position.py (one battery of
behaviours run against both): the compiled type of `protocol/_position.c` (built by `pip install`,
optional), which `BinlogPosition` is where it was built, and `PyBinlogPosition` here, the
reference and the fallback. Both order positions of different files through `_lt_other_files`.
A master builds and compares positions a few dozen times per commit group, a slave for every
applied batch.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from functools import total_ordering
from typing import TYPE_CHECKING


def file_sequence(name: str) -> tuple[str, int]:
    """Split `base.000123` into (`base`, 123). A name without a numeric extension has sequence -1."""
    base, dot, ext = name.rpartition(".")
    if dot and ext.isdigit():
        return base, int(ext)
    return name, -1


class _Fields:
    __slots__ = ("file", "pos")


# The slots' own setters: `__init__` stores through them, since `__setattr__` refuses. A frozen
# dataclass stores with `object.__setattr__` and costs about 1.5x this per construction; a
# position is built for every event sent and every group committed.
_set_file = _Fields.file.__set__  # type: ignore[attr-defined]
_set_pos = _Fields.pos.__set__  # type: ignore[attr-defined]


@total_ordering
class PyBinlogPosition(_Fields):
    """An immutable value: equal and hashed by (file, pos), ordered as the header says."""

    __slots__ = ()
    __match_args__ = ("file", "pos")
    file: str
    pos: int

    def __init__(self, file: str, pos: int) -> None:
        _set_file(self, file)
        _set_pos(self, pos)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[type[PyBinlogPosition], tuple[str, int]]:
        return PyBinlogPosition, (self.file, self.pos)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not PyBinlogPosition:
            return NotImplemented
        return self.pos == other.pos and self.file == other.file  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.file, self.pos))

    def __repr__(self) -> str:
        return f"BinlogPosition(file={self.file!r}, pos={self.pos!r})"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, PyBinlogPosition):
            return NotImplemented
        if self.file == other.file:  # the usual case (positions of the active file): no name parsing
            return self.pos < other.pos
        return _lt_other_files(self, other)

    def __str__(self) -> str:
        return f"{self.file}:{self.pos}"


def _lt_other_files(a: PyBinlogPosition, b: PyBinlogPosition) -> bool:
    """`a < b` for positions in files of different names: by numeric extension, then offset."""
    (base_a, seq_a), (base_b, seq_b) = file_sequence(a.file), file_sequence(b.file)
    if base_a != base_b:
        from protocol.errors import LocalProtocolError

        raise LocalProtocolError(f"cannot order positions of different binlogs: {a} vs {b}")
    return (seq_a, a.pos) < (seq_b, b.pos)


if TYPE_CHECKING:
    BinlogPosition = PyBinlogPosition
else:
    try:
        from protocol._position import BinlogPosition
    except ImportError:  # built without a C compiler
        BinlogPosition = PyBinlogPosition

ZERO = BinlogPosition("", 0)
