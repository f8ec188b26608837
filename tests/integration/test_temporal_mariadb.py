"""DATE, DATETIME, TIMESTAMP and TIME values as MariaDB 10.11 stores and compares them: a value
written in any form MariaDB reads ('2024-1-5', '20240105', 240105, '2024/01/05 1:2:3',
'2024-01-05T10:11:12', fractions) is stored as MariaDB's canonical text, one it refuses
(2024-02-30, 24:00:00, '9:05' for a DATETIME, a TIMESTAMP out of its range) is MariaDB's error
1292 (`values.temporal_text`); a temporal column compared with a literal compares times
(`exact.Finder.convert_operands`: '2024-01-05' is a DATETIME's midnight, BETWEEN '2024-01-01' AND
'2024-01-05' takes the 5th's midnight), and a DATE column with a DATETIME column its midnight.
Each statement runs on a stock MariaDB and on our master, the answers compared.

Left out, where the two still differ: a temporal function's value compared with a literal
(DATE(dt) = '2024-1-5' compares text here); a TIMESTAMP's range is checked in UTC (MariaDB: in
the server's time zone); an UPDATE's computed value (SET d = CONCAT(...)) is stored as computed."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import answer, both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

VALUES = [
    "'2024-1-5'", "'2024-01-05'", "'20240105'", "20240105", "'240105'", "240105", "'24-1-5'", "'99-1-5'",
    "'2024/01/05'", "'2024.01.05'", "'2024-01-05 10:11:12'", "'2024-01-05T10:11:12'", "'2024-01-05 1:2:3'",
    "'2024-01-05 10:11'", "'2024-01-05 10'", "'20240105101112'", "20240105101112", "'240105101112'",
    "'2024-01-05 10:11:12.123456'", "'2024-01-05 10:11:12.5'", "20240105101112.25", "'2024-02-29'",
    "'2023-02-29'", "'2024-02-30'", "'2024-13-01'", "'2024-00-00'", "'0000-00-00'", "0", "'2024-01-05 24:00:00'",
    "'abc'", "'2024-01-05x'", "''", "'  2024-01-05  '", "'2024-01-05 10:11:12 '", "'9:05'", "'2024-1-5 1:2'",
    "101", "'1000-01-01'", "'9999-12-31 23:59:59'", "'2024-01-05 00:00:00.000'", "20240105.0", "'24010'",
    "'2024-1-05 10:60:00'", "'1970-01-01 00:00:00'", "'2038-01-19 03:14:08'",
]
COLUMNS = ("d", "dt", "d3", "ts")

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.w (id INT PRIMARY KEY, d DATE, dt DATETIME, d3 DATETIME(3), ts TIMESTAMP NULL)",
    "CREATE TABLE d.t (id INT PRIMARY KEY, d DATE, dt DATETIME, d3 DATETIME(3), tm TIME, KEY (dt))",
    "INSERT INTO d.t VALUES (1, '2024-01-05', '2024-01-05 00:00:00', '2024-01-05 00:00:00.000', '10:00:00'),"
    " (2, '2024-02-01', '2024-02-01 10:30:00', '2024-02-01 10:30:00.250', '09:05:00'), (3, NULL, NULL, NULL, NULL),"
    " (4, '2024-01-31', '2024-01-31 23:59:59', '2024-01-05 00:00:00.001', '-01:00:00')",
]

QUERIES = [
    "SELECT id FROM t WHERE d = '2024-01-05' ORDER BY id",
    "SELECT id FROM t WHERE d = '2024-1-5' ORDER BY id",
    "SELECT id FROM t WHERE d = '20240105' OR d = 20240201 ORDER BY id",
    "SELECT id FROM t WHERE d > '2024-1-15' ORDER BY id",
    "SELECT id FROM t WHERE d = '2024-01-05 00:00:00' ORDER BY id",
    "SELECT id FROM t WHERE d < '2024-01-05 10:00:00' AND d >= '2024-01-05' ORDER BY id",
    "SELECT id FROM t WHERE dt = '2024-01-05' ORDER BY id",
    "SELECT id FROM t WHERE dt = '2024-02-01 10:30' ORDER BY id",
    "SELECT id FROM t WHERE dt >= '2024-02-01' ORDER BY id",
    "SELECT id FROM t WHERE dt BETWEEN '2024-01-01' AND '2024-01-05' ORDER BY id",
    "SELECT id FROM t WHERE dt BETWEEN '2024-01-01' AND '2024-01-31' ORDER BY id",
    "SELECT id FROM t WHERE dt IN ('2024-01-05', '2024-2-1 10:30:00') ORDER BY id",
    "SELECT id FROM t WHERE d3 = '2024-01-05' ORDER BY id",
    "SELECT id FROM t WHERE d3 = '2024-02-01 10:30:00.25' ORDER BY id",
    "SELECT id FROM t WHERE d3 > '2024-01-05 00:00:00.0005' ORDER BY id",
    "SELECT id FROM t WHERE dt = d ORDER BY id",
    "SELECT id FROM t WHERE d < dt ORDER BY id",
    "SELECT id FROM t WHERE tm = '9:05' ORDER BY id",
    "SELECT id FROM t WHERE tm = 90500 OR tm = '10:00' ORDER BY id",
    "SELECT id FROM t WHERE '2024-1-5' = d ORDER BY id",
    "SELECT id FROM t WHERE d <> '2024-1-5' ORDER BY id",
    "SELECT id FROM t WHERE d = 'not a date' ORDER BY id",
]


def test_temporal_values_store_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        answers = []
        for server in (reference, master):
            for sql in SETUP[:2]:
                server.query(sql)
            conn = server.connect("d")
            try:
                said = [answer(conn, f"INSERT INTO w (id, {col}) VALUES ({n * 10 + k}, {value})")
                        for n, value in enumerate(VALUES) for k, col in enumerate(COLUMNS)]
                said.append(answer(conn, "SELECT id, CAST(d AS CHAR), CAST(dt AS CHAR), CAST(d3 AS CHAR),"
                                         " CAST(ts AS CHAR) FROM w ORDER BY id"))
                said.append(answer(conn, "SELECT * FROM w ORDER BY id"))
                answers.append(said)
            finally:
                conn.close()
        theirs, ours = answers
        assert theirs[len(COLUMNS) * VALUES.index("'2024-02-30'")][:2] == ("error", 1292)
        assert theirs[-2][1][0] == (0, "2024-01-05", None, None, None)
        assert ours == theirs


def test_temporal_columns_compare_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, [SETUP[0], *SETUP[2:]], QUERIES)
        assert ("SELECT id FROM t WHERE dt = '2024-01-05' ORDER BY id", ("rows", ((1,),))) in theirs
        assert ours == theirs
        plan = master.query("EXPLAIN SELECT id FROM d.t WHERE dt = '2024-1-5'")
        assert plan[0][5] == "dt"  # the converted literal still finds the index
