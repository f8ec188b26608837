"""information_schema's text columns against a live MariaDB 10.11: they compare, sort and group
under utf8mb3_general_ci (ORDER BY CONSTRAINT_NAME puts 'f_ibfk_1' before 'PRIMARY';
CONSTRAINT_TYPE = 'primary key', COLUMN_NAME = 'ID', COLLATION_NAME = 'UTF8MB4_BIN' match; they
compared in binary), while the names MariaDB looks rows up by (TABLE_SCHEMA, TABLE_NAME,
SCHEMA_NAME ...) match an equality only as written, as MariaDB's lookup by name does with
lower_case_table_names=0."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d CHARACTER SET utf8mb4",
         "CREATE TABLE d.t1 (id INT PRIMARY KEY, p INT)",
         "CREATE TABLE d.f (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES t1(id))",
         "CREATE TABLE d.Zeta (id INT PRIMARY KEY, CONSTRAINT c_ok CHECK (id > 0))",
         "CREATE TABLE d.alpha (id INT PRIMARY KEY, b VARCHAR(3) UNIQUE)"]

QUERIES = [
    "SELECT CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd'"
    " ORDER BY CONSTRAINT_NAME",
    "SELECT CONSTRAINT_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'd'"
    " ORDER BY CONSTRAINT_NAME DESC",
    "SELECT INDEX_NAME, COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd'"
    " GROUP BY INDEX_NAME ORDER BY INDEX_NAME",
    "SELECT MIN(CONSTRAINT_NAME), MAX(CONSTRAINT_NAME) FROM information_schema.TABLE_CONSTRAINTS"
    " WHERE TABLE_SCHEMA = 'd'",
    "SELECT DISTINCT CONSTRAINT_TYPE FROM information_schema.TABLE_CONSTRAINTS WHERE CONSTRAINT_TYPE = 'primary key'",
    "SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS WHERE CONSTRAINT_NAME = 'primary'"
    " AND TABLE_SCHEMA = 'd'",
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't1'"
    " AND COLUMN_NAME = 'ID'",
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'alpha'"
    " AND COLUMN_NAME IN ('B', 'Id') ORDER BY COLUMN_NAME",
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_TYPE = 'base table'"
    " AND TABLE_NAME = 'Zeta'",
    "SELECT CONSTRAINT_NAME FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_NAME = 'C_OK'",
    "SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'UTF8MB4_BIN'",
    "SELECT CHARACTER_SET_NAME FROM information_schema.CHARACTER_SETS WHERE CHARACTER_SET_NAME = 'LATIN1'",
    # looked up by name: as written only
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'T1'",
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'D'",
    "SELECT TABLE_NAME FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA = 'd' AND 'zeta' = t.TABLE_NAME",
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'T1'",
    "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'D'",
]


def test_information_schema_text_compares_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = both_answer(reference, ours, SETUP, QUERIES)
    assert mine == theirs
