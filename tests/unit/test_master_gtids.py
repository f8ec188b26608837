"""The GTIDs our binlog writer writes (master.events, master.gtid_state, GroupCommit) and what a
dump by GTID makes of them (master.dump's GtidSkipper, compatible_event).

The layout is held to what MariaDB 10.11 wrote for the same kinds of transactions (recorded from
`mariadb-binlog --hexdump` of its binlog: a new file is FD, GTID_LIST (the state before the
file, an empty one padded with two zero bytes), BINLOG_CHECKPOINT (the file itself at a start,
the file before on a rotation, then one naming the file once the file before is committed); a DDL or user statement is GTID flags2 0x29 + QUERY; a DML
transaction GTID flags2 0x0c, its statements, XID; a GTID event's body is 19 bytes and its header
flags LOG_EVENT_SUPPRESS_USE_F); tests/integration/test_gtid_master_mariadb_replica.py shows a
MariaDB replica and mariadb-binlog reading our files."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from binlog.index import read_index
from binlog.reader import iter_events
from binlog.writer import BinlogWriter
from engine import Engine, StatementContext
from master.binlog_end import BinlogEnd
from master.commit import GroupCommit
from master.dump import CAPABILITY_GTID, CAPABILITY_TOLERATE_HOLES, GtidSkipper, compatible_event
from master.gtid_state import BinlogGtids, file_gtid_list, read_binlog_state
from master.recovery import read_transactions
from protocol.errors import RemoteProtocolError, SQLError
from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    BinlogCheckpoint,
    EventType,
    Gtid,
    GtidList,
    MariaGtid,
    Query,
    UserVar,
    decode_event,
)
from protocol.gtid import BinlogFileGtids, BinlogState, GtidPosition, find_dump_start
from protocol.position import BinlogPosition
from semisync.interface import ReplicationInterface

# What MariaDB 10.11 writes (recorded, see the module docstring)
MARIADB_DDL_FLAGS2 = 0x29  # FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL
MARIADB_TRANSACTION_FLAGS2 = 0x0C  # FL_TRANSACTIONAL | FL_ALLOW_PARALLEL
MARIADB_GTID_HEADER_FLAGS = 0x08  # LOG_EVENT_SUPPRESS_USE_F
MARIADB_GTID_BODY_LEN = 19


class Session:
    def __init__(self, connection_id: int, gtid_domain_id: int | None = None) -> None:
        self.connection_id = connection_id
        self.sysvars = {} if gtid_domain_id is None else {"gtid_domain_id": gtid_domain_id}

    def set_state(self, state: str | None) -> None:
        pass


@dataclass
class Replicated:
    statements: list[tuple[Any, ...]]
    server_id: int
    gtid: Gtid | None
    meta: dict[str, str] = field(default_factory=dict)
    user_statement: bool = False
    transactional: bool | None = None


async def _open(tmp_path, gtids: BinlogGtids) -> tuple[Engine, BinlogWriter, GroupCommit]:
    engine = await Engine.open(tmp_path / "db")
    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=1 << 20,
                          server_version="10.11.99-semisync-log", header=gtids.header_events)
    writer.open()
    gc = GroupCommit(engine, writer, BinlogEnd(writer.end_position), ReplicationInterface(), server_id=1,
                     sync_binlog=lambda: 1, gtids=gtids)
    return engine, writer, gc


async def _run(engine: Engine, gc: GroupCommit, session: Session, *statements: str) -> None:
    s = engine.session(session.connection_id)
    for sql in statements:
        res = await s.execute(sql)
        if res.committed is not None:
            await gc.commit(session, res.committed)
    await s.close()


def _events(tmp_path, name: str) -> list[tuple[int, Any]]:
    """(type, decoded event) of every event of a file."""
    return [(raw[4], decode_event(raw, checksum=True)) for _o, raw in iter_events(tmp_path / name)]


def _shape(tmp_path, name: str) -> list[tuple]:
    """A file's events as comparable tuples: GTIDs with their flags, statements, the rest by type."""
    out: list[tuple] = []
    for kind, ev in _events(tmp_path, name):
        body = ev.body
        if isinstance(body, MariaGtid):
            out.append(("GTID", body.gtid(ev.header.server_id), body.flags2, ev.header.flags))
        elif isinstance(body, GtidList):
            out.append(("GTID_LIST", tuple(map(str, body.gtids))))
        elif isinstance(body, BinlogCheckpoint):
            out.append(("CHECKPOINT", body.file))
        elif isinstance(body, Query):
            out.append(("QUERY", body.query))
        else:
            out.append((EventType(kind).name,))
    return out


