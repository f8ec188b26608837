"""The master's disk fills up under load, then space returns (issue 13's master scenarios).

A semi-sync cluster (`tests.support.faults.Cluster`: our master, AFTER_SYNC, and two of our
slaves) with four writers that record what each client was told: OK (acknowledged), an error
from the server (failed: the server says it did not commit), or a lost connection (in doubt).
A small tmpfs under the master's datadir holds either its binlog (the engine elsewhere) or its
engine's SQLite files (the binlog elsewhere, so COMMIT fails after the binlog write); it is
filled to the last byte while the writers run, reads are checked to work meanwhile, then the
space is freed and the writers must commit again with no restart. Then, and again after a
restart of the master: no acknowledged commit lost (master, both slaves, binlog), no failed
commit anywhere (master table, slave tables, binlog), the slaves equal to the master, and
every binlog file read end to end by `mariadb-binlog`.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.disk import fill, move_database, require_root, tmpfs
from tests.support.faults import (
    TABLE,
    Cluster,
    Ledger,
    Load,
    Txn,
    Violation,
    check_identical,
    check_on_master,
    check_table,
    relay_log_txids,
    table_rows,
)

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

LOST_CONNECTION = 2000  # client-side error codes (CR_*) start here: the outcome is unknown


class DiskLedger(Ledger):
    """The fault loop's ledger (an error the server answered is "failed", a lost connection
    "error": in doubt), also counting the error codes and messages the writers saw. A `Load`
    numbers its transactions from 0: `round` keeps a later Load's keys apart."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: Counter[int] = Counter()
        self.messages: set[str] = set()
        self.round = 0

    def attempt(self, txid: str, rows: int) -> Txn:
        w, n = txid[1:].split(".")
        return super().attempt(f"w{w}.{self.round * 1_000_000 + int(n)}", rows)

    def end(self, txn: Txn, outcome: str) -> None:
        if outcome == "error":
            exc = sys.exc_info()[1]
            code = LOST_CONNECTION
            if isinstance(exc, pymysql.err.MySQLError) and exc.args and isinstance(exc.args[0], int):
                code = exc.args[0]
                if code < LOST_CONNECTION and len(exc.args) > 1:
                    self.messages.add(str(exc.args[1]))
            self.errors[code] += 1
        super().end(txn, outcome)


def writers(cluster: Cluster, ledger: DiskLedger) -> Load:
    load = Load(cluster.master, ledger, 4, seed=ledger.round)
    load.start()
    return load


def outcomes(ledger: Ledger, outcome: str) -> set[str]:
    return {t.txid for t in ledger.txns.values() if t.outcome == outcome}


def txids(rows: list[tuple]) -> set[str]:
    return {k.rsplit(".", 1)[0] for _, k, _, _ in rows}


def check(cluster: Cluster, ledger: Ledger, when: str) -> None:
    """Every rule of the module docstring, once the slaves caught up with the master."""
    master = cluster.master
    acked, failed = ledger.acked(), outcomes(ledger, "failed")
    master_rows = table_rows(master)
    found: list[Violation] = check_on_master(acked, master_rows) + check_table(ledger, master_rows, "master")
    binlog = relay_log_txids(master.datadir, "mysql-bin")
    binlogged = {t for t, c in binlog.items() if t in ledger.txns and c >= ledger.txns[t].rows}
    if acked - binlogged:
        found.append(Violation("acked-not-in-binlog", sorted(acked - binlogged)))
    if set(binlog) - txids(master_rows):
        found.append(Violation("binlog-not-in-engine", sorted(set(binlog) - txids(master_rows))))
    if failed & (txids(master_rows) | set(binlog)):
        found.append(Violation("failed-visible", sorted(failed & (txids(master_rows) | set(binlog))), "on the master"))
    for slave in cluster.slaves:
        try:
            wait_for(lambda s=slave: table_rows(s) == master_rows, 60, message=f"{slave.role} to catch up")
        except TimeoutError:
            pass  # check_identical says how they differ
        rows = table_rows(slave)
        found += check_identical(master_rows, rows, slave.role) + check_table(ledger, rows, slave.role)
        if failed & txids(rows):
            found.append(Violation("failed-visible", sorted(failed & txids(rows)), f"on {slave.role}"))
    assert not found, f"{when}:\n" + "\n".join(map(str, found))
    files = [master.datadir / name for name, _ in master.query("SHOW BINARY LOGS")]
    out = subprocess.run(["mariadb-binlog", "--no-defaults", *map(str, files)], capture_output=True, timeout=120)
    assert out.returncode == 0 and b"ERROR" not in out.stderr.upper(), f"{when}: {out.stderr.decode()[-2000:]}"


