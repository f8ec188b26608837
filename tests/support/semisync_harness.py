"""Drive the semi-sync plugins the way the master shell does, on an event loop with a fake clock.

`FakeClockLoop` is a real asyncio loop whose `time()` is a number the test moves: timers
(`loop.call_at`, used by the commit gate for timeouts) fire when the test advances the clock,
never on their own, so timeout tests are exact and take no wall time.
`MasterHarness` plays the master shell around a `SemiSyncMasterPlugin`: commit groups
(`after_flush` then the AFTER_SYNC/AFTER_COMMIT wait as a task), dump sessions (transmit start,
reserved header, before/after send), acks, disconnects.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from protocol.position import BinlogPosition
from semisync.interface import (
    ReplicationInterface,
    SendParam,
    StorageParam,
    TransmitParam,
    TransParam,
)
from semisync.master_plugin import SemiSyncMasterPlugin

BINLOG = "mysql-bin.000001"
XID_EVENT = 16
HEARTBEAT_EVENT = 27
ROTATE_EVENT = 4


def pos(offset: int, file: str = BINLOG) -> BinlogPosition:
    return BinlogPosition(file, offset)


class FakeClockLoop:
    def __init__(self, start: float = 1000.0):
        self.now = start
        self.loop = asyncio.new_event_loop()
        self.loop.time = self.clock  # type: ignore[method-assign]

    def clock(self) -> float:
        return self.now

    def spawn(self, awaitable: Awaitable[Any]) -> asyncio.Task[Any]:
        async def run() -> Any:
            return await awaitable

        task = self.loop.create_task(run())
        self.settle()
        return task

    def settle(self) -> None:
        """Run every callback that is ready (and those they make ready), without moving time."""
        for _ in range(100):
            self.loop.run_until_complete(asyncio.sleep(0))
            if not self.loop._ready:  # type: ignore[attr-defined]
                return
        raise AssertionError("the loop never settles")

    def advance(self, seconds: float) -> None:
        self.now += seconds
        self.settle()

    def close(self) -> None:
        pending = [t for t in asyncio.all_tasks(self.loop) if not t.done()]
        for t in pending:
            t.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()


@dataclass
class Dump:
    """One dump session as the master shell keeps it."""

    param: TransmitParam
    header: bytes
    flags: list[tuple[BinlogPosition | None, int]] = field(default_factory=list)


class MasterHarness:
    def __init__(self, fl: FakeClockLoop, **settings: object):
        self.fl = fl
        self.interface = ReplicationInterface()
        defaults: dict[str, object] = {"rpl_semi_sync_master_enabled": "ON"}
        defaults.update(settings)
        self.plugin = SemiSyncMasterPlugin(self.interface, clock=fl.clock, settings=defaults)
        self.plugin.install()
        self._ids = itertools.count(100)
        self.states: dict[int, str | None] = {}

    # -- dump sessions

    def connect(self, server_id: int, start: BinlogPosition | None = None, semi_sync: bool = True, **user_vars: Any) -> Dump:
        if semi_sync and not user_vars:
            user_vars = {"rpl_semi_sync_slave": 1}
        param = TransmitParam(next(self._ids), server_id, 0, user_vars, start or pos(4))
        self.interface.transmit.transmit_start(param)
        dump = Dump(param, self.interface.transmit.reserve_header(param))
        self.fl.settle()  # its start position counts as its ack: that can release commits
        return dump

    def disconnect(self, dump: Dump) -> None:
        self.interface.transmit.transmit_stop(dump.param)
        self.fl.settle()

    def send(self, dump: Dump, end: BinlogPosition | None, type_code: int = XID_EVENT, **kind: bool) -> int:
        """Send one event; return its semi-sync flag (-1 when the session has no header)."""
        header = bytearray(dump.header)
        event = SendParam(type_code, end, **kind)
        self.interface.transmit.before_send_event(dump.param, header, event)
        self.interface.transmit.after_send_event(dump.param, event)
        flag = header[1] if len(header) >= 2 else -1
        if len(header) >= 2:
            assert header[0] == 0xEF
        dump.flags.append((end, flag))
        return flag

    def ack(self, dump: Dump, position: BinlogPosition) -> None:
        """An ack read from `dump`'s connection: the ack receiver runs the transmit hook."""
        self.interface.transmit.handle_ack(dump.param, position)
        self.fl.settle()

    # -- commits

    def flush(self, end: BinlogPosition, transactions: int = 1) -> StorageParam:
        sessions = [self._session() for _ in range(transactions)]
        param = StorageParam(1, end, transactions, sessions)
        self.interface.storage.after_flush(param)
        return param

    def commit(self, end: BinlogPosition, transactions: int = 1) -> asyncio.Task[Any]:
        """A commit group: after_flush, then the wait of the current wait point, as a task."""
        param = self.flush(end, transactions)
        return self.wait(param)

    def wait(self, param: StorageParam) -> asyncio.Task[Any]:
        async def commit() -> Any:
            """The group's verdict: IN_DOUBT if either waiting hook decided so, else None."""
            synced = await self.interface.storage.after_sync(param)
            leader = param.sessions[0] if param.sessions else TransParam(0, 1)
            trans = TransParam(leader.connection_id, 1, param.position, leader.set_state, param.transactions)
            committed = await self.interface.transaction.after_commit(trans)
            return synced or committed

        return self.fl.spawn(commit())

    def _session(self) -> TransParam:
        connection_id = next(self._ids)
        self.states[connection_id] = None

        def set_state(state: str | None) -> None:
            self.states[connection_id] = state

        return TransParam(connection_id, 1, set_state=set_state)

    def status(self, name: str) -> int | str:
        return self.plugin.status_variables()["Rpl_semi_sync_master_" + name]
