"""Building a configuration once, at the edge: command line > environment > TOML file > default.

Contract: `load_master_config` / `load_slave_config` are called by cli/ only, with
- `cli_values`: option name (underscores) -> the string typed on the command line, or None when
  the option was not given (click defaults are None so that they never hide the layers below);
- `config_file`: the `--config FILE` path or None; keys are option names with underscores;
- `environ`: the process environment; `SEMISYNC_<OPTION_NAME_UPPERCASE>` is read for each option.
MySQL 8 names `rpl_semi_sync_source_*` (and `rpl_semi_sync_replica_*`) are accepted for the
`rpl_semi_sync_master_*` (`rpl_semi_sync_slave_*`) options in the file and the environment.

Any refusal -- bad value, unknown file key, unreadable file, missing required option -- is a
`ConfigError` whose message is ONE line that names the option (and where it was set), the value
and what is allowed, e.g. `semisync master: invalid value 'SOMETIMES' for
--rpl-semi-sync-master-wait-point: allowed AFTER_SYNC, AFTER_COMMIT`.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from config.master import MasterConfig
from config.slave import SlaveConfig

ENV_PREFIX = "SEMISYNC_"
# MySQL 8 renamed master/slave to source/replica; the old names stay the canonical ones here.
ALIAS_PREFIXES = {
    "rpl_semi_sync_master_": "rpl_semi_sync_source_",
    "rpl_semi_sync_slave_": "rpl_semi_sync_replica_",
}

Config = TypeVar("Config", bound=BaseModel)


class ConfigError(Exception):
    """A configuration the daemon refuses to start with; str() is the one line to print."""


def load_master_config(
    cli_values: Mapping[str, str | None], config_file: Path | None, environ: Mapping[str, str]
) -> MasterConfig:
    return _load(MasterConfig, "master", cli_values, config_file, environ)


def load_slave_config(
    cli_values: Mapping[str, str | None], config_file: Path | None, environ: Mapping[str, str]
) -> SlaveConfig:
    return _load(SlaveConfig, "slave", cli_values, config_file, environ)


def option_flag(name: str) -> str:
    """`rpl_semi_sync_master_timeout` -> `--rpl-semi-sync-master-timeout`."""
    return "--" + name.replace("_", "-")


def alias_names(model: type[BaseModel]) -> dict[str, str]:
    """MySQL 8 spelling -> option name, for the options of `model` that have one."""
    aliases = {}
    for name in model.model_fields:
        for old, new in ALIAS_PREFIXES.items():
            if name.startswith(old):
                aliases[new + name.removeprefix(old)] = name
    return aliases


@dataclass(frozen=True)
class _Given:
    """A value as the user gave it, and how to name the option when refusing it."""

    value: Any
    where: str


def _load(
    model: type[Config],
    command: str,
    cli_values: Mapping[str, str | None],
    config_file: Path | None,
    environ: Mapping[str, str],
) -> Config:
    given: dict[str, _Given] = {}  # later layers overwrite earlier ones
    if config_file is not None:
        given.update(_from_file(model, command, Path(config_file)))
    given.update(_from_environment(model, command, environ))
    unknown = sorted(set(cli_values) - set(model.model_fields))
    if unknown:  # a bug in cli/, not the user's doing
        raise TypeError(f"semisync {command}: no such option(s): {', '.join(unknown)}")
    given.update(
        (name, _Given(value, option_flag(name)))
        for name, value in cli_values.items()
        if value is not None
    )
    try:
        return model(**{name: g.value for name, g in given.items()})
    except ValidationError as exc:
        raise ConfigError(_refusal(model, command, exc, given)) from None


def _from_file(model: type[BaseModel], command: str, path: Path) -> dict[str, _Given]:
    try:
        with path.open("rb") as f:
            table = tomllib.load(f)
    except OSError as exc:
        raise ConfigError(
            f"semisync {command}: cannot read --config {path}: {exc.strerror}"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"semisync {command}: --config {path} is not valid TOML: {exc}") from None
    aliases = alias_names(model)
    known = [*model.model_fields, *aliases]
    unknown = [key for key in table if key not in known]
    if unknown:
        hints = []
        for key in unknown:
            close = difflib.get_close_matches(key, known, n=1)
            hints.append(f"'{key}'" + (f" (did you mean {close[0]}?)" if close else ""))
        raise ConfigError(
            f"semisync {command}: unknown option {', '.join(hints)} in {path}: "
            f"keys are `semisync {command}` option names with underscores, e.g. {known[0]}"
        )
    found = {key: (aliases.get(key, key), value) for key, value in table.items()}
    return _one_spelling_each(
        command, found, lambda key, name: f"{option_flag(name)} ({key} in {path})"
    )


def _from_environment(
    model: type[BaseModel], command: str, environ: Mapping[str, str]
) -> dict[str, _Given]:
    spellings = {name: name for name in model.model_fields} | alias_names(model)
    found = {
        ENV_PREFIX + spelling.upper(): (name, environ[ENV_PREFIX + spelling.upper()])
        for spelling, name in spellings.items()
        if ENV_PREFIX + spelling.upper() in environ
    }
    return _one_spelling_each(command, found, lambda key, name: f"{option_flag(name)} (from {key})")


def _one_spelling_each(
    command: str, found: dict[str, tuple[str, Any]], where: Callable[[str, str], str]
) -> dict[str, _Given]:
    """{spelling: (option, value)} -> {option: _Given}, refusing an option set under two names."""
    given: dict[str, _Given] = {}
    first_spelling: dict[str, str] = {}
    for key, (name, value) in found.items():
        if name in given:
            raise ConfigError(
                f"semisync {command}: {option_flag(name)} is set twice, as {first_spelling[name]} "
                f"and as {key}: keep one"
            )
        given[name] = _Given(value, where(key, name))
        first_spelling[name] = key
    return given


def _refusal(
    model: type[BaseModel], command: str, exc: ValidationError, given: Mapping[str, _Given]
) -> str:
    """The one line for the first problem pydantic found (fields are checked in --help order)."""
    error = exc.errors()[0]
    ctx = error.get("ctx") or {}
    reason = str(ctx["error"]) if "error" in ctx else error["msg"]
    if not error["loc"]:  # a rule across options (the loopback rule)
        return f"semisync {command}: {reason}"
    name = str(error["loc"][0])
    if error["type"] == "missing":
        meaning = model.model_fields[name].description
        return f"semisync {command}: {option_flag(name)} is required ({meaning})"
    g = given.get(name)
    value = g.value if g else error.get("input")
    where = g.where if g else option_flag(name)
    return f"semisync {command}: invalid value {_quoted(value)} for {where}: {reason}"


def _quoted(value: Any) -> str:
    """The value as the user wrote it, on one line (repr escapes newlines in strings)."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool):  # as written in TOML
        return "'true'" if value else "'false'"
    return f"'{value}'"
