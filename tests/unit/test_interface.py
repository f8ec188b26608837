"""WL#4398 delegates: call order, observers added/removed during a call, the empty fast path."""

from __future__ import annotations

import asyncio
import inspect
import sys

import pytest

from protocol.position import BinlogPosition
from semisync.interface import (
    DONE,
    BinlogRelayIODelegate,
    BinlogRelayIOObserver,
    BinlogStorageDelegate,
    BinlogStorageObserver,
    BinlogTransmitDelegate,
    BinlogTransmitObserver,
    CommitVerdict,
    DumpRequest,
    Expect,
    MasterStatement,
    ReadEvent,
    RelayIOParam,
    ReplicationInterface,
    SendBatch,
    SendParam,
    StorageParam,
    TransactionDelegate,
    TransactionObserver,
    TransmitParam,
    TransParam,
)

P = BinlogPosition("mysql-bin.000001", 100)


class Recorder(TransactionObserver, BinlogStorageObserver):
    def __init__(self, name: str, calls: list[str], on_call=None):
        self.name = name
        self.calls = calls
        self.on_call = on_call

    def before_commit(self, param):
        self.calls.append(f"{self.name}.before_commit")
        if self.on_call:
            self.on_call()

    async def after_commit(self, param):
        self.calls.append(f"{self.name}.after_commit")
        if self.on_call:
            self.on_call()
        await asyncio.sleep(0)

    def after_flush(self, param):
        self.calls.append(f"{self.name}.after_flush")

    async def after_sync(self, param):
        self.calls.append(f"{self.name}.after_sync")


def test_empty_delegates_are_falsy_and_create_no_coroutine():
    interface = ReplicationInterface()
    for delegate in (interface.transaction, interface.storage, interface.transmit, interface.relay_io):
        assert not delegate and len(delegate) == 0
    waits = [
        interface.transaction.after_commit(TransParam(1, 1, P)),
        interface.storage.after_sync(StorageParam(1, P)),
    ]
    for awaitable in waits:
        assert not inspect.iscoroutine(awaitable)

    async def await_all():
        for awaitable in waits:
            assert await awaitable is None

    asyncio.run(await_all())


def test_the_finished_awaitable_runs_no_python_code():
    calls: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    async def main() -> object:
        sys.setprofile(profile)
        try:
            return await DONE
        finally:
            sys.setprofile(None)

    assert asyncio.run(main()) is None and calls == []


def test_one_observer_gets_its_own_coroutine_without_a_wrapper():
    calls: list[str] = []
    delegate = TransactionDelegate()
    delegate.add_observer(Recorder("a", calls))
    awaitable = delegate.after_commit(TransParam(1, 1, P))
    assert inspect.iscoroutine(awaitable) and awaitable.cr_code is Recorder.after_commit.__code__
    asyncio.run(awaitable)
    assert calls == ["a.after_commit"]


DELEGATES = (
    (TransactionDelegate, TransactionObserver),
    (BinlogStorageDelegate, BinlogStorageObserver),
    (BinlogTransmitDelegate, BinlogTransmitObserver),
    (BinlogRelayIODelegate, BinlogRelayIOObserver),
)


@pytest.mark.parametrize(("delegate_type", "observer_type"), DELEGATES)
def test_a_lone_observer_s_hooks_are_the_delegate_s_and_the_class_s_run_the_others(delegate_type, observer_type):
    """With one observer each hook of `LONE_HOOKS` is that observer's bound method (no frame of
    the delegate's); with none or two, and with one again after a removal, as it should be."""
    delegate = delegate_type()
    assert delegate_type.LONE_HOOKS  # every delegate has hooks a lone observer answers alone
    a, b = observer_type(), observer_type()

    def lone(observer: object | None) -> bool:
        return all(getattr(delegate, name) == (getattr(observer, name) if observer is not None
                                               else getattr(delegate_type, name).__get__(delegate))
                   for name in delegate_type.LONE_HOOKS)

    assert lone(None)
    delegate.add_observer(a)
    assert lone(a)
    delegate.add_observer(b)
    assert lone(None)
    delegate.remove_observer(a)
    assert lone(b)
    delegate.remove_observer(b)
    assert lone(None)


