"""information_schema.PLUGINS and information_schema.ENGINES (both 1109 "Unknown table" before),
and SHOW ENGINE name STATUS | MUTEX | LOGS (1064 before: monitoring tools run SHOW ENGINE INNODB
STATUS; here its text is the monitor's frame around a note of what this engine is, MUTEX and LOGS
empty, an engine not listed 1286, PROCESS wanted as MariaDB wants it),
against a live MariaDB 10.11: the built-in plugins' rows
(binlog, mysql_native_password) and the InnoDB engine's as MariaDB lists them. PLUGINS holds
SHOW PLUGINS' rows, so the semi-sync plugins installed here are listed ACTIVE (MariaDB 10.11 has
them built in and lists none): the check the MariaDB knowledge base gives for semi-sync,
`SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME LIKE
'%semi%'`, finds them, and UNINSTALL PLUGIN takes one away. information_schema's own views in COLUMNS and TABLES
and under SHOW [FULL] COLUMNS / DESCRIBE (no rows and 1146 before; their sizes and times in
TABLES, those of MariaDB's temporary table of the moment, are not compared)."""

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


OWN_VIEWS = ("'SCHEMATA','TABLES','COLUMNS','PROCESSLIST','INNODB_TRX','INNODB_LOCKS','INNODB_LOCK_WAITS',"
             "'GLOBAL_VARIABLES','STATISTICS','KEY_COLUMN_USAGE','REFERENTIAL_CONSTRAINTS','TABLE_CONSTRAINTS',"
             "'CHECK_CONSTRAINTS','CHARACTER_SETS','COLLATIONS','ENGINES','PLUGINS','VIEWS','TRIGGERS','ROUTINES',"
             "'EVENTS','PARTITIONS','FILES','SESSION_STATUS'")
OWN_QUERIES = [
    "SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE,"
    " CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION,"
    " CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, PRIVILEGES, COLUMN_COMMENT,"
    " IS_GENERATED, GENERATION_EXPRESSION FROM information_schema.COLUMNS"
    f" WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME IN ({OWN_VIEWS}) ORDER BY TABLE_NAME, ORDINAL_POSITION",
    "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'information_schema'"
    " AND TABLE_NAME = 'SCHEMATA' ORDER BY ORDINAL_POSITION",
    "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, VERSION, ROW_FORMAT, TABLE_ROWS,"
    " TABLE_COLLATION, TABLE_COMMENT, TEMPORARY FROM information_schema.TABLES"
    f" WHERE TABLE_SCHEMA = 'information_schema' AND TABLE_NAME IN ({OWN_VIEWS}) ORDER BY TABLE_NAME",
    "SHOW COLUMNS FROM information_schema.SCHEMATA",
    "SHOW FULL COLUMNS FROM information_schema.PROCESSLIST",
    "SHOW COLUMNS FROM INNODB_TRX FROM information_schema LIKE 'trx_%state%'",
    "DESCRIBE information_schema.INNODB_LOCKS",
    "DESCRIBE information_schema.nosuch",
]


def test_information_schema_describes_its_own_views(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, OWN_QUERIES)
        assert ours == theirs
