"""A synthetic change history written with `binlog.BinlogWriter`: for demos, tests and the benchmark.

`write_history(directory, ...)` appends `transactions` transactions to a binlog (`basename.000001`,
... rotated at `max_size`), like a MariaDB master in ROW or STATEMENT format would: a GTID event,
BEGIN, then per statement a TABLE_MAP + rows event (ROW) or an INTVAR + QUERY (STATEMENT), then an
XID; every `ddl_every`-th transaction is a standalone DDL QUERY instead. Commit timestamps advance
by `rate` commits per second from `start_time`. Bodies are encoded once and patched per
transaction, so hundreds of megabytes take seconds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from binlog.writer import BinlogWriter
from protocol.events import (
    FL_ALLOW_PARALLEL,
    FL_DDL,
    FL_STANDALONE,
    FL_TRANSACTIONAL,
    GTID_FIELD_AT,
    EventType,
    Intvar,
    MariaGtid,
    Query,
    Rows,
    TableMap,
    encode_status_vars,
)
from protocol.position import BinlogPosition

SERVER_VERSION = "10.11.19-semisync-log"
TABLES = ("orders", "customers", "items")
_STATUS = encode_status_vars(flags2=0, sql_mode=1411383296, catalog="std", charset=(33, 33, 8))
_ROW_IMAGE_LEN = 40
_GTID_FLAGS = FL_STANDALONE | FL_TRANSACTIONAL | FL_ALLOW_PARALLEL  # 0x0D, as MariaDB writes an autocommit DML


@dataclass(frozen=True, slots=True)
class Transaction:
    """What was written for one transaction: its end position, commit timestamp and statements."""

    end: BinlogPosition
    timestamp: int
    statements: int


def _query(sql: str, db: str = "shop") -> bytes:
    return Query(thread_id=7, exec_time=0, error_code=0, db=db, query=sql, status_vars=_STATUS).encode()


def write_history(
    directory: Path | str,
    *,
    transactions: int,
    basename: str = "master-bin",
    server_id: int = 1,
    checksum: bool = True,
    max_size: int = 16 << 20,
    row_format: bool = True,
    statements_per_transaction: int = 2,
    ddl_every: int = 500,
    start_time: int = 1_700_000_000,
    rate: int = 200,
    seed: int = 7,
) -> list[Transaction]:
    """Write the history (see the module docstring); returns one `Transaction` per transaction."""
    rng = random.Random(seed)
    gtid_body = bytearray(MariaGtid(seq_no=0, domain_id=0, flags2=_GTID_FLAGS).encode())
    seq_at, flags2_at = GTID_FIELD_AT["seq_no"], GTID_FIELD_AT["flags2"]
    begin = _query("BEGIN")
    table_maps = [
        TableMap(table_id=20 + i, flags=1, db="shop", table=t, column_types=bytes([3, 15, 3, 12]),
                 metadata=b"\x00\x01", null_bitmap=b"\x0e").encode()
        for i, t in enumerate(TABLES)
    ]
    rows_kinds = (EventType.WRITE_ROWS_EVENT, EventType.UPDATE_ROWS_EVENT, EventType.DELETE_ROWS_EVENT)
    # rows event bodies: the post-header (table id, STMT_END_F, no extra data) + column count and
    # bitmap, then the row image appended per statement
    rows_heads = {(k, t): Rows(k, 20 + t, 1, b"\x04\x0f").encode() for k in rows_kinds for t in range(len(TABLES))}
    statements = {
        EventType.WRITE_ROWS_EVENT: "INSERT INTO shop.{t} VALUES ({k}, 'x', 1, NOW())",
        EventType.UPDATE_ROWS_EVENT: "UPDATE shop.{t} SET qty = qty + 1 WHERE id = {k}",
        EventType.DELETE_ROWS_EVENT: "DELETE FROM shop.{t} WHERE id = {k}",
    }
    out: list[Transaction] = []
    with BinlogWriter(directory, basename, server_id=server_id, checksum=checksum, max_size=max_size,
                      server_version=SERVER_VERSION) as w:
        for n in range(transactions):
            ts = start_time + n // rate
            seq = n + 1
            if ddl_every and seq % ddl_every == 0:
                gtid_body[seq_at : seq_at + 8] = seq.to_bytes(8, "little")
                gtid_body[flags2_at] = FL_STANDALONE | FL_DDL
                specs = [
                    (EventType.GTID_EVENT, bytes(gtid_body), ts, 0),
                    (EventType.QUERY_EVENT, _query(f"CREATE TABLE IF NOT EXISTS shop.t{seq} (id INT)"), ts, 0),
                ]
                gtid_body[flags2_at] = _GTID_FLAGS
                count = 1
            else:
                gtid_body[seq_at : seq_at + 8] = seq.to_bytes(8, "little")
                specs = [(EventType.GTID_EVENT, bytes(gtid_body), ts, 0), (EventType.QUERY_EVENT, begin, ts, 0)]
                count = statements_per_transaction
                for _ in range(count):
                    t = rng.randrange(len(TABLES))
                    kind = rows_kinds[rng.randrange(3)]
                    key = rng.randrange(1 << 20)
                    if row_format:
                        image = key.to_bytes(4, "little") + rng.randbytes(_ROW_IMAGE_LEN - 4)
                        rows = rows_heads[(kind, t)] + image
                        specs += [(EventType.TABLE_MAP_EVENT, table_maps[t], ts, 0), (kind, rows, ts, 0)]
                    else:
                        sql = statements[kind].format(t=TABLES[t], k=key)
                        if kind == EventType.WRITE_ROWS_EVENT:
                            specs.append((EventType.INTVAR_EVENT, Intvar(2, key).encode(), ts, 0))
                        specs.append((EventType.QUERY_EVENT, _query(sql), ts, 0))
                specs.append((EventType.XID_EVENT, (1000 + seq).to_bytes(8, "little"), ts, 0))
            end = w.append(specs)
            out.append(Transaction(end, ts, count))
            w.flush()
    return out
