"""What ORMs and data tools write, as the engine answers it, each answer MariaDB 10.11's (the
integration tests test_peewee_mariadb.py, test_alembic_mariadb.py and test_pandas_mariadb.py
compare most of them with a live server): ON DUPLICATE KEY UPDATE's forms, CAST AS JSON,
INTEGER / REAL / FLOAT(p) columns and MariaDB's other type synonyms (INT1 ... INT8, MIDDLEINT,
FLOAT4 / FLOAT8, LONG), the AUTO_INCREMENT counter across ALTER TABLE, and InnoDB's foreign-key
indexes across CREATE INDEX, DROP INDEX and renames."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from tests.unit.test_engine_foreign_keys import rows, run


async def error(engine, session, sql) -> tuple[int, str]:
    with pytest.raises(SQLError) as e:
        await run(engine, session, sql)
    return e.value.code, e.value.message


@pytest.fixture
async def db(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE d")
    session.database = "d"
    yield engine, session
    await engine.close()


async def test_upsert_forms(db):
    engine, s = db
    for sql in ("CREATE TABLE t (a INT PRIMARY KEY, b INT)", "CREATE TABLE u (a INT PRIMARY KEY, b INT)",
                "INSERT INTO t VALUES (1, 2), (5, 6)", "INSERT INTO u VALUES (5, 5), (6, 6)"):
        await run(engine, s, sql)
    # the VALUES() function inside parentheses, and VALUE(), its other spelling
    await run(engine, s, "INSERT INTO u VALUES (5, 1), (7, 3) ON DUPLICATE KEY UPDATE b = (VALUES(b) * 10)")
    await run(engine, s, "INSERT INTO u VALUE (6, 4) ON DUPLICATE KEY UPDATE b = VALUE(b) + 1")
    assert await rows(engine, s, "SELECT a, b FROM u ORDER BY a") == [(5, 10), (6, 5), (7, 3)]
    # INSERT ... SET and INSERT ... SELECT (no FROM, WHERE, a JOIN's ON) before it
    assert (await run(engine, s, "INSERT INTO u SET a = 7, b = 1 ON DUPLICATE KEY UPDATE b = b + 100")).affected_rows == 2
    await run(engine, s, "INSERT INTO u (a, b) SELECT 8, 8 ON DUPLICATE KEY UPDATE b = 0")
    await run(engine, s, "INSERT INTO u (a, b) SELECT a, 9 FROM t WHERE a = 5 ON DUPLICATE KEY UPDATE b = VALUES(b)")
    await run(engine, s, "INSERT INTO u (a, b) SELECT t.a, t.b FROM t JOIN u ON u.a = t.a ON DUPLICATE KEY UPDATE b = 1")
    assert await rows(engine, s, "SELECT a, b FROM u ORDER BY a") == [(5, 1), (6, 5), (7, 103), (8, 8)]
    # SQLite's `excluded` is no table of the statement; a name both the target and the SELECT hold
    assert await error(engine, s, "INSERT INTO u VALUES (6, 7) ON DUPLICATE KEY UPDATE b = b + EXCLUDED.b") == (
        1054, "Unknown column 'EXCLUDED.b' in 'SELECT'")
    assert await error(engine, s, "INSERT INTO u VALUES (6, 7) ON DUPLICATE KEY UPDATE b = zz") == (
        1054, "Unknown column 'zz' in 'SELECT'")
    assert await error(engine, s, "INSERT INTO u SELECT 6, 7 ON DUPLICATE KEY UPDATE b = zz") == (
        1054, "Unknown column 'zz' in 'UPDATE'")
    assert await error(engine, s, "INSERT INTO u (a, b) SELECT a, b FROM t ON DUPLICATE KEY UPDATE b = b + 3") == (
        1052, "Column 'b' in UPDATE is ambiguous")
    assert (await error(engine, s, "SELECT CAST('{}' AS JSON)"))[0] == 1064


async def test_column_types_as_mariadb_declares_them(db):
    engine, s = db
    await run(engine, s, "CREATE TABLE f (id INTEGER AUTO_INCREMENT PRIMARY KEY, r REAL, a FLOAT(24), b FLOAT(25), "
                         "c FLOAT(7,3))")
    assert await rows(engine, s, "SELECT column_name, data_type, column_type FROM information_schema.columns "
                                 "WHERE table_schema = 'd' AND table_name = 'f' ORDER BY ordinal_position") == [
        ("id", "int", "int(11)"), ("r", "double", "double"), ("a", "float", "float"), ("b", "double", "double"),
        ("c", "float", "float(7,3)")]
    assert await error(engine, s, "CREATE TABLE g (a FLOAT(54))") == (1063, "Incorrect column specifier for column 'a'")
    await run(engine, s, "CREATE TABLE h (a INT1, b INT2, c INT3, d INT4, e INT8 UNSIGNED, f MIDDLEINT, g FLOAT4, "
                         "h FLOAT8, j LONG, k LONG VARCHAR, m LONG VARBINARY)")
    assert [r[1] for r in await rows(engine, s, "DESCRIBE h")] == [
        "tinyint(4)", "smallint(6)", "mediumint(9)", "int(11)", "bigint(20) unsigned", "mediumint(9)", "float", "double",
        "mediumtext", "mediumtext", "mediumblob"]
    # the deleted top ids are not handed out again, across an ALTER TABLE too
    await run(engine, s, "INSERT INTO f (r) VALUES (1), (2), (3)")
    await run(engine, s, "DELETE FROM f WHERE id > 1")
    await run(engine, s, "INSERT INTO f (r) VALUES (4)")
    await run(engine, s, "DELETE FROM f WHERE id > 1")
    await run(engine, s, "ALTER TABLE f ADD COLUMN w INT")
    await run(engine, s, "INSERT INTO f (r) VALUES (5)")
    assert await rows(engine, s, "SELECT id FROM f ORDER BY id") == [(1,), (5,)]


async def test_foreign_key_indexes_and_renames(db):
    engine, s = db
    for sql in ("CREATE TABLE p (id INT PRIMARY KEY)", "CREATE TABLE c (id INT PRIMARY KEY, pid INT, t INT, "
                "CONSTRAINT fk FOREIGN KEY (pid) REFERENCES p (id))", "CREATE UNIQUE INDEX c_pid_t ON c (pid, t)"):
        await run(engine, s, sql)
    create = (await rows(engine, s, "SHOW CREATE TABLE c"))[0][1]
    assert "KEY `fk`" not in create and "UNIQUE KEY `c_pid_t` (`pid`,`t`)" in create  # (InnoDB dropped its own)
    assert await error(engine, s, "DROP INDEX c_pid_t ON c") == (
        1553, "Cannot drop index 'c_pid_t': needed in a foreign key constraint")
    await run(engine, s, "ALTER TABLE c DROP INDEX c_pid_t, ADD INDEX c_pid (pid)")
    await run(engine, s, "RENAME TABLE p TO parent")
    assert "REFERENCES `parent` (`id`)" in (await rows(engine, s, "SHOW CREATE TABLE c"))[0][1]
    await run(engine, s, "ALTER TABLE parent RENAME TO owner")
    assert "REFERENCES `owner` (`id`)" in (await rows(engine, s, "SHOW CREATE TABLE c"))[0][1]
    await run(engine, s, "INSERT INTO owner VALUES (1)")
    await run(engine, s, "INSERT INTO c VALUES (1, 1, 1)")
    assert (await error(engine, s, "INSERT INTO c VALUES (2, 2, 2)"))[0] == 1452
    await run(engine, s, "ALTER TABLE c DROP COLUMN t CASCADE")
