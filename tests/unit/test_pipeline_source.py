"""pipeline/source.py without Spark: path expansion and its errors, partition planning (small
files packed, big files split at event boundaries), the streaming offsets (a half-written event is
held back), and `semisync pipeline` argument errors (which never start Spark)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pipeline.decode import decode_range, gtid_batches
from pipeline.source import (
    BinlogReader,
    BinlogSourceError,
    BinlogStreamReader,
    Ranges,
    expand_paths,
)
from pipeline.workload import write_history
from protocol.events import TYPE_CODE_AT, EventType


def rows_of(partitions) -> list[tuple[str, int]]:
    out = []
    for part in partitions:
        assert isinstance(part, Ranges)
        for path, start, end, crc in part.ranges:
            for batch in decode_range(path, path, start, end, crc):
                out += list(zip(batch.column("file").to_pylist(), batch.column("pos").to_pylist(), strict=True))
    return out


def all_rows(paths) -> list[tuple[str, int]]:
    out = []
    for p in paths:
        for batch in decode_range(str(p), str(p), 4, None, False):
            out += [(str(p), pos) for pos in batch.column("pos").to_pylist()]
    return out


def test_paths_files_directories_and_globs_and_their_errors(tmp_path):
    write_history(tmp_path, transactions=100, max_size=8000)
    files = sorted(tmp_path.glob("master-bin.0*"))
    assert len(files) > 2 and (tmp_path / "master-bin.index").exists()
    assert expand_paths([str(tmp_path)]) == [str(f) for f in files]
    assert expand_paths([str(tmp_path / "master-bin.*")]) == [str(f) for f in files]  # not the .index
    assert expand_paths([str(files[1]), str(tmp_path / "master-bin.0*")]) == [str(files[1])] + [
        str(f) for f in files if f != files[1]
    ]
    with pytest.raises(BinlogSourceError, match="'/nonexistent/x.0\\*' matches no file"):
        expand_paths(["/nonexistent/x.0*"])
    (tmp_path / "junk.000001").write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(BinlogSourceError, match="junk.000001: at offset 0: not a binlog file"):
        BinlogReader({"path": str(tmp_path / "junk.000001")})
    with pytest.raises(BinlogSourceError, match="no path given"):
        BinlogReader({})


def test_batch_partitions_pack_small_files_and_split_big_ones_at_event_boundaries(tmp_path):
    write_history(tmp_path / "small", transactions=300, max_size=5000)
    small = sorted((tmp_path / "small").glob("master-bin.0*"))
    reader = BinlogReader({"paths": json.dumps([str(tmp_path / "small")]), "maxPartitionBytes": "20000"})
    parts = reader.partitions()
    assert 1 < len(parts) < len(small)
    assert rows_of(parts) == all_rows(small)

    write_history(tmp_path / "big", transactions=2000, max_size=1 << 30)
    big = tmp_path / "big" / "master-bin.000001"
    reader = BinlogReader({"path": str(big), "maxPartitionBytes": "50000"})
    parts = reader.partitions()
    assert len(parts) >= big.stat().st_size // 50000 - 1
    assert rows_of(parts) == all_rows([big])


def test_big_files_split_at_gtid_events_so_every_event_of_a_piece_knows_its_gtid(tmp_path):
    write_history(tmp_path, transactions=2000, max_size=1 << 30)
    big = str(tmp_path / "master-bin.000001")
    reader = BinlogReader({"path": big, "maxPartitionBytes": "50000"})
    parts = reader.partitions()
    starts = [start for part in parts for _, start, _, _ in part.ranges]  # type: ignore[attr-defined]
    assert len(starts) > 5
    with open(big, "rb") as f:
        data = f.read()
    assert all(data[start + TYPE_CODE_AT] == EventType.GTID_EVENT for start in starts[1:])
    read = [(pos, gtid) for part in parts for batch in reader.read(part)
            for pos, gtid in zip(batch.column("pos").to_pylist(), batch.column("gtid").to_pylist(), strict=True)]
    whole = [(pos, gtid) for batch in gtid_batches(decode_range(big, big, 4, None, False))
             for pos, gtid in zip(batch.column("pos").to_pylist(), batch.column("gtid").to_pylist(), strict=True)]
    assert read == whole
    assert sum(g is not None for _, g in whole) > len(whole) * 0.9  # the transactions' events, not only GTID events


def test_reader_hands_spark_batches_of_at_most_batch_rows_in_order_and_freezes_the_worker_heap(tmp_path, monkeypatch):
    """`read` cuts each chunk's batch into slices of BATCH_ROWS rows (Spark turns a batch into rows
    column by column; a small one stays in the cache), losing and reordering nothing; the first
    read in a worker moves the objects alive then out of the garbage collector's walks."""
    import gc

    from pipeline import source
    from pipeline.source import BATCH_ROWS

    monkeypatch.setattr(source, "_SETTLED", False)  # as in a fresh worker

    write_history(tmp_path, transactions=3000, max_size=1 << 30)
    path = tmp_path / "master-bin.000001"
    reader = BinlogReader({"path": str(path)})
    (part,) = reader.partitions()
    gc.unfreeze()
    batches = list(reader.read(part))
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    sizes = [b.num_rows for b in batches]
    assert max(sizes) == BATCH_ROWS and len(sizes) > 2
    rows = [(f, pos) for b in batches for f, pos in zip(b.column("file").to_pylist(), b.column("pos").to_pylist(), strict=True)]
    assert rows == all_rows([path])


