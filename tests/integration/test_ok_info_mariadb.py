"""The info text of an OK packet as MariaDB 10.11 sends it: after a multi-row INSERT, INSERT
IGNORE, REPLACE or INSERT ... ON DUPLICATE KEY UPDATE, "Records: n  Duplicates: d  Warnings: w",
length-encoded whatever the client's capabilities (the `mariadb` client prints it under -vvv;
it was never sent to a client without CLIENT_SESSION_TRACK, and written bare when it was).
Duplicates: the rows IGNORE left out, the rows REPLACE deleted, the rows ON DUPLICATE KEY UPDATE
changed. Compared on a stock MariaDB and on our master through the `mariadb` client and through
PyMySQL (the OK's raw info bytes).

Left out, where the two still differ: Warnings is always 0 here (no warnings are counted: an
INSERT IGNORE that leaves a row out says 1 on MariaDB); an UPDATE's "Rows matched: m  Changed: c
Warnings: 0" is not sent (the matched rows are not counted when they differ from the changed)."""

from __future__ import annotations

import re
import subprocess

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

STATEMENTS = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
    "INSERT INTO d.t VALUES (1, 1), (2, 2)",
    "INSERT INTO d.t VALUES (3, 3)",
    "REPLACE INTO d.t VALUES (1, 5), (4, 4)",
    "INSERT INTO d.t VALUES (1, 1), (7, 7) ON DUPLICATE KEY UPDATE v = v + 1",
    "INSERT INTO d.t VALUES (1, 1), (2, 7), (8, 8) ON DUPLICATE KEY UPDATE v = v",
    "DELETE FROM d.t WHERE id > 7",
]


def _client_lines(port: int) -> list[str]:
    out = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "-vvv", "-e", ";".join(STATEMENTS)],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return [re.sub(r" \(\d+\.\d+ sec\)", "", line) for line in out.splitlines()
            if line.startswith(("Query OK", "Records:"))]


def _raw_infos(port: int) -> list[bytes]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("DROP DATABASE IF EXISTS d")
            infos = []
            for sql in STATEMENTS:
                cur.execute(sql)
                infos.append(cur._result.message)
            return infos
    finally:
        conn.close()


def test_ok_info_as_mariadb_sends_it(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = _client_lines(reference.port), _client_lines(master.port)
        theirs_raw, ours_raw = _raw_infos(reference.port), _raw_infos(master.port)
    assert "Records: 2  Duplicates: 1  Warnings: 0" in theirs  # (what the comparison stands on)
    assert theirs_raw[4] == b"\x26Records: 2  Duplicates: 1  Warnings: 0"  # length-encoded
    assert ours == theirs
    assert ours_raw == theirs_raw
