"""The statement path's layers (server/session.py), on a master daemon in process (NodeDaemon,
master preset), with real clients (PyMySQL for COM_QUERY, mysql-connector's prepared cursor for
COM_STMT_EXECUTE):

- while an autocommit statement's commit waits in the group commit, the session's task is
  suspended in the frames that decide something (the command loop, the statement's KILL QUERY
  and time limit, the dispatch, the engine step) and no forwarding one (`execute`,
  `_checked_execute`, `committing`): each resumption of a commit passes through all of them;
  the session is in its commit (`_in_commit`: KILL and shutdown leave it alone);
- a COM_QUERY that `_run_now` declined on receipt (an autocommit write) is not offered to it
  again by the task;
- what a dump asks its session per group (`writing_paused`, `is_closed`) is read without
  running Python code, and follows the transport;
- a prepared execution answered on receipt (a BEGIN, a write, a COMMIT) is read from the
  payload received, without a command object.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pymysql
import pytest

from config.master import MasterConfig
from node.main import NodeDaemon
from node.role import NodeRole
from server import prepared as prepared_module
from server import session as session_module
from server.session import ClientSession

mysql_connector = pytest.importorskip("mysql.connector")


def _query(port: int, sql: str) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    finally:
        conn.close()


def _insert(port: int, prepared: bool, key: int) -> None:
    if prepared:
        conn = mysql_connector.connect(host="127.0.0.1", port=port, user="root", database="d1", use_pure=True,
                                       autocommit=True)
        try:
            conn.cursor(prepared=True).execute("INSERT INTO w VALUES (?, ?)", (key, 10))
        finally:
            conn.close()
    else:
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute(f"INSERT INTO w VALUES ({key}, 10)")
        finally:
            conn.close()


async def _master(tmp_path) -> NodeDaemon:
    daemon = NodeDaemon(MasterConfig(datadir=tmp_path / "m", port=0, bind_address="127.0.0.1"))
    await daemon.start()
    for sql in ("CREATE DATABASE d1", "CREATE TABLE d1.w (id INT PRIMARY KEY, k INT NOT NULL)"):
        await asyncio.to_thread(_query, daemon.port, sql)
    return daemon


def _awaiting(task: asyncio.Task) -> list[str]:
    """The names of the coroutines `task` is suspended in, outermost first."""
    names = []
    coro: Any = task.get_coro()
    while coro is not None and hasattr(coro, "cr_code"):
        names.append(coro.cr_code.co_name)
        coro = coro.cr_await
    return names


@pytest.mark.parametrize("prepared", [False, True])
async def test_a_commit_waits_under_the_deciding_frames_only(tmp_path, monkeypatch, prepared):
    daemon = await _master(tmp_path)
    try:
        held: asyncio.Future = asyncio.get_running_loop().create_future()
        release = asyncio.Event()
        commit = NodeRole.commit

        async def holding(self, session, txn):
            held.set_result(session)
            await release.wait()
            await commit(self, session, txn)

        monkeypatch.setattr(NodeRole, "commit", holding)
        client = asyncio.create_task(asyncio.to_thread(_insert, daemon.port, prepared, 1))
        session = await asyncio.wait_for(held, 10)
        statement = ["_other_command", "handle", "_execute"] if prepared else ["_com_query"]
        assert _awaiting(session._task) == [
            "_run", "_command_loop", *statement, "run_statement", "_dispatch", "_engine_execute", "holding", "wait"]
        assert session._in_commit
        release.set()
        await asyncio.wait_for(client, 10)
        assert not session._in_commit
        assert await asyncio.to_thread(_rows, daemon.port) == [(1, 10)]
    finally:
        await daemon.shutdown()


def _rows(port: int) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT * FROM d1.w ORDER BY id")
            return list(cur.fetchall())
    finally:
        conn.close()


async def test_a_query_declined_on_receipt_is_not_offered_to_the_loop_again(tmp_path, monkeypatch):
    """An autocommit INSERT (which `_run_now` declines: its commit is the group commit's) and a
    BEGIN / INSERT / COMMIT, as COM_QUERY: `_run_now` is asked once per statement it was offered."""
    daemon = await _master(tmp_path)
    try:
        asked: list[str] = []
        run_now = ClientSession._run_now

        def counted(self, statement):
            if not statement.startswith("SET NAMES"):  # (PyMySQL's, on connecting)
                asked.append(statement)
            return run_now(self, statement)

        monkeypatch.setattr(ClientSession, "_run_now", counted)
        await asyncio.to_thread(_insert, daemon.port, False, 1)
        assert asked == ["INSERT INTO w VALUES (1, 10)"]

        def transaction(port: int) -> None:
            conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
            try:
                with conn.cursor() as cur:
                    for sql in ("BEGIN", "INSERT INTO w VALUES (2, 20)", "COMMIT"):
                        cur.execute(sql)
            finally:
                conn.close()

        asked.clear()
        await asyncio.to_thread(transaction, daemon.port)
        assert asked == ["BEGIN", "INSERT INTO w VALUES (2, 20)"]  # (a COMMIT is `run_commit_now`'s)
        assert await asyncio.to_thread(_rows, daemon.port) == [(1, 10), (2, 20)]
    finally:
        await daemon.shutdown()


async def test_what_a_dump_asks_per_group_runs_no_python_code(tmp_path):
    daemon = await _master(tmp_path)
    try:
        conn = await asyncio.to_thread(pymysql.connect, host="127.0.0.1", port=daemon.port, user="root")
        session = next(s for s in daemon.server.sessions.values() if s.account is not None)
        calls: list[str] = []

        def profile(frame, event, arg):
            if event == "call" or event == "c_call" and arg is not sys.setprofile:
                calls.append(frame.f_code.co_name if event == "call" else arg.__name__)

        sys.setprofile(profile)
        try:
            answers = (session.writing_paused, session.is_closed)
        finally:
            sys.setprofile(None)
        assert calls == [] and answers == (False, False)
        session.pause_writing()
        assert session.writing_paused
        session.resume_writing()
        assert not session.writing_paused
        await asyncio.to_thread(conn.close)
        await asyncio.wait_for(session.closed(), 10)
        assert session.is_closed
    finally:
        await daemon.shutdown()


async def test_the_group_commit_reads_sync_binlog_from_the_role_in_one_frame(tmp_path):
    """sync_binlog, asked once per group, is the role's value as SET GLOBAL left it, read
    by the role's own method with no frame of the daemon's between."""
    daemon = await _master(tmp_path)
    try:
        await asyncio.to_thread(_query, daemon.port, "SET GLOBAL sync_binlog = 7")
        calls: list[str] = []

        def profile(frame, event, arg):
            if event == "call":
                calls.append(frame.f_code.co_name)

        sys.setprofile(profile)
        try:
            every = daemon.pipeline.sync_binlog()
        finally:
            sys.setprofile(None)
        assert every == 7 and calls == ["sync_binlog"]
    finally:
        await daemon.shutdown()


async def test_an_execution_answered_on_receipt_is_read_without_a_command_object(tmp_path, monkeypatch):
    """A prepared BEGIN, INSERT and COMMIT received alone are answered (or the COMMIT begun) in
    the receive callback from the payload: no command is decoded for them (the task gets one
    only for what the callback leaves, here the COMMIT's answer after its commit)."""
    daemon = await _master(tmp_path)
    try:
        decoded: list[Any] = []
        decode = session_module.decode_command

        def counted(payload, charset=None):
            decoded.append(payload[:1])
            return decode(payload, charset)

        stmt_commands: list[bytes] = []  # COM_STMT_EXECUTEs decoded into a command object
        decode_stmt = prepared_module.decode_stmt_command

        def counted_stmt(payload):
            if payload[:1] == b"\x17" and measuring:
                stmt_commands.append(payload)
            return decode_stmt(payload)

        measuring = False

        def transaction(port: int) -> None:
            nonlocal measuring
            conn = mysql_connector.connect(host="127.0.0.1", port=port, user="root", database="d1", use_pure=True,
                                           autocommit=True)
            try:
                cur = conn.cursor(prepared=True)
                statements = [("BEGIN", ()), ("INSERT INTO w VALUES (?, ?)", (3, 30)), ("COMMIT", ())]
                for sql, values in statements:  # prepared first, then executed
                    cur.execute(sql, values)
                monkeypatch.setattr(session_module, "decode_command", counted)
                measuring = True
                for sql, values in statements:
                    cur.execute(sql, (4, 40) if values else values)
            finally:
                conn.close()

        monkeypatch.setattr(prepared_module, "decode_stmt_command", counted_stmt)
        await asyncio.to_thread(transaction, daemon.port)
        executes = [p for p in decoded if p == b"\x17"]
        assert executes == [], decoded
        assert stmt_commands == [], stmt_commands
        assert await asyncio.to_thread(_rows, daemon.port) == [(3, 30), (4, 40)]
    finally:
        await daemon.shutdown()
