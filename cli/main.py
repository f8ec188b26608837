"""Entry point of the `semisync` console script (see `cli/__init__.py`)."""

from __future__ import annotations

import importlib
import importlib.util

import click

# subcommand name -> module under cli/ that defines `command`
SUBCOMMANDS: dict[str, str] = {
    "binlog": "cli.binlog_cmd",
    "master": "cli.master_cmd",
    "slave": "cli.slave_cmd",
    "up": "cli.up_cmd",
    "status": "cli.status_cmd",
    "pipeline": "cli.pipeline_cmd",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, module in SUBCOMMANDS.items() if _available(module))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = SUBCOMMANDS.get(cmd_name)
        if module is None or not _available(module):
            return None
        return importlib.import_module(module).command


def _available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="semisync")
def cli() -> None:
    """semisync: MySQL-style semi-synchronous replication (master and slave daemons)."""


def main() -> None:
    cli()


if __name__ == "__main__":
    main()
