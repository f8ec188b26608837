"""InnoDB foreign keys on SQLite: checks, RESTRICT and cascades, across databases.

SQLite's own foreign keys cannot serve: they are switched by a PRAGMA that has no effect inside a
transaction (the writer always has one open: `SET foreign_key_checks=0` must work mid-group),
they name no constraint in their error (MySQL's 1451/1452 must), and they never cross files
(MariaDB's foreign keys may reference another database). So the writer connection carries TEMP
triggers, rebuilt from the catalog after every DDL (`FkTriggers.install`); TEMP triggers may watch
a table of any attached file and read any file. Readers carry none: they never write.

- child INSERT / UPDATE of the key columns: a key without a parent row raises 1452 (a key with a
  NULL part is not checked, as InnoDB);
- parent DELETE / UPDATE of the referenced columns with RESTRICT / NO ACTION and child rows: 1451;
- CASCADE / SET NULL: SQLite forbids qualified names in a trigger's DML, so the trigger only
  notes the parent key (`__fk_note`), and the writer runs the child's DELETE/UPDATE after the
  statement (`FkTriggers.cascade`), which fires the child's own triggers in turn. The caller wraps
  statement + cascades in a savepoint: all or nothing, as one MySQL statement.

Every trigger fires only while `__fk_on()` is true: the statement's `foreign_key_checks` (0 skips
checks and cascades, as InnoDB). Trigger errors carry `<code>|<message>` (`fk_error` maps them).
Statement-based replication re-runs the parent's statement on a replica, whose cascades then make
the same child changes, as MySQL's statement format relies on.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable

from engine.catalog import ForeignKey, Table
from engine.lexer import quote_ident
from protocol.errors import ER_NO_REFERENCED_ROW_2, ER_ROW_IS_REFERENCED_2, SQLError

MAX_CASCADE_DEPTH = 15  # InnoDB's FK_MAX_CASCADE_DEL
_PREFIX = "__fk_"


def constraint_text(child: Table, fk: ForeignKey) -> str:
    """The parenthesis of MariaDB's 1451/1452: `db`.`child`, CONSTRAINT `fk` FOREIGN KEY ..."""
    return f"`{child.schema}`.`{child.name}`, CONSTRAINT `{fk.name}` {fk.describe(child.schema)}"


def fk_error(exc: sqlite3.Error) -> SQLError | None:
    m = re.match(r"(1451|1452)\|(.*)", str(exc), re.S)
    if m is None:
        return None
    return SQLError(ER_ROW_IS_REFERENCED_2 if m.group(1) == "1451" else ER_NO_REFERENCED_ROW_2, m.group(2))


def _q(schema: str, name: str) -> str:
    return f"{quote_ident(schema)}.{quote_ident(name)}"


def _match(cols: list[str], row: str, ref_cols: list[str]) -> str:
    return " AND ".join(f"{quote_ident(c)} = {row}.{quote_ident(r)}" for c, r in zip(cols, ref_cols, strict=True))


def _raise(code: int, child: Table, fk: ForeignKey) -> str:
    text = f"{code}|{constraint_text(child, fk)}".replace("'", "''")
    return f"SELECT RAISE(ABORT, '{text}');"


