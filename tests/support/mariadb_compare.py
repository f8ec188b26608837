"""The same statements on a stock MariaDB 10.11 and on our master, answers compared: a fresh
pair of servers, and a replay of (account, statement) steps over one connection per account."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.integration.test_statement_time import answer
from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer


@contextmanager
def mariadb_and_ours(base: Path) -> Iterator[tuple[MariaDBServer, Daemon]]:
    """A MariaDB and our master, both server_id 1, stopped on the way out."""
    mariadb = MariaDBServer(base / "mdb", server_id=1)
    ours = Daemon("master", base / "ours", ["--server-id=1"])
    try:
        mariadb.start()
        ours.start()
        yield mariadb, ours
    finally:
        ours.stop()
        mariadb.stop()


def replay(server: Any, setup: Sequence[str], steps: Sequence[tuple[str, str]],
           passwords: dict[str, str]) -> list[tuple]:
    """`setup` as root, then each step's answer (`answer`) on its account's connection ("root",
    or one of `passwords`)."""
    for sql in setup:
        server.query(sql)
    conns = {"root": server.connect()}
    conns.update({user: server.connect(user=user, password=pw) for user, pw in passwords.items()})
    try:
        return [answer(conns[who], sql) for who, sql in steps]
    finally:
        for conn in conns.values():
            conn.close()


def differences(steps: Sequence[tuple[str, str]], theirs: list[tuple], mine: list[tuple]) -> str:
    """The steps whose answers differ, MariaDB's then ours ("" when none)."""
    return "\n".join(f"{who}: {sql}\n    MariaDB {t}\n    ours    {m}"
                     for (who, sql), t, m in zip(steps, theirs, mine, strict=True) if t != m)
