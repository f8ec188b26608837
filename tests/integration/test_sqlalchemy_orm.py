"""SQLAlchemy 2 ORM (PyMySQL driver) against the master daemon: models with one-to-many and
many-to-many relationships, lazy and eager loads, reflection of tables, columns, indexes and
foreign keys, an Alembic-style migration (add column, add index, add foreign key) reflected after,
and InnoDB foreign key enforcement (1452, 1451, CASCADE, foreign_key_checks=0)."""

from __future__ import annotations

import uuid

import pymysql
import pytest

sqlalchemy = pytest.importorskip("sqlalchemy")

from sqlalchemy import (  # noqa: E402
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Uuid,
    create_engine,
    inspect,
    select,
    text,
)
from sqlalchemy.dialects import mysql  # noqa: E402
from sqlalchemy.orm import DeclarativeBase, Session, joinedload, relationship, selectinload  # noqa: E402
from sqlalchemy.schema import AddConstraint, CreateIndex, ForeignKeyConstraint  # noqa: E402

from tests.support.mariadb import MariaDBServer, mariadb_available  # noqa: E402
from tests.support.mariadb_compare import OUR_SERVER_CHARSET  # noqa: E402
from tests.support.master import master_fixture  # noqa: E402,F401 (the `master` fixture)

pytestmark = pytest.mark.timeout(240)


class Base(DeclarativeBase):
    pass


post_tags = Table(
    "post_tags", Base.metadata,
    Column("post_id", ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True),
    Column("tag_id", ForeignKey("tags.id"), primary_key=True),
)


class Author(Base):
    __tablename__ = "authors"
    id = Column(Integer, primary_key=True)
    name = Column(String(50), nullable=False, index=True)
    posts = relationship("Post", back_populates="author", order_by="Post.id")


class Post(Base):
    __tablename__ = "posts"
    id = Column(Integer, primary_key=True)
    author_id = Column(Integer, ForeignKey("authors.id", name="fk_post_author"), nullable=False)
    title = Column(String(100))
    author = relationship("Author", back_populates="posts")
    tags = relationship("Tag", secondary=post_tags, order_by="Tag.id")


class Tag(Base):
    __tablename__ = "tags"
    id = Column(Integer, primary_key=True)
    label = Column(String(30), unique=True)


def _engine(master):
    return create_engine(f"mysql+pymysql://root@127.0.0.1:{master.port}/orm")


def _fks(insp, table):
    return sorted((fk["name"], tuple(fk["constrained_columns"]), fk["referred_table"],
                   tuple(fk["referred_columns"]), (fk.get("options") or {}).get("ondelete"))
                  for fk in insp.get_foreign_keys(table))


