"""The ack container of WL#7169: N = 1, 2, 3; duplicate, stale and out-of-order acks; resizing."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from semisync.ack_container import AckContainer
from tests.support.semisync_harness import pos


def test_n1_every_ack_counts_and_the_largest_wins():
    c = AckContainer(1)
    assert c.replicated is None
    assert c.insert(2, pos(100)) == pos(100)
    assert c.insert(3, pos(50)) == pos(100)  # another slave behind: still 100
    assert c.insert(3, pos(300)) == pos(300)


def test_n2_needs_two_distinct_slaves():
    c = AckContainer(2)
    assert c.insert(2, pos(100)) is None
    assert c.insert(2, pos(200)) is None  # the same slave twice is still one slave
    assert c.insert(3, pos(150)) == pos(150)  # both are at or beyond 150, not both at 200
    assert c.insert(3, pos(250)) == pos(200)
    assert c.insert(4, pos(400)) == pos(250)  # third slave: the 2nd largest of 200, 250, 400


def test_n3_is_the_third_largest():
    c = AckContainer(3)
    c.insert(2, pos(500))
    c.insert(3, pos(400))
    assert c.replicated is None
    assert c.insert(4, pos(100)) == pos(100)
    assert c.insert(4, pos(450)) == pos(400)
    assert c.insert(5, pos(600)) == pos(450)


def test_duplicate_and_stale_acks_change_nothing():
    c = AckContainer(2)
    c.insert(2, pos(300))
    c.insert(3, pos(200))
    assert c.replicated == pos(200)
    assert c.insert(3, pos(200)) == pos(200)  # duplicate
    assert c.insert(3, pos(100)) == pos(200)  # stale: a slave's entry never moves back
    assert c.latest(3) == pos(200)


def test_out_of_order_arrival_gives_the_same_answer():
    acks = [(2, pos(100)), (3, pos(300)), (2, pos(250)), (4, pos(200)), (3, pos(150))]
    forward, backward = AckContainer(2), AckContainer(2)
    for server_id, p in acks:
        forward.insert(server_id, p)
    for server_id, p in reversed(acks):
        backward.insert(server_id, p)
    assert forward.replicated == backward.replicated == pos(250)


def test_positions_order_across_binlog_files():
    c = AckContainer(2)
    c.insert(2, pos(900, "mysql-bin.000001"))
    c.insert(3, pos(120, "mysql-bin.000002"))
    assert c.replicated == pos(900, "mysql-bin.000001")
    c.insert(2, pos(4, "mysql-bin.000002"))
    assert c.replicated == pos(4, "mysql-bin.000002")


def test_resize_down_releases_and_up_asks_for_more():
    c = AckContainer(3)
    c.insert(2, pos(300))
    c.insert(3, pos(200))
    assert c.replicated is None
    assert c.resize(2) == pos(200)
    assert c.resize(1) == pos(300)
    assert c.resize(3) is None  # only two slaves known
    c.insert(4, pos(250))
    assert c.replicated == pos(200)


def test_size_must_be_positive():
    with pytest.raises(ValueError):
        AckContainer(0)
    with pytest.raises(ValueError):
        AckContainer(1).resize(0)


def test_clear_forgets_every_slave():
    c = AckContainer(1)
    c.insert(2, pos(300))
    c.clear()
    assert c.replicated is None and len(c) == 0


@given(
    n=st.integers(1, 4),
    acks=st.lists(st.tuples(st.integers(1, 5), st.integers(4, 1000)), max_size=30),
)
def test_replicated_is_the_largest_position_n_slaves_reached(n, acks):
    c = AckContainer(n)
    latest: dict[int, int] = {}
    for server_id, offset in acks:
        c.insert(server_id, pos(offset))
        latest[server_id] = max(latest.get(server_id, 0), offset)
    candidates = [p for p in latest.values() if sum(q >= p for q in latest.values()) >= n]
    assert c.replicated == (pos(max(candidates)) if candidates else None)
