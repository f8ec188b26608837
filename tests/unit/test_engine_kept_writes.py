"""engine/: a prepared write's plan kept (`KeptWrite`, `Session.write_kept`) against `write_now`
of its bound text, the path it stands for. Two fresh engines run one script of transactions,
one writing every statement through `write_now(text)`, the other through `write_kept` with the
statement's placeholders' values: the same Results, errors and warnings (1062, strict mode's
1264 / 1406, non-strict mode's stored values and warnings), the same statements handed over to
be binlogged, byte for byte, and the same rows. And the kept path reads a statement's text only
when it must: the first execution, the first after the session's sql_mode, the catalog or the
database changed, and each execution of a text it could not keep (a placeholder whose literal
joins a string before it)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.session as engine_session
from engine import Engine
from engine.session import KeptWrite
from protocol.binary import ParamType
from protocol.errors import SQLError
from protocol.events import DEFAULT_SQL_MODE
from protocol.messages import FieldType
from server.prepared import PreparedStatement, _plain_values, split_placeholders

TABLE = "CREATE TABLE {db}.t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(10), s SMALLINT)"
UPD_K = "UPDATE t SET k=k+1 WHERE id=?"
UPD_C = "UPDATE t SET c=? WHERE id=?"
UPD_S = "UPDATE t SET s=? WHERE id=?"
DEL = "DELETE FROM t WHERE id=?"
INS = "INSERT INTO t (id, k, c, s) VALUES (?, ?, ?, ?)"
AMONG = "UPDATE t SET s=5, k=?, c='zz' WHERE id=?"  # literals of its own around the placeholders
JOINED = "UPDATE t SET c='x' ? WHERE id=?"  # 'x' 'v' is one literal: never kept
ADD = "UPDATE t SET k = k + ? WHERE id = ?"  # a plan that reads its literals' kinds (`Plan.literal_kinds`)

# (step, ...): a write and how the kept path takes it ("keep": its text read to keep the plan,
# "kept": through the kept plan, "refused": not kept, then `write_now`'s reading, "text": the
# text read once more as `write_now` reads it), a statement run by `execute`, the session's
# sql_mode set (its bits) or its database
SCRIPT: list[tuple[Any, ...]] = [
    ("sql", "BEGIN"),
    ("write", UPD_K, (1,), "keep"), ("write", UPD_K, (2,), "kept"),
    ("write", UPD_C, ("new", 1), "keep"), ("write", UPD_C, ("newer", 2), "kept"),
    ("write", INS, (4, 40, "four", 1), "keep"), ("write", INS, (5, 50, "five", 2), "kept"),
    ("write", INS, (4, 41, "dup", 0), "kept"),  # 1062
    ("write", UPD_S, (70000, 1), "keep"),  # 1264
    ("write", UPD_C, ("x" * 11, 1), "kept"),  # 1406
    ("write", AMONG, (7, 3), "keep"), ("write", AMONG, (8, 3), "kept"),
    ("write", JOINED, ("v", 1), "refused"), ("write", JOINED, ("w", 2), "text"),
    ("write", DEL, (5,), "keep"), ("write", DEL, (99,), "kept"),  # no row
    ("write", ADD, ("5", 4), "keep"), ("write", ADD, ("6", 4), "kept"),  # its plan for number strings there
    ("write", ADD, (2, 4), "refused"),  # the plan for a number there is another: not kept
    ("write", UPD_K.replace("k+1", "k+?"), ("5", 4), "refused"), ("write", UPD_K.replace("k+1", "k+?"), ("6", 4), "text"),
    ("sql", "COMMIT"),
    ("mode", 0),  # sql_mode '': stored clipped / cut, with warnings
    ("sql", "BEGIN"),
    ("write", UPD_S, (70000, 2), "keep"), ("write", UPD_C, ("y" * 11, 2), "keep"), ("write", UPD_C, ("yy", 3), "kept"),
    ("sql", "COMMIT"),
    ("mode", DEFAULT_SQL_MODE),
    ("sql", "BEGIN"),
    ("write", UPD_S, (70000, 2), "keep"),  # strict again: 1264
    ("sql", "COMMIT"),
    ("sql", "ALTER TABLE t MODIFY s INT"),  # a catalog change: 70000 fits
    ("sql", "BEGIN"),
    ("write", UPD_S, (70000, 3), "keep"), ("write", INS, (6, 60, "six", 70000), "keep"),
    ("sql", "COMMIT"),
    ("sql", "CREATE DATABASE other"), ("sql", TABLE.format(db="other")), ("use", "other"),
    ("sql", "BEGIN"),
    ("write", INS, (1, 1, "o", 1), "keep"), ("write", UPD_K, (1,), "keep"), ("write", UPD_K, (1,), "kept"),
    ("sql", "COMMIT"),
]


def _types(values: tuple) -> list[ParamType]:
    return [ParamType(FieldType.LONGLONG if type(v) is int else FieldType.VAR_STRING) for v in values]


def _answer(result: Any) -> Any:
    if result is None:
        return None
    return (result.affected_rows, result.last_insert_id, result.info, result.in_transaction, result.warnings)


async def _run(tmp_path, kept: bool, monkeypatch) -> tuple[list, list, list, list]:
    """The script on a fresh engine: the answers, the statements handed over per commit, the
    rows of both tables, and how many times each write's text was lexed."""
    lexed = [0]
    extract = engine_session.extract

    def counted(sql: str):
        lexed[0] += 1
        return extract(sql)

    engine = await Engine.open(tmp_path / ("kept" if kept else "text"))
    try:
        session = engine.session(1)
        session.fixed_time = 1_700_000_000  # (both runs' statements at one time)

        async def execute(sql: str) -> Any:
            result = await session.execute(sql)
            if result.committed is not None:
                async with engine.writer_lock:
                    await engine.commit_group({"last": sql[:40]})
            return result

        await execute("CREATE DATABASE test")
        await execute(TABLE.format(db="test"))
        await execute("INSERT INTO test.t VALUES (1, 10, 'a', 0), (2, 20, 'b', 0), (3, 30, 'c', 0)")
        session.database = "test"
        answers: list[Any] = []
        logged: list[Any] = []
        lexes: list[int] = []
        kepts: dict[str, KeptWrite] = {}
        with monkeypatch.context() as m:
            m.setattr(engine_session, "extract", counted)
            for step in SCRIPT:
                if step[0] == "mode":
                    session.follow_sql_mode(step[1], False)
                    continue
                if step[0] == "use":
                    session.database = step[1]
                    continue
                if step[0] == "sql":
                    result = await execute(step[1])
                    if result.committed is not None:
                        logged.append(list(result.committed.statements))
                    continue
                _, template, values, _ = step
                pieces = split_placeholders(template)
                types = _types(values)
                text = PreparedStatement(0, pieces).bind(list(values), types)
                lexed[0] = 0
                try:
                    if kept:
                        write = kepts.setdefault(template, KeptWrite(tuple(pieces)))
                        plain = _plain_values(list(values), types)
                        assert plain is not None
                        answers.append(_answer(session.write_kept(write, text, plain)))
                    else:
                        answers.append(_answer(session.write_now(text)))
                except SQLError as exc:
                    answers.append(("error", exc.code, exc.message))
                lexes.append(lexed[0])
        rows = [(await execute(f"SELECT * FROM {db}.t ORDER BY id")).rows for db in ("test", "other")]
    finally:
        await engine.close()
    return answers, logged, rows, lexes


