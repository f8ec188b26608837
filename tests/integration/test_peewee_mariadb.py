"""Peewee (MySQLDatabase over PyMySQL, `mariadb=True`) against a stock MariaDB 10.11 and our
master: models of every field type with indexes, foreign keys and a many-to-many table made by
`create_tables` (twice: IF NOT EXISTS), the schema as Peewee reads it, atomic blocks with
savepoints and rollbacks, `insert_many` / `bulk_create` / `replace` / `on_conflict_ignore` /
`on_conflict` upserts (ON DUPLICATE KEY UPDATE, with Peewee's VALUE() and its EXCLUDED, which
MariaDB refuses; after `insert_from`'s INSERT ... SELECT too), selects with joins, aggregates,
subqueries, window functions, pagination, JSON path lookups, a recursive CTE, prefetch,
`playhouse.migrate`'s schema changes, and `playhouse.reflection` / pwiz reading the result back:
every answer the same from both servers, and the tables the same on a MariaDB replica and our
slave of our master.

It found: `ON DUPLICATE KEY UPDATE hits = (VALUES(hits) * 10)` read as a table value
constructor (the row's old value), VALUE(c) unknown, `EXCLUDED.hits` read as SQLite's upsert
row, CAST(.. AS JSON) accepted (MariaDB: 1064), an INTEGER column (Peewee's AutoField) answering
DATA_TYPE 'integer', the index InnoDB makes for a foreign key kept beside a later index that
serves it, RENAME TABLE leaving the foreign keys that reference the table behind, ALTER TABLE
resetting the AUTO_INCREMENT counter (the deleted top ids handed out again), DROP COLUMN c
CASCADE a syntax error; and, on the way, INSERT ... SET / INSERT ... SELECT ... WHERE followed by
ON DUPLICATE KEY UPDATE syntax errors."""

from __future__ import annotations

import contextlib
import datetime
import decimal
import io
import uuid

import pytest

pw = pytest.importorskip("peewee")

from playhouse.migrate import MySQLMigrator, migrate  # noqa: E402
from playhouse.reflection import Introspector, print_model, print_table_sql  # noqa: E402
from pwiz import print_models  # noqa: E402

from tests.support.mariadb import mariadb_available  # noqa: E402
from tests.support.mariadb_compare import (  # noqa: E402
    assert_same_rows,
    both_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]


def tried(fn):
    """fn()'s answer, or Peewee's error as ("error", class, code, message)."""
    try:
        return fn()
    except pw.PeeweeException as exc:
        return ("error", type(exc).__name__, *exc.args)


def schema(db, out: list, stage: str) -> None:
    for table in db.get_tables():
        out.append((stage, table, [tuple(c) for c in db.get_columns(table)], [tuple(i) for i in db.get_indexes(table)],
                    [tuple(f) for f in db.get_foreign_keys(table)], db.get_primary_keys(table),
                    db.execute_sql(f"SHOW CREATE TABLE `{table}`").fetchone()))


