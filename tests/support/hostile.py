"""What the hostile-client tests share: a daemon's RSS sampled from /proc while they run, and
a legitimate PyMySQL client that keeps connecting and querying meanwhile.

`RssSampler(pid)` reads VmRSS from /proc/PID/status every few milliseconds in a thread and keeps
the peak; `LegitClient(port, password)` opens a new connection per round (so it proves that the
server still *accepts* logins, not only that an old connection lives) and runs one query on it.
Both are context managers; leaving `LegitClient` raises if any round failed or none ran.
"""

from __future__ import annotations

import threading
import time

import pymysql


def rss_bytes(pid: int) -> int:
    """VmRSS of process `pid`, in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for pid {pid}")


class RssSampler:
    def __init__(self, pid: int, interval: float = 0.005) -> None:
        self.pid = pid
        self.interval = interval
        self.start = rss_bytes(pid)
        self.peak = self.start
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                rss = rss_bytes(self.pid)
            except OSError:
                return  # the process is gone: the test sees it elsewhere
            self.samples += 1
            if rss > self.peak:
                self.peak = rss
            time.sleep(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)

    @property
    def growth(self) -> int:
        return self.peak - self.start


class LegitClient:
    def __init__(self, port: int, password: str = "", user: str = "root", pause: float = 0.05) -> None:
        self.port = port
        self.password = password
        self.user = user
        self.pause = pause
        self.rounds = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn = pymysql.connect(host="127.0.0.1", port=self.port, user=self.user, password=self.password,
                                       connect_timeout=20, read_timeout=30, write_timeout=30)
                try:
                    with conn.cursor() as cur:
                        cur.execute("SELECT 1 + 1")
                        assert cur.fetchone() == (2,)
                finally:
                    conn.close()
                self.rounds += 1
            except Exception as exc:  # reported when the client stops
                self.errors.append(f"{type(exc).__name__}: {exc}")
            self._stop.wait(self.pause)

    def __enter__(self) -> LegitClient:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(60)
        if exc[0] is None:
            assert not self.errors, f"the legitimate client failed {len(self.errors)} times: {self.errors[:3]}"
            assert self.rounds > 0, "the legitimate client never completed a round"


def read_packet(sock) -> tuple[int, bytes] | None:
    """One packet from a blocking socket: (sequence id, payload), or None once the peer closed."""
    head = _read_exactly(sock, 4)
    if head is None:
        return None
    body = _read_exactly(sock, int.from_bytes(head[:3], "little"))
    return None if body is None else (head[3], body)


def _read_exactly(sock, n: int) -> bytes | None:
    data = b""
    while len(data) < n:
        try:
            chunk = sock.recv(n - len(data))
        except ConnectionError:
            return None
        if not chunk:
            return None
        data += chunk
    return data
