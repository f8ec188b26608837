"""The slow query log and the general query log, against a stock MariaDB 10.11: the same
statements on both servers, then their files compared by structure (times, thread ids, byte
counts and the header's program line differ by nature; the lines, their order, the statements,
Schema, User@Host, Rows_sent and Rows_affected must be MariaDB's); pt-query-digest and
mariadb-dumpslow read our slow log as they read MariaDB's; Slow_queries counts statements over
long_query_time with the log off; FLUSH LOGS / FLUSH SLOW LOGS / FLUSH GENERAL LOGS reopen a file
a DBA moved away. Rows_examined is 0 on our side (server/query_logs.py), so it is not compared.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mysql.connector
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed")

HOST = socket.gethostname()
PT_QUERY_DIGEST = shutil.which("pt-query-digest")
DUMPSLOW = shutil.which("mariadb-dumpslow")
# a statement's slow log entry is written once its answer is sent (its time includes sending),
# a Quit line once the command is read: the files are read after the servers had that long
SETTLE = 0.5

WORKLOAD = (
    "CREATE DATABASE d",
    "CREATE DATABASE e",
    "USE d",
    "CREATE TABLE t (id INT PRIMARY KEY, v INT)",
    "INSERT INTO t VALUES (1,1),(2,2),(3,3)",
    "SELECT * FROM t WHERE v > 1",
    "UPDATE t SET v=v+1 WHERE id<3",
    "DELETE FROM t WHERE id = 3",
    "SELECT nosuch FROM t",
    "SELECT id FROM t WHERE id = 2",
)


def _datadir(server: Any) -> Path:
    return Path(server.datadir)


def _run_workload(server: Any) -> None:
    """Both logs on (long_query_time 0: every statement is slow), the workload over a second
    connection, a change of database by COM_INIT_DB, prepared statements over a third."""
    admin = server.connect()
    with admin.cursor() as cur:
        for sql in ("SET GLOBAL long_query_time=0", "SET GLOBAL slow_query_log=ON", "SET GLOBAL general_log=ON"):
            cur.execute(sql)
    conn = server.connect()
    with conn.cursor() as cur:
        for sql in WORKLOAD:
            try:
                cur.execute(sql)
                if cur.description:
                    cur.fetchall()
            except Exception:  # (the failing statement is logged too)
                pass
        conn.select_db("e")
        cur.execute("SELECT 1")
        cur.fetchall()
    conn.close()
    prepared = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                       database="d", ssl_disabled=True)
    cur = prepared.cursor(prepared=True)
    cur.execute("SELECT * FROM t WHERE id = ? AND v > ?", (1, "x'y"))
    cur.fetchall()
    prepared.close()
    with admin.cursor() as cur:
        cur.execute("SET GLOBAL slow_query_log=OFF")
        cur.execute("SET GLOBAL general_log=OFF")
    admin.close()


def _slow_entries(text: str) -> list[tuple]:
    """The slow log as (User@Host, Schema, Rows_sent, Rows_affected, use line, statement) per
    entry, every header line's shape checked on the way."""
    lines = text.splitlines()
    assert lines[1].startswith("Tcp port: ") and lines[2] == "Time\t\t    Id Command\tArgument", lines[:3]
    assert re.fullmatch(r".*, Version: .*\. started with:", lines[0]), lines[0]
    entries = []
    i = 3
    while i < len(lines):
        if lines[i].startswith("# Time: "):
            assert re.fullmatch(r"# Time: \d{6} [ \d]\d:\d\d:\d\d", lines[i]), lines[i]
            i += 1
        user_host = re.fullmatch(r"# User@Host: (.*)", lines[i]).group(1)
        schema = re.fullmatch(r"# Thread_id: \d+  Schema: (.*)  QC_hit: No", lines[i + 1]).group(1)
        sent = re.fullmatch(r"# Query_time: \d+\.\d{6}  Lock_time: \d+\.\d{6}  Rows_sent: (\d+)  Rows_examined: \d+",
                            lines[i + 2]).group(1)
        affected = re.fullmatch(r"# Rows_affected: (\d+)  Bytes_sent: \d+", lines[i + 3]).group(1)
        i += 4
        use = None
        if lines[i].startswith("use "):
            use = lines[i]
            i += 1
        assert re.fullmatch(r"SET timestamp=\d+;", lines[i]), lines[i]
        statement = lines[i + 1]
        assert statement.endswith(";")
        entries.append((user_host, schema, sent, affected, use, statement))
        i += 2
    return entries


