"""Expression values MariaDB 10.11 gives exactly, compared with a stock MariaDB
(`mariadb_compare.defined_answers`, `both_answer`, `reference_ours_and_replicas`).

Covered: a DECIMAL literal with more digits than a double holds passed on by IF, IFNULL,
COALESCE, NULLIF, CASE, a scalar subquery, a UNION branch, CONCAT, FORMAT, GREATEST / LEAST, and
added to or multiplied by a column (SQLite read it as a double: IF(1, 1.2345678901234567890123456789,
0) was 1.2345678901234567000000000000), with MariaDB's result types, scales and NOT NULL flags,
over the text and the binary protocol; an INSERT ... SELECT IF(...) of one storing the exact value
on our master, our slave and a MariaDB replica. JSON_EXTRACT compared with a string (a JSON string
unquoted: '"w"' = 'w') and with a number (its number) as MariaDB's comparator reads it, IN and LIKE
reading its text as written; `->` and `->>`, which MariaDB 10.11 has not, its 1064 (they ran as
SQLite's). CAST of a BIT column AS CHAR / BINARY its bytes (it was its digits, '65'), of a latin1
column AS BINARY its latin1 bytes (they were UTF-8's). A binary string (X'..', 0x.., _binary,
a VARBINARY or BLOB column, CAST AS BINARY, CONCAT of one) left as it is by UPPER / LOWER and
typed binary (UPPER(0x61) was 'A', utf8mb4), CAST(X'0a000002' AS INET4) 10.0.0.2 (it was NULL)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    assert_same_rows,
    both_answer,
    defined_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

LONG = "1.2345678901234567890123456789"
NEWDECIMAL = 246

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, d DECIMAL(30,25), s VARCHAR(10))",
    f"INSERT INTO d.t VALUES (1, {LONG}, 'a'), (2, NULL, NULL)",
]

PASSED_ON = [
    f"SELECT IF(1, {LONG}, 0), IF(1, {LONG}, 0.5), IF(1, {LONG}, 'x')",
    f"SELECT COALESCE(NULL, {LONG}), IFNULL(NULL, {LONG}), NULLIF({LONG}, 0)",
    f"SELECT CASE WHEN 1 THEN {LONG} ELSE 0 END, CASE 1 WHEN 1 THEN {LONG} END",
    f"SELECT CONCAT({LONG}), CONCAT('a', {LONG}), GREATEST({LONG}, 0), LEAST({LONG}, 2)",
    "SELECT IF(1, 0.00000000000000000000000000001, 0), COALESCE(NULL, 12345678901234567890.123456789012)",
    f"SELECT IF(1, {LONG}, 0) + 1, IF(1, {LONG}, 0) * id FROM t ORDER BY id",
    f"SELECT id + {LONG}, id * {LONG}, {LONG} - id, -{LONG} + id FROM t ORDER BY id",
    f"SELECT IF(id = 1, NULL, {LONG}), IFNULL(d, 1.5), IFNULL(s, {LONG}) FROM t ORDER BY id",
    f"SELECT CASE WHEN id = 1 THEN {LONG} END, GREATEST(id, {LONG}), CONCAT('a', {LONG}, id) FROM t ORDER BY id",
    f"SELECT (SELECT {LONG} FROM t WHERE id = 1)",
]


def _defined_as_mariadb(base, setup: list[str], queries: list[str]) -> None:
    """`setup` on a MariaDB and on our master, then each query's result columns and rows over the
    text protocol and prepared (`defined_answers`) the same on both."""
    with mariadb_and_ours(base, mariadb_extra=OUR_SERVER_CHARSET) as (reference, master):
        for server in (reference, master):
            for sql in setup:
                server.query(sql)
        assert defined_answers(master.port, "d", queries) == defined_answers(reference.port, "d", queries)


def test_long_decimals_passed_on_as_mariadb(tmp_path):
    # values, result types and flags, over the text protocol and prepared
    _defined_as_mariadb(tmp_path, SETUP, PASSED_ON)


VALUES = [
    f"SELECT IF(1, {LONG}, 0) > 1.2345678901234567890123456788, COALESCE(NULL, {LONG}) = {LONG}",
    f"SELECT (SELECT {LONG})",
    f"SELECT {LONG} UNION SELECT 1 ORDER BY 1",
    f"SELECT 1 UNION ALL SELECT {LONG} ORDER BY 1",
    f"SELECT FORMAT({LONG}, 25), FORMAT(-{LONG}, 27)",
]


PARAMETERS = [
    ("SELECT IF(1, ?, 0), COALESCE(NULL, ?)", ((NEWDECIMAL, LONG), (NEWDECIMAL, LONG))),
    ("SELECT id + ?, CASE WHEN id = 1 THEN ? END FROM t ORDER BY id", ((NEWDECIMAL, LONG), (NEWDECIMAL, LONG))),
]


def test_long_decimal_values_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, VALUES)
        assert ours == theirs
        # a DECIMAL parameter's digits (COM_STMT_EXECUTE's binary rows)
        theirs = [(sql, binary[2]) for sql, _text, binary in defined_answers(reference.port, "d", PARAMETERS)]
        ours = [(sql, binary[2]) for sql, _text, binary in defined_answers(master.port, "d", PARAMETERS)]
    assert ours == theirs


WRITES = [
    "CREATE TABLE d.w (id INT PRIMARY KEY, x DECIMAL(30,28), y DECIMAL(40,28))",
    f"INSERT INTO d.w SELECT 1, IF(1, {LONG}, 0), COALESCE(NULL, {LONG})",
    f"INSERT INTO d.w SELECT id + 1, CASE WHEN id = 1 THEN {LONG} ELSE 0 END, id + {LONG} FROM d.t",
    f"UPDATE d.w SET y = IFNULL(NULL, {LONG}) + id WHERE id = 3",
]


def test_long_decimal_writes_on_replicas_too(tmp_path):
    # the statements are logged as written: each replica computes them again
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + WRITES:
                server.query(sql)
        assert_same_rows(reference, master, replicas, "SELECT id, x, y FROM d.w ORDER BY id")


JSON_SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.j (id INT PRIMARY KEY, doc JSON)",
    """INSERT INTO d.j VALUES (1, '{"k": "w"}'), (2, '{"k": 5}'), (3, '{"k": "\\\\"w\\\\""}'), (4, '{"k": [1]}'),"""
    """ (5, '{"k": true}'), (6, '{"k": "5"}'), (7, '{"k": 5.50}'), (8, '{"k": "a\\\\u0062"}'), (9, '{"k": null}'),"""
    """ (10, '{"k": "W"}'), (11, '{"k": "12abc"}')""",
]

JSON_COMPARED = [
    "SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') = 'w'",
    """SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') = '"w"'""",
    "SELECT id FROM j WHERE 'w' = JSON_EXTRACT(doc, '$.k')",
    "SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') <> 'w' ORDER BY id",
    "SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') = 5 ORDER BY id",
    "SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') = true",
    "SELECT id FROM j WHERE JSON_EXTRACT(doc, '$.k') = 'w' OR JSON_EXTRACT(doc, '$.k') > 4 ORDER BY id",
    "SELECT id, JSON_EXTRACT(doc, '$.k') = 0, JSON_EXTRACT(doc, '$.k') = '5', JSON_EXTRACT(doc, '$.k') = 5.5,"
    " JSON_EXTRACT(doc, '$.k') = 'ab', JSON_EXTRACT(doc, '$.k') = 'null', JSON_EXTRACT(doc, '$.k') < 'x',"
    " JSON_EXTRACT(doc, '$.k') = 12, JSON_EXTRACT(doc, '$.k') = _binary'w' FROM j ORDER BY id",
    "SELECT id, JSON_EXTRACT(doc, '$.k') IN ('w', '5'), JSON_EXTRACT(doc, '$.k') LIKE 'w',"
    " JSON_UNQUOTE(JSON_EXTRACT(doc, '$.k')) = 'w', JSON_VALUE(doc, '$.k') = 'w' FROM j ORDER BY id",
    """SELECT JSON_EXTRACT('["w", "x"]', '$[0]') = 'w', JSON_EXTRACT('{"a":"w","b":"x"}', '$.*') = '["w", "x"]'""",
    "SELECT id FROM j WHERE doc->'$.k' = 'w'",
    "SELECT id FROM j WHERE doc->>'$.k' = 'w'",
]


