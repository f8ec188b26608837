"""Where a semi-sync commit's time goes: the steps of each commit group, from its leader to the
wakeup of its sessions, timed across the master and both slaves.

    python bench/commit_timeline.py [--threads 1] [--time 10] [--workload oltp_insert]
        [--table-size 10000] [--tree PATH] [--keep-logs DIR]

The master and two slaves of bench/sysbench_semisync.py (`ours`: semi-sync AFTER_SYNC, one ack,
sync_binlog=1, slaves sync_relay_log=1) run from the tree (default: this checkout) through
bench/timeline_boot.py, which marks each step of the commit path in time (its header lists the
marks). sysbench runs WORKLOAD against the master for --time seconds; then the marks of every
group published in the middle 80 % of the run are matched in time order (a group's next mark of
each kind after its publish, on the master and on each slave) and each step's median and 90th
percentile are printed, in µs. Meant for one client thread, where groups follow each other; with
more, the matching reads the step a group shares with its neighbours (one slave read, one ack
may cover several groups).

Not a measurement of speed: a mark costs a few µs, and this machine's noise moves every step
together (compare steps within one run, not runs). It is what bench/RESULTS.md quotes as the
profile of a one-thread commit.
"""

from __future__ import annotations

import argparse
import bisect
import re
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sysbench_semisync as harness  # noqa: E402  (bench/: the cluster and sysbench of the main bench)

BOOT = Path(__file__).resolve().parent / "timeline_boot.py"


@dataclass
class Marks:
    """One process's marks: name -> sorted CLOCK_MONOTONIC ns."""
    role: str
    pid: int
    times: dict[str, list[int]] = field(default_factory=dict)

    def next(self, name: str, after: int | None) -> int | None:
        """The first `name` mark at or after `after` (None: none, or no `after`)."""
        if after is None:
            return None
        times = self.times.get(name, [])
        i = bisect.bisect_left(times, after)
        return times[i] if i < len(times) else None

    def last(self, name: str, before: int) -> int | None:
        """The last `name` mark at or before `before`."""
        times = self.times.get(name, [])
        i = bisect.bisect_right(times, before)
        return times[i - 1] if i else None


def read_marks(log_dir: Path) -> tuple[Marks, list[Marks]]:
    """The master's marks and each slave's (in the order they started: their pids)."""
    found = []
    for path in log_dir.glob("*.log"):
        m = re.fullmatch(r"(master|slave)-(\d+)\.log", path.name)
        if not m:
            continue
        marks = Marks(m.group(1), int(m.group(2)))
        for line in path.read_text().splitlines():
            name, _, ns = line.partition(" ")
            marks.times.setdefault(name, []).append(int(ns))
        for times in marks.times.values():
            times.sort()
        found.append(marks)
    masters = [m for m in found if m.role == "master"]
    if len(masters) != 1:
        raise SystemExit(f"{log_dir}: expected the marks of one master, found {len(masters)}")
    return masters[0], sorted((m for m in found if m.role == "slave"), key=lambda m: m.pid)


