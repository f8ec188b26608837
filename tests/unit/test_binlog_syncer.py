"""binlog.syncer: the compiled fsync thread (binlog/_syncer.c) against its Python twin (the IO
task's LaneSyncer), and RelayLog.sync_on on either against RelayLog.sync."""

from __future__ import annotations

import asyncio
import errno
import os
import time

import pytest

import binlog.writer as writer_module
from binlog import syncer
from master.commit import GroupCommit
from semisync.interface import ReplicationInterface
from slave.io_task import LaneSyncer, relay_syncer
from slave.relay_log import RelayLog
from tests.support.relay_stream import Stream
from tests.unit.test_binlog_write_failures import TS, open_writer, txn

native = pytest.mark.skipif(not syncer.available(), reason="binlog._syncer was not built")


def _open_syncer(kind: str):
    return syncer.NativeSyncer.open() if kind == "native" else LaneSyncer(os.fsync)


KINDS = [pytest.param("native", marks=native), "lane"]


@pytest.mark.parametrize("kind", KINDS)
async def test_fsyncs_are_answered_in_order_and_errors_carry_their_errno(tmp_path, kind):
    paths = [tmp_path / f"f{i}" for i in range(5)]
    fds = [os.open(p, os.O_WRONLY | os.O_CREAT | os.O_APPEND) for p in paths]
    closed = 999_999  # no such descriptor: EBADF
    s = _open_syncer(kind)
    try:
        for fd in fds:
            os.write(fd, b"x" * 100)
        results = await asyncio.gather(*(s.fsync(fd) for fd in fds), s.fsync(closed), s.fsync(fds[0]),
                                       return_exceptions=True)
        assert results[:5] == [None] * 5 and results[6] is None
        assert isinstance(results[5], OSError) and results[5].errno == errno.EBADF
    finally:
        s.close()
        for fd in fds:
            os.close(fd)


@native
async def test_a_cancelled_wait_leaves_the_next_answers_matched(tmp_path):
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)
    s = syncer.NativeSyncer.open()
    try:
        first = s.fsync(fd)
        first.cancel()
        bad = 999_999  # no such descriptor: EBADF
        assert await s.fsync(fd) is None
        with pytest.raises(OSError) as caught:
            await s.fsync(bad)
        assert caught.value.errno == errno.EBADF
    finally:
        s.close()
        os.close(fd)


@native
async def test_a_closed_syncer_answers_nothing_more_and_its_thread_ends(tmp_path):
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT)
    before = _syncer_threads()
    s = syncer.NativeSyncer.open()
    # (its thread seen in /proc by the name the kernel shows; other tests' syncer threads may end
    # meanwhile, so the new one is told apart by its id)
    ours = await _until(lambda: _syncer_threads() - before)
    assert len(ours) == 1
    await s.fsync(fd)
    s.close()
    s.close()  # twice is once
    with pytest.raises(OSError):
        await s.fsync(fd)
    in_flight = syncer.NativeSyncer.open()
    waiting = in_flight.fsync(fd)
    in_flight.close()  # its answer, if the thread writes one, goes to a closed pipe: dropped
    with pytest.raises(OSError):
        await waiting
    await _until(lambda: not ours & _syncer_threads())
    assert not ours & _syncer_threads()
    os.close(fd)


async def _until(probe, seconds: float = 30):
    """`probe()` once it is true, polled for up to `seconds` (a loaded machine schedules a new or
    ending thread late); its last value otherwise."""
    deadline = time.monotonic() + seconds
    while not (got := probe()) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return got