def test_orm_relationships_reflection_and_migration(master):
    master.query("CREATE DATABASE orm")
    engine = _engine(master)
    Base.metadata.create_all(engine)
    with Session(engine) as s:
        ann, bob = Author(name="ann"), Author(name="bob")
        red, blue = Tag(label="red"), Tag(label="blue")
        ann.posts = [Post(title="p1", tags=[red, blue]), Post(title="p2", tags=[blue])]
        bob.posts = [Post(title="p3")]
        s.add_all([ann, bob])
        s.commit()
    with Session(engine) as s:  # lazy loads
        ann = s.scalars(select(Author).where(Author.name == "ann")).one()
        assert [p.title for p in ann.posts] == ["p1", "p2"]
        assert [t.label for t in ann.posts[0].tags] == ["red", "blue"]
    with Session(engine) as s:  # eager loads
        authors = s.scalars(select(Author).options(joinedload(Author.posts)).order_by(Author.id)).unique().all()
        assert [(a.name, [p.title for p in a.posts]) for a in authors] == [("ann", ["p1", "p2"]), ("bob", ["p3"])]
        posts = s.scalars(select(Post).options(selectinload(Post.tags)).order_by(Post.id)).all()
        assert [[t.label for t in p.tags] for p in posts] == [["red", "blue"], ["blue"], []]

    insp = inspect(engine)
    assert sorted(insp.get_table_names()) == ["authors", "post_tags", "posts", "tags"]
    cols = {c["name"]: c for c in insp.get_columns("posts")}
    assert list(cols) == ["id", "author_id", "title"]
    assert isinstance(cols["title"]["type"], String) and cols["title"]["type"].length == 100
    assert isinstance(cols["author_id"]["type"], Integer) and cols["author_id"]["nullable"] is False
    assert insp.get_pk_constraint("post_tags")["constrained_columns"] == ["post_id", "tag_id"]
    assert _fks(insp, "posts") == [("fk_post_author", ("author_id",), "authors", ("id",), None)]
    assert [(fk[1], fk[2], fk[4]) for fk in _fks(insp, "post_tags")] == [
        (("post_id",), "posts", "CASCADE"), (("tag_id",), "tags", None)]
    assert [(i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes("authors")] == [
        ("ix_authors_name", ["name"], False)]
    reflected = MetaData()
    reflected.reflect(engine)
    assert {fk.target_fullname for fk in reflected.tables["post_tags"].foreign_keys} == {"posts.id", "tags.id"}

    # an Alembic-style migration: add a column, an index on it, a foreign key from it
    editor = Column("editor_id", Integer)
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE posts ADD COLUMN editor_id INTEGER"))
        migration = MetaData()
        Table("authors", migration, Column("id", Integer, primary_key=True))
        posts = Table("posts", migration, Column("id", Integer), editor)
        conn.execute(CreateIndex(Index("ix_posts_editor_id", editor)))
        conn.execute(AddConstraint(ForeignKeyConstraint(["editor_id"], ["authors.id"], name="fk_post_editor",
                                                        table=posts)))
    insp = inspect(engine)
    assert [c["name"] for c in insp.get_columns("posts")][-1] == "editor_id"
    assert ("ix_posts_editor_id", ["editor_id"]) in [(i["name"], i["column_names"]) for i in insp.get_indexes("posts")]
    assert ("fk_post_editor", ("editor_id",), "authors", ("id",), None) in _fks(insp, "posts")
    engine.dispose()


def test_foreign_keys_enforced(master):
    master.query("CREATE DATABASE fk")
    conn = master.connect("fk")
    cur = conn.cursor()
    cur.execute("CREATE TABLE parent (id INT PRIMARY KEY)")
    cur.execute("CREATE TABLE child (id INT PRIMARY KEY, pid INT, CONSTRAINT fk FOREIGN KEY (pid) REFERENCES parent (id))")
    cur.execute("CREATE TABLE kid (id INT PRIMARY KEY, pid INT, "
                "CONSTRAINT kfk FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE)")
    with pytest.raises(pymysql.err.IntegrityError) as err:
        cur.execute("INSERT INTO child VALUES (1, 7)")
    assert err.value.args == (1452, "Cannot add or update a child row: a foreign key constraint fails "
                                    "(`fk`.`child`, CONSTRAINT `fk` FOREIGN KEY (`pid`) REFERENCES `parent` (`id`))")
    cur.execute("INSERT INTO parent VALUES (1), (2)")
    cur.execute("INSERT INTO child VALUES (1, 1)")
    cur.execute("INSERT INTO kid VALUES (1, 1), (2, 2)")
    with pytest.raises(pymysql.err.IntegrityError) as err:
        cur.execute("DELETE FROM parent WHERE id = 1")
    assert err.value.args[0] == 1451 and "CONSTRAINT `fk` FOREIGN KEY" in err.value.args[1]
    cur.execute("DELETE FROM parent WHERE id = 2")  # cascades to kid 2
    cur.execute("SELECT id FROM kid ORDER BY id")
    assert cur.fetchall() == ((1,),)
    cur.execute("SET foreign_key_checks = 0")
    cur.execute("INSERT INTO child VALUES (2, 99)")
    cur.execute("SET foreign_key_checks = 1")
    cur.execute("SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'fk' "
                "ORDER BY CONSTRAINT_NAME")
    assert [(r[2], r[7], r[8], r[9], r[10]) for r in cur.fetchall()] == [
        ("fk", "RESTRICT", "RESTRICT", "child", "parent"), ("kfk", "RESTRICT", "CASCADE", "kid", "parent")]
    cur.execute("SHOW CREATE TABLE kid")
    assert ("  CONSTRAINT `kfk` FOREIGN KEY (`pid`) REFERENCES `parent` (`id`) ON DELETE CASCADE"
            in cur.fetchone()[1].splitlines())


FK_SCRIPT = [
    "CREATE TABLE p (a INT, b INT, PRIMARY KEY (a, b))",
    "CREATE TABLE c (id INT PRIMARY KEY, x INT, y INT, FOREIGN KEY (x, y) REFERENCES p (a, b) "
    "ON DELETE NO ACTION ON UPDATE RESTRICT)",
    "CREATE TABLE c2 (id INT PRIMARY KEY, x INT, CONSTRAINT f2 FOREIGN KEY fidx (x) REFERENCES p (a) ON UPDATE SET NULL)",
    "CREATE TABLE c3 (id INT PRIMARY KEY, x INT REFERENCES p (a), y INT, FOREIGN KEY yk (y) REFERENCES p (a))",
    "INSERT INTO p VALUES (1, 1)",
    "INSERT INTO c VALUES (1, 5, 5)",
    "INSERT INTO c VALUES (1, 1, 1)",
    "INSERT INTO c3 VALUES (1, NULL, 7)",
    "DELETE FROM p",
    "DROP TABLE p",
    "ALTER TABLE c2 DROP FOREIGN KEY f2",
    "ALTER TABLE c2 DROP FOREIGN KEY f2",
]


def _fk_transcript(conn) -> list:
    out: list = []
    cur = conn.cursor()
    for sql in FK_SCRIPT:
        try:
            cur.execute(sql)
            out.append("ok")
        except pymysql.err.MySQLError as exc:
            out.append(exc.args)
    for table in ("c", "c2", "c3"):
        cur.execute(f"SHOW CREATE TABLE {table}")
        out.append([line for line in cur.fetchone()[1].splitlines() if "KEY" in line])
    for view in ("REFERENTIAL_CONSTRAINTS", "KEY_COLUMN_USAGE", "TABLE_CONSTRAINTS"):
        cur.execute(f"SELECT * FROM information_schema.{view} WHERE CONSTRAINT_SCHEMA = 'fkd'")
        out.append(sorted((tuple(row) for row in cur.fetchall()), key=repr))
    return out


@pytest.mark.skipif(not mariadb_available(), reason="needs Debian's MariaDB packages")
def test_foreign_keys_and_reflection_as_mariadb(master, tmp_path):
    """The same DDL, errors, SHOW CREATE TABLE keys, information_schema rows and SQLAlchemy
    reflection on our master and on a stock MariaDB 10.11."""
    mariadb = MariaDBServer(tmp_path / "mariadb").start()
    try:
        transcripts, reflections = [], []
        for port, server in ((master.port, master), (mariadb.port, mariadb)):
            server.query("CREATE DATABASE fkd")
            server.query("CREATE DATABASE orm")
            transcripts.append(_fk_transcript(server.connect("fkd")))
            engine = create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/orm")
            Base.metadata.create_all(engine)
            insp = inspect(engine)
            reflections.append({t: (_fks(insp, t), insp.get_pk_constraint(t)["constrained_columns"],
                                    sorted((i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes(t)),
                                    [(c["name"], repr(c["type"]), c["nullable"]) for c in insp.get_columns(t)])
                                for t in sorted(insp.get_table_names())})
            engine.dispose()
        assert transcripts[0] == transcripts[1]
        assert reflections[0] == reflections[1]
    finally:
        mariadb.stop()


class DeviceBase(DeclarativeBase):
    pass


class Device(DeviceBase):
    """SQLAlchemy 2's `Uuid` is MariaDB's UUID from 10.7 on; the MariaDB dialect's INET4 / INET6."""
    __tablename__ = "devices"
    id = Column(Uuid, primary_key=True, default=uuid.uuid4)
    address = Column(mysql.INET6, nullable=False, unique=True)
    legacy = Column(mysql.INET4)
    owner = Column(Uuid(as_uuid=False))


@pytest.mark.skipif(not mariadb_available(), reason="needs Debian's MariaDB packages")
@pytest.mark.filterwarnings("ignore:Did not recognize type 'inet")  # (SQLAlchemy's reflection, either server)
def test_uuid_and_inet_models_as_mariadb(master, tmp_path):
    """A model with `Uuid`, INET6 and INET4 columns: its CREATE TABLE (a syntax error before),
    uuid.UUID values written and read back, queries by them, and the reflected columns, on our
    master as on a stock MariaDB 10.11."""
    mariadb = MariaDBServer(tmp_path / "mariadb", extra=OUR_SERVER_CHARSET).start()
    ids = [uuid.UUID("6ccd780c-baba-1026-9564-5b8c656024db"), uuid.UUID("00000002-0000-1001-8000-000000000000"),
           uuid.UUID("00000001-0000-0000-ffff-000000000000")]
    try:
        answers = []
        for port, server in ((master.port, master), (mariadb.port, mariadb)):
            server.query("CREATE DATABASE dev")
            engine = create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/dev")
            Device.__table__.create(engine)
            with Session(engine) as session:
                session.add_all([Device(id=ids[0], address="2001:DB8::1", legacy="10.0.0.1", owner=str(ids[1])),
                                 Device(id=ids[1], address="::ffff:1.2.3.4"),
                                 Device(id=ids[2], address="fe80::0001", legacy="192.168.0.1")])
                session.commit()
                rows = [(d.id, d.address, d.legacy, d.owner) for d in session.scalars(select(Device).order_by(Device.id))]
                found = session.get(Device, ids[1])
                found = (found.id, found.address, found.legacy)
                by_address = session.scalars(select(Device.id).where(Device.address == "FE80::1")).all()
                made = Device(address="::2")
                session.add(made)
                session.commit()
                generated = isinstance(session.get(Device, made.id).id, uuid.UUID)
            insp = inspect(engine)
            columns = [(c["name"], repr(c["type"]), c["nullable"]) for c in insp.get_columns("devices")]
            with engine.connect() as conn:
                shown = conn.execute(text("SHOW CREATE TABLE devices")).one()[1]
            answers.append((rows, found, by_address, generated, columns, shown))
            engine.dispose()
        assert answers[1][0][0][0] == ids[1]  # (MariaDB's order: the time-based UUID first)
        assert answers[0] == answers[1]
    finally:
        mariadb.stop()
