"""Which AUTO_INCREMENT id each row of an INSERT gets, against live MariaDB 10.11 servers
(`engine.autoinc`): a row left out by INSERT IGNORE or turned into an update by ON DUPLICATE KEY
UPDATE gives its id to the statement's next row; a VALUES list reserves as many ids as it has
rows, INSERT ... SELECT 1, 2, 4 ... at a time; rows with their own ids move the next one.

Beyond the ids a client sees, this is what keeps a mixed topology's rows equal: a
statement-format binlog carries only a statement's first id, and the replica hands out the rest
by its own rules. So the statements also run on a MariaDB master (binlog_format=STATEMENT) with
our slave, and on our master with a MariaDB replica, and every server ends with the same rows.

Left out: INSERT ... SELECT ... ON DUPLICATE KEY UPDATE naming a column both tables have
(MariaDB's 1052; accepted here, as the target's column)."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import id_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE ig",
    "CREATE TABLE ig.t (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(10) UNIQUE, n INT DEFAULT 0)",
    "CREATE TABLE ig.s (v VARCHAR(10))",
]

STATEMENTS = [
    "INSERT INTO t (u) VALUES ('a')",
    "INSERT IGNORE INTO t (u) VALUES ('a'), ('b')",  # 'b' takes the id 'a' gave back
    "INSERT INTO t (u) VALUES ('c')",
    "INSERT IGNORE INTO t (u) VALUES ('d'), ('a'), ('e'), ('a'), ('f')",
    "INSERT IGNORE INTO t (u) VALUES ('a')",
    "INSERT INTO t (u) VALUES ('g')",
    "INSERT IGNORE INTO t (u) SELECT 'a' UNION ALL SELECT 'h'",
    "INSERT INTO t (u) VALUES ('i')",  # (was 1062 on PRIMARY: the counter fell behind the ids)
    "INSERT INTO t (u) VALUES ('b') ON DUPLICATE KEY UPDATE u = 'bb'",
    "INSERT INTO t (u) VALUES ('j')",
    "REPLACE INTO t (u) VALUES ('j')",
    "INSERT INTO s VALUES ('p'), ('q'), ('r'), ('s')",
    "INSERT INTO t (u) SELECT v FROM s",  # 4 rows: 7 ids reserved (1, 2, 4)
    "INSERT INTO t (u) VALUES ('x')",
    "INSERT INTO s VALUES ('x'), ('y')",
    "INSERT IGNORE INTO t (u) SELECT v FROM s ORDER BY v",
    "INSERT INTO t (u) VALUES ('z')",
    "INSERT INTO t (u) VALUES ('m'), ('p'), ('n') ON DUPLICATE KEY UPDATE n = n + 1",
    "INSERT INTO t (u) VALUES ('o')",
    "INSERT IGNORE INTO t (id, u) VALUES (NULL, 'q'), (100, 'w'), (NULL, 'v')",
    "INSERT INTO t (u) VALUES ('o2')",
    "INSERT IGNORE INTO t (u) VALUES ('q'), ('q'), ('q')",
    "INSERT INTO t (u) VALUES ('o3')",
    "INSERT INTO t (id, u) VALUES (NULL, 'a1'), (150, 'b1'), (NULL, 'c1')",
    "INSERT INTO t (id, u) VALUES (160, 'e1'), (NULL, 'f1')",
    "INSERT INTO t (u) VALUES ('g1')",
    "INSERT IGNORE INTO t (id, u) VALUES (200, 'a'), (NULL, 'h1'), (NULL, 'i1')",
    "INSERT INTO t (u) VALUES ('j1')",
    "INSERT INTO t (id, u) VALUES (NULL, 'k1'), (1, 'zz'), (NULL, 'l1') ON DUPLICATE KEY UPDATE n = n + 1",
    "INSERT IGNORE INTO t (id, u) VALUES (0, 'a'), (0, 'o1'), (0, 'p1')",
    "INSERT INTO t (u) VALUES ('q1')",
    "DELETE FROM s",
    "INSERT INTO s VALUES ('a'), ('new1'), ('b'), ('new2')",
    "INSERT INTO t (u) SELECT v FROM s ON DUPLICATE KEY UPDATE n = n + 10",
    "INSERT INTO t (u) VALUES ('y1')",
    # the SELECT gives the AUTO_INCREMENT column: 0 and NULL take the next id, row by row
    "INSERT INTO t (id, u) SELECT 0, 'sel0'",
    "INSERT INTO t (id, u) SELECT NULL, 'n1' UNION ALL SELECT 0, 'n2' UNION ALL SELECT 300, 'n3' UNION ALL SELECT 0, 'n4'",
    "INSERT INTO t SELECT 0, CONCAT(v, '2'), 7 FROM s ORDER BY v",
    "INSERT IGNORE INTO t SELECT 0, v, 8 FROM s ORDER BY v",
    "INSERT INTO t (u) VALUES ('y2')",
]


def answers(server) -> list:
    """Each statement's `id_answers`, then the table's rows."""
    return [*id_answers(server.port, "ig", STATEMENTS), rows(server)]


def rows(server) -> list[tuple]:
    return [tuple(row) for row in server.query("SELECT * FROM ig.t ORDER BY id")]


def test_ids_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        expected = answers(reference)
        said = {sql: rest for sql, *rest in expected[:-1]}
        # what MariaDB 10.11 gave: (rows, id, LAST_INSERT_ID() after)
        assert said[STATEMENTS[1]] == [1, 2, 2]
        assert said[STATEMENTS[13]] == [1, 24, 24]  # after 4 rows numbered from 17: 17 + 7
        assert [row[:2] for row in expected[-1][:3]] == [(1, "a"), (2, "bb"), (4, "c")]
        assert answers(master) == expected


def test_a_mariadb_master_and_replica_agree_with_ours_on_every_id(tmp_path):
    """The statements on a MariaDB master (statement binlog) followed by our slave, and on our
    master followed by a MariaDB replica: all four servers end with the same rows."""
    started: list = []
    try:
        mariadb_master = MariaDBServer(tmp_path / "m1", server_id=1, binlog_format="STATEMENT").start()
        started.append(mariadb_master)
        our_master = Daemon("master", tmp_path / "ours-master", ["--server-id=11"]).start()
        started.append(our_master)
        for master in (mariadb_master, our_master):
            master.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
            master.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'")
        our_slave = Daemon("slave", tmp_path / "ours-slave", ["--server-id=2"]).start()
        started.append(our_slave)
        mariadb_replica = MariaDBServer(tmp_path / "m12", server_id=12).start()
        started.append(mariadb_replica)
        attach(our_slave.port, mariadb_master.port)
        attach(mariadb_replica.port, our_master.port)
        for master in (mariadb_master, our_master):
            for sql in SETUP:
                master.query(sql)
            for sql in STATEMENTS:
                try:
                    master.query(sql, database="ig")
                except pymysql.MySQLError:
                    pass  # (the same error on both: compared by test_ids_as_mariadb)
        want = rows(mariadb_master)
        assert rows(our_master) == want
        assert (2, "bb", 0) in want and (25, "y", 0) in want  # ids given back by left-out rows
        for replica in (our_slave, mariadb_replica):
            wait_for(lambda r=replica: _rows_or_none(r) == want, 90,
                     message=lambda r=replica: f"{r} to replicate the same rows: {_rows_or_none(r)}")
    finally:
        for server in reversed(started):
            server.stop()


def _rows_or_none(server) -> list[tuple] | None:
    try:
        return rows(server)
    except pymysql.MySQLError:
        return None  # (the database not replicated yet)
