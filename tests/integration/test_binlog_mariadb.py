"""Binlogs written by a stock MariaDB 10.11 decode with `semisync binlog --json` exactly as
`mysqlbinlog` reads them: same offsets, type codes, sizes, end positions and server ids for every
event, and the same statements. STATEMENT and ROW format, CRC32 and NONE checksums, several files
(FLUSH BINARY LOGS), a mixed workload (DDL, auto-increment, NOW(), user variables, RAND(),
LAST_INSERT_ID(), users and grants, a non-transactional table, multi-statement transactions)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mysqlbinlog"), reason="needs mariadb-server and mysqlbinlog"),
]

WORKLOAD = [
    "CREATE DATABASE shop CHARACTER SET utf8mb4",
    "CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, item VARCHAR(64), qty INT, at DATETIME, r DOUBLE) ENGINE=InnoDB",
    "CREATE TABLE shop.log (id INT AUTO_INCREMENT PRIMARY KEY, msg TEXT) ENGINE=MyISAM",
    "INSERT INTO shop.orders (item, qty, at) VALUES ('apple', 3, NOW())",
    "SET @who = 'bob', @n = 42, @price = 1.25, @nothing = NULL",
    "INSERT INTO shop.orders (item, qty) VALUES (@who, @n)",
    "INSERT INTO shop.orders (item, qty, r) VALUES (CONCAT('p', @price), 1, @nothing)",
    "INSERT INTO shop.orders (item, qty, r) VALUES ('random', 1, RAND())",
    "INSERT INTO shop.log (msg) VALUES (CONCAT('last id ', LAST_INSERT_ID()))",
    "FLUSH BINARY LOGS",
    "BEGIN",
    "UPDATE shop.orders SET qty = qty + 1 WHERE item = 'apple'",
    "INSERT INTO shop.orders (item, qty) VALUES ('caf\u00e9 \u2615', 2), ('x', 5)",
    "DELETE FROM shop.orders WHERE item = 'x'",
    "COMMIT",
    "CREATE USER 'rep'@'%' IDENTIFIED BY 'secret'",
    "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'rep'@'%'",
    "FLUSH BINARY LOGS",
    "CREATE INDEX by_item ON shop.orders (item)",
    "INSERT INTO shop.log (msg) VALUES ('" + "long " * 100 + "')",
    "DROP USER 'rep'@'%'",
    "DROP TABLE shop.log",
]

# mysqlbinlog --hexdump prints each event's header as it read it:
# "#      100  |3a 5b 02 6b |a3   |01 00 00 00 |27 00 00 00 |27 01 00 00 |00 00"
HEADER_LINE = re.compile(
    r"^#\s+[0-9a-f]+\s+\|((?:[0-9a-f]{2} ){4})\|([0-9a-f]{2})\s+\|((?:[0-9a-f]{2} ){4})\|((?:[0-9a-f]{2} ){4})\|((?:[0-9a-f]{2} ){4})\|([0-9a-f]{2} [0-9a-f]{2})"
)
# the `semisync` console script, run from this checkout
SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
AT_LINE = re.compile(r"^# at (\d+)$")
END_LOG_POS = re.compile(r"^#\d{6} +\d+:\d\d:\d\d server id \d+  end_log_pos (\d+)")


def _le(hexbytes: str) -> int:
    return int.from_bytes(bytes.fromhex(hexbytes.replace(" ", "")), "little")


def mysqlbinlog_events(path) -> tuple[list[dict], str]:
    """What mysqlbinlog says about each event of a file: offset, header fields, end_log_pos."""
    out = subprocess.run(
        ["mysqlbinlog", "--no-defaults", "--hexdump", str(path)], capture_output=True, text=True, check=True
    ).stdout
    events: list[dict] = []
    for line in out.splitlines():
        if m := AT_LINE.match(line):
            events.append({"pos": int(m.group(1))})
        elif m := END_LOG_POS.match(line):
            # consecutive "# at" lines (Annotate_rows + Table_map) are followed by their
            # descriptions in the same order
            next(e for e in events if "end_log_pos" not in e)["end_log_pos"] = int(m.group(1))
        elif m := HEADER_LINE.match(line):
            ev = next(e for e in events if "type_code" not in e)
            ev.update(
                timestamp=_le(m.group(1)), type_code=int(m.group(2), 16), server_id=_le(m.group(3)),
                size=_le(m.group(4)), log_pos=_le(m.group(5)), flags=_le(m.group(6)),
            )
    return events, out


def event_chunks(text: str) -> dict[int, str]:
    """mysqlbinlog's output split at its "# at N" lines: offset -> what it printed for it."""
    chunks: dict[int, str] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if m := AT_LINE.match(line):
            current = []
            chunks[int(m.group(1))] = current  # type: ignore[assignment]
        elif current is not None:
            current.append(line)
    return {pos: "\n".join(lines) + "\n" for pos, lines in chunks.items()}  # type: ignore[arg-type]


