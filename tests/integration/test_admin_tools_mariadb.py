"""`mariadb-admin` (Debian's MariaDB 10.11 client) and the statements behind it, against a stock
MariaDB and our master: every command's exit status and message the same from both, ending with
`password` (which changes root's password) and `shutdown`.

It found: `mariadb-admin password` failing on `SET SQL_LOG_OFF=1` (1193: sql_log_off unknown)
and, once past it, sending a pre-4.1 hash because `SHOW VARIABLES LIKE 'old_passwords'` listed
nothing (mysqladmin reads no row as "old"); `debug` (COM_DEBUG) an unknown command;
`flush-table-statistics` and the other user statistics' FLUSH a syntax error; `start-slave` on a
server that is no slave with MySQL's wording of 1200. Also compared: sql_log_off, userstat and
old_passwords as variables, SHOW TABLE_ / INDEX_ / USER_ / CLIENT_STATISTICS and their
information_schema views (empty: userstat is OFF and cannot be set ON here, 1235, as
old_passwords ON, which no login here could check), a password hash of the wrong length 1372
(it was a 1064), SET PASSWORD with other assignments after it (mariadb-admin's `SET
PASSWORD='..',sql_log_off=0`: it was a 1064). sql_log_off ON keeps a session's statements out of the general log."""

from __future__ import annotations

import shutil
import subprocess
import time

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

MARIADB_ADMIN = shutil.which("mariadb-admin")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available() or MARIADB_ADMIN is None, reason="needs Debian's MariaDB packages"),
]

COMMANDS = [["ping"], ["version"], ["variables"], ["extended-status"], ["processlist"], ["flush-logs"],
            ["flush-status"], ["flush-tables"], ["flush-privileges"], ["flush-hosts"], ["refresh"], ["reload"],
            ["create", "zz"], ["-f", "drop", "zz"], ["kill", "999999"], ["debug"], ["start-slave"], ["stop-slave"],
            ["flush-binary-log"], ["flush-engine-log"], ["flush-error-log"], ["flush-general-log"],
            ["flush-relay-log"], ["flush-slow-log"], ["flush-table-statistics"], ["flush-user-resources"],
            ["password", "newpw"]]

QUERIES = [
    "SELECT @@sql_log_off, @@global.sql_log_off, @@userstat, @@old_passwords",
    "SET sql_log_off = 1", "SELECT @@sql_log_off", "SET sql_log_off = 2", "SET GLOBAL sql_log_off = DEFAULT",
    "SHOW VARIABLES LIKE 'sql_log_off'", "SHOW VARIABLES LIKE 'old_passwords'", "SHOW VARIABLES LIKE 'userstat'",
    "SET old_passwords = 0", "SET GLOBAL userstat = 0",
    "FLUSH TABLE_STATISTICS, INDEX_STATISTICS", "FLUSH NO_WRITE_TO_BINLOG USER_STATISTICS", "FLUSH CLIENT_STATISTICS",
    "SHOW TABLE_STATISTICS", "SHOW INDEX_STATISTICS", "SHOW USER_STATISTICS", "SHOW CLIENT_STATISTICS",
    "SELECT * FROM information_schema.TABLE_STATISTICS", "SELECT * FROM information_schema.CLIENT_STATISTICS",
    "START SLAVE", "START SLAVE IO_THREAD",
    "CREATE USER u1 IDENTIFIED BY 'a'", "SET PASSWORD FOR u1 = 'short'",
    "CREATE USER u2 IDENTIFIED BY PASSWORD 'nothex'", "SET PASSWORD FOR u1 = '*606706156665CD86D2E3F21B2D1B9CCB3D0DC8AE'",
    "SET PASSWORD FOR u1 = PASSWORD('b'), sql_log_off = 0, @x = 2", "SELECT @@sql_log_off, @x",
]


def _admin(port: int, command: list[str], password: str = "") -> tuple[int, str]:
    assert MARIADB_ADMIN is not None
    proc = subprocess.run([MARIADB_ADMIN, "-h127.0.0.1", f"-P{port}", "-uroot", *([f"-p{password}"] if password else []),
                           *command], capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr.strip().replace(str(port), "PORT")


def test_mariadb_admin_commands_as_against_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs = [(c, _admin(reference.port, c)) for c in COMMANDS]
        ours = [(c, _admin(master.port, c)) for c in COMMANDS]
        # root's new password works on ours, as on MariaDB
        assert pymysql.connect(host="127.0.0.1", port=master.port, user="root", password="newpw").open
        assert _admin(master.port, ["shutdown"], "newpw") == _admin(reference.port, ["shutdown"], "newpw") == (0, "")
        deadline = time.monotonic() + 30
        while master.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert master.proc.poll() is not None  # shut down
    assert theirs[15] == (["debug"], (0, ""))  # MariaDB's own answer
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


def test_the_statements_behind_it_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, ["CREATE DATABASE d"], QUERIES)
    assert theirs[3][1][:2] == ("error", 1231)  # MariaDB's own answer
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


def test_sql_log_off_keeps_a_session_out_of_the_general_log(tmp_path):
    with mariadb_and_ours(tmp_path) as (_reference, master):
        master.query("SET GLOBAL general_log = ON")
        (path,), = master.query("SELECT @@general_log_file")
        conn = master.connect()
        cur = conn.cursor()
        cur.execute("SELECT 'logged statement'")
        cur.execute("SET sql_log_off = ON")
        cur.execute("SELECT 'unlogged statement'")
        cur.execute("SET sql_log_off = OFF")
        cur.execute("SELECT 'logged again'")
        conn.close()
        master.query("SET GLOBAL general_log = OFF")
        text = (master.datadir / path).read_text(encoding="utf-8")
    assert "logged statement" in text and "logged again" in text
    assert "unlogged statement" not in text
