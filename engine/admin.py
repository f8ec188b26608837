"""Statements answered from the engine's catalog: SHOW DATABASES, SHOW [FULL] TABLES, SHOW CREATE
TABLE / DATABASE, SHOW [FULL] COLUMNS (FULL: MariaDB's nine columns), SHOW INDEX, SHOW [STORAGE]
ENGINES, DESCRIBE, USE, ANALYZE/OPTIMIZE/CHECK/REPAIR TABLE, CHECKSUM TABLE (its reads: `engine.checksum`,
run by the session); SHOW EVENTS / TRIGGERS / PROCEDURE,
FUNCTION, PACKAGE [BODY] STATUS (always empty: there are none), each listing's columns typed as
MariaDB declares them. They read the in-memory catalog only (no SQLite call), so they run on the
event loop; SHOW TABLE STATUS, whose numbers need the tables read, is answered as the SELECT over
information_schema.TABLES it stands for (`AsSelect`, run by the session), as MariaDB answers it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from engine import checksum, infoschema, system_schemas, temporary, triggers
from engine.catalog import TokenCursor
from engine.coltypes import varchar
from engine.ddl import missing_routine
from engine.lexer import mysql_ident, syntax_error
from engine.results import Result, column_types
from protocol.errors import (
    ER_BAD_DB_ERROR,
    ER_FEATURE_DISABLED,
    ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE,
    ER_NONUNIQ_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_TRG_DOES_NOT_EXIST,
    ER_UNKNOWN_STORAGE_ENGINE,
    ER_UNKNOWN_TABLE,
    ER_WRONG_OBJECT,
    SQLError,
)
from protocol.messages import ColumnFlag

if TYPE_CHECKING:
    from engine.core import Engine
    from engine.session import Session


def _like(pattern: str) -> re.Pattern[str]:
    regex = ""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            i += 1
            regex += re.escape(pattern[i])
        elif ch == "%":
            regex += ".*"
        elif ch == "_":
            regex += "."
        else:
            regex += re.escape(ch)
        i += 1
    return re.compile(regex + r"\Z", re.I | re.S)


def _filter(cur: TokenCursor) -> re.Pattern[str] | None:  # LIKE 'pattern' or nothing
    if cur.accept("LIKE"):
        return _like(str(cur.literal()))
    return None


def _where_equal(cur: TokenCursor, columns: list[str], rows: list[tuple]) -> list[tuple]:
    """The rows of a SHOW listing that its WHERE keeps, for a WHERE of `Column = literal`
    conditions joined by AND (names and text compared as MariaDB's utf8 general collation
    does, case aside); any other condition is 1235, never ignored."""
    lowered = [c.lower() for c in columns]
    wanted: list[tuple[int, object]] = []
    while True:
        name = cur.ident().lower()
        if name not in lowered or not cur.accept_op("="):
            raise SQLError(ER_NOT_SUPPORTED_YET, "this WHERE condition of SHOW (only Column = value AND ...)")
        wanted.append((lowered.index(name), cur.literal()))
        if not cur.accept("AND"):
            break

    def same(value: object, literal: object) -> bool:
        if value is None or literal is None:
            return False
        if isinstance(value, int) and not isinstance(literal, str):
            return value == literal
        return str(value).lower() == str(literal).lower()

    return [row for row in rows if all(same(row[k], literal) for k, literal in wanted)]


def _result(columns: list[str], rows: list[tuple], session: Session) -> Result:
    return Result(columns=columns, column_types=column_types(rows, len(columns)) if rows else ["string"] * len(columns),
                  rows=rows, in_transaction=session.in_transaction)


def _shown_create(columns: list[tuple[str, int]], row: tuple, session: Session) -> Result:
    """A SHOW CREATE answer of one row: NOT NULL VARCHARs of MariaDB's lengths in characters."""
    return Result(columns=[name for name, _ in columns],
                  column_types=[varchar(chars, flags=ColumnFlag.NOT_NULL) for _, chars in columns],
                  rows=[row], in_transaction=session.in_transaction)


