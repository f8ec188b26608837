"""A prepared SELECT answered on the loop at once (server/prepared.py `_read_now`): through the
read an earlier execution kept (`KeptRead`, engine `Session.prepare_read` / `read_prepared`), in
the receive callback (`execute_on_receipt`) or in the session's task, or `ClientSession
.run_read_now` of the bound text, against the statement path every other command takes
(`run_statement`), and COM_QUERY's SELECTs through `run_read_now`. Real clients against the
server shell (mysql-connector-python's pure-Python prepared cursor; PyMySQL for COM_QUERY):

- the same statements with the same values send the client the same bytes on all four paths,
  autocommit and inside READ COMMITTED and REPEATABLE READ transactions
  (integers signed and unsigned, CHAR, VARCHAR, TEXT, DECIMAL, DOUBLE, DATETIME(3), DATE, TIME,
  VARBINARY, BIT; NULLs; 0 and 2^63-1; text values; negative numbers, text it would have to
  escape or that holds `@` or `/*`, binary strings and values of other kinds that the kept read
  refuses, shapes it refuses: a typed literal, a second literal, SQL_CALC_FOUND_ROWS,
  LAST_INSERT_ID(expr)), and the kept read really answered executions;
- COM_QUERY: plain reads, multi-statements, admin-claimed, erring, locking and side-effect
  SELECTs send the same bytes on both paths, autocommit and in a transaction;
- a prepare whose NULL probe cannot run (`LIMIT ?`) answers with its columns, as mysqld's;
- what the kept read must not miss: a transaction's snapshot (REPEATABLE READ), its latest
  commit (READ COMMITTED), its own writes, a table altered or dropped after
  the read was kept, another database after USE, an account without the privilege, the session
  state a read leaves (FOUND_ROWS(), warnings cleared, Com_select counted); the role's claims
  asked when the read is kept, not by its executions; on receipt, none of the layers it skips;
- pipelined kept reads answered in order, YIELD_EVERY at a time by the callback, the rest by
  the task;
- errors on receipt: malformed commands behind a kept read get MySQL's errors from the task, a
  statement's error its ERR, our bug ERR 1105 and this connection closed.
"""

from __future__ import annotations

import asyncio
import sys

import pymysql
import pytest

from engine.session import Session
from protocol import binary
from protocol.binary import COM_STMT_EXECUTE, PrepareOK
from protocol.errors import ER_WARN_DATA_OUT_OF_RANGE, SQLError
from server import prepared
from server import session as session_module
from server.session import YIELD_EVERY, ClientSession
from tests.integration.test_server_prepared import (
    LONGLONG,
    error_of,
    execute_body,
    prepare,
    read,
    send,
)
from tests.support.server_shell import ROOT_PASSWORD, ShellServer

mysql_connector = pytest.importorskip("mysql.connector")

TABLE = """CREATE TABLE t (
    id INT PRIMARY KEY, k BIGINT UNSIGNED, c CHAR(20), v VARCHAR(40), d DECIMAL(10,3),
    f DOUBLE, ts DATETIME(3), dt DATE, b VARBINARY(8), tx TEXT, tm TIME, bi BIT(8)
)"""  # no YEAR: the connector's pure-Python binary rows read it as a string (MySQL sends int<2>)
ROWS = [
    "(0, 0, '', '', 0, 0, '2000-01-01 00:00:00', '2000-01-01', X'00', '', '00:00:00', b'0')",
    "(1, 18446744073709551615, 'a  ', 'élan', -12.5, 1.5e300, '2026-12-04 20:40:13.125', '1999-12-31',"
    " X'00FF10', 'text', '-838:59:59', b'10101010')",
    "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
    "(3, 7, 'x', 'y', 3.25, -0.0, '1970-01-01 00:00:01', '0000-00-00', X'', 'z', '12:30:00.5', b'1')",
]

STATEMENTS = [
    ("SELECT * FROM t WHERE id=?", [(0,), (1,), (2,), (3,), (4,), (9223372036854775807,), (-1,), ("1",), (None,)]),
    ("SELECT c, v, d FROM t WHERE id BETWEEN ? AND ? ORDER BY id", [(0, 3), (1, 2), (3, 0)]),
    ("select id, k FROM t WHERE k > ? ORDER BY id DESC LIMIT ?", [(0, 2), (5, 10)]),
    ("SELECT id+? FROM t WHERE id=1", [(1,), (2,)]),  # typed from the literal: not kept
    ("SELECT ?", [(5,), (6,)]),
    ("SELECT c FROM t WHERE id=? AND k=7", [(3,), (3,)]),  # a literal of its own: not kept
    ("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id < ? LIMIT 1", [(3,), (2,)]),
    ("SELECT LAST_INSERT_ID(?)", [(4,), (5,)]),
    ("SELECT COUNT(*), MAX(id) FROM t WHERE id >= ?", [(0,), (2,)]),
    ("SELECT tx FROM t WHERE id=?", [(1,), (2,)]),
    ("SELECT id FROM t WHERE v=? OR c=?", [("élan", "x"), ("y", ""), ("a@b", "x"), ("it's", "x"), ("/*!x", "x"),
                                            ("y", 3), (b"\xff", "x"), ("y", "x")]),  # text values
    ("SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?", [(0, 3), (3, 3)]),  # sysbench's range shapes
    ("SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c", [(0, 3), (1, 1)]),
]


