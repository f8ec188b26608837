"""Stored procedures and functions against a live MariaDB 10.11: CREATE / DROP / SHOW CREATE /
SHOW ... STATUS / information_schema.ROUTINES and PARAMETERS, their errors and notes; CALL of a
procedure (IN / OUT / INOUT parameters, DECLAREd locals, SET, IF, its SELECTs' result sets before
the final OK); the binlog's text (CREATE with DEFINER, each statement a CALL runs with its
variables as NAME_CONST(...), CALL itself never), and the replicas of ours (a MariaDB replica and
our slave) ending with the master's rows. Then PyMySQL's and mysql-connector's callproc, the
routines kept across a restart, and mariadb-dump --routines of MariaDB loaded into ours and of
ours into MariaDB."""

from __future__ import annotations

import shutil
import subprocess

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    mariadb_and_ours,
    ok_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

DUMP = shutil.which("mariadb-dump") or shutil.which("mysqldump")
CLIENT = shutil.which("mariadb") or shutil.which("mysql")

SETUP = [
    "CREATE DATABASE sp CHARACTER SET utf8mb4",
    "CREATE TABLE sp.t (id INT PRIMARY KEY, a INT, s VARCHAR(20))",
    "CREATE TABLE sp.log (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40), n DECIMAL(10,2))",
]

PROCEDURES = [
    "CREATE DEFINER=root@localhost PROCEDURE add_row(IN x INT, IN y VARCHAR(20))\n"
    "BEGIN\n"
    "  DECLARE z INT DEFAULT 3;\n"
    "  DECLARE note VARCHAR(40);\n"
    "  SET z = z + x, note = CONCAT('added ', y);\n"
    "  INSERT INTO t VALUES (x, z, y);\n"
    "  IF x > 5 THEN\n"
    "    UPDATE t SET a = a * 2 WHERE id = x;\n"
    "  ELSEIF x > 2 THEN\n"
    "    UPDATE t SET a = a + 100 WHERE id = x;\n"
    "  ELSE\n"
    "    INSERT INTO log (what, n) VALUES (note, x / 4);\n"
    "  END IF;\n"
    "  SELECT id, a, s FROM t WHERE id <= x ORDER BY id;\n"
    "END",
    "CREATE DEFINER=root@localhost PROCEDURE counts(OUT n INT, INOUT total DECIMAL(10,2), IN step INT)"
    " COMMENT 'counts rows' READS SQL DATA SQL SECURITY INVOKER\n"
    "BEGIN SELECT COUNT(*) FROM t; SET n = (SELECT COUNT(*) FROM t); SET total = total + step; END",
    "CREATE DEFINER=root@localhost PROCEDURE one_statement(IN k INT) DELETE FROM t WHERE id = k",
    "CREATE DEFINER=root@localhost FUNCTION twice(a INT) RETURNS INT DETERMINISTIC RETURN a * 2",
    "CREATE DEFINER=root@localhost FUNCTION label(a INT, b VARCHAR(10)) RETURNS VARCHAR(30) NO SQL"
    " RETURN CONCAT(b, a)",
    "CREATE DEFINER=root@localhost PROCEDURE fetch_a(IN k INT, OUT r INT) BEGIN DECLARE v INT DEFAULT -1;"
    " SELECT a INTO v FROM t WHERE id = k; SET r = v; INSERT INTO log (what, n) VALUES ('fetched', v); END",
    "CREATE DEFINER=root@localhost PROCEDURE looping() BEGIN DECLARE i INT DEFAULT 0;"
    " WHILE i < 3 DO SET i = i + 1; END WHILE; END",
]

