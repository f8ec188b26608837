"""The master daemon under faults: kill -9 during a concurrent workload, and bad input on its port
(garbage, an oversized packet, a dump without privilege, a dump from a purged file, PURGE of a
file a dump still reads). After each, the daemon keeps serving everyone else."""

from __future__ import annotations

import re
import socket
import subprocess
import threading
import time
from collections import Counter

import pymysql
import pytest

from protocol.connection import NEED_DATA, BinlogPacket, ClientConnection, LoginOK
from protocol.messages import ERR
from tests.support.daemons import Daemon, wait_for
from tests.support.master import master_fixture, start_master  # noqa: F401 (the `master` fixture)

pytestmark = pytest.mark.timeout(240)


class RawClient:
    """A blocking client on the sans-IO ClientConnection, for what PyMySQL cannot send."""

    def __init__(self, port: int, user: str = "root", password: str = "") -> None:
        self.conn = ClientConnection(user, password)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        login = self.next()
        assert isinstance(login, LoginOK), login

    def next(self):
        while True:
            event = self.conn.next_event()
            out = self.conn.data_to_send()  # the login, answered by the connection itself
            if out:
                self.sock.sendall(out)
            if event is not NEED_DATA:
                return event
            if not out:
                self.conn.receive_data(self.sock.recv(1 << 16))

    def send(self, wire: bytes):
        self.sock.sendall(wire)
        return self.next()

    def close(self) -> None:
        self.sock.close()


def binlog_statements(daemon: Daemon, pattern: str) -> list[str]:
    """The statements of committed (XID-terminated) transactions matching `pattern`, in order."""
    found: list[str] = []
    for name, _ in daemon.query("SHOW BINARY LOGS"):
        pending: list[str] = []
        for _log, _pos, kind, _sid, _end, info in daemon.query(f"SHOW BINLOG EVENTS IN '{name}'"):
            if kind == "Query" and info != "BEGIN":
                pending.append(info)
            elif kind == "Xid":
                found += [q for q in pending if re.search(pattern, q)]
                pending = []
    return found


@pytest.mark.slow
def test_kill_9_during_a_concurrent_workload_then_restart(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    master.query("CREATE DATABASE crash")
    master.query("CREATE TABLE crash.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))")
    acked: list[str] = []
    attempted: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def worker(n: int) -> None:
        try:
            conn = master.connect()
        except pymysql.err.MySQLError:
            return
        cur = conn.cursor()
        i = 0
        while not stop.is_set():
            value = f"w{n}-{i}"
            i += 1
            with lock:
                attempted.append(value)
            try:
                if i % 3 == 0:  # some multi-statement transactions too
                    conn.begin()
                    cur.execute(f"INSERT INTO crash.t (v) VALUES ('{value}')")
                    cur.execute(f"INSERT INTO crash.t (v) VALUES ('{value}b')")
                    with lock:
                        attempted.append(value + "b")
                    conn.commit()
                    with lock:
                        acked.extend([value, value + "b"])
                else:
                    cur.execute(f"INSERT INTO crash.t (v) VALUES ('{value}')")
                    with lock:
                        acked.append(value)
            except pymysql.err.MySQLError:
                return

    workers = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(4)]
    for w in workers:
        w.start()
    time.sleep(2.0)
    master.kill9()
    stop.set()
    for w in workers:
        w.join(10)
    assert len(acked) > 20
    master.start()
    try:
        rows = [r[0] for r in master.query("SELECT v FROM crash.t")]
        counts = Counter(rows)
        assert not [v for v, n in counts.items() if n > 1], "a transaction is in the engine twice"
        assert set(acked) <= set(rows), f"{len(set(acked) - set(rows))} acknowledged commits lost"
        assert set(rows) <= set(attempted), "rows nobody inserted"
        # the binlog holds exactly the engine's transactions, each once
        logged = [re.search(r"VALUES \('([^']+)'\)", q).group(1)
                  for q in binlog_statements(master, r"^INSERT INTO crash\.t")]
        assert Counter(logged) == counts
        # a new binlog file was started after the recovery, and mysqlbinlog reads all of them
        files = [tmp_path / "master" / name for name, _ in master.query("SHOW BINARY LOGS")]
        assert len(files) >= 2
        out = subprocess.run(["mysqlbinlog", "--no-defaults", *map(str, files)], capture_output=True, timeout=60)
        assert out.returncode == 0, out.stderr.decode()
        # and the master goes on committing
        master.query("INSERT INTO crash.t (v) VALUES ('after')")
        assert master.query("SELECT COUNT(*) FROM crash.t WHERE v = 'after'") == [(1,)]
    finally:
        master.stop()


