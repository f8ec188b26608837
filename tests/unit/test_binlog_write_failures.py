"""BinlogWriter under failing writes and fsyncs (ENOSPC, EIO): every failure leaves the file
exactly at its last good end, the failed bytes are never written later, rotation and the index
stay consistent. Faults are injected into `os.write` / `os.fsync` / `os.open` as the writer
module sees them; the file bytes are checked after each."""

from __future__ import annotations

import errno
import os

import pytest

import binlog.index as index_module
import binlog.writer as writer_module
from binlog import BinlogWriter, iter_events, read_index, scan_file
from protocol.events import EventType, Query, Rotate, Xid, decode_event
from protocol.position import BinlogPosition

TS = 1_700_000_000
ERRNOS = [errno.ENOSPC, errno.EIO]


def txn(i: int, pad: int = 0) -> list[tuple[int, bytes, int, int]]:
    return [
        (EventType.QUERY_EVENT, Query(thread_id=1, db="test", query="BEGIN").encode(), TS, 0),
        (EventType.QUERY_EVENT, Query(thread_id=1, db="test", query=f"INSERT INTO t VALUES ({i})" + " " * pad).encode(), TS, 0),
        (EventType.XID_EVENT, Xid(i).encode(), TS, 0),
    ]


def open_writer(tmp_path, max_size=1 << 20) -> BinlogWriter:
    w = BinlogWriter(tmp_path, "mysql-bin", server_id=7, checksum=True, max_size=max_size,
                     server_version="10.11.19-semisync-log")
    w.open()
    return w


def one_group_written(tmp_path):
    """A writer whose file holds one transaction (XID 1): (writer, path, its end, the bytes)."""
    w = open_writer(tmp_path)
    path = tmp_path / "mysql-bin.000001"
    w.append(txn(1))
    good = w.write_group(sync=True)
    return w, path, good, path.read_bytes()


def xids(path) -> list[int]:
    out = []
    for _, ev in iter_events(path):
        if ev[4] == EventType.XID_EVENT:
            body = decode_event(ev, checksum=True).body
            assert isinstance(body, Xid)
            out.append(body.xid)
    return out


class Faults:
    """Makes the writer module's `os.write` write `partial` bytes then fail, or its `os.fsync`
    (and `os.fdatasync`) fail, the next `times` calls."""

    def __init__(self, monkeypatch, code: int) -> None:
        self.code = code
        self.write_failures = 0
        self.fsync_failures = 0
        self.truncate_failures = 0
        self.partial = 0
        real_write, real_fsync, real_truncate = os.write, os.fsync, os.ftruncate

        def write(fd, data):
            if self.write_failures:
                self.write_failures -= 1
                if self.partial:
                    n = real_write(fd, bytes(data[: self.partial]))
                    self.partial = 0
                    return n  # a short write; the error comes with the next call
                raise OSError(self.code, os.strerror(self.code))
            return real_write(fd, data)

        def fsync(fd):
            if self.fsync_failures:
                self.fsync_failures -= 1
                raise OSError(self.code, os.strerror(self.code))
            return real_fsync(fd)

        def ftruncate(fd, size):
            if self.truncate_failures:
                self.truncate_failures -= 1
                raise OSError(self.code, os.strerror(self.code))
            return real_truncate(fd, size)

        monkeypatch.setattr(writer_module.os, "write", write)
        monkeypatch.setattr(writer_module.os, "fsync", fsync)
        monkeypatch.setattr(writer_module.os, "fdatasync", fsync)  # a group's sync (write_group)
        monkeypatch.setattr(writer_module.os, "ftruncate", ftruncate)


@pytest.mark.parametrize("code", ERRNOS)
@pytest.mark.parametrize("partial", [0, 30])
def test_a_failed_write_leaves_the_file_at_its_last_good_end_and_drops_the_group(tmp_path, monkeypatch, code, partial):
    w, path, good, before = one_group_written(tmp_path)
    faults = Faults(monkeypatch, code)
    faults.write_failures, faults.partial = 2 if partial else 1, partial
    w.append(txn(2))
    with pytest.raises(OSError) as raised:
        w.write_group(sync=True)
    assert raised.value.errno == code
    assert path.read_bytes() == before  # not one byte of the failed group
    assert w.end_position == good and w.pending_position == good
    # the next group lands at the old end with the right log_pos; the failed one never appears
    end = w.append(txn(3))
    assert w.write_group(sync=True) == end
    assert xids(path) == [1, 3]
    assert scan_file(path).clean and scan_file(path).last_complete_end == end.pos == path.stat().st_size
    w.close()
    assert xids(path) == [1, 3]


@pytest.mark.parametrize("code", ERRNOS)
def test_a_failed_fsync_cuts_the_group_back_and_a_failed_sync_alone_cuts_nothing(tmp_path, monkeypatch, code):
    w, path, good, before = one_group_written(tmp_path)
    faults = Faults(monkeypatch, code)
    faults.fsync_failures = 1
    w.append(txn(2))
    with pytest.raises(OSError):
        w.write_group(sync=True)
    assert path.read_bytes() == before and w.end_position == good and w.synced_position == good
    # sync_binlog=0: a group written without its fsync stays (it may be published); a later
    # sync() failure only raises
    w.append(txn(3))
    unsynced = w.write_group(sync=False)
    faults.fsync_failures = 1
    with pytest.raises(OSError):
        w.sync()
    assert w.end_position == unsynced and xids(path) == [1, 3]
    assert w.sync() == unsynced
    w.close()


