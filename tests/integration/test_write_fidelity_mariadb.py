"""UPDATE, DELETE and INSERT answered as MariaDB 10.11 answers them, each statement run on a stock
MariaDB and on our master and the answers compared (rows affected, the OK's info, warnings and
errors as SHOW WARNINGS lists them, the rows left):

- a UUID / INET6 column compared with text that names no value of it inside an UPDATE's SET or
  WHERE: strict mode's 1292, the comparison's NULL with a warning under IGNORE or a lax sql_mode;
- the row a stored value's warning or error names ("at row n"): an UPDATE's rows read by its
  scan (a WHERE that filters some out counts them too), an UPDATE ... ORDER BY ... LIMIT's rows
  in that order, an INSERT IGNORE ... ON DUPLICATE KEY UPDATE's row of values; that statement's
  "Records: n  Duplicates: d  Warnings: w" (IGNORE counts the rows neither inserted nor changed);
- UPDATE / DELETE ... ORDER BY without LIMIT, the rows updated in that order (a key shifted by
  one, ORDER BY id DESC, meets no other row);
- SET [SESSION | GLOBAL] binlog_format: STATEMENT, what this binlog holds, taken (SUPER or BINLOG
  ADMIN, not inside a transaction), ROW and MIXED refused with 1235; a statement written under
  it replays on a MariaDB replica as a statement (its own checksum of its own rows);
- CAST of a negative integer AS UNSIGNED: MariaDB's note 1105; -9223372036854775808 (the literal
  9223372036854775808 negated) is BIGINT's least value, an integer, not a DECIMAL;
- an ON DUPLICATE KEY UPDATE whose update meets another unique key: 1062 naming the key's new
  value, under IGNORE a warning, the row left as it was and counted neither inserted nor updated;
- UPDATE ... LIMIT without ORDER BY: "Rows matched / Changed", the rows in the scan's order, a
  1062 naming the new key; UPDATE IGNORE of rows a CHECK (4025, not matched) or a foreign key
  (matched, no warning) refuses, left as they were;
- the note 1592 of a write to a table with an AUTO_INCREMENT column that reads a table (INSERT
  ... SELECT, a subquery, a join, CREATE TABLE ... SELECT with its own note), and the ... SELECT
  notes only for a SELECT source.
"""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    differences,
    mariadb_and_ours,
    ok_answers,
    reference_ours_and_replica,
    reference_ours_and_replicas,
    replay,
    rows_or_none,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with mariadb_and_ours(tmp_path_factory.mktemp("fidelity")) as pair:
        yield pair


def compared(servers, database: str, setup: list[str], statements: list[str]) -> list[tuple]:
    """`setup` (in a new database `database`) and `statements` on both servers: MariaDB's
    answers, asserted equal to ours."""
    reference, ours = servers
    setup = [f"CREATE DATABASE {database}", *setup]
    theirs = ok_answers(reference, setup, statements, database)
    mine = ok_answers(ours, setup, statements, database)
    assert mine == theirs, answer_differences(theirs, mine)
    return theirs


def test_fixedbin_compared_with_text_of_no_value_in_a_write(servers):
    theirs = compared(servers, "fb", [
        "CREATE TABLE fb.t (id INT PRIMARY KEY, u UUID, i6 INET6, n INT)",
        "INSERT INTO fb.t VALUES (1, '6ccd780c-baba-1026-9564-5b8c656024db', '::1', 0), (2, NULL, NULL, 0)",
    ], [
        "UPDATE t SET n = (u = 'junk')",
        "UPDATE t SET n = (i6 = 'junk')",
        "UPDATE t SET n = 1 WHERE u = 'junk'",
        "UPDATE t SET n = 1 WHERE id = 3 AND u = 'junk'",  # no row read: nothing converted
        "UPDATE t SET n = (u = 'junk') WHERE id = 3",
        "UPDATE t SET n = 5 WHERE u = '6CCD780CBABA102695645B8C656024DB'",
        "UPDATE IGNORE t SET n = (u = 'junk')",  # one warning, whatever the rows
        "DELETE FROM t WHERE u = 'junk'",
        "SELECT id, n FROM t",
        "SET sql_mode = ''",
        "UPDATE t SET n = (u = 'junk') + 7",
        "UPDATE t SET n = 1 WHERE u = 'junk' OR i6 = 'nope'",
        "SELECT id, n FROM t",
        "SET sql_mode = 'STRICT_ALL_TABLES'",
        "UPDATE t SET n = (u = 'junk')",
        "BEGIN",
        "UPDATE t SET n = (u = 'junk')",
        "COMMIT",
    ])
    assert theirs[0][1] == ("error", 1292, "Incorrect uuid value: 'junk'")


