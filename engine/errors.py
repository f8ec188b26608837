"""Failures below the engine turned into MySQL's errors. Errors leaving the engine are
`SQLError`s with MySQL codes; these are the two places where others become one:
`map_sqlite_error` for what SQLite raises (and a statement or value that is not UTF-8: the
client's bytes, kept as surrogates), `parsing` for a parser running off the end of a malformed
statement (the client's syntax error)."""

from __future__ import annotations

import re
import sqlite3

from engine import functions
from engine.lexer import syntax_error
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_INVALID_CHARACTER_STRING,
    ER_INVALID_GROUP_FUNC_USE,
    ER_NO_SUCH_TABLE,
    ER_NO_TABLES_USED,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_SP_DOES_NOT_EXIST,
    ER_TABLE_EXISTS_ERROR,
    ER_UNKNOWN_ERROR,
    SQLError,
)

# What SQLite raises for a statement it refuses, before running any of it: its own errors, and
# a statement text or string value that is not UTF-8 (the client's bytes, kept as surrogates).
SQLITE_INPUT_ERRORS = (sqlite3.Error, UnicodeEncodeError)


def map_sqlite_error(exc: sqlite3.Error | UnicodeEncodeError, database: str | None) -> SQLError:
    if isinstance(exc, UnicodeEncodeError):
        bad = exc.object[exc.start : exc.end].encode("utf-8", "surrogateescape")
        return SQLError(ER_INVALID_CHARACTER_STRING, "utf8mb4", bad.hex().upper())
    msg = str(exc)
    m = re.match(r"no such table: (?:([^.]+)\.)?(.+)", msg)
    if m:
        return SQLError(ER_NO_SUCH_TABLE, m.group(1) or database or "", m.group(2))
    m = re.match(r"no such column: (.+)", msg)
    if m:
        return SQLError(ER_BAD_FIELD_ERROR, m.group(1), "field list")
    if msg.startswith("misuse of aggregate"):  # an aggregate where none may be (WHERE, RETURNING)
        return SQLError(ER_INVALID_GROUP_FUNC_USE)
    m = re.match(r"table (?:\"?\w+\"?\.)?\"?([^\"]+)\"? already exists", msg)
    if m:
        return SQLError(ER_TABLE_EXISTS_ERROR, m.group(1))
    m = re.search(r'near "(.*)": syntax error', msg)
    if m or "syntax error" in msg or "incomplete input" in msg:
        return syntax_error(m.group(1) if m else "")
    m = re.match(r'unrecognized token: "(.*)"', msg)
    if m:
        # MySQL's bitwise XOR has no SQLite operator: unsupported, never a wrong value; any
        # other token SQLite cannot read is a syntax error
        if m.group(1) == "^":
            return SQLError(ER_NOT_SUPPORTED_YET, "the ^ (bitwise XOR) operator")
        return syntax_error(m.group(1))
    if msg == "no tables specified":  # SELECT * without FROM
        return SQLError(ER_NO_TABLES_USED)
    if "ambiguous column name" in msg:
        return SQLError(ER_UNKNOWN_ERROR, msg.replace("ambiguous column name: ", "Column '") + "' is ambiguous")
    if msg == "user-defined function raised exception" and (error := functions.raised()) is not None:
        return error  # a function failed the statement with MySQL's error (functions.raise_sql)
    if msg == "interrupted":  # KILL QUERY (SessionFunctions.interrupt)
        return SQLError(ER_QUERY_INTERRUPTED)
    if "no such function" in msg:
        name = msg.split(":", 1)[1].strip()
        # MariaDB looks a stored function up in the current database, if there is one
        return SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION", f"{database}.{name}" if database else name)
    return SQLError(ER_UNKNOWN_ERROR, f"engine: {msg}")


def parsing(fn, *args):
    """Run a parser: running off the end of a malformed statement is the client's syntax error."""
    try:
        return fn(*args)
    except (IndexError, KeyError, ValueError, TypeError, AttributeError):
        raise syntax_error("") from None
