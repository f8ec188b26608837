"""The struct path of protocol/binary.py against its reference: `decode_stmt_command` (fixed
fields by `struct.Struct`s derived from the declarations) against `decode_stmt_command_declared`
(construct): the same command, or the same error, on golden, random, truncated, extended and
mutated payloads."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.binary import (
    COM_STMT_EXECUTE,
    STMT_COMMANDS,
    ComStmtExecute,
    decode_stmt_command,
    decode_stmt_command_declared,
)
from protocol.errors import ProtocolError
from tests.unit.test_binary_protocol import GOLDEN_COMMANDS, mutated


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
