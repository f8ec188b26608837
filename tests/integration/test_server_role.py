"""The Role seam (server/role.py) seen from a client: claimed statements, the read-only guard
before the engine, role variables and status, user statements handed to the role as MariaDB
binlogs them, and a command that takes the connection over (raw reader + write)."""

from __future__ import annotations

import struct

import pymysql
import pytest

from protocol.auth import password_text_hash
from protocol.messages import OK, ComBinlogDump, ComRegisterSlave, ResultSet, column
from server.role import NullRole
from server.variables import Scope, SystemVariable, check_int
from tests.support.server_shell import ShellServer


class RecordingRole(NullRole):
    CLAIMS = frozenset({"SHOW MASTER", "PING"})

    def __init__(self):
        super().__init__()
        self.read_only = False
        self.user_changes: list[str] = []
        self.taken_over: list[bytes] = []

    def system_variables(self):
        return [SystemVariable("role_knob", 5, Scope.GLOBAL, dynamic=True, check=check_int(1, 9))]

    def status_variables(self):
        return {"Role_counter": 7}

    async def execute(self, session, sql, keyword):
        if keyword == "SHOW MASTER":
            return ResultSet((column("File"), column("Position")), (("bin.000001", 4),))
        return None  # PING falls through (to the engine's syntax error)

    async def after_user_change(self, session, statement):
        self.user_changes.append(statement)

    async def handle_command(self, session, cmd):
        if isinstance(cmd, ComRegisterSlave):
            session.write(session.conn.send(OK(status=session.status_flags())))
            return True
        if isinstance(cmd, ComBinlogDump):
            session.set_command("Binlog Dump")

            def received(data: bytes) -> None:
                self.taken_over.append(data)
                session.write(b"\x03\x00\x00\x01" + b"got")  # a raw packet back

            session.set_raw_reader(received)
            session.write(b"\x06\x00\x00\x01\x00start")
            return True
        return False


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("role"), role=RecordingRole) as s:
        yield s


def code(cur, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql)
    return e.value.args[0]


def test_claimed_statement_and_role_variables(shell):
    cur = shell.connect().cursor()
    cur.execute("show master status")
    assert cur.fetchall() == (("bin.000001", "4"),)
    assert code(cur, "PING ROLE") == 1064
    cur.execute("SET GLOBAL role_knob = 8")
    cur.execute("SELECT @@role_knob")
    assert cur.fetchone() == (8,)
    assert code(cur, "SET GLOBAL role_knob = 'x'") == 1232
    cur.execute("SHOW GLOBAL STATUS LIKE 'role_%'")
    assert cur.fetchall() == (("Role_counter", "7"),)


def test_read_only_role_refuses_writes_before_the_engine(shell):
    """A client without READ_ONLY ADMIN is refused every write; root (ALL PRIVILEGES, hence
    READ_ONLY ADMIN) writes past read_only, as on MariaDB 10.11."""
    cur = shell.connect(autocommit=True).cursor()
    cur.execute("CREATE DATABASE ro")
    cur.execute("CREATE TABLE ro.t (id INT PRIMARY KEY)")
    cur.execute("INSERT INTO ro.t VALUES (1)")
    cur.execute("CREATE USER 'ro_client'@'%' IDENTIFIED BY 'pw'")
    cur.execute("GRANT ALL ON ro.* TO 'ro_client'@'%'")
    client = shell.connect("ro_client", "pw", autocommit=True).cursor()
    cur.execute("SET GLOBAL read_only = ON")
    assert shell.server.role.read_only is True
    try:
        for sql in ("INSERT INTO ro.t VALUES (2)", "UPDATE ro.t SET id = 3", "DELETE FROM ro.t",
                    "CREATE TABLE ro.u (id INT)", "DROP TABLE ro.t", "DROP DATABASE ro"):
            assert code(client, sql) == 1290
        client.execute("SELECT id FROM ro.t")
        assert client.fetchall() == ((1,),)
        client.execute("SELECT @@read_only")
        assert client.fetchone() == (1,)
        cur.execute("INSERT INTO ro.t VALUES (5)")  # READ_ONLY ADMIN
    finally:
        cur.execute("SET GLOBAL read_only = OFF")
    client.execute("INSERT INTO ro.t VALUES (4)")
    client.execute("SELECT id FROM ro.t ORDER BY id")
    assert client.fetchall() == ((1,), (4,), (5,))


def test_user_statements_reach_the_role_as_mariadb_binlogs_them(shell):
    role = shell.server.role
    role.user_changes.clear()
    cur = shell.connect().cursor()
    cur.execute("CREATE USER 'r2'@'%' IDENTIFIED BY 'pw2'")
    cur.execute("GRANT REPLICATION SLAVE ON *.* TO 'r2'@'%'")
    cur.execute("DROP USER 'r2'@'%'")
    create, grant, drop = role.user_changes
    assert create == f"CREATE USER 'r2'@'%' IDENTIFIED BY PASSWORD '{password_text_hash('pw2')}'"
    assert grant.startswith("GRANT REPLICATION SLAVE ON *.* TO `r2`@`%`") and "pw2" not in grant
    assert drop == "DROP USER 'r2'@'%'"
    # the slave's applier replays them without a client
    shell.call(shell.server.apply_user_statement(create))
    assert shell.server.users.get("r2", "%") is not None
    shell.connect("r2", "pw2").close()
    shell.call(shell.server.apply_user_statement(drop))
    assert shell.server.users.get("r2", "%") is None


