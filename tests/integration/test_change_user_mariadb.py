"""COM_CHANGE_USER as MariaDB 10.11 answers it, through mysql-connector-python's
`cmd_change_user` (and MariaDB's own semantics): the session starts again first (user variables
and session variables gone), then the login is checked; a wrong password (1045), a database the
account may not use (1044) or that does not exist (1049) leave the connection open under its old
account and database; a good one logs in as the new account in the new database, whose
privileges then apply (1142); after three refused, every COM_CHANGE_USER of the connection is
1047 (MariaDB's limit on guessing passwords). The same steps run on a stock MariaDB and on our master and the
answers are compared (CURRENT_USER() aside: MariaDB's test server names its root account
root@127.0.0.1, ours root@%). It was 1047 (unknown command), which clients treat as fatal."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE cu1",
    "CREATE DATABASE cu2",
    "CREATE TABLE cu1.t (a INT)",
    "INSERT INTO cu1.t VALUES (1)",
    "CREATE USER 'cuser'@'%' IDENTIFIED BY 'pw'",
    "GRANT SELECT ON cu1.* TO 'cuser'@'%'",
]

# (change to (user, password, database)) or a statement, in order, on one connection
STEPS = [
    "SET @v = 5",
    "SET SESSION sql_mode = 'TRADITIONAL'",
    ("cuser", "wrong", None),
    "SELECT @v, @@session.sql_mode = @@global.sql_mode, DATABASE()",
    "USE cu2",
    ("cuser", "pw", "cu2"),
    "SELECT DATABASE(), SUBSTRING_INDEX(CURRENT_USER(), '@', 1)",
    ("cuser", "pw", "cu1"),
    "SELECT DATABASE(), SUBSTRING_INDEX(CURRENT_USER(), '@', 1), @v, COUNT(*) FROM t",
    "INSERT INTO t VALUES (2)",
    "SELECT a FROM t ORDER BY a",
    ("cuser", "pw", "nope"),
    "SELECT DATABASE(), SUBSTRING_INDEX(CURRENT_USER(), '@', 1)",
    ("root", "", None),  # the fourth after three refused: 1047, whatever the password
    "SELECT DATABASE(), SUBSTRING_INDEX(CURRENT_USER(), '@', 1)",
]


def _answers(port: int) -> list[tuple]:
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", use_pure=True,
                                   autocommit=True)
    out: list[tuple] = []
    try:
        for step in STEPS:
            try:
                if isinstance(step, tuple):
                    user, password, database = step
                    conn.cmd_change_user(username=user, password=password, database=database or "")
                    out.append((step, "ok"))
                else:
                    cur = conn.cursor()
                    cur.execute(step)
                    out.append((step, cur.fetchall() if cur.description else "ok"))
                    cur.close()
            except mysql.connector.Error as exc:
                out.append((step, "error", exc.errno))
    finally:
        conn.close()
    return out


def test_change_user_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = _answers(reference.port), _answers(master.port)
    assert (("cuser", "wrong", None), "error", 1045) in theirs  # (what the comparison stands on)
    assert ("INSERT INTO t VALUES (2)", "error", 1142) in theirs
    assert ours == theirs
