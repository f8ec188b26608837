"""The live server under fuzz (issue 13): a running `semisync master` and a `semisync slave`
replicating from it (real processes) get 30,000 mutated packets from 32 connections -- before
and after login, every command byte 0x00-0xFF in turn (COM_STMT_* included), broken framing,
pipelined bursts -- while a legitimate PyMySQL client connects and queries on each. Every
answer must be a well-formed MySQL packet (ERR, or a valid answer to a mutation that stayed
valid) or a closed connection, none may hang or be ERR 1105, both daemons must survive with
no unexpected error in their logs, and their RSS must stay bounded.

The generator and checks are tests/support/server_fuzz.py; its 1,000,000-packet run and result
are in docs/ROBUSTNESS.md. A failure prints the worker's seed, which replays it.
"""

from __future__ import annotations

import asyncio

from tests.support.hostile import LegitClient, RssSampler
from tests.support.server_fuzz import daemon_errors, fuzz, start_pair

PACKETS = 30_000
SEED = 13
RSS_GROWTH_BOUND = 64 << 20  # bytes, as tests/integration/test_memory_bounds.py


def test_master_and_slave_answer_every_mutated_packet_with_err_or_close(tmp_path):
    master, slave = start_pair(tmp_path)
    try:
        with (LegitClient(master.port) as legit_m, LegitClient(slave.port) as legit_s,
              RssSampler(master.proc.pid) as rss_m, RssSampler(slave.proc.pid) as rss_s):
            stats = asyncio.run(fuzz([master.port, slave.port], PACKETS, SEED))
        assert not stats.failures, stats.failures
        assert stats.packets >= PACKETS
        assert master.proc.poll() is None and slave.proc.poll() is None, "a daemon died"
        assert not daemon_errors(master) and not daemon_errors(slave)
        assert sum(n for kind, n in stats.answers.items() if kind.startswith("ERR")) > PACKETS // 2
        assert rss_m.growth < RSS_GROWTH_BOUND and rss_s.growth < RSS_GROWTH_BOUND, (rss_m.growth, rss_s.growth)
        assert legit_m.rounds > 0 and legit_s.rounds > 0
        # Replication went on under fuzz: a write on the master reaches the slave.
        master.query("INSERT INTO d.t VALUES (42)")
        from tests.support.daemons import wait_for

        wait_for(lambda: slave.query("SELECT COUNT(*) FROM d.t WHERE id = 42") == [(1,)], 60,
                 message="the slave to apply a write made after the fuzz")
    finally:
        master.stop()
        slave.stop()
