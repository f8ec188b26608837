"""What `semisync master` and `semisync slave` share: options made from a config model, and start-up.

Both run the one server (`node.main.run(config)`); they differ only in the preset model
(config/master.py, config/slave.py), whose defaults `--help` shows.

Each field of `MasterConfig` / `SlaveConfig` becomes a `--kebab-case` option whose click default
is None, so that an option not typed leaves the environment and the `--config` file in charge;
the help shows the real default instead. Values reach the loader as the strings typed, so that
every refusal is the loader's one line (config/loader.py), printed to stderr with exit status 2.

Like mysqld, the command line also takes `--rpl_semi_sync_master_timeout` (underscores),
`--rpl-semi-sync-source-timeout` (MySQL 8 names), a bare boolean option (`--rpl-semi-sync-master-enabled` = ON) and
`--skip-`/`--disable-`/`--enable-` in front of a boolean option.

A password typed on the command line (`--root-password`, `--master-password`) works, with the
mysql client's warning on stderr; then, as mysqld and mysql overwrite their argv, the process
replaces itself (same PID, `os.execve`) by one whose command line lacks the passwords: they
move to the environment (`SEMISYNC_ROOT_PASSWORD` ...), which /proc/PID/environ shows to the
process's own user and root only, where /proc/PID/cmdline shows every argument to every local
user. (Python has no API to overwrite its argv in place: `sys.argv` is a copy, and writing the
kernel's argument area would take raw memory writes at the address /proc/self/stat reports,
as the C extension setproctitle does; the re-exec gets the same result with documented calls.)
As with mysqld, which overwrites argv only after it parsed it, the password is visible for the
short time between the first exec and this point.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from pydantic import BaseModel

from config.loader import ENV_PREFIX, ConfigError, alias_names, option_flag

Config = TypeVar("Config", bound=BaseModel)
Loader = Callable[[Mapping[str, str | None], Path | None, Mapping[str, str]], Config]
F = TypeVar("F", bound=Callable[..., Any])

PASSWORD_OPTIONS = ("root_password", "master_password")
DAEMON_MODULE = "node.main"  # the one server both presets run
PASSWORD_WARNING = "[Warning] Using a password on the command line interface can be insecure."

ENVIRONMENT_NOTE = (
    "Every option can also be set in the environment as SEMISYNC_<OPTION_NAME> (e.g. "
    "SEMISYNC_RPL_SEMI_SYNC_MASTER_TIMEOUT=500) and in the --config TOML file (e.g. "
    "rpl_semi_sync_master_timeout = 500); command line beats environment beats file beats default."
)


class DaemonCommand(click.Command):
    """A click command that first rewrites mysqld-style spellings of its options."""

    def __init__(self, *args: Any, model: type[BaseModel], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spellings = _spellings(model)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rewritten = []
        for i, arg in enumerate(args):
            if arg == "--":
                rewritten.extend(args[i:])
                break
            name, eq, value = arg.partition("=")
            flag, implied = self.spellings.get(name, (name, None))
            if implied is not None and not eq:
                rewritten.append(f"{flag}={implied}")
            else:
                rewritten.append(flag + eq + value)
        return super().parse_args(ctx, rewritten)


def _spellings(model: type[BaseModel]) -> dict[str, tuple[str, str | None]]:
    """mysqld-style spelling -> (our flag, value it implies or None)."""
    names = {name: name for name in model.model_fields} | alias_names(model)
    spellings: dict[str, tuple[str, str | None]] = {}
    for spelling, name in names.items():
        flag = option_flag(name)
        for written in {"--" + spelling, option_flag(spelling)} - {flag}:
            spellings[written] = (flag, None)
        if model.model_fields[name].annotation is bool:
            for prefix, implied in (("skip", "OFF"), ("disable", "OFF"), ("enable", "ON")):
                spellings[f"--{prefix}-{spelling.replace('_', '-')}"] = (flag, implied)
                spellings[f"--{prefix}-{spelling}"] = (flag, implied)
    return spellings


def daemon_options(model: type[BaseModel]) -> Callable[[F], F]:
    """Decorate a command function with `--config` and one option per field of `model`.

    The function receives `config_file` (a Path or None) and one keyword per field (str or None).
    """

    def decorate(function: F) -> F:
        for name, field in reversed(model.model_fields.items()):
            extra = field.json_schema_extra
            assert isinstance(extra, dict), f"{model.__name__}.{name} is not declared with option()"
            shown = extra["shown_default"]
            default = "[required]" if shown == "required" else f"[default: {shown}]"
            # a bare boolean option means ON, as for mysqld
            bare: dict[str, Any] = (
                {"is_flag": False, "flag_value": "ON"} if field.annotation is bool else {}
            )
            function = click.option(
                option_flag(name),
                name,
                default=None,
                metavar=str(extra["metavar"]),
                help=f"{field.description}  {default}",
                **bare,
            )(function)
        return click.option(
            "--config",
            "config_file",
            default=None,
            metavar="FILE",
            type=click.Path(path_type=Path, dir_okay=False),
            help="TOML file of options, keys = option names with underscores  [default: none]",
        )(function)

    return decorate


def daemon_command(
    name: str, model: type[Config], loader: Loader[Config], summary: str
) -> click.Command:
    """`semisync <name>`: build the configuration, then hand it to `node.main.run(config)`.

    The daemon module is imported only once the configuration is good, so that `--help` and
    refusals never import it (nor fail when it is not built yet).
    """

    @click.command(
        name,
        cls=DaemonCommand,
        model=model,
        help=summary,
        epilog=ENVIRONMENT_NOTE,
        context_settings={"max_content_width": 100},
    )
    @daemon_options(model)
    def command(config_file: Path | None, **cli_values: str | None) -> None:
        config = configured(loader, config_file, cli_values)
        typed = {key: value for key in PASSWORD_OPTIONS if (value := cli_values.get(key)) is not None}
        if typed:
            click.echo(f"semisync {name}: {PASSWORD_WARNING}", err=True)
            reexec_without(typed)  # returns only when this is not our own process's command line
        module = DAEMON_MODULE
        try:
            run = importlib.import_module(module).run
        except ModuleNotFoundError as exc:
            daemon_missing(name, module, exc)
        serve(run(config))

    return command


def reexec_without(passwords: Mapping[str, str]) -> None:
    """Exec this same command again with `passwords` (option name -> value) moved from the
    command line to the environment; return without doing anything when they are not on this
    process's command line (the command was invoked in-process, e.g. by a test runner)."""
    spellings = {spelling for name in passwords for spelling in (option_flag(name), "--" + name)}
    kept: list[str] = []
    argv = list(sys.orig_argv)
    found = False
    i = 0
    while i < len(argv):
        flag, eq, _ = argv[i].partition("=")
        if flag in spellings:
            found = True
            i += 1 if eq else 2  # `--root-password=X` or `--root-password X`
            continue
        kept.append(argv[i])
        i += 1
    if not found:
        return
    env = {**os.environ, **{ENV_PREFIX + name.upper(): value for name, value in passwords.items()}}
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, kept, env)


def configured(
    loader: Loader[Config], config_file: Path | None, cli_values: Mapping[str, str | None]
) -> Config:
    """The configuration, or exit 2 after printing the loader's one-line refusal."""
    try:
        return loader(cli_values, config_file, os.environ)
    except ConfigError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)


def daemon_missing(command: str, module: str, exc: ModuleNotFoundError) -> NoReturn:
    """Exit 1 when the daemon's module itself is not there; any other missing import is a bug."""
    parts = module.split(".")
    if exc.name not in {".".join(parts[:n]) for n in range(1, len(parts) + 1)}:
        raise exc
    click.echo(
        f"semisync {command}: the {command} daemon is not available ({module} is missing)", err=True
    )
    sys.exit(1)


def serve(result: Any) -> None:
    """Finish what the daemon's `run(config)` returned: await a coroutine, exit with an int.

    A Ctrl-C the daemon did not handle itself ends with status 130 rather than a traceback.
    """
    if inspect.iscoroutine(result):
        try:
            result = asyncio.run(result)
        except KeyboardInterrupt:
            sys.exit(130)
    if isinstance(result, int) and not isinstance(result, bool):
        sys.exit(result)
