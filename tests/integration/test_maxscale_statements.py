"""Every statement MaxScale's MariaDB monitor (mariadbmon, MaxScale 24.02) sends a server, replayed
against MariaDB 10.11 and against ours, in the same role: a master (ours vs a MariaDB primary) and
a slave (ours replicating from our master vs a MariaDB replica of the MariaDB primary).

The list is data: each statement with what the monitor uses it for and the MaxScale source file it
comes from (server/modules/monitor/mariadbmon/ unless a path says otherwise). For every statement
the answers must agree in shape: an OK packet or a result set, the column names, the column type
codes and the row count, or the same error code when MariaDB errors; where the monitor decides on
a value (read_only after SET GLOBAL read_only, the lock functions, ...) the value is compared too.
Statements whose answer belongs to a feature still being built elsewhere are listed in PENDING
with the feature they wait for: they are replayed (so the test shows the difference) but not
asserted.
"""

from __future__ import annotations

import contextlib
import functools
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pymysql
import pytest
from pymysql.constants import CLIENT

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.slave_daemon import wait_until

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed")

MONITOR_USER = "maxmon"  # every statement is replayed as this account, as MaxScale's monitor runs them
ADMIN_ACCESS = 1 << 33  # READ_ONLY_ADMIN_ACL (MariaDB sql/privilege.h): the monitor's super-user mask on 10.11


@dataclass(frozen=True)
class Statement:
    sql: str
    purpose: str
    source: str
    values: bool = False  # the rows' values must equal MariaDB's too
    extended: bool = False  # ours adds columns of its own after all of MariaDB's (same names and types)
    roles: tuple[str, ...] = ("master", "slave")