def answers(port: int) -> list[tuple]:
    db = pw.MySQLDatabase("pw", mariadb=True, host="127.0.0.1", port=port, user="root", password="", charset="utf8mb4")

    class Base(pw.Model):
        class Meta:
            database = db

    class Author(Base):
        name = pw.CharField(max_length=60, unique=True)
        born = pw.DateField(null=True)

    class Book(Base):
        id = pw.BigAutoField()
        author = pw.ForeignKeyField(Author, backref="books", on_delete="CASCADE", on_update="CASCADE")
        title = pw.CharField(index=True)
        code = pw.FixedCharField(max_length=4, null=True)
        body = pw.TextField(null=True)
        pages = pw.IntegerField(default=0)
        small = pw.SmallIntegerField(null=True)
        big = pw.BigIntegerField(null=True)
        price = pw.DecimalField(max_digits=10, decimal_places=2, null=True)
        ratio = pw.FloatField(null=True)
        weight = pw.DoubleField(null=True)
        flag = pw.BooleanField(default=False)
        at = pw.DateTimeField(null=True)
        tm = pw.TimeField(null=True)
        ts = pw.TimestampField(null=True, default=0)
        uid = pw.UUIDField(null=True)
        buid = pw.BinaryUUIDField(null=True)
        blob = pw.BlobField(null=True)
        ip = pw.IPField(null=True)
        bits = pw.BitField(null=True)
        bigbits = pw.BigBitField(null=True)
        doc = pw.JSONField(null=True)
        is_new = bits.flag(1)

        class Meta:
            indexes = ((("author", "title"), True), (("pages", "price"), False))

    class Tag(Base):
        name = pw.CharField(primary_key=True, max_length=20)
        hits = pw.IntegerField(default=0)

    tags = pw.ManyToManyField(Tag, backref="books")
    Book._meta.add_field("tags", tags)
    out: list[tuple] = []
    db.connect()
    db.create_tables([Author, Book, Tag, tags.get_through_model()])
    db.create_tables([Author, Book, Tag, tags.get_through_model()])
    schema(db, out, "created")
    ann = Author.create(name="Ann", born=datetime.date(1970, 1, 2))
    bob = Author.create(name="Bob")
    book = Book.create(author=ann, title="T1", code="ab", body="é" * 3, pages=10, small=-3, big=2**40,
                       price=decimal.Decimal("12.35"), ratio=1.25, weight=2.5e-3, flag=True,
                       at=datetime.datetime(2024, 2, 29, 1, 2, 3), tm=datetime.time(4, 5, 6),
                       ts=datetime.datetime(2024, 3, 1, 12), uid=uuid.UUID(int=1), buid=uuid.UUID(int=2**100),
                       blob=b"\x00\xff\x01", ip="10.1.2.3", doc={"k": [1, 2], "s": "x"})
    book.is_new = True
    book.bigbits.set_bit(70)
    book.save()
    out.append(("ids", ann.id, bob.id, book.id))
    with db.atomic():
        Author.create(name="Cy")
        with db.atomic() as savepoint:
            Author.create(name="Di")
            savepoint.rollback()
        with db.atomic():
            Author.create(name="Ed")
        out.append(("duplicate", tried(lambda: db.atomic()(Author.create)(name="Ann"))))
    with db.atomic() as txn:
        Author.create(name="Fay")
        txn.rollback()
    with db.transaction():
        Author.create(name="Gus")
    out.append(("authors", list(Author.select(Author.id, Author.name).order_by(Author.id).tuples())))
    rows = [{"author": ann.id, "title": f"B{i}", "pages": i, "price": decimal.Decimal(i) / 4} for i in range(20)]
    out.append(("insert_many", Book.insert_many(rows).execute()))
    out.append(("bulk_create", Book.bulk_create([Book(author=bob, title=f"C{i}", pages=100 + i) for i in range(7)],
                                                batch_size=3)))
    Tag.insert_many([("py", 1), ("sql", 2)], fields=[Tag.name, Tag.hits]).execute()
    out.append(("replace", Tag.replace(name="py", hits=5).execute()))
    out.append(("ignore", Tag.insert(name="py", hits=9).on_conflict_ignore().execute()))
    out.append(("excluded", tried(lambda: Tag.insert(name="sql", hits=1).on_conflict(
        update={Tag.hits: Tag.hits + pw.EXCLUDED.hits}).execute())))
    out.append(("upsert", Tag.insert(name="sql", hits=1).on_conflict(
        update={Tag.hits: Tag.hits + pw.fn.VALUES(Tag.hits)}).execute()))
    out.append(("preserve", Tag.insert(name="sql", hits=7).on_conflict(preserve=[Tag.hits]).execute()))
    out.append(("upsert many", Tag.insert_many([("py", 1), ("go", 3)]).on_conflict(
        update={Tag.hits: pw.fn.VALUES(Tag.hits) * 10}).execute()))
    out.append(("tags", list(Tag.select().order_by(Tag.name).tuples())))
    book.tags.add([Tag.get(Tag.name == "py"), Tag.get(Tag.name == "sql")])
    out.append(("m2m", [t.name for t in book.tags.order_by(Tag.name)]))
    out.append(("row", list(Book.select().where(Book.id == book.id).dicts())))
    got = Book.get_by_id(book.id)
    out.append(("fields", got.is_new, got.bigbits.is_set(70), got.doc, got.buid, got.uid, got.ip, bytes(got.blob)))
    out.append(("aggregates", list(
        Author.select(Author.name, pw.fn.COUNT(Book.id).alias("n"), pw.fn.SUM(Book.pages), pw.fn.AVG(Book.price),
                      pw.fn.MAX(Book.price), pw.fn.GROUP_CONCAT(Book.title))
        .join(Book, pw.JOIN.LEFT_OUTER).group_by(Author.name).having(pw.fn.COUNT(Book.id) >= 0)
        .order_by(Author.name).tuples())))
    most = Book.select(pw.fn.MAX(Book.pages)).where(Book.author == Author.id)
    out.append(("subquery", list(Author.select(Author.name, most.alias("most")).order_by(Author.id).tuples())))
    out.append(("window", list(Book.select(Book.title, pw.fn.RANK().over(partition_by=[Book.author],
                                                                        order_by=[Book.pages.desc()]))
                              .order_by(Book.id).limit(8).tuples())))
    out.append(("counts", Author.select().where(Author.name == "Ann").exists(), Book.select().count(),
                Book.select().where(Book.price.between(1, 3)).count(), Book.select().where(Book.title.contains("1")).count()))
    out.append(("paginate", list(Book.select(Book.title).order_by(Book.title).paginate(2, 5).tuples())))
    out.append(("update", Book.update(pages=Book.pages + 1).where(Book.pages < 5).execute()))
    out.append(("delete", Book.delete().where(Book.title.startswith("C")).execute()))
    out.append(("for update", [a.name for a in Author.select().where(Author.id == 1).for_update()]))
    mig = MySQLMigrator(db)
    migrate(mig.add_column("author", "email", pw.CharField(null=True, max_length=80)),
            mig.add_column("author", "score", pw.IntegerField(default=5)),
            mig.add_index("author", ("email",), True),
            mig.rename_column("author", "born", "birth"),
            mig.drop_not_null("author", "name"),
            mig.alter_column_type("author", "score", pw.BigIntegerField(null=True)),
            mig.add_column_default("author", "score", 7),
            mig.drop_column_default("author", "score"),
            mig.rename_column("book", "author_id", "writer_id"),
            mig.drop_index("book", "book_pages_price"),
            mig.rename_table("tag", "label"),
            mig.drop_column("book", "bigbits"),
            mig.add_constraint("book", "ck_pages", pw.Check("pages >= 0")))
    migrate(mig.add_not_null("book", "writer_id"), mig.drop_foreign_key_constraint("book", "writer_id"),
            mig.add_foreign_key_constraint("book", "writer_id", "author", "id", on_delete="RESTRICT"))
    schema(db, out, "migrated")
    out.append(("new id", db.execute_sql("INSERT INTO book (writer_id, title, pages, flag) VALUES (1, 'N', 1, 0)").lastrowid))
    introspector = Introspector.from_database(db)
    models = introspector.generate_models(literal_column_names=True)
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        for name in sorted(models):
            print_model(models[name])
            print_table_sql(models[name])
        print_models(introspector)
    out.append(("reflection", text.getvalue().replace(str(port), "PORT")))
    reflected = models["book"]
    out.append(("reflected rows", list(reflected.select().order_by(reflected.id).limit(3).dicts())))
    db.close()
    return out


