"""Loopback helpers for tests: free ports, waiting for a listener."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from subprocess import Popen
from typing import Any


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> list[int]:
    """n distinct free ports (held open together while choosing, so they differ)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def wait_listening(port: int, host: str = "127.0.0.1", timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout}s") from None
            time.sleep(0.05)


def free_port_block(n: int, low: int = 20000, high: int = 60000) -> int:
    """The first port of n consecutive ports that are all free now (for `semisync up`, whose
    slaves take P+1.. and metrics M+1..), below the kernel's ephemeral range: a port there can
    become the local end of an outgoing connection (a slave's to its master) before the
    daemon that was given it binds it (EADDRINUSE at its start)."""
    import random

    high = min(high, _ephemeral_low())
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(low, high - n)
        socks = []
        try:
            for port in range(base, base + n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError(f"no block of {n} free ports found")


def _ephemeral_low() -> int:
    """The first port the kernel hands to outgoing connections (Linux's ip_local_port_range)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def port_is_free(port: int) -> bool:
    """Whether a server could listen on the port now. SO_REUSEADDR as every server sets it, so
    connections lingering in TIME_WAIT after a clean close do not count as holding the port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def wait_serving(connect: Callable[[], Any], proc: Popen, timeout: float, failure: Callable[[], str]) -> None:
    """Until `connect()` succeeds (a MySQL server of ours or MariaDB answers a login); a
    RuntimeError with `failure()` if the process exits first or `timeout` passes."""
    import pymysql

    deadline = time.monotonic() + timeout
    while True:
        try:
            connect().close()
            return
        except pymysql.err.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(failure()) from None
            time.sleep(0.1)
