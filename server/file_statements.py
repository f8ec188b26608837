"""The server's own files in SQL, as MariaDB 10.11 uses them: secure_file_priv, SELECT ... INTO
OUTFILE / DUMPFILE, and the file a LOAD DATA INFILE without LOCAL reads (server/load_data.py).

    SELECT ... INTO OUTFILE 'file' [CHARACTER SET cs]
        [{FIELDS | COLUMNS} [TERMINATED BY 's'] [[OPTIONALLY] ENCLOSED BY 'c'] [ESCAPED BY 'c']]
        [LINES [STARTING BY 's'] [TERMINATED BY 's']] ...
    SELECT ... INTO DUMPFILE 'file' ...

Contract
- `FileAccess` is the server's secure_file_priv, fixed at start: None refuses every such file
  (1290; our default, a state MariaDB does not have), "" allows any directory the daemon's user
  reaches, a directory allows files in it or below it (sql_parse.cc's is_secure_file_path: the
  file's real path, or its directory's when the file does not exist, must start with it; a
  directory that does not exist is refused alike). @@secure_file_priv reads NULL for "any", as
  MariaDB's, and for "none"; a directory with a trailing slash.
- A relative name is resolved as mysqld resolves it: a bare name in DATADIR/<database>/ (the
  session's for OUTFILE, the table's for LOAD DATA), any other relative to the datadir. Our
  datadir holds no database directories, so such a name finds no directory (1 or 13, as
  MariaDB's for a missing one) unless the operator made one; the secure_file_priv check comes
  first either way.
- The engine refuses INTO OUTFILE / DUMPFILE with `engine.errors.IntoFile`; the session then
  calls `select_into_file`, which needs the FILE privilege (1227), takes the clause out of the
  text, runs the SELECT that is left through the session (its privileges, its warnings) and
  writes the rows: the file is created exclusively (1086 when it exists) with mode 0644, as
  sql_class.cc's create_file, and the OK carries the row count (and MariaDB's 1287 note when
  the clause follows a FROM or a UNION). OUTFILE's bytes are select_export::send_data's
  (`export_rows`); DUMPFILE's are select_dump's: each value's bytes as they are, NULL as one zero byte, no separators, and 1172 at the third row (MariaDB's
  check runs after the second row is written: two rows are accepted, as there).
- `read_server_file` is LOAD DATA INFILE's read: FILE (else 1045, as MariaDB's), the
  secure_file_priv check, stat (13), a regular file or a FIFO (1085).

Not supported (1235): CHARACTER SET other than binary / utf8 / utf8mb3 / utf8mb4 (the bytes
are written as the columns hold them), fixed-width rows (empty FIELDS TERMINATED BY and
ENCLOSED BY), an INTO OUTFILE in a prepared statement or a stored program.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.errors import (
    ER_ACCESS_DENIED_ERROR,
    ER_AMBIGUOUS_FIELD_TERM,
    ER_CANT_CREATE_FILE,
    ER_CANT_GET_STAT,
    ER_FILE_EXISTS_ERROR,
    ER_NOT_SUPPORTED_YET,
    ER_OPTION_PREVENTS_STATEMENT,
    ER_TEXTFILE_NOT_READABLE,
    ER_TOO_MANY_ROWS,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
    ER_WARN_DEPRECATED_SYNTAX,
    ER_WRONG_FIELD_TERMINATORS,
    WARN_DATA_TRUNCATED,
    SQLError,
)
from protocol.messages import OK, FieldType, text_value
from server.sql import Token, Tokens, iter_tokens, parse_error
from server.user_statements import string_literal
from server.users import ALL

if TYPE_CHECKING:
    from server.session import ClientSession

OUTFILE_MODE = 0o644  # sql_class.cc's create_file: world-readable, whatever the umask
CHARSETS = ("binary", "utf8", "utf8mb3", "utf8mb4")


def _errcode(exc: OSError) -> str:
    """mysys's "(Errcode: 2 "No such file or directory")" part."""
    return f'{exc.errno} "{os.strerror(exc.errno or 0)}"'


