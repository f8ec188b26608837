"""COM_STMT_BULK_EXECUTE (protocol/binary.py, server/bulk.py): the command and its rows against
the bytes MariaDB Connector/Python (libmariadb 3.3) sent to a MariaDB 10.11 for
`executemany("INSERT INTO t (s, n) VALUES (?, ?)", [("ab", 5), (None, DEFAULT)])`, whole, byte
by byte through a ServerConnection, cut short and with bytes after it; the negotiation of
MARIADB_CLIENT_STMT_BULK_OPERATIONS; where server/bulk.py finds a statement's VALUES rows and
which placeholders take a DEFAULT or IGNORE indicator."""

from __future__ import annotations

import pytest

from protocol.binary import (
    BULK_SEND_TYPES_TO_SERVER,
    ComStmtBulkExecute,
    Indicator,
    ParamType,
    decode_bulk_rows,
    decode_stmt_command,
    encode_bulk_rows,
)
from protocol.connection import (
    DEFAULT_CLIENT_CAPABILITIES,
    DEFAULT_SERVER_CAPABILITIES,
    ServerConnection,
)
from protocol.errors import ER_MALFORMED_PACKET, RemoteProtocolError
from protocol.messages import (
    EXTENDED_METADATA,
    MARIADB_CLIENT_EXTENDED_METADATA,
    MARIADB_CLIENT_STMT_BULK_OPERATIONS,
    STMT_BULK_OPERATIONS,
    Capability,
    ComUnknown,
    FieldType,
    HandshakeResponse,
)
from protocol.packets import encode_packet
from server.bulk import shape
from server.prepared import split_placeholders
from tests.unit.test_binary_fast import same_decoding
from tests.unit.test_connection import SALT, login, pump

# statement id 0xFFFFFFFF (the statement just prepared), SEND_TYPES_TO_SERVER, types
# VAR_STRING and TINY, then the rows: (NONE 'ab', NONE 5), (NULL, DEFAULT)
GOLDEN = bytes.fromhex("fa ffffffff 8000 fd00 0100 00 02 6162 00 05 01 02")
TYPES = [ParamType(FieldType.VAR_STRING), ParamType(FieldType.TINY)]
ROWS = [[b"ab", 5], [None, Indicator.DEFAULT]]


def test_golden_command_whole():
    command = decode_stmt_command(GOLDEN)
    assert command == ComStmtBulkExecute(0xFFFFFFFF, BULK_SEND_TYPES_TO_SERVER, GOLDEN[7:])
    assert command.encode() == GOLDEN
    assert decode_bulk_rows(command.params, 2, None, True) == (ROWS, TYPES)
    assert encode_bulk_rows(TYPES, ROWS) == command.params
    assert same_decoding(GOLDEN) == command  # the struct path and the declaration agree


def test_golden_command_byte_by_byte_through_the_server_connection():
    server, _client = login()
    [event] = pump(encode_packet(GOLDEN, 0)[0], server, step=1)
    assert isinstance(event, ComUnknown) and bytes((event.code,)) + event.payload == GOLDEN


def test_rows_without_types_take_the_bound_ones():
    block = encode_bulk_rows(TYPES, [[b"c", 1], [b"d", Indicator.IGNORE]], send_types=False)
    assert decode_bulk_rows(block, 2, TYPES, False) == ([[b"c", 1], [b"d", Indicator.IGNORE]], TYPES)


@pytest.mark.parametrize("block, bound, send_types", [
    (GOLDEN[7:-1], None, True),  # the last row cut short
    (GOLDEN[7:] + b"\x00", None, True),  # a row begun after the last one
    (GOLDEN[7:11], None, True),  # types, no row
    (GOLDEN[7:] .replace(b"\x01\x02", b"\x01\x04"), None, True),  # no such indicator
    (GOLDEN[11:], None, False),  # types never bound
    (bytes.fromhex("0e00 0100") + GOLDEN[11:], None, True),  # no such parameter type
], ids=["cut", "trailing", "no_rows", "indicator", "unbound", "type"])
def test_rows_that_do_not_read_are_malformed(block, bound, send_types):
    with pytest.raises(RemoteProtocolError) as info:
        decode_bulk_rows(block, 2, bound, send_types)
    assert info.value.error is ER_MALFORMED_PACKET and not info.value.fatal


