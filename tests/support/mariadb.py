"""A stock MariaDB server (Debian's mariadb-server package) started by the tests, on loopback.

Each instance gets its own datadir, socket and free port, runs as root with `--no-defaults` (so
nothing in /etc/mysql applies), and is stopped by `stop()` (SIGTERM, then SIGKILL). Used as a real
peer: as a master whose binlogs and semi-sync we check against, and as a replica of our master.

A new datadir is a copy of one `mariadb-install-db` made once per mariadbd binary (`_installed`,
kept in the temporary directory): an install runs the server's bootstrap for seconds, a copy of its
34 MB takes milliseconds, and the suites start a few hundred servers.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pymysql

from tests.support.net import free_port, wait_serving

MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"
INSTALL_DB = shutil.which("mariadb-install-db") or "/usr/bin/mariadb-install-db"
# redo log size of every server here (`MariaDBServer.args`); the installed datadir is made with it
INNODB_LOG_FILE_SIZE = "16M"


def _installed() -> Path:
    """The datadir `mariadb-install-db` makes for this mariadbd (root without a password, no test
    database), made once and kept under the temporary directory by the binary's size and time.
    Made apart and renamed into place, so that a concurrent run of the tests either finds it
    whole or makes its own and drops it."""
    binary = os.stat(MARIADBD)
    where = Path(tempfile.gettempdir()) / f"semisync-mariadb-datadir-{binary.st_size}-{binary.st_mtime_ns}"
    if where.is_dir():
        return where
    making = Path(tempfile.mkdtemp(prefix=where.name + ".", dir=where.parent))
    try:
        (making / "tmp").mkdir()
        subprocess.run(
            [
                INSTALL_DB,
                "--no-defaults",
                f"--datadir={making / 'data'}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                f"--tmpdir={making / 'tmp'}",
                f"--innodb-log-file-size={INNODB_LOG_FILE_SIZE}",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        (making / "tmp").rmdir()
        try:
            os.rename(making, where)
        except OSError:  # made meanwhile by another run
            if not where.is_dir():
                raise
    finally:
        shutil.rmtree(making, ignore_errors=True)
    return where


class MariaDBServer:
    def __init__(
        self,
        basedir: Path,
        *,
        server_id: int = 1,
        port: int | None = None,
        log_bin: str | None = "master-bin",
        binlog_format: str = "STATEMENT",
        binlog_checksum: str = "CRC32",
        extra: Sequence[str] = (),
    ) -> None:
        self.basedir = Path(basedir)
        self.datadir = self.basedir / "data"
        self.port = port or free_port()
        self.server_id = server_id
        self.socket = self.basedir / "mysqld.sock"
        self.log_bin = log_bin
        self.args = [
            MARIADBD,
            "--no-defaults",
            f"--datadir={self.datadir}",
            f"--socket={self.socket}",
            f"--pid-file={self.basedir / 'mysqld.pid'}",
            f"--log-error={self.basedir / 'error.log'}",
            f"--tmpdir={self.basedir / 'tmp'}",
            f"--port={self.port}",
            "--bind-address=127.0.0.1",
            "--user=root",
            f"--server-id={server_id}",
            f"--binlog-format={binlog_format}",
            f"--binlog-checksum={binlog_checksum}",
            "--innodb-buffer-pool-size=32M",
            f"--innodb-log-file-size={INNODB_LOG_FILE_SIZE}",
            "--skip-name-resolve",
            "--performance-schema=OFF",
            "--max-connections=200",
            *([f"--log-bin={self.datadir / log_bin}"] if log_bin else []),
            *extra,
        ]
        self.proc: subprocess.Popen[bytes] | None = None

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self, timeout: float = 60.0) -> MariaDBServer:
        (self.basedir / "tmp").mkdir(parents=True, exist_ok=True)  # never share /tmp with other servers
        if not self.datadir.exists():
            shutil.copytree(_installed() / "data", self.datadir, symlinks=True)
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_serving(self.connect, self.proc, timeout, lambda: f"MariaDB did not start:\n{self.error_log()}")
        return self

    def stop(self, timeout: float = 30.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def error_log(self) -> str:
        path = self.basedir / "error.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else "(no error log)"

    def __enter__(self) -> MariaDBServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- use --------------------------------------------------------------------------------------
    def connect(self, database: str | None = None, **kw) -> pymysql.connections.Connection:
        return pymysql.connect(
            host="127.0.0.1",
            port=self.port,
            user=kw.pop("user", "root"),
            password=kw.pop("password", ""),
            database=database,
            autocommit=True,
            connect_timeout=5,
            **kw,
        )

    def query(self, sql: str, database: str | None = None) -> list[tuple]:
        """Run one or more `;`-free statements on a fresh connection; return the last rows."""
        conn = self.connect(database)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                return list(cur.fetchall())
        finally:
            conn.close()

    def execute_all(self, statements: Sequence[str], database: str | None = None) -> None:
        conn = self.connect(database)
        try:
            with conn.cursor() as cur:
                for sql in statements:
                    cur.execute(sql)
        finally:
            conn.close()

    def binlog_files(self) -> list[Path]:
        """The binlog files, in index order."""
        assert self.log_bin
        index = self.datadir / f"{self.log_bin}.index"
        return [self.datadir / Path(line.strip()).name for line in index.read_text().splitlines() if line.strip()]

    def status(self, like: str) -> dict[str, str]:
        return {k: v for k, v in self.query(f"SHOW GLOBAL STATUS LIKE '{like}'")}


def mariadb_available() -> bool:
    return os.path.exists(MARIADBD) and os.path.exists(INSTALL_DB)
