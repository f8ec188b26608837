"""`ParamsLayout` (protocol/binary.py), the shortcut of a prepared write's execution answered on
receipt (server/prepared.py `execute_on_receipt`), held to the general path it skips: a parameter
block laid out as one already read (non-NULL integers of fixed-size types and strings shorter
than 251 bytes, types sent or not) read at once gives the values `decode_execute_params` reads
with the same bound types, or None, for every block (valid, of other layouts, damaged); and a
prepared write's executions read their blocks through it, not through the decoder, while the
layout holds, with the answers and binlogged statements of the general path."""

from __future__ import annotations

import random

import pytest

from protocol.binary import ParamsLayout, ParamType, decode_execute_params
from protocol.messages import FieldType
from server import prepared
from tests.unit.test_kept_read_wire import _RANGES, _block, _damaged, _decoded, _value
from tests.unit.test_prepared_reads import _client, wire  # noqa: F401 (a fixture)
from tests.unit.test_prepared_writes import _role, answered, shell  # noqa: F401 (fixtures)

mysql_connector = pytest.importorskip("mysql.connector")

_TEXTS = [FieldType.VAR_STRING, FieldType.STRING, FieldType.VARCHAR, FieldType.BLOB, FieldType.JSON]
_OTHER = {FieldType.DOUBLE: 1.5, FieldType.NULL: None, FieldType.NEWDECIMAL: b"1.5", FieldType.DATE: None}


def _param(rng: random.Random) -> ParamType:
    if rng.random() < 0.5:
        return ParamType(rng.choice(list(_RANGES)), rng.random() < 0.3)
    return ParamType(rng.choice(_TEXTS))


def _sample(rng: random.Random, ptype: ParamType, longest: int = 250) -> object:
    if ptype.type in _RANGES:
        return _value(rng, ptype)
    return bytes(rng.randrange(256) for _ in range(rng.choice((0, 1, 7, longest))))


def test_a_layout_reads_what_the_decoder_reads():
    rng = random.Random(31)
    laid_out = 0
    for _ in range(400):
        count = rng.randint(1, 12)
        types = [_param(rng) for _ in range(count)]
        new_bound = rng.random() < 0.5
        first = _block(types, [_sample(rng, t) for t in types], new_bound)
        layout = ParamsLayout.of(first, count, types)
        assert layout is not None
        laid_out += 1
        assert layout.read(first) == _decoded(first, count, types)
        for _ in range(20):  # the same layout, other values (strings of other lengths): read alike
            block = _block(types, [_sample(rng, t) for t in types], new_bound)
            assert layout.read(block) == _decoded(block, count, types)
        values = [_sample(rng, t) for t in types]
        nulled = list(values)
        nulled[rng.randrange(count)] = None
        other, othered = list(types), list(values)
        at = rng.randrange(count)
        other[at] = ParamType(rng.choice(list(_OTHER)))
        othered[at] = _OTHER[other[at].type]
        longer = list(values)
        texts = [n for n, t in enumerate(types) if t.type in _TEXTS]
        if texts:
            longer[rng.choice(texts)] = b"y" * rng.choice((251, 300, 70000))
        others = [
            _block(types, nulled, new_bound),
            _block(types, values, not new_bound),
            _block(other, othered, True),
            _block(types, longer, new_bound),
            first + b"\x00",
            first[:-1],
        ]
        others += _damaged(first, rng)
        for block in others:
            read = layout.read(block)
            if read is not None:  # same layout after all: then the decoder's values
                assert read == _decoded(block, count, types), block.hex()
        assert layout.read(_block(types, nulled, new_bound)) is None
        assert layout.read(_block(types, values, not new_bound)) is None
        if texts:
            assert layout.read(_block(types, longer, new_bound)) is None
    assert laid_out == 400


def test_no_layout_for_nulls_other_types_long_strings_or_no_parameters():
    mixed = [ParamType(FieldType.LONG), ParamType(FieldType.VAR_STRING)]
    assert ParamsLayout.of(_block(mixed, [1, None], True), 2, mixed) is None
    assert ParamsLayout.of(_block(mixed, [1, b"x" * 251], True), 2, mixed) is None
    for other, value in _OTHER.items():
        if value is not None:
            types = [ParamType(FieldType.LONG), ParamType(other)]
            assert ParamsLayout.of(_block(types, [1, value], True), 2, types) is None
    assert ParamsLayout.of(b"", 0, []) is None
    assert ParamsLayout.of(_block(mixed, [1, b"x"], True) + b"\x00", 2, mixed) is None
    assert decode_execute_params(_block(mixed, [1, b"x"], False), 2, mixed)[0] == [1, b"x"]


