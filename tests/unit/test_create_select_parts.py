"""server/create_select.py: how a CREATE TABLE ... SELECT is cut into its definition list, table
options, IGNORE / REPLACE and SELECT (tests/integration/test_create_select_mariadb.py runs the
statements against MariaDB)."""

from __future__ import annotations

import pytest

from server.create_select import _CREATE_TABLE, _declared, _parts


def cut(sql: str):
    m = _CREATE_TABLE.match(sql)
    assert m is not None
    return _parts(sql, m.end())


def test_definitions_options_and_select_are_cut_as_written():
    parts = cut("CREATE TABLE t (a VARCHAR(5) DEFAULT ',)', KEY k (a), `select` INT) COMMENT='SELECT x' "
                "IGNORE AS SELECT 1 AS b")
    assert parts.declared == ["a VARCHAR(5) DEFAULT ',)'", "KEY k (a)", "`select` INT"]
    assert parts.options == "COMMENT='SELECT x'"
    assert (parts.duplicates, parts.select) == ("IGNORE", "SELECT 1 AS b")
    columns, keys = _declared(parts.declared)
    assert list(columns) == ["a", "select"] and keys == ["KEY k (a)"]


@pytest.mark.parametrize(("sql", "select"), [
    ("CREATE TABLE IF NOT EXISTS d.t (SELECT 1)", "(SELECT 1)"),
    ("CREATE TABLE t AS (SELECT 1)", "(SELECT 1)"),
    ("CREATE TABLE t ENGINE=InnoDB REPLACE SELECT 1;", "SELECT 1;"),
])
def test_without_definitions(sql, select):
    parts = cut(sql)
    assert parts.declared == [] and parts.select == select


@pytest.mark.parametrize("sql", ["CREATE TABLE t (a INT)", "CREATE TABLE t LIKE u",
                                 "CREATE TABLE t (a INT) COMMENT 'select'", "CREATE TABLE t (a INT"])
def test_no_select_is_not_ours(sql):
    assert cut(sql) is None
