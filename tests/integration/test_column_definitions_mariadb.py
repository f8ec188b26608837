"""Result column definitions in full as MariaDB 10.11 sends them: each column's name, type code,
length, decimals, flags and character set number, with the rows, over the text protocol and the
binary one (COM_STMT_PREPARE's definitions, COM_STMT_EXECUTE's and its binary rows), on a stock
MariaDB and on our master (`mariadb_compare.defined_answers`).

Covered: CAST(x AS SIGNED / UNSIGNED / INTEGER) as wide as x (a DOUBLE 20, at most 21), an INT
up to 9 characters, UNSIGNED of what may be negative 20 wide (they were all BIGINT(21)), and a
date's or time's value its digits (CAST(DATE '2024-01-05' AS SIGNED) 20240105: it was 2024);
INT column times a DECIMAL literal rounded half away from zero (it was rounded half to even);
the window functions: ROW_NUMBER / RANK / DENSE_RANK / NTILE / COUNT never NULL, PERCENT_RANK /
CUME_DIST / MEDIAN / PERCENTILE_CONT DOUBLEs 17 or 18 wide, LAG / LEAD / FIRST_VALUE /
LAST_VALUE / NTH_VALUE / PERCENTILE_DISC their argument's type as a temporary field holds it
(they were typed from their rows: a BIGINT, a VARCHAR, a DECIMAL as a string); DECIMAL
arithmetic (+ - * / DIV MOD, unary -) as wide as MariaDB's result precisions, an INT column of 10
digits and an integer literal of its own (a * 2.5 was 15 wide, MariaDB 14; 1 + 2 2, MariaDB 3), a
division, DIV or MOD of constants possibly NULL; CAST(id * 2.5 AS SIGNED) rounded half away from
zero as a DECIMAL (it was 2 for 2.5, MariaDB 3); IF / IFNULL / GREATEST / LEAST of an INT and a
DECIMAL as wide as their widest integer part (they were one wider), NULLIF its first argument's
type, and ABS / MIN / MAX / LEAST of a DECIMAL column binary as MariaDB's; a derived
table's or a CTE's columns named alike by integer, string or NULL literals, SELECT * FROM
(SELECT 1, 1) t, MariaDB's 1060 (it answered, naming the columns '?' and '?:1'); CAST(x AS CHAR)
and CAST(x AS BINARY) as long as x (they were 255 characters; a TEXT's a MEDIUM_BLOB in
MariaDB), BINARY x as long as x's bytes and nullable (BINARY 'ab' was 2 long, NOT NULL), a
_binary literal's decimals 39 (0), N'x' as long as its text (1,024).

A date or time parameter of a prepared SELECT is of its type, DATE, TIME or DATETIME, and its
value one (`SELECT ?` with a MYSQL_TYPE_DATETIME parameter was a VARCHAR holding its text,
DATE_ADD(?, INTERVAL 1 DAY) a CHAR); compared by type code, decimals and values (MariaDB's
lengths for a parameter, 19 for a DATETIME with a fraction, 23 for a TIME, and its column name
'?', differ here).

Also a literal with a point selected into a YEAR column (INSERT ... SELECT 69.5) stored as
MariaDB's DECIMAL is, rounded half away from zero (1970; 99.5 is 100, 1264), on the master and on
its replicas: it was truncated as a DOUBLE (2069, and 99.5 stored 1999)."""

from __future__ import annotations

import datetime

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
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

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b BIGINT UNSIGNED, c DECIMAL(10,2), e DECIMAL(5,3), f DOUBLE,"
    " g FLOAT, s VARCHAR(20), l VARCHAR(10) CHARACTER SET latin1, x TEXT, d DATE, dt DATETIME(3), tm TIME(2),"
    " ts TIMESTAMP NULL, y YEAR, j JSON, bn VARBINARY(8), ti TINYINT, si SMALLINT UNSIGNED, bt BIT(5))"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 5, 7, 12.34, 1.5, 2.5, 1.25, 'abc', 'xyz', 'long text', '2024-01-05',"
    " '2024-01-05 10:11:12.345', '10:11:12.34', '2024-03-01 00:00:00', 2024, '{\"a\":1}', 'bb', -3, 9, 5),"
    " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL), (3, -7, 0, -1.5, 0.001, -0.5, 3, 'Q', 'é', '', '2023-12-31', '2023-12-31 23:59:59', '-01:00:00', NULL,"
    " 1999, '[1,2]', '', 100, 65535, 31)",
]

