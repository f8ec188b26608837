"""The row counts information_schema computes when read (`infoschema.register`'s
`__is_table_rows`: TABLES.TABLE_ROWS and every index column's STATISTICS.CARDINALITY, which
SHOW INDEX lists): counted once, then kept until the table may have changed."""

from __future__ import annotations

import sqlite3

from engine import infoschema


def _counting(path) -> tuple[sqlite3.Connection, list[str]]:
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.execute(f"ATTACH '{path.parent / 'd.db'}' AS d")
    infoschema.register(conn)
    counts: list[str] = []
    conn.set_trace_callback(lambda sql: counts.append(sql) if "count(*)" in sql else None)
    return conn, counts


def test_rows_counted_once_until_a_write_of_any_connection(tmp_path):
    conn, counts = _counting(tmp_path / "main.db")
    conn.execute("CREATE TABLE d.t (id INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO d.t VALUES (1), (2), (3)")
    read = "SELECT __is_table_rows('d', 't'), __is_table_rows('d', 't'), __is_table_rows('d', 't')"
    assert conn.execute(read).fetchone() == (3, 3, 3)
    assert conn.execute(read).fetchone() == (3, 3, 3)
    assert len(counts) == 1  # (three cells, two statements: one count)
    conn.execute("DELETE FROM d.t WHERE id = 3")  # this connection's own write
    assert conn.execute(read).fetchone() == (2, 2, 2)
    other = sqlite3.connect(str(tmp_path / "d.db"), isolation_level=None)
    other.execute("INSERT INTO t VALUES (7), (8)")  # another connection's commit
    assert conn.execute(read).fetchone() == (4, 4, 4)
    assert len(counts) == 3
    assert conn.execute("SELECT __is_table_rows('d', 'nosuch')").fetchone() == (None,)
