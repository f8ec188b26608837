"""The MySQL view of each table (columns with their MySQL types, keys, AUTO_INCREMENT) and its
mapping to SQLite.

SQLite keeps only affinities, so the MySQL definition of every table is kept here and persisted as
JSON in the schema file's `__engine_catalog` table, in the same SQLite transaction as the DDL that
changed it. The in-memory `Catalog` is owned by the engine and changed only from the event loop.
Mapping rules: integer types -> INTEGER (an AUTO_INCREMENT integer primary key becomes SQLite's
rowid alias `INTEGER PRIMARY KEY`), but BIGINT UNSIGNED and BIT (values to 2^64-1) -> TEXT holding
the decimal digits under the `mysql_decimal` collation (`Column.unsigned_64`; tables created before
kept BIT as INTEGER), char/text/enum/set/date/time types -> TEXT (character columns
`COLLATE mysql_general_ci`, MariaDB's default utf8mb4_general_ci: `engine.collation`; JSON and
`_bin` columns binary, a JSON column checked by json_valid as MariaDB's; tables created before kept SQLite's NOCASE),
UUID / INET6 / INET4 -> TEXT holding the value's canonical text under the type's own collation
(`engine.fixedbin`: MariaDB's sort order), float/double -> REAL,
decimal -> TEXT holding the exact decimal (`engine.values.store`) with the `mysql_decimal`
collation, which compares, sorts, groups and indexes by numeric value (tables created before
kept NUMERIC: exact to 15 digits), blob/binary -> BLOB.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

from engine import fixedbin
from engine.collation import GENERAL_CI
from engine.coltypes import (
    DECIMAL_MAX_PRECISION,
    DECIMAL_MAX_SCALE,
    ColumnType,
    declared_type,
    member_text,
)
from engine.genexpr import printed
from engine.lexer import Hybrid, Token, literal_texts, mysql_ident, quote_ident, syntax_error
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_COLLATION_CHARSET_MISMATCH,
    ER_CONFLICTING_DECLARATIONS,
    ER_DUP_FIELDNAME,
    ER_FEATURE_DISABLED,
    ER_INVALID_DEFAULT,
    ER_INVALID_ON_UPDATE,
    ER_KEY_COLUMN_DOES_NOT_EXIST,
    ER_M_BIGGER_THAN_D,
    ER_MULTIPLE_PRI_KEY,
    ER_NOT_SUPPORTED_YET,
    ER_TOO_BIG_PRECISION,
    ER_TOO_BIG_SCALE,
    ER_UNKNOWN_CHARACTER_SET,
    ER_UNKNOWN_COLLATION,
    ER_UNKNOWN_DATA_TYPE,
    ER_UNKNOWN_ERROR,
    ER_UNKNOWN_OPTION,
    ER_WRONG_AUTO_KEY,
    ER_WRONG_FIELD_SPEC,
    ER_WRONG_FK_DEF,
    SQLError,
)
from protocol.messages import ColumnFlag

INT_TYPES = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bit", "bool", "boolean", "year", "serial"}
REAL_TYPES = {"float", "double", "real"}
NUMERIC_TYPES = {"decimal", "numeric", "dec", "fixed"}
CHAR_TYPES = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set", "json",
              "nchar", "nvarchar", "character"}
TIME_TYPES = {"date", "datetime", "timestamp", "time"}
BLOB_TYPES = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
# the table options MariaDB's InnoDB knows (others: 1911)
_TABLE_OPTIONS = frozenset({
    "ENGINE", "TYPE", "AUTO_INCREMENT", "AVG_ROW_LENGTH", "CHARACTER", "CHAR", "CHARSET", "CHECKSUM", "TABLE_CHECKSUM",
    "COLLATE", "COMMENT", "CONNECTION", "DATA", "INDEX", "DELAY_KEY_WRITE", "ENCRYPTED", "ENCRYPTION_KEY_ID",
    "IETF_QUOTES", "INSERT_METHOD", "KEY_BLOCK_SIZE", "MAX_ROWS", "MIN_ROWS", "PACK_KEYS", "PAGE_CHECKSUM",
    "PAGE_COMPRESSED", "PAGE_COMPRESSION_LEVEL", "PASSWORD", "ROW_FORMAT", "STATS_AUTO_RECALC", "STATS_PERSISTENT",
    "STATS_SAMPLE_PAGES", "TABLESPACE", "TRANSACTIONAL", "UNION", "SEQUENCE", "STORAGE",
    # ALTER TABLE's clauses read with them: ALGORITHM= / LOCK= (how, not what), DISABLE / ENABLE
    # KEYS (mariadb-dump's), DISCARD / IMPORT TABLESPACE: nothing for this engine to do
    "ALGORITHM", "LOCK", "DISABLE", "ENABLE", "DISCARD", "IMPORT",
})
FIXEDBIN_TYPES = set(fixedbin.KINDS)  # UUID, INET6, INET4: canonical text under their collation
_EXPRESSION_DEFAULTS = {"tinytext", "text", "mediumtext", "longtext", "json", "tinyblob", "blob", "mediumblob", "longblob"}
ALL_TYPES = INT_TYPES | REAL_TYPES | NUMERIC_TYPES | CHAR_TYPES | TIME_TYPES | BLOB_TYPES | FIXEDBIN_TYPES
DECIMAL_COLLATION = "mysql_decimal"  # registered on every connection: compares decimal texts by value
DISPLAY_WIDTH = {"tinyint": 4, "smallint": 6, "mediumint": 9, "int": 11, "integer": 11, "bigint": 20, "year": 4}


@dataclass
class Column:
    name: str
    base: str  # lower-case MySQL type name
    args: list[str] = field(default_factory=list)  # (255) / (10,2) / enum values (quoted)
    unsigned: bool = False
    # ZEROFILL (a number column; it makes the column UNSIGNED): its values shown padded with
    # zeros to its display width (`coltypes.converter`)
    zerofill: bool = False
    nullable: bool = True
    default: object = None  # value of DEFAULT literal
    has_default: bool = False
    default_now: bool = False  # DEFAULT CURRENT_TIMESTAMP
    on_update_now: bool = False
    # DEFAULT CURRENT_TIMESTAMP(n)'s n where it is below the column's fractional digits (None:
    # the column's, as MariaDB takes an n of 0, none or above them); ON UPDATE's is the column's
    default_fsp: int | None = None
    auto_increment: bool = False
    binary: bool = False
    comment: str | None = None
    # the character set its definition or its table's default named (CHARACTER SET, CHARSET, a
    # COLLATE's), lower-case, utf8 as utf8mb3; None: the server's utf8mb4. Values are stored as
    # Unicode text whatever it says: it decides only the bytes CHECKSUM TABLE reads (`checksum`)
    charset: str | None = None
    # its collation where that is neither its character set's default nor its _bin one
    # (`binary`): shown only, values compare under GENERAL_CI (or in binary) whatever it says
    collation: str | None = None

    @property
    def collation_name(self) -> str:
        """The collation MariaDB names for the column (a character column's)."""
        charset = self.charset or "utf8mb4"
        if self.collation is not None:
            return self.collation
        if charset == "binary":
            return "binary"
        return charset + "_bin" if self.binary else default_collation(charset)

    # a generated column (`GENERATED ALWAYS AS (expr)`): its expression as written (MySQL text,
    # `TokenCursor.clause`'s), as MariaDB prints it (`engine.genexpr`), and translated for
    # SQLite's own generated column (`engine.ddl`); `stored`: STORED / PERSISTENT, else VIRTUAL
    generated: str | None = None
    generated_printed: str = ""
    generated_sqlite: str = ""
    stored: bool = False

    @property
    def generated_extra(self) -> str:
        """DESCRIBE's and COLUMNS.EXTRA's word for a generated column ("" for any other)."""
        if self.generated is None:
            return ""
        return "STORED GENERATED" if self.stored else "VIRTUAL GENERATED"

    @property
    def members(self) -> list[str]:
        """An ENUM's or SET's members, in their declared order."""
        return [member_text(a) for a in self.args]

    def default_shown(self) -> str | None:
        """The DEFAULT value as SHOW COLUMNS shows it: a DECIMAL's to its scale, a BIT's as
        b'...', any other as its text (None: none, or NULL)."""
        value = self.default
        if value is None or isinstance(value, bool):
            return None if value is None else str(int(value))
        if self.base == "decimal" and (isinstance(value, int | float | Decimal) or _exact_text(value)):
            scale = int(self.args[1]) if len(self.args) > 1 and self.args[1].strip().isdigit() else 0
            return f"{Decimal(str(value)):.{scale}f}"
        if self.base == "bit" and isinstance(value, int):
            return f"b'{value:b}'"
        return str(value)

    @property
    def fsp(self) -> int:
        """A DATETIME's, TIMESTAMP's or TIME's fractional digits (0 for any other type)."""
        return int(self.args[0]) if self.base in ("datetime", "timestamp", "time") and self.args else 0

    def now_digits(self, on_update: bool = False) -> int:
        """The fractional digits of the time its DEFAULT (or ON UPDATE) CURRENT_TIMESTAMP stores."""
        return self.fsp if on_update or self.default_fsp is None else self.default_fsp

    def now_text(self, on_update: bool = False) -> str:
        """Its DEFAULT (or ON UPDATE) CURRENT_TIMESTAMP as MariaDB shows it."""
        digits = self.now_digits(on_update)
        return f"current_timestamp({digits or ''})"

    def null_and_default(self) -> str:
        """' NOT NULL' and the DEFAULT clause as SHOW CREATE TABLE writes them (AUTO_INCREMENT
        aside)."""
        text = "" if self.nullable else " NOT NULL"
        if self.default_now:
            return text + " DEFAULT " + self.now_text()
        if self.has_default and self.default is not None:
            return text + " DEFAULT " + str(self.default_sql())
        return text + (" DEFAULT NULL" if self.nullable else "")

    def default_sql(self) -> str | None:
        """The DEFAULT value as MariaDB writes it in SHOW CREATE TABLE and
        information_schema.COLUMNS: a number (and a BIT) bare, any other quoted with its quotes
        doubled (in a TEXT's, BLOB's or JSON's DEFAULT, an expression in MariaDB: escaped \\') and
        its backslashes escaped (None: none, or NULL)."""
        shown = self.default_shown()
        if shown is None or self.base in INT_TYPES or self.base in REAL_TYPES or self.base in NUMERIC_TYPES \
                or self.base == "bit" and isinstance(self.default, int):
            return shown
        if self.base in _EXPRESSION_DEFAULTS:  # an expression's string literal, as MariaDB prints one
            return "'" + shown.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + shown.replace("\\", "\\\\").replace("'", "''") + "'"

    @property
    def type_text(self) -> str:
        base = "int" if self.base == "integer" else self.base
        args = self.args
        if not args and base in DISPLAY_WIDTH:
            args = [str(DISPLAY_WIDTH[base] - (1 if self.unsigned and base != "bigint" else 0))]
        elif not args and base == "year":
            args = ["4"]
        elif base == "decimal" and len(args) < 2:  # DECIMAL is DECIMAL(10,0), DECIMAL(M) DECIMAL(M,0)
            args = [args[0] if args else "10", "0"]
        elif base in ("enum", "set"):
            args = [quoted_text(member) for member in self.members]
        elif base in FIXEDBIN_TYPES:
            args = []  # (UUID(10) is read, and shown as uuid)
        text = base + (f"({','.join(args)})" if args else "")
        return text + (" unsigned" if self.unsigned else "") + (" zerofill" if self.zerofill else "")

    @property
    def shown_type(self) -> str:
        """The type SHOW CREATE TABLE, SHOW COLUMNS and information_schema show: a JSON column's is
        LONGTEXT (MariaDB's JSON is LONGTEXT utf8mb4_bin checked by `json_valid`: `parse_column`)."""
        return "longtext" if self.base == "json" else self.type_text

    @property
    def text_ci(self) -> bool:
        """A character column MariaDB compares under utf8mb4_general_ci (GENERAL_CI here)."""
        return self.affinity == "TEXT" and self.base in CHAR_TYPES and not self.binary and self.base != "json"

    @property
    def text_binary(self) -> bool:
        """A character column of a binary collation (utf8mb4_bin, BINARY, JSON)."""
        return self.affinity == "TEXT" and (self.binary or self.base == "json")

    @property
    def unsigned_64(self) -> bool:
        """BIGINT UNSIGNED or BIT(M): values to 2^64-1, above SQLite's integers (2^63-1), so the
        column holds every value as its decimal digits (TEXT, DECIMAL_COLLATION), read as a
        number by `engine.exact` (a DECIMAL there) and by the functions that take an integer."""
        return self.base == "bit" or self.base == "bigint" and self.unsigned

    @property
    def affinity(self) -> str:
        if self.unsigned_64:
            return "TEXT"  # above 2^63-1 SQLite has no integer: exact digits, DECIMAL_COLLATION
        if self.base in INT_TYPES:
            return "INTEGER"
        if self.base in REAL_TYPES:
            return "REAL"
        if self.base in NUMERIC_TYPES:
            return "TEXT"  # exact: the decimal text, compared by the DECIMAL_COLLATION
        if self.base in BLOB_TYPES:
            return "BLOB"
        return "TEXT"


@dataclass
class Index:
    name: str
    columns: list[str]
    unique: bool = False
    primary: bool = False
    implicit: bool = False  # made for a foreign key's columns (InnoDB drops it for a later index that serves)


FK_ACTIONS = ("RESTRICT", "CASCADE", "SET NULL", "NO ACTION")


@dataclass
class ForeignKey:
    """An InnoDB foreign key: `columns` of this table reference `ref_columns` of `ref_schema`.`ref_table`
    (ref_schema is always resolved: the child's own schema when the DDL named none)."""

    name: str
    columns: list[str]
    ref_schema: str
    ref_table: str
    ref_columns: list[str]
    on_delete: str = "RESTRICT"
    on_update: str = "RESTRICT"

    def describe(self, schema: str | None) -> str:
        """`FOREIGN KEY (...) REFERENCES ...` as MariaDB words it in error 1451/1452 and SHOW CREATE
        TABLE (the parent qualified when in another schema than `schema`; None: always)."""
        ref = mysql_ident(self.ref_table)
        if self.ref_schema != schema:
            ref = f"{mysql_ident(self.ref_schema)}.{ref}"
        cols = ", ".join(mysql_ident(c) for c in self.columns)
        refs = ", ".join(mysql_ident(c) for c in self.ref_columns)
        text = f"FOREIGN KEY ({cols}) REFERENCES {ref} ({refs})"
        for event, action in (("DELETE", self.on_delete), ("UPDATE", self.on_update)):
            if action != "RESTRICT":  # (an explicit RESTRICT is not shown either)
                text += f" ON {event} {action}"
        return text


@dataclass
class Check:
    """A CHECK constraint: `clause` as MySQL text (shown by SHOW CREATE TABLE and
    information_schema), `sqlite` the same condition translated for SQLite (`engine.ddl`);
    `column` set for a column's own CHECK (named after it, dropped with it)."""

    name: str
    clause: str
    column: str | None = None
    sqlite: str = ""
    printed: str = ""  # the condition as MariaDB prints it (`engine.genexpr`; "": `clause`)

    @property
    def shown(self) -> str:
        """The condition as SHOW CREATE TABLE and information_schema show it."""
        return self.printed or self.clause


@dataclass
class Table:
    schema: str
    name: str
    columns: list[Column]
    indexes: list[Index] = field(default_factory=list)
    auto_increment_start: int | None = None
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    # its SQLite table's character columns compare under GENERAL_CI (`sqlite_create` made it);
    # False: a table made before, whose columns keep SQLite's NOCASE until a rebuild (ALTER
    # TABLE), and whose LIKE (the engine's: `collation`) searches no index
    general_ci: bool = False
    checks: list[Check] = field(default_factory=list)
    charset: str | None = None  # its DEFAULT CHARSET (or COLLATE's), for columns defined later
    # its default collation where that is not its character set's (a COLLATE=, its database's)
    collate: str | None = None
    row_format: str | None = None  # its ROW_FORMAT= (upper-case), as declared: CHECKSUM TABLE reads it
    comment: str | None = None  # its COMMENT=, shown by SHOW CREATE TABLE and TABLES.TABLE_COMMENT
    # the options MariaDB keeps that change nothing here (MIN_ROWS=, PACK_KEYS= ...: `KEPT_OPTIONS`),
    # name -> value as SHOW CREATE TABLE prints it; those at their default are left out
    kept_options: dict[str, str] = field(default_factory=dict)

    def define_charset(self, col: Column) -> None:
        """A character column defined without a character set takes the table's default, and
        its default collation (a _bin one: the column compares in binary)."""
        if col.charset is None and col.base in CHAR_TYPES:
            col.charset = self.charset
            if self.collate is not None and col.base != "json":
                col.binary = col.binary or self.collate.endswith("_bin")
                if col.collation_name != self.collate:
                    col.collation = self.collate

    def take_default(self, charset: str | None, collation: str | None) -> None:
        """The table's default character set and collation (`collate` kept only where it is not
        the character set's default)."""
        self.charset = charset
        self.collate = None if charset is None or collation == default_collation(charset) else collation

    def ci_column(self, name: str) -> Column | None:
        """The column `name` if it is a character column compared under GENERAL_CI."""
        col = self.column(name)
        if col is None or not self.general_ci or not col.text_ci:
            return None
        return col

    def result_type(self, col: Column) -> ColumnType:
        """The description of `col` in a result set, with its NOT NULL and key flags."""
        ct = declared_type(col.base, col.args, col.unsigned, col.binary, col.zerofill)
        flags = ct.flags
        name = col.name.lower()
        if not col.nullable:
            flags |= ColumnFlag.NOT_NULL
            if not (col.has_default or col.default_now or col.auto_increment or col.generated is not None):
                flags |= ColumnFlag.NO_DEFAULT_VALUE  # an INSERT must name it (MariaDB's NO_DEFAULT_VALUE_FLAG)
        if col.auto_increment:
            flags |= ColumnFlag.AUTO_INCREMENT
        if col.on_update_now:
            flags |= ColumnFlag.ON_UPDATE_NOW
        if col.base == "timestamp" and (col.default_now or col.on_update_now):  # a TIMESTAMP set by itself
            flags |= ColumnFlag.TIMESTAMP
        primary = self.acting_primary()
        for index in self.indexes:
            names = [c.lower() for c in index.columns]
            if name not in names:
                continue
            flags |= ColumnFlag.PART_KEY
            if index is primary:
                flags |= ColumnFlag.PRI_KEY
            elif names[0] == name:
                flags |= ColumnFlag.UNIQUE_KEY if index.unique else ColumnFlag.MULTIPLE_KEY
        return ct.with_flags(flags)

    def acting_primary(self) -> Index | None:
        """The primary key, or without one the first UNIQUE key of NOT NULL columns, which
        InnoDB takes as primary (MariaDB shows PRI for its columns)."""
        return self.primary or next(
            (i for i in self.indexes if i.unique and all((c := self.column(n)) is not None and not c.nullable
                                                         for n in i.columns)), None)

    def must_column(self, name: str, where: str = "field list") -> Column:
        col = self.column(name)
        if col is None:
            raise SQLError(ER_BAD_FIELD_ERROR, name, where)
        return col

    def column(self, name: str) -> Column | None:
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        return None

    @property
    def primary(self) -> Index | None:
        return next((i for i in self.indexes if i.primary), None)

    @property
    def auto_column(self) -> Column | None:
        return next((c for c in self.columns if c.auto_increment), None)

    def rowid_alias(self) -> Column | None:
        """The column that is SQLite's INTEGER PRIMARY KEY, if any."""
        pk = self.primary
        if pk and len(pk.columns) == 1:
            col = self.column(pk.columns[0])
            if col is not None and col.base in INT_TYPES:
                return col
        return None

    def unique_key(self, index: Index) -> set[str] | None:
        """The lower-case columns of `index` if equality on all of them finds at most one row
        (the primary key, a UNIQUE key of NOT NULL columns), else None."""
        if index.primary or index.unique and all(
                (col := self.column(name)) is not None and not col.nullable for name in index.columns):
            return {name.lower() for name in index.columns}
        return None

    def key_name_for(self, columns: list[str]) -> str:
        low = [c.lower() for c in columns]
        for index in self.indexes:
            if [c.lower() for c in index.columns] == low:
                return "PRIMARY" if index.primary else index.name
        return "PRIMARY" if low and self.primary is None else ",".join(columns)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @staticmethod
    def from_json(text: str) -> Table:
        raw = json.loads(text)
        raw["columns"] = [Column(**c) for c in raw["columns"]]
        raw["indexes"] = [Index(**i) for i in raw["indexes"]]
        raw["foreign_keys"] = [ForeignKey(**f) for f in raw.get("foreign_keys", ())]
        raw["checks"] = [Check(**c) for c in raw.get("checks", ())]
        return Table(**raw)

    # --- SQLite DDL ---------------------------------------------------------------------------

    def sqlite_create(self, name: str | None = None) -> list[str]:
        """CREATE TABLE + CREATE INDEX statements for SQLite (qualified with the schema); the
        table they make compares its character columns under GENERAL_CI (`general_ci` set)."""
        name = name or self.name
        self.general_ci = True
        rowid = self.rowid_alias()
        defs = []
        for col in self.columns:
            parts = [quote_ident(col.name)]
            if col is rowid:
                parts.append("INTEGER PRIMARY KEY")
            else:
                parts.append(col.affinity)
            if col.generated is not None:
                parts.append(f"GENERATED ALWAYS AS ({col.generated_sqlite}) {'STORED' if col.stored else 'VIRTUAL'}")
            elif not col.nullable:
                parts.append("NOT NULL")
            if col.has_default and col.default is not None:
                # a DECIMAL's as the column holds its values: its digits to its scale (0.00)
                default = col.default_shown() if col.base == "decimal" else col.default
                parts.append("DEFAULT " + sql_literal(default))
            elif col.default_now:
                parts.append("DEFAULT CURRENT_TIMESTAMP")
            if col.text_ci:
                parts.append("COLLATE " + GENERAL_CI)
            elif col.base in NUMERIC_TYPES or col.unsigned_64:
                parts.append("COLLATE " + DECIMAL_COLLATION)
            elif col.base in FIXEDBIN_TYPES:
                parts.append("COLLATE " + fixedbin.COLLATIONS[col.base])
            defs.append(" ".join(parts))
        pk = self.primary
        if pk is not None and rowid is None:
            defs.append("PRIMARY KEY (" + ", ".join(quote_ident(c) for c in pk.columns) + ")")
        for check in self.checks:  # false fails the write with MariaDB's 4025 (`functions.mysql_check`)
            shown = f"{self.name}.{check.name}" if check.column is not None else check.name
            defs.append(f"CHECK (mysql_check({check.sqlite}, {sql_literal(shown)}, {sql_literal(self.schema)}, "
                        f"{sql_literal(self.name)}))")
        stmts = [f"CREATE TABLE {quote_ident(self.schema)}.{quote_ident(name)} ({', '.join(defs)})"]
        for index in self.indexes:
            if not index.primary:
                stmts.append(self.sqlite_index(index, name))
        return stmts

    def sqlite_index(self, index: Index, table: str | None = None) -> str:
        table = table or self.name
        unique = "UNIQUE " if index.unique else ""
        cols = ", ".join(quote_ident(c) for c in index.columns)
        return (f"CREATE {unique}INDEX {quote_ident(self.schema)}.{quote_ident(sqlite_index_name(table, index.name))} "
                f"ON {quote_ident(table)} ({cols})")

    # --- MySQL views ------------------------------------------------------------------------

    def clustered_key(self) -> Index | None:
        """The key InnoDB clusters the rows by: the primary key, else the first UNIQUE key of
        NOT NULL columns (None: its hidden row id, in insertion order)."""
        if self.primary is not None:
            return self.primary
        return next((i for i in self.indexes if i.unique and all(
            (col := self.column(name)) is not None and not col.nullable for name in i.columns)), None)

    def show_create(self, auto_increment: int | None = None) -> str:
        """SHOW CREATE TABLE's text; `auto_increment`: the id the next row would get (shown as
        AUTO_INCREMENT=n when above 1, as MariaDB shows it)."""
        lines = []
        for col in self.columns:
            line = f"  {mysql_ident(col.name)} {col.shown_type}{self.charset_clause(col)}"
            if col.generated is not None:  # (neither NULL nor DEFAULT: MariaDB's grammar has none)
                line += f" GENERATED ALWAYS AS ({col.generated_printed}) {'STORED' if col.stored else 'VIRTUAL'}"
            elif col.auto_increment:  # (a nullable TIMESTAMP says NULL: MariaDB's may be NOT NULL unsaid)
                line += (" NULL" if col.base == "timestamp" and col.nullable else "") + (
                    " AUTO_INCREMENT" if col.nullable else " NOT NULL AUTO_INCREMENT")
            else:
                line += (" NULL" if col.base == "timestamp" and col.nullable else "") + col.null_and_default()
            if col.on_update_now:
                line += " ON UPDATE " + col.now_text(on_update=True)
            if col.comment:
                line += " COMMENT " + quoted_text(col.comment)
            for check in self.checks:
                if check.column is not None and check.column.lower() == col.name.lower():
                    line += f" CHECK ({check.shown})"
            lines.append(line)
        for index in self.indexes:
            cols = ",".join(mysql_ident(c) for c in index.columns)
            if index.primary:
                lines.append(f"  PRIMARY KEY ({cols})")
            elif index.unique:
                lines.append(f"  UNIQUE KEY {mysql_ident(index.name)} ({cols})")
            else:
                lines.append(f"  KEY {mysql_ident(index.name)} ({cols})")
        for fk in self.foreign_keys:
            lines.append(f"  CONSTRAINT {mysql_ident(fk.name)} {fk.describe(self.schema)}")
        lines.extend(f"  CONSTRAINT {mysql_ident(c.name)} CHECK ({c.shown})" for c in self.checks if c.column is None)
        counter = f" AUTO_INCREMENT={auto_increment}" if auto_increment is not None and auto_increment > 1 else ""
        charset = self.charset or "utf8mb4"
        options = "".join(f" {name}={value}" for name, value in self.printed_options())
        if self.comment:
            options += " COMMENT=" + quoted_text(self.comment)
        return (f"CREATE TABLE {mysql_ident(self.name)} (\n" + ",\n".join(lines)
                + f"\n) ENGINE=InnoDB{counter} DEFAULT CHARSET={charset} COLLATE={self.collation}{options}")

    def charset_clause(self, col: Column) -> str:
        """A character column's CHARACTER SET ... COLLATE ... as SHOW CREATE TABLE writes it: only
        where its character set is not the table's default or it compares in binary (_bin)."""
        if col.base not in CHAR_TYPES:
            return ""
        charset, table_charset = col.charset or "utf8mb4", self.charset or "utf8mb4"
        collation = col.collation_name
        if col.base == "json":
            charset, collation = "utf8mb4", "utf8mb4_bin"
        if charset == table_charset and collation == self.collation:
            return ""
        if charset == "binary":
            return " CHARACTER SET binary"
        return f" CHARACTER SET {charset} COLLATE {collation}"

    @property
    def collation(self) -> str:
        """The table's default collation (TABLES.TABLE_COLLATION, SHOW TABLE STATUS)."""
        return self.collate or default_collation(self.charset or "utf8mb4")

    def printed_options(self) -> list[tuple[str, str]]:
        """The options kept (`kept_options`) and ROW_FORMAT, in the order MariaDB's SHOW CREATE
        TABLE prints them (its `store_create_info`)."""
        kept = self.kept_options
        printed = [(name, kept[name]) for name in KEPT_OPTIONS[:-1] if name in kept]
        if self.row_format:
            printed.append(("ROW_FORMAT", self.row_format))
        if "KEY_BLOCK_SIZE" in kept:
            printed.append(("KEY_BLOCK_SIZE", kept["KEY_BLOCK_SIZE"]))
        return printed

    @property
    def create_options(self) -> str:
        """TABLES.CREATE_OPTIONS: the options declared beyond MariaDB's defaults that it lists."""
        return " ".join(f"{name.lower()}={value}" for name, value in self.printed_options())

    def null_default(self, col: Column) -> bool:
        """information_schema.COLUMNS' COLUMN_DEFAULT of `col` without a DEFAULT: 'NULL' (True)
        or none (a NOT NULL or AUTO_INCREMENT column's; `viewcols.StandIn` says for a view's)."""
        return col.nullable and not col.auto_increment

    def describe(self) -> list[tuple]:
        """DESCRIBE's rows. Key as MySQL's: PRI for every column of the primary key (without
        one, of the first UNIQUE key of NOT NULL columns, which InnoDB takes as primary), else
        UNI for the column of a one-column UNIQUE key, else MUL for the first column of any
        other key."""
        primary = self.acting_primary()
        keys: dict[str, str] = {}
        for index in self.indexes:
            if index is primary:
                for name in index.columns:
                    keys[name.lower()] = "PRI"
            elif index.columns:
                first = index.columns[0].lower()
                kind = "UNI" if index.unique and len(index.columns) == 1 else "MUL"
                if keys.get(first) not in ("PRI", "UNI"):
                    keys[first] = kind
        rows = []
        for col in self.columns:
            key = keys.get(col.name.lower(), "")
            default = None
            if col.default_now:
                default = col.now_text()
            elif col.has_default and col.default is not None:
                # a TEXT's, BLOB's or JSON's DEFAULT is an expression in MariaDB: shown quoted
                default = col.default_sql() if col.base in _EXPRESSION_DEFAULTS else col.default_shown()
            extra = "auto_increment" if col.auto_increment else col.generated_extra
            if col.on_update_now:
                extra = "on update " + col.now_text(on_update=True)
            rows.append((col.name, col.shown_type, "YES" if col.nullable else "NO", key, default, extra))
        return rows


def sqlite_index_name(table: str, index: str) -> str:
    return f"{table}${index}"


def sql_literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return "'" + str(value).replace("'", "''") + "'"


@dataclass
class View:
    """A MySQL view: its SELECT as MySQL text (literals written out), expanded by `translate` where
    it is named; kept in the schema's catalog table under the key `VIEW_PREFIX + name`."""

    schema: str
    name: str
    select: str
    columns: list[str] = field(default_factory=list)
    definer: str = "`root`@`localhost`"
    security: str = "DEFINER"
    algorithm: str = "UNDEFINED"

    def to_json(self) -> str:
        return json.dumps({"view": self.__dict__})

    def show_create(self, database: str | None = None) -> str:
        """SHOW CREATE VIEW's text in MariaDB's layout (the SELECT as it was written) for a
        session whose current database is `database`: the view's name qualified only when it is
        another one's (so that a dump's text, run in another database, makes the view there)."""
        # the SELECT as written, so a column list stays in the header (as MySQL 8 prints it;
        # MariaDB folds it into the SELECT's aliases): replaying the text makes the same view
        columns = f" ({', '.join(mysql_ident(c) for c in self.columns)})" if self.columns else ""
        name = mysql_ident(self.name) if database == self.schema else f"{mysql_ident(self.schema)}.{mysql_ident(self.name)}"
        return (f"CREATE ALGORITHM={self.algorithm} DEFINER={self.definer} SQL SECURITY {self.security} "
                f"VIEW {name}{columns} AS {self.select}")

    @staticmethod
    def from_json(text: str) -> View:
        return View(**json.loads(text)["view"])


VIEW_PREFIX = "\x00view:"  # catalog keys of views: never a table name


def quoted_text(text: str) -> str:
    """A text quoted as SHOW CREATE TABLE writes a COMMENT or an ENUM's member (MariaDB's
    `append_unescaped`: a quote doubled, a backslash and the control characters escaped)."""
    escaped = text.replace("\\", "\\\\").replace("'", "''").replace("\0", "\\0").replace("\n", "\\n")
    return "'" + escaped.replace("\r", "\\r").replace("\032", "\\Z") + "'"


def mysql_literal(value: object) -> str:
    """`value` as MySQL text: a 0x.. or b'..' literal (`lexer.Hybrid`) as 0x.., other bytes X'..'."""
    if type(value) is Hybrid:
        return "0x" + value.hex() if value else "b''"
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


# --- parsing column definitions (from tokens with literal params) ------------------------------


END = Token("end", "")


class TokenCursor:
    """A cursor over one statement's tokens, with its literal values at hand."""

    def __init__(self, tokens: list[Token], params: list[object], text: str):
        self.tokens = tokens
        self.params = params
        self.text = text
        self.i = 0

    def peek(self, ahead: int = 0) -> Token:
        """The token `ahead` of the cursor, or an `end` token past the statement's end."""
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else END

    def at_end(self) -> bool:
        return self.i >= len(self.tokens)

    def next(self) -> Token:
        tok = self.peek()
        if tok is END:
            raise syntax_error("")
        self.i += 1
        return tok

    def error(self) -> Exception:
        """1064 near the cursor: the statement's text from there, its tokens as far apart as they
        stand in the statement (literals as `?`, which `SyntaxError_.with_literals` writes out)."""
        rest = self.tokens[self.i:]
        pieces: list[str] = []
        for k, tok in enumerate(rest):
            if k:
                pieces.append(" " * max(tok.start - rest[k - 1].end, 0))
            pieces.append(tok.text)
        return syntax_error("".join(pieces))

    def accept(self, *words: str) -> bool:
        if self.peek().is_word(*words):
            self.i += 1
            return True
        return False

    def accept_words(self, first: str, *rest: str) -> bool:
        """`first rest...` (e.g. IF NOT EXISTS): False if `first` is absent, 1064 if `rest` is."""
        if not self.accept(first):
            return False
        for word in rest:
            self.expect(word)
        return True

    def accept_op(self, op: str) -> bool:
        tok = self.peek()
        if tok.kind == "op" and tok.text == op:
            self.i += 1
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            raise self.error()

    def expect_op(self, op: str) -> None:
        if not self.accept_op(op):
            raise self.error()

    def ident(self) -> str:
        tok = self.peek()
        if tok.kind not in ("word", "ident"):
            raise self.error()
        self.i += 1
        return tok.text

    def qualified(self) -> tuple[str | None, str]:
        first = self.ident()
        if self.accept_op("."):
            return first, self.ident()
        return None, first

    def literal(self) -> Any:
        tok = self.peek()
        if tok.kind == "param":
            self.i += 1
            return self.params[tok.param]
        if tok.kind == "op" and tok.text in "-+":
            self.i += 1
            value = self.literal()
            if not isinstance(value, (int, float, Decimal)):
                raise self.error()
            return -value if tok.text == "-" else value
        if tok.is_word("NULL"):
            self.i += 1
            return None
        if tok.is_word("TRUE", "FALSE"):
            self.i += 1
            return 1 if tok.upper == "TRUE" else 0
        raise self.error()

    def clause(self) -> str:
        """A balanced (...) group at the cursor, skipped: its inside as MySQL text (tokens one
        space apart, literals written out)."""
        start = self.i
        self.skip_parens()
        pieces: list[str] = []
        for tok in self.tokens[start + 1:self.i - 1]:
            if tok.kind == "param":
                value = self.params[tok.param]
                text = mysql_literal(value)
            else:
                text = tok.text
            if pieces and not (pieces[-1] == "(" or text in (")", ",") or (text == "(" and pieces[-1][-1:].isalnum())):
                pieces.append(" ")
            pieces.append(text)
        return "".join(pieces)

    def skip_parens(self) -> None:
        """Skip a balanced (...) group starting at the cursor."""
        self.expect_op("(")
        depth = 1
        while depth:
            tok = self.next()
            if tok.kind == "op" and tok.text == "(":
                depth += 1
            elif tok.kind == "op" and tok.text == ")":
                depth -= 1

    def name_list(self) -> list[str]:
        """( col [(len)] [ASC|DESC], ... )"""
        self.expect_op("(")
        names = []
        while True:
            names.append(self.ident())
            if self.peek() is not None and self.peek().text == "(":
                self.skip_parens()
            self.accept("ASC", "DESC")
            if self.accept_op(")"):
                return names
            self.expect_op(",")


def _exact_text(value: object) -> bool:
    """Whether `value` is the text `typed_default` keeps of a long number: digits, a point, digits."""
    whole, point, fraction = str(value).removeprefix("-").partition(".")
    return bool(point) and whole.isdigit() and fraction.isdigit()


def check_decimal_size(args: list[str], name: str) -> None:
    """DECIMAL(M,D)'s bounds, as MariaDB checks a column's or a CAST's: D at most 38 (1425), M at
    most 65 (1426), M not below D (1427); `name` the column or the expression cast."""
    precision = int(args[0]) if args and args[0].isdigit() else 10
    scale = int(args[1]) if len(args) > 1 and args[1].isdigit() else 0
    if scale > DECIMAL_MAX_SCALE:
        raise SQLError(ER_TOO_BIG_SCALE, name, DECIMAL_MAX_SCALE)
    if precision > DECIMAL_MAX_PRECISION:
        raise SQLError(ER_TOO_BIG_PRECISION, name, DECIMAL_MAX_PRECISION)
    if precision < scale:
        raise SQLError(ER_M_BIGGER_THAN_D, name)


def typed_default(col: Column, value: object) -> object:
    """DEFAULT '0' on a number column is the number 0, as MySQL shows it. A number with more
    digits than a double holds (`lexer.decode_number`'s Decimal) is kept as its exact text
    (`default_shown` reads a DECIMAL's), a double for an integer or floating column. A 0x.. or
    b'..' literal (`lexer.Hybrid`) is its number on a number column; a binary string default is
    not kept here (1235)."""
    if type(value) is Hybrid and col.base in INT_TYPES | REAL_TYPES | NUMERIC_TYPES:
        value = value.number  # (then as the number written in digits)
    if isinstance(value, bytes):
        raise SQLError(ER_NOT_SUPPORTED_YET, "a binary string as a column's DEFAULT")
    if isinstance(value, Decimal):
        return float(value) if col.base in INT_TYPES or col.base in REAL_TYPES else format(value, "f")
    if isinstance(value, str) and (col.base in INT_TYPES or col.base in REAL_TYPES or col.base in NUMERIC_TYPES):
        try:
            return int(value) if col.base in INT_TYPES else float(value)
        except ValueError:
            return value
    return value


# the type names MariaDB's parser reads as another's
_TYPE_SYNONYMS = {"int1": "tinyint", "int2": "smallint", "int3": "mediumint", "int4": "int", "int8": "bigint",
                  "middleint": "mediumint", "float4": "float", "float8": "double"}

_NOW_WORDS = ("CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP")


def parse_column(cur: TokenCursor, name: str, indexes: list[Index],
                 foreign_keys: list[ForeignKey] | None = None, checks: list[Check] | None = None) -> Column:
    """A column definition; inline PRIMARY KEY / UNIQUE [KEY] become entries of `indexes`, an
    inline REFERENCES (a foreign key since MariaDB 10.5) one of `foreign_keys`, a CHECK one of
    `checks` (the column's own)."""
    tok = cur.next()
    base = _TYPE_SYNONYMS.get(tok.text.lower(), tok.text.lower())
    if base == "long" and tok.kind == "word":  # LONG [VARCHAR] / LONG VARBINARY: MariaDB's MEDIUMTEXT / MEDIUMBLOB
        base = "mediumblob" if cur.accept("VARBINARY") else "mediumtext"
        cur.accept("VARCHAR")
    if tok.kind != "word" or base not in ALL_TYPES:
        if tok.kind in ("word", "ident"):  # a name in a type's place, NOT too (MariaDB's 4161)
            raise SQLError(ER_UNKNOWN_DATA_TYPE, tok.text)
        cur.i -= 1
        raise cur.error()
    if base == "double" and cur.accept("PRECISION"):
        pass
    if base == "character" and cur.accept("VARYING"):
        base = "varchar"
    col = Column(name=name, base={"character": "char", "nchar": "char", "nvarchar": "varchar", "dec": "decimal",
                                  "fixed": "decimal", "numeric": "decimal", "bool": "tinyint",
                                  "boolean": "tinyint", "integer": "int", "real": "double"}.get(base, base))
    if base in ("bool", "boolean"):
        col.args = ["1"]
    if base in ("nchar", "nvarchar"):  # NATIONAL CHARACTER: utf8mb3
        col.charset = "utf8mb3"
    if base == "serial":
        col.base, col.unsigned, col.nullable, col.auto_increment = "bigint", True, False, True
    if cur.accept_op("("):
        while True:
            value = cur.literal()
            col.args.append(mysql_literal(value) if isinstance(value, str) else str(value))
            if cur.accept_op(")"):
                break
            cur.expect_op(",")
    if col.base == "decimal":
        check_decimal_size(col.args, name)
    if col.base == "float" and len(col.args) == 1:  # FLOAT(p): a FLOAT to 24 bits, a DOUBLE to 53 (MariaDB's)
        if int(col.args[0]) > 53:
            raise SQLError(ER_WRONG_FIELD_SPEC, name)
        col.base, col.args = "double" if int(col.args[0]) > 24 else "float", []
    if col.base in ("binary", "varbinary") or base.endswith("blob"):
        col.binary = True
    while not cur.at_end():
        tok = cur.peek()
        if tok.kind == "op" and tok.text in (",", ")"):
            break
        if col.generated is not None and tok.is_word("NOT", "NULL", "DEFAULT", "ON", "AUTO_INCREMENT"):
            raise cur.error()  # (MariaDB's grammar: none of these after a generated column's AS)
        if col.base in FIXEDBIN_TYPES and tok.is_word("UNSIGNED", "SIGNED", "ZEROFILL", "CHARACTER", "CHARSET",
                                                      "BINARY"):
            raise cur.error()  # (a type of no character set, no sign)
        if cur.accept("UNSIGNED"):
            col.unsigned = True
        elif cur.accept("ZEROFILL"):
            if col.base in DISPLAY_WIDTH or col.base in REAL_TYPES or col.base in NUMERIC_TYPES:
                col.unsigned = col.zerofill = True
        elif cur.accept("SIGNED"):
            pass
        elif cur.accept("NOT"):
            cur.expect("NULL")
            col.nullable = False
        elif cur.accept("NULL"):
            col.nullable = True
        elif cur.accept("DEFAULT"):
            parse_default(cur, col)
        elif cur.accept("ON"):
            cur.expect("UPDATE")
            tok = cur.next()
            if not tok.is_word(*_NOW_WORDS):
                raise cur.error()
            digits = _now_digits(cur)
            if digits is not None and digits < col.fsp:
                raise SQLError(ER_INVALID_ON_UPDATE, name)
            col.on_update_now = True
        elif cur.accept("AUTO_INCREMENT"):
            col.auto_increment = True
            col.nullable = False
        elif cur.accept("PRIMARY"):
            cur.expect("KEY")
            col.nullable = False
            indexes.insert(0, Index("PRIMARY", [name], unique=True, primary=True))
        elif cur.accept("UNIQUE"):
            cur.accept("KEY")
            indexes.append(Index(name, [name], unique=True))
        elif cur.accept("KEY"):
            col.nullable = False
            indexes.insert(0, Index("PRIMARY", [name], unique=True, primary=True))
        elif cur.accept("COMMENT"):
            col.comment = str(cur.literal())
        elif cur.accept("CHARACTER"):
            cur.expect("SET")
            col.charset = charset_name(cur.ident())
        elif cur.accept("CHARSET"):
            col.charset = charset_name(cur.ident())
        elif cur.accept("COLLATE"):
            coll = cur.ident().lower()
            col.binary = col.binary or coll.endswith("_bin")
            col.charset = col.charset or collation_charset(coll)
            coll = "utf8mb3_" + coll[5:] if coll.startswith("utf8_") else coll
            if COLLATION_CHARSETS.get(coll) == col.charset and coll != col.collation_name:
                col.collation = coll
        elif cur.accept("BINARY"):
            col.binary = True
        elif tok.is_word("AS", "GENERATED"):  # [GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED | PERSISTENT]
            parse_generated(cur, col)
        elif cur.accept("CHECK"):
            check = parse_check(cur, name)
            if checks is not None:
                check.column = name
                checks.append(check)
        elif cur.accept("REFERENCES"):
            ref_schema, ref_table = cur.qualified()
            fk = ForeignKey("", [name], ref_schema or "", ref_table, cur.name_list())
            parse_fk_actions(cur, fk)
            if foreign_keys is not None:
                foreign_keys.append(fk)
        elif tok.is_word("FIRST", "AFTER"):
            break
        elif cur.accept("INVISIBLE", "VISIBLE", "STORED", "VIRTUAL"):
            pass
        elif cur.accept("COLUMN_FORMAT", "STORAGE"):
            cur.ident()
        else:
            raise cur.error()
    if col.base in FIXEDBIN_TYPES:
        fixedbin_definition(col)
    if col.base == "json" and checks is not None and not any(c.column == name for c in checks):
        # MariaDB's JSON: a LONGTEXT whose values json_valid checks (4025), unless the column
        # declares a CHECK of its own
        checks.append(Check(name, f"json_valid({mysql_ident(name)})", column=name))
    if base == "serial" and not any(index.unique and index.columns == [name] for index in indexes):
        # SERIAL is BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE: MariaDB's key named after the
        # column, left out where a PRIMARY KEY or UNIQUE of the column alone already is one
        indexes.append(Index(name, [name], unique=True))
    return col


def fixedbin_definition(col: Column) -> None:
    """A UUID's, INET6's or INET4's definition checked as MariaDB checks it: no AUTO_INCREMENT
    (1063), a DEFAULT that is a value of the type (1067), kept as its canonical text."""
    if col.auto_increment:
        raise SQLError(ER_WRONG_FIELD_SPEC, col.name)
    if col.has_default and col.default is not None:
        value = col.default if isinstance(col.default, str | bytes) else None
        text = fixedbin.canonical(col.base, value) if value is not None else None
        if text is None:
            raise SQLError(ER_INVALID_DEFAULT, col.name)
        col.default = text


def parse_check(cur: TokenCursor, name: str) -> Check:
    """CHECK's (condition) at the cursor, named `name`."""
    start = cur.i
    clause = cur.clause()
    return Check(name, clause, printed=printed(cur.tokens[start + 1:cur.i - 1], cur.params, literal_texts(cur.text)))


def parse_generated(cur: TokenCursor, col: Column) -> None:
    """[GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED | PERSISTENT] of a column definition."""
    if cur.accept("GENERATED"):
        cur.expect("ALWAYS")
    cur.expect("AS")
    start = cur.i
    col.generated = cur.clause()
    col.generated_printed = printed(cur.tokens[start + 1:cur.i - 1], cur.params, literal_texts(cur.text))
    col.stored = cur.accept("STORED", "PERSISTENT")
    cur.accept("VIRTUAL")


def _now_digits(cur: TokenCursor) -> int | None:
    """CURRENT_TIMESTAMP's optional (n) after its name (None: no n)."""
    if not cur.accept_op("(") or cur.accept_op(")"):
        return None
    digits = cur.literal()
    cur.expect_op(")")
    if not isinstance(digits, int):
        raise cur.error()
    return digits


def parse_default(cur: TokenCursor, col: Column) -> None:
    """The value after DEFAULT (a column definition's, ALTER COLUMN ... SET DEFAULT's)."""
    if cur.peek() is not None and cur.peek().is_word(*_NOW_WORDS):
        cur.next()
        digits = _now_digits(cur)
        col.default, col.has_default, col.default_now = None, False, True
        col.default_fsp = digits if digits and digits < col.fsp else None
    elif cur.peek() is not None and cur.peek().text == "(":
        cur.expect_op("(")
        col.default, col.has_default, col.default_now = typed_default(col, cur.literal()), True, False
        cur.expect_op(")")
    else:
        col.default, col.has_default, col.default_now = typed_default(col, cur.literal()), True, False


def parse_table_element(cur: TokenCursor, columns: list[Column], indexes: list[Index],
                        foreign_keys: list[ForeignKey] | None = None, checks: list[Check] | None = None,
                        *, may_exist: bool = False) -> bool:
    """One element of CREATE TABLE (...): a column, a key, a foreign key definition (its
    ref_schema left "" when unqualified: the caller resolves it) or a CHECK (its name "" when
    the statement gives none: `number_checks` names it). `may_exist` (ALTER TABLE ... ADD):
    MariaDB's IF NOT EXISTS is taken where its grammar has it (after KEY / INDEX / UNIQUE /
    PRIMARY KEY / FOREIGN KEY, after a CHECK's CONSTRAINT): True when it was given."""
    symbol = None
    if_not_exists = False
    if cur.accept("CONSTRAINT"):
        if may_exist and cur.accept_words("IF", "NOT", "EXISTS"):
            if_not_exists = True
            symbol = cur.ident()
            if not cur.accept("CHECK"):
                raise cur.error()  # (MariaDB's grammar: only a CHECK's CONSTRAINT takes it)
            check = parse_check(cur, symbol)
            if checks is not None:
                checks.append(check)
            return True
        if not (cur.peek() and cur.peek().is_word("PRIMARY", "UNIQUE", "FOREIGN", "CHECK")):
            symbol = cur.ident()
        if not (cur.peek() and cur.peek().is_word("PRIMARY", "UNIQUE", "FOREIGN", "CHECK")):
            raise cur.error()  # (MariaDB's grammar: a CONSTRAINT names only these)
    if cur.accept("PRIMARY"):
        cur.expect("KEY")
        if_not_exists = may_exist and cur.accept_words("IF", "NOT", "EXISTS")
        if cur.peek() is not None and cur.peek().kind in ("word", "ident") and not cur.peek().is_word("USING"):
            cur.ident()
        cur.accept("USING") and cur.ident()
        indexes.insert(0, Index("PRIMARY", cur.name_list(), unique=True, primary=True))
        _skip_index_options(cur)
        return if_not_exists
    if cur.peek() is not None and cur.peek().is_word("UNIQUE", "KEY", "INDEX", "FULLTEXT", "SPATIAL"):
        unique = cur.accept("UNIQUE")
        cur.accept("FULLTEXT", "SPATIAL")
        cur.accept("KEY", "INDEX")
        if_not_exists = may_exist and cur.accept_words("IF", "NOT", "EXISTS")
        name = None
        if cur.peek() is not None and cur.peek().text != "(" and not cur.peek().is_word("USING"):
            name = cur.ident()
        cur.accept("USING") and cur.ident()
        cols = cur.name_list()
        # a UNIQUE constraint's index named by its CONSTRAINT symbol when it names none itself
        indexes.append(Index(name or (symbol if unique else None) or cols[0], cols, unique=unique))
        _skip_index_options(cur)
        return if_not_exists
    if cur.accept("FOREIGN"):
        cur.expect("KEY")
        if_not_exists = may_exist and cur.accept_words("IF", "NOT", "EXISTS")
        fk = parse_foreign_key(cur, symbol)
        if foreign_keys is not None:
            foreign_keys.append(fk)
        return if_not_exists
    if cur.accept("CHECK"):
        check = parse_check(cur, symbol or "")
        if checks is not None:
            checks.append(check)
        return False
    name = cur.ident()
    columns.append(parse_column(cur, name, indexes, foreign_keys, checks))
    return False


def number_checks(checks: list[Check]) -> None:
    """Names for the table's CHECKs declared without one: CONSTRAINT_1, CONSTRAINT_2 ... past
    the numbers taken, as MariaDB names them."""
    taken = {c.name.lower() for c in checks}
    n = 0
    for check in checks:
        if check.column is None and not check.name:
            n += 1
            while f"constraint_{n}" in taken:
                n += 1
            check.name = f"CONSTRAINT_{n}"
            taken.add(check.name.lower())


def parse_foreign_key(cur: TokenCursor, symbol: str | None) -> ForeignKey:
    """After FOREIGN KEY [IF NOT EXISTS]: [index_name] (cols) REFERENCES [db.]t (cols) [ON
    DELETE|UPDATE action]... The name is the CONSTRAINT symbol, else the index name, else ""
    (the caller numbers it), as MariaDB names it."""
    index_name = None
    if cur.peek() is not None and cur.peek().text != "(":
        index_name = cur.ident()
    columns = cur.name_list()
    cur.expect("REFERENCES")
    ref_schema, ref_table = cur.qualified()
    fk = ForeignKey(symbol or index_name or "", columns, ref_schema or "", ref_table, cur.name_list())
    parse_fk_actions(cur, fk)
    return fk


def parse_fk_actions(cur: TokenCursor, fk: ForeignKey) -> None:
    """[ON DELETE action] [ON UPDATE action] after REFERENCES t (cols)."""
    while cur.accept("ON"):
        event = "DELETE"
        if not cur.accept("DELETE"):
            cur.expect("UPDATE")
            event = "UPDATE"
        if cur.accept("SET"):
            if not cur.accept("NULL"):
                cur.expect("DEFAULT")  # InnoDB refuses SET DEFAULT
                raise SQLError(ER_UNKNOWN_ERROR, "ON ... SET DEFAULT is not supported by InnoDB")
            action = "SET NULL"
        elif cur.accept("NO"):
            cur.expect("ACTION")
            action = "NO ACTION"
        elif cur.accept("CASCADE"):
            action = "CASCADE"
        else:
            cur.expect("RESTRICT")
            action = "RESTRICT"
        if event == "DELETE":
            fk.on_delete = action
        else:
            fk.on_update = action
    if len(fk.columns) != len(fk.ref_columns):
        raise SQLError(ER_WRONG_FK_DEF, fk.name or fk.columns[0], "Key reference and table reference don't match")


def _skip_index_options(cur: TokenCursor) -> None:
    while True:
        if cur.accept("USING"):
            cur.ident()
        elif cur.accept("COMMENT"):
            cur.literal()
        elif cur.accept("KEY_BLOCK_SIZE"):
            cur.accept_op("=")
            cur.literal()
        else:
            return


# a character set's default collation where it is not <charset>_general_ci (MariaDB 10.11's)
_DEFAULT_COLLATIONS = {
    "latin1": "latin1_swedish_ci", "binary": "binary", "dec8": "dec8_swedish_ci", "hp8": "hp8_english_ci",
    "swe7": "swe7_swedish_ci", "latin5": "latin5_turkish_ci", "big5": "big5_chinese_ci", "gbk": "gbk_chinese_ci",
    "gb2312": "gb2312_chinese_ci", "sjis": "sjis_japanese_ci", "ujis": "ujis_japanese_ci",
    "cp932": "cp932_japanese_ci", "eucjpms": "eucjpms_japanese_ci", "euckr": "euckr_korean_ci",
    "tis620": "tis620_thai_ci",
}


def default_collation(charset: str) -> str:
    """A character set's default collation, as MariaDB 10.11 names it."""
    return _DEFAULT_COLLATIONS.get(charset, charset + "_general_ci")


# MariaDB 10.11's character sets (SHOW CHARACTER SET)
CHARSETS = frozenset({
    "armscii8", "ascii", "big5", "binary", "cp1250", "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866",
    "cp932", "dec8", "eucjpms", "euckr", "gb2312", "gbk", "geostd8", "greek", "hebrew", "hp8", "keybcs2", "koi8r",
    "koi8u", "latin1", "latin2", "latin5", "latin7", "macce", "macroman", "sjis", "swe7", "tis620", "ucs2", "ujis",
    "utf16", "utf16le", "utf32", "utf8mb3", "utf8mb4",
})


def charset_name(name: str) -> str:
    """A character set's name as the catalog keeps it (lower-case; utf8 is utf8mb3); 1115 for
    a name MariaDB does not know."""
    name = name.lower()
    name = "utf8mb3" if name == "utf8" else name
    if name not in CHARSETS:
        raise SQLError(ER_UNKNOWN_CHARACTER_SET, name)
    return name


def collation_charset(collation: str) -> str:
    """The character set a collation belongs to (binary: binary)."""
    return charset_name(collation.split("_", 1)[0])


# MariaDB 10.11's collations of each character set beyond the four every one has (its default,
# the default's _nopad_ one, _bin and _nopad_bin), without the character set's prefix
_UCA_COLLATIONS = (
    "unicode_ci unicode_nopad_ci unicode_520_ci unicode_520_nopad_ci icelandic_ci latvian_ci romanian_ci "
    "slovenian_ci polish_ci estonian_ci spanish_ci swedish_ci turkish_ci czech_ci danish_ci lithuanian_ci "
    "slovak_ci spanish2_ci roman_ci persian_ci esperanto_ci hungarian_ci sinhala_ci german2_ci "
    "croatian_mysql561_ci croatian_ci myanmar_ci thai_520_w2 vietnamese_ci")
_MORE_COLLATIONS = {
    "cp1250": "croatian_ci czech_cs polish_ci", "cp1251": "bulgarian_ci general_cs ukrainian_ci",
    "cp1257": "lithuanian_ci", "latin1": "danish_ci general_ci general_cs german1_ci german2_ci spanish_ci",
    "latin2": "croatian_ci czech_cs hungarian_ci", "latin7": "estonian_cs general_cs",
    "ucs2": _UCA_COLLATIONS + " general_mysql500_ci", "utf8mb3": _UCA_COLLATIONS + " general_mysql500_ci",
    "utf16": _UCA_COLLATIONS, "utf32": _UCA_COLLATIONS, "utf8mb4": _UCA_COLLATIONS,
}


def _charset_collations(charset: str) -> set[str]:
    if charset == "binary":
        return {"binary"}
    default = default_collation(charset)
    suffixes = ["bin", "nopad_bin", *_MORE_COLLATIONS.get(charset, "").split()]
    return {default, default[:-3] + "_nopad_ci", *(f"{charset}_{suffix}" for suffix in suffixes)}


COLLATION_CHARSETS = {name: charset for charset in CHARSETS for name in _charset_collations(charset)}


def collation_named(name: str) -> tuple[str, str]:
    """The character set and the name of the collation `name` names (any case; utf8_... is
    utf8mb3_...): 1273 for one MariaDB 10.11 does not know, 1235 for its UCA 14.0.0 ones, which
    belong to no one character set."""
    name = name.lower()
    if name.startswith("utf8_"):
        name = "utf8mb3_" + name[5:]
    charset = COLLATION_CHARSETS.get(name)
    if charset is not None:
        return charset, name
    if "uca1400" in name:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"COLLATE {name}")
    raise SQLError(ER_UNKNOWN_COLLATION, name)


SERVER_CHARSET, SERVER_COLLATION = "utf8mb4", "utf8mb4_general_ci"  # character_set_server, collation_server


@dataclass
class DatabaseOptions:
    """A database's options, MariaDB's db.opt: its default character set and collation (the
    server's where CREATE DATABASE names none), which a table made in it without its own takes,
    and its COMMENT. Kept in the database file's catalog under `DATABASE_KEY`."""

    charset: str = SERVER_CHARSET
    collation: str = SERVER_COLLATION
    comment: str = ""

    def show_create(self, name: str, if_not_exists: bool = False) -> str:
        """SHOW CREATE DATABASE's text."""
        exists = "/*!32312 IF NOT EXISTS*/ " if if_not_exists else ""
        collate = "" if self.charset == "binary" else f" COLLATE {self.collation}"
        comment = f" COMMENT {quoted_text(self.comment)}" if self.comment else ""
        return (f"CREATE DATABASE {exists}{mysql_ident(name)} /*!40100 DEFAULT CHARACTER SET {self.charset}"
                f"{collate} */{comment}")

    def to_json(self) -> str:
        return json.dumps({"database": asdict(self)})

    @staticmethod
    def from_json(text: str) -> DatabaseOptions:
        return DatabaseOptions(**json.loads(text)["database"])