@dataclass(frozen=True)
class FileAccess:
    """secure_file_priv and the datadir relative names are resolved in (the module's header)."""

    home: str  # the datadir's real path, with a trailing slash (mysql_real_data_home)
    allowed: str | None  # None: no file; "": any directory; else a real directory, trailing slash

    @classmethod
    def configured(cls, secure_file_priv: str | None, datadir: os.PathLike | str) -> FileAccess:
        """From the option; a directory that does not exist stops the start, as mysqld's."""
        allowed = secure_file_priv
        if allowed:
            real = os.path.realpath(allowed)
            if not os.path.isdir(real):
                raise ValueError(f"secure_file_priv: {allowed} is not a directory")
            allowed = real.rstrip("/") + "/"
        return cls(os.path.realpath(datadir).rstrip("/") + "/", allowed)

    @property
    def variable(self) -> str | None:
        """@@secure_file_priv: the directory, else NULL."""
        return self.allowed or None

    def resolve(self, name: str, database: str | None) -> str:
        """The path mysqld makes of a file name (fn_format with MY_RELATIVE_PATH)."""
        if name.startswith("/"):
            return name
        if "/" not in name:
            return f"{self.home}{database or ''}/{name}" if database else f"{self.home}{name}"
        return self.home + name

    def check(self, path: str) -> None:
        """1290 unless secure_file_priv allows `path`."""
        if self.allowed is None or not self._within(path):
            raise SQLError(ER_OPTION_PREVENTS_STATEMENT, "--secure-file-priv")

    def _within(self, path: str) -> bool:
        try:
            real = os.path.realpath(path, strict=True)
        except OSError:  # (the file to be made: its directory must exist)
            directory = os.path.dirname(path)
            try:
                real = os.path.realpath(directory, strict=True) if directory else ""
            except OSError:
                return False
            if not real:
                return False
        return (real.rstrip("/") + "/").startswith(self.allowed or "")


# -- INTO OUTFILE / DUMPFILE -----------------------------------------------------------------------


@dataclass
class Export:
    """An INTO OUTFILE / DUMPFILE clause (the FIELDS / LINES attributes are LoadData's names)."""

    kind: str  # "OUTFILE" or "DUMPFILE"
    filename: str
    fields_terminated: str = "\t"
    enclosed: str = ""
    optionally: bool = False
    escaped: str = "\\"
    lines_terminated: str = "\n"
    lines_starting: str = ""


# FIELDS' and LINES' `WORD BY 'string'` options: the attribute each sets (on an Export or a LoadData)
FIELDS_OPTIONS = {"TERMINATED": "fields_terminated", "ENCLOSED": "enclosed", "ESCAPED": "escaped"}
LINES_OPTIONS = {"STARTING": "lines_starting", "TERMINATED": "lines_terminated"}


def by_options(t: Tokens, target: Any, options: dict[str, str]) -> None:
    """FIELDS' or LINES' options into `target`, one at least (FIELDS' ENCLOSED BY may be
    OPTIONALLY: `target.optionally`)."""
    seen = False
    while True:
        if "ENCLOSED" in options and t.accept_word("OPTIONALLY"):
            word = t.expect_word("ENCLOSED")
            target.optionally = True
        else:
            word = t.accept_word(*options)
            if word is None:
                break
        t.expect_word("BY")
        setattr(target, options[word], string_literal(t))
        seen = True
    if not seen:
        raise t.error()


# quoted text and comments (skipped), parentheses (depth) and the words the clause search needs
_SCAN = re.compile(
    r"""'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|`(?:[^`]|``)*`|/\*.*?\*/|(?:--\s|\#)[^\n]*
      |(?P<open>\()|(?P<close>\))|(?<![\w$@.])(?P<word>FROM|UNION|INTO)(?![\w$])""",
    re.IGNORECASE | re.DOTALL | re.VERBOSE,
)
_CLAUSE_WORDS = frozenset({"INTO", "OUTFILE", "DUMPFILE", "CHARACTER", "SET", "CHARSET", "FIELDS", "COLUMNS",
                           "TERMINATED", "OPTIONALLY", "ENCLOSED", "ESCAPED", "BY", "LINES", "STARTING"})


