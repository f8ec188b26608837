"""Privileges, differentially: the same users, grants and a few hundred statement shapes run on a
real MariaDB 10.11 and on our master; for every statement, allowed or denied (and the denial's
error code) must agree, and SHOW DATABASES / SHOW TABLES must list the same names.

Also: a locking read by an account that may only SELECT does not hold other writers (the
engine locks with one writer lock; see server/privileges.py), while one by an account with
UPDATE does, which shows the check can fail."""

from __future__ import annotations

import itertools
import threading
import time

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadb-server is not installed")

DENIED = {1044, 1045, 1142, 1143, 1227}

SETUP = [
    "CREATE DATABASE q", "CREATE DATABASE p",
    *[f"CREATE TABLE {t} (id INT PRIMARY KEY, a INT)" for t in ("q.t", "q.u", "q.w", "p.t")],
    *[f"INSERT INTO {t} VALUES (1, 1), (2, 2)" for t in ("q.t", "q.u", "q.w", "p.t")],
]
USERS = {
    "none": [],
    "gsel": ["GRANT SELECT ON *.* TO gsel"],
    "dsel": ["GRANT SELECT ON q.* TO dsel"],
    "dall": ["GRANT ALL PRIVILEGES ON q.* TO dall"],
    # table level: SELECT on q.t, INSERT on q.u, UPDATE on q.w, DELETE on p.t
    "tab": ["GRANT SELECT ON q.t TO tab", "GRANT INSERT ON q.u TO tab", "GRANT UPDATE ON q.w TO tab",
            "GRANT DELETE ON p.t TO tab"],
    "tupd": ["GRANT SELECT, UPDATE ON q.t TO tupd", "GRANT SELECT, INSERT, DELETE ON q.u TO tupd"],
    # database patterns: `p%` is more specific than `_` (any one-letter name) for p
    "wild": ["GRANT SELECT ON `p%`.* TO wild", "GRANT UPDATE, DELETE ON `_`.* TO wild"],
}
TABLES = ["q.t", "q.u", "q.w", "p.t", "q.nosuch"]
READS = [
    "SELECT * FROM {T}", "SELECT COUNT(*) FROM {T}", "SELECT a FROM {T} WHERE id = 1",
    "WITH c AS (SELECT 1 AS x) SELECT * FROM {T}", "WITH c AS (SELECT id FROM {T}) SELECT * FROM c",
    "SELECT * FROM q.t WHERE id IN (SELECT id FROM {T})", "SELECT id FROM q.t UNION SELECT id FROM {T}",
    "SELECT id FROM {T} UNION ALL SELECT id FROM q.t", "SELECT (SELECT MAX(id) FROM {T})",
    "SELECT * FROM (SELECT id FROM {T}) d", "SELECT * FROM q.t x JOIN {T} y ON x.id = y.id",
    "SELECT * FROM {T} x, q.t y WHERE x.id = y.id", "SELECT EXISTS (SELECT 1 FROM {T})",
    "SELECT * FROM {T} FOR UPDATE", "SELECT * FROM {T} LOCK IN SHARE MODE", "SELECT nosuchcol FROM {T}",
    "(SELECT * FROM {T})", "(SELECT id FROM q.t) UNION (SELECT id FROM {T})",
    "SELECT * FROM q.t WHERE EXISTS (SELECT 1 FROM {T} x WHERE x.id = q.t.id) FOR UPDATE",
    "SET @v = (SELECT MAX(a) FROM {T})", "SELECT @w := a FROM {T}", "DO (SELECT 1 FROM {T})",
    "SELECT 1 UNION SELECT a FROM {T}", "/* c */ SELECT * FROM {T}", "/*!40101 SELECT * FROM {T} */",
    "EXPLAIN SELECT * FROM {T}", "CHECKSUM TABLE {T}", "ANALYZE TABLE {T}", "CHECK TABLE {T}",
    "OPTIMIZE TABLE {T}", "REPAIR TABLE {T}",
]
WRITES = [
    "INSERT INTO {T} (id, a) VALUES ({n}, 1)", "INSERT INTO {T} VALUES ({n}, 1)",
    "INSERT INTO {T} SET id = {n}, a = 1", "REPLACE INTO {T} (id, a) VALUES ({n}, 1)",
    "INSERT INTO {T} (id, a) VALUES (1, 1) ON DUPLICATE KEY UPDATE a = 2",
    "INSERT INTO {T} (id, a) SELECT id + {n}, a FROM q.t", "INSERT INTO q.u (id, a) SELECT id + {n}, a FROM {T}",
    "UPDATE {T} SET a = 3", "UPDATE {T} SET a = 3 WHERE id = 1", "UPDATE {T} SET a = a + 1",
    "UPDATE {T} SET a = (SELECT MAX(a) FROM q.t)", "DELETE FROM {T} WHERE id = {n}", "DELETE FROM {T} WHERE 1 = 0",
    "UPDATE {T} x JOIN q.t y ON x.id = y.id SET x.a = y.a", "UPDATE q.w x JOIN {T} y ON x.id = y.id SET x.a = y.a",
    "DELETE {T} FROM {T} JOIN {J} ON {T}.id = {J}.id WHERE {J}.id = 99",
]
DDL = [
    "CREATE TABLE {db}.new{n} (id INT)", "CREATE TABLE IF NOT EXISTS {db}.new{n} (id INT)",
    "CREATE TABLE {db}.like{n} LIKE q.t", "DROP TABLE {db}.scratch", "DROP TABLE IF EXISTS {db}.scratch",
    "DROP TABLE {db}.nosuch", "ALTER TABLE {db}.scratch ADD COLUMN c{n} INT", "TRUNCATE TABLE {db}.scratch",
    "RENAME TABLE {db}.scratch TO {db}.renamed{n}", "ALTER TABLE {db}.scratch RENAME TO {db}.moved{n}",
    "ALTER TABLE {db}.scratch RENAME TO q.moved{n}", "CREATE INDEX i{n} ON {db}.scratch (a)",
    "DROP INDEX i{n} ON {db}.scratch", "DROP TABLE {db}.scratch, {db}.nosuch",
    "CREATE DATABASE zz{n}", "DROP DATABASE p",
]
SHOWS = [
    "SHOW CREATE TABLE {T}", "DESCRIBE {T}", "DESC {T}", "SHOW COLUMNS FROM {T}", "SHOW FULL COLUMNS FROM {T}",
    "SHOW INDEX FROM {T}", "SHOW KEYS FROM {T}",
]
DB_STATEMENTS = ["USE {db}", "SHOW TABLES FROM {db}", "SHOW CREATE DATABASE {db}", "SHOW TABLE STATUS FROM {db}",
                 "SHOW OPEN TABLES FROM {db}"]
