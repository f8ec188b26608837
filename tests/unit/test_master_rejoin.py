"""--init-rpl-role SLAVE's recovery (master.recovery, `truncate_uncommitted`) on a real engine and
real binlog files in tmp_path: the binlog's tail the engine never committed is cut off (across
files, the index fixed), MariaDB's line is logged with the first removed GTID, and nothing is
cut or logged when the engine has everything."""

from __future__ import annotations

import logging

import pytest

from binlog.index import read_index
from binlog.reader import iter_events, scan_file
from binlog.writer import BinlogWriter
from engine.core import Engine
from engine.results import LoggedStatement
from master.events import transaction_events
from master.recovery import recover
from protocol.events import EventType, MariaGtid, decode_header, in_use_flag, query_text
from protocol.position import BinlogPosition

SERVER_VERSION = "10.11.99-semisync-log"


def Stmt(sql, db="r", ts=1700000000, is_ddl=False):  # noqa: N802
    return LoggedStatement(db, sql, ts, is_ddl=is_ddl)


def _writer(path, max_size=1 << 20):
    return BinlogWriter(path, "mysql-bin", server_id=1, checksum=True, max_size=max_size,
                        server_version=SERVER_VERSION)


async def _commit(engine, writer, sql, *, gtid=None):
    """One statement run in the engine, binlogged and committed with its end as the meta."""
    end = _append(writer, sql, gtid=gtid)
    s = engine.session(1)
    await s.execute(sql)
    await s.close()
    writer.flush()
    async with engine.writer_lock:
        await engine.commit_group({"binlog_file": end.file, "binlog_pos": str(end.pos)})
    return end


def _append(writer, sql, *, gtid=None, xid=7, server_id=None):
    """A transaction's events in the binlog (and nothing in the engine), MariaDB's GTID event
    first when `gtid` = (domain, seq_no) is given."""
    events = transaction_events([Stmt(sql, is_ddl=sql.startswith("CREATE"))], xid=xid, thread_id=1)
    if gtid is not None:
        events = [(EventType.GTID_EVENT, MariaGtid(gtid[1], gtid[0]).encode(), 1700000000, 0), *events]
    return writer.append(events, server_id)


@pytest.fixture
async def base(tmp_path):
    """An engine and a binlog that agree on a database and a table (meta = their end)."""
    engine = await Engine.open(tmp_path / "db")
    writer = _writer(tmp_path, 4096)
    writer.open()
    await _commit(engine, writer, "CREATE DATABASE r")
    await _commit(engine, writer, "CREATE TABLE r.t (id INT PRIMARY KEY, v VARCHAR(200))")
    await _commit(engine, writer, "INSERT INTO r.t VALUES (1, 'committed')")
    yield engine, writer, tmp_path
    writer.close()
    await engine.close()


async def _crash(engine, writer, tmp_path):
    """The process dies: the binlog as it is on disk (the writer not closed), the engine
    reopened from its files."""
    writer.sync()
    await engine.close()
    return await Engine.open(tmp_path / "db")


async def _rows(engine):
    s = engine.session(9)
    res = await s.execute("SELECT id, v FROM r.t ORDER BY id")
    await s.close()
    return [tuple(r) for r in res.rows]


def _statements(tmp_path):
    out = []
    for name in read_index(tmp_path, "mysql-bin"):
        for _offset, raw in iter_events(tmp_path / name):
            if decode_header(raw).type_code == EventType.QUERY_EVENT:
                out.append(bytes(query_text(raw, checksum=True)).decode())
    return out


