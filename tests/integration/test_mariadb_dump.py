"""`mariadb-dump` against our master, the way a DBA seeds a new replica: a dump taken with
--master-data --single-transaction while clients keep writing, loaded into a stock MariaDB 10.11,
which then replicates from the coordinates the dump recorded and ends with exactly the master's
rows: nothing twice, nothing missing. That needs FLUSH TABLES WITH READ LOCK to stop commits and
START TRANSACTION WITH CONSISTENT SNAPSHOT to take the read view at that point. Also: the dump
runs with --routines --events --triggers, and a write under the read lock gets 1223.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import rows_or_none
from tests.support.slave_daemon import wait_until

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.skipif(not mariadb_available() or shutil.which("mariadb-dump") is None,
                       reason="needs Debian's mariadb-server and mariadb-client"),
]

TABLES = "SELECT id, v FROM d.t ORDER BY id", "SELECT k, COUNT(*) FROM d.nokey GROUP BY k ORDER BY k"


class _Writer(threading.Thread):
    """A client writing to d.t and d.nokey of `master` until `stop`, in transactions of two
    statements between single-statement ones; `written` counts its rounds."""

    def __init__(self, master: Daemon) -> None:
        super().__init__(daemon=True)
        self.master = master
        self.stop = threading.Event()
        self.written = 0

    def run(self) -> None:
        conn = self.master.connect()
        with conn.cursor() as cur:
            i = 1000
            while not self.stop.is_set():
                cur.execute(f"INSERT INTO d.t (v) VALUES ({i})")
                cur.execute("BEGIN")
                cur.execute(f"INSERT INTO d.nokey VALUES ({i % 50})")
                cur.execute(f"UPDATE d.t SET v = v + 1 WHERE id = {i % 100 + 1}")
                cur.execute("COMMIT")
                i += 1
                self.written = i
        conn.close()


def _writing_master(base) -> tuple[Daemon, _Writer]:
    """Our master with the replication account, d.t's first 100 rows and d.nokey, and a
    `_Writer` under way."""
    master = Daemon("master", base / "master", ["--server-id=1"]).start()
    master.query("CREATE USER repl@'%' IDENTIFIED BY 'replpw'")
    master.query("GRANT REPLICATION SLAVE ON *.* TO repl@'%'")
    master.query("CREATE DATABASE d")
    master.query("CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    master.query("CREATE TABLE d.nokey (k INT)")
    for i in range(100):
        master.query(f"INSERT INTO d.t (v) VALUES ({i})")
    writer = _Writer(master)
    writer.start()
    wait_until(lambda: writer.written > 1100, what="the writer is under way")
    return master, writer


def test_a_replica_seeded_from_a_dump_taken_under_load_replicates_exactly_the_rest(tmp_path):
    replica = None
    master, thread = _writing_master(tmp_path)
    try:

        dump = subprocess.run(
            ["mariadb-dump", "-h127.0.0.1", f"-P{master.port}", "-uroot", "--master-data=2",
             "--single-transaction", "--routines", "--events", "--triggers", "--databases", "d"],
            capture_output=True, text=True, timeout=120,
        )
        assert dump.returncode == 0, dump.stderr
        coordinates = re.search(r"CHANGE MASTER TO MASTER_LOG_FILE='([^']+)', MASTER_LOG_POS=(\d+);", dump.stdout)
        assert coordinates, dump.stdout[:2000]
        at_dump = thread.written
        wait_until(lambda: thread.written > at_dump + 100, what="writes after the dump")
        thread.stop.set()
        thread.join(timeout=30)

        replica = MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None).start()
        load = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{replica.port}", "-uroot"], input=dump.stdout,
                              capture_output=True, text=True, timeout=120)
        assert load.returncode == 0, load.stderr
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
            f"MASTER_PASSWORD='replpw', MASTER_LOG_FILE='{coordinates[1]}', MASTER_LOG_POS={coordinates[2]}, "
            "MASTER_USE_GTID=no",
            "START SLAVE",
        ])

        def replica_has_all() -> bool:
            status = replica.query("SHOW SLAVE STATUS")
            assert status and "Duplicate" not in str(status[0]), status  # a transaction applied twice
            return all(replica.query(q) == master.query(q) for q in TABLES)

        wait_until(replica_has_all, timeout=60, what="the seeded replica has exactly the master's rows")
    finally:
        thread.stop.set()
        if replica is not None:
            replica.stop()
        master.stop()


def test_a_new_slave_of_ours_and_a_new_mariadb_replica_seeded_from_a_master_data_1_dump_reach_the_masters_rows(
        tmp_path):
    """The DBA's workflow: each new replica is pointed at the master first (a CHANGE MASTER naming
    the host forgets the coordinates), then loads a --single-transaction --master-data=1 dump,
    whose CHANGE MASTER sets them, then START SLAVE."""
    master, thread = _writing_master(tmp_path)
    replicas: list = []
    try:
        dump = subprocess.run(
            ["mariadb-dump", "-h127.0.0.1", f"-P{master.port}", "-uroot", "--master-data=1", "--single-transaction",
             "--databases", "d"], capture_output=True, text=True, timeout=120)
        assert dump.returncode == 0, dump.stderr
        assert re.search(r"^CHANGE MASTER TO MASTER_LOG_FILE='[^']+', MASTER_LOG_POS=\d+;$", dump.stdout, re.M)
        at_dump = thread.written
        wait_until(lambda: thread.written > at_dump + 100, what="writes after the dump")
        replicas = [MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None),
                    Daemon("slave", tmp_path / "slave", ["--server-id=3"])]
        for replica in replicas:
            replica.start()
            replica.query(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, "
                          "MASTER_USER='repl', MASTER_PASSWORD='replpw', MASTER_CONNECT_RETRY=1")
            load = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{replica.port}", "-uroot"], input=dump.stdout,
                                  capture_output=True, text=True, timeout=120)
            assert load.returncode == 0, load.stderr
            replica.query("START SLAVE")
        thread.stop.set()
        thread.join(timeout=30)
        for replica in replicas:
            wait_until(lambda r=replica: all(rows_or_none(r, q) == master.query(q) for q in TABLES), timeout=90,
                       what=f"{replica} to reach exactly the master's rows")
    finally:
        thread.stop.set()
        for replica in replicas:
            replica.stop()
        master.stop()


def test_flush_tables_with_read_lock_stops_every_commit_until_unlock(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        master.query("CREATE DATABASE d")
        master.query("CREATE TABLE d.t (id INT PRIMARY KEY)")
        locker = master.connect()
        other = master.connect()
        with locker.cursor() as cur:
            cur.execute("FLUSH TABLES WITH READ LOCK")
            cur.execute("SHOW MASTER STATUS")
            before = cur.fetchone()
            with pytest.raises(pymysql.err.OperationalError) as refused:
                cur.execute("INSERT INTO d.t VALUES (1)")
            assert refused.value.args[0] == 1223
            done = threading.Event()

            def insert() -> None:
                with other.cursor() as c:
                    c.execute("INSERT INTO d.t VALUES (2)")
                done.set()

            threading.Thread(target=insert, daemon=True).start()
            time.sleep(1.0)
            assert not done.is_set()  # waits for the read lock
            cur.execute("SHOW MASTER STATUS")
            assert cur.fetchone() == before  # nothing reached the binlog
            cur.execute("UNLOCK TABLES")
        assert done.wait(10)
        assert master.query("SELECT id FROM d.t") == [(2,)]
        # a session that disconnects holding the lock releases it
        with locker.cursor() as cur:
            cur.execute("FLUSH TABLES WITH READ LOCK")
        locker.close()
        master.query("INSERT INTO d.t VALUES (3)")
        other.close()
    finally:
        master.stop()