@pytest.mark.parametrize("code", ERRNOS)
def test_a_failed_cut_back_blocks_writes_until_it_is_done(tmp_path, monkeypatch, code):
    w, path, good, _ = one_group_written(tmp_path)
    faults = Faults(monkeypatch, code)
    faults.write_failures, faults.partial = 2, 40  # 40 bytes reach the file, then the error
    faults.truncate_failures = 2  # the cut-back, and its first retry, fail too
    w.append(txn(2))
    with pytest.raises(OSError):
        w.write_group(sync=True)
    assert path.stat().st_size == good.pos + 40  # could not be cut yet
    w.append(txn(3))
    with pytest.raises(OSError):  # the retry of the cut-back fails: nothing is written
        w.write_group(sync=True)
    assert path.stat().st_size == good.pos + 40
    end = w.append(txn(4))
    assert w.write_group(sync=True) == end  # the cut-back worked this time, then the group
    assert xids(path) == [1, 4] and scan_file(path).clean
    w.close()


def test_flush_is_atomic_too(tmp_path, monkeypatch):
    w = open_writer(tmp_path)
    path = tmp_path / "mysql-bin.000001"
    before = path.read_bytes()
    faults = Faults(monkeypatch, errno.ENOSPC)
    faults.write_failures, faults.partial = 2, 10
    w.append(txn(1))
    with pytest.raises(OSError):
        w.flush()
    assert path.read_bytes() == before
    w.append(txn(2))
    w.flush()
    assert xids(path) == [2]
    w.close()


@pytest.mark.parametrize("step", ["new-file-write", "new-file-fsync", "rotate-event", "rotate-fsync", "index"])
def test_a_failed_rotation_leaves_the_old_file_active_and_the_index_consistent(tmp_path, monkeypatch, step):
    w = open_writer(tmp_path, max_size=4096)
    old = tmp_path / "mysql-bin.000001"
    w.append(txn(1))
    w.write_group(sync=True)
    real_write, real_fsync, real_open = os.write, os.fsync, os.open
    state = {"armed": True, "new_fd": None, "fsyncs": 0}

    def fail() -> None:
        state["armed"] = False
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def os_open(path, flags, mode=0o777, **kw):
        fd = real_open(path, flags, mode, **kw)
        if str(path).endswith(".000002"):
            state["new_fd"] = fd
        return fd

    def write(fd, data):
        if state["armed"]:
            if step == "new-file-write" and fd == state["new_fd"]:
                fail()
            if step == "rotate-event" and fd != state["new_fd"] and bytes(data[4:5]) == bytes([EventType.ROTATE_EVENT]):
                fail()
        return real_write(fd, data)

    def fsync(fd):
        if state["armed"]:
            if step == "new-file-fsync" and fd == state["new_fd"]:
                fail()
            if step == "rotate-fsync" and state["new_fd"] is not None and fd != state["new_fd"]:
                fail()
        return real_fsync(fd)

    def write_index(directory, basename, names, *prefix):
        if state["armed"] and step == "index":
            fail()
        return real_write_index(directory, basename, names, *prefix)

    real_write_index = index_module.write_index
    monkeypatch.setattr(writer_module.os, "open", os_open)
    monkeypatch.setattr(writer_module.os, "write", write)
    monkeypatch.setattr(writer_module.os, "fsync", fsync)
    monkeypatch.setattr(writer_module, "write_index", write_index)
    w.append(txn(2, pad=4200))  # past max_size: the group is written, then the rotation fails
    end = w.write_group(sync=True)
    assert not state["armed"], "the fault was not hit"
    assert end.file == "mysql-bin.000001" == w.current_file  # the group is durable, no rotation
    assert read_index(tmp_path, "mysql-bin") == ["mysql-bin.000001"]
    assert not (tmp_path / "mysql-bin.000002").exists()
    assert scan_file(old).clean and xids(old) == [1, 2]
    assert all(ev[4] != EventType.ROTATE_EVENT for _, ev in iter_events(old))
    # the next group rotates (the fault is gone): ROTATE, new file with its header, index
    w.append(txn(3))
    assert w.write_group(sync=True) == BinlogPosition("mysql-bin.000002", w.end_position.pos)
    assert read_index(tmp_path, "mysql-bin") == ["mysql-bin.000001", "mysql-bin.000002"]
    last = decode_event(list(iter_events(old))[-1][1], checksum=True)
    assert isinstance(last.body, Rotate) and last.body.next_file == "mysql-bin.000002"
    assert xids(old) == [1, 2, 3] and scan_file(old).clean
    assert scan_file(tmp_path / "mysql-bin.000002").clean
    w.close()


def test_a_failed_index_rewrite_leaves_the_old_index_and_no_temporary_file(tmp_path, monkeypatch):
    index_module.write_index(tmp_path, "mysql-bin", ["mysql-bin.000001"])
    real_open = open

    def failing_open(path, mode="r", *a, **kw):
        f = real_open(path, mode, *a, **kw)
        if str(path).endswith(".index.tmp"):
            f.close()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return f

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(OSError):
        index_module.write_index(tmp_path, "mysql-bin", ["mysql-bin.000001", "mysql-bin.000002"])
    monkeypatch.undo()
    assert read_index(tmp_path, "mysql-bin") == ["mysql-bin.000001"]
    assert not (tmp_path / "mysql-bin.index.tmp").exists()
