"""engine/: plain reads on the loop's reader (`engine.core`'s "Threads"): no hop for a bounded
read without side effects, the same answer and the same errors as on a reader thread, and a
read that runs long, calls a function that waits or changes state, or reads a snapshot goes to
a reader thread."""

from __future__ import annotations

import asyncio
import sys

import pytest

import engine.connections as connections
from engine import Engine
from engine.session import READ_COMMITTED, REPEATABLE_READ
from protocol.errors import SQLError
from tests.support.lanes import watch_lane


@pytest.fixture
async def engine(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    setup = engine.session(99)
    await setup.execute("CREATE DATABASE d")
    setup.database = "d"
    await setup.execute("CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20))")
    for start in range(0, 3000, 500):
        rows = ", ".join(f"({i}, {i % 7}, 'c{i}')" for i in range(start + 1, start + 501))
        await setup.execute(f"INSERT INTO t VALUES {rows}")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "0"})
    yield engine
    await engine.close()


@pytest.fixture
def hops(engine, monkeypatch):
    """The names of the functions sent to a reader thread."""
    return watch_lane(engine._readers, monkeypatch)


def session(engine, n):
    s = engine.session(n)
    s.database = "d"
    return s


async def test_a_point_select_and_a_short_range_run_on_the_loop(engine, hops):
    s = session(engine, 1)
    assert (await s.execute("SELECT c FROM t WHERE id = 5")).rows == [("c5",)]
    r = await s.execute("SELECT SUM(k), COUNT(*) FROM t WHERE id BETWEEN 1 AND 100")
    assert [tuple(map(int, row)) for row in r.rows] == [(sum(i % 7 for i in range(1, 101)), 100)]
    r = await s.execute("SELECT DISTINCT k FROM t WHERE id BETWEEN 1 AND 100 ORDER BY k")
    assert r.rows == [(k,) for k in range(7)]
    assert hops == []


async def test_the_same_answers_and_errors_on_the_loop_and_on_a_reader_thread(engine, hops, monkeypatch):
    s = session(engine, 1)
    statements = ["SELECT id, c FROM t WHERE id IN (3, 2999, 5000) ORDER BY id", "SELECT c FROM t WHERE id = 1",
                  "SELECT CONCAT(c, '-', k) FROM t WHERE id < 4", "SELECT nope FROM t", "SELECT 1 FROM missing",
                  "SELECT c FROM t WHERE id = 'x'", "SELECT MAX(id), 1/0 FROM t WHERE id < 10"]

    async def answers():
        out = []
        for sql in statements:
            try:
                r = await s.execute(sql)
                out.append((r.columns, r.column_types, r.rows))
            except SQLError as exc:
                out.append((exc.error.code, exc.message))
        return out

    on_loop = await answers()
    assert hops.count("query") == 1  # the missing table: the loop's reader leaves it to a thread
    monkeypatch.setattr(connections.ReaderPool, "query_on_loop", lambda *args: None)
    del hops[:]
    assert await answers() == on_loop
    assert hops == ["query"] * len(statements)
    assert on_loop[3][0] == 1054 and on_loop[4][0] == 1146


async def test_a_snapshot_s_first_read_answers_and_errs_as_on_a_reader_thread(engine, hops, monkeypatch):
    """Each statement the first read of a REPEATABLE READ transaction (its own transaction
    each time): the same answer or error on the loop as on a reader thread, and the view a read
    takes kept by the transaction's next read (a group committed after it not seen); one that
    fails before reading (an unknown column or table) takes none: the next read does."""
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    statements = ["SELECT c FROM t WHERE id = 1", "SELECT nope FROM t", "SELECT 1 FROM missing",
                  "SELECT MAX(id), 1/0 FROM t WHERE id < 10", "SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 100"]

    async def answers(n):
        out = []
        for sql in statements:
            n += 1
            await s.execute("BEGIN")
            try:
                r = await s.execute(sql)
                out.append((r.columns, r.column_types, r.rows))
            except SQLError as exc:
                out.append((exc.error.code, exc.message))
            await other.execute(f"UPDATE t SET c = 'v{n}' WHERE id = 2")
            async with engine.writer_lock:
                await engine.commit_group({"pos": str(n)})
            out.append((await s.execute("SELECT c FROM t WHERE id = 2")).rows)
            await s.execute("COMMIT")
        return out

    on_loop = await answers(0)
    assert hops == ["query"]  # the missing table: the loop leaves it to a thread
    monkeypatch.setattr(connections.ReaderPool, "_begin_on_loop", lambda *args: None)
    del hops[:]
    on_threads = await answers(len(statements))
    assert hops == ["query"] * len(statements)
    assert on_loop[0::2] == on_threads[0::2]
    views = [[("c2",)], [("v2",)], [("v3",)], [("v3",)], [("v4",)]]  # transaction n commits v<n> after its first read
    assert on_loop[1::2] == views
    assert on_threads[1::2] == [[("v5",)], [("v7",)], [("v8",)], [("v8",)], [("v9",)]]
    assert on_loop[2][0] == 1054 and on_loop[4][0] == 1146