async def test_a_kept_write_answers_logs_and_writes_as_its_text(tmp_path, monkeypatch):
    text = await _run(tmp_path, False, monkeypatch)
    kept = await _run(tmp_path, True, monkeypatch)
    assert kept[0] == text[0]
    assert kept[1] == text[1]
    assert kept[2] == text[2]
    # the kept path's readings of the text against `write_now`'s: one more to keep it (a second
    # binding lexed), none through the kept plan, two more for a text not kept (both bindings)
    more = {"keep": 1, "kept": -1, "refused": 2, "text": 0}
    assert [k - t for k, t in zip(kept[3], text[3], strict=True)] == [
        more[step[3]] for step in SCRIPT if step[0] == "write"]
    answers = text[0]
    assert None not in answers  # every write answered on the loop
    codes = [a[1] for a in answers if a[0] == "error"]
    assert codes == [1062, 1264, 1406, 1264]
    assert any(a[4] and a[4][0][1] == 1264 for a in answers if a[0] != "error")  # non-strict: warned
    statements = [s.sql for txn in text[1] for s in txn]
    assert "INSERT INTO t (id, k, c, s) VALUES (4, 40, 'four', 1)" in statements
    assert "UPDATE t SET c='x' 'v' WHERE id=1" in statements
    assert [s.db for s in text[1][-1]] == ["other"] * 3
    assert text[2][0][2] == (3, 8, "yy", 70000) and text[2][1] == [(1, 3, "o", 1)]


