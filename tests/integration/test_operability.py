"""Operability (issue #6): `semisync up`, metrics scraped by a real Prometheus and compared with
prometheus-mysqld-exporter, `semisync status`, clean stop on SIGINT, resume, compose commands.

One `semisync up --slaves 2` cluster serves the module (start-up dominates the cost); the last
test stops it with SIGINT and starts it again on the same datadir.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pymysql
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.daemons import ROOT, wait_for
from tests.support.net import free_port, free_port_block, port_is_free

pytestmark = pytest.mark.slow


def http_get(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def scrape(port: int) -> dict[str, float]:
    text = http_get(f"http://127.0.0.1:{port}/metrics")
    return {
        s.name + (json.dumps(s.labels, sort_keys=True) if s.labels else ""): s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
    }


def connect(port: int, user: str = "root", password: str = "", db: str | None = None):
    return pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, database=db,
                           autocommit=True, connect_timeout=5)


def query(port: int, sql: str, db: str | None = None) -> list[tuple]:
    conn = connect(port, db=db)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


class Up:
    def __init__(self, datadir: Path, port: int, metrics_port: int) -> None:
        self.datadir, self.port, self.metrics_port = datadir, port, metrics_port
        self.output = datadir.parent / "up.out"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.output, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "up", "--slaves", "2", "--datadir", str(self.datadir),
                 "--port", str(self.port), "--metrics-port", str(self.metrics_port), "--refresh", "1"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=ROOT,
            )
        wait_for(lambda: self._clients() == 2, timeout=60, message="2 semi-sync clients on the master\n" + self.log())

    def _clients(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"semisync up exited early:\n{self.log()}")
        rows = dict(query(self.port, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'"))
        return int(rows.get("Rpl_semi_sync_master_clients", 0))

    def log(self) -> str:
        out = self.output.read_text(errors="replace")[-3000:] if self.output.exists() else ""
        for name in ("master", "slave1", "slave2"):
            p = self.datadir / f"{name}.log"
            if p.exists():
                out += f"\n--- {name}.log\n" + "\n".join(p.read_text(errors="replace").splitlines()[-15:])
        return out

    def stop(self) -> float:
        assert self.proc is not None
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        return time.monotonic() - t0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("up")
    port = free_port_block(3)
    metrics = free_port_block(3)
    up = Up(base / "data", port, metrics)
    up.start()
    yield up
    if up.proc is not None and up.proc.poll() is None:
        up.proc.kill()
        up.proc.wait()
    for child in ("master", "slave1", "slave2"):  # in case a child survived a failed test
        subprocess.run(["pkill", "-f", str(base / "data" / child)], check=False)


def test_up_replicates_inserts_to_both_slaves(cluster):
    master = cluster.port
    query(master, "CREATE DATABASE IF NOT EXISTS up_test")
    query(master, "CREATE TABLE IF NOT EXISTS up_test.t (id INT PRIMARY KEY, v VARCHAR(20))")
    for i in range(1, 21):
        query(master, f"INSERT INTO up_test.t VALUES ({i}, 'row{i}')")
    want = query(master, "SELECT id, v FROM up_test.t ORDER BY id")
    assert len(want) == 20
    for slave in (master + 1, master + 2):
        wait_for(lambda s=slave: query(s, "SELECT id, v FROM up_test.t ORDER BY id") == want, timeout=30,
                 message=f"slave on {slave} to have the rows")
    query(master, "FLUSH BINARY LOGS")
    status = dict(query(master, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'"))
    assert status["Rpl_semi_sync_master_status"] == "ON"
    assert int(status["Rpl_semi_sync_master_yes_tx"]) >= 20


def test_metrics_endpoints(cluster):
    m = scrape(cluster.metrics_port)
    assert m["mysql_global_status_rpl_semi_sync_master_clients"] == 2
    assert m["mysql_global_variables_rpl_semi_sync_master_enabled"] == 1
    # our own series: commit waits, and per slave (by server_id) ack latency and acked position
    assert m["semisync_commit_wait_seconds_count"] >= 20
    for server_id in ("2", "3"):
        assert m[f'semisync_slave_ack_latency_seconds_count{{"server_id": "{server_id}"}}'] >= 1
        assert m[f'semisync_slave_acked_pos{{"server_id": "{server_id}"}}'] > 4
    for port in (cluster.metrics_port + 1, cluster.metrics_port + 2):
        s = scrape(port)
        assert s["mysql_global_status_rpl_semi_sync_slave_status"] == 1
        assert s["mysql_slave_status_slave_io_running"] == 1


@pytest.mark.skipif(not shutil.which("prometheus"), reason="Debian prometheus not installed (make test installs it)")
def test_real_prometheus_scrapes_all_three_targets(cluster, tmp_path):
    web = free_port()
    targets = [f"127.0.0.1:{cluster.metrics_port + i}" for i in range(3)]
    cfg = tmp_path / "prometheus.yml"
    cfg.write_text(
        "global: {scrape_interval: 1s}\n"
        "scrape_configs:\n  - job_name: semisync\n    static_configs:\n"
        f"      - targets: {json.dumps(targets)}\n"
    )
    proc = subprocess.Popen(
        ["prometheus", f"--config.file={cfg}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{web}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        def all_up():
            data = json.loads(http_get(f"http://127.0.0.1:{web}/api/v1/targets"))
            active = data["data"]["activeTargets"]
            return len(active) == 3 and all(t["health"] == "up" for t in active)

        wait_for(all_up, timeout=60, interval=0.5, message="prometheus to scrape 3 targets as up")
        result = json.loads(http_get(
            f"http://127.0.0.1:{web}/api/v1/query?query=mysql_global_status_rpl_semi_sync_master_clients"))
        # every server has the semi-sync master plugin (one server, both roles): the slaves report 0
        clients = {r["metric"]["instance"]: float(r["value"][1]) for r in result["data"]["result"]}
        assert clients == {targets[0]: 2.0, targets[1]: 0.0, targets[2]: 0.0}
    finally:
        proc.terminate()
        proc.wait(20)


@pytest.mark.skipif(not shutil.which("prometheus-mysqld-exporter"), reason="exporter not installed (make test installs it)")
def test_mysqld_exporter_agrees_with_our_endpoint(cluster):
    web = free_port()
    env = {**os.environ, "DATA_SOURCE_NAME": f"root:@(127.0.0.1:{cluster.port})/"}
    proc = subprocess.Popen(
        ["prometheus-mysqld-exporter", f"--web.listen-address=127.0.0.1:{web}", "--collect.slave_hosts"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    try:
        theirs = wait_for(lambda: scrape(web), timeout=30, message="mysqld_exporter to answer")
        assert theirs["mysql_up"] == 1
        # SHOW SLAVE HOSTS in MariaDB's 4 columns (the collector scans 4 or 5: 6 were a scrape error)
        errors = {name: value for name, value in theirs.items()
                  if name.startswith("mysql_exporter_scrape_errors_total") and value}
        assert errors == {}
        # (this exporter names the series mysql_heartbeat_mysql_slave_hosts_info)
        hosts = sorted(json.loads(name[name.index("{"):])["server_id"]
                       for name in theirs if "mysql_slave_hosts_info{" in name)
        assert hosts == ["2", "3"]
        ours = scrape(cluster.metrics_port)
        names = [n for n in ours if n.startswith("mysql_global_status_rpl_semi_sync_master_")]
        # Counters that only move with traffic are stable here (no writes while we compare).
        stable = [n for n in names if not n.endswith(("wait_time", "waits"))]
        assert stable, "our endpoint exports no semi-sync master status"
        for name in stable:
            assert theirs.get(name) == ours[name], name
    finally:
        proc.terminate()
        proc.wait(20)


def run_status(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "status", *args], capture_output=True, text=True,
                          timeout=30, cwd=ROOT)


def test_status_command_on_master_slave_and_closed_port(cluster):
    master = run_status("--port", str(cluster.port))
    assert master.returncode == 0, master.stderr
    assert "master" in master.stdout and "clients 2" in master.stdout and "status ON" in master.stdout
    # each slave's acked position, from information_schema.RPL_SEMI_SYNC_SLAVES
    for server_id in (2, 3):
        assert re.search(rf"^\s+{server_id}\s+127\.0\.0\.1\s+\d+\s+mysql-bin\.\d{{6}}:\d+ ", master.stdout, re.M), \
            master.stdout
    slave = run_status("--port", str(cluster.port + 1))
    assert slave.returncode == 0, slave.stderr
    assert "slave" in slave.stdout and "IO running Yes" in slave.stdout and "semi-sync status ON" in slave.stdout
    closed = run_status("--port", str(free_port()))
    assert closed.returncode != 0
    assert len(closed.stderr.strip().splitlines()) == 1 and "cannot connect" in closed.stderr
    assert "Traceback" not in closed.stderr


def test_sigint_stops_everything_and_a_second_run_resumes(cluster):
    elapsed = cluster.stop()
    assert elapsed < 20, f"SIGINT took {elapsed:.1f}s"
    assert cluster.proc.returncode == 0, cluster.log()
    ports = [cluster.port + i for i in range(3)] + [cluster.metrics_port + i for i in range(3)]
    held = subprocess.run(["ss", "-Htlnp"], capture_output=True, text=True).stdout
    wait_for(lambda: all(port_is_free(p) for p in ports), timeout=5, message=f"every port to be free:\n{held}")
    assert not [line for line in held.splitlines() if any(f":{p} " in line for p in ports)], held
    # the lines a DBA looks for, one per event, in each daemon's log
    master_log = (cluster.datadir / "master.log").read_text(errors="replace")
    for needle in ("Start semi-sync binlog_dump to slave (server_id: 2)",
                   "Start semi-sync binlog_dump to slave (server_id: 3)",
                   "binlog rotated to mysql-bin.", "Stop semi-sync binlog_dump to slave"):
        assert needle in master_log, needle
    for slave in ("slave1", "slave2"):
        slave_log = (cluster.datadir / f"{slave}.log").read_text(errors="replace")
        assert "slave IO: replicating from 127.0.0.1:" in slave_log and "(semi-sync on)" in slave_log
    cluster.start()
    assert len(query(cluster.port, "SELECT id FROM up_test.t")) == 20
    for slave in (cluster.port + 1, cluster.port + 2):
        wait_for(lambda s=slave: len(query(s, "SELECT id FROM up_test.t")) == 20, timeout=30)
