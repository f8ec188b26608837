"""A value written to a column, as MariaDB's default sql_mode (STRICT_TRANS_TABLES) stores it.

Contract: `store(col, value, row, where)` is called for each literal an INSERT ... VALUES or an
UPDATE ... SET assigns to a column (the translator marks those arguments, see
`translate.STORE`), on the master and on a replica replaying the same statement text, so both
store the same value. It returns what SQLite keeps, or raises MariaDB's strict-mode error:
1264 (out of range), 1265 (truncated: `12abc` into an integer, a value not in an ENUM), 1292 /
1366 (not a value of that type; a string that is not valid utf8mb4 for a text column), 1406
(too long); an INSERT or UPDATE IGNORE, and any write under a sql_mode without
STRICT_TRANS_TABLES / STRICT_ALL_TABLES (`engine.results.write_mode`), (`lenient`) stores such a
value adjusted instead, as MariaDB does with a warning (`adjusted`). Integers are rounded half away from zero (a BIGINT
UNSIGNED or BIT(M) value past SQLite's integers kept as its digits; BIT as MariaDB's Field_bit
stores it, `_bit`); DECIMAL(p,s) is rounded half up to s
digits (Python's decimal, never a float) and kept as its exact text; binary strings are bytes
(any byte value; BINARY(n) padded with zero bytes; held as `binary_value` says), text
columns get str (CHAR(n) without its trailing spaces, as MariaDB returns it without
PAD_CHAR_TO_FULL_LENGTH); DATE, DATETIME and TIMESTAMP values in any form MariaDB reads
('2024-1-5', '20240105', 240105, '2024/01/05T1:2:3') are stored as MariaDB's canonical text
('2024-01-05', '2024-01-05 01:02:03'), what it refuses (2024-02-30, 24:00:00, a TIMESTAMP out of
its range) is 1292 (`temporal_text`, which also gives a literal compared with such a column the
column's form: `engine.exact`); DATETIME/TIME keep their declared fractional digits exactly
(MariaDB truncates the rest); a TIME beyond +-838:59:59.999999 is 1292 (a number is its digits:
10203 is 01:02:03); a YEAR is its 4-digit number (`_year`), an ENUM and a SET take a number as
an index or bits; a UUID, INET6 or INET4 is its canonical text (`engine.fixedbin`: 1292 for
text that names none, 4078 for a number). An expression's value into any of these, a number's and a string's columns goes
through the same `store` (`target`, `mysql_store`); only JSON and floats keep SQLite's value. A
typed literal (DATE 'x', TIME 'x', TIMESTAMP 'x') is read more strictly, as MariaDB's parser reads it (`typed_literal`: 1525).
A hybrid literal (0x.., b'..': `lexer.Hybrid`) stores its number into a number column (INT,
DECIMAL, DOUBLE, BIT, YEAR) and its bytes into any other.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation

from engine import fixedbin
from engine.catalog import (
    BLOB_TYPES,
    FIXEDBIN_TYPES,
    INT_TYPES,
    NUMERIC_TYPES,
    REAL_TYPES,
    TIME_TYPES,
    Column,
)
from engine.coltypes import format_double
from engine.lexer import Digits, Hybrid
from protocol.errors import (
    ER_BAD_NULL_ERROR,
    ER_CANNOT_CAST_ON_ASSIGNMENT,
    ER_DATA_TOO_LONG,
    ER_NOT_SUPPORTED_YET,
    ER_TRUNCATED_NUMBER,
    ER_TRUNCATED_WRONG_VALUE,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
    ER_WARN_DATA_OUT_OF_RANGE,
    ER_WRONG_VALUE,
    WARN_DATA_TRUNCATED,
    SQLError,
)

EXACT = Context(prec=200, rounding=ROUND_HALF_UP)  # DECIMAL(65,30) and more, never rounded by precision
_INT_BITS = {"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}
_TEXT_BYTES = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295}
_BLOB_BYTES = {"tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295}
# a string's leading number, as MySQL reads one ('12abc' is 12); also engine.functions' and decimal_math's
NUMBER_PREFIX = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INTEGER_PREFIX = re.compile(r"\s*[+-]?\d+")


def number_warning(text: str | bytes, what: str) -> tuple[str, int, str] | None:
    """What MariaDB says of the string `text` read as a number of type `what` ("DOUBLE",
    "INTEGER", "DECIMAL"): nothing for a number throughout (leading spaces allowed), a note 1292
    for one followed by spaces only, else a warning 1292 ('12abc', 'abc', '', and for INTEGER
    '1.5'), as (level, code, message); a binary string's bytes shown as `printable` shows them."""
    shown = text
    if isinstance(text, bytes):
        shown, text = printable(text), text.decode("latin-1")
    m = (_INTEGER_PREFIX if what == "INTEGER" else NUMBER_PREFIX).match(text)
    if m is not None and m.end() == len(text):
        return None
    level = "Note" if m is not None and not text[m.end():].strip(" ") else "Warning"
    return (level, ER_TRUNCATED_NUMBER.code, ER_TRUNCATED_NUMBER.format(what, shown))
