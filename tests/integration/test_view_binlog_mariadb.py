"""CREATE / ALTER VIEW as MariaDB binlogs them: every option spelled out (ALGORITHM, DEFINER, SQL
SECURITY; MariaDB's mysql_create_view), the view named unqualified in its own database, so that a
replica, whose applier runs as no account, makes the view with the master's definer. Before, the
statement was logged as the client wrote it and a MariaDB replica made each view with the definer
''@'': reading it there was 1449. Compared with a MariaDB master's binlog; the views read on a
MariaDB replica and our slave of ours."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import assert_same_rows, reference_ours_and_replicas

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

SETUP = [
    "CREATE DATABASE v1",
    "CREATE TABLE v1.t (id INT PRIMARY KEY, a VARCHAR(5))",
    "INSERT INTO v1.t VALUES (1, 'x'), (2, 'y')",
    "CREATE USER app@'%' IDENTIFIED BY 'pw'",
    "GRANT ALL ON v1.* TO app@'%'",
]

# run by app@'%' (the same CURRENT_USER on both servers); `None` as the database: no USE
VIEWS = [
    (None, "CREATE VIEW v1.w AS SELECT id, a FROM v1.t"),
    ("v1", "CREATE VIEW w2 AS (SELECT id FROM v1.t) UNION (SELECT 7)"),
    ("v1", "CREATE DEFINER=CURRENT_USER SQL SECURITY INVOKER VIEW v1.w3 AS SELECT 1 x"),
    ("v1", "CREATE OR REPLACE ALGORITHM=MERGE VIEW w4 (c1) AS SELECT id FROM t WITH CHECK OPTION"),
    ("v1", "ALTER VIEW w4 AS SELECT a, id FROM t"),
    ("v1", "CREATE /* c */ VIEW   w5 AS   SELECT   id * 2 AS d FROM t"),
    (None, "CREATE DEFINER=CURRENT_USER() VIEW v1.w6 (k, l) AS SELECT id, a FROM v1.t WHERE id > 1"),
]

# run by root: another account as the definer (a SUPER's)
NAMED = ["CREATE DEFINER='bob'@'%' VIEW v1.w7 AS SELECT 1 AS one",
         "CREATE DEFINER=`app`@`%` SQL SECURITY INVOKER VIEW v1.w8 AS SELECT 2 AS two",
         "CREATE DEFINER=joe VIEW v1.w9 AS SELECT 3 AS three"]

READS = ["SELECT * FROM v1.w ORDER BY id", "SELECT * FROM v1.w2 ORDER BY id", "SELECT * FROM v1.w3",
         "SELECT * FROM v1.w4 ORDER BY id", "SELECT * FROM v1.w5 ORDER BY d", "SELECT * FROM v1.w6",
         "SELECT * FROM v1.w8"]


def _as_app(server, database: str | None, sql: str) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=server.port, user="app", password="pw", database=database,
                           autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    finally:
        conn.close()


def _view_statements(server) -> list[tuple[str, str]]:
    """(the event's database, its text) of each view statement in the server's binlogs."""
    found = []
    for name, _size in server.query("SHOW BINARY LOGS"):
        for row in server.query(f"SHOW BINLOG EVENTS IN '{name}'"):
            if row[2] == "Query" and " VIEW " in row[5]:
                found.append(row[5])
    return found


def test_view_statements_are_binlogged_and_replicated_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            for database, sql in VIEWS:
                _as_app(server, database, sql)
            for sql in NAMED:
                server.query(sql)
        assert _view_statements(ours) == _view_statements(reference)
        for view in ("w", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"):  # (MariaDB rewrites its SELECT's text, ours keeps it)
            definers = [server.query(f"SHOW CREATE VIEW v1.{view}")[0][1].split(" VIEW ")[0]
                        for server in (reference, ours)]
            assert definers[1] == definers[0]
        for sql in READS:
            assert_same_rows(reference, ours, replicas, sql)
        assert_same_rows(reference, ours, replicas, "SELECT TABLE_NAME, DEFINER, SECURITY_TYPE FROM "
                         "information_schema.VIEWS WHERE TABLE_SCHEMA = 'v1' ORDER BY TABLE_NAME")
