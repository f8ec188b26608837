"""USER(), CURRENT_USER(), CURRENT_ROLE and VERSION() inside the engine's statements: the session's client and
account as the server logged them in, the server's @@version; a write that calls USER() or
CURRENT_USER() is binlogged with their values written in (a replica's applier has neither)."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError


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


async def test_current_role_with_and_without_parentheses_is_null(tmp_path):
    """No role exists here: CURRENT_ROLE, as CURRENT_ROLE(), is NULL (not a column name),
    information_schema.ENABLED_ROLES one NULL row, APPLICABLE_ROLES none. (SYSTEM_VARIABLES, which
    is not answered here, is 1235.)"""
    engine = await Engine.open(tmp_path / "db", readers=1)
    try:
        session = engine.session(7)
        result = await session.execute("SELECT CURRENT_ROLE, current_role(), CURRENT_ROLE IS NULL")
        assert [tuple(r) for r in result.rows] == [(None, None, 1)]
        result = await session.execute("SELECT * FROM information_schema.ENABLED_ROLES")
        assert [tuple(r) for r in result.rows] == [(None,)]
        assert (await session.execute("SELECT * FROM information_schema.APPLICABLE_ROLES")).rows == []
        with pytest.raises(SQLError) as e:
            await session.execute("SELECT * FROM information_schema.SYSTEM_VARIABLES")
        assert e.value.code == 1235
        await session.close()
    finally:
        await engine.close()
