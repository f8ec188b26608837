"""`engine.viewcols`: a view's stand-in columns from its SELECT's result types."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import viewcols
from engine.catalog import Column, Table
from engine.coltypes import NULL_TYPE, int_type, varchar
from engine.lexer import extract, tokenize
from protocol.messages import ColumnFlag

BASE = Table("d", "t", [Column("id", "int", ["11"], nullable=False), Column("k", "int", ["11"], nullable=False,
                                                                            auto_increment=True)])


def lookup(schema: str, name: str) -> Table | None:
    return BASE if (schema, name) == ("d", "t") else None


def test_a_tables_column_is_that_column_and_an_auto_increment_one_defaults_to_zero():
    types = [replace(BASE.result_type(c), origin=("d", "t", "t", c.name)) for c in BASE.columns]
    table = viewcols.stand_in("d", "w", ["id", "kk"], types, lookup, [False, False])
    assert table.describe() == [("id", "int(11)", "NO", "", None, ""), ("kk", "int(11)", "NO", "", "0", "")]


def test_literals_are_typed_as_mariadbs_fields_and_what_is_not_told_is_unknown():
    types = [int_type(1, ColumnFlag.BINARY | ColumnFlag.NOT_NULL), varchar(3, flags=ColumnFlag.NOT_NULL), NULL_TYPE]
    table = viewcols.stand_in("d", "w", ["lit", "s", "nl"], types, lookup, ["number", "string", True])
    assert table.describe() == [("lit", "int(1)", "NO", "", "0", ""), ("s", "varchar(3)", "NO", "", "", ""),
                                ("nl", "binary(0)", "YES", "", None, "")]
    with pytest.raises(viewcols.Unknown):
        viewcols.stand_in("d", "w", ["y"], [varchar(6)], lookup, [False])
    with pytest.raises(viewcols.Unknown):  # (a number literal MariaDB types otherwise than its result)
        viewcols.stand_in("d", "w", ["u64"], [varchar(20, flags=ColumnFlag.NOT_NULL)], lookup, ["number"])


def tokens(sql: str) -> list:
    return tokenize(extract(sql)[0])


def test_a_left_joins_tables_are_nullable_and_other_outer_joins_unknown():
    assert viewcols.outer_nullable(tokens("SELECT a FROM t JOIN v ON 1 LEFT JOIN d.u AS x ON 1 LEFT OUTER JOIN w ON 1")) \
        == {"x", "w"}
    assert viewcols.outer_nullable(tokens("SELECT LEFT(a, 2) FROM t")) == set()
    assert viewcols.outer_nullable(tokens("SELECT a FROM t RIGHT JOIN u ON 1")) is None
    assert viewcols.outer_nullable(tokens("SELECT a FROM t LEFT JOIN u ON u.id IN (SELECT 1)")) is None


def test_an_aggregate_without_group_by_leaves_null_unknown():
    assert viewcols.nullable_unknown(tokenize(extract("SELECT a, COUNT(*) FROM t")[0]))
    assert not viewcols.nullable_unknown(tokenize(extract("SELECT a, COUNT(*) FROM t GROUP BY a")[0]))