# a literal that an exact DECIMAL computation reads (`engine.exact`): bound as its exact text,
# as written (never the float the lexer made of `1.5`)
NUMBER = Column("number", "longtext")
# TIMESTAMP's range (seconds 1 .. 2**31 - 1 of the epoch), in UTC: the server's time zone
TIMESTAMP_MIN, TIMESTAMP_MAX = "1970-01-01 00:00:01", "2038-01-19 03:14:07"
TIME_MAX_HOURS = 838  # TIME's range: -838:59:59.999999 .. 838:59:59.999999
_TEMPORAL = re.compile(r"^(-?\d+(?:[-:]\d+)*(?: \d+(?::\d+)*)?)(?:\.(\d*))?$")
_DIGITS_DATE = re.compile(r"(\d+)(?:\.(\d*))?\Z")
_DELIMITED_DATE = re.compile(r"(\d{1,4})[^\w\s]+(\d{1,2})[^\w\s]+(\d{1,2})"
                             r"(?:(?:\s+|T)(\d{1,2})(?:[^\w\s.]+(\d{1,2}))?(?:[^\w\s.]+(\d{1,2}))?(?:\.(\d*))?)?\Z")


# target() keys -> the column an expression is stored in, and whether under IGNORE
_TARGETS: dict[str, tuple[Column, str, bool]] = {}
_STRICT_BASES = INT_TYPES | NUMERIC_TYPES | BLOB_TYPES | TIME_TYPES | FIXEDBIN_TYPES | {
    "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}


def checked_store(col: Column) -> bool:
    """Whether `target` gives `col` a key: an expression's value written to it is converted and
    checked as `store` converts a literal."""
    return col.base in _STRICT_BASES


def target(col: Column, where: str, lenient: bool = False, exact: bool = False, literal: bool = False) -> str | None:
    """The key under which `mysql_store(value, key)` (a SQLite function, see `functions`) finds
    the column an expression's value is written to, checked and converted by `store` as a
    literal is (strict mode for expressions: UPDATE t SET tiny = tiny + 200 is 1264; `lenient`,
    under IGNORE: adjusted, with a warning). None for the types whose expression values are
    stored as SQLite computes them (JSON, floats). `exact`: the value is a DECIMAL's text
    (`engine.exact`), which a YEAR reads as a number (a string '0.4' is 2000, the DECIMAL 0000).
    `literal`: the value is a literal, stored per row updated: a float column's key too."""
    if col.base not in _STRICT_BASES and not (literal and col.base in REAL_TYPES):
        return None
    key = f"{where} {col.type_text}{' IGNORE' if lenient else ''}{' EXACT' if exact and col.base == 'year' else ''}"
    _TARGETS[key] = (col, where, lenient)
    return key


def store_target(key: str, value: object, row: int, warnings: list | None = None) -> object:
    col, where, lenient = _TARGETS[key]
    if isinstance(value, str) and (col.base in INT_TYPES or col.base in NUMERIC_TYPES) and (
            col.base != "year" or key.endswith(" EXACT")):
        try:
            value = Decimal(value)  # an exact number computed as its text (engine.exact)
        except InvalidOperation:
            pass
    return store(col, value, row, where, lenient, warnings)


def int_range(col: Column) -> tuple[int, int] | None:
    """The values an integer column holds (the native check of an integer expression)."""
    if col.base not in _INT_BITS:
        return None
    bits = _INT_BITS[col.base]
    return (0, (1 << bits) - 1) if col.unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def stored_literal(source: tuple, params: list[object], texts: list[str] | None,
                   warnings: list | None = None) -> object:
    """The value of a literal the translation has stored as a column would (`translate.STORE`:
    literal index, read as (False, True for _binary, a typed literal's kind), Column, row number,
    `db`.`t`.`c`, negated, IGNORE); a number with a point exactly as written: `texts`, the
    statement's `lexer.literal_texts`, needed (not None) when params[index] is a float, or a
    string for a BIT column (a number past BIGINT and a quoted string of its digits differ there)."""
    _, index, binary, col, row, where, negative, lenient = source
    v = params[index]
    if type(v) is Hybrid:
        v = _hybrid_stored(v, col)
    if type(binary) is str:  # DATE 'x' / TIME 'x' / TIMESTAMP 'x': its value, then stored as one
        return store(col, _typed_stored(binary, typed_literal(binary, v), col), row, where, lenient, warnings)
    if isinstance(v, float):  # a number with a point: exactly as written (DECIMAL), unless a DOUBLE (1e20)
        assert texts is not None, "stored_literal: a float literal needs the statement's texts"
        text = texts[index]
        if "e" not in text and "E" not in text:
            v = Decimal(text)
    if negative:
        v = v.copy_negate() if isinstance(v, Decimal) else -v  # type: ignore[operator]  # (no context rounding)
    elif binary and isinstance(v, str):
        v = v.encode("utf-8", "surrogateescape")
    elif col.base == "bit" and type(v) is Digits:
        v = Decimal(v)  # a number past BIGINT kept as its digits (`lexer.decode_number`): a number, not a string
    elif warnings is not None and (note := _cut_note(col, v, row)) is not None:
        warnings.append(note)
    return store(col, v, row, where, lenient, warnings)


def target_cut_note(key: str, value: object, row: int) -> tuple | None:
    """`_cut_note` for a literal stored under a `target` key (`functions`' mysql_store_row)."""
    return _cut_note(_TARGETS[key][0], value, row)


def _cut_note(col: Column, value: object, row: int) -> tuple | None:
    """The note 1265 of a literal a time column stores cut (`_cut_time`), as a warning
    (row, level, code, message); None for any other."""
    if col.base not in TIME_TYPES or not _cut_time(col.base, value):
        return None
    return (row, "Note", WARN_DATA_TRUNCATED.code, SQLError(WARN_DATA_TRUNCATED, col.name, row).message)


# `literal_step`'s kinds of step, which `Session._args` runs without a call
LITERAL, INTEGER, CHARS, AS_IS, NEGATED = 0, 1, 2, 3, 4
_INT_STORED = (-(1 << 63), (1 << 63) - 1)  # (an integer past it is stored as its digits: `_integer`)


def literal_step(source: tuple) -> tuple | None:
    """A `stored_literal` source as a step for the literals most writes carry, decided once per
    plan: (INTEGER, index, low, high) an int literal, stored as it is when in [low, high], for an
    integer column, (NEGATED, index, low, high) one written after a `-`, stored negated; (CHARS, index, limit, strip) an ASCII str literal for a CHAR / VARCHAR / TEXT
    column, stored without its trailing spaces when `strip` (CHAR), when its length is then within
    `limit`; (AS_IS, index) an int literal for `NUMBER` (an exact computation's), as it is. A
    literal its step does not take is read by `stored_literal` (the same value, and its errors
    and warnings); None for a source no step serves (_binary or typed, negated, BIT, YEAR, the
    other types)."""
    _, index, binary, col, _row, _where, negative, _lenient = source
    if binary is not False:
        return None
    base = col.base
    if base in _INT_BITS and col is not NUMBER:
        low, high = int_range(col) or _INT_STORED
        return (NEGATED if negative else INTEGER, index, max(low, _INT_STORED[0]), min(high, _INT_STORED[1]))
    if negative:
        return None
    if col is NUMBER:
        return (AS_IS, index)
    if base == "char" or base == "varchar":
        nums = [int(a) for a in col.args if a.isdigit()]
        return (CHARS, index, nums[0] if nums else 1, base == "char")
    if base in _TEXT_BYTES:  # (an ASCII string's bytes are its characters)
        return (CHARS, index, _TEXT_BYTES[base], False)
    return None


_NUMBER_COLUMNS = INT_TYPES | REAL_TYPES | NUMERIC_TYPES


def _hybrid_stored(v: Hybrid, col: Column) -> object:
    """A hybrid literal as `col` stores it: its number into a number column, else its bytes."""
    if col.base not in _NUMBER_COLUMNS:
        return bytes(v)
    number = v.number
    return Decimal(number) if type(number) is str else number


def hybrid_params(params: list[object], hybrids: tuple[tuple[int, bool], ...]) -> list[object]:
    """The statement's literals with each hybrid read as a number (`Plan.hybrids`) as its number
    (`Hybrid.number`); the others stay `Hybrid`s, which a
    stored value reads by its column (`stored_literal`) and anything else as bytes."""
    params = list(params)
    for n, numeric in hybrids:
        if numeric:
            params[n] = params[n].number  # type: ignore[attr-defined]
    return params


# a time written with digits past the microsecond (stored and cast cut, with a note)
PAST_MICROSECONDS = re.compile(r"[.]\d{7,}\s*$")


def _cut_time(base: str, value: object) -> bool:
    """Whether a `base` column stores the literal `value` cut, with MariaDB's note 1265: a
    string with digits past the microsecond, or a DATE's string or integer with a time of day
    (its fraction alone is dropped without one)."""
    if base != "date":
        return type(value) is str and PAST_MICROSECONDS.search(value) is not None
    found = date_parts(value) if type(value) is str or type(value) is int else None
    return found is not None and any(found[0][3:])


def store(col: Column, value: object, row: int, where: str, lenient: bool = False,
          warnings: list | None = None) -> object:
    """`where` is the column as MariaDB names it in 1366: `db`.`table`.`column`. `lenient`
    (INSERT IGNORE, UPDATE IGNORE): a value strict mode refuses is stored adjusted instead, as
    MariaDB does, and strict mode's error becomes a warning in `warnings`, (row, level, code,
    message) (`adjusted`)."""
    if not lenient:
        return _store(col, value, row, where)
    if col.base in FIXEDBIN_TYPES and value is not None:  # (adjusted, its warning dropped where `warnings` is None)
        return _fixedbin(col, value, row, where, [] if warnings is None else warnings)
    if value is None and not col.nullable and not col.auto_increment:
        # an expression's NULL for a NOT NULL column: its implicit default, warned of (MariaDB's
        # 1048 as a warning; SQLite's OR IGNORE would leave the row out, OR ABORT fail it)
        if warnings is not None:
            warnings.append((row, "Warning", ER_BAD_NULL_ERROR.code, SQLError(ER_BAD_NULL_ERROR, col.name).message))
        return implicit_default(col)
    try:
        return _store(col, value, row, where)
    except SQLError as exc:
        if exc.code not in _ADJUSTABLE:
            raise
        stored = adjusted(col, value, row, where)
        if warnings is not None:  # (a string cut, a date zeroed: "truncated", as MariaDB says it then)
            truncated = exc.code in (ER_DATA_TOO_LONG.code, ER_TRUNCATED_WRONG_VALUE.code)
            # (BIT's maximum, and a time clipped to TIME's range: out of range)
            past = col.base == "bit" or col.base == "time" and str(stored).lstrip("-").startswith(f"{TIME_MAX_HOURS}:")
            warning = SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row) if past else SQLError(
                WARN_DATA_TRUNCATED, col.name, row) if truncated else exc
            warnings.append((row, "Warning", warning.code, warning.message))
        return stored


