"""log_slave_updates (issue 15): a slave's binlog is a real binlog that its own dump sessions
serve, semi-sync included, and it stays consistent with the applied position across kill -9.

- chain: our master -> our slave -> our sub-slave, semi-sync on both hops: 500 transactions,
  `Rpl_semi_sync_master_yes_tx` +500 on the master AND on the middle slave, the three databases
  equal; the middle slave's binlog read by `mariadb-binlog` (from the files) and by
  python-mysql-replication (over the wire) shows the master's server_id on the replicated
  events, and the middle slave's own on nothing replicated;
- a stock MariaDB 10.11 replica (file/position, semi-sync) replicating from our slave;
- kill -9 of the middle slave under load, restarted: every row once on it and on the sub-slave.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import threading
import time

import pymysql
import pytest
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import QueryEvent, XidEvent

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.master import slave_status as mariadb_slave_status
from tests.support.slave_daemon import slave_status

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

MASTER_ID, MIDDLE_ID, SUB_ID = 1, 2, 3
# Each source side's semi-sync is enabled (SET GLOBAL) once its replica is on the way: with none,
# a commit would wait for the whole timeout.
SEMI_SYNC = ("--rpl-semi-sync-slave-enabled=ON", "--rpl-semi-sync-master-timeout=30000")


def replicating_from(daemon: Daemon) -> list[str]:
    return [f"--master-port={daemon.port}", "--master-host=127.0.0.1", "--master-user=repl",
            "--master-password=pw", "--master-connect-retry=0.5"]


def counter(daemon: Daemon, name: str) -> int:
    return int(daemon.status(name)[name])


def rows(daemon: Daemon) -> list[tuple]:
    return sorted(daemon.query("SELECT id, v FROM d.t"))


def insert(daemon: Daemon, ids) -> None:
    conn = daemon.connect()
    with conn.cursor() as cur:
        for i in ids:  # one autocommit transaction each
            cur.execute(f"INSERT INTO d.t VALUES ({i}, 'row {i}')")
    conn.close()


def insert_concurrently(daemon: Daemon, ids, writers: int = 4) -> None:
    """`insert` from several connections at once (their commits share groups)."""
    ids = list(ids)
    threads = [threading.Thread(target=insert, args=(daemon, ids[w::writers])) for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)


def start_master(tmp_path) -> Daemon:
    """Our master with the repl user and d.t, its semi-sync enabled after them."""
    master = Daemon("master", tmp_path / "master", [f"--server-id={MASTER_ID}", *SEMI_SYNC]).start()
    for sql in ("CREATE USER repl@'%' IDENTIFIED BY 'pw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
                "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
                "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
        master.query(sql)
    return master


def start_chain(tmp_path) -> tuple[Daemon, Daemon, Daemon]:
    """Master, middle slave and sub-slave, semi-sync on both hops, the repl user and d.t made on
    the master (the sub-slave logs in to the middle slave with the user it replicated)."""
    master = start_master(tmp_path)
    middle = Daemon("slave", tmp_path / "middle", [f"--server-id={MIDDLE_ID}", *SEMI_SYNC,
                                                   *replicating_from(master)]).start()
    wait_for(lambda: middle.query("SELECT COUNT(*) FROM d.t") == [(0,)], 60,
             message=lambda: f"the middle slave has d.t\n{middle.tail()}")
    middle.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    sub = Daemon("slave", tmp_path / "sub", [f"--server-id={SUB_ID}", *SEMI_SYNC,
                                             *replicating_from(middle)]).start()
    for daemon in (master, middle):
        wait_for(lambda daemon=daemon: counter(daemon, "Rpl_semi_sync_master_clients") == 1, 60,
                 message=lambda: f"a semi-sync replica of each hop\n{middle.tail()}\n{sub.tail()}")
    wait_for(lambda: rows(sub) == [], 60, message=lambda: f"the sub-slave has d.t\n{sub.tail()}")
    return master, middle, sub


def stop_all(*daemons: Daemon) -> None:
    for daemon in reversed(daemons):
        daemon.stop()


def mariadb_binlog_events(datadir) -> list[tuple[int, str]]:
    """(server id, first line of the statement) of each Query / Xid event `mariadb-binlog`
    prints from a datadir's binlog files."""
    files = sorted(str(p) for p in datadir.glob("mysql-bin.0*"))
    out = subprocess.run(["mariadb-binlog", *files], check=True, capture_output=True, text=True).stdout
    events = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"#\d{6} +\d+:\d+:\d+ server id (\d+) +end_log_pos \d+ .*?\t(Query|Xid)", line)
        if m:
            what = "XID" if m.group(2) == "Xid" else next(
                (x for x in lines[i + 1:] if x and not x.startswith(("SET ", "/*", "#", "use "))), "")
            events.append((int(m.group(1)), what))
    return events


