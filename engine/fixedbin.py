"""MariaDB's fixed-size binary types UUID, INET6 and INET4 (plugin/type_uuid, plugin/type_inet):
their text forms, and the order they sort and compare in.

A column of such a type holds each value as its canonical text (lower-case, a UUID with its
dashes, an INET6 in MariaDB's compressed form: `canonical`), so a result sends what the column
holds and a binlogged statement stores the same text on every replica; its SQLite column compares
under this type's collation (`COLLATIONS`, registered on every connection by `register`), which
orders values as MariaDB's records do: an INET by its address bytes, a UUID by its 16 bytes
except a time-based one (version 1 to 5, variant bit set), whose segments are compared node
first and time low last (`uuid_key`, sql_type_uuid.h's memory_to_record). The collation reads
any text form of either side, so a literal written as '6CCD780CBABA...' or '{...}' compares as
the value it names; text that names no value sorts before every value and equals none; a literal compared with
such a column is bound as its canonical text, text that names none as NULL (`bound`), as
MariaDB compares it.
"""

from __future__ import annotations

import sqlite3
from functools import lru_cache

from protocol.errors import ER_TRUNCATED_WRONG_VALUE, ER_WRONG_VALUE

KINDS = ("uuid", "inet6", "inet4")
# each kind's binary size and longest text (a result column's characters)
BINARY_SIZE = {"uuid": 16, "inet6": 16, "inet4": 4}
TEXT_LENGTH = {"uuid": 36, "inet6": 39, "inet4": 15}
ZERO_TEXT = {"uuid": "00000000-0000-0000-0000-000000000000", "inet6": "::", "inet4": "0.0.0.0"}
COLLATIONS = {kind: f"mysql_{kind}" for kind in KINDS}
_HEX = frozenset("0123456789abcdefABCDEF")


def ipv4_bytes(text: str) -> bytes | None:
    """Inet4::ascii_to_ipv4: four dotted decimal groups of 1 to 3 digits, each at most 255."""
    if not 7 <= len(text) <= 15:
        return None
    groups = text.split(".")
    if len(groups) != 4 or not all(g and len(g) <= 3 and g.isascii() and g.isdigit() for g in groups):
        return None
    values = [int(g) for g in groups]
    return bytes(values) if max(values) <= 255 else None


def ipv6_bytes(text: str) -> bytes | None:
    """Inet6::ascii_to_ipv6: hex groups of 1 to 4 digits, one '::' gap at most, an IPv4 address in
    the last 4 bytes allowed."""
    if not 2 <= len(text) <= 39:
        return None
    if text[0] == ":" and text[1] != ":":
        return None
    out = bytearray()
    gap: int | None = None
    start = 1 if text[0] == ":" else 0
    p, group_start, digits, value = start, start, 0, 0
    while p < len(text):
        c = text[p]
        p += 1
        if c == ":":
            group_start = p
            if not digits:
                if gap is not None:
                    return None
                gap = len(out)
                continue
            if p >= len(text) or len(out) + 2 > 16:
                return None
            out += value.to_bytes(2, "big")
            digits = value = 0
        elif c == ".":
            v4 = ipv4_bytes(text[group_start:]) if len(out) + 4 <= 16 else None
            if v4 is None:
                return None
            out += v4
            digits = 0
            break
        else:
            if c not in "0123456789abcdefABCDEF" or digits >= 4:
                return None
            value = value << 4 | int(c, 16)
            digits += 1
    if digits:
        if len(out) + 2 > 16:
            return None
        out += value.to_bytes(2, "big")
    if gap is not None:
        if len(out) == 16:
            return None
        out[gap:gap] = bytes(16 - len(out))
    return bytes(out) if len(out) == 16 else None


