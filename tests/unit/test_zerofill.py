"""ZEROFILL columns and YEAR in the engine, without a server: the definition (ZEROFILL makes the
column UNSIGNED, SHOW CREATE TABLE's words), the result column's ZEROFILL flag on the column and
on a derived table's or a view's column but on no expression over it, the rows sent padded to the
display width (YEAR 0 '0000'), and a string function's argument read as the padded text
(tests/integration/test_zerofill_mariadb.py compares all of it with MariaDB)."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.catalog import Column
from engine.coltypes import converter, declared_type, zerofill_text
from protocol.messages import ColumnFlag, FieldType
from tests.unit.test_engine import run

ZEROFILL = ColumnFlag.ZEROFILL


def test_a_zerofill_declaration_is_unsigned_and_padded_to_its_width():
    a = Column("a", "int", ["5"], unsigned=True, zerofill=True)
    assert a.type_text == "int(5) unsigned zerofill"
    assert Column("g", "tinyint", unsigned=True, zerofill=True).type_text == "tinyint(3) unsigned zerofill"
    assert Column("y", "year").type_text == "year(4)"
    ct = declared_type("int", ["5"], True, False, True)
    assert ct.flags & (ZEROFILL | ColumnFlag.UNSIGNED) == ZEROFILL | ColumnFlag.UNSIGNED
    floats = declared_type("float", ["7", "2"], True, False, True)
    assert (floats.length, floats.decimals) == (7, 2)
    year = declared_type("year", [], False, False)
    convert = converter([ct, floats, declared_type("decimal", ["8", "2"], True, False, True), year,
                         declared_type("int", ["5"], True, False)])
    assert convert((42, 3.5, "1.50", 0, 42)) == ("00042", "0003.50", "000001.50", "0000", 42)
    assert convert((123456, None, "123456.78", 2024, 7)) == ("123456", None, "123456.78", "2024", 7)
    assert converter([declared_type("int", ["5"], True, False)])((42,)) == (42,)  # (no padding: unchanged)
    assert zerofill_text(2.25, 22, 31, FieldType.DOUBLE) == "0000000000000000002.25"
    assert zerofill_text(None, 5, 0, FieldType.LONG) is None


@pytest.fixture
async def session(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE d")
    session.database = "d"
    await run(engine, session, "CREATE TABLE z (id INT PRIMARY KEY, a INT(5) ZEROFILL, e DECIMAL(6,2) ZEROFILL,"
                               " y YEAR)")
    await run(engine, session, "INSERT INTO z VALUES (1, 42, 1.5, 0), (2, 123456, 12.25, 2024)")
    await run(engine, session, "CREATE VIEW v AS SELECT a FROM z")
    yield engine, session
    await engine.close()


async def _answer(session, sql: str):
    engine, s = session
    result = await run(engine, s, sql)
    return [tuple(row) for row in result.rows], [ct.flags & ZEROFILL for ct in result.column_types]


async def test_the_column_is_padded_and_an_expression_over_it_is_not(session):
    assert await _answer(session, "SELECT a, e, y FROM z ORDER BY id") == (
        [("00042", "0001.50", "0000"), ("123456", "0012.25", "2024")], [ZEROFILL] * 3)
    assert await _answer(session, "SELECT x.a FROM (SELECT a FROM z) x ORDER BY 1") == (
        [("00042",), ("123456",)], [ZEROFILL])
    assert await _answer(session, "SELECT a FROM v ORDER BY a") == ([("00042",), ("123456",)], [ZEROFILL])
    assert await _answer(session, "SELECT a + 0, MAX(a), MAX(y) FROM z WHERE id = 1") == ([(42, 42, 0)], [0, 0, 0])
    assert await _answer(session, "SELECT a FROM z UNION ALL SELECT a FROM z WHERE id = 1") == (
        [(42,), (123456,), (42,)], [0])
    engine, s = session
    shown = (await run(engine, s, "SHOW CREATE TABLE z")).rows[0][1]
    assert "`a` int(5) unsigned zerofill DEFAULT NULL" in shown and "`y` year(4) DEFAULT NULL" in shown


async def test_a_string_function_reads_the_padded_text(session):
    rows, _ = await _answer(session, "SELECT CONCAT(a, '|', e, '|', y), LENGTH(a), LPAD(a, 7, '*'),"
                                     " CAST(a AS CHAR), a LIKE '000%' FROM z ORDER BY id")
    assert rows == [("00042|0001.50|0000", 5, "**00042", "00042", 1), ("123456|0012.25|2024", 6, "*123456", "123456", 0)]
    assert await _answer(session, "SELECT id FROM z WHERE CONCAT(a) = '00042' AND a = 42") == ([(1,)], [0])
