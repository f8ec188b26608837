"""The semi-sync master plugin driven through the replication interface, with a fake clock.

Each test plays the master shell (tests/support/semisync_harness.py): commit groups run
`after_flush` then wait in `after_sync` (AFTER_SYNC) or `after_commit` (AFTER_COMMIT) as tasks,
dump sessions send events through `before_send_event`/`after_send_event`, the ack receiver calls
`handle_ack`. Timeouts fire only when the test advances the clock.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Sequence

import pytest

from protocol.errors import RemoteProtocolError, SQLError
from protocol.events import LOG_EVENT_ARTIFICIAL_F
from protocol.position import BinlogPosition
from semisync.commit_gate import CommitGate, Outcome
from semisync.interface import (
    BinlogTransmitObserver,
    CommitVerdict,
    SendBatch,
    SendParam,
    TransParam,
)
from semisync.master_plugin import WAITING_STATE, SemiSyncMasterPlugin
from tests.support.semisync_harness import (
    BINLOG,
    HEARTBEAT_EVENT,
    ROTATE_EVENT,
    FakeClockLoop,
    MasterHarness,
    pos,
)

STATUS_NAMES = {
    "Rpl_semi_sync_master_" + n
    for n in (
        "clients net_avg_wait_time net_wait_time net_waits no_times no_tx status timefunc_failures "
        "tx_avg_wait_time tx_wait_time tx_waits wait_pos_backtraverse wait_sessions yes_tx"
    ).split()
}
# MariaDB's, without a MySQL 8 `source_` name
MARIADB_STATUS_NAMES = {"Rpl_semi_sync_master_get_ack", "Rpl_semi_sync_master_request_ack"}


@pytest.fixture
def fl():
    loop = FakeClockLoop()
    yield loop
    loop.close()


def counters(m: MasterHarness) -> dict[str, int | str]:
    keys = ("status", "clients", "yes_tx", "no_tx", "no_times", "tx_waits", "wait_sessions")
    return {k: m.status(k) for k in keys}


# ---------------------------------------------------------------------------------------------
# Status variables


def test_status_variables_are_all_there_with_mysql_names(fl):
    m = MasterHarness(fl)
    assert set(m.plugin.status_variables()) == STATUS_NAMES | MARIADB_STATUS_NAMES
    both = m.plugin.status_variables(aliases=True)
    assert set(both) == STATUS_NAMES | MARIADB_STATUS_NAMES | {n.replace("_master_", "_source_") for n in STATUS_NAMES}
    assert both["Rpl_semi_sync_source_status"] == "ON"
    assert m.status("timefunc_failures") == 0


# ---------------------------------------------------------------------------------------------
# Semi-sync clients and the header


@pytest.mark.parametrize(
    "user_vars",
    [{"rpl_semi_sync_slave": 1}, {"rpl_semi_sync_slave": "1"}, {"rpl_semi_sync_replica": True},
     {"rpl_semi_sync_slave": b"1"}, {"rpl_semi_sync_replica": "true"}],
)
def test_a_dump_that_set_the_user_variable_is_a_semi_sync_client(fl, user_vars):
    m = MasterHarness(fl)
    dump = m.connect(2, **user_vars)
    assert dump.header == b"\xef\x00"
    assert m.status("clients") == 1 and m.plugin.is_semi_sync_session(dump.param)
    m.disconnect(dump)
    assert m.status("clients") == 0


@pytest.mark.parametrize("user_vars", [{}, {"rpl_semi_sync_slave": 0}, {"rpl_semi_sync_slave": "0"}, {"other": 1}])
def test_other_dumps_get_no_header_and_do_not_count(fl, user_vars):
    m = MasterHarness(fl)
    dump = m.connect(2, semi_sync=False, **user_vars)
    assert dump.header == b"" and m.status("clients") == 0
    assert m.send(dump, pos(100)) == -1  # nothing for the plugin to flag
    m.disconnect(dump)
    assert m.status("clients") == 0


def test_flag_only_on_the_last_event_of_a_waited_transaction(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    assert m.send(dump, None, ROTATE_EVENT, artificial=True) == 0
    task = m.commit(pos(300))
    assert [m.send(dump, pos(p)) for p in (100, 200, 300)] == [0, 0, 1]  # GTID, ROWS, XID
    assert m.send(dump, pos(300), HEARTBEAT_EVENT, heartbeat=True) == 0
    m.ack(dump, pos(300))
    assert task.done() and m.status("yes_tx") == 1


def test_only_a_waited_group_end_not_yet_acked_is_flagged_and_only_binlog_events_are_in_flight(fl):
    """Per event: a heartbeat or an artificial event at a group's end is neither flagged nor in
    flight (an ack at its position is beyond what was sent); once N slaves acked a group, a
    dump that sends its end later does not ask again; a later group's end is flagged."""
    m = MasterHarness(fl)
    first, second = m.connect(2), m.connect(3)
    task = m.commit(pos(300))
    assert m.send(second, pos(300), HEARTBEAT_EVENT, heartbeat=True) == 0
    assert m.send(second, pos(300), ROTATE_EVENT, artificial=True) == 0
    with pytest.raises(RemoteProtocolError):
        m.ack(second, pos(300))
    assert [m.send(first, pos(p)) for p in (100, 200, 300)] == [0, 0, 1]
    m.ack(first, pos(300))
    assert task.done() and m.status("yes_tx") == 1
    assert [m.send(second, pos(p)) for p in (100, 200, 300)] == [0, 0, 0]
    task = m.commit(pos(600))
    assert [m.send(second, pos(p)) for p in (400, 500, 600)] == [0, 0, 1]
    m.ack(second, pos(600))
    assert task.done() and m.status("yes_tx") == 2


