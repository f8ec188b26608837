"""Packet framing and length-encoded values: whole, byte by byte, trailing bytes, 16 MiB+."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.errors import (
    ER_NET_PACKET_TOO_LARGE,
    ER_NET_PACKETS_OUT_OF_ORDER,
    RemoteProtocolError,
)
from protocol.packets import (
    MAX_PAYLOAD,
    PACKET_HEADER,
    LenencBytes,
    LenencInt,
    Packet,
    PacketDecoder,
    decode_lenenc_bytes,
    decode_lenenc_int,
    encode_lenenc_bytes,
    encode_lenenc_int,
    encode_packet,
)


def decode_all(data: bytes, step: int | None = None, **kw) -> list[Packet]:
    decoder = PacketDecoder(**kw)
    out = []
    step = step or len(data) or 1
    for i in range(0, len(data), step):
        decoder.feed(data[i : i + step])
        while (p := decoder.next_packet()) is not None:
            out.append(p)
    assert decoder.buffered == 0
    return out


def test_golden_small_packet():
    wire, nxt = encode_packet(b"\x03SELECT 1", 0)
    assert wire == b"\x09\x00\x00\x00\x03SELECT 1"
    assert nxt == 1
    assert wire[:4] == PACKET_HEADER.build(dict(length=9, seq=0))  # compiled form == declaration


def test_sequence_id_wraps():
    wire, nxt = encode_packet(b"x", 255)
    assert wire[3] == 255 and nxt == 0
    assert decode_all(wire) == [Packet(255, b"x")]
    assert Packet(255, b"x").next_seq == 0


def test_empty_payload():
    wire, nxt = encode_packet(b"", 7)
    assert wire == b"\x00\x00\x00\x07" and nxt == 8
    assert decode_all(wire) == [Packet(7, b"")]


def test_whole_byte_by_byte_and_trailing():
    stream = b"".join(encode_packet(p, s)[0] for s, p in enumerate([b"a", b"", b"hello" * 50, b"\x00\xff"]))
    whole = decode_all(stream)
    assert [p.payload for p in whole] == [b"a", b"", b"hello" * 50, b"\x00\xff"]
    assert [p.seq for p in whole] == [0, 1, 2, 3]
    assert decode_all(stream, step=1) == whole
    # Trailing bytes of the next packet stay in the buffer until it is complete.
    decoder = PacketDecoder()
    decoder.feed(stream + b"\x05\x00\x00")
    assert [decoder.next_packet() for _ in range(4)] == whole
    assert decoder.next_packet() is None
    assert decoder.buffered == 3 and decoder.in_packet
    decoder.feed(b"\x09abcde")
    assert decoder.next_packet() == Packet(9, b"abcde")
    assert not decoder.in_packet


@pytest.mark.parametrize("size", [MAX_PAYLOAD - 1, MAX_PAYLOAD, MAX_PAYLOAD + 1, 2 * MAX_PAYLOAD + 5])
def test_16mib_split_and_join(size):
    payload = bytes(range(256)) * (size // 256) + b"z" * (size % 256)
    wire, nxt = encode_packet(payload, 254)
    chunks = size // MAX_PAYLOAD + 1
    assert nxt == (254 + chunks) & 0xFF
    assert len(wire) == size + 4 * chunks
    # Each full chunk is 0xFFFFFF long; the last one is shorter (empty when size is a multiple).
    pos, seq = 0, 254
    for _ in range(chunks - 1):
        assert wire[pos : pos + 4] == b"\xff\xff\xff" + bytes((seq,))
        pos += 4 + MAX_PAYLOAD
        seq = (seq + 1) & 0xFF
    assert wire[pos : pos + 4] == (size % MAX_PAYLOAD).to_bytes(3, "little") + bytes((seq,))
    [packet] = decode_all(wire + encode_packet(b"next", nxt)[0], step=(1 << 20) + 7)[:1]
    assert packet == Packet(254, payload, chunks)
    assert packet.next_seq == nxt


def test_continuation_chunk_out_of_order():
    wire, _ = encode_packet(b"a" * MAX_PAYLOAD, 3)
    bad = bytearray(wire)
    bad[4 + MAX_PAYLOAD + 3] = 9  # the final (empty) chunk should be seq 4
    decoder = PacketDecoder()
    decoder.feed(bytes(bad))
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_packet()
    assert info.value.error is ER_NET_PACKETS_OUT_OF_ORDER


def test_too_large_is_refused_from_the_header():
    decoder = PacketDecoder(max_packet=1000)
    decoder.feed(b"\xe9\x03\x00\x00")  # 1001 bytes announced, none received yet
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_packet()
    assert info.value.error is ER_NET_PACKET_TOO_LARGE and info.value.code == 1153
    # Exactly max_packet is fine.
    ok = PacketDecoder(max_packet=1000)
    ok.feed(encode_packet(b"x" * 1000, 0)[0])
    assert ok.next_packet() == Packet(0, b"x" * 1000)


def test_too_large_across_chunks():
    decoder = PacketDecoder(max_packet=MAX_PAYLOAD + 10)
    wire, _ = encode_packet(b"y" * (MAX_PAYLOAD + 11), 0)
    decoder.feed(wire)
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_packet()
    assert info.value.code == 1153


@given(st.lists(st.binary(max_size=300), max_size=8), st.integers(0, 255), st.data())
@settings(max_examples=200, deadline=None)
def test_framing_roundtrip_any_split(payloads, seq, data):
    stream = b""
    s = seq
    for p in payloads:
        wire, s = encode_packet(p, s)
        stream += wire
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    decoder = PacketDecoder()
    got = []
    prev = 0
    for cut in [*cuts, len(stream)]:
        decoder.feed(stream[prev:cut])
        prev = cut
        while (p := decoder.next_packet()) is not None:
            got.append(p)
    assert [p.payload for p in got] == payloads
    assert [p.seq for p in got] == [(seq + i) & 0xFF for i in range(len(payloads))]


# -- length-encoded values ---------------------------------------------------------------------

LENENC_GOLDEN = [
    (0, b"\x00"),
    (250, b"\xfa"),
    (251, b"\xfc\xfb\x00"),
    (0xFFFF, b"\xfc\xff\xff"),
    (0x10000, b"\xfd\x00\x00\x01"),
    (0xFFFFFF, b"\xfd\xff\xff\xff"),
    (0x1000000, b"\xfe\x00\x00\x00\x01\x00\x00\x00\x00"),
    (2**64 - 1, b"\xfe" + b"\xff" * 8),
]


@pytest.mark.parametrize("value,raw", LENENC_GOLDEN)
def test_lenenc_int_golden(value, raw):
    assert encode_lenenc_int(value) == raw
    assert LenencInt.build(value) == raw
    assert decode_lenenc_int(raw) == (value, len(raw))
    assert LenencInt.parse(raw) == value
    # Trailing bytes are left for the next field.
    assert decode_lenenc_int(raw + b"\x07", 0) == (value, len(raw))
    # Every truncation is a remote error.
    for cut in range(len(raw)):
        with pytest.raises(RemoteProtocolError):
            decode_lenenc_int(raw[:cut])


def test_lenenc_null_and_ff():
    assert decode_lenenc_int(b"\xfb") == (None, 1)
    assert decode_lenenc_bytes(b"\xfb") == (None, 1)
    with pytest.raises(RemoteProtocolError):
        decode_lenenc_int(b"\xff")


@given(st.binary(max_size=70000))
@settings(max_examples=60, deadline=None)
def test_lenenc_bytes_roundtrip(value):
    raw = encode_lenenc_bytes(value)
    assert raw == LenencBytes.build(value)
    assert decode_lenenc_bytes(raw + b"tail") == (value, len(raw))
    with pytest.raises(RemoteProtocolError):
        decode_lenenc_bytes(raw[:-1] if value else raw[:0])


@given(st.integers(0, 2**64 - 1))
def test_lenenc_int_roundtrip(value):
    raw = encode_lenenc_int(value)
    assert decode_lenenc_int(raw) == (value, len(raw))
    assert LenencInt.parse(raw) == value


def test_take_packets_takes_what_next_packet_would_and_leaves_the_rest_to_it():
    """`take_packets(lead)`: the complete packets starting with `lead`, in one pass; a packet
    with another first byte, one over max_packet, a chunk of 16 MiB or an incomplete one stops
    it, and `next_packet` then reads (or refuses) that one as always."""
    wire = b"".join(encode_packet(p, s)[0] for p, s in ((b"\x00one", 1), (b"\x00two", 2), (b"\xffstop", 3), (b"\x00four", 4)))
    dec = PacketDecoder()
    dec.feed(wire + encode_packet(b"\x00half", 5)[0][:6])
    assert dec.take_packets(0x00) == [(1, b"one"), (2, b"two")]
    assert dec.take_packets(0x00) == []
    assert dec.next_packet() == Packet(3, b"\xffstop")
    assert dec.take_packets(0x00) == [(4, b"four")]
    assert dec.take_packets(0x00) == [] and dec.in_packet
    small = PacketDecoder(max_packet=8)
    small.feed(encode_packet(b"\x00" + b"x" * 7, 0)[0] + encode_packet(b"\x00" + b"y" * 8, 1)[0])
    assert small.take_packets(0x00) == [(0, b"x" * 7)]
    with pytest.raises(RemoteProtocolError):
        small.next_packet()