async def test_our_binlog_has_mariadbs_layout_and_numbering(tmp_path):
    gtids = BinlogGtids(domain_id=3)
    engine, writer, gc = await _open(tmp_path, gtids)
    try:
        await _run(engine, gc, Session(5), "CREATE DATABASE d", "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
                   "INSERT INTO d.t (v) VALUES (1)", "BEGIN", "INSERT INTO d.t (v) VALUES (2)", "UPDATE d.t SET v = v + 1",
                   "COMMIT")
        await gc.append_statement(Session(5), "CREATE USER 'u'@'%'")
        await _run(engine, gc, Session(6, gtid_domain_id=9), "INSERT INTO d.t (v) VALUES (3)")
        writer.rotate()
        await _run(engine, gc, Session(5), "INSERT INTO d.t (v) VALUES (4)")
    finally:
        gc.close()
        writer.close()
        await engine.close()
    ddl, trans = MARIADB_DDL_FLAGS2, MARIADB_TRANSACTION_FLAGS2
    use = MARIADB_GTID_HEADER_FLAGS
    assert _shape(tmp_path, "mysql-bin.000001") == [
        ("FORMAT_DESCRIPTION_EVENT",), ("GTID_LIST", ()), ("CHECKPOINT", "mysql-bin.000001"),
        ("GTID", "3-1-1", ddl, use), ("QUERY", "CREATE DATABASE d"),
        ("GTID", "3-1-2", ddl, use), ("QUERY", "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"),
        ("GTID", "3-1-3", trans, use), ("INTVAR_EVENT",), ("QUERY", "INSERT INTO d.t (v) VALUES (1)"), ("XID_EVENT",),
        ("GTID", "3-1-4", trans, use), ("INTVAR_EVENT",), ("QUERY", "INSERT INTO d.t (v) VALUES (2)"),
        ("QUERY", "UPDATE d.t SET v = v + 1"), ("XID_EVENT",),
        ("GTID", "3-1-5", ddl, use), ("QUERY", "CREATE USER 'u'@'%'"),
        ("GTID", "9-1-1", trans, use), ("INTVAR_EVENT",), ("QUERY", "INSERT INTO d.t (v) VALUES (3)"), ("XID_EVENT",),
        ("ROTATE_EVENT",),
    ]
    assert _shape(tmp_path, "mysql-bin.000002") == [
        ("FORMAT_DESCRIPTION_EVENT",), ("GTID_LIST", ("3-1-5", "9-1-1")), ("CHECKPOINT", "mysql-bin.000001"),
        ("CHECKPOINT", "mysql-bin.000002"), ("GTID", "3-1-6", trans, use), ("INTVAR_EVENT",), ("QUERY", "INSERT INTO d.t (v) VALUES (4)"), ("XID_EVENT",),
    ]
    for _kind, ev in _events(tmp_path, "mysql-bin.000001"):
        if isinstance(ev.body, MariaGtid):
            assert ev.header.event_size == 19 + MARIADB_GTID_BODY_LEN + 4
        if isinstance(ev.body, GtidList) and not ev.body.gtids:
            assert ev.body.extra == bytes(2)  # MariaDB's empty list
    assert str(gtids.state) == "3-1-6,9-1-1"
    # what a restart rebuilds from the files, and the state before the second file
    assert read_binlog_state(tmp_path, read_index(tmp_path, "mysql-bin")) == gtids.state
    assert file_gtid_list(tmp_path / "mysql-bin.000002") == (Gtid(3, 1, 5), Gtid(9, 1, 1))
    # recovery reads the GTID groups back as transactions
    txns = list(read_transactions(tmp_path, read_index(tmp_path, "mysql-bin"), BinlogPosition("mysql-bin.000001", 4),
                                  user_statements=True))
    assert [[s[0] for s in t.statements] for t in txns] == [
        ["CREATE DATABASE d"], ["CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"],
        ["INSERT INTO d.t (v) VALUES (1)"], ["INSERT INTO d.t (v) VALUES (2)", "UPDATE d.t SET v = v + 1"],
        ["CREATE USER 'u'@'%'"], ["INSERT INTO d.t (v) VALUES (3)"], ["INSERT INTO d.t (v) VALUES (4)"],
    ]
    assert all(t.end is not None for t in txns)
    first_gtid = next(o for o, raw in iter_events(tmp_path / "mysql-bin.000001") if raw[4] == EventType.GTID_EVENT)
    assert txns[0].start.pos == first_gtid  # a transaction starts at its GTID event


