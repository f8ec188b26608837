"""MySQL DML/SELECT shapes -> SQLite SQL (`Plan`), once per (shape, default database, catalog
version); the engine caches the result.

A `Plan` is a pure function of its key: its SQL has one `?` per argument and `args` says where each
argument comes from (a literal of the statement, or a per-execution value such as the statement's
NOW(), the session's LAST_INSERT_ID(), a user variable). Unqualified table names are qualified
with the session's database, so `db.table` resolves to the schema file ATTACHed as `db`.

Rewrites: backtick identifiers, MySQL functions SQLite lacks (NOW(), UNIX_TIMESTAMP(), IF(), RAND()
... either per-execution arguments or functions registered on every connection by the engine),
`||`/`&&`/`!` as logical operators, `/` as real division, `DIV`, `<=>`, LIKE's backslash escape,
TRIM(LEADING | TRAILING | BOTH x FROM y), CAST to DATE / DATETIME / TIME (MariaDB's reading of
the value, `mysql_cast_temporal`), to CHAR(n) and, where `engine.exact` did not type it, to an integer,
DATE 'x' / TIME 'x' / TIMESTAMP 'x' (`TYPED` arguments), CHARSET(x) / COLLATION(x) from x's form
(`emit_charset`), index hints / FOR UPDATE / DUAL dropped, INSERT IGNORE / REPLACE / ON DUPLICATE KEY UPDATE /
INSERT ... SET. For INSERT ... VALUES into a table with an AUTO_INCREMENT column, every row's
value of that column becomes an argument (`Plan.auto_slots`) so that the engine can hand out
MySQL's ids (0/NULL/DEFAULT/absent = next id), exactly reproducible from a binlog INSERT_ID; an
INSERT ... SELECT whose rows give that column its values names it (`Plan.auto_selected_at`) for
the engine to run the rows one at a time by the same rule.
Expressions on DECIMAL values, in any clause, become calls of `engine.decimal_math`'s exact
functions (`engine.exact` finds them; `Translator.exact` holds them by start token). A value an
UPDATE/INSERT computes for a column is stored as a literal is (`values.target`: strict mode).
A table value constructor `VALUES (..), (..)` is read as SELECTs joined by UNION ALL
(`values_as_selects`), a query expression in brackets as the same query without them or as a
derived table, UNION DISTINCT as UNION (`query_forms`), `[OFFSET n ROWS] FETCH FIRST m ROWS ONLY` as LIMIT (`emit_fetch`), and a
derived table, CTE or view whose columns repeat a name is MariaDB's 1060 (`check_column_names`).
INSERT/REPLACE/DELETE ... RETURNING keeps SQLite's RETURNING, its list planned as the SELECT of
the list from the target (`Plan.returning`: names, types, and a LIMIT 0 form that describes it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from engine import (
    collation,
    decimal_math,
    fixedbin,
    infoschema,
    perfschema,
    routines,
    strfuncs,
    values,
    viewcols,
)
from engine.catalog import (
    BLOB_TYPES,
    CHAR_TYPES,
    FIXEDBIN_TYPES,
    INT_TYPES,
    NUMERIC_TYPES,
    REAL_TYPES,
    Column,
    DatabaseOptions,
    Table,
    mysql_literal,
)
from engine.collation import GENERAL_CI
from engine.coltypes import CHARSET_BINARY, STRING_CODES
from engine.errors import IntoFile
from engine.exact import (
    AGGREGATE_CALLS,
    BINARY_STRING,
    EXACT,
    NUMBER_ARGS,
    NUMBER_CALLS,
    NUMBER_STRING,
    STRING_CALLS,
    Finder,
    literal_kind,
    member_number,
    string_kind,
    text_kind,
)
from engine.exprtypes import (
    JSON_VALUED,
    UNIT_WORDS,
    Derived,
    SelectTypes,
    UnionTypes,
    Unknown,
    calls_aggregate,
    closing,
    derived,
    derived_origins,
    drop_alias,
    from_tables,
    grouping,
    is_name,
    joined_columns,
    outer_joined,
    repeated_name,
    select_items,
    selected_names,
    set_branches,
    set_operations,
    skip_parens,
    split_select,
    split_top,
    within_group,
)
from engine.lexer import (
    HYBRID_MARK,
    Hybrid,
    Token,
    extract,
    literal_texts,
    quote_ident,
    syntax_error,
    tokenize,
)
from engine.multiwrite import MultiWrite, Target
from engine.results import DIVISION_NULL, LAX_VALUES, PER_ROW
from engine.unsafe import unsafe_notes
from protocol.charsets import CHARSETS
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_BAD_NULL_ERROR,
    ER_CANNOT_CAST_ON_ASSIGNMENT,
    ER_DUP_FIELDNAME,
    ER_EMPTY_ROW_IN_TVC,
    ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION,
    ER_NO_DB_ERROR,
    ER_NO_DEFAULT_FOR_FIELD,
    ER_NO_SUCH_TABLE,
    ER_NON_INSERTABLE_TABLE,
    ER_NON_UNIQ_ERROR,
    ER_NON_UPDATABLE_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_PERCENTILE_NOT_NUMERIC,
    ER_PERCENTILE_NOT_NUMERIC_TYPE,
    ER_PERCENTILE_RANGE,
    ER_UNKNOWN_TABLE,
    ER_UPDATE_TABLE_USED,
    ER_VIEW_RECURSIVE,
    ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN,
    ER_WITH_TIES_NEEDS_ORDER,
    ER_WRONG_ARGUMENTS,
    ER_WRONG_NUMBER_OF_VALUES_IN_TVC,
    ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
    ER_WRONG_USAGE,
    ER_WRONG_VALUE_COUNT_ON_ROW,
    SQLError,
)
from protocol.messages import ColumnFlag, FieldType

# Per-execution argument sources (besides an int: the index of a literal of the statement).
NOW, CURDATE, CURTIME, UNIX_NOW, LAST_ID, DATABASE, CONN_ID, FOUND, ROW_COUNT, USER, CURRENT_USER = (
    "now", "curdate", "curtime", "unix", "lastid", "db", "connid", "found", "rowcount", "user", "curuser")
NOW_US = "nowus"  # the statement's time's microseconds (NOW(6): binlogged as Q_HRNOW when read)
# (STORE, literal index, read as (False; True: a _binary literal; a typed literal's kind, see
# TYPED), Column, row number, `db`.`t`.`c`, negated, IGNORE: stored adjusted)
STORE = "store"
# (TYPED, literal index, "date" | "time" | "datetime"): the typed literal DATE 'x', TIME 'x' or
# TIMESTAMP 'x', its value read from the string as MariaDB's parser reads it (`values.typed_literal`)
TYPED = "typed"
# (FIXEDBIN, literal index, "uuid" | "inet6" | "inet4"): a string compared with such a column,
# bound as the value's canonical text, NULL (warning 1292) for text that names none, as MariaDB
# compares it (`fixedbin.bound`)
FIXEDBIN = "fixedbin"
# A string literal (X'..' too; the plan is keyed by its kind) arithmetic or an exact computation
# reads as a number (`Translator.number_text`), converted for each row computed, as MariaDB
# converts it: one that is no number throughout MariaDB's warning 1292 of that type each time
# (`values.number_warning`), an error in a strict INSERT / UPDATE (`strict`, `Translator.modifiers`):
# mysql_number_text(literal, "DOUBLE" | "DECIMAL", strict, binary); the quiet one in a copy of a value
# computed twice for a row (an UPDATE's changed-rows test: `_checked`, `_quiet`)
NUMBER_TEXT_CALL, NUMBER_TEXT_CALL_QUIET = "mysql_number_text(", "mysql_number_text_quiet("
# the arithmetic that reads a string operand as a DOUBLE
_DOUBLE_OPS = frozenset({"+", "-", "*", "/"})
# the exact calls that read a string operand as a DECIMAL (the others, arithmetic, as a DOUBLE)
_DECIMAL_READS = frozenset({"mysql_dec_intdiv", "mysql_dec_cmp", "mysql_dec_nseq", "mysql_dec_in", "mysql_dec_cast"})
# (WRITTEN, (literal index or -1, ...)): the texts of those literals that are numbers with a point
# or an exponent as the statement writes them (1.50, 1e2), one a line ("" for any other)
WRITTEN = "written"
TYPED_LITERALS = {"DATE": "date", "TIME": "time", "TIMESTAMP": "datetime"}
# How a string literal is read (`Plan.charset_contexts`): by its characters (TEXT), by its bytes
# in its own character set (BYTES), as a select item alone (ITEM: its characters, sent in its own
# character set to a client whose character_set_results is NULL), or both (MIXED: refused);
# STORED: by its characters, stored in a column of the utf8 family (where a binary connection's
# bytes are copied, and so read as UTF-8).
TEXT, BYTES, ITEM, MIXED, STORED = "text", "bytes", "item", "mixed", "stored"
# the calls that read their one argument's bytes, and the ones that read only its characters
_BYTE_CALLS = frozenset({"LENGTH", "LENGTHB", "OCTET_LENGTH", "BIT_LENGTH", "HEX", "MD5", "SHA1", "SHA", "CRC32", "TO_BASE64"})
_CHARACTER_CALLS = frozenset({"CHAR_LENGTH", "CHARACTER_LENGTH"})
# the calls whose result takes the character set of their arguments' strongest (a column's)
_AGGREGATING_CALLS = frozenset({"CONCAT", "CONCAT_WS"})
# what reads a hybrid literal beside it as a number (`Translator.numeric_place`)
_ARITHMETIC_OPS = frozenset({"+", "-", "*", "/", "%", "^", "&", "|", "<<", ">>", "~"})
_NUMBER_CASTS = frozenset({"SIGNED", "UNSIGNED", "INT", "INTEGER", "DECIMAL", "DEC", "NUMERIC", "FIXED",
                           "DOUBLE", "FLOAT", "REAL"})
_NUMBER_COLUMNS = INT_TYPES | REAL_TYPES | NUMERIC_TYPES


# words a parenthesized operand may follow that call nothing (`Translator.operand_kind`)
_CONDITION_WORDS = ("WHERE", "AND", "OR", "XOR", "NOT", "ON", "HAVING", "WHEN", "THEN", "ELSE", "SELECT", "SET")


def _arithmetic(t: Token | None) -> bool:
    return t is not None and (t.kind == "op" and t.text in _ARITHMETIC_OPS or t.is_word("DIV", "MOD"))

CLAUSE_WORDS = {
    "WHERE", "GROUP", "ORDER", "HAVING", "LIMIT", "SET", "UNION", "WINDOW", "FOR", "LOCK", "VALUES",
    "VALUE", "ON", "USING", "INTO", "PROCEDURE", "EXCEPT", "INTERSECT", "SELECT", "DUPLICATE",
    "RETURNING",
}
JOIN_WORDS = {"JOIN", "STRAIGHT_JOIN"}
# what may stand between SELECT and its select list (MariaDB's select options)
_SELECT_MODIFIERS = ("SELECT", "ALL", "DISTINCT", "DISTINCTROW", "HIGH_PRIORITY", "STRAIGHT_JOIN", "SQL_SMALL_RESULT",
                     "SQL_BIG_RESULT", "SQL_BUFFER_RESULT", "SQL_CACHE", "SQL_NO_CACHE", "SQL_CALC_FOUND_ROWS")
JOIN_MODIFIERS = {"INNER", "CROSS", "LEFT", "RIGHT", "OUTER", "NATURAL", "FULL"}
NOT_ALIAS = CLAUSE_WORDS | JOIN_WORDS | JOIN_MODIFIERS | {"FORCE", "USE", "IGNORE", "AS", "PARTITION", "FETCH", "OFFSET"}

FUNC_RENAME = {
    "IF": "iif", "GREATEST": "mysql_greatest", "LEAST": "mysql_least", "CHAR_LENGTH": "length",
    "CHARACTER_LENGTH": "length", "UCASE": "upper", "LCASE": "lower", "MID": "mysql_substr",
    "SUBSTRING": "mysql_substr", "SUBSTR": "mysql_substr", "POWER": "pow", "ISNULL": "mysql_isnull",
    "RAND": "mysql_rand", "LENGTH": "octet_length", "OCTET_LENGTH": "octet_length",
    "DAYOFMONTH": "day", "SCHEMA": "database", "LOCATE": "mysql_locate", "POSITION": "mysql_locate",
    "LEFT": "mysql_left", "RIGHT": "mysql_right", "MOD": "mysql_mod", "FLOOR": "mysql_floor",
    "CEIL": "mysql_ceil", "CEILING": "mysql_ceil", "SLEEP": "mysql_sleep", "HEX": "mysql_hex",
    "INSERT": "mysql_insert", "JSON_EXTRACT": "mysql_json_extract", "JSON_VALID": "mysql_json_valid",
    "POW": "pow", "DAYOFWEEK": "dayofweek", "FORMAT": "mysql_format", "QUOTE": "mysql_quote",
    "JSON_MERGE": "json_merge_preserve", "JSON_PRETTY": "json_detailed",
    "LENGTHB": "octet_length", "BENCHMARK": "mysql_benchmark",
}
# the words of an expression with effects (a session's or the server's state, the time it
# takes), which BENCHMARK would evaluate count times and mysql_benchmark evaluates once
BENCHMARK_EFFECTS = frozenset({"RAND", "UUID", "UUID_SHORT", "SYS_GUID", "SLEEP", "GET_LOCK", "RELEASE_LOCK",
                               "RELEASE_ALL_LOCKS", "LAST_INSERT_ID", "BENCHMARK", "NEXTVAL", "SETVAL"})
_VARIANCE_CALLS = frozenset({"STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP"})
# COERCIBILITY() of a call to one of these: a system constant's (3)
_SYSCONST_CALLS = frozenset({"USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "VERSION",
                             "CURRENT_ROLE"})
# the operators MariaDB refuses a UUID, INET6 or INET4 operand of (4078, 4079)
_ARITHMETIC_OPS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "~", "<<", ">>"})
_COMPARISON_OPS = frozenset({"=", "<", ">", "<=", ">=", "<>", "!=", "<=>"})
CAST_TYPES = {"SIGNED": "INTEGER", "UNSIGNED": "INTEGER", "CHAR": "TEXT", "DECIMAL": "REAL",
              "DATETIME": "TEXT", "DATE": "TEXT", "TIME": "TEXT", "BINARY": "BLOB", "DOUBLE": "REAL",
              "FLOAT": "REAL", "INTEGER": "INTEGER", "INT": "INTEGER", "NCHAR": "TEXT",
              "UUID": "TEXT", "INET6": "TEXT", "INET4": "TEXT"}
# the JSON functions whose document SQLite writes without MariaDB's ", " and ": " separators
_JSON_MADE = ("JSON_OBJECT", "JSON_ARRAY", "JSON_REMOVE")
# the JSON functions that put values into a document at paths (functions.json_edit)
_JSON_EDITS = ("JSON_ARRAY_APPEND", "JSON_ARRAY_INSERT", "JSON_SET", "JSON_INSERT", "JSON_REPLACE")
# the JSON functions whose count of arguments is checked here (the fewest, the most: None for
# any), past which MariaDB answers 1582
_JSON_ARGUMENTS = {
    "JSON_CONTAINS_PATH": (3, None), "JSON_SEARCH": (3, None), "JSON_OVERLAPS": (2, 2), "JSON_EQUALS": (2, 2),
    "JSON_NORMALIZE": (1, 1), "JSON_PRETTY": (1, 2), "JSON_DETAILED": (1, 2), "JSON_LOOSE": (1, 1),
    "JSON_EXISTS": (2, 2), "JSON_QUERY": (2, 2), "JSON_VALUE": (2, 2), "JSON_MERGE": (2, None),
    "JSON_MERGE_PRESERVE": (2, None), "JSON_MERGE_PATCH": (2, None),
}
INTERVAL_UNITS = {"MICROSECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"}
WORD_RENAME = {"DIV": "/", "MOD": "%", "RLIKE": "REGEXP", "SEPARATOR": ","}  # GROUP_CONCAT(x SEPARATOR ',')
# the character columns whose date arithmetic is MariaDB's CHAR with six fraction digits
_TEXT_COLUMNS = frozenset({"char", "varchar", "tinytext", "text", "mediumtext", "longtext"})
NOW_WORDS = {"NOW", "CURRENT_TIMESTAMP", "LOCALTIME", "LOCALTIMESTAMP", "SYSDATE"}
NILADIC = {  # usable without parentheses
    "CURRENT_TIMESTAMP": NOW, "LOCALTIME": NOW, "LOCALTIMESTAMP": NOW,
    "CURRENT_DATE": CURDATE, "CURRENT_TIME": CURTIME, "UTC_TIMESTAMP": NOW, "UTC_DATE": CURDATE,
    "UTC_TIME": CURTIME, "CURRENT_USER": CURRENT_USER, "CURRENT_ROLE": ("const", None),  # no role is ever set here
}
CALLS = {  # name() -> per-execution argument
    "NOW": NOW, "SYSDATE": NOW, "CURRENT_TIMESTAMP": NOW, "LOCALTIME": NOW, "LOCALTIMESTAMP": NOW,
    "CURDATE": CURDATE, "CURRENT_DATE": CURDATE, "CURTIME": CURTIME, "CURRENT_TIME": CURTIME,
    "UNIX_TIMESTAMP": UNIX_NOW, "LAST_INSERT_ID": LAST_ID, "DATABASE": DATABASE, "SCHEMA": DATABASE,
    "CONNECTION_ID": CONN_ID, "UTC_TIMESTAMP": NOW, "UTC_DATE": CURDATE, "UTC_TIME": CURTIME,
    "FOUND_ROWS": FOUND, "ROW_COUNT": ROW_COUNT, "USER": USER, "SESSION_USER": USER, "SYSTEM_USER": USER,
    "CURRENT_USER": CURRENT_USER, "VERSION": ("sysvar", "@@version"),
}

# `Translator.like_operand`: the token before LIKE's column, its table, the column, the column as
# emitted, and whether NOT came between
_LikeOperand = tuple[Token, Table, Column, list[str], bool]
_COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=", "<=>")
# what ends the left operand of a comparison, going back from it (`emit_quantified`)
_QUANTIFIED_BOUNDARY = frozenset({"AND", "OR", "NOT", "XOR", "WHERE", "ON", "HAVING", "SELECT", "WHEN", "THEN",
                                  "ELSE", "SET", "DISTINCT", "IS", "IN", "BETWEEN", "EXISTS", "CASE"})
# words that, beside a name, make it part of an expression rather than a whole operand
_NOT_BOUNDARY = frozenset({"COLLATE", "IS", "LIKE", "IN", "BETWEEN", "REGEXP", "RLIKE", "DIV", "MOD", "ESCAPE",
                           "INTERVAL", "BINARY"})
# words after which a statement is not over (`ends_statement`)
_STATEMENT_GOES_ON = (*_QUANTIFIED_BOUNDARY, *_NOT_BOUNDARY, "FROM", "BY", "AS", "JOIN", "VALUES", "LIMIT",
                      "OFFSET", "INTO", "AND", "OR", "XOR")
# words that begin no plain operand a division's divisor could be
_NOT_OPERANDS = frozenset({"CASE", "INTERVAL", "NOT", "EXISTS", "SELECT", "BINARY", "_BINARY", "NULL", "TRUE", "FALSE"})
# words that end a WHERE / ON / HAVING conjunct
_CONJUNCT_END = ("AND", "OR", "ORDER", "GROUP", "LIMIT", "HAVING", "UNION", "WINDOW", "FOR", "LOCK", "INTO",
                 "EXCEPT", "INTERSECT")

FSP_NAMES = {  # the calls that take a fractional-seconds precision, by the name 1426 gives them
    "NOW": "current_timestamp", "CURRENT_TIMESTAMP": "current_timestamp", "LOCALTIME": "current_timestamp",
    "LOCALTIMESTAMP": "current_timestamp", "SYSDATE": "sysdate", "UTC_TIMESTAMP": "utc_timestamp",
    "CURTIME": "curtime", "CURRENT_TIME": "curtime", "UTC_TIME": "utc_time",
}


def _read_beside(col: Column | None) -> str | None:
    """How a string compared with `col` is read: as the column's bytes when it is binary, else
    as characters converted to its character set (a number or a date: its characters); None
    without a column."""
    if col is None:
        return None
    return BYTES if col.base in BLOB_TYPES else TEXT


def _matched_by(operand: _LikeOperand | None) -> str | None:
    """How a LIKE pattern is read when `operand` (`Translator.like_operand`) is what it matches:
    TEXT against a column of characters; None otherwise."""
    if operand is None or operand[2].base not in CHAR_TYPES:
        return None
    return TEXT


def _checked(part: str, reads_numbers: bool = False) -> str:
    """A part of an assignment's value computed once more (UPDATE's changed-rows test, a later
    assignment reading it): its store checks the value without counting a row or warning; a
    string it reads as a number warns again only with `reads_numbers` (`_quiet`)."""
    part = part.replace("mysql_store((", "mysql_store_check((").replace("mysql_store_row((", "mysql_store_check((")
    return part if reads_numbers else _quiet(part)


def _quiet(part: str) -> str:
    """A part of the SQL whose strings read as numbers (`NUMBER_TEXT_CALL`) neither warn nor fail: its
    value computed where another copy of it does."""
    return part.replace(NUMBER_TEXT_CALL, NUMBER_TEXT_CALL_QUIET)


def is_introducer(t: Token) -> bool:
    """A string literal's character set introducer (`_utf8mb4'x'`, `N'x'`), dropped: every
    string here is utf8mb4 (`_binary` aside, which makes bytes), a `_latin1` or `_cp1251` one's
    value read in its character set (`Plan.introduced`, engine.charset_literals)."""
    return t.kind == "word" and (t.upper == "N" or t.upper.startswith("_") and t.upper[1:].lower() in _INTRODUCERS)


# the character sets whose introducer `is_introducer` drops: utf8 and each one a connection speaks
_INTRODUCERS = frozenset({"utf8", *CHARSETS}) - {"binary"}


@dataclass
class Plan:
    kind: str  # "select" | "write"
    sql: str
    args: list[Any]  # per `?`: int (literal index) or a source (NOW, ('const', v), ('var', n) ...)
    identity: bool = False  # args == the literals, in order (the hot path)
    target: Any = None  # (schema, table) written, for kind == "write"
    auto_slots: Any = None  # list[int | None] | None:  # per VALUES row: arg index of the AUTO_INCREMENT value
    auto_select_slot: int | None = None  # INSERT ... SELECT: arg index of the first id to number from
    # INSERT ... SELECT whose rows give the AUTO_INCREMENT column: its index in `insert_columns`
    # (the rows run one at a time, `Engine._w_rows_apart`: 0 / NULL take the next id)
    auto_selected_at: int | None = None
    auto_dirty: bool = False  # ids may have been set outside auto_slots (INSERT ... SELECT, UPDATE)
    insert_columns: list[str] = field(default_factory=list)
    uses_last_id: bool = False
    sets_last_id: bool = False  # LAST_INSERT_ID(expr)
    upsert: bool = False  # ON DUPLICATE KEY UPDATE: affected rows counted MySQL's way
    uses_rand: bool = False
    uses_fraction: bool = False  # reads the statement's time's microseconds (NOW_US)
    into_vars: tuple[str, ...] = ()  # SELECT ... INTO @a, ...: the variables its one row sets
    names: list[Any] | None = None  # select-list column names needing the statement's literals
    nrows: int = 0  # INSERT ... VALUES: number of rows
    user_vars: tuple[str, ...] = ()  # @variables the statement reads (binlogged as USER_VAR events)
    locking: bool = False  # a locking read: inside a transaction it takes the writer lock
    # a locking read's wait for it: None (lock_wait_timeout), ("nowait", None): 1205 at once when
    # another transaction holds it, ("wait", n): at most the n-th literal's seconds
    lock_wait: tuple[str, int | None] | None = None
    changed: Plan | None = None  # UPDATE counting changed rows (MySQL's default) instead of matched
    found: Plan | None = None  # UPDATE counting matched rows (CLIENT_FOUND_ROWS), as `changed` counts
    # an UPDATE (`changed`, `found`) that counts the rows it matched and changed (`mysql_matched`)
    counts_rows: bool = False
    # an UPDATE writing every row it matches, changed or not, for the table's UPDATE triggers
    # fire for each (MariaDB's); its changed rows those `mysql_matched` counted
    writes_unchanged: bool = False
    # a single-table UPDATE whose SET stores literals (`STORE`) converted before any row is read:
    # where that conversion refuses one or warns (or notes), the session runs the statement's plan
    # made with `results.PER_ROW` instead, which stores them per row updated as MariaDB does (no
    # error or warning where no row matches, a warning per row updated)
    literals_up_front: bool = False
    cacheable: bool = True  # False when literals were inlined (ORDER BY 2)
    # the 0x.. and bit literals (`lexer.Hybrid`): (literal index, read as a number here); the
    # session binds each as its number, or as its bytes (`values.hybrid_params`)
    hybrids: tuple[tuple[int, bool], ...] = ()
    # (literal index, holds a number) for each literal whose kind the SQL depends on (a string
    # compared with a number is compared as numbers: `exact.Finder.convert_operands`); another
    # execution of the shape whose literals differ in kind has its own plan (`Engine.plan_for`)
    literal_kinds: tuple[tuple[int, bool | str], ...] = ()
    # how each string literal is read where a string of a character set other than utf8mb4 (a
    # latin1 or cp1251 connection's, `_latin1 X'..'`) reads otherwise than its UTF-8 would: literal index ->
    # TEXT, BYTES, ITEM or MIXED (`Translator.literal_context`); engine.charset_literals refuses
    # such a string anywhere it has none
    charset_contexts: dict[int, str] = field(default_factory=dict)
    # (literal index, its introducer upper-cased: "_LATIN1", "_BINARY", "N", ...) for each
    # literal written after one
    introduced: tuple[tuple[int, str], ...] = ()
    sysvars: bool = False  # reads @@variables: a write is binlogged with their values inlined
    calc_found: bool = False  # SQL_CALC_FOUND_ROWS: FOUND_ROWS() counts the rows without LIMIT
    result_types: SelectTypes | UnionTypes | None = None  # SELECT: the MySQL type of each result column
    # INSERT/REPLACE/DELETE ... RETURNING: `SELECT <list> FROM <target> LIMIT 0`, whose names and
    # result_types describe the returned rows; its args are the tail of the write's
    returning: Plan | None = None
    # UPDATE ... ORDER BY: the SELECT of the rowids it updates, in the ORDER BY's order, whose
    # arguments are the last `order_args` of the write's; `sql` then updates one row, its rowid
    # bound after the other arguments (`Engine._w_rows_in_order`)
    row_order: str | None = None
    order_args: int = 0
    # UPDATE IGNORE ... LIMIT n (no ORDER BY) of a table with CHECKs: the SELECT's last argument is
    # n, bound as -1 (all the rows), n counting the rows taken (a row a CHECK refuses is none, as
    # MariaDB's scan counts them)
    row_limit: bool = False
    # DELETE ... ORDER BY ... LIMIT ... RETURNING: the rowids in the ORDER BY's order (the write's
    # args but RETURNING's), the order MariaDB returns the rows in; each row then ends with its rowid
    returning_order: str | None = None
    # INSERT / REPLACE into a table with an AUTO_INCREMENT column: the OK packet's id and
    # LAST_INSERT_ID() follow MySQL's rule (`Engine._w_insert_ids`). `ids_returned`: rows may be
    # skipped or updated (IGNORE, ON DUPLICATE KEY UPDATE), so the statement returns each row it
    # wrote, inserted or updated, with its id (RETURNING's last column, not the client's)
    auto_insert: bool = False
    ids_returned: bool = False
    # INSERT IGNORE: run a row at a time, each row left out a warning (`Engine._w_rows_apart`)
    ignore: bool = False
    selects: bool = False  # INSERT / REPLACE ... SELECT (its info counts the rows it read)
    # INSERT IGNORE's NULLs for NOT NULL columns, stored as the implicit default: (row, column),
    # each a warning 1048
    nulls_stored: tuple[tuple[int, str], ...] = ()
    # LAX_VALUES: the NOT NULL columns without a default an INSERT leaves out, stored as their
    # implicit default, each a warning 1364
    defaults_taken: tuple[str, ...] = ()
    # IGNORE or LAX_VALUES: the values given to generated columns, left out, each (row, column,
    # table) a warning 1906 (strict mode's error)
    generated_ignored: tuple[tuple[int, str, str], ...] = ()
    # a write MariaDB calls unsafe to binlog as a statement: its notes' messages (`engine.unsafe`)
    unsafe: tuple[str, ...] = ()
    # the event loop may run it itself (Engine.plan_for, `engine.core`'s "Threads"): a write
    # SQLite runs in bounded time, or a read without side effects
    inline: bool = False
    # a multi-table UPDATE / DELETE: `sql` is the snapshot of its join, the targets written from
    # it by the writer (`engine.multiwrite`)
    multi: MultiWrite | None = None
    # an UPDATE MariaDB says its info of before it binlogs it (a multi-table one, or one whose
    # subquery reads its target): the info's "Warnings" counts no note 1592
    notes_after_info: bool = False
    # the tables (lower names) of the target's database the statement names that its triggers
    # write: such a write, when a trigger fires, is MariaDB's 1442 (`engine.triggers`)
    trigger_reads: frozenset[str] = frozenset()
    trigger_writes: frozenset[tuple[str, str]] = frozenset()  # (schema, lower name) its triggers may write
    # `Session._args`' steps for `args` (`session._arg_steps`), made at the plan's first run (its
    # args are final by then); None before it
    arg_steps: tuple | None = field(default=None, compare=False, repr=False)

    @property
    def replaces(self) -> bool:
        """A REPLACE (run a row at a time: `Engine._w_replace`)."""
        return self.sql.startswith("REPLACE INTO")


# what may follow a bare name that is a whole ORDER BY item
_SET_OPERATORS = ("UNION", "EXCEPT", "INTERSECT")
# words before a '(' whose brackets may hold a query alone (a subquery, a derived table, a CTE)
_QUERY_OPENERS = ("IN", "EXISTS", "FROM", "JOIN", "ANY", "SOME", "ALL", "AS", "SELECT", "WHERE", "AND", "OR",
                  "NOT", "ON", "HAVING", "WHEN", "THEN", "ELSE", "DISTINCT", "UNION", "EXCEPT", "INTERSECT", "XOR",
                  "LATERAL", "BY", "IS", "LIKE", "SET", "WITH")
_ORDER_ITEM_END = ("ASC", "DESC", "LIMIT", "OFFSET", "FOR", "LOCK", "INTO", "WINDOW", "UNION", "EXCEPT", "INTERSECT")


# MariaDB's forms that read as calls and are not built here: 1235 naming them (not a 1064 at the
# next word, nor a wrong answer)
_NOT_BUILT_CALLS = {"MATCH": "MATCH ... AGAINST (full-text search)", "JSON_TABLE": "JSON_TABLE"}

class Translator:
    """One shape's translation. `catalog(schema, table)` -> Table | None."""

    def __init__(self, tokens: list[Token], shape: str, database: str | None, catalog,
                 schemas: set[str], params: list[object], catalog_tables=lambda schema: [],
                 listed_schemas: set[str] | None = None, column_tables=None,
                 live_rows: Callable[[str], list[tuple]] | None = None):
        self.tokens = tokens
        self.live_rows = live_rows  # information_schema's server views' rows for the asking session
        # the tables whose columns information_schema.COLUMNS lists (default: every table)
        self.column_tables = catalog_tables if column_tables is None else column_tables
        # the schemas information_schema lists (all, unless a privilege check narrows them)
        self.listed_schemas = schemas if listed_schemas is None else listed_schemas
        self.params = params
        self.catalog_tables = catalog_tables
        self.cacheable = True
        self.locking = False  # SELECT ... FOR UPDATE / LOCK IN SHARE MODE
        self.lock_wait: tuple[str, int | None] | None = None  # its NOWAIT / WAIT n (`Plan.lock_wait`)
        self.sets_last_id = False
        self.upsert = False
        self._ci_literals: bool | None = None  # (`compared_off_column`)
        self._select_aliases: set[str] | None = None  # (`member_order`)
        self._in_json = False  # emitting the arguments of a call `_JSON_MADE` names (`emit_call`)
        self.ignore = False  # INSERT / UPDATE IGNORE
        # how the session's sql_mode has a write store what strict mode refuses (`engine.results.write_mode`)
        self.write_mode = 0
        self.lenient = False  # IGNORE or LAX_VALUES: a value strict mode refuses is stored adjusted
        self.nulls_stored: list[tuple[int, str]] = []  # `Plan.nulls_stored`
        self.generated_ignored: list[tuple[int, str, str]] = []  # `Plan.generated_ignored`
        # a write (not IGNORE): a division by zero fails it (strict mode's ERROR_FOR_DIVISION_BY_ZERO)
        self.strict_division = False
        # a strict INSERT / UPDATE: a string read as a number that is none fails it (NUMBER_TEXT_CALL)
        self.strict_values = False
        self.assigned: list[tuple[str, int, int, int, int]] = []  # SET col: out/args spans of its value
        self.shape = shape
        self.database = database
        self.catalog = catalog
        self.schemas = schemas
        self.out: list[str] = []
        self.args: list[object] = []
        self.uses_last_id = False
        self.uses_rand = False
        self.uses_fraction = False  # reads NOW_US
        # emitting ON DUPLICATE KEY UPDATE's assignments, or an UPDATE's planned with PER_ROW: a
        # literal is stored (and refused, 1406 ...) per row updated, none where no row matches
        # (MariaDB's), into a column whose expressions are stored checked (`values.checked_store`)
        self.stored_per_row = False
        self.into_vars: tuple[str, ...] = ()  # SELECT ... INTO @a, ... (`take_into`)
        self.calc_found = False  # SQL_CALC_FOUND_ROWS
        self.unit_at = -1  # token index of a TIMESTAMPDIFF/TIMESTAMPADD unit
        self.auto_dirty = False
        self._finder: Finder | None = None
        self._ctes: set[str] | None = None
        self.substitute: dict[int, tuple[int, int]] = {}  # SET's references to columns set before
        # a HAVING's names of select-list aliases: token index -> the aliased expression's tokens
        self.alias_at: dict[int, tuple[int, int]] = {}
        # text emitted at a token index (`having_as_where`): (text, whether it stands for the token)
        self.spliced: dict[int, tuple[str, bool]] = {}
        self.exact: dict[int, tuple[int, tuple]] = {}  # regions computed exactly (engine.exact): start -> (end, tree)
        self.merged: set[int] = set()  # a UNION's bare column items rewritten (`set_columns`): their first tokens' ids
        self.reads_infoschema = False  # an information_schema view inlined: its columns are declared upper-case
        # the tables and views a FROM or JOIN names (`emit_table_ref`), and how many of them a
        # multi-table write's targets are: the tables MariaDB reads, for `unsafe_notes`
        self.tables_read = 0
        self.joined_targets = 0
        self.tables_named: set[tuple[str, str]] = set()  # those tables, (schema, lower name)
        self.bracket_wrappers: set[int] = set()  # ids of the SELECTs `query_forms` wrapped a member in
        self.kinds: dict[int, bool | str] = {}  # literals whose kind the translation read (`Plan.literal_kinds`)
        # literals whose binary-ness the translation read (`exact.string_kind`), kept apart from
        # `kinds`, where a kind other than False reads as a number
        self.string_kinds: dict[int, bool | str] = {}
        self.charset_contexts: dict[int, str] = {}  # `Plan.charset_contexts`
        self.introduced: dict[int, str] = {}  # `Plan.introduced`
        self._openers: list[int] | None = None  # (`opener`)
        self._lists: dict[int, str | None] = {}  # an IN list's or a call's '(' -> how it reads a literal
        self._named: list[tuple[str, Table]] | None = None  # (`named_column`)
        self.fixedbin_literals: dict[int, str] = {}  # string literals compared with a UUID / INET column
        self._select_list_end: int | None = None  # (`item_context`)
        self.view_of: Callable[[str, str], Any] = lambda schema, name: None  # -> catalog.View | None
        self.views_in: Callable[[str], list] = lambda schema: []  # a schema's views (information_schema)
        self.triggers_in: Callable[[str], list] = lambda schema: []  # its triggers, ordered (the same)
        self.routines_in: Callable[[str], list] = lambda schema: []  # its stored procedures and functions
        self.options_of: Callable[[str], DatabaseOptions] = lambda schema: DatabaseOptions()  # (SCHEMATA)
        self.expanding: tuple[tuple[str, str], ...] = ()  # the views being expanded (a cycle is 1462)
        self.returning_at: int | None = None  # token index of a write's RETURNING
        self.full_tokens: list[Token] = tokens  # with RETURNING read as SELECT
        self.target_alias: str | None = None  # DELETE FROM t AS alias
        # @x := expr: the token index of each assignment's variable, by lower-case name (`plan`)
        self.assigned_vars: dict[str, list[int]] = {}
        self.hybrids: dict[int, bool] | None = None  # `Plan.hybrids` (`read_hybrids`)
        self.raw_params = params  # the statement's literals, hybrids as written (`read_hybrids`)
        # (schema, name) -> the stored name of the session's temporary table `name` (None: it has
        # none), which a name read at a table's place stands for (`engine.temporary`)
        self.temporary: Callable[[str, str], str | None] = lambda schema, name: None
        self.written_names: dict[str, str] = {}  # a temporary table's stored name -> the name written

    # --- helpers ---------------------------------------------------------------------------

    def error_at(self, i: int) -> SQLError:
        if i < len(self.tokens) - 1 and self.ends_statement(i):
            i += 1  # a second statement without CLIENT_MULTI_STATEMENTS: mysqld is near its text
        if i >= len(self.tokens):
            return syntax_error("")
        return syntax_error(self.shape[self.tokens[i].start:])

    def ends_statement(self, i: int) -> bool:
        """Is token `i` a ';' that mysqld's grammar reads as the end of a whole statement (outside
        parentheses, after something that can end one)?"""
        tokens = self.tokens
        if not (tokens[i].kind == "op" and tokens[i].text == ";") or i == 0:
            return False
        depth = sum(1 if t.text == "(" else -1 for t in tokens[:i] if t.kind == "op" and t.text in "()")
        before = tokens[i - 1]
        if before.kind == "op":
            return depth == 0 and before.text == ")"
        return depth == 0 and not before.is_word(*_STATEMENT_GOES_ON)

    def add_arg(self, source: object) -> None:
        self.out.append("?")
        self.args.append(source)

    def add_now(self, col: Column, on_update: bool = False) -> None:
        """The statement's time as `col` stores it for its DEFAULT (or ON UPDATE)
        CURRENT_TIMESTAMP: a DATE its date, a TIME its time of day, with the column's
        fractional digits (`Column.now_digits` of them the time's, the rest zeros)."""
        source = CURDATE if col.base == "date" else CURTIME if col.base == "time" else NOW
        width = col.fsp
        if not width:
            self.add_arg(source)
            return
        self.out.append("mysql_now_stored(")
        self.add_arg(source)
        self.out.append(",")
        self.add_arg(NOW_US)
        self.out.append(f", {col.now_digits(on_update)}, {width})")
        self.uses_fraction = True

    def qualify(self, schema: str | None, table: str) -> tuple[str, str]:
        if schema is None:
            if self.database is None:
                raise SQLError(ER_NO_DB_ERROR)
            schema = self.database
        return schema, table

    def table_sql(self, schema: str, table: str) -> str:
        return f"{quote_ident(schema)}.{quote_ident(table)}"

    def tables_of(self, schema: str) -> list[Table]:
        return self.catalog_tables(schema)

    def need_table(self, schema: str, table: str) -> Table:
        t = self.catalog(schema, table)
        if t is None:
            if self.view_of(schema, table) is not None:  # a write's target: views are read-only here
                verb = self.tokens[0].upper
                if verb in ("INSERT", "REPLACE"):
                    raise SQLError(ER_NON_INSERTABLE_TABLE, table, verb)
                raise SQLError(ER_NON_UPDATABLE_TABLE, table, verb)
            if schema not in self.schemas and schema.lower() in (infoschema.MYSQL, perfschema.NAME) and \
                    self.table_named(schema, table) is not None:  # answered to SELECT, never written
                raise SQLError(ER_NOT_SUPPORTED_YET, f"changing the tables of the {schema} database")
            raise SQLError(ER_NO_SUCH_TABLE, schema, table)
        return t

    def read_table_name(self, i: int) -> tuple[int, str, str]:
        """tokens[i] starts `name` or `db.name`: -> (next index, schema, table)."""
        toks = self.tokens
        first = toks[i]
        if first.kind not in ("word", "ident"):
            raise self.error_at(i)
        if i + 2 < len(toks) and toks[i + 1].text == "." and toks[i + 1].kind == "op" \
                and toks[i + 2].kind in ("word", "ident"):
            return i + 3, first.text, self.stored(first.text, toks[i + 2].text)
        schema, table = self.qualify(None, first.text)
        return i + 1, schema, self.stored(schema, table)

    def temporary_alias(self, name: str, start: int) -> str | None:
        """The name the statement wrote for its target, the temporary table stored as `name`,
        where its tokens from `start` name a column with it (`name.column`: SQLite knows the
        table by its stored name, so the target is aliased as written); None otherwise (a plan
        without the alias keeps the forms other paths read, `core._INLINE_ROW_WRITE` ...)."""
        written = self.written_names.get(name.lower())
        toks = self.tokens
        if written is None or not any(t.text.lower() == written.lower() and n + 1 < len(toks) and toks[n + 1].text == "."
                                      for n, t in enumerate(toks[start:], start)):
            return None
        return written

    def stored(self, schema: str, name: str) -> str:
        """`name` as stored: the session's temporary table's name where it has one."""
        found = self.temporary(schema, name)
        if found is None:
            return name
        self.written_names[found.lower()] = name
        return found


    def sub_translator(self, text: str, database: str | None,
                       expanding: tuple[tuple[str, str], ...]) -> tuple[Translator, list[object]]:
        """A Translator of its own for the SELECT `text` in `database` (over the same catalog,
        views and live rows; `expanding`: the views it is inside of), its joined stars expanded,
        and `text`'s literals (a hybrid as the translation reads it: `read_hybrids`)."""
        shape, literals = extract(text)
        sub = Translator(tokenize(shape), shape, database, self.catalog, self.schemas, literals,
                         self.catalog_tables, self.listed_schemas, self.column_tables, self.live_rows)
        sub.view_of, sub.views_in, sub.options_of = self.view_of, self.views_in, self.options_of
        sub.triggers_in = self.triggers_in
        sub.routines_in = self.routines_in
        sub.temporary = self.temporary
        sub.expanding = expanding
        sub.read_hybrids()
        sub.query_forms()
        sub.expand_joined_stars()
        return sub, sub.params

    def translated(self, text: str, database: str | None, expanding: tuple[tuple[str, str], ...] = ()) -> Plan:
        """The plan of the SELECT `text` translated by a Translator of its own in `database` (a
        view's SELECT, a WITH ROLLUP statement made again), its arguments from its literals
        written in as constants: a literal, a _binary one, one stored as a column would hold it
        (the literals are `text`'s, not the statement's the arguments are read with)."""
        sub, literals = self.sub_translator(text, database, expanding)
        plan = sub.plan_select()
        args: list[Any] = []
        texts = literal_texts(text)
        for source in plan.args:
            if type(source) is int:
                args.append(("const", literals[source]))
            elif type(source) is tuple and source[0] == "bytes":
                args.append(("const", values.binary_literal(literals[source[1]])))
            elif type(source) is tuple and source[0] == STORE:
                args.append(("const", values.stored_literal(source, literals, texts)))
            elif type(source) is tuple and source[0] == TYPED:
                args.append(("const", values.typed_literal(source[2], literals[source[1]])))
            elif type(source) is tuple and source[0] == FIXEDBIN:
                args.append(("const", fixedbin.bound(source[2], literals[source[1]], None)))
            else:
                args.append(source)
        plan.args = args
        return plan

    def view_sql(self, view) -> str:
        """A view named in a FROM list: its SELECT translated in its own database, in parentheses,
        its literals carried as constant arguments in order (the plan is keyed on the catalog
        version, so a changed view makes a new plan)."""
        key = (view.schema, view.name.lower())
        if key in self.expanding:
            raise SQLError(ER_VIEW_RECURSIVE, view.schema, view.name)
        plan = self.translated(view.select, view.schema, (*self.expanding, key))
        self.args.extend(plan.args)
        self.uses_rand |= plan.uses_rand
        self.uses_fraction |= plan.uses_fraction
        self.uses_last_id |= plan.uses_last_id
        if view.columns:
            names = ", ".join(quote_ident(c) for c in view.columns)
            return f"(WITH __view({names}) AS ({plan.sql}) SELECT * FROM __view)"
        return f"({plan.sql})"

    # --- the generic token rewriter ----------------------------------------------------------

    def emit_range(self, i: int, end: int, *, stop_words: frozenset[str] = frozenset()) -> int:
        """Rewrite tokens[i:end] (stop early at a depth-0 word in stop_words); returns the index
        reached. Tracks FROM/JOIN table lists per parenthesis depth to qualify table names."""
        toks = self.tokens
        out = self.out
        states: list[list[bool]] = []  # per open paren: saved [in_tables, expect_table]
        in_tables = False
        expect_table = False
        in_order = False  # in an ORDER BY / GROUP BY list (where a number is a column position)
        order_depth = -1  # the parenthesis depth of the ORDER BY list being emitted (-1: none)
        while i < end:
            if i in self.spliced:
                text, replaces = self.spliced[i]
                out.append(text)
                if replaces:
                    i += 1
                    continue
            if i in self.exact:
                i = self.emit_exact(*self.exact[i])
                continue
            if i in self.substitute:  # a column an earlier SET assigned: its new value
                stop, entry = self.substitute[i]
                self.emit_assigned(entry)
                i = stop
                continue
            if i in self.alias_at:  # a select alias named in HAVING: its expression
                out.append("(")
                self.emit_range(*self.alias_at[i])
                out.append(")")
                i += 1
                continue
            tok = toks[i]
            kind = tok.kind
            if in_order and kind == "param" and not states and isinstance(self.params[tok.param], int) \
                    and i > 0 and (toks[i - 1].is_word("BY") or toks[i - 1].text == ","):
                out.append(str(self.params[tok.param]))
                self.cacheable = False
                i += 1
                continue
            if not states and kind == "word" and tok.upper in stop_words:
                return i
            if kind == "op":
                text = tok.text
                if text in ("+", "-") and i + 1 < end and toks[i + 1].is_word("INTERVAL"):
                    i = self.emit_interval(i, end, -1 if text == "-" else 1)
                    continue
                if text == "(":
                    if expect_table:
                        expect_table = False
                        in_tables_saved = True
                    else:
                        in_tables_saved = in_tables
                    states.append([in_tables_saved, False])
                    in_tables = False
                    out.append("(")
                elif text == ")":
                    if not states:
                        return i
                    in_tables, expect_table = states.pop()
                    if len(states) < order_depth:  # (the ORDER BY list was inside what this closes)
                        order_depth = -1
                    out.append(")")
                elif text == ",":
                    out.append(",")
                    if in_tables:
                        expect_table = True
                elif text == "||":
                    out.append("OR")
                elif text == "&&":
                    out.append("AND")
                elif text == "!":
                    out.append("NOT")
                elif text == "<=>":
                    out.append("IS")
                elif text in ("/", "%") and self.strict_division and (stop := self.operand_end(i + 1, end)):
                    out.append("* 1.0 / mysql_nonzero(" if text == "/" else "% mysql_nonzero(")
                    self.emit_range(i + 1, stop)
                    out.append(")")
                    i = stop
                    continue
                elif text == "/":
                    out.append("* 1.0 /")
                elif text in ("->", "->>"):  # MySQL's JSON operators, which MariaDB has not: its 1064 at '>'
                    raise syntax_error(self.shape[tok.start + 1:])
                elif text in (":=", "{", "}", ";"):
                    raise self.error_at(i)
                else:
                    out.append(text)
                i += 1
                continue
            if kind == "param":
                context = self.literal_context(i)
                if not self.exact_item(i, context):
                    compared = self.fixedbin_literals.get(tok.param)
                    if compared is not None and self.tokens[0].is_word("INSERT", "UPDATE", "DELETE", "REPLACE"):
                        # a write's: read where a row is compared, as MariaDB converts it (`mysql_fixedbin_bound`)
                        out.append("mysql_fixedbin_bound(")
                        self.add_arg(tok.param)
                        out.append(f", '{compared}', {int(self.strict_values)})")
                    elif compared is None and self.read_as_double(i):
                        self.number_text(tok.param, "DOUBLE")
                    else:
                        self.add_arg(tok.param if compared is None else (FIXEDBIN, tok.param, compared))
                self.read_as(tok.param, context)
                if self.compared_off_column(i):
                    out.append("COLLATE " + GENERAL_CI)
                i += 1
                continue
            if kind == "var" and self.assigned_vars:
                i = self.emit_user_var(i, end)
                continue
            if kind == "var":
                self.add_arg(("var", tok.text))
                i += 1
                continue
            if kind == "sysvar":  # read by the engine session when the statement runs
                self.add_arg(("sysvar", tok.text))
                i += 1
                continue
            if kind in ("ident", "word") and len(states) == order_depth and not expect_table \
                    and (toks[i - 1].is_word("BY") or toks[i - 1].text == ",") \
                    and (key := self.member_order(i, end)) is not None:
                i = self.emit_member_order(i, *key)
                continue
            if kind == "ident":
                if expect_table:
                    i = self.emit_table_ref(i)
                    expect_table = False
                    continue
                out.append(quote_ident(tok.text))
                i += 1
                continue
            # a bare word
            word = tok.upper
            if i == self.unit_at:
                self.add_arg(("const", word))
                i += 1
                continue
            nxt = toks[i + 1] if i + 1 < end else None
            is_call = nxt is not None and nxt.kind == "op" and nxt.text == "("
            if is_call and word in ("DIV", "MOD") and i > 0 and _ends_operand(toks[i - 1]):
                is_call = False  # x DIV (y), x MOD (y): the operators (MOD(x, y) is the function)
            if word in ("OFFSET", "FETCH") and (past := self.emit_fetch(i, end)) is not None:
                i = past
                continue
            if word in ("LIMIT", "OFFSET"):  # a negative count is MySQL's syntax error (SQLite's: no limit)
                for k in (i + 1, i + 3):
                    if k < end and toks[k].kind == "op" and toks[k].text == "-" \
                            and (k == i + 1 or toks[k - 1].text == ","):
                        raise self.error_at(k)
            if word in ("ANY", "SOME", "ALL") and is_call and i > 0 and toks[i - 1].kind == "op" \
                    and toks[i - 1].text in _COMPARISONS and toks[i - 1].text != "<=>" \
                    and i + 2 < end and toks[i + 2].is_word("SELECT"):
                i = self.emit_quantified(i, word != "ALL")
                continue
            if expect_table and not is_call and word not in ("SELECT", "LATERAL"):
                i = self.emit_table_ref(i)
                expect_table = False
                continue
            if word == "FROM":
                if nxt is not None and nxt.is_word("DUAL"):
                    i += 2
                    continue
                out.append("FROM")
                in_tables = expect_table = True
                i += 1
                continue
            if word in JOIN_WORDS:
                if word == "STRAIGHT_JOIN" and i > 0 and toks[i - 1].is_word(*_SELECT_MODIFIERS):
                    i += 1  # SELECT STRAIGHT_JOIN ...: the join order as written, SQLite's own choice here
                    continue
                out.append("JOIN")
                in_tables = expect_table = True
                i += 1
                continue
            if word in CLAUSE_WORDS and word != "ON":
                in_tables = False
            if word in CLAUSE_WORDS or word in ("ORDER", "GROUP", "BY"):
                in_order = word == "BY" and i > 0 and toks[i - 1].is_word("ORDER", "GROUP")
                order_depth = len(states) if in_order and toks[i - 1].is_word("ORDER") else -1
            if word == "FOR" and nxt is not None and nxt.is_word("UPDATE"):
                self.locking = True
                i = self.lock_option(i + 2, end)
                continue
            if word == "LOCK" and nxt is not None and nxt.is_word("IN"):
                self.locking = True
                i = self.lock_option(i + 4, end)  # LOCK IN SHARE MODE
                continue
            if word == "SQL_CALC_FOUND_ROWS":
                self.calc_found = True
            if word in ("SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE", "SQL_CACHE", "HIGH_PRIORITY",
                        "SQL_SMALL_RESULT", "SQL_BIG_RESULT", "SQL_BUFFER_RESULT"):
                i += 1
                continue
            if word in ("_BINARY", "BINARY") and nxt is not None and nxt.kind == "param" and not (
                    word == "BINARY" and self.number_param(nxt.param)):
                self.read_as(nxt.param, BYTES)
                if word == "_BINARY":
                    self.introduced[nxt.param] = word
                pattern = i > 0 and toks[i - 1].is_word("LIKE")
                k = self.past_not(i + 2, end)
                if (pattern or (k < end and toks[k].is_word("LIKE"))) and (
                        word == "BINARY" or self.literal_operand(
                            (i - 3 if i > 1 and toks[i - 2].is_word("NOT") else i - 2) if pattern else k + 1)):
                    # a LIKE operand: matched byte for byte, as MySQL matches a binary string
                    # (the LIKE function does so for a BLOB; SQLite holds the literal as TEXT
                    # when it is UTF-8: `values.binary_value`); a _binary literal only against
                    # a literal (against a column MariaDB matches by the column's collation)
                    out.append("CAST(")
                    self.add_arg(("bytes", nxt.param))
                    out.append("AS BLOB)")
                    if pattern and not (i + 2 < end and toks[i + 2].is_word("ESCAPE")):
                        out.append("ESCAPE '\\'")
                else:
                    self.add_arg(("bytes", nxt.param))
                    if word == "BINARY" and ((i > 0 and toks[i - 1].kind == "op" and toks[i - 1].text in _COMPARISONS)
                                             or (k < end and toks[k].kind == "op" and toks[k].text in _COMPARISONS)):
                        # compared: byte for byte whatever the other operand's collation (a
                        # column's would win over the literal's own in SQLite); a _binary
                        # literal takes the other side's, as MariaDB compares them
                        out.append("COLLATE BINARY")
                i += 2
                continue
            if word in TYPED_LITERALS and nxt is not None and nxt.kind == "param":
                self.add_arg((TYPED, nxt.param, self.typed_kind(i)))
                self.read_as(nxt.param, TEXT)
                i += 2
                continue
            if word == "BINARY" and (found := self.binary_operand(i, end)) is not None:
                start, stop, liked = found
                out.append("CAST((" if liked else "(")
                self.emit_range(start, stop)
                out.append(") AS BLOB)" if liked else ") COLLATE BINARY")
                i = stop
                continue
            if word == "BINARY" and (found := self.binary_end(i + 1, end)) is not None:
                # BINARY x elsewhere: x's bytes, a binary string (ordered, grouped, compared,
                # concatenated byte for byte)
                out.append("CAST((")
                self.emit_range(*found)
                out.append(") AS BLOB)")
                i = found[1]
                continue
            if is_introducer(tok) and nxt is not None and nxt.kind == "param":
                self.introduced[nxt.param] = word
                i += 1
                continue
            if is_call:
                i = self.emit_call(i, word)
                continue
            if word in NILADIC:
                self.add_arg(NILADIC[word])
                i += 1
                continue
            if word in ("DIV", "MOD") and not is_call and self.strict_division \
                    and (stop := self.operand_end(i + 1, end)):
                out.append(WORD_RENAME[word] + " mysql_nonzero(")
                self.emit_range(i + 1, stop)
                out.append(")")
                i = stop
                continue
            if word in WORD_RENAME:
                out.append(WORD_RENAME[word])
                i += 1
                continue
            if word == "UNKNOWN" and i > 0 and (toks[i - 1].is_word("IS") or (  # x IS [NOT] UNKNOWN
                    i > 1 and toks[i - 1].is_word("NOT") and toks[i - 2].is_word("IS"))):
                out.append("NULL")
                i += 1
                continue
            if word == "XOR":
                raise SQLError(ER_NOT_SUPPORTED_YET, "XOR")
            if word == "SOUNDS" and nxt is not None and nxt.is_word("LIKE"):
                # the COLLATE binds to the left operand's last term, whose collation the whole
                # operand takes: SOUNDEX(a) = SOUNDEX(b) (strfuncs.compare_soundex)
                out.append(f"COLLATE {strfuncs.SOUNDEX_COLLATION} =")
                i += 2
                continue
            if word == "COLLATE" and nxt is not None and nxt.kind in ("word", "ident"):
                out.append("COLLATE BINARY" if nxt.text.lower().endswith("_bin") else "COLLATE " + GENERAL_CI)
                i += 2
                continue
            if word == "LIKE":
                # MySQL's LIKE escapes with a backslash by default; SQLite has no default escape.
                operand = self.like_operand(i) if nxt is not None and nxt.kind == "param" else None
                binary = self.like_bin(i, operand)
                if binary is not None:
                    emitted, negated = binary
                    del out[len(out) - negated - len(emitted):]
                    out.append(("NOT " if negated else "") + "mysql_like_bin(")
                    self.add_arg(nxt.param)
                    self.read_as(nxt.param, _matched_by(operand))
                    out.append(f", {' '.join(emitted)}, '\\')")
                    i += 4 if i + 2 < end and toks[i + 2].is_word("COLLATE") else 2
                    continue
                out.append("LIKE")
                if nxt is not None and nxt.kind == "param" and not (
                        i + 2 < end and toks[i + 2].is_word("ESCAPE")):
                    self.add_arg(nxt.param)
                    self.read_as(nxt.param, _matched_by(operand))
                    out.append("ESCAPE '\\'")
                    column = self.like_column(i, operand)
                    if column is not None:
                        self.emit_like_range(column, nxt.param)
                    i += 2
                    continue
                i += 1
                continue
            if word == "INTERVAL":
                raise SQLError(ER_NOT_SUPPORTED_YET, "INTERVAL before its date")
            out.append(tok.text)
            i += 1
        return i

    def read_as_double(self, i: int) -> bool:
        """Whether the literal at tokens[i] is a string (X'..' too) an operator beside it (+ - * /,
        not a date's + INTERVAL) reads as a DOUBLE (its kind recorded: `Plan.literal_kinds`)."""
        toks = self.tokens
        before, after = toks[i - 1] if i else None, toks[i + 1] if i + 1 < len(toks) else None
        if not any(t is not None and t.kind == "op" and t.text in _DOUBLE_OPS for t in (before, after)):
            return False
        if any(t.is_word("INTERVAL") for t in toks[max(i - 4, 0):i + 3]):
            return False
        param = toks[i].param
        return self.kinds.setdefault(param, literal_kind(self.params[param])) is False \
            and type(self.params[param]) in (str, bytes)

    def number_text(self, param: int, read_as: str) -> None:
        """The string literal `param` read as a number of type `read_as` ("DOUBLE", "DECIMAL"),
        converted for each row computed (`NUMBER_TEXT_CALL`)."""
        raw = self.raw_params if self.raw_params is not None else self.params
        kind = self.string_kinds[param] = text_kind(raw[param])  # (X'..' is shown by its bytes)
        if kind == NUMBER_STRING:  # (a number throughout: never warned of, computed as SQLite does)
            self.add_arg(param)
            return
        self.out.append(NUMBER_TEXT_CALL)
        self.add_arg(param)
        self.out.append(f", '{read_as}', {int(self.strict_values)}, {int(kind == BINARY_STRING)})")

    def exact_item(self, i: int, context: str | None) -> bool:
        """Whether the literal at tokens[i] is a select item alone (or negated: `SELECT -1.5`)
        holding a number with more digits than a double holds (`lexer.decode_number`'s Decimal),
        now bound as its exact text (a DECIMAL's, which the result's encoder reads), its `-`
        taken into it. The plan of any literal item is keyed by its kind (`literal_kind`), so
        that a double's plan never binds such a number."""
        toks = self.tokens
        param = toks[i].param
        negated = context is None and i > 1 and toks[i - 1].kind == "op" and toks[i - 1].text == "-" \
            and (toks[i - 2].is_word("SELECT", "DISTINCT") or toks[i - 2].kind == "op" and toks[i - 2].text == ",") \
            and self.item_context(i - 1, i) is not None
        if context != ITEM and not negated:
            return False
        kind = self.kinds[param] = literal_kind(self.params[param])
        if kind != EXACT:
            return False
        if negated:
            if self.out[-1] != "-":
                return False
            self.out.pop()  # the `-`, emitted just before
        self.add_arg((STORE, param, False, values.NUMBER, 1, "", negated, False))
        return True

    # --- hybrid literals: 0x.. and b'..' (`lexer.Hybrid`) -------------------------------------

    def read_hybrids(self) -> None:
        """Each 0x.. or bit literal as this translation reads it: its number where MariaDB reads
        a number (`numeric_place`), else its bytes. `self.params` then holds that value, which the
        rest of the translation types and computes with, and `self.hybrids` which it is (once per
        translation; `raw_params` keeps the statement's own)."""
        if self.hybrids is not None:
            return
        self.raw_params, self.hybrids = self.params, {}
        if not any(type(p) is Hybrid for p in self.params):
            return
        params = list(self.params)
        for i, tok in enumerate(self.tokens):
            value = params[tok.param] if tok.kind == "param" else None
            if type(value) is not Hybrid:
                continue
            numeric = self.numeric_place(i)
            params[tok.param] = value.number if numeric else bytes(value)
            self.hybrids[tok.param] = numeric
        self.params = params
        self._named = self._openers = None  # (read before the statement's tables are final)

    def hybrid_as_number(self, param: int) -> None:
        """The hybrid literal `param`, read as a string so far, is read as its number (a select
        item an INSERT ... SELECT stores into a number column)."""
        self.params[param] = self.raw_params[param].number  # type: ignore[attr-defined]
        self.hybrids[param] = True  # type: ignore[index]

    def numeric_place(self, i: int) -> bool:
        """Whether MariaDB reads the literal at tokens[i] as a number: an operand of arithmetic or
        a bit operator, compared with (BETWEEN, IN) a number, the operand of CAST / CONVERT to a
        number, an argument of a function of numbers (ABS, SUM ...). Elsewhere it is a string
        (its value stored into a column is the column's: `values.stored_literal`); compared with
        an operand whose type this translation cannot tell (`operand_kind`), or an argument of
        GREATEST / LEAST, 1235."""
        toks = self.tokens
        n = len(toks)
        before = toks[i - 1] if i else None
        after = toks[i + 1] if i + 1 < n else None
        if _arithmetic(before) or _arithmetic(after):
            return True
        if before is not None and before.kind == "op" and before.text in _COMPARISONS:
            return self.compared_number(i - 2, -1)
        if after is not None and after.kind == "op" and after.text in _COMPARISONS:
            return self.compared_number(i + 2, 1)
        if after is not None and after.is_word("BETWEEN", "IN"):
            return self.compared_number(i + 2 + after.is_word("IN"), 1)
        if before is not None and before.is_word("BETWEEN"):
            return self.compared_number(i - 2, -1)
        if before is not None and before.is_word("AND") and i >= 4 and toks[i - 3].is_word("BETWEEN"):
            return self.compared_number(i - 4, -1)
        if before is None or after is None or before.kind != "op" or before.text not in ("(", ","):
            return False
        k = self.opener(i)
        head = toks[k - 1] if k >= 1 else None
        if head is None or head.kind != "word":
            return False
        if head.upper in ("CAST", "CONVERT") and i + 2 < n and (after.is_word("AS") or after.text == ",") \
                and toks[i + 2].upper in _NUMBER_CASTS:
            return True
        if head.is_word("IN") and k >= 2:
            return self.compared_number(k - 2 - toks[k - 2].is_word("NOT"), -1)
        if head.is_word("GREATEST", "LEAST"):  # (a DOUBLE beside a number, not done here)
            raise SQLError(ER_NOT_SUPPORTED_YET, f"a hex or bit literal in {head.upper}")
        return head.upper in NUMBER_ARGS and after.kind == "op" and after.text in (",", ")")

    def compared_number(self, k: int, step: int) -> bool:
        """Whether a hybrid literal compared with the operand whose nearest token is tokens[k]
        (reading back with step -1, forward with 1) is compared as a number (1235 where its
        type is not told here)."""
        kind = self.operand_kind(k, step)
        if kind is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "a hex or bit literal compared with this expression")
        return kind == "number"

    def operand_kind(self, k: int, step: int) -> str | None:
        """"number" or "string" for the operand whose nearest token is tokens[k]: a literal, a
        column, arithmetic, a call of a function whose value is one; None for any other."""
        toks = self.tokens
        n = len(toks)
        if not 0 <= k < n:
            return None
        t = toks[k]
        if 0 <= k + step < n and _arithmetic(toks[k + step]):
            return "number"
        if t.kind == "param":
            value = self.params[t.param]  # (the statement's own: hybrids not read yet)
            if type(value) is str and len(value) > 18 and value.isdigit():
                # a number past BIGINT (`lexer.decode_number`) and a quoted string of its digits
                # are alike here (a shorter number is an int)
                return None
            return "number" if type(value) in (int, float, Decimal) else "string"
        if t.kind == "op" and t.text in "()" and 0 <= k + 2 * step < n and toks[k + 2 * step].text == "()"[step > 0] \
                and toks[k + 2 * step].kind == "op" and not (step < 0 and k >= 3 and toks[k - 3].kind == "word"
                                                             and not toks[k - 3].is_word(*_CONDITION_WORDS)):
            return self.operand_kind(k + step, step)  # (x): x's (not a call's)
        if t.kind == "op" and t.text == ")" and step < 0:
            opened = self.opener(k)
            head = toks[opened - 1] if opened >= 1 else None
        elif t.kind == "word" and step > 0 and k + 1 < n and toks[k + 1].text == "(":
            head = t
        else:
            col = self.column_at(k, step)
            if col is None:
                return None
            if col.base in _NUMBER_COLUMNS:
                return "number"
            return "string" if col.base in CHAR_TYPES or col.base in BLOB_TYPES else None
        if head is None or head.kind != "word":
            return None
        if head.upper in STRING_CALLS:
            return "string"
        return "number" if head.upper in NUMBER_CALLS else None

    # --- how a string literal is read (`Plan.charset_contexts`) ------------------------------

    def read_as(self, param: int, context: str | None) -> None:
        """Literal `param` is read as `context` (TEXT, BYTES, ITEM; None: in a way not told)
        here; read two ways, or once in a way not told, it is MIXED."""
        known = self.charset_contexts.get(param, context)
        self.charset_contexts[param] = known if context is not None and known == context else MIXED

    def literal_context(self, i: int) -> str | None:
        """How the literal at tokens[i] (after its introducer, if any) is read, as far as this
        translation can tell the place: BYTES where MariaDB reads a string's bytes in its own
        character set (compared with a binary column, the one argument of LENGTH, HEX, MD5 ...,
        CAST(x AS BINARY)), TEXT where it reads only its characters or converts it to a
        column's character set first (compared with, or IN the list of, any other column; the
        one argument of CHAR_LENGTH; beside a column of characters in CONCAT), ITEM for a
        select item alone; None anywhere else (a comparison with another literal compares under
        the literal's own collation, latin1_swedish_ci or cp1251_general_ci ..., which this engine
        has not)."""
        toks = self.tokens
        n = len(toks)
        start = i - 1 if i > 0 and is_introducer(toks[i - 1]) else i
        before = toks[start - 1] if start > 0 else None
        after = toks[i + 1] if i + 1 < n else None
        if after is not None and after.is_word("COLLATE"):
            return None
        if before is not None and before.kind == "op" and before.text in _COMPARISONS:
            return _read_beside(self.column_at(start - 2, -1))
        if after is not None and after.kind == "op" and after.text in _COMPARISONS:
            return _read_beside(self.column_at(i + 2, 1))
        if before is None:
            return None
        if (before.is_word("SELECT", "DISTINCT") or before.kind == "op" and before.text == ",") \
                and self.item_context(start, i) is not None:
            return ITEM
        if after is None or before.kind != "op" or before.text not in ("(", ","):
            return None
        if before.text == "(" and start > 1 and toks[start - 2].is_word("CAST") and after.is_word("AS") \
                and i + 3 < n and toks[i + 2].is_word("BINARY") and toks[i + 3].text == ")":
            return BYTES
        if after.kind == "op" and after.text in (",", ")"):
            return self.argument_context(start, i)
        return None

    def argument_context(self, start: int, i: int) -> str | None:
        """`literal_context` of a literal standing alone between '(' or ',' and ',' or ')' at
        tokens[start:i + 1]: an argument of a call, or an item of an IN list."""
        toks = self.tokens
        k = self.opener(start)
        if k < 1:
            return None
        head = toks[k - 1]
        if head.kind != "word":
            return None
        lone = start == k + 1 and toks[i + 1].text == ")"
        if head.upper in _BYTE_CALLS and lone:
            return BYTES
        if head.upper in _CHARACTER_CALLS and lone:
            return TEXT
        if k not in self._lists:  # (once per list: an IN list may hold thousands)
            self._lists[k] = self.list_context(k)
        return self._lists[k]

    def list_context(self, k: int) -> str | None:
        """How a literal standing alone in the list whose '(' is tokens[k] is read: as compared
        with x in `x IN (...)`, TEXT in CONCAT / CONCAT_WS beside a column of characters."""
        toks = self.tokens
        head = toks[k - 1]
        if head.is_word("IN"):
            left = k - 2 - (k > 2 and toks[k - 2].is_word("NOT"))
            return _read_beside(self.column_at(left, -1))
        if head.upper in _AGGREGATING_CALLS:
            j, _ = self.close_of(k - 1)
            arguments, _ = split_top(toks[k + 1:j])
            columns = [self.column_at(k + 1 + sum(len(a) + 1 for a in arguments[:m]), 1)
                       for m, a in enumerate(arguments) if len(a) in (1, 3)]
            if any(col is not None and col.base not in BLOB_TYPES and col.affinity == "TEXT" for col in columns):
                return TEXT
        return None

    def opener(self, k: int) -> int:
        """The index of the '(' tokens[k] is inside (-1: none), from one pass over the tokens."""
        if self._openers is None:
            openers, stack = [], [-1]
            for n, t in enumerate(self.tokens):
                openers.append(stack[-1])
                if t.kind == "op" and t.text == "(":
                    stack.append(n)
                elif t.kind == "op" and t.text == ")" and len(stack) > 1:
                    stack.pop()
            self._openers = openers
        return self._openers[k]

    def item_context(self, start: int, i: int) -> str | None:
        """ITEM when the literal at tokens[start:i + 1] is a whole item of the statement's one
        SELECT list (no UNION: a branch's column takes its type from every branch), else None."""
        toks = self.tokens
        after = toks[i + 1] if i + 1 < len(toks) else None
        if self.opener(start) != -1 or after is not None and (
                after.kind == "op" and after.text not in (",", ";") or after.is_word(*_NOT_BOUNDARY, "AND", "OR", "XOR")):
            return None
        if self._select_list_end is None:  # the first clause word outside parentheses (-1: not a SELECT)
            clauses = [k for k, t in enumerate(toks) if k and t.kind == "word" and self.opener(k) == -1
                       and t.upper in CLAUSE_WORDS | {"EXCEPT", "INTERSECT"} and not within_group(toks, k)]
            union = any(toks[k].is_word("UNION", "EXCEPT", "INTERSECT") for k in clauses)
            self._select_list_end = -1 if union or not toks[0].is_word("SELECT") else (clauses or [len(toks)])[0]
        return ITEM if start < self._select_list_end else None

    def column_at(self, k: int, step: int) -> Column | None:
        """The column one statement table has that the bare, maybe qualified, name at tokens[k]
        names (reading back with step -1, forward with 1; `bare_column`), else None."""
        if not self.bare_column(k, step):
            return None
        toks = self.tokens
        names = [toks[k].text]
        while 0 <= k + 2 * step < len(toks) and toks[k + step].kind == "op" and toks[k + step].text == ".":
            k += 2 * step
            names.append(toks[k].text)
        if step < 0:
            names.reverse()
        return self.named_column(names) if len(names) <= 3 else None

    def emit_fetch(self, i: int, end: int) -> int | None:
        """`OFFSET n {ROW | ROWS}` and / or `FETCH {FIRST | NEXT} [m] {ROW | ROWS} ONLY` (MariaDB
        10.6+) at tokens[i], as SQLite's `LIMIT m OFFSET n` (m 1 when not written, every row
        without FETCH); returns the index past it, or None when tokens[i] starts no such clause
        (LIMIT's OFFSET n). As MariaDB's parser: a syntax error after LIMIT, in an UPDATE or
        DELETE, or for a count that is no integer; WITH TIES needs ORDER BY (4180) and is not
        done here (1235)."""
        toks = self.tokens
        offset = count = None
        fetched = False
        k = i
        if toks[k].is_word("OFFSET"):
            if not (k + 2 < end and toks[k + 1].kind == "param" and toks[k + 2].is_word("ROW", "ROWS")):
                return None
            offset, k = k + 1, k + 3
        if k + 1 < end and toks[k].is_word("FETCH") and toks[k + 1].is_word("FIRST", "NEXT"):
            fetched, k = True, k + 2
            if k < end and toks[k].kind == "param":
                count, k = k, k + 1
            if not (k < end and toks[k].is_word("ROW", "ROWS")):
                raise self.error_at(k)
            k += 1
            if k + 1 < end and toks[k].is_word("WITH") and toks[k + 1].is_word("TIES"):
                if not self.earlier_word(i, "ORDER"):
                    raise SQLError(ER_WITH_TIES_NEEDS_ORDER)
                raise SQLError(ER_NOT_SUPPORTED_YET, "FETCH ... WITH TIES")
            if not (k < end and toks[k].is_word("ONLY")):
                raise self.error_at(k)
            k += 1
        elif offset is None:
            return None
        for at in (offset, count):
            value = self.params[toks[at].param] if at is not None else 0
            if type(value) is not int:
                raise self.error_at(at)
        if self.earlier_word(i, "LIMIT") or (toks[0].is_word("UPDATE", "DELETE") and self.earlier_word(i, None)):
            raise self.error_at(i)
        self.out.append("LIMIT")
        if count is not None:
            self.add_arg(toks[count].param)
        else:
            self.out.append("1" if fetched else "-1")  # (-1: SQLite's no limit)
        if offset is not None:
            self.out.append("OFFSET")
            self.add_arg(toks[offset].param)
        return k

    def earlier_word(self, i: int, word: str | None) -> bool:
        """A `word` comes before tokens[i] in its parentheses' level (with None: tokens[i] is
        outside any parentheses)."""
        depth = 0
        for j in range(i - 1, -1, -1):
            t = self.tokens[j]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == ")" else -1
                if depth < 0:
                    return False
            elif depth == 0 and word is not None and t.is_word(word):
                return True
        return word is None

    def emit_user_var(self, i: int, end: int) -> int:
        """@x at tokens[i] in a statement that assigns a user variable (`assigned_vars`): an
        assignment `@x := expr` as `mysql_set_var`, evaluated row by row where SQLite evaluates
        it; a read of a variable the statement assigns as `mysql_get_var` (the value the rows
        before set, typed as MariaDB types the read); any other a per-statement argument."""
        toks = self.tokens
        name = toks[i].text.lower()
        quoted = "'" + name.replace("'", "''") + "'"
        if i + 1 < end and toks[i + 1].kind == "op" and toks[i + 1].text == ":=":
            stop = self.assignment_end(i + 2, end)
            if stop == i + 2:
                raise self.error_at(stop)
            self.out.append(f"mysql_set_var({quoted}, (")
            self.emit_range(i + 2, stop)
            self.out.append("))")
            return stop
        assignments = self.assigned_vars.get(name)
        if assignments is None:
            self.add_arg(("var", toks[i].text))
            return i + 1
        self.out.append(f"mysql_get_var({quoted}, ")
        self.add_arg(("var", toks[i].text))
        self.out.append(f", {int(assignments[0] < i)})")
        return i + 1

    def assignment_end(self, i: int, end: int) -> int:
        """The end of the value of an assignment `@x := value` starting at tokens[i]: the lowest
        precedence operator's, it runs to a ',' or ')' around it, a clause word or an alias."""
        toks = self.tokens

        def ends_at(k: int) -> bool:
            t = toks[k]
            if k == i or t.kind not in ("word", "ident"):
                return False
            if t.kind == "word" and t.upper in _ASSIGNMENT_END:
                return True
            return _ends_operand(toks[k - 1]) and toks[k - 1].text != "." and not (  # an alias without AS
                t.kind == "word" and t.upper in _VALUE_WORDS) and not (k + 1 < end and toks[k + 1].text in "(.")

        return self.value_end(i, end, ends_at)

    def check_assignment_order(self) -> None:
        """A SELECT that assigns a user variable in its select list is evaluated row by row in
        the order MariaDB sends its rows, after ORDER BY; SQLite computes a select list before
        its sort. So such a SELECT may be ordered only by what SQLite reads in order: its one
        table's INTEGER PRIMARY KEY; any other ORDER BY is refused (1235), not answered with
        the variable's values in another order."""
        toks = self.main_select()
        offset = len(self.tokens) - len(toks)
        depth, from_at, order_at = 0, len(toks), None
        for k, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("FROM") and from_at == len(toks):
                from_at = k
            elif depth == 0 and t.is_word("BY") and k and toks[k - 1].is_word("ORDER"):
                order_at = k + 1
        if order_at is None or not any(offset <= k < offset + from_at for ks in self.assigned_vars.values()
                                       for k in ks):
            return
        stop = next((k for k in range(order_at, len(toks)) if toks[k].is_word(*_ORDER_ITEM_END)
                     and not toks[k].is_word("ASC", "DESC")), len(toks))
        order = [t for t in toks[order_at:stop] if not t.is_word("ASC", "DESC")]
        tables = self.statement_tables()
        key = tables[0][1].rowid_alias() if len(tables) == 1 else None
        if key is None or not order or order[-1].kind not in ("word", "ident") \
                or order[-1].text.lower() != key.name.lower() \
                or not all(t.text == "." for t in order[-2::-2]) or len(order) > 5:
            raise SQLError(ER_NOT_SUPPORTED_YET, "a user variable assigned in the select list of a SELECT"
                                                 " ordered by other than its table's integer primary key")

    def typed_kind(self, i: int) -> str:
        """The kind ("date", "time", "datetime") of the typed literal DATE 'x' / TIME 'x' /
        TIMESTAMP 'x' at tokens[i], whose value the statement's execution reads from the string
        (`values.typed_literal`: 1525 for one that is no such value). A number after the word is
        MariaDB's syntax error; the plan depends on the literal holding none (`kinds`)."""
        param = self.tokens[i + 1].param
        number = (self.kinds.setdefault(param, literal_kind(self.params[param])) is not False)
        if number:
            raise self.error_at(i + 1)
        return TYPED_LITERALS[self.tokens[i].upper]

    def compared_off_column(self, i: int) -> bool:
        """Whether the literal at tokens[i] is an operand of a comparison (= <> != < <= > >= <=>)
        whose other operand is not a bare column, or the left operand of [NOT] IN: MariaDB
        compares such strings under the connection's utf8mb4_general_ci ('a' = 'A',
        UPPER(v) = 'ab', 'a' IN ('A')), SQLite binary unless an operand says COLLATE (a bare
        column's collation SQLite applies itself). Not in a statement naming a binary character
        column (an expression over it compares binary in MariaDB), nor when the literal or the
        other operand says BINARY or COLLATE (`says_binary`). A number so marked compares as
        before (a collation orders text only)."""
        toks = self.tokens
        before = toks[i - 1] if i > 0 else None
        after = toks[i + 1] if i + 1 < len(toks) else None
        if after is not None and after.is_word("COLLATE"):
            return False
        if before is not None and before.kind == "op" and before.text in _COMPARISONS:
            if self.bare_column(i - 2, -1) or self.says_binary(i - 2, -1):
                return False
        elif after is not None and after.kind == "op" and after.text in _COMPARISONS:
            if (before is not None and before.is_word("BINARY", "_BINARY")) or self.bare_column(i + 2, 1) \
                    or self.says_binary(i + 2, 1):
                return False
        elif (k := self.past_not(i + 1, len(toks))) < len(toks) and toks[k].is_word("IN"):
            # 'a' IN (...): SQLite's IN compares by its left operand's collation (the literal
            # is that operand whole: nothing but a boundary before it)
            if not (before is None or before.kind == "op" and before.text in ("(", ",")
                    or before.kind == "word" and before.upper in _QUANTIFIED_BOUNDARY) \
                    or self.says_binary(k + 1, 1):
                return False
        else:
            return False
        if self._ci_literals is None:
            self._ci_literals = not any(
                col.text_binary for _, table in self.statement_tables() for col in table.columns)
        return self._ci_literals

    def binary_operand(self, i: int, end: int) -> tuple[int, int, bool] | None:
        """The span of the operand of `BINARY` at tokens[i] (a name, a call, a parenthesized
        expression; past a BINARY repeated) when that operand is compared (=, <>, <, ... on
        either side, or as the left operand of [NOT] IN or [NOT] BETWEEN) or matched ([NOT]
        LIKE), and whether it is the latter. MySQL compares and matches it as a binary string,
        byte by byte: SQLite's BINARY collation compares text so (its IN and BETWEEN take their
        left operand's collation), the LIKE function (`collation.like`) matches a BLOB so. Else
        None (BINARY elsewhere is its operand cast to a BLOB: `binary_end`)."""
        toks = self.tokens
        found = self.binary_end(i + 1, end)
        if found is None or toks[found[0]].is_word("NULL", "TRUE", "FALSE"):
            return None
        start, stop = found
        before = toks[i - 1] if i > 0 else None
        k = self.past_not(stop, end)
        after = toks[k] if k < end else None
        if after is not None and after.is_word("LIKE"):
            return start, stop, True
        if (before is not None and before.kind == "op" and before.text in _COMPARISONS) or (
                after is not None and (after.kind == "op" and after.text in _COMPARISONS
                                       or after.is_word("IN", "BETWEEN"))):
            return start, stop, False
        return None

    def number_param(self, param: int) -> bool:
        """Whether the literal `param` holds a number (the plan then depends on its kind)."""
        number = (self.kinds.setdefault(param, literal_kind(self.params[param])) is not False)
        return number

    def binary_end(self, i: int, end: int) -> tuple[int, int] | None:
        """The span of the operand of a `BINARY` before tokens[i], as MySQL's grammar binds it (a
        simple expression: a signed literal, a variable, a name, a call, a parenthesized
        expression, NULL, TRUE, FALSE), past any BINARY repeated (BINARY BINARY x is BINARY x);
        None for another."""
        toks = self.tokens
        while i < end and toks[i].is_word("BINARY"):
            i += 1
        if i < end and toks[i].is_word("NULL", "TRUE", "FALSE"):
            return i, i + 1
        stop = self.operand_end(i, end)
        return None if stop is None else (i, stop)

    def literal_operand(self, k: int) -> bool:
        """Whether tokens[k] is a literal standing alone as an operand (the token before or after
        LIKE): a literal, or the literal of an introducer or BINARY just before it."""
        toks = self.tokens
        if not 0 <= k < len(toks):
            return False
        if toks[k].kind == "param":
            return True
        return k + 1 < len(toks) and toks[k + 1].kind == "param" and (
            is_introducer(toks[k]) or toks[k].is_word("BINARY"))

    def past_not(self, k: int, end: int) -> int:
        """k, or k + 1 when tokens[k] is NOT with a token after it before `end`: where the operator
        of `x NOT IN`, `x NOT LIKE`, `x NOT BETWEEN` is, the operand x ending at k."""
        return k + 1 if k + 1 < end and self.tokens[k].is_word("NOT") else k

    def says_binary(self, k: int, step: int) -> bool:
        """Whether the operand starting at tokens[k] (reading back with step -1, forward with 1,
        up to the ',' or parenthesis around it, a boolean operator, a clause word or another
        comparison) names BINARY or COLLATE anywhere in it."""
        toks = self.tokens
        depth = 0
        while 0 <= k < len(toks):
            tok = toks[k]
            if tok.kind == "op":
                text = tok.text
                if text == ("(" if step > 0 else ")"):
                    depth += 1
                elif text in ("(", ")"):
                    if depth == 0:
                        return False
                    depth -= 1
                elif depth == 0 and (text in (",", ";") or text in _COMPARISONS):
                    return False
            elif tok.kind == "word":
                if tok.upper in ("BINARY", "_BINARY", "COLLATE"):
                    return True
                if depth == 0 and tok.upper in _QUANTIFIED_BOUNDARY:
                    return False
            k += step
        return False

    def bare_column(self, k: int, step: int) -> bool:
        """Whether the operand starting at tokens[k] (reading back with step -1, forward with 1)
        is a bare, maybe qualified, column name: a name chain ended by no operator, call or
        parenthesis."""
        toks = self.tokens
        n = len(toks)
        if not 0 <= k < n or toks[k].kind not in ("word", "ident"):
            return False
        while 0 <= k + 2 * step < n and toks[k + step].kind == "op" and toks[k + step].text == "." \
                and toks[k + 2 * step].kind in ("word", "ident"):
            k += 2 * step
        edge = toks[k + step] if 0 <= k + step < n else None
        if edge is None or edge.kind == "word" and edge.upper not in _NOT_BOUNDARY:
            return True
        return edge.kind == "op" and edge.text in ((",", "(") if step < 0 else (",", ")", ";"))

    def like_operand(self, i: int) -> _LikeOperand | None:
        """The left operand of `LIKE` at tokens[i] when it is a bare, maybe qualified, name of a
        column one statement table has (`NOT LIKE` too): the token before it, the table, the
        column, the column as emitted (one out entry per token), and whether NOT came between."""
        toks = self.tokens
        k = i - 1
        negated = k >= 0 and toks[k].is_word("NOT")
        k -= negated
        if k < 1 or toks[k].kind not in ("word", "ident"):
            return None
        names = [toks[k].text]
        if toks[k - 1].kind == "op" and toks[k - 1].text == ".":
            if k < 3 or toks[k - 2].kind not in ("word", "ident") or toks[k - 3].text == ".":
                return None
            names.insert(0, toks[k - 2].text)
            k -= 2
        found = [(table, col) for alias, table in self.statement_tables()
                 if (len(names) == 1 or alias == names[0].lower()) and (col := table.column(names[-1])) is not None]
        emitted = self.out[len(self.out) - negated - len(names) * 2 + 1:len(self.out) - negated]
        if len(found) != 1 or "".join(emitted).replace('"', "").lower() != ".".join(names).lower():
            return None
        (table, col), = found
        return toks[k - 1], table, col, emitted, negated

    def like_column(self, i: int, operand: _LikeOperand | None) -> str | None:
        """For `col LIKE <literal>` at tokens[i] in a SELECT, between WHERE / AND / OR / ON / '('
        and AND / OR / ')' / the clause's end (where `LIKE AND low <= col < high`, which the LIKE
        implies, groups as the LIKE alone did), col naming one character column compared under
        GENERAL_CI (not a HAVING's, which may name a select alias): the column as emitted
        (`emit_like_range`), else None. `operand`: `like_operand(i)`."""
        toks = self.tokens
        if operand is None or not toks[0].is_word("SELECT") or any(t.is_word("BETWEEN") for t in toks):
            return None  # (BETWEEN ... AND would take the range's AND)
        after = toks[i + 2] if i + 2 < len(toks) else None
        if after is not None and not (after.is_word(*_CONJUNCT_END) or after.kind == "op" and after.text in (")", "||", "&&")):
            return None
        before, table, col, emitted, negated = operand
        if negated or not (before.is_word("WHERE", "AND", "OR", "ON") or before.kind == "op" and before.text in ("(", "&&", "||")):
            return None
        return " ".join(emitted) if table.ci_column(col.name) is not None else None

    def like_bin(self, i: int, operand: _LikeOperand | None) -> tuple[list[str], bool] | None:
        """For `col [NOT] LIKE <literal>` at tokens[i], col a character column of a binary
        collation (utf8mb4_bin, JSON) or the literal followed by `COLLATE <name>_bin`, where a
        call can stand for the comparison (after a
        boundary, before nothing binding tighter than LIKE): the column as emitted and NOT;
        the LIKE is then `mysql_like_bin(pattern, col, '\\')` (`collation.like_bin`), matching
        case and accents as MariaDB's LIKE under utf8mb4_bin. `operand`: `like_operand(i)`."""
        toks = self.tokens
        after = toks[i + 2] if i + 2 < len(toks) else None
        collated = after is not None and after.is_word("COLLATE") and i + 3 < len(toks) \
            and toks[i + 3].kind in ("word", "ident") and toks[i + 3].text.lower().endswith("_bin")
        if collated:  # `col LIKE 'x' COLLATE utf8mb4_bin`: the pattern's collation decides
            after = toks[i + 4] if i + 4 < len(toks) else None
        if operand is None or after is not None and (after.is_word("COLLATE", "ESCAPE") or after.kind == "op" and after.text not in (
                ")", ",", ";", "=", "<>", "!=", "<", "<=", ">", ">=", "<=>", "||", "&&")):
            return None
        before, _, col, emitted, negated = operand
        if not (col.text_binary or collated):
            return None
        if not (before.is_word("WHERE", "AND", "OR", "NOT", "ON", "SELECT", "WHEN", "THEN", "ELSE", "DISTINCT")
                or before.kind == "op" and before.text in ("(", ",", "&&", "||")):
            return None
        return emitted, negated

    def emit_like_range(self, column: str, param: int) -> None:
        """`AND col >= low AND col < high` after `col LIKE pattern`: the bounds under GENERAL_CI
        of what the pattern matches (`collation.like_range`), which an index on the column can
        search (SQLite's own LIKE optimization needs NOCASE). Read from this literal, so the plan
        is not cached."""
        pattern = self.params[param]
        self.cacheable = False
        bounds = collation.like_range(pattern) if isinstance(pattern, str) else None
        if bounds is not None:
            self.out.append(f"AND {column} >=")
            self.add_arg(("const", bounds[0]))
            self.out.append(f"AND {column} <")
            self.add_arg(("const", bounds[1]))

    def cte_names(self) -> set[str]:
        """The (lower-case) names the statement's WITH clauses define: a FROM naming one reads
        the common table expression, not a table of the default database."""
        if self._ctes is None:
            toks, found = self.tokens, set()
            for k, t in enumerate(toks):
                if not t.is_word("WITH"):
                    continue
                j = k + 2 if k + 1 < len(toks) and toks[k + 1].is_word("RECURSIVE") else k + 1
                try:
                    while j < len(toks) and toks[j].kind in ("word", "ident"):
                        found.add(toks[j].text.lower())
                        j += 1
                        if toks[j].text == "(":
                            j = skip_parens(toks, j)
                        if not toks[j].is_word("AS"):
                            break
                        j = skip_parens(toks, j + 1)
                        if j >= len(toks) or toks[j].text != ",":
                            break
                        j += 1
                except (Unknown, IndexError):
                    pass
            self._ctes = found
        return self._ctes

    def value_as_values(self) -> None:
        """VALUE(c) in ON DUPLICATE KEY UPDATE read as VALUES(c), its other spelling in MariaDB
        10.3+ (what Peewee writes for a MariaDB's upsert)."""
        toks = self.tokens
        update = next((k for k in range(len(toks) - 3) if toks[k].is_word("DUPLICATE")
                       and toks[k + 1].is_word("KEY") and toks[k + 2].is_word("UPDATE")), None)
        if update is None:
            return
        for k in range(update + 3, len(toks) - 1):
            if toks[k].is_word("VALUE") and toks[k + 1].text == "(":
                toks[k] = replace(toks[k], text="VALUES")

    def values_as_selects(self) -> None:
        """A table value constructor `VALUES (a, b), (c, d)` (MariaDB 10.3+: a statement, a
        derived table, a UNION's branch, an IN's subquery) read as `SELECT a, b UNION ALL SELECT
        c, d` (as a derived table after UNION [DISTINCT], EXCEPT or INTERSECT, whose duplicates
        are the whole constructor's): its columns named by its first row, typed by all rows, as
        MariaDB's. Rows of different widths are 4099, an empty row 4141."""
        toks = self.tokens
        out: list[Token] = []
        k = 0
        upsert = False  # in ON DUPLICATE KEY UPDATE, where `(VALUES(c) * 2)` is the function
        while k < len(toks):
            t = toks[k]
            upsert = upsert or self.upsert_at(k)
            if not (t.is_word("VALUES") and self.starts_query(k)) or upsert and k + 3 < len(toks) \
                    and toks[k + 1].text == "(" and toks[k + 2].kind in ("word", "ident") and toks[k + 3].text == ")":
                out.append(t)
                k += 1
                continue
            rows: list[list[Token]] = []
            k += 1
            while True:
                if k >= len(toks) or toks[k].text != "(":
                    raise self.error_at(k)
                close = skip_parens(toks, k)
                rows.append(toks[k + 1:close - 1])
                if not rows[-1]:
                    raise SQLError(ER_EMPTY_ROW_IN_TVC)
                if len(split_top(rows[-1])[0]) != len(split_top(rows[0])[0]):
                    raise SQLError(ER_WRONG_NUMBER_OF_VALUES_IN_TVC)
                k = close
                if k < len(toks) and toks[k].kind == "op" and toks[k].text == ",":
                    k += 1
                    continue
                break
            select, union, all_, from_ = (Token("word", word, -1, t.start, t.start)
                                          for word in ("SELECT", "UNION", "ALL", "FROM"))
            star, opened, closed = (Token("op", op, -1, t.start, t.start) for op in "*()")
            before = out[-1] if out else None
            wrapped = len(rows) > 1 and before is not None and before.is_word("UNION", "EXCEPT", "INTERSECT", "DISTINCT")
            if wrapped:
                out += [select, star, from_, opened]
            for n, row in enumerate(rows):
                out += [union, all_, select, *row] if n else [select, *row]
            if wrapped:
                out += [closed, Token("ident", "__values", -1, t.start, t.start)]
        if len(out) != len(toks) or any(a is not b for a, b in zip(out, toks, strict=True)):
            self.tokens = self.full_tokens = out
            self.tokens_changed()

    def query_forms(self) -> None:
        """Query forms SQLite's grammar has no room for, read as the same query in its forms:
        `UNION DISTINCT` as `UNION`, and query expressions in brackets (MariaDB 10.4+: `(SELECT
        ..) UNION (SELECT ..) ORDER BY 1`, `((SELECT 1))`, `INSERT INTO t (SELECT ..)`, `WITH c AS
        (..) (SELECT ..)`) without them. A bracketed query alone (the statement, a subquery's
        or derived table's whole body) loses its brackets, unless both it and the query around it
        order or limit; a member of a UNION / EXCEPT / INTERSECT loses them when it is a plain
        SELECT, else (its own ORDER BY / LIMIT, a set operation or WITH of its own) it becomes the
        derived table `SELECT * FROM (..) AS __bracketN`, whose columns are its own. Innermost
        brackets first, so that what a bracket holds is already SQLite's."""
        toks = self.tokens
        distinct = [k for k, t in enumerate(toks[1:], 1) if t.is_word("DISTINCT") and toks[k - 1].is_word("UNION")]
        for k, t in enumerate(toks[1:], 1):
            if t.is_word("ALL") and toks[k - 1].is_word("EXCEPT", "INTERSECT"):
                raise SQLError(ER_NOT_SUPPORTED_YET, f"{toks[k - 1].upper} ALL")
        if not distinct and not any(t.kind == "op" and t.text == "(" and toks[k + 1].is_word("SELECT", "WITH")
                                    for k, t in enumerate(toks[:-1])):
            return
        toks = [t for k, t in enumerate(toks) if k not in distinct]
        starts = (self.insert_source_at(toks), self.with_query_at(toks))
        changed = bool(distinct)
        for k in range(len(toks) - 2, -1, -1):
            if not (toks[k].kind == "op" and toks[k].text == "(" and self.brackets_query(toks, k, starts)):
                continue
            close = skip_parens(toks, k)
            inner = toks[k + 1:close - 1]
            depth, own_tail, combined = 0, False, inner[0].is_word("WITH")
            for t in inner:
                if t.kind == "op" and t.text in "()":
                    depth += 1 if t.text == "(" else -1
                elif depth == 0 and t.is_word("ORDER", "LIMIT", "FETCH", "OFFSET"):
                    own_tail = True
                elif depth == 0 and t.is_word("UNION", "EXCEPT", "INTERSECT"):
                    combined = True
            after = toks[close] if close < len(toks) else None
            member = after is not None and after.is_word(*_SET_OPERATORS) or self.follows_set_operator(toks, k)
            outer_tail = after is not None and after.is_word("ORDER", "LIMIT", "FETCH")
            if after is not None and after.is_word("FOR", "LOCK") and self.follows_set_operator(toks, k):
                raise SQLError(ER_WRONG_USAGE, "lock options", "SELECT in brackets")
            # SQLite combines left to right, so a first member's own set operation needs no brackets
            leftmost = member and not self.follows_set_operator(toks, k) and not inner[0].is_word("WITH")
            if (not member and not (own_tail and outer_tail)) or (member and not own_tail and (leftmost or not combined)):
                toks[k:close] = inner
            else:
                at = toks[k]
                toks[k:k] = [Token("word", "SELECT", -1, at.start, at.start), Token("op", "*", -1, at.start, at.start),
                             Token("word", "FROM", -1, at.start, at.start)]
                self.bracket_wrappers.add(id(toks[k]))
                toks.insert(close + 3, Token("ident", f"__bracket{k}", -1, at.start, at.start))
            changed = True
        if changed:
            self.tokens = self.full_tokens = toks
            self.tokens_changed()

    @staticmethod
    def insert_source_at(toks: list[Token]) -> int:
        """INSERT / REPLACE ... (SELECT ..): the index of the '(' that opens the bracketed query the
        rows come from, else -1."""
        if not toks or not toks[0].is_word("INSERT", "REPLACE"):
            return -1
        k = 1
        while k < len(toks):
            t = toks[k]
            if t.is_word("VALUES", "VALUE", "SET", "SELECT", "WITH"):
                return -1
            if t.kind == "op" and t.text == "(":
                j = k
                while j < len(toks) and toks[j].text == "(" and toks[j].kind == "op":
                    j += 1
                if j < len(toks) and toks[j].is_word("SELECT", "WITH"):
                    return k
                k = skip_parens(toks, k)
                continue
            k += 1
        return -1

    @staticmethod
    def with_query_at(toks: list[Token]) -> int:
        """WITH ... (SELECT ..): the index past the common table expressions, where the query
        begins, else -1."""
        if not toks or not toks[0].is_word("WITH"):
            return -1
        k = 2 if len(toks) > 1 and toks[1].is_word("RECURSIVE") else 1
        while k < len(toks):
            k += 1  # the name
            if k < len(toks) and toks[k].kind == "op" and toks[k].text == "(":  # its column list
                k = skip_parens(toks, k)
            if not (k + 1 < len(toks) and toks[k].is_word("AS") and toks[k + 1].text == "("):
                return -1
            k = skip_parens(toks, k + 1)
            if not (k < len(toks) and toks[k].kind == "op" and toks[k].text == ","):
                return k
            k += 1
        return -1

    @staticmethod
    def follows_set_operator(toks: list[Token], k: int) -> bool:
        before = toks[k - 1] if k else None
        if before is not None and before.is_word("ALL", "DISTINCT") and k > 1:
            before = toks[k - 2]
        return before is not None and before.is_word(*_SET_OPERATORS)

    def brackets_query(self, toks: list[Token], k: int, starts: tuple[int, ...]) -> bool:
        """Does the '(' at toks[k] open a query expression where a query may stand: the statement,
        `starts` (INSERT's source, the query after WITH's tables), a member of a set operation,
        or the whole body of brackets that hold a query (a subquery, a derived table, a CTE's
        query), not a call's argument?"""
        j = k
        while j < len(toks) and toks[j].kind == "op" and toks[j].text == "(":
            j += 1
        if j >= len(toks) or not toks[j].is_word("SELECT", "WITH"):
            return False
        if k == 0 or k in starts or self.follows_set_operator(toks, k):
            return True
        if not (toks[k - 1].kind == "op" and toks[k - 1].text == "("):
            return False
        opener = toks[k - 2] if k > 1 else None
        if k - 1 not in starts and opener is not None and not (
                opener.kind == "op" and opener.text != ")" or opener.is_word(*_QUERY_OPENERS)):
            return False  # f((SELECT 1)): a call's argument
        close = skip_parens(toks, k)
        after = toks[close] if close < len(toks) else None
        return after is not None and (after.kind == "op" and after.text == ")" or after.is_word(
            *_SET_OPERATORS, "ORDER", "LIMIT", "FETCH"))

    def starts_query(self, k: int) -> bool:
        """tokens[k] is where a query may start: the statement's start, after '(' or after UNION /
        EXCEPT / INTERSECT [ALL | DISTINCT] (not INSERT's VALUES nor the VALUES() function)."""
        toks = self.tokens
        before = toks[k - 1] if k else None
        if before is not None and before.is_word("ALL", "DISTINCT"):
            before = toks[k - 2] if k > 1 else None
            return before is not None and before.is_word("UNION", "EXCEPT", "INTERSECT")
        return before is None or (before.kind == "op" and before.text == "(") or before.is_word(
            "UNION", "EXCEPT", "INTERSECT")

    def check_column_names(self) -> None:
        """MariaDB's 1060 for a derived table, or a common table expression, whose columns would
        repeat a name (`exprtypes.repeated_name`): a CTE's column list, else its SELECT's names
        (`exprtypes.selected_names`); SQLite would name the second `a:1`. Read when the shape is
        planned; a name read from an integer, string or NULL literal (SELECT 1, 1) from this
        statement's values, its plan then not cached."""
        toks = self.tokens
        if not any(t.is_word("SELECT") for t in toks[1:]):
            return
        ctes = self.cte_names()

        def lookup(schema: str | None, name: str) -> Table | Derived | None:
            return None if schema is None and name.lower() in ctes else self.table_or_view(schema, name)

        def check(names: list[str | None] | None, select: list[Token] | None = None) -> None:
            if select is not None and names is not None and len(names) > 1 and None in names:
                # literals' names: read from this statement's values, so the plan is not cached
                literal_named = selected_names(select, lookup, self.shape, self.params)
                if literal_named != names:
                    self.cacheable = False
                    names = literal_named
            repeated = repeated_name(names or [])
            if repeated is not None:
                raise SQLError(ER_DUP_FIELDNAME, repeated)

        for k, t in enumerate(toks):
            if t.is_word("WITH"):
                for listed, select in self.cte_parts(k):
                    if listed is not None:
                        check(listed)
                    else:
                        check(selected_names(select, lookup, self.shape), select)
            elif t.kind == "op" and t.text == "(" and k + 1 < len(toks) and toks[k + 1].is_word("SELECT", "WITH") \
                    and self.in_from(k):
                select = toks[k + 1:skip_parens(toks, k) - 1]
                check(selected_names(select, lookup, self.shape), select)

    def check_fixedbin_operands(self) -> None:
        """1235 for a UUID, INET6 or INET4 column where MariaDB reads its binary value or refuses
        it (HEX(x), BINARY x, CAST(x AS BINARY): its bytes; arithmetic: 4078 / 4079), which the
        column's text here would answer otherwise. Read when the shape is planned, only for a
        statement whose tables have such a column."""
        if self._named is None:
            self._named = self.statement_tables()
        if not any(col.base in FIXEDBIN_TYPES for _, table in self._named for col in table.columns):
            return
        toks = self.tokens
        assigned = self.assignment_targets()
        for k, t in enumerate(toks):
            if t.kind not in ("ident", "word") or k + 1 < len(toks) and toks[k + 1].text in (".", "("):
                continue
            start, names = k, [t.text]
            while start >= 2 and toks[start - 1].text == ".":
                start -= 2
                names.insert(0, toks[start].text)
            col = self.named_column(names) if len(names) <= 3 else None
            if col is None or col.base not in FIXEDBIN_TYPES:
                continue
            if k in assigned:
                self.check_fixedbin_assigned(col, k)
                continue
            before = toks[start - 1] if start else None
            call = toks[start - 2] if start >= 2 and before is not None and before.text == "(" else None
            after = toks[k + 1] if k + 1 < len(toks) else None
            what = None
            if any(x is not None and (x.kind == "op" and x.text in _ARITHMETIC_OPS or x.is_word("DIV", "MOD"))
                   for x in (before, after)):
                what = "arithmetic"
            elif before is not None and before.is_word("BINARY") or call is not None and call.is_word("HEX"):
                what = "BINARY" if before.is_word("BINARY") else "HEX()"
            elif call is not None and call.is_word("CAST", "CONVERT") and k + 2 < len(toks) \
                    and (after.is_word("AS") or after.text == ",") and toks[k + 2].is_word("BINARY"):
                what = "CAST AS BINARY"
            if what is not None:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"{what} of {col.base.upper()} values")
            self.check_fixedbin_compared(col, k, start)

    def check_fixedbin_assigned(self, col: Column, k: int) -> None:
        """`col = <number literal>` in a SET list or ON DUPLICATE KEY UPDATE (tokens[k] the
        column): MariaDB's 4078 before any row is read, whether or not a row is updated; the
        plan is keyed by the literal's kind."""
        toks = self.tokens
        at = k + 3 if k + 3 < len(toks) and toks[k + 2].kind == "op" and toks[k + 2].text in "-+" else k + 2
        if at >= len(toks) or toks[at].kind != "param" or not isinstance(toks[at].param, int) \
                or toks[at].param >= len(self.params) or at + 1 < len(toks) and toks[at + 1].text not in (",", ")") \
                and not toks[at + 1].is_word("WHERE", "ORDER", "LIMIT", "ON", "RETURNING"):
            return
        value = self.params[toks[at].param]
        if not self.kinds.setdefault(toks[at].param, literal_kind(value)) or not isinstance(value, int | Decimal):
            return  # (a float's kind, decimal or double, is its text's: stored per row, `values.store`)
        owner = next((table for _, table in self._named or () if table.column(col.name) is col), None)
        if owner is not None:
            raise SQLError(ER_CANNOT_CAST_ON_ASSIGNMENT, "int" if isinstance(value, int) else "decimal", col.base,
                           f"`{owner.schema}`.`{owner.name}`.`{col.name}`")

    def assignment_targets(self) -> frozenset[int]:
        """The token indexes of the columns a SET list or ON DUPLICATE KEY UPDATE assigns (`c` of
        `c = value` or `t.c = value` at depth 0): that `=` stores a value, it compares none."""
        toks = self.tokens
        found: set[int] = set()
        depth = 0
        listing = False  # inside a SET list or ON DUPLICATE KEY UPDATE's
        for k, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
                continue
            if depth:
                continue
            if t.is_word("SET") or t.is_word("UPDATE") and k >= 2 and toks[k - 1].is_word("KEY") \
                    and toks[k - 2].is_word("DUPLICATE"):
                listing = True
            elif t.is_word("WHERE", "ORDER", "LIMIT", "RETURNING", "ON"):
                listing = False
                continue
            elif not (listing and t.kind == "op" and t.text == ","):
                continue
            end = k + 1
            while end + 2 < len(toks) and toks[end].kind in ("word", "ident") and toks[end + 1].text == "." \
                    and toks[end + 1].kind == "op":
                end += 2
            if end + 1 < len(toks) and toks[end].kind in ("word", "ident") and toks[end + 1].kind == "op" \
                    and toks[end + 1].text == "=":
                found.add(end)
        return frozenset(found)

    def check_fixedbin_compared(self, col: Column, k: int, start: int) -> None:
        """MariaDB's 4078 for the column at tokens[start:k + 1] compared with a number literal
        (which the collation would read as text that names no value); the plan is keyed by the
        literal's kind (`Plan.literal_kinds`)."""
        toks = self.tokens
        other = None
        at = k + 2 if k + 1 < len(toks) and toks[k + 1].is_word("NOT") else k + 1
        if at + 1 < len(toks) and toks[at].is_word("IN", "BETWEEN"):
            self.fixedbin_listed(col, at)
            return
        if k + 2 < len(toks) and toks[k + 1].kind == "op" and toks[k + 1].text in _COMPARISON_OPS:
            op, other, first = toks[k + 1].text, toks[k + 2], True
        elif start >= 2 and toks[start - 1].kind == "op" and toks[start - 1].text in _COMPARISON_OPS:
            op, other, first = toks[start - 1].text, toks[start - 2], False
        if other is None or other.kind != "param" or not isinstance(other.param, int) \
                or other.param >= len(self.params):
            return
        value = self.params[other.param]
        kind = self.kinds[other.param] = literal_kind(value)
        if not kind:
            self.fixedbin_literals[other.param] = col.base
            return
        self.number_compared(col, value, "<>" if op == "!=" else op, first)

    @staticmethod
    def number_compared(col: Column, value: object, op: str, first: bool) -> None:
        """MariaDB's 4078 for `col` compared (`op`) with the number literal `value` (`first`:
        the column is the left operand)."""
        if isinstance(value, float):  # (1.5 and 1e0 alike: MariaDB names a decimal and a double)
            raise SQLError(ER_NOT_SUPPORTED_YET, f"comparing {col.base.upper()} values with a number")
        kind = "int" if isinstance(value, int) else "decimal"
        names = (col.base, kind) if first else (kind, col.base)
        raise SQLError(ER_ILLEGAL_PARAMETER_DATA_TYPES2_FOR_OPERATION, *names, op)

    def fixedbin_listed(self, col: Column, at: int) -> None:
        """The strings of `col IN ('..', ...)` or `col BETWEEN '..' AND '..'` (tokens[at] the IN or
        BETWEEN) read as `check_fixedbin_compared` reads one, when every item is a string
        literal (the plan keyed by their kinds); any other list is left as it is."""
        toks = self.tokens
        if toks[at].is_word("BETWEEN"):
            items = [at + 1, at + 3] if at + 3 < len(toks) and toks[at + 2].is_word("AND") else []
        elif toks[at + 1].text == "(":
            close = skip_parens(toks, at + 1) - 1
            items = list(range(at + 2, close, 2))
            if any(toks[n].text != "," for n in range(at + 3, close, 2)):
                return
        else:
            return
        if not items or any(toks[n].kind != "param" or not isinstance(toks[n].param, int)
                            or toks[n].param >= len(self.params) for n in items):
            return
        for n in items:
            value = self.params[toks[n].param]
            if self.kinds.setdefault(toks[n].param, literal_kind(value)):
                self.number_compared(col, value, toks[at].text.lower(), True)
        if any(not isinstance(self.params[toks[n].param], str | bytes) for n in items):
            return
        for n in items:
            self.kinds[toks[n].param] = False
            self.fixedbin_literals[toks[n].param] = col.base

    def cte_parts(self, k: int) -> list[tuple[list[str | None] | None, list[Token]]]:
        """The common table expressions of the WITH at tokens[k]: each one's column list (None
        without one) and its SELECT's tokens."""
        toks, parts = self.tokens, []
        j = k + 2 if k + 1 < len(toks) and toks[k + 1].is_word("RECURSIVE") else k + 1
        try:
            while j < len(toks) and toks[j].kind in ("word", "ident"):
                j += 1
                listed: list[str | None] | None = None
                if toks[j].text == "(":
                    end = skip_parens(toks, j)
                    listed = [x.text for x in toks[j + 1:end - 1] if x.kind in ("word", "ident")]
                    j = end
                if not toks[j].is_word("AS"):
                    break
                end = skip_parens(toks, j + 1)
                parts.append((listed, toks[j + 2:end - 1]))
                if end >= len(toks) or toks[end].text != ",":
                    break
                j = end + 1
        except (Unknown, IndexError):
            pass
        return parts

    def in_from(self, k: int) -> bool:
        """tokens[k] opens a table reference of a FROM clause (a derived table)."""
        toks, depth = self.tokens, 0
        for j in range(k - 1, -1, -1):
            t = toks[j]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == ")" else -1
                if depth < 0:
                    return False
            elif depth == 0 and t.kind == "word" and (t.upper in CLAUSE_WORDS or t.upper in JOIN_WORDS
                                                      or t.upper == "FROM"):
                return t.upper == "FROM" or t.upper in JOIN_WORDS
            elif depth == 0 and j == k - 1 and not (t.kind == "op" and t.text == ","):
                return False
        return False

    def name_unless_aliased(self, i: int, table: str) -> None:
        """A subquery standing for `table` is referable by the table's own name, as MySQL allows,
        unless the statement gives it an alias at `i`."""
        toks = self.tokens
        if not (i < len(toks) and (toks[i].is_word("AS") or toks[i].kind == "ident" or (
                toks[i].kind == "word" and toks[i].upper not in NOT_ALIAS))):
            self.out.append(quote_ident(table))

    def emit_table_ref(self, i: int) -> int:
        """A table name in a FROM/JOIN list: qualify it, keep its alias, drop index hints."""
        toks = self.tokens
        if toks[i].text.lower() in self.cte_names() and not (i + 1 < len(toks) and toks[i + 1].text == "."):
            self.out.append(quote_ident(toks[i].text))  # a common table expression
            i += 1
            if i < len(toks) and toks[i].is_word("AS"):
                self.out.append("AS")
                i += 1
            if i < len(toks) and (toks[i].kind == "ident" or (toks[i].kind == "word" and toks[i].upper not in NOT_ALIAS)):
                self.out.append(quote_ident(toks[i].text))
                i += 1
            return i
        i, schema, table = self.read_table_name(i)
        if schema.lower() == infoschema.NAME:
            tables_of = self.tables_and_views if table.lower() == "columns" else self.tables_of
            view = infoschema.subquery(table, self.listed_schemas, tables_of, self.live_rows, self.views_in,
                                       self.options_of, self.triggers_in, self.routines_in)
            if view is None and table.lower() in infoschema.UNANSWERED:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"information_schema.{table.upper()}")
            if view is None:
                raise SQLError(ER_UNKNOWN_TABLE, table, infoschema.NAME)  # MariaDB's word for a view it lacks
            self.reads_infoschema = True
            self.out.append(view)
            self.name_unless_aliased(i, table)
        elif schema not in self.schemas and schema.lower() == infoschema.MYSQL and (
                system := infoschema.mysql_subquery(table, self.live_rows)) is not None:
            self.out.append(system)
            self.name_unless_aliased(i, table)
        elif schema not in self.schemas and schema.lower() == perfschema.NAME and (
                system := perfschema.subquery(table)) is not None:
            self.out.append(system)
            self.name_unless_aliased(i, table)
        elif schema not in self.schemas:
            raise SQLError(ER_NO_SUCH_TABLE, schema, table)
        elif self.catalog(schema, table) is None and (view := self.view_of(schema, table)) is not None:
            self.out.append(self.view_sql(view))
            self.name_unless_aliased(i, table)
            self.tables_read += 1
        else:
            self.out.append(self.table_sql(schema, table))
            self.tables_read += 1
            self.tables_named.add((schema, table.lower()))
        # alias
        if i < len(toks) and toks[i].is_word("AS"):
            self.out.append("AS")
            self.out.append(quote_ident(toks[i + 1].text))
            i += 2
        elif i < len(toks) and (toks[i].kind == "ident" or (
                toks[i].kind == "word" and toks[i].upper not in NOT_ALIAS)):
            self.out.append(quote_ident(toks[i].text))
            i += 1
        elif (written := self.written_names.get(table.lower())) is not None:
            # a temporary table's stored name, aliased as written, so that `name.column` finds it
            self.out.append("AS")
            self.out.append(quote_ident(written))
        # index hints: {USE|FORCE|IGNORE} {INDEX|KEY} [FOR ...] (list)
        while i + 1 < len(toks) and toks[i].is_word("USE", "FORCE", "IGNORE") and toks[i + 1].is_word("INDEX", "KEY"):
            i += 2
            while i < len(toks) and not (toks[i].kind == "op" and toks[i].text == "("):
                i += 1
            depth = 0
            while i < len(toks):
                if toks[i].text == "(" and toks[i].kind == "op":
                    depth += 1
                elif toks[i].text == ")" and toks[i].kind == "op":
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
        return i

    def emit_call(self, i: int, word: str) -> int:
        """name( ... ): per-execution values, renamed functions, CAST and friends."""
        toks = self.tokens
        if word in _NOT_BUILT_CALLS:
            raise SQLError(ER_NOT_SUPPORTED_YET, _NOT_BUILT_CALLS[word])
        closes = i + 2 < len(toks) and toks[i + 2].kind == "op" and toks[i + 2].text == ")"
        if word in ("LAG", "LEAD"):
            commas, depth = [], 0
            for k in range(i + 2, skip_parens(toks, i + 1) - 1):
                if toks[k].kind == "op" and toks[k].text in "()":
                    depth += 1 if toks[k].text == "(" else -1
                elif depth == 0 and toks[k].text == ",":
                    commas.append(k)
            if len(commas) > 1:  # MariaDB 10.11's grammar takes LAG(x [, n]) only: a default is 1064
                raise syntax_error(self.shape[toks[commas[1]].end:])
        if word == "SYSDATE":  # the clock as the call runs, not the statement's time (sysdate_is_now OFF)
            self.out.append("mysql_sysdate(")
            if closes:
                self.out.append("0)")
                return i + 3
            if i + 3 < len(toks) and toks[i + 2].kind == "param" and toks[i + 3].text == ")":
                self.add_arg(toks[i + 2].param)
                self.out.append(")")
                return i + 4
            raise self.error_at(i + 2)
        if word in CALLS and closes:
            source = CALLS[word]
            if source == LAST_ID:
                self.uses_last_id = True
            self.add_arg(source)
            return i + 3
        if word in FSP_NAMES and i + 3 < len(toks) and toks[i + 2].kind == "param" and toks[i + 3].text == ")":
            # NOW(6): the statement's time with that many fractional digits (its microseconds
            # binlogged with the statement, so that a replica reads the same time)
            self.out.append("mysql_fsp(")
            self.add_arg(CALLS[word])
            self.out.append(",")
            self.add_arg(NOW_US)
            self.out.append(",")
            self.add_arg(toks[i + 2].param)
            self.out.append(f", '{FSP_NAMES[word]}')")
            self.uses_fraction = True
            return i + 4
        if word == "UNIX_TIMESTAMP":
            self.out.append("mysql_unix_timestamp")
            return i + 1
        if word in ("UPPER", "LOWER", "UCASE", "LCASE") and self.binary_argument(i):
            # a binary string has no case: MariaDB leaves it as it is (SQLite holds X'61' as 'a')
            j, _ = self.close_of(i)
            self.out.append("(")
            self.emit_range(i + 2, j)
            self.out.append(")")
            return j + 1
        if word == "LAST_INSERT_ID":  # LAST_INSERT_ID(expr): returns expr, which becomes the session's value
            self.sets_last_id = True
            self.out.append("mysql_set_last_id")
            return i + 1
        if word in ("RAND", "UUID", "SYS_GUID"):  # UUID() draws from RAND()'s generator: replayed from the RAND event
            self.uses_rand = True
        if word == "NAME_CONST":
            return self.emit_name_const(i)
        if word in ("MYSQL_RETURNED", "MYSQL_ASSIGNED"):  # a stored function's value, its argument
            return self.emit_routine_value(i, word)
        if word == "COERCIBILITY":
            return self.emit_coercibility(i)
        if word == "SFORMAT":
            return self.emit_sformat(i)
        if word == "CURRENT_ROLE" and closes:  # no role is ever set here
            self.add_arg(("const", None))
            return i + 3
        if word == "ADD_MONTHS":  # DATE_ADD(d, INTERVAL n MONTH)
            return self.emit_date_add(i, 1, "MONTH")
        if word == "LAST_VALUE" and not ((j := self.close_of(i)[0]) + 1 < len(toks) and toks[j + 1].is_word("OVER")):
            self.out.append("mysql_last_value")  # LAST_VALUE(a, ..., z): z, all evaluated
            return i + 1
        if word in ("MEDIAN", "PERCENTILE_CONT", "PERCENTILE_DISC"):
            return self.emit_percentile(i, word)
        if word in _VARIANCE_CALLS and (j := self.close_of(i)[0]) + 1 < len(toks) and toks[j + 1].is_word("OVER"):
            # over the whole partition, as MariaDB; its answers over an ordered window (a frame
            # of some rows; a NULL) are not the frame's variance, and a named window is not read
            if j + 2 >= len(toks) or toks[j + 2].text != "(" or \
                    self.close_of(j + 1, lambda t: t.is_word("ORDER", "ROWS", "RANGE", "GROUPS"))[1] is not None:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"{word}() over an ordered or a named window")
        if word == "BENCHMARK":
            j, _ = self.close_of(i)
            if any(t.kind == "word" and t.upper in BENCHMARK_EFFECTS or t.text == ":=" for t in toks[i + 2:j]):
                raise SQLError(ER_NOT_SUPPORTED_YET, "BENCHMARK() of an expression with effects")
        if word in ("TIMESTAMPDIFF", "TIMESTAMPADD"):  # the unit, a bare word, becomes a text argument
            unit = toks[i + 2] if i + 2 < len(toks) else None
            if unit is None or unit.upper not in INTERVAL_UNITS:
                raise self.error_at(i + 2)
            self.unit_at = i + 2
            self.out.append(f"mysql_{word.lower()}")
            return i + 1
        if word == "GET_FORMAT":  # GET_FORMAT(DATE | TIME | DATETIME | TIMESTAMP, standard): the kind a text
            if i + 2 >= len(toks) or toks[i + 2].upper not in strfuncs.GET_FORMAT_KINDS or toks[i + 2].kind != "word":
                raise self.error_at(i + 2)
            self.unit_at = i + 2
            self.out.append("mysql_get_format")
            return i + 1
        if word == "CHAR":
            return self.emit_char(i)
        if word in ("DATE_ADD", "DATE_SUB", "ADDDATE", "SUBDATE"):
            return self.emit_date_add(i, -1 if word in ("DATE_SUB", "SUBDATE") else 1)
        if word == "CAST" or word == "CONVERT":
            return self.emit_cast(i, word)
        if word == "TRIM":
            return self.emit_trim(i)
        if word in ("POSITION", "EXTRACT", "SUBSTRING", "SUBSTR", "MID"):
            j, at = self.close_of(i, lambda t: t.is_word("IN" if word == "POSITION" else "FROM"))
            if at is not None:
                return self.emit_keyword_call(i, word, j, at)
        if word in _JSON_EDITS:
            return self.emit_json_edit(i, word)
        if word in _JSON_ARGUMENTS:
            fewest, most = _JSON_ARGUMENTS[word]
            count = len(split_top(toks[i + 2:self.close_of(i)[0]])[0])
            if count < fewest or most is not None and count > most:
                raise SQLError(ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, word)
        if word in _JSON_MADE and not self._in_json and not self.in_json_call(i):
            # MariaDB writes ", " and ": " between members; SQLite's json_object() nothing. Only a
            # call outside every JSON function is rewritten: an inner one must reach the function
            # around it as JSON (SQLite's subtype), which the rewritten text no longer is
            j, _ = self.close_of(i)
            self.out.append(f"mysql_json_text({word.lower()}(")
            self._in_json = True
            try:
                self.emit_json_args(word, i + 2, j)
            finally:
                self._in_json = False
            self.out.append("))")
            return j + 1
        if word in _JSON_MADE:  # inside another JSON function: its JSON as SQLite's functions make it
            j, _ = self.close_of(i)
            self.out.append(f"{word.lower()}(")
            self.emit_json_args(word, i + 2, j)
            self.out.append(")")
            return j + 1
        if word == "LOG" and self.close_of(i)[1] is None:  # LOG(x) is ln(x); SQLite's log(x) is log10(x)
            self.out.append("ln")
            return i + 1
        if word == "COUNT" and i + 2 < len(toks) and toks[i + 2].is_word("DISTINCT") and self.close_of(i)[1] is not None:
            return self.emit_count_distinct(i)
        if word in ("CHARSET", "COLLATION"):
            return self.emit_charset(i, word)
        if word == "GROUP_CONCAT":
            return self.emit_group_concat(i)
        if word in ("JSON_ARRAYAGG", "JSON_OBJECTAGG"):
            return self.emit_json_agg(i, word)
        if word == "VALUES":
            # ON DUPLICATE KEY UPDATE c = VALUES(c)
            col = toks[i + 2]
            self.out.append("excluded." + quote_ident(col.text))
            return i + 4
        if word == "MOD" and self.strict_division:  # MOD(a, 0) fails a write, as a % 0 does
            self.out.append("mysql_mod_strict")
            return i + 1
        self.out.append(FUNC_RENAME.get(word, toks[i].text))
        return i + 1

    def emit_char(self, i: int) -> int:
        """CHAR(N, ... [USING charset]) at tokens[i]: mysql_char(charset, N, ...), a binary string
        without USING; a character set this engine holds no text in is refused (1235)."""
        toks = self.tokens
        j, using = self.close_of(i, lambda t: t.is_word("USING"))
        end = j if using is None else using
        if end == i + 2:  # CHAR(): MariaDB's syntax error
            raise self.error_at(end)
        charset = "binary"
        if using is not None:
            if using + 2 != j:
                raise self.error_at(using + 1)
            charset = toks[using + 1].text.lower()
            if charset not in strfuncs.CHAR_CHARSETS:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"CHAR(... USING {charset})")
            if charset in strfuncs.NARROW_CHARSETS and self.item_context(i, j) is not None:
                charset += ":item"  # read only as the text a client gets (functions.mysql_char)
        self.out.append(f"mysql_char('{charset}'")
        start = i + 2
        while start < end:
            stop = self.argument_end(start, end)
            self.out.append(", ")
            if stop == start + 1 and toks[start].kind == "param" and isinstance(self.params[toks[start].param], bytes):
                # a hex or bit literal, a number where CHAR reads one (MySQL's hybrid)
                self.cacheable = False
                self.out.append(str(int.from_bytes(self.params[toks[start].param], "big")))
            else:
                self.emit_range(start, stop)
            start = stop + 1
        self.out.append(")")
        return j + 1

    def emit_name_const(self, i: int) -> int:
        """NAME_CONST('name', value) at tokens[i]: the value, a literal (a signed number, a
        string, with COLLATE too, NULL), which `select_names` names the column after; anything else is 1210."""
        toks = self.tokens
        j, comma = self.close_of(i)
        value = toks[comma + 1:j] if comma is not None else []
        end = j
        if len(value) >= 3 and value[-2].is_word("COLLATE"):
            # (a stored program's string variable, as MariaDB's binlog writes it: _cs'..' COLLATE 'x')
            value, end = value[:-2], j - 2
        if len(value) == 2 and value[0].kind == "word" and value[0].text.startswith("_") and value[1].kind == "param":
            value = value[1:]
        if value and value[0].kind == "op" and value[0].text in "+-" and len(value) == 2:
            literal = value[1].kind == "param" and isinstance(self.params[value[1].param], int | float | Decimal)
        else:
            literal = len(value) == 1 and (value[0].kind == "param" or value[0].is_word("NULL", "TRUE", "FALSE"))
        if comma != i + 3 or toks[i + 2].kind != "param" or not isinstance(self.params[toks[i + 2].param], str) \
                or not literal:
            raise SQLError(ER_WRONG_ARGUMENTS, "NAME_CONST")
        self.out.append("(")
        self.emit_range(comma + 1, end)
        self.out.append(")")
        return j + 1

    def emit_percentile(self, i: int, word: str) -> int:
        """MEDIAN(x) OVER (...) and PERCENTILE_CONT(f) / PERCENTILE_DISC(f) WITHIN GROUP (ORDER BY x
        [ASC | DESC]) OVER (...) at tokens[i]: mysql_percentile(f, x, descending, discrete) over
        the same window, which MariaDB allows no ORDER BY (a syntax error, as there). f is a
        number literal in [0, 1] (4103 outside, 4104 for NULL; any other expression is 1235);
        PERCENTILE_CONT's x a number (4101 for a string)."""
        toks = self.tokens
        j, _ = self.close_of(i)
        if word == "MEDIAN":
            fraction, lo, hi, descending, over = "0.5", i + 2, j, False, j + 1
        else:
            if not (j + 5 < len(toks) and toks[j + 1].is_word("WITHIN") and toks[j + 2].is_word("GROUP")
                    and toks[j + 3].text == "(" and toks[j + 4].is_word("ORDER") and toks[j + 5].is_word("BY")):
                raise self.error_at(j + 1)
            k, _ = self.close_of(j + 2)
            lo, hi = j + 6, k
            descending = toks[hi - 1].is_word("DESC")
            if toks[hi - 1].is_word("ASC", "DESC"):
                hi -= 1
            arg = toks[i + 2:j]
            if len(arg) == 1 and arg[0].is_word("NULL"):
                raise SQLError(ER_PERCENTILE_NOT_NUMERIC, word.lower())
            value = self.params[arg[0].param] if len(arg) == 1 and arg[0].kind == "param" else None
            if not isinstance(value, int | float | Decimal):
                raise SQLError(ER_NOT_SUPPORTED_YET, f"{word}() of a fraction that is not a number literal")
            if not 0 <= value <= 1:
                raise SQLError(ER_PERCENTILE_RANGE, word.lower())
            fraction, over = repr(float(value)), k + 1
        if over >= len(toks) or not toks[over].is_word("OVER") or over + 1 >= len(toks) or toks[over + 1].text != "(":
            raise self.error_at(over)
        window_end, order = self.close_of(over, lambda t: t.is_word("ORDER"))
        if order is not None:
            raise self.error_at(order)
        if word != "PERCENTILE_DISC":
            ct = self.expr_type(lo, hi)
            if ct is not None and ct.type in (FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB):
                raise SQLError(ER_PERCENTILE_NOT_NUMERIC_TYPE, "percentile_cont")
        self.out.append(f"mysql_percentile({fraction}, ")
        self.emit_range(lo, hi)
        self.out.append(f", {int(descending)}, {int(word == 'PERCENTILE_DISC')}) ")
        return over

    def emit_sformat(self, i: int) -> int:
        """SFORMAT(format, args...) at tokens[i]: a DECIMAL argument read as the DOUBLE MariaDB
        hands fmt (1.50 is written 1.5), the others as they are."""
        j, _ = self.close_of(i)
        self.out.append("sformat(")
        start, first = i + 2, True
        while start < j:
            stop = self.argument_end(start, j)
            if not first:
                self.out.append(", ")
            ct = None if first else self.expr_type(start, stop)
            if ct is not None and ct.type == FieldType.NEWDECIMAL:
                self.out.append("CAST((")
                self.emit_range(start, stop)
                self.out.append(") AS REAL)")
            else:
                self.emit_range(start, stop)
            start, first = stop + 1, False
        self.out.append(")")
        return j + 1

    def emit_coercibility(self, i: int) -> int:
        """COERCIBILITY(x) at tokens[i], known from x's form as MariaDB answers: 0 for x COLLATE c,
        2 for a column of characters or a user variable, 3 for a system constant (USER(),
        DATABASE() ...), 4 for a string literal, 5 for a number (literal, numeric or temporal
        column), 6 for NULL. Any other x (a function's, whose answer MariaDB derives from its
        arguments') is refused with 1235. A literal's kind decides: the plan is not cached."""
        toks = self.tokens
        j, comma = self.close_of(i)
        if comma is not None or j == i + 2:
            raise self.error_at(comma if comma is not None else j)
        arg = toks[i + 2:j]
        self.cacheable = False
        level: int | None = None
        if len(arg) >= 3 and arg[-2].is_word("COLLATE"):
            level = 0
        elif len(arg) == 1 and arg[0].kind == "param":
            value = self.params[arg[0].param]
            level = 4 if isinstance(value, str | bytes) else 5
        elif len(arg) == 2 and is_introducer(arg[0]) and arg[1].kind == "param":
            level = 4
        elif len(arg) == 1 and arg[0].is_word("NULL"):
            level = 6
        elif len(arg) == 1 and arg[0].is_word("TRUE", "FALSE"):
            level = 5
        elif len(arg) == 1 and arg[0].kind == "var":  # @x
            level = 2
        elif len(arg) == 3 and arg[0].kind == "word" and arg[0].upper in _SYSCONST_CALLS and arg[1].text == "(":
            level = 3
        elif all(t.kind in ("word", "ident") for t in arg[::2]) and all(t.text == "." for t in arg[1::2]) \
                and len(arg) % 2 == 1 and (col := self.named_column([t.text for t in arg[::2]])) is not None:
            level = 2 if col.base in CHAR_TYPES else 5
        if level is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "COERCIBILITY() of this expression")
        self.add_arg(("const", level))
        return j + 1

    def argument_end(self, start: int, end: int) -> int:
        """The index of the ',' at this level ending the argument that begins at tokens[start]
        (`end` for the last)."""
        depth = 0
        for k in range(start, end):
            t = self.tokens[k]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
            elif depth == 0 and t.kind == "op" and t.text == ",":
                return k
        return end

    def emit_charset(self, i: int, word: str) -> int:
        """CHARSET(x) / COLLATION(x) at tokens[i], known from x's form, as MariaDB answers: a
        string literal the connection's (@@character_set_connection, @@collation_connection), a
        _utf8mb4 one utf8mb4's, `x COLLATE utf8mb4_...` that collation; a character column
        utf8mb4 under utf8mb4_general_ci, or utf8mb4_bin (a _bin or BINARY column, JSON), as the
        catalog holds every one (a column declared in another character set answers as it holds
        it, as SHOW FULL COLUMNS does); 'binary' for a number, a time, NULL, a binary string
        (_binary 'x', X'..', BINARY x, CAST(x AS BINARY), a binary column). Any other x (a
        string function's result, whose character set MariaDB takes from its arguments or its
        own, utf8mb3 for USER()) is refused with 1235. A literal's own kind decides, so the plan
        is not cached."""
        toks = self.tokens
        j, comma = self.close_of(i)
        if comma is not None:
            raise self.error_at(comma + 1)
        arg = toks[i + 2:j]
        name = self.charset_of(arg)
        if name is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"{word}() of this expression")
        if name == "connection":
            self.add_arg(("sysvar", "@@character_set_connection" if word == "CHARSET" else "@@collation_connection"))
        else:
            self.add_arg(("const", name.partition("_")[0] if word == "CHARSET" and name != "binary" else name))
        return j + 1

    def charset_of(self, arg: list[Token]) -> str | None:
        """The collation of the expression `arg` for `emit_charset` ('binary' for none,
        'connection' for the connection's), None when not known."""
        self.cacheable = False
        if len(arg) == 1 and arg[0].kind == "param":
            value = self.params[arg[0].param]
            return "connection" if isinstance(value, str) else "binary"
        if len(arg) == 2 and arg[1].kind == "param" and arg[0].is_word("_BINARY", "BINARY", "_UTF8MB4"):
            return "binary" if arg[0].upper != "_UTF8MB4" else "utf8mb4_general_ci"
        if len(arg) >= 3 and arg[-2].is_word("COLLATE") and arg[-1].kind in ("word", "ident"):
            collation = arg[-1].text.lower()
            return collation if collation.startswith("utf8mb4_") and self.charset_of(arg[:-2]) != "binary" else None
        if len(arg) == 1 and arg[0].is_word("NULL", "TRUE", "FALSE"):
            return "binary"
        if len(arg) == 3 and arg[0].kind == "word" and arg[0].upper in _SYSCONST_CALLS and arg[1].text == "(":
            return "utf8mb3_general_ci"  # USER(), DATABASE(), VERSION() ...: MariaDB's utf8mb3 names
        if any(is_introducer(t) and nxt.kind == "param" for t, nxt in zip(arg, arg[1:], strict=False)):
            return None  # (N'x', _latin1'x': a character set this engine does not keep)
        tables = self.statement_tables()
        ct = SelectTypes([], tables).expr_type(arg, self.params, lambda: [""] * len(self.params))
        if ct is None:
            return None
        if ct.charset == CHARSET_BINARY:
            return "binary"
        if ct.origin is not None:  # a table's character column
            schema, _, table, column = ct.origin
            found = self.table_named(schema, table)
            col = found.column(column) if found is not None else None
            if col is not None and col.base in CHAR_TYPES:
                return "utf8mb4_bin" if col.text_binary else "utf8mb4_general_ci"
        return None

    def close_of(self, i: int, is_split=lambda t: t.kind == "op" and t.text == ",") -> tuple[int, int | None]:
        """For the call whose '(' is tokens[i + 1]: (index of its ')', index of the first
        argument-level token that `is_split` accepts, by default the first ',')."""
        toks = self.tokens
        depth, split = 0, None
        j = i + 1
        while j < len(toks):
            t = toks[j]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth == 0:
                    return j, split
            elif depth == 1 and split is None and is_split(t):
                split = j
            j += 1
        raise self.error_at(i)

    def emit_json_args(self, word: str, start: int, stop: int) -> None:
        """The arguments tokens[start:stop] of a call `_JSON_MADE` names, each value that is a
        DECIMAL or DOUBLE expression (`number_kind`) made a JSON number as MariaDB writes it
        (SQLite would quote a DECIMAL, which this engine keeps as its text, and write -1.0 for a
        DOUBLE's -1)."""
        lo = start
        for n, part in enumerate(split_top(self.tokens[start:stop])[0]):
            hi = lo + len(part)  # (the parts are the tokens between the top-level commas)
            if n:
                self.out.append(",")
            value = n % 2 == 1 if word == "JSON_OBJECT" else word == "JSON_ARRAY"
            number = self.number_kind(lo, hi) if value else None
            if number is not None:
                self.out.append("json(mysql_double_text(" if number == "double" else "json(")
            self.emit_range(lo, hi)
            if number is not None:
                self.out.append("))" if number == "double" else ")")
            lo = hi + 1

    def emit_json_edit(self, i: int, word: str) -> int:
        """A call `_JSON_EDITS` names, (doc, path, value, ...) at tokens[i], e.g. JSON_SET:
        `mysql_json_set(kinds, doc, path, value, ...)` (functions.json_edit), `kinds`
        "S" in a strict write (a JSON warning is then the statement's error) and a letter per
        value (`json_value_kind`); inside another JSON function made JSON for SQLite (`json()`), as
        MariaDB inserts the document there. Any other count of arguments is MariaDB's 1582."""
        close, _ = self.close_of(i)
        parts = split_top(self.tokens[i + 2:close])[0]
        if len(parts) < 3 or len(parts) % 2 == 0:
            raise SQLError(ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT, word)
        bounds, lo = [], i + 2
        for part in parts:
            bounds.append((lo, lo + len(part)))
            lo += len(part) + 1
        kinds = ("S" if self.strict_division else "-") + "".join(
            self.json_value_kind(lo, hi) for lo, hi in bounds[2::2])
        as_json = self._in_json or self.in_json_call(i)
        self.out.append(("json(" if as_json else "") + f"mysql_{word.lower()}('{kinds}',")
        # the number literals' texts, as the statement writes them (MariaDB's 1.50, 1e2)
        self.add_arg((WRITTEN, tuple(self.tokens[hi - 1].param if kind in "lm" else -1
                                     for kind, (_, hi) in zip(kinds[1:], bounds[2::2], strict=True))))
        for lo, hi in bounds:
            self.out.append(",")
            self.emit_range(lo, hi)
        self.out.append("))" if as_json else ")")
        return close + 1

    def json_value_kind(self, lo: int, hi: int) -> str:
        """How a JSON function writes the value tokens[lo:hi] into a document: "j" a JSON
        function's document, "b" TRUE / FALSE (true, false), "l" / "m" a literal / a negated
        one (a number literal as written: `WRITTEN`), "d" / "f" a DECIMAL / DOUBLE expression
        (its digits, MariaDB's text of a double), "-" by the value."""
        toks = self.tokens
        first = toks[lo]
        if hi == lo + 1 and first.is_word("TRUE", "FALSE"):
            return "b"
        if toks[hi - 1].kind == "param" and (hi == lo + 1 or hi == lo + 2 and first.text == "-"):
            return "l" if hi == lo + 1 else "m"
        if first.kind == "word" and first.upper in JSON_VALUED and lo + 1 < hi \
                and toks[lo + 1].text == "(" and self.close_of(lo)[0] == hi - 1:
            return "j"
        ct = self.expr_type(lo, hi)
        if ct is None:
            return "-"
        if ct.format_name == "json":  # a JSON column
            return "j"
        return "d" if ct.type == FieldType.NEWDECIMAL else "f" if ct.type in (FieldType.DOUBLE, FieldType.FLOAT) else "-"

    def emit_json_agg(self, i: int, word: str) -> int:
        """JSON_ARRAYAGG(value) / JSON_OBJECTAGG(key, value): `mysql_json_arrayagg(value, kind)` /
        `mysql_json_objectagg(key, value, kind)` (engine.functions), `kind` telling how the value
        is written: "json" when it is a JSON function's document, "decimal" / "double" for such an
        expression, "" by the value. DISTINCT, ORDER BY and LIMIT inside are 1235."""
        toks = self.tokens
        close, comma = self.close_of(i)
        inner = toks[i + 2:close]
        if any(t.is_word("DISTINCT", "ORDER", "LIMIT") for t in inner) \
                or (close + 1 < len(toks) and toks[close + 1].is_word("OVER")):
            raise SQLError(ER_NOT_SUPPORTED_YET, f"{word} with DISTINCT, ORDER BY, LIMIT or OVER")
        if len(split_top(inner)[0]) != (2 if word == "JSON_OBJECTAGG" else 1):
            raise self.error_at(i + 2)  # (MariaDB's grammar has one argument, or two)
        start = i + 2
        self.out.append(f"mysql_{word.lower()}(")
        if comma is not None:
            self.emit_range(start, comma)
            self.out.append(",")
            start = comma + 1
        first = toks[start]
        if first.kind == "word" and first.upper in _JSON_MADE + _JSON_EDITS and start + 1 < close \
                and self.close_of(start)[0] == close - 1:
            kind = "json"
        else:
            kind = self.number_kind(start, close) or ""
        self.emit_range(start, close)
        self.out.append(f", '{kind}')")
        return close + 1

    def number_kind(self, lo: int, hi: int) -> str | None:
        """"decimal" or "double" when tokens[lo:hi] are an expression of that type (a column,
        SUM(c), c * 2 ...), else None. (A float literal's text is taken as its value's repr:
        2.5 a DECIMAL, 1e3 one too.)"""
        ct = self.expr_type(lo, hi)
        if ct is None:
            return None
        if ct.type == FieldType.NEWDECIMAL:
            return "decimal"
        return "double" if ct.type in (FieldType.DOUBLE, FieldType.FLOAT) else None

    def binary_argument(self, i: int) -> bool:
        """Whether the argument of the call at tokens[i] is a binary string (`binary_string`)."""
        return self.binary_string(i + 2, self.close_of(i)[0])

    def binary_string(self, lo: int, hi: int) -> bool:
        """Whether tokens[lo:hi] is a binary string (X'..', _binary '..', a VARBINARY or BLOB
        column, CAST(x AS BINARY), CONCAT of one ...): its literals' kinds (`exact.string_kind`)
        recorded, as a string literal's shape is X'..''s."""
        raw = self.raw_params if self.raw_params is not None else self.params
        for tok in self.tokens[lo:hi]:
            if tok.kind == "param":
                self.string_kinds[tok.param] = string_kind(raw[tok.param])
        ct = self.expr_type(lo, hi)
        return ct is not None and ct.charset == CHARSET_BINARY and ct.type in STRING_CODES

    def expr_type(self, lo: int, hi: int) -> Any:
        """The `ColumnType` of the expression tokens[lo:hi], None when not known."""
        return SelectTypes([], self.statement_tables()).expr_type(
            self.tokens[lo:hi], self.params, lambda: [repr(p) for p in self.params])

    def in_json_call(self, i: int) -> bool:
        """Whether tokens[i] is inside the arguments of a call of a JSON_ function."""
        toks = self.tokens
        depth = 0
        for k in range(i - 1, 0, -1):
            t = toks[k]
            if t.kind == "op" and t.text == ")":
                depth += 1
            elif t.kind == "op" and t.text == "(":
                if depth:
                    depth -= 1
                elif toks[k - 1].kind == "word" and toks[k - 1].upper.startswith("JSON_"):
                    return True
        return False

    def emit_keyword_call(self, i: int, word: str, j: int, at: int) -> int:
        """The SQL-standard forms whose arguments are split by words: POSITION(x IN y) is
        mysql_locate(x, y), EXTRACT(unit FROM x) mysql_extract('unit', x), SUBSTRING(x FROM a
        [FOR b]) mysql_substr(x, a[, b]); tokens[at] is the IN / FROM, tokens[j] the ')'."""
        toks = self.tokens
        if word == "EXTRACT":
            unit = toks[i + 2].upper if at == i + 3 else ""
            if unit not in UNIT_WORDS:
                raise self.error_at(i + 2)
            self.out.append(f"mysql_extract('{unit}', ")
            self.emit_range(at + 1, j)
            self.out.append(")")
            return j + 1
        self.out.append("mysql_locate(" if word == "POSITION" else "mysql_substr(")
        self.emit_range(i + 2, at)
        self.out.append(",")
        if word == "POSITION":
            self.emit_range(at + 1, j)
        else:
            k, depth = at + 1, 0
            while k < j and not (depth == 0 and toks[k].is_word("FOR")):
                depth += {"(": 1, ")": -1}.get(toks[k].text, 0) if toks[k].kind == "op" else 0
                k += 1
            self.emit_range(at + 1, k)
            if k < j:
                self.out.append(",")
                self.emit_range(k + 1, j)
        self.out.append(")")
        return j + 1

    def emit_trim(self, i: int) -> int:
        """TRIM([{BOTH | LEADING | TRAILING}] [remstr] FROM str): `mysql_trim(str, remstr, mode)`,
        which takes whole occurrences of remstr off (SQLite's trim() takes any of its
        characters); TRIM(str) is SQLite's, spaces only as MySQL's."""
        toks = self.tokens
        j, at = self.close_of(i, lambda t: t.is_word("FROM"))
        k = i + 2
        mode = toks[k].upper if k < j and toks[k].is_word("BOTH", "LEADING", "TRAILING") else None
        if at is None and mode is None:
            self.out.append("trim")
            return i + 1
        if at is None or at + 1 >= j:
            raise self.error_at(j if at is None else at)
        k += mode is not None
        self.out.append("mysql_trim(")
        self.emit_range(at + 1, j)
        self.out.append(",")
        if k < at:
            self.emit_range(k, at)
        else:
            self.out.append("' '")
        self.out.append(f", '{mode or 'BOTH'}')")
        return j + 1

    def emit_date_add(self, i: int, sign: int, bare_unit: str = "DAY") -> int:
        """DATE_ADD(d, INTERVAL n unit) / DATE_SUB / ADDDATE(d, n days) / ADD_MONTHS(d, n) (a
        bare n counts `bare_unit`s)."""
        toks = self.tokens
        close, comma = self.close_of(i)
        if comma is None:
            raise self.error_at(i)
        self.out.append("mysql_date_add(")
        self.emit_range(i + 2, comma)
        self.out.append(",")
        if toks[comma + 1].is_word("INTERVAL"):
            unit = toks[close - 1]
            if unit.upper not in UNIT_WORDS:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"INTERVAL unit {unit.text}")
            self.emit_range(comma + 2, close - 1)
        else:
            unit = Token("word", bare_unit)
            self.emit_range(comma + 1, close)
        self.out.append(f", '{unit.upper}', {sign}, {self.date_operand(i + 2, comma)})")
        return close + 1

    def date_operand(self, start: int, end: int) -> int:
        """What date arithmetic's operand tokens[start:end] is, for the digits of its text
        (`functions.date_add`): 1 a literal, 2 a character column of the statement's tables (one
        only by that name), 0 anything else."""
        toks = self.tokens
        if end == start + 1 and toks[start].kind == "param":
            return 1
        names = toks[start:end]
        if len(names) not in (1, 3) or any(t.kind not in ("word", "ident") for t in names[::2]) \
                or len(names) == 3 and names[1].text != ".":
            return 0
        found = [col for alias, table in self.statement_tables()
                 if (len(names) == 1 or alias == names[0].text.lower()) and (col := table.column(names[-1].text))]
        return 2 if len(found) == 1 and found[0].base in _TEXT_COLUMNS else 0

    def emit_interval(self, i: int, end: int, sign: int) -> int:
        """`operand +/- INTERVAL n unit`: wrap the operand already emitted."""
        toks = self.tokens
        out = self.out
        # the operand: the last token, or a balanced (...) group with its function name
        k = len(out) - 1
        balance = 0
        while k >= 0:
            balance += out[k].count(")") - out[k].count("(")
            if balance <= 0:
                break
            k -= 1
        if k < 0:
            raise self.error_at(i)
        if out[k].strip() == "(" and k > 0 and re.match(r"^[\w$]+$", out[k - 1]):
            k -= 1
        while k >= 2 and out[k - 1] == ".":  # qualified column
            k -= 2
        j = i + 2
        depth = 0
        while j < end and not (depth == 0 and toks[j].kind == "word" and toks[j].upper in UNIT_WORDS
                               and j > i + 2):
            if toks[j].kind == "op" and toks[j].text in "()":
                depth += 1 if toks[j].text == "(" else -1
            j += 1
        if j >= end:
            raise self.error_at(i)
        operand = 0
        for start in (i - 1, i - 3):  # a literal or a (qualified) name, as emitted
            if start >= 0 and "".join(out[k:]).replace('"', "").lower() == "".join(
                    "?" if t.kind == "param" else t.text for t in toks[start:i]).lower():
                operand = self.date_operand(start, i)
                break
        out.insert(k, "mysql_date_add(")
        out.append(",")
        self.emit_range(i + 2, j)
        out.append(f", '{toks[j].upper}', {sign}, {operand})")
        return j + 1

    def emit_quantified(self, i: int, any_row: bool) -> int:
        """`x op ANY (SELECT ...)` (SOME) / `x op ALL (SELECT ...)`, toks[i] its ANY / ALL, x and
        op already emitted: a subquery over the SELECT's rows v with x's comparison to each,
        answered as MySQL's three-valued quantifier (ANY: 1 when one comparison is true, 0 when
        none is or there is no row, else NULL; ALL: 0 when one is false, 1 when all are true or
        there is no row, else NULL). x moves after the SELECT, with its arguments."""
        out, toks = self.out, self.tokens
        op = out.pop()
        k, depth = len(out), 0
        while k > 0:  # x: back to the boolean operator, clause word, ',' or '(' before it
            piece = out[k - 1]
            if piece == ")":
                depth += 1
            elif piece == "(" or piece.endswith("("):
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (piece == "," or piece.upper() in _QUANTIFIED_BOUNDARY):
                break
            k -= 1
        if k == len(out):
            raise self.error_at(i - 1)
        operand = out[k:]
        del out[k:]
        count = sum(piece.count("?") for piece in operand)
        operand_args = self.args[len(self.args) - count:] if count else []
        del self.args[len(self.args) - count:]
        close = skip_parens(toks, i + 1)
        name = f"_quantified{i}"
        out.append(f"(WITH {name}(v) AS (")
        self.emit_range(i + 2, close - 1)
        out.append(f"), {name}_c(c) AS (SELECT (")
        out.extend(operand)
        self.args.extend(operand_args)
        out.append(f") {op} v FROM {name}) SELECT CASE")
        out.append("WHEN SUM(c) > 0 THEN 1 WHEN COUNT(*) = COUNT(c) THEN 0 END" if any_row else
                   "WHEN MIN(c) = 0 THEN 0 WHEN COUNT(*) = COUNT(c) THEN 1 END")
        out.append(f"FROM {name}_c)")
        return close

    def emit_count_distinct(self, i: int) -> int:
        """COUNT(DISTINCT e1, e2 ...) at tokens[i]: SQLite's DISTINCT aggregates take one
        argument, so each row's values become one (`mysql_distinct_key`), told which of them
        compare by their bytes (a _bin or binary string; the others, strings under
        utf8mb4_general_ci, by their weights)."""
        close, _ = self.close_of(i)
        k = i + 3
        parts, _ = split_top(self.tokens[k:close])
        compared = []
        for part in parts:
            if not part:  # `COUNT(DISTINCT a, )`
                raise self.error_at(k)
            ct = self.expr_type(k, k + len(part))
            compared.append("b" if ct is not None and ct.type in STRING_CODES and (
                ct.is_binary_string or ct.flags & ColumnFlag.BINARY) else "c")
            k += len(part) + 1
        if close + 1 < len(self.tokens) and self.tokens[close + 1].is_word("OVER"):
            raise SQLError(ER_NOT_SUPPORTED_YET, "COUNT(DISTINCT) aggregate as window function")
        self.out.append(f"count(DISTINCT mysql_distinct_key('{''.join(compared)}'")
        k = i + 3
        for part in parts:
            self.out.append(",")
            self.emit_range(k, k + len(part))
            k += len(part) + 1
        self.out.append("))")
        return close + 1

    def emit_group_concat(self, i: int) -> int:
        """GROUP_CONCAT([DISTINCT] e [, e ...] [ORDER BY k [ASC|DESC] ...] [SEPARATOR s]): SQLite's
        group_concat() for one value in any order; with DISTINCT and a separator, or an ORDER BY
        (SQLite 3.40 has neither), `mysql_group_concat` (engine.functions); several values are
        CONCAT()ed (a row with a NULL among them is skipped, as MySQL skips it)."""
        toks = self.tokens
        close, _ = self.close_of(i)
        k = i + 2
        distinct = toks[k].is_word("DISTINCT")
        k += distinct
        parts, _ = split_top(toks[k:close])
        values: list[tuple[int, int]] = []
        keys: list[tuple[int, int, bool]] = []
        separator: tuple[int, int] | None = None
        in_keys = False
        for part in parts:
            start = k
            k += len(part) + 1  # the part and its comma
            stops = [n for n, t in enumerate(part) if t.is_word("ORDER", "SEPARATOR")]
            spans, at = [], 0
            for n in [*stops, len(part)]:
                spans.append((start + at, start + n))
                at = n + (2 if n < len(part) and part[n].is_word("ORDER") else 1)
            for n, (a, b) in enumerate(spans):
                if n and toks[a - 1].is_word("SEPARATOR"):
                    separator = (a, b)
                    continue
                if n and toks[a - 1].is_word("BY"):
                    in_keys = True
                if in_keys:
                    desc = b - 1 >= a and toks[b - 1].is_word("DESC")
                    keys.append((a, b - (desc or (b - 1 >= a and toks[b - 1].is_word("ASC"))), desc))
                else:
                    values.append((a, b))
        if not values or any(a >= b for a, b in values + [(a, b) for a, b, _ in keys]):
            raise self.error_at(i)
        if not keys and not (distinct and separator):
            self.out.append("group_concat(" + ("DISTINCT " if distinct else ""))
            self.emit_concat(values)
            if separator is not None:
                self.out.append(",")
                self.emit_range(*separator)
            self.out.append(")")
            return close + 1
        self.out.append("mysql_group_concat(")
        self.emit_concat(values)
        self.out.append(",")
        if separator is not None:
            self.emit_range(*separator)
        else:
            self.out.append("','")
        flags = ("D" if distinct else "-") + "".join("d" if desc else "a" for _, _, desc in keys)
        self.out.append(f", '{flags}'")
        for a, b, _ in keys:
            self.out.append(",")
            self.emit_range(a, b)
        self.out.append(")")
        return close + 1

    def emit_concat(self, spans: list[tuple[int, int]]) -> None:
        if len(spans) > 1:
            self.out.append("concat(")
        for n, (a, b) in enumerate(spans):
            if n:
                self.out.append(",")
            self.emit_range(a, b)
        if len(spans) > 1:
            self.out.append(")")

    def emit_routine_value(self, i: int, word: str) -> int:
        """`routines.expand_calls`' markers: mysql_returned(value, `type`) the value (typed by
        `exprtypes`), mysql_assigned(value, `name`, `type` [, strict | lax]) a value stored
        as into a column of the declared type under the statement's sql_mode, or the one said
        (`values.target`: strict, 1406 for a string too long, as MariaDB's)."""
        j, split = self.close_of(i)
        toks = self.tokens
        key = mode = None
        if word == "MYSQL_ASSIGNED":
            mode = toks[j - 1] if toks[j - 1].kind == "word" else None  # (strict | lax: the routine's)
            key = routines.assigned_target(toks[split + 1].text.strip("`"), toks[j - (1 if mode is None else 3)].text.strip("`"),
                                           mode.is_word("LAX") if mode else bool(self.write_mode & LAX_VALUES))
        # (the value returned: its errors and warnings name row 0, as a trigger's SET NEW.col's)
        self.out.append("(" if key is None else "mysql_store((" if mode is None else "mysql_store_assigned((")
        self.emit_range(i + 2, split)
        self.out.append(")" if key is None else "), '" + key.replace("'", "''") + "')")
        return j + 1

    def emit_cast(self, i: int, word: str) -> int:
        toks = self.tokens
        # the matching ')' and the AS (CAST) or ',' / USING (CONVERT) between the arguments
        j, split = self.close_of(i, lambda t: t.is_word("AS") if word == "CAST"
                                 else (t.text == "," or t.is_word("USING")))
        if split is None:
            raise self.error_at(i)
        if toks[split].is_word("USING"):
            self.out.append("(")
            self.emit_range(i + 2, split)
            self.out.append(")")
            return j + 1
        target = toks[split + 1].upper
        if target not in CAST_TYPES:
            raise self.error_at(split + 1)
        if target in ("SIGNED", "UNSIGNED", "INTEGER", "INT") and (  # (engine.exact's, untyped)
                split + 2 == j or split + 3 == j and toks[split + 2].is_word("INTEGER", "INT")):
            self.out.append("mysql_cast_int(")
            self.emit_range(i + 2, split)
            self.out.append(f", '', {int(target == 'UNSIGNED')})")
            return j + 1
        if target.lower() in FIXEDBIN_TYPES and split + 2 == j:  # its canonical text, under its collation
            # (a binary string read as its bytes: X'0a000002' is 10.0.0.2, SQLite holds it as text)
            binary = self.binary_string(i + 2, split)
            self.out.append("(mysql_fixedbin_cast(" + ("CAST(" if binary else ""))
            self.emit_range(i + 2, split)
            self.out.append((" AS BLOB)" if binary else "") + f", '{target.lower()}') "
                            f"COLLATE {fixedbin.COLLATIONS[target.lower()]})")
            return j + 1
        size = toks[split + 3] if split + 5 == j and toks[split + 2].text == "(" else None
        if size is not None and size.kind != "param":
            raise self.error_at(split + 3)
        if target in ("DATE", "DATETIME", "TIME"):  # MariaDB's reading of the value, NULL if none
            self.out.append("mysql_cast_temporal(")
            self.emit_range(i + 2, split)
            self.out.append(f", '{target.lower()}', ")
            if size is None:
                self.out.append("0")
            else:
                self.add_arg(size.param)
            self.out.append(")")
            return j + 1
        # a DOUBLE as MariaDB writes it (functions.double_text), for characters or their bytes
        text = CAST_TYPES[target] in ("TEXT", "BLOB")
        if size is not None and target in ("CHAR", "NCHAR", "BINARY"):  # CHAR(n): its first n characters
            self.out.append("substr(CAST(" + ("mysql_double_text(" if text else ""))
            self.emit_cast_operand(i + 2, split, target)
            self.out.append((")" if text else "") + f" AS {CAST_TYPES[target]}), 1, ")
            self.add_arg(size.param)
            self.out.append(")")
            return j + 1
        self.out.append("CAST(" + ("mysql_double_text(" if text else ""))
        self.emit_cast_operand(i + 2, split, target)
        self.out.append((")" if text else "") + " AS " + CAST_TYPES[target] + ")")
        return j + 1

    def emit_cast_operand(self, lo: int, hi: int, target: str) -> None:
        """CAST's operand tokens[lo:hi] to a string `target`: a BIT column as its bytes (b'1000001'
        is 'A', as MariaDB's Field_bit gives them), a column of latin1 (cp1251, ...) to BINARY
        as its bytes in that character set; anything else as written."""
        col = self.column_at(lo, 1) if target in ("CHAR", "NCHAR", "BINARY") else None
        end = lo + 1
        while end + 1 < hi and self.tokens[end].text == ".":
            end += 2
        if col is None or end != hi:
            self.emit_range(lo, hi)
        elif col.base == "bit":
            self.out.append("mysql_bit_bytes(")
            self.emit_range(lo, hi)
            self.out.append(f", {int(col.args[0]) if col.args else 1}, {int(target != 'BINARY')})")
        elif target == "BINARY" and col.charset in CHARSETS and CHARSETS[col.charset].converts:
            self.out.append("mysql_charset_bytes(")
            self.emit_range(lo, hi)
            self.out.append(f", '{col.charset}')")
        else:
            self.emit_range(lo, hi)

    # --- statements --------------------------------------------------------------------------

    def table_named(self, schema: str | None, name: str) -> Table | None:
        """The table `[schema.]name` the statement names (its database by default;
        information_schema's views, the `mysql` tables the server shell answers and
        performance_schema's tables too), or None."""
        schema = schema or self.database
        if schema is not None and schema.lower() == infoschema.NAME:
            return infoschema.table(name)
        if schema in self.schemas:
            return self.catalog(schema, name)
        if schema is not None and schema.lower() == infoschema.MYSQL:
            return infoschema.mysql_table(name)
        return perfschema.table(name) if schema is not None and schema.lower() == perfschema.NAME else None

    def table_or_view(self, schema: str | None, name: str) -> Table | Derived | None:
        """`table_named`, or a view as the derived table of its SELECT (`exprtypes.derived`,
        typed with the view's own literals, in its own database, its joined stars expanded), so
        that a view's result columns are typed as its SELECT's (not from its rows)."""
        table = self.table_named(schema, name)
        if table is not None:
            return table
        schema = schema or self.database
        view = self.view_of(schema, name) if schema in self.schemas else None
        if view is None or (view.schema, view.name.lower()) in self.expanding:
            return None
        sub, literals = self.sub_translator(view.select, view.schema, (*self.expanding, (view.schema, view.name.lower())))
        found = derived(sub.tokens, sub.table_or_view, (literals, lambda: literal_texts(view.select)))
        found.view = view
        if view.columns:  # CREATE VIEW v (a, b) AS ...: its own names
            found.names = list(view.columns) if found.names is None or len(found.names) == len(view.columns) else None
        return found

    def view_table(self, schema: str, name: str) -> Table:
        """The view `schema`.`name`'s stand-in table, its columns described from its SELECT's
        result types (`viewcols`); `viewcols.Unknown` where they cannot be told as MariaDB's."""
        view = self.view_of(schema, name)
        found = self.table_or_view(schema, name)
        if view is None or not isinstance(found, Derived) or found.select is None or found.literals is None:
            raise viewcols.Unknown
        branches = found.select.branches if isinstance(found.select, UnionTypes) else [found.select]
        if any(branch.outer is None for branch in branches):
            raise viewcols.Unknown  # (a parenthesized join beside an outer join: its NULLs not told)
        types = list(found.select.types(*found.literals))  # (a copy: the typing keeps its own)
        through: list[Column | None] = [None] * len(types)
        copied: list[bool] = []
        if isinstance(found.select, SelectTypes):
            tables, items = found.select.tables, found.select.items
            through = []
            for item in items:
                first = len(through)
                if item[-1].text == "*" and (len(item) == 1 or item[-2].text == "."):
                    through += self.star_columns(tables, item)
                else:
                    through.append(self.through_view(tables, item) if is_name(item) else None)
                origins = derived_origins(tables, item, found.literals) if is_name(item) or item[-1].text == "*" else []
                for k, origin in zip(range(first, min(len(through), len(types))), origins, strict=False):
                    if origin is not None and types[k] is not None:  # (a derived table's column: its table's)
                        types[k] = replace(types[k], origin=origin)
                copied += [False] * (len(through) - first - 1) + [viewcols.copies_argument(item)]
        return viewcols.stand_in(view.schema, view.name, found.names, types, self.catalog, through, copied)

    def through_view(self, tables: list[tuple[str, Table | Derived]], item: list[Token]) -> Column | None:
        """The stand-in column of the view among `tables` (the FROM tables by alias) that the
        column name `item` reads (None: none)."""
        names = [tok.text for tok in item[::2]]
        for alias, table in tables:
            if not isinstance(table, Derived) or table.view is None or (len(names) > 1 and alias != names[-2].lower()):
                continue
            k = table.index(names[-1].lower())
            if k is not None:
                return self.view_table(table.view.schema, table.view.name).columns[k]
        return None

    def star_columns(self, tables: list[tuple[str, Table | Derived]], item: list[Token]) -> list[Column | None]:
        """What `*` or `t.*` over `tables` gives `viewcols.stand_in`: a view's its stand-in
        columns, None for any other table's (their types tell them)."""
        out: list[Column | None] = []
        for alias, table in tables:
            if len(item) > 1 and alias != item[0].text.lower():
                continue
            if isinstance(table, Derived) and table.view is not None:
                out += self.view_table(table.view.schema, table.view.name).columns
            elif isinstance(table, Derived):
                out += [None] * len(table.names or ())
            else:
                out += [None] * len(table.columns)
        return out

    def tables_and_views(self, schema: str) -> list[Table]:
        """information_schema.COLUMNS' tables of `schema`: its tables and its views' stand-ins
        (a view whose columns cannot be told lists none)."""
        tables = list(self.column_tables(schema))
        for view in self.views_in(schema):
            try:
                tables.append(self.view_table(view.schema, view.name))
            except viewcols.Unknown:
                pass
        return tables

    def expand_joined_stars(self) -> None:
        """A bare `*` of a SELECT (any, subqueries too) whose FROM joins with NATURAL or USING
        becomes that join's columns in MySQL's order (`exprtypes.joined_columns`): SQLite lists
        every table's columns in turn, a USING column once where its left table has it."""
        toks = self.tokens
        for k in range(len(toks) - 1, -1, -1):
            found = select_items(toks[k:]) if toks[k].is_word("SELECT") else None
            if found is None or not any(len(item) == 1 and item[0].text == "*" for item in found[0]):
                continue
            columns = joined_columns(toks, k + found[1], self.table_named)
            if columns is None:
                continue
            for item in found[0]:
                if len(item) != 1 or item[0].text != "*":
                    continue
                star = item[0]
                at = next(n for n in range(k, len(toks)) if toks[n] is star)
                expanded: list[Token] = []
                for alias, column in columns:
                    if expanded:
                        expanded.append(Token("op", ",", -1, star.start, star.end))
                    expanded += [Token("ident", alias, -1, star.start, star.end), Token("op", ".", -1, star.start, star.end),
                                 Token("ident", column, -1, star.start, star.end)]
                toks[at:at + 1] = expanded

    def plan(self) -> Plan:
        self.read_hybrids()
        self.value_as_values()
        if self.tokens and (self.tokens[0].is_word("SELECT", "WITH") or self.tokens[0].text == "("):
            self.take_into()
        if any(t.is_word("VALUES") for t in self.tokens):
            self.values_as_selects()
        self.query_forms()
        self.expand_joined_stars()
        self.check_column_names()
        self.check_fixedbin_operands()
        toks = self.tokens
        if any(t.kind == "op" and t.text == ":=" for t in toks):
            for k, t in enumerate(toks[:-1]):
                if t.kind == "var" and toks[k + 1].kind == "op" and toks[k + 1].text == ":=":
                    self.assigned_vars.setdefault(t.text.lower(), []).append(k)
        first = toks[0].upper if toks else ""
        if first in ("SELECT", "WITH") or (self.tokens and self.tokens[0].text == "("):
            if self.assigned_vars:
                self.check_assignment_order()
            return self.plan_select()
        if self.assigned_vars:
            # a write's rows would depend on the order each server evaluates them in, which a
            # statement-format binlog does not carry: refused rather than replicated apart
            raise SQLError(ER_NOT_SUPPORTED_YET, "assigning a user variable (@x := ...) in a statement that writes")
        if first in ("INSERT", "REPLACE"):
            self.split_returning()
            return self.plan_insert()
        if first == "UPDATE":
            return self.plan_update()
        if first == "DELETE":
            self.split_returning()
            return self.plan_delete()
        raise self.error_at(0)

    def take_into(self) -> None:
        """SELECT ... INTO @a, @b (after the select list, or last): the user variables the
        session sets from the one row (`Plan.into_vars`); the clause's tokens are dropped, the
        rest planned as the SELECT it is. INTO OUTFILE / DUMPFILE (a file on the server) raise
        `IntoFile`, which the server shell answers by writing the file."""
        toks, depth = self.tokens, 0
        for k, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("INTO"):
                j = k + 1
                if j < len(toks) and toks[j].is_word("OUTFILE", "DUMPFILE"):
                    raise IntoFile(toks[j].upper)
                names: list[str] = []
                while j < len(toks) and toks[j].kind == "var":
                    names.append(toks[j].text)
                    j += 1
                    if not (j + 1 < len(toks) and toks[j].text == "," and toks[j + 1].kind == "var"):
                        break
                    j += 1
                if not names:  # INTO a stored program's local variable: there are none here
                    raise self.error_at(j)
                self.tokens = toks[:k] + toks[j:]
                self.into_vars = tuple(names)
                return

    def split_returning(self) -> None:
        """A depth-0 RETURNING ends the write proper: its planner sees the tokens before it, and
        `finish` plans the list (`plan_returning`)."""
        depth = 0
        for k, t in enumerate(self.tokens):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("RETURNING"):
                self.returning_at = k
                self.full_tokens = [*self.tokens[:k], Token("word", "SELECT", -1, t.start, t.end),
                                    *self.tokens[k + 1:]]
                self.tokens = self.tokens[:k]
                self.tokens_changed()
                return

    def tokens_changed(self) -> None:
        """What was read from the tokens, read again from the tokens now there."""
        self._finder = None
        self._openers = self._named = self._select_list_end = None
        self._lists = {}

    def plan_returning(self, target: tuple[str, str], ordered: bool = False, auto: Column | None = None) -> Plan:
        """INSERT/REPLACE/DELETE ... RETURNING select_list (MariaDB 10.5+): SQLite's own RETURNING,
        which yields the rows as written (an INSERT IGNORE's skipped rows left out, an upsert's
        updated row, a DELETE's removed rows). The list is read as `SELECT select_list FROM
        target`: typed, named and computed exactly as that SELECT, which (with LIMIT 0) also
        describes the result without writing. As MariaDB: no subquery of an INSERT's list may read
        its target (1093); a DELETE's may."""
        ret = self.returning_at
        assert ret is not None
        self.tokens = toks = self.full_tokens
        self.tokens_changed()
        schema, name = target
        table = self.need_table(schema, name)
        ref = self.target_alias or table.name
        found = select_items(toks[ret:])
        if found is None or ret + found[1] != len(toks) or not any(found[0]):
            raise self.error_at(ret + (found[1] if found else 1))
        froms = [k for k in range(ret + 1, len(toks)) if toks[k].is_word("FROM")]
        for k in froms if toks[0].is_word("INSERT", "REPLACE") else ():
            for _, read in from_tables(toks, k, lambda s, n: self.catalog(s or self.database, n)):
                if read.schema == table.schema and read.name.lower() == table.name.lower():
                    raise SQLError(ER_UPDATE_TABLE_USED, table.name, "INSERT")
        types = SelectTypes(split_select(toks[ret:])[0], [(ref.lower(), table)], self.statement_tables())
        self.select_exact(self.finder(), ret)
        names: list[object] = []  # a wildcard is the table's columns, named by SQLite
        for item in found[0]:
            wild = item[-1].text == "*"
            names += [None] * len(table.columns) if wild else self.select_names([toks[ret], *item]) or [None]
        for k in range(ret + 1, len(toks) - 2):  # SQLite's RETURNING knows the table by its name only
            if toks[k].kind not in ("word", "ident") or toks[k].text.lower() != ref.lower() or toks[k + 1].text != ".":
                continue
            if toks[k - 1].text == "." and k - 2 > ret and toks[k - 2].text == table.schema:
                toks[k - 2] = toks[k - 1] = Token("op", "")  # db.t.col: the database's name dropped
            if toks[k - 1].text != ".":
                toks[k] = Token("ident", table.name, -1, toks[k].start, toks[k].end)
        self.out.append("RETURNING")
        out_at, args_at = len(self.out), len(self.args)
        k = ret + 1
        for n, item in enumerate(found[0]):
            if n:
                self.out.append(",")
                k += 1
            if len(item) > 1 and item[-1].text == "*":  # t.*: SQLite's RETURNING takes `*` only
                self.out.append("*")
            elif self.emit_range(k, k + len(item)) != k + len(item):
                raise self.error_at(k)
            k += len(item)
        listed = " ".join(self.out[out_at:])
        if ordered:
            self.out.append(", rowid")  # the rows' order is restored by the engine
        if auto is not None:
            self.out.append(f", {quote_ident(auto.name)}")  # each row's id (`Plan.ids_returned`)
        return Plan(kind="select", sql=f"SELECT {listed} FROM {self.table_sql(schema, table.name)} AS "
                    f"{quote_ident(table.name)} LIMIT 0", args=self.args[args_at:],
                    names=names if any(n is not None for n in names) else None, result_types=types)

    def finish(self, kind: str, **kw) -> Plan:
        auto = self.need_table(*kw["target"]).auto_column if kw.get("ids_returned") else None
        if self.returning_at is not None:
            kw["returning"] = self.plan_returning(kw["target"], "returning_order" in kw, auto)
        elif auto is not None:
            self.out.append(f"RETURNING {quote_ident(auto.name)}")
        args = self.args
        identity = len(args) == len(self.params) and all(a == n for n, a in enumerate(args)) and not self.hybrids
        if self.hybrids or HYBRID_MARK in self.shape:  # (a text writing the mark: `lexer`'s header)
            self.kinds.update((n, literal_kind(p)) for n, p in enumerate(self.raw_params))
            kw.setdefault("hybrids", tuple(sorted(self.hybrids.items())) if self.hybrids else ())
        kw.setdefault("user_vars", tuple(dict.fromkeys(a[1] for a in args if type(a) is tuple and a[0] == "var")))
        kw.setdefault("sysvars", any((type(a) is tuple and a[0] == "sysvar") or a == USER or a == CURRENT_USER
                                     for a in args))
        if kind == "write":
            kw.setdefault("unsafe", self.unsafe(kw))
            # MariaDB runs an UPDATE whose subquery reads its target as a multi-table one
            kw.setdefault("notes_after_info", kw.get("multi") is not None or (
                self.tokens[0].is_word("UPDATE") and kw.get("target") is not None
                and (kw["target"][0], kw["target"][1].lower()) in self.tables_named))
            kw.setdefault("generated_ignored", tuple(self.generated_ignored))
        return Plan(kind=kind, sql=" ".join(self.out), args=args, identity=identity,
                    uses_last_id=self.uses_last_id, uses_rand=self.uses_rand, uses_fraction=self.uses_fraction,
                    into_vars=self.into_vars,
                    auto_dirty=self.auto_dirty, cacheable=self.cacheable,
                    sets_last_id=self.sets_last_id, upsert=self.upsert, calc_found=self.calc_found,
                    literal_kinds=tuple(sorted({**self.kinds, **self.string_kinds}.items())),
                    charset_contexts=self.charset_contexts,
                    introduced=tuple(self.introduced.items()), **kw)

    def unsafe(self, kw: dict) -> tuple[str, ...]:
        """The notes 1592 of the write `finish` makes a plan of (its keywords `kw`): what the
        tokens tell (`unsafe_notes`), with what the tables do: an ON DUPLICATE KEY UPDATE
        target's unique keys, and whether a target with an AUTO_INCREMENT column is written
        while the statement reads a table (MariaDB's lock types: a table read that no
        multi-table write's target is, a subquery's or an INSERT ... SELECT's, the target
        itself in one)."""
        multi = kw.get("multi")
        written = [(t.schema, t.name) for t in multi.targets] if multi is not None else \
            [kw["target"]] if kw.get("target") else []
        tables = [self.need_table(*target) for target in written]
        keys = sum(index.primary or index.unique for index in tables[0].indexes) if self.upsert and tables else 0
        joined = len(written) if multi is not None else self.joined_targets
        autoinc = self.tables_read > joined and any(table.auto_column is not None for table in tables)
        return unsafe_notes(self.tokens, keys, selects=bool(kw.get("selects")), autoinc_select=autoinc)

    def plan_select(self) -> Plan:
        self.read_hybrids()
        if any(t.is_word("ROLLUP") and self.tokens[n - 1].is_word("WITH") for n, t in enumerate(self.tokens) if n):
            return self.plan_rollup()
        types = self.select_types()
        self.having_aliases()
        finder = self.finder()
        finder.alias_names.update(self.alias_at)  # (a HAVING's alias is no ENUM column of that name)
        self.select_exact(finder, 0)
        self.having_as_where()
        end = self.emit_range(0, len(self.tokens))
        if end != len(self.tokens):
            raise self.error_at(end)
        self.close_spliced(end)
        return self.finish("select", names=self.select_names(self.named_select()), locking=self.locking,
                           lock_wait=self.lock_wait, result_types=types)

    def plan_rollup(self) -> Plan:
        """SELECT ... GROUP BY g1, ..., gn WITH ROLLUP [HAVING h] [LIMIT ...] as MariaDB answers
        it: the statement made again as a UNION ALL of its groupings by g1..gk (k = n .. 0), each
        select item and HAVING reading NULL for a group expression rolled up (outside aggregate
        calls), in the order MariaDB gives the rows (by g1, its super-aggregate row after its
        group's rows, then g2 ...; the grand total last; none over no rows); the rewritten text
        is translated as a view's is. With ORDER BY it is MariaDB's 1221; another shape 1235."""
        toks = self.tokens
        marks: dict[str, int] = {}
        depth = 0
        for k, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.kind == "word" and t.upper in ("FROM", "GROUP", "WITH", "HAVING", "ORDER", "LIMIT",
                                                                 "UNION", "INTO", "FOR", "LOCK", "WINDOW"):
                marks.setdefault(t.upper, k)
        if "ORDER" in marks:
            raise SQLError(ER_WRONG_USAGE, "CUBE/ROLLUP", "ORDER BY")
        found = select_items(toks)
        group, with_at = marks.get("GROUP"), marks.get("WITH")
        if (found is None or group is None or with_at is None or "FROM" not in marks or not toks[group + 1].is_word("BY")
                or {"UNION", "INTO", "FOR", "LOCK", "WINDOW"} & marks.keys() or with_at + 2 != marks.get(
                    "HAVING", marks.get("LIMIT", len(toks)))):
            raise SQLError(ER_NOT_SUPPORTED_YET, "WITH ROLLUP in this statement")
        items, _ = found
        exprs = [drop_alias(item) for item in items]
        groups = []
        for part in split_top(toks[group + 2:with_at])[0]:
            part = [t for t in part if not t.is_word("ASC", "DESC")]
            if len(part) == 1 and part[0].kind == "param" and isinstance(self.params[part[0].param], int):
                part = exprs[int(self.params[part[0].param]) - 1]  # GROUP BY 2: the second item
            elif len(part) == 1 and part[0].kind in ("word", "ident"):  # an item's alias
                part = next((e for item, e in zip(items, exprs, strict=True) if len(e) < len(item)
                             and item[-1].text.lower() == part[0].text.lower()), part)
            groups.append(part)
        having = toks[marks["HAVING"] + 1:marks.get("LIMIT", len(toks))] if "HAVING" in marks else []
        limit = toks[marks["LIMIT"]:] if "LIMIT" in marks else []
        source = self.written(toks[marks["FROM"]:group])
        names = self.select_names()
        branches = []
        for level in range(len(groups), -1, -1):
            rolled = groups[level:]
            cells = [f"{self.written(self.rolled_up(e, rolled))} AS `_r{n}`" for n, e in enumerate(exprs)]
            cells += [f"{'NULL' if n >= level else self.written(g)} AS `_g{n}`" for n, g in enumerate(groups)]
            branch = f"SELECT {', '.join(cells)}, {level} AS `_l` {source}"
            if level:
                branch += " GROUP BY " + ", ".join(self.written(g) for g in groups[:level])
            conditions = ([f"({self.written(self.rolled_up(having, rolled))})"] if having else []) + (
                [] if level else ["COUNT(*) > 0"])
            if conditions:
                branch += " HAVING " + " AND ".join(conditions)
            branches.append(branch)
        shown = []
        for n, item in enumerate(items):
            name = names[n] if names and isinstance(names[n], str) else None
            if name is None:
                name = item[-1].text if len(exprs[n]) < len(item) else self.written(item)
            shown.append(f"`_r{n}` AS `{str(name).replace('`', '``')}`")
        order = ", ".join(f"`_l` < {n + 1}, `_g{n}`" for n in range(len(groups)))
        sql = (f"SELECT {', '.join(shown)} FROM ({' UNION ALL '.join(branches)}) AS `_rollup` ORDER BY {order} "
               + self.written(limit))
        plan = self.translated(sql, self.database, self.expanding)
        plan.identity, plan.cacheable, plan.literal_kinds = False, False, ()
        plan.result_types = self.select_types()  # the statement's own columns, as without ROLLUP
        return plan

    def rolled_up(self, tokens: list[Token], rolled: list[list[Token]]) -> list[Token]:
        """`tokens` with each of the `rolled` group expressions read NULL, outside aggregate calls."""
        keys = [[(t.kind, t.text.lower(), self.params[t.param] if t.kind == "param" else None) for t in g]
                for g in rolled]
        out: list[Token] = []
        k, depth_in_aggregate, depth = 0, None, 0
        while k < len(tokens):
            t = tokens[k]
            if t.kind == "op" and t.text == "(":
                depth += 1
            elif t.kind == "op" and t.text == ")":
                depth -= 1
                if depth_in_aggregate is not None and depth < depth_in_aggregate:
                    depth_in_aggregate = None
            if depth_in_aggregate is None and t.kind == "word" and t.upper in AGGREGATE_CALLS \
                    and k + 1 < len(tokens) and tokens[k + 1].text == "(":
                depth_in_aggregate = depth + 1
            if depth_in_aggregate is None:
                hit = next((key for key in keys if [(x.kind, x.text.lower(), self.params[x.param] if x.kind == "param"
                                                     else None) for x in tokens[k:k + len(key)]] == key), None)
                if hit is not None:
                    out.append(Token("rolled", "NULL", start=t.start, end=tokens[k + len(hit) - 1].end))
                    k += len(hit)
                    continue
            out.append(t)
            k += 1
        return out

    def written(self, tokens: list[Token]) -> str:
        """`tokens` as MySQL text, spaced as the statement has them, their literals written out."""
        pieces = []
        for n, t in enumerate(tokens):
            if n:
                pieces.append(self.shape[tokens[n - 1].end:t.start] if tokens[n - 1].end <= t.start else " ")
            if t.kind == "param":
                value = self.params[t.param]
                pieces.append(mysql_literal(value))
            elif t.kind == "rolled":  # a rolled-up group expression (`rolled_up`)
                pieces.append("NULL")
            else:
                pieces.append(self.shape[t.start:t.end] if t.end > t.start else t.text)
        return "".join(pieces)

    def main_select(self) -> list[Token]:
        """The statement's tokens from the SELECT that gives its rows: past a WITH's common
        table expressions (whose own SELECTs are inside parentheses)."""
        toks = self.tokens
        if not toks or not toks[0].is_word("WITH"):
            return toks
        depth = 0
        for k, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("SELECT"):
                return toks[k:]
        return toks

    def named_select(self) -> list[Token]:
        """`main_select`, past the `SELECT * FROM (` of a first member `query_forms` read as a
        derived table: the bracketed query's own items name the columns, as MariaDB's."""
        toks = self.main_select()
        while toks and id(toks[0]) in self.bracket_wrappers:
            toks = toks[4:]
        return toks

    def having_aliases(self) -> None:
        """MySQL's names in HAVING: a bare name of a select-list alias is that alias, even where
        a column of the statement's tables has the name (SQLite would read the column: such a
        name is replaced by the aliased expression), unless GROUP BY names it too (then the
        column, as MySQL prefers). Recorded in `alias_at` for each SELECT's HAVING (its own
        depth and the calls there, not its subqueries)."""
        toks = self.tokens
        if not any(t.is_word("HAVING") for t in toks):
            return
        index = {id(t): k for k, t in enumerate(toks)}
        columns = {c.name.lower() for _, table in self.statement_tables() for c in table.columns}
        for items, end in _selects(toks):
            aliases: dict[str, tuple[int, int]] = {}
            for item in items:
                expr = drop_alias(item)
                if expr and len(expr) < len(item) and item[-1].kind in ("word", "ident") \
                        and item[-1].text.lower() in columns:  # (else SQLite reads the alias too)
                    aliases[item[-1].text.lower()] = (index[id(expr[0])], index[id(expr[-1])] + 1)
            if not aliases:
                continue
            grouped: set[str] = set()
            clause, depth, k = None, 0, end
            while k < len(toks):
                tok = toks[k]
                if tok.kind == "op" and tok.text == "(":
                    if k + 1 < len(toks) and toks[k + 1].is_word("SELECT"):  # a subquery: its own names
                        try:
                            k = skip_parens(toks, k)
                        except Unknown:
                            break
                        continue
                    depth += 1
                elif tok.kind == "op" and tok.text == ")":
                    if depth == 0:
                        break  # the end of this SELECT's parentheses
                    depth -= 1
                elif depth == 0 and tok.is_word("GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "WINDOW", "FOR",
                                                 "LOCK", "INTO", "EXCEPT", "INTERSECT") and not within_group(toks, k):
                    clause = tok.upper
                    if clause in ("UNION", "EXCEPT", "INTERSECT"):
                        break
                elif tok.kind in ("word", "ident") and clause in ("GROUP", "HAVING") \
                        and not (k and toks[k - 1].text == ".") \
                        and not (k + 1 < len(toks) and toks[k + 1].text in (".", "(")):
                    name = tok.text.lower()
                    if clause == "GROUP":
                        grouped.add(name)
                    elif name in aliases and name not in grouped:
                        self.alias_at[k] = aliases[name]
                k += 1

    def having_as_where(self) -> None:
        """HAVING without GROUP BY in a SELECT that calls no aggregate function, which MariaDB
        takes as a condition on the rows before its window functions (its names read as
        `having_aliases` reads them) and SQLite refuses ("a non-aggregate query"): emitted as the
        WHERE it stands for, `WHERE (w) AND (h)` when the SELECT has a WHERE `w` (`spliced`)."""
        toks = self.tokens
        if not any(t.is_word("HAVING") for t in toks):
            return
        for items, k in _selects(toks):
            marks: dict[str, int] = {}
            depth = 0
            while k < len(toks):
                tok = toks[k]
                if tok.kind == "op" and tok.text == "(":
                    if k + 1 < len(toks) and toks[k + 1].is_word("SELECT", "WITH"):
                        k = closing(toks, k) + 1  # a subquery: its own clauses
                        continue
                    depth += 1
                elif tok.kind == "op" and tok.text == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and tok.is_word("WHERE", "GROUP", "HAVING") and not within_group(toks, k):
                    marks.setdefault(tok.upper, k)
                elif depth == 0 and (tok.is_word("WINDOW", "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "FOR",
                                                  "LOCK", "INTO", "PROCEDURE")
                                     or "HAVING" in marks and tok.is_word("ON")):  # (INSERT's ON DUPLICATE)
                    break
                k += 1
            having = marks.get("HAVING")
            if having is None or "GROUP" in marks or any(_aggregates(part) for part in (*items, toks[having + 1:k])):
                continue
            where = marks.get("WHERE")
            if where is None:
                self.spliced[having] = ("WHERE", True)
                continue
            self.spliced[where + 1] = ("(", False)
            self.spliced[having] = (") AND (", True)
            self.spliced[k] = (")", False)

    def close_spliced(self, end: int) -> None:
        """The text spliced at `end`, where an emission stopped (a HAVING closed at the end of
        its statement or before INSERT's ON DUPLICATE KEY UPDATE), emitted once."""
        closing = self.spliced.pop(end, None)
        if closing is not None:
            self.out.append(closing[0])

    # --- exact DECIMAL computation (engine/exact.py, engine/decimal_math.py) -------------------

    def finder(self) -> Finder:
        if self._finder is None:
            self._finder = self.new_finder()
        return self._finder

    def new_finder(self) -> Finder:
        return Finder(self.tokens, SelectTypes([], self.statement_tables()).column_type,
                      literal=lambda n: self.params[n] if n < len(self.params) else None, kinds=self.kinds,
                      members=self.member_column, unsigned=self.hybrids or {})

    def statement_tables(self) -> list[tuple[str, Table]]:
        """Every table the statement names, by alias: the FROM clauses at any depth, the target
        of an UPDATE, INSERT or DELETE (what a column of any subquery may be)."""
        toks = self.tokens

        lookup = self.table_named
        tables: list[tuple[str, Table]] = []
        # the target after UPDATE / INSERT's modifiers (UPDATE IGNORE t, INSERT IGNORE INTO t)
        at = 1
        while at < len(toks) and toks[at].is_word("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE"):
            at += 1
        for k, t in enumerate(toks):
            if t.is_word("FROM") or (k == 0 and t.is_word("UPDATE")):
                head = [Token("word", "FROM")] + (toks[at:] if k == 0 else toks[k + 1:])
                if k == 0:
                    head = head[:next((n for n, x in enumerate(head) if x.is_word("SET")), len(head))]
                tables += from_tables(head, 0, lookup)
        if toks and toks[0].is_word("INSERT", "REPLACE"):
            at += 1 if at < len(toks) and toks[at].is_word("INTO") else 0
            found = from_tables([Token("word", "FROM"), *toks[at:at + 3]], 0, lookup)
            tables += [(name, table) for name, table in found[:1]]
        return tables

    def scan_exact(self, finder: Finder, lo: int, hi: int) -> None:
        self.exact.update(finder.scan(lo, hi))
        finder.regions.clear()  # taken (a many-row INSERT must not copy them again per row)

    def value_exact(self, start: int, end: int):
        """A value expression (SET, VALUES): its regions; its `exact.Expr` or None."""
        finder = self.finder()
        e = finder.value(start, end)
        if e is not None:
            finder.root(e)
        self.exact.update(finder.regions)
        finder.regions.clear()
        return e

    def select_exact(self, finder: Finder, start: int) -> None:
        """The regions of the SELECT at tokens[start:], its select-list aliases typed first (HAVING
        and ORDER BY may name them)."""
        toks = self.tokens
        index = {id(t): k for k, t in enumerate(toks)}
        found = select_items(toks[start:])
        if found is not None:
            items, _ = found
            for item in items:
                bare = split_select([toks[start], *item])
                expr = bare[0][0] if bare else []
                if not expr:
                    continue
                e = finder.value(index[id(expr[0])], index[id(expr[-1])] + 1)
                if e is not None:
                    finder.root(e)
                    if len(expr) < len(item):
                        finder.aliases[item[-1].text.lower()] = e.cat
        self.scan_exact(finder, start, len(toks))
        for lo, hi in set_operations(toks, start):
            branches = []
            for part in set_branches(toks[lo:hi]):
                bare = split_select(part)
                if bare is None or any(not expr or expr[-1].text == "*" for expr in bare[0]):
                    break  # a parenthesized branch, a wildcard: left as SQLite compares them
                branches.append([(index[id(expr[0])], index[id(expr[-1])] + 1) for expr in bare[0]])
            else:
                finder.set_columns(branches)
                self.merged.update(id(toks[lo]) for spans in branches for lo, _ in spans if lo in finder.regions)
        self.exact.update(finder.regions)
        finder.regions.clear()

    def emit_exact(self, end: int, tree: tuple, read_as: str = "DOUBLE") -> int:
        """Emit an `engine.exact` tree; returns `end`. `read_as`: what the call around reads a
        string literal as (its 1292's type)."""
        kind = tree[0]
        if kind == "call":
            strict = self.strict_division and (tree[1] in decimal_math.DIVISIONS or tree[1] == "mysql_mod")  # 0 fails a write (functions.strict_division)
            self.out.append(tree[1] + ("_strict(" if strict else "("))
            inner = "DECIMAL" if tree[1] in _DECIMAL_READS else "DOUBLE"
            for k, arg in enumerate(tree[2:]):
                if k:
                    self.out.append(",")
                self.emit_exact(end, arg, inner)
            self.out.append(")")
        elif kind == "seq":
            for part in tree[1:]:
                self.emit_exact(end, part, read_as)
        elif kind == "raw":
            self.out.append(tree[1])
        elif kind == "quiet":  # a value computed once more for a row (`_quiet`)
            at = len(self.out)
            self.emit_exact(end, tree[1], read_as)
            self.out[at:] = map(_quiet, self.out[at:])
        elif kind == "dec":  # a literal as its exact text
            number = (self.kinds.setdefault(tree[1], literal_kind(self.params[tree[1]])) is not False)
            if number:
                self.add_arg((STORE, tree[1], False, values.NUMBER, 1, "", False, False))
            else:
                self.number_text(tree[1], read_as)
        else:  # tokens [start, stop), emitted as usual (the region starting there aside)
            region = self.exact.pop(tree[1], None)
            self.emit_range(tree[1], tree[2])
            if region is not None:
                self.exact[tree[1]] = region
        return end

    def lock_option(self, i: int, end: int) -> int:
        """A locking read's NOWAIT, WAIT n or SKIP LOCKED (MariaDB 10.6's) at tokens[i], read into
        `lock_wait`; the index after it. SKIP LOCKED reads as the plain locking read: the writer
        lock stands for every row, so it waits for the other writer and skips no row (the rows
        it returns are none another transaction holds, as SKIP LOCKED's are)."""
        toks = self.tokens
        if i < end and toks[i].is_word("NOWAIT"):
            self.lock_wait = ("nowait", None)
            return i + 1
        if i + 1 < end and toks[i].is_word("WAIT") and toks[i + 1].kind == "param":
            self.lock_wait = ("wait", toks[i + 1].param)
            return i + 2
        if i + 1 < end and toks[i].is_word("SKIP") and toks[i + 1].is_word("LOCKED"):
            return i + 2
        return i

    def operand_end(self, i: int, end: int) -> int | None:
        """The end of the operand starting at tokens[i] that a division divides by (signed: a
        literal, a variable, a name, a call or a parenthesized expression); None for any other
        (its division is left as SQLite's, NULL for 0)."""
        toks = self.tokens
        while i < end and toks[i].kind == "op" and toks[i].text in ("-", "+"):
            i += 1
        if i >= end:
            return None
        t = toks[i]
        if t.kind in ("param", "var", "sysvar"):
            return i + 1
        if t.kind == "op" and t.text == "(" or t.kind in ("word", "ident") and i + 1 < end and toks[i + 1].text == "(":
            start = i if t.text == "(" else i + 1
            try:
                stop = skip_parens(toks, start)
            except Unknown:
                return None
            return stop if stop <= end else None
        if t.kind == "ident" or t.kind == "word" and t.upper not in _NOT_OPERANDS:
            i += 1
            while i + 1 < end and toks[i].text == "." and toks[i + 1].kind in ("word", "ident"):
                i += 2
            return i
        return None

    def member_order(self, i: int, end: int) -> tuple[int, Column] | None:
        """An ORDER BY item at tokens[i] that is a bare, maybe qualified, name of an ENUM or SET
        column (no select alias by that name, no UNION): the index after the name and the
        column. MySQL orders those by their members' numbers, not their text."""
        toks = self.tokens
        names = [toks[i].text]
        stop = i + 1
        while stop + 1 < end and toks[stop].text == "." and toks[stop].kind == "op" \
                and toks[stop + 1].kind in ("word", "ident"):
            names.append(toks[stop + 1].text)
            stop += 2
        if stop < end and not (toks[stop].text in (",", ")") or toks[stop].is_word(*_ORDER_ITEM_END)):
            return None
        if len(names) > 3 or self.has_set_operation():
            return None
        if self._select_aliases is None:
            self._select_aliases = {item[-1].text.lower() for k, t in enumerate(toks) if t.is_word("SELECT")
                                    for item in (select_items(toks[k:]) or ([], 0))[0]
                                    if item and len(drop_alias(item)) < len(item)}
        if names[-1].lower() in self._select_aliases:
            return None
        col = self.enum_or_set(names)
        return None if col is None else (stop, col)

    def enum_or_set(self, names: list[str]) -> Column | None:
        """The ENUM or SET column `names` ([[db.]table.]column) of the statement's tables, when
        exactly one of them has a column by that name; else None."""
        col = self.named_column(names)
        return col if col is not None and col.base in ("enum", "set") else None

    def named_column(self, names: list[str]) -> Column | None:
        """The column `names` ([[db.]table.]column) names when exactly one of the statement's
        tables has a column by that name; else None."""
        if self._named is None:  # (the statement's tables, read once)
            self._named = self.statement_tables()
        found = [col for alias, table in self._named
                 if (len(names) == 1 or alias == names[-2].lower()) and (col := table.column(names[-1])) is not None]
        return found[0] if len(found) == 1 else None

    def member_column(self, names: list[str]) -> tuple[str, tuple[str, ...]] | None:
        """`enum_or_set` as `exact.Finder` takes it: "enum" / "set" and the members."""
        col = self.enum_or_set(names)
        return None if col is None else (col.base, tuple(col.members))

    def emit_member_order(self, i: int, stop: int, col: Column) -> int:
        """The ORDER BY key of an ENUM or SET column named at tokens[i:stop]: its number
        (`exact.member_number`)."""
        return self.emit_exact(stop, member_number(("tokens", i, stop), col.base, col.members))

    def has_set_operation(self) -> bool:
        depth = 0
        for t in self.tokens:
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("UNION", "EXCEPT", "INTERSECT"):
                return True
        return False

    def select_types(self) -> SelectTypes | UnionTypes | None:
        lookup = self.table_or_view
        scope = self.statement_tables()
        branches = []
        for part in set_branches(self.tokens):
            split = split_select(part)
            if split is None:
                return None  # a parenthesized branch: typed from the values
            branches.append(SelectTypes(split[0], from_tables(part, split[1], lookup), scope,
                                        outer_joined(part, split[1]), *grouping(part, split[0])))
        return branches[0] if len(branches) == 1 else UnionTypes(branches)

    def select_names(self, tokens: list[Token] | None = None) -> list[object] | None:
        """Column names MySQL would report, where SQLite's would differ (literals, rewrites), for
        the SELECT of `tokens` (the statement's by default)."""
        found = select_items(self.tokens if tokens is None else tokens)
        if found is None:
            return None
        items, _ = found
        names: list[object] = []
        wanted = False
        as_written = self.reads_infoschema and _names_infoschema(self.tokens if tokens is None else tokens)
        for item in items:
            if not item or (item[-1].text == "*" and (len(item) == 1 or item[-2].text == ".")):
                return None  # a wildcard: SQLite's names are the columns' names
            depth, as_at_top = 0, False
            for t in item:
                if t.kind == "op" and t.text in "()":
                    depth += 1 if t.text == "(" else -1
                elif depth == 0 and t.is_word("AS"):
                    as_at_top = True
            aliased = as_at_top or (
                len(item) > 1 and item[-1].kind in ("word", "ident") and (
                    item[-2].kind in ("word", "ident", "param") or item[-2].text == ")")
                and not item[-2].is_word("NOT", "IS", "AND", "OR", "LIKE", "IN", "NULL", "TRUE", "FALSE",
                                         "BINARY", "_BINARY", "COLLATE", "OVER", "DIV", "MOD", "XOR")
                and not item[-1].is_word("NULL", "TRUE", "FALSE", "END")
                and not (item[-1].upper in UNIT_WORDS and any(t.is_word("INTERVAL") for t in item)))
            plain = len(item) % 2 == 1 and all(t.kind in ("word", "ident") for t in item[::2]) and \
                all(t.kind == "op" and t.text == "." for t in item[1::2]) and \
                not any(t.kind == "word" and t.upper in NILADIC for t in item)  # [db.][table.]column
            if plain and not aliased and (item[-1].text != item[-1].text.lower() or id(item[0]) in self.merged
                                          or as_written):
                # MySQL names a column by the identifier as written (SELECT Event_name), SQLite by
                # its declaration; an all lower-case one is left to SQLite (the common case,
                # kept free of this per-execution step) but where information_schema's upper-case
                # declarations would name it (SELECT table_name FROM information_schema.tables;
                # through a derived table MariaDB names it as the derived table's column)
                wanted = True
                names.append(("text", [item[-1].text]))
                continue
            if aliased or plain:
                names.append(None)
                continue
            wanted = True
            if item[-1].kind == "param" and len(item) == 1:
                names.append(("value", item[-1].param))
                continue
            if item[0].is_word("NAME_CONST") and len(item) > 3 and item[2].kind == "param":
                names.append(("value", item[2].param))  # named by its first argument
                continue
            parts: list[object] = []
            pos = item[0].start
            for t in item:
                if t.kind == "param":
                    parts.append(self.shape[pos:t.start])
                    parts.append(t.param)
                    pos = t.end
            parts.append(self.shape[pos:item[-1].end])
            if item[-1].kind == "param" and len(item) == 2 and (is_introducer(item[0]) or item[0].is_word("_BINARY")):
                # _utf8mb4'a', N'a': named a, as 'a'; _latin1 X'E9' as written (`session._column_names`)
                names.append(("introduced", item[-1].param, parts))
                continue
            names.append(("text", parts))
        return names if wanted else None

    def plan_insert(self) -> Plan:
        toks = self.tokens
        verb = toks[0].upper
        i = 1
        ignore = False
        while i < len(toks) and toks[i].is_word("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE"):
            ignore = ignore or toks[i].upper == "IGNORE"
            i += 1
        self.modifiers(ignore)
        if i < len(toks) and toks[i].is_word("INTO"):
            i += 1
        i, schema, name = self.read_table_name(i)
        table = self.need_table(schema, name)
        if verb == "REPLACE":
            self.out.append("REPLACE INTO")
        else:
            self.out.append("INSERT OR IGNORE INTO" if ignore else "INSERT INTO")
        self.out.append(self.table_sql(schema, name))
        if (written := self.temporary_alias(name, i)) is not None:
            self.out.append("AS " + quote_ident(written))
        columns: list[str] | None = None
        if i < len(toks) and toks[i].kind == "op" and toks[i].text == "(" and not (
                i + 1 < len(toks) and toks[i + 1].is_word("SELECT")):
            columns = []
            i += 1
            while True:
                t = toks[i]
                if t.kind not in ("word", "ident"):
                    raise self.error_at(i)
                # `t.col` is allowed in MySQL's column list
                while i + 2 < len(toks) and toks[i + 1].text == ".":
                    i += 2
                    t = toks[i]
                columns.append(table.must_column(t.text).name)
                i += 1
                if toks[i].text == ")":
                    i += 1
                    break
                if toks[i].text != ",":
                    raise self.error_at(i)
                i += 1
        rows: list[list[tuple[int, int]]] = []
        if i < len(toks) and toks[i].is_word("SET"):
            # INSERT ... SET a=1, b=2  ==  INSERT (a, b) VALUES (1, 2)
            columns, row = [], []
            i += 1
            while True:
                t = toks[i]
                columns.append(table.must_column(t.text).name)
                if toks[i + 1].text != "=":
                    raise self.error_at(i + 1)
                start = i + 2
                i = self.value_end(start, ends_at=self.upsert_at)
                row.append((start, i))
                if i < len(toks) and toks[i].text == ",":
                    i += 1
                    continue
                break
            rows.append(row)
        elif i < len(toks) and toks[i].is_word("VALUES", "VALUE"):
            i += 1
            while True:
                if toks[i].text != "(":
                    raise self.error_at(i)
                i += 1
                row = []
                if toks[i].text == ")":
                    i += 1
                else:
                    while True:
                        start = i
                        i = self.value_end(start)
                        row.append((start, i))
                        if toks[i].text == ",":
                            i += 1
                            continue
                        if toks[i].text == ")":
                            i += 1
                            break
                        raise self.error_at(i)
                rows.append(row)
                if i < len(toks) and toks[i].text == ",":
                    i += 1
                    continue
                break
        else:
            # INSERT ... SELECT
            if any(c.generated is not None and (columns is None or c.name in columns) for c in table.columns):
                raise SQLError(ER_NOT_SUPPORTED_YET, "INSERT ... SELECT into a generated column")
            auto = table.auto_column
            numbered = columns is not None and auto is not None and auto.name not in columns
            named = {c.lower() for c in columns or ()}
            # columns left out whose DEFAULT is CURRENT_TIMESTAMP take the statement's time
            extra_now = [c for c in table.columns if c.default_now and c.name.lower() not in named] \
                if columns is not None else []
            select_slot = None
            if columns is not None and (numbered or extra_now):
                added = [c.name for c in extra_now] + ([auto.name] if auto is not None and numbered else [])
                self.out.append("(" + ", ".join(quote_ident(c) for c in [*columns, *added]) + ")")
                if numbered:
                    # the engine numbers the rows from the next AUTO_INCREMENT id, in the SELECT's order
                    self.out.append("SELECT *,")
                    select_slot = len(self.args)
                    self.add_arg(("const", None))
                    self.out.append("+ row_number() OVER () - 1 FROM (")
                if extra_now:  # (inside the numbering: its rows are the SELECT's with these)
                    self.out.append("SELECT *")
                    for col in extra_now:
                        self.out.append(",")
                        self.add_now(col)
                    self.out.append("FROM (")
            else:  # the columns always named: the engine reads them (`Engine._w_rows_apart`)
                columns = columns if columns is not None else [c.name for c in table.columns]
                self.out.append("(" + ", ".join(quote_ident(c) for c in columns) + ")")
            on_at = next((k for k in range(i, len(toks)) if toks[k].is_word("ON") and k + 1 < len(toks)
                          and toks[k + 1].is_word("DUPLICATE")), len(toks))
            on_at_select = i
            if toks[i].is_word("SELECT"):
                self.having_as_where()
                self.select_exact(self.finder(), i)
            else:
                self.scan_exact(self.finder(), i, on_at)
            listed = select_items(toks[i:on_at])
            if listed is not None and all(item and item[-1].text != "*" for item in listed[0]) \
                    and len(listed[0]) != len(columns):
                raise SQLError(ER_WRONG_VALUE_COUNT_ON_ROW, 1)
            self.store_selected(i, on_at, table, columns)
            i = self.emit_range(i, on_at)  # (a JOIN's ON is the SELECT's)
            self.close_spliced(i)
            # the SELECT gives the AUTO_INCREMENT column its values: a row's 0 or NULL takes the
            # next id, row by row, as a VALUES row's does
            selected_at = columns.index(auto.name) if auto is not None and not numbered and verb == "INSERT" else None
            if numbered or extra_now:
                self.out.append(")" * (numbered + bool(extra_now)))
            if not numbered:
                self.auto_dirty = True
            if i < len(toks):
                if numbered or extra_now or not self.ends_in_clause(on_at_select, on_at):
                    self.out.append("WHERE true")  # SQLite's upsert-after-SELECT parsing rule
                self.check_selected_names(i + 4, table)
                i = self.emit_upsert(i, table)
            if i != len(toks):
                raise self.error_at(i)
            ids = self.insert_ids(table, ignore)
            if selected_at is not None:
                if self.returning_at is not None:
                    raise SQLError(ER_NOT_SUPPORTED_YET, "INSERT ... SELECT ... RETURNING that gives AUTO_INCREMENT "
                                                         "its values")
                ids["ids_returned"] = True
            return self.finish("write", target=(schema, table.name), insert_columns=columns,
                               auto_select_slot=select_slot, auto_selected_at=selected_at, selects=True, **ids)
        if columns is None:
            columns = [c.name for c in table.columns]
        for n, row in enumerate(rows, 1):
            if len(row) != len(columns) and not (not row and columns):
                raise SQLError(ER_WRONG_VALUE_COUNT_ON_ROW, n)
        auto = table.auto_column
        column_defs = [table.must_column(c) for c in columns]
        # a generated column's value is SQLite's: DEFAULT or NULL given for it is left out, any
        # other value 1906 (IGNORE, LAX_VALUES: left out with the warning)
        computed = {k for k, col in enumerate(column_defs) if col.generated is not None}
        for n, row in enumerate(rows, 1):
            for k in computed.intersection(range(len(row))):
                start, end = row[k]
                if end - start != 1 or not toks[start].is_word("DEFAULT", "NULL"):
                    self.ignore_generated(column_defs[k], table, n)
        columns = [c for k, c in enumerate(columns) if k not in computed]
        column_defs = [c for k, c in enumerate(column_defs) if k not in computed]
        rows = [[span for k, span in enumerate(row) if k not in computed] for row in rows]
        lower = [c.lower() for c in columns]
        # an ENUM NOT NULL without a default has its first member as the default (MariaDB's)
        extra_enum = [c for c in table.columns if c.base == "enum" and not c.nullable and not c.has_default
                      and c.members and c.name.lower() not in lower]
        # strict mode: a NOT NULL column without default must be given; LAX_VALUES: it holds
        # its implicit default, with a warning 1364
        extra_implicit = [c for c in table.columns if c.name.lower() not in lower and not (
            c.nullable or c.has_default or c.auto_increment or c.default_now or c in extra_enum)]
        if extra_implicit and not self.write_mode & LAX_VALUES:
            raise SQLError(ER_NO_DEFAULT_FOR_FIELD, extra_implicit[0].name)
        rowid = table.rowid_alias()
        extra_now = [c for c in table.columns if c.default_now and c.name.lower() not in lower]
        auto_missing = auto is not None and auto.name.lower() not in lower
        out_cols = (list(columns) + [c.name for c in extra_now] + [c.name for c in extra_enum]
                    + [c.name for c in extra_implicit]
                    + ([auto.name] if auto is not None and auto_missing else []))
        self.out.append("(" + ", ".join(quote_ident(c) for c in out_cols) + ") VALUES")
        auto_slots: list[int | None] = []
        for n, row in enumerate(rows):
            if n:
                self.out.append(",")
            self.out.append("(")
            slot: int | None = None
            if not row:  # VALUES () : all defaults
                row_spans: list[tuple[int, int] | None] = [None] * len(columns)
            else:
                row_spans = list(row)
            for k, span in enumerate(row_spans):
                if k:
                    self.out.append(",")
                col = column_defs[k]
                is_auto = col is auto
                if span is None or (span[1] - span[0] == 1 and toks[span[0]].is_word("DEFAULT")):
                    if is_auto:
                        slot = len(self.args)
                        self.add_arg(("const", None))
                    elif col.default_now:
                        self.add_now(col)
                    else:
                        self.add_arg(("const", col.default if col.has_default else None))
                    continue
                if is_auto and span[1] - span[0] == 1 and toks[span[0]].kind == "param":
                    slot = len(self.args)
                    self.add_arg(toks[span[0]].param)
                    continue
                if span[1] - span[0] == 1 and toks[span[0]].is_word("NULL"):
                    if is_auto:
                        slot = len(self.args)
                        self.add_arg(("const", None))
                        continue
                    if col is rowid or not col.nullable:  # SQLite would make up a rowid
                        if not (self.ignore or (self.write_mode & LAX_VALUES and len(rows) > 1)):
                            raise SQLError(ER_BAD_NULL_ERROR, col.name)
                        # IGNORE, or LAX_VALUES in a multi-row INSERT: the column's implicit
                        # default, with 1048 as a warning
                        self.add_arg(("const", values.implicit_default(col)))
                        self.nulls_stored.append((n + 1, col.name))
                        continue
                if is_auto:
                    self.auto_dirty = True
                if self.emit_stored(span, col, n + 1, schema, table.name):
                    continue
                self.emit_value(span[0], span[1], col, schema, table.name)
            for col in extra_now:
                self.out.append(",")
                self.add_now(col)
            for col in extra_enum:
                self.out.append(",")
                self.add_arg(("const", col.members[0]))
            for col in extra_implicit:
                self.out.append(",")
                self.add_arg(("const", values.implicit_default(col)))
            if auto_missing:
                self.out.append(",")
                slot = len(self.args)
                self.add_arg(("const", None))
            self.out.append(")")
            auto_slots.append(slot)
        if i < len(toks):
            i = self.emit_upsert(i, table)
        if i != len(toks):
            raise self.error_at(i)
        return self.finish("write", target=(schema, table.name), insert_columns=columns,
                           auto_slots=auto_slots if auto is not None else None, nrows=len(rows),
                           nulls_stored=tuple(self.nulls_stored), **self.insert_ids(table, ignore),
                           defaults_taken=tuple(c.name for c in extra_implicit))

    def ignore_generated(self, col: Column, table: Table, row: int) -> None:
        """A value other than DEFAULT given to a generated column: strict mode's 1906, else
        (IGNORE, LAX_VALUES) a warning, the value left out."""
        if not self.lenient:
            raise SQLError(ER_WARNING_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN, col.name, table.name)
        self.generated_ignored.append((row, col.name, table.name))

    def modifiers(self, ignore: bool) -> None:
        """An INSERT's or UPDATE's IGNORE and the session's `write_mode`: how its values are
        stored (`lenient`), whether a division by zero fails it, and a string read as a number
        that is none (`strict_values`)."""
        self.ignore = ignore
        self.lenient = ignore or bool(self.write_mode & LAX_VALUES)
        self.strict_division = not ignore and not self.write_mode & DIVISION_NULL
        self.strict_values = not self.lenient

    def insert_ids(self, table: Table, ignore: bool) -> dict[str, bool]:
        """An INSERT / REPLACE's `Plan.auto_insert` and `Plan.ids_returned` (REPLACE inserts
        every row; INSERT IGNORE and ON DUPLICATE KEY UPDATE may not)."""
        insert = self.tokens[0].upper == "INSERT"
        if table.auto_column is None:
            return {"ignore": ignore and insert}
        return {"auto_insert": True, "ids_returned": insert and (ignore or self.upsert), "ignore": ignore and insert}

    def value_end(self, i: int, end: int | None = None, ends_at: Callable[[int], bool] | None = None) -> int:
        """The end of one value expression starting at tokens[i] (a depth-0 ',' or ')', or a
        depth-0 token where `ends_at(k)` holds), `end` at most."""
        toks = self.tokens
        end = len(toks) if end is None else end
        depth = 0
        while i < end:
            t = toks[i]
            if t.kind == "op":
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    if depth == 0:
                        return i
                    depth -= 1
                elif t.text == "," and depth == 0:
                    return i
            elif depth == 0 and ends_at is not None and ends_at(i):
                return i
            i += 1
        return i

    def upsert_at(self, k: int) -> bool:
        """tokens[k] starts ON DUPLICATE KEY UPDATE."""
        toks = self.tokens
        return toks[k].is_word("ON") and k + 1 < len(toks) and toks[k + 1].is_word("DUPLICATE")

    def ends_in_clause(self, start: int, end: int) -> bool:
        """The query tokens[start:end] ends in a clause after its FROM (WHERE, GROUP BY, HAVING,
        ORDER BY, LIMIT, WINDOW; its last branch's, after a set operation), after which SQLite
        reads an upsert's ON as no join's."""
        toks = self.tokens
        depth, clause = 0, False
        for k in range(start, end):
            t = toks[k]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("UNION", "EXCEPT", "INTERSECT"):
                clause = False
            elif depth == 0 and t.is_word("WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW"):
                clause = True
        return clause

    def store_selected(self, i: int, end: int, table: Table, columns: list[str]) -> None:
        """INSERT ... SELECT (tokens[i:end]): each select-list item stored in its column as
        `emit_value` stores a value (a SELECT with one select list, no `*`)."""
        if not self.tokens[i].is_word("SELECT") or self.has_set_operation():
            return
        found = split_select(self.tokens[i:end])
        if found is None or len(found[0]) != len(columns):
            return
        index = {id(t): k for k, t in enumerate(self.tokens)}
        for item, name in zip(found[0], columns, strict=True):
            if not item or item[-1].text == "*":
                return
            start, end = index[id(item[0])], index[id(item[-1])] + 1
            if end == start + 1 and self.hybrids and self.hybrids.get(item[0].param) is False \
                    and table.must_column(name).base in _NUMBER_COLUMNS:
                self.hybrid_as_number(item[0].param)
            tree = self.value_tree(start, end, table.must_column(name), table.schema, table.name, by_sqlite=False)
            if tree is not None:
                self.exact[start] = (end, tree)

    def emit_value(self, start: int, end: int, col, schema: str, table: str) -> None:
        """An expression written to `col` (SET, VALUES, ON DUPLICATE KEY UPDATE)."""
        tree = self.value_tree(start, end, col, schema, table)
        if tree is None:
            self.emit_range(start, end)
        else:
            self.emit_exact(end, tree)

    def value_tree(self, start: int, end: int, col, schema: str, table: str, by_sqlite: bool = True) -> tuple | None:
        """tokens[start:end] written to `col`, stored as strict mode stores a literal
        (`values.target`), as an `engine.exact` tree; None where SQLite's value is stored as it
        is. An integer expression into an integer column is checked by SQLite itself (no Python
        per row: UPDATE t SET k = k + 1; its 1264 names row 1 even where mysqld names a later
        row) unless `by_sqlite` is false; any other goes through `mysql_store` (DECIMAL rounded to its scale,
        strings' lengths ...)."""
        e = self.value_exact(start, end)
        region = self.exact.get(start)
        inner = region[1] if region is not None and region[0] == end else ("tokens", start, end)
        exact = e is not None and e.cat == "dec"  # a DECIMAL's text: a number (to a YEAR too)
        if e is not None and e.kind == "neglit" and col.base not in ("enum", "set"):
            inner = e.exact()  # -9223372036854775808: exact, never a double (an ENUM's or SET's -1 a number)
            exact = True
        elif e is not None and e.kind == "lit" and col.base not in ("enum", "set"):
            # a number with more digits than a double holds is its exact text; into a YEAR also
            # 99.5, MariaDB's DECIMAL, rounded half away from zero (100: 1264), not a DOUBLE's
            # truncation (the plan is keyed by the literal's kind)
            value = self.params[e.param]
            kind = self.kinds[e.param] = literal_kind(value)
            if kind == EXACT or col.base == "year" and kind is True and type(value) is not int:
                inner = e.exact()
                exact = True
        key = values.target(col, f"`{schema}`.`{table}`.`{col.name}`", self.lenient, exact)
        if key is None:
            return None
        store, stored = self.store_call(key)
        bounds = values.int_range(col)
        if by_sqlite and bounds is not None and e is not None and e.cat == "int":
            # (an overflow past SQLite's integers makes a REAL, which BETWEEN may not tell apart)
            # (the value computed once more for a row after its first: `_quiet`)
            again = ("quiet", inner)
            return ("seq", ("raw", "iif(typeof(("), inner, ("raw", ")) = 'integer' AND ("), again,
                    ("raw", f") BETWEEN {bounds[0]} AND {bounds[1]}, ("), again,
                    ("raw", f"), {store}(("), again, ("raw", f"), {stored}))"))
        return ("seq", ("raw", f"{store}(("), inner, ("raw", f"), {stored})"))

    def store_call(self, key: str) -> tuple[str, str]:
        """The function storing a value assigned under `key` (`values.target`) and its arguments
        after the value: SQLite runs a deterministic function of constants once per statement,
        so an assignment stored per row updated (`stored_per_row`) calls the one it runs for each
        row, `mysql_store_row`, which also takes the assignment's place in its list."""
        stored = "'" + key.replace("'", "''") + "'"
        if self.stored_per_row:
            return "mysql_store_row", f"{stored}, {len(self.assigned)}"
        return "mysql_store", stored

    def emit_stored(self, span: tuple[int, int], col, row: int, schema: str, table: str) -> bool:
        """A literal (a `_binary` or typed literal too) assigned to `col`: an argument the engine
        converts as the column stores it (`engine.values.store`: strict mode). False for
        expressions."""
        toks = self.tokens
        start, end = span
        if self.stored_per_row:  # stored (and refused) only for a row it updates
            if values.checked_store(col):
                return False
            if col.base in REAL_TYPES and end - start == 1 and toks[start].kind == "param":
                key = values.target(col, f"`{schema}`.`{table}`.`{col.name}`", self.lenient, literal=True)
                store, stored = self.store_call(str(key))
                self.out.append(f"{store}((")
                self.emit_range(start, end)
                self.out.append(f"), {stored})")
                return True
        binary: bool | str = end - start == 2 and toks[start].kind == "word" and toks[start].upper in (
            "_BINARY", "BINARY")
        if end - start == 2 and toks[start].kind == "word" and toks[start].upper in TYPED_LITERALS \
                and toks[start + 1].kind == "param":
            binary = self.typed_kind(start)
        negative = end - start == 2 and toks[start].kind == "op" and toks[start].text in "-+" \
            and isinstance(self.params[toks[start + 1].param] if toks[start + 1].kind == "param" else None,
                           int | float | Decimal)
        if binary or negative:
            negative = negative and toks[start].text == "-"
            start += 1
        elif end - start == 2 and is_introducer(toks[start]):
            start += 1
        if end - start != 1 or toks[start].kind != "param":
            return False
        param = toks[start].param
        if start > span[0] and toks[start - 1].kind == "word" and (toks[start - 1].upper == "_BINARY"
                                                                   or is_introducer(toks[start - 1])):
            self.introduced[param] = toks[start - 1].upper
        # a binary column stores a string's bytes in its own character set, a column of
        # characters its characters (MariaDB converts it to the column's)
        utf8 = col.charset is None or col.charset.startswith("utf8")
        self.read_as(param, BYTES if binary is True or col.base in BLOB_TYPES else STORED if utf8 else TEXT)
        where = f"`{schema}`.`{table}`.`{col.name}`"
        self.add_arg((STORE, param, binary, col, row, where, negative, self.lenient))
        return True

    def emit_upsert(self, i: int, table: Table) -> int:
        toks = self.tokens
        if not (toks[i].is_word("ON") and i + 3 < len(toks) and toks[i + 1].is_word("DUPLICATE")
                and toks[i + 2].is_word("KEY") and toks[i + 3].is_word("UPDATE")):
            raise self.error_at(i)
        self.check_excluded(i + 4)
        self.out.append("ON CONFLICT DO UPDATE SET")
        first = len(self.assigned)
        self.stored_per_row = True  # (its literals checked only where a row updates: `emit_stored`)
        end = self.emit_assignments(i + 4, len(toks), table)
        self.stored_per_row = False
        assigned = self.assigned[first:]
        names = {name.lower() for name, *_ in assigned}
        stamped = [c for c in table.columns if c.on_update_now and c.name.lower() not in names]
        changed, changed_args = self.changed_condition(assigned) if stamped else ([], [])
        self.mark_upsert_updates(assigned)
        for col in stamped:  # ON UPDATE CURRENT_TIMESTAMP: the statement's time where the row changes
            self.out.append(f", {quote_ident(col.name)} = CASE WHEN (")
            self.out.extend(changed)
            self.args.extend(changed_args)
            self.out.append(") THEN")
            self.add_now(col, on_update=True)
            self.out.append(f"ELSE {quote_ident(col.name)} END")
        self.upsert = True
        return end

    def check_selected_names(self, start: int, table: Table) -> None:
        """INSERT ... SELECT ... ON DUPLICATE KEY UPDATE (its assignments at tokens[start:]):
        MariaDB reads a name there in the target and the SELECT's tables, SQLite's upsert in
        the target only. A name both hold is MariaDB's 1052; one only the SELECT's tables hold
        1235."""
        toks = self.tokens
        sources = self.statement_tables()[:-1]  # (the target is the last)
        for k in range(start, len(toks)):
            t = toks[k]
            if t.kind not in ("word", "ident") or k + 1 < len(toks) and toks[k + 1].text in (".", "(", "="):
                continue
            if toks[k - 1].text == "(" and toks[k - 2].is_word("VALUES"):
                continue  # VALUES(c): the target's column
            qualifier = toks[k - 2].text.lower() if toks[k - 1].text == "." else None
            name = t.text
            target = table.column(name) is not None and qualifier in (None, table.name.lower())
            if not any(src.column(name) is not None and qualifier in (None, alias.lower()) for alias, src in sources):
                continue
            if target:
                raise SQLError(ER_NON_UNIQ_ERROR, name if qualifier is None else f"{toks[k - 2].text}.{name}", "UPDATE")
            raise SQLError(ER_NOT_SUPPORTED_YET, "a column of INSERT ... SELECT's tables in ON DUPLICATE KEY UPDATE")

    def check_excluded(self, start: int) -> None:
        """`excluded.c` in ON DUPLICATE KEY UPDATE (tokens[start:]): SQLite's upsert would read
        the row proposed for insertion, MariaDB a table of the statement named so: 1054 where the
        statement names none (what Peewee's EXCLUDED writes), 1235 where it may."""
        toks = self.tokens
        for k in range(start, len(toks) - 2):
            t = toks[k]
            if t.kind in ("word", "ident") and t.text.lower() == "excluded" \
                    and toks[k + 1].text == "." and toks[k - 1].text != ".":
                if any(u.kind in ("word", "ident") and u.text.lower() == "excluded"
                       and (n + 1 == len(toks) or toks[n + 1].text != ".") for n, u in enumerate(toks)):
                    raise SQLError(ER_NOT_SUPPORTED_YET, "a table named excluded in ON DUPLICATE KEY UPDATE")
                raise SQLError(ER_BAD_FIELD_ERROR, f"{t.text}.{toks[k + 2].text}", "field list")

    def changed_condition(self, assigned: list[tuple[str, int, int, int, int]],
                          reads_numbers: bool = False) -> tuple[list[str], list[object]]:
        """`a IS NOT (new a) OR b IS NOT (new b) ...` for emitted assignments (SQL, its arguments):
        whether a SET changes the row. Compared binary: 'abc' -> 'ABC' is a change.
        `reads_numbers`: a string read as a number there warns (an UPDATE's WHERE, which reads
        each row it matches once; its SET then `_quiet`)."""
        sql: list[str] = [] if assigned else ["0"]  # (only generated columns assigned: no change)
        sql_args: list[object] = []
        for n, (name, o1, a1, o2, a2) in enumerate(assigned):
            sql.append(("OR " if n else "") + f"{quote_ident(name)} IS NOT (")
            # the value once more: its strict-mode check must not count a row twice
            sql.extend(_checked(part, reads_numbers) for part in self.out[o1:o2])
            sql.append(") COLLATE BINARY")
            sql_args.extend(self.args[a1:a2])
        return sql, sql_args

    def mark_upsert_updates(self, assigned: list[tuple[str, int, int, int, int]]) -> None:
        """MySQL counts an upsert's row as 2 when it updated it, 0 when the update changed
        nothing: wrap the first value in mysql_upsert_mark(value, changed), evaluated once per
        updated row (on the old row, like every SET expression), which counts both cases."""
        if not assigned:
            return
        out, args = self.out, self.args
        changed, changed_args = self.changed_condition(assigned)
        _, o1, a1, o2, a2 = assigned[0]
        self.out = out[:o1] + ["mysql_upsert_mark(("] + out[o1:o2] + ["), ("] + changed + ["))"] + out[o2:]
        self.args = args[:a2] + changed_args + args[a2:]

    def emit_assignments(self, i: int, end: int, table: Table, stop=frozenset()) -> int:
        """a = expr, t.b = expr ... (qualifiers dropped on the left side, as SQLite wants). As in
        MariaDB, a value reads the new value of a column assigned before it (SET a = b, b = a
        makes both b's value): such a reference becomes that value (`substitute_assigned`)."""
        toks = self.tokens
        first = True
        earlier: dict[str, int] = {}  # column assigned so far -> its entry in self.assigned
        while i < end:
            while i + 2 < end and toks[i + 1].text == "." and toks[i + 1].kind == "op":
                i += 2  # t.c, db.t.c
            col = toks[i]
            if col.kind not in ("word", "ident"):
                raise self.error_at(i)
            target = table.must_column(col.text)
            if target is table.auto_column:
                self.auto_dirty = True
            if i + 1 >= end or toks[i + 1].text != "=":
                raise self.error_at(i + 1)
            start = i + 2
            j = self.value_end(start)
            # stop at a depth-0 clause word (WHERE / ORDER / LIMIT) inside the last value
            k = start
            depth = 0
            while k < j:
                t = toks[k]
                if t.kind == "op" and t.text == "(":
                    depth += 1
                elif t.kind == "op" and t.text == ")":
                    depth -= 1
                elif depth == 0 and t.kind == "word" and t.upper in stop:
                    j = k
                    break
                k += 1
            if target.generated is not None:  # SQLite computes it: the assignment left out
                if j - start != 1 or not toks[start].is_word("DEFAULT"):
                    self.ignore_generated(target, table, 0)
                if j < end and toks[j].text == ",":
                    i = j + 1
                    continue
                i = j
                break
            if not first:
                self.out.append(",")
            first = False
            self.out.append(quote_ident(target.name) + " =")
            span = (target.name, len(self.out), len(self.args))
            self.substitute_assigned(start, j, earlier)
            if j - start == 1 and toks[start].is_word("DEFAULT"):  # SET c = DEFAULT
                if target.default_now:
                    self.add_now(target)
                else:
                    self.add_arg(("const", target.default if target.has_default else None))
            elif not self.emit_stored((start, j), target, 1, table.schema, table.name):
                self.emit_value(start, j, target, table.schema, table.name)
            earlier[target.name.lower()] = len(self.assigned)
            self.assigned.append((*span, len(self.out), len(self.args)))
            i = j
            if i < end and toks[i].text == ",":
                i += 1
                continue
            break
        return i

    def substitute_assigned(self, start: int, end: int, earlier: dict[str, int]) -> None:
        """Mark the references in tokens[start:end] to columns `earlier` assignments set (not in
        a subquery, not VALUES(c)): `emit_range` emits the assigned value there."""
        if not earlier:
            return
        toks = self.tokens
        subquery: list[bool] = []
        for k in range(start, end):
            t = toks[k]
            if t.kind == "op" and t.text == "(":
                subquery.append(k + 1 < end and toks[k + 1].is_word("SELECT"))
            elif t.kind == "op" and t.text == ")":
                if subquery:
                    subquery.pop()
            elif t.kind in ("word", "ident") and t.text.lower() in earlier and not any(subquery) \
                    and not (k + 1 < end and toks[k + 1].text in (".", "(")) \
                    and not (k >= 2 and toks[k - 1].text == "(" and toks[k - 2].is_word("VALUES")):
                first = k
                while first >= 2 and toks[first - 1].text == "." and toks[first - 1].kind == "op":
                    first -= 2
                self.substitute[first] = (k + 1, earlier[t.text.lower()])

    def emit_assigned(self, entry: int) -> None:
        """An earlier assignment's value once more (its strict-mode check not counting a row)."""
        _, o1, a1, o2, a2 = self.assigned[entry]
        self.out.append("(")
        self.out.extend([_checked(part) for part in self.out[o1:o2]])
        self.out.append(")")
        self.args.extend(self.args[a1:a2])

    def plan_update(self) -> Plan:
        toks = self.tokens
        i = 1
        ignore = False
        while i < len(toks) and toks[i].is_word("LOW_PRIORITY", "IGNORE"):
            ignore = ignore or toks[i].upper == "IGNORE"
            i += 1
        self.modifiers(ignore)
        set_at = next((k for k in range(i, len(toks)) if toks[k].is_word("SET")), len(toks))
        if any(t.text == "," or t.is_word("JOIN", "STRAIGHT_JOIN") for t in toks[i:set_at]):
            return self.plan_multi_update(i, set_at, ignore)
        i, schema, name = self.read_table_name(i)
        table = self.need_table(schema, name)
        self.out.append("UPDATE OR IGNORE" if ignore else "UPDATE")
        self.out.append(self.table_sql(schema, name))
        if i < len(toks) and toks[i].is_word("AS"):
            i += 1
        if i < len(toks) and not toks[i].is_word("SET"):
            if toks[i].kind in ("word", "ident") and not toks[i].is_word(*NOT_ALIAS):
                self.out.append("AS " + quote_ident(toks[i].text))
                i += 1
        elif (written := self.temporary_alias(name, i)) is not None:
            self.out.append("AS " + quote_ident(written))
        if i >= len(toks) or not toks[i].is_word("SET"):
            raise SQLError(ER_NOT_SUPPORTED_YET, "multi-table UPDATE") if i < len(toks) else self.error_at(i)
        self.out.append("SET")
        set_out = len(self.out)
        set_cols = {toks[k].text.lower() for k in range(i, len(toks) - 1)
                    if toks[k + 1].text == "=" and toks[k].kind in ("word", "ident")}
        per_row = bool(self.write_mode & PER_ROW)
        set_args = len(self.args)
        self.stored_per_row = per_row
        i = self.emit_assignments(i + 1, len(toks), table, frozenset({"WHERE", "ORDER", "LIMIT"}))
        self.stored_per_row = False
        up_front = not per_row and any(type(a) is tuple and a[0] == STORE for a in self.args[set_args:])
        if self.out[-1] == "SET":  # only generated columns assigned (IGNORE, LAX_VALUES): no change
            base = next(c for c in table.columns if c.generated is None)
            self.out.append(f"{quote_ident(base.name)} = {quote_ident(base.name)}")
        for col in table.columns:
            if col.on_update_now and col.name.lower() not in set_cols:
                # (only a row the SET changes: the plan writing every matched row leaves the rest)
                changed_out, changed_args = self.changed_condition(self.assigned)
                self.out.extend([", " + quote_ident(col.name) + " = iif((", *changed_out, "),"])
                self.args.extend(changed_args)
                self.add_now(col, on_update=True)
                self.out.append(f", {quote_ident(col.name)})")
        self.scan_exact(self.finder(), i, len(toks))
        prefix_out, prefix_args = len(self.out), len(self.args)
        has_where = i < len(toks) and toks[i].is_word("WHERE")
        end = self.emit_range(i, len(toks))
        if end != len(toks):
            raise self.error_at(end)
        # (UPDATE IGNORE of a table with CHECKs or foreign keys: each row a write of its own, one
        # refused left as it was, `Engine._w_rows_in_order`)
        refusing = ignore and bool(table.checks or table.foreign_keys)
        if self.clause_at(i, ("ORDER",)) < len(toks) or self.clause_at(i, ("LIMIT",)) < len(toks) or refusing:
            # (without ORDER BY: a scan of the whole table is MariaDB's, in the primary key's order,
            # never a covering index's SQLite might take to read the rowids)
            unordered = self.clause_at(i, ("ORDER",)) == len(toks)
            return self.ordered_update(schema, table, prefix_out, prefix_args, up_front, not has_where and unordered,
                                       refusing and unordered)
        plan = self.finish("write", target=(schema, table.name), literals_up_front=up_front)
        if self.uses_rand:
            return plan
        # MySQL counts changed rows: the same UPDATE restricted to rows it changes; both it and
        # the UPDATE of every matched row count the rows matched and changed (`mysql_matched`,
        # which reads the condition itself: SQLite may test the WHERE's terms in any order)
        out, args = self.out, self.args
        changed_out, changed_args = self.changed_condition(self.assigned, reads_numbers=True)
        condition, condition_args = (out[prefix_out + 1:], args[prefix_args:]) if has_where else (["1"], [])
        # (the condition once more before it, for an index to find the rows by; not where a
        # string it reads as a number would warn twice for a row)
        looked_up = has_where and not any(NUMBER_TEXT_CALL in part for part in condition)
        if per_row or has_where and not looked_up:
            # (its literals checked, and refused, its strings read as numbers warned of, only
            # for a row the condition matches)
            changed_out = ["iif((", *map(_quiet, condition), "), (", *changed_out, "), 0)"]
            changed_args = condition_args + changed_args
        stores = any("mysql_store" in part for part in out[set_out:prefix_out])
        read = ["mysql_row_read(rowid) AND"] if stores and self.reads_in_one_pass(table, i) else []
        for every in (0, 1):
            self.out = ([_quiet(part) for part in out[:prefix_out]] + ["WHERE", *read]
                        + (["("] + condition + [") AND"] if looked_up else [])
                        + ["mysql_matched(("] + condition + ["), ("] + changed_out + [f"), {every})"])
            self.args = args[:prefix_args] + (condition_args if looked_up else []) + condition_args + changed_args
            counted = self.finish("write", target=(schema, table.name), counts_rows=True, literals_up_front=up_front)
            if every:
                plan.found = counted
            else:
                plan.changed = counted
        return plan

    def reads_in_one_pass(self, table: Table, where_at: int) -> bool:
        """Whether SQLite updates each row of this UPDATE as its scan reads it (one pass), so that
        a first WHERE term counting the rows read (`mysql_row_read`) numbers a stored value's
        warning or error as MariaDB does, by the rows its scan read ("at row n"): no assigned
        column in a key or a foreign key (a key the scan may walk: MariaDB then numbers the rows
        it updates, as SQLite would count them all first), no UPDATE trigger on the table, no
        subquery in the WHERE (SQLite then reads every row before it updates one)."""
        assigned = {name.lower() for name, *_ in self.assigned}
        keyed = {c.lower() for index in table.indexes for c in index.columns}
        keyed.update(c.lower() for fk in table.foreign_keys for c in fk.columns)
        if assigned & keyed or any(t.is_word("SELECT") for t in self.tokens[where_at:]):
            return False
        return not any(t.table.lower() == table.name.lower() and t.event == "UPDATE"
                       for t in self.triggers_in(table.schema))

    def ordered_update(self, schema: str, table: Table, prefix_out: int, prefix_args: int, up_front: bool,
                       scan: bool = False, taken: bool = False) -> Plan:
        """UPDATE ... [ORDER BY ...] [LIMIT ...] (its SET emitted up to `prefix_out` / `prefix_args`,
        its WHERE, ORDER BY and LIMIT after): the rows it matches chosen in the ORDER BY's order,
        or the scan's (`Plan.row_order`), then each updated alone in that order, as MariaDB updates them; a
        key shifted row by row (SET id = id + 1 ORDER BY id DESC) never meets the next row's old
        one. Its variants count the rows matched and changed, as the UPDATE's without ORDER BY.
        `taken` (UPDATE IGNORE of a table with CHECKs or foreign keys, without ORDER BY, whose
        LIMIT MariaDB's scan counts): its LIMIT counts the rows taken, not those a CHECK refuses
        (`Plan.row_limit`; a sort's LIMIT counts them)."""
        out, args = self.out, self.args
        row_limit = taken and out[-2:] == ["LIMIT", "?"]
        target = out[1] + (" " + out[2] if out[2].startswith("AS ") else "")
        order = ", ".join(quote_ident(c) for c in table.primary.columns) if table.primary is not None else "rowid"
        chosen = " ".join(["SELECT rowid FROM", target, *(["ORDER BY", order] if scan else []), *out[prefix_out:]])
        order_args = args[prefix_args:]
        head, head_args = out[:prefix_out], args[:prefix_args]
        self.out, self.args = head + ["WHERE rowid = ?"], head_args + order_args
        plan = self.finish("write", target=(schema, table.name), literals_up_front=up_front,
                           row_order=chosen, order_args=len(order_args), row_limit=row_limit)
        if self.uses_rand:
            return plan
        changed_out, changed_args = self.changed_condition(self.assigned, reads_numbers=True)
        for every in (0, 1):  # (the row's own term last: SQLite looks the row up by it)
            self.out = [_quiet(part) for part in head] + ["WHERE mysql_matched(1, ("] + changed_out + [
                f"), {every}) AND rowid = ?"]
            self.args = head_args + changed_args + order_args
            counted = self.finish("write", target=(schema, table.name), counts_rows=True, literals_up_front=up_front,
                                  row_order=chosen, order_args=len(order_args), row_limit=row_limit)
            if every:
                plan.found = counted
            else:
                plan.changed = counted
        return plan

    def plan_multi_update(self, start: int, set_at: int, ignore: bool) -> Plan:
        """UPDATE <join> SET t1.a = ..., t2.b = ... WHERE ...: a snapshot of the join, its target
        rows and their new values (`engine.multiwrite`). An assignment reading a column another
        assigns reads, in MariaDB, the new value or the old by its join order: 1235."""
        toks = self.tokens
        refs = self.join_tables(start, set_at)
        where_at = next((k for k in range(set_at, len(toks)) if toks[k].is_word("WHERE")), len(toks))
        if any(t.is_word("ORDER", "LIMIT") for t in toks[set_at:]):
            raise SQLError(ER_NOT_SUPPORTED_YET, "ORDER BY or LIMIT in a multi-table UPDATE")
        assignments: list[tuple[tuple[str, str, str], str, int, int]] = []
        k = set_at + 1
        while k < where_at:
            if k + 4 < where_at and toks[k + 1].text == "." and toks[k + 3].text == ".":
                k += 2  # db.t.c: the table's name (or alias) decides
            qualifier = toks[k].text if k + 2 < where_at and toks[k + 1].text == "." else ""
            owners = self.column_owners(refs, qualifier, toks[k + 2 if qualifier else k].text)
            col, k = toks[k + 2 if qualifier else k].text, k + (3 if qualifier else 1)
            if not owners:
                raise SQLError(ER_BAD_FIELD_ERROR, f"{qualifier}.{col}" if qualifier else col, "field list")
            if len(owners) > 1:
                raise SQLError(ER_NON_UNIQ_ERROR, col, "field list")
            if k >= where_at or toks[k].text != "=":
                raise self.error_at(k)
            value_end = min(self.value_end(k + 1), where_at)
            assignments.append((owners[0], col, k + 1, value_end))
            k = value_end + 1 if value_end < where_at and toks[value_end].text == "," else value_end
        assigned = {(ref, col.lower()) for (_, _, ref), col, _, _ in assignments}
        for (_, _, ref), col, v1, v2 in assignments:
            if any(read != (ref, col.lower()) for read in self.columns_read(refs, v1, v2) & assigned):
                raise SQLError(ER_NOT_SUPPORTED_YET, "an assignment of a multi-table UPDATE reading a column "
                                                     "another assigns")
        owners_in_order = list(dict.fromkeys(owner for owner, _, _, _ in assignments))
        if ignore and len(owners_in_order) > 1:
            raise SQLError(ER_NOT_SUPPORTED_YET, "UPDATE IGNORE of several tables")
        self.scan_exact(self.finder(), start, set_at)
        self.scan_exact(self.finder(), where_at, len(toks))
        out = self.out
        out.append("SELECT")
        targets = []
        for schema, name, ref in owners_in_order:
            table = self.need_table(schema, name)
            mine = [(table.must_column(col), v1, v2) for owner, col, v1, v2 in assignments if owner[2] == ref]
            names = {column.name.lower() for column, _, _ in mine}
            stamped = [c for c in table.columns if c.on_update_now and c.name.lower() not in names]
            at = sum(1 + len(t.columns) + len(t.stamped) for t in targets)
            out.append(("," if targets else "") + f"{quote_ident(ref)}.rowid")
            for column, v1, v2 in mine:
                if column is table.auto_column:
                    self.auto_dirty = True
                out.append(", (")
                self.emit_value(v1, v2, column, schema, table.name)
                out.append(")")
            for column in stamped:
                out.append(",")
                self.add_now(column, on_update=True)
            targets.append(Target(schema, table.name, at, tuple(c.name for c, _, _ in mine),
                                  tuple(c.name for c in stamped), ignore))
        self.emit_join(start, set_at, where_at)
        plan = self.finish("write", target=(targets[0].schema, targets[0].name), multi=MultiWrite(tuple(targets)), counts_rows=True)
        changed, found = replace(plan), replace(plan, multi=MultiWrite(tuple(targets), every=True))
        plan.changed, plan.found = changed, found
        return plan

    def column_owners(self, refs: list[tuple[str, str, str]], qualifier: str, col: str) -> list[tuple[str, str, str]]:
        """The tables of a join (`join_tables`) a column reference may name: its qualifier's, or
        every table that has such a column."""
        if qualifier:
            return [r for r in refs if r[2] == qualifier]
        return [r for r in refs if (t := self.catalog(r[0], r[1])) is not None and t.column(col)]

    def columns_read(self, refs: list[tuple[str, str, str]], start: int, end: int) -> set[tuple[str, str]]:
        """(table's name in the statement, lower-case column) of each column tokens[start:end]
        may read (an unqualified name: of every table that has it)."""
        toks = self.tokens
        found = set()
        for k in range(start, end):
            t = toks[k]
            if t.kind not in ("word", "ident") or (k + 1 < end and toks[k + 1].text in (".", "(")):
                continue
            qualifier = toks[k - 2].text if k - 2 >= start and toks[k - 1].text == "." else ""
            found.update((r[2], t.text.lower()) for r in self.column_owners(refs, qualifier, t.text))
        return found

    def emit_join(self, start: int, join_end: int, where_at: int) -> None:
        """FROM <tokens[start:join_end]> <tokens[where_at:]> (the token before `start` becomes FROM)."""
        toks = self.tokens
        toks[start - 1] = Token("word", "FROM", -1, toks[start - 1].start, toks[start - 1].end)
        self.emit_range(start - 1, join_end)
        if where_at < len(toks):
            end = self.emit_range(where_at, len(toks))
            if end != len(toks):
                raise self.error_at(end)

    def plan_delete(self) -> Plan:
        toks = self.tokens
        i = 1
        while i < len(toks) and toks[i].is_word("LOW_PRIORITY", "QUICK", "IGNORE"):
            i += 1
        if i >= len(toks):
            raise self.error_at(i)
        if not toks[i].is_word("FROM"):
            return self.plan_multi_delete(i, i)  # DELETE t FROM t JOIN ...
        j, _, _ = self.read_table_name(i + 1)
        if j + 1 < len(toks) and toks[j].text == "." and toks[j + 1].text == "*":
            j += 2  # DELETE FROM t.* USING ...
        if j < len(toks) and toks[j].text == ",":  # DELETE FROM t1, t2 USING ...
            j = self.clause_at(j, ("USING",))
        if j < len(toks) and toks[j].is_word("USING"):
            return self.plan_multi_delete(i + 1, j)  # DELETE FROM t USING t JOIN ...
        i, schema, name = self.read_table_name(i + 1)
        table = self.need_table(schema, name)
        target = self.table_sql(schema, name)
        if i < len(toks) and not toks[i].is_word("WHERE", "ORDER", "LIMIT", "USING"):
            if toks[i].is_word("AS"):
                i += 1
            self.target_alias = toks[i].text
            target += f" AS {quote_ident(toks[i].text)}"
            i += 1
        elif (written := self.temporary_alias(name, i)) is not None:
            self.target_alias = written
            target += f" AS {quote_ident(written)}"
        self.out.append(f"DELETE FROM {target}")
        depth = 0
        limited = False  # ... ORDER BY / LIMIT ... RETURNING
        for t in toks[i:] if self.returning_at is not None else ():
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word("ORDER", "LIMIT"):
                limited = True
        if limited:  # SQLite's RETURNING precedes ORDER BY / LIMIT: the rows are chosen inside
            self.out.append(f"WHERE rowid IN (SELECT rowid FROM {target}")
        chosen_at = len(self.out)
        self.scan_exact(self.finder(), i, len(toks))
        end = self.emit_range(i, len(toks))
        if end != len(toks):
            raise self.error_at(end)
        if not limited:
            if self.clause_at(i, ("ORDER",)) < len(toks) and self.clause_at(i, ("LIMIT",)) == len(toks):
                self.out.append("LIMIT -1")  # (SQLite takes an ORDER BY only with a LIMIT; the rows are the same)
            return self.finish("write", target=(schema, table.name))
        order = f"SELECT rowid FROM {target} " + " ".join(self.out[chosen_at:])
        self.out.append(")")
        return self.finish("write", target=(schema, table.name), returning_order=order)

    def join_tables(self, start: int, end: int) -> list[tuple[str, str, str]]:
        """The tables of a join (tokens[start:end], no leading FROM): (schema, table, the name the
        statement uses for it — its alias or its name)."""
        toks = self.tokens
        found = []
        k = start
        depth = 0
        expect = True
        while k < end:
            t = toks[k]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and expect and t.kind in ("word", "ident") and t.upper not in JOIN_MODIFIERS:
                k, schema, name = self.read_table_name(k)
                ref = name
                if k < end and toks[k].is_word("AS"):
                    ref, k = toks[k + 1].text, k + 2
                elif k < end and toks[k].kind in ("word", "ident") and not toks[k].is_word(*NOT_ALIAS):
                    ref, k = toks[k].text, k + 1
                found.append((schema, name, ref))
                expect = False
                continue
            elif depth == 0 and (t.text == "," or t.is_word("JOIN", "STRAIGHT_JOIN")):
                expect = True
            k += 1
        return found

    def plan_multi_delete(self, target_at: int, join_at: int) -> Plan:
        """DELETE t1[, t2 ...] FROM <join> WHERE ... / DELETE FROM t1[, t2 ...] USING <join> WHERE
        ...: one target's rows chosen by rowid through the join; several targets' from a snapshot
        of the join (`engine.multiwrite`)."""
        toks = self.tokens
        named: list[tuple[str, str]] = []
        after = target_at
        while True:
            after, target_schema, target = self.read_table_name(after)
            if after + 1 < len(toks) and toks[after].text == "." and toks[after + 1].text == "*":
                after += 2  # DELETE t.* FROM ...
            named.append((target_schema, target))
            if after >= len(toks) or toks[after].text != ",":
                break
            after += 1
        if target_at != join_at and after != join_at:
            raise self.error_at(after)
        if self.returning_at is not None:  # MariaDB's grammar has no RETURNING for a join
            raise syntax_error(self.shape[self.full_tokens[self.returning_at].start:])
        if target_at == join_at and not toks[after].is_word("FROM"):
            raise self.error_at(after)
        # each target names a table of the join, or its alias
        if toks[after].is_word("USING"):  # the join follows, as after FROM
            toks[after] = Token("word", "FROM", -1, toks[after].start, toks[after].end)
        where_at = self.clause_at(after + 1, ("WHERE",))
        limited = self.clause_at(after + 1, ("ORDER", "LIMIT"))
        if limited < len(toks):  # MariaDB's grammar has none for a join
            raise self.error_at(limited)
        refs = self.join_tables(after + 1, where_at)
        found = []
        for target_schema, target in named:
            match = [t for t in refs if t[2] == target]
            if not match:
                raise SQLError(ER_NO_SUCH_TABLE, target_schema, target)
            found.append(match[0])
        found = list(dict.fromkeys(found))
        self.scan_exact(self.finder(), after, len(toks))
        if len(found) > 1:
            return self.plan_delete_several(found, after, where_at)
        schema, name, alias = found[0]
        table = self.need_table(schema, name)
        self.out.append(f"DELETE FROM {self.table_sql(schema, table.name)} WHERE rowid IN (SELECT "
                        f"{quote_ident(alias)}.rowid")
        self.joined_targets = 1  # (its join names it too)
        end = self.emit_range(after, len(toks))
        if end != len(toks):
            raise self.error_at(end)
        self.out.append(")")
        return self.finish("write", target=(schema, table.name))

    def plan_delete_several(self, found: list[tuple[str, str, str]], from_at: int, where_at: int) -> Plan:
        """DELETE of several targets: the rowids of each from one snapshot of the join. Targets
        one of which references another (a foreign key) are deleted in an order MariaDB's join
        decides: 1235."""
        tables = [self.need_table(schema, name) for schema, name, _ in found]
        keys = {(t.schema, t.name.lower()) for t in tables}
        if any((fk.ref_schema, fk.ref_table.lower()) in keys for t in tables for fk in t.foreign_keys):
            raise SQLError(ER_NOT_SUPPORTED_YET, "DELETE from several tables one of which references another")
        self.out.append("SELECT " + ", ".join(f"{quote_ident(ref)}.rowid" for _, _, ref in found))
        self.emit_join(from_at + 1, where_at, where_at)
        targets = tuple(Target(t.schema, t.name, n) for n, t in enumerate(tables))
        return self.finish("write", target=(tables[0].schema, tables[0].name), multi=MultiWrite(targets))

    def clause_at(self, start: int, words: tuple[str, ...]) -> int:
        """Where the first of `words` at depth 0 is in tokens[start:] (len(tokens) when none)."""
        toks = self.tokens
        depth = 0
        for k in range(start, len(toks)):
            t = toks[k]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.is_word(*words):
                return k
        return len(toks)


