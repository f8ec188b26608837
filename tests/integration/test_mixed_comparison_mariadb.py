"""A number compared with a string answers as MariaDB 10.11's: both compared as numbers
(doubles: '01' = 1, '10' > 9, 'abc' = 0), where SQLite orders every number below every text
(`engine.exact.Finder.convert_operands`). Each statement runs on a stock MariaDB and on our master and
the answers are compared: integer, float and DECIMAL expressions against quoted numbers, character
columns and string functions against numbers, literals against literals, IN and BETWEEN, UPDATE and
DELETE (MariaDB's warnings aside), and prepared statements executed with a number and then a string for the same parameter
(one plan per kind of literal: `Plan.literal_kinds`).

Left out, where the two still differ: a bare INTEGER column against a string that is not a whole
number ('1abc', '': SQLite's affinity leaves it text, so nothing matches; MariaDB reads 1 and 0
with a warning); a DATE column against a date string not in its canonical form ('2024-1-5');
GREATEST / LEAST of a number and a string (MariaDB: a double); an UPDATE whose condition meets a
string that is not a number (strict mode makes MariaDB's warning 1292 an error there) or any
string-to-number conversion's warning."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours, prepared_answers

pytest.importorskip("mysql.connector")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, n INT, p DECIMAL(10,2), f DOUBLE, v VARCHAR(20), KEY (v))"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 1, 99.50, 1.5, '10'), (2, 2, 100.00, 2.5, '9'), (3, 10, 1000.25, 10.0, 'abc'),"
    " (4, NULL, NULL, NULL, NULL), (5, -3, -1.00, -0.5, '01'), (6, 0, 0, 0, ' 2.5x')",
    "CREATE TABLE d.s (id INT PRIMARY KEY, w VARCHAR(20)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.s VALUES (1, '1'), (2, '1.0'), (3, 'x'), (10, '10')",
]

QUERIES = [
    "SELECT id FROM t WHERE n + 0 > '1' ORDER BY id",
    "SELECT id FROM t WHERE n * 2 = '4' ORDER BY id",
    "SELECT id FROM t WHERE '1' < n + 0 ORDER BY id",
    "SELECT id FROM t WHERE -n = '-2' OR -1 = '-1.0' ORDER BY id",
    "SELECT id FROM t WHERE p > '100' ORDER BY id",
    "SELECT id FROM t WHERE p * 1 > '100' ORDER BY id",
    "SELECT id FROM t WHERE f > '2' ORDER BY id",
    "SELECT id FROM t WHERE f + 1 > '2' ORDER BY id",
    "SELECT id FROM t WHERE v = 10 ORDER BY id",
    "SELECT id FROM t WHERE v > 9 ORDER BY id",
    "SELECT id FROM t WHERE v = 1 ORDER BY id",
    "SELECT id FROM t WHERE v = 0 ORDER BY id",
    "SELECT id FROM t WHERE v = 2.5 ORDER BY id",
    "SELECT id FROM t WHERE v = '10' OR v = '01' ORDER BY id",
    "SELECT id FROM t WHERE v IN (1, 9) ORDER BY id",
    "SELECT id FROM t WHERE v BETWEEN 2 AND 9.5 ORDER BY id",
    "SELECT id FROM t WHERE n = v ORDER BY id",
    "SELECT id FROM t WHERE f = v OR n > v ORDER BY id",
    "SELECT id FROM t WHERE ABS(n) = '3' ORDER BY id",
    "SELECT id FROM t WHERE LENGTH(v) = '2' ORDER BY id",
    "SELECT id FROM t WHERE CONCAT(v) = 10 ORDER BY id",
    "SELECT id FROM t WHERE UPPER(v) > 5 ORDER BY id",
    "SELECT id FROM t WHERE TRIM(v) < 3 ORDER BY id",
    "SELECT 1 = '1', 2 > '10', '2' > '10', 1 + 1 = '2', '10' = 10.0, 'abc' = 0, 1.5 = '1.50', '1e1' = 10",
    "SELECT 'a' = 'A', 'a' < 'b', '10' < '9', 0 = 'x', '1x' = 1, NULL = '1', 1 <=> '1', 1 <> '01'",
    "SELECT id, n + 0 = '1', n IN ('1', '2'), n + 0 IN ('1', '2'), n + 0 NOT IN ('1') FROM t ORDER BY id",
    "SELECT id FROM t WHERE n + 0 BETWEEN '1' AND '5' ORDER BY id",
    "SELECT id FROM t WHERE n + 0 NOT BETWEEN '1' AND '5' ORDER BY id",
    "SELECT id, CASE WHEN n + 0 > '5' THEN 'big' ELSE 'small' END, IF(v > 5, 'y', 'n') FROM t ORDER BY id",
    "SELECT id FROM t WHERE COALESCE(n, 0) > '1' ORDER BY id",
    "SELECT id FROM t WHERE (SELECT COUNT(*) FROM t) > '3' ORDER BY id",
    "SELECT n, COUNT(*) AS c FROM t GROUP BY n HAVING c >= '1' AND MAX(id) > '2' ORDER BY n",
    "SELECT t.id FROM t JOIN s ON s.w = t.n ORDER BY t.id, s.id",
    "SELECT s.id FROM s WHERE s.w = 1 ORDER BY s.id",
    "SELECT s.id FROM s WHERE s.w = '1' ORDER BY s.id",
    "SELECT id FROM t WHERE v + 0 > 5 ORDER BY id",
    "SELECT id FROM t WHERE v > '5' ORDER BY id",
    "UPDATE s SET w = CONCAT(w, '!') WHERE id < 3 AND w = 1",
    "DELETE FROM s WHERE w = 10",
    "SELECT id, w FROM s ORDER BY id",
]

# the same statements with a number, then a string, then a number again for one parameter
PREPARED = [
    ("SELECT id FROM t WHERE v = ? ORDER BY id", (10,)),
    ("SELECT id FROM t WHERE v = ? ORDER BY id", ("10",)),
    ("SELECT id FROM t WHERE v = ? ORDER BY id", (1,)),
    ("SELECT id FROM t WHERE v = ? ORDER BY id", ("01",)),
    ("SELECT id FROM t WHERE n + 0 > ? ORDER BY id", ("1",)),
    ("SELECT id FROM t WHERE n + 0 > ? ORDER BY id", (1,)),
    ("SELECT id FROM t WHERE UPPER(v) > ? ORDER BY id", (5,)),
    ("SELECT id FROM t WHERE UPPER(v) > ? ORDER BY id", ("5",)),
    ("SELECT ? = ?, ? < ?", (1, "1", "10", 9)),
    ("SELECT ? = ?, ? < ?", ("1", "01", "10", "9")),
    ("SELECT ? = ?, ? < ?", (1, "01", 10, "9")),
]


def test_numbers_and_strings_compare_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("SELECT id FROM t WHERE v = 1 ORDER BY id", ("rows", ((5,),))) in theirs
        assert ours == theirs
        expected = prepared_answers(reference.port, "d", PREPARED, rows=True)
        assert expected[0][2] == [(1,)] and expected[3][2] == [(5,)]
        assert prepared_answers(master.port, "d", PREPARED, rows=True) == expected
