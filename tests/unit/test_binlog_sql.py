"""`semisync binlog --sql`'s pieces without a server: the TABLE_MAP optional metadata MariaDB 10.11
wrote with binlog_row_metadata=FULL (golden bytes), literals of each decoded value type, and row
changes as DML (tests/integration/test_binlog_sql.py replays them into MariaDB)."""

from __future__ import annotations

import datetime
import io
from decimal import Decimal

import pytest

from binlog import BinlogWriter
from cli.binlog_sql import SqlError, SqlWriter, _Table, literal, write_sql
from protocol.errors import RemoteProtocolError
from protocol.events import (
    INTVAR_INSERT_ID,
    LOG_EVENT_SUPPRESS_USE_F,
    EventType,
    Intvar,
    Query,
    TableMap,
    Xid,
    decode_event,
    encode_body_event,
    table_map_metadata,
)
from protocol.messages import FieldType
from slave.rows import MISSING, RowChange

# CREATE TABLE d.t (a TINYINT UNSIGNED, y YEAR, b INT, c DOUBLE UNSIGNED, e ENUM('x','y'), s SET('p','q'),
#   v VARCHAR(10) CHARACTER SET latin1, dd DECIMAL(5,2) UNSIGNED, ts TIMESTAMP(3) NULL, bi BIGINT UNSIGNED PRIMARY KEY)
TYPES = bytes.fromhex("010d0305fefe0ff61108")
FULL = bytes.fromhex("0101dc020108041701610179016201630165017301760264640274730262690a01080505020170017106050201780179080109")


def names_field(*names: str) -> bytes:
    value = b"".join(bytes([len(n)]) + n.encode() for n in names)
    return bytes([4, len(value)]) + value


def test_mariadb_full_metadata_gives_signedness_with_year_counted_and_names():
    meta = table_map_metadata(TableMap(1, 0, "d", "t", TYPES, b"", b"", FULL))
    assert meta.names == ("a", "y", "b", "c", "e", "s", "v", "dd", "ts", "bi")
    assert meta.unsigned == (True, True, False, True, False, False, False, True, False, True)


def test_character_columns_collations_in_both_forms_and_their_introducers():
    # (a INT, v VARCHAR latin1, e ENUM utf8mb4, b BLOB, u VARCHAR utf8mb4, c CHAR(3) latin1, tx TEXT utf8mb4_bin):
    # MariaDB wrote COLUMN_CHARSET, one collation per character column (ENUM is not one)
    tm = TableMap(1, 0, "d", "t", bytes.fromhex("030ffefc0ffefc"), bytes.fromhex("0a00f701020f00fe0304"), b"",
                  bytes.fromhex("0101000305083f2d082e040f0161017601650162017501630274780a012d0603010178"))
    meta = table_map_metadata(tm)
    assert (meta.default_collation, meta.collations) == (None, {0: 8, 1: 63, 2: 45, 3: 8, 4: 46})
    assert _Table(tm).charsets == [None, "latin1", None, None, "utf8mb4", "latin1", "utf8mb4"]
    # (v utf8mb4, u latin1, w utf8mb4) DEFAULT CHARSET=latin1: DEFAULT_CHARSET 45 with column 1 as 8
    meta = table_map_metadata(TableMap(1, 0, "d", "t2", bytes.fromhex("0f0f0f"), b"", b"",
                                       bytes.fromhex("02032d01080406017601750177")))
    assert (meta.default_collation, meta.collations) == (45, {1: 8})
    assert literal(b"\xe9", FieldType.VARCHAR, 10, False, "latin1") == b"_latin1 X'E9'"


def test_no_optional_metadata_and_damaged_metadata():
    assert table_map_metadata(TableMap(1, 0, "d", "t", TYPES)).names is None
    with pytest.raises(RemoteProtocolError, match="truncated optional metadata"):
        table_map_metadata(TableMap(1, 0, "d", "t", TYPES, b"", b"", FULL[:20]))
    with pytest.raises(RemoteProtocolError, match="9 column names for 10 columns"):
        table_map_metadata(TableMap(1, 0, "d", "t", TYPES, b"", b"", names_field(*"aybcesv", "dd", "ts")))


@pytest.mark.parametrize("value,code,unsigned,text", [
    (None, FieldType.LONG, False, b"NULL"),
    (-56, FieldType.TINY, True, b"200"),
    (-1, FieldType.LONGLONG, True, b"18446744073709551615"),
    (-1, FieldType.LONGLONG, False, b"-1"),
    (1.100000023841858, FieldType.FLOAT, False, b"1.100000023841858"),
    (Decimal("-0.0100"), FieldType.NEWDECIMAL, False, b"-0.0100"),
    (b"a'\x00", FieldType.VARCHAR, False, b"X'612700'"),
    (b"", FieldType.BLOB, False, b"X''"),
    (datetime.date(2024, 2, 29), FieldType.DATE, False, b"'2024-02-29'"),
    ("0000-00-00", FieldType.DATE, False, b"'0000-00-00'"),
    (datetime.datetime(2024, 3, 1, 1, 2, 3, 450000), FieldType.DATETIME2, False, b"'2024-03-01 01:02:03.450000'"),
    (-datetime.timedelta(hours=838, minutes=59, seconds=59), FieldType.TIME2, False, b"'-838:59:59.000000'"),
    (2024, FieldType.YEAR, True, b"2024"),
])
def test_literals(value, code, unsigned, text):
    assert literal(value, code, 0, unsigned) == text


