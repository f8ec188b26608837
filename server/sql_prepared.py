"""SQL-level prepared statements, as MariaDB 10.11 has them: PREPARE name FROM 'text' | @var |
expression, EXECUTE name [USING expression, ...], DEALLOCATE PREPARE / DROP PREPARE name and
EXECUTE IMMEDIATE 'text' [USING ...].

Contract
- The statements are the session's `PreparedStatements` (server/prepared.py) under a name: a
  name is case-insensitive and the connection's own (COM_CHANGE_USER and COM_RESET_CONNECTION
  drop them, as `close_all`); they count towards max_prepared_stmt_count (1461) and
  Prepared_stmt_count with the binary protocol's, and are prepared as COM_STMT_PREPARE prepares
  (the text's errors at PREPARE: 1064, 1065, 1146 ...). PREPARE of a name in use deallocates the
  old statement first, so a failed PREPARE leaves none under the name, as mysqld's. The text may
  not itself be PREPARE, EXECUTE or DEALLOCATE / DROP PREPARE (1295); several statements in it
  are MariaDB's 1064 near the second.
- EXECUTE evaluates its USING expressions with the engine in one `SELECT` (DEFAULT and IGNORE
  are NULL; a subquery is MariaDB's 1970), writes each value as the literal MariaDB puts in a
  statement binlog for it (`prepared.literal`; a DATE / DATETIME / TIME value as the typed
  literal DATE'..' / TIMESTAMP'..' / TIME'..', as MariaDB writes one), binds them into the text
  and runs it through `ClientSession.execute`: privileges, read-only, the engine, the binlog
  (which thus holds the statement with its values inlined, user variables' values too, no
  USER_VAR event, as MariaDB's) and semi-sync apply to the statement run, as for
  COM_STMT_EXECUTE. A wrong count of values is 1210, an unknown name 1243.
- Parsing is `parse_prepare`, `parse_execute`, `parse_deallocate`: pure functions of the text
  (tests/unit/test_sql_prepared.py); the statements against MariaDB:
  tests/integration/test_sql_prepared_mariadb.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.binary import ParamType
from protocol.errors import ER_SUBQUERIES_NOT_SUPPORTED, ER_WRONG_ARGUMENTS, SQLError
from protocol.messages import OK, FieldType
from server.prepared import literal
from server.sql import Tokens, top_level_cuts

if TYPE_CHECKING:
    from server.prepared import PreparedStatement
    from server.session import ClientSession


@dataclass(frozen=True, slots=True)
class Source:
    """Where a statement's text comes from: a string literal's value (`text`), a user
    variable's (`variable`), or an expression the engine evaluates (`expression`)."""

    text: str | None = None
    variable: str | None = None
    expression: str | None = None


@dataclass(frozen=True, slots=True)
class Execution:
    """EXECUTE name / EXECUTE IMMEDIATE source, with its USING expressions' texts."""

    name: str | None
    source: Source | None
    using: tuple[str, ...]


def _source(t: Tokens, start: int, end: int) -> Source:
    """The tokens t.items[start:end] as a statement's source."""
    if end == start:
        raise t.error()
    if end == start + 1:
        tok = t.items[start]
        if tok.kind == "STRING":
            return Source(text=tok.text)
        if tok.kind == "USERVAR":
            return Source(variable=str(tok.value))
    return Source(expression=_span(t, start, end))


def _span(t: Tokens, start: int, end: int) -> str:
    stop = t.items[end].pos if end < len(t.items) else len(t.sql)
    return t.sql[t.items[start].pos:stop].strip()


def _statement_name(t: Tokens) -> str:
    tok = t.next()
    if tok.kind not in ("WORD", "QUOTED"):
        t.i -= 1
        raise t.error()
    return tok.text


def _without_semicolon(sql: str) -> str:
    return sql.rstrip().rstrip(";")


def parse_prepare(sql: str) -> tuple[str, Source]:
    """PREPARE name FROM source: the name (as written) and the source."""
    t = Tokens(_without_semicolon(sql))
    t.expect_word("PREPARE")
    name = _statement_name(t)
    t.expect_word("FROM")
    return name, _source(t, t.i, len(t.items))


def parse_execute(sql: str) -> Execution:
    """EXECUTE name [USING ...] or EXECUTE IMMEDIATE source [USING ...]."""
    t = Tokens(_without_semicolon(sql))
    t.expect_word("EXECUTE")
    name = source = None
    if t.peek(1) is not None and t.accept_word("IMMEDIATE"):  # (EXECUTE immediate: a name)
        end = top_level_cuts(t.items, t.i, "USING")[-1]
        if end < len(t.items) and not t.items[end].is_word("USING"):
            t.i = end
            raise t.error()
        source = _source(t, t.i, end)
        t.i = end
    else:
        name = _statement_name(t)
    using: list[str] = []
    if t.accept_word("USING"):
        start = t.i
        for cut in top_level_cuts(t.items, start, "USING"):
            if cut == start or (cut < len(t.items) and t.items[cut].is_word("USING")):
                t.i = cut
                raise t.error()
            using.append(_span(t, start, cut))
            start = cut + 1
        t.i = len(t.items)
    t.expect_end()
    return Execution(name, source, tuple(using))