def wire_events(daemon: Daemon, file: str) -> list[tuple[int, str]]:
    """(server_id, query or XID) of the Query/Xid events python-mysql-replication reads from a
    daemon's binlog over the replication protocol, from `file` to its current end."""

    def without_information_schema(**kw):  # the shell offers no information_schema database
        if kw.get("db") == "information_schema":
            kw.pop("db")
        return pymysql.connect(**kw)

    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": daemon.port, "user": "root", "password": ""},
        server_id=99, blocking=False, log_file=file, log_pos=4, only_events=[QueryEvent, XidEvent],
        pymysql_wrapper=without_information_schema,
    )
    try:
        return [(e.packet.server_id, e.query if isinstance(e, QueryEvent) else "XID") for e in stream]
    finally:
        stream.close()


@pytest.mark.skipif(not shutil.which("mariadb-binlog"), reason="needs mariadb-binlog")
def test_chain_with_semi_sync_on_both_hops(tmp_path):
    master, middle, sub = start_chain(tmp_path)
    try:
        yes = {d: counter(d, "Rpl_semi_sync_master_yes_tx") for d in (master, middle)}
        no = {d: counter(d, "Rpl_semi_sync_master_no_tx") for d in (master, middle)}
        insert_concurrently(master, range(500))
        assert counter(master, "Rpl_semi_sync_master_yes_tx") - yes[master] == 500
        wait_for(lambda: rows(sub) == rows(master), 120,
                 message=lambda: f"the sub-slave has the master's rows\n{middle.tail()}\n{sub.tail()}")
        assert rows(middle) == rows(master) and len(rows(master)) == 500
        wait_for(lambda: counter(middle, "Rpl_semi_sync_master_yes_tx") - yes[middle] == 500, 30,
                 message="the middle slave's 500 replicated transactions acked by the sub-slave")
        assert no == {d: counter(d, "Rpl_semi_sync_master_no_tx") for d in (master, middle)}

        # the middle slave's binlog, from its files: every event of the replicated transactions
        # carries the master's server_id, none the middle slave's own
        events = mariadb_binlog_events(tmp_path / "middle")
        inserts = [(sid, q) for sid, q in events if q.startswith("INSERT INTO d.t")]
        assert sorted(q for _s, q in inserts) == sorted(f"INSERT INTO d.t VALUES ({i}, 'row {i}')" for i in range(500))
        assert {sid for sid, _q in events} == {MASTER_ID}
        assert sum(q == "XID" for _s, q in events) >= 500
        assert any(q.startswith("CREATE TABLE") for _s, q in events)
        assert any(q.startswith("CREATE USER") for _s, q in events)

        # over the wire: python-mysql-replication as a replica of the middle slave
        (first, *_), = middle.query("SHOW BINARY LOGS")[:1]
        wire = wire_events(middle, first)
        assert [q for _s, q in wire if q.startswith("INSERT INTO d.t")] == [q for _s, q in inserts]
        assert {sid for sid, _q in wire} == {MASTER_ID}
        # the sub-slave's binlog holds them with the master's server_id as well
        assert {sid for sid, _q in mariadb_binlog_events(tmp_path / "sub")} == {MASTER_ID}
    finally:
        stop_all(master, middle, sub)