def test_a_lone_observer_s_hook_is_called_without_a_delegate_frame():
    calls: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_qualname)

    delegate = BinlogTransmitDelegate()
    acks: list[BinlogPosition] = []

    class Acked(BinlogTransmitObserver):
        def handle_ack(self, param, position):
            acks.append(position)

    delegate.add_observer(Acked())
    sys.setprofile(profile)
    try:
        delegate.handle_ack(TransmitParam(1, 2, 0, {}, P), P)
    finally:
        sys.setprofile(None)
    assert acks == [P] and [c for c in calls if "Delegate" in c] == []


def test_observers_are_called_in_registration_order_and_added_once():
    calls: list[str] = []
    a, b, c = Recorder("a", calls), Recorder("b", calls), Recorder("c", calls)
    delegate = TransactionDelegate()
    for o in (b, a, c, a):
        delegate.add_observer(o)
    assert delegate.observers == (b, a, c) and bool(delegate)
    delegate.before_commit(TransParam(1, 1))
    asyncio.run(delegate.after_commit(TransParam(1, 1, P)))
    assert calls == ["b.before_commit", "a.before_commit", "c.before_commit"] + [
        "b.after_commit", "a.after_commit", "c.after_commit"
    ]


def test_one_in_doubt_verdict_decides_for_the_whole_wait():
    class Doubter(BinlogStorageObserver):
        async def after_sync(self, param):
            return CommitVerdict.IN_DOUBT

    calls: list[str] = []
    delegate = BinlogStorageDelegate()
    delegate.add_observer(Recorder("a", calls))
    assert asyncio.run(delegate.after_sync(StorageParam(1, P))) is None  # None: proceed
    delegate.add_observer(Doubter())
    delegate.add_observer(Recorder("c", calls))
    assert asyncio.run(delegate.after_sync(StorageParam(1, P))) is CommitVerdict.IN_DOUBT
    assert calls == ["a.after_sync", "a.after_sync", "c.after_sync"]  # every observer still waits


def test_removal_during_a_call_takes_effect_at_the_next_call():
    calls: list[str] = []
    delegate = TransactionDelegate()
    b = Recorder("b", calls)
    a = Recorder("a", calls, on_call=lambda: delegate.remove_observer(b))
    delegate.add_observer(a)
    delegate.add_observer(b)
    delegate.before_commit(TransParam(1, 1))
    assert calls == ["a.before_commit", "b.before_commit"]  # the call in progress still sees b
    calls.clear()
    delegate.before_commit(TransParam(1, 1))
    assert calls == ["a.before_commit"]


def test_addition_and_removal_while_an_async_hook_is_suspended():
    calls: list[str] = []
    delegate = TransactionDelegate()
    late = Recorder("late", calls)
    b = Recorder("b", calls)
    a = Recorder("a", calls)
    delegate.add_observer(a)
    delegate.add_observer(b)

    async def scenario():
        first = asyncio.ensure_future(delegate.after_commit(TransParam(1, 1, P)))
        await asyncio.sleep(0)  # `a` is suspended inside after_commit
        delegate.remove_observer(b)
        delegate.add_observer(late)
        await first
        assert calls == ["a.after_commit", "b.after_commit"]
        calls.clear()
        await delegate.after_commit(TransParam(1, 1, P))
        assert calls == ["a.after_commit", "late.after_commit"]

    asyncio.run(scenario())


def test_observer_removing_itself_is_still_called_once():
    calls: list[str] = []
    delegate = BinlogStorageDelegate()

    class SelfRemoving(BinlogStorageObserver):
        def after_flush(self, param):
            calls.append("self")
            delegate.remove_observer(self)

    delegate.add_observer(SelfRemoving())
    delegate.add_observer(Recorder("r", calls))
    delegate.after_flush(StorageParam(1, P))
    delegate.after_flush(StorageParam(1, P))
    assert calls == ["self", "r.after_flush", "r.after_flush"]
    assert len(delegate) == 1


def test_an_observer_that_raises_aborts_the_hook():
    calls: list[str] = []
    delegate = BinlogStorageDelegate()

    class Failing(BinlogStorageObserver):
        async def after_sync(self, param):
            raise RuntimeError("observer failed")

    delegate.add_observer(Failing())
    delegate.add_observer(Recorder("r", calls))
    try:
        asyncio.run(delegate.after_sync(StorageParam(1, P)))
    except RuntimeError:
        pass
    else:
        raise AssertionError("the exception must reach the shell")
    assert calls == []


