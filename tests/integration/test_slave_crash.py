"""kill -9 of the slave process during a workload, then restart: it resumes from its relay log
and its crash-safe applier position, and ends with exactly the master's data.

The workload makes a transaction applied twice (or skipped) visible: every transaction adds 1
to a counter row and appends one row to a log table without a key, in the same transaction. A
replay would double a log row and push the counter past the master's; a skip would leave both
short. The master is a stock MariaDB 10.11 or ours, with semi-sync (short timeout, so the
workload goes on while the slave is down).
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.slave_daemon import normalized_rows, slave_status, wait_until

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]


def slave_args(master: MariaDBServer | Daemon) -> list[str]:
    return [
        "--server-id=7", "--master-host=127.0.0.1", f"--master-port={master.port}",
        "--master-user=repl", "--master-password=replpw", "--rpl-semi-sync-slave-enabled=ON",
        "--master-connect-retry=0.5", "--master-heartbeat-period=0.5",
    ]


def start_master(tmp_path, kind: str) -> MariaDBServer | Daemon:
    if kind == "ours":
        return Daemon("master", tmp_path / "master", [
            "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=300",
        ]).start()
    return MariaDBServer(
        tmp_path / "master", binlog_format=kind,
        extra=["--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=300"],
    ).start()


@pytest.mark.parametrize("master_kind", ["STATEMENT", "ROW", "ours"])
def test_kill_9_during_workload_resumes_without_loss_or_repeat(tmp_path, master_kind):
    """MariaDB with binlog_format STATEMENT or ROW, or our own master."""
    master = start_master(tmp_path, master_kind)
    slave = Daemon("slave", tmp_path / "slave", slave_args(master))
    stop = threading.Event()
    done = [0]

    def workload() -> None:
        conn = master.connect()
        with conn.cursor() as cur:
            i = 0
            while not stop.is_set():
                cur.execute("BEGIN")
                cur.execute("UPDATE d.counter SET n = n + 1 WHERE id = 1")
                cur.execute(f"INSERT INTO d.log (k, v) VALUES ({i}, 'row {i}')")
                cur.execute("COMMIT")
                if i % 7 == 0:
                    cur.execute(f"INSERT INTO d.log (k, v) VALUES ({i}, 'autocommit {i}')")
                i += 1
                done[0] = i
        conn.close()

    try:
        for sql in (
            "CREATE USER repl@'%' IDENTIFIED BY 'replpw'",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
            "CREATE DATABASE d",
            "CREATE TABLE d.counter (id INT PRIMARY KEY, n INT NOT NULL)",
            "CREATE TABLE d.log (k INT, v VARCHAR(40))",
            "INSERT INTO d.counter VALUES (1, 0)",
        ):
            master.query(sql)
        slave.start()
        wait_until(lambda: slave_status(slave.port).get("Slave_IO_Running") == "Yes", what="slave IO running")
        writer = threading.Thread(target=workload)
        writer.start()
        for _ in range(2):
            wait_until(lambda: int(slave_status(slave.port).get("Exec_Master_Log_Pos") or 0) > 0, what="applying")
            time.sleep(1.0)
            slave.kill9()
            time.sleep(0.3)
            slave.start()
        time.sleep(1.0)
        stop.set()
        writer.join(30)
        assert done[0] > 20
        file, pos = master.query("SHOW MASTER STATUS")[0][:2]

        def caught_up() -> bool:
            st = slave_status(slave.port)
            return st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == int(pos)

        wait_until(caught_up, timeout=60, what="slave caught up after the crashes")
        st = slave_status(slave.port)
        assert st["Last_SQL_Errno"] == 0, st["Last_SQL_Error"]
        for table in ("counter", "log"):
            assert normalized_rows(slave.query(f"SELECT * FROM d.{table}")) == normalized_rows(
                master.query(f"SELECT * FROM d.{table}")
            ), table
        assert int(slave.query("SELECT n FROM d.counter")[0][0]) == done[0]
    finally:
        stop.set()
        slave.stop()
        master.stop()
