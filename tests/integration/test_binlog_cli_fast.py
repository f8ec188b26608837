"""`semisync binlog` runs on the pipeline's fast decoder (the C scanner, or numpy) and prints,
text and `--json`, exactly the lines the reference decoder's rows give (`_reference_line` of
`binlog.rows.event_row`): on a stock MariaDB 10.11's binlogs (STATEMENT and ROW), on our own
writer's (ROW and STATEMENT histories), with either fast decoder, in chunks small enough that a
file spans many batches."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys

import pytest

from binlog.reader import iter_events
from binlog.rows import event_row
from cli import binlog_cmd
from pipeline import decode
from pipeline.decode import source_row
from pipeline.workload import write_history
from protocol.events import (
    FL_STANDALONE,
    EventType,
    FormatDescription,
    MariaGtid,
    Query,
    Xid,
    decode_event,
    event_type,
)
from tests.integration.test_binlog_mariadb import WORKLOAD
from tests.support.mariadb import MariaDBServer, mariadb_available

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]


def reference(path, as_json: bool) -> bytes:
    """What the reference decoder's rows print, event by event; in JSON every event of a GTID
    group carries the group's GTID (the group followed here one event at a time)."""
    out, checksum = [], False
    group: tuple[str, bool] | None = None  # (gtid, standalone) of the open group
    for offset, raw in iter_events(path):
        ev = decode_event(raw, checksum=checksum)
        if event_type(raw) == EventType.FORMAT_DESCRIPTION_EVENT and isinstance(ev.body, FormatDescription):
            checksum = ev.body.checksum
        row = source_row(event_row(str(path), offset, ev))
        if isinstance(ev.body, MariaGtid):
            group = (row["gtid"], bool(ev.body.flags2 & FL_STANDALONE))
        elif group is not None:
            row["gtid"] = group[0]
            query = ev.body.query.strip().upper() if isinstance(ev.body, Query) else None
            if isinstance(ev.body, Xid) or (query is not None and (
                    group[1] or query.split(" ")[0] in ("COMMIT", "ROLLBACK") or query.startswith(("XA PREPARE", "XA COMMIT", "XA ROLLBACK")))):
                group = None
        row = {name: row[name] for name in decode.COLUMNS if name in row}  # gtid in its column's place
        out.append(binlog_cmd._reference_line(path, offset, ev, as_json, source=row if as_json else None))
    return b"".join(out)


def fast(path, as_json: bool) -> bytes:
    out = io.BytesIO()
    assert binlog_cmd.decode_file(path, as_json, out) is None
    return out.getvalue()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    found = []
    for row_format in (True, False):
        d = tmp_path_factory.mktemp("ours")
        write_history(d, transactions=3000, max_size=1 << 20, row_format=row_format, ddl_every=200)
        found += sorted(d.glob("master-bin.0*"))
    if mariadb_available():
        for fmt in ("STATEMENT", "ROW"):
            server = MariaDBServer(tmp_path_factory.mktemp(fmt) / "m", binlog_format=fmt, server_id=7)
            server.start()
            try:
                server.execute_all(WORKLOAD)
            finally:
                server.stop()
            found += server.binlog_files()
    return found


@pytest.mark.parametrize("use_c", [True, False])
def test_fast_lines_are_the_reference_decoders(files, monkeypatch, use_c):
    if use_c and decode.native.LIB is None:
        pytest.skip("the C scanner is not built")
    monkeypatch.setattr(decode, "NATIVE", use_c)
    monkeypatch.setattr(decode, "CHUNK_BYTES", 64 << 10)  # many batches per file
    monkeypatch.setattr(decode.decode_range, "__kwdefaults__", {"verify_checksums": True, "chunk_bytes": 64 << 10})
    for path in files:
        for as_json in (True, False):
            mine, ref = fast(path, as_json), reference(path, as_json)
            assert mine.count(b"\n") > 4
            assert mine == ref, (path, as_json)
        rows = [json.loads(line) for line in fast(path, True).splitlines()]
        assert [r["pos"] for r in rows] == [offset for offset, _ in iter_events(path)]


def test_the_console_script_prints_the_same(files):
    path = files[-1]
    for args, as_json in (([], False), (["--json"], True)):
        proc = subprocess.run([*SEMISYNC, "binlog", *args, str(path)], capture_output=True)
        assert proc.returncode == 0 and proc.stderr == b""
        assert proc.stdout == reference(path, as_json)


def at_lines(text: str) -> list[int]:
    return [int(line.split()[2]) for line in text.splitlines() if line.startswith("# at ")]


@pytest.mark.skipif(not shutil.which("mariadb-binlog"), reason="needs mariadb-binlog")
def test_start_and_stop_positions_select_the_events_mariadb_binlog_prints(files):
    path = files[-1]  # MariaDB's (or, without MariaDB, ours)
    offsets = [offset for offset, _ in iter_events(path)]
    assert len(offsets) > 6
    choices = [(offsets[2], None), (4, offsets[5]), (offsets[3], offsets[5] + 1), (offsets[1], offsets[-1])]
    for start, stop in choices:
        args = [f"--start-position={start}"] + ([f"--stop-position={stop}"] if stop else [])
        theirs = subprocess.run(["mariadb-binlog", "--no-defaults", *args, str(path)], capture_output=True, text=True)
        # the FORMAT_DESCRIPTION at 4 first, whatever the start
        expected = [o for o in offsets if (o >= start or o == 4) and (stop is None or o < stop)]
        assert [o for o in at_lines(theirs.stdout) if o in offsets] == expected
        for as_json in (False, True):
            proc = subprocess.run([*SEMISYNC, "binlog", *args, *(["--json"] if as_json else []), str(path)], capture_output=True)
            assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
            ref = [line for line in reference(path, as_json).splitlines(keepends=True)]
            assert proc.stdout == b"".join(line for o, line in zip(offsets, ref, strict=True) if o in expected)
    # a start that is not where an event starts: an error naming it, nothing printed, exit 1
    proc = subprocess.run([*SEMISYNC, "binlog", f"--start-position={offsets[2] + 1}", str(path)], capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"no event starts at --start-position {offsets[2] + 1}" in proc.stderr
