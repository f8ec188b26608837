"""`SHOW BINLOG EVENTS` and `SHOW RELAYLOG EVENTS`: the rows MySQL shows for the events of one
binlog-format file (a binlog, or a relay log: the same layout).

Contract: `binlog_event_rows(path, name, start, limit, offset, end)` reads the file (up to `end`,
the published end position when the file is the active binlog; never past it) and returns MySQL's
columns Log_name, Pos, Event_type, Server_id, End_log_pos, Info (MariaDB's names and words for
its GTID, GTID_LIST and BINLOG_CHECKPOINT events), described as MariaDB describes them
(`EVENT_COLUMNS`). Runs in a worker thread.
"""

from __future__ import annotations

from pathlib import Path

from binlog.reader import file_checksum, iter_events
from protocol.errors import ProtocolError
from protocol.events import (
    FL_STANDALONE,
    INTVAR_INSERT_ID,
    EventType,
    decode_event,
    decode_header,
)
from protocol.messages import FieldType, show_number, show_text

# MariaDB 10.11's definitions of the six columns (Log_event::init_show_field_list)
EVENT_COLUMNS = (show_text("Log_name", 20), show_number("Pos", FieldType.LONGLONG, 21, unsigned=True),
                 show_text("Event_type", 20), show_number("Server_id", FieldType.LONG, 10, unsigned=True),
                 show_number("End_log_pos", FieldType.LONGLONG, 21, unsigned=True), show_text("Info", 20))

_NAMES: dict[int, str] = {
    EventType.QUERY_EVENT: "Query",
    EventType.STOP_EVENT: "Stop",
    EventType.ROTATE_EVENT: "Rotate",
    EventType.INTVAR_EVENT: "Intvar",
    EventType.RAND_EVENT: "RAND",
    EventType.USER_VAR_EVENT: "User var",
    EventType.FORMAT_DESCRIPTION_EVENT: "Format_desc",
    EventType.XID_EVENT: "Xid",
    EventType.HEARTBEAT_LOG_EVENT: "Heartbeat",
    EventType.GTID_EVENT: "Gtid",
    EventType.GTID_LIST_EVENT: "Gtid_list",
    EventType.BINLOG_CHECKPOINT_EVENT: "Binlog_checkpoint",
}


def _info(event) -> str:
    code, body = event.type_code, event.body
    if code == EventType.QUERY_EVENT:
        return f"use `{body.db}`; {body.query}" if body.db else body.query
    if code == EventType.XID_EVENT:
        return f"COMMIT /* xid={body.xid} */"
    if code == EventType.ROTATE_EVENT:
        return f"{body.next_file};pos={body.position}"
    if code == EventType.FORMAT_DESCRIPTION_EVENT:
        return f"Server ver: {body.server_version}, Binlog ver: {body.binlog_version}"
    if code == EventType.INTVAR_EVENT:
        return f"{'INSERT_ID' if body.type == INTVAR_INSERT_ID else 'LAST_INSERT_ID'}={body.value}"
    if code == EventType.RAND_EVENT:
        return f"rand_seed1={body.seed1},rand_seed2={body.seed2}"
    if code == EventType.GTID_EVENT:  # MariaDB's words: a transaction's GTID "BEGIN"s it
        gtid = body.gtid(event.header.server_id)
        return f"GTID {gtid}" if body.flags2 & FL_STANDALONE else f"BEGIN GTID {gtid}"
    if code == EventType.GTID_LIST_EVENT:
        return "[" + ",".join(str(g) for g in body.gtids) + "]"
    if code == EventType.BINLOG_CHECKPOINT_EVENT:
        return body.file
    return ""


def binlog_event_rows(
    path: Path, name: str, start: int, limit: int | None, offset: int, end: int | None
) -> list[tuple]:
    checksum = file_checksum(path)
    rows: list[tuple] = []
    skipped = 0
    for pos, raw in iter_events(path, start, end):
        if skipped < offset:
            skipped += 1
            continue
        if limit is not None and len(rows) >= limit:
            break
        try:
            info = _info(decode_event(raw, checksum=checksum))
        except ProtocolError as e:
            info = f"(undecodable: {e.message})"
        header = decode_header(raw)  # a whole event: its header always decodes
        type_code = header.type_code
        rows.append((
            name,
            pos,
            _NAMES.get(type_code, EventType(type_code).name if type_code in EventType._value2member_map_ else str(type_code)),
            header.server_id,
            header.log_pos,
            info,
        ))
    return rows
