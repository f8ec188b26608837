"""Who may GRANT and REVOKE what, replayed against a stock MariaDB 10.11 and our master: the
grantor needs GRANT OPTION and every privilege it gives or takes, held globally or at the
level's database or table (1045 for `*.*`, 1044 for a database, 1142 naming what is missing
for a table, checked before the table's existence); a global GRANT OPTION does not let an
account give privileges it lacks; REVOKE ALL PRIVILEGES, GRANT OPTION needs CREATE USER
(1227, 1269 for a missing account); ALL PRIVILEGES keeps the grant option, `GRANT OPTION` in a
list gives or takes it; SHOW GRANTS FOR / SHOW CREATE USER of another account need SELECT on
the mysql database (1044). Each answer (error code, SQLSTATE and message, or the rows) must be
MariaDB's.
"""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import answer, differences, mariadb_and_ours, replay

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed")

ACCOUNTS = {
    "plain": "SELECT, INSERT ON d.*",  # no grant option anywhere
    "half": "SELECT ON d.*",  # + GRANT OPTION on d (below)
    "useradmin": "CREATE USER ON *.*",
    "gl": "SELECT ON *.*",  # + GRANT OPTION globally (below)
}
SETUP = (
    "CREATE DATABASE d", "CREATE DATABASE e", "CREATE TABLE d.t (a INT PRIMARY KEY, b INT)",
    *(sql for user, grant in ACCOUNTS.items()
      for sql in (f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'", f"GRANT {grant} TO '{user}'@'%'")),
    "GRANT SELECT ON d.* TO 'half'@'%' WITH GRANT OPTION",
    "GRANT SELECT ON *.* TO 'gl'@'%' WITH GRANT OPTION",
    "CREATE USER 'x'@'%'",
)
PER_GRANTOR = (
    "GRANT SELECT ON d.* TO 'x'@'%'", "GRANT INSERT ON d.* TO 'x'@'%'", "GRANT SELECT ON d.t TO 'x'@'%'",
    "GRANT SELECT ON *.* TO 'x'@'%'", "GRANT SELECT ON e.* TO 'x'@'%'", "GRANT INSERT ON d.t TO 'x'@'%'",
    "REVOKE SELECT ON d.* FROM 'x'@'%'", "REVOKE INSERT ON d.* FROM 'x'@'%'", "REVOKE SELECT ON *.* FROM 'x'@'%'",
    "REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'x'@'%'", "GRANT ALL ON d.* TO 'x'@'%'",
    "GRANT SELECT ON nosuch.* TO 'x'@'%'", "GRANT SELECT ON d.nosuch TO 'x'@'%'",
    "SHOW GRANTS FOR 'x'@'%'", "SHOW CREATE USER 'x'@'%'", "SHOW GRANTS FOR 'nobody'@'%'",
)
STEPS: tuple[tuple[str, str], ...] = (
    *((user, sql) for user in ACCOUNTS for sql in PER_GRANTOR),
    *(("plain", sql) for sql in ("GRANT SELECT (a) ON d.t TO 'x'@'%'", "SHOW GRANTS", "SHOW GRANTS FOR 'plain'@'%'")),
    # ALL PRIVILEGES leaves the grant option at every level; GRANT OPTION names it
    *(("root", sql) for sql in (
        "CREATE USER 'y'@'%'", "GRANT SELECT, INSERT ON *.* TO 'y'@'%' WITH GRANT OPTION",
        "GRANT SELECT ON d.* TO 'y'@'%' WITH GRANT OPTION", "GRANT SELECT ON d.t TO 'y'@'%' WITH GRANT OPTION",
        "REVOKE ALL ON *.* FROM 'y'@'%'", "SHOW GRANTS FOR 'y'@'%'",
        "REVOKE ALL ON d.* FROM 'y'@'%'", "SHOW GRANTS FOR 'y'@'%'", "GRANT INSERT ON d.* TO 'y'@'%'")),
    ("useradmin", "REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'y'@'%'"),
    *(("root", sql) for sql in (
        "SHOW GRANTS FOR 'y'@'%'",
        "REVOKE ALL PRIVILEGES, GRANT OPTION FROM 'nobody'@'%'",
        "GRANT GRANT OPTION ON d.* TO 'y'@'%'", "SHOW GRANTS FOR 'y'@'%'",
        "REVOKE GRANT OPTION ON d.* FROM 'y'@'%'", "SHOW GRANTS FOR 'y'@'%'",
        "GRANT SELECT ON *.* TO 'y'@'%' WITH GRANT OPTION", "REVOKE GRANT OPTION ON *.* FROM 'y'@'%'",
        "SHOW GRANTS FOR 'y'@'%'")),
)


def test_grant_and_revoke_need_what_mariadb_needs(tmp_path):
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        theirs, mine = (replay(server, SETUP, STEPS, dict.fromkeys(ACCOUNTS, "pw")) for server in (mariadb, ours))
        # column privileges are not supported here: refused with MariaDB's "not supported" once
        # the grantor may give them, and nothing is granted
        ours.query("CREATE USER 'z'@'%'")
        conn = ours.connect(user="half", password="pw")
        try:
            assert answer(conn, "GRANT SELECT (a) ON d.t TO 'z'@'%'")[:2] == ("error", 1235)
        finally:
            conn.close()
        assert ours.query("SHOW GRANTS FOR 'z'@'%'") == [("GRANT USAGE ON *.* TO `z`@`%`",)]
    assert differences(STEPS, theirs, mine) == ""
    refused = {(who, sql) for (who, sql), a in zip(STEPS, theirs, strict=True) if a[0] == "error"}
    # the escalations this guards against: a global grant option does not give what it lacks
    assert ("gl", "GRANT INSERT ON d.* TO 'x'@'%'") in refused
    assert ("gl", "GRANT ALL ON d.* TO 'x'@'%'") in refused
    assert ("useradmin", "REVOKE SELECT ON *.* FROM 'x'@'%'") in refused
    assert ("half", "GRANT SELECT ON d.t TO 'x'@'%'") not in refused


def test_a_password_less_login_is_named_so_in_1045(tmp_path):
    with mariadb_and_ours(tmp_path) as servers:
        answers = []
        for server in servers:
            server.query("CREATE USER 'np'@'%'")
            conn = server.connect(user="np", password="")
            try:
                answers.append(answer(conn, "GRANT SELECT ON *.* TO 'np'@'%'"))
            finally:
                conn.close()
    assert answers[0] == answers[1]
    assert answers[0][:2] == ("error", 1045) and "(using password: NO)" in answers[0][3]
