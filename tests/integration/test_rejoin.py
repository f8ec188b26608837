"""A crashed master's rejoin: kill -9 while commits wait for a semi-sync ack that never comes
(AFTER_SYNC, a long rpl_semi_sync_master_timeout: the group is fsynced in the binlog, never
committed in the engine), then a restart with --init-rpl-role SLAVE cuts that tail from the
binlog (across a rotation), logs MariaDB's line, and a stock MariaDB replica attached afterwards
gets exactly the committed transactions. The same crashed datadir restarted with the default
--init-rpl-role MASTER keeps today's recovery: the tail is replayed."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import mariadb_available
from tests.support.master import make_repl_user, start_replica, wait_caught_up
from tests.support.slave_daemon import normalized_rows, slave_status, wait_applied, wait_until

pytestmark = pytest.mark.timeout(240)

FILLER = "f" * 600  # rows this wide: the waiting group takes the file past max_binlog_size
TRUNCATED = re.compile(
    r"Successfully truncated binlog file:\./(mysql-bin\.\d{6}) from previous file size (\d+) to pos:(\d+) "
    r"to remove transactions starting from GTID (\d+)-(\d+)-(\d+)")


def _waiting(master: Daemon) -> int:
    return sum(row[6] == "Waiting for semi-sync ACK from slave" for row in master.query("SHOW PROCESSLIST"))


def _binlog_gtids(datadir, daemon: Daemon) -> list[tuple[int, int, int]]:
    """The GTIDs of the daemon's binlog, as mariadb-binlog reads them (checksums verified)."""
    files = [str(datadir / n) for n, _ in daemon.query("SHOW BINARY LOGS")]
    out = subprocess.run(["mariadb-binlog", "--no-defaults", "--verify-binlog-checksum", *files],
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()
    return [(int(d), int(s), int(n)) for d, s, n in re.findall(r"\bGTID (\d+)-(\d+)-(\d+)", out.stdout.decode())]


def _values(daemon, table: str = "rj.t") -> set[str]:
    return {v for (v,) in daemon.query(f"SELECT v FROM {table}")}


@pytest.mark.skipif(not mariadb_available(), reason="needs mariadbd")
def test_slave_role_truncates_the_unacked_tail_and_a_replica_never_gets_it(tmp_path):
    datadir = tmp_path / "master"
    options = ["--server-id=1", "--max-binlog-size=4096", "--rpl-semi-sync-master-timeout=600000"]
    master = Daemon("master", datadir, options).start()
    try:
        master.query("CREATE DATABASE rj")
        master.query("CREATE TABLE rj.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), pad VARCHAR(2000))")
        make_repl_user(master)
        committed = {f"c{i}" for i in range(3)}
        for v in sorted(committed):
            master.query(f"INSERT INTO rj.t (v, pad) VALUES ('{v}', '{FILLER}')")
        assert master.query("SHOW BINARY LOGS")[-1][0] == "mysql-bin.000001"
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")  # no slave: no ack ever comes
        waiting = [f"w{n}" for n in range(4)]

        errors: list[Exception] = []

        def writer(value: str) -> None:
            try:
                master.query(f"INSERT INTO rj.t (v, pad) VALUES ('{value}', '{FILLER * 2}')")
            except Exception as exc:  # the kill -9 ends the connection
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(v,), daemon=True) for v in waiting]
        for t in threads:
            t.start()
        wait_for(lambda: _waiting(master) >= 1, 30, message=lambda: f"a commit waiting for an ack ({errors})")
        # the waiting group took the file past 4096 bytes: the binlog rotated after it
        wait_for(lambda: len(master.query("SHOW BINARY LOGS")) == 2, 30, message="the rotation after the group")
        master.kill9()
        for t in threads:
            t.join(10)
        shutil.copytree(datadir, tmp_path / "as_master")
        tail_start = (datadir / "mysql-bin.000001").stat().st_size

        # --init-rpl-role SLAVE: the tail is gone from the binlog and the engine, the line is logged
        master.args.append("--init-rpl-role=SLAVE")
        master.start()
        lines = [m for m in TRUNCATED.finditer(master.log.read_text())]
        assert len(lines) == 1, master.tail()
        name, old_size, pos, domain, server_id, seq = lines[0].groups()
        assert (name, int(old_size)) == ("mysql-bin.000001", tail_start) and int(pos) < tail_start
        assert master.query("SELECT @@init_rpl_role") == [("SLAVE",)]
        assert master.query("SHOW GLOBAL VARIABLES LIKE 'init_rpl_role'") == [("init_rpl_role", "SLAVE")]
        with pytest.raises(pymysql.err.OperationalError) as refused:  # read-only, as MariaDB's
            master.query("SET GLOBAL init_rpl_role = 'MASTER'")
        assert refused.value.args[0] == 1238
        assert _values(master) == committed
        # the file after the cut one was removed and started afresh by the restart
        assert [n for n, _ in master.query("SHOW BINARY LOGS")] == ["mysql-bin.000001", "mysql-bin.000002"]
        assert master.query("SHOW BINLOG EVENTS IN 'mysql-bin.000001'")[-1][4] == int(pos)
        infos = [row[5] for n, _ in master.query("SHOW BINARY LOGS")
                 for row in master.query(f"SHOW BINLOG EVENTS IN '{n}'")]
        assert not [i for i in infos if re.search(r"'w\d'", i)]
        gtids = _binlog_gtids(datadir, master)
        # the first removed GTID is the one after the last kept, and no longer in the binlog
        assert (domain, server_id) == ("0", "1") and gtids[-1] == (0, 1, int(seq) - 1), gtids
        # the binlog's GTID state lacks it: the next transaction is numbered with it again
        master.query("INSERT INTO rj.t (v) VALUES ('after')")
        assert _binlog_gtids(datadir, master)[-1] == (0, 1, int(seq))

        # a stock MariaDB replica attached now gets the committed transactions, never the tail
        replica = start_replica(tmp_path, master)
        try:
            wait_caught_up(master, replica)
            assert {v for (v,) in replica.query("SELECT v FROM rj.t")} == committed | {"after"}
        finally:
            replica.stop()
    finally:
        master.stop()

    # the default, --init-rpl-role MASTER: the crashed tail is replayed (today's recovery)
    as_master = Daemon("master", tmp_path / "as_master", options).start()
    try:
        assert as_master.query("SELECT @@init_rpl_role") == [("MASTER",)]
        replayed = _values(as_master) - committed
        assert replayed and replayed <= set(waiting)
        assert "truncated binlog file" not in as_master.log.read_text()
    finally:
        as_master.stop()