def test_json_extract_compared_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, JSON_SETUP, JSON_COMPARED)
    assert ours == theirs


CAST_SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.b (id INT PRIMARY KEY, b1 BIT(1), b8 BIT(8), b12 BIT(12), b64 BIT(64),"
    " l VARCHAR(10) CHARACTER SET latin1, c CHAR(5) CHARACTER SET latin1)",
    "INSERT INTO d.b VALUES (1, 1, b'01000001', 65, b'0100000101000010', 'café', 'é'),"
    " (2, 0, b'1010', 4095, 18446744073709551615, 'abc', NULL)",
]

CASTS = [
    "SELECT CAST(b8 AS CHAR), CAST(b8 AS BINARY), CONVERT(b8, CHAR) FROM b ORDER BY id",
    "SELECT HEX(CAST(b1 AS BINARY)), HEX(CAST(b64 AS BINARY)), HEX(CAST(b12 AS BINARY)), HEX(CAST(b12 AS CHAR))"
    " FROM b ORDER BY id",
    "SELECT CAST(b.b64 AS BINARY(3)) FROM b ORDER BY id",
    "SELECT CAST(l AS CHAR), CAST(l AS BINARY), HEX(CAST(l AS BINARY)), CONVERT(l, BINARY) FROM b ORDER BY id",
    "SELECT HEX(CAST(c AS BINARY)), CAST(c AS BINARY), CAST(b.c AS BINARY(1)) FROM b ORDER BY id",
]


