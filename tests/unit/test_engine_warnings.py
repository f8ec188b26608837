"""engine/: the warnings of expressions (1365, 1292) and the notes 1592 of writes unsafe to binlog
as statements, in `Result.warnings` (tests/integration/test_warnings_mariadb.py holds them equal
to MariaDB's)."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.lexer import extract, tokenize
from engine.unsafe import unsafe_notes
from engine.values import number_warning

DIVISION = ("Warning", 1365, "Division by 0")


@pytest.fixture
async def db(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    for sql in ("CREATE DATABASE test", "CREATE TABLE test.t (id INT PRIMARY KEY, a INT, b INT)",
                "INSERT INTO test.t VALUES (1, 5, 0), (2, 6, 2), (3, NULL, 0)"):
        if (await session.execute(sql)).committed is not None:
            async with engine.writer_lock:
                await engine.commit_group({"last": sql[:40]})
    session.database = "test"
    yield session
    await engine.close()


async def test_a_division_by_zero_warns_per_row_with_a_dividend(db):
    assert (await db.execute("SELECT 1/0, NULL/0, 5 DIV 0, MOD(5, 0)")).warnings == (DIVISION,) * 3
    assert (await db.execute("SELECT a/b FROM t")).warnings == (DIVISION,)
    assert (await db.execute("SELECT a/b FROM t WHERE id = 2")).warnings == ()
    assert (await db.execute("DO 1/0")).warnings == (DIVISION,)


async def test_a_string_literal_read_as_a_number_warns(db):
    result = await db.execute("SELECT 'abc' + 1, '12 ' + 0, CAST('12abc' AS SIGNED), GREATEST(1, 'a')")
    assert result.warnings == (
        ("Warning", 1292, "Truncated incorrect DOUBLE value: 'abc'"),
        ("Note", 1292, "Truncated incorrect DOUBLE value: '12 '"),
        ("Warning", 1292, "Truncated incorrect INTEGER value: '12abc'"),
        ("Warning", 1292, "Truncated incorrect DOUBLE value: 'a'"),
    )
    # the same shape with numbers: another plan, no warning
    assert (await db.execute("SELECT 2 + 1, 12 + 0, CAST(12 AS SIGNED), GREATEST(1, 2)")).warnings == ()


async def test_an_unsafe_write_notes_1592_only_when_binlogged(db):
    result = await db.execute("UPDATE IGNORE t SET a = 1 WHERE id = 1")
    assert [(level, code) for level, code, _ in result.warnings] == [("Note", 1592)]
    assert "UPDATE IGNORE is unsafe" in result.warnings[0][2]
    assert "Warnings: 1" in result.info
    db.sql_log_bin = False
    assert (await db.execute("UPDATE IGNORE t SET a = 2 WHERE id = 1")).warnings == ()


def notes(sql: str, *keys: int, **tables: bool) -> list[str]:
    return [note.split("STATEMENT. ")[1][:20] for note in unsafe_notes(tokenize(extract(sql)[0]), *keys, **tables)]


def test_unsafe_notes_in_mariadb_order():
    assert notes("UPDATE t SET a = 1 WHERE id = 1") == []
    assert notes("UPDATE IGNORE t SET a = LENGTH(UUID()) LIMIT 1") == [
        "The statement is uns", "Statement is unsafe ", "UPDATE IGNORE is uns"]
    assert notes("INSERT INTO t VALUES (1, RAND(), @@foreign_key_checks)") == []
    assert notes("REPLACE INTO t VALUES (1, RAND(), @@global.foreign_key_checks)") == [
        "Statement is unsafe ", "Statement is unsafe "]
    assert notes("INSERT IGNORE INTO t SELECT * FROM u", selects=True) == ["INSERT IGNORE... SEL"]
    assert notes("INSERT INTO t SELECT * FROM u ON DUPLICATE KEY UPDATE a = 1", selects=True) == ["INSERT... SELECT... "]
    assert notes("REPLACE INTO t SELECT * FROM u", selects=True) == ["REPLACE... SELECT is"]
    # a subquery in VALUES is no SELECT source; a table with AUTO_INCREMENT written reading one
    assert notes("REPLACE INTO t VALUES ((SELECT MAX(a) FROM u))") == []
    assert notes("REPLACE INTO t SELECT * FROM u", selects=True, autoinc_select=True) == [
        "Statements writing t", "REPLACE... SELECT is"]
    assert notes("INSERT INTO t SELECT * FROM u ON DUPLICATE KEY UPDATE a = 1", 2, selects=True) == [
        "INSERT... SELECT... "]
    assert notes("INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1", 2) == ["INSERT... ON DUPLICA"]
    assert notes("INSERT INTO t (user) VALUES (CURRENT_USER)") == ["Statement is unsafe "]


def test_number_warning():
    assert number_warning(" 12", "DOUBLE") is None and number_warning("1e5", "DOUBLE") is None
    assert number_warning("12 ", "INTEGER")[0] == "Note"
    assert number_warning("1.5", "INTEGER")[0] == "Warning" and number_warning("1.5", "DOUBLE") is None
    assert number_warning("", "DECIMAL") == ("Warning", 1292, "Truncated incorrect DECIMAL value: ''")
