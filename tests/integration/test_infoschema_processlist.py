"""information_schema.PROCESSLIST against our master (a real process) and a stock MariaDB 10.11:
MariaDB's columns, the same sessions as SHOW FULL PROCESSLIST, and PROCESS deciding whose."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available

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
    try:
        with MariaDBServer(tmp / "mariadb", log_bin=None).start() as mariadb:
            yield master, mariadb
    finally:
        master.stop()


def columns(conn: pymysql.connections.Connection) -> list[str]:
    cur = conn.cursor()
    cur.execute(ASK + " WHERE 0")
    return [d[0] for d in cur.description]


def test_processlist_has_mariadbs_columns_and_show_full_processlists_rows(servers):
    master, mariadb = servers
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
    master, mariadb = servers
    user = f"pl_{int(sees_root)}"
    for server in servers:
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
