"""The failover/switchover planner (cli/failover_plan.py) on observed states, no servers."""

from __future__ import annotations

import pytest

from cli.failover_plan import (
    PROMOTE,
    Address,
    CatchUp,
    Credentials,
    KickWriters,
    LiftDelay,
    Plan,
    Refusal,
    Replica,
    Run,
    ServerState,
    WaitApplied,
    kicked,
    missing_from,
    plan_failover,
    plan_switchover,
)
from protocol.gtid import GtidPosition, parse_gtid_list

CREDS = Credentials("repl", "secret")
M, A, B = Address("10.0.0.1", 3306), Address("10.0.0.2", 3306), Address("10.0.0.3", 3306)


def pos(text: str) -> GtidPosition:
    return GtidPosition.parse(text)


def replica(address: Address, io: str, applied: str | None = None, *, master: Address = M,
            io_running: str = "Connecting", server_id: int = 0, **kw) -> ServerState:
    applied = io if applied is None else applied
    fields = {k: kw.pop(k) for k in ("sql_running", "io_errno", "io_error", "sql_errno", "sql_error",
                                     "sql_delay") if k in kw}
    return ServerState(
        address, reachable=True, server_id=server_id or address.port, read_only=True,
        current_pos=pos(kw.pop("current", applied)), slave_pos=pos(applied),
        replica=Replica(master, io_running=io_running, using_gtid="Slave_Pos", io_pos=pos(io),
                        sql_running=fields.pop("sql_running", True), **fields),
        **kw)


def down(address: Address) -> ServerState:
    return ServerState(address, reachable=False, unreachable_reason="connection refused")


def master(address: Address, binlog: str, server_id: int = 1) -> ServerState:
    return ServerState(address, reachable=True, server_id=server_id, binlog_pos=pos(binlog),
                       current_pos=pos(binlog), slave_pos=GtidPosition())


def test_address_parse():
    assert Address.parse("h:3307") == Address("h", 3307)
    assert Address.parse("h") == Address("h", 3306)
    for bad in ("h:x", ":3306", "h:0", "h:70000"):
        with pytest.raises(ValueError):
            Address.parse(bad)


def test_missing_from_sees_lower_absent_and_diverged():
    assert missing_from(pos("0-1-10"), pos("0-1-9")) is None
    assert missing_from(pos("0-1-10"), pos("0-1-10")) is None
    assert str(missing_from(pos("0-1-10"), pos("0-1-11"))) == "0-1-11"
    assert str(missing_from(pos("0-1-10"), pos("0-1-10,1-1-3"))) == "1-1-3"
    assert str(missing_from(pos("0-1-10"), pos("0-2-10"))) == "0-2-10"  # same seq_no, other server


def test_failover_promotes_the_most_received_and_waits_for_its_relay_log():
    plan = plan_failover([down(M), replica(A, "0-1-10", "0-1-7"), replica(B, "0-1-9")], CREDS)
    assert isinstance(plan, Plan) and plan.new_master == A
    wait, promote, repoint = plan.steps
    assert wait == WaitApplied(A, wait.why, pos("0-1-10"))
    assert isinstance(promote, Run) and promote.server == A and promote.statements == PROMOTE
    assert isinstance(repoint, Run) and repoint.server == B
    assert repoint.statements[0] == "STOP SLAVE" and repoint.statements[-1] == "START SLAVE"
    assert "MASTER_HOST = '10.0.0.2', MASTER_PORT = 3306" in repoint.statements[1]
    assert "MASTER_USE_GTID = slave_pos" in repoint.statements[1]
    assert "'secret'" in repoint.statements[1] and "secret" not in " ".join(repoint.shown)
    assert any("10.0.0.1:3306" in note and "--init-rpl-role SLAVE" in note for note in plan.notes)


