"""Server-side prepared statements: the session's half of the binary protocol (COM_STMT_*).

Contract
- A session owns one `PreparedStatements`; statement ids are the session's own, from 1 up, never
  reused while it lives. All sessions of a server together hold at most `max_prepared_stmt_count`
  statements (MariaDB's default 16382); past it COM_STMT_PREPARE fails with 1461, as
  mysqld's Prepared_statement_map::insert.
- COM_STMT_PREPARE parses the text once: its `?` placeholders outside string literals,
  quoted identifiers and comments split it into pieces. A statement that returns rows (SELECT,
  SHOW, ...) is described by running it once with every parameter NULL, so the prepare answer
  carries its columns and an error in it (an unknown table) is the prepare's error, as in
  mysqld; any other statement for the engine (DML, transactions, text without a leading word) is
  planned without running (a syntax error, an unknown table or column fail the prepare; errors
  of the NULL values it is planned with are left to the execution), and a write with RETURNING
  is described from its plan (`Session.describe`: the columns, nothing written); the statements of
  the server shell and the role (SET, SHOW, replication) are checked when executed.
- COM_STMT_EXECUTE binds each value as a literal written exactly as MySQL writes it when it
  logs a prepared statement for statement-based replication (integers, floats that read back
  the same, DECIMAL digits as sent, strings escaped, binary data as X'..' so any byte survives,
  dates and times with their fractions), and runs the text through `ClientSession.run_statement`,
  the path of COM_QUERY: privileges, read-only, the engine, group commit, the binlog (which thus
  holds the statement with its values inlined) and semi-sync all apply. A SELECT is first
  offered to `ClientSession.run_read_now` (the same answer without the statement path's layers,
  for a read the loop answers at once; else None and the path above); when its values are plain
  (non-negative integers, text quoted as it is) its read is kept (`KeptRead`: the engine's
  `PreparedRead`, the column definitions, their encoded form, the row encoder) and later
  executions with values of the same kinds read through it without binding or parsing
  (`ClientSession.run_prepared_read`), until the engine declines it (the catalog, the database
  or the session's state changed; then it is kept again); the session may hand such an
  execution over as soon as it is received (`answer_on_receipt`), as it may an INSERT, UPDATE,
  DELETE or REPLACE inside a transaction, which `ClientSession.run_write_now` runs on the loop
  when the engine may (engine `Session.write_now`; with plain values through the plan its
  first such execution kept, `KeptWrite` and `Session.write_kept`, whose text is still bound
  and binlogged as it is here), else the task's path above, a BEGIN
  (`ClientSession.run_begin_now`) and a COMMIT (`ClientSession.run_commit_now`: begun there,
  answered by the session's task once committed).
- COM_STMT_BULK_EXECUTE (MariaDB's: many rows of parameters in one command) is server/bulk.py's,
  its values bound by `literal` as here.
- Answers: COM_STMT_PREPARE -> PrepareOK or ERR; COM_STMT_EXECUTE -> OK, ERR or a binary result
  set (with CURSOR_TYPE_READ_ONLY the rows stay here and COM_STMT_FETCH reads them);
  COM_STMT_SEND_LONG_DATA and COM_STMT_CLOSE -> nothing; COM_STMT_RESET -> OK or ERR. An unknown
  statement id gives 1243 (not for SEND_LONG_DATA or CLOSE, which have no answer); an error in
  long data is reported by the next COM_STMT_EXECUTE, as mysqld does. A command packet that does
  not read gives 1835 (ER_MALFORMED_PACKET), a parameter block that does not read (too short,
  unknown type, bytes left over, never bound) 1210 "Incorrect arguments to mysqld_stmt_execute"
  as mysqld's set_parameters; either way the connection and the statement stay usable.
- SQL-level statements (server/sql_prepared.py) are prepared here as COM_STMT_PREPARE prepares
  (`prepare_named`; the describing statements run through `ClientSession.execute`, a write's
  privileges checked as mysqld's prepare checks them: 1142), kept under their names apart
  from the ids, counted with them (Prepared_stmt_count, max_prepared_stmt_count; an EXECUTE
  IMMEDIATE's for its run, past the limit too) and deallocated with them (`close_all`).
  PREPARE, EXECUTE, DEALLOCATE and DROP PREPARE are not prepared (1295), by either protocol.
- A SELECT's item that is a placeholder alone (`SELECT ?`, `? AS p`: `bare_placeholders`) is
  answered as MariaDB's: NULL-typed in the prepare answer, and in each execution's column
  definitions named '?' (or its alias) and typed by the value bound (`param_type`: the integer,
  DOUBLE, DECIMAL / NEWDECIMAL, DATETIME or DATE type it was sent as; a string sent as STRING a
  CHAR of its characters, as VAR_STRING or VARCHAR a VARCHAR, as a blob type that blob, binary),
  which the column definitions sent with every execution's rows carry; such a statement's read is
  never kept. Parameter definitions are NULL-typed, as MariaDB's.
- Binary rows are encoded by the type code of the column definitions sent with them; a column
  whose declared type cannot carry one of the values is sent as VAR_STRING instead, never as a
  wrong value (`carried_rows`: each row is encoded once, when COM_STMT_EXECUTE answers, a
  cursor's rows too; COM_STMT_FETCH sends them as they were encoded).
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import struct
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine.coltypes import (
    CHARSET_BINARY,
    CHARSET_UTF8MB4_GENERAL_CI,
    MB,
    NOT_FIXED_DEC,
    NULL_TYPE,
    STRING_DEC,
    ColumnType,
)
from engine.exprtypes import drop_alias, select_items
from engine.lexer import extract, tokenize
from engine.results import Result
from engine.routines import keeps_functions, may_call
from engine.session import KeptWrite
from protocol.binary import (
    COM_STMT_EXECUTE,
    CURSOR_TYPE_READ_ONLY,
    EXECUTE_HEAD,
    BinaryResultSet,
    BinaryRowEncoder,
    BinaryRows,
    ComStmtBulkExecute,
    ComStmtClose,
    ComStmtExecute,
    ComStmtFetch,
    ComStmtPrepare,
    ComStmtReset,
    ComStmtSendLongData,
    IntParams,
    ParamsLayout,
    ParamType,
    PrepareOK,
    ResultHead,
    UncarriedValue,
    ZeroDate,
    decode_execute_params,
    decode_stmt_command,
    plain_execute,
)
from protocol.charsets import Charset, for_results
from protocol.charsets import result_column as charset_column
from protocol.errors import (
    ER_BAD_DATA,
    ER_BAD_DB_ERROR,
    ER_BAD_FIELD_ERROR,
    ER_DATA_OVERFLOW,
    ER_EMPTY_QUERY,
    ER_INVALID_GROUP_FUNC_USE,
    ER_MAX_PREPARED_STMT_COUNT_REACHED,
    ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE,
    ER_NON_UNIQ_ERROR,
    ER_NONUNIQ_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_PARSE_ERROR,
    ER_PS_MANY_PARAM,
    ER_STMT_HAS_NO_OPEN_CURSOR,
    ER_UNKNOWN_ERROR,
    ER_UNKNOWN_STMT_HANDLER,
    ER_UNSUPPORTED_PS,
    ER_UPDATE_TABLE_USED,
    ER_WRONG_ARGUMENTS,
    ER_WRONG_VALUE_COUNT_ON_ROW,
    RemoteProtocolError,
    SQLError,
)
from protocol.messages import (
    OK,
    ColumnDefinition,
    ColumnFlag,
    ComUnknown,
    FieldType,
    ResultSet,
    ServerStatus,
    column,
)
from server import sql as sqltext
from server.columns import result_column
from server.variables import Scope

if TYPE_CHECKING:
    from engine.session import PreparedRead
    from server.session import ClientSession
    from server.session_host import SessionHost

MAX_PARAMS = 65535  # the prepare answer's 2-byte count
LAST_STMT_ID = 0xFFFFFFFF  # MariaDB's statement id for "the last one prepared" (`_resolve`)
# Statements that answer with rows: described at prepare by running them with NULL parameters.
_DESCRIBED = frozenset({"SELECT", "SHOW", "DESC", "DESCRIBE", "EXPLAIN", "WITH", "VALUES", "TABLE", "("})
# Statements that cannot be prepared (MariaDB's 1295): the prepared statements' own, and
# DROP PREPARE (`head`).
_NOT_PREPARED = frozenset({"PREPARE", "EXECUTE", "DEALLOCATE"})
# Writes that may be answered on receipt inside a transaction (`answer_on_receipt`, and
# COM_QUERY's in `ClientSession._run_now`).
WRITES_NOW = ("INSERT", "UPDATE", "DELETE", "REPLACE")
# The first words of the transaction starts answered on receipt (`ClientSession.run_begin_now`).
BEGINS_NOW = ("BEGIN", "START")
# `ClientSession.run_commit_now`'s word that a COMMIT's answer is the session task's, once its
# commit is over.
ANSWERED_LATER = object()

# Errors of the statement's text, which mysqld's prepare reports: syntax, unknown database,
# table or column, ambiguity, a row of the wrong width, an empty or unsupported statement.
_PREPARE_ERRORS = frozenset(e.code for e in (
    ER_PARSE_ERROR, ER_EMPTY_QUERY, ER_NO_DB_ERROR, ER_BAD_DB_ERROR, ER_NO_SUCH_TABLE, ER_BAD_FIELD_ERROR,
    ER_NON_UNIQ_ERROR, ER_NONUNIQ_TABLE, ER_WRONG_VALUE_COUNT_ON_ROW, ER_NOT_SUPPORTED_YET,
    ER_INVALID_GROUP_FUNC_USE, ER_UPDATE_TABLE_USED,
))

# Statement text: what may hold a `?` that is not a placeholder, and the placeholders.
_SCAN = re.compile(
    r"""
    '[^'\\]*(?:(?:\\.|'')[^'\\]*)*'
    |"[^"\\]*(?:(?:\\.|"")[^"\\]*)*"
    |`[^`]*(?:``[^`]*)*`
    |/\*.*?\*/
    |--(?=[ \t\r\n]|$)[^\n]*
    |\#[^\n]*
    |(?P<q>\?)
    """,
    re.S | re.X,
)

_COUNTERS = {
    ComStmtPrepare: "Com_stmt_prepare", ComStmtExecute: "Com_stmt_execute", ComStmtFetch: "Com_stmt_fetch",
    ComStmtReset: "Com_stmt_reset", ComStmtSendLongData: "Com_stmt_send_long_data", ComStmtClose: "Com_stmt_close",
}

# Prepared statements held by each server's sessions together (max_prepared_stmt_count).
_HELD: weakref.WeakKeyDictionary[SessionHost, int] = weakref.WeakKeyDictionary()


def split_placeholders(sql: str) -> list[str]:
    """The text around the `?` placeholders: n placeholders give n + 1 pieces."""
    pieces = []
    start = 0
    for m in _SCAN.finditer(sql):
        if m.group("q") is not None:
            pieces.append(sql[start : m.start()])
            start = m.end()
    pieces.append(sql[start:])
    return pieces


_TIME_MAX_HOURS = 838  # TIME's range: -838:59:59.999999 .. 838:59:59.999999
_ESCAPES = {0: b"\\0", 10: b"\\n", 13: b"\\r", 26: b"\\Z", 34: b'\\"', 39: b"\\'", 92: b"\\\\"}
_ESCAPE_TABLE = {k: v.decode() for k, v in _ESCAPES.items()}
_DECIMAL_TYPES = frozenset({FieldType.DECIMAL, FieldType.NEWDECIMAL})
_BINARY_TYPES = frozenset({
    FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB, FieldType.BLOB, FieldType.GEOMETRY,
    FieldType.BIT,
})
# the types whose text `_plain_values` does not take as a plain string (a DECIMAL's is a number)
_NOT_PLAIN_TEXT = _BINARY_TYPES | _DECIMAL_TYPES


def _float_text(value: float) -> str:
    """A FLOAT or DOUBLE parameter: its double value (a FLOAT's 4 bytes widened, as mysqld stores
    a FLOAT parameter into a DOUBLE column) written as a DOUBLE literal (2.5e0: the statement
    computes with a DOUBLE, as mysqld's does with the parameter, not with the DECIMAL 2.5)."""
    if not math.isfinite(value):
        raise SQLError(ER_WRONG_ARGUMENTS, "mysqld_stmt_execute")
    text = repr(value)
    return text if "e" in text or "E" in text else text + "e0"


def _fraction(us: int) -> str:
    return f".{us:06d}" if us else ""


# the digits mysqld's decimal parameter holds (decimal_t's nine words of nine digits): an integer
# part of more overflows to DECIMAL(65)'s largest value, the fraction is cut to the words left
_DECIMAL_WORDS, _WORD_DIGITS = 9, 9
_DECIMAL_OVERFLOW = "9" * 65
# the leading number of a DECIMAL parameter's text (mysqld's str2my_decimal reads it, the rest ignored)
_DECIMAL_PREFIX = re.compile(rb"[ \t\n\r\f\v]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def _decimal_param(value: decimal.Decimal | bytes, warnings: list | None) -> str:
    """A DECIMAL parameter (a number, or the bytes of a text that is none: `protocol.binary`) as
    mysqld reads it: the text's leading number (0 without one, with the warning 1918), in
    nine words of nine digits (an integer part past them is 65 nines, with the warning 1916;
    the fraction cut to the words left), written without an exponent (1e2 is 100)."""
    if not isinstance(value, decimal.Decimal):
        found = _DECIMAL_PREFIX.match(bytes(value))
        if found is None:
            if warnings is not None:
                warnings.append(("Warning", ER_BAD_DATA.code, ER_BAD_DATA.format("", "DECIMAL")))
            return "0"
        value = decimal.Decimal(found.group(1).decode("ascii"))
    whole = max(value.adjusted() + 1, 0)
    if whole > _DECIMAL_WORDS * _WORD_DIGITS:
        if warnings is not None:
            warnings.append(("Warning", ER_DATA_OVERFLOW.code, ER_DATA_OVERFLOW.format("", "DECIMAL")))
        return ("-" if value < 0 else "") + _DECIMAL_OVERFLOW
    fraction = (_DECIMAL_WORDS - -(-whole // _WORD_DIGITS)) * _WORD_DIGITS
    if value.as_tuple().exponent < -fraction:  # type: ignore[operator]
        value = value.quantize(decimal.Decimal(1).scaleb(-fraction), rounding=decimal.ROUND_DOWN,
                               context=decimal.Context(prec=_DECIMAL_WORDS * _WORD_DIGITS * 2))
    return "0" if not value else format(value, "f")


def literal(value: Any, ptype: ParamType, warnings: list | None = None) -> str:
    """One bound parameter as SQL text, as MySQL inlines it in a statement-based binlog; the
    warnings reading it gives (a DECIMAL's: `_decimal_param`) appended to `warnings`."""
    kind = type(value)
    if kind is int:  # (the kinds a client binds most, first: the same texts as below)
        return str(value)
    if kind is bytes and ptype.type not in _NOT_PLAIN_TEXT:
        try:
            return "'" + value.decode("utf-8").translate(_ESCAPE_TABLE) + "'"
        except UnicodeDecodeError:
            return "X'" + value.hex() + "'"
    if kind is str:
        return "'" + value.translate(_ESCAPE_TABLE) + "'"
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, decimal.Decimal):  # the digits as the client sent them: exact, scale kept
        return _decimal_param(value, warnings)
    if isinstance(value, datetime.datetime):
        return f"'{value:%Y-%m-%d %H:%M:%S}{_fraction(value.microsecond)}'"
    if isinstance(value, datetime.date):
        return f"'{value:%Y-%m-%d}'"
    if isinstance(value, ZeroDate):
        text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}"
        if value.has_time:
            text += f" {value.hour:02d}:{value.minute:02d}:{value.second:02d}{_fraction(value.microsecond)}"
        return f"'{text}'"
    if isinstance(value, str):  # a string parameter read in the client's character set
        return "'" + value.translate(_ESCAPE_TABLE) + "'"
    if isinstance(value, datetime.timedelta):
        sign = "-" if value < datetime.timedelta(0) else ""
        value = abs(value)
        hours = value.days * 24 + value.seconds // 3600
        minutes, seconds = value.seconds // 60 % 60, value.seconds % 60
        if hours > _TIME_MAX_HOURS:  # mysqld clips a TIME parameter to the range, fraction kept
            hours, minutes, seconds = _TIME_MAX_HOURS, 59, 59
        return f"'{sign}{hours:02d}:{minutes:02d}:{seconds:02d}{_fraction(value.microseconds)}'"
    if ptype.type in _DECIMAL_TYPES:
        return _decimal_param(value, warnings)
    raw = bytes(value)
    if ptype.type not in _BINARY_TYPES:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return "'" + text.translate(_ESCAPE_TABLE) + "'"
    return "X'" + raw.hex() + "'"


@dataclass(frozen=True, slots=True)
class KeptRead:
    """A prepared SELECT's read as an execution with plain values (`_plain_values`) left it: the
    engine's `PreparedRead`, the statement's head keyword, the kinds of those values (int, str;
    only values of the same kinds read through it), and its answer's column definitions with
    what is sent around its rows on the session's connection (`ResultHead`) and its binary row
    encoder (None when a column is typed NULL: `carried_rows` decides each time); `com`, the Com_
    counter its executions move (`ServerStats.com_name` of `keyword`), for `kept_answer`'s count."""

    read: PreparedRead
    keyword: str
    kinds: tuple[type, ...]
    head: ResultHead
    encoder: BinaryRowEncoder | None
    com: str | None


_SIGNED_MAX = (1 << 63) - 1
_AUTOCOMMIT = int(ServerStatus.AUTOCOMMIT)  # a kept read's status in autocommit outside a transaction


def _plain_values(values: list[Any], types: list[ParamType]) -> list[Any] | None:
    """The values as the engine reads them back from the bound text, when each is plain: an int
    `literal` writes as digits alone (no sign, within SQLite's integer), or text sent as a string
    type that is UTF-8 and that `literal` quotes without escaping anything (and without `@` or
    `/*`, which the shell reads in a statement's text before the engine does); else None. Text
    read in a client's character set (`in_client_charset`) is plain when ASCII only: the
    engine reads other text of a latin1 (cp1251, gbk ...) connection by where it stands
    (engine.charset_literals)."""
    plain = []
    for value, ptype in zip(values, types, strict=True):
        if type(value) is int:
            if not 0 <= value <= _SIGNED_MAX:
                return None
        elif isinstance(value, (bytes, bytearray, memoryview, str)) and ptype.type not in _NOT_PLAIN_TEXT:
            if isinstance(value, str) and not value.isascii():
                return None
            if not isinstance(value, str):
                try:
                    value = bytes(value).decode("utf-8")
                except UnicodeDecodeError:
                    return None
            if value.translate(_ESCAPE_TABLE) != value or "@" in value or "/*" in value:
                return None
        else:
            return None
        plain.append(value)
    return plain


def in_client_charset(values: list[Any], types: list[ParamType], client: Charset | None) -> list[Any]:
    """The string parameters of an execution read in the client's character set (`client`, the
    connection's when it is not UTF-8: `ServerConnection.client_charset`): each one sent as a
    string type becomes its text, which `literal` quotes; binary types and DECIMAL digits stay
    bytes. With `client` None, `values` as they are (UTF-8, else X'..': `literal`)."""
    if client is None:
        return values
    return [client.decode(bytes(value))
            if isinstance(value, (bytes, bytearray, memoryview)) and ptype.type not in _BINARY_TYPES
            and ptype.type not in _DECIMAL_TYPES else value
            for value, ptype in zip(values, types, strict=True)]


def _int_values(stmt: PreparedStatement, block: bytes) -> list[int] | None:
    """The values of `block` as `decode_execute_params` and `_plain_values` would give them, when
    it is laid out as the last block read for `stmt` with the same bound types
    (`PreparedStatement.int_params`), its values plain integers and the kept read's kinds all
    int; else None (then read it the long way)."""
    fast = stmt.int_params
    if fast is None or fast[1] is None or fast[0] is not stmt.types:
        return None
    values = fast[1].read(block)
    if values is None or min(values) < 0 or max(values) > _SIGNED_MAX:
        return None
    kept = stmt.kept
    if kept is None or kept.kinds != (int,) * len(values):
        return None
    return list(values)


# a date or time parameter's typed literal in a SELECT (`PreparedStatement.bind`)
_TYPED_LITERAL = {datetime.datetime: "TIMESTAMP", datetime.date: "DATE", datetime.timedelta: "TIME"}
_TEMPORAL_VALUES = tuple(_TYPED_LITERAL)
_LONG_DATA_PAST_PACKET = ("Parameter of prepared statement which is set through mysql_send_long_data() is longer "
                          "than 'max_allowed_packet' bytes")


@dataclass
class PreparedStatement:
    id: int
    pieces: list[str]  # the text around the placeholders
    columns: tuple[ColumnDefinition, ...] = ()
    types: list[ParamType] | None = None  # bound by the last execution that sent them
    long_data: dict[int, bytearray] = field(default_factory=dict)
    # what a COM_STMT_SEND_LONG_DATA broke (no such parameter, past max_allowed_packet): the
    # next execution's error (`raise_long_data_error`)
    long_data_error: SQLError | None = None
    cursor: list[bytes] | None = None  # an open cursor: the rows not fetched yet, encoded
    cursor_columns: tuple[ColumnDefinition, ...] = ()
    select: bool = False  # a SELECT: an execution tries `ClientSession.run_read_now` first
    kept: KeptRead | None = None  # its read, kept by an execution with plain values
    # an INSERT/UPDATE/DELETE/REPLACE no role or admin handler claims: its `sqltext.head` (`answer_on_receipt`)
    write: str | None = None
    # such a write's plan kept by its executions with plain values (engine `Session.write_kept`)
    kept_write: KeptWrite | None = None
    # BEGIN / START ... and COMMIT ... without parameters that no handler claims: its `sqltext.head`
    # (`answer_on_receipt`)
    begin: str | None = None
    commit: str | None = None
    # the layout of the last parameter block of plain integers `answer_on_receipt` read, with
    # the bound types it was read with (`_int_values`)
    int_params: tuple[list[ParamType], IntParams | None] | None = None
    # a write's: the layout of a parameter block `answer_on_receipt` read, with the bound types
    # it was read with; a block laid out alike is read through it while they stay bound
    write_params: tuple[list[ParamType], ParamsLayout | None] | None = None
    # whether its texts answered on receipt pass the shell's tests of a text (`passes_text`)
    # while the stored functions are `asked` (`Engine.routines`, replaced by each CREATE / DROP
    # FUNCTION; None: not asked yet)
    passes: bool = False
    asked: object = None

    def raise_long_data_error(self) -> None:
        """mysqld reports a COM_STMT_SEND_LONG_DATA's error (which has no answer) at the next
        COM_STMT_EXECUTE (or bulk execute) of the statement, once, its long data dropped."""
        error, self.long_data_error = self.long_data_error, None
        if error is not None:
            self.long_data.clear()
            raise error
    # its select items that are a placeholder alone: (result column, parameter, has an alias)
    # (`bare_placeholders`)
    bare: tuple[tuple[int, int, bool], ...] = ()

    param_count: int = field(init=False)  # the placeholders: `pieces` less one (an execution reads it)
    # `pieces` as a %-format with a %s per placeholder (`bind_write` puts the literals in at once)
    template: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.param_count = len(self.pieces) - 1
        self.template = "%s".join(piece.replace("%", "%%") for piece in self.pieces)

    def bind(self, values: list[Any], types: list[ParamType], warnings: list | None = None) -> str:
        """The statement's text with the values as literals; in a SELECT (which is not
        binlogged) a date or time value as a typed literal, DATE '..', TIME '..', TIMESTAMP '..':
        of its type, as a MariaDB parameter of that type is (`SELECT ?` a DATETIME, `? + 1` a
        number, not a string). The warnings reading the values gives go to `warnings`."""
        out = [self.pieces[0]]
        for i, value in enumerate(values):
            text = str(value) if type(value) is int else literal(value, types[i], warnings)  # (`literal`'s first case)
            if self.select and isinstance(value, _TEMPORAL_VALUES):
                text = _TYPED_LITERAL[type(value)] + " " + text
            out.append(text)
            out.append(self.pieces[i + 1])
        return "".join(out)

    def bind_write(self, values: list[Any], types: list[ParamType],
                   warnings: list | None = None) -> tuple[str, list[Any] | None]:
        """`bind` of a write (no typed literals), and its values as `_plain_values` gives them,
        or None when one is not plain, read in the same pass (a string parameter as UTF-8 is
        decoded and quoted once; a text one, of a client's character set, is plain when ASCII;
        bytes-like values other than bytes, which a parameter block never gives, are not)."""
        texts = []
        plain: list[Any] | None = []
        for i, value in enumerate(values):
            kind = type(value)
            if kind is int:
                text = str(value)
                if plain is not None and not 0 <= value <= _SIGNED_MAX:
                    plain = None
            elif kind is str or kind is bytes and types[i].type not in _NOT_PLAIN_TEXT:
                if kind is bytes:
                    try:
                        value = value.decode("utf-8")
                    except UnicodeDecodeError:
                        texts.append(literal(value, types[i], warnings))  # (X'..')
                        plain = None
                        continue
                elif not value.isascii() or types[i].type in _NOT_PLAIN_TEXT:
                    plain = None
                text = value.translate(_ESCAPE_TABLE)  # (`literal`'s quoting: longer when it escapes)
                if plain is not None and (text != value or "@" in value or "/*" in value):
                    plain = None
                text = "'" + text + "'"
            else:
                text, plain = literal(value, types[i], warnings), None
            if plain is not None:
                plain.append(value)
            texts.append(text)
        return self.template % tuple(texts), plain

    def passes_text(self, routines: dict[str, dict[str, Any]]) -> bool:
        """Whether each text of the statement that an execution on receipt runs, its own (no
        placeholder) or bound with plain values (`bind_write`'s: digits, or text quoted without an
        escape, `/*` or `@`), passes what `ClientSession._loop_answers` asks of a text while
        `routines` are the stored functions: no executable comment, no `may_call`; kept in
        `passes`, with `routines` in `asked`. A plain value brings no executable comment: its
        text has no `/*` and begins and ends with a digit or a quote, so a `/*!` or `/*M!` of the
        bound text is one of a piece. It may bring a function's name (in its quotes, or joined to
        a piece's word: `f?(1)` bound with 1 names `f1`) and a `(`, so with placeholders the text
        passes `may_call` only while no database keeps a stored function."""
        text = "?".join(self.pieces)  # (a `?` takes no part in either comment's opening)
        self.passes = passes = not ("/*!" in text or "/*M!" in text or (
            keeps_functions(routines) if self.param_count else may_call(routines, text)))
        self.asked = routines
        return passes

    def bind_text(self, literals: list[str]) -> str:
        """The text with each placeholder replaced by its literal's text."""
        out = [self.pieces[0]]
        for i, text in enumerate(literals):
            out.append(text)
            out.append(self.pieces[i + 1])
        return "".join(out)

    def as_written(self, exc: SQLError) -> SQLError:
        """`exc`, which the statement's description raised on its text bound with NULLs or zeros
        (`_prepared`); a 1064 points into the statement as written instead, `?` where the literal
        stood: mysqld's prepare parses the placeholders themselves ('SELEC ?' is near 'SELEC ?',
        not near 'SELEC 0')."""
        text = sqltext.near_text(exc)
        if text is None or self.param_count == 0:
            return exc
        for literal_text in ("NULL", "0"):
            bound = self.bind_text([literal_text] * self.param_count)
            at = bound.rfind(text)
            if at < 0 or (at + len(text) != len(bound) and len(text) < sqltext.NEAR_LENGTH):
                continue
            return sqltext.parse_error("?".join(self.pieces), _written_offset(self.pieces, literal_text, at))
        return exc


def _written_offset(pieces: Sequence[str], literal_text: str, at: int) -> int:
    """Where offset `at` of the text bound with `literal_text` in every placeholder falls in
    the text as written (the placeholder itself when `at` is inside a literal)."""
    bound = written = 0
    for i, piece in enumerate(pieces):
        if at < bound + len(piece) or i == len(pieces) - 1:
            return written + min(at - bound, len(piece))
        bound, written = bound + len(piece), written + len(piece)
        if at < bound + len(literal_text):
            return written
        bound, written = bound + len(literal_text), written + 1
    return written


async def _text_errors_only(planned: Awaitable[Any]) -> Any:
    """What `planned` answers; None when it fails on the probe's values (1048 ...), which is the
    execution's to find: only errors of the text (`_PREPARE_ERRORS`) fail a prepare."""
    try:
        return await planned
    except SQLError as exc:
        if exc.error.code in _PREPARE_ERRORS:
            raise
        return None


def _id_text(statement_id: int) -> str:
    return str(statement_id)


def result_columns(result: Any, results: Charset | None = None) -> tuple[ColumnDefinition, ...]:
    """The column definitions of a result, the ones the text protocol would send for it (to a
    client whose character_set_results is `results`: `ClientSession.results_charset`)."""
    if isinstance(result, ResultSet):
        columns = result.columns
    else:
        kinds = result.column_types or ()
        columns = tuple(result_column(name, kinds[i] if i < len(kinds) else "string")
                        for i, name in enumerate(result.columns))
    if results is not None:
        columns = tuple(charset_column(col, results) for col in columns)
    return columns


_TEXT_TYPES = (FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB)  # any value has a text form


def _as_text_column(col: ColumnDefinition) -> ColumnDefinition:
    return column(col.name, FieldType.VAR_STRING, schema=col.schema, table=col.table,
                  org_table=col.org_table, org_name=col.org_name)


def carried_rows(columns: tuple[ColumnDefinition, ...], rows: Sequence[Sequence[Any]],
                 ) -> tuple[tuple[ColumnDefinition, ...], list[bytes]]:
    """`columns`, each one that cannot carry all its values in binary replaced by VAR_STRING, and
    the rows encoded for them, each row encoded once (again only after a replacement). A NULL
    column holding a value is replaced too. A value even VAR_STRING cannot carry raises
    `LocalProtocolError`."""
    carried = list(columns)
    for i, col in enumerate(columns):
        if col.type == FieldType.NULL and any(row[i] is not None for row in rows):
            carried[i] = _as_text_column(col)
    while True:
        try:
            return tuple(carried), BinaryRowEncoder(carried).encode_rows(rows)
        except UncarriedValue as exc:
            col = carried[exc.column]
            if col.type in _TEXT_TYPES:
                raise
            carried[exc.column] = _as_text_column(col)


_MARK = "semisync_placeholder_"


def bare_placeholders(pieces: list[str]) -> tuple[tuple[int, int, bool], ...]:
    """(result column, parameter, has an alias) of each item of a SELECT's list that is a
    placeholder alone (`SELECT ?`, `SELECT ? AS p`): MariaDB names its column '?' (or the alias),
    NULL-typed at prepare, and types it by the value each execution binds (`param_type`). Items
    after a wildcard are not counted (how many columns it gives is not known here)."""
    if len(pieces) < 2 or sqltext.head(pieces[0]).partition(" ")[0] != "SELECT":
        return ()
    text = pieces[0] + "".join(f" {_MARK}{k} {piece}" for k, piece in enumerate(pieces[1:]))
    try:
        found = select_items(tokenize(extract(text)[0]))
    except SQLError:
        return ()
    out = []
    for at, item in enumerate(found[0] if found is not None else ()):
        if item and item[-1].text == "*":
            break
        core = drop_alias(item)
        if len(core) == 1 and core[0].text.startswith(_MARK):
            out.append((at, int(core[0].text[len(_MARK):]), len(core) != len(item)))
    return tuple(out)


_PARAM_INT_LENGTHS = {FieldType.TINY: 4, FieldType.SHORT: 6, FieldType.INT24: 9, FieldType.LONG: 11,
                      FieldType.LONGLONG: 21}
# a string parameter's result column: as sent, VARCHAR as VAR_STRING (in the connection's
# collation); a blob's as sent, binary
_PARAM_TEXTS = {FieldType.STRING: FieldType.STRING, FieldType.VAR_STRING: FieldType.VAR_STRING,
                FieldType.VARCHAR: FieldType.VAR_STRING}
_PARAM_BLOBS = frozenset({FieldType.BLOB, FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB})


def param_type(ptype: ParamType, value: Any) -> ColumnType | None:
    """The result column of a bare placeholder bound to `value` as `ptype`, as MariaDB types it:
    of the type it was sent as (None: a type it is not known for here, the engine's typing of
    the literal stays)."""
    if value is None:
        return NULL_TYPE
    code = ptype.type
    flags = ColumnFlag.NOT_NULL | ColumnFlag.BINARY
    if code in _PARAM_INT_LENGTHS:
        unsigned = ColumnFlag.UNSIGNED if ptype.unsigned else 0
        return ColumnType(code, _PARAM_INT_LENGTHS[code], 0, CHARSET_BINARY, flags | unsigned)
    if code == FieldType.DOUBLE:
        return ColumnType(code, 23, NOT_FIXED_DEC, CHARSET_BINARY, flags)
    if code in (FieldType.DECIMAL, FieldType.NEWDECIMAL):
        try:
            _sign, digits, exponent = decimal.Decimal(str(value)).as_tuple()
        except decimal.InvalidOperation:
            return None
        scale = max(-int(exponent), 0)
        return ColumnType(code, max(len(digits), scale + 1) + (1 if scale else 0) + 1, scale, CHARSET_BINARY, flags)
    if code in (FieldType.DATETIME, FieldType.TIMESTAMP) and isinstance(value, datetime.datetime):
        return ColumnType(FieldType.DATETIME, 19, 6 if value.microsecond else 0, CHARSET_BINARY, flags)
    if code == FieldType.DATE and isinstance(value, datetime.date):
        return ColumnType(FieldType.DATE, 10, 0, CHARSET_BINARY, flags)
    if not isinstance(value, str | bytes):
        return None
    if code in _PARAM_BLOBS:
        size = len(value.encode() if isinstance(value, str) else value)
        return ColumnType(code, size, STRING_DEC, CHARSET_BINARY, flags)
    text = _PARAM_TEXTS.get(code)
    if text is None:
        return None
    chars = len(value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value)
    return ColumnType(text, chars * MB, STRING_DEC, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag.NOT_NULL)


def typed_by_values(result: Any, bare: tuple[tuple[int, int, bool], ...], values: list[Any],
                    types: list[ParamType]) -> Any:
    """`result` (the engine's) with its bare placeholders' columns named and typed as MariaDB's
    execution answer has them (`bare_placeholders`, `param_type`)."""
    names, kinds = list(result.columns), list(result.column_types)
    for at, k, aliased in bare:
        if at >= len(names):
            continue
        if not aliased:
            names[at] = "?"
        value = values[k]
        if types[k].type in _DECIMAL_TYPES and value is not None:  # the number `literal` reads
            value = decimal.Decimal(_decimal_param(value, None))
        ct = param_type(types[k], value)
        if ct is not None:
            kinds[at] = ct
    return replace(result, columns=names, column_types=kinds)


def _kept(read: PreparedRead, keyword: str, kinds: tuple[type, ...], result: Any, capabilities: int,
          com: str | None) -> KeptRead:
    columns = result_columns(result)
    null_typed = any(col.type == FieldType.NULL for col in columns)
    return KeptRead(read, keyword, kinds, ResultHead.of(columns, capabilities),
                    None if null_typed else BinaryRowEncoder(columns), com)


class PreparedStatements:
    """One session's prepared statements and its COM_STMT_* commands."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session
        self._statements: dict[int, PreparedStatement] = {}
        self._named: dict[str, PreparedStatement] = {}  # PREPARE name FROM ...: by the name lower case
        self._next_id = 1
        self._last: int | None = None  # the id of the last statement prepared, while it lives
        self.kept_any = False  # some statement kept its read (`answer_on_receipt` may answer)
        self.writes_any = False  # some statement writes (answered on receipt inside a transaction)
        self.txn_statements_any = False  # some statement is a BEGIN or a COMMIT (answered on receipt)

    # -- accounting ---------------------------------------------------------------------------

    def _limit(self) -> int:
        return self.session.server.variables.get("max_prepared_stmt_count", None, Scope.GLOBAL)

    def _resolve(self, statement_id: int) -> int | None:
        """`statement_id`, or for MariaDB's LAST_STMT_ID (0xFFFFFFFF: a client that sends a
        prepare and its execution at once) the last statement prepared, while it lives."""
        return self._last if statement_id == LAST_STMT_ID else statement_id

    def _drop(self, statement_id: int | None) -> PreparedStatement | None:
        stmt = self._statements.pop(statement_id, None)  # type: ignore[arg-type]
        if statement_id == self._last:
            self._last = None
        if stmt is not None:
            self.release(stmt)
        return stmt

    def close_all(self) -> None:
        """The session ends (or COM_RESET_CONNECTION, COM_CHANGE_USER): every statement is
        deallocated, the named ones (PREPARE) too."""
        for statement_id in list(self._statements):
            self._drop(statement_id)
        for name in list(self._named):
            self.deallocate(name, None)

    @staticmethod
    def held(server: SessionHost) -> int:
        """Prepared_stmt_count: statements held by all sessions of `server`."""
        return _HELD.get(server, 0)

    def find(self, statement_id: int, command: str) -> PreparedStatement:
        stmt = self._statements.get(self._resolve(statement_id))  # type: ignore[arg-type]
        if stmt is None:
            raise SQLError(ER_UNKNOWN_STMT_HANDLER, _id_text(statement_id), command)
        return stmt

    # -- commands -----------------------------------------------------------------------------

    def forget_kept(self) -> None:
        """Every kept read let go (the connection's character sets changed: a kept read's column
        definitions are encoded for the earlier ones)."""
        for stmt in self._statements.values():
            stmt.kept = None
            stmt.int_params = None

    async def handle(self, payload: bytes) -> None:
        """Run one COM_STMT_* command (raw payload) and send its answer, if it has one."""
        session = self.session
        conn = session.conn
        assert conn is not None
        try:
            command = decode_stmt_command(payload)
        except RemoteProtocolError as exc:  # malformed: MySQL's ER_MALFORMED_PACKET, connection kept
            if exc.fatal:
                raise
            session.send_error(SQLError(exc.error))  # MySQL's wording
            return
        counter = _COUNTERS.get(type(command))  # (a bulk execution counts its executions: server/bulk.py)
        if counter is not None:
            session.server.stats.com[counter] += 1
        try:
            if isinstance(command, ComStmtPrepare):
                await self._prepare(command)
            elif isinstance(command, ComStmtExecute):
                await self._execute(command)  # a malformed parameter block: as above
            elif isinstance(command, ComStmtFetch):
                self._fetch(command)
            elif isinstance(command, ComStmtBulkExecute):
                from server.bulk import execute_bulk  # (bulk.py reads this module's literals)

                await execute_bulk(self, command)
            elif isinstance(command, ComStmtReset):
                self._logged_command("Reset stmt")
                stmt = self.find(command.statement_id, "mysqld_stmt_reset")
                stmt.long_data.clear()
                stmt.long_data_error = None
                stmt.cursor = None
                session.write(conn.send(OK(status=session.status_flags())))
            elif isinstance(command, ComStmtSendLongData):
                target = self._statements.get(self._resolve(command.statement_id))  # type: ignore[arg-type]
                if target is not None and command.param_id < target.param_count:
                    data = target.long_data.setdefault(command.param_id, bytearray())
                    if len(data) + len(command.data) > conn.max_packet:
                        # mysqld's Item_param::set_longdata
                        target.long_data_error = SQLError(ER_UNKNOWN_ERROR, _LONG_DATA_PAST_PACKET)
                    else:
                        data.extend(command.data)
                elif target is not None:
                    target.long_data_error = SQLError(ER_WRONG_ARGUMENTS, "mysqld_stmt_send_long_data")
                conn.send_nothing()
            else:
                assert isinstance(command, ComStmtClose)
                self._logged_command("Close stmt")
                self._drop(self._resolve(command.statement_id))
                conn.send_nothing()
        except SQLError as exc:
            session.send_error(exc)
        except RemoteProtocolError as exc:
            if exc.fatal:
                raise
            session.send_error(SQLError(exc.error))  # MySQL's wording

    def _logged_command(self, name: str) -> None:
        """The general log's line of a command without text (COM_STMT_RESET, COM_STMT_CLOSE)."""
        general = self.session.general_log
        if general is not None:
            general.line(self.session.connection_id, name, "")

    async def _prepare(self, command: ComStmtPrepare) -> None:
        session = self.session
        client = session.conn.client_charset  # type: ignore[union-attr]
        sql = command.query.decode("utf-8", "surrogateescape") if client is None else client.decode(command.query)
        if (general := session.general_log) is not None:
            general.line(session.connection_id, "Prepare", sql)
        self._last = None  # (a failed prepare leaves none, as mysqld's)
        stmt = await self._prepared(sql, session.run_statement)
        self._statements[stmt.id] = stmt
        self._last = stmt.id
        session.write(session.conn.send(PrepareOK(  # type: ignore[union-attr]
            stmt.id, stmt.columns, stmt.param_count, status=session.status_flags(),
        )))

    async def _prepared(self, sql: str, run: Callable[[str], Awaitable[Any]], limited: bool = True,
                        ) -> PreparedStatement:
        """A statement prepared from `sql` and counted as held (`_HELD`); `run` runs the
        statements that describe it (the session's `run_statement` for a command, `execute`
        inside a statement); `limited`: refused past max_prepared_stmt_count (1461)."""
        session = self.session
        if "/*!" in sql or "/*M!" in sql:
            sql = sqltext.unwrap_comments(sql, session.server.version_number)
        pieces = split_placeholders(sql)
        if len(pieces) - 1 > MAX_PARAMS:
            raise SQLError(ER_PS_MANY_PARAM)
        if limited and self.held(session.server) >= self._limit():
            raise SQLError(ER_MAX_PREPARED_STMT_COUNT_REACHED, self._limit())
        stmt = PreparedStatement(self._next_id, pieces)
        head = sqltext.head(sql)
        keyword = head.partition(" ")[0]
        if keyword in _NOT_PREPARED or head == "DROP PREPARE":
            raise SQLError(ER_UNSUPPORTED_PS)
        stmt.select = keyword == "SELECT"
        server = session.server
        # no handler claims it: decided here, once, not per execution (the claims are fixed once
        # the server runs)
        unclaimed = not server.role.claims(head) and not server.admin.claims(sql, head)
        if keyword in WRITES_NOW and head == sqltext.head(pieces[0]) and unclaimed:  # (the values never change it)
            stmt.write = head
            stmt.kept_write = KeptWrite(tuple(pieces))
            self.writes_any = True
        elif keyword in BEGINS_NOW and len(pieces) == 1 and unclaimed:
            stmt.begin = head
            self.txn_statements_any = True
        elif keyword == "COMMIT" and len(pieces) == 1 and unclaimed:
            stmt.commit = head
            self.txn_statements_any = True
        try:
            await self._describe(stmt, sql, keyword, head, run)
        except SQLError as exc:
            raise stmt.as_written(exc) from None
        self._next_id += 1
        _HELD[server] = _HELD.get(server, 0) + 1
        return stmt

    async def _describe(self, stmt: PreparedStatement, sql: str, keyword: str, head: str,
                        run: Callable[[str], Awaitable[Any]]) -> None:
        """`stmt`'s columns, and the errors of its text, found by running or planning it with
        NULLs or zeros for its placeholders (`_prepared`)."""
        session = self.session
        pieces = stmt.pieces
        probe = stmt.bind([None] * stmt.param_count, [ParamType(FieldType.NULL)] * stmt.param_count)
        server = session.server
        if stmt.select and session.engine_session.sets_variables(probe):
            pass  # SELECT ... INTO @a: no columns, nothing set before it executes (MariaDB's prepare)
        elif keyword in _DESCRIBED or sql.lstrip().startswith("("):
            # run with NULLs, or with zeros where a NULL cannot stand (`LIMIT ?`): what fails on
            # both values is the execution's to report, as mysqld's prepare leaves it
            result = await _text_errors_only(run(probe))
            if result is None:
                zeros = stmt.bind([0] * stmt.param_count, [ParamType(FieldType.LONGLONG)] * stmt.param_count)
                result = await _text_errors_only(run(zeros))
            if getattr(result, "columns", None):
                stmt.columns = result_columns(result, session.results_charset)
                stmt.bare = bare_placeholders(pieces) if stmt.select else ()
                columns = list(stmt.columns)
                for at, _k, aliased in stmt.bare:
                    if at < len(columns):
                        columns[at] = result_column(columns[at].name if aliased else "?", NULL_TYPE)
                stmt.columns = tuple(columns)
        elif not server.role.claims(head) and keyword not in server.admin.handlers:
            # an engine statement: planned, not run (1064, 1146 ... as mysqld's prepare)
            # INSERT/REPLACE/DELETE ... RETURNING: its columns, described without writing,
            # planned with zeros (a NULL in a NOT NULL column is refused while planning)
            zeros = stmt.bind([0] * stmt.param_count, [ParamType(FieldType.LONGLONG)] * stmt.param_count)
            described = await _text_errors_only(session.engine_session.describe(zeros))
            if described is not None:
                stmt.columns = result_columns(described, session.results_charset)
            await _text_errors_only(session.engine_session.access(probe))

    # -- SQL-level statements (server/sql_prepared.py) ------------------------------------------

    async def prepare_named(self, name: str | None, sql: str) -> PreparedStatement:
        """PREPARE name FROM sql (a name free, whatever its case), or with `name` None the
        statement of an EXECUTE IMMEDIATE (held until `release`, whatever
        max_prepared_stmt_count says, as MariaDB's). Several statements in `sql`
        are MariaDB's 1064 near the second."""
        statements = sqltext.split_statements(sql)
        if len(statements) > 1:
            raise sqltext.parse_error(sql, sql.find(statements[1], len(statements[0])))
        session = self.session
        stmt = await self._prepared(sql, session.execute, limited=name is not None)
        if stmt.write is not None and session.privileges is not None:
            # a write's privileges are checked when it is prepared too (1142), as mysqld's
            try:
                await session.privileges.check(stmt.bind_text(["NULL"] * stmt.param_count), stmt.write.partition(" ")[0])
            except SQLError:
                self.release(stmt)
                raise
        if name is not None:
            self._named[name.lower()] = stmt
        return stmt

    def named(self, name: str) -> PreparedStatement:
        """The statement PREPAREd as `name` (any case); 1243 for EXECUTE when there is none."""
        stmt = self._named.get(name.lower())
        if stmt is None:
            raise SQLError(ER_UNKNOWN_STMT_HANDLER, name, "EXECUTE")
        return stmt

    def deallocate(self, name: str, command: str | None) -> None:
        """DEALLOCATE PREPARE name (`command` the one 1243 names when there is none), or with
        `command` None a PREPARE's replacing of the statement under `name`, if any."""
        stmt = self._named.pop(name.lower(), None)
        if stmt is not None:
            self.release(stmt)
        elif command is not None:
            raise SQLError(ER_UNKNOWN_STMT_HANDLER, name, command)

    def release(self, stmt: PreparedStatement) -> None:
        """`stmt` no longer held (Prepared_stmt_count)."""
        server = self.session.server
        _HELD[server] = max(0, _HELD.get(server, 0) - 1)

    async def _execute(self, command: ComStmtExecute) -> None:
        session = self.session
        stmt = self.find(command.statement_id, "mysqld_stmt_execute")
        stmt.raise_long_data_error()
        long_flags = [i in stmt.long_data for i in range(stmt.param_count)]
        try:
            values, types = decode_execute_params(command.params, stmt.param_count, stmt.types, long_flags)
        except RemoteProtocolError:
            # mysqld's set_parameters: a parameter block that does not read is the client's
            # wrong arguments; the statement and the connection stay usable
            stmt.long_data.clear()
            raise SQLError(ER_WRONG_ARGUMENTS, "mysqld_stmt_execute") from None
        for i, data in stmt.long_data.items():
            if values[i] is None and types[i].type != FieldType.NULL:
                values[i] = bytes(data)
        stmt.long_data.clear()  # mysqld: long data is used by one execution
        values = in_client_charset(values, types, session.conn.client_charset)  # type: ignore[union-attr]
        stmt.types = types
        stmt.cursor = None
        logged = session.server.query_logs.active
        if logged:
            text = stmt.bind(values, types)
            session.log_statement("Execute", text, text)
        warned: list[tuple[str, int, str]] = []  # reading the values' (a DECIMAL's: `literal`)
        result, kept = self._read_now(stmt, values, types, warned) if stmt.select else (None, None)
        if result is None:
            warned.clear()
            result = await session.run_statement(stmt.bind(values, types, warned))
        if warned and isinstance(result, Result):
            result = replace(result, warnings=(*warned, *result.warnings))
        if logged:
            session.logged_result = result
        if not getattr(result, "columns", None):
            session.send_result(result)
            return
        if stmt.bare and isinstance(result, Result):
            result = typed_by_values(result, stmt.bare, values, types)
        self.answer_rows(stmt, command.flags, result, kept)

    def answer_on_receipt(self, event: Any) -> bool:
        """Answer `event`, a command just received, here and now when it is a COM_STMT_EXECUTE
        (no cursor, no long data) of a statement with a kept read, with plain values, that the
        kept read answers, of a write inside a transaction that `ClientSession.run_write_now`
        runs, of a BEGIN that `run_begin_now` answers or of a COMMIT that `run_commit_now`
        begins (its answer is then the session task's); True when answered or begun (counted
        as the session's command loop and `handle` count it), False when nothing was done and
        the session's task must run it."""
        if type(event) is not ComUnknown or event.code != COM_STMT_EXECUTE:
            return False
        return self.execute_on_receipt(bytes((COM_STMT_EXECUTE,)) + event.payload)

    def execute_on_receipt(self, payload: bytes) -> bool:
        """`answer_on_receipt` of a COM_STMT_EXECUTE's `payload` (its first byte the command), as
        received: no command object."""
        session = self.session
        es = session.engine_session
        writing = self.writes_any and es is not None and es.writes_in_transaction
        if not (self.kept_any or writing or self.txn_statements_any):
            return False
        execute = plain_execute(payload)  # (flags 0, the usual: no command object)
        if execute is not None:
            (statement_id, block), flags = execute, 0
        else:
            try:
                command = decode_stmt_command(payload)
            except RemoteProtocolError:
                return False
            statement_id, block, flags = command.statement_id, command.params, command.flags  # type: ignore[union-attr]
        stmt = self._statements.get(statement_id)
        if (stmt is None or (stmt.kept is None and not (writing and stmt.write) and stmt.begin is None
                             and stmt.commit is None) or stmt.long_data
                or stmt.long_data_error or flags & CURSOR_TYPE_READ_ONLY):
            return False
        kept = stmt.kept
        plain = _int_values(stmt, block) if kept is not None else None
        if plain is not None:
            return self._answer_kept(stmt, kept, plain, stmt.types, flags)  # type: ignore[arg-type]
        layout = stmt.write_params
        values = None
        if layout is not None and layout[0] is stmt.types and layout[1] is not None:
            values = layout[1].read(block)
        if values is not None:
            types = stmt.types
        elif not stmt.param_count:  # (BEGIN, COMMIT: `decode_execute_params` reads nothing)
            values, types = [], []
        else:
            try:
                values, types = decode_execute_params(block, stmt.param_count, stmt.types, [False] * stmt.param_count)
            except RemoteProtocolError:
                return False
            if stmt.write is not None:
                if types == stmt.types:  # (the bound types: a layout read with them stays valid)
                    types = stmt.types
                found = ParamsLayout.of(block, stmt.param_count, types)
                if found is not None or layout is None or layout[0] is not types:  # (else the one kept stays)
                    stmt.write_params = (types, found)
        client = session.conn.client_charset  # type: ignore[union-attr]
        if client is not None:  # (utf8: the values as read, without the call)
            values = in_client_charset(values, types, client)
        if kept is not None:
            plain = _plain_values(values, types)
            if plain is None or tuple(map(type, plain)) != kept.kinds:
                return False
            stmt.int_params = (types, IntParams.of(block, stmt.param_count, types))
            return self._answer_kept(stmt, kept, plain, types, flags)
        routines = session.server.engine.routines
        passes = stmt.passes if stmt.asked is routines else stmt.passes_text(routines)
        try:
            if stmt.begin is not None:
                result = session.run_begin_now(stmt.pieces[0], stmt.begin, True, passes)
            elif stmt.commit is not None:
                result = session.run_commit_now(stmt.pieces[0], stmt.commit, "Execute", True, passes)
            else:
                warned: list = []
                sql, plain = stmt.bind_write(values, types, warned)
                if warned:  # (the statement path gives them)
                    return False
                if plain is None:  # (a value not plain: its text is asked as it is)
                    result = session.run_write_now(sql, stmt.write, True)  # type: ignore[arg-type]
                else:
                    result = session.run_write_now(sql, stmt.write, True, stmt.kept_write, plain,  # type: ignore[arg-type]
                                                   passes)
        except SQLError as exc:  # (a failed write: the statement path's error too)
            result = exc
        return self._executed(stmt, types, result, None, 0)

    def kept_answer(self, payload: bytes) -> bool:
        """`answer_on_receipt` of `payload`, a COM_STMT_EXECUTE's just received (its first byte
        the command), for an execution without flags of a statement with a kept read and no long
        data, whose values are integers laid out as the last ones read (`_int_values`, here
        `IntParams.read_execute` of the whole payload): the same answer and counts without
        decoding a command; False when nothing was done.

        Its common case in one pass: when the session's state asks nothing of the read but its
        rows (no warning listed, nothing pending: `ClientSession.reads_unhindered`, else
        `unhindered`; then engine `Session.prepared_rows`, plain: autocommit, no transaction, no
        warning of its own) and its columns carry them, the rows go to their answer with the
        status that state gives (AUTOCOMMIT), counted as `_executed` and `_counted` count them;
        any other case takes `_answer_kept`, the path of every kept read (the bytes and counts
        the same: tests/unit/test_prepared_reads.py)."""
        try:
            stmt = self._statements.get(EXECUTE_HEAD.unpack_from(payload)[1])
        except struct.error:  # (cut short: the statement path's error)
            return False
        if stmt is None or stmt.long_data or stmt.long_data_error:
            return False
        kept, fast = stmt.kept, stmt.int_params
        if kept is None or fast is None or fast[1] is None or fast[0] is not stmt.types:
            return False
        values = fast[1].read_execute(payload)
        if values is None or kept.kinds != (int,) * len(values):
            return False
        for value in values:  # (plain: `_int_values`' range, read without min() and max(), which cost more)
            if value < 0 or value > _SIGNED_MAX:
                return False
        session = self.session
        encoder = kept.encoder
        if encoder is None or session.diagnostics or not (session.reads_unhindered or session.unhindered()):
            return self._answer_kept(stmt, kept, list(values), stmt.types, 0, True)  # type: ignore[arg-type]
        stats = session.server.stats
        try:
            rows = session.engine_session.prepared_rows(kept.read, values, True)  # type: ignore[union-attr]
            if rows is None:
                return self._answer_kept(stmt, kept, list(values), stmt.types, 0, True)  # type: ignore[arg-type]
            if kept.com is not None:  # (`_counted` of a prepared read: its rows came)
                stats.com[kept.com] += 1
            wire = session.conn.send_binary_rows(kept.head, _AUTOCOMMIT, rows, encoder)  # type: ignore[union-attr]
        except SQLError as exc:  # (a row the engine cannot convert: the statement path's error too)
            return self._executed(stmt, stmt.types, exc, kept, 0)  # type: ignore[arg-type]
        except UncarriedValue:  # (`_executed` tries it again, then answers the rows as carried)
            read = kept.read
            return self._executed(stmt, stmt.types, Result(columns=read.names, column_types=read.types, rows=rows),  # type: ignore[arg-type]
                                  kept, 0)
        stats.questions += 1
        stats.com[_COUNTERS[ComStmtExecute]] += 1
        stmt.cursor = None
        session.write(wire)
        return True

    def _answer_kept(self, stmt: PreparedStatement, kept: KeptRead, plain: list[Any], types: list[ParamType],
                     flags: int, ints: bool = False) -> bool:
        """Answer an execution of `stmt` (with `flags`, its values bound as `types`) whose plain
        values `plain` (`ints`: all ints) its kept read takes, as `answer_on_receipt` does: True
        when answered, False when the session's state declines the kept read (nothing done)."""
        try:
            result = self.session.run_prepared_read(kept.read, kept.keyword, plain, ints)
        except SQLError as exc:  # (a row the engine cannot convert: the statement path's error too)
            result = exc
        return self._executed(stmt, types, result, kept, flags)

    def _executed(self, stmt: PreparedStatement, types: list[ParamType], result: Any, kept: KeptRead | None,
                  flags: int) -> bool:
        """An execution of `stmt` (with `flags`, its values bound as `types`) run on receipt with
        `result` (a Result, ANSWERED_LATER, the SQLError it failed with, or None: declined,
        nothing done) counted as `handle` counts it and answered: its rows through `kept` when
        it came from that kept read. False when declined."""
        if result is None:
            return False
        session = self.session
        stats = session.server.stats
        stats.questions += 1
        stats.com[_COUNTERS[ComStmtExecute]] += 1
        stmt.types = types
        stmt.cursor = None
        try:
            if isinstance(result, SQLError):
                raise result
            if kept is not None:
                encoder = kept.encoder
                if encoder is not None and not flags & CURSOR_TYPE_READ_ONLY:  # (`answer_rows`' first way)
                    try:
                        session.write(session.conn.send_binary_rows(  # type: ignore[union-attr]
                            kept.head, session.status_flags(), result.rows, encoder))
                        return True
                    except UncarriedValue:
                        pass
                self.answer_rows(stmt, flags, result, kept)
            elif result is not ANSWERED_LATER:
                session.send_result(result)
        except SQLError as exc:
            session.send_error(exc)
        return True

    def answer_rows(self, stmt: PreparedStatement, flags: int, result: Any, kept: KeptRead | None) -> None:
        """The binary result set of `result` (rows), encoded through `kept` when it came from it."""
        session = self.session
        conn = session.conn
        assert conn is not None
        encoded_columns = None
        if kept is not None and kept.encoder is not None:
            try:
                if not flags & CURSOR_TYPE_READ_ONLY:
                    session.write(conn.send_binary_rows(kept.head, session.status_flags(), result.rows, kept.encoder))
                    return
                encoded = kept.encoder.encode_rows(result.rows)
            except UncarriedValue:
                columns, encoded = carried_rows(kept.head.columns, result.rows)
            else:
                columns, encoded_columns = kept.head.columns, kept.head.encoded_columns
        else:
            columns, rows = result_columns(result), result.rows
            if session.results_charset is not None:
                columns, rows = for_results(columns, rows, session.results_charset)
            columns, encoded = carried_rows(columns, rows)
        warnings = getattr(result, "warnings", ())
        if not isinstance(warnings, list | tuple):  # (a shell answer's warning count: none to list)
            warnings = ()
        if warnings:  # (the statement began with none)
            session.diagnostics = list(warnings)
        status = session.status_flags()
        if flags & CURSOR_TYPE_READ_ONLY:
            stmt.cursor = encoded
            stmt.cursor_columns = columns
            session.write(conn.send(BinaryResultSet(columns, (), status, cursor=True)))
        else:
            session.write(conn.send(BinaryResultSet(columns, status=status, warnings=len(warnings),
                                                    encoded_rows=encoded, encoded_columns=encoded_columns)))

    def _read_now(self, stmt: PreparedStatement, values: list[Any], types: list[ParamType],
                  warnings: list | None = None) -> tuple[Any, KeptRead | None]:
        """A SELECT's result when the loop answers it at once, else None, and the `KeptRead` it
        came through: the one an earlier execution kept, when the values are plain and of its
        kinds, else none (`run_read_now` of the bound text, whose read is kept when it
        qualifies: `Session.prepare_read`)."""
        session = self.session
        plain = _plain_values(values, types)
        kinds = None if plain is None else tuple(map(type, plain))
        kept = stmt.kept
        if kept is not None and kinds == kept.kinds:
            result = session.run_prepared_read(kept.read, kept.keyword, plain)  # type: ignore[arg-type]
            if result is not None:
                return result, kept
        sql = stmt.bind(values, types, warnings)
        keyword = sqltext.head(sql)
        result = session.run_read_now(sql, keyword)
        if (result is not None and kinds is not None and not stmt.bare and keyword == sqltext.head(stmt.pieces[0])
                and session.results_charset is None):  # (a kept read's answer is not converted)
            read = session.engine_session.prepare_read(sql, plain, result)  # type: ignore[arg-type]
            stmt.kept = None if read is None else _kept(
                read, keyword, kinds, result, session.conn.capabilities,  # type: ignore[union-attr]
                session.server.stats.com_name(keyword))
            self.kept_any = self.kept_any or read is not None
        return result, None

    def _fetch(self, command: ComStmtFetch) -> None:
        session = self.session
        stmt = self.find(command.statement_id, "mysqld_stmt_fetch")
        if stmt.cursor is None:
            raise SQLError(ER_STMT_HAS_NO_OPEN_CURSOR, _id_text(stmt.id))
        n = command.num_rows
        rows, stmt.cursor = stmt.cursor[:n], stmt.cursor[n:]
        last = not stmt.cursor
        if last:
            stmt.cursor = None  # mysqld closes an exhausted cursor
        session.write(session.conn.send(  # type: ignore[union-attr]
            BinaryRows(stmt.cursor_columns, (), last, session.status_flags(), encoded_rows=rows)))


__all__ = ["PreparedStatement", "PreparedStatements", "carried_rows", "literal", "result_columns",
           "split_placeholders"]
