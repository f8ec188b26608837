"""Keys, defaults, character sets and collations as MariaDB 10.11 shows them. The columns of a PRIMARY KEY written apart from them are NOT
NULL (a NULL there is 1048, a missing value 1364, as InnoDB refuses them), DESCRIBE's Key names
every primary key column PRI (and a UNIQUE key of NOT NULL columns without a primary key, which
InnoDB takes as primary), SHOW CREATE TABLE and information_schema say so, and SHOW INDEX has
MariaDB's columns and keeps the rows its `WHERE Column = value` names. A column's DEFAULT reads
as MariaDB writes it: in SHOW CREATE TABLE and information_schema.COLUMNS quoted with '' and \\
(bare for numbers, b'1' for a BIT, 'NULL' there for a nullable column without one), a DECIMAL's
to its scale, a nullable TIMESTAMP saying NULL. SHOW CHARACTER SET / CHARSET / COLLATION list
what the server speaks, with LIKE or WHERE. A SET column stores its members in its order, each
once ('c,a,a' is 'a,c', 5 is 'a,c'); a name that is no member is 1265 (it was stored as written),
dropped under IGNORE. information_schema.COLUMNS gives every character and binary column its
CHARACTER_MAXIMUM_LENGTH and CHARACTER_OCTET_LENGTH (TEXT, BLOB, JSON, ENUM, SET, BINARY were NULL). A DECIMAL column's DEFAULT is stored to its scale
(CAST(a AS CHAR) of a DEFAULT 0 DECIMAL(12,2) was '0.0'). Each statement runs on a stock MariaDB and on our
master and the answers are compared.

SHOW INDEX's and information_schema.STATISTICS' Cardinality is the table's rows (it was NULL), as
InnoDB estimates every index of a small table, and SHOW INDEX takes any WHERE over its columns (one
but `Column = value` ANDed was 1235).

Left out, where the two still differ: a non-unique index's Cardinality on a big table (InnoDB's
estimate of its distinct values; the table's rows here), information_schema's names ordered in their general collation (binary here), the server's
default character set in SHOW CREATE TABLE (latin1 there, utf8mb4 here: the tables name theirs)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d"]

QUERIES = [
    "CREATE TABLE v (a INT, b INT, c VARCHAR(5), PRIMARY KEY (a, b), KEY (c)) DEFAULT CHARSET=utf8mb4",
    "DESCRIBE v",
    "SHOW CREATE TABLE v",
    "SELECT COLUMN_NAME, IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_NAME = 'v'"
    " ORDER BY ORDINAL_POSITION",
    "SELECT COLUMN_NAME, NULLABLE, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_NAME = 'v'"
    " AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX",
    "INSERT INTO v (a, b) VALUES (NULL, 1)",
    "INSERT INTO v (a) VALUES (1)",
    "INSERT INTO v (a, b, c) VALUES (1, 2, 'x')",
    "SELECT * FROM v",
    "SHOW KEYS FROM v WHERE Key_name = 'PRIMARY'",
    "SHOW INDEX FROM v WHERE Key_name = 'c' AND Non_unique = 1",
    # Cardinality: the table's rows (InnoDB's estimate on a small table, every index alike)
    "INSERT INTO v (a, b, c) VALUES (1, 3, 'x'), (2, 1, 'y')",
    "SHOW INDEX FROM v",
    "SHOW KEYS IN d.v WHERE Cardinality > 2 AND Column_name <> 'b'",
    "SELECT INDEX_NAME, SEQ_IN_INDEX, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_NAME = 'v'"
    " ORDER BY SEQ_IN_INDEX, COLUMN_NAME",
    "DELETE FROM v WHERE a = 2",
    "SHOW INDEX FROM v",
    "CREATE TABLE w (a INT, b INT, UNIQUE KEY (b)) DEFAULT CHARSET=utf8mb4",
    "SHOW INDEX FROM w",
    "ALTER TABLE w ADD PRIMARY KEY (a)",
    "DESCRIBE w",
    "INSERT INTO w VALUES (NULL, 1)",
    "CREATE TABLE x (a INT NOT NULL, b INT, c INT, UNIQUE KEY (a), UNIQUE KEY (b, c), KEY (c))"
    " DEFAULT CHARSET=utf8mb4",
    "DESCRIBE x",
    "CREATE TABLE y (a INT NOT NULL, b INT NOT NULL, UNIQUE KEY (a, b)) DEFAULT CHARSET=utf8mb4",
    "DESCRIBE y",
    "CREATE TABLE q (a INT, b INT NOT NULL, c INT DEFAULT 5, d VARCHAR(10) DEFAULT 'it''s', e VARCHAR(10)"
    " DEFAULT NULL, f DECIMAL(5,2) DEFAULT 1.50, g DATETIME DEFAULT '2024-01-01 00:00:00', h DATE, i TEXT,"
    " j ENUM('x','y') DEFAULT 'x', k DOUBLE DEFAULT 0.5, l VARCHAR(5) NOT NULL DEFAULT '', m BIT(1) DEFAULT b'1',"
    " n TIMESTAMP NULL DEFAULT NULL, o VARCHAR(5) DEFAULT 'a\\\\b') DEFAULT CHARSET=utf8mb4",
    "SHOW CREATE TABLE q",
    "SHOW COLUMNS FROM q",
    "SELECT COLUMN_NAME, COLUMN_DEFAULT, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_NAME = 'q'"
    " ORDER BY ORDINAL_POSITION",
    "SHOW COLLATION LIKE 'utf8mb4_general_ci'",
    "SHOW CHARACTER SET LIKE 'utf8mb4'",
    "SHOW CHARSET LIKE 'latin1'",
    "SHOW COLLATION WHERE Charset = 'utf8mb4' AND `Default` = 'Yes'",
    "SHOW CHARACTER SET WHERE Charset = 'binary'",
    "CREATE TABLE st (id INT PRIMARY KEY, s SET('a','b','c') NOT NULL DEFAULT '', e ENUM('x','y'))",
    "INSERT INTO st VALUES (1, 'a,c', 'x')",
    "INSERT INTO st VALUES (2, 'c,a,a', 'y')",
    "INSERT INTO st VALUES (3, 'a,d', 'x')",
    "INSERT INTO st VALUES (4, 'B', 'X')",
    "INSERT INTO st VALUES (5, '', NULL)",
    "INSERT INTO st VALUES (6, 5, 2)",
    "INSERT INTO st VALUES (7, 8, 1)",
    "INSERT IGNORE INTO st VALUES (8, 'a,d', 'z')",
    "INSERT INTO st VALUES (9, 'a, b', 'x')",
    "UPDATE st SET s = 'b,d' WHERE id = 1",
    "UPDATE IGNORE st SET s = 'b,d' WHERE id = 1",
    "SELECT * FROM st ORDER BY id",
    "SELECT id FROM st WHERE s = 'a,c' ORDER BY id",
    "CREATE TABLE lens (a TINYTEXT, b TEXT, c MEDIUMTEXT, d LONGTEXT, e ENUM('x','yy'), f SET('a','bb','c'), g CHAR(3),"
    " h VARCHAR(10), i JSON, j BLOB, k VARBINARY(7), l BINARY(2), m INT) DEFAULT CHARSET=utf8mb4",
    "SELECT COLUMN_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, CHARACTER_SET_NAME"
    " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'lens' ORDER BY ORDINAL_POSITION",
    "CREATE TABLE dd (id INT PRIMARY KEY, a DECIMAL(12,2) NOT NULL DEFAULT 0, b DECIMAL(5,3) DEFAULT 1.5,"
    " c NUMERIC(4) DEFAULT 7, d DEC(4,1) DEFAULT '2')",
    "INSERT INTO dd (id) VALUES (1)",
    "SELECT CAST(a AS CHAR), CONCAT(b), CAST(c AS CHAR), CAST(d AS CHAR), a = 0, b = 1.5 FROM dd",
]


def test_schema_answers_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("INSERT INTO v (a, b) VALUES (NULL, 1)", ("error", 1048, "23000", "Column 'a' cannot be null")) in theirs
        assert ("SHOW INDEX FROM w", ("rows", (("w", 0, "b", 1, "b", "A", 0, None, None, "YES", "BTREE", "", "",
                                                "NO"),))) in theirs
        assert ours == theirs
