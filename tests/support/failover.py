"""Helpers for the failover tests: a MariaDB server set up as every server of a semi-sync
topology is (both semi-sync sides available, GTID strict mode, log_slave_updates), attaching a
replica by GTID, running `semisync failover|switchover`, and a writer that records which commits
were acknowledged."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pymysql

from tests.support.mariadb import MariaDBServer
from tests.support.slave_daemon import connect, query, wait_until

ROOT = Path(__file__).resolve().parents[2]
REPL_USER, REPL_PASSWORD = "repl", "replpw"


def semisync_mariadb(basedir: Path, server_id: int, *, master: bool) -> MariaDBServer:
    """A MariaDB 10.11 server as MariaDB's semi-sync failover setups run it: both semi-sync
    sides on (the master side only acts on a master), AFTER_SYNC, GTID strict mode, binlog with
    log_slave_updates; replicas start read-only."""
    return MariaDBServer(
        basedir, server_id=server_id, binlog_format="ROW",
        extra=[
            "--rpl-semi-sync-master-enabled=" + ("ON" if master else "OFF"),
            "--rpl-semi-sync-slave-enabled=ON",
            "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
            "--rpl-semi-sync-master-timeout=30000",
            "--gtid-strict-mode=ON",
            "--log-slave-updates=ON",
            "--read-only=" + ("OFF" if master else "ON"),
        ],
    ).start()


def prepare_master(port: int) -> None:
    """The replication account and the table the writers fill, on a semi-sync master that no
    replica follows yet: written with semi-sync off, then on again (with
    rpl_semi_sync_master_wait_no_slave, MariaDB's and ours by default, the first commit would
    wait out the whole rpl_semi_sync_master_timeout for a slave that cannot be there yet). The
    replicas attached next get these by GTID from the binlog."""
    for sql in (
        "SET GLOBAL rpl_semi_sync_master_enabled = OFF",
        f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
        f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'",
        "CREATE DATABASE d",
        "CREATE TABLE d.acked (id INT PRIMARY KEY)",
        "SET GLOBAL rpl_semi_sync_master_enabled = ON",
    ):
        query(port, sql)


def ids(port: int) -> set[int]:
    """The ids in d.acked."""
    return {row[0] for row in query(port, "SELECT id FROM d.acked")}


def attach(replica_port: int, master_port: int) -> None:
    """CHANGE MASTER TO the master by GTID (slave_pos), START SLAVE; a lost master retried every
    second (MariaDB's default MASTER_CONNECT_RETRY is 60 s: a replica of a restarted server
    would wait that long)."""
    conn = connect(replica_port)
    try:
        with conn.cursor() as cur:
            cur.execute(
                f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master_port}, "
                f"MASTER_USER='{REPL_USER}', MASTER_PASSWORD='{REPL_PASSWORD}', MASTER_USE_GTID=slave_pos, "
                "MASTER_CONNECT_RETRY=1")
            cur.execute("START SLAVE")
    finally:
        conn.close()


def value(port: int, sql: str):
    rows = query(port, sql)
    return rows[0][0] if rows else None


def slave_row(port: int) -> dict | None:
    """The default connection's row of SHOW ALL SLAVES STATUS, None when there is none."""
    conn = connect(port, cursorclass=pymysql.cursors.DictCursor)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW ALL SLAVES STATUS")
            rows = [r for r in cur.fetchall() if not r.get("Connection_name")]
            return rows[0] if rows else None
    finally:
        conn.close()


def run_tool(*args: str, timeout: float = 180.0) -> subprocess.CompletedProcess[str]:
    """`semisync ARGS...` from this worktree; output captured."""
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def servers_arg(*ports: int) -> str:
    return ",".join(f"127.0.0.1:{p}" for p in ports)


class Writer(threading.Thread):
    """Autocommit INSERTs into d.acked on one server until stopped or the server fails; `acked`
    holds the ids whose COMMIT returned OK (semi-sync: acknowledged by a replica)."""

    def __init__(self, port: int, start_id: int = 1) -> None:
        super().__init__(daemon=True)
        self.port, self.next_id = port, start_id
        self.acked: list[int] = []
        self.stopped = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            conn = connect(self.port)
            with conn.cursor() as cur:
                while not self.stopped.is_set():
                    cur.execute(f"INSERT INTO d.acked VALUES ({self.next_id})")
                    self.acked.append(self.next_id)
                    self.next_id += 1
        except BaseException as exc:  # the master died under the writer: expected
            self.error = exc

    def wait_acked(self, n: int, timeout: float = 60.0) -> None:
        wait_until(lambda: len(self.acked) >= n or self.error, timeout, what=f"{n} acknowledged commits")
