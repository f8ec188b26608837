"""LOAD DATA [LOCAL] INFILE: the client's file, or the server's, read into a table, as MariaDB
10.11 reads it.

    LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'file' [REPLACE | IGNORE]
        INTO TABLE t [CHARACTER SET cs]
        [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
        [LINES [STARTING BY 's'] [TERMINATED BY 's']]
        [IGNORE n {LINES | ROWS}] [(column, ...)]

With LOCAL the file comes through the protocol's LOCAL INFILE exchange
(`ClientSession.read_local_infile`); without, it is the server's own, read under the FILE
privilege and secure_file_priv (`file_statements.read_server_file`: 1045, 1290, 13). It
is cut into rows and fields by MySQL's rules (`split_rows`: sql_load.cc's READ_INFO), and each
field is stored as the column stores it, leniently as LOAD DATA does in MariaDB: a value strict
mode would refuse is adjusted with a warning, a row with too few fields gives the missing
columns their defaults (1261), one with too many drops the rest (1262), \\N for a NOT NULL column
its implicit default (1263), a column the list leaves out that has no default its implicit
default (one 1364 for the statement, in any mode); a row meeting a key is skipped with a warning (LOCAL is IGNORE
unless REPLACE is said: the client's file cannot be stopped half-way). Without LOCAL, IGNORE
does that too; without IGNORE (LOCAL REPLACE, REPLACE, neither), strict mode (as MariaDB's)
makes those adjustments errors, and without REPLACE a duplicate key fails the load (1062). The rows then go in as INSERT IGNORE (a row at a time),
INSERT or REPLACE statements through the session's statement path, in
one transaction (or a savepoint of the client's), so that the binlog carries plain statements
any replica runs (where MariaDB's master would log the file's bytes: a replica loads the same rows
either way), and a failing row undoes the whole load as MariaDB's statement does; they all
take one statement's time (a DEFAULT CURRENT_TIMESTAMP alike in every row). The answer is
MariaDB's: "Records: r  Deleted: d  Skipped: s  Warnings: w" and the warnings in row order.

A column list may name user variables (@x: set to the row's field, its text, before the row's
INSERT) and SET col = expr, ... computes columns from them; that INSERT reads them, so the binlog
carries their values with it (User_var events) and a row at a time goes in.

A MariaDB master's LOAD DATA reaches our slave as its file's events and the statement
(`replicated_load`, the applier's `load_rows` seam): the same parse, the same rows and the same
statements (`load_statements`), strict or lenient as the event's sql_mode and duplicate handling
say, run in the applier's transaction instead of a session's.

Not supported (MariaDB's not-supported error, 1235): LOAD XML; CHARACTER SET other than utf8 /
utf8mb4 / binary. A client that did not allow LOCAL, or a server with local_infile OFF, gets
4166, as from MariaDB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from engine import values
from engine.lexer import mysql_ident
from engine.results import LAX_VALUES, write_mode
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_LOAD_INFILE_CAPABILITY_DISABLED,
    ER_NO_DB_ERROR,
    ER_NO_DEFAULT_FOR_FIELD,
    ER_NO_SUCH_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_WARN_NULL_TO_NOTNULL,
    ER_WARN_TOO_FEW_RECORDS,
    ER_WARN_TOO_MANY_RECORDS,
    SQLError,
)
from protocol.messages import OK, Capability
from server.file_statements import (
    FIELDS_OPTIONS,
    LINES_OPTIONS,
    by_options,
    read_server_file,
    require_file_privilege,
)
from server.sql import Tokens
from server.user_statements import string_literal
from server.variables import Scope

if TYPE_CHECKING:
    from server.session import ClientSession

ROWS_PER_INSERT = 500  # rows of one REPLACE (INSERT and INSERT IGNORE go a row at a time)


@dataclass
class LoadData:
    """A parsed LOAD DATA statement."""

    filename: str
    schema: str | None
    table: str
    duplicates: str = ""  # "", "REPLACE" or "IGNORE"
    fields_terminated: str = "\t"
    enclosed: str = ""
    escaped: str = "\\"
    lines_terminated: str = "\n"
    lines_starting: str = ""
    ignore_lines: int = 0
    columns: list[str] = field(default_factory=list)
    # SET column = expression, ...: each expression's text (it may read the row's @variables)
    assignments: list[tuple[str, str]] = field(default_factory=list)
    local: bool = True  # LOCAL: the client's file; else the server's
    optionally: bool = False  # (OPTIONALLY ENCLOSED BY: the same reading as ENCLOSED BY)


def parse(sql: str) -> LoadData:
    """The statement, or SQLError: 1064 at bad syntax, 1235 for what is not supported."""
    t = Tokens(sql)
    t.expect_word("LOAD")
    if t.accept_word("XML"):
        raise SQLError(ER_NOT_SUPPORTED_YET, "LOAD XML")
    t.expect_word("DATA")
    t.accept_word("LOW_PRIORITY", "CONCURRENT")
    local = t.accept_word("LOCAL") is not None
    t.expect_word("INFILE")
    filename = string_literal(t)
    duplicates = t.accept_word("REPLACE", "IGNORE") or ""
    t.expect_word("INTO")
    t.expect_word("TABLE")
    first = t.name()
    schema, table = (first, t.name()) if t.accept_op(".") else (None, first)
    load = LoadData(filename, schema, table, duplicates, local=local)
    if t.accept_word("CHARACTER"):
        t.expect_word("SET")
        charset = t.name().lower()
        if charset not in ("utf8", "utf8mb4", "utf8mb3", "binary"):
            raise SQLError(ER_NOT_SUPPORTED_YET, f"LOAD DATA CHARACTER SET {charset}")
    if t.accept_word("FIELDS", "COLUMNS"):
        by_options(t, load, FIELDS_OPTIONS)
    if t.accept_word("LINES"):
        by_options(t, load, LINES_OPTIONS)
    if t.accept_word("IGNORE"):
        load.ignore_lines = t.integer()
        t.expect_word("LINES", "ROWS")
    if t.accept_op("("):
        if not t.accept_op(")"):
            while True:
                tok = t.peek()
                if tok is not None and tok.kind == "USERVAR":
                    t.next()
                    load.columns.append("@" + str(tok.value))
                else:
                    load.columns.append(t.name())
                if t.accept_op(")"):
                    break
                t.expect_op(",")
    if t.accept_word("SET"):
        while True:
            column = t.name()
            t.expect_op("=")
            load.assignments.append((column, _expression(t)))
            if not t.accept_op(","):
                break
    t.expect_end()
    if len(load.enclosed) > 1 or len(load.escaped) > 1:
        raise SQLError(ER_NOT_SUPPORTED_YET, "ENCLOSED BY or ESCAPED BY of more than one character")
    if not load.lines_terminated and not load.fields_terminated:
        raise SQLError(ER_NOT_SUPPORTED_YET, "fixed-width rows (empty FIELDS and LINES TERMINATED BY)")
    return load


def _expression(t: Tokens) -> str:
    """The text of a SET assignment's expression: up to a comma outside parentheses, or the end."""
    depth, start = 0, t.peek()
    if start is None:
        raise t.error()
    while (tok := t.peek()) is not None:
        if tok.kind == "OP" and tok.text == "," and depth == 0:
            break
        if tok.kind == "OP" and tok.text in "()":
            depth += 1 if tok.text == "(" else -1
        t.next()
    end = tok.pos if tok is not None else len(t.sql)
    return t.sql[start.pos:end].strip()


