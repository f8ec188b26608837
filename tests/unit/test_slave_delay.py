"""Delayed replication (CHANGE MASTER TO MASTER_DELAY), MariaDB 10.11's rules, against a real
engine and a real relay log in tmp_path: the SQL task applies an event only once its master
timestamp + clock_diff_with_master + MASTER_DELAY has passed (whole seconds, one timer), shows
SQL_Remaining_Delay and MariaDB's state meanwhile, stops promptly during the wait without
losing anything; CHANGE MASTER TO's MASTER_DELAY (range, 1729, 1064), its persistence in
master.info across a restart, RESET SLAVE [ALL] clearing it, RELAY_LOG_FILE / RELAY_LOG_POS.

The relay log's events carry timestamp 1 (tests/support/relay_stream.py); a fake clock puts
"now" a chosen distance from it, the timers run on the real loop.
"""

from __future__ import annotations

import asyncio

import pytest

from engine import Engine, StatementContext
from protocol.errors import SQLError
from protocol.gtid import parse_gtid_list
from server.sql import Tokens
from slave import master_info
from slave.applier import STATE_DELAYING, STATE_IDLE, Applier
from slave.master_info import MasterInfo
from slave.role import _parse_change_master
from tests.unit.test_slave_applier import until
from tests.unit.test_slave_gtid import Relay, make_replication

EVENT_TIME = 1  # every test event's timestamp


def delayed_applier(engine: Engine, relay: Relay, delay: dict, now: float, clock_diff: int = 0) -> Applier:
    """`now`: the slave's clock when this is called; it runs on with the loop's."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    return Applier(engine, relay.log, table_columns=lambda db, table: None,
                   make_context=lambda **kw: StatementContext(**kw),
                   sql_delay=lambda: delay["seconds"], clock_diff_with_master=lambda: clock_diff,
                   clock=lambda: now + loop.time() - start)


async def rows(engine: Engine) -> int:
    result = await engine.session(0).execute("SELECT COUNT(*) FROM d.t")
    return result.rows[0][0]


async def test_a_transaction_is_applied_once_its_timestamp_plus_the_delay_has_passed(tmp_path):
    relay = Relay(tmp_path)
    relay.append([e for n in range(1, 4) for e in relay.stream.gtid_transaction(0, 1, n + 2, n)])
    engine = await Engine.open(tmp_path / "db", readers=1)
    # now is 10.2 on the slave's clock, the events were executed at 1, MASTER_DELAY 10: the
    # wait ends at 11, 1 s from the current second (MariaDB's nap: the end minus the second)
    applier = delayed_applier(engine, relay, {"seconds": 10}, now=10.2)
    loop = asyncio.get_running_loop()
    started = loop.time()
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.delay_end is not None)
    assert applier.delay_end == 11 and applier.remaining_delay() == 1
    assert applier.state == STATE_DELAYING
    assert applier.applied_transactions == 0
    await until(lambda: applier.applied_transactions == 5, timeout=5)  # 2 DDL + 3 transactions
    assert loop.time() - started >= 0.9
    assert await rows(engine) == 3
    assert applier.delay_end is None and applier.remaining_delay() is None and applier.state == STATE_IDLE
    applier.stop()
    await task
    await engine.close()


async def one_transaction(tmp_path) -> tuple[Relay, Engine]:
    """The table's DDL and one transaction (GTID 0-1-3) in the relay log, and the engine."""
    relay = Relay(tmp_path)
    relay.append(relay.stream.gtid_transaction(0, 1, 3, 1))
    return relay, await Engine.open(tmp_path / "db", readers=1)


async def test_no_wait_once_the_delay_has_passed_and_the_clock_difference_counts(tmp_path):
    relay, engine = await one_transaction(tmp_path)
    # the slave's clock runs 1 s behind the master's: 1 - 1 + 10 = 10, not after now (10.5)
    applier = delayed_applier(engine, relay, {"seconds": 10}, now=10.5, clock_diff=-1)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 3, timeout=0.5)
    assert applier.delay_end is None
    applier.stop()
    await task
    # 5 s ahead: the end moves 5 s later
    relay.append(relay.stream.gtid_transaction(0, 1, 4, 2))
    applier = delayed_applier(engine, relay, {"seconds": 10}, now=10.5, clock_diff=5)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.delay_end is not None)
    assert applier.delay_end == 16 and applier.remaining_delay() == 6
    applier.stop()
    await task
    await engine.close()


async def test_without_master_delay_no_event_waits_and_none_makes_a_delay_wait(tmp_path, monkeypatch):
    """MASTER_DELAY 0 (the default): the applier asks for the delay once per event and makes no
    wait for it (the `_delay` coroutine is not even made), whatever the events' timestamps."""
    relay = Relay(tmp_path)
    relay.append([e for n in range(1, 4) for e in relay.stream.gtid_transaction(0, 1, n + 2, n)])
    engine = await Engine.open(tmp_path / "db", readers=1)
    made = []
    real = Applier._delay

    def counting(self, timestamp):
        made.append(timestamp)
        return real(self, timestamp)

    monkeypatch.setattr(Applier, "_delay", counting)
    applier = delayed_applier(engine, relay, {"seconds": 0}, now=10.2)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 5, timeout=5)  # 2 DDL + 3 transactions
    assert await rows(engine) == 3 and applier.delay_end is None
    assert made == []
    applier.stop()
    await task
    await engine.close()


