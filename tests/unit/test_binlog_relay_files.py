"""binlog/ as the relay log uses it: a writer of events received from a master (`append_raw`,
`start_file` per connection with that master's checksum, `truncate` to a transaction boundary,
no automatic rotation, no in-use flag, bare index lines) and `iter_checked`, which checks each
event by the last FORMAT_DESCRIPTION_EVENT before it. Real files under tmp_path."""

from __future__ import annotations

import errno
import os

import pytest

from binlog import (
    BinlogFileError,
    BinlogWriter,
    cut_file,
    iter_checked,
    iter_events,
    read_index,
    scan_file,
)
from binlog import writer as writer_module
from protocol.events import (
    BINLOG_MAGIC,
    EventType,
    FormatDescription,
    Query,
    Xid,
    decode_event,
    decode_header,
    encode_body_event,
)
from protocol.position import BinlogPosition

MASTER_VERSION = "10.11.19-MariaDB-log"


def relay_writer(tmp_path) -> BinlogWriter:
    return BinlogWriter(tmp_path, "relay-bin", server_id=2, checksum=False, max_size=None,
                        server_version="10.11.99-semisync-log", mark_in_use=False, index_prefix="")


def master_events(checksum: bool, n: int, start: int = 4) -> list[bytes]:
    """A master's FD (log_pos 0, as a dump sends it) and `n` transactions with its log_pos."""
    out = [encode_body_event(FormatDescription(server_version=MASTER_VERSION, checksum_alg=int(checksum)),
                             timestamp=1, server_id=1, log_pos=0, checksum=True)]
    pos = start
    for i in range(n):
        for body in (Query(db="d", query="BEGIN"), Query(db="d", query=f"INSERT INTO t VALUES ({i})"), Xid(i)):
            size = len(encode_body_event(body, timestamp=1, server_id=1, log_pos=0, checksum=checksum))
            pos += size
            out.append(encode_body_event(body, timestamp=1, server_id=1, log_pos=pos, checksum=checksum))
    return out


def with_one_transaction(tmp_path, transactions: int) -> tuple[BinlogWriter, list[bytes], int]:
    """A relay writer whose file holds the master's FD and its first transaction (flushed): the
    writer, all the master's events, and the end of that transaction."""
    w = relay_writer(tmp_path)
    w.start_file(checksum=True)
    events = master_events(True, transactions)
    for e in events[:4]:
        w.append_raw(e)
    return w, events, w.flush().pos


def test_a_file_per_connection_keeps_the_masters_events_and_their_checksum(tmp_path):
    w = relay_writer(tmp_path)
    first = w.start_file(checksum=True)
    assert first.file == "relay-bin.000001"
    events = master_events(True, 3)
    ends = [w.append_raw(e) for e in events]
    assert w.flush() == BinlogPosition("relay-bin.000001", ends[-1])
    assert w.start_file(checksum=False) == BinlogPosition("relay-bin.000002", first.pos)
    w.append_raw(master_events(False, 1)[1])
    w.close()
    old = (tmp_path / "relay-bin.000001").read_bytes()
    assert old[first.pos:] == b"".join(events)  # byte for byte, the master's log_pos kept
    assert all(decode_header(ev).type_code != EventType.ROTATE_EVENT for _, ev in iter_events(tmp_path / "relay-bin.000001"))
    for name, checksum in (("relay-bin.000001", True), ("relay-bin.000002", False)):
        fd = decode_event(next(iter_events(tmp_path / name))[1], checksum=False)
        assert fd.body.checksum is checksum and fd.header.flags == 0 and fd.header.server_id == 2
    assert (tmp_path / "relay-bin.index").read_text() == "relay-bin.000001\nrelay-bin.000002\n"
    assert read_index(tmp_path, "relay-bin") == ["relay-bin.000001", "relay-bin.000002"]


def test_without_max_size_the_writer_never_rotates_by_itself(tmp_path):
    w = relay_writer(tmp_path)
    w.start_file(checksum=True)
    for e in master_events(True, 200):
        w.append_raw(e)
    end = w.flush()
    assert end.file == "relay-bin.000001" and end.pos > 4096 * 4
    assert w.files() == ["relay-bin.000001"]
    w.close()


def test_truncate_drops_what_is_after_the_offset_in_the_buffer_and_in_the_file(tmp_path):
    w, events, after_1 = with_one_transaction(tmp_path, 3)
    ends = [w.append_raw(e) for e in events[4:]]
    # buffered bytes: those before the offset stay buffered, those after go
    assert w.truncate(ends[2]) == BinlogPosition("relay-bin.000001", ends[2])
    assert w.end_position.pos == after_1
    assert w.flush().pos == ends[2]
    # written bytes: the file is cut and the cut is durable
    w.sync()
    assert w.truncate(after_1).pos == after_1 == w.end_position.pos == w.synced_position.pos
    assert (tmp_path / "relay-bin.000001").stat().st_size == after_1
    w.append_raw(events[4])
    assert w.flush().pos == after_1 + len(events[4])  # appends continue at the cut
    w.close()