def _general_lines(text: str) -> list[tuple[str, str, str]]:
    """The general log as (connection, Command, Argument) lines, connections named by the order
    they appear in, the time column's shape checked; a Connect's "using" word left out (ours
    may speak TLS where that MariaDB has none)."""
    lines = text.splitlines()
    assert lines[2] == "Time\t\t    Id Command\tArgument"
    names: dict[str, str] = {}
    out = []
    for line in lines[3:]:
        m = re.fullmatch(r"(\d{6} [ \d]\d:\d\d:\d\d|\t)\t +(\d+) ([A-Za-z ]+)\t(.*)", line)
        assert m is not None, repr(line)
        who = names.setdefault(m.group(2), f"c{len(names)}")
        argument = re.sub(r" using \S+$", "", m.group(4))
        out.append((who, m.group(3), argument))
    return out


@pytest.fixture(scope="module")
def both_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    base = tmp_path_factory.mktemp("query_logs")
    logs: dict[str, dict[str, str]] = {}
    with mariadb_and_ours(base) as (reference, ours):
        for name, server in (("mariadb", reference), ("ours", ours)):
            _run_workload(server)
            time.sleep(SETTLE)
            logs[name] = {kind: (_datadir(server) / f"{HOST}{suffix}").read_text()
                          for kind, suffix in (("slow", "-slow.log"), ("general", ".log"))}
    return logs


def test_the_slow_log_reads_as_mariadbs(both_logs: dict[str, dict[str, str]]) -> None:
    theirs = _slow_entries(both_logs["mariadb"]["slow"])
    ours = _slow_entries(both_logs["ours"]["slow"])
    assert ours == theirs


def test_the_general_log_reads_as_mariadbs(both_logs: dict[str, dict[str, str]]) -> None:
    assert _general_lines(both_logs["ours"]["general"]) == _general_lines(both_logs["mariadb"]["general"])