async def test_slave_role_cuts_the_uncommitted_tail_and_logs_mariadb_line(base, caplog):
    engine, writer, tmp_path = base
    committed = BinlogPosition(*_meta(engine))
    _append(writer, "INSERT INTO r.t VALUES (2, 'never committed')")
    _append(writer, "INSERT INTO r.t VALUES (3, 'never committed')", xid=8)
    writer.flush()
    size = (tmp_path / committed.file).stat().st_size
    engine = await _crash(engine, writer, tmp_path)
    with caplog.at_level(logging.INFO, logger="semisync.master.recovery"):
        report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)
    assert report.replayed == 0 and report.truncation is not None
    assert (report.truncation.file, report.truncation.pos, report.truncation.old_size) == (
        committed.file, committed.pos, size)
    line = (f"Successfully truncated binlog file:./{committed.file} from previous file size {size} "
            f"to pos:{committed.pos} to remove transactions starting from position {committed.file}:{committed.pos}")
    assert [r.getMessage() for r in caplog.records if "truncated binlog file" in r.getMessage()] == [line]
    # the engine and the binlog agree: neither has the tail
    assert (tmp_path / committed.file).stat().st_size == committed.pos
    assert scan_file(tmp_path / committed.file).clean
    assert await _rows(engine) == [(1, "committed")]
    assert not [s for s in _statements(tmp_path) if "never committed" in s]
    # the cut file was the active one: flagged in use until the writer, opening the next file, clears it
    assert in_use_flag(next(iter_events(tmp_path / committed.file))[1])
    restarted = _writer(tmp_path)
    assert restarted.open(True).file != committed.file
    restarted.close()
    assert not in_use_flag(next(iter_events(tmp_path / committed.file))[1])
    # nothing left to cut: a second recovery neither cuts nor logs
    caplog.clear()
    engine = await _crash(engine, writer, tmp_path)
    with caplog.at_level(logging.INFO, logger="semisync.master.recovery"):
        assert (await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)).truncation is None
    assert not [r for r in caplog.records if "truncated" in r.getMessage()]
    await engine.close()


async def test_nothing_uncommitted_nothing_cut_nor_logged(base, caplog):
    engine, writer, tmp_path = base
    files = {n: (tmp_path / n).read_bytes() for n in read_index(tmp_path, "mysql-bin")}
    engine = await _crash(engine, writer, tmp_path)
    with caplog.at_level(logging.INFO, logger="semisync.master.recovery"):
        report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)
    assert report.truncation is None and report.replayed == 0
    assert not [r for r in caplog.records if "truncated" in r.getMessage()]
    assert {n: (tmp_path / n).read_bytes() for n in read_index(tmp_path, "mysql-bin")} == files
    await engine.close()


async def test_across_files_later_files_removed_and_the_index_fixed(base, caplog):
    """Rotations inside the uncommitted tail (max_binlog_size 4096): the first file of the tail
    is cut at its first transaction, every later one deleted and dropped from the index; the
    writer then starts the file after the cut one, and clears the cut file's in-use flag."""
    engine, writer, tmp_path = base
    committed = BinlogPosition(*_meta(engine))
    first = None
    for i in range(40):
        end = _append(writer, f"INSERT INTO r.t VALUES ({10 + i}, '{'x' * 150}')", gtid=(0, 100 + i), xid=20 + i)
        writer.flush()  # rotates once a file reaches 4096 bytes
        first = first or end
    names = read_index(tmp_path, "mysql-bin")
    later = names[names.index(committed.file) + 1:]
    assert len(later) >= 2, names
    size = (tmp_path / committed.file).stat().st_size
    engine = await _crash(engine, writer, tmp_path)
    with caplog.at_level(logging.INFO, logger="semisync.master.recovery"):
        report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)
    t = report.truncation
    assert t is not None and (t.file, t.pos, t.removed) == (committed.file, committed.pos, tuple(later))
    assert str(t.gtid) == "0-1-100"
    assert [r.getMessage() for r in caplog.records if "truncated binlog file" in r.getMessage()] == [
        f"Successfully truncated binlog file:./{committed.file} from previous file size {size} "
        f"to pos:{committed.pos} to remove transactions starting from GTID 0-1-100"]
    assert read_index(tmp_path, "mysql-bin") == names[: names.index(committed.file) + 1]
    assert not any((tmp_path / n).exists() for n in later)
    assert (tmp_path / "mysql-bin.index").read_text().splitlines()[-1] == f"./{committed.file}"
    assert await _rows(engine) == [(1, "committed")]
    # the writer goes on after the cut file (closed by its rotation: no in-use flag), with the
    # removed name reused afresh
    restarted = _writer(tmp_path, 4096)
    start = restarted.open(True)
    assert start.file == later[0] and not in_use_flag(next(iter_events(tmp_path / committed.file))[1])
    restarted.close()
    assert not [s for s in _statements(tmp_path) if "x" * 150 in s]
    await engine.close()