INFO_SCHEMA = [
    "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema IN ('q', 'p')",
    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema IN ('q', 'p')",
    "SELECT schema_name FROM information_schema.schemata WHERE schema_name IN ('q', 'p')",
]
LISTINGS = ("SHOW DATABASES", "SHOW TABLES", *INFO_SCHEMA)  # their rows are compared too
SYSTEM_SCHEMAS = {"mysql", "performance_schema", "sys"}  # MariaDB's own, which we do not have
# Sequences on one connection: the outcome of each statement is compared.
SEQUENCES = [
    ["BEGIN", "SELECT * FROM {T} FOR UPDATE", "ROLLBACK"],
    ["BEGIN", "SELECT * FROM {T} LOCK IN SHARE MODE", "COMMIT"],
    ["SET autocommit = 0", "SELECT a FROM {T} WHERE id = 1 FOR UPDATE", "ROLLBACK", "SET autocommit = 1"],
    ["USE q", "SELECT * FROM t", "UPDATE u SET a = 1 WHERE id = 1", "SHOW TABLES", "DESCRIBE w"],
    ["LOCK TABLES q.t READ", "UNLOCK TABLES", "LOCK TABLES p.t WRITE", "UNLOCK TABLES"],
]


def statements() -> list[list[str]]:
    """Every statement shape to compare, as sequences (most of one statement)."""
    n = itertools.count(100)
    out: list[list[str]] = []
    for table in TABLES:
        join = "q.w" if table == "q.t" else "q.t"  # a table joined to itself is MariaDB's 1066
        out += [[s.format(T=table, J=join, n=next(n))] for s in READS + WRITES + SHOWS]
        out += [[s.format(T=table) for s in seq] for seq in SEQUENCES[:3]]
    for db in ("q", "p", "nosuchdb"):
        out += [[s.format(db=db, n=next(n))] for s in DB_STATEMENTS]
    for db in ("q", "p"):
        out += [[s.format(db=db, n=next(n))] for s in DDL]
    out += [SEQUENCES[3], SEQUENCES[4], ["SHOW DATABASES"], *([sql] for sql in INFO_SCHEMA)]
    # the engine lacks CREATE ... SELECT: only where every user here is denied (db p)
    out += [["CREATE TABLE p.sel AS SELECT * FROM q.t"], ["CREATE TABLE p.sel SELECT * FROM q.t"]]
    return out


