"""REPEATABLE-READ as MariaDB 10.11's InnoDB runs it, the default level of every session: two
sessions on a stock MariaDB and on our master, the same steps, every answer compared (rows,
affected counts, errors); then the rows on a MariaDB replica and on our slave of our master.

The steps: the default level (SELECT @@, SHOW VARIABLES); a transaction's re-read after another
session committed an UPDATE, an INSERT and a DELETE (its first read's rows again; an autocommit
read sees the latest); its own UPDATE of the row another changed (the latest committed row:
v + 100 of the other's value), of the row another deleted (none), an INSERT of the key another
inserted (1062), and its re-read of the row it wrote; autocommit off (a read begins the
transaction); the view taken at the first read, not at BEGIN, and of every database; START
TRANSACTION WITH CONSISTENT SNAPSHOT (at once); SET TRANSACTION ISOLATION LEVEL READ COMMITTED
for the next transaction only; SET SESSION and SET GLOBAL tx_isolation, and = DEFAULT. A new
session after SET GLOBAL, and COM_RESET_CONNECTION and COM_CHANGE_USER, take the global level
(mysql-connector-python), as the variable says and as a transaction reads.

Not compared, where ours differs: a transaction's plain read after its first write (or locking
read) sees every row's latest committed version (ours reads through the engine's one writer
from then on), where InnoDB's sees its view and its own changes only."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    each_askers_answers,
    ok_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
    "INSERT INTO d.t VALUES (1, 10), (2, 20), (3, 30)",
    "CREATE DATABASE e",
    "CREATE TABLE e.u (id INT PRIMARY KEY)",
]
ROWS = "SELECT id, v FROM d.t ORDER BY id"
COUNT = "SELECT COUNT(*) FROM d.t"
A, B = "a", "b"  # two sessions, both autocommit to begin with

STEPS: list[tuple[str, str]] = [
    (A, "SELECT @@tx_isolation, @@session.tx_isolation, @@global.tx_isolation"),
    (A, "SHOW SESSION VARIABLES LIKE 'tx_isolation'"),
    (A, "SHOW GLOBAL VARIABLES LIKE 'tx_isolation'"),
    # a transaction's re-read: its first read's rows
    (A, "BEGIN"),
    (A, ROWS),
    (B, "UPDATE d.t SET v = 21 WHERE id = 2"),
    (B, "INSERT INTO d.t VALUES (4, 40)"),
    (B, "DELETE FROM d.t WHERE id = 3"),
    (B, ROWS),  # autocommit: the latest
    (A, ROWS),
    (A, "SELECT id, v FROM d.t WHERE id IN (2, 3, 4) ORDER BY id"),
    (A, COUNT),
    # its writes find the latest committed rows
    (A, "UPDATE d.t SET v = v + 100 WHERE id = 2"),
    (A, "UPDATE d.t SET v = 0 WHERE id = 3"),
    (A, "INSERT INTO d.t VALUES (4, 44)"),
    (A, "SELECT v FROM d.t WHERE id = 2"),
    (A, "COMMIT"),
    (A, ROWS),
    # autocommit off: the first read begins the transaction and takes its view
    (A, "SET autocommit = 0"),
    (A, ROWS),
    (B, "UPDATE d.t SET v = 11 WHERE id = 1"),
    (A, ROWS),
    (A, "COMMIT"),
    (A, ROWS),
    (A, "COMMIT"),
    (A, "SET autocommit = 1"),
    # the view is the first read's, not BEGIN's
    (A, "BEGIN"),
    (B, "INSERT INTO d.t VALUES (5, 50)"),
    (A, COUNT),
    (B, "INSERT INTO d.t VALUES (6, 60)"),
    (A, COUNT),
    (A, "COMMIT"),
    # WITH CONSISTENT SNAPSHOT: the view at once
    (A, "START TRANSACTION WITH CONSISTENT SNAPSHOT"),
    (B, "INSERT INTO d.t VALUES (7, 70)"),
    (A, COUNT),
    (A, "COMMIT"),
    (A, COUNT),
    # one view of every database, from the first read
    (A, "BEGIN"),
    (A, COUNT),
    (B, "INSERT INTO e.u VALUES (1)"),
    (A, "SELECT COUNT(*) FROM e.u"),
    (A, "COMMIT"),
    (A, "SELECT COUNT(*) FROM e.u"),
    # READ COMMITTED for the next transaction only
    (A, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
    (A, "SELECT @@tx_isolation"),
    (A, "BEGIN"),
    (A, COUNT),
    (B, "INSERT INTO d.t VALUES (8, 80)"),
    (A, COUNT),
    (A, "COMMIT"),
    (A, "BEGIN"),
    (A, COUNT),
    (B, "INSERT INTO d.t VALUES (9, 90)"),
    (A, COUNT),
    (A, "COMMIT"),
    (A, "SELECT @@tx_isolation"),
    # the session's level, and DEFAULT: the global one
    (A, "SET SESSION tx_isolation = 'READ-COMMITTED'"),
    (A, "SELECT @@tx_isolation, @@global.tx_isolation"),
    (A, "BEGIN"),
    (A, COUNT),
    (B, "DELETE FROM d.t WHERE id = 9"),
    (A, COUNT),
    (A, "COMMIT"),
    (A, "SET SESSION tx_isolation = DEFAULT"),
    (A, "SELECT @@tx_isolation"),
    (A, "SET GLOBAL tx_isolation = 'SERIALIZABLE'"),
    (B, "SELECT @@tx_isolation, @@global.tx_isolation"),
    (A, "SET SESSION tx_isolation = DEFAULT"),
    (A, "SELECT @@tx_isolation"),
    (A, "SET GLOBAL tx_isolation = DEFAULT"),
    (A, "SET SESSION tx_isolation = DEFAULT"),
    (B, "SELECT @@tx_isolation, @@global.tx_isolation"),
    (A, "SELECT @@tx_isolation, @@global.tx_isolation"),
]


def _steps(server) -> list[tuple]:
    """`SETUP` run on `server`, then (session, statement, `ok_answer`) for each of `STEPS`."""
    for sql in SETUP:
        server.query(sql)
    sessions = {A: server.connect(), B: server.connect()}
    try:
        return [(f"{who}: {sql}", ok_answer(sessions[who], sql)) for who, sql in STEPS]
    finally:
        for conn in sessions.values():
            conn.close()


def test_two_sessions_read_and_write_as_under_innodb_s_repeatable_read(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        theirs, mine = _steps(reference), _steps(ours)
        assert answer_differences(theirs, mine) == ""
        assert_same_rows(reference, ours, replicas, ROWS)
        assert_same_rows(reference, ours, replicas, "SELECT id FROM e.u ORDER BY id")


def _transaction_reads(conn, other) -> str:
    """The level `conn`'s session says and what its transaction reads: whether a second read sees
    a row `other` committed after its first."""
    cur, writes = conn.cursor(), other.cursor()
    cur.execute("SELECT @@tx_isolation")
    level = cur.fetchall()[0][0]
    cur.execute("BEGIN")
    cur.execute(COUNT)
    before = cur.fetchall()[0][0]
    writes.execute("INSERT INTO d.t SELECT MAX(id) + 1, 0 FROM d.t")
    cur.execute(COUNT)
    after = cur.fetchall()[0][0]
    cur.execute("COMMIT")
    cur.close()
    writes.close()
    return f"{level}: {'sees' if after > before else 'does not see'} the other's commit"


def _new_sessions(port: int) -> list[str]:
    """A session's level after SET GLOBAL (the sessions begun after it take it), after
    COM_RESET_CONNECTION and after COM_CHANGE_USER (the global level again)."""
    import mysql.connector

    def connect():
        return mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", use_pure=True,
                                       autocommit=True)

    admin, one = connect(), connect()
    seen = [_transaction_reads(one, admin)]
    try:
        admin.cursor().execute("SET GLOBAL tx_isolation = 'READ-COMMITTED'")
        two = connect()
        seen += [_transaction_reads(one, admin), _transaction_reads(two, admin)]
        admin.cursor().execute("SET GLOBAL tx_isolation = DEFAULT")
        two.cmd_reset_connection()
        seen.append(_transaction_reads(two, admin))
        one.cursor().execute("SET SESSION tx_isolation = 'READ-COMMITTED'")
        one.cmd_change_user(username="root", password="")
        seen.append(_transaction_reads(one, admin))
        two.close()
    finally:
        one.close()
        admin.close()
    return seen


def test_a_new_reset_or_changed_session_takes_the_global_level(tmp_path):
    [(theirs, mine)] = each_askers_answers(tmp_path, SETUP, _new_sessions)
    assert mine == theirs