def parse_deallocate(sql: str) -> str:
    """DEALLOCATE PREPARE name / DROP PREPARE name: the name (as written)."""
    t = Tokens(_without_semicolon(sql))
    t.expect_word("DEALLOCATE", "DROP")
    t.expect_word("PREPARE")
    name = _statement_name(t)
    t.expect_end()
    return name


_TYPED = {FieldType.DATE: "DATE", FieldType.NEWDATE: "DATE", FieldType.DATETIME: "TIMESTAMP",
          FieldType.TIMESTAMP: "TIMESTAMP", FieldType.TIME: "TIME"}
_BINARY_CHARSET = 63


def using_literal(value: Any, column_type: int, charset: int = 0) -> str:
    """A USING value (of a result column typed `column_type` in `charset`) as the statement's
    literal, as MariaDB's binlog writes it: a temporal value as its typed literal, a DECIMAL as
    its digits, a binary string's bytes as X'..', others by `literal`."""
    if isinstance(value, str):
        typed = _TYPED.get(column_type)
        if typed is not None:
            return typed + literal(value, ParamType(column_type))
        if charset == _BINARY_CHARSET:
            value = value.encode()
        elif column_type in (FieldType.DECIMAL, FieldType.NEWDECIMAL):
            value = value.encode("ascii", "replace")  # `literal` writes digits as they are
    return literal(value, ParamType(column_type))


async def _values(session: ClientSession, using: tuple[str, ...]) -> list[str]:
    """The USING expressions' values as literals, evaluated by the engine in one SELECT."""
    literals: list[str | None] = []
    evaluated: list[str] = []
    for text in using:
        tokens = Tokens(text).items
        if any(tok.is_word("SELECT") for tok in tokens):
            raise SQLError(ER_SUBQUERIES_NOT_SUPPORTED, "EXECUTE..USING")
        if len(tokens) == 1 and tokens[0].is_word("DEFAULT", "IGNORE"):
            literals.append("NULL")
        else:
            literals.append(None)
            evaluated.append(text)
    if evaluated:
        result = await session.evaluate_select("SELECT " + ", ".join(evaluated))
        row = iter(zip(result.rows[0], result.column_types, strict=True))
        for i, known in enumerate(literals):
            if known is None:
                value, kind = next(row)
                literals[i] = using_literal(value, getattr(kind, "type", FieldType.VAR_STRING),
                                            getattr(kind, "charset", 0))
    return literals  # type: ignore[return-value]


async def _text(session: ClientSession, source: Source) -> str:
    """A statement's text from its source: NULL is the text 'NULL', as MariaDB reads it."""
    if source.text is not None:
        return source.text
    if source.variable is not None:
        value = session.user_vars.get(source.variable)
    else:
        result = await session.evaluate_select("SELECT " + source.expression)  # type: ignore[operator]
        value = result.rows[0][0]
    if value is None:
        return "NULL"
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


async def prepare(session: ClientSession, sql: str, keyword: str) -> Any:
    name, source = parse_prepare(sql)
    statements = session.prepared
    statements.deallocate(name, None)
    await statements.prepare_named(name, await _text(session, source))
    return OK()


async def _run(session: ClientSession, stmt: PreparedStatement, using: tuple[str, ...]) -> Any:
    if len(using) != stmt.param_count:
        raise SQLError(ER_WRONG_ARGUMENTS, "EXECUTE")
    return await session.execute(stmt.bind_text(await _values(session, using)))


async def execute(session: ClientSession, sql: str, keyword: str) -> Any:
    execution = parse_execute(sql)
    statements = session.prepared
    if execution.name is not None:
        return await _run(session, statements.named(execution.name), execution.using)
    stmt = await statements.prepare_named(None, await _text(session, execution.source))  # type: ignore[arg-type]
    # (EXECUTE IMMEDIATE's statement is held while it runs, past max_prepared_stmt_count too)
    try:
        return await _run(session, stmt, execution.using)
    finally:
        statements.release(stmt)


async def deallocate(session: ClientSession, sql: str, keyword: str) -> Any:
    session.prepared.deallocate(parse_deallocate(sql), "DEALLOCATE PREPARE")
    return OK()


__all__ = ["Execution", "Source", "deallocate", "execute", "parse_deallocate", "parse_execute",
           "parse_prepare", "prepare", "using_literal"]