# The monitor's own statements, in the order of a monitor tick, then those of failover,
# switchover and rejoin. `SET STATEMENT max_statement_time=N FOR` prefixes every statement
# run through MariaDBServer::execute_cmd_time_limit (mariadbserver.cc). Left out: what the
# monitor sends only to servers older than ours claims to be (SELECT * FROM mysql.user WHERE
# Super_priv = 'Y' before 10.5.2), only when configured to (demotion/promotion SQL files, custom
# CHANGE MASTER options), and
# ALTER DEFINER ... EVENT, sent per scheduled event found (none here: EVENTS is empty).
STATEMENTS: tuple[Statement, ...] = (
    # -- connecting and every monitor tick --------------------------------------------------------
    Statement("SET SQL_MODE=''", "init command of the monitor's connections (clear_sql_mode)",
              "maxutils/maxsql/src/mariadb_connector.cc"),
    Statement("SHOW GLOBAL VARIABLES WHERE VARIABLE_NAME IN ('character_set_client',"
              "'character_set_connection','character_set_results','max_allowed_packet','system_time_zone',"
              "'time_zone','tx_isolation')",
              "tracked variables (connection_metadata=auto; transaction_isolation only from version 11)",
              "server/core/monitorserver.cc, server/core/listener.cc"),
    Statement("SHOW STATUS LIKE 'Uptime'", "server uptime", "server/core/monitorserver.cc"),
    Statement("SELECT Disk, Path, Total, Used, Available FROM information_schema.disks",
              "disk space (disk_space_threshold set; without the DISKS plugin: 1109, checks disabled)",
              "server/modules/protocol/MariaDB/diskspace.cc"),
    Statement("SELECT @@global.server_id, @@read_only, @@global.gtid_domain_id",
              "server id, read_only, domain (read_server_variables)", "mariadbserver.cc"),
    Statement("SELECT @@global.server_id, @@read_only", "the same without GTIDs (pre-10.4 servers)",
              "mariadbserver.cc"),
    Statement("SHOW SLAVE STATUS", "permission test query, replication of old servers (ours keeps MySQL "
              "5.7's columns after MariaDB's, ../shared/INTERFACE.md)", "mariadbserver.cc", extended=True),
    Statement("SHOW ALL SLAVES STATUS", "replica connections (update_slave_status)", "mariadbserver.cc"),
    Statement("SELECT @@gtid_current_pos, @@gtid_binlog_pos", "GTID positions (update_gtids)",
              "mariadbserver.cc"),
    Statement("SELECT @@gtid_strict_mode, @@log_bin, @@log_slave_updates",
              "replication settings of a promotion candidate", "mariadbserver.cc"),
    Statement("SELECT c.VARIABLE_VALUE, s.VARIABLE_VALUE FROM INFORMATION_SCHEMA.GLOBAL_VARIABLES c "
              "JOIN INFORMATION_SCHEMA.GLOBAL_STATUS s ON(c.VARIABLE_NAME = 'rpl_semi_sync_master_enabled' "
              "AND s.VARIABLE_NAME = 'rpl_semi_sync_master_status')",
              "semi-sync enabled and working on the primary", "mariadbserver.cc"),
    Statement("SELECT Event_schema, Event_name FROM information_schema.EVENTS WHERE Status = 'ENABLED'",
              "enabled scheduled events (handle_events)", "mariadbserver.cc", values=True),
    Statement("SHOW GRANTS", "coarse grant check when automatic operations are configured",
              "mariadbserver.cc"),
    Statement("SHOW SLAVE HOSTS", "the replicas registered with a primary (MaxScale 2.2's MySQL monitor; "
              "ours adds each one's acked position)", "server/modules/monitor/mysqlmon/mysql_mon.cc at maxscale-2.2.0",
              extended=True),
    Statement("SET @@session.wait_timeout=30", "session timeout of the monitor's connection",
              "mariadbserver.cc"),
    Statement("SELECT IS_USED_LOCK('maxscale_mariadbmonitor'), IS_USED_LOCK('maxscale_mariadbmonitor_master')",
              "cooperative monitoring: who holds the locks", "mariadbserver.cc", values=True),
    Statement("SET @@session.wait_timeout=30; SELECT GET_LOCK('maxscale_mariadbmonitor', 0);",
              "cooperative monitoring: take the server lock (one query, two statements)", "mariadbserver.cc",
              values=True),
    Statement("SELECT GET_LOCK('maxscale_mariadbmonitor', 0)", "(check) taking it again, as its holder",
              "test", values=True),
    Statement("SELECT RELEASE_LOCK('maxscale_mariadbmonitor')", "cooperative monitoring: release it",
              "mariadbserver.cc", values=True),
    Statement("SELECT RELEASE_LOCK('maxscale_mariadbmonitor_master')", "a lock this connection does not hold",
              "mariadbserver.cc", values=True),
    # -- switchover: demotion of the old primary --------------------------------------------------
    Statement("SET STATEMENT sql_log_bin=0 FOR SELECT @@sql_log_bin", "(check) SET STATEMENT's value holds "
              "for its statement", "test", values=True),
    Statement("SELECT @@sql_log_bin", "(check) and is the session's again after it", "test", values=True),
    Statement("SET STATEMENT wait_timeout=5 FOR SELECT 1", "(check) a variable SET STATEMENT refuses: 1971",
              "test"),
    Statement("SET STATEMENT read_only=1 FOR SELECT 1", "(check) a global-only variable: 1229", "test"),
    Statement("SET STATEMENT sql_mode='TRADITIONAL' FOR SELECT @@sql_mode", "(check) a value of its own form",
              "test", roles=("master",), values=True),
    Statement("SET STATEMENT sql_mode='' FOR SET SESSION sql_mode='TRADITIONAL'", "(check) a SET inside it is undone",
              "test", roles=("master",)),
    Statement("SELECT @@sql_mode", "(check) ... after it", "test", roles=("master",), values=True),
    Statement("SET STATEMENT max_statement_time=1 FOR", "(check) no statement: 1064", "test", roles=("master",)),
    Statement("SET STATEMENT FOR SELECT 1", "(check) no variable: 1064", "test", roles=("master",)),
    Statement("SET STATEMENT @a=1 FOR SELECT 1", "(check) a user variable: 1064", "test", roles=("master",)),
    Statement("SET STATEMENT no_such_variable=1 FOR SELECT 1", "(check) 1193", "test", roles=("master",)),
    Statement("SET STATEMENT max_statement_time='x' FOR SELECT 1", "(check) 1232", "test", roles=("master",)),
    Statement("SET STATEMENT max_statement_time=1 FOR SELECT SLEEP(3)", "(check) a statement past its limit: "
              "1969, the error execute_cmd_time_limit retries on", "mariadbserver.cc"),
    Statement("STOP SLAVE 'other'", "(check) a connection name the server lacks: 1617", "test"),
    Statement("SET STATEMENT max_statement_time=10 FOR SET GLOBAL read_only=1;", "demotion: read-only",
              "mariadbserver.cc"),
    Statement("SELECT @@read_only", "(check) read_only after the SET", "test", values=True),
    Statement("SET STATEMENT max_statement_time=10 FOR FLUSH TABLES WITH READ LOCK;",
              "demotion: stop commits while super users are kicked out", "mariadbserver.cc"),
    Statement("SELECT DISTINCT P.id,P.user FROM (SELECT * FROM information_schema.PROCESSLIST WHERE "
              f"USER != '{MONITOR_USER}' AND USER != 'system user' AND COMMAND != 'Binlog Dump') AS P INNER JOIN "
              "(SELECT * FROM (SELECT user, JSON_VALUE(priv,'$.access') AS access FROM mysql.global_priv) "
              f"AS A where A.access & {ADMIN_ACCESS} > 0) AS U ON (U.user = P.user);",
              "demotion: connections of read-only admins (10.11)", "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR KILL SOFT CONNECTION 999999;",
              "demotion: kick a super user out (one that left meanwhile: 1094)", "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR UNLOCK TABLES;", "demotion: unlock", "mariadbserver.cc"),
    Statement("SET @@session.sql_log_bin=0;", "events altered without binlogging them", "mariadbserver.cc"),
    Statement("SELECT * FROM information_schema.EVENTS;", "events to disable on the demoted server",
              "mariadbserver.cc", values=True),
    Statement("SET NAMES latin1 COLLATE latin1_swedish_ci;", "charset reset after altering events",
              "mariadbserver.cc"),
    Statement("SELECT * FROM information_schema.PROCESSLIST WHERE User = 'event_scheduler' AND Command = 'Daemon';",
              "is the event scheduler running", "mariadbserver.cc", values=True),
    Statement("SET @@session.sql_log_bin=1;", "binlogging back on", "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR FLUSH LOGS;",
              "demotion: every event in the binlog before the GTID check", "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR SET GLOBAL read_only=0;", "promotion: writable",
              "mariadbserver.cc"),
    Statement("SELECT @@read_only", "(check) read_only after the SET", "test", values=True),
    # -- promotion, redirection, rejoin -----------------------------------------------------------
    Statement("SET STATEMENT max_statement_time=10 FOR STOP SLAVE '';",
              "promotion: stop the default replica connection", "mariadbserver.cc", roles=("slave",)),
    Statement("SET STATEMENT max_statement_time=10 FOR START SLAVE '';",
              "redirection/rejoin: start the connection again", "mariadbserver.cc", roles=("slave",)),
    Statement("SET STATEMENT max_statement_time=10 FOR STOP SLAVE '';",
              "promotion: stop it before the reset", "mariadbserver.cc", roles=("slave",)),
    Statement("SET STATEMENT max_statement_time=10 FOR RESET SLAVE '';",
              "redirection: reset the stopped connection", "mariadbserver.cc", roles=("slave",)),
    Statement("SET STATEMENT max_statement_time=10 FOR CHANGE MASTER '' TO MASTER_HOST = '127.0.0.1', "
              "MASTER_PORT = {primary_port}, MASTER_USE_GTID = current_pos, MASTER_USER = 'repl', "
              "MASTER_PASSWORD = 'replpw';", "redirection/rejoin: replicate by GTID from the primary",
              "mariadbserver.cc", roles=("slave",)),
    Statement("SET GLOBAL gtid_slave_pos='{gtid_slave_pos}';", "reset-replication: where replication starts",
              "cluster_manipulation.cc", roles=("slave",)),
    Statement("SET STATEMENT max_statement_time=10 FOR START SLAVE '';", "redirection/rejoin: start it",
              "mariadbserver.cc", roles=("slave",)),
    Statement("STOP SLAVE '';", "reset_all_slave_conns, without a time limit", "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR RESET SLAVE '' ALL;",
              "promotion: forget the old primary", "mariadbserver.cc"),
    Statement("SHOW ALL SLAVES STATUS", "(check) no replica connection after RESET SLAVE ALL",
              "mariadbserver.cc"),
    Statement("SET STATEMENT max_statement_time=10 FOR FLUSH TABLES;", "reset-replication: new primary",
              "cluster_manipulation.cc"),
    Statement("select @@datadir;", "rebuild-server: where the data directory is", "monitor_commands.cc"),
    # -- reset-replication (cluster_manipulation.cc): every server, then the new primary ---------
    Statement("SET GLOBAL read_only=1;", "reset-replication: every server read-only", "cluster_manipulation.cc"),
    Statement("RESET MASTER;", "reset-replication: binary logs deleted", "cluster_manipulation.cc"),
    Statement("SELECT @@gtid_current_pos, @@gtid_binlog_pos", "(check) no GTIDs after RESET MASTER", "test",
              roles=("master",), values=True),
    Statement("SET GLOBAL read_only=0;", "reset-replication: the new primary writable", "cluster_manipulation.cc"),
    Statement("FLUSH TABLES;", "reset-replication: the new primary's tables flushed", "cluster_manipulation.cc"),
)

