"""The compiled twins of `protocol._framing` against the Python loops they stand for (the
reference): `protocol.events.encode_events` (a commit group's binlog events, as the binlog
writer appends them) and `ServerConnection.send_events` (a dump's batch framed as packets).
Over random batches: the same bytes, positions and next sequence id; what the twin declines
(a FORMAT_DESCRIPTION_EVENT, values a field cannot hold, other types, a packet of MAX_PAYLOAD
bytes or more) it leaves whole to the loop, which gives its answer or its error. The twin's
layout constants are the protocol modules' own."""

from __future__ import annotations

import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import connection, events
from protocol.errors import LocalProtocolError
from protocol.events import (
    CHECKSUM_LEN,
    HEADER_LEN,
    TYPE_FD,
    EventType,
    decode_header,
    encode_event,
)
from protocol.packets import MAX_PAYLOAD
from protocol.semisync_wire import SEMI_SYNC_ACK_REQUESTED, SEMI_SYNC_MAGIC
from tests.unit.test_connection import login, pump

try:
    from protocol import _framing
except ImportError:  # built without a C compiler: the loops alone run
    _framing = None

native = pytest.mark.skipif(_framing is None, reason="protocol._framing was not built")


@native
def test_the_twin_is_built_with_the_protocol_modules_constants():
    assert _framing.CONSTANTS() == {
        "HEADER_LEN": HEADER_LEN, "CHECKSUM_LEN": CHECKSUM_LEN, "TYPE_FD": TYPE_FD, "MAX_PAYLOAD": MAX_PAYLOAD,
        "SEMI_SYNC_MAGIC": SEMI_SYNC_MAGIC, "SEMI_SYNC_ACK_REQUESTED": SEMI_SYNC_ACK_REQUESTED,
    }


def _encoded_both(specs, server_id, offset, checksum):
    """`encode_events` with and without its compiled twin: each answer, or its error's type."""
    answers = []
    for twin in (True, False):
        with pytest.MonkeyPatch.context() as m:
            if not twin:
                m.setattr(events, "_native_encode_events", None)
            try:
                answers.append(events.encode_events(list(specs), server_id=server_id, offset=offset,
                                                    checksum=checksum))
            except Exception as exc:  # noqa: BLE001 (the loop's error, whichever it is)
                answers.append(type(exc))
    return answers


_TYPES = [int(t) for t in (EventType.GTID_EVENT, EventType.QUERY_EVENT, EventType.XID_EVENT,
                           EventType.INTVAR_EVENT, EventType.WRITE_ROWS_EVENT_V1, EventType.TABLE_MAP_EVENT)]
_SPEC = st.tuples(st.sampled_from(_TYPES), st.binary(max_size=300), st.integers(0, 0xFFFFFFFF),
                  st.integers(0, 0xFFFF))


@native
@settings(max_examples=300, deadline=None)
@given(specs=st.lists(_SPEC, max_size=8), server_id=st.integers(0, 0xFFFFFFFF),
       offset=st.one_of(st.integers(4, 1 << 20), st.integers(0xFFFFFFFF - 2000, 0xFFFFFFFF)),
       checksum=st.booleans())
def test_a_group_s_events_encode_as_the_python_loop(specs, server_id, offset, checksum):
    twin, loop = _encoded_both(specs, server_id, offset, checksum)
    assert twin == loop
    if loop is LocalProtocolError:  # past 4 GiB: log_pos cannot hold the end
        return
    assert _framing.encode_events(specs, server_id, offset, checksum) == loop  # taken, not declined
    for (start, event), (type_code, body, timestamp, flags) in zip(loop, specs, strict=True):
        header = decode_header(event)  # (and the reference is `encode_event`'s framing)
        assert event == encode_event(type_code, body, timestamp=timestamp, server_id=server_id,
                                     log_pos=start + len(event), flags=flags, checksum=checksum)
        assert header.event_size == len(event)
        if checksum:
            assert int.from_bytes(event[-4:], "little") == zlib.crc32(event[:-4])