def test_reserved_header_slices_follow_registration_order():
    delegate = BinlogTransmitDelegate()
    offsets: dict[str, int] = {}

    class Reserving(BinlogTransmitObserver):
        def __init__(self, name: str, size: int):
            self.name, self.size = name, size

        def reserve_header(self, param):
            offsets[self.name] = param.header_offset
            return bytes([len(offsets)]) * self.size

        def before_send_event(self, param, header, event):
            header[offsets[self.name]] = 0xFF

    first, second = Reserving("first", 2), Reserving("second", 3)
    delegate.add_observer(first)
    delegate.add_observer(second)
    param = TransmitParam(1, 2, 0, {}, P)
    header = delegate.reserve_header(param)
    assert header == b"\x01\x01\x02\x02\x02" and offsets == {"first": 0, "second": 2}
    assert param.observer_state == {}
    buffer = bytearray(header)
    delegate.before_send_event(param, buffer, SendParam(16, P))
    assert buffer == b"\xff\x01\xff\x02\x02"
    # a batch: each observer's per-event hook on each event's header, replaced in the list
    headers = [header] * 3
    batch = SendBatch(P.file, [(16, 100, 0), (4, 0, 0x20), (16, 200, 0)])
    delegate.before_send_events(param, headers, batch)
    assert headers == [b"\xff\x01\xff\x02\x02"] * 3 and header == b"\x01\x01\x02\x02\x02"
    assert [e.end for e in batch] == [BinlogPosition(P.file, 100), None, BinlogPosition(P.file, 200)]
    assert batch.places == [100, 0, 200] and [e.artificial for e in batch] == [False, True, False]
    assert batch.last_end() == BinlogPosition(P.file, 200)
    assert SendBatch(P.file, [(16, 300, 0), (4, 0, 0x20)]).last_end() == BinlogPosition(P.file, 300)
    assert SendBatch(P.file, [(4, 0, 0x20)]).last_end() is None
    with pytest.raises(ValueError):
        delegate.before_send_events(param, headers[:2], batch)


def test_relay_io_delegate_chains_read_events_and_keeps_the_last_ack():
    delegate = BinlogRelayIODelegate()

    class Strip(BinlogRelayIOObserver):
        def after_read_event(self, param, packet):
            return ReadEvent(packet[1:], packet[0] == 1)

        def after_queue_event(self, param, read, end, synced):
            return end if read.need_ack and synced else None

    class Never(BinlogRelayIOObserver):
        pass

    delegate.add_observer(Strip())
    delegate.add_observer(Never())
    param = RelayIOParam(2, "h", 1, P)
    read = delegate.after_read_event(param, memoryview(b"\x01event"))
    assert bytes(read.event) == b"event" and read.need_ack
    assert delegate.after_queue_event(param, read, P, True) == P  # a later None does not erase it
    assert delegate.after_queue_event(param, read, P, False) is None


def test_acks_reach_every_transmit_observer_through_the_declared_hook():
    delegate = BinlogTransmitDelegate()
    acks: list[tuple[str, BinlogPosition]] = []

    class Acks(BinlogTransmitObserver):
        def __init__(self, name: str) -> None:
            self.name = name

        def handle_ack(self, param, position):
            acks.append((self.name, position))

    a, b = Acks("a"), Acks("b")
    for observer in (a, BinlogTransmitObserver(), b):  # the default hook ignores acks
        delegate.add_observer(observer)
    param = TransmitParam(1, 2, 0, {}, P)
    delegate.handle_ack(param, P)
    delegate.remove_observer(a)
    delegate.handle_ack(param, P)
    assert acks == [("a", P), ("b", P), ("b", P)]


def test_dump_requests_are_collected_and_each_outcome_reaches_every_observer():
    delegate = BinlogRelayIODelegate()
    outcomes: list[tuple[str, DumpRequest, bool]] = []
    ask = DumpRequest("ask", (MasterStatement("SELECT 1", Expect.ROWS),))

    class Asks(BinlogRelayIOObserver):
        def __init__(self, name: str, request: DumpRequest | None) -> None:
            self.name, self.request = name, request

        def before_request_transmit(self, param):
            return self.request

        def after_request_transmit(self, param, request, granted):
            outcomes.append((self.name, request, granted))

    delegate.add_observer(Asks("silent", None))
    delegate.add_observer(Asks("asker", ask))
    param = RelayIOParam(2, "h", 1, P)
    assert delegate.before_request_transmit(param) == [ask]  # None asks nothing
    delegate.after_request_transmit(param, ask, False)
    assert outcomes == [("silent", ask, False), ("asker", ask, False)]
    assert BinlogRelayIODelegate().before_request_transmit(param) == []
