"""pipeline/decode.py: the column-wise decoder gives exactly the rows of the reference decoder
(`protocol.events.decode_event` + `binlog.rows.event_row`, i.e. `semisync binlog --json`), at any
chunk size, for every event type; half-written tails, corrupt data and split points. No Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlog import BinlogFileError, BinlogWriter, iter_events
from binlog.rows import ROW_FIELDS, event_row
from pipeline.decode import (
    ARROW_SCHEMA,
    CORE_FIELDS,
    decode_range,
    details_json,
    flat_row,
    scan_boundaries,
)
from pipeline.workload import write_history
from protocol.events import (
    BinlogCheckpoint,
    EventType,
    FormatDescription,
    Gtid,
    GtidList,
    Heartbeat,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    Rows,
    TableMap,
    UserVar,
    Xid,
    decode_event,
    encode_status_vars,
)

TS = 1_700_000_000


@pytest.fixture(params=["c", "numpy"], autouse=True)
def decoder(request, monkeypatch):
    """Every test here runs with the C scanner (pipeline/_binlog_scan.c) and with the numpy
    decoder: both are held to the reference."""
    from pipeline import decode, native

    if request.param == "c":
        assert native.LIB is not None, "the C scanner was not built (pip install -e . needs a C compiler)"
    monkeypatch.setattr(decode, "NATIVE", request.param == "c")
    return request.param


def reference_rows(path: Path) -> list[dict]:
    checksum, rows = False, []
    for off, raw in iter_events(path):
        ev = decode_event(raw, checksum=checksum)
        if isinstance(ev.body, FormatDescription):
            checksum = ev.body.checksum
        rows.append(event_row(str(path), off, ev))
    return rows


def fast_rows(path: Path, start: int = 4, end: int | None = None, crc: bool = False, **kw) -> list[dict]:
    rows = []
    for batch in decode_range(str(path), str(path), start, end, crc, **kw):
        assert batch.schema.equals(ARROW_SCHEMA)
        for r in batch.to_pylist():
            flat = flat_row(r)
            assert r["details"] == details_json(flat)  # the same text as the reference's
            rows.append(flat)
    return rows


def every_kind_of_event(checksum: bool) -> list[tuple[int, bytes, int, int]]:
    """One of each event type the reference decoder has a body for, and irregular shapes of the
    frequent ones (which the fast path must hand to the reference decoder)."""
    q = EventType.QUERY_EVENT
    return [
        (EventType.GTID_EVENT, MariaGtid(seq_no=5, domain_id=2, flags2=0x0D).encode(), TS, 0),
        (EventType.GTID_EVENT, MariaGtid(seq_no=6, domain_id=0, flags2=0x02, commit_id=99).encode(), TS, 0),
        (EventType.GTID_EVENT, MariaGtid(seq_no=7, flags2=0x40, xa_xid=(1, 2, 1, b"abc")).encode(), TS, 0),
        (q, Query(thread_id=3, db="shop", query="BEGIN", status_vars=encode_status_vars(flags2=0, sql_mode=7)).encode(), TS, 0),
        (q, Query(thread_id=3, db="", query="SET x=1", status_vars=encode_status_vars(sql_mode=1 << 40)).encode(), TS, 0),
        (q, Query(thread_id=3, db="d", query="no status").encode(), TS, 0),
        (q, Query(db="d", query="flags only", status_vars=encode_status_vars(flags2=8)).encode(), TS, 0),
        (q, Query(db="d", query="catalog first", status_vars=encode_status_vars(catalog="std", time_zone="UTC")).encode(), TS, 0),
        (q, Query(db="caf\u00e9", query="INSERT '\u2615'", exec_time=4, error_code=1062,
                  status_vars=encode_status_vars(flags2=0, sql_mode=0, charset=(33, 33, 8))).encode(), TS + 1, 0),
        (EventType.INTVAR_EVENT, Intvar(2, 77).encode(), TS, 0),
        (EventType.INTVAR_EVENT, Intvar(9, 1).encode(), TS, 0),
        (EventType.RAND_EVENT, Rand(1, 2).encode(), TS, 0),
        (EventType.USER_VAR_EVENT, UserVar("v", False, 0, 33, b"bob").encode(), TS, 0),
        (EventType.USER_VAR_EVENT, UserVar("n", True, flags=None).encode(), TS, 0),
        (EventType.ANNOTATE_ROWS_EVENT, b"INSERT INTO t VALUES (1)", TS, 0),
        (EventType.TABLE_MAP_EVENT, TableMap(12, 1, "shop", "orders", bytes([3, 15]), b"\x10\x00", b"\x02").encode(), TS, 0),
        (EventType.TABLE_MAP_EVENT, TableMap(13, 1, "s", "wide", bytes([3] * 300), b"", bytes(38)).encode(), TS, 0),
        (EventType.WRITE_ROWS_EVENT, Rows(EventType.WRITE_ROWS_EVENT, 12, 1, b"\x02\xff\x00\x01", b"").encode(), TS, 0),
        (EventType.UPDATE_ROWS_EVENT, Rows(EventType.UPDATE_ROWS_EVENT, 12, 0, b"\x02", b"\x00\x01").encode(), TS, 0),
        (EventType.DELETE_ROWS_EVENT_V1, Rows(EventType.DELETE_ROWS_EVENT_V1, 1 << 40, 1, b"\x01").encode(), TS, 0),
        (EventType.XID_EVENT, Xid(123456789).encode(), TS, 0),
        (EventType.GTID_LIST_EVENT, GtidList((Gtid(0, 1, 10), Gtid(1, 2, 3))).encode(), TS, 0),
        (EventType.GTID_LIST_EVENT, GtidList(()).encode(), TS, 0),
        (EventType.BINLOG_CHECKPOINT_EVENT, BinlogCheckpoint("master-bin.000001").encode(), TS, 0),
        (EventType.HEARTBEAT_LOG_EVENT, Heartbeat("master-bin.000002").encode(), TS, 0),
        (EventType.PREVIOUS_GTIDS_LOG_EVENT, b"\x00" * 8, TS, 0),
        (200, b"an event type nobody knows", TS, 0),
        (EventType.STOP_EVENT, b"", TS, 0),
    ]


def writer(tmp_path: Path, checksum: bool, basename: str = "master-bin") -> BinlogWriter:
    return BinlogWriter(tmp_path, basename, server_id=9, checksum=checksum, max_size=1 << 20,
                        server_version="10.11.19-semisync-log")


def test_arrow_schema_is_what_spark_expects_of_the_source_schema():
    from pyspark.sql.pandas.types import to_arrow_schema

    from pipeline.source import SCHEMA

    assert to_arrow_schema(SCHEMA).equals(ARROW_SCHEMA)
    assert ARROW_SCHEMA.names == [*CORE_FIELDS, "details"]
    assert set(CORE_FIELDS) <= set(ROW_FIELDS)


@pytest.mark.parametrize("checksum", [True, False])
def test_every_event_type_decodes_as_the_reference_does(tmp_path, checksum):
    with writer(tmp_path, checksum) as w:
        w.append(every_kind_of_event(checksum))
        w.rotate()
    path = tmp_path / "master-bin.000001"
    ref = reference_rows(path)
    assert len(ref) == len(every_kind_of_event(checksum)) + 2  # FD ... ROTATE
    assert {r["type"] for r in ref} >= {"GTID_LIST_EVENT", "USER_VAR_EVENT", "UNKNOWN_EVENT_200", "ROTATE_EVENT"}
    assert fast_rows(path) == ref


@pytest.mark.parametrize("row_format", [True, False])
@pytest.mark.parametrize("chunk", [300, 4096, 1 << 20])
def test_histories_decode_as_the_reference_at_any_chunk_size(tmp_path, row_format, chunk):
    write_history(tmp_path, transactions=400, row_format=row_format, checksum=row_format, max_size=40_000, ddl_every=50)
    files = sorted(tmp_path.glob("master-bin.0*"))
    assert len(files) >= 3
    for path in files:
        ref = reference_rows(path)
        assert fast_rows(path, chunk_bytes=chunk) == ref


def test_relay_log_switching_checksum_setting_midway_and_split_points(tmp_path):
    """A relay log: our FD (CRC32) then a master's FD without checksums mid-file; ranges cut at
    the split points read exactly the whole file's rows, each with the setting in force there."""
    with writer(tmp_path / "m", checksum=False) as master:
        for i in range(30):
            master.append([(EventType.QUERY_EVENT, Query(db="d", query=f"INSERT {i}" + "x" * 100).encode(), TS, 0)])
        master.flush()
    master_events = [raw for _, raw in iter_events(tmp_path / "m" / "master-bin.000001")]
    with writer(tmp_path, checksum=True, basename="relay-bin") as relay:
        for i in range(30):
            relay.append([(EventType.XID_EVENT, Xid(i).encode(), TS, 0)])
        for raw in master_events:
            relay.append_raw(raw)
        relay.flush()
    path = tmp_path / "relay-bin.000001"
    ref = reference_rows(path)
    assert fast_rows(path) == ref
    points = scan_boundaries(str(path), 4, path.stat().st_size, every=700, crc=False)
    assert len(points) > 5
    starts = {r["pos"] for r in ref}
    assert all(p in starts for p, _ in points[:-1]) and points[-1][0] == path.stat().st_size
    pieces = []
    for (start, crc), (end, _) in zip(points, points[1:], strict=False):
        pieces += fast_rows(path, start, end, crc)
    assert pieces == ref
    assert any(crc for _, crc in points) and not points[-1][1]


