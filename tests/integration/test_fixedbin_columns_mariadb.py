"""MariaDB 10.11's UUID, INET6 and INET4 column types, on a stock MariaDB and on our master: the
definitions (CREATE / ALTER TABLE, SHOW CREATE TABLE, SHOW COLUMNS, information_schema), the
values they take and how they show them (canonical lower-case text), the errors and warnings
for values of no such type (1292, 4078 for a number, 1067 for a DEFAULT), comparisons with
text written in any of the type's forms, MariaDB's sort order (a time-based UUID sorts node
first, time low last), unique keys over differently written equal values, result column
definitions over the text and binary protocols and with MariaDB's extended type info, and
the rows our slave and a MariaDB replica of our master hold after such writes. The types were
a syntax error (1064) before: SQLAlchemy 2's `Uuid` emits UUID for MariaDB 10.7 and later."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    both_answer,
    defined_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d"]

TABLE = ("CREATE TABLE t (id INT PRIMARY KEY, u UUID, i6 INET6 NOT NULL DEFAULT '::1', i4 INET4 DEFAULT '1.2.3.4',"
         " KEY (u), UNIQUE KEY (i6)) DEFAULT CHARSET=utf8mb4")

# UUIDs whose order is not their text's: time-based ones (version 1 to 5 with the variant bit)
# sort by node, clock sequence, time high, time mid, time low
WRITES = [
    TABLE,
    "INSERT INTO t VALUES (1, '6ccd780c-baba-1026-9564-5b8c656024db', '2001:db8::1', '10.0.0.1')",
    "INSERT INTO t VALUES (2, '6CCD780CBABA102695645B8C656024DC', '::ffff:1.2.3.4', '10.0.0.2')",
    "INSERT INTO t VALUES (4, '6ccd-780c-baba-1026-9564-5b8c-6560-24de', '::2', '010.0.0.3')",
    "INSERT INTO t VALUES (6, '00000000-0000-0000-0000-000000000000', '::4', '0.0.0.0')",
    "INSERT INTO t VALUES (7, NULL, 'FE80::0001', NULL)",
    "INSERT INTO t VALUES (8, 'ffffffff-0000-0000-0001-000000000000', '::5', '1.2.3.4')",
    "INSERT INTO t VALUES (9, '00000001-0000-0000-ffff-000000000000', '::6', '1.2.3.4')",
    "INSERT INTO t VALUES (10, '00000002-0001-0000-0000-000000000000', '::7', '1.2.3.4')",
    "INSERT INTO t VALUES (11, '00000002-0000-0001-0000-000000000000', '::8', '1.2.3.4')",
    "INSERT INTO t VALUES (12, '00000002-0000-1001-8000-000000000000', '::9', '1.2.3.4')",
    "INSERT INTO t VALUES (13, '00000002-0000-6001-8000-000000000000', '::a', '1.2.3.4')",
    "INSERT INTO t VALUES (14, '00000003-0000-1001-0000-000000000000', '::b', '1.2.3.4')",
    "INSERT INTO t VALUES (15, '00000003-0000-1002-c000-000000000000', '::c', '1.2.3.4')",
    "INSERT INTO t VALUES (20, 'ffffffff-ffff-1fff-ffff-000000000001', '1:0:0:2:0:0:0:3', '1.2.3.4')",
    "INSERT INTO t VALUES (21, '00000002-0000-0f01-8000-000000000000', '::1.2.3.4', '1.2.3.4')",
    "INSERT INTO t (id) VALUES (16)",
    "INSERT INTO t VALUES (18, NULL, X'00000000000000000000000000000010', X'01020304')",
    "INSERT INTO t VALUES (19, X'00000000000000000000000000000011', '::11', '1.2.3.4')",
    "INSERT IGNORE INTO t VALUES (17, 'bad', '::d', '1.2.3.999')",
    "UPDATE t SET u = '{6ccd780c-baba-1026-9564-5b8c656024dd}' WHERE id = 16",
    "UPDATE t SET i4 = CONCAT('9.8.', '7.6') WHERE id = 16",
    "UPDATE t SET i6 = '64:FF9B::1.2.3.4' WHERE id = 16",
]

QUERIES = WRITES + [
    "SHOW CREATE TABLE t",
    "SHOW COLUMNS FROM t",
    "SHOW FULL COLUMNS FROM t",
    "DESCRIBE t",
    "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH,"
    " NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_DEFAULT,"
    " IS_NULLABLE, COLUMN_KEY FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't'"
    " ORDER BY ORDINAL_POSITION",
    # values that are none of the type's
    "INSERT INTO t VALUES (3, '{6ccd780c-baba-1026-9564-5b8c656024dd}', '::3', '10.0.0.3')",
    "INSERT INTO t VALUES (3, '6ccd780c-baba-1026-9564-5b8c656024d', '::3', '10.0.0.3')",
    "INSERT INTO t VALUES (3, ' 6ccd780c-baba-1026-9564-5b8c656024dd', '::3', '10.0.0.3')",
    "INSERT INTO t VALUES (3, '-6ccd780cbaba102695645b8c656024db', '::3', '10.0.0.3')",
    "INSERT INTO t VALUES (3, NULL, 'zz', '10.0.0.3')",
    "INSERT INTO t VALUES (3, NULL, '1.2.3.4', '10.0.0.3')",
    "INSERT INTO t VALUES (3, NULL, '1::2::3', '10.0.0.3')",
    "INSERT INTO t VALUES (3, NULL, '::3', '10.0.0.256')",
    "INSERT INTO t VALUES (3, NULL, '::3', '10.0.0')",
    "INSERT INTO t VALUES (3, NULL, '::3', '1.2.3.4 ')",
    "INSERT INTO t VALUES (3, X'00', '::3', '1.2.3.4')",
    "INSERT INTO t VALUES (3, 12, '::3', '1.2.3.4')",
    "INSERT INTO t VALUES (3, NULL, 1, '1.2.3.4')",
    "INSERT INTO t VALUES (3, NULL, '::3', 1.5)",
    "UPDATE t SET u = 'zz' WHERE id = 1",
    "INSERT INTO t VALUES (3, '6ccd780c-baba-1026-9564-5b8c65602400', '0:0::2', '10.0.0.3')",
    "SELECT * FROM t ORDER BY id",
    "SELECT id, u FROM t ORDER BY u, id",
    "SELECT id, u FROM t ORDER BY u DESC, id",
    "SELECT id, i6 FROM t ORDER BY i6, id",
    "SELECT id, i4 FROM t ORDER BY i4, id",
    "SELECT i4, COUNT(*) FROM t GROUP BY i4 ORDER BY i4",
    "SELECT MIN(u), MAX(u), MIN(i6), MAX(i6), MIN(i4), MAX(i4) FROM t",
    "SELECT id FROM t WHERE u = '6ccd780cbaba102695645b8c656024db'",
    "SELECT id FROM t WHERE u = '6CCD780C-BABA-1026-9564-5B8C656024DB'",
    "SELECT id FROM t WHERE u > '6ccd780c-baba-1026-9564-5b8c656024db' ORDER BY id",
    "SELECT id FROM t WHERE u IN ('6ccd780cbaba102695645b8c656024dc', '00000002-0000-1001-8000-000000000000')"
    " ORDER BY id",
    "SELECT id FROM t WHERE i6 = '::ffff:0102:0304'",
    "SELECT id FROM t WHERE i6 BETWEEN '::' AND '::8' ORDER BY id",
    "SELECT id FROM t WHERE i4 = '10.0.0.1'",
    "SELECT id FROM t WHERE u LIKE '6ccd%' ORDER BY id",
    "SELECT CAST(u AS CHAR), CONCAT(u, ''), LENGTH(u), LENGTH(i6), UPPER(i6) FROM t WHERE id = 1",
    "SELECT t1.id, t2.id FROM t t1 JOIN t t2 ON t1.u = t2.u WHERE t1.id < 5 ORDER BY t1.id",
    "SELECT DISTINCT i4 FROM t ORDER BY i4",
    # text that names no value compares as NULL, with a warning
    "SELECT id, u = 'junk' FROM t WHERE id < 3 ORDER BY id",
    "SHOW WARNINGS",
    "SELECT id FROM t WHERE NOT (u = 'junk') ORDER BY id",
    "SELECT id FROM t WHERE i6 <> 'x' ORDER BY id",
    "SELECT id FROM t WHERE i6 = X'00000000000000000000ffff01020304'",
    "SELECT id FROM t WHERE '10.0.0.2' = i4",
    "SELECT id FROM t WHERE u IN ('junk', '6CCD780CBABA102695645B8C656024DB')",
    "SELECT id FROM t WHERE u NOT IN ('junk', '00000000000000000000000000000000') ORDER BY id",
    "SELECT id, i4 IN ('10.0.0.2', 'x') FROM t ORDER BY id",
    "SELECT id FROM t WHERE i4 NOT BETWEEN 'a' AND '10.0.0.3' ORDER BY id",
    "SELECT id FROM t WHERE i6 BETWEEN '::' AND '::FFFF:255.255.255.255' ORDER BY id",
    "SELECT id FROM t WHERE i4 IN ('10.0.0.2', 7)",
    "SELECT id FROM t WHERE i4 BETWEEN 1 AND '10.0.0.3'",
    # a number compared with one: 4078 (the same shapes with strings planned before and after)
    "SELECT id FROM t WHERE u = 1",
    "SELECT u = 12 FROM t WHERE id = 1",
    "SELECT id FROM t WHERE 2 <> i6",
    "SELECT id FROM t WHERE t.i4 <=> 2",
    "SELECT id FROM t WHERE i4 <=> '10.0.0.1'",
    "SELECT CAST('6CCD780CBABA102695645B8C656024DB' AS UUID), CAST('::FFFF:1.2.3.4' AS INET6),"
    " CAST('01.2.3.4' AS INET4), CAST(NULL AS INET6)",
    "SELECT CAST('zz' AS UUID)",
    "SHOW WARNINGS",
    "SELECT CAST('6ccd780c-baba-1026-9564-5b8c656024db' AS UUID) = '6CCD780CBABA102695645B8C656024DB'",
    "SELECT CAST('00000002-0000-1001-8000-000000000000' AS UUID) < CAST('00000001-0000-0000-ffff-000000000000' AS UUID)",
    "SELECT id FROM t WHERE u = CAST('6CCD780CBABA102695645B8C656024DB' AS UUID)",
    "SELECT id FROM t ORDER BY CAST(CONCAT(u, '') AS UUID), id",
    # the table made, changed and its definitions refused
    "CREATE TABLE b (u UUID DEFAULT 'x')",
    "CREATE TABLE b (u UUID DEFAULT 12)",
    "CREATE TABLE b (i INET6 DEFAULT '1.2.3.4')",
    "CREATE TABLE b (u UUID PRIMARY KEY AUTO_INCREMENT)",
    "CREATE TABLE b (u UUID DEFAULT '6CCD780CBABA102695645B8C656024DB' PRIMARY KEY,"
    " i INET6 DEFAULT '::FFFF:1.2.3.4') DEFAULT CHARSET=utf8mb4",
    "ALTER TABLE b ADD v INET4 NOT NULL, ADD w UUID NULL",
    "SHOW CREATE TABLE b",
    "SELECT COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_NAME = 'b' ORDER BY ORDINAL_POSITION",
    "INSERT INTO b (u) VALUES (DEFAULT)",
    "INSERT INTO b (v) VALUES ('1.1.1.1')",
    "INSERT IGNORE INTO b (u, i, v) VALUES ('6ccd780c-baba-1026-9564-000000000001', 'x', 'y')",
    "SHOW WARNINGS",
    "INSERT INTO b (u, v) VALUES ('6ccd780cbaba10269564000000000001', '2.2.2.2')",
    "SELECT * FROM b ORDER BY u",
]

# (MariaDB's 1062 names the key's value as the column holds it: ours named it as written)
DUPLICATES = [
    TABLE,
    "INSERT INTO t VALUES (1, '6ccd780c-baba-1026-9564-5b8c656024db', '2001:db8::1', '10.0.0.1')",
    "CREATE TABLE k (u UUID PRIMARY KEY, n INT) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO k VALUES ('6ccd780c-baba-1026-9564-5b8c656024db', 1)",
    "INSERT INTO k VALUES ('6CCD780CBABA102695645B8C656024DB', 2)",
    "INSERT INTO t VALUES (2, '6ccd780c-baba-1026-9564-5b8c656024dc', '2001:DB8:0:0::1', '10.0.0.1')",
    "SELECT * FROM k",
]


def test_fixedbin_columns_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
    # what the comparison stands on: MariaDB's own answers
    ids = [row[0] for row in dict(theirs)["SELECT id, u FROM t ORDER BY u, id"][1]]
    assert ids.index(12) < ids.index(9)  # (00000002-0000-1001-8000-... before 00000001-0000-0000-ffff-...)
    assert dict(theirs)["INSERT INTO t VALUES (3, 12, '::3', '1.2.3.4')"][1] == 4078
    assert ours == theirs, answer_differences(theirs, ours)


def test_fixedbin_duplicate_keys_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, DUPLICATES)
    assert theirs[4][1][:2] == ("error", 1062)
    assert ours == theirs, answer_differences(theirs, ours)


DEFINED = [
    "SELECT u, i6, i4 FROM t ORDER BY id",
    "SELECT u, i4 FROM t WHERE u IS NOT NULL ORDER BY u DESC",
    ("SELECT u FROM t WHERE u = ?", ((253, "6CCD780CBABA102695645B8C656024DB"),)),
    ("SELECT i6 FROM t WHERE i6 = ?", ((253, "::FFFF:1.2.3.4"),)),
    ("SELECT i4, i6 FROM t WHERE i4 = ?", ((253, "10.0.0.2"),)),
    "SELECT CAST('6CCD780CBABA102695645B8C656024DB' AS UUID), CAST('::1' AS INET6), CAST(i4 AS INET4) FROM t",
]


def test_fixedbin_result_columns_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
            conn = server.connect("d")
            with conn.cursor() as cur:
                for sql in WRITES[:3]:
                    cur.execute(sql)
            conn.close()
        theirs = defined_answers(reference.port, "d", DEFINED)
        ours = defined_answers(master.port, "d", DEFINED)
    assert theirs[0][1][0][0] == ("u", 254, 144, 0, 128 | 32 | 8 | 16384, 45)
    assert ours == theirs, answer_differences(theirs, ours)


def _types(port: int, sql: str) -> list[tuple[str, str]]:
    text = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--column-type-info", "--table",
                           "-e", sql], capture_output=True, text=True, timeout=60, check=True).stdout
    return re.findall(r"Field +\d+: +`([^`]*)`.*?\nType: +([^\n]*)", text, re.S)


def test_fixedbin_extended_type_info_as_mariadb(tmp_path):
    sql = "SELECT u, i6, i4, id FROM d.t"
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            server.query("CREATE DATABASE d")
            server.query("CREATE TABLE d." + TABLE.removeprefix("CREATE TABLE "))
        theirs, ours = _types(reference.port, sql), _types(master.port, sql)
    assert ("u", "STRING (type=uuid)") in theirs
    assert ours == theirs, answer_differences(theirs, ours)


def test_fixedbin_writes_replicated_as_mariadb(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        theirs, ours = both_answer(reference, master, SETUP, WRITES + [
            "INSERT INTO t (id, u, i6) VALUES (30, UUID(), '::30')",
            "DELETE FROM t WHERE u = '00000002-0000-1001-8000-000000000000'"])
        assert ours == theirs, answer_differences(theirs, ours)
        assert_same_rows(reference, master, replicas, "SELECT id, u, i6, i4 FROM d.t WHERE id < 30 ORDER BY u, id")
        assert_same_rows(reference, master, replicas, "SELECT COUNT(*), COUNT(u) FROM d.t WHERE id = 30")


# what MariaDB computes from the value's bytes, or refuses (4078 / 4079: here a DECIMAL literal and a
# DOUBLE one are both floats), and ALTER TABLE's
# conversion of each row's value: 1235 here (the column's text gave other answers)
REFUSED = [
    "SELECT HEX(u), HEX(i6), HEX(i4) FROM t",
    "SELECT HEX(BINARY i4) FROM t",
    "SELECT CAST(t.u AS BINARY) FROM t",
    "SELECT u + 0 FROM t",
    "SELECT -i4 FROM t",
    "SELECT id FROM t WHERE i6 * 2 > 0",
    "SELECT id FROM t WHERE 1.5 < i4",
    "ALTER TABLE c MODIFY v UUID",
    "ALTER TABLE t MODIFY u BINARY(16)",
]


def test_fixedbin_binary_reads_refused(tmp_path):
    setup = [TABLE, WRITES[1], "CREATE TABLE c (v VARCHAR(40), n INT) DEFAULT CHARSET=utf8mb4",
             "INSERT INTO c VALUES ('6CCD780CBABA102695645B8C656024DB', 1)"]
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, setup + REFUSED)
    assert [a[1] for a in ours[:len(setup)]] == [a[1] for a in theirs[:len(setup)]] == [("ok",)] * len(setup)
    for (sql, mine), (_, mariadb) in zip(ours[len(setup):], theirs[len(setup):], strict=True):
        assert mine[:2] == ("error", 1235), (sql, mine)
        assert mariadb != mine  # (MariaDB's rows, or its 4078 / 4079)


def test_fixedbin_not_null_column_added_to_rows_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, [
            TABLE, WRITES[1], WRITES[2], "ALTER TABLE t ADD w INET4 NOT NULL, ADD x UUID NOT NULL, ADD y INET6 NOT NULL",
            "SELECT id, w, x, y FROM t ORDER BY id"])
    assert ours == theirs, answer_differences(theirs, ours)


def _dump(server) -> str:
    dump = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{server.port}", "-uroot", "--databases", "d"],
                          capture_output=True, text=True, timeout=120)
    assert dump.returncode == 0, dump.stderr
    return dump.stdout


def _load(server, dump: str) -> None:
    load = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{server.port}", "-uroot"], input=dump,
                          capture_output=True, text=True, timeout=120)
    assert load.returncode == 0, load.stderr


@pytest.mark.skipif(shutil.which("mariadb-dump") is None, reason="mariadb-dump not installed")
def test_a_dump_of_fixedbin_columns_loads_into_either(tmp_path):
    shown = ["SELECT * FROM d.t ORDER BY u, id", "SHOW CREATE TABLE d.t"]
    with mariadb_and_ours(tmp_path) as (reference, master):
        master.query("CREATE DATABASE d")
        conn = master.connect("d")
        try:
            with conn.cursor() as cur:
                for sql in WRITES:
                    if "{" not in sql:  # (1292 on both)
                        cur.execute(sql)
        finally:
            conn.close()
        _load(reference, _dump(master))  # ours into MariaDB
        want = [reference.query(sql) for sql in shown]
        assert [master.query(sql) for sql in shown] == want
        _load(master, _dump(reference))  # and MariaDB's back into ours
        assert [master.query(sql) for sql in shown] == want
