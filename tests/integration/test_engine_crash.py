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
    stdout = proc.stdout
    assert stdout is not None  # a PIPE
    fd = stdout.fileno()
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
    buffer += stdout.read()
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
        # the killed process's WAL-index was in its memory (`engine.connections`): the reopen
        # rebuilds it from the WALs
        assert (datadir / "crash.sqlite-wal").exists() and not list(datadir.glob("*-shm"))
        meta = await check(datadir, acknowledged)
        assert meta >= previous
        previous = meta
    assert previous > 0


async def test_a_group_torn_between_two_schema_files_is_repaired_at_open(tmp_path):
    """SQLite commits attached WAL files one after the other: simulate a crash between them by
    restoring one file to its state before the group's commit, then reopen."""
    datadir = tmp_path / "data"
    engine = await Engine.open(datadir)
    s = engine.session(1)
    for name in ("a", "b"):
        await s.execute(f"CREATE DATABASE {name}")
        await s.execute(f"CREATE TABLE {name}.t (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME, v INT)")
    await s.execute("INSERT INTO a.t (at, v) VALUES (NOW(), 1)")
    await s.execute("INSERT INTO b.t (at, v) VALUES (NOW(), 1)")
    async with engine.writer_lock:
        await engine.commit_group({"g": "1"})
    # group 2 writes both files
    s.database = "a"
    await s.execute("BEGIN")
    await s.execute("INSERT INTO t (at, v) VALUES (NOW(), 2), (NOW(), 3)")
    await s.execute("UPDATE b.t SET v = v + 10")
    await s.execute("INSERT INTO b.t (at, v) VALUES (CURRENT_TIMESTAMP, RAND() * 100)")
    await s.execute("COMMIT")
    before = {p.name: p.read_bytes() for p in datadir.glob("b.sqlite*") if not p.name.endswith("-shm")}
    async with engine.writer_lock:
        await engine.commit_group({"g": "2"})
    digests = {name: await engine.table_digest(name, "t") for name in ("a", "b")}
    await engine.close()
    for p in datadir.glob("b.sqlite*"):
        p.unlink()
    for name, data in before.items():
        (datadir / name).write_bytes(data)

    engine = await Engine.open(datadir)
    try:
        assert engine.repaired == ["b"]
        assert engine.meta() == {"g": "2"}
        assert engine.schema_metas()["b"] == {"g": "2"}
        assert {name: await engine.table_digest(name, "t") for name in ("a", "b")} == digests
    finally:
        await engine.close()


async def test_without_a_torn_group_nothing_is_repaired(tmp_path):
    engine = await Engine.open(tmp_path / "d")
    s = engine.session(1)
    await s.execute("CREATE DATABASE a")
    await s.execute("CREATE DATABASE b")
    await s.execute("CREATE TABLE a.t (x INT)")
    await s.execute("CREATE TABLE b.t (x INT)")
    await s.execute("INSERT INTO a.t VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({"g": "1"})
    await engine.close()
    engine = await Engine.open(tmp_path / "d")
    try:
        assert engine.repaired == [] and engine.meta() == {"g": "1"}
        assert (await engine.session(2).execute("SELECT COUNT(*) FROM a.t")).rows == [(1,)]
    finally:
        await engine.close()