@native
def test_specs_the_twin_declines_are_the_python_loop_s():
    good = (int(EventType.XID_EVENT), b"\x01" * 8, 1_700_000_000, 0)
    declined = [
        [good, (TYPE_FD, b"x" * 90, 0, 0)],  # encoded alone: the loop's error
        [good, (256, b"", 0, 0)], [(int(EventType.XID_EVENT), b"", 1 << 32, 0)],
        [(int(EventType.XID_EVENT), b"", 0, 1 << 16)], [(int(EventType.XID_EVENT), b"", -1, 0)],
        [(int(EventType.XID_EVENT), bytearray(b"ab"), 5, 0)],  # not bytes: the loop takes it
        [(int(EventType.XID_EVENT), b"", 5.0, 0)], [good[:3]], [list(good)],
    ]
    for specs in declined:
        assert _framing.encode_events(specs, 1, 4, True) is None, specs
        twin, loop = _encoded_both(specs, 1, 4, True)
        assert twin == loop, specs
    for server_id, offset in ((1 << 32, 4), (-1, 4), (1, -5), (1, 1 << 40), (1, 2.5)):
        assert _framing.encode_events([good], server_id, offset, False) is None
        twin, loop = _encoded_both([good], server_id, offset, False)
        assert twin == loop
    assert _encoded_both([], 1, 4, True) == [[], []]
    generator = (s for s in [good])  # not a list: the loop alone (a generator is read once)
    assert events.encode_events(generator, server_id=1, offset=4, checksum=True) == \
        _encoded_both([good], 1, 4, True)[1]


def _dumping() -> connection.ServerConnection:
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=True), server)
    server.start_dump(semisync=True)
    return server


def _framed_both(batches):
    """Each batch's `send_events` on a dump with and without the compiled twin, one connection
    each: the wires, or the error's type."""
    answers = []
    for twin in (True, False):
        conn = _dumping()
        out = []
        with pytest.MonkeyPatch.context() as m:
            if not twin:
                m.setattr(connection, "_native_frame_events", None)
            for evs, headers in batches:
                try:
                    out.append(conn.send_events(evs, headers))
                except LocalProtocolError:
                    out.append(LocalProtocolError)
            out.append(conn._seq)
        answers.append(out)
    return answers


_HEADERS = [b"", b"\xef\x00", b"\xef\x01", b"\xef\x03", b"\xee\x01", b"\xef", b"\xef\x01\x00\x07", b"\x00\xef\x01"]


@native
def test_a_dump_s_batches_frame_as_the_python_loop():
    rng = random.Random(17)
    sizes = [0, 1, 19, 250, 251, 4096, 0xFFFF]
    for _ in range(80):
        batches = []
        for _ in range(rng.randint(1, 6)):
            evs = [rng.randbytes(rng.choice(sizes)) for _ in range(rng.randint(0, 40))]
            if rng.random() < 0.4:
                headers = rng.choice(_HEADERS)  # one for all
            else:
                headers = [rng.choice(_HEADERS) for _ in evs]
            batches.append((evs, headers))
        twin, loop = _framed_both(batches)
        assert twin == loop


@native
def test_batches_the_twin_declines_are_the_python_loop_s():
    big = [b"a", b"b" * (MAX_PAYLOAD - 3), b"c"]  # 1 + 2 + MAX_PAYLOAD - 3: MAX_PAYLOAD, split
    just_under = [b"a", b"b" * (MAX_PAYLOAD - 4), b"c"]
    declined = [
        (big, b"\xef\x01"), (big, [b"\xef\x00", b"\xef\x01", b"\xef\x00"]),
        ([b"a", b"b"], [b"\xef\x00"]),  # fewer headers than events: the loop's error
        ([b"a", bytearray(b"b")], b"\xef\x00"), ([b"a"], bytearray(b"\xef\x01")), ([b"a"], (b"\xef\x01",)),
        ([b"a", memoryview(b"b")], [b"", b""]),
    ]
    for evs, headers in declined:
        assert _framing.frame_events(evs, headers, 3) is None
    assert _framing.frame_events(just_under, b"\xef\x01", 3) is not None
    twin, loop = _framed_both(declined + [(just_under, b"\xef\x01"), (just_under, b"")])
    assert twin == loop
    assert loop[2] is LocalProtocolError
    for seq in range(256):  # every sequence id, wrapping at 256
        assert _framing.frame_events([b"x", b"y"], b"", seq)[1] == (seq + 2) & 0xFF


@native
def test_the_writer_s_and_the_dump_s_encodings_go_through_the_twin():
    """What the binlog writer and a dump call hands its arguments to the twin and returns its
    answer (the equality above would hold as well if the twin were never called)."""
    seen = []

    def twin(*args):
        seen.append(args)
        return "twin's"

    spec = [(int(EventType.XID_EVENT), b"\x01" * 8, 1, 0)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(events, "_native_encode_events", twin)
        assert events.encode_events(spec, server_id=7, offset=4, checksum=True) == "twin's"
    conn = _dumping()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(connection, "_native_frame_events", lambda *args: seen.append(args) or (b"wire", 9))
        assert conn.send_events([b"a"], b"\xef\x01") == b"wire" and conn._seq == 9
    assert seen == [(spec, 7, 4, True), ([b"a"], b"\xef\x01", 1)]
