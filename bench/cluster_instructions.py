"""Each process's instructions per transaction in our semi-sync cluster, counted by valgrind's
callgrind: what `bench/sysbench_semisync.py` measures as CPU time, in a unit this machine's load
and wakeups do not move.

    python bench/cluster_instructions.py [--workload oltp_insert] [--threads 4] [--events 400]
                                         [--tree NAME=PATH ...]

For each tree in turn: a master and two slaves as sysbench_semisync.py's `ours` starts them
(semi-sync AFTER_SYNC, one ack, sync_binlog=1, slaves acking after their fsync), each under
callgrind; sysbench prepares its table and warms up; every process's count is zeroed
(`callgrind_control --zero`), sysbench runs `--events` transactions, the slaves catch up, and
every process's count is dumped. Printed: instructions per transaction of the master and of
each slave, and the transactions per binlog group (a group's fixed work is shared by its
transactions, so compare trees at equal group sizes). A process under callgrind runs some 50
times slower: the cluster commits a few transactions a second, semi-sync stays on (its timeout
is raised to 60 s), and a run of 400 events takes minutes. Not a test; counts, not waits (an
fsync's time, a wakeup's latency).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sysbench_semisync import Cluster, Sysbench, parse_tree  # noqa: E402

from tests.support.daemons import Daemon, wait_for  # noqa: E402

TIMEOUT = 600.0  # a daemon's start, semi-sync's readiness, a catch-up: all slowed by callgrind


def _under_callgrind(daemon: Daemon, out: Path) -> Daemon:
    """`daemon` started as a callgrind process (valgrind runs in the daemon's own pid)."""
    daemon.args = [shutil.which("valgrind") or "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                   os.path.realpath(sys.executable), *daemon.args[1:]]
    return daemon


def start_counted(code: Path, tmp: Path) -> tuple[Cluster, dict[int, Path]]:
    """The cluster of sysbench_semisync.start_ours, each process under callgrind; its dump files."""
    dumps: dict[int, Path] = {}

    def daemon(role: str, name: str, args: list[str]) -> Daemon:
        out = tmp / f"{name}.callgrind"
        d = _under_callgrind(Daemon(role, tmp / name, args, code=code), out)
        d.start(timeout=TIMEOUT)
        assert d.proc is not None
        dumps[d.proc.pid] = out
        return d

    master = daemon("master", "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--rpl-semi-sync-master-wait-for-slave-count=1", "--sync-binlog=1", "--rpl-semi-sync-master-timeout=60000",
    ])
    cluster = Cluster("ours", master)
    try:
        for server_id in (2, 3):
            cluster.slaves.append(daemon("slave", f"slave{server_id}", [
                f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=root", "--rpl-semi-sync-slave-enabled=ON", "--sync-relay-log=1",
            ]))
        cluster.wait_semisync_ready(TIMEOUT)
    except BaseException:
        cluster.stop()
        raise
    return cluster, dumps


def _callgrind_control(option: str, pid: int) -> None:
    subprocess.run([shutil.which("callgrind_control") or "callgrind_control", option, str(pid)],
                   check=True, capture_output=True, text=True)


def _dumped(out: Path, since: float) -> int:
    """The instruction total of the newest dump of `out` (callgrind adds .1, .2 ... to a requested dump)."""
    def newest() -> Path | None:
        found = [p for p in out.parent.glob(out.name + ".*") if p.stat().st_mtime >= since]
        return max(found, key=lambda p: p.stat().st_mtime) if found else None

    wait_for(lambda: newest() is not None, 60, message=f"a callgrind dump of {out.name}")
    path = newest()
    assert path is not None
    wait_for(lambda: re.search(r"^totals: \d+", path.read_text(), re.MULTILINE) is not None, 60,
             message=f"the totals line of {path.name}")
    return int(re.search(r"^totals: (\d+)", path.read_text(), re.MULTILINE).group(1))  # type: ignore[union-attr]


def _status(cluster: Cluster, name: str) -> int:
    return int(cluster.master.status(name).get(name, 0))


def measure(name: str, code: Path, workload: str, threads: int, events: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cluster, dumps = start_counted(code, Path(tmp))
        try:
            bench = Sysbench(table_size=1000, ps_mode="auto", seconds=0)
            port = cluster.master.port
            cluster.master.query("CREATE DATABASE sbtest")
            bench.checked(workload, port, "prepare", "ours")
            warm = subprocess.run(bench.args(workload, port, threads) + ["--events=50", "run"],
                                  capture_output=True, text=True, timeout=TIMEOUT)
            if warm.returncode != 0:
                raise SystemExit(f"sysbench warm-up failed:\n{warm.stdout[-2000:]}{warm.stderr[-2000:]}")
            cluster.wait_caught_up()
            groups0, yes0 = _status(cluster, "Binlog_group_commits"), _status(cluster, "Rpl_semi_sync_master_yes_tx")
            for pid in dumps:
                _callgrind_control("--zero", pid)
            run = subprocess.run(bench.args(workload, port, threads) + [f"--events={events}", "run"],
                                 capture_output=True, text=True, timeout=4 * TIMEOUT)
            if run.returncode != 0:
                raise SystemExit(f"sysbench run failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
            done = int(re.search(r"transactions:\s+(\d+)", run.stdout).group(1))  # type: ignore[union-attr]
            wait_for(cluster.caught_up, TIMEOUT, interval=1.0, message="slaves to apply the master's binlog")
            since = time.time() - 1
            for pid in dumps:
                _callgrind_control("--dump", pid)
            counts = [_dumped(dumps[pid], since) for pid in cluster.pids()]
            groups = _status(cluster, "Binlog_group_commits") - groups0
            yes = _status(cluster, "Rpl_semi_sync_master_yes_tx") - yes0
        finally:
            cluster.stop()
    per = " / ".join(f"{c / done:,.0f}" for c in counts)
    print(f"{name}: {workload} {threads} thread(s), {done} transactions ({yes} semi-sync acked, "
          f"{done / groups if groups else float('nan'):.1f} per group): instructions per transaction "
          f"master / slave / slave {per}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="oltp_insert")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="a source tree with its C parts built (repeatable; default: this one)")
    args = parser.parse_args()
    trees = [parse_tree(spec) for spec in args.tree] or [("this", Path(__file__).resolve().parents[1])]
    for name, code in trees:
        measure(name, code, args.workload, args.threads, args.events)


if __name__ == "__main__":
    main()