# Statements whose answer belongs to another part's feature and still differs from MariaDB's in
# its column types or extra columns after MariaDB's: MariaDB's column names (as the first of ours)
# and the row count are asserted, the rest reported as pending.
PENDING: dict[str, str] = {}


@dataclass
class Answer:
    kind: str  # "ok" | "rows" | "error"
    columns: tuple[tuple[str, int], ...] = ()
    rows: tuple[tuple[Any, ...], ...] = ()
    error: int = 0
    message: str = ""

    def shape(self) -> tuple:
        if self.kind == "error":
            return ("error", self.error)
        return (self.kind, self.columns, len(self.rows))

    def leads(self, other: Answer, types: bool = False) -> bool:
        """The same kind and row count, and these column names (and types) first in `other`'s."""
        mine = list(self.columns) if types else [name for name, _ in self.columns]
        theirs = list(other.columns) if types else [name for name, _ in other.columns]
        return (self.kind, self.error, len(self.rows)) == (other.kind, other.error, len(other.rows)) and \
            mine == theirs[:len(mine)]


def ask(conn: pymysql.connections.Connection, sql: str) -> Answer:
    """The answer to `sql`; for several statements (the monitor's connections allow them), the
    last one's, or the first error."""
    with conn.cursor() as cur:
        try:
            cur.execute(sql)
            while cur.nextset():
                pass  # pymysql keeps the last result set's description and rows
        except pymysql.MySQLError as exc:
            code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else -1
            return Answer("error", error=code, message=str(exc.args[1:] if len(exc.args) > 1 else exc))
        if cur.description is None:
            return Answer("ok")
        columns = tuple((d[0], d[1]) for d in cur.description)
        return Answer("rows", columns=columns, rows=tuple(tuple(r) for r in cur.fetchall()))


