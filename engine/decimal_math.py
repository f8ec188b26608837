"""Exact DECIMAL arithmetic: the SQLite functions a select-list item computing on DECIMAL columns
is translated to (`translate.Translator.exact_items`), instead of SQLite's float operators.

Contract. Operands are what SQLite holds for exact numbers: integers, DECIMAL (and BIGINT
UNSIGNED) values as their exact text, literals as bound (an integer, or a float read back by
its shortest text, which is the literal as written); NULL in, NULL out. The results follow
MySQL's scale rules, which are Python's decimal ones: a + b and a - b keep the larger scale,
a * b the sum of the scales, SUM its argument's; a / b and AVG have the dividend's scale +
div_precision_increment (4), rounded half up (ROUND_HALF_UP, as MySQL's decimal_div); a division
by zero is NULL. A result goes back as its exact text, read only by the result row encoder
(`coltypes.text_value`, which gives it the expression's declared scale): the translator only
uses these functions for whole select-list items of a top-level SELECT whose value nothing else
in the statement compares or sorts (texts would compare as strings there).
"""

from __future__ import annotations

import sqlite3
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

DIV_PRECISION_INCREMENT = 4  # MySQL's default div_precision_increment
MAX_SCALE = 30  # DECIMAL's largest scale
_CONTEXT = Context(prec=200, rounding=ROUND_HALF_UP)


def _dec(value: Any) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        return Decimal(0)  # MySQL reads a string without a leading number as 0


def _scale(d: Decimal) -> int:
    return max(-d.as_tuple().exponent, 0)  # type: ignore[operator]


def _text(d: Decimal | None) -> str | None:
    return None if d is None else format(d, "f")


def _divide(a: Decimal, b: Decimal) -> Decimal | None:
    if b == 0:
        return None
    scale = min(_scale(a) + DIV_PRECISION_INCREMENT, MAX_SCALE)
    return _CONTEXT.divide(a, b).quantize(Decimal(1).scaleb(-scale), context=_CONTEXT)


def _binary(op):
    def fn(a: Any, b: Any) -> str | None:
        x, y = _dec(a), _dec(b)
        if x is None or y is None:
            return None
        return _text(op(x, y))
    return fn


def _negate(a: Any) -> str | None:
    x = _dec(a)
    return None if x is None else _text(_CONTEXT.minus(x))


class _Sum:
    def __init__(self) -> None:
        self.total: Decimal | None = None
        self.count = 0

    def step(self, value: Any) -> None:
        d = _dec(value)
        if d is not None:
            self.total = d if self.total is None else _CONTEXT.add(self.total, d)
            self.count += 1

    def finalize(self) -> str | None:
        return _text(self.total)


class _Avg(_Sum):
    def finalize(self) -> str | None:
        if self.total is None:
            return None
        return _text(_divide(self.total, Decimal(self.count)))


FUNCTIONS = {
    "mysql_dec_add": _binary(_CONTEXT.add),
    "mysql_dec_sub": _binary(_CONTEXT.subtract),
    "mysql_dec_mul": _binary(_CONTEXT.multiply),
    "mysql_dec_div": _binary(_divide),
}
AGGREGATES = {"mysql_dec_sum": _Sum, "mysql_dec_avg": _Avg}
OPERATORS = {"+": "mysql_dec_add", "-": "mysql_dec_sub", "*": "mysql_dec_mul", "/": "mysql_dec_div"}


def register(conn: sqlite3.Connection) -> None:
    for name, fn in FUNCTIONS.items():
        conn.create_function(name, 2, fn, deterministic=True)
    conn.create_function("mysql_dec_neg", 1, _negate, deterministic=True)
    for name, aggregate in AGGREGATES.items():
        conn.create_aggregate(name, 1, aggregate)