# The listings' columns as MariaDB 10.11 declares them ("?": nullable; `infoschema.declared_columns`),
# so a column is typed the same whatever its rows hold (a listing's NULLs stay a DATETIME).
_LISTINGS = {
    "columns": "Field varchar(64), Type longtext, Null varchar(3), Key varchar(3), Default longtext?, Extra varchar(80)",
    "full_columns": "Field varchar(64), Type longtext, Collation varchar(64)?, Null varchar(3), Key varchar(3),"
                    " Default longtext?, Extra varchar(80), Privileges varchar(80), Comment varchar(1024)",
    "databases": "Database varchar(64)",
    # (a name's 64 characters and the 9 of a `#mysql50#` prefix)
    "tables": "Tables varchar(73)",
    "full_tables": "Tables varchar(73), Table_type varchar(64)",
    "engines": "Engine varchar(64), Support varchar(8), Comment varchar(160), Transactions varchar(3)?, XA varchar(3)?,"
               " Savepoints varchar(3)?",
    "charsets": "Charset varchar(32), Description varchar(60), Default collation varchar(64), Maxlen bigint(3)",
    "collations": "Collation varchar(64), Charset varchar(32)?, Id bigint(11)?, Default varchar(3)?, Compiled varchar(3),"
                  " Sortlen bigint(3)",
    "index": "Table varchar(64), Non_unique bigint(1), Key_name varchar(64), Seq_in_index int(2)_unsigned,"
             " Column_name varchar(64), Collation varchar(1)?, Cardinality bigint(21)?, Sub_part bigint(3)?,"
             " Packed varchar(10)?, Null varchar(3), Index_type varchar(16), Comment varchar(16)?,"
             " Index_comment varchar(1024), Ignored varchar(3)",
    "events": "Db varchar(64), Name varchar(64), Definer varchar(384), Time zone varchar(64), Type varchar(9),"
              " Execute at datetime?, Interval value varchar(256)?, Interval field varchar(18)?, Starts datetime?,"
              " Ends datetime?, Status varchar(18), Originator bigint(10), character_set_client varchar(32),"
              " collation_connection varchar(64), Database Collation varchar(64)",
    "triggers": "Trigger varchar(64), Event varchar(6), Table varchar(64), Statement longtext?, Timing varchar(6),"
                " Created datetime(2)?, sql_mode varchar(8192), Definer varchar(384)?,"
                " character_set_client varchar(32), collation_connection varchar(64), Database Collation varchar(64)",
    "open_tables": "Database varchar(64), Table varchar(64), In_use bigint(1), Name_locked bigint(4)",
    "profiles": "Query_ID int(20), Duration double, Query varchar(40)",
    "profile": "Status varchar(30), Duration decimal(9,6)",
    "checksum": "Table varchar(512)?, Checksum bigint(21)?",
    "routines": "Db varchar(64), Name varchar(64), Type varchar(13), Definer varchar(384), Modified datetime,"
                " Created datetime, Security_type varchar(7), Comment longtext, character_set_client varchar(32),"
                " collation_connection varchar(64), Database Collation varchar(64)",
}
_DECLARED = {kind: infoschema.declared_columns(text) for kind, text in _LISTINGS.items()}


def _listing(kind: str, rows: list[tuple], session: Session, first: str | None = None) -> Result:
    """A listing's result with its declared columns (`first`: the first column's own name,
    where it names the schema: Tables_in_x)."""
    declared = _DECLARED[kind]
    columns = [col.name for col in declared]
    if first is not None:
        columns[0] = first
    return Result(columns=columns, column_types=infoschema.result_types(declared), rows=rows,
                  in_transaction=session.in_transaction)


def checksum_answer(rows: list[tuple], warnings: list[tuple[str, int, str]], session: Session) -> Result:
    """CHECKSUM TABLE's answer: a row per table, with its tables' errors as warnings."""
    result = _listing("checksum", rows, session)
    result.warnings = tuple(warnings)
    return result


def columns_of(kind: str) -> list[str]:
    return [col.name for col in _DECLARED[kind]]


def _named_in_database(cur: TokenCursor, session: Session) -> tuple[str, str]:
    """[db.]name: its database, the current one when unqualified (1046 without one), and name."""
    qualifier, name = cur.qualified()
    schema = qualifier or session.database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    return schema, name


def _schema(cur: TokenCursor, session: Session) -> str:
    name = cur.ident() if cur.accept("FROM", "IN") else session.database
    if name is None:
        raise SQLError(ER_NO_DB_ERROR)
    if not session.engine.has_database(name):
        raise SQLError(ER_BAD_DB_ERROR, name)
    return name


# what MariaDB's InnoDB answers for a table before (or instead of) its status row
_MAINTENANCE_NOTES = {
    "optimize": [("note", "Table does not support optimize, doing recreate + analyze instead"), ("status", "OK")],
    "repair": [("note", "The storage engine for the table doesn't support repair")],
}


