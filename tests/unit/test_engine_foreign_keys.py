"""engine/foreign_keys.py: InnoDB foreign keys on SQLite, across databases, kept across a reopen."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError


async def run(engine, session, sql):
    result = await session.execute(sql)
    if result.committed is not None:
        async with engine.writer_lock:
            await engine.commit_group({"last": sql[:40]})
    return result


async def rows(engine, session, sql):
    return (await run(engine, session, sql)).rows


async def test_cross_database_cascades_set_null_and_statement_atomicity(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    s = engine.session(1)
    for sql in ["CREATE DATABASE a", "CREATE DATABASE b",
                "CREATE TABLE a.p (id INT PRIMARY KEY)",
                "CREATE TABLE b.c (id INT PRIMARY KEY, pid INT, CONSTRAINT cc FOREIGN KEY (pid) REFERENCES a.p (id) "
                "ON DELETE CASCADE ON UPDATE CASCADE)",
                "CREATE TABLE b.n (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES a.p (id) ON DELETE SET NULL)",
                "CREATE TABLE b.g (id INT PRIMARY KEY, cid INT, CONSTRAINT gr FOREIGN KEY (cid) REFERENCES b.c (id))",
                "INSERT INTO a.p VALUES (1), (2), (3)", "INSERT INTO b.c VALUES (10, 1), (20, 2), (30, 3)",
                "INSERT INTO b.n VALUES (1, 1), (2, NULL)", "INSERT INTO b.g VALUES (1, 30)"]:
        await run(engine, s, sql)
    await run(engine, s, "DELETE FROM a.p WHERE id = 1")
    assert await rows(engine, s, "SELECT id, pid FROM b.c ORDER BY id") == [(20, 2), (30, 3)]
    assert await rows(engine, s, "SELECT id, pid FROM b.n ORDER BY id") == [(1, None), (2, None)]
    await run(engine, s, "UPDATE a.p SET id = 5 WHERE id = 2")
    assert await rows(engine, s, "SELECT id, pid FROM b.c ORDER BY id") == [(20, 5), (30, 3)]
    # the cascade to b.c reaches a RESTRICT grandchild: the whole statement is undone
    with pytest.raises(SQLError) as err:
        await run(engine, s, "DELETE FROM a.p WHERE id = 3")
    assert err.value.code == 1451 and "`b`.`g`, CONSTRAINT `gr` FOREIGN KEY (`cid`) REFERENCES `c` (`id`)" in str(err.value)
    assert await rows(engine, s, "SELECT id FROM a.p ORDER BY id") == [(3,), (5,)]
    assert await rows(engine, s, "SELECT id FROM b.c ORDER BY id") == [(20,), (30,)]
    await engine.close()
    engine = await Engine.open(tmp_path / "data")  # the keys and their triggers come back
    s = engine.session(1)
    with pytest.raises(SQLError) as err:
        await run(engine, s, "INSERT INTO b.c VALUES (40, 9)")
    assert err.value.code == 1452
    assert "CONSTRAINT `cc` FOREIGN KEY (`pid`) REFERENCES `a`.`p` (`id`) ON DELETE CASCADE ON UPDATE CASCADE" in (
        await rows(engine, s, "SHOW CREATE TABLE b.c"))[0][1]
    await engine.close()


async def test_foreign_key_checks_off_and_ddl_rules(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    s = engine.session(1)
    await run(engine, s, "CREATE DATABASE d")
    s.database = "d"
    with pytest.raises(SQLError) as err:  # the parent does not exist
        await run(engine, s, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
    assert err.value.code == 1005 and "errno: 150" in str(err.value)
    s.foreign_key_checks = False  # mariadb-dump's order: the child first
    await run(engine, s, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
    await run(engine, s, "CREATE TABLE p (id INT PRIMARY KEY)")
    await run(engine, s, "INSERT INTO c VALUES (1, 42)")
    s.foreign_key_checks = True
    with pytest.raises(SQLError) as err:
        await run(engine, s, "INSERT INTO c VALUES (2, 43)")
    assert err.value.code == 1452 and "CONSTRAINT `c_ibfk_1`" in str(err.value)
    await run(engine, s, "ALTER TABLE c DROP FOREIGN KEY c_ibfk_1")
    await run(engine, s, "INSERT INTO c VALUES (2, 43)")
    with pytest.raises(SQLError) as err:
        await run(engine, s, "ALTER TABLE c DROP FOREIGN KEY c_ibfk_1")
    assert err.value.code == 1091
    await engine.close()
