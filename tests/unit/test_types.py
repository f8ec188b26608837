"""Result column types (engine/coltypes, engine/exprtypes) and strict-mode storage
(engine/values), without a server: descriptions as MariaDB 10.11 gives them (the integration
test tests/integration/test_types_mariadb.py compares with the real server), text forms of
stored values, and the errors MariaDB's default sql_mode raises."""

from __future__ import annotations

import functools
from dataclasses import replace
from decimal import Decimal

import pytest

from engine.catalog import Column, Index, Table
from engine.coltypes import ColumnType, converter, declared_type, from_rows, text_value
from engine.exprtypes import SelectTypes, from_tables, split_select
from engine.lexer import extract, literal_texts, tokenize
from engine.values import compare_decimal, store, target, temporal_text, typed_literal
from protocol.errors import SQLError
from protocol.messages import ColumnFlag, FieldType

TABLE = Table("db", "t", [
    Column("id", "int", nullable=False, auto_increment=True), Column("n", "decimal", ["10", "2"]),
    Column("x", "double"), Column("b", "blob"), Column("bn", "binary", ["4"]), Column("v", "varchar", ["10"]),
    Column("dt", "datetime", ["6"]), Column("u", "bigint", unsigned=True), Column("bits", "bit", ["12"]),
], [Index("PRIMARY", ["id"], unique=True, primary=True), Index("v", ["v"])])


def types_of(sql: str) -> list[ColumnType | None]:
    shape, params = extract(sql)
    tokens = tokenize(shape)
    split = split_select(tokens)
    assert split is not None, sql
    items, end = split
    tables = from_tables(tokens, end, lambda schema, name: TABLE if name == "t" else None)
    return SelectTypes(items, tables).types(params, lambda: literal_texts(sql))


def test_schema_columns_are_described_from_their_definition():
    star = types_of("SELECT * FROM t")
    assert [t.type for t in star] == [FieldType.LONG, FieldType.NEWDECIMAL, FieldType.DOUBLE, FieldType.BLOB,
                                      FieldType.STRING, FieldType.VAR_STRING, FieldType.DATETIME,
                                      FieldType.LONGLONG, FieldType.BIT]
    ident, n, _, b, bn, v, dt, u, _ = star
    assert ident.flags == ColumnFlag.NOT_NULL | ColumnFlag.PRI_KEY | ColumnFlag.AUTO_INCREMENT | 16384
    assert (n.length, n.decimals, n.charset) == (12, 2, 63)
    assert (b.charset, b.flags) == (63, ColumnFlag.BLOB | ColumnFlag.BINARY)
    assert (bn.charset, bn.length, bn.pad_to) == (63, 4, 4)
    assert (v.charset, v.length, v.flags) == (45, 40, ColumnFlag.MULTIPLE_KEY | 16384)
    assert (dt.length, dt.decimals) == (26, 6)
    assert u.flags & ColumnFlag.UNSIGNED
    named = types_of("SELECT t.v, x.n FROM t AS x, t")
    assert [replace(ct, origin=None) for ct in named] == [replace(v, origin=None), replace(n, origin=None)]
    # where each comes from, as the column definition says it: the table as the statement names it
    assert [ct.origin for ct in named] == [("db", "t", "t", "v"), ("db", "x", "t", "n")]
    assert [ct.origin for ct in types_of("SELECT n + 1, -n FROM t")] == [None, None]


@pytest.mark.parametrize(("expr", "code", "decimals", "charset"), [
    ("1", FieldType.LONG, 0, 63), ("12345678901", FieldType.LONGLONG, 0, 63), ("1.50", FieldType.NEWDECIMAL, 2, 63),
    ("1e3", FieldType.DOUBLE, 31, 63), ("'abc'", FieldType.VAR_STRING, 39, 45), ("NULL", FieldType.NULL, 0, 63),
    ("id + 1", FieldType.LONGLONG, 0, 63), ("n * 2", FieldType.NEWDECIMAL, 2, 63),
    ("id / 3", FieldType.NEWDECIMAL, 4, 63), ("x + 1", FieldType.DOUBLE, 31, 63),
    ("COUNT(*)", FieldType.LONGLONG, 0, 63), ("SUM(id)", FieldType.NEWDECIMAL, 0, 63),
    ("SUM(n)", FieldType.NEWDECIMAL, 2, 63), ("AVG(n)", FieldType.NEWDECIMAL, 6, 63), ("SUM(x)", FieldType.DOUBLE, 31, 63),
    ("MAX(v)", FieldType.VAR_STRING, 39, 45), ("NOW()", FieldType.DATETIME, 0, 63),
    ("CAST(v AS SIGNED)", FieldType.LONGLONG, 0, 63), ("CAST(n AS DECIMAL(5,1))", FieldType.NEWDECIMAL, 1, 63),
    ("CAST(id AS CHAR)", FieldType.VAR_STRING, 0, 45), ("X'FF00'", FieldType.VAR_STRING, 0, 63),
    ("id = 1", FieldType.LONG, 0, 63), ("CASE WHEN id = 1 THEN 0 ELSE 3.5 END", FieldType.NEWDECIMAL, 1, 63),
    ("CONCAT('a', id)", FieldType.VAR_STRING, 39, 45),
])
def test_expressions_get_mysql_result_types(expr, code, decimals, charset):
    (ct,) = types_of(f"SELECT {expr} FROM t")
    assert (ct.type, ct.decimals, ct.charset) == (code, decimals, charset)


