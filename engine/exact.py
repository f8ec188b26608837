"""Which expressions of a statement compute on DECIMAL values, and the `decimal_math` calls that
compute them exactly (SQLite's arithmetic on them is a double, wrong beyond ~15 digits).

Contract. `Finder(tokens, lookup).scan(lo, hi)` walks the expressions of tokens[lo:hi] (each
clause's expressions, subqueries and function arguments included) with MySQL's operator
precedence, and types them by category from the schema (`lookup(names)` -> the column's
`ColumnType`): `dec` (DECIMAL, BIGINT UNSIGNED and BIT, which SQLite holds as exact text), `int`, `float`,
`str` (a character or binary string column but ENUM and SET, a string function), `lit` (a
literal: its kind is known only per execution, the shape is shared), `other`. It
returns the regions to emit differently, start token -> (end, tree), where a tree is
  ("tokens", start, end)   the tokens, emitted as usual (regions inside them included)
  ("call", name, *trees)   a `decimal_math` function
  ("raw", text)            SQL text
  ("seq", *trees)          trees one after the other
  ("dec", param)            a literal bound as its exact text (never a float)
What becomes a call: + - * / DIV % and unary - with a DECIMAL operand, / of two exact integers
(MySQL's division is DECIMAL), arithmetic on literals only (`0.1 + 0.2`; integers stay
integers), comparisons and ABS / GREATEST ... of literals only where one has more digits than a
double holds (the lexer's Decimal: `exact_literal`, its kind recorded, `literal_kind`), a
temporal column in arithmetic (its number, 20200102030405.5); SUM, AVG (also DISTINCT and OVER),
ABS, ROUND, TRUNCATE, FLOOR, CEIL, GREATEST, LEAST, MOD, NULLIF of DECIMAL arguments; SUM and
AVG of a BIGINT column; CAST(x AS DECIMAL(m,d)); CASE d WHEN ...; a literal past a double's
digits beside a column in arithmetic, passed on by IF / IFNULL / COALESCE / NULLIF / CASE, a
scalar subquery's or a UNION branch's item, an argument of GREATEST / LEAST or of a string
function (its digits), bound as its exact text, a DECIMAL (`exact_operand`); comparisons, BETWEEN and IN with a DECIMAL side (`mysql_dec_cmp`), except a stored DECIMAL
column against literals or another stored DECIMAL column, which SQLite compares by value
already (the column's `mysql_decimal` collation, index usable): there only the literals are
bound exact. A scalar subquery has its item's category. A region whose value is a DECIMAL gets
`COLLATE mysql_decimal`, so that ORDER BY, GROUP BY, DISTINCT, MIN and MAX (and an alias or
position naming it) order its texts by value; a UNION's column MySQL makes a DECIMAL gets that in
every branch, an integer branch's value as its text, and one MySQL makes a DOUBLE its DECIMAL
branches' values as doubles (`set_columns`). MOD / % / DIV with a DOUBLE
or a literal beside an integer are MySQL's (`remainder`: SQLite's read 2.5 as 2). Integer, float and string expressions are never
changed (SQLite's own operators: no Python per row), but for the bit operators below. A comparison (and IN, BETWEEN) of a number
with a string compares numbers, as MySQL's: the string side becomes `CAST(x AS NUMERIC)`
(`convert_operands`); where a literal's kind decides it, the literal's value is read (`literal`) and
the literal recorded in `kinds`, which the plan is then keyed by (`Plan.literal_kinds`).
JSON_EXTRACT(...) compared with a string is a JSON string unquoted, with a number its number, as
MariaDB's comparator reads it (`json_compared`). Also MySQL's bit
operators (`^`, which SQLite lacks, `~`, `&`, `|`, `<<`, `>>`: 64 bits unsigned where SQLite's
are signed) and the logical XOR become functions, a bit operator's value a `dec` (its digits past
2^63); HEX of a DECIMAL is the number's hex (`mysql_hex_number`), not its text's; CAST(x AS
SIGNED) of a BIGINT UNSIGNED or BIT column takes its bits. A ZEROFILL column (a YEAR) read as a
string (a string function's argument, LIKE's operands, CAST AS CHAR) is its padded text
(`mysql_zerofill`: CONCAT(a) '00042', as MariaDB's). A scalar subquery that
may return several rows (it reads a table, and does not aggregate without GROUP BY) is checked:
`(SELECT * FROM (q) WHERE mysql_one_row((SELECT count(*) FROM (SELECT 1 FROM (q) LIMIT 2))))`,
1242 past one row as MySQL's (SQLite gives the first), its value and affinity q's (a derived table
`FROM a, (SELECT ...)` is not one: `derived_table`); q then runs twice. An ENUM or SET column
(`members` names them) is read as MySQL reads it as a number (an ENUM its member's number, a SET
its members' bits: `member_number`, an INT) as an operand of arithmetic, bit and logical operators,
compared with a number (=, IN, BETWEEN, ...), as a WHERE / HAVING / ON condition of its own, as an
argument of SUM, AVG, ABS, ROUND ... (and GREATEST / LEAST beside a number) and under CAST to a
number; elsewhere it is its text (against a string, MIN / MAX). CAST(x AS SIGNED /
UNSIGNED) becomes `mysql_cast_int` told what x is (a DECIMAL rounds half away from zero, a
DOUBLE half to even, a string reads its leading integer) and ROUND of a DOUBLE
`mysql_round_double` (half to even, as MySQL's rint). Integer + - * keep MySQL's range
(`arithmetic`): each expression carries its integer kind (BIGINT, BIGINT UNSIGNED, or a literal's,
decided by its value) and the bits its magnitude may take; where they may pass 63 bits (a BIGINT
column, INT * INT * INT), or an operand is unsigned, or the operands are literals only, the sum
is `mysql_int_add` / `_sub` / `_mul`, which fail with 1690 past BIGINT (BIGINT UNSIGNED) and
a literal expression past DOUBLE, naming the expression as MariaDB prints it (`printed`, its
literals marked for the statement's texts); anything narrower (an INT column's `k + 1`) stays
SQLite's. An expression outside the grammar
(INTERVAL arithmetic, row constructors ...) is left as written (SQLite's double where it
computes on DECIMALs), its subexpressions still found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal

from engine import values
from engine.catalog import sql_literal
from engine.coltypes import INTEGER_CODES, STRING_CODES, ColumnType, datetime_type
from engine.exprtypes import Unknown, skip_parens, split_select
from engine.lexer import Hybrid, Token
from protocol.messages import ColumnFlag, FieldType

DEC, INT, FLOAT, LIT, OTHER, NULL, STR = "dec", "int", "float", "lit", "other", "null", "str"
NUMERIC = {DEC, INT, LIT, NULL}
COLLATE = ("raw", "COLLATE mysql_decimal")

# binary operators by precedence (MySQL's, lowest first)
_PREC = {"OR": 1, "||": 1, "XOR": 2, "AND": 3, "&&": 3, "=": 5, "<=>": 5, ">=": 5, "<=": 5, "<": 5,
         ">": 5, "!=": 5, "<>": 5, "IS": 5, "LIKE": 5, "REGEXP": 5, "RLIKE": 5, "IN": 5, "BETWEEN": 5,
         "NOT": 5, "SOUNDS": 5, "|": 6, "&": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10,
         "DIV": 10, "%": 10, "MOD": 10, "^": 11}
LITERAL_MARK = "\x01"  # a literal in a printed expression: the mark, its index, the mark
_INT_BITS = {FieldType.TINY: 7, FieldType.SHORT: 15, FieldType.INT24: 23, FieldType.LONG: 31, FieldType.LONGLONG: 63}
_CHECKED = {"+": "mysql_int_add", "-": "mysql_int_sub", "*": "mysql_int_mul"}
NUMBER_VALUES = (int, float, Decimal)  # a literal that holds a number (`Finder.number_literal`)
EXACT = "exact"  # the kind of a literal number with more digits than a double holds (`literal_kind`)
HYBRID = "hybrid"  # the kind of a 0x.. or bit literal (`lexer.Hybrid`) whose number is a BIGINT
HYBRID_DIGITS = "hybrid digits"  # ... whose number is past BIGINT (its digits)


def literal_kind(value: object) -> bool | str:
    """A literal's kind as a plan read it (`Plan.literal_kinds`): EXACT for a number with a point
    and more digits than a double holds (`lexer.decode_number`'s Decimal), True for any other
    number, HYBRID or HYBRID_DIGITS for a 0x.. or bit literal (as its number's kind differs: the
    translation reads it as a string or a number by its place, never as this kind,
    `translate.Translator.read_hybrids`), False for anything else."""
    if type(value) is Hybrid:
        return HYBRID if type(value.number) is int else HYBRID_DIGITS
    return EXACT if type(value) is Decimal else type(value) in NUMBER_VALUES


BINARY_STRING, CHARACTER_STRING = "binary string", "character string"  # (`string_kind`)


def string_kind(value: object) -> bool | str:
    """A literal's kind where the translation read whether it is a binary string (X'..': bytes)
    or a string of characters (`translate.Translator.binary_string`): BINARY_STRING or
    CHARACTER_STRING for those, `literal_kind` for anything else (`Plan.literal_kinds`)."""
    if type(value) is bytes:
        return BINARY_STRING
    return CHARACTER_STRING if type(value) is str else literal_kind(value)


NUMBER_STRING = "number string"  # (`text_kind`)


def text_kind(value: object) -> bool | str:
    """A literal's kind where the translation read whether a string read as a number is one
    throughout (`translate.Translator.number_text`): NUMBER_STRING for one ('5', ' 1.5e3'),
    `string_kind` for any other."""
    if type(value) in (str, bytes) and values.number_warning(value, "DOUBLE") is None:  # type: ignore[arg-type]
        return NUMBER_STRING
    return string_kind(value)


def plan_kind(value: object, recorded: bool | str) -> bool | str:
    """`value`'s kind as a plan recorded one (`recorded`): `text_kind` or `string_kind` where
    that is what it read, else `literal_kind`."""
    if recorded == NUMBER_STRING:
        return text_kind(value)
    return string_kind(value) if recorded in (BINARY_STRING, CHARACTER_STRING) else literal_kind(value)


_TEMPORAL_NAMES = {FieldType.DATE: "date", FieldType.DATETIME: "datetime", FieldType.TIMESTAMP: "timestamp",
                   FieldType.TIME: "time"}
_MIDNIGHT = (FieldType.DATETIME, FieldType.TIMESTAMP)
_TYPED_LITERALS = {"DATE": FieldType.DATE, "TIME": FieldType.TIME, "TIMESTAMP": FieldType.DATETIME}
_INT_TARGETS = ("SIGNED", "UNSIGNED", "INTEGER", "INT")
_COMPARE = {"=", "<=>", ">=", "<=", "<", ">", "!=", "<>"}
_REMAINDERS = ("%", "MOD", "DIV")
_ARITH = {"+": "mysql_dec_add", "-": "mysql_dec_sub", "*": "mysql_dec_mul", "/": "mysql_dec_div",
          "%": "mysql_dec_mod", "MOD": "mysql_dec_mod", "DIV": "mysql_dec_intdiv"}
_DEC_FUNCS = {"ABS": "mysql_dec_abs", "FLOOR": "mysql_dec_floor", "CEIL": "mysql_dec_ceil",
              "CEILING": "mysql_dec_ceil", "ROUND": "mysql_dec_round", "TRUNCATE": "mysql_dec_truncate",
              "GREATEST": "mysql_dec_greatest", "LEAST": "mysql_dec_least", "MOD": "mysql_dec_mod",
              "SUM": "mysql_dec_sum", "AVG": "mysql_dec_avg"}
_BIT_OPS = {"^": "mysql_bit_xor", "&": "mysql_bit_and", "|": "mysql_bit_or", "<<": "mysql_bit_shl",
            ">>": "mysql_bit_shr"}
_SAME_AS_ARGS = {"MIN", "MAX", "ANY_VALUE", "IFNULL", "COALESCE", "NULLIF", "IF"}
_INT_RESULT = {"COUNT", "LENGTH", "OCTET_LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH", "LOCATE", "INSTR",
               "POSITION", "YEAR", "MONTH", "DAY", "DAYOFMONTH", "HOUR", "MINUTE", "SECOND", "SIGN",
               "LAST_INSERT_ID", "UNIX_TIMESTAMP", "ROW_COUNT", "FOUND_ROWS", "CONNECTION_ID",
               "ASCII", "ORD", "CRC32", "DATEDIFF", "TIMESTAMPDIFF", "TO_DAYS", "BIT_COUNT", "STRCMP"}
_STR_RESULT = {"CONCAT", "CONCAT_WS", "UPPER", "LOWER", "UCASE", "LCASE", "SUBSTRING", "SUBSTR", "MID", "LEFT",
               "RIGHT", "TRIM", "LTRIM", "RTRIM", "REPLACE", "REPEAT", "REVERSE", "LPAD", "RPAD", "HEX", "MD5",
               "SHA1", "SHA2", "SPACE", "QUOTE", "INSERT", "ELT", "SUBSTRING_INDEX", "SOUNDEX"}
_FLOAT_RESULT = {"RAND", "SQRT", "POW", "POWER", "EXP", "LN", "LOG", "LOG2", "LOG10", "SIN", "COS",
                 "TAN", "ASIN", "ACOS", "ATAN", "ATAN2", "PI", "DEGREES", "RADIANS", "STD", "STDDEV",
                 "VARIANCE", "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP"}
# JSON functions whose value is a string of characters (a JSON_EXTRACT compared with one is unquoted)
_JSON_TEXT = frozenset({"JSON_UNQUOTE", "JSON_VALUE"})
# functions that read their arguments as strings: a ZEROFILL column's padded text (`_zerofilled`)
_READ_AS_TEXT = (_STR_RESULT - {"HEX", "ELT", "SPACE"}) | {
    "LENGTH", "CHAR_LENGTH", "CHARACTER_LENGTH", "OCTET_LENGTH", "LOCATE", "INSTR"}
# functions that read their arguments as numbers (an ENUM or SET argument as its number)
_NUMBER_ARGS = {*_DEC_FUNCS, *_FLOAT_RESULT, "SIGN", "BIT_AND", "BIT_OR", "BIT_XOR", "BIT_COUNT"} - {"GREATEST", "LEAST"}
NUMBER_ARGS = frozenset(_NUMBER_ARGS)
# what a call gives: a string, a number (`translate.Translator.operand_kind`)
STRING_CALLS = frozenset(_STR_RESULT)
NUMBER_CALLS = frozenset(_INT_RESULT | _FLOAT_RESULT | _NUMBER_ARGS | set(_DEC_FUNCS))
# aggregate functions (a SELECT that calls one outside parentheses, without GROUP BY, is one row)
AGGREGATE_CALLS = frozenset({"COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_AND", "BIT_OR", "BIT_XOR",
                             "STD", "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP",
                             "JSON_ARRAYAGG", "JSON_OBJECTAGG"})
# the words that begin a clause (`Finder.derived_table` looks back for the nearest)
_CLAUSE_WORDS = frozenset({"FROM", "JOIN", "SELECT", "WHERE", "ON", "SET", "HAVING", "BY", "VALUES", "VALUE",
                           "USING", "LIMIT", "WHEN", "THEN", "ELSE", "RETURNING", "UPDATE", "INTO"})
# words that never start or continue an expression (the end of one)
_STOP = {"SELECT", "FROM", "WHERE", "GROUP", "ORDER", "BY", "HAVING", "LIMIT", "OFFSET", "SET", "UPDATE",
         "DELETE", "INSERT", "INTO", "VALUES", "VALUE", "AS", "ON", "USING", "JOIN", "STRAIGHT_JOIN",
         "INNER", "CROSS", "LEFT", "RIGHT", "OUTER", "NATURAL", "UNION", "EXCEPT", "INTERSECT", "ASC",
         "DESC", "WHEN", "THEN", "ELSE", "END", "FOR", "LOCK", "WINDOW", "INTERVAL", "DISTINCT", "ALL",
         "DUPLICATE", "KEY", "ESCAPE", "COLLATE", "SEPARATOR", "WITH", "ROLLUP", "OVER", "PARTITION",
         "RETURNING", "DISTINCTROW", "USE", "FORCE", "IGNORE", "INDEX", "AND", "OR", "XOR", "IS", "IN",
         "LIKE", "REGEXP", "RLIKE", "BETWEEN", "DIV", "MOD", "NOT", "BINARY", "_BINARY", "EXISTS",
         "CASE", "NULL", "TRUE", "FALSE", "UNKNOWN", "SOUNDS"}
# tokens after which an expression starts (where `scan` tries one)
_STARTS_AFTER = {"SELECT", "WHERE", "HAVING", "ON", "BY", "WHEN", "THEN", "ELSE", "AND", "OR", "XOR",
                 "NOT", "DISTINCT", "ALL", "DISTINCTROW", "SQL_CALC_FOUND_ROWS", "SQL_NO_CACHE",
                 "SQL_CACHE", "HIGH_PRIORITY", "STRAIGHT_JOIN", "RETURNING"}


def _unsigned_64(ct: ColumnType) -> bool:
    """A BIGINT UNSIGNED or BIT column: its values held as their digits (`Column.unsigned_64`)."""
    return ct.type == FieldType.BIT or ct.type == FieldType.LONGLONG and bool(ct.flags & ColumnFlag.UNSIGNED)


class _Fail(Exception):
    """Not an expression of the grammar: left as written."""


@dataclass
class Expr:
    start: int
    stop: int
    cat: str
    tree: tuple | None = None  # None: emitted as written
    kind: str = ""  # "col": a stored DECIMAL column; "lit": a literal; "neglit": -literal;
    # "litexpr": arithmetic on literals only; "bigint": a BIGINT column; "temporal": a date/time one;
    # "typedlit": DATE 'x', TIME 'x', TIMESTAMP 'x'; "json": JSON_EXTRACT(...)
    param: int = -1
    column: ColumnType | None = None  # a bare column reference: its type (a typed literal's type)
    # an ENUM or SET column (kind "member"): "enum" or "set" and its members, in order
    members: tuple[str, tuple[str, ...]] | None = None
    # an integer's kind ("s" BIGINT, "u" BIGINT UNSIGNED, "l" a literal's value decides) and the
    # bits its magnitude may take (`Finder.arithmetic`); "" for any other expression
    ints: str = ""
    bits: int = 0
    printed: str = ""  # as MariaDB prints it (`printed`), where arithmetic reads it
    prec: int = 100  # its operator's precedence (_PREC; 100 an operand)

    def emit(self) -> tuple:
        """As written (regions inside found by the emitter)."""
        return self.tree if self.tree is not None else ("tokens", self.start, self.stop)

    def exact(self) -> tuple:
        """As an operand of a decimal_math function: literals bound as their exact text."""
        if self.kind == "lit":
            return ("dec", self.param)
        if self.kind == "neglit":
            return ("call", "mysql_dec_neg", ("dec", self.param))
        return self.emit()


def _integer(e: Expr) -> tuple[str, int] | None:
    """`e`'s integer kind and magnitude bits, None when it is no integer. An integer expression
    of unknown width (COUNT(*), LENGTH(s)) and a literal are taken to fit in 31 bits: SQLite adds
    them to INT columns natively (a literal past 2^31 beside an INT column can make a sum overflow
    unnoticed, a SELECT's value SQLite's REAL, a write's 1264 out of the column's range)."""
    if e.ints:
        return e.ints, e.bits
    if e.cat == INT:
        return "s", 31
    if e.cat == LIT and e.tree is None:
        return "l", 31
    return None


def _unparenthesized(tree: tuple | None) -> tuple:
    """An emitted tree without the parentheses around it (() for None)."""
    while tree is not None and len(tree) == 4 and tree[0] == "seq" and tree[1] == ("raw", "(") \
            and tree[3] == ("raw", ")"):
        tree = tree[2]
    return tree or ()


def printed(e: Expr, toks: list[Token], prec: int = 0, right: bool = False) -> str:
    """`e` as MariaDB prints an expression (1690's message): operators between spaces, a
    parenthesis only where precedence needs one, a column `db`.`table`.`column`, a literal
    marked (LITERAL_MARK, its index) for the statement's text of it."""
    text = e.printed or " ".join(t.text for t in toks[e.start:e.stop])
    return f"({text})" if e.prec < prec or right and e.prec == prec else text


def _column_printed(ct: ColumnType, names: list[str]) -> str:
    origin = ct.origin
    if origin is None:
        return ".".join(f"`{n}`" for n in names)
    return f"`{origin[0]}`.`{origin[1]}`.`{origin[3]}`"


def _digits(value: object) -> bool:
    """Whether a literal's value is a number past BIGINT kept as its digits
    (`lexer.decode_number`; a quoted string of as many digits reads the same)."""
    return isinstance(value, str) and value.isdigit() and int(value) >= 1 << 63


def _cast_number(e: Expr) -> tuple:
    return ("seq", ("raw", "CAST("), e.emit(), ("raw", "AS NUMERIC)"))


def _as_number(e: Expr) -> Expr:
    """A temporal column or typed literal in arithmetic: the number MySQL makes of it (TIME
    '12:34:56' is 123456), not SQLite's reading of its text (12); an ENUM or SET column:
    `_member_number`."""
    if e.kind == "member":
        return _member_number(e)
    if e.kind not in ("temporal", "typedlit"):
        return e
    return Expr(e.start, e.stop, DEC, ("call", "mysql_temporal_number", e.emit()))


def _zerofilled(e: Expr) -> Expr:
    """A ZEROFILL column (a YEAR) read as a string: its padded text (`mysql_zerofill`)."""
    ct = e.column
    if ct is None or e.tree is not None or not ct.flags & ColumnFlag.ZEROFILL or e.kind in ("typedlit", "member"):
        return e
    args = (("raw", str(n)) for n in (ct.length, ct.decimals, ct.type))
    return Expr(e.start, e.stop, STR, ("call", "mysql_zerofill", e.emit(), *args))


def _member_number(e: Expr) -> Expr:
    """An ENUM or SET column where MySQL reads it as a number (`member_number`); anything else
    as it is."""
    if e.kind != "member" or e.members is None:
        return e
    return Expr(e.start, e.stop, INT, member_number(("tokens", e.start, e.stop), *e.members))


def member_number(column: tuple, base: str, members: tuple[str, ...] | list[str]) -> tuple:
    """The number MySQL reads an ENUM or SET `column` (a tree) as: an ENUM its member's number (1
    for the first, 0 for the '' of an invalid value), a SET the bits of its members (1 for the
    first, 2 for the second ...); NULL stays NULL. The column holds each member as declared
    (`values` stores them so), compared here as stored."""
    if base == "enum":
        whens = " ".join(f"WHEN {sql_literal(m)} THEN {k}" for k, m in enumerate(members, 1))
        return ("seq", ("raw", "(CASE"), column, ("raw", f"{whens} WHEN '' THEN 0 END)"))
    parts: list[tuple] = [("raw", "(0")]
    for k, m in enumerate(members):
        parts += [("raw", "+ (instr(',' ||"), column, ("raw", f"|| ',', {sql_literal(',' + m + ',')}) > 0) * {1 << k}")]
    return ("seq", *parts, ("raw", ")"))


class Finder:
    def __init__(self, tokens: list[Token], lookup: Callable[[list[str]], ColumnType | None],
                 aliases: dict[str, str] | None = None, literal: Callable[[int], object] = lambda n: None,
                 kinds: dict[int, bool | str] | None = None,
                 members: Callable[[list[str]], tuple[str, tuple[str, ...]] | None] = lambda names: None,
                 unsigned: dict[int, bool] | None = None) -> None:
        self.toks = tokens
        self.lookup = lookup  # [[db.]table.]column -> ColumnType | None
        self.members = members  # an ENUM or SET column's "enum" / "set" and members, by name
        self.literal = literal  # a literal's value in this execution, by its index
        # the literals whose kind (a number or not) the regions depend on: index -> a number
        self.kinds: dict[int, bool | str] = {} if kinds is None else kinds
        self.aliases = aliases if aliases is not None else {}  # select-list alias -> category
        self.alias_names: set[int] = set()  # names read as a select alias, not a column (HAVING's)
        self.regions: dict[int, tuple[int, tuple]] = {}
        self.stop = len(tokens)
        # the literals read as a BIGINT UNSIGNED (a hybrid's number, `lexer.Hybrid`): index -> True
        self.unsigned = {} if unsigned is None else unsigned

    # --- the walk ------------------------------------------------------------------------------

    def scan(self, lo: int, hi: int) -> dict[int, tuple[int, tuple]]:
        """Find the regions of every expression in tokens[lo:hi]."""
        toks = self.toks
        i = lo
        while i < hi:
            t = toks[i]
            prev = toks[i - 1] if i > lo else None
            starts = prev is None or (prev.kind == "op" and prev.text in ("(", ",")) \
                or (prev.kind == "word" and prev.upper in _STARTS_AFTER)
            if starts and self.can_start(t):
                e = self.within(i, hi)
                if e is not None and e.stop > i:
                    if prev is not None and prev.is_word("WHERE", "HAVING", "ON"):
                        e = _member_number(e)  # a condition that is an ENUM / SET: true when its number is
                    self.root(e)
                    i = e.stop
                    continue
            i += 1
        return self.regions

    def value(self, lo: int, hi: int) -> Expr | None:
        """tokens[lo:hi] as one expression (a SET or VALUES value), its regions found; None
        when it is not one of the grammar (its regions are still found)."""
        e = self.within(lo, hi)
        if e is None or e.stop != hi:
            self.scan(lo, hi)
            return None
        return e

    def within(self, lo: int, hi: int) -> Expr | None:
        """The expression starting at tokens[lo], read no further than tokens[hi - 1]; None when
        none of the grammar starts there."""
        saved = self.stop
        self.stop = hi
        try:
            return self.expr(lo, 0)
        except (_Fail, IndexError):
            return None
        finally:
            self.stop = saved

    def root(self, e: Expr) -> None:
        if e.tree is not None:
            tree = ("seq", e.tree, COLLATE) if e.cat == DEC else e.tree
            self.regions[e.start] = (e.stop, tree)

    def set_columns(self, branches: list[list[tuple[int, int]]]) -> None:
        """The select items of a UNION's (EXCEPT's, INTERSECT's) branches, each branch's items as
        (lo, hi) spans: a column MySQL makes a DECIMAL (a DECIMAL branch beside exact numbers:
        DECIMALs, integers, number literals, NULL) gets every branch's value as its decimal text
        `COLLATE mysql_decimal`, which SQLite takes from the leftmost branch for the merged
        column: its UNION's duplicates and its ORDER BY compare values (SQLite's own would put
        every integer before every text, and keep 5 apart from '5.00'); one MySQL makes a DOUBLE
        (a DOUBLE branch beside them) gets its DECIMAL branches' values as doubles."""
        if len({len(items) for items in branches}) != 1:
            return
        for spans in zip(*branches, strict=True):
            found = [self.within(lo, hi) for lo, hi in spans]
            if any(e is None or e.stop != hi for e, (_, hi) in zip(found, spans, strict=True)):
                continue
            exprs: list[Expr] = [self.exact_operand(e) for e in found if e is not None]
            if not any(e.cat == DEC for e in exprs) or not all(
                    e.cat in (DEC, INT, NULL, FLOAT) or e.kind in ("lit", "neglit") and self.number_literal(e)
                    for e in exprs):
                continue
            if any(e.cat == FLOAT for e in exprs):  # a DOUBLE column: the DECIMALs as doubles
                for e in exprs:
                    if e.cat == DEC:
                        self.regions[e.start] = (e.stop, ("seq", ("raw", "CAST("), e.emit(), ("raw", "AS REAL)")))
                continue
            for e in exprs:
                value = e.exact() if e.cat in (DEC, LIT, NULL) else ("seq", ("raw", "CAST("), e.emit(),
                                                                     ("raw", "AS TEXT)"))
                self.regions[e.start] = (e.stop, ("seq", value, COLLATE))

    def can_start(self, t: Token) -> bool:
        if t.kind in ("param", "ident", "var", "sysvar"):
            return True
        if t.kind == "op":
            return t.text in ("(", "-", "+", "~", "!")
        return t.kind == "word" and (t.upper not in _STOP or t.upper in ("NOT", "CASE", "NULL", "TRUE", "FALSE",
                                                                           "EXISTS", "BINARY", "_BINARY"))

    def at(self, i: int, *texts: str) -> bool:
        return i < self.stop and self.toks[i].kind == "op" and self.toks[i].text in texts

    def word(self, i: int, *words: str) -> bool:
        return i < self.stop and self.toks[i].is_word(*words)

    # --- precedence climbing ---------------------------------------------------------------------

    def expr(self, i: int, min_prec: int) -> Expr:
        left = self.unary(i)
        i = left.stop
        while i < self.stop:
            t = self.toks[i]
            op = t.text if t.kind == "op" else (t.upper if t.kind == "word" else "")
            prec = _PREC.get(op)
            if prec is None or prec < min_prec:
                break
            if op == "IS":
                j = i + 1
                while self.word(j, "NOT", "NULL", "TRUE", "FALSE", "UNKNOWN"):
                    j += 1
                left = self.native(left.start, j, INT, [left])
            elif op == "NOT" or op in ("IN", "BETWEEN", "LIKE", "REGEXP", "RLIKE", "SOUNDS"):
                left = self.predicate(left, i)
            elif op in _COMPARE:
                right = self.expr(i + 1, prec + 1)
                left = self.compare(left, op, right)
            else:
                right = self.expr(i + 1, prec + 1)
                left = self.binary(left, op, right)
            i = left.stop
        return left

    def native(self, start: int, stop: int, cat: str, parts: list[Expr]) -> Expr:
        """A node emitted as written: its parts' trees become regions of their own."""
        for part in parts:
            self.root(part)
        return Expr(start, stop, cat)

    def binary(self, a: Expr, op: str, b: Expr) -> Expr:
        if op not in _ARITH:  # bit and logical operators read an ENUM / SET as its number too
            a, b = _member_number(a), _member_number(b)
        if op in _BIT_OPS:
            # MySQL's are over 64 bits unsigned (-1 | 0 is 2^64-1, 1 << 63 is 2^63), a DECIMAL's
            # number rounded; SQLite's are signed (and read a BIGINT UNSIGNED's digits past 2^63
            # as its largest integer): past 2^63 the result's digits
            return Expr(a.start, b.stop, DEC, ("call", _BIT_OPS[op], a.emit(), b.emit()), ints="u", bits=64)
        if op == "XOR":  # (SQLite has no logical XOR)
            return Expr(a.start, b.stop, INT, ("call", "mysql_xor", a.emit(), b.emit()))
        if op in _ARITH:
            a, b = _as_number(a), _as_number(b)
            if (a.cat == LIT) != (b.cat == LIT) and NULL not in (a.cat, b.cat):
                a, b = self.exact_operand(a), self.exact_operand(b)  # `id + 1.2345678901234567890`
            if op in _CHECKED and (e := self.arithmetic(a, op, b)) is not None:
                return e
            cats = {a.cat, b.cat}
            if cats <= NUMERIC and NULL not in cats and (DEC in cats or (op == "/" and cats <= {INT, LIT}
                                                                          and INT in cats)):
                cat = INT if op == "DIV" else DEC
                unsigned = op == "DIV" and "u" in (a.ints, b.ints)  # u DIV 2 is a BIGINT UNSIGNED
                prec = _PREC[op]
                return Expr(a.start, b.stop, cat, ("call", _ARITH[op], a.exact(), b.exact()),
                            ints="u" if unsigned else "", bits=64 if unsigned else 0, prec=prec,
                            printed=f"{printed(a, self.toks, prec)} {op} {printed(b, self.toks, prec, True)}")
            if cats == {LIT}:  # literals only: `1.5 + 0.1` is a DECIMAL (integers stay integers)
                return Expr(a.start, b.stop, LIT, ("call", _ARITH[op], a.exact(), b.exact()), "litexpr")
            if op in _REMAINDERS and cats <= {INT, FLOAT, LIT} and cats != {INT}:
                return self.remainder(a, op, b, cats)
            cat = INT if cats <= {INT, LIT} and op != "/" else FLOAT  # (strings and dates: MySQL's double)
            return self.native(a.start, b.stop, cat, [a, b])
        return self.native(a.start, b.stop, INT, [a, b])  # logical and bit operators

    def remainder(self, a: Expr, op: str, b: Expr, cats: set[str]) -> Expr:
        """a MOD b, a % b, a DIV b of numbers that are not all integer columns (SQLite's % and /
        read a literal 2.5 as 2, and / of a DOUBLE is no integer division): MOD of a DOUBLE is
        `mysql_mod` (fmod, the dividend's sign), else of an integer and a literal the exact
        remainder (5 MOD 2.5 is 0.0); DIV the exact quotient truncated. A divisor of 0 is NULL
        with the warning 1365 (a write's error under strict mode)."""
        if op == "DIV":
            return Expr(a.start, b.stop, INT, ("call", "mysql_dec_intdiv", a.exact(), b.exact()), prec=_PREC[op])
        if FLOAT in cats:
            return Expr(a.start, b.stop, FLOAT, ("call", "mysql_mod", a.emit(), b.emit()), prec=_PREC[op])
        return Expr(a.start, b.stop, DEC, ("call", "mysql_dec_mod", a.exact(), b.exact()), prec=_PREC[op])

    def arithmetic(self, a: Expr, op: str, b: Expr) -> Expr | None:
        """a + b, a - b, a * b of integers with MySQL's range (`functions._checked`: 1690 past
        BIGINT, or BIGINT UNSIGNED if an operand is one), None for other operands. SQLite computes
        it natively where its magnitude fits 63 bits (`_integer`), else the checked call; literals
        alone and an unsigned operand are computed by the call too (a non-integer literal
        exactly, as the `decimal_math` call they had)."""
        ka, kb = _integer(a), _integer(b)
        if ka is None or kb is None:
            return None
        prec = _PREC[op]
        text = f"{printed(a, self.toks, prec)} {op} {printed(b, self.toks, prec, True)}"
        kinds = ka[0] + kb[0]
        bits = ka[1] + kb[1] if op == "*" else max(ka[1], kb[1]) + 1
        if {a.cat, b.cat} == {LIT} or "u" in kinds:
            cat, kind, ints, fallback = (LIT, "litexpr", "l", "d") if {a.cat, b.cat} == {LIT} else (DEC, "", "u", "d")
        elif bits >= 63:
            cat, kind, ints, fallback = INT, "", "s", "f"
        else:
            e = self.native(a.start, b.stop, INT, [a, b])
            e.ints, e.bits, e.printed, e.prec = "s", bits, text, prec
            return e
        call = ("call", _CHECKED[op], a.exact(), b.exact(), ("raw", f"'{kinds}{fallback}'"), ("raw", sql_literal(text)))
        return Expr(a.start, b.stop, cat, call, kind, ints=ints, bits=64 if ints == "u" else 63, printed=text,
                    prec=prec)

    def decimal_side(self, *sides: Expr) -> bool:
        """A DECIMAL among numeric sides, or literals only with an exact sum of literals among
        them (`0.1 + 0.2 IN (0.3)`) or a number past a double's digits (`exact_literal`):
        compared as DECIMALs (SQLite would compare the sum's exact text with a number)."""
        cats = {s.cat for s in sides}
        if LIT in cats and cats <= {LIT, NULL}:
            exact = [self.exact_literal(s) for s in sides]  # (each one's kind recorded)
            return any(exact) or any(s.kind == "litexpr" for s in sides)
        return DEC in cats and cats <= NUMERIC

    def exact_operand(self, e: Expr) -> Expr:
        """`e`, or where it is a literal (maybe negated) holding a number past a double's digits
        (`exact_literal`, its kind recorded), that literal as a DECIMAL bound as its exact text:
        an operand of arithmetic, a value IF / CASE / COALESCE pass on, a string function's
        argument, which SQLite would otherwise read as a double (1.2345678901234567000...)."""
        if not self.exact_literal(e):
            return e
        return Expr(e.start, e.stop, DEC, e.exact(), printed=e.printed, prec=e.prec)

    def passed_on(self, values: list[Expr]) -> list[Expr]:
        """`values` (the values IF / IFNULL / COALESCE / CASE give) with their exact literals as
        DECIMALs (`exact_operand`) where the result is then a DECIMAL, or a string (the number's
        digits), as MySQL's; else as they were (beside a DOUBLE, which SQLite computes)."""
        exact = [self.exact_operand(v) for v in values]
        if self.common(exact) == DEC or all(v.cat in (DEC, STR, NULL) for v in exact):
            return exact
        return values

    def exact_literal(self, e: Expr) -> bool:
        """Whether `e` is a literal, maybe negated, holding a number with more digits than a
        double holds (`literal_kind`, recorded in `kinds`): a DECIMAL SQLite cannot compute."""
        if e.kind not in ("lit", "neglit"):
            return False
        kind = self.kinds[e.param] = literal_kind(self.literal(e.param))
        return kind == EXACT

    def compare(self, a: Expr, op: str, b: Expr) -> Expr:
        if a.kind == "json" and b.kind == "json":  # MariaDB unquotes the left one only: '"x"' = '"x"' is 0
            a = Expr(a.start, a.stop, STR, ("call", "mysql_json_compared_text", a.emit()))
        else:
            a, b = self.json_compared(a, b), self.json_compared(b, a)
        a, (b,) = self.numbers_against_members(a, [b])
        if not self.decimal_side(a, b):
            e = self.native(a.start, b.stop, INT, [a, b])
            self.convert_operands(a, [b])
            return e
        if self.by_collation(a, [b]) or self.by_collation(b, [a]):
            sql = {"<=>": "IS", "<>": "!=", "!=": "!="}.get(op, op)
            return Expr(a.start, b.stop, INT, ("seq", a.exact(), ("raw", sql), b.exact()))
        if op == "<=>":
            return Expr(a.start, b.stop, INT, ("call", "mysql_dec_nseq", a.exact(), b.exact()))
        sql = "!=" if op == "<>" else op
        return Expr(a.start, b.stop, INT, ("seq", ("raw", "("), ("call", "mysql_dec_cmp", a.exact(), b.exact()),
                                           ("raw", f"{sql} 0)")))

    def json_compared(self, e: Expr, other: Expr) -> Expr:
        """`e`, or where it is JSON_EXTRACT(...) compared with `other`, its value as MariaDB's
        comparison reads a JSON value: against a number its number (`mysql_json_compared_number`:
        '"5"' is 5, true 1), against a string a JSON string unquoted (`mysql_json_compared_text`:
        '"w"' = 'w'), SQLite's text of it anywhere else (beside another JSON value, a value of a
        type not told)."""
        if e.kind != "json" or other.kind == "json":
            return e
        if self.is_number(other):
            return Expr(e.start, e.stop, FLOAT, ("call", "mysql_json_compared_number", e.emit()))
        if other.cat == STR or other.kind == "lit" or self.word(other.start, "_BINARY", "BINARY"):
            return Expr(e.start, e.stop, STR, ("call", "mysql_json_compared_text", e.emit()))
        return e

    def convert_operands(self, left: Expr, others: list[Expr]) -> None:
        """Operands of `left`'s comparisons with `others` converted as MySQL compares them, where
        SQLite would compare them otherwise (regions around them):
        - a number with a string compares numbers (doubles; '1abc' is 1, 'abc' 0, with a warning),
          where SQLite orders every number below every text: the string becomes `CAST(x AS
          NUMERIC)` (SQLite reads a text's number prefix as MySQL does). A number is an INT or
          FLOAT expression or a negated literal; a string a STR expression. A literal takes the
          other side's kind: against a number it is cast whatever it holds (a number casts to
          itself), except a number against a bare numeric column (the plan then depends on it:
          `kinds`), where SQLite compares numbers already (a string's affinity conversion would
          leave '2abc' or '' a text, above every number);
          against a string or a literal its value decides (the plan then depends on it: `kinds`).
        - a DATE, DATETIME, TIMESTAMP or TIME column with a literal (a typed one too: DATE 'x')
          compares times: the literal becomes `mysql_temporal(x, type, fsp)`, its text as the
          column holds its value ('2024-1-5' and 20240105 are '2024-01-05', a DATETIME's
          '2024-01-05' is midnight's '2024-01-05 00:00:00'; `values.temporal_text`), one call per
          statement (SQLite folds a deterministic call of constants) and the column's index still
          usable; a typed literal with a string literal likewise; a DATE column with a DATETIME or
          TIMESTAMP column (a DATE literal with a TIMESTAMP literal) compares the date's midnight."""
        wrap: dict[int, tuple[int, tuple]] = {}  # start -> (stop, tree)
        for other in others:
            for x, y in ((left, other), (other, left)):
                if x.kind in ("temporal", "typedlit") and x.column is not None:
                    if y.kind == "lit" or y.kind == "typedlit" and x.kind == "temporal":
                        wrap[y.start] = (y.stop, ("seq", ("raw", "mysql_temporal("), y.emit(), (
                            "raw", f", '{_TEMPORAL_NAMES[x.column.type]}', {x.column.decimals})")))
                    elif x.column.type in _MIDNIGHT and x.column.decimals == 0 and y.kind == (
                            "temporal" if x.kind == "temporal" else "typedlit") \
                            and y.column is not None and y.column.type == FieldType.DATE:
                        wrap[y.start] = (y.stop, ("seq", ("raw", "("), y.emit(), ("raw", "|| ' 00:00:00')")))
                    continue
                if y.kind != "lit" and y.cat != STR:
                    continue
                if x.kind == "neglit" or (x.cat in (INT, FLOAT) and x.kind not in ("lit", "litexpr")):
                    if y.cat == STR or x.column is None or not self.number_literal(y):
                        wrap[y.start] = (y.stop, _cast_number(y))
                elif x.kind == "lit" and self.number_literal(x) and (y.cat == STR or not self.number_literal(y)):
                    wrap[y.start] = (y.stop, _cast_number(y))
        # (each a literal or a column, call, CASE or subquery: no region of a part starts with it)
        self.regions.update(wrap)

    def numbers_against_members(self, left: Expr, others: list[Expr]) -> tuple[Expr, list[Expr]]:
        """A comparison's ENUM or SET column read as its number (`_member_number`) where the
        other side is a number (a numeric expression, a literal holding a number), as MySQL
        compares them; against a string or another ENUM it stays its text."""
        if left.kind == "member" and others and all(map(self.is_number, others)):
            left = _member_number(left)
        elif any(o.kind == "member" for o in others) and self.is_number(left):
            others = [_member_number(o) for o in others]
        return left, others

    def members_in_mixed(self, left: Expr, items: list[Expr], negate: bool, end: int) -> Expr:
        """`left` (an ENUM or SET column) [NOT] IN a list of numbers and strings: each item
        compared by its own type, as MariaDB compares them (`c IN ('a', 2)` holds for 'a' and for
        the second member): the column's text IN the strings OR its number IN the numbers,
        three-valued as one IN."""
        numbers = [item for item in items if self.is_number(item)]
        texts = [item for item in items if not self.is_number(item)]
        parts: list[tuple] = [("raw", "NOT ((" if negate else "((")]
        for column, group in ((left.emit(), texts), (_member_number(left).emit(), numbers)):
            if group is numbers:
                parts.append(("raw", ") OR ("))
            parts += [column, ("raw", "IN (")]
            for n, item in enumerate(group):
                parts += [("raw", ",")] if n else []
                parts.append(item.emit())
            parts.append(("raw", ")"))
        parts.append(("raw", "))"))
        return Expr(left.start, end, INT, ("seq", *parts))

    def is_number(self, e: Expr) -> bool:
        """A numeric expression, or a literal holding a number in this execution (recorded)."""
        if e.kind == "lit":
            return self.number_literal(e)
        return e.kind in ("neglit", "litexpr") or e.cat in (INT, FLOAT, DEC)

    def number_literal(self, e: Expr) -> bool:
        """Whether the literal `e` holds a number in this execution (recorded in `kinds`)."""
        kind = self.kinds[e.param] = literal_kind(self.literal(e.param))
        return kind is not False

    def past_bigint(self, e: Expr) -> bool:
        """Whether `e` is a literal holding a number past BIGINT, kept as its digits (recorded in
        `kinds`): an operand SQLite would read as its largest integer."""
        return e.kind == "lit" and not self.number_literal(e) and _digits(self.literal(e.param))

    @staticmethod
    def by_collation(col: Expr, others: list[Expr]) -> bool:
        """A stored DECIMAL column against literals or stored DECIMAL columns: SQLite compares
        them by value (the column's TEXT affinity and collation), the literals bound exact."""
        return col.kind == "col" and all(o.kind in ("lit", "neglit", "col") for o in others)

    def predicate(self, left: Expr, i: int) -> Expr:
        """[NOT] IN / BETWEEN / LIKE / REGEXP after `left`; tokens[i] is NOT or the word."""
        negate = self.word(i, "NOT")
        j = i + 1 if negate else i
        if self.word(j, "IN"):
            if not self.at(j + 1, "("):
                raise _Fail
            end = self.close(j + 1)
            if self.word(j + 2, "SELECT"):
                self.scan(j + 2, end - 1)
                return self.native(left.start, end, INT, [left])
            items = self.list_of(j + 2, end - 1)
            if left.kind == "member" and len({self.is_number(item) for item in items}) == 2:
                return self.members_in_mixed(left, items, negate, end)
            left, items = self.numbers_against_members(left, items)
            if not self.decimal_side(left, *items):
                e = self.native(left.start, end, INT, [left, *items])
                self.convert_operands(left, items)
                return e
            if self.by_collation(left, items):
                parts: list[tuple] = [left.exact(), ("raw", "NOT IN (" if negate else "IN (")]
                for n, item in enumerate(items):
                    parts += [("raw", ",")] if n else []
                    parts.append(item.exact())
                return Expr(left.start, end, INT, ("seq", *parts, ("raw", ")")))
            call = ("call", "mysql_dec_in", left.exact(), *(item.exact() for item in items))
            return Expr(left.start, end, INT, ("seq", ("raw", "NOT"), call) if negate else call)
        if self.word(j, "BETWEEN"):
            low = self.expr(j + 1, 6)
            if not self.word(low.stop, "AND"):
                raise _Fail
            high = self.expr(low.stop + 1, 6)
            left, (low, high) = self.numbers_against_members(left, [low, high])
            if not self.decimal_side(left, low, high):
                e = self.native(left.start, high.stop, INT, [left, low, high])
                self.convert_operands(left, [low, high])
                return e
            if self.by_collation(left, [low, high]):
                tree: tuple = ("seq", left.exact(), ("raw", "NOT BETWEEN" if negate else "BETWEEN"), low.exact(),
                        ("raw", "AND"), high.exact())
            else:
                tree = ("seq", ("raw", "NOT (" if negate else "("), ("call", "mysql_dec_cmp", left.exact(), low.exact()),
                        ("raw", ">= 0 AND"), ("call", "mysql_dec_cmp", left.exact(), high.exact()), ("raw", "<= 0)"))
            return Expr(left.start, high.stop, INT, tree)
        if self.word(j, "LIKE", "REGEXP", "RLIKE"):
            right = self.expr(j + 1, 6)
            stop = right.stop
            if self.word(stop, "ESCAPE"):
                stop = self.expr(stop + 1, 6).stop
            return self.native(left.start, stop, INT, [_zerofilled(left), _zerofilled(right)])
        raise _Fail

    def list_of(self, lo: int, hi: int) -> list[Expr]:
        items = []
        i = lo
        while True:
            e = self.expr(i, 0)
            items.append(e)
            if e.stop == hi:
                return items
            if not self.at(e.stop, ","):
                raise _Fail
            i = e.stop + 1

    def close(self, i: int) -> int:
        """tokens[i] is '(': the index after its ')'."""
        try:
            end = skip_parens(self.toks, i)
        except Unknown:
            raise _Fail from None
        if end > self.stop:
            raise _Fail
        return end

    # --- operands --------------------------------------------------------------------------------

    def unary(self, i: int) -> Expr:
        if i >= self.stop:
            raise _Fail
        t = self.toks[i]
        if t.kind == "op" and t.text == "-":
            inner = _as_number(self.unary(i + 1))
            bare = self.parenthesized_literal(i + 1, inner.stop)
            if bare is not None and self.past_bigint(bare):
                # a number past BIGINT (kept as its digits), in parentheses or not: negated
                # exactly, not as SQLite's REAL
                text = "-" + printed(bare, self.toks, 12)
                return Expr(i, inner.stop, DEC, ("call", "mysql_dec_neg", ("dec", bare.param)), ints="l", bits=63,
                            printed=text)
            text = "-" + printed(inner, self.toks, 12)
            if inner.kind == "lit":
                return Expr(i, inner.stop, LIT, None, "neglit", inner.param, printed=text)  # -5: still a literal
            if inner.cat == DEC:
                return Expr(i, inner.stop, DEC, ("call", "mysql_dec_neg", inner.exact()))
            if inner.cat == INT and inner.ints == "s" and inner.bits >= 63:  # -(-2^63) is past BIGINT
                return Expr(i, inner.stop, INT, ("call", "mysql_int_neg", inner.emit(), ("raw", sql_literal(text))),
                            ints="s", bits=63, printed=text, prec=12)
            e = self.native(i, inner.stop, inner.cat, [inner])
            e.ints, e.bits, e.printed, e.prec = inner.ints, inner.bits, text, 12
            return e
        if t.kind == "op" and t.text == "+":
            return self.unary(i + 1)
        if t.kind == "op" and t.text == "~":
            inner = _member_number(self.unary(i + 1))
            return Expr(i, inner.stop, DEC, ("call", "mysql_bit_not", inner.emit()), ints="u", bits=64,
                        printed="~" + printed(inner, self.toks, 12), prec=12)
        if (t.kind == "op" and t.text == "!") or t.is_word("NOT"):
            inner = _member_number(self.expr(i + 1, 4 if t.is_word("NOT") else 12))
            return self.native(i, inner.stop, INT, [inner])
        return self.primary(i)

    def parenthesized_literal(self, i: int, stop: int) -> Expr | None:
        """The literal tokens[i:stop] are, in any number of parentheses (`5`, `((5))`), None
        for anything else."""
        while stop - i > 2 and self.at(i, "(") and self.close(i) == stop:
            i, stop = i + 1, stop - 1
        return self.primary(i) if stop == i + 1 and self.toks[i].kind == "param" else None

    def primary(self, i: int) -> Expr:
        toks = self.toks
        t = toks[i]
        if t.kind == "param":
            e = Expr(i, i + 1, LIT, None, "lit", t.param, printed=f"{LITERAL_MARK}{t.param}{LITERAL_MARK}")
            if self.unsigned.get(t.param):
                e.ints, e.bits = "u", 64
            return e
        if t.kind in ("var", "sysvar"):
            return Expr(i, i + 1, OTHER)
        if t.kind == "op" and t.text == "(":
            end = self.close(i)
            if self.word(i + 1, "SELECT", "WITH") or self.at(i + 1, "("):
                self.scan(i + 1, end - 1)
                guard = None if self.derived_table(i) or not self.many_rows(i + 1, end - 1) else (
                    "seq", ("raw", "(SELECT * FROM ("), ("tokens", i + 1, end - 1),
                    ("raw", ") WHERE mysql_one_row((SELECT count(*) FROM (SELECT 1 FROM ("), ("tokens", i + 1, end - 1),
                    ("raw", ") LIMIT 2))))"))
                return Expr(i, end, self.scalar(i + 1, end - 1), guard)
            inner = self.expr(i + 1, 0)
            if inner.stop != end - 1:
                raise _Fail  # a row constructor (a, b)
            tree = None if inner.tree is None else ("seq", ("raw", "("), inner.tree, ("raw", ")"))
            return Expr(i, end, inner.cat, tree, inner.kind if inner.kind == "col" else "", ints=inner.ints, bits=inner.bits,
                printed=printed(inner, self.toks), prec=inner.prec)
        if t.kind == "word":
            word = t.upper
            nxt = toks[i + 1] if i + 1 < self.stop else None
            if word == "NULL":
                return Expr(i, i + 1, NULL)
            if word in ("TRUE", "FALSE"):
                return Expr(i, i + 1, INT)
            if word in ("_BINARY", "BINARY") and nxt is not None and nxt.kind == "param":
                return Expr(i, i + 2, OTHER)
            if word in _TYPED_LITERALS and nxt is not None and nxt.kind == "param":
                # DATE 'x' / TIME 'x' / TIMESTAMP 'x': compared and computed on as a column of
                # that type is (its fraction digits, read per execution, not told)
                return Expr(i, i + 2, OTHER, None, "typedlit", column=datetime_type(_TYPED_LITERALS[word], 0))
            if word == "CASE":
                return self.case(i)
            if word == "EXISTS" and self.at(i + 1, "("):
                end = self.close(i + 1)
                self.scan(i + 2, end - 1)
                return Expr(i, end, INT)
            if nxt is not None and nxt.kind == "op" and nxt.text == "(":
                return self.call(i, word)
            if word in _STOP:
                raise _Fail
        if t.kind in ("word", "ident"):
            names = [t.text]
            j = i + 1
            while self.at(j, ".") and j + 1 < self.stop and toks[j + 1].kind in ("word", "ident"):
                names.append(toks[j + 1].text)
                j += 2
            if self.at(j, "("):
                raise _Fail  # db.function(...)
            ct = None if i in self.alias_names else self.lookup(names)
            if ct is None:
                cat = self.aliases.get(names[0].lower(), OTHER) if len(names) == 1 else OTHER
                return Expr(i, j, cat)
            code = ct.type
            if code == FieldType.NEWDECIMAL:
                return Expr(i, j, DEC, None, "col", column=ct)
            if _unsigned_64(ct):
                return Expr(i, j, DEC, None, "col", column=ct, ints="u", bits=64, printed=_column_printed(ct, names))
            if code in INTEGER_CODES:
                return Expr(i, j, INT, None, "bigint" if code == FieldType.LONGLONG else "", column=ct, ints="s",
                            bits=_INT_BITS.get(code, 31) + (code != FieldType.LONGLONG and ct.unsigned),
                            printed=_column_printed(ct, names))
            if code in (FieldType.DOUBLE, FieldType.FLOAT):
                return Expr(i, j, FLOAT, column=ct)
            if code in (FieldType.DATE, FieldType.TIME, FieldType.DATETIME, FieldType.TIMESTAMP):
                return Expr(i, j, OTHER, None, "temporal", column=ct)
            if code in STRING_CODES and not ct.flags & (ColumnFlag.ENUM | ColumnFlag.SET):
                return Expr(i, j, STR, column=ct)
            members = self.members(names) if ct.flags & (ColumnFlag.ENUM | ColumnFlag.SET) else None
            return Expr(i, j, OTHER, None, "member" if members is not None else "", column=ct, members=members)
        raise _Fail

    def derived_table(self, i: int) -> bool:
        """tokens[i], a '(' before SELECT, opens a table of a FROM list (`FROM a, (SELECT ...)`),
        not an operand: the nearest clause word before it at its depth is FROM or JOIN."""
        depth = 0
        for k in range(i - 1, -1, -1):
            t = self.toks[k]
            if t.kind == "op" and t.text in "()":
                if t.text == "(" and depth == 0:
                    return False
                depth += 1 if t.text == ")" else -1
            elif depth == 0 and t.kind == "word" and t.upper in _CLAUSE_WORDS:
                return t.upper in ("FROM", "JOIN")
        return False

    def many_rows(self, lo: int, hi: int) -> bool:
        """Whether the subquery tokens[lo:hi] may return more than one row, which a scalar
        subquery must not (1242): not when it reads no table, or aggregates without GROUP BY (a
        window's OVER may)."""
        toks = self.toks[lo:hi]
        depth = 0
        top: set[str] = set()
        for n, t in enumerate(toks):
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and t.kind == "word":
                top.add(t.upper)
                if t.upper in AGGREGATE_CALLS and n + 1 < len(toks) and toks[n + 1].text == "(":
                    top.add("(aggregate)")
        if top & {"UNION", "EXCEPT", "INTERSECT", "WITH", "OVER"}:
            return True
        return "FROM" in top and ("(aggregate)" not in top or "GROUP" in top)

    def scalar(self, lo: int, hi: int) -> str:
        """The category of a scalar subquery tokens[lo:hi] (one select-list item, no UNION)."""
        toks = self.toks[lo:hi]
        found = split_select(toks)
        if found is None or len(found[0]) != 1 or not found[0][0] or any(
                t.is_word("UNION", "EXCEPT", "INTERSECT") for t in toks):
            return OTHER
        item = found[0][0]
        start = lo + next(n for n, t in enumerate(toks) if t is item[0])
        saved = dict(self.regions)
        e = self.within(start, start + len(item))
        self.regions = saved  # typed only: its regions were found by the scan
        if e is None or e.stop != start + len(item):
            return OTHER
        e = self.exact_operand(e)  # `(SELECT 1.2345678901234567890)`: its exact text
        self.root(e)
        return e.cat

    def case(self, i: int) -> Expr:
        j = i + 1
        parts: list[Expr] = []
        results: list[Expr] = []
        subject = None
        whens: list[tuple[Expr, Expr]] = []
        if not self.word(j, "WHEN"):
            subject = self.expr(j, 0)
            parts.append(subject)
            j = subject.stop
        while self.word(j, "WHEN"):
            cond = self.expr(j + 1, 0)
            if not self.word(cond.stop, "THEN"):
                raise _Fail
            result = self.expr(cond.stop + 1, 0)
            parts += [cond, result]
            results.append(result)
            whens.append((cond, result))
            j = result.stop
        otherwise = None
        if self.word(j, "ELSE"):
            otherwise = self.expr(j + 1, 0)
            parts.append(otherwise)
            results.append(otherwise)
            j = otherwise.stop
        if not self.word(j, "END"):
            raise _Fail
        exact = dict(zip(map(id, results), self.passed_on(results), strict=True))
        parts = [exact.get(id(p), p) for p in parts]
        whens = [(cond, exact[id(result)]) for cond, result in whens]
        otherwise = exact[id(otherwise)] if otherwise is not None else None
        results = list(exact.values())
        cat = self.common(results)
        if subject is None or not self.decimal_side(subject, *(cond for cond, _ in whens)):
            return self.native(i, j + 1, cat, parts)
        # CASE d WHEN 1.5 ...: each WHEN compared by value
        tree: list[tuple] = [("raw", "CASE")]
        for cond, result in whens:
            tree += [("raw", "WHEN ("), ("call", "mysql_dec_cmp", subject.exact(), cond.exact()), ("raw", "= 0) THEN"),
                     result.emit()]
        if otherwise is not None:
            tree += [("raw", "ELSE"), otherwise.emit()]
        return Expr(i, j + 1, cat, ("seq", *tree, ("raw", "END")))

    @staticmethod
    def common(values: list[Expr]) -> str:
        """The category of IF/CASE/COALESCE/MIN ... over `values`."""
        cats = {v.cat for v in values} - {NULL}
        if not cats:
            return NULL
        if len(cats) == 1:
            return cats.pop()
        if DEC in cats and cats <= NUMERIC:
            return DEC
        if cats <= {INT, LIT}:
            return INT
        return FLOAT if cats <= NUMERIC | {FLOAT} else OTHER

    def name_const(self, i: int, end: int) -> Expr:
        """NAME_CONST('name', value) (a stored program's variable as `server.routines` writes it
        in, `[_charset] literal [COLLATE 'x']`): its value's expression, a literal computed on
        as a literal is (a division by 0 its warning 1365, as MariaDB's)."""
        start = i + 4
        if not (self.at(i + 3, ",") and start < end - 1):
            raise _Fail
        stop = end - 1
        if self.toks[start].kind == "word" and self.toks[start].text.startswith("_"):
            start += 1
        if stop - 2 > start and self.word(stop - 2, "COLLATE"):
            stop -= 2
        bound, self.stop = self.stop, stop
        try:
            value = self.unary(start)
        finally:
            self.stop = bound
        if value.stop != stop or value.tree is not None:
            raise _Fail
        return replace(value, start=i, stop=end)

    def call(self, i: int, word: str) -> Expr:
        e = self.function(i, word)
        if not self.word(e.stop, "OVER"):
            return e
        # a window function: the call and its window, one operand
        stop = self.close(e.stop + 1) if self.at(e.stop + 1, "(") else e.stop + 2
        if stop > self.stop:
            raise _Fail
        if e.tree is None:
            return Expr(i, stop, e.cat)
        return Expr(i, stop, e.cat, ("seq", e.tree, ("tokens", e.stop, stop)))

    def function(self, i: int, word: str) -> Expr:
        open_at = i + 1
        end = self.close(open_at)
        if word == "NAME_CONST":
            return self.name_const(i, end)
        if word in ("CAST", "CONVERT"):
            return self.cast(i, word, end)
        if word in ("SUM", "AVG") and self.word(open_at + 1, "DISTINCT"):
            arg = self.within(open_at + 2, end - 1)
            if arg is not None and arg.stop == end - 1 and arg.cat == DEC:
                return Expr(i, end, DEC, ("seq", ("raw", _DEC_FUNCS[word] + "(DISTINCT"), arg.exact(), ("raw", ")")))
        if word == "VALUES":  # ON DUPLICATE KEY UPDATE ... VALUES(c): the column's value
            arg = self.within(open_at + 1, end - 1)
            return Expr(i, end, arg.cat if arg is not None else OTHER)
        try:
            args = self.list_of(open_at + 1, end - 1) if not self.at(open_at + 1, ")") else []
        except (_Fail, IndexError):
            self.scan(open_at + 1, end - 1)  # DISTINCT, *, SEPARATOR, INTERVAL ...: as written
            cat = INT if word in _INT_RESULT else FLOAT if word in _FLOAT_RESULT else STR if word in _STR_RESULT \
                else OTHER
            return Expr(i, end, cat)
        if word in _READ_AS_TEXT:
            args = [_zerofilled(a) for a in args]
        if word in _NUMBER_ARGS or word in ("GREATEST", "LEAST") and any(
                a.kind != "member" and self.is_number(a) for a in args):
            args = [_member_number(a) for a in args]  # an ENUM / SET read as its number
        if word == "HEX" and len(args) == 1 and args[0].cat == DEC:  # a number's hex digits, not its text's
            return Expr(i, end, STR, ("call", "mysql_hex_number", args[0].emit()))
        if word == "HEX" and len(args) == 1 and self.past_bigint(args[0]):  # 18446744073709551615: FFFFFFFFFFFFFFFF
            return Expr(i, end, STR, ("call", "mysql_hex_number", ("dec", args[0].param)))
        if word in ("ROUND", "TRUNCATE") and 1 <= len(args) <= 2 and args[0].kind in ("lit", "neglit", "litexpr"):
            # a literal number is a DECIMAL (1234.5678, ROUND(.., -2) 1200, not SQLite's double)
            return Expr(i, end, DEC, ("call", _DEC_FUNCS[word], args[0].exact(),
                                      args[1].emit() if len(args) == 2 else ("raw", "0")))
        if word in ("GREATEST", "LEAST"):
            args = [self.exact_operand(a) for a in args]  # GREATEST(id, 1.2345678901234567890)
        if word in _DEC_FUNCS and args and self.decimal_side(*args):
            if word in ("SUM", "AVG", "ABS", "FLOOR", "CEIL", "CEILING") and len(args) != 1:
                raise _Fail
            if word in ("FLOOR", "CEIL", "CEILING"):
                cat = INT
            else:
                cat = DEC
            exact = [args[0].exact(), *(a.emit() for a in args[1:])] if word in ("ROUND", "TRUNCATE") \
                else [a.exact() for a in args]
            return Expr(i, end, cat, ("call", _DEC_FUNCS[word], *exact))
        if word in ("ROUND", "TRUNCATE") and len(args) == 2 and args[0].cat == INT and args[0].kind != "bigint":
            # to tens, hundreds ... (SQLite's round() reads a negative place as 0; it has no truncate)
            return Expr(i, end, INT, ("seq", ("raw", "CAST("), ("call", _DEC_FUNCS[word], args[0].emit(),
                                                                args[1].emit()), ("raw", " AS INTEGER)")))
        if word == "ROUND" and 1 <= len(args) <= 2 and args[0].cat == FLOAT:  # rint, as MySQL's
            return Expr(i, end, FLOAT, ("call", "mysql_round_double", args[0].emit(),
                                        args[1].emit() if len(args) == 2 else ("raw", "0")))
        if word == "NULLIF" and len(args) == 2 and self.decimal_side(*args):
            return Expr(i, end, DEC, ("seq", ("raw", "iif("), ("call", "mysql_dec_cmp", args[0].exact(), args[1].exact()),
                                      ("raw", "= 0, NULL,"), args[0].exact(), ("raw", ")")))
        if word == "JSON_EXTRACT":  # compared as a JSON value (`json_compared`)
            e = self.native(i, end, STR, args)
            e.kind = "json"
            return e
        if word in _SAME_AS_ARGS:
            head = 1 if word == "IF" else 0
            values = self.passed_on(args[head:head + 1] if word == "NULLIF" else args[head:])
            args[head:head + len(values)] = values
            return self.native(i, end, self.common(values), args)
        if word in _READ_AS_TEXT or word == "FORMAT":  # a long number's digits, as written
            args = [self.exact_operand(a) for a in args]
        if word in ("SUM", "AVG") and len(args) == 1 and args[0].kind == "bigint":
            # a BIGINT's sum leaves SQLite's integers (its sum() fails, its avg() rounds)
            return Expr(i, end, DEC, ("call", _DEC_FUNCS[word], args[0].emit()))
        if word == "SUM":
            cat = INT if args and args[0].cat == INT else FLOAT
        elif word in ("FLOOR", "CEIL", "CEILING", "ROUND", "TRUNCATE", "ABS") and args and args[0].cat == INT:
            cat = INT
        else:
            cat = INT if word in _INT_RESULT else FLOAT if word in _FLOAT_RESULT or word in (
                "AVG", "ABS", "ROUND", "TRUNCATE", "FLOOR", "CEIL", "CEILING", "MOD") else STR if word in _STR_RESULT \
                or word in _JSON_TEXT else OTHER
        return self.native(i, end, cat, args)

    def cast(self, i: int, word: str, end: int) -> Expr:
        toks = self.toks
        k, depth = i + 2, 0
        while k < end - 1:
            t = toks[k]
            if t.kind == "op" and t.text in "()":
                depth += 1 if t.text == "(" else -1
            elif depth == 0 and (t.is_word("AS") if word == "CAST" else (t.text == "," or t.is_word("USING"))):
                break
            k += 1
        inner = self.value(i + 2, k)
        target = toks[k + 1] if k + 1 < end else None
        if inner is not None and target is not None and not toks[k].is_word("USING") and target.is_word(
                *_INT_TARGETS, "DECIMAL", "NUMERIC", "DEC", "FIXED", "DOUBLE", "FLOAT", "REAL"):
            inner = _member_number(inner)
        if target is not None and target.is_word("DECIMAL", "NUMERIC", "DEC", "FIXED") and not toks[k].is_word("USING"):
            nums = [n for n in range(k + 2, end - 1) if toks[n].kind == "param"]
            if len(nums) > 2:
                raise _Fail
            operand = inner.exact() if inner is not None else ("tokens", i + 2, k)
            precision = ("tokens", nums[0], nums[0] + 1) if nums else ("raw", "10")
            scale = ("tokens", nums[1], nums[1] + 1) if len(nums) > 1 else ("raw", "0")
            return Expr(i, end, DEC, ("call", "mysql_dec_cast", operand, precision, scale))
        name = target.upper if target is not None else ""
        if name in _INT_TARGETS and not toks[k].is_word("USING") and (
                k + 2 == end - 1 or k + 3 == end - 1 and toks[k + 2].is_word("INTEGER", "INT")):
            # (an INT one computed by SQLite, `a * 2.5`, is MySQL's DECIMAL where it is not whole)
            kind = {DEC: "dec", FLOAT: "double", LIT: "lit", INT: "lit"}.get(inner.cat, "") if inner is not None else ""
            if inner is not None and inner.kind in ("temporal", "typedlit"):
                kind = "temporal"  # a date or time's digits: 20240105, 101112
            if inner is not None and inner.column is not None and _unsigned_64(inner.column):
                kind = ""  # an unsigned 64-bit integer's digits: SIGNED takes its bits
            if inner is not None and _unparenthesized(inner.tree)[:2] == ("call", "mysql_dec_neg") \
                    and inner.ints == "l":
                kind = "negdigits"  # -<a number past BIGINT>: -9223372036854775808 is MariaDB's BIGINT
            operand = inner.emit() if inner is not None else ("tokens", i + 2, k)
            inner_text = printed(inner, self.toks) if inner is not None else "?"
            target_text = "unsigned" if name == "UNSIGNED" else "signed"
            return Expr(i, end, INT, ("call", "mysql_cast_int", operand, ("raw", f"'{kind}'"),
                                      ("raw", "1" if name == "UNSIGNED" else "0")),
                        ints="u" if name == "UNSIGNED" else "s", bits=64 if name == "UNSIGNED" else 63,
                        printed=f"cast({inner_text} as {target_text})")
        if inner is not None:
            self.root(_zerofilled(inner) if name in ("CHAR", "NCHAR", "BINARY") else inner)
        cat = INT if name in ("SIGNED", "UNSIGNED", "INTEGER", "INT") else FLOAT if name in ("DOUBLE", "FLOAT",
                                                                                           "REAL") else OTHER
        return Expr(i, end, cat)
