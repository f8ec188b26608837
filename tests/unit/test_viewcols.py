"""`engine.viewcols`: a view's stand-in columns from its SELECT's result types; the column
MariaDB makes for an expression's result (a view's, CREATE TABLE ... SELECT's); IS_UPDATABLE;
`exprtypes.outer_joined`, which makes an outer join's side nullable."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import viewcols
from engine.catalog import Column, Table
from engine.coltypes import DOUBLE, NULL_TYPE, datetime_type, decimal_type, int_type, varchar
from engine.exprtypes import grouping, outer_joined, select_items
from engine.lexer import extract, tokenize
from protocol.messages import ColumnFlag, FieldType

BASE = Table("d", "t", [Column("id", "int", ["11"], nullable=False), Column("k", "int", ["11"], nullable=False,
                                                                            auto_increment=True)])


def lookup(schema: str, name: str) -> Table | None:
    return BASE if (schema, name) == ("d", "t") else None


def origin_types() -> list:
    return [replace(BASE.result_type(c), origin=("d", "t", "t", c.name)) for c in BASE.columns]


def test_a_tables_column_is_that_column_and_an_auto_increment_one_defaults_to_zero():
    table = viewcols.stand_in("d", "w", ["id", "kk"], origin_types(), lookup, [None, None])
    assert table.describe() == [("id", "int(11)", "NO", "", None, ""), ("kk", "int(11)", "NO", "", "0", "")]


def test_a_column_an_outer_join_makes_nullable_keeps_no_default():
    types = [replace(ct, flags=ct.flags & ~ColumnFlag.NOT_NULL) for ct in origin_types()]
    table = viewcols.stand_in("d", "w", ["id", "k"], types, lookup, [None, None])
    assert table.describe() == [("id", "int(11)", "YES", "", None, ""), ("k", "int(11)", "YES", "", "0", "")]
    assert [table.null_default(c) for c in table.columns] == [False, True]


def test_expressions_are_typed_as_mariadbs_fields_and_what_is_not_told_is_unknown():
    types = [int_type(1, ColumnFlag.BINARY | ColumnFlag.NOT_NULL), varchar(3, flags=ColumnFlag.NOT_NULL), NULL_TYPE,
             varchar(0, flags=ColumnFlag.NOT_NULL), varchar(600), datetime_type(FieldType.DATETIME, 0, ColumnFlag.NOT_NULL),
             decimal_type(3, 1, ColumnFlag.NOT_NULL)]
    table = viewcols.stand_in("d", "w", ["lit", "s", "nl", "e", "long", "now", "dc"], types, lookup, [None] * 7)
    assert table.describe() == [("lit", "int(1)", "NO", "", "0", ""), ("s", "varchar(3)", "NO", "", "", ""),
                                ("nl", "binary(0)", "YES", "", None, ""), ("e", "char(0)", "NO", "", "", ""),
                                ("long", "text", "YES", "", None, ""),
                                ("now", "datetime /* mariadb-5.3 */", "NO", "", "0000-00-00 00:00:00", ""),
                                ("dc", "decimal(3,1)", "NO", "", "0.0", "")]
    with pytest.raises(viewcols.Unknown):  # (typed from its rows: not told)
        viewcols.stand_in("d", "w", ["y"], [None], lookup, [None])


def test_create_select_column_types_from_result_types():
    """CREATE TABLE ... SELECT's column for an expression's result type, as MariaDB 10.11 makes
    it (tests/integration/test_create_select_mariadb.py compares whole tables)."""
    ddl = viewcols.expression_ddl
    assert ddl(int_type(1, ColumnFlag.NOT_NULL)) == "int(1) NOT NULL"
    assert ddl(decimal_type(30, 2)) == "decimal(30,2) DEFAULT NULL"
    assert ddl(decimal_type(2, 1, ColumnFlag.NOT_NULL)) == "decimal(2,1) NOT NULL"
    assert ddl(varchar(21)) == "varchar(21) DEFAULT NULL"
    assert ddl(NULL_TYPE) == "binary(0) DEFAULT NULL"
    assert ddl(DOUBLE) == "double DEFAULT NULL"
    assert ddl(datetime_type(12, 0, ColumnFlag.NOT_NULL)) == "datetime NOT NULL"
    assert ddl(varchar(0, flags=ColumnFlag.NOT_NULL)) == "char(0) NOT NULL"
    assert ddl(varchar(900)) == "text DEFAULT NULL"


def tokens(sql: str) -> list:
    return tokenize(extract(sql)[0])


def from_at(sql: str) -> frozenset[str] | None:
    toks = tokens(sql)
    return outer_joined(toks, next(k for k, t in enumerate(toks) if t.is_word("FROM")))


def test_the_tables_outer_joins_make_nullable():
    assert from_at("SELECT a FROM t JOIN v ON 1 LEFT JOIN d.u AS x ON 1 LEFT OUTER JOIN w ON 1") == {"x", "w"}
    assert from_at("SELECT LEFT(a, 2) FROM t") == frozenset()
    assert from_at("SELECT a FROM t JOIN x RIGHT JOIN u ON 1") == {"t", "x"}
    assert from_at("SELECT a FROM t LEFT JOIN u ON u.id IN (SELECT 1 FROM a LEFT JOIN b ON 1)") == {"u"}
    assert from_at("SELECT a FROM (SELECT 1) AS q NATURAL RIGHT JOIN u") == {"q"}
    assert from_at("SELECT a FROM t LEFT JOIN (u JOIN v) ON 1") is None  # (not told)


def grouped(sql: str) -> tuple[bool, bool]:
    toks = tokens(sql)
    return grouping(toks, select_items(toks)[0])


def test_grouping_without_group_by_or_a_window_reads_columns_as_nullable():
    assert grouped("SELECT a, COUNT(*), 5 FROM t") == (True, False)
    assert grouped("SELECT a, COUNT(*) FROM t GROUP BY a") == (False, False)
    assert grouped("SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t") == (True, True)
    assert grouped("SELECT a, (SELECT MAX(b) FROM u) FROM t") == (False, False)


def test_is_updatable_as_mariadb_decides_it():
    assert viewcols.updatable("SELECT id, a + 1 FROM t", "UNDEFINED")
    assert viewcols.updatable("WITH c AS (SELECT id FROM t) SELECT id FROM c", "UNDEFINED")
    for select in ("SELECT id + 1 FROM t", "SELECT DISTINCT a FROM t", "SELECT a FROM t GROUP BY a", "SELECT 1",
                   "SELECT id FROM t LIMIT 3", "SELECT id FROM t UNION SELECT 1", "SELECT MAX(id) FROM t",
                   "SELECT id, RAND() FROM t"):
        assert not viewcols.updatable(select, "UNDEFINED"), select
    assert not viewcols.updatable("SELECT id FROM t", "TEMPTABLE")