def test_a_command_shorter_than_its_fixed_fields_is_malformed():
    for cut in range(1, 7):
        assert same_decoding(GOLDEN[:cut])[0] == "RemoteProtocolError"


@pytest.mark.parametrize("server_mysql, client_ext, negotiated", [
    (False, MARIADB_CLIENT_STMT_BULK_OPERATIONS | MARIADB_CLIENT_EXTENDED_METADATA, STMT_BULK_OPERATIONS | EXTENDED_METADATA),
    (False, MARIADB_CLIENT_STMT_BULK_OPERATIONS, STMT_BULK_OPERATIONS),
    (False, 0, 0),
    (True, MARIADB_CLIENT_STMT_BULK_OPERATIONS, 0),  # a greeting with CLIENT_MYSQL set offers none
])
def test_bulk_operations_are_negotiated_as_mariadb_does(server_mysql, client_ext, negotiated):
    caps = DEFAULT_SERVER_CAPABILITIES if server_mysql else DEFAULT_SERVER_CAPABILITIES & ~Capability.CLIENT_LONG_PASSWORD
    server = ServerConnection(5, "10.11.99-MariaDB", SALT, caps,
                              mariadb_capabilities=MARIADB_CLIENT_EXTENDED_METADATA | MARIADB_CLIENT_STMT_BULK_OPERATIONS)
    server.greeting()
    login_packet = HandshakeResponse(int(DEFAULT_CLIENT_CAPABILITIES), "u", b"", None, "mysql_native_password",
                                     mariadb_capabilities=client_ext)
    server.receive_data(encode_packet(login_packet.encode(), 1)[0])
    assert isinstance(server.next_event(), HandshakeResponse)
    assert server.capabilities >> 32 << 32 == negotiated


# (statement, its VALUES rows' text when they hold every placeholder, per placeholder what a
# DEFAULT and an IGNORE indicator become there: None where they cannot stand, 4032)
SHAPES = [
    ("INSERT INTO t (s, n) VALUES (?, ?)", "(?, ?)", [("DEFAULT", "DEFAULT")] * 2),
    ("insert into t values (?, 'a?'), (?+1, `c?`) -- ?", "(?, 'a?'), (?+1, `c?`)",
     [("DEFAULT", "DEFAULT"), None]),
    ("REPLACE t VALUE (CONCAT(?, 'x'), ?)", "(CONCAT(?, 'x'), ?)", [None, ("DEFAULT", "DEFAULT")]),
    ("INSERT INTO t (id, s) VALUES (?, ?) ON DUPLICATE KEY UPDATE s = VALUES(s)", "(?, ?)",
     [("DEFAULT", "DEFAULT")] * 2),
    ("INSERT INTO t (id, s) VALUES (?, ?) ON DUPLICATE KEY UPDATE s = ?, n = ? + 1", None,
     [("DEFAULT", "DEFAULT")] * 3 + [None]),
    ("INSERT INTO t SET id = ?, s = ? ON DUPLICATE KEY UPDATE s = ?", None, [("DEFAULT", "DEFAULT")] * 3),
    ("UPDATE t SET s = ?, `n` = ? WHERE id = ?", None, [("DEFAULT", "s"), ("DEFAULT", "`n`"), None]),
    ("UPDATE t SET n = ? + 1, t.s = (?) WHERE id = ? ORDER BY id LIMIT ?", None, [None, None, None, None]),
    ("DELETE FROM t WHERE id = ?", None, [None]),
]


@pytest.mark.parametrize("sql, rows, defaults", SHAPES)
def test_where_the_rows_and_the_value_slots_are(sql, rows, defaults):
    found = shape(split_placeholders(sql))
    assert found is not None and found.text == sql
    assert (None if found.rows is None else sql[found.rows[0] : found.rows[1]]) == rows
    assert list(found.defaults) == defaults
