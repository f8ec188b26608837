"""Statement forms answered as MariaDB 10.11 answers them: a derived table, a common table
expression or a view whose columns repeat a name (1060, naming the second as written; the
top-level SELECT may repeat one, a CTE's column list names its columns, a UNION's names are its
first branch's); CREATE TABLE ... SELECT of repeated names. `[OFFSET n ROWS] FETCH {FIRST |
NEXT} [m] ROWS ONLY` (MariaDB 10.6+) as LIMIT, in a SELECT, a subquery, a UNION, an INSERT ...
SELECT, and the errors around it. A table value constructor `VALUES (1, 2), (3, 4)` as a
statement, a UNION's branch, a derived table, an IN's subquery, its columns named by its first
row and typed by all rows (the column definitions compared too), 4099 / 4141 for rows of other
widths or none; INSERT's VALUES and VALUES(col) unchanged. HAVING without GROUP BY in a SELECT
of no aggregate (SQLite's "a non-aggregate query"): a condition on the rows, before the window
functions; a HAVING's bare name a select alias first, an ENUM column's name too; in INSERT ...
SELECT too, whose JOIN ... ON and WHERE before ON DUPLICATE KEY UPDATE are taken. Each statement runs on a stock
MariaDB and on our master and the answers are compared.

Left out, where the two still differ: a derived table whose repeated names are literals' values
(`(SELECT 1, 1) t`: MariaDB's 1060, rows here); FETCH ... WITH TIES (rows there, 1235 here);
a constructor's column of NULLs only (MariaDB's CHAR(0), type 254; the NULL type 6 here, as for
`SELECT NULL UNION SELECT NULL`), the names of a derived table's unnamed columns (`SELECT * FROM
(VALUES (1, 2)) t` or `(SELECT 1, 2) t`: 1 and 2 there, SQLite's here), and the order of a
UNION's rows without ORDER BY."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, described_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.e (id INT PRIMARY KEY, c ENUM('a','b','c'), v VARCHAR(5)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.e VALUES (1,'a','a'),(2,'b','A'),(3,'c','b')",
]

REPEATED = [
    "SELECT 1 AS a, 2 AS a",
    "SELECT * FROM (SELECT 1 AS a, 2 AS a) t",
    "SELECT * FROM (SELECT 1 AS a, 2 AS A) t",
    "SELECT t.x FROM (SELECT 1 AS a, 2 AS a, 3 AS x) t",
    "SELECT * FROM (SELECT id, v, id FROM e) t",
    "SELECT * FROM (SELECT e.id, f.id FROM e, e AS f) t",
    "SELECT * FROM (SELECT *, id FROM e) t",
    "SELECT * FROM (SELECT COUNT(*), count(*) FROM e) t",
    "SELECT * FROM (SELECT * FROM e a JOIN e b USING (id)) t",
    "SELECT * FROM (SELECT 1 AS b, 2 AS a UNION SELECT 2 AS a, 2 AS a) t",
    "SELECT * FROM (SELECT e.id AS i, f.id FROM e, e AS f) t ORDER BY 1, 2 LIMIT 2",
    "SELECT (SELECT a FROM (SELECT 1 AS a, 2 AS a) s)",
    "SELECT id FROM e WHERE EXISTS (SELECT * FROM (SELECT 1 AS a, 2 AS a) s)",
    "SELECT 1 FROM e WHERE (1, 1) IN (SELECT 1 AS a, 1 AS a)",
    "WITH c AS (SELECT 1 AS a, 2 AS a) SELECT * FROM c",
    "WITH c AS (SELECT 1 AS a, 2 AS a) SELECT 1",
    "WITH c (x, x) AS (SELECT 1, 2) SELECT * FROM c",
    "WITH c (x, y) AS (SELECT 1 AS a, 2 AS a) SELECT * FROM c",
    "WITH c AS (SELECT 1 AS a, 2 AS b), c2 AS (SELECT 1 AS q, 2 AS q) SELECT * FROM c",
    "INSERT INTO e (id) SELECT a FROM (SELECT 10 AS a, 11 AS a) t",
    "DELETE FROM e WHERE id IN (SELECT a FROM (SELECT 1 AS a, 2 AS a) t)",
    "CREATE VIEW v AS SELECT 1 AS a, 2 AS a",
    "CREATE VIEW v (x, x) AS SELECT 1, 2",
    "CREATE VIEW v AS SELECT id, ID FROM e",
    "CREATE VIEW v AS SELECT *, v FROM e",
    "CREATE VIEW v AS SELECT 1 AS a UNION SELECT 1 AS a",
    "SELECT * FROM v",
    "CREATE VIEW v2 (p, q) AS SELECT id, id FROM e",
    "SELECT * FROM v2 ORDER BY p",
    "CREATE VIEW vj AS SELECT * FROM e a JOIN e b USING (id, c, v)",
    "CREATE VIEW vj2 AS SELECT * FROM e a JOIN e b ON a.id = b.id",
    "CREATE TABLE c1 AS SELECT 1 AS a, 2 AS a",
    "CREATE TABLE c2 AS SELECT id, id FROM e",
    "CREATE TABLE c3 AS SELECT * FROM (SELECT 1 AS a, 2 AS a) t",
    "SELECT * FROM e ORDER BY id",
]


def test_repeated_column_names_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, REPEATED)
        said = dict(theirs)
        assert said["SELECT * FROM (SELECT 1 AS a, 2 AS A) t"] == ("error", 1060, "42S21", "Duplicate column name 'A'")
        assert said["SELECT 1 AS a, 2 AS a"] == ("rows", ((1, 2),))
        assert ours == theirs


FETCHED = [
    "SELECT id FROM e ORDER BY id FETCH FIRST 2 ROWS ONLY",
    "SELECT id FROM e ORDER BY id OFFSET 1 ROWS FETCH NEXT 1 ROWS ONLY",
    "SELECT id FROM e ORDER BY id OFFSET 1 ROW FETCH NEXT 5 ROW ONLY",
    "SELECT id FROM e ORDER BY id OFFSET 1 ROWS",
    "SELECT id FROM e ORDER BY id FETCH FIRST ROW ONLY",
    "SELECT id FROM e ORDER BY id FETCH NEXT ROWS ONLY",
    "SELECT id FROM e FETCH FIRST 2 ROWS ONLY",
    "SELECT id FROM e AS x OFFSET 2 ROWS",
    "SELECT id FROM e ORDER BY id FETCH FIRST 0 ROWS ONLY",
    "SELECT * FROM (SELECT id FROM e ORDER BY id DESC FETCH FIRST 2 ROWS ONLY) t ORDER BY id",
    "SELECT id FROM e UNION SELECT 5 ORDER BY id FETCH FIRST 2 ROWS ONLY",
    "SELECT id FROM e ORDER BY id FETCH FIRST 2 ROWS ONLY FOR UPDATE",
    "SELECT id FROM e ORDER BY id LIMIT 1 FETCH FIRST 2 ROWS ONLY",
    "SELECT id FROM e ORDER BY id OFFSET -1 ROWS FETCH FIRST 1 ROWS ONLY",
    "SELECT v FROM e FETCH FIRST 1 ROWS WITH TIES",
    "DELETE FROM e ORDER BY id FETCH FIRST 1 ROWS ONLY",
    "INSERT INTO e (id) SELECT id + 10 FROM e ORDER BY id FETCH FIRST 2 ROWS ONLY",
    "SELECT id FROM e ORDER BY id",
]


def test_fetch_first_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, FETCHED)
        assert dict(theirs)[FETCHED[1]] == ("rows", ((2,),))
        assert ours == theirs


CONSTRUCTED = [
    "VALUES (1, 2), (3, 4)",
    "VALUES (1, 'a'), (2.5, 'bb')",
    "VALUES (1 + 1, 'x', NOW() > 0)",
    "VALUES (1, 2) ORDER BY 1 DESC LIMIT 1",
    "VALUES (1), (2) ORDER BY 1 DESC",
    "SELECT 1 UNION VALUES (1), (1)",
    "SELECT 1 UNION ALL VALUES (1), (1)",
    "VALUES (1), (1) UNION SELECT 2",
    "SELECT 3 UNION VALUES (2), (1) ORDER BY 1",
    "SELECT COUNT(*) FROM (VALUES (1, 2), (3, 4)) AS a",
    "SELECT id, v FROM e WHERE id IN (VALUES (1), (3))",
    "VALUES (1, 2), (3)",
    "VALUES ()",
    "INSERT INTO e (id, v) VALUES (7, 'q') ON DUPLICATE KEY UPDATE v = VALUES(v)",
    "INSERT INTO e (id, v) VALUES (7, 'r') ON DUPLICATE KEY UPDATE v = VALUES(v)",
    "INSERT INTO e (id, v) SELECT * FROM (VALUES (10, 'z')) t",
    "SELECT id, v FROM e ORDER BY id",
]


def test_table_value_constructors_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs = described_answers(reference.port, "d", CONSTRUCTED)
        assert theirs[0][1:3] == (((1, 2), (3, 4)), [("1", 3, 0), ("2", 3, 0)])
        assert described_answers(master.port, "d", CONSTRUCTED) == theirs


HAVING = [
    "SELECT id FROM e HAVING id > 1 ORDER BY id",
    "SELECT id AS x FROM e HAVING x > 2",
    "SELECT id AS v FROM e HAVING v > 2",  # the alias, not the column v
    "SELECT COUNT(*) c FROM e HAVING c > 0",  # the alias, not the ENUM column c
    "SELECT COUNT(*) c FROM e GROUP BY id HAVING c > 0",
    "SELECT c FROM e HAVING c > 1 ORDER BY id",
    "SELECT MAX(id) m FROM e HAVING m > 5",
    "SELECT id FROM e WHERE id > 2 OR id = 1 HAVING id < 3",
    "SELECT id FROM e HAVING id > 1 ORDER BY id DESC LIMIT 1",
    "SELECT 1 HAVING 1", "SELECT 1 HAVING 0",
    "SELECT id FROM e WHERE id IN (SELECT id FROM e HAVING id <> 2) HAVING id > 1",
    "SELECT * FROM (SELECT id FROM e HAVING id >= 2) t HAVING id < 3",
    "SELECT id FROM e WHERE id > 1 HAVING id > 2 UNION SELECT 9 HAVING 1 ORDER BY 1",
    "SELECT id, COUNT(*) OVER () n FROM e HAVING id > 1 ORDER BY id",
    "SELECT id, SUM(id) OVER w s FROM e WHERE id < 9 HAVING id > 1 WINDOW w AS (ORDER BY id) ORDER BY id",
    "SELECT id FROM e HAVING nosuch > 1",
    # INSERT ... SELECT: with HAVING, a JOIN's ON (was 1064: taken for ON DUPLICATE KEY), a WHERE
    # before ON DUPLICATE KEY UPDATE (was 1064: SQLite's upsert rule's WHERE true added twice)
    "CREATE TABLE f (id INT)",
    "INSERT INTO f SELECT id FROM e HAVING id > 1",
    "INSERT INTO f SELECT e.id FROM e JOIN f ON e.id = f.id WHERE e.id = 3",
    "SELECT id FROM f ORDER BY id",
    "INSERT INTO e (id, c) SELECT id, c FROM e WHERE id = 1 ON DUPLICATE KEY UPDATE v = 'z'",
    "INSERT INTO e (id, c) SELECT id, c FROM e HAVING id = 2 ON DUPLICATE KEY UPDATE v = 'y'",
    "SELECT * FROM e ORDER BY id",
]


def test_having_without_group_by_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, HAVING)
        assert dict(theirs)[HAVING[0]] == ("rows", ((2,), (3,)))
        assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []
