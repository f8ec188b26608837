"""A client connected in latin1 (PyMySQL's charset="latin1", mysql-connector-python's with a prepared
cursor, the `mariadb` CLI's --default-character-set=latin1, SET NAMES) gets what MariaDB 10.11 gives
it: its statements and string parameters read in latin1 (MySQL's latin1: cp1252 with 0x81 0x8D 0x8F
0x90 0x9D one to one, all 256 bytes compared with MariaDB's CONVERT), the rows it reads sent in
latin1 with '?' for what latin1 cannot hold, column definitions saying charsetnr 8 and a length in
latin1 characters, error messages in latin1, 1115 / 1231 for a character set it may not name; the
rows as a utf8mb4 client reads them afterwards; a MariaDB replica of our master stores the row a
latin1 client wrote as the master did.

A latin1 connection's string literals and string parameters are latin1 strings, as MariaDB's: their
bytes where MariaDB reads bytes ('café' into a BLOB, VARBINARY or BINARY column stores 636166E9,
LENGTH('é') is 1, HEX('é') 'E9', CAST('é' AS BINARY), a binary column compared with one), their
characters where it converts them (a column of characters stores C3A9); a BLOB-typed parameter is
binary. A MariaDB replica and ours store what the master stored (the binlog's statement carries
`_latin1 X'..'`). Where the engine cannot tell which a non-ASCII one is read as (an expression
over it, a comparison with another literal under latin1_swedish_ci, a user variable, a select item
under character_set_results NULL) it refuses the statement with 1235, held here with MariaDB's
answer beside it."""

from __future__ import annotations

import io
import subprocess

import pymysql
import pytest

from protocol.charsets import LATIN1
from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, reference_ours_and_replica

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), c CHAR(3), x TEXT) DEFAULT CHARSET=utf8mb4",
]


def _connect(port: int, charset: str, **kw) -> pymysql.connections.Connection:
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password="", database="d",
                           charset=charset, autocommit=True, **kw)


def _run(conn: pymysql.connections.Connection, sql: str, args: object = None) -> tuple:
    """("rows", rows, [(name, type, charsetnr, length)]) / ("ok", affected) / ("error", code, message)."""
    with conn.cursor() as cur:
        try:
            n = cur.execute(sql, args)
        except pymysql.MySQLError as exc:
            return ("error", exc.args[0], exc.args[1])
        if cur.description is None:
            return ("ok", n)
        fields = [(f.name, f.type_code, f.charsetnr, f.length) for f in cur._result.fields]
        return ("rows", cur.fetchall(), fields)


def _session(port: int) -> list[tuple]:
    latin1 = _connect(port, "latin1")
    utf8 = _connect(port, "utf8mb4")
    raw = _connect(port, "latin1", use_unicode=False)  # the bytes as sent
    try:
        out = [
            _run(latin1, "SELECT @@character_set_client, @@character_set_results, @@collation_connection"),
            _run(latin1, "INSERT INTO t VALUES (1, 'café', 'é€', 'Ÿ‰')"),
            _run(latin1, "INSERT INTO t VALUES (%s, %s, %s, %s)", (2, "€uro", "ü", "naïve")),
            _run(utf8, "INSERT INTO t VALUES (3, '中文', 'ж', '😀 x')"),
            _run(latin1, "SELECT id, v, c, x FROM t ORDER BY id"),
            _run(raw, "SELECT id, v, c, x, 'Š' FROM t ORDER BY id"),
            _run(latin1, "SELECT v AS `é`, CONCAT(v, 'ß') AS `ça` FROM t WHERE v = 'CAFÉ'"),
            _run(latin1, "SELECT id FROM t WHERE v LIKE '€%'"),
            _run(raw, "SELECT * FROM nosuch_é"),
            _run(utf8, "SELECT id, v, HEX(v), c, HEX(c), HEX(x) FROM t ORDER BY id"),
            # SET NAMES latin1, then utf8mb4, on one connection
            _run(utf8, "SET NAMES latin1"),
            _run(utf8, "SELECT @@character_set_client, @@character_set_results, @@collation_connection"),
            _run(utf8, "INSERT INTO t VALUES (4, 'Ñandú', NULL, NULL)"),
            _run(utf8, "SET NAMES utf8mb4"),
            _run(utf8, "SELECT id, v, HEX(v) FROM t WHERE id = 4"),
            _run(utf8, "SET character_set_results = NULL"),
            _run(utf8, "SELECT id, v FROM t WHERE id = 4"),
            _run(utf8, "SET NAMES nosuch"),
            _run(utf8, "SET NAMES utf16"),
            _run(utf8, "SET NAMES latin1 COLLATE utf8mb4_bin"),
            _run(utf8, "SET NAMES utf8"),
            _run(utf8, "SELECT @@character_set_client, @@collation_connection"),
            _run(utf8, "SET STATEMENT character_set_client=latin1 FOR SELECT 1"),
        ]
    finally:
        for conn in (latin1, utf8, raw):
            conn.close()
    return out


