"""SIGNAL and RESIGNAL outside a stored program, as MariaDB 10.11 answers them (sql_signal.cc),
and RESIGNAL's condition in a stored program's handler (`resignalled`).

Contract
- `signal(session, sql, keyword)` is an admin handler (`Admin.handlers`): it parses
  SIGNAL { SQLSTATE [VALUE] 'sqlstate' | condition } [SET item = value [, ...]] (RESIGNAL the
  same, its condition optional) and answers the condition it raises: an SQLError with the
  condition's MYSQL_ERRNO, SQLSTATE and MESSAGE_TEXT for an exception ('02' not found and any
  other class but '01'), an OK with one warning for a '01' warning.
- What MariaDB decides while parsing comes first, in the text's order: a SQLSTATE that is not
  five digits or capital letters, or of class '00', 1407; a named condition 1319 (none is
  declared outside a stored program); an item named twice 1641; an identifier as a value 1054
  (`CONCAT(...)` too: MariaDB resolves the name first), any other value that is no literal,
  user or system variable 1064. Then RESIGNAL is 1645 (no handler is active). Then the values,
  in MariaDB's item order (the ten string items, MESSAGE_TEXT, MYSQL_ERRNO): NULL 1231, a string item past 64 characters 1648 (a warning, 1647, and cut without
  strict mode), a MYSQL_ERRNO whose integer is not 1..65534 1231 naming its text.
- Values are computed by the engine (`ClientSession.evaluate_select`): an item's value is its
  CAST AS CHAR, MYSQL_ERRNO's its CAST AS SIGNED, as MariaDB's val_str / val_int read them;
  texts are utf8mb3 (a character past U+FFFF is '?'). Nothing is written or logged.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.routines import CONDITION_STRING_ITEMS
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_COND_ITEM_TOO_LONG,
    ER_DUP_SIGNAL_SET,
    ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER,
    ER_SIGNAL_EXCEPTION,
    ER_SIGNAL_NOT_FOUND,
    ER_SIGNAL_WARN,
    ER_SP_BAD_SQLSTATE,
    ER_SP_COND_MISMATCH,
    ER_WARN_COND_ITEM_TRUNCATED,
    ER_WRONG_VALUE_FOR_VAR,
    MySQLError,
    SQLError,
)
from protocol.messages import OK
from server.sql import Token, Tokens

if TYPE_CHECKING:
    from server.session import ClientSession

# The condition information items in MariaDB's order of evaluation (Diag_condition_item_name)
STRING_ITEMS = CONDITION_STRING_ITEMS
ITEMS = (*STRING_ITEMS, "MESSAGE_TEXT", "MYSQL_ERRNO")
STRING_ITEM_CHARS = 64
MAX_ERRNO = 65534
_SQLSTATE = re.compile(r"[0-9A-Z]{5}")
# words that make a string literal of the string after them: hex / bit strings, N'', typed literals
_STRING_PREFIXES = frozenset({"X", "B", "N", "DATE", "TIME", "TIMESTAMP"})


async def signal(session: ClientSession, sql: str, keyword: str) -> Any:
    """SIGNAL / RESIGNAL `sql`: the warning's OK, or the condition's SQLError (see the header)."""
    t = Tokens(sql)
    resignal = t.next().upper == "RESIGNAL"
    sqlstate = _condition(t, optional=resignal)
    values = _items(t)
    if resignal:
        raise SQLError(ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER)
    assert sqlstate is not None
    warned: list[tuple[str, int, str]] = []
    texts = await _evaluate(session, values, warned)
    default = ER_SIGNAL_WARN if sqlstate.startswith("01") else (
        ER_SIGNAL_NOT_FOUND if sqlstate.startswith("02") else ER_SIGNAL_EXCEPTION)
    errno = texts.get("MYSQL_ERRNO", default.code)
    message = texts.get("MESSAGE_TEXT", default.template)
    if default is ER_SIGNAL_WARN:
        session.diagnostics = [*warned, ("Warning", errno, message)]
        return OK(warnings=len(session.diagnostics))
    error = SQLError(MySQLError(errno, sqlstate, "%s"), message)
    error.warnings = tuple(warned)
    error.items = tuple((name, texts[name]) for name in STRING_ITEMS if name in texts)
    raise error


async def resignalled(session: ClientSession, sql: str, handled: SQLError) -> SQLError:
    """RESIGNAL [SQLSTATE 'sqlstate'] [SET item = value [, ...]] (`sql`, its values literals)
    in a stored program's handler of the error `handled`: the error it raises, as MariaDB's
    Sql_cmd_resignal: the handled condition, with a SQLSTATE given that SQLSTATE and its
    class's MYSQL_ERRNO (1643, 1644; its MESSAGE_TEXT kept), then the SET items'; with a
    SQLSTATE, the diagnostics area's conditions kept ahead of it as its warnings, the handled
    one among them (without, it stands alone). It is a warning (`level` "Warning": the caller
    adds it to the area, the statement succeeding) where its SQLSTATE is of class '01' (1642) and,
    without one, of the handled condition's level, as Sql_cmd_resignal's."""
    t = Tokens(sql)
    t.next()
    sqlstate = _condition(t, optional=True)
    values = _items(t)
    warned: list[tuple[str, int, str]] = []
    texts = await _evaluate(session, values, warned)
    errno = handled.code if sqlstate is None else (
        ER_SIGNAL_WARN if sqlstate.startswith("01") else
        ER_SIGNAL_NOT_FOUND if sqlstate.startswith("02") else ER_SIGNAL_EXCEPTION).code
    kept: list[tuple[str, int, str]] = []
    if sqlstate is not None:  # (the handled condition stays in the area, ahead of the new one)
        kept = list(session.diagnostics)
        if not any(entry[1] == handled.code and entry[2] == handled.message for entry in kept):
            kept.append(("Error", handled.code, handled.message))
    error = SQLError(MySQLError(texts.get("MYSQL_ERRNO", errno), sqlstate or handled.sqlstate, "%s"),
                     texts.get("MESSAGE_TEXT", handled.message))
    error.warnings = (*kept, *warned)
    error.items = tuple({**dict(handled.items), **{name: texts[name] for name in STRING_ITEMS if name in texts}}.items())
    error.level = handled.level if sqlstate is None else "Warning" if sqlstate.startswith("01") else "Error"
    return error


def _condition(t: Tokens, optional: bool) -> str | None:
    """The SQLSTATE signalled (None: RESIGNAL of the handled condition)."""
    if t.accept_word("SQLSTATE"):
        t.accept_word("VALUE")
        tok = t.next()
        if tok.kind != "STRING":
            t.i -= 1
            raise t.error()
        if not _SQLSTATE.fullmatch(tok.text) or tok.text.startswith("00"):
            raise SQLError(ER_SP_BAD_SQLSTATE, tok.text)
        return tok.text
    tok = t.peek()
    if tok is not None and tok.kind in ("WORD", "QUOTED") and not tok.is_word("SET"):
        raise SQLError(ER_SP_COND_MISMATCH, tok.text)
    if not optional:
        raise t.error()
    return None


def _items(t: Tokens) -> dict[str, tuple[list[Token], str]]:
    """SET item = value [, ...]: each item's value, its tokens and its text."""
    values: dict[str, tuple[list[Token], str]] = {}
    if t.at_end():
        return values
    t.expect_word("SET")
    while True:
        tok = t.next()
        name = tok.upper if tok.kind == "WORD" else ""
        if name not in ITEMS:
            t.i -= 1
            raise t.error()
        if name in values:
            raise SQLError(ER_DUP_SIGNAL_SET, name)
        t.expect_op("=")
        tokens = _value(t)
        after = t.peek()
        end = after.pos if after is not None else len(t.sql)
        values[name] = (tokens, t.sql[tokens[0].pos:end].rstrip(" \t\r\n;"))
        if t.at_end():
            return values
        t.expect_op(",")