def test_a_string_arithmetic_reads_as_a_number_is_converted_per_row(servers):
    """A string literal + - * / reads as a DOUBLE beside a column: converted for each row
    computed, each time warning 1292 (a note for trailing spaces), a strict INSERT / UPDATE's
    error (not a DELETE's, not a SELECT's); an UPDATE warns once for each row it matches,
    changed or not."""
    theirs = compared(servers, "numtext", [
        "CREATE TABLE numtext.t (id INT PRIMARY KEY, k INT, s VARCHAR(10), d DECIMAL(6,2), f DOUBLE)",
        "INSERT INTO numtext.t VALUES (1, 1, 'a', 1.5, 1.5), (2, 2, 'b', 2.5, 2.5), (3, 3, 'c', 3.5, 3.5)",
    ], [
        "UPDATE t SET k = k + 'x'",
        "UPDATE t SET k = k * 'x' WHERE id = 1",
        "UPDATE t SET f = f - 'x'",
        "UPDATE t SET s = k + '1x'",
        "UPDATE t SET k = k + '1 '",
        "UPDATE IGNORE t SET k = k + 'x'",
        "SELECT k + 'x', d + 'y', 'z' + 1 FROM t",
        "SELECT id FROM t WHERE k + 'x' = 1",
        "SELECT SUM(k + 'x') FROM t",
        "DELETE FROM t WHERE k + 'x' = 100",
        "SELECT * FROM t ORDER BY id",
        "SET sql_mode = ''",
        "UPDATE t SET k = k + 'x'",
        "UPDATE t SET k = k + 'x' WHERE id > 1",
        "UPDATE t SET d = d + 'x'",
        "UPDATE t SET k = 'x' + 1",
        "UPDATE t SET k = k + '1x' ORDER BY id LIMIT 2",
        "UPDATE t SET k = k + 1 WHERE k + 'x' > 1",
        "INSERT INTO t VALUES (4, 1 + 'x', 'a', 1, 1), (5, 2 + 'y', 'b', 1, 1)",
        "SELECT * FROM t ORDER BY id",
    ])
    assert theirs[0][1] == ("error", 1292, "Truncated incorrect DOUBLE value: 'x'")
    assert theirs[12][1][2:4] == (b"(Rows matched: 3  Changed: 0  Warnings: 3", 3)


def test_update_names_the_row_its_scan_read(servers):
    theirs = compared(servers, "scan", [
        "CREATE TABLE scan.t (id INT PRIMARY KEY, n INT, tn TINYINT, k INT, KEY (k))",
        "INSERT INTO scan.t VALUES (1, 1, 1, 1), (2, 2, 2, 2), (3, 300, 3, 3), (4, 4, 4, 4), (5, 500, 5, 5)",
    ], [
        "UPDATE t SET tn = n WHERE id > 1",
        "UPDATE t SET tn = n WHERE n > 3",
        "UPDATE t SET tn = n WHERE n >= 1",
        "UPDATE t SET tn = n WHERE id >= 3",
        "UPDATE t SET tn = n WHERE k >= 3",
        "UPDATE t SET tn = n ORDER BY n DESC LIMIT 3",
        "UPDATE t SET tn = n ORDER BY id DESC LIMIT 3",
        "UPDATE t SET tn = n WHERE n > 1 ORDER BY id LIMIT 3",
        "UPDATE t SET tn = n WHERE n > 1 ORDER BY n",
        "UPDATE IGNORE t SET tn = n * 2 WHERE id > 1",
        "UPDATE t SET tn = n, id = id + 10 WHERE n > 3",
        "UPDATE t SET tn = 1000 WHERE id IN (2, 4)",
        "SET sql_mode = ''",
        "UPDATE t SET tn = -n * 3 WHERE n < 400",
        "SELECT * FROM t ORDER BY id",
    ])
    assert theirs[1][1] == ("error", 1264, "Out of range value for column 'tn' at row 3")