def ipv6_text(value: bytes) -> str:
    """Inet6::to_string of 16 bytes: lower-case groups, the longest run of zero groups as '::',
    an IPv4-compatible or -mapped address with its last 4 bytes dotted."""
    words = [int.from_bytes(value[i:i + 2], "big") for i in range(0, 16, 2)]
    gap_pos, gap_len, run_pos, run_len = -1, -1, -1, -1
    for i, w in enumerate(words + [1]):  # (a sentinel ends the last run)
        if w == 0:
            run_pos, run_len = (run_pos, run_len + 1) if run_pos >= 0 else (i, 1)
        elif run_pos >= 0:
            if run_len > gap_len:
                gap_pos, gap_len = run_pos, run_len
            run_pos, run_len = -1, -1
    parts: list[str] = []
    i = 0
    while i < 8:
        if i == gap_pos:
            parts.append("::" if i == 0 else ":")
            i += gap_len
            continue
        if i == 6 and gap_pos == 0 and (gap_len == 6 or gap_len == 5 and words[5] == 0xFFFF):
            parts.append(".".join(str(b) for b in value[12:]))
            break
        parts.append(f"{words[i]:x}" + (":" if i < 7 else ""))
        i += 1
    return "".join(parts)


def uuid_bytes(text: str) -> bytes | None:
    """UUID::ascii_to_fbt: 32 hex digits, any number of '-' anywhere but first and last; a
    version of 8 or more with a variant of 0 is none."""
    if len(text) < 32 or text[0] == "-" or text[-1] == "-":
        return None
    digits = text.replace("-", "")
    if len(digits) != 32 or not _HEX.issuperset(digits):
        return None
    raw = bytes.fromhex(digits)
    if raw[6] & 0x80 and 0 < raw[8] <= 0x80:
        return None
    return raw


def value_bytes(kind: str, value: str | bytes) -> bytes | None:
    """The binary value `value` names: text in the kind's text form, a binary string of exactly
    its size as those bytes (None: neither)."""
    if isinstance(value, bytes):
        return value if len(value) == BINARY_SIZE[kind] else None
    if kind == "uuid":
        return uuid_bytes(value)
    return ipv6_bytes(value) if kind == "inet6" else ipv4_bytes(value)


def text_of(kind: str, raw: bytes) -> str:
    """The canonical text of the binary value `raw`."""
    if kind == "inet4":
        return ".".join(str(b) for b in raw)
    if kind == "inet6":
        return ipv6_text(raw)
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def canonical(kind: str, value: str | bytes) -> str | None:
    """The text a column of `kind` holds for `value` (None: not a value of it)."""
    raw = value_bytes(kind, value)
    return None if raw is None else text_of(kind, raw)


def bound(kind: str, value: object, warnings: list | None) -> object:
    """A literal compared with a column of `kind`, as MariaDB reads it: the value's canonical
    text; text that names none NULL, with warning 1292 in `warnings` (row 0: the statement's)."""
    if not isinstance(value, str | bytes):
        return value
    text = canonical(kind, value)
    if text is None and warnings is not None:
        shown = value if isinstance(value, str) else "".join(
            chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02X}" for b in value)
        warnings.append((0, "Warning", ER_TRUNCATED_WRONG_VALUE.code, ER_WRONG_VALUE.format(kind, shown)))
    return text


def uuid_key(raw: bytes) -> bytes:
    """A UUID's bytes in MariaDB's record order: a time-based one's segments reversed (node,
    variant and clock sequence, version and time high, time mid, time low)."""
    if 0 < raw[6] < 0x60 and raw[8] & 0x80:
        return raw[10:] + raw[8:10] + raw[6:8] + raw[4:6] + raw[:4]
    return raw


def _collation(kind: str):
    @lru_cache(maxsize=4096)
    def key(text: str) -> tuple[int, bytes]:
        raw = value_bytes(kind, text)
        if raw is None:
            return (0, text.encode("utf-8", "surrogateescape"))
        return (1, uuid_key(raw) if kind == "uuid" else raw)

    def compare(a: str, b: str) -> int:
        x, y = key(a), key(b)
        return (x > y) - (x < y)
    return compare


_COMPARE = {kind: _collation(kind) for kind in KINDS}


def register(conn: sqlite3.Connection) -> None:
    for kind, name in COLLATIONS.items():
        conn.create_collation(name, _COMPARE[kind])
