"""String functions as MariaDB 10.11 computes them, each a pure function of its arguments (so a
replica applying a statement computes the same value), warnings handed to a `warn` callable:
CHAR(N, ... [USING charset]) (sql/item_strfunc.cc Item_func_char), GET_FORMAT (sql/item_timefunc.cc,
its table of formats), INET6_ATON / INET6_NTOA / IS_IPV4 / IS_IPV6 / IS_IPV4_COMPAT /
IS_IPV4_MAPPED (plugin/type_inet: Inet4::ascii_to_ipv4, Inet6::ascii_to_ipv6, Inet6::to_string),
COMPRESS / UNCOMPRESS / UNCOMPRESSED_LENGTH (Item_func_compress: a 4-byte little-endian length,
then zlib's stream at its default level; the empty string compresses to itself),
NATURAL_SORT_KEY, SFORMAT (the fmt library's format strings, the common forms), SOUNDEX and
`a SOUNDS LIKE b` (SOUNDEX(a) = SOUNDEX(b) under utf8mb4_general_ci: `SOUNDEX_COLLATION`),
PASSWORD / OLD_PASSWORD, CRC32C.

A binary result is `bytes` (SQLite's BLOB: clients get a binary string); a character result `str`.
"""

from __future__ import annotations

import hashlib
import math
import re
import zlib
from collections.abc import Callable
from typing import Any

from engine import collation
from engine.coltypes import format_double
from engine.fixedbin import canonical, ipv4_bytes, ipv6_bytes, ipv6_text
from engine.values import binary_value, printable
from protocol.charsets import CHARSETS
from protocol.errors import (
    ER_INVALID_CHARACTER_STRING,
    ER_SFORMAT,
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
# (utf8mb4, and utf8mb3's subset of it); the name in warning 1300. A single-byte one (latin1,
# ascii) is answered as the text a client reads (`NARROW_CHARSETS`)
CHAR_CHARSETS = {"binary": "binary", "utf8mb4": "utf8mb4", "utf8": "utf8mb3", "utf8mb3": "utf8mb3",
                 "latin1": "latin1", "ascii": "ascii"}
# CHAR(... USING latin1 / ascii): their bytes are one thing to MariaDB (LENGTH, HEX read them) and
# the text a client reads another (ascii's bytes past 0x7F read as '?'); only that text is held
NARROW_CHARSETS = frozenset({"latin1", "ascii"})


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
    if name in NARROW_CHARSETS:
        return CHARSETS[name].decode(out) if name == "latin1" else out.decode("ascii", "replace").replace("\ufffd", "?")
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
    return ipv6_text(value)


def fixedbin_cast(warn: Warn) -> Callable[[Any, str], str | None]:
    """CAST(x AS UUID / INET6 / INET4): the value's canonical text (`fixedbin.canonical`); text
    that names none NULL with warning 1292."""
    def cast(value: Any, kind: str) -> str | None:
        if value is None:
            return None
        text = canonical(kind, value if isinstance(value, bytes) else _text(value))
        if text is None:
            warn(("Warning", ER_TRUNCATED_WRONG_VALUE.code, ER_WRONG_VALUE.format(kind, _err_conv(value))))
        return text
    return cast


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
    return printable(value)


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


# ----------------------------------------------------------------------------- NATURAL_SORT_KEY


def _natural_number(match: re.Match[str]) -> str:
    """A run of digits in NATURAL_SORT_KEY's key: its leading zeros dropped (one 0 kept for a
    zero), after its length less one written as 9s and a last digit (19 -> '991')."""
    digits = match.group(0).lstrip("0") or "0"
    n = len(digits) - 1
    return "9" * (n // 9) + str(n % 9) + digits


def natural_sort_key(value: Any) -> str | None:
    """NATURAL_SORT_KEY(s): s with each run of ASCII digits rewritten so that keys compared as
    strings order numbers by value (Item_func_natural_sort_key)."""
    if value is None:
        return None
    return _DIGIT_RUN.sub(_natural_number, _text(value))


_DIGIT_RUN = re.compile(r"[0-9]+")


# ----------------------------------------------------------------------------- SFORMAT

class Unsupported(Exception):
    """A format SFORMAT takes that this module does not write (the statement answers 1235)."""


# fmt's format specification as far as it is written here: [[fill]align][sign][#][0][width]
# [.precision][type]; dynamic widths ({:{}}), locale ('L') and the other types are not
_FORMAT_SPEC = re.compile(r"(?:(.)?([<>^]))?([-+ ])?(#)?(0)?(\d+)?(?:\.(\d+))?([sdxXobcBeEfFgG]?)\Z", re.S)
_INT_TYPES = frozenset("dxXobBc")
_FLOAT_TYPES = frozenset("eEfFgG")


def sformat(warn: Warn) -> Callable[..., str | None]:
    """SFORMAT(format, args...): the fmt library's format string of the arguments (integers and
    DOUBLEs as numbers, anything else as its text), NULL when one of them is NULL; a format
    fmt refuses (an argument it names missing, a type that is not the argument's) NULL with
    warning 4183 giving fmt's message. Positional fields ({}, {1}) with the specification above;
    any other (a named field, a dynamic width) raises `Unsupported`."""
    def fn(fmt: Any, *args: Any) -> str | None:
        if fmt is None or any(a is None for a in args):
            return None
        try:
            return _sformat(_text(fmt), args)
        except _FormatError as exc:
            warn(_warning(ER_SFORMAT, str(exc)))
            return None
    return fn


class _FormatError(Exception):
    """fmt's format_error: the message SFORMAT's warning carries."""


def _sformat(fmt: str, args: tuple) -> str:
    out: list[str] = []
    i, n, automatic, manual = 0, len(fmt), 0, False
    while i < n:
        c = fmt[i]
        if c in "{}" and fmt[i + 1:i + 2] == c:
            out.append(c)
            i += 2
        elif c == "}":
            raise _FormatError("unmatched '}' in format string")
        elif c == "{":
            end = fmt.find("}", i)
            if end < 0:
                raise _FormatError("invalid format string")
            name, _, spec = fmt[i + 1:end].partition(":")
            if name == "":
                if manual:
                    raise _FormatError("cannot switch from manual to automatic argument indexing")
                index, automatic = automatic, automatic + 1
            elif name.isdigit() and name.isascii():
                if automatic:
                    raise _FormatError("cannot switch from automatic to manual argument indexing")
                index, manual = int(name), True
            else:
                raise Unsupported(f"SFORMAT() of the field {{{name}}}")
            if index >= len(args):
                raise _FormatError("argument not found")
            out.append(_format_one(args[index], spec))
            i = end + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _format_one(value: Any, spec: str) -> str:
    m = _FORMAT_SPEC.match(spec)
    if m is None:
        raise Unsupported(f"SFORMAT() of the format specification '{spec}'")
    fill, align, sign, alternate, zero, width, precision, kind = m.groups()
    if isinstance(value, bool | int):
        if kind and kind not in _INT_TYPES:
            raise _FormatError("invalid type specifier")
        if precision is not None or kind == "B":
            raise Unsupported(f"SFORMAT() of the format specification '{spec}'")
        return format(value, spec)
    if isinstance(value, float):
        if kind and kind not in _FLOAT_TYPES:
            raise _FormatError("invalid type specifier")
        if kind or precision is not None:
            return format(value, spec)
        # fmt's shortest form: Python's, without the '.0' it keeps on an integral value
        text = repr(abs(value))
        text = ("-" if value < 0 or math.copysign(1, value) < 0 else "+" if sign == "+" else
                " " if sign == " " else "") + (text[:-2] if text.endswith(".0") else text)
        if zero and not align:
            body = text.lstrip("+- ")
            return text[:len(text) - len(body)] + body.rjust(int(width or 0) - len(text) + len(body), "0")
        return format(text, f"{fill or ''}{align or '>'}{width or ''}")
    if kind and kind != "s":
        raise _FormatError("invalid type specifier")
    if sign or alternate or zero:
        raise Unsupported(f"SFORMAT() of the format specification '{spec}' for a string")
    return format(_text(value), spec)


# ----------------------------------------------------------------------------- SOUNDEX

_SOUNDEX_CODES = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "01230120022455012623010202", strict=True))


