"""bench/applier_bench.py, bench/io_task_bench.py, bench/binlog_events_bench.py and
bench/dump_batch_bench.py keep running: each measures a few transactions (in process, real relay
log and binlog files under a temporary directory) and returns a CPU figure. No speed is asserted: the numbers of a CI machine mean
nothing. What each bench checks itself (every transaction applied, by its GTID; an ack for every
burst; the events the applier reads; the flagged end of every batch a dump sends) fails the run
here."""

from __future__ import annotations

import pytest

from tests.support.bench_scripts import load_bench as _bench


@pytest.mark.parametrize("batch", [1, 5])
@pytest.mark.parametrize("shape", ["insert", "write_only"])
async def test_applier_bench_applies_every_transaction(batch, shape):
    assert await _bench("applier_bench").measure(23, batch, shape=shape) > 0


@pytest.mark.parametrize("burst", [1, 4])
async def test_io_task_bench_gets_every_burst_acked(burst):
    assert await _bench("io_task_bench").measure(17, burst) > 0


def test_binlog_events_bench_builds_and_decodes_a_transaction():
    result = _bench("binlog_events_bench").measure(31)
    assert result["build"] > 0 and result["decode"] > 0


async def test_dump_batch_bench_sends_and_flags_every_batch():
    assert await _bench("dump_batch_bench").measure(13, 3) > 0