def _syncer_threads() -> set[str]:
    """The ids of the process's syncer threads, by the name `_syncer.c` gives them."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                if comm.read().strip() == "semisync-fsync":
                    found.add(task)
        except OSError:  # (a thread ended meanwhile: ENOENT or ESRCH)
            pass
    return found


async def test_the_io_task_takes_the_compiled_syncer_for_the_real_fsync_only():
    def stand_in(fd: int) -> None:
        os.fsync(fd)

    lane = relay_syncer(stand_in)
    assert isinstance(lane, LaneSyncer)
    lane.close()
    real = relay_syncer(os.fsync)
    assert isinstance(real, syncer.NativeSyncer if syncer.available() else LaneSyncer)
    real.close()


def _relay_with_unsynced_tail(path) -> tuple[RelayLog, int, int]:
    relay = RelayLog(path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    stream = Stream()
    for e in stream.start() + stream.transaction(1):
        relay.append(e)
    relay.flush()
    relay.sync()
    synced = relay.size
    for e in stream.transaction(2):
        relay.append(e)
    relay.flush()
    return relay, synced, relay.size


class _Failing:
    def __init__(self) -> None:
        self.calls = 0

    def fsync(self, fd: int):
        self.calls += 1
        done = asyncio.get_running_loop().create_future()
        done.set_exception(OSError(errno.ENOSPC, "No space left on device"))
        return done

    def close(self) -> None:
        pass


@pytest.mark.parametrize("kind", KINDS)
async def test_sync_on_makes_durable_what_sync_would(tmp_path, kind):
    relay, synced, end = _relay_with_unsynced_tail(tmp_path)
    assert relay.synced == synced < end
    s = _open_syncer(kind)
    try:
        assert await relay.sync_on(s) == end == relay.synced
        assert await relay.sync_on(s) == end  # nothing left: no call
    finally:
        s.close()


async def test_a_failed_sync_on_cuts_back_as_a_failed_sync(tmp_path):
    a, synced, _ = _relay_with_unsynced_tail(tmp_path / "a")
    b, _, _ = _relay_with_unsynced_tail(tmp_path / "b")

    def fail(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError):
        a.sync(fail)
    failing = _Failing()
    with pytest.raises(OSError):
        await b.sync_on(failing)
    assert failing.calls == 1
    assert (a.damaged, a.failed_bytes, a.synced) == (b.damaged, b.failed_bytes, b.synced)
    assert a.damaged == synced


@native
async def test_fdatasync_is_answered_and_carries_its_errno(tmp_path):
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    s = syncer.NativeSyncer.open()
    try:
        os.write(fd, b"x" * 100)
        assert await s.fdatasync(fd) is None
        with pytest.raises(OSError) as caught:
            await s.fdatasync(999_999)  # no such descriptor
        assert caught.value.errno == errno.EBADF
    finally:
        s.close()
        os.close(fd)


def _binlog_files(directory) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


GROUPS = 16


@native
async def test_the_master_s_groups_are_the_same_bytes_on_the_syncer_as_on_the_binlog_thread(tmp_path, monkeypatch):
    """GroupCommit._write_group on the compiled syncer (written on the loop, fdatasync on the C
    thread) and on the binlog I/O thread: the same files, index and `last_group` after every
    group, rotations at max_binlog_size included, and each group durable when it returns."""
    monkeypatch.setattr(writer_module.time, "time", lambda: TS)  # the FD's create timestamp
    paths, synced = {}, []
    real_fdatasync = os.fdatasync

    def counted(fd):  # the lane path's fdatasync (the native one is C's)
        synced.append(fd)
        real_fdatasync(fd)

    monkeypatch.setattr(writer_module.os, "fdatasync", counted)
    for kind in ("native", "lane"):
        paths[kind] = tmp_path / kind
        paths[kind].mkdir()
        writer = open_writer(paths[kind], max_size=4096)
        gc = GroupCommit(None, writer, None, ReplicationInterface(), server_id=7, sync_binlog=lambda: 1)
        gc.native_sync = kind == "native"
        groups = []
        try:
            for i in range(GROUPS):
                for j in range(i % 3 + 1):
                    writer.append(txn(10 * i + j, pad=300 * j))
                await gc._write_group(sync=True)
                assert writer.synced_position == writer.end_position
                groups.append((writer.end_position, writer.last_group))
        finally:
            gc.close()
            writer.close()
        paths[kind + " groups"] = groups
    assert _binlog_files(paths["native"]) == _binlog_files(paths["lane"])
    assert len([n for n in _binlog_files(paths["lane"]) if n != "mysql-bin.index"]) >= 3  # it rotated
    assert paths["native groups"] == paths["lane groups"]
    assert any(g is not None for _, g in paths["lane groups"])
    assert len(synced) == GROUPS  # one fdatasync per group from Python's os on the lane path, none on the syncer's


@native
async def test_fsync_then_send_sends_only_after_a_good_fsync_and_releases_its_socket_in_order(tmp_path):
    """The slave's ack path (`NativeSyncer.fsync_then_send`): the bytes reach the socket after
    fsync(2) of the file returned 0, and never when it failed; a send that fails after a good
    fsync says so (`NotSent`); the thread's dup of the socket is closed by `release` after the
    requests before it, and later answers still match their requests."""
    import socket

    fd = os.open(tmp_path / "relay", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    ours, master = socket.socketpair()
    ours.setblocking(False)
    master.settimeout(5)
    s = syncer.NativeSyncer.open()
    try:
        sock = s.adopt(ours.fileno())
        os.write(fd, b"x" * 300)
        assert await s.fsync_then_send(fd, sock, b"ack-1") is None
        assert master.recv(100) == b"ack-1"
        with pytest.raises(OSError) as failed:
            await s.fsync_then_send(999_999, sock, b"never")  # no such file descriptor: EBADF
        assert failed.value.errno == errno.EBADF and not isinstance(failed.value, syncer.NotSent)
        assert await s.fsync_then_send(fd, sock, b"ack-2") is None
        assert master.recv(100) == b"ack-2"  # "never" was not sent before it
        with pytest.raises(ValueError):
            s.fsync_then_send(fd, sock, b"x" * (syncer.SEND_MAX + 1))
        master.close()
        with pytest.raises(syncer.NotSent):
            await s.fsync_then_send(fd, sock, b"to nobody")
        s.release(sock)
        assert await s.fsync(fd) is None  # answered after the release: in order
        with pytest.raises(OSError):
            os.fstat(sock)  # closed by the thread
    finally:
        s.close()
        os.close(fd)
        ours.close()