async def test_stop_during_the_wait_returns_at_once_and_loses_nothing(tmp_path):
    relay = Relay(tmp_path)
    engine = await Engine.open(tmp_path / "db", readers=1)
    delay = {"seconds": 0}
    applier = delayed_applier(engine, relay, delay, now=10.5)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 2)  # the table, without a delay
    applier.stop()
    await task
    relay.append([e for n in range(1, 4) for e in relay.stream.gtid_transaction(0, 1, n + 2, n)])
    delay["seconds"] = 3600
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.delay_end is not None)
    position = (applier.relay_file, applier.relay_pos)
    loop = asyncio.get_running_loop()
    stopping = loop.time()
    applier.stop()
    await asyncio.wait_for(task, 1.0)
    assert loop.time() - stopping < 0.5
    assert applier.delay_end is None and (applier.relay_file, applier.relay_pos) == position
    assert await rows(engine) == 0
    # MASTER_DELAY = 0 and START SLAVE: every transaction is applied, from where it stopped
    delay["seconds"] = 0
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.applied_transactions == 3 + 2, timeout=5)
    assert await rows(engine) == 3
    applier.stop()
    await task
    await engine.close()


async def test_master_gtid_wait_waits_for_the_delayed_apply(tmp_path):
    relay, engine = await one_transaction(tmp_path)
    applier = delayed_applier(engine, relay, {"seconds": 10}, now=10.5)
    task = asyncio.create_task(applier.run())
    await until(lambda: applier.delay_end is not None)
    assert not await applier.wait_for_gtids(parse_gtid_list("0-1-3"), 0.2)  # still delayed
    assert await applier.wait_for_gtids(parse_gtid_list("0-1-3"), 5)
    applier.stop()
    await task
    await engine.close()


@pytest.mark.parametrize(("text", "seconds"), [
    ("10", 10), ("0", 0), ("1.5", 1), ("0x10", 16), ("2147483647", 2147483647),
])
def test_change_master_master_delay_values(text, seconds):
    assert _parse_change_master(Tokens(f"CHANGE MASTER TO MASTER_DELAY = {text}"))["sql_delay"] == seconds


def test_change_master_master_delay_errors_as_mariadb():
    with pytest.raises(SQLError) as big:
        _parse_change_master(Tokens("CHANGE MASTER TO MASTER_DELAY = 2147483648"))
    assert big.value.code == 1729
    assert big.value.message == "The requested value 2147483648 for the master delay exceeds the maximum 2147483647"
    for text, near in (("-1", "-1"), ("'3'", "'3'"), ("-1, MASTER_HOST = 'h'", "-1, MASTER_HOST = 'h'")):
        with pytest.raises(SQLError) as bad:
            _parse_change_master(Tokens(f"CHANGE MASTER TO MASTER_DELAY = {text}"))
        assert bad.value.code == 1064 and f"near '{near}' at line 1" in bad.value.message


async def test_master_delay_is_kept_in_master_info_across_a_restart_and_reset_slave_clears_it(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    assert rep.change_master({"host": "h", "sql_delay": 7}) == []
    row = dict(zip(("SQL_Delay", "SQL_Remaining_Delay", "Slave_SQL_Running_State"),
                   (rep._status_values()[c] for c in ("SQL_Delay", "SQL_Remaining_Delay", "Slave_SQL_Running_State")),
                   strict=True))
    assert row == {"SQL_Delay": 7, "SQL_Remaining_Delay": None, "Slave_SQL_Running_State": ""}
    assert master_info.load(tmp_path / "slave").sql_delay == 7
    rep.change_master({"port": 3307})  # another setting keeps it
    again = await make_replication(tmp_path, engine)  # the daemon restarted
    assert again.info.sql_delay == 7 and again._status_values()["SQL_Delay"] == 7
    assert again.applier.sql_delay() == 7
    again.reset(False, default_period=30)  # RESET SLAVE: 0, as MariaDB's
    assert again.info.sql_delay == 0 and master_info.load(tmp_path / "slave").sql_delay == 0
    again.change_master({"sql_delay": 9})
    again.reset(True, default_period=30)  # RESET SLAVE ALL
    assert again.info.sql_delay == 0
    (tmp_path / "slave" / master_info.FILE_NAME).write_text("host=h\nport=3306\n")  # older file
    assert master_info.load(tmp_path / "slave") == MasterInfo(host="h")
    await engine.close()


async def test_master_delay_needs_both_threads_stopped(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    rep.change_master({"host": "127.0.0.1", "port": 1})
    await rep.start(io=False, sql=True)  # the SQL thread alone: 1198 all the same (MariaDB)
    with pytest.raises(SQLError) as running:
        rep.change_master({"sql_delay": 5})
    assert running.value.code == 1198 and rep.info.sql_delay == 0
    await rep.stop()
    await engine.close()


async def test_relay_log_file_and_pos_only_at_the_sql_thread_s_position(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    rep = await make_replication(tmp_path, engine)
    rep.change_master({"host": "h"})  # by GTID (slave_pos)
    here = rep._status_values()
    file, pos = here["Relay_Log_File"], here["Relay_Log_Pos"]
    with pytest.raises(SQLError) as elsewhere:
        rep.change_master({"relay_log_file": file, "relay_log_pos": pos + 100})
    assert elsewhere.value.code == 1235
    # MariaDB's answer: the relay log position is a file/position setting (note 4190)
    notes = rep.change_master({"sql_delay": 0, "relay_log_file": file, "relay_log_pos": pos})
    assert notes == [("Note", 4190, "CHANGE MASTER TO is implicitly changing the value of 'Using_Gtid' "
                                    "from 'Slave_Pos' to 'No'")]
    assert rep.info.use_gtid == "no"
    assert rep.change_master({"use_gtid": "slave_pos", "relay_log_pos": pos}) == [
        ("Note", 1618, "<RELAY_LOG_POS> option ignored")]
    assert rep.info.use_gtid == "slave_pos"
    await engine.close()
