"""Entry point of the `semisync` console script (see `cli/__init__.py`)."""

from __future__ import annotations

import importlib
import importlib.util

import click

# subcommand name -> module under cli/ that defines `command` (or `module:name` for another name)
SUBCOMMANDS: dict[str, str] = {
    "binlog": "cli.binlog_cmd",
    "master": "cli.master_cmd",
    "slave": "cli.slave_cmd",
    "up": "cli.up_cmd",
    "status": "cli.status_cmd",
    "pipeline": "cli.pipeline_cmd",
    "failover": "cli.failover_cmd:failover",
    "switchover": "cli.failover_cmd:switchover",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, module in SUBCOMMANDS.items() if _available(module))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None or not _available(target):
            return None
        module, _, name = target.partition(":")
        return getattr(importlib.import_module(module), name or "command")


def _available(target: str) -> bool:
    return importlib.util.find_spec(target.partition(":")[0]) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="semisync")
def cli() -> None:
    """semisync: MySQL-style semi-synchronous replication (master and slave daemons)."""


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
