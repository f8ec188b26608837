"""protocol.gtid against what a real MariaDB 10.11.19 did with the same input.

The expectations below were recorded from MariaDB 10.11.19 (Debian's mariadb-server): the
parse table from `SET GLOBAL gtid_slave_pos = '...'` and `SELECT @@gtid_slave_pos`; the strict
mode errors from `SET GLOBAL gtid_strict_mode=1` and `SET SESSION gtid_seq_no`; the dump starts
from a MariaDB replica attached with MASTER_USE_GTID=slave_pos to a MariaDB master holding the
binlog `_MASTER` describes (its Last_IO_Error, before and after PURGE BINARY LOGS)."""

from __future__ import annotations

import pytest

from protocol.errors import RemoteProtocolError
from protocol.events import Gtid
from protocol.gtid import (
    BinlogFileGtids,
    BinlogState,
    GtidPosition,
    binlog_gtid_pos,
    current_pos,
    find_dump_start,
    gtid_wait_reached,
    parse_connect_state,
    parse_gtid_list,
)

# (what the client set, what @@gtid_slave_pos then showed, or the error)
PARSED = [
    ("1-1-18446744073709551615", "1-1-18446744073709551615"),
    ("", ""),
    ("+1-1-1", "1-1-1"),
    ("01-1-1", "1-1-1"),
    ("1-2-3, 4-5-6", "1-2-3,4-5-6"),
    (" 1-2-3", "1-2-3"),
    ("1-2-\t3", "1-2-3"),
    ("1-2-+3", "1-2-3"),
    ("1-2-0", "1-2-0"),
    ("2-1-1,1-1-1", "1-1-1,2-1-1"),
]
NOT_PARSED = [
    "1-2", "x", "1-2-3,", " 1-2-3 , 4-5-6 ", "4294967296-1-1", "1-4294967296-1", "1-1-18446744073709551616",
    "-1-1-1", "1-1-1 2-2-2", ",1-1-1", "1 -1-1", "1-2-3 ", "1-2-", "1-2-3,,4-5-6", "1-2-3\n", "0x1-2-3",
    "1-2-99999999999999999999",
]
DUPLICATES = [
    ("0-1-1,0-1-2", "GTID 0-1-2 and 0-1-1 conflict (duplicate domain id 0)"),
    ("1-2-3,4-5-6,1-9-9", "GTID 1-9-9 and 1-2-3 conflict (duplicate domain id 1)"),
]


@pytest.mark.parametrize("text,shown", PARSED)
def test_positions_parse_and_print_as_mariadb(text, shown):
    assert str(GtidPosition.parse(text)) == shown


@pytest.mark.parametrize("text", NOT_PARSED)
def test_malformed_lists_are_1941(text):
    with pytest.raises(RemoteProtocolError) as e:
        GtidPosition.parse(text)
    assert (e.value.code, e.value.message) == (1941, "Could not parse GTID list")


@pytest.mark.parametrize("text,message", DUPLICATES)
def test_two_gtids_of_one_domain_are_1943(text, message):
    assert len(parse_gtid_list(text)) == len(text.split(","))  # a list may repeat a domain, a position not
    with pytest.raises(RemoteProtocolError) as e:
        GtidPosition.parse(text)
    assert (e.value.code, e.value.message) == (1943, message)


def test_a_malformed_connect_state_ends_the_dump_with_the_parsers_error():
    # MariaDB: SET @slave_connect_state = '...', then COM_BINLOG_DUMP
    assert str(parse_connect_state("0-1-5,2-1-3")) == "0-1-5,2-1-3"
    for bad, answer in (("x", (1941, "Could not parse GTID list")),
                        ("0-1-1,0-2-2", (1943, "GTID 0-2-2 and 0-1-1 conflict (duplicate domain id 0)"))):
        with pytest.raises(RemoteProtocolError) as e:
            parse_connect_state(bad)
        assert (e.value.code, e.value.message) == answer