def test_garbage_on_the_port(master):
    with socket.create_connection(("127.0.0.1", master.port), timeout=5) as s:
        s.recv(1 << 16)  # the greeting
        s.sendall(b"\x05\x00\x00\x01GET / HTTP/1.1\r\n\r\n" + bytes(range(256)) * 4)
        data = b""
        try:
            while chunk := s.recv(1 << 16):
                data += chunk
        except OSError:
            pass
        assert data[4:5] == b"\xff" and int.from_bytes(data[5:7], "little") == 1043  # Bad handshake
    with socket.create_connection(("127.0.0.1", master.port), timeout=5) as s:
        s.sendall(b"\xff" * 64)  # before even reading the greeting: the start of a 16 MiB packet
        s.settimeout(1)
        try:
            while s.recv(1 << 16):
                pass
        except OSError:
            pass
    assert master.query("SELECT 1") == [(1,)]


def test_oversized_packet_gets_1153(master):
    conn = master.connect()
    with pytest.raises(pymysql.err.MySQLError) as exc:
        with conn.cursor() as cur:
            cur.execute("SELECT '" + "x" * (65 << 20) + "'")
    assert exc.value.args[0] in (1153, 2006, 2013)  # ERR 1153, or the closed connection
    assert master.query("SELECT 1") == [(1,)]


