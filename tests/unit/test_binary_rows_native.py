"""The compiled row encoders (protocol/_rows.c) against their references. Binary rows: the
per-value path of `BinaryRowEncoder.encode_rows` (protocol/binary.py), the same payloads for every kind it
takes (strings as str and bytes, of every length-encoding width; signed and unsigned integers
of each width at their limits; doubles with inf, nan and -0.0; NULLs in any column and NULL
columns; rows of up to 17 columns, so bitmaps of 1 to 3 bytes), and a decline (None, the
Python path then deciding, with its UncarriedValue where it raises one) for what it does not
take: an integer out of its column's range, a bool, a Decimal, a lone surrogate, a row of
another width or type. Text rows: `encode_text_row` (protocol/messages.py), the same payloads of
a `ResultSet` for None, str, bytes and 64-bit ints, and a decline for floats, bools, Decimals,
bytearrays, larger ints, lone surrogates and rows of another width. Packets: `frame_payloads`
(protocol/packets.py), the same wire bytes and next sequence id for lists and tuples of up to
300 payloads of every size below MAX_PAYLOAD, from sequence ids that wrap; a decline for a
payload of MAX_PAYLOAD bytes (split in chunks), an item that is not bytes, or an iterable that
is not a list or tuple. A binary answer (`BinaryRowEncoder.answer`: a head, the rows framed,
the closing packet): the same wire bytes for lists and tuples of rows of every kind (300 of them too),
any head and closing payload, from sequence ids that wrap; a decline for what `encode` declines,
a row of MAX_PAYLOAD bytes or more, a closing payload as large, or rows not in a list or tuple.
Both paths are exercised through the callers themselves, the compiled one switched off for the
reference."""

from __future__ import annotations

import decimal
import math
import random
import shutil
import sysconfig
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from protocol import binary, messages, packets
from protocol.binary import BinaryRowEncoder, UncarriedValue
from protocol.errors import LocalProtocolError
from protocol.messages import DEPRECATE_EOF, ColumnDefinition, ColumnFlag, FieldType, ResultSet
from protocol.packets import MAX_PAYLOAD

try:
    from protocol import _rows
except ImportError:  # without a C compiler: `test_the_module_is_built_where_a_c_compiler_is` says so
    _rows = None

native = pytest.mark.skipif(_rows is None, reason="protocol._rows not built")


def test_the_module_is_built_where_a_c_compiler_is():
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler: the install has no protocol._rows, rows are encoded in Python")
    assert _rows is not None, "pip install -e . left protocol/_rows.c unbuilt"
    assert Path(_rows.__file__).parent == Path(binary.__file__).parent

STRING = (FieldType.VAR_STRING, 0)
KINDS = {  # (type, unsigned) -> values of that kind, limits first
    (FieldType.TINY, 0): [-128, 127, 0, -1],
    (FieldType.TINY, 1): [0, 255, 7],
    (FieldType.SHORT, 0): [-(2 ** 15), 2 ** 15 - 1, 3],
    (FieldType.YEAR, 1): [0, 2026, 65535],
    (FieldType.INT24, 0): [-(2 ** 31), 2 ** 31 - 1, 12],
    (FieldType.LONG, 1): [0, 2 ** 32 - 1, 99],
    (FieldType.LONGLONG, 0): [-(2 ** 63), 2 ** 63 - 1, 5],
    (FieldType.LONGLONG, 1): [0, 2 ** 64 - 1, 18],
    (FieldType.DOUBLE, 0): [0.0, -0.0, 1.5e300, -2.25, math.inf, -math.inf, math.nan],
    STRING: ["", "a", "é" * 200, "x" * 251, "y" * 65535, "z" * 65536, b"\x00\xff", b"b" * 300],
    (FieldType.BLOB, 0): [b"", b"\x01" * 70000],
    (FieldType.NULL, 0): [None, 1, "ignored"],  # a NULL column: every value sent as NULL
}
DECLINED = {  # values the compiled encoder leaves to Python, by kind
    (FieldType.TINY, 0): [128, -129, True],
    (FieldType.LONG, 1): [-1, 2 ** 32],
    (FieldType.LONGLONG, 1): [2 ** 64, -5],
    (FieldType.LONGLONG, 0): [2 ** 63, decimal.Decimal(3)],
    (FieldType.DOUBLE, 0): [1, decimal.Decimal("1.5")],
    STRING: ["\udcff", 5, decimal.Decimal("2.50")],
}


def _column(kind: tuple[int, int]) -> ColumnDefinition:
    ftype, unsigned = kind
    return ColumnDefinition(name="c", type=FieldType(ftype), flags=ColumnFlag.UNSIGNED if unsigned else 0)


def _with_and_without(module: Any, make: Callable[[], object], monkeypatch) -> tuple[object, object]:
    """`make()` with the compiled encoder, then with `module._native_rows` off (the payloads, or
    the error they end in)."""
    answers = []
    for native in (True, False):
        with monkeypatch.context() as m:
            if not native:
                m.setattr(module, "_native_rows", None)
            try:
                answers.append(make())
            except UncarriedValue as exc:
                answers.append(("uncarried", exc.column, str(exc)))
            except LocalProtocolError as exc:  # a row of another width
                answers.append(("error", str(exc)))
    return answers[0], answers[1]


