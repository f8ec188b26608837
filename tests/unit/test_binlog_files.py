"""binlog/: BinlogWriter, readers, the index, torn-tail recovery (real files under tmp_path)."""

from __future__ import annotations

import pytest

from binlog import (
    BinlogFileError,
    BinlogWriter,
    file_checksum,
    iter_all,
    iter_events,
    iter_range,
    read_index,
    scan_file,
    truncate_torn_tail,
    write_index,
)
from protocol.errors import LocalProtocolError
from protocol.events import (
    BINLOG_MAGIC,
    LOG_EVENT_BINLOG_IN_USE_F,
    EventType,
    FormatDescription,
    Query,
    Rotate,
    Xid,
    decode_event,
    decode_header,
    encode_event,
)
from protocol.position import BinlogPosition

TS = 1_700_000_000


def txn(i: int, pad: int = 0) -> list[tuple[int, bytes, int, int]]:
    return [
        (EventType.QUERY_EVENT, Query(thread_id=1, db="test", query="BEGIN").encode(), TS, 0),
        (EventType.QUERY_EVENT, Query(thread_id=1, db="test", query=f"INSERT INTO t VALUES ({i})" + " " * pad).encode(), TS, 0),
        (EventType.XID_EVENT, Xid(i).encode(), TS, 0),
    ]


def writer(tmp_path, checksum=True, max_size=1 << 20, basename="mysql-bin"):
    return BinlogWriter(tmp_path, basename, server_id=7, checksum=checksum, max_size=max_size, server_version="10.11.19-semisync-log")


def decoded(path, checksum):
    return [decode_event(ev, checksum=checksum if decode_header(ev).type_code != EventType.FORMAT_DESCRIPTION_EVENT else False) for _, ev in iter_events(path)]


@pytest.mark.parametrize("checksum", [True, False])
def test_new_binlog_starts_with_magic_and_fd_and_log_pos_is_the_end_offset(tmp_path, checksum):
    w = writer(tmp_path, checksum)
    assert w.open() == BinlogPosition("mysql-bin.000001", 4 + 252 if checksum else 4 + 252)
    raw = (tmp_path / "mysql-bin.000001").read_bytes()
    assert raw[:4] == BINLOG_MAGIC
    fd = decode_event(raw[4:], checksum=False)
    assert isinstance(fd.body, FormatDescription) and fd.body.checksum is checksum
    assert fd.log_pos == len(raw) and fd.header.flags & LOG_EVENT_BINLOG_IN_USE_F
    pos = w.append(txn(1))
    assert w.end_position.pos == len(raw)  # nothing flushed yet
    assert w.flush() == pos
    events = decoded(tmp_path / "mysql-bin.000001", checksum)
    offsets = [o for o, _ in iter_events(tmp_path / "mysql-bin.000001")]
    assert [e.log_pos for e in events] == [o + e.header.event_size for o, e in zip(offsets, events, strict=True)]
    assert events[-1].log_pos == pos.pos and events[-1].body == Xid(1)
    assert [e.header.server_id for e in events] == [7] * 4
    assert file_checksum(tmp_path / "mysql-bin.000001") is checksum
    w.close()
    fd_after = decode_event((tmp_path / "mysql-bin.000001").read_bytes()[4:256], checksum=False)
    assert not fd_after.header.flags & LOG_EVENT_BINLOG_IN_USE_F  # closed cleanly


def test_index_lists_one_name_per_line_and_reads_every_form(tmp_path):
    w = writer(tmp_path)
    w.open()
    w.rotate()
    w.close()
    assert (tmp_path / "mysql-bin.index").read_text() == "./mysql-bin.000001\n./mysql-bin.000002\n"
    assert read_index(tmp_path, "mysql-bin") == ["mysql-bin.000001", "mysql-bin.000002"]
    (tmp_path / "x.index").write_text("/var/lib/mysql/x.000001\nx.000002\n\n./x.000003\n")
    assert read_index(tmp_path, "x") == ["x.000001", "x.000002", "x.000003"]
    assert read_index(tmp_path, "none") == []
    write_index(tmp_path, "y", ["y.000001"])
    assert (tmp_path / "y.index").read_text() == "./y.000001\n"


def test_only_the_first_file_of_an_open_has_a_creation_time(tmp_path):
    """MariaDB's rule: a replica that reads an FD with its creation time set takes it for a master
    that started and ends the temporary tables of its threads, so a rotation's file has 0."""
    w = writer(tmp_path)
    w.open()
    w.rotate()
    w.close()
    w.open()  # a new open starts a new file, with its creation time
    w.close()

    def created(name: str) -> int:
        return decode_event((tmp_path / name).read_bytes()[4:256], checksum=False).body.create_timestamp

    assert [created(name) > 0 for name in w.files()] == [True, False, True]


