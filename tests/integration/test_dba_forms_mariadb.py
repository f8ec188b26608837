"""Forms a DBA or an ORM types answer as MariaDB 10.11's: each statement runs on a stock MariaDB
and on our master and the answers (rows, each column's name, type code and decimals, the
statement's warnings; or the error) are compared. COUNT(DISTINCT a, b ...) of several
expressions (a row with a NULL among them not counted; strings by the collation, a _bin one by
its bytes), `a SOUNDS LIKE b`, SOUNDEX of non-ASCII text (every character from U+00C0 on a
letter), the bit operators' type beside NULL (BIGINT UNSIGNED). COMMIT / ROLLBACK [WORK]
[AND [NO] CHAIN] [[NO] RELEASE]: AND CHAIN begins the next transaction in the same access mode,
RELEASE closes the connection after the OK, the forms MariaDB's grammar refuses 1064; the rows
a MariaDB replica and our slave of our master hold after them are MariaDB's; completion_type
(NO_CHAIN / CHAIN / RELEASE, by name or number) does the same for a COMMIT / ROLLBACK that says
neither, AND NO CHAIN and NO RELEASE override it, a chained transaction keeps the access mode.
SIGNAL / RESIGNAL
outside a stored program: the error (its MYSQL_ERRNO, SQLSTATE and MESSAGE_TEXT) or, for class
'01', the OK and its warning; every refusal (1064, 1054, 1231, 1319, 1407, 1641, 1645, 1648) and
SHOW WARNINGS after each, with and without strict mode. HELP: MariaDB's forms 1064 as there;
a topic, known or not, 1235 (MariaDB answers from its help tables, which decide even what an
unknown topic gets).

Left out, where the two still differ (MariaDB's answer first): SET completion_type = RELEASE
with the reserved word unquoted (1064; accepted here); SOUNDEX of a binary string (a
VARBINARY column's, x'C3A9') reads its bytes, ASCII letters only, and is a binary string (here
its text's, 'é000')."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    both_answer,
    both_described,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b INT, s VARCHAR(20), k VARCHAR(20) COLLATE utf8mb4_bin,"
    " dc DECIMAL(6,2), y VARBINARY(20)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 1, 2, 'Robert', 'Robert', 1.5, 'Robert'), (2, NULL, 3, 'Rupert', 'rupert', -2.5, 'Rupert'),"
    " (3, 3, NULL, 'hello', 'hello', NULL, NULL), (4, 0, 0, '', '', 0, ''), (5, -1, 7, 'Tymczak', 'Tymczak', 3.49, 'Tymczak'),"
    " (6, 1, 2, 'Robert', 'robert', 1.5, 'é'), (7, 1, 2, 'ROBERT ', 'Robert', 1.50, 'x')",
]

QUERIES = [
    "SELECT COUNT(DISTINCT a, b), COUNT(DISTINCT s, dc), COUNT(DISTINCT a, b, s) c FROM t",
    "SELECT COUNT(DISTINCT k, 1), COUNT(DISTINCT s, 1), COUNT(DISTINCT BINARY s, 1), COUNT(DISTINCT UPPER(k), a) FROM t",
    "SELECT s, COUNT(DISTINCT a, b) FROM t GROUP BY s ORDER BY s",
    "SELECT COUNT(DISTINCT a, b) FROM t WHERE id > 100",
    "SELECT COUNT(DISTINCT (a), (b + 1)) FROM t HAVING COUNT(DISTINCT a, b) > 1",
    "SELECT COUNT(DISTINCT a, a), COUNT(DISTINCT id, NULL), (SELECT COUNT(DISTINCT a, b) FROM t) FROM t LIMIT 1",
    "SELECT COUNT(DISTINCT a, ) FROM t",
    "SELECT COUNT(DISTINCT a, b) OVER () FROM t",
    "SELECT 'Robert' SOUNDS LIKE 'Rupert', s SOUNDS LIKE 'Robert', k SOUNDS LIKE 'ROBERT' FROM t ORDER BY id",
    "SELECT id FROM t WHERE s SOUNDS LIKE 'Rupert' AND id > 1 OR id = 4 ORDER BY id",
    "SELECT NULL SOUNDS LIKE 'a', 'a' SOUNDS LIKE NULL, NOT 'a' SOUNDS LIKE 'b', 'é' SOUNDS LIKE 'É', 12 SOUNDS LIKE 'x'",
    "SELECT id, CONCAT(s, 'x') SOUNDS LIKE 'Robertx', s SOUNDS LIKE CONCAT('Rob', 'ert') = 1 FROM t ORDER BY id",
    "SELECT s SOUNDS LIKE 'Robert' AS m, COUNT(*) FROM t GROUP BY m ORDER BY m",
    "UPDATE t SET b = 99 WHERE s SOUNDS LIKE 'rabbit'",
    "SELECT id, b FROM t ORDER BY id",
    "SELECT 'a' SOUNDS 'b'",
    "SELECT SOUNDEX('Ångström'), SOUNDEX('straße'), SOUNDEX('Ŝĉ'), SOUNDEX('日本語'), SOUNDEX('o''brien'),"
    " SOUNDEX('  x y'), SOUNDEX('AEIOUY'), SOUNDEX('HhWw'), SOUNDEX(12.5), SOUNDEX('a×b'), SOUNDEX('¿qué?')",
    "SELECT SOUNDEX('«Zürich»'), SOUNDEX('a。b'), SOUNDEX('ÿz'), SOUNDEX('Ωmega'), SOUNDEX('a¡b¿c'), SOUNDEX('x😀abc') e",
    "SELECT 5 | NULL, 5 & NULL, 5 << NULL, NULL >> 1, NULL ^ NULL, 5 ^ NULL, NULL XOR NULL",
]


def test_forms_answer_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_described(reference, master, SETUP, QUERIES)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []
    assert ours == theirs


COMPLETION_SETUP = ["CREATE DATABASE d", "CREATE TABLE d.w (id INT PRIMARY KEY, v INT)"]

COMPLETIONS = [
    "BEGIN", "INSERT INTO w VALUES (1, 1)", "COMMIT AND CHAIN", "SELECT @@in_transaction",
    "INSERT INTO w VALUES (2, 2)", "ROLLBACK AND CHAIN", "SELECT @@in_transaction",
    "INSERT INTO w VALUES (3, 3)", "COMMIT WORK AND NO CHAIN NO RELEASE", "SELECT @@in_transaction",
    "START TRANSACTION READ ONLY", "COMMIT AND CHAIN", "INSERT INTO w VALUES (4, 4)", "ROLLBACK",
    "COMMIT WORK AND CHAIN NO RELEASE", "SELECT @@in_transaction", "ROLLBACK WORK AND NO CHAIN NO RELEASE",
    "COMMIT AND CHAIN RELEASE", "COMMIT NO CHAIN", "COMMIT RELEASE NO RELEASE", "COMMIT AND", "ROLLBACK WORK NO RELEASE",
    "BEGIN", "INSERT INTO w VALUES (5, 5)", "COMMIT RELEASE", "SELECT 1",
]

ROLLBACK_RELEASE = ["BEGIN", "INSERT INTO w VALUES (6, 6)", "ROLLBACK RELEASE", "SELECT 1"]


def test_commit_and_rollback_chain_and_release_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for setup, statements in ((COMPLETION_SETUP, COMPLETIONS), ([], ROLLBACK_RELEASE)):
            theirs, mine = both_answer(reference, ours, setup, statements)
            # the statement after RELEASE meets a closed connection: 2013 (whether the client
            # reads the server's FIN or the reset its command met is the network's timing)
            assert [(sql, a[:2]) for sql, a in mine[-1:]] == [(statements[-1], ("error", 2013))]
            assert [(sql, a[:2]) for sql, a in theirs[-1:]] == [(statements[-1], ("error", 2013))]
            assert mine[:-1] == theirs[:-1]
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.w ORDER BY id")


COMPLETION_TYPES = [
    "SET completion_type = CHAIN", "SELECT @@completion_type, @@global.completion_type",
    "BEGIN", "INSERT INTO w VALUES (1, 1)", "COMMIT", "SELECT @@in_transaction",
    "INSERT INTO w VALUES (2, 2)", "ROLLBACK WORK", "SELECT @@in_transaction",
    "INSERT INTO w VALUES (3, 3)", "COMMIT AND NO CHAIN", "SELECT @@in_transaction",
    "SET completion_type = 1", "START TRANSACTION READ ONLY", "COMMIT", "INSERT INTO w VALUES (4, 4)",
    "ROLLBACK AND NO CHAIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "BEGIN", "COMMIT",
    "SELECT @@in_transaction", "INSERT INTO w VALUES (5, 5)", "COMMIT AND NO CHAIN",
    "SET completion_type = 'no_chain'", "SELECT @@completion_type", "SET completion_type = 3",
    "SET completion_type = 'bogus'", "SET completion_type = NULL", "SET completion_type = 2",
    "SELECT @@completion_type", "SET completion_type = DEFAULT", "SELECT @@completion_type",
    "SET completion_type = 'RELEASE'", "BEGIN", "INSERT INTO w VALUES (6, 6)", "COMMIT NO RELEASE",
    "SELECT @@in_transaction", "SET autocommit = 0", "INSERT INTO w VALUES (7, 7)", "COMMIT", "SELECT 1",
]

ROLLBACK_TYPE_RELEASE = ["SET completion_type = 2", "BEGIN", "INSERT INTO w VALUES (8, 8)", "ROLLBACK", "SELECT 1"]


def test_completion_type_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for setup, statements in ((COMPLETION_SETUP, COMPLETION_TYPES), ([], ROLLBACK_TYPE_RELEASE)):
            theirs, mine = both_answer(reference, ours, setup, statements)
            assert [(sql, a[:2]) for sql, a in theirs[-1:]] == [(statements[-1], ("error", 2013))]
            assert [(sql, a[:2]) for sql, a in mine[-1:]] == [(statements[-1], ("error", 2013))]
            assert mine[:-1] == theirs[:-1]
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.w ORDER BY id")


LONG = "b" * 128 + "c"

SIGNALS = [
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x', MYSQL_ERRNO = 1234",
    "SIGNAL SQLSTATE '45000'",
    "SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = 'w'",
    "SIGNAL SQLSTATE '02000'",
    "SIGNAL SQLSTATE '00000'",
    "SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'hy'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x', MESSAGE_TEXT = 'y'",
    "SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = 'c', SUBCLASS_ORIGIN = 'd', CONSTRAINT_CATALOG='a', CONSTRAINT_SCHEMA='b', CONSTRAINT_NAME='c', CATALOG_NAME='e', SCHEMA_NAME='f', TABLE_NAME='g', COLUMN_NAME='h', CURSOR_NAME='i'",
    "SIGNAL SQLSTATE VALUE '45001' SET MYSQL_ERRNO = 0",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65535",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65536",
    "SIGNAL SQLSTATE '4500'",
    'SIGNAL foo',
    'RESIGNAL',
    "RESIGNAL SQLSTATE '45000'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 1",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = NULL",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = CONCAT('a','b')",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @v",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = foo",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = -1",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 1.5",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = TRUE",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a' 'b'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = x'41'",
    "SIGNAL SQLSTATE '45000' garbage",
    'SIGNAL SQLSTATE 45000',
    "SIGNAL SQLSTATE '4500a'",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = '1234'",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1.5",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = -1",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 'abc'",
    "SIGNAL SQLSTATE '01234' SET MYSQL_ERRNO = 1000, MESSAGE_TEXT = 'careful'",
    'SHOW WARNINGS',
    "SIGNAL SQLSTATE '02123' SET MESSAGE_TEXT = 'nf'",
    'SHOW WARNINGS',
    "SIGNAL SQLSTATE '01000'",
    'SHOW WARNINGS',
    "RESIGNAL SET MESSAGE_TEXT = 'x'",
    "RESIGNAL SQLSTATE '00000'",
    "signal sqlstate '45000' set message_text = 'low', mysql_errno = 5",
    "SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = NULL",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'é😀'",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1062",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65534",
    'SIGNAL',
    'SIGNAL SQLSTATE',
    "SIGNAL SQLSTATE '45000' SET",
    "SIGNAL SQLSTATE '45000' SET NOSUCH = 1",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT 'x'",
    "SIGNAL SQLSTATE 'AB000'",
    "SIGNAL SQLSTATE '00001'",
    "SIGNAL SQLSTATE '45000'",
    'SHOW WARNINGS',
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = ?",
    "SET @e = 'from var'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @e",
    'SET @n = 1999',
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = @n",
    'BEGIN',
    'INSERT INTO t (id) VALUES (30)',
    "SIGNAL SQLSTATE '45000'",
    'SELECT @@in_transaction',
    'ROLLBACK',
    f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{LONG}'",
    'SHOW WARNINGS',
    f"SIGNAL SQLSTATE '01000' SET MESSAGE_TEXT = '{LONG}'",
    'SHOW WARNINGS',
    "SET sql_mode = ''",
    f"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '{LONG}'",
    f"SIGNAL SQLSTATE '45000' SET CLASS_ORIGIN = '{LONG}'",
    'SHOW WARNINGS',
    'SET sql_mode = DEFAULT',
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = NULL",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 0x10",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 1e3",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = _utf8mb4'x'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = N'x'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = DATE'2020-01-01'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = FALSE",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = @nosuch",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 99999999999999999999",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 65534.5",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 0.4",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = ' 12x'",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = '1e3'",
    "SIGNAL SQLSTATE ''",
    "SIGNAL SQLSTATE '450000'",
    'SIGNAL SQLSTATE VALUE',
    'SIGNAL `foo`',
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a', MYSQL_ERRNO = 1, MESSAGE_TEXT = 'b'",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a' MYSQL_ERRNO = 1",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = NULL, MYSQL_ERRNO = 'x'",
    "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 'x', MESSAGE_TEXT = NULL",
    "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x', MESSAGE_TEXT = NULL",
    "SIGNAL SQLSTATE '45000' SET `MESSAGE_TEXT` = 'x'",
]


def test_signal_and_resignal_answer_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, SIGNALS)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


HELPS = ["HELP", "HELP 'a' 'b'", "HELP 1", "HELP 'contents'", "HELP contents", "HELP 'nosuchtopic'"]


def test_help_is_1235_where_mariadb_answers_from_its_help_tables(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, HELPS)
    for (sql, their), (_, our) in zip(theirs, ours, strict=True):
        if their[0] == "error":
            assert our == their, sql
        else:
            assert their[0] == "rows" and our[:2] == ("error", 1235), sql