def _maintain(cur: TokenCursor, session: Session, op: str) -> Result | Logged:
    """ANALYZE / CHECK / OPTIMIZE / REPAIR [NO_WRITE_TO_BINLOG | LOCAL] TABLE t, ... [options]:
    nothing to do on this engine; MariaDB's rows per table (a table named twice is 1066, one that
    does not exist or is a view an Error row and 'Operation failed', as mysql_admin_table).
    CHECK VIEW v, ... [FOR UPGRADE] and REPAIR VIEW v, ... [FROM MYSQL] (mariadb-upgrade's):
    a view's status OK, a table's as CHECK / REPAIR TABLE answer it."""
    local = cur.accept("NO_WRITE_TO_BINLOG", "LOCAL")
    if op == "analyze" and cur.peek() is not None and cur.peek().is_word(
            "SELECT", "UPDATE", "DELETE", "INSERT", "REPLACE", "FORMAT", "WITH", "VALUES"):
        raise SQLError(ER_NOT_SUPPORTED_YET, "ANALYZE statement")  # (MariaDB's EXPLAIN with its execution)
    views = op in ("check", "repair") and cur.accept("VIEW")
    if not views and not cur.accept("TABLE"):
        cur.expect("TABLES")
    named: list[tuple[str, str]] = []
    while True:
        schema, name = cur.qualified()
        schema = schema or session.database
        if schema is None:
            raise SQLError(ER_NO_DB_ERROR)
        if (schema, name) in named:
            raise SQLError(ER_NONUNIQ_TABLE, name)
        named.append((schema, name))
        if not cur.accept_op(","):
            break
    persistent = op == "analyze" and cur.accept("PERSISTENT")  # (and its FOR ...: engine-independent statistics)
    if views:
        if cur.accept("FOR" if op == "check" else "FROM"):
            cur.expect("UPGRADE" if op == "check" else "MYSQL")
        if not cur.at_end():
            raise cur.error()
    rows = []
    for schema, name in named:
        shown = f"{schema}.{name}"
        engine = session.engine
        table = session.table(schema, name)
        if table is None and engine.view(schema, name) is not None:
            if op == "check" or views:
                rows.append((shown, op, "status", "OK"))
                continue
            failed = SQLError(ER_WRONG_OBJECT, schema, name, "BASE TABLE")
        elif table is None:
            failed = SQLError(ER_NO_SUCH_TABLE, schema, name)
        else:
            shown = f"{table.schema}.{temporary.shown_name(table.name)}"
            answers = _MAINTENANCE_NOTES.get(op, [("status", "OK")])
            if persistent:
                answers = [("status", "Engine-independent statistics collected"), *answers]
            rows.extend((shown, op, kind, text) for kind, text in answers)
            continue
        rows += [(shown, op, "Error", failed.message), (shown, op, "status", "Operation failed")]
    result = _result(["Table", "Op", "Msg_type", "Msg_text"], rows, session)
    return result if op == "check" or local else Logged(result, named[0][0])


@dataclass(frozen=True)
class Logged:
    """An answer MariaDB also binlogs, whatever its rows say (ANALYZE / OPTIMIZE / REPAIR without
    NO_WRITE_TO_BINLOG or LOCAL: sql_admin.cc's write_bin_log after mysql_admin_table): the
    session runs the statement as a DDL that changes nothing, an implicit commit before it, and
    answers `result`. `schema`: the first table's database."""
    result: Result
    schema: str


def _tables_and_views(engine: Engine, schema: str) -> list[str]:
    """A database's table and view names, sorted (SHOW TABLES, SHOW OPEN TABLES); no
    temporary table (MariaDB 10.11's)."""
    return sorted([t.name for t in engine.catalog.get(schema, {}).values() if not temporary.is_temporary(t.name)]
                  + [v.name for v in engine.views.get(schema, {}).values()])


def _table(cur: TokenCursor, session: Session, views: bool = False):
    """The table named next (`views`: an information_schema view too, by its declared columns,
    for DESCRIBE and SHOW COLUMNS; 1109 for a view it lacks, as MariaDB says; a view of a
    database its stand-in table, `Engine.view_table`)."""
    schema, name = cur.qualified()
    if cur.accept("FROM", "IN"):
        schema = cur.ident()
    schema = schema or session.database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    if views and schema.lower() == infoschema.NAME:
        view = infoschema.table(name)
        if view is None:
            raise SQLError(ER_UNKNOWN_TABLE, name, infoschema.NAME)
        return view
    if views and session.engine.view(schema, name) is not None:
        return session.engine.view_table(schema, name)  # (its columns from its SELECT: `viewcols`)
    return _table_named(session, schema, name)


def _show_create_view(view, session: Session) -> Result:
    return _shown_create([("View", 64), ("Create View", 1024), ("character_set_client", 32), ("collation_connection", 64)],
                         (view.name, view.show_create(session.database), "utf8mb4", "utf8mb4_general_ci"), session)


def _table_named(session: Session, schema: str, name: str):
    table = session.table(schema, name)
    if table is None and schema not in session.engine.schemas:
        table = system_schemas.table(schema, name)
    if table is None:
        raise SQLError(ER_NO_SUCH_TABLE, schema, name)
    return table


