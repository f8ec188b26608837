"""Client writes on a slave, as a MySQL DBA knows them: refused with 1290 while read_only is ON
(the slave's default); after SET GLOBAL read_only = OFF committed to the slave's own data, without
disturbing replication: the applier's stored position is untouched (a restart neither repeats
nor skips a replicated transaction), and a replicated row that collides with a client's row stops
the applier with 1062 without taking the client's committed row along.
"""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [pytest.mark.slow]


def master_rows(master: Daemon) -> list[tuple]:
    return sorted(master.query("SELECT k FROM d.log"))


def test_client_writes_on_a_slave_keep_its_applier_position_and_survive_a_conflict(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    slave = None
    try:
        for sql in ("CREATE USER repl@'%' IDENTIFIED BY 'replpw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
                    # a client account: no READ_ONLY ADMIN (root writes past read_only, as on MariaDB)
                    "CREATE USER app@'%' IDENTIFIED BY 'apppw'", "GRANT INSERT ON d.* TO app@'%'",
                    "CREATE DATABASE d", "CREATE TABLE d.log (k INT)", "CREATE TABLE d.t (id INT PRIMARY KEY)"):
            master.query(sql)
        for i in range(20):
            master.query(f"INSERT INTO d.log VALUES ({i})")
        # the slave's own writes in a GTID domain of their own (the DBA's way: in the master's
        # domain they would put the master's next GTIDs out of order, 1950 under gtid_strict_mode)
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=7", "--master-host=127.0.0.1", f"--master-port={master.port}", "--master-user=repl",
            "--master-password=replpw", "--master-connect-retry=0.5", "--gtid-domain-id=7",
        ]).start()
        caught_up = lambda: sorted(slave.query("SELECT k FROM d.log")) == master_rows(master)  # noqa: E731
        wait_until(caught_up, what="the slave has the master's rows")

        app = slave.connect(user="app", password="apppw")
        with pytest.raises(pymysql.err.OperationalError) as refused, app.cursor() as cur:
            cur.execute("INSERT INTO d.t VALUES (1)")
        app.close()
        assert refused.value.args[0] == 1290

        slave.query("SET GLOBAL read_only = OFF")
        conn = slave.connect()
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE local")
            cur.execute("CREATE TABLE local.notes (n INT)")
            cur.execute("INSERT INTO local.notes VALUES (1)")
            cur.execute("BEGIN")
            cur.execute("INSERT INTO local.notes VALUES (2)")
            cur.execute("INSERT INTO d.t VALUES (5)")  # the master will insert 5 too
            cur.execute("COMMIT")
        conn.commit()
        conn.close()
        assert sorted(slave.query("SELECT n FROM local.notes")) == [(1,), (2,)]

        for i in range(20, 60):
            master.query(f"INSERT INTO d.log VALUES ({i})")
        wait_until(caught_up, what="replication goes on after the client's writes")

        # kill -9 and restart: the applier resumes at its own position (no repeat, no gap)
        slave.kill9()
        slave.start()
        for i in range(60, 80):
            master.query(f"INSERT INTO d.log VALUES ({i})")
        wait_until(caught_up, what="the restarted slave catches up")
        assert sorted(slave.query("SELECT k FROM d.log")) == [(i,) for i in range(80)]
        assert sorted(slave.query("SELECT n FROM local.notes")) == [(1,), (2,)]

        # a replicated row colliding with the client's: the applier stops with 1062, the
        # client's committed row stays, before and after a restart
        master.query("INSERT INTO d.t VALUES (5)")

        def stopped() -> dict | None:
            status = slave_status(slave.port)
            return status if status["Last_SQL_Errno"] else None

        status = wait_until(stopped, what="the applier stops on the duplicate key")
        assert int(status["Last_SQL_Errno"]) == 1062 and status["Slave_SQL_Running"] == "No"
        assert slave.query("SELECT id FROM d.t") == [(5,)]
        slave.kill9()
        slave.start()
        assert slave.query("SELECT id FROM d.t") == [(5,)]
        assert sorted(slave.query("SELECT n FROM local.notes")) == [(1,), (2,)]
    finally:
        if slave is not None:
            slave.stop()
        master.stop()
