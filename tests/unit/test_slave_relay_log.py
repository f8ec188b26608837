"""The relay log's resume rule and the row image decoder, on files and bytes made in memory.

The events are built with protocol.events (the same encoders the golden tests check against
MariaDB's bytes); the relay files are real files under tmp_path.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from binlog.reader import iter_events
from protocol.errors import RemoteProtocolError
from protocol.events import (
    FL_STANDALONE,
    EventType,
    FormatDescription,
    MariaGtid,
    Query,
    Rows,
    TableMap,
    Xid,
    decode_event,
    encode_body_event,
    query_text,
)
from protocol.messages import FieldType
from protocol.position import BinlogPosition
from protocol.statements import query_kind, statement_kind
from protocol.statements import statement_kind_words as _statement_kind_words
from slave.relay_log import GroupTracker, RelayLog
from slave.rows import TableLayout, UnsupportedColumnType, decode_rows
from tests.support.relay_stream import MASTER, Stream


def write(relay: RelayLog, events: list[bytes]) -> int:
    for e in events:
        relay.append(e)
    relay.flush()
    return relay.size


def test_recover_cuts_a_partial_transaction_and_resumes_after_the_last_complete_one(tmp_path):
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    assert relay.recover().resume is None
    relay.start_file(checksum=True)
    stream = Stream()
    write(relay, stream.start() + stream.transaction(1))
    boundary_offset = write(relay, stream.transaction(2))
    boundary_master = stream.pos
    write(relay, stream.transaction(3)[:2])  # BEGIN + INSERT, no XID: the crash came here
    relay.close()

    again = RelayLog(tmp_path, "relay-bin", server_id=2)
    found = again.recover()
    assert found.resume == BinlogPosition(MASTER, boundary_master)
    assert found.readable is not None and found.readable.pos == boundary_offset
    assert (tmp_path / "relay-bin.000001").stat().st_size == boundary_offset
    assert found.truncated_bytes > 0
    # The next connection writes a new file; the index lists both.
    again.start_file(checksum=True)
    assert again.files() == ["relay-bin.000001", "relay-bin.000002"]


def test_recover_cuts_a_torn_event(tmp_path):
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    stream = Stream()
    end = write(relay, stream.start() + stream.transaction(1))
    master_end = stream.pos
    torn = stream.transaction(2)[0][:10]
    write(relay, [torn])
    relay.close()
    found = RelayLog(tmp_path, "relay-bin", server_id=2).recover()
    assert found.resume == BinlogPosition(MASTER, master_end)
    assert (tmp_path / "relay-bin.000001").stat().st_size == end
    assert [len(e) for _, e in iter_events(tmp_path / "relay-bin.000001")][-1] == len(stream.transaction(9)[-1])


def test_a_file_without_any_event_of_the_master_is_dropped(tmp_path):
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    stream = Stream()
    write(relay, stream.start() + stream.transaction(1))
    master_end = stream.pos
    relay.start_file(checksum=True)  # a second connection that crashed before the ROTATE
    relay.close()
    again = RelayLog(tmp_path, "relay-bin", server_id=2)
    assert again.recover().resume == BinlogPosition(MASTER, master_end)
    assert again.files() == ["relay-bin.000001"]
    assert not (tmp_path / "relay-bin.000002").exists()


def test_group_tracker_mariadb_gtid_groups_and_standalone_ddl():
    stream = Stream()
    tracker = GroupTracker(None, True)
    for e in stream.start():
        assert tracker.feed(e)
    assert tracker.master == BinlogPosition(MASTER, 4)
    assert not tracker.feed(stream.event(MariaGtid(seq_no=1, flags2=0x0C)))
    assert not tracker.feed(stream.event(Query(db="d", query="INSERT INTO t VALUES (1)")))
    assert tracker.feed(stream.event(Xid(1)))
    assert not tracker.feed(stream.event(MariaGtid(seq_no=2, flags2=FL_STANDALONE | 0x28)))
    assert tracker.feed(stream.event(Query(db="d", query="CREATE TABLE x (a INT)")))
    assert tracker.master == BinlogPosition(MASTER, stream.pos)
    assert not tracker.feed(stream.event(Query(db="d", query="BEGIN")))
    assert tracker.feed(stream.event(Query(db="d", query="COMMIT")))


@pytest.mark.parametrize("checksum", [True, False])
@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("BEGIN", "BEGIN"),
        (" " * 70 + "COMMIT", "COMMIT"),  # blanks beyond the peeked start
        ("\n\tROLLBACK", "ROLLBACK"),
        ("INSERT INTO t VALUES ('" + "é" * 40 + "')", "OTHER"),
        ("COMMITTED_TABLE_NAME", "OTHER"),
        ("", "OTHER"),
    ],
)
def test_query_peek_agrees_with_the_decoded_statement(query, kind, checksum):
    """The tracker reads a QUERY's statement in place (no body, no CRC32 check): the same kind as
    from the fully decoded event, with status variables and a db before it, with or without a
    footer."""
    body = Query(db="sbtest", query=query, status_vars=b"\x00\x00\x00\x00\x00\x01\x00\x00\xa0\x55\x00\x00\x00")
    event = encode_body_event(body, timestamp=1, server_id=1, log_pos=100, checksum=checksum)
    assert bytes(query_text(event, checksum)) == query.encode()
    assert query_kind(query_text(event, checksum)) == statement_kind(decode_event(event, checksum).body.query) == kind


def test_query_peek_refuses_a_db_length_past_the_event():
    event = bytearray(encode_body_event(Query(db="d", query="BEGIN"), timestamp=1, server_id=1, log_pos=9, checksum=False))
    event[19 + 8] = 200  # db_len
    with pytest.raises(RemoteProtocolError):
        query_text(event, False)


def table_map(types: bytes, meta: bytes) -> TableLayout:
    return TableLayout.from_table_map(TableMap(19, 1, "d", "t", types, meta, b"\xff"))


def test_rows_decode_write_update_delete():
    layout = table_map(bytes([FieldType.LONG, FieldType.VARCHAR, FieldType.NEWDECIMAL]), b"\x28\x00" + bytes([10, 2]))
    # WRITE_ROWS v1: 3 columns, all present; row: null bitmap, INT 7, VARCHAR 'ab', DECIMAL(10,2) 12.34
    decimal_1234 = bytes([0x80, 0x00, 0x00, 0x0C, 0x22])
    row = b"\x00" + (7).to_bytes(4, "little") + b"\x02ab" + decimal_1234
    write = Rows(EventType.WRITE_ROWS_EVENT_V1, 19, 1, b"\x03\x07" + row)
    [change] = decode_rows(layout, EventType.WRITE_ROWS_EVENT_V1, write)
    assert change.kind == "insert"
    assert change.after[0] == 7 and change.after[1] == b"ab" and str(change.after[2]) == "12.34"
    # UPDATE v2 with a NULL in the after image
    after = b"\x02" + (8).to_bytes(4, "little") + decimal_1234
    update = Rows(EventType.UPDATE_ROWS_EVENT, 19, 1, b"\x03\x07\x07" + row + after, b"")
    [change] = decode_rows(layout, EventType.UPDATE_ROWS_EVENT, update)
    assert change.kind == "update" and change.before[0] == 7 and change.after == (8, None, change.after[2])
    delete = Rows(EventType.DELETE_ROWS_EVENT_V1, 19, 1, b"\x03\x07" + row)
    assert decode_rows(layout, EventType.DELETE_ROWS_EVENT_V1, delete)[0].kind == "delete"


def test_rows_unsupported_type_is_named():
    layout = table_map(bytes([FieldType.LONG, FieldType.GEOMETRY]), b"\x04")
    rows = Rows(EventType.WRITE_ROWS_EVENT_V1, 19, 1, b"\x02\x03" + b"\x00" + (1).to_bytes(4, "little") + b"\x01\x00")
    with pytest.raises(UnsupportedColumnType) as raised:
        decode_rows(layout, EventType.WRITE_ROWS_EVENT_V1, rows)
    assert "GEOMETRY" in str(raised.value) and "d.t" in str(raised.value)


def test_rotate_starts_a_file_that_stands_on_its_own(tmp_path):
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    stream = Stream()
    start_events = stream.start()
    write(relay, start_events + stream.transaction(1))
    at = BinlogPosition(MASTER, stream.pos)
    relay.rotate(at, master_server_id=1, master_fd=start_events[1], checksum=True)
    assert relay.files() == ["relay-bin.000001", "relay-bin.000002"]
    assert relay.readable is not None and relay.readable.file == "relay-bin.000002"
    write(relay, stream.transaction(2)[:1])  # a partial transaction in the new file
    relay.close()
    found = RelayLog(tmp_path, "relay-bin", server_id=2).recover()
    assert found.resume == at
    types = [e[4] for _, e in iter_events(tmp_path / "relay-bin.000002")]
    assert types == [EventType.FORMAT_DESCRIPTION_EVENT, EventType.ROTATE_EVENT, EventType.FORMAT_DESCRIPTION_EVENT]


@pytest.mark.parametrize(("statement", "kind"), [
    ("BEGIN", "BEGIN"), ("  begin;", "BEGIN"), ("START TRANSACTION", "BEGIN"),
    ("start  transaction read write", "BEGIN"), ("START TRANSACTION WITH CONSISTENT SNAPSHOT", "BEGIN"),
    ("START TRANSACTIONS", "OTHER"), ("START SLAVE", "OTHER"), ("COMMIT", "COMMIT"), ("ROLLBACK", "ROLLBACK"),
    ("INSERT INTO t VALUES (1)", "OTHER"), ("", "OTHER"), ("ROLLBACK WORK", "ROLLBACK"),
    ("ROLLBACK AND NO CHAIN", "ROLLBACK"), ("rollback;", "ROLLBACK"),
    # a rollback to a savepoint undoes part of its transaction and ends nothing (Django's
    # atomic blocks: SAVEPOINT x, ..., ROLLBACK TO SAVEPOINT x, RELEASE SAVEPOINT x)
    ("ROLLBACK TO SAVEPOINT `s1_x1`", "OTHER"), ("rollback work to x", "OTHER"), ("ROLLBACK  TO x", "OTHER"),
])
def test_statement_kind_knows_every_spelling_of_a_transaction_start(statement, kind):
    assert statement_kind(statement) == kind
    assert query_kind(statement.encode()) == kind


def _kind_of_bytes(text: bytes) -> str:
    """`query_kind` as the words of the whole text decide (no first-byte answer, no peek)."""
    return _statement_kind_words(text.decode("utf-8", "surrogateescape"))


_KIND_RESTS = ["", "EGIN", "egin;", "OMMIT", "OLLBACK", "TART TRANSACTION", "tart  transaction read only",
               "NSERT INTO t VALUES (1)", " BEGIN", "\x1cCOMMIT", "ELECT 1", "EGINS"]


def test_statement_kind_fast_paths_answer_as_the_words_do_for_every_first_character():
    """The first character decides only when it is ASCII; 'ſ' (U+017F) folds to 'S' and 'ı'
    (U+0131) to 'I', so they are never taken as letters: 'ſTART TRANSACTION' is a BEGIN, as its
    words say; only ASCII blanks are skipped (\x1c-\x1f and U+00A0 start no BEGIN)."""
    for first in map(chr, [*range(0x250), 0x1680, 0x2000, 0x2028, 0x3000, 0xFEFF, 0x1E9E]):
        for rest in _KIND_RESTS:
            sql = first + rest
            assert statement_kind(sql) == _statement_kind_words(sql), repr(sql)
            raw = sql.encode("utf-8", "surrogatepass")
            assert query_kind(raw) == query_kind(memoryview(raw)) == _kind_of_bytes(raw), repr(sql)
    assert statement_kind("ſTART TRANSACTION") == query_kind("ſTART TRANSACTION".encode()) == "BEGIN"
    assert statement_kind("ſtart transaction") == "BEGIN" and statement_kind("\x1fBEGIN") == "OTHER"
    assert statement_kind("ſELECT 1") == "OTHER"


def test_statement_kind_of_the_boundaries_binlogs_write_whole():
    for text, kind in [("BEGIN", "BEGIN"), ("COMMIT", "COMMIT"), ("ROLLBACK", "ROLLBACK"),
                       ("START TRANSACTION", "BEGIN"), ("XA START 'x'", "OTHER")]:
        assert statement_kind(text) == _statement_kind_words(text) == kind
        assert query_kind(text.encode()) == query_kind(memoryview(text.encode())) == kind


@given(st.text(alphabet=st.sampled_from(" \t\n\x1c;ſıSsTtAaRrBbEeGgIiNnCcOoMmLlKkXx\u00a0\u2000é"), max_size=40))
def test_statement_kind_fast_paths_answer_as_the_words_do(sql):
    assert statement_kind(sql) == _statement_kind_words(sql)
    raw = sql.encode()
    assert query_kind(raw) == _kind_of_bytes(raw)
    padded = (" " * 70 + sql).encode()  # mostly blanks: the whole text is looked at
    assert query_kind(padded) == _kind_of_bytes(padded)


def test_recover_follows_a_checksum_change_of_the_master_within_a_file(tmp_path):
    """The master turned binlog_checksum off (its new FD in the same relay file): the events after
    it carry no CRC32, and recovery still finds the last complete transaction among them."""
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    relay.start_file(checksum=True)
    stream = Stream()
    write(relay, stream.start() + stream.transaction(1))
    plain = FormatDescription(server_version="10.11.19-MariaDB-log", checksum_alg=0)
    pos = stream.pos
    events = [encode_body_event(plain, timestamp=1, server_id=1, log_pos=0, checksum=True)]
    for body in (Query(db="d", query="BEGIN"), Query(db="d", query="INSERT INTO t VALUES (2)"), Xid(2)):
        pos += len(encode_body_event(body, timestamp=1, server_id=1, log_pos=0, checksum=False))
        events.append(encode_body_event(body, timestamp=1, server_id=1, log_pos=pos, checksum=False))
    end = write(relay, events)
    write(relay, events[1:3])  # a transaction without its end
    relay.close()
    found = RelayLog(tmp_path, "relay-bin", server_id=2).recover()
    assert found.resume == BinlogPosition(MASTER, pos)
    assert found.readable is not None and found.readable.pos == end
    assert (tmp_path / "relay-bin.000001").stat().st_size == end


def test_the_tail_holds_the_appended_events_as_the_file_has_them(tmp_path):
    """`tail` gives the current file's last appended events, byte for byte what the file holds,
    for a range of whole events it holds entirely; anything else is None (read the file)."""
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    name = relay.start_file(checksum=True)
    head = relay.size  # our own FD: written by start_file, not appended
    stream = Stream()
    write(relay, stream.start() + stream.transaction(1))
    middle = relay.size
    end = write(relay, stream.transaction(2))
    on_disk = list(iter_events(tmp_path / name, head))
    assert relay.tail(name, head, end) == on_disk
    assert relay.tail(name, middle, end) == [(o, e) for o, e in on_disk if o >= middle]
    assert relay.tail(name, head, middle) == [(o, e) for o, e in on_disk if o < middle]
    assert relay.tail(name, 4, end) is None  # our FD is not in it
    assert relay.tail(name, head + 1, end) is None  # not an event boundary
    assert relay.tail(name, head, end - 1) is None
    assert relay.tail(name, head, None) is None
    assert relay.tail("relay-bin.000009", head, end) is None
    held = relay.tail(name, middle, end)
    write(relay, stream.transaction(3))
    assert held == [(o, e) for o, e in on_disk if o >= middle]  # the caller's list
    # whatever cuts or replaces the file forgets the tail
    relay.truncate_tail(end)
    assert relay.tail(name, middle, end) is None
    write(relay, stream.transaction(4))
    new = relay.start_file(checksum=True)
    assert relay.tail(name, middle, end) is None and relay.tail(new, relay.size, relay.size) is None


def test_the_tail_keeps_the_newest_events_within_its_bound(tmp_path):
    from slave.relay_log import TAIL_BYTES_MAX

    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    name = relay.start_file(checksum=True)
    head = relay.size
    stream = Stream()
    write(relay, stream.start())
    n = 1
    while relay.size - head < 3 * TAIL_BYTES_MAX:
        write(relay, stream.transaction(n))
        n += 1
    assert relay.tail(name, head, relay.size) is None  # the oldest are gone
    kept = relay._tail
    assert TAIL_BYTES_MAX <= sum(len(e) for _, e in kept) <= 2 * TAIL_BYTES_MAX
    assert relay.tail(name, kept[0][0], relay.size) == list(iter_events(tmp_path / name, kept[0][0]))


def test_a_failed_write_forgets_the_tail(tmp_path, monkeypatch):
    relay = RelayLog(tmp_path, "relay-bin", server_id=2)
    relay.recover()
    name = relay.start_file(checksum=True)
    stream = Stream()
    start = relay.size
    end = write(relay, stream.start() + stream.transaction(1))
    assert relay.tail(name, start, end) is not None
    for e in stream.transaction(2):
        relay.append(e)

    def fail() -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(relay._writer, "flush", fail)
    with pytest.raises(OSError):
        relay.flush()
    assert relay.tail(name, start, end) is None
