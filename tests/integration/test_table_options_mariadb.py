"""The table options MariaDB keeps but that change nothing here (MIN_ROWS, MAX_ROWS,
AVG_ROW_LENGTH, PACK_KEYS, STATS_PERSISTENT, STATS_AUTO_RECALC, STATS_SAMPLE_PAGES, CHECKSUM /
TABLE_CHECKSUM, DELAY_KEY_WRITE, KEY_BLOCK_SIZE) shown as MariaDB 10.11 shows them: SHOW CREATE
TABLE in its order and spelling (ROW_FORMAT among them), information_schema.TABLES.CREATE_OPTIONS,
a value at its default (DEFAULT, or a 0 that is) left out, ALTER TABLE changing only the ones it
names, CREATE TABLE ... LIKE copying them; kept across a restart, replayed by a MariaDB replica
and our slave from our binlog, and a `mariadb-dump` of them loaded into MariaDB gives the same
SHOW CREATE TABLE.

Left out, where the two still differ: ALTER TABLE ... KEY_BLOCK_SIZE=0 of a table that had one
(MariaDB moves the old size onto its keys: `PRIMARY KEY (id) KEY_BLOCK_SIZE=8`)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    both_answer,
    mariadb_and_ours,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

TABLES = [
    "CREATE TABLE o (id INT PRIMARY KEY) MIN_ROWS=10 MAX_ROWS=1000 PACK_KEYS=1 STATS_PERSISTENT=0"
    " STATS_AUTO_RECALC=1 STATS_SAMPLE_PAGES=20 CHECKSUM=1 DELAY_KEY_WRITE=1 AVG_ROW_LENGTH=100 KEY_BLOCK_SIZE=8"
    " ROW_FORMAT=COMPRESSED DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE o2 (id INT PRIMARY KEY) PACK_KEYS=0 STATS_AUTO_RECALC=0 TABLE_CHECKSUM=1 MIN_ROWS=0 CHECKSUM=0"
    " STATS_PERSISTENT=DEFAULT DEFAULT CHARSET=utf8mb4",
    "ALTER TABLE o2 MAX_ROWS=5, PACK_KEYS=DEFAULT",
    "ALTER TABLE o MAX_ROWS=0 CHECKSUM=0 ROW_FORMAT=DEFAULT",
    "CREATE TABLE o3 LIKE o",
    "CREATE TABLE o4 (id INT) DEFAULT CHARSET=utf8mb4 STATS_SAMPLE_PAGES=DEFAULT COMMENT='c' MAX_ROWS=7",
]
NAMES = ("o", "o2", "o3", "o4")

SHOWN = [
    "CREATE TABLE o5 (id INT) PACK_KEYS=abc",
    "CREATE TABLE o5 (id INT) MAX_ROWS='7'",
    *(f"SHOW CREATE TABLE {name}" for name in NAMES),
    "SELECT TABLE_NAME, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' ORDER BY 1",
]


def _shown(server) -> list:
    return [rows_or_none(server, f"SHOW CREATE TABLE d.{name}") for name in NAMES]


@pytest.mark.skipif(shutil.which("mariadb-dump") is None, reason="mariadb-dump not installed")
def test_kept_table_options_as_mariadb_across_a_restart_and_a_dump(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, ["CREATE DATABASE d"], TABLES + SHOWN)
        assert dict(theirs)["SHOW CREATE TABLE o2"][1][0][1].endswith(" MAX_ROWS=5 STATS_AUTO_RECALC=0 CHECKSUM=1")
        assert ours == theirs
        want = _shown(reference)
        master.stop()
        master.start()
        assert _shown(master) == want
        dump = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{master.port}", "-uroot", "--databases", "d"],
                              capture_output=True, text=True, timeout=120)
        assert dump.returncode == 0, dump.stderr
        reference.query("DROP DATABASE d")
        load = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{reference.port}", "-uroot"], input=dump.stdout,
                              capture_output=True, text=True, timeout=120)
        assert load.returncode == 0, load.stderr
        assert _shown(reference) == want


def test_kept_table_options_replicate_as_mariadb_keeps_them(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            server.query("CREATE DATABASE d")
            for sql in TABLES:
                server.query(sql, database="d")
        want = _shown(reference)
        assert _shown(master) == want
        for replica in replicas:
            wait_for(lambda r=replica: _shown(r) == want, 90, message=lambda r=replica: f"{r}: {_shown(r)}")
