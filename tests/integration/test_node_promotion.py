"""Promotion of a slave, as INTERFACE.md ("Roles, GTIDs and failover") fixes it: every daemon is
one server with both roles and both semi-sync plugins, so a slave keeps a binlog and can serve
replicas once it is promoted.

Our master and two of our slaves (semi-sync). Writes stop; slave A is promoted (`STOP SLAVE;
RESET SLAVE ALL; SET GLOBAL read_only = OFF; SET GLOBAL rpl_semi_sync_master_enabled = ON`);
slave B is pointed at A with the file/position of A's SHOW MASTER STATUS. Writes on A reach B
with semi-sync acks, and the data of A and B are equal.
"""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.slave_daemon import slave_status

pytestmark = [pytest.mark.slow]

MASTER_SEMI_SYNC = "--rpl-semi-sync-master-enabled=ON"
SLAVE_SEMI_SYNC = "--rpl-semi-sync-slave-enabled=ON"  # the source side's is enabled by the promotion


def rows(daemon: Daemon) -> list[tuple]:
    return sorted(daemon.query("SELECT id, v FROM d.t"))


def insert(daemon: Daemon, first: int, count: int) -> None:
    conn = daemon.connect()
    with conn.cursor() as cur:
        for i in range(first, first + count):  # one autocommit transaction each
            cur.execute(f"INSERT INTO d.t VALUES ({i}, 'row {i}')")
    conn.close()


def counter(daemon: Daemon, name: str) -> str:
    return daemon.status(name)[name]


def test_a_promoted_slave_serves_its_former_sibling_with_semi_sync(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1", MASTER_SEMI_SYNC]).start()
    daemons = [master]
    try:
        # written before any slave follows: semi-sync off, then on again (with wait_no_slave the
        # first commit would wait out the whole 10 s timeout for a slave that is not there yet)
        for sql in ("SET GLOBAL rpl_semi_sync_master_enabled = OFF",
                    "CREATE USER repl@'%' IDENTIFIED BY 'pw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
                    # a client account: no READ_ONLY ADMIN (root writes past read_only, as on MariaDB)
                    "CREATE USER app@'%' IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON d.* TO app@'%'",
                    "CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
                    "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
            master.query(sql)
        to_master = [f"--master-port={master.port}", "--master-host=127.0.0.1", "--master-user=repl",
                     "--master-password=pw", "--master-connect-retry=0.5"]
        a = Daemon("slave", tmp_path / "a", ["--server-id=2", SLAVE_SEMI_SYNC, *to_master]).start()
        b = Daemon("slave", tmp_path / "b", ["--server-id=3", SLAVE_SEMI_SYNC, *to_master]).start()
        daemons += [a, b]
        wait_for(lambda: counter(master, "Rpl_semi_sync_master_clients") == "2", message="both slaves ack")
        before = int(counter(master, "Rpl_semi_sync_master_yes_tx"))
        insert(master, 0, 30)
        assert int(counter(master, "Rpl_semi_sync_master_yes_tx")) - before == 30
        for s in (a, b):
            wait_for(lambda s=s: rows(s) == rows(master), message="the slaves have the master's rows")
            # a slave is read-only for clients, and serves no writes before promotion
            app = s.connect(user="app", password="pw")
            with pytest.raises(pymysql.err.OperationalError) as refused, app.cursor() as cur:
                cur.execute("INSERT INTO d.t VALUES (1000, 'refused')")
            app.close()
            assert refused.value.args[0] == 1290

        # -- writes stopped: promote A, point B at it --
        for sql in ("STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF",
                    "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
            a.query(sql)
        assert a.query("SHOW SLAVE STATUS") == []
        assert a.query("SELECT @@read_only, @@rpl_semi_sync_master_enabled, @@rpl_semi_sync_slave_enabled") == [
            (0, 1, 1)]
        (file, pos, *_), = a.query("SHOW MASTER STATUS")
        b.query("STOP SLAVE")
        b.query(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={a.port}, MASTER_USER='repl', "
                f"MASTER_PASSWORD='pw', MASTER_LOG_FILE='{file}', MASTER_LOG_POS={pos}")
        b.query("START SLAVE")
        wait_for(lambda: counter(a, "Rpl_semi_sync_master_clients") == "1", timeout=60,
                 message=lambda: f"B acks A\n{b.tail()}")
        assert counter(b, "Rpl_semi_sync_slave_status") == "ON"

        before = int(counter(a, "Rpl_semi_sync_master_yes_tx"))
        # (A's semi-sync master was ON with no replica while its applier binlogged: no_tx then)
        no_before = counter(a, "Rpl_semi_sync_master_no_tx")
        insert(a, 100, 40)
        assert int(counter(a, "Rpl_semi_sync_master_yes_tx")) - before == 40
        assert counter(a, "Rpl_semi_sync_master_no_tx") == no_before
        wait_for(lambda: rows(b) == rows(a), message="B has A's rows")
        assert len(rows(a)) == 70
        status = slave_status(b.port)
        assert (status["Slave_IO_Running"], status["Slave_SQL_Running"], status["Master_Port"]) == (
            "Yes", "Yes", a.port)
        assert int(status["Master_Server_Id"]) == 2
        # the old master's rows are in A and B once, A's new ones too
        assert [i for i, _ in rows(b)] == [*range(30), *range(100, 140)]
    finally:
        for d in reversed(daemons):
            d.stop()
