"""Our daemons as real child processes (`python -m cli.main master|slave ...`), on loopback.

Exactly what a user runs, so kill -9, SIGSTOP and SIGTERM tests act on a real process. Each
daemon logs to DATADIR.log; `tail()` shows it when a test fails.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pymysql

from tests.support.net import free_port, wait_serving

ROOT = Path(__file__).resolve().parents[2]


class Daemon:
    def __init__(self, role: str, datadir: Path, args: Sequence[str], *, port: int | None = None,
                 env: dict[str, str] | None = None, root_password: str = "", code: Path = ROOT,
                 launch: Sequence[str] = ("-m", "cli.main")) -> None:
        self.role = role
        self.code = Path(code)  # the checkout whose cli.main runs (another commit's, to make old datadirs)
        self.datadir = Path(datadir)
        self.port = port or free_port()
        self.root_password = root_password
        # `launch`: what the interpreter runs before ROLE (a wrapper that ends in cli.main, e.g. the
        # timed one of bench/commit_timeline.py)
        self.args = [sys.executable, *launch, role, f"--datadir={self.datadir}", f"--port={self.port}",
                     "--bind-address=127.0.0.1", *args]
        self.env = {**os.environ, **(env or {})}
        self.log = self.datadir.with_suffix(".log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> Daemon:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         cwd=self.code, env=self.env)
        proc = self.proc
        wait_serving(self.connect, proc, timeout, lambda: f"{self.role} did not start (exit {proc.poll()}):\n{self.tail()}")
        return self

    def connect(self, database: str | None = None, **kw) -> pymysql.connections.Connection:
        return pymysql.connect(host="127.0.0.1", port=self.port, user=kw.pop("user", "root"),
                               password=kw.pop("password", self.root_password), database=database,
                               autocommit=True, connect_timeout=5, **kw)

    def query(self, sql: str, database: str | None = None) -> list[tuple]:
        conn = self.connect(database)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                return list(cur.fetchall())
        finally:
            conn.close()

    def status(self, like: str) -> dict[str, str]:
        return {k: v for k, v in self.query(f"SHOW GLOBAL STATUS LIKE '{like}'")}

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout: float = 20.0) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.poll() if self.proc else None
        self.proc.send_signal(signal.SIGCONT)
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"{self.role} ignored SIGTERM for {timeout}s:\n{self.tail()}") from None

    def tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1,
             message: str | Callable[[], str] = "condition"):
    """Poll `predicate` until it returns a truthy value; return that value."""
    deadline = time.monotonic() + timeout
    last_exc: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
            last_exc = None  # the condition was checked: an earlier error no longer explains a failure
        except Exception as exc:  # the server may be restarting; keep polling
            last_exc = exc
        time.sleep(interval)
    if callable(message):  # built only on failure (e.g. the logs of the processes involved)
        message = message()
    raise TimeoutError(f"timed out after {timeout}s waiting for {message}" + (f" (last error: {last_exc})" if last_exc else ""))
