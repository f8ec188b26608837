"""The replica side's GTIDs against a real engine and a real relay log in tmp_path:
@@gtid_slave_pos is committed in the same engine commit as the transaction and the applier's
position; a GTID out of its domain's order stops the applier (gtid_strict_mode, 1950) with
nothing of it applied; MASTER_GTID_WAIT is woken by the applier's commits; the relay log's
last complete GTIDs (Gtid_IO_Pos) are found again after a restart; CHANGE MASTER TO's
MASTER_USE_GTID and SET GLOBAL gtid_slave_pos follow MariaDB's rules.
"""

from __future__ import annotations

import asyncio

import pytest

from binlog.index import read_index
from engine import Engine, StatementContext
from master.gtid_state import BinlogGtids, read_binlog_state
from protocol.errors import SQLError
from protocol.events import FL_STANDALONE, MariaGtid, Query, Xid
from protocol.gtid import Gtid, GtidPosition
from semisync.interface import BinlogRelayIODelegate
from server.sql import Tokens
from slave import master_info
from slave.applier import META_GTID_SLAVE_POS, META_RELAY_POS, Applier
from slave.master_info import MasterInfo
from slave.relay_log import GroupTracker, RelayLog
from slave.replication import STATUS_COLUMNS, Replication
from slave.role import _parse_change_master
from tests.support.relay_stream import Stream
from tests.unit.test_slave_applier import Relay as LsuRelay
from tests.unit.test_slave_applier import open_engine, until
from tests.unit.test_slave_lsu import Node, apply_all, crash_in_engine_commit, inserts


class GtidStream(Stream):
    def gtid_transaction(self, domain: int, server_id: int, seq_no: int, n: int) -> list[bytes]:
        return [
            self.event(MariaGtid(seq_no=seq_no, domain_id=domain), server_id=server_id),
            self.event(Query(db="d", query=f"INSERT INTO t VALUES ({n})"), server_id=server_id),
            self.event(Xid(n), server_id=server_id),
        ]

    def gtid_ddl(self, domain: int, seq_no: int, sql: str) -> list[bytes]:
        return [self.event(MariaGtid(seq_no=seq_no, domain_id=domain, flags2=FL_STANDALONE)),
                self.event(Query(db="d", query=sql))]


class Relay:
    def __init__(self, tmp_path) -> None:
        self.log = RelayLog(tmp_path / "relay", "relay-bin", server_id=2)
        self.log.recover()
        self.log.start_file(checksum=True)
        self.stream = GtidStream()
        self.append(self.stream.start())
        self.append([*self.stream.gtid_ddl(0, 1, "CREATE DATABASE d"),
                     *self.stream.gtid_ddl(0, 2, "CREATE TABLE d.t (id INT PRIMARY KEY)")])

    def append(self, events: list[bytes]) -> None:
        for e in events:
            self.log.append(e)
        self.log.flush()
        self.log.readable = self.log.position_of(self.log.current or "", self.log.size)


def make_applier(engine: Engine, relay: Relay, strict: bool = True) -> Applier:
    return Applier(engine, relay.log, table_columns=lambda db, table: None,
                   make_context=lambda **kw: StatementContext(**kw), strict_mode=lambda: strict)


async def test_gtid_slave_pos_is_committed_with_each_transaction_and_survives_a_reopen(tmp_path):
    relay = Relay(tmp_path)
    relay.append([e for n in range(1, 6) for e in relay.stream.gtid_transaction(0, 1, n + 2, n)])
    relay.append(relay.stream.gtid_transaction(3, 9, 40, 100))  # another domain
    engine, commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    seen: list[object] = []
    original = applier.commit

    async def recording(transactions):
        seen.extend(t.gtid for t in transactions)
        await original(transactions)

    applier.commit = recording
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 8)
    assert str(applier.gtid_slave_pos) == "0-1-7,3-9-40"
    # every commit holds the data, the relay position and the GTIDs applied up to it
    assert commits[-1][META_GTID_SLAVE_POS] == "0-1-7,3-9-40"
    assert int(commits[-1][META_RELAY_POS]) == relay.log.size
    assert seen == [Gtid(0, 1, 1), Gtid(0, 1, 2), *(Gtid(0, 1, n + 2) for n in range(1, 6)), Gtid(3, 9, 40)]
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()
    again = await Engine.open(tmp_path / "db", readers=1)
    reopened = make_applier(again, relay)
    reopened.load_position()
    assert str(reopened.gtid_slave_pos) == "0-1-7,3-9-40"
    await again.close()


