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


async def test_replace_truncate_and_alter_check_existing_rows(tmp_path):
    """As MariaDB 10.11: REPLACE's delete of a referenced row is refused or cascades, TRUNCATE of a
    referenced table is 1701, ADD FOREIGN KEY over an orphan row is 1452 (and changes nothing)."""
    engine = await Engine.open(tmp_path / "data")
    s = engine.session(1)
    await run(engine, s, "CREATE DATABASE t")
    s.database = "t"
    for sql in ["CREATE TABLE p (id INT PRIMARY KEY, v INT)",
                "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
                "CREATE TABLE k (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)",
                "INSERT INTO p VALUES (1, 1), (2, 2)", "INSERT INTO c VALUES (1, 1)", "INSERT INTO k VALUES (1, 2)"]:
        await run(engine, s, sql)
    with pytest.raises(SQLError) as err:
        await run(engine, s, "REPLACE INTO p VALUES (1, 10)")
    assert (err.value.code, err.value.message) == (1451, (
        "Cannot delete or update a parent row: a foreign key constraint fails "
        "(`t`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"))
    await run(engine, s, "REPLACE INTO p VALUES (2, 20)")
    assert await rows(engine, s, "SELECT * FROM k") == []
    with pytest.raises(SQLError) as err:
        await run(engine, s, "TRUNCATE TABLE p")
    assert (err.value.code, err.value.message) == (1701, (
        "Cannot truncate a table referenced in a foreign key constraint "
        "(`t`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `t`.`p` (`id`))"))
    await run(engine, s, "TRUNCATE TABLE c")
    await run(engine, s, "CREATE TABLE o (id INT PRIMARY KEY, pid INT)")
    await run(engine, s, "INSERT INTO o VALUES (1, 77)")
    with pytest.raises(SQLError) as err:
        await run(engine, s, "ALTER TABLE o ADD CONSTRAINT ofk FOREIGN KEY (pid) REFERENCES p (id)")
    assert err.value.code == 1452 and "CONSTRAINT `ofk` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)" in err.value.message
    assert "FOREIGN KEY" not in (await rows(engine, s, "SHOW CREATE TABLE o"))[0][1]
    assert await rows(engine, s, "SELECT * FROM o") == [(1, 77)]
    s.foreign_key_checks = False
    await run(engine, s, "ALTER TABLE o ADD CONSTRAINT ofk FOREIGN KEY (pid) REFERENCES p (id)")
    await engine.close()
