"""engine/: many sessions interleaving transactions, rollbacks, failing statements, DDL and group
commits; the binlog they produce, replayed on a second engine, gives the same tables, and no
logically committed transaction is lost or invented."""

from __future__ import annotations

import asyncio
import random

from engine import Engine
from protocol.errors import SQLError

SESSIONS, ROUNDS = 8, 40


async def test_interleaved_sessions_replicate_exactly(tmp_path):
    master = await Engine.open(tmp_path / "master")
    replica = await Engine.open(tmp_path / "replica")
    binlog: list = []
    issued = durable = 0

    async def commit(committed) -> None:
        nonlocal issued, durable
        # the binlog order is the order transactions committed logically (the lock order)
        binlog.extend(committed.binlog_transactions())
        issued += 1
        ticket = issued
        async with master.writer_lock:
            if durable >= ticket:
                return
            covered = issued
            await master.commit_group({"txns": str(len(binlog))})
            durable = covered

    async def execute(session, sql):
        try:
            result = await session.execute(sql)
        except SQLError as exc:
            if getattr(exc, "committed", None) is not None:
                await commit(exc.committed)
            raise
        if result.committed is not None:
            await commit(result.committed)
        return result

    setup = master.session(0)
    await execute(setup, "CREATE DATABASE s")
    setup.database = "s"
    await execute(setup, "CREATE TABLE acc (id INT AUTO_INCREMENT PRIMARY KEY, owner INT, bal INT NOT NULL, "
                         "note VARCHAR(30), UNIQUE KEY uo (owner))")

    async def client(n: int) -> None:
        rng = random.Random(n)
        s = master.session(n)
        s.database = "s"
        for r in range(ROUNDS):
            kind = rng.random()
            try:
                if kind < 0.35:
                    await execute(s, f"INSERT INTO acc (owner, bal, note) VALUES ({rng.randint(1, 60)}, "
                                     f"{rng.randint(0, 100)}, CONCAT('n', {n}, '-', {r}))")
                elif kind < 0.65:
                    await execute(s, "BEGIN")
                    await execute(s, f"UPDATE acc SET bal = bal - 1 WHERE owner = {rng.randint(1, 60)}")
                    await execute(s, f"INSERT INTO acc (owner, bal) VALUES ({rng.randint(61, 10_000)}, 1)")
                    await execute(s, "ROLLBACK" if rng.random() < 0.3 else "COMMIT")
                elif kind < 0.8:
                    await execute(s, f"DELETE FROM acc WHERE owner = {rng.randint(1, 60)}")
                elif kind < 0.9:
                    await execute(s, "BEGIN")
                    await execute(s, f"INSERT INTO acc (owner, bal) VALUES ({rng.randint(1, 60)}, 5)")  # may be dup
                    await execute(s, f"CREATE TABLE IF NOT EXISTS side{n % 3} (x INT)")  # implicit commit
                    await execute(s, f"INSERT INTO side{n % 3} VALUES ({r})")
                else:
                    await execute(s, f"DROP TABLE IF EXISTS side{rng.randint(0, 2)}")
            except SQLError as exc:
                assert exc.code in (1062, 1146), exc
                if s.in_transaction and rng.random() < 0.5:
                    await execute(s, "ROLLBACK")
            await asyncio.sleep(0)
        await execute(s, "COMMIT")
        await s.close()

    try:
        await asyncio.gather(*(client(n) for n in range(1, SESSIONS + 1)))
        assert not master.writer_lock.locked()
        async with master.writer_lock:
            await master.commit_group({"txns": str(len(binlog))})
        for n, txn in enumerate(binlog, 1):
            await replica.apply_transaction([(st.sql, st.context(), st.db) for st in txn], {"txns": str(n)})
        tables = sorted(t.name for t in master.catalog["s"].values())
        assert tables == sorted(t.name for t in replica.catalog["s"].values())
        for table in tables:
            assert await master.table_digest("s", table) == await replica.table_digest("s", table), table
        assert replica.meta() == master.meta() == {"txns": str(len(binlog))}
        count = (await master.session(99).execute("SELECT COUNT(*) FROM s.acc")).rows[0][0]
        assert count > 0
    finally:
        await master.close()
        await replica.close()
