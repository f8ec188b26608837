"""protocol/binary.py: the COM_STMT_* commands, parameter blocks, binary rows and the prepare
answer against golden bytes (MySQL's protocol documentation examples where it has them), each
parser whole, byte by byte through a ServerConnection, and with trailing bytes; server/prepared.py's
placeholder split and literals (read back by the engine's own lexer)."""

from __future__ import annotations

import datetime
import decimal
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lexer import extract
from protocol.binary import (
    BinaryResultSet,
    BinaryRows,
    ComStmtClose,
    ComStmtExecute,
    ComStmtFetch,
    ComStmtPrepare,
    ComStmtReset,
    ComStmtSendLongData,
    ParamType,
    PrepareOK,
    ZeroDate,
    decode_binary_row,
    decode_execute_params,
    decode_stmt_command,
    encode_binary_row,
    encode_execute_params,
)
from protocol.connection import ServerState
from protocol.errors import ER_MALFORMED_PACKET, LocalProtocolError, RemoteProtocolError
from protocol.messages import (
    EOF,
    Capability,
    ColumnFlag,
    ComUnknown,
    FieldType,
    ServerStatus,
    column,
)
from protocol.packets import encode_packet
from server.prepared import literal, split_placeholders
from tests.unit.test_connection import login, pump

# (payload, command): MySQL's documentation examples for PREPARE, EXECUTE, CLOSE, RESET, FETCH.
GOLDEN_COMMANDS = [
    (bytes.fromhex("16") + b"SELECT CONCAT(?, ?) AS col1", ComStmtPrepare(b"SELECT CONCAT(?, ?) AS col1")),
    (bytes.fromhex("17 01000000 00 01000000 00 01 0f00 03666f6f"),
     ComStmtExecute(1, 0, 1, bytes.fromhex("00 01 0f00 03666f6f"))),
    (bytes.fromhex("17 02000000 01 01000000"), ComStmtExecute(2, 1, 1, b"")),
    (bytes.fromhex("18 01000000 0100") + b"abc\xff", ComStmtSendLongData(1, 1, b"abc\xff")),
    (bytes.fromhex("19 01000000"), ComStmtClose(1)),
    (bytes.fromhex("1a 01000000"), ComStmtReset(1)),
    (bytes.fromhex("1c 01000000 05000000"), ComStmtFetch(1, 5)),
]


@pytest.mark.parametrize(("payload", "command"), GOLDEN_COMMANDS)
def test_commands_whole(payload, command):
    assert decode_stmt_command(payload) == command
    assert command.encode() == payload


@pytest.mark.parametrize(("payload", "command"), GOLDEN_COMMANDS)
def test_commands_byte_by_byte_through_the_server_connection(payload, command):
    server, _client = login()
    [event] = pump(encode_packet(payload, 0)[0], server, step=1)
    assert isinstance(event, ComUnknown) and bytes((event.code,)) + event.payload == payload
    assert decode_stmt_command(bytes((event.code,)) + event.payload) == command


@pytest.mark.parametrize("payload", [p for p, c in GOLDEN_COMMANDS if isinstance(c, ComStmtClose | ComStmtReset | ComStmtFetch)])
def test_fixed_size_commands_ignore_trailing_bytes_and_refuse_missing_ones(payload):
    assert decode_stmt_command(payload + b"\x00junk") == decode_stmt_command(payload)
    with pytest.raises(RemoteProtocolError) as info:
        decode_stmt_command(payload[:-1])
    assert info.value.error is ER_MALFORMED_PACKET and not info.value.fatal


