"""MySQL-style option values: the parsers behind every configuration field.

Contract: each parser takes what a user wrote -- a command-line or environment string, or a
value from a TOML file -- and returns the typed value, or raises `ValueError` whose message is
only the "allowed ..." part (e.g. `allowed AFTER_SYNC, AFTER_COMMIT`); the loader adds the
option's name and the offending value to make the one-line refusal. Values already of the right
type (a test building `MasterConfig(port=0)`) pass through the same checks.

The syntax follows mysqld: booleans are ON|OFF|1|0|TRUE|FALSE in any case, enum values are
names in any case, integers may carry a K/M/G/T suffix (`--max-binlog-size=64M`).
Out-of-range values are refused, never clamped. Other packages that parse the same syntax
(`SET GLOBAL var = value` in master/ and slave/) may use these functions directly.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticUndefined

E = TypeVar("E", bound=enum.Enum)

BOOL_WORDS = {"ON": True, "TRUE": True, "1": True, "OFF": False, "FALSE": False, "0": False}
ALLOWED_BOOLS = "allowed ON, OFF, 1, 0, TRUE, FALSE"
_INTEGER = re.compile(r"(-?[0-9]+)([KMGT]?)", re.IGNORECASE)
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bool(value: Any) -> bool:
    """ON|OFF|1|0|TRUE|FALSE in any case (and a TOML true/false or 1/0)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().upper() in BOOL_WORDS:
        return BOOL_WORDS[value.strip().upper()]
    raise ValueError(ALLOWED_BOOLS)


def parse_enum(kind: type[E], value: Any) -> E:
    """A member of `kind` named in any case (`after_sync` is AFTER_SYNC)."""
    if isinstance(value, kind):
        return value
    if isinstance(value, str) and value.strip().upper() in kind.__members__:
        return kind[value.strip().upper()]
    raise ValueError("allowed " + ", ".join(kind.__members__))


def parse_int(value: Any, low: int, high: int) -> int:
    """An integer in [low, high]; strings may end in K, M, G or T (powers of 1024)."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and (match := _INTEGER.fullmatch(value.strip())):
        number = int(match[1]) * _SUFFIX[match[2].upper()]
    if number is None or not low <= number <= high:
        raise ValueError(f"allowed integers {low}-{high}")
    return number


def parse_seconds(value: Any, low: float, high: float, *, zero_disables: bool = False) -> float:
    """A number of seconds in [low, high] (fractions allowed); 0 too when it means "off"."""
    number: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    in_range = number is not None and math.isfinite(number) and low <= number <= high
    if number is None or not (in_range or (zero_disables and number == 0)):
        zero = "0 (disabled) or " if zero_disables else ""
        raise ValueError(f"allowed {zero}seconds {_number(low)}-{_number(high)}")
    return number


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def parse_text(value: Any) -> str:
    """Any string (passwords, user names); other TOML types are refused, not converted."""
    if isinstance(value, str):
        return value
    raise ValueError("allowed a string")


def parse_host(value: Any) -> str:
    """A host name or IP address: non-empty, no spaces."""
    if isinstance(value, str) and value.strip() and not any(c.isspace() for c in value.strip()):
        return value.strip()
    raise ValueError("allowed a host name or IP address")


def parse_optional_host(value: Any) -> str | None:
    """A host, or None when unset or empty (as an empty MASTER_HOST means "not configured")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_host(value)


def parse_basename(value: Any) -> str:
    """A file basename inside the datadir (`mysql-bin`): non-empty, no directory part."""
    if isinstance(value, str) and value.strip() and "/" not in value and value not in (".", ".."):
        return value.strip()
    raise ValueError("allowed a file basename without '/'")


def parse_path(value: Any) -> Path:
    """A filesystem path (`~` expanded); relative paths stay relative to the working directory."""
    if isinstance(value, Path):
        return value
    if isinstance(value, str) and value.strip():
        return Path(value.strip()).expanduser()
    raise ValueError("allowed a directory path")


def parse_optional_path(value: Any) -> Path | None:
    """A file path (`~` expanded), or None when unset or empty."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, Path):
        return value
    if isinstance(value, str):
        return Path(value.strip()).expanduser()
    raise ValueError("allowed a file path")


def read_password_file(path: Path) -> str:
    """The first line of `path` (without its line end): a password kept off the command line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not UTF-8 text") from None
    return text.splitlines()[0] if text else ""


LOOPBACK_NAMES = {"localhost", "::1", "0:0:0:0:0:0:0:1"}


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: the addresses only this machine can reach."""
    address = address.strip().lower()
    return address in LOOPBACK_NAMES or bool(re.fullmatch(r"127(\.[0-9]{1,3}){3}", address))


# --- field declarations --------------------------------------------------------------------


def checked(parse: Callable[[Any], Any]) -> BeforeValidator:
    """The validator that runs `parse` on whatever was given for the field."""
    return BeforeValidator(parse)


def integer(low: int, high: int) -> BeforeValidator:
    return BeforeValidator(lambda value: parse_int(value, low, high))


def one_of(kind: type[enum.Enum]) -> BeforeValidator:
    return BeforeValidator(lambda value: parse_enum(kind, value))


def option(default: Any = PydanticUndefined, *, metavar: str, help: str, shown: str = "") -> Any:
    """A configuration field with what `--help` shows for it: metavar, meaning, default.

    `shown` overrides how the default is displayed (e.g. `slave_net_timeout / 2`); otherwise it
    is derived from `default` the way the INTERFACE tables write it (ON/OFF, empty, none).
    """
    extra: dict[str, Any] = {"metavar": metavar, "shown_default": shown or show_default(default)}
    return Field(default=default, description=help, json_schema_extra=extra)


def show_default(default: Any) -> str:
    if default is PydanticUndefined:
        return "required"
    if isinstance(default, bool):
        return "ON" if default else "OFF"
    if isinstance(default, enum.Enum):
        return default.name
    if default is None:
        return "none"
    if default == "":
        return "empty"
    return str(default)