def _prepared(port: int) -> list[tuple]:
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="d",
                                   charset="latin1", use_pure=True, autocommit=True)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (10, "crème", "£", "Ölwerk"))
        cur.execute("SELECT id, v, c, x FROM t WHERE v = ? OR id = 3 ORDER BY id", ("CRÈME",))
        rows = [tuple(r) for r in cur.fetchall()]
        fields = [(d[0], d[1], d[8]) for d in cur.description]  # name, type, charsetnr
        cur.execute("SELECT HEX(v) FROM t WHERE id = ?", (10,))
        return [rows, fields, [tuple(r) for r in cur.fetchall()]]
    finally:
        conn.close()


def _cli(port: int) -> list[bytes]:
    """The `mariadb` CLI with --default-character-set=latin1: a latin1 statement on its stdin, the
    rows as it prints them (the bytes the server sent)."""
    return [cli(port, "latin1", sql) for sql in (b"INSERT INTO t VALUES (20, 'gar\xe7on', NULL, NULL)",
                                                 b"SELECT id, v, HEX(v) FROM t WHERE id IN (1, 3, 20) ORDER BY id")]


def cli(port: int, charset: str, sql: bytes) -> bytes:
    """What the `mariadb` CLI with --default-character-set=`charset` prints (the bytes the server
    sent, and any error) for `sql` on its stdin, on database d."""
    run = subprocess.run(["mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", str(port), "-u", "root",
                          f"--default-character-set={charset}", "-N", "-B", "d"],
                         input=sql, capture_output=True, timeout=30)
    return run.stdout + run.stderr


def _each(servers: tuple, setup: list[str], *sessions) -> list[tuple]:
    """`setup` run on each server, then each of `sessions` on its port: per server, their answers."""
    answers = []
    for server in servers:
        for sql in setup:
            server.query(sql)
        answers.append(tuple(session(server.port) for session in sessions))
    return answers


def test_a_latin1_client_gets_what_mariadb_gives_it(tmp_path) -> None:
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        answers = _each((mariadb, ours), SETUP, _session, _prepared, _cli)
        _latin1_against(mariadb)
    (theirs, ours_) = answers
    for name, t, o in zip(("text", "prepared", "cli"), theirs, ours_, strict=True):
        if isinstance(t, list) and t and isinstance(t[0], tuple):
            for i, (a, b) in enumerate(zip(t, o, strict=True)):
                assert _comparable(a) == _comparable(b), f"{name} step {i}:\n MariaDB {a}\n ours    {b}"
        else:
            assert t == o, f"{name}:\n MariaDB {t}\n ours    {o}"


def _comparable(answer: tuple) -> tuple:
    """An answer with what is known to differ left out: the type and length of a column that is
    not a table column (our HEX() and @@variable types and lengths are not MariaDB's, whatever the
    character set); its name and charsetnr are compared."""
    if answer[0] != "rows":
        return answer
    table_columns = {"id", "v", "c", "x", "é"}
    fields = [(name, type_, charsetnr, length) if name in table_columns else (name, charsetnr)
              for name, type_, charsetnr, length in answer[2]]
    return ("rows", answer[1], fields)


def _latin1_against(mariadb) -> None:
    """Our latin1 (protocol.charsets) against MariaDB's CONVERT: all 256 bytes read, and U+0080 ..
    U+017F written ('?' for what latin1 cannot hold)."""
    text = "".join(chr(c) for c in range(0x80, 0x180))
    theirs = mariadb.query("SELECT CONVERT(CONVERT(UNHEX('" + bytes(range(256)).hex() + "') USING latin1)"
                           " USING utf8mb4)")[0][0]
    back = mariadb.query("SELECT HEX(CONVERT(_utf8mb4 X'" + text.encode().hex() + "' USING latin1))")[0][0]
    assert LATIN1.decode(bytes(range(256))) == theirs
    assert LATIN1.encode(text).hex().upper() == back


