"""The fast paths of protocol/binary.py against their references, on every input:
- `BinaryRowEncoder` (per-column encoders chosen once) against `encode_binary_row_reference`
  (one value at a time through `_encode_value`): the same bytes, or the same LocalProtocolError,
  over every column type, signed and unsigned, and values of every kind (integers at the bounds of
  each type, floats, Decimals, dates, datetimes, times, ZeroDate, bytes, str, NULL, values the
  type cannot carry);
- server/prepared.py's `carried_rows` (each row encoded once, a column replaced by VAR_STRING
  when one of its values cannot be carried) against checking every value on its own, then
  encoding every row (`carried_reference`): the same columns and bytes, or both raise; the
  cursor path (COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY, then COM_STMT_FETCH) included;
- `decode_stmt_command` (the struct path) against `decode_stmt_command_declared` (construct):
  the same command, or the same error, on golden, random, truncated, extended and mutated
  payloads; `plain_execute` reads the same statement id and parameters from each that is a
  COM_STMT_EXECUTE without flags, and None from every other."""

from __future__ import annotations

import datetime
import decimal
import random
import struct
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.results import Result
from protocol.binary import (
    COM_STMT_EXECUTE,
    CURSOR_TYPE_READ_ONLY,
    STMT_COMMANDS,
    BinaryResultSet,
    BinaryRowEncoder,
    BinaryRows,
    ComStmtExecute,
    ComStmtFetch,
    ZeroDate,
    _encode_value,
    decode_binary_row,
    decode_stmt_command,
    decode_stmt_command_declared,
    encode_binary_row,
    encode_binary_row_reference,
    plain_execute,
)
from protocol.errors import LocalProtocolError, ProtocolError
from protocol.messages import ColumnDefinition, ColumnFlag, FieldType, ServerStatus, column
from server.prepared import PreparedStatement, PreparedStatements, carried_rows
from tests.unit.test_binary_protocol import GOLDEN_COMMANDS, mutated

UNKNOWN_TYPE = 100  # no binary form: any non-NULL value fails
TYPES = [*FieldType, UNKNOWN_TYPE]
_INT_BOUNDS = [b + d for n in (8, 16, 24, 32, 64) for b in (-(2 ** (n - 1)), 2 ** (n - 1) - 1, 2**n - 1, 0)
               for d in (-1, 0, 1)]


class Shown:
    """A value of no type the engine gives: only its text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Shown({self.text!r})"


texts = st.one_of(
    st.text(st.characters(blacklist_categories=()), max_size=8),  # lone surrogates included
    st.sampled_from(["12", "-7", "3.5", "1e3", "2010-10-17", "2010-10-17 19:27:30.000001", "0000-00-00",
                     "-838:59:59.5", "12:30:00", "abc", "", " 4 ", "x" * 300]),
)
values = st.one_of(
    st.none(),
    st.sampled_from(_INT_BOUNDS),
    st.integers(),
    st.booleans(),
    st.floats(),
    st.decimals(),
    st.dates(),
    st.datetimes(),
    st.times(),
    st.timedeltas(),
    st.builds(ZeroDate, st.integers(0, 9999), st.integers(0, 12), st.integers(0, 31), st.integers(0, 23),
              st.integers(0, 59), st.integers(0, 59), st.integers(0, 999_999), st.booleans()),
    st.binary(max_size=8),
    texts,
    st.sampled_from([b"12", b"-3.5", b"2010-10-17 19:27:30", b"12:30:00", b"\xff", b"x" * 300]),
    st.binary(max_size=4).map(bytearray),
    texts.map(Shown),
)
columns = st.builds(
    lambda ftype, unsigned, as_enum, decimals: ColumnDefinition(
        "c", ftype, flags=(ColumnFlag.UNSIGNED | ColumnFlag.BINARY) if as_enum and unsigned else
        (int(ColumnFlag.UNSIGNED) if unsigned else 0), decimals=decimals),
    st.sampled_from(TYPES), st.booleans(), st.booleans(), st.sampled_from([0, 2, 6, 31, 39]),
)


def outcome(encode: Any, *args: Any) -> Any:
    """What `encode` gives: its result, or the class and text of the LocalProtocolError it raises."""
    try:
        return encode(*args)
    except LocalProtocolError as exc:
        return ("LocalProtocolError", str(exc))


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(columns, values), min_size=1, max_size=12))
def test_encoder_equals_the_per_value_reference(pairs):
    cols = [col for col, _ in pairs]
    row = [value for _, value in pairs]
    assert outcome(encode_binary_row, cols, row) == outcome(encode_binary_row_reference, cols, row)


@settings(max_examples=500, deadline=None)
@given(st.lists(columns, min_size=1, max_size=5), st.data())
def test_encoder_over_many_rows_equals_the_reference_row_by_row(cols, data):
    rows = data.draw(st.lists(st.lists(values, min_size=len(cols), max_size=len(cols)), max_size=6))
    expected = [outcome(encode_binary_row_reference, cols, row) for row in rows]
    errors = [e for e in expected if isinstance(e, tuple)]
    got = outcome(BinaryRowEncoder(cols).encode_rows, rows)
    assert got == (errors[0] if errors else expected)  # the first row that fails decides


@pytest.mark.parametrize("ftype", [FieldType.TINY, FieldType.SHORT, FieldType.YEAR, FieldType.INT24,
                                   FieldType.LONG, FieldType.LONGLONG])
def test_integers_at_the_bounds_of_each_type(ftype):
    for flags in (0, ColumnFlag.UNSIGNED):
        col = ColumnDefinition("i", ftype, flags=flags)
        for value in _INT_BOUNDS:
            assert outcome(encode_binary_row, [col], [value]) == outcome(encode_binary_row_reference, [col], [value])


def test_errors_name_the_first_column_that_cannot_carry_its_value():
    cols = [column("a", FieldType.LONG), column("b", FieldType.DATE), column("c", FieldType.TINY)]
    with pytest.raises(LocalProtocolError) as info:
        encode_binary_row(cols, [1, "not a date", 300])
    assert info.value.column == 1 and "'b'" in str(info.value)
    with pytest.raises(LocalProtocolError, match="2 values for 3 columns"):
        encode_binary_row(cols, [1, None])
    # a NULL column sends NULL whatever the value; NULLs cost no bytes
    assert encode_binary_row([column("n", FieldType.NULL), column("a", FieldType.LONG)], ["x", None]) == b"\x00\x0c"


# -- carried_rows: each row encoded once, the columns and bytes of the per-value check ---------

_TEXT_TYPES = (FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB)


def can_carry(col: ColumnDefinition, value: Any) -> bool:
    """Whether `value` has a binary form in `col`'s type (as the server checked before sending)."""
    if value is None:
        return True
    try:
        _encode_value(col.type, value, col.decimals, bool(col.flags & ColumnFlag.UNSIGNED))
    except (ValueError, TypeError, OverflowError, struct.error, decimal.InvalidOperation, UnicodeError):
        return False
    return True


