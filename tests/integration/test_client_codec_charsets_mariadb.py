"""Clients whose connection speaks another character set than latin1 or utf8 (cp1251, koi8r, latin2,
gbk, euckr ...: protocol.charsets' codec sets) get what MariaDB 10.11 gives them: each set's mapping
held equal to MariaDB's CONVERT (every byte of a single-byte set, every two-byte code of a
multi-byte one, and every BMP character written, '?' for what the set cannot hold); PyMySQL's
charset=, mysql-connector-python's charset= / collation= with a prepared cursor, the `mariadb`
CLI's --default-character-set=, and SET NAMES: the statement's text and parameters read in the set,
rows sent in it, column definitions saying its number (the collation's a login or SET NAMES ...
COLLATE named) and a length in its characters, error messages in it (a byte it has not shown as
MariaDB shows it); the rows a utf8mb4 client reads afterwards (HEX of what was stored); a MariaDB
replica of our master and our own slave store what the master stored (the binlog's statement
carries `_cp1251 X'..'`, `_gbk X'..'`).

A character set MariaDB speaks that no codec here maps as MariaDB does (sjis, big5, greek ...) is
refused: SET NAMES with 1115 (MariaDB takes it), a login naming it with 1115 (MariaDB takes it),
never its bytes stored as other characters."""

from __future__ import annotations

import pymysql
import pytest

from protocol.charsets import CHARSETS
from tests.integration.test_client_charsets_mariadb import _connect, _each, _has_table, cli
from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, reference_ours_and_replicas

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), c CHAR(3), b BLOB) DEFAULT CHARSET=utf8mb4",
]
_ROWS = "SELECT id, v, HEX(v), HEX(c), HEX(b) FROM t ORDER BY id"
# per character set: the text its client writes (each character one it holds; for euckr one of
# KS X 1001's, which PyMySQL's codec, euc_kr, writes as MariaDB reads it)
TEXTS = {"cp1251": "Привет Ёж", "koi8r": "Съешь же", "latin2": "Łódź ŻÓŁW", "cp1250": "Příliš žluť",
         "gbk": "中文字符", "euckr": "한국어 문자", "gb2312": "简体中文"}


def _run(conn: pymysql.connections.Connection, sql: str | bytes, args: object = None) -> tuple:
    """("rows", rows, [(name, type, charsetnr, length)]) / ("ok", affected) / ("error", code)."""
    with conn.cursor() as cur:
        try:
            n = cur.execute(sql, args)
        except pymysql.MySQLError as exc:
            return ("error", exc.args[0])
        if cur.description is None:
            return ("ok", n)
        fields = [(f.name, f.type_code, f.charsetnr, f.length) for f in cur._result.fields]
        return ("rows", cur.fetchall(), fields)


def _session(port: int) -> list[tuple]:
    out = []
    for n, (charset, text) in enumerate(TEXTS.items(), 1):
        conn = _connect(port, charset)
        raw = _connect(port, charset, use_unicode=False)  # the bytes as sent
        try:
            out += [
                _run(conn, "SELECT @@character_set_client, @@character_set_results, @@collation_connection"),
                _run(conn, f"INSERT INTO t VALUES ({n}, '{text}', '{text[:1]}', '{text}')"),
                _run(conn, "INSERT INTO t VALUES (%s, %s, %s, %s)", (n + 10, text[::-1], text[-1], text[::-1])),
                _run(conn, f"SELECT id, v, c, '{text}', LENGTH('{text}'), CHAR_LENGTH('{text}') FROM t"
                           f" WHERE id IN ({n}, {n + 10}) ORDER BY id"),
                _run(conn, f"SELECT id FROM t WHERE v = '{text}' OR b = '{text[::-1]}' ORDER BY id"),
                _run(raw, f"SELECT * FROM nosuch_{text[0]}"),
                _run(raw, "SELECT id, v FROM t WHERE id IN (1, 2, 5) ORDER BY id"),  # '?' for what it has not
            ]
        finally:
            conn.close()
            raw.close()
    utf8 = _connect(port, "utf8mb4")
    try:
        out += [
            _run(utf8, _ROWS),
            _run(utf8, "SET NAMES koi8r"),
            _run(utf8, "SELECT @@character_set_client, @@collation_connection"),
            _run(utf8, "INSERT INTO t VALUES (30, 'Жёлудь', NULL, 'Ж')"),
            _run(utf8, "SET NAMES gbk COLLATE gbk_bin"),
            _run(utf8, "SELECT @@character_set_results, @@collation_connection"),
            _run(utf8, "INSERT INTO t VALUES (31, '汉字', NULL, '汉')"),
            _run(utf8, "SET NAMES ucs2"),
            _run(utf8, "SET NAMES utf8mb4"),
            _run(utf8, "INSERT INTO t VALUES (32, _cp1251 X'C6F3EA', _gbk X'D6D0', _cp1251 X'C6')"),
            _run(utf8, "SELECT id, v, HEX(v), HEX(c), HEX(b) FROM t WHERE id >= 30 ORDER BY id"),
        ]
    finally:
        utf8.close()
    raw = _connect(port, "utf8mb4", use_unicode=False)
    try:
        out += [_run(raw, sql) for sql in (
            "SET NAMES gbk COLLATE gbk_bin",
            "SELECT id, v FROM t WHERE id = 5",  # charsetnr 87: the collation SET NAMES named
            "SET character_set_results = gbk",
            "SELECT id, v FROM t WHERE id = 5")]  # 28: the set's default
    finally:
        raw.close()
    return out


