"""What replication monitoring reads, side by side: a MariaDB 10.11 master with a MariaDB replica
and our master with our slave (the same server_ids). SHOW SLAVE HOSTS had our two acked-position
columns after MariaDB's four (mysqld_exporter's slave_hosts collector failed on 6 columns): now
MariaDB's four, the acked positions in information_schema.RPL_SEMI_SYNC_SLAVES. Our slave's
processlist had no replication threads: now MariaDB's "system user" Slave_IO / Slave_SQL rows
while they run (KILL of one stops it; 1094 once gone), as the masters' Binlog Dump rows."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import answer, defined_answers, described_answers

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

IDLE = (("Slave_IO", "Waiting for master to send event"),
        ("Slave_SQL", "Slave has read all relay log; waiting for more updates"))
THREADS = ("SELECT USER, HOST, DB, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST"
           " WHERE USER = 'system user' ORDER BY ID")


@contextmanager
def two_pairs(base: Path) -> Iterator[tuple[tuple[MariaDBServer, MariaDBServer], tuple[Daemon, Daemon]]]:
    """(MariaDB master, its MariaDB replica), (our master, our slave): masters server_id 1,
    replicas 2, each replica attached by GTID and caught up; stopped on the way out."""
    started: list = []
    try:
        pairs = []
        for master, replica in ((MariaDBServer(base / "mm", server_id=1), MariaDBServer(base / "mr", server_id=2)),
                                (Daemon("master", base / "om", ["--server-id=1"]),
                                 Daemon("slave", base / "os", ["--server-id=2"]))):
            started.append(master.start())
            for sql in (f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                        f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'", "CREATE DATABASE d"):
                master.query(sql)
            started.append(replica.start())
            attach(replica.port, master.port)
            pairs.append((master, replica))
        for _, replica in pairs:
            wait_for(lambda r=replica: threads(r) == IDLE, timeout=60, message="the replica to be idle")
        yield pairs[0], pairs[1]
    finally:
        for server in reversed(started):
            server.stop()


def threads(server) -> tuple[tuple[str, str], ...]:
    """(Command, State) of the processlist's system user rows, by id."""
    return tuple((row[4], row[6]) for row in server.query("SHOW PROCESSLIST") if row[1] == "system user")


def thread_ids(server) -> dict[str, int]:
    return {row[4]: row[0] for row in server.query("SHOW PROCESSLIST") if row[1] == "system user"}


def running(server) -> tuple:
    conn = server.connect(cursorclass=pymysql.cursors.DictCursor)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW ALL SLAVES STATUS")
            row = cur.fetchone()
    finally:
        conn.close()
    return row["Slave_IO_Running"], row["Slave_SQL_Running"], row["Last_IO_Errno"], row["Last_SQL_Errno"]


def test_slave_hosts_and_replication_threads_as_mariadb_shows_them(tmp_path):
    with two_pairs(tmp_path) as ((mariadb, mariadb_replica), (ours, our_slave)):
        on_master = ["SHOW SLAVE HOSTS",
                     "SELECT USER, HOST LIKE '127.0.0.1:%', DB, COMMAND, STATE, INFO FROM information_schema.PROCESSLIST"
                     " WHERE COMMAND = 'Binlog Dump'"]
        theirs = described_answers(mariadb.port, "d", on_master)
        mine = described_answers(ours.port, "d", on_master)
        assert theirs[0][1] == ((2, "127.0.0.1", mariadb_replica.port, 1),)  # its own port, as it reports it
        assert mine[0][1] == ((2, "127.0.0.1", our_slave.port, 1),)
        assert [(sql, columns) for sql, _, columns, _ in mine] == [(sql, columns) for sql, _, columns, _ in theirs]
        assert mine[1] == theirs[1]

        on_replica = [THREADS, "SHOW PROCESSLIST"]
        theirs = described_answers(mariadb_replica.port, "d", on_replica)
        mine = described_answers(our_slave.port, "d", on_replica)
        assert mine[0] == theirs[0]
        assert [columns for _, _, columns, _ in mine[1:]] == [columns for _, _, columns, _ in theirs[1:]]

        # the IO thread's id before the SQL thread's; KILL of the SQL thread's stops it, no error
        for server in (mariadb_replica, our_slave):
            ids = thread_ids(server)
            assert ids["Slave_IO"] < ids["Slave_SQL"]
            conn = server.connect()
            try:
                assert answer(conn, f"KILL {ids['Slave_SQL']}") == ("ok",)
                wait_for(lambda s=server: threads(s) == IDLE[:1], timeout=30, message="the SQL thread to stop")
                assert running(server) == ("Yes", "No", 0, 0)
                assert answer(conn, f"KILL {ids['Slave_SQL']}")[:2] == ("error", 1094)
                assert answer(conn, f"KILL {ids['Slave_IO']}") == ("ok",)
                wait_for(lambda s=server: threads(s) == (), timeout=30, message="the IO thread to stop")
                assert running(server) == ("No", "No", 0, 0)
                assert answer(conn, "START SLAVE") == ("ok",)
                wait_for(lambda s=server: threads(s) == IDLE, timeout=60, message="the threads to run again")
                assert min(thread_ids(server).values()) > max(ids.values())  # new threads, new ids
                assert answer(conn, "STOP SLAVE") == ("ok",)
                assert threads(server) == ()
            finally:
                conn.close()


