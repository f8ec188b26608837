"""`SELECT @@variable`'s result column as MariaDB 10.11 types it (`coltypes.sysvar_type`), and the
engine's use of it for a bare `@@name` item beside other items (the session's `sysvar_type`);
tests/integration/test_sysvar_columns_mariadb.py compares both paths with MariaDB."""

from __future__ import annotations

from engine import Engine
from engine.coltypes import (
    CHARSET_BINARY,
    CHARSET_UTF8MB4_GENERAL_CI,
    STRING_DEC,
    ColumnType,
    sysvar_type,
)
from protocol.messages import ColumnFlag, FieldType
from tests.unit.test_engine import run

BINARY = ColumnFlag.BINARY


def test_a_variable_is_typed_by_its_values_kind():
    assert sysvar_type(True) == ColumnType(FieldType.LONGLONG, 1, 0, CHARSET_BINARY, BINARY)
    assert sysvar_type(16777216) == ColumnType(FieldType.LONGLONG, 21, 0, CHARSET_BINARY, BINARY | ColumnFlag.UNSIGNED)
    assert sysvar_type(-1).flags == BINARY
    assert sysvar_type(10.0) == ColumnType(FieldType.DOUBLE, 21, 6, CHARSET_BINARY, BINARY)
    assert sysvar_type("SYSTEM") == ColumnType(FieldType.VAR_STRING, 24, STRING_DEC, CHARSET_UTF8MB4_GENERAL_CI, 0)
    assert sysvar_type(None).length == sysvar_type("").length == 0


async def test_the_engine_types_a_bare_variable_item_by_the_sessions_typer(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        values = {"@@autocommit": True, "@@time_zone": "SYSTEM"}
        session.sysvar_reader = lambda text: int(values[text]) if values[text] is True else values[text]
        session.sysvar_type = lambda text: sysvar_type(values[text])
        result = await run(engine, session, "SELECT @@autocommit, 1, @@time_zone, @@autocommit + 0")
        assert result.rows == [(1, 1, "SYSTEM", 1)]
        types = result.column_types
        assert (types[0].type, types[0].length) == (FieldType.LONGLONG, 1)
        assert (types[2].type, types[2].length, types[2].decimals) == (FieldType.VAR_STRING, 24, STRING_DEC)
        assert types[3] != sysvar_type(True)  # (an expression over it: the engine's own typing)
    finally:
        await engine.close()
