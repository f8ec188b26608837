"""`make demo` from the README's Quick start: installs, starts a master with two semi-sync
slaves, and stops cleanly on Ctrl-C (SIGINT to the foreground process group, as a terminal
sends it). Ports and datadir come through DEMO_ARGS so the test never collides with anything."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pymysql
import pytest

from tests.support.daemons import ROOT, wait_for
from tests.support.net import free_port_block, port_is_free

pytestmark = pytest.mark.slow


def test_make_demo_runs_a_semisync_cluster_until_ctrl_c(tmp_path):
    port, metrics = free_port_block(3), free_port_block(3)
    out = open(tmp_path / "demo.out", "wb")
    proc = subprocess.Popen(
        ["make", "-s", "demo", f"DEMO_ARGS=--port {port} --metrics-port {metrics} --datadir {tmp_path / 'data'} --refresh 1"],
        cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
    )
    log = lambda: (tmp_path / "demo.out").read_text(errors="replace")[-3000:]  # noqa: E731
    try:
        def clients() -> int:
            assert proc.poll() is None, log()
            conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", connect_timeout=2)
            try:
                with conn.cursor() as cur:
                    cur.execute("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'")
                    return int(cur.fetchone()[1])
            finally:
                conn.close()

        wait_for(lambda: clients() == 2, timeout=180, interval=0.5, message="make demo's master to have 2 semi-sync clients")
        wait_for(lambda: "semi-sync enabled" in log(), timeout=30, message="the demo's connection help")
        text = log()
        assert f"mariadb -h127.0.0.1 -P{port} -uroot" in text and f"http://127.0.0.1:{metrics}/metrics" in text
        t0 = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        proc.wait(30)
        assert time.monotonic() - t0 < 20
        ports = [port + i for i in range(3)] + [metrics + i for i in range(3)]
        wait_for(lambda: all(port_is_free(p) for p in ports), timeout=5, message="every port to be free")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
