"""Result columns as MariaDB 10.11 gives them: each statement runs on a stock MariaDB and on our
master, over the text protocol (PyMySQL: each column's name and type code, the values as PyMySQL
converts them by that type) and over the binary protocol (mysql-connector-python's prepared
cursor: the type codes and values it decodes), and the two answers are compared.

Covered: the fraction digits of TIME(), TIMEDIFF(), CONVERT_TZ(), ADDTIME() / SUBTIME() (their
arguments' own: a DATETIME(3) column's 3, a literal's written digits), ADDTIME / SUBTIME /
TIMESTAMPADD typed as a TIME, DATE or DATETIME; COALESCE / IFNULL / CASE / UNION over a DATE and a
DATETIME a DATETIME (a DATE's value then shown at midnight); BIGINT UNSIGNED arithmetic staying
BIGINT UNSIGNED (in the binary protocol its large values were sent as strings); integer literals
past BIGINT a BIGINT UNSIGNED (they came as strings) and -9223372036854775808 a BIGINT (it was
SQLite's REAL, written '-9.223372036854776e+18'); -'12' a DOUBLE;
UNIX_TIMESTAMP(NULL) NULL (it was the current time); ROUND / TRUNCATE of an integer to tens or
hundreds (SQLite's round() left it as it was); DATE() of a date that does not exist NULL, of a
number a date; MICROSECOND(), TO_SECONDS(), JSON_DEPTH(); EXTRACT of a TIME's hour (838:59:59 is
22, signed); compound INTERVAL units (YEAR_MONTH, HOUR_MINUTE, DAY_HOUR, SECOND_MICROSECOND ...);
comparisons with ANY / SOME / ALL (SELECT ...), three-valued as MariaDB's (they were 1064);
USER() / CURRENT_USER() / VERSION() inside any statement (they were a fixed text, or 1305, or
1064 with a FROM); the column names of a statement that begins with WITH (its columns' types come from the rows:
MAX(n) of a recursive CTE's INT column is a BIGINT here); INT functions as INT
(LOCATE, DATEDIFF, FIELD, WEEK, JSON_LENGTH ...); CREATE DATABASE's and DROP DATABASE's affected
rows (1, and the tables and views dropped); a DOUBLE parameter of a prepared statement computed
as a DOUBLE (it was written in as a DECIMAL: `a * ?` with 2.5 gave a DECIMAL); the columns of
a derived table typed from its SELECT (they were typed from the rows, or, under an alias that
names a real table, as that table's columns); the result columns of SHOW listings and of
information_schema's views typed as MariaDB declares them (they were typed from the rows: a
listing's NULLs had the NULL type), SHOW TABLE STATUS as information_schema.TABLES; an ENUM or SET
column in ORDER BY ordered by its members' numbers (it was ordered by its text); an ENUM or SET
column where MySQL reads it as a number (an ENUM its member's number, 1 for the first, 0 for the ''
of an invalid value; a SET its members' bits) in arithmetic, bit and logical operators, compared
with numbers (=, IN, BETWEEN), as a condition of its own, in SUM / AVG / ABS / ROUND / MOD, in
GREATEST beside a number, under CAST to a number, in an UPDATE's or DELETE's WHERE, and its text
against a string and in MIN / MAX (it was read as its text's number: `e + 0` 0, `e = 2` no row,
SUM(e) 0); `SELECT *` over a join with USING or NATURAL: its common columns once, first, then
the left side's, then the right side's (a RIGHT JOIN's from its right side) (SQLite listed every
table's columns in turn, a USING column once in its left table's place); a view's columns typed
as its SELECT's, with its own literals, in its own database, views of views too (they were typed
from the rows: a DATE came as a string); a table column's
result column says where it comes from (its table as the statement names it, the table, the
schema, the column's own name: all were empty, so mysql2's nestTables and JDBC's getTableName had
nothing); typed literals DATE 'x' a DATE, TIME 'x' a TIME, TIMESTAMP 'x' a DATETIME, named as
written (they were 1064); CHARSET() and COLLATION() a VARCHAR (they were 1305).

Left out, where the two still differ: the display lengths of computed columns (not compared); a
DATE_ADD of a string typed by its rows here (MariaDB: a CHAR(254) type); ROUND of an integer
expression to a negative place a DECIMAL in MariaDB (a BIGINT here); TIME() of a value beyond
838:59:59 NULL here (clipped by MariaDB); a prepared statement's column named after an item with
a parameter is named with its value here ('? + 1' in MariaDB); CURRENT_USER() names the account ('root@%' here,
MariaDB's test server has 'root@127.0.0.1'); `-7 = SOME (SELECT 5 UNION SELECT NULL)` NULL here as
the SQL standard and `-7 IN (5, NULL)` have it (MariaDB 10.11 answers 0); an IN list mixing
strings and numbers after an ENUM (`e IN ('a', 4)`: MariaDB compares each item by its own type,
here all as strings); a read of a user variable the statement assigns, typed from its
rows here (MariaDB: a LONGBLOB when it was a string or had no value); a DATE in arithmetic (`d + 0`, `DATE 'x' + 0`) a BIGINT in MariaDB (an INT
here)."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import answer_differences, each_askers_answers

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, d DATE, f DATETIME(3), g TIME, i BIGINT UNSIGNED,"
    " k TIMESTAMP NULL) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 5, '2024-01-05', '2024-01-05 10:11:12.345', '-12:30:01', 18446744073709551615,"
    " '2024-03-01 00:00:00'), (2, NULL, NULL, NULL, NULL, NULL, NULL),"
    " (3, -7, '2023-12-31', '2023-12-31 23:59:59', '838:59:59', 0, NULL),"
    " (4, 15, '2024-02-29', '2024-02-29 00:00:00.5', '00:00:00', 1, '2038-01-01 00:00:00')",
    # DECIMALs near zero (stored and shown as -1E-10 / 0E-10) and DOUBLE literals into strings
    # (99.0e0 was stored '99.0', 1e20 '1E+20')
    "CREATE TABLE d.n (id INT PRIMARY KEY, v DECIMAL(30,10), w DECIMAL(5,2), s VARCHAR(30), b VARBINARY(30))"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.n VALUES (1, -0.0000000001, -0.001, 99.0e0, 1e20), (2, 0, 100, 1.50, 1e-7),"
    " (3, 123456789.0000000001, 1.005e0, -2e0, 0.1e0)",
    # ENUM / SET columns order by their members' numbers (they were ordered by their text)
    "CREATE TABLE d.e (id INT PRIMARY KEY, s ENUM('new','open','it''s') NULL, m SET('x','y','z'), u VARCHAR(5))"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.e VALUES (1, 'open', 'z', 'b'), (2, 'it''s', 'x,y', 'a'), (3, 'new', 'y', 'c'), (4, NULL, '', NULL),"
    " (5, 'open', 'x,z', 'a')",
    "INSERT IGNORE INTO d.e VALUES (6, 'bogus', 'x', 'd')",
    "CREATE VIEW d.jv AS SELECT * FROM d.t JOIN d.n USING (id)",
    "CREATE VIEW d.tv (x, y, z) AS SELECT id, d, 'lit' FROM d.t",
    "CREATE VIEW d.tv2 AS SELECT tv.y, 1.5 AS c, f FROM d.tv JOIN d.t ON t.id = tv.x",
    # ENUM / SET columns read as numbers
    "CREATE TABLE d.en (id INT PRIMARY KEY, e ENUM('x','y','z'), s SET('a','b','c'),"
    " f ENUM('b','a','it''s','x,y')) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.en VALUES (1, 'x', 'a', 'b'), (2, 'y', 'a,b', 'a'), (3, 'z', 'c', 'it''s'),"
    " (4, NULL, '', 'x,y'), (5, 'y', 'a,b,c', NULL)",
]

QUERIES = [
    "SELECT TIME(f), TIMEDIFF(f, '2024-01-01 00:00:00'), TIMEDIFF('10:00:00', '09:00:00.5'), TIME('10:00:00.25')"
    " FROM t ORDER BY id",
    "SELECT CONVERT_TZ(f, '+00:00', '+05:30'), ADDTIME(g, '01:00:00'), SUBTIME(f, '00:00:01.5'),"
    " TIMESTAMPADD(DAY, 1, d), TIMESTAMPADD(SECOND, 1, f) FROM t ORDER BY id",
    "SELECT COALESCE(f, d), COALESCE(d, f), IFNULL(f, d), COALESCE(d, d), COALESCE(k, f),"
    " CASE WHEN a > 0 THEN d ELSE f END FROM t ORDER BY id",
    "SELECT d FROM t UNION SELECT f FROM t ORDER BY 1",
    "SELECT i - 1, i + 0, i * 1, i DIV 1 FROM t WHERE i > 0 ORDER BY id",
    "SELECT 18446744073709551615, -9223372036854775808, 9223372036854775808 - 1, 18446744073709551614 + 1, -5, -'12'",
    "SELECT id, i = 18446744073709551615 FROM t WHERE i >= 9223372036854775808 ORDER BY id",
    "SELECT UNIX_TIMESTAMP(k), UNIX_TIMESTAMP(NULL), UNIX_TIMESTAMP() > 0 FROM t ORDER BY id",
    "SELECT ROUND(a, -1), TRUNCATE(a, -1), ROUND(-15, -1), TRUNCATE(-15, -1), ROUND(a, 0) FROM t ORDER BY id",
    "SELECT DATE(f), DATE(20240105), DATE('20240105'), DATE('2024-02-30'), DATE(NULL), DATE('x') FROM t ORDER BY id",
    "SELECT MICROSECOND(f), TO_SECONDS(d), JSON_DEPTH('[[1]]'), JSON_DEPTH('{}'), JSON_DEPTH('{\"a\":[1,{\"b\":2}]}')"
    " FROM t ORDER BY id",
    "SELECT EXTRACT(HOUR FROM g), EXTRACT(MINUTE FROM g), EXTRACT(HOUR_MINUTE FROM g), EXTRACT(MICROSECOND FROM f)"
    " FROM t ORDER BY id",
    "SELECT DATE_ADD(d, INTERVAL '1-2' YEAR_MONTH), DATE_ADD(f, INTERVAL '1:30' HOUR_MINUTE),"
    " d + INTERVAL '1 2' DAY_HOUR, DATE_SUB(f, INTERVAL '1.5' SECOND_MICROSECOND),"
    " f - INTERVAL '-1:1:1' HOUR_SECOND FROM t ORDER BY id",
    "SELECT CONCAT(DATE_ADD('2024-01-01 10:00', INTERVAL '1:30' HOUR_MINUTE)),"
    " CONCAT(DATE_ADD('2024-01-31', INTERVAL '1-2' YEAR_MONTH)), CONCAT(DATE_ADD('2024-01-01', INTERVAL '30' MINUTE_SECOND))",
    "SELECT USER() FROM t LIMIT 1",
    "SELECT CONCAT(USER(), '!'), LENGTH(VERSION()) > 4, CURRENT_USER() <> '', CONNECTION_ID() > 0",
    "WITH x AS (SELECT a FROM t) SELECT COUNT(*), MAX(a) + 1 FROM x",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT COUNT(n) FROM r",
    "SELECT id FROM t WHERE a > ANY (SELECT a FROM t WHERE a < 0) ORDER BY id",
    "SELECT id FROM t WHERE a >= ALL (SELECT a FROM t WHERE a IS NOT NULL) ORDER BY id",
    "SELECT id, a > ANY (SELECT a FROM t t2 WHERE t2.id <> t.id), a >= ALL (SELECT a FROM t t2 WHERE t2.id <> t.id),"
    " a < ALL (SELECT a FROM t WHERE 0), a = SOME (SELECT 5 UNION SELECT 15) FROM t ORDER BY id",
    "SELECT id FROM t WHERE NOT a > ANY (SELECT a FROM t) OR (a + 1) <> ALL (SELECT a FROM t WHERE a > 0) ORDER BY id",
    "SELECT COUNT(*) FROM t WHERE d > ALL (SELECT d FROM t WHERE id IN (3, 4))",
    "SELECT LOCATE('b', 'abc'), INSTR('abc', 'c'), DATEDIFF(d, '2024-01-01'), FIELD('x', 'y', 'x'),"
    " WEEK(d), YEARWEEK(d), JSON_LENGTH('[1,2]'), JSON_VALID('{}') FROM t ORDER BY id",
    # derived tables: their columns typed from their SELECT (an alias that names a real table
    # took that table's types: 'x' was sent as an INT)
    "SELECT t.id FROM (SELECT 'x' AS id, 2 AS k) t",
    "SELECT * FROM (SELECT 'x' AS id) AS t",
    "SELECT * FROM (SELECT f, d FROM t WHERE f IS NULL) q",
    "SELECT q.m, a FROM (SELECT f AS m, a FROM t WHERE id = 2) q",
    "SELECT * FROM (SELECT * FROM (SELECT f, a * 1.5 AS x FROM t) q) r ORDER BY x",
    "SELECT s, n FROM (SELECT SUM(a * 1.5) AS s, COUNT(*) AS n FROM t) q",
    "SELECT * FROM ((SELECT f FROM t WHERE id = 4)) q",
    "SELECT q.*, t.a FROM (SELECT id, f FROM t) q JOIN t ON t.id = q.id ORDER BY q.id",
    "SELECT * FROM (SELECT d FROM t UNION ALL SELECT f FROM t) u ORDER BY 1",
    "SELECT v, w, s, b, v * 2, -v, CAST(v AS CHAR), CONCAT(w) FROM n ORDER BY id",
    "SELECT id, s FROM e ORDER BY s, id",
    "SELECT id FROM e ORDER BY s DESC, id DESC",
    "SELECT id, m FROM e ORDER BY m, id",
    "SELECT id FROM e x ORDER BY x.s DESC, d.x.id LIMIT 3",
    "SELECT id, u AS s FROM e ORDER BY s, id",
    "SELECT id, ROW_NUMBER() OVER (ORDER BY s, id) FROM e ORDER BY id",
    "SELECT * FROM (SELECT id, s FROM e) q ORDER BY s, id",
    "SELECT s FROM e UNION SELECT 'new' ORDER BY s",
    "SELECT id, e + 0, s + 0, f + 0 FROM en ORDER BY id",
    "SELECT id, e * 2, e - 1, -e, e / 2, e DIV 2, e MOD 2, e + 1.5, e + s FROM en ORDER BY id",
    "SELECT id, s | 0, s & 2, s >> 1, e << 1, ~e, e ^ 1 FROM en ORDER BY id",
    "SELECT id FROM en WHERE e = 2 ORDER BY id",
    "SELECT id FROM en WHERE 2 = e ORDER BY id",
    "SELECT id FROM en WHERE e = 2.0 ORDER BY id",
    "SELECT id FROM en WHERE e > 1 ORDER BY id",
    "SELECT id FROM en WHERE e <> 1 ORDER BY id",
    "SELECT id FROM en WHERE s = 3 ORDER BY id",
    "SELECT id FROM en WHERE e IN (1, 3) ORDER BY id",
    "SELECT id FROM en WHERE e NOT IN (1) ORDER BY id",
    "SELECT id FROM en WHERE e BETWEEN 2 AND 3 ORDER BY id",
    "SELECT id FROM en WHERE f = 3 ORDER BY id",
    "SELECT id FROM en WHERE e = id ORDER BY id",
    "SELECT id FROM en WHERE e ORDER BY id",
    "SELECT id FROM en WHERE s ORDER BY id",
    "SELECT id, e AND 1, NOT e FROM en ORDER BY id",
    "SELECT id, IF(e = 2, 'two', 'no') FROM en ORDER BY id",
    "SELECT id FROM en WHERE e = 'y' ORDER BY id",
    "SELECT id FROM en WHERE e = '2' ORDER BY id",
    "SELECT id FROM en WHERE e < 'y' ORDER BY id",
    "SELECT id FROM en WHERE s = 'a,b' ORDER BY id",
    "SELECT id FROM en WHERE f IN ('a', 'x,y') ORDER BY id",
    "SELECT SUM(e), AVG(e), SUM(s), AVG(s), MAX(e), MIN(e), MAX(f), MIN(f) FROM en",
    "SELECT id, ABS(e), ROUND(e), GREATEST(e, 1), LEAST(s, 2) FROM en ORDER BY id",
    "SELECT id, CAST(e AS DECIMAL(5,2)), CAST(e AS DOUBLE), CAST(s AS UNSIGNED), CAST(e AS CHAR) FROM en ORDER BY id",
    "SELECT e + 0 AS n FROM en ORDER BY n, id",
    "SELECT id, e, f FROM en ORDER BY f, id",
    "SELECT a.id, b.id FROM en AS a JOIN en AS b ON a.e = b.e ORDER BY a.id, b.id",
    "SELECT id FROM en WHERE e + 0 > 1 AND s & 1 ORDER BY id",
    # SELECT * over a join with USING or NATURAL: the common columns once, first
    "SELECT * FROM n JOIN e USING (id) ORDER BY id",
    "SELECT * FROM e RIGHT JOIN n USING (id) ORDER BY id",
    "SELECT * FROM n LEFT JOIN en USING (id) ORDER BY id",
    "SELECT * FROM n NATURAL LEFT JOIN en ORDER BY id",
    "SELECT * FROM en x JOIN en y USING (s, id) JOIN e USING (id) ORDER BY id",
    "SELECT d.* FROM (SELECT * FROM t JOIN n USING (id)) d ORDER BY 1",
    "SELECT * FROM jv ORDER BY id",
    "SELECT * FROM tv ORDER BY x",
    "SELECT z, x + 1, y FROM tv ORDER BY x",
    "SELECT * FROM tv2 ORDER BY f",
    "UPDATE en SET id = id + 10 WHERE e = 2",
    "DELETE FROM en WHERE f = 3",
    "SELECT id, e, s, f FROM en ORDER BY id",
    # BINARY x compared: a comparison's integer, the operand compared as bytes
    "SELECT id, BINARY u = 'a', BINARY UPPER(u) = 'A', 'A' = BINARY u, BINARY u IN ('a') FROM e ORDER BY id",
    # typed literals: a DATE, a TIME, a DATETIME with the fraction digits written (they were 1064)
    "SELECT DATE '2020-01-01', TIME '10:11:12', TIMESTAMP '2020-01-01 10:11:12', TIME '10:11:12.50',"
    " TIMESTAMP '2020-01-01 10:11:12.123' AS ts, date'2020-1-1', TIME '-1 10'",
    "SELECT id, DATE '2024-01-05' + INTERVAL 1 DAY, d = DATE '2024-01-05', COALESCE(d, DATE '2000-01-01'),"
    " DATE_ADD(TIMESTAMP '2020-01-01 10:00:00', INTERVAL 1 HOUR), TIMESTAMP '2024-01-05 10:11:12' > f,"
    " TIME '10:11:12' + 0, TIMESTAMP '2020-01-01 10:11:12.5' + 0 FROM t ORDER BY id",
    "SELECT id FROM t WHERE f >= TIMESTAMP '2024-01-05 10:11:12.345' AND g <> TIME '00:00:00' OR d = DATE '2024-02-29'"
    " ORDER BY id",
    "SELECT DATE '2024-02-30'",
    "SELECT x FROM (SELECT TIME '10:11:12.5' AS x UNION SELECT TIME '1:00') q ORDER BY x",
    # CHARSET() / COLLATION(): a VARCHAR whatever the argument (they were 1305)
    "SELECT id, CHARSET('a'), COLLATION(d), CHARSET(1) AS c1, COLLATION(f) c2 FROM t ORDER BY id",
    # JSON_COMPACT (it was 1305)
    "SELECT JSON_COMPACT('{\"a\": 1, \"b\": [1, 2.50]}'), JSON_COMPACT(NULL), JSON_COMPACT('x')",
    # BINARY x anywhere: a binary string (VARBINARY, charset binary; it was 1054 "Unknown column
    # 'BINARY'" outside a comparison); adjacent strings one literal named by its value (1064)
    "SELECT BINARY u, BINARY id, BINARY -id, BINARY NULL, CONCAT(BINARY u, 'x'), BINARY u LIKE 'a',"
    " LENGTH(BINARY u) FROM d.e ORDER BY BINARY u, id",
    "SELECT 'a' 'b', 'a' \"b\" 'c', _utf8mb4'a' 'b', CONCAT('a' 'b', 'c'), 'a' 'b' AS c",
    # @x := value: the value's type, an integer a LONG up to 9 digits (it was 1064)
    "SELECT @x := 5, @y := 'abc', @z := 1.5, @w := NULL, @a := id, @d := d FROM t ORDER BY id",
]

# statements whose result columns are compared by name and type code only (their values are
# the servers' own: sizes, times, engines)
METADATA = [
    "SHOW COLUMNS FROM t",
    "SHOW FULL COLUMNS FROM t",
    "SHOW INDEX FROM t",
    "SHOW TABLE STATUS LIKE 't'",
    "SHOW TABLE STATUS WHERE Name = 't'",
    "SHOW TABLES",
    "SHOW EVENTS",
    "SHOW TRIGGERS",
    "SHOW PROCEDURE STATUS WHERE Db = 'd'",
    "SHOW ENGINES",
    "SHOW COLLATION LIKE 'utf8mb4_bin'",
    "SHOW CHARACTER SET LIKE 'utf8mb4'",
] + [f"SELECT * FROM information_schema.{view} WHERE {column} = 'd'" for view, column in (
    ("TABLES", "TABLE_SCHEMA"), ("COLUMNS", "TABLE_SCHEMA"), ("STATISTICS", "TABLE_SCHEMA"),
    ("KEY_COLUMN_USAGE", "TABLE_SCHEMA"), ("TABLE_CONSTRAINTS", "TABLE_SCHEMA"), ("PARTITIONS", "TABLE_SCHEMA"),
    ("TRIGGERS", "TRIGGER_SCHEMA"), ("ROUTINES", "ROUTINE_SCHEMA"), ("EVENTS", "EVENT_SCHEMA"),
    ("VIEWS", "TABLE_SCHEMA"), ("SCHEMATA", "SCHEMA_NAME"), ("REFERENTIAL_CONSTRAINTS", "CONSTRAINT_SCHEMA"),
    ("CHECK_CONSTRAINTS", "CONSTRAINT_SCHEMA"))]

# executed with these values through the binary protocol only (the text protocol has none);
# an INT parameter in a column (`a + ?`) is left out: mysql-connector-python waits forever on
# MariaDB 10.11's rows for it
PARAM_QUERIES = [
    ("SELECT a * ?, ? + 1 FROM t ORDER BY id", (2.5, 0.25)),
    ("SELECT id FROM t WHERE a * ? > 6 ORDER BY id", (1.5,)),
]

# statements whose result columns are compared by where they come from (name, column, table as
# the statement names it, table, schema: a table column's, none for an expression)
ORIGINS = [
    "SELECT id, a FROM t ORDER BY id",
    "SELECT id AS x, a AS y FROM t AS q ORDER BY x",
    "SELECT q.id, r.v FROM t q JOIN n r ON q.id = r.id ORDER BY q.id",
    "SELECT * FROM e ORDER BY id",
    "SELECT q.* FROM n q ORDER BY id",
    "SELECT d.t.id FROM d.t ORDER BY id",
    "SELECT id + 1, -id, MAX(id), COUNT(*), 'x', NULL FROM t GROUP BY id ORDER BY id",
]

SCHEMA_STEPS = [
    "CREATE DATABASE zz",
    "CREATE DATABASE IF NOT EXISTS zz",
    "CREATE TABLE zz.a (x INT)",
    "CREATE TABLE zz.b (x INT)",
    "CREATE VIEW zz.v AS SELECT 1",
    "DROP DATABASE zz",
    "CREATE DATABASE zz",
    "DROP DATABASE zz",
]


def _text_answers(port: int) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database="d", autocommit=True)
    out: list[tuple] = []
    try:
        with conn.cursor() as cur:
            for sql in QUERIES:
                try:
                    cur.execute(sql)
                except pymysql.MySQLError as exc:
                    out.append((sql, "error", exc.args[0]))
                    continue
                if cur.description is None:  # (an UPDATE or DELETE among them: its rows counted)
                    out.append((sql, "ok", cur.rowcount))
                    continue
                out.append((sql, [(d[0], d[1]) for d in cur.description], cur.fetchall()))
            for sql in METADATA:
                cur.execute(sql)
                out.append((sql, [(d[0], d[1]) for d in cur.description]))
            for sql in ORIGINS:
                cur.execute(sql)
                out.append((sql, [(f.name, f.org_name, f.table_name, f.org_table, f.db) for f in cur._result.fields]))
            for sql in SCHEMA_STEPS:
                out.append((sql, cur.execute(sql)))
    finally:
        conn.close()
    return out


def _binary_answers(port: int) -> list[tuple]:
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="d",
                                   use_pure=True, autocommit=True)
    out: list[tuple] = []
    try:
        cur = conn.cursor(prepared=True)  # DOUBLE parameters into strings: stored as MariaDB writes a double
        for k, value in enumerate((99.0, 0.1, 1e20, 2.5, 1e-7)):
            cur.execute("INSERT INTO n (id, s, b) VALUES (?, ?, ?)", (10 + k, value, value))
        cur.close()
        for sql, values in [(q, ()) for q in QUERIES] + PARAM_QUERIES + [("SELECT s, b FROM n ORDER BY id", ())]:
            cur = conn.cursor(prepared=True)
            try:
                cur.execute(sql, values)
                if cur.description is None:
                    out.append((sql, "ok", cur.rowcount))
                    continue
                rows = [tuple(row) for row in cur.fetchall()]
                out.append((sql, [d[1] for d in cur.description], rows))
            except mysql.connector.Error as exc:
                out.append((sql, "error", exc.errno))
            finally:
                cur.close()
    finally:
        conn.close()
    return out


def test_result_columns_as_mariadb(tmp_path):
    (theirs_text, ours_text), (theirs_binary, ours_binary) = each_askers_answers(
        tmp_path, SETUP, _text_answers, _binary_answers)
    # what the comparison stands on: MariaDB's own answers for a few of the cases
    assert ("SELECT USER() FROM t LIMIT 1", [("USER()", 253)], (("root@127.0.0.1",),)) in theirs_text
    assert ("DROP DATABASE zz", 3) in theirs_text
    assert answer_differences(theirs_text, ours_text) == ""
    assert answer_differences(theirs_binary, ours_binary) == ""
