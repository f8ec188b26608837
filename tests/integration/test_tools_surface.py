"""The SQL surface of tools nobody here wrote, against our master and two of our slaves (real
processes): MariaDB Connector/J (Debian's libmariadb-java, default settings and
useServerPrepStmts=true), percona-toolkit's pt-table-checksum and pt-heartbeat, and PyMySQL for
system variables in expressions, multi-assignment SET and KILL QUERY.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="the fixtures' clients need Debian's MariaDB packages"),
]

PROBE = Path(__file__).resolve().parents[1] / "support" / "java" / "ConnectorJProbe.java"
CONNECTOR_J = Path("/usr/share/java/mariadb-java-client.jar")
JAVA = shutil.which("java")
PT_CHECKSUM = shutil.which("pt-table-checksum")
PT_HEARTBEAT = shutil.which("pt-heartbeat")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """Our master and two slaves (asynchronous), `app.t` with three rows on all three."""
    tmp = tmp_path_factory.mktemp("tools")
    master = Daemon("master", tmp / "master", ["--server-id=1"]).start()
    daemons = [master]
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        for n in (1, 2):
            # a change by hand on a slave (below) in a GTID domain of its own: in the master's, the
            # master's next GTIDs would be out of order there (1950 under gtid_strict_mode)
            daemons.append(Daemon("slave", tmp / f"slave{n}", [
                f"--server-id={10 + n}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
                f"--gtid-domain-id={10 + n}",
            ]).start())
        master.query("CREATE DATABASE app")
        master.query("CREATE TABLE app.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20), n INT, KEY ix_n (n))")
        master.query("INSERT INTO app.t (v, n) VALUES ('a', 1), ('b', 2), ('c', 3)")
        yield daemons
    finally:
        for d in reversed(daemons):
            d.stop()


def caught_up(master: Daemon, *slaves: Daemon) -> None:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]

    def done() -> bool:
        for s in slaves:
            st = slave_status(s.port)
            if st.get("Relay_Master_Log_File") != file or int(st.get("Exec_Master_Log_Pos") or 0) < int(pos):
                return False
        return True

    wait_until(done, 60, what="slaves caught up")


# --- system variables, SET, KILL QUERY (PyMySQL) ---------------------------------------------------


def test_system_variables_in_expressions_and_multi_assignment_set(cluster):
    master, slave1, slave2 = cluster
    conn = master.connect("app")
    cur = conn.cursor()
    cur.execute("SELECT @@version, NOW() IS NOT NULL, @@global.read_only + 0")
    version, now, read_only = cur.fetchone()
    assert version.startswith("10.11") and now == 1 and read_only == 0
    cur.execute("SET autocommit=1, sql_mode=concat(@@sql_mode, ',NO_ZERO_DATE'), @a := 1, NAMES utf8mb4")
    cur.execute("SELECT @@session.sql_mode, @a, @@character_set_client")
    mode, a, charset = cur.fetchone()
    # in MariaDB's order, as mariadbd lists the same modes
    assert mode == "STRICT_TRANS_TABLES,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
    assert a == 1 and charset == "utf8mb4"
    # a write reading @@server_id is replicated with the master's value, not each slave's own
    cur.execute("INSERT INTO t (v, n) VALUES ('server id', @@server_id)")
    # UUID() in a write: the slaves replay the master's values (from the binlogged RAND seeds)
    cur.execute("CREATE TABLE uuids (id INT PRIMARY KEY, u VARCHAR(36), w VARCHAR(36))")
    cur.execute("INSERT INTO uuids VALUES (1, UUID(), UUID()), (2, UUID(), RAND())")
    cur.execute("SELECT v FROM t WHERE n = @@server_id ORDER BY id")
    assert cur.fetchall() == (("a",), ("server id",))
    caught_up(master, slave1, slave2)
    for slave in (slave1, slave2):
        assert slave.query("SELECT n FROM app.t WHERE v = 'server id'") == [(1,)]
        assert slave.query("SELECT * FROM app.uuids ORDER BY id") == master.query("SELECT * FROM app.uuids ORDER BY id")
    cur.execute("DELETE FROM t WHERE v = 'server id'")
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute("SELECT nosuch_function(1)")
    assert e.value.args == (1305, "FUNCTION app.nosuch_function does not exist")


def test_kill_query_interrupts_a_running_select_and_the_connection_stays(cluster):
    master = cluster[0]
    victim = master.connect("app")
    killer = master.connect()
    cur = victim.cursor()
    cur.execute("CREATE TABLE big (i INT PRIMARY KEY)")
    cur.execute("INSERT INTO big VALUES " + ",".join(f"({i})" for i in range(500)))
    victim_id = victim.thread_id()

    def kill_when_running() -> None:
        def running() -> bool:
            rows = killer.cursor()
            rows.execute("SHOW PROCESSLIST")
            return any(r[0] == victim_id and r[7] and "big" in r[7] for r in rows.fetchall())
        wait_until(running, 30, what="the SELECT running")
        killer.cursor().execute(f"KILL QUERY {victim_id}")

    for statement, outcome in (("SELECT count(*) FROM big a, big b, big c, big d", 1317),
                               ("SELECT SLEEP(60) FROM big LIMIT 1", 1317)):  # MariaDB's, not MySQL's 1
        thread = threading.Thread(target=kill_when_running)
        thread.start()
        started = time.monotonic()
        try:
            cur.execute(statement)
            got = cur.fetchall()
        except pymysql.MySQLError as e:
            got = e.args[0]
        thread.join()
        assert got == outcome
        assert time.monotonic() - started < 50
        cur.execute("SELECT count(*) FROM big")  # the connection is usable
        assert cur.fetchone() == (500,)
    cur.execute("DROP TABLE big")


# --- MariaDB Connector/J --------------------------------------------------------------------------


def run_probe(master: Daemon, database: str, options: str = "") -> dict[str, tuple[str, str]]:
    url = f"jdbc:mariadb://127.0.0.1:{master.port}/?user=root{options}"
    assert JAVA is not None  # needs_connector_j
    proc = subprocess.run([JAVA, "-cp", str(CONNECTOR_J), str(PROBE), url, database],
                          capture_output=True, text=True, timeout=240)
    steps = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"STEP (\S+) (OK|FAIL) ?(.*)", line)
        if m:
            steps[m.group(1)] = (m.group(2), m.group(3))
    assert steps, f"no output from the probe:\n{proc.stdout}\n{proc.stderr}"
    return steps


def check_probe(steps: dict[str, tuple[str, str]], metadata: bool) -> None:
    expected = {
        "dml": "inserted=2 first_id=1 updated=1 rows=1,a;2,bb",
        "prepared": "a",
        "batch": "batch=5 counted=5 rows=5 sum=100",
        "transaction": "a;bb;c",
        "getTables": "child;parent",
        "getPrimaryKeys": "id",
    }
    if metadata:
        expected.update({
            "getColumns": "id,INT,NO;parent_id,INT,NO;qty,INT,YES",
            "getImportedKeys": "parent,id,parent_id",
        })
    assert steps["connect"][0] == "OK" and "10.11" in steps["connect"][1]
    assert steps["ddl"] == ("OK", "created")
    assert {k: steps[k] for k in expected} == {k: ("OK", v) for k, v in expected.items()}


needs_connector_j = pytest.mark.skipif(JAVA is None or not CONNECTOR_J.exists(),
                                       reason="needs java and Debian's libmariadb-java (Makefile APT_PACKAGES)")


@needs_connector_j
def test_connector_j_default_settings(cluster):
    steps = run_probe(cluster[0], "cj_default")
    check_probe(steps, metadata=False)


@needs_connector_j
def test_connector_j_database_metadata(cluster):
    steps = run_probe(cluster[0], "cj_metadata")
    check_probe(steps, metadata=True)


@needs_connector_j
def test_connector_j_server_prepared_statements(cluster):
    steps = run_probe(cluster[0], "cj_server_ps", "&useServerPrepStmts=true")
    check_probe(steps, metadata=True)


@needs_connector_j
def test_connector_j_get_index_info(cluster):
    steps = run_probe(cluster[0], "cj_index_info")
    # NON_UNIQUE read with getString: "0", as Connector/J prints it against MariaDB 10.11
    assert steps["getIndexInfo"] == ("OK", "PRIMARY,id,0;uk_name,name,0")


# --- percona-toolkit -----------------------------------------------------------------------------


def pt_table_checksum(master: Daemon, tmp_path: Path, *options: str) -> tuple[int, dict[str, dict[str, str]]]:
    assert PT_CHECKSUM is not None  # its tests skip without percona-toolkit
    proc = subprocess.run(
        [PT_CHECKSUM, f"h=127.0.0.1,P={master.port},u=root", "--recursion-method=dsn=D=percona,t=dsns",
         "--databases=app", "--no-version-check", *options],
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    lines = proc.stdout.splitlines()
    header = next((i for i, line in enumerate(lines) if line.split()[:3] == ["TS", "ERRORS", "DIFFS"]), None)
    assert header is not None, f"pt-table-checksum: {proc.stdout}\n{proc.stderr}"
    names = lines[header].split()
    rows = {}
    for line in lines[header + 1:]:
        cells = line.split()
        if len(cells) == len(names):
            rows[cells[-1]] = dict(zip(names, cells, strict=True))
    return proc.returncode, rows


@pytest.mark.skipif(PT_CHECKSUM is None, reason="needs percona-toolkit (Makefile APT_PACKAGES)")
def test_pt_table_checksum_finds_no_difference_then_one(cluster, tmp_path):
    master, slave1, slave2 = cluster
    master.query("CREATE DATABASE IF NOT EXISTS percona")
    master.query("CREATE TABLE IF NOT EXISTS percona.dsns (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT, "
                 "dsn VARCHAR(255) NOT NULL)")
    master.query("DELETE FROM percona.dsns")
    master.query(f"INSERT INTO percona.dsns (dsn) VALUES ('h=127.0.0.1,P={slave1.port},u=root'), "
                 f"('h=127.0.0.1,P={slave2.port},u=root')")
    master.query("CREATE TABLE app.many (id INT PRIMARY KEY, k BIGINT NOT NULL, note VARCHAR(30), KEY k (k))")
    master.query("INSERT INTO app.many VALUES " + ",".join(f"({i}, {i * 7 % 1000}, 'n{i}')" for i in range(3000)))
    caught_up(master, slave1, slave2)
    # a table checksummed in chunks: pt-table-checksum EXPLAINs each chunk (key and key_len)
    code, rows = pt_table_checksum(master, tmp_path, "--tables=many", "--chunk-size=500", "--chunk-time=0")
    assert code == 0, rows
    assert rows["app.many"]["ERRORS"] == "0" and rows["app.many"]["DIFFS"] == "0"
    assert rows["app.many"]["ROWS"] == "3000" and int(rows["app.many"]["CHUNKS"]) > 1
    code, rows = pt_table_checksum(master, tmp_path, "--tables=t")
    assert code == 0, rows
    assert rows["app.t"]["ERRORS"] == "0" and rows["app.t"]["DIFFS"] == "0" and rows["app.t"]["ROWS"] == "3"
    # a row changed by hand on one slave
    conn = slave2.connect()
    cur = conn.cursor()
    cur.execute("SET GLOBAL read_only = OFF")
    cur.execute("UPDATE app.t SET v = 'changed' WHERE id = 2")
    cur.execute("SET GLOBAL read_only = ON")
    code, rows = pt_table_checksum(master, tmp_path, "--tables=t")
    assert code & 16, rows  # TABLE_DIFF
    assert rows["app.t"]["ERRORS"] == "0" and rows["app.t"]["DIFFS"] == "1"
    # the slave that was left alone has no difference of its own
    diffs = slave1.query("SELECT count(*) FROM percona.checksums WHERE this_crc <> master_crc OR "
                         "this_cnt <> master_cnt")
    assert diffs == [(0,)]
    assert slave2.query("SELECT count(*) FROM percona.checksums WHERE this_crc <> master_crc") == [(1,)]
    cur.execute("SET GLOBAL read_only = OFF")
    cur.execute("UPDATE app.t SET v = 'b' WHERE id = 2")
    cur.execute("SET GLOBAL read_only = ON")


@pytest.mark.skipif(PT_HEARTBEAT is None, reason="needs percona-toolkit (Makefile APT_PACKAGES)")
def test_pt_heartbeat_update_monitor_check_report_lag(cluster, tmp_path):
    master, slave1, slave2 = cluster
    master.query("CREATE DATABASE IF NOT EXISTS percona")
    updater = subprocess.Popen(
        [PT_HEARTBEAT, "--update", f"h=127.0.0.1,P={master.port},u=root", "-D", "percona", "--create-table",
         "--interval=0.5"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        def check(slave: Daemon) -> float | None:
            assert PT_HEARTBEAT is not None  # the test skips without percona-toolkit
            proc = subprocess.run([PT_HEARTBEAT, "--check", f"h=127.0.0.1,P={slave.port},u=root", "-D", "percona",
                                   "--master-server-id=1"], capture_output=True, text=True, timeout=60)
            m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*", proc.stdout)
            return float(m.group(1)) if proc.returncode == 0 and m else None

        lag = wait_until(lambda: check(slave1) is not None and check(slave1) < 5, 60, what="a small lag")
        assert lag
        monitor = subprocess.run([PT_HEARTBEAT, "--monitor", f"h=127.0.0.1,P={slave2.port},u=root", "-D", "percona",
                                  "--master-server-id=1", "--run-time=3", "--interval=1"],
                                 capture_output=True, text=True, timeout=60)
        lines = [line for line in monitor.stdout.splitlines() if line.strip()]
        assert monitor.returncode == 0 and lines, monitor.stdout + monitor.stderr
        assert all(re.fullmatch(r"\s*\d+\.\d\ds \[\s*\d+\.\d\ds,\s*\d+\.\d\ds,\s*\d+\.\d\ds \]", x) for x in lines)
        # the SQL thread stopped: the lag pt-heartbeat reports grows
        slave2.query("STOP SLAVE SQL_THREAD")
        try:
            wait_until(lambda: (check(slave2) or 0) >= 3, 60, what="a lag of 3 s or more")
        finally:
            slave2.query("START SLAVE SQL_THREAD")
        wait_until(lambda: check(slave2) is not None and check(slave2) < 3, 60, what="the lag back under 3 s")
    finally:
        updater.terminate()
        updater.wait(30)