@contextlib.contextmanager
def cluster(tmp_path) -> Iterator[dict[str, tuple[Any, Any, int | None, int | None]]]:
    """{role: (MariaDB server, our server, the MariaDB one's primary's port, ours')}: a MariaDB
    primary and its replica, our master and our slave, each replica connected to its primary by
    GTID."""
    ours_master = Daemon("master", tmp_path / "master", ["--server-id=1"])
    ours_slave: Daemon | None = None
    primary = MariaDBServer(tmp_path / "mdb1", server_id=11)
    replica = MariaDBServer(tmp_path / "mdb2", server_id=12)
    try:
        ours_master.start()
        primary.start()
        replica.start()
        for server in (ours_master, primary):
            server.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
            server.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={primary.port}, MASTER_USER='repl', "
            "MASTER_PASSWORD='replpw', MASTER_CONNECT_RETRY=1",
            "SET GLOBAL read_only=1",
            "START SLAVE",
        ])
        ours_slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=2", "--master-host=127.0.0.1", f"--master-port={ours_master.port}",
            "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
        ]).start()
        for primary_side in (primary, ours_master):
            # made on the primary only (a write of the replica's own would be a GTID its primary
            # lacks, which strict mode refuses)
            primary_side.query(f"CREATE USER '{MONITOR_USER}'@'%' IDENTIFIED BY 'monpw'")
            primary_side.query(f"GRANT ALL PRIVILEGES ON *.* TO '{MONITOR_USER}'@'%' WITH GRANT OPTION")
            primary_side.query("CREATE DATABASE IF NOT EXISTS app")
            primary_side.query("CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)")
            primary_side.query("INSERT INTO app.t VALUES (1), (2)")
        def has_rows(server: Any) -> bool:
            return bool(server.query("SHOW DATABASES LIKE 'app'")) and server.query("SELECT COUNT(*) FROM app.t") == [(2,)]

        for server in (replica, ours_slave):  # the users and rows made above, replicated
            wait_until(functools.partial(has_rows, server), timeout=60, what="the replica has the primary's rows")
        yield {"master": (primary, ours_master, None, None),
               "slave": (replica, ours_slave, primary.port, ours_master.port)}
    finally:
        for daemon in (ours_slave, ours_master):
            if daemon is not None:
                daemon.stop()
        replica.stop()
        primary.stop()


