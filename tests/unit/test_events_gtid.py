"""MariaDB's GTID (162), GTID_LIST (163) and BINLOG_CHECKPOINT (161) events: golden bytes from
real MariaDB 10.11.19 binlogs (binlog_checksum=CRC32; `mariadb-binlog` showed the GTID line
quoted next to each), one per flag combination MariaDB wrote: a standalone DDL, a transaction,
a non-transactional statement, a group commit (binlog_commit_wait_count), a transaction that
waited for a row lock, XA PREPARE / XA COMMIT alone and in a group commit, a two-phase ALTER
(binlog_alter_two_phase), another domain and server_id. Each decodes to the values
mariadb-binlog printed and re-encodes byte for byte; every truncation is the peer's error."""

from __future__ import annotations

import pytest

from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.events import (
    FL_ALLOW_PARALLEL,
    FL_COMMIT_ALTER,
    FL_COMPLETED_XA,
    FL_DDL,
    FL_EXTRA_MULTI_ENGINE,
    FL_GROUP_COMMIT_ID,
    FL_PREPARED_XA,
    FL_STANDALONE,
    FL_START_ALTER,
    FL_TRANSACTIONAL,
    FL_WAITED,
    HEADER_LEN,
    BinlogCheckpoint,
    Gtid,
    GtidList,
    MariaGtid,
    decode_event,
    encode_body_event,
    gtid_fields,
    gtid_flags2,
)

GOLDEN = {
    # GTID 0-2-1 ddl
    "DDL": "abd1056ba2020000002a000000730100000800010000000000000000000000290000000000008497a496",
    # GTID 3-7-5 trans
    "TRANS": "73d1056ba2070000002a000000c003000008000500000000000000030000000c0000000000001d5d1d2b",
    # GTID 3-7-6 (a MyISAM insert)
    "NON_TRANS": "75d1056ba2070000002a000000620400000800060000000000000003000000080000000000002c91ae5b",
    # GTID 3-7-7 cid=16 trans
    "GROUP_COMMIT": "78d1056ba2070000002c0000002c05000008000700000000000000030000000e10000000000000005cee1877",
    # GTID 0-2-5 trans waited
    "WAITED": "afd1056ba2020000002a000000e203000008000500000000000000000000001c00000000000004a7aa57",
    # GTID 3-7-101 trans (XA PREPARE X'7831',X'6231',5)
    "XA_PREPARE": "7bd1056ba20700000030000000c307000008006500000000000000030000004c0500000002027831623101fff17433f1",
    # GTID 3-7-102 trans (XA COMMIT X'7831',X'6231',5)
    "XA_COMMIT": "7dd1056ba2070000002e000000cb08000008006600000000000000030000008d0500000002027831623153a9b389",
    # GTID 0-2-6 cid=20 trans (XA PREPARE 'g2')
    "XA_PREPARE_GROUP_COMMIT": "b3d1056ba202000000360000009204000008000600000000000000000000004e1400000000000000010000000200673201ff22309862",
    # GTID 0-2-9 cid=35 trans (XA COMMIT 'g1')
    "XA_COMMIT_GROUP_COMMIT": "b4d1056ba20200000034000000b407000008000900000000000000000000008f23000000000000000100000002006731d661de2d",
    # GTID 0-2-12 ddl START ALTER
    "START_ALTER": "b5d1056ba2020000002a0000004809000008000c0000000000000000000000290200000000006ddf9656",
    # GTID 0-2-13 ddl COMMIT ALTER id= 12
    "COMMIT_ALTER": "b5d1056ba2020000002d000000d609000008000d000000000000000000000029040c00000000000000f0cd38e2",
    # GTID 5-9-1 trans (SET gtid_domain_id=5, server_id=9)
    "OTHER_DOMAIN_SERVER": "83d1056ba2090000002a000000080b000008000100000000000000050000000c0000000000002220350b",
    # Gtid list [] (the first file)
    "GTID_LIST_EMPTY": "73d1056ba3070000001d0000001d01000000000000000000004ffdadc0",
    # Gtid list [5-9-1,3-7-104] (the second file, in MariaDB's order)
    "GTID_LIST_TWO": "85d1056ba3070000003b0000003b0100000000020000000500000009000000010000000000000003000000070000006800000000000000bbc4803f",
    # Binlog checkpoint master-bin.000001
    "CHECKPOINT": "73d1056ba1070000002c000000490100000000110000006d61737465722d62696e2e303030303031953a70c8",
}
TRANS = FL_TRANSACTIONAL | FL_ALLOW_PARALLEL
DDL = FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL
# (body, the GTID mariadb-binlog printed)
EXPECTED = {
    "DDL": (MariaGtid(1, 0, DDL), "0-2-1"),
    "TRANS": (MariaGtid(5, 3, TRANS), "3-7-5"),
    "NON_TRANS": (MariaGtid(6, 3, FL_ALLOW_PARALLEL), "3-7-6"),
    "GROUP_COMMIT": (MariaGtid(7, 3, TRANS | FL_GROUP_COMMIT_ID, commit_id=16), "3-7-7"),
    "WAITED": (MariaGtid(5, 0, TRANS | FL_WAITED), "0-2-5"),
    "XA_PREPARE": (
        MariaGtid(101, 3, TRANS | FL_PREPARED_XA, xa_xid=(5, 2, 2, b"x1b1"),
                  flags_extra=FL_EXTRA_MULTI_ENGINE, extra_engines=255),
        "3-7-101",
    ),
    "XA_COMMIT": (MariaGtid(102, 3, TRANS | FL_COMPLETED_XA | FL_STANDALONE, xa_xid=(5, 2, 2, b"x1b1")), "3-7-102"),
    "XA_PREPARE_GROUP_COMMIT": (
        MariaGtid(6, 0, TRANS | FL_PREPARED_XA | FL_GROUP_COMMIT_ID, commit_id=20, xa_xid=(1, 2, 0, b"g2"),
                  flags_extra=FL_EXTRA_MULTI_ENGINE, extra_engines=255),
        "0-2-6",
    ),
    "XA_COMMIT_GROUP_COMMIT": (
        MariaGtid(9, 0, TRANS | FL_COMPLETED_XA | FL_GROUP_COMMIT_ID | FL_STANDALONE, commit_id=35, xa_xid=(1, 2, 0, b"g1")),
        "0-2-9",
    ),
    "START_ALTER": (MariaGtid(12, 0, DDL, flags_extra=FL_START_ALTER), "0-2-12"),
    "COMMIT_ALTER": (MariaGtid(13, 0, DDL, flags_extra=FL_COMMIT_ALTER, sa_seq_no=12), "0-2-13"),
    "OTHER_DOMAIN_SERVER": (MariaGtid(1, 5, TRANS), "5-9-1"),
}


