"""BEGIN / START TRANSACTION answered in the receive callback (server/prepared.py
`answer_on_receipt` for COM_STMT_EXECUTE, `ClientSession._query_on_receipt` for COM_QUERY ->
`ClientSession.run_begin_now` -> engine `Session.begin_now`) against the statement path
(`run_statement`), with real clients against the server shell (PyMySQL's text protocol,
mysql-connector-python's pure-Python prepared cursor):

- a script of transaction starts (BEGIN, BEGIN WORK, START TRANSACTION [READ ONLY | READ WRITE],
  a BEGIN ending a transaction that only read (a REPEATABLE READ snapshot's: the next read sees
  a commit made after it), a BEGIN ending one that wrote (an implicit
  commit), START TRANSACTION WITH CONSISTENT SNAPSHOT, SET TRANSACTION ISOLATION LEVEL then
  BEGIN, reads and writes inside each) sends the client the same bytes, leaves the same rows and
  hands the role the same statements to binlog on both paths;
- the callback answered the plain starts, and left to the session's task the BEGIN that commits
  a transaction that wrote, WITH CONSISTENT SNAPSHOT and the BEGIN after SET TRANSACTION (its
  isolation is restored after the transaction by the statement path).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.session import Session
from tests.support.server_shell import ShellServer
from tests.unit.test_prepared_reads import _client, _count_answers, wire  # noqa: F401 (a fixture)
from tests.unit.test_prepared_writes import assert_same_bytes, both_paths

mysql_connector = pytest.importorskip("mysql.connector")

OTHER = "other"  # the statement runs on another connection (autocommit)
# (statement, prepared): each is sent as text (COM_QUERY) or, with prepared, as COM_STMT_EXECUTE
SCRIPT: list[tuple[str, bool | str]] = [
    ("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", False),
    ("BEGIN", True),  # answered
    ("SELECT k FROM w WHERE id = 2", True),  # the snapshot
    ("UPDATE w SET k = 21 WHERE id = 2", OTHER),
    ("SELECT k FROM w WHERE id = 2", True),  # 20: the snapshot's
    ("BEGIN", False),  # answered: ends the snapshot
    ("SELECT k FROM w WHERE id = 2", True),  # 21
    ("COMMIT", False),
    ("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", False),
    ("BEGIN", True),  # answered
    ("SELECT k FROM w WHERE id = 1", False),
    ("BEGIN WORK", False),  # answered: ends a transaction that only read
    ("UPDATE w SET k = k + 1 WHERE id = 1", False),
    ("BEGIN", True),  # commits the write: the task's
    ("SELECT k FROM w WHERE id = 1", True),
    ("START TRANSACTION READ WRITE", False),  # answered
    ("INSERT INTO w (id, k, c) VALUES (8, 80, 'eight')", False),
    ("ROLLBACK", False),
    ("START TRANSACTION READ ONLY", True),  # answered
    ("COMMIT", False),
    ("START TRANSACTION WITH CONSISTENT SNAPSHOT", False),  # the task's: takes the snapshot now
    ("SELECT COUNT(*) FROM w", False),
    ("COMMIT", True),
    ("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", False),
    ("BEGIN", False),  # the task's: the next transaction's isolation to restore after it
    ("SELECT @@tx_isolation", False),
    ("DELETE FROM w WHERE id = 3", False),
    ("COMMIT", False),
    ("SELECT @@tx_isolation", False),
    ("START TRANSACTION", False),  # answered
    ("UPDATE w SET c = 'x' WHERE id = 2", True),
    ("START TRANSACTION", True),  # commits the update: the task's
    ("COMMIT", False),
    ("SHOW SESSION STATUS WHERE Variable_name IN ('Com_begin', 'Com_commit', 'Com_rollback',"
     " 'Com_stmt_execute', 'Questions')", False),
]
ANSWERED = 7  # the starts marked answered above


def _script(shell: ShellServer) -> list[Any]:
    """The script through mysql-connector (text statements through its plain cursor), the
    client's view after each statement and the rows at the end."""
    conn, other = _client(shell), _client(shell)
    answers: list[Any] = []
    try:
        text, prep = conn.cursor(), conn.cursor(prepared=True)
        for sql, how in SCRIPT:
            if how == OTHER:
                other.cursor().execute(sql)
                continue
            cur = prep if how else text
            cur.execute(sql)
            rows = [tuple(row) for row in cur.fetchall()] if cur.description else None
            answers.append((sql, rows, cur.rowcount, conn.in_transaction))
        text.execute("SELECT * FROM w ORDER BY id")
        answers.append(text.fetchall())
    finally:
        conn.close()
        other.close()
    return answers


def test_both_paths_send_the_same_bytes_and_log_the_same(tmp_path, wire, monkeypatch):  # noqa: F811
    begun = _count_answers(monkeypatch, Session, "begin_now")
    runs = both_paths(tmp_path, wire, monkeypatch, begun, "run_begin_now", _script)
    (answers, sent, logged, on_loop), (answers2, sent2, logged2, on_loop2) = runs
    assert on_loop == ANSWERED and on_loop2 == 0
    assert answers == answers2
    assert [row for row in answers[-2][1] if row[0] == "Com_begin"] == [("Com_begin", "11")]
    assert [answers[3][1], answers[5][1]] == [[(20,)], [(21,)]]  # the snapshot's, then the latest
    assert answers[-1] == [(1, 11, "a", None), (2, 21, "x", None)]
    assert logged == logged2 == [["UPDATE w SET k = 21 WHERE id = 2"], ["UPDATE w SET k = k + 1 WHERE id = 1"],
                                 ["DELETE FROM w WHERE id = 3"], ["UPDATE w SET c = 'x' WHERE id = 2"]]
    assert len(sent) > 30
    assert_same_bytes(sent, sent2)