def test_a_decimal_cast_is_null_only_where_its_operand_may_be():
    # MariaDB's Item_decimal_typecast: CAST('abc' AS DECIMAL) is 0, never NULL
    types = types_of("SELECT CAST(1.25 AS DECIMAL(5,2)), CAST('abc' AS DECIMAL), CAST(id + 1 AS DECIMAL), "
                     "CONVERT(id, DECIMAL), CAST(NULL AS DECIMAL), CAST(n AS DECIMAL), CAST(some_udf(id) AS DECIMAL) "
                     "FROM t")
    assert [bool(ct.flags & ColumnFlag.NOT_NULL) for ct in types] == [True, True, True, True, False, False, False]


def test_an_unknown_expression_is_typed_by_all_its_values_never_the_first_row():
    assert types_of("SELECT some_udf(id) FROM t") == [None]
    assert from_rows([(0,), (3.5,)], 0).type == FieldType.DOUBLE
    assert from_rows([(b"ok",), (b"\xff",)], 0).charset == 63
    assert from_rows([(None,)], 0).type == FieldType.NULL


def test_values_are_sent_in_their_types_text_form():
    n, x, b, bn, dt, bits = (declared_type(*a) for a in [
        ("decimal", ["10", "2"], False, False), ("double", [], False, False), ("blob", [], False, True),
        ("binary", ["4"], False, True), ("datetime", ["3"], False, False), ("bit", ["12"], False, False)])
    assert text_value(n, 3.5) == "3.50" and text_value(n, "12345678.9") == "12345678.90"
    assert text_value(x, 3.0) == "3" and text_value(x, 1e20) == "1e20"
    assert text_value(b, "é") == "é".encode() and text_value(bn, b"\x01") == b"\x01\x00\x00\x00"
    assert text_value(dt, "2020-01-01 10:00:00") == "2020-01-01 10:00:00.000"
    assert text_value(dt, "2020-01-01 10:00:00.123456") == "2020-01-01 10:00:00.123"
    assert text_value(bits, 0xABC) == b"\x0a\xbc"
    convert = converter([n, declared_type("varchar", ["5"], False, False)])
    assert convert((0, "a")) == ("0.00", "a")


def err(col: Column, value: object) -> tuple[int, str]:
    with pytest.raises(SQLError) as e:
        store(col, value, 1, "`db`.`t`.`c`")
    return e.value.code, e.value.message


def test_strict_mode_errors_with_mariadbs_wording():
    assert err(Column("c", "tinyint"), 128) == (1264, "Out of range value for column 'c' at row 1")
    assert err(Column("c", "tinyint", unsigned=True), -1)[0] == 1264
    assert err(Column("c", "decimal", ["5", "2"]), 1000)[0] == 1264
    assert err(Column("c", "varchar", ["3"]), "abcd") == (1406, "Data too long for column 'c' at row 1")
    assert err(Column("c", "varbinary", ["3"]), b"\x00\x01\x02\x03")[0] == 1406
    assert err(Column("c", "int"), "abc") == (
        1366, "Incorrect integer value: 'abc' for column `db`.`t`.`c` at row 1")
    assert err(Column("c", "int"), "12abc") == (1265, "Data truncated for column 'c' at row 1")
    assert err(Column("c", "text"), "\udcff\x00") == (
        1366, "Incorrect string value: '\\xFF\\x00' for column `db`.`t`.`c` at row 1")
    # (six bytes at most from the first it cannot read, printable ASCII as itself, as MariaDB's)
    assert err(Column("c", "text"), "a\udce9bcdefghij")[1] == (
        "Incorrect string value: '\\xE9bcdef...' for column `db`.`t`.`c` at row 1")
    assert err(Column("c", "text"), "\udce9\\x\x01y")[1] == (
        "Incorrect string value: '\\xE9\\x\\x01y' for column `db`.`t`.`c` at row 1")
    assert err(Column("c", "enum", ["'a'", "'b'"]), "c")[0] == 1265
    assert err(Column("c", "datetime"), "notadate") == (
        1292, "Incorrect datetime value: 'notadate' for column `db`.`t`.`c` at row 1")


