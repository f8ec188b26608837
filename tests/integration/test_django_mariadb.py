"""Django's MySQL backend (mysqlclient, MySQLdb) against a stock MariaDB 10.11 and our master:
the project of tests/support/django (contrib admin, auth, contenttypes, sessions and a shop app
with foreign keys, unique_together, DecimalField, auto_now, JSONField, BinaryField, indexes)
migrated on both, then `sqlmigrate`, `inspectdb`, the ORM's reads and writes (`manage.py
exercise`: atomic blocks and savepoints, select_for_update, bulk_create / bulk_update, F()
updates, aggregates, JSON key lookups, explain), `dumpdata`, `flush` and `loaddata`: every
command's output the same from both servers, but for the times the servers stamped. The rows
reach a MariaDB replica and our slave of our master equal.

It found: a JSON key lookup (`attributes__colour="blue"`, on MariaDB `JSON_UNQUOTE(JSON_EXTRACT(
col, '$."colour"')) = JSON_EXTRACT('"blue"', '$')`) matched nothing: MariaDB compares the string
a JSON_EXTRACT finds by its characters when compared with a string."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("django")
pytest.importorskip("MySQLdb")

from tests.support.daemons import wait_for  # noqa: E402
from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import (  # noqa: E402
    assert_same_rows,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

PROJECT = Path(__file__).resolve().parents[1] / "support" / "django"
# what the servers stamp (auto_now, auto_now_add) differs from run to run
STAMPED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?")

COMMANDS = (
    ("migrate", "--no-color"),
    ("sqlmigrate", "shop", "0001"),
    ("sqlmigrate", "auth", "0001"),
    ("sqlmigrate", "admin", "0001"),
    ("inspectdb",),
    ("exercise",),
    ("dumpdata", "shop", "auth", "contenttypes", "--indent", "1"),
    ("dumpdata", "shop", "--output", "{dump}"),
    ("flush", "--no-input"),
    ("dumpdata", "shop"),
    ("loaddata", "{dump}"),
    ("dumpdata", "shop", "--indent", "1"),
    ("inspectdb", "shop_product", "shop_line"),
)


# each table's columns but the times a server stamps
TABLES = {
    "shop_customer": "id, email, name",
    "shop_product": "id, sku, shelf, price, stock, attributes, picture",
    "shop_order": "id, customer_id, note, paid",
    "shop_line": "*",
    "auth_permission": "*",
    "django_content_type": "*",
    "django_migrations": "id, app, name",
}


def manage(port: int, args: tuple[str, ...]) -> str:
    """`manage.py ARGS` of the test project against the server on `port`: its output, stamped
    times masked; a failing command fails the test with its output."""
    env = {**os.environ, "SEMISYNC_DJANGO_PORT": str(port)}
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=PROJECT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"manage.py {' '.join(args)} on port {port}:\n{done.stdout}\n{done.stderr}"
    return STAMPED.sub("<time>", done.stdout)


def project_outputs(server, dump: Path) -> list[tuple[str, str]]:
    server.query("CREATE DATABASE shop CHARACTER SET utf8mb4")
    return [(" ".join(args), manage(server.port, tuple(a.format(dump=dump) for a in args)))
            for args in COMMANDS]


def test_django_project_on_mariadb_and_ours(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        theirs = project_outputs(reference, tmp_path / "theirs.json")
        mine = project_outputs(ours, tmp_path / "ours.json")
        for (command, want), (_, got) in zip(theirs, mine, strict=True):
            assert got == want, f"manage.py {command}"
        assert '{"json_lookup": ["pen"]}' in dict(mine)["exercise"]
        for table, columns in TABLES.items():
            assert_same_rows(reference, ours, replicas, f"SELECT {columns} FROM shop.{table} ORDER BY id")
            whole = f"SELECT * FROM shop.{table} ORDER BY id"  # the stamped times too
            want = ours.query(whole)
            for replica in replicas:
                wait_for(lambda r=replica, q=whole, w=want: rows_or_none(r, q) == w, 60,
                         message=f"{replica} to hold the master's {table}")
