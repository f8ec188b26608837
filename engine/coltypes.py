"""Result column types as MySQL describes them: one `ColumnType` per result column (wire type
code, length, decimals, charset, flags) and the text form of a stored value of that type.

Contract. A result column's type comes from the schema (a column reference: `Column.result_type`)
or from the expression (`engine.typing`), never from the rows, so every row of a result agrees
with its description (MariaDB 10.11 is the reference: lengths, decimals 31 for floating point and
39 for strings, charset 63 + BINARY for binary and numeric types, utf8mb4 (45) for text). The
same object is what a binary-protocol row encoder needs: `type`, `flags & UNSIGNED`, `decimals`.
`text_value` turns what SQLite stores into the bytes/str MySQL sends for that type: DECIMAL with
its declared scale, integral floats of integer columns as integers, binary strings as bytes
(BINARY(n) padded with zero bytes), BIT as its big-endian bytes, temporal values with exactly
their declared fractional digits; a ZEROFILL column's (a YEAR's) text padded with zeros to its
display width (`converter`; only a column, a derived table's or a view's column carries the flag,
never an expression over it: `engine.exprtypes`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Context, Decimal, InvalidOperation

from engine.fixedbin import TEXT_LENGTH
from protocol.messages import (
    CHARSET_BINARY,
    CHARSET_UTF8MB4_GENERAL_CI,
    ColumnFlag,
    FieldType,
)

# MySQL's "decimals" for results without a fixed scale.
NOT_FIXED_DEC = 31  # FLOAT/DOUBLE
STRING_DEC = 39  # string expressions
DECIMAL_MAX_SCALE = 38  # MariaDB's largest DECIMAL scale (a result's, a literal's; MySQL's is 30)
DECIMAL_MAX_PRECISION = 65
MB = 4  # utf8mb4: bytes per character in a column's length
_EXACT = Context(prec=200)

_INT_CODES = {
    "tinyint": (FieldType.TINY, 4), "smallint": (FieldType.SHORT, 6), "mediumint": (FieldType.INT24, 9),
    "int": (FieldType.LONG, 11), "integer": (FieldType.LONG, 11), "bigint": (FieldType.LONGLONG, 20),
}
_BLOB_LENGTHS = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295,
                 "tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295}
_TEMPORAL = {"date": (FieldType.DATE, 10), "datetime": (FieldType.DATETIME, 19),
             "timestamp": (FieldType.TIMESTAMP, 19), "time": (FieldType.TIME, 10)}
INTEGER_CODES = frozenset({FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG,
                           FieldType.LONGLONG, FieldType.YEAR})


@dataclass(frozen=True, slots=True)
class ColumnType:
    type: int  # FieldType
    length: int
    decimals: int = 0
    charset: int = CHARSET_BINARY
    flags: int = 0
    pad_to: int = 0  # BINARY(n): values are padded with zero bytes to n
    format_name: str = ""  # MariaDB's extended type info: "json" for JSON columns and JSON values
    # a table column's own result column: (schema, table as the statement names it, table, column),
    # what the column definition says of where it comes from (an expression: None)
    origin: tuple[str, str, str, str] | None = None
    # a BIT function's value (MAX(b), GREATEST(b, c)): sent as its decimal digits, as MariaDB's
    # Item sends it (a column's value, a derived table's or a UNION's too, goes as its bytes)
    bit_digits: bool = False
    # date arithmetic on a string (DATE_ADD('2024-01-01 10:00', INTERVAL 1 SECOND)): MariaDB's
    # CHAR, a DATETIME's text with exactly `decimals` fraction digits, a DATE's as it is
    temporal_text: bool = False
    # an integer literal: its digits are its decimal precision (a column's or an expression's
    # length counts a sign), as MariaDB's Item_int has it
    literal: bool = False
    # MariaDB's extended type info's data type name: "uuid", "inet6", "inet4" (`engine.fixedbin`)
    type_name: str = ""

    @property
    def is_binary_string(self) -> bool:
        return self.charset == CHARSET_BINARY and self.type in STRING_CODES

    @property
    def unsigned(self) -> bool:
        return bool(self.flags & ColumnFlag.UNSIGNED)

    def with_flags(self, flags: int) -> ColumnType:
        return ColumnType(self.type, self.length, self.decimals, self.charset, flags, self.pad_to, self.format_name,
                          self.origin, self.bit_digits, self.temporal_text, self.literal, self.type_name)


STRING_CODES = frozenset({FieldType.STRING, FieldType.VAR_STRING, FieldType.VARCHAR, FieldType.BLOB,
                           FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB})

NULL_TYPE = ColumnType(FieldType.NULL, 0, 0, CHARSET_BINARY, ColumnFlag.BINARY)
LONGLONG = ColumnType(FieldType.LONGLONG, 21, 0, CHARSET_BINARY, ColumnFlag.BINARY)
DOUBLE = ColumnType(FieldType.DOUBLE, 23, NOT_FIXED_DEC, CHARSET_BINARY, ColumnFlag.BINARY)
BOOLEAN = ColumnType(FieldType.LONG, 1, 0, CHARSET_BINARY, ColumnFlag.BINARY)


def int_type(length: int, flags: int = ColumnFlag.BINARY) -> ColumnType:
    """An integer expression: LONG below 11 digits, LONGLONG from there (MariaDB's rule)."""
    code = FieldType.LONG if length < 11 else FieldType.LONGLONG
    return ColumnType(code, length, 0, CHARSET_BINARY, flags)


def decimal_type(precision: int, scale: int, flags: int = ColumnFlag.BINARY) -> ColumnType:
    length = precision + (1 if scale else 0) + (0 if flags & ColumnFlag.UNSIGNED else 1)
    return ColumnType(FieldType.NEWDECIMAL, length, scale, CHARSET_BINARY, flags)


def varchar(chars: int, binary: bool = False, flags: int = 0) -> ColumnType:
    if binary:
        return ColumnType(FieldType.VAR_STRING, chars, 0, CHARSET_BINARY, flags | ColumnFlag.BINARY)
    return ColumnType(FieldType.VAR_STRING, chars * MB, STRING_DEC, CHARSET_UTF8MB4_GENERAL_CI, flags)


def datetime_type(code: int, fsp: int, flags: int = ColumnFlag.BINARY) -> ColumnType:
    base = 10 if code in (FieldType.TIME, FieldType.DATE) else 19
    return ColumnType(code, base + (fsp + 1 if fsp else 0), fsp, CHARSET_BINARY, flags)


def declared_type(base: str, args: list[str], unsigned: bool, binary: bool, zerofill: bool = False) -> ColumnType:
    """The description of a table column of MySQL type `base(args)` (flags for keys and NOT NULL
    are the caller's)."""
    flags = (ColumnFlag.UNSIGNED if unsigned else 0) | (ColumnFlag.ZEROFILL if zerofill else 0)
    nums = [int(a) for a in args if a.isdigit()]
    if base in _INT_CODES:
        code, width = _INT_CODES[base]
        if nums:
            width = nums[0]
        elif unsigned and base != "bigint":
            width -= 1
        return ColumnType(code, width, 0, CHARSET_BINARY, flags)
    if base in ("decimal", "numeric"):
        precision = nums[0] if nums else 10
        scale = nums[1] if len(nums) > 1 else 0
        return decimal_type(precision, scale, flags)
    if base in ("float", "double", "real"):
        code, length = (FieldType.FLOAT, 12) if base == "float" else (FieldType.DOUBLE, 22)
        if len(nums) == 2:  # FLOAT(M,D): M wide, D decimals
            return ColumnType(code, nums[0], nums[1], CHARSET_BINARY, flags)
        return ColumnType(code, length, NOT_FIXED_DEC, CHARSET_BINARY, flags)
    if base == "bit":
        return ColumnType(FieldType.BIT, nums[0] if nums else 1, 0, CHARSET_BINARY, ColumnFlag.UNSIGNED)
    if base == "year":
        return ColumnType(FieldType.YEAR, 4, 0, CHARSET_BINARY, ColumnFlag.UNSIGNED | ColumnFlag.ZEROFILL)
    if base in _TEMPORAL:
        code, _ = _TEMPORAL[base]
        fsp = nums[0] if nums and base != "date" else 0
        flags = ColumnFlag.BINARY | (ColumnFlag.UNSIGNED if base == "timestamp" else 0)
        return datetime_type(code, fsp, flags)
    if base in ("binary", "varbinary"):
        n = nums[0] if nums else 1
        code = FieldType.STRING if base == "binary" else FieldType.VAR_STRING
        return ColumnType(code, n, 0, CHARSET_BINARY, ColumnFlag.BINARY, n if base == "binary" else 0)
    if base in ("char", "varchar"):
        n = nums[0] if nums else 1
        code = FieldType.STRING if base == "char" else FieldType.VAR_STRING
        if binary:  # CHAR(n) BINARY: a _bin collation, still text
            return ColumnType(code, n * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.BINARY)
        return ColumnType(code, n * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, 0)
    if base in _BLOB_LENGTHS:
        n = _BLOB_LENGTHS[base]
        if base.endswith("blob"):
            return ColumnType(FieldType.BLOB, n, 0, CHARSET_BINARY, ColumnFlag.BLOB | ColumnFlag.BINARY)
        return ColumnType(FieldType.BLOB, min(n * MB, 4294967295), 0, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.BLOB)
    if base == "json":
        return ColumnType(FieldType.BLOB, 4294967295, 0, CHARSET_UTF8MB4_GENERAL_CI,
                          ColumnFlag.BLOB | ColumnFlag.BINARY, format_name="json")
    if base in TEXT_LENGTH:  # its canonical text, as MariaDB's Field_fbt describes it
        return fixedbin_type(base, ColumnFlag.BINARY | ColumnFlag.UNSIGNED)
    if base in ("enum", "set"):  # a _bin collation's members are BINARY, as a CHAR's
        values = [member_text(a) for a in args]
        flag = ColumnFlag.BINARY if binary else 0
        if base == "enum":
            n = max((len(v) for v in values), default=0)
            return ColumnType(FieldType.STRING, n * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.ENUM | flag)
        n = sum(len(v) for v in values) + max(len(values) - 1, 0)
        return ColumnType(FieldType.STRING, n * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.SET | flag)
    return varchar(255)


def fixedbin_type(kind: str, flags: int) -> ColumnType:
    """A UUID's, INET6's or INET4's value: a CHAR of its longest text, utf8mb4."""
    return ColumnType(FieldType.STRING, TEXT_LENGTH[kind] * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, flags,
                      type_name=kind)


def sysvar_type(value: object, charset: int = CHARSET_UTF8MB4_GENERAL_CI, mbmaxlen: int = MB) -> ColumnType:
    """`SELECT @@name`'s column as MariaDB describes it, from the variable's value: a boolean a
    BIGINT of length 1, an integer a BIGINT(21) UNSIGNED (unless it is negative), a float a
    DOUBLE(21) with 6 decimals, a string (NULL too) a VARCHAR of as many characters as it has, in
    the connection's `charset` (character_set_results' collation number, `mbmaxlen` bytes a
    character)."""
    if isinstance(value, bool):
        return ColumnType(FieldType.LONGLONG, 1, 0, CHARSET_BINARY, ColumnFlag.BINARY)
    if isinstance(value, int):
        unsigned = ColumnFlag.UNSIGNED if value >= 0 else 0
        return ColumnType(FieldType.LONGLONG, 21, 0, CHARSET_BINARY, ColumnFlag.BINARY | unsigned)
    if isinstance(value, float):
        return ColumnType(FieldType.DOUBLE, 21, 6, CHARSET_BINARY, ColumnFlag.BINARY)
    chars = 0 if value is None else len(str(value))
    return ColumnType(FieldType.VAR_STRING, chars * mbmaxlen, STRING_DEC, charset, 0)


# A user variable's string column: MariaDB's Item_func_get_user_var, a LONGBLOB of 16M characters
_USER_VAR_CHARS = (1 << 24) - 1


def uservar_type(value: object, is_set: bool, charset: int = CHARSET_UTF8MB4_GENERAL_CI,
                 mbmaxlen: int = MB) -> ColumnType:
    """`SELECT @name`'s column as MariaDB describes it, from the variable's value: an integer a
    BIGINT(20) (UNSIGNED past a signed one's range), a float a DOUBLE(23), a Decimal a
    DECIMAL(65,38), a string a LONGBLOB in the connection's `charset`, a binary string (NULL
    too, and 16,777,216 for a variable never set) a binary LONGBLOB."""
    if isinstance(value, bool | int):
        unsigned = ColumnFlag.UNSIGNED if value >= 1 << 63 else 0
        return ColumnType(FieldType.LONGLONG, 20, 0, CHARSET_BINARY, ColumnFlag.BINARY | unsigned)
    if isinstance(value, float):
        return ColumnType(FieldType.DOUBLE, 23, NOT_FIXED_DEC, CHARSET_BINARY, ColumnFlag.BINARY)
    if isinstance(value, Decimal):
        return ColumnType(FieldType.NEWDECIMAL, 83, 38, CHARSET_BINARY, ColumnFlag.BINARY)
    if isinstance(value, str):
        return ColumnType(FieldType.LONG_BLOB, _USER_VAR_CHARS * mbmaxlen, STRING_DEC, charset, 0)
    length = _USER_VAR_CHARS if value is not None or is_set else _USER_VAR_CHARS + 1
    return ColumnType(FieldType.LONG_BLOB, length, STRING_DEC, CHARSET_BINARY, ColumnFlag.BINARY)


def held_value(value: object, ct: ColumnType) -> object:
    """A result value of type `ct` as a user variable holds it (`uservar_type` reads it back): a
    DECIMAL's as a Decimal of its digits, a float's as a float, an integer's as an int, a binary
    string's as bytes, anything else (temporal values too) as its text."""
    if value is None:
        return None
    code = ct.type
    if code in (FieldType.NEWDECIMAL, FieldType.DECIMAL):
        return Decimal(str(value))
    if code in (FieldType.DOUBLE, FieldType.FLOAT):
        return float(value)  # type: ignore[arg-type]
    if code in _HELD_INTEGERS:
        return int(value)  # type: ignore[call-overload]
    if ct.is_binary_string:
        return value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


_HELD_INTEGERS = frozenset({FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG, FieldType.LONGLONG,
                            FieldType.YEAR})


def member_text(text: str) -> str:
    """An ENUM / SET member as declared ('it''s') -> its text (it's)."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("\\'", "'").replace("''", "'").replace("\\\\", "\\")
    return text


# --- the legacy kinds (statements answered from the catalog: SHOW ...) ---------------------------

_KINDS = {
    "integer": LONGLONG,
    "double": DOUBLE,
    "string": varchar(256),
    "blob": ColumnType(FieldType.BLOB, 65535, 0, CHARSET_BINARY, ColumnFlag.BLOB | ColumnFlag.BINARY),
    "datetime": datetime_type(FieldType.DATETIME, 0),
    "null": NULL_TYPE,
}


def from_kind(kind: str) -> ColumnType:
    return _KINDS.get(kind, _KINDS["string"])


def from_rows(rows: list[tuple], i: int) -> ColumnType:
    """The type of an expression the typer does not know, from ALL its values: the one type
    every value of the column fits (so no row contradicts the description)."""
    kinds = set()
    for row in rows:
        v = row[i]
        if v is None:
            continue
        if isinstance(v, bool | int):
            kinds.add("int")
        elif isinstance(v, float):
            kinds.add("float")
        elif isinstance(v, bytes):
            try:
                v.decode("utf-8")
                kinds.add("text")
            except UnicodeDecodeError:
                kinds.add("bytes")
        else:
            kinds.add("text")
    if not kinds:
        return NULL_TYPE if rows else varchar(256)
    if kinds == {"int"}:
        return LONGLONG
    if kinds <= {"int", "float"}:
        return DOUBLE
    if "bytes" in kinds:
        return ColumnType(FieldType.BLOB, 65535, 0, CHARSET_BINARY, ColumnFlag.BLOB | ColumnFlag.BINARY)
    return varchar(256)


# --- values -----------------------------------------------------------------------------------


def format_double(v: float, single: bool = False) -> str:
    """MariaDB's text for a FLOAT/DOUBLE: the shortest digits that read back as the value (6
    significant for FLOAT), written out (no '.0' on an integral value) unless the value is
    integral past 15 digits or below 1e-15, then as d.ddde<n> (1e15, 1.5e-16)."""
    if single:
        text = f"{v:.6g}"
        return (text[:-2] if text.endswith(".0") else text).replace("e+", "e")
    if v == 0 or v != v or v in (math.inf, -math.inf):
        return "0" if v == 0 else repr(v)
    _sign, digits, exponent = Decimal(repr(abs(v))).normalize().as_tuple()
    text = "".join(map(str, digits))
    n = len(text)
    point = n + int(exponent)  # the decimal point's place after the first digit's
    sign = "-" if v < 0 else ""
    if point > 15 and point >= n or point < -14:
        return sign + text[0] + ("." + text[1:] if n > 1 else "") + f"e{point - 1}"
    if point <= 0:
        return sign + "0." + "0" * -point + text
    if point >= n:
        return sign + text + "0" * (point - n)
    return sign + text[:point] + "." + text[point:]


def _decimal_text(v: object, scale: int) -> str:
    try:
        d = Decimal(repr(v)) if isinstance(v, float) else Decimal(str(v).strip())
        return format(d.quantize(Decimal(1).scaleb(-scale), context=_EXACT), "f")  # never 1E-10
    except (InvalidOperation, ValueError):
        return str(v)


def _temporal_text(v: object, fsp: int, code: int) -> str:
    text = str(v)
    dot = text.rfind(".")
    if dot > 0 and text[dot + 1:].isdigit():
        whole, frac = text[:dot], text[dot + 1:]
    else:
        whole, frac = text, ""
    if code != FieldType.TIME and len(whole) == 10:  # a DATE's value in a DATETIME column (COALESCE(dt, d))
        whole += " 00:00:00"
    if not fsp:
        return whole
    return whole + "." + (frac + "000000")[:min(fsp, 6)]  # (unfixed, 39: six)


def text_value(ct: ColumnType, v: object) -> object:
    """What the text protocol sends for stored value `v` in a column of type `ct`."""
    if v is None:
        return None
    code = ct.type
    if code == FieldType.NEWDECIMAL:
        return _decimal_text(v, ct.decimals)
    if code in INTEGER_CODES:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, str) and v.isdigit():  # BIGINT UNSIGNED kept as its digits
            return int(v)
        return v
    if code in (FieldType.DOUBLE, FieldType.FLOAT):
        if isinstance(v, int | float) and not isinstance(v, bool):
            if ct.decimals < NOT_FIXED_DEC:  # a fixed number of decimals (PI(), STD() of integers)
                return f"{float(v):.{ct.decimals}f}"
            return format_double(float(v), code == FieldType.FLOAT)
        return v
    if code in (FieldType.DATETIME, FieldType.TIMESTAMP, FieldType.TIME):
        return _temporal_text(v, ct.decimals, code) if isinstance(v, str) else v
    if ct.temporal_text:
        return _temporal_text(v, ct.decimals, FieldType.DATETIME) if isinstance(v, str) and len(v) > 10 else v
    if code == FieldType.BIT:
        if isinstance(v, str) and v.isdigit():  # kept as its digits (`catalog.Column.unsigned_64`)
            v = int(v)
        if isinstance(v, int):
            return str(v).encode() if ct.bit_digits else v.to_bytes(max((ct.length + 7) // 8, 1), "big")
        return v
    if ct.charset == CHARSET_BINARY and code in STRING_CODES:
        raw = v if isinstance(v, bytes) else str(v).encode("utf-8", "surrogateescape")
        if ct.pad_to and len(raw) < ct.pad_to:
            raw += b"\x00" * (ct.pad_to - len(raw))
        return raw
    return v


def converter(types: list[ColumnType]):
    """A function mapping a stored row to its wire values, or None when no column needs it."""
    todo = [(i, ct) for i, ct in enumerate(types)
            if ct.type not in _PASS_THROUGH or ct.is_binary_string or ct.temporal_text]
    padded = [(i, ct.length) for i, ct in enumerate(types) if ct.flags & ColumnFlag.ZEROFILL]
    if not todo:
        return _padding(None, padded) if padded else None

    def convert(row: tuple) -> tuple:
        out = list(row)
        for i, ct in todo:
            v = out[i]
            if v is not None:
                out[i] = text_value(ct, v)
        return tuple(out)

    return _padding(convert, padded) if padded else convert


def zerofill_text(v: object, width: int, decimals: int, code: int) -> str | None:
    """A ZEROFILL column's value (a YEAR's) as a string function reads it, `mysql_zerofill`:
    its text padded as the column's result column shows it (CONCAT(a) is '00042')."""
    if v is None:
        return None
    return str(text_value(ColumnType(code, width, decimals), v)).zfill(width)


def _padding(convert, padded: list[tuple[int, int]]):
    """`convert` followed by the padding of ZEROFILL columns (a YEAR's too: 0 is '0000'): their
    text with zeros before it to the column's display width, as MariaDB's text protocol sends
    it, and its binary protocol a DECIMAL's (an integer's or a float's binary form is its
    number, which `protocol.binary` reads back from that text)."""

    def pad(row: tuple) -> tuple:
        out = list(row if convert is None else convert(row))
        for i, width in padded:
            v = out[i]
            if v is not None:
                out[i] = str(v).zfill(width)
        return tuple(out)

    return pad


_PASS_THROUGH = frozenset({FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB, FieldType.NULL,
                           FieldType.DATE, FieldType.YEAR, FieldType.ENUM, FieldType.SET})