def carried_reference(cols: tuple[ColumnDefinition, ...], rows: list[list[Any]]) -> Any:
    """The reference of `carried_rows`: every value of a column not sent as text checked on its
    own (`can_carry`), each column that cannot carry one of them replaced by VAR_STRING, then
    every row encoded with the columns that result, one value at a time."""
    out = list(cols)
    for i, col in enumerate(cols):
        if col.type in _TEXT_TYPES:
            continue
        if any(not can_carry(col, row[i]) for row in rows):
            out[i] = column(col.name, FieldType.VAR_STRING, schema=col.schema, table=col.table,
                            org_table=col.org_table, org_name=col.org_name)
    return tuple(out), [encode_binary_row_reference(out, row) for row in rows]


@settings(max_examples=1500, deadline=None)
@given(st.lists(columns, min_size=1, max_size=4), st.data())
@example([column("k", FieldType.LONG)], None)
def test_carried_rows_equal_the_per_value_check_then_encoding(cols, data):
    if data is None:  # the explicit example: only the third row's value cannot be carried
        rows = [[1], [None], ["abc"], [2]]
    else:
        rows = data.draw(st.lists(st.lists(values, min_size=len(cols), max_size=len(cols)), max_size=5))
    cols = tuple(cols)
    assert outcome(carried_rows, cols, rows) == outcome(carried_reference, cols, rows)


def test_a_column_that_fails_only_in_a_later_row_is_sent_as_text_in_every_row():
    cols = (column("id", FieldType.LONGLONG), column("k", FieldType.LONG), column("d", FieldType.DATETIME))
    rows = [[1, 5, datetime.datetime(2020, 1, 2, 3, 4, 5)], [2, 6, None], [3, "7.5", "garbage"]]
    carried, encoded = carried_rows(cols, rows)
    assert [c.type for c in carried] == [FieldType.LONGLONG, FieldType.VAR_STRING, FieldType.VAR_STRING]
    assert (carried, encoded) == carried_reference(cols, rows)
    assert [decode_binary_row(e, carried) for e in encoded] == [
        (1, b"5", b"2020-01-02 03:04:05"), (2, b"6", None), (3, b"7.5", b"garbage")]
    # NULL column with a value: text too; a value even VAR_STRING cannot carry: our bug
    assert carried_rows((column("n", FieldType.NULL),), [[None], [3]])[0][0].type == FieldType.VAR_STRING
    with pytest.raises(LocalProtocolError):
        carried_rows((column("s", FieldType.VAR_STRING),), [["\ud800"]])


class _Conn:
    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.client_charset = None  # UTF-8

    def send(self, message: Any) -> bytes:
        self.sent.append(message)
        return b""


