"""INSERT IGNORE and UPDATE IGNORE store what strict mode refuses adjusted, as MariaDB 10.11 does
with a warning (`values.adjusted`): a string without a number is 0 and '12abc' 12, an integer or
DECIMAL beyond its column is clipped to the column's range, a string cut to the column's length,
an ENUM's unknown member '', an impossible date the zero date. Each statement runs on a stock
MariaDB and on our master and the answers and the rows left are compared.

Left out, where the two still differ: NULL for a NOT NULL column, and a NOT NULL column without a
default left out, under IGNORE (MariaDB stores the type's implicit default, 0 or ''; here 1048 /
1364, and UPDATE IGNORE ... SET c = NULL leaves the row); an UPDATE IGNORE's computed value
(SET tn = tn + 1000) out of range; MariaDB's warnings themselves (SHOW WARNINGS)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, n INT NOT NULL DEFAULT 0, tn TINYINT, u INT UNSIGNED,"
    " v VARCHAR(3), x TEXT, b VARBINARY(2), d DECIMAL(5,2), e ENUM('a','b'), dt DATE, ts DATETIME(2), f DOUBLE)"
    " DEFAULT CHARSET=utf8mb4",
]

QUERIES = [
    "INSERT IGNORE INTO t (n) VALUES ('zz')",
    "INSERT IGNORE INTO t (n) VALUES ('12abc')",
    "INSERT IGNORE INTO t (tn) VALUES (300)",
    "INSERT IGNORE INTO t (tn) VALUES (-300), (5), ('7x')",
    "INSERT IGNORE INTO t (u) VALUES (-1)",
    "INSERT IGNORE INTO t (v, b) VALUES ('abcdef', 'xyz')",
    "INSERT IGNORE INTO t (d) VALUES (12345.678)",
    "INSERT IGNORE INTO t (d) VALUES (-12345.678)",
    "INSERT IGNORE INTO t (d) VALUES ('x')",
    "INSERT IGNORE INTO t (e) VALUES ('c')",
    "INSERT IGNORE INTO t (dt, ts) VALUES ('2024-02-30', 'nope')",
    "INSERT IGNORE INTO t (f) VALUES ('1.5e3x')",
    "INSERT INTO t (tn) VALUES (300)",
    "UPDATE IGNORE t SET tn = 1000 WHERE id = 1",
    "UPDATE IGNORE t SET v = 'toolong', e = 'zz' WHERE id = 2",
    "UPDATE t SET tn = 1000 WHERE id = 3",
    "SELECT id, n, tn, u, v, x, b, d, e, dt, ts, f FROM t ORDER BY id",
]


def test_ignore_stores_adjusted_values_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("INSERT INTO t (tn) VALUES (300)", ("error", 1264, "22003",
                                                      "Out of range value for column 'tn' at row 1")) in theirs
        assert ours == theirs
