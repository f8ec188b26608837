"""ALTER TABLE's OK as MariaDB 10.11 gives it on InnoDB: an ALTER that copies the table
(ALGORITHM=COPY, or a change InnoDB cannot make in place: a column's type changed to another
kind, DROP PRIMARY KEY alone, ORDER BY, a foreign key added with foreign_key_checks on ...)
answers "Records: N  Duplicates: 0  Warnings: W" with N affected rows, the rows it copied; one made
in place or instantly (ADD / DROP / RENAME COLUMN, ADD INDEX, a wider VARCHAR, NOT NULL, FORCE,
table options) answers "Records: 0 ..." with 0 rows. Each ALTER runs on its own table of three
rows, on a stock MariaDB and on our master, answers compared through PyMySQL (affected rows,
info, warnings); the tables come out the same on a MariaDB replica and on our slave."""

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

ALTERS = [
    # in place or instant: Records: 0
    "ALTER TABLE {t} ADD COLUMN d INT",
    "ALTER TABLE {t} ADD COLUMN d INT FIRST",
    "ALTER TABLE {t} ADD COLUMN d INT NOT NULL DEFAULT 3, ALGORITHM=INSTANT",
    "ALTER TABLE {t} ADD COLUMN d INT, ALGORITHM=INPLACE",
    "ALTER TABLE {t} ADD COLUMN d INT, ALGORITHM=NOCOPY",
    "ALTER TABLE {t} DROP COLUMN c",
    "ALTER TABLE {t} CHANGE a a2 INT",
    "ALTER TABLE {t} RENAME COLUMN a TO a2",
    "ALTER TABLE {t} MODIFY a INT AFTER b",
    "ALTER TABLE {t} ALTER a SET DEFAULT 5",
    "ALTER TABLE {t} MODIFY b VARCHAR(20)",
    "ALTER TABLE {t} MODIFY b VARCHAR(60)",
    "ALTER TABLE {t} MODIFY a INT NOT NULL",
    "ALTER TABLE {t} ADD INDEX (a)",
    "ALTER TABLE {t} ADD UNIQUE (a)",
    "ALTER TABLE {t} FORCE",
    "ALTER TABLE {t} ENGINE=InnoDB",
    "ALTER TABLE {t} AUTO_INCREMENT = 100",
    "ALTER TABLE {t} COMMENT 'x'",
    "ALTER TABLE {t} ADD CONSTRAINT ch CHECK (a > 0)",
    "ALTER TABLE {t} RENAME TO {t}r, ADD COLUMN d INT",
    "ALTER TABLE {t} DROP PRIMARY KEY, ADD PRIMARY KEY (id, a)",
    # copied: Records: 3
    "ALTER TABLE {t} ADD COLUMN d INT, ALGORITHM=COPY",
    "ALTER TABLE {t} ADD INDEX (a), ALGORITHM=COPY",
    "ALTER TABLE {t} FORCE, ALGORITHM=COPY",
    "ALTER TABLE {t} MODIFY a BIGINT",
    "ALTER TABLE {t} MODIFY a VARCHAR(20)",
    "ALTER TABLE {t} MODIFY b VARCHAR(5)",
    "ALTER TABLE {t} MODIFY b VARCHAR(100)",
    "ALTER TABLE {t} MODIFY a INT UNSIGNED",
    "ALTER TABLE {t} MODIFY b TEXT",
    "ALTER TABLE {t} ORDER BY a",
    "ALTER TABLE {t} CONVERT TO CHARACTER SET latin1",
    "ALTER TABLE {t} ADD FOREIGN KEY (a) REFERENCES p (id)",
    # refused in place (1846)
    "ALTER TABLE {t} MODIFY a BIGINT, ALGORITHM=INPLACE",
    # a copy that fails in strict mode
    "ALTER TABLE {t} MODIFY b VARCHAR(2)",
    "ALTER TABLE {t} MODIFY b INT",
]
# copies that warn, without strict mode
UNSTRICT = ["SET SESSION sql_mode = ''", "ALTER TABLE t0 MODIFY b VARCHAR(2)", "UPDATE t1 SET c = 1000 WHERE id = 2",
            "ALTER TABLE t1 MODIFY c TINYINT", "SELECT * FROM t0", "SELECT * FROM t1"]

STATEMENTS = [alter.format(t=f"t{n}") for n, alter in enumerate(ALTERS)]
SETUP = ["CREATE DATABASE d", "CREATE TABLE d.p (id INT PRIMARY KEY) CHARSET utf8mb4",
         "INSERT INTO d.p VALUES (1), (2), (3)"] + [
    sql for n in range(len(ALTERS)) for sql in (
        f"CREATE TABLE d.t{n} (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(10), c INT) CHARSET utf8mb4",
        f"INSERT INTO d.t{n} (a, b, c) VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30)")]


def test_alter_ok_counts_the_rows_copied_as_mariadb(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        theirs, mine = (ok_answers(server, SETUP, STATEMENTS + UNSTRICT) for server in (reference, ours))
        assert mine == theirs, answer_differences(theirs, mine)
        copied = [sql for sql, answer in mine if answer[0] == 3]
        assert "ALTER TABLE t22 ADD COLUMN d INT, ALGORITHM=COPY" in copied
        for n in range(len(ALTERS)):
            name = f"t{n}r" if "RENAME TO" in ALTERS[n] else f"t{n}"
            assert_same_rows(reference, ours, replicas, f"SELECT * FROM d.{name} ORDER BY id")
