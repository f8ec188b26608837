"""Point-in-time recovery with `mariadb-binlog FILE | mariadb`, into our server and into a stock
MariaDB 10.11, compared.

mariadb-binlog's output sets @@session.server_id, @@session.gtid_domain_id and
@@session.gtid_seq_no before each transaction (and pseudo_slave_mode, completion_type, a numeric
sql_mode and collations, a BINLOG '...' FORMAT_DESCRIPTION ...): replayed without --force, every
statement is accepted and each transaction keeps its origin GTID, so the two targets end with the
same rows, the same @@gtid_binlog_pos and the same GTIDs in SHOW BINLOG EVENTS. The binlogs come
from a MariaDB and from our master. With gtid_strict_mode ON a replay whose numbers are not above
the domain's last is refused at the SET with MariaDB's 1950. The session variables' own checks
(SUPER or BINLOG REPLAY, 1953 inside a transaction, taken once then back to 0) as MariaDB's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_master_faults import RawClient
from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import answer, differences, mariadb_and_ours
from tests.support.mariadb_compare import replay as replay_steps
from tests.support.slave_daemon import wait_until

pytestmark = pytest.mark.skipif(
    not (mariadb_available() and shutil.which("mariadb") and shutil.which("mariadb-binlog")),
    reason="needs mariadb-server, the mariadb client and mariadb-binlog",
)


def workload(db: str) -> list[str]:
    """DDL, autocommit and multi-statement transactions, another domain, a jump in seq_no."""
    return [
        f"CREATE DATABASE {db}",
        f"CREATE TABLE {db}.t (a INT PRIMARY KEY, b VARCHAR(20)) ENGINE=InnoDB",
        f"INSERT INTO {db}.t VALUES (1, 'one')",
        f"BEGIN; INSERT INTO {db}.t VALUES (2, 'two'); UPDATE {db}.t SET b = 'uno' WHERE a = 1; COMMIT",
        f"SET SESSION gtid_domain_id = 5; INSERT INTO {db}.t VALUES (3, 'three'); SET SESSION gtid_domain_id = 0",
        f"SET SESSION gtid_seq_no = 100; INSERT INTO {db}.t VALUES (4, 'four')",
        f"DELETE FROM {db}.t WHERE a = 2",
        f"SET SESSION server_id = 77; INSERT INTO {db}.t VALUES (5, 'five')",
    ]


def run_all(server: Any, statements: list[str]) -> None:
    conn = server.connect()
    try:
        with conn.cursor() as cur:
            for line in statements:
                for sql in line.split("; "):
                    cur.execute(sql)
    finally:
        conn.close()


def client(server: Any) -> list[str]:
    return ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{server.port}", "-uroot", "--binary-mode"]


def replay(files: list[str], target: Any) -> tuple[int, str]:
    dump = subprocess.run(["mariadb-binlog", "--no-defaults", *files], capture_output=True, timeout=120, check=True)
    loaded = subprocess.run(client(target), input=dump.stdout, capture_output=True, timeout=120)
    return loaded.returncode, loaded.stderr.decode(errors="replace")


GTID = re.compile(r"GTID (\d+-\d+-\d+)")


def state(server: Any, databases: tuple[str, ...]) -> dict[str, Any]:
    """Rows, @@gtid_binlog_pos and the GTIDs (with their events' server_id) of the binlog."""
    (pos,), = server.query("SELECT @@gtid_binlog_pos")
    gtids = []
    for (name, *_rest) in server.query("SHOW BINARY LOGS"):
        for row in server.query(f"SHOW BINLOG EVENTS IN '{name}'"):
            found = GTID.search(row[5])
            if row[2] == "Gtid" and found:
                gtids.append((found.group(1), row[3]))
    rows = {db: tuple(server.query(f"SELECT * FROM {db}.t ORDER BY a")) for db in databases}
    return {"rows": rows, "gtid_binlog_pos": ",".join(sorted(pos.split(","))), "gtids": gtids}


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Iterator[tuple[list[str], list[str]]]:
    """The binlog files of a MariaDB source and of our master, each after `workload`."""
    base = tmp_path_factory.mktemp("replay_sources")
    with mariadb_and_ours(base, mariadb_id=11) as (mariadb, ours):
        run_all(mariadb, workload("from_mariadb"))
        run_all(ours, workload("from_ours"))
        mariadb_files = [str(p) for p in mariadb.binlog_files()]
        ours_files = [str(ours.datadir / name) for (name, *_r) in ours.query("SHOW BINARY LOGS")]
        yield mariadb_files, ours_files


def test_mariadb_binlog_piped_into_ours_keeps_gtids_as_mariadb(sources, tmp_path):
    mariadb_files, ours_files = sources
    with mariadb_and_ours(tmp_path / "targets", mariadb_id=21, ours_id=2) as (target_mdb, target_ours):
        results = []
        for target in (target_mdb, target_ours):
            target.query("SET GLOBAL gtid_strict_mode = OFF")  # MariaDB's default (ours: ON)
            # our binlog first, then MariaDB's (its numbers below ours: written as given)
            outcome = [replay(ours_files, target), replay(mariadb_files, target)]
            results.append((outcome, state(target, ("from_ours", "from_mariadb"))))
        theirs, mine = results
        assert theirs[0] == [(0, ""), (0, "")], theirs[0]
        assert mine[0] == theirs[0], mine[0]
        assert theirs[1]["rows"]["from_mariadb"] == ((1, "uno"), (3, "three"), (4, "four"), (5, "five"))
        assert ("0-77-102", 77) in theirs[1]["gtids"] and ("0-1-101", 1) in theirs[1]["gtids"], theirs[1]
        assert mine[1] == theirs[1]

        # gtid_strict_mode ON: the same replay again is refused at its first SET gtid_seq_no
        strict = []
        for target in (target_mdb, target_ours):
            target.query("SET GLOBAL gtid_strict_mode = ON")
            strict.append((replay(mariadb_files, target), state(target, ("from_ours", "from_mariadb"))))
        assert strict[0][0][0] == 1 and "ERROR 1950 (HY000) at line" in strict[0][0][1], strict[0]
        assert strict[1] == strict[0]


SETUP = (
    "CREATE DATABASE sq",
    "CREATE TABLE sq.t (a INT PRIMARY KEY) ENGINE=InnoDB",
    "CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'",
    "GRANT ALL ON sq.* TO 'plain'@'%'",
    "CREATE USER 'replay'@'%' IDENTIFIED BY 'pw'",
    "GRANT BINLOG REPLAY, INSERT, SELECT ON *.* TO 'replay'@'%'",
    "CREATE USER 'admin'@'%' IDENTIFIED BY 'pw'",
    "GRANT REPLICATION MASTER ADMIN, BINLOG ADMIN ON *.* TO 'admin'@'%'",
)

STEPS: tuple[tuple[str, str], ...] = (
    ("root", "SET GLOBAL gtid_strict_mode = OFF"),  # MariaDB's default (ours: ON)
    ("root", "SELECT @@session.gtid_seq_no, @@gtid_seq_no"),
    ("root", "SELECT @@global.gtid_seq_no"),
    ("root", "SET GLOBAL gtid_seq_no = 5"),
    ("plain", "SET SESSION gtid_seq_no = 5"),
    ("plain", "SET SESSION server_id = 5"),
    ("plain", "SET gtid_seq_no = DEFAULT"),
    ("plain", "SET server_id = DEFAULT"),
    ("admin", "SET SESSION gtid_seq_no = 5"),
    ("admin", "SET SESSION server_id = 5"),
    ("replay", "SET SESSION server_id = 9"),
    ("replay", "SELECT @@server_id, @@session.server_id"),
    ("replay", "SET SESSION gtid_seq_no = 50"),
    ("replay", "SELECT @@gtid_seq_no"),
    ("replay", "SELECT * FROM sq.t"),
    ("replay", "SELECT @@gtid_seq_no"),
    ("replay", "INSERT INTO sq.t VALUES (1)"),
    ("replay", "SELECT @@gtid_seq_no, @@gtid_binlog_pos"),
    ("replay", "INSERT INTO sq.t VALUES (2)"),
    ("replay", "SELECT @@gtid_binlog_pos"),
    ("replay", "SET SESSION gtid_seq_no = 20"),
    ("replay", "INSERT INTO sq.t VALUES (3)"),
    ("replay", "SELECT @@gtid_binlog_pos"),
    ("replay", "BEGIN"),
    ("replay", "INSERT INTO sq.t VALUES (4)"),
    ("replay", "SET gtid_seq_no = 60"),
    ("replay", "SET server_id = 10"),
    ("replay", "COMMIT"),
    ("replay", "SELECT @@gtid_binlog_pos"),
    ("replay", "SET gtid_seq_no = -1"),
    ("replay", "SELECT @@gtid_seq_no"),
    ("replay", "SET gtid_seq_no = 'x'"),
    ("root", "SET GLOBAL gtid_strict_mode = ON"),
    ("replay", "SET gtid_seq_no = 52"),
    ("replay", "SET gtid_seq_no = 53"),
    ("replay", "SET gtid_seq_no = 0"),
    ("replay", "SET gtid_domain_id = 3"),
    ("replay", "SET gtid_seq_no = 7"),
    ("replay", "INSERT INTO sq.t VALUES (5)"),
    ("replay", "SELECT @@gtid_binlog_pos"),
    ("root", "SET GLOBAL gtid_strict_mode = OFF"),
    ("replay", "SELECT a FROM sq.t ORDER BY a"),
)


@pytest.fixture
def pair(tmp_path) -> Iterator[tuple[MariaDBServer, Daemon]]:
    with mariadb_and_ours(tmp_path) as servers:
        yield servers


def test_session_gtid_seq_no_and_server_id_as_mariadb(pair):
    accounts = {"plain": "pw", "replay": "pw", "admin": "pw"}
    theirs, mine = (replay_steps(server, SETUP, STEPS, accounts) for server in pair)
    assert [a[1] for a in theirs if a[0] == "error"] == [
        1238, 1228, 1227, 1227, 1227, 1227, 1953, 1232, 1950], theirs
    assert not differences(STEPS, theirs, mine), differences(STEPS, theirs, mine)


def _binlogs(server: Any) -> tuple[int, ...]:
    """The numbers of the binlog files SHOW BINARY LOGS lists (their basenames differ)."""
    return tuple(int(name.rsplit(".", 1)[1]) for (name, *_r) in server.query("SHOW BINARY LOGS"))


def _age_files(server: Any, directory: Path, stamps: list[float]) -> None:
    """The binlog files but the active one get `stamps` as their modification times."""
    for (name, *_r), stamp in zip(server.query("SHOW BINARY LOGS"), stamps, strict=False):
        os.utime(directory / name, (stamp, stamp))


def _checkpointed(server: Any) -> None:
    """Wait until MariaDB's active binlog has its own BINLOG_CHECKPOINT: MariaDB writes it in
    the background once the storage engines made the older files' transactions durable, and
    until then PURGE stops silently before those files (a race the test must not run)."""
    (active, *_r), = server.query("SHOW MASTER STATUS")
    wait_until(lambda: any(row[2] == "Binlog_checkpoint" and row[5] == active
                           for row in server.query(f"SHOW BINLOG EVENTS IN '{active}'")),
               timeout=30, what=f"the binlog checkpoint of {active}")


def test_purge_binary_logs_before_as_mariadb(pair):
    """PURGE BINARY LOGS BEFORE: files whose last modification is before the datetime go,
    oldest first up to the first that is not; never the active file; a non-datetime purges
    nothing (MariaDB: warning 1292); the privilege as PURGE TO's. Same answers and files left."""
    day = 86400
    base = time.mktime((2020, 1, 1, 0, 0, 0, 0, 0, -1))
    when = lambda t: time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))  # noqa: E731
    steps = (
        ("plain", f"PURGE BINARY LOGS BEFORE '{when(base + 10 * day)}'"),
        ("root", f"PURGE BINARY LOGS BEFORE '{when(base + 2.5 * day)}'"),  # files 1, 2 (3 is newer)
        ("root", f"PURGE MASTER LOGS BEFORE '{when(base)}'"),  # none older
        ("root", "PURGE BINARY LOGS BEFORE 'garbage'"),
        ("root", f"PURGE BINARY LOGS BEFORE DATE('{when(base + 10 * day)}') - INTERVAL 1 DAY"),
        ("root", "PURGE BINARY LOGS BEFORE NOW() + INTERVAL 1 DAY"),  # all but the active file
        ("root", "PURGE BINARY LOGS BEFORE"),
    )
    seen = []
    for server, directory in zip(pair, (pair[0].datadir, pair[1].datadir), strict=True):
        server.query("CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
        for _ in range(5):
            server.query("FLUSH BINARY LOGS")
        if server is pair[0]:
            _checkpointed(server)  # (ours holds no PURGE back on it)
        # files 1..5 dated day 0, 1, 3, 4 and 20 (file 5 after the later statements' dates)
        _age_files(server, directory, [base + d * day for d in (0, 1, 3, 4, 20)])
        conns = {"root": server.connect(), "plain": server.connect(user="plain", password="pw")}
        answers = []
        try:
            for who, sql in steps:
                answers.append((answer(conns[who], sql), _binlogs(server)))
        finally:
            for conn in conns.values():
                conn.close()
        seen.append(answers)
    theirs, mine = seen
    assert theirs[0][0][:2] == ("error", 1227) and theirs[-1][0][:2] == ("error", 1064), theirs
    assert [files for _answer, files in theirs] == [(1, 2, 3, 4, 5, 6), (3, 4, 5, 6), (3, 4, 5, 6), (3, 4, 5, 6),
                                                    (5, 6), (6,), (6,)], theirs
    assert mine == theirs


def test_purge_before_stops_at_a_file_a_dump_reads_as_mariadb(pair):
    """A dump that never reads stays inside the first file (tens of MB, more than the socket
    buffers hold): PURGE BINARY LOGS BEFORE answers OK and purges nothing from that file on,
    on both servers."""
    seen = []
    for server in pair:
        conn = server.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE big")
                cur.execute("CREATE TABLE big.t (id INT PRIMARY KEY, v TEXT) ENGINE=InnoDB")
                for i in range(400):
                    cur.execute("INSERT INTO big.t VALUES (%s, %s)", (i, "y" * 60000))
        finally:
            conn.close()
        (first, *_r), = server.query("SHOW MASTER STATUS")
        server.query("FLUSH BINARY LOGS")
        server.query("FLUSH BINARY LOGS")
        stalled = RawClient(server.port)
        try:
            stalled.send(stalled.conn.query("SET @master_binlog_checksum = @@global.binlog_checksum"))
            stalled.sock.sendall(stalled.conn.binlog_dump(4, 0, 91, first))
            wait_until(lambda s=server: any(row[4] == "Binlog Dump" for row in s.query("SHOW PROCESSLIST")),
                       timeout=30, what="the stalled dump")
            before = _binlogs(server)
            conn = server.connect()
            try:
                got = answer(conn, "PURGE BINARY LOGS BEFORE NOW() + INTERVAL 1 DAY")
            finally:
                conn.close()
            seen.append((before, got, _binlogs(server)))
        finally:
            stalled.close()
    theirs, mine = seen
    assert theirs == ((1, 2, 3), ("ok",), (1, 2, 3)), theirs
    assert mine == theirs


_DAY = 86400


def _files_aged(server: Any, pair: tuple[Any, Any], ages: list[float]) -> None:
    """FLUSH BINARY LOGS until the server has a file more than `ages` lists, then the files but
    the active one last modified that many seconds ago (MariaDB's checkpointed first)."""
    for _ in ages:
        server.query("FLUSH BINARY LOGS")
    if server is pair[0]:
        _checkpointed(server)
    now = time.time()
    _age_files(server, server.datadir, [now - age for age in ages])


def test_flush_binary_logs_purges_expired_files_as_mariadb(pair):
    """FLUSH BINARY LOGS with binlog_expire_logs_seconds (or expire_logs_days) set: the files
    last modified before now minus that many seconds go, oldest first up to the first that is
    newer, as PURGE BINARY LOGS BEFORE; with 0, none. Same files left on both servers."""
    steps = []
    for server in pair:
        # files 1..4 of 5: three days old, two days old, four days old, an hour old
        _files_aged(server, pair, [3 * _DAY, 2 * _DAY, 4 * _DAY, 3600])
        seen = [_binlogs(server)]
        server.query("SET GLOBAL binlog_expire_logs_seconds = 0")
        server.query("FLUSH BINARY LOGS")
        seen.append(_binlogs(server))
        server.query("SET GLOBAL expire_logs_days = 1")
        if server is pair[0]:
            _checkpointed(server)
        server.query("FLUSH BINARY LOGS")
        seen.append(_binlogs(server))
        server.query("SET GLOBAL expire_logs_days = DEFAULT")
        steps.append(seen)
    theirs, mine = steps
    assert theirs == [(1, 2, 3, 4, 5), (1, 2, 3, 4, 5, 6), (4, 5, 6, 7)], theirs
    assert mine == theirs


def test_rotation_by_size_purges_expired_files_as_mariadb(pair):
    """A binlog that reaches max_binlog_size rotates, and then the files older than
    binlog_expire_logs_seconds go (MariaDB purges after its binlog checkpoint, ours once the
    group is over: both in the background, so the files are polled). Same files left."""
    left = []
    for server in pair:
        _files_aged(server, pair, [3 * _DAY, 2 * _DAY, 3600])  # files 1..3 of 4
        server.query("SET GLOBAL binlog_expire_logs_seconds = 86400")
        server.query("SET GLOBAL max_binlog_size = 4096")
        server.query("CREATE DATABASE grow")
        server.query("CREATE TABLE grow.t (id INT PRIMARY KEY, v TEXT) ENGINE=InnoDB")
        i = 0
        while _binlogs(server)[-1] == 4:
            server.query(f"INSERT INTO grow.t VALUES ({i}, '{'x' * 500}')")
            i += 1
        wait_until(lambda s=server: _binlogs(s)[0] == 3, timeout=30, what="the expired files purged")
        left.append(_binlogs(server)[:2])
        server.query("SET GLOBAL binlog_expire_logs_seconds = DEFAULT")
        server.query("SET GLOBAL max_binlog_size = DEFAULT")
    theirs, mine = left
    assert theirs == (3, 4), theirs
    assert mine == theirs
