"""Temporary tables where MariaDB 10.11 treats them unlike other tables (engine/temporary.py):
CREATE / DROP TEMPORARY TABLE inside a transaction commit nothing, and its rollback leaves them
made or dropped, binlogged with ROLLBACK so that a replica keeps them too; a transaction of
temporary tables only ends with QUERY COMMIT, savepoints are binlogged as MariaDB's
binlog_savepoint_set / _rollback write them, a DROP TABLE of temporary and base tables as two
statements, and without autocommit CREATE / DROP TEMPORARY TABLE begins a transaction. Each step
runs on a stock MariaDB and on our master: answers, the binlog's events and its GTIDs' flags
compared; then replicas of our master (a MariaDB one and ours) end with the master's rows."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    assert_same_rows,
    mariadb_and_ours,
    ok_answer,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.timeout(400),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10)) CHARSET utf8mb4",
         "INSERT INTO d.t VALUES (1, 'base')"]

IN_TRANSACTIONS = [
    # committed: the CREATE joins the transaction (no implicit commit), binlogged in its group
    "BEGIN",
    "INSERT INTO t VALUES (2, 'two')",
    "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)",
    "SELECT @@in_transaction",
    "INSERT INTO tmp VALUES (1)",
    "COMMIT",
    "SELECT * FROM tmp",
    # rolled back: the temporary table stays, empty; the base table's row goes
    "BEGIN",
    "INSERT INTO t VALUES (3, 'three')",
    "CREATE TEMPORARY TABLE gone (id INT)",
    "INSERT INTO gone VALUES (5)",
    "ROLLBACK",
    "SELECT * FROM gone",
    "SELECT * FROM t ORDER BY id",
    # a drop rolled back: the table stays dropped
    "BEGIN",
    "INSERT INTO tmp VALUES (2)",
    "DROP TEMPORARY TABLE tmp",
    "SELECT @@in_transaction",
    "ROLLBACK",
    "SELECT * FROM tmp",
    # to a savepoint before it: the table made after it stays
    "BEGIN",
    "INSERT INTO t VALUES (4, 'four')",
    "SAVEPOINT s",
    "CREATE TEMPORARY TABLE later (id INT)",
    "INSERT INTO later VALUES (9)",
    "ROLLBACK TO SAVEPOINT s",
    "SELECT * FROM later",
    "COMMIT",
    # a failing one ends nothing either
    "BEGIN",
    "INSERT INTO t VALUES (5, 'five')",
    "CREATE TEMPORARY TABLE later (id INT)",
    "DROP TEMPORARY TABLE missing",
    "SELECT @@in_transaction",
    "ROLLBACK",
    "SELECT * FROM t ORDER BY id",
]


def _events(server, since: int) -> list[tuple[str, str]]:
    """The binlog's GTID, QUERY and XID events after the first `since`, as (type, info) with the
    GTID and XID numbers left out (each server counts its own)."""
    out = []
    for row in server.query("SHOW BINLOG EVENTS")[since:]:
        kind, info = row[2], row[5]
        if kind in ("Gtid", "Xid"):
            info = re.sub(r"\d+", "N", info)
        elif kind != "Query":
            continue
        out.append((kind, info))
    return out


def _in_transactions(server) -> tuple[list[tuple], list[tuple[str, str]]]:
    for sql in SETUP:
        server.query(sql)
    since = len(server.query("SHOW BINLOG EVENTS"))
    conn = server.connect("d")
    try:  # (the binlog read before the session's end drops its tables)
        return [(sql, ok_answer(conn, sql)) for sql in IN_TRANSACTIONS], _events(server, since)
    finally:
        conn.close()


def test_create_and_drop_temporary_in_a_transaction_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = _in_transactions(reference), _in_transactions(ours)
        assert mine[0] == theirs[0], answer_differences(theirs[0], mine[0])
        assert mine[1] == theirs[1], '\n'.join(map(str, theirs[1])) + '\n---\n' + '\n'.join(map(str, mine[1]))


# how a transaction reaches the binlog (MariaDB 10.11, binlog_format STATEMENT)
BINLOGGED = [
    # temporary tables only written: QUERY COMMIT ends the group, not XID (InnoDB took no part)
    "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)",
    "INSERT INTO tmp VALUES (1)",
    "BEGIN",
    "INSERT INTO tmp VALUES (2)",
    "UPDATE tmp SET id = 3 WHERE id = 2",
    "COMMIT",
    "INSERT INTO t SELECT id, 'copied' FROM tmp WHERE id = 3",
    # savepoints of a transaction of base tables: SAVEPOINT `s` without a database, what a
    # rollback to it undid cut out with it, RELEASE not logged
    "BEGIN",
    "INSERT INTO t VALUES (10, 'a')",
    "SAVEPOINT s1",
    "INSERT INTO t VALUES (11, 'b')",
    "ROLLBACK TO SAVEPOINT s1",
    "INSERT INTO t VALUES (12, 'c')",
    "RELEASE SAVEPOINT s1",
    "COMMIT",
    # set before the transaction logged anything: not logged, and a rollback to it cuts all
    "BEGIN",
    "SAVEPOINT s0",
    "INSERT INTO t VALUES (13, 'a')",
    "SAVEPOINT s1",
    "INSERT INTO t VALUES (14, 'b')",
    "ROLLBACK TO s0",
    "INSERT INTO t VALUES (15, 'c')",
    "COMMIT",
    "BEGIN",
    "INSERT INTO t VALUES (16, 'a')",
    "SAVEPOINT `a``b`",
    "SAVEPOINT Sx",
    "INSERT INTO t VALUES (17, 'b')",
    "SAVEPOINT sx",
    "ROLLBACK TO sx",
    "ROLLBACK WORK TO SAVEPOINT `a``b`",
    "COMMIT",
    # a temporary table made in the transaction: the rollback to a savepoint is logged, ROLLBACK TO `s`
    "BEGIN",
    "INSERT INTO t VALUES (18, 'a')",
    "SAVEPOINT s",
    "CREATE TEMPORARY TABLE x (id INT)",
    "INSERT INTO t VALUES (19, 'b')",
    "ROLLBACK TO SAVEPOINT s",
    "COMMIT",
    "BEGIN",
    "CREATE TEMPORARY TABLE y (id INT)",
    "SAVEPOINT s",
    "INSERT INTO t VALUES (20, 'a')",
    "INSERT INTO tmp VALUES (20)",
    "ROLLBACK TO SAVEPOINT s",
    "INSERT INTO t VALUES (21, 'b')",
    "COMMIT",
    "SELECT * FROM t ORDER BY id",
    "SELECT * FROM tmp ORDER BY id",
    # DROP TABLE of temporary and base tables: the temporary ones' DROP TEMPORARY, then the others'
    "CREATE TABLE b1 (id INT)",
    "CREATE TABLE b2 (id INT)",
    "CREATE TEMPORARY TABLE tmp2 (id INT)",
    "DROP TABLE b1, tmp2, b2, y",
    "CREATE TABLE b1 (id INT)",
    "CREATE TEMPORARY TABLE tmp2 (id INT)",
    "DROP TABLE IF EXISTS b1, nothere, tmp2",
    "CREATE TABLE e.b1 (id INT)",
    "CREATE TEMPORARY TABLE e.tmp2 (id INT)",
    "BEGIN",
    "INSERT INTO t VALUES (22, 'x')",
    "DROP TABLE e.tmp2, e.b1, x",
    "SELECT @@in_transaction",
    "ROLLBACK",
    "SELECT * FROM t WHERE id = 22",
]

# autocommit=0: CREATE / DROP TEMPORARY TABLE as a transaction's first statement joins it
WITHOUT_AUTOCOMMIT = [
    "CREATE TEMPORARY TABLE a3 (id INT)",
    "SET autocommit = 0",
    "CREATE TEMPORARY TABLE a0 (id INT)",
    "SELECT @@in_transaction",
    "INSERT INTO t VALUES (30, 'x')",
    "ROLLBACK",
    "SELECT * FROM a0",
    "SELECT * FROM t WHERE id = 30",
    "CREATE TEMPORARY TABLE a1 (id INT)",
    "INSERT INTO a1 VALUES (1)",
    "INSERT INTO t VALUES (31, 'x')",
    "COMMIT",
    "CREATE TEMPORARY TABLE a2 (id INT)",
    "ROLLBACK",
    "DROP TEMPORARY TABLE a3",
    "SELECT @@in_transaction",
    "INSERT INTO t VALUES (32, 'x')",
    "ROLLBACK",
    "SELECT * FROM a3",
    "SELECT * FROM t",
    "CREATE TEMPORARY TABLE a4 (id INT)",
    "COMMIT",
]


def _gtid_flags(files: list[Path]) -> list[str]:
    """The flags mariadb-binlog prints after each GTID of `files` ("ddl", "trans", ...), in order."""
    printed = subprocess.run(["mariadb-binlog", "--no-defaults", *map(str, files)], capture_output=True,
                             text=True, check=True).stdout
    return [found[1].strip() for found in re.finditer(r"^#.*\tGTID \d+-\d+-\d+(.*)$", printed, re.M)]


def _binlogged(server, files) -> tuple[list[tuple], list[tuple[str, str]], list[str]]:
    for sql in (*SETUP, "CREATE DATABASE e"):
        server.query(sql)
    since = len(server.query("SHOW BINLOG EVENTS"))
    conn = server.connect("d")
    try:  # (the binlog read before the session's end drops its tables)
        answers = [(sql, ok_answer(conn, sql)) for sql in (*BINLOGGED, *WITHOUT_AUTOCOMMIT)]
        events = _events(server, since)
        return answers, events, _gtid_flags(files())[-sum(kind == "Gtid" for kind, _ in events):]
    finally:
        conn.close()


def test_transactions_savepoints_and_drops_binlogged_as_mariadb(tmp_path):
    """The answers, the binlog's events and each GTID's flags."""
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs = _binlogged(reference, reference.binlog_files)
        mine = _binlogged(ours, lambda: sorted(ours.datadir.glob("mysql-bin.[0-9]*")))
        assert mine[0] == theirs[0], answer_differences(theirs[0], mine[0])
        assert mine[1] == theirs[1], '\n'.join(map(str, theirs[1])) + '\n---\n' + '\n'.join(map(str, mine[1]))
        assert mine[2] == theirs[2], [(n, a, b) for n, (a, b) in enumerate(zip(theirs[2], mine[2], strict=False)) if a != b]


STATEMENTS = [
    "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, w INT, KEY kw (w))",
    "INSERT INTO tmp VALUES (1, 10), (2, 20), (3, 30)",
    # RENAME TABLE and ALTER TABLE ... RENAME of a temporary table: renamed in the session's own
    "RENAME TABLE tmp TO tmp2",
    "SELECT * FROM tmp",
    "ALTER TABLE tmp2 RENAME TO tmp3",
    "SELECT * FROM tmp3 ORDER BY id",
    "CREATE TEMPORARY TABLE other (id INT)",
    "RENAME TABLE other TO tmp3",
    "RENAME TABLE other TO t",
    "SELECT * FROM t",
    "DROP TEMPORARY TABLE t",
    "ALTER TABLE tmp3 RENAME tmp",
    "SHOW CREATE TABLE tmp",
    # its columns named with the table's name in UPDATE / DELETE / INSERT
    "UPDATE tmp SET tmp.w = tmp.w + 1 WHERE tmp.id = 1",
    "DELETE FROM tmp WHERE tmp.id = 2",
    "INSERT INTO tmp (tmp.id, tmp.w) VALUES (4, 40)",
    "INSERT INTO tmp VALUES (4, 0) ON DUPLICATE KEY UPDATE w = tmp.w + 1",
    "SELECT * FROM tmp ORDER BY id",
    # its indexes
    "SHOW INDEX FROM tmp",
    "SHOW KEYS FROM tmp WHERE Key_name = 'kw'",
    # used under LOCK TABLES without a lock of its own
    "LOCK TABLES t WRITE",
    "SELECT * FROM tmp ORDER BY id",
    "INSERT INTO tmp VALUES (5, 50)",
    "UPDATE tmp SET w = w + 1 WHERE id = 5",
    "SHOW CREATE TABLE tmp",
    "ALTER TABLE tmp ADD COLUMN z INT",
    "TRUNCATE TABLE tmp",
    "UNLOCK TABLES",
    # DROP TEMPORARY TABLE IF EXISTS of none: nothing binlogged
    "DROP TEMPORARY TABLE IF EXISTS nothere",
    "DROP TEMPORARY TABLE IF EXISTS tmp, nothere",
    # a foreign key in a temporary table
    "CREATE TEMPORARY TABLE fk (id INT PRIMARY KEY, tid INT, FOREIGN KEY (tid) REFERENCES t (id))",
    "INSERT INTO fk VALUES (1, 999)",
    "SHOW CREATE TABLE fk",
]


def _statements(server) -> tuple[list[tuple], list[tuple[str, str]]]:
    for sql in SETUP:
        server.query(sql)
    since = len(server.query("SHOW BINLOG EVENTS"))
    conn = server.connect("d")
    try:
        return [(sql, ok_answer(conn, sql)) for sql in STATEMENTS], _events(server, since)
    finally:
        conn.close()


def test_temporary_tables_statements_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        theirs, mine = _statements(reference), _statements(ours)
        assert mine[0] == theirs[0], answer_differences(theirs[0], mine[0])
        assert mine[1] == theirs[1], '\n'.join(map(str, theirs[1])) + '\n---\n' + '\n'.join(map(str, mine[1]))


# a session whose rolled-back transaction made the temporary table it then fills and copies
REPLICATED = ["BEGIN",
              "INSERT INTO dest VALUES (100, 0)",
              "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)",
              "ROLLBACK",
              "INSERT INTO tmp VALUES (1, 10), (2, 20)",
              "BEGIN",
              "CREATE TEMPORARY TABLE more (id INT PRIMARY KEY, v INT)",
              "INSERT INTO more SELECT id + 10, v FROM tmp",
              "INSERT INTO dest SELECT * FROM more",
              "COMMIT",
              "BEGIN",
              "DROP TEMPORARY TABLE more",
              "ROLLBACK",
              "CREATE TEMPORARY TABLE more (id INT PRIMARY KEY, v INT)",
              "INSERT INTO more VALUES (30, 30)",
              "INSERT INTO dest SELECT * FROM tmp UNION ALL SELECT * FROM more"]


# savepoints, a DROP of temporary and base tables and autocommit=0 on the way to a replica
REPLICATED_BINLOG = ["CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)",
                     "INSERT INTO tmp VALUES (1, 10), (2, 20)",
                     "BEGIN",
                     "INSERT INTO dest VALUES (100, 0)",
                     "SAVEPOINT s",
                     "INSERT INTO dest VALUES (101, 0)",
                     "UPDATE tmp SET v = v + 1",
                     "ROLLBACK TO SAVEPOINT s",
                     "INSERT INTO dest SELECT * FROM tmp",
                     "SAVEPOINT s2",
                     "INSERT INTO dest VALUES (102, 0)",
                     "ROLLBACK TO s2",
                     "CREATE TEMPORARY TABLE more (id INT PRIMARY KEY, v INT)",
                     "INSERT INTO more VALUES (4, 40)",
                     "COMMIT",
                     "CREATE TABLE gone (id INT)",
                     "CREATE TEMPORARY TABLE dropped (id INT)",
                     "DROP TABLE gone, dropped",
                     "SET autocommit = 0",
                     "CREATE TEMPORARY TABLE later (id INT PRIMARY KEY, v INT)",
                     "INSERT INTO dest VALUES (103, 0)",
                     "ROLLBACK",
                     "INSERT INTO later SELECT id + 10, v FROM more",
                     "INSERT INTO dest SELECT * FROM later",
                     "COMMIT"]


@pytest.mark.parametrize("steps", [REPLICATED, REPLICATED_BINLOG], ids=["rollback", "savepoints_drop_autocommit_off"])
def test_replicas_keep_what_a_rollback_left(tmp_path, steps):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            server.query("CREATE DATABASE d")
            server.query("CREATE TABLE d.dest (id INT PRIMARY KEY, v INT)")
            conn = server.connect("d")
            try:
                for sql in steps:
                    assert ok_answer(conn, sql)[0] != "error", (server, sql)
            finally:
                conn.close()
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.dest ORDER BY id")


def test_a_chain_keeps_the_masters_threads(tmp_path):
    """Our master -> our slave (log_slave_updates) -> a MariaDB replica of our slave: the slave
    binlogs each replicated statement under its master thread's id, as MariaDB's replica does,
    so that the MariaDB replica keeps each session's temporary tables apart."""
    from tests.support.failover import REPL_PASSWORD, REPL_USER, attach

    started: list = []
    try:
        master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
        started.append(master)
        for sql in (f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                    f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'",
                    "CREATE DATABASE d", "CREATE TABLE d.dest (id INT PRIMARY KEY, v INT)"):
            master.query(sql)
        middle = Daemon("slave", tmp_path / "middle", ["--server-id=2"]).start()
        started.append(middle)
        attach(middle.port, master.port)
        wait_for(lambda: rows_or_none(middle, "SELECT * FROM d.dest") == [], 60,
                 message=lambda: f"the middle slave has d.dest\n{middle.tail()}")
        replica = MariaDBServer(tmp_path / "replica", server_id=3).start()
        started.append(replica)
        attach(replica.port, middle.port)
        a, b = master.connect("d"), master.connect("d")
        try:
            for conn, sql in ((a, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)"),
                              (b, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)"),
                              (a, "INSERT INTO tmp VALUES (1, 10)"),
                              (b, "INSERT INTO tmp VALUES (2, 20)"),
                              (a, "INSERT INTO dest SELECT * FROM tmp"),
                              (b, "INSERT INTO dest SELECT id, v + 1 FROM tmp")):
                assert ok_answer(conn, sql)[0] != "error", sql
        finally:
            a.close()
            b.close()
        assert_same_rows(master, master, [middle, replica], "SELECT * FROM d.dest ORDER BY id")
        assert master.query("SELECT * FROM d.dest ORDER BY id") == [(1, 10), (2, 21)]
    finally:
        for server in reversed(started):
            server.stop()


