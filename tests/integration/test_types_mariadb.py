"""Every MySQL column type through our server and through a stock MariaDB 10.11, side by side:
the same table, the same rows (edge values, every byte value, fractions, NULLs) written with
plain PyMySQL / aiomysql / mysql-connector-python cursors (bytes parameters included), read back
identically, and described identically (type code, flags, charset, decimals; length where MySQL
states it from the schema). Strict-mode errors are compared by code and wording."""

from __future__ import annotations

import asyncio
import datetime as dt
import pickle
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pymysql
import pytest

from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.server_shell import ROOT_PASSWORD, ShellServer

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed")

TABLE = """CREATE TABLE alltypes (
 id INT PRIMARY KEY AUTO_INCREMENT, ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
 mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT NOT NULL DEFAULT 0, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
 d DECIMAL(10,2), dm DECIMAL(15,5), dx DECIMAL(65,30), f FLOAT, db DOUBLE, b BIT(8), dd DATE, dt0 DATETIME, dt3 DATETIME(3),
 dt6 DATETIME(6), ts6 TIMESTAMP(6) NULL, tm6 TIME(6), y YEAR, c CHAR(10), vc VARCHAR(100), bn BINARY(4),
 vb VARBINARY(300), tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB, tt TINYTEXT, tx TEXT, mt MEDIUMTEXT,
 lt LONGTEXT, e ENUM('a','bb'), s SET('x','yy'), j JSON, u VARCHAR(5) UNIQUE, k INT, KEY(k))"""

COLUMNS = ["ti", "tiu", "si", "siu", "mi", "miu", "i", "iu", "bi", "biu", "d", "dm", "dx", "f", "db", "b", "dd", "dt0",
           "dt3", "dt6", "ts6", "tm6", "y", "c", "vc", "bn", "vb", "tb", "bl", "mb", "lb", "tt", "tx", "mt",
           "lt", "e", "s", "j", "u", "k"]
EVERY_BYTE = bytes(range(256))
ROWS = [
    # minimums
    (-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, Decimal("-99999999.99"),
     Decimal("-9999999999.99999"), Decimal("-" + "9" * 35 + "." + "9" * 30), -1.5, -2.5e-300, b"\x00", dt.date(1000, 1, 1), dt.datetime(1000, 1, 1),
     dt.datetime(2000, 1, 1, 0, 0, 0, 1000), dt.datetime(2000, 1, 1, 0, 0, 0, 1), dt.datetime(1970, 1, 2),
     dt.timedelta(hours=-838, minutes=-59, seconds=-59), 1901, "", "", b"", b"", b"", b"", b"", b"", "", "",
     "", "", "a", "", "[]", "u1", 0),
    # maximums and fractions
    (127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615,
     Decimal("99999999.99"), Decimal("9999999999.99999"), Decimal("9" * 35 + "." + "9" * 30), 3.5, 1.7976931348623157e308, b"\xff",
     dt.date(9999, 12, 31), dt.datetime(9999, 12, 31, 23, 59, 59), dt.datetime(2024, 2, 29, 12, 30, 45, 123000),
     dt.datetime(2024, 2, 29, 12, 30, 45, 123456), dt.datetime(2038, 1, 19, 3, 14, 7, 999999),
     dt.timedelta(hours=838, minutes=59, seconds=59), 2155, "abcdefghij", "é€😀" * 33, b"\xff\x00\x01\x02",
     EVERY_BYTE, EVERY_BYTE[:255], EVERY_BYTE, EVERY_BYTE * 3, EVERY_BYTE * 5, "t" * 60, "x" * 1000,
     "m" * 2000, "l" * 3000, "bb", "x,yy", '{"a": [1, 2.5, "é"]}', "u2", 7),
    # ordinary values
    (1, 2, 3, 4, 5, 6, 7, 8, 0, 9223372036854775808, Decimal("0.00"), Decimal("3.50000"), Decimal("12345678901234567890.123456789"), 0.0, 0.1, b"\x05", dt.date(2024, 1, 2),
     dt.datetime(2024, 1, 2, 3, 4, 5), dt.datetime(2024, 1, 2, 3, 4, 5), dt.datetime(2024, 1, 2, 3, 4, 5),
     dt.datetime(2024, 1, 2, 3, 4, 5), dt.timedelta(seconds=1, microseconds=500000), 2024, "c", "v",
     b"ab", b"\x00", b"\x80", b"'\\\"", b"\x00\xff", b"z", "tt", "tx", "mt", "lt", "a", "x", "{}", "u3", 1),
    # NULLs (i is NOT NULL)
    tuple(None if name != "i" else 0 for name in COLUMNS),
]
EXPRESSIONS = [
    "1", "-5", "12345678901", "1.5", "1e3", "'abc'", "NULL", "1+2", "i+1", "d+1", "d*2", "i/3", "d/3",
    "db+1", "COUNT(*)", "SUM(i)", "SUM(d)", "SUM(db)", "AVG(i)", "AVG(d)", "MIN(d)", "MAX(i)",
    "MAX(vc)", "NOW()", "CURDATE()", "LENGTH(vc)", "CAST(i AS CHAR)", "CAST(vc AS SIGNED)",
    "CAST(d AS DECIMAL(5,1))", "CAST('2020-01-01' AS DATE)", "i = 1", "IFNULL(i, 0)", "IF(i, 1, 2)",
    "CASE WHEN i > 3 THEN 0 ELSE 3.5 END", "X'FF00'", "i DIV 2", "-i", "ABS(d)", "UNIX_TIMESTAMP()",
    "LAST_INSERT_ID()", "CONCAT('a', i)", "UPPER(vc)",
]
# Which parts of a description must agree: MySQL's lengths of expressions follow rules of their own
# (display widths of intermediate results) that no client reads to decode a value.
SCHEMA_FIELDS = ("type_code", "flags", "charsetnr", "scale", "length")
EXPR_FIELDS = ("type_code", "charsetnr", "scale")
STRICT = [
    "INSERT INTO s (ti) VALUES (128)", "INSERT INTO s (tu) VALUES (-1)", "INSERT INTO s (d) VALUES (1000)",
    "INSERT INTO s (v) VALUES ('abcd')", "INSERT INTO s (vb) VALUES (X'00010203')",
    "INSERT INTO s (i) VALUES ('abc')", "INSERT INTO s (i) VALUES ('12abc')", "INSERT INTO s (e) VALUES ('c')",
    "INSERT INTO s (d) VALUES ('abc')", "INSERT INTO s (dt0) VALUES ('notadate')",
    b"INSERT INTO s (t) VALUES ('\xff\x00')", b"INSERT INTO s (vb) VALUES ('\xff\x00')",
    "INSERT INTO s (d) VALUES (1.005)", "INSERT INTO s (i) VALUES (2.5)", "INSERT INTO s (i) VALUES (-2.5)",
    "INSERT INTO s (dt0, dt3) VALUES ('2020-01-01 10:00:00.6', '2020-01-01 10:00:00.1239')",
    "INSERT INTO s (dt0, dt3) VALUES ('0000-00-00 00:00:00', '0000-00-00 00:00:00.000')",
    "INSERT INTO s (tm) VALUES ('839:00:00')", "INSERT INTO s (tm) VALUES ('-838:59:59.999999')",
    "INSERT INTO s (tm) VALUES ('35 00:00:00')", "INSERT INTO s (tm) VALUES ('34 22:59:59')",
    "INSERT INTO s (tm) VALUES ('8390000')", "INSERT INTO s (tm) VALUES ('-8385959')",
    "INSERT INTO s (tm) VALUES ('12:34')", "INSERT INTO s (tm) VALUES ('2020-01-02 03:04:05.5')",
    "INSERT INTO s (tm) VALUES ('12:60:00')", "INSERT INTO s (tm) VALUES ('1 2')",
]
STRICT_TABLE = ("CREATE TABLE s (id INT PRIMARY KEY AUTO_INCREMENT, ti TINYINT, tu TINYINT UNSIGNED, "
                "d DECIMAL(5,2), v VARCHAR(3), vb VARBINARY(3), t TEXT, bn BINARY(3), dt0 DATETIME, "
                "dt3 DATETIME(3), e ENUM('a','b'), i INT, tm TIME(6))")


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    maria = MariaDBServer(tmp_path_factory.mktemp("maria"), log_bin=None).start()
    ours = ShellServer(tmp_path_factory.mktemp("ours")).start()
    try:
        yield {"mariadb": (maria.port, ""), "ours": (ours.port, ROOT_PASSWORD)}
    finally:
        ours.stop()
        maria.stop()


