"""MySQL functions SQLite lacks, registered on every engine connection, and MySQL's RAND().

All are deterministic given their arguments, except `mysql_rand()`, which draws from the running
statement's session generator (`RandState`, MySQL's own algorithm, so a binlogged RAND_SEED
reproduces the master's values) through the connection's `ConnectionState`, and the functions
of the server's state: UUID(), SYS_GUID(), UUID_SHORT(), SLEEP(), SYSDATE() (the clock as the
call runs) and the named locks (GET_LOCK ...), and RANDOM_BYTES() (a replica draws its own, as
MariaDB's does).

Named locks (`NamedLocks`, one per process = per server) belong to a session's
`SessionFunctions`; a session releases them all when it ends. SLEEP() and a GET_LOCK() wait
end early when the session is interrupted (KILL QUERY or max_statement_time:
`SessionFunctions.interrupt()`): SLEEP then fails the statement with 1317 as MariaDB's (MySQL's
returns 1), GET_LOCK returns NULL. Like MySQL (which marks them unsafe for statement-based logging),
a write calling them is binlogged as written: the slave sleeps and locks on its own.
"""

from __future__ import annotations

import base64
import calendar
import hashlib
import json
import math
import operator
import os
import re
import sqlite3
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from engine import collation, decimal_math, fixedbin, jsondoc, locales, strfuncs, values
from engine.coltypes import format_double, zerofill_text
from protocol.charsets import CHARSETS
from protocol.errors import (
    ER_CONSTRAINT_FAILED,
    ER_DATA_OUT_OF_RANGE,
    ER_DATA_OVERFLOW,
    ER_DIVISION_BY_ZERO,
    ER_JSON_BAD_CHR,
    ER_JSON_DEPTH,
    ER_JSON_EOS,
    ER_JSON_ESCAPING,
    ER_JSON_ONE_OR_ALL,
    ER_JSON_PATH_EOS,
    ER_JSON_PATH_NO_WILDCARD,
    ER_JSON_PATH_SYNTAX,
    ER_JSON_SYNTAX,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_SUBQUERY_NO_1_ROW,
    ER_TOO_BIG_PRECISION,
    ER_TRUNCATED_NUMBER,
    ER_TRUNCATED_WRONG_VALUE,
    ER_UNKNOWN_ERROR,
    ER_UNKNOWN_LOCALE,
    ER_WRONG_ARGUMENTS,
    ER_WRONG_VALUE_FOR_TYPE,
    SQLError,
)

MAX_RAND = 0x3FFFFFFF
_RAISED = threading.local()  # the SQLError a function of this thread raised (see `raise_sql`)


def mysql_temporal(value: Any, base: str, fsp: int) -> Any:
    """A value compared with a `base` (date, datetime, timestamp, time) column as the text the
    column would hold for it (`values.temporal_text`), so that SQLite's text comparison is
    MariaDB's comparison of times; a value that is not one is left as it is."""
    if value is None or isinstance(value, bytes):
        return value
    text = values.temporal_text(value, base, fsp)
    return value if text is None else text


def mysql_cast_temporal(value: Any, base: str, fsp: Any) -> str | None:
    """CAST(value AS DATE / DATETIME[(fsp)] / TIME[(fsp)]): the value as such a column stores it
    (`values.temporal_text`), NULL when it is not one (MariaDB adds a warning)."""
    if value is None:
        return None
    return values.temporal_text(value, base, _int(fsp) if fsp is not None else 0, stored=True)


def _noting_cut_times(warn: Callable[[tuple[str, int, str]], None], fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (CAST to a time, UNIX_TIMESTAMP) with MariaDB's note 1292 when its first argument is
    a string written with digits past the microsecond (cut), naming what it reads: a datetime
    when it has a date, else a time."""
    def call(*args: Any) -> Any:
        answer = fn(*args)
        value = args[0] if args else None
        if answer is not None and type(value) is str and values.PAST_MICROSECONDS.search(value):
            kind = "datetime" if re.match(r"\s*\d+-", value) else "time"
            warn(("Note", ER_TRUNCATED_NUMBER.code, ER_TRUNCATED_NUMBER.format(kind, value)))
        return answer
    return call


def raise_sql(exc: SQLError) -> None:
    """Fail the running statement with MySQL's error: SQLite reports a function's exception as
    "user-defined function raised exception"; `raised()` then gives the error itself."""
    _RAISED.error = exc
    raise exc


def raised() -> SQLError | None:
    """The error `raise_sql` left on this thread (once)."""
    error = getattr(_RAISED, "error", None)
    _RAISED.error = None
    return error


class RandState:
    """MySQL's RAND() generator (two seeds, as binlogged in a RAND event)."""

    def __init__(self, seed1: int, seed2: int):
        self.seed1 = seed1 % MAX_RAND
        self.seed2 = seed2 % MAX_RAND

    @classmethod
    def from_int(cls, seed: int) -> RandState:
        return cls(seed * 0x10001 + 55555555, seed * 0x10000001)

    def next(self) -> float:
        self.seed1 = (self.seed1 * 3 + self.seed2) % MAX_RAND
        self.seed2 = (self.seed1 + self.seed2 + 33) % MAX_RAND
        return self.seed1 / MAX_RAND


def session_rand(connection_id: int) -> RandState:
    """RAND()'s generator of a new session: seeded from the clock and the connection id."""
    return RandState(int(time.time()) ^ (connection_id * 0x9E3779B1), connection_id + 17)


class SessionFunctions:
    """A session's state that functions read and write: RAND()'s generator, and the value a
    LAST_INSERT_ID(expr) call set during the current statement."""

    def __init__(self, rand: RandState):
        self.rand = rand
        self.set_last_id: int | None = None
        # the user variables the current statement assigned (@x := expr), by lower-case name:
        # the session's once the statement ends (`Session`), None while it assigned none
        self.assigned: dict[str, Any] | None = None
        # rows an ON DUPLICATE KEY UPDATE, or an UPDATE (`mysql_matched`), changed / left as they were
        self.upserts_changed = 0
        self.upserts_unchanged = 0
        # the running statement's warnings, (row, level, code, message): `Result.warnings` in
        # the rows' order
        self.warnings: list[tuple[int, str, int, str]] = []
        self.records = 0  # the rows an INSERT / REPLACE ... SELECT read (its info's "Records")
        self.connection_id = 0
        self.stored_rows: dict[str, int] = {}  # mysql_store calls of the statement, by target: the row number
        # the row MariaDB names in a stored value's warning or error ("at row n"): the rows an
        # UPDATE's scan read (`mysql_row_read`), an INSERT's row of values run alone
        # (`Engine._w_rows_apart`); 0 where none is counted (each target's stores count then)
        self.current_row = 0
        self.fixedbin_warned: set[tuple[str, str | bytes]] = set()  # (`mysql_fixedbin_bound`)
        # the last value a trigger's SET NEW.col stored, (its mysql_store target, value): the
        # value of a 1062 that assignment met
        self.trigger_assigned: tuple[str, Any] | None = None
        self.interrupted = threading.Event()  # KILL QUERY of the running statement
        self.kill_pending = False  # `interrupted.is_set()`, read without a call (the loop's reads)
        self.sleeping = False  # inside SLEEP()/GET_LOCK(): the interruption ends the wait only
        self.guard = threading.Lock()  # `conn` vs interrupt(): never interrupt a connection we left
        self.conn: sqlite3.Connection | None = None  # the reader running this session's statement

    def renew(self, rand: RandState) -> None:
        """The state of a fresh `SessionFunctions(rand)` again (its connection_id kept), for the
        next session that takes this one over. Never for one that holds a named lock
        (`NamedLocks.holds_any`): the locks are its session's, not the next one's."""
        self.rand = rand
        self.set_last_id = None
        self.assigned = None
        self.upserts_changed = self.upserts_unchanged = 0
        self.warnings = []
        self.stored_rows.clear()
        self.current_row = 0
        self.fixedbin_warned.clear()
        if self.kill_pending:  # (no lock taken when unset, as `start_statement`)
            self.kill_pending = False
            self.interrupted.clear()
        self.sleeping = False
        if self.conn is not None:  # (no statement runs on it: nothing sets it meanwhile)
            self.running_on(None)

    def warn(self, warning: tuple[str, int, str]) -> None:
        """A warning or note (level, code, message) of the running statement's expressions, kept
        after the stored values' warnings of the rows before (`stored_rows`), before the next."""
        at = self.current_row - 0.5 if self.current_row else max(self.stored_rows.values(), default=0) + 0.5
        self.warnings.append((at, *warning))

    def start_statement(self) -> None:
        """What a statement starts without: a LAST_INSERT_ID(expr) value, upsert counts, stored
        rows and a trigger's assignment of the statement before."""
        # (`interrupted` is not cleared here: a KILL QUERY that came after its statement began
        # but before the engine reached this point stays; the session clears it when the
        # statement ends, `clear_interrupt`)
        self.set_last_id = None
        self.upserts_changed = self.upserts_unchanged = 0
        self.stored_rows.clear()
        self.current_row = 0
        self.fixedbin_warned.clear()
        self.trigger_assigned = None

    def clear_interrupt(self) -> None:
        """The statement a KILL QUERY was for has ended: the next one runs."""
        if self.kill_pending:  # (no lock taken when unset)
            self.kill_pending = False
            self.interrupted.clear()

    def interrupt(self) -> None:
        """KILL QUERY: end a SLEEP()/GET_LOCK() wait, or stop the running read (SQLite's
        interrupt(): the statement fails with "interrupted")."""
        self.kill_pending = True
        self.interrupted.set()
        with self.guard:
            if self.conn is not None and not self.sleeping:
                self.conn.interrupt()

    def running_on(self, conn: sqlite3.Connection | None) -> None:
        with self.guard:
            self.conn = conn


class NamedLocks:
    """GET_LOCK() and friends: server-wide named locks, each held by one session (re-entrant)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._owners: dict[str, tuple[SessionFunctions, int]] = {}  # lower-case name -> owner, depth

    def get(self, fx: SessionFunctions, name: str, timeout: float) -> int | None:
        key = name.lower()
        deadline = time.monotonic() + max(timeout, 0.0) if timeout >= 0 else None
        with self._cond:
            while True:
                held = self._owners.get(key)
                if held is None or held[0] is fx:
                    self._owners[key] = (fx, held[1] + 1 if held else 1)
                    return 1
                if fx.interrupted.is_set():
                    return None
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return 0
                self._cond.wait(0.05 if left is None else min(left, 0.05))

    def release(self, fx: SessionFunctions, name: str) -> int | None:
        key = name.lower()
        with self._cond:
            held = self._owners.get(key)
            if held is None:
                return None
            if held[0] is not fx:
                return 0
            if held[1] > 1:
                self._owners[key] = (fx, held[1] - 1)
            else:
                del self._owners[key]
                self._cond.notify_all()
            return 1

    def release_all(self, fx: SessionFunctions) -> int:
        with self._cond:
            mine = [k for k, (owner, _) in self._owners.items() if owner is fx]
            count = sum(self._owners.pop(k)[1] for k in mine)
            if mine:
                self._cond.notify_all()
            return count

    def holds_any(self, fx: SessionFunctions) -> bool:
        """Whether `fx`'s session holds a named lock (none held by anyone: answered without the
        lock; only `fx`'s own session, which is not running a statement, could add one of its)."""
        if not self._owners:
            return False
        with self._cond:
            return any(owner is fx for owner, _ in self._owners.values())

    def owner(self, name: str) -> int | None:
        with self._cond:
            held = self._owners.get(name.lower())
            return None if held is None else held[0].connection_id


LOCKS = NamedLocks()
_UUID_SHORT = [int(time.time()) << 24]
_UUID_SHORT_LOCK = threading.Lock()


def uuid_short() -> int:
    with _UUID_SHORT_LOCK:
        _UUID_SHORT[0] += 1
        return _UUID_SHORT[0]


class ConnectionState:
    """What a connection's functions need of the statement running on it (one thread at a time)."""

    fx: SessionFunctions | None = None


def now_stored(now: str, micros: int, digits: int, width: int) -> str:
    """The statement's time as a DATETIME(width) / TIMESTAMP(width) column's DEFAULT or ON UPDATE
    CURRENT_TIMESTAMP(digits) stores it: `digits` of its microseconds, zeros to `width`."""
    return f"{now}.{f'{micros:06d}'[:digits]:0<{width}}"


def _to_str(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, float):
        return format_double(v)  # MariaDB's text of a DOUBLE: -1, 1e20, 0.00000015
    return str(v)




def _extreme(greater: bool, warn: Callable[[tuple[str, int, str]], None] | None = None) -> Callable[..., Any]:
    """GREATEST / LEAST as MariaDB compares: NULL if any argument is; strings by the
    connection's collation (utf8mb4_general_ci: 'a' < 'B'); integers as integers; any other mix
    as DOUBLEs, the answer a DOUBLE (GREATEST(1, 2.5, '3') is 3), a string there that is no
    number given to `warn` (1292, `values.number_warning`). (DECIMAL arguments take
    engine.exact's mysql_dec_greatest.)"""
    def pick(*args: Any) -> Any:
        if not args or any(a is None for a in args):
            return None
        if all(isinstance(a, str) for a in args):
            best = args[0]
            for a in args[1:]:
                order = collation.compare(a, best)
                if order > 0 if greater else order < 0:
                    best = a
            return best
        if all(isinstance(a, bytes) for a in args) or all(type(a) is int for a in args):
            return max(args) if greater else min(args)
        if warn is not None:
            for a in args:
                if type(a) is str and (warning := values.number_warning(a, "DOUBLE")) is not None:
                    warn(warning)
        numbers = [float(_num(a)) for a in args]
        return max(numbers) if greater else min(numbers)
    return pick


def double_text(value: Any) -> Any:
    """A DOUBLE as MariaDB writes it as a string (CAST(x AS CHAR)); any other value as it is."""
    return format_double(value) if isinstance(value, float) else value


def mysql_check(value: Any, name: str, schema: str, table: str) -> int:
    """A CHECK constraint's condition on a written row (the table's SQLite CHECK calls it): true
    or NULL passes; false fails the write with MariaDB's 4025, naming the constraint."""
    if value is None or _num(value) != 0:
        return 1
    raise_sql(SQLError(ER_CONSTRAINT_FAILED, name, schema, table))
    return 0


def one_row(rows: int) -> int:
    """The guard of a scalar subquery (`engine.exact`): the rows it would return, counted up to
    2; more than one fails the statement with 1242, as MySQL's."""
    if rows > 1:
        raise_sql(SQLError(ER_SUBQUERY_NO_1_ROW))
    return 1


def nonzero(value: Any) -> Any:
    """A divisor in a write: 0 fails the statement with 1365, as strict mode's
    ERROR_FOR_DIVISION_BY_ZERO fails MariaDB's INSERT, UPDATE and DELETE (elsewhere x / 0 is NULL)."""
    if value is not None and _num(value) == 0:
        raise_sql(SQLError(ER_DIVISION_BY_ZERO))
    return value


def _num(value: Any) -> float:
    """A function argument as a number, as MySQL converts it: a string's leading number, else 0
    (MySQL adds a truncation warning)."""
    if isinstance(value, (int, float)):
        return value
    m = values.NUMBER_PREFIX.match(_to_str(value))
    return float(m.group()) if m else 0.0


def _int(value: Any) -> int:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)  # a BIGINT UNSIGNED or BIT's digits: exact past a double's 2^53
    number = _num(value)
    if math.isnan(number):
        return 0
    if math.isinf(number):
        return (1 << 63) - 1 if number > 0 else -(1 << 63)
    return int(number)


def _to_bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else _to_str(v).encode("utf-8", "surrogateescape")


_UINT64 = (1 << 64) - 1
_WIDE = Context(prec=200)


def _unsigned(value: Any) -> int:
    """A bit operator's operand: MySQL's 64-bit unsigned integer (a negative number as its two's
    complement, a fraction rounded half away from zero)."""
    if isinstance(value, int):
        return value & _UINT64
    if isinstance(value, float) or not isinstance(value, str | bytes):
        number = _num(value)
    else:
        text = _to_str(value).strip()
        number = int(text) if text.lstrip("-").isdigit() else _num(text)
    if isinstance(number, float):
        if math.isnan(number):
            return 0
        number = int(math.copysign(math.floor(abs(number) + 0.5), number)) if abs(number) < 2 ** 64 else (
            _UINT64 if number > 0 else 0)
    return number & _UINT64