_ADJUSTABLE = frozenset(e.code for e in (ER_WARN_DATA_OUT_OF_RANGE, WARN_DATA_TRUNCATED, ER_TRUNCATED_WRONG_VALUE,
                                         ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, ER_DATA_TOO_LONG))


def implicit_default(col: Column) -> object:
    """What a NOT NULL column without a default holds when IGNORE stores NULL in it: 0, '',
    the zero date or time, an ENUM's first member (MariaDB's implicit default)."""
    if col.base == "enum":
        members = col.members
        return members[0] if members else ""
    return adjusted(col, "", 1, "")


def adjusted(col: Column, value: object, row: int, where: str) -> object:
    """What IGNORE stores for a value strict mode refuses: a number's leading digits (0 without
    any) clipped to the column's range, a BIT's maximum, a string cut to the column's length, ''
    for an ENUM, the zero date, a time past TIME's range its end, any other the zero time, a YEAR
    out of range 0000 (`_year`); MariaDB's choices."""
    base = col.base
    if base == "bit":  # its maximum (a BIT column's value is never refused for its kind)
        return _bit(col, (1 << (_fsp(col) or 1)) - 1, row)
    if base == "year":
        return _year(col, value, row, where, lenient=True)
    if base in FIXEDBIN_TYPES:
        return fixedbin.ZERO_TEXT[base]
    text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
    if base in INT_TYPES or base in NUMERIC_TYPES or base == "decimal" or base in REAL_TYPES:
        m = NUMBER_PREFIX.match(text) if not isinstance(value, int | float | Decimal) else None
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value) if isinstance(
            value, int | Decimal) else Decimal(m.group(0).strip()) if m else Decimal(0)
        if base in REAL_TYPES:
            return float(number)
        if base in INT_TYPES:
            low, high = int_range(col) or (-(1 << 63), (1 << 63) - 1)
            n = int(number.to_integral_value(rounding=ROUND_HALF_UP, context=EXACT))
            return _integer(col, min(max(n, low), high), row, where)
        precision, scale = _precision_scale(col)
        top = Decimal(1).scaleb(precision - scale) - Decimal(1).scaleb(-scale)
        return _decimal(col, min(max(number, Decimal(0) if col.unsigned else -top), top), row, where)
    if base in BLOB_TYPES:
        raw = value if isinstance(value, bytes) else text.encode("utf-8", "surrogateescape")
        return _binary(col, raw[:_byte_limit(col)], row)
    if base in ("char", "varchar"):
        sizes = _sizes(col)
        return _text(col, text[:sizes[0] if sizes else 1], row, where)
    if base in _TEXT_BYTES:
        raw = text.encode("utf-8", "surrogateescape")[:_TEXT_BYTES[base]]
        return _text(col, raw.decode("utf-8", "ignore"), row, where)
    if base == "enum":
        return ""
    if base == "set":  # the members it names, the others dropped
        return _set(col, value, row, lenient=True)
    if base == "time":  # a time past the range: its end (838:59:59), as MariaDB clips it
        m = _TEMPORAL.match(text.strip())
        end = _time_whole(m.group(1), clip=True) if m is not None else None
        if end is not None:
            return end + _fraction("999999", _fsp(col), True)
    if base in TIME_TYPES:  # the zero value
        return temporal_text("00:00:00" if base == "time" else "0000-00-00", base, _fsp(col), stored=True)
    raise SQLError(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, base, _shown(text), where, row)


