"""sysbench through semi-sync replication: ours beside MariaDB 10.11 (default and durable acks).

    python bench/sysbench_semisync.py [--systems ours,mariadb,mariadb-durable] [--rounds 3]
        [--workloads oltp_insert,oltp_write_only,oltp_read_write,slave_point_select]
        [--threads 1,4,16] [--time 20] [--db-ps-mode auto] [--table-size 10000]
        [--ours-tree LABEL=PATH ...] [--ours-variant 'LABEL=OPTIONS' ...]
        [--ours-master-variant 'LABEL=OPTIONS' ...] [--quick] [--no-record] [--json FILE] [--results bench/RESULTS.md]

Systems: each is a master and two slaves on loopback, semi-sync ON, AFTER_SYNC, one ack needed
(wait_for_slave_count=1 for ours; MariaDB always waits for one), sync_binlog=1 on the master.
- `ours`: `semisync master --rpl-semi-sync-master-enabled=ON --sync-binlog=1` and two
  `semisync slave --rpl-semi-sync-slave-enabled=ON --sync-relay-log=1` (a slave acks after its
  relay log is fsynced), as child processes started as `python -m cli.main master|slave` with cwd =
  a source tree of ours, so that tree's code runs. `--ours-tree LABEL=PATH` (repeatable) names the
  trees; without it the tree is this checkout. Several trees make several systems, `ours (LABEL)`,
  for before/after comparisons of two commits in one invocation (an older commit exported with
  `git worktree add /tmp/base <commit>` or `git archive <commit> | tar -x -C /tmp/base`).
  `--ours-variant 'LABEL=OPTIONS'` (repeatable) adds a system `ours (LABEL)` of the first tree
  (this checkout without `--ours-tree`, beside `ours`) whose slaves also get OPTIONS (daemon options, e.g. `--log-slave-updates=OFF`): what one
  setting costs, measured in the same run. `--ours-master-variant 'LABEL=OPTIONS'` does the same
  for the master (its OPTIONS come after the common ones, so they override them, e.g.
  `--rpl-semi-sync-master-wait-point=AFTER_COMMIT`); the settings read back show what ran.
- `mariadb`: three stock `mariadbd` (tests/support/mariadb.py), the master with
  `--rpl-semi-sync-master-enabled=ON --rpl-semi-sync-master-wait-point=AFTER_SYNC --sync-binlog=1
  --innodb-flush-log-at-trx-commit=1`, the replicas with `--rpl-semi-sync-slave-enabled=ON` (they
  ack once the event is written to the relay log, before any fsync: MariaDB's default), attached by
  CHANGE MASTER TO ... MASTER_USE_GTID=no.
- `mariadb-durable`: the same with replicas that also fsync the relay log and their positions per
  event (`--sync-relay-log=1 --sync-master-info=1 --sync-relay-log-info=1`), as durable as ours.
All replicate as root (so nothing is binlogged before the slaves are attached). Measuring starts
only once the master counts 2 semi-sync clients and its status is ON; the durability settings are
read back from the servers (SHOW GLOBAL VARIABLES) and printed with the results.

Workloads (sysbench, 1 table of --table-size rows, prepared once per workload and system, then run
once per thread count, then cleaned up): `oltp_insert`, `oltp_write_only`, `oltp_read_write`
against the master, and `slave_point_select`: `oltp_point_select` against the first slave while
the master takes `oltp_insert`, both with the same thread count. `--db-ps-mode` is sysbench's
(`auto`: prepared statements; `disable`: text protocol). Before every run the slaves have applied
everything the master logged (SHOW SLAVE STATUS against SHOW MASTER STATUS), so a run's CPU is
its own.

Each run reports tps, avg / p95 latency and errors from sysbench; the deltas of the master's
Rpl_semi_sync_master_yes_tx / no_tx / tx_waits / tx_wait_time over the run (a run with no_tx > 0
fell back to asynchronous replication for part of the time: it is reported as such, not as a
semi-sync result); and each server process's CPU time (utime + stime from /proc/PID/stat, with its
descendants) from the start of the run until both slaves have applied it, divided by the
transactions sysbench completed in it (for `slave_point_select`, the reads on the slave plus the
inserts on the master); and, the same way, each server process's voluntary context switches
(every live thread's, from /proc/PID/task/*/status). After each workload both slaves must reach the master's rows (COUNT(*)
and SUM(k) of sbtest1 equal on all three).

Rounds: `--rounds N` repeats everything N times; within a round every system runs once, each on a
freshly started cluster, in alternating order (A B C, then C B A, ...) so that no system always
runs first. Tables give the median over the rounds of each cell; every run is listed below them.

Prints markdown tables and replaces this script's block in bench/RESULTS.md with them, the machine
and its load; `--quick` (threads 1,4 for 5 s, 1 round, unless given) and `--no-record` only print.
`--json FILE` also writes every run as JSON. A system whose cluster fails in a round is reported
and the others go on; the exit status is 1 when that happened, a sysbench run failed or the slaves
did not reach the master's rows. Not a test: the numbers depend on the machine and on what else
runs on it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.daemons import Daemon, wait_for  # noqa: E402
from tests.support.mariadb import MariaDBServer  # noqa: E402

SECTION = "sysbench through semi-sync AFTER_SYNC, 2 slaves: ours vs MariaDB 10.11"
BEGIN, END = "<!-- sysbench_semisync: begin -->", "<!-- sysbench_semisync: end -->"
WORKLOADS = ("oltp_insert", "oltp_write_only", "oltp_read_write", "slave_point_select")
SLAVE_READS = "slave_point_select"  # oltp_point_select on the first slave while the master takes oltp_insert
CATCH_UP_SECONDS = 300
CLK_TCK = os.sysconf("SC_CLK_TCK")
GUARANTEE = (
    "Guarantees: our slaves acknowledge an event only after the relay log holding it is fsynced "
    "(`--sync-relay-log=1`). MariaDB's replicas by default acknowledge once the event is written to "
    "the relay log, without fsync (`sync_relay_log` is 10000), so an acked transaction can still be "
    "lost if the master and that replica's host crash together; `MariaDB 10.11, durable acks` fsyncs "
    "the relay log and the replica's positions per event (`sync_relay_log=1`, `sync_master_info=1`, "
    "`sync_relay_log_info=1`), which makes its acks as durable as ours. Masters are alike: binlog "
    "fsynced per group (`sync_binlog=1`); MariaDB's InnoDB also flushes its redo log per commit "
    "(`innodb_flush_log_at_trx_commit=1`), ours commits its engine per group."
)


# -- clusters ------------------------------------------------------------------------------------

@dataclass
class Cluster:
    """A started master and its slaves: anything with `.port`, `.connect()`, `.query(sql)`,
    `.stop()` and `.proc` (the server process, whose CPU time is measured)."""
    name: str
    master: Any
    slaves: list[Any] = field(default_factory=list)

    @property
    def nodes(self) -> list[Any]:
        return [self.master, *self.slaves]

    def pids(self) -> list[int]:
        return [node.proc.pid for node in self.nodes]

    def semi_status(self) -> dict[str, str]:
        return {k: v for k, v in self.master.query("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")}

    def wait_semisync_ready(self, timeout: float = 60.0) -> None:
        def ready() -> bool:
            st = self.semi_status()
            return st.get("Rpl_semi_sync_master_clients") == "2" and st.get("Rpl_semi_sync_master_status") == "ON"
        try:
            wait_for(ready, timeout, message=f"{self.name}: 2 semi-sync clients and status ON")
        except TimeoutError:
            raise SystemExit(f"{self.name}: semi-sync not ready: {self.semi_status()}") from None

    def caught_up(self) -> bool:
        """Every slave has applied all that the master has logged."""
        file, pos = self.master.query("SHOW MASTER STATUS")[0][:2]
        for slave in self.slaves:
            st = first_row_dict(slave, "SHOW SLAVE STATUS")
            if (st.get("Relay_Master_Log_File"), str(st.get("Exec_Master_Log_Pos"))) != (file, str(pos)):
                return False
        return True

    def wait_caught_up(self) -> None:
        wait_for(self.caught_up, CATCH_UP_SECONDS, interval=0.2, message=f"{self.name}: slaves to apply the master's binlog")

    def settings(self) -> str:
        """The durability settings the servers report (read back, not assumed)."""
        def show(node: Any, like: str) -> str:
            return ", ".join(f"{k}={v}" for k, v in node.query(f"SHOW GLOBAL VARIABLES LIKE '{like}'"))
        master = f"{show(self.master, 'sync_binlog')}, {show(self.master, 'rpl_semi_sync_master_wait_point')}"
        # slave_commit_wait_usec is ours only: MariaDB shows nothing for it
        slave_likes = ("sync_%", "log_bin", "log_slave_updates", "slave_commit_wait_usec")
        return f"master {master}; slaves " + " | ".join(
            ", ".join(shown for like in slave_likes if (shown := show(slave, like))) for slave in self.slaves)

    def row_sums(self) -> list[tuple[int, int]]:
        """(COUNT(*), SUM(k)) of sbtest.sbtest1 on the master and each slave."""
        return [
            (int(count or 0), int(total or 0))
            for count, total in (node.query("SELECT COUNT(*), SUM(k) FROM sbtest.sbtest1")[0] for node in self.nodes)
        ]

    def stop(self) -> None:
        for node in (*self.slaves, self.master):
            try:
                node.stop()
            except Exception as exc:  # keep stopping the others
                print(f"{self.name}: stop failed: {exc}", file=sys.stderr)


def first_row_dict(node: Any, sql: str) -> dict[str, Any]:
    conn = node.connect()
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            row = cur.fetchone()
            return dict(zip([d[0] for d in cur.description], row, strict=True)) if row else {}
    finally:
        conn.close()


def start_ours(name: str, code: Path, tmp: Path, slave_options: tuple[str, ...] = (),
               master_options: tuple[str, ...] = (), launch: tuple[str, ...] = ("-m", "cli.main")) -> Cluster:
    master = Daemon("master", tmp / "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--rpl-semi-sync-master-wait-for-slave-count=1", "--sync-binlog=1", *master_options,
    ], code=code, launch=launch)
    cluster = Cluster(name, master)
    try:
        master.start()
        for server_id in (2, 3):
            slave = Daemon("slave", tmp / f"slave{server_id}", [
                f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=root", "--rpl-semi-sync-slave-enabled=ON", "--sync-relay-log=1", *slave_options,
            ], code=code, launch=launch)
            cluster.slaves.append(slave)
            slave.start()
    except BaseException:
        cluster.stop()
        raise
    return cluster


def start_mariadb(name: str, replica_extra: list[str], tmp: Path) -> Cluster:
    master = MariaDBServer(tmp / "master", server_id=1, log_bin="master-bin", extra=[
        "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
    ])
    cluster = Cluster(name, master)
    try:
        master.start()
        file, pos = master.query("SHOW MASTER STATUS")[0][:2]
        for server_id in (2, 3):
            replica = MariaDBServer(tmp / f"replica{server_id}", server_id=server_id, log_bin=None,
                                    extra=["--rpl-semi-sync-slave-enabled=ON", *replica_extra])
            cluster.slaves.append(replica)
            replica.start()
            replica.execute_all([
                f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='root', "
                f"MASTER_PASSWORD='', MASTER_LOG_FILE='{file}', MASTER_LOG_POS={pos}, MASTER_USE_GTID=no, "
                "MASTER_CONNECT_RETRY=1",
                "START SLAVE",
            ])
    except BaseException:
        cluster.stop()
        raise
    return cluster


DURABLE_REPLICA = ["--sync-relay-log=1", "--sync-master-info=1", "--sync-relay-log-info=1"]


@dataclass(frozen=True)
class System:
    key: str  # what --systems names ("ours" stands for every --ours-tree)
    name: str  # as printed in the tables
    start: Callable[[Path], Cluster]
    tree: Path | None = None  # ours: the source tree whose code runs
    slave_options: tuple[str, ...] = ()  # ours: what its slaves get beyond the common options
    master_options: tuple[str, ...] = ()  # ours: what its master gets after the common options


def mariadb_systems() -> dict[str, System]:
    return {
        "mariadb": System("mariadb", "MariaDB 10.11", partial(start_mariadb, "MariaDB 10.11", [])),
        "mariadb-durable": System("mariadb-durable", "MariaDB 10.11, durable acks",
                                  partial(start_mariadb, "MariaDB 10.11, durable acks", DURABLE_REPLICA)),
    }


def ours_systems(trees: list[tuple[str, Path]], variants: list[tuple[str, tuple[str, ...]]] = (),
                 master_variants: list[tuple[str, tuple[str, ...]]] = ()) -> list[System]:
    """A system per tree (this checkout without any), then one per slave variant and one per
    master variant, of the first tree."""
    systems = [System("ours", f"ours ({label})", partial(start_ours, f"ours ({label})", path), path)
               for label, path in trees] or [System("ours", "ours", partial(start_ours, "ours", ROOT), ROOT)]
    base = trees[0][1] if trees else ROOT
    systems += [System("ours", f"ours ({label})", partial(start_ours, f"ours ({label})", base, slave_options=options),
                       base, options) for label, options in variants]
    systems += [System("ours", f"ours ({label})", partial(start_ours, f"ours ({label})", base, master_options=options),
                       base, master_options=options) for label, options in master_variants]
    return systems


def parse_variant(spec: str) -> tuple[str, tuple[str, ...]]:
    """LABEL=OPTIONS: the label of the system and the daemon options its slaves (or, for a master
    variant, its master) also get."""
    label, sep, options = spec.partition("=")
    words = tuple(shlex.split(options))
    if not sep or not label or not words or not all(w.startswith("--") for w in words):
        raise argparse.ArgumentTypeError(f"{spec!r}: expected LABEL=--option[=value] ...")
    return label, words


def parse_tree(spec: str) -> tuple[str, Path]:
    """LABEL=PATH or PATH (labelled by its directory name): a source tree of ours that must run its
    own code when started with `python -m cli.main` from it (checked here, not assumed)."""
    label, sep, path = spec.partition("=")
    tree = Path(path if sep else spec).resolve()
    label = label if sep else tree.name
    if not (tree / "cli" / "main.py").is_file():
        raise argparse.ArgumentTypeError(f"{tree} is not a source tree of ours (no cli/main.py)")
    ours = sorted({"cli", "master", "slave", "protocol", *(p.parent.name for p in tree.glob("*/__init__.py"))})
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, cli.main, cli.master_cmd, cli.slave_cmd, master, slave, protocol\n"
                               f"print(*(getattr(m, '__file__', None) or '' for name, m in list(sys.modules.items()) "
                               f"if name.partition('.')[0] in {ours!r}))"],
        cwd=tree, capture_output=True, text=True)
    if probe.returncode != 0:
        raise argparse.ArgumentTypeError(f"{tree}: its modules do not import:\n{probe.stderr[-2000:]}")
    if strays := [f for f in probe.stdout.split() if not Path(f).resolve().is_relative_to(tree)]:
        raise argparse.ArgumentTypeError(f"{tree}: `python -m cli.main` from it would import {strays}, not its own code")
    return label, tree


def tree_revision(tree: Path) -> str:
    """The commit a tree is at (and whether it has local changes), or what is known of it."""
    head = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "not a git checkout"
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return head.stdout.strip() + (" with local changes" if dirty else "")


# -- CPU from /proc ------------------------------------------------------------------------------

def _stat_fields(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()  # after "pid (comm)": field 3 (state) is [0]


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                kids += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return kids


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads) and of its children, the live ones and the
    reaped ones (cutime + cstime), recursively."""
    try:
        fields = _stat_fields(pid)
    except OSError:
        return 0.0
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime (fields 14-17)
    return ticks / CLK_TCK + sum(cpu_seconds(child) for child in _children(pid))


