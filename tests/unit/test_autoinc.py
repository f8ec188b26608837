"""engine/autoinc.py: one statement's AUTO_INCREMENT ids by MariaDB's rules on InnoDB (the
sequences MariaDB 10.11 gave for the same rows: tests/integration/test_autoinc_ids_mariadb.py)."""

from __future__ import annotations

import pytest

from engine.autoinc import StatementIds, select_reservation


def run(ids: StatementIds, rows: list) -> list:
    """rows: ("auto" | an explicit id, written?) -> the id each row had."""
    out = []
    for value, written in rows:
        if value == "auto":
            out.append(ids.take())
        else:
            ids.given(value)
            out.append(value)
        ids.done(written)
    return out


def test_a_row_left_out_gives_its_id_to_the_next():
    ids = StatementIds(5, 5)
    assert run(ids, [("auto", True), ("auto", False), ("auto", True), ("auto", False), ("auto", True)]) \
        == [5, 6, 6, 7, 7]
    assert (ids.first, ids.counter) == (5, 10)  # the VALUES list's five ids reserved


def test_a_select_reserves_one_two_four_ids():
    ids = StatementIds(17, 0)
    assert run(ids, [("auto", True)] * 4) == [17, 18, 19, 20]
    assert ids.counter == 24
    assert [select_reservation(n) for n in (0, 1, 2, 3, 4, 7, 8)] == [0, 1, 3, 3, 7, 7, 15]
    assert select_reservation(190000) == 65535 + 65535 + 65535  # 1 + 2 + ... + 32768, then 65535 at a time


def test_rows_with_their_own_ids_move_the_next_one():
    ids = StatementIds(15, 3)
    assert run(ids, [("auto", False), (100, True), ("auto", True)]) == [15, 100, 101]
    assert ids.counter == 102
    ids = StatementIds(61, 2)  # the explicit row first: no interval yet, the counter moves
    assert run(ids, [(160, True), ("auto", True)]) == [160, 161]
    assert ids.counter == 163
    ids = StatementIds(164, 3)  # an explicit row left out moves nothing
    assert run(ids, [(200, False), ("auto", True), ("auto", True)]) == [200, 164, 165]
    assert ids.counter == 167


@pytest.mark.parametrize("written", [True, False])
def test_a_replica_counts_on_from_the_binlogs_first_id(written):
    ids = StatementIds(3, 2, forced=2)
    assert run(ids, [("auto", written), ("auto", True)]) == [2, 3 if written else 2]
    assert ids.first == 2 and ids.counter == (4 if written else 3)


def test_ids_step_by_the_increment_from_the_offset():
    """auto_increment_increment / _offset: the sequences MariaDB 10.11 gave
    (tests/integration/test_autoinc_step_mariadb.py)."""
    ids = StatementIds(1, 3, step=(2, 1))
    assert run(ids, [("auto", True)] * 3) == [1, 3, 5]
    assert ids.counter == 7
    ids = StatementIds(1, 3, step=(3, 7))  # an offset above the increment: 64-bit wrap, then by 3
    assert run(ids, [("auto", True)] * 3) == [3, 6, 7]
    assert ids.counter == 12
    ids = StatementIds(12, 1, step=(3, 7))
    assert run(ids, [("auto", True)]) == [13] and ids.counter == 15


def test_a_stepped_statement_moves_past_a_rows_own_id_and_takes_back_a_left_out_one():
    ids = StatementIds(1, 3, step=(10, 5))
    assert run(ids, [("auto", True), (60, True), ("auto", True)]) == [5, 60, 65]
    assert ids.counter == 75
    ids = StatementIds(75, 3, step=(10, 5))
    assert run(ids, [("auto", False), ("auto", True), ("auto", True)]) == [75, 75, 85]