def wait_commits(ledger: Ledger, more: int, what: str) -> None:
    start = ledger.count("ok")
    wait_for(lambda: ledger.count("ok") >= start + more, 90, message=f"{more} commits {what}")


def disk_full_run(cluster: Cluster, mount: Path, full: Callable[[DiskLedger], bool],
                  while_full: Callable[[], None] = lambda: None) -> DiskLedger:
    """Writers on; fill `mount`; `full()` says the failure was met; reads work meanwhile (and
    `while_full()`); free the space; writers commit again by themselves; then the checks, and
    again after a restart."""
    ledger = DiskLedger()
    load = writers(cluster, ledger)
    try:
        wait_commits(ledger, 50, "before the disk fills")
        filler = fill(mount)
        try:
            wait_for(lambda: full(ledger), 60, message="the full disk to make commits fail")
            assert cluster.master.query(f"SELECT COUNT(*) FROM {TABLE}")[0][0] > 0  # reads go on
            while_full()
            time.sleep(1.0)
        finally:
            filler.unlink()
        wait_commits(ledger, 50, "after space returned (no restart)")
    finally:
        load.stop()
    check(cluster, ledger, "after space returned")
    cluster.master.stop()
    cluster.master.start()
    ledger.round = 1
    load = writers(cluster, ledger)
    try:
        wait_commits(ledger, 20, "after the restart")
    finally:
        load.stop()
    check(cluster, ledger, "after a restart of the master")
    return ledger


def test_master_binlog_disk_full(tmp_path):
    """Binlog writes fail (ENOSPC): each failed group gets 1026 and leaves nothing behind;
    rotations (a small max_binlog_size) and FLUSH BINARY LOGS fail whole too."""
    require_root()
    cluster = Cluster(tmp_path, random.Random(13))
    cluster.master.args.append("--max-binlog-size=4096")

    def flush_binary_logs_fails() -> None:
        with pytest.raises(pymysql.err.OperationalError) as failed:
            cluster.master.query("FLUSH BINARY LOGS")
        assert failed.value.args[0] == 1026, failed.value
    datadir = cluster.master.datadir
    engine_dir = tmp_path / "master-db"  # the engine on the real disk
    engine_dir.mkdir()
    with tmpfs(datadir, "32m"):
        (datadir / "db").symlink_to(engine_dir)
        try:
            cluster.start()
            ledger = disk_full_run(cluster, datadir, lambda ledger: len(outcomes(ledger, "failed")) >= 5,
                                   flush_binary_logs_fails)
            assert len(cluster.master.query("SHOW BINARY LOGS")) > 3
            assert ledger.errors[1026] >= 5, ledger.errors  # ER_ERROR_ON_WRITE, as MariaDB answers a failed binlog write
            assert "Error writing file 'mysql-bin' (errno: 28 \"No space left on device\")" in ledger.messages
            assert not outcomes(ledger, "error"), "no connection is lost: the server goes on"
        finally:
            cluster.close()


def test_master_engine_disk_full(tmp_path):
    """The engine's COMMIT fails after the binlog write (SQLITE_FULL): with
    binlog_error_action=IGNORE_ERROR the server goes on, and the group is replayed from the
    binlog once it can."""
    require_root()
    cluster = Cluster(tmp_path, random.Random(17))
    cluster.master.args.append("--binlog-error-action=IGNORE_ERROR")
    datadir = cluster.master.datadir
    with tmpfs(datadir / "db", "32m"):
        try:
            cluster.start()
            log = cluster.master.log
            variable = "SHOW GLOBAL VARIABLES LIKE 'binlog_error_action'"
            assert cluster.master.query(variable) == [("binlog_error_action", "IGNORE_ERROR")]
            ledger = disk_full_run(cluster, datadir / "db",
                                   lambda _: "engine commit failed" in log.read_text(errors="replace"))
            assert "replayed from the binlog" in log.read_text(errors="replace")
            assert not outcomes(ledger, "error"), "no connection is lost: the server goes on"
        finally:
            cluster.close()


