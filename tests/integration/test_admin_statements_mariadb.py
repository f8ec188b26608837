"""Administrative statements and SELECT ... INTO as MariaDB 10.11 answers them.

SELECT ... INTO @a, @b (after the select list or last) sets the variables from its one row (it
was 1064): none, the warning 1329 and the variables kept; more than one, 1172 after the first
row's values were set; prepared, it has no columns and sets nothing until it executes. No stored
program named exists: DROP PROCEDURE / FUNCTION / TRIGGER / EVENT answer MariaDB's error, or
with IF EXISTS its note; CALL, ALTER PROCEDURE, SHOW CREATE PROCEDURE / TRIGGER / EVENT MariaDB's
"does not exist" (each was 1064), SHOW PROCEDURE CODE its 1289 of a build without debugging
(stored procedures and functions themselves: tests/integration/test_routines_mariadb.py);
CREATE EVENT, a trigger body setting a variable, XA, HANDLER, EXPLAIN FORMAT=JSON and ANALYZE <statement> are 1235 (were 1064,
or 1146 for EXPLAIN FORMAT=JSON); SELECT ... INTO OUTFILE into a directory that does not exist
is MariaDB's 1290 (tests/integration/test_file_statements_mariadb.py writes files). SHOW PRIVILEGES, PROFILES and
PROFILE answer (were 1064); SHOW DATABASES lists by name and SHOW CHARACTER SET / COLLATION in
MariaDB's order (information_schema came first; utf8mb4 before utf8mb3); SHOW MASTER STATUS has
MariaDB's four columns (a fifth, MySQL's Executed_Gtid_Set, was there); EXPLAIN's rows is a
string, as MariaDB types it; SELECT STRAIGHT_JOIN is the select option (it was 1064). Each statement runs on a stock MariaDB and on our master."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, described_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.e (id INT PRIMARY KEY, c ENUM('a','b','c'), v VARCHAR(5)) DEFAULT CHARSET=utf8mb4",
         "INSERT INTO d.e VALUES (1,'a','a'),(2,'b','A'),(3,'c','b')", "CREATE DATABASE iz", "CREATE DATABASE ia"]

QUERIES = [
    "SELECT 1 INTO @z",
    "SELECT @z",
    "SELECT id, v INTO @a, @b FROM d.e WHERE id = 2",
    "SELECT @a, @b",
    "SELECT id FROM d.e WHERE id = 3 INTO @a",
    "SELECT @a",
    "SELECT id INTO @a FROM d.e",
    "SELECT @a",
    "SELECT id INTO @a FROM d.e WHERE id = 99",
    "SHOW WARNINGS",
    "SELECT @a",
    "SELECT id, v INTO @a FROM d.e WHERE id = 1",
    "SELECT COUNT(*) INTO @n FROM d.e",
    "INSERT INTO d.e (id, c, v) VALUES (@n + 10, 'a', 'n')",
    "SELECT * FROM d.e WHERE id > 10",
    "SELECT 1 UNION SELECT 2 INTO @u",
    "SELECT MAX(id) FROM d.e INTO @m",
    "SELECT @m, @u",
    "SELECT id INTO OUTFILE '/nonexistent/dir/x' FROM d.e",
    "DROP PROCEDURE IF EXISTS d.p",
    "SHOW WARNINGS",
    "DROP PROCEDURE d.p",
    "DROP FUNCTION IF EXISTS f",
    "SHOW WARNINGS",
    "DROP TRIGGER IF EXISTS d.tr",
    "SHOW WARNINGS",
    "DROP TRIGGER d.tr",
    "DROP EVENT IF EXISTS d.ev",
    "SHOW WARNINGS",
    "DROP EVENT d.ev",
    "CALL d.p()",
    "CALL p",
    "ALTER PROCEDURE d.p COMMENT 'x'",
    "SHOW CREATE PROCEDURE d.p",
    "SHOW CREATE FUNCTION d.f",
    "SHOW PROCEDURE CODE d.p",
    "SHOW PRIVILEGES",
    "SHOW PROFILES",
    "SHOW PROFILE",
    "SHOW DATABASES LIKE 'i%'",
    "SHOW CHARACTER SET LIKE 'utf8%'",
    "SELECT CHARACTER_SET_NAME FROM information_schema.CHARACTER_SETS"
    " WHERE CHARACTER_SET_NAME IN ('latin1', 'utf8mb3', 'utf8mb4', 'ascii', 'binary')",
    "SELECT COLLATION_NAME FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('latin1_swedish_ci',"
    " 'ascii_general_ci', 'utf8mb3_general_ci', 'utf8mb4_general_ci', 'utf8mb4_bin', 'utf8mb4_unicode_ci', 'binary')",
    "EXPLAIN SELECT * FROM d.e WHERE id = 1",
    # SELECT STRAIGHT_JOIN, a select option (it was read as a join: 1064)
    "SELECT SQL_NO_CACHE STRAIGHT_JOIN HIGH_PRIORITY id FROM d.e ORDER BY id LIMIT 1",
    "SELECT STRAIGHT_JOIN e.id, o.v FROM d.e STRAIGHT_JOIN d.e AS o ON o.id = e.id ORDER BY e.id",
    "SELECT id FROM d.e WHERE id IN (SELECT DISTINCT STRAIGHT_JOIN id FROM d.e WHERE id > 1) ORDER BY id",
]

# MariaDB runs these; this server answers its 1235 (no events, XA, HANDLER, JSON plans)
REFUSED = [
    "CREATE TRIGGER d.tr AFTER INSERT ON d.e FOR EACH ROW SET @x = 1",
    "CREATE DEFINER=CURRENT_USER TRIGGER d.tr2 AFTER INSERT ON d.e FOR EACH ROW SET @x = 1",
    "CREATE EVENT IF NOT EXISTS d.ev ON SCHEDULE EVERY 1 DAY DO DELETE FROM d.e",
    "HANDLER d.e OPEN",
    "XA START 'x'",
    "EXPLAIN FORMAT=JSON SELECT * FROM d.e WHERE id = 1",
    "ANALYZE SELECT * FROM d.e",
]


def test_admin_statements_and_select_into_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        answers = dict(theirs)
        assert answers["SELECT @z"] == ("rows", ((1,),))
        assert answers["SELECT id INTO @a FROM d.e"][:2] == ("error", 1172)
        assert ours == theirs
        for query, answer in zip(REFUSED, both_answer(reference, master, [], REFUSED)[1], strict=True):
            assert answer[1][:2] == ("error", 1235), (query, answer)
        described = [described_answers(server.port, "d", ["EXPLAIN SELECT * FROM d.e WHERE id = 1", "SHOW PRIVILEGES"])
                     for server in (reference, master)]
        assert described[0] == described[1]
        master_status = [server.query("SHOW MASTER STATUS") for server in (master,)]
        assert len(master_status[0][0]) == 4


def test_a_prepared_select_into_sets_its_variables_when_it_executes(tmp_path):
    import mysql.connector

    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            conn = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                           use_pure=True, autocommit=True)
            try:
                plain = conn.cursor()
                plain.execute("SET @p = 'before'")
                cur = conn.cursor(prepared=True)
                cur.execute("SELECT ? + 1 INTO @p", (41,))
                described = cur.description
                plain.execute("SELECT @p")
                answers.append((described, plain.fetchall()))
            finally:
                conn.close()
        assert answers[0] == answers[1] and answers[1][1] == [(42,)]