def test_dump_without_privilege_gets_1227_and_wrong_password_1045(master):
    master.query("CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
    client = RawClient(master.port, "plain", "pw")
    reply = client.send(client.conn.binlog_dump(4, 0, 77, "mysql-bin.000001"))
    assert isinstance(reply, ERR) and reply.code == 1227
    client.close()
    with pytest.raises(pymysql.err.OperationalError) as exc:
        pymysql.connect(host="127.0.0.1", port=master.port, user="plain", password="nope", connect_timeout=5)
    assert exc.value.args[0] == 1045
    assert master.query("SELECT 1") == [(1,)]


def test_dump_from_a_purged_file_gets_1236_and_purge_refuses_a_file_in_use(master):
    master.query("CREATE DATABASE big")
    master.query("CREATE TABLE big.t (id INT PRIMARY KEY, v TEXT)")
    conn = master.connect()
    with conn.cursor() as cur:
        for i in range(120):  # several MB in mysql-bin.000001, more than the socket buffers hold
            cur.execute("INSERT INTO big.t VALUES (%s, %s)", (i, "y" * 60000))
    conn.close()
    master.query("FLUSH BINARY LOGS")
    master.query("FLUSH BINARY LOGS")
    # a slave that requests the dump and never reads: its dump stays inside mysql-bin.000001
    stalled = RawClient(master.port)
    stalled.sock.sendall(stalled.conn.binlog_dump(4, 0, 91, "mysql-bin.000001"))
    wait_for(lambda: any(row[4] == "Binlog Dump" for row in master.query("SHOW PROCESSLIST")), 10,
             message="the stalled dump")
    with pytest.raises(pymysql.err.MySQLError) as exc:
        master.query("PURGE BINARY LOGS TO 'mysql-bin.000003'")
    assert exc.value.args[0] == 1378
    stalled.close()

    def purged() -> bool:
        try:
            master.query("PURGE BINARY LOGS TO 'mysql-bin.000003'")
            return True
        except pymysql.err.MySQLError as e:
            assert e.args[0] == 1378
            return False

    wait_for(purged, 10, message="PURGE once the dump is gone")
    assert [r[0] for r in master.query("SHOW BINARY LOGS")] == ["mysql-bin.000003"]
    client = RawClient(master.port)
    reply = client.send(client.conn.binlog_dump(4, 0, 92, "mysql-bin.000001"))
    assert isinstance(reply, ERR) and reply.code == 1236
    assert "Could not find first log file name in binary log index file" in reply.message
    client.close()
    # a dump at a position inside an event
    client = RawClient(master.port)
    reply = client.send(client.conn.binlog_dump(5, 0, 93, "mysql-bin.000003"))
    assert isinstance(reply, ERR) and reply.code == 1236
    client.close()
    # and a good one still works: ROTATE, FORMAT_DESCRIPTION ...
    client = RawClient(master.port)
    first = client.send(client.conn.binlog_dump(4, 0, 94, "mysql-bin.000003"))
    assert isinstance(first, BinlogPacket) and first.payload[4] == 4
    client.close()
    assert master.query("SELECT COUNT(*) FROM big.t") == [(120,)]


def test_sigterm_lets_a_commit_waiting_for_acks_finish_then_closes_the_binlog(tmp_path):
    from binlog.reader import iter_events, scan_file
    from protocol.events import LOG_EVENT_BINLOG_IN_USE_F, decode_header

    master = start_master(tmp_path, "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=3000")
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
    master.query("CREATE DATABASE down")
    master.query("CREATE TABLE down.t (id INT PRIMARY KEY)")
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    result: dict = {}

    def commit():
        try:
            master.query("INSERT INTO down.t VALUES (1)")  # no slave: waits for the timeout
            result["ok"] = True
        except Exception as exc:
            result["error"] = exc

    thread = threading.Thread(target=commit, daemon=True)
    thread.start()
    wait_for(lambda: any(row[6] == "Waiting for semi-sync ACK from slave" for row in master.query("SHOW PROCESSLIST")),
             10, message="the commit waiting for an ack")
    started = time.monotonic()
    assert master.stop() == 0
    assert time.monotonic() - started < 10
    thread.join(5)
    # no slave acked it: in doubt, never OK (ER_SERVER_SHUTDOWN, as Percona's PS-9916)
    assert not result.get("ok") and result["error"].args[0] == 1053, result
    path = tmp_path / "master" / "mysql-bin.000001"
    assert scan_file(path).clean
    fd = decode_header(next(iter(iter_events(path)))[1])
    assert not fd.flags & LOG_EVENT_BINLOG_IN_USE_F  # closed cleanly
    master.start()
    try:
        assert master.query("SELECT id FROM down.t") == [(1,)]
    finally:
        master.stop()


def test_a_second_dump_with_the_same_server_id_replaces_the_first(master):
    first = RawClient(master.port)
    assert isinstance(first.send(first.conn.binlog_dump(4, 0, 55, "mysql-bin.000001")), BinlogPacket)
    second = RawClient(master.port)
    assert isinstance(second.send(second.conn.binlog_dump(4, 0, 55, "mysql-bin.000001")), BinlogPacket)
    first.sock.settimeout(5)
    data = b""
    try:
        while chunk := first.sock.recv(1 << 16):  # drained, then closed by the master
            data += chunk
    except OSError:
        pass
    dumps = [row for row in master.query("SHOW PROCESSLIST") if row[4] == "Binlog Dump"]
    assert len(dumps) == 1
    second.close()
    first.close()


@pytest.mark.mariadb
def test_a_damaged_binlog_ends_the_dump_with_1236_and_the_position_on_a_mariadb_replica(master, tmp_path):
    """A CRC32 mismatch in the middle of the master's binlog: a stock MariaDB replica reading it
    stops its IO thread with 1236 and mysqld's words and coordinates; the master keeps serving."""
    from binlog.reader import iter_events
    from tests.support.mariadb import mariadb_available
    from tests.support.master import make_repl_user, slave_status, start_replica

    if not mariadb_available():
        pytest.skip("mariadb-server not installed")
    make_repl_user(master)
    master.query("CREATE DATABASE dmg")
    master.query("CREATE TABLE dmg.t (id INT PRIMARY KEY)")
    for i in range(10):
        master.query(f"INSERT INTO dmg.t VALUES ({i})")
    path = master.datadir / "mysql-bin.000001"
    events = list(iter_events(path))
    offset, event = events[len(events) // 2]
    with open(path, "r+b") as f:  # one bit of an event's body: its CRC32 no longer matches
        f.seek(offset + 20)
        f.write(bytes([event[20] ^ 0x01]))
    replica = start_replica(tmp_path, master)
    try:
        st = wait_for(lambda: (s := slave_status(replica)).get("Last_IO_Errno") and s, 60, message="the IO error")
        assert st["Last_IO_Errno"] == 1236, st
        assert st["Last_IO_Error"] == (
            "Got fatal error 1236 from master when reading data from binary log: 'event read from binlog "
            f"did not pass crc check; the first event 'mysql-bin.000001' at 4, the last event read from "
            f"'mysql-bin.000001' at {offset}, the last byte read from 'mysql-bin.000001' at {offset}.'"
        )
        assert master.query("SELECT COUNT(*) FROM dmg.t") == [(10,)]
        assert "is damaged at offset" in master.tail(200)
    finally:
        replica.stop()