@dataclass
class IntoFileClause:
    export: Export
    select: str  # the statement without the clause
    after_from: bool  # the clause follows a FROM or UNION: MariaDB's deprecation note 1287
    charset: str = "binary"


def into_file_clause(sql: str) -> IntoFileClause:
    """The INTO OUTFILE / DUMPFILE clause of a SELECT (the one at depth 0), or 1064."""
    found = _into_file(sql)
    if found is None:
        raise parse_error(sql, len(sql))
    start, after_from = found
    items, end = _clause_tokens(sql, start)
    clause = _parse_clause(sql, items)
    clause.select = f"{sql[:start]} {sql[end:]}"
    clause.after_from = after_from
    second = _into_file(sql, end, any_into=True)
    if second is not None:  # (another INTO after it: MariaDB's syntax error there)
        raise parse_error(sql, second[0])
    return clause


def _into_file(sql: str, pos: int = 0, any_into: bool = False) -> tuple[int, bool] | None:
    """Where the first depth-0 INTO OUTFILE / DUMPFILE (`any_into`: INTO) from `pos` begins, and
    whether a FROM or UNION comes before it; None without one."""
    depth, after_from = 0, False
    for m in _SCAN.finditer(sql, pos):
        if m.group("open"):
            depth += 1
        elif m.group("close"):
            depth -= 1
        elif m.group("word") and depth == 0:
            if m.group("word").upper() in ("FROM", "UNION"):
                after_from = True
            elif any_into or _FILE_WORD.match(sql, m.end()):
                return m.start(), after_from
    return None


_FILE_WORD = re.compile(r"\s+(?:OUTFILE|DUMPFILE)(?![\w$])", re.IGNORECASE)


def _clause_tokens(sql: str, start: int) -> tuple[list[Token], int]:
    """The clause's tokens from `start` (INTO) and where the text after it begins."""
    items: list[Token] = []
    for tok in iter_tokens(sql, start):
        named = items and items[-1].is_word("SET", "CHARSET") and tok.kind in ("WORD", "QUOTED", "STRING")
        if tok.kind == "STRING" or named or tok.is_word(*_CLAUSE_WORDS):
            items.append(tok)
            continue
        if tok.kind == "OP" and tok.text == ";":
            break
        return items, tok.pos
    return items, len(sql)


def _parse_clause(sql: str, items: list[Token]) -> IntoFileClause:
    t = Tokens(sql, items)
    t.expect_word("INTO")
    export = Export(t.expect_word("OUTFILE", "DUMPFILE"), string_literal(t))
    clause = IntoFileClause(export, "", False)
    if export.kind == "OUTFILE":
        if t.accept_word("CHARACTER"):
            t.expect_word("SET")
            clause.charset = t.name().lower()
        elif t.accept_word("CHARSET"):
            clause.charset = t.name().lower()
        if t.accept_word("FIELDS", "COLUMNS"):
            by_options(t, export, FIELDS_OPTIONS)
        if t.accept_word("LINES"):
            by_options(t, export, LINES_OPTIONS)
    t.expect_end()
    if clause.charset not in CHARSETS:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"SELECT ... INTO OUTFILE CHARACTER SET {clause.charset}")
    return clause


_NUMERIC = frozenset({FieldType.DECIMAL, FieldType.NEWDECIMAL, FieldType.TINY, FieldType.SHORT, FieldType.INT24,
                      FieldType.LONG, FieldType.LONGLONG, FieldType.YEAR, FieldType.FLOAT, FieldType.DOUBLE,
                      FieldType.BIT})
