"""Multi-table UPDATE and DELETE (UPDATE t1, t2 SET t1.a = .., t2.b = ..; DELETE t1, t2 FROM ...).

A statement is planned (`translate.Translator.plan_multi_update` / `plan_multi_delete`) as one
SELECT over its join, the snapshot: per target table the rowid of the joined row and, for an
UPDATE, each assigned value already stored as the column stores it (strict mode's checks run
there, before anything is written), and the statement's time for each ON UPDATE CURRENT_TIMESTAMP
column. The writer (`Engine._w_write`, in its one transaction, under the writer lock) reads the
snapshot, then writes each target's rows by rowid (`run`): every value is computed from the rows
as they were before the statement, and each target row is written at most once however often the
join finds it, as MariaDB's. What MariaDB answers through its join order instead (an assignment
reading a column another assigns, a row found with different values) the translator or `run`
refuses with 1235.

Counting follows MariaDB: an UPDATE's rows matched are the distinct target rows found, changed
those whose values differ (compared binary); a DELETE's affected rows the sum over its targets.
The statement is binlogged as written; a replica replays the same join.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engine.lexer import quote_ident as _q
from protocol.errors import ER_NOT_SUPPORTED_YET, SQLError


@dataclass(frozen=True)
class Target:
    """One table a multi-table write changes. Snapshot columns from `at`: the rowid, then (an
    UPDATE) the value of each of `columns`, then of each of `stamped` (ON UPDATE
    CURRENT_TIMESTAMP columns not assigned)."""
    schema: str
    name: str
    at: int
    columns: tuple[str, ...] = ()
    stamped: tuple[str, ...] = ()
    ignore: bool = False  # UPDATE IGNORE: a row whose new key another row holds is left as it was

    def write_sql(self, table_sql: str) -> str:
        """DELETE by rowid, or an UPDATE by rowid of a row whose values change."""
        if not self.columns:
            return f"DELETE FROM {table_sql} WHERE rowid = ?"
        sets = ", ".join(f"{_q(c)} = ?" for c in self.columns + self.stamped)
        changes = " OR ".join(f"{_q(c)} IS NOT ? COLLATE BINARY" for c in self.columns)
        return f"UPDATE {'OR IGNORE ' if self.ignore else ''}{table_sql} SET {sets} WHERE rowid = ? AND ({changes})"


@dataclass(frozen=True)
class MultiWrite:
    """A multi-table write's targets, in the order the statement names them. `every`: an UPDATE's
    affected rows are those matched (CLIENT_FOUND_ROWS), else those changed."""
    targets: tuple[Target, ...]
    every: bool = False

    @property
    def schemas(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.schema for t in self.targets))

    def cascades(self, cascading: set[tuple[str, str]]) -> bool:
        return any((t.schema, t.name.lower()) in cascading for t in self.targets)


def run(conn: sqlite3.Connection, execute, multi: MultiWrite, snapshot_sql: str, args, fx) -> int:
    """Read the snapshot (`execute(sql, args)`: the writer's execute), then write each target's
    rows. An UPDATE counts its rows matched / changed in `fx`'s counters (as `mysql_matched`
    does) and returns the rows affected; a DELETE returns the rows deleted."""
    rows = execute(snapshot_sql, args).fetchall()
    affected = 0
    for target in multi.targets:
        width = 1 + len(target.columns) + len(target.stamped)
        chosen: dict[int, tuple] = {}
        for row in rows:
            rowid = row[target.at]
            if rowid is None:  # (an outer join's missing row)
                continue
            values = tuple(row[target.at + 1:target.at + width])
            if chosen.setdefault(rowid, values) != values:
                raise SQLError(ER_NOT_SUPPORTED_YET, "UPDATE of a row the join finds with different values")
        table_sql = f"{_q(target.schema)}.{_q(target.name)}"
        if not target.columns:
            affected += conn.executemany(target.write_sql(table_sql), [(r,) for r in chosen]).rowcount
            continue
        n = len(target.columns)
        written = conn.executemany(target.write_sql(table_sql),
                                   [(*values, rowid, *values[:n]) for rowid, values in chosen.items()]).rowcount
        if fx is not None:
            fx.upserts_changed += written
            fx.upserts_unchanged += len(chosen) - written
        affected += len(chosen) if multi.every else written
    return affected