# what ends the value of an assignment @x := value (besides a ',' or ')' around it, an alias)
_ASSIGNMENT_END = CLAUSE_WORDS | JOIN_WORDS | {"FROM", "AS"}
# the words that may follow an operand inside a value (not an alias)
_VALUE_WORDS = frozenset({"END", "COLLATE", "ESCAPE", "NULL", "TRUE", "FALSE", "UNKNOWN"}) | UNIT_WORDS


def _ends_operand(tok: Token) -> bool:
    """`tok` can end an operand (a literal, a name, a closing parenthesis): a word after it is
    an operator."""
    if tok.kind == "op":
        return tok.text == ")"
    return not (tok.kind == "word" and tok.upper in _OPERATOR_WORDS)


_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "XOR", "DIV", "MOD", "IS", "IN", "LIKE", "BETWEEN", "SELECT",
                             "WHERE", "ON", "WHEN", "THEN", "ELSE", "CASE", "BY", "HAVING", "SET", "VALUES",
                             "RETURN", "INTERVAL", "DISTINCT", "ALL", "ANY", "SOME", "EXISTS", "REGEXP", "RLIKE"})


def _names_infoschema(tokens: list[Token]) -> bool:
    """Whether a SELECT's own FROM (not a subquery's or a derived table's) names an
    information_schema view."""
    depth = 0
    for n, t in enumerate(tokens):
        if t.kind == "op" and t.text in "()":
            depth += 1 if t.text == "(" else -1
        elif depth == 0 and t.text.lower() == "information_schema" and n + 1 < len(tokens) \
                and tokens[n + 1].text == ".":
            return True
    return False


def _aggregates(toks: list[Token]) -> bool:
    """`toks` call an aggregate function, not as a window function (`calls_aggregate`)."""
    return calls_aggregate(toks) and not calls_aggregate(toks, windows_only=True)


def _selects(toks: list[Token]) -> Iterator[tuple[list[list[Token]], int]]:
    """Each SELECT of `toks`, at any depth: its select items (`select_items`) and the index after them."""
    for start, t in enumerate(toks):
        if t.is_word("SELECT"):
            found = select_items(toks[start:])
            if found is not None:
                yield found[0], start + found[1]