def _bad_bytes(port: int) -> list[tuple]:
    """Bytes a connection's character set has not (0x98 in cp1251, 0xE9 alone in UTF-8): refused,
    never stored as another character; MariaDB's message shows them (six at most, printable ASCII
    as itself)."""
    out = []
    for charset, sql in (("cp1251", b"INSERT INTO t VALUES (40, 'a\x98b', NULL, NULL)"),
                         ("cp1251", b"INSERT INTO t VALUES (40, 'a\x98bcdefghij', NULL, NULL)"),
                         ("cp1251", b"INSERT INTO t VALUES (40, 'a\x98\x98\x98\x98\x98\x98\x98', NULL, NULL)"),
                         ("utf8mb4", b"INSERT INTO t VALUES (40, 'a\xe9bcdefghij', NULL, NULL)"),
                         ("utf8mb4", b"INSERT INTO t VALUES (40, 'a\xe9\\\\x\x01y', NULL, NULL)")):
        conn = _connect(port, charset)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
            out.append(("stored",))
        except pymysql.MySQLError as exc:
            out.append(exc.args)
        finally:
            conn.close()
    return out


def _connector(port: int) -> list:
    """mysql-connector-python with charset= and collation=, a prepared cursor."""
    import mysql.connector

    out = []
    for n, kw in enumerate(({"charset": "cp1251"}, {"collation": "gbk_bin"}, {"charset": "latin2"}), 50):
        conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password="", database="d",
                                       use_pure=True, autocommit=True, **kw)
        try:
            text = TEXTS[kw.get("charset") or "gbk"]
            cur = conn.cursor(prepared=True)
            cur.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (n, text, text[:3], text))
            cur.execute("SELECT id, v, c FROM t WHERE v = ? ORDER BY id", (text,))
            out.append([tuple(r) for r in cur.fetchall()])
            out.append([(d[0], d[1], d[8]) for d in cur.description])  # name, type, charsetnr
            cur.execute("SELECT HEX(v), HEX(b), @@collation_connection FROM t WHERE id = ?", (n,))
            # (as text: under gbk_bin MariaDB flags HEX()'s column BINARY, which the connector
            # reads as bytes; ours does not flag it)
            out.append([tuple(x.decode() if isinstance(x, bytes) else x for x in r) for r in cur.fetchall()])
        finally:
            conn.close()
    return out


def _cli(port: int) -> list[bytes]:
    """The `mariadb` CLI with --default-character-set=: a statement in the set on its stdin, the
    rows as it prints them (the bytes the server sent)."""
    return [cli(port, charset, sql) for charset, sql in (
        ("cp1251", b"INSERT INTO t VALUES (60, '\xc6\xf3\xea', NULL, '\xc6')"),
        ("cp1251", b"SELECT id, v, HEX(v), HEX(b) FROM t WHERE id IN (1, 5, 60) ORDER BY id"),
        ("gbk", b"INSERT INTO t VALUES (61, '\xd6\xd0\xce\xc4', NULL, '\xd6\xd0')"),
        ("gbk", b"SELECT id, v, HEX(v), HEX(b) FROM t WHERE id IN (1, 5, 61) ORDER BY id"))]


def _comparable(answer: object) -> object:
    """An answer with what is known to differ left out: the type and length of a column that is
    not a table column (our HEX() and @@variable types and lengths are not MariaDB's, whatever the
    character set); its name and charsetnr are compared."""
    if not (isinstance(answer, tuple) and len(answer) == 3 and answer[0] == "rows"):
        return answer
    fields = [(name, type_, charsetnr, length) if name in ("id", "v", "c", "b") else (name, charsetnr)
              for name, type_, charsetnr, length in answer[2]]
    return ("rows", answer[1], fields)