def outcome(conn: pymysql.connections.Connection, sql: str) -> str:
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            rows = cur.fetchall() if cur.description else ()
    except pymysql.err.MySQLError as exc:
        code = exc.args[0]
        return f"denied {code}" if code in DENIED else "allowed"
    if sql.startswith(LISTINGS):
        shown = sorted(".".join(map(str, r)) for r in rows if str(r[0]) not in SYSTEM_SCHEMAS)
        return "allowed " + ",".join(shown)
    return "allowed"


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    base = tmp_path_factory.mktemp("privileges")
    maria = MariaDBServer(base / "mariadb", log_bin=None).start()
    ours = Daemon("master", base / "master", ["--server-id=1"]).start()
    try:
        for server in (maria, ours):
            setup = SETUP + [f"CREATE USER {u} IDENTIFIED BY 'pw'" for u in USERS]
            setup += [g for grants in USERS.values() for g in grants]
            conn = server.connect()
            with conn.cursor() as cur:
                for sql in setup:
                    cur.execute(sql)
            conn.close()
        yield maria, ours
    finally:
        ours.stop()
        maria.stop()


def _reset_scratch(root_conns) -> None:
    for conn in root_conns:
        with conn.cursor() as cur:
            for db in ("q", "p"):
                cur.execute(f"CREATE TABLE IF NOT EXISTS {db}.scratch (id INT PRIMARY KEY, a INT)")


def test_every_statement_shape_is_allowed_or_denied_as_mariadb_does(servers):
    maria, ours = servers
    roots = [maria.connect(), ours.connect()]
    shapes = statements()
    assert len(shapes) * len(USERS) > 300
    diffs: list[str] = []
    compared = denied = 0
    for user in USERS:
        conns = [s.connect(user=user, password="pw") for s in (maria, ours)]
        for seq in shapes:
            if any("scratch" in sql for sql in seq):
                _reset_scratch(roots)
            for sql in seq:
                theirs, mine = (outcome(c, sql) for c in conns)
                compared += 1
                denied += theirs.startswith("denied")
                if theirs != mine:
                    diffs.append(f"{user:5} {sql[:70]:70} mariadb: {theirs:12} ours: {mine}")
            if any(sql.startswith(("USE", "LOCK", "BEGIN", "SET")) for sql in seq):
                for c in conns:  # a fresh session: no current db, no lock, no transaction
                    c.close()
                conns = [s.connect(user=user, password="pw") for s in (maria, ours)]
        for c in conns:
            c.close()
    for c in roots:
        c.close()
    assert not diffs, f"{len(diffs)} of {compared} statements disagree:\n" + "\n".join(diffs)
    print(f"{compared} statements agree, {denied} of them denied")
    assert compared / 4 < denied < compared * 3 / 4  # both answers well represented


def test_grants_show_and_errors_as_mariadb(servers):
    maria, ours = servers
    shown = []
    for server in (maria, ours):
        conn = server.connect()
        with conn.cursor() as cur:
            for user in ("tab", "dall", "gsel", "tupd", "wild"):
                cur.execute(f"SHOW GRANTS FOR {user}")
                shown.append(sorted(r[0] for r in cur.fetchall()))
        conn.close()
    assert shown[:5] == shown[5:]
    assert "GRANT SELECT ON `q`.`t` TO `tab`@`%`" in shown[0]
    # the same errors, word for word, on both
    denied = ["SELECT * FROM q.u", "UPDATE q.w SET a = 1 WHERE id = 1", "USE nosuchdb"]
    assert answers(maria, denied, user="tab") == answers(ours, denied, user="tab")
    # GRANT/REVOKE refused as MariaDB refuses them
    refused = ["GRANT USAGE ON p.* TO tab", "REVOKE SELECT ON p.* FROM tab", "REVOKE SELECT ON q.w FROM tab",
               "GRANT SUPER ON q.* TO tab", "GRANT CREATE TEMPORARY TABLES ON q.t TO tab",
               "GRANT SELECT ON q.nosuch TO tab", "GRANT SELECT ON * TO tab", "GRANT SELECT ON t TO tab"]
    assert answers(maria, refused) == answers(ours, refused)
    # a login naming a database the account may not use: 1044 on both
    for server in (maria, ours):
        with pytest.raises(pymysql.err.MySQLError) as err:
            server.connect("p", user="dsel", password="pw").close()
        assert err.value.args[0] == 1044, server
    # column privileges: MariaDB keeps them, we answer 1235 (not supported), never silently
    conn = ours.connect()
    with conn.cursor() as cur, pytest.raises(pymysql.err.MySQLError) as err:
        cur.execute("GRANT SELECT (a) ON q.t TO none")
    assert err.value.args[0] == 1235
    conn.close()


