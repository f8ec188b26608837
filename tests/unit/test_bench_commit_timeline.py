"""bench/commit_timeline.py's reading of the marks (synthetic marks, no server started) and
bench/timeline_boot.py's wrappers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.support.bench_scripts import load_bench as _load


def _write(path: Path, marks: list[tuple[str, int]]) -> None:
    path.write_text("".join(f"{name} {ns}\n" for name, ns in marks))


def _group(t0: int, slave_delay: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """One group's marks, µs from t0 (in ns): the master's and one slave's."""
    us = 1000
    master = [("group", t0), ("io0", t0 + 100 * us), ("w0", t0 + 150 * us), ("w1", t0 + 450 * us),
              ("io1", t0 + 500 * us), ("pub", t0 + 520 * us), ("send", t0 + 600 * us),
              ("ackrx", t0 + 1600 * us + slave_delay), ("acked", t0 + 1700 * us + slave_delay),
              ("wake", t0 + 1900 * us + slave_delay)]
    slave = [("rx", t0 + 700 * us), ("rs0", t0 + 900 * us), ("rs1", t0 + 1400 * us + slave_delay),
             ("ack", t0 + 1500 * us + slave_delay), ("ap0", t0 + 1600 * us + slave_delay),
             ("ap1", t0 + 2400 * us + slave_delay)]
    return master, slave


def test_the_steps_of_each_group_are_matched_in_time_order(tmp_path):
    timeline = _load("commit_timeline")
    master, slave = [], []
    for i in range(20):  # a group every 3 ms; the slave's fsync takes 100 µs longer on odd groups
        m, s = _group(i * 3_000_000, (i % 2) * 100_000)
        master += m
        slave += s
    _write(tmp_path / "master-10.log", master)
    _write(tmp_path / "slave-11.log", [("ap1", 1), *slave])  # the end of a batch begun before the marks
    (tmp_path / "notes.txt").write_text("not marks")
    m, slaves = timeline.read_marks(tmp_path)
    steps = timeline.steps(m, slaves)
    median = {name: sorted(values)[len(values) // 2] for name, values in steps.items()}
    assert len(steps["master: binlog write + fdatasync"]) == 16  # the middle 80 % of 20 groups
    assert median["master: leader to binlog write (events built)"] == 100
    assert median["master: binlog write + fdatasync"] == 300
    assert median["master: publish to the first dump's send"] == 80
    assert median["slave 1: send to read (loopback, its loop)"] == 100
    assert sorted(set(steps["slave 1: relay fsync (with its thread hops)"])) == [500, 600]
    assert median["master: ack received to the wait's end"] == 100
    assert median["master: engine commit to the sessions' wakeup"] == 200
    assert sorted(set(steps["cycle: group to next group"])) == [3000]
    assert sorted(set(steps["slave 1: applier batch (apply + binlog + commit)"])) == [800]
    assert "| master: binlog write + fdatasync | 16 | 300 | 300 |" in timeline.table(steps)


def test_a_group_fdatasynced_on_the_syncer_is_matched_without_the_io_thread_s_hops(tmp_path):
    timeline = _load("commit_timeline")
    us = 1000
    master, slave = [], []
    for i in range(10):
        m, s = _group(i * 3_000_000, 0)
        t0 = i * 3_000_000
        # no trip to the binlog I/O thread: the write on the loop, the fdatasync on the syncer
        m = [(n, t) for n, t in m if n not in ("io0", "w0", "w1", "io1")]
        m += [("gw0", t0 + 100 * us), ("fd0", t0 + 130 * us), ("fd1", t0 + 480 * us)]
        master += m
        slave += s
    _write(tmp_path / "master-10.log", master)
    _write(tmp_path / "slave-11.log", slave)
    steps = timeline.steps(*timeline.read_marks(tmp_path))
    assert set(steps["master: binlog write on the loop"]) == {30}
    assert set(steps["master: binlog write + fdatasync"]) == {380}
    assert set(steps["master: fdatasync on the syncer's thread, answer read"]) == {350}
    assert set(steps["master: to the publish"]) == {40}
    assert "master: hop to the binlog I/O thread" not in steps


def test_marks_of_several_masters_are_refused(tmp_path):
    timeline = _load("commit_timeline")
    _write(tmp_path / "master-1.log", [("pub", 1)])
    _write(tmp_path / "master-2.log", [("pub", 2)])
    with pytest.raises(SystemExit):
        timeline.read_marks(tmp_path)


def test_the_wrappers_mark_calls_returns_and_futures(tmp_path):
    boot = _load("timeline_boot")
    marks: list[bytes] = []

    class Target:
        def plain(self, x):
            return x + 1

        async def waited(self, x):
            await asyncio.sleep(0)
            return x * 2

        def later(self, loop):
            return loop.create_future()

        @staticmethod
        def static(x):
            return -x

    for name, before, after in (("plain", b"p0", b"p1"), ("waited", None, b"w1"), ("later", b"f0", b"f1"),
                                ("static", b"s0", None)):
        setattr(Target, name, boot.wrap_attribute(Target.__dict__[name], marks.append, before, after))
    t = Target()
    assert t.static(4) == -4 and Target.static(5) == -5 and marks == [b"s0", b"s0"]
    marks.clear()
    assert t.plain(1) == 2 and marks == [b"p0", b"p1"]

    async def go():
        assert await t.waited(3) == 6
        fut = t.later(asyncio.get_running_loop())
        assert marks[-1] == b"f0"
        fut.set_result(None)
        await fut
        await asyncio.sleep(0)  # the done callback

    asyncio.run(go())
    assert marks == [b"p0", b"p1", b"w1", b"f0", b"f1"]
    assert Target.plain.__name__ == "plain"


def test_every_marked_method_exists_in_this_tree():
    boot = _load("timeline_boot")
    import importlib
    for module, cls, method, *_ in boot.MARKS:
        fn = getattr(getattr(importlib.import_module(module), cls), method)
        assert callable(fn), (module, cls, method)
