"""The compiled run of a slave's IO task (`protocol._eventscan`, through
`GroupTracker.take_run`) against the per-event path it stands for: the IO task's checks
(event_size, the CRC32 footer) and `GroupTracker.feed`, the reference. Over random streams of
every kind of event (MariaDB GTIDs standalone or not, BEGIN / COMMIT / ROLLBACK / START
TRANSACTION in any spelling, DDL, XIDs, prefix and rows events in and out of groups, ROTATEs,
FORMAT_DESCRIPTIONs, heartbeats, artificial events and log_pos 0) with corrupt ones among them:
an event the run takes is one the reference accepts, and leaves the tracker where `feed` leaves
it, with the same boundary, master offset and completed GTID; an event it leaves changes
nothing. The IO task's relay log, acks and positions on both paths: tests/unit/test_slave_io_task.py."""

from __future__ import annotations

import copy
import shutil
import struct
import sysconfig
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import events as ev
from protocol import eventscan
from protocol.events import (
    FL_STANDALONE,
    LOG_EVENT_ARTIFICIAL_F,
    FormatDescription,
    Heartbeat,
    MariaGtid,
    Query,
    Rotate,
    Xid,
    encode_body_event,
    event_checksum_ok,
)
from protocol.position import BinlogPosition
from slave.relay_log import _PREFIX_EVENTS, _ROWS_EVENTS, GroupTracker

built = pytest.mark.skipif(eventscan.scan is None, reason="protocol._eventscan was not built")

MASTER = "master-bin.000007"
HEADER = struct.Struct("<IBIIIH")


def test_the_module_is_built_where_a_c_compiler_is():
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler: the install has no protocol._eventscan, every event goes the per-event way")
    assert eventscan.scan is not None, "pip install -e . left protocol/_eventscan.c unbuilt"


@built
def test_the_compiled_layouts_are_protocol_events():
    c = eventscan._eventscan.CONSTANTS  # type: ignore[union-attr]
    assert (c["HEADER_LEN"], c["CHECKSUM_LEN"]) == (ev.HEADER_LEN, ev.CHECKSUM_LEN)
    assert {k: c[k.upper() + "_AT"] for k in ("type", "server_id", "event_size", "log_pos", "flags")} == {
        k: ev.HEADER_FIELD_AT[k if k != "type" else "type_code"] for k in ("type", "server_id", "event_size", "log_pos", "flags")}
    assert (c["QUERY_FIXED_LEN"], c["GTID_FIXED_LEN"]) == (ev._QUERY_FIXED.size, ev._GTID_FIXED.size)
    assert c["QUERY_DB_LEN_AT"] == ev.HEADER_LEN + struct.calcsize("<LL")
    assert c["QUERY_STATUS_LEN_AT"] == ev.HEADER_LEN + struct.calcsize("<LLBH")
    assert (c["GTID_DOMAIN_AT"], c["GTID_FLAGS2_AT"]) == (ev.HEADER_LEN + 8, ev._GTID_FLAGS2_AT)
    assert (c["LOG_EVENT_ARTIFICIAL_F"], c["FL_STANDALONE"]) == (LOG_EVENT_ARTIFICIAL_F, FL_STANDALONE)
    assert [c[k] for k in ("QUERY", "ROTATE", "FD", "XID", "HEARTBEAT", "HEARTBEAT_V2", "GTID", "GTID_LIST")] == [
        ev.TYPE_QUERY, ev.TYPE_ROTATE, ev.TYPE_FD, ev.TYPE_XID, ev.TYPE_HEARTBEAT, ev.TYPE_HEARTBEAT_V2,
        ev.TYPE_GTID, ev.TYPE_GTID_LIST]
    assert (c["TABLE_MAP"], c["ANNOTATE_ROWS"]) == (ev.TYPE_TABLE_MAP, int(ev.EventType.ANNOTATE_ROWS_EVENT))


def raw(type_code: int, body: bytes, log_pos: int, flags: int, checksum: bool, server_id: int = 1) -> bytes:
    """An event of any type with any body (the tracker reads only the header of most)."""
    size = HEADER.size + len(body) + (4 if checksum else 0)
    event = HEADER.pack(1, type_code, server_id, size, log_pos, flags) + body
    return event + struct.pack("<I", zlib.crc32(event)) if checksum else event


def body(b, checksum: bool, log_pos: int, flags: int, server_id: int = 1) -> bytes:
    return encode_body_event(b, timestamp=1, server_id=server_id, log_pos=log_pos, flags=flags, checksum=checksum)


STATEMENTS = ["BEGIN", "COMMIT", "ROLLBACK", "START TRANSACTION", "begin", "Commit", " BEGIN", "COMMIT ",
              "INSERT INTO t VALUES (1)", "", "CREATE TABLE x (a INT)", "rollback to savepoint s",
              "START TRANSACTION READ ONLY", "\u017fTART TRANSACTION", "\tCOMMIT", "SAVEPOINT s", "XA END 'x'",
              "BEGINx", "R", "update t set a=1", "/* c */ COMMIT"]
