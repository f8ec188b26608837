"""SHOW [FULL] PROCESSLIST: one row per session of the server.

Contract: a row is read from the session's public fields at the moment of the statement --
`connection_id`, `user`, `peer`, `database`, `command` ("Sleep", "Query", "Connect",
"Binlog Dump", ...), the seconds since the command began, `state` (a session waiting in a hook
sets it through `set_state`, e.g. "Waiting for semi-sync ACK from slave") and `info` (the
running statement; the first 100 characters unless FULL). Sessions are listed by id.
information_schema.PROCESSLIST has the same rows in MariaDB's columns (INFO never cut; no stages,
progress or memory accounting here: 0; TID the event loop's OS thread, which runs every session).
An account without PROCESS sees only its own user's sessions, in both.
"""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from typing import TYPE_CHECKING

from protocol.messages import FieldType, ResultSet, column
from server.users import ALL, SUPER

if TYPE_CHECKING:
    from server.session import ClientSession
    from server.session_host import SessionHost

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


def shown_user(session: ClientSession) -> str | None:
    """Whose sessions `session` may list: everyone's (None) with PROCESS, else its own user's."""
    return None if session.has_privilege(ALL, SUPER, "PROCESS") else session.user


def _shown(server: SessionHost, user: str | None) -> list[tuple[int, ClientSession, float]]:
    """(id, session, seconds since its command began) of the sessions listed, by id."""
    now = time.monotonic()
    return [(cid, s, now - s.since) for cid, s in sorted(server.sessions.items())
            if user is None or s.user == user]


def infoschema_rows(server: SessionHost, user: str | None = None) -> list[tuple]:
    """information_schema.PROCESSLIST's rows (MariaDB 10.11's 18 columns)."""
    tid = threading.get_native_id()
    rows = []
    for cid, s, elapsed in _shown(server, user):
        info_binary = None if s.info is None else s.info.encode("utf-8", "surrogateescape")
        rows.append((cid, s.user, s.peer, s.database, s.command, int(elapsed), s.state or "", s.info,
                     Decimal(f"{elapsed * 1000:.3f}"), 0, 0, Decimal("0.000"), 0, 0, 0, 0, info_binary, tid))
    return rows


def processlist(server: SessionHost, *, full: bool, user: str | None = None) -> ResultSet:
    """The result set; `user` limits it to one user's sessions (no PROCESS privilege)."""
    rows = []
    for cid, s, elapsed in _shown(server, user):
        info = s.info
        if info is not None and not full:
            info = info[:100]
        rows.append((cid, s.user, s.peer, s.database, s.command, int(elapsed), s.state or "", info, "0.000"))
    return ResultSet(COLUMNS, tuple(rows))
