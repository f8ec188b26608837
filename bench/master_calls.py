"""Python calls a master makes per transaction, counted by cProfile (call counts are deterministic;
times on this machine are not): a master daemon in process (NodeDaemon, master preset, no slave)
and one client thread running sysbench oltp_write_only's shape through mysql-connector's prepared
cursor (BEGIN; two UPDATEs by key, a DELETE and an INSERT of one row; COMMIT), or oltp_insert's
(one autocommit INSERT). Only the daemon's thread (the event loop) is profiled.

    python bench/master_calls.py [--shape write_only|insert] [--transactions 1000] [--top 30]
        [--tree DIR] [--slaves N]

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


async def measure(shape: str, transactions: int, top: int, code: Path, slaves: int) -> None:
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

            await asyncio.to_thread(setup)
            ready, go = threading.Event(), threading.Event()
            client = threading.Thread(target=_client_work, args=(daemon.port, shape, transactions, ready, go))
            client.start()
            await asyncio.to_thread(ready.wait)
            profiler = cProfile.Profile()
            profiler.enable()
            go.set()
            await asyncio.to_thread(client.join)
            profiler.disable()
            if slaves and await asyncio.to_thread(_no_tx, daemon):
                raise RuntimeError("a commit was not acked (Rpl_semi_sync_master_no_tx moved): not counted")
            stats = pstats.Stats(profiler)
            print(f"{stats.total_calls} calls for {transactions} transactions: "  # type: ignore[attr-defined]
                  f"{stats.total_calls / transactions:.1f} per transaction")  # type: ignore[attr-defined]
            stats.sort_stats("ncalls").print_stats(top)
        finally:
            for slave in started:
                await asyncio.to_thread(slave.stop)
            await daemon.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=("write_only", "insert"), default="write_only")
    parser.add_argument("--transactions", type=int, default=1000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--tree", help="the checkout to import (default: this one)")
    parser.add_argument("--slaves", type=int, default=0, help="semi-sync slaves (child processes of the tree)")
    args = parser.parse_args()
    code = Path(args.tree).resolve() if args.tree else Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(code))
    asyncio.run(measure(args.shape, args.transactions, args.top, code, args.slaves))


if __name__ == "__main__":
    main()
