"""System variables and status variables: one registry per server, fed by providers.

Contract
- A system variable is a `SystemVariable`: a lower-case name, a scope (GLOBAL, SESSION or
  BOTH), whether SET may change it (`dynamic`), a `check` that turns what SET received into the
  stored value (raising ValueError -> ER_WRONG_VALUE_FOR_VAR 1231, TypeError ->
  ER_WRONG_TYPE_FOR_VAR 1232), and optionally a live `getter` and an `on_set` callback for the
  global value. A global value that must be durable when SET answers OK names a `settled`
  coroutine: `Variables.apply` (the SET statement's path) awaits it after `on_set`, so the OK
  follows the commit (gtid_slave_pos). Session values live in `ClientSession.sysvars` (copied from the globals of the
  BOTH-scope variables when the session starts, as mysqld does); a variable may instead route
  its session value through `session_get` / `session_set` (autocommit lives in the engine).
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
    ER_GLOBAL_VARIABLE,
    ER_INCORRECT_GLOBAL_LOCAL_VAR,
    ER_LOCAL_VARIABLE,
    ER_UNKNOWN_SYSTEM_VARIABLE,
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

    def __post_init__(self) -> None:
        self.name = self.name.lower()
        if self.default is None:
            self.default = self.value

    def get_global(self) -> Any:
        return self.getter() if self.getter is not None else self.value

    def checked(self, value: Any) -> Any:
        if value is DEFAULT:
            value = self.default
        if self.check is None:
            return value
        try:
            return self.check(value)
        except TypeError:
            raise SQLError(ER_WRONG_TYPE_FOR_VAR, self.name) from None
        except ValueError:
            raise SQLError(ER_WRONG_VALUE_FOR_VAR, self.name, display(value, null="NULL")) from None


# -- value checkers for SET (ValueError: bad value, TypeError: wrong type) -------------------

_BOOL_WORDS = {"ON": True, "TRUE": True, "1": True, "OFF": False, "FALSE": False, "0": False}


def check_bool(value: Any) -> bool:
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


def check_int(low: int, high: int) -> Callable[[Any], int]:
    """Integers in [low, high]; out-of-range values are clamped as mysqld does (with a
    warning there); non-numbers are the wrong type."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
                value = int(value)
            else:
                raise TypeError(value)
        return min(max(value, low), high)

    return check


def check_double(low: float, high: float) -> Callable[[Any], float]:
    """A DOUBLE variable (MariaDB's max_statement_time): a number in [low, high], clamped as
    mysqld does (with a warning there); strings, NULL and ON/OFF are the wrong type."""

    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
            raise TypeError(value)
        return min(max(float(value), low), high)

    return check


def check_enum(*allowed: str) -> Callable[[Any], str]:
    names = {a.upper(): a for a in allowed}

    def check(value: Any) -> str:
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int) and 0 <= value < len(allowed):
            return allowed[value]
        if isinstance(value, str) and value.upper() in names:
            return names[value.upper()]
        raise ValueError(value)

    return check


def check_str(value: Any) -> str:
    if value is None:
        raise ValueError(value)
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


def _sourced(source: Any, name: str) -> SystemVariable:
    """A transient SystemVariable for a variable owned by `source`: a global, dynamic one whose
    checks (1231/1232) are the source's own; DEFAULT reaches the source as None."""

    return SystemVariable(
        name,
        scope=Scope.GLOBAL,
        dynamic=True,
        getter=lambda: source.get_variable(name),
        on_set=lambda value: source.set_variable(name, value),
        default=_NO_DEFAULT,
        check=lambda value: None if value is _NO_DEFAULT else value,
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
        (value None = DEFAULT; raises SQLError), `system_variables()` ({name: SHOW text})."""
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
        """SET [GLOBAL|SESSION] name = value (scope None means SESSION, as in SQL). Privileges
        are the caller's business."""
        var = self.lookup(name)
        if not var.dynamic:
            raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, var.name, "read only")
        if scope is Scope.GLOBAL:
            if not var.scope & Scope.GLOBAL:
                raise SQLError(ER_LOCAL_VARIABLE, var.name)
            checked = var.checked(value)
            if var.on_set is not None:
                var.on_set(checked)
            if var.getter is None or var.on_set is None:
                var.value = checked
            return
        if not var.scope & Scope.SESSION:
            raise SQLError(ER_GLOBAL_VARIABLE, var.name)
        checked = var.checked(value if value is not DEFAULT else var.get_global())
        if session is None:
            return
        if var.session_set is not None:
            var.session_set(session, checked)
        else:
            session.sysvars[var.name] = checked

    async def apply(self, name: str, value: Any, scope: Scope | None, session: ClientSession | None) -> None:
        """`set`, then for a global value the variable's `settled`: the SET statement's OK
        follows what the setter must make durable."""
        self.set(name, value, scope, session)
        if scope is Scope.GLOBAL:
            var = self.lookup(name)
            if var.settled is not None:
                await var.settled()

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
