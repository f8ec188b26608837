"""Temporary tables (engine/temporary.py): each session's own, shadowing a base table of the same
name for that session only, listed nowhere, dropped only by the session (DROP TEMPORARY TABLE:
1051 for a base table), ended by `Session.temporary_drops`' statements, unreachable after a
restart, and on a replica's applier kept per master thread (`StatementContext.thread_id`).
tests/integration/test_temporary_tables_mariadb.py compares the answers with MariaDB's."""

from __future__ import annotations

import pytest

from engine import Engine, temporary
from engine.results import StatementContext
from protocol.errors import SQLError


async def _on(engine: Engine, session, sql: str):
    result = await session.execute(sql)
    await engine.commit_group({})
    return result


async def _rows(engine: Engine, session, sql: str) -> list[tuple]:
    return (await _on(engine, session, sql)).rows


async def _code(engine: Engine, session, sql: str) -> int:
    with pytest.raises(SQLError) as refused:
        await _on(engine, session, sql)
    return refused.value.code


async def _engine_with_base(path) -> Engine:
    engine = await Engine.open(path, readers=1)
    setup = engine.session(99)
    for sql in ("CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))",
                "INSERT INTO d.t VALUES (1, 'base')"):
        await _on(engine, setup, sql)
    await setup.close()
    return engine


def _session(engine: Engine, connection_id: int):
    session = engine.session(connection_id)
    session.database = "d"
    return session


async def test_private_shadowing_and_dropped_by_name(tmp_path):
    engine = await _engine_with_base(tmp_path / "db")
    a, b = _session(engine, 1), _session(engine, 2)
    try:
        await _on(engine, a, "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w INT, KEY kw (w))")
        await _on(engine, a, "INSERT INTO t VALUES (1, 10), (2, 20)")
        await _on(engine, a, "UPDATE t SET w = w + 1 WHERE id = 2")
        assert await _rows(engine, a, "SELECT t.id, t.w FROM t ORDER BY id") == [(1, 10), (2, 21)]
        assert await _rows(engine, b, "SELECT * FROM t") == [(1, "base")]
        # both sessions make their own `tmp`, with the same index name
        await _on(engine, b, "CREATE TEMPORARY TABLE tmp (x INT, KEY k (x))")
        await _on(engine, a, "CREATE TEMPORARY TABLE tmp (y INT, KEY k (y))")
        await _on(engine, a, "INSERT INTO tmp VALUES (5)")
        assert await _rows(engine, b, "SELECT * FROM tmp") == []
        assert await _rows(engine, a, "SELECT tmp.y FROM tmp") == [(5,)]
        assert await _code(engine, a, "CREATE TEMPORARY TABLE tmp (z INT)") == 1050
        assert await _rows(engine, a, "SHOW TABLES") == [("t",)]
        assert await _rows(engine, a, "SELECT table_name FROM information_schema.tables "
                                      "WHERE table_schema = 'd'") == [("t",)]
        (shown,) = await _rows(engine, a, "SHOW CREATE TABLE tmp")
        assert shown[0] == "tmp" and shown[1].startswith("CREATE TEMPORARY TABLE `tmp` (")
        await _on(engine, a, "ALTER TABLE tmp ADD COLUMN z INT DEFAULT 3")
        assert await _rows(engine, a, "SELECT * FROM tmp") == [(5, 3)]
        assert await _code(engine, b, "SELECT z FROM tmp") == 1054
        # DROP TEMPORARY: temporary tables only; DROP: the temporary one first
        await _on(engine, a, "DROP TEMPORARY TABLE t")
        assert await _rows(engine, a, "SELECT * FROM t") == [(1, "base")]
        assert await _code(engine, a, "DROP TEMPORARY TABLE t") == 1051
        await _on(engine, b, "CREATE TEMPORARY TABLE t (q INT)")
        await _on(engine, b, "DROP TABLE t")
        assert await _rows(engine, b, "SELECT * FROM t") == [(1, "base")]
        await _on(engine, a, "CREATE TEMPORARY TABLE c LIKE t")
        await _on(engine, a, "INSERT INTO c SELECT * FROM t")
        assert await _rows(engine, a, "SELECT * FROM c") == [(1, "base")]
        assert await _code(engine, b, "SELECT * FROM c") == 1146
        assert a.temporary_drops() == [("d", "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `c`,`tmp`")]
    finally:
        await a.close()
        await b.close()
        await engine.close()


