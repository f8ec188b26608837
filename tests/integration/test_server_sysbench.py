"""sysbench (text protocol) against the server shell with NullRole and the real engine:
prepare / run / cleanup of oltp_insert, oltp_write_only and oltp_read_write with no error.
Throughput is printed for information only (speed is measured in bench/, not asserted here)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.server_shell import ROOT_PASSWORD, ShellServer

SYSBENCH = shutil.which("sysbench")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(SYSBENCH is None, reason="needs sysbench")]


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("sysbench")) as s:
        s.connect().cursor().execute("CREATE DATABASE sbtest")
        yield s


def sysbench(shell, workload, command, seconds=5):
    args = [
        SYSBENCH, workload, "--db-driver=mysql", "--mysql-host=127.0.0.1",
        f"--mysql-port={shell.port}", "--mysql-user=root", f"--mysql-password={ROOT_PASSWORD}",
        "--mysql-db=sbtest", "--tables=1", "--table-size=1000", "--threads=4",
        f"--time={seconds}", "--db-ps-mode=disable", command,
    ]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "FATAL" not in out.stdout + out.stderr
    return out.stdout


@pytest.mark.parametrize("workload", ["oltp_insert", "oltp_write_only", "oltp_read_write"])
def test_sysbench_workload(shell, workload):
    sysbench(shell, workload, "prepare")
    cur = shell.connect(database="sbtest", autocommit=True).cursor()
    cur.execute("SELECT COUNT(*) FROM sbtest1")
    assert cur.fetchone()[0] == 1000
    report = sysbench(shell, workload, "run")
    transactions = int(re.search(r"transactions:\s+(\d+)", report).group(1))
    errors = int(re.search(r"ignored errors:\s+(\d+)", report).group(1))
    assert transactions > 0 and errors == 0, report
    tps = re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", report).group(1)
    print(f"{workload}: {tps} tps")
    if workload == "oltp_insert":
        cur.execute("SELECT COUNT(*) FROM sbtest1")
        assert cur.fetchone()[0] == 1000 + transactions
    sysbench(shell, workload, "cleanup")
    cur.execute("SHOW TABLES")
    assert cur.fetchall() == ()
