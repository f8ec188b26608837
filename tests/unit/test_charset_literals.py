"""engine/charset_literals.py and the translation's reading of string literals: a latin1
connection's non-ASCII literal read by its bytes where MariaDB 10.11 reads its bytes (a binary
column, LENGTH, HEX, CAST AS BINARY), by its characters where it converts it (a column of
characters), refused with 1235 elsewhere; the statement a replica runs carries `_latin1 X'..'`,
which a utf8mb4 session (a replica's applier) reads back into the same bytes. MariaDB's answers
are held by tests/integration/test_client_charsets_mariadb.py."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.lexer import replace_literals
from protocol.charsets import ASCII, CHARSETS, LATIN1
from protocol.errors import SQLError
from tests.unit.test_engine import run


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    yield engine
    await engine.close()


async def _logged(engine, session, sql: str) -> str:
    """The statement a replica runs for the write `sql`."""
    (statement,) = (await run(engine, session, sql)).committed.statements
    return statement.sql


async def _refused(engine, session, sql: str) -> None:
    with pytest.raises(SQLError) as excinfo:
        await run(engine, session, sql)
    assert excinfo.value.code == 1235, sql


async def _sessions(engine):
    """A utf8 session that made d.t, and a latin1 one on d."""
    utf8 = engine.session(1)
    await run(engine, utf8, "CREATE DATABASE d")
    utf8.database = "d"
    await run(engine, utf8, "CREATE TABLE t (id INT PRIMARY KEY, b BLOB, vb VARBINARY(10), bn BINARY(6),"
                            " v VARCHAR(10), x TEXT)")
    latin1 = engine.session(2)
    latin1.database = "d"
    latin1.connection_charset = LATIN1
    return utf8, latin1


async def _hex_row(engine, session, row: int) -> tuple:
    result = await run(engine, session, f"SELECT HEX(b), HEX(vb), HEX(bn), HEX(v), HEX(x) FROM t WHERE id = {row}")
    return tuple(result.rows[0])


async def test_a_latin1_literal_is_its_bytes_in_a_binary_column_and_its_characters_in_a_text_one(engine):
    utf8, latin1 = await _sessions(engine)
    logged = await _logged(engine, latin1, "INSERT INTO t VALUES (1, 'café', 'café', 'café', 'café', 'café')")
    assert await _hex_row(engine, utf8, 1) == ("636166E9", "636166E9", "636166E90000", "636166C3A9", "636166C3A9")
    # the replica's statement: the literal's latin1 bytes, introduced
    assert logged == ("INSERT INTO t VALUES (1, _latin1 X'636166E9', _latin1 X'636166E9', _latin1 X'636166E9',"
                      " _latin1 X'636166E9', _latin1 X'636166E9')")
    # which a utf8mb4 session (a replica's applier) stores as the master did
    await run(engine, utf8, logged.replace("(1,", "(2,"))
    assert await _hex_row(engine, utf8, 2) == await _hex_row(engine, utf8, 1)
    # an ASCII literal, and a utf8 connection's, as they were
    for session, sql in ((latin1, "INSERT INTO t (id, b, v) VALUES (3, 'ab', 'ab')"),
                         (utf8, "INSERT INTO t (id, b, v) VALUES (4, 'é', 'é')")):
        assert await _logged(engine, session, sql) == sql
    assert (await run(engine, utf8, "SELECT LENGTH('é'), HEX(b), 'ü' = 'y' FROM t WHERE id = 4")).rows == [(2, "C3A9", 0)]


async def test_an_update_and_an_upsert_store_a_latin1_literal_by_the_column(engine):
    utf8, latin1 = await _sessions(engine)
    await run(engine, latin1, "INSERT INTO t (id) VALUES (1)")
    assert await _logged(engine, latin1, "UPDATE t SET b = 'ñ', x = 'ñ' WHERE id = 1") == (
        "UPDATE t SET b = _latin1 X'F1', x = _latin1 X'F1' WHERE id = 1")
    await run(engine, latin1, "INSERT INTO t (id, vb) VALUES (1, 'x') ON DUPLICATE KEY UPDATE vb = 'þ'")
    assert await _hex_row(engine, utf8, 1) == ("F1", "FE", None, None, "C3B1")


async def test_byte_functions_read_a_latin1_literals_bytes_and_char_length_its_characters(engine):
    _, latin1 = await _sessions(engine)
    result = await run(engine, latin1, "SELECT LENGTH('é'), HEX('é'), CHAR_LENGTH('é'), OCTET_LENGTH('€'),"
                                       " HEX(CAST('é' AS BINARY)), HEX(BINARY 'é'), HEX(_binary 'é'), 'é'")
    assert result.rows == [(1, "E9", 1, 1, "E9", "E9", "E9", "é")]


async def test_a_latin1_literal_compared_with_a_column_is_read_as_that_column_reads_it(engine):
    utf8, latin1 = await _sessions(engine)
    await run(engine, latin1, "INSERT INTO t (id, b, v) VALUES (1, 'café', 'café')")
    for where in ("b = 'café'", "'café' = b", "b IN ('x', 'café')", "v = 'CAFÉ'", "v IN ('CAFÉ')", "v LIKE 'caf%é'"):
        assert (await run(engine, latin1, f"SELECT id, HEX(b) FROM t WHERE {where}")).rows == [(1, "636166E9")], where
    assert (await run(engine, latin1, "SELECT CONCAT(v, 'ß') FROM t")).rows == [("caféß",)]


async def test_a_latin1_literal_anywhere_else_is_refused_with_1235(engine):
    _, latin1 = await _sessions(engine)
    for sql in ("SELECT 'ü' = 'y'",  # latin1_swedish_ci: 1 in MariaDB
                "SELECT HEX(UPPER('é'))",  # C9 in MariaDB
                "INSERT INTO t (id, b) VALUES (1, CONCAT('é', 'x'))",  # E978 in MariaDB
                "SELECT LENGTH(CONCAT('é', 'a'))",
                "SELECT LENGTH(_utf8mb4 'é')",  # the latin1 byte read as utf8mb4 in MariaDB
                "SELECT 'é' UNION SELECT 'x'"):
        await _refused(engine, latin1, sql)


async def test_a_select_item_is_refused_where_the_answer_would_be_its_own_bytes(engine):
    _, latin1 = await _sessions(engine)
    latin1.items_converted = False  # character_set_results NULL: MariaDB sends E9, charsetnr 8
    await _refused(engine, latin1, "SELECT 'é'")
    assert (await run(engine, latin1, "SELECT LENGTH('é'), 'abc'")).rows == [(1, "abc")]


async def test_latin1_introduced_literals_are_latin1_on_any_connection(engine):
    utf8, latin1 = await _sessions(engine)
    await run(engine, utf8, "INSERT INTO t (id, b, v) VALUES (1, _latin1 X'E9', _latin1 X'E9')")
    # on a utf8 connection `_latin1 'é'` is the two bytes of its UTF-8 read as latin1: 'Ã©'
    assert await _logged(engine, utf8, "INSERT INTO t (id, b, v) VALUES (2, _latin1 'é', _latin1 'é')") == (
        "INSERT INTO t (id, b, v) VALUES (2, _latin1 X'C3A9', _latin1 X'C3A9')")
    await run(engine, latin1, "INSERT INTO t (id, b, v) VALUES (3, _latin1 'é', _binary 'x')")
    assert [await _hex_row(engine, utf8, n) for n in (1, 2, 3)] == [
        ("E9", None, None, "C3A9", None), ("C3A9", None, None, "C383C2A9", None), ("E9", None, None, "78", None)]


async def test_ddl_keeping_a_latin1_literal_where_its_bytes_matter_is_refused(engine):
    _, latin1 = await _sessions(engine)
    await run(engine, latin1, "CREATE TABLE t2 (id INT PRIMARY KEY, v VARCHAR(5) DEFAULT 'é', e ENUM('é', 'x'))")
    await run(engine, latin1, "ALTER TABLE t2 ADD COLUMN w VARBINARY(4) DEFAULT 'x'")
    for sql in ("ALTER TABLE t2 ADD COLUMN z VARBINARY(4) DEFAULT 'ü'",  # MariaDB's DEFAULT: FC
                "CREATE TABLE t3 (id INT PRIMARY KEY, v VARCHAR(5) CHECK (v <> 'é'))",
                "CREATE VIEW w AS SELECT 'é' AS x"):
        await _refused(engine, latin1, sql)


async def test_another_connection_character_set_refuses_a_non_ascii_literal(engine):
    _, session = await _sessions(engine)
    session.connection_charset = ASCII
    await _refused(engine, session, "INSERT INTO t (id, v) VALUES (1, 'é')")


async def test_a_cp1251_or_gbk_literal_is_its_bytes_in_a_binary_column_and_logged_introduced(engine):
    utf8, session = await _sessions(engine)
    for n, (name, text, raw) in enumerate((("cp1251", "Жук", "C6F3EA"), ("gbk", "中文", "D6D0CEC4")), 1):
        session.connection_charset = CHARSETS[name]
        logged = await _logged(engine, session, f"INSERT INTO t (id, b, v) VALUES ({n}, '{text}', '{text}')")
        assert logged == f"INSERT INTO t (id, b, v) VALUES ({n}, _{name} X'{raw}', _{name} X'{raw}')"
        assert await _hex_row(engine, utf8, n) == (raw, None, None, text.encode().hex().upper(), None)
        # the replica's statement, on a utf8mb4 session, stores the same
        await run(engine, utf8, logged.replace(f"({n},", f"({n + 10},"))
        assert await _hex_row(engine, utf8, n + 10) == await _hex_row(engine, utf8, n)
        result = await run(engine, session, f"SELECT LENGTH('{text}'), HEX('{text}'), CHAR_LENGTH('{text}')")
        assert result.rows == [(len(raw) // 2, raw, len(text))]
        await _refused(engine, session, f"SELECT '{text}' = 'x'")  # under its own collation in MariaDB
    await _refused(engine, session, "INSERT INTO t (id, v) VALUES (5, _cp1251 'Ж')")  # on a gbk connection


def test_replace_literals_rewrites_the_literals_named_by_their_index():
    sql = "INSERT INTO t VALUES (1, 'café', _binary 'é', /*!'x'*/ `q'`, \"é\") -- 'c'"
    assert replace_literals(sql, {1: "_latin1 X'636166E9'", 2: "X'E9'", 4: "_latin1 X'E9'"}) == (
        "INSERT INTO t VALUES (1, _latin1 X'636166E9', _binary X'E9',  'x'  `q'`, _latin1 X'E9') -- 'c'")