OTHER_TYPES = sorted({*map(int, _PREFIX_EVENTS), *map(int, _ROWS_EVENTS), 17, 34, 35, 161, 164, 165, 0, 255})


@st.composite
def events(draw, checksum: bool) -> bytes:
    kind = draw(st.sampled_from(["gtid", "query", "query", "xid", "other", "other", "rotate", "fd", "heartbeat",
                                 "gtid_list"]))
    log_pos = draw(st.sampled_from([0, 4, 120, 777, 2**32 - 1]) | st.integers(0, 2**32 - 1))
    flags = draw(st.sampled_from([0, 0, LOG_EVENT_ARTIFICIAL_F, 1, 0x40]))
    server_id = draw(st.sampled_from([1, 2, 2**32 - 1]))
    if kind == "gtid":
        e = body(MariaGtid(seq_no=draw(st.integers(0, 2**64 - 1)), domain_id=draw(st.sampled_from([0, 1, 2**32 - 1])),
                           flags2=draw(st.sampled_from([0, FL_STANDALONE, 0x08, 0x09]))), checksum, log_pos, flags, server_id)
    elif kind == "query":
        e = body(Query(db=draw(st.sampled_from(["", "d"])), query=draw(st.sampled_from(STATEMENTS))), checksum, log_pos, flags)
    elif kind == "xid":
        e = body(Xid(draw(st.integers(0, 2**64 - 1))), checksum, log_pos, flags)
    elif kind == "rotate":
        e = body(Rotate(4, draw(st.sampled_from([MASTER, "master-bin.000008"]))), checksum, log_pos, flags)
    elif kind == "fd":
        e = body(FormatDescription(server_version="10.11.19-MariaDB-log"), False, log_pos, flags)
    elif kind == "heartbeat":
        e = body(Heartbeat(MASTER), checksum, log_pos, flags)
    elif kind == "gtid_list":
        e = raw(ev.TYPE_GTID_LIST, b"\x00\x00\x00\x00", log_pos, flags, checksum)
    else:
        e = raw(draw(st.sampled_from(OTHER_TYPES)), draw(st.binary(max_size=12)), log_pos, flags, checksum)
    damage = draw(st.sampled_from([None] * 12 + ["flip", "size", "short", "trailing"]))
    if damage == "flip":
        at = draw(st.integers(0, len(e) - 1))
        e = e[:at] + bytes([e[at] ^ 1 << draw(st.integers(0, 7))]) + e[at + 1:]
    elif damage == "size":
        e = e[:9] + struct.pack("<I", len(e) + draw(st.sampled_from([-1, 1, 100]))) + e[13:]
    elif damage == "short":
        e = e[:draw(st.integers(0, len(e) - 1))]
    elif damage == "trailing":
        e += b"\x00"
    return e


def accepted(event: bytes, checksum: bool) -> bool:
    """The IO task's checks before it queues an event (slave.io_task.IoTask._queue_event)."""
    if len(event) < ev.HEADER_LEN or ev.decode_header(event).event_size != len(event):
        return False
    if event[ev.TYPE_CODE_AT] == ev.TYPE_FD:
        return True  # checked against its own checksum flag; the run leaves every FD anyway
    return not checksum or event_checksum_ok(event)


def state(t: GroupTracker) -> tuple:
    return t.master, t.in_group, t.pending, t._open_gtid, dict(t.gtids), t.checksum


def fresh(checksum: bool, master: BinlogPosition | None) -> GroupTracker:
    return GroupTracker(master, checksum)


@built
@settings(max_examples=400, deadline=None)
@given(st.data())
def test_each_event_taken_is_decided_as_feed_decides_it(data):
    checksum = data.draw(st.booleans())
    master = data.draw(st.sampled_from([None, BinlogPosition(MASTER, 4)]))
    stream = data.draw(st.lists(events(checksum), max_size=40))
    ref, run_t = fresh(checksum, master), fresh(checksum, master)
    for event in stream:
        before = state(run_t)
        run = run_t.take_run([memoryview(event)], 0)
        assert run is not None
        ok = accepted(event, ref.checksum)
        if ok:
            try:
                boundary = ref.feed(event)
            except Exception:
                ok = False
        if run.stop == 1:
            assert ok, f"the run took an event the reference refuses: {event.hex()}"
            assert state(run_t) == state(ref)
            assert run.last_boundary == (0 if boundary else -1)
            assert run.positions == [ref.master.pos]
            assert run.closed == ([ref.closed_gtid] if ref.closed_gtid is not None else [])
            continue
        assert run.stop == 0 and state(run_t) == before
        if not ok:
            return  # the IO task stops at an event it refuses
        run_t.feed(event)  # the per-event path for what the run left
        assert state(run_t) == state(ref)


