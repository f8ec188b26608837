"""The MySQL result type of each select-list expression, from the schema and the expression.

`SelectTypes` is built once per statement shape by the translator: the select list split into
items (aliases dropped) and the tables of the FROM clause by alias. `types(params, texts)`
describes every result column: a column reference (`c`, `t.c`, `db.t.c`, `*`, `t.*`) by its
table's definition, a literal by its kind (an integer LONG or LONGLONG by its digits, `1.5`
DECIMAL, `1e3` DOUBLE, a string VARCHAR utf8mb4, `X'..'`/`_binary'..'` binary VARCHAR, NULL the
NULL type, DATE 'x' / TIME 'x' / TIMESTAMP 'x' DATE, TIME, DATETIME), operators and functions by MySQL's rules (integer + - * BIGINT, `/` DECIMAL with 4
more decimals, comparisons INT(1), COUNT BIGINT, SUM/AVG of exact numbers DECIMAL, of floats
DOUBLE, MIN/MAX their argument's type, NOW() DATETIME, string functions VARCHAR, CAST targets).
An expression it does not know is None: the engine then takes the one type all of the column's
values fit (`coltypes.from_rows`), never the first row's. Literal values are statement arguments,
so a description that read one is computed per execution; the rest is computed once. A column
of the statement's subqueries is looked up among all its tables (`SelectTypes.scope`); a scalar
subquery has its item's type; a UNION's columns aggregate their branches' types (`UnionTypes`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from engine import temporary
from engine.catalog import Table
from engine.coltypes import (
    BOOLEAN,
    CHARSET_BINARY,
    CHARSET_UTF8MB4_GENERAL_CI,
    DECIMAL_MAX_SCALE,
    DOUBLE,
    LONGLONG,
    MB,
    NOT_FIXED_DEC,
    NULL_TYPE,
    STRING_DEC,
    ColumnType,
    datetime_type,
    decimal_type,
    declared_type,
    fixedbin_type,
    int_type,
    varchar,
)
from engine.fixedbin import canonical
from engine.lexer import Token
from engine.values import date_parts, temporal_text
from protocol.charsets import CHARSETS, collation_number, mbmaxlen
from protocol.messages import ColumnFlag, FieldType

_COMPARE_OPS = {"=", "<", ">", "<=", ">=", "!=", "<>", "<=>"}
_COMPARE_WORDS = {"AND", "OR", "NOT", "LIKE", "IS", "IN", "BETWEEN", "REGEXP", "RLIKE", "XOR", "EXISTS", "SOUNDS"}
# JSON functions whose value is a JSON document (typed with the "json" format)
JSON_VALUED = frozenset({"JSON_OBJECT", "JSON_ARRAY", "JSON_EXTRACT", "JSON_SET", "JSON_INSERT", "JSON_REPLACE",
                          "JSON_REMOVE", "JSON_MERGE", "JSON_MERGE_PATCH", "JSON_MERGE_PRESERVE", "JSON_KEYS",
                          "JSON_QUERY", "JSON_ARRAY_INSERT", "JSON_ARRAY_APPEND", "JSON_COMPACT", "JSON_SEARCH",
                          "JSON_NORMALIZE"})
_STRING_FUNCS = {"JSON_QUOTE", "JSON_UNQUOTE", "JSON_VALUE", "CONCAT", "CONCAT_WS", "UPPER", "LOWER", "UCASE", "LCASE", "SUBSTRING", "SUBSTR", "MID",
                 "LEFT", "RIGHT", "TRIM", "LTRIM", "RTRIM", "REPLACE", "REPEAT", "REVERSE", "LPAD", "RPAD",
                 "DATABASE", "SCHEMA", "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "VERSION",
                 "DATE_FORMAT", "HEX", "MD5", "SHA1", "SHA2", "UUID", "FORMAT",
                 "INSERT", "SPACE", "QUOTE", "CHAR_LENGTH", "TIME_FORMAT", "INET_NTOA", "NATURAL_SORT_KEY",
                 "SOUNDEX"}
_CASE_CALLS = frozenset({"UPPER", "LOWER", "UCASE", "LCASE", "REVERSE"})  # a binary string's are its bytes
_ACCOUNT_FUNCS = frozenset({"USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER"})
_INT_FUNCS = {"INTERVAL": 2, "LENGTH": 10, "OCTET_LENGTH": 10, "CHAR_LENGTH": 10, "CHARACTER_LENGTH": 10,
              "LOCATE": 11, "INSTR": 11, "POSITION": 11, "YEAR": 4, "MONTH": 2, "DAY": 2,
              "DAYOFMONTH": 2, "HOUR": 2, "MINUTE": 2, "SECOND": 2, "DAYOFWEEK": 1, "DAYOFYEAR": 3,
              "WEEKDAY": 1, "WEEKOFYEAR": 2, "QUARTER": 1, "ISNULL": 1, "SIGN": 2, "CONNECTION_ID": 10,
              "ASCII": 3, "ORD": 10, "FIND_IN_SET": 3, "STRCMP": 2, "CRC32": 10, "TO_DAYS": 7,
              "MICROSECOND": 6, "DATEDIFF": 8, "FIELD": 3, "JSON_VALID": 1, "JSON_CONTAINS": 1,
              "JSON_CONTAINS_PATH": 1, "JSON_OVERLAPS": 1, "JSON_EQUALS": 1, "JSON_EXISTS": 1,
              "JSON_LENGTH": 10, "JSON_DEPTH": 10, "WEEK": 2, "YEARWEEK": 6, "PERIOD_DIFF": 6, "PERIOD_ADD": 6,
              "GET_LOCK": 1, "RELEASE_LOCK": 1, "IS_FREE_LOCK": 1, "IS_USED_LOCK": 10, "IS_IPV4": 1, "IS_IPV6": 1,
              "IS_IPV4_COMPAT": 1, "IS_IPV4_MAPPED": 1, "UNCOMPRESSED_LENGTH": 10, "LENGTHB": 10, "CRC32C": 10,
              "BENCHMARK": 1, "COERCIBILITY": 1, "REGEXP_INSTR": 11}
_BIG_FUNCS = {"INET_ATON": 21, "COUNT": 21, "LAST_INSERT_ID": 21, "UNIX_TIMESTAMP": 17, "ROW_COUNT": 21,
              "FOUND_ROWS": 21, "BIT_COUNT": 2, "TIMESTAMPDIFF": 21, "TO_SECONDS": 12, "BIT_LENGTH": 11,
              "UUID_SHORT": 21}
# string functions MariaDB describes with 0 decimals (others: 39)
_NO_DECIMALS = frozenset({"DAYNAME", "MONTHNAME", "DATE_FORMAT", "TIME_FORMAT", "HEX", "INET_NTOA"})
_DOUBLE_FUNCS = {"RAND", "SQRT", "POW", "POWER", "EXP", "LN", "LOG", "LOG2", "LOG10", "SIN", "COS",
                 "TAN", "COT", "ASIN", "ACOS", "ATAN", "ATAN2", "PI", "DEGREES", "RADIANS", "STD", "STDDEV",
                 "VARIANCE", "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"}
# string functions whose type is their own whatever the arguments
_MAX_LENGTH = 4294967295  # a column definition's length field (a LONGTEXT's)
_OWN_TYPES = {
    "JSON_PRETTY": ColumnType(FieldType.LONG_BLOB, _MAX_LENGTH, 0, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "JSON_DETAILED": ColumnType(FieldType.LONG_BLOB, _MAX_LENGTH, 0, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "JSON_LOOSE": ColumnType(FieldType.VAR_STRING, 16 * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "GET_FORMAT": ColumnType(FieldType.VAR_STRING, 17 * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "INET6_ATON": ColumnType(FieldType.VAR_STRING, 16, 0, CHARSET_BINARY, ColumnFlag.BINARY),
    "INET6_NTOA": ColumnType(FieldType.VAR_STRING, 39 * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "UNCOMPRESS": ColumnType(FieldType.LONG_BLOB, 16777216, STRING_DEC, CHARSET_BINARY, ColumnFlag.BINARY),
    "SFORMAT": ColumnType(FieldType.LONG_BLOB, 4294967295, STRING_DEC, CHARSET_UTF8MB4_GENERAL_CI, 0),
    "CHR": varchar(1),
    "PASSWORD": varchar(41),
    "OLD_PASSWORD": varchar(16),
    "SYS_GUID": varchar(32),
    "CURRENT_ROLE": varchar(128),
    "DAYNAME": replace(varchar(9), decimals=0),
    "MONTHNAME": replace(varchar(9), decimals=0),
    "RANDOM_BYTES": replace(varchar(1024, binary=True), decimals=STRING_DEC),
    "AES_ENCRYPT": replace(varchar(16, binary=True), decimals=STRING_DEC),
    "AES_DECRYPT": replace(varchar(16, binary=True), decimals=STRING_DEC),
}
_VARIANCE_FUNCS = {"STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP"}
# functions that read their arguments as numbers: an ENUM or SET argument is its number
_NUMBER_ARGS = {"SUM", "AVG", "ABS", "ROUND", "TRUNCATE", "FLOOR", "CEIL", "CEILING", "MOD", "SIGN"}
_AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_AND", "BIT_OR", "BIT_XOR", "STD",
               "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG",
               "JSON_OBJECTAGG")
_WINDOW_FUNCS = frozenset({"ROW_NUMBER", "RANK", "DENSE_RANK", "NTILE", "PERCENT_RANK", "CUME_DIST", "LAG", "LEAD",
                           "FIRST_VALUE", "LAST_VALUE", "NTH_VALUE"})
_KEY_FLAGS = ColumnFlag.PRI_KEY | ColumnFlag.UNIQUE_KEY | ColumnFlag.MULTIPLE_KEY | 16384  # (16384: PART_KEY)
_INTEGERS = frozenset({FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG, FieldType.LONGLONG})
_SAME_AS_ARG = {"MIN", "MAX", "ABS", "IFNULL", "COALESCE", "NULLIF", "GREATEST", "LEAST", "ANY_VALUE"}
# the clock's functions, whose one argument is a precision
_CLOCK_FUNCS = frozenset({"NOW", "SYSDATE", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP", "CURTIME",
                          "CURRENT_TIME", "UTC_TIME"})
_TEMPORAL_FUNCS = {
    "NOW": FieldType.DATETIME, "SYSDATE": FieldType.DATETIME, "CURRENT_TIMESTAMP": FieldType.DATETIME,
    "LOCALTIME": FieldType.DATETIME, "LOCALTIMESTAMP": FieldType.DATETIME, "UTC_TIMESTAMP": FieldType.DATETIME,
    "CURDATE": FieldType.DATE, "CURRENT_DATE": FieldType.DATE, "UTC_DATE": FieldType.DATE, "DATE": FieldType.DATE,
    "CURTIME": FieldType.TIME, "CURRENT_TIME": FieldType.TIME, "UTC_TIME": FieldType.TIME,
    "FROM_UNIXTIME": FieldType.DATETIME, "LAST_DAY": FieldType.DATE, "FROM_DAYS": FieldType.DATE,
    "SEC_TO_TIME": FieldType.TIME, "MAKEDATE": FieldType.DATE, "MAKETIME": FieldType.TIME,
    "TIMEDIFF": FieldType.TIME, "TIME": FieldType.TIME, "TIMESTAMP": FieldType.DATETIME,
    "CONVERT_TZ": FieldType.DATETIME,
}
# functions whose result keeps the fraction digits of the arguments it reads (`time_of_args`)
_FSP_FROM_ARGS = {"TIME": FieldType.TIME, "TIMEDIFF": FieldType.TIME, "TIMESTAMP": FieldType.DATETIME,
                  "CONVERT_TZ": FieldType.DATETIME, "ADDTIME": FieldType.DATETIME, "SUBTIME": FieldType.DATETIME}
# functions of a time's seconds or of seconds, typed by the digits of their argument (`seconds_function`)
_SECONDS_FUNCS = frozenset({"UNIX_TIMESTAMP", "TIME_TO_SEC", "SEC_TO_TIME", "FROM_UNIXTIME"})
# the typed literals DATE 'x', TIME 'x', TIMESTAMP 'x' (`translate.TYPED_LITERALS`)
_TYPED_LITERALS = {"DATE": FieldType.DATE, "TIME": FieldType.TIME, "TIMESTAMP": FieldType.DATETIME}
_NILADIC = {"CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_DATE", "CURRENT_TIME",
            "UTC_TIMESTAMP", "UTC_DATE", "UTC_TIME", "CURRENT_USER", "CURRENT_ROLE"}
_CONSTANT_FLAGS = ColumnFlag.BINARY | ColumnFlag.NOT_NULL
_STRING_TYPES = (FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB)
_BLOB_TYPES = (FieldType.TINY_BLOB, FieldType.BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB)
_EXACT = {FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG, FieldType.LONGLONG,
          FieldType.YEAR, FieldType.BIT}


class _Unknown(Exception):
    """An expression this module does not type: the caller falls back to the values."""


@dataclass
class SelectTypes:
    items: list[list[Token]]  # select-list items, aliases dropped
    tables: list[tuple[str, Table]]  # FROM tables in order, by lower-case alias (or name)
    scope: list[tuple[str, Table]] | None = None  # every table of the statement (subqueries' too)
    # the FROM tables (by alias) an outer join makes nullable (`outer_joined`; None: not told)
    outer: frozenset[str] | None = frozenset()
    # `grouping`'s: columns read as nullable outside aggregates, and by a window function (whose
    # columns lose their keys too)
    grouped: bool = False
    windowed: bool = False
    _static: list[ColumnType | None] | None = field(default=None, repr=False)

    def column_type(self, names: list[str]) -> ColumnType | None:
        """The type of the column `names` ([[db.]table.]column) of the FROM tables, or None."""
        try:
            return _Typer(self.tables, [], list, self.scope, self.outer).column(names)
        except _Unknown:
            return None

    def expr_type(self, tokens: list[Token], params: list[object], texts) -> ColumnType | None:
        """The type of the expression `tokens` over the FROM tables, or None when not known."""
        try:
            ct, end = _Typer(self.tables, params, texts, self.scope, self.outer).expr(tokens, 0)
        except (_Unknown, IndexError):
            return None
        return ct if end == len(tokens) else None

    def static_types(self) -> list[ColumnType] | None:
        """The columns' types when each is known and none is read from a literal, else None."""
        if self._static is None:
            self.types([], list)  # (a literal it reads is not there: not static anyway)
        static = self._static
        return None if static is None or None in static else static

    def types(self, params: list[object], texts) -> list[ColumnType | None]:
        """One entry per result column (None: not known from the expression). `texts()` gives
        the statement's literal texts (read only for number literals)."""
        if self._static is not None:
            return self._static
        typer = _Typer(self.tables, params, texts, self.scope, self.outer)
        if self.grouped:
            typer.nulled = ColumnFlag.NOT_NULL | (_KEY_FLAGS if self.windowed else 0)
        out: list[ColumnType | None] = []
        for item in self.items:
            if item and item[-1].text == "*" and (len(item) == 1 or item[-2].text == "."):
                try:
                    out.extend(typer.star(item))
                except _Unknown:
                    return []  # (how many columns a wildcard gives is not known: typed from the values)
                continue
            try:
                ct, end = typer.expr(item, 0)
                if end != len(item):
                    raise _Unknown
                out.append(ct if is_name(item) else _computed(ct))
            except (_Unknown, IndexError):
                out.append(None)
        if not typer.read_params:
            self._static = out
        return out


