"""What GUI and web database tools send when they connect and browse, against a stock MariaDB
10.11 and our master: each tool's statements (taken from its sources: Adminer's
adminer/drivers/mysql.inc.php, phpMyAdmin's privilege checks and navigation, HeidiSQL's
dbconnection.pas, DBeaver's MySQL plugin, Metabase's and Grafana's MySQL drivers, MySQL
Workbench's and DataGrip's introspection) run on both over one schema (two tables, an index, a
foreign key, a view, accounts with grants), and every answer compared in full: each result
column's name, type code, length, decimals, flags and character set over the text protocol and
prepared (`defined_answers`), with the rows; or the error. Statements whose values are the
server's own (its version, the login's account host, binlog names, sizes and times, the character
sets and engines it has) compare their columns only.

It found: the result columns of information_schema's views and of the SHOW listings MariaDB
builds on them (SHOW [FULL] COLUMNS, INDEX, TABLE STATUS, [FULL] TABLES, VARIABLES, STATUS,
PLUGINS ...) without NO_DEFAULT_VALUE and with LONGTEXT's length where MariaDB's are MEDIUMTEXT-
sized; a NOT NULL table column without a default without NO_DEFAULT_VALUE; HEX() of a string
and of a number, LAST_INSERT_ID(), CONNECTION_ID(), UNIX_TIMESTAMP(), SHOW PRIVILEGES described
with other lengths or flags; information_schema.PARTITIONS empty (MariaDB: a row for each table,
its PARTITION_NAME NULL); information_schema's columns named as declared (TABLE_NAME) where a
tool names them in lower case (`SELECT table_name FROM information_schema.tables`: MariaDB names
the column as written); USER_PRIVILEGES, SCHEMA_PRIVILEGES, TABLE_PRIVILEGES, COLUMN_PRIVILEGES, PARAMETERS and
COLLATION_CHARACTER_SET_APPLICABILITY unknown (1109); EXPLAIN PARTITIONS read as DESCRIBE of a
table `PARTITIONS` (1146; EXPLAIN EXTENDED likewise: now 1235, its note being MariaDB's rewrite of
the statement); SHOW CREATE TABLE of a view 1146 (MariaDB answers SHOW CREATE VIEW's result);
EXPLAIN's columns, SHOW [FULL] PROCESSLIST's, SHOW GRANTS', SHOW MASTER STATUS', SHOW BINARY LOGS',
SHOW CREATE TABLE / VIEW / DATABASE's and SELECT DATABASE() / USER() / CURRENT_USER / VERSION()'s
described with other lengths, flags, decimals or character set than MariaDB's.

Left out, where the two still differ (MariaDB's answer first): DESCRIBE / SHOW [FULL] COLUMNS of a
view (here 1235, it was 1146) and its rows in information_schema.COLUMNS (here none); a
comparison's NOT NULL flag (`column_key = 'PRI'`: compared TYPED); COM_STMT_PREPARE of a SHOW
listing (MariaDB describes no column, here every one: COLUMNS compares the text answer's and the
execution's); mysql.user's column definitions (its Password a LONGBLOB of 39 decimals, its
privilege columns' decimals 39, here 0); SHOW CREATE VIEW's text (MariaDB prints its own rewrite
of the SELECT, here the SELECT as written); EXPLAIN EXTENDED and EXPLAIN
FORMAT=JSON (1235 here); triggers, stored routines and events (CREATE is 1235 here: their
listings are empty on both); information_schema.KEYWORDS and SQL_FUNCTIONS (1109 here). The
`mysql` grant tables below the global level are compared in test_grant_tables_mariadb.py."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import defined_answers, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARACTER SET utf8mb4",
    "CREATE TABLE d.p (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL COMMENT 'the name',"
    " made DATETIME DEFAULT '2020-01-02 03:04:05', UNIQUE KEY uname (name))"
    " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='parents'",
    "CREATE TABLE d.c (id INT PRIMARY KEY, pid INT, qty DECIMAL(8,2) DEFAULT 0.00, note TEXT, KEY ipid (pid),"
    " CONSTRAINT fk_p FOREIGN KEY (pid) REFERENCES d.p (id) ON DELETE CASCADE) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.p (name) VALUES ('a'), ('b'), ('c')",
    "INSERT INTO d.c VALUES (1, 1, 1.5, 'x'), (2, 2, 2, NULL)",
    "CREATE VIEW d.v AS SELECT id, name FROM d.p",
    "CREATE USER 'u1'@'%' IDENTIFIED BY 'pw'",
    "GRANT SELECT, INSERT, CREATE VIEW ON d.* TO 'u1'@'%' WITH GRANT OPTION",
    "GRANT UPDATE, SELECT ON d.p TO 'u1'@'%'",
    "GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'u1'@'%'",
    "CREATE USER 'u2'@'localhost'",
    "GRANT ALL ON *.* TO 'u2'@'localhost' WITH GRANT OPTION",
    "CREATE USER 'u3'@'%'",
]

FULL, TYPED, COLUMNS, TYPED_COLUMNS = "full", "typed", "columns", "typed columns"

# Per tool, (statement, what is compared): FULL the whole answer; TYPED the rows and each column's
# name, type code and decimals (its length and flags are left out: `__doc__`); COLUMNS the column
# definitions alone (the values are the server's own), TYPED_COLUMNS their names, type codes and
# decimals alone.
TOOLS = {
    "adminer": [
        ("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'd'", FULL),
        ("SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN ('information_schema', 'd')"
         " ORDER BY SCHEMA_NAME", COLUMNS),
        ("SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA"
         " WHERE SCHEMA_NAME IN ('information_schema', 'd') ORDER BY SCHEMA_NAME", FULL),
        ("SELECT USER()", FULL),
        ("SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()"
         " ORDER BY TABLE_NAME", FULL),
        ("SHOW TABLES IN `d`", FULL),
        ("SELECT TABLE_NAME AS Name, Engine, TABLE_COMMENT AS Comment FROM information_schema.TABLES"
         " WHERE TABLE_SCHEMA = DATABASE() ORDER BY Name", FULL),
        ("SHOW TABLE STATUS LIKE 'p'", COLUMNS),
        ("SHOW FULL COLUMNS FROM `p`", FULL),
        ("SHOW FULL COLUMNS FROM `c`", FULL),
        ("SHOW INDEX FROM `c`", FULL),
        ("SHOW CREATE TABLE `c`", FULL),
        ("SHOW CREATE TABLE `v`", COLUMNS),
        ("SHOW CREATE VIEW `v`", COLUMNS),
        ("SHOW TRIGGERS LIKE 'c'", FULL),
        ("SELECT ROUTINE_NAME, ROUTINE_TYPE, DTD_IDENTIFIER FROM information_schema.ROUTINES"
         " WHERE ROUTINE_SCHEMA = 'd'", FULL),
        ("SELECT LAST_INSERT_ID()", FULL),
        ("EXPLAIN PARTITIONS SELECT * FROM `p`", FULL),
        ("EXPLAIN PARTITIONS SELECT * FROM `p` WHERE `id` = 2", FULL),
        ("SELECT SQL_CALC_FOUND_ROWS `id`, `name` FROM `p` LIMIT 2", FULL),
        ("SELECT FOUND_ROWS()", FULL),
        ("SELECT HEX(`name`) FROM `p` WHERE `id` = 1 LIMIT 1", FULL),
        ("SHOW FULL PROCESSLIST", COLUMNS),
        ("SHOW CREATE DATABASE `d`", FULL),
    ],
    "phpmyadmin": [
        ("SELECT CURRENT_USER()", COLUMNS),
        ("SHOW GRANTS FOR 'u3'@'%'", FULL),
        ("SELECT 1 FROM (SELECT `GRANTEE`, `IS_GRANTABLE` FROM `INFORMATION_SCHEMA`.`COLUMN_PRIVILEGES`"
         " UNION SELECT `GRANTEE`, `IS_GRANTABLE` FROM `INFORMATION_SCHEMA`.`TABLE_PRIVILEGES`"
         " UNION SELECT `GRANTEE`, `IS_GRANTABLE` FROM `INFORMATION_SCHEMA`.`SCHEMA_PRIVILEGES`"
         " UNION SELECT `GRANTEE`, `IS_GRANTABLE` FROM `INFORMATION_SCHEMA`.`USER_PRIVILEGES`) t"
         " WHERE `IS_GRANTABLE` = 'YES' AND '''u1''@''%''' LIKE `GRANTEE` LIMIT 1", FULL),
        ("SELECT `PRIVILEGE_TYPE` FROM `INFORMATION_SCHEMA`.`USER_PRIVILEGES`"
         " WHERE GRANTEE = '''u2''@''localhost''' AND PRIVILEGE_TYPE = 'CREATE USER'", FULL),
        ("SELECT `SCHEMA_NAME` FROM `INFORMATION_SCHEMA`.`SCHEMATA`, (SELECT DB_first_level"
         " FROM (SELECT DISTINCT SUBSTRING_INDEX(SCHEMA_NAME, '_', 1) DB_first_level"
         " FROM INFORMATION_SCHEMA.SCHEMATA WHERE TRUE) t ORDER BY DB_first_level ASC LIMIT 0, 100) t2"
         " WHERE TRUE AND 1 = LOCATE(CONCAT(DB_first_level, '_'), CONCAT(SCHEMA_NAME, '_'))"
         " AND SCHEMA_NAME = 'd' ORDER BY SCHEMA_NAME ASC", FULL),
        ("SELECT `TABLE_NAME` AS `Name`, `TABLE_TYPE` AS `TABLE_TYPE` FROM `INFORMATION_SCHEMA`.`TABLES`"
         " WHERE `TABLE_SCHEMA` = 'd' ORDER BY `TABLE_NAME`", FULL),
        ("SELECT @@lower_case_table_names", FULL),
        ("SHOW MASTER STATUS", COLUMNS),
        ("SHOW BINARY LOGS", COLUMNS),
        ("SELECT `id`, `name`, `made` FROM `d`.`p` WHERE 1 ORDER BY `id` ASC LIMIT 0, 25", FULL),
        ("SELECT COUNT(*) FROM `d`.`p`", FULL),
        ("SHOW INDEXES FROM `d`.`p`", FULL),
        ("SELECT * FROM `information_schema`.`PARTITIONS` WHERE `TABLE_SCHEMA` = 'd' AND `TABLE_NAME` = 'p'"
         " AND `PARTITION_NAME` IS NOT NULL", FULL),
    ],
    "heidisql": [
        ("SELECT CONNECTION_ID()", COLUMNS),
        ("SHOW VARIABLES LIKE 'lower_case_%'", FULL),
        ("SHOW SESSION VARIABLES WHERE Variable_name = 'autocommit'", FULL),
        ("SHOW GLOBAL STATUS LIKE 'Uptime'", COLUMNS),
        ("SHOW /*!50002 FULL*/ TABLES FROM `d`", FULL),
        ("SHOW TABLE STATUS FROM `d`", COLUMNS),
        ("SELECT *, EVENT_SCHEMA AS `Db`, EVENT_NAME AS `Name` FROM information_schema.`EVENTS`"
         " WHERE `EVENT_SCHEMA` = 'd'", FULL),
        ("SHOW FUNCTION STATUS WHERE `Db` = 'd'", FULL),
        ("SHOW PROCEDURE STATUS WHERE `Db` = 'd'", FULL),
        ("SHOW TRIGGERS FROM `d`", FULL),
        ("SELECT * FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'p'"
         " ORDER BY ORDINAL_POSITION", FULL),
        ("SHOW INDEXES FROM `p` FROM `d`", FULL),
        ("SELECT * FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE TABLE_NAME = 'c'"
         " AND CONSTRAINT_SCHEMA = 'd'", FULL),
        ("SELECT * FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c'"
         " AND REFERENCED_TABLE_NAME IS NOT NULL", FULL),
        ("SELECT * FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd' AND TABLE_NAME = 'p'",
         FULL),
        ("SHOW CREATE TABLE `d`.`v`", COLUMNS),
        ("SHOW CREATE TABLE `d`.`p`", FULL),
        ("SHOW PROCESSLIST", COLUMNS),
        ("SELECT `p`.* FROM `d`.`p` LIMIT 1000", FULL),
    ],
    "dbeaver": [
        ("SELECT * FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'd'", COLUMNS),
        ("SHOW FULL TABLES FROM `d`", FULL),
        ("SELECT * FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'c'"
         " ORDER BY CONSTRAINT_NAME", FULL),
        ("SELECT kc.CONSTRAINT_NAME, kc.TABLE_NAME, kc.COLUMN_NAME, kc.ORDINAL_POSITION,"
         " kc.REFERENCED_TABLE_SCHEMA, kc.REFERENCED_TABLE_NAME, kc.REFERENCED_COLUMN_NAME,"
         " rc.UPDATE_RULE, rc.DELETE_RULE FROM information_schema.KEY_COLUMN_USAGE kc"
         " JOIN information_schema.REFERENTIAL_CONSTRAINTS rc ON rc.CONSTRAINT_SCHEMA = kc.CONSTRAINT_SCHEMA"
         " AND rc.CONSTRAINT_NAME = kc.CONSTRAINT_NAME WHERE kc.TABLE_SCHEMA = 'd' AND kc.TABLE_NAME = 'c'", FULL),
        ("SELECT * FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'p'"
         " ORDER BY INDEX_NAME, SEQ_IN_INDEX", FULL),
        ("SELECT * FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'd'", COLUMNS),
        ("SELECT * FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'd'", FULL),
        ("SELECT * FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = 'd'", FULL),
        ("SELECT * FROM information_schema.PARAMETERS WHERE SPECIFIC_SCHEMA = 'd'", FULL),
        ("SELECT TABLE_SCHEMA, TABLE_NAME, PARTITION_NAME, SUBPARTITION_NAME, PARTITION_ORDINAL_POSITION,"
         " PARTITION_METHOD, PARTITION_EXPRESSION, PARTITION_DESCRIPTION, TABLE_ROWS, MAX_DATA_LENGTH, DATA_FREE,"
         " CHECK_TIME, CHECKSUM, PARTITION_COMMENT, NODEGROUP, TABLESPACE_NAME FROM information_schema.PARTITIONS"
         " WHERE TABLE_SCHEMA = 'd' ORDER BY TABLE_NAME", FULL),
        ("SHOW ENGINES", COLUMNS),
        ("SHOW CHARSET", COLUMNS),
        ("SHOW COLLATION", COLUMNS),
        ("SHOW PLUGINS", COLUMNS),
        ("SHOW PRIVILEGES", COLUMNS),
        ("SHOW GRANTS FOR 'u1'@'%'", FULL),
        ("SELECT * FROM information_schema.USER_PRIVILEGES WHERE GRANTEE LIKE '''u%'"
         " ORDER BY GRANTEE, PRIVILEGE_TYPE", FULL),
        ("SELECT * FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE LIKE '''u%'"
         " ORDER BY GRANTEE, PRIVILEGE_TYPE", FULL),
        ("SELECT * FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE LIKE '''u%'"
         " ORDER BY GRANTEE, PRIVILEGE_TYPE", FULL),
        ("SELECT * FROM information_schema.COLUMN_PRIVILEGES", FULL),
        ("SELECT DATABASE()", FULL),
    ],
    "metabase_grafana": [
        ("SELECT table_name FROM information_schema.tables WHERE table_schema = 'd' ORDER BY table_name", FULL),
        ("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'd'"
         " AND table_name = 'p' ORDER BY ordinal_position", FULL),
        ("SELECT c.column_name AS name, c.column_type AS `database-type`, c.ordinal_position - 1 AS"
         " `database-position`, c.column_comment AS `field-comment`, c.column_key = 'PRI' AS pk"
         " FROM information_schema.columns c WHERE c.table_schema = 'd' AND c.table_name = 'c'"
         " ORDER BY c.ordinal_position", TYPED),
        ("SELECT table_schema, table_name, table_comment AS description FROM information_schema.tables"
         " WHERE table_schema = 'd' AND table_type = 'BASE TABLE' ORDER BY table_name", FULL),
        ("SELECT kcu.column_name, kcu.referenced_table_name, kcu.referenced_column_name"
         " FROM information_schema.key_column_usage kcu WHERE kcu.table_schema = 'd'"
         " AND kcu.referenced_table_name IS NOT NULL", FULL),
        ("SELECT UNIX_TIMESTAMP(made) AS time_sec, id AS value FROM p ORDER BY made, id", FULL),
        ("SELECT @@session.time_zone", FULL),
        ("SELECT UNIX_TIMESTAMP()", COLUMNS),
        ("SELECT VERSION()", TYPED_COLUMNS),
    ],
    "workbench_datagrip": [
        ("SHOW SESSION VARIABLES LIKE 'lower_case_table_names'", FULL),
        ("SELECT CURRENT_USER", COLUMNS),
        ("SELECT SCHEMA()", FULL),
        ("select table_name, table_type, engine, table_comment from information_schema.tables"
         " where table_schema = 'd' order by table_name", FULL),
        ("select grantee, privilege_type, is_grantable from information_schema.user_privileges"
         " where grantee = '''u1''@''%''' order by privilege_type", FULL),
        ("select * from information_schema.schema_privileges where grantee like '''u1%'"
         " order by privilege_type", FULL),
        ("select table_name, privilege_type from information_schema.table_privileges"
         " where table_schema = 'd' order by privilege_type", FULL),
        ("select * from information_schema.parameters where specific_schema = 'd'", FULL),
        ("select collation_name, character_set_name, id, is_default"
         " from information_schema.collation_character_set_applicability"
         " where collation_name in ('utf8mb4_general_ci', 'utf8mb4_bin', 'latin1_swedish_ci') order by id", FULL),
        ("select * from information_schema.COLLATION_CHARACTER_SET_APPLICABILITY"
         " where COLLATION_NAME = 'utf8mb4_unicode_ci'", FULL),
        ("EXPLAIN SELECT * FROM p WHERE id = 1", FULL),
    ],
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    with mariadb_and_ours(tmp_path_factory.mktemp("gui_tools")) as (reference, ours):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        yield reference, ours


def _compared(answer: tuple, compared: str) -> tuple:
    """What of a `defined_answers` answer `compared` compares: an error whole; COLUMNS each
    protocol's column definitions; TYPED the rows with each column's (name, type code, decimals);
    TYPED_COLUMNS those alone."""
    sql, text, prepared = answer
    if compared == FULL or text[0] == "error" or prepared[0] == "error":
        return answer

    def typed(columns: list[tuple]) -> list[tuple]:
        return [(name, code, decimals) for name, code, _, decimals, _, _ in columns]
    # (the columns of the text answer and of the prepared execution: MariaDB's prepare of a SHOW
    # listing describes none of them, here it describes them all)
    if compared == COLUMNS:
        return sql, text[0], prepared[1]
    if compared == TYPED_COLUMNS:
        return sql, typed(text[0]), typed(prepared[1])
    return sql, (typed(text[0]), text[1]), ([typed(columns) for columns in prepared[:2]], prepared[2])


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_a_tools_statements_are_answered_as_mariadb_answers_them(servers, tool):
    reference, ours = servers
    statements = [sql for sql, _ in TOOLS[tool]]
    theirs = defined_answers(reference.port, "d", statements)
    mine = defined_answers(ours.port, "d", statements)
    differ = []
    for (_, compared), t, o in zip(TOOLS[tool], theirs, mine, strict=True):
        t, o = _compared(t, compared), _compared(o, compared)
        if t != o:
            differ.append(f"{t[0]}\n  MariaDB: {t[1:]!r:.1500}\n  ours:    {o[1:]!r:.1500}")
    assert not differ, "\n".join(differ)


def _as_u1(port: int, statements: list[str]) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="u1", password="pw", autocommit=True)
    try:
        with conn.cursor() as cur:
            out = []
            for sql in statements:
                cur.execute(sql)
                out.append((sql, [d[0] for d in cur.description], sorted(cur.fetchall())))
            return out
    finally:
        conn.close()


def test_an_account_without_select_on_mysql_sees_only_its_own_privileges(servers):
    """USER_ / SCHEMA_ / TABLE_PRIVILEGES list every account's grants only to an account with
    SELECT on the mysql database: u1 sees its own, as on MariaDB."""
    reference, ours = servers
    statements = [f"SELECT * FROM information_schema.{view}"
                  for view in ("USER_PRIVILEGES", "SCHEMA_PRIVILEGES", "TABLE_PRIVILEGES")]
    assert _as_u1(ours.port, statements) == _as_u1(reference.port, statements)