def test_casts_of_bit_and_latin1_columns_as_mariadb(tmp_path):
    _defined_as_mariadb(tmp_path, CAST_SETUP, CASTS)


BINARY_SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.v (id INT PRIMARY KEY, vb VARBINARY(10), bb BLOB, c VARCHAR(10))",
    "INSERT INTO d.v VALUES (1, X'41', 'ab', 'xY'), (2, X'6162', X'0a000002', NULL)",
]

# a string literal's statement shape is X'..''s: each plan kept apart by the literal's kind
BINARY_STRINGS = [
    "SELECT UPPER('abc')",
    "SELECT UPPER(X'616263')",
    "SELECT UPPER('xyz')",
    "SELECT UPPER(0x61)",
    "SELECT UPPER(X'61'), LCASE(0x41), UPPER(_binary'abc'), UPPER(BINARY 'abc'), LOWER(CAST('ABC' AS BINARY))",
    "SELECT REVERSE(X'6162'), UPPER(CONCAT(X'61', 'b')), UPPER(X'c3a9'), LOWER(X'C389'), CONCAT(X'41', 'b')",
    "SELECT UPPER(vb), LOWER(vb), UPPER(c), UPPER(bb), LCASE(CONCAT(vb, c)) FROM v ORDER BY id",
    "SELECT CAST(X'0a000002' AS INET4), CAST(0x0a000002 AS INET4), CAST('10.0.0.2' AS INET4)",
    "SELECT CAST(X'20010db8000000000000000000000001' AS INET6), CAST(X'0a0000' AS INET4)",
    "SELECT CAST(bb AS INET4), CAST(vb AS INET4) FROM v ORDER BY id",
    "SELECT CAST('10.0.0.3' AS INET4)",
]


def test_binary_strings_kept_binary_as_mariadb(tmp_path):
    _defined_as_mariadb(tmp_path, BINARY_SETUP, BINARY_STRINGS)