def _both(encoder: BinaryRowEncoder, rows: list, monkeypatch) -> tuple[object, object]:
    """`encode_rows` with and without the compiled encoder."""
    return _with_and_without(binary, lambda: encoder.encode_rows(list(rows)), monkeypatch)


@native
def test_every_kind_encodes_as_the_python_path(monkeypatch):
    rng = random.Random(17)
    kinds = list(KINDS)
    for width in (1, 2, 6, 7, 8, 9, 16, 17):
        for _ in range(40):
            columns = [rng.choice(kinds) for _ in range(width)]
            encoder = BinaryRowEncoder([_column(k) for k in columns])
            rows = [tuple(None if rng.random() < 0.15 else rng.choice(KINDS[k]) for k in columns)
                    for _ in range(rng.randint(0, 5))]
            assert _rows.encode(rows, encoder._kinds) is not None  # taken whole
            native, python = _both(encoder, rows, monkeypatch)
            assert native == python, (columns, rows)


@native
@pytest.mark.parametrize("kind", list(DECLINED))
def test_what_it_does_not_take_is_left_to_python(kind, monkeypatch):
    encoder = BinaryRowEncoder([_column(STRING), _column(kind)])
    for value in DECLINED[kind]:
        rows = [("before", None), ("row", value)]
        assert _rows.encode(rows, encoder._kinds) is None
        native, python = _both(encoder, rows, monkeypatch)
        assert native == python  # the payloads, or the same UncarriedValue


@native
def test_rows_it_does_not_take_are_left_to_python(monkeypatch):
    encoder = BinaryRowEncoder([_column(STRING), _column((FieldType.LONG, 0))])
    for rows in ([["list", 1]], [("short",)], [("a", 1, "long")]):
        assert _rows.encode(rows, encoder._kinds) is None
        native, python = _both(encoder, rows, monkeypatch)
        assert native == python
    # a type the compiled encoder has no kind for: never offered
    assert BinaryRowEncoder([_column((FieldType.NEWDECIMAL, 0))])._kinds is None
    assert BinaryRowEncoder([_column((FieldType.FLOAT, 0))])._kinds is None


TEXT_VALUES = [None, "", "abc", "é" * 300, "x" * 70000, b"", b"\x00\xfb\xff", 0, -1, 2 ** 63 - 1, -(2 ** 63)]
TEXT_DECLINED = [1.5, True, decimal.Decimal("2.50"), 2 ** 63, bytearray(b"x"), "\udcff"]


def _text_both(rows: list, width: int, monkeypatch) -> tuple[object, object]:
    """A text ResultSet's payloads with and without the compiled encoder."""
    return _with_and_without(
        messages, lambda: ResultSet([f"c{i}" for i in range(width)], rows).payloads(DEPRECATE_EOF), monkeypatch)


@native
def test_text_rows_encode_as_the_python_path(monkeypatch):
    rng = random.Random(5)
    for width in (1, 2, 4, 9):
        for _ in range(30):
            rows = [tuple(rng.choice(TEXT_VALUES) for _ in range(width)) for _ in range(rng.randint(0, 4))]
            assert _rows.encode_text(rows, width) is not None
            native_payloads, python = _text_both(rows, width, monkeypatch)
            assert native_payloads == python, rows


@native
def test_text_values_it_does_not_take_are_left_to_python(monkeypatch):
    for value in TEXT_DECLINED:
        rows = [("a", 1), (value, None)]
        assert _rows.encode_text(rows, 2) is None
        native_payloads, python = _text_both(rows, 2, monkeypatch)
        assert native_payloads == python
    assert _rows.encode_text([("a",)], 2) is None  # a row of another width: the loop's error
    native_payloads, python = _text_both([("a",)], 2, monkeypatch)
    assert native_payloads == python and python[0] == "error"


def _frames_both(payloads: Any, seq: int, monkeypatch) -> tuple[object, object]:
    """`frame_payloads` with and without its compiled twin (`_native_frame` off)."""
    answers = []
    for native in (True, False):
        with monkeypatch.context() as m:
            if not native:
                m.setattr(packets, "_native_frame", None)
            answers.append(packets.frame_payloads(payloads, seq))
    return answers[0], answers[1]


@native
def test_payloads_frame_as_the_python_path(monkeypatch):
    rng = random.Random(7)
    sizes = [0, 1, 250, 251, 0xFFFF, 0x10000, MAX_PAYLOAD - 1]
    for _ in range(60):
        payloads = [rng.randbytes(rng.choice(sizes[:-1])) for _ in range(rng.randint(0, 300))]
        seq = rng.choice([0, 1, 3, 200, 255, 256 + 7])  # wrapping at 256, and a seq above it
        container = rng.choice([list, tuple])(payloads)
        assert _rows.frame(container, seq) is not None
        native_wire, python = _frames_both(container, seq, monkeypatch)
        assert native_wire == python
        wire, nxt = python  # (and the reference is what the protocol says)
        assert nxt == (seq + len(payloads)) & 0xFF
        assert len(wire) == sum(4 + len(p) for p in payloads)
    largest = [b"\x00" * (MAX_PAYLOAD - 1), b"x"]
    assert _frames_both(largest, 9, monkeypatch)[0] == _frames_both(largest, 9, monkeypatch)[1]


