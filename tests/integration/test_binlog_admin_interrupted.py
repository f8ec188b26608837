"""FLUSH BINARY LOGS, PURGE and RESET MASTER under a max_statement_time that runs out while they
run: the answer always says what happened. 1969 only when nothing was done (the limit ran out
while the statement waited for the binlog's writer side); once the work started it runs whole
and answers OK (MariaDB answers OK for work it did). The binlog stays consistent: every file
listed exists, and writes go on after.
"""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon


def files(conn: pymysql.connections.Connection) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SHOW BINARY LOGS")
        return [row[0] for row in cur.fetchall()]


def outcome(conn: pymysql.connections.Connection, sql: str) -> int:
    """0 for OK, else the error code."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    except pymysql.MySQLError as exc:
        return exc.args[0]
    return 0


@pytest.fixture
def master(tmp_path):
    daemon = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        yield daemon
    finally:
        daemon.stop()


def test_binlog_statements_cut_short_report_what_they_did(master):
    conn = master.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE DATABASE d")
            cur.execute("CREATE TABLE d.t (a INT PRIMARY KEY)")
        seen = set()
        for i in range(60):
            limit = (0.000001, 0.0005, 0.002)[i % 3]
            before = files(conn)
            code = outcome(conn, f"SET STATEMENT max_statement_time={limit} FOR FLUSH BINARY LOGS")
            after = files(conn)
            seen.add(code)
            assert code in (0, 1969)
            assert (len(after) == len(before) + 1) == (code == 0), (code, before, after)
            if i % 10 == 9:
                keep = after[-1]
                code = outcome(conn, f"SET STATEMENT max_statement_time={limit} FOR PURGE BINARY LOGS TO '{keep}'")
                assert (files(conn) == [keep]) == (code == 0) or after == [keep], (code, after, files(conn))
                code = outcome(conn, f"SET STATEMENT max_statement_time={limit} FOR RESET MASTER")
                assert code in (0, 1969)
                if code == 0:
                    assert files(conn) == ["mysql-bin.000001"]
            with conn.cursor() as cur:
                cur.execute(f"INSERT INTO d.t VALUES ({i})")
        for name in files(conn):
            assert (master.datadir / name).exists(), name
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM d.t")
            assert cur.fetchone() == (60,)
    finally:
        conn.close()
    assert 0 in seen, seen
