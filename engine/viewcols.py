"""A view's columns as MariaDB 10.11 describes them: the stand-in table DESCRIBE, SHOW [FULL]
COLUMNS and information_schema.COLUMNS read for a view (what mariadb-dump writes as a view's
"Temporary table structure", what SQLAlchemy's and GUI tools' reflection read); and the column
MariaDB makes for an expression's result (`expression_column`), which CREATE TABLE ... SELECT
makes too.

Each column comes from its result type in the view's SELECT (`exprtypes`, the typing that
describes the view's result set, `Translator.table_or_view`): the one typing of a SELECT's
columns, so a view is described as its `SELECT *` is typed. A column that is a table's column
(its type's `origin`) is that column again: its type, character set and DEFAULT (an
AUTO_INCREMENT column's DEFAULT 0: no key, no AUTO_INCREMENT in a view); a column of a view it
reads is that view's stand-in column. Either is nullable where its result type is (an outer join's
side, `exprtypes.outer_joined`), a NOT NULL one without DEFAULT then keeping none
(`ViewColumn.no_default`). An expression's column is the field MariaDB makes for its type
(Item::create_tmp_field): an integer of its display width, a DECIMAL of its digits, a string of
its characters in its character set (a TEXT past 512 of them, CHAR(0) for ''), NULL BINARY(0), a
computed DATETIME / TIME in MariaDB 5.3's format (`/* mariadb-5.3 */`); NOT NULL with its type's
zero as DEFAULT, a nullable one without (a grouping without GROUP BY or a window function makes
more of them nullable: `exprtypes.grouping`, as MariaDB's temporary table does). A column whose
result type is not known (`None`: typed from its rows) makes the whole view's description answer
1235, never a wrong type; information_schema.COLUMNS then lists no column of that view.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from engine.catalog import Column, Table, default_collation
from engine.coltypes import NOT_FIXED_DEC, ColumnType
from engine.errors import ER_NOT_SUPPORTED_YET, SQLError
from engine.exprtypes import calls_aggregate, closing, drop_alias, is_name, select_items
from engine.lexer import Token, extract, tokenize
from protocol.charsets import COLLATION_NAMES, mbmaxlen
from protocol.messages import CHARSET_BINARY, ColumnFlag, FieldType

_INTEGERS = {FieldType.TINY: "tinyint", FieldType.SHORT: "smallint", FieldType.INT24: "mediumint",
             FieldType.LONG: "int", FieldType.LONGLONG: "bigint"}
_STRINGS = (FieldType.VAR_STRING, FieldType.VARCHAR, FieldType.STRING)
_BLOBS = (FieldType.BLOB, FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB)
_TIMES = {FieldType.DATETIME: "datetime", FieldType.TIMESTAMP: "timestamp", FieldType.TIME: "time"}
_LONGEST_VARCHAR = 512  # characters: a longer string expression's field is a TEXT (CONVERT_IF_BIGGER_TO_BLOB)

@dataclass
class ViewColumn(Column):
    """A view's column; `no_default`: one an outer join makes nullable whose table column has
    no DEFAULT (COLUMN_DEFAULT none, not 'NULL': MariaDB's field keeps its NO_DEFAULT_VALUE);
    `old_temporal`: a computed DATETIME / TIME, MariaDB 5.3's format, which its type says;
    `width`: a computed DOUBLE's or FLOAT's display width."""

    no_default: bool = False
    old_temporal: bool = False
    width: int | None = None  # a computed DOUBLE's or FLOAT's display width (COLUMNS.NUMERIC_PRECISION)

    @property
    def shown_type(self) -> str:
        return super().shown_type + (" /* mariadb-5.3 */" if self.old_temporal else "")


class StandIn(Table):
    """A view's stand-in table (never stored)."""

    def null_default(self, col: Column) -> bool:
        return super().null_default(col) and not (isinstance(col, ViewColumn) and col.no_default)


class Unknown(Exception):
    """A view column whose description this module cannot tell as MariaDB does."""


def stand_in(schema: str, name: str, names: list[str | None] | None, types: list[ColumnType | None],
             base_table, through: list[Column | None], copied: list[bool] | None = None) -> Table:
    """The view `schema`.`name`'s stand-in table: a column per result column `names[k]` of
    type `types[k]` (`base_table(schema, table)`: a column's origin table; `through[k]`: the
    stand-in column of a view the k-th column reads, else None; `copied[k]`: an expression whose
    field copies its argument's, MIN / MAX, not in MariaDB 5.3's temporal format). Unknown when a
    column cannot be described."""
    copied = copied or [False] * len(types)
    if names is None or len(names) != len(types) or len(through) != len(types) or len(copied) != len(types) \
            or any(n is None for n in names):
        raise Unknown
    columns = [_column(own, ct, base_table, read, copy)
               for own, ct, read, copy in zip(names, types, through, copied, strict=True)]
    return StandIn(schema, name, columns)


def copies_argument(item: list[Token]) -> bool:
    """The select item (alias dropped) is MIN(...) or MAX(...), whose field is its argument's."""
    return len(item) > 2 and item[0].is_word("MIN", "MAX") and item[1].text == "(" and closing(item, 1) == len(item) - 1


def _view_column(col: Column, **changes) -> ViewColumn:
    """`col` as a view's column, with `changes`."""
    own = {f.name: getattr(col, f.name) for f in fields(col)}
    return ViewColumn(**{**own, **changes})


def updatable(select: str, algorithm: str) -> bool:
    """information_schema.VIEWS.IS_UPDATABLE of a view of the SELECT `select`, as MariaDB decides
    it when the view is made (st_lex::can_be_merged, then mysql_register_view): a view that can be
    merged (not TEMPTABLE; one SELECT, FROM a table, without DISTINCT, GROUP BY, HAVING, LIMIT, an
    aggregate, a window function or RAND()) with a column that is a column of its FROM tables."""
    tokens = tokenize(extract(select)[0])
    k = 0
    if tokens and tokens[0].is_word("WITH"):  # WITH ... AS (...), ... SELECT: the SELECT
        while k < len(tokens) and not tokens[k].is_word("SELECT"):
            k = closing(tokens, k) + 1 if tokens[k].text == "(" else k + 1
    found = select_items(tokens[k:])
    if algorithm.upper() == "TEMPTABLE" or found is None:
        return False
    items = found[0]
    head = tokens[k + 1:k + 2]
    depth, words = 0, set()
    for tok in tokens[k:]:
        if tok.kind == "op" and tok.text in ("(", ")"):
            depth += 1 if tok.text == "(" else -1
        elif depth == 0 and tok.kind == "word":
            words.add(tok.upper)
    if words & {"GROUP", "HAVING", "LIMIT", "FETCH", "UNION", "EXCEPT", "INTERSECT"} or "FROM" not in words \
            or head and head[0].is_word("DISTINCT", "DISTINCTROW") or any(tok.is_word("RAND") for tok in tokens) \
            or any(calls_aggregate(item) for item in items):
        return False
    return any(is_name(drop_alias(item)) or item[-1].text == "*" for item in items)


def refused(schema: str, name: str) -> SQLError:
    return SQLError(ER_NOT_SUPPORTED_YET, f"DESCRIBE or SHOW COLUMNS of the view {schema}.{name}")


def _column(name: str, ct: ColumnType | None, base_table, through: Column | None, copied: bool) -> Column:
    if ct is None:
        raise Unknown
    nullable = not ct.flags & ColumnFlag.NOT_NULL
    if through is not None:
        inner = through
    elif ct.origin is not None:
        schema, _, table_name, column_name = ct.origin
        table = base_table(schema, table_name)
        inner = None if table is None else table.column(column_name)
        if inner is None or inner.on_update_now or inner.generated is not None:
            raise Unknown
        if inner.auto_increment and not inner.has_default:
            inner = replace(inner, has_default=True, default=0)  # (MariaDB's field keeps its zero)
    else:
        return _computed(name, ct, nullable, copied)
    no_default = isinstance(inner, ViewColumn) and inner.no_default
    if nullable and not inner.nullable:  # (an outer join's side, or a grouping's)
        no_default = not inner.has_default and not inner.default_now
    return _view_column(inner, name=name, nullable=inner.nullable or nullable, auto_increment=False, comment=None,
                        no_default=no_default)


def expression_column(name: str, ct: ColumnType) -> Column:
    """The column MariaDB makes for an expression's result of type `ct` (its field, no
    DEFAULT), nullable unless `ct` says NOT NULL. Unknown for a type it does not make here."""
    unsigned = bool(ct.flags & ColumnFlag.UNSIGNED)
    nullable = not ct.flags & ColumnFlag.NOT_NULL
    binary = ct.charset == CHARSET_BINARY
    if ct.type in _INTEGERS:
        return Column(name, _INTEGERS[ct.type], [str(ct.length)], unsigned=unsigned, nullable=nullable)
    if ct.type == FieldType.NEWDECIMAL:
        precision = max(ct.length - (ct.decimals > 0) - (not unsigned), 1)
        return Column(name, "decimal", [str(precision), str(ct.decimals)], unsigned=unsigned, nullable=nullable)
    if ct.type in (FieldType.DOUBLE, FieldType.FLOAT):
        return Column(name, "double" if ct.type == FieldType.DOUBLE else "float", unsigned=unsigned, nullable=nullable)
    if ct.type == FieldType.NULL:
        return Column(name, "binary", ["0"], binary=True, charset="binary")
    if ct.type_name:  # UUID, INET6, INET4
        return Column(name, ct.type_name, nullable=nullable)
    if ct.format_name == "json":
        return Column(name, "longtext", charset="utf8mb4", binary=True, nullable=nullable)
    if ct.type in _STRINGS or ct.type in _BLOBS:
        width = 1 if binary else mbmaxlen(ct.charset)
        chars = ct.length // width
        charset, binary_collation, collation = _charset(ct.charset)
        if ct.type in _STRINGS and chars <= _LONGEST_VARCHAR:
            kind = ("binary" if binary else "char") if ct.type == FieldType.STRING and not ct.temporal_text \
                or ct.length == 0 else ("varbinary" if binary else "varchar")
            return Column(name, kind, [str(chars)], binary=binary or binary_collation, charset=charset,
                          collation=collation, nullable=nullable)
        kind = "blob" if binary else "text"  # (by its characters: a result's length says them times mbmaxlen)
        kind = (f"tiny{kind}" if chars <= 255 else kind if chars <= 65535 else
                f"medium{kind}" if chars <= 16777215 else f"long{kind}")
        return Column(name, kind, binary=binary or binary_collation, charset=charset, collation=collation,
                      nullable=nullable)
    if ct.type in _TIMES:
        digits = ct.decimals if ct.decimals != NOT_FIXED_DEC else 0
        return Column(name, _TIMES[ct.type], [str(digits)] if digits else [], nullable=nullable)
    if ct.type == FieldType.DATE:
        return Column(name, "date", nullable=nullable)
    if ct.type == FieldType.YEAR:
        return Column(name, "year", ["4"], nullable=nullable)
    raise Unknown


def expression_ddl(ct: ColumnType) -> str:
    """`expression_column`'s definition as CREATE TABLE ... SELECT writes it (its character set
    where not utf8mb4's default, NOT NULL or DEFAULT NULL); LONGTEXT, which holds any value as
    text, for a type it does not make."""
    try:
        col = expression_column("", ct)
    except Unknown:
        return "longtext DEFAULT NULL"
    text = col.type_text
    if col.charset not in (None, "binary") and (col.charset != "utf8mb4" or col.binary or col.collation):
        text += f" CHARACTER SET {col.charset} COLLATE {col.collation_name}"
    return text + (" DEFAULT NULL" if col.nullable else " NOT NULL")


def _charset(number: int) -> tuple[str, bool, str | None]:
    """Collation `number` as a column's character set, binary collation and other collation."""
    collation = COLLATION_NAMES.get(number)
    if collation is None:
        raise Unknown
    charset = collation.partition("_")[0]
    if collation == charset or collation == default_collation(charset):
        return charset, False, None
    if collation == charset + "_bin":
        return charset, True, None
    return charset, False, collation


# a NOT NULL expression's DEFAULT in a view: its type's zero
_ZEROS = {"date": "0000-00-00", "time": "00:00:00", "datetime": "0000-00-00 00:00:00", "timestamp": "0000-00-00 00:00:00",
          "year": "0000"}


def _computed(name: str, ct: ColumnType, nullable: bool, copied: bool) -> Column:
    """The field MariaDB makes for an expression's item in a view (`copied`: its argument's)."""
    col = _view_column(expression_column(name, ct), old_temporal=ct.type in _TIMES and not copied,
                       width=ct.length if ct.type in (FieldType.DOUBLE, FieldType.FLOAT) else None)
    if nullable or ct.type == FieldType.NULL:
        return replace(col, nullable=True)
    zero: object = _ZEROS.get(col.base, 0 if col.base in ("decimal", "double", "float") or col.base in _INTEGERS.values()
                               else "")
    if col.base in _TIMES.values() and col.fsp:
        zero = f"{zero}.{'0' * col.fsp}"
    return replace(col, nullable=False, has_default=True, default=zero)