def test_insert_ignore_on_duplicate_key_update_rows_and_info(servers):
    theirs = compared(servers, "odku", [
        "CREATE TABLE odku.t (id INT PRIMARY KEY, v VARCHAR(3), u INT UNIQUE, n TINYINT)",
        "CREATE TABLE odku.one (id INT PRIMARY KEY, v VARCHAR(3), n TINYINT)",
        "INSERT INTO odku.t VALUES (1, 'a', 10, 1), (2, 'b', 20, 2)",
        "INSERT INTO odku.one VALUES (1, 'a', 1), (2, 'b', 2)",
    ], [
        "INSERT IGNORE INTO t VALUES (1, 'x', 11, 1), (3, 'toolong', 30, 3), (2, 'y', 21, 2)"
        " ON DUPLICATE KEY UPDATE v = 'abcdef'",
        "INSERT IGNORE INTO t VALUES (5, 'e', 50, 1000), (1, 'x', 11, 1), (6, 'f', 60, 6) ON DUPLICATE KEY UPDATE n = 500",
        "INSERT IGNORE INTO t VALUES (1, 'x', 11, 1) ON DUPLICATE KEY UPDATE n = 500",
        "INSERT IGNORE INTO t VALUES (7, 'g', 70, 7), (8, 'h', 80, 8) ON DUPLICATE KEY UPDATE n = 1",
        "INSERT IGNORE INTO t VALUES (9, 'i', 10, 9), (10, 'j', 100, 10) ON DUPLICATE KEY UPDATE v = 'zzzzz'",
        "INSERT INTO t VALUES (1, 'x', 11, 1), (11, 'k', 110, 11) ON DUPLICATE KEY UPDATE n = 2",
        "INSERT IGNORE INTO one VALUES (3, 'c', 3), (1, 'x', 1), (2, 'y', 2) ON DUPLICATE KEY UPDATE n = n",
        "INSERT IGNORE INTO one VALUES (4, 'dddd', 4), (1, 'x', 1) ON DUPLICATE KEY UPDATE n = 300",
        "SELECT * FROM t ORDER BY id",
        "SELECT * FROM one ORDER BY id",
    ])
    assert theirs[0][1][2] == b"&Records: 3  Duplicates: 0  Warnings: 4"


def test_update_and_delete_order_by_without_limit(servers):
    theirs = compared(servers, "ord", [
        "CREATE TABLE ord.t (id INT PRIMARY KEY, n INT, k INT UNIQUE)",
        "CREATE TABLE ord.s (code VARCHAR(5) PRIMARY KEY, pos INT NOT NULL, UNIQUE KEY (pos))",
        "INSERT INTO ord.t VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3)",
        "INSERT INTO ord.s VALUES ('a', 1), ('b', 2), ('c', 3)",
    ], [
        "UPDATE t SET id = id + 1 ORDER BY id DESC",
        "SELECT * FROM t ORDER BY id",
        "UPDATE t SET id = id - 1 ORDER BY id",
        "UPDATE t SET k = k + 1 ORDER BY k DESC",
        "UPDATE t SET k = k + 1",
        "UPDATE t SET k = k + 1 ORDER BY k",
        "UPDATE t SET n = n + 1 WHERE id > 1 ORDER BY n DESC",
        "UPDATE t SET n = n WHERE id > 1 ORDER BY n DESC",
        "SELECT * FROM t ORDER BY id",
        "UPDATE s SET pos = pos + 1 ORDER BY pos DESC",
        "UPDATE s SET pos = pos - 1 WHERE code > 'a' ORDER BY pos",
        "SELECT * FROM s ORDER BY pos",
        "DELETE FROM t WHERE id > 1 ORDER BY n",
        "DELETE FROM t ORDER BY id DESC",
        "SELECT * FROM t ORDER BY id",
    ])
    assert theirs[0][1][:3] == (3, (), b"(Rows matched: 3  Changed: 3  Warnings: 0")


def test_cast_of_a_negative_number_as_unsigned(servers):
    theirs = compared(servers, "cast", [
        "CREATE TABLE cast.t (id INT PRIMARY KEY, n INT, d DECIMAL(5,2), s VARCHAR(10))",
        "INSERT INTO cast.t VALUES (1, -3, -1.5, '-7'), (2, 4, 2.5, '8')",
    ], [
        "SELECT CAST(-1 AS UNSIGNED)",
        "SELECT CAST(-5 AS UNSIGNED), CAST('-1' AS UNSIGNED), CONVERT(-1, UNSIGNED)",
        "SELECT CAST(1 - 2 AS UNSIGNED INTEGER), CAST(CAST(-1 AS SIGNED) AS UNSIGNED)",
        "SELECT CAST(-1.5 AS UNSIGNED)",
        "SELECT CAST('-1x' AS UNSIGNED), CAST(' -1' AS UNSIGNED), CAST('-0' AS UNSIGNED), CAST(-0 AS UNSIGNED)",
        "SELECT CAST(n AS UNSIGNED), CAST(d AS UNSIGNED), CAST(s AS UNSIGNED) FROM t ORDER BY id",
        "SELECT -1 + CAST(-1 AS UNSIGNED), CAST(18446744073709551615 AS SIGNED)",
        "DO CAST(-1 AS UNSIGNED)",
    ])
    assert theirs[0][1] == (1, ((18446744073709551615,),), None, 1, (
        ("Note", 1105, "Cast to unsigned converted negative integer to it's positive complement"),))


