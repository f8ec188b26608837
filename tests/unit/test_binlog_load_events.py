"""The binlog tools on a MariaDB master's LOAD DATA INFILE events (golden bytes of
tests/unit/test_events.py): `semisync binlog` names each with its file_id (and the block's length,
the statement), in text and JSON alike, as the pipeline's rows; `--sql` stops at them with an
error naming the event, never leaving the file's rows out silently."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner

from cli.binlog_cmd import command
from cli.binlog_sql import write_sql
from protocol.events import BINLOG_MAGIC
from tests.unit.test_events import GOLDEN

LOAD_EVENTS = ("BEGIN_LOAD_QUERY_EVENT", "APPEND_BLOCK_EVENT", "EXECUTE_LOAD_QUERY_EVENT", "DELETE_FILE_EVENT")


def binlog_file(tmp_path):
    path = tmp_path / "master-bin.000001"
    path.write_bytes(BINLOG_MAGIC + GOLDEN["FORMAT_DESCRIPTION_EVENT"] + b"".join(GOLDEN[name] for name in LOAD_EVENTS))
    return path


def test_semisync_binlog_names_the_load_events_with_their_file(tmp_path):
    path = binlog_file(tmp_path)
    text = CliRunner().invoke(command, [str(path)])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()[1:]
    assert [line.split()[3] for line in lines] == list(LOAD_EVENTS)
    assert lines[0].endswith("file_id=2 block_len=6") and lines[1].endswith("file_id=1 block_len=7")
    assert "query=\"LOAD DATA INFILE '/tmp/loadev/cap/files/a.txt' REPLACE INTO TABLE `t`" in lines[2]
    assert "file_id=1 fn_pos_start=9 fn_pos_end=59 dup_handling=2" in lines[2]
    assert lines[3].endswith("file_id=2")
    as_json = CliRunner().invoke(command, ["--json", str(path)])
    rows = [json.loads(line) for line in as_json.output.splitlines()[1:]]
    assert [(row["type"], row["file_id"]) for row in rows] == list(zip(LOAD_EVENTS, (2, 1, 1, 2), strict=True))
    assert rows[2]["db"] == "l" and rows[0]["block_len"] == 6


def test_binlog_sql_stops_at_a_load_with_an_error_naming_it(tmp_path):
    out = io.BytesIO()
    error = write_sql([binlog_file(tmp_path)], out)
    assert error is not None and "LOAD DATA INFILE logged as its file's events (BEGIN_LOAD_QUERY_EVENT, file_id 2)" in error