async def test_session_end_and_restart(tmp_path):
    engine = await _engine_with_base(tmp_path / "db")
    a, b = _session(engine, 1), _session(engine, 2)
    await _on(engine, a, "CREATE TEMPORARY TABLE gone (id INT)")
    await _on(engine, a, "CREATE TEMPORARY TABLE d.kept (id INT)")
    await _on(engine, b, "CREATE TEMPORARY TABLE left_behind (id INT)")
    await _on(engine, b, "INSERT INTO left_behind VALUES (1)")
    drops = a.temporary_drops()
    assert drops == [("d", "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS `kept`,`gone`")]  # (the newest first)
    for schema, sql in drops:  # (as the shell runs them at the session's end)
        a.database = schema
        await _on(engine, a, sql)
    assert a.temporary_drops() == []
    assert await _code(engine, a, "SELECT * FROM gone") == 1146
    await a.close()
    await b.close()
    await engine.close()
    engine = await Engine.open(tmp_path / "db", readers=1)
    try:
        assert not any(temporary.is_temporary(t.name) for t in engine.catalog["d"].values())  # (dropped at open)
        again = _session(engine, 2)  # the same connection id after a restart: none of its tables
        assert again.temporary_drops() == []
        assert await _code(engine, again, "SELECT * FROM left_behind") == 1146
        await _on(engine, again, "CREATE TEMPORARY TABLE left_behind (id INT)")
        assert await _rows(engine, again, "SELECT * FROM left_behind") == []
        assert await _rows(engine, again, "SHOW TABLES") == [("t",)]
        await again.close()
    finally:
        await engine.close()


async def test_replicated_per_master_thread(tmp_path):
    engine = await _engine_with_base(tmp_path / "db")

    def statement(sql: str, thread_id: int) -> tuple:
        return (sql, StatementContext(timestamp=1, thread_id=thread_id), "d")

    try:
        for sql, thread in (("CREATE TEMPORARY TABLE tmp (id INT, v INT)", 7),
                            ("CREATE TEMPORARY TABLE tmp (id INT, v INT)", 8),
                            ("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", 8)):
            await engine.apply_transactions([[statement(sql, thread)]], {})
        await engine.apply_transactions([[statement("INSERT INTO tmp VALUES (2, 20)", 7)],
                                         [statement("INSERT INTO tmp VALUES (3, 30)", 8)],
                                         [statement("INSERT INTO t VALUES (4, 'temp')", 8)]], {})
        await engine.apply_transactions([[statement("INSERT INTO t SELECT id, v FROM tmp", 7)],
                                         [statement("INSERT INTO t SELECT id, v FROM tmp", 8)]], {})
        await engine.apply_transactions([[statement("DROP TEMPORARY TABLE IF EXISTS `t`,`tmp`", 8)]], {})
        reader = _session(engine, 1)
        # thread 7's row went to the base table; thread 8's to its own `t`, dropped with it
        assert await _rows(engine, reader, "SELECT * FROM t ORDER BY id") == [(1, "base"), (2, "20")]
        assert len(engine.temporary_owners()) == 1  # thread 7's `tmp` is still there
        await reader.close()
    finally:
        await engine.close()


async def test_replicated_per_master_server_and_thread(tmp_path):
    """The same thread id of two masters (a failover's new master, whose ids collide with the
    old one's) names two threads: the new master's thread writes the base table, not the old
    master's temporary one; `drop_replicated_temporary` ends the replicated ones only."""
    engine = await _engine_with_base(tmp_path / "db")

    def statement(sql: str, server_id: int) -> tuple:
        return (sql, StatementContext(timestamp=1, thread_id=5, server_id=server_id), "d")

    try:
        await engine.apply_transactions([[statement("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, v VARCHAR(10))", 1)]], {})
        await engine.apply_transactions([[statement("INSERT INTO t VALUES (2, 'old')", 1)],
                                         [statement("INSERT INTO t VALUES (3, 'new')", 3)]], {})
        client = _session(engine, 5)
        await _on(engine, client, "CREATE TEMPORARY TABLE mine (id INT)")
        reader = _session(engine, 1)
        assert await _rows(engine, reader, "SELECT * FROM t ORDER BY id") == [(1, "base"), (3, "new")]
        await engine.drop_replicated_temporary()
        assert engine.temporary_owners() == {client.temporary_owner}
        await engine.apply_transactions([[statement("INSERT INTO t VALUES (4, 'old')", 1)]], {})
        assert await _rows(engine, reader, "SELECT * FROM t ORDER BY id") == [(1, "base"), (3, "new"), (4, "old")]
        await reader.close()
        await client.close()
    finally:
        await engine.close()


