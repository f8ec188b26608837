"""A slave's prepared point read in one process: what the loop spends on sysbench's
oltp_point_select once its read is kept (server/prepared.py `KeptRead`).

    python bench/kept_read_bench.py [--reads 20000] [--rounds 5] [--tree A --tree B]
    python bench/kept_read_bench.py --instructions --tree A --tree B [--small 2000] [--large 12000]
    python bench/kept_read_bench.py --profile tottime   (this tree, the reads under cProfile)
    ... [--isolation REPEATABLE-READ]   (the session's transaction_isolation; the server's default else)

The server shell (tests/support/server_shell.py: the real engine, a NullRole) with sbtest1 of
1,000 rows; a PyMySQL connection prepares `SELECT c FROM sbtest1 WHERE id=?` and executes it
twice over its socket, with the parameter types bound and then without (as libmysqlclient
does); then, on the server's loop, the session's transport is replaced by one that only counts
what is written, and `ClientSession.data_received` is handed `--reads` COM_STMT_EXECUTE packets
of random ids, each answered before the next (what a client waiting for each answer sends).
Printed: the loop thread's CPU per read (`time.thread_time`), each tree's median over rounds
alternated between the trees, each round a fresh process importing its tree; with
`--instructions`, callgrind's count of a run of `--large` reads less one of `--small`, over
their difference (the process's start and the setup cancel). Not a test: the times depend on
the machine and its load, the counts move by about 1 % between runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # bench/: the in-process benches' helpers
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from inprocess import run_trees, run_trees_counted  # noqa: E402

ROWS = 1000
SQL = "SELECT c FROM sbtest1 WHERE id=?"
COM_STMT_PREPARE, COM_STMT_EXECUTE, LONG = 0x16, 0x17, 3
_SLOW = 1200.0  # seconds the server's start and the loop's reads may take under callgrind


class _CountingTransport:
    """Stands in for the socket's transport: counts the writes and their bytes."""

    def __init__(self) -> None:
        self.writes = 0
        self.size = 0

    def write(self, data: bytes) -> None:
        self.writes += 1
        self.size += len(data)

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def _execute_payload(stmt_id: int, value: int, bound: bool) -> bytes:
    head = bytes((COM_STMT_EXECUTE,)) + stmt_id.to_bytes(4, "little") + b"\x00" + (1).to_bytes(4, "little") + b"\x00"
    return head + (b"\x01" + bytes((LONG, 0)) if bound else b"\x00") + value.to_bytes(4, "little")


def _packet(payload: bytes) -> bytes:
    return len(payload).to_bytes(3, "little") + b"\x00" + payload


def measure(reads: int, profile: str | None = None, isolation: str | None = None) -> float:
    """The loop thread's CPU per kept read, in µs; with `profile` (a pstats sort key) the reads
    run under cProfile, whose table is printed (and the time is cProfile's too)."""
    sys.path.insert(0, str(Path.cwd()))
    from tests.support.server_shell import ShellServer

    with tempfile.TemporaryDirectory() as tmp:
        shell = ShellServer(Path(tmp))
        shell._loop.start(shell._start, _SLOW)  # (`start` with room: under callgrind it takes minutes)
        try:
            return _reads(shell, reads, profile, isolation)
        finally:
            shell.stop()


def _reads(shell: Any, reads: int, profile: str | None, isolation: str | None) -> float:
    """`measure`'s reads on the started `shell`."""
    with shell.connect(autocommit=True) as conn, conn.cursor() as cur:
        if isolation is not None:
            cur.execute("SET SESSION transaction_isolation = %s", (isolation,))
        cur.execute("CREATE DATABASE sbtest")
        cur.execute("USE sbtest")
        cur.execute("CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
                    "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))")
        cur.execute("INSERT INTO sbtest1 VALUES " + ",".join(
            f"({i},{i * 7 % 1000},'{i:011d}-{'x' * 100}','{'p' * 59}')" for i in range(1, ROWS + 1)))
        conn._execute_command(COM_STMT_PREPARE, SQL.encode())
        stmt_id = int.from_bytes(conn._read_packet().get_all_data()[1:5], "little")
        for _ in range(4):  # a parameter's definition, EOF, a column's definition, EOF
            conn._read_packet()
        for bound in (True, False):  # the read kept, then its values' layout
            conn._execute_command(COM_STMT_EXECUTE, _execute_payload(stmt_id, 1, bound)[1:])
            for _ in range(4):  # column count, definition, EOF, the row; then EOF
                conn._read_packet()
            assert conn._read_packet().get_all_data()[0] == 0xFE
        rnd = random.Random(1)
        packets = [_packet(_execute_payload(stmt_id, rnd.randint(1, ROWS), False)) for _ in range(reads)]

        def run() -> float:
            session = next(s for s in shell.server.sessions.values() if s.engine_session is not None)
            transport, counting = session.transport, _CountingTransport()
            session.transport = counting
            profiler = None
            if profile is not None:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            try:
                started = time.thread_time()
                for packet in packets:
                    session.data_received(packet)
                took = time.thread_time() - started
            finally:
                session.transport = transport
                if profiler is not None:
                    import pstats

                    profiler.disable()
                    pstats.Stats(profiler).sort_stats(profile).print_stats(40)
            if counting.writes != reads or session._received is not None:
                raise RuntimeError(f"{counting.writes} of {reads} reads answered on receipt")
            return took / reads * 1e6

        return shell.call(run, _SLOW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tree", action="append", default=[], help="a checkout to import (repeatable)")
    parser.add_argument("--instructions", action="store_true", help="callgrind's count per read")
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--large", type=int, default=12000)
    parser.add_argument("--profile", metavar="SORT", help="one run of this tree under cProfile (e.g. tottime)")
    parser.add_argument("--isolation", choices=["READ-COMMITTED", "REPEATABLE-READ"],
                        help="the reading session's transaction_isolation")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a run, as JSON
    parser.add_argument("--transactions", type=int, help=argparse.SUPPRESS)  # (run_trees_counted's name)
    args = parser.parse_args()
    if args.one or args.profile:
        print(json.dumps(measure(args.transactions or args.reads, args.profile, args.isolation)))
        return
    options = ["--isolation", args.isolation] if args.isolation else []
    script = str(Path(__file__).resolve())
    trees = [str(Path(t).resolve()) for t in args.tree] or [str(Path(__file__).resolve().parents[1])]
    if args.instructions:
        run_trees_counted(script, options, trees, args.small, args.large)
    else:
        run_trees(script, ["--reads", str(args.reads), *options], trees, args.rounds)


if __name__ == "__main__":
    main()
