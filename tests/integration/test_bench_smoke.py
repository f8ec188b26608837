"""bench/sysbench_semisync.py keeps running: a tiny invocation (1 thread, 2 s per run, a 1000-row
table, one round, nothing recorded) against ours and MariaDB with durable acks, every workload.

It checks what the benchmark itself must check (sysbench without errors, every run semi-synchronous,
the slaves with the master's rows, a CPU figure for every process) and that the tables come out;
it asserts no speed: the numbers of a CI machine mean nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.support.daemons import ROOT
from tests.support.mariadb import mariadb_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.mariadb,
    pytest.mark.skipif(shutil.which("sysbench") is None, reason="needs sysbench"),
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]

WORKLOADS = ["oltp_insert", "oltp_write_only", "oltp_read_write", "slave_point_select"]
SYSTEMS = ["ours", "MariaDB 10.11, durable acks"]


@pytest.mark.timeout(600)
def test_sysbench_semisync_tiny_run(tmp_path):
    results = tmp_path / "RESULTS.md"
    results.write_text("# untouched\n")
    out = subprocess.run(
        [sys.executable, "bench/sysbench_semisync.py", "--quick", "--rounds", "1", "--time", "2", "--threads", "1",
         "--table-size", "1000", "--systems", "ours,mariadb-durable", "--no-record",
         "--results", str(results), "--json", str(tmp_path / "runs.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=540,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    report = json.loads((tmp_path / "runs.json").read_text())
    assert report["failures"] == []
    runs = report["runs"]
    assert sorted((r["system"], r["workload"]) for r in runs) == sorted((s, w) for s in SYSTEMS for w in WORKLOADS)
    for r in runs:
        where = f"{r['system']} {r['workload']}: {r}"
        assert r["verdict"] == "semi-sync", where
        assert r["errors"] == 0 and r["transactions"] > 0 and r["no_tx"] == 0 and r["yes_tx"] > 0, where
        assert len(r["cpu_us"]) == 3 and all(c is not None and c >= 0 for c in r["cpu_us"]), where
        assert len(r["switches"]) == 3 and all(c is not None and c > 0 for c in r["switches"]), where
        if r["workload"] == "slave_point_select":
            assert r["master_tps"] is not None and r["master_tps"] > 0, where
    checks = report["row_checks"]
    assert len(checks) == len(SYSTEMS) * len(WORKLOADS) and all(c["equal"] for c in checks), checks
    assert report["settings"]["ours"].count("sync_relay_log=1") == 2, report["settings"]  # both slaves
    durable = report["settings"]["MariaDB 10.11, durable acks"]
    for setting in ("sync_relay_log=1", "sync_master_info=1", "sync_relay_log_info=1"):
        assert durable.count(setting) == 2, durable  # on both replicas
    for workload in WORKLOADS[:3]:
        assert f"`{workload}`: tps (p95 ms), median of 1 round:" in out.stdout
    assert "`oltp_point_select` on a slave while the master takes `oltp_insert`" in out.stdout
    for system in SYSTEMS:
        assert f"| {system} | " in out.stdout
    assert results.read_text() == "# untouched\n"  # --no-record


@pytest.mark.timeout(300)
def test_commit_timeline_tiny_run(tmp_path):
    """bench/commit_timeline.py keeps running: the marks of all three processes are written and
    every step of the commit path is matched for the groups of a 2-second run (no speed asserted)."""
    marks = tmp_path / "marks"
    out = subprocess.run(
        [sys.executable, "bench/commit_timeline.py", "--time", "2", "--table-size", "1000", "--keep-logs", str(marks)],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert len(list(marks.glob("master-*.log"))) == 1 and len(list(marks.glob("slave-*.log"))) == 2
    rows = {line.split(" | ")[0].lstrip("| "): int(line.split(" | ")[1].replace(",", ""))
            for line in out.stdout.splitlines() if line.startswith("| ") and not line.startswith("| step")
            and not line.startswith("| ---")}
    for step in ("master: binlog write + fdatasync", "master: publish to the wait's end (ack wait)",
                 "master: engine commit to the sessions' wakeup", "cycle: group to next group",
                 "slave 1: applier batch (apply + binlog + commit)"):
        assert rows.get(step, 0) > 0, (step, out.stdout)
    for i in (1, 2):  # the ack from the loop after the fsync, from the compiled syncer's thread,
        # or the whole read by the receiver thread
        fsync = rows.get(f"slave {i}: relay fsync (with its thread hops)", 0)
        fsync_ack = rows.get(f"slave {i}: relay fsync + ack by the syncer's thread, answer read", 0)
        received = rows.get(f"slave {i}: the receiver thread's batch (read, relay write, fsync, ack), counted on its loop", 0)
        assert fsync + fsync_ack + received > 0, (i, out.stdout)
    assert ", semi-sync" in out.stdout


@pytest.mark.timeout(300)
def test_cluster_threads_tiny_run():
    """bench/cluster_threads.py keeps running: every process's threads listed with their CPU per
    transaction, the main (loop) thread of each marked and busy (no speed asserted)."""
    out = subprocess.run(
        [sys.executable, "bench/cluster_threads.py", "--threads", "2", "--time", "2", "--table-size", "1000"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    mains = [line.split() for line in out.stdout.splitlines() if "* " in line]
    assert [m[0] for m in mains] == ["master", "slave", "slave"], out.stdout
    assert all(float(m[m.index("user") + 1]) > 0 for m in mains), out.stdout
    totals = [line for line in out.stdout.splitlines() if "all threads" in line]
    assert len(totals) == 3, out.stdout
