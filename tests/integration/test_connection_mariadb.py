"""Our sans-IO ClientConnection against a stock MariaDB 10.11 server (the real peer): login with
mysql_native_password, result sets with NULL, ERR codes, 16 MiB+ packets both directions, and a
semi-sync binlog dump whose acks the real master accepts (Rpl_semi_sync_master_yes_tx counts
them) across the master's sequence-id restart after every ack-requested event.
"""

from __future__ import annotations

import socket
import struct
import threading

import pytest

from protocol.connection import (
    DEFAULT_CLIENT_CAPABILITIES,
    NEED_DATA,
    BinlogPacket,
    ClientConnection,
    ConnectionClosed,
    LoginOK,
)
from protocol.messages import ERR, OK, Capability, ResultSet
from protocol.position import BinlogPosition
from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs mariadb-server (make test installs it)"),
]

HEARTBEAT = 27
EVENT_TYPE_OFFSET = 4
LOG_POS_OFFSET = 13


class Link:
    """A blocking socket around a ClientConnection (this test's whole I/O shell)."""

    def __init__(self, port: int, user: str, password: str, capabilities: int = DEFAULT_CLIENT_CAPABILITIES) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.conn = ClientConnection(
            user, password, attributes={"_client_name": "semisync-test"}, capabilities=capabilities
        )

    def next_event(self):
        while True:
            event = self.conn.next_event()
            out = self.conn.data_to_send()
            if out:
                self.sock.sendall(out)
            if event is not NEED_DATA:
                return event
            self.conn.receive_data(self.sock.recv(1 << 20))

    def roundtrip(self, wire: bytes):
        self.sock.sendall(wire)
        return self.next_event()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    server = MariaDBServer(
        tmp_path_factory.mktemp("mariadb-client-test"),
        binlog_format="ROW",
        extra=[
            "--rpl-semi-sync-master-timeout=5000",
            "--max-allowed-packet=64M",
        ],
    )
    server.start()
    server.execute_all([
        "CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'",
        "GRANT REPLICATION SLAVE, SELECT ON *.* TO 'repl'@'%'",
        "CREATE DATABASE shop",
        "CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20))",
    ])
    yield server
    server.stop()


@pytest.mark.parametrize("deprecate_eof", [False, True])
def test_login_query_null_and_errors(master, deprecate_eof):
    caps = DEFAULT_CLIENT_CAPABILITIES | (Capability.CLIENT_DEPRECATE_EOF if deprecate_eof else 0)
    link = Link(master.port, "repl", "replpw", caps)
    try:
        login = link.next_event()
        assert isinstance(login, LoginOK)
        assert bool(login.capabilities & Capability.CLIENT_DEPRECATE_EOF) == deprecate_eof
        assert "MariaDB" in login.handshake.server_version
        rs = link.roundtrip(link.conn.query("SELECT 1 AS a, NULL AS b, 'x' AS c"))
        assert isinstance(rs, ResultSet)
        assert [c.name for c in rs.columns] == ["a", "b", "c"]
        assert rs.rows == (("1", None, "x"),)
        err = link.roundtrip(link.conn.query("SELECT * FROM shop.missing"))
        assert err == ERR(1146, "42S02", "Table 'shop.missing' doesn't exist")
        ok = link.roundtrip(link.conn.query("SET @x = 1"))
        assert isinstance(ok, OK)
        assert isinstance(link.roundtrip(link.conn.ping()), OK)
    finally:
        link.close()
    wrong = Link(master.port, "repl", "nope")
    try:
        err = wrong.next_event()
        assert isinstance(err, ERR) and err.code == 1045 and err.sqlstate == "28000"
        assert isinstance(wrong.next_event(), ConnectionClosed)
    finally:
        wrong.close()


def test_packets_over_16mib_both_directions(master):
    link = Link(master.port, "repl", "replpw")
    try:
        assert isinstance(link.next_event(), LoginOK)
        big = "x" * ((1 << 24) + 1000)
        rs = link.roundtrip(link.conn.query(f"SELECT '{big}' AS big, LENGTH('{big}') AS n"))
        assert isinstance(rs, ResultSet)
        assert rs.rows[0][1] == str(len(big))
        assert rs.rows[0][0] == big
    finally:
        link.close()


def test_semisync_dump_acks_accepted_by_the_real_master(master):
    master.execute_all(["SET GLOBAL rpl_semi_sync_master_enabled = ON"])
    before = master.status("Rpl_semi_sync_master_%_tx")
    link = Link(master.port, "repl", "replpw")
    try:
        assert isinstance(link.next_event(), LoginOK)
        for sql in (
            "SET @master_binlog_checksum = @@global.binlog_checksum",
            "SET @master_heartbeat_period = 200000000",
            "SET @mariadb_slave_capability = 4",
            "SET @rpl_semi_sync_slave = 1",
        ):
            assert isinstance(link.roundtrip(link.conn.query(sql)), OK), sql
        assert isinstance(link.roundtrip(link.conn.register_slave(4242, port=3999)), OK)
        file, pos = master.query("SHOW MASTER STATUS")[0][:2]
        link.sock.sendall(link.conn.binlog_dump(pos, 0, 4242, file, semisync=True))

        def write_rows():
            master.execute_all(["INSERT INTO shop.t VALUES (1, 'a')", "INSERT INTO shop.t VALUES (2, NULL)"])

        writer = threading.Thread(target=write_rows)
        writer.start()
        flagged = 0
        heartbeats_after_ack = 0
        while heartbeats_after_ack < 2:
            event = link.next_event()
            assert isinstance(event, BinlogPacket), event
            header, body = event.payload[:2], event.payload[2:]
            assert header in (b"\xef\x00", b"\xef\x01")
            if header == b"\xef\x01":
                flagged += 1
                log_pos = struct.unpack_from("<I", body, LOG_POS_OFFSET)[0]
                link.sock.sendall(link.conn.ack(BinlogPosition(file, log_pos)))
            elif body[EVENT_TYPE_OFFSET] == HEARTBEAT and flagged >= 2:
                heartbeats_after_ack += 1
        writer.join(30)
        assert not writer.is_alive()
    finally:
        link.close()
    assert flagged == 2
    after = master.status("Rpl_semi_sync_master_%_tx")
    # Both transactions waited for our acks and got them (none fell back to async).
    assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) == 2
    assert after["Rpl_semi_sync_master_no_tx"] == before["Rpl_semi_sync_master_no_tx"]
