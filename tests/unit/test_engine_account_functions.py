"""USER(), CURRENT_USER() and VERSION() inside the engine's statements: the session's client and
account as the server logged them in, the server's @@version; a write that calls USER() or
CURRENT_USER() is binlogged with their values written in (a replica's applier has neither)."""

from __future__ import annotations

from engine import Engine


async def test_account_functions_read_the_session_and_are_binlogged_as_values(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    try:
        session = engine.session(7)
        session.user_text, session.current_user_text = "app@10.0.0.5", "app@%"
        session.sysvar_reader = lambda text: "10.11.99-test" if text.lower() == "@@version" else None
        await session.execute("CREATE DATABASE d")
        await session.execute("CREATE TABLE d.t (id INT PRIMARY KEY, u VARCHAR(80), c VARCHAR(80))")
        await engine.commit_group({})
        session.database = "d"
        result = await session.execute("SELECT USER(), CURRENT_USER(), CURRENT_USER, SESSION_USER(), VERSION()")
        assert [tuple(r) for r in result.rows] == [("app@10.0.0.5", "app@%", "app@%", "app@10.0.0.5",
                                                    "10.11.99-test")]
        result = await session.execute("INSERT INTO t VALUES (1, user(), CONCAT('by ', CURRENT_USER)),"
                                       " (2, 'USER()', @@version)")
        logged = [s.sql for s in result.committed.statements]
        assert logged == ["INSERT INTO t VALUES (1, 'app@10.0.0.5', CONCAT('by ', 'app@%')),"
                          " (2, 'USER()', '10.11.99-test')"]
        await engine.commit_group({})
        rows = await session.execute("SELECT id, u, c FROM t ORDER BY id")
        assert [tuple(r) for r in rows.rows] == [(1, "app@10.0.0.5", "by app@%"), (2, "USER()", "10.11.99-test")]
        await session.close()
    finally:
        await engine.close()
