"""COMMIT answered on receipt (server/prepared.py `answer_on_receipt` for COM_STMT_EXECUTE,
`ClientSession._query_on_receipt` for COM_QUERY -> `ClientSession.run_commit_now`: engine
`Session.commit_now` ends the transaction and `Role.commit_now` queues it for the group commit
in the same step; the session's task answers once the group is committed), on a master daemon
in process (NodeDaemon, master preset), against the statement path (`run_statement`):

- a script of transactions (prepared COMMIT through mysql-connector, text COMMIT and COMMIT
  WORK through PyMySQL; transactions that wrote, that only read, that wrote nothing; one with
  sql_log_bin off; two sessions' transactions overlapping; a COMMIT the engine refuses) sends
  the clients the same bytes, leaves the same rows and writes the same statements to the binlog
  on both paths, and the receive callback began the commits of the transactions that wrote;
- the binlog's order is the engine's: sessions committing at once from several threads, each
  transaction applying a step that does not commute (v := (3v + n) mod p) to one row; the
  binlog's UPDATEs replayed in their order give the row's value; and when a COMMIT's callback
  returns, its transaction is in the group commit's queue and a leader holds or waits for the
  writer lock (so no group commits the engine without it).
"""

from __future__ import annotations

import asyncio
import re
import threading
from typing import Any

import pymysql
import pytest

from config.master import MasterConfig
from node.main import NodeDaemon
from server.prepared import ANSWERED_LATER
from server.session import ClientSession

mysql_connector = pytest.importorskip("mysql.connector")

SETUP = [
    "CREATE DATABASE d1",
    "CREATE TABLE d1.w (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(10))",
    "INSERT INTO d1.w VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')",
]


def _binlog_statements(port: int) -> list[str]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW BINARY LOGS")
            statements = []
            for (name, *_rest) in cur.fetchall():
                cur.execute(f"SHOW BINLOG EVENTS IN '{name}'")
                statements += [row[5] for row in cur.fetchall() if row[2] == "Query"]
            return statements
    finally:
        conn.close()


def _script(port: int) -> list[Any]:
    """Two clients' transactions; each one's view after each statement, and the rows."""
    prep = mysql_connector.connect(host="127.0.0.1", port=port, user="root", database="d1", use_pure=True,
                                   autocommit=True)
    text = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
    answers: list[Any] = []
    try:
        pc, pw = prep.cursor(prepared=True), prep.cursor()
        tc = text.cursor()

        def p(sql: str, values: tuple = ()) -> None:
            try:
                pc.execute(sql, values)
                answers.append(("p", sql, pc.fetchall() if pc.description else pc.rowcount, prep.in_transaction))
            except mysql_connector.Error as exc:
                answers.append(("p", sql, "error", exc.errno))

        def t(sql: str) -> None:
            try:
                tc.execute(sql)
                answers.append(("t", sql, tc.fetchall() if tc.description else tc.rowcount))
            except pymysql.MySQLError as exc:
                answers.append(("t", sql, "error", exc.args[0]))

        p("BEGIN")
        p("UPDATE w SET k = k + ? WHERE id = ?", (1, 1))
        p("COMMIT")  # begun on receipt
        t("BEGIN")
        t("INSERT INTO w VALUES (4, 40, 'd')")
        p("BEGIN")
        p("SELECT k FROM w WHERE id = ?", (4,))  # (the writer is the other session's)
        t("COMMIT")  # begun on receipt
        p("UPDATE w SET c = ? WHERE id = ?", ("x", 2))
        p("COMMIT")  # begun on receipt
        p("BEGIN")
        p("SELECT k FROM w WHERE id = ?", (1,))
        p("COMMIT")  # wrote nothing: answered at once
        t("COMMIT")  # no transaction at all
        t("BEGIN")
        t("DELETE FROM w WHERE id = 3")
        t("COMMIT WORK")  # begun on receipt
        t("SET sql_log_bin = 0")
        t("BEGIN")
        t("UPDATE w SET k = 99 WHERE id = 4")
        t("COMMIT")  # begun on receipt: committed, not binlogged
        t("SET sql_log_bin = 1")
        t("SET autocommit = 0")
        t("UPDATE w SET k = k + 1 WHERE id = 2")
        t("COMMIT")  # begun on receipt
        t("SET autocommit = 1")
        t("COMMIT AND CHAIN RELEASE")  # the engine refuses it (MariaDB's 1064): the statement path's error
        pw.execute("SELECT * FROM w ORDER BY id")
        answers.append(pw.fetchall())
    finally:
        prep.close()
        text.close()
    return answers


