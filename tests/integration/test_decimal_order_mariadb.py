"""DECIMAL values merged, ordered and divided as MariaDB 10.11 does, compared with a stock
MariaDB (`mariadb_compare.both_answer`, `described_answers`).

Covered: a UNION (ALL) column MariaDB makes a DECIMAL (an INT column, a DECIMAL column, a
number literal) ordered and deduplicated by value, at the top and inside a derived table (it
was ordered as SQLite orders mixed values: every integer and real before every text, -7.00,
5.00, 12.00, -1.50, 12.34, with 5 and 5.00 both kept); MOD / % / DIV of an INT column by a
literal with a point, of DOUBLE columns, with negative operands (a MOD 2.5 was SQLite's integer
remainder, 5 MOD 2.5 = 1.0 where MariaDB's is 0.0; -7 DIV 2.5 was -2.8, f MOD 2 0 for 2.5), and
a MOD by 0 NULL with the warning 1365 (it had none). Writes storing them (INSERT ... SELECT of a
MOD and of a UNION ordered with LIMIT) hold MariaDB's rows on our master, our slave and a MariaDB
replica.

A DECIMAL into a YEAR column: a negative one is 1264 even where it rounds to 0 (-0.4 stored 0000
here), and a DECIMAL expression's or literal's 0.4 selected is the number 0, 0000 (it was read as
the string '0.4', 2000); the string '0.4' stays 2000.

Definitions (`defined_answers`, text and binary protocol): CASE of DECIMALs binary (it was not),
COALESCE with an argument never NULL NOT NULL, an integer COALESCE binary, a UNION's DECIMAL
column not binary (it was), ROUND(c, 1) / TRUNCATE(c, 1) / ROUND(c) / ROUND(c, 3) / ROUND(e, -1)
of a DECIMAL(10,2) as wide as MariaDB's (they were 2 wider, ROUND(c, 3) 2 decimals; ROUND(-2.00,
-1) was -0), ABS of an INT a BIGINT, ROW_NUMBER() OVER w (a named window) never NULL (`w` was
read as an alias); LAG / LEAD with a third argument MariaDB 10.11's 1064 (it answered); a UNION
of a DOUBLE and a DECIMAL column ordered as doubles (5.00 and 12.34 came after 2.5 as texts); an
integer MOD as wide as its wider operand, an integer DIV as its dividend's digits, a BIGINT past 9
(they were one wider, INT DIV an INT), -12 MOD 2 0 (it was -0)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    both_answer,
    both_described,
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
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, c DECIMAL(10,2), e DECIMAL(10,2), f DOUBLE)",
    "INSERT INTO d.t VALUES (1, 5, 12.34, 3.00, 2.5), (2, -7, -1.50, -2.00, -1.5), (3, 12, 5.00, 0.00, 0)",
]

ORDERED = [
    "SELECT a FROM t UNION SELECT c FROM t ORDER BY 1",
    "SELECT a FROM t UNION SELECT c FROM t ORDER BY 1 DESC",
    "SELECT c FROM t UNION ALL SELECT 1.5 UNION ALL SELECT e FROM t ORDER BY 1",
    "SELECT c + 1 FROM t UNION SELECT a FROM t UNION SELECT -2.25 ORDER BY 1",
    "SELECT MAX(x), MIN(x), COUNT(*) FROM (SELECT a AS x FROM t UNION SELECT c FROM t) s",
    "SELECT x FROM (SELECT a AS x FROM t UNION ALL SELECT e FROM t) s ORDER BY x",
]

DIVIDED = [
    "SELECT a MOD 2.5, a % 2.5, a DIV 2.5, MOD(a, 2.5) FROM t ORDER BY id",
    "SELECT f MOD 2, a MOD f, f DIV 2, -a MOD 2.5, a MOD -2.5 FROM t ORDER BY id",
    "SELECT c MOD 2, c DIV e, c MOD e FROM t ORDER BY id",
    "SELECT id FROM t WHERE a MOD 2.5 = 0 ORDER BY id",
    "SELECT -a MOD 2, -a MOD 2.5, a MOD -2 FROM t ORDER BY id",
]


def test_decimal_union_columns_ordered_by_value_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, ORDERED)
    assert ours == theirs


def test_mod_and_div_of_doubles_and_literals_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, DIVIDED)
        assert ours == theirs
        theirs, ours = both_described(reference, master, [], ["SELECT a MOD 0, a MOD 2.5 FROM t ORDER BY id"])
    assert ours == theirs


WRITES = [
    "CREATE TABLE d.r (id INT PRIMARY KEY, m DECIMAL(10,2), q INT)",
    "INSERT INTO d.r SELECT id, a MOD 2.5, a DIV 2.5 FROM d.t",
    "INSERT INTO d.r SELECT id + 10, f MOD 2, -a MOD 2.5 FROM d.t",
    "INSERT INTO d.r SELECT 20, x, 0 FROM (SELECT a AS x FROM d.t UNION SELECT c FROM d.t ORDER BY x LIMIT 2) s"
    " ORDER BY x DESC LIMIT 1",
]


def test_writes_of_mod_and_union_values_on_replicas_too(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + WRITES:
                server.query(sql)
        assert_same_rows(reference, master, replicas, "SELECT id, m, q FROM d.r ORDER BY id")


YEAR_WRITES = [
    "CREATE TABLE y (id INT PRIMARY KEY, y YEAR)",
    "INSERT INTO y SELECT 1, -0.4",
    "INSERT INTO y VALUES (2, -0.4)",
    "INSERT INTO y SELECT 3, 0.4",
    "INSERT INTO y VALUES (4, 0.4)",
    "INSERT INTO y SELECT 5, e FROM t WHERE id = 3",
    "INSERT INTO y SELECT 6, c + 1 FROM t WHERE id = 2",
    "INSERT INTO y SELECT 7, c - 12 FROM t WHERE id = 1",
    "INSERT INTO y VALUES (8, '0.4')",
    "INSERT INTO y SELECT 9, 69.5",
]


def test_decimal_into_year_as_mariadb_on_replicas_too(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        theirs, ours = both_answer(reference, master, SETUP, YEAR_WRITES)
        assert ours == theirs
        assert_same_rows(reference, master, replicas, "SELECT id, y + 0 FROM d.y ORDER BY id")


DEFINED = [
    "SELECT CASE WHEN id > 1 THEN c ELSE e END, CASE id WHEN 1 THEN c END, COALESCE(c, a, 1.5), COALESCE(a, 1),"
    " COALESCE(NULL, c) FROM t ORDER BY id",
    "SELECT a FROM t UNION SELECT c FROM t ORDER BY 1",
    "SELECT ROUND(c, 1), TRUNCATE(c, 1), ROUND(c), ROUND(c, 3), TRUNCATE(c, 0), ROUND(e, -1), ABS(a), ABS(c)"
    " FROM t ORDER BY id",
    "SELECT ROW_NUMBER() OVER w FROM t WINDOW w AS (ORDER BY id)",
    "SELECT LAG(a, 1, 0) OVER (ORDER BY id) FROM t",
    "SELECT LEAD(COALESCE(a, 1), 1, 0) OVER (ORDER BY id) FROM t",
    "SELECT LAG(a, 1) OVER (ORDER BY id) FROM t",
    "SELECT c MOD e, a MOD c, a MOD 2.5, f MOD 2 FROM t ORDER BY id",
    "SELECT c FROM t UNION ALL SELECT a FROM t UNION ALL SELECT 1.5 ORDER BY c",
    "SELECT a MOD 2, a MOD id, id MOD 3, a % 0, a MOD -2, a DIV 2.5, a DIV 2, c DIV 2 FROM t ORDER BY id",
]


def test_decimal_definitions_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        assert defined_answers(master.port, "d", DEFINED) == defined_answers(reference.port, "d", DEFINED)
        ordered = ["SELECT f FROM t UNION SELECT c FROM t ORDER BY 1"]
        theirs, ours = both_answer(reference, master, [], ordered)
    assert ours == theirs
