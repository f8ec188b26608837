"""The fault loop's checker (tests/support/faults.py) on made-up observations: each rule fails
when, and only when, its guarantee is broken, and names the transactions. The loop itself runs
in tests/integration/test_faults_loop.py."""

from __future__ import annotations

import pymysql
import pytest

from protocol.errors import ProtocolError
from protocol.position import BinlogPosition
from protocol.semisync_wire import decode_ack, encode_ack
from tests.support.faults import (
    ACK_DAMAGE,
    Ledger,
    check_after_failover,
    check_errant,
    check_failed_absent,
    check_identical,
    check_on_master,
    check_on_slaves,
    check_table,
    damage_ack,
    gtid_state,
    told_failed,
)


def ledger(**outcomes: tuple[int, str]) -> Ledger:
    book = Ledger()
    for txid, (rows, outcome) in outcomes.items():
        book.end(book.attempt(txid.replace("_", "."), rows), outcome)
    return book


def rows_of(*keys: str) -> list[tuple]:
    return [(seq, key, 0, 0) for seq, key in enumerate(keys, 1)]


def test_an_acked_transaction_missing_on_the_master_is_named():
    assert check_on_master({"w0.1", "w0.2"}, rows_of("w0.1.0", "w0.2.0")) == []
    [v] = check_on_master({"w0.1", "w0.2", "w1.7"}, rows_of("w0.1.0"))
    assert (v.rule, v.txids) == ("acked-lost-on-master", ["w0.2", "w1.7"])


def test_acked_transactions_must_be_on_as_many_slaves_as_the_master_waits_for():
    copies = {"slave1": {"w0.1", "w0.2"}, "slave2": {"w0.1"}}
    assert check_on_slaves({"w0.1", "w0.2"}, copies, 1, "kill") == []
    [v] = check_on_slaves({"w0.1", "w0.2"}, copies, 2, "kill")
    assert (v.rule, v.txids) == ("acked-not-on-slaves", ["w0.2"])
    [v] = check_on_slaves({"w0.1", "w0.3"}, copies, 1, "kill")
    assert v.txids == ["w0.3"] and "slave1 lacks 1" in v.detail


def test_an_acked_transaction_missing_on_the_promoted_slave_is_named():
    assert check_after_failover({"w0.1"}, rows_of("w0.1.0", "w0.2.0"), "slave2", "fault 3") == []  # w0.2: in doubt
    [v] = check_after_failover({"w0.1", "w0.2", "w3.4"}, rows_of("w0.1.0"), "slave2", "fault 3 (failover)")
    assert (v.rule, v.txids) == ("acked-lost-after-failover", ["w0.2", "w3.4"])
    assert "fault 3 (failover)" in v.detail and "slave2" in v.detail


def test_gtid_states_parse_per_domain_and_server():
    assert gtid_state("") == {}
    assert gtid_state("0-1-138, 0-2-179,1-2-5") == {(0, 1): 138, (0, 2): 179, (1, 2): 5}


def test_a_gtid_one_server_holds_and_another_lacks_is_errant():
    same = "0-1-138,0-2-179"
    assert check_errant({"master": same, "slave1": same, "slave2": same}, "gtid_binlog_state") == []
    # the old master kept a transaction of its own that nobody else has (server 1, seq 139)
    [v] = check_errant({"master": "0-1-139,0-2-179", "slave1": same, "slave2": same}, "gtid_binlog_state")
    assert v.rule == "errant-gtid" and "master's @@gtid_binlog_state has 0-1-139" in v.detail
    assert "slave1 0-1-138" in v.detail and "slave2 0-1-138" in v.detail
    # a server_id (or a domain) only one server has
    [v] = check_errant({"slave1": "0-1-138,0-3-1", "slave2": "0-1-138"}, "gtid_binlog_state")
    assert "0-3-1" in v.detail and "slave2 nothing" in v.detail
    # each holds something the other lacks: both named
    found = check_errant({"a": "0-1-5", "b": "0-2-5"}, "gtid_current_pos")
    assert sorted(v.detail.split("'")[0] for v in found) == ["a", "b"]


def test_duplicates_phantoms_and_torn_transactions():
    book = ledger(w0_1=(2, "ok"), w0_2=(1, "error"), w0_3=(2, "error"))
    assert (book.count("ok"), book.count("error"), book.count("pending")) == (1, 2, 0)
    assert check_table(book, rows_of("w0.1.0", "w0.1.1", "w0.2.0"), "master") == []  # in doubt: may be there
    assert check_table(book, rows_of("w0.1.0", "w0.1.1"), "master") == []  # ... or not
    found = {v.rule: v.txids for v in check_table(
        book, rows_of("w0.1.0", "w0.1.1", "w0.2.0", "w0.2.0", "w0.3.1", "w9.9.0"), "slave1")}
    assert found == {"duplicate": ["w0.2"], "phantom": ["w9.9"], "torn": ["w0.3"]}


def test_a_transaction_the_server_said_failed_must_be_nowhere():
    assert told_failed(pymysql.err.OperationalError(1026, "Error writing file 'mysql-bin.000001' (errno: 28)"))
    assert not told_failed(pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query"))
    assert not told_failed(pymysql.err.OperationalError(1053, "Server shutdown in progress"))
    assert not told_failed(pymysql.err.InterfaceError(0, ""))
    assert not told_failed(ConnectionResetError())
    book = ledger(w0_1=(1, "ok"), w0_2=(1, "failed"), w0_3=(1, "error"))
    assert check_failed_absent(book, rows_of("w0.1.0", "w0.3.0"), "master") == []
    [v] = check_failed_absent(book, rows_of("w0.1.0", "w0.2.0"), "slave2")
    assert (v.rule, v.txids) == ("failed-visible", ["w0.2"]) and "slave2" in v.detail


def test_a_slave_that_differs_from_the_master_diverged():
    master = rows_of("w0.1.0", "w0.2.0")
    assert check_identical(master, list(master), "slave1") == []
    [v] = check_identical(master, rows_of("w0.1.0"), "slave1")
    assert (v.rule, v.txids) == ("diverged", ["w0.2"])
    [v] = check_identical(master, [(1, "w0.1.0", 0, 0), (2, "w0.2.0", 0, 1)], "slave2")  # a changed value
    assert v.txids == ["w0.2"]


@pytest.mark.parametrize("how", ACK_DAMAGE)
def test_every_ack_damage_is_one_the_master_can_detect(how):
    """A bad magic or file name does not parse as an ack of a binlog file; a bad position is
    past anything a master sends (the master drops the connection for an ack beyond what it sent)."""
    ack = encode_ack(BinlogPosition("mysql-bin.000001", 12345))
    packet = len(ack).to_bytes(3, "little") + b"\x00" + ack
    damaged = damage_ack(packet, how)[4:]
    assert damaged != ack
    if how == "magic":
        with pytest.raises(ProtocolError):
            decode_ack(damaged)
    elif how == "position":
        assert decode_ack(damaged).position.pos >= 1 << 62
    else:  # not a file of the master's binlog: the master cannot order it after what it sent
        with pytest.raises(ProtocolError):
            assert decode_ack(damaged).position < BinlogPosition("mysql-bin.000001", 4)
