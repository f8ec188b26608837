"""`semisync binlog`'s event filters and `--transactions`, as mariadb-binlog (10.11) selects events.

- `--start-datetime`/`--stop-datetime` (local time, the DATETIME forms MariaDB accepts, date and
  time both required): events are skipped until the first one stamped at or after the start
  (from then on every event is printed, as mariadb-binlog does so that a clock that went back
  does not cut a transaction), and reading ends, over all files, at the first event stamped at
  or after the stop. A FORMAT_DESCRIPTION is always printed (what the events are read by).
- `--database DB` (mariadb-binlog -d): a QUERY whose default database is another one is left
  out (BEGIN, COMMIT, ROLLBACK, SAVEPOINT and XA statements are kept, they frame transactions),
  a TABLE_MAP of a table in another database is left out with the rows events of its table id,
  and an ANNOTATE_ROWS with them when every TABLE_MAP of its statement is left out. Every other
  event is printed (GTID, XID, the file's own events).
- GTID ranges (MariaDB files: a transaction is a GTID group, see `pipeline.decode.gtid_groups`):
  a start list (`--start-position=D-S-N,...`: per domain, the transactions after N) and a stop
  list (`--stop-position=D-S-N,...`: per domain, up to and including N; the transactions of a
  domain it does not name are left out; reading ends at the first GTID after every domain of
  the list reached its stop, or that goes past the stop of the last one). `--gtid RANGES` is the
  same with both ends inclusive: `0-1-5..0-1-9`, `0-1-7`, open ends `0-1-5..` and `..0-1-9`,
  one range per domain (comma-separated, or one option each); a domain given with an open upper
  end is read to the end even when others have a stop. Events outside GTID groups are printed.
  The GTID's server id is not compared: mariadb-binlog compares domain and sequence number only.
- `--transactions`: one line per transaction instead of one per event (`summaries`).

`Selection.decide(batch)` keeps its state from batch to batch and file to file (`new_file()`);
it decides every row but the trailing ANNOTATE_ROWS and TABLE_MAPs whose fate depends on events
not read yet (`--database`), which the caller hands in again in front of the next batch
(`FileFilter` does, for the fast decoder's batches and event by event).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from binlog.reader import file_checksum
from binlog.rows import TABLE_IN_SQL
from pipeline.decode import (
    ARROW_SCHEMA,
    GTID,
    QUERY,
    TABLE_MAP,
    OpenGroup,
    gtid_groups,
    with_gtids,
)
from protocol.errors import ProtocolError
from protocol.events import EventType, Rows, TableMap, decode_event
from protocol.gtid import GtidPosition, parse_gtid_list
from protocol.statements import BEGIN_SQL, TRANSACTION_END_SQL
from slave.rows import TableLayout, UnsupportedColumnType, decode_rows, is_rows_event

FORMAT_DESCRIPTION = EventType.FORMAT_DESCRIPTION_EVENT
ANNOTATE = EventType.ANNOTATE_ROWS_EVENT
XID = EventType.XID_EVENT
_ROWS_CODES = np.array([is_rows_event(code) for code in range(256)], dtype=bool)
# Statements that frame a transaction: --database keeps them (MariaDB's is_trans_keyword).
_TRANS_KEYWORD = r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|XA\s)"


# -- option values ------------------------------------------------------------------------------
# MariaDB's DATETIME text: a date (year, month, day) and a time (hours, minutes, seconds and an
# optional fraction), any punctuation between the parts, or the parts run together as digits.
_DELIMITED = re.compile(
    r"^\s*(\d{2}|\d{4})[^\w\s](\d{1,2})[^\w\s](\d{1,2})(?:[T ]+|[^\w\s])(\d{1,2})[^\w\s](\d{1,2})[^\w\s](\d{1,2})(?:\.(\d{1,6}))?\s*$"
)
_DIGITS = re.compile(r"^\s*(\d{4}|\d{2})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:\.(\d{1,6}))?\s*$")


def parse_datetime(text: str) -> int:
    """A DATETIME argument in the local time zone as seconds since the epoch (mariadb-binlog:
    "Incorrect date and time argument" when the date or the time is missing)."""
    m = _DELIMITED.match(text) or _DIGITS.match(text)
    if m is None:
        raise ValueError(f"Incorrect date and time argument: {text}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    year_text = m.group(1)
    if len(year_text) == 2:  # MariaDB's two-digit years: 70-99 are 19xx, 00-69 20xx
        year += 1900 if year >= 70 else 2000
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 59):
        raise ValueError(f"Incorrect date and time argument: {text}")
    return int(time.mktime((year, month, day, hour, minute, second, 0, 0, -1)))


class DatetimeParam(click.ParamType):
    name = "DATETIME"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            return value
        try:
            return parse_datetime(value)
        except ValueError as e:
            self.fail(str(e), param, ctx)


class PositionParam(click.ParamType):
    """mariadb-binlog's --start-position/--stop-position: an offset (at least 4) or a GTID list."""

    name = "N|GTID-LIST"

    def convert(self, value: Any, param: Any, ctx: Any) -> int | GtidPosition:
        if isinstance(value, (int, GtidPosition)):
            return value
        text = str(value).strip()
        if text.isdigit():
            if int(text) < 4:
                self.fail(f"{text} is not in the range x>=4.", param, ctx)
            return int(text)
        try:
            return GtidPosition.parse(text)
        except ProtocolError as e:
            self.fail(f"{text!r} is neither an offset nor a GTID list: {e.message}", param, ctx)