def test_bit_values_stored_as_mariadbs_field_bit():
    bit64, bit8 = Column("b", "bit", ["64"]), Column("y", "bit", ["8"])
    assert store(bit64, 18446744073709551615, 1, "") == "18446744073709551615"  # (passed on as its digits)
    assert store(bit64, b"\xff" * 8, 1, "") == "18446744073709551615"
    assert store(bit64, b"\x00\x00" + b"\x80" + b"\x00" * 7, 1, "") == str(1 << 63)  # leading zero bytes
    assert store(bit64, -1, 1, "") == str((1 << 64) - 1) and store(bit64, 1e19, 1, "") == str(1 << 63)
    assert store(bit8, "a", 1, "") == 97 and store(bit8, Decimal("2.5"), 1, "") == 3 and store(bit8, True, 1, "") == 1
    for col, value, code in [(bit8, 256, 1406), (bit8, -1, 1406), (bit8, "ab", 1406), (bit64, b"\x01" + b"\x00" * 8, 1406),
                             (bit64, "18446744073709551615", 1406),
                             (bit64, Decimal("18446744073709551616"), 1264), (bit64, Decimal("-1.5"), 1264)]:
        with pytest.raises(SQLError) as raised:
            store(col, value, 1, "")
        assert raised.value.code == code, value
    warnings: list = []
    assert store(bit8, 256, 1, "", lenient=True, warnings=warnings) == 255  # IGNORE: the maximum, 1264
    assert [w[2] for w in warnings] == [1264]


def test_a_bit_column_is_sent_as_its_bytes_a_bit_function_as_its_digits():
    column, highest = types_of("SELECT bits, MAX(bits) FROM t")
    [derived] = types_of("SELECT d.m FROM (SELECT MAX(bits) m FROM t) d")  # (a column of its own again)
    assert column.type == highest.type == derived.type == FieldType.BIT
    assert text_value(column, "4095") == text_value(derived, "4095") == b"\x0f\xff"
    assert text_value(highest, "4095") == b"4095"


def test_values_stored_exactly():
    big = Decimal("9" * 35 + "." + "9" * 30)
    assert store(Column("c", "decimal", ["65", "30"]), big.copy_negate(), 1, "") == "-" + str(big)
    assert store(Column("c", "decimal", ["5", "2"]), Decimal("1.005"), 1, "") == "1.01"
    assert store(Column("c", "int"), 2.5, 1, "") == 3 and store(Column("c", "int"), -2.5, 1, "") == -3
    assert store(Column("c", "bigint", unsigned=True), 18446744073709551615, 1, "") == "18446744073709551615"
    assert store(Column("c", "varbinary", ["4"]), "\udcff\x00", 1, "") == b"\xff\x00"
    assert store(Column("c", "binary", ["3"]), b"a", 1, "") == "a\x00\x00"  # held as TEXT: UTF-8 bytes
    assert store(Column("c", "datetime"), "2020-01-01 10:00:00.6", 1, "") == "2020-01-01 10:00:00"
    assert store(Column("c", "datetime", ["3"]), "2020-01-01 10:00:00.1239", 1, "") == "2020-01-01 10:00:00.123"
    assert store(Column("c", "enum", ["'a'", "'B'"]), "b", 1, "") == "B"