STEPS = [
    "CALL add_row(1, 'one')",
    "CALL add_row(4, 'it''s')",
    "CALL add_row(7, CONCAT('sev', 'en'))",
    "CALL add_row(8)",
    "CALL add_row(9, 'x', 1)",
    "SET @total = 1.5",
    "CALL counts(@n, @total, 2)",
    "SELECT @n, @total",
    "CALL counts(1, @total, 2)",
    "CALL fetch_a(1, @r)",
    "SELECT @r",
    "CALL fetch_a(100, @r)",
    "SELECT @r",
    "CALL one_statement(4)",
    "CALL one_statement",
    "CALL nope()",
    "CALL sp.one_statement(99)",
    # MariaDB's errors and notes
    "CREATE DEFINER=root@localhost PROCEDURE one_statement(IN k INT) SELECT k",
    "CREATE DEFINER=root@localhost PROCEDURE IF NOT EXISTS one_statement(IN k INT) SELECT k",
    "CREATE OR REPLACE DEFINER=root@localhost PROCEDURE IF NOT EXISTS one_statement(IN k INT) SELECT k",
    "CREATE DEFINER=root@localhost FUNCTION unsafe(a INT) RETURNS INT RETURN a",
    "CREATE DEFINER=root@localhost FUNCTION twice(a INT) RETURNS INT DETERMINISTIC RETURN a",
    "CREATE OR REPLACE DEFINER=root@localhost PROCEDURE replaced() INSERT INTO log (what) VALUES ('replaced')",
    "CALL replaced()",
    "DROP PROCEDURE nope",
    "DROP PROCEDURE IF EXISTS nope",
    "DROP FUNCTION IF EXISTS nope",
    "DROP FUNCTION twice",
    "DROP FUNCTION twice",
    "SHOW CREATE FUNCTION twice",
    "SHOW CREATE PROCEDURE nope",
    "SHOW CREATE PROCEDURE add_row",
    "SHOW CREATE PROCEDURE counts",
    "SHOW CREATE FUNCTION label",
    "SELECT ROUTINE_SCHEMA, ROUTINE_NAME, ROUTINE_TYPE, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION,"
    " DTD_IDENTIFIER, ROUTINE_BODY, ROUTINE_DEFINITION, IS_DETERMINISTIC, SQL_DATA_ACCESS, SECURITY_TYPE,"
    " SQL_MODE, ROUTINE_COMMENT, DEFINER, DATABASE_COLLATION"
    " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'sp' ORDER BY ROUTINE_NAME",
    "SELECT * FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'sp' ORDER BY SPECIFIC_NAME,"
    " ORDINAL_POSITION",
]

LISTED = ["SELECT * FROM sp.t ORDER BY id", "SELECT * FROM sp.log ORDER BY id"]


def _created(server, setup=SETUP, routines=PROCEDURES, database: str = "sp") -> None:
    """`setup` run on `server`, then each of `routines` made in `database`."""
    for sql in setup:
        server.query(sql)
    conn = server.connect(database)
    try:
        with conn.cursor() as cur:
            for sql in routines:
                cur.execute(sql)
    finally:
        conn.close()


def _results(conn, sql: str) -> list:
    """Every result of a statement, in order: result sets' rows, then the OK's affected rows
    (or the error)."""
    out = []
    with conn.cursor() as cur:
        try:
            cur.execute(sql)
            while True:
                out.append(("rows", cur.fetchall()) if cur.description else ("ok", cur.rowcount))
                if not cur.nextset():
                    break
        except pymysql.MySQLError as exc:
            out.append(("error", exc.args[0], exc.args[1]))
    return out


def _routine_statements(server, after: str = "CREATE TABLE sp.log") -> list[str]:
    """The text of each binlogged statement after the one holding `after`."""
    found = []
    for name, _size in server.query("SHOW BINARY LOGS"):
        for row in server.query(f"SHOW BINLOG EVENTS IN '{name}'"):
            if row[2] == "Query" and row[5] not in ("BEGIN", "COMMIT"):
                found.append(row[5])
    return found[[k for k, text in enumerate(found) if after in text][0] + 1:]