def test_execute_parameter_block_golden():
    # MySQL's example: one VARCHAR parameter 'foo', types sent
    values, types = decode_execute_params(bytes.fromhex("00 01 0f00 03666f6f"), 1, None)
    assert values == [b"foo"] and types == [ParamType(FieldType.VARCHAR)]
    # the same statement again without types: the bound ones are used
    values, _ = decode_execute_params(bytes.fromhex("00 00 03626172"), 1, types)
    assert values == [b"bar"]
    with pytest.raises(RemoteProtocolError):
        decode_execute_params(bytes.fromhex("00 01 0f00 03666f6f 00"), 1, None)  # trailing byte
    with pytest.raises(RemoteProtocolError):
        decode_execute_params(bytes.fromhex("00 00 03666f6f"), 1, None)  # never bound
    with pytest.raises(RemoteProtocolError):
        decode_execute_params(bytes.fromhex("00 01 0f00 04666f6f"), 1, None)  # value cut short


TEMPORAL_GOLDEN = [  # MySQL's "Binary Protocol Value" examples
    (FieldType.DATETIME, datetime.datetime(2010, 10, 17, 19, 27, 30, 1), "0b da07 0a 11 13 1b 1e 01000000"),
    (FieldType.DATETIME, datetime.datetime(2010, 10, 17, 19, 27, 30), "07 da07 0a 11 13 1b 1e"),
    (FieldType.DATE, datetime.date(2010, 10, 17), "04 da07 0a 11"),
    (FieldType.TIMESTAMP, ZeroDate(has_time=True), "00"),
    (FieldType.TIME, -datetime.timedelta(days=120, hours=19, minutes=27, seconds=30, microseconds=1),
     "0c 01 78000000 13 1b 1e 01000000"),
    (FieldType.TIME, datetime.timedelta(days=120, hours=19, minutes=27, seconds=30), "08 00 78000000 13 1b 1e"),
    (FieldType.TIME, datetime.timedelta(0), "00"),
]


@pytest.mark.parametrize(("ftype", "value", "golden"), TEMPORAL_GOLDEN)
def test_temporal_values(ftype, value, golden):
    raw = bytes.fromhex(golden)
    values, _ = decode_execute_params(b"\x00\x01" + bytes((ftype, 0)) + raw, 1, None)
    assert values == [value]
    assert encode_execute_params([ParamType(ftype)], [value]) == b"\x00\x01" + bytes((ftype, 0)) + raw
    col = column("c", ftype)
    assert encode_binary_row([col], [value]) == b"\x00\x00" + raw
    assert decode_binary_row(b"\x00\x00" + raw, [col]) == (value,)


def test_engine_text_forms_of_temporal_values_encode_as_their_values():
    assert encode_binary_row([column("c", FieldType.DATETIME)], ["2010-10-17 19:27:30.000001"]) == \
        bytes.fromhex("00 00 0b da07 0a 11 13 1b 1e 01000000")
    assert encode_binary_row([column("c", FieldType.TIME)], ["-2899:27:30.000001"]) == \
        bytes.fromhex("00 00 0c 01 78000000 13 1b 1e 01000000")


def test_every_integer_type_signed_and_unsigned():
    cases = [
        (FieldType.TINY, -128, "80"), (FieldType.TINY, 255, "ff"), (FieldType.SHORT, -2, "feff"),
        (FieldType.YEAR, 2024, "e807"), (FieldType.INT24, -1, "ffffffff"), (FieldType.LONG, 2**32 - 1, "ffffffff"),
        (FieldType.LONGLONG, -(2**63), "0000000000000080"), (FieldType.LONGLONG, 2**64 - 1, "ffffffffffffffff"),
    ]
    for ftype, value, golden in cases:
        unsigned = value > 0 and ftype != FieldType.YEAR
        flags = 0x80 if unsigned else 0
        block = b"\x00\x01" + bytes((ftype, flags)) + bytes.fromhex(golden)
        assert decode_execute_params(block, 1, None) == ([value], [ParamType(ftype, unsigned)])
        col = column("c", ftype, flags=ColumnFlag.UNSIGNED if unsigned else 0)
        assert encode_binary_row([col], [value]) == b"\x00\x00" + bytes.fromhex(golden)