@dataclass
class UnionTypes:
    """A UNION's (EXCEPT's, INTERSECT's) result columns: each branch typed as a SELECT, each
    column the aggregation of the branches' types (MySQL's: DECIMAL over exact numbers, DOUBLE
    over numbers, a string otherwise); a column some branch does not type is typed from its
    values."""

    branches: list[SelectTypes]

    def types(self, params: list[object], texts) -> list[ColumnType | None]:
        each = [branch.types(params, texts) for branch in self.branches]
        if len({len(types) for types in each}) != 1:
            return []
        out: list[ColumnType | None] = []
        for column in zip(*each, strict=True):
            if any(ct is None for ct in column):
                out.append(None)
                continue
            ct = _unify(column)
            if ct.type == FieldType.NEWDECIMAL:  # (MariaDB's merged DECIMAL is not binary)
                ct = replace(ct, flags=ct.flags & ~ColumnFlag.BINARY)
            nullable = any(not c.flags & ColumnFlag.NOT_NULL for c in column)
            flags = ct.flags & ~ColumnFlag.NOT_NULL if nullable else ct.flags
            if ct.type != FieldType.YEAR:  # (a UNION of numbers pads none; a YEAR's '0000' stays)
                flags &= ~ColumnFlag.ZEROFILL
            out.append(ColumnType(ct.type, ct.length, ct.decimals, ct.charset, flags, ct.pad_to))
        return out


_SELECT_OPTIONS = ("DISTINCT", "ALL", "DISTINCTROW", "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE", "SQL_CACHE",
                   "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT")
_SELECT_LIST_END = ("FROM", "INTO", "UNION", "WHERE", "LIMIT", "ORDER", "GROUP", "HAVING", "FOR", "LOCK", "WINDOW",
                    "EXCEPT", "INTERSECT")


def grouping(tokens: list[Token], items: list[list[Token]]) -> tuple[bool, bool]:
    """Whether the SELECT `tokens` (select items `items`) reads its tables' columns as nullable
    outside its aggregates, as MariaDB does when it groups without GROUP BY (no rows give one of
    NULLs) or has a window function (its temporary table); and whether by a window function."""
    depth = 0
    for k, tok in enumerate(tokens):
        if tok.kind == "op" and tok.text in ("(", ")"):
            depth += 1 if tok.text == "(" else -1
        elif depth == 0 and tok.is_word("GROUP") and not within_group(tokens, k):
            return False, False
    if not any(calls_aggregate(item) for item in items):
        return False, False
    return True, any(calls_aggregate(item, windows_only=True) for item in items)


def calls_aggregate(toks: list[Token], windows_only: bool = False) -> bool:
    """`toks` call an aggregate or a window function (a subquery's own not counted)."""
    k = 0
    while k < len(toks):
        tok = toks[k]
        if tok.text == "(" and k + 1 < len(toks) and toks[k + 1].is_word("SELECT", "WITH"):
            k = closing(toks, k) + 1
            continue
        if tok.kind == "word" and k + 1 < len(toks) and toks[k + 1].text == "(":
            after = closing(toks, k + 1) + 1
            if not windows_only and tok.is_word(*_AGGREGATES) or after < len(toks) and toks[after].is_word("OVER"):
                return True
        k += 1
    return False


def closing(toks: list[Token], k: int) -> int:
    """The index of the parenthesis closing the one at toks[k] (the last token's when none does)."""
    depth = 0
    for n in range(k, len(toks)):
        if toks[n].kind == "op" and toks[n].text in ("(", ")"):
            depth += 1 if toks[n].text == "(" else -1
            if depth == 0:
                return n
    return len(toks) - 1


def within_group(tokens: list[Token], k: int) -> bool:
    """tokens[k] is the GROUP of PERCENTILE_CONT(f) WITHIN GROUP (...), no GROUP BY clause."""
    return k > 0 and tokens[k].is_word("GROUP") and tokens[k - 1].is_word("WITHIN")


def split_top(tokens: list[Token], i: int = 0, end_words: tuple[str, ...] = ()) -> tuple[list[list[Token]], int]:
    """tokens[i:] split at the commas outside parentheses, up to a word of `end_words` outside
    them (or the end): the parts and the index reached."""
    parts: list[list[Token]] = [[]]
    depth = 0
    while i < len(tokens):
        t = tokens[i]
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
        elif depth == 0 and end_words and t.is_word(*end_words) and not within_group(tokens, i):
            break
        if depth == 0 and t.kind == "op" and t.text == ",":
            parts.append([])
        else:
            parts[-1].append(t)
        i += 1
    return parts, i


def select_items(tokens: list[Token]) -> tuple[list[list[Token]], int] | None:
    """The items of a SELECT's select list as written (aliases included) and the index after it."""
    if not tokens or not tokens[0].is_word("SELECT"):
        return None
    i = 1
    while i < len(tokens) and tokens[i].is_word(*_SELECT_OPTIONS):
        i += 1
    return split_top(tokens, i, _SELECT_LIST_END)


def split_select(tokens: list[Token]) -> tuple[list[list[Token]], int] | None:
    """The select list's items with their aliases dropped, and the index after it."""
    found = select_items(tokens)
    if found is None:
        return None
    items, end = found
    return [drop_alias(item) for item in items], end


# the units an INTERVAL or EXTRACT may name (a unit ending an item is no alias after INTERVAL and
# its value)
UNIT_WORDS = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND", "QUARTER", "WEEK",
                    "YEAR_MONTH", "DAY_HOUR", "DAY_MINUTE", "DAY_SECOND", "HOUR_MINUTE", "HOUR_SECOND",
                    "MINUTE_SECOND", "DAY_MICROSECOND", "HOUR_MICROSECOND", "MINUTE_MICROSECOND",
                    "SECOND_MICROSECOND"})


def _ends_with_interval(item: list[Token]) -> bool:
    """The item ends with `INTERVAL value unit` (value: a literal, a name or a parenthesized
    expression, signed or not)."""
    if len(item) < 3 or item[-1].kind != "word" or item[-1].upper not in UNIT_WORDS:
        return False
    k = len(item) - 2
    if item[k].text == ")":
        depth = 0
        while k >= 0:
            if item[k].text == ")":
                depth += 1
            elif item[k].text == "(":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
    k -= 1
    if k >= 0 and item[k].kind == "op" and item[k].text in ("-", "+"):
        k -= 1
    return k >= 0 and item[k].is_word("INTERVAL")


def drop_alias(item: list[Token]) -> list[Token]:
    depth = 0
    for k, t in enumerate(item):
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.is_word("AS"):
            return item[:k]
    if _ends_with_interval(item):
        return item
    if len(item) > 1 and item[-1].kind in ("word", "ident") and (
            item[-2].kind in ("word", "ident", "param") or item[-2].text == ")") \
            and not item[-2].is_word("NOT", "IS", "AND", "OR", "LIKE", "IN", "NULL", "TRUE", "FALSE", "CASE",
                                     "WHEN", "THEN", "ELSE", "_BINARY", "BINARY", "INTERVAL", "DIV", "MOD", "XOR", "OVER") \
            and not item[-1].is_word("NULL", "TRUE", "FALSE", "END", "UNKNOWN") \
            and not item[-2].text.startswith("_"):
        return item[:-1]
    return item


_NOT_ALIAS = frozenset({"JOIN", "STRAIGHT_JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "OUTER", "NATURAL", "ON",
                        "USING", "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "FOR", "LOCK", "USE",
                        "FORCE", "IGNORE", "WINDOW", "INTO", "PARTITION", "EXCEPT", "INTERSECT", "FETCH", "OFFSET"})


def _alias(tokens: list[Token], i: int) -> tuple[str | None, int]:
    """The alias after a table at tokens[i - 1] (`AS x`, or a name that is no keyword of the
    clause), and the index of the token that ends the table."""
    nxt = tokens[i] if i < len(tokens) else None
    if nxt is not None and nxt.is_word("AS") and i + 1 < len(tokens):
        return tokens[i + 1].text, i + 2
    if nxt is not None and (nxt.kind == "ident" or (nxt.kind == "word" and nxt.upper not in _NOT_ALIAS)):
        return nxt.text, i + 1
    return None, i


def from_tables(tokens: list[Token], i: int, lookup) -> list[tuple[str, Table | Derived]]:
    """The tables of the FROM clause starting at tokens[i] (`lookup(schema, name)` -> Table or
    None), by alias: a derived table `(SELECT ...) alias` as a `Derived`, the tables of a
    parenthesized join as if written without the parentheses."""
    tables: list[tuple[str, Table | Derived]] = []
    if i >= len(tokens) or not tokens[i].is_word("FROM"):
        return tables
    i += 1
    expect = True
    depth = 0
    while i < len(tokens):
        t = tokens[i]
        if depth == 0 and expect and t.kind == "op" and t.text == "(":
            close = _skip_parens(tokens, i)
            inner = tokens[i + 1:close - 1]
            alias, i = _alias(tokens, close)
            while inner and inner[0].text == "(" and _skip_parens(inner, 0) == len(inner):
                inner = inner[1:-1]  # ((SELECT ...)) t: the SELECT
            if inner and inner[0].is_word("SELECT", "WITH"):
                if alias is not None:
                    tables.append((alias.lower(), derived(inner, lookup)))
            else:  # a parenthesized join: its tables
                tables += from_tables([Token("word", "FROM"), *inner], 0, lookup)
            expect = False
            continue
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
        elif depth == 0 and t.kind == "op" and t.text == ",":
            expect = True
        elif depth == 0 and t.is_word("JOIN", "STRAIGHT_JOIN"):
            expect = True
        elif depth == 0 and t.is_word("WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "FOR", "LOCK",
                                      "WINDOW", "INTO", "EXCEPT", "INTERSECT"):
            break
        elif depth == 0 and expect and t.kind in ("word", "ident"):
            schema, name = None, t.text
            if i + 2 < len(tokens) and tokens[i + 1].text == "." and tokens[i + 1].kind == "op":
                schema, name = t.text, tokens[i + 2].text
                i += 2
            table = lookup(schema, name)
            alias, i = _alias(tokens, i + 1)
            if table is not None:
                tables.append(((alias or name).lower(), table))
            expect = False
            continue
        i += 1
    return tables


