"""A database's options against a live MariaDB 10.11: CREATE DATABASE's CHARACTER SET, COLLATE and
COMMENT are kept (they were parsed and dropped) and ALTER DATABASE / ALTER SCHEMA changes them (it
was 1064); SHOW CREATE DATABASE, information_schema.SCHEMATA and @@character_set_database /
@@collation_database after USE show them (they always said utf8mb4_general_ci), a table made in the
database without its own character set takes the database's (SHOW CREATE TABLE, TABLES, COLUMNS),
and the errors are MariaDB's (1115, 1273, 1253, 1302, 1046, error 1 for a missing database). The
statements replicate: a MariaDB replica of our master and our slave keep the same options.

Every database here names its character set: MariaDB started with --no-defaults has latin1 for its
server's, ours utf8mb4."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours, reference_ours_and_replicas

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d CHARACTER SET utf8mb4"]

QUERIES = [
    "CREATE DATABASE l1 CHARACTER SET latin1 COLLATE latin1_swedish_ci COMMENT 'x'",
    "SHOW CREATE DATABASE l1",
    "CREATE DATABASE l2 DEFAULT CHARSET=utf8 DEFAULT COLLATE=utf8mb3_bin",
    "SHOW CREATE DATABASE l2",
    "CREATE DATABASE l3 COLLATE latin1_german1_ci COMMENT = 'it''s'",
    "SHOW CREATE SCHEMA l3",
    "SHOW CREATE DATABASE IF NOT EXISTS l3",
    "CREATE DATABASE l4 CHARSET binary",
    "SHOW CREATE DATABASE l4",
    "CREATE DATABASE l5 CHARACTER SET = 'latin1' COLLATE = 'latin1_bin' CHARACTER SET latin1",
    "SHOW CREATE DATABASE l5",
    "CREATE DATABASE l6 COLLATE utf8_general_ci",
    "SHOW CREATE DATABASE l6",
    "CREATE DATABASE bad CHARACTER SET nosuch",
    "CREATE DATABASE bad COLLATE nosuch",
    "CREATE DATABASE bad CHARACTER SET latin1 COLLATE utf8mb4_bin",
    "CREATE DATABASE bad COLLATE latin1_bin CHARSET utf8mb4",
    "CREATE DATABASE bad CHARACTER SET latin1 CHARACTER SET utf8mb4",
    "CREATE DATABASE bad COLLATE latin1_bin COLLATE latin1_swedish_ci",
    "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME, SQL_PATH, SCHEMA_COMMENT"
    " FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'l%' ORDER BY SCHEMA_NAME",
    "ALTER DATABASE l1 CHARACTER SET utf8mb4",
    "SHOW CREATE DATABASE l1",
    "ALTER DATABASE l1 COMMENT 'y'",
    "ALTER SCHEMA l1 COLLATE utf8mb4_bin",
    "SHOW CREATE DATABASE l1",
    "ALTER DATABASE nodb CHARACTER SET latin1",
    "ALTER DATABASE l1",
    "ALTER DATABASE l1 CHARACTER SET latin1 COLLATE utf8mb4_bin",
    "SELECT @@character_set_database, @@collation_database",
    "USE l3",
    "SELECT @@character_set_database, @@collation_database",
    "SHOW VARIABLES LIKE 'c%_database'",
    "CREATE TABLE t (a VARCHAR(3), b CHAR(2) CHARACTER SET latin1, c TEXT COLLATE latin1_bin,"
    " d VARCHAR(2) CHARACTER SET utf8mb4, f ENUM('x', 'yz'))",
    "SHOW CREATE TABLE t",
    "SELECT TABLE_COLLATION FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'l3'",
    "SELECT COLUMN_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, CHARACTER_SET_NAME, COLLATION_NAME"
    " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'l3' ORDER BY ORDINAL_POSITION",
    "ALTER DATABASE COMMENT 'in l3'",
    "ALTER DATABASE COLLATE latin1_spanish_ci",
    "SELECT @@character_set_database, @@collation_database",
    "SHOW CREATE DATABASE l3",
    "CREATE TABLE u (a VARCHAR(3))",
    "SHOW CREATE TABLE u",
    "CREATE TABLE l2.t (a VARCHAR(3), b VARCHAR(3) COLLATE utf8mb3_general_ci)",
    "SHOW CREATE TABLE l2.t",
    "INSERT INTO l2.t VALUES ('a', 'a'), ('A', 'A')",
    "SELECT COUNT(*) FROM l2.t WHERE a = 'a'",
    "SELECT COUNT(*) FROM l2.t WHERE b = 'a'",
    "CREATE DATABASE l7 CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
    "CREATE TABLE l7.t (a VARCHAR(3))",
    "ALTER TABLE l7.t ADD COLUMN b INT, ADD COLUMN c VARCHAR(3)",
    "SHOW CREATE TABLE l7.t",
    "CREATE TABLE l7.u (a VARCHAR(3)) CHARSET latin1",
    "SHOW CREATE TABLE l7.u",
    "CREATE TABLE l7.v (a VARCHAR(3)) COLLATE utf8mb4_unicode_520_ci",
    "SHOW CREATE TABLE l7.v",
    "ALTER TABLE l7.v CONVERT TO CHARACTER SET latin1",
    "SHOW CREATE TABLE l7.v",
    "USE l7",
    "DROP DATABASE l7",
    "SELECT DATABASE()",
    "ALTER DATABASE COMMENT 'x'",
]


def test_database_options_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = both_answer(reference, ours, SETUP, QUERIES)
    assert [q for q, a in theirs if a[0] == "error"] == [q for q, a in mine if a[0] == "error"]
    assert mine == theirs


WRITES = [
    "CREATE DATABASE r CHARACTER SET latin1 COLLATE latin1_german1_ci COMMENT 'first'",
    "ALTER DATABASE r COMMENT 'second'",
    "CREATE DATABASE s CHARACTER SET utf8mb4",
    "ALTER SCHEMA s DEFAULT COLLATE utf8mb4_bin",
    "CREATE TABLE r.t (a VARCHAR(3), b TEXT CHARACTER SET utf8mb4)",
    "CREATE TABLE s.t (a VARCHAR(3) PRIMARY KEY)",
    "INSERT INTO s.t VALUES ('a'), ('A')",
]
CHECKS = ["SHOW CREATE DATABASE r", "SHOW CREATE DATABASE s", "SHOW CREATE TABLE r.t", "SHOW CREATE TABLE s.t",
          "SELECT a FROM s.t ORDER BY a"]


def test_replicas_keep_the_masters_database_options(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_reference, ours, replicas):
        for sql in WRITES:
            ours.query(sql)
        conn = ours.connect("s")
        try:
            with conn.cursor() as cur:
                cur.execute("ALTER DATABASE COMMENT 'named by USE'")  # binlogged with its default database
        finally:
            conn.close()
        want = [ours.query(sql) for sql in CHECKS]
        assert "COMMENT 'named by USE'" in want[1][0][1] and "COLLATE=latin1_german1_ci" in want[2][0][1]
        assert [tuple(row) for row in want[4]] == [("A",), ("a",)]
        for replica in replicas:
            wait_for(lambda r=replica: _answers(r) == want, 90, message=f"database options on {replica}")


def _answers(server):
    try:
        return [server.query(sql) for sql in CHECKS]
    except Exception:  # noqa: BLE001 - not replicated yet
        return None