DATABASE_KEY = "\x00database"  # the catalog key of the database's options: never a table name


def parse_database_options(cur: TokenCursor, options: DatabaseOptions) -> DatabaseOptions:
    """CREATE / ALTER DATABASE's options ([DEFAULT] CHARACTER SET / CHARSET [=] name | DEFAULT,
    [DEFAULT] COLLATE [=] name | DEFAULT, COMMENT [=] 'text') over `options`, the database's as
    they were (the server's for CREATE), checked as MariaDB's: 1115, 1273, a second different
    CHARACTER SET or COLLATE 1302, a collation of another character set 1253; 1064 for none."""
    charset = collation = comment = None
    while not cur.at_end():
        cur.accept("DEFAULT")
        tok = cur.next()
        if tok.is_word("CHARACTER"):
            cur.expect("SET")
        elif not tok.is_word("CHARSET", "COLLATE", "COMMENT"):
            cur.i -= 1
            raise cur.error()
        cur.accept_op("=")
        if tok.is_word("COMMENT"):
            comment = str(cur.literal())
            continue
        default = cur.accept("DEFAULT")
        value = None if default else str(cur.literal() if cur.peek().kind == "param" else cur.ident())
        if tok.is_word("COLLATE"):
            named = SERVER_COLLATION if default else collation_named(value)[1]  # type: ignore[arg-type]
            if collation is not None and collation != named:
                raise SQLError(ER_CONFLICTING_DECLARATIONS, "COLLATE ", collation, "COLLATE ", named)
            collation = named
        else:
            named = SERVER_CHARSET if default else charset_name(value)  # type: ignore[arg-type]
            if charset is not None and charset != named:
                raise SQLError(ER_CONFLICTING_DECLARATIONS, "CHARACTER SET ", charset, "CHARACTER SET ", named)
            charset = named
    if charset is None and collation is None and comment is None:
        raise cur.error()
    if collation is not None and charset is not None and COLLATION_CHARSETS[collation] != charset:
        raise SQLError(ER_COLLATION_CHARSET_MISMATCH, collation, charset)
    if collation is not None:
        charset = COLLATION_CHARSETS[collation]
    elif charset is not None:
        collation = default_collation(charset)
    return DatabaseOptions(charset or options.charset, collation or options.collation,
                           options.comment if comment is None else comment)