@pytest.fixture
def shell(tmp_path):
    with ShellServer(tmp_path) as server:
        with server.connect(autocommit=True) as conn, conn.cursor() as cur:
            cur.execute("CREATE DATABASE d1")
            cur.execute("CREATE DATABASE d2")
            for db in ("d1", "d2"):
                cur.execute(f"USE {db}")
                cur.execute(TABLE)
            cur.execute("USE d1")
            cur.execute("INSERT INTO t VALUES " + ", ".join(ROWS))
            cur.execute("INSERT INTO d2.t (id, c) VALUES (1, 'other')")
        yield server


def _client(shell: ShellServer, user: str = "root", password: str = ROOT_PASSWORD, database: str | None = "d1"):
    return mysql_connector.connect(host="127.0.0.1", port=shell.port, user=user, password=password,
                                   database=database, use_pure=True, autocommit=True)


@pytest.fixture
def wire(monkeypatch):
    """The bytes every session writes, in order."""
    written: list[bytes] = []
    original = ClientSession.write

    def write(self, data: bytes) -> None:
        written.append(bytes(data))
        original(self, data)

    monkeypatch.setattr(ClientSession, "write", write)
    return written


def _count_answers(monkeypatch, owner: type, name: str) -> list[int]:
    """`owner.name` wrapped: the returned counter counts its calls that answered (a result other
    than None or False)."""
    answered = [0]
    original = getattr(owner, name)

    def counted(self, *args):
        result = original(self, *args)
        answered[0] += result is not None and result is not False
        return result

    monkeypatch.setattr(owner, name, counted)
    return answered


@pytest.fixture
def kept_reads(monkeypatch):
    """How many executions the kept read answered (`read_prepared` through it, or `kept_answer`'s
    one pass)."""
    return _count_answers(monkeypatch, Session, "prepared_rows")


@pytest.fixture
def on_receipt(monkeypatch):
    """How many executions the receive callback answered from a command it read."""
    return _count_answers(monkeypatch, prepared.PreparedStatements, "execute_on_receipt")


@pytest.fixture
def in_lane(monkeypatch):
    """How many executions the receive callback answered from the received bytes alone."""
    return _count_answers(monkeypatch, prepared.PreparedStatements, "kept_answer")


@pytest.fixture
def in_one_pass(monkeypatch):
    """How many of those took `kept_answer`'s one pass (the session's state asking nothing but
    the rows: engine `Session.prepared_rows`, plain, answered)."""
    answered = [0]
    original = Session.prepared_rows

    def counted(self, prepared, args, plain=False):
        rows = original(self, prepared, args, plain)
        answered[0] += plain and rows is not None
        return rows

    monkeypatch.setattr(Session, "prepared_rows", counted)
    return answered


def _run_all(shell: ShellServer) -> list[object]:
    answers: list[object] = []
    conn = _client(shell)
    try:
        cur = conn.cursor(prepared=True)
        # autocommit, then inside a READ COMMITTED and a REPEATABLE READ transaction
        for isolation in (None, "READ COMMITTED", "REPEATABLE READ"):
            if isolation is not None:
                conn.cmd_query(f"SET SESSION TRANSACTION ISOLATION LEVEL {isolation}")
                conn.start_transaction()
            for sql, executions in STATEMENTS:
                for values in executions:
                    try:
                        cur.execute(sql, values)
                        answers.append(cur.fetchall())
                    except mysql_connector.Error as exc:
                        answers.append(("error", exc.errno))
            if isolation is not None:
                conn.commit()
    finally:
        conn.close()
    return answers


PATHS = ("one pass", "lane", "receipt", "kept", "now", "statement")