def connect(servers, which, db=None):
    port, password = servers[which]
    return pymysql.connect(host="127.0.0.1", port=port, user="root", password=password, database=db,
                           autocommit=True, charset="utf8mb4")


def fresh(servers, which, name):
    conn = connect(servers, which)
    cur = conn.cursor()
    cur.execute(f"DROP DATABASE IF EXISTS {name}")
    cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4")
    cur.execute(f"USE {name}")
    return conn


def attempt(conn, sql) -> object:
    """'ok', or the error's (code, message)."""
    try:
        conn.query(sql)
        return "ok"
    except pymysql.MySQLError as exc:
        return exc.args


def describe(cur, fields):
    return [(f.name, *(getattr(f, k) for k in fields)) for f in cur._result.fields]


def insert_sql():
    return f"INSERT INTO alltypes ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"


@pytest.fixture(scope="module")
def alltypes(servers):
    """Database `ty` with table alltypes written through PyMySQL on both servers; what was read."""
    seen = {}
    for which in servers:
        conn = fresh(servers, which, "ty")
        cur = conn.cursor()
        cur.execute(TABLE)
        cur.executemany(insert_sql(), ROWS)
        cur.execute(f"SELECT {', '.join(COLUMNS)} FROM alltypes ORDER BY id")
        rows = cur.fetchall()
        star = describe(cur, SCHEMA_FIELDS)
        cur.execute("SELECT * FROM alltypes ORDER BY id")
        star_all = describe(cur, SCHEMA_FIELDS)
        cur.execute(f"SELECT {', '.join(EXPRESSIONS)} FROM alltypes WHERE id = 3")
        expr = describe(cur, EXPR_FIELDS)
        seen[which] = rows, star, star_all, expr
    return seen


def test_pymysql_every_type_round_trips_and_is_described_as_mariadb(alltypes):
    theirs, ours = alltypes["mariadb"], alltypes["ours"]
    for k, (mine, real) in enumerate(zip(ours[0], theirs[0], strict=True)):
        for name, a, b in zip(COLUMNS, mine, real, strict=True):
            assert (k, name, a) == (k, name, b)
    assert ours[0][1][COLUMNS.index("vb")] == EVERY_BYTE  # every byte value, not mangled
    for mine, real in zip(ours[1:], theirs[1:], strict=True):
        wrong = [f"{a} (MariaDB: {b})" for a, b in zip(mine, real, strict=True) if a != b]
        assert not wrong, "\n".join(wrong)