def test_cast_of_bigint_least_value_as_unsigned(servers):
    theirs = compared(servers, "least", [], [
        "SELECT CAST(-9223372036854775808 AS UNSIGNED)",
        "SELECT CONVERT(-9223372036854775808, UNSIGNED), CAST(- 9223372036854775808 AS UNSIGNED INTEGER)",
        "SELECT CAST(-9223372036854775808 AS UNSIGNED) + 0, CAST(-9223372036854775808 AS SIGNED)",
        "SELECT CAST(-9223372036854775807 AS UNSIGNED)",
        "SELECT CAST(-9223372036854775809 AS UNSIGNED)",  # a DECIMAL: 0 and its warning
        "SELECT CAST(-18446744073709551615 AS UNSIGNED)",
        "SELECT CAST(9223372036854775808 AS UNSIGNED), CAST(18446744073709551615 AS UNSIGNED)",
        "SELECT -9223372036854775808, -9223372036854775809",
        "SELECT CAST(-(9223372036854775808) AS UNSIGNED), CAST(-((9223372036854775808)) AS UNSIGNED)",
        "SELECT CAST((-9223372036854775808) AS UNSIGNED), CAST(-(9223372036854775808) AS SIGNED)",
    ])
    assert theirs[0][1] == (1, ((9223372036854775808,),), None, 1, (
        ("Note", 1105, "Cast to unsigned converted negative integer to it's positive complement"),))
    assert theirs[-2][1][1] == ((9223372036854775808, 9223372036854775808),)


def test_cast_past_bigint_s_range(servers):
    """A DECIMAL past the target's range clipped with warning 1916; a string's integer past
    BIGINT's least value or BIGINT UNSIGNED's greatest clipped with warning 1292 (no note 1105).
    (A number literal past BIGINT UNSIGNED, `CAST(18446744073709551616 AS SIGNED)`, is kept as
    its digits and read as the quoted string of them is: not compared here.)"""
    theirs = compared(servers, "past", [
        "CREATE TABLE past.t (id INT PRIMARY KEY, s VARCHAR(30), d DECIMAL(30,1))",
        "INSERT INTO past.t VALUES (1, '-9223372036854775809', -9223372036854775809.4),"
        " (2, ' -99999999999999999999', 99999999999999999999.5), (3, '-1', -0.4)",
    ], [
        "SELECT CAST('99999999999999999999' AS SIGNED), CAST('99999999999999999999' AS UNSIGNED)",
        "SELECT CAST(-9223372036854775809 AS SIGNED)",
        "SELECT CAST('-9223372036854775809' AS UNSIGNED)",
        "SELECT CAST('-18446744073709551616' AS UNSIGNED), CAST('-9223372036854775809' AS SIGNED)",
        "SELECT CAST('-9223372036854775809x' AS UNSIGNED)",
        "SELECT CAST(s AS UNSIGNED), CAST(s AS SIGNED), CAST(d AS UNSIGNED), CAST(d AS SIGNED) FROM t ORDER BY id",
    ])
    assert theirs[2][1][4] == (("Warning", 1292, "Truncated incorrect INTEGER value: '-9223372036854775809'"),)
    assert 1916 in [code for _, code, _ in theirs[-1][1][4]]


ON_ANOTHER_KEY = [
    "INSERT IGNORE INTO t VALUES (1, 11, 1) ON DUPLICATE KEY UPDATE u = 20",
    "INSERT IGNORE INTO t VALUES (1, 11, 1), (3, 30, 3) ON DUPLICATE KEY UPDATE u = 20",
    "INSERT IGNORE INTO t VALUES (3, 31, 3), (1, 11, 1), (4, 40, 4) ON DUPLICATE KEY UPDATE u = u + 10",
    "INSERT IGNORE INTO t (id, u, n) VALUES (1, 11, 1) ON DUPLICATE KEY UPDATE id = 2",
    "INSERT IGNORE INTO t VALUES (1, 11, 1) ON DUPLICATE KEY UPDATE u = 20, n = VALUES(n) + 1000",
    "INSERT IGNORE INTO t SELECT 2, 99, 9 ON DUPLICATE KEY UPDATE u = 10",
    "INSERT IGNORE INTO a (id, u) VALUES (NULL, 5), (1, 6), (NULL, 7) ON DUPLICATE KEY UPDATE u = 2",
    "INSERT INTO t VALUES (1, 11, 1) ON DUPLICATE KEY UPDATE u = u + 10",
    "INSERT INTO t VALUES (5, 50, 5), (1, 11, 1) ON DUPLICATE KEY UPDATE u = 20",
    "INSERT INTO t SELECT 1, 11, 1 ON DUPLICATE KEY UPDATE u = 50",
    "INSERT INTO t (id, u) VALUES (1, 11) ON DUPLICATE KEY UPDATE id = id + 1",
    "INSERT INTO a (id, u) VALUES (NULL, 8), (2, 9) ON DUPLICATE KEY UPDATE u = 1",
]