def test_routines_answer_run_and_replicate_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        answers, results = [], []
        for server in (reference, ours):
            _created(server)
            conn = server.connect("sp")
            try:
                answers.append([(sql, *ok_answer(conn, sql)) for sql in STEPS])
                results.append([_results(conn, sql) for sql in (
                    "CALL add_row(2, 'two')", "CALL counts(@n, @total, 3)", "CALL looping()")])
            finally:
                conn.close()
        assert answer_differences(*answers) == ""
        listed = []  # (Modified and Created apart)
        for server in (reference, ours):
            listed.append([row[:4] + row[6:] for sql in ("SHOW PROCEDURE STATUS WHERE Db = 'sp'",
                                                         "SHOW FUNCTION STATUS LIKE 'lab%'")
                           for row in server.query(sql)])
        assert listed[1] == listed[0]
        assert results[1] == results[0]  # (a WHILE loop: tests/integration/test_routine_loops_mariadb.py)
        # a stored function RETURN expr is called (tests/integration/test_stored_functions_mariadb.py)
        for server in (reference, ours):
            conn = server.connect("sp")
            try:
                results.append(ok_answer(conn, "SELECT label(1, 'x')"))
            finally:
                conn.close()
        assert results[-1] == results[-2]
        # each statement a CALL ran, its variables as NAME_CONST(...); CREATE with its DEFINER
        assert _routine_statements(ours) == _routine_statements(reference)
        for sql in LISTED:
            assert_same_rows(reference, ours, replicas, sql)


@pytest.mark.skipif(DUMP is None or CLIENT is None, reason="needs the mariadb client tools")
def test_mariadb_dump_routines_load_both_ways_and_survive_a_restart(tmp_path):
    mariadb = MariaDBServer(tmp_path / "mdb", log_bin=None).start()
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1"]).start()
    try:
        _created(mariadb)
        dumped = subprocess.run([DUMP, "-h127.0.0.1", f"-P{mariadb.port}", "-uroot", "--routines", "--databases",
                                 "sp"], capture_output=True, text=True, timeout=120, check=True).stdout
        assert "CREATE DEFINER=`root`@`localhost` PROCEDURE `add_row`" in dumped
        subprocess.run([CLIENT, "-h127.0.0.1", f"-P{ours.port}", "-uroot"], input=dumped, capture_output=True,
                       text=True, timeout=120, check=True)
        ours.stop()
        ours.start()
        shown = []
        for server in (mariadb, ours):
            shown.append([server.query(f"SHOW CREATE {kind} sp.{name}")[0][:3] for kind, name in (
                ("PROCEDURE", "add_row"), ("PROCEDURE", "counts"), ("FUNCTION", "label"), ("FUNCTION", "twice"))])
        assert shown[1] == shown[0]
        # and ours dumped into MariaDB: the same routines there
        again = subprocess.run([DUMP, "-h127.0.0.1", f"-P{ours.port}", "-uroot", "--routines", "--databases", "sp"],
                               capture_output=True, text=True, timeout=120, check=True).stdout
        mariadb.query("DROP DATABASE sp")
        subprocess.run([CLIENT, "-h127.0.0.1", f"-P{mariadb.port}", "-uroot"], input=again, capture_output=True,
                       text=True, timeout=120, check=True)
        assert [mariadb.query(f"SHOW CREATE {kind} sp.{name}")[0][:3] for kind, name in (
            ("PROCEDURE", "add_row"), ("PROCEDURE", "counts"), ("FUNCTION", "label"), ("FUNCTION", "twice"))] == shown[0]
        for server in (mariadb, ours):
            conn = server.connect("sp")
            try:
                assert _results(conn, "CALL add_row(3, 'three')")[0] == ("rows", ((3, 106, "three"),))
            finally:
                conn.close()
    finally:
        ours.stop()
        mariadb.stop()


