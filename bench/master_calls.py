"""Python calls a master makes per transaction, counted by cProfile (call counts are deterministic;
times on this machine are not): a master daemon in process (NodeDaemon, master preset, no slave)
and one client thread running sysbench oltp_write_only's shape through mysql-connector's prepared
cursor (BEGIN; two UPDATEs by key, a DELETE and an INSERT of one row; COMMIT), or oltp_insert's
(one autocommit INSERT). Only the daemon's thread (the event loop) is profiled.

    python bench/master_calls.py [--shape write_only|insert|read_write] [--transactions 1000] [--top 30]
        [--tree DIR] [--slaves N] [--client connector|sysbench] [--by-dir] [--sysbench-option OPT ...]

--client sysbench: the client is sysbench itself (`oltp_write_only` / `oltp_insert` /
`oltp_read_write`, one thread, prepared statements as its default, through its libmariadb: the
commands the benchmarks send), on a table of 1,000 rows it prepares, after a 50-event warm-up;
the count is over `--transactions` sysbench events (each a connection's prepares too, once per
run). The commands the master received per transaction (its Com_* counters' deltas) are printed
with the count. `--shape read_write` is sysbench's only. `--sysbench-option` (repeatable) is
passed to the counted run, e.g. `--sysbench-option=--point_selects=0` to count a transaction
without one kind of statement (oltp_read_write's counts of each kind: `sysbench oltp_read_write
help`). `--isolation LEVEL` sets the master's global transaction_isolation before
sysbench connects (the server's default is REPEATABLE-READ: `server/core_variables.py`; older
trees' READ-COMMITTED).
--by-dir: the calls per transaction of each top directory of the tree (server/, engine/ ...), the
builtins and the standard library apart. --save FILE keeps the profile for `pstats` (callers).

--tree imports that checkout (e.g. a base to compare with; it needs its C parts built).
--slaves N: the master as sysbench_semisync.py's `ours` starts it (semi-sync AFTER_SYNC, one
ack, sync_binlog=1; its timeout raised to 60 s) with N semi-sync slaves as child processes of
the same tree (`--sync-relay-log=1`), so that the count holds each group's semi-sync wait and
each slave's ack; the run is refused unless every commit was acked (Rpl_semi_sync_master_no_tx
stays 0).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any


def _client_work(port: int, shape: str, transactions: int, ready: threading.Event, go: threading.Event) -> None:
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", database="sb",
                                   use_pure=True, autocommit=True)
    # a cursor per statement: each stays prepared, as sysbench's (the connector prepares again
    # when a cursor's statement changes)
    index, non_index, delete, insert = (conn.cursor(prepared=True) for _ in range(4))
    ready.set()
    go.wait()
    for n in range(transactions):
        if shape == "insert":
            insert.execute("INSERT INTO t (id, k, c) VALUES (?, ?, ?)", (1000 + n, n, "x"))
            continue
        conn.start_transaction()
        index.execute("UPDATE t SET k=k+1 WHERE id=?", (n % 100 + 1,))
        non_index.execute("UPDATE t SET c=? WHERE id=?", ("y", n % 100 + 2))
        delete.execute("DELETE FROM t WHERE id=?", (200 + n,))
        insert.execute("INSERT INTO t (id, k, c) VALUES (?, ?, ?)", (200 + n, n, "z"))
        conn.commit()
    conn.close()


def _sysbench(test: str, port: int, *options: str) -> None:
    """One sysbench command against the master at `port` (one thread, 1,000 rows); it must succeed."""
    args = [shutil.which("sysbench") or "sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1",
            f"--mysql-port={port}", "--mysql-user=root", "--mysql-db=sbtest", "--tables=1",
            "--table-size=1000", "--threads=1", "--time=0", "--report-interval=0", *options]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"sysbench {' '.join(options)} failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def _commands(port: int) -> dict[str, int]:
    """The master's Com_* counters (global) that are not zero."""
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Com\\_%'")
            return {name: int(value) for name, value in cur.fetchall() if str(value).isdigit() and int(value)}
    finally:
        conn.close()


def _by_dir(stats: pstats.Stats, code: Path, transactions: int) -> None:
    """Calls per transaction of each top directory of `code`, the rest by kind."""
    calls: dict[str, int] = {}
    for (filename, _, _), (_, ncalls, *_) in stats.stats.items():  # type: ignore[attr-defined]
        path = Path(filename)
        if filename == "~":
            where = "builtins"
        elif path.is_absolute() and path.is_relative_to(code):
            where = path.relative_to(code).parts[0] + "/"
        else:
            where = "other (stdlib, site-packages)"
        calls[where] = calls.get(where, 0) + ncalls
    for where, count in sorted(calls.items(), key=lambda item: -item[1]):
        print(f"  {where:32s} {count / transactions:8.1f}")


def _start_slaves(code: Path, tmp: Path, master_port: int, count: int) -> list[Any]:
    """`count` semi-sync slaves of the master at `master_port`, as child processes of `code`."""
    from tests.support.daemons import Daemon

    slaves: list[Any] = []
    try:
        for server_id in range(2, 2 + count):
            slave = Daemon("slave", tmp / f"slave{server_id}", [
                f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master_port}",
                "--master-user=root", "--rpl-semi-sync-slave-enabled=ON", "--sync-relay-log=1",
            ], code=code)
            slaves.append(slave)
            slave.start()
    except BaseException:
        for slave in slaves:
            slave.stop()
        raise
    return slaves


