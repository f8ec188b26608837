"""Each thread's CPU per transaction in our master and slaves under sysbench: which thread of
which process spends what (a slave's loop runs its IO task and its applier; the engine's
writer thread, the binlog and relay syncers are others).

    python bench/cluster_threads.py [--tree PATH ...] [--threads 16] [--time 15] [--rounds 1]
                                    [--workload oltp_insert]

For each round and tree (interleaved, in the order given): a master and two semi-sync slaves as
bench/sysbench_semisync.py starts them, sysbench `prepare`, then one `run`; each thread's user
and system CPU (µs) and voluntary / involuntary context switches per transaction, from
/proc/PID/task/TID/stat and status, over the run until both slaves applied it; `*` marks a
process's main thread (its event loop). Threads that spent under 1 µs per transaction and
switched less than 0.05 times are left out of the listing, not of the totals. Not a test:
compare trees in one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sysbench_semisync as sb  # noqa: E402


@dataclass(frozen=True)
class ThreadSample:
    name: str
    user: int  # clock ticks
    system: int
    voluntary: int
    involuntary: int


def threads_of(pid: int) -> dict[int, ThreadSample]:
    """The live threads of `pid` (a thread that ended takes its counts with it)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[int(tid)] = ThreadSample(stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]), int(fields[12]),
                                     int(status["voluntary_ctxt_switches"]), int(status["nonvoluntary_ctxt_switches"]))
    return out


def report(name: str, pid: int, before: dict[int, ThreadSample], after: dict[int, ThreadSample], tx: int) -> None:
    per_us = 1e6 / sb.CLK_TCK / tx
    users = systems = 0.0
    for tid, end in sorted(after.items()):
        start = before.get(tid, ThreadSample(end.name, 0, 0, 0, 0))
        user, system = (end.user - start.user) * per_us, (end.system - start.system) * per_us
        vol, invol = (end.voluntary - start.voluntary) / tx, (end.involuntary - start.involuntary) / tx
        users, systems = users + user, systems + system
        if user + system >= 1 or vol >= 0.05:
            print(f"  {name:7s} {tid:>7d}{'*' if tid == pid else ' '} {end.name:15s} user {user:6.0f}  sys {system:5.0f}"
                  f"  vol {vol:5.2f}  invol {invol:5.2f}")
    print(f"  {name:7s} all threads     user {users:6.0f}  sys {systems:5.0f}")


def run_one(tree: Path, bench: sb.Sysbench, workload: str, threads: int, tmp: Path) -> None:
    cluster = sb.start_ours(f"ours ({tree})", tree, tmp)
    try:
        cluster.wait_semisync_ready()
        cluster.master.query("CREATE DATABASE sbtest")
        bench.checked(workload, cluster.master.port, "prepare", str(tree))
        cluster.wait_caught_up()
        pids = cluster.pids()
        before = [threads_of(p) for p in pids]
        result = sb.finish(bench.start(workload, cluster.master.port, "run", threads), bench.seconds + 600)
        cluster.wait_caught_up()
        after = [threads_of(p) for p in pids]
        if result.failure or not result.transactions:
            raise SystemExit(f"{tree}: sysbench failed: {result.failure}")
        print(f"{tree} ({sb.tree_revision(tree)}): {workload}, {threads} threads: {result.tps} tps, "
              f"p95 {result.p95_ms} ms, {result.transactions} transactions; µs and switches per transaction")
        for name, pid, b, a in zip(("master", "slave", "slave"), pids, before, after, strict=True):
            report(name, pid, b, a, result.transactions)
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], type=sb.parse_tree, metavar="[LABEL=]PATH")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--time", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workload", default="oltp_insert", choices=[w for w in sb.WORKLOADS if w != sb.SLAVE_READS])
    parser.add_argument("--table-size", type=int, default=10000)
    args = parser.parse_args()
    trees = [path for _, path in args.tree] or [sb.ROOT]
    bench = sb.Sysbench(args.table_size, "auto", args.time)
    with tempfile.TemporaryDirectory(prefix="cluster_threads_") as tmp:
        for round_no in range(1, args.rounds + 1):
            for n, tree in enumerate(trees):
                run_one(tree, bench, args.workload, args.threads, Path(tmp) / f"r{round_no}-{n}")


if __name__ == "__main__":
    main()