# accounts: CREATE TEMPORARY TABLES on d only; CREATE on d only; SELECT on d.t only
ACCOUNTS = {"tmponly": "GRANT CREATE TEMPORARY TABLES ON d.* TO tmponly",
            "createonly": "GRANT CREATE ON d.* TO createonly",
            "selonly": "GRANT SELECT ON d.t TO selonly"}
AS_ACCOUNT = [
    "CREATE TEMPORARY TABLE x (id INT PRIMARY KEY, v INT)",
    "INSERT INTO x VALUES (1, 1)",
    "UPDATE x SET v = 2",
    "SELECT * FROM x",
    "ALTER TABLE x ADD COLUMN w INT",
    "TRUNCATE TABLE x",
    "DROP TEMPORARY TABLE x",
    "CREATE TEMPORARY TABLE y LIKE t",
    "CREATE TEMPORARY TABLE z AS SELECT 1 AS one",
    "SELECT * FROM z",
    "CREATE TABLE base (id INT)",
]


def _as_accounts(server) -> list[tuple]:
    for sql in SETUP:
        server.query(sql)
    out = []
    for user, grant in ACCOUNTS.items():
        server.query(f"CREATE USER {user} IDENTIFIED BY 'pw'")
        server.query(grant)
        conn = server.connect("d", user=user, password="pw")
        try:
            out.extend((user, sql, ok_answer(conn, sql)) for sql in AS_ACCOUNT)
        finally:
            conn.close()
    return out


def test_the_privilege_create_temporary_tables_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = _as_accounts(reference), _as_accounts(ours)
        assert mine == theirs, answer_differences(theirs, mine)
