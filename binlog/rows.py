"""One event as a flat row: the fields `semisync binlog --json` prints and the pipeline's `binlog`
data source yields (shared, so the two can never disagree).

`event_row(file, offset, event)` is the row: where the event is (`file`, `pos`), its header
(`size`, `type_code`, `type`, `server_id`, `timestamp`, `log_pos`, `flags`) and `describe(event)`,
the decoded fields of its body (only the keys that apply to its type, JSON-ready values).
`ROW_FIELDS` lists every key a row can have, in a fixed order, with its value type.
"""

from __future__ import annotations

from typing import Any

from protocol.events import (
    AnnotateRows,
    AppendBlock,
    BinlogCheckpoint,
    DeleteFile,
    Event,
    ExecuteLoadQuery,
    FormatDescription,
    GtidList,
    Heartbeat,
    Intvar,
    MariaGtid,
    Query,
    Rand,
    Rotate,
    Rows,
    TableMap,
    UserVar,
    Xid,
)

# The table a statement writes (INSERT/REPLACE/UPDATE/DELETE, CREATE/ALTER/DROP/TRUNCATE TABLE):
# group 1, maybe `db`.`table` with its backquotes; the first one of a multi-table statement.
TABLE_IN_SQL = (
    r"(?i)^\s*(?:INSERT\s+(?:IGNORE\s+)?INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM|"
    r"(?:CREATE|ALTER|DROP|TRUNCATE)\s+TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+`?([\w.$`]+)"
)

# Every key of a row and its value type ("int", "str", "bool", "list[int]", "list[str]").
ROW_FIELDS: dict[str, str] = {
    "file": "str",
    "pos": "int",
    "size": "int",
    "type_code": "int",
    "type": "str",
    "server_id": "int",
    "timestamp": "int",
    "log_pos": "int",
    "flags": "int",
    "db": "str",
    "query": "str",
    "thread_id": "int",
    "exec_time": "int",
    "error_code": "int",
    "sql_mode": "int",
    "xid": "int",
    "next_file": "str",
    "next_pos": "int",
    "gtid": "str",
    "flags2": "int",
    "commit_id": "int",
    "gtid_list": "list[str]",
    "checkpoint_file": "str",
    "binlog_version": "int",
    "server_version": "str",
    "checksum": "bool",
    "intvar_type": "str",
    "value": "int",
    "seed1": "int",
    "seed2": "int",
    "name": "str",
    "is_null": "bool",
    "var_type": "int",
    "charset": "int",
    "value_hex": "str",
    "table_id": "int",
    "table": "str",
    "column_types": "list[int]",
    "rows_flags": "int",
    "log_ident": "str",
    "file_id": "int",
    "block_len": "int",
    "fn_pos_start": "int",
    "fn_pos_end": "int",
    "dup_handling": "int",
}

INTVAR_NAMES = {1: "LAST_INSERT_ID", 2: "INSERT_ID"}


def describe(ev: Event) -> dict[str, Any]:
    """The decoded fields of an event's body, as JSON-ready values."""
    b = ev.body
    if isinstance(b, Query | ExecuteLoadQuery):
        st = b.status
        out: dict[str, Any] = {"db": b.db, "query": b.query, "thread_id": b.thread_id, "exec_time": b.exec_time, "error_code": b.error_code}
        if st.sql_mode is not None:
            out["sql_mode"] = st.sql_mode
        if isinstance(b, ExecuteLoadQuery):  # (the file's name in `query`: bytes fn_pos_start to fn_pos_end)
            out.update(file_id=b.file_id, fn_pos_start=b.fn_pos_start, fn_pos_end=b.fn_pos_end,
                       dup_handling=b.dup_handling)
        return out
    if isinstance(b, AppendBlock):  # (and BEGIN_LOAD_QUERY): a LOAD DATA file's block
        return {"file_id": b.file_id, "block_len": len(b.block)}
    if isinstance(b, DeleteFile):
        return {"file_id": b.file_id}
    if isinstance(b, Xid):
        return {"xid": b.xid}
    if isinstance(b, Rotate):
        return {"next_file": b.next_file, "next_pos": b.position}
    if isinstance(b, MariaGtid):
        out = {"gtid": b.gtid(ev.header.server_id), "flags2": b.flags2}
        if b.commit_id is not None:
            out["commit_id"] = b.commit_id
        return out
    if isinstance(b, GtidList):
        return {"gtid_list": [str(g) for g in b.gtids]}
    if isinstance(b, BinlogCheckpoint):
        return {"checkpoint_file": b.file}
    if isinstance(b, AnnotateRows):
        return {"query": b.query}
    if isinstance(b, FormatDescription):
        return {"binlog_version": b.binlog_version, "server_version": b.server_version, "checksum": b.checksum}
    if isinstance(b, Intvar):
        return {"intvar_type": INTVAR_NAMES.get(b.type, str(b.type)), "value": b.value}
    if isinstance(b, Rand):
        return {"seed1": b.seed1, "seed2": b.seed2}
    if isinstance(b, UserVar):
        return {"name": b.name, "is_null": b.is_null, "var_type": b.type, "charset": b.charset, "value_hex": b.value.hex()}
    if isinstance(b, TableMap):
        return {"table_id": b.table_id, "db": b.db, "table": b.table, "column_types": list(b.column_types)}
    if isinstance(b, Rows):
        return {"table_id": b.table_id, "rows_flags": b.flags}
    if isinstance(b, Heartbeat):
        return {"log_ident": b.log_ident}
    return {}


def event_row(file: str, offset: int, ev: Event) -> dict[str, Any]:
    """The row of one event found at `offset` of `file` (what `semisync binlog --json` prints)."""
    h = ev.header
    return {
        "file": file, "pos": offset, "size": h.event_size, "type_code": h.type_code,
        "type": h.type_name, "server_id": h.server_id, "timestamp": h.timestamp,
        "log_pos": h.log_pos, "flags": h.flags, **describe(ev),
    }