def tree_answers(port: int) -> list[tuple]:
    """A self-referencing model's JSON path lookups, recursive CTE, prefetch, insert_from with
    upserts, get_or_create, bulk_update and window functions."""
    db = pw.MySQLDatabase("pw2", mariadb=True, host="127.0.0.1", port=port, user="root", password="", charset="utf8mb4")

    class Base(pw.Model):
        class Meta:
            database = db

    class Node(Base):
        name = pw.CharField()
        parent = pw.ForeignKeyField("self", null=True, backref="children")
        doc = pw.JSONField(null=True)
        amount = pw.DecimalField(max_digits=12, decimal_places=3, default=0)

    class Copy(Base):
        name = pw.CharField(unique=True)
        n = pw.IntegerField(default=0)

    db.create_tables([Node, Copy])
    root = Node.create(name="root", doc={"k": {"x": 1}, "tags": ["a", "b"], "s": "é"}, amount=decimal.Decimal("1.5"))
    for i in range(5):
        Node.create(name=f"c{i}", parent=root, doc={"k": {"x": i}, "n": i * 1.5}, amount=decimal.Decimal(i) / 3)
    Node.create(name="gc", parent=Node.get(Node.name == "c1"))
    top = (Node.select(Node.id, Node.name, pw.Value(0).alias("depth")).where(Node.parent.is_null())
           .cte("tree", recursive=True, columns=("id", "name", "depth")))
    below = Node.alias()
    tree = top.union_all(below.select(below.id, below.name, top.c.depth + 1).join(top, on=(below.parent == top.c.id)))
    out = [
        ("json path", [n.name for n in Node.select().where(Node.doc["k"]["x"] == 2)]),
        ("json null", [n.name for n in Node.select().where(Node.doc["n"].is_null()).order_by(Node.id)]),
        ("json number", [n.name for n in Node.select().where(Node.doc["n"] > 2).order_by(Node.id)]),
        ("recursive", list(tree.select_from(tree.c.name, tree.c.depth).order_by(tree.c.depth, tree.c.name).tuples())),
        ("prefetch", [(n.name, sorted(c.name for c in n.children))
                      for n in pw.prefetch(Node.select().where(Node.parent.is_null()), Node.select())]),
        ("insert_from", Copy.insert_from(Node.select(Node.name, pw.fn.LENGTH(Node.name)).where(Node.parent.is_null(False)),
                                         fields=[Copy.name, Copy.n]).execute()),
        ("insert_from upsert", Copy.insert_from(Node.select(Node.name, pw.Value(9)).where(Node.id <= 3),
                                                fields=[Copy.name, Copy.n]).on_conflict(update={Copy.n: Copy.n + 100}).execute()),
        ("insert_from ignore", Copy.insert_from(Node.select(Node.name, pw.Value(9)), fields=[Copy.name, Copy.n])
         .on_conflict_ignore().execute()),
        ("copies", list(Copy.select(Copy.name, Copy.n).order_by(Copy.name).tuples())),
        ("get_or_create", Copy.get_or_create(name="zz", defaults={"n": 3})[1], Copy.get_or_create(name="zz")[1]),
        ("sums", list(Node.select(pw.fn.SUM(Node.amount), pw.fn.AVG(Node.amount), pw.fn.MAX(Node.amount)).tuples())),
        ("bulk_update", Node.bulk_update([Node(id=2, name="x2", amount=5), Node(id=3, name="x3", amount=6)],
                                         fields=[Node.name, Node.amount], batch_size=1)),
        ("windows", list(Node.select(Node.name, pw.fn.ROW_NUMBER().over(order_by=[Node.amount.desc(), Node.id]),
                                     pw.fn.NTILE(2).over(order_by=[Node.id]), pw.fn.LAG(Node.name).over(order_by=[Node.id]))
                         .order_by(Node.id).tuples())),
    ]
    db.close()
    return out