def test_rpl_semi_sync_slaves_has_each_slaves_acked_position(tmp_path):
    master = Daemon("master", tmp_path / "om", ["--server-id=1"]).start()
    slave = Daemon("slave", tmp_path / "os", ["--server-id=2"])
    try:
        for sql in (f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                    f"GRANT REPLICATION SLAVE ON *.* TO {REPL_USER}@'%'", "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
            master.query(sql)
        slave.start()
        slave.query("SET GLOBAL rpl_semi_sync_slave_enabled = ON")
        attach(slave.port, master.port)
        wait_for(lambda: master.query("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'") == [
            ("Rpl_semi_sync_master_clients", "1")], timeout=60, message="a semi-sync client")
        master.query("CREATE DATABASE d")
        end = master.query("SHOW MASTER STATUS")[0][:2]
        assert master.query("SELECT * FROM information_schema.RPL_SEMI_SYNC_SLAVES") == [
            (2, "127.0.0.1", slave.port, *end)]
        # the plugin's table: empty without the plugin
        master.query("UNINSTALL PLUGIN rpl_semi_sync_master")
        assert master.query("SELECT COUNT(*) FROM information_schema.RPL_SEMI_SYNC_SLAVES") == [(0,)]
    finally:
        slave.stop()
        master.stop()


# the relay log's own (its files, sizes and events are each server's)
RELAY_LOG_COLUMNS = ("Relay_Log_File", "Relay_Log_Space", "Executed_log_entries")


def slave_status_described(server) -> tuple[list, tuple]:
    """SHOW ALL SLAVES STATUS' column definitions and its row, the relay log's columns left out."""
    _, rows, columns, _ = described_answers(server.port, "d", ["SHOW ALL SLAVES STATUS"])[0]
    kept = [i for i, c in enumerate(columns) if c[0] not in RELAY_LOG_COLUMNS]
    return columns, tuple(rows[0][i] for i in kept)


def test_slave_status_running_stopped_and_failed_as_a_mariadb_replica_of_the_same_master(tmp_path):
    """Both replicas of one MariaDB master: their SHOW ALL SLAVES STATUS (text columns were described
    with 0 decimals, MariaDB's 39; a failed transaction's Exec_Master_Log_Pos was the position after
    it, MariaDB's before it; user statements were no Slave_DDL_Groups)."""
    master = MariaDBServer(tmp_path / "mm", server_id=1)
    replicas = [MariaDBServer(tmp_path / "mr", server_id=2), Daemon("slave", tmp_path / "os", ["--server-id=3"])]
    started: list = []
    try:
        started.append(master.start())
        for sql in (f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                    f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'", "CREATE DATABASE d",
                    "CREATE TABLE d.t (id INT PRIMARY KEY)"):
            master.query(sql)
        for replica in replicas:
            started.append(replica.start())
            attach(replica.port, master.port)
        end = master.query("SHOW MASTER STATUS")[0][1]

        def caught_up(replica) -> bool:
            return running(replica)[:2] == ("Yes", "Yes") and end in slave_status_described(replica)[1]

        for replica in replicas:
            wait_for(lambda r=replica: caught_up(r), timeout=60, message="the replica to catch up")
        theirs, mine = (slave_status_described(r) for r in replicas)
        assert mine == theirs  # running

        for replica in replicas:  # a row the master's next insert runs into
            conn = replica.connect()
            try:
                for sql in ("SET sql_log_bin = 0", "INSERT INTO d.t VALUES (1)"):
                    assert answer(conn, sql) == ("ok",)
            finally:
                conn.close()
        master.query("INSERT INTO d.t VALUES (1)")
        for replica in replicas:
            wait_for(lambda r=replica: running(r)[1] == "No", timeout=60, message="the SQL thread to fail")
        theirs, mine = (slave_status_described(r) for r in replicas)
        assert running(replicas[1]) == ("Yes", "No", 0, 1062)
        groups = [c[0] for c in theirs[0] if c[0] not in RELAY_LOG_COLUMNS].index("Slave_Transactional_Groups")
        # (MariaDB counts the failed transaction's group already)
        assert mine[1][:groups] + mine[1][groups + 1:] == theirs[1][:groups] + theirs[1][groups + 1:]
        assert mine[0] == theirs[0]

        for replica in replicas:
            replica.query("STOP SLAVE")
        theirs, mine = (slave_status_described(r) for r in replicas)
        assert mine[1][:groups] + mine[1][groups + 1:] == theirs[1][:groups] + theirs[1][groups + 1:]  # stopped
    finally:
        for server in reversed(started):
            server.stop()


def _relay_file(server) -> str:
    conn = server.connect(cursorclass=pymysql.cursors.DictCursor)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE STATUS")
            return cur.fetchone()["Relay_Log_File"]
    finally:
        conn.close()


def test_replication_show_statements_described_as_mariadb_and_the_relay_log_shown(tmp_path):
    """SHOW SLAVE STATUS (MariaDB's 54 columns; MySQL's after them), SHOW ALL SLAVES STATUS, SHOW
    SLAVE HOSTS, SHOW BINLOG EVENTS and SHOW RELAYLOG EVENTS described column by column as
    MariaDB describes them (each was VARCHAR(1024) / BIGINT(21) without NOT NULL; SHOW RELAYLOG
    EVENTS was 1064); a missing file 1220, another connection 1617; the relay log's last two
    events the master's GTID and CREATE DATABASE as its SHOW BINLOG EVENTS lists them."""
    with two_pairs(tmp_path) as ((mariadb, mariadb_replica), (ours, our_slave)):
        on_master = ["SHOW SLAVE HOSTS", "SHOW BINLOG EVENTS LIMIT 2", "SHOW BINLOG EVENTS IN 'nosuch'"]
        on_replica = ["SHOW SLAVE STATUS", "SHOW ALL SLAVES STATUS", "SHOW RELAYLOG EVENTS LIMIT 1",
                      "SHOW RELAYLOG '' EVENTS LIMIT 1, 1", "SHOW RELAYLOG EVENTS IN 'nosuch'", "SHOW RELAYLOG 'x' EVENTS"]
        answers = []
        for master, replica in ((mariadb, mariadb_replica), (ours, our_slave)):
            described = defined_answers(master.port, "d", on_master) + defined_answers(replica.port, "d", on_replica)
            answers.append([(sql, text[0] if text[0] != "error" else text[:2]) for sql, text, _ in described])
            relay = replica.query(f"SHOW RELAYLOG EVENTS IN '{_relay_file(replica)}'")
            logged = master.query("SHOW BINLOG EVENTS")
            assert [row[2:] for row in relay[-2:]] == [row[2:] for row in logged[-2:]]
            assert relay[-1][2:] == ("Query", 1, logged[-1][4], "CREATE DATABASE d")
        theirs, mine = answers
        status = len(on_master)  # SHOW SLAVE STATUS
        assert len(mine[status][1]) == 65 and mine[status][1][:54] == theirs[status][1]
        mine[status] = theirs[status]
        assert mine == theirs, [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]
