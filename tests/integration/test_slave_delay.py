"""Delayed replication (CHANGE MASTER TO MASTER_DELAY) on our master and our slave, real
processes, semi-sync on both sides; and CHANGE MASTER TO / SHOW SLAVE STATUS answers against a
stock MariaDB 10.11 replica.

- The delayed slave acks at once: the master's commit is not held (semi-sync stays ON,
  Rpl_semi_sync_master_yes_tx grows), while the row shows on the slave only about MASTER_DELAY
  later; meanwhile SHOW SLAVE STATUS says SQL_Delay, SQL_Remaining_Delay and MariaDB's state.
- STOP SLAVE during the wait returns at once, the transaction not applied; MASTER_DELAY
  survives a restart of the slave daemon, which then applies it.
- MASTER_DELAY's values and errors (1729, 1064, 1198), RESET SLAVE clearing it, the status
  columns' types: the same answers as MariaDB's.

The master stamps events in whole seconds: a commit made early in a second is applied no
sooner than MASTER_DELAY after it (the slave's wait runs from the second it sees the event in,
as MariaDB's); the upper bound allows clock_diff_with_master's own whole second.
"""

from __future__ import annotations

import time

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import answer
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="the fixtures' clients need Debian's MariaDB packages"),
]

DELAY = 3
WAITING = "Waiting until MASTER_DELAY seconds after master executed event"


def yes_tx(master: Daemon) -> int:
    return int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])


def on_slave(slave: Daemon, row_id: int) -> bool:
    return bool(slave.query(f"SELECT COUNT(*) FROM d.t WHERE id = {row_id}")[0][0])


def early_in_a_second() -> None:
    """Sleep to the start of the next second (see the module's note on whole seconds)."""
    time.sleep(1.05 - time.time() % 1)


@pytest.fixture
def pair(tmp_path):
    master = Daemon("master", tmp_path / "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=10000",
    ]).start()
    slave = None
    try:
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        master.query("CREATE DATABASE d")
        master.query("CREATE TABLE d.t (id INT PRIMARY KEY)")
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--rpl-semi-sync-slave-enabled=ON",
            "--master-connect-retry=1", "--master-heartbeat-period=0.5",
        ]).start()
        wait_until(lambda: slave.query("SELECT COUNT(*) FROM information_schema.tables "
                                       "WHERE table_schema = 'd'")[0][0] == 1, what="the table on the slave")
        wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                   what="a semi-sync client")
        yield master, slave
    finally:
        if slave is not None:
            slave.stop()
        master.stop()


