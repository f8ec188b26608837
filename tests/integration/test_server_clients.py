"""The server shell with NullRole and the real engine, driven by stock clients: PyMySQL and the
`mariadb` command-line client (DDL, DML, transactions, multi-statements, NULLs, errors)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pymysql
import pytest
from pymysql.constants import CLIENT

from tests.support.server_shell import ROOT_PASSWORD, ShellServer

MARIADB = shutil.which("mariadb") or shutil.which("mysql")


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("shell")) as s:
        s.connect().cursor().execute("CREATE DATABASE rst")
        yield s


def err(cur, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql)
    return e.value.args[0]


def test_pymysql_ddl_dml_transactions(shell):
    conn = shell.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("CREATE DATABASE app")
    cur.execute("USE app")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20), note TEXT NULL)")
    cur.execute("INSERT INTO t (name, note) VALUES ('a', NULL), ('b', 'x')")
    assert cur.rowcount == 2
    cur.execute("SELECT id, name, note FROM t ORDER BY id")
    assert cur.fetchall() == ((1, "a", None), (2, "b", "x"))
    # a transaction rolled back leaves nothing; one committed is visible to another session
    cur.execute("BEGIN")
    cur.execute("INSERT INTO t (name) VALUES ('gone')")
    cur.execute("ROLLBACK")
    cur.execute("START TRANSACTION")
    assert cur.execute("UPDATE t SET note = 'y' WHERE name = 'a'") == 1
    assert cur.execute("UPDATE t SET note = 'y' WHERE name = 'a'") == 0  # changed rows, as mysqld
    cur.execute("COMMIT")
    found = shell.connect(database="app", autocommit=True, client_flag=CLIENT.FOUND_ROWS)
    assert found.cursor().execute("UPDATE t SET note = 'y' WHERE name = 'a'") == 1  # matched rows
    other = shell.connect(database="app", autocommit=True).cursor()
    other.execute("SELECT name, note FROM t ORDER BY id")
    assert other.fetchall() == (("a", "y"), ("b", "x"))
    # autocommit off: nothing visible before COMMIT
    conn2 = shell.connect(database="app", autocommit=False)
    c2 = conn2.cursor()
    c2.execute("DELETE FROM t WHERE name = 'b'")
    other.execute("SELECT COUNT(*) FROM t")
    assert other.fetchone()[0] == 2
    conn2.commit()
    other.execute("SELECT COUNT(*) FROM t")
    assert other.fetchone()[0] == 1


def test_errors_carry_mysql_codes(shell):
    cur = shell.connect().cursor()
    assert err(cur, "SELEC 1") == 1064
    assert err(cur, "SELECT * FROM nosuchdb.nosuchtable") in (1146, 1049)
    cur.execute("CREATE DATABASE IF NOT EXISTS errs")
    cur.execute("USE errs")
    assert err(cur, "SELECT * FROM missing") == 1146
    assert err(cur, "SET GLOBAL no_such_variable = 1") == 1193
    assert err(cur, "USE no_such_db") == 1049
    with pytest.raises(pymysql.MySQLError) as e:
        shell.connect(password="wrong")
    assert e.value.args[0] == 1045
    assert "Access denied for user 'root'@'127.0.0.1' (using password: YES)" in e.value.args[1]
    with pytest.raises(pymysql.MySQLError) as e:
        shell.connect(database="no_such_db")
    assert e.value.args[0] == 1049


def test_multi_statements(tmp_path):
    with ShellServer(tmp_path) as shell:
        _multi_statements(shell)


def _multi_statements(shell):
    conn = shell.connect(client_flag=CLIENT.MULTI_STATEMENTS, autocommit=True)
    cur = conn.cursor()
    cur.execute(
        "CREATE DATABASE multi; USE multi; CREATE TABLE m (k INT PRIMARY KEY, v VARCHAR(9));"
        "INSERT INTO m VALUES (1, 'a;b'); SELECT v FROM m; SELECT @@server_id"
    )
    results = []
    while True:
        results.append(cur.fetchall())
        if not cur.nextset():
            break
    assert results[-2:] == [(("a;b",),), ((1,),)]
    # an error stops the batch: later statements do not run
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("INSERT INTO m VALUES (2, 'x'); INSERT INTO m VALUES (2, 'dup'); INSERT INTO m VALUES (3, 'no')")
        while cur.nextset():
            pass
    assert e.value.args[0] == 1062
    conn2 = shell.connect(database="multi")
    c2 = conn2.cursor()
    c2.execute("SELECT k FROM m ORDER BY k")
    assert c2.fetchall() == ((1,), (2,))


@pytest.mark.skipif(MARIADB is None, reason="needs the mariadb client")
def test_mariadb_cli(shell):
    base = [MARIADB, "-h127.0.0.1", f"-P{shell.port}", "-uroot", f"-p{ROOT_PASSWORD}", "--batch"]
    out = subprocess.run(base + ["-e", "SELECT @@server_id, DATABASE(), VERSION()"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].split("\t")[:2] == ["1", "NULL"]
    script = """
    CREATE DATABASE cli;
    USE cli;
    CREATE TABLE c (id INT PRIMARY KEY, v VARCHAR(10));
    BEGIN;
    INSERT INTO c VALUES (1, 'one'), (2, NULL);
    COMMIT;
    BEGIN;
    INSERT INTO c VALUES (3, 'three');
    ROLLBACK;
    SELECT id, v FROM c ORDER BY id;
    """
    out = subprocess.run(base, input=script, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["id\tv", "1\tone", "2\tNULL"]
    out = subprocess.run(base + ["-e", "SELECT * FROM cli.nope"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "ERROR 1146 (42S02)" in out.stderr
    out = subprocess.run(base[:4] + ["-pwrong", "-e", "SELECT 1"], capture_output=True, text=True, timeout=60)
    assert "ERROR 1045 (28000)" in out.stderr
    shell.connect().cursor().execute("CREATE USER IF NOT EXISTS 'weak'@'%' IDENTIFIED BY 'w'")
    weak = base[:4] + ["-uweak", "-pw", "--batch"]
    for argv, expected in (
        (base + ["-e", "SELEC 1"], "ERROR 1064 (42000)"),
        (base + ["-e", "SET GLOBAL no_such_var = 1"], "ERROR 1193 (HY000)"),
        (base + ["-e", "USE no_such_db"], "ERROR 1049 (42000)"),
        (weak + ["-e", "SET GLOBAL max_connections = 5"], "ERROR 1227 (42000)"),
    ):
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert out.returncode == 1 and expected in out.stderr, (argv[-1], out.stderr)


def test_reset_connection_forgets_session_state(shell):
    conn = shell.connect(autocommit=True)
    cur = conn.cursor()
    cur.execute("USE rst")
    cur.execute("SET @v = 1, SESSION wait_timeout = 5")
    conn._execute_command(0x1F, b"")  # COM_RESET_CONNECTION
    conn._read_ok_packet()
    cur.execute("SELECT @v, @@wait_timeout, DATABASE()")
    assert cur.fetchone() == (None, 28800, "rst")


def test_create_database_after_a_failed_write(tmp_path):
    """Regression: the engine once raised sqlite3.OperationalError here (writer transaction
    left open by a failed autocommit write), which cost the client its connection."""
    with ShellServer(tmp_path) as shell:
        cur = shell.connect(autocommit=True).cursor()
        cur.execute("CREATE DATABASE one")
        cur.execute("CREATE TABLE one.t (k INT PRIMARY KEY)")
        cur.execute("INSERT INTO one.t VALUES (1)")
        with pytest.raises(pymysql.MySQLError):
            cur.execute("INSERT INTO one.t VALUES (1)")
        cur.execute("CREATE DATABASE two")


@pytest.mark.mariadb
@pytest.mark.skipif(MARIADB is None or shutil.which("mysqldump") is None, reason="needs mariadb-client")
def test_a_mysqldump_of_mariadb_restores_through_the_cli(shell, tmp_path):
    """mysqldump's output: executable comments (/*!40101 ...*/, /*M!999999\\- sandbox */),
    SET @OLD_...=@@..., LOCK TABLES, ALTER TABLE ... DISABLE KEYS, extended INSERTs."""
    from tests.support.mariadb import MariaDBServer

    with MariaDBServer(tmp_path / "maria", log_bin=None) as maria:
        conn = maria.connect()
        cur = conn.cursor()
        cur.execute("CREATE DATABASE shop")
        cur.execute("CREATE TABLE shop.item (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(30) NOT NULL,"
                    " price DECIMAL(10,2), note TEXT, KEY k_name (name))")
        cur.execute("INSERT INTO shop.item (name, price, note) VALUES ('a', 1.50, NULL), ('b''s', 2, 'x\\ny')")
        conn.commit()
        dump = subprocess.run([shutil.which("mysqldump"), "-h127.0.0.1", f"-P{maria.port}", "-uroot",
                               "--databases", "shop"], capture_output=True, text=True, timeout=60)
        assert dump.returncode == 0, dump.stderr
    out = subprocess.run([MARIADB, "-h127.0.0.1", f"-P{shell.port}", "-uroot", f"-p{ROOT_PASSWORD}"],
                         input=dump.stdout, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    cur = shell.connect().cursor()
    cur.execute("SELECT id, name, price, note FROM shop.item ORDER BY id")
    assert cur.fetchall() == ((1, "a", 1.5, None), (2, "b's", 2.0, "x\ny"))
    cur.execute("SELECT @@character_set_client, @@time_zone, @@sql_mode")
    assert cur.fetchone()[0] == "utf8mb4"  # a fresh session: the dump's SETs were its own


def test_values_larger_than_one_packet_both_ways(shell):
    shell.connect().cursor().execute("SET GLOBAL max_allowed_packet = 67108864")  # (16 MiB by default)
    conn = shell.connect(autocommit=True, max_allowed_packet=64 << 20)
    cur = conn.cursor()
    cur.execute("CREATE DATABASE IF NOT EXISTS big")
    cur.execute("CREATE TABLE big.b (id INT PRIMARY KEY, v LONGTEXT)")
    value = "0123456789abcdef" * (17 << 16)  # 17 MiB: the query and the row span two packets
    cur.execute("INSERT INTO big.b VALUES (1, %s)", (value,))
    cur.execute("SELECT v, LENGTH(v) FROM big.b WHERE id = 1")
    got, length = cur.fetchone()
    assert length == len(value) and got == value


@pytest.mark.skipif(shutil.which("mysqladmin") is None, reason="needs mariadb-client")
def test_mysqladmin_status_version_and_extended_status(shell):
    out = subprocess.run([shutil.which("mysqladmin"), "-h127.0.0.1", f"-P{shell.port}", "-uroot",
                          f"-p{ROOT_PASSWORD}", "status", "version", "extended-status"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^Uptime: \d+  Threads: \d+  Questions: \d+", out.stdout, re.M)  # COM_STATISTICS
    assert "Server version\t\t10.11.99-MariaDB-semisync-log" in out.stdout
    assert re.search(r"\| Threads_connected +\| \d+ +\|", out.stdout)  # SHOW /*!50002 GLOBAL */ STATUS