_ESCAPED = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


def split_rows(text: str, load: LoadData) -> list[list[str | None]]:
    """The rows of the file's text, each a list of fields (None for \\N, or for an unenclosed NULL
    when fields may be enclosed), by MySQL's rules: lines end at LINES TERMINATED BY (the last
    may lack it), a line is read from after LINES STARTING BY (one without it is skipped), fields
    end at FIELDS TERMINATED BY; ENCLOSED BY quotes a field (its doubled quote is one, a quote
    ends it only before a terminator), ESCAPED BY escapes the next character (\\0 \\b \\n \\r \\t
    \\Z as those characters, any other as itself). IGNORE n LINES skips the first n lines
    before that, each to its LINES TERMINATED BY whatever it holds (READ_INFO::next_line: an
    escaped character is passed over, a quote is not; LINES STARTING BY plays no part)."""
    rows: list[list[str | None]] = []
    line_end, field_end = load.lines_terminated, load.fields_terminated
    quote, esc, start_by = load.enclosed, load.escaped, load.lines_starting
    n = len(text)
    i = _after_lines(text, load.ignore_lines, line_end, esc)
    while i < n:
        if start_by:
            found = text.find(start_by, i)
            next_line = text.find(line_end, i) if line_end else -1
            if found < 0:
                break
            if 0 <= next_line < found:  # a line without the prefix: skipped
                i = next_line + len(line_end)
                continue
            i = found + len(start_by)
        row: list[str | None] = []
        while True:  # one field
            value: list[str] = []
            enclosed = bool(quote) and text.startswith(quote, i)
            escaped_null = False
            if enclosed:
                i += 1
                while i < n:
                    ch = text[i]
                    if esc and ch == esc and i + 1 < n:
                        value.append(_ESCAPED.get(text[i + 1], text[i + 1]))
                        i += 2
                        continue
                    if ch == quote:
                        if text.startswith(quote, i + 1):
                            value.append(quote)
                            i += 2
                            continue
                        after = i + 1
                        if after >= n or (field_end and text.startswith(field_end, after)) or (
                                line_end and text.startswith(line_end, after)):
                            i = after
                            break
                    value.append(ch)
                    i += 1
            else:
                while i < n:
                    if field_end and text.startswith(field_end, i):
                        break
                    if line_end and text.startswith(line_end, i):
                        break
                    ch = text[i]
                    if esc and ch == esc and i + 1 < n:
                        nxt = text[i + 1]
                        if nxt == "N" and not value:
                            escaped_null = True
                        value.append(_ESCAPED.get(nxt, nxt))
                        i += 2
                        continue
                    value.append(ch)
                    i += 1
            text_value = "".join(value)
            if not enclosed and (escaped_null and text_value == "N" or quote and text_value == "NULL"):
                row.append(None)
            else:
                row.append(text_value)
            if field_end and text.startswith(field_end, i):
                i += len(field_end)
                continue
            if line_end and text.startswith(line_end, i):
                i += len(line_end)
            break
        rows.append(row)
    return rows


