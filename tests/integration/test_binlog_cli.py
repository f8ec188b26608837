"""Files written by our BinlogWriter are read by MariaDB's `mysqlbinlog` (CRC32 and NONE, several
files by rotation), and `semisync binlog` reports them, torn tails and garbage the way a DBA needs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from binlog import BinlogWriter, iter_events, scan_file
from protocol.events import (
    EventType,
    Heartbeat,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    UserVar,
    Xid,
    encode_body_event,
    encode_status_vars,
)

pytestmark = pytest.mark.skipif(not shutil.which("mysqlbinlog"), reason="needs mariadb-client (mysqlbinlog)")

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
TS = 1_700_000_000
STATUS = encode_status_vars(flags2=0, sql_mode=0, catalog="std", auto_increment=(1, 1), charset=(33, 33, 8))


def statements(i: int) -> list[str]:
    return [f"INSERT INTO shop.orders (id, item) VALUES ({i}, 'item {i}')", f"UPDATE shop.orders SET qty = {i} WHERE id = {i}"]


def write_binlogs(directory, checksum: bool, n: int = 40) -> BinlogWriter:
    w = BinlogWriter(directory, "mysql-bin", server_id=3, checksum=checksum, max_size=4096, server_version="10.11.19-semisync-log")
    w.open()
    w.append([(EventType.QUERY_EVENT, Query(thread_id=9, db="", query="CREATE DATABASE shop", status_vars=STATUS).encode(), TS, 0)])
    w.append([(EventType.QUERY_EVENT, Query(thread_id=9, db="shop", query="CREATE TABLE orders (id INT PRIMARY KEY, item TEXT, qty INT)", status_vars=STATUS).encode(), TS, 0)])
    w.flush()
    for i in range(n):
        events = [
            (EventType.GTID_EVENT, MariaGtid(i + 1, 0, 0x0C).encode(), TS + i, 0x08),
            (EventType.QUERY_EVENT, Query(thread_id=9, db="shop", query="BEGIN", status_vars=STATUS).encode(), TS + i, 0),
            (EventType.INTVAR_EVENT, Intvar(2, i + 1).encode(), TS + i, 0),
            (EventType.RAND_EVENT, Rand(i, i + 1).encode(), TS + i, 0),
            (EventType.USER_VAR_EVENT, UserVar("who", value=b"bob", charset=33).encode(), TS + i, 0),
        ]
        events += [(EventType.QUERY_EVENT, Query(thread_id=9, db="shop", query=q, status_vars=STATUS).encode(), TS + i, 0) for q in statements(i)]
        events.append((EventType.XID_EVENT, Xid(100 + i).encode(), TS + i, 0))
        w.append(events)
        w.flush()
        w.sync()
    w.close()
    return w


def run(*args):
    return subprocess.run([*SEMISYNC, *args], capture_output=True, text=True)


@pytest.mark.parametrize("checksum", [True, False])
def test_mysqlbinlog_reads_our_binlogs(tmp_path, checksum):
    w = write_binlogs(tmp_path, checksum)
    files = w.files()
    assert len(files) >= 3
    text = ""
    for name in files:
        proc = subprocess.run(["mysqlbinlog", "--no-defaults", str(tmp_path / name)], capture_output=True, text=True)
        assert proc.returncode == 0 and "ERROR" not in proc.stderr and "error" not in proc.stderr.lower(), proc.stderr
        assert "# End of log file" in proc.stdout
        text += proc.stdout
        # mysqlbinlog's end_log_pos of every event is where our reader says the event ends
        ends = [int(m) for m in re.findall(r"end_log_pos (\d+)", proc.stdout)]
        assert ends == [off + len(ev) for off, ev in iter_events(tmp_path / name)]
    for i in range(40):
        for q in statements(i):
            assert q in text
        assert f"Xid = {100 + i}" in text
        assert f"GTID 0-3-{i + 1} trans" in text
    assert "CREATE TABLE orders" in text and "SET INSERT_ID=1" in text and "SET @@RAND_SEED1=0, @@RAND_SEED2=1" in text
    assert "SET @`who`:=_utf8mb3 X'626F62' COLLATE `utf8mb3_general_ci`" in text
    assert "CRC32 0x" in text if checksum else "CRC32 0x" not in text


@pytest.mark.parametrize("checksum", [True, False])
def test_semisync_binlog_json_of_our_files(tmp_path, checksum):
    w = write_binlogs(tmp_path, checksum, n=10)
    proc = run("binlog", "--json", *(str(tmp_path / f) for f in w.files()))
    assert proc.returncode == 0 and proc.stderr == ""
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    for e in events:
        assert {"file", "pos", "size", "type_code", "type", "server_id", "timestamp", "log_pos"} <= e.keys()
        assert e["log_pos"] == e["pos"] + e["size"] and e["server_id"] == 3
    assert [e["xid"] for e in events if e["type"] == "XID_EVENT"] == [100 + i for i in range(10)]
    assert [e["gtid"] for e in events if e["type"] == "GTID_EVENT"] == [f"0-3-{i + 1}" for i in range(10)]
    rotates = [e for e in events if e["type"] == "ROTATE_EVENT"]
    assert rotates and all(r["next_pos"] == 4 and r["next_file"] in w.files() for r in rotates)
    q = [e for e in events if e["type"] == "QUERY_EVENT"]
    assert q[0]["query"] == "CREATE DATABASE shop" and q[1]["db"] == "shop"
    # text mode: one line per event, same count
    text = run("binlog", *(str(tmp_path / f) for f in w.files()))
    assert text.returncode == 0 and len(text.stdout.splitlines()) == len(events)
    assert text.stdout.splitlines()[0].startswith("# at 4  FORMAT_DESCRIPTION_EVENT  server_id=3  size=252  end_log_pos=256")


def test_torn_tail_is_reported_with_the_last_complete_offset(tmp_path):
    w = write_binlogs(tmp_path, True, n=3)
    path = tmp_path / w.files()[-1]
    ends = [off + len(ev) for off, ev in iter_events(path)]
    full = path.read_bytes()
    torn = tmp_path / "torn.000001"
    torn.write_bytes(full[: ends[-2] + 7])  # 7 bytes into the last event
    assert scan_file(torn).last_complete_end == ends[-2] and scan_file(torn).torn
    proc = run("binlog", str(torn))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        f"semisync binlog: {torn}: torn event at the end: the last complete event ends at offset {ends[-2]}, the file has {ends[-2] + 7} bytes"
    ]
    assert "Traceback" not in proc.stderr
    assert len(proc.stdout.splitlines()) == len(ends) - 1  # every complete event is still shown
    # mysqlbinlog agrees on where the last complete event ends
    ref = subprocess.run(["mysqlbinlog", "--no-defaults", str(torn)], capture_output=True, text=True)
    assert int(re.findall(r"end_log_pos (\d+)", ref.stdout)[-1]) == ends[-2]


def test_corrupt_and_foreign_files_give_one_clear_error_line(tmp_path):
    w = write_binlogs(tmp_path, True, n=3)
    good = tmp_path / w.files()[0]
    data = bytearray(good.read_bytes())
    ends = [off + len(ev) for off, ev in iter_events(good)]
    data[ends[3] - 6] ^= 0x01
    bad = tmp_path / "bad.000001"
    bad.write_bytes(bytes(data))
    text_file = tmp_path / "notes.txt"
    text_file.write_text("this is not a binlog\n")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    for path, expect in [
        (bad, f"corrupt event at offset {ends[2]}"),
        (text_file, "not a binlog file"),
        (empty, "not a binlog file"),
        (tmp_path / "missing", "No such file"),
    ]:
        proc = run("binlog", "--json", str(path))
        assert proc.returncode == 1, path
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and expect in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    # good files before and after a bad one are still decoded; the exit status says something failed
    proc = run("binlog", str(good), str(text_file), str(good))
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert proc.stdout.count("# at 4  FORMAT_DESCRIPTION_EVENT") == 2


def test_relay_log_with_the_masters_log_pos_and_a_heartbeat(tmp_path):
    relay = BinlogWriter(tmp_path, "relay-bin", server_id=2, checksum=True, max_size=1 << 20, server_version="10.11.19-semisync-log")
    relay.open()
    master_events = [
        encode_body_event(Query(thread_id=1, db="shop", query="INSERT INTO t VALUES (1)", status_vars=STATUS), timestamp=TS, server_id=1, log_pos=5000, checksum=True),
        encode_body_event(Xid(7), timestamp=TS, server_id=1, log_pos=5031 + 88, checksum=True),
        encode_body_event(Heartbeat("master-bin.000001"), timestamp=0, server_id=1, log_pos=6000, checksum=True),
    ]
    for ev in master_events:
        relay.append_raw(ev)
    relay.flush()
    relay.close()
    proc = run("binlog", "--json", str(tmp_path / "relay-bin.000001"))
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(e["type"], e["server_id"], e["log_pos"]) for e in events[1:]] == [
        ("QUERY_EVENT", 1, 5000), ("XID_EVENT", 1, 5119), ("HEARTBEAT_LOG_EVENT", 1, 6000)
    ]
    assert events[1]["pos"] == 256 and events[3]["log_ident"] == "master-bin.000001"
