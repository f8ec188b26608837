"""sysbench oltp_insert through semi-sync replication, ours side by side with MariaDB 10.11's.

    python bench/sysbench_semisync.py [--threads 1,4,16] [--time 20] [--quick] [--systems ours,mariadb]
                                      [--no-record] [--results bench/RESULTS.md]

For each system: a master and two slaves on loopback, semi-sync ON, AFTER_SYNC, one ack needed
(wait_for_slave_count=1 for ours; MariaDB always waits for one), sync_binlog=1 on the master.
- ours: `semisync master --rpl-semi-sync-master-enabled=ON --sync-binlog=1` and two
  `semisync slave --rpl-semi-sync-slave-enabled=ON --sync-relay-log=1`, as child processes;
- MariaDB: three stock `mariadbd` (tests/support/mariadb.py), the master with
  `--rpl-semi-sync-master-enabled=ON --rpl-semi-sync-master-wait-point=AFTER_SYNC --sync-binlog=1
  --innodb-flush-log-at-trx-commit=1`, the replicas with `--rpl-semi-sync-slave-enabled=ON`,
  attached by CHANGE MASTER TO ... MASTER_USE_GTID=no.
Both replicate as root (so nothing is binlogged before the slaves are attached). Measuring starts
only once the master counts 2 semi-sync clients and its status is ON.

Then sysbench oltp_insert (1 table of 10 000 rows, text protocol): prepare once per system, run
once per thread count, and from the master's status the deltas of Rpl_semi_sync_master_yes_tx /
no_tx / tx_waits / tx_wait_time around each run. A run with no_tx > 0 fell back to asynchronous
replication for part of the time: it is reported as such, not as a semi-sync result. At the end
both slaves must reach the master's row count (checked before `cleanup`).

Prints a markdown table and appends it, with the machine and its load, to bench/RESULTS.md
(the block between this script's markers is replaced when it is there already); `--quick`
(threads 1,4 for 5 s) and `--no-record` only print. Not a test: the numbers depend on the
machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.daemons import Daemon, wait_for  # noqa: E402
from tests.support.mariadb import MariaDBServer  # noqa: E402

SECTION = "sysbench oltp_insert, semi-sync AFTER_SYNC, 2 slaves: ours vs MariaDB 10.11"
BEGIN, END = "<!-- sysbench_semisync: begin -->", "<!-- sysbench_semisync: end -->"
TABLE_SIZE = 10000
GUARANTEE = (
    "Guarantee difference: our slaves acknowledge an event only after the relay log holding it is "
    "fsynced (`--sync-relay-log=1`); MariaDB's replicas acknowledge once the event is written to "
    "the relay log, without fsync (its `sync_relay_log` is 10000 by default), so an acked "
    "transaction can still be lost if the master and that replica's host crash together. Ours pays "
    "one extra fsync per ack batch on the slave in every semi-sync round trip. Masters are alike: "
    "binlog fsynced per group (`sync_binlog=1`); MariaDB's InnoDB also flushes its redo log per "
    "commit (`innodb_flush_log_at_trx_commit=1`), ours commits SQLite in WAL mode with "
    "synchronous=FULL per group."
)


@dataclass
class Cluster:
    """A started master and its slaves: anything with `.port`, `.query(sql)` and `.stop()`."""
    name: str
    master: Any
    slaves: list[Any]
    master_pid: int | None = None

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

    def row_counts(self) -> list[int]:
        return [int(node.query("SELECT COUNT(*) FROM sbtest.sbtest1")[0][0]) for node in (self.master, *self.slaves)]

    def stop(self) -> None:
        for node in (*self.slaves, self.master):
            try:
                node.stop()
            except Exception as exc:  # keep stopping the others
                print(f"{self.name}: stop failed: {exc}", file=sys.stderr)


def start_ours(tmp: Path) -> Cluster:
    master = Daemon("master", tmp / "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--rpl-semi-sync-master-wait-for-slave-count=1", "--sync-binlog=1",
    ])
    cluster = Cluster("ours", master, [])
    master.start()
    cluster.master_pid = master.proc.pid if master.proc else None
    for server_id in (2, 3):
        slave = Daemon("slave", tmp / f"slave{server_id}", [
            f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=root", "--rpl-semi-sync-slave-enabled=ON", "--sync-relay-log=1",
        ])
        cluster.slaves.append(slave)
        slave.start()
    return cluster


def start_mariadb(tmp: Path) -> Cluster:
    master = MariaDBServer(tmp / "master", server_id=1, log_bin="master-bin", extra=[
        "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1",
    ])
    cluster = Cluster("MariaDB 10.11", master, [])
    master.start()
    cluster.master_pid = master.proc.pid if master.proc else None
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    for server_id in (2, 3):
        replica = MariaDBServer(tmp / f"replica{server_id}", server_id=server_id, log_bin=None,
                                extra=["--rpl-semi-sync-slave-enabled=ON"])
        cluster.slaves.append(replica)
        replica.start()
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='root', "
            f"MASTER_PASSWORD='', MASTER_LOG_FILE='{file}', MASTER_LOG_POS={pos}, MASTER_USE_GTID=no, "
            "MASTER_CONNECT_RETRY=1",
            "START SLAVE",
        ])
    return cluster


SYSTEMS: dict[str, Callable[[Path], Cluster]] = {"ours": start_ours, "mariadb": start_mariadb}


def sysbench(port: int, command: str, threads: int = 1, seconds: int = 10) -> subprocess.CompletedProcess[str]:
    args = sysbench_args(port, threads, seconds) + [command]
    return subprocess.run(args, capture_output=True, text=True, timeout=seconds + 600)


def sysbench_args(port: int | str, threads: int | str, seconds: int | str) -> list[str]:
    return [
        shutil.which("sysbench") or "sysbench", "oltp_insert", "--db-driver=mysql", "--mysql-host=127.0.0.1",
        f"--mysql-port={port}", "--mysql-user=root", "--mysql-db=sbtest", "--tables=1",
        f"--table-size={TABLE_SIZE}", "--db-ps-mode=disable", f"--threads={threads}", f"--time={seconds}",
        "--report-interval=0",
    ]


def checked(result: subprocess.CompletedProcess[str], what: str) -> str:
    if result.returncode != 0:
        raise SystemExit(f"sysbench {what} failed (exit {result.returncode}):\n{result.stdout[-3000:]}{result.stderr[-3000:]}")
    return result.stdout


@dataclass
class Run:
    system: str
    threads: int
    tps: float | None = None
    avg_ms: float | None = None
    p95_ms: float | None = None
    errors: int | None = None
    yes_tx: int = 0
    no_tx: int = 0
    tx_waits: int = 0
    avg_wait_us: float | None = None  # tx_wait_time / tx_waits over this run
    server_avg_wait_us: str = ""  # the master's own (cumulative) Rpl_semi_sync_master_tx_avg_wait_time
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


def parse_report(report: str, run: Run) -> None:
    def number(pattern: str) -> float:
        found = re.search(pattern, report)
        if not found:
            raise ValueError(f"no match for {pattern!r} in sysbench output")
        return float(found.group(1))
    run.tps = number(r"transactions:\s+\d+\s+\(([\d.]+) per sec")
    run.errors = int(number(r"ignored errors:\s+(\d+)"))
    run.avg_ms = number(r"avg:\s+([\d.]+)")
    run.p95_ms = number(r"95th percentile:\s+([\d.]+)")


def delta(before: dict[str, str], after: dict[str, str], name: str) -> int:
    key = f"Rpl_semi_sync_master_{name}"
    return int(after.get(key, 0)) - int(before.get(key, 0))


def measure(cluster: Cluster, threads: int, seconds: int) -> Run:
    run = Run(cluster.name, threads)
    before = cluster.semi_status()
    result = sysbench(cluster.master.port, "run", threads, seconds)
    after = cluster.semi_status()
    run.yes_tx, run.no_tx = delta(before, after, "yes_tx"), delta(before, after, "no_tx")
    run.tx_waits = waits = delta(before, after, "tx_waits")
    run.avg_wait_us = delta(before, after, "tx_wait_time") / waits if waits > 0 else None
    run.server_avg_wait_us = after.get("Rpl_semi_sync_master_tx_avg_wait_time", "?")
    run.status_after = after.get("Rpl_semi_sync_master_status", "?")
    if after.get("Rpl_semi_sync_master_clients") != "2":
        run.notes.append(f"clients={after.get('Rpl_semi_sync_master_clients')} after run")
    if result.returncode != 0:
        run.failure = f"sysbench exit {result.returncode}: " + " / ".join(
            line.strip() for line in (result.stdout + result.stderr).splitlines() if "FATAL" in line or "error" in line.lower()
        )[:300]
    try:
        parse_report(result.stdout, run)
    except ValueError as exc:
        run.failure = run.failure or str(exc)
    return run


@dataclass
class SystemResult:
    name: str
    runs: list[Run]
    counts: list[int]
    counts_match: bool


def bench_system(name: str, threads: list[int], seconds: int, tmp: Path) -> SystemResult:
    print(f"== {name}: starting master + 2 slaves", file=sys.stderr, flush=True)
    cluster = SYSTEMS[name](tmp / name)
    try:
        cluster.wait_semisync_ready()
        print(f"   {cluster.name}: master pid {cluster.master_pid}, port {cluster.master.port}; semi-sync ON, 2 clients",
              file=sys.stderr, flush=True)
        cluster.master.query("CREATE DATABASE sbtest")
        checked(sysbench(cluster.master.port, "prepare"), f"prepare on {name}")
        runs = []
        for t in threads:
            run = measure(cluster, t, seconds)
            print(f"   {t:>3} threads: {run.tps} tps, avg {run.avg_ms} ms, p95 {run.p95_ms} ms, "
                  f"yes_tx +{run.yes_tx}, no_tx +{run.no_tx}: {run.verdict}", file=sys.stderr, flush=True)
            runs.append(run)
        counts: list[int] = []

        def same_counts() -> bool:
            counts[:] = cluster.row_counts()
            return len(set(counts)) == 1
        try:
            wait_for(same_counts, 180, interval=0.5, message="both slaves to reach the master's row count")
            match = True
        except TimeoutError:
            match = False
        print(f"   row counts master/slave/slave: {counts} ({'equal' if match else 'DIFFERENT'})", file=sys.stderr, flush=True)
        checked(sysbench(cluster.master.port, "cleanup"), f"cleanup on {name}")
        return SystemResult(cluster.name, runs, counts, match)
    finally:
        cluster.stop()


def fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def table(results: list[SystemResult]) -> str:
    lines = [
        "| system | threads | tps | avg ms | p95 ms | errors | yes_tx Δ | no_tx Δ | tx_waits Δ | avg ack wait µs (run) "
        "| tx_avg_wait_time µs (master) | result |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for res in results:
        for r in res.runs:
            verdict = r.verdict + ("; " + "; ".join(r.notes) if r.notes else "")
            lines.append(f"| {res.name} | {r.threads} | {fmt(r.tps)} | {fmt(r.avg_ms, 2)} | {fmt(r.p95_ms, 2)} | "
                         f"{'–' if r.errors is None else r.errors} | {r.yes_tx} | {r.no_tx} | {r.tx_waits} | {fmt(r.avg_wait_us, 0)} | "
                         f"{r.server_avg_wait_us} | {verdict} |")
    return "\n".join(lines)


def counts_lines(results: list[SystemResult]) -> str:
    return "\n".join(
        f"- {res.name}: rows in sbtest.sbtest1 master / slave / slave = {' / '.join(map(str, res.counts))} "
        f"({'equal' if res.counts_match else 'NOT equal after 180 s'})"
        for res in results
    )


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", default="1,4,16")
    parser.add_argument("--time", type=int, default=20, help="seconds per sysbench run")
    parser.add_argument("--quick", action="store_true", help="threads 1,4 for 5 s; print only")
    parser.add_argument("--systems", default="ours,mariadb")
    parser.add_argument("--no-record", action="store_true", help="print only, do not touch the results file")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "RESULTS.md")
    args = parser.parse_args()
    threads = [1, 4] if args.quick else [int(t) for t in args.threads.split(",")]
    seconds = 5 if args.quick else args.time
    systems = args.systems.split(",")
    if unknown := [s for s in systems if s not in SYSTEMS]:
        parser.error(f"unknown system(s) {unknown}; choose from {list(SYSTEMS)}")
    command = "python bench/sysbench_semisync.py " + shlex.join(sys.argv[1:])
    uptime_before = uptime()
    started = datetime.datetime.now(datetime.UTC)
    with tempfile.TemporaryDirectory(prefix="sysbench_semisync_") as tmp:
        results = [bench_system(name, threads, seconds, Path(tmp)) for name in systems]
    out = table(results)
    print(out)
    print(counts_lines(results))
    if args.quick or args.no_record:
        return
    sb_line = shlex.join(sysbench_args("P", "T", seconds)) + " run"
    block = "\n".join([
        BEGIN,
        f"## {SECTION}",
        "",
        f"{started:%Y-%m-%d %H:%M} UTC, `{command.strip()}`; {machine()}.",
        f"Load: `uptime` at the start `{uptime_before}`, at the end `{uptime()}`.",
        f"Each run: `{sb_line}` (after one `prepare`) against the master; master and slaves on loopback "
        "on the same machine as sysbench. Δ = change of the master's status counter over the run; "
        "avg ack wait = Δtx_wait_time / Δtx_waits. Our master counts one tx_wait per commit group "
        "(its transactions wait together), MariaDB one per transaction; MariaDB's binlog is STATEMENT "
        "format here, as ours.",
        "",
        out,
        "",
        counts_lines(results),
        "",
        GUARANTEE,
        END,
    ])
    record(args.results, block)
    print(f"recorded in {args.results}", file=sys.stderr)


if __name__ == "__main__":
    main()
