"""The two shortcuts of a kept read's execution (server/prepared.py `answer_on_receipt`), held
to the general path they skip:

- `IntParams`: a parameter block laid out as one already read (non-NULL integers of fixed-size
  types, types sent or not) read at once: the values `decode_execute_params` reads with the same
  bound types, or None, for every block (valid, of other layouts, damaged); in a whole
  COM_STMT_EXECUTE (`read_execute`), what `plain_execute` then `read` give, for those blocks
  in plain, flagged, other and cut commands; the statement id where the decoder reads it;
- `ResultHead` + `ServerConnection.send_rows` (and `send_binary_rows`, the rows encoded in the
  same pass: a value a column cannot carry raises, nothing sent): a result set's column block
  and closing packet kept across executions: the bytes and state `send(BinaryResultSet(...))` gives, or for text
  rows `send(ResultSet(...))` (a text result's head is kept by the session too), with and
  without CLIENT_DEPRECATE_EOF and MariaDB's extended metadata, for each server status, zero to
  many rows, and after a command of 16 MiB (whose answer does not start at sequence id 1); a
  status saying more results follow is refused (those are `send`'s).
"""

from __future__ import annotations

import decimal
import random
import struct

import pytest

from protocol.binary import (
    COM_STMT_EXECUTE,
    COM_STMT_FETCH,
    CURSOR_TYPE_READ_ONLY,
    EXECUTE_HEAD,
    BinaryResultSet,
    BinaryRowEncoder,
    IntParams,
    ParamType,
    ResultHead,
    UncarriedValue,
    decode_execute_params,
    decode_stmt_command,
    encode_execute_params,
    plain_execute,
)
from protocol.connection import DEFAULT_CLIENT_CAPABILITIES, ServerState
from protocol.errors import LocalProtocolError
from protocol.messages import (
    EXTENDED_METADATA,
    Capability,
    ColumnDefinition,
    FieldType,
    ResultSet,
    ServerStatus,
    text_row_payloads,
)
from protocol.packets import MAX_PAYLOAD, encode_packet
from tests.unit.test_connection import login, pump

_RANGES = {FieldType.TINY: 8, FieldType.SHORT: 16, FieldType.YEAR: 16, FieldType.INT24: 32,
           FieldType.LONG: 32, FieldType.LONGLONG: 64}
_OTHER = [FieldType.DOUBLE, FieldType.VAR_STRING, FieldType.NULL, FieldType.NEWDECIMAL]


def _value(rng: random.Random, ptype: ParamType) -> int:
    bits = _RANGES[ptype.type]
    return rng.randrange(1 << bits) if ptype.unsigned else rng.randrange(-(1 << bits - 1), 1 << bits - 1)


def _block(types: list[ParamType], values: list[object], new_bound: bool) -> bytes:
    return encode_execute_params(types, values, send_types=new_bound)


_SAMPLES = {FieldType.DOUBLE: 1.5, FieldType.VAR_STRING: b"7", FieldType.NULL: None,
            FieldType.NEWDECIMAL: decimal.Decimal("1.5")}


def _decoded(block: bytes, count: int, types: list[ParamType]) -> list[object] | None:
    try:
        return decode_execute_params(block, count, types)[0]
    except Exception:
        return None


def _damaged(block: bytes, rng, copies: int = 10) -> list[bytes]:
    """`copies` copies of `block`, each with one byte at random set to a random value."""
    out = []
    for _ in range(copies):
        damaged = bytearray(block)
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        out.append(bytes(damaged))
    return out


