"""Failover and switchover among our own servers only (a master and two slaves by GTID).

Under a 4-writer load the master is killed with kill -9; `semisync failover` promotes one slave
and repoints the other by GTID; every acknowledged commit is on both; then `semisync switchover`
moves the role to the other survivor with everything alive (our MASTER_GTID_WAIT, read_only and
CHANGE MASTER ... MASTER_USE_GTID = current_pos on the demoted one) and nothing is lost.
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
    servers_arg,
    slave_row,
    value,
    wait_until,
)

pytestmark = [pytest.mark.slow]

CREDS = ("--replication-user", REPL_USER, "--replication-password", REPL_PASSWORD)


def follows(port: int, master_port: int) -> bool:
    row = slave_row(port)
    return bool(row and int(row["Master_Port"]) == master_port and row["Slave_IO_Running"] == "Yes")


def semisync_clients(server: Daemon) -> str | None:
    return server.status("Rpl_semi_sync_master_clients").get("Rpl_semi_sync_master_clients")


def test_ours_failover_under_load_then_switchover(tmp_path):
    master = Daemon("master", tmp_path / "s1", ["--server-id=1", "--rpl-semi-sync-master-enabled=ON",
                                                 "--rpl-semi-sync-master-timeout=30000"])
    slaves = [Daemon("slave", tmp_path / f"s{n}", [f"--server-id={n}", "--rpl-semi-sync-slave-enabled=ON"])
              for n in (2, 3)]
    try:
        master.start()
        prepare_master(master.port)
        for slave in slaves:
            slave.start()
            attach(slave.port, master.port)
        wait_until(lambda: semisync_clients(master) == "2", 60, what="two semi-sync clients")

        writers = [Writer(master.port, start_id=k * 1_000_000 + 1) for k in range(4)]
        for w in writers:
            w.start()
        for w in writers:
            w.wait_acked(50)
        master.kill9()
        for w in writers:
            w.join(30)
        acked = {i for w in writers for i in w.acked}
        for s in slaves:
            wait_until(lambda s=s: slave_row(s.port)["Slave_IO_Running"] != "Yes", 60, what="the IO thread to notice")

        everyone = servers_arg(master.port, *(s.port for s in slaves))
        done = run_tool("failover", "--servers", everyone, *CREDS)
        assert done.returncode == 0, done.stdout + done.stderr
        promoted = next(s for s in slaves if slave_row(s.port) is None)
        other = next(s for s in slaves if s is not promoted)
        assert value(promoted.port, "SELECT @@read_only") == 0
        assert acked <= ids(promoted.port), "an acknowledged commit is missing on the new master"
        wait_until(lambda: follows(other.port, promoted.port), 60, what="the other slave to follow")
        wait_until(lambda: ids(other.port) == ids(promoted.port), 60, what="the other slave to catch up")
        assert acked <= ids(other.port)

        # Switchover between the survivors, everything alive.
        survivors = servers_arg(promoted.port, other.port)
        wait_until(lambda: semisync_clients(promoted) == "1", 60, what="a semi-sync client on the new master")
        promoted.query("INSERT INTO d.acked VALUES (-1)")
        moved = run_tool("switchover", "--servers", survivors, "--new-master", f"127.0.0.1:{other.port}", *CREDS)
        assert moved.returncode == 0, moved.stdout + moved.stderr + other.tail() + promoted.tail()
        assert slave_row(other.port) is None and value(other.port, "SELECT @@read_only") == 0
        assert value(promoted.port, "SELECT @@read_only") == 1
        wait_until(lambda: follows(promoted.port, other.port), 60, what="the demoted master to follow")
        assert slave_row(promoted.port)["Using_Gtid"] == "Current_Pos"
        wait_until(lambda: semisync_clients(other) == "1", 60, what="the demoted master as a semi-sync client")
        other.query("INSERT INTO d.acked VALUES (-2)")
        wait_until(lambda: ids(promoted.port) == ids(other.port), 60, what="both equal")
        assert acked | {-1, -2} <= ids(promoted.port)
    finally:
        for server in (master, *slaves):
            server.stop()


def test_ours_failover_refuses_a_slave_whose_relay_log_is_unreadable(tmp_path):
    master = Daemon("master", tmp_path / "s1", ["--server-id=1", "--rpl-semi-sync-master-enabled=ON",
                                                 "--rpl-semi-sync-master-timeout=30000"])
    slave = Daemon("slave", tmp_path / "s2", ["--server-id=2", "--rpl-semi-sync-slave-enabled=ON"])
    try:
        master.start()
        prepare_master(master.port)
        slave.start()
        attach(slave.port, master.port)
        wait_until(lambda: ids(slave.port) == set(), 60, what="the slave to have the table")
        slave.query("STOP SLAVE SQL_THREAD")
        for i in range(1, 21):
            master.query(f"INSERT INTO d.acked VALUES ({i})")
        binlog_pos = value(master.port, "SELECT @@gtid_binlog_pos")
        wait_until(lambda: slave_row(slave.port)["Gtid_IO_Pos"] == binlog_pos, 60, what="the slave to receive all")
        # A byte of the last received transaction flipped: the applier cannot read it (1594).
        relay = sorted(slave.datadir.glob("relay-bin.[0-9]*"))[-1]
        data = bytearray(relay.read_bytes())
        data[-40] ^= 0xFF
        relay.write_bytes(bytes(data))
        slave.query("START SLAVE SQL_THREAD")
        wait_until(lambda: int(slave_row(slave.port)["Last_SQL_Errno"]) == 1594, 60, what="the applier's 1594")
        master.kill9()
        wait_until(lambda: slave_row(slave.port)["Slave_IO_Running"] != "Yes", 60, what="the IO thread to notice")

        refused = run_tool("failover", "--servers", servers_arg(master.port, slave.port), *CREDS)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "no candidate is safe" in refused.stderr and "relay log is unreadable (error 1594" in refused.stderr
        assert "no server was changed" in refused.stderr
        assert slave_row(slave.port) is not None and value(slave.port, "SELECT @@read_only") == 1
    finally:
        for server in (master, slave):
            server.stop()
