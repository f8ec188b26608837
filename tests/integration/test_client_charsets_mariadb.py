"""A client connected in latin1 (PyMySQL's charset="latin1", mysql-connector-python's with a prepared
cursor, the `mariadb` CLI's --default-character-set=latin1, SET NAMES) gets what MariaDB 10.11 gives
it: its statements and string parameters read in latin1 (MySQL's latin1: cp1252 with 0x81 0x8D 0x8F
0x90 0x9D one to one, all 256 bytes compared with MariaDB's CONVERT), the rows it reads sent in
latin1 with '?' for what latin1 cannot hold, column definitions saying charsetnr 8 and a length in
latin1 characters, error messages in latin1, 1115 / 1231 for a character set it may not name; the
rows as a utf8mb4 client reads them afterwards; a MariaDB replica of our master stores the row a
latin1 client wrote as the master did.

Left out, where the two still differ (MariaDB's answer first): a string literal is utf8mb4 here
whatever character_set_connection says, so on a latin1 connection LENGTH('é') 1 (2), HEX('é') 'E9'
('C3A9'), 'café' into a BLOB column stores 636166E9 (636166C3A9), and a literal's column definition
under character_set_results NULL says 8 (45)."""

from __future__ import annotations

import subprocess

import pymysql
import pytest

from protocol.charsets import LATIN1
from tests.support.daemons import wait_for
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
    out = []
    for sql in (b"INSERT INTO t VALUES (20, 'gar\xe7on', NULL, NULL)",
                b"SELECT id, v, HEX(v) FROM t WHERE id IN (1, 3, 20) ORDER BY id"):
        run = subprocess.run(["mariadb", "--no-defaults", "-h", "127.0.0.1", "-P", str(port), "-u", "root",
                              "--default-character-set=latin1", "-N", "-B", "d"],
                             input=sql, capture_output=True, timeout=30)
        out.append(run.stdout + run.stderr)
    return out


def test_a_latin1_client_gets_what_mariadb_gives_it(tmp_path) -> None:
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        answers = []
        for server in (mariadb, ours):
            for sql in SETUP:
                server.query(sql)
            answers.append((_session(server.port), _prepared(server.port), _cli(server.port)))
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
