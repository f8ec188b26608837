"""protocol/semisync_wire.py against the bytes a stock MariaDB 10.11 replica and master exchange
(../shared/interop/mariadb-semisync-replica-connect.txt): acks and the `EF flag` event header."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.position import BinlogPosition
from protocol.semisync_wire import (
    ACK,
    SEMI_SYNC_MAGIC,
    SemiSyncAck,
    decode_ack,
    encode_ack,
    semisync_header,
    split_semisync_header,
)

# The replica's ack after the CREATE TABLE (flag 1) at end position 668 (capture A).
ACK_668 = bytes.fromhex("ef9c020000000000006d61737465722d62696e2e303030303031")
# An ack from capture B (position beyond 2**16).
ACK_B = bytes.fromhex("ef248ddd2c000000006d61737465722d62696e2e303030303031")


def test_golden_acks_decode_and_reencode():
    assert SEMI_SYNC_MAGIC == 0xEF
    assert decode_ack(ACK_668) == SemiSyncAck(BinlogPosition("master-bin.000001", 668))
    assert decode_ack(ACK_B).position == BinlogPosition("master-bin.000001", 752717092)
    assert encode_ack(BinlogPosition("master-bin.000001", 668)) == ACK_668
    assert SemiSyncAck(BinlogPosition("master-bin.000001", 752717092)).encode() == ACK_B
    assert len(ACK_668) == 26


def test_ack_parsed_byte_by_byte_prefixes_are_rejected_and_trailing_bytes_belong_to_the_name():
    for cut in range(len(ACK_668)):
        if cut < 10:  # magic + position + at least one byte of name
            with pytest.raises(RemoteProtocolError):
                decode_ack(ACK_668[:cut])
        else:
            assert decode_ack(ACK_668[:cut]).position == BinlogPosition(ACK_668[9:cut].decode(), 668)
    # the file name runs to the end of the packet: trailing bytes change the name, never the position
    ack = decode_ack(ACK_668 + b"7")
    assert ack.position == BinlogPosition("master-bin.0000017", 668)


@pytest.mark.parametrize(
    "payload",
    [
        b"\xee" + ACK_668[1:],  # bad magic
        ACK_668[:9],  # no file name
        ACK_668 + b"\x00",  # NUL in the name
        b"\xef" + bytes(8) + b"x" * 600,  # name too long
    ],
)
def test_bad_acks_are_remote_errors(payload):
    with pytest.raises(RemoteProtocolError):
        decode_ack(payload)


def test_encode_ack_refuses_what_cannot_be_sent():
    for pos in (BinlogPosition("", 4), BinlogPosition("a\x00b", 4), BinlogPosition("f.000001", -1)):
        with pytest.raises(LocalProtocolError):
            encode_ack(pos)


@given(st.binary(min_size=1, max_size=200).filter(lambda b: b"\x00" not in b), st.integers(0, 2**64 - 1))
def test_ack_round_trip(name, pos):
    position = BinlogPosition(name.decode("utf-8", "surrogateescape"), pos)
    assert decode_ack(encode_ack(position)).position == position


@given(st.binary(min_size=1, max_size=200).filter(lambda b: b"\x00" not in b), st.integers(0, 2**64 - 1))
def test_the_ack_s_struct_path_gives_the_declaration_s_bytes_and_values(name, pos):
    """encode_ack / decode_ack (a struct derived from ACK) agree with construct's ACK, the
    reference, both ways."""
    wire = encode_ack(BinlogPosition(name.decode("utf-8", "surrogateescape"), pos))
    assert wire == ACK.build({"position": pos, "file": name})
    parsed = ACK.parse(wire)
    assert decode_ack(wire).position == BinlogPosition(parsed.file.decode("utf-8", "surrogateescape"), parsed.position)


def test_event_packet_header_from_the_capture():
    # payload after the OK byte of the XID event with flag 1 (capture A, log_pos 925)
    payload = bytes.fromhex("ef01") + bytes.fromhex("5751026b10010000001f0000009d030000000049000000")
    need_ack, event = split_semisync_header(payload)
    assert need_ack is True and isinstance(event, memoryview)
    assert bytes(event) == payload[2:]
    need_ack, event = split_semisync_header(b"\xef\x00" + b"xyz")
    assert need_ack is False and bytes(event) == b"xyz"
    assert semisync_header(True) == b"\xef\x01" and semisync_header(False) == b"\xef\x00"


@pytest.mark.parametrize("payload", [b"", b"\xef", b"\x0f\x00abc", b"\xef\x02abc"])
def test_event_packet_without_a_valid_header_is_a_remote_error(payload):
    with pytest.raises(RemoteProtocolError):
        split_semisync_header(payload)
