"""Admin statement text from a random token soup never trips a bug (ERR 1105 + closed
connection): every statement is answered with a result or a proper MySQL error."""

from __future__ import annotations

import pymysql
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.server_shell import ShellServer

HEADS = ["SHOW", "SET", "SELECT", "USE", "KILL QUERY", "CREATE USER", "DROP USER", "GRANT", "REVOKE",
         "INSTALL PLUGIN", "UNINSTALL PLUGIN", "FLUSH", "SHOW GLOBAL", "SET GLOBAL", "SET SESSION"]
WORDS = ["VARIABLES", "STATUS", "LIKE", "WHERE", "Variable_name", "=", ":=", ",", "(", ")", "*", ".",
         "@@global.server_id", "@@autocommit", "@@nope", "@a", "@`b c`", "'x'", "'%'", "''", "\"q\"",
         "`id`", "1", "-2", "3.5", "0x1F", "NULL", "DEFAULT", "ON", "OFF", "ALL", "PRIVILEGES",
         "REPLICATION", "SLAVE", "CLIENT", "ON *.*", "TO", "FROM", "'u'@'%'", "IDENTIFIED", "BY",
         "PASSWORD", "WITH", "SONAME", "'semisync_master.so'", "rpl_semi_sync_master", "LIMIT",
         "AS", "PROCESSLIST", "FULL", "PLUGINS", "GRANTS", "FOR", "NAMES", "utf8mb4", "COLLATE",
         "TRANSACTION", "ISOLATION", "LEVEL", "QUERY", "CONNECTION", "DATABASE()", "USER()",
         "VERSION()", "CONNECTION_ID()", "PASSWORD('p')", "IF", "EXISTS", "NOT", "--", "/*", "*/",
         ";", "#", "\\", "'unterminated", "IN", "DUAL", "STATUS", "PRIVILEGES", "TABLES"]


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    with ShellServer(tmp_path_factory.mktemp("fuzz")) as shell:
        c = shell.connect(autocommit=True)
        c.cursor().execute("CREATE USER 'u'@'%' IDENTIFIED BY 'p'")
        yield c


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(head=st.sampled_from(HEADS), tail=st.lists(st.sampled_from(WORDS), max_size=8))
def test_no_admin_text_is_a_server_bug(conn, head, tail):
    sql = " ".join([head, *tail])
    cur = conn.cursor()
    try:
        cur.execute(sql)
        cur.fetchall()
    except pymysql.MySQLError as exc:
        assert exc.args[0] not in (1105, 2013, 2006), (sql, exc)
    cur.execute("SELECT 1")  # the connection is alive
    assert cur.fetchone() == (1,)