def test_clients_of_codec_charsets_get_what_mariadb_gives_them(tmp_path) -> None:
    with mariadb_and_ours(tmp_path) as (mariadb, ours):
        (theirs, mine) = _each((mariadb, ours), SETUP, _session, _connector, _cli, _bad_bytes)
        _charsets_against(mariadb)
        refused = [_refused_login(server.port) for server in (mariadb, ours)]
    for name, t, o in zip(("text", "prepared", "cli", "bad bytes"), theirs, mine, strict=True):
        assert len(t) == len(o)
        for i, (a, b) in enumerate(zip(t, o, strict=True)):
            assert _comparable(a) == _comparable(b), f"{name} step {i}:\n MariaDB {a}\n ours    {b}"
    # what MariaDB takes and ours refuses: sjis, big5 (no codec maps them as MariaDB does)
    assert refused[0] == [("rows", ((1,),)), ("rows", ((1,),)), ("ok", 0)]
    assert refused[1] == [("error", 1115)] * 3


def _refused_login(port: int) -> list[tuple]:
    out = []
    for charset in ("sjis", "big5"):
        try:
            conn = _connect(port, charset)
        except pymysql.MySQLError as exc:
            out.append(("error", exc.args[0]))
            continue
        try:
            out.append(_run(conn, "SELECT 1")[:2])
        finally:
            conn.close()
    conn = _connect(port, "utf8mb4")
    try:
        out.append(_run(conn, "SET NAMES greek"))
    finally:
        conn.close()
    return out


def _charsets_against(mariadb) -> None:
    """Each codec set of protocol.charsets against MariaDB's CONVERT: all 256 bytes of a single-byte
    one read, all two-byte codes of a multi-byte one, and every BMP character written ('?' for
    what the set cannot hold; a byte MariaDB reads as '?' is one we keep as a surrogate, which the
    engine refuses with 1366 as MariaDB does)."""
    bmp = "".join(chr(c) for c in range(1, 0x10000) if not 0xD800 <= c < 0xE000)
    for cs in CHARSETS.values():
        if cs.codec in ("utf-8", "ascii", "mysql_latin1"):
            continue
        written = mariadb.query(f"SELECT HEX(CONVERT(_utf8mb4 X'{bmp.encode().hex()}' USING {cs.name}))")[0][0]
        assert cs.encode(bmp).hex().upper() == written, cs.name
        codes = [bytes((b,)) for b in range(0x80 if cs.mbmaxlen > 1 else 0, 0x80 if cs.mbmaxlen > 1 else 256)]
        if cs.mbmaxlen > 1:
            codes += [bytes((a, b)) for a in range(0x81, 0xFF) for b in range(0x40, 0xFF)]
        for at in range(0, len(codes), 2000):
            chunk = codes[at:at + 2000]
            read = mariadb.query("SELECT " + ", ".join(
                f"HEX(CONVERT(CONVERT(X'{code.hex()}' USING {cs.name}) USING utf8mb4))" for code in chunk))[0]
            for code, theirs in zip(chunk, read, strict=True):
                text = bytes.fromhex(theirs).decode()
                mine = cs.decode(code)
                if any(0xDC80 <= ord(ch) <= 0xDCFF for ch in mine):  # a byte we keep: MariaDB's '?'
                    assert "?" in text and b"?" not in code, (cs.name, code, text, mine)
                else:
                    assert mine == text, (cs.name, code, text, mine)


def test_rows_codec_charset_clients_wrote_reach_a_mariadb_replica_and_ours_as_the_master_stored_them(
        tmp_path) -> None:
    rows = "SELECT id, HEX(v), HEX(c), HEX(b) FROM d.t ORDER BY id"
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, followers):
        _each((reference, ours), SETUP, _writes)
        want = reference.query(rows)
        assert len(want) == 2 * len(TEXTS) + 1
        assert ours.query(rows) == want
        for follower in followers:  # a MariaDB replica, our slave
            wait_for(lambda f=follower: _has_table(f) and f.query("SELECT COUNT(*) FROM d.t")[0][0] == len(want),
                     timeout=60)
            assert follower.query(rows) == want


def _writes(port: int) -> None:
    for n, (charset, text) in enumerate(TEXTS.items(), 1):
        conn = _connect(port, charset)
        try:
            with conn.cursor() as cur:
                cur.execute(f"INSERT INTO t VALUES ({n}, '{text}', '{text[:1]}', '{text}')")
                cur.execute("INSERT INTO t VALUES (%s, %s, %s, %s)", (n + 10, text[::-1], text[-1], text[::-1]))
        finally:
            conn.close()
    conn = _connect(port, "gbk")
    try:
        with conn.cursor() as cur:
            cur.execute("UPDATE t SET b = CONCAT(b, 'x') WHERE id = 1")  # a column's value: utf8mb4 as stored
            cur.execute("INSERT INTO t VALUES (99, _cp1251 X'C6F3EA', _koi8r X'F6', _cp1251 X'C6')")
    finally:
        conn.close()
