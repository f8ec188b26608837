"""System variables of the semi-sync plugins: definitions, validation, display.

Contract
- A plugin declares its variables as `VariableSpec`s and keeps their values in a `Variables`
  object. The server shells show them (`SHOW VARIABLES`, `SELECT @@var`) and change them
  (`SET GLOBAL`) only through the plugin, which validates with `Variables.parse` and then
  applies the change at once.
- Values given to `parse` are what a SQL parser hands over: `int` for a number, `str` for a quoted
  string or a bare word (`ON`, `AFTER_SYNC`, also the digits of a number), `bool`, `float`
  (refused: these variables are integers), or `None` for `DEFAULT`.
- Errors are MySQL's: a value of the wrong type is `ER_WRONG_TYPE_FOR_VAR` (1232), a value out of
  range or not among the allowed words is `ER_WRONG_VALUE_FOR_VAR` (1231), an unknown name is
  `ER_UNKNOWN_SYSTEM_VARIABLE` (1193). An integer variable's range is public
  (`variable_range`): the server's SET clamps a value into it first, with mysqld's warning
  (1292), so that a changed timeout or slave count is never silent; `parse` refuses one out of
  range.
- Booleans take `ON|OFF|1|0|TRUE|FALSE` (any case), as mysqld does; they display as `ON`/`OFF`
  and read as 1/0 through `SELECT @@var`. Enums take their names (any case) or their index.
- MySQL 8 renamed master/slave to source/replica; `aliases` lists the accepted other names.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from protocol.errors import (
    ER_UNKNOWN_SYSTEM_VARIABLE,
    ER_WRONG_TYPE_FOR_VAR,
    ER_WRONG_VALUE_FOR_VAR,
    SQLError,
)

ULONG_MAX = 2**64 - 1
_TRUE_WORDS = {"ON": True, "TRUE": True, "OFF": False, "FALSE": False}


class Kind(enum.Enum):
    BOOL = "bool"
    UINT = "uint"
    ENUM = "enum"


@dataclass(frozen=True, slots=True)
class VariableSpec:
    name: str  # canonical (MySQL 5.7) name, lower case
    kind: Kind
    default: bool | int | str
    minimum: int = 0
    maximum: int = ULONG_MAX
    choices: tuple[str, ...] = ()  # ENUM names, index order as in mysqld
    aliases: tuple[str, ...] = ()
    help: str = ""

    def parse(self, value: object) -> bool | int | str:
        """The validated value for `SET GLOBAL name = value` (None means DEFAULT)."""
        if value is None:
            return self.default
        if self.kind is Kind.BOOL:
            return self._parse_bool(value)
        if self.kind is Kind.UINT:
            return self._parse_uint(value)
        return self._parse_enum(value)

    def display(self, value: bool | int | str) -> str:
        """The `SHOW VARIABLES` text of a value."""
        if self.kind is Kind.BOOL:
            return "ON" if value else "OFF"
        return str(value)

    def select_value(self, value: bool | int | str) -> int | str:
        """The `SELECT @@name` value: booleans read as 1/0, as in mysqld."""
        if self.kind is Kind.BOOL:
            return int(bool(value))
        return value  # type: ignore[return-value]

    def _wrong_value(self, value: object) -> SQLError:
        return SQLError(ER_WRONG_VALUE_FOR_VAR, self.name, _text(value))

    def _wrong_type(self) -> SQLError:
        return SQLError(ER_WRONG_TYPE_FOR_VAR, self.name)

    def _parse_bool(self, value: object) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int):
            if value in (0, 1):
                return bool(value)
            raise self._wrong_value(value)
        if isinstance(value, str | bytes):
            word = _text(value).strip().upper()
            if word in _TRUE_WORDS:
                return _TRUE_WORDS[word]
            if word in ("0", "1"):
                return word == "1"
            raise self._wrong_value(value)
        raise self._wrong_type()

    def _parse_uint(self, value: object) -> int:
        if isinstance(value, bool):
            number = int(value)
        elif isinstance(value, int):
            number = value
        elif isinstance(value, str | bytes):
            text = _text(value).strip()
            if not text.lstrip("+-").isdigit():
                raise self._wrong_type()
            number = int(text)
        else:
            raise self._wrong_type()
        if not self.minimum <= number <= self.maximum:
            raise self._wrong_value(value)
        return number

    def _parse_enum(self, value: object) -> str:
        if isinstance(value, int) and not isinstance(value, bool):
            if 0 <= value < len(self.choices):
                return self.choices[value]
            raise self._wrong_value(value)
        if isinstance(value, str | bytes):
            word = _text(value).strip().upper()
            for choice in self.choices:
                if choice.upper() == word:
                    return choice
            if word.isdigit() and int(word) < len(self.choices):
                return self.choices[int(word)]
            raise self._wrong_value(value)
        raise self._wrong_type()


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


_MISSING = object()


class Variables:
    """The current values of a set of variables, looked up by canonical name or alias."""

    def __init__(self, specs: Iterable[VariableSpec]):
        self._specs: dict[str, VariableSpec] = {}
        self._by_name: dict[str, VariableSpec] = {}
        for spec in specs:
            self._specs[spec.name] = spec
            for name in (spec.name, *spec.aliases):
                self._by_name[name] = spec
        self._values: dict[str, bool | int | str] = {s.name: s.default for s in self._specs.values()}

    def spec(self, name: str) -> VariableSpec:
        """The spec of `name` (canonical or alias, any case); 1193 if there is none."""
        spec = self._by_name.get(name.strip().lower())
        if spec is None:
            raise SQLError(ER_UNKNOWN_SYSTEM_VARIABLE, name)
        return spec

    def knows(self, name: str) -> bool:
        return name.strip().lower() in self._by_name

    def __getitem__(self, name: str) -> bool | int | str:
        value = self._values.get(name, _MISSING)  # a canonical name (the plugins' hot path)
        if value is _MISSING:
            value = self._values[self.spec(name).name]
        return value

    def parse(self, name: str, value: object) -> tuple[VariableSpec, bool | int | str]:
        spec = self.spec(name)
        return spec, spec.parse(value)

    def store(self, spec: VariableSpec, value: bool | int | str) -> None:
        self._values[spec.name] = value

    def display(self) -> dict[str, str]:
        """Canonical name -> `SHOW VARIABLES` text, sorted by name."""
        return {n: self._specs[n].display(self._values[n]) for n in sorted(self._specs)}

    def select_value(self, name: str) -> int | str:
        spec = self.spec(name)
        return spec.select_value(self._values[spec.name])

    def __iter__(self) -> Iterator[VariableSpec]:
        return iter(self._specs.values())

    def initial(self, settings: Mapping[str, object] | None) -> list[tuple[VariableSpec, bool | int | str]]:
        """Validated start-up values: the entries of `settings` that name one of these variables
        (others are ignored, so one mapping of options can be handed to several plugins)."""
        return [self.parse(name, value) for name, value in (settings or {}).items() if self.knows(name)]


def bool_spec(name: str, default: bool, aliases: tuple[str, ...] = (), help: str = "") -> VariableSpec:
    return VariableSpec(name, Kind.BOOL, default, aliases=aliases, help=help)


def uint_spec(
    name: str,
    default: int,
    minimum: int = 0,
    maximum: int = ULONG_MAX,
    aliases: tuple[str, ...] = (),
    help: str = "",
) -> VariableSpec:
    return VariableSpec(name, Kind.UINT, default, minimum, maximum, aliases=aliases, help=help)


# ---------------------------------------------------------------------------------------------
# The variables of the two plugins (mysqld's names, defaults and ranges)

WAIT_POINTS = ("AFTER_SYNC", "AFTER_COMMIT")  # index order of mysqld's enum

MASTER_ENABLED = bool_spec(
    "rpl_semi_sync_master_enabled", False, ("rpl_semi_sync_source_enabled",),
    "Enable semi-synchronous replication on the master.",
)
MASTER_TIMEOUT = uint_spec(
    "rpl_semi_sync_master_timeout", 10000, aliases=("rpl_semi_sync_source_timeout",),
    help="Milliseconds a commit waits for acks before semi-sync switches off.",
)
MASTER_WAIT_FOR_SLAVE_COUNT = uint_spec(
    "rpl_semi_sync_master_wait_for_slave_count", 1, 1, 65535,
    aliases=("rpl_semi_sync_source_wait_for_replica_count",),
    help="How many slaves must ack a transaction before its commit returns.",
)
MASTER_WAIT_NO_SLAVE = bool_spec(
    "rpl_semi_sync_master_wait_no_slave", True, ("rpl_semi_sync_source_wait_no_replica",),
    "Keep semi-sync on (and wait the timeout) when fewer semi-sync slaves than the count are connected.",
)
MASTER_WAIT_POINT = VariableSpec(
    "rpl_semi_sync_master_wait_point", Kind.ENUM, "AFTER_SYNC", choices=WAIT_POINTS,
    aliases=("rpl_semi_sync_source_wait_point",),
    help="AFTER_SYNC waits before the engine commit, AFTER_COMMIT after it.",
)
MASTER_TRACE_LEVEL = uint_spec(
    "rpl_semi_sync_master_trace_level", 32, aliases=("rpl_semi_sync_source_trace_level",),
    help="Trace bits: 1 general, 16 detail, 32 net wait, 64 function.",
)
MASTER_VARIABLES = (
    MASTER_ENABLED,
    MASTER_TIMEOUT,
    MASTER_TRACE_LEVEL,
    MASTER_WAIT_FOR_SLAVE_COUNT,
    MASTER_WAIT_NO_SLAVE,
    MASTER_WAIT_POINT,
)

SLAVE_ENABLED = bool_spec(
    "rpl_semi_sync_slave_enabled", False, ("rpl_semi_sync_replica_enabled",),
    "Request semi-sync from the master (takes effect at the next IO task start).",
)
SLAVE_TRACE_LEVEL = uint_spec(
    "rpl_semi_sync_slave_trace_level", 32, aliases=("rpl_semi_sync_replica_trace_level",),
    help="Trace bits: 1 general, 16 detail, 32 net wait, 64 function.",
)
SLAVE_VARIABLES = (SLAVE_ENABLED, SLAVE_TRACE_LEVEL)

# Trace bits (mysqld's semisync trace levels)
TRACE_GENERAL = 1
TRACE_DETAIL = 16
TRACE_NET_WAIT = 32
TRACE_FUNCTION = 64


def on_off(value: bool) -> str:
    return "ON" if value else "OFF"


class PluginVariables:
    """The variable surface shared by the plugins: their variables exist only while installed
    (a probe of an uninstalled plugin's variable gets 1193, as from mysqld)."""

    _vars: Variables
    _installed: bool
    _trace_spec: VariableSpec
    _trace_level: int
    _log: logging.Logger

    def knows_variable(self, name: str) -> bool:
        return self._installed and self._vars.knows(name)

    def system_variables(self) -> dict[str, str]:
        """Canonical name -> `SHOW VARIABLES` text (empty while uninstalled)."""
        return self._vars.display() if self._installed else {}

    def get_variable(self, name: str) -> int | str:
        """`SELECT @@name` (aliases accepted): 1/0 for booleans."""
        self._require_installed(name)
        return self._vars.select_value(name)

    def variable_range(self, name: str) -> tuple[int, int] | None:
        """(minimum, maximum) of an integer variable, None for another kind."""
        self._require_installed(name)
        spec = self._vars.spec(name)
        return (spec.minimum, spec.maximum) if spec.kind is Kind.UINT else None

    def _validate(self, name: str, value: object) -> tuple[VariableSpec, bool | int | str, bool | int | str]:
        """(spec, old, new) for `SET GLOBAL name = value`, after validation; stores the new value."""
        self._require_installed(name)
        spec, new = self._vars.parse(name, value)
        old = self._vars[spec.name]
        self._vars.store(spec, new)
        self._stored()
        return spec, old, new

    def _stored(self) -> None:
        """The settings the hooks read, kept as plain attributes: refreshed after every store
        (construction, `SET GLOBAL`), so that no hook looks a variable up."""
        self._trace_level = int(self._vars[self._trace_spec.name])

    def _require_installed(self, name: str) -> None:
        if not self._installed:
            raise SQLError(ER_UNKNOWN_SYSTEM_VARIABLE, name)

    def _trace(self, bit: int, message: str, *args: object) -> None:
        if self._trace_level & bit:
            self._log.debug(message, *args)
