"""Acceptance (issue 13): a slave whose disk fills up while writers run, for real.

Our master (semi-sync AFTER_SYNC, waiting for one slave) and two of our slaves; slave1's whole
datadir (relay log, master.info, engine) is a small tmpfs. Writers commit on the master and
record what each client was told (tests/support/faults.py's Ledger). The tmpfs is filled while
they run, held full, then freed:
- slave1's IO thread waits for space ("Waiting for disk space", 1595 in Last_IO_Error) and
  resumes by itself; if its SQL thread stopped on a failed engine commit, START SLAVE resumes it
  (as with MariaDB, whose SQL thread stops on a full table);
- the other slave acks meanwhile: the writers never stop committing;
- 0 acknowledged commits lost, no failed commit visible anywhere, no duplicate, torn or phantom
  transaction; master and slaves equal once space returns and again after a restart of all three;
- every binlog and relay log file is read end to end by `mariadb-binlog`.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from contextlib import ExitStack

import pytest

from tests.support.daemons import wait_for
from tests.support.disk import fill, move_database, tmpfs
from tests.support.faults import (
    FILLER,
    Cluster,
    Ledger,
    Load,
    check_on_master,
    check_table,
    compare_after_catch_up,
    table_rows,
    unreadable_logs,
)
from tests.support.slave_daemon import slave_status

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs (needs root)"),
    pytest.mark.skipif(not shutil.which("mariadb-binlog"), reason="needs mariadb-binlog"),
]


def test_a_full_slave_disk_loses_nothing_and_replication_resumes_once_space_returns(tmp_path):
    mounts = ExitStack()  # unmounted last, whatever happened
    disk = mounts.enter_context(tmpfs(tmp_path / "slave1", "32m"))
    cluster = Cluster(tmp_path, random.Random(13), wait_count=1, slaves=2)
    ledger = Ledger()
    load = Load(cluster.master, ledger, 4, seed=13)
    try:
        cluster.start()
        master, full = cluster.master, cluster.slaves[0]  # slave2 acks meanwhile
        load.start()
        wait_for(lambda: ledger.count("ok") > 100, 60, 0.05, "commits before the disk fills")

        filler = fill(disk, FILLER)
        io_waits = sql_stopped = False

        def disk_full_seen() -> bool:
            nonlocal io_waits, sql_stopped
            st = slave_status(full.port)
            io_waits = io_waits or st.get("Slave_IO_State") == "Waiting for disk space"
            sql_stopped = sql_stopped or st.get("Slave_SQL_Running") == "No"
            return io_waits

        wait_for(disk_full_seen, 60, 0.1, lambda: f"slave1 to meet the full disk:\n{full.tail(20)}")
        st = slave_status(full.port)
        assert st["Last_IO_Errno"] == 1595 and "Waiting for someone to free space" in st["Last_IO_Error"], st
        before, full_since = ledger.count("ok"), time.monotonic()
        wait_for(lambda: ledger.count("ok") > before + 200 and time.monotonic() - full_since > 3, 60, 0.05,
                 "commits while slave1's disk is full")
        assert full.query("SELECT COUNT(*) FROM faults.t")[0][0] > 0  # it still serves reads
        st = slave_status(full.port)  # still full: it retried and waits again, nothing else
        assert st["Slave_IO_Running"] != "No" and st["Last_IO_Errno"] == 1595, st
        disk_full_seen()

        filler.unlink()
        st = slave_status(full.port)
        if st.get("Slave_SQL_Running") == "No":  # a failed engine commit stops the SQL thread
            sql_stopped = True
            assert st["Last_SQL_Errno"] != 0, st
            full.query("START SLAVE")
        wait_for(lambda: slave_status(full.port).get("Slave_IO_Running") == "Yes", 60, 0.1,
                 lambda: f"slave1's IO thread to resume by itself:\n{full.tail(20)}")
        before = ledger.count("ok")
        wait_for(lambda: ledger.count("ok") > before + 100, 60, 0.05, "commits after space returned")
        load.stop()

        acked = ledger.acked()
        failed = {t.txid for t in ledger.txns.values() if t.outcome != "ok"}  # told it failed, or in doubt
        master_rows = table_rows(master)
        problems = check_on_master(acked, master_rows) + check_table(ledger, master_rows, "master")
        for when in ("space returned", "a restart"):
            for slave in cluster.slaves:
                problems += compare_after_catch_up(ledger, master_rows, slave, f"after {when}")
                visible = failed & {k.rsplit(".", 1)[0] for _, k, _, _ in table_rows(slave)}
                assert not visible, f"commits that failed are on {slave.role}: {sorted(visible)[:10]}"
            assert not problems, "\n".join(map(str, problems))
            if when == "space returned":
                for d in cluster.daemons():
                    d.stop()
                for d in cluster.daemons():
                    d.start()
                assert table_rows(master) == master_rows
                problems = check_on_master(acked, table_rows(master))
        assert not failed & {k.rsplit(".", 1)[0] for _, k, _, _ in master_rows}
        print(f"{len(acked)} acknowledged, {len(failed)} failed; slave1: IO waited {io_waits}, "
              f"SQL thread stopped {sql_stopped}")
        for d in cluster.daemons():
            d.stop()
        unreadable = [bad for d in cluster.daemons() for bad in unreadable_logs(d.datadir)]
        assert not unreadable, "\n".join(unreadable)
        assert "Traceback" not in full.log.read_text(), full.tail(60)
    finally:
        try:
            load.stop()
            cluster.close()
        finally:
            mounts.close()


async def test_a_batch_whose_commit_stops_between_two_database_files_is_applied_once(tmp_path):
    """SQLite commits the files of a transaction one after the other: with database b's file on
    a full disk, a batch touching a and b commits in a and fails in b. It is durable (its redo
    record is in a) and counts as applied; b gets it before the next batch, once space is back.
    Reported as failed, the applier would apply it again: twice in a."""
    from engine.core import Engine
    from engine.results import StatementContext

    datadir = tmp_path / "db"
    ctx = StatementContext(timestamp=1_700_000_000)
    engine = await Engine.open(datadir)
    for sql in ("CREATE DATABASE a", "CREATE DATABASE b", "CREATE TABLE a.t (id INT PRIMARY KEY, v LONGTEXT)",
                "CREATE TABLE b.t (id INT PRIMARY KEY, v LONGTEXT)"):
        await engine.apply_transaction([(sql, ctx, None)], {"pos": "0"})
    await engine.close()
    with tmpfs(tmp_path / "b-disk", "1m") as disk:
        move_database(datadir, "b", disk)  # database b's file on the small disk
        engine = await Engine.open(datadir)

        def insert(db: str, n: int) -> list[tuple]:
            return [(f"INSERT INTO {db}.t VALUES ({n}, '{'x' * 300_000}')", ctx, db)]

        async def ids(db: str) -> list[int]:
            result = await engine.session(0).execute(f"SELECT id FROM {db}.t ORDER BY id")
            return [row[0] for row in result.rows]

        filler = fill(disk, FILLER)
        await engine.apply_transactions([insert("a", 1), insert("b", 1)], {"pos": "1"})
        assert engine.meta()["pos"] == "1" and await ids("a") == [1]
        with pytest.raises(Exception, match="full"):  # still full: b cannot take it yet
            await engine.apply_transactions([insert("a", 2)], {"pos": "2"})
        assert engine.meta()["pos"] == "1" and await ids("a") == [1]
        filler.unlink()
        await engine.apply_transactions([insert("a", 2)], {"pos": "2"})
        assert (await ids("a"), await ids("b"), engine.meta()["pos"]) == ([1, 2], [1], "2")
        await engine.close()
        engine = await Engine.open(datadir)
        assert (await ids("a"), await ids("b"), engine.meta()["pos"]) == ([1, 2], [1], "2")
        metas = engine.schema_metas()  # b holds the group of pos 1 (completed alone), a the next
        assert engine.repaired == [] and (metas["a"]["pos"], metas["b"]["pos"]) == ("2", "1")
        await engine.close()
