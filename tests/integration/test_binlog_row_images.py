"""`semisync binlog -v` prints a MariaDB ROW binlog's row images exactly as `mariadb-binlog -v`
does (every `###` line, byte for byte), for a table of every column type MariaDB 10.11 logs
(integers signed and unsigned at each width, DECIMAL, FLOAT, DOUBLE, CHAR, VARCHAR short and long,
TEXT, BLOB, binary strings, DATE, DATETIME, TIMESTAMP and TIME with and without fractions, YEAR,
ENUM, SET, BIT, JSON, NULLs and zero dates), with full and minimal row images; `--json -v` carries
the same values in `row_images`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"),
                       reason="needs mariadb-server and mariadb-binlog"),
]

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
COLUMNS = (
    "id INT PRIMARY KEY, a INT, au INT UNSIGNED, b BIGINT, bu BIGINT UNSIGNED, c TINYINT, cu TINYINT UNSIGNED, "
    "sm SMALLINT, md MEDIUMINT, mdu MEDIUMINT UNSIGNED, d DECIMAL(10,3), dl DECIMAL(40,10), e DOUBLE, f FLOAT, "
    "g VARCHAR(20), gl VARCHAR(400), h CHAR(5), hb BINARY(3), i TEXT, j BLOB, k DATE, l DATETIME(3), l0 DATETIME, "
    "m TIMESTAMP(2) NULL, m0 TIMESTAMP NULL, n TIME, n3 TIME(3), o YEAR, p ENUM('x','y'), q SET('a','b','c'), "
    "r BIT(5), r9 BIT(9), s VARBINARY(10), js JSON"
)
ROWS = [
    "(1, -1, 4294967295, -9223372036854775808, 18446744073709551615, -5, 250, -300, -70000, 16777215, -12.345, "
    "123456789012345678901234567890.0123456789, 0.1, 0.1, 'it''s \"q\" \\\\ x', REPEAT('long', 90), 'ab', X'00FF01', "
    "'text\\nline\\ttab', X'00FF', '2024-02-29', '2024-02-29 12:34:56.789', '1999-12-31 23:59:59', "
    "'2024-02-29 12:34:56.78', '2001-02-03 04:05:06', '-01:02:03', '838:59:58.5', 2024, 'y', 'a,c', b'10101', "
    "b'100000001', X'0102', '{\"k\": [1, 2]}')",
    "(2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1.5e300, -3.4e38, '', '', '', '', '', '', '0000-00-00', "
    "'0000-00-00 00:00:00', '0000-00-00 00:00:00', NULL, NULL, '00:00:00', '-00:00:00.5', 1901, 'x', '', b'0', "
    "b'0', '', 'null')",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(4, 2147483647, 1, 9223372036854775807, 1, 127, 1, 32767, 8388607, 1, 9999999.999, -1, 1e-300, 1.17549e-38, "
    "'caf\u00e9 \u2615', 'x', 'zz', 'b', 'multi\\nline', 'blob', '9999-12-31', '9999-12-31 23:59:59.999', "
    "'1000-01-01 00:00:00', '2038-01-19 03:14:07.99', '1970-01-01 00:00:01', '-838:59:59', '12:00:00.001', 2155, "
    "NULL, 'b', b'11111', b'111111111', X'FF', '[]')",
]
WORKLOAD = [
    "SET time_zone = '+00:00'",
    "SET sql_mode = ''",
    "CREATE DATABASE d",
    f"CREATE TABLE d.t ({COLUMNS}) ENGINE=InnoDB",
    *(f"INSERT INTO d.t VALUES {row}" for row in ROWS),
    "UPDATE d.t SET a = a + 1, g = 'changed' WHERE id IN (1, 4)",
    "DELETE FROM d.t WHERE id = 2",
    "SET SESSION binlog_row_image = MINIMAL",
    "UPDATE d.t SET e = 2.5 WHERE id = 1",
    "DELETE FROM d.t WHERE id = 3",
    "SET SESSION binlog_row_image = FULL",
    "BEGIN",
    "INSERT INTO d.t (id) VALUES (10), (11)",
    "UPDATE d.t SET b = -b WHERE id IN (10, 11, 4)",
    "COMMIT",
]


def hashes(text: bytes) -> list[bytes]:
    return [line for line in text.splitlines() if line.startswith(b"###")]


@pytest.fixture(scope="module")
def binlog(tmp_path_factory):
    server = MariaDBServer(tmp_path_factory.mktemp("rows") / "m", binlog_format="ROW", server_id=5)
    server.start()
    try:
        server.execute_all(WORKLOAD)
    finally:
        server.stop()
    return server.binlog_files()[0]


def test_row_images_are_mariadb_binlog_verbose_lines(binlog):
    theirs = subprocess.run(["mariadb-binlog", "--no-defaults", "-v", str(binlog)], capture_output=True, check=True).stdout
    ours = subprocess.run([*SEMISYNC, "binlog", "-v", str(binlog)], capture_output=True)
    assert ours.returncode == 0 and ours.stderr == b"", ours.stderr
    expected = hashes(theirs)
    assert len(expected) > 200  # every row of every statement above
    assert hashes(ours.stdout) == expected
    # each rows event's lines come right after its own event line
    lines = ours.stdout.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith(b"###"))
    assert b"ROWS_EVENT" in lines[first - 1]


def test_json_row_images_carry_the_same_values(binlog):
    ours = subprocess.run([*SEMISYNC, "binlog", "--json", "-v", str(binlog)], capture_output=True, text=True)
    assert ours.returncode == 0, ours.stderr
    text = subprocess.run([*SEMISYNC, "binlog", "-v", str(binlog)], capture_output=True).stdout
    images = [img for line in ours.stdout.splitlines() for img in json.loads(line).get("row_images", [])]
    assert {img["kind"] for img in images} == {"insert", "update", "delete"}
    values = [f"###   {k}={v}" for img in images for part in ("before", "after") for k, v in img.get(part, {}).items()]
    expected = [line.decode("utf-8", "replace") for line in hashes(text) if line.startswith(b"###   ")]
    assert values == expected
    assert all(img["db"] == "d" and img["table"] == "t" for img in images)