def _counted_decodes(monkeypatch) -> list[int]:
    """The parameter counts of the blocks `server.prepared` decodes from now on (its
    `decode_execute_params` counted), in order."""
    decoded: list[int] = []
    decode = prepared.decode_execute_params

    def counted(block, count, *args):
        decoded.append(count)
        return decode(block, count, *args)

    monkeypatch.setattr(prepared, "decode_execute_params", counted)
    return decoded


def test_a_prepared_write_s_blocks_are_read_through_its_layout(shell, answered, monkeypatch):  # noqa: F811
    """mysql-connector's prepared cursors executing writes in a transaction: after a write's
    first execution its parameter blocks of the same layout are not decoded again; a block of
    another layout (a NULL, a string past 250 bytes) is, and the layout is found again after it;
    the statements binlogged are the values' own."""
    decoded = _counted_decodes(monkeypatch)
    writer = _client(shell)
    try:
        update, insert, other = (writer.cursor(prepared=True) for _ in range(3))
        writer.start_transaction()
        for n in range(4):
            update.execute("UPDATE w SET c=? WHERE id=?", (f"v{n}", n % 3 + 1))
            insert.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (10 + n, n, f"i{n}"))
        assert decoded == [2, 3]  # each statement's first execution only
        update.execute("UPDATE w SET c=? WHERE id=?", (None, 1))  # a NULL: decoded
        other.execute("UPDATE w SET k=? WHERE id=?", (5, 2))  # another statement's first
        with pytest.raises(mysql_connector.Error) as refused:  # too long for the column: decoded
            update.execute("UPDATE w SET c=? WHERE id=?", ("z" * 260, 3))
        assert refused.value.errno == 1406
        update.execute("UPDATE w SET c=? WHERE id=?", ("after", 3))  # decoded: its layout found again
        update.execute("UPDATE w SET c=? WHERE id=?", ("again", 2))  # through it
        insert.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (20, 2, "i"))
        assert decoded == [2, 3, 2, 2, 2, 2]
        writer.commit()
        assert answered[0] == 4 * 2 + 6
        assert _role(shell).logged[-1] == [
            *[s for n in range(4) for s in (f"UPDATE w SET c='v{n}' WHERE id={n % 3 + 1}",
                                            f"INSERT INTO w (id, k, c) VALUES ({10 + n}, {n}, 'i{n}')")],
            "UPDATE w SET c=NULL WHERE id=1", "UPDATE w SET k=5 WHERE id=2",
            "UPDATE w SET c='after' WHERE id=3", "UPDATE w SET c='again' WHERE id=2",
            "INSERT INTO w (id, k, c) VALUES (20, 2, 'i')"]
    finally:
        writer.close()


def _types_once(monkeypatch) -> None:
    """mysql-connector's prepared executions as sysbench's libmariadb sends them: the parameter
    types with a statement's first execution only (new-params-bound 0 after it)."""
    from mysql.connector.protocol import MySQLProtocol

    make = MySQLProtocol.make_stmt_execute
    sent: set[int] = set()

    def once(self, statement_id, data=(), *args, **kwargs):
        packet = make(self, statement_id, data, *args, **kwargs)
        if not data or statement_id not in sent:
            sent.add(statement_id)
            return packet
        at = 9 + (len(data) + 7) // 8  # (statement id, flags, iteration count, the NULL bitmap)
        assert packet[at] == 1
        return packet[:at] + b"\x00" + packet[at + 1 + 2 * len(data):]

    monkeypatch.setattr(MySQLProtocol, "make_stmt_execute", once)


def test_a_write_s_blocks_without_their_types_are_read_through_its_layout(shell, answered, monkeypatch):  # noqa: F811
    """Blocks without types after a statement's first execution (sysbench's): its second
    execution's block, laid out otherwise than the first (which carried the types), is decoded
    and its layout kept; the later ones are read through it; the statements binlogged are the
    values' own."""
    decoded = _counted_decodes(monkeypatch)
    _types_once(monkeypatch)
    writer = _client(shell)
    try:
        update, insert = writer.cursor(prepared=True), writer.cursor(prepared=True)
        writer.start_transaction()
        for n in range(5):
            update.execute("UPDATE w SET c=? WHERE id=?", (f"v{n}", n % 3 + 1))
            insert.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (10 + n, n, f"i{n}"))
        writer.commit()
        assert decoded == [2, 3, 2, 3]
        assert answered[0] == 10
        assert _role(shell).logged[-1] == [
            s for n in range(5) for s in (f"UPDATE w SET c='v{n}' WHERE id={n % 3 + 1}",
                                          f"INSERT INTO w (id, k, c) VALUES ({10 + n}, {n}, 'i{n}')")]
    finally:
        writer.close()


@pytest.mark.parametrize("count", [1, 9])
def test_a_layout_of_integers_only_is_one_step(count):
    types = [ParamType(FieldType.LONG)] * count
    block = _block(types, list(range(count)), False)
    layout = ParamsLayout.of(block, count, types)
    assert layout is not None and layout.read(block) == list(range(count))