def test_first_rows_never_decide_a_column_type(servers):
    """Rows 0 then 3.5 (the first an integer): one DECIMAL column, read without error."""
    for which in servers:
        cur = fresh(servers, which, "mix").cursor()
        cur.execute("CREATE TABLE m (id INT PRIMARY KEY, n NUMERIC(10,2))")
        cur.execute("INSERT INTO m VALUES (1, 0), (2, 3.5)")
        cur.execute("SELECT n, id * 1.5, CASE WHEN id = 1 THEN 0 ELSE 3.5 END FROM m ORDER BY id")
        assert cur.fetchall() == ((Decimal("0.00"), Decimal("1.5"), Decimal("0.0")),
                                  (Decimal("3.50"), Decimal("3.0"), Decimal("3.5"))), which
        cur.execute("SELECT 1 UNION ALL SELECT 'abc'")
        assert cur.fetchall() == (("1",), ("abc",)), which


def test_strict_mode_errors_as_mariadb(servers):
    results = {}
    for which in servers:
        conn = fresh(servers, which, "strict")
        conn.cursor().execute(STRICT_TABLE)
        out = [attempt(conn, sql) for sql in STRICT]
        cur = conn.cursor()
        cur.execute("SELECT d, i, dt0, dt3, tm FROM s ORDER BY id")
        out.append(cur.fetchall())
        results[which] = out
    for sql, mine, real in zip(STRICT, results["ours"], results["mariadb"], strict=False):
        assert (sql, mine) == (sql, real)
    assert results["ours"][-1] == results["mariadb"][-1]


def _connector_rows(port, password, use_pure):
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password=password,
                                   database="ty", use_pure=use_pure, autocommit=True)
    try:
        cur = conn.cursor()
        cur.execute("DELETE FROM alltypes WHERE id > 100")
        cur.execute("INSERT INTO alltypes (id, vb, bl, d, dt6, vc) VALUES (%s, %s, %s, %s, %s, %s)",
                    (101, EVERY_BYTE[:255], EVERY_BYTE, Decimal("-12345678.91"),
                     dt.datetime(2024, 5, 6, 7, 8, 9, 654321), "é€😀"))
        cur.execute("SELECT vb, bl, d, dt6, vc FROM alltypes WHERE id = 101")
        return cur.fetchall()
    finally:
        conn.close()


ROOT = Path(__file__).resolve().parents[2]
# mysql-connector's C extension needs the OpenSSL it ships, which it can load only in a process
# that has not loaded the system's libssl yet (this one has: pytest, PyMySQL): it runs in a child.
_CEXT = "import _mysql_connector, pickle, sys; from tests.integration.test_types_mariadb import {0}; " \
        "sys.stdout.buffer.write(pickle.dumps({0}(*pickle.loads(sys.stdin.buffer.read()))))"


def cext_loads() -> bool:
    """Whether mysql-connector's C extension loads on this machine (in a fresh process)."""
    return subprocess.run([sys.executable, "-c", "import _mysql_connector"], capture_output=True).returncode == 0


