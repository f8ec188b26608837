"""Admin statements of the server shell over the wire (NullRole, real engine, PyMySQL):
variables and status, user variables, the generic part of a MariaDB replica's bootstrap, users
and privileges, SHOW PROCESSLIST and KILL, plugins."""

from __future__ import annotations

import time

import pymysql
import pytest

from tests.support.server_shell import ShellServer


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("admin"), server_id=42) as s:
        yield s


@pytest.fixture
def cur(shell):
    conn = shell.connect(autocommit=True)
    yield conn.cursor()
    conn.close()


def code(cur, sql):
    with pytest.raises(pymysql.MySQLError) as e:
        cur.execute(sql)
    return e.value.args[0]


def rows(cur, sql):
    cur.execute(sql)
    return cur.fetchall()


def test_show_variables_and_status(cur):
    assert rows(cur, "SHOW VARIABLES LIKE 'SERVER_ID'") == (("server_id", "42"),)
    assert rows(cur, "show global variables like 'version_comment'")[0][0] == "version_comment"
    names = [r[0] for r in rows(cur, "SHOW VARIABLES LIKE 'character\\_set\\_%'")]
    assert "character_set_client" in names and "character_set_server" in names
    assert rows(cur, "SHOW VARIABLES WHERE Variable_name = 'binlog_format'") == (("binlog_format", "STATEMENT"),)
    status = dict(rows(cur, "SHOW GLOBAL STATUS"))
    for name in ("Uptime", "Threads_connected", "Questions", "Com_select", "Bytes_received", "Connections"):
        assert status[name].isdigit(), name
    com = int(dict(rows(cur, "SHOW STATUS LIKE 'Com_select'"))["Com_select"])
    rows(cur, "SELECT 1")
    rows(cur, "select @@server_id")
    assert int(dict(rows(cur, "SHOW STATUS LIKE 'Com_select'"))["Com_select"]) == com + 2
    before = int(dict(rows(cur, "SHOW STATUS LIKE 'Questions'"))["Questions"])
    rows(cur, "SELECT 1")
    after = int(dict(rows(cur, "SHOW STATUS LIKE 'questions'"))["Questions"])
    assert after >= before + 2
    cur.execute("FLUSH STATUS")
    assert int(dict(rows(cur, "SHOW STATUS LIKE 'Questions'"))["Questions"]) < after


def test_select_system_variables(cur):
    assert rows(cur, "select @@version_comment limit 1")[0][0]
    r = rows(cur, "SELECT @@server_id, @@GLOBAL.server_id AS g, @@session.autocommit, @@max_allowed_packet")
    assert r == ((42, 42, 1, 16 << 20),)
    assert [d[0] for d in cur.description] == ["@@server_id", "g", "@@session.autocommit", "@@max_allowed_packet"]
    assert code(cur, "SELECT @@no_such_thing") == 1193
    assert rows(cur, "SELECT @@warning_count, @@error_count") == ((1, 1),)
    assert rows(cur, "SHOW WARNINGS") == (("Error", 1193, "Unknown system variable 'no_such_thing'"),)
    assert rows(cur, "SHOW ERRORS") == (("Error", 1193, "Unknown system variable 'no_such_thing'"),)
    rows(cur, "SELECT 1")  # (no table: the list stays, as MariaDB's)
    assert rows(cur, "SHOW WARNINGS") == (("Error", 1193, "Unknown system variable 'no_such_thing'"),)
    rows(cur, "SHOW VARIABLES LIKE 'nothing'")  # (information_schema's: a new list)
    assert rows(cur, "SHOW WARNINGS") == ()
    assert code(cur, "SET GLOBAL no_such_thing = 1") == 1193
    assert code(cur, "SET GLOBAL version = 'x'") == 1238
    assert code(cur, "SET SESSION max_connections = 5") == 1229
    assert code(cur, "SET autocommit = 7") == 1231
    assert code(cur, "SET wait_timeout = 'abc'") == 1232
    cur.execute("SET SESSION wait_timeout = 77")
    assert rows(cur, "SELECT @@wait_timeout, @@global.wait_timeout") == ((77, 28800),)
    cur.execute("SET GLOBAL max_connections = 300")
    assert rows(cur, "SELECT @@max_connections") == ((300,),)
    cur.execute("SET NAMES utf8mb4")
    cur.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
    assert rows(cur, "SELECT CONNECTION_ID()")[0][0] == cur.connection.thread_id()


