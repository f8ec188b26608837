"""DDL statements (CREATE/ALTER/DROP DATABASE, CREATE/DROP/ALTER/RENAME/TRUNCATE TABLE, CREATE/DROP INDEX)
parsed into a `DdlAction`: the SQLite statements to run plus the catalog changes to make once they
succeeded. CREATE [OR REPLACE] / ALTER VIEW store a `View` (its SELECT text) in the catalog;
DROP VIEW removes it (4092 for a name that is no view; a no-op with IF EXISTS, binlogged as
MariaDB does). Parsing reads the catalog but never changes it; the engine applies an action in the
writer thread (inside the writer's open SQLite transaction, like any write) and then updates its
in-memory catalog. ALTER TABLE rebuilds the table (create new, copy, drop, rename, re-index), the
one recipe SQLite supports for every change.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from engine import fixedbin, routines, system_schemas, temporary, triggers, values
from engine.catalog import (
    BLOB_TYPES,
    CHAR_TYPES,
    FIXEDBIN_TYPES,
    INT_TYPES,
    NUMERIC_TYPES,
    REAL_TYPES,
    Check,
    Column,
    DatabaseOptions,
    ForeignKey,
    Index,
    Table,
    TokenCursor,
    View,
    check_table,
    mysql_literal,
    number_checks,
    order_indexes,
    parse_column,
    parse_database_options,
    parse_default,
    parse_table_element,
    parse_table_options,
    primary_not_null,
    sql_literal,
    sqlite_index_name,
)
from engine.exprtypes import repeated_name, selected_names
from engine.functions import VOLATILE, raise_sql
from engine.lexer import Token, extract, literal_texts, mysql_ident, quote_ident, tokenize
from engine.routines import Routine
from engine.translate import STORE, Translator
from engine.triggers import Trigger, check_rows
from protocol.charsets import CHARSETS
from protocol.errors import (
    ER_ALTER_OPERATION_NOT_SUPPORTED,
    ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
    ER_BAD_DB_ERROR,
    ER_BAD_FIELD_ERROR,
    ER_BAD_TABLE_ERROR,
    ER_BINLOG_CREATE_ROUTINE_NEED_SUPER,
    ER_BINLOG_UNSAFE_ROUTINE,
    ER_CANT_CREATE_FILE,
    ER_CANT_CREATE_TABLE,
    ER_CANT_DROP_FIELD_OR_KEY,
    ER_DATA_TOO_LONG,
    ER_DB_CREATE_EXISTS,
    ER_DB_DROP_EXISTS,
    ER_DROP_INDEX_FK,
    ER_DUP_CONSTRAINT_NAME,
    ER_DUP_FIELDNAME,
    ER_DUP_KEYNAME,
    ER_EVENT_DOES_NOT_EXIST,
    ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED,
    ER_KEY_COLUMN_DOES_NOT_EXIST,
    ER_KEY_DOES_NOT_EXISTS,
    ER_MULTIPLE_PRI_KEY,
    ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE,
    ER_NO_TRIGGERS_ON_SYSTEM_SCHEMA,
    ER_NON_UNIQ_ERROR,
    ER_NOT_SUPPORTED_YET,
    ER_REFERENCED_TRG_DOES_NOT_EXIST,
    ER_ROW_IS_REFERENCED_TABLE,
    ER_SP_ALREADY_EXISTS,
    ER_SP_DOES_NOT_EXIST,
    ER_SUBQUERIES_NOT_SUPPORTED,
    ER_TABLE_EXISTS_ERROR,
    ER_TRG_ALREADY_EXISTS,
    ER_TRG_DOES_NOT_EXIST,
    ER_TRG_IN_WRONG_SCHEMA,
    ER_TRG_ON_VIEW_OR_TEMP_TABLE,
    ER_TRUNCATE_ILLEGAL_FK,
    ER_TRUNCATED_NUMBER,
    ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
    ER_UNKNOWN_ERROR,
    ER_UNKNOWN_VIEW,
    ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN,
    ER_WRONG_DB_NAME,
    ER_WRONG_OBJECT,
    ER_WRONG_USAGE,
    WARN_DATA_TRUNCATED,
    SQLError,
)

# what a generated column may not read: the statement's time, random numbers, the session
_NUMBER_TEXT = re.compile(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_NOW_WORDS = ("NOW", "LOCALTIME", "LOCALTIMESTAMP", "CURRENT_TIMESTAMP")
_UNREPEATABLE = (*_NOW_WORDS, "SYSDATE", "CURDATE", "CURRENT_DATE", "CURTIME", "CURRENT_TIME", "UTC_TIMESTAMP",
                 "UTC_DATE", "UTC_TIME", "RAND", "UUID", "UUID_SHORT", "CONNECTION_ID", "USER", "CURRENT_USER",
                 "SESSION_USER", "SYSTEM_USER", "DATABASE", "SCHEMA", "LAST_INSERT_ID", "ROW_COUNT", "FOUND_ROWS",
                 "SLEEP", "GET_LOCK", "RELEASE_LOCK", "IS_FREE_LOCK", "IS_USED_LOCK", "BENCHMARK", "VERSION")
RESERVED_SCHEMAS = {"main", "temp", "information_schema", "performance_schema", "mysql", "sys"}
_ROUTINES = ("PROCEDURE", "FUNCTION", "TRIGGER", "EVENT")


def follow_rename(tables: list[Table], schema: str, old_name: str, new_name: str) -> list[Table]:
    """The `tables` whose foreign keys referenced `schema`.`old_name`, now referencing `new_name`
    (InnoDB's, for RENAME TABLE and ALTER TABLE ... RENAME TO; the tables are changed)."""
    changed = []
    for table in tables:
        keys = [fk for fk in table.foreign_keys if (fk.ref_schema, fk.ref_table.lower()) == (schema, old_name.lower())]
        for fk in keys:
            fk.ref_table = new_name
        if keys:
            changed.append(table)
    return changed


def missing_routine(kind: str, name: str, schema: str | None = None) -> SQLError:
    """MariaDB's error for a stored program (PROCEDURE, FUNCTION, PACKAGE, TRIGGER, EVENT) that
    does not exist; a procedure's or function's named `schema`.`name` (SHOW CREATE names it
    without its database: `schema` None)."""
    if kind == "TRIGGER":
        return SQLError(ER_TRG_DOES_NOT_EXIST)
    if kind == "EVENT":
        return SQLError(ER_EVENT_DOES_NOT_EXIST, name)
    return SQLError(ER_SP_DOES_NOT_EXIST, kind, name if schema is None else f"{schema}.{name}")


def _routine_word(cur: TokenCursor) -> str | None:
    """CREATE [OR REPLACE] [DEFINER = user] [AGGREGATE] PROCEDURE / FUNCTION / TRIGGER / EVENT /
    PACKAGE ...: that word (None for any other CREATE), read without moving the cursor."""
    i = cur.i
    if cur.tokens[i:i + 1] and cur.tokens[i].is_word("DEFINER"):
        i += 2  # DEFINER =
        while i < len(cur.tokens) and not cur.tokens[i].is_word(*_ROUTINES, "PACKAGE", "AGGREGATE", "VIEW", "SQL",
                                                                 "ALGORITHM"):
            i += 1  # 'user'@'host', CURRENT_USER[()]
    if i < len(cur.tokens) and cur.tokens[i].is_word("AGGREGATE"):
        i += 1
    if i < len(cur.tokens) and cur.tokens[i].is_word(*_ROUTINES, "PACKAGE"):
        return cur.tokens[i].upper
    return None


# what MariaDB's CREATE / ALTER VIEW answers of its SELECT's names: an unknown database, table or
# column, an ambiguous column (not an unknown function's 1305: one MariaDB has and this engine
# lacks would stop a replica's applier, where the view is made and only reading it fails)
VIEW_NAME_ERRORS = frozenset({ER_BAD_DB_ERROR.code, ER_NO_SUCH_TABLE.code, ER_BAD_FIELD_ERROR.code,
                              ER_NON_UNIQ_ERROR.code})


@dataclass
class DdlAction:
    schema: str  # the schema whose file the action writes (for the commit's meta)
    sql: list[str] = field(default_factory=list)
    put: list[Table] = field(default_factory=list)  # catalog entries to (re)write
    delete: list[tuple[str, str]] = field(default_factory=list)  # catalog entries to remove
    reset_auto: list[tuple[str, str]] = field(default_factory=list)
    # tables whose AUTO_INCREMENT counter a rebuild keeps (ALTER TABLE, as InnoDB's), at least
    # MAX + 1 of their rows
    keep_auto: list[tuple[str, str]] = field(default_factory=list)
    # (schema, old name, new name) of tables renamed with their counter (RENAME TABLE, ALTER TABLE
    # ... RENAME TO), one after the other
    moved_auto: list[tuple[str, str, str]] = field(default_factory=list)
    # foreign keys ALTER TABLE adds: existing rows are checked after the rebuild (1452)
    check_foreign_keys: list[tuple[Table, ForeignKey]] = field(default_factory=list)
    create_schema: str | None = None
    drop_schema: str | None = None
    # the options of the database it creates (`create_schema`) or alters (`schema`)
    database_options: DatabaseOptions | None = None
    noop: bool = False  # IF [NOT] EXISTS made it a no-op (still binlogged, as MySQL does)
    put_views: list[View] = field(default_factory=list)
    # each view's SELECT as reading it runs (SQL and arguments: `Session`'s plan of it), compiled
    # on the writer before the view is stored, so that a SELECT naming an unknown table or column
    # fails the statement with MariaDB's error (`VIEW_NAME_ERRORS`) and makes nothing (another
    # error, of what this engine does not run, still makes it, as MariaDB would)
    view_selects: list[tuple[str, list[object]]] = field(default_factory=list)
    drop_views: list[tuple[str, str]] = field(default_factory=list)
    put_triggers: list[Trigger] = field(default_factory=list)
    drop_triggers: list[tuple[str, str]] = field(default_factory=list)
    put_routines: list[Routine] = field(default_factory=list)
    drop_routines: list[Routine] = field(default_factory=list)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)  # RENAME TABLE's (schema, old, new)
    # DROP VIEW naming existing and missing views: the existing ones are dropped (and only they
    # binlogged, as `logged`), then the statement answers 4092, as MariaDB does
    late_error: SQLError | None = None
    logged: str | None = None
    # False: nothing binlogged (DROP TEMPORARY TABLE IF EXISTS that drops none, as MariaDB 10.11)
    binlogged: bool = True
    # `logged` is binlogged without a default database (its names qualified)
    logged_bare: bool = False
    # binlogged before `logged`, each its own statement: (text, without a default database);
    # a DROP TABLE of temporary and base tables logs the temporary ones' DROP TEMPORARY first
    logged_first: list[tuple[str, bool]] = field(default_factory=list)
    # what IF [NOT] EXISTS turned from an error into a note (SHOW WARNINGS' level "Note")
    notes: list[SQLError] = field(default_factory=list)
    # the OK carries "Records: 0  Duplicates: 0  Warnings: n" (ALTER TABLE, CREATE / DROP INDEX)
    records: bool = False
    # an ALTER TABLE MariaDB runs by copying the table (`copy_reason`, ALGORITHM=COPY): the table
    # whose rows it copies, counted by the run into `rows_copied` (the OK's affected rows and
    # its "Records: n")
    copied: tuple[str, str] | None = None
    rows_copied: int = 0
    # ALTER IGNORE TABLE: the copy leaves out each row meeting a unique key, counted by the run
    # into `duplicates` (the OK's "Duplicates: n"; its "Records: n" counts them too, as MariaDB's)
    ignore: bool = False
    duplicates: int = 0
    # columns a rebuild makes NOT NULL from nullable ones: (schema, old table, its column, the new
    # column's name, its rows' order), checked before the copy (`NullFill`)
    null_fills: list[NullFill] = field(default_factory=list)
    strict: bool = True  # the session's sql_mode was strict: a NULL there fails the ALTER
    warnings: list[tuple[str, int, str]] = field(default_factory=list)  # (level, code, message), set by the run