async def _semisync_clients(daemon: Any, count: int) -> None:
    """Wait until `count` semi-sync slaves are connected and semi-sync is ON."""
    import pymysql

    def ready() -> bool:
        conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")
                status = dict(cur.fetchall())
        finally:
            conn.close()
        return int(status["Rpl_semi_sync_master_clients"]) >= count and status["Rpl_semi_sync_master_status"] == "ON"

    for _ in range(600):
        if await asyncio.to_thread(ready):
            return
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{count} semi-sync slave(s) did not connect")


def _no_tx(daemon: Any) -> int:
    import pymysql

    conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_no_tx'")
            return int(cur.fetchall()[0][1])
    finally:
        conn.close()


_SYSBENCH_TESTS = {"insert": "oltp_insert", "write_only": "oltp_write_only", "read_write": "oltp_read_write"}


async def measure(shape: str, transactions: int, top: int, code: Path, slaves: int, client: str = "connector",
                  by_dir: bool = False, save: str | None = None, sysbench_options: tuple[str, ...] = (),
                  isolation: str | None = None) -> None:
    import pymysql

    from config.master import MasterConfig
    from node.main import NodeDaemon

    semisync: dict[str, Any] = {}
    if slaves:
        semisync = {"server_id": 1, "rpl_semi_sync_master_enabled": True, "sync_binlog": 1,
                    "rpl_semi_sync_master_wait_point": "AFTER_SYNC",
                    "rpl_semi_sync_master_wait_for_slave_count": 1, "rpl_semi_sync_master_timeout": 60000}
    with tempfile.TemporaryDirectory() as tmp:
        daemon = NodeDaemon(MasterConfig(datadir=Path(tmp) / "m", port=0, bind_address="127.0.0.1", **semisync))
        await daemon.start()
        started: list[Any] = []
        try:
            if slaves:
                started = await asyncio.to_thread(_start_slaves, code, Path(tmp), daemon.port, slaves)
                await _semisync_clients(daemon, slaves)

            def setup() -> None:
                conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
                with conn.cursor() as cur:
                    cur.execute("CREATE DATABASE sb")
                    cur.execute("CREATE TABLE sb.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(10))")
                    cur.execute("INSERT INTO sb.t VALUES " + ",".join(f"({i}, {i}, 'a')" for i in range(1, 200 + transactions)))
                conn.close()

            def setup_sysbench(test: str) -> None:
                conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
                with conn.cursor() as cur:
                    cur.execute("CREATE DATABASE sbtest")
                    if isolation is not None:
                        cur.execute(f"SET GLOBAL transaction_isolation = '{isolation}'")
                conn.close()
                _sysbench(test, daemon.port, "prepare")
                _sysbench(test, daemon.port, "--events=50", "run")  # the warm-up

            profiler = cProfile.Profile()
            if client == "sysbench":
                test = _SYSBENCH_TESTS[shape]
                await asyncio.to_thread(setup_sysbench, test)
                before = await asyncio.to_thread(_commands, daemon.port)
                profiler.enable()
                await asyncio.to_thread(_sysbench, test, daemon.port, f"--events={transactions}",
                                        *sysbench_options, "run")
                profiler.disable()
                after = await asyncio.to_thread(_commands, daemon.port)
                received = {name: after[name] - before.get(name, 0) for name in after}
                received["Com_show_status"] -= 1  # (`_commands`' own)
                print("commands per transaction: " + ", ".join(
                    f"{name} {count / transactions:.2f}" for name, count in sorted(received.items()) if count))
            else:
                await asyncio.to_thread(setup)
                ready, go = threading.Event(), threading.Event()
                worker = threading.Thread(target=_client_work, args=(daemon.port, shape, transactions, ready, go))
                worker.start()
                await asyncio.to_thread(ready.wait)
                profiler.enable()
                go.set()
                await asyncio.to_thread(worker.join)
                profiler.disable()
            if slaves and await asyncio.to_thread(_no_tx, daemon):
                raise RuntimeError("a commit was not acked (Rpl_semi_sync_master_no_tx moved): not counted")
            stats = pstats.Stats(profiler)
            print(f"{stats.total_calls} calls for {transactions} transactions: "  # type: ignore[attr-defined]
                  f"{stats.total_calls / transactions:.1f} per transaction")  # type: ignore[attr-defined]
            if by_dir:
                _by_dir(stats, code, transactions)
            if save is not None:
                stats.dump_stats(save)
            stats.sort_stats("ncalls").print_stats(top)
        finally:
            for slave in started:
                await asyncio.to_thread(slave.stop)
            await daemon.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=tuple(_SYSBENCH_TESTS), default="write_only")
    parser.add_argument("--transactions", type=int, default=1000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--tree", help="the checkout to import (default: this one)")
    parser.add_argument("--slaves", type=int, default=0, help="semi-sync slaves (child processes of the tree)")
    parser.add_argument("--client", choices=("connector", "sysbench"), default="connector")
    parser.add_argument("--by-dir", action="store_true", help="calls per transaction by top directory")
    parser.add_argument("--save", metavar="FILE", help="also write the profile (pstats) to FILE")
    parser.add_argument("--sysbench-option", action="append", default=[], metavar="OPT",
                        help="an option of the counted sysbench run (repeatable; --client sysbench)")
    parser.add_argument("--isolation", choices=("READ-COMMITTED", "REPEATABLE-READ"),
                        help="the master's global transaction_isolation (--client sysbench)")
    args = parser.parse_args()
    if args.client != "sysbench" and (args.shape == "read_write" or args.sysbench_option or args.isolation):
        parser.error("--shape read_write, --sysbench-option and --isolation are for --client sysbench")
    code = Path(args.tree).resolve() if args.tree else Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(code))
    asyncio.run(measure(args.shape, args.transactions, args.top, code, args.slaves, args.client, args.by_dir, args.save,
                        tuple(args.sysbench_option), args.isolation))


if __name__ == "__main__":
    main()