def _temporary_index(table, where: str, params: list[object]) -> AsSelect:
    """SHOW INDEX of the session's temporary table, which information_schema.STATISTICS does not
    list (nor does MariaDB's): `_INDEX`'s columns over its rows given as literals, named as the
    session wrote the table."""
    shown = temporary.shown_name(table.name)
    rows = [(shown, 0 if index.unique else 1, "PRIMARY" if index.primary else index.name, seq, name, "A",
             None, None, "YES" if (col := table.column(name)) is not None and col.nullable else "",
             "BTREE", "", "", "NO")
            for index in table.indexes for seq, name in enumerate(index.columns, 1)]
    names = _INDEX[len("SELECT "):_INDEX.index(" FROM ")].split(", ")
    # (Cardinality: the table's rows, as information_schema.STATISTICS counts a base table's)
    counted = f"(SELECT COUNT(*) FROM {mysql_ident(table.schema)}.{mysql_ident(table.name)})"
    items = [counted if name == "`Cardinality`" else "?" for name in names]
    first = ", ".join(f"{item} AS {name}" for item, name in zip(items, names, strict=True))
    more = ", ".join(items)
    selects = [f"SELECT {first}", *[f"SELECT {more}"] * (len(rows) - 1)]
    literals = [v for row in rows for v in row]
    if not rows:  # (no index: no row, the columns still named)
        literals = [*[None] * (len(names) - 1), 0, 1]
        where = " WHERE ? = ?" + where
    else:
        where = " WHERE" + where[len(" AND"):] if where else ""
    shape = f"SELECT {', '.join(names)} FROM ({' UNION ALL '.join(selects)}) AS `__index`{where}"
    return AsSelect(shape, [*literals, *params])


@dataclass(frozen=True)
class AsSelect:
    """A SHOW answered as the SELECT over information_schema it stands for: the SELECT's shape
    and its literals."""
    shape: str
    params: list[object]


def _checksum_tables(session: Session, cur: TokenCursor, shape: str) -> checksum.ChecksumTables:
    """CHECKSUM TABLE[S] t [, t ...] [QUICK | EXTENDED], answered as MariaDB answers it for InnoDB
    tables: QUICK's number is NULL (no live checksum is kept), a name that is no table NULL with
    the error as a warning, an information_schema view 0; any column it cannot count as
    MariaDB does refuses the whole statement (1235) before anything is read."""
    cur.accept("TABLES") or cur.expect("TABLE")
    named = []
    while True:
        schema, name = cur.qualified()
        schema = schema or session.database
        if schema is None:
            raise SQLError(ER_NO_DB_ERROR)
        named.append((schema, name))
        if not cur.accept_op(","):
            break
    quick = cur.accept("QUICK")
    if quick or cur.accept("EXTENDED"):
        comma = cur.peek()
        if cur.accept_op(","):  # MariaDB's parser stops past the comma: near ' t2'
            raise syntax_error(shape[comma.start + 1:])
    if not cur.at_end():
        raise cur.error()
    tables = []
    for schema, name in named:
        shown = f"{schema}.{name}"
        if schema.lower() == infoschema.NAME:  # (MariaDB reads its views empty here)
            known = infoschema.table(name) is not None
            error = None if known else SQLError(ER_UNKNOWN_TABLE, name, infoschema.NAME)
            tables.append(checksum.TableChecksum(f"{infoschema.NAME}.{name}", value=0 if known else None, error=error))
            continue
        table = session.table(schema, name)
        if table is None:
            wrong = session.engine.view(schema, name) is not None
            error = SQLError(ER_WRONG_OBJECT, schema, name, "BASE TABLE") if wrong else \
                SQLError(ER_NO_SUCH_TABLE, schema, name)
            tables.append(checksum.TableChecksum(shown, error=error))
        elif quick:
            tables.append(checksum.TableChecksum(f"{table.schema}.{table.name}"))
        else:
            tables.append(checksum.read(table))
    return checksum.ChecksumTables(tables)


def run_admin(session: Session, cur: TokenCursor, shape: str) -> Result | AsSelect | checksum.ChecksumTables | Logged:
    engine = session.engine
    if cur.accept("CHECKSUM"):
        return _checksum_tables(session, cur, shape)
    if cur.accept("USE"):
        session.database = cur.ident()
        return _result([], [], session)
    if cur.accept("DESCRIBE", "DESC", "EXPLAIN"):
        if cur.peek() is not None and cur.peek().is_word("FORMAT") and cur.peek(1) is not None \
                and cur.peek(1).text == "=":
            raise SQLError(ER_NOT_SUPPORTED_YET, "EXPLAIN FORMAT=JSON")  # (the traditional rows only)
        table = _table(cur, session, views=True)
        rows = table.describe()
        if not cur.at_end():
            column = _like(str(cur.literal()) if cur.peek().kind == "param" else cur.ident())
            rows = [r for r in rows if column.match(r[0])]
        return _listing("columns", rows, session)
    if cur.accept("ANALYZE", "OPTIMIZE", "CHECK", "REPAIR"):
        return _maintain(cur, session, cur.tokens[0].text.lower())
    cur.expect("SHOW")
    if cur.accept("DATABASES", "SCHEMAS"):
        pattern = _filter(cur)
        names = sorted([infoschema.NAME, *engine.listed_databases()])  # (MariaDB lists them by name)
        rows = [(name,) for name in names if pattern is None or pattern.match(name)]
        return _listing("databases", rows, session)
    collations = cur.accept("COLLATION")
    if collations or cur.accept("CHARSET") or cur.accept_words("CHARACTER", "SET"):
        kind = "collations" if collations else "charsets"
        columns = columns_of(kind)
        if collations:
            rows = list(infoschema.COLLATIONS)
        else:
            rows = [(name, described, collation, maxlen)
                    for name, collation, described, maxlen in infoschema.CHARACTER_SETS]
        pattern = _filter(cur)
        if pattern is not None:
            rows = [row for row in rows if pattern.match(row[0])]
        elif cur.accept("WHERE"):
            rows = _where_equal(cur, columns, rows)
        return _listing(kind, rows, session)
    if cur.accept("OPEN"):  # every table of the engine is open (its database file attached): none in use
        cur.expect("TABLES")
        schemas = [_schema(cur, session)] if cur.peek() is not None and cur.peek().is_word("FROM", "IN") \
            else engine.databases()
        pattern = _filter(cur)
        rows = [(schema, name, 0, 0) for schema in schemas for name in _tables_and_views(engine, schema)
                if pattern is None or pattern.match(name)]
        if pattern is None and cur.accept("WHERE"):
            rows = _where_equal(cur, columns_of("open_tables"), rows)
        return _listing("open_tables", rows, session)
    full = cur.accept("FULL")
    if cur.accept("TABLES"):
        schema = _schema(cur, session)
        pattern = _filter(cur)
        kind = {n: "VIEW" for n in (v.name for v in engine.views.get(schema, {}).values())}
        if schema.lower() == infoschema.NAME:
            names = sorted(name.upper() for name in infoschema.COLUMNS)
        elif schema in system_schemas.OPTIONS and schema not in engine.schemas:
            listed = system_schemas.tables(schema)
            names, kind = [name for name, _ in listed], {name: shown for name, shown in listed}
        else:
            names = _tables_and_views(engine, schema)
        names = [n for n in names if pattern is None or pattern.match(n)]
        if full:
            return _listing("full_tables", [(n, kind.get(n, "BASE TABLE")) for n in names], session,
                            f"Tables_in_{schema}")
        return _listing("tables", [(n,) for n in names], session, f"Tables_in_{schema}")
    if cur.accept("COLUMNS", "FIELDS"):
        cur.expect("FROM", "IN")
        table = _table(cur, session, views=True)
        pattern = _filter(cur)
        rows = [r for r in table.describe() if pattern is None or pattern.match(r[0])]
        if full:  # MariaDB's nine columns: Collation after Type, Privileges and Comment at the end
            comments = {c.name: c.comment or "" for c in table.columns}
            if table.schema == infoschema.NAME:  # its views' text is utf8mb3, read only
                rows = [(r[0], r[1], infoschema.view_collation(table.column(r[0])), *r[2:], "select", "")
                        for r in rows]
            else:
                rows = [(r[0], r[1], _collation(table.column(r[0])), *r[2:], _COLUMN_PRIVILEGES, comments[r[0]])
                        for r in rows]
            return _listing("full_columns", rows, session)
        return _listing("columns", rows, session)
    if cur.accept("ENGINE"):  # SHOW ENGINE name STATUS | MUTEX | LOGS
        name = cur.ident()
        status = cur.accept("STATUS")
        if not status:
            cur.expect("MUTEX", "LOGS")
        if name.lower() != "innodb":
            raise SQLError(ER_UNKNOWN_STORAGE_ENGINE, name)
        rows = [("InnoDB", "", _INNODB_STATUS.format(datetime.now().strftime("%Y-%m-%d %H:%M:%S")))] if status else []
        return _result(["Type", "Name", "Status"], rows, session)
    if cur.accept("STORAGE"):
        cur.expect("ENGINES")
        return _listing("engines", [infoschema.ENGINE_ROW], session)
    if cur.accept("ENGINES"):
        return _listing("engines", [infoschema.ENGINE_ROW], session)
    if cur.accept("CREATE"):
        if cur.accept("TRIGGER"):
            schema, name = _named_in_database(cur, session)
            found = engine.trigger(schema, name)
            if found is None:
                raise SQLError(ER_TRG_DOES_NOT_EXIST)
            return _shown_create([("Trigger", 64), ("sql_mode", 8192), ("SQL Original Statement", 1024),
                                  ("character_set_client", 32), ("collation_connection", 64),
                                  ("Database Collation", 64), ("Created", 22)],
                                 (found.name, found.sql_mode, found.show_create(), "utf8mb4", "utf8mb4_general_ci",
                                  engine.options_of(schema).collation, found.created_text()), session)
        if cur.peek() is not None and cur.peek().is_word("PROCEDURE", "FUNCTION", "TRIGGER", "EVENT", "PACKAGE"):
            kind = cur.next().upper
            qualifier, name = cur.qualified()
            schema = qualifier or session.database
            found = engine.routine(schema, kind, name) if schema is not None else None
            if found is None:  # (no event or package exists here: `ddl.DdlParser.drop_routine`)
                raise missing_routine(kind, name)  # (MariaDB names it without its database)
            title = kind.capitalize()
            return _shown_create([(title, 64), ("sql_mode", 8192), (f"Create {title}", 1024),
                                  ("character_set_client", 32), ("collation_connection", 64),
                                  ("Database Collation", 64)],
                                 (found.name, found.sql_mode, found.show_create(), "utf8mb4", "utf8mb4_general_ci",
                                  engine.options_of(schema).collation), session)
        if cur.accept("DATABASE", "SCHEMA"):
            if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
            name = cur.ident()
            if not engine.has_database(name):
                raise SQLError(ER_BAD_DB_ERROR, name)
            text = engine.options_of(name).show_create(name, if_not_exists)
            return _shown_create([("Database", 64), ("Create Database", 1024)], (name, text), session)
        if cur.accept("VIEW"):
            view_schema, name = _named_in_database(cur, session)
            view = engine.view(view_schema, name)
            if view is None:
                table = _table_named(session, view_schema, name)
                raise SQLError(ER_WRONG_OBJECT, table.schema, table.name, "VIEW")
            return _show_create_view(view, session)
        cur.expect("TABLE")
        qualifier, name = cur.qualified()
        schema = qualifier or session.database
        if schema is None:
            raise SQLError(ER_NO_DB_ERROR)
        view = engine.view(schema, name)
        stored = engine.temporary_of(session.temporary_owner)(schema, name) if schema in engine.schemas else None
        if view is not None and stored is None:  # SHOW CREATE TABLE of a view: SHOW CREATE VIEW's answer, as MariaDB's
            return _show_create_view(view, session)
        table = _table_named(session, schema, name)
        if schema not in engine.schemas and schema in system_schemas.OPTIONS:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"SHOW CREATE TABLE of a table in {schema}")
        next_id = engine.next_auto_increment(table) if table.auto_column is not None else None
        text = table.show_create(next_id)
        if stored is not None:  # the session's temporary table: as its CREATE named it
            shown = temporary.shown_name(stored)
            text = text.replace(f"CREATE TABLE {mysql_ident(stored)}", f"CREATE TEMPORARY TABLE {mysql_ident(shown)}", 1)
            return _shown_create([("Table", 64), ("Create Table", 1024)], (shown, text), session)
        return _shown_create([("Table", 64), ("Create Table", 1024)], (table.name, text), session)
    if cur.accept("INDEX", "INDEXES", "KEYS"):
        cur.expect("FROM", "IN")
        table = _table(cur, session)
        # information_schema.STATISTICS' rows of the table, in its order (the indexes', each
        # one's columns): Cardinality counted there; any WHERE over the listing's columns
        where = ""
        if cur.accept("WHERE"):
            where = f" AND ({shape[cur.peek().start:]})" if not cur.at_end() else ""
        if temporary.is_temporary(table.name):
            return _temporary_index(table, where, cur.params)
        return AsSelect(_INDEX + f" WHERE `__schema` = ? AND `__table` = ?{where}",
                        [table.schema, table.name, *cur.params])
    if cur.accept("TABLE"):
        cur.expect("STATUS")
        schema = _schema(cur, session)
        if cur.accept("LIKE"):
            return AsSelect(_TABLE_STATUS + " WHERE `Name` LIKE ? AND `__schema` = ? ORDER BY `Name`",
                            [cur.literal(), schema])
        if cur.accept("WHERE"):  # over the listing's columns: the statement's own literals come first
            condition = shape[cur.peek().start:] if not cur.at_end() else ""
            return AsSelect(_TABLE_STATUS + f" WHERE ({condition}) AND `__schema` = ? ORDER BY `Name`",
                            [*cur.params, schema])
        if not cur.at_end():
            raise cur.error()
        return AsSelect(_TABLE_STATUS + " WHERE `__schema` = ? ORDER BY `Name`", [schema])
    for word in ("TABLE_STATISTICS", "INDEX_STATISTICS", "USER_STATISTICS", "CLIENT_STATISTICS"):
        if cur.accept(word):  # MariaDB's user statistics: its information_schema view (empty here)
            if not cur.at_end():
                raise cur.error()
            return AsSelect(f"SELECT * FROM information_schema.{word}", [])
    # no events, triggers or stored routines exist here: their listings are empty, with mysqld's
    # columns (mariadb-dump --events/--triggers/--routines reads them)
    if cur.accept("EVENTS"):
        _schema(cur, session)
        return _empty_listing(cur, "events", session)
    if cur.accept("TRIGGERS"):  # LIKE matches the table's name, as MariaDB's
        schema = _schema(cur, session)
        collation = engine.options_of(schema).collation
        rows = [t.show_row(collation) for t in triggers.ordered(engine.triggers.get(schema, {}).values())]
        return _listing("triggers", _filtered(cur, "triggers", rows, 2), session)
    if cur.accept("PROCEDURE", "FUNCTION", "PACKAGE"):
        kind = cur.tokens[cur.i - 1].upper
        cur.accept("BODY")
        if cur.accept("CODE"):  # as a MariaDB built without debugging answers it
            raise SQLError(ER_FEATURE_DISABLED, "SHOW PROCEDURE|FUNCTION CODE", "--with-debug")
        cur.expect("STATUS")
        rows = sorted((r.status_row(engine.options_of(r.schema).collation) for schema, kept in engine.routines.items()
                       for r in kept.values() if r.kind == kind), key=lambda row: (row[0], row[1].lower()))
        return _listing("routines", _filtered(cur, "routines", rows, 1), session)
    if cur.accept("PRIVILEGES"):
        if not cur.at_end():
            raise cur.error()
        types = [varchar(chars, flags=ColumnFlag.NOT_NULL) for chars in (10, 15, 64)]  # MariaDB's lengths
        return Result(columns=["Privilege", "Context", "Comment"], column_types=types, rows=list(PRIVILEGES),
                      in_transaction=session.in_transaction)
    # profiling is never on (@@profiling 0, as MariaDB's default): no query was profiled
    if cur.accept("PROFILES"):
        if not cur.at_end():
            raise cur.error()
        return _listing("profiles", [], session)
    if cur.accept("PROFILE"):
        while not cur.at_end():  # [type, ...] [FOR QUERY n] [LIMIT n [OFFSET m]]
            cur.next()
        return _listing("profile", [], session)
    raise cur.error()


# SHOW PRIVILEGES: MariaDB 10.11's rows, in its order
PRIVILEGES = (
    ("Alter", "Tables", "To alter the table"),
    ("Alter routine", "Functions,Procedures", "To alter or drop stored functions/procedures"),
    ("Create", "Databases,Tables,Indexes", "To create new databases and tables"),
    ("Create routine", "Databases", "To use CREATE FUNCTION/PROCEDURE"),
    ("Create temporary tables", "Databases", "To use CREATE TEMPORARY TABLE"),
    ("Create view", "Tables", "To create new views"),
    ("Create user", "Server Admin", "To create new users"),
    ("Delete", "Tables", "To delete existing rows"),
    ("Delete history", "Tables", "To delete versioning table historical rows"),
    ("Drop", "Databases,Tables", "To drop databases, tables, and views"),
    ("Event", "Server Admin", "To create, alter, drop and execute events"),
    ("Execute", "Functions,Procedures", "To execute stored routines"),
    ("File", "File access on server", "To read and write files on the server"),
    ("Grant option", "Databases,Tables,Functions,Procedures", "To give to other users those privileges you possess"),
    ("Index", "Tables", "To create or drop indexes"),
    ("Insert", "Tables", "To insert data into tables"),
    ("Lock tables", "Databases", "To use LOCK TABLES (together with SELECT privilege)"),
    ("Process", "Server Admin", "To view the plain text of currently executing queries"),
    ("Proxy", "Server Admin", "To make proxy user possible"),
    ("References", "Databases,Tables", "To have references on tables"),
    ("Reload", "Server Admin", "To reload or refresh tables, logs and privileges"),
    ("Binlog admin", "Server", "To purge binary logs"),
    ("Binlog monitor", "Server", "To use SHOW BINLOG STATUS and SHOW BINARY LOG"),
    ("Binlog replay", "Server", "To use BINLOG (generated by mariadb-binlog)"),
    ("Replication master admin", "Server", "To monitor connected slaves"),
    ("Replication slave admin", "Server", "To start/stop slave and apply binlog events"),
    ("Slave monitor", "Server", "To use SHOW SLAVE STATUS and SHOW RELAYLOG EVENTS"),
    ("Replication slave", "Server Admin", "To read binary log events from the master"),
    ("Select", "Tables", "To retrieve rows from table"),
    ("Show databases", "Server Admin", "To see all databases with SHOW DATABASES"),
    ("Show view", "Tables", "To see views with SHOW CREATE VIEW"),
    ("Shutdown", "Server Admin", "To shut down the server"),
    ("Super", "Server Admin", "To use KILL thread, SET GLOBAL, CHANGE MASTER, etc."),
    ("Trigger", "Tables", "To use triggers"),
    ("Create tablespace", "Server Admin", "To create/alter/drop tablespaces"),
    ("Update", "Tables", "To update existing rows"),
    ("Set user", "Server", "To create views and stored routines with a different definer"),
    ("Federated admin", "Server", "To execute the CREATE SERVER, ALTER SERVER, DROP SERVER statements"),
    ("Connection admin", "Server", "To bypass connection limits and kill other users' connections"),
    ("Read_only admin", "Server", "To perform write operations even if @@read_only=ON"),
    ("Usage", "Server Admin", "No privileges - allow connect only"),
)


