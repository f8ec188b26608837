"""The `mysql` grant tables below the global level, and the result column flags tools read from
table columns, as MariaDB 10.11 answers them.

- `mysql.db`, `mysql.tables_priv` (its Grantor the granting session's `user@host`, its
  Timestamp MariaDB's zero), `mysql.columns_priv`, `mysql.procs_priv`, `mysql.proxies_priv` and
  `mysql.roles_mapping` (empty here: no column, routine, proxy or role grants exist; MariaDB's
  own rows for its `mariadb.sys` and root proxy accounts are left out of the comparison), each
  compared in full (every result column's type, length, flags and character set, over the text
  protocol and prepared, with the rows) after grants, a partial revoke and a dropped account;
  1142 for an account without SELECT on them; the same rows after our server restarts.
- A table's result columns: PRI on every column of the first UNIQUE key of NOT NULL columns when
  there is no PRIMARY KEY (InnoDB's acting primary key: DESCRIBE already said so); TIMESTAMP on a
  TIMESTAMP column with an automatic DEFAULT or ON UPDATE, ON_UPDATE_NOW on any ON UPDATE column;
  BINARY on an ENUM or SET of a _bin collation."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import defined_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

GRANTS = [
    "CREATE DATABASE d", "CREATE TABLE d.t (a INT)", "CREATE TABLE d.t2 (a INT)",
    "CREATE USER 'u'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON d.* TO 'u'@'%'",
    "GRANT UPDATE, DELETE ON d.t TO 'u'@'%' WITH GRANT OPTION", "GRANT SELECT ON `x\\_%`.* TO 'u'@'%'",
    "CREATE USER 'v'@'localhost'", "GRANT ALL ON d.* TO 'v'@'localhost'",
    "GRANT ALL ON d.t TO 'v'@'localhost' WITH GRANT OPTION", "GRANT CREATE VIEW, SHOW VIEW ON d.t2 TO 'v'@'localhost'",
    "CREATE USER 'w'@'%'", "GRANT EXECUTE, EVENT, LOCK TABLES ON d.* TO 'w'@'%' WITH GRANT OPTION",
    "GRANT SELECT ON d.t TO 'w'@'%'",
    "REVOKE DELETE ON d.t FROM 'u'@'%'", "REVOKE INSERT ON d.* FROM 'u'@'%'", "DROP USER 'w'@'%'",
]
OURS = "User IN ('u', 'v', 'w')"
TABLES = [
    f"SELECT * FROM mysql.db WHERE {OURS} ORDER BY User, Db",
    f"SELECT * FROM mysql.tables_priv WHERE {OURS} ORDER BY User, Table_name",
    "SELECT * FROM mysql.columns_priv", "SELECT * FROM mysql.procs_priv", "SELECT * FROM mysql.roles_mapping",
    "SELECT * FROM mysql.proxies_priv WHERE User <> 'root'",
    f"SELECT Db, Select_priv, Grant_priv FROM mysql.db d WHERE d.{OURS} AND Insert_priv = 'N' ORDER BY Db",
    "SELECT User, Host, Db FROM mysql.db WHERE Insert_priv = 'Y' AND User <> 'mariadb.sys' ORDER BY User",
    f"SELECT Table_name, Grantor, Table_priv FROM mysql.tables_priv WHERE {OURS} AND FIND_IN_SET('Grant', Table_priv)",
]


def _run(server, statements: list[str]) -> None:
    for sql in statements:
        server.query(sql)


def _denied(port: int) -> list:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="u", password="pw", autocommit=True)
    out = []
    try:
        for table in ("db", "tables_priv", "procs_priv"):
            try:
                with conn.cursor() as cur:
                    cur.execute(f"SELECT * FROM mysql.{table}")
                out.append(("rows", cur.fetchall()))
            except pymysql.MySQLError as exc:
                out.append(exc.args)
    finally:
        conn.close()
    return out


def test_the_grant_tables_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        for server in (mariadb, ours):
            _run(server, GRANTS)
        theirs, mine = (defined_answers(server.port, "d", TABLES) for server in (mariadb, ours))
        denied = [_denied(server.port) for server in (mariadb, ours)]
        ours.stop()
        ours.start()
        restarted = defined_answers(ours.port, "d", TABLES)
    assert len(theirs[0][1][1]) == 3 and len(theirs[1][1][1]) == 3, theirs[:2]  # the grants made rows
    assert theirs == mine, [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]
    assert denied[0] == denied[1] and denied[0][0][0] == 1142, denied
    assert restarted == mine


COLUMNS = [
    "CREATE DATABASE d",
    "CREATE TABLE d.ts (a timestamp NOT NULL DEFAULT current_timestamp(), b timestamp NULL ON UPDATE"
    " current_timestamp(), c timestamp NULL, d datetime DEFAULT now() ON UPDATE now(), e datetime(3) ON UPDATE"
    " now(3), f timestamp(2) NOT NULL DEFAULT '2000-01-01', g datetime DEFAULT now())",
    "CREATE TABLE d.en (e enum('x','y') NOT NULL, s set('a','b'), e2 enum('p') COLLATE utf8mb4_bin,"
    " s2 set('q') CHARACTER SET latin1 COLLATE latin1_bin, e3 enum('r') COLLATE utf8mb4_general_ci,"
    " v varchar(3) COLLATE utf8mb4_bin) COLLATE=utf8mb4_bin",
    "CREATE TABLE d.u1 (a INT NOT NULL, b INT NOT NULL, c INT, UNIQUE KEY k (a, b), UNIQUE KEY k2 (c))",
    "CREATE TABLE d.u2 (a INT, b INT NOT NULL, c INT NOT NULL, UNIQUE KEY k (a), UNIQUE KEY k2 (b), KEY k3 (c, b))",
    "CREATE TABLE d.u3 (a INT NOT NULL, b INT NOT NULL, UNIQUE KEY k (a), UNIQUE KEY k2 (b))",
    "CREATE TABLE d.u4 (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (b), UNIQUE KEY k (a))",
]
READS = ["SELECT * FROM ts", "SELECT * FROM en", "SELECT * FROM u1", "SELECT * FROM u2", "SELECT * FROM u3",
         "SELECT * FROM u4", "SELECT u1.a, u3.b, ts.b, en.e2 FROM u1, u3, ts, en"]


def test_table_columns_flags_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        for server in (mariadb, ours):
            _run(server, COLUMNS)
        theirs, mine = (defined_answers(server.port, "d", READS) for server in (mariadb, ours))
    assert [(t[0], t[1][0], m[1][0]) for t, m in zip(theirs, mine, strict=True) if t != m] == []
