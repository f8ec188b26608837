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

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

NODE_DIR = Path(__file__).resolve().parents[1] / "support" / "node"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(NODE is None or not (NODE_DIR / "node_modules" / "mysql2").is_dir(),
                       reason="needs node and mysql2 (make deps: npm install in tests/support/node)"),
]


def _answers(port: int) -> list:
    done = subprocess.run([NODE, str(NODE_DIR / "mysql2_probe.js"), str(port)], capture_output=True, text=True,
                          timeout=120, cwd=NODE_DIR)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_mysql2_answers_as_from_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = _answers(reference.port), _answers(master.port)
    by_step = dict(map(tuple, theirs))
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert by_step["query: JSON values"]["rows"][0][1] == {"object": '{"a":[1,2]}'}
    assert by_step["changeUser"] == "ok" and by_step["its privileges"]["error"] == 1142
    differences = [(t[0], t[1], o[1]) for t, o in zip(theirs, ours, strict=True) if t != o]
    assert differences == []
