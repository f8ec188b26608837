"""User variables hold their values in the type MariaDB 10.11 gives them, and say so.

`SET @d = 1.2345678901234567890123` held a double here (1.2345678901234567), so `INSERT ...
VALUES (@d)` stored other digits than MariaDB, into a DECIMAL column and into a VARCHAR
(`12345678901234567890.5` became '1.2345678901234567e19'), on the master and on every replica;
now a DECIMAL is held as its digits (`engine.coltypes.held_value`), bound as its text and
binlogged as a DECIMAL_RESULT user variable event. `SELECT @v` was a LONGBLOB or a BIGINT(21)
whatever the variable held: now the column MariaDB describes for what it holds (BIGINT(20) with
UNSIGNED past the signed range, DOUBLE(23), DECIMAL(65,38) with the value's own digits, a
LONGBLOB in the connection's character set for a string, a binary one for X'..' and NULL, and
16,777,216 long for a variable never set), over the text protocol and prepared."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    defined_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SET = ("SET @i = 5, @s = 'abc', @b = X'61', @d = 1.50, @f = 1e0, @n = NULL, @u = 18446744073709551615,"
       " @neg = -3, @l = 1.2345678901234567890123, @m = 12345678901234567890.5, @e = 0.1 + 0.2, @x = X'00ff'")
READS = [SET, "SELECT @i", "SELECT @s", "SELECT @b", "SELECT @d", "SELECT @f", "SELECT @n", "SELECT @u",
         "SELECT @neg", "SELECT @nosuch", "SELECT @l, @m, @e", "SELECT @x, @i, @s", "SELECT @l FROM t",
         "SET @c := (SELECT v FROM t WHERE id = 1)", "SELECT @c", "SET @d = @l", "SELECT @d"]


def test_user_variables_typed_and_valued_as_mariadb(tmp_path):
    setup = ["CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v DECIMAL(50,25))",
             "INSERT INTO d.t VALUES (1, 12345678901234567890.0123456789)"]
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        for server in (mariadb, ours):
            for sql in setup:
                server.query(sql)
        theirs, mine = (defined_answers(server.port, "d", READS) for server in (mariadb, ours))
    assert theirs[4][1][1] == ((Decimal("1.50"),),)  # its own digits
    assert theirs == mine, [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]


WRITES = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v DECIMAL(50,25), s VARCHAR(60), b VARBINARY(10), f DOUBLE)",
    SET,
    "INSERT INTO d.t VALUES (1, @e, @e, @x, @f), (2, @l, @l, @b, @d), (3, @m, @m, NULL, @i), (4, @d, @d, @s, @neg)",
    "SET @c := (SELECT v FROM d.t WHERE id = 2)",
    "INSERT INTO d.t VALUES (5, @c, @c, NULL, @neg)",
    "UPDATE d.t SET s = @l WHERE v = @l",
    "DELETE FROM d.t WHERE v = @m",
]


def test_user_variable_values_stored_and_replicated_exactly(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            conn = server.connect()
            try:
                with conn.cursor() as cur:
                    for sql in WRITES:
                        cur.execute(sql)
            finally:
                conn.close()
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.t ORDER BY id")
