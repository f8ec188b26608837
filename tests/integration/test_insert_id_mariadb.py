"""The id an INSERT / REPLACE / UPDATE reports (the OK packet's insert_id, a client's lastrowid)
and LAST_INSERT_ID() after it, against a live MariaDB 10.11: the first generated id of a row
actually inserted, else LAST_INSERT_ID(expr)'s value, else the last written row's id (explicit,
or the row an ON DUPLICATE KEY UPDATE changed), else 0; LAST_INSERT_ID() moves only to a
generated id of an inserted row or to LAST_INSERT_ID(expr) (engine `Engine._w_insert_ids`,
`Session._written`). Through the text protocol (PyMySQL) and prepared statements
(mysql-connector-python, COM_STMT_EXECUTE), with the same rows left behind.

Left out, where the two differ: INSERT ... SELECT ... ON DUPLICATE KEY UPDATE naming a column
of both tables (MariaDB's 1052; accepted here, the target's column). Which id each row of a
statement gets: tests/integration/test_autoinc_ids_mariadb.py."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import id_answers, mariadb_and_ours, prepared_answers

pytest.importorskip("mysql.connector")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.a (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, v INT)",
    "CREATE TABLE d.w (id INT PRIMARY KEY, v INT)",
    "INSERT INTO d.a (u, v) VALUES (1, 1), (2, 2)",
]

TEXT = [
    "INSERT INTO a (u, v) VALUES (10, 1)",
    "INSERT INTO a (u, v) VALUES (11, 1), (12, 1)",
    "INSERT INTO a (id, u, v) VALUES (50, 9, 1)",  # explicit: its id, LAST_INSERT_ID() unmoved
    "INSERT INTO a (id, u, v) VALUES (60, 13, 1), (61, 14, 1)",  # the last row's
    "INSERT INTO a (id, u, v) VALUES (NULL, 15, 1), (70, 16, 1)",  # the generated one
    "INSERT INTO a (id, u, v) VALUES (80, 17, 1), (NULL, 18, 1)",
    "INSERT IGNORE INTO a (u, v) VALUES (1, 1)",  # skipped: 0, though an id was handed out
    "INSERT IGNORE INTO a (u, v) VALUES (1, 1), (19, 1)",  # the second row's id
    "INSERT IGNORE INTO a (id, u, v) VALUES (1, 99, 1)",
    "INSERT IGNORE INTO a (id, u, v) VALUES (1, 98, 1), (90, 97, 1)",
    "INSERT INTO a (id, u, v) VALUES (1, 1, 5) ON DUPLICATE KEY UPDATE v = v + 10",  # the updated row's
    "INSERT INTO a (u, v) VALUES (2, 7) ON DUPLICATE KEY UPDATE v = v + 10",  # row 2's, not a new id
    "INSERT INTO a (u, v) VALUES (3, 7) ON DUPLICATE KEY UPDATE v = v + 10",
    "INSERT INTO a (u, v) VALUES (3, 7) ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), v = 0",
    "INSERT INTO a (u, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v",  # nothing changed: 0
    "INSERT INTO a (u, v) VALUES (31, 0), (2, 0) ON DUPLICATE KEY UPDATE v = v + 1",
    "INSERT INTO a (u, v) VALUES (2, 0), (1, 0) ON DUPLICATE KEY UPDATE v = v + 1",
    "INSERT INTO a (u, v) VALUES (2, 0), (1, 0) ON DUPLICATE KEY UPDATE v = v",
    "INSERT INTO a (u, v) VALUES (1, 0), (2, 0) ON DUPLICATE KEY UPDATE u = u + 1000",
    "INSERT INTO a (u, v) SELECT u + 100, v FROM a WHERE id < 3",
    "INSERT INTO a (id, u, v) SELECT id + 200, u + 200, v FROM a WHERE id < 3",
    "INSERT IGNORE INTO a (u, v) SELECT u, 5 FROM a WHERE id < 3",
    "UPDATE a SET v = 1 WHERE id = 1",
    "UPDATE a SET id = LAST_INSERT_ID(id + 1000) WHERE id = 2",
    "UPDATE a SET v = LAST_INSERT_ID(7) WHERE id = 99999",
    "INSERT INTO a (u, v) VALUES (500, LAST_INSERT_ID(5))",  # the generated id wins
    "INSERT INTO a (id, u, v) VALUES (600, 600, LAST_INSERT_ID(6))",  # LAST_INSERT_ID(6) over 600
    "REPLACE INTO a (id, u, v) VALUES (1, 700, 1)",
    "REPLACE INTO a (u, v) VALUES (701, 1)",
    "REPLACE INTO a (id, u, v) VALUES (702, 702, 1), (703, 703, 1)",
    "DELETE FROM a WHERE id = 702",
    "INSERT INTO w VALUES (1, 1)",
    "INSERT INTO a (id, u, v) VALUES (0, 800, 1)",
    "INSERT INTO a (id, u, v) VALUES (1, 801, 1)",  # 1062: nothing moves
    "INSERT INTO a (u, v) VALUES (900, 1)",
]

PREPARED = [
    ("INSERT INTO a (id, u, v) VALUES (?, ?, ?)", (2000, 2000, 1)),
    ("INSERT INTO a (u, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = v + 1", (2000, 0)),
    ("INSERT INTO a (u, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = v + 1", (2001, 0)),
    ("INSERT IGNORE INTO a (u, v) VALUES (?, ?)", (2001, 0)),
]


def test_insert_ids_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        expected = id_answers(reference.port, "d", TEXT)
        # what MariaDB 10.11 says for a few: (rows, id, LAST_INSERT_ID() after)
        said = {sql: rest for sql, *rest in expected}
        assert said[TEXT[2]] == [1, 50, 4]
        assert said[TEXT[6]] == [0, 0, 81]
        assert said[TEXT[11]] == [2, 2, 84]
        assert said[TEXT[14]] == [0, 0, 92]
        assert said[TEXT[25]] == [1, 1003, 1003]
        assert id_answers(master.port, "d", TEXT) == expected
        expected = prepared_answers(reference.port, "d", PREPARED)
        assert [(n, i) for _, n, i in expected][:2] == [(1, 2000), (2, 2000)]
        assert prepared_answers(master.port, "d", PREPARED) == expected
        for table in ("a", "w"):
            assert master.query(f"SELECT * FROM d.{table} ORDER BY id") == \
                reference.query(f"SELECT * FROM d.{table} ORDER BY id")
