"""A write inside a transaction answered in the receive callback (server/prepared.py
`answer_on_receipt` for COM_STMT_EXECUTE, `ClientSession._query_on_receipt` for COM_QUERY ->
`ClientSession.run_write_now` -> engine `Session.write_now`) against the statement path every
other command takes (`run_statement`), with real clients against the server shell
(mysql-connector-python's pure-Python prepared cursor; PyMySQL's text protocol):

- the same transactions (INSERT, REPLACE, UPDATE and DELETE by primary key; writes that fail
  with 1062, 1048, 1264, 1406; a read of the transaction's own writes; LAST_INSERT_ID(),
  ROW_COUNT(), SHOW WARNINGS, the Com_* counters; COMMIT and ROLLBACK; autocommit off) send the
  client the same bytes, leave the same rows and hand the role the same statements to binlog,
  and the callback really answered the writes;
- what it must leave to the session's task: an autocommit write (its commit is the group
  commit's), a first write while another transaction holds the writer lock (it waits, then
  runs), a write the loop may not run (not by key, RETURNING), a write under FLUSH TABLES WITH
  READ LOCK (1223);
- a transaction's writes answered on receipt stay invisible to other sessions until COMMIT,
  and ROLLBACK undoes them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pymysql
import pytest
from hypothesis import strategies as st

from engine.session import Session
from protocol.binary import ParamType
from protocol.errors import SQLError
from protocol.messages import FieldType
from server import prepared
from server.admin import Admin
from server.role import NullRole
from server.session import ClientSession
from tests.support.server_shell import ShellServer
from tests.unit.test_prepared_reads import _client, wire  # noqa: F401 (a fixture)

mysql_connector = pytest.importorskip("mysql.connector")

TABLE = "CREATE TABLE w (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c CHAR(10), s SMALLINT)"


class _Recording(NullRole):
    """NullRole that keeps the statements of every transaction handed to it (what a master binlogs)."""

    def __init__(self) -> None:
        super().__init__()
        self.logged: list[list[str]] = []

    async def commit(self, session, txn) -> None:
        self.logged.append([s.sql for s in txn.statements])
        await super().commit(session, txn)


@contextlib.contextmanager
def seeded_shell(datadir: Path) -> Iterator[ShellServer]:
    """A server shell recording what it commits, with d1.w holding three rows."""
    with ShellServer(datadir, role=_Recording) as server:
        with server.connect(autocommit=True) as conn, conn.cursor() as cur:
            cur.execute("CREATE DATABASE d1")
            cur.execute("USE d1")
            cur.execute(TABLE)
            cur.execute("INSERT INTO w (id, k, c) VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
        yield server


@pytest.fixture
def shell(tmp_path):
    with seeded_shell(tmp_path) as server:
        yield server


@pytest.fixture
def answered(monkeypatch):
    """How many writes the engine ran on the loop at once (`Session.write_now` or, for a prepared
    write with plain values, `write_kept` answered or failed)."""
    ran = [0]

    def counting(original):
        def counted(self, *args):
            try:
                result = original(self, *args)
            except SQLError:
                ran[0] += 1
                raise
            ran[0] += result is not None
            return result
        return counted

    monkeypatch.setattr(Session, "write_now", counting(Session.write_now))
    monkeypatch.setattr(Session, "write_kept", counting(Session.write_kept))
    return ran


def _role(shell: ShellServer) -> _Recording:
    assert shell.server is not None
    return shell.server.role  # type: ignore[return-value]


WRITES = [
    ("UPDATE w SET k=k+1 WHERE id=?", (1,)),
    ("UPDATE w SET c=? WHERE id=?", ("zz", 2)),
    ("DELETE FROM w WHERE id=?", (3,)),
    ("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (3, 33, "new")),
    ("INSERT INTO w (k, c) VALUES (?, ?)", (40, "auto")),  # AUTO_INCREMENT: LAST_INSERT_ID()
    ("REPLACE INTO w (id, k, c) VALUES (?, ?, ?)", (2, 22, "rep")),  # not the loop's: the writer thread's
    ("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (1, 1, "dup")),  # 1062
    ("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (9, None, "null")),  # 1048; a NULL: not the loop's
    ("UPDATE w SET s=? WHERE id=?", (70000, 1)),  # 1264
    ("UPDATE w SET c=? WHERE id=?", ("x" * 11, 1)),  # 1406
    ("UPDATE w SET k=k+? WHERE id=?", (5, 99)),  # no row: 0 affected
    ("DELETE FROM w WHERE id=?", (4,)),
]


class _Text:
    """PyMySQL (COM_QUERY, values quoted by the client) behind the calls `_script` makes."""

    Error = pymysql.MySQLError

    def __init__(self, shell: ShellServer) -> None:
        self.conn = shell.connect(autocommit=True, database="d1")

    def cursor(self, prepared: bool = False) -> Any:
        cur = self.conn.cursor()
        if prepared:  # the connector's placeholders
            execute = cur.execute
            cur.execute = lambda sql, values=None: execute(sql.replace("?", "%s"), values)
        return cur

    def errno(self, exc: Exception) -> int:
        return exc.args[0]

    def start_transaction(self) -> None:
        self.conn.begin()

    def set_autocommit(self, on: bool) -> None:
        self.conn.autocommit(on)

    def commit(self) -> None:
        self.conn.commit()

    def rollback(self) -> None:
        self.conn.rollback()

    def close(self) -> None:
        self.conn.close()


class _Prepared(_Text):
    """mysql-connector-python's pure-Python prepared cursor (COM_STMT_EXECUTE)."""

    Error = mysql_connector.Error

    def __init__(self, shell: ShellServer) -> None:
        self.conn = _client(shell)

    def cursor(self, prepared: bool = False) -> Any:
        return self.conn.cursor(prepared=prepared)

    def errno(self, exc: Exception) -> int:
        return exc.errno  # type: ignore[attr-defined]

    def start_transaction(self) -> None:
        self.conn.start_transaction()

    def set_autocommit(self, on: bool) -> None:
        self.conn.autocommit = on