async def test_replicated_transactions_keep_their_gtid_or_are_numbered_here(tmp_path):
    gtids = BinlogGtids(BinlogState([Gtid(0, 1, 7)]), domain_id=0)
    engine, writer, gc = await _open(tmp_path, gtids)
    try:
        await _run(engine, gc, Session(1), "CREATE DATABASE r", "CREATE TABLE r.t (id INT PRIMARY KEY)")
        ctx = StatementContext()
        await gc.commit_replicated([
            Replicated([("INSERT INTO r.t VALUES (1)", ctx, "r")], server_id=5, gtid=Gtid(4, 5, 100)),
            Replicated([("INSERT INTO r.t VALUES (2)", ctx, "r")], server_id=6, gtid=None),
        ])
    finally:
        gc.close()
        writer.close()
        await engine.close()
    shape = [e for e in _shape(tmp_path, "mysql-bin.000001") if e[0] == "GTID"]
    assert [e[1] for e in shape] == ["0-1-8", "0-1-9", "4-5-100", "0-6-10"]
    assert str(gtids.state) == "0-1-9,0-6-10,4-5-100"


async def test_a_group_that_fails_to_write_leaves_no_gtid_in_the_state(tmp_path):
    gtids = BinlogGtids()
    engine, writer, gc = await _open(tmp_path, gtids)
    try:
        await _run(engine, gc, Session(1), "CREATE DATABASE f")

        def failing(sync: bool) -> Any:
            raise OSError(28, "No space left on device")

        writer.write_group = failing  # type: ignore[method-assign]
        with pytest.raises(Exception, match="1026|No space|Error writing"):
            await _run(engine, gc, Session(1), "CREATE TABLE f.t (id INT PRIMARY KEY)")
        assert str(gtids.state) == "0-1-1"
    finally:
        gc.close()
        writer.close()
        await engine.close()


def test_a_standalone_gtid_without_its_statement_is_an_incomplete_transaction(tmp_path):
    from master.events import GTID_FLAGS_STANDALONE, gtid_event

    writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=None,
                          server_version="10.11.99-semisync-log", header=BinlogGtids().header_events)
    writer.open()
    start = writer.pending_position
    writer.append([gtid_event(Gtid(0, 1, 1), GTID_FLAGS_STANDALONE, 0)])
    writer.flush()
    writer.close()
    (txn,) = read_transactions(tmp_path, ["mysql-bin.000001"], BinlogPosition("mysql-bin.000001", 4))
    assert txn.end is None and txn.start == start and txn.statements == []


def _gtid(domain: int, server_id: int, seq: int, standalone: bool, end: int) -> tuple[int, bytes]:
    from master.events import GTID_FLAGS_STANDALONE, GTID_FLAGS_TRANSACTION
    from protocol.events import encode_event

    body = MariaGtid(seq_no=seq, domain_id=domain, flags2=GTID_FLAGS_STANDALONE if standalone else GTID_FLAGS_TRANSACTION)
    raw = encode_event(EventType.GTID_EVENT, body.encode(), timestamp=1, server_id=server_id, log_pos=end, flags=8,
                       checksum=True)
    return end - len(raw), raw


def _event(body: Any, end: int) -> tuple[int, bytes]:
    from protocol.events import encode_body_event

    raw = encode_body_event(body, timestamp=1, server_id=1, log_pos=end, flags=0, checksum=True)
    return end - len(raw), raw


