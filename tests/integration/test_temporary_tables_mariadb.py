"""Temporary tables as MariaDB 10.11 keeps them (engine/temporary.py): two sessions each with a
temporary `tmp`, one shadowing a base table `t` for its session only, SELECT / INSERT / UPDATE /
DELETE / ALTER / TRUNCATE / SHOW CREATE TABLE / DESCRIBE finding the temporary table first,
none of them in SHOW TABLES or information_schema.TABLES, DROP TEMPORARY TABLE for temporary
tables only (1051), CREATE TEMPORARY TABLE ... LIKE and ... AS SELECT, a session's tables gone
with it, and with COM_RESET_CONNECTION / COM_CHANGE_USER. Each step runs on a stock MariaDB and
on our master, answers compared. Then the
replication: sessions that fill their temporary tables and copy them into a base table, a
MariaDB replica and our slave of our master end with the master's rows (each keeps the
temporary tables per master thread: the Query events' thread id), and the binlog ends each
session's tables with MariaDB's `DROP /*!40005 TEMPORARY */ TABLE IF EXISTS`."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    assert_same_rows,
    connector_connection,
    mariadb_and_ours,
    ok_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(400),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10)) CHARSET utf8mb4",
         "INSERT INTO d.t VALUES (1, 'base')"]

# (session, statement): sessions "a" and "b" of the same account, "c" opened after "a" closed
STEPS = [
    ("a", "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w INT, KEY kw (w))"),
    ("a", "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)"),
    ("a", "UPDATE t SET w = w + 1 WHERE id = 2"),
    ("a", "DELETE FROM t WHERE id = 3"),
    ("a", "SELECT t.id, t.w FROM t ORDER BY id"),
    ("b", "SELECT * FROM t"),
    ("b", "CREATE TEMPORARY TABLE tmp (x INT, KEY k (x))"),
    ("a", "CREATE TEMPORARY TABLE tmp (y INT, KEY k (y))"),
    ("a", "CREATE TEMPORARY TABLE tmp (z INT)"),
    ("a", "CREATE TEMPORARY TABLE IF NOT EXISTS tmp (z INT)"),
    ("a", "INSERT INTO tmp VALUES (5)"),
    ("b", "SELECT * FROM tmp"),
    ("a", "SELECT tmp.y FROM tmp"),
    ("a", "SELECT * FROM t JOIN tmp ON tmp.y < t.w ORDER BY t.id"),
    ("a", "SHOW TABLES"),
    ("a", "SELECT table_name FROM information_schema.tables WHERE table_schema = 'd'"),
    ("a", "SHOW CREATE TABLE tmp"),
    ("a", "ALTER TABLE tmp ADD COLUMN z INT DEFAULT 3"),
    ("a", "SELECT * FROM tmp"),
    ("a", "DESCRIBE tmp"),
    ("b", "SELECT z FROM tmp"),
    ("a", "DROP TEMPORARY TABLE t"),
    ("a", "SELECT * FROM t"),
    ("a", "DROP TEMPORARY TABLE t"),
    ("a", "DROP TEMPORARY TABLE IF EXISTS t"),
    ("a", "SELECT * FROM t"),
    ("b", "CREATE TEMPORARY TABLE t (q INT)"),
    ("b", "DROP TABLE t"),
    ("b", "SELECT * FROM t"),
    ("a", "CREATE TEMPORARY TABLE c LIKE t"),
    ("a", "INSERT INTO c SELECT * FROM t"),
    ("a", "SELECT * FROM c"),
    ("a", "TRUNCATE TABLE c"),
    ("a", "SELECT COUNT(*) FROM c"),
    ("b", "SELECT * FROM c"),
    ("a", "CREATE TEMPORARY TABLE s AS SELECT id, v FROM t"),
    ("a", "SELECT * FROM s"),
    ("a", "SHOW CREATE TABLE s"),
    ("a", "CREATE TABLE tmp (id INT)"),
    ("a", "SHOW TABLES"),
    ("b", "SELECT * FROM tmp"),
    ("a", "DROP TABLE tmp"),
    ("a", "DROP TABLE tmp"),
    ("a", "SELECT * FROM tmp"),
    ("close", "a"),
    ("c", "SELECT * FROM s"),
    ("c", "SELECT * FROM tmp"),
    ("b", "SHOW TABLES"),
]


def _steps(server) -> list[tuple]:
    conns = {who: server.connect("d") for who in ("a", "b")}
    out = []
    try:
        for who, sql in STEPS:
            if who == "close":
                conns.pop(sql).close()
                conns["c"] = server.connect("d")
                continue
            out.append((f"{who}: {sql}", ok_answer(conns[who], sql)))
        return out
    finally:
        for conn in conns.values():
            conn.close()


def test_temporary_tables_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        theirs, mine = _steps(reference), _steps(ours)
        assert mine == theirs, answer_differences(theirs, mine)


def _restarted(port: int) -> list[tuple]:
    """A temporary table shadowing `t`, then the session started again: what it reads after."""
    import mysql.connector

    conn = connector_connection(port, "d")
    out: list[tuple] = []
    try:
        for step in ("CREATE TEMPORARY TABLE t (id INT)", "SELECT * FROM t", "reset", "SELECT * FROM t",
                     "CREATE TEMPORARY TABLE u (id INT)", "INSERT INTO u VALUES (1)", "change", "SELECT * FROM u"):
            try:
                if step == "reset":
                    conn.cmd_reset_connection()
                elif step == "change":
                    conn.cmd_change_user(username="root", password="", database="d")
                else:
                    cur = conn.cursor()
                    cur.execute(step)
                    out.append((step, [tuple(row) for row in cur.fetchall()] if cur.description else "ok"))
                    cur.close()
            except mysql.connector.Error as exc:
                out.append((step, "error", exc.errno))
    finally:
        conn.close()
    return out


def test_session_started_again_ends_its_temporary_tables(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        theirs, mine = _restarted(reference.port), _restarted(ours.port)
        assert mine == theirs
        assert ("SELECT * FROM u", "error", 1146) in mine


# two sessions, each with its temporary `tmp` (and one with a temporary `r` shadowing the base
# table `r`), copied into the base table `dest`
SESSION_A = ["CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)",
             "INSERT INTO tmp VALUES (1, 10), (2, 20)",
             "CREATE TEMPORARY TABLE r (id INT PRIMARY KEY, v INT)",
             "INSERT INTO r VALUES (5, 50)",
             "INSERT INTO dest SELECT id, v FROM tmp"]
SESSION_B = ["CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY, v INT)",
             "INSERT INTO tmp VALUES (3, 30)",
             "UPDATE tmp SET v = v + 1",
             "INSERT INTO dest SELECT id, v FROM tmp",
             "INSERT INTO dest SELECT id, v FROM r"]
SESSION_A_AFTER = ["INSERT INTO dest SELECT id + 100, v FROM r",
                   "CREATE TEMPORARY TABLE s AS SELECT id, v * 2 AS v FROM dest",
                   "INSERT INTO dest SELECT id + 1000, v FROM s"]


def test_replicas_keep_the_masters_rows(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in ("CREATE DATABASE d", "CREATE TABLE d.dest (id INT PRIMARY KEY, v INT)",
                        "CREATE TABLE d.r (id INT PRIMARY KEY, v INT)", "INSERT INTO d.r VALUES (7, 70)"):
                server.query(sql)
            a, b = server.connect("d"), server.connect("d")
            try:
                for conn, statements in ((a, SESSION_A), (b, SESSION_B), (a, SESSION_A_AFTER)):
                    for sql in statements:
                        assert ok_answer(conn, sql)[0] != "error", (server, sql)
            finally:
                a.close()
                b.close()
        for rows in ("SELECT * FROM d.dest ORDER BY id", "SELECT * FROM d.r ORDER BY id"):
            assert_same_rows(reference, ours, replicas, rows)

        def ended() -> list[str]:
            return [row[5] for row in ours.query("SHOW BINLOG EVENTS")
                    if row[2] == "Query" and "TEMPORARY */ TABLE IF EXISTS" in row[5]]

        wait_for(lambda: len(ended()) == 2, 30, message="both sessions' temporary tables to be dropped")
        assert sorted(ended()) == ["use `d`; DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `s`,`r`,`tmp`",
                                   "use `d`; DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `tmp`"]
        for replica in replicas:
            assert replica.query("SHOW TABLES FROM d") == [("dest",), ("r",)]
