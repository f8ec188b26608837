"""`semisync binlog --remote HOST:PORT [--user --password --stop-never] [FILE]`: read a live
server's binlog as a replica does (`mariadb-binlog --read-from-remote-server --to-last-log`),
MariaDB's or ours, and print it as the files would print (text, `--json`, `-v`, `--sql`).

The connection asks what a MariaDB replica asks before its dump (`@master_binlog_checksum` set to
the server's `binlog_checksum`, so events arrive as they are in the files, CRC32 included, and
`@mariadb_slave_capability`, so MariaDB sends its GTID events as they are), then COM_BINLOG_DUMP
asking for MariaDB's ANNOTATE_ROWS events (as mariadb-binlog does)
from FILE (default: the first of SHOW BINARY LOGS) at `--start-position`, with
BINLOG_DUMP_NON_BLOCK unless `--stop-never`: the server sends up to the end of its last file and
an EOF; with `--stop-never` the dump follows new commits until the server closes it or the reader
is interrupted. No COM_REGISTER_SLAVE: the reader is not a replica the server lists.

Each event is placed where it is in its file: offset = log_pos - event_size (the FORMAT_DESCRIPTION
a dump from past offset 4 sends first, with log_pos 0, is the file's own at 4, printed first as
for files). The artificial events
a dump adds (LOG_EVENT_ARTIFICIAL_F or log_pos 0: the ROTATE naming the file the dump is in,
MariaDB's GTID_LIST of a GTID dump) and heartbeats are not printed; a ROTATE only switches the file
name the following events are printed under. A dump that fails (an ERR from the server, a lost
connection, a bad checksum) ends the output with the error and a non-zero exit, after every event
before it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO

from binlog.rows import event_row
from cli.binlog_cmd import RowImages, event_lines
from cli.binlog_filters import FileFilter, Selection
from cli.binlog_sql import SqlError, SqlWriter
from cli.client import Client, ClientError
from pipeline.decode import source_row
from protocol.errors import ProtocolError
from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    Event,
    EventType,
    FormatDescription,
    Rotate,
    decode_event,
    set_log_pos,
)
from protocol.messages import BINLOG_DUMP_NON_BLOCK, BINLOG_SEND_ANNOTATE_ROWS_EVENT
from slave.rows import UnsupportedColumnType

MARIADB_SLAVE_CAPABILITY = 4  # MARIA_SLAVE_CAPABILITY_GTID: every MariaDB event as it is
# The server_id the dump announces, as mariadb-binlog's: 0 for a dump that ends, and its
# --stop-never-slave-server-id default for one that follows (a server drops an older dump with
# the same id).
_DUMP_SERVER_ID = {True: 0, False: 65535}


class RemoteError(Exception):
    """The server refused, or the dump failed."""


def _address(remote: str) -> tuple[str, int]:
    host, _, port = remote.rpartition(":")
    if not host or not port.isdigit():
        raise RemoteError(f"--remote {remote!r}: expected HOST:PORT")
    return host, int(port)


def remote_events(remote: str, user: str, password: str, first: str | None, start: int,
                  stop_never: bool) -> Iterator[tuple[str, int, Event]]:
    """(file, offset, decoded event) of each event in the server's binlog files, from `first`
    (None: the first file) at `start`; RemoteError when the server refuses or the dump fails."""
    host, port = _address(remote)
    try:
        client = Client(host, port, user, password, timeout=30.0)
    except ClientError as e:
        raise RemoteError(str(e)) from None
    with client:
        try:
            if first is None:
                _, rows = client.query("SHOW BINARY LOGS")
                if not rows:
                    raise RemoteError(f"{remote} has no binary logs (is log_bin on?)")
                first = str(rows[0][0])
            client.query("SET @master_binlog_checksum= @@global.binlog_checksum")
            _, rows = client.query("SELECT @master_binlog_checksum")
            checksum = bool(rows) and str(rows[0][0] or "").upper() == "CRC32"
            client.query(f"SET @mariadb_slave_capability={MARIADB_SLAVE_CAPABILITY}")
            file = first
            flags = BINLOG_SEND_ANNOTATE_ROWS_EVENT | (0 if stop_never else BINLOG_DUMP_NON_BLOCK)
            for raw in client.binlog_dump(first, start, _DUMP_SERVER_ID[not stop_never], flags):
                ev = decode_event(raw, checksum=checksum)
                if isinstance(ev.body, FormatDescription):
                    checksum = ev.body.checksum
                    if not ev.header.log_pos:  # a dump from past 4 sends the file's FD with log_pos 0
                        ev = decode_event(set_log_pos(raw, 4 + ev.header.event_size, checksum=True), checksum=False)
                header = ev.header
                if isinstance(ev.body, Rotate) and (header.flags & LOG_EVENT_ARTIFICIAL_F or not header.log_pos):
                    file = ev.body.next_file
                    continue
                if (header.flags & LOG_EVENT_ARTIFICIAL_F or not header.log_pos
                        or ev.type_code in (EventType.HEARTBEAT_LOG_EVENT, EventType.HEARTBEAT_LOG_EVENT_V2)):
                    continue
                yield file, header.log_pos - header.event_size, ev
        except ClientError as e:
            raise RemoteError(f"{remote}: {e}") from None
        except ProtocolError as e:
            raise RemoteError(f"{remote}: corrupt event in the dump: {e.message}") from None


def print_remote(events: Iterator[tuple[str, int, Event]], as_json: bool, verbose: bool, as_sql: bool,
                 out: BinaryIO) -> str | None:
    """Print the events as `semisync binlog` prints files (each file's events through a
    `FileFilter`, which gives --json's rows their group's GTID); returns an error line, or None."""
    sql = SqlWriter(out) if as_sql else None
    images = RowImages() if verbose else None
    current: tuple[str, FileFilter] | None = None
    try:
        for file, offset, ev in events:
            if sql is not None:
                sql.event(offset, ev)
                continue
            if current is None or current[0] != file:
                if current is not None:
                    out.write(current[1].flush())
                current = file, FileFilter(Selection(), as_json, 4)
            view = current[1]
            path = Path(file)
            changed = images.changes(ev) if images is not None else None
            render = partial(event_lines, path, offset, ev, as_json, changed)
            out.write(view.push(source_row(event_row(file, offset, ev)), render) if view.needed else render())
            out.flush()
    except RemoteError as e:
        return str(e)
    except (ProtocolError, UnsupportedColumnType) as e:
        return f"corrupt event in the dump: {getattr(e, 'message', e)}"
    except SqlError as e:
        return str(e)
    except KeyboardInterrupt:  # the way a --stop-never reading ends
        return "interrupted"
    finally:
        if current is not None:
            out.write(current[1].flush())
        if sql is not None:
            sql.finish()
    return None