def connector_call(fn, *args, use_pure: bool):
    """fn(*args, use_pure): here for the pure-Python client, in a fresh process for the C extension."""
    if use_pure:
        return fn(*args, True)
    done = subprocess.run([sys.executable, "-c", _CEXT.format(fn.__name__)], input=pickle.dumps((*args, False)),
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return pickle.loads(done.stdout)


def skip_unless_flavour(use_pure: bool) -> None:
    pytest.importorskip("mysql.connector")
    if not use_pure and not cext_loads():
        pytest.skip("mysql-connector's C extension does not load here")


@pytest.mark.parametrize("use_pure", [True, False], ids=["pure", "cext"])
def test_mysql_connector_plain_cursor_round_trip(servers, alltypes, use_pure):
    skip_unless_flavour(use_pure)
    got = {which: connector_call(_connector_rows, *servers[which], use_pure=use_pure) for which in servers}
    assert got["ours"] == got["mariadb"]
    assert got["ours"][0][0] == EVERY_BYTE[:255] and got["ours"][0][2] == Decimal("-12345678.91")


def test_aiomysql_round_trip(servers, alltypes):
    aiomysql = pytest.importorskip("aiomysql")

    async def rows(port, password):
        conn = await aiomysql.connect(host="127.0.0.1", port=port, user="root", password=password, db="ty",
                                      autocommit=True)
        try:
            async with conn.cursor() as cur:
                await cur.execute(f"SELECT {', '.join(COLUMNS)} FROM alltypes WHERE id <= 4 ORDER BY id")
                return await cur.fetchall(), [tuple(d[:2]) for d in cur.description]
        finally:
            conn.close()

    got = {which: asyncio.run(rows(*servers[which])) for which in servers}
    assert got["ours"] == got["mariadb"]


def test_update_literals_stored_as_insert_literals(servers):
    results = {}
    for which in servers:
        conn = fresh(servers, which, "upd")
        cur = conn.cursor()
        cur.execute(STRICT_TABLE)
        cur.execute("INSERT INTO s (id) VALUES (1)")
        out = [attempt(conn, sql) for sql in [
            "UPDATE s SET ti = 300 WHERE id = 1", "UPDATE s SET v = 'long' WHERE id = 1",
            "UPDATE s SET d = 1.005, bn = X'01', dt3 = '2020-01-01 10:00:00.12345' WHERE id = 1",
            b"UPDATE s SET t = 'ok\xff' WHERE id = 1", b"UPDATE s SET vb = '\xfe\x00' WHERE id = 1"]]
        cur.execute("SELECT ti, v, d, bn, dt3, t, vb FROM s")
        out.append(cur.fetchall())
        results[which] = out
    assert results["ours"] == results["mariadb"]


def test_decimal_exact_compared_sorted_and_grouped_by_value(servers):
    results = {}
    for which in servers:
        cur = fresh(servers, which, "decs").cursor()
        cur.execute("CREATE TABLE x (id INT PRIMARY KEY, d DECIMAL(40,20), u BIGINT UNSIGNED, KEY (d))")
        cur.execute("INSERT INTO x VALUES (1, 12345678901234567890.00000000000000000001, 18446744073709551615), "
                    "(2, 3.5, 9), (3, 10, 10), (4, -0.5, 9223372036854775808), "
                    "(5, 12345678901234567890.00000000000000000002, 0), (6, 3.50, NULL)")
        results[which + " errors"] = [attempt(cur.connection, bad) for bad in (
            "INSERT INTO x (id, u) VALUES (7, 18446744073709551616)", "INSERT INTO x (id, u) VALUES (7, -1)")]
        out = []
        for sql in ["SELECT id, d FROM x ORDER BY d, id", "SELECT id FROM x WHERE d = 3.5 ORDER BY id",
                    "SELECT id FROM x WHERE d > 4 ORDER BY id", "SELECT d, COUNT(*) FROM x GROUP BY d ORDER BY d",
                    "SELECT MIN(d), MAX(d) FROM x", "SELECT id FROM x WHERE d = '3.500' ORDER BY id",
                    "SELECT id, u FROM x ORDER BY u, id", "SELECT id FROM x WHERE u > 9223372036854775807",
                    "SELECT SUM(u) FROM x WHERE u < 100"]:
            cur.execute(sql)
            out.append(cur.fetchall())
        results[which] = out
    assert results["ours"] == results["mariadb"]
    assert results["ours errors"] == results["mariadb errors"]


def test_bytes_that_are_not_utf8_in_a_where_clause_compare_as_binary(servers):
    results = {}
    for which in servers:
        conn = fresh(servers, which, "wh")
        conn.cursor().execute("CREATE TABLE h (id INT PRIMARY KEY, k VARBINARY(8))")
        out = [attempt(conn, b"INSERT INTO h VALUES (1, '\xff\xfe'), (2, 'ab')"),
               attempt(conn, b"UPDATE h SET id = 3 WHERE k = '\xff\xfe'")]
        cur = conn.cursor()
        cur.execute(b"SELECT id, k FROM h WHERE k = '\xff\xfe' OR k = 'ab' ORDER BY id")
        out.append(cur.fetchall())
        results[which] = out
    assert results["ours"] == results["mariadb"]


# mysql-connector-python reads a binary YEAR (2 bytes, as MySQL sends it) as a length-encoded
# string, which misreads the values after it: YEAR goes last.
PREPARED_COLUMNS = [name for name in COLUMNS if name != "y"] + ["y"]
# Rows only a prepared INSERT can send as typed parameters, on top of ROWS: a negative TIME with
# a fraction, TIMEs beyond the range (mysqld clips a TIME parameter, fraction kept), BINARY(n)
# and BIT with high bytes, a DATETIME(6) with one microsecond.
PREPARED_ROWS = [*ROWS, *(tuple({"tm6": tm6, "bn": bn, "b": b, "dt6": dt6, "u": u}.get(name, v)
                                for name, v in zip(COLUMNS, ROWS[2], strict=True))
                          for tm6, bn, b, dt6, u in [
    (dt.timedelta(hours=-12, minutes=-34, seconds=-56, microseconds=-789012), b"\x80\x7f\x00\xff", b"\x80",
     dt.datetime(1999, 12, 31, 23, 59, 59, 1), "p1"),
    (dt.timedelta(hours=-839, microseconds=-500000), b"\xff" * 4, b"\x7f", dt.datetime(2000, 1, 1), "p2"),
    (dt.timedelta(days=40), b"\x00" * 4, b"\x01", dt.datetime(2000, 1, 1, 0, 0, 0, 999999), "p3"),
])]


def _typed(rows) -> list[list[tuple[str, str, object]]]:
    """Each value with its column and its Python type: a prepared cursor decodes binary rows by
    the column types, so a wrong type code shows as a wrong Python type."""
    return [[(name, type(v).__name__, v) for name, v in zip(PREPARED_COLUMNS, row, strict=True)] for row in rows]


def _cext_sendable(value):
    """What mysql-connector's C extension sends right as a parameter (NULL in its place where it
    does not, against any server: an integer beyond BIGINT raises in the client, DBL_MAX goes out
    as infinity, a timedelta as fields out of range)."""
    if isinstance(value, int) and value >= 2**63 or value == 1.7976931348623157e308 or isinstance(value, dt.timedelta):
        return None
    return value


def prepared_insert(port, password, table, use_pure=True, database="ty"):
    """Table `table` (alltypes' definition) written with PREPARED_ROWS by mysql-connector-python
    `cursor(prepared=True)` INSERTs: every column a typed parameter; then read back the same way."""
    import mysql.connector

    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password=password,
                                   database=database, use_pure=use_pure, autocommit=True)
    try:
        conn.cursor().execute(f"DROP TABLE IF EXISTS {table}")
        conn.cursor().execute(TABLE.replace("alltypes", table, 1))
        cur = conn.cursor(prepared=True)
        for row in PREPARED_ROWS:
            cur.execute(insert_sql().replace("alltypes", table, 1), row if use_pure else tuple(map(_cext_sendable, row)))
        cur.execute(f"SELECT {', '.join(PREPARED_COLUMNS)} FROM {table} ORDER BY id")
        return cur.fetchall()
    finally:
        conn.close()