@dataclass
class TableOptions:
    """The table options the catalog keeps: AUTO_INCREMENT=n, the default character set
    (DEFAULT CHARSET / CHARACTER SET / COLLATE) and collation (COLLATE's, one of that character
    set's), CONVERT TO CHARACTER SET's (ALTER TABLE), ROW_FORMAT=, COMMENT= and `KEPT_OPTIONS`."""

    auto_increment: int | None = None
    charset: str | None = None
    collate: str | None = None
    convert: str | None = None
    row_format: str | None = None
    comment: str | None = None
    kept: dict[str, str | None] = field(default_factory=dict)  # `KEPT_OPTIONS` given (None: to its default)
    algorithm: str | None = None  # ALTER TABLE's ALGORITHM= (COPY, INPLACE, NOCOPY, INSTANT, DEFAULT)
    lock: str | None = None  # ALTER TABLE's LOCK= (NONE, SHARED, EXCLUSIVE, DEFAULT)


# The table options MariaDB keeps (SHOW CREATE TABLE, TABLES.CREATE_OPTIONS, so mariadb-dump)
# that change nothing here, in the order it prints them (ROW_FORMAT before KEY_BLOCK_SIZE).
KEPT_OPTIONS = ("MIN_ROWS", "MAX_ROWS", "AVG_ROW_LENGTH", "PACK_KEYS", "STATS_PERSISTENT", "STATS_AUTO_RECALC",
                "STATS_SAMPLE_PAGES", "CHECKSUM", "DELAY_KEY_WRITE", "KEY_BLOCK_SIZE")