async def test_a_torn_group_rerun_reads_the_temporary_table_its_session_had(tmp_path):
    """A group torn between two files (SQLite committed `a`, not `b`, as after a crash between
    them) whose statement on `b` read the session's temporary `a.t` (over the base `a.t`): the
    rerun at open reads the temporary table the crashed open left, then drops it."""
    datadir = tmp_path / "data"
    engine = await Engine.open(datadir)
    s = engine.session(1)
    for name in ("a", "b"):
        await s.execute(f"CREATE DATABASE {name}")
        await s.execute(f"CREATE TABLE {name}.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await s.execute("INSERT INTO a.t (v) VALUES (1)")
    s.database = "a"
    await s.execute("CREATE TEMPORARY TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await s.execute("INSERT INTO t (v) VALUES (5)")
    async with engine.writer_lock:
        await engine.commit_group({"g": "1"})
    await s.execute("BEGIN")
    await s.execute("INSERT INTO t (v) VALUES (6)")
    await s.execute("INSERT INTO b.t (v) SELECT v FROM t")
    await s.execute("COMMIT")
    before = {p.name: p.read_bytes() for p in datadir.glob("b.sqlite*") if not p.name.endswith("-shm")}
    async with engine.writer_lock:
        await engine.commit_group({"g": "2"})
    await engine.close()
    for p in datadir.glob("b.sqlite*"):
        p.unlink()
    for name, data in before.items():
        (datadir / name).write_bytes(data)

    engine = await Engine.open(datadir)
    try:
        assert engine.repaired == ["b"]
        reader = engine.session(2)
        assert await _rows(engine, reader, "SELECT v FROM b.t ORDER BY v") == [(5,), (6,)]
        assert await _rows(engine, reader, "SELECT v FROM a.t") == [(1,)]
        assert not engine.temporary_owners()
        await reader.close()
    finally:
        await engine.close()


async def test_temporary_any_says_whether_the_catalog_may_hold_one(tmp_path):
    """`Engine.temporary_any`, which every statement tests before it looks for its session's
    temporary tables: set when one is made (by a session, a replicated thread, a reopen that
    keeps the left ones), clear again once none is left."""
    engine = await _engine_with_base(tmp_path / "db")
    try:
        assert not engine.temporary_any
        s = _session(engine, 1)
        await _on(engine, s, "CREATE TEMPORARY TABLE x (id INT)")
        assert engine.temporary_any and await _rows(engine, s, "SELECT COUNT(*) FROM x") == [(0,)]
        await _on(engine, s, "DROP TEMPORARY TABLE x")
        assert not engine.temporary_any
        await engine.apply_transactions([[("CREATE TEMPORARY TABLE t (id INT)", StatementContext(thread_id=3), "d")]], {})
        assert engine.temporary_any
        await engine.drop_replicated_temporary()
        assert not engine.temporary_any
        await _on(engine, s, "CREATE TEMPORARY TABLE x (id INT)")
        await s.close()  # (no session end: as a crash leaves it)
    finally:
        await engine.close()
    engine = await Engine.open(tmp_path / "db", keep_left_temporary=True)
    try:
        assert engine.temporary_any
        await engine.drop_left_temporary()
        assert not engine.temporary_any
    finally:
        await engine.close()


async def test_create_and_drop_temporary_in_a_transaction_commit_nothing(tmp_path):
    """CREATE / DROP TEMPORARY TABLE join the open transaction (no implicit commit); its rollback,
    whole or to a savepoint before them, leaves what they made (empty) or dropped, and returns
    the transaction to binlog with ROLLBACK at its end (`temporary.keeps_transaction`)."""
    engine = await _engine_with_base(tmp_path / "db")
    a = _session(engine, 1)
    try:
        await _on(engine, a, "CREATE TEMPORARY TABLE old (id INT)")
        await _on(engine, a, "INSERT INTO old VALUES (7)")
        await a.execute("BEGIN")
        await a.execute("INSERT INTO t VALUES (2, 'two')")
        created = await a.execute("CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)")
        assert created.committed is None and a.in_transaction
        await a.execute("INSERT INTO tmp VALUES (1)")
        await a.execute("INSERT INTO old VALUES (8)")
        await a.execute("DROP TEMPORARY TABLE old")
        assert (await a.execute("SELECT * FROM tmp")).rows == [(1,)]
        rolled_back = await a.execute("ROLLBACK")
        assert [s.sql for s in rolled_back.committed.statements] == [
            "INSERT INTO t VALUES (2, 'two')", "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)",
            "INSERT INTO tmp VALUES (1)", "INSERT INTO old VALUES (8)",
            "DROP TEMPORARY TABLE `old` /* generated by server */", "ROLLBACK"]
        await engine.commit_group({})
        assert await _rows(engine, a, "SELECT * FROM tmp") == []
        assert await _code(engine, a, "SELECT * FROM old") == 1146
        assert await _rows(engine, a, "SELECT * FROM t") == [(1, "base")]
        # to a savepoint: the table made after it stays, with the rows written before it
        await a.execute("BEGIN")
        await a.execute("INSERT INTO tmp VALUES (2)")
        await a.execute("SAVEPOINT s")
        await a.execute("INSERT INTO tmp VALUES (3)")
        await a.execute("CREATE TEMPORARY TABLE later (id INT)")
        await a.execute("INSERT INTO later VALUES (9)")
        await a.execute("ROLLBACK TO SAVEPOINT s")
        committed = (await a.execute("COMMIT")).committed
        # (a temporary table made: the rollback is binlogged, MariaDB's ROLLBACK TO `s`, not cut out)
        assert [s.sql for s in committed.statements] == [
            "INSERT INTO tmp VALUES (2)", "SAVEPOINT `s`", "INSERT INTO tmp VALUES (3)",
            "CREATE TEMPORARY TABLE later (id INT)", "INSERT INTO later VALUES (9)", "ROLLBACK TO `s`"]
        await engine.commit_group({})
        assert await _rows(engine, a, "SELECT * FROM tmp") == [(2,)]
        assert await _rows(engine, a, "SELECT * FROM later") == []
        # a transaction that made none: its rollback binlogs nothing
        await a.execute("BEGIN")
        await a.execute("INSERT INTO tmp VALUES (4)")
        assert (await a.execute("ROLLBACK")).committed is None
        assert await _rows(engine, a, "SELECT * FROM tmp") == [(2,)]
    finally:
        await a.close()
        await engine.close()


def _ends(committed) -> list[str]:
    """How each binlog transaction of `committed` ends: XID, or the QUERY in its place."""
    from master.events import transaction_events
    from protocol.events import TYPE_QUERY, TYPE_XID

    out = []
    for statements in committed.binlog_transactions():
        type_code, body, _, _ = transaction_events(statements, xid=1, thread_id=1)[-1]
        assert type_code in (TYPE_QUERY, TYPE_XID)
        out.append("XID" if type_code == TYPE_XID else body.rpartition(b"\x00")[2].decode())  # (the text after the db's NUL)
    return out


async def test_a_transaction_of_temporary_tables_only_ends_with_commit_not_xid(tmp_path):
    """MariaDB's InnoDB takes no part in the commit of a transaction that wrote temporary tables
    only: its binlog group ends with QUERY COMMIT; one that wrote a base table's row with XID."""
    engine = await _engine_with_base(tmp_path / "db")
    a = _session(engine, 1)
    try:
        await _on(engine, a, "CREATE TEMPORARY TABLE tmp (id INT PRIMARY KEY)")
        assert _ends((await _on(engine, a, "INSERT INTO tmp VALUES (1)")).committed) == ["COMMIT"]
        await a.execute("BEGIN")
        await a.execute("INSERT INTO tmp VALUES (2)")
        await a.execute("UPDATE tmp SET id = 3 WHERE id = 2")
        assert _ends((await _on(engine, a, "COMMIT")).committed) == ["COMMIT"]
        await a.execute("BEGIN")
        await a.execute("INSERT INTO tmp VALUES (4)")
        await a.execute("INSERT INTO t SELECT id, 'x' FROM tmp WHERE id = 4")
        assert _ends((await _on(engine, a, "COMMIT")).committed) == ["XID"]
        assert _ends((await _on(engine, a, "INSERT INTO t VALUES (5, 'y')")).committed) == ["XID"]
    finally:
        await a.close()
        await engine.close()


async def test_without_autocommit_create_temporary_begins_the_transaction(tmp_path):
    """autocommit=0: CREATE TEMPORARY TABLE as the first statement joins the transaction it
    begins (MariaDB's: no implicit commit), so its ROLLBACK undoes the base table's row written
    after it, keeps the table, and binlogs the transaction with ROLLBACK."""
    engine = await _engine_with_base(tmp_path / "db")
    a = _session(engine, 1)
    try:
        a.autocommit = False
        created = await a.execute("CREATE TEMPORARY TABLE tmp (id INT)")
        assert created.committed is None and a.in_transaction
        await a.execute("INSERT INTO t VALUES (2, 'two')")
        rolled_back = await _on(engine, a, "ROLLBACK")
        assert [s.sql for s in rolled_back.committed.statements] == [
            "CREATE TEMPORARY TABLE tmp (id INT)", "INSERT INTO t VALUES (2, 'two')", "ROLLBACK"]
        assert await _rows(engine, a, "SELECT * FROM tmp") == []
        assert await _rows(engine, a, "SELECT * FROM t") == [(1, "base")]
    finally:
        await a.close()
        await engine.close()
