"""A prepared SELECT's items that are a placeholder alone (server/prepared.py): which they are,
and the result column MariaDB 10.11 gives each by the value an execution binds
(tests/integration/test_bare_placeholders_mariadb.py compares the answers with MariaDB)."""

from __future__ import annotations

import datetime
import decimal

from engine.coltypes import NULL_TYPE
from engine.results import Result
from protocol.binary import ParamType
from protocol.messages import ColumnFlag, FieldType
from server.prepared import bare_placeholders, param_type, split_placeholders, typed_by_values


def test_the_items_that_are_a_placeholder_alone():
    assert bare_placeholders(split_placeholders("SELECT ?")) == ((0, 0, False),)
    assert bare_placeholders(split_placeholders("SELECT ?, id, ? AS p FROM t WHERE id = ?")) == (
        (0, 0, False), (2, 1, True))
    assert bare_placeholders(split_placeholders("SELECT ? + 1, CONCAT(?, '?'), '?' FROM t WHERE a IN (?, ?)")) == ()
    assert bare_placeholders(split_placeholders("SELECT *, ? FROM t")) == ()  # (after a wildcard: not known)
    assert bare_placeholders(split_placeholders("UPDATE t SET a = ?")) == ()


def test_a_bare_placeholder_is_typed_by_its_bound_value():
    flags = ColumnFlag.NOT_NULL | ColumnFlag.BINARY
    tiny = param_type(ParamType(FieldType.TINY, unsigned=True), 1)
    assert (tiny.type, tiny.length, tiny.flags) == (FieldType.TINY, 4, flags | ColumnFlag.UNSIGNED)
    assert param_type(ParamType(FieldType.LONGLONG), -5).flags == flags
    assert param_type(ParamType(FieldType.VAR_STRING), "héllo").length == 20
    # of the type it was sent as: STRING a CHAR, VAR_STRING / VARCHAR a VARCHAR, a blob binary
    assert param_type(ParamType(FieldType.VAR_STRING), b"\x01\x02").type == FieldType.VAR_STRING
    assert param_type(ParamType(FieldType.VARCHAR), "ab").type == FieldType.VAR_STRING
    assert param_type(ParamType(FieldType.STRING), "ab").type == FieldType.STRING
    blob = param_type(ParamType(FieldType.MEDIUM_BLOB), "héllo")
    assert (blob.type, blob.length, blob.charset, blob.flags) == (FieldType.MEDIUM_BLOB, 6, 63, flags)
    dec = param_type(ParamType(FieldType.NEWDECIMAL), decimal.Decimal("1.50"))
    assert (dec.type, dec.length, dec.decimals) == (FieldType.NEWDECIMAL, 5, 2)
    assert param_type(ParamType(FieldType.DECIMAL), decimal.Decimal("1.50")).type == FieldType.DECIMAL
    assert param_type(ParamType(FieldType.DATETIME), datetime.datetime(2024, 1, 2, 3, 4, 5, 1)).decimals == 6
    assert param_type(ParamType(FieldType.LONGLONG), None) == NULL_TYPE
    assert param_type(ParamType(FieldType.TIME), datetime.timedelta(hours=1)) is None
    result = Result(columns=["a", "v", "p"], column_types=[None, "string", None], rows=[("a", "x", 2)])
    typed = typed_by_values(result, ((0, 0, False), (2, 1, True)), ["a", 2],
                            [ParamType(FieldType.VAR_STRING), ParamType(FieldType.TINY)])
    assert typed.columns == ["?", "v", "p"]
    assert [getattr(ct, "type", ct) for ct in typed.column_types] == [FieldType.VAR_STRING, "string", FieldType.TINY]
