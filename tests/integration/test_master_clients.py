"""The master daemon (`python -m cli.main master`) against real clients: PyMySQL, the `mariadb`
CLI, sysbench, MariaDB's `mysqlbinlog` (its output replayed into a stock MariaDB)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.master import master_fixture, start_master  # noqa: F401 (the `master` fixture)

pytestmark = pytest.mark.timeout(240)


def binlog_events(daemon: Daemon) -> list[tuple]:
    rows = []
    for name, _size in daemon.query("SHOW BINARY LOGS"):
        rows += daemon.query(f"SHOW BINLOG EVENTS IN '{name}'")
    return rows


def test_pymysql_ddl_dml_transactions_and_rollbacks(master):
    conn = master.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE app")
    cur.execute("CREATE TABLE app.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(32), n INT)")
    cur.execute("INSERT INTO app.t (v, n) VALUES ('a', 1), ('b', 2)")
    assert cur.lastrowid == 1
    conn.begin()
    cur.execute("INSERT INTO app.t (v, n) VALUES ('c', 3)")
    cur.execute("UPDATE app.t SET n = n + 10 WHERE v = 'a'")
    conn.commit()
    conn.begin()
    cur.execute("INSERT INTO app.t (v, n) VALUES ('rolled back', 99)")
    cur.execute("DELETE FROM app.t WHERE v = 'b'")
    conn.rollback()
    # another session does not see an uncommitted transaction
    conn.begin()
    cur.execute("INSERT INTO app.t (v, n) VALUES ('pending', 4)")
    other = master.connect()
    with other.cursor() as c2:
        c2.execute("SELECT COUNT(*) FROM app.t WHERE v = 'pending'")
        assert c2.fetchone() == (0,)
    conn.commit()
    with other.cursor() as c2:
        c2.execute("SELECT COUNT(*) FROM app.t WHERE v = 'pending'")
        assert c2.fetchone() == (1,)
    cur.execute("SELECT id, v, n FROM app.t ORDER BY id")
    assert cur.fetchall() == ((1, "a", 11), (2, "b", 2), (3, "c", 3), (5, "pending", 4))
    # the binlog: DDL as a standalone GTID and its QUERY, each transaction GTID ... XID (MariaDB's
    # words in SHOW BINLOG EVENTS), the rollback absent
    events = [(e[2], e[5]) for e in binlog_events(master) if e[2] not in ("Format_desc", "Gtid_list", "Binlog_checkpoint")]
    queries = [info for kind, info in events if kind == "Query"]
    assert queries[:2] == ["CREATE DATABASE app",
                           "CREATE TABLE app.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(32), n INT)"]
    assert "INSERT INTO app.t (v, n) VALUES ('rolled back', 99)" not in queries
    assert [kind for kind, _ in events] == [
        "Gtid", "Query", "Gtid", "Query",  # the two DDL statements
        "Gtid", "Intvar", "Query", "Xid",  # autocommit insert of 2 rows
        "Gtid", "Intvar", "Query", "Query", "Xid",  # BEGIN; insert; update; COMMIT
        "Gtid", "Intvar", "Query", "Xid",  # the 'pending' transaction
    ]
    assert events[0] == ("Gtid", "GTID 0-1-1") and events[8] == ("Gtid", "BEGIN GTID 0-1-4")
    assert events[5] == ("Intvar", "INSERT_ID=1") and events[9] == ("Intvar", "INSERT_ID=3")
    assert events[14] == ("Intvar", "INSERT_ID=5")
    assert master.query("SHOW BINLOG EVENTS LIMIT 1, 2") == [
        ("mysql-bin.000001", 256, "Gtid_list", 1, 285, "[]"),
        ("mysql-bin.000001", 285, "Binlog_checkpoint", 1, 328, "mysql-bin.000001"),
    ]
    assert master.query("SHOW MASTER STATUS")[0][0] == "mysql-bin.000001"
    # SHOW BINLOG EVENTS FROM / LIMIT [offset,] n, as mysqld pages them
    everything = master.query("SHOW BINLOG EVENTS IN 'mysql-bin.000001'")
    second = everything[1][1]
    assert master.query(f"SHOW BINLOG EVENTS IN 'mysql-bin.000001' FROM {second} LIMIT 2") == everything[1:3]
    assert master.query("SHOW BINLOG EVENTS LIMIT 3, 2") == everything[3:5]
    # an open transaction is committed by FLUSH BINARY LOGS (implicitly, as in mysqld)
    conn.begin()
    cur.execute("INSERT INTO app.t (v, n) VALUES ('implicit', 6)")
    cur.execute("FLUSH BINARY LOGS")
    with other.cursor() as c2:
        c2.execute("SELECT COUNT(*) FROM app.t WHERE v = 'implicit'")
        assert c2.fetchone() == (1,)
    assert [r[0] for r in master.query("SHOW BINARY LOGS")] == ["mysql-bin.000001", "mysql-bin.000002"]
    variables = dict(master.query("SHOW VARIABLES"))
    assert variables["log_bin"] == "ON" and variables["binlog_format"] == "STATEMENT"
    assert variables["binlog_checksum"] == "CRC32" and variables["sync_binlog"] == "1"
    assert variables["max_binlog_size"] == "1073741824" and variables["server_id"] == "1"
    assert variables["log_bin_basename"].endswith("/mysql-bin")
    conn.close()
    other.close()


def test_mariadb_cli_script(master):
    mariadb = shutil.which("mariadb")
    if mariadb is None:
        pytest.skip("mariadb client not installed")
    script = """
        CREATE DATABASE cli;
        USE cli;
        CREATE TABLE k (id INT PRIMARY KEY, v VARCHAR(10));
        BEGIN; INSERT INTO k VALUES (1, 'one'); INSERT INTO k VALUES (2, 'two'); COMMIT;
        START TRANSACTION; INSERT INTO k VALUES (3, 'three'); ROLLBACK;
        UPDATE k SET v = 'uno' WHERE id = 1;
        SELECT id, v FROM k ORDER BY id;
    """
    out = subprocess.run(
        [mariadb, "--no-defaults", "-h127.0.0.1", f"-P{master.port}", "-uroot", "--batch", "--skip-column-names"],
        input=script, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["1\tuno", "2\ttwo"]


def _sysbench(master: Daemon, test: str, command: str, *extra: str) -> str:
    out = subprocess.run(
        ["sysbench", test, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={master.port}",
         "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", "--tables=1", "--table-size=1000",
         "--db-ps-mode=disable", "--threads=4", *extra, command],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, f"sysbench {test} {command} failed:\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.mark.slow
@pytest.mark.parametrize("test", ["oltp_insert", "oltp_write_only"])
def test_sysbench(master, test):
    if shutil.which("sysbench") is None:
        pytest.skip("sysbench not installed")
    master.query("CREATE DATABASE sbtest")
    _sysbench(master, test, "prepare")
    out = _sysbench(master, test, "run", "--time=10", "--report-interval=0")
    errors = re.search(r"ignored errors:\s+(\d+)", out)
    tps = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
    assert errors and errors.group(1) == "0", out
    assert tps and int(tps.group(1)) > 0, out
    print(f"sysbench {test}: {tps.group(2)} tps")
    count = master.query("SELECT COUNT(*) FROM sbtest.sbtest1")[0][0]
    assert count >= 1000
    if test == "oltp_insert":  # every committed insert is one binlog transaction
        xids = sum(1 for e in binlog_events(master) if e[2] == "Xid")
        assert count - 1000 <= xids
    _sysbench(master, test, "cleanup")
    assert master.query("SHOW TABLES FROM sbtest") == []


@pytest.mark.mariadb
@pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed")
def test_mysqlbinlog_output_replayed_into_mariadb_gives_the_same_tables(master, tmp_path):
    conn = master.connect()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE rep")
    cur.execute("CREATE TABLE rep.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40), created DATETIME, n INT)")
    for i in range(20):
        cur.execute("INSERT INTO rep.t (v, created, n) VALUES (%s, NOW(), %s)", (f"row {i}", i))
    conn.begin()
    cur.execute("UPDATE rep.t SET n = n * 2 WHERE id % 3 = 0")
    cur.execute("DELETE FROM rep.t WHERE id = 7")
    conn.commit()
    conn.begin()
    cur.execute("DELETE FROM rep.t")
    conn.rollback()
    cur.execute("FLUSH BINARY LOGS")
    cur.execute("INSERT INTO rep.t (v, created, n) VALUES ('after rotation', NOW(), -1)")
    cur.execute("CREATE TABLE rep.u (k VARCHAR(10) PRIMARY KEY, x INT)")
    cur.execute("INSERT INTO rep.u VALUES ('a', 1), ('b', LAST_INSERT_ID())")
    cur.execute("SET @k = 'c', @x = 41, @f = 2.5, @nothing = NULL")
    cur.execute("INSERT INTO rep.u VALUES (@k, @x + 1), ('d', @f * 2), ('e', @nothing)")
    ours = {table: master.query(f"SELECT * FROM rep.{table} ORDER BY 1") for table in ("t", "u")}
    files = [tmp_path / "master" / name for name, _ in master.query("SHOW BINARY LOGS")]
    conn.close()
    dump = subprocess.run(["mysqlbinlog", "--no-defaults", *map(str, files)], capture_output=True, timeout=60)
    assert dump.returncode == 0, dump.stderr.decode()
    with MariaDBServer(tmp_path / "fresh", log_bin=None) as fresh:
        load = subprocess.run(
            ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{fresh.port}", "-uroot"],
            input=dump.stdout, capture_output=True, timeout=60,
        )
        assert load.returncode == 0, load.stderr.decode()
        theirs = {table: fresh.query(f"SELECT * FROM rep.{table} ORDER BY 1") for table in ("t", "u")}
    assert [tuple(r) for r in theirs["t"]] == [tuple(r) for r in ours["t"]]
    assert [tuple(r) for r in theirs["u"]] == [tuple(r) for r in ours["u"]]
    assert len(ours["t"]) == 20


def test_bad_login_gets_1045_and_server_keeps_serving(master):
    with pytest.raises(pymysql.err.OperationalError) as exc:
        pymysql.connect(host="127.0.0.1", port=master.port, user="root", password="wrong", connect_timeout=5)
    assert exc.value.args[0] == 1045
    assert master.query("SELECT 1") == [(1,)]