@pytest.mark.parametrize("tail", ["never_sent", "received_by_the_slave"])
def test_the_old_master_rejoins_the_promoted_slave_and_ends_equal(tmp_path, tail):
    """Ours only: master M and our semi-sync slave S; M's last group waits for an ack and M is
    killed (-9). `never_sent`: S stopped replicating first, so only M has the group.
    `received_by_the_slave` (MariaDB's rpl_semi_sync_fail_over.test, case 1): S received, acked
    and applied it, but M waits for a second ack (wait_for_slave_count 2), so M's engine never
    committed it. S is promoted and takes writes; M restarts with --init-rpl-role SLAVE (the
    group cut, the line logged), is demoted as INTERFACE.md says (MASTER_USE_GTID = current_pos),
    gets back from S whatever S had of the group (its own GTIDs) and ends equal to S. In the
    `never_sent` case the same crashed M restarted with the default MASTER keeps the group: an
    errant GTID, which S refuses to serve (1236, diverged)."""
    m_options = ["--server-id=1", "--rpl-semi-sync-master-timeout=600000", "--rpl-semi-sync-slave-enabled=ON"]
    master = Daemon("master", tmp_path / "m", m_options).start()
    slave = None
    try:
        master.query("CREATE DATABASE rj")
        master.query("CREATE TABLE rj.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20))")
        make_repl_user(master)
        slave = Daemon("slave", tmp_path / "s", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}", "--master-user=repl",
            "--master-password=replpw", "--master-connect-retry=1", "--rpl-semi-sync-slave-enabled=ON",
        ]).start()
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        wait_for(lambda: master.status("Rpl_semi_sync_master_clients").get("Rpl_semi_sync_master_clients") == "1",
                 30, message="the slave's semi-sync connection")
        for i in range(10):
            master.query(f"INSERT INTO rj.t (v) VALUES ('acked{i}')")
        acked = _values(master)
        wait_applied(master, slave)
        if tail == "never_sent":
            slave.query("STOP SLAVE")  # no more acks: M's next group waits
        else:  # S acks, M waits for an ack S cannot give
            master.query("SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 2")
        errors: list[Exception] = []

        def writer(value: str) -> None:
            try:
                master.query(f"INSERT INTO rj.t (v) VALUES ('{value}')")
            except Exception as exc:  # the kill -9 ends the connection
                errors.append(exc)

        threads = [threading.Thread(target=writer, args=(f"w{n}",), daemon=True) for n in range(4)]
        for t in threads:
            t.start()
        wait_for(lambda: _waiting(master) >= 1, 30, message=lambda: f"a commit waiting for an ack ({errors})")
        if tail == "received_by_the_slave":
            wait_for(lambda: _values(slave) - acked, 30, message="the slave applying the waiting group")
        master.kill9()
        for t in threads:
            t.join(10)
        shutil.copytree(tmp_path / "m", tmp_path / "m_as_master")
        received = _values(slave) - acked  # what S has of the waiting group
        assert bool(received) == (tail == "received_by_the_slave") and received <= {f"w{n}" for n in range(4)}

        # failover: S is promoted (INTERFACE.md's promotion) and takes writes
        for sql in ("STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF"):
            slave.query(sql)
        for i in range(5):
            slave.query(f"INSERT INTO rj.t (v) VALUES ('new{i}')")
        assert _values(slave) == acked | received | {f"new{i}" for i in range(5)}

        # M rejoins as a slave of S
        master.args.append("--init-rpl-role=SLAVE")
        master.start()
        assert len(TRUNCATED.findall(master.log.read_text())) == 1, master.tail()
        assert _values(master) == acked
        demote = ("SET GLOBAL read_only = ON",
                  f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={slave.port}, MASTER_USER='repl', "
                  "MASTER_PASSWORD='replpw', MASTER_CONNECT_RETRY=1, MASTER_USE_GTID=current_pos",
                  "START SLAVE")
        for sql in demote:
            master.query(sql)
        wait_applied(slave, master)
        assert normalized_rows(master.query("SELECT id, v FROM rj.t")) == normalized_rows(
            slave.query("SELECT id, v FROM rj.t"))
        assert {v for v in _values(master) if v.startswith("w")} == received
        assert master.query("SELECT @@gtid_current_pos") == slave.query("SELECT @@gtid_binlog_pos")
        if tail != "never_sent":
            return

        # the default role instead: the unacked tail is replayed, and S cannot serve M any more
        as_master = Daemon("master", tmp_path / "m_as_master", m_options).start()
        try:
            assert {v for v in _values(as_master) if v.startswith("w")}
            for sql in demote:
                as_master.query(sql)
            status = wait_until(lambda: int((st := slave_status(as_master.port))["Last_IO_Errno"]) and st,
                                timeout=30, what="the IO thread's error")
            assert (int(status["Last_IO_Errno"]), "diverged" in status["Last_IO_Error"]) == (1236, True), status
        finally:
            as_master.stop()
    finally:
        for daemon in (slave, master):
            if daemon is not None:
                daemon.stop()