_CAST_OPERANDS = ["a", "ti", "si", "b", "c", "e", "f", "g", "s", "l", "x", "d", "dt", "tm", "ts", "y", "j", "bn", "bt",
                  "1", "12345678901", "'12'", "1.5", "-1.5", "1e3", "NULL", "'abcdefghijklmnopqrstuvwxyz'", "a+1",
                  "-a", "X'0102'", "CONCAT(a)", "DATE '2024-01-05'", "TIME '-01:00:00'"]

QUERIES = [
    *(f"SELECT {', '.join(f'CAST({x} AS {target})' for x in _CAST_OPERANDS)} FROM t ORDER BY id"
      for target in ("SIGNED", "UNSIGNED", "INTEGER")),
    # (a BIT's and a latin1 column's CHAR / BINARY values differ here: their text, UTF-8 bytes)
    *(f"SELECT {', '.join(f'CAST({x} AS {target})' for x in _CAST_OPERANDS if x not in ('bt', 'l'))} FROM t ORDER BY id"
      for target in ("CHAR", "BINARY")),
    "SELECT _binary'ab', BINARY 'ab', BINARY 5, BINARY a, N'x', n'\u00e9\u00e9', _utf8mb4'x', X'0102', CAST(s AS CHAR(5))"
    " FROM t ORDER BY id",
    "SELECT LAG(id) OVER (ORDER BY id), FIRST_VALUE(id) OVER (ORDER BY id), LAG(a, 2) OVER (ORDER BY id),"
    " LEAD(d) OVER (ORDER BY id), LAG(f) OVER (ORDER BY id), LAG(b) OVER (ORDER BY id), LAG(l) OVER (ORDER BY id),"
    " LAG(j) OVER (ORDER BY id), LAG(x) OVER (ORDER BY id), LAG(tm) OVER (ORDER BY id), LEAD(c) OVER (ORDER BY id),"
    " FIRST_VALUE(s) OVER (ORDER BY id), LAST_VALUE(d) OVER (ORDER BY id), NTH_VALUE(dt, 2) OVER (ORDER BY id)"
    " FROM t ORDER BY id",
    "SELECT LAG(a+1) OVER (ORDER BY id), LAG(1) OVER (ORDER BY id), FIRST_VALUE('abc') OVER (ORDER BY id),"
    " NTH_VALUE(c, 1) OVER (ORDER BY id), LAST_VALUE(bt) OVER (ORDER BY id), LAG(y) OVER (ORDER BY id),"
    " LAG(ti) OVER (ORDER BY id), LAG(g) OVER (ORDER BY id), LAG(bn) OVER (ORDER BY id) FROM t ORDER BY id",
    "SELECT NTILE(2) OVER (ORDER BY id), ROW_NUMBER() OVER (ORDER BY id), RANK() OVER (ORDER BY id),"
    " DENSE_RANK() OVER (ORDER BY id), PERCENT_RANK() OVER (ORDER BY id), CUME_DIST() OVER (ORDER BY id)"
    " FROM t ORDER BY id",
    "SELECT SUM(a) OVER (ORDER BY id), COUNT(*) OVER (), AVG(c) OVER (PARTITION BY id), MAX(s) OVER (),"
    " MIN(d) OVER () FROM t ORDER BY id",
    "SELECT MEDIAN(a) OVER (), PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) OVER (),"
    " PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY c) OVER (), COUNT(a) OVER () FROM t ORDER BY id",
    # DECIMAL and integer arithmetic: MariaDB's result precisions (an INT column's 10 digits, an
    # integer literal's own), a division, DIV or MOD possibly NULL
    "SELECT a*2.5, id*2.5, c*2, c*a, 2*2.5, c*e, a+c, c-1, c+e, a/3, c/e, c DIV 2, c MOD 3, -c, b*1.5,"
    " si*1.5, ti+1.5, c*-2, a*-2.5 FROM t ORDER BY id",
    "SELECT a+1, a*2, a-b, b+1, ti*si, a DIV 2, a/2, 1/3, 1.0/3, 5 DIV 2, 7 MOD 2, 2.50*1.5, a % 3, f*2, g+1, f/c"
    " FROM t ORDER BY id",
    "SELECT c+1, c+1.5, 1.5+c, c-c, c*c, c/c, c/3, 10/c, e/a, b/2, si/2, ti/ti, -e, e*e*e, b MOD 1.5"
    " FROM t ORDER BY id",
    "SELECT 1+2, 1.5+2.25, 10/4, 2*3.5, 100 DIV 7, 7.5 MOD 2, -1.5*2, 12345678901*1.5, 0.1+0.2 FROM t ORDER BY id",
    "SELECT CAST(id*2.5 AS SIGNED), CAST(a*2.5 AS SIGNED), SUM(c), AVG(c), SUM(a), AVG(a), SUM(e*2), MAX(c+1)"
    " FROM t GROUP BY id ORDER BY id",
    # IF / IFNULL / NULLIF / GREATEST / LEAST / ABS / MIN / MAX over DECIMAL and INT
    "SELECT GREATEST(a, c), LEAST(c, 1.5), IF(a > 0, c, a), IFNULL(a, c), NULLIF(c, 1), ABS(c) FROM t ORDER BY id",
    "SELECT SUM(c), AVG(c), MIN(c), MAX(c), SUM(e), AVG(a), SUM(b), AVG(b), SUM(ti), SUM(f), AVG(f), COUNT(c),"
    " BIT_AND(a), GROUP_CONCAT(c) FROM t",
    # a derived table's or CTE's columns named alike by their literals: 1060 (the same shape
    # with other values answers)
    "SELECT COUNT(*) FROM (SELECT 1, 2) t2",
    "SELECT * FROM (SELECT 1, 1) t2",
    "SELECT COUNT(*) FROM (SELECT 1, 1) t2",
    "SELECT COUNT(*) FROM (SELECT 1, 2) t2",
    "SELECT * FROM (SELECT 'a', 'A') t2",
    "SELECT * FROM (SELECT NULL, NULL) t2",
    "SELECT * FROM (SELECT id, 'id' FROM t) t2",
    "WITH c AS (SELECT 1, 1) SELECT * FROM c",
]


