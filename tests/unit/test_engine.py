"""engine/: MySQL statements on SQLite — translation, types, auto-increment, escapes, errors."""

from __future__ import annotations

import pytest

from engine import Engine, StatementContext
from engine.lexer import HYBRID_MARK, Hybrid, extract, tokenize
from protocol.errors import SQLError
from protocol.messages import FieldType

SBTEST = """CREATE TABLE sbtest1(
  id INTEGER NOT NULL AUTO_INCREMENT,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) /*! ENGINE = innodb */ """


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    yield engine
    await engine.close()


async def run(engine, session, sql, context=None):
    """Execute and, like the master's pipeline, group-commit what the statement committed."""
    result = await session.execute(sql, context)
    if result.committed is not None:
        async with engine.writer_lock:
            await engine.commit_group({"last": sql[:40]})
    return result


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    return session


def code_of(excinfo) -> int:
    return excinfo.value.code


# --- the lexer ----------------------------------------------------------------------------------


def test_extract_replaces_literals_and_decodes_mysql_escapes():
    shape, params = extract(r"INSERT INTO t VALUES (0, -12, 1.5, 'it\'s', 'a\\b\nc', "
                            r"'x''y', "  "\"dq\", X'4142', 0x43, `col1`) -- 7")
    assert shape == "INSERT INTO t VALUES (?, -?, ?, ?, ?, ?, ?, ?, ?, `col1`) -- 7" + HYBRID_MARK
    assert params == [0, 12, 1.5, "it's", "a\\b\nc", "x'y", "dq", b"AB", b"C"]
    assert type(params[7]) is bytes and type(params[8]) is Hybrid  # X'..' a string, 0x.. a hybrid


def test_extract_keeps_identifiers_with_digits_and_comments():
    shape, params = extract("SELECT c FROM sbtest12 /* 5 'x' */ WHERE id=7 # 9")
    assert shape == "SELECT c FROM sbtest12 /* 5 'x' */ WHERE id=? # 9"
    assert params == [7]


def test_same_shape_for_different_literals():
    a, _ = extract("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5, 'a', 'b')")
    b, _ = extract("INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 77, 'cc-dd', 'ee')")
    assert a == b


def test_executable_comment_content_is_kept():
    shape, params = extract("CREATE TABLE t (a INT) /*!50100 ENGINE = innodb */")
    assert "ENGINE = innodb" in shape and "/*" not in shape


def test_bare_question_mark_is_a_syntax_error():
    with pytest.raises(SQLError) as e:
        extract("SELECT ?")
    assert code_of(e) == 1064


def test_tokenize_backticks_and_params():
    tokens = tokenize("SELECT `a``b`, ? FROM t")
    assert [t.kind for t in tokens] == ["word", "ident", "op", "param", "word", "word"]
    assert tokens[1].text == "a`b"


# --- execution ----------------------------------------------------------------------------------


