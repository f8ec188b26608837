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
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.disk import fill, require_root, tmpfs
from tests.support.faults import (
    TABLE,
    Cluster,
    Ledger,
    Violation,
    check_identical,
    check_on_master,
    check_table,
    relay_log_txids,
    table_rows,
)

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

LOST_CONNECTION = 2000  # client-side error codes (CR_*) start here: the outcome is unknown


class Writers:
    """`n` threads committing 1- or 2-row transactions with unique keys, each outcome in the
    ledger: "ok", "failed" (an ERR from the server) or "doubt" (the connection was lost)."""

    def __init__(self, master: Daemon, ledger: Ledger, errors: Counter[int], n: int = 4, first: int = 0) -> None:
        self.master, self.ledger, self.errors, self.first = master, ledger, errors, first
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._write, args=(w, random.Random(w)), daemon=True)
                         for w in range(n)]
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(120)

    def _write(self, w: int, rng: random.Random) -> None:
        conn = None
        n = self.first
        while not self._stop.is_set():
            if conn is None:
                try:
                    conn = self.master.connect(read_timeout=120, write_timeout=30)
                except pymysql.err.MySQLError:
                    time.sleep(0.1)
                    continue
            txn = self.ledger.attempt(f"w{w}.{n}", rng.choice((1, 1, 2)))
            n += 1
            try:
                with conn.cursor() as cur:
                    if txn.rows > 1:
                        cur.execute("BEGIN")
                    for key in txn.keys():
                        cur.execute(f"INSERT INTO {TABLE} (k, w, n) VALUES ('{key}', {w}, {n})")
                    if txn.rows > 1:
                        cur.execute("COMMIT")
                self.ledger.end(txn, "ok")
            except pymysql.err.MySQLError as exc:
                code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else LOST_CONNECTION
                self.errors[code] += 1
                self.ledger.end(txn, "doubt" if code >= LOST_CONNECTION else "failed")
                conn.close() if conn.open else None  # a transaction left open is rolled back
                conn = None
            except OSError:
                self.ledger.end(txn, "doubt")
                conn = None


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


def disk_full_run(cluster: Cluster, mount: Path, full: Callable[[Ledger], bool]) -> tuple[Ledger, Counter[int]]:
    """Writers on; fill `mount`; `full()` says the failure was met; reads work meanwhile; free
    the space; writers commit again by themselves; then the checks, and again after a restart.
    Returns the ledger and the error codes the writers got."""
    ledger, errors = Ledger(), Counter()
    writers = Writers(cluster.master, ledger, errors)
    try:
        wait_commits(ledger, 50, "before the disk fills")
        filler = fill(mount)
        try:
            wait_for(lambda: full(ledger), 60, message="the full disk to make commits fail")
            assert cluster.master.query(f"SELECT COUNT(*) FROM {TABLE}")[0][0] > 0  # reads go on
            time.sleep(1.0)
        finally:
            filler.unlink()
        wait_commits(ledger, 50, "after space returned (no restart)")
    finally:
        writers.stop()
    check(cluster, ledger, "after space returned")
    cluster.master.stop()
    cluster.master.start()
    writers = Writers(cluster.master, ledger, errors, first=1_000_000)  # keys of their own
    try:
        wait_commits(ledger, 20, "after the restart")
    finally:
        writers.stop()
    check(cluster, ledger, "after a restart of the master")
    return ledger, errors


def test_master_binlog_disk_full(tmp_path):
    """Binlog writes fail (ENOSPC): each failed group gets 1026 and leaves nothing behind."""
    require_root()
    cluster = Cluster(tmp_path, random.Random(13))
    datadir = cluster.master.datadir
    engine_dir = tmp_path / "master-db"  # the engine on the real disk
    engine_dir.mkdir()
    with tmpfs(datadir, "32m"):
        (datadir / "db").symlink_to(engine_dir)
        try:
            cluster.start()
            ledger, errors = disk_full_run(cluster, datadir, lambda ledger: len(outcomes(ledger, "failed")) >= 5)
            assert errors[1026] >= 5, errors  # ER_ERROR_ON_WRITE, as MariaDB answers a failed binlog write
            assert not outcomes(ledger, "doubt"), "no connection is lost: the server goes on"
        finally:
            cluster.close()


def test_master_engine_disk_full(tmp_path):
    """The engine's COMMIT fails after the binlog write (SQLITE_FULL): with
    binlog_error_action=REPLAY_FROM_BINLOG the group is replayed from the binlog once it can."""
    require_root()
    cluster = Cluster(tmp_path, random.Random(17))
    cluster.master.args.append("--binlog-error-action=REPLAY_FROM_BINLOG")
    datadir = cluster.master.datadir
    with tmpfs(datadir / "db", "32m"):
        try:
            cluster.start()
            log = cluster.master.log
            ledger, errors = disk_full_run(cluster, datadir / "db",
                                           lambda _: "engine commit failed" in log.read_text(errors="replace"))
            assert "replayed from the binlog" in log.read_text(errors="replace")
            assert not outcomes(ledger, "doubt"), "no connection is lost: the server goes on"
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
            ledger, errors = Ledger(), Counter()
            writers = Writers(master, ledger, errors)
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
                writers.stop()
            assert "recovery: replayed" in master.log.read_text(errors="replace")
            assert outcomes(ledger, "doubt"), "the group's clients were not answered"
            check(cluster, ledger, "after the restart")
        finally:
            cluster.close()