def test_a_delayed_slave_acks_at_once_applies_late_stops_promptly_and_keeps_its_delay(pair):
    master, slave = pair
    assert slave_status(slave.port)["SQL_Delay"] == 0
    slave.query("STOP SLAVE")
    slave.query(f"CHANGE MASTER TO MASTER_DELAY = {DELAY}")
    slave.query("START SLAVE")
    # (the SQL thread may wait a moment already: the master's binlog events, its GTID_LIST
    # among them, are delayed like any other)
    assert slave_status(slave.port)["SQL_Delay"] == DELAY
    wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
               what="the slave's semi-sync connection again")

    before = yes_tx(master)
    early_in_a_second()
    started = time.monotonic()
    master.query("INSERT INTO d.t VALUES (1)")
    committed = time.monotonic() - started
    # the ack is about receipt: the commit did not wait for the delayed apply
    assert committed < 1.0, committed
    assert yes_tx(master) == before + 1
    assert master.status("Rpl_semi_sync_master_status")["Rpl_semi_sync_master_status"] == "ON"

    seen_waiting = []
    while not on_slave(slave, 1):
        st = slave_status(slave.port)
        if st["Slave_SQL_Running_State"] == WAITING:
            seen_waiting.append(st["SQL_Remaining_Delay"])
        assert time.monotonic() - started < DELAY + 5, "the row never came"
        time.sleep(0.05)
    applied = time.monotonic() - started
    assert DELAY - 0.2 <= applied <= DELAY + 4, applied
    assert seen_waiting and all(0 <= r <= DELAY + 1 for r in seen_waiting), seen_waiting
    st = slave_status(slave.port)
    assert st["SQL_Remaining_Delay"] is None and st["Slave_SQL_Running_State"] != WAITING

    # STOP SLAVE while the SQL thread waits: at once, nothing applied
    master.query("INSERT INTO d.t VALUES (2)")
    wait_until(lambda: slave_status(slave.port)["SQL_Remaining_Delay"] is not None, timeout=DELAY,
               interval=0.02, what="the SQL thread to wait for the delay")
    stopping = time.monotonic()
    slave.query("STOP SLAVE")
    assert time.monotonic() - stopping < 1.5
    st = slave_status(slave.port)
    assert st["Slave_SQL_Running"] == "No" and st["SQL_Remaining_Delay"] is None
    assert st["Slave_SQL_Running_State"] == ""
    assert not on_slave(slave, 2)

    # MASTER_DELAY is kept in master.info: a restarted slave still delays, and applies row 2
    slave.stop()
    slave.start()
    assert slave_status(slave.port)["SQL_Delay"] == DELAY
    slave.query("START SLAVE")  # (a daemon with master.info may have started it already)
    wait_until(lambda: on_slave(slave, 2), timeout=DELAY + 10, what="row 2 after the restart")
    assert slave_status(slave.port)["SQL_Delay"] == DELAY


# CHANGE MASTER TO MASTER_DELAY's answers, and SHOW SLAVE STATUS's delay columns (with their
# types) after each, on a server configured as a replica of a master that is not there
STEPS = [
    "CHANGE MASTER TO MASTER_DELAY = 10",
    "CHANGE MASTER TO MASTER_DELAY = 2147483647",
    "CHANGE MASTER TO MASTER_DELAY = 2147483648",
    "CHANGE MASTER TO MASTER_DELAY = 4294967296",
    "CHANGE MASTER TO MASTER_DELAY = -1",
    "CHANGE MASTER TO MASTER_DELAY = '3'",
    "CHANGE MASTER TO MASTER_DELAY = 1.5",
    "CHANGE MASTER TO MASTER_DELAY = 0x10",
    "CHANGE MASTER TO MASTER_DELAY = 5, MASTER_DELAY = 6",
    "START SLAVE SQL_THREAD",
    "CHANGE MASTER TO MASTER_DELAY = 8",
    "STOP SLAVE",
    "RESET SLAVE",
    "CHANGE MASTER TO MASTER_DELAY = 11",
    "RESET SLAVE ALL",
]


def delay_answers(port: int, password: str = "") -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password=password, autocommit=True)
    out = []
    try:
        assert answer(conn, "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = 1, "
                            "MASTER_USER = 'x'") == ("ok",)
        for sql in STEPS:
            result = answer(conn, sql)
            with conn.cursor() as cur:
                cur.execute("SHOW SLAVE STATUS")
                names = [d[0] for d in cur.description]
                types = [(d[0], d[1]) for d in cur.description if d[0] in ("SQL_Delay", "SQL_Remaining_Delay")]
                row = cur.fetchone()
            status = None if row is None else (row[names.index("SQL_Delay")], row[names.index("SQL_Remaining_Delay")])
            out.append((sql, result, status, types))
    finally:
        conn.close()
    return out


def test_change_master_master_delay_answers_as_mariadb(tmp_path):
    mariadb = MariaDBServer(tmp_path / "mdb", server_id=7, log_bin=None)
    ours = Daemon("slave", tmp_path / "ours", ["--server-id=8"])
    try:
        mariadb.start()
        ours.start()
        theirs, mine = delay_answers(mariadb.port), delay_answers(ours.port)
    finally:
        ours.stop()
        mariadb.stop()
    for (sql, *want), (_, *got) in zip(theirs, mine, strict=True):
        assert got == want, sql