async def test_a_read_over_its_step_budget_runs_again_on_a_reader_thread(engine, hops, monkeypatch):
    s = session(engine, 1)
    scan = "SELECT COUNT(*), SUM(k) FROM t WHERE c LIKE '%9%'"
    expected = (sum(1 for i in range(1, 3001) if "9" in str(i)), sum(i % 7 for i in range(1, 3001) if "9" in str(i)))
    r = await s.execute(scan)
    assert tuple(map(int, r.rows[0])) == expected and hops == []  # 3,000 rows: within the budget
    monkeypatch.setattr(connections, "LOOP_READ_STEPS", 2000)
    r = await s.execute(scan)
    assert tuple(map(int, r.rows[0])) == expected and hops == ["query"]
    assert (await s.execute("SELECT c FROM t WHERE id = 7")).rows == [("c7",)] and hops == ["query"]


@pytest.mark.parametrize("call", ["SLEEP(0)", "GET_LOCK('x', 0)", "RELEASE_LOCK('x')", "RAND()", "UUID()",
                                  "UUID_SHORT()", "LAST_INSERT_ID(5)", "IS_FREE_LOCK('x')",
                                  "REPEAT(c, 3)", "LPAD(c, 9, 'x')", "RPAD(c, 9, 'x')", "REPLACE(c, 'c', 'd')",
                                  "c REGEXP '^c1'", "REGEXP_REPLACE(c, 'c', 'd')", "INSERT(c, 1, 1, 'x')"])
async def test_a_read_calling_a_function_that_waits_changes_state_or_may_run_long_is_never_on_the_loop(
        engine, hops, call):
    """Such a function's one call is not counted by the step budget (REPEAT of a megabyte, a
    regular expression) or must not run twice (SLEEP, GET_LOCK, RAND ...)."""
    s = session(engine, 1)
    await s.execute(f"SELECT {call} FROM t WHERE id = 1")
    assert hops == ["query"]


async def test_a_snapshot_s_reads_run_on_the_loop_its_first_takes_the_view_and_locking_reads_never(engine, hops):
    """A REPEATABLE READ transaction takes its view with its first read, on the loop (a group
    committed between BEGIN and that read is seen, one committed after it is not); its later
    bounded reads run on the loop in the same view, a long one on a reader thread in that view;
    its end needs no hop; a locking read takes the writer lock and reads through the writer."""
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    await s.execute("BEGIN")
    await other.execute("UPDATE t SET c = 'before' WHERE id = 1")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert (await s.execute("SELECT c FROM t WHERE id = 1")).rows == [("before",)]  # the view: now
    assert hops == []
    await other.execute("UPDATE t SET c = 'new' WHERE id = 2")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "2"})
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]  # the view of the first read
    r = await s.execute("SELECT SUM(k), COUNT(*) FROM t WHERE id BETWEEN 1 AND 100")
    assert [tuple(map(int, row)) for row in r.rows] == [(sum(i % 7 for i in range(1, 101)), 100)]
    assert hops == []
    await s.execute("SELECT c FROM t WHERE id < 3000 ORDER BY c DESC LIMIT 1")  # too long for the loop:
    assert hops == ["query"]  # stopped there and run again on a reader thread, same view
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]
    await s.execute("COMMIT")
    assert hops == ["query"]  # (its read transaction ended on the loop)
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("new",)]
    del hops[:]
    await s.execute("SELECT c FROM t WHERE id = 1")  # autocommit: no snapshot, on the loop
    assert hops == []
    await s.execute("BEGIN")
    await s.execute("SELECT c FROM t WHERE id = 1 FOR UPDATE")
    await s.execute("COMMIT")
    assert hops == []
    assert s._plan("SELECT c FROM t WHERE id = 1 FOR UPDATE")[0].inline is False