@dataclass(frozen=True)
class GtidRange:
    """`--gtid`: per domain, the first and the last sequence number (a domain missing: open)."""

    first: dict[int, int] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)


class GtidRangeParam(click.ParamType):
    """`--gtid`: comma-separated ranges, each `D-S-N`, `D-S-N..D-S-N` (one domain), `D-S-N..`
    or `..D-S-N`."""

    name = "RANGES"

    def convert(self, value: Any, param: Any, ctx: Any) -> GtidRange:
        if isinstance(value, GtidRange):
            return value
        text = str(value).strip()
        first: dict[int, int] = {}
        last: dict[int, int] = {}
        for item in text.split(","):
            low, dots, high = item.strip().partition("..")
            if not dots:
                high = low
            try:
                lows, highs = parse_gtid_list(low.strip()), parse_gtid_list(high.strip())
            except ProtocolError:
                lows = highs = ()
            domains = {g.domain_id for g in (*lows, *highs)}
            if len(lows) > 1 or len(highs) > 1 or len(domains) != 1:
                self.fail(f"{text!r}: expected D-S-N, D-S-N..D-S-N, D-S-N.. or ..D-S-N, comma-separated", param, ctx)
            domain = domains.pop()
            if domain in first or domain in last:
                self.fail(f"{text!r}: domain {domain} given twice", param, ctx)
            if lows:
                first[domain] = lows[0].seq_no
            if highs:
                last[domain] = highs[0].seq_no
            if lows and highs and lows[0].seq_no > highs[0].seq_no:
                self.fail(f"{text!r}: the range of domain {domain} is empty", param, ctx)
        return GtidRange(first, last)


def gtid_bounds(ranges: tuple[GtidRange, ...], start: GtidPosition | None, stop: GtidPosition | None
                ) -> tuple[dict[int, int] | None, dict[int, int] | None, frozenset[int]]:
    """The start (exclusive) and stop (inclusive) sequence numbers per domain, from `--gtid`
    ranges or from GTID-list positions (not both), and the --gtid domains without a stop."""
    if ranges and (start is not None or stop is not None):
        raise click.UsageError("--gtid cannot be combined with a GTID --start-position/--stop-position")
    if not ranges:
        return ({g.domain_id: g.seq_no for g in start} if start is not None else None,
                {g.domain_id: g.seq_no for g in stop} if stop is not None else None, frozenset())
    after: dict[int, int] = {}
    upto: dict[int, int] = {}
    for r in ranges:
        for domain in r.first.keys() | r.last.keys():
            if domain in after or domain in upto:
                raise click.UsageError(f"--gtid: domain {domain} given twice")
        after.update({d: max(seq - 1, 0) for d, seq in r.first.items()})
        upto.update(r.last)
    return after or None, upto or None, frozenset(after.keys() - upto.keys())


