"""`semisync failover` and `semisync switchover` against three stock MariaDB 10.11 servers
replicating by GTID with MariaDB's built-in semi-sync (AFTER_SYNC, strict mode).

What is proven here:
- failover after kill -9 of the master under a writer: `--dry-run` prints the plan and changes
  nothing; the run picks the replica that received the most (not the one that applied the
  most), lifts its MASTER_DELAY keeping its relay log, waits until that is applied, promotes it (read_only OFF, semi-sync master
  ON), repoints the other by GTID, every acknowledged commit is on both, new writes replicate with semi-sync acks; a
  second run says the master is there and changes nothing;
- switchover with everything alive: a failover finds the master and does nothing; a candidate
  that cannot catch up within --wait-timeout leaves the old master writable, nothing changed; the old master
  ends a read-only semi-sync replica of the new one by current_pos, nothing lost (a root client
  writing through the switchover is killed, every INSERT it got OK for is on the new master),
  and the role moves back; a second run does nothing;
- refusals change nothing: no reachable server; two replicas whose GTIDs diverged.
"""

from __future__ import annotations

import pytest

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
from tests.support.net import free_port

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]


@pytest.fixture
def topology(tmp_path):
    """A MariaDB master (server_id 1) with two semi-sync replicas (2, 3) by GTID."""
    servers = []
    try:
        master = semisync_mariadb(tmp_path / "m1", 1, master=True)
        servers.append(master)
        prepare_master(master.port)
        for server_id in (2, 3):
            replica = semisync_mariadb(tmp_path / f"m{server_id}", server_id, master=False)
            servers.append(replica)
            attach(replica.port, master.port)
        for replica in servers[1:]:
            wait_until(lambda r=replica: value(r.port, "SELECT COUNT(*) FROM information_schema.tables "
                                                       "WHERE table_schema = 'd'") == 1,
                       what="the replica to catch up")
        wait_until(lambda: master.status("Rpl_semi_sync_master_clients")
                   .get("Rpl_semi_sync_master_clients") == "2", what="two semi-sync clients")
        yield servers
    finally:
        for server in servers:
            server.stop()


def is_replica_of(port: int, master_port: int) -> bool:
    row = slave_row(port)
    return bool(row and int(row["Master_Port"]) == master_port and row["Slave_IO_Running"] == "Yes"
                and row["Slave_SQL_Running"] == "Yes")


def assert_promoted(port: int) -> None:
    assert slave_row(port) is None
    assert value(port, "SELECT @@read_only") == 0
    assert value(port, "SELECT @@rpl_semi_sync_master_enabled") == 1
    assert value(port, "SELECT @@rpl_semi_sync_slave_enabled") == 0


