"""What the in-process benches (applier_bench.py, io_task_bench.py) share: each thread's CPU from
/proc, and the runs of several source trees, interleaved, each in a fresh process importing its
tree, with each tree's median; or each tree's instructions per transaction counted by valgrind's
callgrind, which this machine's load does not change (`run_trees_counted`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def thread_cpu() -> dict[str, int]:
    """utime and stime clock ticks of each thread of this process, by thread name and id."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        out[f"{name}/{task.name} user"] = int(fields[11])
        out[f"{name}/{task.name} system"] = int(fields[12])
    return out


def print_thread_cpu(before: dict[str, int], after: dict[str, int], transactions: int) -> None:
    """Each thread's user and system CPU between two `thread_cpu()`s, per transaction."""
    for name, ticks in sorted(after.items()):
        used = ticks - before.get(name, 0)
        if used:
            print(f"  thread {name}: {used / os.sysconf('SC_CLK_TCK') / transactions * 1e6:.1f} µs per transaction")


def run_trees(script: str, options: list[str], trees: list[str], rounds: int) -> None:
    """`script --one OPTIONS` from each tree in turn, `rounds` times (the script prints its µs per
    transaction as JSON, last); prints each tree's median and its values."""
    results: dict[str, list[float]] = {tree: [] for tree in trees}
    for _ in range(rounds):
        for tree in trees:  # interleaved
            out = subprocess.run(
                [sys.executable, script, "--one", *options],
                cwd=tree, env={**os.environ, "PYTHONPATH": tree}, check=True, capture_output=True, text=True,
            )
            results[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for tree, values in results.items():
        print(f"{tree}: median {statistics.median(values):.1f} µs per transaction ({', '.join(f'{v:.1f}' for v in values)})")


def _instructions(script: str, options: list[str], tree: str, transactions: int, out: Path) -> int:
    """The instructions (callgrind's Ir, all threads) of one run of `script --one` in `tree`."""
    subprocess.run(
        [shutil.which("valgrind") or "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
         os.path.realpath(sys.executable), script, "--one", *options, "--transactions", str(transactions)],
        cwd=tree, env={**os.environ, "PYTHONPATH": tree}, check=True, capture_output=True, text=True,
    )
    totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
    if totals is None:
        raise RuntimeError(f"callgrind wrote no totals in {out}")
    return int(totals.group(1))


def run_trees_counted(script: str, options: list[str], trees: list[str], small: int, large: int) -> None:
    """Each tree's instructions per transaction: the runs of `large` and of `small` transactions
    under callgrind, the difference over `large - small` (the process's start, imports and the
    bench's own setup cancel). The count moves by about 1 % from run to run (the loop's wakeups
    and the threads' interleaving differ) where timings on this machine move by 5-10 %; it counts
    work, not waits (an fsync's time, a wakeup's)."""
    with tempfile.TemporaryDirectory() as tmp:
        for tree in trees:
            counts = [_instructions(script, options, tree, n, Path(tmp) / f"cg.{n}") for n in (small, large)]
            per = (counts[1] - counts[0]) / (large - small)
            print(f"{tree}: {per:,.0f} instructions per transaction ({small} and {large} transactions under callgrind)")
