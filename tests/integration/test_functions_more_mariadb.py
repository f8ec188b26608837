"""Functions whose answers or result types differed from MariaDB 10.11's, against a live one:
FROM_UNIXTIME(t, format) is a string as DATE_FORMAT's (it was typed DATETIME, which clients
read as a date: PyMySQL failed on '2024'); FORMAT(X, D, locale) in the locale's decimal point
and grouping (en_US's whatever the locale was: de_DE's 1.234.567,89 was 1,234,567.89; en_IN's
lakh grouping, a locale of no separator, a name in any case), an unknown or NULL locale en_US's
with warning 1649, and -0.4 to 0 places '0' (it was '-0'). Each statement runs on a stock MariaDB and on our
master and the answers (values and Python types) are compared."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.t (id INT PRIMARY KEY, ts INT, f VARCHAR(20))",
    "INSERT INTO d.t VALUES (1, 1709596800, '%Y-%m'), (2, 0, '%d')",
]

QUERIES = [
    "SELECT FROM_UNIXTIME(1709596800, '%Y'), FROM_UNIXTIME(1709596800, '%Y-%m-%d %H:%i:%s'), FROM_UNIXTIME(1709596800)",
    "SELECT FROM_UNIXTIME(ts, f), FROM_UNIXTIME(ts) FROM t ORDER BY id",
    "SELECT FORMAT(1234567.891, 2), FORMAT(1234567.891, 2, 'de_DE'), FORMAT(1234.5, 1, 'DE_de'),"
    " FORMAT(-0.5, 0, 'de_DE'), FORMAT(1234567.891, 2, 'en_IN'), FORMAT(1e20, 2, 'de_DE'), FORMAT(12345, -2, 'fr_FR'),"
    " FORMAT('abc', 2, 'de_DE'), FORMAT(1234.5, 1, 'bg_BG')",
    "SELECT FORMAT(-1234567.891, 2, 'de_CH'), FORMAT(-123, 2, 'en_IN'), FORMAT(-12345678, 0, 'ta_IN'),"
    " FORMAT(0.5, 0, 'sv_SE'), FORMAT(999.999, 2, 'ru_RU'), FORMAT(123456789, 3, 'it_IT'), FORMAT(-0.4, 0, 'en_US')",
    "SELECT FORMAT(1234.5, 1, 'xx_XX')",
    "SHOW WARNINGS",
    "SELECT FORMAT(1234.5, 1, NULL)",
    "SHOW WARNINGS",
    "SELECT FORMAT(f, 1, 'de_DE'), FORMAT(ts / 7, 3, 'fr_FR') FROM t ORDER BY id",
]


def test_functions_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            server.query("SET GLOBAL time_zone = '+00:00'")
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert [(sql, _typed(answer)) for sql, answer in ours] == [(sql, _typed(answer)) for sql, answer in theirs]


def _typed(answer):
    """An answer with each value's Python type beside it (a DATETIME and a string differ)."""
    if answer[0] != "rows":
        return answer
    return ("rows", tuple(tuple((type(v).__name__, v) for v in row) for row in answer[1]))