def _as_sqlite(n: int) -> int | str:
    return n if n < 1 << 63 else str(n)  # above SQLite's integers: its digits (as BIGINT UNSIGNED)


def out_of_range(what: str, printed: str) -> None:
    """Fail the statement with 1690: `printed` is the expression as MariaDB prints it, its
    literals marked (`exact.LITERAL_MARK`) until the statement's texts replace them
    (`errors.with_literal_texts`)."""
    raise_sql(SQLError(ER_DATA_OUT_OF_RANGE, what, printed))


_INT_RANGES = {"s": ("BIGINT", -(1 << 63), (1 << 63) - 1), "u": ("BIGINT UNSIGNED", 0, _UINT64)}


def _int_kind(value: Any, kind: str) -> str:
    """An operand's integer kind, 's' (BIGINT) or 'u' (BIGINT UNSIGNED), or '' for a number of
    another kind. `kind` is what the translation knew: 's' or 'u', or 'l' for a literal, whose
    value decides (an integer is a BIGINT, digits past 2^63 a BIGINT UNSIGNED, past 2^64 a
    DECIMAL)."""
    if type(value) is int:
        return "s" if kind == "l" else kind
    if isinstance(value, str) and value.lstrip("-").isdigit() and kind in "lu":
        n = int(value)  # (a literal past BIGINT, negated or not, is its digits)
        return "u" if 0 <= n <= _UINT64 else "s" if -(1 << 63) <= n < 0 else ""
    return ""


def _checked(op: Callable[[int, int], int], exact: str) -> Callable[..., Any]:
    """MySQL's integer `op` on BIGINT and BIGINT UNSIGNED operands: 1690 out of the result's
    range (BIGINT UNSIGNED if an operand is one), where SQLite would turn to a REAL and the
    exact functions to digits past 64 bits. `kinds` is each operand's kind (`_int_kind`) and what
    any other number computes as: 'd' exactly (`exact`, a `decimal_math` function), 'f' as SQLite's
    double; 1690 for a double beyond DOUBLE."""
    inexact = decimal_math.FUNCTIONS[exact]

    def fn(a: Any, b: Any, kinds: str, printed: str) -> Any:
        if a is None or b is None:
            return None
        ka, kb = _int_kind(a, kinds[0]), _int_kind(b, kinds[1])
        if ka and kb:
            n = op(int(a), int(b))
            what, low, high = _INT_RANGES["u" if "u" in (ka, kb) else "s"]
            if not low <= n <= high:
                out_of_range(what, printed)
            return _as_sqlite(n)
        if kinds[2] == "f":
            value: Any = op(_num(a), _num(b))  # type: ignore[arg-type]
            if isinstance(value, float) and math.isinf(value):
                out_of_range("DOUBLE", printed)
            return value
        value = inexact(a, b)
        if (isinstance(a, float) or isinstance(b, float)) and value is not None and abs(
                float(value)) > sys.float_info.max:  # (a literal with an exponent: a DOUBLE)
            out_of_range("DOUBLE", printed)
        return value
    return fn


def _checked_neg(a: Any, printed: str) -> Any:
    """-a of a BIGINT: 1690 for -(-2^63)."""
    if a is None:
        return None
    if type(a) is int:
        if a == -(1 << 63):
            out_of_range("BIGINT", printed)
        return -a
    return -_num(a)


def _case(convert):
    """UPPER/LOWER over all of Unicode (SQLite's own convert ASCII only), one character to one
    as MySQL's collations map them ('ß' stays 'ß'); a binary string is left as it is."""
    def fn(value: Any) -> Any:
        if value is None or isinstance(value, bytes):
            return value
        text = _to_str(value)
        if text.isascii():
            return convert(text)
        return "".join(c if len(m := convert(c)) != 1 else m for c in text)
    return fn


_EN_US = locales.number_format("en_US")


def mysql_format(value: Any, places: Any, locale: Any = None) -> str | None:
    """FORMAT(X, D[, locale]): X rounded half up to D decimals (exactly, for a DECIMAL's text),
    written with the locale's decimal point and thousands grouping (`engine.locales`; en_US's
    without one, or for a name MariaDB has not: `format_locale` warns of it)."""
    if value is None or places is None:
        return None
    number = Decimal(repr(value)) if isinstance(value, float) else _decimal_of(value)
    digits = min(max(_int(places), 0), 38)
    rounded = number.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_WIDE)
    point, separator, grouping = (locale is not None and locales.number_format(_to_str(locale))) or _EN_US
    text = f"{rounded if rounded else rounded.copy_abs():.{digits}f}"  # (-0.4 is '0', as MySQL's)
    sign, text = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, _, fraction = text.partition(".")
    if grouping:
        groups, size = [], grouping[0]
        while len(whole) > size:
            whole, group = whole[:-size], whole[-size:]
            groups.append(group)
            size = grouping[-1]
        whole = separator.join([whole, *reversed(groups)])
    return sign + whole + (point + fraction if fraction else "")


def format_locale(warn: Callable[[tuple[str, int, str]], None]) -> Callable[..., str | None]:
    """FORMAT as the statement runs it: a locale MariaDB has not is warned of (1649), once a call."""
    def fn(value: Any, places: Any, *locale: Any) -> str | None:
        if not locale:
            return mysql_format(value, places)
        locale = locale[0]
        if locale is None or locales.number_format(_to_str(locale)) is None:  # (NULL named 'NULL')
            warn(("Warning", ER_UNKNOWN_LOCALE.code, ER_UNKNOWN_LOCALE.format("NULL" if locale is None else _to_str(locale))))
        return mysql_format(value, places, locale)
    return fn


def _decimal_of(value: Any) -> Decimal:
    m = values.NUMBER_PREFIX.match(_to_str(value))
    try:
        return Decimal(m.group().strip()) if m else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def distinct_key(compared: str, *row: Any) -> str | None:
    """COUNT(DISTINCT e1, e2 ...)'s one value for SQLite's one-argument DISTINCT: None when any
    value is NULL (MySQL leaves such a row out), else a text equal for two rows exactly when
    MySQL finds them the same. `compared` has a letter per value: "c" for one compared under
    utf8mb4_general_ci (its weights: 'a' and 'A ' are one value), "b" for one compared by its
    bytes (a _bin or binary string)."""
    if None in row:
        return None
    return repr(tuple(collation.key(v) if how == "c" and isinstance(v, str) else v
                      for how, v in zip(compared, row, strict=True)))


def bit_xor(a: Any, b: Any) -> int | str | None:
    return None if a is None or b is None else _as_sqlite(_unsigned(a) ^ _unsigned(b))


def bit_and(a: Any, b: Any) -> int | str | None:
    return None if a is None or b is None else _as_sqlite(_unsigned(a) & _unsigned(b))


def bit_or(a: Any, b: Any) -> int | str | None:
    return None if a is None or b is None else _as_sqlite(_unsigned(a) | _unsigned(b))


def bit_shl(a: Any, b: Any) -> int | str | None:
    """x << n over 64 bits unsigned, n read as MySQL's 32-bit unsigned shift count (its low 32
    bits: 2^63 + 1 is 1, -1 is 4294967295); a shift of 64 or more is 0."""
    if a is None or b is None:
        return None
    n = _unsigned(b) & 0xFFFFFFFF
    return _as_sqlite(_unsigned(a) << n & _UINT64 if n < 64 else 0)


def bit_shr(a: Any, b: Any) -> int | str | None:
    if a is None or b is None:
        return None
    n = _unsigned(b) & 0xFFFFFFFF
    return _as_sqlite(_unsigned(a) >> n if n < 64 else 0)


def hex_number(value: Any) -> str | None:
    """HEX() of a number held as text (a DECIMAL, a BIGINT UNSIGNED or BIT's digits): its 64-bit
    value's hex digits, as `mysql_hex` gives an integer's; past 2^64 the largest (MariaDB's
    conversion saturates)."""
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit() and int(value) > _UINT64:
        return format(_UINT64, "X")
    return format(_unsigned(value), "X")


def bit_not(a: Any) -> int | str | None:
    return None if a is None else _as_sqlite(~_unsigned(a) & _UINT64)


def concat(*args: Any) -> str | bytes | None:
    """MySQL's CONCAT: NULL if any argument is; a binary string if any argument is one (its
    bytes need not be UTF-8, so they are never joined as text)."""
    if any(a is None for a in args):
        return None
    if any(isinstance(a, bytes) for a in args):
        return b"".join(_to_bytes(a) for a in args)
    return "".join(_to_str(a) for a in args)


def concat_ws(sep: Any, *args: Any) -> str | bytes | None:
    if sep is None:
        return None
    parts = [a for a in args if a is not None]
    if isinstance(sep, bytes) or any(isinstance(a, bytes) for a in parts):
        return _to_bytes(sep).join(_to_bytes(a) for a in parts)
    return _to_str(sep).join(_to_str(a) for a in parts)


def _dt(value: Any) -> datetime | None:
    """A DATE / DATETIME argument in any form MariaDB reads (`values.date_parts`: '2024-1-5',
    20240105, '2024-01-05T10:11:12' ...); None for NULL, a value that is not one, or a zero date
    or part (which Python's datetime cannot hold)."""
    if value is None:
        return None
    found = values.date_parts(value)
    if found is None:
        return None
    (year, month, day, hour, minute, second), frac = found
    try:
        return datetime(year, month, day, hour, minute, second, int((frac + "000000")[:6]), tzinfo=UTC)
    except ValueError:
        return None


def _datetime_text(dt: datetime) -> str:
    """A DATETIME value's text: its microseconds only when it has some."""
    return dt.strftime("%Y-%m-%d %H:%M:%S.%f" if dt.microsecond else "%Y-%m-%d %H:%M:%S")


def _date_only(value: Any) -> bool:
    """Whether a date argument has no time of day: '2024-1-5', 20240105 (its result is a date)."""
    text = _to_str(value).strip()
    return ":" not in text and not re.search(r"[ T]\d", text) and (not text.isdigit() or len(text) <= 8)


def _clock(value: Any) -> tuple[int, int, int, int] | None:
    """HOUR/MINUTE/SECOND/MICROSECOND's argument as a TIME ('10:11:12', '838:59:59', 101112, a
    DATETIME's time of day): (hours, minutes, seconds, microseconds), signless; None if none."""
    if value is None:
        return None
    text = values.temporal_text(value, "time", 6)
    if text is None:
        dt = _dt(value)
        return None if dt is None else (dt.hour, dt.minute, dt.second, dt.microsecond)
    whole, _, frac = text.lstrip("-").partition(".")
    h, m, sec = (int(p) for p in whole.split(":"))
    return h, m, sec, int(frac or 0)


_TIMESTAMP_END = 1 << 31  # TIMESTAMP's range ends before 2038-01-19 03:14:08 UTC


def unix_timestamp(*args: Any) -> int | float | None:
    """UNIX_TIMESTAMP(): now; UNIX_TIMESTAMP(x): x's seconds since the epoch with its
    microseconds (a float where it has some: the result column's DECIMAL scale, typed from the
    argument, shows them), NULL for NULL and outside TIMESTAMP's range."""
    if not args:
        return int(time.time())
    dt = _dt(args[0])
    if dt is None or not 0 <= dt.timestamp() < _TIMESTAMP_END:
        return None
    seconds = int(dt.timestamp())
    return seconds + dt.microsecond / 1e6 if dt.microsecond else seconds


def _exact_number(value: Any) -> Decimal:
    """A numeric argument as MariaDB reads it, exactly: a float by its shortest text (the
    literal 1700000000.123456 keeps its six digits), a string by its leading number."""
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value)) if math.isfinite(value) else Decimal(0)
    found = values.NUMBER_PREFIX.match(_to_str(value))
    try:
        return Decimal(found.group()) if found else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def from_unixtime(value: Any, fmt: Any = None) -> str | None:
    """FROM_UNIXTIME(n[, format]): n's time to the microsecond (digits past six truncated); NULL
    for NULL and outside TIMESTAMP's range."""
    if value is None:
        return None
    number = _exact_number(value)
    if not 0 <= number < _TIMESTAMP_END:
        return None
    seconds = int(number)
    try:
        dt = datetime.fromtimestamp(seconds, tz=UTC).replace(microsecond=int((number - seconds) * 1_000_000))
    except (OverflowError, ValueError, OSError):
        return None  # out of the DATETIME range: NULL, as MySQL
    return date_format(_datetime_text(dt), fmt) if fmt else _datetime_text(dt)


_DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")
_WEEK_MONDAY_FIRST, _WEEK_YEAR, _WEEK_FIRST_WEEKDAY = 1, 2, 4


def _calc_week(d, behaviour: int) -> tuple[int, int]:
    """MySQL's calc_week (sql_time.cc): (week, year of the week) of date `d` under a week
    behaviour (Monday first, a week of the year before / after counted, the first week the one
    with the first weekday rather than with 4 days of the year)."""
    monday_first = behaviour & _WEEK_MONDAY_FIRST
    week_year = behaviour & _WEEK_YEAR
    first_weekday = behaviour & _WEEK_FIRST_WEEKDAY
    jan1 = d.replace(month=1, day=1)
    weekday = jan1.weekday() if monday_first else (jan1.weekday() + 1) % 7
    year = d.year
    first = jan1.toordinal()
    if d.month == 1 and d.day <= 7 - weekday:
        if not week_year and ((first_weekday and weekday != 0) or (not first_weekday and weekday >= 4)):
            return 0, year
        week_year = 1
        year -= 1
        days = 366 if calendar.isleap(year) else 365
        first -= days
        weekday = (weekday + 53 * 7 - days) % 7
    if (first_weekday and weekday != 0) or (not first_weekday and weekday >= 4):
        days = d.toordinal() - (first + 7 - weekday)
    else:
        days = d.toordinal() - (first - weekday)
    if week_year and days >= 52 * 7:
        weekday = (weekday + (366 if calendar.isleap(year) else 365)) % 7
        if (not first_weekday and weekday < 4) or (first_weekday and weekday == 0):
            return 1, year + 1
    return days // 7 + 1, year


def _week_behaviour(mode: int) -> int:
    """WEEK()'s mode as calc_week's behaviour (MySQL's week_mode)."""
    behaviour = mode & 7
    if not behaviour & _WEEK_MONDAY_FIRST:
        behaviour ^= _WEEK_FIRST_WEEKDAY
    return behaviour


def _format_part(dt: datetime, spec: str) -> str:
    hour12 = (dt.hour + 11) % 12 + 1
    parts = {
        "a": _DAY_NAMES[dt.weekday()][:3], "b": _MONTH_NAMES[dt.month - 1][:3], "c": str(dt.month),
        "d": f"{dt.day:02d}", "e": str(dt.day), "f": f"{dt.microsecond:06d}", "H": f"{dt.hour:02d}",
        "h": f"{hour12:02d}", "I": f"{hour12:02d}", "i": f"{dt.minute:02d}", "j": f"{dt.timetuple().tm_yday:03d}",
        "k": str(dt.hour), "l": str(hour12), "M": _MONTH_NAMES[dt.month - 1], "m": f"{dt.month:02d}",
        "p": "AM" if dt.hour < 12 else "PM", "S": f"{dt.second:02d}", "s": f"{dt.second:02d}",
        "r": f"{hour12:02d}:{dt.minute:02d}:{dt.second:02d} {'AM' if dt.hour < 12 else 'PM'}",
        "T": f"{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}", "W": _DAY_NAMES[dt.weekday()],
        "w": str((dt.weekday() + 1) % 7), "Y": f"{dt.year:04d}", "y": f"{dt.year % 100:02d}",
    }
    if spec in parts:
        return parts[spec]
    if spec == "D":
        suffix = "th" if 11 <= dt.day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(dt.day % 10, "th")
        return f"{dt.day}{suffix}"
    weeks = {"U": _WEEK_FIRST_WEEKDAY, "u": _WEEK_MONDAY_FIRST, "V": _WEEK_YEAR | _WEEK_FIRST_WEEKDAY,
             "v": _WEEK_MONDAY_FIRST | _WEEK_YEAR}
    if spec in weeks:
        return f"{_calc_week(dt.date(), weeks[spec])[0]:02d}"
    if spec in ("X", "x"):
        behaviour = _WEEK_YEAR | (_WEEK_FIRST_WEEKDAY if spec == "X" else _WEEK_MONDAY_FIRST)
        return f"{_calc_week(dt.date(), behaviour)[1]:04d}"
    return spec  # %% is %, %z is z, as MySQL's


