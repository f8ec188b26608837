"""REPLACE's affected rows against a live MariaDB 10.11: the rows inserted plus the rows each row
deleted on any unique key (a row meeting two rows: 3; the second row of a statement replacing the
first: 3; a NULL key meets nothing), through the text protocol (PyMySQL) and prepared statements
(mysql-connector-python, COM_STMT_EXECUTE), with the same rows left behind; REPLACE ... SELECT
too, from another table's rows or from its own (engine `Engine._w_replace`)."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, prepared_answers

pytest.importorskip("mysql.connector")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE r",
    "CREATE TABLE r.w (id INT PRIMARY KEY, k INT, u INT UNIQUE, c VARCHAR(10))",
    "CREATE TABLE r.a (id INT AUTO_INCREMENT PRIMARY KEY, u VARCHAR(10) UNIQUE, v INT)",
    "INSERT INTO r.w VALUES (1, 1, 1, 'a'), (2, 2, 2, 'b'), (3, 3, 3, 'c')",
    "INSERT INTO r.a (u, v) VALUES ('x', 1), ('y', 2)",
]

TEXT = [
    "REPLACE INTO w VALUES (2, 7, 20, 'r')",  # meets id 2: 2
    "REPLACE INTO w VALUES (4, 4, 3, NULL)",  # meets u 3: 2
    "REPLACE INTO w VALUES (1, 9, 20, CONCAT('c', 'd'))",  # meets id 1 and u 20 (row 2): 3
    "REPLACE INTO w VALUES (5, 5, 5, 'e'), (5, 6, 6, 'f')",  # the second replaces the first: 3
    "REPLACE INTO w VALUES (9, 9, 9, 'g')",  # meets nothing: 1
    "REPLACE INTO w SET id = 9, k = 10, u = NULL",  # 2
    "REPLACE w (id, k, u) VALUES (10, 1, NULL), (11, 1, NULL), (4, 0, 9)",  # 1 + 1 + 2
    "REPLACE INTO a (u, v) VALUES ('x', 10)",  # a new id, meets u 'x': 2
    "REPLACE INTO a (u, v) VALUES ('z', 3), ('y', 20), ('z', 4)",  # 1 + 2 + 2
    "REPLACE INTO w SELECT id + 100, k, u + 100, c FROM w WHERE id < 5",  # new rows only
    "REPLACE INTO w (id, k, u) SELECT id, k + 1, u FROM w WHERE id > 100",  # each meets itself
    "REPLACE INTO w SELECT * FROM w WHERE id = 1 OR id = 4",  # the same table
    "REPLACE INTO w (id, k, u) SELECT id + 1, k, u FROM w WHERE id IN (101, 102)",  # meets 101 on u: 2
]

PREPARED = [
    ("REPLACE INTO w (id, k, u, c) VALUES (?, ?, ?, ?)", (11, 2, 5, "p")),  # meets id 11: 2
    ("REPLACE INTO w (id, k, u, c) VALUES (?, ?, ?, ?), (?, ?, ?, ?)", (12, 1, 1, "q", 13, 1, 1, "s")),  # 1 + 2
    ("REPLACE INTO a (id, u, v) VALUES (?, ?, ?)", (1, "y", 0)),  # meets u 'y' only: 2
]


def text_answers(port: int) -> list:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="r", autocommit=True)
    try:
        with conn.cursor() as cur:
            return [(sql, cur.execute(sql), cur.lastrowid) for sql in TEXT]
    finally:
        conn.close()


def test_replace_counts_rows_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        expected = text_answers(reference.port)
        assert [n for _, n, _ in expected] == [2, 2, 3, 3, 1, 2, 4, 2, 5, 2, 4, 4, 2]  # (what MariaDB 10.11 says)
        assert text_answers(master.port) == expected
        expected = prepared_answers(reference.port, "r", PREPARED)
        assert [n for _, n, _ in expected] == [2, 3, 2]
        assert prepared_answers(master.port, "r", PREPARED) == expected
        for table in ("w", "a"):
            assert master.query(f"SELECT * FROM r.{table} ORDER BY id") == \
                reference.query(f"SELECT * FROM r.{table} ORDER BY id")