_NUMERIC_KINDS = frozenset({"integer", "double", "decimal"})
ESCAPE_CHARS = b"ntrb0ZN"  # sql_class.cc's: a separator among them is "ambiguous"
NUMERIC_CHARS = b".0123456789e+-"


def numeric_columns(column_types: list[Any]) -> list[bool]:
    """Which result columns are not of STRING_RESULT (MariaDB's Item::result_type): numbers,
    YEAR and BIT; OUTFILE neither escapes nor (OPTIONALLY) encloses their values."""
    out = []
    for kind in column_types:
        code = getattr(kind, "type", None)
        out.append(code in _NUMERIC if code is not None else kind in _NUMERIC_KINDS)
    return out


def export_rows(rows: list[tuple], numeric: list[bool], export: Export) -> tuple[bytes, bool]:
    """The bytes INTO OUTFILE writes for `rows` (select_export::prepare and ::send_data), and
    whether MariaDB warns that the field terminator is ambiguous (1475)."""
    field_term = export.fields_terminated.encode()
    line_term = export.lines_terminated.encode() or field_term
    enclosure = export.enclosed.encode()
    start = export.lines_starting.encode()
    if not field_term and not enclosure:
        raise SQLError(ER_NOT_SUPPORTED_YET, "fixed-width rows (empty FIELDS TERMINATED BY and ENCLOSED BY)")
    if len(export.escaped) > 1 or len(export.enclosed) > 1:
        raise SQLError(ER_WRONG_FIELD_TERMINATORS)
    term_char = field_term[0] if field_term else -1
    sep_char = enclosure[0] if enclosure else term_char
    escape_char = export.escaped.encode()[0] if export.escaped else -1
    line_char = line_term[0] if line_term else -1
    optional = export.optionally and bool(field_term) or not enclosure
    ambiguous_sep = sep_char in ESCAPE_CHARS
    unsafe_sep = sep_char in NUMERIC_CHARS
    ambiguous_term = bool(
        (ambiguous_sep and not enclosure and (not all(numeric) or unsafe_sep))
        or (optional and any(numeric) and field_term and term_char in NUMERIC_CHARS))
    null = bytes((escape_char, ord("N"))) if escape_char >= 0 else b"NULL"
    out = bytearray()
    last = len(numeric) - 1
    for row in rows:
        out += start
        for k, value in enumerate(row):
            enclosed = bool(enclosure) and (not optional or not numeric[k])
            if value is None:
                out += null
            else:
                raw = text_value(value)
                if enclosed:
                    out += enclosure
                if (not numeric[k] or unsafe_sep) and escape_char >= 0:
                    special = {escape_char, sep_char if enclosed else term_char, line_char, 0}
                    for byte in raw:
                        if byte in special and (enclosed or not ambiguous_term or byte != term_char):
                            out.append(sep_char if byte == sep_char and ambiguous_sep else escape_char)
                            out.append(byte or ord("0"))
                        else:
                            out.append(byte)
                else:
                    out += raw
                if enclosed:
                    out += enclosure
            if k != last:
                out += field_term
        out += line_term
    return bytes(out), ambiguous_term


def dump_rows(rows: list[tuple]) -> bytes:
    """INTO DUMPFILE's bytes (select_dump::send_data): every value as it is, NULL a zero byte."""
    return b"".join(b"\0" if value is None else text_value(value) for row in rows for value in row)