def date_format(value: Any, fmt: Any) -> str | None:
    """DATE_FORMAT with every one of MySQL's specifiers."""
    dt = _dt(value)
    if dt is None or fmt is None:
        return None
    return re.sub(r"%(.)", lambda m: _format_part(dt, m.group(1)), _to_str(fmt), flags=re.S)


_UNIT_SECONDS = {"MICROSECOND": 1e-6, "SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}


def date_add(value: Any, n: Any, unit: str, sign: int, operand: int = 0) -> str | None:
    """MySQL's date arithmetic: DATE_ADD/DATE_SUB and `d +/- INTERVAL n unit` (NULL out of range).
    A DATETIME's text has its microseconds where it has some; of a string (MariaDB's CHAR
    result; `operand` 1: a literal, 2: a character column) exactly the fraction digits of the
    literal (those written; a column's 6) or of the interval, whichever are more (`exprtypes`
    types it so)."""
    try:
        text = _date_add(value, n, unit, sign)
    except (OverflowError, ValueError):
        return None
    if not operand or text is None or len(text) == 10 or type(value) is not str:
        return text
    found = re.search(r"\.(\d+)\s*$", value) if operand == 1 else None
    written = 6 if operand == 2 else min(len(found.group(1)), 6) if found else 0
    digits = max(written, _interval_digits(n, unit))
    whole, _, frac = text.partition(".")
    return f"{whole}.{(frac + '000000')[:digits]}" if digits else whole


def _interval_digits(n: Any, unit: str) -> int:
    """The fraction digits an INTERVAL gives a string's date arithmetic: 6 with a MICROSECOND
    unit; a SECOND's number its own (a float's shortest text's), a string's 6."""
    if "MICROSECOND" in unit:
        return 6
    if unit != "SECOND" or isinstance(n, int):
        return 0
    if isinstance(n, float):
        return min(len(repr(n).partition(".")[2]), 6) if "e" not in repr(n) else 6
    return 6


# a compound INTERVAL unit: the simple units of its parts, in the order its value writes them
_COMPOUND_UNITS = {
    "YEAR_MONTH": ("YEAR", "MONTH"), "DAY_HOUR": ("DAY", "HOUR"), "DAY_MINUTE": ("DAY", "HOUR", "MINUTE"),
    "DAY_SECOND": ("DAY", "HOUR", "MINUTE", "SECOND"), "HOUR_MINUTE": ("HOUR", "MINUTE"),
    "HOUR_SECOND": ("HOUR", "MINUTE", "SECOND"), "MINUTE_SECOND": ("MINUTE", "SECOND"),
    "DAY_MICROSECOND": ("DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "HOUR_MICROSECOND": ("HOUR", "MINUTE", "SECOND", "MICROSECOND"),
    "MINUTE_MICROSECOND": ("MINUTE", "SECOND", "MICROSECOND"), "SECOND_MICROSECOND": ("SECOND", "MICROSECOND"),
}


def _compound_interval(n: Any, unit: str) -> tuple[int, float] | None:
    """A compound unit's value ('1:30' HOUR_MINUTE, '1-2' YEAR_MONTH, '-1 10' DAY_HOUR) as MySQL
    reads it (get_interval_value): its integers, any other characters between them; fewer than
    the unit's parts fill its last ones; a microsecond part of fewer than 6 digits is a fraction
    ('1.5' SECOND_MICROSECOND is 1.5 s). (months, seconds), signed; None when it has no number."""
    parts = _COMPOUND_UNITS[unit]
    text = _to_str(n).strip()
    negative = text.startswith("-")
    found = re.findall(r"\d+", text)[:len(parts)]
    if not found:
        return None
    numbers = [0] * (len(parts) - len(found)) + [int(d) for d in found]
    if parts[-1] == "MICROSECOND" and len(found) == len(parts) and len(found[-1]) < 6:
        numbers[-1] *= 10 ** (6 - len(found[-1]))
    months = sum(v * {"YEAR": 12, "MONTH": 1}.get(p, 0) for p, v in zip(parts, numbers, strict=True))
    seconds = sum(v * _UNIT_SECONDS.get(p, 0) for p, v in zip(parts, numbers, strict=True) if p not in ("YEAR", "MONTH"))
    return (-months, -seconds) if negative else (months, seconds)


def _date_add(value: Any, n: Any, unit: str, sign: int) -> str | None:
    dt = _dt(value)
    if dt is None or n is None:
        return None
    date_only = _date_only(value)
    if unit in _COMPOUND_UNITS:
        compound = _compound_interval(n, unit)
        if compound is None:
            return None
        months, seconds = compound[0] * sign, compound[1] * sign
        dt = _add_months(dt, months) if months else dt + timedelta(seconds=seconds)
        date_only = date_only and unit == "YEAR_MONTH"  # (a time unit makes a DATETIME of a DATE)
        return dt.strftime("%Y-%m-%d") if date_only else _datetime_text(dt)
    amount = _num(n) * sign
    if unit in ("MONTH", "QUARTER", "YEAR"):
        dt = _add_months(dt, int(amount) * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])
    else:
        dt = dt + timedelta(seconds=amount * _UNIT_SECONDS[unit])
        date_only = date_only and unit in ("DAY", "WEEK")
    if date_only:
        return dt.strftime("%Y-%m-%d")
    return _datetime_text(dt)


def _add_months(dt: datetime, months: int) -> datetime:
    """`dt` that many months later (earlier), its day cut to the month's last, as MySQL's."""
    year, month = divmod(dt.year * 12 + dt.month - 1 + months, 12)
    return dt.replace(year=year, month=month + 1, day=min(dt.day, calendar.monthrange(year, month + 1)[1]))


def _part(index: int):
    def get(value: Any) -> int | None:
        if 3 <= index <= 5:  # HOUR, MINUTE, SECOND: of a TIME as well
            clock = _clock(value)
            return None if clock is None else clock[index - 3]
        dt = _dt(value)
        return None if dt is None else dt.timetuple()[index]
    return get


def quarter(value: Any) -> int | None:
    month = _part(1)(value)
    return None if month is None else (month + 2) // 3


def time_format(value: Any, fmt: Any) -> str | None:
    """TIME_FORMAT: DATE_FORMAT's hour, minute, second and microsecond specifiers over a TIME
    (hours past 23 as they are), a negative time's text led by its sign; any other specifier
    makes it NULL, as MariaDB's."""
    clock = _clock(value)
    if clock is None or fmt is None:
        return None
    h, m, s, us = clock
    twelve = h % 12 or 12
    parts = {"H": f"{h:02d}", "k": str(h), "h": f"{twelve:02d}", "I": f"{twelve:02d}", "l": str(twelve),
             "i": f"{m:02d}", "s": f"{s:02d}", "S": f"{s:02d}", "f": f"{us:06d}",
             "p": "AM" if h % 24 < 12 else "PM", "T": f"{h:02d}:{m:02d}:{s:02d}",
             "r": f"{twelve:02d}:{m:02d}:{s:02d} {'AM' if h % 24 < 12 else 'PM'}", "%": "%"}
    out, text, k = [], _to_str(fmt), 0
    while k < len(text):
        if text[k] == "%" and k + 1 < len(text):
            part = parts.get(text[k + 1])
            if part is None:
                return None
            out.append(part)
            k += 2
        else:
            out.append(text[k])
            k += 1
    return ("-" if _to_str(value).lstrip().startswith("-") else "") + "".join(out)


def inet_aton(value: Any) -> int | None:
    """INET_ATON: a dotted IPv4 address as its number ('127.1' is 127.0.0.1, as MySQL reads it)."""
    if value is None:
        return None
    parts = _to_str(value).split(".")
    if not 1 <= len(parts) <= 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
        return None
    numbers = [int(p) for p in parts]
    numbers[-1:] = [0] * (4 - len(numbers)) + numbers[-1:]
    return int.from_bytes(bytes(numbers), "big")


def inet_ntoa(value: Any) -> str | None:
    """INET_NTOA: a number as its dotted IPv4 address (NULL beyond 32 bits)."""
    if value is None:
        return None
    n = _int(value)
    if not 0 <= n < 1 << 32:
        return None
    return ".".join(str(b) for b in n.to_bytes(4, "big"))


def time_to_sec(value: Any) -> int | float | None:
    """TIME_TO_SEC: a time's signed seconds, with its microseconds where it has some (the
    result's DECIMAL scale is the argument's fraction digits)."""
    seconds = _seconds(value)
    if seconds is None:
        return None
    return int(seconds) if seconds == int(seconds) else round(seconds, 6)


def sec_to_time(value: Any) -> str | None:
    """SEC_TO_TIME: '[-]HH:MM:SS[.ffffff]' (digits past six truncated), clipped to TIME's
    range as MySQL's (the result's fraction digits, the argument's, cut the clip's)."""
    if value is None:
        return None
    number = _exact_number(value)
    micros = min(int(abs(number) * 1_000_000), (values.TIME_MAX_HOURS * 3600 + 3599) * 10**6 + 999999)
    whole, frac = divmod(micros, 10**6)
    text = f"{'-' if number < 0 else ''}{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return text + (f".{frac:06d}" if frac else "")


def _seconds(value: Any) -> float | None:
    """A TIME (or a DATETIME's time of day) as signed seconds, fraction included."""
    clock = _clock(value)
    if clock is None:
        return None
    total = clock[0] * 3600 + clock[1] * 60 + clock[2] + clock[3] / 1e6
    return -total if _to_str(value).lstrip().startswith("-") else total


def _time_text(seconds: float) -> str:
    """Signed seconds as TIME's text ('[-]HH:MM:SS[.ffffff]'), clipped to its range."""
    sign = "-" if seconds < 0 else ""
    micros = min(round(abs(seconds) * 1e6), (values.TIME_MAX_HOURS * 3600 + 3599) * 10**6 + 999999)
    whole, frac = divmod(micros, 10**6)
    text = f"{sign}{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}"
    return text + (f".{frac:06d}" if frac else "")


def timediff(a: Any, b: Any) -> str | None:
    """TIMEDIFF of two times or two datetimes (NULL for one of each, as MySQL's)."""
    if a is None or b is None:
        return None
    da, db = _dt(a), _dt(b)
    if (da is None) != (db is None):
        return None
    if da is not None and db is not None:
        return _time_text((da - db).total_seconds())
    sa, sb = _seconds(a), _seconds(b)
    return None if sa is None or sb is None else _time_text(sa - sb)


def addtime(value: Any, delta: Any, sign: int) -> str | None:
    """ADDTIME / SUBTIME: a datetime plus a time (a datetime), or a time plus a time."""
    if value is None or delta is None:
        return None
    seconds = _seconds(delta)
    if seconds is None:
        return None
    dt = _dt(value)
    if dt is not None and not _date_only(value):
        out = dt + timedelta(seconds=sign * seconds)
        return _datetime_text(out)
    base = _seconds(value)
    return None if base is None else _time_text(base + sign * seconds)


def timestamp(value: Any, delta: Any = None) -> str | None:
    """TIMESTAMP(x): x as a DATETIME; TIMESTAMP(x, t): that plus the time t."""
    dt = _dt(value)
    if dt is None:
        return None
    if delta is None:
        return _datetime_text(dt)
    seconds = _seconds(delta)
    return None if seconds is None else _datetime_text(dt + timedelta(microseconds=round(seconds * 1e6)))


def makedate(year: Any, day: Any) -> str | None:
    if year is None or day is None or _int(day) <= 0:
        return None
    y = _int(year)
    y = y + 2000 if 0 <= y < 70 else y + 1900 if 70 <= y < 100 else y
    try:
        return (datetime(y, 1, 1) + timedelta(days=_int(day) - 1)).strftime("%Y-%m-%d")
    except (OverflowError, ValueError):
        return None


def _period_months(period: int) -> int:
    year, month = divmod(period, 100)
    year = year + 2000 if year < 70 else year + 1900 if year < 100 else year
    return year * 12 + month - 1


def period_add(period: Any, months: Any) -> int | None:
    if period is None or months is None:
        return None
    if _int(period) == 0:
        return 0
    year, month = divmod(_period_months(_int(period)) + _int(months), 12)
    return year * 100 + month + 1


def substring(value: Any, pos: Any, length: Any = None) -> Any:
    """SUBSTRING / SUBSTR / MID as MySQL's: position 0 or beyond either end gives '', a length
    of 0 or less gives '' (SQLite's substr() reads 0 as 1 and counts a negative length back)."""
    if value is None or pos is None:
        return None
    text = value if isinstance(value, bytes) else _to_str(value)
    p = _int(pos)
    start = p - 1 if p > 0 else len(text) + p
    if p == 0 or not 0 <= start <= len(text):
        return text[:0]
    if length is None:
        return text[start:]
    n = _int(length)
    return text[start:start + n] if n > 0 else text[:0]


def convert_tz(value: Any, source: Any, target: Any) -> str | None:
    """CONVERT_TZ between '+HH:MM' offsets; a named zone is NULL (no time zone tables here, as a
    MariaDB without them)."""
    dt = _dt(value)
    offsets = [_tz_offset(_to_str(z)) if z is not None else None for z in (source, target)]
    if dt is None or None in offsets:
        return None
    out = dt + timedelta(minutes=offsets[1] - offsets[0])  # type: ignore[operator]
    return _datetime_text(out)


def _tz_offset(zone: str) -> int | None:
    m = re.fullmatch(r"\s*([+-])(\d{1,2}):(\d{2})\s*", zone)
    if m is None:
        return None
    minutes = int(m.group(2)) * 60 + int(m.group(3))
    return -minutes if m.group(1) == "-" else minutes


def mysql_trim(value: Any, remove: Any, mode: str) -> str | None:
    """TRIM(mode remove FROM value): whole occurrences of `remove` taken off the start (LEADING),
    the end (TRAILING) or both, as MySQL's."""
    if value is None or remove is None:
        return None
    text, cut = _to_str(value), _to_str(remove)
    if cut:
        if mode != "TRAILING":
            while text.startswith(cut):
                text = text[len(cut):]
        if mode != "LEADING":
            while text.endswith(cut):
                text = text[:-len(cut)]
    return text


def mysql_quote(value: Any) -> str:
    """QUOTE: a string literal MySQL reads back (\\, ', NUL and ^Z escaped); NULL as the word."""
    if value is None:
        return "NULL"
    text = _to_str(value)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0").replace("\x1a", "\\Z") + "'"


def left(s: Any, n: Any) -> str | None:
    return None if s is None or n is None else _to_str(s)[: max(_int(n), 0)]


def right(s: Any, n: Any) -> str | None:
    if s is None or n is None:
        return None
    n = _int(n)
    return _to_str(s)[-n:] if n > 0 else ""


def _pad(s: Any, n: Any, pad: Any, on_left: bool) -> str | None:
    if s is None or n is None or pad is None:
        return None
    s, n, pad = _to_str(s), _int(n), _to_str(pad)
    if len(s) >= n:
        return s[:max(n, 0)]
    if n > MAX_RESULT_CHARS:
        return None  # longer than any packet could carry: NULL, as MySQL (with a warning)
    if not pad:
        return None
    fill = (pad * n)[: n - len(s)]
    return fill + s if on_left else s + fill


MAX_RESULT_CHARS = 1 << 26  # a longer string result is NULL (MySQL: beyond max_allowed_packet)


def repeat(s: Any, n: Any) -> str | None:
    if s is None or n is None:
        return None
    text, count = _to_str(s), max(_int(n), 0)
    return None if len(text) * count > MAX_RESULT_CHARS else text * count


def mysql_uuid(rand: RandState) -> str:
    """UUID(): a version-1 layout whose 122 free bits come from the session's RAND() generator,
    so that a slave replaying the statement with the binlogged RAND seeds gets the same values
    (MySQL's time-and-MAC UUID() is unsafe for statement-based replication)."""
    bits = 0
    for _ in range(5):  # 5 draws x 30 bits
        bits = (bits << 30) | int(rand.next() * MAX_RAND)
    value = uuid.UUID(int=bits & ((1 << 128) - 1))
    return str(uuid.UUID(fields=(value.time_low, value.time_mid, (value.time_hi_version & 0x0FFF) | 0x1000,
                                 (value.clock_seq_hi_variant & 0x3F) | 0x80, value.clock_seq_low, value.node)))


def _hash(algo: str):
    def digest(value: Any) -> str | None:
        if value is None:
            return None
        data = value if isinstance(value, bytes) else _to_str(value).encode()
        return hashlib.new(algo, data).hexdigest()
    return digest


def sha2(value: Any, bits: Any) -> str | None:
    if value is None or bits is None:
        return None
    algo = {0: "sha256", 224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}.get(_int(bits))
    return _hash(algo)(value) if algo else None


def octet_length(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return len(value)
    return len(_to_str(value).encode("utf-8", "surrogateescape"))


def mysql_locate(sub: Any, s: Any, pos: Any = 1) -> int | None:
    if sub is None or s is None:
        return None
    start = max(_int(pos) - 1, 0)
    return _to_str(s).lower().find(_to_str(sub).lower(), start) + 1


def substring_index(s: Any, delim: Any, count: Any) -> str | None:
    if s is None or delim is None or count is None:
        return None
    s, delim, count = _to_str(s), _to_str(delim), _int(count)
    if count == 0 or not delim:
        return ""
    parts = s.split(delim)
    return delim.join(parts[:count]) if count > 0 else delim.join(parts[count:])


def truncate(x: Any, d: Any) -> float | int | None:
    if x is None or d is None:
        return None
    d = _int(d)
    factor = 10 ** d
    value = int(_num(x) * factor) / factor
    return int(value) if d <= 0 else value


_INT_PREFIX = re.compile(r"\s*([-+]?)(\d+)")
_TEMPORAL_DIGITS = re.compile(r"[^-\d]|(?<=\d)-")  # a date's or time's separators, not a TIME's sign
_U64 = 1 << 64


def cast_int(value: Any, kind: str, unsigned: int) -> int | str | None:
    """CAST(value AS SIGNED / UNSIGNED) as MariaDB's: `kind` is what the value is to MySQL
    ("dec": a DECIMAL, exact text included, rounded half away from zero; "lit": a literal, whose
    float is a DECIMAL literal; "double": rounded half to even; anything else by its Python type).
    ("temporal": a date or time's text, its digits: '2024-01-05' is 20240105, '-01:00:00' -10000).
    A string reads its leading integer ('1.7' is 1, 'x' 0), clipped to 64 bits unsigned; a
    number beyond the target's range is clipped; SIGNED takes an unsigned 64-bit value's bits
    (18446744073709551615 is -1), UNSIGNED a negative integer's (-1 is 18446744073709551615).
    An unsigned value above BIGINT's range is its digits (SQLite's integers are signed)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = _to_str(value)
    if kind == "temporal" and isinstance(value, str):
        n = int(_TEMPORAL_DIGITS.sub("", value.partition(".")[0]) or 0)
        n = max(n, 0) if unsigned else n  # (a negative TIME is UNSIGNED 0)
    elif isinstance(value, str) and kind != "dec":
        m = _INT_PREFIX.match(value)
        n = 0 if m is None else int(m.group(1) + m.group(2))
        n = max(n, -(1 << 63)) if n < 0 else min(n, _U64 - 1)
    elif isinstance(value, (str, Decimal)) or (isinstance(value, float) and kind in ("dec", "lit")):
        try:
            exact = Decimal(repr(value) if isinstance(value, float) else str(value).strip())
            n = int(exact.to_integral_value(rounding=ROUND_HALF_UP))
        except (InvalidOperation, ValueError):
            n = 0
        n = _clipped(n, unsigned)
    elif isinstance(value, float):
        if math.isnan(value):
            return 0
        n = _clipped(int(round(value)) if not math.isinf(value) else (_U64 if value > 0 else -_U64), unsigned)
    else:
        n = int(value)
    if unsigned:
        n %= _U64
        return n if n < 1 << 63 else str(n)
    return n - _U64 if n >= 1 << 63 else n


_TO_UNSIGNED = ("Note", ER_UNKNOWN_ERROR.code, "Cast to unsigned converted negative integer to it's positive complement")
_BIGINT_MIN_TEXT = str(-(1 << 63))


def _cast_kind(value: Any, kind: str) -> str:
    """The kind `cast_int` reads a literal as: a negated number literal past BIGINT ("negdigits")
    is an integer where it is -9223372036854775808 (BIGINT's least value to MariaDB: its literal,
    BIGINT UNSIGNED, negated), any other a DECIMAL. (A number literal past BIGINT UNSIGNED is
    kept as its digits, as a quoted string of them is: both read as the string, MariaDB's way
    for the string; its DECIMAL's clip and 1916 are not given.)"""
    if kind == "negdigits":
        return "lit" if value == _BIGINT_MIN_TEXT else "dec"
    return kind


def cast_int_note(value: Any, kind: str, unsigned: int) -> tuple[str, int, str] | None:
    """MariaDB's note or warning of CAST(value AS SIGNED / UNSIGNED) (`cast_int`'s `kind`), None
    for none: a string's integer past BIGINT's least value or BIGINT UNSIGNED's greatest is
    clipped, warning 1292; UNSIGNED of a negative integer (a string's leading one, '-0' too) is
    its complement (1105); a DECIMAL past the target's range is clipped, warning 1916 (a
    negative one AS UNSIGNED 0), a negative DOUBLE AS UNSIGNED 0 with note 1916. (SIGNED's note
    of a string's integer past BIGINT is not given: its digits here are an unsigned BIGINT's too.)"""
    if value is None or kind == "temporal" or isinstance(value, bool):
        return None
    if isinstance(value, bytes):
        value = _to_str(value)
    if isinstance(value, str) and kind != "dec":
        m = _INT_PREFIX.match(value)
        if m is None:
            return None
        if not -(1 << 63) <= int(m.group(1) + m.group(2)) < _U64:
            return ("Warning", ER_TRUNCATED_NUMBER.code, ER_TRUNCATED_NUMBER.format("INTEGER", value))
        return _TO_UNSIGNED if unsigned and m.group(1) == "-" else None
    if isinstance(value, int):
        return _TO_UNSIGNED if unsigned and value < 0 else None
    if isinstance(value, float) and kind not in ("dec", "lit"):
        return ("Note", ER_DATA_OVERFLOW.code, ER_DATA_OVERFLOW.format(format_double(value), "UNSIGNED BIGINT")) \
            if unsigned and value < 0 else None
    text = repr(value) if isinstance(value, float) else str(value).strip()
    try:
        exact = Decimal(text)
    except InvalidOperation:
        return None
    whole = int(exact.to_integral_value(rounding=ROUND_HALF_UP))  # (-0.4 is 0: unsaid)
    low, high = (0, _U64) if unsigned else (-(1 << 63), 1 << 63)
    # (a literal's float past BIGINT, a DECIMAL's or a DOUBLE's to MariaDB, is left unsaid)
    past = (unsigned and whole < 0) if isinstance(value, float) else not low <= whole < high
    return ("Warning", ER_DATA_OVERFLOW.code, ER_DATA_OVERFLOW.format(text, "UNSIGNED INT" if unsigned else "INT")) \
        if past else None


def _clipped(n: int, unsigned: int) -> int:
    """A number rounded to an integer, clipped to the CAST target's range."""
    return min(max(n, 0), _U64 - 1) if unsigned else min(max(n, -(1 << 63)), (1 << 63) - 1)


def regexp(pattern: Any, value: Any) -> int | None:
    if pattern is None or value is None:
        return None
    return 1 if re.search(_to_str(pattern), _to_str(value), re.I) else 0


def _integral(v: int) -> int | float:
    """FLOOR/CEIL's result: an integer where SQLite can hold it, else the DOUBLE it came from."""
    return v if -(2**63) <= v < 2**63 else float(v)


def mysql_mod(a: Any, b: Any) -> int | float | None:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return None if b == 0 else int(math.fmod(a, b))
    b = _num(b)
    return None if b == 0 else math.fmod(_num(a), b)


def strict_division(divide: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`divide(a, b)` in a write: b = 0 with a not NULL is 1365 (`nonzero`; NULL / 0 is NULL)."""
    def run(a: Any, b: Any) -> Any:
        if a is not None:
            nonzero(b)
        return divide(a, b)
    return run


def mysql_isnull(value: Any) -> int:
    return 1 if value is None else 0


_bytes = _to_bytes


def crc32(value: Any) -> int | None:
    return None if value is None else zlib.crc32(_bytes(value))


def mysql_hex(value: Any) -> str | None:
    """HEX(): a number as its (64-bit two's complement) hex digits, a string as its bytes'."""
    if value is None:
        return None
    if isinstance(value, float):
        value = int(round(value))
    if isinstance(value, int):
        return format(value & 0xFFFFFFFFFFFFFFFF, "X")
    return _bytes(value).hex().upper()


def unhex(value: Any) -> str | bytes | None:
    """UNHEX: the bytes, held as a binary string is (`values.binary_value`: so UNHEX('41') = 'A')."""
    if value is None:
        return None
    text = _to_str(value)
    if len(text) % 2:
        text = "0" + text
    try:
        return values.binary_value(bytes.fromhex(text))
    except ValueError:
        return None


def to_base64(value: Any) -> str | None:
    if value is None:
        return None
    text = base64.b64encode(_bytes(value)).decode()
    return "\n".join(text[i:i + 76] for i in range(0, len(text), 76))  # MySQL wraps at 76


def from_base64(value: Any) -> bytes | None:
    if value is None:
        return None
    try:
        return base64.b64decode(re.sub(r"\s", "", _to_str(value)), validate=True)
    except ValueError:
        return None


def find_in_set(needle: Any, haystack: Any) -> int | None:
    if needle is None or haystack is None:
        return None
    needle = _to_str(needle).lower()
    if "," in needle:
        return 0
    items = _to_str(haystack).lower().split(",") if _to_str(haystack) else []
    return items.index(needle) + 1 if needle in items else 0


def strcmp(a: Any, b: Any) -> int | None:
    """STRCMP: -1, 0, 1 by utf8mb4_general_ci (binary when either is a byte string)."""
    if a is None or b is None:
        return None
    if isinstance(a, bytes) or isinstance(b, bytes):
        x, y = (v if isinstance(v, bytes) else _to_str(v).encode() for v in (a, b))
        return (x > y) - (x < y)
    return collation.compare(_to_str(a), _to_str(b))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return _to_str(a).lower() == _to_str(b).lower()


def field(value: Any, *items: Any) -> int:
    if value is None:
        return 0
    for i, item in enumerate(items, 1):
        if item is not None and _same(value, item):
            return i
    return 0


def interval(n: Any, *bounds: Any) -> int:
    """INTERVAL(N, N1, N2, ...): how many of the bounds (ascending, as MySQL requires) come before
    the first one above N (0 when N < N1); -1 for a NULL N."""
    if n is None:
        return -1
    value = _num(n)
    for k, bound in enumerate(bounds):
        if bound is not None and _num(bound) > value:
            return k
    return len(bounds)


def elt(n: Any, *items: Any) -> Any:
    if n is None:
        return None
    n = _int(n)
    return items[n - 1] if 1 <= n <= len(items) else None


def mysql_insert(s: Any, pos: Any, length: Any, new: Any) -> str | None:
    if None in (s, pos, length, new):
        return None
    s, pos, length = _to_str(s), _int(pos), _int(length)
    if pos < 1 or pos > len(s):
        return s
    if length < 0 or pos - 1 + length > len(s):
        length = len(s) - pos + 1
    return s[:pos - 1] + _to_str(new) + s[pos - 1 + length:]


def _regex(pattern: Any) -> re.Pattern[str]:
    return re.compile(_to_str(pattern), re.I)  # the default collations compare case-insensitively


def regexp_replace(s: Any, pattern: Any, repl: Any) -> str | None:
    if None in (s, pattern, repl):
        return None
    repl_text = re.sub(r"\\(\d)", r"\\g<\1>", _to_str(repl).replace("\\\\", "\\\\\\\\"))
    return _regex(pattern).sub(repl_text, _to_str(s))


def regexp_substr(s: Any, pattern: Any) -> str | None:
    if s is None or pattern is None:
        return None
    m = _regex(pattern).search(_to_str(s))
    return m.group() if m else ""


def regexp_instr(s: Any, pattern: Any) -> int | None:
    if s is None or pattern is None:
        return None
    m = _regex(pattern).search(_to_str(s))
    return m.start() + 1 if m else 0


_DATE_PARSE = {"%Y": "%Y", "%y": "%y", "%m": "%m", "%c": "%m", "%d": "%d", "%e": "%d", "%H": "%H", "%k": "%H",
               "%h": "%I", "%I": "%I", "%l": "%I", "%i": "%M", "%s": "%S", "%S": "%S", "%f": "%f", "%p": "%p",
               "%M": "%B", "%b": "%b", "%W": "%A", "%a": "%a", "%j": "%j", "%T": "%H:%M:%S",
               "%r": "%I:%M:%S %p", "%%": "%%"}


def str_to_date(value: Any, fmt: Any) -> str | None:
    if value is None or fmt is None:
        return None
    spec = _to_str(fmt)
    py = re.sub(r"%.", lambda m: _DATE_PARSE.get(m.group(0), re.escape(m.group(0)[1])), spec)
    try:
        dt = datetime.strptime(_to_str(value).strip(), py)
    except ValueError:
        return None
    has_date = any(c in spec for c in ("%Y", "%y", "%m", "%c", "%d", "%e", "%j", "%M", "%b"))
    has_time = any(c in spec for c in ("%H", "%k", "%h", "%I", "%l", "%i", "%s", "%S", "%T", "%r", "%f"))
    frac = ".%f" if "%f" in spec else ""
    if has_date and has_time:
        return dt.strftime("%Y-%m-%d %H:%M:%S" + frac)
    if has_time:
        return dt.strftime("%H:%M:%S" + frac)
    return dt.strftime("%Y-%m-%d")


def _date(value: Any):
    dt = _dt(value)
    return None if dt is None else dt.date()


def datediff(a: Any, b: Any) -> int | None:
    da, db = _date(a), _date(b)
    return None if da is None or db is None else (da - db).days


def timestampdiff(unit: str, a: Any, b: Any) -> int | None:
    ta, tb = _dt(a), _dt(b)
    if ta is None or tb is None:
        return None
    if unit in ("MONTH", "QUARTER", "YEAR"):
        months = (tb.year - ta.year) * 12 + tb.month - ta.month
        # a month counts only once its day and time are reached
        rest_b = (tb.day, tb.hour, tb.minute, tb.second, tb.microsecond)
        rest_a = (ta.day, ta.hour, ta.minute, ta.second, ta.microsecond)
        if months > 0 and rest_b < rest_a:
            months -= 1
        elif months < 0 and rest_b > rest_a:
            months += 1
        return int(months / {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])
    micro = (tb - ta) // timedelta(microseconds=1)
    return int(micro / (_UNIT_SECONDS[unit] * 1_000_000))


def last_day(value: Any) -> str | None:
    d = _date(value)
    if d is None:
        return None
    return d.replace(day=calendar.monthrange(d.year, d.month)[1]).isoformat()


def dayofweek(value: Any) -> int | None:
    d = _date(value)
    return None if d is None else d.isoweekday() % 7 + 1


def weekday(value: Any) -> int | None:
    d = _date(value)
    return None if d is None else d.weekday()


def week(value: Any, mode: Any = 0) -> int | None:
    """WEEK(date[, mode]) for MySQL's eight modes (`_calc_week`)."""
    d = _date(value)
    if d is None or mode is None:
        return None
    return _calc_week(d, _week_behaviour(_int(mode)))[0]


def yearweek(value: Any, mode: Any = 0) -> int | None:
    d = _date(value)
    if d is None or mode is None:
        return None
    number, year = _calc_week(d, _week_behaviour(_int(mode)) | _WEEK_YEAR)
    return year * 100 + number


def json_extract(warnings: list, doc: Any, *paths: Any) -> str | None:
    """JSON_EXTRACT(doc, path, ...): the value at the path as the document writes it (strings
    with their escapes, numbers as written: `jsondoc`), members and elements ", " and ": " apart;
    an array of every value found for several paths or a wildcard; NULL for a NULL argument, text
    that is not JSON (MariaDB's warning) or nothing found."""
    if doc is None or any(p is None for p in paths):
        return None
    data = _json_doc(warnings, doc, 1, "json_extract")
    if data is _INVALID:
        return None
    found: list[Any] = []
    several = len(paths) > 1
    for n, path in enumerate(paths, 2):
        steps = _json_steps(warnings, "-", path, n, "json_extract")
        if steps is None:
            return None
        several = several or any(step.wild for step in steps)
        found.extend(value for _path, value in jsondoc.matches(data, steps))
    if not found:
        return None
    return jsondoc.text(found if several else found[0])


def bit_bytes(value: Any, width: int, characters: int) -> str | bytes | None:
    """A BIT(width) column's value as MariaDB's Field_bit gives it as a string: its bits in
    (width + 7) // 8 bytes, big-endian (held as a binary string is: `values.binary_value`); as
    `characters`, those bytes read as UTF-8, each byte that is none '?' (CAST AS CHAR)."""
    if value is None:
        return None
    raw = _int(value).to_bytes(max((width + 7) // 8, 1), "big")
    if not characters:
        return values.binary_value(raw)
    text = raw.decode("utf-8", "surrogateescape")
    return "".join("?" if "\udc80" <= ch <= "\udcff" else ch for ch in text)


def charset_bytes(value: Any, charset: str) -> bytes | None:
    """A latin1 (cp1251, gbk ...) column's value as its bytes in that character set (what
    MariaDB's CAST(x AS BINARY) of it gives)."""
    if value is None:
        return None
    return CHARSETS[charset].encode(_to_str(value))


def json_compared_text(value: Any) -> Any:
    """JSON_EXTRACT's value where it is compared with a string, as MariaDB's Arg_comparator
    compares one: a JSON string unquoted (its escapes read: '"a\\u0062"' is 'ab'), any other value
    (a number, true, null, an array) its text as written."""
    if value is None:
        return None
    text = _to_str(value)
    if text.startswith('"'):
        try:
            parsed = jsondoc.parse(text)
        except jsondoc.JsonError:
            return value
        return jsondoc.unquote(parsed) if type(parsed) is jsondoc.Raw and parsed.startswith('"') else value
    return value


def json_compared_number(value: Any) -> Any:
    """JSON_EXTRACT's value where it is compared with a number, as MariaDB reads it (its
    val_real): a number as itself, a string's leading number (0 without one), true 1; false,
    null, an array or an object 0."""
    if value is None:
        return None
    text = _to_str(value).strip()
    if text == "true":
        return 1
    if text.startswith('"'):
        text = _to_str(json_compared_text(text))
    elif text[:1] in ("[", "{"):
        return 0
    m = values.NUMBER_PREFIX.match(text)
    if not m:
        return 0
    number = m.group().strip()
    return int(number) if number.lstrip("+-").isdigit() and len(number) < 19 else float(number)


def _at_path(doc: Any, path: Any) -> tuple[bool, Any]:
    """(found, the value) at `path` of the JSON document `doc`; not found for a NULL argument or
    a document that is not JSON."""
    if doc is None or path is None:
        return False, None
    data = _json(doc)
    return (False, None) if data is _INVALID else _json_path(data, _to_str(path))


def _json_path(data: Any, path: str) -> tuple[bool, Any]:
    if not path.startswith("$"):
        raise ValueError(f"Invalid JSON path expression {path!r}")
    for m in re.finditer(r'\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_$][\w$]*))|\[(\d+)\]', path[1:]):
        if m.group(3) is not None:
            idx = int(m.group(3))
            if not isinstance(data, list) or idx >= len(data):
                return False, None
            data = data[idx]
        else:
            key = m.group(1) if m.group(1) is not None else m.group(2)
            if not isinstance(data, dict) or key not in data:
                return False, None
            data = data[key]
    return True, data


def json_unquote(value: Any) -> str | None:
    if value is None:
        return None
    text = _to_str(value)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _contains(target: Any, candidate: Any) -> bool:
    if isinstance(target, list):
        if isinstance(candidate, list):
            return all(any(_contains(t, c) for t in target) for c in candidate)
        return any(_contains(t, candidate) for t in target)
    if isinstance(target, dict):
        return isinstance(candidate, dict) and all(
            k in target and _contains(target[k], v) for k, v in candidate.items())
    return target == candidate and type(target) is type(candidate) or (
        isinstance(target, (int, float)) and isinstance(candidate, (int, float)) and target == candidate)


def json_contains(doc: Any, candidate: Any, path: Any = "$") -> int | None:
    if doc is None or candidate is None or path is None:
        return None
    data, wanted = _json(doc), _json(candidate)
    if data is _INVALID or wanted is _INVALID:
        return None
    ok, target = _json_path(data, _to_str(path))
    return int(ok and _contains(target, wanted))


_INVALID = object()


def _json(value: Any) -> Any:
    """A JSON document's value, or _INVALID (MySQL's functions then return NULL)."""
    try:
        return json.loads(_to_str(value))
    except ValueError:
        return _INVALID


def _json_text(data: Any) -> str:
    """A JSON value written as MariaDB writes it: ", " between members and elements, ": " after a key."""
    return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))


def json_text(doc: Any) -> Any:
    """A JSON document rewritten as MariaDB writes it: ", " between members and elements, ": "
    after a key, nothing else between tokens, numbers as written (1.50 stays 1.50); text that is
    not JSON as it is."""
    if doc is None or _json(doc) is _INVALID:
        return doc
    return _rewritten(_to_str(doc), " ")


def json_compact(doc: Any) -> str | None:
    """JSON_COMPACT: the document with nothing between its tokens, numbers as written; NULL for
    NULL or text that is not JSON (MariaDB's NULL, with a warning)."""
    if doc is None or _json(doc) is _INVALID:
        return None
    return _rewritten(_to_str(doc), "")


def _rewritten(text: str, gap: str) -> str:
    """JSON `text` with `gap` after each ',' and ':' outside strings and no other blank."""
    out: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif ch in ",:":
            out.append(ch + gap)
        elif not ch.isspace():
            out.append(ch)
    return "".join(out)


def json_edit(name: str, warnings: list, kinds: str, written: str, doc: Any, *pairs: Any) -> str | None:
    """JSON_ARRAY_APPEND / JSON_ARRAY_INSERT / JSON_SET / JSON_INSERT / JSON_REPLACE (`name` their
    lower-case name) of `doc` with each (path, value) of `pairs` in turn, as MariaDB 10.11's:
    written as its json_nice writes an edited document (`jsondoc.text`), the rest of the document
    as it was written. `kinds`: "S" in a strict write (a warning fails the statement instead),
    then one letter per value: "j" a JSON function's document (inserted as JSON), "b" TRUE /
    FALSE, "d" a DECIMAL, "f" a DOUBLE, "l" / "m" a literal / a negated one, "-" by the value (a
    string quoted, NULL null); `written`: per value a line, the text of a number literal with a
    point or an exponent.

    APPEND: the value goes at the end of the array at the path, or an array is made of what is
    there and the value; a path that leads nowhere makes the result NULL. ARRAY_INSERT: the
    path's last step is an index of an array (else NULL): the value goes before that element,
    or at the end past it (`[last]`, `[-n]`: after the element they name); a path to no array
    leaves the document as it is. SET / INSERT / REPLACE (`_json_put`): what the path names is
    replaced (SET, REPLACE), a missing key is added and an index past an array's end (or before
    its start) appends (SET, INSERT), `[n]` (n > 0) of what is not an array makes an array of it
    and the value; a path whose parent is not there changes nothing. NULL for a NULL document or
    path; NULL with MariaDB's warning for text that is not JSON (4036-4040) or a path it refuses
    (4041, 4042; 4044 for wildcards)."""
    if doc is None:
        return None
    texts = written.split("\n")
    data: Any = None
    for n in range(0, len(pairs) - 1, 2):
        path, value = pairs[n], pairs[n + 1]
        if path is None:
            return None
        steps = _json_steps(warnings, kinds, path, n + 2, name)
        if steps is None:
            return None
        if any(step.wild for step in steps):
            return _json_warning(warnings, kinds, ER_JSON_PATH_NO_WILDCARD, n + 2, name)
        if data is None:
            try:
                data = jsondoc.parse(_json_source(doc))
            except jsondoc.JsonError as exc:
                return _json_text_warning(warnings, kinds, exc, 1, name)
        item = _json_item(value, kinds[1 + n // 2], texts[n // 2] if n // 2 < len(texts) else "")
        if name == "json_array_insert":
            if not steps or steps[-1].key is not None:
                return None
            found, parent, _, _ = jsondoc.find(data, steps[:-1])
            if found and type(parent) is list:
                step, size = steps[-1], len(parent)
                at = jsondoc.element(parent, step) if step.from_end else min(step.index, size)
                parent.insert(size if at is None else at + 1 if step.from_end else at, item)
            continue
        if name != "json_array_append":
            data = _json_put(data, steps, item, name != "json_insert", name != "json_replace")
            continue
        found, target, container, place = jsondoc.find(data, steps)
        if not found:
            return None
        if type(target) is list:
            target.append(item)
        else:
            data = jsondoc.replace_at(data, container, place, [target, item])
    return jsondoc.text(data)


def _json_put(data: Any, steps: list, item: Any, replace: bool, add: bool) -> Any:
    """`data` with `item` put at `steps` (JSON_SET: both, JSON_REPLACE: `replace`, JSON_INSERT:
    `add`; json_edit)."""
    if not steps:
        return item if replace else data
    found, parent, container, place = jsondoc.find(data, steps[:-1])
    if not found:
        return data
    last = steps[-1]
    if last.key is not None:
        if isinstance(parent, jsondoc.Members):
            at = jsondoc.key_at(parent, last.key)
            if at is None and add:
                parent.append((jsondoc.quote(last.key), item))
            elif at is not None and replace:
                parent[at] = (parent[at][0], item)
        return data
    if type(parent) is list:
        at = jsondoc.element(parent, last)
        if at is None and add:
            parent.append(item)
        elif at is not None and replace:
            parent[at] = item
        return data
    if last.index == 0:  # lax: [0] (or [last]) of what is not an array is itself
        return jsondoc.replace_at(data, container, place, item) if replace else data
    return jsondoc.replace_at(data, container, place, [parent, item]) if add else data


def _json_steps(warnings: list, kinds: str, path: Any, arg: int, name: str) -> list | None:
    """The steps of the path argument `arg` of `name`; None with MariaDB's warning (4041, 4042)
    when it refuses the path."""
    try:
        return jsondoc.parse_path(_to_str(path))
    except jsondoc.JsonPathError as exc:
        if exc.reason == "eos":
            return _json_warning(warnings, kinds, ER_JSON_PATH_EOS, arg, name)
        return _json_warning(warnings, kinds, ER_JSON_PATH_SYNTAX, arg, name, exc.position)


def _json_source(value: Any) -> str:
    """A document argument as text (a DOUBLE as MariaDB writes it)."""
    return format_double(value) if isinstance(value, float) else _to_str(value)


def _json_item(value: Any, kind: str, written: str) -> Any:
    """A JSON_ARRAY_APPEND / _INSERT value as a `jsondoc` value, by its `kind` and the literal's
    `written` text (json_edit)."""
    if value is None:
        return jsondoc.Raw("null")
    if written and kind in "lm":  # a DOUBLE literal (1e2) by its value, a DECIMAL one as written
        text = ("-" if kind == "m" else "") + written
        return jsondoc.Raw(format_double(float(text)) if "e" in written.lower() else text)
    if kind == "j":
        try:
            return jsondoc.parse(_to_str(value))
        except jsondoc.JsonError:
            pass
    elif kind == "b":
        return jsondoc.Raw("true" if _num(value) else "false")
    elif kind == "f" or (kind == "-" and isinstance(value, float)):
        return jsondoc.Raw(format_double(float(value)))
    elif kind == "d" or isinstance(value, int):
        return jsondoc.Raw(str(value))
    return jsondoc.quote(_to_str(value))


_JSON_TEXT_ERRORS = {"eos": ER_JSON_EOS, "syntax": ER_JSON_SYNTAX, "bad_chr": ER_JSON_BAD_CHR,
                     "escaping": ER_JSON_ESCAPING, "depth": ER_JSON_DEPTH}


def _json_text_warning(warnings: list, kinds: str, exc: jsondoc.JsonError, arg: int, name: str) -> None:
    """MariaDB's warning for argument `arg` of `name` that is not JSON (`_json_warning`)."""
    error = _JSON_TEXT_ERRORS[exc.reason]
    if exc.reason == "eos":
        return _json_warning(warnings, kinds, error, arg, name)
    if exc.reason == "depth":
        return _json_warning(warnings, kinds, error, jsondoc.DEPTH_LIMIT, arg, name, exc.position)
    return _json_warning(warnings, kinds, error, arg, name, exc.position)


def _json_warning(warnings: list, kinds: str, error: Any, *args: Any) -> None:
    """NULL, with MariaDB's warning `error`; in a strict write (`kinds` begins with "S") the
    statement fails with it, as MariaDB's strict mode makes the warning an error."""
    exc = SQLError(error, *args)
    if kinds.startswith("S"):
        raise_sql(exc)
    warnings.append((0, "Warning", exc.code, exc.message))
    return None


def _json_doc(warnings: list, doc: Any, arg: int, name: str) -> Any:
    """Argument `arg` of `name` as a parsed document (`jsondoc`); _INVALID, with MariaDB's
    warning, for text that is not JSON."""
    try:
        return jsondoc.parse(_json_source(doc))
    except jsondoc.JsonError as exc:
        _json_text_warning(warnings, "-", exc, arg, name)
        return _INVALID


def _json_docs(warnings: list, docs: tuple, name: str) -> list | None:
    """Every argument of `name` as a parsed document; None if one is NULL or not JSON (warned)."""
    if any(doc is None for doc in docs):
        return None
    parsed = []
    for arg, doc in enumerate(docs, 1):
        data = _json_doc(warnings, doc, arg, name)
        if data is _INVALID:
            return None
        parsed.append(data)
    return parsed


def _one_or_all(warnings: list, mode: Any, name: str) -> str | None:
    """The "one" / "all" argument (the second) of `name`, None (warned, 4046) for anything else."""
    word = _to_str(mode).lower()
    if word not in ("one", "all"):
        return _json_warning(warnings, "-", ER_JSON_ONE_OR_ALL, 2, name)
    return word


def json_contains_path(warnings: list, doc: Any, mode: Any, *paths: Any) -> int | None:
    """JSON_CONTAINS_PATH(doc, 'one' | 'all', path, ...): whether one / every path (wildcards
    followed) leads to a value. NULL for a NULL argument, with a warning for text that is not
    JSON, a path MariaDB refuses or a mode that is neither word."""
    if doc is None or mode is None or any(path is None for path in paths):
        return None
    word = _one_or_all(warnings, mode, "json_contains_path")
    if word is None:
        return None
    data = _json_doc(warnings, doc, 1, "json_contains_path")
    if data is _INVALID:
        return None
    found = []
    for n, path in enumerate(paths, 3):
        steps = _json_steps(warnings, "-", path, n, "json_contains_path")
        if steps is None:
            return None
        found.append(bool(jsondoc.matches(data, steps)))
    return int(any(found) if word == "one" else all(found))


def json_exists(doc: Any, path: Any) -> int | None:
    """JSON_EXISTS(doc, path): whether the path leads to a value; NULL, without a warning, for a
    NULL argument, text that is not JSON or a path MariaDB refuses."""
    if doc is None or path is None:
        return None
    try:
        data, steps = jsondoc.parse(_json_source(doc)), jsondoc.parse_path(_to_str(path))
    except (jsondoc.JsonError, jsondoc.JsonPathError):
        return None
    return int(bool(jsondoc.matches(data, steps)))


def json_query(warnings: list, doc: Any, path: Any, scalar: bool = False) -> str | None:
    """JSON_QUERY(doc, path): the object or array at the path as the document writes it (NULL for
    a scalar); with `scalar` JSON_VALUE: the scalar there, a string unquoted, true / false as
    1 / 0, NULL for a JSON null, an object or an array. NULL for a NULL argument or nothing
    there; without a warning for text that is not JSON, with one for a path MariaDB refuses."""
    name = "json_value" if scalar else "json_query"
    if doc is None or path is None:
        return None
    steps = _json_steps(warnings, "-", path, 2, name)
    if steps is None:
        return None
    try:
        data, spans = jsondoc.parse_spans(_json_source(doc))
    except jsondoc.JsonError:
        return None
    found = jsondoc.matches(data, steps)
    if not found:
        return None
    value = found[0][1]
    if not scalar:
        return spans[id(value)] if isinstance(value, list) else None
    if isinstance(value, list) or value == "null":
        return None
    if value[0] == '"':
        return jsondoc.unquote(value)
    return {"true": "1", "false": "0"}.get(value, value)


def json_search(warnings: list, doc: Any, mode: Any, pattern: Any, escape: Any = None, *paths: Any) -> str | None:
    """JSON_SEARCH(doc, 'one' | 'all', pattern[, escape[, path ...]]): the path (one: the first,
    all: every one, an array of them when more than one) of each scalar within the document, or
    within what the paths lead to, whose text (a string's characters, a number or a literal as
    written) is LIKE the pattern under utf8mb4_general_ci, `escape` its escape character
    (NULL: '\\'; more than one character: error 1210). NULL when none matches or for a NULL
    document, mode, pattern or path; warned as JSON_CONTAINS_PATH."""
    if doc is None or mode is None or pattern is None or any(path is None for path in paths):
        return None
    escape = "\\" if escape is None else _to_str(escape)
    if len(escape) > 1:
        raise_sql(SQLError(ER_WRONG_ARGUMENTS, "ESCAPE"))
    word = _one_or_all(warnings, mode, "json_search")
    if word is None:
        return None
    data = _json_doc(warnings, doc, 1, "json_search")
    if data is _INVALID:
        return None
    starts = [("$", data)]
    if paths:
        starts = []
        for n, path in enumerate(paths, 5):
            steps = _json_steps(warnings, "-", path, n, "json_search")
            if steps is None:
                return None
            starts += jsondoc.matches(data, steps)
    text = _to_str(pattern)
    found: list[str] = []
    for start, value in starts:
        for path, scalar in jsondoc.scalars(value, start):
            chars = jsondoc.unquote(scalar) if scalar[0] == '"' else scalar
            if path not in found and collation.like(text, chars, escape or None):
                found.append(path)
                if word == "one":
                    return jsondoc.quote(path)
    if not found:
        return None
    return jsondoc.quote(found[0]) if len(found) == 1 else jsondoc.text([jsondoc.quote(p) for p in found])


def _json_equal(a: Any, b: Any) -> bool:
    """Two parsed values alike: numbers by value, strings by their characters, objects by their
    members whatever their order, arrays element by element."""
    if isinstance(a, jsondoc.Members) or isinstance(b, jsondoc.Members):
        return isinstance(a, jsondoc.Members) and isinstance(b, jsondoc.Members) \
            and jsondoc.normalized(a) == jsondoc.normalized(b)
    if isinstance(a, list) or isinstance(b, list):
        return type(a) is list and type(b) is list and len(a) == len(b) \
            and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return jsondoc.normalized(a) == jsondoc.normalized(b)


def json_overlaps(warnings: list, one: Any, other: Any) -> int | None:
    """JSON_OVERLAPS: whether two arrays share an element, two objects a key with equal values, a
    scalar is an array's element (or equal to the other scalar). NULL for a NULL argument or
    text that is not JSON (warned)."""
    docs = _json_docs(warnings, (one, other), "json_overlaps")
    if docs is None:
        return None
    a, b = docs
    if type(a) is not list:
        a, b = b, a
    if type(a) is list:
        if type(b) is list:
            return int(any(_json_equal(x, y) for x in a for y in b))
        return int(any(_json_equal(x, b) for x in a))
    if isinstance(a, jsondoc.Members) and isinstance(b, jsondoc.Members):
        return int(any(jsondoc.unquote(k) == jsondoc.unquote(j) and _json_equal(x, y) for k, x in a for j, y in b))
    return int(_json_equal(a, b))


def json_equals(warnings: list, one: Any, other: Any) -> int | None:
    """JSON_EQUALS: whether two documents are alike once normalized (JSON_NORMALIZE)."""
    docs = _json_docs(warnings, (one, other), "json_equals")
    return None if docs is None else int(jsondoc.normalized(docs[0]) == jsondoc.normalized(docs[1]))


def json_normalize(warnings: list, doc: Any) -> str | None:
    """JSON_NORMALIZE: the document as `jsondoc.normalized` writes it."""
    docs = _json_docs(warnings, (doc,), "json_normalize")
    return None if docs is None else jsondoc.normalized(docs[0])


def json_detailed(warnings: list, doc: Any, tab: Any = 4) -> str | None:
    """JSON_DETAILED / JSON_PRETTY(doc[, tab size]): `jsondoc.detailed`."""
    docs = _json_docs(warnings, (doc,), "json_detailed")
    return None if docs is None else jsondoc.detailed(docs[0], 4 if tab is None else _int(tab))


def json_loose(warnings: list, doc: Any) -> str | None:
    """JSON_LOOSE: the document with ", " between items and ": " after a key (`jsondoc.text`)."""
    docs = _json_docs(warnings, (doc,), "json_loose")
    return None if docs is None else jsondoc.text(docs[0])


def _merge_preserve(a: Any, b: Any) -> Any:
    if isinstance(a, jsondoc.Members) and isinstance(b, jsondoc.Members):
        merged = jsondoc.Members(a)
        for key, value in b:
            at = jsondoc.key_at(merged, jsondoc.unquote(key))
            if at is None:
                merged.append((key, value))
            else:
                merged[at] = (merged[at][0], _merge_preserve(merged[at][1], value))
        return merged
    return (a if type(a) is list else [a]) + (b if type(b) is list else [b])


def _merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, jsondoc.Members):
        return patch
    merged = jsondoc.Members(target) if isinstance(target, jsondoc.Members) else jsondoc.Members()
    for key, value in patch:
        at = jsondoc.key_at(merged, jsondoc.unquote(key))
        if value == "null":
            if at is not None:
                del merged[at]
        elif at is None:
            merged.append((key, _merge_patch(None, value)))
        else:
            merged[at] = (merged[at][0], _merge_patch(merged[at][1], value))
    return merged


def json_merge_patch(warnings: list, *docs: Any) -> str | None:
    """JSON_MERGE_PATCH (RFC 7396, left to right), values as written; NULL when an argument is
    NULL or not JSON (warned)."""
    return _json_merged(warnings, docs, "json_merge_patch", _merge_patch)


def json_merge_preserve(warnings: list, *docs: Any) -> str | None:
    """JSON_MERGE / JSON_MERGE_PRESERVE, left to right: two objects' members together (a key in
    both: its values merged), anything else as arrays concatenated (a value that is not an
    array as an array of it). NULL for a NULL argument or text that is not JSON (warned)."""
    return _json_merged(warnings, docs, "json_merge_preserve", _merge_preserve)


def _json_merged(warnings: list, docs: tuple, name: str, merge: Any) -> str | None:
    """The documents `docs` of `name` merged left to right by `merge`, written as MariaDB writes
    an edited document; NULL for a NULL argument or text that is not JSON (warned)."""
    parsed = _json_docs(warnings, docs, name)
    if parsed is None:
        return None
    merged = parsed[0]
    for doc in parsed[1:]:
        merged = merge(merged, doc)
    return jsondoc.text(merged)


def json_length(doc: Any, path: Any = "$") -> int | None:
    """JSON_LENGTH: an array's elements, an object's members, 1 for a scalar."""
    ok, value = _at_path(doc, path)
    if not ok:
        return None
    return len(value) if isinstance(value, (list, dict)) else 1


def json_depth(doc: Any) -> int | None:
    """JSON_DEPTH: 1 for a scalar or an empty array or object, else 1 + its deepest member's."""
    if doc is None:
        return None
    value = _json(doc)
    if value is _INVALID:
        return None

    def depth(v: Any) -> int:
        members = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        return 1 + max(map(depth, members), default=0)
    return depth(value)


def json_keys(doc: Any, path: Any = "$") -> str | None:
    ok, value = _at_path(doc, path)
    if not ok or not isinstance(value, dict):
        return None
    return _json_text(list(value))


def json_type(doc: Any) -> str | None:
    """JSON_TYPE as MariaDB names the types (OBJECT, ARRAY, STRING, INTEGER, DOUBLE, BOOLEAN, NULL)."""
    if doc is None:
        return None
    data = _json(doc)
    if data is _INVALID:
        return None
    if isinstance(data, bool):
        return "BOOLEAN"
    if data is None:
        return "NULL"
    return {dict: "OBJECT", list: "ARRAY", str: "STRING", int: "INTEGER", float: "DOUBLE"}.get(type(data), "OPAQUE")


def make_set(bits: Any, *names: Any) -> str | None:
    if bits is None:
        return None
    n = _int(bits)
    return ",".join(_to_str(name) for k, name in enumerate(names) if n >> k & 1 and name is not None)


def export_set(bits: Any, on: Any, off: Any, separator: Any = ",", count: Any = 64) -> str | None:
    if None in (bits, on, off, separator, count):
        return None
    n, width = _int(bits), min(max(_int(count), 0), 64) if _int(count) >= 0 else 64
    return _to_str(separator).join(_to_str(on) if n >> k & 1 else _to_str(off) for k in range(width))


_EXTRACT_PARTS = {
    "YEAR": "%Y", "MONTH": "%c", "DAY": "%e", "HOUR": "%k", "MINUTE": "%i", "SECOND": "%s", "MICROSECOND": "%f",
    "QUARTER": None, "WEEK": "%U", "YEAR_MONTH": "%Y%m", "DAY_HOUR": "%e%H", "DAY_MINUTE": "%e%H%i",
    "DAY_SECOND": "%e%H%i%s", "HOUR_MINUTE": "%k%i", "HOUR_SECOND": "%k%i%s", "MINUTE_SECOND": "%i%s",
    "DAY_MICROSECOND": "%e%H%i%s%f", "HOUR_MICROSECOND": "%k%i%s%f", "MINUTE_MICROSECOND": "%i%s%f",
    "SECOND_MICROSECOND": "%s%f",
}


def extract(unit: str, value: Any) -> int | None:
    """EXTRACT(unit FROM value): the unit's fields run together as one number."""
    dt = _dt(value)
    sign = 1
    if dt is None:
        if unit in ("HOUR", "MINUTE", "SECOND", "MICROSECOND", "HOUR_MINUTE", "HOUR_SECOND", "MINUTE_SECOND"):
            clock = _clock(value)
            if clock is not None:  # a TIME: its hour of the day (838:59:59 is 22), signed as the TIME
                dt = datetime(2000, 1, 1, clock[0] % 24, clock[1], clock[2], clock[3])
                sign = -1 if _to_str(value).lstrip().startswith("-") else 1
        if dt is None:
            return None
    if unit == "QUARTER":
        return (dt.month + 2) // 3
    return sign * int("".join(_format_part(dt, spec[1]) for spec in re.findall(r"%.", _EXTRACT_PARTS[unit])))


def json_valid(value: Any) -> int | None:
    return None if value is None else int(_json(value) is not _INVALID)


# One call may take long whatever the statement's size in rows (its answer can be far larger
# than its arguments, or it runs a regular expression): never on the event loop (`engine.core`,
# "Threads"), whose reader's step budget counts SQLite's steps, not the time of one call.
UNBOUNDED = frozenset({
    "repeat", "lpad", "rpad", "mysql_insert", "replace", "regexp", "regexp_replace", "regexp_substr",
    "regexp_instr", "zeroblob", "randomblob", "printf", "format", "mysql_format",
})
# not deterministic (SQLite must not fold them), and so never run on the event loop
# (`engine.core`, "Threads"): they wait, or change the session's or the server's state
VOLATILE = frozenset({
    "uuid", "uuid_short", "sys_guid", "random_bytes", "mysql_rand", "unix_timestamp", "mysql_unix_timestamp", "mysql_set_last_id",
    "mysql_set_var", "mysql_get_var",
    "mysql_upsert_mark", "mysql_matched", "mysql_row_read", "mysql_fixedbin_bound", "mysql_number_text", "mysql_store_row", "mysql_sleep", "mysql_sysdate", "get_lock", "release_lock", "release_all_locks", "is_free_lock",
    "is_used_lock",
})


_DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def conv(value: Any, from_base: Any, to_base: Any) -> str | None:
    """CONV(): a number between bases 2..36 (a negative to_base: signed output), 64-bit wrap."""
    if value is None or from_base is None or to_base is None:
        return None
    src, dst = abs(_int(from_base)), _int(to_base)
    if not (2 <= src <= 36 and 2 <= abs(dst) <= 36):
        return None
    text = _to_str(value).strip().upper()
    negative = text.startswith("-")
    digits = text.lstrip("+-")  # read up to the first character that is no digit of from_base
    n = 0
    for ch in digits:
        d = _DIGITS.find(ch)
        if d < 0 or d >= src:
            break
        n = n * src + d
    n = -n if negative else n
    if dst > 0:
        n &= 0xFFFFFFFFFFFFFFFF
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = ""
    while True:
        n, d = divmod(n, abs(dst))
        out = _DIGITS[d] + out
        if n == 0:
            return sign + out


def _json_member(value: Any, kind: str) -> str:
    """One value inside JSON_ARRAYAGG / JSON_OBJECTAGG as MariaDB writes it: `kind` "json" (a
    JSON function's document, spaced as MariaDB writes it), "decimal" (its digits as they are),
    "double" (MariaDB's text of it), else by the value (numbers bare, text quoted)."""
    if value is None:
        return "null"
    if kind == "json":
        return json_text(value)
    if kind == "decimal":
        return _to_str(value)
    if isinstance(value, float) or kind == "double":
        return format_double(float(value))
    if isinstance(value, int):
        return str(value)
    return json.dumps(_to_str(value), ensure_ascii=False)


class _JsonArrayAgg:
    """JSON_ARRAYAGG(value): step(value, kind), the values in the rows' order, joined by ','
    as MariaDB 10.11 writes it; NULL over no rows."""

    def __init__(self) -> None:
        self.members: list[str] = []

    def step(self, value: Any, kind: str) -> None:
        self.members.append(_json_member(value, kind))

    def finalize(self) -> Any:
        return None if not self.members else "[" + ",".join(self.members) + "]"


class _JsonObjectAgg:
    """JSON_OBJECTAGG(key, value): step(key, value, kind), `"key":value` members joined by
    ', ' as MariaDB 10.11 writes them (a repeated key kept); NULL over no rows."""

    def __init__(self) -> None:
        self.members: list[str] = []

    def step(self, key: Any, value: Any, kind: str) -> None:
        if key is not None:
            self.members.append(json.dumps(_to_str(key), ensure_ascii=False) + ":" + _json_member(value, kind))

    def finalize(self) -> Any:
        return None if not self.members else "{" + ", ".join(self.members) + "}"


class _GroupConcat:
    """MySQL's GROUP_CONCAT with ORDER BY (or DISTINCT and a separator): step(value, separator,
    flags, *keys), flags 'D' or '-' (DISTINCT) then 'a'/'d' per key; NULLs sort first as MySQL's,
    strings by their case-folded text (the default collation)."""

    def __init__(self) -> None:
        self.rows: list[tuple[tuple, Any]] = []
        self.separator: Any = ","
        self.flags = "-"

    def step(self, value: Any, separator: Any, flags: str, *keys: Any) -> None:
        self.separator, self.flags = separator, flags
        if value is not None:
            self.rows.append((keys, value))

    def finalize(self) -> Any:
        if not self.rows:
            return None
        rows = self.rows
        if self.flags[0] == "D":  # one row per value (equal under the collation: the first read)
            first: dict[tuple, tuple[tuple, Any]] = {}
            for row in rows:
                first.setdefault(_sort_key(row[1]), row)
            rows = list(first.values())
        for n in reversed(range(len(rows[0][0]))):  # stable sorts, the last key first
            def key(row: tuple[tuple, Any], n: int = n) -> tuple:
                return _sort_key(row[0][n])
            rows.sort(key=key, reverse=self.flags[n + 1] == "d")
        values = [value for _, value in rows]
        if self.flags == "D":  # DISTINCT alone: in order of value, as MariaDB's unique tree
            values.sort(key=_sort_key)
        separator = "" if self.separator is None else self.separator
        if any(isinstance(v, bytes) for v in values) or isinstance(separator, bytes):
            return _to_bytes(separator).join(_to_bytes(v) for v in values)
        return _to_str(separator).join(_to_str(v) for v in values)


def _sort_key(v: Any) -> tuple:
    """A GROUP_CONCAT value's or key's order: NULL, numbers, strings by the default collation
    (utf8mb4_general_ci: 'a' = 'A' = 'a '), binary strings by their bytes."""
    if v is None:
        return (0, 0)
    if isinstance(v, int | float):
        return (1, v)
    if isinstance(v, bytes):
        return (3, v)
    return (2, collation.key(_to_str(v)))


class _Percentile:
    """PERCENTILE_CONT(f) / PERCENTILE_DISC(f) WITHIN GROUP (ORDER BY x [DESC]) OVER (PARTITION
    BY ...), MEDIAN(x) (PERCENTILE_CONT(0.5)): a window function over the whole partition (the
    translation admits no ORDER BY in its OVER), its non-NULL values in the order named.
    step(f, x, descending, discrete)."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self.fraction = 0.0
        self.descending = self.discrete = False

    def step(self, fraction: Any, value: Any, descending: Any, discrete: Any) -> None:
        self.fraction, self.descending, self.discrete = float(fraction), bool(descending), bool(discrete)
        if value is not None:
            self.values.append(value)

    def inverse(self, fraction: Any, value: Any, descending: Any, discrete: Any) -> None:
        if value is not None:
            self.values.remove(value)

    def value(self) -> Any:
        if not self.values:
            return None
        ordered = sorted(self.values, key=_sort_key, reverse=self.descending)
        if self.discrete:  # the first value whose cumulative distribution reaches f
            n = len(ordered)
            return ordered[max(math.ceil(round(self.fraction * n, 9)) - 1, 0)]
        numbers = [_num(v) for v in ordered]
        place = self.fraction * (len(numbers) - 1)
        low, high = math.floor(place), math.ceil(place)
        if low == high:
            return numbers[low]
        return (high - place) * numbers[low] + (place - low) * numbers[high]

    def finalize(self) -> Any:
        return self.value()


class _BitAggregate:
    """BIT_XOR / BIT_OR / BIT_AND over unsigned 64-bit integers (NULLs skipped)."""

    start = 0

    def __init__(self) -> None:
        self.value = self.start

    @staticmethod
    def combine(a: int, b: int) -> int:
        raise NotImplementedError  # each aggregate's operator

    def step(self, v: Any) -> None:
        if v is not None:
            self.value = self.combine(self.value, int(v) & 0xFFFFFFFFFFFFFFFF)

    def finalize(self) -> int | str:
        # SQLite integers are signed 64-bit: a larger unsigned result goes out as its digits
        return self.value if self.value < 1 << 63 else str(self.value)


class _Variance:
    """STDDEV / STD / STDDEV_POP / VARIANCE / VAR_POP (population) and STDDEV_SAMP / VAR_SAMP
    (sample) as MySQL's: NULLs skipped, NULL over no rows (or one row, for a sample); over a
    window's whole partition too (the translation admits no ordered window, over which MariaDB
    answers otherwise; `inverse` takes a row that left a frame out, as SQLite asks of one)."""

    sample = False
    root = False

    def __init__(self) -> None:
        self.count, self.mean, self.squares = 0, 0.0, 0.0

    def step(self, value: Any) -> None:
        """MariaDB's recurrence (item_sum.cc, Welford's), so that the last digits agree too."""
        if value is None:
            return
        x = float(_num(value))
        self.count += 1
        if self.count == 1:
            self.mean, self.squares = x, 0.0
        else:
            diff = x - self.mean
            self.mean += diff / self.count
            self.squares += diff * (x - self.mean)

    def inverse(self, value: Any) -> None:
        """The recurrence undone for a row leaving a window's frame (Item_sum_variance::remove)."""
        if value is None:
            return
        x = float(_num(value))
        if self.count == 1:
            self.count, self.mean, self.squares = 0, 0.0, 0.0
            return
        previous = (self.mean * self.count - x) / (self.count - 1)
        self.squares -= (x - self.mean) * (x - previous)
        self.mean = previous
        self.count -= 1

    def value(self) -> float | None:
        return self.finalize()

    def finalize(self) -> float | None:
        n = self.count
        if n == 0 or (self.sample and n == 1):
            return None
        variance = self.squares / (n - 1 if self.sample else n)
        return math.sqrt(variance) if self.root else variance


class _StdDev(_Variance):
    root = True


class _VarSamp(_Variance):
    sample = True


class _StdDevSamp(_Variance):
    sample = True
    root = True


class _BitXor(_BitAggregate):
    @staticmethod
    def combine(a: int, b: int) -> int:
        return a ^ b


class _BitOr(_BitAggregate):
    @staticmethod
    def combine(a: int, b: int) -> int:
        return a | b


class _BitAnd(_BitAggregate):
    start = 0xFFFFFFFFFFFFFFFF

    @staticmethod
    def combine(a: int, b: int) -> int:
        return a & b


def _text_or_bytes(fn):
    """A function's result as SQLite can take it: text that holds a client's non-UTF-8 bytes
    (kept as surrogates) goes back as those bytes -- a binary string, as MySQL's CONCAT of a
    binary argument is."""
    def call(*args: Any) -> Any:
        out = fn(*args)
        if type(out) is str and not out.isascii():
            try:
                out.encode()
            except UnicodeEncodeError:
                return out.encode("utf-8", "surrogateescape")
        return out
    return call


def warner(state: ConnectionState) -> Callable[[tuple[str, int, str]], None]:
    """What a function calls with a warning of the statement running on `state`'s connection
    (`SessionFunctions.warn`; none kept outside a session's statement)."""
    def warn(warning: tuple[str, int, str]) -> None:
        if state.fx is not None:
            state.fx.warn(warning)
    return warn


def divided_by_zero(state: ConnectionState) -> Callable[[], None]:
    """What a division by 0 of a read or a lenient write calls: MySQL's warning 1365."""
    warn = warner(state)
    division = ("Warning", ER_DIVISION_BY_ZERO.code, ER_DIVISION_BY_ZERO.format())
    return lambda: warn(division)


def _out_of_range(name: str, *args: Any) -> None:
    raise_sql(SQLError(ER_DATA_OUT_OF_RANGE, "DOUBLE", f"{name}({','.join(_to_str(a) for a in args)})"))


def mysql_exp(x: Any) -> float | None:
    """EXP(x); past DOUBLE's range MariaDB's 1690 (SQLite's exp gives inf)."""
    if x is None:
        return None
    try:
        return math.exp(_num(x))
    except OverflowError:
        _out_of_range("exp", x)
        raise


def mysql_pow(x: Any, y: Any) -> float | None:
    """POW(x, y); past DOUBLE's range or outside its domain (0 to a negative power, a negative
    number to a fraction) MariaDB's 1690 (SQLite's pow gives inf or NULL)."""
    if x is None or y is None:
        return None
    try:
        out = math.pow(_num(x), _num(y))
    except (OverflowError, ValueError):
        out = math.inf
    if math.isinf(out) or math.isnan(out):
        _out_of_range("pow", x, y)
    return out


def logarithm(base: Callable[[float], float], warn: Callable[[tuple[str, int, str]], None]) -> Callable[..., Any]:
    """LN / LOG2 / LOG10 / LOG(x) and LOG(b, x): NULL with MariaDB's warning 1365 for x <= 0 (or a
    base <= 0 or 1)."""
    division = ("Warning", ER_DIVISION_BY_ZERO.code, ER_DIVISION_BY_ZERO.format())

    def fn(*args: Any) -> float | None:
        if any(a is None for a in args):
            return None
        numbers = [_num(a) for a in args]
        if any(n <= 0 for n in numbers) or len(numbers) == 2 and numbers[0] == 1:
            warn(division)
            return None
        return base(numbers[0]) if len(numbers) == 1 else math.log(numbers[1]) / math.log(numbers[0])
    return fn


def aes_key(key: Any) -> bytes:
    """AES_ENCRYPT's 128-bit key: the key's bytes XORed into 16 bytes in turn (my_aes_create_key)."""
    folded = bytearray(16)
    for n, byte in enumerate(_to_bytes(key)):
        folded[n % 16] ^= byte
    return bytes(folded)


def aes_encrypt(value: Any, key: Any) -> bytes | None:
    """AES_ENCRYPT(s, key): AES-128-ECB of s padded as PKCS#7 (MariaDB 10.11's only mode)."""
    if value is None or key is None:
        return None
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    data = _to_bytes(value)
    pad = 16 - len(data) % 16
    encryptor = Cipher(algorithms.AES(aes_key(key)), modes.ECB()).encryptor()  # noqa: S305 - MariaDB's mode
    return encryptor.update(data + bytes([pad]) * pad) + encryptor.finalize()


def aes_decrypt(value: Any, key: Any) -> bytes | None:
    """AES_DECRYPT(s, key): AES_ENCRYPT undone; NULL for a length or padding it cannot have made."""
    if value is None or key is None:
        return None
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    data = _to_bytes(value)
    if not data or len(data) % 16:
        return None
    decryptor = Cipher(algorithms.AES(aes_key(key)), modes.ECB()).decryptor()  # noqa: S305 - MariaDB's mode
    plain = decryptor.update(data) + decryptor.finalize()
    pad = plain[-1]
    if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
        return None
    return plain[:-pad]


def random_bytes(n: Any) -> bytes | None:
    """RANDOM_BYTES(n): n random bytes, 0 to 1024 of them (NULL past that)."""
    if n is None:
        return None
    count = _int(n)
    return os.urandom(count) if 0 <= count <= 1024 else None


def cot(x: Any) -> float | None:
    """COT(x); at a tangent of 0, MariaDB's 1690."""
    if x is None:
        return None
    tangent = math.tan(_num(x))
    if not tangent:
        raise_sql(SQLError(ER_DATA_OUT_OF_RANGE, "DOUBLE", f"cot({_to_str(x)})"))
    return 1 / tangent


def register(conn: sqlite3.Connection, state: ConnectionState) -> None:
    def session_fx() -> SessionFunctions:
        if state.fx is None:
            state.fx = SessionFunctions(RandState(int(time.time()), id(state)))
        return state.fx

    warn = warner(state)

    def mysql_cast_int(value: Any, kind: str, unsigned: int) -> int | str | None:
        """CAST(x AS SIGNED / UNSIGNED) (`cast_int`), a string that is no integer warned of."""
        kind = _cast_kind(value, kind)
        warning = values.number_warning(value, "INTEGER") if type(value) is str and kind != "dec" else None
        if warning:
            warn(warning)
        if (note := cast_int_note(value, kind, unsigned)) is not None and not (warning and note[1] == warning[1]):
            warn(note)
        return cast_int(value, kind, unsigned)

    def mysql_rand(seed: Any = None) -> float:
        if seed is not None:
            return RandState.from_int(_int(seed)).next()
        return session_fx().rand.next()

    def mysql_matched(matched: Any, changed: Any, every: Any) -> Any:
        """An UPDATE's WHERE: counts a row its condition matches as changed or not (in the
        upserts' counters: an UPDATE is no upsert); true for the rows to update, those it
        changes or, with `every`, all it matches."""
        if not matched:
            return 0
        if state.fx is not None:
            if changed:
                state.fx.upserts_changed += 1
            else:
                state.fx.upserts_unchanged += 1
        return 1 if every or changed else 0

    def mysql_fixedbin_bound(value: Any, kind: str, strict: int) -> Any:
        """A literal a write compares with a UUID / INET6 / INET4 column, read for each row
        compared (`VOLATILE`: none read, none converted), as MariaDB converts it: its
        canonical text; text that names no value NULL, warned of once in the statement (1292),
        strict mode's error in an INSERT / UPDATE (`strict`)."""
        if not isinstance(value, str | bytes):
            return value
        text = fixedbin.canonical(kind, value)
        if text is None:
            fx = session_fx()
            if strict or (kind, value) not in fx.fixedbin_warned:
                warned: list = []
                fixedbin.bound(kind, value, warned)
                if strict:
                    raise_sql(SQLError(ER_TRUNCATED_WRONG_VALUE, message=warned[0][3]))
                fx.fixedbin_warned.add((kind, value))
                fx.warn(warned[0][1:])
        return text

    def mysql_number_text(value: Any, what: str, strict: int, binary: int) -> Any:
        """A string literal arithmetic reads as a number of type `what` ("DOUBLE", "DECIMAL"),
        converted for each row computed (`VOLATILE`), as MariaDB converts it: one that is no
        number throughout warned of each time (1292, `values.number_warning`, a `binary` one
        shown by its bytes), a strict INSERT / UPDATE's error (`strict`); its value as it is
        (SQLite's arithmetic reads its number)."""
        read = value.encode("utf-8", "surrogateescape") if binary and type(value) is str else value
        if isinstance(read, str | bytes) and (warning := values.number_warning(read, what)) is not None:
            if strict and warning[0] == "Warning":
                raise_sql(SQLError(ER_TRUNCATED_NUMBER, message=warning[2]))
            warn(warning)
        return value

    def mysql_row_read(_rowid: Any) -> int:
        """An UPDATE's first WHERE term: one more row its scan read (`current_row`), the row MariaDB
        names in a stored value's warning or error; true."""
        fx = session_fx()
        fx.current_row += 1
        return 1

    def mysql_upsert_mark(value: Any, changed: Any) -> Any:
        if state.fx is not None:
            if changed:
                state.fx.upserts_changed += 1
            else:
                state.fx.upserts_unchanged += 1
        return value

    def mysql_set_last_id(value: Any) -> Any:
        if state.fx is not None and value is not None:
            state.fx.set_last_id = int(value)
        return value

    def mysql_set_var(name: str, value: Any) -> Any:
        """@name := value, row by row in the order SQLite evaluates it: the value, which the
        statement's later reads see and the session keeps after it."""
        if state.fx is not None:
            if state.fx.assigned is None:
                state.fx.assigned = {}
            state.fx.assigned[name] = value
        return value

    def mysql_get_var(name: str, start: Any, after_assignment: Any) -> Any:
        """@name in a statement that assigns it: its value now, as MariaDB reads it there, typed
        when the statement begins: by its value then (`start`: an integer stays an integer, a
        string a string ...); a variable that had none a string once an assignment before this
        read (`after_assignment`) made it, else NULL throughout."""
        fx = state.fx
        value = fx.assigned[name] if fx is not None and fx.assigned and name in fx.assigned else start
        if value is None:
            return None
        if start is None:
            return _to_str(value) if after_assignment else None
        if isinstance(start, bool | int):
            return _int(value)
        if isinstance(start, float):
            return float(_num(value))
        if isinstance(start, bytes):
            return _to_bytes(value)
        return _to_str(value)

    def mysql_sleep(seconds: Any) -> int | None:
        if seconds is None:
            return None
        fx = session_fx()
        fx.sleeping = True
        try:
            if fx.interrupted.wait(max(_num(seconds), 0.0)):
                raise_sql(SQLError(ER_QUERY_INTERRUPTED))  # MariaDB's: the statement fails
            return 0
        finally:
            fx.sleeping = False

    def get_lock(name: Any, timeout: Any) -> int | None:
        if name is None:
            return None
        fx = session_fx()
        fx.sleeping = True
        try:
            return LOCKS.get(fx, _to_str(name), -1.0 if timeout is None else _num(timeout))
        finally:
            fx.sleeping = False

    def mysql_store(value: Any, key: str) -> Any:
        """An expression's value written to a column: converted and checked as strict mode
        stores a literal (`values.store`); an error is the statement's (`raised`)."""
        fx = session_fx()
        counts = fx.stored_rows
        row = counts[key] = counts.get(key, 0) + 1
        return store(value, key, fx.current_row or row, fx.warnings)

    def mysql_store_check(value: Any, key: str, *_place: Any) -> Any:
        """mysql_store's (mysql_store_row's) value for the same row once more (UPDATE's
        changed-rows condition; its warnings are mysql_store's)."""
        fx = session_fx()
        return store(value, key, fx.current_row or fx.stored_rows.get(key, 0) + 1, None)

    def mysql_store_row(value: Any, key: str, place: int) -> Any:
        """mysql_store's for each row (a function SQLite does not fold: `VOLATILE`), an assignment
        stored per row updated; its warnings in the row's in the order of the assignments
        (`place` in their list), as MariaDB stores a row's values, where SQLite computes them in
        the table's column order (a warning's first field orders them only)."""
        fx = session_fx()
        counts = fx.stored_rows
        row = counts[key] = counts.get(key, 0) + 1
        row = fx.current_row or row
        note = values.target_cut_note(key, value, row)
        warned: list = [] if note is None else [note]
        stored = store(value, key, row, warned)
        fx.warnings.extend((row + place / (place + 1), *warning[1:]) for warning in warned)
        return stored

    def mysql_store_assigned(value: Any, key: str) -> Any:
        """A trigger's `SET NEW.col = expr` stored (`engine.triggers`): MariaDB's errors and
        warnings of it name row 0."""
        fx = session_fx()
        stored = store(value, key, 0, fx.warnings)
        fx.trigger_assigned = (key, stored)
        return stored

    def store(value: Any, key: str, row: int, warnings: list | None) -> Any:
        try:
            return values.store_target(key, value, row, warnings)
        except SQLError as exc:
            raise_sql(exc)

    def mysql_char(charset: str, *args: Any) -> bytes | str | None:
        """CHAR(N, ... [USING charset]): each argument read as an integer (a string that is none
        warned of, as CAST does), NULLs skipped (`strfuncs.mysql_char`). `charset` 'latin1:item'
        ('ascii:item') is the call a whole select item is: any other CHAR(... USING latin1) whose
        bytes are not ASCII fails with 1235 (`strfuncs.NARROW_CHARSETS`)."""
        numbers: list[int | None] = []
        for arg in args:
            if type(arg) is str and (warning := values.number_warning(arg, "INTEGER")):
                warn(warning)
            numbers.append(None if arg is None else int(cast_int(arg, "lit", 0) or 0))
        charset, _, place = charset.partition(":")
        out = strfuncs.mysql_char(charset, numbers, warn)
        if charset in strfuncs.NARROW_CHARSETS and place != "item" and out is not None \
                and any(n is not None and n & 0xFFFFFFFF > 0x7F for n in numbers):
            raise_sql(SQLError(ER_NOT_SUPPORTED_YET, f"CHAR(... USING {charset}) of a code past 127 but as a select item"))
        return out

    def mysql_fsp(value: Any, micros: int, digits: Any, name: str) -> Any:
        """NOW(n) and friends: the statement's time with its microseconds' first n digits
        (MariaDB truncates them)."""
        if not isinstance(digits, int) or not 0 <= digits <= 6:
            raise_sql(SQLError(ER_TOO_BIG_PRECISION, name, 6))
        return value if value is None or not digits else f"{value}.{micros:06d}"[:len(value) + 1 + digits]

    format_string = strfuncs.sformat(warn)

    def sformat(fmt: Any, *args: Any) -> str | None:
        try:
            return format_string(fmt, *args)
        except strfuncs.Unsupported as exc:
            raise_sql(SQLError(ER_NOT_SUPPORTED_YET, str(exc)))
            raise

    def benchmark(count: Any, _value: Any) -> int | None:
        """BENCHMARK(count, expr): 0, its expression evaluated (once: the translation refuses one
        with effects, `translate.BENCHMARK_EFFECTS`); NULL for a NULL or negative count (1411)."""
        if count is None:
            return None
        n = _int(count)
        if n < 0:
            warn(("Warning", ER_WRONG_VALUE_FOR_TYPE.code, ER_WRONG_VALUE_FOR_TYPE.format("count", n, "benchmark")))
            return None
        return 0

    def mysql_sysdate(digits: Any) -> str:
        """SYSDATE(n): the clock's time as the call runs (not the statement's: SET timestamp
        does not fix it, two calls differ), n digits of its microseconds."""
        seconds, micros = divmod(time.time_ns() // 1000, 1_000_000)
        return mysql_fsp(datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M:%S"), micros, digits,
                         "sysdate")

    fns = {
        "mysql_sysdate": (1, mysql_sysdate),
        "timestamp": (-1, timestamp), "exp": (1, mysql_exp), "pow": (2, mysql_pow),
        "ln": (1, logarithm(math.log, warn)), "log": (-1, logarithm(math.log10, warn)),
        "log2": (1, logarithm(math.log2, warn)), "log10": (1, logarithm(math.log10, warn)),
        "aes_encrypt": (2, aes_encrypt), "aes_decrypt": (2, aes_decrypt), "random_bytes": (1, random_bytes),
        "mysql_last_value": (-1, lambda *args: args[-1] if args else None),
        "sformat": (-1, sformat), "soundex": (1, strfuncs.soundex), "mysql_benchmark": (2, benchmark), "natural_sort_key": (1, strfuncs.natural_sort_key),
        "chr": (1, lambda n: None if n is None else mysql_char("utf8mb4", n)), "crc32c": (-1, strfuncs.crc32c),
        "password": (1, strfuncs.password), "old_password": (1, strfuncs.old_password),
        "cot": (1, cot),
        "sys_guid": (0, lambda: mysql_uuid(session_fx().rand).replace("-", "")),
        "mysql_fsp": (4, mysql_fsp), "mysql_now_stored": (4, now_stored), "mysql_format": (-1, format_locale(warn)), "upper": (1, _case(str.upper)), "lower": (1, _case(str.lower)), "mysql_store": (2, mysql_store), "mysql_store_check": (-1, mysql_store_check),
        "mysql_number_text": (4, mysql_number_text), "mysql_number_text_quiet": (4, lambda value, *_reading: value), "mysql_store_row": (3, mysql_store_row), "mysql_store_assigned": (2, mysql_store_assigned), "mysql_sleep": (1, mysql_sleep), "get_lock": (2, get_lock),
        "release_lock": (1, lambda n: None if n is None else LOCKS.release(session_fx(), _to_str(n))),
        "release_all_locks": (0, lambda: LOCKS.release_all(session_fx())),
        "is_free_lock": (1, lambda n: None if n is None else int(LOCKS.owner(_to_str(n)) is None)),
        "is_used_lock": (1, lambda n: None if n is None else LOCKS.owner(_to_str(n))),
        "uuid_short": (0, uuid_short), "crc32": (1, crc32), "mysql_hex": (1, mysql_hex), "unhex": (1, unhex),
        "to_base64": (1, to_base64), "from_base64": (1, from_base64), "find_in_set": (2, find_in_set),
        "strcmp": (2, strcmp),
        "field": (-1, field), "interval": (-1, interval), "elt": (-1, elt), "mysql_insert": (4, mysql_insert),
        "regexp_replace": (3, regexp_replace), "regexp_substr": (2, regexp_substr),
        "regexp_instr": (2, regexp_instr), "str_to_date": (2, str_to_date), "datediff": (2, datediff),
        "mysql_timestampdiff": (3, timestampdiff),
        "mysql_timestampadd": (3, lambda unit, n, d: date_add(d, n, unit, 1)), "last_day": (1, last_day), "dayofweek": (1, dayofweek),
        "weekday": (1, weekday), "week": (-1, week),
        "weekofyear": (1, lambda value: week(value, 3)), "time_format": (2, time_format),
        "inet_aton": (1, inet_aton), "inet_ntoa": (1, inet_ntoa), "mysql_json_extract": (-1, lambda *args: json_extract(session_fx().warnings, *args)),
        "json_unquote": (1, json_unquote), "json_contains": (-1, json_contains),
        "mysql_json_valid": (1, json_valid),
        "dayofyear": (1, _part(7)), "quarter": (1, quarter), "conv": (3, conv), "mysql_nonzero": (1, nonzero), "mysql_one_row": (1, one_row), "mysql_check": (4, mysql_check), "mysql_double_text": (1, double_text),
        "mysql_greatest": (-1, _extreme(True, warn)), "mysql_least": (-1, _extreme(False, warn)),
        "master_pos_wait": (-1, lambda *args: None),  # not a slave here (a slave's role answers it)
        "concat": (-1, concat), "concat_ws": (-1, concat_ws),
        "unix_timestamp": (-1, unix_timestamp),
        "mysql_unix_timestamp": (-1, _noting_cut_times(warn, unix_timestamp)),
        "from_unixtime": (-1, from_unixtime), "date_format": (2, date_format),
        "year": (1, _part(0)), "month": (1, _part(1)), "day": (1, _part(2)), "hour": (1, _part(3)),
        "minute": (1, _part(4)), "second": (1, _part(5)),
        "mysql_left": (2, left), "mysql_right": (2, right), "mysql_mod": (2, decimal_math.noting_zero(mysql_mod, divided_by_zero(state))),
        "mysql_mod_strict": (2, strict_division(mysql_mod)),
        **{name + "_strict": (2, strict_division(decimal_math.FUNCTIONS[name]))
           for name in ("mysql_dec_div", "mysql_dec_mod", "mysql_dec_intdiv")},
        "mysql_floor": (1, lambda x: None if x is None else _integral(math.floor(_num(x)))),
        "mysql_ceil": (1, lambda x: None if x is None else _integral(math.ceil(_num(x)))), "lpad": (3, lambda s, n, p: _pad(s, n, p, True)), "rpad": (3, lambda s, n, p: _pad(s, n, p, False)),
        "repeat": (2, repeat),
        "reverse": (1, lambda s: None if s is None else _to_str(s)[::-1]),
        "md5": (1, _hash("md5")), "sha1": (1, _hash("sha1")), "sha": (1, _hash("sha1")), "sha2": (2, sha2),
        "uuid": (0, lambda: mysql_uuid(session_fx().rand)), "octet_length": (1, octet_length),
        "bit_length": (1, lambda value: None if (n := octet_length(value)) is None else 8 * n),
        "mysql_locate": (-1, mysql_locate), "substring_index": (3, substring_index),
        "mysql_bit_xor": (2, bit_xor), "mysql_bit_not": (1, bit_not), "mysql_distinct_key": (-1, distinct_key),
        "mysql_bit_and": (2, bit_and), "mysql_bit_or": (2, bit_or), "mysql_bit_shl": (2, bit_shl),
        "mysql_bit_shr": (2, bit_shr), "mysql_int_add": (4, _checked(operator.add, "mysql_dec_add")),
        "mysql_int_sub": (4, _checked(operator.sub, "mysql_dec_sub")),
        "mysql_int_mul": (4, _checked(operator.mul, "mysql_dec_mul")), "mysql_int_neg": (2, _checked_neg),
        "mysql_hex_number": (1, hex_number), "mysql_zerofill": (4, zerofill_text), "truncate": (2, truncate), "regexp": (2, regexp), "mysql_isnull": (1, mysql_isnull),
        "ascii": (1, lambda s: None if s is None else (ord(_to_str(s)[0]) if _to_str(s) else 0)),
        "mysql_rand": (-1, mysql_rand), "mysql_set_last_id": (1, mysql_set_last_id),
        "mysql_set_var": (2, mysql_set_var), "mysql_get_var": (3, mysql_get_var),
        "mysql_upsert_mark": (2, mysql_upsert_mark), "mysql_matched": (3, mysql_matched), "mysql_row_read": (1, mysql_row_read),
        "mysql_fixedbin_bound": (3, mysql_fixedbin_bound), "mysql_date_add": (-1, date_add),
        "mysql_temporal": (3, mysql_temporal), "yearweek": (-1, yearweek),
        "dayname": (1, lambda v: None if (d := _date(v)) is None else _DAY_NAMES[d.weekday()]),
        "monthname": (1, lambda v: None if (d := _date(v)) is None else _MONTH_NAMES[d.month - 1]),
        "time_to_sec": (1, time_to_sec), "mysql_round_double": (2, decimal_math.round_double),
        "mysql_cast_int": (3, mysql_cast_int), "timediff": (2, timediff), "json_length": (-1, json_length),
        "json_keys": (-1, json_keys), "mysql_json_text": (1, json_text), "mysql_bit_bytes": (3, bit_bytes), "mysql_charset_bytes": (2, charset_bytes),
        "mysql_json_compared_text": (1, json_compared_text), "mysql_json_compared_number": (1, json_compared_number), "json_compact": (1, json_compact), "json_type": (1, json_type), "make_set": (-1, make_set),
        "export_set": (-1, export_set), "mysql_extract": (2, extract), "mysql_substr": (-1, substring),
        "convert_tz": (3, convert_tz),
        "from_days": (1, lambda n: None if n is None else "0000-00-00" if _int(n) < 366 else
                      date.fromordinal(min(_int(n) - 365, date.max.toordinal())).isoformat()),
        "to_days": (1, lambda v: None if (d := _date(v)) is None else d.toordinal() + 365),
        "addtime": (2, lambda a, b: addtime(a, b, 1)), "subtime": (2, lambda a, b: addtime(a, b, -1)),
        "time": (1, lambda v: None if (sec := _seconds(v)) is None else _time_text(sec)),
        "date": (1, lambda v: None if v is None else values.temporal_text(v, "date", 0, stored=True)),
        "microsecond": (1, lambda v: None if (clock := _clock(v)) is None else clock[3]),
        "to_seconds": (1, lambda v: None if (dt := _dt(v)) is None
                       else (dt.toordinal() + 365) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second),
        "json_depth": (1, json_depth),
        **{name: (-1, lambda *args, fn=fn: fn(session_fx().warnings, *args)) for name, fn in (
            ("json_contains_path", json_contains_path), ("json_search", json_search), ("json_overlaps", json_overlaps),
            ("json_equals", json_equals), ("json_normalize", json_normalize), ("json_detailed", json_detailed),
            ("json_loose", json_loose), ("json_merge_preserve", json_merge_preserve),
            ("json_merge_patch", json_merge_patch), ("json_query", json_query),
            ("json_value", lambda warnings, doc, path: json_query(warnings, doc, path, True)))},
        "json_exists": (2, json_exists),
        **{f"mysql_{name}": (-1, lambda kinds, *args, name=name: json_edit(name, session_fx().warnings, kinds, *args))
           for name in ("json_array_append", "json_array_insert", "json_set", "json_insert", "json_replace")},
        # MariaDB's JSON_QUOTE of NULL or of a number is NULL (SQLite's json_quote writes null, 1)
        "json_quote": (1, lambda v: json.dumps(v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v,
                                               ensure_ascii=False) if isinstance(v, str | bytes) else None),
        "makedate": (2, makedate),
        "maketime": (3, lambda h, m, sec: None if None in (h, m, sec) or not (0 <= _int(m) < 60 and 0 <= _num(sec) < 60)
                     else _time_text(_int(h) * 3600 + (-1 if _int(h) < 0 else 1) * (_int(m) * 60 + _num(sec)))),
        "period_add": (2, period_add),
        "period_diff": (2, lambda a, b: None if a is None or b is None
                        else _period_months(_int(a)) - _period_months(_int(b))), "mysql_cast_temporal": (3, _noting_cut_times(warn, mysql_cast_temporal)),
        "ord": (1, lambda v: None if v is None else int.from_bytes(_to_str(v)[:1].encode("utf-8", "surrogateescape"),
                                                                   "big")),
        "mysql_xor": (2, lambda a, b: None if a is None or b is None else int(bool(_num(a))) ^ int(bool(_num(b)))),
        "mysql_trim": (3, mysql_trim), "sec_to_time": (1, sec_to_time), "mysql_quote": (1, mysql_quote),
        "space": (1, lambda n: None if n is None else " " * max(_int(n), 0)),
        "bin": (1, lambda n: None if n is None else format(_int(n) & ((1 << 64) - 1), "b")),
        "oct": (1, lambda n: None if n is None else format(_int(n) & ((1 << 64) - 1), "o")),
        "bit_count": (1, lambda n: None if n is None else bin(_int(n) & ((1 << 64) - 1)).count("1")),
        "mysql_char": (-1, mysql_char), "mysql_get_format": (2, strfuncs.get_format),
        "inet6_aton": (1, strfuncs.inet6_aton), "inet6_ntoa": (1, strfuncs.inet6_ntoa),
        "is_ipv4": (1, strfuncs.is_ipv4), "is_ipv6": (1, strfuncs.is_ipv6),
        "is_ipv4_compat": (1, strfuncs.ipv6_test(False, warn)), "is_ipv4_mapped": (1, strfuncs.ipv6_test(True, warn)),
        "mysql_fixedbin_cast": (2, strfuncs.fixedbin_cast(warn)),
        "compress": (1, strfuncs.compress), "uncompress": (1, strfuncs.uncompress(warn)),
        "uncompressed_length": (1, strfuncs.uncompressed_length(warn)),
    }
    # typeshed's create_aggregate wants step(int) and finalize() -> int; SQLite passes any values
    # (n_arg of them) and takes any SQLite value back, as these aggregates use
    for name, aggregate in (("bit_xor", _BitXor), ("bit_or", _BitOr), ("bit_and", _BitAnd)):
        conn.create_aggregate(name, 1, aggregate)  # type: ignore[arg-type]
    # (a window function is an aggregate too, where no OVER follows it)
    for name, window in (("std", _StdDev), ("stddev", _StdDev), ("stddev_pop", _StdDev), ("variance", _Variance),
                         ("var_pop", _Variance), ("var_samp", _VarSamp), ("stddev_samp", _StdDevSamp)):
        conn.create_window_function(name, 1, window)  # type: ignore[arg-type]
    conn.create_aggregate("mysql_group_concat", -1, _GroupConcat)  # type: ignore[arg-type]
    conn.create_window_function("mysql_percentile", 4, _Percentile)  # type: ignore[arg-type]
    conn.create_aggregate("mysql_json_arrayagg", 2, _JsonArrayAgg)  # type: ignore[arg-type]
    conn.create_aggregate("mysql_json_objectagg", 3, _JsonObjectAgg)  # type: ignore[arg-type]
    for name, (nargs, fn) in fns.items():
        deterministic = name not in VOLATILE
        conn.create_function(name, nargs, _text_or_bytes(fn), deterministic=deterministic)
