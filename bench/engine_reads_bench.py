"""sysbench's SELECT shapes through the engine alone: process CPU per statement.

    python bench/engine_reads_bench.py [--statements 5000] [--rounds 3] [--repeatable-read]

Run from the root of the tree to measure (its `engine` is imported). A 10,000-row sbtest1 table,
then `Session.execute` of N point selects (`SELECT c FROM sbtest1 WHERE id=?`) and N/10 each of
a 100-row range and a 100-row `SELECT DISTINCT c ... ORDER BY c`, on an asyncio loop; prints the
process CPU (time.process_time) per statement of each. `--repeatable-read`: the statements run
in REPEATABLE READ transactions of 10 (BEGIN, 10 SELECTs, COMMIT, counted in the statement's
cost): reads in a snapshot. Not a test: the numbers depend on the machine and on what else
runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from engine.core import Engine  # noqa: E402
from engine.session import REPEATABLE_READ  # noqa: E402

QUERIES = {
    "point": lambda i: f"SELECT c FROM sbtest1 WHERE id={i}",
    "range100": lambda i: f"SELECT c FROM sbtest1 WHERE id BETWEEN {i} AND {i + 99}",
    "distinct100": lambda i: f"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN {i} AND {i + 99} ORDER BY c",
}


async def measure(statements: int, repeatable_read: bool = False) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as datadir:
        engine = await Engine.open(Path(datadir), synchronous="NORMAL")
        try:
            s = engine.session(1)
            await s.execute("CREATE DATABASE sbtest")
            s.database = "sbtest"
            await s.execute("CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
                            "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))")
            for start in range(0, 10000, 500):
                rows = ",".join(f"({i},{i * 7 % 1000},'{i:011d}-{'x' * 100}','{'p' * 59}')"
                                for i in range(start + 1, start + 501))
                await s.execute("INSERT INTO sbtest1 VALUES " + rows)
            async with engine.writer_lock:
                await engine.commit_group({"bench": "1"})
            rnd = random.Random(1)
            out = {}
            if repeatable_read:
                s.isolation = REPEATABLE_READ
            for name, query in QUERIES.items():
                n = statements if name == "point" else max(statements // 10, 1)
                started = time.process_time()
                for i in range(n):
                    if repeatable_read and i % 10 == 0:
                        await s.execute("BEGIN")
                    await s.execute(query(rnd.randint(1, 9900)))
                    if repeatable_read and (i % 10 == 9 or i == n - 1):
                        await s.execute("COMMIT")
                out[name] = (time.process_time() - started) / n * 1e6
            return out
        finally:
            await engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeatable-read", action="store_true", help="in REPEATABLE READ transactions of 10")
    args = parser.parse_args()
    for _ in range(args.rounds):
        out = asyncio.run(measure(args.statements, args.repeatable_read))
        print(" ".join(f"{name}={us:.1f}" for name, us in out.items()), "µs per statement")


if __name__ == "__main__":
    main()