def test_half_written_tail_is_left_out_and_corruption_names_the_offset(tmp_path):
    write_history(tmp_path, transactions=50, max_size=1 << 20)
    path = tmp_path / "master-bin.000001"
    data = path.read_bytes()
    ref = reference_rows(path)
    torn = tmp_path / "torn.000001"
    torn.write_bytes(data[:-7])
    assert fast_rows(torn, chunk_bytes=500) == [dict(r, file=str(torn)) for r in ref[:-1]]
    assert scan_boundaries(str(torn), 4, len(data) - 7, every=None, crc=False)[-1][0] == ref[-1]["pos"]

    bad = bytearray(data)
    victim = ref[10]
    bad[victim["pos"] + 25] ^= 0xFF  # inside the body: CRC32 mismatch
    (tmp_path / "crc.000001").write_bytes(bad)
    with pytest.raises(BinlogFileError, match=f"offset {victim['pos']}.*CRC32 mismatch"):
        fast_rows(tmp_path / "crc.000001")
    assert len(fast_rows(tmp_path / "crc.000001", verify_checksums=False)) == len(ref)

    bad = bytearray(data)
    bad[victim["pos"] + 9 : victim["pos"] + 13] = (5).to_bytes(4, "little")
    (tmp_path / "size.000001").write_bytes(bad)
    with pytest.raises(BinlogFileError, match=f"offset {victim['pos']}.*impossible event size 5"):
        fast_rows(tmp_path / "size.000001")

    (tmp_path / "text.000001").write_bytes(b"hello, not a binlog\n" * 10)
    with pytest.raises(BinlogFileError, match="not a binlog"):
        fast_rows(tmp_path / "text.000001")


