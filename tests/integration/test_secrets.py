"""Issue 13, item 6 against real processes: file modes, passwords kept off the command line,
`max_connect_errors` host blocking (the same scenario run on a stock MariaDB 10.11: the same
answers), the growing delay after failed logins, and COM_REGISTER_SLAVE with the master's own
server_id.

Host blocking exempts 127.0.0.1 and ::1 only (MariaDB's is_ip_loopback), so the "hostile"
client connects from 127.0.0.2, which Linux routes over lo like 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.slave_daemon import slave_status

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's MariaDB packages"),
]

HOSTILE = "127.0.0.2"
ROOT_PW = "r00t-Secret-on-cmdline"
REPL_PW = "repl-Secret-in-file"
WARNING = "[Warning] Using a password on the command line interface can be insecure."


def modes_under(datadir: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(datadir.stat().st_mode)}
    for top, dirs, files in os.walk(datadir):
        for name in dirs + files:
            path = Path(top, name)
            if not path.is_symlink():
                found[str(path.relative_to(datadir))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_private(datadir: Path) -> dict[str, int]:
    modes = modes_under(datadir)
    loose = {name: oct(m) for name, m in modes.items() if m & 0o077}
    assert not loose, loose
    return modes


def cmdline(daemon: Daemon) -> bytes:
    assert daemon.proc is not None
    return Path(f"/proc/{daemon.proc.pid}/cmdline").read_bytes()


def test_file_modes_and_passwords_off_the_command_line(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1", f"--root-password={ROOT_PW}"],
                    root_password=ROOT_PW)
    slave = None
    try:
        master.start()
        master.query("CREATE DATABASE app")
        master.query("CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))")
        master.query("INSERT INTO app.t VALUES (1, 'one')")
        master.query(f"CREATE USER 'repl'@'%' IDENTIFIED BY '{REPL_PW}'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        master.query("UNINSTALL PLUGIN rpl_semi_sync_master")  # writes plugins.json
        master.query("INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
        # the password typed on the command line: warned about, then gone from /proc/PID/cmdline
        assert WARNING in master.log.read_text()
        assert ROOT_PW.encode() not in cmdline(master) and b"--port=" in cmdline(master)
        modes = assert_private(master.datadir)
        assert modes["."] == 0o700
        for name in ("users.json", "plugins.json", "mysql-bin.index", "mysql-bin.000001", "auto.cnf"):
            assert modes[name] == 0o600, (name, oct(modes[name]))
        assert any(name.startswith("db") and m == 0o600 for name, m in modes.items())

        # an older datadir: loose modes are fixed at the next start, each one named in the log
        assert master.stop() == 0
        os.chmod(master.datadir, 0o755)
        for name in ("users.json", "mysql-bin.000001"):
            os.chmod(master.datadir / name, 0o644)
        master.args = [a for a in master.args if not a.startswith("--root-password")]
        master.env["SEMISYNC_ROOT_PASSWORD"] = ROOT_PW  # no warning this time
        before = master.log.read_text()
        master.start()
        log = master.log.read_text()[len(before):]
        assert f"{master.datadir} had mode 0755" in log and "changed to 0700" in log
        assert f"{master.datadir / 'users.json'} had mode 0644" in log
        assert WARNING not in log
        assert_private(master.datadir)

        # the slave: its replication password from a file, root's from the environment
        pw_file = tmp_path / "repl.pw"
        pw_file.write_text(REPL_PW + "\n")
        os.chmod(pw_file, 0o600)
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}", "--master-user=repl",
            f"--master-password-file={pw_file}", "--master-connect-retry=1",
        ], env={"SEMISYNC_ROOT_PASSWORD": ROOT_PW}, root_password=ROOT_PW).start()
        master.query("INSERT INTO app.t VALUES (2, 'two')")
        wait_for(lambda: slave.query("SELECT COUNT(*) FROM app.t") == [(2,)], message="the slave applied both rows")
        assert slave_status(slave.port, password=ROOT_PW)["Slave_IO_Running"] == "Yes"
        assert WARNING not in slave.log.read_text() and REPL_PW.encode() not in cmdline(slave)
        conn = slave.connect()
        try:
            with conn.cursor() as cur:  # CHANGE MASTER TO writes master.info
                for sql in ("STOP SLAVE", "CHANGE MASTER TO MASTER_CONNECT_RETRY=1", "START SLAVE"):
                    cur.execute(sql)
        finally:
            conn.close()
        modes = assert_private(slave.datadir)
        relay_files = [name for name in modes if name.startswith("relay-bin.0")]  # applied ones are purged
        assert relay_files, sorted(modes)
        for name in ("master.info", "relay-bin.index", *relay_files, "users.json"):
            assert modes[name] == 0o600, (name, oct(modes[name]))
    finally:
        if slave is not None:
            slave.stop()
        master.stop()


# --- max_connect_errors -----------------------------------------------------------------------


def bad_handshake(port: int, source: str = HOSTILE) -> None:
    """Connect, read the greeting, go away without logging in: a handshake error."""
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as s:
        s.recv(4096)


def login(port: int, user: str, password: str, source: str = HOSTILE) -> int:
    """0 for a successful login, else the MySQL error number."""
    try:
        pymysql.connect(host="127.0.0.1", port=port, user=user, password=password, connect_timeout=10,
                        bind_address=source).close()
        return 0
    except pymysql.err.MySQLError as exc:
        return exc.args[0]


def aborted(server) -> int:
    return int(dict(server.query("SHOW GLOBAL STATUS LIKE 'Aborted_connects'"))["Aborted_connects"])


def host_blocking_story(server, port: int) -> list[tuple[str, object]]:
    """The same steps on our server and on MariaDB; what each answered, step by step."""
    seen: list[tuple[str, object]] = []

    def handshake_errors(n: int, source: str = HOSTILE) -> None:
        for _ in range(n):
            start = aborted(server)
            bad_handshake(port, source)
            wait_for(lambda start=start: aborted(server) > start, message="the server counted the aborted connect")

    for i in range(5):  # wrong passwords (a different user each: no connection_control delay)
        seen.append((f"wrong password {i}", login(port, f"guess{i}", "nope")))
    seen.append(("good login after 5 wrong passwords", login(port, "app", "apppw")))
    handshake_errors(2)
    seen.append(("good login after 2 handshake errors", login(port, "app", "apppw")))
    handshake_errors(2)
    seen.append(("the good login reset the count", login(port, "app", "apppw")))
    handshake_errors(3)
    try:
        pymysql.connect(host="127.0.0.1", port=port, user="app", password="apppw", bind_address=HOSTILE,
                        connect_timeout=10)
        seen.append(("blocked", None))
    except pymysql.err.MySQLError as exc:
        seen.append(("blocked", tuple(exc.args)))
    handshake_errors(5, source="127.0.0.1")
    seen.append(("127.0.0.1 is never blocked", login(port, "app", "apppw", source="127.0.0.1")))
    server.query("FLUSH HOSTS")
    seen.append(("after FLUSH HOSTS", login(port, "app", "apppw")))
    handshake_errors(3)
    seen.append(("blocked again", login(port, "app", "apppw")))
    subprocess.run(["mariadb-admin", "-h127.0.0.1", f"-P{port}", "-uroot", *server.admin_password, "flush-hosts"],
                   check=True, capture_output=True, timeout=30)
    seen.append(("after mariadb-admin flush-hosts", login(port, "app", "apppw")))
    return seen


def test_max_connect_errors_blocks_and_flush_hosts_unblocks_as_mariadb(tmp_path):
    expected = [
        *[(f"wrong password {i}", 1045) for i in range(5)],
        ("good login after 5 wrong passwords", 0),
        ("good login after 2 handshake errors", 0),
        ("the good login reset the count", 0),
        ("blocked", (1129, f"Host '{HOSTILE}' is blocked because of many connection errors; "
                           "unblock with 'mariadb-admin flush-hosts'")),
        ("127.0.0.1 is never blocked", 0),
        ("after FLUSH HOSTS", 0),
        ("blocked again", 1129),
        ("after mariadb-admin flush-hosts", 0),
    ]
    ours = Daemon("master", tmp_path / "master", ["--server-id=1", "--max-connect-errors=3"]).start()
    try:
        ours.admin_password = []
        ours.query("CREATE USER 'app'@'%' IDENTIFIED BY 'apppw'")
        assert ours.query("SELECT @@global.max_connect_errors") == [(3,)]
        assert host_blocking_story(ours, ours.port) == expected, ours.tail()
    finally:
        ours.stop()
    # MariaDB counts connect errors only with name resolution on (its host cache)
    with MariaDBServer(tmp_path / "mariadb", log_bin=None,
                       extra=["--skip-name-resolve=0", "--max-connect-errors=3"]) as mariadb:
        mariadb.admin_password = []
        mariadb.query("CREATE USER 'app'@'%' IDENTIFIED BY 'apppw'")
        assert host_blocking_story(mariadb, mariadb.port) == expected


# --- growing delays after failed logins ---------------------------------------------------------


def test_failed_logins_are_delayed_for_that_account_only(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        master.query("CREATE USER 'app'@'%' IDENTIFIED BY 'apppw'")
        master.query("SET GLOBAL connection_control_min_connection_delay = 3000")
        master.query("SET GLOBAL connect_timeout = 2")  # shorter than the delay: it must not cut it
        for _ in range(3):  # up to the threshold: answered at once
            assert login(master.port, "app", "wrong") == 1045
        assert master.status("Connection_control_delay_generated") == {"Connection_control_delay_generated": "0"}
        answered: dict[str, float] = {}

        def delayed_attempt() -> None:
            started = time.monotonic()
            answered["code"] = login(master.port, "app", "wrong")
            answered["after"] = time.monotonic() - started
            answered["at"] = time.monotonic()

        guesser = threading.Thread(target=delayed_attempt)
        guesser.start()
        # meanwhile everyone else is served: root, and the same user from another address
        assert master.query("SELECT 1") == [(1,)]
        assert login(master.port, "root", "", source="127.0.0.1") == 0
        others_done = time.monotonic()
        guesser.join(30)
        assert answered["code"] == 1045 and answered["after"] >= 2.9  # min_connection_delay 3000 ms
        assert others_done < answered["at"]
        started = time.monotonic()
        assert login(master.port, "app", "apppw") == 0  # delayed too, then succeeds: the count resets
        assert time.monotonic() - started >= 2.9
        assert login(master.port, "app", "wrong") == 1045  # no delay: the success reset the count
        assert master.status("Connection_control_delay_generated") == {"Connection_control_delay_generated": "2"}
    finally:
        master.stop()


# --- COM_REGISTER_SLAVE with the master's own server_id ------------------------------------------


def register_slave(port: int, server_id: int) -> tuple:
    from protocol.messages import ComRegisterSlave

    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="")
    try:
        conn._execute_command(0x15, ComRegisterSlave(server_id=server_id, port=3307).encode()[1:])
        try:
            conn._read_packet()
            return ("OK",)
        except pymysql.err.MySQLError as exc:
            return tuple(exc.args)
    finally:
        conn.close()


def test_register_slave_with_the_masters_own_server_id_is_refused(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=7"]).start()
    try:
        assert register_slave(master.port, 7) == (
            1593, "Fatal error: master and slave have equal MariaDB server ids; these ids must be "
                  "different for replication to work")
        assert register_slave(master.port, 8) == ("OK",)
        assert "refused COM_REGISTER_SLAVE" in master.log.read_text()
    finally:
        master.stop()
