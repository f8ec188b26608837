"""Integer and DOUBLE overflow and DOUBLE rounding against a live MariaDB 10.11: + - * past
BIGINT (or BIGINT UNSIGNED, when an operand is one) fail with 1690 and the expression as MariaDB
prints it (`exact.Finder.arithmetic`, `functions._checked`), where SQLite turns to a REAL; a
literal expression past DOUBLE too; ROUND of a literal with an exponent rounds half to even
(rint); HEX of an integer literal from 2^63 is its 64 bits'."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED, i INT)",
    "INSERT INTO d.t VALUES (1, 9223372036854775807, 18446744073709551615, 2147483647),"
    " (2, -9223372036854775808, 0, -2147483648), (3, 5, 5, 5)",
]

QUERIES = [
    "SELECT 9223372036854775807+1",
    "SELECT -9223372036854775808-1",
    "SELECT 9223372036854775807*2",
    "SELECT -9223372036854775807-1, 9223372036854775806+1, 18446744073709551615 - 1, -1 + 18446744073709551615",
    "SELECT 18446744073709551615+1",
    "SELECT ~0 + 1",
    "SELECT 5 - ~0",
    "SELECT 2 - CAST(3 AS UNSIGNED)",
    "SELECT CAST(-1 AS UNSIGNED) + 1",
    "SELECT 1 - 18446744073709551615",
    "SELECT b+1 FROM d.t WHERE id=1",
    "SELECT x.b+1 FROM d.t x WHERE id=1",
    "SELECT (b+1)*2 FROM d.t WHERE id=1",
    "SELECT b+(1+2) FROM d.t WHERE id=1",
    "SELECT b - -1 FROM d.t WHERE id=1",
    "SELECT b-1 FROM d.t WHERE id=2",
    "SELECT -b FROM d.t WHERE id=2",
    "SELECT b + i FROM d.t WHERE id=1",
    "SELECT i*i*i*i*i FROM d.t WHERE id=1",
    "SELECT 1 FROM d.t WHERE b + 1 > 0",
    "SELECT b FROM d.t ORDER BY b * 2",
    "SELECT u+1 FROM d.t WHERE id=1",
    "SELECT u-1 FROM d.t WHERE id=2",
    "SELECT u*2 FROM d.t WHERE id=1",
    "SELECT u + b FROM d.t WHERE id=1",
    "SELECT u DIV 1 + 1 FROM d.t WHERE id = 1",
    "SELECT id, b + 0, b - 5, u - 5, u + -1, i * i, CAST(b AS UNSIGNED) + CAST(b AS UNSIGNED) FROM d.t ORDER BY id",
    "SELECT 1e308*10",
    "SELECT 1e300 * 1e300",
    "SELECT 1.5 * 1e308",
    "SELECT ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(2.25e0, 1), ROUND(0.125e0, 2)",
    "SELECT ROUND(2.5), ROUND(-2.5), ROUND(2.25, 1)",
    "SELECT HEX(18446744073709551615), HEX(9223372036854775808), HEX(9223372036854775807),"
    " HEX(18446744073709551616)",
    "UPDATE d.t SET b = b + 1 WHERE id = 1",
    "UPDATE d.t SET u = u - 1 WHERE id IN (2, 3)",
    "UPDATE d.t SET b = b + 1 WHERE id = 3",
    "SELECT id, b, u FROM d.t ORDER BY id",
]


def test_overflow_and_double_rounding_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
    assert ours == theirs
