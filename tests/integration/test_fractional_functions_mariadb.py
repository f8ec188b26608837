"""Temporal functions to the microsecond, against a live MariaDB 10.11: values and result
column types (type code and decimals) alike. UNIX_TIMESTAMP(x) of a time with a fraction (NOW(6),
a DATETIME(n) / TIMESTAMP(n) column, a string or a number with one) is a DECIMAL with the
time's digits (it was a BIGINT, the fraction dropped), UNIX_TIMESTAMP() alone the statement's
time (SET timestamp was ignored), TIME_TO_SEC likewise; FROM_UNIXTIME(n) and SEC_TO_TIME(n)
keep n's fraction and take its digits (they dropped it); TIMESTAMP(x, t) adds a time (1105
before); DATE_FORMAT / TIME_FORMAT have MariaDB's 0 decimals, TIME_FORMAT of a negative time a
leading sign (none before). DATE_ADD / + INTERVAL of a string
literal or a character column is MariaDB's CHAR whose text has the literal's (a column's 6) or
the interval's fraction digits ('2024-01-01' + INTERVAL 1.5 SECOND is '2024-01-01 00:00:01.5';
it was a VARCHAR with six; of a VARCHAR's '2024-01-01 10:00:00' plus a day '2024-01-02
10:00:00.000000', it had none), of a
DATETIME a DATETIME with a SECOND interval's digits (it dropped them). SYSDATE(n) is the clock's time
as the call runs (it was the statement's time: SET timestamp fixed it). A string written with
digits past the microsecond into a DATETIME / TIMESTAMP / TIME column, and a DATE's value with a
time of day, are stored cut with MariaDB's note 1265 (none before), and read by CAST or
UNIX_TIMESTAMP with its note 1292 (none before). LOAD DATA gives every row the
statement's one time for a DEFAULT CURRENT_TIMESTAMP(6) column (each row took its own), and a
MariaDB replica and our slave store the same.

Left out, where the two still differ: date arithmetic on any other string expression (MariaDB's
CHAR with six digits; ours a VARCHAR with the digits there are) and TIMESTAMPADD of a string, UNIX_TIMESTAMP of a TIME (MariaDB: today's), the 1292 warnings of an argument that is
no time or number; an UPDATE notes a cut value once (MariaDB: for each row it changes); a
DATETIME or TIME parameter of a prepared statement selected as it is (`SELECT ?`) comes back a
string (MariaDB: a DATETIME / TIME), as it is bound as a quoted literal."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    both_described,
    mariadb_and_ours,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a DATETIME(6), b DATETIME(3), c TIMESTAMP(2) NULL, tm TIME(6),"
    " d DATETIME, t3 TIME(3), s VARCHAR(30), n DECIMAL(12,2), f DOUBLE, i INT)",
    "INSERT INTO d.t VALUES (1, '2024-01-01 10:00:00.123456', '2024-01-01 10:00:00.123', '2024-01-01 10:00:00.12',"
    " '10:00:00.123456', '2024-01-01 10:00:00', '10:00:01.5', '2024-01-01 10:00:00.5', 1700000000.25,"
    " 1700000000.125, 1700000000),"
    " (2, '2024-01-01 10:00:00.5', '2024-01-01 10:00:00.5', '2024-01-01 10:00:00.5', '-01:00:00.5',"
    " '2024-01-01 10:00:01', '10:00:01', '3661.5', 3661.5, 3661.25, 3661),"
    " (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
]

QUERIES = [
    "SET TIMESTAMP=1700000002.5",
    "SELECT UNIX_TIMESTAMP()",
    "SELECT UNIX_TIMESTAMP(), UNIX_TIMESTAMP(NOW(6)), UNIX_TIMESTAMP(NOW(2)), UNIX_TIMESTAMP(NOW())",
    "SELECT UNIX_TIMESTAMP(a), UNIX_TIMESTAMP(b), UNIX_TIMESTAMP(c), UNIX_TIMESTAMP(d) FROM t ORDER BY id",
    "SELECT UNIX_TIMESTAMP('2024-01-01 10:00:00.25'), UNIX_TIMESTAMP('2024-01-01 10:00:00'),"
    " UNIX_TIMESTAMP('2024-01-01'), UNIX_TIMESTAMP(20240101100000.5), UNIX_TIMESTAMP(NULL)",
    "SELECT UNIX_TIMESTAMP('1960-01-01'), UNIX_TIMESTAMP('2038-01-19 03:14:08'), UNIX_TIMESTAMP('1970-01-01 00:00:00')",
    "SELECT UNIX_TIMESTAMP(s), UNIX_TIMESTAMP(d) FROM t WHERE id = 1",
    "SELECT UNIX_TIMESTAMP(a) + 1, UNIX_TIMESTAMP(a) > 1704103200.1 FROM t ORDER BY id",
    "SELECT FROM_UNIXTIME(1700000000.123456), FROM_UNIXTIME(1700000000.12), FROM_UNIXTIME(1700000000),"
    " FROM_UNIXTIME(1700000000.1234567), FROM_UNIXTIME(1.7e9), FROM_UNIXTIME('1700000000.5'), FROM_UNIXTIME(-1)",
    "SELECT FROM_UNIXTIME(n), FROM_UNIXTIME(f), FROM_UNIXTIME(i) FROM t ORDER BY id",
    "SELECT FROM_UNIXTIME(1700000000.5, '%Y %f'), FROM_UNIXTIME(2147483647)",
    "SELECT FROM_UNIXTIME(UNIX_TIMESTAMP(NOW(6))), SEC_TO_TIME(TIME_TO_SEC('10:00:00.25'))",
    "SELECT TIME_TO_SEC('10:00:00.5'), TIME_TO_SEC('10:00:00'), TIME_TO_SEC(tm), TIME_TO_SEC(t3) FROM t ORDER BY id",
    "SELECT SEC_TO_TIME(3661.5), SEC_TO_TIME(3661), SEC_TO_TIME(-3661.25), SEC_TO_TIME(3661.1234567),"
    " SEC_TO_TIME(1.5e0), SEC_TO_TIME('3661.5')",
    "SELECT SEC_TO_TIME(i), SEC_TO_TIME(n), SEC_TO_TIME(f), SEC_TO_TIME(s) FROM t WHERE id > 1 ORDER BY id",
    "SELECT TIMESTAMP('2024-01-01', '10:00:00.5'), TIMESTAMP('2024-01-01 01:00:00', '10:00:00'), TIMESTAMP(a, tm)"
    " FROM t ORDER BY id",
    "SELECT DATE_FORMAT(a, '%f %s'), DATE_FORMAT('2024-01-01 10:00:00.5', '%f'), TIME_FORMAT(t3, '%f'),"
    " TIME_FORMAT(tm, '%H:%i:%s.%f'), TIME_FORMAT('-00:00:01', 'x%T') FROM t ORDER BY id",
    # date arithmetic: on a string literal MariaDB's CHAR with the literal's or the interval's digits
    "SELECT DATE_ADD('2024-01-01', INTERVAL 1 DAY), DATE_ADD('2024-01-01', INTERVAL 1 HOUR),"
    " DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1 DAY), ADDDATE('2024-01-01 10:00:00.25', 1)",
    "SELECT DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1 SECOND), DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1.25 SECOND),"
    " DATE_SUB('2024-01-01', INTERVAL 1.123 SECOND), DATE_ADD('2024-01-01', INTERVAL '1.5' SECOND),"
    " DATE_ADD('2024-01-01', INTERVAL 1e0 SECOND), DATE_ADD(NULL, INTERVAL 1 DAY)",
    "SELECT DATE_ADD('2024-01-01', INTERVAL 1 MICROSECOND), DATE_ADD('2024-01-01 10:00:00', INTERVAL 0 MICROSECOND),"
    " '2024-01-01' + INTERVAL 1 MONTH, '2024-01-01 10:00:00' + INTERVAL 250000 MICROSECOND,"
    " DATE_SUB('2024-01-01 10:00:00', INTERVAL '1:1.000002' MINUTE_MICROSECOND)",
    "SELECT DATE_ADD('2024-01-01 10:00:00', INTERVAL 1.5 SECOND) = '2024-01-01 10:00:01.5'",
    "CREATE TABLE cs AS SELECT DATE_ADD('2024-01-01 10:00:00.5', INTERVAL 1 SECOND) AS x,"
    " DATE_ADD('2024-01-01', INTERVAL 1 DAY) AS y",
    "SELECT * FROM cs",
    "SELECT DATE_ADD(s, INTERVAL 1 DAY), s + INTERVAL 1 SECOND, t.s - INTERVAL 1 HOUR, DATE_ADD(s, INTERVAL 1.5 SECOND)"
    " FROM t WHERE id = 1",
    "CREATE TABLE vs (s VARCHAR(30))",
    "INSERT INTO vs VALUES ('2024-01-01 10:00:00'), ('2024-01-01')",
    "SELECT DATE_ADD(s, INTERVAL 1 DAY), vs.s + INTERVAL 1 SECOND FROM vs ORDER BY s",
    # (of a string expression likewise: six digits)
    "SELECT DATE_ADD(CONCAT(s, ''), INTERVAL 1 DAY), DATE_SUB(CONCAT('', s), INTERVAL 1 SECOND) FROM vs ORDER BY s",
    "SELECT COUNT(*) FROM vs WHERE DATE_ADD(s, INTERVAL 1 DAY) > '2024-01-02 10:00:00'",
    "UPDATE vs SET s = DATE_ADD(s, INTERVAL 1 DAY)",
    "SELECT s FROM vs ORDER BY s",
    # ... and on a DATETIME a DATETIME with the interval's digits
    "SELECT DATE_ADD(d, INTERVAL 1.5 SECOND), d + INTERVAL 1.25 SECOND, d - INTERVAL 1e0 SECOND,"
    " DATE_ADD(CAST('2024-01-01' AS DATE), INTERVAL 1.5 SECOND), DATE_ADD(a, INTERVAL 1 MICROSECOND) FROM t ORDER BY id",
    # a string past the microsecond read as a time: cut, with a note
    "SELECT CAST('2024-01-01 10:00:00.1234567' AS DATETIME(6)), CAST('10:00:00.1234567' AS TIME),"
    " CAST('2024-01-01 10:00:00.1234567' AS DATE), CAST('2024-01-01 10:00:00.123456' AS DATETIME(3))",
    "SELECT CAST('2024-01-01 10:00:00.1234567' AS TIME(2)), UNIX_TIMESTAMP('2024-01-01 10:00:00.1234567')",
    # SYSDATE: the clock as the call runs, whatever SET timestamp says
    "SELECT SYSDATE() > NOW(), SYSDATE(6) > NOW(6), SYSDATE(3) > '2024-01-01', LENGTH(SYSDATE(4)), SYSDATE(7)",
    "SET TIMESTAMP=DEFAULT",
    "SELECT SYSDATE(6) >= NOW(6), SYSDATE() >= NOW()",
    # a time written past the microsecond, a DATE's value with a time of day: stored cut, noted
    "CREATE TABLE w (a DATETIME(6), b DATETIME(3), c TIME(3), e TIMESTAMP(6) NULL, d DATE)",
    "INSERT INTO w VALUES ('2024-01-01 10:00:00.1234567', '2024-01-01 10:00:00.1234567', '10:00:00.1239999',"
    " '2024-01-01 10:00:00.1234567', '2024-01-01 10:00:00')",
    "INSERT INTO w (b, c, d) VALUES ('2024-01-01 10:00:00.1239', '10:00:00.12345678', '2024-01-01 00:00:00.5'),"
    " (20240101100000.1234567, '10:00', 20240101101010)",
    "INSERT IGNORE INTO w (a, d) VALUES ('2024-01-01 10:00:00.9999999', '2024-01-01 00:00:00')",
    "SELECT * FROM w",
]


# a string literal that is no time: NULL, of six fraction digits (MariaDB's 1292 warnings for it
# are left out: only the rows and the columns are compared)
NO_TIME = [
    "SELECT TIME('abc'), TIMESTAMP('abc'), UNIX_TIMESTAMP('abc'), DATE_ADD('x', INTERVAL 1 DAY),"
    " TIMEDIFF('abc', '10:00:00'), TIME_TO_SEC('abc'), TIME(''), UNIX_TIMESTAMP('')",
]


def test_fractional_temporal_functions_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_described(reference, master, SETUP, QUERIES + NO_TIME)
        theirs[-1], ours[-1] = theirs[-1][:3], ours[-1][:3]
        assert theirs[2][1] == ((1700000002, 1700000002.5, 1700000002.5, 1700000002),)
        assert [q for q, t, o in zip(QUERIES + NO_TIME, theirs, ours, strict=True) if t != o] == []


def _load(port: int, path, timestamp: str | None = None) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d", autocommit=True, local_infile=True)
    try:
        with conn.cursor() as cur:
            if timestamp is not None:
                cur.execute(f"SET TIMESTAMP={timestamp}")
            cur.execute(f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE f FIELDS TERMINATED BY ',' (id, n)")
    finally:
        conn.close()


LOADED = ("CREATE TABLE d.f (id INT PRIMARY KEY, n INT, a DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6),"
          " b TIMESTAMP(3) NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3))")
SUMMARY = "SELECT COUNT(*), COUNT(DISTINCT a), COUNT(DISTINCT b), MIN(a), MIN(b) FROM d.f"


def test_load_data_gives_every_row_the_statements_time(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("".join(f"{k},{k}\n" for k in range(1, 301)))
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            server.query("CREATE DATABASE d")
            server.query(LOADED)
            _load(server.port, path, "1700000000.123456")
        assert ours.query(SUMMARY) == reference.query(SUMMARY)
        ours.query("DELETE FROM d.f")
        _load(ours.port, path)  # the clock's time, read once
        count, times, stamps, _, _ = ours.query(SUMMARY)[0]
        assert (count, times, stamps) == (300, 1, 1)
        want = ours.query("SELECT * FROM d.f ORDER BY id")
        for replica in replicas:
            wait_for(lambda r=replica: rows_or_none(r, "SELECT * FROM d.f ORDER BY id") == want, 90,
                     message=f"d.f on {replica}")
