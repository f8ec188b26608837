"""Grants on views, and performance_schema behind its privileges, as MariaDB 10.11 has them.

GRANT / REVOKE ... ON db.view is taken (it was 1146 "doesn't exist"); reading a SQL SECURITY
DEFINER view (the default) wants SELECT on the view, not on the tables it reads (it was 1142 on
the view's table), while a table the statement names itself, or a view not granted, is still
1142. performance_schema's tables want SELECT (they were read by any account: 0 rows where
MariaDB says 1142). Each step runs on a stock MariaDB and on our master as root or as an account
without global privileges, answers compared; the GRANT is binlogged and a MariaDB replica of ours
holds it."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    differences,
    reference_ours_and_replica,
    replay,
    rows_or_none,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE USER u IDENTIFIED BY 'pw'",
         "CREATE DATABASE d",
         "CREATE TABLE d.t (a INT)",
         "CREATE TABLE d.s (a INT)",
         "INSERT INTO d.t VALUES (1), (2)",
         # (a view over a view: a MariaDB replica wants the inner one's definer to exist there, as
         # `root`@`%`, our root, does not)
         "CREATE DEFINER = `root`@`localhost` VIEW d.v AS SELECT a FROM d.t",
         "CREATE DEFINER = `root`@`localhost` VIEW d.vv AS SELECT a FROM d.v WHERE a > 1"]

STEPS = [
    ("u", "SELECT * FROM d.v"),
    ("root", "GRANT SELECT ON d.v TO u"),
    ("root", "GRANT SELECT ON d.nosuch TO u"),
    ("root", "SHOW GRANTS FOR u"),
    ("u", "SELECT * FROM d.v ORDER BY a"),
    ("u", "SELECT COUNT(*) FROM d.v WHERE a > 1"),
    ("u", "SELECT * FROM d.vv"),
    ("u", "SELECT * FROM d.t"),
    ("u", "SELECT * FROM d.v JOIN d.t"),
    ("u", "SELECT * FROM d.v WHERE a IN (SELECT a FROM d.s)"),
    ("u", "SELECT COUNT(*) FROM performance_schema.threads"),
    ("u", "SELECT COUNT(*) FROM performance_schema.setup_instruments WHERE NAME LIKE 'x%'"),
    ("u", "SELECT * FROM performance_schema.global_status p JOIN d.v"),
    ("root", "GRANT SELECT ON d.vv TO u"),
    ("u", "SELECT * FROM d.vv"),
    ("root", "GRANT SELECT ON performance_schema.* TO u"),
    ("u", "SELECT COUNT(*) FROM performance_schema.threads"),
    ("root", "REVOKE SELECT ON d.v FROM u"),
    ("u", "SELECT * FROM d.v"),
    ("u", "SELECT * FROM d.vv"),
]


def test_view_grants_and_performance_schema_privileges(tmp_path):
    with reference_ours_and_replica(tmp_path) as (reference, ours, replica):
        theirs, mine = (replay(server, SETUP, STEPS, {"u": "pw"}) for server in (reference, ours))
        assert not differences(STEPS, theirs, mine), differences(STEPS, theirs, mine)
        want = sorted(ours.query("SHOW GRANTS FOR u"))
        assert ("GRANT SELECT ON `d`.`vv` TO `u`@`%`",) in want
        wait_for(lambda: sorted(rows_or_none(replica, "SHOW GRANTS FOR u") or []) == want, 90,
                 message=lambda: f"the replica to hold u's grants: {rows_or_none(replica, 'SHOW GRANTS FOR u')}")