def _script(shell: ShellServer, client: type[_Text]) -> list[object]:
    """Three transactions of writes (committed, rolled back, autocommit off), the client's view
    after each statement."""
    answers: list[object] = []
    conn = client(shell)
    try:
        cur = conn.cursor(prepared=True)
        text = conn.cursor()

        def look(sql: str) -> None:
            text.execute(sql)
            answers.append([tuple(row) for row in text.fetchall()])

        for end in ("commit", "rollback", "autocommit off"):
            if end == "autocommit off":
                conn.set_autocommit(False)
            else:
                conn.start_transaction()
            for sql, values in WRITES:
                try:
                    cur.execute(sql, values)
                    answers.append((cur.rowcount, cur.lastrowid))
                except client.Error as exc:
                    answers.append(("error", conn.errno(exc)))
                    look("SHOW WARNINGS")
            look("SELECT LAST_INSERT_ID(), ROW_COUNT()")
            look("SELECT * FROM w ORDER BY id")  # the transaction's own writes
            conn.rollback() if end == "rollback" else conn.commit()
            look("SELECT * FROM w ORDER BY id")
        conn.set_autocommit(True)
        look("SHOW SESSION STATUS WHERE Variable_name IN ('Com_insert', 'Com_update', 'Com_delete',"
             " 'Com_replace', 'Com_stmt_execute', 'Questions')")
    finally:
        conn.close()
    return answers


@pytest.mark.parametrize("client", [_Prepared, _Text], ids=["prepared", "text"])
def test_both_paths_send_the_same_bytes_and_log_the_same(tmp_path, wire, answered, monkeypatch, client):  # noqa: F811
    """The script on a fresh server twice: the receive callback answering the writes
    (`answer_on_receipt` for COM_STMT_EXECUTE, `_query_on_receipt` for COM_QUERY), then the
    session's task answering every command."""
    runs = both_paths(tmp_path, wire, monkeypatch, answered, "run_write_now", lambda shell: _script(shell, client))
    (answers, sent, logged, on_loop), (answers2, sent2, logged2, on_loop2) = runs
    assert on_loop == 3 * (len(WRITES) - 2) and on_loop2 == 0  # every write but two at once, or none
    assert answers == answers2
    assert ("error", 1062) in answers and ("error", 1048) in answers and ("error", 1264) in answers
    assert ("error", 1406) in answers
    assert logged == logged2 and len(logged) == 2 and len(logged[0]) == 8  # the rolled back one never
    assert "INSERT INTO w (id, k, c) VALUES (3, 33, 'new')" in logged[0]
    assert len(sent) > 60
    assert_same_bytes(sent, sent2)


