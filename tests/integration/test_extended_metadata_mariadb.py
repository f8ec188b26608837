"""MariaDB's extended type info (MARIADB_CLIENT_EXTENDED_METADATA), as MariaDB 10.11 sends it to a
client that asks for it: the greeting clears CLIENT_MYSQL and offers the capability, and a JSON
column or a JSON value (JSON_OBJECT, JSON_ARRAY, JSON_EXTRACT, JSON_SET, JSON_ARRAYAGG ...) is
tagged with the "json" format, which MariaDB's connectors read (Connector/C's
mariadb_field_attr, the mariadb client's --column-type-info; Node's mysql2 then parses the value
as JSON). It was never offered: such clients got JSON as plain text. Compared through the
`mariadb` client (libmariadb) on a stock MariaDB and on our master: each column's name and its
`Type:` line (with the format); lengths and collations are the servers' own and left out."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, j JSON, s VARCHAR(20))",
    "INSERT INTO d.t VALUES (1, '{\"a\": [1, 2]}', 'x'), (2, NULL, NULL)",
]

QUERIES = [
    "SELECT id, j, s FROM d.t ORDER BY id",
    "SELECT JSON_OBJECT('x', id), JSON_ARRAY(id, s), JSON_EXTRACT(j, '$.a'), JSON_SET(j, '$.b', 1) FROM d.t ORDER BY id",
    "SELECT JSON_ARRAYAGG(id), JSON_OBJECTAGG(id, s), GROUP_CONCAT(s) FROM d.t",
    "SELECT JSON_QUOTE(s), JSON_UNQUOTE(JSON_EXTRACT(j, '$.a[0]')), JSON_VALID(j), JSON_LENGTH(j) FROM d.t ORDER BY id",
]


def _types(port: int) -> list[list[tuple[str, str]]]:
    out = []
    for sql in QUERIES:
        text = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--column-type-info", "--table",
                               "-e", sql], capture_output=True, text=True, timeout=60, check=True).stdout
        out.append(re.findall(r"Field +\d+: +`([^`]*)`.*?\nType: +([^\n]*)", text, re.S))
    return out


def test_json_is_tagged_as_mariadb_tags_it(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = _types(reference.port), _types(master.port)
    assert ("j", "BLOB (format=json)") in theirs[0]  # (what the comparison stands on)
    assert ours == theirs