def outer_joined(tokens: list[Token], i: int) -> frozenset[str] | None:
    """The aliases (or names) of the tables of the FROM clause at tokens[i] that its outer joins
    make nullable: a LEFT JOIN's right table, every table before a RIGHT JOIN (NATURAL or not);
    None where a parenthesized join stands beside an outer join (not told here)."""
    if i >= len(tokens) or not tokens[i].is_word("FROM"):
        return frozenset()
    seen: list[str] = []
    out: set[str] = set()
    nested = False
    join = None  # LEFT or RIGHT: how the next table joins
    expect, k = True, i + 1
    while k < len(tokens):
        t = tokens[k]
        if t.kind == "op" and t.text == "(":
            close = _skip_parens(tokens, k)
            if not expect:
                k = close
                continue
            inner = tokens[k + 1:close - 1]
            while inner and inner[0].text == "(" and _skip_parens(inner, 0) == len(inner):
                inner = inner[1:-1]
            alias, k = _alias(tokens, close)
            if inner and inner[0].is_word("SELECT", "WITH"):
                names = [alias.lower()] if alias is not None else []
            else:  # a parenthesized join: its tables
                nested = True
                names = [a for a, _ in from_tables([Token("word", "FROM"), *inner], 0, lambda s, n: Table(s, n, []))]
        elif expect and t.kind in ("word", "ident"):
            name = t.text
            if k + 2 < len(tokens) and tokens[k + 1].text == "." and tokens[k + 1].kind == "op":
                name, k = tokens[k + 2].text, k + 2
            alias, k = _alias(tokens, k + 1)
            names = [(alias or name).lower()]
        else:
            if t.kind == "op" and t.text == ",":
                expect, join = True, None
            elif t.is_word("JOIN", "STRAIGHT_JOIN"):
                expect = True
            elif t.is_word("LEFT", "RIGHT") and not (k + 1 < len(tokens) and tokens[k + 1].text == "("):
                join = t.upper
            elif t.is_word(*_FROM_ENDS):
                break
            k += 1
            continue
        if join == "LEFT":
            out.update(names)
        elif join == "RIGHT":
            out.update(seen)
        seen += names
        expect, join = False, None
    if nested and (out or any(tok.is_word("LEFT", "RIGHT") for tok in tokens[i:k])):
        return None
    return frozenset(out)


_FROM_ENDS = frozenset({"WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "UNION", "FOR", "LOCK", "WINDOW", "INTO",
                        "EXCEPT", "INTERSECT", "RETURNING", "PROCEDURE"})
_JOIN_WORDS = frozenset({"NATURAL", "LEFT", "RIGHT", "INNER", "CROSS", "OUTER", "JOIN", "STRAIGHT_JOIN"})


def joined_columns(tokens: list[Token], i: int, lookup) -> list[tuple[str, str]] | None:
    """The columns of `SELECT *` over the FROM clause at tokens[i] when one of its joins is
    NATURAL or has USING, in MySQL's order, as (the table's alias or name, the column): such a
    join's common columns once, first, in the order and from the side of its left operand (its
    right one for a RIGHT JOIN), then the rest of that side's columns, then
    the other side's. None for a FROM without such a join (SQLite's `*` is MySQL's: every table's
    columns in turn) and for one this does not read (a derived table, parentheses, a common
    column found twice on one side)."""
    if i >= len(tokens) or not tokens[i].is_word("FROM"):
        return None
    n = len(tokens)

    def table_at(k: int) -> tuple[list[tuple[str, str]], int] | None:
        if k >= n or tokens[k].kind not in ("word", "ident") or tokens[k].upper in _JOIN_WORDS | _FROM_ENDS:
            return None
        schema, name = None, tokens[k].text
        if k + 2 < n and tokens[k + 1].kind == "op" and tokens[k + 1].text == ".":
            schema, name = name, tokens[k + 2].text
            k += 2
        table = lookup(schema, name)
        if table is None or isinstance(table, Derived):
            return None
        alias, k = _alias(tokens, k + 1)
        return [(alias or name, c.name) for c in table.columns], k

    first = table_at(i + 1)
    if first is None:
        return None
    columns, i = first
    merged = False
    while i < n and not (tokens[i].upper in _FROM_ENDS or tokens[i].kind == "op" and tokens[i].text == ")"):
        natural = right = False
        if tokens[i].kind == "op" and tokens[i].text == ",":
            i += 1
        else:
            while i < n and tokens[i].is_word("NATURAL", "LEFT", "RIGHT", "INNER", "CROSS", "OUTER"):
                natural, right = natural or tokens[i].is_word("NATURAL"), right or tokens[i].is_word("RIGHT")
                i += 1
            if i >= n or not tokens[i].is_word("JOIN", "STRAIGHT_JOIN"):
                return None
            i += 1
        found = table_at(i)
        if found is None:
            return None
        other, i = found
        common: list[str] | None = None
        if i < n and tokens[i].is_word("USING"):
            if i + 1 >= n or tokens[i + 1].text != "(":
                return None
            close = _skip_parens(tokens, i + 1)
            common = [t.text for t in tokens[i + 2:close - 1] if t.kind in ("word", "ident")]
            i = close
        elif i < n and tokens[i].is_word("ON"):
            depth = 0
            i += 1
            while i < n:
                t = tokens[i]
                if t.kind == "op" and t.text in "()":
                    if t.text == ")" and depth == 0:
                        break
                    depth += 1 if t.text == "(" else -1
                elif depth == 0 and (t.upper in _FROM_ENDS or t.upper in _JOIN_WORDS or t.text == ","):
                    break
                i += 1
        elif natural:
            lead, rest = (other, columns) if right else (columns, other)
            names = {c.lower() for _, c in rest}
            common = [c for _, c in lead if c.lower() in names]
        if common is None:
            columns = columns + other
            continue
        merged = True
        lead, rest = (other, columns) if right else (columns, other)
        named = {c.lower() for c in common}
        if any(sum(c.lower() == w for _, c in side) != 1 for side in (lead, rest) for w in named):
            return None  # (MariaDB: 1052 or 1054)
        wanted = [c.lower() for _, c in lead if c.lower() in named]  # in the leading side's order
        columns = ([next(e for e in lead if e[1].lower() == w) for w in wanted]
                   + [e for e in lead if e[1].lower() not in wanted] + [e for e in rest if e[1].lower() not in wanted])
    return columns if merged else None


def set_branches(tokens: list[Token]) -> list[list[Token]]:
    """The SELECTs a UNION / EXCEPT / INTERSECT combines (one for a plain SELECT)."""
    parts: list[list[Token]] = [[]]
    depth = 0
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.is_word("UNION", "EXCEPT", "INTERSECT"):
            parts.append([])
            k += 2 if k + 1 < len(tokens) and tokens[k + 1].is_word("ALL", "DISTINCT") else 1
            continue
        parts[-1].append(t)
        k += 1
    return parts


def set_operations(tokens: list[Token], start: int = 0) -> list[tuple[int, int]]:
    """The spans (lo, hi) of the queries that combine SELECTs by UNION / EXCEPT / INTERSECT: the
    one at tokens[start:] and each parenthesized one, at any depth."""
    spans = []
    for lo in [start] + [k + 1 for k in range(start, len(tokens) - 1)
                         if tokens[k].kind == "op" and tokens[k].text == "(" and tokens[k + 1].is_word("SELECT")]:
            depth, k = 0, lo
            combined = False
            while k < len(tokens) and depth >= 0:
                t = tokens[k]
                if t.kind == "op" and t.text in "()":
                    depth += 1 if t.text == "(" else -1
                elif depth == 0 and t.is_word("UNION", "EXCEPT", "INTERSECT"):
                    combined = True
                k += 1
            if combined:
                spans.append((lo, k - 1 if depth < 0 else k))
    return spans


class Derived:
    """A derived table `(SELECT ...) alias` as `_Typer` reads it: its columns' names (None where
    an expression has no name a reference could use) and their types, from its SELECT's
    (`select`: None when it is not typed, e.g. WITH or a parenthesized branch)."""

    def __init__(self, names: list[str | None] | None, select: SelectTypes | UnionTypes | None,
                 literals: tuple[list[object], Any] | None = None):
        self.names = names
        self.select = select
        self.columns: list = []  # no catalog columns (what code reading real tables walks)
        # a view's: its SELECT's own literals and their texts' reader, which type it (not the
        # statement's, as a derived table written in the statement is)
        self.literals = literals
        self.view: Any = None  # the catalog.View it stands for (`Translator.table_or_view`), if one

    def column(self, name: str) -> None:
        return None  # (no catalog column: `_Typer` reads its columns through `types`)

    def types(self, typer: _Typer) -> list[ColumnType | None] | None:
        """Its columns' types as `typer` reads them (None: not known); a SELECT typed from the
        statement's literals marks `typer` as having read them."""
        if self.select is None or self.names is None:
            return None
        if self.literals is not None:
            types = self.select.types(*self.literals)
        else:
            types = self.select.types(typer.params, typer.texts)
            if not isinstance(self.select, SelectTypes) or self.select._static is None:
                typer.read_params = True  # (its types read the statement's literals)
        if any(t is not None and t.bit_digits for t in types):  # a column of its own now (sent as bytes)
            types = [replace(t, bit_digits=False) if t is not None and t.bit_digits else t for t in types]
        return types if len(types) == len(self.names) else None

    def index(self, name: str) -> int | None:
        for k, own in enumerate(self.names or ()):
            if own is not None and own.lower() == name:
                return k
        return None


def derived_origins(tables: list[tuple[str, Table | Derived]], item: list[Token],
                    literals: tuple[list[object], Any]) -> list[tuple[str, str, str, str] | None]:
    """The table columns the select item `item` (a column name, `*` or `t.*`) reads through the
    derived tables among `tables`, one per column it gives (None: another table's, or an
    expression's); [] where it reads no derived table. `literals`: the statement's."""
    names = [tok.text.lower() for tok in item[::2]]
    star = names[-1] == "*"
    out: list[tuple[str, str, str, str] | None] = []
    for alias, table in tables:
        if len(names) > 1 and alias != names[-2]:
            continue
        if not isinstance(table, Derived) or table.select is None or table.names is None:
            if star:
                out += [None] * len(table.columns if isinstance(table, Table) else table.names or ())
            continue
        types = table.select.types(*(table.literals or literals))
        if len(types) != len(table.names):
            return []
        if star:
            out += [ct.origin if ct is not None else None for ct in types]
            continue
        k = table.index(names[-1])
        if k is not None:
            return [types[k].origin if types[k] is not None else None]
    return out if star else []


def derived(inner: list[Token], lookup, literals: tuple[list[object], Any] | None = None) -> Derived:
    """The derived table whose SELECT is `inner`, its columns named and typed from its first
    branch (the names) and from all branches (the types), as a UNION's; `literals`: a view's
    own (`Derived.literals`)."""
    branches: list[SelectTypes] = []
    names: list[str | None] | None = None
    for part in set_branches(inner):
        while part and part[0].text == "(" and _skip_parens(part, 0) == len(part):
            part = part[1:-1]  # (SELECT ...) UNION (SELECT ...): each SELECT
        found = select_items(part)
        if found is None:
            return Derived(None, None)
        items, end = found
        tables = from_tables(part, end, lookup)
        if names is None:
            names = _item_names(items, tables)
        items = [drop_alias(item) for item in items]
        branches.append(SelectTypes(items, tables, None, outer_joined(part, end), *grouping(part, items)))
    return Derived(names, branches[0] if len(branches) == 1 else UnionTypes(branches), literals)


def selected_names(select: list[Token], lookup, shape: str, params: list[object] | None = None
                   ) -> list[str | None] | None:
    """The names MariaDB gives the columns of the SELECT `select` (of a statement whose shape is
    `shape`; a UNION's are its first branch's): `_item_names`', an expression without literals
    named by its text as written (one with literals, whose name is their text, None); None when
    a wildcard's columns are not known (a bare `*` over a join with USING or NATURAL lists the
    common columns once: `joined_columns`). With `params`, a lone integer, string or NULL literal is
    named by its value too (SELECT 1, 'a', NULL: `1`, `a`, `NULL`)."""
    part = set_branches(select)[0]
    while part and part[0].text == "(" and _skip_parens(part, 0) == len(part):
        part = part[1:-1]
    found = select_items(part)
    if found is None:
        return None
    items, end = found
    if any(item and item[-1].text == "*" for item in items) and any(t.is_word("USING", "NATURAL") for t in part):
        return None
    return _item_names(items, from_tables(part, end, lookup), shape, params)