# What the engine honestly is: transactional (one writer at a time, table-level), savepoints,
# no XA. It answers to InnoDB, the name every table is created and shown with.
_COLUMN_PRIVILEGES = "select,insert,update,references"
# SHOW ENGINE INNODB STATUS's text: the monitor's frame around what this engine can say of itself
_INNODB_STATUS = """
=====================================
{} 0x0 INNODB MONITOR OUTPUT
=====================================
This InnoDB is SQLite (one writer at a time), answering to the name InnoDB: it has none of
InnoDB's monitor sections. Its state is in SHOW GLOBAL STATUS, SHOW PROCESSLIST and
information_schema.
----------------------------
END OF INNODB MONITOR OUTPUT
============================
"""
# SHOW TABLE STATUS is information_schema.TABLES under MariaDB's listing names (as MariaDB
# answers it), so its numbers are TABLES' (rows counted, the next AUTO_INCREMENT) and so are its types
_INDEX = ("SELECT `Table`, `Non_unique`, `Key_name`, `Seq_in_index`, `Column_name`, `Collation`, `Cardinality`,"
          " `Sub_part`, `Packed`, `Null`, `Index_type`, `Comment`, `Index_comment`, `Ignored`"
          " FROM (SELECT TABLE_SCHEMA AS `__schema`, TABLE_NAME AS `__table`, TABLE_NAME AS `Table`,"
          " NON_UNIQUE AS `Non_unique`, INDEX_NAME AS `Key_name`, SEQ_IN_INDEX AS `Seq_in_index`,"
          " COLUMN_NAME AS `Column_name`, COLLATION AS `Collation`, CARDINALITY AS `Cardinality`,"
          " SUB_PART AS `Sub_part`, PACKED AS `Packed`, NULLABLE AS `Null`, INDEX_TYPE AS `Index_type`,"
          " COMMENT AS `Comment`, INDEX_COMMENT AS `Index_comment`, IGNORED AS `Ignored`"
          " FROM information_schema.STATISTICS) AS `__index`")