def test_callproc_of_pymysql_and_mysql_connector(tmp_path):
    mariadb = MariaDBServer(tmp_path / "mdb", log_bin=None).start()
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1"]).start()
    try:
        got = []
        for server in (mariadb, ours):
            _created(server)
            conn = server.connect("sp")
            try:
                with conn.cursor() as cur:
                    cur.callproc("add_row", (5, "five"))
                    rows = [cur.fetchall()]
                    while cur.nextset():
                        rows.append(cur.fetchall() if cur.description else None)
                    cur.callproc("counts", (0, 1.25, 4))
                    rows.append(cur.fetchall())
                    while cur.nextset():
                        pass
                    cur.execute("SELECT @_counts_0, @_counts_1")
                    rows.append(cur.fetchall())
            finally:
                conn.close()
            got.append(rows)
            connector = pytest.importorskip("mysql.connector")
            cnx = connector.connect(host="127.0.0.1", port=server.port, user="root", database="sp")
            try:
                cur = cnx.cursor()
                out = cur.callproc("counts", (0, 2, 5))
                got[-1].append((tuple(out), [r.fetchall() for r in cur.stored_results()]))
            finally:
                cnx.close()
        assert got[1] == got[0]
        # CALL through COM_STMT_EXECUTE: MariaDB's 1235 here (its result sets would be binary rows)
        cnx = connector.connect(host="127.0.0.1", port=ours.port, user="root", database="sp")
        try:
            with pytest.raises(connector.Error) as refused:
                cnx.cursor(prepared=True).execute("CALL add_row(?, ?)", (6, "six"))
            assert refused.value.errno == 1235
        finally:
            cnx.close()
    finally:
        ours.stop()
        mariadb.stop()


def test_our_slave_of_a_mariadb_master_runs_its_routines_statements(tmp_path):
    from tests.support.failover import REPL_PASSWORD, REPL_USER, attach

    master = MariaDBServer(tmp_path / "mdb", log_bin="master-bin").start()
    slave = Daemon("slave", tmp_path / "ours-slave", ["--server-id=3"]).start()
    try:
        master.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
        master.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'")
        attach(slave.port, master.port)
        _created(master)
        conn = master.connect("sp")
        try:
            for sql in STEPS[:10]:
                ok_answer(conn, sql)
        finally:
            conn.close()
        # the master's CREATE PROCEDURE and its NAME_CONST(... _utf8mb4'..' COLLATE ...) statements
        for sql in LISTED:
            assert_same_rows(master, master, [slave], sql)
        assert slave.query("SHOW CREATE PROCEDURE sp.add_row")[0][2] == master.query(
            "SHOW CREATE PROCEDURE sp.add_row")[0][2]
    finally:
        slave.stop()
        master.stop()


def test_routine_privileges_of_accounts_as_mariadbs(tmp_path):
    # CREATE ROUTINE on the database (1044), ALTER ROUTINE for DROP and EXECUTE for CALL (1370),
    # SUPER for CREATE FUNCTION with the binlog on (1419)
    steps = ["CREATE PROCEDURE p.pp() SELECT 1", "CREATE FUNCTION p.ff() RETURNS INT DETERMINISTIC RETURN 1",
             "CALL p.pp()", "DROP PROCEDURE p.pp", "CREATE PROCEDURE q.pp() SELECT 1",
             "DROP PROCEDURE IF EXISTS q.nope", "CALL p.pp()"]
    setup = ["CREATE DATABASE p", "CREATE DATABASE q", "CREATE USER a@'%' IDENTIFIED BY 'pw'", "GRANT ALL ON p.* TO a@'%'",
             "CREATE USER b@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON p.* TO b@'%'"]
    with mariadb_and_ours(tmp_path, mariadb_extra=["--log-bin=mb"]) as (mariadb, ours):
        answers = []
        for server in (mariadb, ours):
            for sql in setup:
                server.query(sql)
            for user in ("b", "a", "b"):
                conn = pymysql.connect(host="127.0.0.1", port=server.port, user=user, password="pw")
                try:
                    answers.append((user, [ok_answer(conn, sql) for sql in steps]))
                finally:
                    conn.close()
        assert answers[3:] == answers[:3]
        assert {answer[1] for answer in answers[0][1] if answer[0] == "error"} == {1044, 1370}
