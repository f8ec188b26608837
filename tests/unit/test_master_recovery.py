"""Crash recovery (master.recovery) on a real engine and real binlog files in tmp_path, with the
crash states built by hand: a group in the binlog the engine never committed, a transaction
without its XID, a torn trailing event."""

from __future__ import annotations

import pytest

from binlog.reader import iter_events, scan_file
from binlog.writer import BinlogWriter
from engine.core import Engine
from engine.results import LoggedStatement
from master.events import transaction_events
from master.recovery import recover, replay_start
from protocol.position import BinlogPosition


def Stmt(sql, db="r", ts=1700000000, insert_id=None, last_insert_id=None, is_ddl=False):  # noqa: N802
    return LoggedStatement(db, sql, ts, insert_id, last_insert_id, is_ddl)


@pytest.fixture
async def setup(tmp_path):
    engine = await Engine.open(tmp_path / "db")
    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                          server_version="10.11.99-semisync-log")
    writer.open()
    # a committed base: database and table, in the binlog and in the engine (meta = its end)
    s = engine.session(1)
    for sql in ("CREATE DATABASE r", "CREATE TABLE r.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10), ts DATETIME)"):
        res = await s.execute(sql)
        for stmts in res.committed.binlog_transactions():
            end = writer.append(transaction_events(stmts, xid=1, thread_id=1))
        writer.flush()
        async with engine.writer_lock:
            await engine.commit_group({"binlog_file": end.file, "binlog_pos": str(end.pos)})
    await s.close()
    yield engine, writer, tmp_path
    writer.close()
    await engine.close()


async def rows(engine):
    s = engine.session(9)
    res = await s.execute("SELECT id, v, ts FROM r.t ORDER BY id")
    await s.close()
    return [tuple(r) for r in res.rows]


async def reopen(engine, tmp_path):
    await engine.close()
    return await Engine.open(tmp_path / "db")