def selection_of(start_position: int | GtidPosition, stop_position: int | GtidPosition | None,
                 start_datetime: int | None, stop_datetime: int | None, database: str | None,
                 ranges: tuple[GtidRange, ...]) -> tuple[Selection, int, int | None]:
    """The command's options as a Selection, and the start and stop offsets (4 and None where
    the positions are GTID lists)."""
    start = start_position if isinstance(start_position, GtidPosition) else None
    stop = stop_position if isinstance(stop_position, GtidPosition) else None
    after, upto, unbounded = gtid_bounds(ranges, start, stop)
    selection = Selection(start_datetime, stop_datetime, database, after, upto, unbounded)
    return (selection, 4 if start is not None else int(start_position),  # type: ignore[arg-type]
            None if stop is not None or stop_position is None else int(stop_position))  # type: ignore[arg-type]


# -- the selection ------------------------------------------------------------------------------
@dataclass
class _GtidRule:
    """The GTID start/stop lists and what was seen of the stop domains."""

    after: dict[int, int] | None
    upto: dict[int, int] | None
    unbounded: frozenset[int] = frozenset()  # --gtid domains without an upper end
    reached: set[int] = field(default_factory=set)

    def _all_reached(self) -> bool:
        return not self.unbounded and self.upto is not None and self.reached >= self.upto.keys()

    def take(self, gtid: str) -> bool | None:
        """Keep this transaction? None: reading ends here."""
        domain_text, _, rest = gtid.partition("-")
        domain, seq = int(domain_text), int(rest.rpartition("-")[2])
        if self.upto is not None:
            if self._all_reached():  # every domain of the list is at its stop
                return None
            stop = self.upto.get(domain)
            if stop is None:
                if domain not in self.unbounded:
                    return False
            elif seq > stop:
                self.reached.add(domain)
                return None if self._all_reached() else False
            elif seq == stop:
                self.reached.add(domain)
        if self.after is not None and domain in self.after:
            return seq > self.after[domain]
        return True


