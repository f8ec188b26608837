"""SQLAlchemy 2's Inspector on views, against a stock MariaDB 10.11 and our master:
get_view_names, and get_columns of a view (which SQLAlchemy's MySQL dialect reads from DESCRIBE
of the view: 1235 here before) over columns, COUNT(*), a literal, arithmetic and a view of a
view, each column's type, nullability, default and autoincrement the same from both servers.
get_view_definition is not compared: SHOW CREATE VIEW prints the SELECT as written, MariaDB
rewrites it (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")

from sqlalchemy import create_engine, inspect  # noqa: E402

from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import mariadb_and_ours  # noqa: E402

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a VARCHAR(5) DEFAULT 'x', b DECIMAL(6,2) NOT NULL DEFAULT 1.5,"
    " k INT AUTO_INCREMENT UNIQUE) DEFAULT CHARSET=utf8mb4",
    "CREATE VIEW d.w AS SELECT id, a, b, k FROM d.t",
    "CREATE VIEW d.w2 AS SELECT id, COUNT(*) AS n, 'abc' AS s, id + 1 AS p FROM d.t GROUP BY id",
    "CREATE VIEW d.w3 AS SELECT * FROM d.w",
]


def _reflected(port: int) -> list[tuple]:
    engine = create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/d?charset=utf8mb4")
    try:
        inspector = inspect(engine)
        out: list[tuple] = [("views", inspector.get_view_names()), ("tables", inspector.get_table_names())]
        for view in ("w", "w2", "w3"):
            out.append((view, [(c["name"], repr(c["type"]), c["nullable"], c["default"], c.get("autoincrement"))
                               for c in inspector.get_columns(view)]))
        return out
    finally:
        engine.dispose()


def test_the_inspector_reflects_views_as_on_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for statement in SETUP:
            reference.query(statement)
            master.query(statement)
        assert _reflected(master.port) == _reflected(reference.port)
