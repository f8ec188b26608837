"""The IO task against an in-memory master on loopback (protocol.ServerConnection): the order
of fsync and ack, batching, and sync_relay_log = N > 1. The same properties are proven against
a stock MariaDB master in tests/integration/test_slave_durability.py; here the master sends
exactly the bursts the test wants, so every count is exact.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from binlog import syncer as binlog_syncer
from binlog.reader import iter_events
from protocol import eventscan
from protocol.connection import NEED_DATA, ServerConnection
from protocol.errors import ER_UNKNOWN_SYSTEM_VARIABLE
from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    EventType,
    FormatDescription,
    Heartbeat,
    MariaGtid,
    Query,
    Rotate,
    Xid,
    decode_header,
    encode_body_event,
)
from protocol.messages import (
    ERR,
    OK,
    ComBinlogDump,
    ComQuery,
    ComRegisterSlave,
    HandshakeResponse,
    ResultSet,
)
from protocol.position import BinlogPosition
from protocol.semisync_wire import SemiSyncAck, semisync_header
from semisync.interface import ReplicationInterface
from semisync.slave_plugin import PROBE, SemiSyncSlavePlugin
from slave import io_task as io_task_module
from slave.io_task import IoSettings, IoTask
from slave.relay_log import RelayLog

BINLOG = "master-bin.000001"
ANSWERS = {
    "SELECT UNIX_TIMESTAMP()": ResultSet(("UNIX_TIMESTAMP()",), (("1700000000",),)),
    "SHOW VARIABLES LIKE 'SERVER_ID'": ResultSet(("Variable_name", "Value"), (("server_id", "1"),)),
    "SELECT @master_binlog_checksum": ResultSet(("@master_binlog_checksum",), (("CRC32",),)),
    "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'": ResultSet(
        ("Variable_name", "Value"), (("rpl_semi_sync_master_enabled", "ON"),)
    ),
}


class FakeMaster:
    """Answers the bootstrap, then a semi-sync dump whose events the test pushes in bursts."""

    def __init__(self, journal: list, semi_sync: bool = True) -> None:
        self.journal = journal
        self.semi_sync = semi_sync  # False: a master without the plugin (the probe gets ERR 1193)
        self.pos = 4
        self.dumping = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None
        self.conn: ServerConnection | None = None
        self.queries: list[str] = []
        self.dumps: list[BinlogPosition] = []  # where each COM_BINLOG_DUMP asked to start

    async def start(self) -> int:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = ServerConnection(1, "5.5.5-10.11.99-fake", b"abcdefghijklmnopqrst")
        self.conn, self.writer = conn, writer
        writer.write(conn.greeting())
        while True:
            data = await reader.read(65536)
            conn.receive_data(data)
            while (ev := conn.next_event()) is not NEED_DATA:
                if isinstance(ev, HandshakeResponse):
                    writer.write(conn.send(OK()))
                elif isinstance(ev, ComQuery):
                    self.queries.append(ev.sql)
                    if not self.semi_sync and ev.sql == PROBE.sql:
                        writer.write(conn.send(ERR.from_error(ER_UNKNOWN_SYSTEM_VARIABLE, "rpl_semi_sync_master_enabled")))
                        continue
                    writer.write(conn.send(ANSWERS.get(ev.sql, OK())))
                elif isinstance(ev, ComRegisterSlave):
                    writer.write(conn.send(OK()))
                elif isinstance(ev, ComBinlogDump):
                    conn.start_dump(semisync=self.semi_sync)
                    self.dumps.append(BinlogPosition(ev.filename, ev.position))
                    fd = FormatDescription(server_version="10.11.99-fake-log")
                    start = ev.position if ev.filename else 4
                    self.send([
                        encode_body_event(Rotate(start, BINLOG), timestamp=0, server_id=1, log_pos=0,
                                          flags=LOG_EVENT_ARTIFICIAL_F, checksum=True),
                        encode_body_event(fd, timestamp=1, server_id=1, log_pos=0, checksum=True),
                    ], flagged=())
                    self.dumping.set()
                elif isinstance(ev, SemiSyncAck):
                    self.journal.append(("ack", ev.position))
                else:
                    return
            if not data:
                return

    def transaction(self, n: int) -> list[bytes]:
        events = []
        for body in (Query(db="d", query="BEGIN"), Query(db="d", query=f"INSERT INTO t VALUES ({n})"), Xid(n)):
            size = len(encode_body_event(body, timestamp=1, server_id=1, log_pos=0, checksum=True))
            self.pos += size
            events.append(encode_body_event(body, timestamp=1, server_id=1, log_pos=self.pos, checksum=True))
        return events

    def send(self, events: list[bytes], flagged: tuple[int, ...]) -> None:
        """All `events` in ONE write; the ones at the `flagged` indexes ask for an ack."""
        assert self.conn is not None and self.writer is not None
        wire = b"".join(
            self.conn.send_event(e, semisync_header(i in flagged) if self.semi_sync else b"") for i, e in enumerate(events)
        )
        self.writer.write(wire)


SYNCER: dict = {}


@pytest.fixture(autouse=True, params=["lane", "native"])
def relay_syncer_kind(request, monkeypatch):
    """Every test of the IO task runs on both of the relay log's fsync paths: the Python thread
    lane and binlog._syncer's thread (its fsyncs are journaled when their future is done, before
    the task that awaits them goes on)."""
    if request.param == "native" and not binlog_syncer.available():
        pytest.skip("binlog._syncer was not built")
    SYNCER.clear()
    SYNCER.update(kind=request.param, patch=monkeypatch)
    return request.param


@pytest.fixture(autouse=True, params=["runs", "per-event"])
def event_path(request, monkeypatch):
    """Every test of the IO task runs on both ways a read's events are queued: runs of them
    taken by the compiled scan (protocol._eventscan, where built) and one by one in Python."""
    if request.param == "runs" and eventscan.scan is None:
        pytest.skip("protocol._eventscan was not built")
    if request.param == "per-event":
        monkeypatch.setattr(eventscan, "scan", None)
    return request.param


def _journaled_fsync(journal: list):
    """The fsync the IO task is given (its direct fsyncs: a rotation's), and on the native path
    the compiled syncer for the batches' fsyncs, journaled too."""
    def fsync(fd: int) -> None:
        os.fsync(fd)
        journal.append(("fsync", os.fstat(fd).st_size))

    if SYNCER.get("kind") == "native":
        class Journaled(binlog_syncer.NativeSyncer):
            def fsync(self, fd: int):
                done = super().fsync(fd)
                size = os.fstat(fd).st_size
                done.add_done_callback(lambda f: f.cancelled() or f.exception() or journal.append(("fsync", size)))
                return done

            def fsync_then_send(self, fd: int, sock: int, data: bytes):
                # the ack leaves from the thread once the fsync returned 0 (held by
                # tests/unit/test_binlog_syncer.py): journaled at the request, as it may reach the
                # master before the answer reaches this loop; a failed fsync takes it back
                try:
                    entry = ("fsync", os.fstat(fd).st_size)
                except OSError:  # a descriptor the test broke: the thread's fsync fails too
                    entry = ("fsync", -1)
                journal.append(entry)
                done = super().fsync_then_send(fd, sock, data)
                done.add_done_callback(lambda f: f.cancelled() or not f.exception()
                                       or isinstance(f.exception(), binlog_syncer.NotSent) or journal.remove(entry))
                return done

        # what relay_syncer(os.fsync) gives, for the stand-in
        SYNCER["patch"].setattr(io_task_module, "relay_syncer", lambda _fsync: Journaled.open())
    return fsync


async def run_io(tmp_path, sync_relay_log: int, scenario, keep: dict | None = None,
                 semi_sync: bool = True, receiver: bool = False,
                 max_relay_log_size: int = 1 << 30) -> tuple[list, FakeMaster]:
    """The IO task against a FakeMaster through `scenario`; `receiver`: with the real fsync,
    so that a plain-TCP dump with sync_relay_log=1 is read by the receiver thread
    (slave/_receiver.c) and its fsyncs are not journaled (only the acks are)."""
    journal: list = []
    master = FakeMaster(journal, semi_sync)
    port = await master.start()
    interface = ReplicationInterface()
    plugin = SemiSyncSlavePlugin(interface, settings={"rpl_semi_sync_slave_enabled": True})
    plugin.install()
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()

    fsync = os.fsync if receiver else _journaled_fsync(journal)
    settings = IoSettings("127.0.0.1", port, "repl", "pw", 2, heartbeat_period=0, connect_retry=0.2,
                          net_timeout=10, sync_relay_log=sync_relay_log, max_relay_log_size=max_relay_log_size)
    task = IoTask(settings, relay, interface.relay_io, BinlogPosition("", 4), fsync=fsync)
    if keep is not None:
        keep["task"], keep["plugin"] = task, plugin
    runner = asyncio.create_task(task.run())
    await asyncio.wait_for(master.dumping.wait(), 10)
    await asyncio.sleep(0.2)
    journal.clear()
    await scenario(master, journal)
    task.stop()
    await asyncio.wait_for(runner, 10)
    master.server.close()
    await master.server.wait_closed()
    return journal, master


async def settle(journal: list, count: int) -> None:
    for _ in range(200):
        if len(journal) >= count:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)


