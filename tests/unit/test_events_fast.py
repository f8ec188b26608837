"""The struct path of protocol.events against its construct declarations (the reference):
`decode_event` equals `decode_event_declared` on every input (well-formed events of our binlog
and MariaDB's, and mutated ones: the same value, or both refuse with a ProtocolError), and
`Body.encode` equals `Body.encode_declared` byte for byte on every body the group commit writes
(`master.events.transaction_events` over many transactions) and on random values, including
values only the declaration can write or refuse."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from binlog.reader import iter_events
from binlog.writer import BinlogWriter
from engine.results import LoggedStatement
from master.events import transaction_events
from protocol.errors import LocalProtocolError, ProtocolError
from protocol.events import (
    FL_ALLOW_PARALLEL,
    FL_GROUP_COMMIT_ID,
    FL_TRANSACTIONAL,
    EventType,
    FormatDescription,
    Gtid,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    UserVar,
    Xid,
    decode_event,
    decode_event_declared,
    decode_parts,
    encode_event,
    encode_events,
    gtid_body,
    intvar_body,
    query_body,
    xid_body,
)
from protocol.semisync_wire import split_semisync_header
from tests.unit.test_events import GOLDEN
from tests.unit.test_events_fuzz import fix_frame, mutate, seeds
from tests.unit.test_interop_capture_events import dump  # noqa: F401 - the MariaDB capture's events

FUZZ_ROUNDS = 60_000


def same_decoding(raw: bytes, checksum: bool) -> bool:
    """Both decoders give the same Event, or both refuse, and `decode_parts` its header and body
    (from bytes and from a view of them), or refuses too; True when it decoded."""
    try:
        declared = decode_event_declared(raw, checksum)
    except ProtocolError:
        with pytest.raises(ProtocolError):
            decode_event(raw, checksum)
        for given in (raw, memoryview(raw)):
            with pytest.raises(ProtocolError):
                decode_parts(given, checksum)
        return False
    assert decode_event(raw, checksum) == declared, raw.hex()
    for given in (raw, memoryview(raw)):
        assert decode_parts(given, checksum) == (declared.header, declared.body), raw.hex()
    return True


def random_statement(rng: random.Random, ts: int) -> LoggedStatement:
    text = rng.choice(["INSERT INTO t (a, b) VALUES (1, 'x')", "UPDATE t SET b = 'caf\u00e9 \u2615' WHERE a = 2",
                       "DELETE FROM t WHERE a = 3", "INSERT INTO t VALUES (@v, RAND())", "x" * rng.randrange(300)])
    user_vars = tuple((f"v{i}", rng.choice([None, 7, -1, 2**64 - 1, 1.5, "text\u00e9", b"\x00\xff", True]))
                      for i in range(rng.choice((0, 0, 1, 3))))
    return LoggedStatement(
        db=rng.choice([None, "", "sbtest", "d\u00e9" * 20]), sql=text, timestamp=ts,
        insert_id=rng.choice([None, 1, 2**64 - 1]), last_insert_id=rng.choice([None, 0, 5]),
        rand_seed=rng.choice([None, (1, 2), (2**64 - 1, 0)]), user_vars=user_vars,
        foreign_key_checks=rng.random() < 0.8,
    )


def random_transactions(seed: int, count: int) -> list[tuple[list[LoggedStatement], Gtid | None, int]]:
    rng = random.Random(seed)
    out = []
    seq_no = {0: 0, 1: 2**40, 2: 2**64 - 4 * count}  # increasing in each domain, as mariadb-binlog wants them
    for i in range(count):
        ts = 1_700_000_000 + i
        if rng.random() < 0.1:
            stmts = [LoggedStatement(db=rng.choice([None, "d"]), sql="CREATE TABLE t (a INT)", timestamp=ts, is_ddl=True)]
        else:
            stmts = [random_statement(rng, ts) for _ in range(rng.randrange(1, 5))]
        domain = rng.randrange(3)
        seq_no[domain] += rng.randrange(1, 4)
        gtid = None if rng.random() < 0.2 else Gtid(domain, rng.randrange(1, 2**32), seq_no[domain])
        out.append((stmts, gtid, rng.randrange(2**32)))
    return out


def test_every_golden_and_captured_event_decodes_the_same(dump):  # noqa: F811
    for name, raw in GOLDEN.items():
        assert same_decoding(raw, not name.endswith("_NOCRC")), name
    events, _acks = dump
    for packet in events:
        assert same_decoding(split_semisync_header(packet.payload[1:])[1], True)


def test_transaction_events_are_the_declarations_bytes():
    """Every body of 2,000 transactions is what the construct encoder builds from the body
    decoded back by the declaration (the same values, the reference's bytes)."""
    bodies = 0
    for stmts, gtid, xid in random_transactions(17, 2000):
        for type_code, body, _timestamp, _flags in transaction_events(stmts, xid=xid, thread_id=xid >> 8, gtid=gtid):
            event = bytes(19) + body  # a header only to call the decoder; checksum off
            header = event[:4] + bytes([type_code]) + event[5:9] + (19 + len(body)).to_bytes(4, "little") + event[13:]
            decoded = decode_event_declared(header, False).body
            assert decoded.encode_declared() == body == decoded.encode(), (type_code, body.hex())
            bodies += 1
    assert bodies > 8000


def test_our_binlog_decodes_the_same(tmp_path: Path):
    """A binlog the writer makes of those transactions (CRC32 and without): every event,
    FD, GTID_LIST, ROTATE included, decodes the same both ways."""
    for checksum in (True, False):
        directory = tmp_path / str(checksum)
        writer = BinlogWriter(directory, "bin", server_id=3, checksum=checksum, max_size=64 * 1024,
                              server_version="10.11.0-semisync")
        writer.open()
        for stmts, gtid, xid in random_transactions(5, 600):
            writer.append(transaction_events(stmts, xid=xid, thread_id=9, gtid=gtid), gtid.server_id if gtid else None)
            writer.write_group(False)
        writer.close()
        files = sorted(directory.glob("bin.0*"))
        assert len(files) > 1  # rotated: ROTATE events too
        seen = set()
        for path in files:
            for _offset, raw in iter_events(path):
                assert same_decoding(raw, checksum or raw[4] == EventType.FORMAT_DESCRIPTION_EVENT)
                seen.add(raw[4])
        assert {EventType.QUERY_EVENT, EventType.GTID_EVENT, EventType.XID_EVENT, EventType.INTVAR_EVENT,
                EventType.RAND_EVENT, EventType.USER_VAR_EVENT, EventType.ROTATE_EVENT} <= seen


def test_mutated_events_decode_the_same_or_are_refused_by_both():
    rng = random.Random(0xFA57)
    corpus = seeds()
    decoded = refused = 0
    for i in range(FUZZ_ROUNDS):
        raw, checksum = corpus[i % len(corpus)]
        data = fix_frame(rng, mutate(rng, raw), checksum)
        if same_decoding(data, checksum if rng.random() < 0.9 else not checksum):
            decoded += 1
        else:
            refused += 1
    assert decoded > FUZZ_ROUNDS // 10 and refused > FUZZ_ROUNDS // 10


def test_random_bodies_encode_as_declared_or_both_refuse():
    """Values at and past every field's range, and the shapes only the declaration writes (XA,
    flags_extra, extra bytes): the same bytes, or the same refusal."""
    rng = random.Random(4)
    edge = [0, 1, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1, 2**64, -1]
    bodies = []
    for _ in range(3000):
        bodies += [
            Query(rng.choice(edge), rng.choice(edge), rng.choice(edge), rng.choice(["", "db", "x" * 255, "x" * 256]),
                  rng.choice(["BEGIN", "", "\udcff"]), rng.choice([b"", b"\x00" * 9, bytes(65536)])),
            Xid(rng.choice(edge)), Intvar(rng.choice(edge), rng.choice(edge)), Rand(rng.choice(edge), rng.choice(edge)),
            UserVar(rng.choice(["v", "", "\u00e9"]), rng.random() < 0.3, rng.choice(edge), rng.choice(edge),
                    rng.choice([b"", b"abc"]), rng.choice([None, 0, 1, 255, 256, -1])),
            MariaGtid(rng.choice(edge), rng.choice(edge), rng.choice([0, FL_TRANSACTIONAL | FL_ALLOW_PARALLEL,
                      FL_GROUP_COMMIT_ID, 0x40, 300]), commit_id=rng.choice([None, 5, -1]),
                      extra=rng.choice([b"", b"\x00\x01"]), flags_extra=rng.choice([0, 0, 1]), extra_engines=rng.choice([None, 1])),
        ]
    written = 0
    for body in bodies:
        try:
            declared = body.encode_declared()
        except Exception as e:  # noqa: BLE001 - whatever the declaration raises, the struct path raises too
            with pytest.raises(type(e)):
                body.encode()
            continue
        assert body.encode() == declared, body
        written += 1
    assert written > len(bodies) // 4


def test_a_format_description_still_decodes_by_its_declaration():
    fd = decode_event(GOLDEN["FORMAT_DESCRIPTION_EVENT"], False).body
    assert isinstance(fd, FormatDescription) and fd.checksum


def test_bodies_from_fields_are_the_declarations_bytes_or_refused():
    """`query_body`, `gtid_body`, `xid_body` and `intvar_body` (what the group commit builds a
    transaction with, no Body object) against the declaration of the same fields, at and past
    every field's range: the same bytes, or both refuse (the struct path with
    LocalProtocolError)."""
    rng = random.Random(8)
    edge = [0, 1, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1, 2**64, -1]
    cases = []
    for _ in range(3000):
        thread_id, db, sql = rng.choice(edge), rng.choice(["", "db", "x" * 255, "x" * 256, "d\u00e9"]), rng.choice(["BEGIN", "", "\udcff", "caf\u00e9"])
        status_vars = rng.choice([b"", b"\x00" * 9, bytes(65536)])
        cases.append((lambda t=thread_id, d=db, q=sql, v=status_vars: query_body(t, d, q, v), Query(thread_id, 0, 0, db, sql, status_vars)))
        seq_no, domain, flags2 = rng.choice(edge), rng.choice(edge), rng.choice([0, FL_TRANSACTIONAL | FL_ALLOW_PARALLEL, 0x40, 255, 256, -1])
        cases.append((lambda s=seq_no, d=domain, f=flags2: gtid_body(s, d, f), MariaGtid(seq_no, domain, flags2)))
        xid = rng.choice(edge)
        cases.append((lambda x=xid: xid_body(x), Xid(xid)))
        kind, value = rng.choice(edge), rng.choice(edge)
        cases.append((lambda k=kind, v=value: intvar_body(k, v), Intvar(kind, value)))
    written = 0
    for ours, body in cases:
        try:
            declared = body.encode_declared()
        except Exception:  # noqa: BLE001 - the declaration refuses: so do the fields' builders
            with pytest.raises(LocalProtocolError):
                ours()
            continue
        assert ours() == declared, body
        written += 1
    assert written > len(cases) // 4
    with pytest.raises(LocalProtocolError):  # commit_id or XA: fields gtid_body does not write
        gtid_body(1, 0, FL_GROUP_COMMIT_ID)


def test_events_framed_in_one_pass_are_encode_event_s_bytes():
    """`encode_events` (a transaction's events at once, as the binlog writer appends them) gives
    each event `encode_event`'s bytes with log_pos its end, from any offset, with and without
    CRC32; a field out of range is refused before anything is returned."""
    rng = random.Random(11)
    for stmts, gtid, xid in random_transactions(23, 300):
        specs = transaction_events(stmts, xid=xid, thread_id=xid >> 8, gtid=gtid)
        server_id, offset, checksum = rng.randrange(2**32), rng.randrange(4, 2**31), rng.random() < 0.7
        framed = encode_events(specs, server_id=server_id, offset=offset, checksum=checksum)
        at = offset
        for (start, event), (type_code, body, timestamp, flags) in zip(framed, specs, strict=True):
            end = at + len(event)
            assert start == at
            assert event == encode_event(type_code, body, timestamp=timestamp, server_id=server_id, log_pos=end,
                                         flags=flags, checksum=checksum)
            at = end
    assert encode_events([], server_id=1, offset=4, checksum=True) == []
    with pytest.raises(LocalProtocolError):
        encode_events([(EventType.XID_EVENT, bytes(8), 0, 0)], server_id=2**32, offset=4, checksum=True)
    with pytest.raises(LocalProtocolError):
        encode_events([(EventType.FORMAT_DESCRIPTION_EVENT, bytes(90), 0, 0)], server_id=1, offset=4, checksum=False)


def test_decoding_a_replicated_transaction_s_events_enters_no_python_layer_but_their_body_s_decoder():
    """`decode_parts` of the events an applier reads for every transaction (GTID, INTVAR, QUERY,
    XID; checked against their CRC32 or not) reads the header and the footer in its own frame: the
    only Python functions it enters are the body's struct decoder and the body's constructor (the
    header, the footer and the texts are decoded without a frame of their own), and it answers
    what the declarations answer."""
    import sys

    events = [encode_event(t, body.encode(), timestamp=1, server_id=1, log_pos=100, checksum=True)
              for t, body in ((EventType.GTID_EVENT, MariaGtid(seq_no=7, domain_id=0, flags2=FL_TRANSACTIONAL)),
                              (EventType.INTVAR_EVENT, Intvar(2, 9)),
                              (EventType.QUERY_EVENT, Query(db="sbtest", query="INSERT INTO t VALUES (NULL, 'caf\u00e9')")),
                              (EventType.XID_EVENT, Xid(7)))]
    entered: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            entered.append(frame.f_code.co_name)

    for raw in events:
        for verify in (True, False):
            entered.clear()
            sys.setprofile(profile)
            try:
                parts = decode_parts(raw, True, verify=verify)
            finally:
                sys.setprofile(None)
            declared = decode_event_declared(raw, True)
            assert parts == (declared.header, declared.body)
            assert entered[0] == "decode_parts"
            assert set(entered[1:]) <= {"_decode_gtid", "_decode_query", "decode", "__init__"}, entered


def test_a_statement_s_query_body_is_built_once_per_session_state_then_only_its_text(monkeypatch):
    """`statement_query` keeps a QUERY body's bytes before the text by what decides them (the
    thread id, the database, foreign_key_checks and the sql_mode bits): every statement's event
    is `query_event`'s of its own fields, whatever was kept before and in whatever order, across
    thread ids, databases (None and ''), modes, non-ASCII and surrogate-escaped texts, a
    statement that read its microseconds (built whole) and the keep emptied when full; a text
    that cannot be written is refused as `query_event` refuses it; and `query_body` runs once per
    such state, not per statement."""
    from master import events

    monkeypatch.setattr(events, "_QUERY_HEADS", {}, raising=False)
    rng = random.Random(29)
    built = [0]
    query_body_of = events.query_body

    def counted(*args):
        built[0] += 1
        return query_body_of(*args)

    monkeypatch.setattr(events, "query_body", counted)
    states = [(thread_id, db, fk, zero, mode)
              for thread_id in (1, 2, 2**32 - 1) for db in (None, "", "sbtest", "d\u00e9")
              for fk in (True, False) for zero in (False, True) for mode in (None, 0, 0x5A000000)]
    texts = ["UPDATE t SET k=k+1 WHERE id=7", "INSERT INTO t VALUES (1, 'caf\u00e9 \u2615')", "", "x\udcff", "y" * 300]
    for n in range(3000):
        thread_id, db, fk, zero, mode = rng.choice(states)
        micros = rng.choice([None, None, None, 0, 999_999])
        stmt = LoggedStatement(db=db, sql=rng.choice(texts), timestamp=1_700_000_000 + n, is_ddl=False,
                               foreign_key_checks=fk, no_auto_value_on_zero=zero, sql_mode=mode, microseconds=micros)
        assert events.statement_query(stmt, thread_id, stmt.timestamp) == events.query_event(
            stmt.sql, db, stmt.timestamp, thread_id, fk, zero, mode, micros)
    with pytest.raises(LocalProtocolError):
        events.statement_query(LoggedStatement(db="d", sql="\ud800", timestamp=1), 1, 1)
    with pytest.raises(LocalProtocolError):  # (a thread id past the field: the head itself refused)
        events.statement_query(LoggedStatement(db="d", sql="x", timestamp=1), 2**32, 1)
    # kept: once per state, then no `query_body` for a statement
    events._QUERY_HEADS.clear()
    built[0] = 0
    for n in range(10):
        for thread_id in (5, 6):
            stmt = LoggedStatement(db="sbtest", sql=f"DELETE FROM t WHERE id={n}", timestamp=n, is_ddl=False)
            assert events.statement_query(stmt, thread_id, n)[1] == query_body_of(
                thread_id, "sbtest", stmt.sql, events.STATUS_VARS)
    assert built[0] == 2
    # full: emptied, then kept again, the bodies the same
    for thread_id in range(events._QUERY_HEADS_KEPT + 10):
        stmt = LoggedStatement(db="d", sql="DELETE FROM t", timestamp=1, is_ddl=False)
        assert events.statement_query(stmt, thread_id, 1)[1] == query_body_of(thread_id, "d", stmt.sql,
                                                                               events.STATUS_VARS)
    assert 0 < len(events._QUERY_HEADS) <= events._QUERY_HEADS_KEPT
