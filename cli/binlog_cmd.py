"""`semisync binlog [--json] [-v] [--start-position N|GTIDS] [--stop-position N|GTIDS]
[--start-datetime T] [--stop-datetime T] [-d DB] [--gtid RANGES] [--transactions] FILE...`: decode
binlog and relay log files, like mysqlbinlog. The filters and `--transactions` are
`cli.binlog_filters`' (mariadb-binlog's semantics); with `--json` every event of a GTID group
carries the group's `gtid`.

`-v` adds each rows event's row images as `mariadb-binlog -v` prints them (`cli.row_images`;
`row_images` in JSON), decoding event by event. `--start-position` applies to the first file
(where an event must start; its FORMAT_DESCRIPTION is printed first), `--stop-position` to the
last (the events that start before it), as in mariadb-binlog. `--sql` prints SQL for
point-in-time recovery instead (`cli.binlog_sql`); `--remote HOST:PORT` reads a server's binlog
over a dump instead of files (`cli.binlog_remote`, event by event with this module's printers).

One line per event: offset, type, server id, size, end log_pos, timestamp, flags and the decoded
body as `key=value` (numbers as they are, text and lists as JSON values); with `--json` one JSON
object per line, the row `binlog.rows.event_row` defines (UTF-8, keys in the pipeline's column
order). Events are decoded by the pipeline's fast decoder (`pipeline.decode.decode_range`: the C
scanner, or its numpy fallback, and the reference decoder for the rare events), whose rows the
tests hold equal to the reference decoder's; lines are built a whole batch at a time with Arrow
compute functions, so nothing is per-event Python on the frequent path. Text that is not UTF-8
gets U+FFFD, as in the pipeline.

Checksums are detected from each file's FORMAT_DESCRIPTION_EVENT. A file that is not a binlog, or
is corrupt, gives one error line on stderr and a non-zero exit; every complete event before the
damage is still printed (the batch where the fast decoder found it is decoded again, event by
event, by the reference decoder up to the damage, which it names with its offset). A torn
trailing event is reported with the offset where the last complete event ends.
"""

from __future__ import annotations

import io
import json
import os
import sys
from functools import cache, partial
from pathlib import Path
from typing import Any, BinaryIO

import click
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlog.reader import BinlogFileError, iter_events, scan_file
from binlog.rows import event_row
from cli.binlog_filters import (
    DatetimeParam,
    FileFilter,
    GtidRangeParam,
    PositionParam,
    Selection,
    Summaries,
    selection_of,
)
from cli.binlog_sql import write_sql
from cli.row_images import json_value, text_lines
from pipeline.decode import (
    CORE_FIELDS,
    FAST_TYPES,
    decode_range,
    flat_row,
    scan_boundaries,
    source_row,
)
from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.events import EventType, FormatDescription, Rows, TableMap, decode_event, event_type
from slave.rows import TableLayout, UnsupportedColumnType, decode_rows, is_rows_event

# The header columns the text line shows before the body, with their labels.
_TEXT_HEADER = (("server_id", "server_id="), ("size", "size="), ("log_pos", "end_log_pos="), ("timestamp", "ts="))
_BODY_CORE = [name for name in CORE_FIELDS if name not in
              ("file", "pos", "size", "type_code", "type", "server_id", "timestamp", "log_pos", "flags")]
_FAST_CODES = pa.array(sorted(int(t) for t in FAST_TYPES), pa.int64())


