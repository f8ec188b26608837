"""A result column's definition as the text protocol sends it (the binary protocol's prepare
and execute answers describe their columns the same way): built from the column's `ColumnType`,
or from a coarse kind name of a catalog answer, and kept with its wire form, so that the hot
SELECT path encodes each distinct (name, type) once. The cache is process-wide and bounded
(cleared past 4096 entries); definitions are immutable."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from engine import coltypes
from engine.coltypes import ColumnType
from protocol.messages import ColumnDefinition

_COLUMN_CACHE: dict[tuple[str, Any], ColumnDefinition] = {}


class _EncodedColumn(ColumnDefinition):
    """A column definition that keeps its wire form: the hot SELECT path encodes it once."""

    __slots__ = ("_wire", "_extended")
    _wire: bytes
    _extended: bytes  # with MariaDB's extended type info

    def encode(self, extended: bool = False) -> bytes:
        return self._extended if extended else self._wire


def result_column(name: str, kind: ColumnType | str) -> ColumnDefinition:
    """The definition of a result column of type `kind` (a `ColumnType`, or a coarse kind name
    of a catalog answer)."""
    key = (name, kind)
    col = _COLUMN_CACHE.get(key)
    if col is None:
        ct = kind if isinstance(kind, ColumnType) else coltypes.from_kind(kind)
        # (a length past the field's 4 bytes is sent as its largest, as MariaDB's)
        schema, table, org_table, org_name = ct.origin or ("", "", "", "")
        plain = ColumnDefinition(name, ct.type, ct.charset, min(ct.length, 0xFFFFFFFF), ct.flags, ct.decimals,
                                 schema, table, org_table, org_name, type_name=ct.type_name,
                                 format_name=ct.format_name)
        col = _EncodedColumn(*(getattr(plain, f.name) for f in fields(ColumnDefinition)))
        object.__setattr__(col, "_wire", plain.encode())
        object.__setattr__(col, "_extended", plain.encode(True))
        if len(_COLUMN_CACHE) > 4096:
            _COLUMN_CACHE.clear()
        _COLUMN_CACHE[key] = col
    return col
