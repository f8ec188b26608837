"""AUTO_INCREMENT ids under auto_increment_increment / auto_increment_offset, against live MariaDB
10.11 servers (`engine.autoinc`'s `Step`): each id is offset + k * increment, the first of a
statement rounded up from the table's counter, the counter moved past the statement's interval
or a row's own id; a row left out by IGNORE gives its id back to the next row.

Each table is used under one setting (InnoDB lowers a counter when a table's cached handle last
used a larger increment: not followed here). A statement-format binlog carries a statement's first
id (INSERT_ID) and the session's increment and offset (Q_AUTO_INCREMENT): the same statements on
our master followed by a MariaDB replica and by our slave, and on a MariaDB master followed by our
slave, leave every server with the same rows."""

from __future__ import annotations

import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    assert_same_rows,
    mariadb_and_ours,
    ok_answers,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    *(f"CREATE TABLE d.{name} (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(10) UNIQUE, n INT DEFAULT 0)"
      for name in ("two", "ten", "big", "sel")),
    "CREATE TABLE d.src (v VARCHAR(10))",
    "INSERT INTO d.src VALUES ('s1'), ('s2'), ('s3'), ('s4'), ('s5')",
]

ID = "SELECT LAST_INSERT_ID()"
NEXT = "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' ORDER BY 1"

STATEMENTS = [
    # increment 2, offset 1: 1, 3, 5 ...
    "SET auto_increment_increment = 2",
    "INSERT INTO two (u) VALUES ('a'), ('b'), ('c')", ID,
    "INSERT INTO two (u) VALUES ('d')", ID,
    "INSERT INTO two (id, u) VALUES (20, 'e'), (NULL, 'f')", ID,
    "INSERT IGNORE INTO two (u) VALUES ('a'), ('g'), ('b'), ('h')", ID,
    "INSERT INTO two (u) VALUES ('i'), ('a') ON DUPLICATE KEY UPDATE n = n + 1",
    "INSERT INTO two (u) VALUES ('j')", ID,
    # increment 10, offset 5: 5, 15, 25 ...
    "SET auto_increment_increment = 10, auto_increment_offset = 5",
    "INSERT INTO ten (u) VALUES ('a'), ('b')", ID,
    "INSERT INTO ten (id, u) VALUES (37, 'c')",
    "INSERT INTO ten (u) VALUES ('d'), ('e')", ID,
    "INSERT INTO ten (id, u) VALUES (NULL, 'f'), (100, 'g'), (NULL, 'h')", ID,
    "INSERT INTO sel (u) SELECT v FROM src", ID,
    "INSERT INTO sel (u) VALUES ('after')", ID,
    # an offset above the increment
    "SET auto_increment_increment = 3, auto_increment_offset = 7",
    "INSERT INTO big (u) VALUES ('a'), ('b'), ('c')", ID,
    "INSERT INTO big (u) VALUES ('d')", ID,
    NEXT,
    "SHOW CREATE TABLE two",
    "SHOW CREATE TABLE ten",
    *(f"SELECT * FROM {name} ORDER BY id" for name in ("two", "ten", "big", "sel")),
]


def test_ids_by_increment_and_offset_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        theirs, mine = (ok_answers(server, SETUP, STATEMENTS) for server in (reference, ours))
    said = dict(theirs)
    assert [row[:2] for row in said["SELECT * FROM two ORDER BY id"][1][:3]] == [(1, "a"), (3, "b"), (5, "c")]
    assert mine == theirs, answer_differences(theirs, mine)


ROWS = "SELECT * FROM d.{} ORDER BY id"
WRITES = [sql for sql in STATEMENTS if not sql.startswith(("SELECT", "SHOW"))]


def test_replicas_number_the_rows_as_the_master(tmp_path):
    """The statements on our master, followed by a MariaDB replica and by our slave: every
    server's rows as the reference MariaDB's."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            ok_answers(server, SETUP, WRITES)
        for name in ("two", "ten", "big", "sel"):
            assert_same_rows(reference, ours, replicas, ROWS.format(name))


def test_our_slave_numbers_a_mariadb_masters_rows(tmp_path):
    """A MariaDB master (statement binlog, Q_AUTO_INCREMENT where the step is not 1) followed by
    our slave: the slave's rows as the master's."""
    started: list = []
    try:
        master = MariaDBServer(tmp_path / "m", server_id=1, binlog_format="STATEMENT").start()
        started.append(master)
        master.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
        master.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'")
        slave = Daemon("slave", tmp_path / "ours-slave", ["--server-id=2"]).start()
        started.append(slave)
        attach(slave.port, master.port)
        ok_answers(master, SETUP, WRITES)
        for name in ("two", "ten", "big", "sel"):
            want = master.query(ROWS.format(name))
            assert len(want) > 3
            wait_for(lambda n=name, w=want: rows_or_none(slave, ROWS.format(n)) == w, 90,
                     message=lambda n=name: f"our slave's {n}: {rows_or_none(slave, ROWS.format(n))}")
    finally:
        for server in reversed(started):
            server.stop()