def repeated_name(names: Sequence[str | None]) -> str | None:
    """The first of `names` that repeats an earlier one (column names compare case-insensitively;
    SQLite names a derived table's repeated `a` `a:1`, which counts as `a`), as MariaDB's 1060
    names it; None when none repeats."""
    seen = {name.lower() for name in names if name is not None}
    earlier: set[str] = set()
    for name in names:
        if name is None:
            continue
        renamed = _RENAMED.fullmatch(name)
        if renamed is not None and renamed.group(1).lower() in seen:
            return renamed.group(1)
        if name.lower() in earlier:
            return name
        earlier.add(name.lower())
    return None


_RENAMED = re.compile(r"(.+):\d+")


def _item_names(items: list[list[Token]], tables: list[tuple[str, Table | Derived]],
                shape: str | None = None, params: list[object] | None = None) -> list[str | None] | None:
    """The names a SELECT's columns go by outside it: an alias, a column's own name, a wildcard's
    columns, with `shape` an expression without literals by its text (None: an unnamed
    expression; the whole list None when a wildcard's columns are not known)."""
    names: list[str | None] = []
    for item in items:
        if item and item[-1].text == "*" and (len(item) == 1 or item[-2].text == "."):
            alias = item[-3].text.lower() if len(item) > 1 else None
            for own, table in tables:
                if alias is not None and own != alias:
                    continue
                if isinstance(table, Derived):
                    if table.names is None:
                        return None
                    names.extend(table.names)
                else:
                    names.extend(col.name for col in table.columns)
            continue
        bare = drop_alias(item)
        if len(bare) < len(item):
            names.append(item[-1].text)
        elif bare and bare[-1].kind in ("word", "ident") and (len(bare) == 1 or bare[-2].text == "."):
            names.append(bare[-1].text)
        elif shape is not None and bare and bare[0].start >= 0 and bare[-1].end > bare[0].start \
                and not any(t.kind == "param" for t in bare):
            names.append(shape[bare[0].start:bare[-1].end])
        elif params is not None and len(bare) == 1 and bare[0].is_word("NULL"):
            names.append("NULL")
        elif params is not None and len(bare) == 1 and bare[0].kind == "param" and \
                type(params[bare[0].param]) in (int, str):
            names.append(str(params[bare[0].param]))
        else:
            names.append(None)
    return names