def test_a_dump_by_gtid_skips_what_the_slave_has_and_sends_a_fake_gtid_list():
    from protocol.events import Xid

    state = BinlogState([Gtid(0, 1, 1), Gtid(0, 1, 2), Gtid(0, 1, 3)])
    start = find_dump_start([BinlogFileGtids("b.000001", ())], GtidPosition.parse("0-1-2"), state)
    batch = [_gtid(0, 1, 1, True, 100), _event(Query(query="CREATE DATABASE x"), 200),
             _gtid(0, 1, 2, False, 300), _event(Query(query="INSERT INTO x.t VALUES (1)"), 400), _event(Xid(9), 500),
             _gtid(0, 1, 3, False, 600), _event(Query(query="INSERT INTO x.t VALUES (2)"), 700), _event(Xid(10), 800)]
    skipper = GtidSkipper(start.filter, server_id=1)
    sent = skipper.filter(batch, crc=True)
    assert skipper.done
    fake = decode_event(sent[0][1], checksum=True)
    assert isinstance(fake.body, GtidList) and fake.body.gtids == (Gtid(0, 1, 2),)
    assert fake.header.flags == LOG_EVENT_ARTIFICIAL_F and fake.header.log_pos == 500 and fake.header.timestamp == 0
    assert sent[0][0] + len(sent[0][1]) == 500
    assert sent[1:] == batch[5:]


def test_a_slave_that_knows_no_gtids_gets_begin_or_nothing_or_a_same_size_no_op():
    begin_at, gtid = _gtid(0, 1, 1, False, 100)
    out = compatible_event(gtid, 0, True)
    assert out is not None and len(out) == len(gtid)
    ev = decode_event(out, checksum=True)
    assert isinstance(ev.body, Query) and ev.body.query == "BEGIN" and ev.header.log_pos == 100
    _, standalone = _gtid(0, 1, 2, True, 200)
    _, listed = _event(GtidList.of(()), 300)
    for event in (standalone, listed):
        assert compatible_event(event, CAPABILITY_TOLERATE_HOLES, True) is None
        dummy = compatible_event(event, 0, True)
        assert dummy is not None and len(dummy) == len(event)
        assert isinstance(decode_event(dummy, checksum=True).body, UserVar)
        assert compatible_event(event, CAPABILITY_GTID, True) == event


class _SessionVars:
    def __init__(self, **sysvars: Any) -> None:
        self.sysvars = dict(sysvars)


def test_a_sessions_gtid_seq_no_and_server_id_number_its_next_transaction_once():
    gtids = BinlogGtids(strict_mode=False)
    plain = _SessionVars(gtid_domain_id=0)
    assert gtids.own_gtid(plain, 1) == Gtid(0, 1, 1)
    replay = _SessionVars(gtid_domain_id=0, server_id=9, gtid_seq_no=50)
    assert gtids.own_gtid(replay, 1) == Gtid(0, 9, 50)
    assert replay.sysvars["gtid_seq_no"] == 0  # taken once
    assert gtids.own_gtid(replay, 1) == Gtid(0, 9, 51)
    replay.sysvars["gtid_seq_no"] = 20  # below the domain's last: written as given
    assert gtids.own_gtid(replay, 1) == Gtid(0, 9, 20)
    assert gtids.own_gtid(plain, 1) == Gtid(0, 1, 52)  # the domain's counter stays the highest
    gtids.check_seq_no(replay, 5, 1)  # not strict: anything goes
    gtids.strict_mode = True
    with pytest.raises(SQLError) as refused:
        gtids.check_seq_no(replay, 52, 1)
    assert refused.value.code == 1950 and "0-9-52" in refused.value.message and "0-1-52" in refused.value.message
    gtids.check_seq_no(replay, 53, 1)
    gtids.check_seq_no(replay, 0, 1)  # 0: no seq_no asked for
    replay.sysvars["gtid_seq_no"] = 40  # another session wrote past the SET's check meanwhile
    with pytest.raises(RemoteProtocolError):
        gtids.own_gtid(replay, 1)
    assert replay.sysvars["gtid_seq_no"] == 0 and str(gtids.state.binlog_pos()) == "0-1-52"