_TABLE_STATUS = ("SELECT `Name`, `Engine`, `Version`, `Row_format`, `Rows`, `Avg_row_length`, `Data_length`,"
                 " `Max_data_length`, `Index_length`, `Data_free`, `Auto_increment`, `Create_time`, `Update_time`,"
                 " `Check_time`, `Collation`, `Checksum`, `Create_options`, `Comment`, `Max_index_length`,"
                 " `Temporary` FROM (SELECT TABLE_SCHEMA AS `__schema`, TABLE_NAME AS `Name`, ENGINE AS `Engine`,"
                 " VERSION AS `Version`, ROW_FORMAT AS `Row_format`, TABLE_ROWS AS `Rows`,"
                 " AVG_ROW_LENGTH AS `Avg_row_length`, DATA_LENGTH AS `Data_length`,"
                 " MAX_DATA_LENGTH AS `Max_data_length`, INDEX_LENGTH AS `Index_length`, DATA_FREE AS `Data_free`,"
                 " AUTO_INCREMENT AS `Auto_increment`, CREATE_TIME AS `Create_time`, UPDATE_TIME AS `Update_time`,"
                 " CHECK_TIME AS `Check_time`, TABLE_COLLATION AS `Collation`, CHECKSUM AS `Checksum`,"
                 " CREATE_OPTIONS AS `Create_options`, TABLE_COMMENT AS `Comment`,"
                 " MAX_INDEX_LENGTH AS `Max_index_length`, TEMPORARY AS `Temporary`"
                 " FROM information_schema.TABLES) AS `__status`")


def _collation(column) -> str | None:
    return None if column is None else infoschema.column_collation(column)[1]


def _filtered(cur: TokenCursor, kind: str, rows: list[tuple], named_at: int) -> list[tuple]:
    """A listing's rows that its LIKE 'pattern' (over the column at `named_at`) or WHERE keeps."""
    like = _filter(cur)
    if like is not None:
        return [row for row in rows if like.match(row[named_at])]
    if cur.accept("WHERE"):
        return _where_equal(cur, [c.name for c in _DECLARED[kind]], rows)
    return rows


def _empty_listing(cur: TokenCursor, kind: str, session: Session) -> Result:
    """An empty SHOW listing after its optional LIKE 'pattern' or WHERE condition (which no row
    could match)."""
    if not _filter(cur) and cur.accept("WHERE"):
        while not cur.at_end():
            cur.next()
    return _listing(kind, [], session)
