"""Durability under faults (tests/support/faults.py): a short seeded loop of every fault kind
against our master and two of our slaves, and the checker's verdict; plus the minimal
reproductions of what the loop found.

The seed is printed (and taken from SEMISYNC_FAULT_SEED when set), so a failure is replayed with
`SEMISYNC_FAULT_SEED=S pytest tests/integration/test_faults_loop.py` or with a soak,
`python -m tests.support.faults --minutes 10 --seed S`.
"""

from __future__ import annotations

import random

import pytest

from tests.support.daemons import wait_for
from tests.support.faults import TABLE, Cluster, table_rows

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