@built
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_whole_read_taken_in_runs_ends_where_feed_ends(data):
    checksum = data.draw(st.booleans())
    stream = data.draw(st.lists(events(checksum), max_size=60))
    ref, run_t = fresh(checksum, BinlogPosition(MASTER, 4)), fresh(checksum, BinlogPosition(MASTER, 4))
    boundaries, positions, last_closed = [], [], {}
    for i, event in enumerate(stream):
        if not accepted(event, ref.checksum):
            stream = stream[:i]
            break
        saved = copy.deepcopy(ref)
        try:
            if ref.feed(event):
                boundaries.append(i)
        except Exception:  # (feed may have moved the tracker before it raised: the IO task stops)
            ref, stream = saved, stream[:i]
            break
        positions.append(ref.master.pos)
        if ref.closed_gtid is not None:
            last_closed[ref.closed_gtid.domain_id] = ref.closed_gtid
    views = [memoryview(e) for e in stream]
    got_boundaries, got_positions, got_closed, i = [], [], {}, 0
    while i < len(views):
        run = run_t.take_run(views, i)
        assert run is not None
        if run.stop > i:
            if run.last_boundary >= 0:
                assert i <= run.last_boundary < run.stop
                got_boundaries.append(run.last_boundary)
            got_positions += run.positions
            got_closed.update((g.domain_id, g) for g in run.closed)
            i = run.stop
            continue
        if run_t.feed(views[i]):
            got_boundaries.append(i)
        got_positions.append(run_t.master.pos)
        if run_t.closed_gtid is not None:
            got_closed[run_t.closed_gtid.domain_id] = run_t.closed_gtid
        i += 1
    assert state(run_t) == state(ref)
    assert got_positions == positions
    assert set(got_boundaries) <= set(boundaries)
    assert (got_boundaries or [-1])[-1] == (boundaries or [-1])[-1]  # the IO task's resume point
    assert got_closed == last_closed


@built
def test_a_read_of_oltp_insert_transactions_is_taken_whole():
    """What a semi-sync master sends under sysbench: MariaDB GTID, INSERT, XID, all taken."""
    pos, stream = 4, []
    for n in range(1, 9):
        for b in (MariaGtid(seq_no=n, domain_id=0, flags2=0x08), Query(db="sbtest", query=f"INSERT INTO t VALUES ({n})"),
                  Xid(n)):
            pos += len(body(b, True, 0, 0))
            stream.append(body(b, True, pos, 0))
    tracker = fresh(True, BinlogPosition(MASTER, 4))
    run = tracker.take_run(stream, 0)
    assert run is not None and run.stop == len(stream) and run.last_boundary == len(stream) - 1
    assert run.positions[-1] == pos and tracker.master == BinlogPosition(MASTER, pos)
    assert [str(g) for g in run.closed] == ["0-1-8"] and tracker.at_boundary


@built
def test_footers_checked_already_are_not_checked_again():
    """`verified` (events whose CRC32 footers the receiver thread checked on these very bytes):
    a run takes them without reading the footers, with the same positions, boundaries and GTIDs
    as the run that checked them; without it a corrupt footer stops the run there."""
    pos, stream = 4, []
    for n in range(1, 4):
        for b in (MariaGtid(seq_no=n, domain_id=0, flags2=0x08), Query(db="sbtest", query=f"INSERT INTO t VALUES ({n})"),
                  Xid(n)):
            pos += len(body(b, True, 0, 0))
            stream.append(body(b, True, pos, 0))
    checked = fresh(True, BinlogPosition(MASTER, 4)).take_run(stream, 0)
    corrupt = [*stream[:4], stream[4][:-4] + bytes(4 - i for i in range(4)), *stream[5:]]
    assert not event_checksum_ok(corrupt[4])
    stopped = fresh(True, BinlogPosition(MASTER, 4)).take_run(corrupt, 0)
    assert stopped is not None and stopped.stop == 4
    tracker = fresh(True, BinlogPosition(MASTER, 4))
    assert tracker.take_run(corrupt, 0, verified=True) == checked
    assert checked is not None and checked.stop == len(stream) and tracker.master == BinlogPosition(MASTER, pos)


@built
def test_a_master_position_past_the_scans_range_is_fed_one_by_one():
    """A ROTATE may name any 64-bit position; past a signed 64-bit one the compiled scan takes
    nothing (it raised OverflowError on the next event) and `feed` decides, as it does alone."""
    rotate = (b"\x01\x00\x00\x00\x04\x01\x00\x00\x00,\x00\x00\x00\x00\x00\x00\x00\x00\x00"
              + (1 << 63).to_bytes(8, "little") + MASTER.encode())
    unknown = b"\x01\x00\x00\x00\xa2\x01\x00\x00\x00&\x00\x00\x00\x00\x00\x00\x00\x00\x00" + bytes(19)
    tracker = fresh(False, BinlogPosition(MASTER, 4))
    for event in (rotate, unknown):
        run = tracker.take_run([memoryview(event)], 0)
        assert run is not None and run.stop == 0
        tracker.feed(event)
    assert tracker.master == BinlogPosition(MASTER, 1 << 63)
