"""Our master with two of our slaves, semi-sync on both sides, all three as real processes.

- 500 mixed transactions: both slaves' tables equal the master's; the master counts 2 semi-sync
  clients, yes_tx +500, no_tx +0.
- wait_for_slave_count=2 and one slave SIGSTOPped: commits time out and the master's semi-sync
  status goes OFF; SIGCONT: the slave catches up and the status returns ON.
- KILL of a slave's dump session on the master: the slave reconnects within master_connect_retry.
"""

from __future__ import annotations

import signal
import subprocess
import time
from functools import partial

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import normalized_rows, slave_status, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="the fixtures' clients need Debian's MariaDB packages"),
]

CONNECT_RETRY = 2.0


def start_master(tmp_path, timeout_ms: int, *extra: str) -> Daemon:
    master = Daemon("master", tmp_path / "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON",
        f"--rpl-semi-sync-master-timeout={timeout_ms}", *extra,
    ]).start()
    # written before any slave follows: semi-sync off, then on again (with wait_no_slave the first
    # commit would wait out the whole timeout for a slave that is not there yet)
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
    master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
    master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
    master.query("CREATE DATABASE app")
    master.query("CREATE TABLE app.accounts (id INT AUTO_INCREMENT PRIMARY KEY, owner VARCHAR(40), "
                 "balance DECIMAL(12,2) NOT NULL DEFAULT 0, touched INT NOT NULL DEFAULT 0)")
    master.query("CREATE TABLE app.journal (id INT AUTO_INCREMENT PRIMARY KEY, account INT, amount INT, note TEXT)")
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    return master


def start_slave(tmp_path, name: str, server_id: int, master: Daemon) -> Daemon:
    return Daemon("slave", tmp_path / name, [
        f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
        "--master-user=repl", "--master-password=replpw", "--rpl-semi-sync-slave-enabled=ON",
        f"--master-connect-retry={CONNECT_RETRY:g}", "--master-heartbeat-period=0.5",
    ]).start()


def clients(master: Daemon) -> int:
    return int(master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"])


def master_status(master: Daemon) -> str:
    return master.status("Rpl_semi_sync_master_status")["Rpl_semi_sync_master_status"]


def caught_up(master: Daemon, slave: Daemon) -> bool:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    st = slave_status(slave.port)
    return st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == int(pos)


def mixed_transactions(master: Daemon, count: int, start: int = 0) -> None:
    """`count` transactions: inserts, multi-statement transfers, updates, deletes, rollbacks
    (a ROLLBACK is not a transaction for the binlog, so it is done in addition)."""
    conn = master.connect()
    with conn.cursor() as cur:
        for i in range(start, start + count):
            kind = i % 5
            if kind == 0:
                cur.execute(f"INSERT INTO app.accounts (owner, balance) VALUES ('owner {i}', {i}.50)")
            elif kind == 1:
                cur.execute("BEGIN")
                cur.execute(f"UPDATE app.accounts SET balance = balance - 1, touched = touched + 1 WHERE id = {i // 5 + 1}")
                cur.execute(f"INSERT INTO app.journal (account, amount, note) VALUES ({i // 5 + 1}, -1, 'transfer {i}')")
                cur.execute("COMMIT")
            elif kind == 2:
                cur.execute(f"UPDATE app.accounts SET owner = CONCAT(owner, '*') WHERE id % 7 = {i % 7}")
            elif kind == 3:
                cur.execute(f"INSERT INTO app.journal (account, amount, note) VALUES ({i}, {i}, NULL)")
                cur.execute("BEGIN")
                cur.execute("INSERT INTO app.journal (account, amount) VALUES (-1, -1)")
                cur.execute("ROLLBACK")
            else:
                cur.execute(f"DELETE FROM app.journal WHERE id = {i // 2}")
    conn.close()


def same_tables(master: Daemon, slave: Daemon) -> None:
    for table in ("accounts", "journal"):
        assert normalized_rows(slave.query(f"SELECT * FROM app.{table}")) == normalized_rows(
            master.query(f"SELECT * FROM app.{table}")
        ), table


def converged(master: Daemon, slaves: list[Daemon], what: str, timeout: float = 30.0) -> None:
    """Every slave applied everything the master has, and has the master's tables."""
    for s in slaves:
        wait_until(partial(caught_up, master, s), timeout=timeout, what=what)
        same_tables(master, s)


def dump_sessions(master: Daemon) -> list[int]:
    return [row[0] for row in master.query("SHOW PROCESSLIST") if row[4] == "Binlog Dump"]


def test_two_slaves_500_transactions_and_kill_of_a_dump_session(tmp_path):
    master = start_master(tmp_path, 10000)
    slaves: list[Daemon] = []
    try:
        slaves = [start_slave(tmp_path, "slave1", 11, master), start_slave(tmp_path, "slave2", 12, master)]
        wait_until(lambda: clients(master) == 2, what="two semi-sync clients")
        for s in slaves:
            wait_until(partial(caught_up, master, s), what="slaves caught up with the DDL")
        before = master.status("Rpl_semi_sync_master_%")
        mixed_transactions(master, 500)
        after = master.status("Rpl_semi_sync_master_%")
        assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) == 500
        assert int(after["Rpl_semi_sync_master_no_tx"]) - int(before["Rpl_semi_sync_master_no_tx"]) == 0
        assert clients(master) == 2
        converged(master, slaves, "slave applied the 500 transactions", timeout=60)
        for s in slaves:
            st = slave_status(s.port)
            assert st["Slave_IO_Running"] == "Yes" and st["Slave_SQL_Running"] == "Yes"
            assert s.status("Rpl_semi_sync_slave_status")["Rpl_semi_sync_slave_status"] == "ON"
        # every ack a slave sent the master received, each answering events sent asking for one
        sent = lambda: [int(s.status("Rpl_semi_sync_slave_send_ack")["Rpl_semi_sync_slave_send_ack"])  # noqa: E731
                        for s in slaves]
        got = lambda: int(master.status("Rpl_semi_sync_master_get_ack")["Rpl_semi_sync_master_get_ack"])  # noqa: E731
        wait_until(lambda: sum(sent()) == got(), what="the acks sent received")
        requested = int(master.status("Rpl_semi_sync_master_request_ack")["Rpl_semi_sync_master_request_ack"])
        assert all(n > 0 for n in sent()) and 500 <= got() <= requested

        # KILL slave1's dump session: it reconnects within master_connect_retry.
        old = set(dump_sessions(master))
        assert len(old) == 2
        victim = max(old)
        killed_at = time.monotonic()
        master.query(f"KILL {victim}")
        new = wait_until(lambda: set(dump_sessions(master)) - old, timeout=CONNECT_RETRY + 10, interval=0.05,
                         what="a new dump session")
        assert new and time.monotonic() - killed_at <= CONNECT_RETRY + 1.0
        wait_until(lambda: clients(master) == 2, what="two semi-sync clients again")
        mixed_transactions(master, 10, start=500)
        assert master_status(master) == "ON"
        converged(master, slaves, "caught up after the reconnect")
    finally:
        for s in slaves:
            s.stop()
        master.stop()