def semisync_json(*paths) -> list[dict]:
    proc = subprocess.run(
        [*SEMISYNC, "binlog", "--json", *map(str, paths)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.parametrize(
    "binlog_format,binlog_checksum",
    [("STATEMENT", "CRC32"), ("STATEMENT", "NONE"), ("ROW", "CRC32"), ("ROW", "NONE")],
)
def test_mariadb_binlogs_decode_like_mysqlbinlog(tmp_path, binlog_format, binlog_checksum):
    server = MariaDBServer(tmp_path / "m", binlog_format=binlog_format, binlog_checksum=binlog_checksum, server_id=11)
    server.start()
    try:
        server.execute_all(WORKLOAD)
    finally:
        server.stop()
    files = server.binlog_files()
    assert len(files) >= 3
    seen_types: set[str] = set()
    for path in files:
        ours = semisync_json(path)
        theirs, text = mysqlbinlog_events(path)
        assert [e["pos"] for e in ours] == [e["pos"] for e in theirs]
        for mine, ref in zip(ours, theirs, strict=True):
            assert mine["file"] == str(path)
            for key in ("type_code", "size", "log_pos", "server_id", "timestamp", "flags"):
                assert mine[key] == ref[key], (path, mine, ref, key)
            assert mine["log_pos"] == ref["end_log_pos"] == mine["pos"] + mine["size"]
        # every statement we decode, mysqlbinlog prints for that same event (an Annotate_rows
        # event's text comes in the chunk of the Table_map after it, as "#Q> ")
        chunks = event_chunks(text)
        for n, mine in enumerate(ours):
            chunk = chunks[mine["pos"]]
            if mine["type"] == "QUERY_EVENT":
                assert "\n" + mine["query"] + "\n/*!*/;" in chunk, (mine, chunk)
            elif mine["type"] == "ANNOTATE_ROWS_EVENT":
                assert "#Q> " + mine["query"] + "\n" in chunks[ours[n + 1]["pos"]], mine
            elif mine["type"] == "XID_EVENT":
                assert f"Xid = {mine['xid']}\n" in chunk
            elif mine["type"] == "ROTATE_EVENT":
                assert f"Rotate to {mine['next_file']}  pos: {mine['next_pos']}\n" in chunk
            elif mine["type"] == "GTID_EVENT":
                assert re.search(rf"GTID {re.escape(mine['gtid'])}( |\n)", chunk), (mine, chunk)
        assert ours[0]["type"] == "FORMAT_DESCRIPTION_EVENT" and ours[0]["checksum"] is (binlog_checksum == "CRC32")
        seen_types |= {e["type"] for e in ours}
    queries = [e["query"] for e in semisync_json(*files) if e["type"] in ("QUERY_EVENT", "ANNOTATE_ROWS_EVENT")]
    assert "INSERT INTO shop.orders (item, qty) VALUES ('caf\u00e9 \u2615', 2), ('x', 5)" in queries
    assert "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'rep'@'%'" in queries
    expected = {"FORMAT_DESCRIPTION_EVENT", "GTID_LIST_EVENT", "BINLOG_CHECKPOINT_EVENT", "GTID_EVENT", "QUERY_EVENT", "XID_EVENT", "ROTATE_EVENT", "STOP_EVENT"}
    if binlog_format == "STATEMENT":
        expected |= {"INTVAR_EVENT", "USER_VAR_EVENT", "RAND_EVENT"}
    else:
        expected |= {"TABLE_MAP_EVENT", "WRITE_ROWS_EVENT_V1", "UPDATE_ROWS_EVENT_V1", "DELETE_ROWS_EVENT_V1", "ANNOTATE_ROWS_EVENT"}
    assert expected <= seen_types


def test_user_variables_and_intvars_decode_to_their_values(tmp_path):
    server = MariaDBServer(tmp_path / "m", binlog_format="STATEMENT", binlog_checksum="CRC32")
    server.start()
    try:
        server.execute_all(WORKLOAD[:9])
    finally:
        server.stop()
    events = semisync_json(*server.binlog_files())
    uv = {e["name"]: e for e in events if e["type"] == "USER_VAR_EVENT"}
    assert bytes.fromhex(uv["who"]["value_hex"]) == b"bob"
    assert int.from_bytes(bytes.fromhex(uv["n"]["value_hex"]), "little", signed=True) == 42
    assert uv["nothing"]["is_null"] is True
    assert {e["intvar_type"] for e in events if e["type"] == "INTVAR_EVENT"} >= {"INSERT_ID", "LAST_INSERT_ID"}
