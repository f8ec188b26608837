"""The slave's applier and its group commit in one process: process CPU per replicated
transaction; `--shape write_only`: oltp_write_only's four writes.

    python bench/applier_bench.py [--transactions 3000] [--batch 4] [--thread-cpu] [--profile tottime]
    python bench/applier_bench.py --tree A --tree B [--rounds 3]   (interleaved, medians)
    python bench/applier_bench.py --instructions --tree A --tree B  (callgrind's count per transaction)

A relay log (real files) receives sysbench `oltp_insert`-shaped transactions from a MariaDB-style
master (GTID, INSERT, XID with CRC32), `--batch` of them per IO batch, each batch made readable
as the IO task does after its fsync; the applier applies them through the server's group commit
with log_slave_updates (`GroupCommit.commit_replicated`: the engine, this server's binlog with
sync_binlog=1, the position). What is timed is the process CPU (all threads) from the first batch
until the applier has applied the last, divided by the transactions. Not a test: numbers depend
on the machine; compare trees in one interleaved run (`--tree` repeatable).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # bench/: the in-process benches' helpers
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from inprocess import print_thread_cpu, run_trees, run_trees_counted, thread_cpu  # noqa: E402

ROWS = 1000  # the table's rows for --shape write_only


async def measure(transactions: int, batch: int, profile: str | None = None, show_threads: bool = False,
                  shape: str = "insert") -> float:
    from binlog.writer import BinlogWriter
    from engine import Engine, StatementContext
    from master.binlog_end import BinlogEnd
    from master.commit import GroupCommit
    from master.events import STATUS_VARS
    from protocol.events import (
        FL_TRANSACTIONAL,
        FormatDescription,
        Gtid,
        MariaGtid,
        Query,
        Rotate,
        Xid,
        encode_body_event,
    )
    from semisync.interface import ReplicationInterface
    from slave.applier import Applier
    from slave.relay_log import RelayLog
    from tests.support.relay_stream import Stream

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        engine = await Engine.open(tmp_path / "db", synchronous="NORMAL")
        writer = BinlogWriter(tmp_path, "slave-bin", server_id=2, checksum=True, max_size=1 << 30,
                              server_version="10.11.99-semisync-log")
        writer.open()
        end = BinlogEnd(writer.end_position)
        gc = GroupCommit(engine, writer, end, ReplicationInterface(), server_id=2, sync_binlog=lambda: 1)
        relay = RelayLog(tmp_path / "relay", "relay-bin", server_id=2)
        relay.recover()
        relay.start_file(checksum=True)
        stream = Stream()

        def append(events: list[bytes]) -> None:
            for e in events:
                relay.append(e)
            relay.flush()
            relay.readable = relay.position_of(relay.current or "", relay.size)

        fd = FormatDescription(server_version="10.11.19-MariaDB-log")
        append([stream.event(Rotate(4, "master-bin.000001"), artificial=True),
                encode_body_event(fd, timestamp=1, server_id=1, log_pos=0, checksum=True),
                stream.event(Query(db="", query="CREATE DATABASE sbtest")),
                stream.event(Query(db="sbtest", query=(
                    "CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, "
                    "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id))")))])
        c = "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441"
        pad = "22195207048-70116052123-74140395089-76317954521-98694025897"

        def query(sql: str) -> bytes:
            return stream.event(Query(db="sbtest", status_vars=STATUS_VARS, query=sql))

        def insert(n: int, row: int) -> bytes:
            return query(f"INSERT INTO sbtest1 (id, k, c, pad) VALUES ({row}, {row * 7 % 10007}, '{c}', '{pad}')")

        def transaction(n: int) -> list[bytes]:
            gtid = stream.event(MariaGtid(seq_no=n, domain_id=0, flags2=FL_TRANSACTIONAL))
            if shape == "insert" or n <= ROWS:
                return [gtid, insert(n, n), stream.event(Xid(n))]
            # sysbench oltp_write_only's writes: two UPDATEs, a DELETE and the INSERT of the same id
            a, b, d = n * 7 % ROWS + 1, n * 13 % ROWS + 1, n * 17 % ROWS + 1
            return [gtid, query(f"UPDATE sbtest1 SET k=k+1 WHERE id={a}"),
                    query(f"UPDATE sbtest1 SET c='{c[::-1]}' WHERE id={b}"),
                    query(f"DELETE FROM sbtest1 WHERE id={d}"), insert(n, d), stream.event(Xid(n))]

        applier = Applier(engine, relay, table_columns=lambda db, table: None,
                          make_context=lambda **kw: StatementContext(**kw), commit=gc.commit_replicated)
        task = asyncio.create_task(applier.run())

        async def until(count: int, seq_no: int | None = None) -> None:
            """Until the applier has applied `count` transactions (the last one's GTID, when
            given, is waited for as MASTER_GTID_WAIT does: woken by the commit, no polling)."""
            # (300 s: long enough for a run under valgrind, `--instructions`)
            if seq_no is not None and not await applier.wait_for_gtids([Gtid(0, 1, seq_no)], 300):
                raise RuntimeError(f"applier stopped or stuck: {applier.last_error}")
            while applier.applied_transactions < count:
                if task.done():
                    raise RuntimeError(f"applier stopped: {applier.last_error}")
                await asyncio.sleep(0.001)

        await until(2)
        if shape != "insert":  # the rows the writes find, applied before the clock starts
            append([e for k in range(1, ROWS + 1) for e in transaction(k)])
            applier.notify()
            await until(2 + ROWS, ROWS)
            first_timed = ROWS + 1
        else:
            first_timed = 1
        # the master's events, made before the clock starts (the IO task's part is not timed
        # beyond its append and flush)
        last_timed = first_timed + transactions - 1
        batches = {first: [e for k in range(first, min(first + batch, last_timed + 1)) for e in transaction(k)]
                   for first in range(first_timed, last_timed + 1, batch)}
        profiler = None
        if profile:
            import cProfile
            profiler = cProfile.Profile()
            profiler.enable()
        threads0 = thread_cpu()
        t0 = time.process_time()
        for first in range(first_timed, last_timed + 1, batch):
            last = min(first + batch - 1, last_timed)
            append(batches[first])
            applier.notify()
            await until(2 + last, last)
        spent = time.process_time() - t0
        threads1 = thread_cpu()
        if show_threads:
            print_thread_cpu(threads0, threads1, transactions)
        if profiler is not None:
            import pstats
            profiler.disable()
            pstats.Stats(profiler).sort_stats(profile).print_stats(40)
        applier.stop()
        await asyncio.wait_for(task, 10)
        gc.close()
        writer.close()
        await engine.close()
        return spent / transactions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=3000)
    parser.add_argument("--batch", type=int, default=4, help="transactions per IO batch")
    parser.add_argument("--shape", choices=("insert", "write_only"), default="insert",
                        help="each transaction one INSERT (oltp_insert), or oltp_write_only's four writes")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", metavar="SORT", help="cProfile one run, print the top functions by SORT (tottime, cumulative)")
    parser.add_argument("--thread-cpu", action="store_true", help="also print each thread's user and system CPU")
    parser.add_argument("--tree", action="append", default=[], help="a source tree to run (repeatable)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each tree's instructions per transaction with valgrind (runs of 100 and 500)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one or args.profile or not args.tree:
        import uvloop
        result = uvloop.run(measure(args.transactions, args.batch, args.profile, args.thread_cpu, args.shape))
        print(json.dumps(result) if args.one else f"{result:.1f} µs of process CPU per transaction")
        return
    script = str(Path(__file__).resolve())
    if args.instructions:
        run_trees_counted(script, ["--batch", str(args.batch), "--shape", args.shape], args.tree, 100, 500)
        return
    run_trees(script, ["--transactions", str(args.transactions), "--batch", str(args.batch), "--shape", args.shape],
              args.tree, args.rounds)

if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    main()