async def test_sysbench_table_auto_increment_zero_and_null_mean_next_id(engine, db):
    await run(engine, db, SBTEST)
    r = await run(engine, db, "INSERT INTO sbtest1(k, c, pad) VALUES(5, 'a', 'b'),(6, 'c', 'd')")
    assert (r.affected_rows, r.last_insert_id) == (2, 1)
    assert r.info == "Records: 2  Duplicates: 0  Warnings: 0"
    r = await run(engine, db, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 7, 'e', 'f')")
    assert r.last_insert_id == 3
    r = await run(engine, db, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (NULL, 8, 'g', 'h')")
    assert r.last_insert_id == 4
    r = await run(engine, db, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (10, 8, 'g', 'h')")
    assert r.last_insert_id == 10  # the explicit id (MariaDB's OK packet), LAST_INSERT_ID() unmoved
    assert (await run(engine, db, "SELECT LAST_INSERT_ID()")).rows == [(4,)]
    r = await run(engine, db, "INSERT INTO sbtest1 (k) VALUES (1)")
    assert r.last_insert_id == 11
    r = await run(engine, db, "SELECT id, k, c, pad FROM sbtest1 ORDER BY id")
    assert [row[0] for row in r.rows] == [1, 2, 3, 4, 10, 11]
    assert r.rows[-1] == (11, 1, "", "")
    assert [t.type for t in r.column_types] == [FieldType.LONG, FieldType.LONG, FieldType.STRING, FieldType.STRING]
    r = await run(engine, db, "SELECT LAST_INSERT_ID()")
    assert r.rows == [(11,)] and r.columns == ["LAST_INSERT_ID()"]


async def test_ids_of_a_rolled_back_insert_are_not_reused(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await run(engine, db, "INSERT INTO t (v) VALUES (1)")
    await run(engine, db, "BEGIN")
    await run(engine, db, "INSERT INTO t (v) VALUES (2)")
    await run(engine, db, "ROLLBACK")
    r = await run(engine, db, "INSERT INTO t (v) VALUES (3)")
    assert r.last_insert_id == 3


async def test_sysbench_queries(engine, db):
    await run(engine, db, SBTEST)
    values = ",".join(f"({i}, '{i:03d}-c', 'pad')" for i in range(1, 21))
    await run(engine, db, f"INSERT INTO sbtest1(k, c, pad) VALUES{values}")
    await run(engine, db, "CREATE INDEX k_1 ON sbtest1(k)")
    assert (await run(engine, db, "SELECT c FROM sbtest1 WHERE id=5")).rows == [("005-c",)]
    r = await run(engine, db, "SELECT c FROM sbtest1 WHERE id BETWEEN 3 AND 5 ORDER BY c")
    assert r.rows == [("003-c",), ("004-c",), ("005-c",)]
    r = await run(engine, db, "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 3 AND 4 ORDER BY c")
    assert r.rows == [("003-c",), ("004-c",)]
    r = await run(engine, db, "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN 1 AND 4")
    assert r.rows == [("10",)] and r.columns == ["SUM(k)"]  # SUM of integers is a DECIMAL
    r = await run(engine, db, "UPDATE sbtest1 SET k=k+1 WHERE id=4")
    assert r.affected_rows == 1 and r.committed is not None
    r = await run(engine, db, "UPDATE sbtest1 SET c='new' WHERE id=4")
    assert (await run(engine, db, "SELECT k, c FROM sbtest1 WHERE id=4")).rows == [(5, "new")]
    r = await run(engine, db, "DELETE FROM sbtest1 WHERE id=4")
    assert r.affected_rows == 1
    r = await run(engine, db, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (4, 9, 'x', 'y')")
    assert (await run(engine, db, "SELECT k FROM sbtest1 WHERE id=4")).rows == [(9,)]
    r = await run(engine, db, "UPDATE sbtest1 SET k=k+1 WHERE id=999")
    assert r.affected_rows == 0 and r.committed is not None  # binlogged all the same
    await run(engine, db, "DROP TABLE IF EXISTS sbtest1")
    assert (await run(engine, db, "SHOW TABLES")).rows == []


async def test_types_map_to_affinities(engine, db):
    await run(engine, db, "CREATE TABLE `ty` (`i` BIGINT UNSIGNED, d DOUBLE, n DECIMAL(10,2), "
                          "s VARCHAR(20) CHARACTER SET utf8mb4, b VARBINARY(8), dt DATETIME, "
                          "tx TEXT, e ENUM('a','b')) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
    await run(engine, db, "INSERT INTO ty VALUES ('12', '1.5', 2.25, 34, X'00ff', '2024-01-02 03:04:05', "
                          "'t', 'b')")
    r = await run(engine, db, "SELECT * FROM ty")
    assert r.rows == [(12, "1.5", "2.25", "34", b"\x00\xff", "2024-01-02 03:04:05", "t", "b")]
    assert [t.type for t in r.column_types] == [
        FieldType.LONGLONG, FieldType.DOUBLE, FieldType.NEWDECIMAL, FieldType.VAR_STRING, FieldType.VAR_STRING,
        FieldType.DATETIME, FieldType.BLOB, FieldType.STRING]
    assert [t.charset for t in r.column_types][3:5] == [45, 63]


async def test_escapes_and_comments_round_trip(engine, db):
    await run(engine, db, "CREATE TABLE s (id INT PRIMARY KEY, v TEXT)")
    await run(engine, db, r"INSERT INTO s VALUES (1, 'a\'b\\c\nd'), (2, 'semi;colon'), (3, '%_')"
                          " /* trailing */")
    r = await run(engine, db, "SELECT v FROM s /* c */ WHERE id = 1 -- end")
    assert r.rows == [("a'b\\c\nd",)]
    r = await run(engine, db, r"SELECT id FROM s WHERE v LIKE '\%\_'")
    assert r.rows == [(3,)]


async def test_functions(engine, db):
    r = await run(engine, db, "SELECT CONCAT('a', 1, 'b'), IF(1 > 2, 'y', 'n'), IFNULL(NULL, 3), "
                              "7 DIV 2, 7 / 2, 1 || 0, UPPER('x'), LENGTH('é'), CHAR_LENGTH('é'), "
                              "GREATEST(1, 5, 3), COALESCE(NULL, 'z')")
    assert r.rows == [("a1b", "n", 3, 3, "3.5000", 1, "X", 2, 1, 5, "z")]
    assert r.columns[0] == "CONCAT('a', 1, 'b')"
    r = await run(engine, db, "SELECT NOW(), UNIX_TIMESTAMP(), CURRENT_TIMESTAMP, DATABASE(), 1 + 1 AS two",
                  context=None)
    now, unix, cur, dbname, two = r.rows[0]
    assert now == cur and dbname == "test" and two == 2 and isinstance(unix, int)
    assert r.column_types[0].type == FieldType.DATETIME


async def test_insert_ids_as_mariadb(engine, db):
    """The client's id and LAST_INSERT_ID() after each statement, as MariaDB 10.11 gave them for
    the same statements (tests/integration/test_insert_id_mariadb.py compares them live)."""
    await run(engine, db, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, u INT UNIQUE, v INT)")
    await run(engine, db, "INSERT INTO a (u, v) VALUES (1, 1), (2, 2)")

    async def ids(sql):
        r = await run(engine, db, sql)
        return r.affected_rows, r.last_insert_id, (await run(engine, db, "SELECT LAST_INSERT_ID()")).rows[0][0]
    assert await ids("INSERT INTO a (u, v) VALUES (70, LAST_INSERT_ID(5))") == (1, 3, 3)  # generated wins
    assert await ids("INSERT INTO a (id, u, v) VALUES (50, 9, 1)") == (1, 50, 3)  # explicit
    assert await ids("INSERT INTO a (id, u, v) VALUES (60, 13, 1), (NULL, 14, 1)") == (2, 61, 61)
    assert await ids("INSERT IGNORE INTO a (u, v) VALUES (1, 1)") == (0, 0, 61)  # skipped
    assert await ids("INSERT IGNORE INTO a (u, v) VALUES (1, 1), (19, 1)") == (1, 64, 64)
    assert await ids("INSERT INTO a (u, v) VALUES (2, 7) ON DUPLICATE KEY UPDATE v = v + 10") == (2, 2, 64)
    assert await ids("INSERT INTO a (u, v) VALUES (2, 7) ON DUPLICATE KEY UPDATE v = v") == (0, 0, 64)
    assert await ids("INSERT INTO a (u, v) VALUES (2, 0) ON DUPLICATE KEY UPDATE id = LAST_INSERT_ID(id), "
                     "v = 1") == (2, 2, 2)
    assert await ids("INSERT INTO a (id, u, v) VALUES (80, 80, LAST_INSERT_ID(6))") == (1, 6, 6)
    assert await ids("INSERT INTO a (id, u, v) SELECT id + 200, u + 200, v FROM a WHERE id < 3") == (2, 202, 6)
    assert await ids("REPLACE INTO a (id, u, v) VALUES (1, 700, 1)") == (2, 1, 6)
    assert await ids("UPDATE a SET v = 3 WHERE id = 1") == (1, 0, 6)
    r = await run(engine, db, "SELECT id FROM a ORDER BY id")
    assert [i for (i,) in r.rows] == [1, 2, 3, 50, 60, 61, 64, 80, 201, 202]


async def test_insert_select_giving_auto_increment_zero_or_null_takes_the_next_id(engine, db):
    """INSERT ... SELECT whose rows give the AUTO_INCREMENT column 0 or NULL: each such row takes
    the next id, as a VALUES row does (MariaDB 10.11's ids for these statements; the binlog's
    INSERT_ID is the first one), a row's own id moves the next one; a SELECT of another width
    is 1136; REPLACE ... SELECT leaving an id to the table is refused (1235)."""
    await run(engine, db, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))")
    r = await run(engine, db, "INSERT INTO t (id, v) SELECT 0, 'x'")
    assert (r.affected_rows, r.last_insert_id) == (1, 1)
    assert r.committed.statements[0].insert_id == 1
    r = await run(engine, db, "INSERT INTO t SELECT NULL, 'a' UNION ALL SELECT 10, 'b' UNION ALL SELECT 0, 'c'")
    assert (r.affected_rows, r.last_insert_id) == (3, 2)
    assert [row for row in (await run(engine, db, "SELECT id, v FROM t ORDER BY id")).rows] == [
        (1, "x"), (2, "a"), (10, "b"), (11, "c")]
    for sql in ("INSERT INTO t SELECT 1", "INSERT INTO t (v) SELECT 1, 2", "INSERT INTO t SELECT * FROM t, t AS u"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == 1136, sql
    with pytest.raises(SQLError) as e:
        await run(engine, db, "INSERT INTO t SELECT id, v FROM t WHERE id = 10")
    assert (code_of(e), e.value.message) == (1062, "Duplicate entry '10' for key 'PRIMARY'")
    with pytest.raises(SQLError) as e:
        await run(engine, db, "REPLACE INTO t SELECT 0, 'r'")
    assert code_of(e) == 1235
    assert (await run(engine, db, "REPLACE INTO t SELECT 10, 'r'")).affected_rows == 2


async def test_insert_select_whose_rows_all_give_their_ids_runs_as_one_statement(engine, db, monkeypatch):
    """Only rows that leave their id to AUTO_INCREMENT (NULL, 0, '0', '') need running one at a
    time: a copy whose rows all name their ids is one INSERT ... SELECT (row by row it was ~40
    times slower), with the same rows and ids, and the client's id as MariaDB's."""
    await run(engine, db, "CREATE TABLE s (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))")
    await run(engine, db, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(5))")
    await run(engine, db, "INSERT INTO s VALUES (3, 'a'), (7, 'b')")
    apart = []
    rows_apart = type(engine)._w_rows_apart
    monkeypatch.setattr(type(engine), "_w_rows_apart", lambda self, *a, **kw: apart.append(1) or rows_apart(self, *a, **kw))
    r = await run(engine, db, "INSERT INTO t SELECT * FROM s")
    assert (r.affected_rows, r.last_insert_id, apart) == (2, 7, [])  # (the OK packet's id: the last given, as MariaDB's)
    r = await run(engine, db, "INSERT INTO t SELECT id + 10, v FROM s UNION ALL SELECT '0', 'z'")
    assert (r.affected_rows, r.last_insert_id, apart) == (3, 18, [1])
    assert [row for row in (await run(engine, db, "SELECT id, v FROM t ORDER BY id")).rows] == [
        (3, "a"), (7, "b"), (13, "a"), (17, "b"), (18, "z")]


async def test_offset_rows_and_fetch_first_are_limit(engine, db):
    """`[OFFSET n ROWS] FETCH {FIRST | NEXT} [m] ROWS ONLY` (MariaDB 10.6+) reads as LIMIT m
    OFFSET n (m 1 when left out, every row without FETCH); after LIMIT or in a DELETE it is a
    syntax error, WITH TIES 4180 without ORDER BY and 1235 with it."""
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY)")
    await run(engine, db, "INSERT INTO t VALUES (1), (2), (3), (4)")
    for sql, ids in (("SELECT id FROM t ORDER BY id FETCH FIRST 2 ROWS ONLY", [1, 2]),
                     ("SELECT id FROM t ORDER BY id OFFSET 1 ROW FETCH NEXT 2 ROWS ONLY", [2, 3]),
                     ("SELECT id FROM t ORDER BY id OFFSET 2 ROWS", [3, 4]),
                     ("SELECT id FROM t ORDER BY id DESC FETCH FIRST ROW ONLY", [4]),
                     ("SELECT id FROM t WHERE id IN (SELECT id FROM t ORDER BY id FETCH FIRST 1 ROWS ONLY)", [1])):
        assert [i for (i,) in (await run(engine, db, sql)).rows] == ids, sql
    for sql, code in (("SELECT id FROM t ORDER BY id LIMIT 1 FETCH FIRST 1 ROWS ONLY", 1064),
                      ("DELETE FROM t ORDER BY id FETCH FIRST 1 ROWS ONLY", 1064),
                      ("SELECT id FROM t FETCH FIRST 1 ROWS WITH TIES", 4180),
                      ("SELECT id FROM t ORDER BY id FETCH FIRST 1 ROWS WITH TIES", 1235)):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == code, sql


async def test_full_text_search_json_table_and_system_versioning_are_1235(engine, db):
    """MariaDB's forms not built here are refused with 1235 naming them (MATCH ... AGAINST read
    as a call was a 1064 at AGAINST; JSON_TABLE a 1064 at COLUMNS; WITH SYSTEM VERSIONING an
    unknown option 1911)."""
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20))")
    for sql, named in (("SELECT id FROM t WHERE MATCH(name) AGAINST('a')", "MATCH ... AGAINST (full-text search)"),
                       ("SELECT MATCH(name) AGAINST('a' IN BOOLEAN MODE) FROM t", "MATCH ... AGAINST (full-text search)"),
                       ("SELECT * FROM JSON_TABLE('[1]', '$[*]' COLUMNS (a INT PATH '$')) jt", "JSON_TABLE"),
                       ("CREATE TABLE v (a INT) WITH SYSTEM VERSIONING", "system-versioned tables")):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert (code_of(e), named in str(e.value)) == (1235, True), (sql, e.value)

async def test_table_value_constructor_reads_as_selects(engine, db):
    """`VALUES (a, b), (c, d)` as a statement, a derived table, a UNION's branch (the whole
    constructor's duplicates removed after UNION) and an IN's subquery: named by its first row,
    typed by all; 4099 for rows of different widths, 4141 for an empty one; INSERT's VALUES and
    the VALUES() function are left alone."""
    r = await run(engine, db, "VALUES (1, 'a'), (2.5, NULL)")
    assert r.columns == ["1", "a"] and r.rows == [("1.0", "a"), ("2.5", None)]  # (DECIMAL as its text)
    assert r.column_types[0].type == FieldType.NEWDECIMAL
    assert (await run(engine, db, "SELECT 1 UNION VALUES (1), (1)")).rows == [(1,)]
    assert (await run(engine, db, "SELECT 1 UNION ALL VALUES (1), (1)")).rows == [(1,), (1,), (1,)]
    assert (await run(engine, db, "SELECT COUNT(*) FROM (VALUES (1, 2), (3, 4)) AS t")).rows == [(2,)]
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    await run(engine, db, "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
    await run(engine, db, "INSERT INTO t (id, v) VALUES (3, 0) ON DUPLICATE KEY UPDATE v = VALUES(v) + 10")
    assert (await run(engine, db, "SELECT id, v FROM t WHERE id IN (VALUES (1), (3)) ORDER BY id")).rows == [
        (1, 1), (3, 10)]
    for sql, code in (("VALUES (1, 2), (3)", 4099), ("VALUES ()", 4141)):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == code, sql


async def test_replace_counts_the_rows_it_deletes_as_mariadb(engine, db):
    """REPLACE's affected rows are the rows inserted plus the rows deleted: MariaDB 10.11's
    counts for this sequence, run against it (a row meeting two rows on two unique keys: 3; a
    second row of the same statement replacing the first: 3), and REPLACE ... SELECT's. Several
    rows are one statement: a failing row leaves none of them, also inside a transaction."""
    await run(engine, db, "CREATE TABLE w (id INT PRIMARY KEY, k INT, u INT UNIQUE, a INT AUTO_INCREMENT UNIQUE)")
    await run(engine, db, "INSERT INTO w (id, k, u) VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)")
    counts = []
    for sql in ["REPLACE INTO w (id, k, u) VALUES (2, 7, 20)", "REPLACE INTO w (id, k, u) VALUES (4, 4, 3)",
                "REPLACE INTO w (id, k, u) VALUES (1, 9, 20)", "REPLACE INTO w (id, k, u) VALUES (5, 5, 5), (5, 6, 6)",
                "REPLACE INTO w (id, k, u) VALUES (9, 9, 9)", "REPLACE INTO w SET id = 9, k = 10, u = NULL",
                "REPLACE INTO w (id, k, u) VALUES (10, 1, NULL), (11, 1, NULL)"]:
        counts.append((await run(engine, db, sql)).affected_rows)
    assert counts == [2, 2, 3, 3, 1, 2, 2]
    r = await run(engine, db, "SELECT id, k, u FROM w ORDER BY id")
    assert r.rows == [(1, 9, 20), (4, 4, 3), (5, 6, 6), (9, 10, None), (10, 1, None), (11, 1, None)]
    await run(engine, db, "CREATE TABLE par (id INT PRIMARY KEY)")
    await run(engine, db, "CREATE TABLE n (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES par (id))")
    await run(engine, db, "INSERT INTO par VALUES (1)")
    await run(engine, db, "INSERT INTO n VALUES (1, 1)")
    for prefix in ([], ["BEGIN"]):
        for sql in prefix:
            await run(engine, db, sql)
        with pytest.raises(SQLError) as e:  # the third row fails as it runs, after the first two
            await run(engine, db, "REPLACE INTO n VALUES (1, 1), (2, 1), (3, 9)")
        assert code_of(e) == 1452
        assert (await run(engine, db, "SELECT id, p FROM n ORDER BY id")).rows == [(1, 1)]
        if prefix:
            await run(engine, db, "COMMIT")
    assert (await run(engine, db, "REPLACE INTO n SELECT id + 1, p FROM n")).affected_rows == 1
    # each meets itself, stored as it was: counted once (MariaDB 10.11: 2)
    assert (await run(engine, db, "REPLACE INTO n SELECT * FROM n")).affected_rows == 2
    assert (await run(engine, db, "SELECT id, p FROM n ORDER BY id")).rows == [(1, 1), (2, 1)]


async def test_replace_of_an_equal_row_counts_once_where_mariadb_updates_in_place(engine, db):
    """MariaDB 10.11's counts: a row met on the table's one unique key is updated in place, and
    one stored as it was is not counted as deleted (1, Duplicates: 0); with a second unique key,
    or a foreign key referencing the table, the row met is deleted (2)."""
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5), n INT DEFAULT 3)")
    await run(engine, db, "CREATE TABLE u (id INT PRIMARY KEY, k INT UNIQUE, v INT)")
    await run(engine, db, "CREATE TABLE p (id INT PRIMARY KEY, v INT)")
    await run(engine, db, "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
    await run(engine, db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', NULL)")
    await run(engine, db, "INSERT INTO u VALUES (1, 1, 1)")
    await run(engine, db, "INSERT INTO p VALUES (1, 1)")
    counts = []
    for sql in ["REPLACE INTO t VALUES (1, 'a', 1), (2, 'b', NULL)", "REPLACE INTO t VALUES (1, 'a', 1), (2, 'c', NULL), (3, 'x', 0)",
                "REPLACE INTO t (id, v) VALUES (1, 'a')", "REPLACE INTO t (id, v) VALUES (1, 'a')",
                "REPLACE INTO t SELECT * FROM t", "REPLACE INTO u VALUES (1, 1, 1)", "REPLACE INTO p VALUES (1, 1)"]:
        r = await run(engine, db, sql)
        counts.append((r.affected_rows, r.info))
    assert counts == [(2, "Records: 2  Duplicates: 0  Warnings: 0"), (4, "Records: 3  Duplicates: 1  Warnings: 0"),
                      (2, ""), (1, ""), (3, "Records: 3  Duplicates: 0  Warnings: 1"), (2, ""), (2, "")]
    assert (await run(engine, db, "SELECT * FROM t ORDER BY id")).rows == [(1, "a", 3), (2, "c", None), (3, "x", 0)]


async def test_insert_variants(engine, db):
    await run(engine, db, "CREATE TABLE u (id INT PRIMARY KEY, v INT, UNIQUE KEY uv (v))")
    await run(engine, db, "INSERT INTO u VALUES (1, 10)")
    r = await run(engine, db, "INSERT IGNORE INTO u VALUES (1, 11)")
    assert r.affected_rows == 0
    await run(engine, db, "REPLACE INTO u VALUES (1, 12)")
    await run(engine, db, "INSERT INTO u (id, v) VALUES (1, 13) ON DUPLICATE KEY UPDATE v = VALUES(v) + 1")
    await run(engine, db, "INSERT INTO u SET id = 2, v = 20")
    await run(engine, db, "INSERT INTO u (id, v) SELECT id + 10, v + 1 FROM u")
    r = await run(engine, db, "SELECT id, v FROM u ORDER BY id")
    assert r.rows == [(1, 14), (2, 20), (11, 15), (12, 21)]
    with pytest.raises(SQLError) as e:
        await run(engine, db, "INSERT INTO u VALUES (3, 20)")
    assert code_of(e) == 1062 and "Duplicate entry '20' for key 'uv'" in e.value.message


async def test_joins_and_qualified_names(engine, db):
    await run(engine, db, "CREATE TABLE a (id INT PRIMARY KEY, name VARCHAR(10))")
    await run(engine, db, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, qty INT)")
    await run(engine, db, "INSERT INTO a VALUES (1, 'one'), (2, 'two')")
    await run(engine, db, "INSERT INTO b VALUES (1, 1, 5), (2, 1, 6), (3, 2, 7)")
    r = await run(engine, db, "SELECT a.name, SUM(b.qty) AS total FROM a JOIN test.b ON a.id = b.a_id "
                              "GROUP BY a.name ORDER BY 2 DESC")
    assert r.rows == [("one", "11"), ("two", "7")] and r.columns == ["name", "total"]
    r = await run(engine, db, "SELECT x.name FROM `test`.`a` AS x LEFT JOIN b y ON y.a_id = x.id "
                              "AND y.qty > 6 WHERE y.id IS NULL")
    assert r.rows == [("one",)]
    r = await run(engine, db, "SELECT name FROM a WHERE id IN (SELECT a_id FROM b WHERE qty = 7) FOR UPDATE")
    assert r.rows == [("two",)]
    r = await run(engine, db, "SELECT COUNT(*) FROM (SELECT * FROM a FORCE KEY (PRIMARY) LIMIT 5) t")
    assert r.rows == [(2,)]
    other = engine.session(2)
    r = await run(engine, other, "SELECT name FROM test.a WHERE id = 2")
    assert r.rows == [("two",)]


async def test_ddl_alter_show_describe(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT, v VARCHAR(5), PRIMARY KEY (id))")
    await run(engine, db, "INSERT INTO t (v) VALUES ('a'), ('b')")
    await run(engine, db, "ALTER TABLE t ADD COLUMN n INT NOT NULL DEFAULT 7, ADD INDEX iv (v)")
    await run(engine, db, "ALTER TABLE t ADD COLUMN m INT NOT NULL AFTER id")
    r = await run(engine, db, "SELECT * FROM t ORDER BY id")
    assert r.columns == ["id", "m", "v", "n"] and r.rows == [(1, 0, "a", 7), (2, 0, "b", 7)]
    await run(engine, db, "ALTER TABLE t DROP COLUMN m")
    r = await run(engine, db, "DESCRIBE t")
    assert [row[:4] for row in r.rows] == [("id", "int(11)", "NO", "PRI"), ("v", "varchar(5)", "YES", "MUL"),
                                           ("n", "int(11)", "NO", "")]
    create = (await run(engine, db, "SHOW CREATE TABLE t")).rows[0][1]
    assert "`id` int(11) NOT NULL AUTO_INCREMENT" in create and "KEY `iv` (`v`)" in create
    r = await run(engine, db, "INSERT INTO t (v) VALUES ('c')")
    assert r.last_insert_id == 3
    await run(engine, db, "TRUNCATE TABLE t")
    assert (await run(engine, db, "SELECT COUNT(*) FROM t")).rows == [(0,)]
    await run(engine, db, "RENAME TABLE t TO t2")
    assert (await run(engine, db, "SHOW TABLES")).rows == [("t2",)]
    assert (await run(engine, db, "SHOW DATABASES")).rows == [("information_schema",), ("performance_schema",),
                                                              ("test",)]
    await run(engine, db, "CREATE DATABASE IF NOT EXISTS test")
    await run(engine, db, "DROP DATABASE test")
    assert (await run(engine, db, "SHOW DATABASES")).rows == [("information_schema",), ("performance_schema",)]
    await run(engine, db, "DROP DATABASE IF EXISTS test")


async def test_a_year_column_shows_its_display_width(engine, db):
    """MariaDB 10.11 writes YEAR as year(4) in SHOW CREATE TABLE and DESCRIBE (mariadb-dump's
    CREATE TABLE has it)."""
    await run(engine, db, "CREATE TABLE y (id INT PRIMARY KEY, yr YEAR, y4 YEAR(4) NOT NULL)")
    create = (await run(engine, db, "SHOW CREATE TABLE y")).rows[0][1]
    assert "`yr` year(4) DEFAULT NULL" in create and "`y4` year(4) NOT NULL" in create
    assert [row[1] for row in (await run(engine, db, "DESCRIBE y")).rows] == ["int(11)", "year(4)", "year(4)"]


@pytest.mark.parametrize(
    "sql, code",
    [
        ("SELEC 1", 1064),
        ("SELECT * FROM nosuch", 1146),
        ("SELECT nosuch FROM t", 1054),
        ("INSERT INTO t (id, v) VALUES (1, 'x')", 1062),
        ("INSERT INTO t (id, v) VALUES (NULL, NULL)", 1048),
        ("INSERT INTO t (v) VALUES ('a')", 1364),
        ("INSERT INTO t (id, v) VALUES (5)", 1136),
        ("CREATE TABLE t (a INT)", 1050),
        ("CREATE DATABASE test", 1007),
        ("DROP DATABASE nodb", 1008),
        ("DROP TABLE nosuch", 1051),
        ("INSERT INTO nosuch VALUES (1)", 1146),
        ("UPDATE t SET nosuch = 1", 1054),
        ("", 1065),
        ("ALTER TABLE t DROP COLUMN nosuch", 1091),
    ],
)
async def test_errors_have_mysql_codes(engine, db, sql, code):
    await run(engine, db, "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v VARCHAR(10) NOT NULL)")
    await run(engine, db, "INSERT INTO t VALUES (1, 'x')")
    with pytest.raises(SQLError) as e:
        await run(engine, db, sql)
    assert code_of(e) == code
    assert (await run(engine, db, "SELECT COUNT(*) FROM t")).rows == [(1,)]


async def test_no_database_selected_and_unknown_database(engine):
    session = engine.session(1)
    with pytest.raises(SQLError) as e:
        await session.execute("SELECT * FROM t")
    assert code_of(e) == 1046
    with pytest.raises(SQLError) as e:
        session.database = "nodb"
    assert code_of(e) == 1049
    with pytest.raises(SQLError) as e:
        await session.execute("USE nodb")
    assert code_of(e) == 1049


async def test_the_shape_cache_translates_each_shape_once(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)")
    for i in range(5):
        await run(engine, db, f"INSERT INTO t (id, v) VALUES (0, {i})")
    shapes = [key[0] for key in engine._plans]
    assert shapes.count("INSERT INTO t (id, v) VALUES (?, ?)") == 1
    assert (await run(engine, db, "SELECT COUNT(*), MAX(id) FROM t")).rows == [(5, 5)]


async def test_update_reports_changed_rows_unless_found_rows(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT)")
    await run(engine, db, "INSERT INTO t VALUES (1, 1, 1), (2, 2, 2), (3, NULL, 3)")
    assert (await run(engine, db, "UPDATE t SET v = 1 WHERE id <= 2")).affected_rows == 1
    assert (await run(engine, db, "UPDATE t SET v = 1")).affected_rows == 1  # the NULL one
    assert (await run(engine, db, "UPDATE t SET v = v, w = w + 0 WHERE w > 0")).affected_rows == 0
    await run(engine, db, "CREATE TABLE s (id INT PRIMARY KEY, name VARCHAR(10))")
    await run(engine, db, "INSERT INTO s VALUES (1, 'abc')")
    assert (await run(engine, db, "UPDATE s SET name = 'ABC'")).affected_rows == 1  # case changes count
    assert (await run(engine, db, "SELECT name FROM s WHERE name = 'aBc'")).rows == [("ABC",)]
    db.found_rows = True
    assert (await run(engine, db, "UPDATE t SET v = 1 WHERE id <= 2")).affected_rows == 2
    assert (await run(engine, db, "SELECT v FROM t ORDER BY id")).rows == [(1,), (1,), (1,)]


VALID = [
    "INSERT INTO t (id, v) VALUES (7, 'x'), (8, 'y') ON DUPLICATE KEY UPDATE v = VALUES(v)",
    "UPDATE t SET v = CONCAT(v, 'z') WHERE id BETWEEN 1 AND 3 ORDER BY id LIMIT 1",
    "SELECT DISTINCT t.v, COUNT(*) AS n FROM t JOIN t AS u ON t.id = u.id WHERE t.id IN (1, 2) "
    "GROUP BY t.v HAVING n > 0 ORDER BY 1 DESC LIMIT 1, 2",
    "CREATE TABLE t9 (id INT NOT NULL AUTO_INCREMENT, c CHAR(10) DEFAULT 'a', PRIMARY KEY (id), KEY kc (c))",
    "ALTER TABLE t ADD COLUMN z INT NOT NULL DEFAULT 3 AFTER id, ADD INDEX iz (z)",
    "DELETE FROM t WHERE id = 1",
    "SHOW CREATE TABLE t",
    "INSERT INTO t SET id = 9, v = 'q'",
]


@pytest.mark.parametrize("statement", VALID)
async def test_every_truncation_fails_with_a_mysql_error_or_runs(engine, db, statement):
    await run(engine, db, "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, v VARCHAR(10) NOT NULL)")
    await run(engine, db, "INSERT INTO t VALUES (1, 'x')")
    words = statement.split(" ")
    for n in range(1, len(words) + 1):
        sql = " ".join(words[:n])
        try:
            await run(engine, db, sql)
        except SQLError:
            pass
    assert not engine.writer_lock.locked()


async def test_result_column_names_follow_mysql(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(5))")
    await run(engine, db, "INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    r = await run(engine, db, "SELECT COUNT(*), 1e3, 0x41, 'txt', IF(1, 'a', 'b') x, CAST('12' AS SIGNED) + 1, "
                              "LEFT('hello', 2), MOD(7, 3), FLOOR(1.5) FROM t t1, t t2 WHERE t1.id = 1")
    assert r.columns == ["COUNT(*)", "1e3", "0x41", "txt", "x", "CAST('12' AS SIGNED) + 1", "LEFT('hello', 2)",
                         "MOD(7, 3)", "FLOOR(1.5)"]
    assert r.rows == [(2, "1000", b"A", "txt", "a", 13, "he", 1, 1)]
    assert (await run(engine, db, "SELECT 1 FROM DUAL")).rows == [(1,)]
    r = await run(engine, db, "SELECT v FROM t ORDER BY v COLLATE utf8mb4_bin DESC")
    assert r.rows == [("b",), ("a",)]


async def test_date_arithmetic_with_interval(engine, db):
    ctx = StatementContext(timestamp=1_700_000_000)  # 2023-11-14 22:13:20 UTC
    r = await db.execute("SELECT NOW() - INTERVAL 1 DAY, DATE_ADD('2024-01-31', INTERVAL 1 MONTH), "
                         "DATE_SUB('2024-03-01 00:00:00', INTERVAL 1 SECOND), '2024-01-01' + INTERVAL 2 WEEK, "
                         "ADDDATE('2024-02-28', 2), UNIX_TIMESTAMP(NOW() - INTERVAL 1 HOUR)", ctx)
    assert r.rows == [("2023-11-13 22:13:20", "2024-02-29", "2024-02-29 23:59:59", "2024-01-15", "2024-03-01",
                       1_700_000_000 - 3600)]
    assert r.columns[0] == "NOW() - INTERVAL 1 DAY"
    await run(engine, db, "CREATE TABLE ev (id INT PRIMARY KEY, at DATETIME)")
    await run(engine, db, "INSERT INTO ev VALUES (1, '2023-11-14 20:00:00'), (2, '2023-11-10 00:00:00')")
    r = await db.execute("SELECT id FROM ev WHERE at > NOW() - INTERVAL 1 DAY", ctx)
    assert r.rows == [(1,)]


async def test_binary_values_escaped_by_pymysql_round_trip(engine, db):
    from pymysql.converters import escape_item

    value = bytes(range(256))
    await run(engine, db, "CREATE TABLE b (id INT PRIMARY KEY, data BLOB, s TEXT)")
    blob, text = escape_item(value, "utf8mb4"), escape_item("é'\"\\\n\x00\x1a", "utf8mb4")
    sql = f"INSERT INTO b VALUES (1, {blob}, {text})"
    # the wire: PyMySQL encodes with surrogateescape, the server decodes the same way
    sql = sql.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
    await run(engine, db, sql)
    r = await run(engine, db, "SELECT data, s FROM b")
    assert r.rows == [(value, "é'\"\\\n\x00\x1a")] and [t.type for t in r.column_types] == [FieldType.BLOB] * 2
    assert [t.charset for t in r.column_types] == [63, 45]


async def test_last_insert_id_with_an_argument_sets_the_sessions_value(engine, db):
    await run(engine, db, "CREATE TABLE seq (id INT NOT NULL)")
    await run(engine, db, "INSERT INTO seq VALUES (41)")
    r = await run(engine, db, "UPDATE seq SET id = LAST_INSERT_ID(id + 1)")
    assert r.last_insert_id == 42
    assert (await run(engine, db, "SELECT LAST_INSERT_ID()")).rows == [(42,)]
    r = await run(engine, db, "INSERT INTO seq VALUES (LAST_INSERT_ID() + 100)")
    assert r.committed.statements[0].last_insert_id == 42  # binlogged as INTVAR LAST_INSERT_ID
    assert (await run(engine, db, "SELECT LAST_INSERT_ID(7), LAST_INSERT_ID()")).rows[0][0] == 7
    assert (await run(engine, db, "SELECT LAST_INSERT_ID()")).rows == [(7,)]
    await run(engine, db, "UPDATE seq SET id = LAST_INSERT_ID(id + 1) WHERE id < 0")  # sets nothing
    assert (await run(engine, db, "SELECT LAST_INSERT_ID()")).rows == [(7,)]
    assert (await run(engine, db, "SELECT id FROM seq ORDER BY id")).rows == [(42,), (142,)]


@pytest.fixture
async def joined(engine, db):
    """Tables a(id, v) = (1,1) (2,2) (3,3) and b(id, a_id, w) = (1,1,10) (2,3,30) (3,2,20)."""
    await run(engine, db, "CREATE TABLE a (id INT PRIMARY KEY, v INT)")
    await run(engine, db, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, w INT)")
    await run(engine, db, "INSERT INTO a VALUES (1, 1), (2, 2), (3, 3)")
    await run(engine, db, "INSERT INTO b VALUES (1, 1, 10), (2, 3, 30), (3, 2, 20)")
    return db


async def test_multi_table_delete_with_one_target(engine, joined):
    db = joined
    r = await run(engine, db, "DELETE a FROM a JOIN b ON a.id = b.a_id WHERE b.id = 1")
    assert r.affected_rows == 1
    r = await run(engine, db, "DELETE x FROM a AS x, b WHERE x.id = b.a_id AND b.id = 2")
    assert r.affected_rows == 1
    r = await run(engine, db, "DELETE FROM b USING b LEFT JOIN a ON a.id = b.a_id WHERE a.id IS NULL")
    assert r.affected_rows == 2
    assert (await run(engine, db, "SELECT id FROM a")).rows == [(2,)]
    assert (await run(engine, db, "SELECT id FROM b")).rows == [(3,)]



async def test_multi_table_delete_of_several_targets_deletes_what_the_join_found(engine, joined):
    db = joined
    r = await run(engine, db, "DELETE a, b FROM a JOIN b ON a.id = b.a_id WHERE b.w >= 20")
    assert r.affected_rows == 4  # each table's rows the join found, summed
    assert (await run(engine, db, "SELECT id FROM a")).rows == [(1,)]
    assert (await run(engine, db, "SELECT id FROM b")).rows == [(1,)]
    r = await run(engine, db, "DELETE FROM a.*, b USING a LEFT JOIN b ON a.id = b.a_id")
    assert r.affected_rows == 2
    for sql in ("DELETE a, b FROM a JOIN b ON a.id = b.a_id LIMIT 1", "DELETE FROM a, b USING a, b ORDER BY a.id"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == 1064


async def test_multi_table_update_of_one_table(engine, joined):
    db = joined
    r = await run(engine, db, "UPDATE a JOIN b ON a.id = b.a_id SET a.v = b.w + 1 WHERE b.id <= 2")
    assert r.affected_rows == 2
    assert (await run(engine, db, "SELECT v FROM a ORDER BY id")).rows == [(11,), (2,), (31,)]
    await run(engine, db, "UPDATE a x, b SET w = x.v * 2 WHERE x.id = b.a_id AND b.id = 2")
    assert (await run(engine, db, "SELECT w FROM b ORDER BY id")).rows == [(10,), (62,), (20,)]
    for sql, code in [("UPDATE a, b SET id = 5", 1052), ("UPDATE a, b SET a.nope = 1", 1054)]:
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == code


async def test_multi_table_update_of_several_tables_reads_the_rows_before_it(engine, joined):
    db = joined
    sql = "UPDATE a JOIN b ON a.id = b.a_id SET a.v = a.v + b.id, b.w = b.w + a.id WHERE b.id >= 2"
    r = await run(engine, db, sql)
    assert (r.affected_rows, r.info) == (4, "Rows matched: 4  Changed: 4  Warnings: 0")
    assert (await run(engine, db, "SELECT v FROM a ORDER BY id")).rows == [(1,), (5,), (5,)]
    assert (await run(engine, db, "SELECT w FROM b ORDER BY id")).rows == [(10,), (33,), (22,)]
    r = await run(engine, db, "UPDATE a, b SET a.v = 7, b.w = 10 WHERE a.id = b.a_id AND a.id = 1")
    assert (r.affected_rows, r.info) == (1, "Rows matched: 2  Changed: 1  Warnings: 0")
    db.found_rows = True
    assert (await run(engine, db, "UPDATE a, b SET a.v = 1, b.w = 10 WHERE a.id = b.a_id")).affected_rows == 6
    # what MariaDB answers by its join order: refused
    for sql in ("UPDATE a, b SET a.v = 1, b.w = a.v WHERE a.id = b.a_id",
                "UPDATE a, b SET a.v = b.w, b.w = 0 WHERE a.id = b.a_id",
                "UPDATE a, b SET a.v = 1, b.w = 2 LIMIT 1", "UPDATE a, b SET a.v = b.id"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == 1235
    assert (await run(engine, db, "SELECT v FROM a ORDER BY id")).rows == [(1,), (1,), (1,)]


async def test_on_duplicate_key_update_counts_rows_like_mysql(engine, db):
    await run(engine, db, "CREATE TABLE kv (k VARCHAR(10) PRIMARY KEY, v INT)")
    sql = "INSERT INTO kv (k, v) VALUES ('a', 1) ON DUPLICATE KEY UPDATE v = VALUES(v)"
    assert (await run(engine, db, sql)).affected_rows == 1  # inserted
    assert (await run(engine, db, sql)).affected_rows == 0  # found, nothing changed
    sql2 = "INSERT INTO kv (k, v) VALUES ('a', 2), ('b', 3) ON DUPLICATE KEY UPDATE v = VALUES(v) + 10"
    assert (await run(engine, db, sql2)).affected_rows == 3  # a updated (2) + b inserted (1)
    assert (await run(engine, db, "SELECT k, v FROM kv ORDER BY k")).rows == [("a", 12), ("b", 3)]
    db.found_rows = True
    assert (await run(engine, db, "INSERT INTO kv VALUES ('b', 0) ON DUPLICATE KEY UPDATE v = v")).affected_rows == 1


async def test_database_names_cannot_leave_the_datadir(engine, db):
    for name in ("../evil", "a/b", ".hidden"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, f"CREATE DATABASE `{name}`")
        assert code_of(e) == 1102
    await run(engine, db, "CREATE DATABASE `my-db`")
    await run(engine, db, "CREATE TABLE `my-db`.t (x INT)")
    await run(engine, db, "INSERT INTO `my-db`.t VALUES (1)")
    assert (await run(engine, db, "SELECT x FROM `my-db`.t")).rows == [(1,)]
    with pytest.raises(SQLError) as e:
        await run(engine, db, "SELECT x FROM `my-db`.nope")
    assert e.value.message == "Table 'my-db.nope' doesn't exist"
    assert sorted(p.name for p in engine.datadir.glob("*.sqlite")) == ["__engine__.sqlite", "my-db.sqlite", "test.sqlite"]


async def test_information_schema_describes_the_catalog(engine, db):
    await run(engine, db, "CREATE TABLE a (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
                          "name VARCHAR(20) COMMENT 'who', KEY kn (name))")
    # what python-mysql-replication asks for the columns of a row event's table
    r = await run(engine, db, "SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, "
                              "COLUMN_TYPE, COLUMN_KEY, ORDINAL_POSITION, DATA_TYPE, CHARACTER_OCTET_LENGTH "
                              "FROM information_schema.columns WHERE table_schema = 'test' AND table_name = 'a' "
                              "ORDER BY ORDINAL_POSITION")
    assert r.rows == [("id", None, None, "", "int(11)", "PRI", 1, "int", None),
                      ("name", "utf8mb4_general_ci", "utf8mb4", "who", "varchar(20)", "MUL", 2, "varchar", 80)]
    r = await run(engine, db, "SELECT COUNT(*) FROM information_schema.TABLES t "
                              "WHERE t.table_schema = 'test' AND t.table_name = 'a'")
    assert r.rows == [(1,)]
    r = await run(engine, db, "SELECT index_name, column_name FROM information_schema.statistics ORDER BY 1")
    assert r.rows == [("kn", "name"), ("PRIMARY", "id")]  # (utf8mb3_general_ci's order, as MariaDB's)
    s = engine.session(5)
    s.database = "information_schema"
    assert (await s.execute("SELECT schema_name FROM schemata")).rows == [("information_schema",), ("performance_schema",),
                                                                          ("test",)]
    assert ("TABLES",) in (await s.execute("SHOW TABLES")).rows
    with pytest.raises(SQLError) as e:
        await s.execute("SELECT * FROM nope")
    assert code_of(e) == 1109  # MariaDB: Unknown table 'nope' in information_schema


async def test_like_with_a_prefix_searches_the_index_under_general_ci(engine, db):
    """`col LIKE 'ab%'` on an indexed character column: an index range (SQLite's own LIKE
    optimization needs NOCASE; the engine adds the bounds, `collation.like_range`), and the same
    rows as without it: case folded, a tab or trailing space after the prefix, an escaped %."""
    await run(engine, db, "CREATE TABLE l (id INT PRIMARY KEY, v VARCHAR(20), KEY (v))")
    await run(engine, db, "INSERT INTO l VALUES (1, 'ab'), (2, 'AB\\t'), (3, 'Ab c'), (4, 'abz'), (5, 'a%b'), "
                          "(6, 'ab '), (7, 'b'), (8, 'aa'), (9, 'a'), (10, NULL)")

    async def ids(where):
        return [i for (i,) in (await run(engine, db, f"SELECT id FROM l WHERE {where} ORDER BY id")).rows]
    assert await ids("v LIKE 'ab%'") == [1, 2, 3, 4, 6]
    assert await ids("v LIKE 'AB_'") == [2, 4, 6]
    assert await ids("v LIKE 'a\\\\%%'") == [5]
    assert await ids("v LIKE 'a%' AND id > 4") == [5, 6, 8, 9]
    assert await ids("id = 7 OR v LIKE 'abz%'") == [4, 7]
    assert await ids("NOT v LIKE 'a%'") == [7]
    assert await ids("v LIKE '%z'") == [4]
    plan = (await run(engine, db, "EXPLAIN SELECT id FROM l WHERE v LIKE 'ab%'")).rows
    assert plan[0][3] == "range" and plan[0][5] == "v"
    await run(engine, db, "CREATE TABLE l2 (id INT PRIMARY KEY, w INT)")
    r = await run(engine, db, "EXPLAIN SELECT l.id FROM l JOIN l2 ON l2.id = l.id WHERE v LIKE 'ab%'")
    assert r.rows[0][3] == "range" and r.rows[0][5] == "v"  # (a name only one of the tables has)


async def test_literals_compare_under_general_ci_beside_expressions(engine, db):
    """A literal compared with a literal or an expression compares as MariaDB's connection
    collation does (SQLite would compare binary: no bare column gives it a collation)."""
    await run(engine, db, "CREATE TABLE g (id INT PRIMARY KEY, v VARCHAR(10), n INT)")
    await run(engine, db, "INSERT INTO g VALUES (1, 'ab', 1), (2, 'AB  ', 2), (3, 'äb', 3), (4, 'b', 4)")
    r = await run(engine, db, "SELECT 'a' = 'A', 'ab' = 'AB  ', 'é' < 'F', 'a' <> 'A', 5 = 5, 2 > '10'")
    assert r.rows == [(1, 1, 1, 0, 1, 0)]
    r = await run(engine, db, "SELECT id FROM g WHERE UPPER(v) = 'ab' OR 'B' = TRIM(v) ORDER BY id")
    assert [i for (i,) in r.rows] == [1, 2, 3, 4]
    await run(engine, db, "CREATE TABLE gb (id INT PRIMARY KEY, w VARCHAR(10) COLLATE utf8mb4_bin)")
    await run(engine, db, "INSERT INTO gb VALUES (1, 'ab')")
    r = await run(engine, db, "SELECT id FROM gb WHERE UPPER(w) = 'ab'")  # a _bin operand: binary
    assert r.rows == []


async def test_a_number_and_a_string_compare_as_numbers(engine, db):
    """MySQL compares a number with a string as numbers ('01' = 1, 'x' = 0), SQLite puts every
    number below every text: the string side is cast (`exact.Finder.convert_operands`). Where that
    depends on a literal's kind, the shape has one plan per kind (`Plan.literal_kinds`)."""
    await run(engine, db, "CREATE TABLE m (id INT PRIMARY KEY, w VARCHAR(9), n INT, KEY (w))")
    await run(engine, db, "INSERT INTO m VALUES (1, '1', 1), (2, '01', 2), (3, 'x', 3), (4, '10', NULL)")

    async def ids(where):
        return [i for (i,) in (await run(engine, db, f"SELECT id FROM m WHERE {where} ORDER BY id")).rows]
    assert await ids("w = 1") == [1, 2]
    assert await ids("w = '1'") == [1]
    assert await ids("w = 1") == [1, 2]  # the shape's plan for a number, cached beside the string's
    assert await ids("w = 0") == [3]
    assert await ids("w > 9") == [4]
    assert await ids("w > '9'") == [3]
    assert await ids("n + 0 >= '2'") == [2, 3]
    assert await ids("n * 1 IN ('1', '3')") == [1, 3]
    assert await ids("n - 0 BETWEEN '2' AND '3.5'") == [2, 3]
    assert await ids("UPPER(w) = 1 OR LENGTH(w) = '2' AND id > 2") == [1, 2, 4]
    assert await ids("n = w") == [1]
    assert await ids("n > w") == [2, 3]
    r = await run(engine, db, "SELECT 1 = '1', '01' = 1, '01' = '1', 'a' = 0, 1 = 1.0, -1 = '-1.0'")
    assert r.rows == [(1, 1, 0, 1, 1, 1)]
    shape, _ = extract("SELECT id FROM m WHERE w = 1")
    number, text = engine.plan_for(shape, "test", [1]), engine.plan_for(shape, "test", ["1"])
    assert "CAST" in number.sql and "CAST" not in text.sql
    assert number.literal_kinds == ((0, True),) and text.literal_kinds == ((0, False),)
    assert engine.plan_for(shape, "test", [2]) is number and engine.plan_for(shape, "test", ["2"]) is text
    plan = (await run(engine, db, "EXPLAIN SELECT id FROM m WHERE w = '1'")).rows
    assert plan[0][5] == "w"  # a string against the column: its index, as before


async def test_like_on_a_binary_collation_column_counts_case_and_accents(engine, db):
    """LIKE on a utf8mb4_bin (or JSON) column matches by code points, as MariaDB's: the
    translator calls mysql_like_bin for it (NOT LIKE, a select-list item, a CASE too)."""
    await run(engine, db, "CREATE TABLE lb (id INT PRIMARY KEY, b VARCHAR(10) COLLATE utf8mb4_bin)")
    await run(engine, db, "INSERT INTO lb VALUES (1, 'ab'), (2, 'AB'), (3, 'éb'), (4, 'eb')")

    async def rows(sql):
        return (await run(engine, db, sql)).rows
    assert await rows("SELECT id FROM lb WHERE b LIKE 'a%' ORDER BY id") == [(1,)]
    assert await rows("SELECT id FROM lb WHERE lb.b NOT LIKE 'A%' ORDER BY id") == [(1,), (3,), (4,)]
    assert await rows("SELECT id, b LIKE '_b', CASE WHEN b LIKE 'e%' THEN 1 ELSE 0 END FROM lb ORDER BY id") == \
        [(1, 1, 0), (2, 0, 0), (3, 1, 0), (4, 1, 1)]


async def test_user_variables_assigned_in_a_select_row_by_row(engine, db):
    await run(engine, db, "CREATE TABLE e (id INT PRIMARY KEY, n INT)")
    await run(engine, db, "INSERT INTO e VALUES (1, 10), (2, 20), (3, 30)")
    db.user_vars["r"] = 0
    assert (await run(engine, db, "SELECT id, @r := @r + 1, @r FROM e ORDER BY id DESC")).rows == [
        (3, 1, 1), (2, 2, 2), (1, 3, 3)]
    assert db.user_vars["r"] == 3  # the last value assigned, the session's after the statement
    assert (await run(engine, db, "SELECT @n, @n := 5, @n, @r := n FROM e WHERE id = 2")).rows == [
        (None, 5, "5", 20)]  # a variable that had no value: NULL before, a string after
    assert db.user_vars["n"] == 5 and db.user_vars["r"] == 20


async def test_user_variable_assignments_that_cannot_replicate_or_keep_order_are_refused(engine, db):
    await run(engine, db, "CREATE TABLE e (id INT PRIMARY KEY, n INT)")
    await run(engine, db, "INSERT INTO e VALUES (1, 10), (2, 20)")
    for sql in ("INSERT INTO e SELECT @m := id + 10, n FROM e", "UPDATE e SET n = @u := n + 1",
                "SELECT id, @r := @r + 1 FROM e ORDER BY n"):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert code_of(e) == 1235
    assert (await run(engine, db, "SELECT id, n FROM e ORDER BY id")).rows == [(1, 10), (2, 20)]


LONG = "1.23456789012345678901234567890123456789"


async def test_long_decimal_literals_are_exact_whatever_plan_came_first(engine, db):
    # one shape, `SELECT ?`: a short literal's plan binds a double, a long one's its exact text
    for sql, want in [("SELECT 1.5", "1.5"), (f"SELECT {LONG}", LONG), ("SELECT 7", "7"), (f"SELECT -{LONG}", "-" + LONG),
                      ("SELECT -2.5", "-2.5"), (f"SELECT ABS(-{LONG})", LONG), (f"SELECT {LONG} + 0", LONG)]:
        assert [str(v) for v in (await run(engine, db, sql)).rows[0]] == [want], sql
    r = await run(engine, db, f"SELECT {LONG} = 1.2345678901234567890123456789012345678, {LONG} * 2")
    assert r.rows == [(0, "2.46913578024691357802469135780246913578")]


async def test_a_long_decimal_default_is_kept_exact(engine, db):
    await run(engine, db, "CREATE TABLE u (id INT PRIMARY KEY, y DECIMAL(30,25) DEFAULT 1.2345678901234567890123,"
                          " z DECIMAL(30,25) DEFAULT -1.2345678901234567890123, c VARCHAR(30) DEFAULT 1.2345678901234567890123)")
    await run(engine, db, "INSERT INTO u (id) VALUES (1)")
    r = await run(engine, db, "SELECT y, z, c FROM u")
    assert r.rows == [("1.2345678901234567890123000", "-1.2345678901234567890123000", "1.2345678901234567890123")]


async def test_long_decimal_literals_are_stored_exact_by_insert_select_and_upserts(engine, db):
    await run(engine, db, "CREATE TABLE t (id INT PRIMARY KEY, a DECIMAL(40,38))")
    await run(engine, db, "INSERT INTO t SELECT 1, 1.5")  # (a short literal's plan first)
    await run(engine, db, f"INSERT INTO t SELECT 2, {LONG}")
    await run(engine, db, "INSERT INTO t VALUES (2, 0) ON DUPLICATE KEY UPDATE a = 1.5")
    await run(engine, db, "INSERT INTO t VALUES (1, 0) ON DUPLICATE KEY UPDATE a = 1.23456789012345678901234567890123456788")
    r = await run(engine, db, "SELECT a FROM t ORDER BY id")
    assert r.rows == [("1.23456789012345678901234567890123456788",), ("1.50000000000000000000000000000000000000",)]


async def test_a_binary_literal_keeps_its_case_and_its_own_plan(engine, db):
    """UPPER / LOWER leave a binary string as it is (X'61' stays 'a'); X'61' and 'a' share a
    shape, so the plan that read which one it was is kept per kind (`exact.string_kind`)."""
    async def value(sql):
        return (await run(engine, db, sql)).rows[0][0]
    assert await value("SELECT UPPER('a')") == "A"
    assert await value("SELECT UPPER(X'61')") in ("a", b"a")
    assert await value("SELECT UPPER('b')") == "B"
    assert await value("SELECT CAST(X'0a000002' AS INET4)") == "10.0.0.2"
    shape, _ = extract("SELECT UPPER('a')")
    text, binary = engine.plan_for(shape, "test", ["a"]), engine.plan_for(shape, "test", [b"a"])
    assert text is not binary and "UPPER" in text.sql and "UPPER" not in binary.sql
    assert engine.plan_for(shape, "test", ["c"]) is text and engine.plan_for(shape, "test", [b"c"]) is binary


async def test_json_extract_compares_as_mariadbs_comparator(engine, db):
    """JSON_EXTRACT's value against a string is a JSON string unquoted, against a number its
    number (`functions.json_compared_text` / `json_compared_number`)."""
    await run(engine, db, "CREATE TABLE j (id INT PRIMARY KEY, doc JSON)")
    await run(engine, db, """INSERT INTO j VALUES (1, '{"k": "w"}'), (2, '{"k": 5}'), (3, '{"k": "5x"}')""")

    async def ids(where):
        return [i for (i,) in (await run(engine, db, f"SELECT id FROM j WHERE {where} ORDER BY id")).rows]
    assert await ids("JSON_EXTRACT(doc, '$.k') = 'w'") == [1]
    assert await ids("""JSON_EXTRACT(doc, '$.k') = '"w"'""") == []
    assert await ids("JSON_EXTRACT(doc, '$.k') = 5") == [2, 3]
    assert await ids("JSON_EXTRACT(doc, '$.k') > 4") == [2, 3]
    with pytest.raises(SQLError) as excinfo:
        await run(engine, db, "SELECT doc->>'$.k' FROM j")
    assert excinfo.value.code == 1064
