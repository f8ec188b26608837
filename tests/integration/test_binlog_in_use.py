"""A binlog file in use: its FORMAT_DESCRIPTION carries LOG_EVENT_BINLOG_IN_USE_F, and its CRC32
was computed with the flag cleared (MySQL's and MariaDB's checksum test masks it). Every reader
of ours reads a live MariaDB server's active binlog (the CLI, the pipeline's C and numpy
decoders, crash recovery's transaction reader, the relay log's scan and the applier's event
decoder), and our writer's active file is one `mariadb-binlog --verify-binlog-checksum` reads.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zlib

import pytest

from binlog.reader import iter_checked, iter_events, scan_file
from binlog.writer import BinlogWriter
from master.recovery import read_transactions
from pipeline import decode
from protocol.events import (
    LOG_EVENT_BINLOG_IN_USE_F,
    EventType,
    FormatDescription,
    decode_event,
    decode_header,
    in_use_flag,
)
from protocol.position import BinlogPosition
from slave.relay_log import _scan as relay_scan
from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"),
                       reason="needs mariadb-server and mariadb-binlog"),
]

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
WORKLOAD = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
    "INSERT INTO d.t VALUES (1, 'one'), (2, 'two')",
    "BEGIN",
    "UPDATE d.t SET v = 'uno' WHERE id = 1",
    "DELETE FROM d.t WHERE id = 2",
    "COMMIT",
    "INSERT INTO d.t VALUES (3, 'three')",
]


def first_event(path) -> bytes:
    return next(iter_events(path))[1]


def crc_as_written(fd: bytes) -> bool:
    """Is the FD's footer the CRC32 of its bytes exactly as they are (flag included)?"""
    return zlib.crc32(fd[:-4]) == int.from_bytes(fd[-4:], "little")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    server = MariaDBServer(tmp_path_factory.mktemp("in-use") / "m", binlog_format="ROW", binlog_checksum="CRC32")
    server.start()
    try:
        server.execute_all(WORKLOAD)
        yield server
    finally:
        server.stop()


def test_every_reader_reads_a_live_mariadb_servers_active_binlog(live):
    path = live.binlog_files()[-1]
    fd = first_event(path)
    # the premise: in use, and a footer that does not match the flagged bytes
    assert in_use_flag(fd) and not crc_as_written(fd)
    size = path.stat().st_size
    events = list(iter_events(path))
    assert events[-1][0] + len(events[-1][1]) == size and len(events) > 10

    # the CLI, text and JSON
    for args in ([], ["--json"]):
        proc = subprocess.run([*SEMISYNC, "binlog", *args, str(path)], capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert len(proc.stdout.splitlines()) == len(events)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows[0]["type"] == "FORMAT_DESCRIPTION_EVENT" and rows[0]["flags"] & LOG_EVENT_BINLOG_IN_USE_F

    # the pipeline's decoders: the C scanner (when built) and numpy
    for native in ([True, False] if decode.native.LIB is not None else [False]):
        saved = decode.NATIVE
        decode.NATIVE = native
        try:
            batches = list(decode.decode_range(str(path), path.name, 4, None, False))
        finally:
            decode.NATIVE = saved
        assert sum(b.num_rows for b in batches) == len(events), native

    # the binlog reader (torn-tail scan, iter_checked: what recovery and the relay log use)
    assert scan_file(path).clean and scan_file(path).checksum is True
    assert len(list(iter_checked(path))) == len(events)

    # crash recovery's transaction reader (statement transactions: here the two DDLs) reads to
    # the end of the file
    txns = list(read_transactions(path.parent, [path.name], BinlogPosition(path.name, 4)))
    assert [sql for txn in txns for sql, _, _ in txn.statements] == WORKLOAD[:2]

    # the relay log's scan (a relay log file holding this file's events)
    tracker, boundary = relay_scan(path)
    assert tracker is not None and boundary == size

    # the applier decodes an FD with checksum=False (the FD decides for itself)
    body = decode_event(fd, False).body
    assert isinstance(body, FormatDescription) and body.checksum


def test_our_writer_flags_its_active_file_as_mariadb_does(tmp_path):
    writer = BinlogWriter(tmp_path, "bin", server_id=1, checksum=True, max_size=None,
                          server_version="10.11.99-semisync-log")
    writer.open()
    writer.flush()
    path = tmp_path / "bin.000001"
    fd = first_event(path)
    assert in_use_flag(fd) and not crc_as_written(fd)  # CRC32 computed with the flag masked
    verify = ["mariadb-binlog", "--no-defaults", "--verify-binlog-checksum", str(path)]
    proc = subprocess.run(verify, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "in use or was not closed properly" in proc.stdout
    writer.close()
    closed = first_event(path)
    assert not decode_header(closed).flags & LOG_EVENT_BINLOG_IN_USE_F and crc_as_written(closed)
    assert closed[-4:] == fd[-4:]  # clearing the flag leaves the footer as it was, as in MariaDB
    proc = subprocess.run(verify, capture_output=True, text=True)
    assert proc.returncode == 0 and "in use" not in proc.stdout, proc.stderr
    assert decode_header(closed).type_code == EventType.FORMAT_DESCRIPTION_EVENT