def test_time_parameter_hours_as_c_clients_send_them():
    """libmysqlclient / Connector/C put a TIME's hours in the hour byte with day 0 (up to 255)."""
    block = bytes.fromhex("00 01 0b00 08 01 00000000 64 02 03".replace(" ", ""))
    assert decode_execute_params(block, 1, None)[0] == [-datetime.timedelta(hours=100, minutes=2, seconds=3)]
    for bad in ("08 00 00000000 01 3c 00", "08 00 00000000 01 00 3c", "0c 00 00000000 00 00 00 40420f00", "08 02 00000000 01 00 00"):
        with pytest.raises(RemoteProtocolError):
            decode_execute_params(bytes.fromhex("00010b00" + bad.replace(" ", "")), 1, None)


def test_float_double_decimal_strings_and_nulls():
    types = [ParamType(FieldType.FLOAT), ParamType(FieldType.DOUBLE), ParamType(FieldType.NEWDECIMAL),
             ParamType(FieldType.BLOB), ParamType(FieldType.VAR_STRING), ParamType(FieldType.LONG)]
    values = [1.5, -0.1, decimal.Decimal("-12345678901234567890.000001"), bytes(range(256)), None, None]
    block = encode_execute_params(types, values)
    # NULL bitmap: params 4 and 5 -> 0x30; then the flag, the types, the four values
    assert block[:2] == b"\x30\x01"
    assert decode_execute_params(block, 6, None) == (values, types)


@pytest.mark.parametrize("text", [b"12ab", b"", b"-", b"1.2.3", b"0x10", b"NaN", b"Infinity", b"1_0", b" 3 x"])
def test_a_decimal_parameter_that_is_no_number_is_its_bytes(text):
    # mysqld reads its leading number (server.prepared.literal), where this refused it with 1210
    block = bytes.fromhex("00 01 f600") + bytes((len(text),)) + text
    assert decode_execute_params(block, 1, None) == ([text], [ParamType(FieldType.NEWDECIMAL)])
    digits = bytes.fromhex("00 01 0000 05") + b" -1e2"
    assert decode_execute_params(digits, 1, None)[0] == [decimal.Decimal("-100")]


def test_binary_row_null_bitmap_has_offset_two():
    cols = [column("a", FieldType.LONGLONG), column("b", FieldType.VAR_STRING), column("c", FieldType.DOUBLE)]
    row = encode_binary_row(cols, [1, "ab", None])
    assert row == bytes.fromhex("00 10 0100000000000000 026162")
    assert decode_binary_row(row, cols) == (1, b"ab", None)
    with pytest.raises(RemoteProtocolError):
        decode_binary_row(row + b"\x00", cols)
    wide = [column(str(i), FieldType.LONG) for i in range(7)]  # 7 + 2 bits: two bitmap bytes
    assert encode_binary_row(wide, [None] * 7) == bytes.fromhex("00 fc 01")
    with pytest.raises(LocalProtocolError):
        encode_binary_row([column("a", FieldType.LONGLONG)], ["3.5"])


def test_prepare_ok_golden_with_and_without_deprecate_eof():
    answer = PrepareOK(1, (column("col1"),), 2)
    payloads = answer.payloads(0)
    assert payloads[0] == bytes.fromhex("00 01000000 0100 0200 00 0000")  # MySQL's example
    assert PrepareOK.decode(payloads[0]).num_params == 2
    assert len(payloads) == 1 + 2 + 1 + 1 + 1 and payloads[3] == payloads[5] == EOF().encode()
    assert len(answer.payloads(Capability.CLIENT_DEPRECATE_EOF)) == 1 + 2 + 1
    assert PrepareOK(7, (), 0).payloads(0) == [bytes.fromhex("00 07000000 0000 0000 00 0000")]
    with pytest.raises(RemoteProtocolError):
        PrepareOK.decode(payloads[0] + b"\x00")


