"""The slave's durable files when the disk fails: ENOSPC and EIO injected into write(2) and fsync
of the relay log, master.info and the IO task, and the bytes on disk checked afterwards.

The rule (slave/relay_log.py, slave/io_task.py): a failed write leaves the file at the end of
what earlier writes handed to the OS, a failed fsync at the end of what an earlier fsync made
durable; the relay log is then cut back to its last complete transaction; nothing of the failed
batch is written later or acked; on a full disk the IO task waits and goes on by itself, on an
I/O error it stops with 1595. The same on a real full tmpfs: tests/integration/test_slave_disk_full.py.
"""

from __future__ import annotations

import asyncio
import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from binlog.reader import iter_events
from protocol.events import EventType, decode_header
from protocol.position import BinlogPosition
from semisync.interface import ReplicationInterface
from semisync.slave_plugin import SemiSyncSlavePlugin
from slave import master_info
from slave import receiver as native_receiver
from slave.io_task import STATE_DISK_FULL, IoSettings, IoTask
from slave.master_info import MasterInfo
from slave.relay_log import RelayLog
from tests.support.relay_stream import MASTER, Stream
from tests.unit.test_slave_io_task import BINLOG, FakeMaster

RELAY1 = "relay-bin.000001"


class DiskFaults:
    """Makes write(2) fail for files under `root` whose name starts with `prefix`, after handing
    `partial` bytes of the first failing call to the file (a short write, then the error)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path, prefix: str) -> None:
        self.root, self.prefix = str(root), prefix
        self.error: int | None = None
        self.partial = 0
        self.failures = 0
        real = os.write

        def write(fd: int, data) -> int:
            if self.error is not None and self._target(fd):
                if self.partial:
                    n, self.partial = real(fd, bytes(data[: self.partial])), 0
                    return n
                self.failures += 1
                raise OSError(self.error, os.strerror(self.error))
            return real(fd, data)

        monkeypatch.setattr(os, "write", write)
        # the receiver thread's write(2) is C's, out of this patch's reach: the IO task takes its
        # Python path here (the thread's failed writes: tests/unit/test_slave_receiver.py)
        monkeypatch.setattr(native_receiver, "available", lambda: False)

    def _target(self, fd: int) -> bool:
        try:
            path = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return False
        return path.startswith(self.root) and os.path.basename(path).startswith(self.prefix)

    @contextmanager
    def failing(self, error: int, partial: int = 0) -> Iterator[None]:
        self.error, self.partial = error, partial
        try:
            yield
        finally:
            self.error = None


def xids(path: Path) -> list[int]:
    """The XID events' log_pos in a relay file: one per complete transaction."""
    return [decode_header(e).log_pos for _, e in iter_events(path)
            if decode_header(e).type_code == EventType.XID_EVENT]


def new_relay(tmp_path: Path) -> tuple[RelayLog, Stream]:
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    return relay, Stream()


def append(relay: RelayLog, events: list[bytes]) -> None:
    for e in events:
        relay.append(e)


def relay_with_one_transaction(tmp_path: Path) -> tuple[RelayLog, Stream, int]:
    """A relay log holding the dump's start and transaction 1, durable; the master's position
    after it."""
    relay, stream = new_relay(tmp_path)
    append(relay, stream.start() + stream.transaction(1))
    relay.flush()
    relay.sync()
    return relay, stream, stream.pos


# -- the relay log file ---------------------------------------------------------------------------
@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EIO])
def test_a_failed_write_leaves_the_file_at_its_last_good_end_and_nothing_of_the_batch_later(tmp_path, monkeypatch, error):
    faults = DiskFaults(monkeypatch, tmp_path, "relay-bin.0")
    relay, stream, after_1 = relay_with_one_transaction(tmp_path)
    append(relay, stream.transaction(2))
    relay.flush()  # handed to the OS, not yet fsynced: still good
    after_2 = stream.pos
    good = (tmp_path / RELAY1).read_bytes()
    batch = stream.transaction(3)
    append(relay, batch)
    with faults.failing(error, partial=25), pytest.raises(OSError) as raised:
        relay.flush()  # 25 bytes reach the file, then the error
    assert raised.value.errno == error
    assert (tmp_path / RELAY1).read_bytes() == good  # the short write is gone
    assert relay.damaged == len(good) and relay.size == len(good)
    assert relay.cut_back() == BinlogPosition(MASTER, after_2)
    assert relay.damaged is None
    assert (tmp_path / RELAY1).read_bytes() == good
    assert relay.readable is not None and relay.readable.pos == len(good)
    # the next connection: the master sends transaction 3 again, it is in the relay log once
    relay.start_file(checksum=True)
    append(relay, batch)
    relay.flush()
    relay.close()
    assert (tmp_path / RELAY1).read_bytes() == good
    assert xids(tmp_path / RELAY1) == [after_1, after_2]
    assert xids(tmp_path / "relay-bin.000002") == [stream.pos]