def both_paths(tmp_path: Path, wire: list[bytes], monkeypatch: Any, answered: list[int], now: str,  # noqa: F811
               script: Callable[[ShellServer], list[Any]]) -> list[tuple]:
    """`script` on a fresh `seeded_shell` twice: the receive callback answering what it may,
    then the session's task answering every command (`ClientSession.now`, `_com_query`'s way
    to the loop, off too). Per run: the script's answers, the bytes sent, the transactions
    handed to the role and how much `answered` counted."""
    runs = []
    for path in ("receipt", "task"):
        with monkeypatch.context() as m:
            if path == "task":
                m.setattr(prepared.PreparedStatements, "execute_on_receipt", lambda self, payload: False)
                m.setattr(ClientSession, "_query_on_receipt", lambda self, event: False)
                m.setattr(ClientSession, now, lambda self, sql, keyword: None)
            with seeded_shell(tmp_path / path) as shell:
                del wire[:]
                before, logged = answered[0], len(_role(shell).logged)
                answers = script(shell)
                runs.append((answers, wire[2:], _role(shell).logged[logged:], answered[0] - before))
    return runs


def assert_same_bytes(sent: list[bytes], sent2: list[bytes]) -> None:
    assert len(sent) == len(sent2)
    for i, (a, b) in enumerate(zip(sent, sent2, strict=True)):
        assert a == b, f"write {i}: {a.hex()} / {b.hex()}"


def test_what_the_callback_leaves_to_the_task(shell, answered):
    holder, other = _client(shell), _client(shell)
    try:
        h, o = holder.cursor(prepared=True), other.cursor(prepared=True)
        o.execute("UPDATE w SET k=k+1 WHERE id=?", (1,))  # autocommit: the group commit's
        assert answered[0] == 0
        holder.start_transaction()
        h.execute("UPDATE w SET k=k+1 WHERE id=?", (2,))  # the lock was free: taken at once
        assert answered[0] == 1
        other.start_transaction()
        done = threading.Event()

        def other_transaction() -> None:
            o.execute("UPDATE w SET k=k+1 WHERE id=?", (1,))  # waits for the holder's transaction
            done.set()
            o.execute("UPDATE w SET k=k+1 WHERE id=?", (2,))  # holds the lock now: at once
            other.commit()  # (the holder's commit queues on the writer lock behind this transaction)


        waiter = threading.Thread(target=other_transaction)
        waiter.start()
        assert not done.wait(0.3)
        h.execute("UPDATE w SET k=k+? WHERE k>=?", (1, 0))  # not by key: the writer thread's
        h.execute("DELETE FROM w WHERE id=? RETURNING k", (3,))  # rows back: the statement path
        assert h.fetchall() == [(31,)]
        assert answered[0] == 1
        holder.commit()
        assert done.is_set()
        waiter.join()
        assert answered[0] == 2
        text = holder.cursor()
        text.execute("SELECT id, k FROM w ORDER BY id")
        assert text.fetchall() == [(1, 13), (2, 23)]
        text.execute("FLUSH TABLES WITH READ LOCK")
        holder.start_transaction()
        with pytest.raises(mysql_connector.Error) as refused:
            h.execute("UPDATE w SET k=k+1 WHERE id=?", (1,))
        assert refused.value.errno == 1223
        holder.rollback()
        text.execute("UNLOCK TABLES")
        assert answered[0] == 2
    finally:
        holder.close()
        other.close()