class _Session:
    """What PreparedStatements uses of a ClientSession, the statement's result given."""

    def __init__(self, result: Result) -> None:
        self.result = result
        self.conn = _Conn()
        self.results_charset = None  # answers sent as stored
        self.server = SimpleNamespace(stats=SimpleNamespace(com=Counter()),
                                      query_logs=SimpleNamespace(active=False, slow=None, general=None))

    async def run_statement(self, sql: str) -> Result:
        return self.result

    def status_flags(self) -> int:
        return int(ServerStatus.AUTOCOMMIT)

    def write(self, data: bytes) -> None:
        pass

    def send_error(self, exc: Exception) -> None:
        raise exc


def _run(coro: Any) -> None:
    with pytest.raises(StopIteration):
        coro.send(None)


def test_execute_and_cursor_fetches_send_the_same_rows():
    """COM_STMT_EXECUTE without a cursor, and with one then COM_STMT_FETCH two rows at a time: the
    same columns (k replaced by VAR_STRING for its third row) and the same row payloads."""
    from engine.coltypes import declared_type

    kinds = [declared_type("int", [], False, False), declared_type("int", [], False, False),
             declared_type("char", ["120"], False, False)]
    rows = [(i, "7.5" if i == 3 else i * 10, f"c{i}") for i in range(1, 6)]
    session = _Session(Result(columns=["id", "k", "c"], column_types=kinds, rows=rows))
    statements = PreparedStatements(session)  # type: ignore[arg-type]
    statements._statements[1] = PreparedStatement(1, ["SELECT id, k, c FROM t"])
    _run(statements.handle(ComStmtExecute(1).encode()))
    _run(statements.handle(ComStmtExecute(1, CURSOR_TYPE_READ_ONLY).encode()))
    for _ in range(3):
        _run(statements.handle(ComStmtFetch(1, 2).encode()))
    whole, opened, *fetched = session.conn.sent
    assert isinstance(whole, BinaryResultSet) and isinstance(opened, BinaryResultSet) and opened.cursor
    assert whole.columns == opened.columns
    assert [c.type for c in whole.columns] == [FieldType.LONG, FieldType.VAR_STRING, FieldType.STRING]
    whole_rows = whole.payloads(0)[5:-1]  # count, 3 definitions, EOF ... EOF
    assert whole_rows == carried_reference(tuple(c for c in whole.columns), [list(r) for r in rows])[1]
    assert all(isinstance(f, BinaryRows) for f in fetched) and [f.last for f in fetched] == [False, False, True]
    assert [p for f in fetched for p in f.payloads(0)[:-1]] == whole_rows


# -- decode_stmt_command: the struct path against the declaration -----------------------------


def same_decoding(payload: bytes) -> Any:
    """What both decoders give for `payload` (the command, or the ProtocolError's class, MySQL
    error, fatality and text), asserting they agree."""
    outcomes = []
    for decode in (decode_stmt_command, decode_stmt_command_declared):
        try:
            outcomes.append(decode(payload))
        except ProtocolError as exc:
            outcomes.append((type(exc).__name__, exc.error, exc.fatal, str(exc)))
    assert outcomes[0] == outcomes[1], payload.hex()
    plain = plain_execute(payload)  # an execution without flags, read with less
    command = outcomes[0]
    if isinstance(command, ComStmtExecute) and command.flags == 0:
        assert plain == (command.statement_id, command.params), payload.hex()
    else:
        assert plain is None, payload.hex()
    return outcomes[0]


def test_struct_path_equals_construct_on_golden_truncated_and_extended_payloads():
    for payload, command in GOLDEN_COMMANDS:
        assert same_decoding(payload) == command
        for cut in range(len(payload)):
            same_decoding(payload[:cut])
        for tail in (b"\x00", b"junk", bytes(range(256))):
            same_decoding(payload + tail)
    assert same_decoding(b"")[0] == same_decoding(b"\x03SELECT 1")[0] == "LocalProtocolError"


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(sorted(STMT_COMMANDS) + [0x03, 0x1B, 0xFF]), st.binary(max_size=24))
def test_struct_path_equals_construct_on_random_payloads(code, body):
    same_decoding(bytes((code,)) + body)


def test_struct_path_equals_construct_on_mutated_payloads():
    rng = random.Random(17)
    for payload, _ in GOLDEN_COMMANDS:
        for _ in range(500):
            same_decoding(mutated(payload, rng))


def test_execute_fixed_fields_are_read_as_declared():
    payload = bytes((COM_STMT_EXECUTE,)) + (0xFFFFFFFF).to_bytes(4, "little") + b"\x81" + (7).to_bytes(4, "little") + b"\x01\x02"
    assert decode_stmt_command(payload) == ComStmtExecute(0xFFFFFFFF, 0x81, 7, b"\x01\x02")