# -- JSON values of whole columns -----------------------------------------------------------------
def _json_strings(column: pa.Array) -> pa.Array:
    """Each string of a column as a JSON string literal (null stays null), as `json.dumps(s,
    ensure_ascii=False)` writes it: quotes around the bytes, and the rows holding a byte JSON
    escapes (" \\ or a control character: rare in names and statements) through json.dumps."""
    quoted = pc.binary_join_element_wise('"', column, '"', "")
    bitmap, offsets, data = column.buffers()
    if data is None or not len(column):
        return quoted
    bounds = np.frombuffer(offsets, dtype=np.int32, count=len(column) + 1, offset=column.offset * 4)
    raw = np.frombuffer(data, dtype=np.uint8)[bounds[0] : bounds[-1]]
    hits = np.flatnonzero(_ESCAPED[raw])
    if not len(hits):
        return quoted
    rows = np.unique(np.searchsorted(bounds, hits + bounds[0], side="right") - 1)
    fixed = pa.array([json.dumps(v, ensure_ascii=False) for v in column.take(pa.array(rows)).to_pylist()], pa.string())
    odd = np.zeros(len(column), dtype=bool)
    odd[rows] = True
    picks = np.zeros(len(column), dtype=np.int64)
    picks[rows] = np.arange(len(rows))
    return pc.if_else(pa.array(odd), fixed.take(pa.array(picks)), quoted)


# The bytes a JSON string literal escapes.
_ESCAPED = np.zeros(256, dtype=bool)
_ESCAPED[:0x20] = True
_ESCAPED[[ord('"'), ord("\\")]] = True


def _values(batch: pa.RecordBatch, name: str) -> pa.Array:
    """A column's values as JSON text (null where the row has no such key)."""
    column = batch.column(name)
    if pa.types.is_string(column.type):
        return _json_strings(column)
    if name in _WIDE:  # the unsigned binlog value of a wrapped int64
        column = pc.cast(column, pa.uint64(), safe=False)
    return pc.cast(column, pa.string())


_WIDE = {"xid"}  # the int columns whose binlog values can exceed 2**63 - 1


def _keyed(prefix: str, batch: pa.RecordBatch, name: str) -> pa.Array:
    """prefix + value in the rows that have this key, null in the others."""
    return pc.binary_join_element_wise(prefix, _values(batch, name), "")


def _lines(parts: list[Any]) -> memoryview:
    """The rows of element-wise concatenated parts (a null part counts as empty), each ending in
    a newline, as one block."""
    lines = pc.binary_join_element_wise(*parts, "\n", "", null_handling="replace", null_replacement="")
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=len(lines) + 1, offset=lines.offset * 4)
    return memoryview(lines.buffers()[2])[offsets[0] : offsets[-1]]


_ALWAYS = ("pos", "size", "type_code", "type", "server_id", "timestamp", "log_pos", "flags")  # in every row


def json_block(batch: pa.RecordBatch, file: str) -> memoryview:
    """`--json` lines of a batch: each row's keys in the pipeline's column order, then `details`'
    keys (their JSON as the decoder wrote it)."""
    parts: list[Any] = ['{"file":' + json.dumps(file, ensure_ascii=False)]
    for name in CORE_FIELDS[1:]:
        if name == "type":  # type names need no escaping
            parts += [',"type":"', batch.column(name), '"']
        elif name in _ALWAYS:
            parts += [f',"{name}":', _values(batch, name)]
        else:
            parts.append(_keyed(f',"{name}":', batch, name))
    parts += [pc.binary_join_element_wise(",", pc.utf8_slice_codeunits(batch.column("details"), 1, -1), ""), "}"]
    return _lines(parts)


@cache
def _hex_flags() -> pa.Array:
    return pa.array([f"{flags:#06x}" for flags in range(1 << 16)], pa.string())


def _text_details(batch: pa.RecordBatch) -> pa.Array:
    """`details` as `key=value` words: rewritten in place for the fast events (numbers and lists
    of numbers only), through json for the others."""
    details = batch.column("details")
    words = pc.replace_substring_regex(details, r'(^\{|,)"([a-z0-9_]+)":', r" \2=")
    words = pc.utf8_slice_codeunits(pc.utf8_ltrim(words, " "), 0, -1)
    other = pc.and_(pc.invert(pc.is_in(batch.column("type_code"), _FAST_CODES)), pc.is_valid(details))
    if pc.any(other).as_py():
        texts = [_words(json.loads(d)) if o else None
                 for d, o in zip(details.to_pylist(), other.to_pylist(), strict=True)]
        words = pc.if_else(other, pa.array(texts, pa.string()), words)
    return words


def _words(fields: dict[str, Any]) -> str:
    return " ".join(f"{k}={json.dumps(v, ensure_ascii=False, separators=(',', ':'))}" for k, v in fields.items())


