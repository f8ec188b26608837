"""DumpSession (WL#5721's Binlog_sender) against an in-memory slave.

The slave side is the real sans-IO `ClientConnection` (it checks sequence ids and the semi-sync
header itself); the binlog is written by the real `BinlogWriter` into tmp_path. The session's
socket is a fake that collects the bytes written.
"""

from __future__ import annotations

import asyncio
import time
import zlib

import pytest

from binlog.reader import iter_events
from binlog.writer import BinlogWriter
from master.ack_receiver import AckReceiver
from master.binlog_end import BinlogEnd
from master.dump import BinlogSource, DumpSession
from protocol.connection import NEED_DATA, BinlogPacket, ClientConnection, ServerConnection
from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    LOG_EVENT_BINLOG_IN_USE_F,
    EventType,
    Query,
    Xid,
    decode_event,
    decode_header,
    event_checksum_ok,
    event_type,
)
from protocol.messages import BINLOG_DUMP_NON_BLOCK, EOF, ERR, OK, ComBinlogDump
from protocol.position import BinlogPosition
from semisync.interface import ReplicationInterface, StorageParam
from semisync.master_plugin import SemiSyncMasterPlugin

SALT = bytes(range(1, 21))


class FakeSession:
    """What DumpSession uses of a ClientSession, with an in-memory socket."""

    def __init__(self, user_vars: dict) -> None:
        self.user_vars = user_vars
        self.connection_id = 7
        self.conn = ServerConnection(7, "5.7.44-semisync-log", SALT)
        self.out = bytearray()
        self.raw_reader = None
        self.command = "Query"
        self.state = None
        self.writing_paused = False
        self._closed = asyncio.get_running_loop().create_future()

    def write(self, data: bytes) -> None:
        if not self._closed.done():
            self.out += data

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def set_raw_reader(self, cb) -> None:
        self.raw_reader = cb

    def set_command(self, command: str) -> None:
        self.command = command

    def set_state(self, state) -> None:
        self.state = state

    @property
    def is_closed(self) -> bool:
        return self._closed.done()

    async def closed(self) -> None:
        await asyncio.shield(self._closed)

    def close(self) -> None:
        if not self._closed.done():
            self._closed.set_result(None)


class Slave:
    """An in-memory slave: logs in to a FakeSession's ServerConnection and sends COM_BINLOG_DUMP."""

    def __init__(self, session: FakeSession, *, semisync: bool = False) -> None:
        self.session = session
        self.client = ClientConnection("repl", "")
        self.semisync = semisync
        server = session.conn
        self.client.receive_data(server.greeting())
        assert self.client.next_event() is NEED_DATA
        server.receive_data(self.client.data_to_send())
        server.next_event()
        self.client.receive_data(server.send(OK()))
        self.client.next_event()
        self.taken = 0

    def request(self, position: int, filename: str, flags: int = 0, server_id: int = 2) -> ComBinlogDump:
        wire = self.client.binlog_dump(position, flags, server_id, filename, semisync=self.semisync)
        self.session.conn.receive_data(wire)
        cmd = self.session.conn.next_event()
        assert isinstance(cmd, ComBinlogDump)
        return cmd

    def packets(self) -> list:
        data = bytes(self.session.out[self.taken :])
        self.taken = len(self.session.out)
        if data:  # (b"" would tell the connection that the master closed)
            self.client.receive_data(data)
        out = []
        while (ev := self.client.next_event()) is not NEED_DATA:
            out.append(ev)
            if not isinstance(ev, BinlogPacket):
                break
        return out


async def until(predicate, timeout: float = 5.0) -> None:
    """Poll `predicate` on the loop until it holds (tests on a loaded machine: no fixed sleeps)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.005)


async def collect(slave: Slave, enough, timeout: float = 5.0) -> list:
    """The packets the slave receives from now on, once `enough(packets)` holds."""
    packets: list = []

    def ready() -> bool:
        packets.extend(slave.packets())
        return enough(packets)

    await until(ready, timeout)
    return packets


def append_transactions(writer: BinlogWriter, n: int, start: int = 0) -> BinlogPosition:
    """`n` transactions appended (buffered, not written: one commit group's); their end."""
    end = writer.pending_position
    for i in range(start, start + n):
        end = writer.append([
            (EventType.QUERY_EVENT, Query(db="test", query="BEGIN").encode(), 1700000000, 0),
            (EventType.QUERY_EVENT, Query(db="test", query=f"INSERT INTO t VALUES ({i})").encode(), 1700000000, 0),
            (EventType.XID_EVENT, Xid(i + 1).encode(), 1700000000, 0),
        ])
    return end


def write_transactions(writer: BinlogWriter, n: int, start: int = 0) -> BinlogPosition:
    end = append_transactions(writer, n, start)
    writer.flush()
    return end


@pytest.fixture
def binlog(tmp_path):
    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                          server_version="5.7.44-semisync-log")
    writer.open()
    yield writer
    writer.close()


