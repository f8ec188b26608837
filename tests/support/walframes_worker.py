"""A workload for tests/unit/test_walframes.py, run in a child process through one VFS:
`python -m tests.support.walframes_worker VFS DIR SYNCHRONOUS [STEP]`. It seeds SQLite's random
numbers (the WAL salts) with a fixed value, so two runs through two VFSes that write the same bytes
leave byte-equal files; runs `STEPS` on DIR/t.db and prints, after each, the step's name and the
SHA-256 of the database file and of its WAL as they are on disk then, one JSON line each. Given a
STEP's name, it SIGKILLs itself right after that step's commit, before closing anything.

The steps take SQLite's WAL through its write paths: frames appended, a transaction that spills
its cache to the WAL and then rewrites pages it spilled (their frames overwritten in place and
every checksum after them rewritten at commit: wal.c walRewriteChecksums), a checkpoint then a
WAL restarted from its start, a rollback, a savepoint rolled back, a checkpoint that truncates."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import random
import signal
import sqlite3
import sys
from pathlib import Path

import engine.connections  # noqa: F401  (registers the engine's VFS where it builds)

SQLITE_TESTCTRL_PRNG_SEED = 28
SEED = 17
ROWS = 300
BLOB = 900  # bytes per row: a few rows a page, so ROWS rows fill far more pages than the cache


def blobs(seed: int, n: int) -> list[tuple[int, bytes]]:
    rng = random.Random(seed)
    return [(i, rng.randbytes(BLOB)) for i in range(n)]


def spill_and_rewrite(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA cache_size=10")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [(ROWS + i, v) for i, v in blobs(2, ROWS)])
    conn.execute("UPDATE t SET v = zeroblob(900) WHERE id < 20 OR id BETWEEN ? AND ?", (ROWS, ROWS + 30))
    conn.execute("COMMIT")
    conn.execute("PRAGMA cache_size=-2000")


STEPS = [
    ("schema", ["CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)", "CREATE INDEX t_v ON t (v)"]),
    ("append", lambda c: c.executemany("INSERT INTO t VALUES (?, ?)", blobs(1, ROWS))),
    ("spill and rewrite", spill_and_rewrite),
    ("one row", ["UPDATE t SET v = x'01' WHERE id = 7"]),
    ("checkpoint", ["PRAGMA wal_checkpoint(PASSIVE)"]),
    ("restart", ["DELETE FROM t WHERE id % 3 = 0"]),
    ("rollback", ["BEGIN", "DELETE FROM t", "ROLLBACK"]),
    ("savepoint", ["SAVEPOINT a", "DELETE FROM t WHERE id > 10", "ROLLBACK TO a", "RELEASE a"]),
    ("truncate", ["PRAGMA journal_size_limit=0", "PRAGMA wal_checkpoint(TRUNCATE)"]),
    ("after truncate", ["INSERT INTO t VALUES (100000, x'03')"]),
]


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def main(vfs: str, directory: Path, synchronous: str, kill: str | None) -> None:
    lib = ctypes.CDLL("libsqlite3.so.0")  # the one the sqlite3 module loaded
    lib.sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, ctypes.c_int(SEED), ctypes.c_void_p(None))
    db = directory / "t.db"
    conn = sqlite3.connect(f"{db.absolute().as_uri()}?vfs={vfs}", uri=True, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    wal = directory / "t.db-wal"
    for name, step in STEPS:
        if callable(step):
            step(conn)
        else:
            for sql in step:
                conn.execute(sql).fetchall()
        print(json.dumps([name, digest(db), digest(wal)]), flush=True)
        if name == kill:
            os.kill(os.getpid(), signal.SIGKILL)
    conn.close()
    print(json.dumps(["closed", digest(db), digest(wal)]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