@dataclass
class NullFill:
    """A column that ALTER TABLE turns NOT NULL while the old one may hold NULL. MariaDB copies
    each row's NULL as the type's implicit default (0, '', the zero date ...) with a 1265 warning
    "at row n" (its place in the copy's order), and strict mode makes the first one the ALTER's
    error. The copy writes COALESCE(old, implicit); the run lists the rows first (`rows_sql`)."""

    schema: str
    table: str
    column: str
    new_name: str
    order: list[str]  # the old table's primary key columns (empty: rowid)

    def rows_sql(self) -> str:
        q = quote_ident
        order = ", ".join(q(c) for c in self.order) or "rowid"
        return (f"SELECT n FROM (SELECT ROW_NUMBER() OVER (ORDER BY {order}) AS n, {q(self.column)} AS v "
                f"FROM {q(self.schema)}.{q(self.table)}) WHERE v IS NULL")


def _implicit_default(col: Column) -> object:
    """The value MySQL gives a NOT NULL column where a row has none: 0, the zero fixed-binary
    value, or ''."""
    return 0 if col.base in INT_TYPES | REAL_TYPES | NUMERIC_TYPES else \
        fixedbin.ZERO_TEXT[col.base] if col.base in FIXEDBIN_TYPES else ""


def not_supported(asked: str, reason: str, instead: str) -> None:
    """MariaDB's refusal of an ALTER TABLE's ALGORITHM= / LOCK= that the change cannot have: 1846
    with InnoDB's reason, 1845 where it names none."""
    if not reason:
        raise SQLError(ER_ALTER_OPERATION_NOT_SUPPORTED, asked, instead)
    raise SQLError(ER_ALTER_OPERATION_NOT_SUPPORTED_REASON, asked, reason, instead)


def copy_reason(old: Table, new: Table, renamed: dict[str, str], added_keys: list[ForeignKey]) -> str | None:
    """Why MariaDB's InnoDB copies the table for an ALTER TABLE that makes `new` of `old`
    (`ha_innobase::check_if_supported_inplace_alter`'s reason, which its 1846 names; "" where it
    names none: 1845), None where it changes it in place or instantly: a kept column stored
    otherwise (another type, sign, length or character set; a longer VARCHAR whose rows keep
    their length bytes is instant), a STORED generated column or a table CHECK added, the
    primary key dropped without another, a foreign key added while foreign_key_checks is on
    (`added_keys`)."""
    for col in new.columns:
        source = old.column(renamed.get(col.name, col.name))
        if source is None:
            if col.generated is not None and col.stored:
                return ""
            continue
        if _stored_as(source) != _stored_as(col) and not _longer_varchar(source, col) \
                and not _members_appended(source, col):
            return "Cannot change column type"
    if old.primary is not None and new.primary is None:
        return "Dropping a primary key is not allowed without also adding a new primary key"
    if added_keys:
        return "Adding foreign keys needs foreign_key_checks=OFF"
    checks = {c.name.lower() for c in old.checks if c.column is None}
    if any(c.column is None and c.name.lower() not in checks for c in new.checks):
        return ""
    return None


def _stored_as(col: Column) -> tuple:
    """What InnoDB's record holds of a column: its type (an integer's display width aside), sign,
    character set and collation."""
    args = () if col.base in INT_TYPES else tuple(col.args)
    charset = (col.charset or "utf8mb4", col.collation_name) if col.base in CHAR_TYPES else None
    return col.base, args, col.unsigned, col.binary, charset, col.generated


def _members_appended(old: Column, new: Column) -> bool:
    """An ENUM or SET given members after its own, stored in as many bytes (`Field_enum::is_equal`:
    only the table's metadata changes, instantly): an ENUM's one byte up to 255 members, then
    two; a SET's one per 8 members, 8 past 32."""
    if old.base != new.base or old.base not in ("enum", "set") or _stored_as(old)[2:] != _stored_as(new)[2:]:
        return False
    before, after = old.members, new.members
    return after[:len(before)] == before and _members_bytes(old.base, len(before)) == _members_bytes(new.base, len(after))


def _members_bytes(base: str, count: int) -> int:
    if base == "enum":
        return 1 if count < 256 else 2
    size = (count + 7) // 8
    return 8 if size > 4 else size


def _longer_varchar(old: Column, new: Column) -> bool:
    """A VARCHAR made longer in the same character set whose rows keep their length bytes
    (InnoDB's instant change): one byte where the longest value took at most 127 bytes or still
    takes at most 255, two where it took more than 255 already."""
    if old.base != "varchar" or new.base != "varchar" or _stored_as(old)[2:] != _stored_as(new)[2:]:
        return False
    size = CHARSETS[old.charset or "utf8mb4"].mbmaxlen if (old.charset or "utf8mb4") in CHARSETS else 4
    before, after = int(old.args[0]) * size, int(new.args[0]) * size
    return after >= before and (before <= 127 or after <= 255 or before > 255)