# MariaDB 10.5's split of SUPER: one account per privilege (and SUPER, and none).
SPLIT = {"sp_none": "", "sp_super": "SUPER", "sp_bmon": "BINLOG MONITOR", "sp_smon": "SLAVE MONITOR",
         "sp_badm": "BINLOG ADMIN", "sp_brep": "BINLOG REPLAY", "sp_rma": "REPLICATION MASTER ADMIN",
         "sp_rsa": "REPLICATION SLAVE ADMIN", "sp_roa": "READ_ONLY ADMIN", "sp_cadm": "CONNECTION ADMIN",
         "sp_fed": "FEDERATED ADMIN", "sp_setu": "SET USER"}
SPLIT_STATEMENTS = [
    "STOP SLAVE", "STOP REPLICA", "SET GLOBAL gtid_slave_pos = ''", "SHOW SLAVE STATUS", "SHOW ALL SLAVES STATUS",
    "SHOW MASTER STATUS", "SHOW SLAVE HOSTS", "SET GLOBAL read_only = @@global.read_only",
    "SET GLOBAL max_connections = @@global.max_connections", "SET GLOBAL slave_net_timeout = 60",
    "SET GLOBAL gtid_domain_id = 0", "SET SESSION gtid_domain_id = 0", "SET GLOBAL sync_binlog = @@global.sync_binlog",
    "SET GLOBAL gtid_strict_mode = @@global.gtid_strict_mode", "SET GLOBAL server_id = @@global.server_id",
    "SET GLOBAL max_statement_time = 0", "SHOW BINLOG EVENTS LIMIT 1",
]


def test_privileges_split_from_super_as_mariadb(servers):
    """GRANT / REVOKE / SHOW GRANTS of BINLOG ADMIN, BINLOG REPLAY, BINLOG MONITOR, SLAVE MONITOR,
    REPLICATION MASTER/SLAVE ADMIN, READ_ONLY ADMIN, CONNECTION ADMIN, FEDERATED ADMIN and SET USER
    word for word as MariaDB 10.11, and each account allowed or denied (1227 naming MariaDB's
    privileges) the same replication statements and SET GLOBALs."""
    maria, ours = servers
    every = ", ".join(p for p in SPLIT.values() if p)
    setup = [*(f"CREATE USER {u} IDENTIFIED BY 'pw'" for u in SPLIT),
             *(f"GRANT {p} ON *.* TO {u}" for u, p in SPLIT.items() if p),
             "CREATE USER sp_all", f"GRANT {every}, REPLICATION CLIENT, SELECT ON *.* TO sp_all",
             "REVOKE SET USER, BINLOG ADMIN, SELECT ON *.* FROM sp_all"]
    for server in (maria, ours):
        assert answers(server, setup) == ["ok"] * len(setup)
    shown = [answers(server, [f"SHOW GRANTS FOR {u}" for u in (*SPLIT, "sp_all")]) for server in (maria, ours)]
    assert shown[0] == ["ok"] * (len(SPLIT) + 1)
    grants = [[_grants(server, u) for u in (*SPLIT, "sp_all")] for server in (maria, ours)]
    assert grants[1] == grants[0]
    assert grants[0][-1] == ["GRANT SUPER, BINLOG MONITOR, FEDERATED ADMIN, CONNECTION ADMIN, READ_ONLY ADMIN, "
                             "REPLICATION SLAVE ADMIN, REPLICATION MASTER ADMIN, BINLOG REPLAY, SLAVE MONITOR "
                             "ON *.* TO `sp_all`@`%`"]
    refused = ["GRANT BINLOG ADMIN ON q.* TO sp_none", "GRANT READ_ONLY ADMIN ON q.t TO sp_none"]
    assert answers(ours, refused) == answers(maria, refused)
    for user in SPLIT:
        theirs = answers(maria, SPLIT_STATEMENTS, user=user)
        assert answers(ours, SPLIT_STATEMENTS, user=user) == theirs, user
        if user == "sp_rsa":  # the check can fail: the split privilege is what lets it through
            assert theirs[:3] == ["ok"] * 3 and theirs[3][0] == 1227, theirs