async def _run(tmp_path, name: str, work) -> tuple[Any, list[str]]:
    daemon = NodeDaemon(MasterConfig(datadir=tmp_path / name, port=0, bind_address="127.0.0.1"))
    await daemon.start()
    try:
        for sql in SETUP:
            await asyncio.to_thread(_query, daemon.port, sql)
        result = await asyncio.to_thread(work, daemon.port)
        return result, await asyncio.to_thread(_binlog_statements, daemon.port)
    finally:
        await daemon.shutdown()


async def _both_paths(tmp_path, monkeypatch, begun: list[int], work) -> list[tuple[Any, list[str], int]]:
    """`work` on a fresh master with COMMITs begun on receipt, then with `run_commit_now`
    declining them all (the statement path): per run, what `work` returned, the binlog's
    statements and how many COMMITs were begun on receipt."""
    runs = []
    for path in ("receipt", "task"):
        with monkeypatch.context() as m:
            if path == "task":
                m.setattr(ClientSession, "run_commit_now", lambda self, *args, **kwargs: None)
            before = begun[0]
            result, binlog = await _run(tmp_path, path, work)
            runs.append((result, binlog, begun[0] - before))
    return runs


def _query(port: int, sql: str) -> None:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        conn.cursor().execute(sql)
    finally:
        conn.close()


