"""COMMIT and autocommit writes begun on receipt (server/prepared.py `answer_on_receipt` for
COM_STMT_EXECUTE, `ClientSession._query_on_receipt` for COM_QUERY -> `ClientSession
.run_commit_now`: engine `Session.commit_now` ends the transaction, or `run_write_ending_now`:
engine `Session.write_now(ends=True)` runs the write and ends its transaction; `Role.commit_now`
queues it for the group commit in the same step; the session's task answers once the group is
committed), on a master daemon in process (NodeDaemon, master preset), against the statement
path (`run_statement`):

- a script of transactions (prepared COMMIT through mysql-connector, text COMMIT and COMMIT
  WORK through PyMySQL; transactions that wrote, that only read, that wrote nothing; one with
  sql_log_bin off; two sessions' transactions overlapping; a COMMIT the engine refuses) sends
  the clients the same bytes, leaves the same rows and writes the same statements to the binlog
  on both paths, and the receive callback began the commits of the transactions that wrote;
- a script of autocommit writes (prepared and text: INSERT with AUTO_INCREMENT, multi-row
  INSERT, INSERT ... ON DUPLICATE KEY UPDATE, UPDATE, DELETE, REPLACE, a duplicate key, a
  missing table, one with sql_log_bin off) does the same: bytes, rows, binlog;
- the binlog's order is the engine's: sessions committing at once from several threads, each
  transaction (an explicit one, or an autocommit UPDATE) applying a step that does not commute
  (v := (3v + n) mod p) to one row; the binlog's UPDATEs replayed in their order give the row's
  value; and when a COMMIT's or an autocommit write's callback returns, its transaction is in
  the group commit's queue and a leader holds or waits for the writer lock (so no group
  commits the engine without it);
- while its group waits for a semi-sync ack, SHOW PROCESSLIST shows the session as on the
  statement path.
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


def _two_clients(port: int, steps, final: str) -> list[Any]:
    """`steps(p, t)` with `p` a prepared statement through mysql-connector (pure) and `t` a text
    one through PyMySQL, two connections: each statement's answer (rows or affected rows,
    the insert id, and for `p` whether a transaction is open, or the error's number), then
    `final`'s rows."""
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
                answers.append(("p", sql, pc.fetchall() if pc.description else pc.rowcount, pc.lastrowid,
                                prep.in_transaction))
            except mysql_connector.Error as exc:
                answers.append(("p", sql, "error", exc.errno))

        def t(sql: str) -> None:
            try:
                tc.execute(sql)
                answers.append(("t", sql, tc.fetchall() if tc.description else tc.rowcount, tc.lastrowid))
            except pymysql.MySQLError as exc:
                answers.append(("t", sql, "error", exc.args[0]))

        steps(p, t)
        pw.execute(final)
        answers.append(pw.fetchall())
    finally:
        prep.close()
        text.close()
    return answers


def _transactions(p, t) -> None:
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
    t("COMMIT RELEASE")  # the engine refuses it: the statement path's error


def _autocommit_writes(p, t) -> None:
    t("CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT UNIQUE)")
    p("INSERT INTO a (v) VALUES (?)", (1,))  # begun on receipt
    t("INSERT INTO a (v) VALUES (2), (3)")  # Records: 2  Duplicates: 0  Warnings: 0
    p("INSERT INTO a (v) VALUES (?)", (2,))  # 1062
    t("INSERT INTO a (v) VALUES (3)")  # 1062
    t("INSERT INTO a (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v + 10")  # 2 affected
    p("UPDATE w SET k = k + ? WHERE id > ?", (5, 1))
    t("UPDATE w SET k = k WHERE id = 1")  # found, not changed: 0
    p("DELETE FROM w WHERE id = ?", (3,))
    t("REPLACE INTO w VALUES (2, 7, 'r')")  # 2 affected
    t("INSERT INTO nosuch VALUES (1)")  # 1146
    t("SET sql_log_bin = 0")
    t("INSERT INTO w VALUES (9, 9, 'n')")  # committed, not binlogged
    t("SET sql_log_bin = 1")
    p("INSERT INTO w VALUES (?, ?, ?)", (10, 10, "p"))
    t("SELECT LAST_INSERT_ID(), ROW_COUNT()")
    p("SELECT id, v FROM a ORDER BY id")


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
    """`work` on a fresh master with COMMITs and autocommit writes begun on receipt, then with
    `run_commit_now` and `run_write_ending_now` declining them all (the statement path): per
    run, what `work` returned, the binlog's statements and how many were begun on receipt."""
    runs = []
    for path in ("receipt", "task"):
        with monkeypatch.context() as m:
            if path == "task":
                m.setattr(ClientSession, "run_commit_now", lambda self, *args: None)
                m.setattr(ClientSession, "run_write_ending_now", lambda self, *args: None)
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
    """How many COMMITs `run_commit_now` and autocommit writes `run_write_ending_now` began
    (handed to the task: ANSWERED_LATER); at each, in the same step, the transaction is in the
    group commit's queue and a leader holds or waits for the writer lock."""
    count = [0]

    def counting(original):
        def counted(self, *args):
            result = original(self, *args)
            if result is ANSWERED_LATER:
                count[0] += 1
                pipeline = self.server.role.source.pipeline
                assert [t for t in pipeline._queue if t.session is self]
                lock = self.server.engine.writer_lock
                assert lock.owner is pipeline or any(owner is pipeline for _, owner, _ in lock._waiters)
            return result
        return counted

    for name in ("run_commit_now", "run_write_ending_now"):
        monkeypatch.setattr(ClientSession, name, counting(getattr(ClientSession, name)))
    return count


