"""Hypothesis round-trips of every event body we encode: encode_body_event -> decode_event gives
the same header and body back, with and without CRC32, and the event splitter frames any stream
of them whole, byte by byte and with trailing bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.events import (
    BINLOG_CHECKSUM_ALG_CRC32,
    BINLOG_CHECKSUM_ALG_OFF,
    FL_COMMIT_ALTER,
    FL_COMPLETED_XA,
    FL_EXTRA_MULTI_ENGINE,
    FL_GROUP_COMMIT_ID,
    FL_PREPARED_XA,
    FL_ROLLBACK_ALTER,
    ROWS_V1_TYPES,
    ROWS_V2_TYPES,
    AnnotateRows,
    BinlogCheckpoint,
    FormatDescription,
    Gtid,
    GtidList,
    Heartbeat,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    Rotate,
    Rows,
    Stop,
    TableMap,
    UserVar,
    Xid,
    decode_event,
    encode_body_event,
    encode_status_vars,
    split_events,
)

u8, u16, u32, u64 = (st.integers(0, 2**b - 1) for b in (8, 16, 32, 64))
# any bytes survive as text (UTF-8 with surrogateescape)
text = st.binary(max_size=80).map(lambda b: b.decode("utf-8", "surrogateescape"))
short_text = st.binary(max_size=60).map(lambda b: b.decode("utf-8", "surrogateescape"))
name_text = st.binary(min_size=1, max_size=40).filter(lambda b: b"\x00" not in b).map(lambda b: b.decode("utf-8", "surrogateescape"))

status_vars = st.builds(
    lambda f, m, c, ai, cs, tz, inv, dbs, x: encode_status_vars(
        flags2=f, sql_mode=m, catalog=c, auto_increment=ai, charset=cs, time_zone=tz, invoker=inv,
        updated_db_names=dbs, xid=x,
    ),
    st.none() | u32, st.none() | u64, st.none() | st.just("std"), st.none() | st.tuples(u16, u16),
    st.none() | st.tuples(u16, u16, u16), st.none() | st.sampled_from(["SYSTEM", "+00:00"]),
    st.none() | st.tuples(st.sampled_from(["root", "u"]), st.sampled_from(["localhost", "%"])),
    st.none() | st.lists(st.sampled_from(["a", "db2"]), max_size=3), st.none() | u64,
)


def _gtid(seq, dom, flags, commit, xa, extra, flags_extra):
    commit_id = commit if flags & FL_GROUP_COMMIT_ID else None
    xa_xid = None
    if flags & (FL_PREPARED_XA | FL_COMPLETED_XA):
        g, b, data = xa
        xa_xid = (1, g, b, data[: g + b].ljust(g + b, b"x"))
    engines = 1 if flags_extra & FL_EXTRA_MULTI_ENGINE else None
    sa_seq_no = seq if flags_extra & (FL_COMMIT_ALTER | FL_ROLLBACK_ALTER) else None
    if not flags_extra and (commit_id is not None or xa_xid is not None):
        extra = b"\x00" + extra  # past the 19-byte minimum a reader takes the next byte for flags_extra
    return MariaGtid(seq, dom, flags, commit_id, xa_xid, extra, flags_extra, engines, sa_seq_no)


bodies = st.one_of(
    st.builds(FormatDescription, st.just(4), st.text("0123456789.-abcMariaDB", max_size=50).map(lambda v: "10.11." + v[:44]),
              u32, st.just(19), st.binary(min_size=171, max_size=171),
              st.sampled_from([BINLOG_CHECKSUM_ALG_CRC32, BINLOG_CHECKSUM_ALG_OFF])),
    st.builds(Rotate, u64, text),
    st.builds(Query, u32, u32, u16, short_text.filter(lambda s: len(s.encode("utf-8", "surrogateescape")) < 256), text, status_vars),
    st.builds(Xid, u64),
    st.builds(Intvar, st.sampled_from([1, 2]), u64),
    st.builds(Rand, u64, u64),
    st.builds(UserVar, name_text, st.just(False), st.integers(0, 4), u32, st.binary(max_size=40), st.none() | st.integers(0, 1)),
    st.builds(lambda n: UserVar(n, True, 0, 0, b"", None), name_text),
    st.just(Stop()),
    st.builds(Heartbeat, name_text),
    st.builds(_gtid, u64, u32, u8, u64, st.tuples(st.integers(0, 64), st.integers(0, 64), st.binary(max_size=128)), st.binary(max_size=8),
              u8),
    st.builds(lambda gs, fl, ex: GtidList(tuple(Gtid(*g) for g in gs), fl, ex),
              st.lists(st.tuples(u32, u32, u64), max_size=5), st.integers(0, 15), st.binary(max_size=4)),
    st.builds(BinlogCheckpoint, name_text),
    st.builds(AnnotateRows, text),
    st.builds(
        lambda tid, fl, db, tb, types, meta, opt: TableMap(tid, fl, db, tb, types, meta, bytes((len(types) + 7) // 8), opt),
        st.integers(0, 2**48 - 1), u16, name_text.filter(lambda s: len(s.encode("utf-8", "surrogateescape")) < 64),
        name_text.filter(lambda s: len(s.encode("utf-8", "surrogateescape")) < 64),
        st.binary(max_size=300), st.binary(max_size=300), st.binary(max_size=10),
    ),
    st.builds(lambda t, tid, fl, rows: Rows(t, tid, fl, rows), st.sampled_from(sorted(ROWS_V1_TYPES)), st.integers(0, 2**48 - 1), u16, st.binary(max_size=60)),
    st.builds(lambda t, tid, fl, rows, ex: Rows(t, tid, fl, rows, ex), st.sampled_from(sorted(ROWS_V2_TYPES)), st.integers(0, 2**48 - 1), u16, st.binary(max_size=60), st.binary(max_size=20)),
)
headers = st.fixed_dictionaries({"timestamp": u32, "server_id": u32, "log_pos": u32, "flags": u16})


@settings(max_examples=400, deadline=None)
@given(bodies, headers, st.booleans())
def test_every_body_round_trips(body, header, checksum):
    raw = encode_body_event(body, checksum=checksum, **header)
    ev = decode_event(raw, checksum=checksum)
    assert ev.body == body
    assert {k: getattr(ev.header, k) for k in header} == header
    assert ev.header.event_size == len(raw) and ev.raw == raw
    again = encode_body_event(ev.body, checksum=checksum, **header)
    assert again == raw


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(bodies, headers), min_size=1, max_size=8), st.integers(1, 64), st.binary(max_size=18))
def test_splitter_frames_any_stream_in_any_chunks(items, chunk, trailing):
    events = [encode_body_event(b, checksum=True, **h) for b, h in items]
    stream = b"".join(events) + trailing
    got, resume = [], 0
    for i in range(chunk, len(stream) + chunk, chunk):
        for off, ev in split_events(stream[:i], resume):
            got.append(bytes(ev))
            resume = off + len(ev)
    assert got == events and len(stream) - resume == len(trailing)
