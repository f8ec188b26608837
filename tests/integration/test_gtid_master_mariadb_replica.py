"""Our master's GTIDs against real MariaDB 10.11 peers.

A stock MariaDB replica attached with a plain `CHANGE MASTER TO MASTER_HOST, MASTER_PORT,
MASTER_USER, MASTER_PASSWORD` (its default MASTER_USE_GTID=slave_pos) replicates from our master
with semi-sync acks, and resumes by GTID after its restart, also when our binlog rotated while it
was away; `mariadb-binlog` reads the GTIDs of our files; @@gtid_binlog_pos/_state and
BINLOG_GTID_POS() answer from them; a raw COM_BINLOG_DUMP by GTID that the binlog cannot serve,
or with a malformed @slave_connect_state, gets MariaDB's ERR packet."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess

import pymysql
import pytest

from protocol.errors import (
    ER_DUPLICATE_GTID_DOMAIN,
    ER_GTID_DUMP_DIVERGED,
    ER_GTID_DUMP_NOT_IN_BINLOG,
    ER_GTID_DUMP_PURGED,
    ER_INCORRECT_GTID_STATE,
)
from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.master import make_repl_user, slave_status, start_master

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"), reason="needs mariadb-server"),
]

GTID_LINE = re.compile(r"\tGTID (\d+-\d+-\d+)")


def _rows(server, sql: str) -> list[tuple]:
    return [tuple(r) for r in server.query(sql)]


def _gtid_binlog_pos(master: Daemon) -> str:
    return master.query("SELECT @@gtid_binlog_pos")[0][0]


def _caught_up(master: Daemon, replica: MariaDBServer) -> dict:
    """Wait until the replica applied everything our binlog holds (by GTID) and return its status."""
    def done():
        st = slave_status(replica)
        if st.get("Last_IO_Errno") or st.get("Last_SQL_Errno"):
            raise AssertionError(f"replica error: IO {st['Last_IO_Error']!r} SQL {st['Last_SQL_Error']!r}")
        pos = _gtid_binlog_pos(master)
        return st if st.get("Gtid_IO_Pos") == pos and replica.query("SELECT @@gtid_slave_pos")[0][0] == pos else None

    return wait_for(done, 90, message=lambda: f"the replica to catch up: {slave_status(replica)}")


def _yes_tx(master: Daemon) -> int:
    return int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])


def _no_tx(master: Daemon) -> int:
    return int(master.status("Rpl_semi_sync_master_no_tx")["Rpl_semi_sync_master_no_tx"])


def test_a_plain_mariadb_replica_follows_by_gtid_with_semisync_across_restarts_and_rotations(tmp_path):
    master = start_master(tmp_path, "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=30000",
                          "--gtid-domain-id=2")
    replica = MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None,
                            extra=["--rpl-semi-sync-slave-enabled=ON"]).start()
    try:
        # written before any replica follows: semi-sync off, then on again (with wait_no_slave the
        # first commit would wait out the whole 30 s timeout for a replica that is not there yet)
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
        make_repl_user(master)
        master.query("CREATE DATABASE g")
        master.query("CREATE TABLE g.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))")
        for i in range(3):
            master.query(f"INSERT INTO g.t (v) VALUES ('before-{i}')")
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
            "MASTER_PASSWORD='replpw'",
            "START SLAVE",
        ])
        st = _caught_up(master, replica)
        assert st["Using_Gtid"] == "Slave_Pos"
        assert _gtid_binlog_pos(master).startswith("2-1-")
        wait_for(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1", 30,
                 message="the replica's semi-sync dump")

        # semi-sync: each commit now waits for the replica's ack
        yes, no = _yes_tx(master), _no_tx(master)
        conn = master.connect()
        try:
            with conn.cursor() as cur:
                for i in range(5):
                    cur.execute(f"INSERT INTO g.t (v) VALUES ('acked-{i}')")
                conn.begin()
                cur.execute("INSERT INTO g.t (v) VALUES ('txn-a')")
                cur.execute("UPDATE g.t SET v = CONCAT(v, '+') WHERE v LIKE 'before-%'")
                conn.commit()
        finally:
            conn.close()
        assert _yes_tx(master) >= yes + 6
        assert _no_tx(master) == no
        _caught_up(master, replica)

        # the replica restarts while we commit and rotate: it resumes by GTID from an older file
        # (commits meanwhile do not wait for the timeout: semi-sync is off without a slave)
        master.query("SET GLOBAL rpl_semi_sync_master_wait_no_slave = OFF")
        replica.stop()
        master.query("INSERT INTO g.t (v) VALUES ('away-1')")
        master.query("FLUSH BINARY LOGS")
        master.query("INSERT INTO g.t (v) VALUES ('away-2')")
        master.query("FLUSH BINARY LOGS")
        replica.start()
        st = _caught_up(master, replica)
        assert st["Using_Gtid"] == "Slave_Pos" and st["Slave_IO_Running"] == "Yes"

        # a rotation while it is connected
        master.query("FLUSH BINARY LOGS")
        master.query("INSERT INTO g.t (v) VALUES ('after-rotation')")
        _caught_up(master, replica)
        assert _rows(replica, "SELECT id, v FROM g.t ORDER BY id") == _rows(master, "SELECT id, v FROM g.t ORDER BY id")
        assert len(_rows(master, "SELECT id FROM g.t")) == 12

        # mariadb-binlog reads our GTIDs: one per transaction, numbered 2-1-1.. in order
        files = [master.datadir / name for name, _size in master.query("SHOW BINARY LOGS")]
        out = subprocess.run(["mariadb-binlog", *map(str, files)], capture_output=True, text=True, check=True).stdout
        gtids = GTID_LINE.findall(out)
        last = int(_gtid_binlog_pos(master).split("-")[2])
        assert gtids == [f"2-1-{n}" for n in range(1, last + 1)]
        assert master.query("SELECT @@gtid_binlog_state")[0][0] == f"2-1-{last}"
        assert master.query(f"SELECT BINLOG_GTID_POS('{files[-1].name}', 4)")[0][0] == f"2-1-{last - 1}"
    finally:
        replica.stop()
        master.stop()


def _raw_dump(master: Daemon, connect_state: str, *, strict: int = 0) -> tuple[int, str]:
    """A COM_BINLOG_DUMP with @slave_connect_state, as a MariaDB replica sends it: the ERR it gets."""
    conn = master.connect()
    try:
        cur = conn.cursor()
        cur.execute("SET @master_binlog_checksum = 'CRC32'")
        cur.execute("SET @mariadb_slave_capability = 4")
        cur.execute("SET @slave_connect_state = %s", (connect_state,))
        cur.execute(f"SET @slave_gtid_strict_mode = {strict}")
        conn._execute_command(0x12, struct.pack("<IHI", 4, 0, 55))  # COM_BINLOG_DUMP
        with pytest.raises(pymysql.MySQLError) as refused:
            conn._read_packet()
        return refused.value.args[0], refused.value.args[1]
    finally:
        conn.close()


def test_a_dump_by_gtid_the_binlog_cannot_serve_gets_mariadbs_error(tmp_path):
    master = start_master(tmp_path)
    try:
        master.query("CREATE DATABASE g")
        master.query("CREATE TABLE g.t (id INT PRIMARY KEY)")
        master.query("INSERT INTO g.t VALUES (1)")
        master.query("FLUSH BINARY LOGS")
        master.query("INSERT INTO g.t VALUES (2)")
        assert _gtid_binlog_pos(master) == "0-1-4"
        expected = {
            "x": (ER_INCORRECT_GTID_STATE.code, ER_INCORRECT_GTID_STATE.format()),
            "0-1-1,0-1-2": (ER_DUPLICATE_GTID_DOMAIN.code, ER_DUPLICATE_GTID_DOMAIN.format("0-1-2", "0-1-1", 0)),
            "0-1-99": (1236, ER_GTID_DUMP_NOT_IN_BINLOG.format("0-1-99")),
            "0-8-1": (1236, ER_GTID_DUMP_DIVERGED.format("0-8-1")),
        }
        for state, error in expected.items():
            assert _raw_dump(master, state) == error, state
        master.query("PURGE BINARY LOGS TO 'mysql-bin.000002'")
        assert _raw_dump(master, "0-1-1") == (1236, ER_GTID_DUMP_PURGED.format())
        assert master.query("SELECT 1") == [(1,)]  # the server goes on
        # what the binlog holds, and where a dump from a position starts
        assert master.query("SELECT @@gtid_binlog_state, @@global.gtid_domain_id, @@gtid_strict_mode") == [
            ("0-1-4", 0, 1)]
        assert master.query("SELECT BINLOG_GTID_POS('mysql-bin.000002', 4)") == [("0-1-3",)]
        assert master.query("SELECT BINLOG_GTID_POS('mysql-bin.000001', 4)") == [(None,)]  # purged
        assert master.query("SELECT BINLOG_GTID_POS('mysql-bin.000002', 5)") == [(None,)]  # not a boundary
        assert master.query("SELECT BINLOG_GTID_POS('mysql-bin.000002', 0)") == [("0-1-3",)]  # below 4: 4
        assert master.query("SELECT BINLOG_GTID_POS('mysql-bin.000002', -1)") == [(None,)]
        assert master.query("SELECT BINLOG_GTID_POS(NULL, 4)") == [(None,)]
        # the variables as MariaDB sets them: a session's domain, the global strict mode
        conn = master.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SET SESSION gtid_domain_id = 5")
                cur.execute("INSERT INTO g.t VALUES (3)")
                cur.execute("SELECT @@gtid_binlog_pos, @@session.gtid_domain_id, @@global.gtid_domain_id")
                assert cur.fetchall() == (("0-1-4,5-1-1", 5, 0),)
                cur.execute("SET GLOBAL gtid_strict_mode = OFF")
                cur.execute("SELECT @@global.gtid_strict_mode")
                assert cur.fetchall() == ((0,),)
                for sql, code in (("SET SESSION gtid_strict_mode = 1", 1229),
                                  ("SET GLOBAL gtid_binlog_pos = '0-1-1'", 1238),
                                  ("SET GLOBAL gtid_strict_mode = 2", 1231)):
                    with pytest.raises(pymysql.MySQLError) as refused:
                        cur.execute(sql)
                    assert refused.value.args[0] == code, sql
        finally:
            conn.close()
        master.query("INSERT INTO g.t VALUES (4)")
        assert _gtid_binlog_pos(master) == "0-1-5,5-1-1"
    finally:
        master.stop()


def test_sql_log_bin_off_commits_here_and_binlogs_nothing(tmp_path):
    """A session's sql_log_bin=0 (a DBA's change by hand on one server): its writes, DDL and user
    statements commit on our master and get no GTID and no event, so a MariaDB replica under
    gtid_strict_mode never sees them and goes on with the next logged transaction."""
    master = start_master(tmp_path)
    replica = MariaDBServer(tmp_path / "replica", server_id=2, extra=["--gtid-strict-mode=ON"]).start()
    try:
        make_repl_user(master)
        master.query("CREATE DATABASE g")
        master.query("CREATE TABLE g.t (id INT PRIMARY KEY, v VARCHAR(20))")
        master.query("INSERT INTO g.t VALUES (1, 'a'), (2, 'b')")
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='repl', "
            "MASTER_PASSWORD='replpw'",
            "START SLAVE",
        ])
        _caught_up(master, replica)
        before = (_gtid_binlog_pos(master), _rows(master, "SHOW MASTER STATUS"), master.status("Binlog_commits"))
        conn = master.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SET SESSION sql_log_bin = 0")
                cur.execute("UPDATE g.t SET v = 'here only' WHERE id = 2")
                conn.begin()
                cur.execute("INSERT INTO g.t VALUES (3, 'in a transaction')")
                conn.commit()
                cur.execute("CREATE TABLE g.local (id INT)")
                cur.execute("CREATE USER 'local'@'%'")
                cur.execute("SELECT @@session.sql_log_bin")
                assert cur.fetchone() == (0,)
            assert (_gtid_binlog_pos(master), _rows(master, "SHOW MASTER STATUS"),
                    master.status("Binlog_commits")) == before
            assert _rows(master, "SELECT * FROM g.t ORDER BY id") == [(1, "a"), (2, "here only"), (3, "in a transaction")]
            assert _rows(master, "SHOW TABLES FROM g") == [("local",), ("t",)]
            assert _rows(master, "SELECT User FROM mysql.global_priv WHERE User = 'local'") == [("local",)]
            with conn.cursor() as cur:  # binlogged again
                cur.execute("SET SESSION sql_log_bin = 1")
                cur.execute("INSERT INTO g.t VALUES (4, 'logged')")
        finally:
            conn.close()
        assert _gtid_binlog_pos(master) == "0-1-" + str(int(before[0].split("-")[2]) + 1)
        _caught_up(master, replica)
        assert _rows(replica, "SELECT * FROM g.t ORDER BY id") == [(1, "a"), (2, "b"), (4, "logged")]
        assert _rows(replica, "SHOW TABLES FROM g") == [("t",)]
        assert _rows(replica, "SELECT User FROM mysql.global_priv WHERE User = 'local'") == []
        # the switch's own rules, answered as the MariaDB replica answers them
        replica.execute_all(["SET sql_log_bin = 0", "CREATE USER 'plain'@'%'"])
        master.query("CREATE USER 'plain'@'%'")
        assert _switch_answers(master) == _switch_answers(replica) == [
            (1694, "Cannot modify @@session.sql_log_bin inside a transaction"),
            (1231, "Variable 'sql_log_bin' can't be set to the value of 'x'"),
            (1238, "Variable 'sql_log_bin' is a SESSION variable"),
            ((1,),),
            (1227, "Access denied; you need (at least one of) the SUPER, BINLOG ADMIN privilege(s) for this operation"),
        ]
    finally:
        replica.stop()
        master.stop()


def _switch_answers(server) -> list:
    """SET sql_log_bin inside a transaction, to a bad value, globally; @@global.sql_log_bin;
    SET sql_log_bin by a user without SUPER or BINLOG ADMIN."""
    answers: list = []

    def run(cur, sql: str) -> None:
        try:
            cur.execute(sql)
            answers.append(cur.fetchall())
        except pymysql.MySQLError as e:
            answers.append(e.args)

    conn = server.connect()
    try:
        with conn.cursor() as cur:
            conn.begin()
            cur.execute("SELECT 1")
            run(cur, "SET sql_log_bin = 0")
            run(cur, "SET sql_log_bin = 'x'")
            conn.rollback()
            run(cur, "SET GLOBAL sql_log_bin = 0")
            run(cur, "SELECT @@global.sql_log_bin")
    finally:
        conn.close()
    plain = pymysql.connect(host="127.0.0.1", port=server.port, user="plain")
    try:
        with plain.cursor() as cur:
            run(cur, "SET sql_log_bin = 0")
    finally:
        plain.close()
    return answers
