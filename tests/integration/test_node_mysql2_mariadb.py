"""Node's mysql2 (npm, installed by `make deps` into tests/support/node) against a stock MariaDB
10.11 and against our master: the same steps (tests/support/node/mysql2_probe.js) on each, their
answers as mysql2 gives them (JS values and their types, column types, error codes) compared.

Covered: JSON columns and JSON values parsed by mysql2 into objects, as it does from MariaDB
(it reads MariaDB's extended type info: they came as text); DECIMAL text near zero (-1E-10
was sent); a JS number (sent as a DOUBLE) stored into a VARCHAR as MariaDB writes it (99 was
stored '99.0'); ENUM ordering by member number; a derived table under a real table's name (the
connection broke); nestTables (the columns named no table: every row was under ''); SHOW TABLE
STATUS's column types; a READ ONLY transaction's write (1792);
changeUser (was 1047, fatal to mysql2) with a wrong password, then to an account with a database,
whose privileges then apply."""

from __future__ import annotations

import shutil

import pytest

from tests.support.client_probes import NODE_DIR, node_steps, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

NODE = shutil.which("node")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(NODE is None or not (NODE_DIR / "node_modules" / "mysql2").is_dir(),
                       reason="needs node and mysql2 (make deps: npm install in tests/support/node)"),
]


def test_mysql2_answers_as_from_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = node_steps("mysql2_probe.js", reference.port), node_steps("mysql2_probe.js", master.port)
    by_step = dict(map(tuple, theirs))
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert by_step["query: JSON values"]["rows"][0][1] == {"object": '{"a":[1,2]}'}
    assert by_step["changeUser"] == "ok" and by_step["its privileges"]["error"] == 1142
    assert step_differences(theirs, ours) == []