# those whose 0 is a value printed (0 / 1 / DEFAULT); the others' 0 is their default, never printed
_SWITCHED_OPTIONS = frozenset({"PACK_KEYS", "STATS_PERSISTENT", "STATS_AUTO_RECALC"})


def _kept_value(name: str, value: object) -> str | None:
    """A kept option's value as MariaDB prints it; None for its default (DEFAULT, or a 0 that is)."""
    text = str(value).upper()
    if text == "DEFAULT":
        return None
    number = int(text)
    if name in _SWITCHED_OPTIONS:
        return "1" if number else "0"
    if name in ("CHECKSUM", "DELAY_KEY_WRITE"):
        return "1" if number else None
    return str(number) if number else None


def parse_table_options(cur: TokenCursor) -> TableOptions:
    """ENGINE=..., DEFAULT CHARSET=..., AUTO_INCREMENT=n ... (the others dropped)."""
    options = TableOptions()
    while not cur.at_end():
        if cur.accept_op(","):
            nxt = cur.peek()
            if nxt.kind == "word" and nxt.upper not in _TABLE_OPTIONS and nxt.upper not in ("DEFAULT", "CONVERT", "FORCE"):
                cur.i -= 1  # the comma before another ALTER TABLE clause (ADD, DROP ...): the caller's
                return options
            continue
        if cur.accept("CONVERT"):  # CONVERT TO CHARACTER SET x [COLLATE y]
            cur.expect("TO")
            if not cur.accept("CHARSET"):
                cur.expect("CHARACTER")
                cur.expect("SET")
            options.convert = options.charset = charset_name(cur.ident())
            continue
        cur.accept("DEFAULT")
        tok = cur.next()
        if tok.kind != "word":
            raise cur.error()
        word = tok.upper
        if word == "FORCE":  # ALTER TABLE's FORCE among the options: a rebuild, which every ALTER is
            continue
        if word in ("AS", "SELECT", "IGNORE", "REPLACE"):  # CREATE TABLE ... [AS] SELECT: not table options
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE TABLE ... SELECT")
        if word == "WITH" and cur.accept("SYSTEM"):  # WITH SYSTEM VERSIONING: no row history kept here
            raise SQLError(ER_NOT_SUPPORTED_YET, "system-versioned tables")
        if word == "PARTITION":  # PARTITION BY ...: MariaDB's answer where its partition plugin is not built
            raise SQLError(ER_FEATURE_DISABLED, "partitioning", "--with-plugin-partition")
        if word == "CHARACTER" or word == "CHAR":
            cur.expect("SET")
        elif word in ("DATA", "INDEX"):  # DATA DIRECTORY / INDEX DIRECTORY
            cur.expect("DIRECTORY")
        elif word not in _TABLE_OPTIONS:
            raise SQLError(ER_UNKNOWN_OPTION, tok.text)
        cur.accept_op("=")
        value_tok = cur.peek()
        if value_tok is None:
            raise cur.error()
        if value_tok.kind == "param":
            value = cur.literal()
        else:
            value = cur.ident()
        if word == "AUTO_INCREMENT":
            options.auto_increment = int(value)
        elif word in ("CHARACTER", "CHAR", "CHARSET"):
            options.charset = charset_name(str(value))
        elif word == "COLLATE":
            collate = str(value).lower()
            collate = "utf8mb3_" + collate[5:] if collate.startswith("utf8_") else collate
            options.charset = options.charset or collation_charset(collate)
            options.collate = collate if COLLATION_CHARSETS.get(collate) == options.charset else None
        elif word == "ROW_FORMAT":  # ("": DEFAULT, none)
            options.row_format = "" if str(value).upper() == "DEFAULT" else str(value).upper()
        elif word == "COMMENT":
            options.comment = str(value)
        elif word == "ALGORITHM":
            options.algorithm = str(value).upper()
        elif word == "LOCK":
            options.lock = str(value).upper()
        elif word in KEPT_OPTIONS or word == "TABLE_CHECKSUM":
            name = "CHECKSUM" if word == "TABLE_CHECKSUM" else word
            try:
                if value_tok.kind == "param" and not isinstance(value, int):
                    raise ValueError(value)  # a number or DEFAULT only
                kept = _kept_value(name, value)
            except ValueError:
                cur.i -= 1  # near the value, as MariaDB's grammar
                raise cur.error() from None
            if options.kept.get(name) != "1" or name not in ("CHECKSUM", "DELAY_KEY_WRITE"):
                options.kept[name] = kept  # (MariaDB's flags: a 0 after a 1 in one statement stays 1)
    return options


