"""String functions as MariaDB 10.11 computes them, each a pure function of its arguments (so a
replica applying a statement computes the same value), warnings handed to a `warn` callable:
CHAR(N, ... [USING charset]) (sql/item_strfunc.cc Item_func_char), GET_FORMAT (sql/item_timefunc.cc,
its table of formats), INET6_ATON / INET6_NTOA / IS_IPV4 / IS_IPV6 / IS_IPV4_COMPAT /
IS_IPV4_MAPPED (plugin/type_inet: Inet4::ascii_to_ipv4, Inet6::ascii_to_ipv6, Inet6::to_string),
COMPRESS / UNCOMPRESS / UNCOMPRESSED_LENGTH (Item_func_compress: a 4-byte little-endian length,
then zlib's stream at its default level; the empty string compresses to itself).

A binary result is `bytes` (SQLite's BLOB: clients get a binary string); a character result `str`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

from engine.coltypes import format_double
from engine.values import binary_value
from protocol.errors import (
    ER_INVALID_CHARACTER_STRING,
    ER_TOO_BIG_FOR_UNCOMPRESS,
    ER_TRUNCATED_WRONG_VALUE,
    ER_WRONG_VALUE,
    ER_ZLIB_Z_BUF_ERROR,
    ER_ZLIB_Z_DATA_ERROR,
    MySQLError,
)

Warn = Callable[[tuple[str, int, str]], None]

MAX_ALLOWED_PACKET = 16777216  # UNCOMPRESS's limit on the size it is told (MariaDB's default)
_U32 = 0xFFFFFFFF

# ----------------------------------------------------------------------------- CHAR

# the character sets CHAR(... USING cs) is answered in: a binary string, or text this engine holds
# (utf8mb4, and utf8mb3's subset of it); the name in warning 1300
CHAR_CHARSETS = {"binary": "binary", "utf8mb4": "utf8mb4", "utf8": "utf8mb3", "utf8mb3": "utf8mb3"}


def char_bytes(number: int) -> bytes:
    """One CHAR argument's bytes: its low 32 bits big-endian, the fewest bytes (at least one)."""
    number &= _U32
    return number.to_bytes(max(1, (number.bit_length() + 7) // 8), "big")


def mysql_char(charset: str, numbers: list[int | None], warn: Warn) -> bytes | str | None:
    """CHAR(N, ...) of the arguments read as integers (None: NULL, skipped), in `charset` (a key
    of CHAR_CHARSETS): bytes for binary; else text, NULL with warning 1300 when the bytes are not
    well formed in it (the bad bytes in hex, up to 3 of them, as MariaDB's message shows them)."""
    out = b"".join(char_bytes(n) for n in numbers if n is not None)
    name = CHAR_CHARSETS[charset]
    if name == "binary":  # held as a binary string is (TEXT when UTF-8: equal to the same bytes' literal)
        return binary_value(out)
    good = _well_formed_prefix(out, name == "utf8mb3")
    if good == len(out):
        return out.decode("utf-8")
    warn(_warning(ER_INVALID_CHARACTER_STRING, name, out[good:good + 3].hex().upper()))
    return None


def _well_formed_prefix(data: bytes, bmp_only: bool) -> int:
    """How many leading bytes of `data` are whole UTF-8 characters (of the Basic Multilingual
    Plane only, for utf8mb3)."""
    i = 0
    while i < len(data):
        lead = data[i]
        width = 1 if lead < 0x80 else 2 if 0xC2 <= lead < 0xE0 else 3 if 0xE0 <= lead < 0xF0 else \
            4 if 0xF0 <= lead < 0xF5 and not bmp_only else 0
        if width == 0:
            return i
        try:
            data[i:i + width].decode("utf-8")
        except UnicodeDecodeError:
            return i
        i += width
    return i


# ----------------------------------------------------------------------------- GET_FORMAT

_FORMATS = {
    "DATE": {"USA": "%m.%d.%Y", "JIS": "%Y-%m-%d", "ISO": "%Y-%m-%d", "EUR": "%d.%m.%Y", "INTERNAL": "%Y%m%d"},
    "DATETIME": {"USA": "%Y-%m-%d %H.%i.%s", "JIS": "%Y-%m-%d %H:%i:%s", "ISO": "%Y-%m-%d %H:%i:%s",
                 "EUR": "%Y-%m-%d %H.%i.%s", "INTERNAL": "%Y%m%d%H%i%s"},
    "TIME": {"USA": "%h:%i:%s %p", "JIS": "%H:%i:%s", "ISO": "%H:%i:%s", "EUR": "%H.%i.%s", "INTERNAL": "%H%i%s"},
}
_FORMATS["TIMESTAMP"] = _FORMATS["DATETIME"]
GET_FORMAT_KINDS = frozenset(_FORMATS)


def get_format(kind: str, standard: Any) -> str | None:
    """GET_FORMAT(kind, standard): the format string, NULL for a standard not named exactly (any
    case; 'usa ' is none)."""
    if standard is None:
        return None
    name = standard.decode("utf-8", "replace") if isinstance(standard, bytes) else str(standard)
    return _FORMATS[kind].get(name.upper())


# ----------------------------------------------------------------------------- INET6

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


def inet6_aton(value: Any) -> bytes | None:
    """INET6_ATON: an IPv4 address's 4 bytes or an IPv6 address's 16, NULL for anything else
    (the argument read as text)."""
    if value is None:
        return None
    text = _text(value)
    return ipv4_bytes(text) or ipv6_bytes(text)


def inet6_ntoa(value: Any) -> str | None:
    """INET6_NTOA of a binary string of 4 or 16 bytes (any other argument, a character string
    included, is NULL): the IPv4 dotted form, or the IPv6 form of lower-case groups with the
    longest run of zero groups as '::' and the IPv4-compatible / -mapped forms' dotted tail. A
    binary string whose bytes are UTF-8 is held as TEXT (`values.binary_value`: a VARBINARY
    column's 10.0.0.1): text of 4 or 16 bytes is read as those bytes."""
    if isinstance(value, str):
        value = value.encode("utf-8", "surrogateescape")
    if not isinstance(value, bytes) or len(value) not in (4, 16):
        return None
    if len(value) == 4:
        return ".".join(str(b) for b in value)
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


def is_ipv4(value: Any) -> int | None:
    return 0 if value is None else int(_address(value, 4) is not None)


def is_ipv6(value: Any) -> int | None:
    if value is None:
        return 0
    return int(b":" in _to_bytes(value) and _address(value, 16) is not None)


def ipv6_test(mapped: bool, warn: Warn) -> Callable[[Any], int]:
    """IS_IPV4_MAPPED (`mapped`) or IS_IPV4_COMPAT: 0 for NULL; an argument that is no IPv6 address
    (text in IPv6 form, or 16 bytes) is 0 with warning 1292."""
    def test(value: Any) -> int:
        if value is None:
            return 0
        address = _address(value, 16)
        if address is None:
            warn(("Warning", ER_TRUNCATED_WRONG_VALUE.code, ER_WRONG_VALUE.format("inet6", _err_conv(value))))
            return 0
        if mapped:
            return int(address[:10] == bytes(10) and address[10:12] == b"\xff\xff")
        return int(address[:12] == bytes(12) and int.from_bytes(address[12:], "big") > 1)
    return test


def _address(value: Any, size: int) -> bytes | None:
    """An INET4 (`size` 4) or INET6 value from a string: a binary one is its bytes, of exactly
    that many; text is parsed."""
    if isinstance(value, bytes):
        return value if len(value) == size else None
    text = _text(value)
    parsed = ipv4_bytes(text) if size == 4 else ipv6_bytes(text)
    if parsed is None and size == 16 and len(raw := text.encode("utf-8", "surrogateescape")) == size:
        return raw  # a binary string held as TEXT (`inet6_ntoa`)
    return parsed


def _err_conv(value: Any) -> str:
    """A value as MariaDB's ErrConvString shows a binary string: printable ASCII as itself, any
    other byte as \\xHH."""
    if not isinstance(value, bytes):
        return _text(value)
    return "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02X}" for b in value)


# ----------------------------------------------------------------------------- COMPRESS

def compress(value: Any) -> bytes | None:
    """COMPRESS: the length (4 bytes, little-endian) then zlib's stream at its default level; the
    empty string stays empty."""
    if value is None:
        return None
    data = _to_bytes(value)
    if not data:
        return b""
    return len(data).to_bytes(4, "little") + zlib.compress(data)


def _stated_length(data: bytes, warn: Warn) -> int | None:
    """The uncompressed length a compressed string begins with (its low 30 bits), None with
    warning 1259 when it has no more than those 4 bytes."""
    if len(data) <= 4:
        warn(_warning(ER_ZLIB_Z_DATA_ERROR))
        return None
    return int.from_bytes(data[:4], "little") & 0x3FFFFFFF


def uncompress(warn: Warn) -> Callable[[Any], bytes | None]:
    """UNCOMPRESS as zlib's uncompress() into a buffer of the stated length answers: NULL with
    1256 for a length past max_allowed_packet, 1258 for data that does not fit it, 1259 for
    data that is no whole zlib stream; bytes after the stream are ignored."""
    def fn(value: Any) -> bytes | None:
        if value is None:
            return None
        data = _to_bytes(value)
        if not data:
            return b""
        size = _stated_length(data, warn)
        if size is None:
            return None
        if size > MAX_ALLOWED_PACKET:
            warn(_warning(ER_TOO_BIG_FOR_UNCOMPRESS, MAX_ALLOWED_PACKET))
            return None
        stream = zlib.decompressobj()
        try:
            out = stream.decompress(data[4:], size + 1)
        except zlib.error:
            out, stream = b"", None
        if stream is not None and len(out) > size and size:
            warn(_warning(ER_ZLIB_Z_BUF_ERROR))
            return None
        if stream is None or len(out) > size or not stream.eof:
            warn(_warning(ER_ZLIB_Z_DATA_ERROR))
            return None
        return out
    return fn


def uncompressed_length(warn: Warn) -> Callable[[Any], int | None]:
    def fn(value: Any) -> int | None:
        if value is None:
            return None
        data = _to_bytes(value)
        return 0 if not data else _stated_length(data, warn)
    return fn


def _warning(error: MySQLError, *args: object) -> tuple[str, int, str]:
    return ("Warning", error.code, error.format(*args))


def _to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    return _text(value).encode("utf-8", "surrogateescape")


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    if isinstance(value, float):
        return format_double(value)
    return str(value)