def soundex(value: Any) -> str | None:
    """SOUNDEX(s) as MariaDB's (Item_func_soundex): from the first letter on (nothing before it
    counts; no letter: ''), that letter (ASCII ones upper-cased), then each letter's code that is
    not 0 nor the last code written (a vowel between two letters of one code does not part them;
    a letter past ASCII codes as a vowel), padded with 0s to 4 characters, never cut. A letter is
    an ASCII one or any character from U+00C0 on (my_uni_isalpha: '×', '日' and '😀' too)."""
    if value is None:
        return None
    letters = [c for c in _text(value) if c.isascii() and c.isalpha() or c >= "\u00c0"]
    if not letters:
        return ""
    first = letters[0].upper() if letters[0].isascii() else letters[0]
    out, last = [first], _SOUNDEX_CODES.get(first, "0")
    for c in letters[1:]:
        code = _SOUNDEX_CODES.get(c.upper(), "0") if c.isascii() else "0"
        if code != "0" and code != last:
            out.append(code)
            last = code
    return "".join(out).ljust(4, "0")


# `a SOUNDS LIKE b` is `a COLLATE mysql_soundex = b`: two texts equal when their SOUNDEX are equal
SOUNDEX_COLLATION = "mysql_soundex"


def compare_soundex(a: str, b: str) -> int:
    """The SOUNDEX_COLLATION's order: SOUNDEX(a) against SOUNDEX(b) under utf8mb4_general_ci
    (MariaDB compares the two SOUNDEX values as strings of that collation)."""
    return collation.compare(soundex(a), soundex(b))


# ----------------------------------------------------------------------------- PASSWORD, CRC32C


def password(value: Any) -> str:
    """PASSWORD(s): '*' and SHA1(SHA1(s)) in upper-case hex; '' for '' and for NULL."""
    data = b"" if value is None else _to_bytes(value)
    if not data:
        return ""
    return "*" + hashlib.sha1(hashlib.sha1(data).digest()).hexdigest().upper()


def old_password(value: Any) -> str:
    """OLD_PASSWORD(s): MySQL 3.23's hash (hash_password), spaces and tabs skipped."""
    data = b"" if value is None else _to_bytes(value)
    if not data:
        return ""
    nr, add, nr2 = 1345345333, 7, 0x12345671
    for byte in data:
        if byte in b" \t":
            continue
        nr ^= (((nr & 63) + add) * byte + (nr << 8)) & _U32
        nr2 = (nr2 + ((nr2 << 8) ^ nr)) & _U32
        add += byte
    return f"{nr & 0x7FFFFFFF:08x}{nr2 & 0x7FFFFFFF:08x}"


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        for _ in range(8):
            n = (n >> 1) ^ 0x82F63B78 if n & 1 else n >> 1
        table.append(n)
    return table


_CRC32C = _crc32c_table()


def crc32c(*args: Any) -> int | None:
    """CRC32C([crc, ] s): the Castagnoli CRC of s's bytes, continuing from crc when given."""
    if any(a is None for a in args):
        return None
    crc = (int(args[0]) if len(args) == 2 else 0) & _U32 ^ _U32
    for byte in _to_bytes(args[-1]):
        crc = _CRC32C[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ _U32
