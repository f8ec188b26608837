"""CHECKSUM TABLE against a live MariaDB 10.11: the number MariaDB computes for an InnoDB table
(`handler::calculate_checksum`: a CRC32 per row over the record's null bytes and its columns as
the record holds them, summed) for the same rows under the same column types, over integers,
DECIMALs, FLOAT/DOUBLE, every temporal type with fractions, ENUM, SET, BIT, BLOB, JSON, CHAR /
VARCHAR / TEXT in utf8mb4, utf8mb3, latin1 and binary, NULLs and empty strings, packed and unpacked
records (with or without a VARCHAR; ROW_FORMAT=DYNAMIC), an empty table (0), QUICK (NULL), a
missing table or a view (NULL and the error as a warning), several tables; the answer's column
types; and a MariaDB replica of our master computing the same numbers as our master."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours, reference_ours_and_replica

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.i1 (a INT NOT NULL)",
    "INSERT INTO d.i1 VALUES (1), (-5), (2147483647)",
    "CREATE TABLE d.i2 (a TINYINT, b SMALLINT UNSIGNED, c MEDIUMINT, d BIGINT, e BIGINT UNSIGNED, f INT, g BOOL,"
    " h YEAR, i BIT(12), j BIT(1))",
    "INSERT INTO d.i2 VALUES (1, 2, 3, 4, 5, 6, TRUE, 2024, b'100000000001', b'1'),"
    " (-1, 65535, -8388608, -9223372036854775808, 18446744073709551615, NULL, FALSE, 1901, b'0', b'0'),"
    " (NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2155, NULL, NULL)",
    "CREATE TABLE d.v1 (a VARCHAR(10) NOT NULL)",
    "INSERT INTO d.v1 VALUES ('ab'), (''), ('héllo€')",
    "CREATE TABLE d.v2 (id INT, a VARCHAR(10), b TEXT, c CHAR(4), d CHAR(3) NOT NULL, e TINYTEXT)",
    "INSERT INTO d.v2 VALUES (1, 'x', 'yy', 'zz', 'q', 't'), (NULL, NULL, NULL, NULL, '', NULL), (3, '', '', '', 'ü', '')",
    "CREATE TABLE d.c1 (a CHAR(5), b CHAR(2) CHARACTER SET latin1, c VARCHAR(5) CHARACTER SET latin1,"
    " d TEXT CHARACTER SET latin1, e CHAR(3) CHARACTER SET utf8mb3, f CHAR(2) CHARACTER SET ascii,"
    " g CHAR(3) CHARACTER SET binary, h CHAR(2) COLLATE latin1_bin)",
    "INSERT INTO d.c1 VALUES ('é', 'é', 'é€', 'ñ', 'ab', 'x', 'y', 'ß'), (NULL, 'a', NULL, '', '', '', '', NULL)",
    "CREATE TABLE d.c2 (a CHAR(5), b VARCHAR(3), n INT) DEFAULT CHARSET=latin1",
    "INSERT INTO d.c2 VALUES ('äb', 'ö', NULL)",
    "ALTER TABLE d.c2 ADD COLUMN u CHAR(2) CHARACTER SET utf8mb4 DEFAULT 'é'",
    "CREATE TABLE d.c3 (a CHAR(3), b VARCHAR(3))",
    "INSERT INTO d.c3 VALUES ('é', 'ñ')",
    "ALTER TABLE d.c3 CONVERT TO CHARACTER SET latin1",
    "CREATE TABLE d.n1 (a DECIMAL(10,2), b DECIMAL(5,0) NOT NULL, c DECIMAL(20,10), d DECIMAL(30,15),"
    " e DECIMAL(3,3), f NUMERIC, g DECIMAL(65,30), h DECIMAL(18,9))",
    "INSERT INTO d.n1 VALUES (1.5, 7, 1234567890.0123456789, -123456789012345.123456789012345, 0.125, 42,"
    " 12345678901234567890123456789012345.123456789012345678901234567890, -123456789.123456789),"
    " (-0.01, -99999, -1.5, 0, -0.999, -1, 0, 0.000000001), (NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL)",
    "CREATE TABLE d.f1 (a FLOAT, b DOUBLE, c REAL, d FLOAT(30))",
    "INSERT INTO d.f1 VALUES (1.1, 2.2, -0.5, 2.5), (-1e10, 1e-300, 0, NULL)",
    "CREATE TABLE d.t1 (a DATE, b DATETIME, c DATETIME(6), d TIME, e TIME(3), f DATETIME(2), g TIME(6),"
    " h TIME(1), i DATETIME(1), j TIME(5))",
    "INSERT INTO d.t1 VALUES ('2024-02-29', '2024-01-02 03:04:05', '1999-12-31 23:59:59.123456', '-838:59:59',"
    " '-01:02:03.456', '2000-01-01 00:00:00.5', '-00:00:01.000001', '10:00:00.1', '2020-05-05 01:02:03.4',"
    " '-01:00:00.00001'),"
    " ('0000-00-00', '0000-00-00 00:00:00', NULL, '00:00:00', '12:00:00', NULL, '838:59:59', '-00:00:00.1',"
    " '9999-12-31 23:59:59.9', '00:00:00'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "CREATE TABLE d.ts (a TIMESTAMP NULL, b TIMESTAMP(6) NULL, c TIMESTAMP(3) NULL)",
    "INSERT INTO d.ts VALUES ('2024-06-01 12:00:00', '2038-01-19 03:14:07.999999', '1970-01-01 00:00:01.5'),"
    " (NULL, NULL, NULL)",
    "CREATE TABLE d.es (a ENUM('x','y','z'), b SET('p','q','r','s','t','u','v','w','k'), c ENUM('A','b') NOT NULL,"
    " d SET('a','b','c','d','e','f','g','h','i','j','k','l','m','n','o','p','q'))",
    "INSERT INTO d.es VALUES ('y', 'p,r,k', 'b', 'a,q'), (NULL, '', 'a', 'b'), ('z', NULL, 'A', NULL)",
    "CREATE TABLE d.b1 (a BLOB, b VARBINARY(10), c BINARY(4), d MEDIUMBLOB, g JSON)",
    "INSERT INTO d.b1 VALUES (X'00ff', X'0102', X'61', X'DEADBEEF', '{\"a\": [1, 2]}'), (NULL, '', '', NULL, NULL)",
    "CREATE TABLE d.n9 (a INT, b INT, c INT, d INT, e INT, f INT, g INT, h INT, i INT NOT NULL)",
    "INSERT INTO d.n9 VALUES (1, NULL, 3, NULL, 5, NULL, 7, NULL, 9), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0)",
    "CREATE TABLE d.n8 (a INT, b INT, c INT, d INT, e INT, f INT, g INT, h INT, x VARCHAR(2))",
    "INSERT INTO d.n8 VALUES (1, NULL, 3, NULL, 5, NULL, 7, NULL, 'a'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "CREATE TABLE d.r1 (a INT NOT NULL) ROW_FORMAT=DYNAMIC",
    "INSERT INTO d.r1 VALUES (1)",
    "CREATE TABLE d.e0 (a INT, b VARCHAR(3))",
    "CREATE VIEW d.vv AS SELECT 1 AS one",
]

TABLES = ["i1", "i2", "v1", "v2", "c1", "c2", "c3", "n1", "f1", "t1", "ts", "es", "b1", "n9", "n8", "r1", "e0"]

QUERIES = [
    *(f"CHECKSUM TABLE {name}" for name in TABLES),
    "CHECKSUM TABLE i1 QUICK",
    "CHECKSUM TABLE i1, e0, nosuch, d.i2 EXTENDED",
    "SHOW WARNINGS",
    "CHECKSUM TABLES vv, information_schema.columns",
    "SHOW WARNINGS",
    "UPDATE v2 SET a = 'changed' WHERE id = 1",
    "CHECKSUM TABLE v2",
    "DELETE FROM v2",
    "CHECKSUM TABLE v2",
    "CHECKSUM TABLE i1 QUICK, e0",
]


def _columns(port: int) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d")
    try:
        with conn.cursor() as cur:
            cur.execute("CHECKSUM TABLE i1, nosuch")
            return [(f.name, f.type_code, f.flags & 1) for f in cur._result.fields]  # NOT_NULL_FLAG
    finally:
        conn.close()


def test_checksum_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        columns = (_columns(reference.port), _columns(master.port))
    # what the comparison stands on: MariaDB's own answers for a few of the cases
    assert ("CHECKSUM TABLE i1", ("rows", (("d.i1", 1373598315),))) in theirs
    assert ("CHECKSUM TABLE e0", ("rows", (("d.e0", 0),))) in theirs
    assert ("CHECKSUM TABLE i1 QUICK", ("rows", (("d.i1", None),))) in theirs
    assert ("SHOW WARNINGS", ("rows", (("Error", 1146, "Table 'd.nosuch' doesn't exist"),))) in theirs
    assert columns[0] == [("Table", 253, 0), ("Checksum", 8, 0)]
    assert ours == theirs
    assert columns[1] == columns[0]


def test_checksum_refused_rather_than_wrong(tmp_path):
    """A FLOAT(M,D) / DOUBLE(M,D) column: MariaDB stores its values rounded to D digits, ours keeps
    them as given, so no number could be MariaDB's: the statement is refused with 1235."""
    with mariadb_and_ours(tmp_path) as (_, master):
        master.query("CREATE DATABASE d")
        master.query("CREATE TABLE d.fm (a INT, b DOUBLE(10,2))")
        with pytest.raises(pymysql.MySQLError) as refused:
            master.query("CHECKSUM TABLE d.i1, d.fm")
        assert refused.value.args[0] == 1235
        assert "DOUBLE(M,D)" in refused.value.args[1]


def _checksums(server, tables: list[str]) -> list[tuple]:
    return server.query("CHECKSUM TABLE " + ", ".join(f"d.{name}" for name in tables))


def test_a_mariadb_replica_of_ours_checksums_the_same(tmp_path):
    with reference_ours_and_replica(tmp_path) as (_, ours, replica):
        for sql in SETUP:
            ours.query(sql)
        ours.query("INSERT INTO d.e0 VALUES (1, 'end')")  # the last write: the replica has caught up after it
        wait_for(lambda: _has_row(replica), 90, message="the replica's d.e0")
        mine = _checksums(ours, TABLES)
        assert [n for _, n in mine].count(0) == 0
        assert _checksums(replica, TABLES) == mine


def _has_row(replica) -> bool:
    try:
        return replica.query("SELECT COUNT(*) FROM d.e0") == [(1,)]
    except pymysql.MySQLError:
        return False