async def test_a_snapshot_s_first_read_that_cannot_run_on_the_loop_takes_its_view_on_a_reader_thread(
        engine, hops, monkeypatch):
    """Over the step budget (or busy: the same None), the first read leaves nothing pinned on
    the loop: a reader thread runs it and takes the view, which the later reads on the loop
    keep; the loop's reader for snapshots is free again for the next transaction."""
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    pool = engine._pool
    monkeypatch.setattr(connections, "LOOP_READ_STEPS", 2000)
    await s.execute("BEGIN")
    scan = "SELECT COUNT(*) FROM t WHERE c LIKE '%9%'"
    assert (await s.execute(scan)).rows == [(sum(1 for i in range(1, 3001) if "9" in str(i)),)]
    assert hops == ["query"]
    assert not s._snapshot.reader.loop_begun and len(pool._free_loop_begun) == 1  # (given back)
    await other.execute("UPDATE t SET c = 'new' WHERE id = 2")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]  # on the loop, in that view
    assert hops == ["query"]
    await s.execute("COMMIT")
    await s.execute("BEGIN")
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("new",)]
    assert s._snapshot.reader.loop_begun and pool._free_loop_begun == []  # the same one, pinned
    await s.execute("ROLLBACK")
    assert len(pool._free_loop_begun) == 1 and hops == ["query"]


@pytest.mark.parametrize("on_loop", [True, False])
async def test_a_snapshot_s_view_is_of_every_database_from_its_first_read(engine, hops, monkeypatch, on_loop):
    """A REPEATABLE READ transaction's first read takes its view of every database, not only of
    the one it reads (SQLite would take a file's at the transaction's first read of that file;
    InnoDB's read view covers every table): a commit to another database after that read is not
    seen there, whether the first read ran on the loop or on a reader thread."""
    setup = session(engine, 99)
    await setup.execute("CREATE DATABASE e")
    await setup.execute("CREATE TABLE e.u (id INT PRIMARY KEY)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    if not on_loop:
        monkeypatch.setattr(connections.ReaderPool, "query_on_loop", lambda *args, **kw: None)
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    del hops[:]
    await s.execute("BEGIN")
    assert (await s.execute("SELECT c FROM t WHERE id = 1")).rows == [("c1",)]
    await other.execute("INSERT INTO e.u VALUES (1)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "2"})
    assert (await s.execute("SELECT COUNT(*) FROM e.u")).rows == [(0,)]
    assert hops == ([] if on_loop else ["query", "query"])
    await s.execute("COMMIT")
    assert (await s.execute("SELECT COUNT(*) FROM e.u")).rows == [(1,)]


async def test_the_loop_reads_only_committed_groups(engine, hops):
    writer, reader = session(engine, 1), session(engine, 2)
    await writer.execute("UPDATE t SET c = 'new' WHERE id = 1")
    assert (await reader.execute("SELECT c FROM t WHERE id = 1")).rows == [("c1",)]
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert (await reader.execute("SELECT c FROM t WHERE id = 1")).rows == [("new",)]
    assert hops == []


async def test_a_database_created_or_dropped_is_seen_by_the_loop_reader(engine, hops):
    s = session(engine, 1)
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]
    await s.execute("CREATE DATABASE e")
    await s.execute("CREATE TABLE e.u (x INT)")
    await s.execute("INSERT INTO e.u VALUES (42)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert (await s.execute("SELECT x FROM e.u")).rows == [(42,)]
    await s.execute("DROP DATABASE e")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "2"})
    with pytest.raises(SQLError) as e:
        await s.execute("SELECT x FROM e.u")
    assert e.value.error.code == 1146


async def test_a_database_dropped_and_created_again_is_read_from_its_new_file_on_the_loop(engine, hops):
    # the loop reader keeps the map of databases it last found itself holding: a new map (a
    # database created, dropped, or both under one name) is looked at again
    s = session(engine, 1)
    for n, pos in ((1, "1"), (2, "2")):
        if n == 2:
            await s.execute("DROP DATABASE e")
            async with engine.writer_lock:
                await engine.commit_group({"pos": "drop"})
        await s.execute("CREATE DATABASE e")
        await s.execute("CREATE TABLE e.u (x INT)")
        await s.execute(f"INSERT INTO e.u VALUES ({n})")
        async with engine.writer_lock:
            await engine.commit_group({"pos": pos})
        for _ in range(2):
            assert (await s.execute("SELECT x FROM e.u")).rows == [(n,)]
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]
    assert hops == []


def _calls(fn, *args) -> tuple[object, list[str]]:
    """`fn(*args)`'s result and the names of the Python and C functions it called, in order."""
    calls: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)
        elif event == "c_call" and arg is not sys.setprofile:
            calls.append(arg.__name__)

    sys.setprofile(profile)
    try:
        result = fn(*args)
    finally:
        sys.setprofile(None)
    return result, calls


