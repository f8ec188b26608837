"""CHECKSUM TABLE in the engine (`engine.checksum`): the row CRCs as MariaDB's record makes them
(a few rows worked out by hand from MariaDB's record format), an empty table 0, QUICK NULL, a
missing table NULL with its error as a warning, a column type it cannot count refused (1235), a
transaction's own rows counted in its view, and the character sets a definition names kept in the
catalog (tests/integration/test_checksum_mariadb.py compares the numbers with MariaDB's)."""

from __future__ import annotations

import zlib

import pytest

from engine import Engine
from protocol.errors import SQLError


async def _engine(tmp_path, *setup: str) -> Engine:
    engine = await Engine.open(tmp_path / "db", readers=1)
    session = engine.session(1)
    session.database = None
    for sql in ("CREATE DATABASE d", *setup):
        await session.execute(sql)
        await engine.commit_group({})
    await session.close()
    return engine


async def _checksum(engine: Engine, sql: str):
    session = engine.session(2)
    session.database = "d"
    try:
        return await session.execute(sql)
    finally:
        await session.close()


async def test_rows_as_mariadbs_record(tmp_path):
    engine = await _engine(tmp_path,
                           "CREATE TABLE d.a (x INT NOT NULL)", "INSERT INTO d.a VALUES (1), (-2)",
                           "CREATE TABLE d.b (x INT, s VARCHAR(4))", "INSERT INTO d.b VALUES (NULL, 'ab')",
                           "CREATE TABLE d.c (c CHAR(2), y YEAR, t TIME(2))", "INSERT INTO d.c VALUES ('é', 2024, '-00:00:00.01')",
                           "CREATE TABLE d.e (x INT)")
    try:
        result = await _checksum(engine, "CHECKSUM TABLE a, b, c")
        # a: unpacked record, its one null byte all set (first bit, bits past the last);
        # b: packed (a VARCHAR): x's null bit set, s by its string value;
        # c: CHAR(2) utf8mb4 padded to 8 bytes, YEAR 2024-1900, TIME(2) -0.01s as 7F FF FF FF
        want_a = (zlib.crc32(b"\xff\x01\x00\x00\x00") + zlib.crc32(b"\xff\xfe\xff\xff\xff")) % 2**32
        want_b = zlib.crc32(b"ab", zlib.crc32(b"\xfd"))
        want_c = zlib.crc32(b"\xf1" + "é".encode() + b" " * 6 + bytes([124]) + b"\x7f\xff\xff\xff")
        assert result.columns == ["Table", "Checksum"]
        assert result.rows == [("d.a", want_a), ("d.b", want_b), ("d.c", want_c)]
    finally:
        await engine.close()


async def test_empty_quick_missing_and_refused(tmp_path):
    engine = await _engine(tmp_path, "CREATE TABLE d.e (x INT)", "CREATE TABLE d.f (x FLOAT(7,3))",
                           "CREATE VIEW d.v AS SELECT 1")
    try:
        result = await _checksum(engine, "CHECKSUM TABLE e, d.e QUICK")
        assert result.rows == [("d.e", None), ("d.e", None)]  # (QUICK: no live checksum, as InnoDB's)
        result = await _checksum(engine, "CHECKSUM TABLE e")
        assert result.rows == [("d.e", 0)]
        result = await _checksum(engine, "CHECKSUM TABLE nosuch, v, e EXTENDED")
        assert result.rows == [("d.nosuch", None), ("d.v", None), ("d.e", 0)]
        assert result.warnings == (("Error", 1146, "Table 'd.nosuch' doesn't exist"),
                                   ("Error", 1347, "'d.v' is not of type 'BASE TABLE'"))
        with pytest.raises(SQLError) as refused:
            await _checksum(engine, "CHECKSUM TABLE e, f")
        assert refused.value.code == 1235
        with pytest.raises(SQLError) as refused:
            await _checksum(engine, "CHECKSUM TABLE e QUICK, f")
        assert refused.value.code == 1064
    finally:
        await engine.close()


async def test_a_transaction_counts_its_own_rows(tmp_path):
    engine = await _engine(tmp_path, "CREATE TABLE d.a (x INT NOT NULL)")
    try:
        session = engine.session(3)
        session.database = "d"
        await session.execute("BEGIN")
        await session.execute("INSERT INTO a VALUES (1)")
        mine = await session.execute("CHECKSUM TABLE a")
        assert mine.rows == [("d.a", zlib.crc32(b"\xff\x01\x00\x00\x00"))]
        assert (await _checksum(engine, "CHECKSUM TABLE a")).rows == [("d.a", 0)]  # not committed
        await session.execute("ROLLBACK")
        await session.close()
    finally:
        await engine.close()


async def test_the_catalog_keeps_declared_character_sets(tmp_path):
    engine = await _engine(tmp_path,
                           "CREATE TABLE d.t (a CHAR(2), b CHAR(2) CHARACTER SET latin1, c CHAR(2) COLLATE utf8_bin,"
                           " n INT) DEFAULT CHARSET=ascii ROW_FORMAT=DYNAMIC",
                           "ALTER TABLE d.t DEFAULT CHARSET=latin1", "ALTER TABLE d.t ADD COLUMN d TEXT",
                           "CREATE TABLE d.u (a VARCHAR(2), e ENUM('x'))",
                           "ALTER TABLE d.u CONVERT TO CHARACTER SET latin1")
    try:
        t, u = engine.table("d", "t"), engine.table("d", "u")
        assert [c.charset for c in t.columns] == ["ascii", "latin1", "utf8mb3", None, "latin1"]
        assert t.row_format == "DYNAMIC"
        assert [c.charset for c in u.columns] == ["latin1", "latin1"]
    finally:
        await engine.close()