def test_a_delayed_candidate_has_its_delay_lifted_before_the_wait_and_a_switchover_notes_it():
    plan = plan_failover([down(M), replica(A, "0-1-10", "0-1-7", sql_delay=3600), replica(B, "0-1-9")], CREDS)
    assert isinstance(plan, Plan) and plan.new_master == A
    lift, wait, promote, _repoint = plan.steps
    assert lift == LiftDelay(A, lift.why) and "3600 s" in lift.why
    assert wait == WaitApplied(A, wait.why, pos("0-1-10"))
    assert isinstance(promote, Run) and promote.statements == PROMOTE
    # applied everything it received already: nothing to lift (RESET SLAVE ALL clears the delay)
    plan = plan_failover([down(M), replica(A, "0-1-10", sql_delay=3600), replica(B, "0-1-9")], CREDS)
    assert isinstance(plan, Plan) and not any(isinstance(s, LiftDelay | WaitApplied) for s in plan.steps)
    # a switchover keeps the delay: the catch-up waits for it, the plan says so
    servers = [master(M, "0-1-10"), replica(A, "0-1-10", io_running="Yes", sql_delay=30),
               replica(B, "0-1-9", io_running="Yes")]
    plan = plan_switchover(servers, A, CREDS)
    assert isinstance(plan, Plan) and not any(isinstance(s, LiftDelay) for s in plan.steps)
    assert any("MASTER_DELAY 30 s" in note for note in plan.notes)


def test_failover_ties_go_to_the_most_applied_then_the_first_listed():
    plan = plan_failover([replica(A, "0-1-10", "0-1-8"), replica(B, "0-1-10", "0-1-9")], CREDS)
    assert isinstance(plan, Plan) and plan.new_master == B
    plan = plan_failover([replica(A, "0-1-10"), replica(B, "0-1-10")], CREDS)
    assert isinstance(plan, Plan) and plan.new_master == A
    assert not any(isinstance(s, WaitApplied) for s in plan.steps)  # nothing left to apply


def test_failover_refuses_when_no_server_answers():
    outcome = plan_failover([down(M), down(A)], CREDS)
    assert isinstance(outcome, Refusal) and outcome.reason.startswith("no server is reachable")


def test_failover_refuses_diverged_candidates():
    outcome = plan_failover([replica(A, "0-1-10", current="0-2-11"), replica(B, "0-1-10", current="0-3-11")], CREDS)
    assert isinstance(outcome, Refusal) and "diverged" in outcome.reason


def test_failover_refuses_when_an_unfit_replica_holds_more_than_the_candidate():
    stopped = replica(B, "0-1-12", sql_running=False, sql_errno=1062, sql_error="Duplicate entry")
    outcome = plan_failover([replica(A, "0-1-10"), stopped], CREDS)
    assert isinstance(outcome, Refusal) and "0-1-12" in outcome.reason and str(B) in outcome.reason


def test_failover_refuses_an_unreadable_relay_log():
    broken = replica(A, "0-1-10", io_errno=1595, io_error="Relay log write failure")
    outcome = plan_failover([down(M), broken], CREDS)
    assert isinstance(outcome, Refusal)
    assert "no candidate is safe" in outcome.reason and "relay log is unreadable" in outcome.reason
    outcome = plan_failover([replica(A, "0-1-10", sql_running=False, sql_errno=1594, sql_error="x")], CREDS)
    assert isinstance(outcome, Refusal) and "relay log is unreadable (error 1594" in outcome.reason


def test_failover_refuses_without_a_binlog_or_an_applier():
    no_binlog = replica(A, "0-1-10", log_bin=False)
    no_applier = replica(B, "0-1-10", sql_running=False)
    outcome = plan_failover([no_binlog, no_applier], CREDS)
    assert isinstance(outcome, Refusal)
    assert "log_bin OFF" in outcome.reason and "Slave_SQL_Running" in outcome.reason


def test_failover_refuses_while_the_master_answers_or_an_io_thread_is_connected():
    elsewhere = Address("10.0.0.9", 3306)
    alive = master(elsewhere, "0-1-10")
    outcome = plan_failover([replica(A, "0-1-10", master=elsewhere)], CREDS, [alive])
    assert isinstance(outcome, Refusal) and "10.0.0.9:3306 is alive" in outcome.reason
    outcome = plan_failover([replica(A, "0-1-10", io_running="Yes"), replica(B, "0-1-10")], CREDS)
    assert isinstance(outcome, Refusal) and "still connected" in outcome.reason