def test_position_values():
    p = GtidPosition.parse("3-7-5,1-2-3")
    assert p.get(3) == Gtid(3, 7, 5) and p.get(9) is None and p.domains == {1, 3} and len(p) == 2
    assert str(p.with_gtid(Gtid(3, 8, 9))) == "1-2-3,3-8-9" and str(p) == "1-2-3,3-7-5"
    assert str(p.without(1)) == "3-7-5" and not GtidPosition()
    assert p == GtidPosition.parse("1-2-3,3-7-5") and len({p, GtidPosition.parse("1-2-3,3-7-5")}) == 1


# -- the binlog state and gtid_strict_mode ----------------------------------------------------
def test_strict_mode_refuses_out_of_order_and_duplicate_gtids_with_1950():
    # MariaDB, server_id 4: CREATE DATABASE (0-4-1), CREATE TABLE (0-4-2), then gtid_seq_no=1 ...
    state = BinlogState([Gtid(0, 4, 1), Gtid(0, 4, 2)])
    with pytest.raises(RemoteProtocolError) as e:
        state.update(Gtid(0, 4, 1), strict=True)
    assert e.value.code == 1950
    assert e.value.message == (
        "An attempt was made to binlog GTID 0-4-1 which would create an out-of-order sequence number with "
        "existing GTID 0-4-2, and gtid strict mode is enabled"
    )
    assert str(state) == "0-4-2"  # unchanged
    assert state.next_gtid(0, 4) == Gtid(0, 4, 3)  # the INSERT, recorded
    with pytest.raises(RemoteProtocolError) as e:
        state.check_strict(Gtid(0, 9, 2))  # another server, lower than the domain's most recent
    assert "binlog GTID 0-9-2 which would create" in e.value.message and "existing GTID 0-4-3," in e.value.message
    assert state.next_gtid(0, 9) == Gtid(0, 9, 4)
    with pytest.raises(RemoteProtocolError):
        state.update(Gtid(0, 9, 4), strict=True)  # a duplicate
    state.update(Gtid(0, 9, 5), strict=True)
    # @@gtid_binlog_state / @@gtid_binlog_pos as MariaDB showed them
    assert (str(state), str(state.binlog_pos())) == ("0-4-3,0-9-5", "0-9-5")


def test_binlog_state_per_domain_and_server():
    state = BinlogState()
    assert state.next_gtid(3, 7) == Gtid(3, 7, 1)
    state.update(Gtid(3, 7, 104))
    state.update(Gtid(5, 9, 1))
    state.update(Gtid(3, 7, 105))
    assert str(state) == "3-7-105,5-9-1" and str(state.binlog_pos()) == "3-7-105,5-9-1"
    state.update(Gtid(3, 8, 7))  # not strict: a lower seq_no from another server is recorded
    assert state.find(3, 7) == Gtid(3, 7, 105) and state.find(3, 8) == Gtid(3, 8, 7) and state.find(4, 7) is None
    assert state.most_recent(3) == Gtid(3, 8, 7)
    assert state.gtid_list() == (Gtid(3, 7, 105), Gtid(3, 8, 7), Gtid(5, 9, 1))  # most recent last in its domain
    assert state.next_gtid(3, 7) == Gtid(3, 7, 106)  # numbered after the largest seq_no seen
    copy = state.copy()
    state.bump_seq_no(6, 40)
    assert state.next_gtid(6, 1) == Gtid(6, 1, 41) and copy.find(6, 1) is None and copy != state
    assert BinlogState(state.gtid_list()) == state


# -- where a dump by GTID starts --------------------------------------------------------------
# The MariaDB master of the recorded runs (server_id 7, gtid_domain_id 3): its binlogs, their
# GTID_LISTs, and the GTIDs in each, in order.
_MASTER = [
    (BinlogFileGtids("master-bin.000001", ()),
     [Gtid(3, 7, n) for n in (*range(1, 10), 100, 101, 102, 103, 104)] + [Gtid(5, 9, 1)]),
    (BinlogFileGtids("master-bin.000002", (Gtid(5, 9, 1), Gtid(3, 7, 104))), [Gtid(3, 7, 105)]),
    (BinlogFileGtids("master-bin.000003", (Gtid(5, 9, 1), Gtid(3, 7, 105))), []),
]
_STATE = BinlogState([Gtid(3, 7, 105), Gtid(5, 9, 1)])
NOT_IN_BINLOG = "Error: connecting slave requested to start from GTID {}, which is not in the master's binlog"
DIVERGED = NOT_IN_BINLOG + (
    ". Since the master's binlog contains GTIDs with higher sequence numbers, it probably means that the slave "
    "has diverged due to executing extra erroneous transactions"
)
HOLE = ("The binlog on the master is missing the GTID {} requested by the slave (even though both a prior and a "
        "subsequent sequence number does exist), and GTID strict mode is enabled")
