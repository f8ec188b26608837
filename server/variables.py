"""System variables and status variables: one registry per server, fed by providers.

Contract
- A system variable is a `SystemVariable`: a lower-case name, a scope (GLOBAL, SESSION or
  BOTH), whether SET may change it (`dynamic`), a `check` that turns what SET received into the
  stored value (raising ValueError -> ER_WRONG_VALUE_FOR_VAR 1231, TypeError ->
  ER_WRONG_TYPE_FOR_VAR 1232), and optionally a live `getter` and an `on_set` callback for the
  global value. A numeric variable's check is a `Bounds`: out of its range (or off its block
  size) the value is clamped as MariaDB's Sys_var_integer / Sys_var_double do, with warning 1292
  naming the value given, or refused with 1231 under STRICT_ALL_TABLES; SET reads the warnings
  through `Variables.check_set`. A variable whose session value only SET GLOBAL changes is
  `session_read_only` (1621 for SET SESSION, as MariaDB's max_allowed_packet); a `deprecated`
  one warns 1287 at every SET, before its value is checked. A global value that must be durable
  when SET answers OK names a `settled` coroutine: `Variables.apply` (the SET statement's path)
  awaits it after `on_set`, so the OK follows the commit (gtid_slave_pos). A SET of several variables checks every value (`check_set`) before it
  assigns any (`assign`), so that one refused value changes nothing. Session values live in
  `ClientSession.sysvars` (copied from the globals of the BOTH-scope variables when the session
  starts, as mysqld does); a variable may instead route its session value through
  `session_get` / `session_set` (autocommit lives in the engine).
- Providers add and remove variables at any time (the core server at startup, the role at
  attach, a plugin on INSTALL/UNINSTALL): `add(...)`, `remove(...)`. A removed variable no
  longer exists (ER_UNKNOWN_SYSTEM_VARIABLE 1193), exactly as for an uninstalled plugin.
- Status variables come from providers: callables returning {Name: value} when SHOW STATUS
  runs. Names keep their MySQL capitalisation; lookups and LIKE are case-insensitive.
- Values are Python values: bool (shown ON/OFF by SHOW VARIABLES and 1/0 by SELECT @@), int,
  float (a DOUBLE, shown with 6 decimals by SHOW VARIABLES and SELECT @@, whose column says
  6 decimals: `Double`), str, None (NULL, shown as empty by
  SHOW VARIABLES).
Only the event loop thread touches the registry.
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from protocol.errors import (
    ER_DATA_OVERFLOW,
    ER_GLOBAL_VARIABLE,
    ER_INCORRECT_GLOBAL_LOCAL_VAR,
    ER_LOCAL_VARIABLE,
    ER_TRUNCATED_NUMBER,
    ER_UNKNOWN_SYSTEM_VARIABLE,
    ER_VARIABLE_IS_READONLY,
    ER_WARN_DEPRECATED_SYNTAX,
    ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT,
    ER_WRONG_TYPE_FOR_VAR,
    ER_WRONG_VALUE_FOR_VAR,
    SQLError,
)

if TYPE_CHECKING:
    from server.session import ClientSession


class Scope(enum.Flag):
    GLOBAL = 1
    SESSION = 2
    BOTH = 3


class _Default:
    """The SQL keyword DEFAULT on the right of SET."""

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default()


@dataclass(slots=True, eq=False)
class SystemVariable:
    name: str
    value: Any = None
    scope: Scope = Scope.GLOBAL
    dynamic: bool = False
    check: Callable[[Any], Any] | None = None
    on_set: Callable[[Any], None] | None = None
    getter: Callable[[], Any] | None = None
    session_get: Callable[[ClientSession], Any] | None = None
    session_set: Callable[[ClientSession, Any], None] | None = None
    default: Any = None  # what SET var = DEFAULT restores (None: the value at registration)
    # awaited by SET GLOBAL after on_set, before the client's OK: the setter's durable part
    settled: Callable[[], Awaitable[None]] | None = None
    session_read_only: bool = False  # the session value follows SET GLOBAL only (1621)
    # the warnings a SET GLOBAL of a good value still earns (MariaDB's on_check warnings)
    advise: Callable[[Any], list[Diagnostic]] | None = None
    # MariaDB's deprecated variables: every SET warns (1287), naming the replacement if any
    deprecated: bool | str = False

    def __post_init__(self) -> None:
        self.name = self.name.lower()
        if self.default is None:
            self.default = self.value

    def get_global(self) -> Any:
        return self.getter() if self.getter is not None else self.value

    def checked(self, value: Any, warnings: list[Diagnostic] | None = None, strict: bool = False) -> Any:
        """What SET stores for `value`: a `Bounds` check's clamping warned of in `warnings`
        (refused with 1231 when `strict`: STRICT_ALL_TABLES); DEFAULT is never clamped."""
        check = self.check
        if value is DEFAULT:
            if isinstance(check, Bounds):  # (in range as it is; a source's DEFAULT is None)
                return self.default
            value = self.default
        if check is None:
            return value
        try:
            if warnings is not None and isinstance(check, Bounds):
                return check.fitted(self.name, value, warnings, strict)
            return check(value)
        except TypeError:
            raise SQLError(ER_WRONG_TYPE_FOR_VAR, self.name) from None
        except ValueError:
            raise SQLError(ER_WRONG_VALUE_FOR_VAR, self.name, display(value, null="NULL")) from None


def _deprecation(var: SystemVariable) -> Diagnostic:
    if isinstance(var.deprecated, str):
        return ("Warning", ER_WARN_DEPRECATED_SYNTAX.code,
                ER_WARN_DEPRECATED_SYNTAX.format(f"@@{var.name}", f"'@@{var.deprecated}'"))
    return ("Warning", ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT.code,
            ER_WARN_DEPRECATED_SYNTAX_NO_REPLACEMENT.format(f"@@{var.name}"))


# -- value checkers for SET (ValueError: bad value, TypeError: wrong type) -------------------

_BOOL_WORDS = {"ON": True, "OFF": False}


def check_bool(value: Any) -> bool:
    """A boolean variable (MariaDB's Sys_var_mybool): 0 or 1, or the string ON or OFF in any
    case (TRUE / FALSE are the integers 1 / 0; the strings '1', 'TRUE' are 1231)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value in (0, 1):
            return bool(value)
        raise ValueError(value)
    if isinstance(value, str) and value.upper() in _BOOL_WORDS:
        return _BOOL_WORDS[value.upper()]
    if isinstance(value, float):
        raise TypeError(value)
    raise ValueError(value)


Diagnostic = tuple[str, int, str]  # (level, code, message), as SHOW WARNINGS lists it

_LONGLONG_MIN, _LONGLONG_MAX, _ULONGLONG_MAX = -(2**63), 2**63 - 1, 2**64 - 1


@dataclass(frozen=True, slots=True)
class Bounds:
    """A numeric variable's range as MariaDB's Sys_var_integer (`real` False) or Sys_var_double
    (`real` True) checks a SET. An integer is an integer literal or expression only (a string,
    a DECIMAL or a DOUBLE is the wrong type, 1232); one past the 64-bit range is first read as
    the nearest signed 64-bit integer with warning 1916 (MariaDB's val_int() of a DECIMAL);
    a negative one is 0 to an unsigned variable; then it is clamped to `high`, rounded down to
    a multiple of `block`, raised to `low` (getopt_ull_limit_value's order). A DOUBLE takes
    any number, clamped into [low, high]. A value changed on the way is warning 1292 naming
    the value given (`fitted`), or 1231 under STRICT_ALL_TABLES. Called as a plain check, it
    clamps silently."""

    low: int | float
    high: int | float
    block: int = 1
    real: bool = False

    def __call__(self, value: Any) -> Any:
        return self.fitted("", value, [], False)

    def fitted(self, name: str, value: Any, warnings: list[Diagnostic], strict: bool) -> Any:
        if self.real:
            if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
                raise TypeError(value)
            number: Any = float(value)
            result: Any = min(max(number, self.low), self.high)
            shown = double_text(number)
        else:
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(value)
            number = value
            if not _LONGLONG_MIN <= number <= _ULONGLONG_MAX:
                warnings.append(("Warning", ER_DATA_OVERFLOW.code, ER_DATA_OVERFLOW.format(number, "INT")))
                number = _LONGLONG_MAX if number > 0 else _LONGLONG_MIN
            result = min(max(number, 0), self.high)
            result = max(result - result % self.block, self.low)
            shown = str(number)
        if result != number:
            if strict:
                raise SQLError(ER_WRONG_VALUE_FOR_VAR, name, shown)
            warnings.append(("Warning", ER_TRUNCATED_NUMBER.code, ER_TRUNCATED_NUMBER.format(name, shown)))
        return result


def check_int(low: int, high: int, block: int = 1) -> Bounds:
    """Integers in [low, high], multiples of `block` (`Bounds`)."""
    return Bounds(low, high, block)


def check_double(low: float, high: float) -> Bounds:
    """A DOUBLE variable (max_statement_time, long_query_time): a number in [low, high]
    (`Bounds`); strings, NULL and ON/OFF are the wrong type."""
    return Bounds(low, high, real=True)


def double_text(value: float) -> str:
    """A DOUBLE as MariaDB's warnings quote it: its shortest digits, positional up to 15 integer
    digits, else as `1.5e30` (no '+', no leading zero in the exponent)."""
    if value == 0:
        return "0"
    exact = Decimal(repr(abs(value))).as_tuple()
    point = len(exact.digits) + int(exact.exponent)  # digits before the decimal point
    digits = "".join(map(str, exact.digits)).rstrip("0")
    sign = "-" if value < 0 else ""
    if point > 15 or point < -14:
        fraction = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{point - 1}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def check_enum(*allowed: str) -> Callable[[Any], str]:
    names = {a.upper(): a for a in allowed}

    def check(value: Any) -> str:
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int) and 0 <= value < len(allowed):
            return allowed[value]
        if isinstance(value, str) and value.upper() in names:
            return names[value.upper()]
        if isinstance(value, (float, Decimal)):
            raise TypeError(value)  # (a DECIMAL or DOUBLE is no enum's index, as MariaDB's)
        raise ValueError(value)

    return check


