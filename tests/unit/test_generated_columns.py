"""Generated columns in the engine: the expression as MariaDB prints it (`engine.genexpr`, each
form checked against MariaDB 10.11's GENERATION_EXPRESSION), the column parsed into the catalog,
and SQLite computing it (VIRTUAL and STORED) through the translated expression."""

from __future__ import annotations

import sqlite3

import pytest

from engine.catalog import Index, TokenCursor, parse_column
from engine.genexpr import printed
from engine.lexer import extract, literal_texts, tokenize
from protocol.errors import SQLError

# (as written, as MariaDB 10.11 prints it)
PRINTED = [
    ("id * 2", "`id` * 2"), ("(a+1)*2", "(`a` + 1) * 2"), ("a+(b*2)", "`a` + `b` * 2"),
    ("a-(b-1)", "`a` - (`b` - 1)"), ("a - 1 - 1", "`a` - 1 - 1"), ("-a", "-`a`"), ("- (a + 1)", "-(`a` + 1)"),
    ("a+-1", "`a` + -1"), ("a DIV 2", "`a` DIV 2"), ("a % 3", "`a` MOD 3"), ("d / 2.5", "`d` / 2.5"),
    ("a * 1.50", "`a` * 1.50"), ("CONCAT(a, 'x')", "concat(`a`,'x')"),
    ("CONCAT_WS('-', c, 'x''y', \"dq\")", "concat_ws('-',`c`,'x\\'y','dq')"),
    ("UPPER(SUBSTRING(c, 1, 3))", "ucase(substr(`c`,1,3))"), ("ABS(a) + LENGTH(c)", "abs(`a`) + octet_length(`c`)"),
    ("JSON_VALUE(doc, '$.name')", "json_value(`doc`,'$.name')"),
    ("JSON_UNQUOTE(JSON_EXTRACT(doc, '$.name'))", "json_unquote(json_extract(`doc`,'$.name'))"),
    ("IF(a > 1, 1, 0)", "if(`a` > 1,1,0)"), ("CASE WHEN a = 1 THEN 2 ELSE 3 END", "case when `a` = 1 then 2 else 3 end"),
    ("a IS NOT NULL", "`a` is not null"), ("a BETWEEN 1 AND 3", "`a` between 1 and 3"), ("a IN (1,2)", "`a` in (1,2)"),
    ("a NOT IN (1)", "`a` <> 1"), ("c LIKE 'a%'", "`c` like 'a%'"), ("a != b", "`a` <> `b`"),
    ("a AND b OR NOT a", "`a` <> 0 and `b` <> 0 or `a` = 0"), ("a >= 1 && a <= 2", "`a` >= 1 and `a` <= 2"),
    ("a << 1 | b & 3", "`a` << 1 | `b` & 3"), ("DATE(dt)", "cast(`dt` as date)"),
    ("CAST(a AS CHAR)", "cast(`a` as char charset utf8mb4)"), ("CAST(a AS DECIMAL(5,2))", "cast(`a` as decimal(5,2))"),
    ("c COLLATE utf8mb4_bin", "`c` collate utf8mb4_bin"), ("a = TRUE", "`a` = 1"), ("NULL", "NULL"),
]


@pytest.mark.parametrize(("written", "shown"), PRINTED)
def test_the_expression_as_mariadb_prints_it(written, shown):
    sql = "SELECT " + written
    shape, params = extract(sql)
    assert printed(tokenize(shape)[1:], params, literal_texts(sql)) == shown


def _column(definition: str):
    sql = "CREATE TABLE t (" + definition + ")"
    shape, params = extract(sql)
    cur = TokenCursor(tokenize(shape), params, sql)
    cur.i = 4
    name = cur.ident()
    indexes: list[Index] = []
    return parse_column(cur, name, indexes)


def test_a_generated_column_is_parsed_into_the_catalog():
    col = _column("g INT GENERATED ALWAYS AS (id * 2) VIRTUAL")
    assert (col.generated, col.generated_printed, col.stored) == ("id * 2", "`id` * 2", False)
    assert col.generated_extra == "VIRTUAL GENERATED"
    col = _column("s VARCHAR(20) AS (CONCAT(a, 'x')) PERSISTENT")
    assert (col.generated_printed, col.stored, col.generated_extra) == ("concat(`a`,'x')", True, "STORED GENERATED")
    assert _column("h INT AS (a + 1) STORED COMMENT 'c'").comment == "c"


@pytest.mark.parametrize("after", ["NOT NULL", "NULL", "DEFAULT 3", "AUTO_INCREMENT"])
def test_a_generated_column_takes_no_null_or_default_clause(after):
    with pytest.raises(SQLError) as caught:
        _column(f"g INT AS (id + 1) VIRTUAL {after}")
    assert caught.value.code == 1064


def test_sqlite_computes_the_columns_it_is_given(tmp_path):
    from engine.catalog import Column, Table

    table = Table("main", "t", [Column("id", "int", nullable=False), Column("a", "int"),
                                Column("g", "int", generated="id * 2", generated_sqlite='"id" * 2'),
                                Column("h", "int", generated="a + 1", generated_sqlite='"a" + 1', stored=True)],
                  [Index("PRIMARY", ["id"], unique=True, primary=True)])
    conn = sqlite3.connect(tmp_path / "t.db")
    for sql in table.sqlite_create():
        conn.execute(sql)
    conn.execute('INSERT INTO t (id, a) VALUES (3, 10)')
    conn.execute('UPDATE t SET a = 20')
    assert conn.execute("SELECT * FROM t").fetchall() == [(3, 20, 6, 21)]