def steps(master: Marks, slaves: list[Marks]) -> dict[str, list[float]]:
    """Each step's durations in µs, one per group published in the middle 80 % of the run."""
    out: dict[str, list[float]] = {}

    def add(name: str, start: int | None, end: int | None) -> None:
        if start is not None and end is not None and end >= start:
            out.setdefault(name, []).append((end - start) / 1000)

    published = master.times.get("pub", [])
    cut = len(published) // 10
    for pub in published[cut:len(published) - cut]:
        group = master.last("group", pub)
        gw0 = master.next("gw0", group)
        fd0 = master.next("fd0", gw0)
        if fd0 is not None and fd0 < pub:  # written on the loop, fdatasync on the compiled syncer
            fd1 = master.next("fd1", fd0)
            add("master: leader to binlog write (events built)", group, gw0)
            add("master: binlog write on the loop", gw0, fd0)
            add("master: binlog write + fdatasync", gw0, fd1)
            add("master: fdatasync on the syncer's thread, answer read", fd0, fd1)
            add("master: to the publish", fd1, pub)
        else:  # write and fdatasync on the binlog I/O thread
            io0 = master.next("io0", group)
            w0 = master.next("w0", io0)
            w1 = master.next("w1", w0)
            io1 = master.next("io1", w1)
            add("master: leader to binlog write (events built)", group, io0)
            add("master: hop to the binlog I/O thread", io0, w0)
            add("master: binlog write + fdatasync", w0, w1)
            add("master: hop back to the loop", w1, io1)
            add("master: to the publish", io1, pub)
        send = master.next("send", pub)
        add("master: publish to the first dump's send", pub, send)
        acks = []
        for i, slave in enumerate(slaves, 1):
            rx = slave.next("rx", send)
            counted = slave.next("rc", send)
            if counted is not None and (rx is None or counted < rx):
                # the receiver thread read, wrote, fsynced and acked it without the loop: its
                # steps are not marked; the loop counted the batch afterwards
                add(f"slave {i}: the receiver thread's batch (read, relay write, fsync, ack), counted on its loop",
                    send, counted)
                continue
            rs0 = slave.next("rs0", rx)
            rs1 = slave.next("rs1", rs0)
            add(f"slave {i}: send to read (loopback, its loop)", send, rx)
            add(f"slave {i}: events handled, relay written", rx, rs0)
            early = slave.next("ack", rx)
            if early is not None and rs0 is not None and early < rs0:
                # the ack was made before the fsync and left from the syncer's thread right
                # after it: its send time is not marked; the fsync step ends with the answer read
                add(f"slave {i}: relay fsync + ack by the syncer's thread, answer read", rs0, rs1)
                continue
            ack = slave.next("ack", rs1)
            add(f"slave {i}: relay fsync (with its thread hops)", rs0, rs1)
            add(f"slave {i}: to the ack", rs1, ack)
            if ack is not None:
                acks.append(ack)
        ackrx = master.next("ackrx", min(acks)) if acks else None
        acked = master.next("acked", pub)
        add("master: first ack sent to received", min(acks) if acks else None, ackrx)
        add("master: ack received to the wait's end", ackrx, acked)
        add("master: publish to the wait's end (ack wait)", pub, acked)
        wake = master.next("wake", acked)
        add("master: engine commit to the sessions' wakeup", acked, wake)
        following = master.next("group", wake)
        add("master: wakeup to the next group (OK, client, next statement)", wake, following)
        add("cycle: group to next group", group, following)
    for i, slave in enumerate(slaves, 1):
        for start, end, name in (("ap0", "ap1", "applier batch (apply + binlog + commit)"),
                                 ("w0", "w1", "its binlog write + fdatasync")):
            for t in slave.times.get(start, []):  # each start with the first end after it
                add(f"slave {i}: {name}", t, slave.next(end, t))
    return out


def table(durations: dict[str, list[float]]) -> str:
    lines = ["| step | n | median µs | p90 µs |", "| --- | ---: | ---: | ---: |"]
    for name, values in durations.items():
        ordered = sorted(values)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        lines.append(f"| {name} | {len(ordered)} | {statistics.median(ordered):,.0f} | {p90:,.0f} |")
    return "\n".join(lines)


def run(tree: Path, workload: str, threads: int, seconds: int, table_size: int, log_dir: Path) -> harness.Run:
    bench = harness.Sysbench(table_size, "auto", seconds)
    with tempfile.TemporaryDirectory(prefix="commit_timeline_") as tmp:
        cluster = harness.start_ours("ours (timed)", tree, Path(tmp), launch=(str(BOOT), str(log_dir)))
        try:
            cluster.wait_semisync_ready()
            print(f"pids master/slave/slave {cluster.pids()}; {cluster.settings()}", file=sys.stderr, flush=True)
            cluster.master.query("CREATE DATABASE sbtest")
            bench.checked(workload, cluster.master.port, "prepare", "ours")
            for log in log_dir.glob("*.log"):
                log.write_bytes(b"")  # only the run's marks count, not the prepare's
            return harness.measure(cluster, bench, workload, threads, 1)
        finally:
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--time", type=int, default=10)
    parser.add_argument("--workload", default="oltp_insert", choices=["oltp_insert", "oltp_write_only", "oltp_read_write"])
    parser.add_argument("--table-size", type=int, default=10000)
    parser.add_argument("--tree", type=harness.parse_tree, default=("this checkout", harness.ROOT), metavar="PATH")
    parser.add_argument("--keep-logs", type=Path, help="write the marks here (default: a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="commit_timeline_marks_") as tmp:
        log_dir = args.keep_logs or Path(tmp)
        log_dir.mkdir(parents=True, exist_ok=True)
        for old in [*log_dir.glob("master-*.log"), *log_dir.glob("slave-*.log")]:
            old.unlink()  # an earlier run's marks
        result = run(args.tree[1], args.workload, args.threads, args.time, args.table_size, log_dir)
        master, slaves = read_marks(log_dir)
    cpu = " / ".join(harness.fmt(c, 0) for c in result.cpu_us)
    print(f"{args.workload}, {args.threads} thread(s), {args.time} s, tree {args.tree[1]} "
          f"({harness.tree_revision(args.tree[1])}): {result.tps} tps, p95 {result.p95_ms} ms, "
          f"errors {result.errors}, CPU µs/tx {cpu}, {result.verdict}\n")
    print(table(steps(master, slaves)))
    if result.failure or result.verdict != "semi-sync":
        raise SystemExit(f"the run was not what the steps assume: {result.failure or result.verdict}")


if __name__ == "__main__":
    main()
