"""`semisync binlog [--json] FILE...`: decode binlog and relay log files, like mysqlbinlog.

One line per event: offset, type, server id, size, end log_pos and the decoded body; with `--json`
one JSON object per line. Checksums are detected from each file's FORMAT_DESCRIPTION_EVENT. A file
that is not a binlog, or is corrupt, gives one error line on stderr and a non-zero exit (the
events before the damage are still printed); a torn trailing event is reported with the offset
where the last complete event ends.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

from binlog.reader import BinlogFileError, iter_events, scan_file
from binlog.rows import describe, event_row
from protocol.errors import ProtocolError
from protocol.events import Event, EventType, FormatDescription, decode_event


def _text_line(ev: Event, offset: int, fields: dict[str, Any]) -> str:
    h = ev.header
    body = " ".join(f"{k}={v!r}" if isinstance(v, str) else f"{k}={v}" for k, v in fields.items())
    return (
        f"# at {offset}  {h.type_name}  server_id={h.server_id}  size={h.event_size}  "
        f"end_log_pos={h.log_pos}  ts={h.timestamp}  flags={h.flags:#06x}  {body}".rstrip()
    )


def decode_file(path: Path, as_json: bool, out: Any) -> str | None:
    """Print every event of one file. Returns an error line, or None if the file is clean."""
    checksum = False
    last_end = 4
    try:
        for offset, raw in iter_events(path):
            ev = decode_event(raw, checksum=checksum)
            if ev.type_code == EventType.FORMAT_DESCRIPTION_EVENT and isinstance(ev.body, FormatDescription):
                checksum = ev.body.checksum
            if as_json:
                out.write(json.dumps(event_row(str(path), offset, ev), default=str) + "\n")
            else:
                out.write(_text_line(ev, offset, describe(ev)) + "\n")
            last_end = offset + len(raw)
    except BinlogFileError as e:
        return f"{path}: {e.message} (at offset {e.offset})"
    except ProtocolError as e:
        return f"{path}: corrupt event at offset {last_end}: {e.message}"
    except BrokenPipeError:
        raise
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    size = path.stat().st_size
    if last_end < size:
        result = scan_file(path)
        if result.torn:
            return (
                f"{path}: torn event at the end: the last complete event ends at offset "
                f"{result.last_complete_end}, the file has {size} bytes"
            )
        return f"{path}: corrupt data at offset {result.last_complete_end}: {result.error}"
    return None


@click.command(name="binlog")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per event and line")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
def command(as_json: bool, files: tuple[Path, ...]) -> None:
    """Decode binlog and relay log FILEs (like mysqlbinlog)."""
    failed = False
    out = click.get_text_stream("stdout")
    try:
        for path in files:
            error = decode_file(path, as_json, out)
            if error is not None:
                out.flush()
                click.echo(f"semisync binlog: {error}", err=True)
                failed = True
        out.flush()
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, as mysqlbinlog does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    if failed:
        sys.exit(1)