PURGED = ("Could not find GTID state requested by slave in any binlog files. Probably the slave state is too old and "
          "required binlog files have been purged.")


def _dump(request: str, *, strict: bool = False, first_file: int = 0):
    """What the dump would send: the GTIDs, in order, from the start file on; or the ERR."""
    files = _MASTER[first_file:]
    try:
        start = find_dump_start([f for f, _ in files], GtidPosition.parse(request), _STATE, slave_strict_mode=strict)
        names = [f.name for f, _ in files]
        sent = []
        for _, gtids in files[names.index(start.file):]:
            sent += [str(g) for g in gtids if not start.filter.skip(g)]
        return start.file, sent
    except RemoteProtocolError as e:
        assert e.code == 1236
        return e.message


@pytest.mark.parametrize(
    "request_,strict,outcome",
    [
        ("3-7-200", False, NOT_IN_BINLOG.format("3-7-200")),
        ("3-7-106", True, NOT_IN_BINLOG.format("3-7-106")),
        ("3-8-500", False, NOT_IN_BINLOG.format("3-8-500")),
        ("3-8-5", False, DIVERGED.format("3-8-5")),
        ("3-9-104", False, DIVERGED.format("3-9-104")),
        ("3-9-104", True, DIVERGED.format("3-9-104")),
        ("3-7-50", True, HOLE.format("3-7-50")),
        # replicated (the replica's Gtid_IO_Pos moved on to 3-7-105,5-9-1)
        ("3-7-50", False, ("master-bin.000001", ["3-7-100", "3-7-101", "3-7-102", "3-7-103", "3-7-104", "5-9-1", "3-7-105"])),
        ("3-7-104", False, ("master-bin.000001", ["5-9-1", "3-7-105"])),
        ("3-7-104,5-9-1", False, ("master-bin.000002", ["3-7-105"])),
        ("5-9-1", False, ("master-bin.000001", [str(g) for g in _MASTER[0][1] if g.domain_id == 3] + ["3-7-105"])),
        ("3-7-105,5-9-1", False, ("master-bin.000003", [])),
        ("9-1-1", False, ("master-bin.000001", [str(g) for g in _MASTER[0][1]] + ["3-7-105"])),
        ("", False, ("master-bin.000001", [str(g) for g in _MASTER[0][1]] + ["3-7-105"])),
    ],
)
def test_dump_start_as_mariadb(request_, strict, outcome):
    assert _dump(request_, strict=strict) == outcome


@pytest.mark.parametrize("request_,strict", [("3-7-1", False), ("3-7-104", False), ("", False), ("3-7-50", True),
                                             ("3-7-103,5-9-1", False)])
def test_dump_start_after_purge_binary_logs(request_, strict):
    assert _dump(request_, strict=strict, first_file=1) == PURGED


def test_dump_start_after_purge_when_the_files_left_hold_everything():
    assert _dump("3-7-104,5-9-1", first_file=1) == ("master-bin.000002", ["3-7-105"])


def test_a_domain_the_binlog_lacked_at_start_is_checked_when_it_turns_up():
    # the filter reads the live binlog state: the one the binlog writer goes on updating
    for logged, error in ((Gtid(9, 1, 3), NOT_IN_BINLOG), (Gtid(9, 2, 8), DIVERGED)):
        state = BinlogState()
        start = find_dump_start([BinlogFileGtids("b.000001", ())], GtidPosition.parse("9-1-5"), state)
        state.update(logged)
        with pytest.raises(RemoteProtocolError) as e:
            start.filter.skip(logged)
        assert e.value.message == error.format("9-1-5")
    state = BinlogState()
    start = find_dump_start([BinlogFileGtids("b.000001", ())], GtidPosition.parse("9-1-5"), state)
    for n in (4, 5, 6):
        state.update(Gtid(9, 1, n))
    assert [start.filter.skip(Gtid(9, 1, n)) for n in (4, 5, 6)] == [True, True, False]