async def test_bootstrap_queries_mirror_a_mariadb_replica(tmp_path):
    async def nothing(master, journal):
        return None

    _, master = await run_io(tmp_path, 1, nothing)
    assert master.queries == [
        "SELECT UNIX_TIMESTAMP()",
        "SHOW VARIABLES LIKE 'SERVER_ID'",
        "SET @master_binlog_checksum= @@global.binlog_checksum",
        "SELECT @master_binlog_checksum",
        "SET @mariadb_slave_capability=4",
        "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'",
        "SET @rpl_semi_sync_slave= 1",
    ]


async def test_a_master_without_semi_sync_refuses_the_negotiation_and_dumps_asynchronously(tmp_path):
    keep: dict = {}

    async def replicate(master: FakeMaster, journal: list) -> None:
        assert not keep["task"].semi_sync and not keep["plugin"].status
        master.send(master.transaction(1), flagged=())
        await settle(journal, 1)

    journal, master = await run_io(tmp_path, 1, replicate, keep, semi_sync=False)
    assert master.queries[-1] == PROBE.sql  # refused: the SET is never sent
    assert [kind for kind, _ in journal] == ["fsync"]  # in the relay log, durable, never acked
    assert keep["task"].read_position == BinlogPosition(BINLOG, master.pos)


