"""CREATE TABLE [IF NOT EXISTS] t [AS] SELECT ... (or `(SELECT ...)`), as MariaDB 10.11 makes it.

The new table's columns are the SELECT's result columns: one that is a table's column keeps that
column's type, NOT NULL and DEFAULT (an AUTO_INCREMENT one becomes NOT NULL DEFAULT 0; no key is
copied), an expression gets the type MariaDB gives its result (`engine.coltypes.column_ddl`).
The statement runs as the two it stands for, each through the session's statement path (and so
its privilege checks and the binlog): the CREATE TABLE with those columns written out, then
INSERT INTO t SELECT ..., committed at once as MariaDB's DDL is. A replica, ours or MariaDB's,
makes the same table and reads the same rows. When the INSERT fails the table is dropped again,
as MariaDB leaves no table after a failed CREATE ... SELECT. IF NOT EXISTS of an existing table
inserts nothing and notes 1050.

Not supported (1235, the engine's answer): column definitions or table options before the
SELECT (`CREATE TABLE t (a INT) SELECT ...`, `... ENGINE=x SELECT`), CREATE TEMPORARY TABLE.
"""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING, Any

from engine.coltypes import ColumnType, column_ddl
from engine.lexer import mysql_ident
from protocol.errors import ER_NO_DB_ERROR, ER_TABLE_EXISTS_ERROR, SQLError
from protocol.messages import OK
from server.sql import tokenize

if TYPE_CHECKING:
    from server.session import ClientSession

_NAME = r"(?:`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"
_CREATE_SELECT = re.compile(
    rf"\s*CREATE\s+TABLE\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?P<first>{_NAME})(?:\s*\.\s*(?P<second>{_NAME}))?"
    rf"\s+(?:AS\s+)?(?P<select>\(?\s*SELECT\b.*?)\s*;?\s*\Z", re.IGNORECASE | re.DOTALL)


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


async def create_select(session: ClientSession, sql: str) -> Any:
    """Run `sql` when it is a CREATE TABLE ... SELECT (the module's header); None when it is not."""
    m = _CREATE_SELECT.match(sql)
    if m is None:
        return None
    es = session.engine_session
    assert es is not None
    select = m.group("select")
    if select.startswith("(") and select.endswith(")") and _closes_at_end(select):
        select = select[1:-1]
    first, second = _unquote(m.group("first")), m.group("second")
    schema, name = (first, _unquote(second)) if second is not None else (es.database, first)
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    target = f"{mysql_ident(schema)}.{mysql_ident(name)}"
    # the SELECT's privileges first (what it would read), then its columns
    await session.execute(f"SELECT * FROM ({select}) AS `__create_select` LIMIT 0")
    if es.engine.table(schema, name) is not None or es.engine.view(schema, name) is not None:
        if m.group("exists"):
            note = SQLError(ER_TABLE_EXISTS_ERROR, name)
            session.diagnostics = [("Note", note.code, note.message)]
            return OK(warnings=1)
        raise SQLError(ER_TABLE_EXISTS_ERROR, name)
    described = await es.describe_select(select)
    lines = [f"  {mysql_ident(column)} {_definition(es.engine, kind)}"
             for column, kind in zip(described.columns, described.column_types, strict=True)]
    await session.execute(f"CREATE TABLE {target} (\n" + ",\n".join(lines) + "\n)")
    try:
        result = await session.execute(
            f"INSERT INTO {target} ({', '.join(mysql_ident(c) for c in described.columns)}) {select}")
        if es.in_transaction:  # (autocommit off: a CREATE ... SELECT commits as DDL does)
            await session.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(SQLError):
            await session.execute(f"DROP TABLE IF EXISTS {target}")
        raise
    return OK(result.affected_rows, 0, warnings=len(result.warnings), info=result.info)


def _definition(engine: Any, kind: Any) -> str:
    """A result column's definition in the new table: its table column's, or its type's (a
    type the engine cannot tell without rows: LONGTEXT, which holds any value as text)."""
    if not isinstance(kind, ColumnType):
        return "longtext DEFAULT NULL"
    if kind.origin is not None:
        schema, _, table_name, column_name = kind.origin
        table = engine.table(schema, table_name)
        col = table.column(column_name) if table is not None else None
        if col is not None:
            return _copied(col)
    return column_ddl(kind)


def _copied(col: Any) -> str:
    """A table column's definition as CREATE TABLE ... SELECT copies it (MariaDB's)."""
    if col.base == "json":
        return "longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT NULL"
    if col.auto_increment:
        return col.type_text + " NOT NULL DEFAULT 0"
    return col.type_text + col.null_and_default()


def _closes_at_end(text: str) -> bool:
    """The parenthesis `text` starts with closes at its end."""
    depth = 0
    tokens = tokenize(text)
    for k, tok in enumerate(tokens):
        if tok.kind == "OP" and tok.text == "(":
            depth += 1
        elif tok.kind == "OP" and tok.text == ")":
            depth -= 1
            if depth == 0:
                return k == len(tokens) - 1
    return False