@pytest.mark.parametrize("checksum", [True, False])
def test_automatic_rotation_after_a_transaction(tmp_path, checksum):
    w = writer(tmp_path, checksum, max_size=4096)
    w.open()
    ends = []
    for i in range(60):
        ends.append(w.append(txn(i, pad=50)))
        w.flush()
        w.sync()
    w.close()
    names = w.files()
    assert len(names) >= 3
    seen_xids = []
    for n, name in enumerate(names):
        events = decoded(tmp_path / name, checksum)
        assert isinstance(events[0].body, FormatDescription)
        if n < len(names) - 1:
            # a rotated file ends with ROTATE to the next, right after a whole transaction
            assert events[-1].body == Rotate(4, names[n + 1])
            assert isinstance(events[-2].body, Xid)
            assert (tmp_path / name).stat().st_size >= 4096
        seen_xids += [e.body.xid for e in events if isinstance(e.body, Xid)]
    assert seen_xids == list(range(60))
    # the returned positions name the file each transaction went to, and its end
    for i, end in enumerate(ends):
        events = {e.log_pos: e for e in decoded(tmp_path / end.file, checksum)}
        assert events[end.pos].body == Xid(i)


def test_reopen_continues_the_last_file_or_starts_a_new_one(tmp_path):
    w = writer(tmp_path)
    w.open()
    w.append(txn(1))
    w.flush()
    end = w.end_position
    w.close()
    w2 = writer(tmp_path)
    assert w2.open(new_file=False) == end
    w2.append(txn(2))
    w2.flush()
    w2.close()
    assert w2.files() == ["mysql-bin.000001"]
    assert [e.body.xid for e in decoded(tmp_path / "mysql-bin.000001", True) if isinstance(e.body, Xid)] == [1, 2]
    w3 = writer(tmp_path)
    assert w3.open(new_file=True) == BinlogPosition("mysql-bin.000002", 256)
    w3.close()
    # a different checksum setting never continues an existing file
    w4 = writer(tmp_path, checksum=False)
    assert w4.open(new_file=False).file == "mysql-bin.000003"
    w4.close()


def test_torn_tail_is_found_and_cut(tmp_path):
    w = writer(tmp_path)
    w.open()
    w.append(txn(1))
    good = w.flush().pos
    w.append(txn(2))
    full = w.flush().pos
    w.close()
    path = tmp_path / "mysql-bin.000001"
    assert scan_file(path).clean and scan_file(path).last_complete_end == full
    for cut in (full - 1, full - 20, good + 1, good + 19, good + 25):
        data = path.read_bytes()[:cut]
        p = tmp_path / f"cut{cut}"
        p.write_bytes(data)
        result = scan_file(p)
        assert result.torn and result.error is None
        # the last complete event ends before the cut; every event up to there is readable
        ends = [o + len(ev) for o, ev in iter_events(p)]
        assert result.last_complete_end == ends[-1] <= cut
        assert truncate_torn_tail(p) == result.last_complete_end == p.stat().st_size
        assert scan_file(p).clean
    # an event cut right inside the transaction of txn(2): we keep its first events (whole ones)
    assert scan_file(tmp_path / f"cut{good + 25}").last_complete_end == good


def test_crash_recovery_on_open_cuts_the_torn_tail(tmp_path):
    w = writer(tmp_path)
    w.open()
    w.append(txn(1))
    good = w.flush()
    w.append(txn(2))
    w.flush()
    w.close()
    path = tmp_path / "mysql-bin.000001"
    path.write_bytes(path.read_bytes()[: good.pos + 30])
    w2 = writer(tmp_path)
    assert w2.open(new_file=False) == good
    w2.close()


def test_corruption_is_reported_with_the_offset(tmp_path):
    w = writer(tmp_path)
    w.open()
    w.append(txn(1))
    end = w.flush().pos
    w.close()
    path = tmp_path / "mysql-bin.000001"
    data = bytearray(path.read_bytes())
    data[end - 10] ^= 0xFF  # inside the XID event: CRC mismatch
    path.write_bytes(bytes(data))
    result = scan_file(path)
    assert result.error and "CRC32" in result.error and not result.torn
    xid_start = end - 31
    assert result.last_complete_end == xid_start
    bad = tmp_path / "notbinlog"
    bad.write_bytes(b"hello world, this is not a binlog")
    assert scan_file(bad).error == "not a binlog file (bad magic number)"
    with pytest.raises(BinlogFileError):
        list(iter_events(bad))
    zero = tmp_path / "zero"
    zero.write_bytes(BINLOG_MAGIC + bytes(40))
    assert scan_file(zero).error and scan_file(zero).last_complete_end == 4


def test_iter_events_bounds_and_a_growing_file(tmp_path):
    w = writer(tmp_path)
    w.open()
    first = w.end_position.pos
    end1 = w.append(txn(1)).pos
    w.flush()
    path = tmp_path / "mysql-bin.000001"
    assert [o for o, _ in iter_events(path, first, end1)] == [o for o, _ in iter_events(path)][1:]
    assert list(iter_events(path, first, first)) == []
    # half an event on disk (as a reader sees a file being written): not yielded
    w.append(txn(2))
    with open(path, "ab") as f:
        f.write(bytes(w._buf[:30]))
    assert [o + len(ev) for o, ev in iter_events(path)][-1] == end1