def voluntary_switches(pid: int) -> int:
    """The voluntary context switches of a process's live threads (each wait for I/O, a lock or
    a wakeup); a thread that ended takes its count with it. Steadier per transaction than tps on
    a noisy machine."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


# -- sysbench ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sysbench:
    table_size: int
    ps_mode: str
    seconds: int

    def args(self, test: str, port: int | str, threads: int | str) -> list[str]:
        return [
            shutil.which("sysbench") or "sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={port}", "--mysql-user=root", "--mysql-db=sbtest", "--tables=1",
            f"--table-size={self.table_size}", f"--db-ps-mode={self.ps_mode}", f"--threads={threads}",
            f"--time={self.seconds}", "--report-interval=0",
        ]

    def start(self, test: str, port: int, command: str, threads: int = 1) -> subprocess.Popen[str]:
        return subprocess.Popen(self.args(test, port, threads) + [command], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def checked(self, test: str, port: int, command: str, what: str) -> None:
        proc = self.start(test, port, command)
        out, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"sysbench {test} {command} on {what} failed (exit {proc.returncode}):\n{out[-3000:]}{err[-3000:]}")


@dataclass
class Report:
    """What one sysbench run printed."""
    tps: float | None = None
    transactions: int = 0
    avg_ms: float | None = None
    p95_ms: float | None = None
    errors: int | None = None
    failure: str = ""


def finish(proc: subprocess.Popen[str], timeout: float) -> Report:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return Report(failure=f"sysbench did not end within {timeout:.0f} s")
    report = Report()
    if proc.returncode != 0:
        report.failure = f"sysbench exit {proc.returncode}: " + " / ".join(
            line.strip() for line in (out + err).splitlines() if "FATAL" in line or "error" in line.lower()
        )[:300]

    def number(pattern: str) -> float:
        found = re.search(pattern, out)
        if not found:
            raise ValueError(f"no match for {pattern!r} in sysbench output")
        return float(found.group(1))
    try:
        report.tps = number(r"transactions:\s+\d+\s+\(([\d.]+) per sec")
        report.transactions = int(number(r"transactions:\s+(\d+)"))
        report.errors = int(number(r"ignored errors:\s+(\d+)"))
        report.avg_ms = number(r"avg:\s+([\d.]+)")
        report.p95_ms = number(r"95th percentile:\s+([\d.]+)")
    except ValueError as exc:
        report.failure = report.failure or str(exc)
    return report


# -- one run -------------------------------------------------------------------------------------

@dataclass
class Run:
    round: int
    system: str
    workload: str
    threads: int
    tps: float | None = None
    avg_ms: float | None = None
    p95_ms: float | None = None
    errors: int | None = None
    transactions: int = 0  # every transaction sysbench completed in the run (both clients for slave reads)
    master_tps: float | None = None  # slave reads: the master's concurrent oltp_insert
    cpu_us: list[float | None] = field(default_factory=list)  # per transaction: master, slave, slave
    switches: list[float | None] = field(default_factory=list)  # voluntary context switches per transaction, the same
    yes_tx: int = 0
    no_tx: int = 0
    tx_waits: int = 0
    avg_wait_us: float | None = None  # Δtx_wait_time / Δtx_waits over this run
    catch_up_s: float | None = None  # from sysbench's end until both slaves had applied everything
    status_after: str = ""
    failure: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.failure:
            return f"FAILED: {self.failure}"
        if self.no_tx > 0:
            return f"NOT semi-sync ({self.no_tx} tx async)"
        if self.yes_tx == 0:
            return "NOT semi-sync (no tx acked)"
        if self.status_after != "ON":
            return f"NOT semi-sync (status {self.status_after} after run)"
        return "semi-sync"


def delta(before: dict[str, str], after: dict[str, str], name: str) -> int:
    key = f"Rpl_semi_sync_master_{name}"
    return int(after.get(key, 0)) - int(before.get(key, 0))


def measure(cluster: Cluster, bench: Sysbench, workload: str, threads: int, round_no: int) -> Run:
    run = Run(round_no, cluster.name, workload, threads)
    cluster.wait_caught_up()  # after prepare: the CPU of a run must not include applying what came before
    pids = cluster.pids()
    before, cpu_before = cluster.semi_status(), [cpu_seconds(p) for p in pids]
    switches_before = [voluntary_switches(p) for p in pids]
    if workload == SLAVE_READS:
        procs = [bench.start("oltp_point_select", cluster.slaves[0].port, "run", threads),
                 bench.start("oltp_insert", cluster.master.port, "run", threads)]
    else:
        procs = [bench.start(workload, cluster.master.port, "run", threads)]
    try:
        reports = [finish(p, bench.seconds + 600) for p in procs]
    finally:  # interrupted: no sysbench outlives the run
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    after, ended = cluster.semi_status(), time.monotonic()
    try:
        cluster.wait_caught_up()  # the slaves' share of these transactions includes applying all of them
    except TimeoutError:
        run.notes.append(f"slaves not caught up {CATCH_UP_SECONDS} s after the run")
    cpu_after = [cpu_seconds(p) for p in pids]
    switches_after = [voluntary_switches(p) for p in pids]
    run.catch_up_s = time.monotonic() - ended

    main = reports[0]
    run.tps, run.avg_ms, run.p95_ms, run.errors = main.tps, main.avg_ms, main.p95_ms, main.errors
    if workload == SLAVE_READS:
        run.master_tps = reports[1].tps
        slave_errors = reports[1].errors
        run.errors = None if main.errors is None or slave_errors is None else main.errors + slave_errors
    run.failure = "; ".join(r.failure for r in reports if r.failure)
    run.transactions = sum(r.transactions for r in reports)
    run.cpu_us = [(a - b) * 1e6 / run.transactions if run.transactions else None for a, b in zip(cpu_after, cpu_before, strict=True)]
    run.switches = [(a - b) / run.transactions if run.transactions else None
                    for a, b in zip(switches_after, switches_before, strict=True)]
    run.yes_tx, run.no_tx = delta(before, after, "yes_tx"), delta(before, after, "no_tx")
    run.tx_waits = waits = delta(before, after, "tx_waits")
    run.avg_wait_us = delta(before, after, "tx_wait_time") / waits if waits > 0 else None
    run.status_after = after.get("Rpl_semi_sync_master_status", "?")
    if after.get("Rpl_semi_sync_master_clients") != "2":
        run.notes.append(f"clients={after.get('Rpl_semi_sync_master_clients')} after run")
    return run


@dataclass
class RowCheck:
    round: int
    system: str
    workload: str
    sums: list[tuple[int, int]]
    equal: bool


@dataclass
class Results:
    runs: list[Run] = field(default_factory=list)
    checks: list[RowCheck] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)  # system -> what its servers reported
    failures: list[str] = field(default_factory=list)  # a system's round that could not be run to its end


def bench_system(system: System, workloads: list[str], threads: list[int], bench: Sysbench, round_no: int,
                 tmp: Path, results: Results) -> None:
    print(f"== round {round_no}, {system.name}: starting master + 2 slaves", file=sys.stderr, flush=True)
    cluster = system.start(tmp / f"r{round_no}-{system.name.replace(' ', '_')}")
    try:
        cluster.wait_semisync_ready()
        results.settings[system.name] = cluster.settings()
        print(f"   pids master/slave/slave {cluster.pids()}, master port {cluster.master.port}; semi-sync ON, 2 clients; "
              f"{results.settings[system.name]}", file=sys.stderr, flush=True)
        cluster.master.query("CREATE DATABASE sbtest")
        for workload in workloads:
            test = "oltp_insert" if workload == SLAVE_READS else workload
            bench.checked(test, cluster.master.port, "prepare", system.name)
            for t in threads:
                run = measure(cluster, bench, workload, t, round_no)
                cpu = " / ".join(fmt(c, 0) for c in run.cpu_us)
                print(f"   {workload} {t:>3} threads: {run.tps} tps, p95 {run.p95_ms} ms, errors {run.errors}, "
                      f"CPU µs/tx {cpu}, no_tx +{run.no_tx}: {run.verdict}", file=sys.stderr, flush=True)
                results.runs.append(run)
            results.checks.append(row_check(cluster, workload, round_no))
            bench.checked(test, cluster.master.port, "cleanup", system.name)
    finally:
        cluster.stop()


def row_check(cluster: Cluster, workload: str, round_no: int) -> RowCheck:
    sums: list[tuple[int, int]] = []

    def same() -> bool:
        sums[:] = cluster.row_sums()
        return len(set(sums)) == 1
    try:
        wait_for(same, CATCH_UP_SECONDS, interval=0.5, message="both slaves to reach the master's rows")
        equal = True
    except TimeoutError:
        equal = False
    print(f"   {workload}: rows (count, sum(k)) master/slave/slave {sums} ({'equal' if equal else 'DIFFERENT'})",
          file=sys.stderr, flush=True)
    return RowCheck(round_no, cluster.name, workload, sums, equal)


# -- tables --------------------------------------------------------------------------------------

def fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def median(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def cells(runs: list[Run], systems: list[str], workload: str, threads: list[int],
          cell: Callable[[list[Run]], str]) -> list[str]:
    rows = []
    for system in systems:
        texts = []
        for t in threads:
            these = [r for r in runs if (r.system, r.workload, r.threads) == (system, workload, t)]
            bad = sum(r.verdict != "semi-sync" for r in these)
            texts.append(cell(these) + (f" ({bad} of {len(these)} NOT semi-sync)" if bad else "") if these else "")
        rows.append(f"| {system} | " + " | ".join(texts) + " |")
    return rows


def tps_cell(runs: list[Run]) -> str:
    text = f"{fmt(median(r.tps for r in runs))} ({fmt(median(r.p95_ms for r in runs), 2)})"
    if runs and runs[0].workload == SLAVE_READS:
        text += f"; master {fmt(median(r.master_tps for r in runs))}"
    return text


def cpu_cell(runs: list[Run]) -> str:
    return _per_process_cell([r.cpu_us for r in runs], 0)


def switches_cell(runs: list[Run]) -> str:
    return _per_process_cell([r.switches for r in runs], 1)


def _per_process_cell(values: list[list[float | None]], digits: int) -> str:
    """Each process's median over the runs, master / slave / slave."""
    processes = max((len(v) for v in values), default=0)
    return " / ".join(fmt(median(v[i] for v in values if i < len(v)), digits) for i in range(processes))