def test_a_row_a_latin1_client_wrote_reaches_a_mariadb_replica_as_the_master_stored_it(tmp_path) -> None:
    with reference_ours_and_replica(tmp_path) as (_reference, ours, replica):
        ours.query("CREATE DATABASE d")
        ours.query("CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20)) DEFAULT CHARSET=utf8mb4")
        conn = _connect(ours.port, "latin1")
        try:
            with conn.cursor() as cur:
                cur.execute("INSERT INTO t VALUES (1, 'café €')")
                cur.execute("SET NAMES latin1")
                cur.execute("INSERT INTO t VALUES (2, %s)", ("Ÿ ñ",))
        finally:
            conn.close()
        want = ours.query("SELECT id, HEX(v) FROM d.t ORDER BY id")
        assert want == [(1, "636166C3A920E282AC"), (2, "C5B820C3B1")]
        wait_for(lambda: replica.query("SELECT COUNT(*) FROM d.t")[0][0] == 2 if _has_table(replica) else False,
                 timeout=60)
        assert replica.query("SELECT id, HEX(v) FROM d.t ORDER BY id") == want


def _has_table(server) -> bool:
    return bool(server.query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'"
                             " AND TABLE_NAME = 't'")[0][0])


BYTES_SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, b BLOB, vb VARBINARY(10), bn BINARY(6), v VARCHAR(10), x TEXT)"
    " DEFAULT CHARSET=utf8mb4",
]
_ROWS = "SELECT id, HEX(b), HEX(vb), HEX(bn), HEX(v), HEX(x) FROM t ORDER BY id"


def _bytes_session(port: int) -> list[tuple]:
    """A latin1 client's literals where their bytes matter, then its prepared statements' string
    and BLOB parameters."""
    import mysql.connector

    latin1 = _connect(port, "latin1")
    try:
        out = [_run(latin1, sql) for sql in (
            "INSERT INTO t VALUES (1, 'café', 'café', 'café', 'café', 'café')",
            "INSERT INTO t SET id = 2, vb = 'Ø', v = 'Ø'",
            "UPDATE t SET b = 'ñ', x = 'ñ' WHERE id = 2",
            "INSERT INTO t (id, vb) VALUES (2, 'x') ON DUPLICATE KEY UPDATE vb = 'þ€'",
            "INSERT INTO t (id, b, v) VALUES (3, _latin1 X'E9', _latin1 X'E9')",
            "INSERT INTO t (id, b, v) VALUES (4, _binary 'é', 'ok')",
            "INSERT INTO t (id, b, v) VALUES (5, _latin1 'é', _binary 'é')",
            _ROWS,
            "SELECT LENGTH('é'), HEX('é'), CHAR_LENGTH('é'), OCTET_LENGTH('€'), BIT_LENGTH('é'), MD5('é'),"
            " CRC32('é'), TO_BASE64('é')",
            "SELECT 'é', 'ü' AS u, CAST('é' AS BINARY), HEX(CAST('é' AS BINARY)), HEX(BINARY 'é'), HEX(_binary 'é'),"
            " HEX(_latin1 'é'), LENGTH(_latin1 X'E9'), _latin1 X'E9'",
            "SELECT id FROM t WHERE b = 'café' OR vb IN ('x', 'þ€') OR bn = 'café'",
            "SELECT id FROM t WHERE v = 'CAFÉ' OR v IN ('Ø') OR v LIKE 'caf_'",
            "SELECT id, CONCAT(v, 'ß'), HEX(CONCAT(v, 'ß')) FROM t WHERE 'café' = v",
            "DELETE FROM t WHERE vb = 'Ø'",
        )]
    finally:
        latin1.close()
    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="d",
                                   charset="latin1", use_pure=True, autocommit=True)
    try:
        cur = conn.cursor(prepared=True)
        for sql, args in (("INSERT INTO t (id, b, vb, v) VALUES (?, ?, ?, ?)", (10, "crème", "£", "crème")),
                          ("INSERT INTO t (id, b) VALUES (?, ?)", (11, io.BytesIO(b"caf\xe9"))),  # a BLOB type
                          ("INSERT INTO t (id, v) VALUES (?, ?)", (12, io.BytesIO(b"caf\xe9"))),
                          ("SELECT LENGTH(?), HEX(?), HEX(?)", ("é", "é", io.BytesIO(b"\xe9"))),
                          ("SELECT id FROM t WHERE b = ?", ("crème",)),
                          (_ROWS, ())):
            try:
                cur.execute(sql, args)
                out.append([tuple(r) for r in cur.fetchall()] if cur.description else cur.rowcount)
            except mysql.connector.Error as exc:
                out.append(("error", exc.errno))
    finally:
        conn.close()
    return out