def _store(col: Column, value: object, row: int, where: str) -> object:
    if value is None:
        return None
    if col is NUMBER:  # integers as integers, any other number as its exact text
        return str(value) if isinstance(value, Decimal) else value
    base = col.base
    if base in INT_TYPES and base not in ("bit", "year"):
        return _integer(col, value, row, where)
    if base == "year":
        return _year(col, value, row, where)
    if base == "bit":
        return _bit(col, value, row)
    if base in NUMERIC_TYPES or base == "decimal":
        return _decimal(col, value, row, where)
    if base in REAL_TYPES:
        number = _number(col, value, row, where, "double")
        return float(number)
    if base in BLOB_TYPES:
        return _binary(col, value, row)
    if base in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext"):
        return _text(col, value, row, where)
    if base == "enum":
        return _enum(col, value, row)
    if base == "set":
        return _set(col, value, row)
    if base in TIME_TYPES:
        return _temporal(col, value, row, where)
    if base in FIXEDBIN_TYPES:
        return _fixedbin(col, value, row, where)
    if isinstance(value, Decimal):  # a number with a point into a column of another kind
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _fixedbin(col: Column, value: object, row: int, where: str, warnings: list | None = None) -> str | None:
    """A UUID, INET6 or INET4: text in its text form, or a binary string of its size, stored as
    its canonical text; a number is 4078 (IGNORE too); other text 1292, which `warnings` (IGNORE)
    takes instead: then NULL is stored, or for a NOT NULL column the zero value, as MariaDB's."""
    if isinstance(value, bool | int | float | Decimal):
        kind = "int" if isinstance(value, int) else "decimal" if isinstance(value, Decimal) else "double"
        raise SQLError(ER_CANNOT_CAST_ON_ASSIGNMENT, kind, col.base, where)
    text = fixedbin.canonical(col.base, value if isinstance(value, bytes) else str(value))
    if text is not None:
        return text
    shown = printable(value) if isinstance(value, bytes) else _shown(str(value))
    error = SQLError(ER_TRUNCATED_WRONG_VALUE, col.base, shown, where, row)
    if warnings is None:
        raise error
    warnings.append((row, "Warning", error.code, error.message))
    return None if col.nullable else fixedbin.ZERO_TEXT[col.base]


