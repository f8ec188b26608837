"""A statement's time to the microsecond, against a live MariaDB 10.11: NOW(n), CURRENT_TIMESTAMP(n),
CURTIME(n), UTC_TIMESTAMP(n) give the statement's time with n of its microseconds' digits (they gave
zeros), from the clock or from SET timestamp = s.ffffff; a DATETIME(n) / TIMESTAMP(n) column's
DEFAULT CURRENT_TIMESTAMP(m) and ON UPDATE CURRENT_TIMESTAMP(m) are taken (they were 1064 with an
ON UPDATE precision), shown and stored as MariaDB does (the default's m where below the column's
digits, else the column's; an ON UPDATE m below them 1294); a DATE's or TIME's DEFAULT
CURRENT_TIMESTAMP its date or time of day. INSERT ... SELECT gives the columns it leaves out the
statement's time for their DEFAULT CURRENT_TIMESTAMP (they took SQLite's clock, not the
statement's: a SET timestamp was ignored and a replica stored its own time), and INSERT ... ON
DUPLICATE KEY UPDATE sets an ON UPDATE CURRENT_TIMESTAMP column where it changes the row (it never
did). The binlog carries the microseconds a statement read (MariaDB's Q_HRNOW), so a MariaDB
replica of our master and our slave store the master's values."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    both_answer,
    mariadb_and_ours,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d"]

QUERIES = [
    "SET TIMESTAMP=1700000000.123456",
    "SELECT NOW(3), CURRENT_TIMESTAMP(6), NOW(), CURTIME(2), UTC_TIMESTAMP(1), UNIX_TIMESTAMP(), LENGTH(NOW(4))",
    "CREATE TABLE d.t4 (c DATETIME DEFAULT CURRENT_TIMESTAMP(3), c2 DATETIME(3) ON UPDATE CURRENT_TIMESTAMP,"
    " c3 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(3), c4 DATETIME(3) DEFAULT CURRENT_TIMESTAMP(6),"
    " c5 DATETIME(3) DEFAULT CURRENT_TIMESTAMP(0) ON UPDATE CURRENT_TIMESTAMP(3), id INT) CHARSET utf8mb4",
    "SHOW CREATE TABLE d.t4",
    "DESCRIBE d.t4",
    "SELECT COLUMN_NAME, COLUMN_DEFAULT, EXTRA FROM information_schema.COLUMNS WHERE TABLE_NAME='t4'"
    " ORDER BY ORDINAL_POSITION",
    "INSERT INTO d.t4 (id) VALUES (1)",
    "SELECT * FROM d.t4",
    "SET TIMESTAMP=1700000001.987654",
    "UPDATE d.t4 SET id = 2",
    "SELECT * FROM d.t4",
    "CREATE TABLE d.t8 (c DATETIME(3) ON UPDATE CURRENT_TIMESTAMP(0))",
    "CREATE TABLE d.t9 (c DATETIME ON UPDATE CURRENT_TIMESTAMP(3))",
    "CREATE TABLE d.t10 (id INT, c TIME(3) DEFAULT CURRENT_TIMESTAMP(3), d DATE DEFAULT CURRENT_TIMESTAMP,"
    " e TIME DEFAULT NOW())",
    "INSERT INTO d.t10 (id) VALUES (1)",
    "SELECT * FROM d.t10",
    "CREATE TABLE d.t5 (id INT, c DATETIME(3) DEFAULT CURRENT_TIMESTAMP, u DATETIME(6) DEFAULT"
    " CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), t TIMESTAMP(4) NULL ON UPDATE NOW(4),"
    " v DATETIME(2) DEFAULT CURRENT_TIMESTAMP(2))",
    "INSERT INTO d.t5 (id) VALUES (1)",
    "SET TIMESTAMP=1700000002.5",
    "INSERT INTO d.t5 (id, c) VALUES (3, DEFAULT)",
    "UPDATE d.t5 SET c = DEFAULT WHERE id = 1",
    "SELECT * FROM d.t5 ORDER BY id",
    "SELECT id FROM d.t5 WHERE c = '2023-11-14 22:13:22.500'",
    "INSERT INTO d.t5 (id) SELECT 7",
    "SELECT * FROM d.t5 WHERE id = 7",
    # an upsert's update stamps an ON UPDATE column where it changes the row
    "CREATE TABLE d.u (id INT PRIMARY KEY, n INT, m DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6)"
    " ON UPDATE CURRENT_TIMESTAMP(6), k DATETIME ON UPDATE CURRENT_TIMESTAMP)",
    "INSERT INTO d.u (id, n) VALUES (1, 1)",
    "SET TIMESTAMP=1700000005.5",
    "INSERT INTO d.u (id, n) VALUES (1, 2) ON DUPLICATE KEY UPDATE n = VALUES(n)",
    "SELECT * FROM d.u",
    "SET TIMESTAMP=1700000007.25",
    "INSERT INTO d.u (id, n) VALUES (1, 2) ON DUPLICATE KEY UPDATE n = VALUES(n)",
    "SELECT * FROM d.u",
]


def test_the_statements_time_to_the_microsecond_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        answers = dict(theirs)
        assert answers["CREATE TABLE d.t8 (c DATETIME(3) ON UPDATE CURRENT_TIMESTAMP(0))"][1] == 1294
        assert ours == theirs


WRITES = [
    "CREATE TABLE d.f (id INT PRIMARY KEY, n INT, a DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6),"
    " b TIMESTAMP(3) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3), c DATETIME(6))",
    "INSERT INTO d.f (id, n) VALUES (1, 1), (2, 2)",
    "INSERT INTO d.f (id, n, c) VALUES (3, 3, NOW(6))",
    "INSERT INTO d.f (id, n) SELECT 4, 4",
    "UPDATE d.f SET n = n + 10 WHERE id <= 2",
    "INSERT INTO d.f (id, n) VALUES (3, 5) ON DUPLICATE KEY UPDATE n = VALUES(n)",
]


def test_replicas_store_the_masters_microseconds(tmp_path):
    """Without SET timestamp: the clock's microseconds, binlogged with each statement that read
    them, stored alike by a MariaDB replica and our slave."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_reference, ours, replicas):
        ours.query("CREATE DATABASE d")
        for sql in WRITES:
            ours.query(sql)
        want = ours.query("SELECT * FROM d.f ORDER BY id")
        assert len(want) == 4 and want[2][4] is not None and want[0][3] is not None
        # the clock's microseconds: not all six of these can be zero but by a one-in-10^30 chance
        assert any(value.microsecond for row in want for value in row[2:] if value is not None)
        for replica in replicas:
            wait_for(lambda r=replica: rows_or_none(r, "SELECT * FROM d.f ORDER BY id") == want, 90,
                     message=f"d.f on {replica}")