async def select_into_file(session: ClientSession, sql: str) -> OK:
    """Run the SELECT ... INTO OUTFILE / DUMPFILE statement `sql` for `session` (the header)."""
    session.require(ALL, "FILE")
    clause = into_file_clause(sql)
    export = clause.export
    access: FileAccess = session.server.file_access
    assert session.engine_session is not None
    path = access.resolve(export.filename, session.engine_session.database)
    access.check(path)
    if os.path.lexists(path):
        raise SQLError(ER_FILE_EXISTS_ERROR, export.filename)
    selected = await session.execute(clause.select)
    rows = list(selected.rows or [])
    warnings: list[tuple[str, int, str]] = []
    if clause.after_from:  # (the parser's note comes first)
        warnings.append(("Warning", ER_WARN_DEPRECATED_SYNTAX.code, SQLError(
            ER_WARN_DEPRECATED_SYNTAX, "<select expression> INTO <destination>;",
            "'SELECT <select list> INTO <destination> FROM...'").message))
    failure = None
    if export.kind == "DUMPFILE":
        if len(rows) > 2:
            rows, failure = rows[:2], SQLError(ER_TOO_MANY_ROWS)
        data = dump_rows(rows)
        warnings.extend(selected.warnings)
    else:
        converted: list[tuple[str, int, str]] = []
        if clause.charset != "binary":
            rows = [_converted(row, selected.columns, n, converted) for n, row in enumerate(rows, 1)]
        try:
            data, ambiguous = export_rows(rows, numeric_columns(list(selected.column_types)), export)
        except SQLError as exc:
            if exc.code == ER_WRONG_FIELD_TERMINATORS.code:  # (MariaDB's check follows the file's creation)
                await asyncio.to_thread(_create, path, b"")
            raise
        if ambiguous:
            warnings.append(("Warning", ER_AMBIGUOUS_FIELD_TERM.code, SQLError(ER_AMBIGUOUS_FIELD_TERM).message))
        warnings += [*selected.warnings, *converted]
    await asyncio.to_thread(_create, path, data)
    if failure is not None:
        raise failure
    session.diagnostics = warnings
    return OK(len(rows), 0, warnings=len(warnings))


_NOT_UTF8 = re.compile("[\udc80-\udcff]")  # (a byte that is no UTF-8, as surrogateescape reads it)


def _converted(row: tuple, names: list[str], n: int, warnings: list) -> tuple:
    """A row's binary values in CHARACTER SET utf8 / utf8mb4: a byte that is no UTF-8 becomes
    '?', and the value a warning (select_export's String_copier)."""
    out = list(row)
    for k, value in enumerate(row):
        if isinstance(value, bytes):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                out[k] = _NOT_UTF8.sub("?", value.decode("utf-8", "surrogateescape")).encode()
                warnings.append(("Warning", ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.code,
                                 SQLError(WARN_DATA_TRUNCATED, names[k], n).message))
    return tuple(out)


def _create(path: str, data: bytes) -> None:
    """Write a new file (never an existing one) readable by all."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OUTFILE_MODE)
    except FileExistsError:
        raise SQLError(ER_FILE_EXISTS_ERROR, path) from None
    except OSError as exc:
        raise SQLError(ER_CANT_CREATE_FILE, path, _errcode(exc)) from None
    try:
        os.fchmod(fd, OUTFILE_MODE)  # (the daemon's umask is 077: server/files.py)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


# -- LOAD DATA INFILE ------------------------------------------------------------------------------


def require_file_privilege(session: ClientSession) -> None:
    """LOAD DATA INFILE's FILE privilege check: MariaDB's 1045, not 1227."""
    if not session.has_privilege(ALL, "FILE"):
        account = session.account
        host = account.host if account is not None else session.host
        raise SQLError(ER_ACCESS_DENIED_ERROR, session.user, host, "YES" if session.password_used else "NO")


async def read_server_file(session: ClientSession, filename: str, database: str) -> bytes:
    """The bytes of the server's file a LOAD DATA INFILE names, the FILE privilege held (the
    module's header)."""
    access: FileAccess = session.server.file_access
    path = access.resolve(filename, database)
    access.check(path)
    return await asyncio.to_thread(_read, path)


def _read(path: str) -> bytes:
    try:
        st = os.stat(path)
    except OSError as exc:
        raise SQLError(ER_CANT_GET_STAT, path, _errcode(exc)) from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
        raise SQLError(ER_TEXTFILE_NOT_READABLE, path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise SQLError(ER_CANT_GET_STAT, path, _errcode(exc)) from None