def primary_not_null(table: Table) -> None:
    """The primary key's columns are NOT NULL, as MySQL makes them (a PRIMARY KEY (a, b) of
    columns declared without NOT NULL; SQLite would take NULLs there)."""
    primary = table.primary
    for name in primary.columns if primary is not None else ():
        col = table.column(name)
        if col is not None:
            col.nullable = False


def order_indexes(table: Table) -> None:
    """The keys in MariaDB's order (its `sort_keys`, which SHOW CREATE TABLE and SHOW INDEX
    follow): unique keys first, those over NOT NULL columns before the others and the primary
    key first among them, then the other keys; each group in its declared order."""
    def rank(index: Index) -> tuple[int, int, int]:
        if not index.unique:
            return 1, 0, 0
        nullable = any((col := table.column(name)) is None or col.nullable for name in index.columns)
        return 0, int(nullable), int(not index.primary)
    table.indexes.sort(key=rank)


def check_table(table: Table) -> None:
    """MySQL's rules a CREATE TABLE must satisfy (beyond syntax)."""
    seen = set()
    for col in table.columns:
        if col.name.lower() in seen:
            raise SQLError(ER_DUP_FIELDNAME, col.name)
        seen.add(col.name.lower())
    for index in table.indexes:
        for name in index.columns:
            if table.column(name) is None:
                raise SQLError(ER_KEY_COLUMN_DOES_NOT_EXIST, name)
    if sum(1 for index in table.indexes if index.primary) > 1:
        raise SQLError(ER_MULTIPLE_PRI_KEY)
    autos = [c for c in table.columns if c.auto_increment]
    if len(autos) > 1 or (autos and not any(i.columns[0].lower() == autos[0].name.lower() for i in table.indexes)):
        raise SQLError(ER_WRONG_AUTO_KEY)
    if not table.columns:
        raise SQLError(ER_UNKNOWN_ERROR, "A table must have at least 1 column")