def _connector_prepared(port, password, use_pure):
    """The every-type table read by a prepared cursor (binary rows), a table written by prepared
    INSERTs read back the same way, and that table as PyMySQL's text protocol reads it."""
    import mysql.connector

    table = f"ps_{'pure' if use_pure else 'cext'}"
    conn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", password=password,
                                   database="ty", use_pure=use_pure, autocommit=True)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute(f"SELECT {', '.join(PREPARED_COLUMNS)} FROM alltypes WHERE id < %s ORDER BY id", (100,))
        read = cur.fetchall()
    finally:
        conn.close()
    written = prepared_insert(port, password, table, use_pure)
    text = pymysql.connect(host="127.0.0.1", port=port, user="root", password=password, database="ty",
                           charset="utf8mb4")
    try:
        with text.cursor() as tcur:
            tcur.execute(f"SELECT {', '.join(PREPARED_COLUMNS)} FROM {table} ORDER BY id")
            stored = tcur.fetchall()
    finally:
        text.close()
    return read, written, stored


@pytest.mark.parametrize("use_pure", [True, False], ids=["pure", "cext"])
def test_mysql_connector_prepared_cursor_every_type_as_mariadb(servers, alltypes, use_pure):
    """Binary rows of every column type and prepared INSERTs binding every parameter type (bytes
    with every byte value, Decimal, datetimes with fractions, edge values, NULLs): the values
    and their Python types are MariaDB's, through the binary and the text protocol."""
    skip_unless_flavour(use_pure)
    got = {which: connector_call(_connector_prepared, *servers[which], use_pure=use_pure) for which in servers}
    for what, mine, real in zip(("read", "written", "stored"), got["ours"], got["mariadb"], strict=True):
        assert len(mine) == len(real) == (len(ROWS) if what == "read" else len(PREPARED_ROWS)), what
        for k, (a, b) in enumerate(zip(_typed(mine), _typed(real), strict=True)):
            wrong = [f"{x} (MariaDB: {y})" for x, y in zip(a, b, strict=True) if x != y]
            assert not wrong, f"{what} row {k}:\n" + "\n".join(wrong)
    read, written, stored = got["ours"]
    vb = PREPARED_COLUMNS.index("vb")
    if not use_pure:
        assert read[1][vb] == written[1][vb] == stored[1][vb] == EVERY_BYTE
        return
    assert read[1][vb] == written[1][vb] == stored[1][vb] == EVERY_BYTE
    assert stored[1][PREPARED_COLUMNS.index("biu")] == 18446744073709551615
    # (mysql-connector sends a negative timedelta as its days' magnitude and its positive seconds:
    # -12:34:56.789012 arrives as -35:25:03.210988; what it sends is what both servers store)
    tm6 = PREPARED_COLUMNS.index("tm6")
    assert stored[4][tm6] == -dt.timedelta(hours=35, minutes=25, seconds=3, microseconds=210988)
    assert stored[5][tm6] == -dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=500000)


def test_decimal_arithmetic_exact_as_mariadb(servers):
    """SUM, AVG, + - * / on 30-40 digit DECIMALs: exact, with MySQL's result scales (SUM keeps
    the scale, AVG and / add 4, + - the larger, * the sum), as MariaDB computes them."""
    exprs = ["SUM(d)", "AVG(d)", "SUM(e)", "AVG(e)", "d + e", "d - e", "e * 3", "d * n", "d / 7", "e / d",
             "-d", "(d + 1) * 2", "d + 0.5", "SUM(d) * 2 - SUM(e)", "AVG(d + e)", "d / 0", "d + n", "SUM(n)",
             "u + 1", "u - 1", "u / 3", "u + d", "SUM(u)", "AVG(u)"]
    results = {}
    for which in servers:
        cur = fresh(servers, which, "decmath").cursor()
        cur.execute("CREATE TABLE x (id INT PRIMARY KEY, d DECIMAL(40,20), e DECIMAL(38,5), n INT, g INT, "
                    "u BIGINT UNSIGNED)")
        cur.execute("INSERT INTO x VALUES (1, 12345678901234567890.12345678901234567891, "
                    "123456789012345678901234567890123.12345, 7, 1, 18446744073709551614), "
                    "(2, -9876543210987654321.98765432109876543219, 0.00001, -3, 1, 9223372036854775809), "
                    "(3, 0.00000000000000000001, -99999999999999999999999999999999.99999, NULL, 2, 1), "
                    "(4, NULL, 1, 5, 2, NULL)")
        out = []
        for sql in [f"SELECT {', '.join(exprs)} FROM x WHERE id < 4 GROUP BY id ORDER BY id",
                    f"SELECT g, {', '.join(e for e in exprs if e.startswith(('SUM', 'AVG')))} FROM x GROUP BY g",
                    "SELECT id, d * 2 AS t FROM x WHERE d * 2 > 1 ORDER BY id",
                    "SELECT FLOOR(1.7976931348623157e308), CEIL(-1e300), FLOOR(2.5e0), CEIL(n * 1.5) FROM x"]:
            cur.execute(sql)
            out.append((sql, [tuple(f.type_code for f in cur._result.fields), cur.fetchall()]))
        results[which] = out
        # a result that the statement itself compares or sorts is computed by SQLite (a float
        # there), never compared as text: the right rows, in the right order
        for sql in ["SELECT id, d AS t FROM x WHERE d > 0 ORDER BY d * 2 DESC",
                    "SELECT g, SUM(d) AS s FROM x GROUP BY g HAVING s > 1", "SELECT g FROM x GROUP BY g ORDER BY SUM(e)",
                    "SELECT g, SUM(e) FROM x GROUP BY g ORDER BY 2"]:
            cur.execute(sql)
            results[which + " order"] = results.get(which + " order", []) + [[row[0] for row in cur.fetchall()]]
    assert results["ours order"] == results["mariadb order"]
    for (sql, (mine_types, mine)), (_, (real_types, real)) in zip(results["ours"], results["mariadb"], strict=True):
        assert (sql, mine_types) == (sql, real_types)
        assert len(mine) == len(real), sql
        for row, want in zip(mine, real, strict=True):
            wrong = [(expr, a, b) for expr, a, b in zip(exprs if len(row) == len(exprs) else ["?", *exprs], row, want, strict=False) if a != b]
            assert not wrong, (sql, wrong)