@pytest.mark.parametrize("caps", [0, int(Capability.CLIENT_DEPRECATE_EOF)])
def test_cursor_answers_close_with_cursor_exists_and_last_row_sent(caps):
    cols = (column("a", FieldType.LONGLONG),)
    opened = BinaryResultSet(cols, (), ServerStatus.AUTOCOMMIT, cursor=True).payloads(caps)
    assert len(opened) == 3 and opened[-1][0] == 0xFE
    fetched = BinaryRows(cols, ((1,), (2,)), last=True).payloads(caps)
    assert fetched[:2] == [bytes.fromhex("00 00 0100000000000000"), bytes.fromhex("00 00 0200000000000000")]
    status = int.from_bytes(fetched[-1][3:5] if not caps else fetched[-1][3:5], "little")
    assert status & ServerStatus.CURSOR_EXISTS and status & ServerStatus.LAST_ROW_SENT


def test_execute_answers_through_the_server_connection():
    server, _client = login()
    pump(encode_packet(bytes.fromhex("17 01000000 00 01000000"), 0)[0], server)
    wire = server.send(BinaryResultSet((column("a", FieldType.LONGLONG),), ((5,),)))
    assert server.state is ServerState.COMMAND and wire
    pump(encode_packet(bytes.fromhex("19 01000000"), 0)[0], server)
    server.send_nothing()  # COM_STMT_CLOSE has no answer
    assert server.state is ServerState.COMMAND


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64), st.integers(0, 9))
def test_parameter_block_garbage_is_malformed_or_values(block, count):
    try:
        decode_execute_params(block, count, None)
    except RemoteProtocolError as exc:
        assert exc.error is ER_MALFORMED_PACKET and not exc.fatal


def mutated(payload: bytes, rng: random.Random) -> bytes:
    """`payload` with 1 to 3 bytes changed, inserted or deleted; its command byte kept."""
    b = bytearray(payload)
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        if op < 0.4 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op < 0.7:
            b.insert(rng.randrange(len(b) + 1), rng.randrange(256))
        elif len(b) > 1:
            del b[rng.randrange(1, len(b))]
    b[0] = payload[0]
    return bytes(b)


def test_mutated_valid_packets_never_raise_anything_else():
    rng = random.Random(14)
    for payload, _ in GOLDEN_COMMANDS:
        for _ in range(300):
            b = mutated(payload, rng)
            try:
                command = decode_stmt_command(b)
                if isinstance(command, ComStmtExecute):
                    decode_execute_params(command.params, rng.randint(0, 3), None)
            except RemoteProtocolError as exc:
                assert exc.error is ER_MALFORMED_PACKET


# -- server/prepared.py: placeholders and literals ----------------------------------------------


def test_placeholders_outside_literals_identifiers_and_comments():
    sql = "SELECT '?', \"?\", `a?b`, ? /* ? */ -- ?\n, ? # ?\n FROM t WHERE x = 'it''s?' AND y=?"
    pieces = split_placeholders(sql)
    assert len(pieces) == 4
    assert pieces[0] == "SELECT '?', \"?\", `a?b`, "
    assert split_placeholders("SELECT 'a\\'?'") == ["SELECT 'a\\'?'"]