async def test_a_read_in_a_repeatable_read_snapshot_calls_no_more_than_at_read_committed(engine, hops):
    """A snapshot's read after its first runs on the loop with no more calls than the same read
    in a READ COMMITTED transaction: the step budget's progress handler stays on its connection
    (not set and cleared per read), and its files are not looked at again while the engine's
    map of databases is the one they were found to match."""
    s = session(engine, 1)
    sql = "SELECT c FROM t WHERE id = 2"
    paths = {}
    for isolation in (READ_COMMITTED, REPEATABLE_READ):
        s.isolation = isolation
        await s.execute("BEGIN")
        assert (await s.execute("SELECT c FROM t WHERE id = 1")).rows == [("c1",)]  # (a snapshot's view taken)
        s.select_now(sql)  # (its plan cached)
        result, paths[isolation] = _calls(s.select_now, sql)
        assert result.rows == [("c2",)]
        await s.execute("COMMIT")
    calls = paths[REPEATABLE_READ]
    assert "query_on_loop" in calls and "set_progress_handler" not in calls and "_current" not in calls, calls
    assert len(calls) <= len(paths[READ_COMMITTED]), paths
    assert hops == []


async def test_a_snapshot_s_long_read_is_stopped_on_the_loop_and_killed_on_a_reader_thread(engine, hops):
    """The step budget left on a snapshot's connection between its reads on the loop still stops
    a long read there; a reader thread then runs it without the budget (which would stop it
    there at once), where KILL QUERY (`interrupt`) stops it with 1317; the loop's next reads run
    in the same view, within the budget again."""
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    await s.execute("BEGIN")
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)]
    await other.execute("UPDATE t SET c = 'new' WHERE id = 2")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    scan = "SELECT c FROM t WHERE id < 3000 ORDER BY c DESC LIMIT 1"  # over the loop's budget
    assert (await s.execute(scan)).rows == [("c999",)] and hops == ["query"]
    task = asyncio.ensure_future(s.execute("SELECT count(*) FROM t a, t b, t c"))
    await asyncio.sleep(0.5)
    s.interrupt()
    with pytest.raises(SQLError) as e:
        await asyncio.wait_for(task, 30)
    assert e.value.code == 1317 and hops == ["query"] * 2
    s.clear_interrupt()
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)] and hops == ["query"] * 2
    assert (await s.execute(scan)).rows == [("c999",)] and hops == ["query"] * 3
    await s.execute("COMMIT")
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("new",)]


async def test_a_snapshot_s_files_are_looked_at_again_when_a_database_is_created_or_dropped(engine, hops):
    """A database created after a snapshot's first read: the snapshot's connection lacks its
    file, so its next read runs on a reader thread (which attaches it); then it reads on the loop
    again. One dropped: the snapshot keeps the file it read, which the engine no longer holds, so
    its reads leave the loop until it ends; the next transaction's reads are the loop's again."""
    s, other = session(engine, 1), session(engine, 2)
    s.isolation = REPEATABLE_READ
    await s.execute("BEGIN")
    assert (await s.execute("SELECT c FROM t WHERE id = 2")).rows == [("c2",)] and hops == []
    await other.execute("CREATE DATABASE e")
    await other.execute("CREATE TABLE e.u (x INT)")
    await other.execute("INSERT INTO e.u VALUES (42)")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "1"})
    assert (await s.execute("SELECT c FROM t WHERE id = 3")).rows == [("c3",)] and hops == ["query"]
    assert (await s.execute("SELECT x FROM e.u")).rows == [(42,)]
    assert (await s.execute("SELECT c FROM t WHERE id = 4")).rows == [("c4",)] and hops == ["query"]
    await s.execute("COMMIT")
    await s.execute("BEGIN")
    assert (await s.execute("SELECT x FROM e.u")).rows == [(42,)] and hops == ["query"]
    await other.execute("DROP DATABASE e")
    async with engine.writer_lock:
        await engine.commit_group({"pos": "2"})
    assert (await s.execute("SELECT c FROM t WHERE id = 5")).rows == [("c5",)] and hops == ["query"] * 2
    assert (await s.execute("SELECT c FROM t WHERE id = 6")).rows == [("c6",)] and hops == ["query"] * 3
    await s.execute("COMMIT")
    await s.execute("BEGIN")
    assert (await s.execute("SELECT c FROM t WHERE id = 7")).rows == [("c7",)] and hops == ["query"] * 3
    with pytest.raises(SQLError) as e:
        await s.execute("SELECT x FROM e.u")
    assert e.value.error.code == 1146
    await s.execute("COMMIT")
