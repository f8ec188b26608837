"""The slow query log and the general query log, in MariaDB 10.11's file formats.

Contract
- One `QueryLogs` per server owns both files. A log's file is open exactly while its variable
  (slow_query_log, general_log) is ON and log_output holds FILE; `slow` / `general` is then its
  writer, else None, so a session asks one attribute whether to log. `active` is True while
  either is open: the session's answers on receipt step aside then (server/session.py), so every
  statement takes the path that logs it.
- A file is opened in append mode (made when missing, with MariaDB's header, which every open
  writes again, as mysqld's `MYSQL_QUERY_LOG::open`), written and flushed per entry on the
  loop thread, as mysqld writes its entries under its log's lock. `reopen()` closes and opens
  it again: FLUSH LOGS / FLUSH SLOW LOGS / FLUSH GENERAL LOGS after a DBA moved the file away
  (log rotation). A file that cannot be opened turns its variable OFF, as mysqld does.
- The formats are log.cc's: the slow log's "# Time:" line only when the second changed since the
  file's last entry, "use `db`;" only when the schema differs from its last entry's;
  the general log's "YYMMDD HH:MM:SS" column only when the second changed, else two tabs.
- Rows_examined is always 0: SQLite does not tell how many rows a statement read (it
  is not Rows_sent), and min_examined_row_limit, which would compare with it, cannot be set
  above 0 (1235, server/core_variables.py). Lock_time is 0: the engine's writer lock wait
  is not timed per statement.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

log = logging.getLogger("semisync.server.query_logs")


def _stamp(when: int) -> str:
    t = time.localtime(when)
    return f"{t.tm_year % 100:02d}{t.tm_mon:02d}{t.tm_mday:02d} {t.tm_hour:2d}:{t.tm_min:02d}:{t.tm_sec:02d}"


class QueryLogFile:
    """One log file: opened with mysqld's header, appended to and flushed per entry."""

    def __init__(self, path: Path, header: str) -> None:
        self.path = path
        self._header = header
        self._file: IO[str] | None = None
        self.last_time = 0  # the second of the last entry (its time column or "# Time:" line)
        self.open()

    def open(self) -> None:
        """Open (or make) the file; OSError when it cannot be."""
        self._file = open(self.path, "a", encoding="utf-8", errors="surrogateescape")
        self._write(self._header)
        self.last_time = 0

    def reopen(self) -> None:
        self.close()
        self.open()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _write(self, text: str) -> None:
        file = self._file
        if file is None:
            return
        try:
            file.write(text)
            file.flush()
        except OSError as exc:  # a full disk: the statement still answers, as mysqld's
            log.warning("could not write %s: %s", self.path, exc)


class SlowLog(QueryLogFile):
    """The slow query log (log.cc `MYSQL_QUERY_LOG::write` of a slow statement)."""

    def __init__(self, path: Path, header: str) -> None:
        self.last_db = ""
        super().__init__(path, header)

    def open(self) -> None:
        super().open()
        self.last_db = ""

    def entry(self, *, user_host: str, thread_id: int, db: str | None, query_time: float, rows_sent: int,
              rows_affected: int, bytes_sent: int, statement: str, now: float | None = None) -> None:
        when = int(time.time() if now is None else now)
        lines = []
        if when != self.last_time:
            self.last_time = when
            lines.append(f"# Time: {_stamp(when)}\n")
        lines.append(
            f"# User@Host: {user_host}\n"
            f"# Thread_id: {thread_id}  Schema: {db or ''}  QC_hit: No\n"
            f"# Query_time: {query_time:.6f}  Lock_time: 0.000000  Rows_sent: {rows_sent}  Rows_examined: 0\n"
            f"# Rows_affected: {rows_affected}  Bytes_sent: {bytes_sent}\n")
        if db and db != self.last_db:
            self.last_db = db
            lines.append(f"use `{db.replace('`', '``')}`;\n")
        lines.append(f"SET timestamp={when};\n{statement};\n")
        self._write("".join(lines))


class GeneralLog(QueryLogFile):
    """The general query log (log.cc `MYSQL_QUERY_LOG::write` of a command)."""

    def line(self, thread_id: int, command: str, argument: str, now: float | None = None) -> None:
        when = int(time.time() if now is None else now)
        if when != self.last_time:
            self.last_time = when
            stamp = _stamp(when) + "\t"
        else:
            stamp = "\t\t"
        self._write(f"{stamp}{thread_id:6d} {command}\t{argument}\n")


def header(program: str, version: str, port: int, socket: str) -> str:
    """What mysqld writes at the top of each log file it opens (`program` a path from "/":
    mariadb-dumpslow finds the header by it)."""
    return (f"{program}, Version: {version} (semisync). started with:\n"
            f"Tcp port: {port}  Unix socket: {socket}\n"
            "Time\t\t    Id Command\tArgument\n")


class QueryLogs:
    """Both logs of a server, opened and closed as their variables say (module header)."""

    def __init__(self, datadir: Path, hostname: str, header: Callable[[], str]) -> None:
        self.datadir = datadir
        self.default_slow_file = f"{hostname}-slow.log"
        self.default_general_file = f"{hostname}.log"
        self._header = header
        self.slow: SlowLog | None = None
        self.general: GeneralLog | None = None
        self.active = False

    def path(self, name: str) -> Path:
        """A log file variable's value as a path: relative to the datadir, as mysqld's."""
        return Path(os.path.join(self.datadir, name))

    def configure(self, *, slow_on: bool, slow_file: str, general_on: bool, general_file: str,
                  to_file: bool) -> tuple[bool, bool]:
        """Open or close each log as the variables now say; (slow open, general open): a file
        that could not be opened leaves its log off."""
        self.slow = self._one(self.slow, slow_on and to_file, slow_file, SlowLog)  # type: ignore[assignment]
        self.general = self._one(self.general, general_on and to_file, general_file, GeneralLog)  # type: ignore[assignment]
        self.active = self.slow is not None or self.general is not None
        return self.slow is not None or not (slow_on and to_file), self.general is not None or not (general_on and to_file)

    def _one(self, current: QueryLogFile | None, on: bool, name: str, kind: type[QueryLogFile]) -> QueryLogFile | None:
        path = self.path(name)
        if current is not None and (not on or current.path != path):
            current.close()
            current = None
        if on and current is None:
            try:
                current = kind(path, self._header())
            except OSError as exc:
                log.warning("could not open %s: %s", path, exc)
                return None
        return current

    def reopen(self, slow: bool = True, general: bool = True) -> None:
        """FLUSH LOGS: each open log's file closed and opened again (a moved file is made anew)."""
        for one, wanted in ((self.slow, slow), (self.general, general)):
            if one is not None and wanted:
                try:
                    one.reopen()
                except OSError as exc:
                    log.warning("could not reopen %s: %s", one.path, exc)

    def close(self) -> None:
        for one in (self.slow, self.general):
            if one is not None:
                one.close()
        self.slow = self.general = None
        self.active = False
