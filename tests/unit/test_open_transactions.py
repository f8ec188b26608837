"""What information_schema.INNODB_TRX and INNODB_LOCK_WAITS are built from besides an engine
session's open transaction (test_engine_txn): the ids `server.transactions` hands out, and the
enum columns information_schema declares (a member may hold a comma)."""

from __future__ import annotations

from engine import infoschema
from server.transactions import TransactionIds


def test_ids_increase_and_are_kept_while_open():
    ids = TransactionIds()
    first = ids.assign([(1, 10.0, None), (2, None, 5.0)])
    assert first == {(1, 10.0, None): 1, (2, None, 5.0): 2}
    assert ids.assign([(2, None, 5.0), (3, 11.0, None)]) == {(2, None, 5.0): 2, (3, 11.0, None): 3}
    assert ids.assign([(1, 10.0, None)]) == {(1, 10.0, None): 4}  # a new transaction of connection 1


def test_enum_columns_with_commas_in_members():
    (mode,) = infoschema.declared_columns("lock_mode enum('S','S,GAP','X')")
    assert mode.name == "lock_mode" and mode.base == "enum" and mode.args == ["'S'", "'S,GAP'", "'X'"]
    assert infoschema.table("innodb_trx").describe()[16][1] == (
        "enum('READ UNCOMMITTED','READ COMMITTED','REPEATABLE READ','SERIALIZABLE')")
    assert infoschema.COLUMNS["innodb_lock_waits"] == [
        "requesting_trx_id", "requested_lock_id", "blocking_trx_id", "blocking_lock_id"]