# What ours refuses with 1235 on a latin1 connection, and MariaDB's answer
REFUSED = [
    ("SELECT 'ü' = 'y', 'ä' < 'z'", ((1, 0),)),  # latin1_swedish_ci
    ("SELECT HEX(UPPER('é')), HEX(CONCAT('é', 1))", (("C9", "E931"),)),
    ("INSERT INTO t (id, b) VALUES (20, CONCAT('é', 'x'))", 1),  # stores E978
    ("SELECT LENGTH(_utf8mb4 'é'), HEX(N'é')", ((1, "E9"),)),  # the latin1 byte taken as utf8mb4
    ("SET @b = 'é'", 0),  # then HEX(@b) is E9, CHARSET(@b) latin1
    ("CREATE TABLE t5 (id INT PRIMARY KEY, b VARBINARY(4) DEFAULT 'é')", 0),  # its DEFAULT E9
    ("CREATE VIEW w AS SELECT 'é' AS x", 0),  # kept with its character_set_client latin1
]


def _refused(port: int) -> list[tuple]:
    latin1 = _connect(port, "latin1")
    try:
        out = [_run(latin1, sql) for sql, _ in REFUSED]
        _run(latin1, "SET character_set_results = NULL")
        out.append(_run(latin1, "SELECT 'é'"))  # MariaDB: E9, charsetnr 8
        return out
    finally:
        latin1.close()


def test_a_latin1_literals_bytes_are_read_where_mariadb_reads_them_else_refused(tmp_path) -> None:
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        (theirs, theirs_refused), (mine, mine_refused) = _each((mariadb, ours), BYTES_SETUP, _bytes_session, _refused)
    for i, (a, b) in enumerate(zip(theirs, mine, strict=True)):
        assert _comparable(a) == _comparable(b) if isinstance(a, tuple) else a == b, \
            f"step {i}:\n MariaDB {a}\n ours    {b}"
    assert theirs[7][1][0] == (1, "636166E9", "636166E9", "636166E90000", "636166C3A9", "636166C3A9")
    for (sql, want), got, refused in zip(REFUSED, theirs_refused, mine_refused, strict=False):
        assert got[1] == want, f"MariaDB: {sql} {got}"
        assert refused[:2] == ("error", 1235), f"ours: {sql} {refused}"
    assert theirs_refused[-1][1] == (("é",),) and theirs_refused[-1][2][0][2] == 8
    assert mine_refused[-1][:2] == ("error", 1235)


def test_a_latin1_literals_bytes_reach_a_mariadb_replica_and_ours_as_the_master_stored_them(tmp_path) -> None:
    with reference_ours_and_replica(tmp_path) as (reference, ours, replica):
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=3", "--master-host=127.0.0.1", f"--master-port={ours.port}",
            f"--master-user={REPL_USER}", f"--master-password={REPL_PASSWORD}"]).start()
        try:
            _each((reference, ours), BYTES_SETUP, _bytes_session)
            want = reference.query("SELECT id, HEX(b), HEX(vb), HEX(bn), HEX(v), HEX(x) FROM d.t ORDER BY id")
            assert ours.query("SELECT id, HEX(b), HEX(vb), HEX(bn), HEX(v), HEX(x) FROM d.t ORDER BY id") == want
            for follower in (replica, slave):
                wait_for(lambda f=follower: _has_table(f) and f.query("SELECT COUNT(*) FROM d.t")[0][0] == len(want),
                         timeout=60)
                assert follower.query("SELECT id, HEX(b), HEX(vb), HEX(bn), HEX(v), HEX(x) FROM d.t ORDER BY id") \
                    == want
        finally:
            slave.stop()
