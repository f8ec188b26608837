"""A commit's way through our loop code asks asyncio for the running loop nowhere: CPython
3.11's `asyncio.get_running_loop` makes a getpid(2) per call, which was five system calls per
group on a semi-sync master and about two per transaction on a slave (`bench/RESULTS.md`, "The
kernel's share per commit"). On the master: the group commit, the AFTER_SYNC wait on the commit
gate, the dump's send from the publish, the ack; on a slave: the applier's idle wait, its batch's
commit seam and the group commit of `commit_replicated`."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.core import Engine
from master.ack_receiver import AckReceiver
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from protocol.position import BinlogPosition
from semisync.interface import ReplicationInterface
from semisync.master_plugin import SemiSyncMasterPlugin
from tests.unit.test_master_dump import make_dump
from tests.unit.test_master_dump_tail import new_writer
from tests.unit.test_slave_applier import Relay, until
from tests.unit.test_slave_lsu import Node, run_until, stop

_OURS = tuple(str(Path(__file__).resolve().parents[2] / part) + "/" for part in ("master", "semisync", "slave"))


def running_loop_callers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """From now until `monkeypatch.undo()`: the files of our code that call
    `asyncio.get_running_loop` (asyncio's own calls, the tests', the engine's are not ours)."""
    real = asyncio.get_running_loop
    callers: list[str] = []

    def counted() -> asyncio.AbstractEventLoop:
        caller = sys._getframe(1).f_code.co_filename
        if caller.startswith(_OURS):
            callers.append(caller)
        return real()

    monkeypatch.setattr(asyncio, "get_running_loop", counted)
    return callers


async def test_a_semisync_group_on_the_master_asks_asyncio_for_no_running_loop(tmp_path, monkeypatch):
    engine = await Engine.open(tmp_path / "db", synchronous="NORMAL")
    writer = new_writer(tmp_path)
    end = BinlogEnd(writer.end_position)
    interface = ReplicationInterface()
    plugin = SemiSyncMasterPlugin(interface, settings={
        "rpl_semi_sync_master_enabled": True, "rpl_semi_sync_master_wait_point": "AFTER_SYNC"})
    plugin.install()
    receiver = AckReceiver()
    receiver.start()
    gc = GroupCommit(engine, writer, end, interface, server_id=1, sync_binlog=lambda: 1)
    # a slave that takes every group as it comes (sent from the publish), with a heartbeat period
    session, slave, dump = make_dump(writer, end, {
        "master_binlog_checksum": "CRC32", "mariadb_slave_capability": 4, "rpl_semi_sync_slave": 1,
        "master_heartbeat_period": 60_000_000_000,
    }, end.position.pos, transmit=interface.transmit, semisync=True, on_start=receiver.attach)
    dumping = asyncio.create_task(dump.run())
    acked: list[BinlogPosition] = []

    async def ack_each_group() -> None:  # the slave: an ack once the dump sent up to the end
        while True:
            await asyncio.sleep(0.001)
            slave.packets()
            sent = BinlogPosition(dump.file, dump.pos)
            if sent == end.position and (not acked or acked[-1] != sent) and plugin.clients:
                acked.append(sent)
                session.raw_reader(slave.client.ack(sent))

    acking = asyncio.create_task(ack_each_group())
    s = engine.session(1)
    who = SimpleNamespace(connection_id=1, set_state=lambda state: None)
    for sql in ("CREATE DATABASE g", "CREATE TABLE g.t (id INT PRIMARY KEY, v INT)", "INSERT INTO g.t VALUES (0, 0)"):
        await asyncio.wait_for(gc.commit(who, (await s.execute(sql)).committed), 5)
    yes = plugin.status_variables()["Rpl_semi_sync_master_yes_tx"]
    callers = running_loop_callers(monkeypatch)
    for i in range(1, 11):
        committed = (await s.execute(f"INSERT INTO g.t VALUES ({i}, {i})")).committed
        if i % 2:
            await asyncio.wait_for(gc.commit(who, committed), 5)
        else:  # a COMMIT begun on receipt, led by a task of its own
            await asyncio.wait_for(gc.commit_now(who, committed), 5)
    monkeypatch.undo()
    status = plugin.status_variables()
    assert status["Rpl_semi_sync_master_yes_tx"] == yes + 10 and status["Rpl_semi_sync_master_no_tx"] == 0
    assert acked[-1] == end.position
    assert callers == []
    acking.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await acking
    dump.stop()
    await asyncio.wait_for(dumping, 5)
    await receiver.stop()
    await s.close()
    gc.close()
    writer.close()
    await engine.close()


async def test_a_slave_s_applied_batches_ask_asyncio_for_no_running_loop(tmp_path, monkeypatch):
    relay = Relay(tmp_path)
    node = await Node(tmp_path, synchronous="NORMAL").open()
    applier = node.applier(relay)
    task = await run_until(applier, lambda: applier.relay_pos == relay.log.size)
    groups = node.pipeline.groups
    callers = running_loop_callers(monkeypatch)
    for n in range(1, 11):  # each transaction its own batch, after an idle wait
        relay.transactions([n])
        applier.notify()
        await until(lambda: applier.relay_pos == relay.log.size)
    monkeypatch.undo()
    assert node.pipeline.groups == groups + 10
    assert callers == []
    await stop(applier, task)
    await node.close()