class Selection:
    """Which events to print (see the module contract)."""

    def __init__(self, start_datetime: int | None = None, stop_datetime: int | None = None,
                 database: str | None = None, gtid_after: dict[int, int] | None = None,
                 gtid_upto: dict[int, int] | None = None, gtid_unbounded: frozenset[int] = frozenset()) -> None:
        self.start_datetime = start_datetime
        self.stop_datetime = stop_datetime
        self.database = database
        self.gtids = _GtidRule(gtid_after, gtid_upto, gtid_unbounded) if gtid_after is not None or gtid_upto is not None else None
        self.done = False  # a stop condition was met: nothing more is printed
        self._group: OpenGroup | None = None
        self._group_kept = True
        self._skipped_tables: set[int] = set()

    @property
    def active(self) -> bool:
        return (self.start_datetime is not None or self.stop_datetime is not None or self.database is not None
                or self.gtids is not None)

    def new_file(self) -> None:
        """The next file starts: no GTID group is open."""
        self._group = None
        self._group_kept = True

    def decide(self, batch: pa.RecordBatch, final: bool = True) -> np.ndarray:
        """The keep mask of the first rows of `batch` that can be decided now (all of them when
        `final`: nothing follows in this file); see the module contract."""
        n = batch.num_rows
        if self.done:
            return np.zeros(n, dtype=bool)
        tcode = batch.column("type_code").to_numpy(zero_copy_only=False)
        decided = n if final else self._decidable(tcode)
        batch, tcode = batch.slice(0, decided), tcode[:decided]
        keep = np.ones(decided, dtype=bool)
        stop_at = decided
        ts = batch.column("timestamp").to_numpy(zero_copy_only=False)
        if self.start_datetime is not None:
            late = np.flatnonzero((ts >= self.start_datetime) & (tcode != FORMAT_DESCRIPTION))
            first = int(late[0]) if len(late) else decided
            keep[:first] &= tcode[:first] == FORMAT_DESCRIPTION
            if len(late):
                self.start_datetime = None
        if self.stop_datetime is not None:
            late = np.flatnonzero(ts >= self.stop_datetime)
            if len(late):
                stop_at = int(late[0])
        if self.gtids is not None:
            stop_at = min(stop_at, self._gtid_mask(batch, keep))
        else:
            self._group = gtid_groups(batch, self._group)[2]
        if self.database is not None:
            keep &= self._database_mask(batch, tcode)
        if stop_at < decided:
            keep[stop_at:] = False
            self.done = True
        return keep

    @staticmethod
    def _decidable(tcode: np.ndarray) -> int:
        """Rows up to a trailing ANNOTATE_ROWS followed only by TABLE_MAPs (their fate under
        --database depends on what follows)."""
        n = len(tcode)
        at = n
        while at > 0 and tcode[at - 1] == TABLE_MAP:
            at -= 1
        return at - 1 if at > 0 and tcode[at - 1] == ANNOTATE else n

    def _gtid_mask(self, batch: pa.RecordBatch, keep: np.ndarray) -> int:
        """Leave out the rows of the transactions the GTID lists leave out; returns the row
        where reading ends (len(batch): not in this batch)."""
        assert self.gtids is not None
        group, gtids, after = gtid_groups(batch, self._group)
        verdicts = np.ones(len(gtids), dtype=bool)
        verdicts[0] = self._group_kept
        stop_at = batch.num_rows
        starts = np.flatnonzero(batch.column("type_code").to_numpy(zero_copy_only=False) == GTID)
        for k, gtid in enumerate(gtids.to_pylist()[1:], start=1):
            verdict = self.gtids.take(gtid) if gtid is not None else True
            if verdict is None:
                stop_at = int(starts[k - 1])
                break
            verdicts[k] = verdict
        inside = group >= 0
        keep[inside] &= verdicts[group[inside]]
        self._group = after
        if after is not None:
            self._group_kept = bool(verdicts[-1]) if len(gtids) > 1 else self._group_kept
        return stop_at

    def _database_mask(self, batch: pa.RecordBatch, tcode: np.ndarray) -> np.ndarray:
        db = pc.fill_null(batch.column("db"), "")
        same_db = pc.equal(db, self.database).to_numpy(zero_copy_only=False)
        framing = pc.fill_null(pc.match_substring_regex(batch.column("query"), _TRANS_KEYWORD, ignore_case=True), False)
        keep = ~((tcode == QUERY) & ~same_db & ~framing.to_numpy(zero_copy_only=False))
        mapped = np.flatnonzero((tcode == TABLE_MAP) | _ROWS_CODES[tcode])
        table_ids = batch.column("table_id").to_numpy(zero_copy_only=False)
        for i in mapped.tolist():  # table maps and rows events, in order
            table_id = int(table_ids[i])
            if tcode[i] == TABLE_MAP:
                if same_db[i]:
                    self._skipped_tables.discard(table_id)
                else:
                    self._skipped_tables.add(table_id)
                    keep[i] = False
            elif table_id in self._skipped_tables:
                keep[i] = False
        for i in np.flatnonzero(tcode == ANNOTATE).tolist():  # with the TABLE_MAPs after it
            j = i + 1
            maps_kept = False
            while j < len(tcode) and tcode[j] == TABLE_MAP:
                maps_kept |= bool(keep[j])
                j += 1
            keep[i] = maps_kept or j == i + 1  # an ANNOTATE without a TABLE_MAP after it stays
        return keep


