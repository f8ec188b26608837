"""The server shell (server/) with a role, on its own event loop thread, for blocking clients.

`ShellServer` opens the real engine in a datadir under the test's tmp_path, starts a
`server.listener.Server` on a free port (port 0) in a uvloop loop running in a daemon thread,
and stops it (shutdown with a deadline) on `stop()` / leaving the `with` block. Tests talk to it
with PyMySQL, the `mariadb` CLI or sysbench as they would to mysqld.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymysql

from semisync.interface import ReplicationInterface
from server.listener import Server
from server.role import NullRole, Role
from tests.support.loop_thread import LoopThread

ROOT_PASSWORD = "rootpw"
SERVER_VERSION = "5.5.5-10.11.99-MariaDB-semisync-log"  # the daemon's (node/main.py)


class ShellServer:
    def __init__(
        self,
        datadir: Path,
        *,
        role: Callable[[], Role] = NullRole,
        root_password: str = ROOT_PASSWORD,
        server_id: int = 1,
        **server_kw: Any,
    ) -> None:
        self.datadir = Path(datadir)
        self.root_password = root_password
        self._role_factory = role
        self._server_id = server_id
        self._server_kw = server_kw
        self.server: Server | None = None
        self.engine: Any = None
        self._loop = LoopThread("shell-server")

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    @property
    def loop(self) -> Any:
        return self._loop.loop

    def start(self) -> ShellServer:
        self._loop.start(self._start)
        return self

    async def _start(self) -> None:
        from engine import Engine

        self.engine = await Engine.open(self.datadir / "db")
        self.server = Server(
            self._role_factory(),
            bind_address="127.0.0.1",
            port=0,
            server_id=self._server_id,
            datadir=self.datadir,
            root_password=self.root_password,
            server_version=SERVER_VERSION,
            engine=self.engine,
            interface=ReplicationInterface(),
            **self._server_kw,
        )
        await self.server.start()

    def call(self, coro: Any, timeout: float = 60) -> Any:
        """Run a coroutine on the server's loop and return its result."""
        return self._loop.call(coro, timeout)

    def stop(self, timeout: float = 10.0) -> None:
        server = self.server
        if server is None:
            return

        async def down() -> None:
            await server.shutdown(timeout)
            close = getattr(self.engine, "close", None)
            if close is not None:
                await close()

        try:
            self._loop.stop(down, timeout + 30)
        finally:
            self.server = None

    def connect(self, user: str = "root", password: str | None = None, **kw: Any) -> pymysql.Connection:
        return pymysql.connect(
            host="127.0.0.1",
            port=self.port,
            user=user,
            password=self.root_password if password is None and user == "root" else (password or ""),
            connect_timeout=10,
            read_timeout=60,
            **kw,
        )

    def __enter__(self) -> ShellServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