def _wire_and_binlog(tmp_path, monkeypatch, begun, steps, final: str):
    """`_both_paths` of `_two_clients(steps)`, each run's answers with the bytes its clients
    were sent (per connection, after the greeting and the login's answer)."""
    sent: dict[int, list[bytes]] = {}
    original_write = ClientSession.write

    def write(self, data: bytes) -> None:
        sent.setdefault(self.connection_id, []).append(bytes(data))
        original_write(self, data)

    monkeypatch.setattr(ClientSession, "write", write)

    def script(port: int) -> tuple[list[Any], list[bytes]]:
        sent.clear()  # (the set-up's connections)
        answers = _two_clients(port, steps, final)
        # per connection, after its greeting and login answer (a random salt, its id)
        return answers, [data for _, out in sorted(sent.items()) for data in out[2:]]

    return _both_paths(tmp_path, monkeypatch, begun, script)


def _same_wire(wire: list[bytes], wire2: list[bytes]) -> None:
    assert len(wire) == len(wire2) > 30
    for i, (a, b) in enumerate(zip(wire, wire2, strict=True)):
        assert a == b, f"write {i}: {a.hex()} / {b.hex()}"


def _logged(binlog: list[str]) -> list[str]:
    return [re.sub(r"^use `d1`; ", "", s) for s in binlog
            if not s.startswith(("CREATE", "use `d1`; CREATE", "BEGIN", "COMMIT"))]


async def test_both_paths_send_the_same_bytes_and_binlog_the_same(tmp_path, monkeypatch, begun):
    runs = await _wire_and_binlog(tmp_path, monkeypatch, begun, _transactions, "SELECT * FROM w ORDER BY id")
    ((answers, wire), binlog, on_receipt), ((answers2, wire2), binlog2, on_receipt2) = runs
    assert on_receipt == 1 + 6 and on_receipt2 == 0  # (SETUP's INSERT, then six COMMITs)
    assert answers == answers2
    assert answers[-1] == [(1, 11, "a"), (2, 21, "x"), (4, 99, "d")]
    assert ("t", "COMMIT RELEASE", "error", 1235) in answers
    assert binlog == binlog2
    assert _logged(binlog) == [
        "INSERT INTO d1.w VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')",
        "UPDATE w SET k = k + 1 WHERE id = 1",
        "INSERT INTO w VALUES (4, 40, 'd')",
        "UPDATE w SET c = 'x' WHERE id = 2",
        "DELETE FROM w WHERE id = 3",
        "UPDATE w SET k = k + 1 WHERE id = 2",
    ]
    _same_wire(wire, wire2)


async def test_autocommit_writes_send_the_same_bytes_and_binlog_the_same(tmp_path, monkeypatch, begun):
    runs = await _wire_and_binlog(tmp_path, monkeypatch, begun, _autocommit_writes, "SELECT * FROM w ORDER BY id")
    ((answers, wire), binlog, on_receipt), ((answers2, wire2), binlog2, on_receipt2) = runs
    # SETUP's INSERT, then each write that ran but the three whose plans are not bounded (the
    # upsert, the range UPDATE, REPLACE: the writer thread's, so the statement path's)
    assert on_receipt == 1 + 6 and on_receipt2 == 0
    assert answers == answers2
    assert answers[-1] == [(1, 10, "a"), (2, 7, "r"), (9, 9, "n"), (10, 10, "p")]
    assert answers[-2] == ("p", "SELECT id, v FROM a ORDER BY id", [(1, 11), (2, 2), (3, 3)], 0, False)
    assert ("p", "INSERT INTO a (v) VALUES (?)", 1, 1, False) in answers
    assert ("t", "INSERT INTO a (v) VALUES (2), (3)", 2, 2) in answers
    assert [a[3] for a in answers if a[2] == "error"] == [1062, 1062, 1146]
    affected = {a[1]: a[2] for a in answers if a[0] == "t"}
    assert affected["INSERT INTO a (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v + 10"] == 2
    assert binlog == binlog2
    assert _logged(binlog)[1:] == [
        "INSERT INTO a (v) VALUES (1)",
        "INSERT INTO a (v) VALUES (2), (3)",
        "INSERT INTO a (id, v) VALUES (1, 1) ON DUPLICATE KEY UPDATE v = v + 10",
        "UPDATE w SET k = k + 5 WHERE id > 1",
        "UPDATE w SET k = k WHERE id = 1",
        "DELETE FROM w WHERE id = 3",
        "REPLACE INTO w VALUES (2, 7, 'r')",
        "INSERT INTO w VALUES (10, 10, 'p')",
    ]
    _same_wire(wire, wire2)


