"""pipeline/native.py + pipeline/_binlog_scan.c: the C scanner of the `binlog` source is built
where the tests run, and on damaged binlogs (bytes flipped anywhere, headers included, files cut
short) it gives exactly what the numpy decoder gives: the same rows, or the same error. No
Spark. (Both decoders against the reference: tests/unit/test_pipeline_decode.py.)"""

from __future__ import annotations

import random

import pytest

from binlog import BinlogFileError
from pipeline import decode, native
from pipeline.workload import write_history


def test_the_c_scanner_is_built_and_used():
    assert native.LIB is not None, "pip install -e . builds pipeline/_binlog_scan.c (it needs a C compiler)"
    assert decode.NATIVE


def outcome(monkeypatch, use_c: bool, path, chunk: int, verify: bool) -> list | str:
    monkeypatch.setattr(decode, "NATIVE", use_c)
    try:
        return [b.to_pylist() for b in decode.decode_range(str(path), "f", 4, None, False, verify_checksums=verify,
                                                             chunk_bytes=chunk)]
    except BinlogFileError as e:
        return str(e)


@pytest.mark.parametrize("checksum", [False, True])
def test_c_and_numpy_decoders_agree_on_damaged_binlogs(tmp_path, monkeypatch, checksum):
    write_history(tmp_path, transactions=60, row_format=checksum, checksum=checksum, max_size=1 << 20, ddl_every=15)
    data = (tmp_path / "master-bin.000001").read_bytes()
    rng = random.Random(5 if checksum else 6)
    errors = 0
    for trial in range(250):
        bad = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            bad[rng.randrange(4, len(bad))] = rng.randrange(256)
        if trial % 5 == 0:
            del bad[rng.randrange(4, len(bad)):]
        path = tmp_path / f"bad{trial}.000001"
        path.write_bytes(bad)
        chunk, verify = rng.choice([512, 4096, 1 << 20]), rng.random() < 0.5
        c = outcome(monkeypatch, True, path, chunk, verify)
        assert c == outcome(monkeypatch, False, path, chunk, verify), (trial, chunk, verify)
        errors += isinstance(c, str)
        path.unlink()
    assert 0 < errors < 250  # both kinds of outcome were compared
