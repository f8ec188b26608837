"""engine/: a database's options (CREATE / ALTER DATABASE's character set, collation and comment,
MariaDB's db.opt) kept in its file's catalog across a restart, shown by SHOW CREATE DATABASE and
SCHEMATA, taken by the tables made in it without their own, and the options' parser's errors."""

from __future__ import annotations

import pytest

from engine import Engine
from engine.catalog import (
    COLLATION_CHARSETS,
    DatabaseOptions,
    TokenCursor,
    collation_named,
    parse_database_options,
)
from engine.lexer import extract, tokenize
from protocol.errors import SQLError
from tests.unit.test_engine import run


async def rows(engine, session, sql):
    return [tuple(r) for r in (await run(engine, session, sql)).rows]


def parsed(text: str, options: DatabaseOptions | None = None) -> DatabaseOptions:
    shape, literals = extract(text)
    return parse_database_options(TokenCursor(tokenize(shape), literals, text), options or DatabaseOptions())


def test_options_resolve_as_mariadb_resolves_them():
    assert parsed("CHARACTER SET latin1") == DatabaseOptions("latin1", "latin1_swedish_ci")
    assert parsed("COLLATE latin1_german1_ci COMMENT 'x'") == DatabaseOptions("latin1", "latin1_german1_ci", "x")
    assert parsed("DEFAULT CHARSET = utf8 DEFAULT COLLATE = 'utf8_bin'") == DatabaseOptions("utf8mb3", "utf8mb3_bin")
    assert parsed("CHARACTER SET DEFAULT") == DatabaseOptions()
    assert parsed("CHARSET binary") == DatabaseOptions("binary", "binary")
    before = DatabaseOptions("latin1", "latin1_bin", "kept")
    assert parsed("COMMENT 'new'", before) == DatabaseOptions("latin1", "latin1_bin", "new")
    assert parsed("CHARACTER SET ascii", before) == DatabaseOptions("ascii", "ascii_general_ci", "kept")


@pytest.mark.parametrize(("text", "code"), [
    ("CHARACTER SET nosuch", 1115), ("COLLATE nosuch", 1273), ("CHARACTER SET latin1 COLLATE utf8mb4_bin", 1253),
    ("COLLATE latin1_bin CHARSET utf8mb4", 1253), ("CHARACTER SET latin1 CHARACTER SET utf8mb4", 1302),
    ("COLLATE latin1_bin COLLATE latin1_swedish_ci", 1302), ("COLLATE uca1400_ai_ci", 1235), ("", 1064),
    ("ENGINE = InnoDB", 1064),
])
def test_options_refused_as_mariadb_refuses_them(text, code):
    with pytest.raises(SQLError) as e:
        parsed(text)
    assert e.value.code == code


def test_every_collation_has_its_character_set():
    assert len(COLLATION_CHARSETS) == 322  # MariaDB 10.11's information_schema.COLLATIONS with one
    assert collation_named("UTF8_Unicode_CI") == ("utf8mb3", "utf8mb3_unicode_ci")
    assert collation_named("latin1_swedish_nopad_ci") == ("latin1", "latin1_swedish_nopad_ci")


async def test_options_kept_across_a_restart_and_taken_by_tables(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE l COLLATE latin1_german1_ci COMMENT 'it''s'")
    await run(engine, session, "CREATE DATABASE u CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
    await run(engine, session, "CREATE DATABASE plain")
    await run(engine, session, "ALTER DATABASE u COMMENT 'bin'")
    await run(engine, session, "CREATE TABLE u.t (a VARCHAR(3), b VARCHAR(3) COLLATE utf8mb4_general_ci)")
    await run(engine, session, "INSERT INTO u.t VALUES ('a', 'a'), ('A', 'A')")
    # a utf8mb4_bin database's table compares its columns in binary unless they say otherwise
    assert await rows(engine, session, "SELECT COUNT(*) FROM u.t WHERE a = 'a'") == [(1,)]
    assert await rows(engine, session, "SELECT COUNT(*) FROM u.t WHERE b = 'a'") == [(2,)]
    await engine.close()

    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        assert engine.options_of("l") == DatabaseOptions("latin1", "latin1_german1_ci", "it's")
        assert engine.options_of("plain") == DatabaseOptions()
        assert await rows(engine, session, "SHOW CREATE DATABASE u") == [
            ("u", "CREATE DATABASE `u` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin */ COMMENT 'bin'")]
        assert await rows(engine, session, "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME,"
                                           " SCHEMA_COMMENT FROM information_schema.SCHEMATA ORDER BY 1") == [
            ("information_schema", "utf8mb3", "utf8mb3_general_ci", ""), ("l", "latin1", "latin1_german1_ci", "it's"),
            ("performance_schema", "utf8mb3", "utf8mb3_general_ci", ""), ("plain", "utf8mb4", "utf8mb4_general_ci", ""),
            ("u", "utf8mb4", "utf8mb4_bin", "bin")]
        session.database = "l"
        assert session.collation_database == "latin1_german1_ci"
        await run(engine, session, "CREATE TABLE t (a VARCHAR(3), b TEXT CHARACTER SET latin1)")
        shown = (await rows(engine, session, "SHOW CREATE TABLE t"))[0][1]
        assert shown.endswith("DEFAULT CHARSET=latin1 COLLATE=latin1_german1_ci")
        assert "`b` text CHARACTER SET latin1 COLLATE latin1_swedish_ci" in shown and "`a` varchar(3) DEFAULT" in shown
        await run(engine, session, "ALTER DATABASE CHARACTER SET utf8mb3")
        assert session.collation_database == "utf8mb3_general_ci"
        await run(engine, session, "DROP DATABASE l")
        assert session.database is None and session.collation_database == "utf8mb4_general_ci"
        with pytest.raises(SQLError) as e:
            await run(engine, session, "ALTER DATABASE COMMENT 'x'")
        assert e.value.code == 1046
        with pytest.raises(SQLError) as e:
            await run(engine, session, "ALTER DATABASE l COMMENT 'x'")
        assert (e.value.code, e.value.message) == (
            1, "Can't create/write to file './l/db.opt' (Errcode: 2 \"No such file or directory\")")
    finally:
        await engine.close()


async def test_information_schema_text_sorts_without_case_but_names_match_as_written(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        await run(engine, session, "CREATE DATABASE d")
        session.database = "d"
        await run(engine, session, "CREATE TABLE t1 (id INT PRIMARY KEY)")
        await run(engine, session, "CREATE TABLE f (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES t1(id))")
        assert await rows(engine, session, "SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS"
                                           " WHERE TABLE_SCHEMA = 'd' ORDER BY CONSTRAINT_NAME") == [
            ("f_ibfk_1",), ("PRIMARY",), ("PRIMARY",)]
        assert await rows(engine, session, "SELECT COUNT(*) FROM information_schema.COLUMNS"
                                           " WHERE TABLE_NAME = 't1' AND COLUMN_NAME = 'ID'") == [(1,)]
        # a table looked up by its name (MariaDB's lookup field) matches only as written
        assert await rows(engine, session, "SELECT COUNT(*) FROM information_schema.COLUMNS"
                                           " WHERE TABLE_NAME = 'T1'") == [(0,)]
    finally:
        await engine.close()
