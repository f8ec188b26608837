"""RELOAD and READ_ONLY ADMIN as MariaDB 10.11 checks them, replayed against a stock MariaDB and
our master: RESET MASTER, RESET SLAVE / REPLICA, FLUSH BINARY LOGS, FLUSH LOGS and the other
FLUSH statements need RELOAD (SUPER or BINLOG ADMIN is not enough); under read_only an account
with READ_ONLY ADMIN (ALL PRIVILEGES has it) writes, SUPER alone does not (1290), and account
statements (CREATE / ALTER / DROP USER, GRANT, REVOKE, SET PASSWORD) are writes. Each answer
(error code, SQLSTATE and message, or the rows) must be MariaDB's.
"""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import differences, mariadb_and_ours, replay

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed")

ACCOUNTS = {
    "reload": "RELOAD ON *.*",
    "super": "SUPER ON *.*",
    "binlog": "BINLOG ADMIN ON *.*",
    "readonly": "READ_ONLY ADMIN ON *.*",
    "client": "ALL ON d.*",
    "useradmin": "CREATE USER ON *.*",
}
SETUP = (
    "CREATE DATABASE d",
    "CREATE TABLE d.t (a INT PRIMARY KEY) ENGINE=InnoDB",
    *(sql for user, grant in ACCOUNTS.items()
      for sql in (f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'", f"GRANT {grant} TO '{user}'@'%'",
                  f"GRANT ALL ON d.* TO '{user}'@'%'")),
    "GRANT SELECT ON d.* TO 'useradmin'@'%' WITH GRANT OPTION",
)
RELOAD_STATEMENTS = ("FLUSH BINARY LOGS", "FLUSH LOCAL BINARY LOGS", "FLUSH LOGS", "FLUSH STATUS",
                     "FLUSH PRIVILEGES", "FLUSH TABLES", "FLUSH HOSTS", "RESET MASTER", "RESET SLAVE", "RESET REPLICA")
WRITES = ("INSERT INTO d.t VALUES ({n})", "UPDATE d.t SET a = a + 1000 WHERE a = {n}",
          "CREATE TABLE d.x{n} (a INT)", "DROP TABLE d.x{n}")

STEPS: tuple[tuple[str, str], ...] = (
    *((user, sql) for user in ("super", "binlog", "client", "reload") for sql in RELOAD_STATEMENTS),
    ("root", "SET GLOBAL read_only = ON"),
    *((user, sql.format(n=n)) for n, user in enumerate(("super", "client", "readonly", "root", "reload"), 1)
      for sql in WRITES),
    # account statements are writes too (mysql.global_priv)
    *(("useradmin", sql) for sql in (
        "CREATE USER 'zz'@'%'", "GRANT SELECT ON d.* TO 'useradmin'@'%'", "ALTER USER 'useradmin'@'%' IDENTIFIED BY 'pw'",
        "SET PASSWORD = PASSWORD('pw')", "DROP USER 'client'@'%'", "RENAME USER 'client'@'%' TO 'c2'@'%'",
        "REVOKE SELECT ON d.* FROM 'useradmin'@'%'")),
    ("root", "CREATE USER 'zz'@'%'"),
    ("super", "SET GLOBAL read_only = OFF"),
    ("readonly", "SET GLOBAL read_only = OFF"),
    ("client", "INSERT INTO d.t VALUES (10)"),
    ("root", "SELECT a FROM d.t ORDER BY a"),
)


def test_reload_and_read_only_admin_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as servers:
        theirs, mine = (replay(server, SETUP, STEPS, dict.fromkeys(ACCOUNTS, "pw")) for server in servers)
    denied = [who for (who, _sql), a in zip(STEPS, theirs, strict=True) if a[:2] == ("error", 1227)]
    assert denied == ["super"] * 10 + ["binlog"] * 10 + ["client"] * 10 + ["super"], theirs
    refused = [who for (who, _sql), a in zip(STEPS, theirs, strict=True) if a[:2] == ("error", 1290)]
    assert refused == ["super"] * 4 + ["client"] * 4 + ["reload"] * 4 + ["useradmin"] * 7, theirs
    assert not differences(STEPS, theirs, mine), differences(STEPS, theirs, mine)
