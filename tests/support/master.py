"""The master daemon in tests: a started `semisync master` child process, and a stock MariaDB
replica attached to it (file/position mode, the `repl` user), as the master's tests use them."""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer


def start_master(tmp_path: Path, *options: str) -> Daemon:
    """`semisync master` on a free port with its datadir in tmp_path/master."""
    return Daemon("master", tmp_path / "master", ["--server-id=1", *options]).start()


@pytest.fixture(name="master")
def master_fixture(tmp_path: Path):
    """`master`: a running master daemon for one test (import `master_fixture` into a module)."""
    daemon = start_master(tmp_path)
    yield daemon
    daemon.stop()


def make_repl_user(master: Daemon, password: str = "replpw") -> None:
    master.query(f"CREATE USER 'repl'@'%' IDENTIFIED BY '{password}'")
    master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")


def slave_status(replica: MariaDBServer) -> dict:
    conn = replica.connect(cursorclass=pymysql.cursors.DictCursor)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE STATUS")
            return cur.fetchone() or {}
    finally:
        conn.close()


def wait_caught_up(master: Daemon, replica: MariaDBServer, timeout: float = 60.0) -> dict:
    def caught_up():
        file, pos = master.query("SHOW MASTER STATUS")[0][:2]
        st = slave_status(replica)
        if st.get("Last_IO_Error") or st.get("Last_SQL_Error"):
            raise AssertionError(f"replica error: IO {st['Last_IO_Error']!r} SQL {st['Last_SQL_Error']!r}")
        if st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == pos:
            return st
        return None

    try:
        return wait_for(caught_up, timeout, message="the MariaDB replica to catch up")
    except TimeoutError:
        raise AssertionError(f"replica did not catch up: {slave_status(replica)}") from None


def start_replica(tmp_path, master: Daemon, *, extra=(), heartbeat: float = 0.2) -> MariaDBServer:
    replica = MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None, extra=extra).start()
    replica.execute_all([
        f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
        f"MASTER_PASSWORD='replpw', MASTER_LOG_FILE='mysql-bin.000001', MASTER_LOG_POS=4, "
        f"MASTER_USE_GTID=no, MASTER_HEARTBEAT_PERIOD={heartbeat}, MASTER_CONNECT_RETRY=1",
        "START SLAVE",
    ])
    return replica
