"""`semisync up`: a whole local cluster on loopback, in the foreground.

The master on P, slaves on P+1..P+N (server ids 2..N+1), semi-sync ON on both sides (wait for 1
slave), a replication user `repl`, metrics on M (master) and M+1.. (slaves). Every daemon is a
child process running the very `semisync master` / `semisync slave` commands a user would run,
with its log in DATADIR/<name>.log. Data stays in DATADIR: a second run resumes.
Ctrl-C (SIGINT) or SIGTERM stops every child (SIGTERM, then SIGKILL after a grace period).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click

from cli.client import Client, ClientError
from protocol.errors import ER_CANNOT_USER

REPL_USER = "repl"
REPL_PASSWORD = "repl"


@dataclass
class Child:
    name: str
    port: int
    metrics_port: int
    args: list[str]
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    env: dict[str, str] | None = None  # added to our environment (passwords: never on a command line)

    def start(self) -> None:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *self.args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **self.env} if self.env else None,
            start_new_session=True,  # Ctrl-C reaches us only; we stop the children in order
        )
        out.close()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def tail(self, n: int = 5) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def cluster(datadir: Path, port: int, metrics_port: int, slaves: int) -> list[Child]:
    master = Child(
        "master",
        port,
        metrics_port,
        [
            "master",
            f"--datadir={datadir / 'master'}",
            "--bind-address=127.0.0.1",
            f"--port={port}",
            "--server-id=1",
            "--rpl-semi-sync-master-enabled=ON",
            "--rpl-semi-sync-master-wait-for-slave-count=1",
            f"--metrics-port={metrics_port}",
        ],
        datadir / "master.log",
    )
    children = [master]
    for i in range(1, slaves + 1):
        children.append(
            Child(
                f"slave{i}",
                port + i,
                metrics_port + i,
                [
                    "slave",
                    f"--datadir={datadir / f'slave{i}'}",
                    "--bind-address=127.0.0.1",
                    f"--port={port + i}",
                    f"--server-id={1 + i}",
                    "--master-host=127.0.0.1",
                    f"--master-port={port}",
                    f"--master-user={REPL_USER}",
                    "--rpl-semi-sync-slave-enabled=ON",
                    "--master-connect-retry=1",
                    f"--metrics-port={metrics_port + i}",
                ],
                datadir / f"slave{i}.log",
                env={"SEMISYNC_MASTER_PASSWORD": REPL_PASSWORD},
            )
        )
    return children


def wait_ready(child: Child, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if not child.alive():
            raise click.ClickException(f"{child.name} exited during start-up; last lines of {child.log}:\n{child.tail(10)}")
        try:
            Client("127.0.0.1", child.port, timeout=1.0).close()
            return
        except ClientError:
            if time.monotonic() > deadline:
                raise click.ClickException(f"{child.name} did not answer on port {child.port} within {timeout:.0f} s") from None
            time.sleep(0.1)


def create_replication_user(port: int) -> None:
    """Semi-sync is switched off while no slave is connected yet: the user's statements are
    binlogged, and would otherwise each wait out the semi-sync timeout. `enable_semisync`
    switches it on again once the slaves are up."""
    with Client("127.0.0.1", port) as c:
        c.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
        try:
            c.query(f"CREATE USER '{REPL_USER}'@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
        except ClientError as exc:
            if exc.code != ER_CANNOT_USER.code:  # exists already: a resumed cluster
                raise
            return
        c.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO '{REPL_USER}'@'%'")


def enable_semisync(port: int) -> None:
    with Client("127.0.0.1", port) as c:
        c.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")


def status_view(children: list[Child]) -> list[str]:
    master, slaves = children[0], children[1:]
    lines = []
    try:
        with Client("127.0.0.1", master.port, timeout=2.0) as c:
            st = c.variables("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master%'")
            ms = c.rows_as_dicts("SHOW MASTER STATUS")
        pos = f"{ms[0]['File']}:{ms[0]['Position']}" if ms else "-"
        lines.append(
            f"master :{master.port}  semi-sync {st.get('Rpl_semi_sync_master_status', '-')}  "
            f"clients {st.get('Rpl_semi_sync_master_clients', '-')}  yes_tx {st.get('Rpl_semi_sync_master_yes_tx', '-')}  "
            f"no_tx {st.get('Rpl_semi_sync_master_no_tx', '-')}  binlog {pos}"
        )
    except ClientError as exc:
        lines.append(f"master :{master.port}  unreachable ({exc})")
    for s in slaves:
        try:
            with Client("127.0.0.1", s.port, timeout=2.0) as c:
                rows = c.rows_as_dicts("SHOW SLAVE STATUS")
                sst = c.variables("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_slave_status'")
            r = rows[0] if rows else {}
            lag = r.get("Seconds_Behind_Master")
            lines.append(
                f"{s.name} :{s.port}  IO {r.get('Slave_IO_Running', '-')}  SQL {r.get('Slave_SQL_Running', '-')}  "
                f"semi-sync {sst.get('Rpl_semi_sync_slave_status', '-')}  "
                f"read {r.get('Master_Log_File', '-')}:{r.get('Read_Master_Log_Pos', '-')}  "
                f"lag {lag if lag is not None else 'NULL'} s"
            )
        except ClientError as exc:
            lines.append(f"{s.name} :{s.port}  unreachable ({exc})")
    return lines


def stop_all(children: list[Child], grace: float = 10.0) -> None:
    for child in reversed(children):  # slaves first, then the master
        if child.alive():
            child.proc.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
    deadline = time.monotonic() + grace
    for child in reversed(children):
        if child.proc is None:
            continue
        try:
            child.proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.proc.kill()
            child.proc.wait()


class _Stop(Exception):
    pass


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop()


@click.command("up")
@click.option("--slaves", default=2, show_default=True, type=click.IntRange(0, 64), help="number of slaves")
@click.option("--datadir", default="./.semisync", show_default=True, type=click.Path(path_type=Path))
@click.option("--port", default=3306, show_default=True, type=click.IntRange(1, 65535), help="master port; slaves on P+1..")
@click.option("--metrics-port", default=9104, show_default=True, type=click.IntRange(1, 65535), help="master metrics; slaves M+1..")
@click.option("--refresh", default=2.0, show_default=True, type=float, help="seconds between status refreshes")
def command(slaves: int, datadir: Path, port: int, metrics_port: int, refresh: float) -> None:
    """Run a local master with N semi-sync slaves on loopback until Ctrl-C."""
    datadir = datadir.resolve()
    children = cluster(datadir, port, metrics_port, slaves)
    # Ctrl-C and SIGTERM stop the cluster even when SIGINT came in ignored (a background job of a
    # script): the daemons themselves always handle both, so `up` does too
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _raise_stop)
    try:
        click.echo(f"data in {datadir}")
        master = children[0]
        click.echo(f"starting master on 127.0.0.1:{master.port} ...", nl=False)
        master.start()
        wait_ready(master, 60)
        create_replication_user(master.port)
        click.echo(" ready")
        for s in children[1:]:
            click.echo(f"starting {s.name} on 127.0.0.1:{s.port} ...", nl=False)
            s.start()
            wait_ready(s, 60)
            click.echo(" ready")
        enable_semisync(master.port)
        click.echo("semi-sync enabled on the master (waits for 1 slave's ack per commit)")
        click.echo("")
        click.echo(f"connect:     mariadb -h127.0.0.1 -P{port} -uroot")
        click.echo(
            "sysbench:    sysbench oltp_insert --db-driver=mysql --mysql-host=127.0.0.1 "
            f"--mysql-port={port} --mysql-user=root --mysql-db=sbtest --db-ps-mode=disable --threads=4 prepare|run|cleanup"
        )
        click.echo("metrics:     " + "  ".join(f"http://127.0.0.1:{c.metrics_port}/metrics" for c in children))
        click.echo(f"status:      semisync status --port {port}   (Ctrl-C stops the cluster)")
        click.echo("")
        while True:
            for child in children:
                if not child.alive():
                    raise click.ClickException(f"{child.name} exited; last lines of {child.log}:\n{child.tail(10)}")
            click.echo(time.strftime("%H:%M:%S ") + "\n         ".join(status_view(children)))
            time.sleep(refresh)
    except (KeyboardInterrupt, _Stop):
        click.echo("\nstopping ...")
    finally:
        stop_all(children)
        click.echo("stopped")
    sys.exit(0)