class CopyStore:
    """ALTER TABLE's copy of a column it stores in another type (`DdlParser.rebuild`): each row's
    value stored as MariaDB's copy stores it (`values.store`: in strict mode its error, else
    the value adjusted with a warning; a string cut 1265 either way, MariaDB's Copy_field), by
    the writer connection's `mysql_alter_store(value, key, column)`, rows counted per column
    from `begin()` (one ALTER at a time: the writer thread's)."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        self.warnings: list[tuple] = []  # (row, level, code, message), in the copy's order

    def register(self, conn) -> None:
        conn.create_function("mysql_alter_store", 3, self.store)

    def begin(self) -> None:
        self.rows, self.warnings = {}, []

    def warned(self) -> list[tuple[str, int, str]]:
        """The copy's warnings, (level, code, message), in MariaDB's words (`copied_words`)."""
        return [(level, *_copied_words(code, message)) for _row, level, code, message in self.warnings]

    def store(self, value: object, key: str, column: str) -> object:
        row = self.rows[key] = self.rows.get(key, 0) + 1
        try:
            return values.store_target(key, value, row, self.warnings)
        except SQLError as exc:
            if exc.code == ER_DATA_TOO_LONG.code:  # (MariaDB's copy cuts it: 1265)
                raise_sql(SQLError(WARN_DATA_TRUNCATED, column, row))
            if exc.code == ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.code:
                raise_sql(SQLError(ER_TRUNCATED_NUMBER, *_copied_value(exc.message)))
            raise_sql(exc)


def _copied_value(message: str) -> tuple[str, str]:
    """The type and value a 1366 names ("Incorrect integer value: 'x' for column ...")."""
    return message.split()[1].upper(), message.split("'")[1]


def _copied_words(code: int, message: str) -> tuple[int, str]:
    """An INSERT's 1366 as MariaDB's ALTER TABLE copy says it: 1292, the value alone."""
    if code != ER_TRUNCATED_WRONG_VALUE_FOR_FIELD.code:
        return code, message
    error = SQLError(ER_TRUNCATED_NUMBER, *_copied_value(message))
    return error.code, error.message


def account_text(user: str, host: str) -> str:
    """An account as a DEFINER writes it: `user`@`host`."""
    return f"{mysql_ident(user)}@{mysql_ident(host)}"


class DdlParser:
    """`catalog(schema, table)` -> Table | None; `schemas` the existing schema names."""

    def __init__(self, cur: TokenCursor, database: str | None, catalog, schemas: set[str]):
        self.cur = cur
        self.database = database
        # the account running the statement as a DEFINER writes it (`user`@`host`), None where
        # none logged in (a replica's applier: the statement names its definer)
        self.current_user: str | None = None
        # a client's CREATE FUNCTION rule: () -> (it applies, the account holds SUPER); None where
        # none logged in (`check_function_creator`)
        self.creator_checks: Callable[[], tuple[bool, bool]] | None = None
        self.catalog = catalog
        self.schemas = schemas
        # foreign_key_checks=0 (mariadb-dump's): a foreign key may reference a table not made yet,
        # and a referenced table may be dropped
        self.foreign_key_checks = True
        self.all_tables: Callable[[], Iterable[Table]] = lambda: ()  # every schema's tables
        self.added_keys: list[ForeignKey] = []  # by ALTER TABLE ... ADD FOREIGN KEY
        self.view_of: Callable[[str, str], View | None] = lambda schema, name: None
        self.shape = ""  # the statement's shape (the tokens' text), for a view's SELECT
        self.database_options: Callable[[str], DatabaseOptions] = lambda schema: DatabaseOptions()
        self.trigger_of: Callable[[str, str], Trigger | None] = lambda schema, name: None
        self.triggers_in: Callable[[str], Iterable[Trigger]] = lambda schema: ()
        self.sql_mode = ""  # the session's, as a trigger keeps it
        self.routine_of: Callable[[str, str, str], Routine | None] = lambda schema, kind, name: None
        self.notes: list[SQLError] = []  # what ALTER TABLE's IF [NOT] EXISTS clauses skipped
        self.counter_set = False  # an ALTER TABLE's AUTO_INCREMENT = n: the counter set again
        self.algorithm: str | None = None  # an ALTER TABLE's ALGORITHM = ..., its last
        self.lock: str | None = None  # an ALTER TABLE's LOCK = ..., its last (ALTER ONLINE: NONE)
        self.ignore = False  # ALTER IGNORE TABLE: a row meeting a unique key in the copy left out
        self.order_by: list[tuple[str, bool]] | None = None  # an ALTER TABLE's ORDER BY: (column, DESC)
        # (schema, name) -> the stored name of the session's temporary table `name`, None where it
        # has none; name -> the stored name of a temporary table it makes (`engine.temporary`)
        self.temporary: Callable[[str, str], str | None] = lambda schema, name: None
        self.temporary_name: Callable[[str], str] | None = None

    def table_name(self, written: bool = True, resolve: bool = True) -> tuple[str, str]:
        """The [schema.]name named next; `written`: a table or view the statement makes, changes
        or drops, which cannot be one of a system database's (`system_schemas`: 1235);
        `resolve`: an existing table's, the session's temporary table's stored name first."""
        schema, name = self.cur.qualified()
        if schema is None:
            if self.database is None:
                raise SQLError(ER_NO_DB_ERROR)
            schema = self.database
        if written and schema in system_schemas.OPTIONS and schema not in self.schemas:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"changing the tables of the {schema} database")
        return schema, (resolve and self.temporary(schema, name)) or name

    def renamed_name(self, name: str, written: str) -> str:
        """The stored name a RENAME gives the table stored as `name` for the `written` new name:
        a temporary table stays the session's, under that name (MariaDB renames it in the
        session's own names, whatever base table has it)."""
        if not temporary.is_temporary(name):
            return written
        if self.temporary_name is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "RENAME of a temporary table here")
        return self.temporary_name(written)

    def existing(self, schema: str, name: str) -> Table:
        table = self.catalog(schema, name)
        if table is None:
            raise SQLError(ER_NO_SUCH_TABLE, schema, name)
        return table

    def done(self, action: DdlAction) -> DdlAction:
        if not self.cur.at_end():
            raise self.cur.error()
        return action

    def parse(self) -> DdlAction:
        cur = self.cur
        if cur.accept("CREATE"):
            replace = cur.accept_words("OR", "REPLACE")
            routine = _routine_word(cur)
            if routine == "TRIGGER":
                return self.create_trigger(replace)
            if routine in ("PROCEDURE", "FUNCTION"):
                return self.create_routine(replace)
            if routine is not None:  # no events or packages here (none can exist: see `drop_routine`)
                raise SQLError(ER_NOT_SUPPORTED_YET, f"CREATE {routine}")
            options = self.view_options()
            if options is not None:
                return self.create_view(options, replace=replace, alter=False)
            if cur.accept("DATABASE", "SCHEMA"):
                return self.create_database()
            made_temporary = cur.accept("TEMPORARY")
            if cur.accept("TABLE"):
                return self.create_table(made_temporary)
            if cur.accept("SEQUENCE"):
                raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE SEQUENCE")
            unique = cur.accept("UNIQUE")
            cur.accept("FULLTEXT", "SPATIAL")
            if cur.accept("INDEX"):
                return self.create_index(unique)
        elif cur.accept("DROP"):
            if cur.accept("DATABASE", "SCHEMA"):
                return self.drop_database()
            if cur.accept("TRIGGER"):
                return self.drop_trigger()
            if cur.peek() is not None and cur.peek().is_word(*_ROUTINES):
                return self.drop_routine(cur.next().upper)
            if cur.accept("VIEW"):
                return self.drop_view()
            only_temporary = cur.accept("TEMPORARY")
            if cur.accept("TABLE", "TABLES"):
                return self.drop_table(only_temporary)
            if cur.accept("INDEX"):
                if_exists = cur.accept_words("IF", "EXISTS")
                name = cur.ident()
                cur.expect("ON")
                schema, table_name = self.table_name()
                old = self.existing(schema, table_name)
                if if_exists and not any(i.name.lower() == name.lower() for i in old.indexes):
                    return self.done(DdlAction(schema, noop=True, records=True,
                                               notes=[SQLError(ER_CANT_DROP_FIELD_OR_KEY, "INDEX", name)]))
                table = copy.deepcopy(old)
                self.drop_index(table, name)
                self.check_foreign_key_indexes(table, old)
                action = self.rebuild(table, old, {})
                action.records = True
                return self.done(action)
        elif cur.accept("ALTER"):
            if cur.peek() is not None and cur.peek().is_word(*_ROUTINES):
                kind = cur.next().upper
                schema, name = self.routine_name(kind)
                if self.routine_of(schema, kind, name) is not None:
                    raise SQLError(ER_NOT_SUPPORTED_YET, f"ALTER {kind}")
                raise missing_routine(kind, name, schema)
            if cur.accept("DATABASE", "SCHEMA"):
                return self.alter_database()
            options = self.view_options()
            if options is not None:
                return self.create_view(options, replace=True, alter=True)
            online = cur.accept("ONLINE")
            ignore = cur.accept("IGNORE")
            if cur.accept("TABLE"):
                self.lock = "NONE" if online else None
                self.ignore = ignore
                return self.alter_table()
        elif cur.accept("RENAME"):
            cur.expect("TABLE")
            return self.rename_tables()
        elif cur.accept("TRUNCATE"):
            cur.accept("TABLE")
            schema, name = self.table_name()
            table = self.existing(schema, name)
            if self.foreign_key_checks:
                for child in self.all_tables():
                    for fk in child.foreign_keys:
                        if (fk.ref_schema, fk.ref_table.lower()) == (schema, name.lower()) and (
                                child.schema, child.name.lower()) != (schema, name.lower()):
                            raise SQLError(ER_TRUNCATE_ILLEGAL_FK, f"`{child.schema}`.`{child.name}`, CONSTRAINT "
                                                                   f"`{fk.name}` {fk.describe(None)}")
            action = DdlAction(schema, [f"DELETE FROM {quote_ident(schema)}.{quote_ident(name)}"],
                               reset_auto=[(schema, name)])
            if table.auto_increment_start is not None:  # (InnoDB's TRUNCATE counts from 1, its AUTO_INCREMENT= gone)
                restarted = copy.deepcopy(table)
                restarted.auto_increment_start = None
                action.put.append(restarted)
            return self.done(action)
        raise cur.error()

    # --- stored programs: none exist ----------------------------------------------------------

    def routine_name(self, kind: str) -> tuple[str, str]:
        """A stored program's [db.]name (a trigger's or event's in the current database when
        unqualified, as the others'; 1046 without one)."""
        schema, name = self.cur.qualified()
        schema = schema or self.database
        if schema is None:
            raise SQLError(ER_NO_DB_ERROR)
        return schema, name

    def drop_routine(self, kind: str) -> DdlAction:
        """DROP PROCEDURE / FUNCTION / EVENT [IF EXISTS] x: a procedure or function the schema
        keeps is dropped; else MariaDB's error, or with IF EXISTS its note (still binlogged, as
        MariaDB does). No event exists here (CREATE EVENT is 1235)."""
        if_exists = self.cur.accept_words("IF", "EXISTS")
        schema, name = self.routine_name(kind)
        self.done(DdlAction(schema))
        found = self.routine_of(schema, kind, name)
        if found is not None:
            return DdlAction(schema, drop_routines=[found])
        if not if_exists:
            raise missing_routine(kind, name, schema)
        note = SQLError(ER_SP_DOES_NOT_EXIST, "Event", name) if kind == "EVENT" else missing_routine(kind, name, schema)
        return DdlAction(schema, noop=True, notes=[note])

    def create_routine(self, replace: bool) -> DdlAction:
        """CREATE [OR REPLACE] [DEFINER = user] {PROCEDURE | FUNCTION} [IF NOT EXISTS] [db.]name
        (params) [RETURNS type] [characteristics] body: kept as written (`engine.routines`),
        binlogged as MariaDB writes it (`Routine.show_create` with its DEFINER)."""
        cur = self.cur
        definer = self.current_user
        if cur.accept("DEFINER"):
            cur.expect_op("=")
            definer = self.account() or definer
        if cur.peek().is_word("AGGREGATE"):
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE AGGREGATE FUNCTION")
        kind = cur.next().upper
        if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
        if replace and if_not_exists:
            raise SQLError(ER_WRONG_USAGE, "OR REPLACE", "IF NOT EXISTS")
        schema, name = self.routine_name(kind)
        cur.expect_op("(")
        start, depth = cur.i, 1
        while depth:
            if cur.at_end():
                raise cur.error()
            tok = cur.next()
            if tok.kind == "op" and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
        params = self.written_from(start, cur.i - 1) if cur.i - 1 > start else ""
        routine = Routine(schema, name, kind, params, "", definer=definer or "`root`@`localhost`",
                          created=time.time(), sql_mode=self.sql_mode)
        if kind == "FUNCTION":
            cur.expect("RETURNS")
            type_at = cur.i
            cur.next()
            if cur.accept_op("("):
                while not cur.accept_op(")"):
                    cur.next()
            while not cur.at_end() and cur.peek().is_word("UNSIGNED", "SIGNED", "ZEROFILL", "BINARY", "CHARSET",
                                                          "CHARACTER", "COLLATE", "SET"):
                if cur.next().is_word("CHARSET", "COLLATE", "SET"):
                    cur.next()
            routine.returns = self.returned_type(type_at, cur.i)
        while not cur.at_end():
            if cur.accept("LANGUAGE"):
                cur.expect("SQL")
            elif cur.accept("NOT"):
                cur.expect("DETERMINISTIC")
                routine.deterministic = False
            elif cur.accept("DETERMINISTIC"):
                routine.deterministic = True
            elif cur.accept("CONTAINS"):
                cur.expect("SQL")
                routine.access = ""
            elif cur.accept("NO"):
                cur.expect("SQL")
                routine.access = "NO SQL"
            elif cur.accept("READS", "MODIFIES"):
                routine.access = f"{cur.tokens[cur.i - 1].upper} SQL DATA"
                cur.expect("SQL")
                cur.expect("DATA")
            elif cur.peek().is_word("SQL") and cur.i + 1 < len(cur.tokens) and cur.tokens[cur.i + 1].is_word("SECURITY"):
                cur.i += 2
                routine.security = cur.next().upper
            elif cur.accept("COMMENT"):
                routine.comment = str(cur.literal())
            else:
                break
        if cur.at_end():
            raise cur.error()
        routine.body = self.written_from(cur.i)
        routines.check_body(routine.body, kind, self.shape.count("\n", 0, cur.tokens[cur.i].start) + 1)
        cur.i = len(cur.tokens)
        routine.parsed = routines.parse_params(params, kind)
        if schema not in self.schemas:
            raise SQLError(ER_BAD_DB_ERROR, schema)
        logged = routine.show_create("CREATE OR REPLACE" if replace else "CREATE",
                                     qualified=schema != self.database)
        if if_not_exists:
            logged = logged.replace(f" {kind} ", f" {kind} IF NOT EXISTS ", 1)
        if self.routine_of(schema, kind, name) is not None and not replace:
            if if_not_exists:
                return DdlAction(schema, noop=True, notes=[SQLError(ER_SP_ALREADY_EXISTS, kind, name)], logged=logged)
            raise SQLError(ER_SP_ALREADY_EXISTS, kind, name)
        if kind == "FUNCTION":
            self.check_function_creator(routine)
        return DdlAction(schema, put_routines=[routine], logged=logged)

    def check_function_creator(self, routine: Routine) -> None:
        """MariaDB's binlog rule for a client's CREATE FUNCTION (sp.cc's sp_create_routine), where
        `creator_checks` says it applies (the binlog open, log_bin_trust_function_creators OFF):
        1418 for a function none of DETERMINISTIC, NO SQL, READS SQL DATA, whoever makes it, then
        1419 for an account without SUPER."""
        if self.creator_checks is None:
            return
        applies, trusted = self.creator_checks()
        if not applies:
            return
        if routines.unsafe_to_log(routine):
            raise SQLError(ER_BINLOG_UNSAFE_ROUTINE)
        if not trusted:
            raise SQLError(ER_BINLOG_CREATE_ROUTINE_NEED_SUPER)

    def returned_type(self, start: int, end: int) -> str:
        """A function's RETURNS type as MariaDB shows it (its column type's text; a string's with
        its database's character set and collation where it names none)."""
        sub = TokenCursor(self.cur.tokens[start:end], self.cur.params, self.cur.text)
        try:
            column = parse_column(sub, "", [])
        except SQLError:
            return self.written_from(start, end)
        text = column.type_text
        if column.base in ("char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum", "set"):
            options = self.database_options(self.database or "")
            charset = column.charset or options.charset
            text += f" CHARSET {charset} COLLATE {column.collation or (options.collation if charset == options.charset else charset + '_general_ci')}"
        return text

    # --- databases -------------------------------------------------------------------------

    def create_database(self) -> DdlAction:
        cur = self.cur
        if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
        name = cur.ident()
        options = parse_database_options(cur, DatabaseOptions()) if not cur.at_end() else DatabaseOptions()
        if not name or len(name) > 64 or name.startswith(".") or any(c in name for c in "/\\\0"):
            raise SQLError(ER_WRONG_DB_NAME, name)  # the name is a file name in the datadir
        exists = name in self.schemas or name in system_schemas.OPTIONS
        if not exists and (name.lower() in RESERVED_SCHEMAS or name.startswith("__engine")):
            raise SQLError(ER_UNKNOWN_ERROR, f"Database name '{name}' is reserved by the embedded engine")
        if exists:
            if if_not_exists:
                return DdlAction(name, noop=True, notes=[SQLError(ER_DB_CREATE_EXISTS, name)])
            raise SQLError(ER_DB_CREATE_EXISTS, name)
        return DdlAction(name, create_schema=name, database_options=options)

    def alter_database(self) -> DdlAction:
        """ALTER DATABASE [name] options: the current database's without a name (1046 without
        one); MariaDB's error 1 (its db.opt not written) for a database that does not exist."""
        cur = self.cur
        if cur.peek().kind == "ident" or cur.peek().kind == "word" and not cur.peek().is_word(
                "DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "COMMENT", "UPGRADE"):
            name = cur.ident()
        elif self.database is None:
            raise SQLError(ER_NO_DB_ERROR)
        else:
            name = self.database
        if cur.accept("UPGRADE"):  # (MariaDB's for a name made by MySQL 5.0's file names only)
            raise SQLError(ER_WRONG_USAGE, "ALTER DATABASE UPGRADE DATA DIRECTORY NAME", "name")
        options = parse_database_options(cur, self.database_options(name))
        if name not in self.schemas:
            if name.lower() in RESERVED_SCHEMAS:
                raise SQLError(ER_NOT_SUPPORTED_YET, f"ALTER DATABASE {name}")
            raise SQLError(ER_CANT_CREATE_FILE, f"./{name}/db.opt", '2 "No such file or directory"')
        return DdlAction(name, database_options=options)

    def drop_database(self) -> DdlAction:
        cur = self.cur
        if_exists = cur.accept_words("IF", "EXISTS")
        name = cur.ident()
        self.done(DdlAction(name))
        if name in system_schemas.OPTIONS and name not in self.schemas:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"DROP DATABASE {name}")
        if name not in self.schemas:
            if if_exists:
                return DdlAction(name, noop=True, notes=[SQLError(ER_DB_DROP_EXISTS, name)])
            raise SQLError(ER_DB_DROP_EXISTS, name)
        return DdlAction(name, drop_schema=name)

    # --- tables ----------------------------------------------------------------------------

    def create_table(self, made_temporary: bool = False) -> DdlAction:
        """CREATE [TEMPORARY] TABLE: a temporary table under its stored name (`engine.temporary`),
        whatever base table has its name."""
        cur = self.cur
        if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
        schema, written = self.table_name(resolve=False)
        if schema not in self.schemas:
            raise SQLError(ER_BAD_DB_ERROR, schema)
        if made_temporary and self.temporary_name is None:
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE TEMPORARY TABLE here")
        name = self.temporary_name(written) if made_temporary and self.temporary_name is not None else written
        if cur.peek() is not None and (cur.peek().is_word("AS", "SELECT") or (
                cur.peek().text == "(" and cur.peek(1) is not None and cur.peek(1).is_word("SELECT"))):
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE TABLE ... SELECT")
        if cur.accept("LIKE"):
            src_schema, src_name = self.table_name(written=False)
            table = copy.deepcopy(self.existing(src_schema, src_name))
            table.schema, table.name = schema, name
            table.auto_increment_start = None  # the copy counts from 1, as MariaDB's
            if made_temporary:  # (its foreign keys left out: InnoDB's temporary tables have none)
                table.foreign_keys = []
        else:
            columns: list[Column] = []
            indexes: list[Index] = []
            foreign_keys: list[ForeignKey] = []
            checks: list[Check] = []
            cur.expect_op("(")
            while True:
                parse_table_element(cur, columns, indexes, foreign_keys, checks)
                if cur.accept_op(")"):
                    break
                cur.expect_op(",")
            table = Table(schema, name, columns, indexes, foreign_keys=foreign_keys, checks=checks)
            options = parse_table_options(cur)  # (1235 at a SELECT)
            table.auto_increment_start = options.auto_increment
            if options.charset is not None:
                table.take_default(options.charset, options.collate)
            else:  # the database's
                defaults = self.database_options(schema)
                table.take_default(defaults.charset, defaults.collation)
            table.row_format, table.comment = options.row_format or None, options.comment
            table.kept_options = {name: value for name, value in options.kept.items() if value is not None}
            for col in columns:
                table.define_charset(col)
        self.done(DdlAction(schema))
        if self.catalog(schema, name) is not None or (not made_temporary and self.view_of(schema, name) is not None):
            if if_not_exists:
                return DdlAction(schema, noop=True, notes=[SQLError(ER_TABLE_EXISTS_ERROR, written)])
            raise SQLError(ER_TABLE_EXISTS_ERROR, written)
        if made_temporary and table.foreign_keys:  # (InnoDB's temporary tables have none)
            raise SQLError(ER_CANT_CREATE_TABLE, schema, written, '150 "Foreign key constraint is incorrectly formed"')
        self.name_indexes(table)
        primary_not_null(table)
        order_indexes(table)
        check_table(table)
        self.translate_checks(table)
        self.translate_generated(table)
        self.check_foreign_keys(table, table.foreign_keys)
        return DdlAction(schema, table.sqlite_create(), put=[table], reset_auto=[(schema, name)])

    def translate_checks(self, table: Table) -> None:
        """Name the CHECKs declared without a name (1826 for a name twice) and translate each
        one's condition for SQLite (`Check.sqlite`, `check_sqlite`)."""
        number_checks(table.checks)
        seen: set[str] = set()
        for check in table.checks:
            if check.column is None:
                if check.name.lower() in seen:
                    raise SQLError(ER_DUP_CONSTRAINT_NAME, "CHECK", check.name)
                seen.add(check.name.lower())
            check.sqlite = self.check_sqlite(table, check)

    def check_sqlite(self, table: Table, check: Check) -> str:
        """A CHECK's condition for SQLite (`expression_sqlite`); one that reads anything but the
        row's columns and constants (NOW(), @variables, USER(), a subquery) is MariaDB's 1901."""
        refused = SQLError(ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, check.clause, "CHECK", check.name)
        return self.expression_sqlite(table, check.clause, refused, "CHECK")

    def translate_generated(self, table: Table) -> None:
        """Each generated column's expression translated for SQLite (`Column.generated_sqlite`).
        SQLite computes a generated column from the row alone, so an expression that reads
        anything else (NOW(), RAND(), @variables, a subquery) is refused: MariaDB's 1901 naming
        the function for a STORED column or a subquery; a VIRTUAL column, which MariaDB computes
        at each read, 1235."""
        for col in table.columns:
            if col.generated is None:
                continue
            shape, _ = extract(col.generated)
            tokens = tokenize(shape)
            called = next((t.text.lower() for n, t in enumerate(tokens) if t.is_word(*_UNREPEATABLE)
                           and (n + 1 < len(tokens) and tokens[n + 1].text == "(" or t.is_word(*_NOW_WORDS))), None)
            if any(t.is_word("SELECT") for t in tokens):
                called = "select ..."
            elif called in ("now", "localtime", "localtimestamp", "current_timestamp"):
                called = "current_timestamp()"
            elif called is not None:
                called += "()"
            if col.stored or called == "select ...":
                refused = SQLError(ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED, called or col.generated_printed,
                                   "GENERATED ALWAYS AS", col.name)
            else:
                refused = SQLError(ER_NOT_SUPPORTED_YET, "a VIRTUAL column computed from anything but its row")
            if called is not None:
                raise refused
            col.generated_sqlite = self.expression_sqlite(table, col.generated, refused, "GENERATED ALWAYS AS")
            if any(re.search(rf"\b{name}\s*\(", col.generated_sqlite) for name in VOLATILE):
                raise refused

    def expression_sqlite(self, table: Table, clause: str, refused: SQLError, where: str) -> str:
        """An expression over `table`'s row for SQLite: as this engine translates `SELECT
        (clause) FROM table`, its literals written in; `refused` where it reads a value of the
        running statement, 1235 `where` for a subquery."""
        sql = f"SELECT ({clause}) FROM {mysql_ident(table.schema)}.{mysql_ident(table.name)}"
        shape, params = extract(sql)
        tokens = tokenize(shape)
        if any(t.is_word("SELECT") for t in tokens[1:]):
            raise SQLError(ER_SUBQUERIES_NOT_SUPPORTED, where)

        def lookup(schema: str | None, name: str) -> Table | None:
            same = schema == table.schema and name.lower() == table.name.lower()
            return table if same else self.catalog(schema, name)
        plan = Translator(tokens, shape, table.schema, lookup, set(self.schemas), params).plan_select()
        head, tail = "SELECT ", " FROM "
        cut = plan.sql.rfind(tail)
        pieces = plan.sql[len(head):cut].split("?")
        if not plan.sql.startswith(head) or cut < 0 or len(pieces) != len(plan.args) + 1:
            raise refused
        out = [pieces[0]]
        texts = literal_texts(sql)
        for source, piece in zip(plan.args, pieces[1:], strict=True):
            if type(source) is int:
                value = params[source]
            elif type(source) is tuple and source[0] == "const":
                value = source[1]
            elif type(source) is tuple and source[0] == STORE:  # a literal as a DECIMAL column holds it
                value = values.stored_literal(source, params, texts)
            else:  # a value of the running statement
                raise refused
            out.append(sql_literal(value))
            out.append(piece)
        return "".join(out)

    def check_foreign_keys(self, table: Table, added: list[ForeignKey]) -> None:
        """InnoDB's rules for new foreign keys: named `<table>_ibfk_<n>` when unnamed, the parent
        resolved (this schema when unqualified) and, unless foreign_key_checks=0, existing with the
        referenced columns indexed; the child's columns get an index named after the key when
        none starts with them. Violations are 1005 errno 150, as InnoDB words them."""
        taken = {fk.name.lower() for fk in table.foreign_keys if fk not in added}
        n = 1
        for fk in added:
            fk.ref_schema = fk.ref_schema or table.schema
            name_given = bool(fk.name)
            if not fk.name:
                while f"{table.name}_ibfk_{n}".lower() in taken:
                    n += 1
                fk.name = f"{table.name}_ibfk_{n}"
            if fk.name.lower() in taken:
                raise SQLError(ER_CANT_CREATE_TABLE, table.schema, table.name,
                               '121 "Duplicate key on write or update"')
            taken.add(fk.name.lower())
            for col in fk.columns:
                table.must_column(col, "foreign key")
            self_ref = (fk.ref_schema, fk.ref_table.lower()) == (table.schema, table.name.lower())
            parent = table if self_ref else self.catalog(fk.ref_schema, fk.ref_table)
            if parent is not None:
                fk.ref_table = parent.name
                fk.ref_columns = [parent.must_column(c, "foreign key").name for c in fk.ref_columns]
                indexed = any([c.lower() for c in i.columns[:len(fk.ref_columns)]]
                              == [c.lower() for c in fk.ref_columns] for i in parent.indexes)
            if self.foreign_key_checks and (parent is None or not indexed):
                raise SQLError(ER_CANT_CREATE_TABLE, table.schema, table.name,
                               '150 "Foreign key constraint is incorrectly formed"')
            wanted = [c.lower() for c in fk.columns]
            if not any([c.lower() for c in i.columns[:len(wanted)]] == wanted for i in table.indexes):
                # MariaDB's name for it: the key's given name, else the first column's (numbered
                # past the names taken)
                named = fk.name if name_given else fk.columns[0]
                index = Index(named, list(fk.columns), implicit=True)
                table.indexes.append(index)
                self.name_indexes(table)

    @staticmethod
    def name_indexes(table: Table) -> None:
        """MySQL names unnamed keys after their first column (`k`, `k_2`, ...)."""
        seen: set[str] = set()
        for index in table.indexes:
            if index.primary:
                continue
            base = index.name
            name, n = base, 2
            while name.lower() in seen:
                name, n = f"{base}_{n}", n + 1
            index.name = name
            seen.add(name.lower())

    def drop_names(self) -> tuple[bool, list[tuple[str, str]]]:
        """[IF EXISTS] name, ... [RESTRICT | CASCADE] to the statement's end."""
        cur = self.cur
        if_exists = cur.accept_words("IF", "EXISTS")
        names = [self.table_name()]
        while cur.accept_op(","):
            names.append(self.table_name())
        cur.accept("RESTRICT", "CASCADE")
        self.done(DdlAction(names[0][0]))
        return if_exists, names

    def drop_table(self, only_temporary: bool = False) -> DdlAction:
        """DROP [TEMPORARY] TABLE: a name the session's temporary table first; with TEMPORARY
        only those (1051 for another name, as MariaDB's)."""
        if_exists, names = self.drop_names()
        missing = [f"{s}.{n}" for s, n in names if self.catalog(s, n) is None or (
            only_temporary and not temporary.is_temporary(n))]
        if missing and not if_exists:
            raise SQLError(ER_BAD_TABLE_ERROR, ",".join(missing))
        action = DdlAction(names[0][0], notes=[SQLError(ER_BAD_TABLE_ERROR, ",".join(missing))] if missing else [])
        dropped = {(s, n.lower()) for s, n in names}
        if self.foreign_key_checks:
            for child in self.all_tables():
                if (child.schema, child.name.lower()) not in dropped and any(
                        (fk.ref_schema, fk.ref_table.lower()) in dropped for fk in child.foreign_keys):
                    raise SQLError(ER_ROW_IS_REFERENCED_TABLE)
        for schema, name in names:
            table = self.catalog(schema, name)
            if table is None or (only_temporary and not temporary.is_temporary(name)):
                continue
            action.sql.append(f"DROP TABLE {quote_ident(schema)}.{quote_ident(table.name)}")
            action.delete.append((schema, table.name))
            action.reset_auto.append((schema, table.name))
        action.noop = not action.sql
        action.binlogged = not (action.noop and only_temporary)
        dropped_temporary = [(s, n) for s, n in action.delete if temporary.is_temporary(n)]
        if not dropped_temporary or self.cur.text.startswith(temporary.DROP_PREFIX):
            return action  # (a session's end: binlogged as written)
        if len(dropped_temporary) + len(missing) == len(names) and (only_temporary or not missing):
            action.logged, action.logged_bare = temporary.drop_logged(dropped_temporary, if_exists, self.database)
        else:
            # temporary and base tables: MariaDB's mysql_rm_table_no_locks logs the temporary
            # ones' DROP TEMPORARY, then a DROP TABLE of the others (each name as written,
            # qualified outside the default database)
            action.logged_first.append(temporary.drop_logged(dropped_temporary, if_exists, self.database))
            base = ",".join((f"{mysql_ident(schema)}." if schema != self.database else "") + mysql_ident(name)
                            for schema, name in names if not temporary.is_temporary(name))
            action.logged = f"DROP TABLE {'IF EXISTS ' if if_exists else ''}{base} /* generated by server */"
        return action

    # --- views ---------------------------------------------------------------------------------

    def view_options(self) -> dict[str, str] | None:
        """[ALGORITHM = a] [DEFINER = user] [SQL SECURITY s] VIEW: the options, None when no VIEW."""
        cur = self.cur
        options: dict[str, str] = {}
        if cur.accept("ALGORITHM"):
            cur.expect_op("=")
            options["algorithm"] = cur.ident().upper()
        if cur.accept("DEFINER"):
            cur.expect_op("=")
            definer = self.account()
            if definer is not None:
                options["definer"] = definer
        if cur.accept("SQL"):
            cur.expect("SECURITY")
            options["security"] = cur.ident().upper()
        return options if cur.accept("VIEW") else None

    def account(self) -> str | None:
        """A DEFINER's account as `user`@`host`: 'user'@'host' (each part a string, a name or a
        backticked name; `user` alone is `user`@`%`), or CURRENT_USER[()], the account running
        the statement (None where none does: the view keeps its default)."""
        cur = self.cur
        if cur.accept("CURRENT_USER"):
            if cur.accept_op("("):
                cur.expect_op(")")
            return self.current_user
        user, host = self.account_part(cur.next()), "%"
        if not cur.at_end() and cur.peek().kind == "var":  # `user`@`host`, user@host: the lexer's @variable
            host = cur.next().text
        elif cur.accept_op("@"):
            host = self.account_part(cur.next())
        return account_text(user, host)

    def account_part(self, tok: Token) -> str:
        if tok.kind == "param" and isinstance(self.cur.params[tok.param], str):
            return self.cur.params[tok.param]
        if tok.kind in ("ident", "word"):
            return tok.text
        self.cur.i -= 1
        raise self.cur.error()

    def create_view(self, options: dict[str, str], *, replace: bool, alter: bool) -> DdlAction:
        """CREATE [OR REPLACE] / ALTER ... VIEW v [(cols)] AS SELECT ...: the SELECT is kept as
        MySQL text with its literals written out; it is translated where the view is read."""
        cur = self.cur
        schema, name = self.table_name(resolve=False)
        if self.catalog(schema, name) is not None:
            raise SQLError(ER_TABLE_EXISTS_ERROR, name) if not alter else SQLError(
                ER_WRONG_OBJECT, schema, name, "VIEW")
        existing = self.view_of(schema, name)
        if existing is not None and not replace:
            raise SQLError(ER_TABLE_EXISTS_ERROR, name)
        if existing is None and alter:
            raise SQLError(ER_NO_SUCH_TABLE, schema, name)
        columns: list[str] = []
        if cur.accept_op("("):
            while True:
                columns.append(cur.ident())
                if not cur.accept_op(","):
                    break
            cur.expect_op(")")
        cur.expect("AS")
        start = cur.i
        if start >= len(cur.tokens) or not (cur.peek().is_word("SELECT", "WITH") or cur.peek().text == "("):
            raise cur.error()
        # its columns' names, given or its SELECT's, are a table's: none repeated (1060)
        repeated = repeated_name(columns or selected_names(
            cur.tokens[start:], lambda s, n: self.catalog(s or self.database, n), self.shape) or [])
        if repeated is not None:
            raise SQLError(ER_DUP_FIELDNAME, repeated)
        select = self.written_from(start)
        view = View(schema, name, select, columns)
        if self.current_user is not None:  # MariaDB's default definer: the account creating it
            view.definer = self.current_user
        for key in ("definer", "security", "algorithm"):
            if key in options:
                setattr(view, key, options[key])
        if existing is not None and alter:
            for key in ("definer", "security", "algorithm"):
                if key not in options:
                    setattr(view, key, getattr(existing, key))
        cur.i = len(cur.tokens)
        # binlogged as MariaDB's mysql_create_view writes it: every option spelled out, so that a
        # replica (whose applier has no account) makes the view with the master's definer
        named = mysql_ident(name) if schema == self.database else f"{mysql_ident(schema)}.{mysql_ident(name)}"
        listed = "(" + ", ".join(mysql_ident(c) for c in columns) + ")" if columns else ""
        mode = "ALTER" if alter else "CREATE OR REPLACE" if replace else "CREATE"
        logged = (f"{mode} ALGORITHM={view.algorithm} DEFINER={view.definer} SQL SECURITY {view.security} "
                  f"VIEW {named}{listed} AS {select}")
        return self.done(DdlAction(schema, put_views=[view], logged=logged))

    def written_from(self, start: int, end: int | None = None) -> str:
        """The statement's text from token `start` (to token `end`), its literals written out."""
        cur = self.cur
        pieces: list[str] = []
        shape_end = cur.tokens[start].start
        shape = self.shape
        texts = literal_texts(cur.text)
        for tok in cur.tokens[start:end]:
            pieces.append(shape[shape_end:tok.start] if pieces else "")
            if tok.kind == "param":
                value = cur.params[tok.param]
                written = texts[tok.param] if len(texts) == len(cur.params) else ""
                # a number as written (1e3 a DOUBLE, 1.50 two decimals: its type is its text's)
                pieces.append(written if _NUMBER_TEXT.fullmatch(written) and isinstance(value, int | float | Decimal)
                              and not isinstance(value, bool) else mysql_literal(value))
            else:
                pieces.append(shape[tok.start:tok.end])  # (a name as quoted)
            shape_end = tok.end
        return "".join(pieces).rstrip(" ;")

    # --- triggers ------------------------------------------------------------------------------

    def create_trigger(self, replace: bool) -> DdlAction:
        """CREATE [OR REPLACE] [DEFINER = user] TRIGGER [IF NOT EXISTS] [db.]name {BEFORE | AFTER}
        {INSERT | UPDATE | DELETE} ON table FOR EACH ROW [{FOLLOWS | PRECEDES} other] body:
        binlogged as MariaDB writes it (`CREATE DEFINER=... trigger` and the rest as written)."""
        cur = self.cur
        definer = self.current_user
        if cur.accept("DEFINER"):
            cur.expect_op("=")
            definer = self.account() or definer
        trigger_at = cur.i
        cur.expect("TRIGGER")
        if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
        if replace and if_not_exists:
            raise SQLError(ER_WRONG_USAGE, "OR REPLACE", "IF NOT EXISTS")
        schema, name = self.routine_name("TRIGGER")
        timing = cur.next().upper
        event = cur.next().upper
        if timing not in ("BEFORE", "AFTER") or event not in ("INSERT", "UPDATE", "DELETE"):
            cur.i -= 1
            raise cur.error()
        cur.expect("ON")
        table_schema, table_name = self.cur.qualified()
        if (table_schema or schema).lower() == "mysql":
            raise SQLError(ER_NO_TRIGGERS_ON_SYSTEM_SCHEMA)
        if self.temporary(table_schema or schema, table_name) is not None:
            raise SQLError(ER_TRG_ON_VIEW_OR_TEMP_TABLE, table_name)
        cur.expect("FOR")
        cur.expect("EACH")
        cur.expect("ROW")
        head_end = cur.i
        anchor = None
        if cur.peek().is_word("FOLLOWS", "PRECEDES"):
            anchor = (cur.next().upper, cur.ident())
        if cur.at_end():
            raise cur.error()
        body = self.written_from(cur.i)
        written = self.written_from(trigger_at, head_end) + " " + body
        cur.i = len(cur.tokens)
        table = self.catalog(table_schema or schema, table_name)
        if table is None:
            if self.view_of(table_schema or schema, table_name) is not None:
                raise SQLError(ER_TRG_ON_VIEW_OR_TEMP_TABLE, table_name)
            raise SQLError(ER_NO_SUCH_TABLE, table_schema or schema, table_name)
        if table_schema is not None and table_schema != schema:
            raise SQLError(ER_TRG_IN_WRONG_SCHEMA)
        mode = "CREATE OR REPLACE" if replace else "CREATE"
        logged = f"{mode} DEFINER={definer or '`root`@`localhost`'} {self.written_from(trigger_at)}"
        existing = self.trigger_of(schema, name)
        if existing is not None and not replace:
            if if_not_exists:
                return DdlAction(schema, noop=True, notes=[SQLError(ER_TRG_ALREADY_EXISTS, f"{schema}.{name}")],
                                 logged=logged)
            raise SQLError(ER_TRG_ALREADY_EXISTS, f"{schema}.{name}")
        trigger = Trigger(schema, name, table.name, timing, event, body, written, definer or "`root`@`localhost`",
                          created=time.time(), sql_mode=self.sql_mode)
        check_rows(trigger, table)
        same = [t for t in triggers.ordered(self.triggers_in(schema)) if t.table.lower() == table.name.lower()
                and (t.timing, t.event) == (timing, event) and t.name.lower() != name.lower()]
        at = len(same)
        if anchor is not None:
            found = [k for k, t in enumerate(same) if t.name.lower() == anchor[1].lower()]
            if not found:
                raise SQLError(ER_REFERENCED_TRG_DOES_NOT_EXIST, anchor[1])
            at = found[0] + (anchor[0] == "FOLLOWS")
        same.insert(at, trigger)
        put = []
        for order, t in enumerate(same, 1):
            if t.order != order or t is trigger:
                t = copy.copy(t)
                t.order = order
                put.append(t)
        return DdlAction(schema, put_triggers=put, logged=logged)

    def drop_trigger(self) -> DdlAction:
        """DROP TRIGGER [IF EXISTS] [db.]name (1360, or its note with IF EXISTS)."""
        if_exists = self.cur.accept_words("IF", "EXISTS")
        schema, name = self.routine_name("TRIGGER")
        self.done(DdlAction(schema))
        found = self.trigger_of(schema, name)
        if found is None:
            if not if_exists:
                raise SQLError(ER_TRG_DOES_NOT_EXIST)
            return DdlAction(schema, noop=True, notes=[SQLError(ER_TRG_DOES_NOT_EXIST)])
        put = []
        for order, t in enumerate((t for t in triggers.ordered(self.triggers_in(schema)) if t is not found and (
                t.table.lower(), t.timing, t.event) == (found.table.lower(), found.timing, found.event)), 1):
            if t.order != order:
                t = copy.copy(t)
                t.order = order
                put.append(t)
        return DdlAction(schema, drop_triggers=[(schema, found.name)], put_triggers=put)

    def drop_view(self) -> DdlAction:
        """DROP VIEW [IF EXISTS] v, ... [RESTRICT | CASCADE]: 4092 names every one that is no view."""
        if_exists, names = self.drop_names()
        missing = [(s, n) for s, n in names if self.view_of(s, n) is None]
        found = [(s, n) for s, n in names if self.view_of(s, n) is not None]
        if missing and not if_exists:
            error = SQLError(ER_UNKNOWN_VIEW, ",".join(f"{s}.{n}" for s, n in missing))
            if not found:
                raise error
            logged = "DROP VIEW " + ", ".join(f"{mysql_ident(s)}.{mysql_ident(n)}" for s, n in found)
            return DdlAction(found[0][0], drop_views=found, late_error=error, logged=logged)
        notes = [SQLError(ER_UNKNOWN_VIEW, ",".join(f"{s}.{n}" for s, n in missing))] if missing else []
        return DdlAction(names[0][0], drop_views=found, noop=not found, notes=notes)

    def rename_tables(self) -> DdlAction:
        """RENAME TABLE a TO b [, c TO d ...]: the pairs one after the other, as MariaDB renames
        them, so that a later pair sees the earlier ones (`a TO tmp, b TO a, tmp TO b` swaps)."""
        cur = self.cur
        action = DdlAction("")
        after: dict[tuple[str, str], Table | None] = {}  # (schema, lower name) -> as the pairs so far left it

        def now(schema: str, name: str) -> Table | None:
            key = (schema, name.lower())
            return after[key] if key in after else self.catalog(schema, name)

        while True:
            schema, name = self.table_name()
            cur.expect("TO")
            new_schema, written = self.table_name(resolve=False)
            new_name = self.renamed_name(name, written)
            old = now(schema, name)
            if old is None:
                raise SQLError(ER_NO_SUCH_TABLE, schema, name)
            if new_schema != schema:
                raise SQLError(ER_UNKNOWN_ERROR, "RENAME TABLE across databases is not supported")
            if now(new_schema, new_name) is not None or (
                    new_name == written and self.view_of(new_schema, new_name) is not None):
                raise SQLError(ER_TABLE_EXISTS_ERROR, written)
            action.schema = schema
            table = copy.deepcopy(old)
            if table.checks:  # its CHECKs name the table they fail for: made again under the new name
                table.name = new_name
                action.sql.extend(self.rebuild(table, old, {}, name_free=True).sql)
            else:
                action.sql.append(f"ALTER TABLE {quote_ident(schema)}.{quote_ident(old.name)} RENAME TO {quote_ident(new_name)}")
                for index in table.indexes:
                    if not index.primary:
                        action.sql.append(f"DROP INDEX {quote_ident(schema)}.{quote_ident(sqlite_index_name(old.name, index.name))}")
                table.name = new_name
                for index in table.indexes:
                    if not index.primary:
                        action.sql.append(table.sqlite_index(index))
            after[(schema, old.name.lower())] = None
            after[(schema, new_name.lower())] = table
            # the foreign keys that reference it follow it, their tables' entries written again
            current = [t for t in after.values() if t is not None] + [
                copy.deepcopy(t) for t in self.all_tables() if (t.schema, t.name.lower()) not in after]
            for child in follow_rename(current, schema, old.name, new_name):
                after[(child.schema, child.name.lower())] = child
            action.delete.append((schema, old.name))  # (as its catalog row names it)
            action.renamed.append((schema, old.name, new_name))  # (its triggers follow it)
            action.moved_auto.append((schema, old.name, new_name))  # (InnoDB's counter follows it)
            if not cur.accept_op(","):
                break
        # the catalog as the last pair leaves it: every old name's entry is removed before any is written
        action.put.extend(table for table in after.values() if table is not None)
        return self.done(action)

    def create_index(self, unique: bool) -> DdlAction:
        cur = self.cur
        if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
        name = cur.ident()
        cur.accept("USING") and cur.ident()
        cur.expect("ON")
        schema, table_name = self.table_name()
        old = self.existing(schema, table_name)
        cols = cur.name_list()
        while not cur.at_end():  # USING BTREE, ALGORITHM=..., LOCK=...
            word = cur.next()
            if word.is_word("ALGORITHM", "LOCK"):
                cur.accept_op("=")
                setattr(self, word.upper.lower(), cur.ident().upper())
        if self.lock == "NONE" and self.algorithm == "COPY":  # (a copy locks the table, as ALTER TABLE's)
            not_supported("LOCK=NONE", "COPY algorithm requires a lock", "LOCK=SHARED")
        if if_not_exists and any(i.name.lower() == name.lower() for i in old.indexes):
            return DdlAction(schema, noop=True, records=True, notes=[SQLError(ER_DUP_KEYNAME, name)])
        table = copy.deepcopy(old)
        index = Index(name, cols, unique=unique)
        dropped = self.add_index(table, index)
        return DdlAction(schema, records=True, sql=[*(f"DROP INDEX {quote_ident(schema)}.{quote_ident(sqlite_index_name(table.name, i.name))}"
                                    for i in dropped), table.sqlite_index(index)], put=[table])

    @staticmethod
    def add_index(table: Table, index: Index) -> list[Index]:
        """`index` added to `table`; the indexes InnoDB made for a foreign key that it now serves
        are dropped, as InnoDB drops them: those returned."""
        if any(i.name.lower() == index.name.lower() for i in table.indexes):
            raise SQLError(ER_DUP_KEYNAME, index.name)
        for name in index.columns:
            if table.column(name) is None:
                raise SQLError(ER_KEY_COLUMN_DOES_NOT_EXIST, name)
        index.columns = [table.must_column(c).name for c in index.columns]
        lead = [c.lower() for c in index.columns]
        dropped = [i for i in table.indexes if i.implicit and lead[:len(i.columns)] == [c.lower() for c in i.columns]]
        table.indexes = [i for i in table.indexes if not any(i is d for d in dropped)]
        table.indexes.append(index)
        order_indexes(table)
        return dropped

    @staticmethod
    def drop_index(table: Table, name: str) -> None:
        for index in table.indexes:
            if index.name.lower() == name.lower() or (name.upper() == "PRIMARY" and index.primary):
                table.indexes.remove(index)
                return
        raise SQLError(ER_CANT_DROP_FIELD_OR_KEY, "INDEX", name)

    def check_foreign_key_indexes(self, table: Table, old: Table) -> None:
        """InnoDB's 1553 for an index `old` had and `table` has not that a foreign key of the
        table, or one referencing it, needs: no index left starts with its columns."""
        kept = {i.name.lower() for i in table.indexes}
        dropped = [i for i in old.indexes if i.name.lower() not in kept]
        if not dropped or not self.foreign_key_checks:
            return
        needs = [fk.columns for fk in table.foreign_keys] + [
            fk.ref_columns for child in self.all_tables() for fk in child.foreign_keys
            if (fk.ref_schema, fk.ref_table.lower()) == (table.schema, table.name.lower())]

        def serves(index: Index, columns: list[str]) -> bool:
            return [c.lower() for c in index.columns[:len(columns)]] == [c.lower() for c in columns]

        for columns in needs:
            if not any(serves(i, columns) for i in table.indexes):
                needed = next((i for i in dropped if serves(i, columns)), dropped[0])
                raise SQLError(ER_DROP_INDEX_FK, needed.name)

    def alter_table(self) -> DdlAction:
        cur = self.cur
        schema, name = self.table_name()
        old = self.existing(schema, name)
        table = copy.deepcopy(old)
        renamed: dict[str, str] = {}  # new column name -> old column name
        clauses = 0
        while True:
            self.alter_spec(table, renamed)
            clauses += 1
            if not cur.accept_op(","):
                break
        self.done(DdlAction(schema))
        self.check_foreign_key_indexes(table, old)
        primary_not_null(table)
        order_indexes(table)
        check_table(table)
        self.translate_checks(table)
        self.translate_generated(table)
        action = self.rebuild(table, old, renamed)
        if table.name.lower() != old.name.lower():  # ALTER TABLE ... RENAME TO: as RENAME TABLE's
            follow_rename([table], schema, old.name, table.name)
            action.put.extend(follow_rename([copy.deepcopy(t) for t in self.all_tables() if t.schema != schema
                                             or t.name.lower() != old.name.lower()], schema, old.name, table.name))
        if table.name != old.name:  # ALTER TABLE ... RENAME TO: its triggers follow it
            action.renamed.append((schema, old.name, table.name))
        if self.foreign_key_checks:
            action.check_foreign_keys = [(table, fk) for fk in self.added_keys]
        action.notes = self.notes
        # (the OK's "Records: ..." info, as MariaDB's, but for a bare RENAME TO)
        action.records = not (clauses == 1 and table.name != old.name)
        reason = copy_reason(old, table, renamed, self.added_keys if self.foreign_key_checks else [])
        if self.order_by is not None and reason is None:
            reason = ""  # (its own clause: never with ALGORITHM=, MariaDB's grammar)
        if self.ignore and reason is None and any(i.unique or i.primary for i in table.indexes
                                                  if not any(i.name.lower() == o.name.lower() for o in old.indexes)):
            # (a key added under IGNORE: its duplicates left out by a copy, never in place)
            reason = "Creating unique indexes with IGNORE requires COPY algorithm to remove duplicate rows"
        if reason is not None and self.algorithm in ("INPLACE", "NOCOPY", "INSTANT"):
            not_supported(f"ALGORITHM={self.algorithm}", reason, "ALGORITHM=COPY")
        if self.lock == "NONE" and action.records and (reason is not None or self.algorithm == "COPY"):
            # (a copy locks the table: MariaDB 10.11 copies no table online)
            not_supported("LOCK=NONE", "COPY algorithm requires a lock" if reason is None else reason, "LOCK=SHARED")
        # (a temporary table MariaDB always copies: InnoDB alters none in place)
        if action.records and (reason is not None or self.algorithm == "COPY" or temporary.is_temporary(old.name)):
            action.copied = (schema, old.name)
            action.ignore = self.ignore
        return action

    def alter_spec(self, table: Table, renamed: dict[str, str]) -> None:
        cur = self.cur
        if cur.accept("ADD"):
            tok = cur.peek()
            if tok is not None and tok.is_word("PRIMARY", "UNIQUE", "KEY", "INDEX", "CONSTRAINT", "FULLTEXT", "FOREIGN",
                                               "CHECK"):
                columns: list = []
                indexes: list[Index] = []
                foreign_keys: list[ForeignKey] = []
                checks: list[Check] = []
                if_not_exists = parse_table_element(cur, columns, indexes, foreign_keys, checks, may_exist=True)
                if if_not_exists and (note := self.existing_key(table, indexes, foreign_keys, checks)) is not None:
                    self.notes.append(note)
                    return
                table.checks.extend(checks)
                table.foreign_keys.extend(foreign_keys)
                self.check_foreign_keys(table, foreign_keys)
                self.added_keys.extend(foreign_keys)
                for index in indexes:
                    if index.primary:
                        if table.primary is not None:
                            raise SQLError(ER_MULTIPLE_PRI_KEY)
                        table.indexes.insert(0, index)
                    else:
                        self.add_index(table, index)
                return
            cur.accept("COLUMN")
            if_not_exists = cur.accept_words("IF", "NOT", "EXISTS")
            if cur.accept_op("("):
                while True:
                    self.add_column(table, if_not_exists)
                    if cur.accept_op(")"):
                        return
                    cur.expect_op(",")
            self.add_column(table, if_not_exists)
            return
        if cur.accept("DROP"):
            if cur.accept("PRIMARY"):
                cur.expect("KEY")
                self.drop_index(table, "PRIMARY")
                return
            if cur.accept("INDEX", "KEY"):
                if_exists = cur.accept_words("IF", "EXISTS")
                name = cur.ident()
                if if_exists and not any(i.name.lower() == name.lower() for i in table.indexes):
                    self.notes.append(SQLError(ER_CANT_DROP_FIELD_OR_KEY, "INDEX", name))
                    return
                self.drop_index(table, name)
                return
            if cur.accept("FOREIGN"):
                cur.expect("KEY")
                if_exists = cur.accept_words("IF", "EXISTS")
                name = cur.ident()
                fk = next((f for f in table.foreign_keys if f.name.lower() == name.lower()), None)
                if fk is None:
                    self.missing(if_exists, SQLError(ER_CANT_DROP_FIELD_OR_KEY, "FOREIGN KEY", name))
                    return
                table.foreign_keys.remove(fk)  # its index stays, as InnoDB leaves it
                return
            if cur.peek().is_word("CHECK") and cur.peek(1).is_word("IF"):
                raise cur.error()  # (MariaDB's grammar: DROP CONSTRAINT IF EXISTS, not DROP CHECK's)
            if cur.accept("CONSTRAINT", "CHECK"):
                if_exists = cur.accept_words("IF", "EXISTS")
                name = cur.ident()
                check = next((c for c in table.checks if c.column is None and c.name.lower() == name.lower()), None)
                if check is not None:
                    table.checks.remove(check)
                    return
                fk = next((f for f in table.foreign_keys if f.name.lower() == name.lower()), None)
                if fk is None:
                    self.missing(if_exists, SQLError(ER_CANT_DROP_FIELD_OR_KEY, "CONSTRAINT", name))
                    return
                table.foreign_keys.remove(fk)
                return
            cur.accept("COLUMN")
            if_exists = cur.accept_words("IF", "EXISTS")
            name = cur.ident()
            cur.accept("RESTRICT", "CASCADE")  # (MariaDB's grammar takes either and ignores it)
            col = table.column(name)
            if col is None:
                self.missing(if_exists, SQLError(ER_CANT_DROP_FIELD_OR_KEY, "COLUMN", name))
                return
            table.columns.remove(col)
            table.checks = [c for c in table.checks if c.column is None or c.column.lower() != col.name.lower()]
            for index in list(table.indexes):
                index.columns = [c for c in index.columns if c.lower() != name.lower()]
                if not index.columns:
                    table.indexes.remove(index)
            renamed.pop(col.name, None)
            return
        if cur.accept("MODIFY", "CHANGE"):
            change = cur.tokens[cur.i - 1].is_word("CHANGE")
            cur.accept("COLUMN")
            if_exists = cur.accept_words("IF", "EXISTS")
            old_name = cur.ident()
            new_name = cur.ident() if change else old_name
            if if_exists and table.column(old_name) is None:
                self.notes.append(SQLError(ER_BAD_FIELD_ERROR, old_name, table.name))
                self.skip_column(new_name)
                return
            self.replace_column(table, old_name, new_name, renamed)
            return
        if cur.accept("ALTER"):  # ALTER [COLUMN] c SET DEFAULT v | DROP DEFAULT
            cur.accept("COLUMN")
            if_exists = cur.accept_words("IF", "EXISTS")
            name = cur.ident()
            col = table.column(name)
            if col is None:
                self.missing(if_exists, SQLError(ER_BAD_FIELD_ERROR, name, table.name))
                col = Column(name, "int")  # (its clause read, and nothing changed)
            if cur.accept("DROP"):
                cur.expect("DEFAULT")
                col.default, col.has_default, col.default_now = None, False, False
            else:
                cur.expect("SET")
                cur.expect("DEFAULT")
                parse_default(cur, col)
            return
        if cur.accept("FORCE"):  # a rebuild, which every ALTER TABLE is here
            return
        if cur.accept("ORDER"):  # ORDER BY c [ASC | DESC], ... (the statement's last clause): the copy's order
            cur.expect("BY")
            self.order_by = []
            while True:
                name = cur.ident()
                descending = bool(cur.accept("DESC"))
                if not descending:
                    cur.accept("ASC")
                self.order_by.append((name, descending))
                if not cur.accept_op(","):
                    return
        if cur.accept("RENAME"):
            if cur.accept("INDEX", "KEY"):
                if cur.peek() is not None and cur.peek().is_word("PRIMARY"):
                    raise cur.error()  # the primary key keeps its name (MariaDB's grammar)
                if_exists = cur.accept_words("IF", "EXISTS")
                old_name = cur.ident()
                cur.expect("TO")
                new_name = cur.ident()
                index = next((i for i in table.indexes if not i.primary and i.name.lower() == old_name.lower()), None)
                if index is None:
                    self.missing(if_exists, SQLError(ER_KEY_DOES_NOT_EXISTS, old_name, table.name))
                    return
                if any(i is not index and i.name.lower() == new_name.lower() for i in table.indexes):
                    raise SQLError(ER_DUP_KEYNAME, new_name)
                index.name = new_name
                return
            if cur.accept("COLUMN"):
                if_exists = cur.accept_words("IF", "EXISTS")
                old_name = cur.ident()
                cur.expect("TO")
                new_name = cur.ident()
                col = table.column(old_name)
                if col is None:
                    self.missing(if_exists, SQLError(ER_BAD_FIELD_ERROR, old_name, table.name))
                    return
                renamed[new_name] = renamed.pop(col.name, col.name)
                for index in table.indexes:
                    index.columns = [new_name if c.lower() == old_name.lower() else c for c in index.columns]
                col.name = new_name
                return
            cur.accept("TO", "AS")
            schema, new_name = self.table_name(resolve=False)
            table.name = self.renamed_name(table.name, new_name)
            return
        # table options (ENGINE=..., AUTO_INCREMENT=..., DEFAULT CHARSET=...)
        options = parse_table_options(cur)
        if options.algorithm is not None:
            self.algorithm = options.algorithm
        if options.lock is not None:
            self.lock = options.lock
        if options.auto_increment is not None:
            table.auto_increment_start = options.auto_increment
            self.counter_set = True
        if options.charset is not None:
            table.take_default(options.charset, options.collate)
        if options.row_format is not None:
            table.row_format = options.row_format or None
        if options.comment is not None:
            table.comment = options.comment
        for name, value in options.kept.items():  # the others kept as they were, as MariaDB's ALTER
            if value is None:
                table.kept_options.pop(name, None)
            else:
                table.kept_options[name] = value
        if options.convert is not None:  # every character column converted, ENUM and SET too
            for col in table.columns:
                if col.base in CHAR_TYPES and col.charset != "binary" and not col.binary:
                    col.charset = col.collation = None
                    table.define_charset(col)

    def missing(self, if_exists: bool, error: SQLError) -> None:
        """What names nothing: with IF [NOT] EXISTS a note, and the clause skipped (MariaDB's
        ALTER TABLE goes on with the others), else the statement's error."""
        if not if_exists:
            raise error
        self.notes.append(error)

    @staticmethod
    def existing_key(table: Table, indexes: list[Index], foreign_keys: list[ForeignKey],
                     checks: list[Check]) -> SQLError | None:
        """ADD ... IF NOT EXISTS of a key, foreign key or CHECK: MariaDB's note when `table`
        already has one of that name (None: it is added)."""
        for index in indexes:
            if index.primary and table.primary is not None:
                return SQLError(ER_DUP_KEYNAME, message=ER_MULTIPLE_PRI_KEY.template)  # (MariaDB's code 1061)
            if not index.primary and any(i.name.lower() == index.name.lower() for i in table.indexes):
                return SQLError(ER_DUP_KEYNAME, index.name)
        for fk in foreign_keys:
            if any(f.name.lower() == fk.name.lower() for f in table.foreign_keys):
                return SQLError(ER_DUP_KEYNAME, fk.name)
        for check in checks:
            if any(c.column is None and c.name.lower() == check.name.lower() for c in table.checks):
                return SQLError(ER_DUP_CONSTRAINT_NAME, "CHECK", check.name)
        return None

    def add_column(self, table: Table, if_not_exists: bool = False) -> None:
        cur = self.cur
        name = cur.ident()
        if table.column(name) is not None:
            self.missing(if_not_exists, SQLError(ER_DUP_FIELDNAME, name))
            self.skip_column(name)
            return
        indexes: list[Index] = []
        foreign_keys: list[ForeignKey] = []
        col = parse_column(cur, name, indexes, foreign_keys, table.checks)
        table.define_charset(col)
        position = self.position(table)
        table.columns.insert(position if position is not None else len(table.columns), col)
        table.foreign_keys.extend(foreign_keys)
        self.check_foreign_keys(table, foreign_keys)
        for index in indexes:
            if index.primary:
                table.indexes.insert(0, index)
            else:
                self.add_index(table, index)

    def replace_column(self, table: Table, old_name: str, new_name: str, renamed: dict[str, str]) -> None:
        old = table.column(old_name)
        if old is None:
            raise SQLError(ER_BAD_FIELD_ERROR, old_name, table.name)
        indexes: list[Index] = []
        table.checks = [c for c in table.checks if c.column is None or c.column.lower() != old.name.lower()]
        col = parse_column(self.cur, new_name, indexes, checks=table.checks)
        if old.generated is not None and col.generated is None:  # (MariaDB's: its values are not kept)
            raise SQLError(ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN)
        table.define_charset(col)
        at = table.columns.index(old)
        table.columns.remove(old)
        position = self.position(table)
        table.columns.insert(position if position is not None else at, col)
        renamed[new_name] = renamed.pop(old.name, old.name)
        for index in table.indexes:
            index.columns = [new_name if c.lower() == old.name.lower() else c for c in index.columns]
        for index in indexes:
            if index.primary:
                table.indexes.insert(0, index)
            else:
                self.add_index(table, index)

    def skip_column(self, name: str) -> None:
        """A column definition and its FIRST / AFTER c read, for a clause IF [NOT] EXISTS skips
        (MariaDB checks nothing more of it)."""
        parse_column(self.cur, name, [])
        if not self.cur.accept("FIRST") and self.cur.accept("AFTER"):
            self.cur.ident()

    def position(self, table: Table) -> int | None:
        cur = self.cur
        if cur.accept("FIRST"):
            return 0
        if cur.accept("AFTER"):
            name = cur.ident()
            col = table.column(name)
            if col is None:
                raise SQLError(ER_BAD_FIELD_ERROR, name, table.name)
            return table.columns.index(col) + 1
        return None

    def rebuild(self, table: Table, old: Table, renamed: dict[str, str], *, name_free: bool = False) -> DdlAction:
        """Create the new table beside the old one, copy rows, swap, re-index. `name_free`: the
        caller found a new name free (RENAME TABLE, against what its earlier pairs left)."""
        schema = old.schema
        q = quote_ident
        tmp = f"__alter_{old.name}"
        stmts = table.sqlite_create(tmp)
        create, _ = stmts[0], stmts[1:]
        new_cols, old_exprs = [], []
        fills: list[NullFill] = []
        primary = old.primary
        strict = "STRICT_TRANS_TABLES" in self.sql_mode or "STRICT_ALL_TABLES" in self.sql_mode
        converted = False  # a column's values stored in another type (`CopyStore`)
        for col in table.columns:
            source = old.column(renamed.get(col.name, col.name))
            if col.generated is not None:
                continue  # (SQLite computes it)
            if source is not None:
                if source.base != col.base and (col.base in FIXEDBIN_TYPES
                                                or source.base in FIXEDBIN_TYPES and col.base in BLOB_TYPES):
                    # (MariaDB converts each row's value, or its 16 bytes; the copy here moves text)
                    raise SQLError(ER_NOT_SUPPORTED_YET, f"ALTER TABLE changing a {source.base} column to {col.base}")
                new_cols.append(q(col.name))
                if source.nullable and not col.nullable and not col.auto_increment and source.generated is None:
                    fills.append(NullFill(schema, old.name, source.name, col.name,
                                          list(primary.columns) if primary is not None else []))
                    expr = f"COALESCE({q(source.name)}, {sql_literal(_implicit_default(col))})"
                else:
                    expr = q(source.name)
                key = values.target(col, f"`{schema}`.`{table.name}`.`{col.name}`", lenient=not strict) \
                    if _stored_as(source) != _stored_as(col) else None
                if key is not None:
                    expr = f"mysql_alter_store({expr}, {sql_literal(key)}, {sql_literal(col.name)})"
                    converted = True
                old_exprs.append(expr)
            elif not col.nullable and not col.has_default and not col.auto_increment:
                # MySQL fills a new NOT NULL column with the type's implicit default
                new_cols.append(q(col.name))
                old_exprs.append(sql_literal(_implicit_default(col)))
        sql = [create]
        if new_cols:
            # (rows converted in the clustered index's order: MariaDB's copy order, which its
            # warnings and errors number; ORDER BY's where there is none)
            clustered = table.clustered_key()
            order = ""
            if self.order_by is not None and clustered is None:
                order = " ORDER BY " + ", ".join(q(renamed.get(name, name)) + (" DESC" if descending else "")
                                                 for name, descending in self.order_by)
            elif (converted or self.ignore) and clustered is not None:
                order = f" ORDER BY {', '.join(q(renamed.get(c, c)) for c in clustered.columns)}"
            # ALTER IGNORE: the new unique keys on the copy before its rows, each row meeting one
            # left out (SQLite's OR IGNORE, in the copy's order: MariaDB's first row kept)
            unique = [i for i in table.indexes if i.unique and not i.primary] if self.ignore else []
            sql.extend(table.sqlite_index(i, tmp) for i in unique)
            sql.append(f"INSERT {'OR IGNORE ' if self.ignore else ''}INTO {q(schema)}.{q(tmp)} ({', '.join(new_cols)}) "
                       f"SELECT {', '.join(old_exprs)} FROM {q(schema)}.{q(old.name)}{order}")
            sql.extend(f"DROP INDEX {q(schema)}.{q(sqlite_index_name(tmp, i.name))}" for i in unique)
        sql.append(f"DROP TABLE {q(schema)}.{q(old.name)}")
        sql.append(f"ALTER TABLE {q(schema)}.{q(tmp)} RENAME TO {q(table.name)}")
        sql.extend(table.sqlite_index(i) for i in table.indexes if not i.primary)
        same_counter = not self.counter_set and table.auto_column is not None and old.auto_column is not None \
            and renamed.get(table.auto_column.name, table.auto_column.name) == old.auto_column.name
        kept = same_counter and table.name == old.name
        moved = same_counter and table.name != old.name
        action = DdlAction(schema, sql, put=[table],
                           reset_auto=[] if kept or moved else [(schema, old.name), (schema, table.name)],
                           keep_auto=[(schema, table.name)] if kept else [],
                           moved_auto=[(schema, old.name, table.name)] if moved else [], null_fills=fills,
                           strict=strict)
        if self.order_by is not None:
            for name, _ in self.order_by:
                if table.column(name) is None:
                    raise SQLError(ER_BAD_FIELD_ERROR, name, "order clause")
            if table.clustered_key() is not None:
                action.warnings.append(("Warning", ER_UNKNOWN_ERROR.code, "ORDER BY ignored as there is a user-defined "
                                                                       f"clustered index in the table '{table.name}'"))
        if table.name != old.name:
            if not name_free and (self.catalog(schema, table.name) is not None
                                  or self.view_of(schema, table.name) is not None):
                raise SQLError(ER_TABLE_EXISTS_ERROR, table.name)
            action.delete.append((schema, old.name))
        return action
