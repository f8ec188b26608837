"""A workload for tests/integration/test_engine_crash.py, run in a child process that the test kills
with SIGKILL: groups of three transactions, each group engine-committed with meta {"txn": last id}.
Prints each group's last id once commit_group returned. Resumes after the meta it finds."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from engine import Engine


async def main(datadir: Path) -> None:
    engine = await Engine.open(datadir)
    sessions = [engine.session(n) for n in range(3)]
    done = int(engine.meta().get("txn", "0"))
    if "crash" not in engine.databases():
        s = sessions[0]
        await s.execute("CREATE DATABASE crash")
        s.database = "crash"
        await s.execute("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100))")
        await s.execute("CREATE TABLE c (one INT PRIMARY KEY, total BIGINT, cnt INT)")
        await s.execute("INSERT INTO c VALUES (1, 0, 0)")
        async with engine.writer_lock:
            await engine.commit_group({"txn": "0"})
    for s in sessions:
        s.database = "crash"
    n = done
    while True:
        for s in sessions:
            n += 1
            await s.execute("BEGIN")
            await s.execute(f"INSERT INTO t VALUES ({n}, '{'x' * (n % 90)}')")
            await s.execute(f"UPDATE c SET total = total + {n}, cnt = cnt + 1 WHERE one = 1")
            await s.execute("COMMIT")
        async with engine.writer_lock:
            await engine.commit_group({"txn": str(n)})
        print(n, flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