def test_user_variables_round_trip(cur):
    cur.execute("SET @a = 5, @b = 'text', @c = NULL")
    assert rows(cur, "SELECT @a, @b, @c, @undefined") == ((5, "text", None, None),)
    cur.execute("SET @copy := @@global.server_id")
    assert rows(cur, "SELECT @copy") == ((42,),)
    cur.execute("SET @sum = 1 + 2, @s = CONCAT('a', 'b'), @n = (SELECT 7), @t = 'x'")
    assert rows(cur, "SELECT @sum, @s, @n, @t") == ((3, "ab", 7, "x"),)
    assert code(cur, "SET @bad = (SELECT * FROM no_such_db.t)") in (1146, 1049)


def test_replica_bootstrap_generic_part(cur):
    """What a MariaDB 10.11 replica asks before COM_BINLOG_DUMP (shared/interop capture)."""
    ts = rows(cur, "SELECT UNIX_TIMESTAMP()")
    assert abs(int(ts[0][0]) - time.time()) < 60
    assert rows(cur, "SHOW VARIABLES LIKE 'SERVER_ID'") == (("server_id", "42"),)
    cur.execute("SET @master_heartbeat_period= 1000000000")
    cur.execute("SET @master_binlog_checksum= @@global.binlog_checksum")
    value = rows(cur, "SELECT @master_binlog_checksum")
    assert value == ((rows(cur, "SELECT @@global.binlog_checksum")[0][0],),)
    assert cur.description[0][0] == "@@global.binlog_checksum"
    cur.execute("SET @mariadb_slave_capability=4")
    assert rows(cur, "SELECT @mariadb_slave_capability, @master_heartbeat_period") == ((4, 1000000000),)
    assert rows(cur, "SELECT @@GLOBAL.gtid_domain_id") == ((0,),)