def _after_lines(text: str, lines: int, line_end: str, esc: str) -> int:
    """Where the text goes on after its first `lines` lines (none without a line terminator)."""
    i, n = 0, len(text)
    if not line_end:
        return 0
    for _ in range(lines):
        while i < n and not text.startswith(line_end, i):
            i += 2 if esc and text[i] == esc else 1
        i += len(line_end)
    return min(i, n)


def load_targets(load: LoadData, table: Any) -> list[Any]:
    """Each field's target: a column of `table`, or a user variable's name ("@x", set for the
    row's SET); 1054 for a column the table lacks."""
    targets: list[Any] = ([name if name.startswith("@") else table.column(name) for name in load.columns]
                          if load.columns else list(table.columns))
    for name, col in zip(load.columns, targets, strict=False):  # (no list: the table's columns)
        if col is None:
            raise SQLError(ER_BAD_FIELD_ERROR, name, "field list")
    for name, _ in load.assignments:
        if table.column(name) is None:
            raise SQLError(ER_BAD_FIELD_ERROR, name, "SELECT")  # (MariaDB's clause name for SET)
    return targets


@dataclass
class LoadRows:
    """A file's rows as the statements that store them (`load_statements`)."""

    statements: list[tuple[str, dict[str, str | None]]]  # each INSERT / REPLACE, with its row's @variables
    records: int  # the file's rows
    replace: bool
    ignore: bool  # a row meeting a key is skipped with a warning
    warnings: list[tuple[float, str, int, str]]  # (row, level, code, message): those found before the writes
    per: int  # rows per statement
    cut: SQLError | None = None  # strict mode: a row with too many fields ends the load after its write