def test_every_path_sends_the_same_bytes(shell, wire, kept_reads, on_receipt, in_lane, in_one_pass, monkeypatch):
    """The kept read answered in the receive callback from the bytes received (`kept_answer`),
    in its one pass where the session's state allows it (`ClientSession.unhindered`) and
    without it, from the command read (`execute_on_receipt`), the kept read in the session's
    task, the loop's answer of the bound text, the statement path: one after the other on the
    same server, each with a new connection (its login's bytes left out: the greeting's salt and
    connection id differ). The shapes: one and many columns of every type, NULLs, strings,
    empty results."""
    streams = []
    for path in PATHS:
        with monkeypatch.context() as m:
            if path != "one pass":
                m.setattr(ClientSession, "unhindered", lambda self: False)  # (`reads_unhindered` never up)
            if path not in ("one pass", "lane"):
                m.setattr(prepared.PreparedStatements, "kept_answer", lambda self, payload: False)
            if path not in ("one pass", "lane", "receipt"):  # the task answers every command
                m.setattr(prepared.PreparedStatements, "execute_on_receipt", lambda self, payload: False)
            if path in ("now", "statement"):  # the kept read never taken
                m.setattr(prepared, "_plain_values", lambda values, types: None)
            if path == "statement":  # nor the loop's answer: every execution takes run_statement
                m.setattr(ClientSession, "run_read_now", lambda self, sql, keyword: None)
            del wire[:]
            answered = kept_reads[0]
            on_receipt_before, in_lane_before, one_pass_before = on_receipt[0], in_lane[0], in_one_pass[0]
            answers = _run_all(shell)
            streams.append((answers, wire[2:]))
            one_pass = in_one_pass[0] - one_pass_before
            if path == "one pass":  # (the reads inside a transaction take the lane without it)
                assert 0 < one_pass < in_lane[0] - in_lane_before
            else:
                assert one_pass == 0
            if path in ("one pass", "lane", "receipt", "kept"):
                # each pass: every execution after the first of a kept statement, plain integers
                # (the cursor prepares each text again: one statement at a time)
                assert kept_reads[0] - answered == 3 * 12
            else:
                assert kept_reads[0] == answered
            lane, receipt = in_lane[0] - in_lane_before, on_receipt[0] - on_receipt_before
            if path in ("one pass", "lane"):  # once an execution read its values' layout (`execute_on_receipt`)
                assert lane > 0 and lane + receipt == 3 * 12
            elif path == "receipt":
                assert (lane, receipt) == (0, 3 * 12)
            else:
                assert (lane, receipt) == (0, 0)
    answers = [a for a, _ in streams]
    assert any(isinstance(a, list) and a for a in answers[0])
    assert ("error", 1210) not in answers[0]
    assert all(a == answers[0] for a in answers)
    writes = [w for _, w in streams]
    assert len(writes[0]) > 40 and all(len(w) == len(writes[0]) for w in writes)
    for i, sent in enumerate(zip(*writes, strict=True)):
        assert all(x == sent[0] for x in sent), f"write {i}: " + " / ".join(
            f"{path} {x.hex()}" for path, x in zip(PATHS, sent, strict=True))


def _execute(cur, sql, values):
    cur.execute(sql, values)
    return cur.fetchall()


