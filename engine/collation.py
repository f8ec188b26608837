"""utf8mb4_general_ci, the collation MariaDB gives character columns by default, as a SQLite
collation (`GENERAL_CI`) and as SQLite's like() (`like`: LIKE matches by the same weights), which
every engine connection has (`register`); `like_range`: the index bounds of `col LIKE 'abc%'`.

How MariaDB compares under it: each character by its weight, trailing spaces ignored (PAD SPACE:
the shorter string compares as if padded with spaces, so 'a' = 'a  ' and 'a\\t' < 'a'). A BMP
character's weight is `weight`: the character's uppercase, a Latin, Greek or Cyrillic letter
first stripped of its combining accents ('é' = 'E', 'ä' = 'A'), with the data of Unicode 3.2 and
a few rules of MariaDB's own table ('ß' = 'S'; 'й' keeps its breve; the case pairs added in
Unicode 3.1 and 3.2 left apart). Every character above U+FFFF weighs U+FFFD (all equal).
tests/integration/test_collation_mariadb.py holds `weight` equal to MariaDB 10.11's WEIGHT_STRING
for every BMP code point, and comparisons, keys, GROUP BY and ORDER BY equal to its answers.

`compare` and `like` are the references. `register` installs their compiled twins
(`engine/_collation.c`, tests/unit/test_collation.py holds each pair equal) when this CPython
and the libsqlite3 it loaded let it reach the connection's handle, else them (a Python call per
comparison). Every connection replaces the like() functions, so SQLite's own LIKE optimization
never runs: `translate` adds `like_range`'s bounds instead, for columns under GENERAL_CI.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Callable
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


_ANY, _ONE = -1, -2  # a pattern's % and _, among its characters' weights


def like(pattern: object, text: object, escape: object = None) -> int | None:
    """SQLite's like(pattern, text[, escape]) (`text LIKE pattern`) as MariaDB matches under
    utf8mb4_general_ci: character by character by weight ('É' LIKE 'e', 'ß' LIKE 's'), no
    padding ('ab ' LIKE 'ab' is false); % any run, _ one character, `escape` (one character)
    makes the next one literal. Byte strings on either side match byte for byte, as a binary
    string's LIKE. NULL on either side: NULL. The reference of `_collation.c`'s `like`."""
    return _like(pattern, text, escape, weight)


def like_bin(pattern: object, text: object, escape: object = None) -> int | None:
    """mysql_like_bin(pattern, text[, escape]): `like` by code points (case and accents count),
    as MariaDB's LIKE under utf8mb4_bin. The reference of `_collation.c`'s `like_bin`."""
    return _like(pattern, text, escape, int)


def _like(pattern: object, text: object, escape: object, unit: Callable[[int], int]) -> int | None:
    if pattern is None or text is None:
        return None
    if escape is not None and (not isinstance(escape, str) or len(escape) != 1):
        raise ValueError("ESCAPE expression must be a single character")
    if isinstance(pattern, bytes) or isinstance(text, bytes):  # byte for byte
        s, raw = (list(v if isinstance(v, bytes) else str(v).encode()) for v in (text, pattern))
        unit = int
    else:
        s = [unit(ord(c)) for c in str(text)]
        raw = [ord(c) for c in str(pattern)]
    esc = ord(escape) if escape is not None else None
    p: list[int] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == esc and i + 1 < len(raw):
            i += 1
            p.append(unit(raw[i]))
        elif c == 0x25:
            p.append(_ANY)
        elif c == 0x5F:
            p.append(_ONE)
        else:
            p.append(unit(c))
        i += 1
    return int(_match(s, p))


def _match(s: list[int], p: list[int]) -> bool:
    """Wildcard matching, the last % backtracked (enough for % and _)."""
    si = pi = 0
    star, mark = -1, 0
    while si < len(s):
        if pi < len(p) and p[pi] == _ANY:
            star, mark = pi, si
            pi += 1
        elif pi < len(p) and (p[pi] == _ONE or p[pi] == s[si]):
            si += 1
            pi += 1
        elif star >= 0:
            pi, mark = star + 1, mark + 1
            si = mark
        else:
            return False
    while pi < len(p) and p[pi] == _ANY:
        pi += 1
    return pi == len(p)


def like_range(pattern: str) -> tuple[str, str] | None:
    """Bounds [low, high) that hold, under GENERAL_CI, every text `pattern` matches as the
    engine's LIKE (`like`, escape '\\') matches it, since a match's first characters weigh as
    the pattern's literal prefix: the prefix with its last character replaced by one weighing
    one below, and by one weighing one above. With them the planner searches an index on the
    column for `col LIKE 'abc%'`. None when the pattern starts with a wildcard, or no neighbour
    weighs right."""
    prefix: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            c = pattern[i + 1]
            i += 1
        elif c in "%_":
            break
        prefix.append(c)
        i += 1
    if not prefix:
        return None
    w = weight(ord(prefix[-1]))
    if not 0 < w < 0xFFFF or 0xD800 <= w - 1 <= 0xDFFF or 0xD800 <= w + 1 <= 0xDFFF:
        return None
    if not weight(w - 1) < w < weight(w + 1):
        return None
    head = "".join(prefix[:-1])
    return head + chr(w - 1), head + chr(w + 1)


def register(conn: sqlite3.Connection) -> bool:
    """Install GENERAL_CI and its LIKE (SQLite's like() functions) on `conn`: the compiled ones
    if they can be reached (True), else `compare` and `like`."""
    try:
        from engine import _collation
    except ImportError:
        _collation = None
    major, minor, patch = sqlite3.sqlite_version_info
    if _collation is not None and _collation.register(conn, GENERAL_CI, table(), major * 1_000_000 + minor * 1000 + patch):
        return True
    conn.create_collation(GENERAL_CI, compare)
    conn.create_function("like", 2, like, deterministic=True)
    conn.create_function("like", 3, like, deterministic=True)
    conn.create_function("mysql_like_bin", 2, like_bin, deterministic=True)
    conn.create_function("mysql_like_bin", 3, like_bin, deterministic=True)
    return False