@pytest.fixture
def begun(monkeypatch) -> list[int]:
    """How many COMMITs `run_commit_now` began (handed to the task: ANSWERED_LATER); at each, in
    the same step, the transaction is in the group commit's queue and a leader holds or waits
    for the writer lock."""
    count = [0]
    original = ClientSession.run_commit_now

    def counted(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if result is ANSWERED_LATER:
            count[0] += 1
            pipeline = self.server.role.source.pipeline
            assert [t for t in pipeline._queue if t.session is self]
            lock = self.server.engine.writer_lock
            assert lock.owner is pipeline or any(owner is pipeline for _, owner, _ in lock._waiters)
        return result

    monkeypatch.setattr(ClientSession, "run_commit_now", counted)
    return count


async def test_both_paths_send_the_same_bytes_and_binlog_the_same(tmp_path, monkeypatch, begun):
    sent: dict[int, list[bytes]] = {}
    original_write = ClientSession.write

    def write(self, data: bytes) -> None:
        sent.setdefault(self.connection_id, []).append(bytes(data))
        original_write(self, data)

    monkeypatch.setattr(ClientSession, "write", write)

    def script(port: int) -> tuple[list[Any], list[bytes]]:
        sent.clear()  # (the set-up's connections)
        answers = _script(port)
        # per connection, after its greeting and login answer (a random salt, its id)
        return answers, [data for _, out in sorted(sent.items()) for data in out[2:]]

    runs = await _both_paths(tmp_path, monkeypatch, begun, script)
    ((answers, wire), binlog, on_receipt), ((answers2, wire2), binlog2, on_receipt2) = runs
    assert on_receipt == 6 and on_receipt2 == 0
    assert answers == answers2
    assert answers[-1] == [(1, 11, "a"), (2, 21, "x"), (4, 99, "d")]
    assert ("t", "COMMIT AND CHAIN RELEASE", "error", 1064) in answers
    assert binlog == binlog2
    logged = [s for s in binlog if not s.startswith(("CREATE", "use `d1`; CREATE", "BEGIN", "COMMIT"))]
    assert [re.sub(r"^use `d1`; ", "", s) for s in logged] == [
        "INSERT INTO d1.w VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')",
        "UPDATE w SET k = k + 1 WHERE id = 1",
        "INSERT INTO w VALUES (4, 40, 'd')",
        "UPDATE w SET c = 'x' WHERE id = 2",
        "DELETE FROM w WHERE id = 3",
        "UPDATE w SET k = k + 1 WHERE id = 2",
    ]
    assert len(wire) == len(wire2) > 40
    for i, (a, b) in enumerate(zip(wire, wire2, strict=True)):
        assert a == b, f"write {i}: {a.hex()} / {b.hex()}"


P = 1_000_003


def _contend(port: int, threads: int = 6, each: int = 25) -> int:
    def client(n: int) -> None:
        prepared = n % 2 == 0
        if prepared:
            conn = mysql_connector.connect(host="127.0.0.1", port=port, user="root", database="d1",
                                           use_pure=True, autocommit=True)
            cur = conn.cursor(prepared=True)
        else:
            conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
            cur = conn.cursor()
        try:
            for i in range(each):
                cur.execute("BEGIN")
                cur.execute(f"UPDATE w SET k = (k * 3 + {n + 1}) % {P} WHERE id = 1")
                cur.execute(f"INSERT INTO w VALUES ({1000 + n * each + i}, {n}, 'c')")
                cur.execute("COMMIT")
        finally:
            conn.close()

    workers = [threading.Thread(target=client, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT k FROM w WHERE id = 1")
            return cur.fetchone()[0]
    finally:
        conn.close()


async def test_the_binlog_order_is_the_engine_order(tmp_path, begun):
    final, binlog = await _run(tmp_path, "contend", _contend)
    assert begun[0] == 6 * 25
    steps = [int(m.group(1)) for s in binlog if (m := re.search(r"SET k = \(k \* 3 \+ (\d+)\)", s))]
    assert len(steps) == 6 * 25
    v = 10
    for n in steps:
        v = (v * 3 + n) % P
    assert v == final


def _processlist_while_committing(port: int, prepared: bool) -> tuple[Any, ...]:
    """The committing session's SHOW PROCESSLIST row (Command, State, Info) while its COMMIT
    waits for a semi-sync ack no slave sends (until rpl_semi_sync_master_timeout)."""
    _query(port, "SET GLOBAL rpl_semi_sync_master_timeout = 1500")
    _query(port, "SET GLOBAL rpl_semi_sync_master_enabled = 1")
    if prepared:
        conn = mysql_connector.connect(host="127.0.0.1", port=port, user="root", database="d1", use_pure=True,
                                       autocommit=True)
        cur = conn.cursor(prepared=True)
    else:
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="d1", autocommit=True)
        cur = conn.cursor()
    watcher = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        cur.execute("BEGIN")
        cur.execute("UPDATE w SET k = k + 1 WHERE id = 1")
        committing = threading.Thread(target=cur.execute, args=("COMMIT",))
        committing.start()
        seen: tuple[Any, ...] = ()
        with watcher.cursor() as w:
            for _ in range(100):
                w.execute("SHOW PROCESSLIST")
                rows = [r for r in w.fetchall() if r[7] == "COMMIT" and r[6]]  # (once in its wait)
                if rows:
                    seen = (rows[0][4], rows[0][6], rows[0][7])
                    break
                threading.Event().wait(0.01)
        committing.join()
        return seen
    finally:
        conn.close()
        watcher.close()


@pytest.mark.parametrize("prepared", [True, False], ids=["prepared", "text"])
async def test_a_commit_begun_on_receipt_shows_in_the_processlist_as_on_the_statement_path(
        tmp_path, monkeypatch, begun, prepared):
    (row, _, on_receipt), (row2, _, on_receipt2) = await _both_paths(
        tmp_path, monkeypatch, begun, lambda port: _processlist_while_committing(port, prepared))
    assert (on_receipt, on_receipt2) == (1, 0)
    assert row == row2 == ("Execute" if prepared else "Query", "Waiting for semi-sync ACK from slave", "COMMIT")