def _number(col: Column, value: object, row: int, where: str, kind: str) -> Decimal:
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
    m = NUMBER_PREFIX.match(text)
    if m is None:
        raise SQLError(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, kind, _shown(text), where, row)
    if text[m.end():].strip():
        raise SQLError(WARN_DATA_TRUNCATED, col.name, row)
    return Decimal(m.group(0).strip())


def _integer(col: Column, value: object, row: int, where: str) -> int | str:
    if type(value) is int:  # an integer literal: nothing to round
        n = value
    else:
        number = _number(col, value, row, where, "integer")
        n = int(number.to_integral_value(rounding=ROUND_HALF_UP, context=EXACT))  # half away from zero
    low, high = int_range(col) or (-(1 << 63), (1 << 63) - 1)
    if not low <= n <= high:
        raise SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row)
    return n if n < 1 << 63 else str(n)  # BIGINT UNSIGNED above SQLite's integers: its digits


def _year(col: Column, value: object, row: int, where: str, lenient: bool = False) -> int:
    """YEAR as MariaDB's Field_year stores it, kept as the year's number (0 for 0000): 1901 ..
    2155 as they are, 1 .. 69 the 2000s, 70 .. 99 the 1900s, 0 0000 (a string's '0' and '00'
    2000, its '0000' 0000); a number with a point rounded half away from zero, a DOUBLE
    truncated; anything else (a negative number too) 1264. A string is read as its leading number: 1366 without one,
    1265 with more after it. `lenient`: 0000 for a value out of range or a string without a
    number, a string's leading number for one with more after it (the warning is `store`'s)."""
    text, m = None, None
    if isinstance(value, float):
        n = int(value) if 0.0 <= value <= 2155.0 else -1
    elif isinstance(value, int | Decimal):
        # (a negative number is out of range even where it rounds to 0: -0.4 is 1264)
        n = int(Decimal(value).to_integral_value(rounding=ROUND_HALF_UP, context=EXACT)) if value >= 0 else -1
    else:
        text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
        m = NUMBER_PREFIX.match(text)
        n = int(Decimal(m.group(0).strip()).to_integral_value(rounding=ROUND_HALF_UP, context=EXACT)) if m else 0
    if n < 0 or 100 <= n <= 1900 or n > 2155:
        if lenient:
            return 0
        raise SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row)
    if text is not None and not lenient:
        if m is None:
            raise SQLError(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "integer", _shown(text), where, row)
        if text[m.end():].strip():
            raise SQLError(WARN_DATA_TRUNCATED, col.name, row)
    if n == 0 and (text is None or len(text) == 4 or m is None):
        return 0
    return n + 2000 if n < 70 else n + 1900 if n < 100 else n


def _bit(col: Column, value: object, row: int) -> int | str:
    """BIT(M) as MariaDB's Field_bit stores it: an unsigned number of M bits. An integer is its
    bits (BIT(64) takes a negative one's two's complement: -1 is 2^64-1), a number with a point
    rounded half away from zero (a negative one, or one past 64 bits, is 1264), a DOUBLE past
    BIGINT the bits of BIGINT's minimum (2^63, as MariaDB converts it); a string or a binary
    string (X'..', 0x..) is its bytes read as a big-endian number, leading zero bytes allowed. A
    value past M bits is 1406 (under IGNORE: the maximum, warned of as 1264, `store`)."""
    bits = _fsp(col) or 1
    if isinstance(value, float):
        value = int(Decimal(repr(value)).to_integral_value(rounding=ROUND_HALF_UP, context=EXACT)) if -(
            1 << 63) <= value < 1 << 63 else -(1 << 63)
    if isinstance(value, int):
        n = value + (1 << 64) if bits == 64 and -(1 << 63) <= value < 0 else int(value)
    elif isinstance(value, Decimal):
        n = int(value.to_integral_value(rounding=ROUND_HALF_UP, context=EXACT))
        if not 0 <= n < 1 << 64:
            raise SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row)
    else:
        raw = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
        n = int.from_bytes(raw, "big")
    if not 0 <= n < 1 << bits:
        raise SQLError(ER_DATA_TOO_LONG, col.name, row)
    return n if n < 1 << 63 else str(n)