def test_on_duplicate_key_update_meeting_another_key(servers):
    theirs = compared(servers, "another", [
        "CREATE TABLE another.t (id INT PRIMARY KEY, u INT UNIQUE, n INT)",
        "CREATE TABLE another.a (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE)",
        "INSERT INTO another.t VALUES (1, 10, 1), (2, 20, 2)",
        "INSERT INTO another.a VALUES (1, 1), (2, 2)",
    ], [*ON_ANOTHER_KEY, "SELECT * FROM t ORDER BY id", "SELECT * FROM a ORDER BY id"])
    assert theirs[0][1][:2] == (0, ())
    assert theirs[0][1][4][0] == ("Warning", 1062, "Duplicate entry '20' for key 'u'")
    assert theirs[7][1] == ("error", 1062, "Duplicate entry '20' for key 'u'")


def test_update_limit_without_order_by(servers):
    theirs = compared(servers, "lim", [
        "CREATE TABLE lim.k (id INT PRIMARY KEY, u INT UNIQUE, n INT)",
        "CREATE TABLE lim.e (id INT PRIMARY KEY, k INT UNIQUE, c VARCHAR(5), KEY (c))",
        "INSERT INTO lim.k VALUES (1, 3, 0), (2, 2, 0), (4, 4, 0)",
        "INSERT INTO lim.e VALUES (1, 100, 'z'), (2, 500, 'y'), (3, 900, 'x'), (4, 200, 'w')",
    ], [
        "UPDATE k SET n = 6 LIMIT 2",
        "UPDATE k SET n = n LIMIT 2",
        "UPDATE k SET n = 7 WHERE id > 1 LIMIT 5",
        "UPDATE IGNORE k SET u = 1 LIMIT 2",  # the scan's first row (id 1) takes it, the next meets it
        "UPDATE IGNORE k SET u = 5, n = n + 1 LIMIT 3",
        "SELECT * FROM k ORDER BY id",
        "UPDATE e SET k = k + 400 LIMIT 3",
        "UPDATE e SET k = k + 400 LIMIT 1",
        "UPDATE e SET k = k - 100 LIMIT 4",
        "SELECT * FROM e ORDER BY id",
    ])
    assert theirs[0][1][2] == b"(Rows matched: 2  Changed: 2  Warnings: 1"
    assert theirs[6][1] == ("error", 1062, "Duplicate entry '500' for key 'k'")


def test_update_ignore_of_rows_a_check_or_a_foreign_key_refuses(servers):
    """UPDATE IGNORE: a row its CHECK refuses is left as it was with warning 4025 and is not
    matched; a row its foreign key refuses is left as it was, matched, without a warning."""
    theirs = compared(servers, "refuse", [
        "CREATE TABLE refuse.p (id INT PRIMARY KEY)",
        "INSERT INTO refuse.p VALUES (1), (2)",
        "CREATE TABLE refuse.c (id INT PRIMARY KEY, pid INT, m INT, CHECK (m >= 0),"
        " FOREIGN KEY (pid) REFERENCES refuse.p (id))",
        "INSERT INTO refuse.c VALUES (1, 1, 1), (2, 2, 2), (3, 1, 3)",
    ], [
        "UPDATE IGNORE c SET pid = 99",
        "UPDATE IGNORE c SET pid = 99 WHERE id = 1",
        "UPDATE IGNORE c SET m = -1",
        "UPDATE IGNORE c SET m = -1 WHERE id > 1",
        "UPDATE IGNORE c SET m = 7, pid = 99 WHERE id < 3",
        "UPDATE IGNORE c SET m = IF(id = 2, -1, 8)",
        "UPDATE IGNORE c SET pid = IF(id = 3, 2, 99), m = m + 1",
        "SELECT * FROM c ORDER BY id",
        "UPDATE c SET m = -1 WHERE id = 1",
        "UPDATE c SET pid = 99 WHERE id = 1",
    ])
    assert theirs[2][1][2] == b"(Rows matched: 0  Changed: 0  Warnings: 4"
    assert theirs[0][1][2] == b"(Rows matched: 3  Changed: 0  Warnings: 1"