class _Typer:
    def __init__(self, tables: list[tuple[str, Table]], params: list[object], texts,
                 scope: list[tuple[str, Table]] | None = None, outer: frozenset[str] | None = frozenset()):
        self.tables = tables
        self.outer = outer or frozenset()
        self.nulled = 0  # the flags a column read outside an aggregate loses (`SelectTypes.grouped`)
        self.scope = tables + scope if scope else tables  # where a column name is looked up
        self.params = params
        self.texts = texts
        self.read_params = False

    # --- columns -----------------------------------------------------------------------------

    def star(self, item: list[Token]) -> list[ColumnType | None]:
        if len(item) == 1:
            tables = list(self.tables)
        else:
            alias = item[-3].text.lower()
            tables = [(a, t) for a, t in self.tables if a == alias]
        out: list[ColumnType | None] = []
        for alias, table in tables:
            if isinstance(table, Derived):
                types = table.types(self)
                if types is None:
                    raise _Unknown
                out += [self.joined(alias, table, _no_origin(ct)) for ct in types]
            else:
                out += [self.joined(alias, table, _origin(alias, table, c)) for c in table.columns]
        return out

    def joined(self, alias: str, table: Table | Derived, ct: ColumnType | None) -> ColumnType | None:
        """`ct`, a column of the FROM table `alias`, nullable where an outer join makes it so, or
        a grouping without GROUP BY (`nulled`)."""
        if ct is None:
            return ct
        lost = self.nulled
        if alias in self.outer and any(own is table for _, own in self.tables):
            lost |= ColumnFlag.NOT_NULL
        return replace(ct, flags=ct.flags & ~lost) if ct.flags & lost else ct

    def column(self, names: list[str]) -> ColumnType:
        name = names[-1].lower()
        candidates = self.scope
        if len(names) >= 2:
            alias = names[-2].lower()
            candidates = [(a, t) for a, t in self.scope if a == alias]
        for alias, table in candidates:
            if isinstance(table, Derived):
                k = table.index(name)
                if k is None:
                    continue
                types = table.types(self)
                if types is None or types[k] is None:
                    raise _Unknown
                return self.joined(alias, table, _no_origin(types[k]))  # (not told here: MariaDB names the derived table)
            col = table.column(name)
            if col is not None:
                return self.joined(alias, table, _origin(alias, table, col))
        raise _Unknown

    # --- expressions: a small precedence climber over the item's tokens ------------------------

    def expr(self, toks: list[Token], i: int, min_prec: int = 0) -> tuple[ColumnType, int]:
        if toks[i].kind == "var" and i + 1 < len(toks) and toks[i + 1].kind == "op" and toks[i + 1].text == ":=":
            ct, i = self.expr(toks, i + 2)  # @x := value (the lowest precedence: all that follows)
            return _assigned(ct), i
        start = i
        left, i = self.unary(toks, i)
        while i < len(toks):
            t = toks[i]
            op = t.text.upper() if t.kind in ("op", "word") else ""
            prec = _PREC.get(op)
            if prec is None or prec < min_prec:
                break
            if op in ("IS",):  # IS [NOT] NULL/TRUE/FALSE
                i += 1
                while i < len(toks) and toks[i].is_word("NOT", "NULL", "TRUE", "FALSE", "UNKNOWN"):
                    i += 1
                left = replace(BOOLEAN, flags=BOOLEAN.flags | ColumnFlag.NOT_NULL)  # never NULL
                continue
            if op == "NOT":
                i += 1
                continue  # NOT LIKE / NOT IN / NOT BETWEEN: the next operator decides
            if op == "SOUNDS":  # SOUNDS LIKE: one operator of two words
                i += 1
            if op == "IN":
                i = _skip_parens(toks, i + 1)
                left = BOOLEAN
                continue
            if op == "BETWEEN":
                _, i = self.expr(toks, i + 1, _PREC["AND"] + 1)
                if i >= len(toks) or not toks[i].is_word("AND"):
                    raise _Unknown
                _, i = self.expr(toks, i + 1, prec + 1)
                left = BOOLEAN
                continue
            if op in ("+", "-") and i + 1 < len(toks) and toks[i + 1].is_word("INTERVAL"):
                operand, value_at = toks[start:i], i + 2
                _, i = self.unary(toks, value_at)  # date +/- INTERVAL n unit
                if i >= len(toks) or toks[i].kind != "word":
                    raise _Unknown
                left = self.with_interval(left, operand, toks[i].upper, toks[value_at:i])
                i += 1
                continue
            right, i = self.expr(toks, i + 1, prec + 1)
            left = _binary(op, left, right)
        return left, i

    def unary(self, toks: list[Token], i: int) -> tuple[ColumnType, int]:
        t = toks[i]
        if t.kind == "op" and t.text in ("-", "+", "~"):
            ct, i = self.unary(toks, i + 1)
            if t.text == "-":
                ct = _member_number(ct)
            if t.text == "~":
                return int_type(21, ColumnFlag.BINARY | ColumnFlag.UNSIGNED), i
            if t.text == "-" and toks[i - 1].kind == "param" and ct.type in _EXACT | {FieldType.NEWDECIMAL}:
                # -5: the literal's own type, its sign counted in an integer's length
                if ct.type in _INTEGERS and ct.literal:  # (its digits are still its precision: `_precision`)
                    return replace(ct, length=ct.length + 1, literal=False, flags=ct.flags & ~ColumnFlag.UNSIGNED), i
                return replace(ct, flags=ct.flags & ~ColumnFlag.UNSIGNED), i
            if t.text == "-" and ct.type in _STRING_TYPES:
                return DOUBLE, i  # -'12': a string read as a number
            if t.text == "-" and ct.type in _TEMPORAL_DIGITS:  # -time_col: a number (DECIMAL)
                return decimal_type(_TEMPORAL_DIGITS[ct.type] + ct.decimals, ct.decimals), i
            if ct.type in _EXACT:
                return int_type(ct.length + 1), i
            if t.text == "-" and ct.type == FieldType.NEWDECIMAL:  # -c: one character more
                return ColumnType(ct.type, ct.length + 1, ct.decimals, CHARSET_BINARY,
                                  ct.flags & ColumnFlag.NOT_NULL | ColumnFlag.BINARY), i
            return ct, i
        if t.kind == "op" and t.text == "!" or t.is_word("NOT"):
            _, i = self.unary(toks, i + 1)
            return BOOLEAN, i
        return self.primary(toks, i)

    def primary(self, toks: list[Token], i: int) -> tuple[ColumnType, int]:
        t = toks[i]
        if t.kind == "param":
            return self.literal(t.param), i + 1
        if t.kind == "op" and t.text == "(":
            if i + 1 < len(toks) and toks[i + 1].is_word("SELECT"):
                return self.scalar(toks, i)
            ct, j = self.expr(toks, i + 1)
            if j >= len(toks) or toks[j].text != ")":
                raise _Unknown
            return ct, j + 1
        if t.kind == "word":
            word = t.upper
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if word == "NULL":
                return NULL_TYPE, i + 1
            if word in ("TRUE", "FALSE"):
                return int_type(1, _CONSTANT_FLAGS), i + 1
            if word == "_BINARY" and nxt is not None and nxt.kind == "param":
                value = self.param(nxt.param)
                n = len(value) if isinstance(value, bytes | str) else 0
                return replace(varchar(n, binary=True, flags=ColumnFlag.NOT_NULL), decimals=STRING_DEC), i + 2
            if word in _TYPED_LITERALS and nxt is not None and nxt.kind == "param":
                return self.typed_literal(word, nxt.param), i + 2
            if word == "BINARY" and nxt is not None:  # BINARY x: x's bytes as a binary string (nullable)
                ct, j = self.unary(toks, i + 1)
                return varchar(ct.length, binary=True), j
            if (word.startswith("_") or word == "N") and nxt is not None and nxt.kind == "param":
                return self.primary(toks, i + 1)  # _charset'..', N'..': the string literal's type
            if word in ("ANY", "SOME", "ALL") and nxt is not None and nxt.text == "(" \
                    and i + 2 < len(toks) and toks[i + 2].is_word("SELECT"):
                return NULL_TYPE, _skip_parens(toks, i + 1)  # x op ANY (...): the comparison's BOOLEAN
            if word == "EXISTS" and nxt is not None and nxt.text == "(":  # (never NULL)
                return replace(BOOLEAN, flags=BOOLEAN.flags | ColumnFlag.NOT_NULL), _skip_parens(toks, i + 1)
            if nxt is not None and nxt.kind == "op" and nxt.text == "(":
                return self.call(toks, i, word)
            if word == "CASE":
                return self.case(toks, i)
            if word in _NILADIC:
                return self.function(word, []), i + 1
        if t.kind in ("word", "ident"):
            names = [t.text]
            j = i + 1
            while j + 1 < len(toks) and toks[j].kind == "op" and toks[j].text == "." \
                    and toks[j + 1].kind in ("word", "ident"):
                names.append(toks[j + 1].text)
                j += 2
            return self.column(names), j
        raise _Unknown

    def scalar(self, toks: list[Token], i: int) -> tuple[ColumnType, int]:
        """A scalar subquery (one select-list item, no UNION): its item's type, nullable."""
        end = _skip_parens(toks, i)
        inner = toks[i + 1:end - 1]
        found = split_select(inner)
        if found is None or len(found[0]) != 1 or not found[0][0] or any(
                t.is_word("UNION", "EXCEPT", "INTERSECT") for t in inner):
            raise _Unknown
        ct, stop = self.expr(found[0][0], 0)
        if stop != len(found[0][0]):
            raise _Unknown
        flags = ct.flags & ~(ColumnFlag.NOT_NULL | ColumnFlag.NO_DEFAULT_VALUE)
        return ColumnType(ct.type, ct.length, ct.decimals, ct.charset, flags, ct.pad_to), end

    def param(self, n: int) -> object:
        self.read_params = True
        return self.params[n]

    def str_to_date(self, inner: Sequence[Token]) -> ColumnType:
        """STR_TO_DATE(s, format) as MariaDB types it from a literal format: DATE for date
        specifiers only, TIME for time ones only, else DATETIME; with %f 6 digits of fraction."""
        parts, _ = split_top(list(inner))
        if len(parts) != 2 or len(parts[1]) != 1 or parts[1][0].kind != "param":
            raise _Unknown
        fmt = self.param(parts[1][0].param)
        if not isinstance(fmt, str):
            raise _Unknown
        used = set(re.findall(r"%(.)", fmt))
        dated, timed = bool(used & set("abcDdejMmUuVvWwXxYy")), bool(used & set("fHhIiklprSsT"))
        fsp = 6 if "f" in used else 0
        if dated and not timed:
            return datetime_type(FieldType.DATE, 0)
        if timed and not dated:
            return datetime_type(FieldType.TIME, fsp)
        return datetime_type(FieldType.DATETIME, fsp)

    def time_of_args(self, word: str, args: list[ColumnType | None], inner: Sequence[Token]) -> ColumnType:
        """TIME(x), TIMESTAMP(x[, t]), CONVERT_TZ(x, ...), TIMEDIFF(a, b), ADDTIME / SUBTIME(a, b) as
        MariaDB types them: the fraction digits of the arguments they read (a DATETIME(3) column's
        3, a literal's own digits: '09:00:00.5' has 1); ADDTIME / SUBTIME a DATETIME or a TIME
        as their first argument is one (of a string the type is the rows')."""
        parts, _ = split_top(list(inner))
        read = 2 if word in ("TIMEDIFF", "ADDTIME", "SUBTIME") or word == "TIMESTAMP" and len(parts) == 2 else 1
        if len(parts) < read or len(args) < read:
            raise _Unknown
        fsp = max(self.fraction_digits(part, ct) for part, ct in zip(parts[:read], args[:read], strict=True))
        if word in ("ADDTIME", "SUBTIME"):
            first = args[0]
            if first is not None and first.type in (FieldType.DATETIME, FieldType.TIMESTAMP):
                return datetime_type(FieldType.DATETIME, fsp)
            if first is not None and first.type == FieldType.TIME:
                return datetime_type(FieldType.TIME, fsp)
            raise _Unknown
        return datetime_type(_FSP_FROM_ARGS[word], fsp)

    def seconds_function(self, word: str, arg: ColumnType | None, inner: Sequence[Token]) -> ColumnType:
        """UNIX_TIMESTAMP(x) and TIME_TO_SEC(x) as MariaDB types them: a DECIMAL with the
        fraction digits of the time they read (a DOUBLE's 6), a BIGINT without; SEC_TO_TIME(n)
        and FROM_UNIXTIME(n) a TIME / DATETIME with the digits of the number they read (a
        DECIMAL's scale, at most 6; a DOUBLE's or a string's 6 for SEC_TO_TIME, unfixed (39) for
        FROM_UNIXTIME)."""
        if arg is None:
            raise _Unknown
        if word in ("UNIX_TIMESTAMP", "TIME_TO_SEC"):
            fsp = 6 if arg.type in (FieldType.DOUBLE, FieldType.FLOAT) else self.fraction_digits(inner, arg)
            return decimal_type(16 + fsp, fsp) if fsp else int_type(17)
        if arg.type == FieldType.NEWDECIMAL:
            fsp = min(arg.decimals, 6)
        elif arg.type in _EXACT or arg.type == FieldType.NULL:
            fsp = 0
        elif word == "SEC_TO_TIME":
            fsp = 6
        else:
            return replace(datetime_type(_TEMPORAL_FUNCS[word], 6), decimals=STRING_DEC)
        return datetime_type(_TEMPORAL_FUNCS[word], fsp)

    def with_interval(self, left: ColumnType, operand: Sequence[Token], unit: str,
                      amount: Sequence[Token]) -> ColumnType:
        """`operand` (of type `left`) +/- INTERVAL `amount` `unit`, DATE_ADD and its kin: of a
        temporal operand `_with_interval`'s type; of a string literal or a character column (or
        NULL) MariaDB's CHAR, whose text has the fraction digits of the operand (a literal's
        written ones, a column's 6) or of the interval (6 with a MICROSECOND unit; a SECOND's
        number its own, a DOUBLE's or a string's 6), whichever are more
        (`ColumnType.temporal_text`; `functions.date_add` writes them). Of any other string the
        type is the rows'."""
        digits = 6 if "MICROSECOND" in unit else 0
        if unit == "SECOND":
            ct, end = self.expr(list(amount), 0)
            if end != len(amount):
                raise _Unknown
            digits = 6 if ct.type not in _EXACT and ct.type != FieldType.NEWDECIMAL else min(ct.decimals, 6)
        literal = len(operand) == 1 and operand[0].kind == "param" or is_name(list(operand)) and left.origin is not None
        if left.type != FieldType.NULL and not (literal and left.type in _STRING_TYPES and left.charset != CHARSET_BINARY):
            return _with_interval(left, unit, digits)
        if left.type != FieldType.NULL:
            digits = max(digits, self.fraction_digits(operand, left))
        return ColumnType(FieldType.STRING, (19 + (digits + 1 if digits else 0)) * MB, digits,
                          CHARSET_UTF8MB4_GENERAL_CI, 0, temporal_text=True)

    def negative_places(self, inner: Sequence[Token]) -> bool:
        """Whether ROUND's second argument is a negative number literal."""
        parts, _ = split_top(list(inner))
        if len(parts) != 2 or not parts[1] or parts[1][-1].kind != "param":
            return False
        value = self.param(parts[1][-1].param)
        if not isinstance(value, int):
            return False
        negated = len(parts[1]) == 2 and parts[1][0].kind == "op" and parts[1][0].text == "-"
        return (value > 0) if negated else (value < 0 and len(parts[1]) == 1)

    def fraction_digits(self, part: Sequence[Token], ct: ColumnType | None) -> int:
        """The fraction digits MariaDB gives a time read from the argument `part` of type `ct`:
        a temporal type's own, a string literal's written ones (6 when it is no time), 6 for any
        other string."""
        if ct is None:
            raise _Unknown
        if ct.type in (FieldType.DATETIME, FieldType.TIMESTAMP, FieldType.TIME):
            return ct.decimals
        if len(part) == 1 and part[0].kind == "param":
            value = self.param(part[0].param)
            if isinstance(value, str):
                found = re.search(r"\.(\d+)\s*$", value)
                if found:
                    return min(len(found.group(1)), 6)
                # (a string that is no time: MariaDB's six)
                return 0 if date_parts(value) or temporal_text(value, "time", 0) else 6
        if ct.type == FieldType.NEWDECIMAL:
            return min(ct.decimals, 6)
        if ct.type in _STRING_TYPES:
            return 6
        return 0

    def typed_literal(self, word: str, n: int) -> ColumnType:
        """DATE 'x' a DATE, TIME 'x' a TIME, TIMESTAMP 'x' a DATETIME, the latter two with the
        fraction digits written (at most 6: `values.typed_literal`)."""
        code = _TYPED_LITERALS[word]
        value = self.param(n)
        found = re.search(r"\.(\d*)\s*$", value) if isinstance(value, str) and code != FieldType.DATE else None
        return datetime_type(code, min(len(found.group(1)), 6) if found else 0, _CONSTANT_FLAGS)

    def literal(self, n: int) -> ColumnType:
        value = self.param(n)
        if value is None:
            return NULL_TYPE
        if isinstance(value, bool | int):
            digits = len(str(abs(value)))
            return replace(int_type(digits + (1 if value < 0 else 0), _CONSTANT_FLAGS), literal=True)
        if isinstance(value, float | Decimal):  # (a Decimal: `lexer.decode_number`'s long number)
            text = self.texts()[n].lstrip("+-")
            if "e" in text or "E" in text:
                return ColumnType(FieldType.DOUBLE, len(text), NOT_FIXED_DEC, 63, _CONSTANT_FLAGS)
            whole, _, frac = text.partition(".")
            return decimal_type(len(whole.lstrip("0") or "0") + len(frac), len(frac), _CONSTANT_FLAGS)
        if isinstance(value, bytes):
            return varchar(len(value), binary=True, flags=ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED)
        if value.isdigit() and (self.texts()[n].isdigit() or self.texts()[n][:2].lower() in ("b'", "0b", "0x")):
            # a number past BIGINT (a hybrid's too: `lexer.Hybrid.number`), kept as its digits
            if int(value) < 1 << 64:
                return int_type(len(value), _CONSTANT_FLAGS | ColumnFlag.UNSIGNED)
            return decimal_type(len(value), 0, _CONSTANT_FLAGS)
        return varchar(len(str(value)), flags=ColumnFlag.NOT_NULL)

    def args(self, toks: list[Token], i: int) -> tuple[list[ColumnType | None], int]:
        """The arguments of the call whose '(' is toks[i]: their types (None: untyped) and the
        index after ')'."""
        end = _skip_parens(toks, i)
        parts, _ = split_top(toks[i + 1:end - 1])
        types: list[ColumnType | None] = []
        for part in parts:
            if part and part[0].is_word("DISTINCT", "ALL"):
                part = part[1:]  # SUM(DISTINCT x): x's type
            if not part:
                continue
            try:
                ct, j = self.expr(part, 0)
                types.append(ct if j == len(part) else None)
            except (_Unknown, IndexError):
                types.append(None)
        return types, end

    def call(self, toks: list[Token], i: int, word: str) -> tuple[ColumnType, int]:
        if word in ("CAST", "CONVERT"):
            return self.cast(toks, i, word)
        if word in ("MYSQL_RETURNED", "MYSQL_ASSIGNED"):  # a stored function's value, its argument: of
            end = _skip_parens(toks, i + 1)  # the declared type (`routines.expand_calls`)
            from engine.routines import returned_type
            return returned_type(toks[end - (4 if toks[end - 2].kind == "word" else 2)].text.strip("`")), end
        if word in ("COUNT",):
            ct, end = int_type(21, _CONSTANT_FLAGS), _skip_parens(toks, i + 1)
            return ct, _after_window(toks, end)
        nulled, self.nulled = self.nulled, 0 if word in _AGGREGATES or word in _WINDOW_FUNCS else self.nulled
        try:  # (an aggregate's arguments are read row by row: their columns as they are)
            args, end = self.args(toks, i + 1)
        finally:
            self.nulled = nulled
        if end < len(toks) and toks[end].is_word("OVER") and word in _WINDOW_FUNCS:
            return self.window(word, args, toks[i + 2:end - 1]), _after_window(toks, end)
        if word in ("PERCENTILE_CONT", "PERCENTILE_DISC") and end + 5 < len(toks) and toks[end].is_word("WITHIN"):
            # WITHIN GROUP (ORDER BY x [ASC | DESC]): PERCENTILE_DISC is of x's type
            close = _skip_parens(toks, end + 2)
            ordered = toks[end + 5:close - 1]
            if ordered and ordered[-1].is_word("ASC", "DESC"):
                ordered = ordered[:-1]
            args, end = [self.expr(ordered, 0)[0] if word == "PERCENTILE_DISC" else None], close
            if word == "PERCENTILE_DISC":  # one of the values, as LAG's
                return self.window(word, args, ordered), _after_window(toks, end)
        ct = self.function(word, args, toks[i + 2:end - 1])
        return ct, _after_window(toks, end)  # an aggregate over a window: the same type

    def window(self, word: str, args: list[ColumnType | None], inner: Sequence[Token]) -> ColumnType:
        """A window function's type as MariaDB's: the numbering ones a BIGINT never NULL, the
        distributions a DOUBLE of 10 decimals, LAG / LEAD / FIRST_VALUE / LAST_VALUE / NTH_VALUE
        and PERCENTILE_DISC their argument's as a temporary table's field holds it (NULL allowed,
        binary unless characters, a string with 39 decimals, a DOUBLE or FLOAT 23 wide, a TEXT
        four times its length, an integer literal a BIGINT)."""
        if word in ("ROW_NUMBER", "RANK", "DENSE_RANK", "NTILE"):
            return int_type(21, _CONSTANT_FLAGS)
        if word in ("PERCENT_RANK", "CUME_DIST"):
            return replace(DOUBLE, length=17, decimals=10)
        first = args[0] if args else None
        if first is None:
            raise _Unknown
        flags = first.flags & ColumnFlag.UNSIGNED | (ColumnFlag.BINARY if first.charset == CHARSET_BINARY else 0)
        ct = replace(first, flags=flags, origin=None, bit_digits=False)
        if first.type in (FieldType.DOUBLE, FieldType.FLOAT):
            ct = replace(ct, length=23)
        elif first.type in _STRING_TYPES:
            ct = replace(ct, decimals=STRING_DEC)
        if first.type == FieldType.BLOB:  # a TEXT's, as its temporary field is declared
            if first.length >= _MAX_LENGTH:
                ct = replace(ct, type=FieldType.LONG_BLOB, flags=ColumnFlag.BINARY)
            else:
                ct = replace(ct, length=min(first.length * 4, _MAX_LENGTH))
        operand = split_top(list(inner))[0][0]
        if first.type == FieldType.LONG and len(operand) == 1 and operand[0].kind == "param":
            ct = replace(ct, type=FieldType.LONGLONG)  # (an integer literal's Item_int)
        return ct

    def function(self, word: str, args: list[ColumnType | None], inner: Sequence[Token] = ()) -> ColumnType:
        if word in _NUMBER_ARGS:
            args = [_member_number(a) for a in args]
        first = args[0] if args else None
        if word in ("MEDIAN", "PERCENTILE_CONT", "CUME_DIST", "PERCENT_RANK"):  # a DOUBLE shown with 10 decimals
            return replace(DOUBLE, length=18 if word in ("MEDIAN", "PERCENTILE_CONT") else 17, decimals=10)
        if word == "ADD_MONTHS":  # DATE_ADD(d, INTERVAL n MONTH)'s
            parts, _ = split_top(list(inner))
            if first is None or len(parts) != 2:
                raise _Unknown
            return self.with_interval(first, parts[0], "MONTH", parts[1])
        if word == "SEC_TO_TIME":  # the fraction digits of a DECIMAL, 6 of a DOUBLE or a string
            if first is None:
                raise _Unknown
            fsp = min(first.decimals, 6) if first.type == FieldType.NEWDECIMAL else \
                6 if first.type in (FieldType.DOUBLE, FieldType.FLOAT) or first.type in _STRING_TYPES else 0
            return datetime_type(FieldType.TIME, fsp)
        if word == "NAME_CONST":  # its value's
            if len(args) != 2 or args[1] is None:
                raise _Unknown
            return args[1]
        if word in ("DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE"):
            interval = any(t.is_word("INTERVAL") for t in inner)
            if first is None or not inner or interval and inner[-1].kind != "word":
                raise _Unknown
            parts, _ = split_top(list(inner))
            if len(parts) != 2:
                raise _Unknown
            return self.with_interval(first, parts[0], inner[-1].upper if interval else "DAY",
                                      parts[1][1:-1] if interval else parts[1])
        if word == "STR_TO_DATE":
            return self.str_to_date(inner)
        if word in _FSP_FROM_ARGS and args:
            return self.time_of_args(word, args, inner)
        if word == "TIMESTAMPADD" and len(args) == 3 and args[2] is not None and inner and inner[0].kind == "word":
            parts, _ = split_top(list(inner))
            if len(parts) != 3:
                raise _Unknown
            return self.with_interval(args[2], parts[2], inner[0].upper, parts[1])
        if word in _SECONDS_FUNCS and len(args) == 1 and len(inner):
            return self.seconds_function(word, first, inner)
        if word == "FROM_UNIXTIME" and len(args) > 1:  # with a format: a string, as DATE_FORMAT's
            word = "DATE_FORMAT"
        elif word in _TEMPORAL_FUNCS:
            code = _TEMPORAL_FUNCS[word]
            fsp = 0
            if code != FieldType.DATE and len(inner) == 1 and inner[0].kind == "param":
                value = self.param(inner[0].param)
                fsp = value if isinstance(value, int) and 0 <= value <= 6 else 0
            elif word == "DATE" or word == "FROM_UNIXTIME":
                fsp = 0
            clock = word in _CLOCK_FUNCS and len(inner) == 1 and inner[0].kind == "param"  # NOW(3): never NULL either
            flags = ColumnFlag.BINARY | (ColumnFlag.NOT_NULL if not args or clock else 0)
            return datetime_type(code, fsp, flags)
        if word == "EXTRACT":  # an INT whatever the unit
            return ColumnType(FieldType.LONG, 11, 0, CHARSET_BINARY, ColumnFlag.BINARY)
        if word in ("BIT_AND", "BIT_OR", "BIT_XOR"):  # BIGINT UNSIGNED
            return int_type(21, ColumnFlag.BINARY | ColumnFlag.UNSIGNED | ColumnFlag.NOT_NULL)
        if word in _BIG_FUNCS:
            if word in ("LAST_INSERT_ID", "ROW_COUNT", "FOUND_ROWS"):  # a session's counter: never NULL
                return int_type(_BIG_FUNCS[word], ColumnFlag.BINARY | ColumnFlag.NOT_NULL)
            return int_type(_BIG_FUNCS[word], ColumnFlag.BINARY)
        if word in _INT_FUNCS:  # an INT whatever its width (LOCATE's 11 too)
            return ColumnType(FieldType.LONG, _INT_FUNCS[word], 0, CHARSET_BINARY, ColumnFlag.BINARY)
        if word in _VARIANCE_FUNCS:  # shown with 4 decimals more than an exact argument has
            exact = first is not None and first.type not in (FieldType.DOUBLE, FieldType.FLOAT)
            return replace(DOUBLE, decimals=min(first.decimals + 4, 30) if exact and first is not None else
                           NOT_FIXED_DEC)
        if word == "PI":
            return replace(DOUBLE, decimals=6, length=8)
        if word in _DOUBLE_FUNCS:
            return DOUBLE
        if word == "SUM":
            if first is None:
                raise _Unknown
            if first.type in (FieldType.DOUBLE, FieldType.FLOAT):
                return DOUBLE
            return decimal_type(min(_digits(first) + 22, 65), first.decimals if first.type == FieldType.NEWDECIMAL
                                else 0, ColumnFlag.BINARY)
        if word == "AVG":
            if first is None:
                raise _Unknown
            if first.type in (FieldType.DOUBLE, FieldType.FLOAT):
                return DOUBLE
            dec = min((first.decimals if first.type == FieldType.NEWDECIMAL else 0) + 4, DECIMAL_MAX_SCALE)
            return decimal_type(min(_digits(first) + 4, 65), dec, ColumnFlag.BINARY)
        if word == "MOD" and len(args) == 2 and first is not None and args[1] is not None:
            return _binary("%", first, args[1])
        if word in ("GREATEST", "LEAST") and args and all(a is not None for a in args):
            # MariaDB's comparison type decides: dates with strings compare (and come back) as
            # dates, numbers with strings as DOUBLEs (functions._extreme)
            texts = [a for a in args if a.type in (FieldType.VAR_STRING, FieldType.STRING) and a.charset != 63]
            dated = [a for a in args if a.type in (FieldType.DATE, FieldType.DATETIME, FieldType.TIMESTAMP)]
            rest = [a for a in args if a not in texts and a not in dated and a.type != FieldType.NULL]
            if dated and not rest:
                if all(a.type == FieldType.DATE for a in dated):
                    return datetime_type(FieldType.DATE, 0)
                return datetime_type(FieldType.DATETIME, max(a.decimals for a in dated))
            if texts and rest:
                return DOUBLE
        if word == "ABS" and first is not None and first.type in _INTEGERS:
            # MariaDB's type_handler_long_or_longlong: an INT past 9 characters (INT(11)) a BIGINT
            return ColumnType(FieldType.LONGLONG if first.length > 9 else FieldType.LONG, first.length, 0, CHARSET_BINARY,
                              ColumnFlag.BINARY | first.flags & (ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED))
        if word in _SAME_AS_ARG or word in ("IF", "IFNULL", "PERCENTILE_DISC", "LAST_VALUE"):
            # (PERCENTILE_DISC: its values'; LAST_VALUE(a, ..., z), not the window function: z's)
            candidates = args[1:] if word == "IF" else args[-1:] if word == "LAST_VALUE" else \
                args[:1] if word == "NULLIF" else args  # (NULLIF(a, b): a's type)
            if not candidates or any(a is None for a in candidates):
                raise _Unknown
            ct = _unify(candidates)
            if ct.type == FieldType.NEWDECIMAL:  # (a DECIMAL column's own definition is not binary)
                ct = replace(ct, flags=ct.flags | ColumnFlag.BINARY)
            if word in ("MIN", "MAX") and ct.type == FieldType.LONG and ct.length > 9 and inner \
                    and inner[0].is_word("MYSQL_RETURNED"):  # (a stored function's INT(11): Item_sum_min_max's
                ct = replace(ct, type=FieldType.LONGLONG)  # type_handler_long_or_longlong, not a field's)
            if word in ("MIN", "MAX", "ANY_VALUE", "NULLIF"):  # (NULL over no rows, or when equal; binary unless characters)
                ct = replace(ct, flags=ct.flags & ~ColumnFlag.NOT_NULL | (ColumnFlag.BINARY if ct.charset == CHARSET_BINARY
                                                                           else 0))
            # never NULL as MariaDB's maybe_null says: COALESCE one argument never NULL; IF,
            # GREATEST, LEAST all of them; IFNULL(a, b) b; NULLIF may always be
            never = {"COALESCE": any, "IF": all, "GREATEST": all, "LEAST": all}.get(word, all)(
                a.flags & ColumnFlag.NOT_NULL for a in (args[1:] if word == "IFNULL" else candidates))
            if word in ("COALESCE", "IF", "IFNULL", "NULLIF", "GREATEST", "LEAST"):
                ct = _never_null(ct, never and word != "NULLIF")
            if word == "COALESCE" and ct.type in _INTEGERS:  # (an integer is binary)
                ct = replace(ct, flags=ct.flags | ColumnFlag.BINARY)
            if ct.type in (FieldType.VAR_STRING, FieldType.STRING) and ct.charset != 63:
                ct = ColumnType(FieldType.VAR_STRING, ct.length, STRING_DEC, ct.charset, ct.flags & ~ColumnFlag.BLOB)
            if ct.type == FieldType.BIT:
                ct = replace(ct, bit_digits=True)
            return ct
        if word in ("ROUND", "TRUNCATE", "FLOOR", "CEIL", "CEILING"):
            if first is None:
                raise _Unknown
            if first.type in (FieldType.DOUBLE, FieldType.FLOAT):
                return DOUBLE
            if first.type in _EXACT and word in ("ROUND", "TRUNCATE"):
                # MariaDB's: the argument's width, one more digit for ROUND to tens or beyond (-15
                # to -20); an INT while it fits 11 characters
                length = first.length + (1 if word == "ROUND" and self.negative_places(inner) else 0)
                code = FieldType.LONG if length <= 11 and first.type != FieldType.LONGLONG else FieldType.LONGLONG
                return ColumnType(code, length, 0, CHARSET_BINARY, ColumnFlag.BINARY)
            if first.type in _EXACT:
                return int_type(first.length, ColumnFlag.BINARY)
            if word in ("FLOOR", "CEIL", "CEILING"):
                digits = first.length - (1 if first.decimals else 0) - 1 - first.decimals
                if digits > 17:  # beyond BIGINT's sure digits: DECIMAL without decimals (MySQL's rule)
                    return decimal_type(digits + 1, 0, ColumnFlag.BINARY)
                return int_type(max(first.length - first.decimals, 1), ColumnFlag.BINARY)
            scale = 0
            if len(inner) >= 3 and inner[-1].kind == "param" and inner[-2].text == ",":  # (-1: none)
                value = self.param(inner[-1].param)
                scale = min(value, DECIMAL_MAX_SCALE) if isinstance(value, int) and value >= 0 else 0
            # MariaDB's (Item_func_round::fix_arg_decimal): the decimals dropped leave the
            # precision (those added widen it), ROUND one digit more for the carry
            carry = 1 if word == "ROUND" and scale < first.decimals else 0
            return decimal_type(_precision(first) + carry - (first.decimals - scale), scale, ColumnFlag.BINARY)
        if word == "GROUP_CONCAT" or word in ("JSON_ARRAYAGG", "JSON_OBJECTAGG"):
            # a text of up to group_concat_max_len (1M) bytes: MariaDB's BLOB type
            return ColumnType(FieldType.BLOB, 16777216, 0, CHARSET_UTF8MB4_GENERAL_CI, 0,
                              format_name="" if word == "GROUP_CONCAT" else "json")
        if word in ("CHARSET", "COLLATION"):  # a name (MariaDB's VARCHAR(64), whatever the argument)
            return varchar(64)
        if word in JSON_VALUED:  # a VARCHAR whose value is JSON (MariaDB's "json" format)
            chars = [a.length // 4 if a and a.charset != 63 else 64 for a in args]
            return replace(_text_type(max(sum(chars) * 2, 16)), format_name="json")
        if word in ("HEX", "TO_BASE64", "UNHEX", "FROM_BASE64"):
            binary = word in ("UNHEX", "FROM_BASE64")
            if word == "HEX" and first is not None and first.type in (FieldType.VAR_STRING, FieldType.STRING):
                return replace(varchar(first.length * 2), decimals=0)  # two digits a byte of the string
            if word == "HEX" and first is not None and _numeric(first):
                return replace(varchar(16), decimals=0)  # a number's 64 bits
            ct = varchar(512, binary=binary)
            return replace(ct, decimals=0 if word == "HEX" else STRING_DEC if word == "FROM_BASE64" else ct.decimals)
        if word in _OWN_TYPES:
            return _OWN_TYPES[word]
        if word == "CHAR":  # 4 bytes an argument, a binary string unless USING names a character set
            using = next((k for k, t in enumerate(inner) if t.is_word("USING")), None)
            binary = using is None or inner[using + 1:] and inner[using + 1].text.lower() == "binary"
            return ColumnType(FieldType.VAR_STRING, 4 * len(args), STRING_DEC,
                              CHARSET_BINARY if binary else CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.BINARY if binary else 0)
        if word == "COMPRESS":  # MariaDB's bound: the argument's bytes and a fifth, and 12
            size = first.length if first is not None else 0
            return ColumnType(FieldType.VAR_STRING, size * 120 // 100 + 12, STRING_DEC, CHARSET_BINARY, ColumnFlag.BINARY)
        if word in _ACCOUNT_FUNCS:  # MariaDB's user@host bound: 384 characters
            return _text_type(384)
        if word in _STRING_FUNCS:
            chars = [a.length // mbmaxlen(a.charset) if a and a.charset != 63 else (a.length if a else 64) for a in args]
            if word in _CASE_CALLS and len(args) == 1 and first is not None and first.charset == 63 \
                    and (first.type in _STRING_TYPES or first.type in _BLOB_TYPES):  # a binary string, as it is
                code = first.type if first.type in _BLOB_TYPES else FieldType.VAR_STRING
                return replace(varchar(first.length, binary=True), type=code, decimals=STRING_DEC)
            charset = self.columns_charset(args) if word not in _NO_DECIMALS else CHARSET_UTF8MB4_GENERAL_CI
            if word == "CONCAT" and chars:  # MariaDB's: the arguments' lengths added up
                if any(a is not None and a.charset == 63 and a.type in _STRING_TYPES for a in args):
                    # a binary string's: each argument's bytes, a string of characters as many
                    # as its characters
                    size = sum(64 if a is None else a.length if a.charset == 63 else a.length // mbmaxlen(a.charset)
                               for a in args)
                    return replace(varchar(size, binary=True), decimals=STRING_DEC)
                return _text_type(sum(chars), charset)
            count = split_top(list(inner))[0][-1] if word == "REPEAT" and len(chars) == 2 else []
            if len(count) == 1 and count[0].kind == "param" and type(times := self.param(count[0].param)) is int:
                return _text_type(chars[0] * max(times, 0), charset)  # (MariaDB's: the length times a constant count)
            ct = _text_type(max(chars) if chars else 64, charset)
            return replace(ct, decimals=0) if word in _NO_DECIMALS else ct
        raise _Unknown

    def columns_charset(self, args: Sequence[ColumnType | None]) -> int:
        """The collation of a string function's result from its arguments' (MariaDB's collation
        aggregation as far as told here): the one of its table columns of characters when they
        share it (a literal yields to a column), else utf8mb4's. (A column's result type says
        utf8mb4, what a client reads it in: its own is its definition's.)"""
        own = set()
        for a in args:
            if a is None or a.origin is None or a.charset == CHARSET_BINARY or a.type not in _STRING_TYPES:
                continue
            schema, _, name, column = a.origin
            table = next((t for _, t in self.scope if isinstance(t, Table) and t.schema == schema
                          and t.name == name), None)
            col = table.column(column) if table is not None else None
            own.add(collation_number(col.collation_name) if col is not None else None)
        found = own.pop() if len(own) == 1 else None
        return found if found is not None else CHARSET_UTF8MB4_GENERAL_CI

    def cast(self, toks: list[Token], i: int, word: str) -> tuple[ColumnType, int]:
        end = _skip_parens(toks, i + 1)
        inner = toks[i + 2:end - 1]
        split = None
        depth = 0
        for k, t in enumerate(inner):
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
            elif depth == 0 and (t.is_word("AS") if word == "CAST" else (t.text == "," or t.is_word("USING"))):
                split = k
                break
        if split is None or inner[split].is_word("USING"):
            raise _Unknown
        target = [t for t in inner[split + 1:]]
        if not target:
            raise _Unknown
        name = target[0].upper
        nums = [int(v) for t in target if t.kind == "param" and isinstance(v := self.param(t.param), int)]
        if name in ("SIGNED", "INTEGER", "INT", "UNSIGNED"):
            return self.int_cast(inner[:split], name == "UNSIGNED"), end
        if name in ("DECIMAL", "NUMERIC"):  # NULL where x may be (a string that is no number is 0)
            precision = int(nums[0]) if nums else 10
            flags = ColumnFlag.BINARY | (self.operand_flags(inner[:split]) & ColumnFlag.NOT_NULL)
            return decimal_type(precision, int(nums[1]) if len(nums) > 1 else 0, flags), end
        if name in ("DOUBLE", "FLOAT", "REAL"):
            return (DOUBLE if name != "FLOAT" else declared_type("float", [], False, False)), end
        if name in ("DATE", "DATETIME", "TIME"):
            code = {"DATE": FieldType.DATE, "DATETIME": FieldType.DATETIME, "TIME": FieldType.TIME}[name]
            return datetime_type(code, int(nums[0]) if nums else 0), end
        if name in ("CHAR", "NCHAR", "VARCHAR"):
            chars = int(nums[0]) if nums else self.cast_chars(inner[:split])
            ct = varchar(chars)
            # MariaDB's string type for its bytes: a VARCHAR below 64 KiB, then a blob (whose
            # length it gives four times over, at most 4 GiB - 1)
            size = chars * 4
            if size < 65536:
                return ColumnType(ct.type, ct.length, 0, ct.charset, ct.flags), end
            code = FieldType.MEDIUM_BLOB if size < 16777216 else FieldType.LONG_BLOB
            return ColumnType(code, min(size * 4, 4294967295), 0, ct.charset, ct.flags), end
        if name in ("UUID", "INET6", "INET4"):  # NOT NULL: a literal that is a value of the type
            operand = inner[:split]
            value = self.param(operand[0].param) if len(operand) == 1 and operand[0].kind == "param" else None
            valid = isinstance(value, str | bytes) and canonical(name.lower(), value) is not None
            return fixedbin_type(name.lower(), ColumnFlag.UNSIGNED | (ColumnFlag.NOT_NULL if valid else 0)), end
        if name == "BINARY":  # without a length: x's bytes as typed ('ab' 8); a blob from 64 KiB
            size = int(nums[0]) if nums else self.cast_bytes(inner[:split])
            ct = varchar(size, binary=True)
            if size >= 65536:
                ct = replace(ct, type=FieldType.MEDIUM_BLOB if size < 16777216 else FieldType.LONG_BLOB)
            return ct, end
        raise _Unknown

    def operand_flags(self, operand: list[Token]) -> int:
        """The column flags of a CAST's operand, 0 where its type is not known here."""
        try:
            ct, stop = self.expr(operand, 0)
        except (_Unknown, IndexError):
            return 0
        return 0 if ct is None or stop != len(operand) else ct.flags

    def cast_bytes(self, operand: list[Token]) -> int:
        """CAST(x AS BINARY)'s length without one: x's (255 where its type is not known here)."""
        try:
            ct, stop = self.expr(operand, 0)
        except (_Unknown, IndexError):
            return 255
        if ct is None:
            return 255
        charset = self.column_charset(operand) if stop == len(operand) and ct.type in _STRING_TYPES else None
        if charset in CHARSETS and CHARSETS[charset].converts:  # a latin1 (cp1251 ...) column's bytes
            return ct.length // MB * CHARSETS[charset].mbmaxlen
        return ct.length

    def column_charset(self, operand: list[Token]) -> str | None:
        """The character set of the table column `operand` names ([alias.]name), None for any
        other operand or a column of utf8mb4, the default."""
        if len(operand) not in (1, 3) or any(t.kind not in ("word", "ident") for t in operand[::2]):
            return None
        name, alias = operand[-1].text.lower(), operand[0].text.lower() if len(operand) == 3 else None
        for own, table in self.scope:
            if (alias is None or own == alias) and not isinstance(table, Derived):
                col = table.column(name)
                if col is not None:
                    return col.charset
        return None

    def cast_chars(self, operand: list[Token]) -> int:
        """CAST(x AS CHAR)'s characters without a length: as many as x's (MariaDB's: BIGINT
        UNSIGNED 20, VARCHAR(30) 30, NULL 0); 255 where x's type is not known here."""
        try:
            ct, _stop = self.expr(operand, 0)
        except (_Unknown, IndexError):
            return 255
        if ct is None:
            return 255
        if ct.type == FieldType.NULL:
            return 0
        text = ct.charset != CHARSET_BINARY and (ct.type in _STRING_TYPES or ct.type in _BLOB_TYPES)
        return ct.length // 4 if text else ct.length

    def int_cast(self, operand: list[Token], unsigned: bool) -> ColumnType:
        """CAST(x AS SIGNED / UNSIGNED) as MariaDB's Item_func_signed / _unsigned: as wide as x
        in characters (a DOUBLE 20) up to 21, at least 2 (signed) or 1, LONG up to 9; UNSIGNED
        of what may be negative (not an unsigned column, NULL or a literal of 0 or more) 20."""
        try:
            ct, stop = self.expr(operand, 0)
        except (_Unknown, IndexError):
            ct, stop = None, -1
        flags = ColumnFlag.BINARY | (ColumnFlag.UNSIGNED if unsigned else 0)
        if ct is None or stop != len(operand):
            return int_type(21, flags)
        flags |= ct.flags & ColumnFlag.NOT_NULL
        value = self.param(operand[0].param) if len(operand) == 1 and operand[0].kind == "param" else None
        if unsigned and not (ct.flags & ColumnFlag.UNSIGNED or ct.type == FieldType.NULL
                             or type(value) is int and value >= 0):
            return int_type(20, flags)
        if ct.type in (FieldType.DOUBLE, FieldType.FLOAT):
            chars = 20
        elif ct.type in _STRING_TYPES and ct.charset != CHARSET_BINARY:
            chars = ct.length // mbmaxlen(ct.charset)
        else:
            chars = ct.length
        length = max(min(chars, 21), 1 if unsigned else 2)
        return ColumnType(FieldType.LONG if length < 10 else FieldType.LONGLONG, length, 0, CHARSET_BINARY, flags)

    def case(self, toks: list[Token], i: int) -> tuple[ColumnType, int]:
        depth, j, else_given = 0, i, False
        results: list[ColumnType] = []
        while j < len(toks):
            t = toks[j]
            if t.is_word("CASE"):
                depth += 1
            elif t.is_word("END"):
                depth -= 1
                if depth == 0:
                    break
            elif depth == 1 and t.is_word("THEN", "ELSE"):
                else_given = else_given or t.is_word("ELSE")
                k = j + 1
                d = 0
                while k < len(toks) and not (d == 0 and toks[k].is_word("WHEN", "ELSE", "END")):
                    d += toks[k].is_word("CASE") - toks[k].is_word("END")
                    k += 1
                ct, stop = self.expr(toks[j + 1:k], 0)
                if stop != k - j - 1:
                    raise _Unknown
                results.append(ct)
            j += 1
        if not results or j >= len(toks):
            raise _Unknown
        ct = _never_null(_unify(results), else_given and all(r.flags & ColumnFlag.NOT_NULL for r in results))
        if ct.type == FieldType.NEWDECIMAL:  # (binary as any DECIMAL expression, a column's too)
            ct = replace(ct, flags=ct.flags | ColumnFlag.BINARY)
        return ct, j + 1


_PREC = {"OR": 1, "||": 1, "XOR": 2, "AND": 3, "&&": 3, "NOT": 4, "BETWEEN": 5, "=": 5, "<=>": 5, ">=": 5,
         "<=": 5, "<": 5, ">": 5, "!=": 5, "<>": 5, "IS": 5, "LIKE": 5, "SOUNDS": 5, "REGEXP": 5, "RLIKE": 5, "IN": 5,
         "|": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "DIV": 10, "%": 10, "MOD": 10,
         "^": 11}


def _after_window(toks: list[Token], end: int) -> int:
    """The index after `OVER (...)` or `OVER name` at toks[end], `end` itself without one."""
    if end < len(toks) and toks[end].is_word("OVER"):
        return _skip_parens(toks, end + 1) if end + 1 < len(toks) and toks[end + 1].text == "(" else end + 2
    return end


def _skip_parens(toks: list[Token], i: int) -> int:
    """toks[i] is '(': the index after its matching ')'."""
    if i >= len(toks) or toks[i].text != "(":
        raise _Unknown
    depth = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "op" and t.text == "(":
            depth += 1
        elif t.kind == "op" and t.text == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _Unknown


skip_parens, Unknown = _skip_parens, _Unknown  # for engine.exact, which reads the same token lists


def _flags(a: ColumnType, b: ColumnType) -> int:
    return ColumnFlag.BINARY | (ColumnFlag.NOT_NULL if a.flags & b.flags & ColumnFlag.NOT_NULL else 0)


# INTERVAL units of whole days or more: a DATE plus one of them is a DATE
_DAY_UNITS = frozenset({"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "YEAR_MONTH"})


def _with_interval(left: ColumnType, unit: str, fsp: int | None = None) -> ColumnType:
    """A date +/- INTERVAL (or DATE_ADD ...), as MariaDB types it: a DATE plus whole days or more
    is a DATE, plus a time unit a DATETIME; a DATETIME or TIMESTAMP gives a DATETIME (with the
    interval's fraction digits `fsp`: 6 with a MICROSECOND unit, a SECOND's number's own); a
    string or NULL a CHAR (`Types.with_interval` types a string literal's and a character
    column's). Of anything else the type is the rows'."""
    if fsp is None:
        fsp = 6 if "MICROSECOND" in unit else 0
    if left.type == FieldType.DATE:
        if unit in _DAY_UNITS:
            return datetime_type(FieldType.DATE, 0)
        return datetime_type(FieldType.DATETIME, fsp)
    if left.type in (FieldType.DATETIME, FieldType.TIMESTAMP):
        return datetime_type(FieldType.DATETIME, max(fsp, left.decimals))
    if left.type == FieldType.NULL:
        return ColumnType(FieldType.STRING, 29 * MB, 0, CHARSET_UTF8MB4_GENERAL_CI, 0)
    if left.type in _STRING_TYPES and left.charset != CHARSET_BINARY:
        # a column's or an expression's string may hold any fraction: its text has 6 digits
        # (a literal's are its own: `Types.with_interval`)
        return ColumnType(FieldType.STRING, 29 * MB, 6, CHARSET_UTF8MB4_GENERAL_CI, 0, temporal_text=True)
    raise _Unknown


def _binary(op: str, a: ColumnType, b: ColumnType) -> ColumnType:
    if op in _COMPARE_OPS or op in _COMPARE_WORDS or op in ("||", "&&"):  # (NULL only of a NULL operand)
        return replace(BOOLEAN, flags=BOOLEAN.flags | a.flags & b.flags & ColumnFlag.NOT_NULL) if op != "<=>" \
            else replace(BOOLEAN, flags=BOOLEAN.flags | ColumnFlag.NOT_NULL)
    if op in ("|", "&", "<<", ">>", "^"):  # a BIGINT UNSIGNED, of NULL too
        return int_type(21, ColumnFlag.BINARY | ColumnFlag.UNSIGNED)
    if a.type == FieldType.NULL or b.type == FieldType.NULL:
        return NULL_TYPE if op in ("+", "-", "*", "/", "%", "MOD", "DIV") else BOOLEAN
    a, b = _as_number(a), _as_number(b)
    flags = _flags(a, b)
    if op == "DIV":  # an integer as wide as the dividend's integer part (an integer's length)
        whole = _precision(a) - a.decimals if a.type in (FieldType.NEWDECIMAL, *_INTEGERS) else a.length - a.decimals
        # (type_handler_long_or_longlong: past 9 digits a BIGINT)
        return ColumnType(FieldType.LONGLONG if whole > 9 else FieldType.LONG, max(whole, 1), 0, CHARSET_BINARY,
                          flags & ~ColumnFlag.NOT_NULL | (a.flags | b.flags) & ColumnFlag.UNSIGNED)
    floating = (FieldType.DOUBLE, FieldType.FLOAT)
    if a.type in floating or b.type in floating or not _numeric(a) or not _numeric(b):
        # MariaDB's decimals: the operands' most (PI()'s 6; a float column's or a string's 31,
        # which shows all digits), 4 more for a division
        decimals = max(a.decimals, b.decimals) if _numeric(a) and _numeric(b) else NOT_FIXED_DEC
        if decimals < NOT_FIXED_DEC and op in ("+", "-", "*", "/"):
            return ColumnType(FieldType.DOUBLE, 23, min(decimals + 4, NOT_FIXED_DEC) if op == "/" else decimals, 63, flags)
        return ColumnType(FieldType.DOUBLE, 23, NOT_FIXED_DEC, 63, flags)
    # MariaDB's result precisions (Item_func_div, _mul, _additive_op, _mod::result_precision)
    if op == "/":  # (NULL when dividing by zero)
        scale = min(a.decimals + 4, DECIMAL_MAX_SCALE)
        return decimal_type(min(_precision(a) + b.decimals + 4, 65), scale, flags & ~ColumnFlag.NOT_NULL)
    if a.type == FieldType.NEWDECIMAL or b.type == FieldType.NEWDECIMAL:
        if op == "*":  # the precisions add up, as the scales do
            scale = a.decimals + b.decimals
            return decimal_type(min(_precision(a) + _precision(b), 65), min(scale, DECIMAL_MAX_SCALE), flags)
        scale = max(a.decimals, b.decimals)
        if op in ("%", "MOD"):  # the wider operand's precision, the dividend's sign
            return decimal_type(min(max(_precision(a), _precision(b)), 65), min(scale, DECIMAL_MAX_SCALE),
                                flags & ~ColumnFlag.NOT_NULL | a.flags & ColumnFlag.UNSIGNED)
        digits = max(_precision(a) - a.decimals, _precision(b) - b.decimals) + 1
        return decimal_type(min(digits + scale, 65), min(scale, DECIMAL_MAX_SCALE), flags)
    unsigned = (a.flags | b.flags) & ColumnFlag.UNSIGNED  # (MySQL's, without NO_UNSIGNED_SUBTRACTION)
    if op in ("%", "MOD"):  # (Item_func_mod: the wider operand's length)
        return int_type(max(a.length, b.length), flags & ~ColumnFlag.NOT_NULL | unsigned)
    digits = _precision(a) + _precision(b) if op == "*" else max(_precision(a), _precision(b)) + 1
    return int_type(digits + (0 if unsigned else 1), flags | unsigned)


_TEMPORAL_DIGITS: dict[int, int] = {FieldType.DATE: 8, FieldType.TIME: 7, FieldType.DATETIME: 14, FieldType.TIMESTAMP: 14}


def _as_number(ct: ColumnType) -> ColumnType:
    """A temporal operand of arithmetic as the number MySQL makes of it (20200102030405.123456:
    an integer, or a DECIMAL with its fractional digits); an ENUM or SET its member's number or
    members' bits (`_member_number`)."""
    ct = _member_number(ct)
    digits = _TEMPORAL_DIGITS.get(ct.type)
    if digits is None:
        return ct
    if ct.decimals:
        return decimal_type(digits + ct.decimals, ct.decimals)
    return int_type(digits)


def _member_number(ct: ColumnType | None) -> ColumnType | None:
    """An ENUM or SET column read as a number (`exact._member_number`): an integer, its width
    one more than the column's characters (MariaDB's for arithmetic on it); anything else as it is."""
    if ct is None or not ct.flags & (ColumnFlag.ENUM | ColumnFlag.SET):
        return ct
    return int_type(ct.length // MB + 1)


def _precision(ct: ColumnType) -> int:
    """A number type's digits (a DECIMAL's length less its sign and point, an integer's less its
    sign, an integer literal's its own)."""
    if ct.type == FieldType.NEWDECIMAL:
        return ct.length - (1 if ct.decimals else 0) - (0 if ct.flags & ColumnFlag.UNSIGNED else 1)
    if ct.type in _EXACT and not ct.literal:
        return max(ct.length - (0 if ct.flags & ColumnFlag.UNSIGNED else 1), 1)
    return ct.length


def _numeric(ct: ColumnType) -> bool:
    return ct.type in _EXACT or ct.type in (FieldType.NEWDECIMAL, FieldType.DOUBLE, FieldType.FLOAT)




def _origin(alias: str, table: Table, col) -> ColumnType:
    """`col`'s result type, with where it comes from: the table as the statement names it (its
    alias, else its own name), the table, the column."""
    shown = table.name if alias == table.name.lower() else alias
    # (a temporary table's origin: the name its session wrote, as MariaDB's)
    return replace(table.result_type(col), origin=(table.schema, shown, temporary.shown_name(table.name), col.name))


def _computed(ct: ColumnType) -> ColumnType:
    """An expression's type from its operand's: no table, no ZEROFILL (MariaDB pads a column's
    own values, and a derived table's or a view's column, never what is computed from them) and
    no NO_DEFAULT_VALUE (a column's own)."""
    if ct.origin is None and not ct.flags & (ColumnFlag.ZEROFILL | ColumnFlag.NO_DEFAULT_VALUE):
        return ct
    return replace(ct, origin=None, flags=ct.flags & ~(ColumnFlag.ZEROFILL | ColumnFlag.NO_DEFAULT_VALUE))


def _no_origin(ct: ColumnType | None) -> ColumnType | None:
    return replace(ct, origin=None) if ct is not None and ct.origin is not None else ct


def is_name(item: list[Token]) -> bool:
    """A select item that is a bare, maybe qualified, column name."""
    return len(item) % 2 == 1 and all(t.kind in ("word", "ident") for t in item[::2]) \
        and all(t.kind == "op" and t.text == "." for t in item[1::2])


def _text_type(chars: int, charset: int = CHARSET_UTF8MB4_GENERAL_CI) -> ColumnType:
    """A string function's result of up to `chars` characters of collation `charset` as MariaDB
    types it: a VARCHAR, past 65535 bytes a MEDIUMTEXT, past 16777215 a LONGTEXT
    (Item::string_type_handler)."""
    length = chars * mbmaxlen(charset)
    if length < 65536:
        return ColumnType(FieldType.VAR_STRING, length, STRING_DEC, charset, 0)
    code = FieldType.MEDIUM_BLOB if length < 16777216 else FieldType.LONG_BLOB
    return ColumnType(code, min(length, _MAX_LENGTH), STRING_DEC, charset, 0)


def _unify(types: Sequence[ColumnType | None]) -> ColumnType:
    """The type of IF/CASE/COALESCE/MIN...: one argument's type when they agree, else MySQL's
    aggregation (DECIMAL over exact numbers, DOUBLE over numbers, VARCHAR otherwise)."""
    known = [t for t in types if t is not None and t.type != FieldType.NULL]
    if not known:
        return NULL_TYPE
    first = known[0]
    if all(t.type == first.type and t.charset == first.charset for t in known):
        longest = max(known, key=lambda t: (t.length, t.decimals))
        flags = first.flags & ~(ColumnFlag.PRI_KEY | ColumnFlag.UNIQUE_KEY | ColumnFlag.MULTIPLE_KEY
                                | ColumnFlag.AUTO_INCREMENT | ColumnFlag.NO_DEFAULT_VALUE | 16384)
        return ColumnType(first.type, longest.length, max(t.decimals for t in known), first.charset, flags,
                          first.pad_to)
    if all(t.type in _TEMPORAL_DIGITS for t in known):  # mixed dates and times: a DATETIME
        return datetime_type(FieldType.DATETIME, max(t.decimals for t in known))
    if all(_numeric(t) for t in known):
        if any(t.type in (FieldType.DOUBLE, FieldType.FLOAT) for t in known):
            return DOUBLE
        if any(t.type == FieldType.NEWDECIMAL for t in known):  # the widest integer part, the most decimals
            scale = max(t.decimals for t in known)
            return decimal_type(max(_precision(t) - t.decimals for t in known) + scale, scale)
        return LONGLONG if any(t.length >= 11 for t in known) else int_type(max(t.length for t in known))
    binary = any(t.charset == 63 and t.type in _STRING_TYPES
                 for t in known)
    # (in characters: a string's length is its bytes, a number's its characters)
    chars = max(t.length if binary or t.charset == CHARSET_BINARY or t.type not in _STRING_TYPES
                else t.length // mbmaxlen(t.charset) for t in known)
    ct = varchar(min(chars, _MAX_LENGTH // (1 if binary else MB)), binary=binary)
    if all(t.type in _STRING_TYPES for t in known):  # (strings' decimals: a column's 0, an expression's 39)
        ct = replace(ct, decimals=max(t.decimals for t in known))
    return ct


def _never_null(ct: ColumnType, never: bool) -> ColumnType:
    """`ct` flagged NOT_NULL when `never`, else without the flag (a CASE without ELSE, IF of a
    nullable value: MariaDB's maybe_null)."""
    flags = ct.flags | ColumnFlag.NOT_NULL if never else ct.flags & ~ColumnFlag.NOT_NULL
    return ct if flags == ct.flags else replace(ct, flags=flags)


def _assigned(ct: ColumnType) -> ColumnType:
    """The type of `@x := value` from the value's, as MariaDB's Item_func_set_user_var types it:
    an integer a LONG up to 9 digits, else a LONGLONG; a date or time its text, a VARCHAR; NULL
    an empty binary VARCHAR; any other the value's own."""
    not_null = ct.flags & ColumnFlag.NOT_NULL
    if ct.type in _EXACT:
        code = FieldType.LONG if ct.length <= 9 else FieldType.LONGLONG
        return ColumnType(code, ct.length, 0, CHARSET_BINARY, ct.flags & (ColumnFlag.UNSIGNED | ColumnFlag.NOT_NULL)
                          | ColumnFlag.BINARY)
    if ct.type in _TEMPORAL_DIGITS:
        return varchar(ct.length, flags=not_null)
    if ct.type == FieldType.NULL:
        return varchar(0, binary=True)
    return ct


def _digits(t: ColumnType) -> int:
    """An exact number's digits (its precision) from its display length: the length less its
    sign and its decimal point."""
    point = 1 if t.type == FieldType.NEWDECIMAL and t.decimals else 0
    return t.length - point - (0 if t.flags & ColumnFlag.UNSIGNED else 1)