def test_failover_twice_finds_the_master_and_does_nothing():
    outcome = plan_failover([down(M), master(A, "0-2-13", server_id=2),
                             replica(B, "0-2-13", master=A, io_running="Yes")], CREDS)
    assert isinstance(outcome, Plan) and outcome.nothing_to_do and outcome.new_master == A


def test_failover_repoints_what_a_first_run_left_behind():
    outcome = plan_failover([master(A, "0-1-10", server_id=2), replica(B, "0-1-9")], CREDS)
    assert isinstance(outcome, Plan) and outcome.new_master == A
    (step,) = outcome.steps
    assert isinstance(step, Run) and step.server == B
    outcome = plan_failover([master(A, "0-1-10", server_id=2), replica(B, "0-1-11")], CREDS)
    assert isinstance(outcome, Refusal) and "0-1-11" in outcome.reason


def test_failover_refuses_two_masters_nobody_follows():
    outcome = plan_failover([master(A, "0-1-1"), master(B, "0-1-1")], CREDS)
    assert isinstance(outcome, Refusal) and "several reachable servers" in outcome.reason


def test_switchover_plan_order():
    servers = [master(M, "0-1-10"), replica(A, "0-1-10", io_running="Yes"), replica(B, "0-1-9", io_running="Yes")]
    plan = plan_switchover(servers, A, CREDS)
    assert isinstance(plan, Plan)
    read_only, kick, catch_up, promote, repoint, demote = plan.steps
    assert isinstance(read_only, Run) and read_only.server == M
    assert read_only.statements == ("SET GLOBAL read_only = ON",)
    # the writers read_only does not bind (READ_ONLY ADMIN) are gone before the position is read
    assert kick == KickWriters(M, kick.why)
    assert catch_up == CatchUp(A, catch_up.why, M)
    assert isinstance(promote, Run) and promote.statements == PROMOTE
    assert isinstance(repoint, Run) and repoint.server == B and "slave_pos" in repoint.statements[1]
    assert isinstance(demote, Run) and demote.server == M
    assert "MASTER_USE_GTID = current_pos" in demote.statements[2]
    assert demote.statements[0] == "SET GLOBAL rpl_semi_sync_master_enabled = OFF"
    assert demote.statements[1] == "SET GLOBAL rpl_semi_sync_slave_enabled = ON"
    assert demote.statements[-1] == "START SLAVE"
    # a failed kick or wait gives the old master its writes back; from the promotion on, nothing
    # is undone
    assert plan.steps[plan.undo_before] is promote
    assert plan.undo_before == 3 and [u.statements for u in plan.undo] == [("SET GLOBAL read_only = OFF",)]
    assert plan.undo[0].server == M


def test_switchover_refusals():
    healthy = [master(M, "0-1-10"), replica(A, "0-1-10", io_running="Yes")]
    assert isinstance(plan_switchover(healthy, B, CREDS), Refusal)  # not listed
    outcome = plan_switchover([master(M, "0-1-10"), replica(A, "0-1-10", io_running="Yes"), down(B)], A, CREDS)
    assert isinstance(outcome, Refusal) and "needs every server alive" in outcome.reason
    outcome = plan_switchover([master(M, "0-1-10"), replica(A, "0-1-10")], A, CREDS)
    assert isinstance(outcome, Refusal) and "IO thread is not connected" in outcome.reason
    errant = replica(A, "0-1-10", current="0-2-11", io_running="Yes")
    outcome = plan_switchover([master(M, "0-1-10"), errant], A, CREDS)
    assert isinstance(outcome, Refusal) and "errant" in outcome.reason
    # observed while a client still writes: a replica ahead of the master on the master's own
    # GTIDs is not errant
    ahead = plan_switchover([master(M, "0-1-10"), replica(A, "0-1-12", io_running="Yes", current="0-1-12",
                                                          binlog_state=parse_gtid_list("0-1-12"))], A, CREDS)
    assert isinstance(ahead, Plan)
    done = [master(A, "0-1-10", server_id=2), replica(M, "0-1-10", master=A, io_running="Yes")]
    outcome = plan_switchover(done, A, CREDS)
    assert isinstance(outcome, Plan) and outcome.nothing_to_do