@pytest.mark.mariadb
@pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed")
def test_a_mariadb_replica_of_our_slave_with_semi_sync(tmp_path):
    master = start_master(tmp_path)
    daemons = [master]
    replica = None
    try:
        middle = Daemon("slave", tmp_path / "middle", [f"--server-id={MIDDLE_ID}", *SEMI_SYNC,
                                                       *replicating_from(master)]).start()
        daemons.append(middle)
        wait_for(lambda: middle.query("SELECT COUNT(*) FROM d.t") == [(0,)], 60, message="d.t on the slave")
        middle.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        replica = MariaDBServer(tmp_path / "replica", server_id=SUB_ID, log_bin=None,
                                extra=["--rpl-semi-sync-slave-enabled=ON"]).start()
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={middle.port}, MASTER_USER='repl', "
            "MASTER_PASSWORD='pw', MASTER_LOG_FILE='mysql-bin.000001', MASTER_LOG_POS=4, "
            "MASTER_USE_GTID=no, MASTER_CONNECT_RETRY=1",
            "START SLAVE",
        ])
        wait_for(lambda: counter(middle, "Rpl_semi_sync_master_clients") == 1, 60,
                 message=lambda: f"MariaDB acks our slave\n{mariadb_slave_status(replica)}")
        yes = counter(middle, "Rpl_semi_sync_master_yes_tx")
        insert(master, range(200))
        wait_for(lambda: counter(middle, "Rpl_semi_sync_master_yes_tx") - yes == 200, 120,
                 message=lambda: f"200 acks from MariaDB on our slave\n{middle.tail()}")
        assert counter(middle, "Rpl_semi_sync_master_no_tx") == 0
        assert replica.status("Rpl_semi_sync_slave_status")["Rpl_semi_sync_slave_status"] == "ON"

        def replica_rows():
            status = mariadb_slave_status(replica)
            assert not status.get("Last_SQL_Error"), status["Last_SQL_Error"]
            return sorted(replica.query("SELECT id, v FROM d.t"))

        wait_for(lambda: replica_rows() == rows(master), 60, message="MariaDB has the master's rows")
        # the user the master created reached MariaDB through our slave's binlog
        assert replica.query("SELECT COUNT(*) FROM mysql.user WHERE user = 'repl'") == [(1,)]
    finally:
        if replica is not None:
            replica.stop()
        stop_all(*daemons)


def test_kill_9_of_the_middle_slave_under_load_loses_and_repeats_nothing(tmp_path):
    master, middle, sub = start_chain(tmp_path)
    try:
        # semi-sync from the master must not wait on the middle slave while it is down
        master.query("SET GLOBAL rpl_semi_sync_master_timeout = 500")
        stop_writing = threading.Event()
        written: list[int] = []
        errors: list[BaseException] = []

        def writer():
            try:
                conn = master.connect()
                with conn.cursor() as cur:
                    i = 0
                    while not stop_writing.is_set():
                        cur.execute(f"INSERT INTO d.t VALUES ({i}, 'row {i}')")
                        written.append(i)
                        i += 1
                conn.close()
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                errors.append(exc)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            for round_ in range(3):
                target = len(written) + 150
                wait_for(lambda target=target: len(written) >= target, 60, message="writes go on")
                wait_for(lambda target=target: middle.query("SELECT COUNT(*) FROM d.t")[0][0] >= target - 100, 60,
                         message=lambda: f"the middle slave applies under load\n{middle.tail()}")
                if round_ == 0:
                    # the crash window on purpose: the sub-slave stopped, the middle slave's
                    # semi-sync (ON since start_chain; a restart turns it OFF) holds its applier's
                    # group after the binlog write and fsync, before the engine commit
                    sub.signal(signal.SIGSTOP)
                    time.sleep(1.0)
                mark = len(middle.log.read_text(errors="replace"))
                middle.kill9()
                sub.signal(signal.SIGCONT)
                time.sleep(0.2)
                middle.start()
                if round_ == 0:
                    skipped = re.findall(r"\((\d+) replicated one\(s\) the applier skips\)",
                                         middle.log.read_text(errors="replace")[mark:])
                    assert skipped and int(skipped[-1]) > 0, middle.tail()
        finally:
            stop_writing.set()
            thread.join(60)
        assert not errors, errors
        assert written == list(range(len(written)))
        expected = [(i, f"row {i}") for i in written]
        assert rows(master) == expected

        def same(daemon: Daemon) -> bool:
            return rows(daemon) == expected

        wait_for(lambda: same(middle), 180, message=lambda: f"the middle slave caught up\n{middle.tail()}")
        wait_for(lambda: same(sub), 180, message=lambda: f"the sub-slave caught up\n{sub.tail()}")
        # nothing twice in the middle slave's binlog either (the sub-slave's rows would show a
        # second copy as a duplicate-key stop; its SQL thread is still running)
        inserts = [q for _s, q in mariadb_binlog_events(tmp_path / "middle") if q.startswith("INSERT INTO d.t")]
        assert inserts == [f"INSERT INTO d.t VALUES ({i}, 'row {i}')" for i in written]
        for daemon in (middle, sub):
            status = slave_status(daemon.port)
            assert (status["Slave_IO_Running"], status["Slave_SQL_Running"]) == ("Yes", "Yes")
    finally:
        stop_all(master, middle, sub)