def test_a_transaction_reads_in_its_view(shell, kept_reads):
    reader, writer = _client(shell), _client(shell)
    try:
        cur = reader.cursor(prepared=True)
        sql = "SELECT c FROM t WHERE id=?"
        assert _execute(cur, sql, (3,)) == _execute(cur, sql, (3,)) == [("x",)]
        assert kept_reads[0] == 1
        reader.cmd_query("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        reader.start_transaction()
        assert _execute(cur, sql, (3,)) == [("x",)]  # kept: takes the view (on the loop)
        assert kept_reads[0] == 2
        w = writer.cursor()
        w.execute("UPDATE t SET c='changed' WHERE id=3")
        assert _execute(cur, sql, (3,)) == [("x",)]  # kept, in the snapshot
        assert _execute(cur, sql, (3,)) == [("x",)]
        reader.commit()
        assert _execute(cur, sql, (3,)) == [("changed",)]
        assert kept_reads[0] == 5
        reader.start_transaction()  # its own write seen, after the reads of its view
        assert _execute(cur, "SELECT v FROM t WHERE id=?", (3,)) == [("y",)]
        reader.cursor().execute("UPDATE t SET v='own' WHERE id=3")
        assert _execute(cur, "SELECT v FROM t WHERE id=?", (3,)) == [("own",)]
        reader.rollback()
        assert _execute(cur, "SELECT v FROM t WHERE id=?", (3,)) == [("y",)]
        answered = kept_reads[0]
        reader.cmd_query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
        reader.start_transaction()
        assert _execute(cur, sql, (3,)) == [("changed",)]
        w.execute("UPDATE t SET c='again' WHERE id=3")
        assert _execute(cur, sql, (3,)) == [("again",)]  # READ COMMITTED: each read its latest
        text = reader.cursor()
        text.execute("UPDATE t SET v='mine' WHERE id=3")  # the transaction holds the writer now
        assert _execute(cur, "SELECT c, v FROM t WHERE id=?", (3,)) == [("again", "mine")]
        w2 = _client(shell)
        try:
            c2 = w2.cursor(prepared=True)  # another session sees neither the write nor a torn row
            assert _execute(c2, "SELECT c, v FROM t WHERE id=?", (3,)) == [("again", "y")]
            assert _execute(c2, "SELECT c, v FROM t WHERE id=?", (3,)) == [("again", "y")]
        finally:
            w2.close()
        reader.rollback()
        assert _execute(cur, "SELECT c, v FROM t WHERE id=?", (3,)) == [("again", "y")]
        # kept: the second READ COMMITTED read before the write (the cursor prepared its text
        # again: the first one kept it), the other session's second read
        assert kept_reads[0] - answered == 2
    finally:
        reader.close()
        writer.close()


def test_a_catalog_change_or_another_database_is_seen(shell, kept_reads):
    conn, admin = _client(shell), _client(shell)
    try:
        cur = conn.cursor(prepared=True)
        sql = "SELECT * FROM t WHERE id=?"
        before = _execute(cur, sql, (1,))
        assert _execute(cur, sql, (1,)) == before and kept_reads[0] == 1
        admin.cursor().execute("ALTER TABLE t ADD COLUMN extra INT DEFAULT 42")
        after = _execute(cur, sql, (1,))
        assert after == [before[0] + (42,)]
        assert _execute(cur, sql, (1,)) == after  # kept again, for the new catalog
        assert kept_reads[0] == 2
        conn.cmd_query("USE d2")
        assert _execute(cur, "SELECT c FROM t WHERE id=?", (1,)) == [("other",)]
        assert _execute(cur, "SELECT c FROM t WHERE id=?", (1,)) == [("other",)]
        conn.cmd_query("USE d1")
        assert _execute(cur, "SELECT v FROM t WHERE id=?", (1,)) == [("élan",)]
        assert _execute(cur, "SELECT v FROM t WHERE id=?", (1,)) == [("élan",)]
        admin.cursor().execute("DROP TABLE d1.t")
        with pytest.raises(mysql_connector.Error) as failed:
            _execute(cur, "SELECT v FROM t WHERE id=?", (1,))
        assert failed.value.errno == 1146
    finally:
        conn.close()
        admin.close()


def test_an_account_without_the_privilege_is_refused_each_time(shell, kept_reads):
    with shell.connect(autocommit=True) as root, root.cursor() as cur:
        cur.execute("CREATE USER 'r'@'%' IDENTIFIED BY 'rpw'")
        cur.execute("GRANT SELECT ON d2.* TO 'r'@'%'")
    conn = _client(shell, "r", "rpw", database=None)
    try:
        cur = conn.cursor(prepared=True)
        for _ in range(3):
            with pytest.raises(mysql_connector.Error) as refused:
                _execute(cur, "SELECT c FROM d1.t WHERE id=?", (1,))
            assert refused.value.errno == 1142
        assert _execute(cur, "SELECT c FROM d2.t WHERE id=?", (1,)) == [("other",)]
        assert _execute(cur, "SELECT c FROM d2.t WHERE id=?", (1,)) == [("other",)]
        assert kept_reads[0] == 0
    finally:
        conn.close()


def test_the_session_state_a_read_leaves(shell, kept_reads):
    conn = _client(shell)
    try:
        cur = conn.cursor(prepared=True)
        text = conn.cursor()
        sql = "SELECT id FROM t WHERE id <= ? ORDER BY id"
        _execute(cur, sql, (0,))
        text.execute("SHOW SESSION STATUS LIKE 'Com_select'")
        selects = int(text.fetchall()[0][1])
        with pytest.raises(mysql_connector.Error):
            text.execute("SELECT * FROM missing")  # an error: SHOW WARNINGS shows it
        text.execute("SHOW WARNINGS")
        assert len(text.fetchall()) == 1
        assert _execute(cur, sql, (2,)) == [(0,), (1,), (2,)]
        assert kept_reads[0] == 1
        text.execute("SHOW WARNINGS")
        assert text.fetchall() == []
        text.execute("SELECT FOUND_ROWS()")
        assert text.fetchall() == [(3,)]
        text.execute("SHOW SESSION STATUS LIKE 'Com_select'")
        assert int(text.fetchall()[0][1]) == selects + 3  # the failed SELECT, the read, SELECT FOUND_ROWS()
    finally:
        conn.close()


def test_the_one_pass_is_left_whenever_the_session_s_state_asks_more(shell, in_one_pass, kept_reads):
    """`kept_answer`'s one pass takes a kept read only in autocommit outside a transaction with
    nothing pending: a transaction open, a KILL QUERY pending, max_statement_time, an account
    without every privilege, a character set changed, a warning listed from the statement
    before each send the execution the way of every kept read (or, where that declines too,
    the statement path), with the answer that way gives; with the state gone, the one pass
    again."""
    assert shell.server is not None
    with shell.connect(autocommit=True) as root, root.cursor() as cur:
        cur.execute("CREATE USER 'r'@'%' IDENTIFIED BY 'rpw'")
        cur.execute("GRANT SELECT ON d1.* TO 'r'@'%'")
    sql = "SELECT c FROM t WHERE id=?"

    def reads(conn, stmt: int, ids=(3, 0, 3)) -> tuple[int, list]:
        """The executions of `ids` that took the one pass, and their answers (row or errno)."""
        before, answers = in_one_pass[0], []
        for i in ids:
            send(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG], [i.to_bytes(8, "little")]))
            try:
                answers.append([read(conn) for _ in range(5)][3])  # count, definition, EOF, row, EOF
            except pymysql.MySQLError as exc:
                answers.append(exc.args[0])
        return in_one_pass[0] - before, answers

    def back(conn, stmt: int) -> bool:
        """The one pass taken again (after one execution: one the task answered bound its
        values' types anew, whose layout the next execution reads)."""
        return reads(conn, stmt, (3,))[1] == expected[:1] and reads(conn, stmt) == (3, expected)

    conn = shell.connect(autocommit=True, database="d1")
    try:
        stmt = prepare(conn, sql)[0]
        assert reads(conn, stmt, (3, 0))[0] == 0  # kept, then its values' layout read
        taken, expected = reads(conn, stmt)
        assert taken == 3 and expected == [b"\x00\x00\x01x", b"\x00\x00\x00", b"\x00\x00\x01x"]
        session = shell.server.sessions[conn.thread_id()]

        conn.begin()  # a transaction open: the kept read in its view
        assert reads(conn, stmt) == (0, expected)
        conn.commit()
        assert back(conn, stmt)

        async def kill_pending() -> None:  # a KILL QUERY pending (once the task ended its command)
            while session._busy:
                await asyncio.sleep(0.001)
            session._query_killed = True
            session.reads_unhindered = False  # (as `kill_query` leaves it)

        shell.call(kill_pending)
        assert reads(conn, stmt, (3,)) == (0, [1317])  # (the statement path's: it ends the kill)
        assert back(conn, stmt)

        conn.query("SET SESSION max_statement_time = 100")
        assert reads(conn, stmt) == (0, expected)
        conn.query("SET SESSION max_statement_time = 0")
        assert back(conn, stmt)

        with pytest.raises(pymysql.MySQLError):
            conn.query("SELECT * FROM missing")  # a warning listed: the read clears it
        assert reads(conn, stmt, (3,)) == (0, expected[:1])
        with conn.cursor() as cur:
            cur.execute("SHOW WARNINGS")
            assert cur.fetchall() == ()
        assert back(conn, stmt)

        before = kept_reads[0]
        conn.query("SET NAMES latin1")  # the kept reads let go, none kept for this character set
        assert reads(conn, stmt) == (0, expected) and kept_reads[0] == before
    finally:
        conn.close()
    other = shell.connect(user="r", password="rpw", database="d1")  # not every privilege
    try:
        stmt = prepare(other, sql)[0]
        assert reads(other, stmt, (3, 0, 3, 0, 3)) == (0, [*expected, *expected[1:]])
        assert kept_reads[0] == before
    finally:
        other.close()


