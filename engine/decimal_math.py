"""Exact DECIMAL arithmetic: the SQLite functions a select-list item computing on DECIMAL columns
is translated to (`translate.Translator.exact_items`), instead of SQLite's float operators.

Contract. Operands are what SQLite holds for exact numbers: integers, DECIMAL (and BIGINT
UNSIGNED) values as their exact text, literals as bound (an integer, or a float read back by
its shortest text, which is the literal as written); NULL in, NULL out. The results follow
MySQL's scale rules, which are Python's decimal ones: a + b and a - b keep the larger scale,
a * b the sum of the scales, SUM its argument's; a / b and AVG have the dividend's scale +
div_precision_increment (4), rounded half up (ROUND_HALF_UP, as MySQL's decimal_div); a division
by zero is NULL, reported as MySQL's warning 1365 through `register`'s `divided_by_zero`. A result goes back as its exact text, read only by the result row encoder
(`coltypes.text_value`, which gives it the expression's declared scale): the translator only
uses these functions for whole select-list items of a top-level SELECT whose value nothing else
in the statement compares or sorts (texts would compare as strings there).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable
from decimal import (
    ROUND_CEILING,
    ROUND_DOWN,
    ROUND_FLOOR,
    ROUND_HALF_UP,
    Context,
    Decimal,
)
from typing import Any

from engine.coltypes import DECIMAL_MAX_SCALE
from engine.values import NUMBER_PREFIX

DIV_PRECISION_INCREMENT = 4  # MySQL's default div_precision_increment
_CONTEXT = Context(prec=200, rounding=ROUND_HALF_UP)


def _dec(value: Any) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, bytes):
        value = value.decode("ascii", "replace")
    m = NUMBER_PREFIX.match(str(value))
    # MySQL reads a string's leading number ('3x' is 3, with a warning), 0 without one
    return Decimal(m.group().strip()) if m else Decimal(0)


def _scale(d: Decimal) -> int:
    return max(-d.as_tuple().exponent, 0)  # type: ignore[operator]


def _text(d: Decimal | None) -> str | None:
    return None if d is None else format(d, "f")


def _divide(a: Decimal, b: Decimal) -> Decimal | None:
    if b == 0:
        return None
    scale = min(_scale(a) + DIV_PRECISION_INCREMENT, DECIMAL_MAX_SCALE)
    return _CONTEXT.divide(a, b).quantize(Decimal(1).scaleb(-scale), context=_CONTEXT)


def _binary(op):
    def fn(a: Any, b: Any) -> int | str | None:
        if type(a) is int and type(b) is int and op is not _divide:  # integers stay integers
            n = int(op(Decimal(a), Decimal(b)))
            return n if -(1 << 63) <= n < 1 << 63 else str(n)
        x, y = _dec(a), _dec(b)
        if x is None or y is None:
            return None
        return _text(op(x, y))
    return fn


def _negate(a: Any) -> str | float | None:
    if isinstance(a, float):  # a literal with an exponent: a DOUBLE
        return -a
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

    def inverse(self, value: Any) -> None:  # a window's row leaving the frame
        d = _dec(value)
        if d is not None:
            if self.total is None:  # SQLite removes only rows step() added: a bug otherwise
                raise RuntimeError("window SUM: inverse() of a row that step() never added")
            self.count -= 1
            self.total = None if not self.count else _CONTEXT.subtract(self.total, d)

    def value(self) -> str | None:  # a window's value so far
        return self.finalize()

    def finalize(self) -> str | None:
        return _text(self.total)


class _Avg(_Sum):
    def finalize(self) -> str | None:
        if self.total is None:
            return None
        return _text(_divide(self.total, Decimal(self.count)))


def _compare(a: Any, b: Any) -> int | None:
    x, y = _dec(a), _dec(b)
    if x is None or y is None:
        return None
    return (x > y) - (x < y)


def _null_safe_equal(a: Any, b: Any) -> int:
    if a is None or b is None:
        return int(a is None and b is None)
    return int(_compare(a, b) == 0)


def _in(x: Any, *items: Any) -> int | None:
    """x IN (items): 1 on a match, else NULL when x or an item is NULL (MySQL's three values)."""
    d = _dec(x)
    if d is None:
        return None
    found = [_dec(item) for item in items]
    if any(v is not None and v == d for v in found):
        return 1
    return None if any(v is None for v in found) else 0


def _pick(better):
    def fn(*args: Any) -> str | None:
        values = [_dec(a) for a in args]
        if any(v is None for v in values):
            return None  # GREATEST/LEAST with a NULL argument is NULL
        best = values[0]
        for v in values[1:]:
            if better(v, best):
                best = v
        return _text(best)
    return fn


def round_double(x: Any, d: Any) -> float | None:
    """ROUND of a DOUBLE as MySQL's my_double_round: the value scaled by 10^d rounded half to
    even (rint), where SQLite's round() goes half away from zero (ROUND(2.5e0) is 2 here)."""
    if x is None or d is None:
        return None
    value, d = float(x) if isinstance(x, int | float) else float(_dec(x) or 0), int(_dec(d) or 0)
    try:
        scale = 10.0 ** abs(d)
    except OverflowError:
        return 0.0 if d < 0 else value
    if d < 0:
        return 0.0 if math.isinf(scale) else float(round(value / scale)) * scale
    scaled = value * scale
    return value if math.isinf(scaled) else float(round(scaled)) / scale


def _round(a: Any, places: Any = 0, rounding: str = ROUND_HALF_UP) -> str | float | None:
    """ROUND/TRUNCATE of an exact number: half away from zero (MySQL's decimal rounding) or
    toward zero, to `places` digits (negative: tens, hundreds ...); the result keeps
    max(places, 0) decimals, no more than the argument had. ROUND of a float, a literal with an
    exponent (a DOUBLE: the translation binds any other literal as its exact text), is
    `round_double`'s."""
    if isinstance(a, float) and rounding == ROUND_HALF_UP:
        return round_double(a, places)
    x = _dec(a)
    if x is None or places is None:
        return None
    n = int(_dec(places) or 0)
    scale = min(max(n, 0), _scale(x))
    quantum = Decimal(1).scaleb(-n)
    rounded = x.quantize(quantum, rounding=rounding, context=_CONTEXT) if n >= -70 else Decimal(0)
    if not rounded:
        rounded = rounded.copy_abs()  # (MySQL's decimal_round: ROUND(-2.00, -1) is 0, not -0)
    return _text(rounded.quantize(Decimal(1).scaleb(-scale), context=_CONTEXT))


def _integral(rounding: str):
    def fn(a: Any) -> str | None:
        x = _dec(a)
        return None if x is None else _text(x.to_integral_value(rounding=rounding, context=_CONTEXT))
    return fn


def _mod(a: Any, b: Any) -> int | str | None:
    if isinstance(a, int) and isinstance(b, int):  # integers: an integer (-12 MOD 2 is 0, not -0)
        return None if b == 0 else (abs(a) % abs(b)) * (-1 if a < 0 else 1)
    x, y = _dec(a), _dec(b)
    if x is None or y is None or y == 0:
        return None
    return _text(_CONTEXT.remainder(x, y))  # the sign of the dividend, as MySQL's


def _int_divide(a: Any, b: Any) -> int | str | None:
    x, y = _dec(a), _dec(b)
    if x is None or y is None or y == 0:
        return None
    q = int(_CONTEXT.divide_int(x, y))
    return q if -(1 << 63) <= q < 1 << 63 else str(q)


def _cast(a: Any, precision: Any, scale: Any) -> str | None:
    """CAST(x AS DECIMAL(m,d)): rounded half up to d decimals, clipped to the largest value of
    m digits (MySQL's cast, which warns and clips instead of failing)."""
    x = _dec(a)
    if x is None:
        return None
    m, d = int(precision), int(scale)
    rounded = x.quantize(Decimal(1).scaleb(-d), context=_CONTEXT)
    largest = _CONTEXT.subtract(Decimal(1).scaleb(m - d), Decimal(1).scaleb(-d))
    if rounded.copy_abs() > largest:
        rounded = largest.copy_sign(rounded)
    return _text(rounded)


def _temporal_number(a: Any) -> int | str | None:
    """A DATE/TIME/DATETIME text as MySQL's number: '2020-01-02 03:04:05.5' is
    20200102030405.5, '-01:00:00' is -10000 (an integer without a fraction)."""
    if a is None:
        return None
    text = a.decode("ascii", "replace") if isinstance(a, bytes) else str(a)
    sign = "-" if text.startswith("-") else ""
    whole, _, frac = text.lstrip("-").partition(".")
    digits = "".join(ch for ch in whole if ch.isdigit())
    if not digits:
        return 0
    if frac:
        return sign + digits.lstrip("0") + "." + frac if digits.lstrip("0") else sign + "0." + frac
    n = int(sign + digits)
    return n


def _exact(a: Any) -> str | None:
    """A number as its exact text (a DECIMAL-typed value SQLite produced: IFNULL(d, 0) ...)."""
    return _text(_dec(a))


FUNCTIONS = {
    "mysql_dec_add": _binary(_CONTEXT.add),
    "mysql_dec_sub": _binary(_CONTEXT.subtract),
    "mysql_dec_mul": _binary(_CONTEXT.multiply),
    "mysql_dec_div": _binary(_divide),
    "mysql_dec_cmp": _compare,
    "mysql_dec_nseq": _null_safe_equal,
    "mysql_dec_mod": _mod,
    "mysql_dec_intdiv": _int_divide,
}
VARIADIC = {
    "mysql_dec_in": _in,
    "mysql_dec_greatest": _pick(lambda v, best: v > best),
    "mysql_dec_least": _pick(lambda v, best: v < best),
    "mysql_dec_round": _round,
    "mysql_dec_truncate": lambda a, places: _round(a, places, ROUND_DOWN),
}
UNARY = {
    "mysql_dec_neg": _negate,
    "mysql_dec_abs": lambda a: None if (x := _dec(a)) is None else _text(x.copy_abs()),
    "mysql_dec_floor": _integral(ROUND_FLOOR),
    "mysql_dec_ceil": _integral(ROUND_CEILING),
    "mysql_dec": _exact,
    "mysql_temporal_number": _temporal_number,
}
AGGREGATES = {"mysql_dec_sum": _Sum, "mysql_dec_avg": _Avg}
OPERATORS = {"+": "mysql_dec_add", "-": "mysql_dec_sub", "*": "mysql_dec_mul", "/": "mysql_dec_div"}


# the calls whose second argument divides: 0 there is NULL and, with a dividend, MySQL's 1365 warning
DIVISIONS = frozenset({"mysql_dec_div", "mysql_dec_mod", "mysql_dec_intdiv"})


def noting_zero(divide: Callable[[Any, Any], Any], divided_by_zero: Callable[[], None]) -> Callable[[Any, Any], Any]:
    """`divide(a, b)` that calls `divided_by_zero()` when b is 0 and a is not NULL (MySQL warns
    then, not for NULL / 0); the check runs only on a NULL answer."""
    def run(a: Any, b: Any) -> Any:
        out = divide(a, b)
        if out is None and a is not None and b is not None and _dec(b) == 0:
            divided_by_zero()
        return out
    return run


def register(conn: sqlite3.Connection, divided_by_zero: Callable[[], None] | None = None) -> None:
    """The functions on `conn`; `divided_by_zero`: what a division by 0 reports (`noting_zero`)."""
    for name, fn in FUNCTIONS.items():
        if divided_by_zero is not None and name in DIVISIONS:
            fn = noting_zero(fn, divided_by_zero)
        conn.create_function(name, 2, fn, deterministic=True)
    for name, fn in VARIADIC.items():
        conn.create_function(name, -1, fn, deterministic=True)
    for name, fn in UNARY.items():
        conn.create_function(name, 1, fn, deterministic=True)
    conn.create_function("mysql_dec_cast", 3, _cast, deterministic=True)
    for name, aggregate in AGGREGATES.items():
        conn.create_window_function(name, 1, aggregate)  # an aggregate, and with OVER a window function
