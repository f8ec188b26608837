"""The Com_* counters (server/listener.py `ServerStats.count_command`): a statement counted by
its two-word head, by its first word, or, for SHOW GLOBAL / SESSION / LOCAL, by the word after
the scope; a head met again is one lookup; the heads kept stay bounded."""

from __future__ import annotations

import sys

from server import listener
from server.listener import ServerStats


def _lookups(call) -> list[str]:
    """The C functions `call()` enters (setprofile's c_call), by name."""
    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "c_call" and arg is not sys.setprofile:
            seen.append(arg.__name__)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


def test_statements_count_under_their_com_names():
    stats = ServerStats()
    for keyword, sql in [("INSERT INTO", "INSERT INTO t VALUES (1)"), ("INSERT INTO", "insert into t values (2)"),
                         ("SELECT C", "SELECT c FROM t"), ("START TRANSACTION", "START TRANSACTION"),
                         ("SHOW GLOBAL", "SHOW GLOBAL STATUS"), ("SHOW SESSION", "show /* x */ session variables"),
                         ("SHOW GLOBAL", "SHOW GLOBAL STATUS LIKE 'x'"), ("FROBNICATE X", "FROBNICATE x"), ("", "")]:
        stats.count_command(keyword, sql)
    assert dict(stats.com) == {"Com_insert": 2, "Com_select": 1, "Com_begin": 1, "Com_show_status": 2,
                               "Com_show_variables": 1}
    assert "SHOW GLOBAL" not in listener._COM_BY_HEAD  # its counter is the next word's
    assert "FROBNICATE X" not in listener._COM_BY_HEAD  # not counted, not kept


def test_a_head_met_again_is_one_lookup(monkeypatch):
    monkeypatch.setattr(listener, "_COM_BY_HEAD", dict(listener.COM_BY_KEYWORD))
    stats = ServerStats()
    stats.count_command("UPDATE SBTEST1", "UPDATE sbtest1 SET k=k+1 WHERE id=1")
    assert _lookups(lambda: stats.count_command("UPDATE SBTEST1", "UPDATE sbtest1 SET k=k+1 WHERE id=2")) == ["get"]
    assert stats.com["Com_update"] == 2


def test_the_heads_kept_stay_bounded(monkeypatch):
    monkeypatch.setattr(listener, "_COM_BY_HEAD", dict(listener.COM_BY_KEYWORD))
    stats = ServerStats()
    for n in range(listener._COM_HEADS_MAX + 100):
        stats.count_command(f"SELECT C{n}", f"SELECT c{n} FROM t")
    assert len(listener._COM_BY_HEAD) == listener._COM_HEADS_MAX
    assert stats.com["Com_select"] == listener._COM_HEADS_MAX + 100


def test_a_count_stores_through_the_dict_s_own_slots():
    """`com[name] += 1` (twice per kept read) stores through dict's C slots: no method of the
    counters' class that reads or stores an item is written in Python (a class defining
    `__delitem__` or `__setitem__` in Python, as `collections.Counter` defines `__delitem__`,
    makes every store go through a Python-level slot), and a name never counted reads 0."""
    com = ServerStats().com
    for name in ("__getitem__", "__setitem__", "__delitem__"):
        assert getattr(type(com), name) is getattr(dict, name), name
    assert com["Com_select"] == 0 and "Com_select" not in com
    com["Com_select"] += 1
    assert com == {"Com_select": 1}