def _sql(template: str, conn: pymysql.connections.Connection, primary_port: int | None) -> str:
    """A statement for one server: its primary's port and its current @@gtid_slave_pos filled in."""
    if "{gtid_slave_pos}" in template:
        with conn.cursor() as cur:
            cur.execute("SELECT @@gtid_slave_pos")
            (pos,), = cur.fetchall()
        template = template.replace("{gtid_slave_pos}", pos)
    return template.replace("{primary_port}", str(primary_port))


def replay(mariadb: Any, ours: Any, role: str, their_primary: int | None, our_primary: int | None) -> list[str]:
    """Each statement for `role` on one connection to each server; the differences found."""
    differences: list[str] = []
    # the monitor's connections allow several statements in one query (monitorserver.cc)
    theirs_conn = mariadb.connect(user=MONITOR_USER, password="monpw", client_flag=CLIENT.MULTI_STATEMENTS)
    ours_conn = ours.connect(user=MONITOR_USER, password="monpw", client_flag=CLIENT.MULTI_STATEMENTS)
    # a super user logged in, as the demotion's query looks for (root: ALL on both)
    admins = [mariadb.connect(), ours.connect()]
    try:
        for n, stmt in enumerate(s for s in STATEMENTS if role in s.roles):
            theirs = ask(theirs_conn, _sql(stmt.sql, theirs_conn, their_primary))
            mine = ask(ours_conn, _sql(stmt.sql, ours_conn, our_primary))
            pending = PENDING.get(stmt.sql)
            problem = ""
            if pending is not None:
                differs = not theirs.leads(mine)
            elif stmt.extended:
                differs = not theirs.leads(mine, types=True)
            else:
                differs = theirs.shape() != mine.shape()
            if differs:
                problem = f"MariaDB {theirs.shape()} {theirs.message}\n    ours {mine.shape()} {mine.message}"
            elif stmt.values and theirs.rows != mine.rows:
                problem = f"MariaDB rows {theirs.rows}\n    ours rows {mine.rows}"
            if problem:
                differences.append(f"[{role} #{n}] DIFFERS: {stmt.sql}\n    {problem}")
            elif pending is not None and theirs.shape() != mine.shape():
                differences.append(f"[{role} #{n}] PENDING on {pending}: {stmt.sql}\n    "
                                   f"MariaDB {theirs.columns}\n    ours {mine.columns}")
    finally:
        for conn in (theirs_conn, ours_conn, *admins):
            conn.close()
    return differences


