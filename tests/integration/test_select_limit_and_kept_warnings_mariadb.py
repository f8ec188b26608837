"""sql_select_limit and the warnings a statement leaves for SHOW WARNINGS, as MariaDB 10.11 has
them: each statement runs on a stock MariaDB and on our master over one connection, and its
answer, the warning count of its OK / EOF packet and SHOW WARNINGS after it are compared.

sql_select_limit cuts the rows of a top-level SELECT (ORDER BY, UNION, WITH, a derived table or
subquery inside it) and of the SHOW statements MariaDB answers from information_schema (SHOW
TABLES, SHOW VARIABLES ...), never a SELECT with its own LIMIT or FETCH FIRST, nor the SELECT of
an INSERT ... SELECT or a CREATE TABLE ... SELECT; FOUND_ROWS() counts the rows returned; SET
STATEMENT sql_select_limit = n FOR limits that one statement.

A statement that names no table and raises no warning keeps the previous statement's list
(SELECT 1, SELECT NOW(), SET @a = 1, DO, USE, BEGIN / COMMIT / ROLLBACK / SAVEPOINT, CREATE
DATABASE, CREATE USER, GRANT, FLUSH, PREPARE, a SELECT whose FROM is only
inside EXTRACT / TRIM / SUBSTRING, SET STATEMENT ... FOR SELECT 1); one that names a table starts
a new list (a SELECT, SET or DO reading one, a subquery's or a derived table's FROM, SHOW TABLES,
SHOW VARIABLES, SHOW CREATE TABLE, CREATE TABLE, LOCK TABLES, CHECKSUM TABLE, a write).

Left out, where the two still differ: EXECUTE of a prepared statement that names no table (a new
list here), `(SELECT ...) UNION (SELECT ...)` (1064 here) and SHOW ENGINES (another engine list)."""

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
    "CREATE TABLE d.e (id INT PRIMARY KEY, v VARCHAR(5)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.e VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    "CREATE TABLE d.f (id INT PRIMARY KEY)",
]

SELECT_LIMIT = [
    "SELECT @@sql_select_limit",
    "SET sql_select_limit = 2",
    "SELECT @@sql_select_limit",
    "SELECT * FROM e",
    "SELECT FOUND_ROWS()",
    "SELECT * FROM e ORDER BY id DESC",
    "SELECT * FROM e LIMIT 3",
    "SELECT * FROM e ORDER BY id FETCH FIRST 3 ROWS ONLY",
    "SELECT COUNT(*) FROM (SELECT * FROM e) t",
    "SELECT * FROM e WHERE id IN (SELECT id FROM e)",
    "SELECT * FROM e UNION ALL SELECT * FROM e",
    "SELECT * FROM e UNION ALL SELECT * FROM e LIMIT 5",
    "WITH t AS (SELECT * FROM e) SELECT * FROM t",
    "SELECT 1 UNION SELECT 2 UNION SELECT 3",
    "SELECT SQL_CALC_FOUND_ROWS * FROM e",
    "SELECT FOUND_ROWS()",
    "INSERT INTO f SELECT id FROM e",
    "SELECT COUNT(*) FROM f",
    "CREATE TABLE g AS SELECT * FROM e",
    "SELECT COUNT(*) FROM g",
    "SHOW TABLES",
    "SHOW FULL TABLES",
    "SHOW VARIABLES LIKE 'sql_s%'",
    "SHOW COLUMNS FROM e",
    "SET sql_select_limit = 0",
    "SELECT * FROM e",
    "SELECT 1",
    "SET sql_select_limit = DEFAULT",
    "SELECT * FROM e",
    "SET STATEMENT sql_select_limit = 1 FOR SELECT * FROM e",
    "SELECT * FROM e",
    "SET GLOBAL sql_select_limit = 1",
    "SELECT @@global.sql_select_limit, @@session.sql_select_limit",
    "SET GLOBAL sql_select_limit = DEFAULT",
]

# each statement after a warning; SHOW WARNINGS after every statement
_WARN = "SELECT CAST('x' AS SIGNED)"
KEPT_OR_CLEARED = [
    statement
    for kept in (
        "SELECT 1", "SELECT NOW() > 0", "SELECT 1 FROM DUAL", "SELECT (SELECT 1)", "SELECT @@warning_count",
        "SELECT EXTRACT(YEAR FROM '2024-01-02')", "SELECT TRIM(LEADING 'a' FROM 'ab')", "SET @a = 1",
        "SET @b = 'FROM e'", "SET SESSION sort_buffer_size = 100000", "DO 1", "USE d", "BEGIN", "COMMIT",
        "START TRANSACTION", "SAVEPOINT s", "ROLLBACK", "CREATE DATABASE d2", "DROP DATABASE d2",
        "CREATE USER u1@localhost", "GRANT SELECT ON d.* TO u1@localhost", "DROP USER u1@localhost",
        "FLUSH PRIVILEGES", "PREPARE s FROM 'SELECT 1'", "DEALLOCATE PREPARE s", "FLUSH TABLES",
        "SET STATEMENT sort_buffer_size = 5000 FOR SELECT 1",
        "SELECT * FROM e", "SELECT 1 FROM e LIMIT 1", "SELECT * FROM (SELECT 1) t",
        "SELECT 1 FROM DUAL WHERE 1 IN (SELECT id FROM e)", "SET @c = (SELECT id FROM e LIMIT 1)",
        "SHOW TABLES", "SHOW VARIABLES LIKE 'x'", "SHOW CREATE TABLE e", "CREATE TABLE h (a INT)",
        "LOCK TABLES e READ", "UNLOCK TABLES", "CHECKSUM TABLE e", "INSERT INTO f VALUES (9)",
        "SET STATEMENT sort_buffer_size = 5000 FOR SELECT * FROM e",
    )
    for statement in (_WARN, kept)
]


@pytest.mark.parametrize("statements", [SELECT_LIMIT, KEPT_OR_CLEARED], ids=["select_limit", "kept_warnings"])
def test_select_limit_and_kept_warnings_as_mariadb(tmp_path, statements):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        found = []
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            found.append(warned_answers(server, statements, lambda sql, count: True))
    theirs, mine = found
    differ = [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]
    assert not differ, "\n".join(f"MariaDB {t}\nours    {m}" for t, m in differ)
