"""Semi-sync (issue #4) on the master daemon, with stock MariaDB 10.11 replicas as the slaves."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import mariadb_available
from tests.support.master import make_repl_user, start_replica, wait_caught_up
from tests.support.master import start_master as start_master_daemon

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SEMI_SYNC_SLAVE = ("--rpl-semi-sync-slave-enabled=ON",)
WAITING = "Waiting for semi-sync ACK from slave"


def start_master(tmp_path, *options: str) -> Daemon:
    """A master with the repl user and table ss.t made before semi-sync is enabled (SET GLOBAL)."""
    master = start_master_daemon(tmp_path, *options)
    make_repl_user(master)
    create_table(master)
    return master


def status(daemon, name: str) -> str:
    return daemon.status(name)[name]


def counters(daemon: Daemon) -> dict[str, str]:
    return daemon.status("Rpl_semi_sync_master_%")


def inserts_counted(master: Daemon, values: Iterable[int]) -> dict[str, int]:
    """Insert each value into ss.t (one autocommit transaction each); the change of the master's
    yes_tx, no_tx and tx_waits meanwhile."""
    before = counters(master)
    conn = master.connect()
    with conn.cursor() as cur:
        for v in values:
            cur.execute(f"INSERT INTO ss.t (v) VALUES ({v})")
    conn.close()
    after = counters(master)
    return {k: int(after[f"Rpl_semi_sync_master_{k}"]) - int(before[f"Rpl_semi_sync_master_{k}"])
            for k in ("yes_tx", "no_tx", "tx_waits")}


def timed_insert(daemon: Daemon, sql: str) -> float:
    started = time.monotonic()
    daemon.query(sql)
    return time.monotonic() - started


def create_table(master: Daemon) -> None:
    master.query("CREATE DATABASE ss")
    master.query("CREATE TABLE ss.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")


def test_semi_sync_replica_acks_every_commit(tmp_path):
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=10000")
    replica = None
    try:
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        enable(master)
        wait_for(lambda: status(master, "Rpl_semi_sync_master_clients") == "1", 30, message="a semi-sync client")
        wait_caught_up(master, replica)
        assert status(master, "Rpl_semi_sync_master_status") == "ON"
        delta = inserts_counted(master, range(200))
        assert delta["yes_tx"] == 200 and delta["no_tx"] == 0 and delta["tx_waits"] > 0
        assert replica.status("Rpl_semi_sync_slave_status")["Rpl_semi_sync_slave_status"] == "ON"
        # the acks the MariaDB replica counts sending, the master counts receiving
        sent = replica.status("Rpl_semi_sync_slave_send_ack")["Rpl_semi_sync_slave_send_ack"]
        wait_for(lambda: status(master, "Rpl_semi_sync_master_get_ack") == sent, 10, message="the acks received")
        assert int(sent) >= 200 and int(status(master, "Rpl_semi_sync_master_request_ack")) >= int(sent)
        hosts = master.query("SELECT SERVER_ID, ACKED_LOG_FILE, ACKED_LOG_POS FROM information_schema.RPL_SEMI_SYNC_SLAVES")
        assert hosts[0][0] == 2 and hosts[0][1] == "mysql-bin.000001" and hosts[0][2] > 0  # its latest ack
        wait_caught_up(master, replica)
        assert replica.query("SELECT COUNT(*), SUM(v) FROM ss.t") == master.query("SELECT COUNT(*), SUM(v) FROM ss.t")
        # KILL of the dump session: one client less; the replica reconnects at once: one more
        # (had the old dump not decremented the count, it would read 2)
        dump_id = dump_session_id(master)
        master.query(f"KILL {dump_id}")
        wait_for(lambda: dump_session_id(master) not in (None, dump_id), 30, message="the replica's reconnect")
        wait_for(lambda: status(master, "Rpl_semi_sync_master_clients") == "1", 10, message="one client")
        time.sleep(0.3)
        assert status(master, "Rpl_semi_sync_master_clients") == "1"
        # MySQL's rpl_semi_sync scenario: 300 inserts after the reconnect, every one acked
        delta = inserts_counted(master, range(-1, -301, -1))
        assert delta["yes_tx"] == 300 and delta["no_tx"] == 0
        assert status(master, "Rpl_semi_sync_master_status") == "ON"
        # RESET MASTER zeroes the counters (the replica is stopped first: its position is gone)
        replica.query("STOP SLAVE")
        master.query("RESET MASTER")
        after_reset = counters(master)
        for name in ("yes_tx", "no_tx", "no_times", "tx_waits", "net_waits"):
            assert after_reset[f"Rpl_semi_sync_master_{name}"] == "0", name
        assert master.query("SHOW BINARY LOGS")[0][0] == "mysql-bin.000001"
    finally:
        if replica is not None:
            replica.stop()
        master.stop()


def test_timeout_without_slave_switches_off_then_a_replica_switches_it_on(tmp_path):
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=500")
    replica = None
    try:
        enable(master)
        assert status(master, "Rpl_semi_sync_master_status") == "ON"
        first = timed_insert(master, "INSERT INTO ss.t (v) VALUES (1)")
        st = counters(master)
        assert st["Rpl_semi_sync_master_status"] == "OFF"
        assert st["Rpl_semi_sync_master_no_times"] == "1"
        assert st["Rpl_semi_sync_master_no_tx"] == "1"
        assert first >= 0.5
        waits_before = st["Rpl_semi_sync_master_tx_waits"]
        for i in range(5):
            master.query(f"INSERT INTO ss.t (v) VALUES ({i})")
        st = counters(master)
        # with the status OFF no commit waits for an ack: none counted as a wait, none timed out
        assert st["Rpl_semi_sync_master_tx_waits"] == waits_before
        assert st["Rpl_semi_sync_master_no_tx"] == "6"
        assert st["Rpl_semi_sync_master_no_times"] == "1"
        # a semi-sync replica connects and catches up: the next commit switches it ON again
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        wait_caught_up(master, replica)

        def switched_on():
            master.query("INSERT INTO ss.t (v) VALUES (7)")
            return status(master, "Rpl_semi_sync_master_status") == "ON"

        wait_for(switched_on, 20, interval=0.2, message="semi-sync back ON")
        yes = int(status(master, "Rpl_semi_sync_master_yes_tx"))
        master.query("INSERT INTO ss.t (v) VALUES (8)")
        assert int(status(master, "Rpl_semi_sync_master_yes_tx")) == yes + 1
    finally:
        if replica is not None:
            replica.stop()
        master.stop()


def dump_session_id(master: Daemon) -> int | None:
    return next((row[0] for row in master.query("SHOW PROCESSLIST") if row[4] == "Binlog Dump"), None)


def enable(master: Daemon) -> None:
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")


def _commit_in_thread(daemon: Daemon, sql: str) -> tuple[threading.Thread, dict]:
    result: dict = {}

    def run():
        started = time.monotonic()
        try:
            daemon.query(sql)
            result["ok"] = True
        except Exception as exc:  # reported by the test
            result["error"] = exc
        result["elapsed"] = time.monotonic() - started

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, result


def _waiting_in_processlist(master: Daemon) -> bool:
    return any(row[6] == WAITING for row in master.query("SHOW PROCESSLIST"))


@pytest.mark.parametrize("wait_point", ["AFTER_SYNC", "AFTER_COMMIT"])
def test_wait_point_visibility(tmp_path, wait_point):
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=30000",
                          f"--rpl-semi-sync-master-wait-point={wait_point}")
    replica = None
    try:
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        wait_caught_up(master, replica)
        enable(master)
        master.query("INSERT INTO ss.t (v) VALUES (0)")
        assert status(master, "Rpl_semi_sync_master_status") == "ON"
        replica.query("STOP SLAVE IO_THREAD")
        wait_for(lambda: status(master, "Rpl_semi_sync_master_clients") == "0", 10, message="the replica gone")
        thread, result = _commit_in_thread(master, "INSERT INTO ss.t (v) VALUES (42)")
        wait_for(lambda: _waiting_in_processlist(master), 10, message="a session waiting for the ack")
        visible = master.query("SELECT COUNT(*) FROM ss.t WHERE v = 42")[0][0]
        assert visible == (0 if wait_point == "AFTER_SYNC" else 1)
        assert thread.is_alive()
        replica.query("START SLAVE IO_THREAD")
        thread.join(30)
        assert result.get("ok"), result
        assert result["elapsed"] < 25
        assert master.query("SELECT COUNT(*) FROM ss.t WHERE v = 42")[0][0] == 1
        assert status(master, "Rpl_semi_sync_master_status") == "ON"
        assert status(master, "Rpl_semi_sync_master_no_tx") == "0"
    finally:
        if replica is not None:
            replica.stop()
        master.stop()


def test_wait_for_slave_count_lowered_releases_the_waiting_commit(tmp_path):
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=30000")
    replica = None
    try:
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        wait_caught_up(master, replica)
        enable(master)
        master.query("INSERT INTO ss.t (v) VALUES (1)")
        master.query("SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 2")
        thread, result = _commit_in_thread(master, "INSERT INTO ss.t (v) VALUES (2)")
        wait_for(lambda: _waiting_in_processlist(master), 10, message="a commit waiting for 2 acks")
        time.sleep(0.5)
        assert thread.is_alive()
        released_at = time.monotonic()
        master.query("SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 1")
        thread.join(10)
        assert result.get("ok"), result
        assert time.monotonic() - released_at < 2
        st = counters(master)
        assert st["Rpl_semi_sync_master_status"] == "ON" and st["Rpl_semi_sync_master_no_tx"] == "0"
    finally:
        if replica is not None:
            replica.stop()
        master.stop()


def test_uninstall_and_install_under_load(tmp_path):
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=1000")
    replica = None
    stop = threading.Event()
    done: list[int] = []
    errors: list[Exception] = []
    slowest = [0.0]

    def load():
        conn = master.connect()
        i = 0
        with conn.cursor() as cur:
            while not stop.is_set():
                started = time.monotonic()
                try:
                    cur.execute(f"INSERT INTO ss.t (v) VALUES ({i})")
                    done.append(i)
                except Exception as exc:
                    errors.append(exc)
                slowest[0] = max(slowest[0], time.monotonic() - started)
                i += 1
        conn.close()

    try:
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        wait_caught_up(master, replica)
        enable(master)
        workers = [threading.Thread(target=load, daemon=True) for _ in range(3)]
        for w in workers:
            w.start()
        time.sleep(0.3)
        for value in ("OFF", "ON", "OFF", "ON"):  # enable/disable on the fly under load
            master.query(f"SET GLOBAL rpl_semi_sync_master_enabled = {value}")
            time.sleep(0.15)
        master.query("UNINSTALL PLUGIN rpl_semi_sync_master")
        with pytest.raises(pymysql.err.OperationalError) as exc:
            master.query("SELECT @@global.rpl_semi_sync_master_enabled")
        assert exc.value.args[0] == 1193
        assert master.query("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'") == []
        time.sleep(0.5)
        master.query("INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        time.sleep(0.5)
        master.query("UNINSTALL PLUGIN rpl_semi_sync_master")
        master.query("INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
        time.sleep(0.5)
        stop.set()
        for w in workers:
            w.join(30)
            assert not w.is_alive(), "a commit hung"
        assert errors == []
        assert len(done) > 10
        assert slowest[0] < 5, slowest
        assert master.query("SELECT COUNT(*) FROM ss.t")[0][0] == len(done)
        wait_caught_up(master, replica)
        assert replica.query("SELECT COUNT(*), SUM(v) FROM ss.t") == master.query("SELECT COUNT(*), SUM(v) FROM ss.t")
    finally:
        stop.set()
        if replica is not None:
            replica.stop()
        master.stop()


@pytest.mark.slow
def test_sysbench_under_semi_sync_every_commit_acked(tmp_path):
    import re
    import shutil
    import subprocess

    if shutil.which("sysbench") is None:
        pytest.skip("sysbench not installed")
    master = start_master(tmp_path, "--rpl-semi-sync-master-timeout=10000")
    replica = None
    try:
        master.query("CREATE DATABASE sbtest")
        replica = start_replica(tmp_path, master, extra=SEMI_SYNC_SLAVE)
        wait_caught_up(master, replica)
        enable(master)
        base = ["sysbench", "oltp_insert", "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={master.port}",
                "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", "--tables=1", "--table-size=1000",
                "--db-ps-mode=disable", "--threads=4"]
        assert subprocess.run([*base, "prepare"], capture_output=True, timeout=60).returncode == 0
        before = counters(master)
        run = subprocess.run([*base, "--time=5", "run"], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stdout + run.stderr
        assert re.search(r"ignored errors:\s+0\s", run.stdout), run.stdout
        done = int(re.search(r"transactions:\s+(\d+)", run.stdout).group(1))
        after = counters(master)
        assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) >= done
        assert after["Rpl_semi_sync_master_no_tx"] == "0" and after["Rpl_semi_sync_master_status"] == "ON"
        wait_caught_up(master, replica)
        assert replica.query("SELECT COUNT(*), SUM(k) FROM sbtest.sbtest1") == \
            master.query("SELECT COUNT(*), SUM(k) FROM sbtest.sbtest1")
    finally:
        if replica is not None:
            replica.stop()
        master.stop()
