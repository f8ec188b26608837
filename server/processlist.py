"""SHOW [FULL] PROCESSLIST: one row per session of the server.

Contract: a row is read from the session's public fields at the moment of the statement --
`connection_id`, `user`, `peer`, `database`, `command` ("Sleep", "Query", "Connect",
"Binlog Dump", ...), the seconds since the command began, `state` (a session waiting in a hook
sets it through `set_state`, e.g. "Waiting for semi-sync ACK from slave") and `info` (the
running statement; the first 100 characters unless FULL). Sessions are listed by id.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from protocol.messages import FieldType, ResultSet, column

if TYPE_CHECKING:
    from server.listener import Server

COLUMNS = (
    column("Id", FieldType.LONGLONG),
    column("User"),
    column("Host"),
    column("db"),
    column("Command"),
    column("Time", FieldType.LONG),
    column("State"),
    column("Info"),
    column("Progress", FieldType.DOUBLE, decimals=3),
)


def processlist(server: Server, *, full: bool, user: str | None = None) -> ResultSet:
    """The result set; `user` limits it to one user's sessions (no PROCESS privilege)."""
    now = time.monotonic()
    rows = []
    for cid in sorted(server.sessions):
        s = server.sessions[cid]
        if user is not None and s.user != user:
            continue
        info = s.info
        if info is not None and not full:
            info = info[:100]
        rows.append((
            cid, s.user, s.peer, s.database, s.command, int(now - s.since), s.state or "", info,
            "0.000",
        ))
    return ResultSet(COLUMNS, tuple(rows))