EXACT_EVERYWHERE = [
    "SELECT id FROM x WHERE d = 12345678901234567.89", "SELECT id FROM x WHERE d = -12345678901234567.89 OR id = 3",
    "SELECT id FROM x WHERE d * 2 > 24691357802469135.77 ORDER BY id",
    "SELECT id FROM x WHERE d + 0.01 = 12345678901234567.90", "SELECT id FROM x WHERE d = e ORDER BY id",
    "SELECT id FROM x WHERE d > e ORDER BY id", "SELECT id FROM x WHERE d > n ORDER BY id",
    "SELECT id FROM x WHERE d BETWEEN 12345678901234567.885 AND 12345678901234567.895",
    "SELECT id FROM x WHERE d * 1 NOT BETWEEN 12345678901234567.885 AND 12345678901234567.895 ORDER BY id",
    "SELECT id FROM x WHERE d IN (12345678901234567.89, 0.01) ORDER BY id",
    "SELECT id FROM x WHERE d + 0 NOT IN (12345678901234567.89, 0.01) ORDER BY id",
    "SELECT id, d * 3 FROM x ORDER BY d * 3 DESC", "SELECT id, d + 1 AS s FROM x ORDER BY s DESC",
    "SELECT id, d + 1 AS s FROM x ORDER BY 2",
    "SELECT n, SUM(d) FROM x GROUP BY n HAVING SUM(d) > 12345678901234567.88 ORDER BY n",
    "SELECT n, SUM(d) AS s FROM x GROUP BY n HAVING s > 12345678901234567.88 ORDER BY n",
    "SELECT d * 0 AS z, COUNT(*) FROM x GROUP BY d * 0 ORDER BY z",
    "SELECT ROUND(d * 3, 2), ROUND(d * 3, 1), ROUND(e, 2), ABS(-d), GREATEST(d, e), LEAST(d, 5), TRUNCATE(e, 3), "
    "FLOOR(e), CEIL(e), ROUND(e, -3), MOD(d, 7) FROM x ORDER BY id",
    "SELECT MAX(d * 2), MIN(d - 1) FROM x", "SELECT id FROM x WHERE ABS(d) > 12345678901234567.88 ORDER BY id",
    "SELECT CAST(d AS DECIMAL(25,3)), CAST(e AS DECIMAL(5,2)), CAST(1.005 AS DECIMAL(5,2)), "
    "CAST(123.456 AS DECIMAL(4,1)), CAST(-123.456 AS DECIMAL(4,1)) FROM x ORDER BY id",
    "SELECT id FROM x WHERE u = 18446744073709551615", "SELECT id, IFNULL(d, 0) + 1 FROM x ORDER BY id",
    "SELECT id FROM x WHERE COALESCE(d, 0) * 2 > 1 ORDER BY id", "SELECT 1/3, 7 DIV 2, 10 % 3, -d FROM x WHERE id = 1",
    "SELECT DISTINCT d * 0 FROM x", "SELECT id FROM x WHERE d * 1 <=> NULL",
    "SELECT id FROM x WHERE (d - 12345678901234567.88) * 100 = 1",
    "SELECT CASE WHEN d > 1 THEN d * 2 ELSE 0 END FROM x ORDER BY id",
    "SELECT id FROM x WHERE id IN (SELECT id FROM x WHERE d * 2 > 24691357802469135.77)",
    "UPDATE x SET d = d + 0.01 WHERE id = 1", "UPDATE x SET e = e - 0.00001 WHERE d * 1 > 12345678901234567.88",
    "SELECT d, e FROM x ORDER BY id", "INSERT INTO y SELECT id, d * 2 FROM x WHERE d IS NOT NULL",
    "INSERT INTO y VALUES (10, 12345678901234567.89 + 0.01)", "SELECT * FROM y ORDER BY id",
    "DELETE FROM y WHERE d / 2 = 12345678901234567.95", "SELECT id FROM y ORDER BY id",
    "SELECT SUM(DISTINCT d), AVG(DISTINCT d), COUNT(DISTINCT d) FROM x",
    "SELECT id, SUM(d) OVER (ORDER BY id), AVG(e) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
    "FROM x ORDER BY id",
    "INSERT INTO y VALUES (1, 0.01) ON DUPLICATE KEY UPDATE d = d + VALUES(d)", "SELECT d FROM y WHERE id = 1",
    "SELECT CASE d WHEN 12345678901234567.89 THEN 'yes' ELSE 'no' END, NULLIF(d, 0.01), FORMAT(d, 1) FROM x ORDER BY id",
    "SELECT (SELECT SUM(d) FROM x) * 2, (SELECT MAX(d) FROM x WHERE id < 3) - 0.01",
    "SELECT id FROM x WHERE d > 1e3 ORDER BY id", "SELECT id, d + 1e0 > 1e16 FROM x ORDER BY id",
    "SELECT SUM(b), AVG(b) FROM big",
]


