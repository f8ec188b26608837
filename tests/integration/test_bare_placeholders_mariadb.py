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
    return _answers_of(port, STATEMENTS)


def _answers_of(port: int, statements: list[tuple[str, tuple]]) -> list[tuple]:
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
        for sql, values in statements:
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


# (the type code a parameter is sent as, its value): MariaDB answers a string sent as STRING a
# CHAR, as VAR_STRING or VARCHAR a VARCHAR, a blob type as that blob, binary, as long as its
# bytes, and a DECIMAL as the DECIMAL or NEWDECIMAL it was sent as
SENT_AS = [(code, value) for code in (0, 246) for value in ("1.50", "-7")] + [
    (code, value) for code in (253, 254, 15, 249, 250, 251) for value in ("ab", "héllo", b"\x80b")
] + [(252, "héllo")]


def _answers_sent_as(port: int) -> list[tuple]:
    """(type code, value, the execution's column definition, the rows) for `SELECT ?` with each
    value of SENT_AS sent as its type code (mysql-connector-python's execute packet with the
    parameter's type byte rewritten)."""
    import mysql.connector.protocol as protocol

    make_execute = protocol.MySQLProtocol.make_stmt_execute
    sent_as: list[int] = []

    def rewritten(self, statement_id, data=(), parameters=(), flags=0, *args, **kwargs):
        packet = bytearray(make_execute(self, statement_id, data, parameters, flags, *args, **kwargs))
        # statement id, flags, iteration count, the NULL bitmap, new-params-bound, then the types
        packet[4 + 1 + 4 + (len(data) + 7) // 8 + 1] = sent_as[0]
        return bytes(packet)

    protocol.MySQLProtocol.make_stmt_execute = rewritten
    try:
        answers = []
        for code, value in SENT_AS:
            sent_as[:] = [code]
            (_sql, _values, columns, rows), = _answers_of(port, [("SELECT ?", (value,))])
            answers.append((code, value, columns[-1], rows))
        return answers
    finally:
        protocol.MySQLProtocol.make_stmt_execute = make_execute


def test_a_bare_placeholder_is_typed_as_the_type_it_was_sent_as(tmp_path):
    ((theirs, ours),) = each_askers_answers(tmp_path, SETUP, _answers_sent_as)
    assert theirs[2][2] == ("?", 246, 5, 129, 2, 63)  # MariaDB's: the NEWDECIMAL it was sent as
    assert theirs[4][2][:2] == ("?", 253)  # and a VAR_STRING
    assert answer_differences(theirs, ours) == ""