def text_block(batch: pa.RecordBatch, file: str) -> memoryview:
    """Text lines of a batch: `# at POS  TYPE  server_id=..  size=..  end_log_pos=..  ts=..
    flags=0x....  key=value ...`."""
    parts: list[Any] = ["# at ", _values(batch, "pos"), "  ", batch.column("type")]
    for name, label in _TEXT_HEADER:
        parts += ["  ", label, _values(batch, name)]
    parts += ["  flags=", _hex_flags().take(batch.column("flags"))]
    details = _text_details(batch)
    has_body = pc.is_valid(details)
    for name in _BODY_CORE:
        has_body = pc.or_(has_body, pc.is_valid(batch.column(name)))
    parts.append(pc.if_else(has_body, " ", ""))
    parts += [_keyed(f" {name}=", batch, name) for name in _BODY_CORE]
    parts.append(pc.binary_join_element_wise(" ", details, ""))
    return _lines(parts)


# -- one file ---------------------------------------------------------------------------------
def _reference_line(
    path: Path, offset: int, ev: Any, as_json: bool, extra: dict[str, Any] | None = None,
    source: dict[str, Any] | None = None,
) -> bytes:
    """One event's line through the reference decoder (where the fast decoder found damage, and
    for `-v`); `extra`: keys after the row's (`row_images`); `source`: its source row when
    already made (with the gtid of its group)."""
    row = flat_row(source if source is not None else source_row(event_row(str(path), offset, ev)))
    if as_json:
        line = json.dumps({**row, **(extra or {})}, ensure_ascii=False, separators=(",", ":"))
    else:
        body = {k: v for k, v in row.items() if k not in ("file", "pos", "type_code", "type", "flags", *dict(_TEXT_HEADER))}
        line = (f"# at {offset}  {row['type']}  " + "  ".join(f"{label}{row[name]}" for name, label in _TEXT_HEADER)
                + f"  flags={row['flags']:#06x}" + (f"  {_words(body)}" if body else ""))
    return line.encode("utf-8", "replace") + b"\n"


def event_lines(
    path: Path, offset: int, ev: Any, as_json: bool, changed: tuple[TableLayout, list[Any]] | None,
    source: dict[str, Any] | None = None,
) -> bytes:
    """An event's line, and (`changed`: -v) its row images."""
    if changed is None:
        return _reference_line(path, offset, ev, as_json, source=source)
    layout, rows = changed
    if as_json:
        return _reference_line(path, offset, ev, True, {"row_images": [json_value(layout, c) for c in rows]}, source)
    return _reference_line(path, offset, ev, False, source=source) + b"".join(text_lines(layout, c) for c in rows)


class RowImages:
    """`-v`: the table maps seen so far, and a rows event's changed rows decoded with them."""

    def __init__(self) -> None:
        self.layouts: dict[int, TableLayout] = {}

    def changes(self, ev: Any) -> tuple[TableLayout, list[Any]] | None:
        body = ev.body
        if isinstance(body, TableMap):
            self.layouts[body.table_id] = TableLayout.from_table_map(body)
        elif isinstance(body, Rows) and is_rows_event(ev.type_code):
            layout = self.layouts.get(body.table_id)
            if layout is None:
                raise RemoteProtocolError(f"{ev.header.type_name} for table_id {body.table_id} without its TABLE_MAP")
            return layout, decode_rows(layout, ev.type_code, body)
        return None