def run_on_both(servers, database: str, setup: list[str], statements: list[str]) -> dict[str, list]:
    """`setup` then each of `statements` on both servers: per server, each statement's column
    type codes and rows (or affected rows), or its error."""
    results = {}
    for which in servers:
        cur = fresh(servers, which, database).cursor()
        for sql in setup:
            cur.execute(sql)
        out: list[tuple] = []  # (sql, column names, rows or rowcount) or (sql, error args)
        for sql in statements:
            try:
                cur.execute(sql)
                out.append((sql, [d[1] for d in cur.description or ()], cur.fetchall() or cur.rowcount))
            except pymysql.MySQLError as exc:
                out.append((sql, exc.args))
        results[which] = out
    return results


def test_decimal_exact_in_every_clause_as_mariadb(servers):
    """DECIMALs beyond a double's 15 digits: compared, computed, sorted, grouped, rounded, cast,
    updated and copied exactly in every clause, as MariaDB does."""
    results = run_on_both(servers, "decall", [
        "CREATE TABLE x (id INT PRIMARY KEY, d DECIMAL(20,2), e DECIMAL(30,5), n INT, u BIGINT UNSIGNED)",
        "CREATE TABLE y (id INT PRIMARY KEY, d DECIMAL(20,2))",
        "CREATE TABLE big (b BIGINT)", "INSERT INTO big VALUES (9223372036854775807), (9223372036854775807), (-1)",
        "INSERT INTO x VALUES (1, 12345678901234567.89, 12345678901234567.12345, 7, 18446744073709551615), "
        "(2, 12345678901234567.88, 1.5, -3, 1), (3, 0.01, 0.01000, NULL, NULL), (4, NULL, 2, 5, 5), "
        "(5, 12345678901234567.00, 0, 2147483647, 0)"], EXACT_EVERYWHERE)
    for mine, real in zip(results["ours"], results["mariadb"], strict=True):
        assert mine == real


STRICT_EXPRESSIONS = [
    "UPDATE s SET t = t + 20 WHERE id >= 1", "UPDATE s SET t = t + 200 WHERE id = 1",
    "UPDATE s SET v = CONCAT(v, 'x')", "UPDATE s SET v = CONCAT(v, 'x') WHERE id = 1", "UPDATE s SET d = d * 1000",
    "UPDATE s SET d = d * 1.111 WHERE id = 1", "UPDATE s SET d = d * 1.0001 WHERE id = 2", "UPDATE s SET i = d * 3",
    "UPDATE s SET i = 2147483647 + i", "UPDATE s SET i = '12abc'", "SELECT * FROM s ORDER BY id",
    "INSERT INTO w (v) SELECT v FROM s ORDER BY id", "INSERT INTO w (t) SELECT t * 2 FROM s ORDER BY id",
    "INSERT INTO w (t) SELECT t FROM s ORDER BY id", "INSERT INTO w (d) SELECT d * 100 FROM s ORDER BY id",
    "INSERT INTO w (d) SELECT d / 3 FROM s ORDER BY id", "INSERT INTO w (t) VALUES (100 + 100)",
    "INSERT INTO w (v) VALUES (CONCAT('a', 'bc'))", "INSERT INTO w (id, t, v) VALUES (100, 1, 'a')",
    "INSERT INTO w (id, t, v) VALUES (100, 1, 'a') ON DUPLICATE KEY UPDATE t = t + 1000",
    "INSERT INTO w (id, t, v) VALUES (100, 1, 'a') ON DUPLICATE KEY UPDATE v = CONCAT(v, 'bc')",
    "SELECT v, t, d FROM w ORDER BY v, t, d",
    "UPDATE s SET v = DEFAULT WHERE id = 1", "SELECT v FROM s WHERE id = 1",
    # a later assignment reads the new value of an earlier one (MariaDB's order)
    "UPDATE s SET i = i + 1, t = i * 2 WHERE id = 2", "UPDATE s SET v = 'xy', d = LENGTH(v), i = (SELECT MAX(t) FROM w) "
    "WHERE id = 1", "INSERT INTO w (id, t, v) VALUES (100, 1, 'a') ON DUPLICATE KEY UPDATE t = t + 1, v = t",
    "SELECT * FROM s ORDER BY id", "SELECT v, t FROM w WHERE id = 100",
]


def test_strict_mode_for_expressions_as_mariadb(servers):
    """A computed value written to a column is checked as a literal is (MariaDB's default
    STRICT_TRANS_TABLES): 1264 out of range, 1406 too long, 1265 truncated, DECIMAL rounded to
    its scale (and counted as no change when the rounded value is the old one)."""
    results = run_on_both(servers, "strictexpr", [
        "CREATE TABLE s (id INT PRIMARY KEY, t TINYINT, u TINYINT UNSIGNED, v VARCHAR(3), d DECIMAL(5,2), i INT)",
        "CREATE TABLE w (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(2), t TINYINT, d DECIMAL(4,1))",
        "INSERT INTO s VALUES (1, 1, 1, 'a', 1.5, 1), (2, 50, 2, 'bb', 2.5, 2), (3, 100, 3, 'ccc', 3.5, 3)"],
        STRICT_EXPRESSIONS)
    for mine, real in zip(results["ours"], results["mariadb"], strict=True):
        assert mine == real