def test_writes_answered_at_once_stay_in_their_transaction(shell, answered):
    writer, reader = _client(shell), _client(shell)
    try:
        w, r = writer.cursor(prepared=True), reader.cursor()
        writer.start_transaction()
        w.execute("UPDATE w SET c=? WHERE id=?", ("mine", 1))
        w.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (7, 70, "seven"))
        w.execute("DELETE FROM w WHERE id=?", (2,))
        assert answered[0] == 3
        r.execute("SELECT id, c FROM w ORDER BY id")
        assert r.fetchall() == [(1, "a"), (2, "b"), (3, "c")]
        writer.rollback()
        r.execute("SELECT id, c FROM w ORDER BY id")
        assert r.fetchall() == [(1, "a"), (2, "b"), (3, "c")]
        writer.start_transaction()
        w.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (7, 70, "seven"))
        writer.commit()
        r.execute("SELECT id, c FROM w ORDER BY id")
        assert r.fetchall() == [(1, "a"), (2, "b"), (3, "c"), (7, "seven")]
        assert _role(shell).logged[-1] == ["INSERT INTO w (id, k, c) VALUES (7, 70, 'seven')"]
    finally:
        writer.close()
        reader.close()


def test_a_prepared_write_s_handlers_are_asked_when_it_is_prepared_not_per_execution(shell, answered, monkeypatch):
    """No role or admin handler claims an INSERT/UPDATE/DELETE/REPLACE, and none can later
    (their claims are fixed once the server runs): a prepared write's executions answered on
    receipt ask neither."""
    assert shell.server is not None
    role, admin = shell.server.role, shell.server.admin
    asked: list[str] = []
    for owner in (role, admin):
        original = owner.claims

        def claims(*args, _original=original):
            asked.append(args[-1])
            return _original(*args)

        monkeypatch.setattr(owner, "claims", claims)
    writer = _client(shell)
    try:
        w = writer.cursor(prepared=True)
        writer.start_transaction()
        w.execute("UPDATE w SET k=k+? WHERE id=?", (1, 1))  # prepared, then executed
        prepared_asks = list(asked)
        w.execute("UPDATE w SET k=k+? WHERE id=?", (1, 2))
        w.execute("UPDATE w SET k=k+? WHERE id=?", (1, 3))
        executions_asked = asked[len(prepared_asks):]
        writer.commit()
        assert answered[0] == 3
        assert "UPDATE W" in prepared_asks and executions_asked == []
        text = writer.cursor()
        text.execute("SELECT id, k FROM w ORDER BY id")
        assert text.fetchall() == [(1, 11), (2, 21), (3, 31)]
    finally:
        writer.close()


@pytest.mark.parametrize("prepared_cursor", [True, False], ids=["prepared", "text"])
def test_a_write_answered_on_receipt_follows_the_session_s_sql_mode(shell, answered, prepared_cursor):
    """A write answered on receipt is planned under the session's sql_mode, as the statement
    path plans it: without strict mode an out-of-range value is stored clipped with the warning
    1264 (MariaDB's), not refused as strict mode refuses it."""
    writer = _client(shell)
    try:
        setup = writer.cursor()
        setup.execute("SET SESSION sql_mode=''")
        w = writer.cursor(prepared=prepared_cursor)
        writer.start_transaction()
        w.execute("UPDATE w SET s=%s WHERE id=%s" if not prepared_cursor else "UPDATE w SET s=? WHERE id=?",
                  (70000, 1))
        assert answered[0] == 1
        setup.execute("SHOW WARNINGS")
        assert setup.fetchall() == [("Warning", 1264, "Out of range value for column 's' at row 1")]
        writer.commit()
        setup.execute("SELECT s FROM w WHERE id=1")
        assert setup.fetchall() == [(32767,)]
    finally:
        writer.close()


def test_a_transaction_s_statements_are_read_once_each(shell, answered, monkeypatch):
    """Answered on receipt, a prepared write's text with plain values is read (its stored
    functions' calls looked for, `Session._expanded`) by its first execution only, which keeps
    its plan (engine `KeptWrite`), and a BEGIN's text, whose plan its session keeps, not again
    after its first transaction (this role commits on the statement path, which reads the
    COMMIT)."""
    read: list[str] = []
    original = Session._expanded

    def counted(self, sql):
        read.append(sql)
        return original(self, sql)

    writer = _client(shell)
    try:
        begin, update, commit = (writer.cursor(prepared=True) for _ in range(3))
        for n in range(3):
            if n == 1:
                monkeypatch.setattr(Session, "_expanded", counted)
            begin.execute("BEGIN")
            update.execute("UPDATE w SET k=k+? WHERE id=?", (1, n + 1))
            commit.execute("COMMIT")
        assert answered[0] == 3
        assert read == ["COMMIT", "COMMIT"]
        assert [s for txn in _role(shell).logged[-3:] for s in txn] == [
            f"UPDATE w SET k=k+1 WHERE id={n}" for n in (1, 2, 3)]
    finally:
        writer.close()


