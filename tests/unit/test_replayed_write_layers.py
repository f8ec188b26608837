"""The layers a replayed write passes (the applier's statements on a slave, a client's text
statement on the master) that decide nothing for it: each is asked only where it can."""

from __future__ import annotations

import engine.core as core_module
import engine.session as session_module
import protocol.events as events_module
from engine import Engine, StatementContext
from protocol.events import Query, query_body


async def test_a_statement_without_a_call_asks_neither_for_markers_nor_for_stored_functions(tmp_path, monkeypatch):
    engine = await Engine.open(tmp_path / "db", readers=1)
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    await s.execute("CREATE TABLE d.t (id INT PRIMARY KEY, k INT)")
    asked: list[str] = []
    real_markers, real_may_call = session_module.routines.refuse_markers, session_module.routines.may_call
    monkeypatch.setattr(session_module.routines, "refuse_markers",
                        lambda sql, db: (asked.append(sql), real_markers(sql, db))[1])
    monkeypatch.setattr(session_module.routines, "may_call",
                        lambda kept, sql: (asked.append(sql), real_may_call(kept, sql))[1])
    context = StatementContext(timestamp=1)
    done = [await s.execute("INSERT INTO d.t VALUES (1, 1), (2, 2)", context),  # (brackets: both asked)
            await s.execute("UPDATE d.t SET k=k+1 WHERE id=1", context),
            await s.execute("DELETE FROM d.t WHERE id=2", context)]
    assert asked == ["INSERT INTO d.t VALUES (1, 1), (2, 2)"] * 2
    assert [r.affected_rows for r in done] == [2, 1, 1]
    await engine.close()


async def test_a_write_reads_its_time_and_its_replace_kind_once_without_a_call(tmp_path, monkeypatch):
    engine = await Engine.open(tmp_path / "db", readers=1)
    s = engine.session(1)
    await s.execute("CREATE DATABASE d")
    await s.execute("CREATE TABLE d.t (id INT PRIMARY KEY, k DATETIME(6))")
    times: list[object] = []
    monkeypatch.setattr(core_module, "statement_time", lambda stamp: (times.append(stamp), (stamp, None))[1])
    done = [await s.execute("INSERT INTO d.t VALUES (1, NULL)", StatementContext(timestamp=7)),
            await s.execute("REPLACE INTO d.t VALUES (1, NULL)", StatementContext(timestamp=8)),
            await s.execute("UPDATE d.t SET k=NOW(6) WHERE id=1", StatementContext(timestamp=9, microseconds=5))]
    assert times == []
    assert done[0].affected_rows == done[2].affected_rows == 1
    await engine.close()


def test_a_query_body_encodes_its_texts_without_a_call_and_refuses_what_it_cannot_encode(monkeypatch):
    encoded: list[str] = []
    real = events_module._text
    monkeypatch.setattr(events_module, "_text", lambda text: (encoded.append(text), real(text))[1])
    status = bytes.fromhex("00 00000000")
    texts = (("d", "UPDATE t SET c='\u00e9' WHERE id=1"), ("", "DELETE FROM t"), ("db\udcff", "SELECT '\udcfe'"))
    expected = [Query(thread_id=7, exec_time=0, error_code=0, db=db, query=sql, status_vars=status).encode()
                for db, sql in texts]
    encoded.clear()
    assert [query_body(7, db, sql, status) for db, sql in texts] == expected
    assert encoded == []
    try:
        query_body(7, "d", "SELECT '\ud800'", status)  # (a lone surrogate no byte stands for)
    except events_module.LocalProtocolError as e:
        assert "cannot be encoded" in str(e)
    else:
        raise AssertionError("encoded")
    assert encoded == ["d", "SELECT '\ud800'"]
