"""The live-server fuzz's answer checks can fail: fed in memory, a malformed, out-of-sequence,
truncated or 1105 answer is flagged; well-formed answers pass (tests/support/server_fuzz.py)."""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import ERR, OK, ResultSet, column
from protocol.packets import encode_packet
from tests.support.server_fuzz import Malformed, Stats, drain_until_closed, read_answer

CAPS = 0x000FA68F


def framed(*payloads: bytes, seq: int = 1) -> bytes:
    out = b""
    for p in payloads:
        wire, seq = encode_packet(p, seq)
        out += wire
    return out


def answer(data: bytes, command: int | None = 0x03) -> str:
    async def run() -> str:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return await read_answer(reader, CAPS, command)

    return asyncio.run(run())


def test_well_formed_answers_pass():
    assert answer(framed(OK().encode(CAPS))) == "OK"
    assert answer(framed(ERR(1047, "08S01", "Unknown command").encode())) == "ERR 1047"
    rs = ResultSet((column("a"),), (("1",),))
    assert answer(framed(*rs.payloads(CAPS))) == "result set"
    assert answer(framed(b"Uptime: 5  Threads: 1"), 0x09) == "statistics"
    assert answer(b"") == "closed"


@pytest.mark.parametrize("data", [
    framed(ERR(1105, "HY000", "internal error; see the server log").encode()),  # our bug
    framed(OK().encode(CAPS), seq=2),  # out of sequence
    framed(b"\x02", b"junk"),  # a column count, then no column definition
    framed(b"\x02", column("a").encode()),  # a result set cut short by the close
])
def test_bad_answers_are_flagged(data):
    with pytest.raises(Malformed):
        answer(data)


def test_a_close_is_required_after_a_half_close():
    async def run(data: bytes) -> Stats:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        stats = Stats()
        await drain_until_closed(reader, stats, CAPS, login=True)
        return stats

    stats = asyncio.run(run(framed(ERR(1043, "08S01", "Bad handshake").encode(), seq=2)))
    assert stats.answers == {"ERR 1043": 1, "closed": 1}
    with pytest.raises(Malformed):
        asyncio.run(run(framed(b"\x07garbage", seq=2)))


def test_a_prepare_answer_read_after_broken_framing_is_read_whole():
    """Worker seed 3006 of the 1,000,000-packet run: after a packet that lied about its length
    the server read a COM_STMT_PREPARE out of the rest and answered it rightly; the checker,
    not knowing the command, took the COM_STMT_PREPARE_OK (0x00 first) for an OK and the
    parameter definition after it for the start of the next answer."""
    from protocol.binary import PrepareOK

    prepare = PrepareOK(7, (column("?"),), 2).payloads(CAPS)
    data = framed(*prepare) + framed(OK().encode(CAPS))

    async def both() -> list[str]:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        reader.feed_eof()
        return [await read_answer(reader, CAPS, None), await read_answer(reader, CAPS, None),
                await read_answer(reader, CAPS, None)]

    assert asyncio.run(both()) == ["prepared", "OK", "closed"]
    assert answer(framed(OK(info="abc").encode(CAPS)), None) == "OK"