def test_update_ignore_limit_takes_no_row_a_check_refuses(servers):
    """UPDATE IGNORE ... LIMIT n without ORDER BY: a row its CHECK refuses is not one of the n
    (MariaDB's scan counts the rows it takes: unchanged ones, a foreign key's refused ones); with
    ORDER BY the sort's LIMIT counts it."""
    theirs = compared(servers, "taken", [
        "CREATE TABLE taken.c (id INT PRIMARY KEY, m INT, CHECK (m >= 0))",
        "INSERT INTO taken.c VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)",
        "CREATE TABLE taken.p (id INT PRIMARY KEY)",
        "INSERT INTO taken.p VALUES (1), (2)",
        "CREATE TABLE taken.f (id INT PRIMARY KEY, pid INT, m INT, CHECK (m >= 0), FOREIGN KEY (pid) REFERENCES taken.p (id))",
        "INSERT INTO taken.f VALUES (1, 1, 1), (2, 2, 2), (3, 1, 3), (4, 2, 4)",
    ], [
        "UPDATE IGNORE c SET m = IF(id = 2, -1, m + 10) LIMIT 2",
        "UPDATE IGNORE c SET m = IF(id < 3, -1, m + 10) LIMIT 2",
        "UPDATE IGNORE c SET m = IF(id = 4, -1, m) LIMIT 4",
        "UPDATE IGNORE c SET m = IF(id = 1, -1, m + 1) WHERE id < 4 LIMIT 2",
        "UPDATE IGNORE c SET m = IF(id = 5, -1, m + 1) ORDER BY id DESC LIMIT 3",
        "UPDATE IGNORE c SET m = -1 LIMIT 2",
        "SELECT * FROM c ORDER BY id",
        "UPDATE IGNORE f SET pid = IF(id = 1, 99, 2), m = IF(id = 2, -1, m) LIMIT 2",
        "SELECT * FROM f ORDER BY id",
    ])
    assert theirs[0][1][2] == b"(Rows matched: 2  Changed: 2  Warnings: 3"
    assert theirs[6][1][1] == ((1, 11), (2, 3), (3, 25), (4, 15), (5, 5))


def test_write_of_an_auto_increment_table_that_reads_a_table(servers):
    theirs = compared(servers, "autosel", [
        "CREATE TABLE autosel.a (id INT AUTO_INCREMENT PRIMARY KEY, n INT)",
        "CREATE TABLE autosel.src (n INT)",
        "CREATE TABLE autosel.plain (id INT PRIMARY KEY, n INT)",
        "CREATE VIEW autosel.v AS SELECT n FROM autosel.src",
        "INSERT INTO autosel.src VALUES (1), (2)",
    ], [
        "INSERT INTO a (n) SELECT n FROM src",
        "INSERT INTO a (n) SELECT n FROM a",
        "INSERT INTO a (n) SELECT n FROM src WHERE 0",
        "INSERT INTO a (n) SELECT n FROM v",
        "INSERT INTO a (n) SELECT 5",
        "INSERT INTO a (n) SELECT n FROM (SELECT 1 AS n) x",
        "INSERT INTO a (n) VALUES (1), (2)",
        "INSERT INTO a VALUES (NULL, (SELECT MAX(n) FROM src))",
        "INSERT INTO a SET n = (SELECT 1 FROM src LIMIT 1)",
        "INSERT IGNORE INTO a (n) SELECT n FROM src",
        "INSERT IGNORE INTO a (n) VALUES ((SELECT MAX(n) FROM src))",
        "INSERT INTO a (n) SELECT n FROM src ON DUPLICATE KEY UPDATE n = 1",
        "INSERT INTO a (n) VALUES (1) ON DUPLICATE KEY UPDATE n = (SELECT MAX(n) FROM src)",
        "INSERT INTO plain (id, n) VALUES (50, 1) ON DUPLICATE KEY UPDATE n = (SELECT MAX(n) FROM src)",
        "REPLACE INTO a (n) SELECT n FROM src",
        "REPLACE INTO a (n) VALUES ((SELECT MAX(n) FROM src))",
        "INSERT INTO plain SELECT id, n FROM a",
        "UPDATE a SET n = n + 1",
        "UPDATE a SET n = 1 WHERE id IN (SELECT n FROM src)",
        "UPDATE a SET n = (SELECT MAX(n) FROM src) LIMIT 1",
        "UPDATE a JOIN src ON a.n = src.n SET a.n = 3",
        "UPDATE IGNORE a JOIN src ON a.n = src.n SET a.n = 3",
        "UPDATE src JOIN a ON a.n = src.n SET src.n = 3",
        "UPDATE a JOIN plain ON a.n = plain.n SET a.n = 3, plain.n = 4",
        "DELETE FROM a WHERE id = (SELECT MAX(n) FROM src)",
        "DELETE a FROM a JOIN src ON a.n = src.n",
        "CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, n INT) SELECT n FROM src",
        "CREATE TABLE b2 (id INT AUTO_INCREMENT PRIMARY KEY, n INT) SELECT 1 AS n",
        "CREATE TABLE b3 (id INT AUTO_INCREMENT PRIMARY KEY, n INT) IGNORE SELECT n FROM src",
        "CREATE TABLE b4 (id INT AUTO_INCREMENT PRIMARY KEY, n INT) REPLACE SELECT n FROM src WHERE 0",
        "CREATE TABLE b5 (m INT) SELECT n FROM src",
        "SET sql_log_bin = 0",
        "INSERT INTO a (n) SELECT n FROM src",
        "CREATE TABLE b6 (id INT AUTO_INCREMENT PRIMARY KEY, n INT) SELECT n FROM src",
        "SET sql_log_bin = 1",
        "SELECT COUNT(*), SUM(n) FROM a",
    ])
    assert theirs[0][1][4] == (("Note", 1592, "Unsafe statement written to the binary log using statement format "
                                "since BINLOG_FORMAT = STATEMENT. Statements writing to a table with an auto-increment "
                                "column after selecting from another table are unsafe because the order in which rows "
                                "are retrieved determines what (if any) rows will be written. This order cannot be "
                                "predicted and may differ on master and the slave"),)


