"""engine/: a write's literals stored as their columns hold them, read inline where the plan's
steps serve them (`values.literal_step`, `Session._args`): an int into an integer column in its
range, an ASCII string into a CHAR / VARCHAR / TEXT that holds it. Any other literal is read by
`values.stored_literal`, whose values, errors and warnings the MariaDB comparisons hold
(tests/integration/test_types_mariadb.py, test_ignore_mariadb.py, test_unsigned_64_mariadb.py);
here the inline reading must give what it gives. An UPDATE's literal its column cannot hold is
refused, or warned of, per row the UPDATE updates, as MariaDB converts it
(tests/integration/test_assigned_literals_mariadb.py holds the answers): no row matched is OK
with no warning, a matched row strict mode's error with the rows left as they were, IGNORE a
warning for each row updated; a literal the column holds never plans the statement again
(`Plan.literals_up_front`, `Session._per_row_planned`)."""

from __future__ import annotations

import pytest

from engine import Engine, values
from engine.errors import SQLError
from engine.session import Session

COLUMNS = "i INT, t TINYINT UNSIGNED, u BIGINT UNSIGNED, b BIGINT, c CHAR(3), v VARCHAR(3), x TINYTEXT"

# (column, literal as written, read inline): the inline cases and the ones left to stored_literal
CASES = [
    ("i", "2147483647", True), ("i", "-2147483648", True), ("i", "-2147483649", False), ("i", "2147483648", False), ("i", "'12'", False),
    ("i", "1.5", False), ("i", "NULL", None), ("t", "255", True), ("t", "0", True), ("t", "256", False),
    ("t", "-1", False), ("t", "-0", True), ("u", "18446744073709551615", False), ("u", "9223372036854775807", True),
    ("u", "9223372036854775808", False), ("b", "-9223372036854775808", True), ("c", "'ab  '", True),
    ("c", "'abc   '", True), ("c", "''", True), ("c", "'abcd'", False), ("c", "'é'", False), ("c", "5", False),
    ("v", "'ab '", True), ("v", "'abcd'", False), ("x", "'hello'", True), ("x", "'" + "y" * 255 + "'", True),
    ("x", "'" + "y" * 256 + "'", False), ("x", "'ü'", False),
]