async def test_a_kept_write_falls_back_to_its_text_where_the_session_reads_it_otherwise(tmp_path):
    """A connection character set other than utf8 (its literals read as that set's) and a
    privilege check's narrowing are not kept: the text is planned, as `write_now` plans it."""
    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        for sql in ("CREATE DATABASE test", TABLE.format(db="test"), "INSERT INTO test.t VALUES (1, 10, 'a', 0)"):
            if (await session.execute(sql)).committed is not None:
                async with engine.writer_lock:
                    await engine.commit_group({"last": sql[:40]})
        session.database = "test"
        await session.execute("BEGIN")
        write = KeptWrite(tuple(split_placeholders(UPD_C)))
        assert session.write_kept(write, "UPDATE t SET c='b' WHERE id=1", ["b", 1]) is not None
        assert write.plan is not None
        session.visible = object()
        assert session.write_kept(write, "UPDATE t SET c='c' WHERE id=1", ["c", 1]) is not None
        assert write.plan is None and write.refused is None
        session.visible = None
        assert session.write_kept(write, "UPDATE t SET c='d' WHERE id=1", ["d", 1]) is not None
        assert write.plan is not None
        assert (await session.execute("SELECT c FROM t")).rows == [("d",)]
        await session.execute("ROLLBACK")
    finally:
        await engine.close()


@pytest.mark.parametrize(("template", "values"), [
    ("UPDATE t SET c=? WHERE id=?", ("a", 1)),
    ("UPDATE t SET k=1? WHERE id=?", (5, 1)),  # 15: not the value
    ("UPDATE t SET k=?.5 WHERE id=?", (5, 1)),  # 5.5
    ("UPDATE t SET c=CONCAT(? '') WHERE id=?", ("a", 1)),  # 'a' '': one literal, the value still
])
async def test_a_write_is_kept_only_where_its_literals_are_the_values(tmp_path, template, values):
    engine = await Engine.open(tmp_path / "data")
    try:
        session = engine.session(1)
        for sql in ("CREATE DATABASE test", TABLE.format(db="test")):
            await session.execute(sql)
        session.database = "test"
        write = KeptWrite(tuple(split_placeholders(template)))
        bound = PreparedStatement(0, list(write.pieces)).bind(list(values), _types(values))
        keeps = session._keep_write(write, bound, list(values), ("state",))
        assert keeps == (template not in ("UPDATE t SET k=1? WHERE id=?", "UPDATE t SET k=?.5 WHERE id=?"))
        if keeps:  # (the text's literals: the kept ones with the values in their slots)
            literals = list(write.literals)
            for n, value in zip(write.slots, values, strict=True):
                literals[n] = value
            assert engine_session.extract(bound)[1] == literals
    finally:
        await engine.close()


async def test_a_kept_write_writes_the_session_s_temporary_table_that_shadows_its_table(tmp_path):
    """A session's temporary table of the kept write's table name (`engine.temporary`) takes
    its writes from then on: the plan kept for the base table is not used (the catalog
    changed), and the one kept again is the session's own, which resolves the name to its
    temporary table; another session's kept write still writes the base table."""
    engine = await Engine.open(tmp_path / "data")

    async def run(session: Any, sql: str) -> Any:
        result = await session.execute(sql)
        if result.committed is not None:
            async with engine.writer_lock:
                await engine.commit_group({"last": sql[:40]})
        return result

    try:
        one, two = engine.session(1), engine.session(2)
        for sql in ("CREATE DATABASE test", TABLE.format(db="test"), "INSERT INTO test.t VALUES (1, 10, 'a', 0)"):
            await run(one, sql)
        one.database = two.database = "test"
        write = KeptWrite(tuple(split_placeholders(UPD_C)))
        await run(one, "BEGIN")
        assert one.write_kept(write, "UPDATE t SET c='b' WHERE id=1", ["b", 1]) is not None
        await run(one, "COMMIT")
        assert write.plan is not None
        await run(one, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(10), s SMALLINT)")
        await run(one, "INSERT INTO t VALUES (1, 99, 'tmp', 0)")
        for value in ("c", "d"):
            await run(one, "BEGIN")
            assert one.write_kept(write, f"UPDATE t SET c='{value}' WHERE id=1", [value, 1]) is not None
            await run(one, "COMMIT")
        assert write.plan is not None  # kept again: the session's own plan
        assert (await run(one, "SELECT k, c FROM t")).rows == [(99, "d")]
        assert (await run(two, "SELECT k, c FROM t")).rows == [(10, "b")]
        other = KeptWrite(tuple(split_placeholders(UPD_C)))
        await run(two, "BEGIN")
        assert two.write_kept(other, "UPDATE t SET c='e' WHERE id=1", ["e", 1]) is not None
        await run(two, "COMMIT")
        assert other.plan is not None
        assert (await run(two, "SELECT k, c FROM t")).rows == [(10, "e")]
        assert (await run(one, "SELECT k, c FROM t")).rows == [(99, "d")]
    finally:
        await engine.close()
