"""The role statements and functions as MariaDB 10.11 answers them where no role exists (this
server has none: CREATE ROLE is 1235): SET ROLE NONE and SET DEFAULT ROLE NONE [FOR account]
succeed, CURRENT_ROLE and CURRENT_ROLE() are NULL, a named role is 1959 (SET ROLE, SET DEFAULT
ROLE, GRANT role TO, REVOKE role FROM), DROP ROLE is 1396 or IF EXISTS' note 1976, SET DEFAULT
ROLE FOR an account that does not exist is 1960 and for another account without UPDATE on the
mysql database 1044; information_schema.ENABLED_ROLES is one NULL row, APPLICABLE_ROLES empty.
Each step runs on a stock MariaDB and on our master, as root or as a plain
account, and the answers are compared."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import differences, mariadb_and_ours, replay

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE USER plain@'%' IDENTIFIED BY 'pw'", "CREATE USER other@'%'"]

STEPS = [
    ("root", "SELECT CURRENT_ROLE(), CURRENT_ROLE, current_role() IS NULL"),
    ("root", "SET ROLE NONE"),
    ("root", "SET ROLE `none`"),
    ("root", "SELECT CURRENT_ROLE()"),
    ("root", "SET ROLE nosuch"),
    ("root", "SET ROLE 'nosuch'"),
    ("root", "SET ROLE PUBLIC"),
    ("root", "SET ROLE DEFAULT"),
    ("root", "SET DEFAULT ROLE NONE"),
    ("root", "SET DEFAULT ROLE 'none'"),
    ("root", "SET DEFAULT ROLE CURRENT_ROLE"),
    ("root", "SET DEFAULT ROLE nosuch"),
    ("root", "SET DEFAULT ROLE NONE FOR other"),
    ("root", "SET DEFAULT ROLE NONE FOR 'other'@'%'"),
    ("root", "SET DEFAULT ROLE NONE FOR CURRENT_USER()"),
    ("root", "SET DEFAULT ROLE nosuch FOR other"),
    ("root", "SET DEFAULT ROLE nosuch FOR nobody@localhost"),
    ("root", "SET DEFAULT ROLE NONE FOR nobody@localhost"),
    ("root", "DROP ROLE nosuch"),
    ("root", "DROP ROLE nosuch, other_role"),
    ("root", "DROP ROLE IF EXISTS nosuch"),
    ("root", "SHOW WARNINGS"),
    ("root", "GRANT nosuch TO other"),
    ("root", "REVOKE nosuch FROM other"),
    ("plain", "SET ROLE NONE"),
    ("plain", "SET DEFAULT ROLE NONE"),
    ("plain", "SET DEFAULT ROLE NONE FOR plain"),
    ("plain", "SET DEFAULT ROLE NONE FOR other"),
    ("plain", "SELECT CURRENT_ROLE()"),
    ("root", "SELECT * FROM information_schema.ENABLED_ROLES"),
    ("root", "SELECT * FROM information_schema.APPLICABLE_ROLES"),
]


def test_roles_as_mariadb_without_roles(tmp_path):
    with mariadb_and_ours(tmp_path) as servers:
        theirs, mine = (replay(server, SETUP, STEPS, {"plain": "pw"}) for server in servers)
    assert theirs[1] == ("ok",) and theirs[4][:2] == ("error", 1959), theirs
    assert not differences(STEPS, theirs, mine), differences(STEPS, theirs, mine)
