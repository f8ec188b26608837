"""An UPDATE's literal that its column cannot hold is refused per row updated, as MariaDB 10.11
refuses it: where no row matches, the UPDATE is OK with 0 rows (ours refused it before any row
was read, 1406 / 1264 / 1292); where one matches, strict mode's error
(tests/integration/test_assigned_literals_mariadb.py holds more cases).
max_allowed_packet's default is MariaDB 10.11's 16 MiB (it was 64 MiB), and a query past it is
1153 on both. Each statement runs on a stock MariaDB and on our master and the answers are
compared; the UPDATEs are binlogged, and a MariaDB replica of ours holds the same rows."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    ok_answers,
    reference_ours_and_replica,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d",
         "CREATE TABLE d.t (id INT PRIMARY KEY, s VARCHAR(3), n TINYINT, dt DATE) CHARSET utf8mb4",
         "INSERT INTO d.t VALUES (1, 'a', 1, '2020-01-01'), (2, 'b', 2, '2020-01-02')"]

STATEMENTS = [
    "UPDATE t SET s = 'abcdef' WHERE id = 5",
    "UPDATE t SET n = 300 WHERE id > 5",
    "UPDATE t SET dt = 'nope', s = 'toolong' WHERE id = 5",
    "UPDATE t SET s = 'abcdef' WHERE id = 1",
    "UPDATE t SET n = 300 WHERE id = 2",
    "UPDATE t SET s = 'xyz', n = -5 WHERE id = 2",
    "UPDATE t SET s = 'ab', dt = '2021-02-03' WHERE id = 1",
    "SELECT @@max_allowed_packet, @@global.max_allowed_packet",
]


def test_update_literals_per_row_and_packet_default(tmp_path):
    with reference_ours_and_replica(tmp_path) as (reference, ours, replica):
        answers = []
        for server in (reference, ours):
            answers.append(ok_answers(server, SETUP, STATEMENTS))
            big = server.connect("d", max_allowed_packet=64 << 20)
            with big.cursor() as cur, pytest.raises(pymysql.MySQLError) as refused:
                cur.execute("SELECT LENGTH(%s)", ("x" * (17 << 20),))
            # (1153, then the connection closed: the client's 2006 or 2013, as the close races it)
            answers[-1].append(("17 MiB query", refused.value.args[0] in (1153, 2006, 2013)))
        theirs, mine = answers
        assert mine == theirs, answer_differences(theirs, mine)
        assert_same_rows(reference, ours, [replica], "SELECT * FROM d.t ORDER BY id")