SMALL_SURFACE = [
    "SELECT LENGTH(NOW(6)), LENGTH(CURRENT_TIMESTAMP(6)), LENGTH(SYSDATE(6)), LENGTH(NOW(3)), LENGTH(CURTIME(6)), "
    "LENGTH(UTC_TIMESTAMP(6)), LENGTH(NOW(0))", "SELECT NOW(7)", "SELECT CURTIME(7)",
    "SELECT UPPER('é'), LOWER('É'), UPPER(s), LOWER(UPPER(s)), UCASE('ß') FROM t ORDER BY id",
    "SELECT ~0, ~1, 5 ^ 3, -1 ^ 0, id ^ 1 FROM t ORDER BY id", "SELECT -tm, -dt, tm + 0, dt + 0, tm * 1 FROM t ORDER BY id",
    "UPDATE t SET fid.t.s = 'x' WHERE fid.t.id = 2", "SELECT fid.t.s FROM fid.t ORDER BY fid.t.id",
    # a UNION's columns: each the aggregation of its branches' types, DECIMAL kept exact
    "SELECT 1 UNION SELECT 'a' ORDER BY 1", "SELECT d FROM x UNION SELECT 1.5 ORDER BY 1",
    "SELECT id, d * 2 FROM x UNION ALL SELECT 9, 1.5 ORDER BY id", "SELECT v FROM x UNION SELECT 2.5 ORDER BY 1",
    "SELECT v FROM x UNION SELECT f FROM x ORDER BY 1", "SELECT dt FROM t UNION SELECT dt FROM t ORDER BY 1",
    "SELECT NULL UNION SELECT 1 ORDER BY 1", "SELECT COUNT(*) FROM x UNION SELECT SUM(v) FROM x ORDER BY 1",
    "SELECT k, GROUP_CONCAT(v ORDER BY v) FROM g GROUP BY k ORDER BY k",
    "SELECT k, GROUP_CONCAT(v ORDER BY id DESC SEPARATOR '|') FROM g GROUP BY k ORDER BY k",
    "SELECT k, GROUP_CONCAT(DISTINCT v ORDER BY v DESC), GROUP_CONCAT(DISTINCT v SEPARATOR ';') FROM g GROUP BY k "
    "ORDER BY k", "SELECT k, GROUP_CONCAT(v, id ORDER BY id) FROM g GROUP BY k ORDER BY k",
    "SELECT GROUP_CONCAT(d * 2 ORDER BY id SEPARATOR ','), GROUP_CONCAT(id SEPARATOR '') FROM g",
]
CTES = [
    "WITH a AS (SELECT 1 AS x) SELECT * FROM a",
    "WITH a AS (SELECT id FROM t), b (n) AS (SELECT 2) SELECT a.id FROM a JOIN u ON u.id = a.id JOIN b ON b.n = a.id",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r",
]


def test_small_surface_as_mariadb(servers):
    """NOW(6) and friends, UPPER/LOWER beyond ASCII, ^ and ~ as 64-bit unsigned operators, a
    temporal column in arithmetic as its number, db.t.c names, common table expressions, the
    types of a UNION's columns, GROUP_CONCAT with ORDER BY / DISTINCT / SEPARATOR."""
    setup = ["CREATE TABLE t (id INT PRIMARY KEY, tm TIME, dt DATETIME(6), s VARCHAR(10))",
             "CREATE TABLE x (id INT PRIMARY KEY, d DECIMAL(20,2), v INT, f DOUBLE)",
             "INSERT INTO x VALUES (1, 12345678901234567.89, 7, 1.5), (2, NULL, NULL, NULL)",
             "CREATE TABLE g (id INT PRIMARY KEY, k INT, v VARCHAR(5), d DECIMAL(20,2))",
             "INSERT INTO g VALUES (1, 1, 'b', 1.5), (2, 1, 'a', 12345678901234567.89), (3, 2, 'c', NULL), "
             "(4, 1, 'a', 2), (5, 2, NULL, 3)",
             "CREATE TABLE u (id INT PRIMARY KEY, v INT)",
             "INSERT INTO t VALUES (1, '12:34:56', '2020-01-02 03:04:05.123456', 'é'), (2, '-01:00:00', NULL, 'ǅx')",
             "INSERT INTO u VALUES (1, 10), (2, 20)"]
    results = run_on_both(servers, "fid", setup, SMALL_SURFACE + CTES)
    for mine, real in zip(results["ours"], results["mariadb"], strict=True):
        if mine[0] in CTES:  # a common table expression's columns are typed from its values
            mine, real = (mine[0], mine[2]), (real[0], real[2])
        assert mine == real


def test_char_drops_trailing_spaces_as_mariadb(servers):
    """A CHAR(n) value is read without its trailing spaces (MariaDB pads it and strips them when
    read, sql_mode without PAD_CHAR_TO_FULL_LENGTH): its value, LENGTH, CONCAT, = and LIKE with
    a literal without them, after an INSERT, an UPDATE, a value of n characters plus spaces;
    leading spaces and a VARCHAR's trailing ones are kept."""
    setup = ["CREATE TABLE t (id INT PRIMARY KEY, c CHAR(5), v VARCHAR(5))",
             "INSERT INTO t VALUES (1, 'ab  ', 'ab  '), (2, '  x ', ' x '), (3, 'abcde   ', 'v'), (4, '', ''), "
             "(5, '   ', ' ')",
             "UPDATE t SET c = CONCAT('y', '  ') WHERE id = 4"]
    statements = ["SELECT id, c, v, LENGTH(c), CONCAT('[', c, ']'), c = 'ab', c LIKE 'ab', CHAR_LENGTH(v) "
                  "FROM t ORDER BY id",
                  "SELECT COUNT(*) FROM t WHERE c = 'ab'", "SELECT id FROM t WHERE c LIKE '%x' ORDER BY id",
                  "SELECT id FROM t WHERE c = '' ORDER BY id"]
    results = run_on_both(servers, "chars", setup, statements)
    assert results["ours"] == results["mariadb"]
    assert results["ours"][0][2][0] == (1, "ab", "ab  ", 2, "[ab]", 1, 1, 4)
