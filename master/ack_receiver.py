"""`AckReceiver`: the one reader of what slaves send on their dump connections.

Contract (MySQL 5.7's ack receiver thread, seed 003)
- Every dump session hands the read side of its socket to the receiver when its stream starts
  (`attach(dump)` installs the session's raw reader); from then on the dump coroutine only
  writes. The receiver decodes the bytes in the socket's data callback itself, synchronously on
  the loop (no queue, no task wakeup per ack: one ack per slave per commit group), so no dump
  coroutine ever blocks on reading an ack and acks are handled in arrival order. Bytes that
  arrive before `start()` wait for it; after `stop()` they are ignored.
- Bytes go through the session's own sans-IO connection (`ServerConnection` in DUMPING state;
  an ack that arrives alone, the usual, through `whole_ack`, which decides it as `next_event`):
  a semi-sync ack (magic, length, file name validated there) goes to the `handle_ack` hook of
  the binlog transmit delegate the dump runs its hooks on (`semisync.interface`; the semi-sync
  master plugin observes it), then to `on_ack` (the shell's metrics).
- A malformed ack, an ack beyond what was sent to that slave (the plugin raises
  `RemoteProtocolError`), or anything but an ack / COM_QUIT on a non-semi-sync dump is that
  slave's protocol error: its connection is dropped and nothing is released. COM_QUIT or EOF
  just ends the dump.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from master.dump import DumpSession
from protocol.connection import NEED_DATA, ConnectionClosed
from protocol.errors import ProtocolError
from protocol.messages import ComQuit
from protocol.position import BinlogPosition
from protocol.semisync_wire import SemiSyncAck

log = logging.getLogger("semisync.master.ack_receiver")


class AckReceiver:
    def __init__(self, on_ack: Callable[[int, BinlogPosition], None] | None = None) -> None:
        self._running: bool | None = None  # None: not started yet; False: stopped
        self._early: list[tuple[DumpSession, bytes]] = []  # received before start()
        self.acks = 0
        self.dropped = 0
        self.acked: dict[int, BinlogPosition] = {}  # slave server_id -> its latest accepted ack
        self.on_ack = on_ack

    def start(self) -> None:
        if self._running is None:
            self._running = True
            early, self._early = self._early, []
            for dump, data in early:
                self._receive(dump, data)

    async def stop(self) -> None:
        self._running = False
        self._early = []

    def attach(self, dump: DumpSession) -> None:
        """Take over the read side of `dump`'s connection."""
        dump.session.set_raw_reader(functools.partial(self._receive, dump))

    def _receive(self, dump: DumpSession, data: bytes) -> None:
        """What arrived on `dump`'s connection (the data callback), acted on at once. An ack
        that arrives alone (one per read batch of the dump: nearly every one) is taken here,
        without the connection's buffer and without a call per layer; anything else goes
        through `feed`."""
        if not self._running:
            if self._running is None:
                self._early.append((dump, data))
            return
        try:
            session = dump.session
            if session.is_closed:
                return
            try:
                ack = session.conn.whole_ack(data)  # one ack alone: the packet taken without the buffer
                if ack is not None:
                    self._ack(dump, ack)
                    return
            except ProtocolError as e:  # a malformed ack, or one the plugin refuses
                self._drop(dump, e.message)
                return
            self.feed(dump, data)
        except Exception:  # our bug: never let it stop the acks of the other slaves
            log.exception("ack receiver: unexpected error on the dump of slave %s", dump.slave_server_id)
            dump.session.close()

    def feed(self, dump: DumpSession, data: bytes) -> None:
        """Decode what arrived on `dump`'s connection through its buffer and act on it
        (synchronously): parts of packets, several packets, COM_QUIT, the peer's close."""
        session = dump.session
        conn = session.conn
        conn.receive_data(data)
        while True:
            try:
                event = conn.next_event()
            except ProtocolError as e:
                self._drop(dump, e.message)
                return
            if event is NEED_DATA:
                return
            if isinstance(event, SemiSyncAck):
                try:
                    self._ack(dump, event)
                except ProtocolError as e:  # the slave broke the rules: its connection dropped
                    self._drop(dump, e.message)
                    return
            elif isinstance(event, ComQuit | ConnectionClosed):
                dump.stop()
                session.close()
                return

    def _ack(self, dump: DumpSession, ack: SemiSyncAck) -> None:
        param = dump.param
        if param is None:
            return
        self.acks += 1
        dump.transmit.handle_ack(param, ack.position)  # (an empty delegate calls nothing)
        self.acked[dump.slave_server_id] = ack.position
        if self.on_ack is not None:
            self.on_ack(dump.slave_server_id, ack.position)

    def _drop(self, dump: DumpSession, why: str) -> None:
        self.dropped += 1
        log.warning("dropping the dump connection of slave %s: %s", dump.slave_server_id, why)
        dump.stop()
        dump.session.close()
