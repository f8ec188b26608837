"""engine/_walframes.c: the engine files' VFS, "unix-excl-frames", writes each WAL frame (its
24-byte header and its page) in one system call, and leaves on disk exactly the bytes unix-excl
leaves, after every step and after a SIGKILL; without the extension the engine uses unix-excl."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Engine, connections
from tests.support.walframes_worker import ROWS, STEPS

ROOT = Path(__file__).resolve().parents[2]
BASE = "unix-excl"
FRAMES = "unix-excl-frames"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def run_worker(vfs: str, directory: Path, synchronous: str, *kill: str) -> tuple[list[list], int]:
    directory.mkdir()
    proc = subprocess.run([sys.executable, "-m", "tests.support.walframes_worker", vfs, str(directory),
                           synchronous, *kill], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert proc.stderr == "", proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()], proc.returncode


def test_the_engine_opens_its_files_through_the_frames_vfs():
    pytest.importorskip("engine._walframes")
    assert connections.VFS == FRAMES


def test_register_refuses_a_sqlite_it_was_not_told_of():
    native = pytest.importorskip("engine._walframes")
    major, minor, patch = sqlite3.sqlite_version_info
    assert native.register(major * 1_000_000 + minor * 1000 + patch + 1) is False
    assert native.register(major * 1_000_000 + minor * 1000 + patch) is True  # registered already


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"])
def test_the_files_are_byte_equal_to_unix_excl_s_after_every_step(tmp_path, synchronous):
    pytest.importorskip("engine._walframes")
    base, base_rc = run_worker(BASE, tmp_path / "base", synchronous)
    frames, frames_rc = run_worker(FRAMES, tmp_path / "frames", synchronous)
    assert base_rc == frames_rc == 0
    assert [step[0] for step in base] == [name for name, _ in STEPS] + ["closed"]
    assert frames == base
    assert base[-2][2] != base[-3][2]  # the WAL after its truncation took the last insert


def read_back(db: Path) -> tuple:
    conn = sqlite3.connect(db)  # a dead process's files: its lock went with it
    try:
        return (conn.execute("PRAGMA integrity_check").fetchall(),
                conn.execute("SELECT count(*), sum(length(v)), sum(id * length(v)) FROM t").fetchall(),
                conn.execute("SELECT id, v FROM t WHERE id IN (7, 19) ORDER BY id").fetchall())
    finally:
        conn.close()


@pytest.mark.parametrize("synchronous", ["NORMAL", "FULL"])
@pytest.mark.parametrize("step", ["spill and rewrite", "one row"])
def test_killed_after_a_commit_the_files_and_what_they_recover_are_unix_excl_s(tmp_path, synchronous, step):
    """SIGKILL right after a commit (under NORMAL nothing synced it; the first one's frames were
    rewritten in place and their checksums at commit): both VFSes left the same bytes, and the
    reopened files hold every committed transaction, the last one included."""
    pytest.importorskip("engine._walframes")
    base, base_rc = run_worker(BASE, tmp_path / "base", synchronous, step)
    frames, frames_rc = run_worker(FRAMES, tmp_path / "frames", synchronous, step)
    assert base_rc == frames_rc == -9
    assert frames == base and base[-1][0] == step
    for name in ("t.db", "t.db-wal"):
        assert (tmp_path / "frames" / name).read_bytes() == (tmp_path / "base" / name).read_bytes()
    recovered = read_back(tmp_path / "frames" / "t.db")
    assert recovered == read_back(tmp_path / "base" / "t.db")
    integrity, ((count, _, _),), rows = recovered
    seven = bytes(900) if step == "spill and rewrite" else b"\x01"  # "one row" set it
    assert integrity == [("ok",)] and count == 2 * ROWS and rows == [(7, seven), (19, bytes(900))]


COMMITS = """
import sys
from pathlib import Path
from engine import Engine, connections
if len(sys.argv) > 2:
    connections.VFS = sys.argv[2]
conn = connections.connect(Path(sys.argv[1]), isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("PRAGMA synchronous=NORMAL")
conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
conn.execute("CREATE INDEX t_v ON t (v)")
for n in range(50):
    conn.execute("INSERT INTO t VALUES (?, ?)", (n, str(n) * 20))
conn.close()
"""


def wal_write_sizes(tmp_path: Path, *vfs: str) -> list[int]:
    """The sizes of the pwrite64 calls on the WAL of 50 commits through the engine's `connect`
    (through `vfs` if given)."""
    trace = tmp_path / "trace"
    subprocess.run(["strace", "-f", "-y", "-e", "trace=pwrite64", "-o", str(trace), sys.executable, "-c",
                    COMMITS, str(tmp_path / "t.db"), *vfs], cwd=ROOT, env=ENV, check=True, timeout=120)
    return [int(size) for size in re.findall(r'pwrite64\(\d+<[^>]*-wal>, .*, (\d+), \d+\) = \d+',
                                             trace.read_text())]


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_a_commit_writes_each_frame_of_the_wal_in_one_call(tmp_path):
    """Each commit's frames (the table's leaf, the index's leaf) reach the WAL as header and page
    together: 4120 bytes a call, no 24-byte header written alone."""
    sizes = wal_write_sizes(tmp_path)
    assert sizes.count(24) == 0
    assert sizes.count(4096 + 24) >= 100 and set(sizes) <= {32, 4096 + 24}


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace")
def test_through_unix_excl_a_frame_is_two_calls(tmp_path):
    """What the shim saves, seen by the same count through unix-excl itself."""
    sizes = wal_write_sizes(tmp_path, BASE)
    assert sizes.count(24) == sizes.count(4096) >= 100 and 4096 + 24 not in sizes


FALLBACK = """
import asyncio, sys
sys.modules["engine._walframes"] = None  # the extension missing
from pathlib import Path
from engine import Engine, connections

async def main():
    engine = await Engine.open(Path(sys.argv[1]))
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    await s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    await s.execute("INSERT INTO d.t VALUES (1), (2)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    print(connections.VFS, (await s.execute("SELECT id FROM d.t ORDER BY id")).rows)
    await engine.close()

asyncio.run(main())
"""


def test_without_the_extension_the_engine_uses_unix_excl(tmp_path):
    proc = subprocess.run([sys.executable, "-c", FALLBACK, str(tmp_path / "data")], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "unix-excl [(1,), (2,)]"


TOOL = """
import sqlite3, sys
try:
    sqlite3.connect(sys.argv[1]).execute("SELECT * FROM t").fetchall()
except sqlite3.OperationalError as exc:
    print(exc)
"""


async def test_a_connection_through_unix_excl_shares_the_engine_s_lock(tmp_path):
    """A connection through either VFS takes the same process lock: one through unix-excl beside
    the engine's reads its files, and a tool in another process still finds them locked."""
    pytest.importorskip("engine._walframes")
    engine = await Engine.open(tmp_path / "data")
    try:
        s = engine.session(1)
        await s.execute("CREATE DATABASE d")
        await s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
        await s.execute("INSERT INTO d.t VALUES (5)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "1"})
        path = tmp_path / "data" / "d.sqlite"
        beside = sqlite3.connect(f"{path.absolute().as_uri()}?vfs={BASE}", uri=True)
        try:
            assert beside.execute("SELECT id FROM t").fetchall() == [(5,)]
        finally:
            beside.close()
        tool = subprocess.run([sys.executable, "-c", TOOL, str(path)], capture_output=True, text=True, timeout=60)
        assert tool.stdout.strip() == "database is locked"
        assert (await s.execute("SELECT id FROM d.t")).rows == [(5,)]
    finally:
        await engine.close()
