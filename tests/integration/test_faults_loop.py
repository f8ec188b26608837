"""Durability under faults (tests/support/faults.py): a short seeded loop of every fault kind
against our master and two of our slaves (the first a middle slave with a sub-slave of its own),
and the checker's verdict; a loop with three failovers (`semisync failover`, the old master's
rejoin with --init-rpl-role SLAVE) among other faults; plus the minimal reproductions of what the
loop found.

The seed is printed (and taken from SEMISYNC_FAULT_SEED when set), so a failure is replayed with
`SEMISYNC_FAULT_SEED=S pytest tests/integration/test_faults_loop.py` or with a soak,
`python -m tests.support.faults --minutes 10 --seed S`.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.support.daemons import wait_for
from tests.support.faults import FAILOVER, FAULTS, TABLE, Cluster, Run, table_rows

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_slave_follows_the_master_into_the_binlog_it_opened_after_a_kill_9(tmp_path):
    """Found by the loop (its first master-kill): the crashed binlog file ends without a ROTATE,
    so the dump must tell the slave that the next file starts (an artificial ROTATE, as mysqld's
    Binlog_sender sends at every file), or the slave believes the new file's events are the old
    file's and stops at the first heartbeat ("Unexpected master's heartbeat data")."""
    cluster = Cluster(tmp_path, random.Random(0), slaves=1)
    try:
        cluster.start()
        master, slave = cluster.master, cluster.slaves[0]

        def commit(n: int) -> None:  # waits for the slave's ack (semi-sync never times out here)
            conn = master.connect(read_timeout=30)
            try:
                with conn.cursor() as cur:
                    cur.execute(f"INSERT INTO {TABLE} (k, w, n) VALUES ('w0.{n}.0', 0, {n})")
            finally:
                conn.close()

        commit(0)
        master.kill9()
        master.start()
        for n in (1, 2):
            commit(n)
            wait_for(lambda: table_rows(slave) == table_rows(master), 30, message=lambda: f"the slave:\n{slave.tail(5)}")
    finally:
        cluster.close()


def test_fault_loop_loses_no_acknowledged_transaction(tmp_path):
    seed = int(os.environ.get("SEMISYNC_FAULT_SEED") or random.randrange(1 << 32))
    print(f"fault loop seed {seed} (replay: SEMISYNC_FAULT_SEED={seed})")
    report = Run(seed, tmp_path, writers=4).run(seconds=60)
    print(report.summary())
    assert set(FAULTS) <= set(report.kinds), report.faults
    assert report.acked > 100, report.summary()
    assert not report.violations, report.summary()


def test_fault_loop_with_failovers_loses_no_acknowledged_transaction(tmp_path):
    """Three failovers, each followed by the old master's rejoin, and faults of the moved
    topology between them: after each, every acknowledged transaction is on the promoted slave;
    at the end every server is equal and none holds a GTID the others lack."""
    seed = int(os.environ.get("SEMISYNC_FAULT_SEED") or random.randrange(1 << 32))
    print(f"fault loop seed {seed} (replay: SEMISYNC_FAULT_SEED={seed})")
    kinds = [FAILOVER, FAILOVER, FAILOVER, "master-kill", "slave-kill", "ack-corrupt"]
    report = Run(seed, tmp_path, writers=4, kinds=kinds).run(seconds=0, kinds=kinds)
    print(report.summary())
    assert report.failovers == 3, report.summary()
    assert report.acked > 100, report.summary()
    assert not report.violations, report.summary()