def test_a_failed_fsync_cuts_back_to_what_the_last_good_fsync_made_durable(tmp_path):
    relay, stream, after_1 = relay_with_one_transaction(tmp_path)
    durable = (tmp_path / RELAY1).read_bytes()
    append(relay, stream.transaction(2))
    relay.flush()

    def eio(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    with pytest.raises(OSError):
        relay.sync(eio)  # the pages written since the last fsync may be lost: they go
    assert (tmp_path / RELAY1).read_bytes() == durable
    assert relay.cut_back() == BinlogPosition(MASTER, after_1)
    assert (tmp_path / RELAY1).read_bytes() == durable and xids(tmp_path / RELAY1) == [after_1]


def test_cut_back_ends_at_the_last_complete_transaction_before_the_good_end(tmp_path, monkeypatch):
    faults = DiskFaults(monkeypatch, tmp_path, "relay-bin.0")
    relay, stream = new_relay(tmp_path)
    append(relay, stream.start() + stream.transaction(1))
    relay.flush()
    complete = relay.size
    after_1 = stream.pos
    begin, insert, xid = stream.transaction(2)
    append(relay, [begin, insert])
    relay.flush()  # half a transaction written (one batch may end anywhere)
    append(relay, [xid])
    with faults.failing(errno.ENOSPC), pytest.raises(OSError):
        relay.flush()
    assert relay.cut_back() == BinlogPosition(MASTER, after_1)
    assert (tmp_path / RELAY1).stat().st_size == complete


def test_a_relay_file_that_cannot_be_started_leaves_nothing_behind(tmp_path, monkeypatch):
    faults = DiskFaults(monkeypatch, tmp_path, "relay-bin")
    relay, stream = new_relay(tmp_path)
    append(relay, stream.start() + stream.transaction(1))
    relay.flush()
    with faults.failing(errno.ENOSPC), pytest.raises(OSError):
        relay.start_file(checksum=True)  # the new file's header cannot be written
    assert relay.files() == [RELAY1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["relay-bin.000001", "relay-bin.index"]
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # now the new index cannot be made durable
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".index.tmp"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        relay.start_file(checksum=True)
    assert relay.files() == [RELAY1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["relay-bin.000001", "relay-bin.index"]


def test_truncate_tail_that_cannot_write_leaves_the_relay_log_to_cut_back(tmp_path, monkeypatch):
    """What `truncate_tail` did on a full disk (an unhandled OSError 28): it must leave the
    relay log damaged, not half-written, for `cut_back`."""
    faults = DiskFaults(monkeypatch, tmp_path, "relay-bin.0")
    relay, stream, after_1 = relay_with_one_transaction(tmp_path)
    good = (tmp_path / RELAY1).read_bytes()
    append(relay, stream.transaction(2))  # received, never flushed (the connection broke)
    with faults.failing(errno.ENOSPC), pytest.raises(OSError):
        relay.truncate_tail(relay.size)
    assert relay.damaged == len(good)
    assert relay.cut_back() == BinlogPosition(MASTER, after_1)
    assert (tmp_path / RELAY1).read_bytes() == good


# -- master.info ----------------------------------------------------------------------------------
@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EIO])
def test_master_info_that_cannot_be_written_keeps_the_old_version(tmp_path, monkeypatch, error):
    old = MasterInfo(host="db1", port=3306, log_file="master-bin.000007", log_pos=1234)
    master_info.save(tmp_path, old)
    before = (tmp_path / master_info.FILE_NAME).read_bytes()
    faults = DiskFaults(monkeypatch, tmp_path, "master.")
    with faults.failing(error, partial=7), pytest.raises(OSError):
        master_info.save(tmp_path, old.with_changes(host="db2", log_pos=99))
    assert (tmp_path / master_info.FILE_NAME).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [master_info.FILE_NAME]
    assert master_info.load(tmp_path) == old


# -- the IO task ----------------------------------------------------------------------------------
async def wait_until(predicate, timeout: float = 15.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not reached")


async def start_io(tmp_path: Path, fsync=os.fsync) -> tuple[IoTask, asyncio.Task, FakeMaster, list]:
    journal: list = []
    master = FakeMaster(journal)
    port = await master.start()
    interface = ReplicationInterface()
    SemiSyncSlavePlugin(interface, settings={"rpl_semi_sync_slave_enabled": True}).install()
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    settings = IoSettings("127.0.0.1", port, "repl", "pw", 2, heartbeat_period=0, connect_retry=0.2,
                          net_timeout=10, sync_relay_log=1)
    task = IoTask(settings, relay, interface.relay_io, BinlogPosition("", 4), fsync=fsync)
    runner = asyncio.create_task(task.run())
    await asyncio.wait_for(master.dumping.wait(), 10)
    return task, runner, master, journal


async def test_on_a_full_disk_the_io_task_waits_acks_nothing_unwritten_and_resumes_by_itself(tmp_path, monkeypatch):
    faults = DiskFaults(monkeypatch, tmp_path, "relay-bin.0")
    task, runner, master, journal = await start_io(tmp_path)
    try:
        master.send(master.transaction(1), flagged=(2,))
        await wait_until(lambda: len(journal) == 1)
        after_1 = BinlogPosition(BINLOG, master.pos)
        assert journal == [("ack", after_1)]
        good = (tmp_path / RELAY1).read_bytes()
        second = master.transaction(2)
        with faults.failing(errno.ENOSPC, partial=30):
            master.send(second, flagged=(2,))
            await wait_until(lambda: task.state == STATE_DISK_FULL)
            assert task.last_errno == 1595 and "Disk is full writing" in task.last_error
            assert "Waiting for someone to free space" in task.last_error
            assert (tmp_path / RELAY1).read_bytes() == good  # the short write was cut off
            await asyncio.sleep(1.5)  # still full: it keeps waiting, nothing acked
            assert journal == [("ack", after_1)] and not runner.done()
        # space returns: it reconnects by itself, from right after transaction 1
        await wait_until(lambda: len(master.dumps) == 2)
        assert master.dumps[1] == after_1
        await wait_until(lambda: task.running == "Yes")
        master.pos = after_1.pos
        assert master.transaction(2) == second  # the master sends the same bytes again
        master.send(second, flagged=(2,))
        await wait_until(lambda: len(journal) == 2)
        assert journal[1] == ("ack", BinlogPosition(BINLOG, master.pos))
        assert task.last_errno == 0
        files = sorted(tmp_path.glob("relay-bin.0*"))
        assert [len(xids(f)) for f in files] == [1, 1]  # transaction 2 once, in the new file
        assert files[0].read_bytes() == good
    finally:
        task.stop()
        await asyncio.wait_for(runner, 10)  # ends normally: no exception escaped the task
        master.server.close()


async def test_an_fsync_error_stops_the_io_task_with_1595_and_nothing_acked(tmp_path):
    fail = {"on": False}

    def fsync(fd: int) -> None:
        if fail["on"]:
            raise OSError(errno.EIO, "Input/output error")
        os.fsync(fd)

    task, runner, master, journal = await start_io(tmp_path, fsync)
    try:
        master.send(master.transaction(1), flagged=(2,))
        await wait_until(lambda: len(journal) == 1)
        after_1 = BinlogPosition(BINLOG, master.pos)
        durable = (tmp_path / RELAY1).read_bytes()
        fail["on"] = True
        master.send(master.transaction(2), flagged=(2,))
        await asyncio.wait_for(runner, 10)  # the task stops, as mysqld's IO thread on an I/O error
        assert task.last_errno == 1595 and "Input/output error" in task.last_error
        assert journal == [("ack", after_1)]
        assert (tmp_path / RELAY1).read_bytes() == durable
        assert task.resume == after_1  # START SLAVE asks for transaction 2 again
        assert task.relay.damaged is None
    finally:
        task.stop()
        master.server.close()


def test_change_master_that_cannot_write_master_info_fails_with_1380_and_changes_nothing(tmp_path, monkeypatch):
    from protocol.errors import SQLError
    from slave.replication import Replication

    rep = Replication(
        datadir=tmp_path, server_id=2, relay_basename="relay-bin", sync_relay_log=1, net_timeout=60,
        defaults=MasterInfo(), engine=SimpleNamespace(meta=dict),  # no stored applier position
        delegate=ReplicationInterface().relay_io,
        table_columns=lambda db, table: None, make_context=lambda **kw: None, apply_user_statement=None,
    )
    rep.change_master({"host": "db1", "port": 3306, "user": "repl"})
    before = (tmp_path / master_info.FILE_NAME).read_bytes()
    faults = DiskFaults(monkeypatch, tmp_path, "master.")
    with faults.failing(errno.ENOSPC), pytest.raises(SQLError) as raised:
        rep.change_master({"host": "db2", "log_file": "master-bin.000002", "log_pos": 4})
    assert raised.value.code == 1380 and "Failed to flush master info file" in raised.value.message
    assert rep.info.host == "db1" and (tmp_path / master_info.FILE_NAME).read_bytes() == before
    rep.change_master({"host": "db2"})  # once the disk takes it
    assert master_info.load(tmp_path).host == "db2"
