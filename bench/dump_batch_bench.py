"""A master's dump session sending one commit group to a semi-sync slave, in one process: the
CPU of `DumpSession._send_batch` (the transmit hooks of the semi-sync plugin, the framing, the
transport write) per transaction.

    python bench/dump_batch_bench.py [--batches 20000] [--group 8]
    python bench/dump_batch_bench.py --tree A --tree B [--rounds 5]   (interleaved, medians)

A real binlog holds `--group` sysbench `oltp_insert`-shaped transactions (GTID, INTVAR, INSERT,
XID, CRC32: `master.events.transaction_events`), one commit group; a semi-sync dump (the unit
tests' `semisync_dump`: the plugin installed and ON, its ack receiver, the dump at the binlog's
end) sends that group again and again as one read batch, with the group's end waiting for an
ack as in AFTER_SYNC (so its last event is flagged); the transport write discards the bytes.
Prints µs of process CPU per transaction (a batch's CPU / `--group`). Not a test: compare
trees in one interleaved run; per dump session, so a master with two slaves pays it twice.
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
from binlog_events_bench import SQL  # noqa: E402
from inprocess import run_trees  # noqa: E402


async def measure(batches: int, group: int) -> float:
    from binlog.reader import iter_events
    from binlog.writer import BinlogWriter
    from engine.results import LoggedStatement
    from master.events import transaction_events
    from protocol import events
    from protocol.position import BinlogPosition
    from tests.unit.test_master_dump import collect, semisync_dump

    statements = [LoggedStatement("sbtest", SQL, 1_700_000_000, insert_id=12345)]
    with tempfile.TemporaryDirectory() as tmp:
        writer = BinlogWriter(Path(tmp), "mysql-bin", server_id=1, checksum=True, max_size=1 << 30,
                              server_version="10.11.0-semisync")
        writer.open()
        plugin, receiver, _, session, slave, dump = semisync_dump(writer, {})
        task = asyncio.create_task(dump.run())
        await collect(slave, lambda packets: len(packets) >= 2)  # the artificial ROTATE, the FD
        start = writer.end_position.pos
        for xid in range(1, group + 1):
            writer.append(transaction_events(statements, xid=xid, thread_id=7, gtid=events.Gtid(0, 1, xid)), 1)
        writer.flush()
        end = writer.end_position
        batch = list(iter_events(Path(tmp) / end.file, start, end.pos))
        assert len(batch) == 4 * group, len(batch)
        group_end = BinlogPosition(end.file, end.pos)
        session.write = lambda data: None  # the transport: bytes discarded
        active = plugin._active  # the plugin's waiting group ends, as after_flush leaves them
        began = time.process_time()
        for _ in range(batches):
            active[group_end] = None
            dump._send_batch(batch)
            active.clear()
        spent = time.process_time() - began
        flagged = dump.param.observer_state[plugin].flagged  # each batch's last event asked for an ack
        assert len(flagged) == min(batches, flagged.maxlen) and flagged[-1][0] == group_end, len(flagged)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await receiver.stop()
        writer.close()
    return spent / (batches * group) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=20000)
    parser.add_argument("--group", type=int, default=8, help="transactions per commit group")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], help="a source tree to run (repeatable)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one or not args.tree:
        result = asyncio.run(measure(args.batches, args.group))
        print(json.dumps(result) if args.one else f"{result:.2f} µs per transaction")
        return
    run_trees(str(Path(__file__).resolve()), ["--batches", str(args.batches), "--group", str(args.group)],
              args.tree, args.rounds)


if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    main()
