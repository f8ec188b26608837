"""The system databases the engine answers beside the ones made here: `mysql` (the grant tables
the server shell answers, `infoschema.mysql_table`; `user` a VIEW, as MariaDB's over global_priv)
and `performance_schema` (its tables, every one empty: `perfschema`). They exist as MariaDB
10.11's do for the statements that name a database: USE, SHOW [FULL] TABLES FROM, DESCRIBE /
SHOW [FULL] COLUMNS, SHOW CREATE DATABASE answer, CREATE DATABASE of either is 1007; their names
are matched as written (MariaDB's lower_case_table_names=0). Nothing in them is written or
created here: their rows are the server shell's, so a write to their tables, DDL in them and DROP
DATABASE of either are 1235 (`ddl.DdlParser.table_name`, `Translator.need_table`). SHOW CREATE
TABLE of their tables is 1235 too: only the columns are MariaDB's, not its engines' options and
comments.

information_schema.TABLES, COLUMNS and STATISTICS and SHOW TABLE STATUS list performance_schema's
tables as MariaDB's engine does (`listed_tables`: no rows, no sizes, utf8mb3; the column comments
its engine writes are not kept); an account sees those it has a privilege on (MariaDB also lists
the tables any account may read, `perfschema.WORLD_READABLE`, to an account of none: here it sees
none). `mysql`'s tables are not in them, as that database is not listed. SHOW DATABASES and information_schema.SCHEMATA list performance_schema (mariadb-dump
--all-databases skips it itself) but not `mysql`: mariadb-dump dumps a listed `mysql` whole
(general_log and slow_log by name, every table's SHOW CREATE TABLE and rows), which would load
into a server as writes to grant tables that are not tables here. MariaDB's `sys` (views over
performance_schema) is not here at all: none of its views is answered."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

from engine import perfschema
from engine.catalog import CHAR_TYPES, INT_TYPES, NUMERIC_TYPES, Column, DatabaseOptions, Table
from engine.infoschema import MYSQL, mysql_table, mysql_table_names

# their db.opt on a stock MariaDB 10.11 (mariadb-install-db's `mysql`, latin1's; the
# performance_schema engine's utf8mb3)
OPTIONS = {MYSQL: DatabaseOptions("latin1", "latin1_swedish_ci"),
           perfschema.NAME: DatabaseOptions("utf8mb3", "utf8mb3_general_ci")}
LISTED = (perfschema.NAME,)
VIEWS = {MYSQL: frozenset({"user"})}


def table(schema: str, name: str) -> Table | None:
    """The table `schema.name` of a system database (None: not one of them, or no such table)."""
    if schema == MYSQL:
        return _view_described(mysql_table(name)) if name.lower() in VIEWS[MYSQL] else mysql_table(name)
    return _performance_table(name.lower()) if schema == perfschema.NAME else None


# performance_schema's text is utf8mb3: its user, host, role and connection attribute columns
# compare in binary, so do the two tables of connection attributes as a whole (MariaDB 10.11's
# information_schema.COLUMNS and TABLES of them)
_BINARY_COLUMNS = frozenset({"USER", "HOST", "ATTR_NAME", "ATTR_VALUE"})
_BINARY_TABLES = frozenset({"session_account_connect_attrs", "session_connect_attrs"})


# its TIMESTAMPs' defaults: the zero date, but for the replication appliers' last error's time
# (DEFAULT current_timestamp() ON UPDATE current_timestamp(), MariaDB's implicit first TIMESTAMP)
_STAMPED_NOW = frozenset({"replication_applier_status_by_coordinator", "replication_applier_status_by_worker"})


# the DEFAULTs of its setup tables' columns
_DEFAULTS = {"setup_actors": {"HOST": "%", "USER": "%", "ROLE": "%", "ENABLED": "YES", "HISTORY": "YES"},
             "setup_objects": {"OBJECT_TYPE": "TABLE", "OBJECT_SCHEMA": "%", "OBJECT_NAME": "%", "ENABLED": "YES",
                               "TIMED": "YES"}}


def _performance_column(table: str, col: Column) -> Column:
    """A performance_schema column as MariaDB declares it (`perfschema` has its names and types)."""
    default = _DEFAULTS.get(table, {}).get(col.name)
    if default is not None:
        col = replace(col, has_default=True, default=default)
    if col.base in CHAR_TYPES:
        return replace(col, charset="utf8mb3", binary=col.name in _BINARY_COLUMNS or (
            col.name == "ROLE" and col.base == "char"))
    if col.base != "timestamp":
        return col
    if table in _STAMPED_NOW:
        return replace(col, has_default=True, default_now=True, on_update_now=True)
    return replace(col, has_default=True, default="0000-00-00 00:00:00")


@cache
def _performance_table(name: str) -> Table | None:
    shape = perfschema.table(name)
    if shape is None:
        return None
    columns = [_performance_column(name, col) for col in shape.columns]
    return Table(perfschema.NAME, name, columns, charset="utf8mb3",
                 collate="utf8mb3_bin" if name in _BINARY_TABLES else None)


def listed_tables(schema: str) -> list[Table]:
    """The tables information_schema (TABLES, COLUMNS, STATISTICS) and SHOW TABLE STATUS list of
    a system database: performance_schema's, as MariaDB lists them; none of `mysql`'s, whose
    database is not listed either (the module's header)."""
    if schema != perfschema.NAME:
        return []
    return [t for t in map(_performance_table, perfschema.table_names()) if t is not None]


class _ViewShape(Table):
    """A view's columns as DESCRIBE shows MariaDB's: a NOT NULL one with its type's zero as
    DEFAULT, unquoted (`viewcols`' rule for a view's expressions)."""

    def describe(self) -> list[tuple]:
        return [row if row[2] == "YES" else (*row[:4], _zero(self.column(row[0])), *row[5:]) for row in super().describe()]


def _zero(col: Column) -> str:
    if col.base in INT_TYPES:
        return "0"
    if col.base in NUMERIC_TYPES:
        return "0." + "0" * int(col.args[1]) if len(col.args) > 1 and int(col.args[1]) else "0"
    return ""


def _view_described(shape: Table | None) -> Table | None:
    return None if shape is None else _ViewShape(shape.schema, shape.name, list(shape.columns))


def tables(schema: str) -> list[tuple[str, str]]:
    """A system database's tables as SHOW FULL TABLES lists them: (name, 'BASE TABLE' | 'VIEW'),
    by name."""
    names = mysql_table_names() if schema == MYSQL else perfschema.table_names() if schema == perfschema.NAME else []
    views = VIEWS.get(schema, frozenset())
    return [(name, "VIEW" if name in views else "BASE TABLE") for name in sorted(names)]
