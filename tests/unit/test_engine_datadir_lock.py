"""engine/: the engine's files are the process's alone (`engine.connections`' header, SQLite's
unix-excl VFS). A second process's engine on the datadir is refused at its open, naming the
datadir; a tool opening a file the engine holds finds it locked, and writes nothing; the
process's own connections share the WAL-index in memory (no `-shm` file), their snapshots as
before; the datadir is free again once the engine closed."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from engine import Engine
from engine.connections import connect
from engine.session import REPEATABLE_READ

ROOT = Path(__file__).resolve().parents[2]

# A second process: the engine's open on the datadir, then one group committed
SECOND_ENGINE = textwrap.dedent("""
    import asyncio, sys
    from engine import Engine

    async def main(datadir):
        engine = await Engine.open(datadir)
        try:
            s = engine.session(1)
            await s.execute("INSERT INTO d.t VALUES (2)")
            async with engine.writer_lock:
                await engine.commit_group({"pos": "2"})
            print("opened", (await s.execute("SELECT id FROM d.t ORDER BY id")).rows)
        finally:
            await engine.close()

    asyncio.run(main(sys.argv[1]))
""")

# A tool: Python's sqlite3 on one file, a read then a write
TOOL = textwrap.dedent("""
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], timeout=0.2)
    for sql in ("SELECT count(*) FROM t", "INSERT INTO t VALUES (3)"):
        try:
            print(conn.execute(sql).fetchall())
            conn.commit()
        except sqlite3.Error as exc:
            print(type(exc).__name__, exc)
""")


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})


async def _engine_with_a_row(datadir: Path) -> Engine:
    engine = await Engine.open(datadir)
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    await s.execute("CREATE TABLE d.t (id INT PRIMARY KEY)")
    await s.execute("INSERT INTO d.t VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    return engine


async def test_a_second_process_opening_the_datadir_is_refused_naming_it(tmp_path):
    datadir = tmp_path / "data"
    engine = await _engine_with_a_row(datadir)
    try:
        second = run(SECOND_ENGINE, str(datadir))
        assert second.returncode != 0 and "opened" not in second.stdout
        assert "DatadirInUse" in second.stderr
        assert f"the engine's files in {datadir} are locked by another process" in second.stderr
        # this engine is untouched and goes on
        s = engine.session(1)
        await s.execute("INSERT INTO d.t VALUES (3)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "3"})
        assert (await s.execute("SELECT id FROM d.t ORDER BY id")).rows == [(1,), (3,)]
    finally:
        await engine.close()
    # once it closed, the datadir is the next process's
    second = run(SECOND_ENGINE, str(datadir))
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "opened [(1,), (2,), (3,)]"


async def test_a_tool_opening_a_file_the_engine_holds_finds_it_locked(tmp_path):
    datadir = tmp_path / "data"
    engine = await _engine_with_a_row(datadir)
    try:
        tool = run(TOOL, str(datadir / "d.sqlite"))
        assert tool.returncode == 0, tool.stderr
        assert tool.stdout.splitlines() == ["OperationalError database is locked"] * 2
        assert (await engine.session(1).execute("SELECT id FROM d.t")).rows == [(1,)]
    finally:
        await engine.close()
    tool = run(TOOL, str(datadir / "d.sqlite"))
    assert tool.stdout.splitlines() == ["[(1,)]", "[]"]


async def test_the_process_s_connections_share_the_wal_index_in_memory(tmp_path):
    """No `-shm` file: the writer, the readers and another connection of this process (through
    the engine's VFS) meet in memory; a reader's snapshot holds while the writer commits."""
    datadir = tmp_path / "data"
    engine = await _engine_with_a_row(datadir)
    try:
        reader = engine.session(2)
        reader.isolation = REPEATABLE_READ
        await reader.execute("BEGIN")
        assert (await reader.execute("SELECT id FROM d.t")).rows == [(1,)]
        s = engine.session(1)
        await s.execute("INSERT INTO d.t VALUES (2)")
        async with engine.writer_lock:
            await engine.commit_group({"pos": "2"})
        assert (await reader.execute("SELECT id FROM d.t")).rows == [(1,)]  # its snapshot
        await reader.execute("COMMIT")
        assert (await reader.execute("SELECT id FROM d.t ORDER BY id")).rows == [(1,), (2,)]
        beside = connect(datadir / "d.sqlite")
        try:
            assert beside.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,)]
        finally:
            beside.close()
        assert (datadir / "d.sqlite-wal").exists()
        assert not list(datadir.glob("*-shm"))
    finally:
        await engine.close()
    after = sqlite3.connect(datadir / "d.sqlite")  # a closed engine's files: anyone's
    try:
        assert after.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,)]
    finally:
        after.close()
