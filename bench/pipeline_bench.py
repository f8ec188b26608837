"""Benchmark: the `binlog` Spark source on local[2] against `semisync binlog --json` in one process.

    python bench/pipeline_bench.py [--mb 200] [--dir DIR] [--record bench/RESULTS.md]

Writes >= MB megabytes of binlogs with BinlogWriter (a ROW-format OLTP history: GTID, BEGIN,
TABLE_MAP + rows event per statement, XID; CRC32 on; 16 MiB files), then in the same run times:
1. the Spark source on `--master` (default local[2]): every row of every event through Spark into
   the `noop` sink (all columns decoded and handed to the JVM), with CRC32 verification (the
   default) and without, `--runs` times each, taking turns (the median is reported); after `--warmups` reads of
   all files, so JVM and Python worker start-up and the JIT's warm-up are not counted (C2
   compiles Spark's own planning and scheduling code through the first seven reads or so: its
   threads took 0.1-0.3 µs of CPU per event in those, about 0.03 after);
2. the source's decoder alone in this one Python process (what one Spark task does);
3. `semisync binlog --json FILES > /dev/null` in one process (the same fast decoder; lines built
   with Arrow; bench/binlog_cli_bench.py sets it against mariadb-binlog).
Prints events/s and MB/s for each and, with --record, replaces the "## pipeline" section of
the results file.
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

from pipeline.decode import NATIVE, decode_range  # noqa: E402
from pipeline.workload import write_history  # noqa: E402

TRANSACTIONS_PER_MB = 2600  # of the ROW history below: about 7 events, 400 bytes per transaction


def generate(directory: Path, mb: int) -> list[Path]:
    files = sorted(directory.glob("master-bin.0*"))
    if sum(f.stat().st_size for f in files) >= mb << 20:
        return files
    write_history(directory, transactions=mb * TRANSACTIONS_PER_MB, max_size=16 << 20, rate=5000)
    files = sorted(directory.glob("master-bin.0*"))
    assert sum(f.stat().st_size for f in files) >= mb << 20, "history smaller than asked: raise TRANSACTIONS_PER_MB"
    return files


_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if int(_stat(int(entry))[1]) == pid:
                    found.append(int(entry))
            except (OSError, IndexError):
                pass
    return found


class SparkCpu:
    """CPU seconds used so far by the driver JVM's own threads (in local mode the tasks run
    there) and by the Python processes under it (the workers, reaped ones included)."""

    def __init__(self) -> None:
        self.jvm = next(p for p in _children(os.getpid()) if b"java" in Path(f"/proc/{p}/cmdline").read_bytes())

    def read(self) -> tuple[float, float]:
        fields = _stat(self.jvm)
        jvm = (int(fields[11]) + int(fields[12])) / _TICK
        python = (int(fields[13]) + int(fields[14])) / _TICK
        todo = _children(self.jvm)
        while todo:
            pid = todo.pop()
            try:
                python += sum(int(x) for x in _stat(pid)[11:15]) / _TICK
            except OSError:
                continue
            todo += _children(pid)
        return jvm, python


Run = tuple[float, float, float]  # seconds, JVM CPU seconds, Python CPU seconds


def time_spark(master: str, files: list[Path], runs: int, warmups: int) -> dict[str, list[Run]]:
    from pipeline.jobs import read_events, spark_session

    spark = spark_session(master, app="pipeline-bench")
    paths = [str(f) for f in files]
    cpu = SparkCpu()
    try:
        # warm-up: whole reads, so that JVM and Python worker start-up and the JIT's
        # compilations are not counted
        for _ in range(warmups):
            read_events(spark, paths).write.format("noop").mode("overwrite").save()
        settings = ((f"`binlog` source on {master}", "true"), (f"`binlog` source on {master}, no CRC32 check", "false"))
        results: dict[str, list[Run]] = {label: [] for label, _ in settings}
        for _ in range(runs):  # the settings take turns, so that a change in the machine's speed hits both
            for label, verify in settings:
                jvm0, py0 = cpu.read()
                t0 = time.perf_counter()
                read_events(spark, paths, verifyChecksums=verify).write.format("noop").mode("overwrite").save()
                seconds = time.perf_counter() - t0
                jvm1, py1 = cpu.read()
                results[label].append((seconds, jvm1 - jvm0, py1 - py0))
        return results
    finally:
        spark.stop()


def time_decoder(files: list[Path]) -> tuple[int, float]:
    t0 = time.perf_counter()
    events = 0
    for f in files:
        for batch in decode_range(str(f), str(f), 4, None, False):
            events += batch.num_rows
    return events, time.perf_counter() - t0


def time_semisync_binlog(files: list[Path]) -> tuple[int, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "binlog", "--json", *map(str, files)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    events = 0
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None  # both PIPE
    for chunk in iter(lambda: stdout.read(1 << 20), b""):
        events += chunk.count(b"\n")
    proc.wait()
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"semisync binlog failed: {stderr.read().decode()[-2000:]}")
    return events, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "semisync-pipeline-bench")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--runs", type=int, default=5, help="timed Spark reads per setting (the median is reported)")
    parser.add_argument("--warmups", type=int, default=8, help="untimed Spark reads first (C2 compiles Spark's code meanwhile)")
    parser.add_argument("--record", type=Path, help="results file whose '## pipeline' section to replace")
    args = parser.parse_args()

    args.dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    files = generate(args.dir, args.mb)
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} files, {size / 2**20:.0f} MiB of binlogs in {args.dir} ({time.perf_counter() - t0:.0f} s)",
          flush=True)
    load = os.getloadavg()
    spark = time_spark(args.master, files, args.runs, args.warmups)
    events, decoder = time_decoder(files)
    json_events, baseline = time_semisync_binlog(files)
    assert json_events == events, (json_events, events)
    load_end = os.getloadavg()
    results = {**{label: statistics.median(run[0] for run in runs) for label, runs in spark.items()},
               "the source's decoder alone, 1 process": decoder, "`semisync binlog --json`, 1 process": baseline}
    best = {label: min(run[0] for run in runs) for label, runs in spark.items()}
    lines = [
        f"{size / 2**20:.0f} MiB, {events} events, {len(files)} files (ROW history, CRC32); "
        f"fast path: {'the C scanner' if NATIVE else 'numpy (the C scanner is not built)'}; "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, Spark master {args.master}; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average at the start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, at the end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}",
        "",
        "| reader | seconds | events/s | MB/s | vs semisync binlog --json | best run, events/s |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, seconds in results.items():
        fastest = f"{events / best[label]:,.0f}" if label in best else ""
        lines.append(f"| {label} | {seconds:.1f} | {events / seconds:,.0f} | {size / 2**20 / seconds:.1f} | "
                     f"{baseline / seconds:.1f}x | {fastest} |")
    lines += ["", "Each Spark read (the table gives the median): seconds, events/s, and CPU per event of the "
              "driver JVM (the tasks run there) and of the Python workers:"]
    for label, runs in spark.items():
        lines.append(f"- {label}:")
        lines += [f"  - {s:.2f} s, {events / s / 1e6:.2f} M/s, JVM {jvm / events * 1e6:.2f} µs, "
                  f"Python {py / events * 1e6:.2f} µs" for s, jvm, py in runs]
    report = "\n".join(lines)
    print(report)
    if args.record:
        record(args.record, report)


def record(path: Path, report: str) -> None:
    """Replace (or append) the '## pipeline' section of the results file, keeping its notes."""
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    section = re.search(r"^## pipeline\n.*?(?=^## |\Z)", text, flags=re.S | re.M)
    begin, end = "<!-- pipeline_bench: begin -->", "<!-- pipeline_bench: end -->"
    block = f"{begin}\n{report}\n{end}"
    if section is None:
        text = text.rstrip("\n") + f"\n\n## pipeline\n\n`python bench/pipeline_bench.py --record {path}`\n\n{block}\n"
    elif begin in section.group(0):
        body = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, section.group(0), flags=re.S)
        text = text[: section.start()] + body + text[section.end():]
    else:
        text = text[: section.end()].rstrip("\n") + f"\n\n{block}\n" + text[section.end():]
    path.write_text(text)


if __name__ == "__main__":
    main()
