"""A stock MariaDB 10.11 replica against a mini master built from `protocol.connection` alone.

The mini master answers the replica's connect-time queries and replays the binlog events of the
captured semi-sync session (../shared/interop/*.pcap) through `ServerConnection.send_event`,
with the semi-sync header the real master used. The real replica parses our greeting, OK
packets and result sets, verifies the events' CRC32, acks each flagged event, and its SQL thread
applies the rows: the server side of the dump path (framing, headers, ack decoding) against the
real thing. (MariaDB's replica tolerates a master that does not restart the sequence id after an
ack-requested event, so the restart itself is proven byte for byte against the capture in
tests/unit/test_interop_capture_wire.py, not here.)
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from protocol.auth import make_salt, native_password_hash
from protocol.connection import NEED_DATA, ConnectionClosed, SemiSyncAck, ServerConnection
from protocol.errors import ER_ACCESS_DENIED_ERROR, ER_UNKNOWN_COM_ERROR, ProtocolError
from protocol.messages import (
    ERR,
    OK,
    ColumnDefinition,
    ComBinlogDump,
    ComQuery,
    ComQuit,
    ComRegisterSlave,
    HandshakeResponse,
    ResultSet,
    column,
)
from protocol.position import BinlogPosition
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.net import free_port
from tests.support.pcap import mysql_packets

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs mariadb-server (make test installs it)"),
]

CAPTURE = Path(__file__).resolve().parents[3] / "shared" / "interop" / "mariadb-semisync-replica-connect.pcap"
BINLOG = "master-bin.000001"
START = 462
STORED = native_password_hash("replpw")
HEARTBEAT = 27


def captured_stream() -> tuple[list[tuple[bytes, bytes]], dict[str, ResultSet]]:
    """(header, event) of every captured event packet, and the captured result sets by query."""
    packets = mysql_packets(CAPTURE)
    events = [(p.payload[1:3], p.payload[3:]) for p in packets if p.direction == "S->C" and p.payload[:2] == b"\x00\xef"]
    answers: dict[str, ResultSet] = {}
    query = None
    reply: list[bytes] = []
    for p in packets[3:]:
        if p.direction == "C->S":
            if query is not None and len(reply) > 1:
                count = reply[0][0]
                cols = [ColumnDefinition.decode(r) for r in reply[1 : 1 + count]]
                rows = [tuple(v.decode() for v in _row_values(r, count)) for r in reply[2 + count : -1]]
                answers[query] = ResultSet(cols, rows)
            query = p.payload[1:].decode() if p.payload[0] == 3 else None
            reply = []
        else:
            reply.append(p.payload)
    return events, answers


def _row_values(payload: bytes, count: int) -> list[bytes]:
    out, pos = [], 0
    for _ in range(count):
        n = payload[pos]
        out.append(payload[pos + 1 : pos + 1 + n])
        pos += 1 + n
    return out


class MiniMaster:
    def __init__(self) -> None:
        self.port = free_port()
        self.events, self.answers = captured_stream()
        self.queries: list[str] = []
        self.acks: list[BinlogPosition] = []
        self.dumps: list[ComBinlogDump] = []
        self.registered: list[ComRegisterSlave] = []
        self.protocol_errors: list[str] = []
        self.all_acked = asyncio.Event()
        self._acked = asyncio.Event()

    def answer(self, sql: str):
        if sql in self.answers:
            return self.answers[sql]
        if sql.upper().startswith("SET "):
            return OK()
        if sql == "SELECT UNIX_TIMESTAMP()":
            return ResultSet([column("UNIX_TIMESTAMP()")], [(str(int(time.time())),)])
        return ERR.from_error(ER_UNKNOWN_COM_ERROR)

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = ServerConnection(23, "5.5.5-10.11.19-MariaDB-mini-master-log", make_salt(os.urandom(20)))
        writer.write(conn.greeting())
        dump_task = None
        try:
            while True:
                try:
                    event = conn.next_event()
                except ProtocolError as exc:
                    self.protocol_errors.append(str(exc))
                    return
                if event is NEED_DATA:
                    data = await reader.read(65536)
                    conn.receive_data(data)
                    continue
                if isinstance(event, ConnectionClosed | ComQuit):
                    return
                if isinstance(event, HandshakeResponse):
                    if event.user != "repl" or not conn.verify_password(STORED):
                        writer.write(conn.send(ERR.from_error(ER_ACCESS_DENIED_ERROR, event.user, "localhost", "YES")))
                        return
                    writer.write(conn.send(OK()))
                elif isinstance(event, ComQuery):
                    self.queries.append(event.sql)
                    writer.write(conn.send(self.answer(event.sql)))
                elif isinstance(event, ComRegisterSlave):
                    self.registered.append(event)
                    writer.write(conn.send(OK()))
                elif isinstance(event, ComBinlogDump):
                    self.dumps.append(event)
                    conn.start_dump(semisync=True)
                    dump_task = asyncio.create_task(self.dump(conn, writer))
                elif isinstance(event, SemiSyncAck):
                    self.acks.append(event.position)
                    self._acked.set()
                else:
                    writer.write(conn.send(ERR.from_error(ER_UNKNOWN_COM_ERROR)))
                await writer.drain()
        finally:
            if dump_task is not None:
                dump_task.cancel()
            writer.close()

    async def dump(self, conn: ServerConnection, writer: asyncio.StreamWriter) -> None:
        """Replay the captured events; after each flagged one, wait for its ack (AFTER_SYNC)."""
        flagged = 0
        for header, event in self.events:
            if event[4] == HEARTBEAT:
                await asyncio.sleep(0.2)
            self._acked = asyncio.Event()
            writer.write(conn.send_event(event, header))
            await writer.drain()
            if header == b"\xef\x01":
                flagged += 1
                await asyncio.wait_for(self._acked.wait(), 20)
        if flagged == len(self.acks):
            self.all_acked.set()
        await asyncio.sleep(3600)  # keep the dump open: no more events


@pytest.fixture
def replica(tmp_path):
    server = MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None, extra=["--rpl-semi-sync-slave-enabled=ON"])
    server.start()
    yield server
    server.stop()


async def test_stock_replica_replicates_from_a_server_connection(replica):
    master = MiniMaster()
    listener = await asyncio.start_server(master.serve, "127.0.0.1", master.port)
    try:
        await asyncio.to_thread(replica.execute_all, [
            "CREATE DATABASE sbtest",
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
            f"MASTER_PASSWORD='replpw', MASTER_LOG_FILE='{BINLOG}', MASTER_LOG_POS={START}, "
            "MASTER_USE_GTID=no, MASTER_HEARTBEAT_PERIOD=1",
            "START SLAVE",
        ])
        await asyncio.wait_for(master.all_acked.wait(), 60)
        status = {}
        for _ in range(100):
            conn = await asyncio.to_thread(replica.connect)
            try:
                with conn.cursor() as cur:
                    cur.execute("SHOW SLAVE STATUS")
                    status = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
            finally:
                conn.close()
            if status["Exec_Master_Log_Pos"] == 1595:
                break
            await asyncio.sleep(0.1)
        rows = await asyncio.to_thread(replica.query, "SELECT COUNT(*) FROM sbtest.hs_probe")
        semi = await asyncio.to_thread(replica.status, "Rpl_semi_sync_slave_status")
    finally:
        await asyncio.to_thread(replica.execute_all, ["STOP SLAVE"])
        listener.close()
        await listener.wait_closed()
    assert master.protocol_errors == []
    assert master.dumps[0] == ComBinlogDump(START, 0, 2, BINLOG)
    assert master.registered[0].server_id == 2
    assert master.acks == [BinlogPosition(BINLOG, pos) for pos in (668, 925, 1182, 1595)]
    assert status["Slave_IO_Running"] == "Yes", status
    assert status["Last_IO_Errno"] == 0 and status["Last_SQL_Errno"] == 0, status
    assert status["Read_Master_Log_Pos"] == 1595 and status["Exec_Master_Log_Pos"] == 1595
    assert rows[0][0] > 0
    assert semi["Rpl_semi_sync_slave_status"] == "ON"
