"""SET of system variables as MariaDB 10.11 answers it: each statement runs on a stock MariaDB and
on our master over one connection; its answer, the warning count of its OK / EOF packet and
SHOW WARNINGS are compared, and the values read back (SELECT @@, SHOW VARIABLES).

A numeric value out of its variable's range, or off its block size, is clamped with warning 1292
naming the value given (1231 instead under STRICT_ALL_TABLES, not under STRICT_TRANS_TABLES); a
number past 64 bits is first read as the nearest signed 64-bit integer with 1916; a DOUBLE's value
quoted as MariaDB prints it; a string to a numeric variable is 1232, and so is a DECIMAL or DOUBLE
to a string or enum one (SET timestamp: a DOUBLE in [0, 2^31-1]); a boolean takes 0, 1, TRUE,
FALSE and the strings ON and OFF only ('1', 'true': 1231); a deprecated variable's SET warns
1287 (big_tables, storage_engine) before its value is checked; max_allowed_packet below
net_buffer_length adds 1708, and their session values are read only (1621). A SET of several
variables changes none when one of them is refused; its warnings come in the assignments' order,
an expression's (1/0: 1365) among them; SET STATEMENT's warnings come before its statement's.

Left out, where the two still differ: variables MariaDB does not have (transaction_isolation,
max_execution_time, rpl_semi_sync_master_wait_for_slave_count, connection_control_*), and the
DEFAULTs this server chooses otherwise (sync_binlog 1: every commit fsynced), SHOW WARNINGS after
SET STATEMENT refused a variable (MariaDB lists its error twice), a SET of several variables
of which a plugin's refuses its value (the plugin checks it as it takes it, after those before),
a DECIMAL quotient given to a DOUBLE variable (SET long_query_time = 1/3: 1232 here, the engine's
quotient having 4 decimals where MariaDB's has 9), pseudo_slave_mode's 1231 warning "change was
ineffective", and div_precision_increment other than 4 (1235 here: the engine divides with 4).

The buffer, cache and thread sizes a my.cnf carries (sort_buffer_size, join_buffer_size,
tmp_table_size, max_heap_table_size, binlog_cache_size, thread_cache_size, table_open_cache,
key_buffer_size, query_cache_*, innodb_io_capacity ...): MariaDB's values, ranges, block sizes,
scopes and read-only ones (1238), SET key_buffer_size = 0 refused (1438); expire_logs_days and
binlog_expire_logs_seconds, one setting in two units; SET STATEMENT long_query_time, which times
its own statement (Slow_queries)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours, warned_answers

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

TIMEOUTS = [
    "SET SESSION wait_timeout = 0",
    "SELECT @@wait_timeout, @@session.wait_timeout",
    "SHOW SESSION VARIABLES LIKE 'wait_timeout'",
    "SET wait_timeout = 99999999999",
    "SELECT @@wait_timeout",
    "SET wait_timeout = 18446744073709551615",
    "SET wait_timeout = 18446744073709551616",
    "SET wait_timeout = -9223372036854775809",
    "SET wait_timeout = 0 + 0",
    "SET wait_timeout = '100'",
    "SET wait_timeout = 100.0",
    "SET wait_timeout = NULL",
    "SET wait_timeout = DEFAULT",
    "SELECT @@wait_timeout",
    "SET GLOBAL interactive_timeout = -1",
    "SET GLOBAL net_read_timeout = 1000000000000",
    "SET GLOBAL net_write_timeout = 0",
    "SET GLOBAL connect_timeout = 1",
    "SET GLOBAL slave_net_timeout = 0",
    "SET GLOBAL lock_wait_timeout = -1",
    "SET GLOBAL innodb_lock_wait_timeout = 2000000000",
    "SELECT @@global.interactive_timeout, @@global.net_read_timeout, @@global.net_write_timeout,"
    " @@global.connect_timeout, @@global.slave_net_timeout, @@global.lock_wait_timeout,"
    " @@global.innodb_lock_wait_timeout",
    "SHOW GLOBAL VARIABLES LIKE 'net_read_timeout'",
]

COUNTS = [
    "SET GLOBAL max_connections = 0",
    "SELECT @@global.max_connections",
    "SET GLOBAL max_connections = 99999999999999999999",
    "SELECT @@global.max_connections",
    "SET GLOBAL max_connections = DEFAULT",
    "SET GLOBAL max_connect_errors = 0",
    "SET GLOBAL max_prepared_stmt_count = -1",
    "SET GLOBAL max_delayed_threads = 20000",
    "SET GLOBAL group_concat_max_len = 3",
    "SET GLOBAL group_concat_max_len = 5000000000",
    "SELECT @@global.group_concat_max_len",
    "SET auto_increment_increment = 0, auto_increment_offset = 70000",
    "SELECT @@auto_increment_increment, @@auto_increment_offset",
    "SET GLOBAL server_id = 0",
    "SET GLOBAL server_id = 1",
    "SET insert_id = -1",
    "SET pseudo_thread_id = -1",
    "SET GLOBAL sql_select_limit = 99999999999999999999",
    "SELECT @@global.sql_select_limit",
    "SET GLOBAL sql_select_limit = DEFAULT",
    "SET GLOBAL max_binlog_size = 4095",
    "SET GLOBAL max_binlog_size = 2000000000",
    "SET GLOBAL max_binlog_size = 1000000",
    "SELECT @@global.max_binlog_size",
    "SET GLOBAL sync_binlog = 5000000000",
    "SELECT @@global.sync_binlog",
    "SET GLOBAL sync_binlog = -1",
    "SELECT @@global.sync_binlog",
]

SIZES = [
    "SET GLOBAL max_allowed_packet = 1025",
    "SELECT @@global.max_allowed_packet",
    "SET GLOBAL max_allowed_packet = 1073741825",
    "SELECT @@global.max_allowed_packet",
    "SET GLOBAL max_allowed_packet = 16000",
    "SET GLOBAL max_allowed_packet = 16384",
    "SET GLOBAL max_allowed_packet = 8192",
    "SET GLOBAL net_buffer_length = 16384",
    "SET GLOBAL max_allowed_packet = 1048576",
    "SET GLOBAL net_buffer_length = 5000",
    "SELECT @@global.net_buffer_length",
    "SET GLOBAL net_buffer_length = 2097152",
    "SHOW GLOBAL VARIABLES LIKE 'net_buffer_length'",
    "SET GLOBAL max_allowed_packet = '2048'",
    "SET SESSION max_allowed_packet = 2048",
    "SET net_buffer_length = 2048",
    "SET GLOBAL max_allowed_packet = DEFAULT",
    "SET GLOBAL net_buffer_length = DEFAULT",
    "SELECT @@global.max_allowed_packet, @@global.net_buffer_length",
]

DOUBLES = [
    "SET long_query_time = -1",
    "SET @@session.long_query_time = -5",
    "SET long_query_time = 1.5e30",
    "SET long_query_time = 99999999999999999999",
    "SET long_query_time = -1e15",
    "SET long_query_time = -123456789012345678",
    "SET long_query_time = -1.5e-7",
    "SET long_query_time = -1.23456789012345678",
    "SET long_query_time = 31536000.5",
    "SELECT @@long_query_time",
    "SET long_query_time = 0.000001",
    "SELECT @@long_query_time",
    "SET long_query_time = DEFAULT",
    "SET SESSION max_statement_time = -0.5",
    "SELECT @@max_statement_time",
    "SET GLOBAL max_statement_time = 99999999999999999999",
    "SELECT @@global.max_statement_time",
    "SET GLOBAL max_statement_time = DEFAULT",
]

STRICTNESS = [
    "SET sql_mode = 'STRICT_TRANS_TABLES'",
    "SET wait_timeout = 0",
    "SET sql_mode = 'STRICT_ALL_TABLES'",
    "SET wait_timeout = 0",
    "SELECT @@wait_timeout",
    "SET GLOBAL max_connections = 1",
    "SET sql_mode = 'TRADITIONAL'",
    "SET wait_timeout = 99999999999999999999",
    "SET long_query_time = -1",
    "SET GLOBAL net_buffer_length = 1025",
    "SET wait_timeout = 28800",
    "SET sql_mode = DEFAULT",
]

SEVERAL = [
    "SET auto_increment_increment = 5, wait_timeout = 'x'",
    "SELECT @@auto_increment_increment",
    "SET auto_increment_increment = 5, sql_mode = 'NOPE'",
    "SELECT @@auto_increment_increment",
    "SET auto_increment_increment = 7, wait_timeout = 0, max_connections = 3",
    "SELECT @@auto_increment_increment, @@wait_timeout",
    "SET wait_timeout = 0, no_such_variable = 1",
    "SELECT @@wait_timeout",
    "SET wait_timeout = 0, @u = 1/0",
    "SET @v = 1/0, wait_timeout = 0",
    "SET sql_select_limit = 5, auto_increment_increment = 0",
    "SELECT @@sql_select_limit, @@auto_increment_increment, @@wait_timeout",
    "SET autocommit = ON, sql_safe_updates = 'on'",
    "SELECT @@autocommit, @@sql_safe_updates",
    "SET autocommit = 0.5",
    "SET autocommit = 'yes', sql_safe_updates = 0",
    "SELECT @@sql_safe_updates",
    "SET sql_safe_updates = DEFAULT, sql_select_limit = DEFAULT, auto_increment_increment = DEFAULT",
    "SET wait_timeout = @@global.connect_timeout",
    "SELECT @@wait_timeout",
    "SET GLOBAL wait_timeout = @@session.wait_timeout",
    "SELECT @@global.wait_timeout",
]

STATEMENT_FOR = [
    "SET STATEMENT auto_increment_increment = 0 FOR SELECT 1",
    "SHOW WARNINGS",
    "SELECT @@warning_count",
    "SET STATEMENT auto_increment_increment = 0 FOR SELECT 1/0",
    "SET STATEMENT auto_increment_increment = 0 FOR SET @a = 1",
    "SET STATEMENT auto_increment_increment = 0 FOR CREATE TABLE t (a INT)",
    "SET STATEMENT auto_increment_increment = 70000 FOR INSERT INTO t VALUES (1)",
    "SELECT @@auto_increment_increment",
    "SELECT * FROM t",
    "SET STATEMENT auto_increment_increment = 'x' FOR SELECT 1",
    "SET STATEMENT max_statement_time = -1 FOR SELECT 2",
    "SET STATEMENT long_query_time = 5 FOR SELECT @@long_query_time",
    "SELECT @@long_query_time",
    "SET STATEMENT long_query_time = -1 FOR SELECT 3",
    "SHOW SESSION STATUS LIKE 'Slow_queries'",
    "SET STATEMENT long_query_time = 0 FOR SELECT 4",
    "SHOW SESSION STATUS LIKE 'Slow_queries'",
    "SELECT 5",
    "SHOW SESSION STATUS LIKE 'Slow_queries'",
    "SET STATEMENT sort_buffer_size = 100000, div_precision_increment = 4 FOR SELECT @@sort_buffer_size",
]

TUNING = [
    "SELECT @@sort_buffer_size, @@join_buffer_size, @@read_buffer_size, @@read_rnd_buffer_size",
    "SELECT @@tmp_table_size, @@max_heap_table_size, @@bulk_insert_buffer_size, @@max_sort_length",
    "SELECT @@global.binlog_cache_size, @@global.binlog_stmt_cache_size, @@global.max_binlog_cache_size",
    "SELECT @@global.max_binlog_stmt_cache_size, @@global.table_open_cache, @@global.table_definition_cache",
    "SELECT @@global.key_buffer_size, @@global.key_cache_block_size, @@global.query_cache_size",
    "SELECT @@query_cache_type, @@global.query_cache_limit, @@global.query_cache_min_res_unit",
    "SELECT @@concurrent_insert, @@delay_key_write, @@low_priority_updates, @@innodb_strict_mode",
    "SELECT @@innodb_io_capacity, @@innodb_io_capacity_max, @@innodb_read_io_threads, @@innodb_purge_threads",
    "SELECT @@innodb_max_dirty_pages_pct, @@innodb_adaptive_hash_index, @@innodb_doublewrite",
    "SELECT @@thread_stack, @@innodb_log_buffer_size, @@innodb_flush_method, @@div_precision_increment",
    "SHOW VARIABLES LIKE 'sort_buffer_size'",
    "SHOW GLOBAL VARIABLES LIKE 'query_cache%'",
    "SHOW GLOBAL VARIABLES LIKE 'innodb_max_dirty_pages_pct'",
    "SET sort_buffer_size = 1",
    "SELECT @@sort_buffer_size, @@global.sort_buffer_size",
    "SET GLOBAL sort_buffer_size = 3000000",
    "SELECT @@sort_buffer_size, @@global.sort_buffer_size",
    "SET GLOBAL sort_buffer_size = DEFAULT",
    "SET sort_buffer_size = DEFAULT",
    "SET join_buffer_size = 1000",
    "SET read_buffer_size = 9000",
    "SET tmp_table_size = 20000",
    "SET max_heap_table_size = 20000",
    "SELECT @@join_buffer_size, @@read_buffer_size, @@tmp_table_size, @@max_heap_table_size",
    "SET sort_buffer_size = '100000'",
    "SET sort_buffer_size = 1.5",
    "SET SESSION thread_cache_size = 10",
    "SET GLOBAL thread_cache_size = 20000",
    "SET GLOBAL thread_cache_size = DEFAULT",
    "SELECT @@global.thread_cache_size",
    "SET GLOBAL binlog_cache_size = 5000",
    "SET GLOBAL max_binlog_cache_size = 18446744073709551615",
    "SELECT @@global.binlog_cache_size, @@global.max_binlog_cache_size",
    "SET GLOBAL table_open_cache = 5",
    "SET GLOBAL key_buffer_size = 0",
    "SET GLOBAL key_buffer_size = 100",
    "SET GLOBAL key_buffer_size = 5000",
    "SELECT @@global.key_buffer_size",
    "SET GLOBAL query_cache_type = 'DEMAND'",
    "SET GLOBAL query_cache_type = 'xx'",
    "SET GLOBAL query_cache_size = 1000",
    "SELECT @@global.query_cache_type, @@global.query_cache_size",
    "SET GLOBAL innodb_max_dirty_pages_pct = 100",
    "SELECT @@innodb_max_dirty_pages_pct",
    "SET GLOBAL innodb_io_capacity = 50",
    "SET GLOBAL thread_stack = 1",
    "SET GLOBAL innodb_log_buffer_size = 1",
    "SET GLOBAL innodb_doublewrite = 0",
    "SET div_precision_increment = 4",
    "SET div_precision_increment = DEFAULT",
]

EXPIRY = [
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
    "SET GLOBAL expire_logs_days = 1",
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
    "SET GLOBAL binlog_expire_logs_seconds = 3600",
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
    "SHOW GLOBAL VARIABLES LIKE '%expire_logs%'",
    "SET GLOBAL expire_logs_days = 1.5",
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
    "SET GLOBAL expire_logs_days = 100",
    "SET GLOBAL binlog_expire_logs_seconds = 8553601",
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
    "SET GLOBAL expire_logs_days = 'x'",
    "SET expire_logs_days = 1",
    "SET SESSION binlog_expire_logs_seconds = 1",
    "SET GLOBAL expire_logs_days = DEFAULT",
    "SELECT @@global.expire_logs_days, @@global.binlog_expire_logs_seconds",
]

SEMISYNC = [
    "SET GLOBAL rpl_semi_sync_master_timeout = -1",
    "SELECT @@global.rpl_semi_sync_master_timeout",
    "SET GLOBAL rpl_semi_sync_master_timeout = 99999999999999999999",
    "SELECT @@global.rpl_semi_sync_master_timeout",
    "SET GLOBAL rpl_semi_sync_master_timeout = NULL",
    "SET GLOBAL rpl_semi_sync_master_timeout = 'abc'",
    "SET GLOBAL rpl_semi_sync_master_timeout = 1.5",
    "SET GLOBAL rpl_semi_sync_master_timeout = 2000, rpl_semi_sync_master_trace_level = 'x'",
    "SELECT @@global.rpl_semi_sync_master_timeout",
    "SET GLOBAL rpl_semi_sync_master_timeout = DEFAULT",
    "SELECT @@global.rpl_semi_sync_master_timeout",
    "SET GLOBAL rpl_semi_sync_master_trace_level = -5",
    "SELECT @@global.rpl_semi_sync_master_trace_level",
    "SET GLOBAL rpl_semi_sync_master_trace_level = DEFAULT",
    "SET sql_mode = 'STRICT_ALL_TABLES'",
    "SET GLOBAL rpl_semi_sync_master_timeout = -1",
    "SET sql_mode = DEFAULT",
    "SHOW GLOBAL VARIABLES LIKE 'rpl_semi_sync_master_timeout'",
]

TYPES = [
    "SET timestamp = -1",
    "SELECT @@timestamp > 1000000000",
    "SET timestamp = 5000000000",
    "SELECT @@timestamp",
    "SET timestamp = '5'",
    "SET timestamp = NULL",
    "SET timestamp = 'abc'",
    "SET timestamp = 1.5",
    "SELECT @@timestamp",
    "SET timestamp = DEFAULT",
    "SELECT @@timestamp > 1000000000",
    "SET timestamp = 12345",
    "SET timestamp = 0",
    "SELECT @@timestamp > 1000000000",
    "SET completion_type = 1.5",
    "SET sql_mode = 1.5",
    "SET GLOBAL log_output = 1.5",
    "SET lc_time_names = 1.5",
    "SET character_set_client = 1.5",
    "SET time_zone = 1.5",
    "SET sql_safe_updates = 1.5",
]

BOOLEANS = [
    "SET sql_safe_updates = TRUE",
    "SET sql_safe_updates = FALSE",
    "SET sql_safe_updates = 'OFF'",
    "SET sql_safe_updates = 2",
    "SET sql_safe_updates = -1",
    "SET sql_safe_updates = NULL",
    "SET sql_safe_updates = '1'",
    "SET sql_safe_updates = 'true'",
    "SET sql_safe_updates = 1e0",
    "SET sql_safe_updates = 1 + 0",
    "SET sql_safe_updates = ON",
    "SELECT @@sql_safe_updates",
    "SET sql_safe_updates = DEFAULT",
    "SET GLOBAL local_infile = OFF",
    "SELECT @@global.local_infile",
    "SET GLOBAL local_infile = DEFAULT",
    "SET foreign_key_checks = 'yes'",
    "SET unique_checks = 3",
    "SET sql_quote_show_create = 0.0",
    "SET big_tables = 0",
    "SET big_tables = 0.0",
    "SET SESSION storage_engine = 'InnoDB'",
    "SELECT @@big_tables, @@storage_engine",
    "SET sql_notes = ''",
    "SET sql_log_bin = 2",
    "SET check_constraint_checks = 'ON '",
    "SET @@session.sql_auto_is_null = 'On'",
    "SELECT @@sql_auto_is_null",
    "SET sql_auto_is_null = DEFAULT",
    "SET GLOBAL read_only = 2",
    "SET GLOBAL require_secure_transport = 'x'",
    "SET autocommit = -1",
    "SET autocommit = '0'",
    "SELECT @@autocommit",
    "SET autocommit = 1",
]

FAMILIES = {"timeouts": TIMEOUTS, "counts": COUNTS, "sizes": SIZES, "doubles": DOUBLES,
            "strictness": STRICTNESS, "several": SEVERAL, "statement_for": STATEMENT_FOR,
            "semisync": SEMISYNC, "types": TYPES, "booleans": BOOLEANS, "tuning": TUNING, "expiry": EXPIRY}


@pytest.mark.parametrize("family", FAMILIES)
def test_set_answers_and_warnings_as_mariadb(tmp_path, family):
    with mariadb_and_ours(tmp_path) as (reference, ours):
        found = []
        for server in (reference, ours):
            server.query("CREATE DATABASE d")
            # SHOW WARNINGS after a statement that warned or failed: one with no warnings that
            # reads no table leaves MariaDB's list as it was
            found.append(warned_answers(server, FAMILIES[family], lambda sql, count: count != 0))
    theirs, mine = found
    differ = [(t, m) for t, m in zip(theirs, mine, strict=True) if t != m]
    assert not differ, "\n".join(f"MariaDB {t}\nours    {m}" for t, m in differ)