async def test_a_burst_of_flagged_transactions_is_one_fsync_then_one_ack(tmp_path):
    async def burst(master: FakeMaster, journal: list) -> None:
        events = [e for n in range(1, 6) for e in master.transaction(n)]
        master.send(events, flagged=tuple(range(2, 15, 3)))  # every XID asks for an ack
        await settle(journal, 2)

    journal, master = await run_io(tmp_path, 1, burst)
    assert [kind for kind, _ in journal] == ["fsync", "ack"]
    assert journal[1][1] == BinlogPosition(BINLOG, master.pos)  # cumulative: the last XID


async def test_sync_relay_log_n_acks_only_after_the_covering_fsync(tmp_path):
    async def trickle(master: FakeMaster, journal: list) -> None:
        # The dump's ROTATE + FD were 2 events; 3 per transaction: with sync_relay_log = 9 the
        # fsync is due with the 3rd transaction (2 + 3 + 3 + 3 >= 9).
        master.send(master.transaction(1), flagged=(2,))
        await asyncio.sleep(0.3)
        assert journal == []  # written, not yet durable per sync_relay_log: no ack
        master.send(master.transaction(2), flagged=(2,))
        await asyncio.sleep(0.3)
        assert journal == []
        master.send(master.transaction(3), flagged=(2,))
        await settle(journal, 2)

    journal, master = await run_io(tmp_path, 9, trickle)
    assert [kind for kind, _ in journal] == ["fsync", "ack"]
    assert journal[1][1] == BinlogPosition(BINLOG, master.pos)


async def test_heartbeats_are_counted_and_checked_against_what_was_received(tmp_path):
    outcome: dict = {}

    async def heartbeats(master: FakeMaster, journal: list) -> None:
        master.send(master.transaction(1), flagged=(2,))
        await settle(journal, 2)
        good = encode_body_event(Heartbeat(BINLOG), timestamp=0, server_id=1, log_pos=master.pos, checksum=True)
        master.send([good, good], flagged=())
        await asyncio.sleep(0.3)
        outcome["relay"] = [p.stat().st_size for p in sorted(tmp_path.glob("relay-bin.0*"))]
        beyond = encode_body_event(Heartbeat(BINLOG), timestamp=0, server_id=1, log_pos=master.pos + 100, checksum=True)
        master.send([beyond], flagged=())
        await asyncio.sleep(0.3)

    journal, master = await run_io(tmp_path, 1, heartbeats, keep=outcome)
    task = outcome["task"]
    assert task.received_heartbeats == 2
    assert task.last_errno == 1623 and "heartbeat" in task.last_error
    assert [p.stat().st_size for p in sorted(tmp_path.glob("relay-bin.0*"))] == outcome["relay"]


