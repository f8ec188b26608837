"""engine/: INSERT / REPLACE / DELETE ... RETURNING (MariaDB 10.5+) in the engine: the rows as
written, typed and named as the SELECT of the list, MariaDB's errors, the description without
writing, and a replica replaying the statement. The answers are checked against a live MariaDB in
tests/integration/test_returning_mariadb.py; these pin the engine's side quickly."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from protocol.messages import ColumnFlag, FieldType
from tests.unit.test_engine import run


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    yield engine
    await engine.close()


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE r")
    session.database = "r"
    await run(engine, session, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10) NOT NULL, "
                               "p DECIMAL(10,2), u INT UNIQUE)")
    return session


async def rows(engine, session, sql):
    return (await run(engine, session, sql)).rows


async def test_insert_returns_the_rows_written_typed_as_a_select(engine, db):
    result = await run(engine, db, "INSERT INTO t (a, p, u) VALUES ('x', 1.5, 1), ('y', 2.25, 2) "
                                   "RETURNING id, a, p * 2, CONCAT(a, '!') AS c, 3, u IS NULL")
    assert result.columns == ["id", "a", "p * 2", "c", "3", "u IS NULL"]
    assert result.rows == [(1, "x", "3.00", "x!", 3, 0), (2, "y", "4.50", "y!", 3, 0)]
    types = result.column_types
    assert [t.type for t in types] == [FieldType.LONG, FieldType.VAR_STRING, FieldType.NEWDECIMAL,
                                       FieldType.VAR_STRING, FieldType.LONG, FieldType.LONG]
    assert (types[2].decimals, types[3].length) == (2, 44)  # DECIMAL(13,2); CONCAT's 11 characters
    assert types[0].flags & ColumnFlag.AUTO_INCREMENT and types[5].flags & ColumnFlag.NOT_NULL
    assert (result.affected_rows, result.last_insert_id) == (2, 1)
    assert await rows(engine, db, "SELECT ROW_COUNT(), LAST_INSERT_ID()") == [(-1, 1)]  # as after a SELECT
    assert result.committed is not None  # the statement is logged as written, RETURNING included
    assert result.committed.statements[0].sql.endswith("u IS NULL")


async def test_each_insert_form_returns_what_it_wrote(engine, db):
    await run(engine, db, "INSERT INTO t (a, p, u) VALUES ('x', 1, 1), ('y', 2, 2)")
    # INSERT IGNORE: the skipped row is not returned
    assert await rows(engine, db, "INSERT IGNORE INTO t (id, a, u) VALUES (10, 'dup', 1), (11, 'new', 11) "
                                  "RETURNING id, a") == [(11, "new")]
    # ON DUPLICATE KEY UPDATE: the row as updated
    assert await rows(engine, db, "INSERT INTO t (id, a, u) VALUES (30, 'q', 2) ON DUPLICATE KEY UPDATE "
                                  "a = 'upd' RETURNING id, a, u") == [(2, "upd", 2)]
    assert await rows(engine, db, "REPLACE INTO t (id, a, p, u) VALUES (1, 'R', 9, 1) RETURNING *") == \
        [(1, "R", "9.00", 1)]
    # INSERT ... SELECT numbers the new rows from the next AUTO_INCREMENT id
    assert await rows(engine, db, "INSERT INTO t (a, u) SELECT CONCAT(a, '+'), u + 100 FROM t WHERE id < 3 "
                                  "ORDER BY id RETURNING id, a, u") == [(31, "R+", 101), (32, "upd+", 102)]
    assert await rows(engine, db, "INSERT IGNORE INTO t (id, a) VALUES (1, 'again') RETURNING id") == []


async def test_delete_returns_the_rows_removed(engine, db):
    await run(engine, db, "INSERT INTO t (a, p, u) VALUES ('x', 1, 1), ('y', 2, 2), ('z', 3, 3), ('w', 4, 4)")
    result = await run(engine, db, "DELETE FROM t WHERE id = 2 RETURNING t.*, id + 1, p + 0.5")
    assert result.columns == ["id", "a", "p", "u", "id + 1", "p + 0.5"]
    assert result.rows == [(2, "y", "2.00", 2, 3, "2.50")]
    assert await rows(engine, db, "DELETE FROM t AS x WHERE x.id > 0 ORDER BY id LIMIT 1 RETURNING x.a, x.id") == \
        [("x", 1)]
    await run(engine, db, "INSERT INTO t (id, a) VALUES (5, 'v'), (6, 'u')")
    # in the order of the ORDER BY, as MariaDB deletes (and returns) them
    assert await rows(engine, db, "DELETE FROM t WHERE id > 3 ORDER BY id DESC LIMIT 2 RETURNING id") == [(6,), (5,)]
    assert await rows(engine, db, "DELETE FROM r.t WHERE id > 100 RETURNING id") == []
    assert await rows(engine, db, "DELETE FROM t WHERE id = 3 RETURNING r.t.a, r.t.p * 2, r.t.*") == \
        [("z", "6.00", 3, "z", "3.00", 3)]
    assert await rows(engine, db, "SELECT id FROM t ORDER BY id") == [(4,)]


@pytest.mark.parametrize("sql, code, message", [
    ("INSERT INTO t (a) VALUES ('e') RETURNING nosuch", 1054, "Unknown column 'nosuch' in 'RETURNING'"),
    ("DELETE FROM t WHERE id = 1 RETURNING nosuch", 1054, "Unknown column 'nosuch' in 'RETURNING'"),
    ("INSERT INTO t (a) VALUES ('e') RETURNING SUM(id)", 1111, "Invalid use of group function"),
    ("INSERT INTO t (a) VALUES ('e') RETURNING (SELECT COUNT(*) FROM t)", 1093,
     "Table 't' is specified twice, both as a target for 'INSERT' and as a separate source for data"),
    ("UPDATE t SET a = 'x' RETURNING id", 1064, None),
    ("DELETE t FROM t JOIN t AS t2 ON t.id = t2.id RETURNING t.id", 1064, None),
    ("INSERT INTO t (a) VALUES ('e') RETURNING id FROM t", 1064, None),
])
async def test_errors_as_mariadb_and_nothing_written(engine, db, sql, code, message):
    await run(engine, db, "INSERT INTO t (a, u) VALUES ('keep', 1)")
    with pytest.raises(SQLError) as failed:
        await run(engine, db, sql)
    assert failed.value.code == code
    if message is not None:
        assert failed.value.message == message
    assert await rows(engine, db, "SELECT id, a FROM t") == [(1, "keep")]


async def test_describe_gives_the_columns_without_writing(engine, db):
    described = await db.describe("INSERT INTO t (a, p) VALUES (0, 0) RETURNING id, p * 2 AS twice, a")
    assert described.columns == ["id", "twice", "a"] and described.rows == []
    assert [t.type for t in described.column_types] == [FieldType.LONG, FieldType.NEWDECIMAL, FieldType.VAR_STRING]
    assert await db.describe("INSERT INTO t (a) VALUES ('x')") is None
    assert await db.describe("DELETE FROM t WHERE id = 0 RETURNING *") is not None
    assert await rows(engine, db, "SELECT COUNT(*) FROM t") == [(0,)]
    with pytest.raises(SQLError) as failed:
        await db.describe("INSERT INTO t (a) VALUES ('x') RETURNING nosuch")
    assert failed.value.message == "Unknown column 'nosuch' in 'RETURNING'"


async def test_a_replica_replays_the_statement_to_the_same_rows(engine, db, tmp_path):
    written = await run(engine, db, "INSERT INTO t (a, p) VALUES ('x', 1.25), ('y', NULL) RETURNING id")
    deleted = await run(engine, db, "DELETE FROM t WHERE a = 'y' RETURNING id")
    replica = await Engine.open(tmp_path / "replica")
    try:
        setup = replica.session(1)
        await run(replica, setup, "CREATE DATABASE r")
        setup.database = "r"
        await run(replica, setup, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, a VARCHAR(10) NOT NULL, "
                                  "p DECIMAL(10,2), u INT UNIQUE)")
        for result in (written, deleted):
            for stmt in result.committed.statements:
                await replica.apply_transaction([(stmt.sql, stmt.context(), stmt.db)], {"pos": "1"})
        assert await rows(replica, setup, "SELECT * FROM t") == await rows(engine, db, "SELECT * FROM t") == \
            [(1, "x", "1.25", None)]
    finally:
        await replica.close()
