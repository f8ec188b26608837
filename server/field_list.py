"""COM_FIELD_LIST (mysql_list_fields, deprecated but still sent: `mariadb-show -v` / `--count`
counts a table's columns with it), answered as MariaDB 10.11's mysqld_list_fields answers it.

The packet is a table name, a NUL, then a column-name wildcard (LIKE's % and _, any case; none:
every column). The answer (`protocol.messages.FieldList`) is the table's (or view's) columns as
`SELECT * FROM db.t` describes them, each with its default as MariaDB reads it from the table's
default record: the DEFAULT's text, NULL for a nullable column without one and for DEFAULT
CURRENT_TIMESTAMP, the implicit default ('0', '') of a NOT NULL column without one. Errors are
mysqld's: 1046 (no database selected), 1103 (no table name), 1146, and the SELECT's privileges.
Nothing runs: the columns are described, so an autocommit=0 session begins no transaction.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine import values
from engine.lexer import mysql_ident
from protocol.errors import ER_NO_DB_ERROR, ER_WRONG_TABLE_NAME, SQLError
from protocol.messages import ColumnDefinition, ColumnFlag, FieldList, FieldType
from server.prepared import result_columns

if TYPE_CHECKING:
    from server.session import ClientSession


async def field_list(session: ClientSession, payload: bytes) -> FieldList:
    """The answer to a COM_FIELD_LIST whose body (after the command byte) is `payload`."""
    session.server.stats.com["Com_show_fields"] += 1  # (as mysqld counts it)
    assert session.engine_session is not None
    schema = session.engine_session.database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    name, _, wild = payload.partition(b"\0")
    table_name = name.decode("utf-8", "replace")
    if not table_name:
        raise SQLError(ER_WRONG_TABLE_NAME, "")
    # the columns of the SELECT, its privileges checked, but no statement run: no transaction
    # begins (autocommit=0) and no Com_select is counted, as with mysqld_list_fields
    select = f"SELECT * FROM {mysql_ident(schema)}.{mysql_ident(table_name)} LIMIT 0"
    if session.privileges is not None:
        await session.privileges.check(select, "SELECT")
    result = await session.engine_session.describe_select(select)
    columns = result_columns(result, session.results_charset)
    pattern = _wildcard(wild.rstrip(b"\0").decode("utf-8", "replace"))
    if pattern is not None:
        columns = tuple(col for col in columns if pattern.fullmatch(col.org_name or col.name))
    table = session.engine_session.engine.table(schema, table_name)
    if table is None:  # a view: its columns named by it, without the keys of the tables it reads
        columns = tuple(ColumnDefinition(col.name, col.type, col.charset, col.length, col.flags & ~_KEY_FLAGS,
                                         col.decimals, schema, table_name, table_name, col.org_name or col.name,
                                         type_name=col.type_name, format_name=col.format_name)
                        for col in columns)
    return FieldList(columns, tuple(_default(table, col) for col in columns))


_KEY_FLAGS = (ColumnFlag.PRI_KEY | ColumnFlag.UNIQUE_KEY | ColumnFlag.MULTIPLE_KEY | ColumnFlag.PART_KEY
              | ColumnFlag.AUTO_INCREMENT)
_NUMBERS = frozenset({FieldType.DECIMAL, FieldType.NEWDECIMAL, FieldType.TINY, FieldType.SHORT, FieldType.LONG,
                      FieldType.INT24, FieldType.LONGLONG, FieldType.FLOAT, FieldType.DOUBLE, FieldType.YEAR})


def _wildcard(wild: str) -> re.Pattern[str] | None:
    """A wildcard's columns (wild_case_compare: % any run, _ one character, \\ escapes)."""
    if not wild:
        return None
    parts, escaped = [], False
    for ch in wild:
        if escaped:
            parts.append(re.escape(ch))
            escaped = False
        elif ch == "\\":
            escaped = True
        else:
            parts.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL)


def _default(table: Any, col: ColumnDefinition) -> str | None:
    """A column's default as the answer carries it (the module's header); a view's columns,
    which keep no defaults of their own, by their nullability and type alone."""
    column = table.column(col.org_name or col.name) if table is not None else None
    if column is None:
        if col.flags & ColumnFlag.NOT_NULL:
            return "0" if col.type in _NUMBERS else ""
        return None
    if column.default_now:
        return None
    if column.has_default and column.default is not None:
        return column.default_shown()
    if column.nullable:
        return None
    implicit = values.implicit_default(column)
    return str(int(implicit)) if isinstance(implicit, bool) else str(implicit)
