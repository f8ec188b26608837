"""EXPLAIN [PARTITIONS] SELECT / UPDATE / DELETE / INSERT / REPLACE as MariaDB shapes it, from
SQLite's plan (PARTITIONS: a `partitions` column of NULLs after `table`; EXTENDED, whose note is
MariaDB's own rewrite of the statement, 1235).

The statement is translated as it would run and SQLite's `EXPLAIN QUERY PLAN` of the translation
is read; each table access (a SCAN or SEARCH step) becomes one MariaDB row: id, select_type,
table, type, possible_keys, key, key_len, ref, rows, Extra. What SQLite does not know is not
made up:
- type: SCAN -> ALL (`index` when a covering index is scanned); SEARCH by the primary key with
  equalities only -> const (first table) / eq_ref (joined), by another index -> ref, with a
  range condition -> range.
- possible_keys: the index used (SQLite reports no other candidates); key_len: MariaDB's byte
  length of the index columns the lookup uses (all of them for an index scan), +1 for each
  nullable one; ref: `const` for an equality lookup.
- rows: 1 for a primary-key equality, else the table's current row count (SQLite keeps no
  statistics: a full count is the honest upper bound, as `rows` is an estimate in MariaDB too).
- Extra: "Using index" for a covering index, "Using temporary" / "Using filesort" for SQLite's
  temporary B-trees, "No tables used" when nothing is read ("Deleting all rows" for a DELETE).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.coltypes import STRING_DEC, ColumnType, varchar
from protocol.messages import CHARSET_BINARY, CHARSET_UTF8MB4_GENERAL_CI, ColumnFlag, FieldType

COLUMNS = ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"]
# MariaDB 10.11's result columns (`rows` a string: its text, or NULL): a BIGINT UNSIGNED(3) id,
# VARCHARs of its lengths in characters, select_type and Extra NOT NULL
COLUMN_TYPES = [ColumnType(FieldType.LONGLONG, 3, 0, CHARSET_BINARY, ColumnFlag.BINARY | ColumnFlag.UNSIGNED),
                varchar(19, flags=ColumnFlag.NOT_NULL), varchar(64), varchar(10), varchar(4096), varchar(64),
                varchar(4096), varchar(2048), varchar(64), varchar(255, flags=ColumnFlag.NOT_NULL)]
# EXPLAIN PARTITIONS' column after `table`: NULL, no table here is partitioned
PARTITIONS_TYPE = ColumnType(FieldType.MEDIUM_BLOB, 25264128, STRING_DEC, CHARSET_UTF8MB4_GENERAL_CI, 0)

_ACCESS = re.compile(
    r"(?P<op>SCAN|SEARCH) (?P<table>\S+)(?: AS (?P<alias>\S+))?"
    r"(?: USING (?P<covering>COVERING )?(?:INDEX (?P<index>\S+)|(?P<ipk>INTEGER PRIMARY KEY|PRIMARY KEY)))?"
    r"(?: \((?P<cond>[^)]*)\))?"
)


@dataclass
class Access:
    """One table access of the plan; `rows` is filled in by the caller (it needs the data)."""

    table: str  # as MariaDB shows it: the alias, else the name
    schema: str | None  # where the table is, when SQLite names it (None: to be looked up)
    name: str | None  # the table's name when known
    type: str
    key: str | None
    ref: str | None
    extra: list[str]
    rows: int | None = None
    unique_lookup: bool = False
    used: list[str] | None = None  # index columns the lookup uses (None: the whole index)
    key_len: int | None = None


def accesses(plan_rows: list[tuple]) -> tuple[list[Access], list[str]]:
    """SQLite's EXPLAIN QUERY PLAN rows -> the table accesses and the plan-wide Extra notes."""
    found: list[Access] = []
    notes: list[str] = []
    for _id, _parent, _unused, detail in plan_rows:
        if detail.startswith("USE TEMP B-TREE"):
            note = "Using filesort" if "ORDER BY" in detail else "Using temporary"
            if note not in notes:
                notes.append(note)
            continue
        m = _ACCESS.fullmatch(detail)
        if m is None or m.group("table") == "CONSTANT":
            continue
        index, cond = m.group("index"), m.group("cond") or ""
        primary = m.group("ipk") is not None or (index or "").startswith("sqlite_autoindex")
        key = "PRIMARY" if primary else (index.split("$", 1)[1] if index and "$" in index else index)
        equality = bool(cond) and all(re.fullmatch(r"\w+=\?", c.strip()) for c in cond.split(" AND "))
        extra = ["Using index"] if m.group("covering") else []
        if m.group("op") == "SCAN":
            kind = "index" if m.group("covering") else "ALL"
        elif equality:
            kind = ("const" if not found else "eq_ref") if primary else "ref"
        else:
            kind = "range"
        schema, _, name = m.group("table").rpartition(".")
        shown = m.group("alias") or name
        if not schema and index and "$" in index:  # an alias: the index names its table
            name = index.split("$", 1)[0]
        used = [c.strip().split("=")[0].split(">")[0].split("<")[0] for c in cond.split(" AND ")] if cond else None
        found.append(Access(shown, schema or None, name, kind, key if kind != "ALL" else None,
                            "const" if equality and not found else None, extra,
                            unique_lookup=primary and equality, used=used))
    return found, notes


