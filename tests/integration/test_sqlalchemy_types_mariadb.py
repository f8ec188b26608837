"""SQLAlchemy 2 (PyMySQL driver) against a stock MariaDB 10.11 and our master: the same model of
twenty column types (Numeric, Float, Boolean, Date, DateTime with fsp, Time, Enum, JSON,
LargeBinary, Text, Interval, unsigned INTEGER, TIMESTAMP with a server default ...), a named
UNIQUE constraint, a CHECK, an index, a foreign key with ON DELETE and table comments, created
through `metadata.create_all`, then everything the Inspector reflects (columns with their types,
defaults and autoincrement, keys, indexes, unique and check constraints, comments, options), the
DDL SQLAlchemy writes back for the reflected tables, a row written and read back as Python
values, a JSON path read through the ORM's JSON comparator and JSON_EXTRACT, and the inserted
primary key: every answer the same from both servers.

It found: NUMERIC(12,4) kept as `numeric` (MariaDB's decimal(12,4); NUMERIC / DECIMAL without
a scale decimal(10,0) / decimal(M,0)), `CONSTRAINT uq_pb UNIQUE (...)` naming its index after
its first column (MariaDB: uq_pb), JSON_EXTRACT writing strings and numbers as Python reads
them ("é" for "\\u00e9", 1.5 for 1.50: MariaDB gives them as the document writes them)."""

from __future__ import annotations

import datetime
import decimal
import enum

import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")

from sqlalchemy import (  # noqa: E402
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Date,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    Interval,
    LargeBinary,
    MetaData,
    Numeric,
    SmallInteger,
    String,
    Table,
    Text,
    Time,
    Unicode,
    UniqueConstraint,
    create_engine,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.dialects import mysql  # noqa: E402
from sqlalchemy.schema import CreateTable  # noqa: E402

from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import mariadb_and_ours  # noqa: E402

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]


class Color(enum.Enum):
    red = 1
    green = 2


def _model(metadata: MetaData) -> None:
    Table("parent", metadata, Column("id", Integer, primary_key=True),
          Column("name", String(40), nullable=False, unique=True), comment="parents")
    Table("things", metadata,
          Column("id", BigInteger, primary_key=True, autoincrement=True),
          Column("parent_id", Integer, ForeignKey("parent.id", ondelete="CASCADE")),
          Column("price", Numeric(12, 4)), Column("ratio", Float), Column("flag", Boolean, server_default="1"),
          Column("born", Date), Column("at", DateTime), Column("at6", mysql.DATETIME(fsp=6)), Column("tm", Time),
          Column("color", Enum(Color)), Column("doc", JSON), Column("data", LargeBinary), Column("body", Text),
          Column("small", SmallInteger, server_default=text("7")), Column("uni", Unicode(10)),
          Column("ts", mysql.TIMESTAMP, server_default=func.current_timestamp()),
          Column("usig", mysql.INTEGER(unsigned=True)), Column("dur", Interval),
          UniqueConstraint("parent_id", "born", name="uq_pb"), CheckConstraint("small > 0", name="ck_small"),
          Index("ix_price", "price"), comment="things table")


def _answers(port: int) -> list[tuple]:
    engine = create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/d?charset=utf8mb4")
    metadata = MetaData()
    _model(metadata)
    with engine.begin() as conn:
        metadata.create_all(conn)
    inspector = inspect(engine)
    out: list[tuple] = []
    for name in ("parent", "things"):
        out.append(("columns", name, [(c["name"], repr(c["type"]), c["nullable"], c.get("default"),
                                       c.get("autoincrement"), c.get("comment")) for c in inspector.get_columns(name)]))
        out.extend([("pk", name, inspector.get_pk_constraint(name)), ("fk", name, inspector.get_foreign_keys(name)),
                    ("ix", name, inspector.get_indexes(name)), ("uq", name, inspector.get_unique_constraints(name)),
                    ("ck", name, inspector.get_check_constraints(name)),
                    ("comment", name, inspector.get_table_comment(name)),
                    ("options", name, inspector.get_table_options(name))])
    things = metadata.tables["things"]
    with engine.begin() as conn:
        conn.execute(insert(metadata.tables["parent"]).values(id=1, name="p"))
        conn.execute(insert(things).values(
            parent_id=1, price=decimal.Decimal("12345678.1234"), ratio=1.5, flag=True, born=datetime.date(2024, 2, 29),
            at=datetime.datetime(2024, 1, 2, 3, 4, 5), at6=datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
            tm=datetime.time(1, 2, 3), color=Color.green, doc={"a": [1, 2, None], "b": "é", "n": 1.5}, data=b"\x00\xff",
            body="x" * 10, uni="é", usig=4294967295, dur=datetime.timedelta(days=1, seconds=5)))
        row = conn.execute(select(things).where(things.c.id == 1)).one()._asdict()
        row.pop("ts")  # (the servers' clocks)
        out.append(("row", row))
        out.append(("json", conn.execute(select(things.c.doc["a"][1])).scalar(),
                    conn.execute(select(func.json_extract(things.c.doc, "$.b"))).scalar()))
        out.append(("inserted", conn.execute(insert(things).values(parent_id=1, born=datetime.date(2024, 1, 1)))
                    .inserted_primary_key))
    reflected = MetaData()
    reflected.reflect(engine)
    out.extend(("ddl", str(CreateTable(table).compile(engine))) for table in reflected.sorted_tables)
    engine.dispose()
    return out


def test_sqlalchemy_model_reflects_and_round_trips_as_on_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            server.query("CREATE DATABASE d CHARACTER SET utf8mb4")
        theirs, ours = _answers(reference.port), _answers(master.port)
    # what the comparison stands on: MariaDB's own reflection of the NUMERIC column and the JSON read
    assert ("price", "DECIMAL(precision=12, scale=4)", True, None, None, None) in theirs[8][2]
    assert theirs[-4] == ("json", 2, '"\\u00e9"')
    assert [t for t, o in zip(theirs, ours, strict=True) if t != o] == []