async def test_a_corrupt_event_stops_the_task_before_any_ack(tmp_path):
    """The IO task reads only headers and the events it acts on, but still checks the CRC32 of
    every event before it is queued: a QUERY corrupted in its statement (footer intact) stops
    the task with 1743, nothing of it reaches the relay log, and no ack leaves."""
    outcome: dict = {}

    async def corrupt(master: FakeMaster, journal: list) -> None:
        master.send(master.transaction(1), flagged=(2,))
        await settle(journal, 2)
        outcome["relay"] = [p.stat().st_size for p in sorted(tmp_path.glob("relay-bin.0*"))]
        begin, insert, xid = master.transaction(2)
        bad = bytearray(insert)
        bad[-6] ^= 0x01  # a byte of "INSERT INTO t VALUES (2)"
        master.send([begin, bytes(bad), xid], flagged=(2,))
        await asyncio.sleep(0.5)

    journal, master = await run_io(tmp_path, 1, corrupt, keep=outcome)
    task = outcome["task"]
    assert [kind for kind, _ in journal] == ["fsync", "ack"]  # the first transaction only
    assert task.last_errno == 1743
    assert task.acks_sent == 1
    assert [p.stat().st_size for p in sorted(tmp_path.glob("relay-bin.0*"))] == outcome["relay"]


async def test_the_master_s_rotate_begins_a_new_relay_file(tmp_path):
    """The master's ROTATE to its next file, between two transactions, goes first into a new
    relay file (the old one fsynced to its end); the artificial ROTATE that repeats the file
    stays with it. Acks follow the fsyncs, and a restart resumes in the master's next file."""
    next_binlog = "master-bin.000002"

    async def rotation(master: FakeMaster, journal: list) -> None:
        first = master.transaction(1)
        master.pos += len(encode_body_event(Rotate(4, next_binlog), timestamp=1, server_id=1, log_pos=0, checksum=True))
        real = encode_body_event(Rotate(4, next_binlog), timestamp=1, server_id=1, log_pos=master.pos, checksum=True)
        again = encode_body_event(Rotate(4, next_binlog), timestamp=0, server_id=1, log_pos=0,
                                  flags=LOG_EVENT_ARTIFICIAL_F, checksum=True)
        fd = encode_body_event(FormatDescription(server_version="10.11.99-fake-log"), timestamp=1, server_id=1,
                               log_pos=0, checksum=True)
        master.pos = 4 + len(fd)
        second = master.transaction(2)
        master.send([*first, real, again, fd, *second], flagged=(2, 8))
        await settle(journal, 3)

    journal, master = await run_io(tmp_path, 1, rotation)
    assert [kind for kind, _ in journal] == ["fsync", "fsync", "ack"]
    assert journal[2][1] == BinlogPosition(next_binlog, master.pos)
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    assert relay.files() == ["relay-bin.000001", "relay-bin.000002"]
    first_file = [e[4] for _, e in iter_events(tmp_path / "relay-bin.000001")]
    assert first_file[-3:] == [EventType.QUERY_EVENT, EventType.QUERY_EVENT, EventType.XID_EVENT]
    second_file = [(e[4], decode_header(e).artificial) for _, e in iter_events(tmp_path / "relay-bin.000002")]
    assert second_file[:4] == [(EventType.FORMAT_DESCRIPTION_EVENT, False), (EventType.ROTATE_EVENT, False),
                               (EventType.ROTATE_EVENT, True), (EventType.FORMAT_DESCRIPTION_EVENT, False)]
    assert relay.recover().resume == BinlogPosition(next_binlog, master.pos)


