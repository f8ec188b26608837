"""0x.. and b'..' / 0b.. literals against a live MariaDB 10.11: MariaDB's hybrids, a binary string
where a string is read (alone, CONCAT, compared with a string or a string column, stored into a
string or binary column) and a BIGINT UNSIGNED where a number is (arithmetic, unary minus, bit
operators, compared with a number or a number column, IN and BETWEEN beside numbers, CAST to a
number, SUM / ABS / ROUND ..., stored into an INT, DECIMAL, DOUBLE or BIGINT UNSIGNED column,
also from INSERT ... SELECT); X'..' is a string everywhere (`lexer.Hybrid`,
`translate.Translator.read_hybrids`). The writes replay alike on a MariaDB replica and our slave
(the binlog keeps the literals' text). A string an INSERT or UPDATE reads as a number that is
none (X'20' + 1, 'abc' + 1) fails it under strict mode with 1292, as MariaDB's, a warning
elsewhere (`translate.NUMBER_TEXT_CALL`)."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    described_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, i INT, u BIGINT UNSIGNED, dc DECIMAL(10,2), v VARCHAR(10),"
    " b VARBINARY(10), f DOUBLE)",
    "INSERT INTO d.t VALUES (1, 16, 16, 1.5, 'a', 'a', 2.5)",
]

QUERIES = [
    "SELECT 0x10 + 1, 0x10 * 2, 0x41 = 65, 0xFFFFFFFFFFFFFFFF + 0, 0x10 - 1, -0x10, 0x10 DIV 3",
    "SELECT CAST(0x10 AS UNSIGNED), CAST(0x10 AS SIGNED), 0x10 > 9, 0x41 = 'A', 0x41 = '65'",
    "SELECT b'101', B'101' + 0, 0b101 + 1, 0b101",
    "SELECT 0x10, X'41', 0x41, HEX(0x41), 0x10 + 0.5, ABS(0x10), 0x10 / 2, 0x10 % 3",
    "SELECT 0x7FFFFFFFFFFFFFFF + 1, 0x0102030405060708090A + 0",
    "SELECT 0x10 - 17",
    "SELECT 1 - 0x10",
    "SELECT b'1' - 2",
    "SELECT 0xFFFFFFFFFFFFFFFF + 1",
    "SELECT ~0x10, 0x10 | 1, 0x10 & 0x11, 0x10 << 1, 0x10 >> 1, 0x10 ^ 1",
    "SELECT LENGTH(0x4142), 0x61 LIKE 'a', IF(1, 0x41, 0x42), LOWER(v) = 0x61, 0x1 = LENGTH(v) FROM d.t",
    "SELECT 0x10 = 0x10, 0x41 = X'41', CAST(0x41 AS CHAR), ROUND(0x10), POW(0x2, 3), MOD(0x10, 3), 0x10 MOD 3",
    "SELECT b'101' = 5, b'1000001', 0b1000001 = 'A', b'' + 0, LENGTH(b'')",
    "SELECT 0x41 + '1', '1' + 0x41, 0x10 = 16.0, SUM(0x10), AVG(0x10), 0x10 IN (16, 17), 0x10 BETWEEN 1 AND 20",
    "SELECT id FROM d.t WHERE i = 0x10",
    "SELECT id FROM d.t WHERE i + 0 = 0x10",
    "SELECT id FROM d.t WHERE v = 0x61",
    "SELECT id FROM d.t WHERE (i) = 0x10 AND v NOT IN (0x62)",
    "SELECT id FROM d.t WHERE i IN (0x10, 0x21) AND i BETWEEN 0x1 AND 0x30",
    "SELECT 0x10 + i, 0x10 - i, i * 0x2, u = 0x10 FROM d.t",
    "UPDATE d.t SET i = 0x20 + 1, v = 0x42, u = 0x20, b = 0x43, f = 0x10 / 4, dc = -0x10 WHERE id = 1",
    "INSERT INTO d.t (id, i) VALUES (2, 0x10)",
    "INSERT INTO d.t (id, v, b, dc, u, f) VALUES (5, 0x41, 0x41, 0x10, 0xFFFFFFFFFFFFFFFF, 0x10)",
    "INSERT INTO d.t (id, v, b, dc, u, f) VALUES (6, b'1000001', b'1000001', b'101', b'101', b'101')",
    "INSERT INTO d.t (id, i, v) SELECT 7, 0x10, 0x41",
    "INSERT INTO d.t (id, b, dc) SELECT 9, b'1000010', b'1000010'",
    "SELECT * FROM d.t ORDER BY id",
]


def test_hybrid_literals_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = (described_answers(server.port, "d", QUERIES) for server in (reference, master))
    assert theirs[0][1] == ((17, 32, 1, 18446744073709551615, 15, -16, 5),)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


STRICT_WRITES = [
    "INSERT INTO t (id, i) VALUES (3, 'abc' + 1)",
    "INSERT INTO t (id, i) VALUES (4, X'20' + 1)",
    "UPDATE t SET i = 'x1' + 1 WHERE id = 1",
    "INSERT INTO t (id, i) SELECT 8, 'abc' * 1.5",
    "INSERT IGNORE INTO t (id, i) VALUES (5, 'abc' + 1)",
    "INSERT INTO t (id, f) VALUES (6, '12 ' + 1)",
    "INSERT INTO t (id, f) VALUES (7, X'31' + 1)",
    "DO X'10' + 0, X'41' + 1",
    "SET sql_mode = ''",
    "INSERT INTO t (id, i) VALUES (9, 'abc' + 1)",
    "SELECT * FROM t ORDER BY id",
]


def test_a_string_that_is_no_number_fails_a_strict_write_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = (described_answers(server.port, "d", STRICT_WRITES) for server in (reference, master))
    assert theirs[1][1:3] == ("error", 1292)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


REPLICATED = [
    "INSERT INTO t (id, i, u, dc, v, b, f) VALUES (1, 0x10 + 1, 0xFFFFFFFFFFFFFFFF, b'101', 0x41, 0x42, -0x10)",
    "INSERT INTO t (id, i, dc, v) SELECT 2, 0x20, 0x10, b'1000001'",
    "UPDATE t SET i = i + 0x10, v = CONCAT(v, 0x43) WHERE id = 1 AND i = 0x11",
    "INSERT INTO t (id, i) VALUES (3, 0b11 * 2)",
]


def _rows(server) -> list[tuple] | None:
    try:
        return server.query("SELECT * FROM d.t ORDER BY id")
    except pymysql.MySQLError:
        return None  # (not replicated yet)


def test_hybrid_writes_replicate_as_mariadb_stores_them(tmp_path):
    """The writes through the binlog, replayed by a MariaDB replica and by our slave."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP[:2] + REPLICATED:
                server.query(sql, database=None if sql.startswith("CREATE DATABASE") else "d")
        want = _rows(reference)
        assert want[0][:2] == (1, 33)
        assert _rows(master) == want
        for replica in replicas:
            wait_for(lambda r=replica: _rows(r) == want, 90,
                     message=lambda r=replica: f"{r} to hold the master's rows: {_rows(r)}")