def _grants(server, user: str) -> list[str]:
    conn = server.connect()
    try:
        with conn.cursor() as cur:
            cur.execute(f"SHOW GRANTS FOR {user}")
            return [row[0].replace(" IDENTIFIED BY PASSWORD '*CC67043C7BCFF5EEA5566BD9B1F3C74FD9A5CF5D'", "")
                    for row in cur.fetchall()]
    finally:
        conn.close()


def answers(server, statements: list[str], **login) -> list[object]:
    """Each statement's answer on one connection: "ok" or the error's (code, message)."""
    conn = server.connect(**({"password": "pw"} if login else {}), **login)
    out: list[object] = []
    for sql in statements:
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
            out.append("ok")
        except pymysql.err.MySQLError as exc:
            out.append(exc.args)
    conn.close()
    return out


def _insert_blocked(server: Daemon, locker: str, row_id: int, wait: float) -> bool:
    """Is a root INSERT still waiting `wait` seconds after `locker` opened a transaction with a
    FOR UPDATE read (and still holds it)?"""
    holder = server.connect(user=locker, password="pw")
    root = server.connect()
    try:
        with holder.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("SELECT * FROM q.t FOR UPDATE")
        writer = threading.Thread(target=lambda: root.cursor().execute(f"INSERT INTO q.u VALUES ({row_id}, 0)"))
        writer.start()
        writer.join(wait)
        blocked = writer.is_alive()
        with holder.cursor() as cur:
            cur.execute("ROLLBACK")
        writer.join(120)
        assert not writer.is_alive()
        return blocked
    finally:
        holder.close()
        root.close()


def test_select_only_locking_read_does_not_hold_writers(servers):
    _, ours = servers
    conn = ours.connect()
    with conn.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS selonly IDENTIFIED BY 'pw'")
        cur.execute("GRANT SELECT ON q.t TO selonly")
    conn.close()
    assert not _insert_blocked(ours, "selonly", 9001, wait=30.0)
    # the control: an account with UPDATE on the table locks, so the check can fail
    assert _insert_blocked(ours, "tupd", 9002, wait=3.0)


def test_database_and_table_grants_replicate_to_our_slave(tmp_path):
    """GRANT/REVOKE at every level reach the slave through the binlog and are applied there:
    the slave's SHOW GRANTS equals the master's and its checks follow them."""
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    slave = None
    try:
        for sql in ["CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'", "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
                    "CREATE DATABASE q", "CREATE TABLE q.t (id INT PRIMARY KEY, a INT)",
                    "CREATE TABLE q.u (id INT PRIMARY KEY, a INT)", "INSERT INTO q.t VALUES (1, 1)",
                    "CREATE USER rep IDENTIFIED BY 'pw'", "GRANT SELECT ON q.* TO rep",
                    "GRANT INSERT, UPDATE ON q.u TO rep WITH GRANT OPTION", "GRANT SELECT ON q.t TO rep",
                    "REVOKE SELECT ON q.t FROM rep"]:
            master.query(sql)
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
        ]).start()
        expected = sorted(r[0] for r in master.query("SHOW GRANTS FOR rep"))
        assert "GRANT SELECT ON `q`.* TO `rep`@`%`" in expected
        assert "GRANT INSERT, UPDATE ON `q`.`u` TO `rep`@`%` WITH GRANT OPTION" in expected

        def slave_grants():
            try:
                return sorted(r[0] for r in slave.query("SHOW GRANTS FOR rep")) == expected
            except pymysql.err.MySQLError:
                return False

        deadline = time.monotonic() + 60
        while not slave_grants():
            assert time.monotonic() < deadline, (expected, slave.tail())
            time.sleep(0.2)
        conn = slave.connect(user="rep", password="pw")
        with conn.cursor() as cur:
            cur.execute("SELECT * FROM q.t")  # SELECT ON q.* (the table-level grant was revoked)
            assert cur.fetchall() == ((1, 1),)
        conn.close()
        master.query("REVOKE SELECT ON q.* FROM rep")
        conn = None
        deadline = time.monotonic() + 60
        while True:
            conn = slave.connect(user="rep", password="pw")
            try:
                with conn.cursor() as cur:
                    cur.execute("SELECT * FROM q.t")
            except pymysql.err.MySQLError as exc:
                assert exc.args[0] == 1142
                break
            finally:
                conn.close()
            assert time.monotonic() < deadline, slave.tail()
            time.sleep(0.2)
    finally:
        if slave is not None:
            slave.stop()
        master.stop()
