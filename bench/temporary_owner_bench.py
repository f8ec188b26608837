"""What a statement pays to learn whether its session has temporary tables (engine/temporary.py):
`Session.owner()`, the test as the statement paths write it, and a whole `Session._planned` of a
cached INSERT, on an engine without temporary tables. timeit, best of 7.

    python bench/temporary_owner_bench.py [TREE]   (TREE: a worktree to import from, default this one)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import timeit
from pathlib import Path

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1]))

from engine import Engine  # noqa: E402


async def main() -> None:
    engine = await Engine.open(Path(tempfile.mkdtemp()) / "db", readers=1)
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    s.database = "d"
    await s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    sql = "INSERT INTO t VALUES (1, 2)"
    s._planned(sql)
    # (a tree without `temporary_any` calls owner() at its sites)
    site = (lambda: s.owner() if s.engine.temporary_any else None) if hasattr(engine, "temporary_any") else s.owner
    for name, fn, number in (("Session.owner()", s.owner, 200_000), ("the call site", site, 200_000),
                             ("Session._planned", lambda: s._planned(sql), 20_000)):
        best = min(timeit.repeat(fn, number=number, repeat=7))
        print(f"{name}: {best / number * 1e9:.0f} ns")
    await s.close()
    await engine.close()


asyncio.run(main())