def _event(name):
    return bytes.fromhex(GOLDEN[name])


def _reencode(ev):
    h = ev.header
    return encode_body_event(ev.body, timestamp=h.timestamp, server_id=h.server_id, log_pos=h.log_pos,
                             flags=h.flags, checksum=True)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_gtid_events_decode_as_mariadb_wrote_them_and_reencode_byte_for_byte(name):
    raw = _event(name)
    ev = decode_event(raw, checksum=True)
    body, gtid = EXPECTED[name]
    assert ev.body == body
    assert ev.body.gtid(ev.header.server_id) == gtid
    assert gtid_flags2(raw) == body.flags2
    assert _reencode(ev) == raw
    # a body built from the values alone (not decoded) is MariaDB's too: the padding is ours
    assert body.encode() == raw[19:-4]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_truncated_gtid_body_is_the_peers_error_or_a_shorter_whole_event(name):
    # flags_extra is optional: cut off whole, what is left is a valid event of its own
    body = _event(name)[19:-4]
    for cut in range(len(body)):
        try:
            shorter = MariaGtid._decode(memoryview(body[:cut]), None)
        except RemoteProtocolError:
            continue
        assert shorter.flags_extra == 0 and shorter.encode() == body[:cut], cut


def test_gtid_list_and_checkpoint_events():
    empty = decode_event(_event("GTID_LIST_EMPTY"), checksum=True)
    assert empty.body == GtidList((), 0, b"\x00\x00")
    two = decode_event(_event("GTID_LIST_TWO"), checksum=True)
    assert two.body == GtidList((Gtid(5, 9, 1), Gtid(3, 7, 104)))
    assert [str(g) for g in two.body.gtids] == ["5-9-1", "3-7-104"]
    checkpoint = decode_event(_event("CHECKPOINT"), checksum=True)
    assert checkpoint.body == BinlogCheckpoint("master-bin.000001")
    for ev, name in ((empty, "GTID_LIST_EMPTY"), (two, "GTID_LIST_TWO"), (checkpoint, "CHECKPOINT")):
        assert _reencode(ev) == _event(name)