def test_text_that_is_not_utf8_gets_replacement_characters_on_both_paths(tmp_path):
    bad_sql = b"INSERT INTO t VALUES ('\xff\xfe')"
    with writer(tmp_path, True) as w:
        w.append([
            (EventType.QUERY_EVENT, Query(db="d", query=bad_sql.decode("utf-8", "surrogateescape"),
                                          status_vars=encode_status_vars(flags2=0, sql_mode=0)).encode(), TS, 0),
            (EventType.BINLOG_CHECKPOINT_EVENT, BinlogCheckpoint("bin\udcff").encode(), TS, 0),
        ])
    rows = fast_rows(tmp_path / "master-bin.000001")
    assert rows[1]["query"] == "INSERT INTO t VALUES ('\ufffd\ufffd')"
    assert rows[2]["checkpoint_file"] == "bin\ufffd"


def test_bytes_that_look_like_an_event_inside_an_event_do_not_fool_the_framing(tmp_path):
    """The numpy framing takes every position whose log_pos - event_size equals it as a
    candidate event start; a statement carrying such bytes must not split its event."""
    from pipeline.decode import _frame, walk

    def fake_header(at: int) -> bytes:  # an XID_EVENT header claiming to start at file offset `at`
        return (TS.to_bytes(4, "little") + bytes([16]) + (9).to_bytes(4, "little") + (31).to_bytes(4, "little")
                + (at + 31).to_bytes(4, "little") + b"\x00\x00")

    def body(fake: bytes) -> bytes:
        text = "SELECT '" + fake.decode("utf-8", "surrogateescape") + "'"
        return Query(db="d", query=text, status_vars=encode_status_vars(flags2=0, sql_mode=0)).encode()

    with writer(tmp_path, True) as w:
        w.append([(EventType.XID_EVENT, Xid(1).encode(), TS, 0)])
        start = w.pending_position.pos
        placeholder = bytes(19)
        fake = fake_header(start + 19 + body(placeholder).find(placeholder))
        w.append([(EventType.QUERY_EVENT, body(fake), TS, 0), (EventType.XID_EVENT, Xid(2).encode(), TS, 0)])
    path = tmp_path / "master-bin.000001"
    data = path.read_bytes()
    assert data.find(fake) > start
    offsets, stop = _frame(data[4:], 4, len(data) - 4)
    assert (offsets + 4).tolist() == walk(data, 4, len(data))[0] and stop + 4 == len(data)
    # (the fake header is not UTF-8: the query column has U+FFFD where the reference has escapes)
    from pipeline.decode import _utf8

    assert fast_rows(path) == [{k: _utf8(v) for k, v in r.items()} for r in reference_rows(path)]


