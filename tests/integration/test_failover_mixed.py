"""Mixed failover: a MariaDB 10.11 master, our slave and a MariaDB replica, semi-sync by GTID.

kill -9 of the MariaDB master under a writer; `semisync failover` promotes our slave (the one
that received the most: the MariaDB replica stopped receiving half-way); the MariaDB replica
follows it by GTID (MASTER_USE_GTID = slave_pos, served by our dump by GTID from our binlog,
log_slave_updates); no acknowledged commit is lost; new writes on our server are acknowledged
by the MariaDB replica; a second run does nothing.
"""

from __future__ import annotations

import pytest

from tests.support.daemons import Daemon
from tests.support.failover import (
    REPL_PASSWORD,
    REPL_USER,
    Writer,
    attach,
    ids,
    prepare_master,
    run_tool,
    semisync_mariadb,
    servers_arg,
    slave_row,
    value,
    wait_until,
)
from tests.support.mariadb import mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]


def test_mixed_failover_promotes_our_slave(tmp_path):
    started: list = []
    ours = None
    try:
        master = semisync_mariadb(tmp_path / "m1", 1, master=True)
        started.append(master)
        prepare_master(master.port)
        ours = Daemon("slave", tmp_path / "ours", ["--server-id=2", "--rpl-semi-sync-slave-enabled=ON"]).start()
        attach(ours.port, master.port)
        replica = semisync_mariadb(tmp_path / "m3", 3, master=False)
        started.append(replica)
        attach(replica.port, master.port)
        for port in (ours.port, replica.port):
            wait_until(lambda p=port: value(p, "SELECT COUNT(*) FROM d.acked") == 0, 60,
                       what="the replicas to have the table")
        wait_until(lambda: master.status("Rpl_semi_sync_master_clients")
                   .get("Rpl_semi_sync_master_clients") == "2", 60, what="two semi-sync clients")

        writer = Writer(master.port)
        writer.start()
        writer.wait_acked(100)
        replica.query("STOP SLAVE IO_THREAD")
        writer.wait_acked(len(writer.acked) + 100)
        master.kill()
        writer.join(30)
        assert writer.error is not None
        wait_until(lambda: slave_row(ours.port)["Slave_IO_Running"] != "Yes", 60, what="our IO thread to notice")

        servers = servers_arg(master.port, ours.port, replica.port)
        creds = ("--replication-user", REPL_USER, "--replication-password", REPL_PASSWORD)
        done = run_tool("failover", "--servers", servers, *creds)
        assert done.returncode == 0, done.stdout + done.stderr + ours.tail()
        assert slave_row(ours.port) is None
        assert value(ours.port, "SELECT @@read_only") == 0
        assert value(ours.port, "SELECT @@rpl_semi_sync_master_enabled") == 1

        acked = set(writer.acked)
        assert acked <= ids(ours.port)
        wait_until(lambda: (row := slave_row(replica.port)) and int(row["Master_Port"]) == ours.port
                   and row["Slave_IO_Running"] == "Yes", 60, what="the MariaDB replica to follow ours")
        wait_until(lambda: ids(replica.port) == ids(ours.port), 60,
                   what="the MariaDB replica to have every row of ours")
        assert slave_row(replica.port)["Using_Gtid"] == "Slave_Pos"

        wait_until(lambda: ours.status("Rpl_semi_sync_master_clients")
                   .get("Rpl_semi_sync_master_clients") == "1", 60, what="a semi-sync client on ours")
        yes_before = int(ours.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        ours.query("INSERT INTO d.acked VALUES (1000000)")
        assert int(ours.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]) == yes_before + 1
        wait_until(lambda: 1000000 in ids(replica.port), 60, what="the new write on the MariaDB replica")
        assert value(replica.port, "SELECT @@gtid_slave_pos") == value(ours.port, "SELECT @@gtid_binlog_pos")

        again = run_tool("failover", "--servers", servers, *creds)
        assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout + again.stderr
    finally:
        if ours is not None:
            ours.stop()
        for server in started:
            server.stop()
