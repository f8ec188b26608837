"""LOCK TABLES / UNLOCK TABLES as MariaDB 10.11 answers them (server/table_locks.py).

The holder of table locks: a table it reads or writes that it did not lock 1100, a write to a
READ-locked table 1099 (INSERT, UPDATE, DELETE, REPLACE, TRUNCATE, ALTER, INSERT ... SELECT, DROP
and CREATE TABLE), an unknown table 1146; BEGIN and UNLOCK TABLES end the locks. Other
sessions: while one holds READ locks their writes wait until UNLOCK TABLES (or fail with 1205
after the wait's timeout) and their reads go on. A session's innodb_lock_wait_timeout bounds its
write's wait for another transaction's. Each step runs on a stock MariaDB and on our master,
answers compared.

Aliases: a table read or written under an alias wants that alias locked (1100 naming the alias),
each lock taken once per statement (a self-join, a subquery of the same table); LOCK TABLES
naming a table and alias twice.

A temporary table made under WRITE locks is used without a lock.

Left as documented in the module: WRITE locks do not hold other sessions back; CREATE TEMPORARY
TABLE under READ locks is 1235 (MariaDB makes it), a temporary table made before LOCK TABLES
wants a lock here."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    mariadb_and_ours,
    ok_answer,
    ok_answers,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, n INT)",
         "CREATE TABLE d.u (a INT PRIMARY KEY)",
         "CREATE VIEW d.v AS SELECT id FROM d.t",
         "INSERT INTO d.t (n) VALUES (1), (2), (3)"]

HOLDER = [
    "LOCK TABLES t READ",
    "SELECT COUNT(*) FROM t",
    "SELECT COUNT(*) FROM u",
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' ORDER BY 1",
    "SHOW TABLES",
    "SHOW CREATE TABLE u",
    "DESCRIBE u",
    "SHOW COLUMNS FROM t",
    "SHOW INDEX FROM u FROM d",
    "INSERT INTO t (n) VALUES (4)",
    "INSERT INTO u VALUES (1)",
    "UPDATE t SET n = 9 WHERE id = 1",
    "DELETE FROM u",
    "REPLACE INTO t (id, n) VALUES (1, 7)",
    "INSERT INTO u SELECT n FROM t",
    "CREATE TABLE w (a INT)",
    "DROP TABLE u",
    "TRUNCATE TABLE t",
    "ALTER TABLE t ADD COLUMN q INT",
    "CREATE INDEX kn ON t (n)",
    "SELECT COUNT(*) FROM t",
    "UNLOCK TABLES",
    "LOCK TABLES t READ, u WRITE",
    "INSERT INTO u SELECT n FROM t",
    "SELECT COUNT(*) FROM t, u",
    "UPDATE t SET n = 0",
    "DELETE FROM u WHERE a = 1",
    "BEGIN",
    "INSERT INTO t (n) VALUES (5)",
    "COMMIT",
    "LOCK TABLES v READ",
    "SELECT COUNT(*) FROM v",
    "SELECT COUNT(*) FROM u",
    "LOCK TABLES nosuch READ",
    "LOCK TABLES t READ LOCAL, u LOW_PRIORITY WRITE",
    "TRUNCATE TABLE u",
    "UNLOCK TABLES",
    "SELECT COUNT(*), SUM(n) FROM t",
    "SELECT COUNT(*) FROM u",
    "LOCK TABLE t WRITE",
    "INSERT INTO t (n) VALUES (6)",
    "SELECT COUNT(*) FROM u",
    "UNLOCK TABLE",
    "UNLOCK TABLES",
]


# aliases: a table used under an alias wants that alias locked, each lock once per statement (a
# self-join or a subquery of a locked table needs a lock per alias); LOCK TABLES naming a table
# and alias twice
ALIASES = [
    "LOCK TABLES t AS a READ",
    "SELECT COUNT(*) FROM t",
    "SELECT COUNT(*) FROM t AS a",
    "SELECT COUNT(*) FROM d.t a WHERE a.id > 1",
    "SELECT COUNT(*) FROM t AS A",
    "SELECT COUNT(*) FROM t AS b",
    "LOCK TABLES t READ",
    "SELECT COUNT(*) FROM t AS x",
    "SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM t)",
    "SELECT COUNT(*) FROM t, t AS t2",
    "LOCK TABLES t READ, t AS t2 READ",
    "SELECT COUNT(*) FROM t, t AS t2 WHERE t.id = t2.id",
    "SELECT COUNT(*) FROM t JOIN t AS t2 ON t.id = t2.id",
    "SELECT COUNT(*) FROM t WHERE id IN (SELECT id FROM t AS t2)",
    "SELECT COUNT(*) FROM t AS t2",
    "SELECT COUNT(*) FROM t AS t2, t AS t3",
    "SELECT COUNT(*) FROM t AS t2 WHERE id IN (SELECT id FROM t AS t2)",
    "LOCK TABLES t WRITE, t AS r READ, u WRITE, u AS ur READ",
    "UPDATE t AS r SET n = 1",
    "UPDATE t SET n = 2 WHERE id = 1",
    "INSERT INTO u SELECT a + 10 FROM u AS ur",
    "INSERT INTO u SELECT n FROM t AS r WHERE id = 1",
    "INSERT INTO u SELECT n + 20 FROM t AS r, u AS ur",
    "DELETE FROM t WHERE id = 99",
    "SELECT COUNT(*), SUM(n) FROM t AS r",
    "LOCK TABLES t READ, t READ",
    "LOCK TABLES t AS a READ, t AS A WRITE",
    "LOCK TABLES t AS u READ, u READ",
    "SELECT COUNT(*) FROM u",
    "SELECT COUNT(*) FROM t AS u",
    "SELECT COUNT(*) FROM t",
    "LOCK TABLES v AS w READ",
    "SELECT COUNT(*) FROM v AS w",
    "SELECT COUNT(*) FROM v",
    "SELECT COUNT(*) FROM v AS x, t",
    "LOCK TABLES t READ",
    "SELECT COUNT(*) FROM v",
    "SELECT COUNT(*) FROM t WHERE EXISTS (SELECT 1 FROM v)",
    "UNLOCK TABLES",
    "SELECT COUNT(*), SUM(n) FROM t",
    # a temporary table made under WRITE locks needs no lock
    "LOCK TABLES t WRITE",
    "CREATE TEMPORARY TABLE tmp (a INT)",
    "INSERT INTO tmp VALUES (1)",
    "SELECT COUNT(*) FROM tmp, t",
    "UPDATE tmp SET a = 2",
    "SELECT a FROM tmp AS x",
    "DROP TEMPORARY TABLE tmp",
    "UNLOCK TABLES",
]


@pytest.mark.parametrize("steps", [HOLDER, ALIASES], ids=["holder", "aliases"])
def test_the_holder_of_table_locks_is_answered_as_by_mariadb(tmp_path, steps):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = (ok_answers(server, SETUP, steps) for server in (reference, ours))
        assert not answer_differences(theirs, mine), answer_differences(theirs, mine)
        assert {a[1] for _, a in theirs if a[0] == "error"} >= {1100, 1099}, "the steps meet MariaDB's refusals"


def test_create_temporary_table_under_read_locks_is_not_supported(tmp_path):
    with mariadb_and_ours(tmp_path) as (_, ours):
        answers = ok_answers(ours, SETUP, ["LOCK TABLES t READ", "CREATE TEMPORARY TABLE tmp (a INT)", "UNLOCK TABLES"])
    assert answers[1][1][:2] == ("error", 1235), answers


def _insert_in_thread(port: int, sql: str) -> tuple[threading.Thread, list]:
    done: list = []

    def run() -> None:
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d", autocommit=True)
        try:
            done.append(ok_answer(conn, sql))
        finally:
            conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


@contextmanager
def _two_sessions(server) -> Iterator[tuple]:
    """SETUP run on `server`, then two sessions on database d."""
    for sql in SETUP:
        server.query(sql)
    holder = server.connect("d")
    other = server.connect("d")
    try:
        yield holder, other
    finally:
        holder.close()
        other.close()


def test_a_read_lock_holds_other_sessions_writes_until_unlock(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        for server in (reference, ours):
            with _two_sessions(server) as (holder, other):
                assert ok_answer(holder, "LOCK TABLES t READ")[0] == 0
                thread, done = _insert_in_thread(server.port, "INSERT INTO t (n) VALUES (10)")
                thread.join(1.5)
                assert thread.is_alive() and not done, (server, done)  # the write waits
                # other sessions read on, and see the rows as they were
                assert ok_answer(other, "SELECT COUNT(*) FROM t")[1] == ((3,),), server
                # (MariaDB's wait is a metadata lock's, lock_wait_timeout; ours the engine's
                # writer lock's, innodb_lock_wait_timeout)
                assert ok_answer(other, "SET SESSION lock_wait_timeout = 1, innodb_lock_wait_timeout = 1")[0] == 0
                assert ok_answer(other, "UPDATE t SET n = 0 WHERE id = 1")[:2] == (
                    "error", 1205), server
                assert ok_answer(holder, "SELECT COUNT(*) FROM t")[1] == ((3,),), server
                assert ok_answer(holder, "UNLOCK TABLES")[0] == 0
                thread.join(30)
                assert done == [(1, (), b"", 0, ())], (server, done)
                assert ok_answer(other, "SELECT COUNT(*), SUM(n) FROM t")[1] == ((4, 16),), server


def test_a_write_waits_for_another_transaction_as_long_as_its_session_s_innodb_lock_wait_timeout(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        for server in (reference, ours):
            with _two_sessions(server) as (holder, other):
                for sql in ("BEGIN", "UPDATE t SET n = 5 WHERE id = 1"):
                    assert ok_answer(holder, sql)[0] != "error", server
                assert ok_answer(other, "SET SESSION innodb_lock_wait_timeout = 1")[0] == 0
                began = time.monotonic()
                assert ok_answer(other, "UPDATE t SET n = 6 WHERE id = 1")[:2] == ("error", 1205), server
                assert time.monotonic() - began < 20, server  # its 1 second, not the default 50
                assert ok_answer(holder, "COMMIT")[0] == 0
                assert ok_answer(other, "SELECT n FROM t WHERE id = 1")[1] == ((5,),), server