@pytest.fixture
async def db(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    for sql in ("CREATE DATABASE test", f"CREATE TABLE test.t (id INT PRIMARY KEY AUTO_INCREMENT, {COLUMNS})"):
        await _committed(session, sql)
    session.database = "test"
    yield session
    await engine.close()


async def _committed(session, sql: str):
    result = await session.execute(sql)
    if result.committed is not None:
        async with session.engine.writer_lock:
            await session.engine.commit_group({"last": sql[:40]})
    return result


@pytest.fixture
def stored(monkeypatch):
    """The literals `values.stored_literal` read, counted."""
    calls = []
    general = values.stored_literal

    def counted(source, params, texts, warnings=None):
        calls.append(source[1])
        return general(source, params, texts, warnings)

    monkeypatch.setattr(values, "stored_literal", counted)
    return calls


def _read(session, plan, params, sql):
    """`Session._args`' arguments and warnings, or its error's code."""
    try:
        args = session._args(plan, params, None, 1_700_000_000, sql)
    except SQLError as exc:
        return exc.code
    return args, list(session._fx.warnings)


@pytest.mark.parametrize("ignore", ["", " IGNORE"])
async def test_inline_literals_read_as_stored_literal_reads_them(db, stored, ignore):
    for column, literal, inline in CASES:
        sql = f"INSERT{ignore} INTO t (id, {column}) VALUES (7, {literal})"
        plan, params, _, _ = db._planned(sql)
        plan.arg_steps = None  # (its steps made again: the plan is cached)
        stored.clear()
        read = _read(db, plan, params, sql)
        read_inline = not stored
        plan.arg_steps = ()  # every literal read by stored_literal
        assert _read(db, plan, params, sql) == read, sql
        plan.arg_steps = None
        if inline is not None:
            assert read_inline == inline, (sql, read)


async def test_an_insert_of_plain_literals_reads_none_through_stored_literal(db, stored):
    sql = "INSERT INTO t (id, i, t, u, b, c, v, x) VALUES (1, -5, 200, 12, 9, 'ab  ', 'xyz', 'text')"
    result = await _committed(db, sql)
    assert result.affected_rows == 1 and stored == []
    rows = (await db.execute("SELECT id, i, t, u, b, c, v, x FROM t")).rows
    assert [tuple(row) for row in rows] == [(1, -5, 200, 12, 9, "ab", "xyz", "text")]
    with pytest.raises(SQLError) as failed:  # past CHAR(3): 1406 from stored_literal, as before
        await db.execute("INSERT INTO t (id, c) VALUES (2, 'abcd')")
    assert failed.value.code == 1406 and stored != []


async def test_a_one_row_insert_with_its_own_id_moves_the_counter_without_statement_ids(db, monkeypatch):
    """The counter as `autoinc.StatementIds` moves it for a row with its own id (above the
    counter: one past it; below, 0 with NO_AUTO_VALUE_ON_ZERO or negative: unchanged), without
    making one; a row that leaves its id to AUTO_INCREMENT still takes it from one."""
    from engine import autoinc

    made = []
    real = autoinc.StatementIds

    def counted(*args):
        made.append(args)
        return real(*args)

    monkeypatch.setattr(autoinc, "StatementIds", counted)
    for sql in ("INSERT INTO t (id, i) VALUES (5, 1)", "INSERT INTO t (id, i) VALUES (3, 1)",
                "INSERT INTO t (id, i) VALUES (-2, 1)", "INSERT INTO t (id, i) VALUES (NULL, 2)"):
        await _committed(db, sql)
    db.no_auto_value_on_zero = True
    await _committed(db, "INSERT INTO t (id, i) VALUES (0, 3)")
    db.no_auto_value_on_zero = False
    await _committed(db, "INSERT INTO t (id, i) VALUES (0, 4)")
    rows = (await db.execute("SELECT id, i FROM t ORDER BY id")).rows
    assert [tuple(row) for row in rows] == [(-2, 1), (0, 3), (3, 1), (5, 1), (6, 2), (7, 4)]
    # the NULL's, the 0's without NO_AUTO_VALUE_ON_ZERO, and -2's (an expression, not an id slot)
    assert sorted(made) == [(6, 1, None, (1, 1)), (6, 1, None, (1, 1)), (7, 1, None, (1, 1))]


NONE_MATCHED = "Rows matched: 0  Changed: 0  Warnings: 0"


@pytest.fixture
async def updated(db):
    """`db` with a table `w` of two rows for UPDATEs."""
    await _committed(db, "CREATE TABLE w (id INT PRIMARY KEY, c CHAR(3), n TINYINT, d DATE, u UUID)")
    await _committed(db, "INSERT INTO w (id, c, n) VALUES (1, 'a', 1), (2, 'b', 2)")
    return db


@pytest.fixture
def replanned(monkeypatch):
    """The statements planned again to store their literals per row."""
    calls = []
    general = Session._per_row_planned

    def counted(self, expanded, context):
        calls.append(expanded)
        return general(self, expanded, context)

    monkeypatch.setattr(Session, "_per_row_planned", counted)
    return calls


async def _rows(session):
    return [tuple(row) for row in (await session.execute("SELECT id, c, n, d, u FROM w ORDER BY id")).rows]


async def test_a_literal_is_refused_only_for_a_row_the_update_matches(updated, replanned):
    before = await _rows(updated)
    for sql in ("UPDATE w SET c = 'abcd' WHERE id = 9", "UPDATE w SET n = 300 WHERE id > 5",
                "UPDATE w SET c = 'abcd', n = -300 WHERE c = 'zz'", "UPDATE w SET d = 'nope' WHERE n > 100",
                "UPDATE w SET u = 'not-a-uuid' WHERE id = 9"):
        result = await _committed(updated, sql)
        assert (result.affected_rows, result.info, result.warnings) == (0, NONE_MATCHED, ()), sql
    refused = []
    for sql in ("UPDATE w SET c = 'abcd' WHERE id = 2", "UPDATE w SET n = 300 WHERE c = 'b'",
                "UPDATE w SET c = 'x', d = 'nope' WHERE id = 1", "UPDATE w SET u = 'not-a-uuid' WHERE id = 1"):
        with pytest.raises(SQLError) as failed:
            await updated.execute(sql)
        refused.append((failed.value.error.code, failed.value.message))
    assert refused == [(1406, "Data too long for column 'c' at row 1"),
                       (1264, "Out of range value for column 'n' at row 2"),  # (the scan's second row read)
                       (1292, "Incorrect date value: 'nope' for column `test`.`w`.`d` at row 1"),
                       (1292, "Incorrect uuid value: 'not-a-uuid' for column `test`.`w`.`u` at row 1")]
    assert await _rows(updated) == before
    del replanned[:]
    result = await _committed(updated, "UPDATE w SET c = 'xyz', n = -5 WHERE id = 1")  # held: no second plan
    assert (result.affected_rows, replanned) == (1, [])


def _warned(result) -> tuple:
    """A result's rows affected, info and warnings (its notes 1592, UPDATE IGNORE's "unsafe", left out)."""
    return result.affected_rows, result.info, tuple(w for w in result.warnings if w[0] == "Warning")


async def test_ignore_warns_once_per_row_updated_and_not_where_none_matches(updated):
    assert _warned(await _committed(updated, "UPDATE IGNORE w SET n = 300 WHERE id = 9")) == (
        0, "Rows matched: 0  Changed: 0  Warnings: 1", ())
    assert _warned(await _committed(updated, "UPDATE IGNORE w SET n = 300, u = 'nope'")) == (
        2, "Rows matched: 2  Changed: 2  Warnings: 5",
        (("Warning", 1264, "Out of range value for column 'n' at row 1"),
         ("Warning", 1292, "Incorrect uuid value: 'nope' for column `test`.`w`.`u` at row 1"),
         ("Warning", 1264, "Out of range value for column 'n' at row 2"),
         ("Warning", 1292, "Incorrect uuid value: 'nope' for column `test`.`w`.`u` at row 2")))
    # a row left as it was: warned of too
    assert _warned(await _committed(updated, "UPDATE IGNORE w SET n = 300 WHERE id = 1")) == (
        0, "Rows matched: 1  Changed: 0  Warnings: 2", (("Warning", 1264, "Out of range value for column 'n' at row 1"),))
    assert [row[2] for row in await _rows(updated)] == [127, 127]