def _reference_tail(
    path: Path, start: int, as_json: bool, out: BinaryIO, found: str | None, verbose: bool = False,
    stop: int | None = None, view: FileFilter | None = None,
) -> str | None:
    """Print the events from `start` (a boundary) with the reference decoder (and, `verbose`,
    the row images of rows events, as mariadb-binlog -v) up to the damage the fast decoder found
    after it (`found`); returns the error line naming it (None: the file is clean)."""
    checksum = False
    last_end = 4
    images = RowImages() if verbose else None
    events = view or FileFilter(Selection(), as_json, start)
    try:
        for offset, raw in iter_events(path):
            if stop is not None and offset >= stop:
                return None if found is None else f"{path}: corrupt data before offset {stop}: {found}"
            if offset < start:
                if event_type(raw) == EventType.FORMAT_DESCRIPTION_EVENT:
                    fd = decode_event(raw, checksum=False).body
                    checksum = isinstance(fd, FormatDescription) and fd.checksum
                last_end = offset + len(raw)
                continue
            ev = decode_event(raw, checksum=checksum)
            if isinstance(ev.body, FormatDescription):
                checksum = ev.body.checksum
            changed = images.changes(ev) if images is not None else None
            if events.needed:
                out.write(events.push(source_row(event_row(str(path), offset, ev)),
                                      partial(event_lines, path, offset, ev, as_json, changed)))
            else:
                out.write(event_lines(path, offset, ev, as_json, changed))
            last_end = offset + len(raw)
    except BinlogFileError as e:
        return f"{path}: {e.message} (at offset {e.offset})"
    except (ProtocolError, UnsupportedColumnType) as e:
        return f"{path}: corrupt event at offset {last_end}: {getattr(e, 'message', e)}"
    finally:
        out.write(events.flush())
    result = scan_file(path)
    if result.torn:
        return (
            f"{path}: torn event at the end: the last complete event ends at offset "
            f"{result.last_complete_end}, the file has {result.size} bytes"
        )
    if found is None and result.last_complete_end >= result.size:
        return None
    return f"{path}: corrupt data at offset {result.last_complete_end}: {result.error or found}"


def decode_file(
    path: Path, as_json: bool, out: BinaryIO, verbose: bool = False, start: int = 4, stop: int | None = None,
    selection: Selection | None = None, transactions: bool = False,
) -> str | None:
    """Print the events of one file that start in [start, stop) (`verbose`: and the row images,
    event by event with the reference decoder). Returns an error line, or None if the file is
    clean there. `start` must be where an event starts; past 4, the file's FORMAT_DESCRIPTION is
    printed first, as mariadb-binlog does."""
    view = FileFilter(selection or Selection(), as_json, start)
    try:
        checksum = False
        if start > 4:
            boundary, checksum = scan_boundaries(str(path), 4, start, every=None, crc=False)[-1]
            if boundary != start:
                return f"{path}: no event starts at --start-position {start} (the events before it end at {boundary})"
            # the file's FORMAT_DESCRIPTION first, as mariadb-binlog prints it: what the events are read by
            if not transactions:
                error = _reference_tail(path, 4, as_json, out, None, stop=5)
                if error is not None:
                    return error
        if verbose and not transactions:
            return _reference_tail(path, start, as_json, out, None, verbose=True, stop=stop, view=view)
        summaries = Summaries(path) if transactions else None
        block = json_block if as_json else text_block
        try:
            for batch in view.batches(decode_range(str(path), str(path), start, stop, checksum)):
                out.write(summaries.lines(batch, as_json) if summaries is not None else block(batch, str(path)))
        finally:
            if summaries is not None:
                out.write(summaries.finish(as_json))
    except BinlogFileError as e:
        if e.offset == 0 or verbose:
            return f"{path}: {e.message} (at offset {e.offset})"
        _write_released(view, out, as_json, path)
        sink = io.BytesIO() if transactions else out  # --transactions: only the error line
        return _reference_tail(path, view.decoded_end, as_json, sink, e.message, stop=stop, view=view)
    except BrokenPipeError:
        raise
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    bound = path.stat().st_size if stop is None else min(stop, path.stat().st_size)
    if view.decoded_end < bound and not view.selection.done:  # a torn tail, or damage the fast decoder stopped at quietly
        _write_released(view, out, as_json, path)
        sink = io.BytesIO() if transactions else out
        return _reference_tail(path, view.decoded_end, as_json, sink, None if stop is not None else "not an event",
                               stop=stop, view=view)
    return None


def _write_released(view: FileFilter, out: BinaryIO, as_json: bool, path: Path) -> None:
    """Print the rows the filter held back before the reference decoder takes over."""
    released = view.release()
    if released is not None:
        out.write((json_block if as_json else text_block)(released, str(path)))