@native
def test_payloads_it_does_not_take_are_left_to_python(monkeypatch):
    split = [b"a", b"\x00" * MAX_PAYLOAD, b"b"]  # MAX_PAYLOAD bytes: two packets, the second empty
    declined = [split, [b"a", bytearray(b"b")], [b"a", memoryview(b"b")], (b"a", "b")]
    for payloads in declined:
        assert _rows.frame(payloads, 1) is None
    for payloads in declined[:3]:
        native_wire, python = _frames_both(payloads, 1, monkeypatch)
        assert native_wire == python
    wire, nxt = packets.frame_payloads(split, 1)
    assert nxt == 5 and wire[:9] == b"\x01\x00\x00\x01a\xff\xff\xff\x02"
    assert wire.endswith(b"\x00\x00\x00\x03\x01\x00\x00\x04b")  # the empty last chunk, then b"
    generated = (p for p in [b"ab", b"c"])  # not a list or tuple: the Python path, as before
    assert _rows.frame(generated, 0) is None
    assert packets.frame_payloads((p for p in [b"ab", b"c"]), 0) == (b"\x02\x00\x00\x00ab\x01\x00\x00\x01c", 2)


def _answers_both(encoder: BinaryRowEncoder, head: bytes, rows: Any, closing: bytes, seq: int,
                  monkeypatch) -> tuple[object, object]:
    """`BinaryRowEncoder.answer` with and without its compiled twin (`_native_answer` off), the
    encoder's own compiled path off too for the reference."""
    answers = []
    for native in (True, False):
        with monkeypatch.context() as m:
            if not native:
                m.setattr(binary, "_native_answer", None)
                m.setattr(binary, "_native_rows", None)
            try:
                answers.append(encoder.answer(head, rows, closing, seq))
            except UncarriedValue as exc:
                answers.append(("uncarried", exc.column, str(exc)))
            except LocalProtocolError as exc:
                answers.append(("error", str(exc)))
    return answers[0], answers[1]


@native
def test_an_answer_is_framed_as_the_python_path(monkeypatch):
    rng = random.Random(23)
    kinds = list(KINDS)
    for width in (1, 2, 8, 9, 17):
        for _ in range(30):
            columns = [rng.choice(kinds) for _ in range(width)]
            encoder = BinaryRowEncoder([_column(k) for k in columns])
            rows = rng.choice([list, tuple])(
                tuple(None if rng.random() < 0.15 else rng.choice(KINDS[k]) for k in columns)
                for _ in range(rng.randint(0, 6)))
            head, closing = rng.randbytes(rng.choice([0, 9, 120])), rng.randbytes(rng.choice([0, 5, 7, 300]))
            seq = rng.choice([0, 1, 3, 200, 255, 256 + 7])
            assert _rows.answer(encoder._kinds, head, rows, closing, seq) is not None  # taken whole
            native_wire, python = _answers_both(encoder, head, rows, closing, seq, monkeypatch)
            assert native_wire == python, (columns, rows)
            assert encoder.native_answer(head, rows, closing, seq) == python  # (the kinds bound)
    encoder = BinaryRowEncoder([_column((FieldType.LONG, 0)), _column(STRING)])
    many = [(i, None if i % 7 else str(i)) for i in range(300)]  # sequence ids that wrap
    for seq in (1, 200):
        native_wire, python = _answers_both(encoder, b"", many, b"\xfe", seq, monkeypatch)
        assert native_wire == python
    # (and the reference is the rows' payloads framed after the head)
    encoder = BinaryRowEncoder([_column(STRING)])
    assert encoder.answer(b"H", [("ab",)], b"\xfe", 255) == b"H\x05\x00\x00\xff\x00\x00\x02ab\x01\x00\x00\x00\xfe"


@native
def test_an_answer_it_does_not_take_is_left_to_python(monkeypatch):
    encoder = BinaryRowEncoder([_column(STRING), _column((FieldType.LONG, 0))])
    for rows in ([("a", 1), ("b", 2 ** 40)], [["list", 1]], [("short",)], [("a", 1, "long")],
                 [("big", 1), ("x" * MAX_PAYLOAD, 2)]):  # (a row of MAX_PAYLOAD bytes or more: split in chunks)
        assert _rows.answer(encoder._kinds, b"head", rows, b"\xfe\x00\x00", 1) is None
        assert encoder.native_answer(b"head", rows, b"\xfe\x00\x00", 1) is None
        native_wire, python = _answers_both(encoder, b"head", rows, b"\xfe\x00\x00", 1, monkeypatch)
        assert native_wire == python
    assert _rows.answer(encoder._kinds, b"", (r for r in [("a", 1)]), b"", 1) is None  # not a list or tuple
    assert _rows.answer(encoder._kinds, b"", [("a", 1)], b"\x00" * MAX_PAYLOAD, 1) is None