def load_statements(load: LoadData, schema: str, table: Any, targets: list[Any], data: bytes,
                    lax_values: bool) -> LoadRows:
    """The rows of the file's bytes `data` cut by `load`'s options (`split_rows`) and stored as
    the module's header says, as the INSERT IGNORE (a row at a time), INSERT or REPLACE
    statements that write them; `lax_values`: the sql_mode is not strict."""
    rows = split_rows(data.decode("utf-8", "surrogateescape"), load)
    warnings: list[tuple[float, str, int, str]] = []
    where = f"`{schema}`.`{table.name}`"
    # LOCAL without REPLACE is IGNORE: the client's file cannot be stopped half-way (MariaDB's rule)
    replace = load.duplicates == "REPLACE"
    ignore = load.duplicates == "IGNORE" or load.local and not replace
    lenient = ignore or lax_values
    stored, variables = [], []
    cut: SQLError | None = None
    for n, fields in enumerate(rows, 1):
        row, row_variables = _stored_row(fields, targets, n, warnings, where, lenient)
        stored.append(row + [f"({expression})" for _, expression in load.assignments])
        variables.append(row_variables)
        if not lenient and len(fields) > len(targets):
            cut = SQLError(ER_WARN_TOO_MANY_RECORDS, n)
            break
    # a column the list leaves out that has no default: MariaDB's one 1364 warning for it, in
    # every mode, and its implicit default in every row (check_that_all_fields_are_given_values)
    columns = [target for target in targets if not isinstance(target, str)]
    columns += [table.column(name) for name, _ in load.assignments]
    named = {col.name.lower() for col in columns}
    unset = [col for col in table.columns
             if col.name.lower() not in named and col.generated is None and not _defaulted(col)]
    for col in unset:
        warnings.append((0, "Warning", ER_NO_DEFAULT_FOR_FIELD.code, SQLError(ER_NO_DEFAULT_FOR_FIELD, col.name).message))
        for row in stored:
            row.append(_literal(values.implicit_default(col)))
    verb = "REPLACE" if replace else "INSERT IGNORE" if ignore else "INSERT"
    head = (f"{verb} INTO {mysql_ident(schema)}.{mysql_ident(table.name)} "
            f"({', '.join(mysql_ident(col.name) for col in [*columns, *unset])}) VALUES ")
    # (IGNORE's warnings and a plain INSERT's 1062 name their row; a row's @variables are its own)
    per = ROWS_PER_INSERT if replace and not any(variables) else 1
    statements = [(head + ", ".join(f"({', '.join(row)})" for row in stored[start:start + per]), variables[start])
                  for start in range(0, len(stored), per)]
    return LoadRows(statements, len(rows), replace, ignore, warnings, per, cut)


def replicated_load(engine: Any, sql: str, database: str | None, data: bytes,
                    sql_mode: int | None) -> list[tuple[str, dict[str, str | None]]]:
    """A MariaDB master's LOAD DATA as its slave runs it (the statement of an Execute_load_query
    event, its file's bytes `data`, the event's default database and sql_mode): the statements
    that store its rows, each with its row's @variables; SQLError where the statement fails
    (parse's, 1046, 1146, 1054, strict mode's)."""
    load = parse(sql)
    schema = load.schema or database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    table = engine.table(schema, load.table)
    if table is None:
        raise SQLError(ER_NO_SUCH_TABLE, schema, load.table)
    rows = load_statements(load, schema, table, load_targets(load, table), data,
                           bool(write_mode(sql_mode) & LAX_VALUES))
    if rows.cut is not None:  # (the statement fails whole: nothing of it is committed)
        raise rows.cut
    return rows.statements


