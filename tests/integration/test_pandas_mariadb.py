"""pandas over SQLAlchemy 2 and PyMySQL against a stock MariaDB 10.11 and our master:
`DataFrame.to_sql` of typed columns (floats with NaN, nullable Int64, DECIMAL, DATETIME(6) with
fractions, dates, bytes, text, booleans; `dtype`), `if_exists` fail / replace / append,
`chunksize` with the default and the "multi" insert method; `read_sql`, `read_sql_table` (its
reflection), `read_sql_query` with parameters, `parse_dates`, `coerce_float=False`, `dtype`,
`dtype_backend="numpy_nullable"`, `index_col` and `chunksize`, and aggregates: the tables' DDL and
every frame (columns, dtypes, index, values) the same from both servers, and the rows the same on
a MariaDB replica and our slave of our master.

It found: FLOAT(53), the column pandas makes for float64, kept as float(53) (MariaDB: FLOAT(p)
is a FLOAT to 24 bits, a DOUBLE to 53, past that 1063)."""

from __future__ import annotations

import datetime
import decimal

import pytest

pd = pytest.importorskip("pandas")

import numpy as np  # noqa: E402
import sqlalchemy as sa  # noqa: E402
from sqlalchemy.dialects import mysql  # noqa: E402

from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import assert_same_rows, both_answer, reference_ours_and_replicas  # noqa: E402

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]


def described(df) -> tuple:
    """A frame as compared: its columns, dtypes, index and values."""
    return list(df.columns), [str(t) for t in df.dtypes], repr(df.index.tolist()), repr(df.values.tolist())


def answers(port: int) -> list[tuple]:
    engine = sa.create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/pd?charset=utf8mb4")
    typed = pd.DataFrame({
        "i": [1, 2, None, 4],
        "big": pd.array([2**40, -5, None, 7], dtype="Int64"),
        "f": [1.5, np.nan, -2.25e10, 3.0],
        "dec": [decimal.Decimal("1.10"), decimal.Decimal("-99999.99"), None, decimal.Decimal("0.01")],
        "ts": pd.to_datetime(["2024-01-02 03:04:05.123456", None, "1999-12-31 23:59:59.500000",
                              "2024-02-29 00:00:00.000000"]),
        "d": [datetime.date(2024, 1, 2), None, datetime.date(1970, 1, 1), datetime.date(2038, 1, 19)],
        "b": [b"\x00\xff", None, b"abc", b""],
        "s": ["é", None, "x" * 300, ""],
        "flag": [True, False, None, True],
    })
    out: list[tuple] = []
    with engine.begin() as conn:
        out.append(("to_sql", typed.to_sql("typed", conn, index=False, dtype={
            "dec": sa.Numeric(10, 2), "ts": mysql.DATETIME(fsp=6), "b": sa.LargeBinary, "s": sa.Text})))
    with engine.begin() as conn:
        try:
            typed.to_sql("typed", conn, index=False)
        except ValueError as exc:
            out.append(("exists", str(exc)))
    with engine.connect() as conn:
        out.append(("ddl", conn.exec_driver_sql("SHOW CREATE TABLE typed").fetchone()[1]))
        out.append(("read_sql", described(pd.read_sql("SELECT * FROM typed ORDER BY i IS NULL, i", conn))))
        out.append(("read_sql_table", described(pd.read_sql_table("typed", conn))))
        out.append(("parameters", described(pd.read_sql_query(
            sa.text("SELECT i, ts, d, `dec` FROM typed WHERE f IS NULL OR f > :x ORDER BY 1"), conn, params={"x": 0},
            parse_dates=["d"], coerce_float=False))))
        out.append(("dtype", described(pd.read_sql("SELECT i, big, f FROM typed ORDER BY 1", conn,
                                                   dtype={"i": "Int64", "big": "Int64"}))))
        out.append(("nullable", described(pd.read_sql("SELECT i, big, f, `dec`, ts, d, s, flag FROM typed ORDER BY 1",
                                                      conn, dtype_backend="numpy_nullable"))))
        out.append(("index_col", described(pd.read_sql("SELECT i, s FROM typed ORDER BY 1", conn, index_col="i"))))
        out.append(("chunks", [described(c) for c in pd.read_sql("SELECT i, f FROM typed ORDER BY 1", conn, chunksize=3)]))
        out.append(("aggregates", described(pd.read_sql(
            "SELECT SUM(`dec`) AS s, AVG(f) AS a, COUNT(*) AS n, MAX(ts) AS m, CAST(1.5 AS DECIMAL(5,2)) AS c, "
            "MIN(d) AS d FROM typed", conn))))
    many = pd.DataFrame({"k": range(1000), "v": [f"v{i}" for i in range(1000)], "x": np.linspace(0, 1, 1000)})
    with engine.begin() as conn:
        out.append(("replace", many.to_sql("many", conn, if_exists="replace", chunksize=128, index_label="pk")))
        out.append(("replace again", many.head(10).to_sql("many", conn, if_exists="replace", index_label="pk")))
        out.append(("append", many.to_sql("many", conn, if_exists="append", chunksize=100, method="multi",
                                          index_label="pk")))
    with engine.connect() as conn:
        out.append(("ddl", conn.exec_driver_sql("SHOW CREATE TABLE many").fetchone()[1]))
        out.append(("sums", described(pd.read_sql("SELECT COUNT(*) AS n, SUM(k) AS s, SUM(x) AS x, MIN(v) AS v "
                                                  "FROM many", conn))))
        out.append(("read many", described(pd.read_sql_table("many", conn).tail(3))))
    engine.dispose()
    return out


def test_pandas_frames_on_mariadb_and_ours(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            server.query("CREATE DATABASE pd CHARACTER SET utf8mb4")
        theirs, mine = answers(reference.port), answers(ours.port)
        assert "`f` double DEFAULT NULL" in next(text for what, text in theirs if what == "ddl")  # (what the comparison stands on: MariaDB's DDL)
        assert [(t, o) for t, o in zip(theirs, mine, strict=True) if t != o] == []
        assert_same_rows(reference, ours, replicas, "SELECT * FROM pd.typed ORDER BY i IS NULL, i")
        assert_same_rows(reference, ours, replicas, "SELECT * FROM pd.many ORDER BY pk, k")
        # FLOAT(p) as MariaDB declares it
        setup = ("CREATE DATABASE f CHARACTER SET utf8mb4", "CREATE TABLE f.t (a FLOAT(10), b FLOAT(24), c FLOAT(25), d FLOAT(53), "
                                      "e FLOAT(7,3), g REAL(8,2))")
        theirs, mine = both_answer(reference, ours, setup, (
            "SHOW CREATE TABLE t", "CREATE TABLE u (a FLOAT(54))",
            "SELECT column_name, data_type, column_type, numeric_precision, numeric_scale "
            "FROM information_schema.columns WHERE table_schema = 'f' ORDER BY ordinal_position"), database="f")
        assert mine == theirs