def test_rows_as_dml_with_and_without_names():
    named = _Table(TableMap(7, 0, "d", "t`x", bytes([FieldType.LONG, FieldType.VARCHAR]), b"\x0a\x00", b"",
                            b"\x01\x01\x80" + names_field("id", "v")))
    assert named.statement(RowChange("insert", None, (-1, b"a")), "WRITE_ROWS_EVENT") == \
        b"INSERT INTO `d`.`t``x` (`id`, `v`) VALUES (4294967295, X'61')"
    assert named.statement(RowChange("update", (1, None), (1, MISSING)), "UPDATE_ROWS_EVENT") == \
        b"UPDATE `d`.`t``x` SET `id`=1 WHERE `id` <=> 1 AND `v` <=> NULL LIMIT 1"
    assert named.statement(RowChange("delete", (2, b""), None), "DELETE_ROWS_EVENT") == \
        b"DELETE FROM `d`.`t``x` WHERE `id` <=> 2 AND `v` <=> X'' LIMIT 1"
    anonymous = _Table(TableMap(7, 0, "d", "t", bytes([FieldType.LONG, FieldType.VARCHAR]), b"\x0a\x00"))
    assert anonymous.statement(RowChange("insert", None, (-1, None)), "WRITE_ROWS_EVENT") == \
        b"INSERT INTO `d`.`t` VALUES (-1, NULL)"
    with pytest.raises(SqlError, match="partial row"):
        anonymous.statement(RowChange("insert", None, (1, MISSING)), "WRITE_ROWS_EVENT")
    with pytest.raises(SqlError, match="DELETE_ROWS_EVENT for d.t needs column names"):
        anonymous.statement(RowChange("delete", (1, None), None), "DELETE_ROWS_EVENT")


def _event(body, timestamp: int = 100, flags: int = 0):
    return decode_event(encode_body_event(body, timestamp=timestamp, server_id=1, log_pos=0, flags=flags,
                                          checksum=False), checksum=False)


def test_writer_sessions_and_a_transaction_cut_by_the_stop_is_rolled_back():
    out = io.BytesIO()
    writer = SqlWriter(out)
    writer.event(4, _event(Query(thread_id=7, db="shop", query="BEGIN")))
    writer.event(80, _event(Intvar(INTVAR_INSERT_ID, 5)))
    writer.event(100, _event(Query(thread_id=7, db="shop", query="INSERT INTO t VALUES (NULL)")))
    writer.event(150, _event(Query(thread_id=7, db="shop", query="CREATE DATABASE other"), flags=LOG_EVENT_SUPPRESS_USE_F))
    writer.finish()
    text = out.getvalue().decode()
    assert text.startswith("/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;")
    assert text.count("use `shop`/*!*/;") == 1 and "use `other`" not in text  # printed when it changes
    assert text.count("SET TIMESTAMP=100/*!*/;") == 1
    assert "SET INSERT_ID=5/*!*/;\n# at 100\nINSERT INTO t VALUES (NULL)\n/*!*/;" in text
    assert text.endswith("ROLLBACK/*!*/;\nDELIMITER ;\n# End of log file\n/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n")


def test_damage_is_named_after_every_statement_before_it(tmp_path):
    w = BinlogWriter(tmp_path, "mysql-bin", server_id=7, checksum=True, max_size=1 << 20, server_version="10.11.19-semisync-log")
    w.open()
    for i in (1, 2):
        w.append([(EventType.QUERY_EVENT, Query(thread_id=1, db="test", query="BEGIN").encode(), 100, 0),
                  (EventType.QUERY_EVENT, Query(thread_id=1, db="test", query=f"INSERT INTO t VALUES ({i})").encode(), 100, 0),
                  (EventType.XID_EVENT, Xid(i).encode(), 100, 0)])
    end = w.flush().pos
    w.close()
    path = tmp_path / "mysql-bin.000001"
    data = bytearray(path.read_bytes())
    data[end - 10] ^= 0xFF  # the second transaction's XID: its CRC32 no longer matches
    path.write_bytes(bytes(data))
    out = io.BytesIO()
    error = write_sql([path], out)
    text = out.getvalue().decode()
    assert error is not None and "corrupt event at offset" in error and str(path) in error
    assert "INSERT INTO t VALUES (2)" in text and text.count("COMMIT/*!*/;") == 1
    assert text.endswith("ROLLBACK/*!*/;\nDELIMITER ;\n# End of log file\n/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n")


def test_a_rollback_to_a_savepoint_leaves_the_transaction_open_and_xa_end_closes_it():
    """protocol.statements' rule: ROLLBACK TO SAVEPOINT ends nothing (a stop after it still rolls
    the transaction back); after XA END no statement runs (no ROLLBACK is written)."""
    endings = {}
    for name, statements in [("savepoint", ["BEGIN", "SAVEPOINT `s`", "ROLLBACK TO SAVEPOINT `s`"]),
                             ("work", ["START TRANSACTION", "rollback work to s"]),
                             ("xa", ["XA START 'x'", "INSERT INTO t VALUES (1)", "XA END 'x'"])]:
        out = io.BytesIO()
        writer = SqlWriter(out)
        for at, sql in enumerate(statements):
            writer.event(4 + at * 100, _event(Query(thread_id=7, db="shop", query=sql)))
        writer.finish()
        endings[name] = out.getvalue().decode().endswith("ROLLBACK/*!*/;\nDELIMITER ;\n# End of log file\n"
                                                         "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n")
    assert endings == {"savepoint": True, "work": True, "xa": False}