def test_a_prepared_transaction_s_executions_ask_nothing_decided_when_prepared(shell, answered, monkeypatch):
    """Answered on receipt on a utf8 connection, a prepared BEGIN and a write of integer values
    ask no handler's claims (decided when they were prepared), bind each integer without a
    `literal` frame, read their values without `in_client_charset` (nothing to convert), and
    whether the session writes inside a transaction is asked once per execution (the callback's
    question; the engine's `write_now` tests its fields)."""
    asked: list[str] = []

    def spied(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def spy(*args: Any, **kwargs: Any) -> Any:
            asked.append(name)
            return original(*args, **kwargs)
        return spy

    writer = _client(shell)
    try:
        begin, update = (writer.cursor(prepared=True) for _ in range(2))
        begin.execute("BEGIN")
        update.execute("UPDATE w SET k=k+? WHERE id=?", (1, 1))
        writer.rollback()
        monkeypatch.setattr(prepared, "literal", spied("literal", prepared.literal))
        monkeypatch.setattr(prepared, "in_client_charset", spied("in_client_charset", prepared.in_client_charset))
        monkeypatch.setattr(Admin, "claims", spied("Admin.claims", Admin.claims))
        monkeypatch.setattr(_Recording, "claims", spied("Role.claims", _Recording.claims))
        writes_in_transaction = Session.writes_in_transaction.fget
        monkeypatch.setattr(Session, "writes_in_transaction",
                            property(spied("writes_in_transaction", writes_in_transaction)))
        begin.execute("BEGIN")
        update.execute("UPDATE w SET k=k+? WHERE id=?", (5, 2))
        assert answered[0] == 2
        assert asked == ["writes_in_transaction", "writes_in_transaction"]
        writer.commit()
        assert _role(shell).logged[-1] == ["UPDATE w SET k=k+5 WHERE id=2"]
    finally:
        writer.close()


KEPT = {
    "k": "UPDATE w SET k=k+1 WHERE id=?",
    "c": "UPDATE w SET c=? WHERE id=?",
    "s": "UPDATE w SET s=? WHERE id=?",
    "insert": "INSERT INTO w (id, k, c, s) VALUES (?, ?, ?, ?)",
    "delete": "DELETE FROM w WHERE id=?",
}


def _kept_script(shell: ShellServer) -> list[object]:
    """Three transactions of one connection's prepared writes, each statement prepared once
    (a cursor of its own, as sysbench's): strict, after SET sql_mode = '', after sql_mode back
    and an ALTER TABLE that widens a column; the client's view after each write that fails or
    warns, and of the table after each COMMIT."""
    answers: list[object] = []
    conn = _client(shell)
    try:
        cursors = {name: conn.cursor(prepared=True) for name in KEPT}
        text = conn.cursor()

        def look(sql: str) -> None:
            text.execute(sql)
            answers.append([tuple(row) for row in text.fetchall()])

        def write(name: str, *values: object) -> None:
            cur = cursors[name]
            try:
                cur.execute(KEPT[name], values)
                answers.append((cur.rowcount, cur.lastrowid, cur.warning_count))
            except mysql_connector.Error as exc:
                answers.append(("error", exc.errno))
            look("SHOW WARNINGS")

        for n in range(3):
            if n == 1:
                text.execute("SET SESSION sql_mode = ''")
            elif n == 2:
                text.execute("SET SESSION sql_mode = DEFAULT")
                text.execute("ALTER TABLE w MODIFY s INT")
            conn.start_transaction()
            write("k", 1)
            write("k", 2)
            write("c", f"round{n}", 1)
            write("s", 70000, 2)  # strict: 1264; else 32767 and a warning; after the ALTER, stored
            write("c", "x" * 11, 3)  # strict: 1406; else cut, with a warning
            write("insert", 10 + n, n, "new", n)
            write("insert", 1, 0, "dup", 0)  # 1062
            write("delete", 9 + n)
            conn.commit()
            look("SELECT * FROM w ORDER BY id")
    finally:
        conn.close()
    return answers


def test_a_kept_write_answers_as_its_text_across_the_session_s_changes(tmp_path, wire, answered, monkeypatch):  # noqa: F811
    """Prepared writes executed again and again with plain values run through the plan their
    first execution kept (engine `KeptWrite`), kept again after sql_mode or the table changed:
    the same bytes to the client, rows and binlogged statements as the session's task sends,
    leaves and logs, where every command takes the statement path."""
    keeps: list[bool] = []
    keep = Session._keep_write

    def counted(self, *args):
        keeps.append(keep(self, *args))
        return keeps[-1]

    monkeypatch.setattr(Session, "_keep_write", counted)
    (answers, sent, logged, on_loop), (answers2, sent2, logged2, on_loop2) = both_paths(
        tmp_path, wire, monkeypatch, answered, "run_write_now", _kept_script)
    assert on_loop == 3 * 8 and on_loop2 == 0
    assert keeps == [True] * 3 * len(KEPT)  # each statement kept once per round, then run through it
    assert answers == answers2
    errors = [a[1] for a in answers if isinstance(a, tuple) and a[0] == "error"]
    assert errors == [1264, 1406, 1062, 1062, 1406, 1062]
    assert logged == logged2
    assert sum("UPDATE w SET s=70000 WHERE id=2" in txn for txn in logged) == 2  # (not strict mode's)
    assert_same_bytes(sent, sent2)


_PARAM_TYPES = [ParamType(t) for t in (FieldType.LONGLONG, FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB,
                                       FieldType.NEWDECIMAL, FieldType.DOUBLE, FieldType.NULL)]
_VALUES = st.one_of(
    st.integers(min_value=-(1 << 64), max_value=1 << 64), st.binary(max_size=6),
    st.text(max_size=6).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"a'b", b"a\\b", b"a@b", b"a/*b", b"\xff\xfe", b"12.5", None, 2.5, True, "text", b"plain"]),
)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(st.lists(st.tuples(_VALUES, st.sampled_from(_PARAM_TYPES)), max_size=4))
def test_a_write_s_binding_reads_its_plain_values_as_bind_and_plain_values_do(params):
    """`bind_write` (one pass over an execution's values for a write answered on receipt) gives
    `bind`'s text and warnings and `_plain_values`' values (around pieces holding `%`)."""
    values, types = [v for v, _ in params], [t for _, t in params]
    stmt = prepared.PreparedStatement(1, ["INSERT INTO t VALUES ('%s%%', ", *[", "] * max(len(values) - 1, 0), ")"]
                                      if values else ["DELETE FROM t WHERE c LIKE '%d%%'"])
    warned: list = []
    warned2: list = []
    assert stmt.bind_write(values, types, warned) == (stmt.bind(values, types, warned2),
                                                      prepared._plain_values(values, types))
    assert warned == warned2


