"""COM_STMT_BULK_EXECUTE: a prepared statement run for many rows of parameters in one command,
as MariaDB 10.11's mysqld_stmt_bulk_execute runs it (sql_prepare.cc, execute_bulk_loop).

Contract
- Only for a connection that negotiated MARIADB_CLIENT_STMT_BULK_OPERATIONS (the greeting offers
  it: server/session.py), with no flag but SEND_TYPES_TO_SERVER (10.11 has no unit results), for
  a statement with parameters that is an INSERT or REPLACE with VALUES or SET, an UPDATE or a
  DELETE; anything else is MariaDB's 1295. An unknown statement id is 1243, parameters that do
  not read (`protocol.binary.decode_bulk_rows`, long data sent for one) 1210
  "mysqld_stmt_bulk_execute"; a DEFAULT or IGNORE indicator where the placeholder is not a
  column's whole value (a VALUES item, `col = ?` of a SET or of ON DUPLICATE KEY UPDATE) is
  4032, as MariaDB's (a DEFAULT in `WHERE id = ?` of the primary key MariaDB answers with no
  row instead).
- An INSERT or REPLACE is one statement over all the rows, as MariaDB's (CF_SP_BULK_OPTIMIZED):
  when its placeholders all stand in its VALUES rows, the rows are written as multi-row
  statements (ROWS_PER_STATEMENT rows each; more than one run in one transaction, or a savepoint
  of the client's, undone whole when one fails) through `ClientSession.run_statement` (one OK:
  affected rows summed, the first id made, or the last row's value; all rows or none;
  RETURNING's rows as one binary result set); otherwise (a placeholder in ON
  DUPLICATE KEY UPDATE, INSERT ... SET) a statement per row in one transaction, or a savepoint
  of the client's, undone whole when a row fails, answered with the affected rows summed and the
  first id a row made (else the last row's value), and RETURNING there is 1295. Com_stmt_execute
  counts one (none for a command refused before it runs, as MariaDB's).
- An UPDATE or DELETE runs once per row, each its own statement as MariaDB's loop runs it (in
  autocommit, its own transaction): the first failing row ends the command with its error and
  the rows before it stay; else one OK with the affected rows summed. Com_stmt_execute counts
  each row.
- The binlog thus holds statements with the values inlined (the multi-row INSERT, or one
  statement per row), where a MariaDB with binlog_format ROW or MIXED (its default) logs the rows
  as row events; a MariaDB with STATEMENT refuses a bulk write (4033), which ours, whose binlog is
  statement-based and says STATEMENT, does not: a replica of either applies the same rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engine.results import Result
from protocol.binary import (
    BULK_SEND_TYPES_TO_SERVER,
    ComStmtBulkExecute,
    Indicator,
    ParamType,
    decode_bulk_rows,
)
from protocol.errors import (
    ER_INVALID_DEFAULT_PARAM,
    ER_UNSUPPORTED_PS,
    ER_WRONG_ARGUMENTS,
    RemoteProtocolError,
    SQLError,
)
from protocol.messages import STMT_BULK_OPERATIONS
from server import sql as sqltext
from server.prepared import PreparedStatement, PreparedStatements, in_client_charset, literal

if TYPE_CHECKING:
    from server.session import ClientSession

# The statements a bulk execution runs (MariaDB's CF_SP_BULK_SAFE), and those it runs as one
# statement over all the rows (CF_SP_BULK_OPTIMIZED)
_BULK_SAFE = frozenset({"INSERT", "REPLACE", "UPDATE", "DELETE"})
_ONE_STATEMENT = frozenset({"INSERT", "REPLACE"})
_SAVEPOINT = "__bulk_execute"

# A statement's tokens: quoted text and comments as a whole (they hold no placeholder), words,
# single characters; blanks and comments are dropped by `_tokens`
_TOKEN = re.compile(
    r"""
    (?P<skip>\s+|/\*.*?\*/|--(?=[ \t\r\n]|$)[^\n]*|\#[^\n]*)
    |'[^'\\]*(?:(?:\\.|'')[^'\\]*)*'
    |"[^"\\]*(?:(?:\\.|"")[^"\\]*)*"
    |`[^`]*(?:``[^`]*)*`
    |[\w$]+
    |.
    """,
    re.S | re.X,
)
# a message's row number ("Data too long for column 's' at row 2")
_AT_ROW = re.compile(r" at row (\d+)$")
# the rows of one statement of a bulk INSERT or REPLACE (`_insert_runs`): a statement of this
# many rows stays far from the engine's limit on a statement's values, and its translation is
# kept for the next one of the same size
ROWS_PER_STATEMENT = 1000
# words that end an UPDATE's SET list or an INSERT ... SET's assignments
_AFTER_SET = frozenset({"WHERE", "ORDER", "LIMIT", "ON", "RETURNING"})


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int
    depth: int  # parentheses around it (a parenthesis itself: those outside it)


@dataclass(frozen=True, slots=True)
class BulkShape:
    """What a bulk execution needs to know of a prepared statement's text: where its VALUES
    rows are when they hold every placeholder (`rows`: their span in the text; else None),
    and for each placeholder what a DEFAULT or IGNORE indicator becomes there (None: 4032;
    for IGNORE in an UPDATE's `col = ?`, `col` itself: the column left as it is)."""

    text: str  # the statement, each placeholder a `?`
    placeholders: tuple[int, ...]  # their offsets in `text`
    rows: tuple[int, int] | None
    defaults: tuple[tuple[str, str] | None, ...]  # per placeholder: (DEFAULT's text, IGNORE's)


def _tokens(text: str) -> list[_Token]:
    out = []
    depth = 0
    for m in _TOKEN.finditer(text):
        if m.group("skip") is not None:
            continue
        word = m.group()
        if word == ")":
            depth -= 1
        out.append(_Token(word, m.start(), m.end(), depth))
        if word == "(":
            depth += 1
    return out


def _word(token: _Token, *words: str) -> bool:
    return token.text.upper() in words


def shape(pieces: list[str]) -> BulkShape | None:
    """The `BulkShape` of the statement whose text around its placeholders is `pieces`; None
    when the placeholders cannot be found again in it (then no bulk execution)."""
    text = "?".join(pieces)
    tokens = _tokens(text)
    marks = [k for k, token in enumerate(tokens) if token.text == "?"]
    if len(marks) != len(pieces) - 1:
        return None
    keyword = tokens[0].text.upper() if tokens else ""
    defaults: list[tuple[str, str] | None] = [None] * len(marks)
    rows = None
    after = len(tokens)  # where the VALUES rows or the SET list end
    top = [k for k, token in enumerate(tokens) if token.depth == 0]
    values_at = next((k for k in top if _word(tokens[k], "VALUES", "VALUE")), None)
    set_at = next((k for k in top if _word(tokens[k], "SET")), None)
    if keyword in _ONE_STATEMENT and values_at is not None:
        span = _values_span(tokens, values_at)
        if span is not None:
            first, last = span
            if all(first <= k <= last for k in marks):
                rows = (tokens[first].start, tokens[last].end)
            for n, k in enumerate(marks):  # a VALUES item alone: DEFAULT, IGNORE alike
                if first < k < last and tokens[k].depth == tokens[first].depth + 1 and \
                        tokens[k - 1].text in ("(", ",") and tokens[k + 1].text in (")", ","):
                    defaults[n] = ("DEFAULT", "DEFAULT")
            after = last
    elif set_at is not None and keyword in _BULK_SAFE:
        _assignments(tokens, text, set_at + 1, marks, defaults, keyword == "UPDATE")
        after = set_at
    update_at = next((k for k in top if k > after and _word(tokens[k], "UPDATE")), None)
    if keyword in _ONE_STATEMENT and update_at is not None:  # ON DUPLICATE KEY UPDATE's, an INSERT's
        _assignments(tokens, text, update_at + 1, marks, defaults, False)
    return BulkShape(text, tuple(tokens[k].start for k in marks), rows, tuple(defaults))


def _assignments(tokens: list[_Token], text: str, start: int, marks: list[int],
                 defaults: list[tuple[str, str] | None], ignore_keeps: bool) -> None:
    """The `col = ?` of the assignment list from `tokens[start]` on (a SET's, or ON DUPLICATE
    KEY UPDATE's), their placeholders' entries of `defaults`: DEFAULT the column's default, and
    IGNORE the column as it is (`ignore_keeps`: an UPDATE's) or its default (an INSERT's)."""
    for n, k in enumerate(marks):
        if tokens[k].depth or k < start + 2 or tokens[k - 1].text != "=":
            continue
        ends = k + 1 == len(tokens) or tokens[k + 1].text == "," or _word(tokens[k + 1], *_AFTER_SET)
        if not ends or any(_word(tokens[j], *_AFTER_SET) for j in range(start, k) if tokens[j].depth == 0):
            continue
        begin = max((j for j in range(start, k - 1) if tokens[j].text == "," and tokens[j].depth == 0),
                    default=start - 1) + 1
        defaults[n] = ("DEFAULT", text[tokens[begin].start : tokens[k - 2].end] if ignore_keeps else "DEFAULT")


def _values_span(tokens: list[_Token], at: int) -> tuple[int, int] | None:
    """The first and last token (the parentheses) of the rows after VALUES at `tokens[at]`."""
    k = at + 1
    first = last = None
    while k < len(tokens) and tokens[k].text == "(" and tokens[k].depth == tokens[at].depth:
        first = k if first is None else first
        k += 1
        while k < len(tokens) and not (tokens[k].text == ")" and tokens[k].depth == tokens[at].depth):
            k += 1
        if k == len(tokens):
            return None
        last = k
        k += 1
        if k < len(tokens) and tokens[k].text == "," and k + 1 < len(tokens) and tokens[k + 1].text == "(":
            k += 1
            continue
        break
    return None if first is None or last is None else (first, last)


def _kind(stmt: PreparedStatement, bulk: BulkShape | None) -> str:
    """The statement's keyword when a bulk execution runs it, else MariaDB's 1295: a statement
    without parameters, or other than an INSERT or REPLACE with VALUES or SET (not ... SELECT),
    an UPDATE or a DELETE."""
    keyword = sqltext.head(stmt.pieces[0]).partition(" ")[0]
    if stmt.param_count == 0 or bulk is None or keyword not in _BULK_SAFE:
        raise SQLError(ER_UNSUPPORTED_PS)
    if keyword in _ONE_STATEMENT and bulk.rows is None:
        top = [t for t in _tokens(bulk.text) if t.depth == 0]
        if not any(_word(t, "VALUES", "VALUE", "SET") for t in top):
            raise SQLError(ER_UNSUPPORTED_PS)  # INSERT ... SELECT / TABLE
    return keyword


def _literals(bulk: BulkShape, row: list[Any], types: list[ParamType], warnings: list) -> list[str]:
    """Each placeholder's text for one row: its value as `literal` writes it, or what a DEFAULT
    or IGNORE indicator becomes there (4032 where it cannot stand)."""
    out = []
    for n, value in enumerate(row):
        if isinstance(value, Indicator):
            where = bulk.defaults[n]
            if where is None:
                raise SQLError(ER_INVALID_DEFAULT_PARAM)
            out.append(where[0] if value is Indicator.DEFAULT else where[1])
        else:
            out.append(literal(value, types[n], warnings))
    return out


def _bound(bulk: BulkShape, texts: list[str], start: int = 0, end: int | None = None) -> str:
    """`bulk.text[start:end]` with the placeholders in it replaced by `texts` (in order)."""
    text = bulk.text
    end = len(text) if end is None else end
    out = []
    at = start
    n = 0
    for offset in bulk.placeholders:
        if start <= offset < end:
            out.append(text[at:offset])
            out.append(texts[n])
            at = offset + 1
            n += 1
    out.append(text[at:end])
    return "".join(out)


async def execute_bulk(statements: PreparedStatements, command: ComStmtBulkExecute) -> None:
    """Run `command` for its session and send the answer (the module's header); raises SQLError
    for the session's ERR."""
    session = statements.session
    conn = session.conn
    assert conn is not None
    if not conn.capabilities & STMT_BULK_OPERATIONS or command.flags & ~BULK_SEND_TYPES_TO_SERVER:
        raise SQLError(ER_UNSUPPORTED_PS)
    stmt = statements.find(command.statement_id, "mysqld_stmt_execute")
    stmt.raise_long_data_error()  # as COM_STMT_EXECUTE reports a bad COM_STMT_SEND_LONG_DATA
    bulk = shape(stmt.pieces)
    keyword = _kind(stmt, bulk)
    assert bulk is not None
    try:
        if stmt.long_data:  # (no long data in a bulk row)
            raise RemoteProtocolError("long data for a bulk execution")
        rows, types = decode_bulk_rows(command.params, stmt.param_count, stmt.types,
                                       bool(command.flags & BULK_SEND_TYPES_TO_SERVER))
    except RemoteProtocolError:
        stmt.long_data.clear()
        raise SQLError(ER_WRONG_ARGUMENTS, "mysqld_stmt_bulk_execute") from None
    stmt.types = types
    stmt.cursor = None
    rows = [in_client_charset(row, types, conn.client_charset) for row in rows]
    if stmt.columns and (keyword not in _ONE_STATEMENT or bulk.rows is None):  # RETURNING, row by row
        raise SQLError(ER_UNSUPPORTED_PS)
    session.server.stats.com["Com_stmt_execute"] += 1
    warned: list[tuple[str, int, str]] = []  # reading the values' (a DECIMAL's: `literal`)
    if keyword not in _ONE_STATEMENT:
        result = await _each(session, (_bound(bulk, _literals(bulk, row, types, warned)) for row in rows))
    else:
        runs = _insert_runs(bulk, [_literals(bulk, row, types, warned) for row in rows])
        result = await (_run(session, runs[0][0]) if len(runs) == 1 else _one_transaction(session, runs))
    # one OK without the info of a multi-row statement ("Records: ..."), as MariaDB's bulk
    # statement has one VALUES row; the values' warnings first
    result = replace(result, info="", warnings=(*warned, *result.warnings))
    if session.server.query_logs.active:
        session.logged_result = result
    if getattr(result, "columns", None):  # INSERT ... RETURNING: its rows in binary, as COM_STMT_EXECUTE's
        statements.answer_rows(stmt, 0, result, None)
    else:
        session.send_result(result)


def _insert_runs(bulk: BulkShape, texts: list[list[str]]) -> list[tuple[str, int]]:
    """An INSERT's or REPLACE's statements for rows whose placeholders' texts are `texts`, each
    with the number of its first row: multi-row statements of ROWS_PER_STATEMENT rows at most
    when the VALUES rows hold every placeholder (`BulkShape.rows`), else one per row."""
    if bulk.rows is None:
        return [(_bound(bulk, row), k + 1) for k, row in enumerate(texts)]
    start, end = bulk.rows
    head, tail = bulk.text[:start], bulk.text[end:]
    return [(head + ", ".join(_bound(bulk, row, start, end) for row in texts[at : at + ROWS_PER_STATEMENT]) + tail,
             at + 1) for at in range(0, len(texts), ROWS_PER_STATEMENT)]


async def _run(session: ClientSession, sql: str) -> Any:
    if session.server.query_logs.active:
        session.log_statement("Execute", sql, sql)
    return await session.run_statement(sql)


def _at_row(message: str, row: int) -> str:
    """A message of a statement whose first row is bulk row `row`, with MariaDB's row number:
    the bulk row's ("at row 2" of that statement is `row` + 1)."""
    found = _AT_ROW.search(message)
    return message if found is None else f"{message[:found.start(1)]}{int(found.group(1)) + row - 1}"


async def _run_row(session: ClientSession, sql: str, row: int, warnings: list) -> Any:
    """`_run` of a statement whose first row is bulk row `row` (from 1), its warnings added to
    `warnings`."""
    try:
        result = await _run(session, sql)
    except SQLError as exc:
        if row == 1 or _AT_ROW.search(exc.message) is None:
            raise
        raised = SQLError(exc.error, message=_at_row(exc.message, row))
        raised.warnings = exc.warnings
        raise raised from None
    warnings.extend((level, code, _at_row(message, row)) for level, code, message in result.warnings)
    return result


async def _each(session: ClientSession, statements: Iterator[str]) -> Result:
    """An UPDATE's or DELETE's rows: each its own statement, bound when its turn comes (a
    DEFAULT where it cannot stand fails that row: 4032), the first error ending the run. A
    message's "at row n" is its own execution's (the rows its scan read), as MariaDB's, which
    numbers each execution of the bulk loop apart."""
    affected = 0
    warnings: list = []
    for k, sql in enumerate(statements):
        if k:
            session.server.stats.com["Com_stmt_execute"] += 1  # (the command counted the first)
        result = await _run(session, sql)
        warnings.extend(result.warnings)
        affected += result.affected_rows
    return Result(affected_rows=affected, warnings=tuple(warnings))


async def _one_transaction(session: ClientSession, statements: list[tuple[str, int]]) -> Result:
    """An INSERT's or REPLACE's statements (each with the number of its first row) in one
    transaction (or a savepoint of the client's), undone whole when one fails: one statement's
    answer (RETURNING's rows all together)."""
    es = session.engine_session
    assert es is not None
    own = not es.in_transaction
    await session.execute("BEGIN" if own else f"SAVEPOINT {_SAVEPOINT}")
    affected = last_id = 0
    returned: list = []
    first: Any = None
    made = None  # the first id a row made (LAST_INSERT_ID() changed), as one statement's
    before = es.last_insert_id
    warnings: list = []
    try:
        with es.one_statement_time():
            for sql, row in statements:
                result = await _run_row(session, sql, row, warnings)
                first = first or result
                returned.extend(getattr(result, "rows", None) or ())
                affected += result.affected_rows
                last_id = result.last_insert_id or 0
                if made is None and es.last_insert_id != before:
                    made = es.last_insert_id
    except BaseException:
        await session.execute("ROLLBACK" if own else f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}")
        raise
    await session.execute("COMMIT" if own else f"RELEASE SAVEPOINT {_SAVEPOINT}")
    if made is not None:
        es.last_insert_id = made
    # MariaDB's insert id of one statement: the first id it made, else the last row's value
    return Result(columns=first.columns, column_types=first.column_types, rows=returned, affected_rows=affected,
                  last_insert_id=last_id if made is None else made, warnings=tuple(warnings))


__all__ = ["BulkShape", "execute_bulk", "shape"]
