"""Micro benchmark of the prepared-statement read path in one process (no sockets, no engine):
the shapes of sysbench's oltp_point_select and oltp_read_write SELECTs on sbtest1.

    python bench/prepared_bench.py [--rounds 7] [--seconds 0.5] [--tree DIR ...]

Cases (µs of process time per call):
  decode_execute     decode_stmt_command of a point select's COM_STMT_EXECUTE (one INT parameter)
  binary_1x1         BinaryResultSet(...).payloads: 1 row of c CHAR(120) (`SELECT c ... WHERE id=?`)
  binary_100x1       100 rows of c (the range SELECTs)
  binary_100x4       100 rows of id, k, c, pad (a wider range SELECT)
  text_1x1 / text_100x1 / text_100x4   the same rows as a text ResultSet (COM_QUERY)
  execute_1x1        PreparedStatements.handle of that COM_STMT_EXECUTE, the statement's result
  execute_100x1      given by a stub session (decode, parameters, bind, columns, rows encoded
                     to payloads; no packet framing, no socket)
With several --tree (checkouts of this repository, e.g. before and after a change) the rounds
alternate between them (A B, B A, ...), each in a fresh process importing that tree, and the table
gives each tree's median over its rounds. Not a test: numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def cases() -> dict[str, Any]:
    """name -> a callable of no argument doing one call of the case."""
    from engine.coltypes import declared_type
    from engine.results import Result
    from protocol.binary import (
        BinaryResultSet,
        ComStmtExecute,
        ParamType,
        decode_stmt_command,
        encode_execute_params,
    )
    from protocol.messages import Capability, FieldType, ResultSet, ServerStatus
    from server.columns import result_column
    from server.prepared import PreparedStatement, PreparedStatements

    caps = int(Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_DEPRECATE_EOF)  # as negotiated: an int
    status = int(ServerStatus.AUTOCOMMIT)  # as ClientSession.status_flags gives it
    types = {"id": declared_type("int", [], False, False), "k": declared_type("int", [], False, False),
             "c": declared_type("char", ["120"], False, False), "pad": declared_type("char", ["60"], False, False)}
    c = "83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330"
    pad = "67847967377-48000963322-62604785301-91415491898-96926520291"
    wide = [(i, 5000 + i, c, pad) for i in range(100)]
    narrow = [(c,) for _ in range(100)]
    one_col = (result_column("c", types["c"]),)
    four_cols = tuple(result_column(name, kind) for name, kind in types.items())
    payload = ComStmtExecute(1, 0, 1, encode_execute_params([ParamType(FieldType.LONG)], [4711])).encode()

    class Stats:
        com: dict[str, int] = {"Com_stmt_execute": 0}

    class QueryLogs:  # (both off: what the statement path asks of server/query_logs.py)
        active = False
        slow = None
        general = None

    class Server:
        stats = Stats()
        query_logs = QueryLogs()

    class Conn:
        client_charset = None  # (utf8mb4: parameters taken as sent)

        def send(self, message: Any) -> bytes:
            return b"".join(message.payloads(caps))

    class Session:
        server = Server()
        conn = Conn()
        rows: list[tuple] = []
        results_charset = None  # answers sent as stored

        async def run_statement(self, sql: str) -> Result:
            return Result(columns=["c"], column_types=[types["c"]], rows=self.rows)

        def status_flags(self) -> int:
            return status

        def write(self, data: bytes) -> None:
            pass

        def send_error(self, exc: Exception) -> None:
            raise exc

    def execute(rows: list[tuple]) -> Any:
        session = Session()
        session.rows = rows
        statements = PreparedStatements(session)  # type: ignore[arg-type]
        statements._statements[1] = PreparedStatement(1, ["SELECT c FROM sbtest1 WHERE id=", ""])

        def run() -> None:
            coro = statements.handle(payload)
            try:
                coro.send(None)
            except StopIteration:
                return
            raise RuntimeError("the stub session suspended")

        return run

    return {
        "decode_execute": lambda: decode_stmt_command(payload),
        "binary_1x1": lambda: BinaryResultSet(one_col, tuple(narrow[:1]), status).payloads(caps),
        "binary_100x1": lambda: BinaryResultSet(one_col, tuple(narrow), status).payloads(caps),
        "binary_100x4": lambda: BinaryResultSet(four_cols, tuple(wide), status).payloads(caps),
        "text_1x1": lambda: ResultSet(one_col, narrow[:1], status).payloads(caps),
        "text_100x1": lambda: ResultSet(one_col, narrow, status).payloads(caps),
        "text_100x4": lambda: ResultSet(four_cols, wide, status).payloads(caps),
        "execute_1x1": execute(narrow[:1]),
        "execute_100x1": execute(narrow),
    }


def measure(seconds: float) -> dict[str, float]:
    """µs of process time per call of each case, over about `seconds` each."""
    out = {}
    for name, call in cases().items():
        n = 1
        while True:  # calibrate: enough calls for a tenth of the time
            start = time.process_time()
            for _ in range(n):
                call()
            took = time.process_time() - start
            if took > seconds / 10:
                break
            n *= 4
        n = max(1, int(n * seconds / took))
        start = time.process_time()
        for _ in range(n):
            call()
        out[name] = (time.process_time() - start) / n * 1e6
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.5, help="per case and round")
    parser.add_argument("--tree", action="append", default=[], help="a checkout to import (repeatable)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a round, as JSON
    args = parser.parse_args()
    if args.one:
        import protocol

        assert Path(protocol.__file__).resolve().parents[1] == Path.cwd().resolve(), protocol.__file__
        print(json.dumps(measure(args.seconds)))
        return
    trees = [str(Path(t).resolve()) for t in args.tree] or [str(ROOT)]
    results: dict[str, list[dict[str, float]]] = {t: [] for t in trees}
    for r in range(args.rounds):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--one", "--seconds", str(args.seconds)],
                cwd=tree, env={**os.environ, "PYTHONPATH": tree}, check=True, capture_output=True, text=True,
            ).stdout
            results[tree].append(json.loads(out.splitlines()[-1]))
    names = list(results[trees[0]][0])
    print(f"median µs per call over {args.rounds} rounds (process_time)")
    print("case".ljust(16) + "".join(f"{Path(t).name[:18]:>20}" for t in trees))
    for name in names:
        cells = [statistics.median(r[name] for r in results[t]) for t in trees]
        print(name.ljust(16) + "".join(f"{v:20.2f}" for v in cells))


if __name__ == "__main__":
    main()
