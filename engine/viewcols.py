"""A view's columns as MariaDB 10.11 describes them: the stand-in table DESCRIBE, SHOW [FULL]
COLUMNS and information_schema.COLUMNS read for a view (what mariadb-dump writes as a view's
"Temporary table structure", what SQLAlchemy's and GUI tools' reflection read).

Each column comes from its result type in the view's SELECT (`exprtypes`, the typing that
describes the view's result set, `Translator.table_or_view`). A column that is a table's column
(its type's `origin`) is that column again: its type, character set and DEFAULT (an
AUTO_INCREMENT column's DEFAULT 0: no key, no AUTO_INCREMENT in a view), NULL where the SELECT
makes it so (an outer join's side). An expression's column is the field MariaDB makes for the
item: an integer of its display width, a DECIMAL of its digits, a DOUBLE, a string literal's
VARCHAR of the connection's utf8mb4, NULL's BINARY(0), temporal types; NOT NULL with its type's
zero as DEFAULT, a nullable one without. What that typing cannot tell as MariaDB says (a string
computed from columns, whose character set MariaDB derives from theirs; a column the typer does
not type; a long string, which MariaDB turns into a TEXT) makes the whole view's description
answer 1235, never a wrong type; information_schema.COLUMNS then lists no column of that view.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engine.catalog import Column, Table
from engine.coltypes import ColumnType
from engine.errors import ER_NOT_SUPPORTED_YET, SQLError
from protocol.charsets import mbmaxlen
from protocol.messages import CHARSET_BINARY, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag, FieldType

_INTEGERS = {FieldType.TINY: "tinyint", FieldType.SHORT: "smallint", FieldType.INT24: "mediumint",
             FieldType.LONG: "int", FieldType.LONGLONG: "bigint"}
_LONGEST_VARCHAR = 512  # characters: a longer string expression's field is a TEXT (CONVERT_IF_BIGGER_TO_BLOB)


class Unknown(Exception):
    """A view column whose description this module cannot tell as MariaDB does."""


def stand_in(schema: str, name: str, names: list[str | None] | None, types: list[ColumnType | None],
             base_table, plain: list[bool]) -> Table:
    """The view `schema`.`name`'s stand-in table: a column per result column `names[k]` of
    type `types[k]` (`base_table(schema, table)`: a column's origin table; `plain[k]`: the k-th
    item is an expression `plain_items` allows). Unknown when a column cannot be described."""
    if names is None or len(names) != len(types) or any(n is None for n in names):
        raise Unknown
    columns = [_column(own, ct, base_table, ok) for own, ct, ok in zip(names, types, plain, strict=True)]
    return Table(schema, name, columns)


_PLAIN_NUMBER = re.compile(r"\d+(\.\d*)?$")
_OUTER_JOINS = ("LEFT", "RIGHT", "FULL", "NATURAL")
_AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_AND", "BIT_OR", "BIT_XOR", "STD",
               "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG",
               "JSON_OBJECTAGG")


def plain_items(tokens, items, texts: list[str]) -> list[bool] | None:
    """Which select-list `items` (alias dropped) of the view's SELECT `tokens` are expressions
    whose field this module tells as MariaDB makes it: a string or unsigned number literal
    (`texts`: the SELECT's literals as written), NULL, COUNT(...) under GROUP BY. None: none of
    its columns can be told (an outer join, whose columns MariaDB makes nullable; an aggregate
    without GROUP BY, which makes every other column nullable)."""
    if nullable_unknown(tokens):
        return None
    out = []
    for item in items:
        if len(item) == 1 and item[0].kind == "param":
            text = texts[item[0].param]
            out.append(text.startswith(("'", '"')) or _PLAIN_NUMBER.match(text) is not None)
        elif len(item) == 1 and item[0].is_word("NULL"):
            out.append(True)
        elif item and item[0].is_word("COUNT") and len(item) > 2 and item[1].text == "(":
            out.append(item[-1].text == ")")
        else:
            out.append(False)
    return out


def nullable_unknown(tokens) -> bool:
    """A SELECT (a view's, or a view's it reads) whose columns' NULL this module cannot tell: an
    outer join, or an aggregate without GROUP BY (MariaDB makes the other columns nullable)."""
    if any(tok.kind == "word" and tok.is_word(*_OUTER_JOINS) for tok in tokens):
        return True
    aggregate = any(tok.is_word(*_AGGREGATES) and k + 1 < len(tokens) and tokens[k + 1].text == "("
                    for k, tok in enumerate(tokens))
    return aggregate and not any(tok.is_word("GROUP") for tok in tokens)


def refused(schema: str, name: str) -> SQLError:
    return SQLError(ER_NOT_SUPPORTED_YET, f"DESCRIBE or SHOW COLUMNS of the view {schema}.{name}")


def _column(name: str, ct: ColumnType | None, base_table, plain: bool) -> Column:
    if ct is None:
        raise Unknown
    nullable = not ct.flags & ColumnFlag.NOT_NULL
    if ct.origin is not None:
        schema, _, table_name, column_name = ct.origin
        table = base_table(schema, table_name)
        col = None if table is None else table.column(column_name)
        if col is None or col.on_update_now or col.generated is not None:
            raise Unknown
        if col.auto_increment and not col.has_default:
            col = replace(col, has_default=True, default=0)  # (MariaDB's field keeps its zero)
        return replace(col, name=name, nullable=nullable, auto_increment=False, comment=None)
    if not plain:
        raise Unknown
    return _computed(name, ct, nullable)


def _computed(name: str, ct: ColumnType, nullable: bool) -> Column:
    """The field MariaDB makes for an expression's item (Item::create_field_for_create_select)."""
    unsigned = bool(ct.flags & ColumnFlag.UNSIGNED)
    if ct.type in _INTEGERS:
        col = Column(name, _INTEGERS[ct.type], [str(ct.length)], unsigned=unsigned)
        zero: object = 0
    elif ct.type == FieldType.NEWDECIMAL:
        precision = ct.length - (ct.decimals > 0) - (not unsigned)
        col = Column(name, "decimal", [str(precision), str(ct.decimals)], unsigned=unsigned)
        zero = 0
    elif ct.type == FieldType.DOUBLE and ct.decimals == 31:
        col, zero = Column(name, "double", unsigned=unsigned), 0
    elif ct.type == FieldType.NULL:
        return Column(name, "binary", ["0"], binary=True, charset="binary")
    elif ct.type == FieldType.VAR_STRING and ct.charset == CHARSET_BINARY and not ct.format_name and not ct.type_name:
        if ct.length > _LONGEST_VARCHAR:
            raise Unknown
        col, zero = Column(name, "varbinary", [str(ct.length)], binary=True, charset="binary"), ""
    elif ct.type == FieldType.VAR_STRING and ct.charset == CHARSET_UTF8MB4_GENERAL_CI and not ct.format_name and not ct.type_name:
        chars = ct.length // mbmaxlen(ct.charset)
        if chars > _LONGEST_VARCHAR:
            raise Unknown
        col, zero = Column(name, "varchar", [str(chars)], charset="utf8mb4"), ""
    else:
        raise Unknown
    if nullable:
        return col
    return replace(col, nullable=False, has_default=True, default=zero)
