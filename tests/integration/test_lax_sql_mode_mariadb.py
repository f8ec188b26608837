"""A non-strict sql_mode (no STRICT_TRANS_TABLES / STRICT_ALL_TABLES), against a live MariaDB
10.11: a value strict mode refuses is stored adjusted with MariaDB's warning (a string cut, an
integer clipped to its range, '12abc' as 12, an invalid date as the zero date), a multi-row
INSERT's NULL and a left-out NOT NULL column as the implicit default (1048, 1364), a division by
zero as NULL; the engine refused them all as strict mode does. The binlog carries the session's
sql_mode in the statement's QUERY, so a MariaDB replica and our slave store the same rows."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    described_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(5), c TINYINT, n INT, dt DATE, nn INT NOT NULL,"
    " u TINYINT UNSIGNED, dc DECIMAL(5,2))",
]

WRITES = [
    "INSERT INTO t (id, v, nn) VALUES (1, 'abcdefgh', 1)",
    "INSERT INTO t (id, c, nn) VALUES (2, 1000, 1)",
    "INSERT INTO t (id, n, nn) VALUES (3, '12abc', 1)",
    "INSERT INTO t (id, dt, nn) VALUES (4, '2024-02-30', 1)",
    "INSERT INTO t (id, nn) VALUES (6, NULL), (7, 2)",
    "INSERT INTO t (id) VALUES (8)",
    "INSERT INTO t (id, n, nn) VALUES (9, 1/0, 1)",
    "INSERT INTO t (id, u, nn, dc) VALUES (10, -5, 1, 12345.678)",
    "INSERT INTO t (id, n, nn) VALUES (11, 'abc', 1)",
    "INSERT INTO t (id, nn, c) VALUES (20, 1, 1.5e10), (21, 1, -129)",
    "UPDATE t SET c = c - 300 WHERE id = 20",
    "UPDATE t SET v = CONCAT('xy', id, 'zzzzz') WHERE id IN (20, 21)",
    "UPDATE t SET n = 7 / 0 WHERE id = 3",
    "INSERT INTO t (id, v, c, nn) SELECT id + 100, CONCAT(v, 'tail'), c * 3, 1 FROM t WHERE id IN (1, 2)",
]

QUERIES = [
    "SET SESSION sql_mode = ''",
    *WRITES,
    "INSERT INTO t (id, nn) VALUES (5, NULL)",
    "SELECT * FROM t ORDER BY id",
    "SET SESSION sql_mode = DEFAULT",
    "INSERT INTO t (id, v, nn) VALUES (30, 'abcdefgh', 1)",
    "INSERT INTO t (id) VALUES (30)",
]


def test_non_strict_writes_store_and_warn_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            answers.append(described_answers(server.port, "d", QUERIES))
        theirs, ours = answers
        assert theirs[1][3] == (("Warning", 1265, "Data truncated for column 'v' at row 1"),)
        assert ours == theirs


def test_non_strict_writes_inside_a_transaction_store_and_warn_as_mariadb(tmp_path):
    """The same writes inside a transaction, which ours answers on receipt (`run_write_now`)
    where the loop may run them: planned under the session's sql_mode too."""
    queries = ["SET SESSION sql_mode = ''", "BEGIN", *WRITES, "COMMIT", "SELECT * FROM t ORDER BY id"]
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            answers.append(described_answers(server.port, "d", queries))
        theirs, ours = answers
        assert theirs[3][3] == (("Warning", 1264, "Out of range value for column 'c' at row 1"),)
        assert ours == theirs


def test_replicas_store_what_a_non_strict_master_stored(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            server.query("SET GLOBAL sql_mode = ''")  # (each query() a new session)
            for sql in WRITES:
                server.query(sql.replace(" t ", " d.t ").replace("INTO t ", "INTO d.t "))
            server.query("SET GLOBAL sql_mode = DEFAULT")
        want = reference.query("SELECT * FROM d.t ORDER BY id")
        assert _rows(ours) == want
        for replica in replicas:
            wait_for(lambda replica=replica: _rows(replica) == want, 90, message="a replica's d.t")


def _rows(server):
    try:
        return server.query("SELECT * FROM d.t ORDER BY id")
    except Exception:  # noqa: BLE001 - not made yet
        return None