def test_temporal_values_stored_and_compared_in_mariadbs_form():
    """The forms MariaDB reads a DATE / DATETIME / TIMESTAMP in, stored as its canonical text
    (tests/integration/test_temporal_mariadb.py compares them with MariaDB's), and the text a
    literal compared with such a column becomes (its texts then order as the times)."""
    def stored(base, value, *args):
        return store(Column("c", base, list(args)), value, 1, "`db`.`t`.`c`")
    for value in ("2024-1-5", "20240105", 20240105, "240105", 240105, "24-1-5", "2024/01/05", "  2024-01-05 ",
                  "2024-01-05 10:11:12"):
        assert stored("date", value) == "2024-01-05"
    assert stored("date", "99-1-5") == "1999-01-05" and stored("date", 0) == "0000-00-00"
    assert stored("datetime", "2024-01-05T1:2:3") == "2024-01-05 01:02:03"
    assert stored("datetime", 20240105101112.25, "3") == "2024-01-05 10:11:12.250"
    assert stored("datetime", "2024-01-05") == "2024-01-05 00:00:00"
    assert stored("timestamp", "0000-00-00") == "0000-00-00 00:00:00"
    for base, value in (("date", "2023-02-29"), ("date", "2024-13-01"), ("datetime", "2024-01-05 24:00:00"),
                        ("datetime", "9:05"), ("date", "2024-01-05x"), ("date", ""), ("timestamp", "1969-12-31"),
                        ("timestamp", "2038-01-19 03:14:08"), ("timestamp", "2024-00-01")):
        assert err(Column("c", base), value)[0] == 1292, (base, value)
    assert err(Column("c", "timestamp"), "1969-12-31") == (
        1292, "Incorrect datetime value: '1969-12-31' for column `db`.`t`.`c` at row 1")
    assert temporal_text("2024-1-5", "datetime", 0) == "2024-01-05 00:00:00"
    assert temporal_text("2024-1-5 10:00", "date", 0) == "2024-01-05 10:00:00"  # not the date: after it
    assert temporal_text("2024-1-5 00:00:00.000", "date", 0) == "2024-01-05"
    assert temporal_text("2024-01-05 00:00:00.5", "datetime", 0) == "2024-01-05 00:00:00.5"
    assert temporal_text("2024-01-05 00:00:00.5", "datetime", 3) == "2024-01-05 00:00:00.500"
    assert temporal_text("2024-01-05 00:00:00.0005", "datetime", 3) == "2024-01-05 00:00:00.0005"
    assert temporal_text("9:05", "time", 0) == "09:05:00" and temporal_text(90500, "time", 0) == "09:05:00"
    assert temporal_text("abc", "date", 0) is None


def test_typed_literals_read_as_mariadbs_parser_reads_them():
    """DATE 'x', TIME 'x', TIMESTAMP 'x' (as tests/integration/test_functions_mariadb.py saw
    MariaDB 10.11 answer): canonical text with the fraction digits written, at most 6; a date
    with a time, a timestamp without one, a time with a date, anything after the value, or a
    value out of range is 1525."""
    assert typed_literal("date", " 2024-1-5") == "2024-01-05" and typed_literal("date", "240105") == "2024-01-05"
    assert typed_literal("date", "2024-01-05T") == "2024-01-05" and typed_literal("date", "2024-00-00") == "2024-00-00"
    assert typed_literal("datetime", "2024-01-05T10") == "2024-01-05 10:00:00"
    assert typed_literal("datetime", "2024-01-05 10:11:12.1234567") == "2024-01-05 10:11:12.123456"
    assert typed_literal("datetime", "20240105101112") == "2024-01-05 10:11:12"
    assert typed_literal("time", "1 10") == "34:00:00" and typed_literal("time", "-0:00:01.50") == "-00:00:01.50"
    assert typed_literal("time", "101112") == "10:11:12" and typed_literal("time", "838:59:59") == "838:59:59"
    for kind, value in (("date", "2024-01-05 00:00:00"), ("date", "2024-02-30"), ("date", "2024-01-05.5"),
                        ("date", ""), ("datetime", "2024-01-05"), ("datetime", "20240105"),
                        ("datetime", "2024-01-05 24:00:00"), ("datetime", "2024-01-05 10:00+01:00"),
                        ("time", "2024-01-05 10:11:12"), ("time", "839:00:00"), ("time", "10:60"),
                        ("time", "10:11:12x"), ("date", b"2024-01-05")):
        with pytest.raises(SQLError) as excinfo:
            typed_literal(kind, value)
        assert excinfo.value.code == 1525, (kind, value)
    with pytest.raises(SQLError, match="Incorrect DATETIME value: '2024-01-05'"):
        typed_literal("datetime", "2024-01-05")


def test_ignore_stores_what_strict_mode_refuses_adjusted():
    """INSERT / UPDATE IGNORE: the value MariaDB stores (with a warning) where strict mode fails
    the statement; a value strict mode takes is stored as without IGNORE."""
    def lenient(base, value, *args, unsigned=False):
        return store(Column("c", base, list(args), unsigned=unsigned), value, 1, "`db`.`t`.`c`", lenient=True)
    assert lenient("int", "zz") == 0 and lenient("int", "12abc") == 12 and lenient("int", "7") == 7
    assert lenient("tinyint", 300) == 127 and lenient("tinyint", -300) == -128
    assert lenient("int", -1, unsigned=True) == 0 and lenient("bigint", 2 ** 70, unsigned=True) == "18446744073709551615"
    assert lenient("decimal", Decimal("12345.678"), "5", "2") == "999.99"
    assert lenient("decimal", "x", "5", "2") == "0.00"
    assert lenient("varchar", "abcdef", "3") == "abc" and lenient("varbinary", b"xyz", "2") == "xy"
    assert lenient("enum", "c", "'a'", "'b'") == "" and lenient("date", "2024-02-30") == "0000-00-00"
    assert lenient("datetime", "nope", "2") == "0000-00-00 00:00:00.00"
    assert lenient("double", "1.5e3x") == 1500.0
    with pytest.raises(SQLError):
        store(Column("c", "tinyint"), 300, 1, "`db`.`t`.`c`")  # strict without IGNORE