class FileFilter:
    """One file's events as `semisync binlog` prints them: with the GTID of every event of a
    group (`gtids`: --json) and only the events the selection keeps.

    `batches(decoded)` filters the fast decoder's batches (rows whose fate is still open are held
    back and decided with the next batch); `decoded_end` is where the last decoded event ends,
    filtered or not. Where the reference decoder takes over (`-v`, and the events before damage),
    `release()` gives the held rows as they are decided now, and `push(row, render)` goes on
    event by event from the same state: it returns the output of the events decided so far
    (`render(row)`: an event's output from its row, gtid set), `flush()` the rest at the end."""

    def __init__(self, selection: Selection, gtids: bool, start: int) -> None:
        self.selection = selection
        self.gtids = gtids
        self.carry: OpenGroup | None = None
        self.held: pa.RecordBatch | None = None
        self.pending: list[tuple[dict[str, Any], Callable[[dict[str, Any]], bytes]]] = []
        self.decoded_end = start
        selection.new_file()

    @property
    def needed(self) -> bool:
        return self.gtids or self.selection.active

    def batches(self, decoded: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in decoded:
            if not batch.num_rows:
                continue
            self.decoded_end = batch.column("pos")[-1].as_py() + batch.column("size")[-1].as_py()
            if self.gtids:
                batch, self.carry = with_gtids(batch, self.carry)
            if not self.selection.active:
                yield batch
                continue
            if self.held is not None:
                batch = pa.Table.from_batches([self.held, batch]).combine_chunks().to_batches()[0]
            keep = self.selection.decide(batch, final=False)
            self.held = batch.slice(len(keep)) if len(keep) < batch.num_rows else None
            if keep.any():
                yield batch.slice(0, len(keep)).filter(pa.array(keep))
            if self.selection.done:
                return
        released = self.release()
        if released is not None:
            yield released

    def release(self) -> pa.RecordBatch | None:
        """The held rows that the selection keeps, decided as if nothing followed them."""
        held, self.held = self.held, None
        if held is None:
            return None
        keep = self.selection.decide(held)
        return held.filter(pa.array(keep)) if keep.any() else None

    def push(self, row: dict[str, Any], render: Callable[[dict[str, Any]], bytes]) -> bytes:
        if self.gtids:
            one, self.carry = with_gtids(pa.RecordBatch.from_pylist([row], schema=ARROW_SCHEMA), self.carry)
            merged = {**row, "gtid": one.column("gtid")[0].as_py()}
            row = {name: merged[name] for name in ARROW_SCHEMA.names if merged.get(name) is not None}
        self.pending.append((row, render))
        return self._decide(final=False)

    def flush(self) -> bytes:
        return self._decide(final=True)

    def _decide(self, final: bool) -> bytes:
        if not self.selection.active:
            keep = np.ones(len(self.pending), dtype=bool)
        else:
            batch = pa.RecordBatch.from_pylist([row for row, _ in self.pending], schema=ARROW_SCHEMA)
            keep = self.selection.decide(batch, final=final)
        out = b"".join(render(row) for (row, render), kept in zip(self.pending, keep, strict=False) if kept)
        del self.pending[: len(keep)]
        return out


# -- --transactions -----------------------------------------------------------------------------
@dataclass
class _Transaction:
    file: str
    start: int
    gtid: str | None
    timestamp: int
    end: int = 0
    events: int = 0
    size: int = 0
    rows: int = 0
    statements: int = 0
    tables: list[str] = field(default_factory=list)

    def json_line(self) -> str:
        return json.dumps({"file": self.file, "start": self.start, "end": self.end, "gtid": self.gtid,
                           "timestamp": self.timestamp, "events": self.events, "size": self.size,
                           "tables": self.tables, "rows": self.rows, "statements": self.statements},
                          ensure_ascii=False, separators=(",", ":"))

    def text_line(self) -> str:
        where = f"{self.file}:{self.start}-{self.end}"
        return (f"{self.gtid or '-'}  {where}  ts={self.timestamp}  events={self.events}  size={self.size}"
                f"  rows={self.rows}  statements={self.statements}  tables={','.join(self.tables) or '-'}")


class Summaries:
    """`--transactions`: the events of one file summed up per transaction (a GTID group; in a
    file without GTIDs, BEGIN up to its XID/COMMIT/ROLLBACK, or a statement on its own).
    Rows changed are counted by decoding the rows events with their TABLE_MAPs (read again from
    the file by offset); tables are those of the TABLE_MAPs and those statements name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.done: list[_Transaction] = []
        self.current: _Transaction | None = None
        self.layouts: dict[int, TableLayout] = {}
        self.file = open(path, "rb")  # noqa: SIM115 (closed by close())
        self.checksum = file_checksum(path)  # its FORMAT_DESCRIPTION's, also when reading starts past it
        self._open: OpenGroup | None = None

    def close(self) -> None:
        self.file.close()

    def lines(self, batch: pa.RecordBatch, as_json: bool) -> bytes:
        """The lines of the transactions that ended in this batch."""
        self._add(batch)
        return self._take(as_json)

    def _take(self, as_json: bool) -> bytes:
        done, self.done = self.done, []
        return b"".join((t.json_line() if as_json else t.text_line()).encode("utf-8", "replace") + b"\n" for t in done)

    def _add(self, batch: pa.RecordBatch) -> None:
        cols = batch.select(["pos", "size", "type_code", "timestamp", "db", "query", "details"]).to_pydict()
        group, gtid_array, self._open = gtid_groups(batch, self._open)
        gtids = gtid_array.to_pylist()
        n = batch.num_rows
        for i in range(n):
            pos, size, code = cols["pos"][i], cols["size"][i], cols["type_code"][i]
            if code == FORMAT_DESCRIPTION:
                self.checksum = bool(json.loads(cols["details"][i] or "{}").get("checksum"))
            in_group = group[i] >= 0
            query = cols["query"][i] if code == QUERY else None
            begins = query is not None and re.match(BEGIN_SQL, query, re.I) is not None
            txn = self.current
            if code == GTID or (txn is None and not in_group and begins):
                self._finish()
                gtid = gtids[group[i]] if in_group else None
                txn = self.current = _Transaction(self.path.name, pos, gtid, cols["timestamp"][i])
            elif txn is None:
                if not in_group and query is None and code not in (TABLE_MAP, ANNOTATE) and not _ROWS_CODES[code]:
                    continue  # the file's own events (FORMAT_DESCRIPTION, ROTATE, ...)
                txn = self.current = _Transaction(self.path.name, pos, None, cols["timestamp"][i])
            txn.events += 1
            txn.size += size
            txn.end = pos + size
            if code == TABLE_MAP or _ROWS_CODES[code]:
                self._rows_event(txn, pos, size)
            elif query is not None and not re.match(_TRANS_KEYWORD, query, re.I):
                txn.statements += 1
                self._statement_table(txn, query, cols["db"][i])
            if in_group:  # the group ends where the next row is outside it
                closes = group[i + 1] != group[i] if i + 1 < n else self._open is None
            else:
                closes = code == XID or (query is not None and (
                    re.match(TRANSACTION_END_SQL, query, re.I) is not None or (not begins and txn.events == 1)))
            if closes:
                self._finish()

    @staticmethod
    def _statement_table(txn: _Transaction, query: str, db: str | None) -> None:
        """The table a statement names (in its default database when unqualified)."""
        if m := re.match(TABLE_IN_SQL, query):
            name = m.group(1).replace("`", "")
            name = name if "." in name or not db else f"{db}.{name}"
            if name not in txn.tables:
                txn.tables.append(name)

    def _rows_event(self, txn: _Transaction, pos: int, size: int) -> None:
        self.file.seek(pos)
        try:
            ev = decode_event(self.file.read(size), checksum=self.checksum)
        except ProtocolError:
            return  # the decoder already printed this event; damage is reported by it
        body = ev.body
        if isinstance(body, TableMap):
            self.layouts[body.table_id] = layout = TableLayout.from_table_map(body)
            name = f"{layout.db}.{layout.table}"
            if name not in txn.tables:
                txn.tables.append(name)
        elif isinstance(body, Rows) and body.table_id in self.layouts:
            try:
                txn.rows += len(decode_rows(self.layouts[body.table_id], ev.type_code, body))
            except (ProtocolError, UnsupportedColumnType):
                pass
            if body.flags & 1:  # STMT_END_F: the last rows event of a statement
                txn.statements += 1

    def _finish(self) -> None:
        if self.current is not None:
            self.done.append(self.current)
        self.current = None

    def finish(self, as_json: bool) -> bytes:
        """The end of the file: the lines left, a transaction still open as far as it goes."""
        self._finish()
        self.close()
        return self._take(as_json)