def test_int_params_read_what_the_decoder_reads():
    rng = random.Random(17)
    for _ in range(400):
        count = rng.randint(1, 10)
        types = [ParamType(rng.choice(list(_RANGES)), rng.random() < 0.3) for _ in range(count)]
        new_bound = rng.random() < 0.5
        first = _block(types, [_value(rng, t) for t in types], new_bound)
        layout = IntParams.of(first, count, types)
        assert layout is not None
        assert list(layout.read(first)) == _decoded(first, count, types)
        for _ in range(20):  # the same layout, other values: read alike
            block = _block(types, [_value(rng, t) for t in types], new_bound)
            assert list(layout.read(block)) == _decoded(block, count, types)
        # another layout: a NULL, the other flag, another type, a byte more or less, any damage
        values = [_value(rng, t) for t in types]
        nulled = list(values)
        nulled[rng.randrange(count)] = None
        other, othered = list(types), list(values)
        at = rng.randrange(count)
        other[at] = ParamType(rng.choice(_OTHER))
        othered[at] = _SAMPLES[other[at].type]
        others = [
            _block(types, nulled, new_bound),
            _block(types, values, not new_bound),
            _block(other, othered, True),
            first + b"\x00",
            first[:-1],
        ]
        others += _damaged(first, rng)
        for block in others:
            read = layout.read(block)
            if read is not None:  # same layout after all: then the decoder's values
                assert list(read) == _decoded(block, count, types), block.hex()
        assert layout.read(_block(types, values, not new_bound)) is None
        for block in [first, *others]:  # in a whole command: `plain_execute` then `read`
            for payload in _executes(rng, block):
                execute = plain_execute(payload)
                assert layout.read_execute(payload) == (None if execute is None else layout.read(execute[1]))


def _executes(rng: random.Random, block: bytes) -> list[bytes]:
    """COM_STMT_EXECUTE payloads around `block`: plain, with a flag, another command, cut short."""
    statement = rng.randrange(1 << 32).to_bytes(4, "little")
    plain = bytes((COM_STMT_EXECUTE,)) + statement + b"\x00" + (1).to_bytes(4, "little") + block
    flagged = bytearray(plain)
    flagged[5] = rng.choice((CURSOR_TYPE_READ_ONLY, 2, 4))
    return [plain, bytes(flagged), bytes((COM_STMT_FETCH,)) + plain[1:], plain[:rng.randrange(len(plain))]]


def test_the_statement_id_of_an_execute_is_the_decoder_s():
    rng = random.Random(5)
    for _ in range(50):
        payload = _executes(rng, bytes(rng.randrange(256) for _ in range(rng.randrange(12))))[0]
        assert EXECUTE_HEAD.unpack_from(payload)[1] == decode_stmt_command(payload).statement_id


def test_no_layout_for_nulls_other_types_or_no_parameters():
    ints = [ParamType(FieldType.LONG), ParamType(FieldType.LONGLONG, True)]
    assert IntParams.of(_block(ints, [1, None], True), 2, ints) is None
    mixed = [ParamType(FieldType.LONG), ParamType(FieldType.VAR_STRING)]
    assert IntParams.of(_block(mixed, [1, b"x"], True), 2, mixed) is None
    assert IntParams.of(b"", 0, []) is None
    assert IntParams.of(_block(ints, [1, 2], True) + b"\x00", 2, ints) is None


def _columns() -> tuple[ColumnDefinition, ...]:
    return (ColumnDefinition("id", FieldType.LONG, table="t", org_name="id"),
            ColumnDefinition("c", FieldType.STRING, table="t", org_name="c", charset=45, length=480))


_COMMANDS = {"binary": bytes.fromhex("17 01000000 00 01000000"), "text": b"\x03SELECT id, c FROM t"}


_PATHS = {"binary": ("send", "send_rows", "send_binary_rows"), "text": ("send", "send_rows")}


def _answer(server, path: str, protocol: str, columns, rows, status: int, head: ResultHead | None = None) -> bytes:
    """The bytes `send` (of the whole result set), `send_rows` or `send_binary_rows` (through
    `head`, or one made now) give for `rows` in `protocol`."""
    if path == "send_binary_rows":
        return server.send_binary_rows(head or ResultHead.of(columns, server.capabilities), status, rows,
                                       BinaryRowEncoder(columns))
    if protocol == "binary":
        encoded = BinaryRowEncoder(columns).encode_rows(rows)
        if path == "send":
            return server.send(BinaryResultSet(columns, status=status, encoded_rows=encoded))
    else:
        if path == "send":
            return server.send(ResultSet(columns, rows, status))
        encoded = text_row_payloads(rows, len(columns))
    return server.send_rows(head or ResultHead.of(columns, server.capabilities), status, encoded)


