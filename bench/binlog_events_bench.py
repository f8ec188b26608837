"""One sysbench `oltp_insert`-shaped transaction's binlog events, in one process: the CPU of
building them as the group commit does (`master.events.transaction_events`, then
`BinlogWriter.append` into a real writer's buffer, flushed to a file every 1 MiB), and of
decoding them as the slave's applier does (each event whole, checksum not verified again: the
relay log's tail).

    python bench/binlog_events_bench.py [--transactions 20000]
    python bench/binlog_events_bench.py --tree A --tree B [--rounds 5]   (interleaved, medians)

Prints µs of process CPU per transaction for each part; with `--tree`, each tree's medians of
the build (the figure `run_trees` compares) and, per round, both parts. Not a test: compare trees
in one interleaved run. A tree without `protocol.events.decode_parts` decodes with
`decode_event`, its applier's call before it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

if str(Path(__file__).resolve().parent) not in sys.path:  # bench/: the in-process benches' helpers
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from inprocess import run_trees  # noqa: E402

SQL = ("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5012, '83868641912-28773972837-60736120486-75162659906-"
       "27563526494-20381887404-41576422241-93426793964-56405065102-33518432330', "
       "'67847967377-48000963322-62604785301-91415491898-96926520291')")


def measure(transactions: int) -> dict[str, float]:
    from binlog.writer import BinlogWriter
    from engine.results import LoggedStatement
    from master.events import transaction_events
    from protocol import events

    decode = getattr(events, "decode_parts", events.decode_event)
    statements = [LoggedStatement("sbtest", SQL, 1_700_000_000, insert_id=12345)]
    with tempfile.TemporaryDirectory() as tmp:
        writer = BinlogWriter(tmp, "bench-bin", server_id=1, checksum=True, max_size=None,
                              server_version="10.11.0-semisync")
        writer.open()
        start = time.process_time()
        for xid in range(1, transactions + 1):
            specs = transaction_events(statements, xid=xid, thread_id=7, gtid=events.Gtid(0, 1, xid))
            writer.append(specs, 1)
            if writer.buffered > 1 << 20:
                writer.flush()
        built = time.process_time() - start
        writer.close()
    raw = _one_transaction(transaction_events, statements, events)
    decoded = [decode(memoryview(event), True, verify=False) for event in raw]
    kinds = [(d[0] if isinstance(d, tuple) else d.header).type_code for d in decoded]
    assert kinds == [events.EventType.GTID_EVENT, events.EventType.INTVAR_EVENT, events.EventType.QUERY_EVENT,
                     events.EventType.XID_EVENT], kinds  # what the applier reads of an INSERT with an id
    start = time.process_time()
    for _ in range(transactions):
        for event in raw:
            decode(memoryview(event), True, verify=False)
    spent = time.process_time() - start
    return {"build": built / transactions * 1e6, "decode": spent / transactions * 1e6}


def _one_transaction(transaction_events, statements, events) -> list[bytes]:  # noqa: ANN001 - the tree's own
    """One transaction's events as a binlog holds them (the same bytes in every tree)."""
    specs = transaction_events(statements, xid=1, thread_id=7, gtid=events.Gtid(0, 1, 1))
    end, out = 4, []
    for type_code, body, timestamp, flags in specs:
        end += events.HEADER_LEN + len(body) + events.CHECKSUM_LEN
        out.append(events.encode_event(type_code, body, timestamp=timestamp, server_id=1, log_pos=end,
                                       flags=flags, checksum=True))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], help="a source tree to run (repeatable)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--part", default="build", choices=("build", "decode"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one or not args.tree:
        result = measure(args.transactions)
        if args.one:
            print(json.dumps(result[args.part]))
            return
        print(f"build (events + append): {result['build']:.2f} µs per transaction")
        print(f"decode (each event, as the applier): {result['decode']:.2f} µs per transaction")
        return
    for part in ("build", "decode"):
        print(f"{part}:")
        run_trees(str(Path(__file__).resolve()), ["--transactions", str(args.transactions), "--part", part],
                  args.tree, args.rounds)


if __name__ == "__main__":
    sys.path.insert(0, str(Path.cwd()))
    main()