def source_for(writer: BinlogWriter, end: BinlogEnd) -> BinlogSource:
    return BinlogSource(writer.directory, "mysql-bin", 1, end)


def make_dump(binlog, end, user_vars, position=4, flags=0, filename="mysql-bin.000001", *,
              transmit=None, semisync=False, on_start=None, session_cls=None):
    session = (session_cls or FakeSession)(user_vars)
    slave = Slave(session, semisync=semisync)
    request = slave.request(position, filename, flags)
    transmit = transmit if transmit is not None else ReplicationInterface().transmit
    dump = DumpSession(source_for(binlog, end), session, request, transmit, on_start=on_start)
    return session, slave, dump


def events_of(packets: list, *, semisync: bool = False) -> list[bytes]:
    out = []
    for p in packets:
        if isinstance(p, BinlogPacket):
            payload = p.payload
            if semisync:
                assert payload[0] == 0xEF and payload[1] in (0, 1)
                payload = payload[2:]
            out.append(bytes(payload))
    return out


async def test_stream_from_start_non_block(binlog):
    end_pos = write_transactions(binlog, 2)
    end = BinlogEnd(end_pos)
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, 4, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    packets = slave.packets()
    assert isinstance(packets[-1], EOF), packets[-1]
    events = events_of(packets)
    rotate = decode_event(events[0], checksum=True)
    assert rotate.type_code == EventType.ROTATE_EVENT
    assert rotate.header.log_pos == 0 and rotate.header.flags & LOG_EVENT_ARTIFICIAL_F
    assert rotate.header.timestamp == 0
    assert (rotate.body.position, rotate.body.next_file) == (4, "mysql-bin.000001")
    fd = decode_header(events[1])
    assert fd.type_code == EventType.FORMAT_DESCRIPTION_EVENT
    assert fd.log_pos == 4 + fd.event_size  # sent as in the file when the dump starts at 4
    assert not fd.flags & LOG_EVENT_BINLOG_IN_USE_F
    assert event_checksum_ok(events[1])
    rest = [decode_event(e, checksum=True) for e in events[2:]]
    assert [e.type_code for e in rest] == [2, 2, 16, 2, 2, 16]
    assert rest[1].body.query == "INSERT INTO t VALUES (0)" and rest[4].body.query == "INSERT INTO t VALUES (1)"
    assert rest[-1].header.log_pos == end_pos.pos
    # the events are byte for byte those of the file
    with open(binlog.directory / "mysql-bin.000001", "rb") as f:
        data = f.read()
    assert b"".join(events[2:]) == data[4 + fd.event_size : end_pos.pos]
    assert session.command == "Binlog Dump"


