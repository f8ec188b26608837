"""bench/sysbench_semisync.py's systems from its options: trees and variants (no server started)."""

from __future__ import annotations

import argparse

import pytest

from tests.support.bench_scripts import load_bench


def _bench():
    return load_bench("sysbench_semisync")


def test_a_variant_is_a_label_and_daemon_options():
    bench = _bench()
    assert bench.parse_variant("nolsu=--log-slave-updates=OFF") == ("nolsu", ("--log-slave-updates=OFF",))
    assert bench.parse_variant("two=--sync-binlog=0 --log-slave-updates=OFF") == (
        "two", ("--sync-binlog=0", "--log-slave-updates=OFF"))
    for bad in ("nolsu", "=--sync-binlog=0", "x=", "x=sync-binlog=0"):
        with pytest.raises(argparse.ArgumentTypeError):
            bench.parse_variant(bad)


def test_variants_run_the_first_tree_with_their_slave_options(tmp_path):
    bench = _bench()
    base, head = tmp_path / "base", tmp_path / "head"
    systems = bench.ours_systems([("base", base), ("head", head)], [("nolsu", ("--log-slave-updates=OFF",))])
    assert [(s.name, s.tree, s.slave_options) for s in systems] == [
        ("ours (base)", base, ()), ("ours (head)", head, ()), ("ours (nolsu)", base, ("--log-slave-updates=OFF",))]
    assert systems[2].start.keywords == {"slave_options": ("--log-slave-updates=OFF",)}
    alone = bench.ours_systems([], [("nolsu", ("--log-slave-updates=OFF",))])
    assert [(s.name, s.tree, s.slave_options) for s in alone] == [
        ("ours", bench.ROOT, ()), ("ours (nolsu)", bench.ROOT, ("--log-slave-updates=OFF",))]
    assert [s.name for s in bench.ours_systems([])] == ["ours"]


def test_master_variants_run_the_first_tree_with_their_master_options(tmp_path):
    bench = _bench()
    base = tmp_path / "base"
    after_commit = ("--rpl-semi-sync-master-wait-point=AFTER_COMMIT",)
    systems = bench.ours_systems([("base", base)], [("nolsu", ("--log-slave-updates=OFF",))],
                                 [("commit", after_commit)])
    assert [(s.name, s.tree, s.slave_options, s.master_options) for s in systems] == [
        ("ours (base)", base, (), ()), ("ours (nolsu)", base, ("--log-slave-updates=OFF",), ()),
        ("ours (commit)", base, (), after_commit)]
    assert systems[2].start.keywords == {"master_options": after_commit}


def test_the_master_options_come_after_the_common_ones(tmp_path, monkeypatch):
    bench = _bench()
    started = []

    class Recorder:
        def __init__(self, role, datadir, args, **kw):
            self.role, self.args = role, args

        def start(self):
            started.append(self)
            raise RuntimeError("stop here")  # only the master's arguments are looked at

        def stop(self):
            pass

    monkeypatch.setattr(bench, "Daemon", Recorder)
    with pytest.raises(RuntimeError):
        bench.start_ours("x", tmp_path, tmp_path, master_options=("--rpl-semi-sync-master-wait-point=AFTER_COMMIT",))
    args = started[0].args
    assert args.index("--rpl-semi-sync-master-wait-point=AFTER_COMMIT") > args.index(
        "--rpl-semi-sync-master-wait-point=AFTER_SYNC")


def test_a_master_variant_label_must_be_unique():
    bench = _bench()
    with pytest.raises(SystemExit):
        bench.parse_args(["--systems", "ours", "--ours-variant", "x=--sync-binlog=0",
                          "--ours-master-variant", "x=--sync-binlog=0"])
    with pytest.raises(SystemExit):
        bench.parse_args(["--systems", "mariadb", "--ours-master-variant", "x=--sync-binlog=0"])
