"""Failures below the engine turned into MySQL's errors. Errors leaving the engine are
`SQLError`s with MySQL codes; these are the two places where others become one:
`map_sqlite_error` for what SQLite raises (and a statement or value that is not UTF-8: the
client's bytes, kept as surrogates), `parsing` for a parser running off the end of a malformed
statement (the client's syntax error). `in_clause` then names the clause an unknown or
ambiguous column is in, as MariaDB 10.11 does ("Unknown column 'x' in 'WHERE'"), from the
statement's text: SQLite's errors do not say. `IntoFile` is the one refusal the server shell
acts on (SELECT ... INTO OUTFILE / DUMPFILE: it writes the file); left alone it is 1235."""

from __future__ import annotations

import re
import sqlite3

from engine import functions
from engine.exact import LITERAL_MARK
from engine.lexer import decode_bits, decode_hex, extract, literal_texts, syntax_error, tokenize
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG,
    ER_DATA_OUT_OF_RANGE,
    ER_INVALID_CHARACTER_STRING,
    ER_INVALID_GROUP_FUNC_USE,
    ER_NO_SUCH_TABLE,
    ER_NO_TABLES_USED,
    ER_NON_UNIQ_ERROR,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_SP_DOES_NOT_EXIST,
    ER_TABLE_EXISTS_ERROR,
    ER_UNKNOWN_ERROR,
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
    ER_WRONG_VALUE_COUNT_ON_ROW,
    MySQLError,
    SQLError,
)

# What SQLite raises for a statement it refuses, before running any of it: its own errors, a
# statement text or string value that is not UTF-8 (the client's bytes, kept as surrogates), and
# an integer argument past its signed 64 bits (such values are bound as their digits: a bug).
SQLITE_INPUT_ERRORS = (sqlite3.Error, UnicodeEncodeError, OverflowError)


class IntoFile(SQLError):
    """SELECT ... INTO OUTFILE / DUMPFILE: a file on the server, which the server shell writes
    (server/file_statements.py) from the SELECT without the clause; where nothing does (a
    prepared statement, a stored program's body), MariaDB's not-supported error, 1235."""

    def __init__(self, kind: str) -> None:
        super().__init__(ER_NOT_SUPPORTED_YET, f"SELECT ... INTO {kind}")


def map_sqlite_error(exc: sqlite3.Error | UnicodeEncodeError | OverflowError, database: str | None) -> SQLError:
    if isinstance(exc, OverflowError):
        return SQLError(ER_NOT_SUPPORTED_YET, "an integer value past 64 bits here")
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
    if msg.startswith("ambiguous column name: "):
        return SQLError(ER_NON_UNIQ_ERROR, msg[len("ambiguous column name: "):], "field list")
    m = re.match(r"(\d+)\w\w (ORDER|GROUP) BY term out of range", msg)
    if m:  # ORDER BY 5 of two columns: its text is found by `in_clause`
        error = SQLError(ER_BAD_FIELD_ERROR, "?", f"{m.group(2)} BY")
        error.term = int(m.group(1))  # type: ignore[attr-defined]
        return error
    if re.fullmatch(r"table \S+ has \d+ columns but \d+ values were supplied|\d+ values for \d+ columns", msg):
        return SQLError(ER_WRONG_VALUE_COUNT_ON_ROW, 1)  # INSERT ... SELECT of another width
    if re.match(r"SELECTs to the left and right of \w+ do not have the same number of result columns", msg):
        return SQLError(ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT)
    if msg == "user-defined function raised exception" and (error := functions.raised()) is not None:
        return error  # a function failed the statement with MySQL's error (functions.raise_sql)
    m = re.match(r"signal\|(\d+)\|(\w{5})\|(.*)", msg, re.S)
    if m:  # a trigger's SIGNAL (`engine.triggers.signal_error`)
        return SQLError(MySQLError(int(m.group(1)), m.group(2), "%s"), message=m.group(3))
    m = re.match(r"(1442|1146|1054|1235)\|(.*)", msg, re.S)
    if m:  # what a trigger raised when it fired (`engine.triggers`)
        codes = {1442: ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, 1146: ER_NO_SUCH_TABLE, 1054: ER_BAD_FIELD_ERROR,
                 1235: ER_NOT_SUPPORTED_YET}
        return SQLError(codes[int(m.group(1))], message=m.group(2))
    if msg == "interrupted":  # KILL QUERY (SessionFunctions.interrupt)
        return SQLError(ER_QUERY_INTERRUPTED)
    if "no such function" in msg:
        name = msg.split(":", 1)[1].strip()
        # MariaDB looks a stored function up in the current database, if there is one
        return SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION", f"{database}.{name}" if database else name)
    return SQLError(ER_UNKNOWN_ERROR, f"engine: {msg}")


_CLAUSES = {"SELECT": "SELECT", "FROM": "FROM", "ON": "ON", "WHERE": "WHERE", "GROUP": "GROUP BY",
            "HAVING": "HAVING", "ORDER": "ORDER BY", "SET": "SET", "VALUES": "VALUES", "VALUE": "VALUES",
            "USING": "USING"}


