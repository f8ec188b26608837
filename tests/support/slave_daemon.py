"""Our slave daemon in-process for tests, and client helpers to look at any slave.

`SlaveThread` runs `node.main.NodeDaemon` (a SlaveConfig: the slave preset) in a uvloop loop in a daemon thread, so blocking
clients (PyMySQL, MariaDB) can drive the test; `call(fn)` runs a coroutine function on the
daemon's loop (to peek at its state). For a real process (kill -9, SIGSTOP) use
`tests.support.daemons.Daemon("slave", ...)`. Plus client helpers (status, SHOW SLAVE STATUS,
normalized rows for comparing MariaDB's typed values with ours).
"""

from __future__ import annotations

import contextlib
import datetime
import decimal
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pymysql

from tests.support.loop_thread import LoopThread


class SlaveThread:
    def __init__(self, config: Any, **daemon_kw: Any) -> None:
        self.config = config
        self.daemon_kw = daemon_kw
        self.daemon: Any = None
        self._loop = LoopThread("slave-daemon")

    @property
    def port(self) -> int:
        return self.daemon.port

    @property
    def loop(self) -> Any:
        return self._loop.loop

    def start(self) -> SlaveThread:
        from node.main import NodeDaemon

        async def up() -> None:
            self.daemon = NodeDaemon(self.config, **self.daemon_kw)
            await self.daemon.start()

        self._loop.start(up)
        return self

    def call(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run `fn()` (a coroutine function or a plain one) on the daemon's loop."""
        return self._loop.call(fn, timeout)

    def stop(self) -> None:
        if self.daemon is None or not self._loop.running:
            return
        self._loop.stop(lambda: self.daemon.shutdown(10.0))

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


@contextlib.contextmanager
def master_with_slaves(
    tmp_path, count: int = 2, *, semisync: bool = False, connect_retry: float = 1
) -> Iterator[tuple[Any, list[Any]]]:
    """Our master (`repl` user made) and `count` of our slaves replicating from it, as real
    processes (semi-sync enabled on both sides when `semisync`); all stopped on exit. With
    `semisync` the `repl` user is made with the master's semi-sync off, then on again before the
    slaves start: no slave follows yet, so with rpl_semi_sync_master_wait_no_slave (the default)
    the first commit would wait out the whole rpl_semi_sync_master_timeout (10 s)."""
    from tests.support.daemons import Daemon

    master = Daemon("master", tmp_path / "master",
                    ["--server-id=1", *(["--rpl-semi-sync-master-enabled=ON"] if semisync else [])]).start()
    slaves: list[Daemon] = []
    try:
        if semisync:
            master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        if semisync:
            master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        for n in range(count):
            slaves.append(Daemon("slave", tmp_path / f"s{n + 1}", [
                f"--server-id={n + 2}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=repl", "--master-password=replpw", f"--master-connect-retry={connect_retry}",
                *(["--rpl-semi-sync-slave-enabled=ON"] if semisync else []),
            ]).start())
        yield master, slaves
    finally:
        for daemon in [*slaves, master]:
            daemon.stop()


def wait_applied(master: Any, slave: Any, timeout: float = 60.0) -> None:
    """Until `slave` executed the master's binlog to its end; fails on an SQL thread error."""
    end = str(master.query("SHOW MASTER STATUS")[0][1])
    wait_until(lambda: str(slave_status(slave.port).get("Exec_Master_Log_Pos")) == end
               or int(slave_status(slave.port)["Last_SQL_Errno"]), timeout=timeout, what="slave applied everything")
    status = slave_status(slave.port)
    assert int(status["Last_SQL_Errno"]) == 0, status
