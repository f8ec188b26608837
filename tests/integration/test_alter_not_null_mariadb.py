"""ALTER TABLE making a column that holds NULL NOT NULL, as MariaDB 10.11 answers it: in strict
mode 1265 "Data truncated for column 'c' at row n" (n the first NULL's place in the primary
key's order) and the table unchanged; without strict mode each NULL becomes the type's implicit
default (0, '') with one 1265 warning per row, the OK's "Warnings: n". MODIFY, CHANGE and a
PRIMARY KEY over a nullable column alike. (Ours answered 1105 "engine: NOT NULL constraint
failed: __alter_t.c", naming its own work table.) Each statement runs on a stock MariaDB and on
our master, answers compared (warnings listed); a MariaDB replica and our slave of ours end with
the master's rows and table."""

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
         "CREATE TABLE d.t (id INT PRIMARY KEY, n INT, s VARCHAR(10), m DECIMAL(6,2), k INT) CHARSET utf8mb4",
         # rows written out of key order: the row MariaDB names is the key order's
         "INSERT INTO d.t VALUES (5, 1, 'e', 1.50, 1), (2, NULL, 'b', NULL, 2), (9, 3, NULL, 2.00, NULL), "
         "(1, 4, 'a', 3.00, 4)"]

STATEMENTS = [
    "ALTER TABLE t MODIFY n INT NOT NULL",
    "ALTER TABLE t CHANGE s s VARCHAR(10) NOT NULL",
    "ALTER TABLE t MODIFY m DECIMAL(6,2) NOT NULL, MODIFY n INT NOT NULL",
    "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (k)",
    "SELECT * FROM t ORDER BY id",
    "SET SESSION sql_mode = ''",
    "ALTER TABLE t MODIFY n INT NOT NULL",
    "ALTER TABLE t MODIFY m DECIMAL(6,2) NOT NULL, CHANGE s s VARCHAR(10) NOT NULL",
    "SELECT * FROM t ORDER BY id",
    "ALTER TABLE t MODIFY n INT NOT NULL DEFAULT 7",
    "SET SESSION sql_mode = DEFAULT",
    "INSERT INTO t (id, s, m) VALUES (3, 'c', 0)",
    "SELECT * FROM t ORDER BY id",
]


def test_alter_to_not_null_over_nulls_as_mariadb_and_replicated(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        theirs, mine = (ok_answers(server, SETUP, STATEMENTS) for server in (reference, ours))
        assert mine == theirs, answer_differences(theirs, mine)
        assert any(answer[0] == "error" for _, answer in theirs)
        assert any(answer[0] != "error" and answer[3] for _, answer in theirs)  # the warned ALTERs
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.t ORDER BY id")
        for replica in replicas:
            assert replica.query("SHOW CREATE TABLE d.t") == reference.query("SHOW CREATE TABLE d.t")
