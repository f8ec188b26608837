"""A read-only `information_schema` (SCHEMATA, TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
TABLE_CONSTRAINTS, REFERENTIAL_CONSTRAINTS, CHARACTER_SETS, COLLATIONS, PROCESSLIST,
GLOBAL_VARIABLES, SESSION_VARIABLES, GLOBAL_STATUS, SESSION_STATUS, with MariaDB 10.11's columns;
the rows of PROCESSLIST and of the variables (`LIVE`) are the server shell's, read through the
session when the statement is planned (such plans are never cached), the variables' names
upper-case and compared without regard to case, as MariaDB's; PROCESSLIST's and EVENTS' result
columns typed from MariaDB's declared columns (`table`), the others' from their values; FILES,
PARTITIONS, TRIGGERS, ROUTINES and EVENTS always empty) built from the
engine's catalog: a reference to `information_schema.X` becomes a subquery over VALUES, inlined
into the translation (plans are cached per catalog version, so they never show a stale catalog).
Enough for clients that reflect tables (python-mysql-replication, ORMs), not a full one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable

from engine.catalog import CHAR_TYPES, NUMERIC_TYPES, Column, Table, sql_literal
from engine.lexer import quote_ident

NAME = "information_schema"

COLUMNS = {
    "schemata": ["CATALOG_NAME", "SCHEMA_NAME", "DEFAULT_CHARACTER_SET_NAME", "DEFAULT_COLLATION_NAME",
                 "SQL_PATH", "SCHEMA_COMMENT"],
    "tables": ["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE", "ENGINE", "VERSION", "ROW_FORMAT",
               "TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH", "DATA_FREE",
               "AUTO_INCREMENT", "CREATE_TIME", "UPDATE_TIME", "CHECK_TIME", "TABLE_COLLATION", "CHECKSUM",
               "CREATE_OPTIONS", "TABLE_COMMENT", "MAX_INDEX_LENGTH", "TEMPORARY"],
    "columns": ["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
                "COLUMN_DEFAULT", "IS_NULLABLE", "DATA_TYPE", "CHARACTER_MAXIMUM_LENGTH",
                "CHARACTER_OCTET_LENGTH", "NUMERIC_PRECISION", "NUMERIC_SCALE", "DATETIME_PRECISION",
                "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE", "COLUMN_KEY", "EXTRA", "PRIVILEGES",
                "COLUMN_COMMENT", "IS_GENERATED", "GENERATION_EXPRESSION"],
    "key_column_usage": ["CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_CATALOG",
                         "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
                         "POSITION_IN_UNIQUE_CONSTRAINT", "REFERENCED_TABLE_SCHEMA", "REFERENCED_TABLE_NAME",
                         "REFERENCED_COLUMN_NAME"],
    "table_constraints": ["CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME", "TABLE_SCHEMA",
                          "TABLE_NAME", "CONSTRAINT_TYPE"],
    "check_constraints": ["CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "TABLE_NAME", "CONSTRAINT_NAME", "LEVEL",
                          "CHECK_CLAUSE"],
    "referential_constraints": ["CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA", "CONSTRAINT_NAME",
                                "UNIQUE_CONSTRAINT_CATALOG", "UNIQUE_CONSTRAINT_SCHEMA", "UNIQUE_CONSTRAINT_NAME",
                                "MATCH_OPTION", "UPDATE_RULE", "DELETE_RULE", "TABLE_NAME",
                                "REFERENCED_TABLE_NAME"],
    # no tablespace files, partitions, triggers, routines, events or views here: always empty
    # (mariadb-dump asks for them)
    "partitions": ["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "PARTITION_NAME", "SUBPARTITION_NAME",
                   "TABLESPACE_NAME"],
    "triggers": ["TRIGGER_CATALOG", "TRIGGER_SCHEMA", "TRIGGER_NAME", "EVENT_MANIPULATION",
                 "EVENT_OBJECT_SCHEMA", "EVENT_OBJECT_TABLE", "ACTION_ORDER", "ACTION_STATEMENT",
                 "ACTION_TIMING", "DEFINER"],
    "routines": ["SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME", "ROUTINE_TYPE",
                 "DEFINER"],
    "events": ["EVENT_CATALOG", "EVENT_SCHEMA", "EVENT_NAME", "DEFINER", "TIME_ZONE", "EVENT_BODY",
               "EVENT_DEFINITION", "EVENT_TYPE", "EXECUTE_AT", "INTERVAL_VALUE", "INTERVAL_FIELD", "SQL_MODE",
               "STARTS", "ENDS", "STATUS", "ON_COMPLETION", "CREATED", "LAST_ALTERED", "LAST_EXECUTED",
               "EVENT_COMMENT", "ORIGINATOR", "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION",
               "DATABASE_COLLATION"],
    "views": ["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "VIEW_DEFINITION", "CHECK_OPTION", "IS_UPDATABLE",
              "DEFINER", "SECURITY_TYPE", "CHARACTER_SET_CLIENT", "COLLATION_CONNECTION", "ALGORITHM"],
    "character_sets": ["CHARACTER_SET_NAME", "DEFAULT_COLLATE_NAME", "DESCRIPTION", "MAXLEN"],
    "collations": ["COLLATION_NAME", "CHARACTER_SET_NAME", "ID", "IS_DEFAULT", "IS_COMPILED", "SORTLEN"],
    "files": ["FILE_ID", "FILE_NAME", "FILE_TYPE", "TABLESPACE_NAME", "TABLE_CATALOG", "TABLE_SCHEMA",
              "TABLE_NAME", "LOGFILE_GROUP_NAME", "LOGFILE_GROUP_NUMBER", "ENGINE", "TOTAL_EXTENTS",
              "EXTENT_SIZE", "INITIAL_SIZE", "EXTRA"],
    "global_variables": ["VARIABLE_NAME", "VARIABLE_VALUE"],
    "session_variables": ["VARIABLE_NAME", "VARIABLE_VALUE"],
    "global_status": ["VARIABLE_NAME", "VARIABLE_VALUE"],
    "session_status": ["VARIABLE_NAME", "VARIABLE_VALUE"],
    "processlist": ["ID", "USER", "HOST", "DB", "COMMAND", "TIME", "STATE", "INFO", "TIME_MS", "STAGE",
                    "MAX_STAGE", "PROGRESS", "MEMORY_USED", "MAX_MEMORY_USED", "EXAMINED_ROWS", "QUERY_ID",
                    "INFO_BINARY", "TID"],
    "statistics": ["TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "NON_UNIQUE", "INDEX_SCHEMA",
                   "INDEX_NAME", "SEQ_IN_INDEX", "COLUMN_NAME", "COLLATION", "CARDINALITY", "SUB_PART", "PACKED",
                   "NULLABLE", "INDEX_TYPE", "COMMENT", "INDEX_COMMENT", "IGNORED"],
}

# The views whose rows are the server shell's, read through the session when the statement is
# planned (such plans are never cached): PROCESSLIST, and the system and status variables.
LIVE = frozenset({"processlist", "global_variables", "session_variables", "global_status", "session_status",
                  "global_priv"})
# The `mysql` schema's tables a server shell answers (`mysql.global_priv`: its accounts, their
# global privileges as MariaDB's access bits); live rows too, read under the name `global_priv`.
MYSQL = "mysql"
MYSQL_COLUMNS = {"global_priv": ["Host", "User", "Priv"]}
# Views whose text columns compare without regard to case, as MariaDB's utf8_general_ci columns
# do (VARIABLE_NAME = 'rpl_semi_sync_master_enabled' finds RPL_SEMI_SYNC_MASTER_ENABLED).
_NOCASE = frozenset({"global_variables", "session_variables", "global_status", "session_status"})


def reads_live(lowered_sql: str) -> bool:
    """Whether a statement (lower-cased) may read a view whose rows the server shell gives."""
    return any(name in lowered_sql for name in LIVE)


# PROCESSLIST's and EVENTS' declared columns (MariaDB 10.11's), so result columns are typed from them
_PROCESSLIST_TYPES = [("bigint", "4", False), ("varchar", "128", False), ("varchar", "64", False),
                      ("varchar", "64", True), ("varchar", "16", False), ("int", "7", False),
                      ("varchar", "64", True), ("longtext", "", True), ("decimal", "22,3", False),
                      ("tinyint", "2", False), ("tinyint", "2", False), ("decimal", "7,3", False),
                      ("bigint", "7", False), ("bigint", "7", False), ("int", "7", False), ("bigint", "4", False),
                      ("blob", "", True), ("bigint", "4", False)]


_EVENTS_TYPES = [("varchar", "64", False), ("varchar", "64", False), ("varchar", "64", False),
                 ("varchar", "384", False), ("varchar", "64", False), ("varchar", "8", False), ("longtext", "", False),
                 ("varchar", "9", False), ("datetime", "", True), ("varchar", "256", True), ("varchar", "18", True),
                 ("varchar", "8192", False), ("datetime", "", True), ("datetime", "", True), ("varchar", "18", False),
                 ("varchar", "12", False), ("datetime", "", False), ("datetime", "", False), ("datetime", "", True),
                 ("varchar", "64", False), ("bigint", "10", False), ("varchar", "32", False),
                 ("varchar", "64", False), ("varchar", "64", False)]
_DECLARED = {"processlist": _PROCESSLIST_TYPES, "events": _EVENTS_TYPES}


def table(name: str) -> Table | None:
    """The declared columns of `information_schema.<name>` where they are known (None: its result
    columns are typed from their values)."""
    declared = _DECLARED.get(name.lower())
    if declared is None:
        return None
    return Table(NAME, name.upper(), [
        Column(col, base, args.split(",") if args else [], nullable=nullable)
        for col, (base, args, nullable) in zip(COLUMNS[name.lower()], declared, strict=True)])


# the character sets and collations the server speaks (MariaDB 10.11's rows for them)
CHARACTER_SETS = [("utf8mb4", "utf8mb4_general_ci", "UTF-8 Unicode", 4), ("utf8mb3", "utf8mb3_general_ci", "UTF-8 Unicode", 3),
                  ("latin1", "latin1_swedish_ci", "cp1252 West European", 1), ("ascii", "ascii_general_ci", "US ASCII", 1),
                  ("binary", "binary", "Binary pseudo charset", 1)]
COLLATIONS = [("utf8mb4_general_ci", "utf8mb4", 45, "Yes", "Yes", 1), ("utf8mb4_bin", "utf8mb4", 46, "", "Yes", 1),
              ("utf8mb4_unicode_ci", "utf8mb4", 224, "", "Yes", 8), ("utf8mb3_general_ci", "utf8mb3", 33, "Yes", "Yes", 1),
              ("latin1_swedish_ci", "latin1", 8, "Yes", "Yes", 1), ("ascii_general_ci", "ascii", 11, "Yes", "Yes", 1),
              ("binary", "binary", 63, "Yes", "Yes", 1)]


class _Sql(str):
    """A cell computed by SQLite when the view is read (a row count), not a literal."""


def register(conn: sqlite3.Connection) -> None:
    """The functions TABLES' computed cells call (on every connection). They read the table on the
    same connection, so in the reader's snapshot, and outside the statement's compiled table
    accesses: listing a table in TABLES needs no SELECT privilege on it, as in MySQL."""

    def table_rows(schema: str, table: str) -> int | None:
        try:
            return conn.execute(f"SELECT count(*) FROM {quote_ident(schema)}.{quote_ident(table)}").fetchone()[0]
        except sqlite3.OperationalError:
            return None  # its file is not attached to this connection (beyond ATTACH_LIMIT databases)

    def next_auto(schema: str, table: str, column: str, start: int) -> int | None:
        try:
            top = conn.execute(f"SELECT max({quote_ident(column)}) FROM {quote_ident(schema)}.{quote_ident(table)}")
        except sqlite3.OperationalError:
            return None
        return max(int(top.fetchone()[0] or 0) + 1, start)

    conn.create_function("__is_table_rows", 2, table_rows)
    conn.create_function("__is_next_auto", 4, next_auto)


def _table_row(schema: str, table: Table) -> tuple:
    """TABLES: rows counted exactly when read; the next AUTO_INCREMENT as InnoDB computes it at
    start-up (MAX + 1, at least the table's AUTO_INCREMENT=); sizes and times unknown (NULL)."""
    names = f"{sql_literal(schema)}, {sql_literal(table.name)}"
    auto = table.auto_column
    next_id = None
    if auto is not None:
        next_id = _Sql(f"__is_next_auto({names}, {sql_literal(auto.name)}, {int(table.auto_increment_start or 1)})")
    return ("def", schema, table.name, "BASE TABLE", "InnoDB", 10, "Dynamic", _Sql(f"__is_table_rows({names})"),
            None, None, None, None, None, next_id, None, None, None, "utf8mb4_general_ci", None, "", "", None, "N")


def _view_row(name: str, view) -> tuple:
    """A view's row of TABLES or of VIEWS (`view`: a catalog.View)."""
    if name == "tables":
        row: list[object] = [None] * len(COLUMNS["tables"])
        row[:4] = ["def", view.schema, view.name, "VIEW"]
        row[COLUMNS["tables"].index("TABLE_COMMENT")] = "VIEW"
        return tuple(row)
    return ("def", view.schema, view.name, view.select, "NONE", "NO", view.definer.replace("`", ""),
            view.security, "utf8mb4", "utf8mb4_general_ci", view.algorithm)


def _rows(name: str, schemas: Iterable[str], tables: Callable[[str], Iterable[Table]],
          views: Callable[[str], Iterable] = lambda schema: ()) -> list[tuple]:
    rows: list[tuple] = []
    for schema in sorted(schemas):
        if name == "schemata":
            rows.append(("def", schema, "utf8mb4", "utf8mb4_general_ci", None, ""))
            continue
        if name in ("tables", "views"):
            rows.extend(_view_row(name, view) for view in sorted(views(schema), key=lambda v: v.name))
        for table in sorted(tables(schema), key=lambda t: t.name):
            if name == "tables":
                rows.append(_table_row(schema, table))
            elif name == "columns":
                described = {r[0]: r for r in table.describe()}
                for n, col in enumerate(table.columns, 1):
                    _, type_text, nullable, key, _default, extra = described[col.name]
                    default = "current_timestamp()" if col.default_now else (
                        col.default_sql() if col.has_default and col.default is not None else
                        "NULL" if col.nullable and not col.auto_increment else None)
                    chars = col.base in CHAR_TYPES
                    rows.append(("def", schema, table.name, col.name, n, default, nullable, col.base,
                                 *_char_lengths(col), *_numeric(col),
                                 "utf8mb4" if chars else None, "utf8mb4_general_ci" if chars else None,
                                 type_text, key, extra, "select,insert,update,references",
                                 col.comment or "", "NEVER", None))
            elif name in ("key_column_usage", "table_constraints", "referential_constraints", "check_constraints"):
                rows.extend(_constraint_rows(name, table, tables))
            elif name == "statistics":
                for index in table.indexes:
                    for seq, col_name in enumerate(index.columns, 1):
                        indexed = table.column(col_name)
                        rows.append(("def", schema, table.name, 0 if index.unique else 1, schema,
                                     "PRIMARY" if index.primary else index.name, seq, col_name, "A", None, None,
                                     None, "YES" if indexed is not None and indexed.nullable else "", "BTREE", "",
                                     "", "NO"))
    return rows


_INT_PRECISION = {"tinyint": 3, "smallint": 5, "mediumint": 7, "int": 10, "integer": 10, "bigint": 19}


_BYTES_OF = {"tinytext": 255, "text": 65535, "mediumtext": 16777215, "longtext": 4294967295, "json": 4294967295,
             "tinyblob": 255, "blob": 65535, "mediumblob": 16777215, "longblob": 4294967295}


def _char_lengths(col: Column) -> tuple[int | None, int | None]:
    """CHARACTER_MAXIMUM_LENGTH and CHARACTER_OCTET_LENGTH as MariaDB gives them (utf8mb4: 4
    bytes a character where the length counts characters; a TEXT's and a BLOB's in bytes, an
    ENUM's its longest member, a SET's all members with their commas)."""
    base = col.base
    if base in _BYTES_OF:
        return _BYTES_OF[base], _BYTES_OF[base]
    if base in ("enum", "set"):
        members = [len(a[1:-1].replace("''", "'")) for a in col.args]
        chars = (max(members, default=0) if base == "enum" else sum(members) + max(len(members) - 1, 0))
        return chars, chars * 4
    if not (col.args and col.args[0].isdigit()):
        return None, None
    length = int(col.args[0])
    if base in ("binary", "varbinary"):
        return length, length
    return (length, length * 4) if base in CHAR_TYPES else (None, None)


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
        return (args[0] if args else 22), (args[1] if len(args) > 1 else None), None
    if col.base in ("datetime", "timestamp", "time"):
        return None, None, (args[0] if args else 0)
    return None, None, None


def _constraint_rows(name: str, table: Table, tables: Callable[[str], Iterable[Table]]) -> list[tuple]:
    """PRIMARY KEY, UNIQUE, FOREIGN KEY and CHECK constraints of one table, in MariaDB's columns."""
    schema, rows = table.schema, list[tuple]()
    if name == "check_constraints":
        return [("def", schema, table.name, c.name, "Table" if c.column is None else "Column", c.clause)
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


def subquery(name: str, schemas: Iterable[str], tables: Callable[[str], Iterable[Table]],
             live_rows: Callable[[str], list[tuple]] | None = None,
             views: Callable[[str], Iterable] = lambda schema: ()) -> str | None:
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
    else:
        rows = _rows(name, schemas, tables, views)
    return _values(columns, rows, " COLLATE NOCASE" if name in _NOCASE else "")


def mysql_subquery(name: str, live_rows: Callable[[str], list[tuple]] | None) -> str | None:
    """SQLite SQL for `mysql.<name>` where the server shell answers it (None: not one of those)."""
    columns = MYSQL_COLUMNS.get(name.lower())
    if columns is None:
        return None
    return _values(columns, live_rows(name.lower()) if live_rows is not None else [], "")


def _values(columns: list[str], rows: list[tuple], collate: str) -> str:
    names = ", ".join(f"column{n}{collate} AS {quote_ident(c)}" for n, c in enumerate(columns, 1))
    if not rows:
        return "(SELECT " + ", ".join(f"NULL AS {quote_ident(c)}" for c in columns) + " WHERE 0)"
    values = ", ".join("(" + ", ".join(v if isinstance(v, _Sql) else sql_literal(v) for v in row) + ")"
                       for row in rows)
    return f"(SELECT {names} FROM (VALUES {values}))"

