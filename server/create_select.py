"""CREATE [TEMPORARY] TABLE [IF NOT EXISTS] t [AS] SELECT ... (or `(SELECT ...)`), as MariaDB 10.11
makes it.

The new table's columns are the SELECT's result columns: one that is a table's column keeps that
column's type, NOT NULL and DEFAULT (an AUTO_INCREMENT one becomes NOT NULL DEFAULT 0; no key is
copied), an expression gets the type MariaDB gives its result (`engine.viewcols.expression_ddl`,
the field a view's column is too).
The statement runs as the two it stands for, each through the session's statement path (and so
its privilege checks and the binlog): the CREATE TABLE with those columns written out, then
INSERT INTO t SELECT ..., committed at once as MariaDB's DDL is. A replica, ours or MariaDB's,
makes the same table and reads the same rows. When the INSERT fails the table is dropped again,
as MariaDB leaves no table after a failed CREATE ... SELECT. IF NOT EXISTS of an existing table
inserts nothing and notes 1050.

Column definitions and table options may come before the SELECT (`CREATE TABLE t (a INT, z INT
DEFAULT 7, PRIMARY KEY (a)) ENGINE=InnoDB [IGNORE | REPLACE] [AS] SELECT ...`). As MariaDB's, the
table's columns are then the declared columns the SELECT does not name, in their order, then the
SELECT's columns in its order, each one declared keeping its declaration, then the declared keys;
the rows go in as `INSERT [IGNORE] INTO` or `REPLACE INTO` (a duplicate key without either fails
the statement, 1062, and leaves no table); the options are the CREATE TABLE's.

CREATE TEMPORARY TABLE ... SELECT makes the session's temporary table (engine/temporary.py) the
same way, whatever base table has its name; it fails the statement with its CREATE TEMPORARY
TABLE dropped again (IF EXISTS: a replica applies that DROP with the thread's own tables).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.coltypes import ColumnType
from engine.exprtypes import repeated_name
from engine.lexer import mysql_ident
from engine.unsafe import CREATE_SELECT_AUTOINC
from engine.viewcols import expression_ddl
from protocol.errors import (
    ER_BINLOG_UNSAFE_STATEMENT,
    ER_DUP_FIELDNAME,
    ER_NO_DB_ERROR,
    ER_TABLE_EXISTS_ERROR,
    SQLError,
)
from protocol.messages import OK
from server.sql import tokenize

if TYPE_CHECKING:
    from server.session import ClientSession

_NAME = r"(?:`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"
_CREATE_TABLE = re.compile(
    rf"\s*CREATE\s+(?P<temporary>TEMPORARY\s+)?TABLE\s+(?P<exists>IF\s+NOT\s+EXISTS\s+)?(?P<first>{_NAME})(?:\s*\.\s*(?P<second>{_NAME}))?",
    re.IGNORECASE)
# what a declared item of the list starts with when it is a key, not a column
_KEY_WORDS = {"PRIMARY", "KEY", "INDEX", "UNIQUE", "CONSTRAINT", "FOREIGN", "FULLTEXT", "SPATIAL", "CHECK", "PERIOD"}


@dataclass(frozen=True)
class _Parts:
    """A CREATE TABLE ... SELECT cut at its parts (texts of the statement)."""

    declared: list[str]  # the items of the definition list, as written
    options: str  # the table options before the SELECT
    duplicates: str  # "", "IGNORE" or "REPLACE"
    select: str


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def _parts(sql: str, head_end: int) -> _Parts | None:
    """`sql` past its CREATE TABLE name, cut as MariaDB reads it: `[(definitions)] [options]
    [IGNORE | REPLACE] [AS] SELECT ...` (or `(SELECT ...)`); None when no SELECT follows."""
    tokens = [t for t in tokenize(sql) if t.pos >= head_end]
    i, declared = 0, []
    if _opens_select(tokens, 0):
        return _Parts([], "", "", sql[tokens[0].pos:])
    if tokens and tokens[0].kind == "OP" and tokens[0].text == "(":
        close = _closing(tokens, 0)
        if close is None:
            return None
        declared = _items(sql, tokens[1:close], tokens[close].pos)
        i = close + 1
    start = tokens[i].pos if i < len(tokens) else len(sql)
    while i < len(tokens) and not (tokens[i].is_word("IGNORE", "REPLACE", "AS", "SELECT") or _opens_select(tokens, i)):
        i += 1
    if i == len(tokens):
        return None
    options = sql[start:tokens[i].pos].strip()
    duplicates = ""
    if tokens[i].is_word("IGNORE", "REPLACE"):
        duplicates, i = tokens[i].upper, i + 1
    if i < len(tokens) and tokens[i].is_word("AS"):
        i += 1
    if i == len(tokens) or not (tokens[i].is_word("SELECT") or _opens_select(tokens, i)):
        return None
    return _Parts(declared, options, duplicates, sql[tokens[i].pos:])


def _opens_select(tokens: list, i: int) -> bool:
    return (i + 1 < len(tokens) and tokens[i].kind == "OP" and tokens[i].text == "("
            and tokens[i + 1].is_word("SELECT"))


def _closing(tokens: list, i: int) -> int | None:
    """The index of the parenthesis closing the one at `i`."""
    depth = 0
    for k in range(i, len(tokens)):
        if tokens[k].kind == "OP" and tokens[k].text in "()":
            depth += 1 if tokens[k].text == "(" else -1
            if depth == 0:
                return k
    return None


def _items(sql: str, tokens: list, end: int) -> list[str]:
    """The comma-separated items of a definition list, as written (`tokens` inside its
    parentheses, `end` where the closing one is)."""
    items, depth, first = [], 0, 0
    for k, tok in enumerate([*tokens, None]):
        if tok is None or (depth == 0 and tok.kind == "OP" and tok.text == ","):
            if k > first:
                items.append(sql[tokens[first].pos:tokens[k].pos if tok is not None else end].strip())
            first = k + 1
        elif tok.kind == "OP" and tok.text in "()":
            depth += 1 if tok.text == "(" else -1
    return items


async def create_select(session: ClientSession, sql: str) -> Any:
    """Run `sql` when it is a CREATE TABLE ... SELECT (the module's header); None when it is not."""
    m = _CREATE_TABLE.match(sql)
    parts = _parts(sql, m.end()) if m is not None else None
    if parts is None:
        return None
    es = session.engine_session
    assert es is not None
    select = parts.select.rstrip().rstrip(";").rstrip()
    if select.startswith("(") and select.endswith(")") and _closes_at_end(select):
        select = select[1:-1]
    first, second = _unquote(m.group("first")), m.group("second")
    schema, name = (first, _unquote(second)) if second is not None else (es.database, first)
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    target = f"{mysql_ident(schema)}.{mysql_ident(name)}"
    made = "CREATE TEMPORARY TABLE" if m.group("temporary") else "CREATE TABLE"
    dropped = "DROP TEMPORARY TABLE" if m.group("temporary") else "DROP TABLE"
    # the SELECT's privileges first (what it would read), then its columns
    await session.execute(f"SELECT * FROM ({select}) AS `__create_select` LIMIT 0")
    if m.group("temporary"):
        exists = es.engine.temporary_of(es.temporary_owner)(schema, name) is not None
    else:
        exists = es.engine.table(schema, name) is not None or es.engine.view(schema, name) is not None
    if exists:
        if m.group("exists"):
            note = SQLError(ER_TABLE_EXISTS_ERROR, name)
            session.diagnostics = [("Note", note.code, note.message)]
            return OK(warnings=1)
        raise SQLError(ER_TABLE_EXISTS_ERROR, name)
    described = await es.describe_select(select)
    repeated = repeated_name(described.columns)  # (SQLite names the derived table's second `a` `a:1`)
    if repeated is not None:
        raise SQLError(ER_DUP_FIELDNAME, repeated)
    selected = {column.lower() for column in described.columns}
    columns, keys = _declared(parts.declared)
    lines = [text for column, text in columns.items() if column not in selected]
    lines += [columns.get(column.lower()) or f"{mysql_ident(column)} {_definition(es.engine, kind)}"
              for column, kind in zip(described.columns, described.column_types, strict=True)]
    options = f" {parts.options}" if parts.options else ""
    await session.execute(f"{made} {target} (\n  " + ",\n  ".join(lines + keys) + f"\n){options}")
    verb = {"IGNORE": "INSERT IGNORE", "REPLACE": "REPLACE"}.get(parts.duplicates, "INSERT")
    try:
        result = await session.execute(
            f"{verb} INTO {target} ({', '.join(mysql_ident(c) for c in described.columns)}) {select}")
        if es.in_transaction and not m.group("temporary"):  # (autocommit off: it commits as DDL does,
            # but for a temporary table's: engine/temporary.py)
            await session.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(SQLError):
            await session.execute(f"{dropped} IF EXISTS {target}")
        raise
    table = es.engine.table(schema, name)
    warnings = _as_create(list(result.warnings), es.sql_log_bin and table is not None and table.auto_column is not None)
    session.diagnostics = warnings  # (SHOW WARNINGS: an OK's warnings are the statement's own)
    info = re.sub(r"Warnings: \d+$", f"Warnings: {len(warnings)}", result.info or "")
    return OK(result.affected_rows, 0, warnings=len(warnings), info=info)


# the INSERT / REPLACE ... SELECT's unsafe-statement notes (1592) as MariaDB words them for a
# CREATE TABLE ... IGNORE / REPLACE SELECT
_CREATE_NOTES = (("INSERT IGNORE... SELECT is unsafe", "CREATE... IGNORE SELECT is unsafe"),
                 ("REPLACE... SELECT is unsafe", "CREATE... REPLACE SELECT is unsafe"))


def _as_create(warnings: list[tuple[str, int, str]], autoinc: bool) -> list[tuple[str, int, str]]:
    """The INSERT / REPLACE ... SELECT's warnings as MariaDB gives them for the CREATE TABLE ...
    SELECT: its notes 1592 worded for a CREATE (whose IGNORE / REPLACE ones MariaDB orders after
    the others), then, for a table with an AUTO_INCREMENT column (`autoinc`, where the
    statement is binlogged), `CREATE_SELECT_AUTOINC`."""
    said = []
    for level, code, message in warnings:
        for written, create in _CREATE_NOTES:
            message = message.replace(written, create)
        said.append((level, code, message))
    said.sort(key=lambda w: w[1] == ER_BINLOG_UNSAFE_STATEMENT.code and any(c in w[2] for _, c in _CREATE_NOTES))
    if autoinc:
        said.append(("Note", ER_BINLOG_UNSAFE_STATEMENT.code, CREATE_SELECT_AUTOINC))
    return said


def _declared(items: list[str]) -> tuple[dict[str, str], list[str]]:
    """A definition list's columns (by lower-case name, in order) and keys, as written."""
    columns: dict[str, str] = {}
    keys: list[str] = []
    for item in items:
        head = tokenize(item)[0]
        if head.kind == "WORD" and head.upper in _KEY_WORDS:
            keys.append(item)
        else:  # (a QUOTED token's text is the name itself)
            columns[head.text.lower()] = item
    return columns, keys


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
    return expression_ddl(kind)


def _copied(col: Any) -> str:
    """A table column's definition as CREATE TABLE ... SELECT copies it (MariaDB's)."""
    if col.base == "json":  # its DEFAULT kept, its json_valid CHECK not
        return "longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" + col.null_and_default()
    if col.auto_increment:
        return col.type_text + " NOT NULL DEFAULT 0"
    return col.type_text + col.null_and_default()


def _closes_at_end(text: str) -> bool:
    """The parenthesis `text` starts with closes at its end."""
    tokens = tokenize(text)
    return _closing(tokens, 0) == len(tokens) - 1
