"""A view's columns as MariaDB 10.11 describes them: the stand-in table DESCRIBE, SHOW [FULL]
COLUMNS and information_schema.COLUMNS read for a view (what mariadb-dump writes as a view's
"Temporary table structure", what SQLAlchemy's and GUI tools' reflection read).

Each column comes from its result type in the view's SELECT (`exprtypes`, the typing that
describes the view's result set, `Translator.table_or_view`). A column that is a table's column
(its type's `origin`) is that column again: its type, character set and DEFAULT (an
AUTO_INCREMENT column's DEFAULT 0: no key, no AUTO_INCREMENT in a view), nullable where a LEFT
JOIN makes its table so (`outer_nullable`; a NOT NULL column without DEFAULT then keeps none:
`ViewColumn.no_default`). A column of a view it reads (by name or `*`) is that view's stand-in
column. An expression's column is the field MariaDB makes for the item, for the items
`plain_items` allows: a string or unsigned number literal (an integer of its display width, a
DECIMAL of its digits, a VARCHAR of the connection's utf8mb4), NULL (BINARY(0)), COUNT(...)
under GROUP BY, and without an outer join + - * of integer and DECIMAL columns and numbers and
CONCAT of string literals and character columns of one character set (that set's VARCHAR,
always nullable); NOT NULL with its type's zero as DEFAULT, a nullable one without. Anything
else (another function, a derived table, a UNION's computed column, a RIGHT, FULL or NATURAL
join, an aggregate without GROUP BY, whose NULLs MariaDB decides otherwise, a string longer than
512 characters, which MariaDB makes a TEXT) makes the whole view's description answer 1235,
never a wrong type; information_schema.COLUMNS then lists no column of that view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

from engine.catalog import Column, Table
from engine.coltypes import ColumnType
from engine.errors import ER_NOT_SUPPORTED_YET, SQLError
from protocol.charsets import mbmaxlen
from protocol.messages import CHARSET_BINARY, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag, FieldType

_INTEGERS = {FieldType.TINY: "tinyint", FieldType.SHORT: "smallint", FieldType.INT24: "mediumint",
             FieldType.LONG: "int", FieldType.LONGLONG: "bigint"}
_INTEGER_BASES = ("tinyint", "smallint", "mediumint", "int", "integer", "bigint")
_LONGEST_VARCHAR = 512  # characters: a longer string expression's field is a TEXT (CONVERT_IF_BIGGER_TO_BLOB)


@dataclass
class ViewColumn(Column):
    """A view's column; `no_default`: one an outer join makes nullable whose table column has
    no DEFAULT (COLUMN_DEFAULT none, not 'NULL': MariaDB's field keeps its NO_DEFAULT_VALUE)."""

    no_default: bool = False


class StandIn(Table):
    """A view's stand-in table (never stored)."""

    def null_default(self, col: Column) -> bool:
        return super().null_default(col) and not (isinstance(col, ViewColumn) and col.no_default)


class Unknown(Exception):
    """A view column whose description this module cannot tell as MariaDB does."""


def stand_in(schema: str, name: str, names: list[str | None] | None, types: list[ColumnType | None],
             base_table, plain: list) -> Table:
    """The view `schema`.`name`'s stand-in table: a column per result column `names[k]` of
    type `types[k]` (`base_table(schema, table)`: a column's origin table; `plain[k]`: the k-th
    item is an expression `plain_items` allows, or the column of a view it reads, taken as it is). Unknown when a column cannot be described."""
    if names is None or len(names) != len(types) or any(n is None for n in names):
        raise Unknown
    columns = [_column(own, ct, base_table, ok) for own, ct, ok in zip(names, types, plain, strict=True)]
    return StandIn(schema, name, columns)


def _view_column(col: Column, **changes) -> ViewColumn:
    """`col` as a view's column, with `changes`."""
    own = {f.name: getattr(col, f.name) for f in fields(col)}
    return ViewColumn(**{**own, **changes})


_PLAIN_NUMBER = re.compile(r"\d+(\.\d*)?$")
_OUTER_JOINS = ("LEFT", "RIGHT", "FULL", "NATURAL")
_AFTER_TABLE = ("ON", "USING", "JOIN", "INNER", "CROSS", "LEFT", "RIGHT", "NATURAL", "STRAIGHT_JOIN", "WHERE", "GROUP",
                "ORDER", "HAVING", "LIMIT", "WINDOW", "UNION", "EXCEPT", "INTERSECT", "FOR", "LOCK", "USE", "FORCE",
                "IGNORE", "PROCEDURE", "INTO")
_AGGREGATES = ("COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "BIT_AND", "BIT_OR", "BIT_XOR", "STD",
               "STDDEV", "STDDEV_POP", "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "JSON_ARRAYAGG",
               "JSON_OBJECTAGG")


@dataclass(frozen=True)
class Concat:
    """CONCAT(...) of string literals and character columns of one character set: MariaDB's
    VARCHAR of that set (utf8mb4 for literals alone), always nullable."""

    charset: str


def plain_items(tokens, items, texts: list[str], tables) -> list[bool | str | Concat] | None:
    """Which select-list `items` (alias dropped) of the view's SELECT `tokens` are expressions
    whose field this module tells as MariaDB makes it: a string or unsigned number literal
    (`texts`: the SELECT's literals as written), NULL, COUNT(...) under GROUP BY, + - * of
    integer or DECIMAL columns of `tables` (the FROM tables by alias) and unsigned numbers, a
    CONCAT (`Concat`); a number's "number", a string literal's "string", NULL's True. None: none of its columns can be told (an outer join, whose columns
    MariaDB makes nullable; an aggregate without GROUP BY, which makes every other column
    nullable)."""
    if nullable_unknown(tokens):
        return None
    outer = outer_nullable(tokens)
    if outer is None:
        return None
    out: list[bool | str | Concat] = []
    for item in items:
        if outer and _read_by_name(item) is not None:
            out.append("nullable" if _alias_of(item, tables) in outer else False)
        elif outer and not (len(item) == 1 and item[0].kind == "param" or item[0].is_word("COUNT", "NULL")):
            out.append(False)  # (an expression over an outer join's side: its NULL not told here)
        elif len(item) == 1 and item[0].kind == "param":
            out.append(_literal(item[0], texts) or False)
        elif len(item) == 1 and item[0].is_word("NULL"):
            out.append(True)
        elif item and item[0].is_word("COUNT") and len(item) > 2 and item[1].text == "(":
            out.append("number" if item[-1].text == ")" else False)
        elif item and item[0].is_word("CONCAT") and len(item) > 2 and item[1].text == "(" and item[-1].text == ")":
            out.append(_concat(item[2:-1], texts, tables) or False)
        else:
            out.append("number" if _arithmetic(item, texts, tables) else False)
    return out


def _read_by_name(operand) -> list[str] | None:
    """The names of a (maybe qualified) column name, else None."""
    if not operand or len(operand) % 2 == 0 or any(t.kind not in ("word", "ident") for t in operand[::2]) \
            or any(t.text != "." for t in operand[1::2]):
        return None
    return [t.text for t in operand[::2]]


def _alias_of(item, tables) -> str | None:
    """The alias of the table among `tables` whose column the name `item` reads."""
    names = _read_by_name(item) or []
    for alias, table in tables:
        if len(names) > 1 and alias != names[-2].lower():
            continue
        if len(names) > 1 or (table.column(names[-1]) if isinstance(table, Table) else table.index(names[-1].lower())
                              ) is not None:
            return alias
    return None


def _literal(tok, texts: list[str]) -> str | None:
    """A literal's kind, "string" or "number" (unsigned, no exponent); None: any other."""
    if tok.kind != "param":
        return None
    text = texts[tok.param]
    if text.startswith(("'", '"')):
        return "string"
    return "number" if _PLAIN_NUMBER.match(text) else None


def _operands(tokens, separators: tuple[str, ...]) -> list[list] | None:
    """`tokens` split at `separators` (no parentheses: None where one is)."""
    parts: list[list] = [[]]
    for tok in tokens:
        if tok.kind == "op" and tok.text in ("(", ")"):
            return None
        if tok.kind == "op" and tok.text in separators:
            parts.append([])
        else:
            parts[-1].append(tok)
    return parts


def _named_column(operand, tables) -> Column | None:
    """The column of one of `tables` (not a derived table) the name `operand` reads."""
    names = _read_by_name(operand)
    if names is None:
        return None
    for alias, table in tables:
        if len(names) > 1 and alias != names[-2].lower():
            continue
        col = table.column(names[-1]) if isinstance(table, Table) else None
        if col is not None:
            return col
    return None


def _arithmetic(item, texts: list[str], tables) -> bool:
    operands = _operands(item, ("+", "-", "*"))
    if operands is None or len(operands) < 2:
        return False
    named = 0
    for operand in operands:
        if len(operand) == 1 and _literal(operand[0], texts) == "number":
            continue
        col = _named_column(operand, tables)
        if col is None or not (col.base in _INTEGER_BASES or col.base == "decimal") or col.zerofill:
            return False
        named += 1
    return named > 0


def _concat(args, texts: list[str], tables) -> Concat | None:
    operands = _operands(args, (",",))
    if operands is None:
        return None
    charsets = set()
    for operand in operands:
        if len(operand) == 1 and _literal(operand[0], texts) == "string":
            continue
        col = _named_column(operand, tables)
        if col is None or col.base not in ("char", "varchar") or col.binary or col.collation is not None:
            return None
        charsets.add(col.charset or "utf8mb4")
    if len(charsets) > 1:
        return None
    return Concat(charsets.pop() if charsets else "utf8mb4")


def outer_nullable(tokens) -> set[str] | None:
    """The aliases (or names) of the tables a SELECT's LEFT [OUTER] JOINs make nullable; None
    where that is not told here (RIGHT, FULL or NATURAL joins, a parenthesized join, an outer
    join beside a subquery)."""
    joins = [k for k, tok in enumerate(tokens) if tok.kind == "word" and tok.is_word(*_OUTER_JOINS)
             and not (k + 1 < len(tokens) and tokens[k + 1].text == "(")]  # (LEFT(s, n) is a function)
    if not joins:
        return set()
    if any(not tokens[k].is_word("LEFT") for k in joins) or sum(tok.is_word("SELECT") for tok in tokens) > 1:
        return None
    out = set()
    for k in joins:
        i = k + 2 if k + 1 < len(tokens) and tokens[k + 1].is_word("OUTER") else k + 1
        if not (i + 1 < len(tokens) and tokens[i].is_word("JOIN") and tokens[i + 1].kind in ("word", "ident")):
            return None
        i += 1
        if i + 2 < len(tokens) and tokens[i + 1].text == ".":
            i += 2
        name, i = tokens[i].text, i + 1
        if i < len(tokens) and tokens[i].is_word("AS"):
            i += 1
        if i < len(tokens) and (tokens[i].kind == "ident" or tokens[i].kind == "word" and not tokens[i].is_word(
                *_AFTER_TABLE)):
            name = tokens[i].text
        out.add(name.lower())
    return out


def nullable_unknown(tokens) -> bool:
    """A SELECT whose columns' NULL this module cannot tell: an aggregate without GROUP BY
    (MariaDB makes the other columns nullable)."""
    aggregate = any(tok.is_word(*_AGGREGATES) and k + 1 < len(tokens) and tokens[k + 1].text == "("
                    for k, tok in enumerate(tokens))
    return aggregate and not any(tok.is_word("GROUP") for tok in tokens)


def refused(schema: str, name: str) -> SQLError:
    return SQLError(ER_NOT_SUPPORTED_YET, f"DESCRIBE or SHOW COLUMNS of the view {schema}.{name}")


def _column(name: str, ct: ColumnType | None, base_table, plain) -> Column:
    if isinstance(plain, Column):
        return replace(plain, name=name)
    if isinstance(plain, tuple):  # ("nullable", a view's column): an outer join's side
        inner = plain[1]
        no_default = not inner.nullable and not inner.has_default or isinstance(inner, ViewColumn) and inner.no_default
        return _view_column(inner, name=name, nullable=True, no_default=no_default)
    if isinstance(plain, Concat):
        if ct is None or ct.type != FieldType.VAR_STRING or ct.charset != CHARSET_UTF8MB4_GENERAL_CI:
            raise Unknown
        chars = ct.length // mbmaxlen(ct.charset)
        if chars > _LONGEST_VARCHAR:
            raise Unknown
        return Column(name, "varchar", [str(chars)], charset=None if plain.charset == "utf8mb4" else plain.charset)
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
        no_default = False
        if plain == "nullable":  # (an outer join's side)
            no_default = not col.nullable and not col.has_default and not col.default_now
            nullable = True
        return _view_column(col, name=name, nullable=nullable, auto_increment=False, comment=None,
                            no_default=no_default)
    if not plain or plain == "nullable":
        raise Unknown
    if plain == "number" and ct.type not in _INTEGERS and ct.type != FieldType.NEWDECIMAL \
            or plain == "string" and (ct.type != FieldType.VAR_STRING or ct.length == 0) \
            or plain is True and ct.type != FieldType.NULL:
        raise Unknown  # (the result type of a number or string MariaDB's field does not follow: '' is its CHAR(0))
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
