"""sql_mode NO_AUTO_VALUE_ON_ZERO (which mariadb-dump's output sets before its INSERTs), against a
live MariaDB 10.11: under it a 0 written into an AUTO_INCREMENT column is that id and only NULL
takes the next one; without it 0 takes the next id, as before (the mode was accepted and
ignored: a dump's row of id 0 came back with another id). SET STATEMENT and a later SET take it
back. The binlog carries the mode in the statement's sql_mode, so a MariaDB replica of our master
stores the same ids."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours, reference_ours_and_replica

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.z (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))",
]

QUERIES = [
    "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES'",
    "INSERT INTO z VALUES (0, 'zero'), (5, 'five')",
    "INSERT INTO z (v) VALUES ('next')",
    "INSERT INTO z VALUES (NULL, 'null')",
    "SELECT * FROM z ORDER BY id",
    "SET SESSION sql_mode = DEFAULT",
    "INSERT INTO z VALUES (0, 'gen')",
    "SET STATEMENT sql_mode = 'NO_AUTO_VALUE_ON_ZERO' FOR INSERT INTO z VALUES (0, 'dup')",
    "SELECT * FROM z ORDER BY id",
    "SELECT @@sql_mode",
]


def test_zero_is_an_id_under_the_mode_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("SELECT * FROM z ORDER BY id", ("rows", ((0, "zero"), (5, "five"), (6, "next"), (7, "null")))) in theirs
        assert ours == theirs


def test_a_mariadb_replica_of_ours_stores_the_same_ids(tmp_path):
    with reference_ours_and_replica(tmp_path) as (_reference, ours, replica):
        for sql in SETUP:
            ours.query(sql)
        ours.query("SET GLOBAL sql_mode = 'NO_AUTO_VALUE_ON_ZERO,STRICT_TRANS_TABLES'")  # (each query() a new session)
        ours.query("INSERT INTO d.z VALUES (0, 'zero'), (5, 'five')")
        ours.query("SET GLOBAL sql_mode = DEFAULT")
        ours.query("INSERT INTO d.z VALUES (0, 'gen')")
        want = ours.query("SELECT * FROM d.z ORDER BY id")
        assert [tuple(r) for r in want] == [(0, "zero"), (5, "five"), (6, "gen")]
        wait_for(lambda: _rows(replica) == want, 90, message="the replica's d.z")


def _rows(server):
    try:
        return server.query("SELECT * FROM d.z ORDER BY id")
    except Exception:  # noqa: BLE001 - not made yet
        return None
