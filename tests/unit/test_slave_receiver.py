"""The receiver thread (slave/_receiver.c, slave/receiver.py): a dump read, framed, written,
fsynced and acked without the GIL, held equal to the IO task's Python path (the reference):
the same relay log bytes, the same acks, the same positions; no ack after a failed write or
fsync; the constants of protocol/_dumpscan.h against protocol's."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from binlog.reader import iter_events
from protocol import events as ev
from protocol import packets, semisync_wire
from protocol.events import decode_header
from protocol.position import BinlogPosition
from slave import receiver as native
from slave.relay_log import GroupTracker, RelayLog
from tests.unit.test_slave_io_task import FakeMaster, mixed_dump, run_io, settle

built = pytest.mark.skipif(not native.available(), reason="slave._receiver was not built")

NEXT_BINLOG = "master-bin.000002"


def test_the_module_is_built_where_a_c_compiler_is():
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler: the install has no slave._receiver, the IO task reads on its loop")
    assert native.available(), "pip install -e . left slave/_receiver.c unbuilt (zlib1g-dev missing?)"


def _relay_files(where: Path) -> dict[str, bytes]:
    """Each relay file after its header (the magic and our FORMAT_DESCRIPTION, stamped with the time)."""
    return {p.name: p.read_bytes()[4 + decode_header(p.read_bytes(), 4).event_size:]
            for p in sorted(where.glob("relay-bin.0*"))}


async def _through(where: Path, receiver: bool, reads, max_relay_log_size: int = 1 << 30):
    keep: dict = {}
    where.mkdir()

    async def replicate(master: FakeMaster, journal: list) -> None:
        for events, flagged in reads(master):
            before = len(journal)
            master.send(events, flagged)
            if flagged:  # acknowledged before the next read is sent (one read each, however loaded)
                await settle(journal, before + 1)
            await asyncio.sleep(0.15)
        await settle(journal, 1)

    journal, master = await run_io(where, 1, replicate, keep, receiver=receiver,
                                   max_relay_log_size=max_relay_log_size)
    task = keep["task"]
    acks = [entry for entry in journal if entry[0] == "ack"]
    return (acks, _relay_files(where), task.read_position, task.resume, str(task.io_pos), task.boundary_offset,
            task.acks_sent), task, master


@built
async def test_the_receiver_writes_the_same_relay_log_and_sends_the_same_acks(tmp_path):
    """The mixed dump (GTID and BEGIN/COMMIT transactions, a DDL, a transaction split across
    reads, a heartbeat, the master's ROTATE with the FORMAT_DESCRIPTION after it) through the
    receiver thread and through the Python path: same files byte for byte, same acks in the same
    order, same positions; the thread took the ordinary reads itself."""
    taken = []
    real, real_take = native.NativeReceiver._woken, native.NativeReceiver.take_batches

    def counting(self):
        before = len(self._records)
        real(self)
        taken.extend(r.kind for r in list(self._records)[before:])

    def counting_batches(self, handler):  # the batches the reader callback hands over
        def counted(record):
            taken.append(record.kind)
            handler(record)
        real_take(self, counted)

    native.NativeReceiver._woken = counting
    native.NativeReceiver.take_batches = counting_batches
    try:
        fast, _, master = await _through(tmp_path / "receiver", True, lambda m: mixed_dump(m, NEXT_BINLOG))
    finally:
        native.NativeReceiver._woken = real
        native.NativeReceiver.take_batches = real_take
    python, _, _ = await _through(tmp_path / "python", False, lambda m: mixed_dump(m, NEXT_BINLOG))
    assert sorted(fast[1]) == ["relay-bin.000001", "relay-bin.000002"] and all(fast[1].values())
    assert len(fast[0]) >= 5 and fast[0][-1] == ("ack", BinlogPosition(NEXT_BINLOG, master.pos))
    assert fast == python
    # the dump's start and the ROTATE went through Python, the transactions through the thread
    assert taken.count(native.BATCH) >= 3 and native.HANDOFF in taken and native.RAW in taken


@built
async def test_the_receiver_pauses_where_the_relay_log_rotates(tmp_path):
    """A small max_relay_log_size: the thread pauses after the batch that fills a file, the IO
    task rotates at the transaction's end and lets it go on in the new file: the same files as
    the Python path."""
    def many(master: FakeMaster):
        return [([e for n in range(4) for e in master.transaction(4 * k + n)], (2, 5, 11)) for k in range(20)]

    fast, _, _ = await _through(tmp_path / "receiver", True, many, max_relay_log_size=4096)
    python, _, _ = await _through(tmp_path / "python", False, many, max_relay_log_size=4096)
    assert len(fast[1]) >= 3
    assert fast == python


@built
async def test_the_receiver_s_batches_are_counted_without_a_turn_of_the_io_task(tmp_path):
    """Twenty reads of ordinary transactions: each one's batch is counted (its events queued,
    the relay log readable up to it, its ack the observers' decision) in the receiver's reader
    callback; the IO task waiting in `next()` is woken for none of them, only for what the
    thread leaves to Python (the dump's start, the stop)."""
    returned = []
    real = native.NativeReceiver.next

    async def counting(self):
        out = await real(self)
        returned.extend(r.kind for r in out)
        return out

    def reads(master: FakeMaster):
        return [(master.transaction(k), (2,)) for k in range(20)]

    native.NativeReceiver.next = counting
    try:
        fast, _, master = await _through(tmp_path / "receiver", True, reads)
    finally:
        native.NativeReceiver.next = real
    python, _, _ = await _through(tmp_path / "python", False, reads)
    assert len(fast[0]) == 20 and fast[0][-1] == ("ack", BinlogPosition("master-bin.000001", master.pos))
    assert fast == python
    assert native.BATCH not in returned, returned


@built
async def test_a_receiver_batch_is_counted_in_a_few_python_frames(tmp_path):
    """Each read of one transaction, counted in the receiver's reader callback: its record made
    by the C side, its events split there, the stream's state not restored, the plugin's
    decision and the relay log's readable end in one frame each; at most 16 Python frames per
    batch (the events queued, the relay log's tail, the observers' ack), and the same relay
    log, acks and positions as the Python path."""
    per_batch: list[list[str]] = []
    real = native.NativeReceiver._woken

    def profiled(self):
        entered: list[str] = []

        def profile(frame, event, arg):
            if event == "call":
                entered.append(frame.f_code.co_name)

        sys.setprofile(profile)
        try:
            real(self)
        finally:
            sys.setprofile(None)
        if "_received" in entered:
            per_batch.append(entered)

    def reads(master: FakeMaster):
        return [(master.transaction(k), (2,)) for k in range(6)]

    native.NativeReceiver._woken = profiled
    try:
        fast, _, _ = await _through(tmp_path / "receiver", True, reads)
    finally:
        native.NativeReceiver._woken = real
    python, _, _ = await _through(tmp_path / "python", False, reads)
    assert fast == python
    assert len(per_batch) >= 5
    for entered in per_batch:
        assert entered.count("_received") == 1 and len(entered) <= 16, " ".join(entered)


@built
async def test_the_receiver_s_events_are_not_checked_twice(tmp_path):
    """The runs of a receiver's batch are taken as `verified` (the thread checked their CRC32
    footers, protocol/_dumpscan.h); the Python path's runs check them."""
    verified: dict[str, list[bool]] = {"receiver": [], "python": []}
    real = GroupTracker.take_run

    def reads(master: FakeMaster):
        return [(master.transaction(k), (2,)) for k in range(4)]

    for path in verified:
        def spy(self, events, start, verified_now=False, _seen=verified[path]):
            _seen.append(verified_now)
            return real(self, events, start, verified_now)

        GroupTracker.take_run = spy
        try:
            await _through(tmp_path / path, path == "receiver", reads)
        finally:
            GroupTracker.take_run = real
    assert verified["receiver"].count(True) >= 3
    assert verified["python"] and not any(verified["python"])


async def _give_the_thread(master: FakeMaster, fd: int) -> None:
    """Pause the running thread with a heartbeat (taken by the Python path) and have the IO task
    give it `fd` as the relay file when it lets it go on."""
    real = RelayLog.descriptor
    RelayLog.descriptor = property(lambda self: fd)
    try:
        master.send([ev.encode_body_event(ev.Heartbeat("master-bin.000001"), timestamp=0, server_id=1,
                                          log_pos=master.pos, checksum=True)], flagged=())
        await asyncio.sleep(0.3)
    finally:
        RelayLog.descriptor = real


@built
async def test_a_failed_fsync_of_the_receiver_sends_no_ack(tmp_path):
    """The thread's fsync fails (the relay file swapped for a pipe: write(2) works, fsync(2)
    is EINVAL): nothing is acked for that batch, and the task stops with 1595 as on any I/O
    error of the relay log; the first transaction, acked before, stays."""
    outcome: dict = {}
    pipes: list[int] = []

    async def replicate(master: FakeMaster, journal: list) -> None:
        master.send(master.transaction(1), flagged=(2,))
        await settle(journal, 1)
        outcome["first"] = list(journal)
        task = outcome["task"]
        link = task._link
        r, w = os.pipe()
        pipes.extend((r, w))
        await _give_the_thread(master, w)
        assert link.receiver is not None
        master.send(master.transaction(2), flagged=(2,))
        await asyncio.sleep(0.5)

    journal, _ = await run_io(tmp_path, 1, replicate, keep=outcome, receiver=True)
    for fd in pipes:
        os.close(fd)
    assert outcome["first"] == [("ack", BinlogPosition("master-bin.000001", outcome["first"][0][1].pos))]
    assert [kind for kind, _ in journal].count("ack") == 1  # the first transaction's only
    assert outcome["task"].last_errno == 1595
    assert outcome["task"].acks_sent == 1


@built
async def test_a_failed_write_of_the_receiver_sends_no_ack(tmp_path):
    """The thread's write fails (a descriptor open for reading only: EBADF): no ack, 1595, and
    the relay log keeps the first transaction whole."""
    outcome: dict = {}
    opened: list[int] = []

    async def replicate(master: FakeMaster, journal: list) -> None:
        master.send(master.transaction(1), flagged=(2,))
        await settle(journal, 1)
        task = outcome["task"]
        ro = os.open(task.relay.path(task.relay.current), os.O_RDONLY)
        opened.append(ro)
        await _give_the_thread(master, ro)
        master.send(master.transaction(2), flagged=(2,))
        await asyncio.sleep(0.5)

    journal, master = await run_io(tmp_path, 1, replicate, keep=outcome, receiver=True)
    for fd in opened:
        os.close(fd)
    assert [kind for kind, _ in journal].count("ack") == 1
    assert outcome["task"].last_errno == 1595
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    types = [e[4] for name in relay.files() for _, e in iter_events(tmp_path / name)]
    assert types.count(ev.EventType.XID_EVENT) == 1  # the first transaction, whole; nothing of the second


def test_the_scanner_s_constants_are_protocol_s():
    """protocol/_dumpscan.h's layout constants, checked against the Python declarations."""
    text = (Path(__file__).parents[2] / "protocol" / "_dumpscan.h").read_text()
    found = {name: int(value, 0) for name, value in re.findall(r"(DS_\w+) = (0x[0-9A-Fa-f]+|\d+)", text)}
    assert found["DS_PACKET_HEADER"] == packets.HEADER_SIZE
    assert found["DS_PACKET_MAX"] == packets.MAX_PAYLOAD
    assert found["DS_SEMISYNC_MAGIC"] == semisync_wire.SEMI_SYNC_MAGIC
    assert found["DS_SEMISYNC_HEADER"] == len(semisync_wire.semisync_header(True))
    assert semisync_wire.semisync_header(True)[1] == 1 and semisync_wire.semisync_header(False)[1] == 0
    assert found["DS_ARTIFICIAL_F"] == ev.LOG_EVENT_ARTIFICIAL_F
    assert found["DS_T_ROTATE"] == ev.TYPE_ROTATE and found["DS_T_FD"] == ev.TYPE_FD
    assert found["DS_T_HEARTBEAT"] == ev.TYPE_HEARTBEAT and found["DS_T_HEARTBEAT_V2"] == ev.TYPE_HEARTBEAT_V2
    header = ev.encode_body_event(ev.Xid(7), timestamp=1, server_id=3, log_pos=1234, flags=0x20, checksum=False)
    h = decode_header(header)
    assert found["DS_EVENT_HEADER"] == ev.HEADER_LEN
    assert header[found["DS_TYPE_AT"]] == h.type_code
    assert int.from_bytes(header[found["DS_EVENT_SIZE_AT"]:found["DS_EVENT_SIZE_AT"] + 4], "little") == h.event_size
    assert int.from_bytes(header[found["DS_LOG_POS_AT"]:found["DS_LOG_POS_AT"] + 4], "little") == h.log_pos
    assert int.from_bytes(header[found["DS_FLAGS_AT"]:found["DS_FLAGS_AT"] + 2], "little") == 0x20
    wire, at = semisync_wire.encode_ack(BinlogPosition("f.000001", 0x01020304)), semisync_wire.ACK_POSITION_AT
    assert int.from_bytes(wire[at:at + 8], "little") == 0x01020304


async def _replicated_under_strace(tmp_path, trace_args: tuple[str, ...], flagged) -> tuple[list[str], int]:
    """Eight batches of two transactions through the receiver (batch n's flagged events
    `flagged(n)`), this process traced by strace with `trace_args` from before the first to after
    the last -> (the trace's lines, the acks the master got)."""
    trace = tmp_path / "trace"
    seen: dict = {}

    async def replicate(master: FakeMaster, journal: list) -> None:
        tracer = await asyncio.create_subprocess_exec(
            "strace", "-f", "-qq", *trace_args, "-p", str(os.getpid()), "-e", "signal=none",
            "-o", str(trace), stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        try:
            await asyncio.sleep(1.0)  # attached to every thread
            for n in range(1, 9):
                master.send([*master.transaction(2 * n), *master.transaction(2 * n + 1)], flagged=flagged(n))
                await settle(journal, n)
            seen["acks"] = len([e for e in journal if e[0] == "ack"])
        finally:
            tracer.terminate()
            await tracer.wait()

    await run_io(tmp_path / "data", 1, replicate, receiver=True)
    return trace.read_text().splitlines(), seen["acks"]


@built
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
async def test_the_receiver_acks_only_after_its_fsync_returned_0(tmp_path):
    """The order of the thread's system calls, as strace sees them in this process: every ack
    (the thread's only send(2)) follows a write(2) of the batch to the relay file and an fsync(2)
    of it that returned 0, with no write to the relay file between that fsync and the ack."""
    lines, acked = await _replicated_under_strace(
        tmp_path, ("-e", "trace=write,fsync,sendto"), lambda n: (2, 5) if n % 2 else (5,))
    calls: dict[str, list[tuple[str, int, int]]] = {}
    for line in lines:
        m = re.match(r"(\d+)\s+(write|fsync|sendto)\((\d+)[,)].*=\s+(-?\d+)", line)
        if m:  # an ack is the thread's send(2) with MSG_NOSIGNAL (the loop's sends have no flag)
            name = "ack" if m[2] == "sendto" and "MSG_NOSIGNAL" in line else m[2]
            calls.setdefault(m[1], []).append((name, int(m[3]), int(m[4])))
    syncing = [tid for tid, seq in calls.items() if any(name == "fsync" for name, _, _ in seq)]
    assert len(syncing) == 1, calls.keys()  # the receiver thread: every fsync of the batches
    thread = calls[syncing[0]]
    assert not [tid for tid, seq in calls.items() if tid != syncing[0] and any(n == "ack" for n, _, _ in seq)]
    synced = {fd for name, fd, rc in thread if name == "fsync"}
    assert len(synced) == 1  # the thread's relay file
    relay_fd = synced.pop()
    acks, durable = 0, False
    for name, fd, rc in thread:
        if name == "write" and fd == relay_fd:
            assert rc > 0
            durable = False
        elif name == "fsync":
            durable = rc == 0
        elif name == "ack":
            assert durable, "an ack left before the fsync of what it names returned 0"
            acks += 1
    assert acks == acked >= 8


@built
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
async def test_a_wakeup_empties_the_receiver_s_pipe_in_one_read(tmp_path):
    """The loop's reader callback takes the thread's records after one read(2) of the wake pipe
    that empties it (a short read): no second read to be told EAGAIN, once per batch."""
    lines, acked = await _replicated_under_strace(tmp_path, ("-y", "-e", "trace=read"), lambda n: (5,))
    assert acked >= 8
    pipe_reads = [line for line in lines
                  if re.match(rf"{os.getpid()}\s+read\(\d+<pipe:", line)]
    assert len(pipe_reads) >= 8  # the loop thread's reads of the wake pipe: at least one per batch
    assert not [line for line in pipe_reads if "EAGAIN" in line], pipe_reads
