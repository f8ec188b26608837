"""The struct path of protocol.events against real MariaDB 10.11: its binlogs (statement and row
format, CRC32 and none) decode the same by the struct path and by the construct declarations,
and `mariadb-binlog` reads a binlog of transactions the struct path built (`transaction_events`)
with every statement and GTID in it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from binlog.reader import iter_events
from binlog.writer import BinlogWriter
from master.events import transaction_events
from protocol.events import EventType
from tests.integration.test_binlog_mariadb import WORKLOAD
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.unit.test_events_fast import random_transactions, same_decoding

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"), reason="needs mariadb-server and mariadb-binlog"),
]


@pytest.mark.parametrize("binlog_format,binlog_checksum", [("STATEMENT", "CRC32"), ("ROW", "CRC32"), ("ROW", "NONE")])
def test_mariadb_binlogs_decode_the_same_both_ways(tmp_path, binlog_format, binlog_checksum):
    server = MariaDBServer(tmp_path / "m", binlog_format=binlog_format, binlog_checksum=binlog_checksum, server_id=12)
    server.start()
    try:
        server.execute_all(WORKLOAD)
    finally:
        server.stop()
    seen = set()
    for path in server.binlog_files():
        checksum = False
        for _offset, raw in iter_events(path):
            if raw[4] == EventType.FORMAT_DESCRIPTION_EVENT:
                checksum = binlog_checksum == "CRC32"
                assert same_decoding(raw, False)
                continue
            assert same_decoding(raw, checksum), raw.hex()
            seen.add(raw[4])
    applied = {EventType.QUERY_EVENT, EventType.GTID_EVENT, EventType.XID_EVENT, EventType.ROTATE_EVENT}
    if binlog_format == "ROW":
        applied |= {EventType.TABLE_MAP_EVENT, EventType.WRITE_ROWS_EVENT_V1, EventType.UPDATE_ROWS_EVENT_V1}
    else:
        applied |= {EventType.INTVAR_EVENT, EventType.USER_VAR_EVENT, EventType.RAND_EVENT}
    assert applied <= seen


def test_mariadb_binlog_reads_what_the_struct_path_writes(tmp_path):
    writer = BinlogWriter(tmp_path, "bin", server_id=3, checksum=True, max_size=None, server_version="10.11.0-semisync")
    writer.open()
    transactions = random_transactions(23, 300)
    for stmts, gtid, xid in transactions:
        writer.append(transaction_events(stmts, xid=xid, thread_id=9, gtid=gtid), gtid.server_id if gtid else None)
    writer.write_group(False)
    writer.close()
    (path,) = sorted(tmp_path.glob("bin.0*"))
    proc = subprocess.run(["mariadb-binlog", "--no-defaults", str(path)], capture_output=True)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8", "replace")
    for stmts, gtid, _xid in transactions:
        if gtid is not None:
            assert f"GTID {gtid}" in out
        for stmt in stmts:
            assert stmt.sql in out
    assert out.count("COMMIT/*!*/;") == sum(1 for stmts, _g, _x in transactions if not stmts[0].is_ddl)