def test_replication_commands_need_the_privilege_and_may_take_the_connection_over(shell):
    cur = shell.connect().cursor()
    cur.execute("CREATE USER 'nopriv'@'%' IDENTIFIED BY 'n'")
    weak = shell.connect("nopriv", "n")
    weak._execute_command(0x15, ComRegisterSlave(2, port=3307).encode()[1:])
    with pytest.raises(pymysql.MySQLError) as e:
        weak._read_ok_packet()
    assert e.value.args[0] == 1227
    cur.execute("GRANT REPLICATION SLAVE ON *.* TO 'nopriv'@'%'")
    repl = shell.connect("nopriv", "n")
    repl._execute_command(0x15, ComRegisterSlave(2, port=3307).encode()[1:])
    repl._read_ok_packet()
    repl._execute_command(0x12, ComBinlogDump(4, 0, 2, "bin.000001").encode()[1:])
    sock = repl._sock
    sock.settimeout(10)

    def read_packet():
        head = sock.recv(4, 0x100)  # MSG_WAITALL
        length = struct.unpack("<I", head[:3] + b"\x00")[0]
        return sock.recv(length, 0x100) if length else b""

    assert read_packet() == b"\x00start"
    sock.sendall(b"\x02\x00\x00\x00hi")
    assert read_packet() == b"got"
    assert shell.server.role.taken_over[-1] == b"\x02\x00\x00\x00hi"
    cur.execute("SHOW PROCESSLIST")
    commands = {r[0]: r[4] for r in cur.fetchall()}
    assert commands[repl.thread_id()] == "Binlog Dump"
    cur.execute(f"KILL {repl.thread_id()}")
    assert sock.recv(10) == b""  # closed by KILL


class SlowRole(NullRole):
    CLAIMS = frozenset({"SLOW"})

    async def execute(self, session, sql, keyword):
        import asyncio

        await asyncio.sleep(float(sql.split()[1]))
        return ResultSet((column("done"),), (("yes",),))


def test_shutdown_drains_in_flight_statements_within_the_deadline(tmp_path):
    import threading
    import time

    shell = ShellServer(tmp_path, role=SlowRole).start()
    idle = shell.connect()
    busy = shell.connect()
    stuck = shell.connect()
    results: dict[str, object] = {}

    def run(name, conn, sql):
        try:
            cur = conn.cursor()
            cur.execute(sql)
            results[name] = cur.fetchall()
        except pymysql.MySQLError as exc:
            results[name] = exc.args[0]

    threads = [threading.Thread(target=run, args=("busy", busy, "SLOW 1")),
               threading.Thread(target=run, args=("stuck", stuck, "SLOW 60"))]
    for t in threads:
        t.start()
    time.sleep(0.3)
    port = shell.port
    started = time.monotonic()
    shell.stop(timeout=3)
    assert time.monotonic() - started < 30
    for t in threads:
        t.join(30)
    assert results["busy"] == (("yes",),)  # finished inside the deadline
    assert results["stuck"] in (2013, 2006)  # cut at the deadline
    with pytest.raises(pymysql.MySQLError):
        idle.cursor().execute("SELECT 1")
    with pytest.raises(pymysql.MySQLError):
        pymysql.connect(host="127.0.0.1", port=port, user="root", password="rootpw", connect_timeout=2)


def test_shutdown_statement_and_mysqladmin_request_the_daemon_to_stop(tmp_path):
    import shutil
    import subprocess

    with ShellServer(tmp_path) as shell:
        cur = shell.connect().cursor()
        cur.execute("CREATE USER 'op'@'%' IDENTIFIED BY 'o'")
        assert code(shell.connect("op", "o").cursor(), "SHUTDOWN") == 1227
        assert not shell.server.shutdown_requested
        cur.execute("SHUTDOWN")
        assert shell.server.shutdown_requested
    mysqladmin = shutil.which("mariadb-admin") or shutil.which("mysqladmin")
    if mysqladmin is None:
        return
    with ShellServer(tmp_path / "again") as shell:
        out = subprocess.run([mysqladmin, "-h127.0.0.1", f"-P{shell.port}", "-uroot", "-prootpw", "shutdown"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert shell.server.shutdown_requested


def test_kill_query_interrupts_a_role_statement_and_keeps_the_connection(tmp_path):
    import threading
    import time

    with ShellServer(tmp_path, role=SlowRole) as shell:
        victim = shell.connect()
        result: dict[str, object] = {}

        def run():
            started = time.monotonic()
            try:
                victim.cursor().execute("SLOW 60")
                result["code"] = 0
            except pymysql.MySQLError as exc:
                result["code"] = exc.args[0]
            result["took"] = time.monotonic() - started

        t = threading.Thread(target=run)
        t.start()
        time.sleep(0.5)
        shell.connect().cursor().execute(f"KILL QUERY {victim.thread_id()}")
        t.join(30)
        assert result["code"] == 1317 and result["took"] < 20
        cur = victim.cursor()
        cur.execute("SELECT 1")  # the connection is still there
        assert cur.fetchone() == (1,)
        cur.execute("SLOW 0")
        assert cur.fetchone() == ("yes",)