@pytest.mark.parametrize("seq_no", [4, 3])  # out of order, a duplicate
async def test_strict_mode_stops_before_an_out_of_order_gtid_with_1950(tmp_path, seq_no):
    relay = Relay(tmp_path)
    relay.append([*relay.stream.gtid_transaction(0, 1, 3, 1), *relay.stream.gtid_transaction(0, 1, 5, 2)])
    good_end = relay.log.size
    relay.append([*relay.stream.gtid_transaction(0, 1, seq_no, 3), *relay.stream.gtid_transaction(0, 1, 6, 4)])
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    await asyncio.wait_for(applier.run(), 10)  # stops
    assert applier.last_errno == 1950
    assert applier.last_error == (
        f"An attempt was made to binlog GTID 0-1-{seq_no} which would create an out-of-order sequence "
        "number with existing GTID 0-1-5, and gtid strict mode is enabled")
    assert str(applier.gtid_slave_pos) == "0-1-5" and applier.relay_pos == good_end
    rows = await engine.session(0).execute("SELECT id FROM d.t ORDER BY id")
    assert [r[0] for r in rows.rows] == [1, 2]
    await engine.close()


async def test_without_strict_mode_an_out_of_order_gtid_is_applied(tmp_path):
    """... and no transaction's GTID is looked up in this server's binlog (gtid_strict_mode is
    asked first: OFF, MariaDB's default, has nothing to compare)."""
    relay = Relay(tmp_path)
    relay.append([*relay.stream.gtid_transaction(0, 1, 5, 1), *relay.stream.gtid_transaction(0, 1, 4, 2)])
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay, strict=False)
    looked_up: list[int] = []
    applier.binlog_recent = lambda domain: looked_up.append(domain)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 4)
    assert str(applier.gtid_slave_pos) == "0-1-4" and applier.last_errno == 0
    assert looked_up == []
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


async def test_master_gtid_wait_is_woken_by_the_commit_that_reaches_it(tmp_path):
    relay = Relay(tmp_path)
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2)
    assert await applier.wait_for_gtids([Gtid(0, 1, 2)], 0) is True
    assert await applier.wait_for_gtids([Gtid(0, 1, 3)], 0.05) is False
    waiter = asyncio.create_task(applier.wait_for_gtids([Gtid(0, 1, 4), Gtid(5, 1, 0)], None))
    relay.append(relay.stream.gtid_transaction(0, 1, 3, 1))
    applier.notify()
    await until(lambda: applier.applied_transactions == 3)
    await asyncio.sleep(0.01)
    assert not waiter.done()
    relay.append(relay.stream.gtid_transaction(0, 1, 4, 2))
    applier.notify()
    assert await asyncio.wait_for(waiter, 5) is True
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()


def test_the_tracker_and_the_relay_log_know_the_last_complete_gtid_per_domain(tmp_path):
    relay = Relay(tmp_path)
    relay.append([*relay.stream.gtid_transaction(0, 1, 3, 1), *relay.stream.gtid_transaction(2, 4, 9, 2)])
    tail = relay.stream.gtid_transaction(0, 1, 4, 3)[:2]  # a transaction whose XID never came
    tracker = GroupTracker(None, True)
    closed = []
    for e in relay.stream.gtid_transaction(0, 1, 8, 1):
        tracker.feed(e)
        closed.append(tracker.closed_gtid)
    assert closed == [None, None, Gtid(0, 1, 8)]
    relay.append(tail)
    relay.log.close()
    again = RelayLog(tmp_path / "relay", "relay-bin", server_id=2)
    again.recover()  # cuts the torn transaction
    assert again.gtids() == {0: Gtid(0, 1, 3), 2: Gtid(2, 4, 9)}


def test_change_master_use_gtid_values_and_defaults(tmp_path):
    assert _parse_change_master(Tokens("CHANGE MASTER TO MASTER_USE_GTID = current_pos"))["use_gtid"] == "current_pos"
    assert _parse_change_master(Tokens("CHANGE MASTER TO MASTER_USE_GTID=NO"))["use_gtid"] == "no"
    with pytest.raises(SQLError) as bad:
        _parse_change_master(Tokens("CHANGE MASTER TO MASTER_USE_GTID = maybe"))
    assert bad.value.code == 1064
    master_info.save(tmp_path, MasterInfo(host="h", use_gtid="slave_pos"))
    assert master_info.load(tmp_path) == MasterInfo(host="h", use_gtid="slave_pos")
    (tmp_path / master_info.FILE_NAME).write_text("host=h\nport=3306\n")  # written before the option
    assert master_info.load(tmp_path).use_gtid == "no"


