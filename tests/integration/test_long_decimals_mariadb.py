"""DECIMAL literals and values with more digits than a double holds, compared with a stock
MariaDB 10.11 (`mariadb_compare.both_answer`, `defined_answers`, `raw_parameter_answers`).

Covered: a literal with a point and more than 15 digits selected alone or negated (it was read
as a double: 1.23456789012345678901234567890123456789 came back
1.23456789012345670000000000000000000000, a 68-digit one as 1e68), in literal arithmetic, ABS /
GREATEST / LEAST / ROUND of it and comparisons, IN and BETWEEN of literals only (SQLite compared
the doubles: two literals that differ past the 17th digit were equal); results with MariaDB's
largest scale 38, not MySQL's 30 (`a * 2` of a DECIMAL(40,38), a long literal + 0, / 3 had 30
decimals); their column definitions; a DECIMAL(M,D) column past MariaDB's limits refused as
MariaDB refuses it (D past 38 1425, M past 65 1426, M below D 1427; they were created). Writes
storing such literals and values (INSERT, INSERT ... SELECT of them and of arithmetic on them,
ON DUPLICATE KEY UPDATE a = literal, UPDATE SET b = b + literal, a column DEFAULT) hold
MariaDB's rows on our master, our slave and a MariaDB replica.
A DECIMAL parameter over the binary protocol: its digits kept (17 before), the text of one that
is no number read as its leading number with MariaDB's warnings 1918 / 1916 (it was refused with
1210)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    both_answer,
    defined_answers,
    mariadb_and_ours,
    raw_parameter_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

LONG = "1.23456789012345678901234567890123456789"

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a DECIMAL(40,38), b DECIMAL(65,10))",
    f"INSERT INTO d.t VALUES (1, {LONG}, 12345678901234567890.123456789), (2, 0.5, 12345678901234567890.1234567891)",
]

SELECTED = [
    f"SELECT {LONG}",
    "SELECT 99999999999999999999999999999999999999999999999999999999999999999999.5",
    f"SELECT -{LONG}, 1.5, -2.5, 1, 'a', 1e0",
    "SELECT 1.234567890123456789012345678901234567891234, 0.000000000000000000000000000000000000001",
    f"SELECT {LONG} + 0, {LONG} * 2, {LONG} / 3",
    f"SELECT ROUND({LONG}, 37), ABS(-{LONG}), GREATEST({LONG}, 1), LEAST(-{LONG}, 1.5)",
    "SELECT 1.23456789012345678901 = 1.23456789012345678902, 1.23456789012345678901 < 1.23456789012345678902,"
    " 1.23456789012345678901 IN (1.23456789012345678902, 2), 1.23456789012345678901 BETWEEN 1 AND 1.23456789012345678900",
    "SELECT ABS(5), ABS(-1.5), GREATEST(1, 2), 1 IN (1, 2), 1.5 = 1.50",
    "SELECT a * 2, a / 7, ROUND(a, 37), ABS(-a) FROM t ORDER BY id",
    "SELECT id FROM t WHERE a = 1.23456789012345678901234567890123456789",
    "SELECT id FROM t WHERE b > 12345678901234567890.123456789",
    "SELECT id FROM t WHERE b IN (12345678901234567890.1234567890, 1) AND a IN (0.5, 1.5)",
    "SELECT id FROM t ORDER BY b - 12345678901234567890.1234567890 DESC",
    "SELECT id, SUM(a) FROM t GROUP BY id HAVING SUM(a) > 1.23456789012345678901234567890123456788",
]

# the statement's plan is cached by its shape: a short literal's plan is not a long one's
CACHED = ["SELECT 1.5", f"SELECT {LONG}", "SELECT 7", f"SELECT -{LONG}", "SELECT -2.5",
          "SELECT ABS(-1.5)", f"SELECT ABS(-{LONG})", "SELECT 1.5 = 1.5", "SELECT 1.23456789012345678901 = 1.23456789012345678902"]


def test_long_decimal_literals_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, SELECTED + CACHED)
    assert ours == theirs


DEFINED = [
    f"SELECT {LONG}, -{LONG}",
    f"SELECT {LONG} + 0, {LONG} * 2, {LONG} / 3",
    "SELECT a * 2, a + 1, a / 7, ROUND(a, 37), a * a FROM t WHERE id = 2",
    "SELECT AVG(a), SUM(a) FROM t",
]


def test_long_decimal_definitions_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        assert defined_answers(master.port, "d", DEFINED) == defined_answers(reference.port, "d", DEFINED)


SIZES = [
    "CREATE TABLE d.w (x DECIMAL(65,39))",
    "CREATE TABLE d.w (x DECIMAL(66,2))",
    "CREATE TABLE d.w (x DECIMAL(5,6))",
    "CREATE TABLE d.w (x DECIMAL(66,39))",
    "CREATE TABLE d.w (x FIXED(40,39))",
    "CREATE TABLE d.w (x DECIMAL(38,38), y DECIMAL(65), z DECIMAL, n NUMERIC(65,38))",
    "ALTER TABLE d.w ADD COLUMN q DECIMAL(40,39)",
    "ALTER TABLE d.w MODIFY x DECIMAL(40,39)",
    "ALTER TABLE d.w CHANGE x x2 DECIMAL(66,1)",
    "INSERT INTO d.w (x) VALUES (0.12345678901234567890123456789012345678)",
    "SELECT x, x * 2, x / 3 FROM d.w",
]


def test_decimal_sizes_past_mariadbs_limits_as_mariadb(tmp_path):
    # a scale past 38 is 1425, a precision past 65 1426, M below D 1427 (they were created)
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, ["CREATE DATABASE d"], SIZES)
    assert ours == theirs


WRITES = [
    "CREATE TABLE d.u (id INT PRIMARY KEY, x DOUBLE, y DECIMAL(30,25) DEFAULT 1.2345678901234567890123,"
    " z DECIMAL(30,25) DEFAULT -1.2345678901234567890123)",
    "INSERT INTO d.t VALUES (3, 1.23456789012345678901234567890123456788, -12345678901234567890.1234567890)",
    "INSERT INTO d.t VALUES (4, -1.23456789012345678901234567890123456788, 12345678901234567890.1234567890 + 1)",
    "UPDATE d.t SET b = b + 12345678901234567890.1234567890, a = a - 0.00000000000000000000000000000000000001"
    " WHERE id = 1",
    "INSERT INTO d.t SELECT id + 10, a / 3, b * 1.0000000000000000001 FROM d.t WHERE id < 3",
    "INSERT INTO d.t SELECT 5, 1.23456789012345678901234567890123456787, -12345678901234567890.1234567891",
    "INSERT INTO d.t (id, a) SELECT id + 20, -1.23456789012345678901234567890123456787 FROM d.t WHERE id < 3",
    "INSERT INTO d.t VALUES (8, 0, 0) ON DUPLICATE KEY UPDATE a = 1.23456789012345678901234567890123456785",
    "INSERT INTO d.t VALUES (8, 0, 0) ON DUPLICATE KEY UPDATE a = 1.23456789012345678901234567890123456784",
    "INSERT INTO d.u (id, x, y) VALUES (1, 1.2345678901234567890123, 1.2345678901234567890123)",
    "INSERT INTO d.u (id) VALUES (2)",
]


def test_long_decimal_writes_on_replicas_too(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + WRITES:
                server.query(sql)
        assert_same_rows(reference, master, replicas, "SELECT id, a, b FROM d.t ORDER BY id")
        assert_same_rows(reference, master, replicas, "SELECT id, x, y, z FROM d.u ORDER BY id")


NEWDECIMAL = 246
TEXTS = [LONG.encode(), b"99999999999999999999999999999999999999999999999999999999999999999999.5", b"12ab",
         b" 3", b"1e2", b"-", b"", b"1.2.3", b"0x10", b"abc", b".5", b" -7x", b"NaN", b"1e", b"1e999", b"-1e999",
         b"1e-999", b"1" * 81 + b".5", b"1" * 82]


def test_decimal_parameters_as_mariadb(tmp_path):
    # the values and warnings (the column's type code is `prepared.param_type`'s)
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            server.query("CREATE DATABASE d")
        theirs = raw_parameter_answers(reference.port, "d", "SELECT ?", NEWDECIMAL, TEXTS)
        ours = raw_parameter_answers(master.port, "d", "SELECT ?", NEWDECIMAL, TEXTS)
        assert ours == theirs
        theirs = raw_parameter_answers(reference.port, "d", "SELECT ? + 1", NEWDECIMAL, TEXTS[:6])
        ours = raw_parameter_answers(master.port, "d", "SELECT ? + 1", NEWDECIMAL, TEXTS[:6])
    assert ours == theirs