async def test_checksum_none_at_connect_drops_the_crc_of_the_first_artificial_rotate_only(binlog):
    """mariadb-binlog sets @master_binlog_checksum='NONE': the first artificial ROTATE (before any
    FORMAT_DESCRIPTION) comes without a CRC32; the FD and the events are the file's (CRC32), and
    the artificial ROTATE of the next file follows the FD's algorithm, as MariaDB sends them."""
    write_transactions(binlog, 1)
    binlog.rotate()
    end = BinlogEnd(write_transactions(binlog, 1, start=1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "NONE"}, 4, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    events = events_of(slave.packets())
    first = decode_event(events[0], checksum=False)
    assert first.type_code == EventType.ROTATE_EVENT and first.header.event_size == len(events[0])
    assert (first.body.position, first.body.next_file) == (4, "mysql-bin.000001")
    rotates = [e for e in events[1:] if e[4] == EventType.ROTATE_EVENT]
    real, artificial = (decode_event(e, checksum=True) for e in rotates)
    assert not real.header.flags & LOG_EVENT_ARTIFICIAL_F and artificial.header.flags & LOG_EVENT_ARTIFICIAL_F
    assert artificial.body.next_file == "mysql-bin.000002" and artificial.header.log_pos == 0
    assert all(event_checksum_ok(e) for e in events[1:])


async def test_start_past_format_description_and_boundaries(binlog):
    first_end = write_transactions(binlog, 1)
    end = BinlogEnd(write_transactions(binlog, 1, start=1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, first_end.pos, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    events = events_of(slave.packets())
    assert decode_event(events[0], checksum=True).body.position == first_end.pos
    fd = decode_header(events[1])
    assert fd.type_code == EventType.FORMAT_DESCRIPTION_EVENT and fd.log_pos == 0
    assert event_checksum_ok(events[1])
    assert [decode_header(e).type_code for e in events[2:]] == [2, 2, 16]


@pytest.mark.parametrize(
    ("filename", "position", "message"),
    [
        ("mysql-bin.000009", 4, "Could not find first log file name in binary log index file"),
        ("mysql-bin.000001", 7, "not an event boundary"),
        ("mysql-bin.000001", 10_000_000, "position > file size"),
    ],
)
async def test_bad_start_gets_1236(binlog, filename, position, message):
    end = BinlogEnd(write_transactions(binlog, 1))
    session, slave, dump = make_dump(binlog, end, {}, position, filename=filename)
    await asyncio.wait_for(dump.run(), 5)
    [err] = slave.packets()
    assert isinstance(err, ERR) and err.code == 1236 and message in err.message


async def test_checksum_unaware_slave_gets_events_without_crc(binlog):
    end = BinlogEnd(write_transactions(binlog, 1))
    # no SET @master_binlog_checksum
    session, slave, dump = make_dump(binlog, end, {}, 4, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    events = events_of(slave.packets())
    fd = decode_event(events[1], checksum=False)
    assert fd.body.checksum_alg == 0
    for raw in events[2:]:
        ev = decode_event(raw, checksum=False)  # sizes consistent, bodies parse without a footer
        assert ev.header.event_size == len(raw)
    assert decode_event(events[3], checksum=False).body.query == "INSERT INTO t VALUES (0)"
    assert decode_event(events[0], checksum=False).body.next_file == "mysql-bin.000001"


async def test_waits_for_publish_sends_heartbeats_and_follows_rotation(binlog):
    end = BinlogEnd(write_transactions(binlog, 1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32", "master_heartbeat_period": 50_000_000})
    started = time.monotonic()
    task = asyncio.create_task(dump.run())
    # written but not published: never sent
    unpublished = write_transactions(binlog, 1, start=1)
    events = events_of(await collect(slave, lambda packets: len(packets) >= 7))
    elapsed = time.monotonic() - started
    types = [decode_header(e).type_code for e in events]
    assert types[:5] == [4, 15, 2, 2, 16]
    heartbeats = [decode_event(e, checksum=True) for e in events[5:]]
    assert len(heartbeats) >= 2 and all(h.type_code == EventType.HEARTBEAT_LOG_EVENT for h in heartbeats)
    assert elapsed >= 0.05 * (len(heartbeats) - 1)  # at most one per period
    hb = heartbeats[0]
    assert hb.body.log_ident == "mysql-bin.000001" and hb.header.timestamp == 0
    assert hb.header.log_pos == decode_header(events[4]).log_pos  # where the slave is
    end.publish(unpublished)
    binlog.rotate()
    end.publish(binlog.end_position)
    write_transactions(binlog, 1, start=2)
    end.publish(binlog.end_position)

    def not_heartbeats(packets):
        return [e for e in events_of(packets) if e[4] != EventType.HEARTBEAT_LOG_EVENT]

    packets = await collect(slave, lambda packets: len(not_heartbeats(packets)) >= 9)
    events = [decode_event(e, checksum=True) for e in not_heartbeats(packets)]
    # the real ROTATE, then the new file's artificial ROTATE and FD
    assert [e.type_code for e in events] == [2, 2, 16, 4, 4, 15, 2, 2, 16]
    assert events[3].body.next_file == "mysql-bin.000002"
    assert events[4].body.next_file == "mysql-bin.000002" and events[4].header.flags & LOG_EVENT_ARTIFICIAL_F
    assert events[5].header.log_pos != 0  # the new file's FD, sent from offset 4
    assert events[-2].body.query == "INSERT INTO t VALUES (2)"
    assert dump.file == "mysql-bin.000002"
    session.close()
    await asyncio.wait_for(task, 5)


async def test_no_heartbeat_when_period_is_zero(binlog):
    end = BinlogEnd(write_transactions(binlog, 1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32", "master_heartbeat_period": 0}, 4)
    task = asyncio.create_task(dump.run())
    await collect(slave, lambda packets: len(packets) >= 5)
    await asyncio.sleep(0.2)
    assert slave.packets() == []  # no heartbeat
    dump.stop()
    await asyncio.wait_for(task, 5)


def semisync_dump(binlog, user_vars, session_cls=None):
    """A semi-sync master plugin, an ack receiver and a semi-sync dump of the binlog's end."""
    interface = ReplicationInterface()
    plugin = SemiSyncMasterPlugin(interface, settings={"rpl_semi_sync_master_enabled": True})
    plugin.install()
    receiver = AckReceiver()
    receiver.start()
    end = BinlogEnd(binlog.end_position)
    session, slave, dump = make_dump(
        binlog, end, {"master_binlog_checksum": "CRC32", "rpl_semi_sync_slave": 1, **user_vars},
        transmit=interface.transmit, semisync=True, on_start=receiver.attach, session_cls=session_cls,
    )
    return plugin, receiver, end, session, slave, dump


async def test_semisync_header_flag_and_sequence_restart(binlog):
    plugin, receiver, end, session, slave, dump = semisync_dump(binlog, {"master_heartbeat_period": 50_000_000})
    task = asyncio.create_task(dump.run())
    early = await collect(slave, lambda packets: len(packets) >= 3)  # ROTATE, FD, a heartbeat
    assert plugin.clients == 1
    group_end = write_transactions(binlog, 1)
    plugin.after_flush(StorageParam(1, group_end))
    end.publish(group_end)
    waiting = asyncio.create_task(plugin.after_sync(StorageParam(1, group_end)))

    def has_xid(packets):
        return any(isinstance(p, BinlogPacket) and p.payload[2 + 4] == EventType.XID_EVENT for p in packets)

    packets = early + await collect(slave, has_xid)
    assert not waiting.done()
    packets = [p for p in packets if isinstance(p, BinlogPacket)]
    assert all(p.payload[:1] == b"\xef" for p in packets)  # heartbeats and artificial events too
    flags = [(decode_header(p.payload[2:]).type_code, p.payload[1]) for p in packets]
    assert flags[0] == (4, 0) and flags[1] == (15, 0)
    assert (27, 0) in flags  # a heartbeat before the transaction, with the header, flag 0
    assert flags[-3:] == [(2, 0), (2, 0), (16, 1)]  # only the transaction's last event is flagged
    # the slave acks with sequence id 0; the master's next packet restarts at 1
    # (the ClientConnection checks that)
    session.raw_reader(slave.client.ack(group_end))
    await asyncio.wait_for(waiting, 2)
    assert plugin.status_variables()["Rpl_semi_sync_master_yes_tx"] == 1
    hb = await collect(slave, lambda packets: len(packets) >= 1)  # the next heartbeat, at seq 1
    assert isinstance(hb[0], BinlogPacket) and hb[0].payload[:2] == b"\xef\x00"
    # an ack beyond what was sent drops the connection and releases nothing
    session.raw_reader(slave.client.ack(BinlogPosition("mysql-bin.000001", group_end.pos + 1000)))
    await asyncio.wait_for(task, 2)
    assert session.is_closed and plugin.clients == 0
    await receiver.stop()


async def test_crc_of_heartbeat(binlog):
    end = BinlogEnd(write_transactions(binlog, 1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32", "master_heartbeat_period": 20_000_000})
    task = asyncio.create_task(dump.run())
    hb = events_of(await collect(slave, lambda packets: len(packets) >= 6))[-1]
    assert decode_header(hb).type_code == 27
    assert zlib.crc32(hb[:-4]) == int.from_bytes(hb[-4:], "little")
    dump.stop()
    await asyncio.wait_for(task, 5)


@pytest.mark.parametrize("incoming", ["garbage", "quit"])
async def test_a_non_semisync_dump_ends_on_anything_but_acks(binlog, incoming):
    receiver = AckReceiver()
    receiver.start()
    end = BinlogEnd(write_transactions(binlog, 1))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, on_start=receiver.attach)
    task = asyncio.create_task(dump.run())
    assert len(events_of(await collect(slave, lambda packets: len(packets) >= 5))) == 5
    if incoming == "garbage":
        session.raw_reader(b"\x03\x00\x00\x00\x03SEL")  # a COM_QUERY during a dump
    else:
        session.raw_reader(slave.client.quit())
    await asyncio.wait_for(task, 2)
    assert session.is_closed
    assert receiver.dropped == (1 if incoming == "garbage" else 0)
    await receiver.stop()


async def test_catch_up_of_large_events_in_batches(binlog):
    big = "x" * (300 << 10)  # one event larger than a read batch
    binlog.max_size = 1 << 30
    for i in range(6):
        binlog.append([(EventType.QUERY_EVENT, Query(db="test", query=f"INSERT INTO t VALUES ('{big}', {i})").encode(),
                        1700000000, 0)])
    write_transactions(binlog, 50)
    end = BinlogEnd(binlog.end_position)
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, 4, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 10)
    events = events_of(slave.packets())
    assert len(events) == 2 + 6 + 150
    assert sum(1 for e in events if len(e) > 300 << 10) == 6
    assert decode_header(events[-1]).log_pos == binlog.end_position.pos


async def test_from_every_event_boundary_the_stream_is_the_binlog(binlog):
    """Whatever boundary a slave starts at, it receives exactly the bytes of the binlog from there
    on, across rotations (plus the artificial ROTATE and each file's FORMAT_DESCRIPTION)."""
    write_transactions(binlog, 3)
    binlog.rotate()
    write_transactions(binlog, 2, start=3)
    binlog.rotate()
    write_transactions(binlog, 1, start=5)
    end = BinlogEnd(binlog.end_position)
    files = binlog.files()
    data = {name: (binlog.directory / name).read_bytes() for name in files}
    boundaries = [(name, off + len(ev)) for name in files for off, ev in iter_events(binlog.directory / name)]
    for name, pos in boundaries:
        session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, pos,
                                         BINLOG_DUMP_NON_BLOCK, filename=name)
        await asyncio.wait_for(dump.run(), 5)
        events = events_of(slave.packets())
        assert decode_event(events[0], checksum=True).body.position == pos
        expected, got = [], []
        for i, name_i in enumerate(files[files.index(name):]):
            fd_end = 4 + decode_header(data[name_i], 4).event_size
            start = pos if i == 0 else fd_end
            expected.append(data[name_i][max(start, fd_end):])
        stream = events[1:]
        for raw in stream:  # without each file's artificial ROTATE and FORMAT_DESCRIPTION
            artificial = raw[4] == EventType.ROTATE_EVENT and raw[17] & LOG_EVENT_ARTIFICIAL_F
            if raw[4] != EventType.FORMAT_DESCRIPTION_EVENT and not artificial:
                got.append(raw)
        assert b"".join(got) == b"".join(expected), (name, pos)


class CountingSession(FakeSession):
    """A FakeSession that also keeps each transport write apart."""

    def __init__(self, user_vars: dict) -> None:
        super().__init__(user_vars)
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        super().write(data)


async def test_one_transport_write_per_read_batch(binlog):
    end = BinlogEnd(write_transactions(binlog, 5))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, 4, BINLOG_DUMP_NON_BLOCK,
                                     session_cls=CountingSession)
    await asyncio.wait_for(dump.run(), 5)
    # the artificial ROTATE, the FD, ONE write for the 15 events of 5 transactions, the EOF
    assert len(session.writes) == 4
    events = events_of(slave.packets())
    assert len(events) == 2 + 15 and dump.events_sent == 17
    with open(binlog.directory / "mysql-bin.000001", "rb") as f:
        data = f.read()
    assert b"".join(events[2:]) == data[4 + len(events[1]) : end.position.pos]


async def test_a_dump_no_observer_follows_runs_no_per_event_hook(binlog):
    """With the semi-sync plugin installed, a slave that did not ask for semi-sync gets its
    events without any before/after_send_event(s) call (no observer set `event_hooks`), and the
    same bytes; a semi-sync slave's dump runs both hooks for every event (the plugin's per-event
    hooks are batches of one)."""
    interface = ReplicationInterface()
    plugin = SemiSyncMasterPlugin(interface, settings={"rpl_semi_sync_master_enabled": True})
    calls: list[str] = []
    before, after = plugin.before_send_events, plugin.after_send_events

    def spy_before(param, headers, events):
        calls.extend(["before"] * len(events))
        before(param, headers, events)

    def spy_after(param, events):
        calls.extend(["after"] * len(events))
        after(param, events)

    plugin.before_send_events = spy_before  # type: ignore[method-assign]
    plugin.after_send_events = spy_after  # type: ignore[method-assign]
    plugin.install()  # (a lone observer's hooks are read when it registers)
    end = BinlogEnd(write_transactions(binlog, 3))
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32"}, 4, BINLOG_DUMP_NON_BLOCK,
                                     transmit=interface.transmit)
    await asyncio.wait_for(dump.run(), 5)
    assert calls == [] and dump.param is not None and not dump.param.event_hooks
    events = events_of(slave.packets())
    with open(binlog.directory / "mysql-bin.000001", "rb") as f:
        data = f.read()
    assert len(events) == 2 + 9 and b"".join(events[2:]) == data[4 + len(events[1]) : end.position.pos]

    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32", "rpl_semi_sync_slave": 1},
                                     4, BINLOG_DUMP_NON_BLOCK, transmit=interface.transmit, semisync=True)
    await asyncio.wait_for(dump.run(), 5)
    # the artificial ROTATE and the FD, then the 9 events of the batch: a pair for each
    assert calls.count("before") == calls.count("after") == 2 + 9
    assert events_of(slave.packets(), semisync=True)[2:] == events[2:]


async def test_batched_semisync_flags_exactly_the_waiting_group_ends(binlog):
    """Two commit groups published together go out in one write; each group's last event (and no
    other) asks for an ack, each flagged packet restarts the sequence ids (the ClientConnection
    checks them), and one ack of the second group's end releases both waiters."""
    plugin, receiver, end, session, slave, dump = semisync_dump(binlog, {}, CountingSession)
    task = asyncio.create_task(dump.run())
    await collect(slave, lambda packets: len(packets) >= 2)  # ROTATE, FD
    first_end = write_transactions(binlog, 2)
    plugin.after_flush(StorageParam(1, first_end, 2))
    second_end = write_transactions(binlog, 1, start=2)
    plugin.after_flush(StorageParam(1, second_end, 1))
    writes_before = len(session.writes)
    end.publish(second_end)
    waiting = [asyncio.create_task(plugin.after_sync(StorageParam(1, p, n))) for p, n in ((first_end, 2), (second_end, 1))]
    packets = [p for p in await collect(slave, lambda packets: len(packets) >= 9) if isinstance(p, BinlogPacket)]
    assert len(session.writes) == writes_before + 1
    flagged = [(decode_header(p.payload[2:]).log_pos, p.payload[1]) for p in packets]
    assert [pos for pos, flag in flagged if flag] == [first_end.pos, second_end.pos]
    assert [t for t in waiting if t.done()] == []
    session.raw_reader(slave.client.ack(second_end))  # an ack right after the write is not "beyond"
    await asyncio.wait_for(asyncio.gather(*waiting), 2)
    status = plugin.status_variables()
    assert status["Rpl_semi_sync_master_yes_tx"] == 3 and status["Rpl_semi_sync_master_no_tx"] == 0
    assert not session.is_closed
    dump.stop()
    await asyncio.wait_for(task, 2)
    assert plugin.clients == 0
    await receiver.stop()


@pytest.mark.parametrize("damage", ["crc", "size", "zeros", "too-long"])
@pytest.mark.parametrize("aware", [True, False])
async def test_a_damaged_binlog_ends_the_dump_with_1236_and_its_position(binlog, damage, aware):
    """What mysqld's Binlog_sender says for a binlog it cannot read, with the coordinates;
    nothing from the damaged event on is sent (a checksum-unaware slave is protected too)."""
    good_end = write_transactions(binlog, 2)
    bad_end = write_transactions(binlog, 1, start=2)
    path = binlog.directory / "mysql-bin.000001"
    data = bytearray(path.read_bytes())
    at = good_end.pos  # the third transaction's BEGIN
    if damage == "crc":
        data[at + 25] ^= 0x01  # a byte of the body: its CRC32 no longer matches
    elif damage == "size":
        data[at + 9 : at + 13] = (3).to_bytes(4, "little")  # an event of 3 bytes: impossible
    elif damage == "too-long":
        data[at + 9 : at + 13] = (1 << 20).to_bytes(4, "little")  # past the end of the binlog
    else:
        data[at:] = bytes(len(data) - at)
    path.write_bytes(data)
    end = BinlogEnd(bad_end)
    user_vars = {"master_binlog_checksum": "CRC32"} if aware else {}
    session, slave, dump = make_dump(binlog, end, user_vars, 4, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    packets = slave.packets()
    err = packets[-1]
    assert isinstance(err, ERR) and err.code == 1236, err
    reason = {
        "crc": "event read from binlog did not pass crc check",
        "too-long": "binlog truncated in the middle of event; consider out of disk space on master",
    }.get(damage, "bogus data in log event")
    assert err.message == (
        f"{reason}; the first event 'mysql-bin.000001' at 4, the last event read from "
        f"'mysql-bin.000001' at {good_end.pos}, the last byte read from 'mysql-bin.000001' at {at}."
    )
    events = events_of(packets)
    last = decode_header(events[-1])
    assert last.type_code == EventType.XID_EVENT and last.log_pos == good_end.pos


async def _groups_to_a_semisync_slave(binlog, pushes: bool):
    """A semi-sync dump at the binlog's end, sent groups as a group commit publishes them: three
    with their events (`tail`), one without, two published at once (a read back from the file),
    one more with its events; each acked by the slave. What the slave received, the plugin's
    counters, and how many batches were sent from inside `publish`."""
    plugin, receiver, end, session, slave, dump = semisync_dump(binlog, {"mariadb_slave_capability": 4})
    dump._pushes = pushes
    inside = [False]
    from_publish = [0]
    send_batch = dump._send_batch

    def counted(batch):
        from_publish[0] += inside[0]
        send_batch(batch)

    dump._send_batch = counted
    task = asyncio.create_task(dump.run())
    received = await collect(slave, lambda packets: len(packets) >= 2)  # ROTATE, FD

    def has_xid(packets):
        return any(isinstance(p, BinlogPacket) and p.payload[2 + 4] == EventType.XID_EVENT for p in packets)

    async def group(n: int, *, tail: bool = True, groups: int = 1) -> None:
        for _ in range(groups):
            group_end = write_transactions(binlog, n) if not tail else None
            if tail:
                append_transactions(binlog, n)
                group_end = binlog.write_group(False)
            plugin.after_flush(StorageParam(n, group_end))
        inside[0] = True
        end.publish(group_end, binlog.last_group if tail else None)
        inside[0] = False
        # the leader's after_sync right after its publish: at the gate before the ack is read
        waiting = asyncio.create_task(plugin.after_sync(StorageParam(n, group_end)))
        await asyncio.sleep(0)
        received.extend(await collect(slave, has_xid))
        session.raw_reader(slave.client.ack(group_end))
        await asyncio.wait_for(waiting, 2)

    for n in (1, 3, 2):
        await group(n)
    await group(2, tail=False)
    await group(1, tail=False, groups=2)
    await group(4)
    dump.stop()
    await asyncio.wait_for(task, 2)
    status = plugin.status_variables()
    for timed in ("Rpl_semi_sync_master_net_avg_wait_time", "Rpl_semi_sync_master_net_wait_time",
                  "Rpl_semi_sync_master_tx_avg_wait_time", "Rpl_semi_sync_master_tx_wait_time"):
        status.pop(timed, None)
    await receiver.stop()
    return bytes(session.out), received, status, receiver.acks, dump.events_sent, from_publish[0]


async def test_a_group_sent_from_the_publish_is_what_the_woken_dump_sends(tmp_path):
    """`DumpSession._pushed` (the group sent from the publishing call) against the dump woken to
    send it (`_send_file`): the same bytes to the slave, the same acks accepted, the same
    Rpl_semi_sync_* counters; and the groups with their events were sent from the publish."""
    runs = []
    for pushes in (False, True):
        writer = BinlogWriter(tmp_path / str(pushes), "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                              server_version="5.7.44-semisync-log")
        writer.open()
        try:
            runs.append(await _groups_to_a_semisync_slave(writer, pushes))
        finally:
            writer.close()
    (pulled, pulled_packets, pulled_status, pulled_acks, pulled_sent, none), (pushed, *rest) = runs
    pushed_packets, pushed_status, pushed_acks, pushed_sent, from_publish = rest
    assert none == 0 and from_publish == 4  # the four groups published with their events
    # the same bytes after the ROTATE and the FORMAT_DESCRIPTION (whose creation time is its file's)
    first_two = [4 + int.from_bytes(out[:3], "little") for out in (pushed, pulled)]
    first_two = [n + 4 + int.from_bytes(out[n:n + 3], "little") for n, out in zip(first_two, (pushed, pulled), strict=True)]
    assert first_two[0] == first_two[1] and pushed[first_two[0]:] == pulled[first_two[1]:]
    assert [p.payload for p in pushed_packets[2:]] == [p.payload for p in pulled_packets[2:]]
    assert sum(p.payload[1] for p in pushed_packets if isinstance(p, BinlogPacket)) == 7  # each group end
    assert pushed_status == pulled_status and pushed_status["Rpl_semi_sync_master_yes_tx"] == 6
    assert pushed_acks == pulled_acks == 6 and pushed_sent == pulled_sent


async def test_groups_sent_from_the_publish_put_the_heartbeat_off_and_a_paused_transport_is_drained(binlog):
    """A dump parked at the end keeps one wait across the groups sent from the publish: its
    heartbeat comes a period after the last of them, never between them; and a transport
    above its high-water mark gets no group from the publish: the dump is woken and sends it
    from its task, then drains, as a dump woken for every group does."""
    end = BinlogEnd(binlog.end_position)
    period = 0.3
    session, slave, dump = make_dump(binlog, end, {"master_binlog_checksum": "CRC32", "mariadb_slave_capability": 4,
                                                   "master_heartbeat_period": int(period * 1e9)})
    task = asyncio.create_task(dump.run())
    await collect(slave, lambda packets: len(packets) >= 2)
    loop = asyncio.get_running_loop()
    began = loop.time()
    sent_at = []
    for i in range(8):  # 8 x 50 ms: longer than the period
        append_transactions(binlog, 1, i)
        before = len(session.out)
        end.publish(binlog.write_group(False), binlog.last_group)
        assert len(session.out) > before  # sent by the publish itself
        sent_at.append(loop.time())
        await asyncio.sleep(0.05)
    if max(b - a for a, b in zip([began, *sent_at[:-1]], sent_at, strict=True)) < period:  # (a loaded machine can stall)
        assert all(event_type(e) != EventType.HEARTBEAT_LOG_EVENT for e in events_of(slave.packets()))
    hb = await collect(slave, lambda packets: len(packets) >= 1)
    assert event_type(events_of(hb)[0]) == EventType.HEARTBEAT_LOG_EVENT
    assert loop.time() - sent_at[-1] >= period - 0.002

    drained = []

    async def drain():
        drained.append(loop.time())
        session.writing_paused = False

    session.drain = drain
    session.writing_paused = True
    append_transactions(binlog, 2, 100)
    before = len(session.out)
    end.publish(binlog.write_group(False), binlog.last_group)
    assert len(session.out) == before  # not from the publish: the transport is paused
    packets = await collect(slave, lambda packets: sum(
        event_type(e) == EventType.XID_EVENT for e in events_of(packets)) == 2)
    assert drained and not session.writing_paused
    assert [event_type(e) for e in events_of(packets) if event_type(e) != EventType.HEARTBEAT_LOG_EVENT] == [
        EventType.QUERY_EVENT, EventType.QUERY_EVENT, EventType.XID_EVENT] * 2
    dump.stop()
    await asyncio.wait_for(task, 2)


async def _acks_delivered(binlog, deliver: str):
    """Three groups to a semi-sync slave, each acked, the acks reaching the receiver `deliver`ed:
    'whole' (one packet per read, `whole_ack`), 'bytes' (byte by byte, the buffer), 'two' (the
    last two acks in one read); then an ack beyond what was sent. What the receiver and the
    plugin made of them."""
    plugin, receiver, end, session, slave, dump = semisync_dump(binlog, {"mariadb_slave_capability": 4})
    task = asyncio.create_task(dump.run())
    await collect(slave, lambda packets: len(packets) >= 2)
    waits, acks = [], []
    for n in (1, 2, 3):
        append_transactions(binlog, n)
        group_end = binlog.write_group(False)
        plugin.after_flush(StorageParam(n, group_end))
        end.publish(group_end, binlog.last_group)
        waits.append(asyncio.create_task(plugin.after_sync(StorageParam(n, group_end))))
        await asyncio.sleep(0)
        await collect(slave, lambda packets: any(isinstance(p, BinlogPacket) and p.payload[1] for p in packets))
        acks.append(slave.client.ack(group_end))
    if deliver == "whole":
        reads = acks
    elif deliver == "bytes":
        reads = [bytes([b]) for ack in acks for b in ack]
    else:
        reads = [acks[0], acks[1] + acks[2]]
    for data in reads:
        session.raw_reader(data)
    outcomes = await asyncio.wait_for(asyncio.gather(*waits), 2)
    status = plugin.status_variables()
    for timed in ("Rpl_semi_sync_master_net_avg_wait_time", "Rpl_semi_sync_master_net_wait_time",
                  "Rpl_semi_sync_master_tx_avg_wait_time", "Rpl_semi_sync_master_tx_wait_time"):
        status.pop(timed, None)
    before = (receiver.acks, dict(receiver.acked), receiver.dropped, status, outcomes)
    session.raw_reader(slave.client.ack(BinlogPosition(group_end.file, group_end.pos + 1000)))
    await asyncio.wait_for(task, 2)
    await receiver.stop()
    return before, receiver.dropped, session.is_closed


async def test_acks_read_whole_byte_by_byte_or_together_are_taken_alike(tmp_path):
    """The receiver's ack read alone (`AckReceiver._receive` on `whole_ack`) against the same
    acks through the connection's buffer (`feed`): the same acks accepted, the same positions,
    the same Rpl_semi_sync_* counters and waits released; an ack beyond what was sent drops the
    slave either way."""
    runs = {}
    for deliver in ("whole", "bytes", "two"):
        writer = BinlogWriter(tmp_path / deliver, "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                              server_version="5.7.44-semisync-log")
        writer.open()
        try:
            runs[deliver] = await _acks_delivered(writer, deliver)
        finally:
            writer.close()
    assert runs["whole"] == runs["bytes"] == runs["two"]
    (acks, acked, dropped, status, _), dropped_after, closed = runs["whole"]
    assert acks == 3 and dropped == 0 and dropped_after == 1 and closed
    assert status["Rpl_semi_sync_master_yes_tx"] == 3 and status["Rpl_semi_sync_master_net_waits"] == 3
