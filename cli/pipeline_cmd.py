"""`semisync pipeline events|audit|stats`: the Spark jobs of pipeline/jobs.py from the command line.

Each subcommand takes `--master` (default `local[*]`; any Spark master URL) and runs the same job
as `spark-submit pipeline/jobs.py ...`. Exit status: the job's (audit: 1 when a slave misses a
transaction), 2 for bad arguments or a failed job (one line on stderr: e.g. a path that
matches nothing, a file that is not a binlog, corrupt data with its offset).
"""

from __future__ import annotations

import sys
from typing import Any

import click

MASTER = click.option("--master", default="local[*]", show_default=True, help="Spark master URL")
OUT = click.option("--out", required=True, type=click.Path(file_okay=False), help="output directory")
RELAY_LOGS = click.option(
    "--relay-logs", "relay_logs", multiple=True, metavar="NAME=GLOB",
    help="a slave's relay log files (repeat for each slave)",
)


def _run(job: str, master: str, **args: Any) -> None:
    from pipeline.jobs import parse_relay_logs, run_cli

    try:
        parse_relay_logs(args.get("relay_logs", ()))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--relay-logs") from None
    sys.exit(run_cli(job, master, args, f"semisync pipeline {job}"))


@click.group(name="pipeline")
def command() -> None:
    """Spark jobs over binlogs and relay logs (events, audit, stats)."""


@command.command()
@click.argument("paths", nargs=-1, required=True)
@OUT
@MASTER
def events(paths: tuple[str, ...], out: str, master: str) -> None:
    """All events of FILE_OR_GLOB... as Parquet (the rows of `semisync binlog --json`)."""
    _run("events", master, paths=list(paths), out=out)


@command.command()
@click.option("--binlogs", required=True, multiple=True, metavar="GLOB", help="the master's binlog files")
@RELAY_LOGS
@click.option("--min-slaves", type=click.IntRange(min=0), default=1, show_default=True,
              help="a transaction held by fewer slaves is under-replicated")
@OUT
@MASTER
def audit(binlogs: tuple[str, ...], relay_logs: tuple[str, ...], min_slaves: int, out: str, master: str) -> None:
    """Which slaves' relay logs hold each of the master's transactions (exit 1 if any is missing)."""
    _run("audit", master, binlogs=list(binlogs), relay_logs=list(relay_logs), min_slaves=min_slaves, out=out)


@command.command()
@click.argument("paths", nargs=-1, required=True)
@RELAY_LOGS
@OUT
@MASTER
def stats(paths: tuple[str, ...], relay_logs: tuple[str, ...], out: str, master: str) -> None:
    """Commits per second, statement mix per table, transaction sizes (Parquet) and a PNG chart."""
    _run("stats", master, paths=list(paths), relay_logs=list(relay_logs), out=out)