def test_users_and_privileges(shell, cur):
    cur.execute("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
    assert code(cur, "CREATE USER 'repl'@'%' IDENTIFIED BY 'x'") == 1396
    cur.execute("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
    cur.execute("CREATE USER mon@'127.0.0.1' IDENTIFIED BY PASSWORD '*B5E05F4D47A9C8D6B6BC1A31B6D6C4F5A5B1F3C2'")
    cur.execute("GRANT REPLICATION CLIENT ON *.* TO 'mon'@'127.0.0.1' IDENTIFIED BY 'monpw'")
    assert code(cur, "GRANT SELECT ON *.* TO 'ghost'@'%'") == 1133
    assert code(cur, "SHOW GRANTS FOR 'ghost'@'%'") == 1141
    repl = shell.connect("repl", "replpw", autocommit=True).cursor()
    assert rows(repl, "SHOW GRANTS")[0][0].startswith("GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`")
    assert rows(repl, "SELECT CURRENT_USER(), USER()") == (("repl@%", "repl@127.0.0.1"),)
    assert code(repl, "SET GLOBAL max_connections = 10") == 1227
    assert code(repl, "SHOW MASTER STATUS") == 1227
    assert code(repl, "SHOW SLAVE STATUS") == 1227
    assert code(repl, "CREATE USER x@'%'") == 1227
    assert code(repl, "CREATE DATABASE nope") == 1044  # as MariaDB: a database-level denial
    assert code(repl, "SELECT * FROM mysql.user") == 1142
    assert rows(repl, "SELECT @@server_id, 1") == ((42, 1),)
    assert code(repl, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'") == 1227
    mon = shell.connect("mon", "monpw").cursor()
    assert code(mon, "SET GLOBAL max_connections = 10") == 1227
    with pytest.raises(pymysql.MySQLError) as e:
        shell.connect("repl", "nope")
    assert e.value.args[0] == 1045
    assert code(cur, "ALTER USER 'repl'@'%' IDENTIFIED BY 'replpw', ghost@'%' IDENTIFIED BY 'x'") == 1396
    assert code(repl, "ALTER USER 'repl'@'%' IDENTIFIED BY 'x'") == 1227
    cur.execute("ALTER USER IF EXISTS ghost@'%' IDENTIFIED BY 'x'")  # missing accounts skipped
    cur.execute("DROP USER 'repl'@'%', mon@'127.0.0.1'")
    assert code(cur, "DROP USER 'repl'@'%'") == 1396
    cur.execute("DROP USER IF EXISTS 'repl'@'%', ghost@'%'")
    assert code(cur, "REVOKE SELECT ON *.* FROM ghost@'%'") == 1141
    with pytest.raises(pymysql.MySQLError) as e:
        shell.connect("repl", "replpw")
    assert e.value.args[0] == 1045


def test_users_survive_a_restart(tmp_path):
    with ShellServer(tmp_path) as s:
        s.connect().cursor().execute("CREATE USER keep@'%' IDENTIFIED BY 'k'")
    with ShellServer(tmp_path) as s:
        assert s.connect("keep", "k").cursor().execute("SELECT 1") == 1


def test_processlist_and_kill(shell, cur):
    victim = shell.connect(autocommit=True)
    vid = victim.thread_id()
    victim.cursor().execute("SELECT @@server_id")
    plist = rows(cur, "SHOW FULL PROCESSLIST")
    by_id = {r[0]: r for r in plist}
    me = cur.connection.thread_id()
    assert by_id[me][4] == "Query" and by_id[me][7] == "SHOW FULL PROCESSLIST"
    assert by_id[vid][1] == "root" and by_id[vid][4] == "Sleep" and by_id[vid][7] is None
    assert code(cur, "KILL 999999") == 1094
    cur.execute(f"KILL {vid}")
    with pytest.raises(pymysql.MySQLError) as e:
        victim.cursor().execute("SELECT 1")
    assert e.value.args[0] in (2013, 2006)
    for _ in range(50):
        if vid not in {r[0] for r in rows(cur, "SHOW PROCESSLIST")}:
            break
        time.sleep(0.1)
    assert vid not in {r[0] for r in rows(cur, "SHOW PROCESSLIST")}
    # only the owner (or CONNECTION ADMIN / SUPER) may kill a session
    cur.execute("CREATE USER IF NOT EXISTS plain@'%' IDENTIFIED BY 'p'")
    plain = shell.connect("plain", "p").cursor()
    assert code(plain, f"KILL {cur.connection.thread_id()}") == 1095
    assert code(plain, "KILL QUERY CONNECTION_ID()") == 1317  # oneself: the KILL itself
    plain.execute("SELECT 1")
    assert code(plain, f"KILL {plain.connection.thread_id()}") == 1927  # oneself: answered, then closed
    with pytest.raises(pymysql.MySQLError):
        plain.execute("SELECT 1")
    # COM_PROCESS_KILL (PyMySQL's Connection.kill)
    victim2 = shell.connect()
    cur.connection.kill(victim2.thread_id())
    with pytest.raises(pymysql.MySQLError):
        victim2.cursor().execute("SELECT 1")


def test_plugins(cur):
    names = [r[0] for r in rows(cur, "SHOW PLUGINS")]
    assert "rpl_semi_sync_master" not in names
    assert code(cur, "SELECT @@rpl_semi_sync_master_enabled") == 1193
    assert code(cur, "INSTALL PLUGIN nope SONAME 'nope.so'") == 1126
    assert code(cur, "INSTALL PLUGIN nope SONAME 'semisync_master.so'") == 1127
    assert code(cur, "UNINSTALL PLUGIN rpl_semi_sync_master") == 1305
    cur.execute("INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'")
    assert code(cur, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'") == 1125
    plugins = {r[0]: r for r in rows(cur, "SHOW PLUGINS")}
    assert plugins["rpl_semi_sync_master"][1:4] == ("ACTIVE", "REPLICATION", "semisync_master.so")
    assert rows(cur, "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'") == (("rpl_semi_sync_master_enabled", "OFF"),)
    cur.execute("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    assert rows(cur, "SELECT @@rpl_semi_sync_master_enabled") == ((1,),)
    assert code(cur, "SET GLOBAL rpl_semi_sync_master_timeout = 'abc'") == 1232
    status = dict(rows(cur, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'"))
    assert "Rpl_semi_sync_master_clients" in status and "Rpl_semi_sync_master_yes_tx" in status
    cur.execute("UNINSTALL PLUGIN rpl_semi_sync_master")
    assert code(cur, "SET GLOBAL rpl_semi_sync_master_enabled = ON") == 1193
    assert rows(cur, "SHOW STATUS LIKE 'Rpl_semi_sync_master_%'") == ()


def test_transaction_isolation_is_what_the_engine_does(shell):
    """The variable tells the truth (REPEATABLE-READ by default, InnoDB's) and SET TRANSACTION
    ISOLATION LEVEL changes what a transaction sees: under REPEATABLE READ a second SELECT in
    the same transaction does not see another session's commit; under READ COMMITTED it does."""
    writer = shell.connect(autocommit=True)
    reader = shell.connect(autocommit=False)
    try:
        w, r = writer.cursor(), reader.cursor()
        w.execute("CREATE DATABASE IF NOT EXISTS iso")
        w.execute("CREATE TABLE IF NOT EXISTS iso.t (id INT PRIMARY KEY)")
        w.execute("DELETE FROM iso.t")
        assert rows(r, "SELECT @@transaction_isolation, @@tx_isolation") == (("REPEATABLE-READ", "REPEATABLE-READ"),)
        reader.commit()

        def second_read_sees_new_row(new_id: int) -> bool:
            r.execute("SELECT COUNT(*) FROM iso.t")  # the transaction's first read
            before = r.fetchone()[0]
            w.execute(f"INSERT INTO iso.t VALUES ({new_id})")
            r.execute("SELECT COUNT(*) FROM iso.t")
            after = r.fetchone()[0]
            reader.commit()
            return after == before + 1

        assert not second_read_sees_new_row(1)
        r.execute("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
        assert rows(r, "SELECT @@transaction_isolation") == (("READ-COMMITTED",),)
        assert second_read_sees_new_row(2)
        r.execute("SET SESSION transaction_isolation = DEFAULT")
        assert rows(r, "SELECT @@transaction_isolation, @@tx_isolation") == (("REPEATABLE-READ", "REPEATABLE-READ"),)
        assert not second_read_sees_new_row(3)
        assert code(r, "SET SESSION TRANSACTION ISOLATION LEVEL SOMETIMES") == 1064
        # without a scope: the next transaction only, and not inside one (1568), as mysqld
        r.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
        assert second_read_sees_new_row(4)
        assert not second_read_sees_new_row(5)
        r.execute("SELECT 1")  # autocommit off: a transaction is open
        assert code(r, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ") == 1568
        reader.commit()
    finally:
        writer.close()
        reader.close()


def test_one_isolation_setting_in_two_names(shell):
    """SET GLOBAL tx_isolation (MariaDB 10.11's name) or transaction_isolation changes both, so a
    session begun after it has that level under either name; DEFAULT is REPEATABLE-READ."""
    admin = shell.connect(autocommit=True)
    a = admin.cursor()
    try:
        both = "SELECT @@transaction_isolation, @@tx_isolation, @@global.transaction_isolation, @@global.tx_isolation"
        a.execute("SET GLOBAL tx_isolation = 'READ-COMMITTED'")
        later = shell.connect(autocommit=True)
        assert rows(later.cursor(), both) == (("READ-COMMITTED",) * 4,)
        later.close()
        a.execute("SET GLOBAL transaction_isolation = 'SERIALIZABLE'")
        assert rows(a, "SELECT @@global.tx_isolation") == (("SERIALIZABLE",),)
        a.execute("SET GLOBAL tx_isolation = DEFAULT")
        a.execute("SET SESSION transaction_isolation = DEFAULT")
        assert rows(a, both) == (("REPEATABLE-READ",) * 4,)
    finally:
        a.execute("SET GLOBAL transaction_isolation = DEFAULT")
        admin.close()
