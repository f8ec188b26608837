"""JSON columns, CHECK constraints and TEXT / BLOB defaults as MariaDB 10.11 shows and enforces
them, on a stock MariaDB and on our master (`mariadb_compare.both_answer`), with the rows our
slave and a MariaDB replica of our master hold after the writes.

MariaDB's JSON is a LONGTEXT in utf8mb4_bin whose values a column CHECK (json_valid(`c`))
refuses when they are no JSON (4025), unless the column declares a CHECK of its own; SHOW CREATE
TABLE, SHOW [FULL] COLUMNS and information_schema show it so (and CHECK_CONSTRAINTS lists the
check), and CREATE TABLE ... SELECT copies it as a LONGTEXT with its DEFAULT and without the
check. Before, `json` was shown everywhere, and any text was stored in a JSON column. A CHECK's
condition is shown as MariaDB prints it back (`a` > 0, ucase(`b`), json_length(`j`)), not as
written; a TEXT's or BLOB's DEFAULT (an expression in MariaDB) is quoted in SHOW COLUMNS, its
quote escaped \\' (they were shown bare, with '' inside); SHOW FULL COLUMNS names a column's
own collation (a JSON's utf8mb4_bin, a latin1 column's latin1_swedish_ci: they were
utf8mb4_general_ci or none). JSON_EXTRACT gives strings and numbers as the document writes
them ("\\u00e9", 1.50: they were read and written again, "é", 1.5), follows wildcards, ranges
and `last`, and warns of a document or a path it cannot read as MariaDB does."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    both_answer,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d"]

QUERIES = [
    "CREATE TABLE j (id INT PRIMARY KEY, js JSON, k JSON NOT NULL DEFAULT '{\"a\":1}', t TEXT DEFAULT 'x''y',"
    " b BLOB DEFAULT 'y', v VARCHAR(3) DEFAULT 'z', tt TINYTEXT DEFAULT '', lc VARCHAR(4) CHARSET latin1)"
    " CHARSET utf8mb4",
    "INSERT INTO j (id, js) VALUES (1, '{\"a\": [1, 2]}')",
    "INSERT INTO j (id, js) VALUES (2, 'not json')",
    "INSERT INTO j (id, js, k) VALUES (3, NULL, '[1')",
    "UPDATE j SET js = '[1' WHERE id = 1",
    "UPDATE j SET js = '[1]' WHERE id = 1",
    "SELECT id, js, k FROM j ORDER BY id",
    "SHOW CREATE TABLE j",
    "SHOW COLUMNS FROM j",
    "SHOW FULL COLUMNS FROM j",
    "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_DEFAULT"
    " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'j' ORDER BY ORDINAL_POSITION",
    "ALTER TABLE j ADD COLUMN m JSON",
    "INSERT INTO j (id, m) VALUES (4, '{')",
    "ALTER TABLE j MODIFY m JSON CHECK (JSON_LENGTH(m) < 3)",
    "INSERT INTO j (id, m) VALUES (5, '[1, 2, 3]')",
    "INSERT INTO j (id, m) VALUES (6, '[1, 2]')",
    "CREATE TABLE c (a INT CHECK (a>0), b VARCHAR(5) CHECK (b IN ('x','y')), n INT,"
    " CONSTRAINT pos CHECK (n+a>=0 AND n!=5), CHECK (UPPER(b)<>'Z' OR n IS NULL)) CHARSET utf8mb4",
    "INSERT INTO c VALUES (1, 'x', 5)",
    "ALTER TABLE c ADD CONSTRAINT c2 CHECK (a < 100)",
    "SHOW CREATE TABLE c",
    "SELECT * FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd'"
    " ORDER BY TABLE_NAME, CONSTRAINT_NAME",
    "CREATE TABLE copied CHARSET utf8mb4 AS SELECT js, k, t FROM j",
    "SHOW CREATE TABLE copied",
    "INSERT INTO copied (js) VALUES ('not json')",
    "CREATE TABLE liked LIKE j",
    "INSERT INTO liked (id, js) VALUES (1, 'not json')",
    "DROP TABLE liked",
    "ALTER TABLE j DROP COLUMN js",
    "SHOW CREATE TABLE j",
]


def test_json_columns_checks_and_text_defaults_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
    # what the comparison stands on: MariaDB's own answers
    assert theirs[2][1][:2] == ("error", 4025)
    assert theirs[8][1][1][1][1] == "longtext"
    assert ours == theirs


def test_json_writes_replicated_as_mariadb(tmp_path):
    writes = QUERIES[:6] + ["INSERT INTO j (id, js) VALUES (7, JSON_OBJECT('x', 1))"]
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        theirs, ours = both_answer(reference, master, SETUP, writes)
        assert ours == theirs
        assert_same_rows(reference, master, replicas, "SELECT id, js, k FROM d.j ORDER BY id")


EXTRACTS = [
    "SELECT JSON_EXTRACT('{\"b\": \"\\\\u00e9\", \"c\": \"x\\\\\"y\", \"n\": 1.50, \"e\": 1E2}', '$.b', '$.c'),"
    " JSON_EXTRACT('{\"n\": 1.50}', '$.n'), JSON_EXTRACT('{ \"a\" : [ 1 , 2 ] }', '$'),"
    " JSON_UNQUOTE(JSON_EXTRACT('{\"b\": \"\\\\u00e9\"}', '$.b'))",
    "SELECT JSON_EXTRACT('{\"a\":{\"b\":1,\"c\":[1,2]}}', '$.a.*'), JSON_EXTRACT('[1,[2,3],[4,[5]]]', '$[*]'),"
    " JSON_EXTRACT('[1,2,3]', '$[last]'), JSON_EXTRACT('[1,2,3]', '$[1 to 2]'),"
    " JSON_EXTRACT('{\"a\":{\"a\":1},\"b\":{\"a\":2}}', '$**.a'), JSON_EXTRACT('{\"a\": 1}', '$[0]')",
    "SELECT JSON_EXTRACT('[1,2]', '$[5]'), JSON_EXTRACT('{\"a\":1}', '$.a', '$.b'),"
    " JSON_EXTRACT('{\"a\":1}', '$.b', '$.c'), JSON_EXTRACT(NULL, '$')",
    "SELECT JSON_EXTRACT('not json', '$.a')",
    "SHOW WARNINGS",
    "SELECT JSON_EXTRACT('{\"a\":1}', 'a')",
    "SHOW WARNINGS",
]


def test_json_extract_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, EXTRACTS)
    assert theirs[0][1][1][0][:2] == ('["\\u00e9", "x\\"y"]', "1.50")  # MariaDB's own answer
    assert ours == theirs
