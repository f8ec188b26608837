"""server/query_logs.py: the slow and general logs' lines as MariaDB 10.11's log.cc writes them,
a file reopened after it was moved (FLUSH LOGS), the files opened and closed as the variables
say; the variables MariaDB takes that the engine cannot honour are refused with 1235."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from protocol.errors import ER_NOT_SUPPORTED_YET, SQLError
from server.core_variables import _log_output, _only_off, _only_zero
from server.query_logs import GeneralLog, QueryLogs, SlowLog, header

HEADER = header("/usr/sbin/semisync", "10.11.99-MariaDB-semisync-log", 3306, "")
NOW = time.mktime((2026, 12, 6, 9, 5, 7, 0, 0, -1))


def _stamp(when: float) -> str:
    return time.strftime("%y%m%d %H:%M:%S", time.localtime(when)).replace(" 0", "  ", 1)


def test_the_header_is_mysqlds() -> None:
    assert HEADER == ("/usr/sbin/semisync, Version: 10.11.99-MariaDB-semisync-log (semisync). started with:\n"
                      "Tcp port: 3306  Unix socket: \nTime\t\t    Id Command\tArgument\n")


def test_a_slow_entry_has_mariadbs_lines(tmp_path: Path) -> None:
    log = SlowLog(tmp_path / "h-slow.log", HEADER)
    common = dict(user_host="root[root] @  [127.0.0.1]", thread_id=6, query_time=0.5, rows_sent=2,
                  rows_affected=0, bytes_sent=103)
    log.entry(db=None, statement="SET NAMES utf8mb4", now=NOW, **common)
    log.entry(db="d", statement="SELECT * FROM t", now=NOW, **common)
    log.entry(db="d", statement="SELECT 1", now=NOW + 1, **common)
    log.close()
    entry = ("# User@Host: root[root] @  [127.0.0.1]\n# Thread_id: 6  Schema: {db}  QC_hit: No\n"
             "# Query_time: 0.500000  Lock_time: 0.000000  Rows_sent: 2  Rows_examined: 0\n"
             "# Rows_affected: 0  Bytes_sent: 103\n")
    assert (tmp_path / "h-slow.log").read_text() == (
        HEADER + f"# Time: {_stamp(NOW)}\n" + entry.format(db="")
        + f"SET timestamp={int(NOW)};\nSET NAMES utf8mb4;\n"
        + entry.format(db="d") + f"use `d`;\nSET timestamp={int(NOW)};\nSELECT * FROM t;\n"
        + f"# Time: {_stamp(NOW + 1)}\n" + entry.format(db="d") + f"SET timestamp={int(NOW) + 1};\nSELECT 1;\n")


def test_a_general_line_writes_its_time_once_a_second(tmp_path: Path) -> None:
    log = GeneralLog(tmp_path / "h.log", HEADER)
    log.line(6, "Connect", "root@127.0.0.1 on  using TCP/IP", now=NOW)
    log.line(6, "Query", "SELECT 1", now=NOW)
    log.line(12345, "Quit", "", now=NOW + 1)
    log.close()
    assert (tmp_path / "h.log").read_text() == (
        HEADER + f"{_stamp(NOW)}\t     6 Connect\troot@127.0.0.1 on  using TCP/IP\n"
        "\t\t     6 Query\tSELECT 1\n" + f"{_stamp(NOW + 1)}\t 12345 Quit\t\n")


def test_reopen_makes_a_moved_file_anew(tmp_path: Path) -> None:
    logs = QueryLogs(tmp_path, "h", lambda: HEADER)
    logs.configure(slow_on=True, slow_file="h-slow.log", general_on=True, general_file="h.log", to_file=True)
    assert logs.active and logs.slow is not None and logs.general is not None
    (tmp_path / "h.log").rename(tmp_path / "h.log.1")
    logs.general.line(1, "Query", "SELECT 'moved'", now=NOW)
    logs.reopen(slow=False, general=True)
    logs.general.line(1, "Query", "SELECT 'after'", now=NOW)
    logs.close()
    assert "SELECT 'moved'" in (tmp_path / "h.log.1").read_text()
    assert (tmp_path / "h.log").read_text().startswith(HEADER)
    assert "SELECT 'after'" in (tmp_path / "h.log").read_text()
    assert (tmp_path / "h-slow.log").read_text() == HEADER  # opened once, not reopened


def test_configure_follows_the_variables(tmp_path: Path) -> None:
    logs = QueryLogs(tmp_path, "h", lambda: HEADER)
    assert not logs.active and logs.slow is None and logs.general is None
    logs.configure(slow_on=True, slow_file="h-slow.log", general_on=False, general_file="h.log", to_file=False)
    assert not logs.active and logs.slow is None  # log_output=NONE: nothing open
    logs.configure(slow_on=True, slow_file="h-slow.log", general_on=False, general_file="h.log", to_file=True)
    assert logs.active and logs.slow is not None and logs.general is None
    logs.configure(slow_on=True, slow_file="other.log", general_on=False, general_file="h.log", to_file=True)
    assert logs.slow is not None and logs.slow.path == tmp_path / "other.log"
    logs.configure(slow_on=False, slow_file="other.log", general_on=False, general_file="h.log", to_file=True)
    assert not logs.active and logs.slow is None


def test_log_output_takes_file_and_none_and_refuses_table() -> None:
    assert _log_output("file") == "FILE"
    assert _log_output("NONE") == "NONE"
    assert _log_output("file,none") == "NONE,FILE"
    for bad in ("", "FOO", "FILE,"):
        with pytest.raises(ValueError):
            _log_output(bad)
    for table in ("TABLE", "FILE,TABLE"):
        with pytest.raises(SQLError) as refused:
            _log_output(table)
        assert refused.value.error is ER_NOT_SUPPORTED_YET


def test_what_the_engine_cannot_tell_is_settable_only_where_it_logs_as_mariadb() -> None:
    assert _only_off("log_queries_not_using_indexes")("OFF") is False
    assert _only_zero("min_examined_row_limit")(0) == 0
    with pytest.raises(SQLError):
        _only_off("log_queries_not_using_indexes")("ON")
    with pytest.raises(SQLError):
        _only_zero("min_examined_row_limit")(5)
