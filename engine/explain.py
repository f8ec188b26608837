"""EXPLAIN SELECT / UPDATE / DELETE / INSERT / REPLACE as MariaDB shapes it, from SQLite's plan.

The statement is translated as it would run and SQLite's `EXPLAIN QUERY PLAN` of the translation
is read; each table access (a SCAN or SEARCH step) becomes one MariaDB row: id, select_type,
table, type, possible_keys, key, key_len, ref, rows, Extra. What SQLite does not know is not
made up:
- type: SCAN -> ALL (`index` when a covering index is scanned); SEARCH by the primary key with
  equalities only -> const (first table) / eq_ref (joined), by another index -> ref, with a
  range condition -> range.
- possible_keys: the index used (SQLite reports no other candidates); key_len: NULL (no byte
  lengths are kept); ref: `const` for an equality lookup.
- rows: 1 for a primary-key equality, else the table's current row count (SQLite keeps no
  statistics: a full count is the honest upper bound, as `rows` is an estimate in MariaDB too).
- Extra: "Using index" for a covering index, "Using temporary" / "Using filesort" for SQLite's
  temporary B-trees, "No tables used" when nothing is read ("Deleting all rows" for a DELETE).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

COLUMNS = ["id", "select_type", "table", "type", "possible_keys", "key", "key_len", "ref", "rows", "Extra"]
COLUMN_TYPES = ["integer", "string", "string", "string", "string", "string", "string", "string", "integer", "string"]

_ACCESS = re.compile(
    r"(?P<op>SCAN|SEARCH) (?P<table>\S+)(?: AS (?P<alias>\S+))?"
    r"(?: USING (?P<covering>COVERING )?(?:INDEX (?P<index>\S+)|(?P<ipk>INTEGER PRIMARY KEY|PRIMARY KEY)))?"
    r"(?: \((?P<cond>[^)]*)\))?"
)


@dataclass
class Access:
    """One table access of the plan; `rows` is filled in by the caller (it needs the data)."""

    table: str  # as MariaDB shows it: the alias, else the name
    schema: str | None  # where the table is, when SQLite names it (None: an alias in `table`)
    name: str | None
    type: str
    key: str | None
    ref: str | None
    extra: list[str]
    rows: int | None = None
    unique_lookup: bool = False


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
        found.append(Access(shown, schema or None, name, kind, key, "const" if equality and not found else None, extra,
                            unique_lookup=primary and equality))
    return found, notes


def rows(found: list[Access], notes: list[str], has_where: bool, delete: bool = False) -> list[tuple]:
    if not found:  # a DELETE without WHERE empties the table without reading it
        extra = "Deleting all rows" if delete else "No tables used"
        return [(1, "SIMPLE", None, None, None, None, None, None, None, extra)]
    out = []
    for n, a in enumerate(found):
        extra = list(a.extra)
        if has_where and a.type in ("ALL", "index", "range", "ref"):
            extra.insert(0, "Using where")
        if n == 0:
            extra += notes
        out.append((1, "SIMPLE", a.table, a.type, a.key, a.key, None, a.ref, a.rows, "; ".join(extra)))
    return out
