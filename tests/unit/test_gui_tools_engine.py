"""The engine's and the accounts' parts of what GUI tools read (against MariaDB:
tests/integration/test_gui_tools_mariadb.py): information_schema columns named as the statement
writes them, EXPLAIN PARTITIONS (and EXTENDED refused), SHOW CREATE TABLE of a view, and the
grants as USER_ / SCHEMA_ / TABLE_PRIVILEGES list them."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from protocol.messages import ColumnFlag
from server.users import ALL, REPLICATION_CLIENT, Account


@pytest.fixture
async def session(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    session = engine.session(1)
    await session.execute("CREATE DATABASE d")
    await session.execute("CREATE TABLE d.p (id INT PRIMARY KEY, name VARCHAR(20))")
    await session.execute("CREATE VIEW d.v AS SELECT id, name FROM d.p")
    await engine.commit_group({})
    session.database = "d"
    try:
        yield session
    finally:
        await engine.close()


async def test_information_schema_columns_are_named_as_written(session):
    result = await session.execute("SELECT table_name, t.Table_Type, TABLE_SCHEMA AS s FROM information_schema.tables t"
                                   " WHERE table_schema = 'd' ORDER BY table_name")
    assert result.columns == ["table_name", "Table_Type", "s"]
    assert [tuple(r) for r in result.rows] == [("p", "BASE TABLE", "d"), ("v", "VIEW", "d")]
    result = await session.execute("SELECT collation_name, is_default FROM"
                                   " information_schema.collation_character_set_applicability WHERE id = 45")
    assert (result.columns, [tuple(r) for r in result.rows]) == (["collation_name", "is_default"],
                                                                  [("utf8mb4_general_ci", "Yes")])
    result = await session.execute("SELECT * FROM information_schema.PARAMETERS")
    assert result.columns[:3] == ["SPECIFIC_CATALOG", "SPECIFIC_SCHEMA", "SPECIFIC_NAME"] and not result.rows
    result = await session.execute("SELECT TABLE_NAME, PARTITION_NAME, TABLE_ROWS FROM information_schema.PARTITIONS"
                                   " WHERE TABLE_SCHEMA = 'd'")
    assert [tuple(r) for r in result.rows] == [("p", None, 0)]  # a table, not partitioned; no view


async def test_explain_partitions_adds_a_null_partitions_column_and_extended_is_refused(session):
    plain = await session.execute("EXPLAIN SELECT * FROM p WHERE id = 1")
    partitions = await session.execute("EXPLAIN PARTITIONS SELECT * FROM p WHERE id = 1")
    assert partitions.columns == [*plain.columns[:3], "partitions", *plain.columns[3:]]
    assert [tuple(r) for r in partitions.rows] == [(*r[:3], None, *r[3:]) for r in plain.rows]
    with pytest.raises(SQLError) as refused:
        await session.execute("EXPLAIN EXTENDED SELECT * FROM p")
    assert refused.value.error.code == 1235


async def test_show_create_table_of_a_view_answers_as_show_create_view(session):
    table = await session.execute("SHOW CREATE TABLE v")
    view = await session.execute("SHOW CREATE VIEW v")
    assert table.columns == view.columns == ["View", "Create View", "character_set_client", "collation_connection"]
    assert table.rows == view.rows


def test_privilege_rows_list_each_level_in_mariadbs_order():
    account = Account("u1", "%", privileges={"PROCESS", REPLICATION_CLIENT, "SELECT"},
                      databases={"d": {"INSERT", "SELECT", "GRANT OPTION"}}, tables={("d", "p"): {"UPDATE"}})
    assert account.privilege_rows("user_privileges") == [
        ("'u1'@'%'", "def", p, "NO") for p in ("SELECT", "PROCESS", "BINLOG MONITOR")]
    assert account.privilege_rows("schema_privileges") == [
        ("'u1'@'%'", "def", "d", p, "YES") for p in ("SELECT", "INSERT")]
    assert account.privilege_rows("table_privileges") == [("'u1'@'%'", "def", "d", "p", "UPDATE", "NO")]
    assert Account("u3", "%").privilege_rows("user_privileges") == [("'u3'@'%'", "def", "USAGE", "NO")]
    every = Account("u2", "localhost", privileges={ALL}, grant_option=True).privilege_rows("user_privileges")
    assert every[0] == ("'u2'@'localhost'", "def", "SELECT", "YES") and len(every) == 38


async def test_columns_without_a_default_are_flagged_as_mariadbs(session):
    """NO_DEFAULT_VALUE on a NOT NULL column without a default (not on what is computed from it)
    and on every column of an information_schema view or SHOW listing, whose long texts are
    MariaDB's Longtext(65535) (a default's text 65532) in utf8mb4."""
    await session.execute("CREATE TABLE f (a INT PRIMARY KEY AUTO_INCREMENT, b INT NOT NULL, c INT NOT NULL DEFAULT 1,"
                           " d INT, e TEXT NOT NULL)")
    await session.engine.commit_group({})
    result = await session.execute("SELECT a, b, c, d, e, MAX(b), (SELECT b FROM f LIMIT 1) FROM f")
    flagged = [bool(ct.flags & ColumnFlag.NO_DEFAULT_VALUE) for ct in result.column_types]
    assert flagged == [False, True, False, False, True, False, False]
    result = await session.execute("SELECT TABLE_NAME, CHECK_OPTION, VIEW_DEFINITION FROM information_schema.VIEWS")
    no_default = ColumnFlag.NO_DEFAULT_VALUE | ColumnFlag.NOT_NULL
    assert [(ct.flags, ct.length) for ct in result.column_types] == [
        (no_default, 256), (no_default, 32), (no_default | ColumnFlag.BLOB, 786420)]
    listing = await session.execute("SHOW FULL COLUMNS FROM p")
    assert [ct.length for ct in listing.column_types][1::4] == [786420, 786384]  # Type, Default


async def test_describing_a_view_lists_its_columns_and_one_it_cannot_tell_is_not_supported(session):
    for sql in ("DESCRIBE v", "SHOW COLUMNS FROM d.v"):
        listing = await session.execute(sql)
        assert listing.rows == [("id", "int(11)", "NO", "", None, ""), ("name", "varchar(20)", "YES", "", None, "")]
    full = await session.execute("SHOW FULL COLUMNS FROM v")
    assert [row[2] for row in full.rows] == [None, "utf8mb4_general_ci"]
    await session.execute("CREATE VIEW d.v2 AS WITH c AS (SELECT name FROM d.p) SELECT name FROM c")
    with pytest.raises(SQLError) as refused:
        await session.execute("DESCRIBE v2")
    assert refused.value.error.code == 1235