def test_the_session_s_state_is_asked_once_until_its_task_runs_a_command(shell, in_one_pass, monkeypatch):
    """`kept_answer`'s one pass asks the session's state (`ClientSession.unhindered`, its
    `_reads_now`) once and keeps the answer in `reads_unhindered`: the one passes after it ask
    nothing, until a command of the session's task (anything it runs may move what is asked)
    drops the flag; the next one pass asks again. A command that hinders the read (SET SESSION
    max_statement_time) then sends it the way of every kept read, and the one pass comes back
    once the state is plain again."""
    assert shell.server is not None
    asked = [0]
    original = ClientSession._reads_now

    def counted(self, keyword):
        asked[0] += 1
        return original(self, keyword)

    monkeypatch.setattr(ClientSession, "_reads_now", counted)
    conn = shell.connect(autocommit=True, database="d1")
    try:
        stmt = prepare(conn, "SELECT c FROM t WHERE id=?")[0]

        def reads(n: int) -> tuple[int, int, list]:
            """n executions: how many took the one pass, how often the state was asked, the rows."""
            passes, before, rows = in_one_pass[0], asked[0], []
            for _ in range(n):
                send(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG], [(3).to_bytes(8, "little")]))
                rows.append([read(conn) for _ in range(5)][3])  # count, definition, EOF, row, EOF
            return in_one_pass[0] - passes, asked[0] - before, rows

        row = b"\x00\x00\x01x"
        reads(2)  # kept, then its values' layout read
        session = shell.server.sessions[conn.thread_id()]
        assert reads(1) == (1, 1, [row]) and session.reads_unhindered  # asked, kept up
        assert reads(3) == (3, 0, [row] * 3)  # not asked again
        conn.query("SET @a = 1")  # a command of the task: the flag dropped
        assert not session.reads_unhindered
        assert reads(2) == (2, 1, [row] * 2)  # asked once more
        conn.query("SET SESSION max_statement_time = 100")
        assert reads(2)[::2] == (0, [row] * 2)  # every kept read's way, asking each time
        assert not session.reads_unhindered
        conn.query("SET SESSION max_statement_time = 0")
        assert reads(1)[2] == [row]  # (the task's answer bound the values' types anew: their layout read)
        passes, _, rows = reads(2)
        assert (passes, rows) == (2, [row] * 2) and session.reads_unhindered
    finally:
        conn.close()


