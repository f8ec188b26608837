"""Each thread's CPU per transaction in our master and slaves under sysbench: which thread of
which process spends what (a slave's loop runs its IO task and its applier; the engine's
writer thread, the binlog and relay syncers are others).

    python bench/cluster_threads.py [--tree PATH ...] [--threads 16] [--time 15] [--rounds 1]
                                    [--workload oltp_insert] [--rate TPS] [--syscalls] [--strace SECONDS]

For each round and tree (interleaved, in the order given): a master and two semi-sync slaves as
bench/sysbench_semisync.py starts them, sysbench `prepare`, then one `run`; each thread's user
and system CPU (µs) and voluntary / involuntary context switches per transaction, from
/proc/PID/task/TID/stat and status, over the run until both slaves applied it; `*` marks a
process's main thread (its event loop). Threads that spent under 1 µs per transaction and
switched less than 0.05 times are left out of the listing, not of the totals.
`--syscalls` adds each thread's system calls and the wakeups it made (perf's
raw_syscalls:sys_enter and sched:sched_wakeup, counted by `perf stat --per-thread` over the same
span) per transaction. `--strace SECONDS` then runs `strace -c -f` on the three processes at once
for SECONDS, 3 s into the run, and prints each one's calls by name per transaction (the master's
Binlog_commits over that window; strace slows every traced thread down, so the counts are
per-transaction shapes, not rates). `--rate TPS` caps sysbench's rate (its `--rate`): a slave
gathers transactions that arrive closer than slave_commit_wait_usec into one group, so trees
that run at different speeds make different groups; at one capped rate they see the same
arrivals. `--workload slave_point_select` is sysbench_semisync.py's slave reads (`oltp_point_select`
on the first slave while the master takes `oltp_insert`, both with --threads): the counts are per
(read + insert), as that script divides them, and strace's window divides by the reads the first
slave answered (its Com_stmt_execute) plus the master's Binlog_commits. Not a test: compare trees
in one run.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
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


def perf_counts(path: Path) -> dict[int, dict[str, int]]:
    """`perf stat --per-thread -x,` output: each thread's count of each event."""
    out: dict[int, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        fields = line.split(",")
        if len(fields) < 4 or "-" not in fields[0] or not fields[1].isdigit():
            continue
        tid = int(fields[0].rsplit("-", 1)[1])
        out.setdefault(tid, {})[fields[3].split(":")[-1]] = int(fields[1])
    return out


def start_perf(pid: int, path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["perf", "stat", "--per-thread", "-x,", "-o", str(path), "-p", str(pid),
                             "-e", "raw_syscalls:sys_enter,sched:sched_wakeup"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_tracer(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)


def strace_table(path: Path) -> dict[str, int]:
    """`strace -c` output: calls by system call name."""
    calls: dict[str, int] = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
            calls[fields[-1]] = int(fields[3])
    return calls


def binlog_commits(cluster: sb.Cluster) -> int:
    return int(dict(cluster.master.query("SHOW GLOBAL STATUS LIKE 'Binlog_commits'"))["Binlog_commits"])


def slave_reads(cluster: sb.Cluster) -> int:
    """The executions the first slave answered (its Com_stmt_execute: the slave reads' reads)."""
    return int(dict(cluster.slaves[0].query("SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'"))["Com_stmt_execute"])


def strace_window(cluster: sb.Cluster, seconds: float, tmp: Path, reads: bool = False) -> None:
    """Each process's system calls by name per transaction over `seconds` (module docstring);
    `reads`: per (read on the first slave + insert)."""
    pids = cluster.pids()
    paths = [tmp / f"strace-{pid}.txt" for pid in pids]
    first = binlog_commits(cluster) + (slave_reads(cluster) if reads else 0)
    tracers = [subprocess.Popen(["strace", "-c", "-f", "-q", "-o", str(path), "-p", str(pid)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for pid, path in zip(pids, paths, strict=True)]
    time.sleep(seconds)
    for tracer in tracers:
        stop_tracer(tracer)
    tx = binlog_commits(cluster) + (slave_reads(cluster) if reads else 0) - first
    counted = "the first slave's Com_stmt_execute and the master's Binlog_commits" if reads else "the master's Binlog_commits"
    print(f"  strace -c -f, {seconds:.0f} s, {tx} transactions ({counted}): calls per transaction")
    for name, path in zip(("master", "slave", "slave"), paths, strict=True):
        calls = strace_table(path)
        listed = ", ".join(f"{call} {n / tx:.2f}" for call, n in sorted(calls.items(), key=lambda kv: -kv[1])
                           if n / tx >= 0.05)
        print(f"  {name:7s} all {sum(calls.values()) / tx:6.2f}: {listed}")


def report(name: str, pid: int, before: dict[int, ThreadSample], after: dict[int, ThreadSample], tx: int,
           perf: dict[int, dict[str, int]] | None = None) -> None:
    per_us = 1e6 / sb.CLK_TCK / tx
    users = systems = 0.0
    totals = [0.0, 0.0, 0.0, 0.0]
    for tid, end in sorted(after.items()):
        start = before.get(tid, ThreadSample(end.name, 0, 0, 0, 0))
        user, system = (end.user - start.user) * per_us, (end.system - start.system) * per_us
        vol, invol = (end.voluntary - start.voluntary) / tx, (end.involuntary - start.involuntary) / tx
        users, systems = users + user, systems + system
        counted = (perf or {}).get(tid, {})
        calls, woke = counted.get("sys_enter", 0) / tx, counted.get("sched_wakeup", 0) / tx
        totals = [t + n for t, n in zip(totals, (vol, invol, calls, woke), strict=True)]
        if user + system >= 1 or vol >= 0.05:
            print(f"  {name:7s} {tid:>7d}{'*' if tid == pid else ' '} {end.name:15s} user {user:6.0f}  sys {system:5.0f}"
                  f"  vol {vol:5.2f}  invol {invol:5.2f}" + (f"  syscalls {calls:6.2f}  wakeups {woke:5.2f}" if perf else ""))
    print(f"  {name:7s} all threads     user {users:6.0f}  sys {systems:5.0f}  vol {totals[0]:5.2f}  invol {totals[1]:5.2f}"
          + (f"  syscalls {totals[2]:6.2f}  wakeups {totals[3]:5.2f}" if perf else ""))


@dataclass(frozen=True)
class RatedSysbench(sb.Sysbench):
    rate: int = 0

    def args(self, test: str, port: int | str, threads: int | str) -> list[str]:
        return super().args(test, port, threads) + ([f"--rate={self.rate}"] if self.rate else [])


def run_one(tree: Path, bench: sb.Sysbench, workload: str, threads: int, tmp: Path,
            syscalls: bool = False, strace: float = 0.0) -> None:
    cluster = sb.start_ours(f"ours ({tree})", tree, tmp)
    reads = workload == sb.SLAVE_READS
    try:
        cluster.wait_semisync_ready()
        cluster.master.query("CREATE DATABASE sbtest")
        bench.checked("oltp_insert" if reads else workload, cluster.master.port, "prepare", str(tree))
        cluster.wait_caught_up()
        pids = cluster.pids()
        perf_paths = [tmp / f"perf-{pid}.txt" for pid in pids]
        perfs = [start_perf(p, path) for p, path in zip(pids, perf_paths, strict=True)] if syscalls else []
        time.sleep(0.5 if syscalls else 0)  # perf attached before the run starts
        before = [threads_of(p) for p in pids]
        runs = ([bench.start("oltp_point_select", cluster.slaves[0].port, "run", threads),
                 bench.start("oltp_insert", cluster.master.port, "run", threads)] if reads
                else [bench.start(workload, cluster.master.port, "run", threads)])
        if strace:
            time.sleep(3)
            strace_window(cluster, strace, tmp, reads)
        results = [sb.finish(run, bench.seconds + 600) for run in runs]
        cluster.wait_caught_up()
        after = [threads_of(p) for p in pids]
        for perf in perfs:
            stop_tracer(perf)
        counts = [perf_counts(path) for path in perf_paths] if syscalls else [None] * len(pids)
        for result in results:
            if result.failure or not result.transactions:
                raise SystemExit(f"{tree}: sysbench failed: {result.failure}")
        result = results[0]
        transactions = sum(r.transactions for r in results)
        print(f"{tree} ({sb.tree_revision(tree)}): {workload}, {threads} threads: {result.tps} tps, "
              f"p95 {result.p95_ms} ms" + (f", the master's inserts {results[1].tps} tps" if reads else "")
              + f", {transactions} transactions; µs and switches per transaction")
        for name, pid, b, a, c in zip(("master", "slave", "slave"), pids, before, after, counts, strict=True):
            report(name, pid, b, a, transactions, c)
    finally:
        cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], type=sb.parse_tree, metavar="[LABEL=]PATH")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--time", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workload", default="oltp_insert", choices=sb.WORKLOADS)
    parser.add_argument("--table-size", type=int, default=10000)
    parser.add_argument("--rate", type=int, default=0,
                        help="sysbench's --rate: transactions per second at most (0: as fast as it goes), so "
                             "that trees whose speed differs are counted at the same arrivals")
    parser.add_argument("--syscalls", action="store_true", help="each thread's system calls and wakeups (perf)")
    parser.add_argument("--strace", type=float, default=0.0, metavar="SECONDS",
                        help="system calls by name per transaction over a window of the run (strace -c -f)")
    args = parser.parse_args()
    trees = [path for _, path in args.tree] or [sb.ROOT]
    bench = RatedSysbench(args.table_size, "auto", args.time, args.rate)
    with tempfile.TemporaryDirectory(prefix="cluster_threads_") as tmp:
        for round_no in range(1, args.rounds + 1):
            for n, tree in enumerate(trees):
                run_one(tree, bench, args.workload, args.threads, Path(tmp) / f"r{round_no}-{n}",
                        args.syscalls, args.strace)


if __name__ == "__main__":
    main()