def _decimal(col: Column, value: object, row: int, where: str) -> str:
    number = _number(col, value, row, where, "decimal")
    precision, scale = _precision_scale(col)
    try:
        rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=EXACT)
    except InvalidOperation:
        raise SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row) from None
    if (col.unsigned and rounded < 0) or rounded.copy_abs() >= Decimal(10).scaleb(precision - scale - 1):
        raise SQLError(ER_WARN_DATA_OUT_OF_RANGE, col.name, row)
    return format(rounded if rounded else rounded.copy_abs(), "f")  # 0.0000000001, never 1E-10 or -0.00


def _binary(col: Column, value: object, row: int) -> str | bytes:
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, float):
        raw = format_double(value).encode()
    else:
        raw = str(value).encode("utf-8", "surrogateescape")
    limit = _byte_limit(col)
    if len(raw) > limit:
        raise SQLError(ER_DATA_TOO_LONG, col.name, row)
    if col.base == "binary" and len(raw) < limit:
        raw += b"\x00" * (limit - len(raw))
    return binary_value(raw)


def binary_literal(value: object) -> str | bytes:
    """A _binary / BINARY literal's value as SQLite holds it (`binary_value` of its bytes)."""
    return binary_value(value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value)  # type: ignore[arg-type]


def binary_value(raw: bytes) -> str | bytes:
    """How SQLite holds a binary string: TEXT when its bytes are UTF-8 (so it equals the same
    bytes written as a string literal: SQLite never finds a TEXT equal to a BLOB), a BLOB only
    when they are not. Both compare byte by byte (no collation on binary columns); the result
    column's type sends either as the bytes."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


def printable(raw: bytes, limit: int | None = None) -> str:
    """Bytes as MariaDB's convert_to_printable shows them in a message: printable ASCII as
    itself, any other byte as \\xHH; past `limit` bytes, '...'."""
    shown = "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02X}" for b in raw[:limit])
    return shown + "..." if limit is not None and len(raw) > limit else shown


def _text(col: Column, value: object, row: int, where: str) -> str:
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, str):
        if value.isascii():
            raw = None
        else:
            raw = value.encode("utf-8", "surrogateescape")
    else:
        value = format_double(value) if isinstance(value, float) else str(value)  # 99.0 is '99', as MySQL
        raw = None
    if raw is not None:
        try:
            value = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SQLError(ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "string", printable(raw[exc.start:], 6), where,
                           row) from None
    assert isinstance(value, str)
    if col.base == "char":  # CHAR drops trailing spaces (MariaDB pads it and strips them when read)
        value = value.rstrip(" ")
    if col.base in _TEXT_BYTES:
        too_long = len(value.encode("utf-8")) > _TEXT_BYTES[col.base]
    else:
        nums = [int(a) for a in col.args if a.isdigit()]
        too_long = len(value) > (nums[0] if nums else 1)
    if too_long:
        raise SQLError(ER_DATA_TOO_LONG, col.name, row)
    return value


def _enum(col: Column, value: object, row: int) -> object:
    """An ENUM column's value as MariaDB's Field_enum stores it: a member named without regard
    to case or trailing spaces, or a number (a number with a point truncated; a string of
    digits too, that is no member's name) as the member's index, 0 the empty value '' only
    from a string; anything else 1265."""
    members = col.members
    if isinstance(value, float | Decimal):
        value = int(value)
    if isinstance(value, int):
        if 1 <= value <= len(members):
            return members[value - 1]
        raise SQLError(WARN_DATA_TRUNCATED, col.name, row)
    text = (value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)).rstrip(" ")
    for member in members:
        if member.lower() == text.lower():
            return member
    if text.isdigit() and len(text) < 6 and int(text) <= len(members):
        return members[int(text) - 1] if int(text) else ""
    raise SQLError(WARN_DATA_TRUNCATED, col.name, row)


def _set(col: Column, value: object, row: int, lenient: bool = False) -> str:
    """A SET column's value as MariaDB stores it: its members in the column's order, each once
    ('c,a,a' is 'a,c'); a number is the bits of the members (a number with a point truncated; a
    string of digits too, that names no member). A name that is no member is 1265 (dropped when
    `lenient`)."""
    members = col.members
    if isinstance(value, float | Decimal):
        value = int(value)
    if isinstance(value, int):
        if 0 <= value < 1 << len(members) or lenient:
            return ",".join(m for n, m in enumerate(members) if value >> n & 1)
        raise SQLError(WARN_DATA_TRUNCATED, col.name, row)
    text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
    if text.isdigit() and not any(m.lower() == text.lower() for m in members):
        return _set(col, int(text), row, lenient)
    chosen: set[int] = set()
    for part in text.split(",") if text else ():
        found = next((n for n, m in enumerate(members) if m.lower() == part.rstrip(" ").lower()), None)
        if found is None:
            if lenient:
                continue
            raise SQLError(WARN_DATA_TRUNCATED, col.name, row)
        chosen.add(found)
    return ",".join(members[n] for n in sorted(chosen))


def _temporal(col: Column, value: object, row: int, where: str) -> object:
    if col.base == "time" and isinstance(value, int | float | Decimal):  # 10203 is 01:02:03
        value = format(Decimal(repr(value)), "f") if isinstance(value, float) else str(value)
    text = temporal_text(value, col.base, _fsp(col), stored=True)
    if text is None:  # (MariaDB names a TIMESTAMP's value a datetime value)
        raise SQLError(ER_TRUNCATED_WRONG_VALUE, col.base if col.base in ("date", "time") else "datetime",
                       _shown(str(value)), where, row)
    return text


def _sizes(col: Column) -> list[int]:
    """A column type's numbers: VARCHAR(n)'s n, DECIMAL(p,s)'s p and s, DATETIME(fsp)'s fsp."""
    return [int(a) for a in col.args if a.isdigit()]


def _fsp(col: Column) -> int:
    sizes = _sizes(col)
    return sizes[0] if sizes else 0


def _precision_scale(col: Column) -> tuple[int, int]:
    sizes = _sizes(col)
    return (sizes[0] if sizes else 10), (sizes[1] if len(sizes) > 1 else 0)


def _byte_limit(col: Column) -> int:
    """The bytes a binary string column holds."""
    limit = _BLOB_BYTES.get(col.base)
    if limit is None:
        sizes = _sizes(col)
        limit = sizes[0] if sizes else 1
    return limit


def date_parts(value: object) -> tuple[list[int], str] | None:
    """A DATE / DATETIME value as MariaDB reads it (my_time.c's str_to_datetime and
    number_to_datetime): [year, month, day, hour, minute, second] and the fraction's digits, or
    None when it is not one. Text: delimited ('2024-1-5 1:2:3', any punctuation between the
    parts, ' ' or 'T' before the time, a 2-digit year 70-99 in the 1900s, else the 2000s) or
    digits only (YYMMDD, YYYYMMDD, YYMMDDHHMMSS, YYYYMMDDHHMMSS, two digits a part after the
    year, a last part of one digit too: '24010' is 2024-01-00); a number as its digits, zero
    padded to the nearest of those lengths, within number_to_datetime's ranges (1 .. 100,
    691232 .. 700100 ... are none). Out of range (month 13, 2024-02-30, 24:00:00): None;
    zero dates and zero parts are values (no NO_ZERO_DATE in the default sql_mode)."""
    if isinstance(value, (int, float, Decimal)):
        if value < 0:
            return None
        whole, _, frac = format(Decimal(str(value)) if isinstance(value, float) else value, "f").partition(".")
        if int(whole) and not any(low <= int(whole) <= high for low, high in _NUMBER_DATES):
            return None
        n = len(whole)
        whole = whole.zfill(6 if n <= 6 else 8 if n <= 8 else 12 if n <= 12 else 14)
        text = whole + ("." + frac if frac else "")
    else:
        text = value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)
    text = text.strip()
    m = _DIGITS_DATE.match(text)
    if m is not None:
        body, frac = m.group(1), m.group(2) or ""
        if not 5 <= len(body) <= 14:
            return None
        year_digits = 4 if len(body) in (8, 14) else 2
        parts = [body[:year_digits]] + [body[k:k + 2] for k in range(year_digits, len(body), 2)]
    else:
        m = _DELIMITED_DATE.match(text)
        if m is None:
            return None
        parts = [p for p in m.groups()[:6] if p is not None]
        frac = m.group(7) or ""
    fields = [int(p) for p in parts] + [0] * (6 - len(parts))
    if len(parts[0]) <= 2 and any(fields):
        fields[0] += 2000 if fields[0] < 70 else 1900
    year, month, day, hour, minute, second = fields
    if month > 12 or hour > 23 or minute > 59 or second > 59 or year > 9999:
        return None
    if day > 31 or (month and day > _month_days(year, month)):
        return None
    return fields, frac


# the numbers MariaDB reads as a date (my_time.c's number_to_datetime): YYMMDD, YYYYMMDD,
# YYMMDDhhmmss, YYYYMMDDhhmmss, a 2-digit year 00-69 in the 2000s, 70-99 in the 1900s
_NUMBER_DATES = ((101, 691231), (700101, 991231), (10000101, 99991231), (101000000, 691231235959),
                 (700101000000, 991231235959), (10000101000000, 99991231235959))


def _month_days(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def temporal_text(value: object, base: str, fsp: int, stored: bool = False) -> str | None:
    """`value` as a `base` ("date", "datetime", "timestamp", "time") column holds it: stored
    (`stored`: a DATE keeps the date of a DATETIME value, a DATETIME exactly `fsp` fraction
    digits, MariaDB truncating the rest), or as a value compared with such a column (a DATE
    compared with a time of day other than midnight, or a DATETIME with more fraction digits than
    `fsp`, keeps them, so that the texts order as the values: '2024-01-05' < '2024-01-05
    10:00:00'); None when it is not a value of that kind."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "surrogateescape")
    if base == "time":
        m = _TEMPORAL.match(str(value).strip())
        whole = _time_whole(m.group(1)) if m is not None else None
        if whole is None:
            return None
        return whole + _fraction(m.group(2) or "", fsp, stored)
    found = date_parts(value)
    if found is None:
        return None
    (year, month, day, hour, minute, second), frac = found
    date = f"{year:04d}-{month:02d}-{day:02d}"
    clock = f" {hour:02d}:{minute:02d}:{second:02d}"
    if base == "date":
        return date if stored or not (hour or minute or second or frac.strip("0")) else date + clock + \
            _fraction(frac, 0, False)
    text = date + clock
    if base == "timestamp" and stored and any(found[0]) and not (
            month and day and TIMESTAMP_MIN <= text <= TIMESTAMP_MAX):
        return None  # (the zero timestamp is one)
    return text + _fraction(frac, fsp, stored)


def typed_literal(kind: str, value: object) -> str:
    """The value of the SQL standard's typed literal DATE 'x', TIME 'x' or TIMESTAMP 'x' (`kind`
    "date", "time", "datetime") as MariaDB reads it when parsing: the canonical text with the
    fraction digits written (at most 6, the rest truncated). Stricter than a value stored in a
    column: a DATE must have no time, a TIMESTAMP a time (at least its hour), a TIME no date,
    nothing may follow; any other text, and a value out of range ('2020-13-01', '10:60:00',
    '839:00:00'), is 1525, which MariaDB gives for the whole statement."""
    text = value.strip() if isinstance(value, str) else ""
    found = _typed_literal(kind, text)
    if found is None:
        shown = _shown(value if isinstance(value, str) else str(value))
        raise SQLError(ER_WRONG_VALUE, "DATETIME" if kind == "datetime" else kind.upper(), shown)
    return found


def _typed_stored(kind: str, text: str, col: Column) -> object:
    """A typed literal's value `text` as written to `col`: a number column's number
    (20200101103000.5), a date's or a time's text to any other. A TIME to a DATE, DATETIME or
    TIMESTAMP column (MariaDB dates it today) is refused: 1235."""
    if col.base in INT_TYPES or col.base in NUMERIC_TYPES or col.base in REAL_TYPES:
        sign = "-" if text.startswith("-") else ""
        whole, _, frac = text.lstrip("-").partition(".")
        return Decimal(sign + re.sub(r"\D", "", whole) + ("." + frac if frac else ""))
    if kind == "time" and col.base in TIME_TYPES and col.base != "time":
        raise SQLError(ER_NOT_SUPPORTED_YET, "a TIME literal written to a DATE, DATETIME or TIMESTAMP column")
    return text


def _typed_literal(kind: str, text: str) -> str | None:
    if kind == "time":
        m = _TEMPORAL.match(text)
        if m is None or "-" in m.group(1)[1:]:  # (a date's dashes: no TIME)
            return None
        whole = m.group(1)
        if " " in whole and ":" not in whole:  # 'D HH' (a literal may say it, a stored value not)
            whole += ":00"
        clock = _time_whole(whole)
        frac = m.group(2) or ""
        return None if clock is None else clock + _fraction(frac, min(len(frac), 6), True)
    digits = _DIGITS_DATE.match(text)
    delimited = _DELIMITED_DATE.match(text[:-1] if kind == "date" and text.endswith("T") else text)
    if digits is not None:
        timed, frac = len(digits.group(1)) > 8, digits.group(2)
        if frac is not None and not timed:
            return None
    elif delimited is not None:
        timed, frac = delimited.group(4) is not None, delimited.group(7)
    else:
        return None
    if timed != (kind == "datetime") or date_parts(text.rstrip("T")) is None:
        return None
    return temporal_text(text.rstrip("T"), kind, min(len(frac or ""), 6), stored=True)


def _fraction(digits: str, fsp: int, stored: bool) -> str:
    """A value's fraction as a column with `fsp` digits stores it (exactly fsp digits), or, to
    compare with one, with its own nonzero digits beyond fsp."""
    if stored:
        return "." + (digits + "000000")[:fsp] if fsp else ""
    digits = digits.rstrip("0")
    if len(digits) <= fsp:
        return "." + digits.ljust(fsp, "0") if fsp else ""
    return "." + digits


def _time_whole(text: str, clip: bool = False) -> str | None:
    """A TIME literal's whole part ('D HH:MM[:SS]', 'H:MM[:SS]', '[[H]MM]SS') as '[-]H:MM:SS',
    or None beyond the range (+-838:59:59) or with minutes or seconds over 59; `clip`: the end
    of the range for a time past it, None for any other."""
    sign = "-" if text.startswith("-") else ""
    days, _, clock = text.lstrip("-").rpartition(" ")
    if "-" in days:  # a DATETIME: its time
        sign, days = "", ""
    if ":" in clock:
        parts = [int(p) for p in clock.split(":")] + [0, 0]
        h, m, s = parts[:3]
    elif not clock.isdigit() or days:  # MariaDB refuses 'D HH'
        return None
    else:
        h, m, s = int(clock[:-4] or 0), int(clock[-4:-2] or 0), int(clock[-2:])
    if days:
        if not days.isdigit():
            return None
        h += int(days) * 24
    if h > TIME_MAX_HOURS or m > 59 or s > 59:
        return f"{sign}{TIME_MAX_HOURS}:59:59" if clip and m <= 59 and s <= 59 and h > TIME_MAX_HOURS else None
    return None if clip else f"{sign}{h:02d}:{m:02d}:{s:02d}"


def _shown(text: str) -> str:
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")[:64]


def compare_decimal(a: str, b: str) -> int:
    """The DECIMAL collation: two stored decimal texts by numeric value ('3.5' = '3.50')."""
    try:
        x, y = Decimal(a), Decimal(b)
    except (InvalidOperation, ValueError):
        return (a > b) - (a < b)  # not numbers (never stored by `store`): byte order
    return (x > y) - (x < y)