def test_failover_after_kill9_of_the_master(topology):
    master, r2, r3 = topology
    servers = servers_arg(master.port, r2.port, r3.port)
    creds = ("--replication-user", REPL_USER, "--replication-password", REPL_PASSWORD)
    # r2 applies 10 s late (MASTER_DELAY) and r3 stops receiving half-way: r2 is the one that
    # received the most, with a relay log to apply before it may take over.
    r2.execute_all(["STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY = 10", "START SLAVE"])
    writer = Writer(master.port)
    writer.start()
    writer.wait_acked(100)
    r3.query("STOP SLAVE IO_THREAD")
    writer.wait_acked(len(writer.acked) + 100)
    master.kill()
    writer.join(30)
    assert writer.error is not None and len(writer.acked) >= 200
    for r in (r2, r3):
        wait_until(lambda r=r: slave_row(r.port)["Slave_IO_Running"] != "Yes", what="the IO thread to notice")

    dry = run_tool("failover", "--servers", servers, *creds, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "plan (dry run" in dry.stdout and "RESET SLAVE ALL" in dry.stdout
    assert f"127.0.0.1:{r2.port}: apply the relay log to its end" in dry.stdout
    # its delay is lifted first, at its relay log position (MariaDB's CHANGE MASTER TO without
    # one purges the relay log: the acknowledged commits only it received would be lost)
    assert f"127.0.0.1:{r2.port}: lift its MASTER_DELAY (10 s)" in dry.stdout
    assert "replpw" not in dry.stdout  # the password is never printed
    for r in (r2, r3):
        assert slave_row(r.port) is not None and value(r.port, "SELECT @@read_only") == 1

    done = run_tool("failover", "--servers", servers, *creds)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "MASTER_GTID_WAIT" in done.stdout and "new topology:" in done.stdout
    assert "CHANGE MASTER TO MASTER_DELAY = 0, RELAY_LOG_FILE = " in done.stdout
    promoted, other = r2, r3
    assert_promoted(promoted.port)
    wait_until(lambda: is_replica_of(other.port, promoted.port), what="the other replica to follow")
    assert slave_row(other.port)["Using_Gtid"] == "Slave_Pos"

    # Every acknowledged commit is on the new master and on the other replica.
    acked = set(writer.acked)
    assert acked <= ids(promoted.port)
    wait_until(lambda: ids(other.port) == ids(promoted.port), what="the other replica to catch up")
    # The new master takes writes, acknowledged by its semi-sync replica.
    wait_until(lambda: promoted.status("Rpl_semi_sync_master_clients")
               .get("Rpl_semi_sync_master_clients") == "1", what="a semi-sync client on the new master")
    yes_before = int(promoted.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
    promoted.query("INSERT INTO d.acked VALUES (1000000)")
    assert int(promoted.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]) == yes_before + 1
    wait_until(lambda: 1000000 in ids(other.port), what="the new write on the other replica")

    again = run_tool("failover", "--servers", servers)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"nothing to do: 127.0.0.1:{promoted.port} is the master" in again.stdout
    assert_promoted(promoted.port)
    assert is_replica_of(other.port, promoted.port)


def test_switchover_with_everything_alive_and_back(topology):
    master, r2, r3 = topology
    servers = servers_arg(master.port, r2.port, r3.port)
    master.execute_all([f"INSERT INTO d.acked VALUES ({i})" for i in range(1, 51)])

    alive = run_tool("failover", "--servers", servers)
    assert alive.returncode == 0, alive.stdout + alive.stderr
    assert f"nothing to do: 127.0.0.1:{master.port} is the master" in alive.stdout
    assert is_replica_of(r2.port, master.port) and is_replica_of(r3.port, master.port)

    # The candidate cannot catch up in time (it applies 30 s late): the old master gets its
    # writes back and nothing else changes.
    r2.execute_all(["STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY = 30", "START SLAVE"])
    master.query("INSERT INTO d.acked VALUES (1000)")
    late = run_tool("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{r2.port}",
                    "--wait-timeout", "2")
    assert late.returncode == 1, late.stdout + late.stderr
    assert "did not apply" in late.stderr and "undone" in late.stderr
    assert value(master.port, "SELECT @@read_only") == 0 and is_replica_of(r2.port, master.port)
    r2.execute_all(["STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY = 0", "START SLAVE"])
    master.query("DELETE FROM d.acked WHERE id = 1000")

    dry = run_tool("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{r2.port}", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "SET GLOBAL read_only = ON" in dry.stdout and "MASTER_USE_GTID = current_pos" in dry.stdout
    assert "KILL CONNECTION of every client connection" in dry.stdout
    assert value(master.port, "SELECT @@read_only") == 0 and is_replica_of(r2.port, master.port)

    # A root client (READ_ONLY ADMIN: read_only does not stop it) writes through the switchover:
    # its connection is killed before the old master's position is read, every INSERT it got OK
    # for is on the new master.
    writer = Writer(master.port, start_id=1_000_000)
    writer.start()
    writer.wait_acked(20)
    done = run_tool("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{r2.port}")
    writer.join(60)
    writer.stopped.set()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "KILL CONNECTION" in done.stdout and writer.error is not None, done.stdout
    assert set(writer.acked) <= ids(r2.port), "an acknowledged INSERT is missing on the new master"
    written = {i for i in ids(r2.port) if i >= 1_000_000}
    assert_promoted(r2.port)
    assert value(master.port, "SELECT @@read_only") == 1
    wait_until(lambda: is_replica_of(master.port, r2.port), what="the old master to follow")
    assert slave_row(master.port)["Using_Gtid"] == "Current_Pos"
    wait_until(lambda: is_replica_of(r3.port, r2.port), what="the other replica to follow")
    wait_until(lambda: r2.status("Rpl_semi_sync_master_clients")
               .get("Rpl_semi_sync_master_clients") == "2", what="both replicas as semi-sync clients")
    r2.query("INSERT INTO d.acked VALUES (51)")
    for s in (master, r3):
        wait_until(lambda s=s: ids(s.port) == set(range(1, 52)) | written, what="every row everywhere")

    again = run_tool("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{r2.port}")
    assert again.returncode == 0 and "nothing to do" in again.stdout, again.stdout + again.stderr

    back = run_tool("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{master.port}")
    assert back.returncode == 0, back.stdout + back.stderr
    assert_promoted(master.port)
    wait_until(lambda: is_replica_of(r2.port, master.port) and is_replica_of(r3.port, master.port),
               what="both replicas back on the first master")
    master.query("INSERT INTO d.acked VALUES (52)")
    for s in (r2, r3):
        wait_until(lambda s=s: ids(s.port) == set(range(1, 53)) | written, what="every row everywhere")


def test_refusals_change_nothing(topology):
    master, r2, r3 = topology
    nobody = run_tool("failover", "--servers", servers_arg(free_port(), free_port()))
    assert nobody.returncode == 1
    assert "refused: no server is reachable" in nobody.stderr

    # Each replica commits a transaction of its own: the same seq_no from two server_ids.
    master.query("INSERT INTO d.acked VALUES (1)")
    for r in (r2, r3):
        wait_until(lambda r=r: ids(r.port) == {1}, what="the replica to catch up")
        r.query(f"INSERT INTO d.acked VALUES ({r.server_id * 100})")
    master.kill()
    before = {r.port: (value(r.port, "SELECT @@gtid_current_pos"), slave_row(r.port)["Master_Port"],
                       value(r.port, "SELECT @@read_only")) for r in (r2, r3)}
    diverged = run_tool("failover", "--servers", servers_arg(master.port, r2.port, r3.port))
    assert diverged.returncode == 1
    assert "diverged" in diverged.stderr and "no server was changed" in diverged.stderr
    after = {r.port: (value(r.port, "SELECT @@gtid_current_pos"), slave_row(r.port)["Master_Port"],
                      value(r.port, "SELECT @@read_only")) for r in (r2, r3)}
    assert after == before