async def make_replication(tmp_path, engine: Engine, defaults: MasterInfo | None = None) -> Replication:
    return Replication(
        datadir=tmp_path / "slave", server_id=2, relay_basename="relay-bin", sync_relay_log=1,
        net_timeout=60, defaults=defaults or MasterInfo(), engine=engine, delegate=BinlogRelayIODelegate(),
        table_columns=lambda db, table: None, make_context=lambda **kw: StatementContext(**kw),
        apply_user_statement=None,
    )


async def test_change_master_use_gtid_rules_and_notes_as_mariadb(tmp_path):
    """MariaDB 10.11's answers: by GTID a file/position is ignored (1618 notes); a file/position
    alone turns GTID off (4190 note); otherwise the setting is kept; a new connection: slave_pos."""
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    notes = rep.change_master({"host": "h", "log_file": "m.000001", "log_pos": 4, "use_gtid": "slave_pos"})
    assert notes == [("Note", 1618, "<MASTER_LOG_FILE> option ignored"), ("Note", 1618, "<MASTER_LOG_POS> option ignored")]
    assert rep.info.use_gtid == "slave_pos" and rep.info.log_file == ""
    assert rep.change_master({"use_gtid": "current_pos"}) == []
    rep.change_master({"port": 3307})  # kept
    assert rep.info.use_gtid == "current_pos"
    notes = rep.change_master({"log_file": "m.000001", "log_pos": 4})
    assert notes == [("Note", 4190, "CHANGE MASTER TO is implicitly changing the value of 'Using_Gtid' from 'Current_Pos' to 'No'")]
    assert rep.info.use_gtid == "no" and master_info.load(tmp_path / "slave").use_gtid == "no"
    rep.reset(True, default_period=30)
    rep.change_master({"host": "h"})
    assert rep.info.use_gtid == "slave_pos"
    await engine.close()


