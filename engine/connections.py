"""The engine's SQLite connections: how each one is opened (WAL, the engine's synchronous level,
the MySQL functions, information_schema and the DECIMAL collation registered), a reader
connection, and a session's REPEATABLE READ snapshot (a pinned reader). A connection is used by
one thread at a time: the writer connection by the writer thread only, a reader by the reader
thread running its query (or the session that pins it, one query at a time). A connection holds
at most ATTACH_LIMIT database files; the rules for attaching on demand are in `engine.core`'s
header."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine import decimal_math, functions, infoschema, values
from engine.catalog import DECIMAL_COLLATION

ATTACH_LIMIT = 10  # SQLite's SQLITE_MAX_ATTACHED (the most files one connection can hold)


def open_connection(path: Path, state: functions.ConnectionState, synchronous: str = "FULL") -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, cached_statements=512)
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA cache_size=-32768")
    conn.execute("PRAGMA case_sensitive_like=OFF")
    functions.register(conn, state)
    infoschema.register(conn)
    decimal_math.register(conn)
    conn.create_collation(DECIMAL_COLLATION, values.compare_decimal)
    return conn


class Reader:
    """A reader connection, used by one reader thread at a time: taken from the engine's pool for
    one query, or pinned by a session for its transaction's snapshot."""

    def __init__(self, path: Path):
        self.state = functions.ConnectionState()
        self.conn = open_connection(path, self.state)
        self.attached: dict[str, Path] = {}


class Snapshot:
    """A session's read view inside a transaction (REPEATABLE READ): a pinned reader connection
    whose SQLite read transaction starts at the first SELECT and ends with the transaction."""

    reader: Reader | None = None
    # WITH CONSISTENT SNAPSHOT over more databases than a connection holds: the ones whose view
    # it took at its start (any other is refused, never read from a later view)
    fixed: set[str] | None = None
