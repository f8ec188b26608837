"""Multi-table UPDATE and DELETE against a live MariaDB 10.11 (`engine.multiwrite`): several
targets written from one join, each row at most once, every value from the rows before the
statement; the OK packet's affected rows and "Rows matched: N  Changed: M" info; ON UPDATE
CURRENT_TIMESTAMP set on changed rows only; strict mode refusing a value before any row is
written; foreign key cascades from a target; ORDER BY / LIMIT refused by DELETE's grammar (1064).
What MariaDB answers by its join order (an assignment reading a column another assigns,
UPDATE's ORDER BY / LIMIT) is 1235 here. Replicas of our master (MariaDB's and ours) replaying
the statements end with the master's rows."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, reference_ours_and_replicas

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.e (id INT PRIMARY KEY, v VARCHAR(5), w INT,"
    " ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP)",
    "CREATE TABLE d.o (id INT PRIMARY KEY, eid INT, n INT, x VARCHAR(5))",
    "CREATE TABLE d.c (id INT PRIMARY KEY, oid INT, FOREIGN KEY (oid) REFERENCES d.o (id) ON DELETE CASCADE)",
    "INSERT INTO d.e VALUES (1, 'a', 10, '2000-01-01'), (2, 'b', 20, '2000-01-01'), (3, 'c', 30, '2000-01-01')",
    "INSERT INTO d.o VALUES (1, 1, 0, 'p'), (2, 1, 5, 'q'), (3, 2, 7, 'r'), (4, 3, 9, 's'), (5, 9, 1, 't')",
    "INSERT INTO d.c VALUES (1, 1), (2, 3), (3, 4)",
]

STATE = ["SELECT id, v, w, ts > '2001-01-01' FROM e ORDER BY id", "SELECT * FROM o ORDER BY id",
         "SELECT * FROM c ORDER BY id"]

WRITES = [
    "UPDATE d.e, d.o SET e.v = 'k', o.n = o.n + 1 WHERE o.eid = e.id AND e.id = 1",
    "UPDATE e JOIN o ON o.eid = e.id SET e.w = e.w + o.id, o.x = CONCAT(o.x, e.v) WHERE e.id = 2",
    "UPDATE e, o SET e.v = 'k', o.n = 6 WHERE o.eid = e.id AND e.id = 1",  # changes o.id=1 only
    "UPDATE e LEFT JOIN o ON o.eid = e.id AND o.n > 100 SET e.w = 0, o.n = 0 WHERE e.id = 3",
    "UPDATE e, o SET e.v = 'toolong', o.n = 1 WHERE o.eid = e.id",  # 1406: nothing written
    "DELETE e, o FROM e JOIN o ON o.eid = e.id WHERE e.id = 2",
    "DELETE FROM o, e USING o LEFT JOIN e ON o.eid = e.id WHERE e.id IS NULL OR e.id = 3",
]

QUERIES = STATE + [q for write in WRITES for q in [write] + STATE] + [
    "UPDATE e, o SET e.w = e.w + 1, o.n = e.w WHERE o.eid = e.id",  # 1235: reads e.w, assigned
    "UPDATE e, o SET e.w = 1, o.n = 1 WHERE o.eid = e.id LIMIT 1",  # 1235
    "DELETE e, o FROM e JOIN o ON o.eid = e.id LIMIT 1",  # 1064
    "DELETE e, o FROM e JOIN o ON o.eid = e.id ORDER BY e.id",  # 1064
]

# what MariaDB answers and we refuse
NOT_SUPPORTED = {"UPDATE e, o SET e.w = e.w + 1, o.n = e.w WHERE o.eid = e.id",
                 "UPDATE e, o SET e.w = 1, o.n = 1 WHERE o.eid = e.id LIMIT 1"}


def _answer(conn: pymysql.connections.Connection, sql: str) -> tuple:
    """("error", code, message), ("rows", rows), or ("ok", affected rows, the OK packet's info)."""
    with conn.cursor() as cur:
        try:
            cur.execute(sql)
        except pymysql.MySQLError as exc:
            return ("error", exc.args[0], exc.args[1])
        if cur.description is None:
            return ("ok", cur.rowcount, cur._result.message)
        return ("rows", tuple(cur.fetchall()))


def test_multi_table_writes_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            conn = server.connect("d")
            try:
                answers.append([_answer(conn, sql) for sql in QUERIES])
            finally:
                conn.close()
        theirs, ours = answers
        assert [t[0] for sql, t in zip(QUERIES, theirs, strict=True) if sql in NOT_SUPPORTED] == ["ok", "ok"]
        diffs = [(sql, t, o) for sql, t, o in zip(QUERIES, theirs, ours, strict=True)
                 if t != o and not (sql in NOT_SUPPORTED and o[:2] == ("error", 1235))]
        assert not diffs, "\n".join(f"{sql}\n  MariaDB {t}\n  ours    {o}" for sql, t, o in diffs)


def _rows(server) -> list:
    return [server.query(sql, database="d") for sql in STATE]


def _rows_or_none(server) -> list | None:
    try:
        return _rows(server)
    except Exception:
        return None  # (not replicated yet)


def test_replicas_of_ours_end_with_the_masters_rows(tmp_path):
    """The writes through the binlog as written, replayed by a MariaDB replica and by our slave."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            for sql in WRITES:
                try:
                    server.query(sql, database="d")
                except pymysql.MySQLError:
                    pass  # (the one strict-mode error, the same on both: the first test)
        want = _rows(reference)
        assert _rows(master) == want
        for replica in replicas:
            wait_for(lambda r=replica: _rows_or_none(r) == want, 90,
                     message=lambda r=replica: f"{r} to hold the master's rows: {_rows_or_none(r)}")