def test_year_enum_set_and_time_values_stored_as_mariadbs_fields():
    """A computed value (`target`: every DATE / DATETIME / TIMESTAMP / TIME / YEAR / ENUM / SET
    column has one) stored as MariaDB's Field_year, Field_enum, Field_set, Field_time store it."""
    year, en, st, tm = Column("y", "year"), Column("e", "enum", ["'x'", "'y'"]), Column("s", "set", ["'a'", "'b'"]), \
        Column("t", "time", ["2"])
    for col in (year, en, st, tm, Column("d", "date"), Column("d", "datetime"), Column("d", "timestamp")):
        assert target(col, "`db`.`t`.`c`") is not None
    assert [store(year, v, 1, "") for v in (99, 5, 0, "0", "00", "0000", " 5 ", "2024.6", Decimal("2024.6"), 2024.6,
                                            1901, 2155)] == [1999, 2005, 0, 2000, 2000, 0, 2005, 2025, 2025, 2024,
                                                             1901, 2155]
    assert [store(en, v, 1, "") for v in (2, 1.6, Decimal("2.5"), "1", "Y ", "0")] == ["y", "x", "y", "x", "y", ""]
    assert [store(st, v, 1, "") for v in (3, 2.5, "2", "b,a,b", "")] == ["a,b", "b", "b", "a,b", ""]
    assert [store(tm, v, 1, "") for v in (10203, -10203, Decimal("10203.567"), 1.5)] == [
        "01:02:03.00", "-01:02:03.00", "01:02:03.56", "00:00:01.50"]
    assert store(Column("d", "date"), 20240105, 1, "") == "2024-01-05"
    for col, value, code in [(year, 1800, 1264), (year, 100, 1264), (year, 2156, 1264), (year, "abc", 1366),
                             (year, "", 1366), (year, "12abc", 1265), (en, 0, 1265), (en, 3, 1265), (en, "", 1265),
                             (st, 4, 1265), (st, -1, 1265), (st, "a,,b", 1265), (tm, 10270, 1292),
                             (tm, 8390000, 1292), (Column("d", "date"), 1, 1292), (Column("d", "date"), 1000000, 1292)]:
        with pytest.raises(SQLError) as raised:
            store(col, value, 1, "`db`.`t`.`c`")
        assert raised.value.code == code, (col.base, value)
    warnings: list = []
    assert store(year, 1800, 1, "", lenient=True, warnings=warnings) == 0
    assert store(year, "12abc", 1, "", lenient=True, warnings=warnings) == 2012
    assert store(tm, 8390000, 1, "", lenient=True, warnings=warnings) == "838:59:59.99"
    assert store(tm, "-900:00:00", 1, "", lenient=True, warnings=warnings) == "-838:59:59.99"
    assert store(st, -1, 1, "", lenient=True, warnings=warnings) == "a,b"
    assert store(en, 0, 1, "", lenient=True, warnings=warnings) == ""
    assert [w[2] for w in warnings] == [1264, 1265, 1264, 1264, 1265, 1265]


def test_a_decimal_into_year_is_a_number_and_negative_ones_are_out_of_range():
    """A DECIMAL's text (an exact expression's value, `target(..., exact=True)`) is the number a
    YEAR stores, 0.4 0000 where the string '0.4' is 2000; a negative DECIMAL is 1264 even where
    it rounds to 0."""
    from engine.values import store_target

    year = Column("y", "year")
    exact, text = target(year, "`db`.`t`.`y`", exact=True), target(year, "`db`.`t`.`y`")
    assert (store_target(exact, "0.4", 1), store_target(text, "0.4", 1)) == (0, 2000)
    assert store_target(exact, "69.5", 1) == 1970
    for value in (Decimal("-0.4"), Decimal("-0.5")):
        with pytest.raises(SQLError) as raised:
            store(year, value, 1, "`db`.`t`.`y`")
        assert raised.value.code == 1264
    assert store(year, Decimal("-0.4"), 1, "", lenient=True, warnings=[]) == 0