def check_str(value: Any) -> str:
    """A string variable's text; a DECIMAL or DOUBLE is the wrong type (1232), as MariaDB's."""
    if value is None:
        raise ValueError(value)
    if isinstance(value, (float, Decimal)):
        raise TypeError(value)
    if isinstance(value, bool):
        return str(int(value))
    return str(value)


def display(value: Any, *, null: str | None = "") -> str | None:
    """SHOW VARIABLES form of a value (bool as ON/OFF)."""
    if value is None:
        return null
    if value is True:
        return "ON"
    if value is False:
        return "OFF"
    if isinstance(value, float):
        return f"{value:.6f}"  # DOUBLE variables as mysqld shows them (max_statement_time, timestamp)
    return str(value)


class Double(float):
    """A DOUBLE variable's value as SELECT @@var gives it: MariaDB describes the column with 6
    decimals and sends the text with 6 (`0.000000`); arithmetic on it is a plain float."""

    __slots__ = ()
    decimals = 6

    def __str__(self) -> str:
        return f"{self:.6f}"


def select_value(value: Any) -> Any:
    """SELECT @@var form of a value (bool as 1/0, a float as a `Double`)."""
    if isinstance(value, bool):
        return int(value)
    if type(value) is float:
        return Double(value)
    return value


@functools.lru_cache(maxsize=256)
def like_matcher(pattern: str, ignore_case: bool = True) -> Callable[[str], Any]:
    """A matcher for an SQL LIKE pattern (`%`, `_`, backslash escapes), case-insensitive
    unless `ignore_case` is False."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(out), (re.IGNORECASE if ignore_case else 0) | re.DOTALL).fullmatch


StatusProvider = Callable[[], Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Assignment:
    """One checked `SET`: the variable, GLOBAL or SESSION, the value to store."""

    variable: SystemVariable
    scope: Scope
    value: Any


def _sourced(source: Any, name: str) -> SystemVariable:
    """A transient SystemVariable for a variable owned by `source`: a global, dynamic one whose
    checks (1231/1232) are the source's own, an integer clamped into the source's range first
    (`Bounds`, with its warnings); DEFAULT reaches the source as None."""
    bounds = source.variable_range(name)
    if bounds is not None:
        check: Callable[[Any], Any] = Bounds(*bounds)
        default: Any = None
    else:
        check, default = (lambda value: None if value is _NO_DEFAULT else value), _NO_DEFAULT
    return SystemVariable(
        name,
        scope=Scope.GLOBAL,
        dynamic=True,
        getter=lambda: source.get_variable(name),
        on_set=lambda value: source.set_variable(name, value),
        default=default,
        check=check,
    )


_NO_DEFAULT = object()


class Variables:
    """The registry of one server."""

    def __init__(self) -> None:
        self._vars: dict[str, SystemVariable] = {}
        self._status: list[StatusProvider] = []
        self._sources: list[Any] = []

    # -- registration -----------------------------------------------------------------------

    def add(self, *variables: SystemVariable | Iterable[SystemVariable]) -> None:
        for item in variables:
            for var in (item,) if isinstance(item, SystemVariable) else item:
                self._vars[var.name] = var

    def remove(self, *names: str) -> None:
        for name in names:
            self._vars.pop(name.lower(), None)

    def add_source(self, source: Any) -> None:
        """A live set of global, dynamic variables owned elsewhere (the plugin registry):
        `knows_variable(name)`, `get_variable(name)` (SELECT form), `set_variable(name, value)`
        (value None = DEFAULT; raises SQLError), `variable_range(name)` (an integer's (minimum,
        maximum), else None), `system_variables()` ({name: SHOW text})."""
        self._sources.append(source)

    def add_status(self, provider: StatusProvider) -> None:
        self._status.append(provider)

    def remove_status(self, provider: StatusProvider) -> None:
        self._status = [p for p in self._status if p is not provider]

    # -- lookup -----------------------------------------------------------------------------

    def find(self, name: str) -> SystemVariable | None:
        key = name.lower()
        var = self._vars.get(key)
        if var is None:
            for source in self._sources:
                if source.knows_variable(key):
                    return _sourced(source, key)
        return var

    def lookup(self, name: str) -> SystemVariable:
        var = self.find(name)
        if var is None:
            raise SQLError(ER_UNKNOWN_SYSTEM_VARIABLE, name)
        return var

    def names(self) -> list[str]:
        names = set(self._vars)
        for source in self._sources:
            names.update(source.system_variables())
        return sorted(names)

    def session_defaults(self) -> dict[str, Any]:
        """Initial session values: a copy of the global value of every BOTH-scope variable."""
        return {
            name: var.get_global()
            for name, var in self._vars.items()
            if var.scope is Scope.BOTH and var.session_get is None
        }

    def get(self, name: str, session: ClientSession | None, scope: Scope | None = None) -> Any:
        """`@@name` (scope None: session value if there is one), `@@global.name`, `@@session.name`."""
        var = self.lookup(name)
        return self._value(var, session, scope)

    def _value(self, var: SystemVariable, session: ClientSession | None, scope: Scope | None) -> Any:
        if scope is Scope.GLOBAL:
            if not var.scope & Scope.GLOBAL:
                raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, var.name, "SESSION")
            return var.get_global()
        if scope is Scope.SESSION and not var.scope & Scope.SESSION:
            raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, var.name, "GLOBAL")
        if session is not None and var.scope & Scope.SESSION:
            if var.session_get is not None:
                return var.session_get(session)
            if var.name in session.sysvars:
                return session.sysvars[var.name]
        return var.get_global()

    def set(self, name: str, value: Any, scope: Scope | None, session: ClientSession | None) -> None:
        """SET [GLOBAL|SESSION] name = value (scope None means SESSION, as in SQL), clamping
        silently. Privileges are the caller's business."""
        self.assign(self.check_set(name, value, scope, session), session)

    def check_set(self, name: str, value: Any, scope: Scope | None, session: ClientSession | None,
                  warnings: list[Diagnostic] | None = None) -> Assignment:
        """SET's first step: whether `name` may be set in `scope` (1193, 1238, 1228, 1229, 1621)
        and the value it stores (1231, 1232), its clamping warned of in `warnings` (1231 instead
        under the session's STRICT_ALL_TABLES). Changes nothing."""
        var = self.lookup(name)
        if not var.dynamic:
            raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, var.name, "read only")
        if var.deprecated and warnings is not None:  # (before the value's own check, as MariaDB's)
            warnings.append(_deprecation(var))
        strict = isinstance(var.check, Bounds) and session is not None and (
            "STRICT_ALL_TABLES" in str(session.sysvars.get("sql_mode", "")))
        if scope is Scope.GLOBAL:
            if not var.scope & Scope.GLOBAL:
                raise SQLError(ER_LOCAL_VARIABLE, var.name)
            checked = var.checked(value, warnings, strict)
            if var.advise is not None and warnings is not None:
                warnings.extend(var.advise(checked))
            return Assignment(var, Scope.GLOBAL, checked)
        if not var.scope & Scope.SESSION:
            raise SQLError(ER_GLOBAL_VARIABLE, var.name)
        if var.session_read_only:
            raise SQLError(ER_VARIABLE_IS_READONLY, "SESSION", var.name, "GLOBAL")
        if value is DEFAULT:  # the global value, or a session-only variable's default
            default = var.get_global() if var.scope & Scope.GLOBAL else DEFAULT
            return Assignment(var, Scope.SESSION, var.checked(default))
        return Assignment(var, Scope.SESSION, var.checked(value, warnings, strict))

    def assign(self, assignment: Assignment, session: ClientSession | None) -> None:
        """SET's second step: the value `check_set` made stored."""
        var, checked = assignment.variable, assignment.value
        if assignment.scope is Scope.GLOBAL:
            if var.on_set is not None:
                var.on_set(checked)
            if var.getter is None or var.on_set is None:
                var.value = checked
            return
        if session is None:
            return
        if var.session_set is not None:
            var.session_set(session, checked)
        else:
            session.sysvars[var.name] = checked

    async def apply(self, assignment: Assignment, session: ClientSession | None) -> None:
        """`assign`, then for a global value the variable's `settled`: the SET statement's OK
        follows what the setter must make durable."""
        self.assign(assignment, session)
        if assignment.scope is Scope.GLOBAL and assignment.variable.settled is not None:
            await assignment.variable.settled()

    # -- SHOW -------------------------------------------------------------------------------

    def show_variables(
        self, session: ClientSession | None, scope: Scope | None, match: Callable[[str], Any] | None
    ) -> list[tuple[str, str | None]]:
        shown: dict[str, str | None] = {}
        for source in self._sources:
            for name, text in source.system_variables().items():
                if match is None or match(name):
                    shown[name] = text
        for name, var in self._vars.items():
            if match is not None and not match(name):
                continue
            if scope is Scope.GLOBAL and not var.scope & Scope.GLOBAL:
                continue
            value = self._value(var, session, Scope.GLOBAL if scope is Scope.GLOBAL else None)
            shown[name] = display(value)
        return sorted(shown.items())

    def status(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for provider in self._status:
            merged.update(provider())
        return merged

    def show_status(
        self, match: Callable[[str], Any] | None, session_values: dict[str, Any] | None = None
    ) -> list[tuple[str, str | None]]:
        """SHOW STATUS; `session_values` overlay the global ones (SHOW [SESSION] STATUS)."""
        values = self.status()
        if session_values:
            values.update(session_values)
        return [
            (name, display(values[name]))
            for name in sorted(values, key=str.lower)
            if match is None or match(name)
        ]
