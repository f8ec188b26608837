"""max_statement_time as MariaDB 10.11 enforces it, replayed against a stock MariaDB and our master.

The variable (a DOUBLE in seconds, GLOBAL and SESSION, 0..31536000 clamped, 1232 for anything
but a number), `SET STATEMENT max_statement_time=N FOR ...` (MaxScale's form), the interrupted
statement's error (1969, SQLSTATE 70100, MariaDB's wording) for a SLEEP, a long join, a write
calling SLEEP and a wait for a lock held by another transaction; the statement's effects undone,
its transaction and session usable after; `Max_statement_time_exceeded` counted; nothing of an
interrupted statement in the binlog. Each step's answer (the error code, SQLSTATE and message, or
the rows) must be MariaDB's. Another shows a slave's applier is not limited (MariaDB's slave
threads ignore max_statement_time) while the slave's own clients are. On the same two servers,
SET SESSION / SET STATEMENT gtid_domain_id's checks as MariaDB's: SUPER or BINLOG REPLAY (1227)
unless to DEFAULT, never inside a transaction (1953).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import answer, mariadb_and_ours
from tests.support.slave_daemon import wait_until

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed")

SETUP = (
    "CREATE DATABASE app",
    "CREATE TABLE app.t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
    "INSERT INTO app.t VALUES (1, 1), (2, 2), (3, 3)",
    "CREATE TABLE app.big (i INT PRIMARY KEY) ENGINE=InnoDB",
    "INSERT INTO app.big VALUES " + ",".join(f"({i})" for i in range(100)),
)

# (connection, statement): "main" is the session under test, "other" a second one.
STEPS: tuple[tuple[str, str], ...] = (
    ("main", "SELECT @@max_statement_time, @@session.max_statement_time, @@global.max_statement_time"),
    ("main", "SHOW VARIABLES LIKE 'max_statement_time'"),
    ("main", "SHOW GLOBAL STATUS LIKE 'max_statement_time_exceeded'"),
    # the variable: a double, clamped, numbers only
    ("main", "SET max_statement_time = 1.5"),
    ("main", "SELECT @@max_statement_time"),
    ("main", "SET max_statement_time = -1"),
    ("main", "SELECT @@max_statement_time"),
    ("main", "SET max_statement_time = 40000000"),
    ("main", "SELECT @@max_statement_time"),
    ("main", "SET max_statement_time = '1'"),
    ("main", "SET max_statement_time = NULL"),
    ("main", "SET max_statement_time = ON"),
    ("main", "SET max_statement_time = DEFAULT"),
    ("main", "SHOW VARIABLES LIKE 'max_statement_time'"),
    ("main", "SELECT MAX_STATEMENT_TIME=1 1"),  # MySQL 5.7.4's form: not MariaDB's syntax
    # MaxScale's form: the limit for one statement
    ("main", "SET STATEMENT max_statement_time=0.5 FOR SELECT SLEEP(5)"),
    ("main", "SELECT 1"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR SELECT SLEEP(5), 2 UNION SELECT 3, 4"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR SELECT count(*) FROM app.big a, app.big b, "
             "app.big c, app.big d, app.big e"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR SELECT a FROM app.t WHERE SLEEP(1) = 0"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR SET @x = SLEEP(2)"),
    ("main", "SELECT @x"),
    # a write: interrupted, undone
    ("main", "SET STATEMENT max_statement_time=0.5 FOR UPDATE app.t SET b = b + SLEEP(1)"),
    ("main", "SELECT * FROM app.t ORDER BY a"),
    # inside a transaction: the statement is undone, the transaction goes on
    ("main", "BEGIN"),
    ("main", "INSERT INTO app.t VALUES (7, 7)"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR UPDATE app.t SET b = SLEEP(3) WHERE a = 7"),
    ("main", "SELECT * FROM app.t ORDER BY a"),
    ("main", "COMMIT"),
    ("main", "SELECT * FROM app.t ORDER BY a"),
    # waiting for what another transaction holds
    ("other", "BEGIN"),
    ("other", "INSERT INTO app.t VALUES (8, 8)"),
    ("main", "SET STATEMENT max_statement_time=0.5 FOR INSERT INTO app.t VALUES (8, 80)"),
    ("other", "ROLLBACK"),
    ("main", "SELECT * FROM app.t ORDER BY a"),
    # the session's value, and SET STATEMENT's own over it
    ("main", "SET SESSION max_statement_time = 0.5"),
    ("main", "SELECT SLEEP(2)"),
    ("main", "SELECT 1"),
    ("main", "SET STATEMENT max_statement_time=0 FOR SELECT SLEEP(0.8)"),
    ("main", "SELECT @@max_statement_time"),
    ("main", "SET SESSION max_statement_time = 0"),
    # the global value: for sessions that start after it
    ("main", "SET GLOBAL max_statement_time = 0.5"),
    ("main", "SELECT SLEEP(0.8)"),
    ("late", "SELECT @@max_statement_time"),
    ("late", "SELECT SLEEP(2)"),
    ("main", "SET GLOBAL max_statement_time = 0"),
    ("main", "SHOW GLOBAL STATUS LIKE 'max_statement_time_exceeded'"),
    ("main", "SHOW SESSION STATUS LIKE 'max_statement_time_exceeded'"),
)


def replay(server: Any) -> list[tuple]:
    for sql in SETUP:
        server.query(sql)
    conns: dict[str, pymysql.connections.Connection] = {}
    try:
        answers = []
        for who, sql in STEPS:
            if who not in conns:
                conns[who] = server.connect()
            answers.append(answer(conns[who], sql))
        (current, *_), = server.query("SHOW MASTER STATUS")
        binlog = server.query(f"SHOW BINLOG EVENTS IN '{current}'")
        answers.append(("binlog", sorted(row[5] for row in binlog if "app.t" in row[5] and "INSERT" in row[5])))
        answers.append(("no SLEEP in the binlog", [row[5] for row in binlog if "SLEEP" in row[5]]))
        return answers
    finally:
        for conn in conns.values():
            conn.close()


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> Iterator[tuple[MariaDBServer, Daemon]]:
    with mariadb_and_ours(tmp_path_factory.mktemp("statement_time"), mariadb_id=11) as pair:
        yield pair


def test_max_statement_time_as_mariadb(servers):
    mariadb, ours = servers
    theirs, mine = replay(mariadb), replay(ours)
    timeouts = [a for a in theirs if a[:2] == ("error", 1969)]
    assert len(timeouts) == 10 and timeouts[0][2:] == (
        "70100", "Query execution was interrupted (max_statement_time exceeded)"), theirs
    differences = [f"{who}: {sql}\n    MariaDB {t}\n    ours    {m}"
                   for (who, sql), t, m in zip((*STEPS, ("", "binlog"), ("", "binlog")), theirs, mine, strict=True)
                   if t != m]
    assert not differences, "\n".join(differences)


def test_the_applier_is_not_limited_but_the_slaves_clients_are(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"])
    slave: Daemon | None = None
    try:
        master.start()
        for sql in ("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'", "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
                    *SETUP):
            master.query(sql)
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
        ]).start()
        wait_until(lambda: slave.query("SELECT count(*) FROM app.big") == [(100,)], timeout=60,
                   what="the slave has the master's rows")
        slave.query("SET GLOBAL max_statement_time = 0.2")
        # binlogged as written: the slave's applier sleeps 0.6 s too, past the slave's limit
        master.query("UPDATE app.t SET b = 10 + SLEEP(0.6) WHERE a = 1")
        wait_until(lambda: slave.query("SELECT b FROM app.t WHERE a = 1") == [(10,)], timeout=60,
                   what="the slow update applied on the slave")
        status = slave.connect()
        with status.cursor(pymysql.cursors.DictCursor) as cur:
            cur.execute("SHOW SLAVE STATUS")
            row = cur.fetchone()
        assert (row["Slave_SQL_Running"], row["Last_SQL_Errno"]) == ("Yes", 0)
        with status.cursor() as cur, pytest.raises(pymysql.MySQLError) as limited:
            cur.execute("SELECT SLEEP(2)")  # a client of the slave is limited
        assert limited.value.args[0] == 1969
        status.close()
    finally:
        if slave is not None:
            slave.stop()
        master.stop()


GTID_SETUP = (
    "CREATE DATABASE gt",
    "CREATE TABLE gt.t (a INT PRIMARY KEY) ENGINE=InnoDB",
    "CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'",
    "GRANT ALL ON gt.* TO 'plain'@'%'",
)

GTID_STEPS: tuple[tuple[str, str], ...] = (
    ("plain", "SET SESSION gtid_domain_id = 2"),
    ("plain", "SET gtid_domain_id = 2"),
    ("plain", "SET @@session.gtid_domain_id = 2"),
    ("plain", "SET STATEMENT gtid_domain_id = 2 FOR SELECT 1"),
    ("plain", "SET gtid_domain_id = DEFAULT"),
    ("plain", "SELECT @@gtid_domain_id"),
    ("plain", "BEGIN"),
    ("plain", "INSERT INTO gt.t VALUES (1)"),
    ("plain", "SET gtid_domain_id = 2"),
    ("plain", "SET gtid_domain_id = DEFAULT"),
    ("plain", "ROLLBACK"),
    ("root", "SET SESSION gtid_domain_id = 2"),
    ("root", "SELECT @@session.gtid_domain_id, @@global.gtid_domain_id"),
    ("root", "BEGIN"),
    ("root", "SELECT 1"),
    ("root", "SET gtid_domain_id = 3"),
    ("root", "SET STATEMENT gtid_domain_id = 3 FOR SELECT @@gtid_domain_id"),
    ("root", "ROLLBACK"),
    ("root", "SET STATEMENT gtid_domain_id = 3 FOR SELECT @@gtid_domain_id"),
    ("root", "SELECT @@gtid_domain_id"),
)


def test_session_gtid_domain_id_checks_as_mariadb(servers):
    answers = []
    for server in servers:
        for sql in GTID_SETUP:
            server.query(sql)
        conns = {"plain": server.connect(user="plain", password="pw"), "root": server.connect()}
        try:
            answers.append([answer(conns[who], sql) for who, sql in GTID_STEPS])
        finally:
            for conn in conns.values():
                conn.close()
    theirs, mine = answers
    assert [a[1] for a in theirs if a[0] == "error"] == [1227, 1227, 1227, 1227, 1227, 1953, 1953, 1953], theirs
    differences = [f"{who}: {sql}\n    MariaDB {t}\n    ours    {m}"
                   for (who, sql), t, m in zip(GTID_STEPS, theirs, mine, strict=True) if t != m]
    assert not differences, "\n".join(differences)


def test_a_prepared_statement_is_limited_as_mariadb(servers):
    """COM_STMT_EXECUTE runs under the session's limit too (mysql-connector's prepared cursor)."""
    connector = pytest.importorskip("mysql.connector")
    answers = []
    for server in servers:
        conn = connector.connect(host="127.0.0.1", port=server.port, user="root", autocommit=True)
        try:
            conn.cmd_query("SET SESSION max_statement_time = 0.3")
            cur = conn.cursor(prepared=True)
            try:
                cur.execute("SELECT SLEEP(?)", (5,))
                got: tuple = ("rows", tuple(cur.fetchall()))
            except connector.Error as exc:
                got = ("error", exc.errno, exc.sqlstate, exc.msg)
            cur.execute("SELECT ?", (5,))  # the session goes on
            answers.append((got, cur.fetchall()))
        finally:
            conn.close()
    theirs, mine = answers
    assert theirs[0][:3] == ("error", 1969, "70100"), theirs
    assert mine == theirs


def test_a_limit_never_cuts_a_commit_group_half_way(servers):
    """A statement whose limit passes while its binlog group waits for a semi-sync ack (no slave:
    the wait lasts rpl_semi_sync_master_timeout) is not cancelled inside the group commit: it
    completes, its group is written once and committed, and the next writes go on."""
    _, ours = servers
    conn = ours.connect()
    try:
        with conn.cursor() as cur:
            for sql in ("SET GLOBAL rpl_semi_sync_master_timeout = 1500",
                        "SET GLOBAL rpl_semi_sync_master_wait_no_slave = ON",
                        "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
                cur.execute(sql)
            try:
                cur.execute("SET STATEMENT max_statement_time=0.3 FOR CREATE USER 'waited'@'%'")
                cur.execute("INSERT INTO app.t VALUES (20, 20)")
            finally:
                cur.execute("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
            cur.execute("SELECT user FROM mysql.global_priv WHERE user = 'waited'")
            assert cur.fetchall() == (("waited",),)
            (current, *_), = ours.query("SHOW MASTER STATUS")
            events = [row[5] for row in ours.query(f"SHOW BINLOG EVENTS IN '{current}'")]
            assert sum("CREATE USER 'waited'" in e for e in events) == 1, events
            cur.execute("SELECT b FROM app.t WHERE a = 20")
            assert cur.fetchall() == ((20,),)
    finally:
        conn.close()


DOUBLE_STEPS = (
    "SELECT @@max_statement_time, @@session.max_statement_time, @@global.max_statement_time",
    "SET SESSION max_statement_time = 1.5",
    "SELECT @@max_statement_time, @@global.max_statement_time",
    "SELECT @@max_statement_time AS m FROM DUAL",
    "SET timestamp = 1",
    "SELECT @@timestamp",
    "SHOW VARIABLES LIKE 'max_statement_time'",
    "SELECT @@slave_net_timeout, @@global.slave_net_timeout",
    "SHOW VARIABLES LIKE 'slave_net_timeout'",
)


def test_double_variables_are_typed_and_shown_as_mariadb(servers):
    """A DOUBLE variable's SELECT @@ column says DOUBLE with 6 decimals and its text has 6
    (`0.000000`), as in SHOW VARIABLES; slave_net_timeout is an integer. Compared raw: the
    text each server sent and each column's type and decimals."""
    def raw(server: Any) -> list[tuple]:
        conn = server.connect(conv={})
        try:
            with conn.cursor() as cur:
                seen = []
                for sql in DOUBLE_STEPS:
                    cur.execute(sql)
                    seen.append((sql, cur.fetchall(), [(d[0], d[1], d[5]) for d in cur.description or ()]))
                return seen
        finally:
            conn.close()

    mariadb, ours = servers
    theirs = raw(mariadb)
    assert theirs[0][1] == (("0.000000",) * 3,) and theirs[0][2][0][1:] == (pymysql.constants.FIELD_TYPE.DOUBLE, 6)
    assert raw(ours) == theirs
