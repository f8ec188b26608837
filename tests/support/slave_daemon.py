"""Our slave daemon in-process for tests, and client helpers to look at any slave.

`SlaveThread` runs `slave.main.SlaveDaemon` in a uvloop loop in a daemon thread, so blocking
clients (PyMySQL, MariaDB) can drive the test; `call(fn)` runs a coroutine function on the
daemon's loop (to peek at its state). For a real process (kill -9, SIGSTOP) use
`tests.support.daemons.Daemon("slave", ...)`. Plus client helpers (status, SHOW SLAVE STATUS,
normalized rows for comparing MariaDB's typed values with ours).
"""

from __future__ import annotations

import asyncio
import datetime
import decimal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pymysql


class SlaveThread:
    def __init__(self, config: Any, **daemon_kw: Any) -> None:
        self.config = config
        self.daemon_kw = daemon_kw
        self.loop: asyncio.AbstractEventLoop | None = None
        self.daemon: Any = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def port(self) -> int:
        return self.daemon.port

    def start(self) -> SlaveThread:
        import uvloop

        from slave.main import SlaveDaemon

        def run() -> None:
            loop = uvloop.new_event_loop()
            self.loop = loop
            asyncio.set_event_loop(loop)
            self.daemon = SlaveDaemon(self.config, **self.daemon_kw)
            try:
                loop.run_until_complete(self.daemon.start())
            except BaseException as exc:
                self._error = exc
                self._ready.set()
                return
            self._ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="slave-daemon", daemon=True)
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise self._error
        return self

    def call(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run `fn()` (a coroutine function or a plain one) on the daemon's loop."""
        assert self.loop is not None

        async def wrapper() -> Any:
            result = fn()
            if asyncio.iscoroutine(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(wrapper(), self.loop).result(timeout)

    def stop(self) -> None:
        if self.loop is None or self.daemon is None or self._error is not None:
            return
        try:
            self.call(lambda: self.daemon.shutdown(10.0), timeout=60)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            if self._thread is not None:
                self._thread.join(10)

    def __enter__(self) -> SlaveThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def connect(self, **kw: Any) -> pymysql.connections.Connection:
        return connect(self.port, **kw)


def connect(port: int, **kw: Any) -> pymysql.connections.Connection:
    return pymysql.connect(
        host="127.0.0.1", port=port, user=kw.pop("user", "root"), password=kw.pop("password", ""),
        autocommit=True, connect_timeout=5, **kw,
    )


def query(port: int, sql: str, **kw: Any) -> list[tuple]:
    conn = connect(port, **kw)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def slave_status(port: int, **kw: Any) -> dict[str, Any]:
    conn = connect(port, **kw)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE STATUS")
            row = cur.fetchone()
            if row is None:
                return {}
            return dict(zip([d[0] for d in cur.description], row, strict=True))
    finally:
        conn.close()


def status(port: int, like: str, **kw: Any) -> dict[str, str]:
    return {k: v for k, v in query(port, f"SHOW GLOBAL STATUS LIKE '{like}'", **kw)}


def normalize(value: Any) -> Any:
    """One comparable form for a value read from MariaDB (typed) or from our slave (text)."""
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        total = int(value.total_seconds())
        return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"
    if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return round(float(value), 6)
    if isinstance(value, str):
        try:
            return round(float(value), 6)
        except ValueError:
            return value
    return value


def normalized_rows(rows: Sequence[Sequence[Any]]) -> list[tuple]:
    return sorted((tuple(normalize(v) for v in row) for row in rows), key=repr)


def wait_until(predicate: Callable[[], Any], timeout: float = 30.0, interval: float = 0.1, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as e:  # noqa: BLE001 - keep polling through transient errors
            last = e
        if last and not isinstance(last, Exception):
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what or predicate}: last {last!r}")