def test_decimal_collation_orders_by_value():
    values = ["10", "3.50", "-0.5", "12345678901234567890.00000000000000000002", "3.5", "9"]
    ordered = sorted(values, key=functools.cmp_to_key(compare_decimal))
    assert ordered == ["-0.5", "3.50", "3.5", "9", "10", "12345678901234567890.00000000000000000002"]
    assert compare_decimal("3.5", "3.50") == 0


def _translated(sql: str) -> str:
    from engine.translate import Translator

    shape, params = extract(sql)
    return Translator(tokenize(shape), shape, "db", lambda schema, name: TABLE if name == "t" else None,
                      {"db"}, params).plan().sql


def test_decimal_computation_is_exact_wherever_it_is_and_only_there():
    """Expressions on DECIMAL columns go through the exact functions in every clause (sorted and
    compared values too, collated by value); integer, float and string expressions, and a DECIMAL
    column compared with literals (its index usable), stay SQLite's."""
    assert "mysql_dec_add" in _translated("SELECT n + 1 FROM t")
    assert "mysql_dec_sum( mysql_dec_mul(" in _translated("SELECT id, SUM(n * id) AS s FROM t GROUP BY id")
    assert "mysql_dec_div( mysql_dec_neg(" in _translated("SELECT -n / 3 FROM t ORDER BY id")
    assert "mysql_int_mul" in _translated("SELECT u * 2 FROM t")  # BIGINT UNSIGNED: exact, in its range
    assert "mysql_dec_cmp( mysql_dec_mul( n , ? ) , ? ) > 0" in _translated("SELECT id FROM t WHERE n * 2 > 5")
    assert "COLLATE mysql_decimal" in _translated("SELECT n + 1 AS s FROM t ORDER BY s")
    assert "mysql_dec_cmp( s , ? )" in _translated("SELECT SUM(n) s FROM t HAVING s > 1")
    assert "mysql_dec_round( mysql_dec_add(" in _translated("SELECT ROUND(n + 1, 1) FROM t")
    assert "mysql_dec_add" in _translated("UPDATE t SET n = n + 0.01 WHERE n * 2 > 1")
    assert "mysql_dec_cast" in _translated("SELECT CAST(x AS DECIMAL(5,2)) FROM t")
    for sql in ["SELECT id + 1, id * 2 FROM t WHERE id > 3 ORDER BY id", "SELECT n + x FROM t",
                "SELECT id FROM t WHERE n = 1.5 OR n BETWEEN 1 AND 2 OR n IN (1, 2.5)",
                "UPDATE t SET id = id + 1 WHERE id = 5", "SELECT SUM(id), AVG(x), v FROM t GROUP BY v"]:
        assert "mysql_dec_" not in _translated(sql), sql


def test_union_of_a_decimal_column_merges_decimal_texts_collated_by_value():
    """A UNION column MySQL makes a DECIMAL gets every branch's value as its decimal text under
    `mysql_decimal` (SQLite orders integers and reals before texts, and keeps 5 apart from
    '5.00'); a DOUBLE or string beside it is left alone."""
    sql = _translated("SELECT id FROM t UNION SELECT n FROM t UNION ALL SELECT 1.5 ORDER BY 1")
    assert "CAST( id AS TEXT) COLLATE mysql_decimal" in sql
    assert "n COLLATE mysql_decimal" in sql
    assert sql.count("COLLATE mysql_decimal") == 3
    inner = _translated("SELECT MAX(k) FROM (SELECT id AS k FROM t UNION SELECT n FROM t) s")
    assert inner.count("COLLATE mysql_decimal") == 2
    assert "CAST( n AS REAL)" in _translated("SELECT x FROM t UNION SELECT n FROM t")  # a DOUBLE column
    for other in ("SELECT v FROM t UNION SELECT n FROM t",
                  "SELECT id FROM t UNION SELECT id FROM t"):
        assert "mysql_decimal" not in _translated(other), other