def test_the_dump_can_outrun_the_commit(fl):
    """after_flush publishes the group; the slave may ack before after_sync starts waiting."""
    m = MasterHarness(fl)
    dump = m.connect(2)
    param = m.flush(pos(300))
    assert m.send(dump, pos(300)) == 1
    m.ack(dump, pos(300))
    task = m.wait(param)
    assert task.done() and m.status("yes_tx") == 1 and m.status("tx_waits") == 0


def test_a_group_is_flagged_once_for_its_last_position_and_counts_its_transactions(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    task = m.commit(pos(500), transactions=3)
    assert [m.send(dump, pos(p)) for p in (200, 350, 500)] == [0, 0, 1]
    assert m.status("wait_sessions") == 1
    m.ack(dump, pos(500))
    assert task.done() and m.status("yes_tx") == 3 and m.status("tx_waits") == 1


def test_waiting_sessions_show_the_state_and_clear_it(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    task = m.commit(pos(300), transactions=2)
    assert list(m.states.values()) == [WAITING_STATE, WAITING_STATE]
    m.send(dump, pos(300))
    m.ack(dump, pos(300))
    assert task.done() and list(m.states.values()) == [None, None]


# ---------------------------------------------------------------------------------------------
# Acks


def test_an_ack_releases_every_waiter_up_to_it_and_no_further(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    tasks = {p: m.commit(pos(p)) for p in (100, 200, 300)}
    for p in (100, 200, 300):
        m.send(dump, pos(p))
    assert m.status("wait_sessions") == 3
    m.ack(dump, pos(200))
    assert [tasks[p].done() for p in (100, 200, 300)] == [True, True, False]
    assert m.status("yes_tx") == 2 and m.status("wait_sessions") == 1
    m.ack(dump, pos(300))
    assert tasks[300].done() and m.status("yes_tx") == 3 and m.status("tx_waits") == 3


def test_an_ack_beyond_what_was_sent_is_a_protocol_error_and_releases_nothing(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    task = m.commit(pos(300))
    m.send(dump, pos(200))
    with pytest.raises(RemoteProtocolError):
        m.ack(dump, pos(300))
    with pytest.raises(RemoteProtocolError):
        m.ack(dump, pos(100, "other-bin.000001"))  # not even this binlog
    with pytest.raises(RemoteProtocolError):
        m.ack(dump, pos(4, "mysql-bin.000002"))
    assert not task.done() and m.plugin.reply_position == pos(4)  # the start position only
    m.send(dump, pos(300))
    m.ack(dump, pos(300))
    assert task.done() and m.status("yes_tx") == 1


def test_an_ack_from_a_session_that_is_not_semi_sync_is_a_protocol_error(fl):
    m = MasterHarness(fl)
    dump = m.connect(2, semi_sync=False)
    with pytest.raises(RemoteProtocolError):
        m.ack(dump, pos(4))


def test_stale_and_duplicate_acks_move_nothing(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    first = m.commit(pos(200))
    m.send(dump, pos(200))
    m.ack(dump, pos(200))
    second = m.commit(pos(400))
    m.send(dump, pos(400))
    m.ack(dump, pos(200))  # duplicate
    m.ack(dump, pos(100))  # stale
    assert first.done() and not second.done() and m.plugin.reply_position == pos(200)


def test_net_wait_time_is_the_round_trip_of_flagged_events(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    m.commit(pos(100))
    m.commit(pos(200))
    m.send(dump, pos(100))
    fl.advance(0.002)
    m.send(dump, pos(200))
    fl.advance(0.001)
    m.ack(dump, pos(200))  # one cumulative ack for both flagged events
    assert (m.status("request_ack"), m.status("get_ack")) == (2, 1)
    assert m.status("net_waits") == 2
    assert m.status("net_wait_time") == 3000 + 1000
    assert m.status("net_avg_wait_time") == 2000
    assert m.status("tx_wait_time") == 3000 + 3000 and m.status("tx_avg_wait_time") == 3000


def test_acks_requested_and_received_are_counted_and_kept_by_flush_status(fl):
    """Rpl_semi_sync_master_request_ack: events sent asking for an ack; _get_ack: acks read (a
    cumulative one once); FLUSH STATUS leaves both, as MariaDB's."""
    m = MasterHarness(fl)
    dump = m.connect(2)
    m.commit(pos(100))
    m.commit(pos(200))
    m.send(dump, pos(100))
    m.send(dump, pos(200))
    m.ack(dump, pos(200))
    assert (m.status("request_ack"), m.status("get_ack")) == (2, 1)
    m.plugin.flush_status()
    assert (m.status("request_ack"), m.status("get_ack")) == (2, 1)


def test_wait_pos_backtraverse_counts_a_wait_behind_a_larger_one(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    param_small = m.flush(pos(100))
    m.commit(pos(200))
    m.wait(param_small)  # waits for 100 while 200 is already waiting
    assert m.status("wait_pos_backtraverse") == 1 and m.status("wait_sessions") == 2
    for p in (100, 200):
        m.send(dump, pos(p))
    m.ack(dump, pos(200))
    assert m.status("yes_tx") == 2 and m.status("wait_sessions") == 0


def test_sessions_waiting_for_the_same_position_share_one_waiter(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    param = m.flush(pos(300))
    tasks = [m.wait(param), m.wait(param)]
    assert m.status("wait_sessions") == 2 and len(m.plugin._gate) == 1
    m.send(dump, pos(300))
    m.ack(dump, pos(300))
    assert all(t.done() for t in tasks) and m.status("yes_tx") == 2


def test_a_released_session_goes_on_at_the_next_loop_turn(fl):
    """The release settles each waiting session's own future: the sessions' tasks are ready at
    once (no callback of a shared future to run first), so the commit goes on one loop turn
    after the ack; a session cancelled beside them is left out."""
    gate = CommitGate(lambda position, transactions: None)
    tasks = [fl.loop.create_task(gate.wait(pos(300), 10.0)) for _ in range(3)]
    fl.settle()
    tasks[1].cancel()
    fl.settle()
    assert gate.sessions == 2 and gate.transactions == 2

    async def release_and_turn() -> list[object]:
        assert gate.release_up_to(pos(300)) == 1
        await asyncio.sleep(0)
        return [t.done() and not t.cancelled() and t.result() for t in tasks]

    assert fl.loop.run_until_complete(release_and_turn()) == [Outcome.ACKED, False, Outcome.ACKED]
    assert gate.sessions == 0 and len(gate) == 0


def test_waiters_released_in_time_arm_no_timer_and_every_deadline_still_holds(fl):
    """One timer for every deadline: commits acked in time arm none after the first; a timer
    that fires when its waiter is gone is armed again for the earliest deadline left, and a
    wait with a shorter timeout than the armed one gets its own earlier deadline."""
    armed: list[float] = []
    call_at = fl.loop.call_at

    def counted(when, callback, *args, **kw):
        armed.append(when)
        return call_at(when, callback, *args, **kw)

    fl.loop.call_at = counted  # type: ignore[method-assign]
    timed_out: list[tuple[BinlogPosition, int]] = []
    gate = CommitGate(lambda position, transactions: timed_out.append((position, transactions)))
    start = fl.now
    for p in (100, 200, 300):
        task = fl.spawn(gate.wait(pos(p), 10.0))
        assert gate.release_up_to(pos(p)) == 1
        fl.settle()
        assert task.result() is Outcome.ACKED
    assert armed == [start + 10.0]
    fl.advance(5)
    late = fl.spawn(gate.wait(pos(400), 10.0))  # due at start + 15
    fl.advance(5.5)  # the first timer fired, its waiter long gone
    assert not late.done() and armed == [start + 10.0, start + 15.0]
    short = fl.spawn(gate.wait(pos(500), 1.0, transactions=3))  # due at start + 11.5
    fl.advance(1.1)
    assert short.result() is Outcome.TIMED_OUT and timed_out == [(pos(500), 3)] and not late.done()
    fl.advance(4)
    assert late.result() is Outcome.TIMED_OUT and timed_out[1:] == [(pos(400), 1)]
    assert len(gate) == 0 and gate.sessions == 0


def test_the_waiting_hooks_hand_over_the_wait_itself(fl):
    """At its wait point a hook returns the plugin's wait coroutine (no frame of its own to
    resume per group); at the other one, the finished awaitable."""
    m = MasterHarness(fl)
    param = m.flush(pos(100))
    waiting = m.plugin.after_sync(param)
    assert inspect.iscoroutine(waiting) and waiting.cr_code is SemiSyncMasterPlugin._wait.__code__
    waiting.close()
    assert not inspect.iscoroutine(m.plugin.after_commit(TransParam(1, 1, pos(100))))
    task = m.commit(pos(200))
    dump = m.connect(2)
    m.send(dump, pos(200))
    m.ack(dump, pos(200))
    assert task.done() and task.result() is None and m.status("yes_tx") == 1


def test_a_group_s_wait_is_the_plugin_s_frame_alone(fl, monkeypatch):
    """The wait makes the commit gate's steps in its own frame (`CommitGate.enter` / `leave`):
    no coroutine of the gate's per group, and what a group and its sessions see is unchanged."""

    async def not_awaited(*args, **kw):
        raise AssertionError("the plugin's wait runs no coroutine of the gate's")

    monkeypatch.setattr(CommitGate, "wait", not_awaited)
    m = MasterHarness(fl)
    dump = m.connect(2)
    task = m.commit(pos(300), transactions=2)
    assert list(m.states.values()) == [WAITING_STATE, WAITING_STATE] and m.status("wait_sessions") == 1
    m.send(dump, pos(300))
    m.ack(dump, pos(300))
    assert task.done() and task.result() is None and list(m.states.values()) == [None, None]
    assert m.status("yes_tx") == 2 and m.status("wait_sessions") == 0


def test_a_cancelled_wait_leaves_the_others_waiting(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    param = m.flush(pos(300))
    killed, other = m.wait(param), m.wait(param)
    killed.cancel()
    fl.settle()
    assert killed.cancelled() and not other.done() and m.status("wait_sessions") == 1
    m.send(dump, pos(300))
    m.ack(dump, pos(300))
    assert other.done() and m.status("wait_sessions") == 0


# ---------------------------------------------------------------------------------------------
# Timeouts and switching


def test_timeout_switches_off_and_later_commits_do_not_wait(fl, caplog):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=500)
    caplog.set_level(logging.INFO, logger="semisync.master")
    first = m.commit(pos(100))
    fl.advance(0.499)
    assert not first.done() and m.status("status") == "ON"
    fl.advance(0.002)
    assert first.done()
    assert counters(m) == {
        "status": "OFF", "clients": 0, "yes_tx": 0, "no_tx": 1, "no_times": 1, "tx_waits": 0, "wait_sessions": 0,
    }
    assert any("switched OFF" in r.getMessage() and "mysql-bin.000001:100" in r.getMessage() for r in caplog.records)
    for p in (200, 300):
        assert m.commit(pos(p)).done()
    assert m.status("no_tx") == 3 and m.status("no_times") == 1


def test_a_timeout_releases_every_waiter_unacked_once(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=1000)
    dump = m.connect(2)
    first = m.commit(pos(100))
    fl.advance(0.5)
    second = m.commit(pos(200), transactions=2)
    fl.advance(0.5)
    assert first.done() and second.done()
    assert m.status("no_tx") == 3 and m.status("no_times") == 1 and m.status("yes_tx") == 0
    m.send(dump, pos(100))
    m.send(dump, pos(200))
    fl.advance(1.0)  # the second waiter's own deadline passes: nothing fires twice
    assert m.status("no_times") == 1


def test_switches_on_again_when_a_slave_acks_the_largest_committed_position(fl, caplog):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=500)
    caplog.set_level(logging.INFO, logger="semisync.master")
    m.commit(pos(100))
    fl.advance(0.6)
    m.commit(pos(200))
    assert m.status("status") == "OFF"
    dump = m.connect(2, start=pos(4))  # behind: its start position does not switch ON
    assert m.status("status") == "OFF"
    assert m.send(dump, pos(100)) == 0  # behind the largest committed position: no flag
    assert m.send(dump, pos(200)) == 1  # at it: asks for the ack that proves the slave caught up
    m.ack(dump, pos(200))
    assert m.status("status") == "ON"
    assert any("switched ON" in r.getMessage() for r in caplog.records)
    task = m.commit(pos(300))
    assert not task.done()
    assert m.send(dump, pos(300)) == 1
    m.ack(dump, pos(300))
    assert task.done() and m.status("yes_tx") == 1 and m.status("no_tx") == 2


def test_a_caught_up_slave_connecting_switches_on_at_once(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=500)
    m.commit(pos(100))
    fl.advance(0.6)
    assert m.status("status") == "OFF"
    m.connect(2, start=pos(100))  # it asks for what follows 100: it holds everything before
    assert m.status("status") == "ON"


def test_wait_no_slave_on_keeps_status_on_without_slaves(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=500)
    dump = m.connect(2)
    m.disconnect(dump)
    assert m.status("status") == "ON"
    task = m.commit(pos(100))
    assert not task.done()
    fl.advance(0.5)
    assert task.done() and m.status("status") == "OFF"


def test_wait_no_slave_off_switches_off_when_clients_drop_below_n(fl, caplog):
    caplog.set_level(logging.INFO, logger="semisync.master")
    m = MasterHarness(fl, rpl_semi_sync_master_wait_no_slave="OFF", rpl_semi_sync_master_wait_for_slave_count=2)
    assert m.status("status") == "OFF"  # enabled at start, but no slave
    a = m.connect(2)
    assert m.status("status") == "OFF"  # one of two
    b = m.connect(3)
    assert m.status("status") == "ON"  # both asked for what follows 4: both acked the start
    task = m.commit(pos(100))
    m.send(a, pos(100))
    m.disconnect(b)
    assert task.done() and m.status("status") == "OFF" and m.status("no_tx") == 1 and m.status("no_times") == 1
    assert any("wait_no_slave is OFF" in r.getMessage() for r in caplog.records)
    assert m.commit(pos(200)).done()


def test_setting_wait_no_slave_off_without_slaves_switches_off(fl):
    m = MasterHarness(fl)
    assert m.status("status") == "ON"
    m.plugin.set_variable("rpl_semi_sync_master_wait_no_slave", "OFF")
    assert m.status("status") == "OFF"


def test_enabling_turns_status_on_and_disabling_releases_waiters_at_once(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_enabled="OFF")
    dump = m.connect(2)
    assert m.status("status") == "OFF"
    assert m.commit(pos(100)).done() and m.status("no_tx") == 0  # disabled: no counting at all
    m.plugin.set_variable("rpl_semi_sync_master_enabled", 1)
    assert m.status("status") == "ON"
    tasks = [m.commit(pos(200)), m.commit(pos(300))]
    m.plugin.set_variable("rpl_semi_sync_master_enabled", "off")
    fl.settle()
    assert all(t.done() for t in tasks)
    assert m.status("status") == "OFF" and m.status("no_tx") == 2 and m.status("yes_tx") == 0
    assert m.send(dump, pos(300)) == 0  # disabled: never flagged
    m.plugin.set_variable("rpl_semi_sync_master_enabled", "ON")
    task = m.commit(pos(400))
    assert m.send(dump, pos(400)) == 1
    m.ack(dump, pos(400))
    assert task.done() and m.status("yes_tx") == 1


def test_enabling_with_wait_no_slave_off_needs_enough_clients(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_enabled="OFF", rpl_semi_sync_master_wait_no_slave=0)
    m.plugin.set_variable("rpl_semi_sync_master_enabled", "ON")
    assert m.status("status") == "OFF"
    m.plugin.set_variable("rpl_semi_sync_master_enabled", "OFF")
    m.connect(2)
    m.plugin.set_variable("rpl_semi_sync_master_enabled", "ON")
    assert m.status("status") == "ON"


# ---------------------------------------------------------------------------------------------
# Waiting for N slaves (WL#7169)


def test_n2_waits_for_two_slaves_and_lowering_n_releases_at_once(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_wait_for_slave_count=2)
    a, b = m.connect(2), m.connect(3)
    task = m.commit(pos(100))
    assert m.send(a, pos(100)) == 1 and m.send(b, pos(100)) == 1
    m.ack(a, pos(100))
    m.ack(a, pos(100))  # the same slave twice is not two slaves
    assert not task.done()
    m.plugin.set_variable("rpl_semi_sync_master_wait_for_slave_count", 1)
    fl.settle()
    assert task.done() and m.status("yes_tx") == 1


def test_raising_n_makes_new_commits_wait_for_more_slaves(fl):
    m = MasterHarness(fl)
    a, b = m.connect(2), m.connect(3)
    m.plugin.set_variable("rpl_semi_sync_source_wait_for_replica_count", "2")
    task = m.commit(pos(100))
    m.send(a, pos(100))
    m.send(b, pos(100))
    m.ack(a, pos(100))
    assert not task.done()
    m.ack(b, pos(100))
    assert task.done() and m.status("yes_tx") == 1


# ---------------------------------------------------------------------------------------------
# Wait points


def test_after_commit_wait_point_waits_in_after_commit_only(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_wait_point="after_commit")
    dump = m.connect(2)
    param = m.flush(pos(100))

    async def after_sync_only():
        await m.interface.storage.after_sync(param)

    assert fl.spawn(after_sync_only()).done()  # AFTER_SYNC hook does not wait now
    task = m.wait(param)  # after_sync then after_commit
    assert not task.done() and m.status("wait_sessions") == 1
    m.send(dump, pos(100))
    m.ack(dump, pos(100))
    assert task.done() and m.status("yes_tx") == 1


# ---------------------------------------------------------------------------------------------
# Lifecycle, RESET MASTER, FLUSH STATUS


def test_uninstall_while_commits_wait_releases_them_and_the_variables_vanish(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    tasks = [m.commit(pos(p)) for p in (100, 200)]
    m.send(dump, pos(100))
    m.plugin.uninstall()
    fl.settle()
    assert all(t.done() for t in tasks) and m.plugin._counters.no_tx == 2
    m.ack(dump, pos(500))  # the session outlived the plugin: ignored, not even validated
    assert not m.interface.transaction and not m.interface.storage and not m.interface.transmit
    assert m.plugin.system_variables() == {} and m.plugin.status_variables() == {}
    with pytest.raises(SQLError) as e:
        m.plugin.get_variable("rpl_semi_sync_master_enabled")
    assert e.value.code == 1193
    assert m.commit(pos(300)).done()  # no observer left: nothing waits


def test_install_again_starts_from_the_given_settings(fl):
    m = MasterHarness(fl)
    m.plugin.uninstall()
    again = SemiSyncMasterPlugin(m.interface, clock=fl.clock, settings={"rpl_semi_sync_master_timeout": "50"})
    again.install()
    assert again.get_variable("rpl_semi_sync_master_timeout") == 50
    assert again.get_variable("rpl_semi_sync_master_enabled") == 0


def _kept_settings_match_the_variables(plugin: SemiSyncMasterPlugin) -> None:
    look = plugin.get_variable
    assert (plugin._enabled, plugin._count, plugin._wait_no_slave, plugin._timeout_seconds, plugin._wait_point,
            plugin._trace_level) == (
        bool(look("rpl_semi_sync_master_enabled")), look("rpl_semi_sync_master_wait_for_slave_count"),
        bool(look("rpl_semi_sync_master_wait_no_slave")), look("rpl_semi_sync_master_timeout") / 1000.0,
        look("rpl_semi_sync_master_wait_point"), look("rpl_semi_sync_master_trace_level"))


def test_the_settings_the_hooks_read_are_the_variables_after_every_store(fl):
    """The hooks read the plugin's settings as attributes kept at every store (`_stored`),
    not through the variables: at construction and after each SET GLOBAL (by name or alias,
    DEFAULT too) they are what `@@` shows."""
    plugin = SemiSyncMasterPlugin(MasterHarness(fl).interface, clock=fl.clock, settings={
        "rpl_semi_sync_master_timeout": "50", "rpl_semi_sync_master_trace_level": "16"})
    plugin.install()
    _kept_settings_match_the_variables(plugin)
    for name, value in [
        ("rpl_semi_sync_master_enabled", 1), ("rpl_semi_sync_master_timeout", 1234),
        ("rpl_semi_sync_source_timeout", 7), ("rpl_semi_sync_master_wait_point", "AFTER_COMMIT"),
        ("rpl_semi_sync_master_wait_for_slave_count", 3), ("rpl_semi_sync_master_wait_no_slave", 0),
        ("rpl_semi_sync_master_trace_level", 255), ("rpl_semi_sync_master_wait_point", "after_sync"),
        ("rpl_semi_sync_master_wait_for_slave_count", None), ("rpl_semi_sync_master_enabled", 0),
        ("rpl_semi_sync_master_trace_level", None), ("rpl_semi_sync_master_timeout", None),
    ]:
        plugin.set_variable(name, value)
        _kept_settings_match_the_variables(plugin)


def test_shutdown_waits_up_to_the_grace_period_then_releases(fl):
    m = MasterHarness(fl)
    dump = m.connect(2)
    acked, late = m.commit(pos(100)), m.commit(pos(200))
    shutdown = fl.spawn(m.plugin.shutdown(grace=1.0))
    m.send(dump, pos(100))
    m.ack(dump, pos(100))
    assert acked.done() and not late.done() and not shutdown.done()
    fl.advance(1.0)
    assert late.done() and shutdown.done()
    assert m.status("yes_tx") == 1 and m.status("no_tx") == 1
    # the acked commit proceeds; the unacked one is in doubt: its client must not get OK
    assert acked.result() is None and late.result() is CommitVerdict.IN_DOUBT
    assert shutdown.result() == 1


def test_shutdown_never_turns_an_unacked_commit_into_ok(fl, caplog):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=500)
    m.connect(2)
    early = m.commit(pos(100), transactions=2)
    fl.advance(0.3)
    shutdown = fl.spawn(m.plugin.shutdown())  # grace: the timeout, 0.5 s from now
    during = m.commit(pos(200))
    fl.advance(0.25)
    # the early commit's own timeout fired during the shutdown: in doubt, and semi-sync stays
    # ON, so the commit that began meanwhile keeps waiting instead of getting an async OK
    assert early.result() is CommitVerdict.IN_DOUBT and m.plugin.status and not during.done()
    fl.advance(0.3)
    assert during.result() is CommitVerdict.IN_DOUBT and shutdown.result() == 3
    after = m.commit(pos(300))
    fl.settle()
    assert after.result() is CommitVerdict.IN_DOUBT  # nothing waits once the shutdown gave up
    assert m.status("no_tx") == 4 and m.status("yes_tx") == 0
    assert any("Forced shutdown: 3 commit(s)" in r.message and r.levelname == "ERROR" for r in caplog.records)


def test_a_switch_off_during_shutdown_does_not_make_later_commits_ok(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_wait_no_slave=0)
    dump = m.connect(2)
    waiting = m.commit(pos(100))
    shutdown = fl.spawn(m.plugin.shutdown(grace=1.0))
    fl.advance(1.0)
    assert waiting.result() is CommitVerdict.IN_DOUBT and shutdown.result() == 1
    m.disconnect(dump)  # the shell closes the dumps: fewer slaves than needed, semi-sync OFF
    assert not m.plugin.status
    assert m.commit(pos(200)).result() is CommitVerdict.IN_DOUBT


def test_shutdown_while_semi_sync_is_off_changes_nothing(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=100)
    m.connect(2)
    m.commit(pos(100))
    fl.advance(0.2)  # timed out: semi-sync OFF, async from here on
    assert not m.plugin.status
    shutdown = fl.spawn(m.plugin.shutdown())
    fl.settle()
    assert shutdown.result() == 0
    assert m.commit(pos(200)).result() is None


def test_reset_master_and_flush_status_zero_the_counters(fl):
    m = MasterHarness(fl, rpl_semi_sync_master_timeout=100)
    dump = m.connect(2)
    m.commit(pos(100))
    m.send(dump, pos(100))
    m.ack(dump, pos(100))
    m.commit(pos(200))
    fl.advance(0.2)
    assert m.status("yes_tx") == 1 and m.status("no_tx") == 1 and m.status("no_times") == 1
    m.plugin.flush_status()
    assert all(m.status(k) == 0 for k in ("yes_tx", "no_tx", "no_times", "tx_waits", "net_waits", "tx_wait_time"))
    assert m.status("clients") == 1
    m.commit(pos(300))
    assert m.status("no_tx") == 1
    m.interface.transmit.after_reset_master()
    assert m.status("no_tx") == 0 and m.plugin.reply_position is None and m.plugin.commit_position is None


def test_trace_level_detail_logs_acks(fl, caplog):
    caplog.set_level(logging.DEBUG, logger="semisync.master")
    m = MasterHarness(fl, rpl_semi_sync_master_trace_level=0)
    dump = m.connect(2)
    m.commit(pos(100))
    m.send(dump, pos(100))
    m.ack(dump, pos(100))
    assert not [r for r in caplog.records if "got reply" in r.getMessage()]
    m.plugin.set_variable("rpl_semi_sync_master_trace_level", 16)
    m.commit(pos(200))
    m.send(dump, pos(200))
    m.ack(dump, pos(200))
    assert [r for r in caplog.records if "got reply at mysql-bin.000001:200" in r.getMessage()]
    assert "status=ON" in m.plugin.describe()


# ---------------------------------------------------------------------------------------------
# A read batch decided at once (`SendBatch`) against the per-event hooks


class _OneBytePrefix(BinlogTransmitObserver):
    """Reserves one header byte before the plugin's, so that the plugin's slice is at offset 1."""

    def reserve_header(self, param):
        return b"\x5a"


def _play_batches(seed: int, batched: bool) -> list[object]:
    """One random run of a semi-sync dump: batches of events (some without a place: log_pos 0
    or artificial), commit groups waiting on some of their ends, acks, timeouts that switch
    semi-sync OFF and catch-ups that switch it back ON. Each batch goes through the delegate
    as the dump sends it (`SendBatch`, headers replaced) or, when not `batched`, as a plain list
    of SendParams (the per-event loop). Returns what each batch decided and the plugin's state."""
    rng = random.Random(seed)
    fl = FakeClockLoop()
    try:
        m = MasterHarness(fl)
        transmit = m.interface.transmit
        if seed % 2:  # the plugin's slice after another observer's byte
            transmit.remove_observer(m.plugin)
            transmit.add_observer(_OneBytePrefix())
            transmit.add_observer(m.plugin)
        dump = m.connect(2)
        state = dump.param.observer_state[m.plugin]
        seen: list[object] = []
        at = 4
        for _ in range(rng.randrange(3, 12)):
            routes = []
            for _ in range(rng.randrange(1, 12)):
                at += rng.randrange(19, 200)
                kind = rng.random()
                routes.append((rng.choice((16, 2, 162, 3, 34)), 0 if kind < 0.1 else at,
                               LOG_EVENT_ARTIFICIAL_F if 0.1 <= kind < 0.2 else rng.choice((0, 0x8))))
            ends = [log_pos for _, log_pos, flags in routes if log_pos and not flags & LOG_EVENT_ARTIFICIAL_F]
            for end in rng.sample(ends, rng.randrange(0, len(ends) + 1)):
                m.commit(pos(end))
            if rng.random() < 0.2:
                m.commit(pos(at + 1000, "mysql-bin.000002"))  # a group of a later file
            if rng.random() < 0.15:
                fl.advance(11)  # past rpl_semi_sync_master_timeout: OFF
            if batched:
                events: Sequence[SendParam] = SendBatch(BINLOG, routes)
            else:
                events = [SendParam(t, pos(log_pos) if log_pos else None, bool(flags & LOG_EVENT_ARTIFICIAL_F))
                          for t, log_pos, flags in routes]
            headers = [dump.header] * len(routes)
            if rng.random() < 0.3:  # a header that is not the reserved one: our flag set, or another byte
                i = rng.randrange(len(headers))
                changed = bytearray(headers[i])
                changed[rng.randrange(len(changed))] ^= 1
                headers[i] = bytes(changed)
            transmit.before_send_events(dump.param, headers, events)
            transmit.after_send_events(dump.param, events)
            seen.append((headers, state.in_flight, state.sent, list(state.flagged), m.plugin.status))
            if state.flagged and rng.random() < 0.7:
                m.ack(dump, rng.choice(state.flagged)[0])
            seen.append(counters(m))
        return seen
    finally:
        fl.close()


def test_a_send_batch_decides_exactly_as_the_per_event_hooks():
    flagged = off = 0
    for seed in range(80):
        batched = _play_batches(seed, True)
        assert batched == _play_batches(seed, False), seed
        decided = batched[::2]
        flagged += sum(h[1 + seed % 2] == 1 for headers, *_ in decided for h in headers)  # type: ignore[misc]
        off += sum(status is False for *_, status in decided)  # type: ignore[misc]
    assert flagged > 100 and off > 10  # both ways of deciding were played, many times