def _spied_gate(monkeypatch) -> list[str]:
    """The shell's tests of a text answered on receipt, as they are asked, in order: a prepared
    statement's once per stored functions (`passes_text`, with what it found) and a text's
    whole (`_loop_answers`)."""
    asked: list[str] = []
    passes_text, loop_answers = getattr(prepared.PreparedStatement, "passes_text", None), ClientSession._loop_answers

    def passes(self, routines):
        found = passes_text(self, routines)
        asked.append(f"passes_text {found}")
        return found

    def whole(self, statement, keyword):
        asked.append("_loop_answers")
        return loop_answers(self, statement, keyword)

    monkeypatch.setattr(prepared.PreparedStatement, "passes_text", passes, raising=False)
    monkeypatch.setattr(ClientSession, "_loop_answers", whole)
    return asked


# a stored function its callers may not run: its definer is no account (1449 at each call)
_ORPHAN = "CREATE DEFINER=nobody@'%' FUNCTION d1.{}(x INT) RETURNS INT DETERMINISTIC RETURN x + 1"


def test_a_prepared_statement_s_text_is_asked_once_per_stored_functions(shell, answered, monkeypatch):
    """A prepared BEGIN, writes with plain values and COMMIT answered on receipt: the shell's tests
    of their text (no executable comment, no stored function's call) are asked once per
    statement while the stored functions stay, not per execution; asked again when a CREATE or
    DROP FUNCTION changed them, and per execution while a function exists for the statements
    whose values could name it (the writes; BEGIN and COMMIT have no `(`)."""
    conn = _client(shell)
    text = conn.cursor()
    try:
        begin, update, insert, commit = (conn.cursor(prepared=True) for _ in range(4))

        def transaction(n: int) -> None:
            begin.execute("BEGIN")
            update.execute("UPDATE w SET c=? WHERE id=?", (f"t{n}", 1))
            insert.execute("INSERT INTO w (id, k, c) VALUES (?, ?, ?)", (10 + n, n, "new"))
            commit.execute("COMMIT")

        transaction(0)
        asked = _spied_gate(monkeypatch)
        done = answered[0]
        transaction(1)
        transaction(2)
        assert answered[0] - done == 4
        assert asked == []
        text.execute(_ORPHAN.format("f"))
        transaction(3)
        transaction(4)
        assert asked == ["passes_text True", "passes_text False", "_loop_answers", "passes_text False",
                         "_loop_answers", "passes_text True", "_loop_answers", "_loop_answers"]
        del asked[:]
        text.execute("DROP FUNCTION d1.f")
        transaction(5)
        transaction(6)
        assert asked == ["passes_text True"] * 4
        assert answered[0] - done == 2 * 6  # (the writes)
        text.execute("SELECT id, c FROM w WHERE id = 1 OR id > 10 ORDER BY id")
        assert text.fetchall() == [(1, "t6"), *((10 + n, "new") for n in range(1, 7))]
        assert _role(shell).logged[-1] == ["UPDATE w SET c='t6' WHERE id=1", "INSERT INTO w (id, k, c) VALUES (16, 6, 'new')"]
    finally:
        conn.close()