class FkTriggers:
    """The writer connection's foreign key triggers and pending cascades (writer thread only)."""

    def __init__(self) -> None:
        self.enabled = True  # the running statement's foreign_key_checks
        self.cascading: set[tuple[str, str]] = set()  # parents (schema, lower name) with cascades
        self._keys: list[tuple[Table, ForeignKey]] = []
        self._notes: list[tuple] = []
        self._links: dict[str, set[str]] = {}  # database -> the others its foreign keys join it to

    def register(self, conn: sqlite3.Connection) -> None:
        # REPLACE's deletes of conflicting rows fire DELETE triggers only so (1451 or a cascade, as
        # InnoDB); the triggers themselves write nothing, so nothing recurses
        conn.execute("PRAGMA recursive_triggers = ON")
        conn.create_function("__fk_on", 0, lambda: 1 if self.enabled else 0)
        conn.create_function("__fk_note", -1, lambda *args: self._notes.append(args))

    def drop(self, conn: sqlite3.Connection) -> None:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE '\\_\\_fk\\_%' ESCAPE '\\'")]
        for name in names:
            conn.execute(f"DROP TRIGGER temp.{quote_ident(name)}")

    def install(self, conn: sqlite3.Connection, tables: Iterable[Table],
                exists: Callable[[str, str], Table | None], every_table: Iterable[Table] = ()) -> None:
        """Replace every trigger by those of the foreign keys of `tables` (the attached files';
        a key whose parent does not exist, made under foreign_key_checks=0, is checked once the
        parent exists). `every_table` (all databases) gives the links `closure` follows."""
        self.drop(conn)
        self._keys, self.cascading, self._links = [], set(), {}
        for child in every_table:
            for fk in child.foreign_keys:
                if fk.ref_schema != child.schema:
                    self._links.setdefault(child.schema, set()).add(fk.ref_schema)
                    self._links.setdefault(fk.ref_schema, set()).add(child.schema)
        for child in tables:
            for fk in child.foreign_keys:
                parent = exists(fk.ref_schema, fk.ref_table)
                if parent is None:
                    continue
                n = len(self._keys)
                self._keys.append((child, fk))
                for sql in self._trigger_sql(n, child, parent, fk):
                    conn.execute(sql)
                if fk.on_delete in ("CASCADE", "SET NULL") or fk.on_update in ("CASCADE", "SET NULL"):
                    self.cascading.add((parent.schema, parent.name.lower()))

    @staticmethod
    def _trigger_sql(n: int, child: Table, parent: Table, fk: ForeignKey) -> list[str]:
        c, p = _q(child.schema, child.name), _q(parent.schema, parent.name)
        cols = [quote_ident(x) for x in fk.columns]
        refs = [quote_ident(x) for x in fk.ref_columns]
        has_parent = f"EXISTS (SELECT 1 FROM {p} WHERE {_match(fk.ref_columns, 'NEW', fk.columns)})"
        not_null = " AND ".join(f"NEW.{x} IS NOT NULL" for x in cols)
        child_check = f"__fk_on() AND {not_null} AND NOT {has_parent}"
        changed = " OR ".join(f"NEW.{x} IS NOT OLD.{x}" for x in cols)
        ref_changed = " OR ".join(f"NEW.{x} IS NOT OLD.{x}" for x in refs)
        has_children = f"EXISTS (SELECT 1 FROM {c} WHERE {_match(fk.columns, 'OLD', fk.ref_columns)})"
        name = f"{_PREFIX}{n}"
        sql = [
            f"CREATE TEMP TRIGGER {name}_ci BEFORE INSERT ON {c} WHEN {child_check} "
            f"BEGIN {_raise(1452, child, fk)} END",
            f"CREATE TEMP TRIGGER {name}_cu BEFORE UPDATE OF {', '.join(cols)} ON {c} "
            f"WHEN ({changed}) AND {child_check} BEGIN {_raise(1452, child, fk)} END",
        ]
        old = ", ".join(f"OLD.{x}" for x in refs)
        new = ", ".join(f"NEW.{x}" for x in refs)
        for event, action in (("DELETE", fk.on_delete), ("UPDATE", fk.on_update)):
            on = f"DELETE ON {p}" if event == "DELETE" else f"UPDATE OF {', '.join(refs)} ON {p}"
            when = f"__fk_on() AND {has_children}" + ("" if event == "DELETE" else f" AND ({ref_changed})")
            if action in ("RESTRICT", "NO ACTION"):
                sql.append(f"CREATE TEMP TRIGGER {name}_p{event[0]} BEFORE {on} WHEN {when} "
                           f"BEGIN {_raise(1451, child, fk)} END")
            else:
                values = old if event == "DELETE" else f"{old}, {new}"
                sql.append(f"CREATE TEMP TRIGGER {name}_p{event[0]} AFTER {on} WHEN {when} "
                           f"BEGIN SELECT __fk_note({n}, '{event[0]}', {values}); END")
        return sql

    @staticmethod
    def check_existing(conn: sqlite3.Connection, child: Table, fk: ForeignKey) -> None:
        """1452 when a row of `child` already breaks `fk` (ALTER TABLE ... ADD FOREIGN KEY)."""
        not_null = " AND ".join(f"c.{quote_ident(x)} IS NOT NULL" for x in fk.columns)
        match = " AND ".join(f"p.{quote_ident(r)} = c.{quote_ident(x)}" for x, r in zip(fk.columns, fk.ref_columns, strict=True))
        orphan = conn.execute(f"SELECT 1 FROM {_q(child.schema, child.name)} AS c WHERE {not_null} AND NOT EXISTS "
                              f"(SELECT 1 FROM {_q(fk.ref_schema, fk.ref_table)} AS p WHERE {match}) LIMIT 1").fetchone()
        if orphan is not None:
            raise SQLError(ER_NO_REFERENCED_ROW_2, constraint_text(child, fk))

    def referenced(self, parent: Table) -> bool:
        """Whether an installed foreign key references `parent`."""
        key = (parent.schema, parent.name.lower())
        return any((fk.ref_schema, fk.ref_table.lower()) == key for _child, fk in self._keys)

    def linked(self, name: str) -> bool:
        return name in self._links

    def closure(self, names: Iterable[str]) -> set[str]:
        """`names` and every database foreign keys join them to, transitively."""
        found = set(names)
        todo = [n for n in found if n in self._links]
        while todo:
            for other in self._links.get(todo.pop(), ()):
                if other not in found:
                    found.add(other)
                    todo.append(other)
        return found

    def has_notes(self) -> bool:
        return bool(self._notes)

    def discard_notes(self) -> None:
        self._notes = []

    def cascade(self, conn: sqlite3.Connection) -> set[str]:
        """Run the child changes the last statement's parent changes call for, and theirs in turn
        (at most MAX_CASCADE_DEPTH levels); returns the schemas written."""
        written: set[str] = set()
        depth = 0
        while self._notes:
            depth += 1
            if depth > MAX_CASCADE_DEPTH:
                self._notes = []
                raise SQLError(ER_ROW_IS_REFERENCED_2, "Foreign key cascade exceeds max depth of 15")
            notes, self._notes = self._notes, []
            for n, event, *values in notes:
                child, fk = self._keys[n]
                width = len(fk.columns)
                old, new = values[:width], values[width:]
                where = " AND ".join(f"{quote_ident(x)} = ?" for x in fk.columns)
                target = _q(child.schema, child.name)
                action = fk.on_delete if event == "D" else fk.on_update
                sets = ", ".join(f"{quote_ident(x)} = ?" for x in fk.columns)
                if action == "SET NULL":
                    conn.execute(f"UPDATE {target} SET {sets} WHERE {where}", [None] * width + old)
                elif event == "D":
                    conn.execute(f"DELETE FROM {target} WHERE {where}", old)
                else:
                    conn.execute(f"UPDATE {target} SET {sets} WHERE {where}", new + old)
                written.add(child.schema)
        return written
