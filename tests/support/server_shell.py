"""The server shell (server/) with a role, on its own event loop thread, for blocking clients.

`ShellServer` opens the real engine in a datadir under the test's tmp_path, starts a
`server.listener.Server` on a free port (port 0) in a uvloop loop running in a daemon thread,
and stops it (shutdown with a deadline) on `stop()` / leaving the `with` block. Tests talk to it
with PyMySQL, the `mariadb` CLI or sysbench as they would to mysqld.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymysql

from semisync.interface import ReplicationInterface
from server.listener import Server
from server.role import NullRole, Role

ROOT_PASSWORD = "rootpw"
SERVER_VERSION = "5.5.5-10.11.99-semisync"


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
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: Server | None = None
        self.engine: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    def start(self) -> ShellServer:
        import uvloop

        def run() -> None:
            loop = uvloop.new_event_loop()
            self.loop = loop
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self._start())
            except BaseException as exc:  # reported to the starting thread
                self._error = exc
                self._ready.set()
                return
            self._ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="shell-server", daemon=True)
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise self._error
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
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        if self.loop is None or self.server is None:
            return

        async def down() -> None:
            await self.server.shutdown(timeout)
            close = getattr(self.engine, "close", None)
            if close is not None:
                await close()

        try:
            self.call(down(), timeout + 30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            if self._thread is not None:
                self._thread.join(30)
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