@pytest.mark.parametrize("functions", [False, True])
def test_a_parameter_s_comment_or_call_stays_data(shell, answered, functions):
    """Prepared writes answered on receipt whose values read as an executable comment or a stored
    function's call ("/*!50000 x */", "f()", a placeholder beside a name: `f?(1)` bound with 1
    reads f1(1)), with or without stored functions of those names (of a definer that is no
    account: a call fails with 1449): the strings are stored and binlogged as data, and the
    call a binding spells is checked as its definer."""
    conn = _client(shell)
    text = conn.cursor()
    try:
        text.execute("CREATE TABLE notes (id INT PRIMARY KEY, t VARCHAR(40), n INT)")
        if functions:
            text.execute(_ORPHAN.format("f"))
            text.execute(_ORPHAN.format("f1"))
        begin, insert, joined = (conn.cursor(prepared=True) for _ in range(3))
        values = ["/*!50000 x */", "f()", "f(1)", "/*M!100000 f(2) */", "plain"]
        begin.execute("BEGIN")
        for n, value in enumerate(values):
            insert.execute("INSERT INTO notes (id, t, n) VALUES (?, ?, ?)", (n, value, n))
        with pytest.raises(mysql_connector.Error) as called:
            joined.execute("UPDATE notes SET n=f?(1) WHERE id=?", (1, 0))
        conn.commit()
        assert called.value.errno == (1449 if functions else 1305)
        text.execute("SELECT id, t, n FROM notes ORDER BY id")
        assert text.fetchall() == [(n, value, n) for n, value in enumerate(values)]
        assert _role(shell).logged[-1] == [
            f"INSERT INTO notes (id, t, n) VALUES ({n}, '{value}', {n})" for n, value in enumerate(values)]
        assert answered[0] == (1 if functions else 3)  # (a function's name in a plain value: the task's)
    finally:
        conn.close()