# the forms of INSERT ... ON DUPLICATE KEY UPDATE found on the way (Peewee's insert_from and
# on_conflict write some of them)
UPSERTS = (
    "INSERT INTO u SET a = 5, b = 1 ON DUPLICATE KEY UPDATE b = b + 100",
    "INSERT INTO u SET a = 5, b = 1 ON DUPLICATE KEY UPDATE b = 100",
    "INSERT INTO u (a, b) SELECT 5, 6 ON DUPLICATE KEY UPDATE b = 3",
    "INSERT INTO u (a, b) SELECT 5, 7 FROM t WHERE a = 1 ON DUPLICATE KEY UPDATE b = VALUES(b) + 10",
    "INSERT INTO u (a, b) SELECT a, b FROM t ORDER BY a DESC LIMIT 1 ON DUPLICATE KEY UPDATE b = u.b + 30",
    "INSERT INTO u (a, b) SELECT t.a, t.b FROM t JOIN u ON u.a = t.a ON DUPLICATE KEY UPDATE b = u.b + 1",
    "INSERT INTO u (a, b) SELECT a, b FROM t WHERE a = 1 ON DUPLICATE KEY UPDATE b = b + 3",
    "INSERT INTO u VALUE (6, 6) ON DUPLICATE KEY UPDATE b = VALUE(b) + 1",
    "INSERT INTO u VALUES (6, 7), (7, 1) ON DUPLICATE KEY UPDATE b = (VALUES(b) * 10)",
    "INSERT INTO u VALUES (6, 7) ON DUPLICATE KEY UPDATE b = (b + excluded.b)",
    "INSERT INTO u VALUES (6, 7) ON DUPLICATE KEY UPDATE b = (b + zz)",
    "INSERT INTO u VALUES (6, 7) ON DUPLICATE KEY UPDATE zz = 1",
    "INSERT INTO u SELECT 6, 7 ON DUPLICATE KEY UPDATE b = zz",
    "SELECT CAST('{}' AS JSON)",
    "SELECT * FROM u ORDER BY a",
)


def test_peewee_on_mariadb_and_ours(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            server.query("CREATE DATABASE pw CHARACTER SET utf8mb4")
            server.query("CREATE DATABASE pw2 CHARACTER SET utf8mb4")
        theirs, mine = tree_answers(reference.port), tree_answers(ours.port)
        assert [(t, o) for t, o in zip(theirs, mine, strict=True) if t != o] == []
        assert_same_rows(reference, ours, replicas, "SELECT * FROM pw2.copy ORDER BY id")
        assert_same_rows(reference, ours, replicas, "SELECT * FROM pw2.node ORDER BY id")
        theirs, mine = answers(reference.port), answers(ours.port)
        # what the comparison stands on: MariaDB's own answers
        assert ("excluded", ("error", "OperationalError", 1054, "Unknown column 'EXCLUDED.hits' in 'SELECT'")) in theirs
        assert [(t, o) for t, o in zip(theirs, mine, strict=True) if t != o] == []
        for table, order in (("author", "id"), ("book", "id"), ("book_tag_through", "id"), ("label", "name")):
            assert_same_rows(reference, ours, replicas, f"SELECT * FROM pw.{table} ORDER BY {order}")
        setup = ("CREATE DATABASE d", "CREATE TABLE d.t (a INT PRIMARY KEY, b INT, d DECIMAL(10,2))",
                 "CREATE TABLE d.u (a INT PRIMARY KEY, b INT)", "INSERT INTO d.t VALUES (1, 2, 1.5), (5, 6, 1)")
        theirs, mine = both_answer(reference, ours, setup, UPSERTS)
        assert [(t, o) for t, o in zip(theirs, mine, strict=True) if t != o] == []
        assert_same_rows(reference, ours, replicas, "SELECT * FROM d.u ORDER BY a")
