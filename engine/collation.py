"""utf8mb4_general_ci, the collation MariaDB gives character columns by default, as a SQLite
collation (`GENERAL_CI`) that every engine connection has (`register`).

How MariaDB compares under it: each character by its weight, trailing spaces ignored (PAD SPACE:
the shorter string compares as if padded with spaces, so 'a' = 'a  ' and 'a\\t' < 'a'). A BMP
character's weight is `weight`: the character's uppercase, a Latin, Greek or Cyrillic letter
first stripped of its combining accents ('é' = 'E', 'ä' = 'A'), with the data of Unicode 3.2 and
a few rules of MariaDB's own table ('ß' = 'S'; 'й' keeps its breve; the case pairs added in
Unicode 3.1 and 3.2 left apart). Every character above U+FFFF weighs U+FFFD (all equal).
tests/integration/test_collation_mariadb.py holds `weight` equal to MariaDB 10.11's WEIGHT_STRING
for every BMP code point, and comparisons, keys, GROUP BY and ORDER BY equal to its answers.

`compare` is the reference. `register` installs the compiled twin (`engine/_collation.c`,
tests/unit/test_collation.py holds the two equal) when this CPython and the libsqlite3 it
loaded let it reach the connection's handle, else `compare` (a Python call per comparison).
"""

from __future__ import annotations

import sqlite3
import unicodedata
from functools import cache

GENERAL_CI = "mysql_general_ci"

_UCD = unicodedata.ucd_3_2_0
_SPACE = 0x20
_REPLACEMENT = 0xFFFD
# Case pairs whose other half Unicode 3.1 / 3.2 added: MariaDB's table keeps them apart
_LATER = ((0x0220, 0x0220), (0x03D8, 0x03D9), (0x03F4, 0x03F5), (0x048A, 0x048B), (0x04C5, 0x04C6),
          (0x04C9, 0x04CA), (0x04CD, 0x04CE), (0x0500, 0x050F))
_OWN = {0x00DF: 0x0053, 0x03F2: 0x03A3}  # ß -> S, lunate sigma -> Σ
_KEEPS_ACCENT = {0x0419, 0x0439}  # Й й


def _later(cp: int) -> bool:
    return _UCD.category(chr(cp)) == "Cn" or any(lo <= cp <= hi for lo, hi in _LATER)


def _base(cp: int) -> int:
    """A Latin, Greek or Cyrillic letter without its combining accents (its canonical
    decomposition's first character, recursively); anything else itself."""
    if not (cp < 0x0530 or 0x1E00 <= cp < 0x2000) or cp in _KEEPS_ACCENT:
        return cp
    if not _UCD.category(chr(cp)).startswith("L"):
        return cp
    parts = _UCD.decomposition(chr(cp)).split()
    if len(parts) < 2 or parts[0].startswith("<"):
        return cp  # no decomposition, a singleton, or a compatibility one
    first, *marks = (int(p, 16) for p in parts)
    if not all(_UCD.category(chr(m)).startswith("M") for m in marks):
        return cp
    return _base(first)


def weight(cp: int) -> int:
    """The utf8mb4_general_ci weight of code point `cp`."""
    if cp > 0xFFFF:
        return _REPLACEMENT
    if cp in _OWN:
        return _OWN[cp]
    if _later(cp):
        return cp
    base = _base(cp)
    upper = chr(base).upper()
    if len(upper) == 1 and not _later(ord(upper)):
        return ord(upper)
    return base


@cache
def table() -> bytes:
    """Every BMP code point's weight, 2 bytes each, native byte order (the compiled comparison's
    table; surrogates weigh themselves)."""
    import array

    return array.array("H", (cp if 0xD800 <= cp <= 0xDFFF else weight(cp) for cp in range(0x10000))).tobytes()


@cache
def _fold() -> dict[int, int]:
    return {cp: w for cp, w in enumerate(memoryview(table()).cast("H")) if w != cp}


def key(text: str) -> str:
    """`text` as its weights (each a character), trailing spaces dropped: two texts compare as
    their keys do, but for the PAD SPACE rule on a key that starts the other (`compare`)."""
    folded = text.rstrip(" ").translate(_fold())
    if folded.isascii():
        return folded
    return "".join(chr(_REPLACEMENT) if ord(c) > 0xFFFF else c for c in folded)


def compare(a: str, b: str) -> int:
    """-1, 0 or 1 as utf8mb4_general_ci orders `a` and `b` (the reference)."""
    ka, kb = key(a), key(b)
    if ka == kb:
        return 0
    n = min(len(ka), len(kb))
    if ka[:n] != kb[:n]:
        return -1 if ka < kb else 1
    # one is the other plus more: the rest against the shorter's padding spaces
    rest, sign = (ka[n:], 1) if len(ka) > n else (kb[n:], -1)
    first = ord(rest.lstrip(" ")[0])  # (not all spaces: trailing ones were dropped)
    return sign if first > _SPACE else -sign


def register(conn: sqlite3.Connection) -> bool:
    """Install GENERAL_CI on `conn`: the compiled comparison if it can be reached (True), else
    `compare`."""
    try:
        from engine import _collation
    except ImportError:
        _collation = None
    major, minor, patch = sqlite3.sqlite_version_info
    if _collation is not None and _collation.register(conn, GENERAL_CI, table(), major * 1_000_000 + minor * 1000 + patch):
        return True
    conn.create_collation(GENERAL_CI, compare)
    return False