def tables(runs: list[Run], systems: list[str], workloads: list[str], threads: list[int], rounds: int) -> str:
    head = "| system | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) + " |"
    rule = "| --- |" + " ---: |" * len(threads)
    of = f"median of {rounds} round{'s' if rounds > 1 else ''}"
    out: list[str] = []
    for workload in workloads:
        title = ("`oltp_point_select` on a slave while the master takes `oltp_insert`: reads tps (p95 ms); "
                 "the master's tps" if workload == SLAVE_READS else f"`{workload}`: tps (p95 ms)")
        out += [f"{title}, {of}:", "", head, rule, *cells(runs, systems, workload, threads, tps_cell), ""]
    out += [f"CPU µs per transaction, master / slave / slave, {of} (a process's utime + stime from the "
            "start of the run until the slaves have applied it / the transactions sysbench completed in it; "
            "slave reads: reads + the master's inserts):", ""]
    for workload in workloads:
        out += [f"`{workload}`:", "", head, rule, *cells(runs, systems, workload, threads, cpu_cell), ""]
    out += [f"Voluntary context switches per transaction, master / slave / slave, {of} (every live thread of "
            "the process, counted as the CPU is):", ""]
    for workload in workloads:
        out += [f"`{workload}`:", "", head, rule, *cells(runs, systems, workload, threads, switches_cell), ""]
    return "\n".join(out).rstrip("\n")


