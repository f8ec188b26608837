"""engine/: SIGKILL mid-workload, reopen: the data and the meta agree (the meta names exactly the
transactions that are in), and the workload resumes after it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine import Engine

ROOT = Path(__file__).resolve().parents[2]


def run_and_kill(datadir: Path, delay: float) -> int:
    """Run the worker for `delay` seconds after its first group, SIGKILL it; returns the last group
    it reported committed."""
    proc = subprocess.Popen([sys.executable, "-m", "tests.support.engine_crash_worker", str(datadir)],
                            cwd=ROOT, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    buffer = b""
    started = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            chunk = b""
        if chunk:
            buffer += chunk
            started = started or time.monotonic()
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.001)
        if started is not None and time.monotonic() - started >= delay:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    os.set_blocking(fd, True)
    buffer += proc.stdout.read()
    lines = [line for line in buffer.split(b"\n") if line.strip()]
    # a line cut by the kill is not an acknowledgement
    complete = lines if buffer.endswith(b"\n") else lines[:-1]
    assert started is not None and complete, "the worker never committed a group"
    return int(complete[-1])


async def check(datadir: Path, acknowledged: int) -> int:
    engine = await Engine.open(datadir)
    try:
        meta = int(engine.meta()["txn"])
        s = engine.session(1)
        s.database = "crash"
        count, top = (await s.execute("SELECT COUNT(*), COALESCE(MAX(id), 0) FROM t")).rows[0]
        total, cnt = (await s.execute("SELECT total, cnt FROM c")).rows[0]
        assert (count, top, cnt) == (meta, meta, meta)
        assert total == meta * (meta + 1) // 2
        assert meta >= acknowledged  # nothing reported committed was lost
        assert meta % 3 == 0  # whole groups only
        return meta
    finally:
        await engine.close()


async def test_sigkill_mid_workload_data_and_meta_agree(tmp_path):
    datadir = tmp_path / "data"
    rng = random.Random(7)
    previous = 0
    for _ in range(3):
        acknowledged = run_and_kill(datadir, rng.uniform(0.2, 0.8))
        meta = await check(datadir, acknowledged)
        assert meta >= previous
        previous = meta
    assert previous > 0
