"""Table definitions as MariaDB 10.11 takes and shows them, on a stock MariaDB and on our master
(`mariadb_compare.both_answer`): NUMERIC / DEC / FIXED as DECIMAL, DECIMAL without a precision
or a scale as decimal(10,0) / decimal(M,0) (they were shown numeric(12,4), decimal, decimal(7));
`CONSTRAINT name UNIQUE (...)` naming its index (it was named after its first column);
CONSTRAINT before anything but PRIMARY / UNIQUE / FOREIGN / CHECK a syntax error (it was taken);
a name where a column's type goes 4161 (1064); an unknown table option 1911 (it was taken
silently), ALTER TABLE's ALGORITHM= / LOCK= before another clause (its ADD COLUMN was
dropped, read as table options), DISABLE / ENABLE KEYS; a syntax error's text as the statement has it (its tokens were joined by single
spaces: `INDEX ( g )`)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

QUERIES = [
    "CREATE TABLE n (a NUMERIC(12,4), b NUMERIC, c DEC(5,1), d FIXED(4,2), e INT, f DECIMAL, g NUMERIC(7),"
    " CONSTRAINT uq_x UNIQUE (a, b), CONSTRAINT UNIQUE KEY (c), CONSTRAINT uq_y UNIQUE KEY k2 (d),"
    " CONSTRAINT pk PRIMARY KEY (e)) CHARSET utf8mb4",
    "SHOW CREATE TABLE n",
    "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM information_schema.COLUMNS"
    " WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'n' ORDER BY ORDINAL_POSITION",
    "INSERT INTO n VALUES (1.23456, 12.5, 1.25, 1.255, 1, 99.5, 1234567.5)",
    "SELECT * FROM n",
    "ALTER TABLE n ADD CONSTRAINT uq_z UNIQUE (f)",
    "ALTER TABLE n ADD CONSTRAINT ix_w INDEX (g)",
    "SHOW INDEX FROM n",
    "CREATE TABLE m (a INT,  b   BADTYPE(3) DEFAULT 'x', c INT)",
    "CREATE TABLE m (a INT, b `quoted`)",
    "CREATE TABLE m (a NOT NULL)",
    "CREATE TABLE m (a INT) ENGINE=InnoDB WHATEVER=1",
    "CREATE TABLE m (a INT) ENGINE=InnoDB, ROW_FORMAT=DYNAMIC, STATS_PERSISTENT=1 PACK_KEYS=0 CHECKSUM=1"
    " AVG_ROW_LENGTH=100 MAX_ROWS=10 MIN_ROWS=1 DELAY_KEY_WRITE=0 COMMENT='c' DEFAULT CHARSET=utf8mb4",
    "ALTER TABLE m FOO=1",
    "ALTER TABLE m STATS_SAMPLE_PAGES=10, AUTO_INCREMENT=5",
    # ALTER TABLE's clauses beside table options (mariadb-dump's DISABLE KEYS; ALGORITHM / LOCK
    # before another clause, whose ADD COLUMN was read as options and dropped)
    "CREATE TABLE k (id INT PRIMARY KEY, a INT, KEY ka (a)) CHARSET utf8mb4",
    "ALTER TABLE k DISABLE KEYS", "ALTER TABLE k ENABLE KEYS", "/*!40000 ALTER TABLE k DISABLE KEYS */",
    "ALTER TABLE k ADD COLUMN b INT, ALGORITHM=INPLACE, LOCK=NONE", "ALTER TABLE k ALGORITHM=COPY, ADD COLUMN c INT",
    "ALTER TABLE k DROP COLUMN a, LOCK=SHARED", "ALTER TABLE k ENGINE=InnoDB, ALGORITHM=INPLACE",
    "SHOW CREATE TABLE k",
]


def test_table_definitions_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, ["CREATE DATABASE d"], QUERIES)
    # what the comparison stands on: MariaDB's own answers
    assert theirs[8][1][:2] == ("error", 4161) and theirs[11][1][:2] == ("error", 1911)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []
