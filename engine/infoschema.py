"""A read-only `information_schema` (SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, CHARACTER_SETS, COLLATIONS,
COLLATION_CHARACTER_SET_APPLICABILITY, PROCESSLIST, USER_PRIVILEGES, SCHEMA_PRIVILEGES,
TABLE_PRIVILEGES (the accounts' grants, `server.users.Account.privilege_rows`),
GLOBAL_VARIABLES, SESSION_VARIABLES, GLOBAL_STATUS, SESSION_STATUS, INNODB_TRX, INNODB_LOCKS,
INNODB_LOCK_WAITS, ENABLED_ROLES / APPLICABLE_ROLES (no role exists here), INNODB_CMP / INNODB_CMPMEM (a row of zero counters per compressed page size: nothing
here is compressed), INNODB_METRICS (every monitor never enabled: engine/innodb_metrics.py),
RPL_SEMI_SYNC_SLAVES (the semi-sync master plugin's: each registered slave's acked position), with
MariaDB 10.11's columns where MariaDB has the view, and the `mysql` tables the server shell answers
(`mysql.global_priv`, `mysql.user`);
the rows of PROCESSLIST, of the variables, of the grants and of the transactions (`LIVE`) are the server shell's, read through the
session when the statement is planned (such plans are never cached), the variables' names
upper-case and compared without regard to case, as MariaDB's; every view's result columns
typed from MariaDB's declared columns (`table`), never from their values; PARTITIONS one row
per table (none is partitioned), FILES,
TRIGGERS, ROUTINES, PARAMETERS, EVENTS, COLUMN_PRIVILEGES and the user statistics (TABLE_ / INDEX_ / USER_ / CLIENT_STATISTICS: userstat
is never ON here) always empty; SYSTEM_VARIABLES (`UNANSWERED`) 1235) built from the
engine's catalog: a reference to `information_schema.X` becomes a subquery over VALUES, inlined
into the translation (plans are cached per catalog version, so they never show a stale catalog).
Enough for clients that reflect tables (python-mysql-replication, ORMs), not a full one.

Without ORDER BY, SCHEMATA lists information_schema, then the databases by name; TABLES each
database's views, then its tables, by name (binary); COLUMNS its tables and views by name. MariaDB 10.11 lists them in
its datadir's directory order (ext4's hash order: neither sorted nor the same from one datadir to
the next), which no client can rely on; SHOW DATABASES and SHOW TABLES sort by name (binary), as
MariaDB's."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import replace

from engine import innodb_metrics
from engine.catalog import (
    CHAR_TYPES,
    NUMERIC_TYPES,
    Column,
    DatabaseOptions,
    Table,
    TokenCursor,
    sql_literal,
)
from engine.collation import GENERAL_CI
from engine.coltypes import ColumnType
from engine.lexer import extract, quote_ident, tokenize
from engine.viewcols import ViewColumn, updatable
from protocol.messages import ColumnFlag

NAME = "information_schema"
DATABASE_OPTIONS = DatabaseOptions("utf8mb3", "utf8mb3_general_ci")  # SHOW CREATE DATABASE information_schema

# USER_STATISTICS' and CLIENT_STATISTICS' columns after the first (their first three counters
# int(11) in one, bigint(21) in the other)
_ACTIVITY = """
        TOTAL_CONNECTIONS {counter}, CONCURRENT_CONNECTIONS {counter}, CONNECTED_TIME {counter}, BUSY_TIME double,
        CPU_TIME double, BYTES_RECEIVED bigint(21), BYTES_SENT bigint(21), BINLOG_BYTES_WRITTEN bigint(21),
        ROWS_READ bigint(21), ROWS_SENT bigint(21), ROWS_DELETED bigint(21), ROWS_INSERTED bigint(21),
        ROWS_UPDATED bigint(21), SELECT_COMMANDS bigint(21), UPDATE_COMMANDS bigint(21), OTHER_COMMANDS bigint(21),
        COMMIT_TRANSACTIONS bigint(21), ROLLBACK_TRANSACTIONS bigint(21), DENIED_CONNECTIONS bigint(21),
        LOST_CONNECTIONS bigint(21), ACCESS_DENIED bigint(21), EMPTY_QUERIES bigint(21),
        TOTAL_SSL_CONNECTIONS bigint(21)_unsigned, MAX_STATEMENT_TIME_EXCEEDED bigint(21)"""

# Every view's columns with MariaDB 10.11's declared types ("NAME type", "?" when nullable): its
# result columns are typed from them, never from the rows (a column of NULLs is still a BIGINT).
_DECLARED_TEXT = {
    "schemata": """
        CATALOG_NAME varchar(512), SCHEMA_NAME varchar(64), DEFAULT_CHARACTER_SET_NAME varchar(32),
        DEFAULT_COLLATION_NAME varchar(64), SQL_PATH varchar(512)?, SCHEMA_COMMENT varchar(1024)""",
    "tables": """
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        TABLE_TYPE varchar(64), ENGINE varchar(64)?, VERSION bigint(21)_unsigned?, ROW_FORMAT varchar(10)?,
        TABLE_ROWS bigint(21)_unsigned?, AVG_ROW_LENGTH bigint(21)_unsigned?,
        DATA_LENGTH bigint(21)_unsigned?, MAX_DATA_LENGTH bigint(21)_unsigned?,
        INDEX_LENGTH bigint(21)_unsigned?, DATA_FREE bigint(21)_unsigned?,
        AUTO_INCREMENT bigint(21)_unsigned?, CREATE_TIME datetime?, UPDATE_TIME datetime?,
        CHECK_TIME datetime?, TABLE_COLLATION varchar(64)?, CHECKSUM bigint(21)_unsigned?,
        CREATE_OPTIONS varchar(2048)?, TABLE_COMMENT varchar(2048), MAX_INDEX_LENGTH bigint(21)_unsigned?,
        TEMPORARY varchar(1)?""",
    "columns": """
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        COLUMN_NAME varchar(64), ORDINAL_POSITION bigint(21)_unsigned, COLUMN_DEFAULT longtext?,
        IS_NULLABLE varchar(3), DATA_TYPE varchar(64), CHARACTER_MAXIMUM_LENGTH bigint(21)_unsigned?,
        CHARACTER_OCTET_LENGTH bigint(21)_unsigned?, NUMERIC_PRECISION bigint(21)_unsigned?,
        NUMERIC_SCALE bigint(21)_unsigned?, DATETIME_PRECISION bigint(21)_unsigned?,
        CHARACTER_SET_NAME varchar(32)?, COLLATION_NAME varchar(64)?, COLUMN_TYPE longtext,
        COLUMN_KEY varchar(3), EXTRA varchar(80), PRIVILEGES varchar(80), COLUMN_COMMENT varchar(1024),
        IS_GENERATED varchar(6), GENERATION_EXPRESSION longtext?""",
    "key_column_usage": """
        CONSTRAINT_CATALOG varchar(512), CONSTRAINT_SCHEMA varchar(64), CONSTRAINT_NAME varchar(64),
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        COLUMN_NAME varchar(64), ORDINAL_POSITION bigint(10), POSITION_IN_UNIQUE_CONSTRAINT bigint(10)?,
        REFERENCED_TABLE_SCHEMA varchar(64)?, REFERENCED_TABLE_NAME varchar(64)?,
        REFERENCED_COLUMN_NAME varchar(64)?""",
    "table_constraints": """
        CONSTRAINT_CATALOG varchar(512), CONSTRAINT_SCHEMA varchar(64), CONSTRAINT_NAME varchar(64),
        TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64), CONSTRAINT_TYPE varchar(64)""",
    "check_constraints": """
        CONSTRAINT_CATALOG varchar(512), CONSTRAINT_SCHEMA varchar(64), TABLE_NAME varchar(64),
        CONSTRAINT_NAME varchar(64), LEVEL varchar(6), CHECK_CLAUSE longtext""",
    "referential_constraints": """
        CONSTRAINT_CATALOG varchar(512), CONSTRAINT_SCHEMA varchar(64), CONSTRAINT_NAME varchar(64),
        UNIQUE_CONSTRAINT_CATALOG varchar(512), UNIQUE_CONSTRAINT_SCHEMA varchar(64),
        UNIQUE_CONSTRAINT_NAME varchar(64)?, MATCH_OPTION varchar(64), UPDATE_RULE varchar(64),
        DELETE_RULE varchar(64), TABLE_NAME varchar(64), REFERENCED_TABLE_NAME varchar(64)?""",
    "partitions": """
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        PARTITION_NAME varchar(64)?, SUBPARTITION_NAME varchar(64)?,
        PARTITION_ORDINAL_POSITION bigint(21)_unsigned?, SUBPARTITION_ORDINAL_POSITION bigint(21)_unsigned?,
        PARTITION_METHOD varchar(18)?, SUBPARTITION_METHOD varchar(12)?, PARTITION_EXPRESSION longtext?,
        SUBPARTITION_EXPRESSION longtext?, PARTITION_DESCRIPTION longtext?, TABLE_ROWS bigint(21)_unsigned,
        AVG_ROW_LENGTH bigint(21)_unsigned, DATA_LENGTH bigint(21)_unsigned,
        MAX_DATA_LENGTH bigint(21)_unsigned?, INDEX_LENGTH bigint(21)_unsigned,
        DATA_FREE bigint(21)_unsigned, CREATE_TIME datetime?, UPDATE_TIME datetime?, CHECK_TIME datetime?,
        CHECKSUM bigint(21)_unsigned?, PARTITION_COMMENT varchar(80), NODEGROUP varchar(12),
        TABLESPACE_NAME varchar(64)?""",
    "triggers": """
        TRIGGER_CATALOG varchar(512), TRIGGER_SCHEMA varchar(64), TRIGGER_NAME varchar(64),
        EVENT_MANIPULATION varchar(6), EVENT_OBJECT_CATALOG varchar(512), EVENT_OBJECT_SCHEMA varchar(64),
        EVENT_OBJECT_TABLE varchar(64), ACTION_ORDER bigint(4), ACTION_CONDITION longtext?,
        ACTION_STATEMENT longtext?, ACTION_ORIENTATION varchar(9), ACTION_TIMING varchar(6),
        ACTION_REFERENCE_OLD_TABLE varchar(64)?, ACTION_REFERENCE_NEW_TABLE varchar(64)?,
        ACTION_REFERENCE_OLD_ROW varchar(3), ACTION_REFERENCE_NEW_ROW varchar(3), CREATED datetime(2)?,
        SQL_MODE varchar(8192), DEFINER varchar(384)?, CHARACTER_SET_CLIENT varchar(32),
        COLLATION_CONNECTION varchar(64), DATABASE_COLLATION varchar(64)""",
    "routines": """
        SPECIFIC_NAME varchar(64), ROUTINE_CATALOG varchar(512), ROUTINE_SCHEMA varchar(64),
        ROUTINE_NAME varchar(64), ROUTINE_TYPE varchar(13), DATA_TYPE varchar(64),
        CHARACTER_MAXIMUM_LENGTH int(21)?, CHARACTER_OCTET_LENGTH int(21)?, NUMERIC_PRECISION int(21)?,
        NUMERIC_SCALE int(21)?, DATETIME_PRECISION bigint(21)_unsigned?, CHARACTER_SET_NAME varchar(64)?,
        COLLATION_NAME varchar(64)?, DTD_IDENTIFIER longtext?, ROUTINE_BODY varchar(8),
        ROUTINE_DEFINITION longtext?, EXTERNAL_NAME varchar(64)?, EXTERNAL_LANGUAGE varchar(64)?,
        PARAMETER_STYLE varchar(8), IS_DETERMINISTIC varchar(3), SQL_DATA_ACCESS varchar(64),
        SQL_PATH varchar(64)?, SECURITY_TYPE varchar(7), CREATED datetime, LAST_ALTERED datetime,
        SQL_MODE varchar(8192), ROUTINE_COMMENT longtext, DEFINER varchar(384),
        CHARACTER_SET_CLIENT varchar(32), COLLATION_CONNECTION varchar(64), DATABASE_COLLATION varchar(64)""",
    "events": """
        EVENT_CATALOG varchar(64), EVENT_SCHEMA varchar(64), EVENT_NAME varchar(64), DEFINER varchar(384),
        TIME_ZONE varchar(64), EVENT_BODY varchar(8), EVENT_DEFINITION longtext, EVENT_TYPE varchar(9),
        EXECUTE_AT datetime?, INTERVAL_VALUE varchar(256)?, INTERVAL_FIELD varchar(18)?,
        SQL_MODE varchar(8192), STARTS datetime?, ENDS datetime?, STATUS varchar(18),
        ON_COMPLETION varchar(12), CREATED datetime, LAST_ALTERED datetime, LAST_EXECUTED datetime?,
        EVENT_COMMENT varchar(64), ORIGINATOR bigint(10), CHARACTER_SET_CLIENT varchar(32),
        COLLATION_CONNECTION varchar(64), DATABASE_COLLATION varchar(64)""",
    "views": """
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        VIEW_DEFINITION longtext, CHECK_OPTION varchar(8), IS_UPDATABLE varchar(3), DEFINER varchar(384),
        SECURITY_TYPE varchar(7), CHARACTER_SET_CLIENT varchar(32), COLLATION_CONNECTION varchar(64),
        ALGORITHM varchar(10)""",
    "character_sets": """
        CHARACTER_SET_NAME varchar(32), DEFAULT_COLLATE_NAME varchar(64), DESCRIPTION varchar(60),
        MAXLEN bigint(3)""",
    "collations": """
        COLLATION_NAME varchar(64), CHARACTER_SET_NAME varchar(32)?, ID bigint(11)?, IS_DEFAULT varchar(3)?,
        IS_COMPILED varchar(3), SORTLEN bigint(3)""",
    # MariaDB's user statistics (userstat, OFF: never collected here, so always empty)
    "table_statistics": """
        TABLE_SCHEMA varchar(192), TABLE_NAME varchar(192), ROWS_READ bigint(21), ROWS_CHANGED bigint(21),
        ROWS_CHANGED_X_INDEXES bigint(21)""",
    "index_statistics": """
        TABLE_SCHEMA varchar(192), TABLE_NAME varchar(192), INDEX_NAME varchar(192), ROWS_READ bigint(21)""",
    "user_statistics": "USER varchar(128), " + _ACTIVITY.format(counter="int(11)"),
    "client_statistics": "CLIENT varchar(64), " + _ACTIVITY.format(counter="bigint(21)"),
    "files": """
        FILE_ID bigint(4), FILE_NAME varchar(512)?, FILE_TYPE varchar(20), TABLESPACE_NAME varchar(64)?,
        TABLE_CATALOG varchar(64), TABLE_SCHEMA varchar(64)?, TABLE_NAME varchar(64)?,
        LOGFILE_GROUP_NAME varchar(64)?, LOGFILE_GROUP_NUMBER bigint(4)?, ENGINE varchar(64),
        FULLTEXT_KEYS varchar(64)?, DELETED_ROWS bigint(4)?, UPDATE_COUNT bigint(4)?,
        FREE_EXTENTS bigint(4)?, TOTAL_EXTENTS bigint(4)?, EXTENT_SIZE bigint(4),
        INITIAL_SIZE bigint(21)_unsigned?, MAXIMUM_SIZE bigint(21)_unsigned?,
        AUTOEXTEND_SIZE bigint(21)_unsigned?, CREATION_TIME datetime?, LAST_UPDATE_TIME datetime?,
        LAST_ACCESS_TIME datetime?, RECOVER_TIME bigint(4)?, TRANSACTION_COUNTER bigint(4)?,
        VERSION bigint(21)_unsigned?, ROW_FORMAT varchar(10)?, TABLE_ROWS bigint(21)_unsigned?,
        AVG_ROW_LENGTH bigint(21)_unsigned?, DATA_LENGTH bigint(21)_unsigned?,
        MAX_DATA_LENGTH bigint(21)_unsigned?, INDEX_LENGTH bigint(21)_unsigned?,
        DATA_FREE bigint(21)_unsigned?, CREATE_TIME datetime?, UPDATE_TIME datetime?, CHECK_TIME datetime?,
        CHECKSUM bigint(21)_unsigned?, STATUS varchar(20), EXTRA varchar(255)?""",
    "global_variables": """
        VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)""",
    "session_variables": """
        VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)""",
    "global_status": """
        VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)""",
    "session_status": """
        VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)""",
    "processlist": """
        ID bigint(4), USER varchar(128), HOST varchar(64), DB varchar(64)?, COMMAND varchar(16),
        TIME int(7), STATE varchar(64)?, INFO longtext?, TIME_MS decimal(22,3), STAGE tinyint(2),
        MAX_STAGE tinyint(2), PROGRESS decimal(7,3), MEMORY_USED bigint(7), MAX_MEMORY_USED bigint(7),
        EXAMINED_ROWS int(7), QUERY_ID bigint(4), INFO_BINARY blob?, TID bigint(4)""",
    "innodb_trx": """
        trx_id bigint(21)_unsigned, trx_state varchar(13), trx_started datetime,
        trx_requested_lock_id varchar(81)?, trx_wait_started datetime?, trx_weight bigint(21)_unsigned,
        trx_mysql_thread_id bigint(21)_unsigned, trx_query varchar(1024)?, trx_operation_state varchar(64)?,
        trx_tables_in_use bigint(21)_unsigned, trx_tables_locked bigint(21)_unsigned,
        trx_lock_structs bigint(21)_unsigned, trx_lock_memory_bytes bigint(21)_unsigned,
        trx_rows_locked bigint(21)_unsigned, trx_rows_modified bigint(21)_unsigned,
        trx_concurrency_tickets bigint(21)_unsigned,
        trx_isolation_level enum('READ UNCOMMITTED','READ COMMITTED','REPEATABLE READ','SERIALIZABLE'),
        trx_unique_checks int(1), trx_foreign_key_checks int(1), trx_last_foreign_key_error varchar(256)?,
        trx_is_read_only int(1), trx_autocommit_non_locking int(1)""",
    "innodb_locks": """
        lock_id varchar(81), lock_trx_id bigint(21)_unsigned,
        lock_mode enum('S','S,GAP','X','X,GAP','IS','IS,GAP','IX','IX,GAP','AUTO_INC'),
        lock_type enum('RECORD','TABLE'), lock_table varchar(1024), lock_index varchar(1024)?,
        lock_space int(11)_unsigned?, lock_page int(11)_unsigned?, lock_rec int(11)_unsigned?,
        lock_data varchar(8192)?""",
    "innodb_lock_waits": """
        requesting_trx_id bigint(21)_unsigned, requested_lock_id varchar(81),
        blocking_trx_id bigint(21)_unsigned, blocking_lock_id varchar(81)""",
    "parameters": """
        SPECIFIC_CATALOG varchar(512), SPECIFIC_SCHEMA varchar(64), SPECIFIC_NAME varchar(64), ORDINAL_POSITION int(21),
        PARAMETER_MODE varchar(5)?, PARAMETER_NAME varchar(64)?, DATA_TYPE varchar(64),
        CHARACTER_MAXIMUM_LENGTH int(21)?, CHARACTER_OCTET_LENGTH int(21)?, NUMERIC_PRECISION int(21)?,
        NUMERIC_SCALE int(21)?, DATETIME_PRECISION bigint(21)_unsigned?, CHARACTER_SET_NAME varchar(64)?,
        COLLATION_NAME varchar(64)?, DTD_IDENTIFIER longtext, ROUTINE_TYPE varchar(9)""",
    "user_privileges": """
        GRANTEE varchar(385), TABLE_CATALOG varchar(512), PRIVILEGE_TYPE varchar(64), IS_GRANTABLE varchar(3)""",
    "schema_privileges": """
        GRANTEE varchar(385), TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), PRIVILEGE_TYPE varchar(64),
        IS_GRANTABLE varchar(3)""",
    "table_privileges": """
        GRANTEE varchar(385), TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        PRIVILEGE_TYPE varchar(64), IS_GRANTABLE varchar(3)""",
    "column_privileges": """
        GRANTEE varchar(385), TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64),
        COLUMN_NAME varchar(64), PRIVILEGE_TYPE varchar(64), IS_GRANTABLE varchar(3)""",
    "collation_character_set_applicability": """
        COLLATION_NAME varchar(64), CHARACTER_SET_NAME varchar(32), FULL_COLLATION_NAME varchar(64), ID bigint(11),
        IS_DEFAULT varchar(3)""",
    "plugins": """
        PLUGIN_NAME varchar(64), PLUGIN_VERSION varchar(20), PLUGIN_STATUS varchar(16), PLUGIN_TYPE varchar(80),
        PLUGIN_TYPE_VERSION varchar(20), PLUGIN_LIBRARY varchar(64)?, PLUGIN_LIBRARY_VERSION varchar(20)?,
        PLUGIN_AUTHOR varchar(64)?, PLUGIN_DESCRIPTION longtext?, PLUGIN_LICENSE varchar(80), LOAD_OPTION varchar(64),
        PLUGIN_MATURITY varchar(12), PLUGIN_AUTH_VERSION varchar(80)?""",
    # the semi-sync master plugin's (the server answers it while the plugin is installed): each
    # registered slave, as SHOW SLAVE HOSTS, and its latest semi-sync ack
    "rpl_semi_sync_slaves": """
        SERVER_ID int(10)_unsigned, HOST varchar(60), PORT int(10)_unsigned, ACKED_LOG_FILE varchar(512)?,
        ACKED_LOG_POS bigint(21)_unsigned?""",
    "enabled_roles": "ROLE_NAME varchar(128)?",
    "applicable_roles": "GRANTEE varchar(385), ROLE_NAME varchar(128), IS_GRANTABLE varchar(3), IS_DEFAULT varchar(3)?",
    "engines": """
        ENGINE varchar(64), SUPPORT varchar(8), COMMENT varchar(160), TRANSACTIONS varchar(3)?, XA varchar(3)?,
        SAVEPOINTS varchar(3)?""",
    "statistics": """
        TABLE_CATALOG varchar(512), TABLE_SCHEMA varchar(64), TABLE_NAME varchar(64), NON_UNIQUE bigint(1),
        INDEX_SCHEMA varchar(64), INDEX_NAME varchar(64), SEQ_IN_INDEX int(2)_unsigned,
        COLUMN_NAME varchar(64), COLLATION varchar(1)?, CARDINALITY bigint(21)?, SUB_PART bigint(3)?,
        PACKED varchar(10)?, NULLABLE varchar(3), INDEX_TYPE varchar(16), COMMENT varchar(16)?,
        INDEX_COMMENT varchar(1024), IGNORED varchar(3)""",
    # InnoDB's compression statistics: no page here is ever compressed (`_compression_rows`)
    **dict.fromkeys(("innodb_cmp", "innodb_cmp_reset"), """
        page_size int(5), compress_ops int(11), compress_ops_ok int(11), compress_time int(11),
        uncompress_ops int(11), uncompress_time int(11)"""),
    **dict.fromkeys(("innodb_cmpmem", "innodb_cmpmem_reset"), """
        page_size int(5), buffer_pool_instance int(11), pages_used int(11), pages_free int(11),
        relocation_ops bigint(21), relocation_time int(11)"""),
    "innodb_metrics": """
        NAME varchar(193), SUBSYSTEM varchar(193), COUNT bigint(21), MAX_COUNT bigint(21)?, MIN_COUNT bigint(21)?,
        AVG_COUNT float?, COUNT_RESET bigint(21), MAX_COUNT_RESET bigint(21)?, MIN_COUNT_RESET bigint(21)?,
        AVG_COUNT_RESET float?, TIME_ENABLED datetime?, TIME_DISABLED datetime?, TIME_ELAPSED bigint(21)?,
        TIME_RESET datetime?, ENABLED int(1), TYPE enum('value','status_counter','set_owner','set_member','counter'),
        COMMENT varchar(193)""",
    **dict.fromkeys(("innodb_cmp_per_index", "innodb_cmp_per_index_reset"), """
        database_name varchar(64), table_name varchar(64), index_name varchar(64), compress_ops int(11),
        compress_ops_ok int(11), compress_time int(11), uncompress_ops int(11), uncompress_time int(11)"""),
}

# The views whose rows are the server shell's, read through the session when the statement is
# planned (such plans are never cached): PROCESSLIST, the system and status variables, and the
# transactions and writer-lock waits of its sessions (INNODB_TRX, INNODB_LOCKS, INNODB_LOCK_WAITS).
LIVE = frozenset({"processlist", "global_variables", "session_variables", "global_status", "session_status",
                  "user_privileges", "schema_privileges", "table_privileges", "global_priv", "plugins",
                  "rpl_semi_sync_slaves", "innodb_trx", "innodb_locks", "innodb_lock_waits"})
# ENGINES' one row (SHOW ENGINES too): the engine, answering to the name InnoDB
ENGINE_ROW = ("InnoDB", "DEFAULT", "Transactional tables on SQLite (one writer at a time, table-level locking), "
              "answering to the name InnoDB", "YES", "NO", "YES")
# The `mysql` schema's tables a server shell answers, with MariaDB 10.11's columns:
# `mysql.global_priv` (its accounts, their global privileges as MariaDB's access bits),
# `mysql.user` (MariaDB's view over global_priv: a column per privilege bit, the limits and the
# authentication), the grants below the global level (`db`, `tables_priv`, `procs_priv`;
# `columns_priv`, `proxies_priv` and `roles_mapping` hold nothing here: no column, proxy or role
# grants exist); live rows, read under their names.
MYSQL = "mysql"
PERFORMANCE_SCHEMA = "performance_schema"
_MYSQL_DECLARED_TEXT = {
    "global_priv": "Host char(255), User char(128), Priv longtext",
    "user": """
        Host char(255), User char(128), Password longtext?, Select_priv varchar(1)?, Insert_priv varchar(1)?,
        Update_priv varchar(1)?, Delete_priv varchar(1)?, Create_priv varchar(1)?, Drop_priv varchar(1)?,
        Reload_priv varchar(1)?, Shutdown_priv varchar(1)?, Process_priv varchar(1)?, File_priv varchar(1)?,
        Grant_priv varchar(1)?, References_priv varchar(1)?, Index_priv varchar(1)?, Alter_priv varchar(1)?,
        Show_db_priv varchar(1)?, Super_priv varchar(1)?, Create_tmp_table_priv varchar(1)?,
        Lock_tables_priv varchar(1)?, Execute_priv varchar(1)?, Repl_slave_priv varchar(1)?,
        Repl_client_priv varchar(1)?, Create_view_priv varchar(1)?, Show_view_priv varchar(1)?,
        Create_routine_priv varchar(1)?, Alter_routine_priv varchar(1)?, Create_user_priv varchar(1)?,
        Event_priv varchar(1)?, Trigger_priv varchar(1)?, Create_tablespace_priv varchar(1)?,
        Delete_history_priv varchar(1)?, ssl_type varchar(9)?, ssl_cipher longtext, x509_issuer longtext,
        x509_subject longtext, max_questions bigint(20)_unsigned, max_updates bigint(20)_unsigned,
        max_connections bigint(20)_unsigned, max_user_connections bigint(21), plugin longtext,
        authentication_string longtext, password_expired varchar(1), is_role varchar(1)?, default_role longtext,
        max_statement_time decimal(12,6)""",
}
# The grant tables as MariaDB 10.11 defines them (its scripts/mysql_system_tables.sql), read by
# the DDL parser: their columns' flags (keys, defaults, binary collation) are the tables'.
_YN = "enum('N','Y') CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL DEFAULT 'N'"
_KEY = "Host char(255) NOT NULL DEFAULT '', {} User char(128) NOT NULL DEFAULT '', "
_STAMP = "Timestamp timestamp NOT NULL DEFAULT current_timestamp() ON UPDATE current_timestamp()"
_GRANTOR = "Grantor varchar(384) NOT NULL DEFAULT ''"
_SET = "CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL DEFAULT ''"
_COLUMN_PRIV = f"Column_priv set('Select','Insert','Update','References') {_SET}"
_MYSQL_CREATE = {
    "db": _KEY.format("Db char(64) NOT NULL DEFAULT '',") + ", ".join(f"{name}_priv {_YN}" for name in (
        "Select", "Insert", "Update", "Delete", "Create", "Drop", "Grant", "References", "Index", "Alter",
        "Create_tmp_table", "Lock_tables", "Create_view", "Show_view", "Create_routine", "Alter_routine",
        "Execute", "Event", "Trigger", "Delete_history")) + ", PRIMARY KEY (Host, Db, User), KEY User (User)",
    "tables_priv": _KEY.format("Db char(64) NOT NULL DEFAULT '',") + "Table_name char(64) NOT NULL DEFAULT '', "
    f"{_GRANTOR}, {_STAMP}, Table_priv set('Select','Insert','Update','Delete','Create','Drop','Grant',"
    "'References','Index','Alter','Create View','Show view','Trigger','Delete versioning rows') "
    f"{_SET}, {_COLUMN_PRIV}, PRIMARY KEY (Host, Db, User, Table_name), KEY Grantor (Grantor)",
    "columns_priv": _KEY.format("Db char(64) NOT NULL DEFAULT '',") + "Table_name char(64) NOT NULL DEFAULT '', "
    f"Column_name char(64) NOT NULL DEFAULT '', {_STAMP}, {_COLUMN_PRIV}, "
    "PRIMARY KEY (Host, Db, User, Table_name, Column_name)",
    "procs_priv": _KEY.format("Db char(64) NOT NULL DEFAULT '',") + "Routine_name char(64) CHARACTER SET utf8mb3 "
    "COLLATE utf8mb3_general_ci NOT NULL DEFAULT '', Routine_type enum('FUNCTION','PROCEDURE','PACKAGE',"
    f"'PACKAGE BODY') NOT NULL, {_GRANTOR}, Proc_priv set('Execute','Alter Routine','Grant') {_SET}, {_STAMP}, "
    "PRIMARY KEY (Host, Db, User, Routine_name, Routine_type), KEY Grantor (Grantor)",
    "proxies_priv": _KEY.format("") + "Proxied_host char(255) NOT NULL DEFAULT '', Proxied_user char(128) NOT NULL "
    f"DEFAULT '', With_grant tinyint(1) NOT NULL DEFAULT 0, {_GRANTOR}, {_STAMP}, "
    "PRIMARY KEY (Host, User, Proxied_host, Proxied_user), KEY Grantor (Grantor)",
    "roles_mapping": _KEY.format("") + f"Role char(128) NOT NULL DEFAULT '', Admin_option {_YN}, "
    "UNIQUE KEY Host (Host, User, Role)",
}
_MYSQL_PARSED: dict[str, Table] = {}
# a `mysql` table named in a statement (`user`, `db`: too common words to look for alone)
_MYSQL_USER = re.compile(r"\bmysql`?\s*\.\s*`?(?:user|db|tables_priv|columns_priv|procs_priv|proxies_priv|roles_mapping)\b")
# Views whose text columns compare without regard to case, as MariaDB's utf8_general_ci columns
# do (VARIABLE_NAME = 'rpl_semi_sync_master_enabled' finds RPL_SEMI_SYNC_MASTER_ENABLED).
_NOCASE = frozenset({"global_variables", "session_variables", "global_status", "session_status"})
# Every other view's text columns compare, sort and group under GENERAL_CI, as MariaDB's
# utf8mb3_general_ci ones (ORDER BY CONSTRAINT_NAME puts 'f_ibfk_1' before 'PRIMARY'), but for the
# names MariaDB looks a view's rows up by (its `idx_field1` / `idx_field2`): `TABLE_NAME = 'T1'`
# opens the table by its name, which finds no table t1 with lower_case_table_names=0; those stay
# binary, so that an equality with them answers as MariaDB's (their order is binary too).
_LOOKUP = {
    "schemata": ("SCHEMA_NAME",), "referential_constraints": ("CONSTRAINT_SCHEMA", "TABLE_NAME"),
    "check_constraints": ("CONSTRAINT_SCHEMA", "TABLE_NAME"), "events": ("EVENT_SCHEMA", "EVENT_NAME"),
    **dict.fromkeys(("tables", "columns", "statistics", "views", "table_constraints", "key_column_usage"),
                    ("TABLE_SCHEMA", "TABLE_NAME")),
}


def reads_live(lowered_sql: str) -> bool:
    """Whether a statement (lower-cased) may read a view whose rows the server shell gives."""
    return any(name in lowered_sql for name in LIVE) or _MYSQL_USER.search(lowered_sql) is not None


_SPEC = re.compile(r"(\w+)(?:\(([\d,]+|'.*')\))?(_unsigned)?(\?)?\Z")
_ITEM = re.compile(r"(.+?) (enum\(.*\)\??|\S+)\Z")
_MEMBER = re.compile(r"'(?:[^']|'')*'")


def declared_column(name: str, spec: str) -> Column:
    """A column declared as `spec` ("varchar(64)", "bigint(21)_unsigned?": "?" when nullable;
    "enum('a','b,c')": its members quoted, a member may hold a comma)."""
    match = _SPEC.match(spec)
    assert match is not None, spec
    base, args, unsigned, nullable = match.groups()
    members = _MEMBER.findall(args) if args and args.startswith("'") else args.split(",") if args else []
    return Column(name, base, members, unsigned=bool(unsigned), nullable=bool(nullable))


def declared_columns(text: str) -> list[Column]:
    """Columns declared as "NAME spec, NAME spec, ..." (a name may have spaces: "Time zone"; an
    enum's members are separated by commas without a space)."""
    columns = []
    for item in re.split(r",\s+", text.strip()):
        match = _ITEM.match(item)
        assert match is not None, item
        columns.append(declared_column(*match.groups()))
    return columns


class SchemaView(Table):
    """An information_schema view (or a SHOW listing, which MariaDB builds on one) as MariaDB
    describes its result columns: those of the temporary table it fills, every column without a
    default (NO_DEFAULT_VALUE), a longtext MariaDB's Longtext of 65535 utf8mb3 characters (an
    expression's text, a default's, a generated column's, a CHECK's, 65532: MAX_FIELD_VARCHARLENGTH),
    described in utf8mb4's 4 bytes each."""

    def result_type(self, col: Column) -> ColumnType:
        ct = super().result_type(col)
        if col.base == "longtext":
            chars = 65532 if col.name in ("COLUMN_DEFAULT", "Default", "GENERATION_EXPRESSION", "CHECK_CLAUSE") else 65535
            ct = replace(ct, length=chars * 3 * 4)
        return ct.with_flags(ct.flags | ColumnFlag.NO_DEFAULT_VALUE)


def result_types(columns: list[Column]) -> list[ColumnType]:
    """The result-set descriptions of declared columns (NOT NULL flags included)."""
    shape = SchemaView(NAME, "", columns)
    return [shape.result_type(col) for col in columns]


_DECLARED = {name: declared_columns(text) for name, text in _DECLARED_TEXT.items()}
COLUMNS = {name: [col.name for col in columns] for name, columns in _DECLARED.items()}
_MYSQL_DECLARED = {name: declared_columns(text) for name, text in _MYSQL_DECLARED_TEXT.items()}


def table(name: str) -> Table | None:
    """The declared columns of `information_schema.<name>` (None: no such view)."""
    declared = _DECLARED.get(name.lower())
    if declared is None:
        return None
    return SchemaView(NAME, name.upper(), list(declared))


# the character sets and collations the server speaks (MariaDB 10.11's rows for them)
# (in MariaDB's order: the character sets by their default collation's id, each one's collations
# after it by id)
CHARACTER_SETS = [("latin1", "latin1_swedish_ci", "cp1252 West European", 1), ("ascii", "ascii_general_ci", "US ASCII", 1),
                  ("utf8mb3", "utf8mb3_general_ci", "UTF-8 Unicode", 3), ("utf8mb4", "utf8mb4_general_ci", "UTF-8 Unicode", 4),
                  ("binary", "binary", "Binary pseudo charset", 1)]
COLLATIONS = [("latin1_swedish_ci", "latin1", 8, "Yes", "Yes", 1), ("ascii_general_ci", "ascii", 11, "Yes", "Yes", 1),
              ("utf8mb3_general_ci", "utf8mb3", 33, "Yes", "Yes", 1), ("utf8mb4_general_ci", "utf8mb4", 45, "Yes", "Yes", 1),
              ("utf8mb4_bin", "utf8mb4", 46, "", "Yes", 1), ("utf8mb4_unicode_ci", "utf8mb4", 224, "", "Yes", 8),
              ("binary", "binary", 63, "Yes", "Yes", 1)]


# the engine's AUTO_INCREMENT counter of (schema, table), None where it has none yet
Counter = Callable[[str, str], int | None]


def no_counter(schema: str, table: str) -> int | None:
    return None


class _Sql(str):
    """A cell computed by SQLite when the view is read (a row count), not a literal."""


def register(conn: sqlite3.Connection, counter: Counter = no_counter) -> None:
    """The functions TABLES' computed cells call (on every connection). They read the table on the
    same connection, so in the reader's snapshot, and outside the statement's compiled table
    accesses: listing a table in TABLES needs no SELECT privilege on it, as in MySQL. The next
    AUTO_INCREMENT is the engine's `counter` where it has one (ids of deleted or rolled-back
    rows are not handed out again: InnoDB's counter, as SHOW CREATE TABLE shows it)."""

    counted: dict[tuple[str, str], tuple[tuple[int, int], int]] = {}

    def table_rows(schema: str, table: str) -> int | None:
        """The table's rows (TABLES.TABLE_ROWS, each index column's CARDINALITY): counted, and
        kept until a commit of any connection (SQLite's data_version) or one of this one's own
        writes (total_changes) may have changed them, so that listing a big table's indexes
        again and again counts it once."""
        try:
            version = (conn.execute(f"PRAGMA {quote_ident(schema)}.data_version").fetchone()[0], conn.total_changes)
            known = counted.get((schema, table))
            if known is not None and known[0] == version:
                return known[1]
            rows = conn.execute(f"SELECT count(*) FROM {quote_ident(schema)}.{quote_ident(table)}").fetchone()[0]
        except sqlite3.OperationalError:
            return None  # its file is not attached to this connection (beyond ATTACH_LIMIT databases)
        if len(counted) >= 1024:
            counted.clear()
        counted[(schema, table)] = (version, rows)
        return rows

    def next_auto(schema: str, table: str, column: str, start: int) -> int | None:
        try:
            top = conn.execute(f"SELECT max({quote_ident(column)}) FROM {quote_ident(schema)}.{quote_ident(table)}")
        except sqlite3.OperationalError:
            return None
        return max(int(top.fetchone()[0] or 0) + 1, start, counter(schema, table) or 1)

    def table_bytes(schema: str, table: str, indexes: int) -> int | None:
        """The bytes of the table's own b-tree (`indexes` 0) or of its indexes' (1), in whole
        pages as SQLite's dbstat counts them (None where SQLite is built without it)."""
        try:
            owned = conn.execute(f"SELECT name FROM {quote_ident(schema)}.sqlite_master WHERE tbl_name = ?"
                                 f" AND type {'=' if indexes else '<>'} 'index'", (table,)).fetchall()
            return sum(conn.execute("SELECT coalesce(sum(pgsize), 0) FROM dbstat(?) WHERE name = ?",
                                    (schema, name)).fetchone()[0] for name, in owned)
        except sqlite3.OperationalError:
            return None

    conn.create_function("__is_table_rows", 2, table_rows)
    conn.create_function("__is_next_auto", 4, next_auto)
    conn.create_function("__is_table_bytes", 3, table_bytes)


def _table_row(schema: str, table: Table) -> tuple:
    """TABLES: rows counted exactly when read; the next AUTO_INCREMENT the engine's counter (before
    a statement used it as InnoDB computes it at start-up: MAX + 1, at least the table's
    AUTO_INCREMENT=); the data and index sizes SQLite's
    pages (`table_bytes`), the average row their quotient; times unknown (NULL)."""
    if schema == PERFORMANCE_SCHEMA:
        return _performance_row(table)
    names = f"{sql_literal(schema)}, {sql_literal(table.name)}"
    auto = table.auto_column
    next_id = None
    if auto is not None:
        next_id = _Sql(f"__is_next_auto({names}, {sql_literal(auto.name)}, {int(table.auto_increment_start or 1)})")
    rows, data = f"__is_table_rows({names})", f"__is_table_bytes({names}, 0)"
    return ("def", schema, table.name, "BASE TABLE", "InnoDB", 10, "Dynamic", _Sql(rows),
            _Sql(f"CASE WHEN {rows} > 0 THEN {data} / {rows} ELSE 0 END"), _Sql(data), 0,
            _Sql(f"__is_table_bytes({names}, 1)"), 0, next_id, None, None, None, table.collation, None,
            table.create_options, table.comment or "", 0, "N")


def _performance_row(table: Table) -> tuple:
    """A performance_schema table's row of TABLES as MariaDB's engine gives it: no rows, no
    bytes, no times; its format Fixed unless a column is of variable length."""
    fixed = not any(col.base in _VARIABLE_LENGTH for col in table.columns)
    return ("def", PERFORMANCE_SCHEMA, table.name, "BASE TABLE", "PERFORMANCE_SCHEMA", 10,
            "Fixed" if fixed else "Dynamic", 0, 0, 0, 0, 0, 0, None, None, None, None, table.collation, None, "", "",
            0, "N")


def _view_row(name: str, view) -> tuple:
    """A view's row of TABLES or of VIEWS (`view`: a catalog.View)."""
    if name == "tables":
        row: list[object] = [None] * len(COLUMNS["tables"])
        row[:4] = ["def", view.schema, view.name, "VIEW"]
        row[COLUMNS["tables"].index("TABLE_COMMENT")] = "VIEW"
        return tuple(row)
    is_updatable = "YES" if updatable(view.select, view.algorithm) else "NO"
    return ("def", view.schema, view.name, view.select, "NONE", is_updatable, view.definer.replace("`", ""),
            view.security, "utf8mb4", "utf8mb4_general_ci", view.algorithm)


_LONG_TYPES = frozenset({"longtext", "blob"})


def view_collation(col: Column | None) -> str | None:
    """The collation of one of information_schema's own columns (its text is utf8mb3)."""
    return "utf8mb3_general_ci" if col is not None and col.base in CHAR_TYPES else None


# a character set's longest character in bytes (MariaDB's mbmaxlen), where not 1
_WIDTHS = {"utf8mb4": 4, "utf8mb3": 3, "ucs2": 2, "utf16": 4, "utf16le": 4, "utf32": 4, "big5": 2, "gbk": 2,
           "gb2312": 2, "sjis": 2, "cp932": 2, "euckr": 2, "ujis": 3, "eucjpms": 3}


def column_collation(col: Column) -> tuple[str | None, str | None]:
    """COLUMNS' CHARACTER_SET_NAME and COLLATION_NAME of a table's column (a JSON's utf8mb4_bin);
    SHOW FULL COLUMNS' Collation too."""
    if col.base not in CHAR_TYPES:
        return None, None
    if col.base == "json":
        return "utf8mb4", "utf8mb4_bin"
    return col.charset or "utf8mb4", col.collation_name


def _own_rows(name: str) -> list[tuple]:
    """information_schema's own views, in TABLES ("SYSTEM VIEW": MariaDB builds each as a
    temporary table when it is read, MEMORY or, with a long text column, Aria; their sizes and
    times are those of that table of the moment: not listed here, 0 and NULL) and in COLUMNS
    (utf8mb3 text, read only: privilege "select")."""
    rows: list[tuple] = []
    for view in sorted(_DECLARED):
        columns, shown = _DECLARED[view], view if view == "user_variables" else view.upper()
        if name == "tables":
            aria = any(c.base in _LONG_TYPES for c in columns)
            rows.append(("def", NAME, shown, "SYSTEM VIEW", "Aria" if aria else "MEMORY", 11,
                         "Page" if aria else "Fixed", None, 0, 0, 0, 0, 0, None, None, None, None,
                         "utf8mb3_general_ci", None, None, "", 0, "Y"))
            continue
        described = table(view).describe()
        for n, col in enumerate(columns, 1):
            chars, octets = _char_lengths(col, 3)
            if col.base == "enum":  # MariaDB's for its views' enums: the longest member's bytes, a third of them in characters
                octets = max(len(member) - 2 for member in col.args)
                chars = octets // 3
            collation = view_collation(col)
            rows.append(("def", NAME, shown, col.name, n, None, described[n - 1][2], col.base, chars, octets,
                         *_numeric(col), collation and "utf8mb3", collation, described[n - 1][1], "", "",
                         "select", "", "NEVER", None))
    return rows


def mysql_table(name: str) -> Table | None:
    """The table `mysql.<name>` where the server shell answers it (None: not one)."""
    name = name.lower()
    declared = _MYSQL_DECLARED.get(name)
    if declared is not None:
        return Table(MYSQL, name, list(declared))
    if name not in _MYSQL_CREATE:
        return None
    if name not in _MYSQL_PARSED:
        from engine.ddl import (
            DdlParser,  # the DDL parser reads this module's catalog through translate
        )

        sql = f"CREATE TABLE {name} ({_MYSQL_CREATE[name]}) DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_bin"
        shape, params = extract(sql)
        _MYSQL_PARSED[name] = DdlParser(TokenCursor(tokenize(shape), params, sql), MYSQL, lambda schema, table: None,
                                        {MYSQL}).parse().put[0]
    return _MYSQL_PARSED[name]


def mysql_table_names() -> list[str]:
    """The `mysql` tables the server shell answers."""
    return [*_MYSQL_DECLARED, *_MYSQL_CREATE]


def _compression_rows(name: str) -> list[tuple]:
    """INNODB_CMP's and INNODB_CMPMEM's rows (their _RESET twins' too): MariaDB's one row per
    compressed page size, 1 KiB up to the page size (innodb_page_size), every counter 0, as for
    tables that are never compressed; the per-index views list nothing."""
    from engine.connections import PAGE_SIZE  # (engine.connections imports this module)

    if "per_index" in name:
        return []
    sizes = [1024 << shift for shift in range(PAGE_SIZE.bit_length() - 10)]
    return [(size, 0, 0, 0, 0, 0) for size in sizes]


def _rows(name: str, schemas: Iterable[str], tables: Callable[[str], Iterable[Table]],
          views: Callable[[str], Iterable] = lambda schema: (),
          options: Callable[[str], DatabaseOptions] = lambda schema: DatabaseOptions(),
          triggers: Callable[[str], Iterable] = lambda schema: (),
          routines: Callable[[str], Iterable] = lambda schema: ()) -> list[tuple]:
    rows: list[tuple] = _own_rows(name) if name in ("tables", "columns") else []
    if name == "triggers":  # (`engine.triggers.Trigger`s, in the order MariaDB lists them)
        return [t.schema_row(options(schema).collation) for schema in sorted(schemas) for t in triggers(schema)]
    if name == "routines":  # (`engine.routines.Routine`s)
        return [r.schema_row(options(schema).collation) for schema in sorted(schemas) for r in routines(schema)]
    if name == "parameters":
        return [row for schema in sorted(schemas) for r in routines(schema) for row in r.parameter_rows()]
    if name == "schemata":  # information_schema itself, first, as MariaDB lists it
        rows.append(("def", NAME, "utf8mb3", "utf8mb3_general_ci", None, ""))
    for schema in sorted(schemas):
        if name == "schemata":
            defaults = options(schema)
            rows.append(("def", schema, defaults.charset, defaults.collation, None, defaults.comment))
            continue
        if name in ("tables", "views"):
            rows.extend(_view_row(name, view) for view in sorted(views(schema), key=lambda v: v.name))
        for table in sorted(tables(schema), key=lambda t: t.name):
            if name == "tables":
                rows.append(_table_row(schema, table))
            elif name == "partitions":  # a table of no partitions: one row, its sizes TABLES'
                sizes = _table_row(schema, table)
                rows.append(("def", schema, table.name, *[None] * 9, *sizes[7:10], None, *sizes[11:13],
                             None, None, None, None, "", "", None))
            elif name == "columns":
                described = {r[0]: r for r in table.describe()}
                for n, col in enumerate(table.columns, 1):
                    _, type_text, nullable, key, _default, extra = described[col.name]
                    default = col.now_text() if col.default_now else (
                        col.default_sql() if col.has_default and col.default is not None else
                        "NULL" if table.null_default(col) else None)
                    rows.append(("def", schema, table.name, col.name, n, default, nullable,
                                 "longtext" if col.base == "json" else col.base,
                                 *_char_lengths(col, _WIDTHS.get(col.charset or "utf8mb4", 1)), *_numeric(col),
                                 *column_collation(col),
                                 type_text, key, extra, "select,insert,update,references",
                                 col.comment or "", "NEVER" if col.generated is None else "ALWAYS",
                                 col.generated_printed or None))
            elif name in ("key_column_usage", "table_constraints", "referential_constraints", "check_constraints"):
                rows.extend(_constraint_rows(name, table, tables))
            elif name == "statistics":
                for index in table.indexes:
                    for seq, col_name in enumerate(index.columns, 1):
                        indexed = table.column(col_name)
                        rows.append(("def", schema, table.name, 0 if index.unique else 1, schema,
                                     "PRIMARY" if index.primary else index.name, seq, col_name, "A",
                                     _Sql(f"__is_table_rows({sql_literal(schema)}, {sql_literal(table.name)})"),
                                     None, None, "YES" if indexed is not None and indexed.nullable else "", "BTREE",
                                     "", "", "NO"))
    return rows


_INT_PRECISION = {"tinyint": 3, "smallint": 5, "mediumint": 7, "int": 10, "integer": 10, "bigint": 19}


_BYTES_OF = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295, "json": 4294967295,
             "tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295}
_VARIABLE_LENGTH = frozenset({"varchar", "varbinary", *_BYTES_OF})  # (a TABLES row's ROW_FORMAT)


def _char_lengths(col: Column, width: int = 4) -> tuple[int | None, int | None]:
    """CHARACTER_MAXIMUM_LENGTH and CHARACTER_OCTET_LENGTH as MariaDB gives them (utf8mb4: 4
    bytes a character, `width`, where the length counts characters; a TEXT's and a BLOB's in
    bytes, an ENUM's its longest member, a SET's all members with their commas)."""
    base = col.base
    if base in _BYTES_OF:
        return _BYTES_OF[base], _BYTES_OF[base]
    if base in ("enum", "set"):
        members = [len(a[1:-1].replace("''", "'")) for a in col.args]
        chars = (max(members, default=0) if base == "enum" else sum(members) + max(len(members) - 1, 0))
        return chars, chars * width
    if not (col.args and col.args[0].isdigit()):
        return None, None
    length = int(col.args[0])
    if base in ("binary", "varbinary"):
        return length, length
    return (length, length * width) if base in CHAR_TYPES else (None, None)


def _numeric(col: Column) -> tuple:
    """NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION as MariaDB reports them."""
    args = [int(a) for a in col.args if a.isdigit()]
    if col.base in _INT_PRECISION:
        precision = _INT_PRECISION[col.base]
        return (20 if col.base == "bigint" and col.unsigned else precision), 0, None
    if col.base == "bit":
        return (args[0] if args else 1), None, None
    if col.base in NUMERIC_TYPES:
        return (args[0] if args else 10), (args[1] if len(args) > 1 else 0), None
    if col.base == "float":
        return (args[0] if args else 12), (args[1] if len(args) > 1 else None), None
    if col.base in ("double", "real"):
        width = col.width if isinstance(col, ViewColumn) and col.width is not None else 22
        return (args[0] if args else width), (args[1] if len(args) > 1 else None), None
    if col.base in ("datetime", "timestamp", "time"):
        return None, None, (args[0] if args else 0)
    return None, None, None


def _constraint_rows(name: str, table: Table, tables: Callable[[str], Iterable[Table]]) -> list[tuple]:
    """PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK constraints of one table, in MariaDB's columns."""
    schema, rows = table.schema, list[tuple]()
    if name == "check_constraints":
        return [("def", schema, table.name, c.name, "Table" if c.column is None else "Column", c.shown)
                for c in table.checks]
    for index in table.indexes:
        if not index.unique:
            continue
        kind = "PRIMARY KEY" if index.primary else "UNIQUE"
        cname = "PRIMARY" if index.primary else index.name
        if name == "table_constraints":
            rows.append(("def", schema, cname, schema, table.name, kind))
        elif name == "key_column_usage":
            rows.extend(("def", schema, cname, "def", schema, table.name, col, n, None, None, None, None)
                        for n, col in enumerate(index.columns, 1))
    if name == "table_constraints":
        rows.extend(("def", schema, c.name, schema, table.name, "CHECK") for c in table.checks)
    for fk in table.foreign_keys:
        if name == "table_constraints":
            rows.append(("def", schema, fk.name, schema, table.name, "FOREIGN KEY"))
        elif name == "key_column_usage":
            rows.extend(("def", schema, fk.name, "def", schema, table.name, col, n, n, fk.ref_schema, fk.ref_table,
                         ref) for n, (col, ref) in enumerate(zip(fk.columns, fk.ref_columns, strict=True), 1))
        else:
            parent = next((t for t in tables(fk.ref_schema) if t.name.lower() == fk.ref_table.lower()), None)
            wanted = [c.lower() for c in fk.ref_columns]
            # the parent's index the key uses (InnoDB: the first whose leading columns they are)
            unique = None if parent is None else next(
                (i for i in parent.indexes if [c.lower() for c in i.columns[:len(wanted)]] == wanted), None)
            rows.append(("def", schema, fk.name, "def", fk.ref_schema,
                         None if unique is None else ("PRIMARY" if unique.primary else unique.name),
                         "NONE", fk.on_update, fk.on_delete, table.name, fk.ref_table))
    return rows


# MariaDB's views not answered here: a read is 1235, never rows that would be wrong
UNANSWERED = frozenset({"system_variables"})


def subquery(name: str, schemas: Iterable[str], tables: Callable[[str], Iterable[Table]],
             live_rows: Callable[[str], list[tuple]] | None = None,
             views: Callable[[str], Iterable] = lambda schema: (),
             options: Callable[[str], DatabaseOptions] = lambda schema: DatabaseOptions(),
             triggers: Callable[[str], Iterable] = lambda schema: (),
             routines: Callable[[str], Iterable] = lambda schema: ()) -> str | None:
    """SQLite SQL for `information_schema.<name>` (None: no such view). `live_rows(name)`: the rows
    a LIVE view shows the asking session (none when the engine runs without a server shell)."""
    columns = COLUMNS.get(name.lower())
    if columns is None:
        return None
    name = name.lower()
    if name in LIVE:
        rows = live_rows(name) if live_rows is not None else []
    elif name in ("character_sets", "collations"):
        rows = list(CHARACTER_SETS if name == "character_sets" else COLLATIONS)
    elif name == "collation_character_set_applicability":
        rows = [(collation, charset, collation, number, default) for collation, charset, number, default, _, _ in COLLATIONS]
    elif name == "engines":
        rows = [ENGINE_ROW]
    elif name == "enabled_roles":  # no role exists here: the session's none, as MariaDB lists it
        rows = [(None,)]
    elif name.startswith("innodb_cmp"):
        rows = _compression_rows(name)
    elif name == "innodb_metrics":
        rows = innodb_metrics.rows()
    else:
        rows = _rows(name, schemas, tables, views, options, triggers, routines)
    if name in _NOCASE:
        collations = [" COLLATE NOCASE"] * len(columns)
    else:
        lookup = _LOOKUP.get(name, ())
        collations = [f" COLLATE {GENERAL_CI}" if col.base in CHAR_TYPES and col.name not in lookup else ""
                      for col in _DECLARED[name]]
    return _values(columns, rows, collations)


def mysql_subquery(name: str, live_rows: Callable[[str], list[tuple]] | None) -> str | None:
    """SQLite SQL for `mysql.<name>` where the server shell answers it (None: not one of those)."""
    shape = mysql_table(name)
    if shape is None:
        return None
    columns = [col.name for col in shape.columns]
    return values_sql(columns, live_rows(name.lower()) if live_rows is not None else [])


def values_sql(columns: list[str], rows: list[tuple]) -> str:
    """A subquery of `rows` under `columns`' names (none: the names over no rows), compared as
    SQLite compares them (`engine.perfschema`'s tables)."""
    return _values(columns, rows, [""] * len(columns))


def _values(columns: list[str], rows: list[tuple], collations: list[str]) -> str:
    """The rows as a subquery of VALUES, each column named and given its COLLATE clause."""
    names = ", ".join(f"column{n}{collate} AS {quote_ident(c)}"
                      for n, (c, collate) in enumerate(zip(columns, collations, strict=True), 1))
    if not rows:
        return "(SELECT " + ", ".join(f"NULL AS {quote_ident(c)}" for c in columns) + " WHERE 0)"
    values = ", ".join("(" + ", ".join(v if isinstance(v, _Sql) else sql_literal(v) for v in row) + ")"
                       for row in rows)
    return f"(SELECT {names} FROM (VALUES {values}))"

