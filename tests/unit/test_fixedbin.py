"""engine.fixedbin against answers read from MariaDB 10.11: the text forms UUID, INET6 and INET4
take, the canonical text a column holds, MariaDB's sort order (a time-based UUID compared node
first), and what `values.store` makes of values of no such type."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

import pytest

from engine import fixedbin
from engine.catalog import Column
from engine.coltypes import declared_type
from engine.values import store
from protocol.errors import SQLError
from protocol.messages import ColumnFlag, FieldType


@pytest.mark.parametrize(("kind", "text", "shown"), [
    ("uuid", "6CCD780CBABA102695645B8C656024DB", "6ccd780c-baba-1026-9564-5b8c656024db"),
    ("uuid", "6ccd-780c-baba-1026-9564-5b8c-6560-24de", "6ccd780c-baba-1026-9564-5b8c656024de"),
    ("uuid", "6ccd780cbaba102695645b8c656024d-b", "6ccd780c-baba-1026-9564-5b8c656024db"),
    ("uuid", "{6ccd780c-baba-1026-9564-5b8c656024dd}", None),
    ("uuid", "-6ccd780cbaba102695645b8c656024db", None),
    ("uuid", "6ccd780cbaba102695645b8c656024db-", None),
    ("uuid", " 6ccd780cbaba102695645b8c656024db", None),
    ("uuid", "6ccd780c-baba-1026-9564-5b8c656024d", None),
    ("inet6", "FE80::0001", "fe80::1"),
    ("inet6", "::ffff:1.2.3.4", "::ffff:1.2.3.4"),
    ("inet6", "::1.2.3.4", "::1.2.3.4"),
    ("inet6", "::fffe:1.2.3.4", "::fffe:102:304"),
    ("inet6", "1:0:0:2:0:0:0:3", "1:0:0:2::3"),
    ("inet6", "0:0:0:0:0:0:0:2", "::2"),
    ("inet6", "1.2.3.4", None),
    ("inet6", "1::2::3", None),
    ("inet6", ":1::", None),
    ("inet4", "010.0.0.3", "10.0.0.3"),
    ("inet4", "10.0.0.256", None),
    ("inet4", "10.0.0", None),
    ("inet4", "1.2.3.4 ", None),
])
def test_text_forms(kind, text, shown):
    assert fixedbin.canonical(kind, text) == shown


def test_binary_strings_of_the_types_size():
    assert fixedbin.canonical("uuid", bytes(15) + b"\x10") == "00000000-0000-0000-0000-000000000010"
    assert fixedbin.canonical("inet4", b"\x01\x02\x03\x04") == "1.2.3.4"
    assert fixedbin.canonical("inet6", b"\x01\x02") is None


def test_uuids_sort_as_mariadbs_records():
    # ORDER BY on MariaDB 10.11 (a time-based UUID: version 1 to 5 and the variant bit set)
    order = ["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
             "00000002-0000-0101-8000-000000000000", "00000002-0000-0f01-8000-000000000000",
             "00000002-0000-5f01-8000-000000000000", "ffffffff-ffff-1fff-ffff-000000000000",
             "00000002-0000-5f01-ffff-000000000000", "ffffffff-ffff-1fff-ffff-000000000001",
             "00000002-0000-1001-7fff-000000000000", "00000002-0000-6f01-ffff-000000000000"]
    conn = sqlite3.connect(":memory:")
    fixedbin.register(conn)
    conn.execute("CREATE TABLE t (u TEXT COLLATE mysql_uuid)")
    conn.executemany("INSERT INTO t VALUES (?)", [(u,) for u in reversed(order)])
    assert [u for (u,) in conn.execute("SELECT u FROM t ORDER BY u")] == order
    # text in any of the type's forms compares as the value it names; text that names none equals none
    assert conn.execute("SELECT COUNT(*) FROM t WHERE u = '00000002000001018000000000000000'").fetchone() == (1,)
    assert conn.execute("SELECT COUNT(*) FROM t WHERE u = 'junk'").fetchone() == (0,)


def test_stored_values_and_mariadbs_errors():
    uuid = Column("u", "uuid")
    where = "`d`.`t`.`u`"
    assert store(uuid, "6CCD780CBABA102695645B8C656024DB", 1, where) == "6ccd780c-baba-1026-9564-5b8c656024db"
    with pytest.raises(SQLError) as err:
        store(uuid, "x", 2, where)
    assert (err.value.code, err.value.message) == (1292, "Incorrect uuid value: 'x' for column `d`.`t`.`u` at row 2")
    with pytest.raises(SQLError) as err:
        store(Column("i", "inet6"), b"\x01\x02", 1, "`d`.`t`.`i`")
    assert err.value.message == "Incorrect inet6 value: '\\x01\\x02' for column `d`.`t`.`i` at row 1"
    for value, kind in ((12, "int"), (Decimal("1.5"), "decimal"), (1.5, "double")):
        with pytest.raises(SQLError) as err:
            store(Column("i", "inet4"), value, 1, "`d`.`t`.`i`", lenient=True, warnings=[])
        assert (err.value.code, err.value.message) == (4078, f"Cannot cast '{kind}' as 'inet4' in assignment of `d`.`t`.`i`")
    warnings: list = []
    assert store(uuid, "bad", 1, where, lenient=True, warnings=warnings) is None
    assert store(Column("i", "inet6", nullable=False), "bad", 2, "`d`.`t`.`i`", lenient=True, warnings=warnings) == "::"
    assert warnings == [(1, "Warning", 1292, "Incorrect uuid value: 'bad' for column `d`.`t`.`u` at row 1"),
                        (2, "Warning", 1292, "Incorrect inet6 value: 'bad' for column `d`.`t`.`i` at row 2")]


def test_result_columns_as_mariadbs():
    for kind, length in (("uuid", 144), ("inet6", 156), ("inet4", 60)):
        ct = declared_type(kind, [], False, False)
        assert (ct.type, ct.length, ct.decimals, ct.charset) == (FieldType.STRING, length, 0, 45)
        assert ct.flags == ColumnFlag.BINARY | ColumnFlag.UNSIGNED
        assert ct.type_name == kind


def test_cast_to_the_types():
    from engine import strfuncs

    seen: list = []
    cast = strfuncs.fixedbin_cast(seen.append)
    assert cast("6CCD780CBABA102695645B8C656024DB", "uuid") == "6ccd780c-baba-1026-9564-5b8c656024db"
    assert cast(b"\x0a\x00\x00\x02", "inet4") == "10.0.0.2"
    assert cast(None, "inet6") is None
    assert cast("zz", "uuid") is None
    assert seen == [("Warning", 1292, "Incorrect uuid value: 'zz'")]


def test_literals_compared_with_the_types():
    warnings: list = []
    assert fixedbin.bound("uuid", "6CCD780CBABA102695645B8C656024DB", warnings) == "6ccd780c-baba-1026-9564-5b8c656024db"
    assert fixedbin.bound("inet4", 7, warnings) == 7  # (a number: the translator's 4078)
    assert fixedbin.bound("inet6", "junk", warnings) is None
    assert fixedbin.bound("inet4", b"\x01\x02", warnings) is None
    assert warnings == [(0, "Warning", 1292, "Incorrect inet6 value: 'junk'"),
                        (0, "Warning", 1292, "Incorrect inet4 value: '\\x01\\x02'")]