def test_update_reading_its_own_table_counts_no_unsafe_note_in_its_info(servers):
    """An UPDATE whose subquery reads its own table (MariaDB runs it as a multi-table UPDATE)
    says its info before it is binlogged: "Warnings" counts no note 1592, SHOW WARNINGS lists
    them; one whose subquery reads another table counts them."""
    theirs = compared(servers, "own", [
        "CREATE TABLE own.a (id INT AUTO_INCREMENT PRIMARY KEY, n INT)",
        "CREATE TABLE own.b (id INT PRIMARY KEY, n INT)",
        "INSERT INTO own.a (n) VALUES (1), (2), (3)",
        "INSERT INTO own.b VALUES (1, 1), (2, 2), (3, 3)",
    ], [
        "UPDATE a SET n = n + 1 WHERE id IN (SELECT id FROM a)",
        "UPDATE a SET n = (SELECT MAX(n) FROM a)",
        "UPDATE a SET n = n + 1 WHERE EXISTS (SELECT 1 FROM a AS x WHERE x.id = a.id + 1)",
        "UPDATE b SET n = n + 1 WHERE id IN (SELECT id FROM b) LIMIT 1",
        "UPDATE IGNORE b SET n = n + 1 WHERE id IN (SELECT id FROM b)",
        "UPDATE a SET n = n + 1 WHERE id IN (SELECT id FROM a) ORDER BY id LIMIT 2",
        "UPDATE a SET n = n + 1 WHERE id IN (SELECT id FROM b)",
        "UPDATE b SET n = n + 1 WHERE id IN (SELECT id FROM a) LIMIT 1",
        "SELECT * FROM a ORDER BY id",
    ])
    assert theirs[0][1][2:4] == (b"(Rows matched: 3  Changed: 3  Warnings: 0", 1)
    assert theirs[6][1][2:4] == (b"(Rows matched: 3  Changed: 3  Warnings: 1", 1)


def test_ignored_updates_and_limits_replay_on_replicas(tmp_path):
    """An ON DUPLICATE KEY UPDATE left out under IGNORE, an UPDATE ... LIMIT taking the rows in
    the scan's order: a MariaDB replica and our slave hold the master's rows, as the MariaDB they
    are compared with does."""
    setup = ["CREATE DATABASE rep", "CREATE TABLE rep.t (id INT PRIMARY KEY, u INT UNIQUE, n INT)",
             "INSERT INTO rep.t VALUES (1, 10, 1), (2, 20, 2), (4, 40, 4)"]
    writes = ["INSERT IGNORE INTO rep.t VALUES (1, 11, 1), (3, 30, 3) ON DUPLICATE KEY UPDATE u = 20",
              "INSERT IGNORE INTO rep.t VALUES (3, 31, 3), (1, 11, 1) ON DUPLICATE KEY UPDATE u = u + 10",
              "UPDATE IGNORE rep.t SET u = 99 LIMIT 2", "UPDATE rep.t SET n = n + 10 LIMIT 3"]
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in setup + writes:
                server.query(sql)
        assert_same_rows(reference, ours, replicas, "SELECT * FROM rep.t ORDER BY id")


ACCOUNTS = [
    "CREATE USER plain@'%' IDENTIFIED BY 'pw'",
    "CREATE USER badm@'%' IDENTIFIED BY 'pw'",
    "GRANT BINLOG ADMIN ON *.* TO badm@'%'",
]
BINLOG_FORMAT_STEPS = [
    ("root", "SELECT @@binlog_format, @@session.binlog_format, @@global.binlog_format"),
    ("root", "SET SESSION binlog_format = 'STATEMENT'"),
    ("root", "SET SESSION binlog_format = 'NOPE'"),
    ("root", "SET binlog_format = DEFAULT"),
    ("root", "SET @@binlog_format = STATEMENT"),
    ("root", "SET GLOBAL binlog_format = 'STATEMENT'"),
    ("root", "BEGIN"),
    ("root", "SET SESSION binlog_format = 'STATEMENT'"),
    ("root", "COMMIT"),
    ("root", "SET STATEMENT binlog_format = 'STATEMENT' FOR SELECT 1"),
    ("plain", "SET SESSION binlog_format = 'STATEMENT'"),
    ("plain", "SET SESSION binlog_format = 'NOPE'"),
    ("plain", "SET binlog_format = DEFAULT"),
    ("plain", "SET STATEMENT binlog_format = 'STATEMENT' FOR SELECT 1"),
    ("plain", "SET GLOBAL binlog_format = 'STATEMENT'"),
    ("badm", "SET SESSION binlog_format = 'STATEMENT'"),
    ("badm", "SET GLOBAL binlog_format = 'STATEMENT'"),
    ("badm", "SELECT @@binlog_format"),
]
# what MariaDB takes and this binlog cannot honour: it writes statements only
ROW_OR_MIXED = [
    ("badm", "SET SESSION binlog_format = 'ROW'"),
    ("badm", "SET binlog_format = 'MIXED'"),
    ("root", "SET GLOBAL binlog_format = 'ROW'"),
    ("root", "SET STATEMENT binlog_format = 'ROW' FOR SELECT 1"),
    ("badm", "SELECT @@binlog_format, @@global.binlog_format"),
]


