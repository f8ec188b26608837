"""engine/: statements logged on one engine, replayed on another with their contexts, give the same
rows — NOW(), auto-increment (including ids lost to a rollback), multi-row inserts, RAND(), updates,
deletes and DDL — as the slave's applier and the master's crash recovery rely on."""

from __future__ import annotations

import asyncio

from engine import Engine, StatementContext


async def workload(master: Engine) -> list:
    """Run a mixed workload, group-committing like the master's pipeline; returns the binlog."""
    binlog = []

    async def run(session, sql, context=None):
        result = await session.execute(sql, context)
        if result.committed is not None:
            async with master.writer_lock:
                binlog.extend(result.committed.binlog_transactions())
                await master.commit_group({"txns": str(len(binlog))})
        return result

    a, b = master.session(1), master.session(2)
    await run(a, "CREATE DATABASE app")
    a.database = b.database = "app"
    await run(a, "CREATE TABLE items (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20), "
                 "created DATETIME, ts INT, r DOUBLE) ENGINE=InnoDB")
    await run(a, "INSERT INTO items (name, created, ts) VALUES ('a', NOW(), UNIX_TIMESTAMP()), "
                 "('b', NOW(), UNIX_TIMESTAMP())")
    # an old timestamp: the replica must not use its own clock
    await run(a, "INSERT INTO items (name, created) VALUES ('old', CURRENT_TIMESTAMP)",
              StatementContext(timestamp=1_000_000_000))
    # ids consumed by a rolled-back transaction leave a gap the replica must reproduce
    await run(b, "BEGIN")
    await run(b, "INSERT INTO items (name) VALUES ('lost1'), ('lost2')")
    await run(b, "ROLLBACK")
    await run(a, "INSERT INTO items (id, name) VALUES (0, 'after-gap')")
    await run(a, "INSERT INTO items (name, r) VALUES ('rand', RAND())")
    await run(b, "BEGIN")
    await run(b, "INSERT INTO items (name) VALUES ('t1')")
    await run(b, "UPDATE items SET name = CONCAT(name, '-x') WHERE id <= 2")
    await run(b, "INSERT INTO items (name, ts) VALUES ('lid', LAST_INSERT_ID())")
    await run(b, "COMMIT")
    a.user_vars["who"] = "from-var"
    await run(a, "INSERT INTO items (name) VALUES (@who)")
    a.user_vars["who"] = "changed-later"
    await run(a, "DELETE FROM items WHERE name = 'b-x'")
    await run(a, "ALTER TABLE items ADD COLUMN note VARCHAR(10) NOT NULL DEFAULT 'n'")
    await run(a, "UPDATE items SET note = 'upd' WHERE id > 5")
    await run(a, "CREATE TABLE copy (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20))")
    await run(a, "INSERT INTO copy (name) VALUES ('x'), ('y')")
    await run(a, "DELETE FROM copy")  # the counter stays at 3; a replica must not restart at 1
    r = await run(a, "INSERT INTO copy (name) SELECT name FROM items WHERE id < 7 ORDER BY id")
    assert r.last_insert_id == 3 and r.affected_rows == 3
    assert r.committed.statements[0].insert_id == 3  # binlogged as INSERT_ID
    await run(a, "CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT)")
    await run(a, "INSERT INTO kv VALUES ('x', 1) ON DUPLICATE KEY UPDATE v = v + 1")
    await run(a, "INSERT INTO kv VALUES ('x', 1) ON DUPLICATE KEY UPDATE v = v + 1")
    await run(a, "REPLACE INTO kv VALUES ('y', 7)")
    return binlog


async def test_replayed_statements_give_identical_tables(tmp_path):
    master = await Engine.open(tmp_path / "master")
    replica = await Engine.open(tmp_path / "replica")
    try:
        binlog = await workload(master)
        await asyncio.sleep(1.1)  # the replica's clock has moved on: NOW() must come from the context
        for n, txn in enumerate(binlog, 1):
            await replica.apply_transaction(
                [(s.sql, s.context(), s.db) for s in txn], {"applied": str(n)})
        for table in ("items", "kv", "copy"):
            assert await master.table_digest("app", table) == await replica.table_digest("app", table)
        rows = (await replica.session(1).execute("SELECT id, name, created FROM app.items ORDER BY id")).rows
        assert [r[0] for r in rows] == [1, 3, 6, 7, 8, 9, 10]  # ids 4 and 5 were lost to the rollback
        assert rows[1][1:] == ("old", "2001-09-09 01:46:40")
        assert replica.meta() == {"applied": str(len(binlog))}
        copy = (await replica.session(1).execute("SELECT id, name FROM app.copy ORDER BY id")).rows
        assert copy == [(3, "a-x"), (4, "old"), (5, "after-gap")]
        # the logged contexts carry what the replica needed
        inserts = [s for txn in binlog for s in txn if s.sql.startswith("INSERT INTO items")]
        assert [s.insert_id for s in inserts][:4] == [1, 3, 6, 7]
        assert any(s.rand_seed is not None for s in inserts)
        assert any(s.last_insert_id == 8 for s in inserts)
        assert [s.user_vars for s in inserts if s.user_vars] == [(("who", "from-var"),)]
    finally:
        await master.close()
        await replica.close()


async def test_apply_transaction_is_atomic_with_its_meta(tmp_path):
    replica = await Engine.open(tmp_path / "replica")
    try:
        await replica.apply_transaction([("CREATE DATABASE d", StatementContext(), None)], {"pos": "1"})
        await replica.apply_transaction([("CREATE TABLE t (id INT PRIMARY KEY)", StatementContext(), "d")],
                                        {"pos": "2"})
        bad = [("INSERT INTO t VALUES (1)", StatementContext(), "d"),
               ("INSERT INTO t VALUES (1)", StatementContext(), "d")]  # duplicate: fails
        try:
            await replica.apply_transaction(bad, {"pos": "3"})
        except Exception as exc:
            assert getattr(exc, "code", None) == 1062
        else:
            raise AssertionError("the duplicate must fail")
        assert replica.meta() == {"pos": "2"}
        assert (await replica.session(1).execute("SELECT COUNT(*) FROM d.t")).rows == [(0,)]
        await replica.apply_transaction(bad[:1], {"pos": "3"})
        assert (await replica.session(1).execute("SELECT COUNT(*) FROM d.t")).rows == [(1,)]
        assert replica.meta() == {"pos": "3"}
    finally:
        await replica.close()
