"""Failover and switchover among our own servers only (a master and two slaves by GTID).

Under a 4-writer load the master is killed with kill -9; `semisync failover` promotes one slave
and repoints the other by GTID; every acknowledged commit is on both; the old master restarted
with --init-rpl-role SLAVE is rejoined by a second `semisync failover` run (current_pos) and ends
equal; `semisync switchover` moves the role back to it with everything alive (our
MASTER_GTID_WAIT, read_only, CHANGE MASTER ... MASTER_USE_GTID = current_pos on the demoted
one), nothing lost. A slave whose relay log cannot be read is refused as a candidate. A root
client writing through `semisync switchover` (root writes past read_only) is kicked before the
old master's position is read: every INSERT it got OK for is on every server afterwards and the
old master holds no GTID the new master lacks.
"""

from __future__ import annotations

import pytest

from protocol.gtid import parse_gtid_list
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


def start_topology(master: Daemon, slaves: list[Daemon]) -> None:
    """The master with the test table, each slave attached by GTID as its semi-sync client."""
    master.start()
    prepare_master(master.port)
    for slave in slaves:
        slave.start()
        attach(slave.port, master.port)
    wait_until(lambda: semisync_clients(master) == str(len(slaves)), 60, what="every semi-sync client")


def test_ours_failover_under_load_rejoin_and_switchover_back(tmp_path):
    master = Daemon("master", tmp_path / "s1", ["--server-id=1", "--rpl-semi-sync-master-enabled=ON",
                                                 "--rpl-semi-sync-master-timeout=30000"])
    slaves = [Daemon("slave", tmp_path / f"s{n}", [f"--server-id={n}", "--rpl-semi-sync-slave-enabled=ON"])
              for n in (2, 3)]
    try:
        start_topology(master, slaves)

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

        # The old master restarts with --init-rpl-role SLAVE (its unacknowledged tail cut); a
        # second failover run rejoins it by GTID; it ends equal.
        master.args.append("--init-rpl-role=SLAVE")
        master.start()
        wait_until(lambda: semisync_clients(promoted) == "1", 60, what="a semi-sync client on the new master")
        promoted.query("INSERT INTO d.acked VALUES (-1)")
        rejoined = run_tool("failover", "--servers", everyone, *CREDS)
        assert rejoined.returncode == 0, rejoined.stdout + rejoined.stderr + master.tail()
        assert f"127.0.0.1:{master.port}: rejoin as a semi-sync replica" in rejoined.stdout, rejoined.stdout
        wait_until(lambda: follows(master.port, promoted.port), 60, what="the old master to follow")
        assert slave_row(master.port)["Using_Gtid"] == "Current_Pos"
        wait_until(lambda: ids(master.port) == ids(promoted.port), 60, what="the old master to catch up")
        assert value(master.port, "SELECT @@gtid_current_pos") == value(promoted.port, "SELECT @@gtid_binlog_pos")

        # Switchover moves the role back to the old master, everything alive, nothing lost.
        wait_until(lambda: semisync_clients(promoted) == "2", 60, what="two semi-sync clients")
        back = run_tool("switchover", "--servers", everyone, "--new-master", f"127.0.0.1:{master.port}", *CREDS)
        assert back.returncode == 0, back.stdout + back.stderr + master.tail()
        assert slave_row(master.port) is None and value(master.port, "SELECT @@read_only") == 0
        assert value(promoted.port, "SELECT @@read_only") == 1
        for s in slaves:
            wait_until(lambda s=s: follows(s.port, master.port), 60, what="both slaves on the old master")
        assert slave_row(promoted.port)["Using_Gtid"] == "Current_Pos"
        wait_until(lambda: semisync_clients(master) == "2", 60, what="two semi-sync clients on the old master")
        master.query("INSERT INTO d.acked VALUES (-2)")
        for s in slaves:
            wait_until(lambda s=s: ids(s.port) == ids(master.port), 60, what="every server equal")
        assert acked | {-1, -2} <= ids(master.port)
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
        # The IO thread stopped too: its relay log file is closed, so the applier reads it back
        # (what the IO thread just received it takes from memory, as it was checked on receipt).
        # A byte of the last received transaction flipped: the applier cannot read it (1594).
        slave.query("STOP SLAVE")
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


def held(port: int) -> dict[tuple[int, int], int]:
    """(domain, server_id) -> the highest seq_no in the server's @@gtid_binlog_state."""
    out: dict[tuple[int, int], int] = {}
    for g in parse_gtid_list(str(value(port, "SELECT @@gtid_binlog_state") or "").strip()):
        out[(g.domain_id, g.server_id)] = max(out.get((g.domain_id, g.server_id), 0), g.seq_no)
    return out


def test_ours_switchover_kicks_a_root_writer(tmp_path):
    # A short timeout while no slave is attached yet (the setup's commits), a long one after.
    master = Daemon("master", tmp_path / "s1", ["--server-id=1", "--rpl-semi-sync-master-enabled=ON",
                                                 "--rpl-semi-sync-master-timeout=500"])
    slaves = [Daemon("slave", tmp_path / f"s{n}", [f"--server-id={n}", "--rpl-semi-sync-slave-enabled=ON"])
              for n in (2, 3)]
    writer = None
    try:
        start_topology(master, slaves)
        master.query("SET GLOBAL rpl_semi_sync_master_timeout = 30000")
        wait_until(lambda: master.status("Rpl_semi_sync_master_status")
                   .get("Rpl_semi_sync_master_status") == "ON", 60, what="semi-sync on")
        new, other = slaves

        # root has READ_ONLY ADMIN: read_only = ON does not stop it; only the kick does.
        writer = Writer(master.port)
        writer.start()
        writer.wait_acked(50)
        done = run_tool("switchover", "--servers", servers_arg(master.port, new.port, other.port),
                        "--new-master", f"127.0.0.1:{new.port}", *CREDS)
        writer.join(60)
        assert done.returncode == 0, done.stdout + done.stderr + master.tail()
        assert "KILL CONNECTION" in done.stdout, done.stdout
        assert not writer.is_alive() and writer.error is not None, "the writer's connection was not killed"
        acked = set(writer.acked)
        assert len(acked) >= 50
        assert slave_row(new.port) is None and value(new.port, "SELECT @@read_only") == 0
        assert acked <= ids(new.port), "an acknowledged INSERT is missing on the new master"
        for s in (master, other):
            wait_until(lambda s=s: follows(s.port, new.port), 60, what="every server on the new master")
            wait_until(lambda s=s: ids(s.port) == ids(new.port), 60, what="every server equal")
        new_held = held(new.port)
        errant = {k: seq for k, seq in held(master.port).items() if new_held.get(k, 0) < seq}
        assert not errant, f"the old master holds GTIDs the new master lacks: {errant}"
    finally:
        if writer is not None:
            writer.stopped.set()
        for server in (master, *slaves):
            server.stop()