@pytest.mark.parametrize(("value", "ptype", "text"), [
    (5, ParamType(FieldType.LONGLONG), "5"),
    (2**64 - 1, ParamType(FieldType.LONGLONG, True), "18446744073709551615"),
    # a DOUBLE as a DOUBLE literal (mysqld's binlog writes 0.1, which reads back as a DECIMAL:
    # the statement here, and a replica replaying it, computes with the DOUBLE the client sent)
    (0.1, ParamType(FieldType.DOUBLE), "0.1e0"),
    (1.0, ParamType(FieldType.DOUBLE), "1.0e0"),
    (1e300, ParamType(FieldType.DOUBLE), "1e+300"),
    (decimal.Decimal("12.30"), ParamType(FieldType.NEWDECIMAL), "12.30"),
    (datetime.datetime(2024, 1, 2, 3, 4, 5, 60), ParamType(FieldType.DATETIME), "'2024-01-02 03:04:05.000060'"),
    (datetime.datetime(2024, 1, 2), ParamType(FieldType.DATETIME), "'2024-01-02 00:00:00'"),
    (datetime.date(2024, 1, 2), ParamType(FieldType.DATE), "'2024-01-02'"),
    (-datetime.timedelta(days=1, seconds=1, microseconds=5), ParamType(FieldType.TIME), "'-24:00:01.000005'"),
    (ZeroDate(has_time=True), ParamType(FieldType.DATETIME), "'0000-00-00 00:00:00'"),
    (b"it's \\ \x00 \n \x1a", ParamType(FieldType.VAR_STRING), "'it\\'s \\\\ \\0 \\n \\Z'"),
    (b"\xff\x00", ParamType(FieldType.VAR_STRING), "X'ff00'"),
    (b"ab", ParamType(FieldType.BLOB), "X'6162'"),
    (None, ParamType(FieldType.LONG), "NULL"),
])
def test_literals_as_mysql_inlines_them(value, ptype, text):
    assert literal(value, ptype) == text


LONG = "1.23456789012345678901234567890123456789"


@pytest.mark.parametrize(("value", "text", "warning"), [
    (decimal.Decimal(LONG), LONG, None),
    (decimal.Decimal("1E+2"), "100", None),  # no exponent: a DECIMAL, not a DOUBLE literal
    (b"12ab", "12", None),  # the leading number, as mysqld's str2my_decimal reads it
    (b" -7x", "-7", None),
    (b"1.2.3", "1.2", None),
    (b"0x10", "0", None),
    (b"1e", "1", None),
    (b"", "0", 1918),
    (b"-", "0", 1918),
    (b"NaN", "0", 1918),
    (decimal.Decimal("1e999"), "9" * 65, 1916),  # past nine words of nine digits: DECIMAL(65)'s largest
    (decimal.Decimal("-1e82"), "-" + "9" * 65, 1916),
    (decimal.Decimal("1" * 81 + ".5"), "1" * 81, None),  # no word left for the fraction
    (decimal.Decimal("1e-999"), "0", None),
    (decimal.Decimal("1e-40"), "0." + "0" * 39 + "1", None),
])
def test_decimal_parameters_as_mysqld_reads_them(value, text, warning):
    warnings: list = []
    assert literal(value, ParamType(FieldType.NEWDECIMAL), warnings) == text
    assert [code for _, code, _ in warnings] == ([warning] if warning else [])
    assert literal(value, ParamType(FieldType.DECIMAL)) == text
    if warning == 1918:
        assert warnings[0] == ("Warning", 1918, "Encountered illegal value '' when converting to DECIMAL")


def test_a_long_decimal_parameter_reads_back_exact():
    _shape, values = extract("SELECT " + literal(decimal.Decimal(LONG), ParamType(FieldType.NEWDECIMAL)))
    assert values == [decimal.Decimal(LONG)]


def test_float_literals_read_back_as_the_same_value():
    import struct
    for v in (0.1, 1 / 3, 2.5e-308, 123456789.125):
        assert float(literal(v, ParamType(FieldType.DOUBLE))) == v
        single = struct.unpack("<f", struct.pack("<f", v))[0]
        assert float(literal(single, ParamType(FieldType.FLOAT))) == single  # the 4 bytes widened, exactly


def test_every_byte_survives_the_engine_lexer():
    data = bytes(range(256))
    for ptype in (ParamType(FieldType.BLOB), ParamType(FieldType.VAR_STRING)):
        _shape, values = extract("SELECT " + literal(data, ptype))
        assert values == [data]
    text = "héllo 'quoted' \\ back\n\x00".encode()
    _shape, values = extract("SELECT " + literal(text, ParamType(FieldType.VAR_STRING)))
    assert values == [text.decode()]
