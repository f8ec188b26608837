"""information_schema.PROCESSLIST and the view statements against our master and slave (real
processes) and a stock MariaDB 10.11: PROCESSLIST with MariaDB's columns, the same sessions as SHOW
FULL PROCESSLIST, PROCESS deciding whose; views created, read, replaced and dropped answer as
MariaDB's do (the same statements on both), the statements about views that exist nowhere too, and
views replicate to our slave."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's MariaDB packages"),
]

ASK = "SELECT * FROM information_schema.PROCESSLIST"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("processlist")
    master = Daemon("master", tmp / "master", ["--server-id=1"]).start()
    daemons = [master]
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        daemons.append(Daemon("slave", tmp / "slave", [
            "--server-id=11", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1"]).start())
        with MariaDBServer(tmp / "mariadb", log_bin=None) as mariadb:
            yield master, mariadb, daemons[1]
    finally:
        for d in reversed(daemons):
            d.stop()


def columns(conn: pymysql.connections.Connection) -> list[tuple]:
    """Each column's name, type code, length, decimals and nullability (INFO: no length; MariaDB
    declares it a LONGTEXT of 786420 bytes, ours is LONGTEXT's own 4294967295)."""
    cur = conn.cursor()
    cur.execute(ASK + " WHERE 0")
    return [d[:2] + ((None,) if d[0] == "INFO" else d[3:4]) + d[5:] for d in cur.description]


def test_processlist_has_mariadbs_columns_and_show_full_processlists_rows(servers):
    master, mariadb, _ = servers
    master.query("CREATE DATABASE IF NOT EXISTS pl")
    asking, idle = master.connect(), master.connect("pl")
    assert columns(asking) == columns(mariadb.connect())
    cur = asking.cursor(pymysql.cursors.DictCursor)
    cur.execute(ASK + " ORDER BY ID")
    table = cur.fetchall()
    cur.execute("SHOW FULL PROCESSLIST")
    shown = cur.fetchall()
    assert [(r["ID"], r["USER"], r["HOST"], r["DB"], r["COMMAND"]) for r in table] == \
        [(r["Id"], r["User"], r["Host"], r["db"], r["Command"]) for r in shown]
    mine = next(r for r in table if r["ID"] == asking.thread_id())
    assert mine["INFO"] == ASK + " ORDER BY ID" and mine["COMMAND"] == "Query"
    other = next(r for r in table if r["ID"] == idle.thread_id())
    assert (other["DB"], other["COMMAND"], other["INFO"]) == ("pl", "Sleep", None)