@pytest.mark.parametrize("name,cls", [("CHECKPOINT", BinlogCheckpoint), ("GTID_LIST_TWO", GtidList)])
def test_every_truncated_list_or_checkpoint_is_the_peers_error(name, cls):
    body = _event(name)[19:-4]
    for cut in range(len(body)):
        with pytest.raises(RemoteProtocolError):
            cls._decode(memoryview(body[:cut]), None)


def test_gtid_lists_built_as_mariadb_writes_them():
    assert GtidList.of(()).encode() == _event("GTID_LIST_EMPTY")[19:-4]
    assert GtidList.of((Gtid(5, 9, 1), Gtid(3, 7, 104))).encode() == _event("GTID_LIST_TWO")[19:-4]


def test_gtid_list_flags_share_the_count_field():
    body = GtidList((Gtid(0, 1, 2),), list_flags=0x1).encode()
    assert body[:4] == (1 | 1 << 28).to_bytes(4, "little")
    assert GtidList._decode(memoryview(body), None) == GtidList((Gtid(0, 1, 2),), 1)


def test_gtid_trailing_bytes_are_kept_raw():
    # after the padding (no flags_extra), after the commit_id (starting with the zero flags_extra)
    for body in (MariaGtid(1, 0, TRANS, extra=b"\x07\x08"), MariaGtid(1, 0, FL_GROUP_COMMIT_ID, commit_id=3, extra=b"\x00\x09"),
                 MariaGtid(1, 0, DDL, flags_extra=FL_START_ALTER, extra=b"zz"), MariaGtid(1, 0, DDL, flags_extra=0x10, extra=b"\x01\x02\x03\x04")):
        assert MariaGtid._decode(memoryview(body.encode()), None) == body
    assert len(MariaGtid(1, 0, DDL, flags_extra=0x10, extra=b"\x01\x02\x03\x04").encode()) == 13 + 1 + 4  # unknown bits: no padding


def test_gtid_padding_must_be_zero():
    body = bytearray(MariaGtid(1, 0, TRANS).encode())
    body[-1] = 1
    with pytest.raises(RemoteProtocolError):
        MariaGtid._decode(memoryview(bytes(body)), None)


@pytest.mark.parametrize(
    "bad",
    [
        dict(flags2=FL_GROUP_COMMIT_ID),  # no commit_id
        dict(commit_id=3),  # commit_id without the flag
        dict(flags2=FL_PREPARED_XA),  # no xid
        dict(xa_xid=(1, 1, 0, b"a")),  # xid without a flag
        dict(flags_extra=FL_EXTRA_MULTI_ENGINE),  # no extra_engines
        dict(flags_extra=FL_COMMIT_ALTER),  # no sa_seq_no
        dict(sa_seq_no=1),
        dict(flags2=FL_GROUP_COMMIT_ID, commit_id=1, extra=b"\x01"),  # would read as flags_extra
    ],
)
def test_gtid_values_that_cannot_be_written_are_our_error(bad):
    with pytest.raises(LocalProtocolError):
        MariaGtid(1, **bad).encode()


def test_gtid_fields_read_in_place_agree_with_the_decoded_body():
    for flags2 in (0, FL_STANDALONE):
        body = MariaGtid(seq_no=2**40 + 7, domain_id=3, flags2=flags2)
        raw = encode_body_event(body, timestamp=1, server_id=9, log_pos=100, checksum=True)
        assert gtid_fields(raw) == (body.seq_no, body.domain_id, body.flags2)
    with pytest.raises(RemoteProtocolError):
        gtid_fields(raw[:HEADER_LEN + 5])