async def test_replays_a_group_the_engine_did_not_commit(setup):
    engine, writer, tmp_path = setup
    writer.append(transaction_events([Stmt("INSERT INTO r.t (v, ts) VALUES ('a', NOW())", insert_id=7)],
                                     xid=2, thread_id=1))
    end = writer.append(transaction_events([
        Stmt("INSERT INTO r.t (v) VALUES ('b')", insert_id=8, ts=1700000100),
        Stmt("UPDATE r.t SET v = 'A' WHERE id = 7", ts=1700000100),
    ], xid=3, thread_id=1))
    writer.flush()
    writer.sync()
    # crash before the engine commit: the engine's meta is still the DDL's end
    engine = await reopen(engine, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.replayed == 2 and report.partial_bytes == 0
    assert await rows(engine) == [(7, "A", "2023-11-14 22:13:20"), (8, "b", None)]
    assert engine.meta() == {"binlog_file": end.file, "binlog_pos": str(end.pos)}
    # idempotent: a second recovery finds nothing to do
    engine = await reopen(engine, tmp_path)
    assert (await recover(engine, tmp_path, "mysql-bin")).replayed == 0
    assert len(await rows(engine)) == 2
    await engine.close()


async def test_cuts_a_transaction_without_xid_and_a_torn_event(setup):
    engine, writer, tmp_path = setup
    good = writer.append(transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('ok')", insert_id=1)],
                                            xid=2, thread_id=1))
    events = transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('lost')", insert_id=2)], xid=3, thread_id=1)
    writer.append(events[:-1])  # BEGIN, INTVAR, QUERY and no XID: the crash cut the group
    writer.flush()
    path = tmp_path / good.file
    with open(path, "ab") as f:
        f.write(b"\x00" * 11)  # and half an event header after it
    engine = await reopen(engine, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.torn_bytes == 11
    assert report.partial_bytes > 0
    assert path.stat().st_size == good.pos
    assert scan_file(path).clean
    assert await rows(engine) == [(1, "ok", None)]
    last = list(iter_events(path))[-1]
    assert last[1][4] == 16  # the file ends with the good transaction's XID
    await engine.close()


def test_replay_start_rules():
    names = ["b.000003", "b.000004"]
    assert replay_start(names, {}) == BinlogPosition("b.000003", 4)
    assert replay_start(names, {"binlog_file": "b.000004", "binlog_pos": "900"}) == BinlogPosition("b.000004", 900)
    # the engine's file was purged: the files after it
    assert replay_start(names, {"binlog_file": "b.000002", "binlog_pos": "900"}) == BinlogPosition("b.000003", 4)
    # RESET MASTER recorded a position the binlog has not reached (nothing newer to replay)
    assert replay_start(names, {"binlog_file": "b.000009", "binlog_pos": "4"}) is None
    assert replay_start([], {}) is None


@pytest.mark.parametrize("value", [None, 0, -5, 2**64 - 1, 2.5, "text é", b"\x00\xff"])
def test_user_var_events_round_trip(value):
    from master.events import user_var
    from protocol.events import EventType, decode_event, encode_event, user_var_value

    raw = encode_event(EventType.USER_VAR_EVENT, user_var("v", value).encode(), timestamp=1, server_id=1,
                       log_pos=0, checksum=True)
    assert user_var_value(decode_event(raw, checksum=True).body) == value


async def test_replays_ddl_and_the_statement_context(setup):
    engine, writer, tmp_path = setup
    writer.append(transaction_events([Stmt("CREATE TABLE r.u (k INT PRIMARY KEY, at DATETIME, who VARCHAR(9))",
                                           is_ddl=True)], xid=0, thread_id=1))
    stmt = Stmt("INSERT INTO r.u VALUES (@k, NOW(), @who)", ts=1700000000)
    stmt.user_vars = (("k", 3), ("who", "me"))
    writer.append(transaction_events([stmt], xid=2, thread_id=1))
    writer.flush()
    engine = await reopen(engine, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.replayed == 2
    s = engine.session(9)
    res = await s.execute("SELECT k, at, who FROM r.u")
    await s.close()
    assert [tuple(r) for r in res.rows] == [(3, "2023-11-14 22:13:20", "me")]
    await engine.close()


async def test_the_engine_ahead_of_the_binlog_stops_recovery_without_cutting(setup):
    """The binlog lost what the engine committed: recovery refuses (nothing cut, nothing
    replayed) instead of going on with a binlog that lacks the engine's transactions."""
    from master.recovery import RecoveryError

    engine, writer, tmp_path = setup
    end = writer.append(transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('a')", insert_id=1)], xid=2, thread_id=1))
    writer.flush()
    writer.sync()
    s = engine.session(1)
    await s.execute("INSERT INTO r.t (v) VALUES ('a')")
    await s.close()
    async with engine.writer_lock:
        await engine.commit_group({"binlog_file": end.file, "binlog_pos": str(end.pos)})
    path = tmp_path / end.file
    before = path.read_bytes()
    with open(path, "r+b") as f:  # the disk lost the last transaction's synced bytes
        f.truncate(end.pos - 40)
    cut = path.read_bytes()
    engine = await reopen(engine, tmp_path)
    with pytest.raises(RecoveryError, match="the engine is ahead of the binlog"):
        await recover(engine, tmp_path, "mysql-bin")
    assert path.read_bytes() == cut and len(cut) < len(before)
    await engine.close()


async def test_a_damaged_last_binlog_stops_recovery_without_cutting(setup):
    from master.recovery import RecoveryError

    engine, writer, tmp_path = setup
    mid = writer.end_position
    writer.append(transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('a')", insert_id=1)], xid=2, thread_id=1))
    end = writer.append(transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('b')", insert_id=2)], xid=3, thread_id=1))
    writer.flush()
    writer.sync()
    path = tmp_path / end.file
    data = bytearray(path.read_bytes())
    data[mid.pos + 30] ^= 0xFF  # a CRC32 mismatch in the first of the two transactions
    path.write_bytes(data)
    engine = await reopen(engine, tmp_path)
    with pytest.raises(RecoveryError, match=f"damaged at offset {mid.pos}"):
        await recover(engine, tmp_path, "mysql-bin")
    assert path.read_bytes() == data  # nothing cut: a human decides
    assert await rows(engine) == []
    await engine.close()



async def test_a_zero_filled_tail_is_cut_as_a_torn_one(setup):
    """Zeros after the last event (what a crash can leave) are a torn tail, not damage."""
    engine, writer, tmp_path = setup
    end = writer.append(transaction_events([Stmt("INSERT INTO r.t (v) VALUES ('a')", insert_id=1)], xid=2, thread_id=1))
    writer.flush()
    path = tmp_path / end.file
    with open(path, "ab") as f:
        f.write(bytes(4096))
    engine = await reopen(engine, tmp_path)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.torn_bytes == 4096 and report.replayed == 1
    assert path.stat().st_size == end.pos and scan_file(path).clean
    assert await rows(engine) == [(1, "a", None)]
    await engine.close()


async def test_a_statement_written_under_no_auto_value_on_zero_replays_its_zero_id(setup):
    """The binlog's QUERY carries sql_mode NO_AUTO_VALUE_ON_ZERO for a statement run under it
    (master.events): recovery replays its 0 as that id, as the master stored it and as replicas
    do; the same statement without the mode takes the next id."""
    engine, writer, tmp_path = setup
    zero = Stmt("INSERT INTO r.t (id, v) VALUES (0, 'zero')")
    zero.no_auto_value_on_zero = True
    writer.append(transaction_events([zero], xid=2, thread_id=1))
    writer.append(transaction_events([Stmt("INSERT INTO r.t (id, v) VALUES (0, 'gen')", insert_id=1)],
                                     xid=3, thread_id=1))
    writer.flush()
    engine = await reopen(engine, tmp_path)
    assert (await recover(engine, tmp_path, "mysql-bin")).replayed == 2
    assert await rows(engine) == [(0, "zero", None), (1, "gen", None)]
    await engine.close()


async def test_a_statement_written_non_strict_replays_its_adjusted_value(setup):
    """A statement run without STRICT_TRANS_TABLES stored a too-long string cut to its column; its
    QUERY carries that sql_mode (master.events) and recovery replays it so (the engine's strict
    mode refused it: 1406, and recovery stopped)."""
    engine, writer, tmp_path = setup
    lax = Stmt("INSERT INTO r.t (id, v) VALUES (1, 'abcdefghijkl')")
    lax.sql_mode = 0
    writer.append(transaction_events([lax], xid=2, thread_id=1))
    writer.flush()
    engine = await reopen(engine, tmp_path)
    assert (await recover(engine, tmp_path, "mysql-bin")).replayed == 1
    assert await rows(engine) == [(1, "abcdefghij", None)]
    await engine.close()


async def test_a_replayed_statement_finds_the_temporary_table_its_session_had(setup):
    """A group the crash kept out of the engine used session 5's temporary `t` (over the base
    `r.t`): the replay reads the temporary table the crashed open left (as the group expects),
    not the base table, and the left temporary tables are dropped after it."""
    engine, writer, tmp_path = setup
    s, other = engine.session(5), engine.session(7)
    s.database = other.database = "r"
    for session, sql in ((s, "CREATE TABLE copy (id INT, v VARCHAR(10))"),
                         (s, "CREATE TEMPORARY TABLE t (id INT, v VARCHAR(10))"),
                         (s, "INSERT INTO t VALUES (1, 'temporary')"), (other, "INSERT INTO t (v) VALUES ('base')")):
        res = await session.execute(sql)
        for stmts in res.committed.binlog_transactions():
            end = writer.append(transaction_events(stmts, xid=1, thread_id=session.connection_id))
        writer.flush()
        async with engine.writer_lock:
            await engine.commit_group({"binlog_file": end.file, "binlog_pos": str(end.pos)})
    # in the binlog only: the crash came before the engine's commit (and no session end)
    writer.append(transaction_events([Stmt("INSERT INTO copy SELECT id, v FROM t"),
                                      Stmt("INSERT INTO t VALUES (2, 'temporary')")], xid=2, thread_id=5))
    writer.append(transaction_events([Stmt("INSERT INTO copy SELECT id, v FROM t")], xid=3, thread_id=5))
    writer.append(transaction_events([Stmt("INSERT INTO copy SELECT id, v FROM t")], xid=4, thread_id=6))
    writer.flush()
    writer.sync()
    await engine.close()
    engine = await Engine.open(tmp_path / "db", keep_left_temporary=True)
    report = await recover(engine, tmp_path, "mysql-bin")
    assert report.replayed == 3
    reader = engine.session(9)
    copied = await reader.execute("SELECT id, v FROM r.copy ORDER BY id, v")
    assert [tuple(r) for r in copied.rows] == [(1, "base"), (1, "temporary"), (1, "temporary"), (2, "temporary")]
    assert await rows(engine) == [(1, "base", None)]
    assert not engine.temporary_owners()
    await reader.close()
    await engine.close()
