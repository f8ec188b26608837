"""The warnings and notes of expressions and of statements binlogged as statements, as MariaDB
10.11 gives them: each statement runs on a stock MariaDB (binlog_format=STATEMENT, as ours) and on
our master; its answer, the warning count of its OK / EOF packet and SHOW WARNINGS are compared.

Division by 0 (1365) of a read, a DO, a SET @x = ..., a DELETE's WHERE and an INSERT IGNORE (a
strict write fails with it, the row unchanged), by literals and by DECIMAL or integer
values (one per row divided, none for a NULL dividend); a string read as a number that is not one
(1292 "Truncated incorrect DOUBLE / DECIMAL / INTEGER value", a note for trailing spaces): string
literals in arithmetic, CAST(... AS SIGNED / UNSIGNED) of literals and columns, GREATEST / LEAST
of a number and a string; and the notes 1592 of writes unsafe to binlog as statements (LIMIT,
system functions and variables, RAND() outside INSERT, INSERT IGNORE ... SELECT, INSERT ... SELECT
... ON DUPLICATE KEY UPDATE, REPLACE ... SELECT, UPDATE IGNORE), none with sql_log_bin off.

Left out, where the two still differ: a division computed as a DOUBLE or an integer DIV / % of
columns, and UPDATE IGNORE's SET of a division (SQLite's operators: no warning here), a string column in arithmetic (SQLite's: none
here), and a constant expression over a table's rows (`SELECT 1/0 FROM t`: MariaDB warns per row,
here once)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, warned_answers

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b INT, c DECIMAL(10,2), s VARCHAR(20))",
    "INSERT INTO d.t VALUES (1, 5, 0, 0, 'abc'), (2, 6, 2, 1.5, '12x'), (3, NULL, 0, 0, '7'), (4, 8, 0, 3, '5 ')",
    "CREATE TABLE d.w (id INT PRIMARY KEY, a INT, v INT)",
    "INSERT INTO d.w VALUES (1, 1, 1), (2, 2, 2)",
]

STATEMENTS = [
    # division by 0
    "SELECT 1/0",
    "SELECT 5 DIV 0, 5 MOD 0, 5 % 0, MOD(5, 0)",
    "SELECT 1/0, NULL/0, 1.5/0, 1/0.0, 1/'0'",
    "SELECT a/b FROM t",
    "SELECT c/b, a/c FROM t",
    "SELECT SUM(a/b) FROM t",
    "SELECT id FROM t WHERE id = 2",
    "DO 1/0",
    "SET @x = 1/0",
    "INSERT INTO w VALUES (3, 1/0, 0)",
    "INSERT IGNORE INTO w VALUES (4, 1/0, 0)",
    "UPDATE w SET a = id/0 WHERE id = 4",
    "DELETE FROM w WHERE id/0 IS NULL AND id = 4",
    "SELECT * FROM w ORDER BY id",
    # strings read as numbers
    "SELECT 'abc' + 1",
    "SELECT '3x' * 2, '12 ' + 0, ' 12' + 0, '' + 0, '1e5x' + 0",
    "SELECT 'a' DIV 1, 'a' MOD 2, 1/'abc'",
    "SELECT CAST('12abc' AS SIGNED), CAST('5 ' AS SIGNED), CAST('1.5' AS UNSIGNED), CAST(' 7' AS SIGNED)",
    "SELECT CAST(s AS SIGNED) FROM t",
    "SELECT GREATEST(1, 'a'), LEAST(2, '1x'), GREATEST('a', 'b')",
    # writes unsafe to binlog as statements
    "UPDATE IGNORE w SET v = 5 WHERE id = 1",
    "UPDATE w SET v = 6 LIMIT 1",
    "DELETE FROM w WHERE id > 100 ORDER BY id LIMIT 1",
    "INSERT INTO w SELECT id + 40, a, 0 FROM t LIMIT 1",
    "INSERT INTO w (id, a) VALUES (50, LENGTH(UUID()))",
    "INSERT INTO w (id, a) VALUES (51, @@server_id)",
    "INSERT INTO w (id, a) VALUES (52, @@foreign_key_checks)",
    "INSERT INTO w (id, a) VALUES (53, RAND() > 2)",
    "UPDATE w SET v = RAND() > 2 WHERE id = 1",
    "INSERT IGNORE INTO w SELECT id + 60, a, 0 FROM t",
    "INSERT INTO w SELECT id + 70, a, 0 FROM t ON DUPLICATE KEY UPDATE v = 1",
    "REPLACE INTO w SELECT id + 80, a, 0 FROM t",
    "UPDATE IGNORE w SET a = LENGTH(UUID()) WHERE id = 1 LIMIT 1",
    "SET sql_log_bin = 0",
    "UPDATE IGNORE w SET v = 7 WHERE id = 1",
    "SET sql_log_bin = 1",
    "SELECT * FROM w ORDER BY id",
]


def warned(server) -> list[tuple]:
    """Per statement: its rows or error, its packet's warning count, and SHOW WARNINGS after it
    (not after a SET of sql_log_bin, which MariaDB's list outlives)."""
    return warned_answers(server, STATEMENTS, lambda sql, count: "sql_log_bin" not in sql)


def test_expression_warnings_and_unsafe_notes_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        answers = []
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            answers.append(warned(server))
    theirs, mine = answers
    differ = [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]
    assert not differ, "\n".join(f"MariaDB {t}\nours    {m}" for t, m in differ)