def test_master_engine_disk_full_abort_server(tmp_path):
    """binlog_error_action=ABORT_SERVER (the default): the engine's COMMIT failing after the
    binlog write stops the master without answering the group (its clients are in doubt); once
    space returns, the restarted master replays the group from the binlog and nothing is lost."""
    require_root()
    cluster = Cluster(tmp_path, random.Random(19))
    datadir = cluster.master.datadir
    with tmpfs(datadir / "db", "32m"):
        try:
            cluster.start()
            master = cluster.master
            assert master.query("SELECT @@global.binlog_error_action") == [("ABORT_SERVER",)]  # the default
            with pytest.raises(pymysql.err.MySQLError) as refused:  # only MySQL's two values
                master.query("SET GLOBAL binlog_error_action = 'REPLAY_FROM_BINLOG'")
            assert refused.value.args[0] == 1231
            ledger = DiskLedger()
            load = writers(cluster, ledger)
            try:
                wait_commits(ledger, 50, "before the disk fills")
                filler = fill(datadir / "db")
                try:
                    wait_for(lambda: master.proc.poll() is not None, 60, message="the master to stop")
                finally:
                    filler.unlink()
                assert master.proc.returncode == 1
                assert "binlog_error_action is ABORT_SERVER" in master.log.read_text(errors="replace")
                master.start()
                wait_commits(ledger, 50, "after the restart")
            finally:
                load.stop()
            assert "recovery: replayed" in master.log.read_text(errors="replace")
            assert outcomes(ledger, "error"), "the group's clients were not answered"
            check(cluster, ledger, "after the restart")
        finally:
            cluster.close()


async def test_a_group_whose_commit_stops_between_two_database_files_is_completed_not_replayed(tmp_path):
    """SQLite commits the files of a transaction one after the other: with database b's file on
    a full disk, a group writing a and b commits in a and fails in b, after its binlog write.
    The group is durable in a (its redo record), so under IGNORE_ERROR it is completed in b
    once space returns, never replayed whole from the binlog: that would put it twice in a."""
    import asyncio

    from binlog.writer import BinlogWriter
    from engine.core import Engine
    from master.binlog_end import BinlogEnd
    from master.commit import IGNORE_ERROR, GroupCommit
    from semisync.interface import ReplicationInterface
    from tests.support.faults import FILLER
    from tests.unit.test_master_commit import Session

    require_root()
    datadir = tmp_path / "db"
    engine = await Engine.open(datadir)
    s = engine.session(1)
    for sql in ("CREATE DATABASE a", "CREATE DATABASE b", "CREATE TABLE a.t (k INT, v LONGTEXT)",
                "CREATE TABLE b.t (k INT, v LONGTEXT)"):
        await s.execute(sql)
    async with engine.writer_lock:
        await engine.commit_group({"binlog_file": "", "binlog_pos": "0"})
    await s.close()
    await engine.close()
    with tmpfs(tmp_path / "b-disk", "4m") as disk:
        move_database(datadir, "b", disk)  # database b's file on the small disk
        engine = await Engine.open(datadir)
        writer = BinlogWriter(tmp_path, "mysql-bin", server_id=1, checksum=True, max_size=16 << 20,
                              server_version="10.11.99-semisync-log")
        writer.open()
        end = BinlogEnd(writer.end_position)
        gc = GroupCommit(engine, writer, end, ReplicationInterface(), server_id=1, sync_binlog=lambda: 1,
                         binlog_error_action=lambda: IGNORE_ERROR, abort=pytest.fail)

        async def keys(db: str) -> list[int]:
            # (a reader session needs no close: closing one waits for the writer lock)
            rows = (await engine.session(99).execute(f"SELECT k FROM {db}.t")).rows
            return sorted(r[0] for r in rows)

        async def commit(k: int, *dbs: str) -> asyncio.Future:
            session = engine.session(5)
            await session.execute("BEGIN")
            for db in dbs:
                await session.execute(f"INSERT INTO {db}.t VALUES ({k}, '{'x' * 300_000}')")
            res = await session.execute("COMMIT")
            await session.close()
            return asyncio.ensure_future(gc.commit(Session(5), res.committed))

        try:
            await asyncio.wait_for(await commit(1, "a", "b"), 30)
            filler = fill(disk, FILLER)
            try:
                torn = await commit(2, "a", "b")
                for _ in range(3000):  # a has the group, b cannot take it
                    if engine.schema_metas()["a"] != engine.schema_metas()["b"] or torn.done():
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.5)  # replays that can only fail meanwhile
                assert not torn.done(), "the group's client is answered only once the engine has it"
                # torn: a has the group (its readers see it), b not yet
                assert engine.schema_metas()["a"] != engine.schema_metas()["b"]
                assert await keys("a") == [1, 2]
            finally:
                filler.unlink()
            await asyncio.wait_for(torn, 60)
            meta = {"binlog_file": end.position.file, "binlog_pos": str(end.position.pos)}
            assert (await keys("a"), await keys("b"), engine.meta()) == ([1, 2], [1, 2], meta)
            assert engine.schema_metas()["b"] == meta
            await asyncio.wait_for(await commit(3, "a"), 30)  # the next group follows
            assert (await keys("a"), await keys("b")) == ([1, 2, 3], [1, 2])
        finally:
            gc.close()
            writer.close()
            await engine.close()
        engine = await Engine.open(datadir)
        try:
            assert engine.repaired == []
            assert (await keys("a"), await keys("b")) == ([1, 2, 3], [1, 2])
        finally:
            await engine.close()
