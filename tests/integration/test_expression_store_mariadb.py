"""A value computed by an expression (INSERT ... SELECT, INSERT ... VALUES (expr), UPDATE SET
c = expr, ON DUPLICATE KEY UPDATE c = expr) written to a DATE, DATETIME, TIMESTAMP, TIME, YEAR,
ENUM or SET column, against a live MariaDB 10.11: checked and stored as a literal is
(`engine.values.store` through `mysql_store`): strict mode's 1292 / 1265 / 1264 / 1366, MariaDB's
canonical text ('2024-1-5' is 2024-01-05, 10203 into a TIME 01:02:03), a number into an ENUM or
SET its index or bits, a 2-digit YEAR in its century; adjusted with a warning under IGNORE and a
sql_mode without strictness. The engine stored SQLite's value unchecked ('notadate' into a
DATE). A MariaDB replica and our slave replaying the statements store the same rows."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    described_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.ty (id INT PRIMARY KEY, dt DATE, ts DATETIME, tm TIME(2), en ENUM('x','y'), st SET('a','b'),"
    " ti TINYINT, de DECIMAL(5,2), vc VARCHAR(3), yr YEAR, bi BIT(4))",
]

# (YEAR read as yr + 0: its 0000 is a number 0 to both servers)
ROWS = "SELECT id, dt, ts, tm, en, st, ti, de, vc, yr + 0, bi + 0 FROM ty ORDER BY id"

STRICT = [
    "INSERT INTO ty (id, dt) SELECT 1, 'notadate'",
    "INSERT INTO ty (id, ts) SELECT 2, '2024-13-45 10:00:00'",
    "INSERT INTO ty (id, tm) SELECT 3, 'xyz'",
    "INSERT INTO ty (id, en) SELECT 4, 'zz'",
    "INSERT INTO ty (id, st) SELECT 5, 'a,c'",
    "INSERT INTO ty (id, yr) SELECT 9, 1800",
    "INSERT INTO ty (id, dt) SELECT 11, '2024-02-30'",
    "INSERT INTO ty (id, dt) SELECT 13, 1",
    "INSERT INTO ty (id, tm) SELECT 14, 10270",
    "INSERT INTO ty (id, tm) SELECT 15, 8390000",
    "INSERT INTO ty (id, en) SELECT 16, 3",
    "INSERT INTO ty (id, en) SELECT 17, 0",
    "INSERT INTO ty (id, st) SELECT 18, 4",
    "INSERT INTO ty (id, yr) SELECT 19, 'abc'",
    "INSERT INTO ty (id, yr) SELECT 20, '12abc'",
    "INSERT INTO ty (id, ts) VALUES (21, CONCAT('2024-1-', '77'))",
    "INSERT INTO ty (id, ti, de, vc, bi) SELECT 22, 300, 1, 'a', 1",
    "INSERT INTO ty (id, vc) SELECT 23, 'abcd'",
    "INSERT INTO ty (id, dt, ts, tm) SELECT 12, '2024-1-5', '2024-01-05 1:2:3', '1:2:3'",
    "UPDATE ty SET dt = CONCAT('x', id) WHERE id = 12",
    "INSERT INTO ty (id, en) VALUES (12, 1) ON DUPLICATE KEY UPDATE en = CONCAT('q', id)",
    "INSERT INTO ty (id, tm, en, st, yr) SELECT 30, 10203.5, 1 + 1, 1 + 2, 69",
    "INSERT INTO ty (id, tm, en, st, yr) SELECT 31, -10203, '1', '2', '5'",
    "INSERT INTO ty (id, dt, ts, en, st, yr) SELECT 32, 20240101 + 4, 20240105103000.5, UPPER('y'),"
    " CONCAT('b,', 'a'), 2024",
    "INSERT INTO ty (id, dt, ts, tm, en, st, yr) SELECT 33, NULL, NULL, NULL, NULL, NULL, NULL",
    "INSERT INTO ty (id, ts) VALUES (34, CONCAT('2024-1-', '7'))",
    "INSERT INTO ty (id, yr) VALUES (35, 99), (36, '00'), (37, '0000')",
    "UPDATE ty SET dt = DATE('2024-01-05') + INTERVAL id DAY, yr = yr + 1 WHERE id IN (35, 36)",
    "INSERT INTO ty (id, en) VALUES (12, 1) ON DUPLICATE KEY UPDATE en = CONCAT('Y', '')",
    ROWS,
]

LENIENT = [
    "INSERT IGNORE INTO ty (id, dt, ts, tm, en, st, yr) SELECT 40, 'x', 'y', 'z', 'w', 'a,c', 1800",
    "INSERT IGNORE INTO ty (id, dt, ts, tm, en, st, yr) SELECT 41, '2024-02-30', '2024-02-30 10:00', '1:2:3.456',"
    " 'Y', 'b,a', 'abc'",
    "UPDATE IGNORE ty SET yr = 3000 WHERE id = 41",
    "UPDATE IGNORE ty SET en = CONCAT(en, 'q') WHERE id = 41",
    "SET SESSION sql_mode = ''",
    "INSERT INTO ty (id, dt, en, st, yr) SELECT 42, '2024-02-30', 'q', 'a,c', 1800",
    "INSERT INTO ty (id, tm, yr) SELECT 43, 8390000, '12abc'",
    "INSERT INTO ty (id, tm, en, st) SELECT 44, '-900:00:00.5', 5, -1",
    "UPDATE ty SET dt = CONCAT('x', id) WHERE id = 44",
    "UPDATE ty SET en = 0 WHERE id = 44",
    ROWS,
]


def test_expression_writes_are_checked_and_stored_as_mariadb_stores_them(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            answers.append(described_answers(server.port, "d", STRICT + LENIENT))
        theirs, ours = answers
        assert theirs[0][1:] == ("error", 1292, "Incorrect date value: 'notadate' for column `d`.`ty`.`dt` at row 1")
        for mine, want in zip(ours, theirs, strict=True):
            assert mine == want


WRITES = [
    "INSERT INTO d.ty (id, dt, ts, tm, en, st, yr) SELECT 1, '2024-1-5', '2024-01-05 1:2:3', 10203, 2, 3, 69",
    "INSERT INTO d.ty (id, dt, ts, tm, en, st, yr) VALUES (2, CONCAT('2024-1-', '7'), 20240105103000.5,"
    " CONCAT('1:2:', '3.456'), CONCAT('', 'Y'), CONCAT('b,', 'a'), '5')",
    "UPDATE d.ty SET dt = dt + INTERVAL 1 DAY, yr = yr + 1, en = 1 WHERE id = 1",
    "INSERT INTO d.ty (id, en) VALUES (2, 1) ON DUPLICATE KEY UPDATE en = 3 - 2, tm = 8385959",
    "INSERT IGNORE INTO d.ty (id, dt, ts, tm, en, st, yr) SELECT 3, 'x', '2024-02-30 10:00', '900:00:00', 'w',"
    " 'a,c', '12abc'",
]


def test_replicas_store_what_the_master_stored(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            for sql in WRITES:
                server.query(sql)
        want = reference.query(ROWS.replace("FROM ty", "FROM d.ty"))
        assert want and _rows(ours) == want
        for replica in replicas:
            wait_for(lambda replica=replica: _rows(replica) == want, 90, message="a replica's d.ty")


def _rows(server):
    try:
        return server.query(ROWS.replace("FROM ty", "FROM d.ty"))
    except Exception:  # noqa: BLE001 - not made yet
        return None
