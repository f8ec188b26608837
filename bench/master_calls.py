"""Python calls a master makes per transaction, counted by cProfile (call counts are deterministic;
times on this machine are not): a master daemon in process (NodeDaemon, master preset, no slave)
and one client thread running sysbench oltp_write_only's shape through mysql-connector's prepared
cursor (BEGIN; two UPDATEs by key, a DELETE and an INSERT of one row; COMMIT), or oltp_insert's
(one autocommit INSERT). Only the daemon's thread (the event loop) is profiled.

    python bench/master_calls.py [--shape write_only|insert] [--transactions 1000] [--top 30]
        [--tree DIR]

--tree imports that checkout (e.g. a base to compare with; it needs its C parts built).
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


async def measure(shape: str, transactions: int, top: int) -> None:
    import pymysql

    from config.master import MasterConfig
    from node.main import NodeDaemon

    with tempfile.TemporaryDirectory() as tmp:
        daemon = NodeDaemon(MasterConfig(datadir=Path(tmp) / "m", port=0, bind_address="127.0.0.1"))
        await daemon.start()
        try:
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
            stats = pstats.Stats(profiler)
            print(f"{stats.total_calls} calls for {transactions} transactions: "  # type: ignore[attr-defined]
                  f"{stats.total_calls / transactions:.1f} per transaction")  # type: ignore[attr-defined]
            stats.sort_stats("ncalls").print_stats(top)
        finally:
            await daemon.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=("write_only", "insert"), default="write_only")
    parser.add_argument("--transactions", type=int, default=1000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--tree", help="the checkout to import (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.tree).resolve() if args.tree else Path(__file__).resolve().parent.parent))
    asyncio.run(measure(args.shape, args.transactions, args.top))


if __name__ == "__main__":
    main()
