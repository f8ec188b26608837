"""The receiver thread (slave/_receiver.c, slave/receiver.py): a dump read, framed, written,
fsynced and acked without the GIL, held equal to the IO task's Python path (the reference):
the same relay log bytes, the same acks, the same positions; no ack after a failed write or
fsync; the constants of protocol/_dumpscan.h against protocol's."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from binlog.reader import iter_events
from protocol import events as ev
from protocol import packets, semisync_wire
from protocol.events import decode_header
from protocol.position import BinlogPosition
from slave import receiver as native
from slave.relay_log import RelayLog
from tests.unit.test_slave_io_task import FakeMaster, mixed_dump, run_io, settle

pytestmark = pytest.mark.skipif(not native.available(), reason="slave._receiver was not built")

NEXT_BINLOG = "master-bin.000002"


def _relay_files(where: Path) -> dict[str, bytes]:
    """Each relay file after its header (the magic and our FORMAT_DESCRIPTION, stamped with the time)."""
    return {p.name: p.read_bytes()[4 + decode_header(p.read_bytes(), 4).event_size:]
            for p in sorted(where.glob("relay-bin.0*"))}


async def _through(where: Path, receiver: bool, reads, max_relay_log_size: int = 1 << 30):
    keep: dict = {}
    where.mkdir()

    async def replicate(master: FakeMaster, journal: list) -> None:
        for events, flagged in reads(master):
            master.send(events, flagged)
            await asyncio.sleep(0.15)
        await settle(journal, 1)

    journal, master = await run_io(where, 1, replicate, keep, receiver=receiver,
                                   max_relay_log_size=max_relay_log_size)
    task = keep["task"]
    acks = [entry for entry in journal if entry[0] == "ack"]
    return (acks, _relay_files(where), task.read_position, task.resume, str(task.io_pos), task.boundary_offset,
            task.acks_sent), task, master


async def test_the_receiver_writes_the_same_relay_log_and_sends_the_same_acks(tmp_path):
    """The mixed dump (GTID and BEGIN/COMMIT transactions, a DDL, a transaction split across
    reads, a heartbeat, the master's ROTATE with the FORMAT_DESCRIPTION after it) through the
    receiver thread and through the Python path: same files byte for byte, same acks in the same
    order, same positions; the thread took the ordinary reads itself."""
    taken = []
    real = native.NativeReceiver._woken

    def counting(self):
        before = len(self._records)
        real(self)
        taken.extend(r.kind for r in list(self._records)[before:])

    native.NativeReceiver._woken = counting
    try:
        fast, _, master = await _through(tmp_path / "receiver", True, lambda m: mixed_dump(m, NEXT_BINLOG))
    finally:
        native.NativeReceiver._woken = real
    python, _, _ = await _through(tmp_path / "python", False, lambda m: mixed_dump(m, NEXT_BINLOG))
    assert sorted(fast[1]) == ["relay-bin.000001", "relay-bin.000002"] and all(fast[1].values())
    assert len(fast[0]) >= 5 and fast[0][-1] == ("ack", BinlogPosition(NEXT_BINLOG, master.pos))
    assert fast == python
    # the dump's start and the ROTATE went through Python, the transactions through the thread
    assert taken.count(native.BATCH) >= 3 and native.HANDOFF in taken and native.RAW in taken


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
        # pause the thread with a heartbeat (taken by Python), then give it the pipe as its file
        real = RelayLog.descriptor
        RelayLog.descriptor = property(lambda self: w)
        try:
            master.send([ev.encode_body_event(ev.Heartbeat("master-bin.000001"), timestamp=0, server_id=1,
                                              log_pos=master.pos, checksum=True)], flagged=())
            await asyncio.sleep(0.3)
        finally:
            RelayLog.descriptor = real
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
        real = RelayLog.descriptor
        RelayLog.descriptor = property(lambda self: ro)
        try:
            master.send([ev.encode_body_event(ev.Heartbeat("master-bin.000001"), timestamp=0, server_id=1,
                                              log_pos=master.pos, checksum=True)], flagged=())
            await asyncio.sleep(0.3)
        finally:
            RelayLog.descriptor = real
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