def test_a_former_replica_serves_from_the_gtid_it_applied_without_logging_it():
    # we applied 0-1-10 as a replica (log_slave_updates OFF), then logged 0-2-11.. as a master
    state = BinlogState([Gtid(0, 2, 11), Gtid(0, 2, 12)])
    files = [BinlogFileGtids("b.000001", ())]
    start = find_dump_start(files, GtidPosition.parse("0-1-10"), state, slave_pos=GtidPosition.parse("0-1-10"),
                            server_id=2, slave_strict_mode=True)
    assert [start.filter.skip(g) for g in (Gtid(0, 2, 11), Gtid(0, 2, 12))] == [False, False]
    with pytest.raises(RemoteProtocolError):  # without that slave position, 0-1-10 is not ours to serve
        find_dump_start(files, GtidPosition.parse("0-1-10"), state, server_id=2)


def test_ignore_duplicates_accepts_a_gtid_beyond_the_binlog():
    start = find_dump_start([BinlogFileGtids("b.000001", ())], GtidPosition.parse("0-1-99"), BinlogState([Gtid(0, 1, 5)]),
                            slave_ignore_duplicates=True)
    assert start.file == "b.000001" and str(start.filter.waiting) == "0-1-99"


def test_binlog_gtid_pos():
    # BINLOG_GTID_POS('master-bin.000001', 4) and ('master-bin.000002', 4) on the recorded master
    assert str(binlog_gtid_pos((), [])) == ""
    assert str(binlog_gtid_pos(_MASTER[1][0].gtid_list, [])) == "3-7-104,5-9-1"
    assert str(binlog_gtid_pos(_MASTER[1][0].gtid_list, _MASTER[1][1])) == "3-7-105,5-9-1"
    assert str(binlog_gtid_pos((), [Gtid(0, 1, 1), Gtid(0, 2, 2), Gtid(1, 1, 1)])) == "0-2-2,1-1-1"


@pytest.mark.parametrize(
    "slave_pos,shown",
    [  # MariaDB, server_id 7, @@gtid_binlog_state 3-7-105,5-9-1: SET GLOBAL gtid_slave_pos, @@gtid_current_pos
        ("1-1-1", "1-1-1,3-7-105"),
        ("5-1-50,3-7-1", "3-7-105,5-1-50"),
        ("5-9-0", "3-7-105,5-9-0"),
        ("5-9-7", "3-7-105,5-9-7"),
        ("3-8-200", "3-8-200"),
        ("3-8-2", "3-7-105"),
        ("", "3-7-105"),
        ("9-9-9", "3-7-105,9-9-9"),
        ("3-7-105", "3-7-105"),
    ],
)
def test_current_pos_as_mariadb(slave_pos, shown):
    assert str(current_pos(_STATE, GtidPosition.parse(slave_pos), 7)) == shown


@pytest.mark.parametrize(
    "slave_pos,reached,not_reached",
    [  # MariaDB: SET GLOBAL gtid_slave_pos, then SELECT MASTER_GTID_WAIT(list, 0): 0 or -1 (its binlog: 3-7-105)
        ("", ["", "6-1-0"], ["3-7-1", "3-7-105", "4-1-10,3-7-5", "3-7-1,3-7-2"]),
        ("3-7-5,4-1-10", ["3-7-1", "3-7-5", "3-9-3", "3-9-5", "4-1-10,3-7-5", "", "3-7-1,3-7-2", "6-1-0"],
         ["3-7-6", "4-1-11", "3-7-105"]),
    ],
)
def test_master_gtid_wait_condition_as_mariadb(slave_pos, reached, not_reached):
    pos = GtidPosition.parse(slave_pos)
    assert [w for w in reached + not_reached if gtid_wait_reached(parse_gtid_list(w), pos)] == reached
