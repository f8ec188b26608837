"""The whole master plugin against a small reference model (hypothesis RuleBasedStateMachine).

Rules: commit groups at increasing positions, semi-sync slaves joining (at some position of the
binlog) and leaving, dump sessions sending events (with intermediate events and heartbeats),
acks (legal ones, and ones beyond what was sent), timeouts (a fake clock moves), changes of
wait_for_slave_count, wait_no_slave, and enable/disable.

The model is written from the rules of issue #4 and WL#7169, independently of the plugin's
data structures: the latest ack per slave, the replicated position as the largest one N slaves
reached (never moving back), waiters with deadlines.
Invariants: no waiter is released as acked unless N slaves acked at or beyond its position;
every waiter is released exactly once; the flag is set exactly where the model says; status and
counters equal the model's.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from protocol.errors import RemoteProtocolError
from semisync.commit_gate import Outcome
from tests.support.semisync_harness import HEARTBEAT_EVENT, Dump, FakeClockLoop, MasterHarness, pos

TIMEOUT = 1.0  # seconds; clock steps are multiples of 0.25 so deadlines compare exactly
SLAVES = (2, 3, 4)


@dataclass
class SlaveModel:
    dump: Dump | None = None
    start: int = 4
    next_group: int = 0  # index in the binlog's group list of the next group to send
    sent: int = 4  # end of the last event sent
    sent_ends: list[int] = field(default_factory=list)


@dataclass
class WaiterModel:
    position: int
    transactions: int
    deadline: float
    task: object


class MasterModelMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.fl = FakeClockLoop()
        self.m = MasterHarness(
            self.fl, rpl_semi_sync_master_enabled="ON", rpl_semi_sync_master_timeout=int(TIMEOUT * 1000)
        )
        self.outcomes: list[tuple[int, Outcome]] = []
        self._spy_on_the_gate()
        # The model
        self.enabled = True
        self.on = True
        self.n = 1
        self.wait_no_slave = True
        self.groups: list[int] = []
        self.commit_max: int | None = None
        self.reply: int | None = None
        self.latest: dict[int, int] = {}
        self.active: set[int] = set()
        self.waiters: dict[int, WaiterModel] = {}
        self.slaves = {sid: SlaveModel() for sid in SLAVES}
        self.yes_tx = self.no_tx = self.no_times = 0

    def _spy_on_the_gate(self) -> None:
        gate = self.m.plugin._gate
        leave = gate.leave

        def recorded(waiter, future, transactions=1):  # each wait's end, with the outcome it got
            leave(waiter, future, transactions)
            if future.done() and not future.cancelled():
                self.outcomes.append((waiter.position.pos, future.result()))

        gate.leave = recorded  # type: ignore[method-assign]

    def teardown(self) -> None:
        self.fl.close()

    # -- the model's rules ------------------------------------------------------------------

    @property
    def clients(self) -> int:
        return sum(s.dump is not None for s in self.slaves.values())

    def n_slaves_reached(self) -> int | None:
        acks = sorted(self.latest.values(), reverse=True)
        return acks[self.n - 1] if len(acks) >= self.n else None

    def model_advance(self) -> None:
        reached = self.n_slaves_reached()
        if reached is not None and (self.reply is None or reached > self.reply):
            self.reply = reached
            self.active = {p for p in self.active if p > reached}
            for p in [p for p in self.waiters if p <= reached]:
                self.yes_tx += self.waiters.pop(p).transactions
        self.model_try_switch_on()

    def model_try_switch_on(self) -> None:
        if self.on or not self.enabled or self.reply is None:
            return
        if not self.wait_no_slave and self.clients < self.n:
            return
        if self.commit_max is not None and self.reply < self.commit_max:
            return
        self.on = True

    def model_switch_off(self) -> None:
        if not self.on:
            return
        self.on = False
        self.no_times += 1
        self.active.clear()
        for w in self.waiters.values():
            self.no_tx += w.transactions
        self.waiters.clear()

    def model_switch_off_without_slaves(self) -> None:
        if self.on and not self.wait_no_slave and self.clients < self.n:
            self.model_switch_off()

    def expected_flag(self, end: int) -> int:
        if not self.enabled:
            return 0
        if self.on:
            return int(end in self.active and (self.reply is None or self.reply < end))
        return int(self.commit_max is not None and end >= self.commit_max)

    # -- rules ------------------------------------------------------------------------------

    @rule(gap=st.integers(2, 300), transactions=st.integers(1, 3))
    def commit(self, gap: int, transactions: int) -> None:
        end = (self.groups[-1] if self.groups else 4) + gap
        self.groups.append(end)
        self.commit_max = end
        if self.enabled and self.on:
            self.active.add(end)
        task = self.m.commit(pos(end), transactions)
        if not self.enabled:
            assert task.done()
        elif not self.on:
            assert task.done()
            self.no_tx += transactions
        else:
            assert not task.done()
            self.waiters[end] = WaiterModel(end, transactions, self.fl.now + TIMEOUT, task)

    @rule(server_id=st.sampled_from(SLAVES), data=st.data())
    def connect(self, server_id: int, data: st.DataObject) -> None:
        slave = self.slaves[server_id]
        if slave.dump is not None:
            return
        starts = [4, *self.groups]
        index = data.draw(st.integers(0, len(starts) - 1), label="start")
        slave.start = slave.sent = starts[index]
        slave.next_group = index  # groups[index] is the first group after starts[index]
        slave.sent_ends = []
        slave.dump = self.m.connect(server_id, start=pos(slave.start))
        self.latest[server_id] = max(self.latest.get(server_id, 0), slave.start)
        self.model_advance()

    @rule(server_id=st.sampled_from(SLAVES))
    def disconnect(self, server_id: int) -> None:
        slave = self.slaves[server_id]
        if slave.dump is None:
            return
        self.m.disconnect(slave.dump)
        slave.dump = None
        self.model_switch_off_without_slaves()

    @rule(server_id=st.sampled_from(SLAVES), count=st.integers(1, 4), heartbeat=st.booleans())
    def send(self, server_id: int, count: int, heartbeat: bool) -> None:
        slave = self.slaves[server_id]
        if slave.dump is None:
            return
        for end in self.groups[slave.next_group : slave.next_group + count]:
            assert self.m.send(slave.dump, pos(end - 1)) == 0  # an event inside the group
            assert self.m.send(slave.dump, pos(end)) == self.expected_flag(end), f"flag of {end}"
            slave.next_group += 1
            slave.sent = end
            slave.sent_ends.append(end)
        if heartbeat:
            assert self.m.send(slave.dump, pos(slave.sent), HEARTBEAT_EVENT, heartbeat=True) == 0

    @rule(server_id=st.sampled_from(SLAVES), data=st.data())
    def ack(self, server_id: int, data: st.DataObject) -> None:
        slave = self.slaves[server_id]
        if slave.dump is None:
            return
        position = data.draw(st.sampled_from([slave.start, *slave.sent_ends]), label="ack")
        self.m.ack(slave.dump, pos(position))
        self.latest[server_id] = max(self.latest.get(server_id, 0), position)
        self.model_advance()

    @rule(server_id=st.sampled_from(SLAVES), beyond=st.integers(1, 50))
    def ack_beyond_sent(self, server_id: int, beyond: int) -> None:
        slave = self.slaves[server_id]
        if slave.dump is None:
            return
        with pytest.raises(RemoteProtocolError):
            self.m.ack(slave.dump, pos(slave.sent + beyond))

    @rule(quarters=st.integers(1, 6))
    def advance_clock(self, quarters: int) -> None:
        self.fl.advance(quarters * 0.25)
        due = [w for w in self.waiters.values() if w.deadline <= self.fl.now]
        if due:
            first = min(due, key=lambda w: w.deadline)
            self.no_tx += self.waiters.pop(first.position).transactions
            self.model_switch_off()

    @rule(n=st.integers(1, 3))
    def set_wait_for_slave_count(self, n: int) -> None:
        self.m.plugin.set_variable("rpl_semi_sync_master_wait_for_slave_count", n)
        self.fl.settle()
        self.n = n
        self.model_advance()
        self.model_switch_off_without_slaves()

    @rule(value=st.booleans())
    def set_wait_no_slave(self, value: bool) -> None:
        self.m.plugin.set_variable("rpl_semi_sync_master_wait_no_slave", value)
        self.fl.settle()
        self.wait_no_slave = value
        self.model_switch_off_without_slaves()
        self.model_try_switch_on()

    @rule(value=st.booleans())
    def set_enabled(self, value: bool) -> None:
        self.m.plugin.set_variable("rpl_semi_sync_master_enabled", "ON" if value else "OFF")
        self.fl.settle()
        if value and not self.enabled:
            self.enabled = True
            if self.wait_no_slave or self.clients >= self.n:
                self.on = True
        elif not value and self.enabled:
            self.model_switch_off()
            self.enabled = False

    # -- invariants -------------------------------------------------------------------------

    @invariant()
    def waiting_tasks_are_exactly_the_models_waiters(self) -> None:
        for w in self.waiters.values():
            assert not w.task.done(), f"waiter {w.position} released early"  # type: ignore[attr-defined]
        assert self.m.status("wait_sessions") == len(self.waiters)

    @invariant()
    def each_waiter_released_once_and_acked_only_when_n_slaves_reached_it(self) -> None:
        released = [p for p, _ in self.outcomes]
        assert len(released) == len(set(released))
        for position, outcome in self.outcomes:
            assert position not in self.waiters
            if outcome is Outcome.ACKED:
                assert self.reply is not None and position <= self.reply

    @invariant()
    def status_and_counters_match_the_model(self) -> None:
        assert self.m.status("status") == ("ON" if self.enabled and self.on else "OFF")
        assert self.m.status("clients") == self.clients
        assert (self.m.status("yes_tx"), self.m.status("no_tx"), self.m.status("no_times")) == (
            self.yes_tx, self.no_tx, self.no_times,
        )
        assert self.m.plugin.reply_position == (pos(self.reply) if self.reply is not None else None)


MasterModelMachine.TestCase.settings = settings(
    max_examples=150,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_master_plugin_against_the_model = MasterModelMachine.TestCase
