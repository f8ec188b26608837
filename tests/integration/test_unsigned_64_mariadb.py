"""64-bit unsigned values against a live MariaDB 10.11: BIGINT UNSIGNED and BIT(M) columns with
values at 2^63-1, 2^63, 2^63+1 and 2^64-1, which SQLite's signed integers cannot hold (the columns
keep their digits: `catalog.Column.unsigned_64`). Every function and operator that reads an
integer reads them as the numbers they are (HEX, BIN, OCT, CONV, & | ^ ~ << >>, BIT_COUNT,
arithmetic, comparisons, ORDER BY, aggregates, CAST, CHECKSUM TABLE), BIT stores what MariaDB's
Field_bit stores (numbers, strings and X'..' / B'..' literals as big-endian bytes, 1406 past M
bits, IGNORE's maximum with 1264), both protocols send the values as MariaDB does (a BIT
column's as its bytes, MAX(b) or GREATEST(b, c) as its digits), and replicas
of our master (ours and MariaDB) replaying the statements hold the same values."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    both_answer,
    mariadb_and_ours,
    prepared_answers,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.u (id INT PRIMARY KEY, x BIGINT UNSIGNED)",
    "INSERT INTO d.u VALUES (1, 18446744073709551615), (2, 9223372036854775808), (3, 9223372036854775807),"
    " (4, 9223372036854775809), (5, 5), (6, NULL)",
    "CREATE TABLE d.b (id INT PRIMARY KEY, x BIT(64), y BIT(8))",
    "CREATE TABLE d.i (id INT PRIMARY KEY, s BIGINT, t INT)",
    "INSERT INTO d.i VALUES (1, -1, -2), (2, 4611686018427387904, 3)",
]

UNSIGNED_QUERIES = [
    "SELECT id, x, HEX(x), BIN(x), OCT(x), CONV(x, 10, 16), BIT_COUNT(x) FROM u ORDER BY id",
    "SELECT id, x & 1, x | 1, x ^ 1, ~x, x << 1, x >> 1, x >> 63, 1 << x, x & x FROM u ORDER BY id",
    "SELECT id, x + 0, x - 1, x * 1, x / 2, x DIV 2, x MOD 7, (x >> 1) + 1 FROM u ORDER BY id",
    "SELECT id FROM u WHERE x = 18446744073709551615",
    "SELECT id FROM u WHERE x > 9223372036854775807 ORDER BY id",
    "SELECT id FROM u WHERE x < 9223372036854775808 ORDER BY id",
    "SELECT id FROM u WHERE x IN (9223372036854775808, 5) ORDER BY id",
    "SELECT id FROM u WHERE x BETWEEN 9223372036854775807 AND 9223372036854775809 ORDER BY id",
    "SELECT id FROM u WHERE x & 1 = 1 ORDER BY id",
    "SELECT id FROM u ORDER BY x, id",
    "SELECT id FROM u ORDER BY x DESC, id",
    "SELECT id FROM u ORDER BY x >> 1, id",
    "SELECT MIN(x), MAX(x), SUM(x), AVG(x), BIT_OR(x), BIT_AND(x), BIT_XOR(x) FROM u",
    "SELECT GREATEST(x, 1), LEAST(x, 1) FROM u ORDER BY id",
    "SELECT CAST(x AS SIGNED), CAST(x AS UNSIGNED), CAST(x AS CHAR), CAST(x AS DECIMAL(25,0)) FROM u ORDER BY id",
    "SELECT a.id, b.id FROM u a JOIN u b ON a.x < b.x ORDER BY a.id, b.id",
    "SELECT BIN(9223372036854775808), OCT(18446744073709551615), 18446744073709551615 >> 1",
    "CHECKSUM TABLE u",
    "SELECT 1 << 63, -1 | 0, -1 >> 1, -1 & 5, 4611686018427387904 << 1, -8 >> 1, 1 << -1",
    "SELECT id, s | 0, s >> 1, s << 1, t & 1, t | 0, ~t FROM i ORDER BY id",
    "SELECT id FROM i WHERE s | 0 > 9223372036854775807",
    "SELECT 9223372036854775808 & 9223372036854775809, b'1000000000000000000000000000000000000000000000000000000000000001' + 0",
]

BIT_STATEMENTS = [
    "INSERT INTO b VALUES (1, 5, 1)",
    "INSERT INTO b VALUES (3, 9223372036854775808, 0)",
    "INSERT INTO b VALUES (4, 18446744073709551615, 1)",
    "INSERT INTO b VALUES (5, b'1000000000000000000000000000000000000000000000000000000000000000', 2)",
    "INSERT INTO b VALUES (6, x'FFFFFFFFFFFFFFFF', 3)",
    "INSERT INTO b VALUES (7, 256, 256)",
    "INSERT INTO b VALUES (8, 1, -1)",
    "INSERT INTO b VALUES (9, 1, 'a')",
    "INSERT INTO b VALUES (10, 'ab', x'00FF')",
    "INSERT INTO b VALUES (11, x'00000000000000000001', b'0000000011111111')",
    "INSERT INTO b VALUES (12, 0x0102, 0x0001)",
    "INSERT INTO b VALUES (13, x'010000000000000000', 0)",
    "INSERT INTO b VALUES (14, 1, 'ab')",
    "INSERT INTO b VALUES (15, 18446744073709551616, 0)",
    "INSERT INTO b VALUES (16, 1.5, 2.5)",
    "INSERT INTO b VALUES (17, -1, 0)",
    "INSERT INTO b VALUES (18, -1.5, 0)",
    "INSERT INTO b VALUES (19, 1e19, x'')",
    "INSERT INTO b VALUES (25, '9223372036854775808', 0)",
    "INSERT INTO b VALUES (26, '12345678', '1')",
    "INSERT IGNORE INTO b VALUES (20, 1, 256)",
    "INSERT IGNORE INTO b VALUES (21, 1, -1)",
    "INSERT IGNORE INTO b VALUES (22, 1, 'ab')",
    "INSERT IGNORE INTO b VALUES (23, x'010000000000000000', 0)",
    "INSERT IGNORE INTO b VALUES (24, 18446744073709551616, -5)",
    "SHOW WARNINGS",
    "UPDATE b SET x = x + 1, y = y + 1 WHERE id = 3",
    "UPDATE b SET y = y + 1 WHERE id = 20",
    "SELECT id, x, y FROM b ORDER BY id",
    "SELECT id, HEX(x), BIN(x), x + 0, CAST(x AS UNSIGNED), HEX(y), y + 0, BIT_COUNT(x), x & 1, x >> 1 FROM b"
    " ORDER BY id",
    "SELECT id FROM b WHERE x = 18446744073709551615 ORDER BY id",
    "SELECT id FROM b WHERE x > 9223372036854775807 ORDER BY id",
    "SELECT id FROM b WHERE y = 255 ORDER BY id",
    "SELECT id FROM b ORDER BY x, id",
    "SELECT SUM(x), SUM(y) FROM b",
    "SELECT MAX(x), MIN(y), GREATEST(x, y), IFNULL(x, y) FROM b WHERE id IN (1, 4)",
    "SELECT m FROM (SELECT MAX(x) m FROM b) t",
    "CHECKSUM TABLE b",
]


def test_bigint_unsigned_read_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, UNSIGNED_QUERIES)
        assert theirs[0][1][1][0][2] == "FFFFFFFFFFFFFFFF"
        assert ours == theirs


def test_bit_stored_and_read_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, BIT_STATEMENTS)
        assert ("INSERT INTO b VALUES (7, 256, 256)",
                ("error", 1406, "22001", "Data too long for column 'y' at row 1")) in theirs
        assert ours == theirs


def test_binary_protocol_sends_the_values_as_mariadb(tmp_path):
    reads = [("SELECT id, x, HEX(x), x >> 1, CAST(x AS SIGNED) FROM u ORDER BY id", ()),
             ("SELECT id, x, y, x + 0 FROM b ORDER BY id", ()),
             ("SELECT id FROM u WHERE x = ?", (18446744073709551615,))]
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            server.query("INSERT INTO b VALUES (1, 18446744073709551615, 255), (2, 9223372036854775808, 1)",
                         database="d")
            answers.append(prepared_answers(server.port, "d", reads, rows=True))
        assert answers[0][1][2][0][1] == b"\xff" * 8
        assert answers[1] == answers[0]


REPLICATED = [
    "INSERT INTO b VALUES (1, 18446744073709551615, 255), (2, 9223372036854775807, 1)",
    "INSERT INTO b VALUES (3, b'1000000000000000000000000000000000000000000000000000000000000000', x'7F')",
    "INSERT INTO b VALUES (4, x'FFFFFFFFFFFFFFFE', 'a')",
    "UPDATE b SET x = x + 1, y = y + 1 WHERE id IN (2, 3, 4)",
    "INSERT INTO u VALUES (7, 18446744073709551614)",
    "UPDATE u SET x = x + 1 WHERE id IN (2, 7)",
    "UPDATE u SET x = x >> 1 WHERE id = 4",
]


def _values(server) -> list[tuple]:
    conn = server.connect("d")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT id, HEX(x), x + 0, HEX(y) FROM b ORDER BY id")
            bits = cur.fetchall()
            cur.execute("SELECT id, x FROM u ORDER BY id")
            return [bits, cur.fetchall()]
    finally:
        conn.close()


def _values_or_none(server) -> list[tuple] | None:
    try:
        return _values(server)
    except pymysql.MySQLError:
        return None  # (not replicated yet)


def test_replicas_of_ours_hold_the_same_values(tmp_path):
    """The statements through the binlog, replayed by a MariaDB replica and by our slave."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + REPLICATED:
                server.query(sql, database=None if sql.startswith("CREATE DATABASE") else "d")
        want = _values(reference)
        assert want[0][0] == (1, "FFFFFFFFFFFFFFFF", 18446744073709551615, "FF")
        assert _values(master) == want
        for replica in replicas:
            wait_for(lambda r=replica: _values_or_none(r) == want, 90,
                     message=lambda r=replica: f"{r} to hold the master's values: {_values_or_none(r)}")
