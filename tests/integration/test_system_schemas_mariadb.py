"""The system databases as MariaDB 10.11 names them (engine/system_schemas.py): `mysql` and
`performance_schema` are databases for USE, SHOW [FULL] TABLES FROM, DESCRIBE / SHOW [FULL]
COLUMNS of the tables answered here, SHOW CREATE DATABASE and CREATE DATABASE (1007), their
names as written (MYSQL is 1049); SHOW DATABASES and information_schema.SCHEMATA list
performance_schema. Writes to their tables and DDL in them are 1235 (they were 1146, 1049, 1008
or an engine error naming its catalog table). Compared with a stock MariaDB statement by statement; the listings of tables
MariaDB has and we do not are compared over the ones we answer. `mariadb-dump --all-databases`
of ours still dumps only the databases made here. An account holding SHOW DATABASES alone sees
every database in SHOW DATABASES and information_schema.SCHEMATA, and SHOW TABLES FROM any of
them answers (was 1044)."""

from __future__ import annotations

import subprocess

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer,
    answer_differences,
    both_answer,
    mariadb_and_ours,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

OURS = {"columns_priv", "db", "global_priv", "procs_priv", "proxies_priv", "roles_mapping", "tables_priv", "user"}
QUERIES = [
    "SHOW DATABASES LIKE 'perf%'",
    "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA"
    " WHERE SCHEMA_NAME IN ('information_schema', 'performance_schema', 'd') ORDER BY 1",
    "SHOW CREATE DATABASE mysql", "SHOW CREATE DATABASE performance_schema",
    "CREATE DATABASE mysql", "CREATE DATABASE IF NOT EXISTS performance_schema",
    "SHOW TABLES FROM performance_schema LIKE 'events_waits%'", "SHOW TABLES FROM MYSQL",
    "DESCRIBE mysql.user", "DESCRIBE mysql.db", "SHOW COLUMNS FROM mysql.tables_priv",
    "SHOW FULL COLUMNS FROM mysql.roles_mapping", "DESCRIBE mysql.nosuch", "DESCRIBE performance_schema.accounts",
    "SHOW CREATE TABLE mysql.nosuch",
    "USE mysql", "SELECT COUNT(*) > 0, MAX(User) FROM user WHERE User = 'root'", "SELECT COUNT(*) FROM db",
    "SHOW TABLES LIKE 'proxies%'", "SELECT DATABASE()", "SELECT * FROM mysql.nosuch",
    "USE performance_schema", "SELECT COUNT(*) FROM threads WHERE 0", "USE MYSQL",
]

# what MariaDB does to its own system tables (and refuses on performance_schema's: 1142): out of
# reach here, where their rows are the server shell's (1235, not 1146 for a table SELECT reads)
CHANGES = [
    "INSERT INTO mysql.db (Host, Db, User) VALUES ('h', 'd', 'u')", "UPDATE mysql.tables_priv SET Grantor = ''",
    "DELETE FROM mysql.user", "DROP TABLE mysql.db", "CREATE TABLE mysql.t (a INT)", "ALTER TABLE mysql.db ADD c INT",
    "TRUNCATE TABLE performance_schema.accounts", "CREATE VIEW mysql.v AS SELECT 1", "DROP DATABASE mysql",
]


def _code(server, sql: str) -> int | None:
    try:
        server.query(sql)
    except pymysql.MySQLError as exc:
        return exc.args[0]
    return None


def test_system_databases_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (mariadb, ours):
        theirs, mine = both_answer(mariadb, ours, ["CREATE DATABASE d"], QUERIES)
        shown = ours.query("SHOW DATABASES")
        tables = [server.query("SHOW FULL TABLES FROM mysql") for server in (mariadb, ours)]
        tables[0] = [row for row in tables[0] if row[0] in OURS]
        refused = [(sql, _code(ours, sql)) for sql in CHANGES]
        dumped = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{ours.port}", "-uroot", "--all-databases"],
                                capture_output=True, text=True, timeout=120)
    assert answer_differences(theirs, mine) == ""
    assert tables[0] == tables[1] and len(tables[1]) == len(OURS), tables
    assert ("performance_schema",) in shown and ("mysql",) not in shown
    assert dumped.returncode == 0, dumped.stderr
    assert refused == [(sql, 1235) for sql in CHANGES]
    assert [line for line in dumped.stdout.splitlines() if line.startswith("USE ")] == ["USE `d`;"]


# performance_schema in information_schema's listings and SHOW TABLE STATUS as MariaDB lists it
# (every table, its engine, format and collation; every column but its comment, which MariaDB's
# engine writes and is not kept here), with its columns' character sets and defaults. Not its
# status tables' TABLE_ROWS, MariaDB's estimate (256) of rows it has and this one has not; rows
# compared in any order (MariaDB orders TABLE_NAME by utf8mb3_general_ci: hosts before host_cache)
LISTINGS = [
    "SELECT TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, VERSION, ROW_FORMAT, AVG_ROW_LENGTH,"
    " DATA_LENGTH, MAX_DATA_LENGTH, INDEX_LENGTH, DATA_FREE, AUTO_INCREMENT, CREATE_TIME, UPDATE_TIME, CHECK_TIME,"
    " TABLE_COLLATION, CHECKSUM, CREATE_OPTIONS, TABLE_COMMENT, MAX_INDEX_LENGTH, TEMPORARY"
    " FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'performance_schema'",
    "SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, COLUMN_DEFAULT, IS_NULLABLE, DATA_TYPE,"
    " CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION,"
    " CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_TYPE, COLUMN_KEY, EXTRA, PRIVILEGES, IS_GENERATED"
    " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'performance_schema'",
    "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'performance_schema'",
    "SHOW TABLE STATUS FROM performance_schema LIKE 'session%attrs'",
    "SHOW TABLE STATUS FROM performance_schema LIKE 'setup_ob%'",
    "SHOW TABLE STATUS FROM performance_schema WHERE Name = 'accounts'",
    "DESCRIBE performance_schema.setup_objects", "SHOW COLUMNS FROM performance_schema.host_cache LIKE '%SEEN'",
    "SELECT COLUMN_NAME, COLLATION_NAME FROM information_schema.COLUMNS"
    " WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'session_connect_attrs'",
]
# what an account of no privileges sees of it (MariaDB: the tables any account may read, in
# TABLES only; here none), and one with SELECT on it (every table and column)
ACCOUNTS = {"u": [], "v": ["GRANT SELECT ON performance_schema.* TO v@'%'"]}
UNPRIVILEGED = [
    "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'performance_schema'",
    "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'performance_schema'",
]


def _unordered(answers: list[tuple]) -> list[tuple]:
    return [(sql, "rows", sorted(got[1], key=repr)) if got[0] == "rows" else (sql, *got) for sql, got in answers]


def _accounts_answers(server, accounts: dict[str, list[str]], statements: list[str]) -> list[tuple]:
    """Each of `accounts` made on `server` with its grants, then ("user: statement", `answer`) of
    each statement on the account's connection."""
    out = []
    for user, grants in accounts.items():
        for sql in [f"CREATE USER {user}@'%' IDENTIFIED BY 'p'", *grants]:
            server.query(sql)
        conn = server.connect(user=user, password="p")
        try:
            out.extend((f"{user}: {sql}", answer(conn, sql)) for sql in statements)
        finally:
            conn.close()
    return out


def test_performance_schema_listed_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (mariadb, ours):
        theirs, mine = both_answer(mariadb, ours, ["CREATE DATABASE d"], LISTINGS)
        seen = [[got for _, got in _accounts_answers(server, ACCOUNTS, UNPRIVILEGED)] for server in (mariadb, ours)]
    assert answer_differences(_unordered(theirs), _unordered(mine)) == ""
    assert len(mine[0][1][1]) == 81 and len(mine[1][1][1]) == 1174, mine[:2]
    assert seen[1][0] == ("rows", ()) or seen[1][0] == seen[0][0], seen
    assert seen[1][1:] == seen[0][1:] and seen[1][3] == ("rows", ((1174,),)), seen


# the databases an account of SHOW DATABASES alone sees, beside one of no privilege: every
# database listed (information_schema.SCHEMATA too), SHOW [FULL] TABLES / TABLE STATUS FROM one of
# them answered with the tables it may see (none), an unknown one 1049, where the other has 1044;
# `mysql` and `sys`, which are not listed here, left out of the comparison
LISTERS = {"s": ["GRANT SHOW DATABASES ON *.* TO s@'%'"], "u": []}
LISTED = ["SHOW DATABASES", "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1",
          "SHOW TABLES FROM d", "SHOW FULL TABLES FROM d LIKE 't%'", "SHOW TABLE STATUS FROM d",
          "SHOW TABLES FROM nosuch", "USE d", "SHOW CREATE DATABASE d"]
UNLISTED = {("mysql",), ("sys",)}


def test_databases_an_account_of_show_databases_sees_as_mariadb(tmp_path):
    seen = []
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as servers:
        for server in servers:
            for sql in ["CREATE DATABASE d", "CREATE TABLE d.t (a INT)"]:
                server.query(sql)
            seen.append([(asked, ("rows", tuple(row for row in got[1] if row not in UNLISTED)) if got[0] == "rows"
                          else got) for asked, got in _accounts_answers(server, LISTERS, LISTED)])
    assert answer_differences(*seen) == ""
    assert ("s: SHOW TABLES FROM d", ("rows", ())) in seen[0] and ("s: SHOW DATABASES", ("rows", (
        ("d",), ("information_schema",), ("performance_schema",)))) in seen[0], seen[0]
