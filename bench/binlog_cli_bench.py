"""Benchmark: `semisync binlog` (text and --json) against `mariadb-binlog` on the same files.

    python bench/binlog_cli_bench.py [--mb 200] [--dir DIR] [--rounds 3] [--record bench/RESULTS.md]

Writes >= MB megabytes of binlogs as bench/pipeline_bench.py does (ROW-format OLTP history, CRC32,
16 MiB files; reused when DIR already holds them), then runs, in turns within each round so that
the machine's load hits every reader alike: `semisync binlog --json FILES`, `semisync binlog
FILES` and `mariadb-binlog FILES`, each to /dev/null (not `mariadb-binlog -v`: it stops
with exit status 1 at the first rows event of pipeline.workload's ROW history). Reports the
median wall time of each, events/s, and the load average before and after; with --record
replaces the "## binlog CLI" section of the results file.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pipeline_bench import generate  # noqa: E402

from binlog.reader import iter_events  # noqa: E402

SEMISYNC = [sys.executable, "-m", "cli.main", "binlog"]
READERS = {
    "`semisync binlog --json`": [*SEMISYNC, "--json"],
    "`semisync binlog`": SEMISYNC,
    "`mariadb-binlog`": ["mariadb-binlog", "--no-defaults"],
}


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        subprocess.run(argv, stdout=sink, check=True, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=200)
    ap.add_argument("--dir", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--record", type=Path)
    args = ap.parse_args()
    directory = args.dir or Path(tempfile.mkdtemp(prefix="binlog-cli-bench-"))
    directory.mkdir(parents=True, exist_ok=True)
    files = generate(directory, args.mb)
    paths = [str(f) for f in files]
    size = sum(f.stat().st_size for f in files)
    events = sum(1 for f in files for _ in iter_events(f))
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in READERS}
    for _ in range(args.rounds):
        for name, argv in READERS.items():
            times[name].append(timed([*argv, *paths]))
    load_after = os.getloadavg()
    base = statistics.median(times["`mariadb-binlog`"])
    lines = [
        f"{size / 2**20:.0f} MiB, {len(files)} files, {events:,} events; median of {args.rounds} rounds, "
        f"the readers taking turns in each; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after "
        "(a shared machine)",
        "",
        "| reader | seconds (median) | every run | events/s | vs `mariadb-binlog` |",
        "|---|---:|---|---:|---:|",
    ]
    for name, runs in times.items():
        med = statistics.median(runs)
        lines.append(f"| {name} | {med:.1f} | {', '.join(f'{t:.1f}' for t in runs)} | {events / med:,.0f} | "
                     f"{base / med:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if args.record:
        command = f"python bench/binlog_cli_bench.py --mb {args.mb} --rounds {args.rounds} --record {args.record}"
        section = f"## binlog CLI\n\n`{command}`\n\n<!-- binlog_cli_bench: begin -->\n{text}\n<!-- binlog_cli_bench: end -->\n"
        old = args.record.read_text() if args.record.exists() else ""
        if "## binlog CLI" in old:
            new = re.sub(r"## binlog CLI\n.*?<!-- binlog_cli_bench: end -->\n", section, old, flags=re.S)
        else:
            new = old.rstrip("\n") + "\n\n" + section
        args.record.write_text(new)


if __name__ == "__main__":
    main()
