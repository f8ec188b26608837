"""A prepared SELECT's item that is a placeholder alone (`SELECT ?`, `SELECT ? AS p`) as MariaDB
10.11 answers it over the binary protocol (mysql-connector-python's prepared cursor, compared
with a stock MariaDB): the prepare answer's parameters and such a column typed NULL, and each
execution's column named '?' (or its alias) and typed by the value it binds, sent in that type's
binary form: a string a CHAR as long as its characters, an integer the TINYINT / SMALLINT / INT /
BIGINT it was sent as (UNSIGNED as sent), a DOUBLE, a DECIMAL with the value's scale, a DATETIME
(6 decimals with microseconds), a DATE, NULL the NULL type. Before, the column was named with the
value ('a', '1') and typed as the literal written in its place (an INT, a VARCHAR; a DATETIME
as a string; 5000000000 a VARCHAR of 1024), and the prepare answer's parameters were VARCHARs.

Left out, where the two still differ: an item with a placeholder inside an expression (`? + 1`
named '1 + 1' here, typed from the literal), a TIME value (MariaDB's length 23), the prepare
answer's parameter of `? AS p` (MariaDB names it p; here '?', as every parameter)."""

from __future__ import annotations

import datetime
import decimal
import struct

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    connector_connection,
    each_askers_answers,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10)) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 'a'), (2, 'b')",
]

STATEMENTS = [
    ("SELECT ?", ("a",)),
    ("SELECT ?", ("héllo",)),
    ("SELECT ?", (1,)),
    ("SELECT ?", (-1,)),
    ("SELECT ?", (300,)),
    ("SELECT ?", (70000,)),
    ("SELECT ?", (5000000000,)),
    ("SELECT ?", (1.5,)),
    ("SELECT ?", (None,)),
    ("SELECT ?", (decimal.Decimal("1.50"),)),
    ("SELECT ?", (datetime.datetime(2024, 1, 2, 3, 4, 5),)),
    ("SELECT ?", (datetime.datetime(2024, 1, 2, 3, 4, 5, 120000),)),
    ("SELECT ?", (datetime.date(2024, 1, 2),)),
    ("SELECT ?, v, ? FROM t WHERE id = ?", ("x", 2, 1)),
    ("SELECT v FROM t WHERE id IN (?, ?) ORDER BY id", (1, 2)),
]


def _answers(port: int) -> list[tuple]:
    """(statement, values, each column definition mysql-connector-python read for it, at prepare
    and at execute, as (name, type, length, flags, decimals, charset), the rows it decoded)."""
    import mysql.connector.protocol as protocol
    from mysql.connector import utils

    captured: list[tuple] = []
    original = protocol.MySQLProtocol.parse_column

    def parse_column(packet: bytes, encoding: str = "utf-8"):
        rest = packet[4:]
        for _ in range(4):
            rest, _skipped = utils.read_lc_string(rest)
        rest, name = utils.read_lc_string(rest)
        rest, _skipped = utils.read_lc_string(rest)
        charset, length, code, flags, decimals = struct.unpack("<xHIBHBxx", rest)
        captured.append((name.decode(), code, length, flags, decimals, charset))
        return original(packet, encoding)

    protocol.MySQLProtocol.parse_column = staticmethod(parse_column)
    conn = connector_connection(port, "d")
    out: list[tuple] = []
    try:
        for sql, values in STATEMENTS:
            cur = conn.cursor(prepared=True)
            captured.clear()
            cur.execute(sql, values)
            rows = [tuple(row) for row in cur.fetchall()]
            out.append((sql, values, list(captured), rows))
            cur.close()
    finally:
        conn.close()
        protocol.MySQLProtocol.parse_column = staticmethod(original)
    return out


def test_a_bare_placeholder_is_typed_by_its_value_as_mariadb(tmp_path):
    ((theirs, ours),) = each_askers_answers(tmp_path, SETUP, _answers)
    # what the comparison stands on: MariaDB's own answer for one of them (the prepare answer's
    # parameter and column, then the execution's column)
    assert theirs[2][2] == [("?", 6, 0, 128, 0, 63), ("?", 6, 0, 128, 0, 63), ("?", 1, 4, 161, 0, 63)]
    assert answer_differences(theirs, ours) == ""
