"""sysbench against the server shell (server/) with NullRole and the real engine: what the
MySQL-protocol layer plus the engine sustain without a binlog.

    python bench/server_sysbench.py [--seconds 10] [--threads 1,4,16] [--workloads oltp_insert,...]

For each workload and thread count: prepare (1 table of --table-size rows), run, cleanup, and
print transactions/s, queries/s and errors. Not a test: numbers depend on the machine and on
what else runs on it (the server runs in this process, on its own uvloop thread).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.server_shell import ROOT_PASSWORD, ShellServer  # noqa: E402


def _field(pattern: str, report: str) -> str:
    """The first group of `pattern` in sysbench's report."""
    match = re.search(pattern, report)
    if match is None:
        raise RuntimeError(f"sysbench's report has no {pattern!r}:\n{report}")
    return match.group(1)


def sysbench(port: int, workload: str, command: str, threads: int, seconds: int, size: int) -> str:
    args = [
        shutil.which("sysbench") or "sysbench", workload, "--db-driver=mysql", "--mysql-host=127.0.0.1",
        f"--mysql-port={port}", "--mysql-user=root", f"--mysql-password={ROOT_PASSWORD}",
        "--mysql-db=sbtest", "--tables=1", f"--table-size={size}", f"--threads={threads}",
        f"--time={seconds}", "--db-ps-mode=disable", command,
    ]
    out = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 300)
    if out.returncode != 0:
        raise SystemExit(f"sysbench {workload} {command} failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", default="1,4,16")
    parser.add_argument("--table-size", type=int, default=10000)
    parser.add_argument("--workloads", default="oltp_point_select,oltp_insert,oltp_write_only,oltp_read_write")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, ShellServer(Path(tmp)) as shell:
        shell.connect().cursor().execute("CREATE DATABASE sbtest")
        print(f"{'workload':<20} {'threads':>7} {'tps':>10} {'qps':>10} {'errors':>7}")
        for workload in args.workloads.split(","):
            for threads in (int(t) for t in args.threads.split(",")):
                sysbench(shell.port, workload, "prepare", threads, args.seconds, args.table_size)
                report = sysbench(shell.port, workload, "run", threads, args.seconds, args.table_size)
                tps = _field(r"transactions:\s+\d+\s+\(([\d.]+) per sec", report)
                qps = _field(r"queries:\s+\d+\s+\(([\d.]+) per sec", report)
                errors = _field(r"ignored errors:\s+(\d+)", report)
                print(f"{workload:<20} {threads:>7} {tps:>10} {qps:>10} {errors:>7}", flush=True)
                sysbench(shell.port, workload, "cleanup", threads, args.seconds, args.table_size)


if __name__ == "__main__":
    main()
