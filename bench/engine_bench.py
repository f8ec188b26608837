"""Micro benchmark of the engine's hot path: sysbench's oltp_insert statement through
`Session.execute` (shape cache hit -> literals -> writer thread -> SQLite).

    python bench/engine_bench.py [--seconds 3] [--group 16] [--asyncio]

Reports statements/s for:
  shape      extract() + plan cache lookup only (the translation cost per statement)
  txn        INSERTs inside one open transaction (no commit per statement)
  autocommit autocommit INSERTs, an engine commit_group (fsync) after every --group statements
  group      --clients concurrent autocommit sessions, each waiting until its INSERT is durable
             (commit_group); the committer serves all sessions queued behind it at once
Not a test: numbers depend on the machine and on what else runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import Engine  # noqa: E402
from engine.lexer import extract  # noqa: E402

CREATE = """CREATE TABLE sbtest1(
  id INTEGER NOT NULL AUTO_INCREMENT,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) /*! ENGINE = innodb */"""


def statements(n: int) -> list[str]:
    rng = random.Random(1)

    def s(groups: int) -> str:
        return "-".join("".join(rng.choice("0123456789") for _ in range(11)) for _ in range(groups))

    return [f"INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, {rng.randint(1, 10000)}, '{s(10)}', '{s(5)}')"
            for _ in range(n)]


async def measure(seconds: float, group: int, clients: int, synchronous: str) -> dict[str, float]:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        engine = await Engine.open(Path(tmp), synchronous=synchronous)
        session = engine.session(1)
        await session.execute("CREATE DATABASE sbtest")
        session.database = "sbtest"
        await session.execute(CREATE)
        await session.execute("CREATE INDEX k_1 ON sbtest1(k)")
        async with engine.writer_lock:
            await engine.commit_group({})
        pool = statements(5000)

        # shape: the translation cost (extract + cached plan)
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for sql in pool[:500]:
                shape, params = extract(sql)
                engine.plan_for(shape, "sbtest", params)
            n += 500
        results["shape"] = n / (time.perf_counter() - start)

        # txn: statements inside one open transaction
        await session.execute("BEGIN")
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            await session.execute(pool[n % len(pool)])
            n += 1
        results["txn"] = n / (time.perf_counter() - start)
        r = await session.execute("COMMIT")
        async with engine.writer_lock:
            await engine.commit_group({})
        assert r.committed is not None

        # autocommit: each statement logically committed; one durable commit_group per `group`
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(group):
                r = await session.execute(pool[n % len(pool)])
                assert r.committed is not None
                n += 1
            async with engine.writer_lock:
                await engine.commit_group({"n": str(n)})
        results["autocommit"] = n / (time.perf_counter() - start)

        # group: concurrent autocommit sessions, each waiting for its transaction to be durable
        # (the master's pipeline without the binlog): one commit_group serves everyone queued
        issued = durable = groups = 0

        async def commit() -> None:
            nonlocal issued, durable, groups
            issued += 1
            ticket = issued
            async with engine.writer_lock:
                if durable >= ticket:
                    return
                covered = issued
                await engine.commit_group({"n": str(covered)})
                durable, groups = covered, groups + 1

        count = 0
        stop = time.perf_counter() + seconds

        async def client(k: int) -> None:
            nonlocal count
            s = engine.session(10 + k)
            s.database = "sbtest"
            i = k
            while time.perf_counter() < stop:
                await s.execute(pool[i % len(pool)])
                await commit()
                count += 1
                i += clients

        start = time.perf_counter()
        await asyncio.gather(*(client(k) for k in range(clients)))
        results[f"group x{clients}"] = count / (time.perf_counter() - start)
        results[f"  (statements per commit_group: {count / max(groups, 1):.1f})"] = 0.0
        await engine.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--group", type=int, default=16)
    parser.add_argument("--clients", type=int, default=16, help="concurrent sessions of the group mode")
    parser.add_argument("--synchronous", default="FULL", choices=["FULL", "NORMAL"])
    parser.add_argument("--asyncio", action="store_true", help="plain asyncio loop instead of uvloop")
    args = parser.parse_args()
    if args.asyncio:
        results = asyncio.run(measure(args.seconds, args.group, args.clients, args.synchronous))
    else:
        import uvloop  # what the daemons run on

        results = uvloop.run(measure(args.seconds, args.group, args.clients, args.synchronous))
    for name, rate in results.items():
        print(f"{name:>12}: {rate:10.0f} statements/s" if rate else name)


if __name__ == "__main__":
    main()