def test_a_prepare_whose_null_probe_fails_still_describes_its_columns(shell, wire):
    """`LIMIT ?` with NULL does not run; mysqld's prepare still answers with the columns."""
    conn = _client(shell)
    try:
        del wire[:]
        cur = conn.cursor(prepared=True)
        cur.execute("SELECT id, k FROM t WHERE k > ? ORDER BY id DESC LIMIT ?", (5, 10))
        assert cur.fetchall() == [(3, 7), (1, 18446744073709551615)]
    finally:
        conn.close()
    firsts = [w[4:4 + int.from_bytes(w[:3], "little")] for w in wire]  # each answer's first payload
    answer = PrepareOK.decode(next(p for p in firsts if len(p) == 12 and p[0] == 0))
    assert (len(answer.columns), answer.num_params) == (2, 2)


def test_bad_input_after_a_kept_read_gets_mysqls_errors(shell):
    """Commands the receive callback reads but does not answer go to the session's task whole:
    a malformed COM_STMT_EXECUTE, wrong arguments, an unknown statement, each alone and each
    right behind a kept read in the same segment."""
    conn = shell.connect(autocommit=True, database="d1")
    try:
        stmt, _, _ = prepare(conn, "SELECT v FROM t WHERE id=?")
        good = execute_body(stmt, 0, [LONGLONG], [(1).to_bytes(8, "little")])

        def answer_of_good() -> bytes:
            assert read(conn) == b"\x01"  # one column
            read(conn), read(conn)  # its definition, EOF
            row = read(conn)
            read(conn)  # EOF
            return row

        for _ in range(3):  # kept by the first, answered on receipt after
            send(conn, COM_STMT_EXECUTE, good)
            assert answer_of_good()[2:] == b"\x05" + "élan".encode()
        bad = [
            (good + b"\x00", 1210),  # bytes after the last value
            (b"\x01\x00", 1835),  # shorter than its fixed fields
            (execute_body(999999, 0, [LONGLONG], [(1).to_bytes(8, "little")]), 1243),
        ]
        for body, code in bad:
            assert error_of(conn, COM_STMT_EXECUTE, body)[0] == code
            # right behind a kept read: one write, two commands
            conn._write_bytes(_packet(good) + _packet(body))
            conn._next_seq_id = 1  # (PyMySQL's count: each answer starts at 1)
            assert answer_of_good()[2:] == b"\x05" + "élan".encode()
            conn._next_seq_id = 1
            with pytest.raises(pymysql.MySQLError) as failed:
                read(conn)
            assert failed.value.args[0] == code
        send(conn, COM_STMT_EXECUTE, good)
        assert answer_of_good()[2:] == b"\x05" + "élan".encode()
    finally:
        conn.close()


def test_a_kept_read_s_executions_do_not_ask_the_role(shell, kept_reads, monkeypatch):
    """The role's claims on a kept read's statement were asked when the loop first answered it
    (`run_read_now`) and are fixed once the server runs: the executions that read through it,
    in the session's task and on receipt, ask none."""
    assert shell.server is not None
    role = shell.server.role
    asked: list[str] = []
    original = role.claims
    monkeypatch.setattr(role, "claims", lambda keyword: asked.append(keyword) or original(keyword))
    conn = _client(shell)
    try:
        cur = conn.cursor(prepared=True)
        before = None
        for i in (0, 1, 3, 1):
            cur.execute("SELECT c FROM t WHERE id=?", (i,))
            cur.fetchall()
            before = list(asked) if before is None else before
    finally:
        conn.close()
    assert kept_reads[0] == 3
    assert any(k.startswith("SELECT") for k in before) and asked == before


