"""Functions whose answers or result types differed from MariaDB 10.11's, against a live one:
FROM_UNIXTIME(t, format) is a string as DATE_FORMAT's (it was typed DATETIME, which clients
read as a date: PyMySQL failed on '2024'). Each statement runs on a stock MariaDB and on our
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