def test_a_failed_truncate_raises_its_error_and_is_retried_before_the_next_write(tmp_path, monkeypatch):
    w, events, after_1 = with_one_transaction(tmp_path, 2)
    for e in events[4:]:
        w.append_raw(e)
    w.flush()
    real = os.ftruncate
    failing = {"on": True}

    def ftruncate(fd: int, size: int) -> None:
        if failing["on"]:
            raise OSError(errno.EIO, "Input/output error")
        real(fd, size)

    monkeypatch.setattr(writer_module.os, "ftruncate", ftruncate)
    with pytest.raises(OSError) as raised:
        w.truncate(after_1)
    assert raised.value.errno == errno.EIO
    assert w.end_position.pos == after_1  # the offsets are the cut's
    w.append_raw(events[4])
    with pytest.raises(OSError):
        w.flush()  # the cut is tried first, still fails: nothing is written after the old bytes
    failing["on"] = False
    w.append_raw(events[4])
    assert w.flush().pos == after_1 + len(events[4])
    assert (tmp_path / "relay-bin.000001").stat().st_size == after_1 + len(events[4])
    w.close()


def test_sync_takes_a_stand_in_fsync_and_a_failure_cuts_nothing(tmp_path):
    w = relay_writer(tmp_path)
    header = w.start_file(checksum=True).pos
    for e in master_events(True, 1):
        w.append_raw(e)
    end = w.flush()

    def eio(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with pytest.raises(OSError):
        w.sync(eio)
    assert w.synced_position.pos == header and w.end_position == end
    assert (tmp_path / "relay-bin.000001").stat().st_size == end.pos
    assert w.sync() == end == w.synced_position
    w.close()


def test_reset_without_a_new_file_leaves_nothing_and_start_file_begins_at_one(tmp_path):
    w = relay_writer(tmp_path)
    w.start_file(checksum=True)
    w.start_file(checksum=True)
    w.reset(new_file=False)
    assert not w.is_open and w.current_file == "" and list(tmp_path.iterdir()) == []
    assert w.start_file(checksum=False).file == "relay-bin.000001"
    w.close()


def test_purge_of_nothing_leaves_the_index_alone(tmp_path):
    w = relay_writer(tmp_path)
    w.start_file(checksum=True)
    w.start_file(checksum=True)
    before = os.stat(tmp_path / "relay-bin.index").st_ino
    assert w.purge_to("relay-bin.000001") == []
    assert os.stat(tmp_path / "relay-bin.index").st_ino == before
    assert w.purge_to("relay-bin.000002") == ["relay-bin.000001"]
    w.close()


@pytest.mark.parametrize(("first", "then"), [(True, False), (False, True)])
def test_iter_checked_follows_the_last_fd_and_scan_file_agrees(tmp_path, first, then):
    """A relay file holds our FD, then the master's; the master may change its checksum setting
    (a new master FD): every event is checked by the FD before it."""
    w = relay_writer(tmp_path)
    w.start_file(checksum=first)
    for e in master_events(first, 2) + master_events(then, 2):
        w.append_raw(e)
    end = w.flush().pos
    w.close()
    path = tmp_path / "relay-bin.000001"
    seen = [(decode_header(ev).type_code, checksum) for _, ev, checksum in iter_checked(path)]
    assert seen[0] == (EventType.FORMAT_DESCRIPTION_EVENT, first)
    assert seen[8] == (EventType.FORMAT_DESCRIPTION_EVENT, then)
    assert [c for _, c in seen[1:8]] == [first] * 7 and [c for _, c in seen[9:]] == [then] * 6
    scanned = scan_file(path)
    assert scanned.clean and scanned.last_complete_end == end and scanned.checksum is first


def test_iter_checked_stops_at_a_crc_mismatch_and_a_file_not_starting_with_an_fd(tmp_path):
    w = relay_writer(tmp_path)
    w.start_file(checksum=True)
    events = master_events(True, 2)
    ends = [w.append_raw(e) for e in events]
    w.flush()
    w.close()
    path = tmp_path / "relay-bin.000001"
    data = bytearray(path.read_bytes())
    data[ends[4] - 1] ^= 0xFF  # the CRC32 of the second transaction's BEGIN
    path.write_bytes(bytes(data))
    with pytest.raises(BinlogFileError) as raised:
        list(iter_checked(path))
    assert raised.value.offset == ends[3] and "CRC32 mismatch" in raised.value.message
    assert [off for off, _, _ in iter_checked(path, ends[3])][-1] == ends[2]  # bounded before it
    path.write_bytes(BINLOG_MAGIC + bytes(data[ends[0]:]))  # no FD first (neither ours nor the master's)
    with pytest.raises(BinlogFileError, match="first event is not a FORMAT_DESCRIPTION_EVENT"):
        list(iter_checked(path))


def test_cut_file(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    cut_file(path, 4)
    assert path.read_bytes() == b"0123"