P = 1_000_003


def _binlog_insert_ids(port: int) -> list[int]:
    """The INSERT_ID of each Intvar event in the binlog, in its order."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW BINARY LOGS")
            ids = []
            for (name, *_rest) in cur.fetchall():
                cur.execute(f"SHOW BINLOG EVENTS IN '{name}'")
                ids += [int(row[5].partition("=")[2]) for row in cur.fetchall()
                        if row[2] == "Intvar" and row[5].startswith("INSERT_ID=")]
            return ids
    finally:
        conn.close()


def _contend(port: int, mixed: bool, threads: int = 6, each: int = 25) -> tuple[int, list[int]]:
    """`threads` clients, each `each` transactions (`mixed`: two thirds explicit transactions of
    one step on row 1 of `w`, the others autocommit INSERTs into `q`, whose AUTO_INCREMENT
    numbers them in the engine's order; else all such INSERTs): row 1's value after them, and
    the binlog's INSERT_IDs in its order."""
    _query(port, "CREATE TABLE d1.q (id INT AUTO_INCREMENT PRIMARY KEY, who INT NOT NULL)")

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
                if not mixed or (n + i) % 3 == 0:  # an autocommit write: a transaction of its own
                    cur.execute(f"INSERT INTO q (who) VALUES ({n})")
                    continue
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
            return cur.fetchone()[0], _binlog_insert_ids(port)
    finally:
        conn.close()


@pytest.mark.parametrize("mixed", [True, False], ids=["mixed", "autocommit"])
async def test_the_binlog_order_is_the_engine_order(tmp_path, begun, mixed):
    (final, insert_ids), binlog = await _run(tmp_path, "contend", lambda port: _contend(port, mixed))
    autocommit = sum(1 for n in range(6) for i in range(25) if not mixed or (n + i) % 3 == 0)
    # SETUP's INSERT and every COMMIT begun on receipt; an autocommit INSERT is when it finds
    # the writer lock free and nobody waiting, else it takes the statement path
    assert 1 + 6 * 25 - autocommit <= begun[0] <= 1 + 6 * 25
    if not mixed:
        assert begun[0] > 1
    assert insert_ids == list(range(1, autocommit + 1))  # the engine's numbering, in the binlog's order
    steps = [int(m.group(1)) for s in binlog if (m := re.search(r"SET k = \(k \* 3 \+ (\d+)\)", s))]
    assert len(steps) == 6 * 25 - autocommit
    v = 10
    for n in steps:
        v = (v * 3 + n) % P
    assert v == final


def _processlist_while_committing(port: int, prepared: bool, statement: str) -> tuple[Any, ...]:
    """The committing session's SHOW PROCESSLIST row (Command, State, Info) while `statement`
    (COMMIT after a write, or an autocommit write) waits for a semi-sync ack no slave sends
    (until rpl_semi_sync_master_timeout)."""
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
        if statement == "COMMIT":
            cur.execute("BEGIN")
            cur.execute("UPDATE w SET k = k + 1 WHERE id = 1")
        committing = threading.Thread(target=cur.execute, args=(statement,))
        committing.start()
        seen: tuple[Any, ...] = ()
        with watcher.cursor() as w:
            for _ in range(100):
                w.execute("SHOW PROCESSLIST")
                rows = [r for r in w.fetchall() if r[7] == statement and r[6]]  # (once in its wait)
                if rows:
                    seen = (rows[0][4], rows[0][6], rows[0][7])
                    break
                threading.Event().wait(0.01)
        committing.join()
        return seen
    finally:
        conn.close()
        watcher.close()


@pytest.mark.parametrize("statement", ["COMMIT", "UPDATE w SET k = k + 1 WHERE id = 2"], ids=["commit", "autocommit"])
@pytest.mark.parametrize("prepared", [True, False], ids=["prepared", "text"])
async def test_a_commit_begun_on_receipt_shows_in_the_processlist_as_on_the_statement_path(
        tmp_path, monkeypatch, begun, prepared, statement):
    (row, _, on_receipt), (row2, _, on_receipt2) = await _both_paths(
        tmp_path, monkeypatch, begun, lambda port: _processlist_while_committing(port, prepared, statement))
    assert (on_receipt, on_receipt2) == (1 + 1, 0)  # (SETUP's INSERT)
    assert row == row2 == ("Execute" if prepared else "Query", "Waiting for semi-sync ACK from slave", statement)