def rows(found: list[Access], notes: list[str], has_where: bool, delete: bool = False) -> list[tuple]:
    if not found:  # a DELETE without WHERE empties the table without reading it
        only = "Deleting all rows" if delete else "No tables used"
        return [(1, "SIMPLE", None, None, None, None, None, None, None, only)]
    out = []
    for n, a in enumerate(found):
        extra = list(a.extra)
        if has_where and a.type in ("ALL", "index", "range", "ref"):
            extra.insert(0, "Using where")
        if n == 0:
            extra += notes
        key_len = None if a.key_len is None else str(a.key_len)
        out.append((1, "SIMPLE", a.table, a.type, a.key, a.key, key_len, a.ref, None if a.rows is None else str(a.rows),
                    "; ".join(extra)))
    return out


_FIXED = {"tinyint": 1, "smallint": 2, "mediumint": 3, "int": 4, "integer": 4, "bigint": 8, "float": 4,
          "double": 8, "real": 8, "date": 3, "year": 1, "time": 3, "datetime": 5, "timestamp": 4}
_DIGIT_BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)


def _column_bytes(column) -> int:
    base, args = column.base, [int(a) for a in column.args if a.isdigit()]
    if base in ("decimal", "numeric", "dec", "fixed"):
        precision, scale = (args + [10, 0])[:2] if args else (10, 0)
        whole, frac = precision - scale, scale
        return (whole // 9) * 4 + _DIGIT_BYTES[whole % 9] + (frac // 9) * 4 + _DIGIT_BYTES[frac % 9]
    if base in ("time", "datetime", "timestamp"):
        return _FIXED[base] + ((args[0] if args else 0) + 1) // 2
    if base in _FIXED:
        return _FIXED[base]
    n = args[0] if args else 1
    if base == "char":
        return n * 4
    if base == "varchar":
        return n * 4 + 2
    if base == "binary":
        return n
    if base == "varbinary":
        return n + 2
    if base == "bit":
        return (n + 7) // 8
    if base in ("enum", "set"):
        return 2
    return 3072  # BLOB/TEXT index prefixes: InnoDB's longest key part


def key_len(table, access: Access) -> int | None:
    """MariaDB's key_len of `access` on `table` (a catalog Table), None without an index."""
    if access.key is None or table is None:
        return None
    index = next((i for i in table.indexes if (i.primary and access.key == "PRIMARY") or i.name == access.key), None)
    if index is None:
        return None
    columns = list(index.columns)
    if access.used is not None:
        pk = table.rowid_alias()
        wanted = {(pk.name if pk is not None and c == "rowid" else c).lower() for c in access.used}
        columns = columns[:max((n + 1 for n, c in enumerate(columns) if c.lower() in wanted), default=0)]
    total = 0
    for name in columns:
        column = table.column(name)
        if column is None:
            return None
        total += _column_bytes(column) + (1 if column.nullable else 0)
    return total or None