def _digest(path: Path) -> list[tuple[str, int]]:
    out = subprocess.run([PT_QUERY_DIGEST, "--limit", "100%", "--output", "json", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return sorted((c["fingerprint"], c["query_count"]) for c in json.loads(out)["classes"])


def _dumpslow(path: Path) -> list[str]:
    out = subprocess.run([DUMPSLOW, "-s", "c", str(path)], capture_output=True, text=True, check=True).stdout
    return sorted(line.strip() for line in out.splitlines() if line.startswith("  "))


def _read_by(tool: Callable[[Path], list], both_logs: dict[str, dict[str, str]], tmp_path: Path) -> list[list]:
    """What `tool` reads in MariaDB's slow log, then in ours."""
    read = []
    for name in ("mariadb", "ours"):
        path = tmp_path / f"{name}-slow.log"
        path.write_text(both_logs[name]["slow"])
        read.append(tool(path))
    return read


@pytest.mark.skipif(PT_QUERY_DIGEST is None, reason="percona-toolkit not installed")
def test_pt_query_digest_reports_the_same_queries(both_logs: dict[str, dict[str, str]], tmp_path: Path) -> None:
    theirs, ours = _read_by(_digest, both_logs, tmp_path)
    assert ours == theirs and len(ours) > 10


@pytest.mark.skipif(DUMPSLOW is None, reason="mariadb-dumpslow not installed")
def test_mariadb_dumpslow_reads_the_same_statements(both_logs: dict[str, dict[str, str]], tmp_path: Path) -> None:
    theirs, ours = _read_by(_dumpslow, both_logs, tmp_path)
    assert ours == theirs and len(ours) > 10


def _slow_queries(cur: Any, scope: str) -> int:
    cur.execute(f"SHOW {scope} STATUS LIKE 'Slow_queries'")
    return int(cur.fetchall()[0][1])


def _counting(server: Any) -> tuple[int, int, int]:
    """Slow_queries (session, and global before / after) over statements of which one is
    slower than the session's long_query_time, the slow log off."""
    conn = server.connect()
    with conn.cursor() as cur:
        before = _slow_queries(cur, "GLOBAL")
        cur.execute("SET long_query_time=0.1")
        for sql in ("SELECT 1", "SELECT SLEEP(0.3)", "SELECT 2", "DO 1"):
            cur.execute(sql)
            cur.fetchall()
        session = _slow_queries(cur, "SESSION")
        after = _slow_queries(cur, "GLOBAL")
    conn.close()
    return session, before, after


def test_slow_queries_counts_statements_over_long_query_time(tmp_path: Path) -> None:
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = _counting(reference), _counting(ours)
    assert mine[0] == theirs[0] == 1
    assert mine[2] - mine[1] == theirs[2] - theirs[1] == 1


def _every_statement_slow(server: Any) -> int:
    """Slow_queries of a session with long_query_time 0 (every statement is slower) after
    plain SELECTs and executions of a prepared SELECT, the commands our server answers on
    receipt while no log is open, and a BEGIN / write / COMMIT."""
    conn = mysql.connector.connect(host="127.0.0.1", port=server.port, user="root", password="",
                                   ssl_disabled=True, autocommit=True)
    cur = conn.cursor()
    cur.execute("SET long_query_time=0")
    cur.execute("CREATE DATABASE IF NOT EXISTS r")
    cur.execute("CREATE TABLE IF NOT EXISTS r.t (id INT PRIMARY KEY, v INT)")
    prepared = conn.cursor(prepared=True)
    for n in range(5):
        cur.execute(f"SELECT {n}")
        cur.fetchall()
        prepared.execute("SELECT ? + 1", (n,))
        prepared.fetchall()
        for sql in ("BEGIN", f"INSERT INTO r.t VALUES ({n}, {n})", "COMMIT"):
            cur.execute(sql)
    cur.execute("SHOW SESSION STATUS LIKE 'Slow_queries'")
    counted = int(cur.fetchall()[0][1])
    conn.close()
    return counted


def test_slow_queries_counts_the_commands_answered_on_receipt(tmp_path: Path) -> None:
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = _every_statement_slow(reference), _every_statement_slow(ours)
    assert mine == theirs and mine > 20


def _rotation(server: Any) -> dict[str, str]:
    """The logs on; for each FLUSH, the files it reopens moved away first: which statements end
    up in which file."""
    data = _datadir(server)
    conn = server.connect()
    seen: dict[str, str] = {}
    rounds = (("FLUSH SLOW LOGS", ("-slow.log",)), ("FLUSH GENERAL LOGS", (".log",)),
              ("FLUSH LOGS", ("-slow.log", ".log")))
    with conn.cursor() as cur:
        for sql in ("SET long_query_time=0", "SET GLOBAL slow_query_log=ON", "SET slow_query_log=ON",
                    "SET GLOBAL general_log=ON"):
            cur.execute(sql)
        for n, (flush, moved) in enumerate(rounds):
            for suffix in moved:
                (data / f"{HOST}{suffix}").rename(data / f"{HOST}{suffix}.{n}")
            cur.execute(f"SELECT '{flush} moved'")
            cur.fetchall()
            cur.execute(flush)
            cur.execute(f"SELECT '{flush} after'")
            cur.fetchall()
    conn.close()
    time.sleep(SETTLE)
    for path in sorted(data.glob(f"{HOST}*.log*")):
        text = path.read_text()
        seen[path.name.replace(HOST, "host")] = " | ".join(
            [f"{text.count('started with:')} headers", *re.findall(r"SELECT '[^']*'", text)])
    return seen


def test_flush_logs_reopens_a_moved_file(tmp_path: Path) -> None:
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = _rotation(reference), _rotation(ours)
    assert mine == theirs
    assert mine["host-slow.log"].endswith("SELECT 'FLUSH LOGS after'"), mine