def with_literal_texts(error: SQLError, sql: str) -> SQLError:
    """1690's printed expression with each marked literal (`exact.LITERAL_MARK`) as the statement
    writes it (`lexer.literal_texts`: 1e308, not the float's 1e+308), a hybrid as MariaDB prints
    one (0x and its bytes' lower-case hex: b'1' is 0x01). Any other error is returned as it is."""
    if error.error is not ER_DATA_OUT_OF_RANGE or LITERAL_MARK not in error.message:
        return error
    texts = [_printed_literal(text) for text in literal_texts(sql)]
    parts = error.message.split(LITERAL_MARK)
    for n in range(1, len(parts), 2):
        parts[n] = texts[int(parts[n])] if int(parts[n]) < len(texts) else "?"
    return SQLError(error.error, message="".join(parts))


def _printed_literal(text: str) -> str:
    if text[:2] not in ("0x", "0b") and text[:2].lower() != "b'":
        return text
    return "0x" + (decode_hex(text) if text[1] == "x" else decode_bits(text)).hex()


def in_clause(error: SQLError, sql: str) -> SQLError:
    """`error` with the clause MariaDB names: an unknown (1054) or ambiguous (1052) column that
    SQLite or the translation placed in the 'field list' is placed in the clause where the
    statement first names it (SELECT, WHERE, ON, GROUP BY, HAVING, ORDER BY, SET, VALUES, an
    INSERT's column list 'INSERT INTO', ON DUPLICATE KEY UPDATE's 'UPDATE'; a subquery's own);
    ORDER BY n beyond the select list names its n. Any other error is returned as it is."""
    if error.error not in (ER_BAD_FIELD_ERROR, ER_NON_UNIQ_ERROR):
        return error
    try:
        shape, params = extract(sql)
        tokens = tokenize(shape)
    except Exception:  # noqa: BLE001 - the error as it was is still the answer
        return error
    term = getattr(error, "term", None)
    if term is not None:
        clause = error.message.rsplit("'", 2)[-2]
        text = _term_text(tokens, params, clause.split()[0], term)
        return error if text is None else SQLError(ER_BAD_FIELD_ERROR, text, clause)
    if error.error is ER_BAD_FIELD_ERROR:
        prefix, suffix = "Unknown column '", "' in 'field list'"
    else:
        prefix, suffix = "Column '", "' in field list is ambiguous"
    if not (error.message.startswith(prefix) and error.message.endswith(suffix)):
        return error
    name = error.message[len(prefix):-len(suffix)]
    clause = _clause_naming(tokens, name.split(".")[-1].lower(), name.count("."))
    if clause is None:
        return error
    return SQLError(error.error, name, clause)


def _clause_naming(tokens, name: str, qualified: int) -> str | None:
    """The clause of the first token naming the column `name` (after `qualified` qualifiers)."""
    stack: list[str | None] = []  # each open parenthesis' clause
    clause: str | None = None
    insert = bool(tokens) and tokens[0].is_word("INSERT", "REPLACE")
    # ON DUPLICATE KEY UPDATE: MariaDB names its assigned columns' clause 'UPDATE', and so the
    # values of an INSERT ... SELECT's; a VALUES or SET row's update values 'SELECT'
    upsert_values = "UPDATE" if insert and _selects(tokens) else "SELECT"
    upsert = False
    for k, t in enumerate(tokens):
        if t.kind == "op" and t.text == "(":
            stack.append(clause)
            if insert and clause is None:
                clause = "INSERT INTO"  # INSERT INTO t (columns)
            continue
        if t.kind == "op" and t.text == ")":
            clause = stack.pop() if stack else clause
            continue
        if t.kind == "word" and t.upper in _CLAUSES and not (t.upper == "SET" and insert and clause is not None):
            if t.upper == "ON" and k + 1 < len(tokens) and tokens[k + 1].is_word("DUPLICATE"):
                clause, upsert = upsert_values, True
            elif not (t.upper == "SET" and clause == "UPDATE"):
                clause = _CLAUSES[t.upper]
            continue
        if t.kind in ("word", "ident") and t.text.lower() == name \
                and (k + 1 >= len(tokens) or tokens[k + 1].text not in (".", "(")):
            dotted = 0
            while k - 2 * dotted - 1 >= 0 and tokens[k - 2 * dotted - 1].text == ".":
                dotted += 1
            if dotted == qualified:
                first = k - 2 * dotted
                assigned = upsert and not stack and k + 1 < len(tokens) and tokens[k + 1].text == "=" \
                    and (tokens[first - 1].text == "," or tokens[first - 1].is_word("UPDATE"))
                return "UPDATE" if assigned else clause
    return None


def _selects(tokens) -> bool:
    """An INSERT ... SELECT: a SELECT outside any parenthesis."""
    depth = 0
    for t in tokens:
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.is_word("SELECT"):
            return True
    return False


def _term_text(tokens, params, word: str, term: int) -> str | None:
    """The text of the term-th term of the outermost ORDER BY / GROUP BY (`word`)."""
    depth = 0
    for k, t in enumerate(tokens):
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.is_word(word) and k + 1 < len(tokens) and tokens[k + 1].is_word("BY"):
            n, j = 1, k + 2
            while j < len(tokens) and n < term:
                if tokens[j].text == ",":
                    n += 1
                j += 1
            if j < len(tokens) and tokens[j].kind == "param":
                return str(params[tokens[j].param])
            return tokens[j].text if j < len(tokens) else None
    return None


def parsing(fn, *args):
    """Run a parser: running off the end of a malformed statement is the client's syntax error."""
    try:
        return fn(*args)
    except (IndexError, KeyError, ValueError, TypeError, AttributeError):
        raise syntax_error("") from None