class _Recorder:
    """A session's transport that keeps what is written."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return False


def test_a_kept_read_on_receipt_runs_none_of_the_layers_it_skips(shell):
    """The Python frames of a kept read's execution answered in the receive callback: none of the
    role's claims (asked when the read was kept), the engine's map of databases through a
    property and a lambda (one C call), nor, where `protocol._rows` is built, the rows encoded
    and then framed apart (`send_binary_rows`: one pass); no layer between the read's rows and
    their answer (`answer_rows`, `_counted`), none in the engine for what an autocommit read of
    integers needs not (`_rand_for`, `_read_view`, `_bytes_where_not_utf8`); in autocommit with
    nothing pending, none of the layers `kept_answer`'s one pass leaves out (the command's fields
    and values read apart, `_answer_kept`, `run_prepared_read`, `read_prepared` and its `Result`,
    `_executed`, `status_flags`, the state machine's table), nor, once a one pass asked it, the
    session's state again (`unhindered`, `_reads_now`: `reads_unhindered` stays up), the Com_
    count by name (`count_command`), the statement's kill flag (`Event.is_set`), its column
    block (`ResultHead.around`) and, where built, the encoder's Python layer over `_rows.answer`;
    the bytes are the socket path's."""
    conn = shell.connect(autocommit=True, database="d1")
    try:
        stmt, _, _ = prepare(conn, "SELECT v FROM t WHERE id=?")
        good = execute_body(stmt, 0, [LONGLONG], [(1).to_bytes(8, "little")])
        answers = []
        for _ in range(3):  # kept, its values' layout read, a one pass (`reads_unhindered` up)
            send(conn, COM_STMT_EXECUTE, good)
            answers.append([read(conn) for _ in range(5)])  # count, definition, EOF, row, EOF
        assert answers[0] == answers[1] == answers[2]
        assert shell.server is not None

        def on_receipt() -> tuple[list[str], list[bytes]]:
            session = next(s for s in shell.server.sessions.values() if stmt in s.prepared._statements)
            transport, recorder = session.transport, _Recorder()
            calls: list[str] = []

            def profile(frame, event, arg):
                if event == "call":
                    calls.append(frame.f_code.co_name)

            session.transport = recorder
            sys.setprofile(profile)
            try:
                session.data_received(_packet(good))
            finally:
                sys.setprofile(None)
                session.transport = transport
            return calls, recorder.written

        calls, written = shell.call(on_receipt)
    finally:
        conn.close()
    assert "kept_answer" in calls and "prepared_rows" in calls
    skipped = {"claims", "schemas", "<lambda>", "framed", "closing",
               "answer_rows", "_counted", "_rand_for", "_read_view", "_bytes_where_not_utf8",
               "plain_execute", "_int_values", "read", "_answer_kept", "run_prepared_read", "read_prepared",
               "__init__", "_executed", "status_flags", "in_transaction", "fire",
               "_reads_now", "unhindered", "count_command", "is_set", "around"}
    if binary._native_answer is not None:
        skipped |= {"encode_rows", "frame_payloads", "answer"}
    assert not skipped & set(calls), calls
    payloads, at = [], 0
    while at < len(written[0]):
        size = int.from_bytes(written[0][at:at + 3], "little")
        payloads.append(written[0][at + 4:at + 4 + size])
        at += 4 + size
    assert len(written) == 1 and payloads == answers[0]


def _packet(body: bytes) -> bytes:
    payload = bytes((COM_STMT_EXECUTE,)) + body
    return len(payload).to_bytes(3, "little") + b"\x00" + payload


TEXT_QUERIES = [  # the loop answers 6 of them at once (each pass): those marked
    "SELECT * FROM t WHERE id=1",  # *
    "select c, v, d FROM t WHERE id BETWEEN 0 AND 3 ORDER BY id",  # *
    "SELECT id+1, 'x', 2.5 FROM t WHERE id=1",  # *
    "SELECT @@version_comment",
    "SELECT 1; SELECT v FROM t WHERE id=1",  # * *
    "SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1",
    "SELECT FOUND_ROWS()",  # *
    "SELECT c FROM t WHERE v='a@b'",
    "SELECT /*!40001 SQL_NO_CACHE */ id FROM t",
    "SELECT nope FROM t",
    "SELECT COUNT(*) FROM missing",
    "SELECT id FROM t WHERE id = 2 FOR UPDATE",
    "SELECT GET_LOCK('l', 0), RELEASE_LOCK('l')",
]