def test_mod_and_div_of_a_double_or_a_non_integer_literal_are_mysqls():
    """SQLite's % and / read 2.5 as 2 and divide a DOUBLE as a real: MOD with a DOUBLE is fmod,
    an integer MOD a literal the exact remainder, DIV the exact quotient truncated."""
    assert "mysql_dec_mod( id , ? )" in _translated("SELECT id MOD 2.5 FROM t")
    assert "mysql_dec_mod( id , ? )" in _translated("SELECT id % 2.5 FROM t")
    assert "mysql_dec_intdiv( id , ? )" in _translated("SELECT id DIV 2.5 FROM t")
    assert "mysql_mod( x , ? )" in _translated("SELECT x MOD 2 FROM t")
    assert "mysql_mod(" not in _translated("SELECT id % id FROM t")  # integers: SQLite's own
    # the column after MOD / DIV is the operand, not an alias: typed as MariaDB's DECIMAL
    assert [(ct.type, ct.decimals) for ct in types_of("SELECT n MOD n, id MOD n FROM t")] == [
        (FieldType.NEWDECIMAL, 2), (FieldType.NEWDECIMAL, 2)]
    from engine import decimal_math as dm
    from engine.functions import mysql_mod

    assert (mysql_mod(-7.5, 2), mysql_mod(7, -2.5)) == (-1.5, 2.0)  # the dividend's sign
    assert dm.FUNCTIONS["mysql_dec_mod"](-7, 2.5) == "-2.0"
    assert (dm.FUNCTIONS["mysql_dec_mod"](-12, 2), dm.FUNCTIONS["mysql_dec_mod"](-7, -2)) == (0, -1)  # integers
    assert [(ct.type, ct.length) for ct in types_of("SELECT id MOD 2, id DIV 2 FROM t")] == [
        (FieldType.LONGLONG, 11), (FieldType.LONGLONG, 10)]
    assert dm.FUNCTIONS["mysql_dec_intdiv"](-7, 2.5) == -2


def test_decimal_function_definitions_as_mariadbs():
    """ROUND / TRUNCATE of a DECIMAL(10,2) as wide as MariaDB's (Item_func_round), ABS of an INT a
    BIGINT, CASE of DECIMALs binary, COALESCE NOT NULL with an argument never NULL, a named
    window's ROW_NUMBER() never NULL (OVER w is no alias)."""
    shapes = [(ct.type, ct.length, ct.decimals) for ct in types_of(
        "SELECT ROUND(n, 1), TRUNCATE(n, 1), ROUND(n), ROUND(n, 3), ROUND(n, -1), ABS(id) FROM t")]
    assert shapes == [(FieldType.NEWDECIMAL, 12, 1), (FieldType.NEWDECIMAL, 11, 1), (FieldType.NEWDECIMAL, 10, 0),
                      (FieldType.NEWDECIMAL, 13, 3), (FieldType.NEWDECIMAL, 10, 0), (FieldType.LONGLONG, 11, 0)]
    case, coalesce, numbered = types_of(
        "SELECT CASE WHEN id > 1 THEN n END, COALESCE(n, 1.5), ROW_NUMBER() OVER w FROM t WINDOW w AS (ORDER BY id)")
    assert case.flags & ColumnFlag.BINARY
    assert coalesce.flags & ColumnFlag.NOT_NULL and numbered.flags & ColumnFlag.NOT_NULL
    from engine import decimal_math as dm

    assert dm.VARIADIC["mysql_dec_round"]("-2.00", -1) == "0"  # not -0


def test_lag_with_a_default_is_mariadbs_syntax_error():
    with pytest.raises(SQLError) as raised:
        _translated("SELECT LAG(id, 1, 0) OVER (ORDER BY id) FROM t")
    assert raised.value.code == 1064
    assert "mysql_dec" not in _translated("SELECT LEAD(COALESCE(id, 1), 1) OVER (ORDER BY id) FROM t")


LONG = "1.23456789012345678901234567890123456789"


def test_a_long_decimal_literal_is_bound_as_its_exact_text():
    """A literal with more digits than a double holds (the lexer's Decimal) selected alone or
    negated is bound as its exact text (`Translator.exact_item`), its plan keyed by the
    literal's kind; literals only compared, or under ABS / GREATEST, compare and compute as
    DECIMALs. A short literal stays the double SQLite binds."""
    from engine.exact import EXACT
    from engine.translate import STORE, Translator

    def plan(sql):
        shape, params = extract(sql)
        return Translator(tokenize(shape), shape, "db", lambda schema, name: TABLE if name == "t" else None,
                          {"db"}, params).plan()

    alone, negated, short = plan(f"SELECT {LONG}"), plan(f"SELECT -{LONG}"), plan("SELECT 1.5")
    assert alone.args[0][0] == STORE and alone.literal_kinds == ((0, EXACT),)
    assert negated.args[0][0] == STORE and negated.args[0][6] and "-" not in negated.sql
    assert short.args == [0] and short.literal_kinds == ((0, True),)
    assert "mysql_dec_cmp" in _translated(f"SELECT {LONG} = 1.2345678901234567890123456789012345678")
    assert "mysql_dec_abs( mysql_dec_neg(" in _translated(f"SELECT ABS(-{LONG})")
    assert "mysql_dec_greatest" in _translated(f"SELECT GREATEST({LONG}, 1)")
    assert "mysql_dec_" not in _translated("SELECT ABS(-1.5), GREATEST(1.5, 1), 1.5 = 1.5")
    assert "mysql_dec_" not in _translated("UPDATE t SET id = id + 1 WHERE id = 5")
    ct, = types_of(f"SELECT {LONG} * 2")
    assert (ct.type, ct.decimals) == (FieldType.NEWDECIMAL, 38)