def _differences(theirs: list[tuple], ours: list[tuple]) -> str:
    return "\n".join(f"{t[0]}\n    MariaDB {t[1:]}\n    ours    {o[1:]}"
                     for t, o in zip(theirs, ours, strict=True) if t != o)


def test_column_definitions_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = defined_answers(reference.port, "d", QUERIES), defined_answers(master.port, "d", QUERIES)
    # what the comparison stands on: MariaDB's own definition of a CAST of an INT column
    assert theirs[0][1][0][0] == ("CAST(a AS SIGNED)", 8, 11, 0, 128, 63)
    assert _differences(theirs, ours) == ""


# INSERT ... SELECT of literals with a point into a YEAR column (the last one 1264)
YEAR_WRITES = [f"INSERT INTO y (id, y) SELECT {n}, {value}" for n, value in enumerate(
    ("69.5", "2000.5", "1.5", "1969.5", "70.5", "0.5", "2155.4", "69.4", "99.5"), start=1)]


def test_year_from_a_selected_decimal_as_mariadb_on_replicas_too(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        setup = ["CREATE DATABASE d", "CREATE TABLE d.y (id INT PRIMARY KEY, y YEAR)"]
        theirs, ours = both_answer(reference, master, setup, YEAR_WRITES)
        assert theirs[-1][1][:2] == ("error", 1264)  # (what the comparison stands on)
        assert ours == theirs
        assert_same_rows(reference, master, replicas, "SELECT id, y FROM d.y ORDER BY id")


_DATETIME, _DATE, _TIME = 12, 10, 11  # MYSQL_TYPE_*
PARAMETERS = [
    ("SELECT ?", ((_DATETIME, datetime.datetime(2024, 1, 2, 3, 4, 5)),)),
    ("SELECT ?", ((_DATETIME, datetime.datetime(2024, 1, 2, 3, 4, 5, 120000)),)),
    ("SELECT ?", ((_DATE, datetime.date(2024, 1, 2)),)),
    ("SELECT ?", ((_TIME, datetime.timedelta(hours=3, seconds=5)),)),
    ("SELECT ?", ((_TIME, datetime.timedelta(hours=-3, microseconds=5)),)),
    ("SELECT ? AS x, id FROM t ORDER BY id", ((_DATETIME, datetime.datetime(2024, 1, 2, 3, 4, 5)),)),
    ("SELECT id FROM t WHERE d < ? ORDER BY id", ((_DATE, datetime.date(2024, 1, 2)),)),
    ("SELECT CONCAT(?, 'x'), DATE_ADD(?, INTERVAL 1 DAY)", ((_DATE, datetime.date(2024, 1, 2)),) * 2),
    ("SELECT COALESCE(?, d) FROM t ORDER BY id", ((_DATETIME, datetime.datetime(2024, 1, 2, 3, 4, 5)),)),
]


def _typed(answer: tuple) -> tuple:
    """A prepared answer's execution: each column's type code and decimals, and the rows."""
    _, executed, rows = answer
    return [(code, decimals) for _, code, _, decimals, _, _ in executed], rows


def test_temporal_parameters_of_a_select_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = (defined_answers(server.port, "d", PARAMETERS) for server in (reference, master))
    assert _typed(theirs[0][2]) == ([(12, 0)], [(datetime.datetime(2024, 1, 2, 3, 4, 5),)])  # (what it stands on)
    assert [_typed(o[2]) for o in ours] == [_typed(t[2]) for t in theirs]