async def load_data(session: ClientSession, sql: str) -> OK:
    """Run the LOAD DATA [LOCAL] statement `sql` for `session` (the module's header)."""
    load = parse(sql)
    conn = session.conn
    assert conn is not None and session.engine_session is not None
    if not load.local:
        require_file_privilege(session)
    elif not conn.capabilities & Capability.CLIENT_LOCAL_FILES or not session.server.variables.get(
            "local_infile", None, Scope.GLOBAL):
        raise SQLError(ER_LOAD_INFILE_CAPABILITY_DISABLED)
    schema = load.schema or session.engine_session.database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    engine = session.engine_session.engine
    table = engine.table(schema, load.table)
    if table is None:
        raise SQLError(ER_NO_SUCH_TABLE, schema, load.table)
    targets = load_targets(load, table)
    if load.local:
        data = await session.read_local_infile(load.filename)
    else:
        data = await read_server_file(session, load.filename, schema)
    rows = load_statements(load, schema, table, targets, data,
                           bool(session.engine_session.write_mode & LAX_VALUES))
    warnings = rows.warnings
    affected = 0
    own_transaction = not session.engine_session.in_transaction
    await session.execute("BEGIN" if own_transaction else "SAVEPOINT __load_data")
    try:
        with session.engine_session.one_statement_time():  # (every row's DEFAULT CURRENT_TIMESTAMP alike)
            for k, (statement, variables) in enumerate(rows.statements):
                session.user_vars.update(variables)
                result = await session.execute(statement)
                affected += result.affected_rows
                warnings.extend((k * rows.per + 1, *warning) for warning in result.warnings)
        if rows.cut is not None:
            raise rows.cut
    except BaseException as exc:
        await session.execute("ROLLBACK" if own_transaction else "ROLLBACK TO SAVEPOINT __load_data")
        if load.assignments and isinstance(exc, SQLError) and exc.code == ER_BAD_FIELD_ERROR.code:
            # a SET expression reading a column of the row (MariaDB's are the row's values):
            # an INSERT's VALUES cannot
            raise SQLError(ER_NOT_SUPPORTED_YET, "a column of the row in LOAD DATA ... SET") from None
        raise
    await session.execute("COMMIT" if own_transaction else "RELEASE SAVEPOINT __load_data")
    records = rows.records
    deleted = affected - records if rows.replace else 0
    skipped = records - affected if rows.ignore else 0
    shown = [warning[1:] for warning in sorted(warnings, key=lambda warning: warning[0])]
    session.diagnostics = shown
    return OK(affected, 0, warnings=len(shown),
              info=f"Records: {records}  Deleted: {deleted}  Skipped: {skipped}  Warnings: {len(shown)}")


def _stored_row(fields: list[str | None], targets: list, row: int, warnings: list, table: str,
                lenient: bool) -> tuple[list[str], dict[str, str | None]]:
    """One row's fields as the SQL literals of the values its columns store (`lenient`: LOAD
    DATA's lenient conversions, their warnings added to `warnings`, keyed by row: MariaDB gives
    1262 after the row's write, the others before; else strict mode's errors), and the values
    of its user variables (a target "@x": the field's text, NULL for \\N or a missing field)."""
    if len(fields) > len(targets) and lenient:  # (strict mode's error: after the row, `load_data`)
        warnings.append((row + 0.5, "Warning", ER_WARN_TOO_MANY_RECORDS.code,
                         SQLError(ER_WARN_TOO_MANY_RECORDS, row).message))
    out: list[str] = []
    variables: dict[str, str | None] = {}
    for k, col in enumerate(targets):
        if k >= len(fields):
            if isinstance(col, str):  # (a variable without its field: NULL, unremarked)
                variables[col[1:]] = None
                continue
            _adjusted(lenient, warnings, row, SQLError(ER_WARN_TOO_FEW_RECORDS, row))
            out.append("DEFAULT" if _defaulted(col) else _literal(values.implicit_default(col)))
            continue
        value: Any = fields[k]
        if isinstance(col, str):
            variables[col[1:]] = value
            continue
        if value is None:
            if col.nullable or col.auto_increment:
                out.append("NULL")
                continue
            _adjusted(lenient, warnings, row, SQLError(ER_WARN_NULL_TO_NOTNULL, col.name, row))
            value = values.implicit_default(col)
        else:
            value = values.store(col, value, row, f"{table}.`{col.name}`", lenient, warnings)
        out.append(_literal(value))
    return out, variables


def _defaulted(col) -> bool:
    """Whether a column left without a value has a default of its own (else its type's implicit one)."""
    return col.nullable or col.has_default or col.auto_increment or col.default_now


def _adjusted(lenient: bool, warnings: list, row: float, error: SQLError) -> None:
    """A row's adjustment: a warning when lenient, else strict mode's error."""
    if not lenient:
        raise error
    warnings.append((row, "Warning", error.code, error.message))


def _literal(value: Any) -> str:
    """A stored value as the SQL literal that stores it again."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return f"X'{value.hex()}'" if value else "''"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0")
    return f"'{text}'"
