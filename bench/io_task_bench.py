"""The slave's IO task in one process: process CPU per received transaction, from the bytes a
semi-sync master sends to the ack that covers them.

    python bench/io_task_bench.py [--transactions 4000] [--burst 1] [--thread-cpu] [--profile ncalls]
    python bench/io_task_bench.py --tree A --tree B [--rounds 5]   (interleaved, medians)
    python bench/io_task_bench.py --instructions --tree A --tree B  (callgrind's count per transaction)

The master is the in-memory one of tests/unit/test_slave_io_task.py (protocol.ServerConnection
on loopback, in this process): after the dump starts it sends sysbench `oltp_insert`-shaped
transactions (MariaDB GTID, INSERT, XID, CRC32), `--burst` of them per write with the last
event flagged, and waits for the ack before the next burst (as a semi-sync master does at one
client thread, or `--burst` threads). The IO task writes the relay log with sync_relay_log=1
(a real fsync per burst) and acks. The master's part is one prepared write and one ack read per
burst, the same for every tree. Not a test: compare trees in one interleaved run.
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

WAIT = 300.0  # seconds for the dump's start, an ack, the end: long enough under valgrind (`--instructions`)


async def measure(transactions: int, burst: int, show_threads: bool = False, profile: str | None = None) -> float:
    from master.events import STATUS_VARS
    from protocol.events import FL_TRANSACTIONAL, MariaGtid, Query, Xid, encode_body_event
    from protocol.position import BinlogPosition
    from protocol.semisync_wire import semisync_header
    from semisync.interface import ReplicationInterface
    from semisync.slave_plugin import SemiSyncSlavePlugin
    from slave.io_task import IoSettings, IoTask
    from slave.relay_log import RelayLog
    from tests.unit.test_slave_io_task import FakeMaster

    c = "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441"
    pad = "22195207048-70116052123-74140395089-76317954521-98694025897"
    with tempfile.TemporaryDirectory() as tmp:
        journal: list = []
        master = FakeMaster(journal)
        port = await master.start()
        interface = ReplicationInterface()
        SemiSyncSlavePlugin(interface, settings={"rpl_semi_sync_slave_enabled": True}).install()
        relay = RelayLog(Path(tmp), "relay-bin", server_id=2)
        relay.recover()
        settings = IoSettings("127.0.0.1", port, "repl", "pw", 2, heartbeat_period=0, connect_retry=0.2,
                              net_timeout=60, sync_relay_log=1)
        task = IoTask(settings, relay, interface.relay_io, BinlogPosition("", 4))
        runner = asyncio.create_task(task.run())
        await asyncio.wait_for(master.dumping.wait(), WAIT)
        while task.boundary_offset is None:  # the dump's ROTATE + FD are in
            await asyncio.sleep(0.01)

        def event(body) -> bytes:
            size = len(encode_body_event(body, timestamp=1, server_id=1, log_pos=0, checksum=True))
            master.pos += size
            return encode_body_event(body, timestamp=1, server_id=1, log_pos=master.pos, checksum=True)

        bursts = []  # the wire bytes of each burst, framed before the clock starts
        for first in range(1, transactions + 1, burst):
            events = []
            for n in range(first, min(first + burst, transactions + 1)):
                events += [event(MariaGtid(seq_no=n, domain_id=0, flags2=FL_TRANSACTIONAL)),
                           event(Query(db="sbtest", status_vars=STATUS_VARS, query=(
                               f"INSERT INTO sbtest1 (id, k, c, pad) VALUES ({n}, {n * 7 % 10007}, '{c}', '{pad}')"))),
                           event(Xid(n))]
            assert master.conn is not None
            bursts.append(b"".join(master.conn.send_event(e, semisync_header(i == len(events) - 1))
                                   for i, e in enumerate(events)))
        acked = asyncio.Event()
        journal_append = journal.append

        class Journal(list):
            def append(self, item) -> None:  # the ack reader's journal: wake the sender
                journal_append(item)
                acked.set()

        master.journal = Journal()
        profiler = None
        if profile:
            import cProfile
            profiler = cProfile.Profile()
            profiler.enable()
        threads0 = thread_cpu()
        t0 = time.process_time()
        assert master.writer is not None
        for wire in bursts:
            acked.clear()
            master.writer.write(wire)
            await asyncio.wait_for(acked.wait(), WAIT)
        spent = time.process_time() - t0
        threads1 = thread_cpu()
        if profiler is not None:
            import pstats
            profiler.disable()
            stats = pstats.Stats(profiler)
            print(f"{stats.total_calls / transactions:.1f} calls per transaction (cProfile, the fake master's included)")
            stats.sort_stats(profile).print_stats(40)
        if show_threads:
            print_thread_cpu(threads0, threads1, transactions)
        # the receiver thread's ack can reach the master before its record reaches the task,
        # which counts it then (slave/io_task.py): wait for the count, untimed
        deadline = time.monotonic() + WAIT
        while task.acks_sent < len(bursts) and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        assert task.acks_sent >= len(bursts), (task.acks_sent, len(bursts))
        task.stop()
        await asyncio.wait_for(runner, WAIT)
        master.server.close()
        await master.server.wait_closed()
        return spent / transactions * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=4000)
    parser.add_argument("--burst", type=int, default=1, help="transactions per burst (one ack each)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--thread-cpu", action="store_true", help="also print each thread's user and system CPU")
    parser.add_argument("--tree", action="append", default=[], help="a source tree to run (repeatable)")
    parser.add_argument("--profile", metavar="SORT", help="cProfile one run, print the top functions by SORT (ncalls, tottime)")
    parser.add_argument("--instructions", action="store_true",
                        help="count each tree's instructions per transaction with valgrind (runs of 200 and 1000)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one or args.profile or not args.tree:
        import uvloop
        result = uvloop.run(measure(args.transactions, args.burst, args.thread_cpu, args.profile))
        print(json.dumps(result) if args.one else f"{result:.1f} µs of process CPU per transaction")
        return
    if args.instructions:
        run_trees_counted(str(Path(__file__).resolve()), ["--burst", str(args.burst)], args.tree, 200, 1000)
        return
    run_trees(str(Path(__file__).resolve()), ["--transactions", str(args.transactions), "--burst", str(args.burst)],
              args.tree, args.rounds)

if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    main()