async def test_set_gtid_slave_pos_only_while_stopped_and_committed_before_a_start(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    rep.change_master({"host": "127.0.0.1", "port": 1, "use_gtid": "slave_pos"})
    rep.set_gtid_slave_pos(GtidPosition.parse("0-1-5,1-2-3"))
    await rep.start(io=False, sql=True)  # waits for the position's commit first
    assert engine.meta()[META_GTID_SLAVE_POS] == "0-1-5,1-2-3"
    assert str(rep.gtid_io_start()) == "0-1-5,1-2-3"
    with pytest.raises(SQLError) as running:
        rep.set_gtid_slave_pos(GtidPosition.parse("0-1-9"))
    assert running.value.code == 1198
    assert running.value.message == "This operation cannot be performed as you have a running slave ''; run STOP SLAVE '' first"
    assert str(rep.applier.gtid_slave_pos) == "0-1-5,1-2-3"
    await rep.stop()
    await engine.close()


class GtidNode(Node):
    """test_slave_lsu's replica commit side with its binlog's GTID state rebuilt at open, as the
    daemon does, and an applier in strict mode checking against it."""

    async def open(self) -> GtidNode:
        await super().open()
        state = read_binlog_state(self.tmp_path, read_index(self.tmp_path, "node-bin"))
        self.pipeline.gtids = BinlogGtids(state)
        return self

    def applier(self, relay, apply_user_statement=None) -> Applier:
        applier = super().applier(relay, apply_user_statement)
        applier.strict_mode = lambda: True
        applier.binlog_recent = self.pipeline.gtids.state.most_recent
        return applier


async def test_a_crash_between_binlog_and_engine_skips_the_replayed_gtids_without_1950(tmp_path):
    """The replayed transactions' GTIDs are in our binlog already: the applier skips them (no
    strict-mode refusal), and @@gtid_slave_pos and the binlog end with every GTID once."""
    relay = LsuRelay(tmp_path)
    stream = GtidStream(relay.stream.pos)
    relay.stream = stream

    def gtid_transactions(numbers) -> None:
        relay.append([e for n in numbers for e in stream.gtid_transaction(1, 1, n, n)])

    gtid_transactions(range(1, 4))
    node = await GtidNode(tmp_path).open()
    await apply_all(node, relay)
    gtid_transactions(range(4, 8))
    await crash_in_engine_commit(node, node.applier(relay))
    gtid_transactions(range(8, 10))
    node = await GtidNode(tmp_path).open()
    # (the relay log's DDL came without GTIDs: our binlog numbered them 0-1-1, 0-1-2)
    assert str(node.pipeline.gtids.state.binlog_pos()) == "0-1-2,1-1-7"
    applier = await apply_all(node, relay)
    assert applier.last_errno == 0 and str(applier.gtid_slave_pos) == "1-1-9"
    assert node.engine.meta()[META_GTID_SLAVE_POS] == "1-1-9"
    assert inserts(tmp_path) == [f"INSERT INTO t VALUES ({n})" for n in range(1, 10)]
    assert str(node.pipeline.gtids.state.binlog_pos()) == "0-1-2,1-1-9"
    await node.close()


async def test_an_io_thread_switched_to_gtid_asks_from_gtid_slave_pos(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    rep.change_master({"host": "127.0.0.1", "port": 1, "log_file": "m.000001", "log_pos": 4})
    await rep.start(io=True, sql=False)  # by position (nothing listens on port 1)
    await rep.stop()
    rep.set_gtid_slave_pos(GtidPosition.parse("0-1-5"))  # by position: the relay log stays
    rep.change_master({"use_gtid": "slave_pos"})
    await rep.start(io=True, sql=False)
    assert rep.io is not None and rep.io.settings.use_gtid and str(rep.io.io_pos) == "0-1-5"
    assert slave_status_row(rep)["Gtid_IO_Pos"] == "0-1-5"
    await rep.stop()
    await engine.close()


def slave_status_row(rep: Replication) -> dict:
    row = rep.status_row()
    assert row is not None
    return dict(zip(STATUS_COLUMNS, row, strict=True))


async def test_a_restarted_io_thread_asks_from_the_stored_gtid_slave_pos(tmp_path):
    """Found by the fault loop (seed 1874552148): a slave killed (-9) right after it reconnected
    restarts with a relay log that holds no complete GTID (the applied files purged, the new
    connection's file only its head). Its IO thread must ask from @@gtid_slave_pos as the engine
    stored it, even before the SQL thread has run: with an empty position the master sends its
    binlog from the start and the SQL thread stops on 0-1-1 (1950)."""
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    rep.set_gtid_slave_pos(GtidPosition.parse("0-1-5"))
    await rep.stop()  # waits for the position's commit
    assert engine.meta()[META_GTID_SLAVE_POS] == "0-1-5"
    relay = RelayLog(tmp_path / "slave", "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    for event in GtidStream(1000).start():  # a new connection's head: ROTATE, the master's FD
        relay.append(event)
    relay.close()
    await engine.close()

    engine = await Engine.open(tmp_path / "db", readers=1)  # the restart
    rep = await make_replication(tmp_path, engine, MasterInfo(host="127.0.0.1", port=1, use_gtid="slave_pos"))
    assert rep.relay.gtids() == {} and rep.relay_resume is not None
    assert slave_status_row(rep)["Gtid_IO_Pos"] == "0-1-5"
    await rep.start()  # as the daemon does (nothing listens on port 1)
    assert rep.io is not None and str(rep.io.io_pos) == "0-1-5"
    await until(lambda: rep.applier.running)  # a stop before the SQL task ran waits for its timeout
    await rep.stop()
    await engine.close()


async def test_a_commit_nobody_waits_for_makes_no_event_and_a_timed_waiter_is_woken_by_the_next(tmp_path):
    """`_moved` sets the Event a MASTER_GTID_WAIT made and drops it; a commit nobody waits for
    makes none."""
    relay = Relay(tmp_path)
    engine, _commits = await open_engine(tmp_path)
    applier = make_applier(engine, relay)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2)
    assert applier._pos_changed is None
    waiter = asyncio.create_task(applier.wait_for_gtids([Gtid(0, 1, 3)], 5))
    await until(lambda: applier._pos_changed is not None)
    relay.append(relay.stream.gtid_transaction(0, 1, 3, 1))
    applier.notify()
    assert await asyncio.wait_for(waiter, 5) is True
    assert applier._pos_changed is None
    applier.stop()
    await asyncio.wait_for(task, 5)
    await engine.close()