def runs_table(runs: list[Run]) -> str:
    lines = [
        "| round | system | workload | threads | tps | avg ms | p95 ms | errors | CPU µs/tx master / slave / slave "
        "| switches/tx | yes_tx Δ | no_tx Δ | tx_waits Δ | avg ack wait µs | slaves applied after s | result |",
        "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in runs:
        verdict = r.verdict + ("; " + "; ".join(r.notes) if r.notes else "")
        tps = fmt(r.tps) + (f" (master {fmt(r.master_tps)})" if r.workload == SLAVE_READS else "")
        lines.append(
            f"| {r.round} | {r.system} | {r.workload} | {r.threads} | {tps} | {fmt(r.avg_ms, 2)} | {fmt(r.p95_ms, 2)} | "
            f"{'–' if r.errors is None else r.errors} | {' / '.join(fmt(c, 0) for c in r.cpu_us)} | "
            f"{' / '.join(fmt(c, 1) for c in r.switches)} | {r.yes_tx} | "
            f"{r.no_tx} | {r.tx_waits} | {fmt(r.avg_wait_us, 0)} | {fmt(r.catch_up_s)} | {verdict} |")
    return "\n".join(lines)


def checks_lines(checks: list[RowCheck]) -> str:
    return "\n".join(
        f"- round {c.round}, {c.system}, after {c.workload}: rows (count, sum(k)) master / slave / slave = "
        f"{' / '.join(f'{n} {k}' for n, k in c.sums)} ({'equal' if c.equal else f'NOT equal after {CATCH_UP_SECONDS} s'})"
        for c in checks
    )


# -- recording -----------------------------------------------------------------------------------

def machine() -> str:
    mariadbd = subprocess.run([shutil.which("mariadbd") or "/usr/sbin/mariadbd", "--version"],
                              capture_output=True, text=True).stdout.strip()
    sb = subprocess.run([shutil.which("sysbench") or "sysbench", "--version"], capture_output=True, text=True).stdout.strip()
    return f"nproc {os.cpu_count()}, Python {platform.python_version()}, {sb}, {mariadbd}"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def record(path: Path, block: str) -> None:
    """Replace this script's block in `path`, or append it; re-read just before writing, since
    other benchmarks append to the same file."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + block + tail
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default="ours,mariadb,mariadb-durable",
                        help="comma-separated: ours (every --ours-tree), mariadb, mariadb-durable")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help=f"comma-separated, of {', '.join(WORKLOADS)}")
    parser.add_argument("--threads", help="comma-separated thread counts (default 1,4,16; --quick: 1,4)")
    parser.add_argument("--time", type=int, help="seconds per sysbench run (default 20; --quick: 5)")
    parser.add_argument("--rounds", type=int, help="interleaved rounds, medians over them (default 3; --quick: 1)")
    parser.add_argument("--db-ps-mode", default="auto", choices=["auto", "disable"],
                        help="sysbench's: auto = prepared statements, disable = text protocol")
    parser.add_argument("--table-size", type=int, default=10000)
    parser.add_argument("--ours-tree", action="append", default=[], type=parse_tree, metavar="[LABEL=]PATH",
                        help="a source tree of ours to run (repeatable: each is a system `ours (LABEL)`)")
    parser.add_argument("--ours-variant", action="append", default=[], type=parse_variant, metavar="LABEL=OPTIONS",
                        help="a system `ours (LABEL)` of the first tree whose slaves also get OPTIONS (repeatable)")
    parser.add_argument("--ours-master-variant", action="append", default=[], type=parse_variant,
                        metavar="LABEL=OPTIONS",
                        help="a system `ours (LABEL)` of the first tree whose master also gets OPTIONS (repeatable)")
    parser.add_argument("--quick", action="store_true", help="threads 1,4 for 5 s, 1 round; print only")
    parser.add_argument("--no-record", action="store_true", help="print only, do not touch the results file")
    parser.add_argument("--json", type=Path, help="also write every run and row check to this file")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args(argv)
    args.threads = [int(t) for t in (args.threads or ("1,4" if args.quick else "1,4,16")).split(",")]
    args.time = args.time or (5 if args.quick else 20)
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.workloads = args.workloads.split(",")
    if unknown := [w for w in args.workloads if w not in WORKLOADS]:
        parser.error(f"unknown workload(s) {unknown}; choose from {list(WORKLOADS)}")
    keys = args.systems.split(",")
    known = {"ours": None, **mariadb_systems()}
    if unknown := [s for s in keys if s not in known]:
        parser.error(f"unknown system(s) {unknown}; choose from {list(known)}")
    if (args.ours_tree or args.ours_variant or args.ours_master_variant) and "ours" not in keys:
        parser.error("--ours-tree, --ours-variant or --ours-master-variant without `ours` in --systems")
    labels = [label for label, _ in args.ours_tree + args.ours_variant + args.ours_master_variant]
    if len(set(labels)) < len(labels):
        parser.error("two --ours-tree, --ours-variant or --ours-master-variant with the same label")
    args.system_list = [s for key in keys
                        for s in (ours_systems(args.ours_tree, args.ours_variant, args.ours_master_variant)
                                  if key == "ours"
                                  else [mariadb_systems()[key]])]
    return args


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # not caught per system: the clusters stop, the temp dir goes


def main() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    args = parse_args()
    systems: list[System] = args.system_list
    bench = Sysbench(args.table_size, args.db_ps_mode, args.time)
    command = "python bench/sysbench_semisync.py " + shlex.join(sys.argv[1:])
    uptime_before = uptime()
    started = datetime.datetime.now(datetime.UTC)
    t0 = time.monotonic()
    results = Results()
    with tempfile.TemporaryDirectory(prefix="sysbench_semisync_") as tmp:
        for round_no in range(1, args.rounds + 1):
            order = systems if round_no % 2 else systems[::-1]
            for system in order:
                try:
                    bench_system(system, args.workloads, args.threads, bench, round_no, Path(tmp), results)
                except (Exception, SystemExit) as exc:  # the other systems and rounds still run
                    results.failures.append(f"round {round_no}, {system.name}: {exc}")
                    print(f"   FAILED: {exc}", file=sys.stderr, flush=True)
    runs = results.runs
    out = tables(runs, [s.name for s in systems], args.workloads, args.threads, args.rounds)
    every = runs_table(runs)
    notes = "\n".join([*(f"- {name}: {text}" for name, text in results.settings.items()),
                       checks_lines(results.checks), *(f"- FAILED: {f}" for f in results.failures)])
    print(out, every, notes, sep="\n\n")
    print(f"{time.monotonic() - t0:.0f} s in all", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({"runs": [asdict(r) | {"verdict": r.verdict} for r in runs],
                                         "row_checks": [asdict(c) for c in results.checks],
                                         "settings": results.settings, "failures": results.failures}, indent=1))
    failed = bool(results.failures) or any(r.failure for r in runs) or not all(c.equal for c in results.checks)
    if not (args.quick or args.no_record):
        trees = "".join(f" {s.name} runs `{s.tree}` at {tree_revision(s.tree)}"
                        f"{', slaves with `' + shlex.join(s.slave_options) + '`' if s.slave_options else ''}"
                        f"{', master with `' + shlex.join(s.master_options) + '`' if s.master_options else ''}."
                        for s in systems if s.tree)
        block = "\n".join([
            BEGIN,
            f"## {SECTION}",
            "",
            f"{started:%Y-%m-%d %H:%M} UTC, `{command.strip()}`; {machine()}.{trees}",
            f"Load: `uptime` at the start `{uptime_before}`, at the end `{uptime()}`.",
            f"Each run: `{shlex.join(bench.args('WORKLOAD', 'P', 'T'))} run` (after one `prepare` per "
            "workload) against the master; master and slaves on loopback on the same machine as sysbench. "
            "Rounds alternate the systems' order. Δ = change of the master's status counter over the run; "
            "avg ack wait = Δtx_wait_time / Δtx_waits. Our master counts one tx_wait per commit group "
            "(its transactions wait together), MariaDB one per transaction; MariaDB's binlog is STATEMENT "
            "format here, as ours.",
            "",
            out,
            "",
            "Every run:",
            "",
            every,
            "",
            notes,
            "",
            GUARANTEE,
            END,
        ])
        record(args.results, block)
        print(f"recorded in {args.results}", file=sys.stderr)
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