async def test_a_tail_starting_after_a_rotation_is_cut_after_the_new_file_header(base, caplog):
    """The engine stands at the end of a file (before its ROTATE); the tail is the next file's:
    that file keeps its own header events, loses its transactions, and the GTID named is the
    first of them."""
    engine, writer, tmp_path = base
    writer.rotate()
    header_end = writer.end_position
    _append(writer, "INSERT INTO r.t VALUES (5, 'after rotate')", gtid=(3, 42))
    writer.flush()
    engine = await _crash(engine, writer, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)
    t = report.truncation
    assert t is not None and (t.file, t.pos, str(t.gtid), t.removed) == (header_end.file, header_end.pos, "3-1-42", ())
    assert (tmp_path / header_end.file).stat().st_size == header_end.pos
    assert await _rows(engine) == [(1, "committed")]
    await engine.close()


async def test_master_role_still_replays_the_tail(base):
    engine, writer, tmp_path = base
    _append(writer, "INSERT INTO r.t VALUES (2, 'replayed')")
    end = writer.flush()
    engine = await _crash(engine, writer, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.truncation is None and report.replayed == 1
    assert await _rows(engine) == [(1, "committed"), (2, "replayed")]
    assert engine.meta()["binlog_pos"] == str(end.pos)
    await engine.close()


async def test_a_torn_event_after_the_tail_is_cut_with_it(base, caplog):
    engine, writer, tmp_path = base
    committed = BinlogPosition(*_meta(engine))
    _append(writer, "INSERT INTO r.t VALUES (2, 'never committed')", gtid=(0, 50))
    writer.flush()
    engine = await _crash(engine, writer, tmp_path)
    with open(tmp_path / committed.file, "ab") as f:
        f.write(b"\x01\x02\x03")  # half an event header: a write the crash cut
    with caplog.at_level(logging.INFO, logger="semisync.master.recovery"):
        report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=True)
    assert report.torn_bytes == 3 and report.truncation is not None and str(report.truncation.gtid) == "0-1-50"
    assert f"recovery: cut 3 torn byte(s) from {committed.file}" in caplog.messages
    assert (tmp_path / committed.file).stat().st_size == committed.pos
    await engine.close()


@pytest.mark.parametrize("role", ["SLAVE", "MASTER"])
async def test_a_replicated_transaction_in_the_tail_is_left_to_the_applier(base, role):
    """log_slave_updates: a transaction replicated from server 2 in the tail is, like the engine,
    not in the applier's committed position. SLAVE cuts it and leaves the applier's meta as it
    was (its relay log still holds it: applied again, binlogged again); MASTER replays it and
    counts it for the applier to skip."""
    engine, writer, tmp_path = base
    async with engine.writer_lock:
        await engine.commit_group({**engine.meta(), "relay_log_file": "relay-bin.000001", "relay_log_pos": "400"})
    _append(writer, "INSERT INTO r.t VALUES (4, 'from server 2')", gtid=(0, 9), server_id=2)
    writer.flush()
    engine = await _crash(engine, writer, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin", truncate_uncommitted=role == "SLAVE")
    meta = engine.meta()
    assert (meta["relay_log_file"], meta["relay_log_pos"]) == ("relay-bin.000001", "400")
    if role == "SLAVE":
        assert report.truncation is not None and str(report.truncation.gtid) == "0-2-9"
        assert await _rows(engine) == [(1, "committed")] and "relay_log_skip" not in meta
    else:
        assert report.replicated == 1 and meta["relay_log_skip"] == "1"
        assert await _rows(engine) == [(1, "committed"), (4, "from server 2")]
    await engine.close()


def _meta(engine):
    meta = engine.meta()
    return meta["binlog_file"], int(meta["binlog_pos"])


@pytest.mark.parametrize(("value", "role"), [(None, "MASTER"), ("slave", "SLAVE"), ("MASTER", "MASTER")])
def test_init_rpl_role_option(value, role):
    from config.master import MasterConfig
    from config.slave import SlaveConfig

    for model in (MasterConfig, SlaveConfig):
        kw = {} if value is None else {"init_rpl_role": value}
        extra = {"server_id": 2} if model is SlaveConfig else {}
        assert str(model(**kw, **extra).init_rpl_role) == role
    with pytest.raises(ValueError, match="allowed MASTER, SLAVE"):
        MasterConfig(init_rpl_role="REPLICA")
