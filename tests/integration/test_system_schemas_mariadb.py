"""The system databases as MariaDB 10.11 names them (engine/system_schemas.py): `mysql` and
`performance_schema` are databases for USE, SHOW [FULL] TABLES FROM, DESCRIBE / SHOW [FULL]
COLUMNS of the tables answered here, SHOW CREATE DATABASE and CREATE DATABASE (1007), their
names as written (MYSQL is 1049); SHOW DATABASES and information_schema.SCHEMATA list
performance_schema. Writes to their tables and DDL in them are 1235 (they were 1146, 1049, 1008
or an engine error naming its catalog table). Compared with a stock MariaDB statement by statement; the listings of tables
MariaDB has and we do not are compared over the ones we answer. `mariadb-dump --all-databases`
of ours still dumps only the databases made here."""

from __future__ import annotations

import subprocess

import pymysql
import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
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