@pytest.mark.parametrize("grant, sees_root", [("", False), ("GRANT PROCESS ON *.* TO 'pl_{n}'@'%'", True)])
def test_an_account_without_process_sees_only_its_own_sessions(servers, grant, sees_root):
    user = f"pl_{int(sees_root)}"
    for server in servers[:2]:
        server.query(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'")
        if grant:
            server.query(grant.format(n=int(sees_root)))
        root = server.connect()  # a session of another user
        conn = pymysql.connect(host="127.0.0.1", port=server.port, user=user, password="pw")
        cur = conn.cursor()
        cur.execute("SELECT USER FROM information_schema.PROCESSLIST")
        users = {r[0] for r in cur.fetchall()}
        cur.execute("SHOW PROCESSLIST")
        assert users == {r[1] for r in cur.fetchall()}
        assert ("root" in users) == sees_root and user in users, server
        conn.close()
        root.close()


VIEW_STATEMENTS = [
    "DROP VIEW vw.nosuch", "DROP VIEW vw.t", "DROP VIEW vw.a, vw.t", "DROP VIEW IF EXISTS vw.nosuch",
    "DROP VIEW IF EXISTS vw.a, vw.b RESTRICT", "SHOW CREATE VIEW vw.t", "SHOW CREATE VIEW vw.nosuch",
]


def answers(conn: pymysql.connections.Connection, statements: list[str]) -> list[object]:
    cur = conn.cursor()
    out: list[object] = []
    for sql in statements:
        try:
            cur.execute(sql)
            out.append(("OK", cur.fetchall()))
        except pymysql.MySQLError as e:
            out.append(e.args)
    return out


def test_statements_on_views_that_exist_nowhere_answer_as_mariadbs(servers):
    master, mariadb, _ = servers
    for server in (master, mariadb):
        server.query("CREATE DATABASE IF NOT EXISTS vw")
        server.query("CREATE TABLE IF NOT EXISTS vw.t (i INT)")
    assert answers(master.connect(), VIEW_STATEMENTS) == answers(mariadb.connect(), VIEW_STATEMENTS)


VIEW_LIFE = [
    "CREATE VIEW vw.v AS SELECT i, s FROM vw.u WHERE i > 1 AND s <> 'zz'",
    "SELECT * FROM vw.v ORDER BY i", "SELECT s FROM vw.v WHERE i = 3",
    "SELECT u.s, w.i FROM vw.u JOIN vw.v AS w ON w.i = u.i ORDER BY u.i",
    "CREATE VIEW vw.v AS SELECT 1", "CREATE VIEW vw.u AS SELECT 1", "CREATE TABLE vw.v (i INT)",
    "CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW vw.v (x, y) "
    "AS SELECT i * 10, s FROM vw.u",
    "SELECT x, y FROM vw.v WHERE y = 'a'",
    "CREATE VIEW vw.w AS SELECT x FROM vw.v WHERE x > 15", "SELECT x FROM vw.w ORDER BY x",
    "ALTER VIEW vw.w AS SELECT 7 AS seven", "SELECT * FROM vw.w",
    "CREATE DEFINER=CURRENT_USER VIEW nodb AS SELECT 1",
    "DROP VIEW vw.w, vw.nosuch", "SELECT * FROM vw.w", "DROP VIEW IF EXISTS vw.v, vw.nosuch", "SELECT * FROM vw.v",
    "DROP VIEW IF EXISTS vw.w",
]


def test_views_created_read_and_dropped_answer_as_mariadbs(servers):
    master, mariadb, _ = servers
    for server in (master, mariadb):
        server.query("CREATE DATABASE IF NOT EXISTS vw")
        server.query("CREATE TABLE IF NOT EXISTS vw.u (i INT PRIMARY KEY, s VARCHAR(10))")
        server.query("REPLACE INTO vw.u VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    ours, theirs = answers(master.connect(), VIEW_LIFE), answers(mariadb.connect(), VIEW_LIFE)
    assert list(zip(VIEW_LIFE, ours, strict=True)) == list(zip(VIEW_LIFE, theirs, strict=True))


VIEW_SHOWN = [
    "CREATE OR REPLACE DEFINER=`root`@`localhost` VIEW vs.v AS SELECT i FROM vs.t WHERE i > 1",
    "CREATE OR REPLACE ALGORITHM=TEMPTABLE DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW vs.w (x) "
    "AS SELECT 1",
    "SHOW FULL TABLES FROM vs", "SHOW TABLES FROM vs LIKE 'v'",
    "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_ROWS, TABLE_COMMENT FROM information_schema.TABLES "
    "WHERE TABLE_SCHEMA = 'vs' ORDER BY TABLE_NAME",
    "SELECT TABLE_NAME, CHECK_OPTION, DEFINER, SECURITY_TYPE, ALGORITHM FROM information_schema.VIEWS "
    "WHERE TABLE_SCHEMA = 'vs' ORDER BY TABLE_NAME",
    "INSERT INTO vs.w VALUES (2)", "UPDATE vs.w SET x = 3", "DELETE FROM vs.w",
    "SHOW CREATE VIEW vs.t",
]


def show_create_view(conn: pymysql.connections.Connection, name: str) -> tuple:
    """SHOW CREATE VIEW's columns and row, the SELECT and a column list cut off (MariaDB prints
    the SELECT rewritten, with the column list folded into its aliases)."""
    cur = conn.cursor()
    cur.execute("SHOW CREATE VIEW " + name)
    (row,) = cur.fetchall()
    return [d[0] for d in cur.description], (row[0], row[1].split(" AS ")[0].split(" (")[0], *row[2:])


def test_views_are_shown_and_refuse_writes_as_mariadbs(servers):
    master, mariadb, _ = servers
    for server in (master, mariadb):
        server.query("CREATE DATABASE IF NOT EXISTS vs")
        server.query("CREATE TABLE IF NOT EXISTS vs.t (i INT)")
    ours, theirs = answers(master.connect(), VIEW_SHOWN[:-4]), answers(mariadb.connect(), VIEW_SHOWN[:-4])
    assert ours == theirs
    # the view of a constant is not updatable in MariaDB either (1471 / 1288)
    ours, theirs = answers(master.connect(), VIEW_SHOWN[-4:]), answers(mariadb.connect(), VIEW_SHOWN[-4:])
    assert ours == theirs
    for name in ("vs.v", "vs.w"):
        assert show_create_view(master.connect(), name) == show_create_view(mariadb.connect(), name)


VIEW_GRANTED = [
    "CREATE VIEW vp.v AS SELECT i FROM vp.t", "CREATE OR REPLACE ALGORITHM=MERGE VIEW vp.v AS SELECT 1",
    "ALTER VIEW vp.v AS SELECT 2", "DROP VIEW vp.v",
]


def test_creating_and_dropping_a_view_needs_mariadbs_privileges(servers):
    master, mariadb, _ = servers
    found = []
    for server in (master, mariadb):
        server.query("CREATE DATABASE IF NOT EXISTS vp")
        server.query("CREATE TABLE IF NOT EXISTS vp.t (i INT)")
        server.query("CREATE USER IF NOT EXISTS 'reader'@'%' IDENTIFIED BY 'pw'")
        server.query("CREATE USER IF NOT EXISTS 'maker'@'%' IDENTIFIED BY 'pw'")
        server.query("GRANT SELECT ON vp.* TO 'reader'@'%'")
        server.query("GRANT SELECT, CREATE VIEW, DROP ON vp.* TO 'maker'@'%'")
        found.append([answers(server.connect(user=user, password="pw"), VIEW_GRANTED)
                      for user in ("reader", "maker")])
    ours, theirs = found
    assert ours == theirs
    assert all(a[0] == 1142 for a in ours[0]) and ours[1][0][0] == "OK"


def test_a_view_replicates_to_the_slave(servers):
    master, _, slave = servers
    master.query("CREATE DATABASE IF NOT EXISTS vr")
    master.query("CREATE TABLE vr.t (i INT)")
    master.query("INSERT INTO vr.t VALUES (1), (2), (3)")
    master.query("CREATE VIEW vr.big (n) AS SELECT i FROM vr.t WHERE i >= 2")
    master.query("CREATE VIEW vr.gone AS SELECT 1")
    master.query("DROP VIEW vr.gone")
    master.query("CREATE TABLE vr.marker (i INT)")
    wait_until(lambda: ("marker",) in slave.query("SHOW TABLES FROM vr"), 60, what="the slave applying")
    assert slave.query("SELECT n FROM vr.big ORDER BY n") == [(2,), (3,)]
    with pytest.raises(pymysql.MySQLError) as e:
        slave.query("SELECT * FROM vr.gone")
    assert e.value.args[0] == 1146
    status = slave_status(slave.port)
    assert status["Slave_SQL_Running"] == "Yes" and str(status["Last_SQL_Errno"]) == "0"


def test_drop_view_if_exists_replicates_and_the_slave_goes_on(servers):
    master, _, slave = servers
    master.query("CREATE DATABASE IF NOT EXISTS vw")
    master.query("DROP VIEW IF EXISTS vw.gone")
    master.query("CREATE TABLE vw.after_drop_view (i INT)")
    master.query("INSERT INTO vw.after_drop_view VALUES (7)")
    wait_until(lambda: ("after_drop_view",) in slave.query("SHOW TABLES FROM vw")
               and slave.query("SELECT i FROM vw.after_drop_view") == [(7,)], 60, what="the slave applying")
    status = slave_status(slave.port)
    assert status["Slave_SQL_Running"] == "Yes" and str(status["Last_SQL_Errno"]) == "0"