def test_decimal_results_keep_mariadbs_largest_scale_38():
    from engine import decimal_math as dm

    assert dm.FUNCTIONS["mysql_dec_mul"](LONG, 2) == "2.46913578024691357802469135780246913578"
    assert dm.FUNCTIONS["mysql_dec_div"](LONG, 3) == "0.41152263004115226300411522630041152263"
    assert [(ct.type, ct.decimals) for ct in types_of("SELECT n * n * n * n * n * n * n * n * n * n * n * n"
                                                      " * n * n * n * n * n * n * n * n, n / 3 FROM t")] == [
        (FieldType.NEWDECIMAL, 38), (FieldType.NEWDECIMAL, 6)]


@pytest.mark.parametrize(("args", "code"), [
    (["65", "38"], None), (["65"], None), ([], None), (["38", "38"], None),
    (["65", "39"], 1425), (["66", "2"], 1426), (["5", "6"], 1427), (["66", "39"], 1425),
])
def test_decimal_column_sizes_within_mariadbs_limits(args, code):
    from engine.catalog import check_decimal_size

    if code is None:
        check_decimal_size(args, "x")
        return
    with pytest.raises(SQLError) as raised:
        check_decimal_size(args, "x")
    assert raised.value.code == code and "'x'" in raised.value.message


def test_decimal_functions_keep_mysql_scales():
    from engine import decimal_math as dm

    assert dm.FUNCTIONS["mysql_dec_add"]("1.50", 2) == "3.50"
    assert dm.FUNCTIONS["mysql_dec_mul"]("1.50", "0.25") == "0.3750"
    assert dm.FUNCTIONS["mysql_dec_div"]("1.00", 3) == "0.333333"
    assert dm.FUNCTIONS["mysql_dec_div"](2, 3) == "0.6667"  # half up
    assert dm.FUNCTIONS["mysql_dec_div"]("1", 0) is None
    assert dm.FUNCTIONS["mysql_dec_sub"](None, "1") is None
    avg = dm.AGGREGATES["mysql_dec_avg"]()
    for v in ("12345678901234567890.12345678901234567891", "1.00000000000000000000", None):
        avg.step(v)
    assert avg.finalize() == "6172839450617283945.561728394506172839455000"


def test_account_functions_are_384_characters_as_mariadbs():
    """USER(), CURRENT_USER() and the like: user@host in MariaDB's 384 characters (was 64)."""
    for ct in types_of("SELECT USER(), CURRENT_USER(), CURRENT_USER, SESSION_USER(), SYSTEM_USER()"):
        assert ct is not None and (ct.type, ct.length, ct.decimals) == (FieldType.VAR_STRING, 384 * 4, 39)


def test_a_long_decimal_literal_passed_on_stays_exact():
    """A long literal a value of IF / COALESCE / CASE, a string function's argument, or beside a
    column in arithmetic is bound as its exact text and computed as a DECIMAL
    (`exact.Finder.exact_operand`), its plan keyed by its kind; a short one stays SQLite's."""
    from engine.exact import EXACT
    from engine.translate import STORE, Translator

    def plan(sql):
        shape, params = extract(sql)
        return Translator(tokenize(shape), shape, "db", lambda schema, name: TABLE if name == "t" else None,
                          {"db"}, params).plan()

    for sql in (f"SELECT IF(1, {LONG}, 0)", f"SELECT COALESCE(NULL, {LONG})", f"SELECT CONCAT('a', {LONG})",
                f"SELECT CASE WHEN id = 1 THEN {LONG} ELSE 0 END FROM t", f"SELECT (SELECT {LONG})"):
        exact = plan(sql)
        assert any(type(a) is tuple and a[0] == STORE for a in exact.args), sql
        assert EXACT in dict(exact.literal_kinds).values(), sql
    assert "mysql_dec_add" in _translated(f"SELECT id + {LONG} FROM t")
    assert "mysql_dec_greatest" in _translated(f"SELECT GREATEST(id, {LONG}) FROM t")
    assert "mysql_dec_" not in _translated("SELECT id + 1.5, IF(1, 1.5, 0), GREATEST(id, 2) FROM t")
    assert plan("SELECT IF(1, 1.5, 0)").args == [0, 1, 2]
    ct, = types_of(f"SELECT IFNULL(v, {LONG}) FROM t")
    assert (ct.type, ct.length) == (FieldType.VAR_STRING, 41 * 4)  # characters, not v's bytes (40)