def test_crc32_check_of_a_whole_range_finds_every_corrupt_event(tmp_path):
    """The range-wide CRC32 check (`decode._verify`) against the event-by-event one: any byte
    flipped in an event's body or footer, anywhere in a chunk, and two corrupt events at once, are
    reported at the first corrupt event's offset; an intact file passes, also right after."""
    import random

    write_history(tmp_path, transactions=300, max_size=1 << 20, ddl_every=40)
    path = tmp_path / "master-bin.000001"
    data = path.read_bytes()
    ref = reference_rows(path)
    assert len(fast_rows(path, chunk_bytes=4096)) == len(ref)
    rng = random.Random(7)
    events = [r for r in ref if r["type"] != "FORMAT_DESCRIPTION_EVENT"]
    for trial in range(60):
        victims = sorted(rng.sample(events, 1 if trial % 3 else 2), key=lambda r: r["pos"])
        bad = bytearray(data)
        for victim in victims:
            bad[victim["pos"] + rng.randrange(19, victim["size"])] ^= 1 << rng.randrange(8)
        corrupt = tmp_path / f"bad{trial}.000001"
        corrupt.write_bytes(bad)
        chunk = rng.choice([4096, 1 << 20])
        with pytest.raises(BinlogFileError, match=f"offset {victims[0]['pos']}: .*CRC32 mismatch"):
            fast_rows(corrupt, chunk_bytes=chunk)
        corrupt.unlink()
        assert len(fast_rows(path, chunk_bytes=chunk)) == len(ref)  # the check's scratch is clean again


def test_framing_finds_exactly_the_events_the_walk_finds(tmp_path):
    """The framing (numpy: `frame` tests every byte position for log_pos - event_size == its
    offset, on the fields' low bytes first, then on the whole fields, and chains what it found;
    C: a walk) from any event boundary and with any limit gives the Python walk's offsets and
    stop; on random bytes (where the walk stops at an impossible event size) it raises the walk's
    error at the same offset."""
    import random

    from pipeline.decode import _frame as frame
    from pipeline.decode import walk

    write_history(tmp_path, transactions=300, max_size=1 << 20)
    data = (tmp_path / "master-bin.000001").read_bytes()
    starts = walk(data, 4, len(data))[0]
    rng = random.Random(11)
    for _ in range(300):
        base = rng.choice(starts)
        end = rng.randrange(base, len(data) + 1)
        limit = rng.randrange(0, end - base + 2)
        offsets, stop = frame(data[base:end], base, limit)
        assert (offsets.tolist(), stop) == walk(data[base:end], 0, limit)
    for _ in range(100):
        noise = rng.randbytes(rng.randrange(0, 600))
        try:
            expected = walk(noise, 0, len(noise))
        except ValueError as e:
            with pytest.raises(ValueError) as raised:
                frame(noise, rng.randrange(1 << 32), len(noise))
            assert raised.value.args == e.args
        else:
            offsets, stop = frame(noise, rng.randrange(1 << 32), len(noise))
            assert (offsets.tolist(), stop) == expected
