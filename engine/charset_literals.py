"""String literals of a character set other than utf8mb4, read as MariaDB reads them.

Contract
- The engine holds every string as UTF-8 text. A string literal of another character set (any
  non-ASCII string literal, or string parameter of a prepared statement, on a connection whose
  character_set_connection is latin1, cp1251, gbk or another that protocol.charsets converts
  for (ascii aside); a `_latin1 '..'` / `_cp1251 X'..'` literal of one on any connection) is
  that character set's bytes to MariaDB: a binary column stores them, LENGTH
  counts them, HEX writes them, while a column of characters stores its characters converted.
- `read(plan, params, connection, items_converted)` gives the literals as the plan reads them:
  where the translation read a literal by its bytes (`translate.BYTES`) it gets its bytes in its character set
  (`values.binary_value`), by its characters (TEXT, or ITEM when the client's
  character_set_results converts answers) its text; anywhere else, or read both ways, the
  statement is refused with 1235, never answered otherwise than MariaDB would answer it. An
  ASCII string is the same bytes in every character set here and is left as it is.
- A binary connection's (SET NAMES binary: mydumper's, myloader's) non-ASCII string, bare or
  after `_binary`, is its bytes: read by its bytes (BYTES) it is them, stored in a column of the
  utf8 family (STORED) it is the characters they are in UTF-8, as MariaDB copies them there;
  anywhere else, or stored when they are not UTF-8, 1235. The statement a replica runs has the
  bytes as `X'..'` where they were read as bytes.
- A non-ASCII literal after `N`, `_utf8`, `_utf8mb3`, `_utf8mb4` or `_ascii`, or any non-ASCII
  literal on an ascii connection or one of a character set not in protocol.charsets, is refused (1235):
  MariaDB reads the connection's bytes in that character set, which these strings do not keep.
- DDL keeps a literal's text: `check_ddl` refuses (1235) one on such a connection that would
  keep a non-ASCII one where MariaDB keeps its bytes (a binary column's DEFAULT) or reads it
  again later (a view's SELECT, a CHECK's condition), as MariaDB does with the connection's
  character sets it keeps beside them.
- The statement a replica runs carries what `read` decided: each such literal written as
  `_latin1 X'..'`, `_cp1251 X'..'` ... (after an introducer: `X'..'`), which MariaDB and this engine read alike on
  the utf8mb4 connection a binlog's statements run on (`logged`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.catalog import BLOB_TYPES, Table
from engine.lexer import replace_literals
from engine.translate import BYTES, ITEM, STORED, TEXT, Plan
from engine.values import binary_value
from protocol.charsets import BINARY, Charset, introduced_charset
from protocol.errors import ER_NOT_SUPPORTED_YET, SQLError

# the introducers (upper-cased, as `Plan.introduced` holds them) of a character set read as utf8
_UTF8_INTRODUCERS = frozenset({"N", "_UTF8", "_UTF8MB3", "_UTF8MB4", "_ASCII"})


def _refused(what: str) -> SQLError:
    return SQLError(ER_NOT_SUPPORTED_YET, what)


def read(plan: Plan, params: list[object], connection: Charset | None,
         items_converted: bool) -> tuple[list[object], dict[int, str]]:
    """`params` as `plan` reads them (see the module's contract), and the text each rewritten
    literal takes in the statement a replica runs (`logged`), by literal index. `connection`:
    the session's character_set_connection when it is not utf8 (None for utf8mb4 / utf8mb3);
    `items_converted`: whether the client's character_set_results converts answers (not NULL
    or binary, under which MariaDB sends a literal's own bytes)."""
    introduced = dict(plan.introduced)
    out = list(params)
    logged: dict[int, str] = {}
    for n, value in enumerate(params):
        word = introduced.get(n)
        cs = introduced_charset(word)
        if cs is not None:
            if isinstance(value, bytes):
                text = cs.decode(value)
            elif isinstance(value, str):  # the literal's bytes as the connection sent them
                text = value if connection is cs or value.isascii() else cs.decode(
                    value.encode("utf-8", "surrogateescape"))
                if connection not in (None, cs) and not value.isascii():
                    raise _refused(f"a _{cs.name} string with characters beyond ASCII on a {connection.name}"
                                   " connection")
            else:
                continue
            if text.isascii():
                out[n] = text
                continue
            if isinstance(value, str):
                logged[n] = "X'" + cs.encode(text).hex().upper() + "'"
        elif type(value) is str and not value.isascii() and connection is BINARY and word in (None, "_BINARY"):
            out[n], logged_text = _binary_read(plan.charset_contexts.get(n), value)
            if logged_text is not None:
                logged[n] = logged_text
            continue
        elif type(value) is str and not value.isascii() and connection is not None:
            # (read here: a connection of a character set whose strings its introducer would name)
            if word in _UTF8_INTRODUCERS or introduced_charset(f"_{connection.name}") is not connection:
                raise _refused(f"a string with characters beyond ASCII introduced otherwise than by the "
                               f"{connection.name} connection's character set")
            cs, text = connection, value
            logged[n] = ("X'" if word is not None else f"_{cs.name} X'") + cs.encode(text).hex().upper() + "'"
        else:
            continue
        out[n] = _as_read(plan.charset_contexts.get(n), text, items_converted, cs)
    return out, logged


def _binary_read(context: str | None, value: str) -> tuple[Any, str | None]:
    """A binary connection's non-ASCII string `value` (its bytes as the wire's text holds them)
    where the plan reads it as `context`, and its text in the binlog's statement (None: as it is)."""
    raw = value.encode("utf-8", "surrogateescape")
    if context == BYTES:
        return binary_value(raw), "X'" + raw.hex().upper() + "'"
    if context == STORED and raw.decode("utf-8", "replace") == value:
        return value, None
    raise _refused("a binary connection's string with bytes beyond ASCII in this place")


def check_ddl(action: Any, table: Callable[[str, str], Table | None]) -> None:
    """1235 for the DDL `action` of a connection of another character set than utf8 (see the module's contract) when a table
    it writes has a binary column with a new non-ASCII DEFAULT, a new CHECK or view with non-ASCII
    text; `table(schema, name)`: the catalog's table before it."""
    for made in action.put:
        before = table(made.schema, made.name)
        old_defaults = {(c.name, c.base, c.default) for c in before.columns} if before is not None else set()
        old_checks = {c.clause for c in before.checks} if before is not None else set()
        if any(col.base in BLOB_TYPES and isinstance(col.default, str) and not col.default.isascii()
               and (col.name, col.base, col.default) not in old_defaults for col in made.columns) \
                or any(not c.clause.isascii() and c.clause not in old_checks for c in made.checks):
            raise _refused("a string of the connection's character set with characters beyond ASCII in a binary"
                           " column's DEFAULT or a CHECK")
    if any(not view.select.isascii() for view in action.put_views):
        raise _refused("a view written with characters beyond ASCII on a connection of another character set"
                       " than utf8")


def _as_read(context: str | None, text: str, items_converted: bool, cs: Charset) -> Any:
    """The value a string `text` of `cs` takes where the plan reads it as `context`."""
    if context == BYTES:
        return binary_value(cs.encode(text))
    if context in (TEXT, STORED) or context == ITEM and items_converted:
        return text
    raise _refused(f"a {cs.name} string with characters beyond ASCII in this place")


def logged(sql: str, texts: dict[int, str]) -> str:
    """`sql` with each literal of `texts` (by its index among the statement's literals) written
    as `texts` says (`read`)."""
    return replace_literals(sql, texts) if texts else sql