def test_every_maxscale_monitor_statement_is_answered_as_mariadb(tmp_path):
    with cluster(tmp_path) as servers:
        differences = [d for role, (mariadb, ours, theirs_up, ours_up) in servers.items()
                       for d in replay(mariadb, ours, role, theirs_up, ours_up)]
    print("\n".join(differences))
    assert not [d for d in differences if "] DIFFERS" in d], "\n".join(differences)


def test_what_the_monitor_decides_on_is_true_on_our_server(tmp_path):
    """The values behind the answers: semi-sync as SHOW VARIABLES / STATUS say, the super users'
    connections found and killed, mysql.global_priv refused without SELECT on it, and SET
    STATEMENT's value gone after its statement even when that statement fails."""
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        master.query(f"CREATE USER '{MONITOR_USER}'@'%' IDENTIFIED BY 'monpw'")
        master.query(f"GRANT ALL PRIVILEGES ON *.* TO '{MONITOR_USER}'@'%' WITH GRANT OPTION")
        master.query("CREATE USER 'plain'@'%' IDENTIFIED BY 'pw'")
        monitor = master.connect(user=MONITOR_USER, password="monpw")
        admin = master.connect()
        # MaxScale's features come from the greeting's version (mariadbserver.cc): 10.11 and up
        # for GTIDs, SHOW ALL SLAVES STATUS, max_statement_time, read-only admin and
        # mysql.global_priv, the number as Connector/C reads it (the "5.5.5-" prefix dropped);
        # and only for a server of type MARIADB, which server.cc's VersionInfo::set decides from
        # the text: "clustrix", then "binlogrouter", then "mariadb" in any case, else MYSQL.
        version = monitor.get_server_info()
        major, minor = (int(n) for n in version.removeprefix("5.5.5-").split(".")[:2])
        assert (major, minor) >= (10, 11), version
        lowered = version.lower()
        server_type = ("CLUSTRIX" if "clustrix" in lowered else "BLR" if "binlogrouter" in lowered
                       else "MARIADB" if "mariadb" in lowered else "MYSQL")
        assert server_type == "MARIADB", version
        # Connector/C's own check (mariadb_connection(), behind the CLI's "Server:" line)
        if shutil.which("mariadb"):
            status = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{master.port}", "-uroot", "-e", "status"],
                                    capture_output=True, text=True, timeout=60, check=True).stdout
            assert re.search(r"^Server:\s+MariaDB$", status, re.M), status
        with monitor.cursor() as cur, admin.cursor() as admin_cur:
            semisync = next(s for s in STATEMENTS if "rpl_semi_sync_master_enabled" in s.sql).sql
            cur.execute(semisync)
            enabled = master.query("SHOW GLOBAL VARIABLES LIKE 'rpl_semi_sync_master_enabled'")[0][1]
            status = master.query("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_status'")[0][1]
            assert cur.fetchall() == ((enabled, status),)

            admin_cur.execute("SELECT CONNECTION_ID()")
            (admin_id,), = admin_cur.fetchall()
            supers = next(s for s in STATEMENTS if "mysql.global_priv" in s.sql).sql
            cur.execute(supers)
            assert cur.fetchall() == ((admin_id, "root"),)
            cur.execute(f"SET STATEMENT max_statement_time=10 FOR KILL SOFT CONNECTION {admin_id}")
            wait_until(lambda: not master.query(f"SELECT ID FROM information_schema.PROCESSLIST WHERE ID = {admin_id}"),
                       timeout=30, what="the super user's connection killed")

            with pytest.raises(pymysql.MySQLError) as failed:
                cur.execute("SET STATEMENT sql_log_bin=0 FOR SELECT * FROM no_such_db.t")
            assert failed.value.args[0] == 1146
            cur.execute("SELECT @@sql_log_bin")
            assert cur.fetchall() == ((1,),)
        monitor.close()

        plain = master.connect(user="plain", password="pw")
        with plain.cursor() as cur, pytest.raises(pymysql.MySQLError) as denied:
            cur.execute("SELECT * FROM mysql.global_priv")
        assert denied.value.args[0] == 1142
        plain.close()
    finally:
        master.stop()
