"""MariaDB's IF [NOT] EXISTS clauses of ALTER TABLE, CREATE INDEX and DROP INDEX, as a migration
tool writes them (Alembic's and Django's `IF NOT EXISTS` forms, hand-written re-runnable scripts).

ADD COLUMN IF NOT EXISTS (one column or a parenthesised list), DROP COLUMN IF EXISTS, CHANGE /
MODIFY / ALTER / RENAME COLUMN IF EXISTS, ADD INDEX / KEY / UNIQUE / PRIMARY KEY IF NOT EXISTS,
ADD [CONSTRAINT c] FOREIGN KEY IF NOT EXISTS, ADD CONSTRAINT IF NOT EXISTS c CHECK, DROP INDEX /
KEY / FOREIGN KEY / CONSTRAINT IF EXISTS, RENAME INDEX IF EXISTS, CREATE INDEX IF NOT EXISTS and
DROP INDEX IF EXISTS ... ON: a clause naming what is (or is not) there is skipped with MariaDB's
note (1060, 1091, 1054, 1061, 1826, 1176) and the statement's other clauses applied; the OK
carries MariaDB's "Records: 0  Duplicates: 0  Warnings: n" (the table is empty; the rows a
copying ALTER counts: tests/integration/test_alter_records_mariadb.py). (Each IF read as a name: 1091
"`IF`", 4161, 1064.) Where MariaDB's grammar has no IF EXISTS (DROP PRIMARY KEY, DROP CHECK,
ADD CONSTRAINT IF NOT EXISTS c FOREIGN KEY) both say 1064. Each statement runs on a stock MariaDB
and on our master, answers compared (warnings listed); the statements are binlogged as written,
and a MariaDB replica and our slave make the same tables."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    ok_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(400),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.p (id INT PRIMARY KEY) CHARSET utf8mb4",
         "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b INT, KEY ka (a)) CHARSET utf8mb4",
         "INSERT INTO d.p VALUES (1), (2)"]

STATEMENTS = [
    "ALTER TABLE t ADD COLUMN IF NOT EXISTS a INT, ADD COLUMN IF NOT EXISTS c INT DEFAULT 7",
    "ALTER TABLE t ADD COLUMN IF NOT EXISTS z INT, ADD COLUMN IF NOT EXISTS z INT",
    "ALTER TABLE t ADD COLUMN IF NOT EXISTS (a INT, q INT)",
    "ALTER TABLE t ADD COLUMN IF NOT EXISTS a INT AFTER nope",
    "ALTER TABLE t DROP COLUMN IF EXISTS zz, DROP COLUMN IF EXISTS b",
    "ALTER TABLE t DROP COLUMN IF EXISTS z, DROP COLUMN IF EXISTS z",
    "ALTER TABLE t CHANGE COLUMN IF EXISTS zz yy INT, MODIFY COLUMN IF EXISTS qq INT, MODIFY IF EXISTS c BIGINT",
    "ALTER TABLE t CHANGE IF EXISTS q q2 INT",
    "ALTER TABLE t ALTER COLUMN IF EXISTS nope SET DEFAULT 1, ALTER COLUMN IF EXISTS c SET DEFAULT 8",
    "ALTER TABLE t RENAME COLUMN IF EXISTS nope TO x",
    "ALTER TABLE t ADD INDEX IF NOT EXISTS ka (c), ADD KEY IF NOT EXISTS kc (c)",
    "ALTER TABLE t ADD UNIQUE KEY IF NOT EXISTS ka (a)",
    "ALTER TABLE t ADD PRIMARY KEY IF NOT EXISTS (a)",
    "ALTER TABLE t RENAME INDEX IF EXISTS nope TO x",
    "ALTER TABLE t DROP INDEX IF EXISTS nope, DROP KEY IF EXISTS kc",
    "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS ck2 CHECK (a > 0)",
    "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS ck2 CHECK (a > 5)",
    "ALTER TABLE t ADD CONSTRAINT fk1 FOREIGN KEY IF NOT EXISTS (a) REFERENCES p (id)",
    "ALTER TABLE t ADD CONSTRAINT fk1 FOREIGN KEY IF NOT EXISTS (a) REFERENCES p (id)",
    "ALTER TABLE t ADD FOREIGN KEY IF NOT EXISTS fk1 (a) REFERENCES p (id)",
    "ALTER TABLE t DROP FOREIGN KEY IF EXISTS fk1, DROP CONSTRAINT IF EXISTS ck9",
    "ALTER TABLE t DROP FOREIGN KEY IF EXISTS fk1",
    "CREATE INDEX IF NOT EXISTS ka ON t (c)",
    "CREATE INDEX IF NOT EXISTS kz ON t (c)",
    "DROP INDEX IF EXISTS nope ON t",
    "DROP INDEX IF EXISTS kz ON t",
    # no IF EXISTS in MariaDB's grammar here
    "ALTER TABLE t DROP PRIMARY KEY IF EXISTS",
    "ALTER TABLE t DROP CHECK IF EXISTS ck2",
    "ALTER TABLE t ADD CONSTRAINT IF NOT EXISTS fk2 FOREIGN KEY (a) REFERENCES p (id)",
    # without IF EXISTS still MariaDB's errors
    "ALTER TABLE t DROP COLUMN zz",
    "ALTER TABLE t ADD COLUMN a INT",
    "SHOW CREATE TABLE t",
    "INSERT INTO t (id, a) VALUES (1, 1), (2, 2)",
]


def test_alter_if_exists_clauses_as_mariadb_and_replicated(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        theirs, mine = (ok_answers(server, SETUP, STATEMENTS) for server in (reference, ours))
        assert mine == theirs, answer_differences(theirs, mine)
        logged = [row[5] for row in ours.query("SHOW BINLOG EVENTS") if row[2] == "Query"]
        assert "use `d`; ALTER TABLE t DROP COLUMN IF EXISTS zz, DROP COLUMN IF EXISTS b" in logged
        assert "use `d`; DROP INDEX IF EXISTS nope ON t" in logged
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.t ORDER BY id")
        for replica in replicas:
            assert replica.query("SHOW CREATE TABLE d.t") == reference.query("SHOW CREATE TABLE d.t")
