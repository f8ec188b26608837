"""The last published group in memory (`BinlogEnd.tail`, `BinlogWriter.last_group`): a dump
session that keeps up sends it without reading the file, and it is byte for byte what the
file holds; any other position reads the file; nothing can leave a tail that a dump could
send although the file no longer holds it (rotation, a failed write, RESET MASTER)."""

from __future__ import annotations

import asyncio
import errno
from types import SimpleNamespace

import pytest

import binlog.writer as writer_module
import master.dump as dump_module
from binlog.writer import KEEP_EVENTS_MAX, BinlogWriter
from engine.core import Engine
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from master.dump import read_events
from master.role import MasterRole
from protocol.events import EventType, Query
from protocol.messages import BINLOG_DUMP_NON_BLOCK
from protocol.position import BinlogPosition
from semisync.interface import (
    BinlogStorageObserver,
    BinlogTransmitObserver,
    ReplicationInterface,
    SendBatch,
    StorageParam,
)
from tests.unit.test_master_dump import (
    append_transactions,
    collect,
    events_of,
    make_dump,
    write_transactions,
)

AWARE = {"master_binlog_checksum": "CRC32", "mariadb_slave_capability": 4}


def new_writer(tmp_path, checksum: bool = True, max_size: int = 1 << 20) -> BinlogWriter:
    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=checksum, max_size=max_size,
                          server_version="10.11.99-semisync-log")
    writer.open()
    return writer