def mixed_dump(master: FakeMaster, next_binlog: str) -> list[tuple[list[bytes], tuple[int, ...]]]:
    """The reads of one mixed dump, (events, flagged indexes) each: BEGIN/COMMIT and MariaDB
    GTID transactions, a standalone GTID's DDL, a transaction split across reads, a heartbeat,
    the master's ROTATE to `next_binlog` with the artificial ROTATE and FORMAT_DESCRIPTION after it."""
    def event(body, artificial: bool = False) -> bytes:
        if artificial:
            return encode_body_event(body, timestamp=0, server_id=1, log_pos=0, flags=LOG_EVENT_ARTIFICIAL_F,
                                     checksum=True)
        master.pos += len(encode_body_event(body, timestamp=1, server_id=1, log_pos=0, checksum=True))
        return encode_body_event(body, timestamp=1, server_id=1, log_pos=master.pos, checksum=True)

    def gtid_txn(seq: int, domain: int = 0) -> list[bytes]:
        return [event(MariaGtid(seq_no=seq, domain_id=domain, flags2=0x08)),
                event(Query(db="d", query=f"INSERT INTO t VALUES ({seq})")), event(Xid(seq))]

    reads = [([*master.transaction(1), *gtid_txn(2), *gtid_txn(3, 5)], (2, 8))]
    ddl = [event(MariaGtid(seq_no=4, domain_id=0, flags2=1)), event(Query(db="d", query="CREATE TABLE u (a INT)"))]
    split = gtid_txn(5)
    reads += [(ddl + split[:1], (1,)), (split[1:], (1,))]
    reads += [([encode_body_event(Heartbeat(BINLOG), timestamp=0, server_id=1, log_pos=master.pos, checksum=True),
                *master.transaction(6)], (3,))]
    rotate = event(Rotate(4, next_binlog))
    fd = encode_body_event(FormatDescription(server_version="10.11.99-fake-log"), timestamp=1, server_id=1,
                           log_pos=0, checksum=True)
    master.pos = 4 + len(fd)
    reads += [([rotate, event(Rotate(4, next_binlog), artificial=True), fd, *gtid_txn(7), *gtid_txn(8)], (5, 8))]
    return reads


async def test_both_event_paths_write_the_same_relay_log_and_send_the_same_acks(tmp_path, monkeypatch):
    """One mixed dump (BEGIN/COMMIT and MariaDB GTID transactions, a standalone GTID's DDL,
    heartbeats, the master's ROTATE to its next file, reads split anywhere) through the IO
    task on the other event path too (this test's own path is the fixture's): the relay log's
    files byte for byte, the journal of fsyncs and acks, and the positions are the same."""
    built = eventscan._eventscan
    if built is None:
        pytest.skip("only one event path: protocol._eventscan was not built")
    compiled = built.scan
    next_binlog = "master-bin.000002"

    async def replicate(master: FakeMaster, journal: list) -> None:
        for events, flagged in mixed_dump(master, next_binlog):
            master.send(events, flagged)
            await asyncio.sleep(0.15)
        await settle(journal, 12)

    outcomes = []
    for path in ("runs", "per-event"):
        monkeypatch.setattr(eventscan, "scan", compiled if path == "runs" else None)
        keep: dict = {}
        where = tmp_path / path
        where.mkdir()
        journal, master = await run_io(where, 1, replicate, keep)
        task = keep["task"]
        # each file after its header (the magic and our FORMAT_DESCRIPTION, stamped with the time)
        files = {p.name: p.read_bytes()[4 + decode_header(p.read_bytes(), 4).event_size:]
                 for p in sorted(where.glob("relay-bin.0*"))}
        outcomes.append((journal, files, task.read_position, task.resume, str(task.io_pos), task.boundary_offset,
                         task.acks_sent))
    runs, per_event = outcomes
    assert sorted(runs[1]) == ["relay-bin.000001", "relay-bin.000002"] and all(runs[1].values())
    assert [kind for kind, _ in runs[0]].count("ack") >= 5
    assert runs[0][-1] == ("ack", BinlogPosition(next_binlog, master.pos))
    assert runs == per_event


async def test_a_relay_fsync_that_fails_sends_no_ack(tmp_path, monkeypatch):
    """The relay log's fsync fails (EBADF, on either syncer: the lane's Python thread, or the
    compiled thread that would write the ack itself right after a good fsync): no ack leaves,
    and the task stops with 1595 as on any I/O error of the relay log."""
    from binlog.writer import BinlogWriter

    outcome: dict = {}
    real = BinlogWriter.sync_begin

    def broken(self):
        pending = real(self)
        return None if pending is None else (999_999, pending[1])  # no such descriptor

    async def replicate(master: FakeMaster, journal: list) -> None:
        master.send(master.transaction(1), flagged=(2,))
        await settle(journal, 2)
        outcome["first"] = list(journal)
        monkeypatch.setattr(BinlogWriter, "sync_begin", broken)
        master.send(master.transaction(2), flagged=(2,))
        await asyncio.sleep(0.5)

    journal, master = await run_io(tmp_path, 1, replicate, keep=outcome)
    assert [kind for kind, _ in outcome["first"]] == ["fsync", "ack"]
    assert [kind for kind, _ in journal].count("ack") == 1  # the first transaction's only
    assert outcome["task"].last_errno == 1595
    assert outcome["task"].acks_sent == 1