def test_an_errant_transaction_under_a_higher_seq_no_is_seen():
    # B once committed 0-3-100 itself, then replicated on to 0-1-290: its position hides it,
    # its binlog state does not.
    errant = replica(B, "0-1-290", binlog_state=parse_gtid_list("0-3-100,0-1-290"))
    outcome = plan_failover([replica(A, "0-1-300", binlog_state=parse_gtid_list("0-1-300")), errant], CREDS)
    assert isinstance(outcome, Refusal) and "0-3-100" in outcome.reason and "errant" in outcome.reason


def test_a_tail_the_new_master_never_had_is_seen_under_its_own_higher_seq_no():
    # A was promoted at 0-1-300 and wrote 0-2-301..310; B still holds 0-1-302 from the old master.
    promoted = ServerState(A, reachable=True, server_id=2, binlog_pos=pos("0-2-310"), current_pos=pos("0-2-310"),
                           binlog_state=parse_gtid_list("0-1-300,0-2-310"))
    outcome = plan_failover([promoted, replica(B, "0-1-302")], CREDS)
    assert isinstance(outcome, Refusal) and "0-1-302" in outcome.reason
    outcome = plan_failover([promoted, replica(B, "0-1-299")], CREDS)
    assert isinstance(outcome, Plan) and [s.server for s in outcome.steps] == [B]


def test_a_former_master_that_came_back_rejoins_only_without_errant_gtids():
    promoted = ServerState(A, reachable=True, server_id=2, binlog_pos=pos("0-2-310"), current_pos=pos("0-2-310"),
                           binlog_state=parse_gtid_list("0-1-300,0-2-310"))
    follower = replica(B, "0-2-310", master=A, io_running="Yes")
    cut = ServerState(M, reachable=True, server_id=1, binlog_pos=pos("0-1-300"), current_pos=pos("0-1-300"),
                      binlog_state=parse_gtid_list("0-1-300"))
    for servers in ([cut, promoted, follower], [cut, promoted]):  # with a replica, or by GTIDs alone
        plan = plan_failover(servers, CREDS)
        assert isinstance(plan, Plan) and plan.new_master == A
        read_only, kick, rejoin = plan.steps
        assert isinstance(read_only, Run) and read_only.server == M
        assert read_only.statements == ("SET GLOBAL read_only = ON",)
        assert kick == KickWriters(M, kick.why)  # its clients go before it replicates
        assert isinstance(rejoin, Run) and rejoin.server == M
        assert "MASTER_HOST = '10.0.0.2'" in rejoin.statements[2] and "current_pos" in rejoin.statements[2]
        assert rejoin.statements[-1] == "START SLAVE"
    uncut = ServerState(M, reachable=True, server_id=1, binlog_pos=pos("0-1-302"), current_pos=pos("0-1-302"),
                        binlog_state=parse_gtid_list("0-1-302"))
    plan = plan_failover([uncut, promoted, follower], CREDS)
    assert isinstance(plan, Plan) and plan.nothing_to_do
    assert any("0-1-302" in note and "--init-rpl-role SLAVE" in note for note in plan.notes)
    outcome = plan_failover([uncut, promoted], CREDS)  # nobody follows, neither holds the other's
    assert isinstance(outcome, Refusal)


def test_a_kick_ends_every_client_connection_but_its_own_and_the_replication_threads():
    processlist = [
        (1, "root", "Query"),  # a writer read_only does not bind
        (2, "app", "Sleep"),
        (3, "repl", "Binlog Dump"),  # a replica still reading the binlog
        (4, "root", "Query"),  # the kick's own connection
        (5, "system user", "Daemon"),
        (6, "event_scheduler", "Daemon"),
        (7, "system user", "Slave_SQL"),
        (8, "root", "Killed"),  # killed already, still in its commit
    ]
    assert kicked(processlist, own_id=4) == [1, 2, 8]
    assert kicked([(4, "root", "Query")], own_id=4) == []