@pytest.mark.parametrize("protocol", ["binary", "text"])
@pytest.mark.parametrize("caps", [0, int(Capability.CLIENT_DEPRECATE_EOF), EXTENDED_METADATA])
@pytest.mark.parametrize("nrows", [0, 1, 3, 300])
def test_send_rows_is_send_of_the_result_set(protocol, caps, nrows):
    columns = _columns()
    client_caps = int(DEFAULT_CLIENT_CAPABILITIES) | (caps & 0xFFFFFFFF)

    def logged_in():
        server = login(client_caps=client_caps)[0]
        server.capabilities |= caps & EXTENDED_METADATA  # (as a MariaDB client's login sets it)
        return server

    head = ResultHead.of(columns, logged_in().capabilities)
    rows = [(i, "x" * (i % 50) if i % 7 else None) for i in range(nrows)]
    command = encode_packet(_COMMANDS[protocol], 0)[0]
    for status in (ServerStatus.AUTOCOMMIT, ServerStatus.IN_TRANS, ServerStatus.IN_TRANS | ServerStatus.AUTOCOMMIT,
                   0, ServerStatus.AUTOCOMMIT):  # (the last one again: from the cache)
        status = int(status)
        sent = []
        for path in _PATHS[protocol]:
            server = logged_in()
            assert server.capabilities & caps == caps
            pump(command, server)
            sent.append(_answer(server, path, protocol, columns, rows, status, head))
            assert server.state is ServerState.COMMAND
        assert all(wire == sent[0] for wire in sent)


def test_send_rows_refuses_a_status_saying_more_results_follow():
    server, _ = login()
    pump(encode_packet(_COMMANDS["text"], 0)[0], server)
    with pytest.raises(LocalProtocolError):
        server.send_rows(ResultHead.of(_columns(), server.capabilities), int(ServerStatus.MORE_RESULTS_EXISTS), [])


@pytest.mark.parametrize("protocol", ["binary", "text"])
def test_send_rows_after_a_command_of_sixteen_mebibytes(protocol):
    """A command of MAX_PAYLOAD bytes or more takes two packets: its answer starts at sequence
    id 2, and `send_rows` frames it as `send` does."""
    columns = _columns()
    big = _COMMANDS[protocol] + bytes(MAX_PAYLOAD)
    sent = []
    for path in _PATHS[protocol]:
        server, _ = login()
        server._decoder.max_packet = 1 << 25  # (as max_allowed_packet would allow it)
        pump(encode_packet(big, 0)[0], server)
        sent.append(_answer(server, path, protocol, columns, [(1, "a")], int(ServerStatus.AUTOCOMMIT)))
        assert server.state is ServerState.COMMAND
    assert all(wire == sent[0] for wire in sent) and struct.unpack_from("<I", sent[0])[0] >> 24 == 2


def test_send_binary_rows_of_a_value_its_column_cannot_carry_sends_nothing():
    """`UncarriedValue` raised, the connection still owing its answer (then `send` gives it)."""
    server, _ = login()
    pump(encode_packet(_COMMANDS["binary"], 0)[0], server)
    columns = _columns()
    with pytest.raises(UncarriedValue):
        server.send_binary_rows(ResultHead.of(columns, server.capabilities), int(ServerStatus.AUTOCOMMIT),
                                [(1, "a"), ("not an int", "b")], BinaryRowEncoder(columns))
    assert server.state is ServerState.RESPONDING
    server.send(BinaryResultSet(columns, ((1, "a"),), int(ServerStatus.AUTOCOMMIT)))
    assert server.state is ServerState.COMMAND
    pump(encode_packet(_COMMANDS["binary"], 0)[0], server)
    with pytest.raises(LocalProtocolError):  # more results: `send`'s, as for send_rows
        server.send_binary_rows(ResultHead.of(columns, server.capabilities), int(ServerStatus.MORE_RESULTS_EXISTS),
                                [], BinaryRowEncoder(columns))