def test_iter_range_reads_what_iter_events_reads_from_every_boundary(tmp_path):
    """The dump's one-pread read of a small range gives exactly `iter_events`'s events, stops at
    a half-written event, and reports an impossible size with its offset."""
    w = writer(tmp_path)
    w.open()
    for i in range(3):
        w.append(txn(i, pad=i * 40))
    end = w.flush().pos
    path = tmp_path / "mysql-bin.000001"
    offsets = [o for o, _ in iter_events(path)]
    for start in offsets[1:]:
        for stop in [*(o for o in offsets if o > start), end, end - 1]:
            assert list(iter_range(path, start, stop)) == list(iter_events(path, start, stop))
    w.append(txn(9))
    with open(path, "ab") as f:
        f.write(bytes(w._buf[:30]))
    assert list(iter_range(path, offsets[1], end + 30)) == list(iter_events(path, offsets[1], end + 30))
    data = bytearray(path.read_bytes())
    data[offsets[2] + 9 : offsets[2] + 13] = (5).to_bytes(4, "little")  # an event of 5 bytes
    path.write_bytes(bytes(data))
    with pytest.raises(BinlogFileError) as caught:
        list(iter_range(path, offsets[1], end))
    assert caught.value.offset == offsets[2]


def test_iter_all_follows_the_index(tmp_path):
    w = writer(tmp_path, max_size=4096)
    w.open()
    for i in range(40):
        w.append(txn(i, pad=50))
        w.flush()
    w.close()
    names = w.files()
    everything = list(iter_all(tmp_path, "mysql-bin", BinlogPosition(names[0], 4)))
    assert [p.file for p, _ in everything][0] == names[0] and everything[-1][0].file == names[-1]
    xids = [decode_event(ev, checksum=True).body.xid for _, ev in everything if ev[4] == EventType.XID_EVENT]
    assert xids == list(range(40))
    # from a position in the middle of the second file
    second = list(iter_events(tmp_path / names[1]))
    start = BinlogPosition(names[1], second[3][0])
    tail = list(iter_all(tmp_path, "mysql-bin", start))
    assert tail[0] == (start, second[3][1])
    assert len(tail) == len(everything) - len(list(iter_events(tmp_path / names[0]))) - 3
    with pytest.raises(BinlogFileError):
        list(iter_all(tmp_path, "mysql-bin", BinlogPosition("mysql-bin.000099", 4)))


def test_append_raw_keeps_the_masters_log_pos(tmp_path):
    relay = writer(tmp_path, basename="relay-bin")
    relay.open()
    master_event = encode_event(EventType.XID_EVENT, Xid(5).encode(), timestamp=TS, server_id=1, log_pos=925, checksum=True)
    end = relay.append_raw(master_event)
    assert end == 256 + len(master_event) and relay.pending_position.pos == end
    relay.flush()
    relay.sync()
    (o, ev), = list(iter_events(tmp_path / "relay-bin.000001", 256))
    assert ev == master_event and decode_event(ev, checksum=True).log_pos == 925
    relay.close()


def test_purge_and_reset(tmp_path):
    w = writer(tmp_path)
    w.open()
    for _ in range(3):
        w.rotate()
    assert w.files() == [f"mysql-bin.00000{i}" for i in range(1, 5)]
    assert w.purge_to("mysql-bin.000003") == ["mysql-bin.000001", "mysql-bin.000002"]
    assert w.files() == ["mysql-bin.000003", "mysql-bin.000004"]
    assert not (tmp_path / "mysql-bin.000001").exists()
    with pytest.raises(LocalProtocolError):
        w.purge_to("mysql-bin.000001")
    assert w.reset() == BinlogPosition("mysql-bin.000001", 256)
    assert w.files() == ["mysql-bin.000001"] and not (tmp_path / "mysql-bin.000004").exists()
    w.append(txn(1))
    w.flush()
    w.close()
    assert scan_file(tmp_path / "mysql-bin.000001").clean


def test_misuse_is_a_local_error(tmp_path):
    w = writer(tmp_path)
    with pytest.raises(LocalProtocolError):
        w.append(txn(1))
    with pytest.raises(LocalProtocolError):
        writer(tmp_path, max_size=10)
    w.open()
    with pytest.raises(LocalProtocolError):
        w.open()
    w.close()
    w.close()


def test_open_cuts_a_zero_filled_tail_but_leaves_real_corruption_alone(tmp_path):
    w = writer(tmp_path)
    w.open()
    end = w.append(txn(1))
    w.flush()
    w.close()
    path = tmp_path / "mysql-bin.000001"
    with open(path, "ab") as f:
        f.write(bytes(4096))  # what a crash can leave after the last event
    w2 = writer(tmp_path)
    assert w2.open(new_file=False) == end
    w2.close()
    assert path.stat().st_size == end.pos
    data = bytearray(path.read_bytes())
    data[end.pos - 10] ^= 0xFF  # CRC mismatch in the last event
    path.write_bytes(bytes(data))
    w3 = writer(tmp_path)
    assert w3.open(new_file=False).file == "mysql-bin.000002"
    w3.close()
    assert path.read_bytes() == bytes(data)  # untouched, for a human to look at
