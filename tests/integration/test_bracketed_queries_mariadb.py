"""Query expressions in brackets (MariaDB 10.4+), as SQLAlchemy and Hibernate send them, answered
as MariaDB 10.11 answers them: `(SELECT ..)` and `((SELECT ..))` alone, bracketed members of
UNION [ALL | DISTINCT] / EXCEPT / INTERSECT with an ORDER BY / LIMIT inside and outside, as a
derived table's, an IN's and a CTE's query, the query after WITH's tables, in INSERT ...
(SELECT ..), a view, CREATE TABLE ... AS, prepared too; the column definitions compared with
the rows. The writes go through the binlog to a MariaDB replica and our slave and leave the same
rows there.

Left out, where the two still differ: EXCEPT ALL / INTERSECT ALL (rows there, 1235 here), a WITH
inside a member's brackets (1064 there, rows here), and the type of a UNION's column read through
a scalar subquery or a CTE, bracketed or not (`SELECT (SELECT 1 UNION SELECT 1)`: INT there,
BIGINT here), and the decimals of a string column of a member read as a derived table (one
with its own ORDER BY / LIMIT, or alone inside brackets that order or limit again: `((SELECT
'a') LIMIT 1) ORDER BY 1`: 0 there, 39 here, as for any derived table's string column)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    both_answer,
    both_described,
    mariadb_and_ours,
    prepared_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (a INT PRIMARY KEY, s VARCHAR(5))",
    "CREATE TABLE d.u (b INT PRIMARY KEY)",
    "INSERT INTO d.t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
    "INSERT INTO d.u VALUES (2), (4)",
]

BRACKETED = [
    "(SELECT 1)",
    "((SELECT 1 AS one))",
    "(SELECT a, s FROM t ORDER BY a DESC LIMIT 2)",
    "(SELECT a FROM t ORDER BY a DESC) LIMIT 1",
    "(SELECT a FROM t ORDER BY a DESC LIMIT 2) ORDER BY a LIMIT 1",
    "(SELECT a FROM t ORDER BY a LIMIT 2) UNION (SELECT b FROM u) ORDER BY 1 LIMIT 3",
    "(SELECT a FROM t) UNION ALL (SELECT b FROM u) ORDER BY a DESC",
    "(SELECT a FROM t) UNION DISTINCT (SELECT b FROM u) ORDER BY a",
    "SELECT a FROM t UNION DISTINCT SELECT b FROM u ORDER BY a",
    "(SELECT a FROM t) INTERSECT (SELECT b FROM u)",
    "(SELECT a FROM t) EXCEPT (SELECT b FROM u) ORDER BY a DESC",
    "SELECT a FROM t UNION (SELECT b FROM u ORDER BY b DESC LIMIT 1) ORDER BY 1",
    "(SELECT a, s FROM t ORDER BY a LIMIT 1) UNION ALL (SELECT b, 'long' FROM u ORDER BY b DESC LIMIT 1)",
    "((SELECT 1) UNION (SELECT 2)) UNION (SELECT 3) ORDER BY 1",
    "((SELECT a FROM t) UNION (SELECT b FROM u)) ORDER BY 1 DESC LIMIT 2",
    "((SELECT a FROM t ORDER BY a DESC LIMIT 2) ORDER BY a LIMIT 1) UNION ALL (SELECT 7) ORDER BY 1 DESC",
    "(SELECT 1 AS n) UNION (SELECT 2) UNION ALL (SELECT 2) ORDER BY n DESC",
    "(SELECT 1 ORDER BY 1 LIMIT 1) UNION (SELECT 2) ORDER BY 1",
    "(SELECT 1 + 1 LIMIT 1) UNION ALL (SELECT 3)",
    "(SELECT 1 LIMIT 1) ORDER BY 1 LIMIT 1",
    "SELECT * FROM ((SELECT 1 AS x) UNION ALL (SELECT 2)) AS d ORDER BY x",
    "SELECT * FROM ((SELECT a FROM t ORDER BY a DESC LIMIT 1)) AS d",
    "SELECT a FROM t WHERE a IN ((SELECT 1) UNION (SELECT b FROM u)) ORDER BY a",
    "SELECT a FROM t WHERE a > ANY ((SELECT b FROM u) UNION (SELECT 1)) ORDER BY a",
    "SELECT a FROM t WHERE EXISTS ((SELECT 1)) AND a = ((SELECT 2))",
    "SELECT (SELECT 1) UNION (SELECT 2) ORDER BY 1",
    "SELECT COALESCE((SELECT 5), 2)",
    "WITH c AS ((SELECT 1 AS x) UNION (SELECT 2)) SELECT COUNT(*) FROM c",
    "SELECT 1 UNION (SELECT 2) FOR UPDATE",
    "SELECT * FROM ((SELECT 1) UNION (SELECT 2) LOCK IN SHARE MODE) AS d",
    "(SELECT a FROM t) ORDER BY 1 FOR UPDATE",
    "CREATE VIEW v AS (SELECT a FROM t WHERE a < 3) UNION (SELECT b FROM u ORDER BY b LIMIT 1)",
    "SELECT * FROM v ORDER BY a",
    "SELECT a FROM v WHERE a IN ((SELECT 2) UNION (SELECT 1)) ORDER BY a",
]


def test_bracketed_queries_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_described(reference, master, SETUP, BRACKETED)
        assert theirs[5][1] == ((1,), (2,), (4,))
        assert answer_differences(theirs, ours) == ""


# the query after WITH's tables in brackets: rows compared (the column types of a statement that
# begins with WITH are BIGINT here, bracketed or not)
AFTER_WITH = [
    "WITH c AS (SELECT a FROM t) (SELECT a FROM c ORDER BY a DESC LIMIT 1)",
    "WITH c (y) AS (SELECT 1), d AS (SELECT 2 AS z) ((SELECT y FROM c) UNION ALL (SELECT z FROM d)) ORDER BY 1 DESC",
    "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) (SELECT n FROM r) ORDER BY n",
]


def test_bracketed_query_after_with_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, AFTER_WITH)
        assert theirs[0][1] == ("rows", ((3,),))
        assert ours == theirs


PREPARED = [
    ("(SELECT a FROM t WHERE a > ? ORDER BY a LIMIT 1) UNION (SELECT ?) ORDER BY 1", (1, 9)),
    ("((SELECT s FROM t WHERE a = ?))", (3,)),
    ("SELECT * FROM ((SELECT a FROM t WHERE a < ?) UNION ALL (SELECT b FROM u)) AS d ORDER BY 1", (3,)),
]


def test_prepared_bracketed_queries_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs = prepared_answers(reference.port, "d", PREPARED, rows=True)
        assert theirs[0][2] == [(2,), (9,)]
        assert prepared_answers(master.port, "d", PREPARED, rows=True) == theirs


WRITES = [
    "INSERT INTO t (a, s) (SELECT b + 10, 'i' FROM u)",
    "INSERT INTO t (a) ((SELECT 20) UNION (SELECT 21))",
    "INSERT INTO t (a) (SELECT 30) UNION (SELECT 31)",
    "INSERT INTO t (SELECT 40, 'w')",
    "REPLACE INTO t (a, s) (SELECT a, 'r' FROM t WHERE a = 1)",
    "CREATE TABLE c AS (SELECT a FROM t ORDER BY a DESC LIMIT 1) UNION (SELECT b FROM u)",
    "INSERT INTO u (SELECT a FROM t WHERE a = 1)",
]


def test_bracketed_writes_replicate_as_mariadb(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + WRITES:
                server.query(sql, database=None if sql.startswith("CREATE DATABASE") else "d")
        for rows in ("SELECT * FROM d.t ORDER BY a", "SELECT * FROM d.u ORDER BY b", "SELECT * FROM d.c ORDER BY a"):
            assert_same_rows(reference, master, replicas, rows)