def _value(t: Tokens) -> list[Token]:
    """A literal (adjacent strings, a prefixed or introduced string, a number, TRUE / FALSE /
    NULL) or a user or a system variable; an identifier is 1054, anything else 1064."""
    tok = t.next()
    if tok.kind == "QUOTED":
        raise SQLError(ER_BAD_FIELD_ERROR, tok.text, "SELECT")
    if tok.kind in ("NUMBER", "USERVAR", "SYSVAR") or tok.is_word("TRUE", "FALSE", "NULL"):
        return [tok]
    if tok.kind == "WORD" and (tok.upper in _STRING_PREFIXES or tok.text.startswith("_")):
        following = t.peek()
        if following is not None and following.kind == "STRING":
            return [tok, *_strings(t)]
        return [tok]
    if tok.kind == "WORD":  # (MariaDB resolves it as it parses it: before any error after it)
        raise SQLError(ER_BAD_FIELD_ERROR, tok.text, "SELECT")
    if tok.kind == "STRING":
        t.i -= 1
        return _strings(t)
    t.i -= 1
    raise t.error()


def _strings(t: Tokens) -> list[Token]:
    found = []
    while (tok := t.peek()) is not None and tok.kind == "STRING":
        found.append(t.next())
    return found


async def _evaluate(session: ClientSession, values: dict[str, tuple[list[Token], str]],
                    warned: list[tuple[str, int, str]]) -> dict[str, Any]:
    """The items' values in MariaDB's order: texts, and MYSQL_ERRNO's number; `warned` gets
    what a cut string item warns of."""
    named = [name for name in ITEMS if name in values]
    if not named:
        return {}
    selected = ", ".join(f"CAST({values[name][1]} AS CHAR)" for name in named)
    if "MYSQL_ERRNO" in values:
        tokens, text = values["MYSQL_ERRNO"]
        if tokens[0].kind == "NUMBER" and isinstance(tokens[0].value, int):
            text = str(tokens[0].value)  # (0x10: the number 16, as MariaDB reads it here)
        selected += f", CAST({text} AS SIGNED)"
    row = (await session.evaluate_select("SELECT " + selected)).rows[0]
    strict = "STRICT_" in str(session.sysvars.get("sql_mode", ""))
    out: dict[str, Any] = {}
    for name, text in zip(named, row, strict=False):
        if text is None:
            raise SQLError(ER_WRONG_VALUE_FOR_VAR, name, "NULL")
        text = _utf8mb3(text if isinstance(text, str) else text.decode("utf-8", "replace"))
        if name in STRING_ITEMS and len(text) > STRING_ITEM_CHARS:
            if strict:
                raise SQLError(ER_COND_ITEM_TOO_LONG, name)
            warned.append(("Warning", ER_WARN_COND_ITEM_TRUNCATED.code, ER_WARN_COND_ITEM_TRUNCATED.format(name)))
            text = text[:STRING_ITEM_CHARS]
        if name == "MYSQL_ERRNO":
            number = row[-1]
            if not 0 < number <= MAX_ERRNO:
                raise SQLError(ER_WRONG_VALUE_FOR_VAR, name, text)
            out[name] = number
        else:
            out[name] = text
    return out


def _utf8mb3(text: str) -> str:
    """`text` as MariaDB's diagnostics area holds it: a character past U+FFFF is '?'."""
    return text if text.isascii() else "".join("?" if ord(c) > 0xFFFF else c for c in text)
