"""`semisync binlog --sql`: a binlog as SQL that the `mariadb` client replays, for point-in-time
recovery (`semisync binlog --sql --stop-datetime T FILE... | mariadb`).

The text follows mariadb-binlog's: `DELIMITER /*!*/;` first, so a statement may hold `;` (a stored
routine's body) and each statement ends in `/*!*/;`; before a statement the session it ran in
(`use db`, `SET TIMESTAMP`, pseudo_thread_id, the flags2 switches, sql_mode, auto_increment,
character sets and collations, time_zone, lc_time_names), printed when it changes; INTVAR, RAND
and USER_VAR as the `SET`s they stand for; a MariaDB GTID as mariadb-binlog's versioned
`gtid_domain_id` / `server_id` / `gtid_seq_no` and `START TRANSACTION` (BEGIN/COMMIT come as the
events they are, XID as COMMIT); DDL as it is.

Rows events become equivalent DML instead of mariadb-binlog's `BINLOG '...'` blocks: a WRITE_ROWS
row is an INSERT, an UPDATE_ROWS row `UPDATE ... SET <after image> WHERE <before image> LIMIT 1`,
a DELETE_ROWS row `DELETE ... WHERE <before image> LIMIT 1`, one statement per row in the event's
order (the order the server applied them). Values come from the applier's row decoder with the
table map's types, written as literals that give back the same stored value: integers with their
unsigned reading where the optional metadata says UNSIGNED, FLOAT/DOUBLE in Python's shortest
round-trip form, strings and blobs as X'..' (introduced by their column's character set where the
optional metadata names it, `_latin1 X'E9'`, so a target converts them to its own), TIMESTAMP in UTC under `time_zone='+00:00'`, ENUM/SET
as their numbers; `<=>` matches NULL. Column names come from the TABLE_MAP's optional metadata
(binlog_row_metadata=FULL): without them an INSERT of a whole row is positional, and an UPDATE or
DELETE cannot be written: that is an error naming the table and the setting, never a guess. A
LOAD DATA INFILE logged as its file's events (BEGIN_LOAD_QUERY, APPEND_BLOCK, EXECUTE_LOAD_QUERY)
is not written either: an error naming the event and its file_id. Rows run under sql_mode
NO_AUTO_VALUE_ON_ZERO (a stored 0 stays 0) with the event's foreign-key and unique-check flags,
as a replica applies them.

`--stop-datetime T` (local time, as mariadb-binlog reads it): output ends before the first event
whose timestamp is T or later; a transaction open there is rolled back. `--start-datetime`
skips the events before the first one stamped at or after its time, then prints every event (as
mariadb-binlog: a transaction's GTID has its commit's time, its first statements earlier ones).
`--start-position` and `--stop-position` cut the first and the last file, as for the other
outputs (byte offsets only: GTID positions, `--database`, `--gtid` and `--transactions` are the
printed outputs' filters). Damage ends the output with an error naming the file and offset,
after every complete statement before it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, BinaryIO

from binlog.reader import BinlogFileError, iter_events
from protocol.errors import ProtocolError
from protocol.events import (
    FL_STANDALONE,
    INTVAR_INSERT_ID,
    LOG_EVENT_SUPPRESS_USE_F,
    OPTION_NO_FOREIGN_KEY_CHECKS,
    USER_VAR_UNSIGNED_F,
    AnnotateRows,
    AppendBlock,
    Event,
    EventType,
    ExecuteLoadQuery,
    FormatDescription,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    Rows,
    TableMap,
    TableMapMetadata,
    UserVar,
    decode_event,
    decode_status_vars,
    table_map_metadata,
    user_var_value,
)
from protocol.messages import FieldType
from protocol.statements import query_kind, xa_kind
from slave.rows import (
    MISSING,
    RowChange,
    TableLayout,
    UnsupportedColumnType,
    as_unsigned,
    decode_rows,
    is_rows_event,
)

DELIMITER = b"/*!*/;\n"
# Query flags2 bits mariadb-binlog turns into session switches (MySQL's OPTION_* values).
_OPTION_AUTO_IS_NULL = 1 << 14
_OPTION_NOT_AUTOCOMMIT = 1 << 19
_OPTION_RELAXED_UNIQUE_CHECKS = 1 << 27
_OPTION_NO_CHECK_CONSTRAINT_CHECKS = 1 << 30
# Rows event flags.
_ROWS_NO_FOREIGN_KEY_CHECKS = 0x0002
_ROWS_RELAXED_UNIQUE_CHECKS = 0x0004
_ROW_SQL_MODE = "'NO_AUTO_VALUE_ON_ZERO'"
_ROWS_TIME_ZONE = b"SET @@session.time_zone='+00:00'"  # TIMESTAMP values are written in UTC
_INTS = {FieldType.TINY, FieldType.SHORT, FieldType.INT24, FieldType.LONG, FieldType.LONGLONG}
_CHARACTER = {FieldType.VARCHAR, FieldType.VAR_STRING, FieldType.BLOB}  # and STRING that is not ENUM/SET
# Character sets of the collations a USER_VAR or a column names, by collation id (MariaDB's
# numbering; MySQL 8.0's default utf8mb4_0900_ai_ci too). A string of another collation is
# written as bytes (X'..'), which the target stores as they are in its column's character set.
_COLLATIONS = {
    8: ("latin1", "latin1_swedish_ci"), 47: ("latin1", "latin1_bin"), 11: ("ascii", "ascii_general_ci"),
    33: ("utf8mb3", "utf8mb3_general_ci"), 83: ("utf8mb3", "utf8mb3_bin"), 192: ("utf8mb3", "utf8mb3_unicode_ci"),
    45: ("utf8mb4", "utf8mb4_general_ci"), 46: ("utf8mb4", "utf8mb4_bin"), 224: ("utf8mb4", "utf8mb4_unicode_ci"),
    63: ("binary", "binary"), 255: ("utf8mb4", "utf8mb4_0900_ai_ci"),
}


class SqlError(Exception):
    """An event the SQL output cannot express faithfully (named with its offset by the caller)."""


def quote_name(name: str) -> bytes:
    return b"`" + name.replace("`", "``").encode("utf-8", "surrogateescape") + b"`"


def literal(value: Any, code: int, meta: int, unsigned: bool, charset: str | None = None) -> bytes:
    """A row value as an SQL literal that stores the same value in a column of this type
    (`charset`: the character set a string column's bytes are in, as an introducer)."""
    if value is None:
        return b"NULL"
    if isinstance(value, bytes):
        return (b"_" + charset.encode() + b" " if charset else b"") + b"X'" + value.hex().upper().encode() + b"'"
    if code in _INTS:
        return str(as_unsigned(value, code) if unsigned else value).encode()
    if isinstance(value, float):
        return repr(value).encode()
    if isinstance(value, Decimal):
        return f"{value:f}".encode()
    if isinstance(value, int):  # YEAR, ENUM / SET numbers, BIT
        return str(value).encode()
    if isinstance(value, datetime.datetime):
        return f"'{value.isoformat(' ', 'microseconds')}'".encode()
    if isinstance(value, datetime.date):
        return f"'{value.isoformat()}'".encode()
    if isinstance(value, datetime.timedelta):
        sign = "-" if value < datetime.timedelta(0) else ""
        total = abs(value)
        seconds = total.days * 86400 + total.seconds
        return f"'{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}.{total.microseconds:06d}'".encode()
    if isinstance(value, str):  # zero dates
        return f"'{value}'".encode()
    raise SqlError(f"no SQL literal for a {type(value).__name__} in a column of type {code}")


class _Table:
    """A TABLE_MAP as the SQL output needs it."""

    def __init__(self, tm: TableMap) -> None:
        self.layout = TableLayout.from_table_map(tm)
        self.meta: TableMapMetadata = table_map_metadata(tm)
        self.name = quote_name(tm.db) + b"." + quote_name(tm.table)

        self.charsets = self._charsets()

    def _charsets(self) -> list[str | None]:
        """Per column, the character set of a character column's bytes where the optional
        metadata names a collation we know (None: binary, not a character column, or unknown)."""
        out: list[str | None] = []
        k = 0
        for code, meta in zip(self.layout.types, self.layout.meta, strict=True):
            character = code in _CHARACTER or (code == FieldType.STRING and meta >> 8 not in (FieldType.ENUM, FieldType.SET))
            if not character:
                out.append(None)
                continue
            collation = self.meta.collations.get(k, self.meta.default_collation)
            k += 1
            charset = _COLLATIONS.get(collation or 0, ("binary", ""))[0]
            out.append(None if charset == "binary" else charset)
        return out

    def values(self, row: tuple[Any, ...]) -> list[tuple[int, bytes]]:
        unsigned = self.meta.unsigned or (False,) * len(row)
        lay = self.layout
        return [(i, literal(v, lay.types[i], lay.meta[i], unsigned[i], self.charsets[i]))
                for i, v in enumerate(row) if v is not MISSING]

    def column(self, i: int) -> bytes:
        assert self.meta.names is not None
        return quote_name(self.meta.names[i])

    def statement(self, change: RowChange, event_name: str) -> bytes:
        if change.kind == "insert":
            assert change.after is not None
            values = self.values(change.after)
            if self.meta.names is not None:
                return (b"INSERT INTO " + self.name + b" (" + b", ".join(self.column(i) for i, _ in values)
                        + b") VALUES (" + b", ".join(v for _, v in values) + b")")
            if len(values) != len(change.after):
                raise SqlError(f"{event_name} for {self.layout.name} holds a partial row and the binlog has no "
                               "column names (the server that wrote it needs binlog_row_metadata=FULL)")
            return b"INSERT INTO " + self.name + b" VALUES (" + b", ".join(v for _, v in values) + b")"
        if self.meta.names is None:
            raise SqlError(f"{event_name} for {self.layout.name} needs column names and the binlog has none "
                           "(the server that wrote it needs binlog_row_metadata=FULL)")
        assert change.before is not None
        where = b" AND ".join(self.column(i) + b" <=> " + v for i, v in self.values(change.before))
        if change.kind == "delete":
            return b"DELETE FROM " + self.name + b" WHERE " + where + b" LIMIT 1"
        assert change.after is not None
        assignments = b", ".join(self.column(i) + b"=" + v for i, v in self.values(change.after))
        return b"UPDATE " + self.name + b" SET " + assignments + b" WHERE " + where + b" LIMIT 1"


class SqlWriter:
    """Events in order (one binlog stream, file after file) to SQL text. The session settings
    printed last are remembered, so each is printed again only when it changes."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.tables: dict[int, _Table] = {}
        self.session: dict[str, bytes] = {}
        self.in_transaction = False
        out.write(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n/*!40019 SET @@session.max_delayed_threads=0*/;\n"
                  b"/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
                  b"DELIMITER /*!*/;\n")

    def finish(self) -> None:
        """The end of the output: a transaction left open (the stop came inside it) is rolled back."""
        if self.in_transaction:
            self.out.write(b"ROLLBACK" + DELIMITER)
            self.in_transaction = False
        self.out.write(b"DELIMITER ;\n# End of log file\n"
                       b"/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n")

    def _set(self, key: str, text: bytes) -> None:
        """Print `text` unless it is the setting `key` already has."""
        if self.session.get(key) != text:
            self.session[key] = text
            self.out.write(text + DELIMITER)

    def event(self, offset: int, ev: Event) -> None:
        body = ev.body
        t = ev.type_code
        self.out.write(b"# at %d\n" % offset)
        if isinstance(body, Query):
            self._query(ev, body)
        elif t == EventType.XID_EVENT:
            self.out.write(b"COMMIT" + DELIMITER)
            self.in_transaction = False
        elif isinstance(body, MariaGtid):
            self._gtid(body, ev.header.server_id)
        elif isinstance(body, Intvar):
            name = b"INSERT_ID" if body.type == INTVAR_INSERT_ID else b"LAST_INSERT_ID"
            self.out.write(b"SET %s=%d" % (name, body.value) + DELIMITER)
        elif isinstance(body, Rand):
            self.out.write(b"SET @@RAND_SEED1=%d, @@RAND_SEED2=%d" % (body.seed1, body.seed2) + DELIMITER)
        elif isinstance(body, UserVar):
            self.out.write(b"SET @" + quote_name(body.name) + b":=" + _user_var(body) + DELIMITER)
        elif isinstance(body, TableMap):
            self.tables[body.table_id] = _Table(body)
        elif isinstance(body, Rows) and is_rows_event(t):
            self._rows(ev, body)
        elif isinstance(body, AppendBlock | ExecuteLoadQuery):  # (BEGIN_LOAD_QUERY is an AppendBlock)
            raise SqlError(f"LOAD DATA INFILE logged as its file's events ({ev.header.type_name}, file_id "
                           f"{body.file_id}): not written as SQL")
        elif isinstance(body, AnnotateRows):  # the statement the rows came from, as a comment
            self.out.write(b"".join(b"#Q> " + line.encode("utf-8", "surrogateescape") + b"\n"
                                    for line in body.query.splitlines()))

    def _timestamp(self, ev: Event, micro: int | None) -> None:
        stamp = b"%d" % ev.header.timestamp if micro is None else b"%d.%06d" % (ev.header.timestamp, micro)
        self._set("timestamp", b"SET TIMESTAMP=" + stamp)

    def _query(self, ev: Event, q: Query) -> None:
        status = decode_status_vars(q.status_vars)
        text = q.query.encode("utf-8", "surrogateescape")
        if q.db and not ev.header.flags & LOG_EVENT_SUPPRESS_USE_F:  # CREATE/DROP DATABASE: not the session's db
            self._set("db", b"use " + quote_name(q.db))
        self._timestamp(ev, status.microseconds)
        self._set("pseudo_thread_id", b"SET @@session.pseudo_thread_id=%d" % q.thread_id)
        if status.flags2 is not None:
            f = status.flags2
            self._set("flags2", b"SET @@session.foreign_key_checks=%d, @@session.sql_auto_is_null=%d, "
                      b"@@session.unique_checks=%d, @@session.autocommit=%d, @@session.check_constraint_checks=%d" % (
                          not f & OPTION_NO_FOREIGN_KEY_CHECKS, bool(f & _OPTION_AUTO_IS_NULL),
                          not f & _OPTION_RELAXED_UNIQUE_CHECKS, not f & _OPTION_NOT_AUTOCOMMIT,
                          not f & _OPTION_NO_CHECK_CONSTRAINT_CHECKS))
        if status.sql_mode is not None:
            self._set("sql_mode", b"SET @@session.sql_mode=%d" % status.sql_mode)
        if status.auto_increment_increment is not None:
            self._set("auto_increment", b"SET @@session.auto_increment_increment=%d, @@session.auto_increment_offset=%d"
                      % (status.auto_increment_increment, status.auto_increment_offset or 1))
        if status.charset_client is not None:
            self._set("charset", b"SET @@session.character_set_client=%d,@@session.collation_connection=%d,"
                      b"@@session.collation_server=%d" % (status.charset_client, status.collation_connection or 0,
                                                          status.collation_server or 0))
        if status.time_zone is not None:
            self._set("time_zone", b"SET @@session.time_zone='" + status.time_zone.encode() + b"'")
        elif self.session.get("time_zone") == _ROWS_TIME_ZONE:  # rows ran in UTC, this statement did not
            self._set("time_zone", b"SET @@session.time_zone=@@global.time_zone")
        if status.lc_time_names is not None:
            self._set("lc_time_names", b"SET @@session.lc_time_names=%d" % status.lc_time_names)
        if status.collation_database is not None:
            self._set("collation_database", b"SET @@session.collation_database=%d" % status.collation_database)
        elif self.session.get("collation_database") not in (None, b"SET @@session.collation_database=DEFAULT"):
            self._set("collation_database", b"SET @@session.collation_database=DEFAULT")
        self.out.write(text + b"\n" + DELIMITER)
        kind, xa = query_kind(text), xa_kind(text)
        if kind == "BEGIN" or xa in ("START", "BEGIN"):
            self.in_transaction = True
        elif kind in ("COMMIT", "ROLLBACK") or xa == "END":  # (XA END: no statement runs after it)
            self.in_transaction = False

    def _gtid(self, g: MariaGtid, server_id: int) -> None:
        self._set("gtid_domain_id", b"/*M!100001 SET @@session.gtid_domain_id=%d*/" % g.domain_id)
        self._set("server_id", b"/*M!100001 SET @@session.server_id=%d*/" % server_id)
        self.out.write(b"/*M!100001 SET @@session.gtid_seq_no=%d*/" % g.seq_no + DELIMITER)
        if not g.flags2 & FL_STANDALONE:
            self.out.write(b"START TRANSACTION" + DELIMITER)
            self.in_transaction = True

    def _rows(self, ev: Event, body: Rows) -> None:
        table = self.tables.get(body.table_id)
        if table is None:
            raise SqlError(f"{ev.header.type_name} for table_id {body.table_id} without its TABLE_MAP")
        self._timestamp(ev, None)
        self._set("sql_mode", b"SET @@session.sql_mode=" + _ROW_SQL_MODE.encode())
        self._set("time_zone", _ROWS_TIME_ZONE)
        fk = not body.flags & _ROWS_NO_FOREIGN_KEY_CHECKS
        unique = not body.flags & _ROWS_RELAXED_UNIQUE_CHECKS
        self._set("flags2", b"SET @@session.foreign_key_checks=%d, @@session.unique_checks=%d" % (fk, unique))
        for change in decode_rows(table.layout, ev.type_code, body):
            self.out.write(table.statement(change, ev.header.type_name) + DELIMITER)


def _user_var(body: UserVar) -> bytes:
    value = user_var_value(body)
    if value is None:
        return b"NULL"
    if isinstance(value, bytes | str):
        raw = body.value
        charset, collation = _COLLATIONS.get(body.charset, ("binary", "binary"))
        return (b"_" + charset.encode() + b" X'" + raw.hex().upper().encode() + b"' COLLATE "
                + quote_name(collation))
    if isinstance(value, int) and body.flags is not None and body.flags & USER_VAR_UNSIGNED_F:
        return b"CAST(%d AS UNSIGNED)" % value
    if isinstance(value, float):
        return repr(value).encode()
    return str(value).encode()


def file_events(path: Path) -> Iterator[tuple[int, Event]]:
    """(offset, decoded event) of one file, checksums per its FORMAT_DESCRIPTION."""
    checksum = False
    for offset, raw in iter_events(path):
        ev = decode_event(raw, checksum=checksum)
        if isinstance(ev.body, FormatDescription):
            checksum = ev.body.checksum
        yield offset, ev


def write_sql(files: Sequence[Path], out: BinaryIO, start_datetime: int | None = None, stop_datetime: int | None = None,
              start: int = 4, stop: int | None = None) -> str | None:
    """Print FILEs as SQL (see the module header): the first from offset `start`, the last up to
    the events that start before `stop`, the events from `start_datetime` and before
    `stop_datetime` (seconds since the epoch). Returns an error line, or None."""
    writer = SqlWriter(out)
    try:
        for n, path in enumerate(files):
            last_end = 4
            first, last = n == 0, n == len(files) - 1
            try:
                for offset, ev in file_events(path):
                    ts = ev.header.timestamp
                    if stop_datetime is not None and ts >= stop_datetime or last and stop is not None and offset >= stop:
                        return None
                    if start_datetime is not None and ts >= start_datetime:
                        start_datetime = None  # from the first event at the start on, every event
                    if (not first or offset >= start) and start_datetime is None:
                        writer.event(offset, ev)
                    last_end = offset + ev.header.event_size
            except BinlogFileError as e:
                return f"{path}: {e.message} (at offset {e.offset})"
            except (ProtocolError, UnsupportedColumnType) as e:
                return f"{path}: corrupt event at offset {last_end}: {getattr(e, 'message', e)}"
            except SqlError as e:
                return f"{path}: event at offset {last_end}: {e}"
            except OSError as e:
                return f"{path}: {e.strerror or e}"
        return None
    finally:
        writer.finish()
