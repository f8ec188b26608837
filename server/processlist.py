"""SHOW [FULL] PROCESSLIST: one row per session of the server.

Contract: a row is read from the session's public fields at the moment of the statement --
`connection_id`, `user`, `peer`, `database`, `command` ("Sleep", "Query", "Connect",
"Binlog Dump", ...), the seconds since the command began, `state` (a session waiting in a hook
sets it through `set_state`, e.g. "Waiting for semi-sync ACK from slave") and `info` (the
running statement; the first 100 characters unless FULL). The role's replication threads
(`Role.system_threads`: a replica's Slave_IO and Slave_SQL while they run) are listed with them
as MariaDB lists its own: user "system user", host "", db and info NULL, the time since the
thread started. Rows are listed by id.
information_schema.PROCESSLIST has the same rows in MariaDB's columns (INFO never cut; no stages,
progress or memory accounting here: 0; TID the event loop's OS thread, which runs every session).
An account without PROCESS sees only its own user's sessions (no thread), in both.
"""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from typing import TYPE_CHECKING

from protocol.messages import (
    CHARSET_UTF8MB4_GENERAL_CI,
    SHOW_TEXT_DECIMALS,
    ColumnFlag,
    FieldType,
    ResultSet,
    column,
    show_number,
    show_text,
)
from server.users import ALL, SUPER

if TYPE_CHECKING:
    from server.session import ClientSession
    from server.session_host import SessionHost

COLUMNS = (
    show_number("Id", FieldType.LONGLONG, 11),
    show_text("User", 128),
    show_text("Host", 64),
    show_text("db", 64, nullable=True),
    show_text("Command", 16),
    show_number("Time", FieldType.LONG, 7),
    show_text("State", 30, nullable=True),
    show_text("Info", 100, nullable=True),
    column("Progress", FieldType.DOUBLE, 7, decimals=3, flags=ColumnFlag.NOT_NULL | ColumnFlag.BINARY),
)
# SHOW FULL PROCESSLIST's Info: a LONGTEXT (max_allowed_packet's bound)
FULL_COLUMNS = (*COLUMNS[:7], column("Info", FieldType.LONG_BLOB, 201326592, charset=CHARSET_UTF8MB4_GENERAL_CI,
                                     decimals=SHOW_TEXT_DECIMALS, flags=0), COLUMNS[8])


def shown_user(session: ClientSession) -> str | None:
    """Whose sessions `session` may list: everyone's (None) with PROCESS, else its own user's."""
    return None if session.has_privilege(ALL, SUPER, "PROCESS") else session.user


_SYSTEM_USER = "system user"


def _shown(server: SessionHost, user: str | None) -> list[tuple[int, str, str, str | None, str, float, str, str | None]]:
    """(id, user, host, db, command, seconds since its command began, state, info) of the
    sessions and threads listed, by id."""
    now = time.monotonic()
    rows = [(cid, s.user, s.peer, s.database, s.command, now - s.since, s.state or "", s.info)
            for cid, s in server.sessions.items() if user is None or s.user == user]
    if user is None:
        rows.extend((cid, _SYSTEM_USER, "", None, command, now - since, state, None)
                    for cid, command, since, state in server.role.system_threads())
    return sorted(rows, key=lambda row: row[0])


def infoschema_rows(server: SessionHost, user: str | None = None) -> list[tuple]:
    """information_schema.PROCESSLIST's rows (MariaDB 10.11's 18 columns)."""
    tid = threading.get_native_id()
    rows = []
    for cid, who, peer, db, command, elapsed, state, info in _shown(server, user):
        info_binary = None if info is None else info.encode("utf-8", "surrogateescape")
        rows.append((cid, who, peer, db, command, int(elapsed), state, info,
                     Decimal(f"{elapsed * 1000:.3f}"), 0, 0, Decimal("0.000"), 0, 0, 0, 0, info_binary, tid))
    return rows


def processlist(server: SessionHost, *, full: bool, user: str | None = None) -> ResultSet:
    """The result set; `user` limits it to one user's sessions (no PROCESS privilege)."""
    rows = []
    for cid, who, peer, db, command, elapsed, state, info in _shown(server, user):
        if info is not None and not full:
            info = info[:100]
        rows.append((cid, who, peer, db, command, int(elapsed), state, info, "0.000"))
    return ResultSet(FULL_COLUMNS if full else COLUMNS, tuple(rows))