@click.command(name="binlog")
@click.option("--json", "as_json", is_flag=True, help="one JSON object per event and line")
@click.option("-v", "--verbose", is_flag=True,
              help="row images of rows events, as mariadb-binlog -v (`row_images` with --json)")
@click.option("-j", "--start-position", type=PositionParam(), default=4,
              help="start at this offset of the first FILE (where an event starts), or after this GTID list")
@click.option("--stop-position", type=PositionParam(), default=None,
              help="print the events of the last FILE that start before this offset, or up to this GTID list")
@click.option("--start-datetime", type=DatetimeParam(), default=None,
              help="from the first event at or after this local date and time (mariadb-binlog's)")
@click.option("--stop-datetime", type=DatetimeParam(), default=None,
              help="stop at the first event at or after this local date and time")
@click.option("-d", "--database", default=None, help="only the statements and row events of this database (as -d)")
@click.option("--gtid", "gtids", type=GtidRangeParam(), multiple=True,
              help="transactions in this GTID range: D-S-N, D-S-N..D-S-N, D-S-N.., ..D-S-N (both ends included)")
@click.option("--transactions", is_flag=True,
              help="one line per transaction: GTID or position range, tables, rows changed, size")
@click.option("--sql", "as_sql", is_flag=True,
              help="SQL that `mariadb` replays (point-in-time recovery): statements, rows events as DML")
@click.option("--remote", metavar="HOST:PORT", default=None,
              help="read a live server's binlog as a replica does, from FILE (default: its first) to its last file")
@click.option("--user", default="root", show_default=True, help="with --remote: the account")
@click.option("--password", default="", help="with --remote: its password")
@click.option("--stop-never", is_flag=True, help="with --remote: keep following new events (else end at its binlog's end)")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
def command(as_json: bool, verbose: bool, start_position: Any, stop_position: Any, start_datetime: int | None,
            stop_datetime: int | None, database: str | None, gtids: tuple[Any, ...], transactions: bool,
            as_sql: bool, remote: str | None, user: str, password: str, stop_never: bool,
            files: tuple[Path, ...]) -> None:
    """Decode binlog and relay log FILEs (like mysqlbinlog), or a server's binlog (--remote)."""
    failed = False
    out = click.get_binary_stream("stdout")
    selection, start_position, stop_position = selection_of(
        start_position, stop_position, start_datetime, stop_datetime, database, gtids)
    if remote is None and (not files or stop_never):
        raise click.UsageError("FILE... is required without --remote (and --stop-never needs --remote)")
    # --remote and --sql read event by event: of the filters, they take byte offsets (and --sql datetimes)
    filtered = database is not None or transactions or selection.gtids is not None
    if remote is not None and (len(files) > 1 or stop_position is not None or filtered
                               or start_datetime is not None or stop_datetime is not None):
        raise click.UsageError("--remote reads from one FILE (the first to read) to the server's last, from "
                               "--start-position N; --stop-position, --start/--stop-datetime, --database, "
                               "--gtid and --transactions apply to files")
    if as_sql and filtered:
        raise click.UsageError("--sql takes --start/--stop-position N and --start/--stop-datetime; "
                               "not --database, --gtid, GTID positions or --transactions")
    try:
        if remote is not None:
            # imported here: it prints with this module's printers
            from cli.binlog_remote import print_remote, remote_events
            events = remote_events(remote, user, password, files[0].name if files else None, start_position, stop_never)
            error = print_remote(events, as_json, verbose, as_sql, out)
            out.flush()
            if error is not None:
                click.echo(f"semisync binlog: {error}", err=True)
                sys.exit(1)
            return
        if as_sql:
            error = write_sql(files, out, start_datetime, stop_datetime, start_position, stop_position)
            out.flush()
            if error is not None:
                click.echo(f"semisync binlog: {error}", err=True)
                sys.exit(1)
            return
        for n, path in enumerate(files):
            if selection.done:
                break
            start = start_position if n == 0 else 4
            stop = stop_position if n == len(files) - 1 else None
            error = decode_file(path, as_json, out, verbose, start, stop, selection, transactions)
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