def test_stream_offsets_hold_back_a_half_written_transaction_and_pick_up_new_files(tmp_path):
    write_history(tmp_path / "src", transactions=200, max_size=10000)
    src = sorted((tmp_path / "src").glob("master-bin.0*"))
    live = tmp_path / "live"
    live.mkdir()
    stream = BinlogStreamReader({"path": str(live)})
    start = stream.initialOffset()
    assert stream.latestOffset(start, None) == {"files": {}}  # nothing written yet
    data = src[0].read_bytes()
    types = [(pos, t) for b in decode_range(str(src[0]), str(src[0]), 4, None, False)
             for pos, t in zip(b.column("pos").to_pylist(), b.column("type_code").to_pylist(), strict=True)]
    last_xid = max(pos for pos, t in types if t == EventType.XID_EVENT)
    (live / src[0].name).write_bytes(data[: last_xid + 10])  # the last transaction's XID half-written
    first = stream.latestOffset(start, None)
    # its group is held back from its GTID event on, until the XID is whole
    last_gtid = max(pos for pos, t in types if t == EventType.GTID_EVENT)
    assert first["files"][str(live / src[0].name)]["pos"] == last_gtid
    got = rows_of(stream.partitions(start, first))
    (live / src[0].name).write_bytes(data)
    (live / src[1].name).write_bytes(src[1].read_bytes())
    second = stream.latestOffset(first, None)
    assert second["files"][str(live / src[0].name)]["pos"] == len(data)
    got += rows_of(stream.partitions(first, second))
    assert stream.partitions(second, second) == []
    expected = [(str(live / p.name), pos) for p in src[:2] for _, pos in all_rows([p])]
    assert got == expected  # every event once, in order


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "pipeline", *args], capture_output=True, text=True, timeout=60)


def test_semisync_pipeline_lists_its_jobs_and_refuses_bad_relay_log_options_before_starting_spark():
    out = run_cli("--help")
    assert out.returncode == 0 and all(job in out.stdout for job in ("events", "audit", "stats"))
    audit = run_cli("audit", "--help")
    assert "--master" in audit.stdout and "local[*]" in audit.stdout and "--min-slaves" in audit.stdout
    bad = run_cli("audit", "--binlogs", "x.0*", "--relay-logs", "no-equals-sign", "--out", "/tmp/unused")
    assert bad.returncode == 2 and "expected NAME=GLOB" in bad.stderr
    missing = run_cli("events", "x.000001")
    assert missing.returncode == 2 and "--out" in missing.stderr