def test_set_binlog_format(servers):
    reference, ours = servers
    passwords = {"plain": "pw", "badm": "pw"}
    theirs = replay(reference, ACCOUNTS, BINLOG_FORMAT_STEPS, passwords)
    mine = replay(ours, ACCOUNTS, BINLOG_FORMAT_STEPS, passwords)
    assert theirs[7] == ("error", 1679, "HY000", "Cannot modify @@session.binlog_format inside a transaction")
    assert theirs[10][1] == 1227
    assert mine == theirs, differences(BINLOG_FORMAT_STEPS, theirs, mine)
    refused = ("error", 1235, "42000", "This version of MariaDB doesn't yet support 'binlog_format ROW'")
    assert replay(ours, [], ROW_OR_MIXED, passwords) == [
        refused, ("error", 1235, "42000", "This version of MariaDB doesn't yet support 'binlog_format MIXED'"),
        refused, refused, ("rows", (("STATEMENT", "STATEMENT"),))]


def test_a_statement_session_replays_as_a_statement_on_a_mariadb_replica(tmp_path):
    """pt-table-checksum's way: a session that asks for STATEMENT writes a checksum of the
    master's rows with REPLACE ... SELECT, and a replica runs the statement over its own rows,
    so a row changed on the replica alone shows as a different checksum there."""
    rows = "COUNT(*), BIT_XOR(CRC32(CONCAT(id, v))) FROM ck.t"
    checksum = f"SELECT {rows}"
    with reference_ours_and_replica(tmp_path) as (_, ours, replica):
        ours.query("CREATE DATABASE ck")
        ours.query("CREATE TABLE ck.t (id INT PRIMARY KEY, v VARCHAR(10))")
        ours.query("CREATE TABLE ck.sums (tbl VARCHAR(10) PRIMARY KEY, cnt INT, crc BIGINT UNSIGNED)")
        ours.query("INSERT INTO ck.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        wait_for(lambda: rows_or_none(replica, "SELECT COUNT(*) FROM ck.sums") == [(0,)], 60)
        wait_for(lambda: rows_or_none(replica, "SELECT COUNT(*) FROM ck.t") == [(3,)], 60)
        replica.query("UPDATE ck.t SET v = 'changed' WHERE id = 2")
        conn = ours.connect("ck")
        with conn.cursor() as cur:
            cur.execute("SET SESSION binlog_format = 'STATEMENT'")
            cur.execute(f"REPLACE INTO ck.sums (tbl, cnt, crc) SELECT 't', {rows}")
        conn.close()
        master_sum = ours.query("SELECT cnt, crc FROM ck.sums")
        assert [tuple(row) for row in master_sum] == [tuple(row) for row in ours.query(checksum)]
        want = [tuple(row) for row in replica.query(checksum)]
        assert want != [tuple(row) for row in master_sum]
        wait_for(lambda: rows_or_none(replica, "SELECT cnt, crc FROM ck.sums") == want, 60,
                 message=lambda: f"the replica's own checksum, {want}")


def test_ordered_updates_replay_on_replicas(tmp_path):
    """UPDATE / DELETE ... ORDER BY written to the binlog as statements: a MariaDB replica and
    our slave run them in the same order and hold the master's rows, as the MariaDB they are
    compared with does."""
    setup = ["CREATE DATABASE ord", "CREATE TABLE ord.t (id INT PRIMARY KEY, n INT, k INT UNIQUE)",
             "INSERT INTO ord.t VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3), (4, 40, 4)"]
    writes = ["UPDATE ord.t SET id = id + 1 ORDER BY id DESC", "UPDATE ord.t SET k = k + 10 ORDER BY k DESC LIMIT 2",
              "UPDATE ord.t SET k = k + 1 WHERE id < 4 ORDER BY k DESC", "DELETE FROM ord.t WHERE n > 30 ORDER BY n"]
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in setup + writes:
                server.query(sql)
        assert reference.query("SELECT * FROM ord.t ORDER BY id") == [(2, 10, 2), (3, 20, 3), (4, 30, 13)]
        assert_same_rows(reference, ours, replicas, "SELECT * FROM ord.t ORDER BY id")