def test_wait_for_two_slaves_sigstop_one_then_sigcont(tmp_path):
    master = start_master(tmp_path, 1000, "--rpl-semi-sync-master-wait-for-slave-count=2")
    slaves: list[Daemon] = []
    try:
        slaves = [start_slave(tmp_path, "slave1", 21, master), start_slave(tmp_path, "slave2", 22, master)]
        wait_until(lambda: clients(master) == 2, what="two semi-sync clients")
        for s in slaves:
            wait_until(partial(caught_up, master, s), what="slaves caught up")
        mixed_transactions(master, 5)
        assert master_status(master) == "ON"

        stopped = slaves[1]
        stopped.signal(signal.SIGSTOP)
        before = master.status("Rpl_semi_sync_master_%")
        started = time.monotonic()
        master.query("INSERT INTO app.journal (account, amount, note) VALUES (1, 1, 'waits for the timeout')")
        waited = time.monotonic() - started
        assert waited >= 0.9  # rpl_semi_sync_master_timeout = 1000 ms
        assert master_status(master) == "OFF"
        after = master.status("Rpl_semi_sync_master_%")
        assert int(after["Rpl_semi_sync_master_no_tx"]) > int(before["Rpl_semi_sync_master_no_tx"])
        mixed_transactions(master, 20, start=5)  # asynchronous now: no waiting
        assert master_status(master) == "OFF"

        stopped.signal(signal.SIGCONT)
        wait_until(lambda: caught_up(master, stopped), timeout=60, what="the stopped slave catches up")
        mixed_transactions(master, 1, start=25)
        wait_until(lambda: master_status(master) == "ON", timeout=30, what="semi-sync back ON")
        converged(master, slaves, "caught up")
    finally:
        for s in slaves:
            s.stop()
        master.stop()


def test_idle_master_heartbeats_and_relay_log_read_by_mysqlbinlog(tmp_path):
    """Period 0.2 s: about 5 heartbeats per second, the relay log does not change; the relay log
    is a binlog v4 file that MariaDB's mysqlbinlog reads."""
    master = start_master(tmp_path, 10000)
    slave = None
    try:
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=31", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--rpl-semi-sync-slave-enabled=ON",
            "--master-heartbeat-period=0.2",
        ]).start()
        wait_until(lambda: caught_up(master, slave), what="caught up")
        relay = sorted((tmp_path / "slave").glob("relay-bin.0*"))
        sizes = [p.stat().st_size for p in relay]
        start = int(slave.status("Slave_received_heartbeats")["Slave_received_heartbeats"])
        t0 = time.monotonic()
        time.sleep(3.0)
        got = int(slave.status("Slave_received_heartbeats")["Slave_received_heartbeats"]) - start
        elapsed = time.monotonic() - t0
        assert 0.6 * 5 * elapsed <= got <= 1.4 * 5 * elapsed + 1, got
        assert [p.stat().st_size for p in sorted((tmp_path / "slave").glob("relay-bin.0*"))] == sizes
        decoded = subprocess.run(["mysqlbinlog", str(relay[-1])], capture_output=True, text=True, timeout=60)
        assert decoded.returncode == 0, decoded.stderr
        assert "Rotate to mysql-bin.000001" in decoded.stdout
        assert "CREATE TABLE app.journal" in decoded.stdout
    finally:
        if slave is not None:
            slave.stop()
        master.stop()