class FileReads:
    """Records the dump's reads of a binlog file's events (`read_events`), but the read of
    each file's FORMAT_DESCRIPTION, while patched in."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[int, int]] = []

        def counted(path, start, end, at_least=0, *args):
            if (start, at_least) != (4, 1):
                self.calls.append((start, end))
            return read_events(path, start, end, at_least, *args)

        monkeypatch.setattr(dump_module, "read_events", counted)


@pytest.mark.parametrize("checksum", [True, False])
@pytest.mark.parametrize("transactions", [1, 4])
def test_the_group_kept_in_memory_is_what_read_events_reads_from_the_file(tmp_path, checksum, transactions):
    writer = new_writer(tmp_path, checksum)
    write_transactions(writer, 2)  # the group does not start at the file's first event
    start = writer.pending_position
    end = append_transactions(writer, transactions, 2)
    writer.write_group(sync=True)
    group = writer.last_group
    assert group is not None
    assert (group.file, group.start, group.end) == (start.file, start.pos, end.pos)
    assert list(group.events) == read_events(tmp_path / start.file, start.pos, end.pos, 0, checksum)
    assert len(group.events) == 3 * transactions
    published = BinlogEnd(writer.end_position)
    published.publish(writer.end_position, group)
    assert published.tail is group
    writer.close()


@pytest.mark.parametrize("checksum", [True, False])
@pytest.mark.parametrize("aware", [True, False], ids=["aware", "strips"])
@pytest.mark.parametrize("transactions", [1, 3])
async def test_a_dump_sends_the_same_bytes_from_memory_as_from_the_file(tmp_path, monkeypatch, checksum, aware,
                                                                        transactions):
    """A dump that keeps up takes each published group from memory (no file read); a dump from
    the same start over the same binlog published without tails reads it all from the file;
    their slaves receive the same bytes, also when the dump strips the CRC32 for a
    checksum-unaware slave."""
    writer = new_writer(tmp_path, checksum)
    write_transactions(writer, 1)
    start = writer.end_position
    end = BinlogEnd(start)
    user_vars = AWARE if aware else {}
    session, slave, dump = make_dump(writer, end, dict(user_vars), start.pos)
    task = asyncio.create_task(dump.run())
    packets = await collect(slave, lambda packets: len(packets) >= 2)  # the artificial ROTATE, the FD
    reads = FileReads(monkeypatch)
    for group in range(3):
        append_transactions(writer, transactions, 10 * group)
        writer.write_group(sync=False)
        end.publish(writer.end_position, writer.last_group)
        assert end.tail is not None
        packets += await collect(slave, lambda packets: dump.pos == writer.end_position.pos)
    assert reads.calls == []
    dump.stop()
    await asyncio.wait_for(task, 5)
    from_memory = events_of(packets)

    session, slave, dump = make_dump(writer, BinlogEnd(writer.end_position), dict(user_vars), start.pos,
                                     BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    assert reads.calls == [(start.pos, writer.end_position.pos)]
    from_file = events_of(slave.packets())
    assert from_memory == from_file and len(from_memory) == 2 + 3 * 3 * transactions
    writer.close()


async def test_a_dump_anywhere_but_the_group_start_reads_the_file(tmp_path, monkeypatch):
    """A slave connecting in the middle of the binlog, and one that is a group behind, read the
    file (the published group's bytes among what they read), and get the file's bytes."""
    writer = new_writer(tmp_path)
    middle = write_transactions(writer, 1)
    write_transactions(writer, 1, 1)
    behind = writer.end_position  # the start of the group before the last one
    append_transactions(writer, 1, 2)
    writer.write_group(sync=False)
    start = writer.end_position
    append_transactions(writer, 2, 3)
    writer.write_group(sync=False)
    end = BinlogEnd(writer.end_position)
    end.publish(writer.end_position, writer.last_group)
    assert end.tail is not None and end.tail.start == start.pos
    data = (tmp_path / start.file).read_bytes()
    for position in (middle.pos, behind.pos):
        reads = FileReads(monkeypatch)
        session, slave, dump = make_dump(writer, end, dict(AWARE), position, BINLOG_DUMP_NON_BLOCK)
        await asyncio.wait_for(dump.run(), 5)
        assert (position, end.position.pos) in reads.calls
        events = events_of(slave.packets())
        assert b"".join(events[2:]) == data[position:end.position.pos]
    writer.close()


class Batches(BinlogTransmitObserver):
    """Follows every dump event by event, and records the batches its hooks are handed."""

    def __init__(self) -> None:
        self.seen: list[tuple[object, object]] = []  # (the dump's param, the batch)

    def transmit_start(self, param):
        param.event_hooks = True

    def before_send_events(self, param, headers, events):
        self.seen.append((param, events))
        super().before_send_events(param, headers, events)


async def test_the_dumps_that_keep_up_share_each_published_groups_batch(tmp_path):
    """Two dumps at the published end, one of them stripping the CRC32 for its slave: each
    published group is handed to the transmit hooks of both as ONE `SendBatch` (made by the
    first dump that sends it), ending at the published end; each slave gets the file's events
    (the stripping one without their CRC32)."""
    writer = new_writer(tmp_path)
    write_transactions(writer, 1)
    start = writer.end_position
    end = BinlogEnd(start)
    transmit = ReplicationInterface().transmit
    batches = Batches()
    transmit.add_observer(batches)
    dumps = [make_dump(writer, end, user_vars, start.pos, transmit=transmit) for user_vars in (dict(AWARE), {"mariadb_slave_capability": 4})]
    tasks = [asyncio.create_task(dump.run()) for _, _, dump in dumps]
    for _, slave, _ in dumps:
        await collect(slave, lambda packets: len(packets) >= 2)  # the artificial ROTATE, the FD
    received: list[list] = [[], []]
    for group in range(4):
        append_transactions(writer, 2, 10 * group)
        writer.write_group(sync=False)
        batches.seen.clear()
        end.publish(writer.end_position, writer.last_group)
        for (_, slave, dump), packets in zip(dumps, received, strict=True):
            packets += await collect(slave, lambda packets, dump=dump: dump.pos == writer.end_position.pos)
        if group == 0:
            # (the first group after the dumps' start: a dump that has not yet come to wait at
            # the published end reads it from the file, which is not keeping up)
            continue
        # each dump's hooks once, in the order the dumps sent (which dump wakes first is not
        # the contract)
        params = sorted((id(dump.param) for _, _, dump in dumps))
        assert sorted(id(param) for param, _ in batches.seen) == params, group
        shared = batches.seen[0][1]
        assert isinstance(shared, SendBatch) and batches.seen[1][1] is shared
        assert shared.end == end.position and len(shared) == 2 * 3
    data = (tmp_path / start.file).read_bytes()
    aware, stripped = (events_of(packets) for packets in received)
    assert b"".join(aware) == data[start.pos:writer.end_position.pos]
    assert [event[19:] for event in stripped] == [event[19:-4] for event in aware]
    for _, _, dump in dumps:
        dump.stop()
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    writer.close()


class HoldsGroups(BinlogStorageObserver):
    """A storage observer that holds groups (as the semi-sync master plugin when ON): the group
    is written on the binlog's I/O thread, apart from the engine commit."""

    def holds_groups(self) -> bool:
        return True

    async def after_sync(self, param: StorageParam) -> None:
        return None


@pytest.mark.parametrize("one_step", [True, False], ids=["one-trip", "held"])
async def test_a_dump_that_keeps_up_reads_no_file_while_commits_stream(tmp_path, monkeypatch, one_step):
    """Commits through the group commit to a connected dump: every group reaches the slave
    from memory (no file read at all), and the slave gets the binlog byte for byte."""
    engine = await Engine.open(tmp_path / "db")
    writer = new_writer(tmp_path)
    end = BinlogEnd(writer.end_position)
    interface = ReplicationInterface()
    if not one_step:
        interface.storage.add_observer(HoldsGroups())
    gc = GroupCommit(engine, writer, end, interface, server_id=1, sync_binlog=lambda: 1)
    s = engine.session(1)
    who = SimpleNamespace(connection_id=1, set_state=lambda state: None)
    for sql in ("CREATE DATABASE g", "CREATE TABLE g.t (id INT PRIMARY KEY, v INT)"):
        await gc.commit(who, (await s.execute(sql)).committed)
    session, slave, dump = make_dump(writer, end, dict(AWARE), end.position.pos)
    task = asyncio.create_task(dump.run())
    await collect(slave, lambda packets: len(packets) >= 2)
    first = end.position
    reads = FileReads(monkeypatch)
    packets = []
    for i in range(20):
        await gc.commit(who, (await s.execute(f"INSERT INTO g.t VALUES ({i}, {i})")).committed)
        packets += await collect(slave, lambda packets: dump.pos == end.position.pos)
    assert reads.calls == []  # with the memory path off, one read per group
    assert dump.file == first.file and dump.pos == end.position.pos > first.pos
    data = (tmp_path / first.file).read_bytes()
    assert b"".join(events_of(packets)) == data[first.pos:end.position.pos]
    dump.stop()
    await asyncio.wait_for(task, 5)
    await s.close()
    gc.close()
    writer.close()
    await engine.close()


# -- no stale tail --------------------------------------------------------------------------

def test_a_rotation_after_the_group_leaves_no_tail(tmp_path):
    writer = new_writer(tmp_path, max_size=4096)
    append_transactions(writer, 40)  # past max_size: the group's write rotates
    writer.write_group(sync=True)
    assert writer.current_file == "mysql-bin.000002" and writer.last_group is None
    end = BinlogEnd(writer.end_position)
    end.publish(writer.end_position, writer.last_group)
    assert end.tail is None
    # a tail that does not end at the published position is not kept
    append_transactions(writer, 1)
    writer.write_group(sync=True)
    group = writer.last_group
    assert group is not None
    writer.rotate()
    assert writer.last_group is None
    end.publish(writer.end_position, group)
    assert end.tail is None
    writer.close()


def test_a_group_too_large_or_appended_raw_is_not_kept(tmp_path):
    writer = new_writer(tmp_path, max_size=1 << 30)
    writer.append([(EventType.QUERY_EVENT, Query(db="t", query="x" * KEEP_EVENTS_MAX).encode(), 1, 0)])
    writer.write_group(sync=False)
    assert writer.last_group is None
    append_transactions(writer, 1)
    writer.write_group(sync=False)
    assert writer.last_group is not None  # the next group is kept again
    append_transactions(writer, 1)
    writer.append_raw(writer.last_group.events[0][1])
    writer.write_group(sync=False)
    assert writer.last_group is None
    writer.close()


async def test_a_failed_write_keeps_the_published_tail_true(tmp_path, monkeypatch):
    """A group whose write fails publishes nothing: the file is cut back to the published end,
    and the tail the last publish left still names bytes the file holds; a dump at its start
    sends them and nothing of the failed group."""
    writer = new_writer(tmp_path)
    write_transactions(writer, 1)
    start = writer.pending_position
    append_transactions(writer, 1, 1)
    writer.write_group(sync=True)
    end = BinlogEnd(writer.end_position)
    end.publish(writer.end_position, writer.last_group)
    kept = end.tail
    assert kept is not None

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_module, "_write_all", full)
    append_transactions(writer, 1, 2)
    with pytest.raises(OSError):
        writer.write_group(sync=True)
    monkeypatch.undo()
    assert writer.last_group is None and writer.end_position == end.position
    assert end.tail is kept
    assert list(kept.events) == read_events(tmp_path / start.file, start.pos, end.position.pos, 0, True)
    session, slave, dump = make_dump(writer, end, dict(AWARE), start.pos, BINLOG_DUMP_NON_BLOCK)
    await asyncio.wait_for(dump.run(), 5)
    assert b"".join(events_of(slave.packets())[2:]) == b"".join(e for _, e in kept.events)
    writer.close()


async def test_reset_master_drops_the_tail_before_the_files_go(tmp_path):
    engine = await Engine.open(tmp_path / "db")
    writer = new_writer(tmp_path)
    end = BinlogEnd(writer.end_position)
    interface = ReplicationInterface()
    gc = GroupCommit(engine, writer, end, interface, server_id=1, sync_binlog=lambda: 1)
    role = MasterRole(writer=writer, end=end, pipeline=gc, interface=interface, server_id=1, checksum=True)
    role.server = SimpleNamespace(engine=engine)  # type: ignore[assignment]
    s = engine.session(1)
    who = SimpleNamespace(connection_id=1, set_state=lambda state: None)
    await gc.commit(who, (await s.execute("CREATE DATABASE g")).committed)
    assert end.tail is not None
    seen = []
    reset = writer.reset

    def watched_reset(*args):
        seen.append(end.tail)
        return reset(*args)

    writer.reset = watched_reset  # type: ignore[method-assign]
    await role.reset_master()
    assert seen == [None] and end.tail is None
    assert end.position == writer.end_position == BinlogPosition("mysql-bin.000001", end.position.pos)
    await s.close()
    gc.close()
    writer.close()
    await engine.close()
