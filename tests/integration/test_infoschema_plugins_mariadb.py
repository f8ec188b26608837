"""information_schema.PLUGINS and information_schema.ENGINES (both 1109 "Unknown table" before),
and SHOW ENGINE name STATUS | MUTEX | LOGS (1064 before: monitoring tools run SHOW ENGINE INNODB
STATUS; here its text is the monitor's frame around a note of what this engine is, MUTEX and LOGS
empty, an engine not listed 1286, PROCESS wanted as MariaDB wants it),
against a live MariaDB 10.11: the built-in plugins' rows
(binlog, mysql_native_password) and the InnoDB engine's as MariaDB lists them. PLUGINS holds
SHOW PLUGINS' rows, so the semi-sync plugins installed here are listed ACTIVE (MariaDB 10.11 has
them built in and lists none): the check the MariaDB knowledge base gives for semi-sync,
`SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME LIKE
'%semi%'`, finds them, and UNINSTALL PLUGIN takes one away. Left out: information_schema.COLUMNS
does not list information_schema's own views' columns here."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = ["CREATE DATABASE d"]

QUERIES = [
    "SELECT PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_STATUS, PLUGIN_TYPE, PLUGIN_TYPE_VERSION, PLUGIN_LIBRARY,"
    " PLUGIN_AUTHOR, PLUGIN_DESCRIPTION, PLUGIN_LICENSE, LOAD_OPTION, PLUGIN_MATURITY"
    " FROM information_schema.PLUGINS WHERE PLUGIN_NAME IN ('binlog', 'mysql_native_password') ORDER BY 1",
    "SELECT ENGINE, SUPPORT, TRANSACTIONS, SAVEPOINTS FROM information_schema.ENGINES WHERE ENGINE = 'InnoDB'",
    "SELECT COUNT(*) > 0 FROM information_schema.PLUGINS WHERE PLUGIN_TYPE = 'STORAGE ENGINE' AND PLUGIN_STATUS = 'ACTIVE'",
    "SHOW ENGINE INNODB MUTEX",
    "SHOW ENGINE innodb LOGS",
    "SHOW ENGINE nosuch STATUS",
    "CREATE USER 'mon'@'%' IDENTIFIED BY 'pw'",
]


def test_plugins_and_engines_as_mariadb_lists_them(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ours == theirs
        semisync = "SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME LIKE '%semi%' ORDER BY 1"
        assert master.query(semisync) == [("rpl_semi_sync_master", "ACTIVE"), ("rpl_semi_sync_slave", "ACTIVE")]
        master.query("UNINSTALL PLUGIN rpl_semi_sync_slave")
        assert master.query(semisync) == [("rpl_semi_sync_master", "ACTIVE")]


def test_show_engine_innodb_status_as_mariadb_frames_it(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            (row,) = server.query("SHOW ENGINE INNODB STATUS")
            assert row[:2] == ("InnoDB", "") and "INNODB MONITOR OUTPUT" in row[2]
            assert "END OF INNODB MONITOR OUTPUT" in row[2]
            server.query("CREATE USER 'mon'@'127.0.0.1' IDENTIFIED BY 'pw'")
            with pytest.raises(pymysql.err.OperationalError) as denied:
                pymysql.connect(host="127.0.0.1", port=server.port, user="mon", password="pw").cursor().execute(
                    "SHOW ENGINE INNODB STATUS")
            assert denied.value.args[0] == 1227