def test_text_queries_send_the_same_bytes(shell, wire, monkeypatch):
    """COM_QUERY's SELECTs through `run_read_now` in the receive callback (`_query_on_receipt`)
    and in the session's task, and through `run_statement` only, with the result's column block
    kept (`ClientSession._text_head`) or each result set built whole (PyMySQL, autocommit and in
    a transaction): the same bytes, and the loop's answers really taken."""
    answered = _count_answers(monkeypatch, ClientSession, "run_read_now")
    on_receipt = _count_answers(monkeypatch, ClientSession, "_query_on_receipt")
    heads = _count_answers(monkeypatch, ClientSession, "_text_head")
    streams = []
    for path in ("receipt", "now", "statement", "whole"):
        with monkeypatch.context() as m:
            if path != "receipt":
                m.setattr(ClientSession, "_query_on_receipt", lambda self, event: False)
            if path in ("statement", "whole"):
                m.setattr(ClientSession, "run_read_now", lambda self, sql, keyword: None)
            if path == "whole":
                m.setattr(session_module, "TEXT_HEADS", 0)
            heads[0] = 0
            del wire[:]
            conn = shell.connect(autocommit=True, database="d1",
                                 client_flag=pymysql.constants.CLIENT.MULTI_STATEMENTS)
            try:
                for begin in (False, True):
                    if begin:
                        conn.begin()
                    for sql in TEXT_QUERIES:
                        with conn.cursor() as cur:
                            try:
                                cur.execute(sql)
                                while cur.nextset():
                                    pass
                            except pymysql.MySQLError:
                                pass
                    if begin:
                        conn.rollback()
            finally:
                conn.close()
            streams.append(wire[2:])
            assert (heads[0] >= 20) == (path != "whole")
    assert answered[0] == 2 * 12  # 6 per transaction mode, twice
    assert on_receipt[0] == 2 * 4 + 1  # the 6 less the multi-statement's two, twice; and the BEGIN
    receipt, now, statement, whole = streams
    assert len(receipt) == len(now) == len(statement) == len(whole) > 20
    for i, (r, x, y, z) in enumerate(zip(receipt, now, statement, whole, strict=True)):
        assert r == x == y == z, f"write {i}: receipt {r.hex()} / now {x.hex()} / statement {y.hex()} / whole {z.hex()}"


def test_an_error_answered_on_receipt(shell, monkeypatch):
    """A statement's error in a kept read answered on receipt is its ERR (the connection goes
    on); our bug there is ERR 1105 and this connection closed, the server serving on."""
    conn = _client(shell)
    cur = conn.cursor(prepared=True)
    sql = "SELECT v FROM t WHERE id=?"
    assert _execute(cur, sql, (1,)) == [("élan",)]  # kept
    original = Session.prepared_rows
    failure: list[BaseException] = []

    def prepared_rows(self, read, params, *rest):
        if failure:
            raise failure[0]
        return original(self, read, params, *rest)

    monkeypatch.setattr(Session, "prepared_rows", prepared_rows)
    failure.append(SQLError(ER_WARN_DATA_OUT_OF_RANGE, "v", 1))
    with pytest.raises(mysql_connector.Error) as refused:
        _execute(cur, sql, (1,))
    assert refused.value.errno == 1264
    failure.clear()
    assert _execute(cur, sql, (1,)) == [("élan",)]
    failure.append(RuntimeError("a bug"))
    with pytest.raises(mysql_connector.Error) as broken:
        _execute(cur, sql, (1,))
    assert broken.value.errno in (1105, 2013, 2055)
    failure.clear()
    other = _client(shell)
    try:
        assert _execute(other.cursor(prepared=True), sql, (1,)) == [("élan",)]
    finally:
        other.close()


def test_pipelined_kept_reads_are_answered_in_order(shell, on_receipt):
    """40 executions in one write: the receive callback answers YIELD_EVERY of them at a time,
    the task the rest, every answer in order (bytes from the kernel in whatever pieces)."""
    conn = shell.connect(autocommit=True, database="d1")
    try:
        stmt, _, _ = prepare(conn, "SELECT id, v FROM t WHERE id=?")
        ids = [i % 4 for i in range(40)]
        bodies = [execute_body(stmt, 0, [LONGLONG], [i.to_bytes(8, "little")]) for i in ids]
        send(conn, COM_STMT_EXECUTE, bodies[0])  # kept by this one
        rows = [_binary_answer(conn)]
        conn._write_bytes(b"".join(_packet(body) for body in bodies[1:]))
        for _ in bodies[1:]:
            conn._next_seq_id = 1
            rows.append(_binary_answer(conn))
        assert [int.from_bytes(row[2:6], "little") for row in rows] == ids
        assert YIELD_EVERY <= on_receipt[0] < 39  # the callback answered, and left some to the task
        send(conn, COM_STMT_EXECUTE, bodies[1])
        assert _binary_answer(conn) == rows[1]
    finally:
        conn.close()


def _binary_answer(conn) -> bytes:
    """The one row of a two-column binary result set."""
    assert read(conn) == b"\x02"
    for _ in range(3):  # the definitions, EOF
        read(conn)
    row = read(conn)
    read(conn)  # EOF
    return row
