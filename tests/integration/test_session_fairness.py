"""A client that pipelines commands answered without a hop (reads on the engine's loop reader)
does not hold the event loop: its session gives the loop back every YIELD_EVERY commands
(server/session.py, "Fairness"), so another client is answered in between."""

from __future__ import annotations

import asyncio
import socket

import pymysql

from config.master import MasterConfig
from node.main import NodeDaemon
from protocol.packets import encode_packet
from server import session as server_session

PIPELINED = 4000


def _pipeline(port: int) -> None:
    """Log in, send PIPELINED `SELECT id FROM f.t WHERE id = 1` at once, then read every answer."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        sock: socket.socket = conn._sock
        sock.sendall(encode_packet(b"\x03SELECT id FROM f.t WHERE id = 1", 0)[0] * PIPELINED)
        sock.settimeout(60)
        seen = b""
        # each answer ends with an EOF packet carrying SERVER_STATUS_AUTOCOMMIT (fe 00 00 02 00)
        while seen.count(b"\xfe\x00\x00\x02\x00") < 2 * PIPELINED:
            chunk = sock.recv(1 << 20)
            assert chunk, "the server closed the connection"
            seen += chunk
    finally:
        conn._sock.close()


async def test_pipelined_loop_reads_give_the_loop_back(tmp_path, monkeypatch):
    config = MasterConfig(datadir=tmp_path / "m", port=0, bind_address="127.0.0.1")
    daemon = NodeDaemon(config)
    await daemon.start()
    try:
        def setup() -> None:
            conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE f")
                cur.execute("CREATE TABLE f.t (id INT PRIMARY KEY)")
                cur.execute("INSERT INTO f.t VALUES (1)")
            conn.close()

        await asyncio.to_thread(setup)
        # the longest run of commands the session served without the loop running anything else
        # (in its task or in its receive callback)
        served_commands = 0
        real_com_query = server_session.ClientSession._com_query

        async def counted(self, sql):
            nonlocal served_commands
            served_commands += 1
            return await real_com_query(self, sql)

        real_on_receipt = server_session.ClientSession._query_on_receipt

        def counted_on_receipt(self, event):  # answered in the receive callback
            nonlocal served_commands
            answered = real_on_receipt(self, event)
            served_commands += answered
            return answered

        monkeypatch.setattr(server_session.ClientSession, "_com_query", counted)
        monkeypatch.setattr(server_session.ClientSession, "_query_on_receipt", counted_on_receipt)
        loop = asyncio.get_running_loop()

        async def longest_run(yield_every: int) -> int:
            monkeypatch.setattr(server_session, "YIELD_EVERY", yield_every)
            longest, last, stop = 0, served_commands, False

            def tick() -> None:
                nonlocal longest, last
                longest = max(longest, served_commands - last)
                last = served_commands
                if not stop:
                    loop.call_soon(tick)

            loop.call_soon(tick)
            await asyncio.to_thread(_pipeline, daemon.port)
            stop = True
            return longest

        assert await longest_run(16) <= 16
        # the measure can tell: without the yield a run is a whole socket read of commands
        assert await longest_run(10 ** 9) > 100
    finally:
        await daemon.shutdown()
