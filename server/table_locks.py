"""LOCK TABLES / UNLOCK TABLES: what the session holding table locks may run, as MariaDB 10.11
answers it, and what the other sessions meet.

Contract
- `parse(sql, database)` reads `LOCK TABLE[S] name [[AS] alias] lock_type [, ...]` (lock_type:
  READ [LOCAL] | [LOW_PRIORITY] WRITE | WRITE CONCURRENT) into {(schema, alias -- the table's
  name without one): (table, READ or WRITE)}; an alias named twice in a database 1066, as
  MariaDB's parser. No database and an unqualified name: 1046.
- The holder's statements are checked before they run (`TableLocks.check_access` with the
  engine's `Access` of a SELECT or DML statement and the table references its text names,
  `references`; `check_ddl` for table DDL), as MariaDB's open_table under LOCK TABLES: each
  reference `name [[AS] alias]` takes a lock of that table under that alias (the name without
  one), each lock once per statement (a table named twice -- a self-join, a subquery -- needs a
  lock per alias; aliases match as written), else 1100 naming the alias; then a written
  reference locked READ 1099. A view it names wants a lock of the view under any alias (MariaDB
  opens it under the metadata lock that holds its name); a table the statement touches that its
  text does not name (a view's, a stored function's) is matched by name, any alias. DDL and SHOW
  CREATE TABLE take the lock of the table under its own name (`check_show`; DESCRIBE and SHOW
  COLUMNS / INDEX take none). Statements without tables are not checked. A table CREATE TEMPORARY TABLE makes
  under WRITE locks, or one the session made before LOCK TABLES (engine/temporary.py), is used
  without a lock, as MariaDB's temporary tables are (`TableLocks.owned`); under READ locks
  CREATE TEMPORARY TABLE is 1235 (its writes would need the engine's writer, which the locks
  hold).
- The other sessions: while the holder's locks are all READ it holds the engine's writer lock,
  as FLUSH TABLES WITH READ LOCK does (`ClientSession.hold_writer`): every other session's
  writes wait (MariaDB's READ lock holds back the writes of the locked tables only; never a
  wrong answer, a longer wait), their reads go on. WRITE locks are checked for the holder only:
  the engine's one writer cannot be the holder's between its statements (its autocommit writes
  commit through the group commit, which needs it), so other sessions' reads see the last
  committed rows and their writes run (MariaDB makes them wait).
- LOCK TABLES ends the session's transaction (an implicit commit) and its earlier locks; UNLOCK
  TABLES ends the locks and commits a transaction begun under them; BEGIN / START TRANSACTION
  and the session's end release them too (`ClientSession.unlock_tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable

from engine.lexer import SyntaxError_, Token, extract, tokenize
from protocol.errors import (
    ER_NO_DB_ERROR,
    ER_NONUNIQ_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_TABLE_NOT_LOCKED,
    ER_TABLE_NOT_LOCKED_FOR_WRITE,
    SQLError,
)
from server.sql import Tokens

READ = "READ"
WRITE = "WRITE"

TableKey = tuple[str, str]  # (schema, alias as written: the table's name without one)


def _table(t: Tokens, database: str | None) -> tuple[str, str]:
    """`name` or `schema.name` at the cursor: (schema, name as written)."""
    first = t.next()
    if first.kind not in ("WORD", "QUOTED"):
        t.i -= 1
        raise t.error()
    if t.accept_op("."):
        second = t.next()
        if second.kind not in ("WORD", "QUOTED"):
            t.i -= 1
            raise t.error()
        return first.text, second.text
    if database is None:
        raise SQLError(ER_NO_DB_ERROR)
    return database, first.text


def parse(sql: str, database: str | None) -> dict[TableKey, tuple[str, str]]:
    """LOCK TABLE[S] ...: {(schema, alias): (table name as written, READ or WRITE)}."""
    t = Tokens(sql)
    t.expect_word("LOCK")
    t.expect_word("TABLE", "TABLES")
    locked: dict[TableKey, tuple[str, str]] = {}
    while True:
        schema, name = _table(t, database)
        alias = name
        if t.accept_word("AS") or (_is_alias(t.peek())):
            alias = t.name()
        if t.accept_word("READ"):
            t.accept_word("LOCAL")
            mode = READ
        else:
            t.accept_word("LOW_PRIORITY")
            t.expect_word("WRITE")
            t.accept_word("CONCURRENT")
            mode = WRITE
        key = (schema, alias)
        if key in locked:  # (as MariaDB's parser: an alias once per database, matched exactly)
            raise SQLError(ER_NONUNIQ_TABLE, alias)
        locked[key] = (name, mode)
        if not t.accept_op(","):
            break
    t.expect_end()
    return locked


def _is_alias(tok: Token | None) -> bool:
    return tok is not None and (tok.kind == "QUOTED" or tok.kind == "WORD" and not tok.is_word(
        "READ", "WRITE", "LOW_PRIORITY"))


Reference = tuple[str, str, str]  # (schema, table name as written, alias as written: the name without one)

# the words after which a statement names tables (a comma list of them)
_LISTS_TABLES = frozenset({"FROM", "JOIN", "STRAIGHT_JOIN", "INTO", "UPDATE"})
# the words that end such a list or stand after a table's name where an alias could
_NOT_NAMES = frozenset({
    "SELECT", "WHERE", "SET", "VALUES", "VALUE", "ON", "USING", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS",
    "NATURAL", "STRAIGHT_JOIN", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "FOR", "LOCK", "WINDOW",
    "PARTITION", "IGNORE", "USE", "FORCE", "LOW_PRIORITY", "QUICK", "INTO", "FROM", "AS", "DUAL", "LATERAL",
    "OUTER", "EXCEPT", "INTERSECT", "PROCEDURE", "RETURNING", "OFFSET", "FETCH", "WITH",
})


def references(sql: str, database: str | None) -> list[Reference]:
    """The tables a SELECT or DML statement names after FROM / JOIN / INTO / UPDATE (and in comma
    lists of them), in its text's order, each with its alias; an unqualified name without a
    database is left out (the engine's 1046)."""
    try:
        tokens = tokenize(extract(sql)[0])
    except SyntaxError_:
        return []
    found: list[Reference] = []
    n = len(tokens)
    i = 0
    while i < n:
        word = tokens[i].upper
        i += 1
        if word not in _LISTS_TABLES:
            continue
        while i < n and _names(tokens[i]):
            schema, name = database, _unquoted(tokens[i])
            i += 1
            if i + 1 < n and tokens[i].text == "." and _names(tokens[i + 1]):
                schema, name = name, _unquoted(tokens[i + 1])
                i += 2
            if i < n and tokens[i].text == "(" and word != "INTO":
                break  # a function's call (INTO t (a, b): the columns)
            alias = name
            if i < n and tokens[i].is_word("AS"):
                i += 1
            if i < n and _names(tokens[i]):
                alias = _unquoted(tokens[i])
                i += 1
            if schema is not None:
                found.append((schema, name, alias))
            if not (i < n and tokens[i].text == ","):
                break
            i += 1
    return found


def _names(tok: Token) -> bool:
    """A token that can be a table's name or alias where one stands."""
    return tok.kind == "ident" or tok.kind == "word" and tok.upper not in _NOT_NAMES


def _unquoted(tok: Token) -> str:
    return tok.text[1:-1].replace("``", "`") if tok.kind == "ident" else tok.text


class TableLocks:
    """One session's LOCK TABLES: {(schema, alias): (table name, READ or WRITE)}, and the tables
    locked with the views it locks, {(schema, lower-case table): READ or WRITE} (a statement that
    names such a table wants a lock of its own)."""

    __slots__ = ("tables", "under_views", "temporary", "owned")

    def __init__(self, tables: dict[TableKey, tuple[str, str]],
                 under_views: dict[tuple[str, str], str] | None = None,
                 owned: Callable[[str, str], bool] = lambda schema, name: False) -> None:
        self.tables = tables
        self.under_views = under_views or {}
        # the tables CREATE TEMPORARY TABLE made under these locks: used without a lock
        self.temporary: set[tuple[str, str]] = set()
        # (schema, name) -> is it the session's temporary table (made before the locks too)?
        # Used without a lock, as MariaDB's temporary tables are
        self.owned = owned

    @property
    def all_read(self) -> bool:
        return all(mode == READ for _, mode in self.tables.values()) and WRITE not in self.under_views.values()

    def _locks(self, schema: str, table: str, alias: str | None = None) -> list[tuple[TableKey, str]]:
        """The locks of `schema.table` ((key, mode)), those under `alias` (as written) only where
        given."""
        table = table.lower()
        return [(key, mode) for key, (name, mode) in self.tables.items()
                if key[0] == schema and name.lower() == table and (alias is None or key[1] == alias)]

    def _mode(self, schema: str, table: str) -> str | None:
        """The lock of the table under its own name (a DDL statement's, SHOW CREATE TABLE's)."""
        modes = [mode for _, mode in self._locks(schema, table, table)]
        return None if not modes else WRITE if WRITE in modes else READ

    def check_write(self, schema: str, table: str) -> None:
        if self.owned(schema, table):
            return
        mode = self._mode(schema, table)
        if mode is None:
            raise SQLError(ER_TABLE_NOT_LOCKED, table)
        if mode == READ:
            raise SQLError(ER_TABLE_NOT_LOCKED_FOR_WRITE, table)

    def check_read(self, schema: str, table: str) -> None:
        if self._mode(schema, table) is None and not self.owned(schema, table):
            raise SQLError(ER_TABLE_NOT_LOCKED, table)

    def check_access(self, writes: Iterable[tuple[str, str, str]], reads: Iterable[tuple[str, str, str]],
                     named: list[Reference], views: Container[tuple[str, str]] = ()) -> None:
        """A SELECT's or DML's tables (`engine.results.Access`'s writes and reads; `named`: the
        statement's `references`, where those of neither these tables nor `views` (schema,
        lower-case name) are left aside), as the module's header says."""
        touched: dict[tuple[str, str], str] = {}  # (the written ones first)
        for _verb, schema, table in writes:
            touched.setdefault((schema, table.lower()), table)
        written = set(touched)
        for schema, table, _column in reads:
            touched.setdefault((schema, table.lower()), table)
        for key in [key for key, table in touched.items() if key in self.temporary or self.owned(key[0], table)]:
            del touched[key]
        unwritten = set(written)  # (a written table's first reference is the one written)
        taken: set[TableKey] = set()
        opened: list[tuple[str, str, bool]] = []  # (alias as written, its lock, whether written)
        for schema, table, alias in named:
            table_key = (schema, table.lower())
            if table_key not in touched:
                if table_key in views and not self._locks(schema, table):
                    raise SQLError(ER_TABLE_NOT_LOCKED, alias)
                continue  # (a view locked under any alias, a CTE's name, a word in a function's arguments ...)
            writes_it = table_key in unwritten
            unwritten.discard(table_key)
            free = [(key, mode) for key, mode in self._locks(schema, table, alias) if key not in taken]
            if not free:
                raise SQLError(ER_TABLE_NOT_LOCKED, alias)
            wanted = WRITE if writes_it else READ
            key, mode = next((lock for lock in free if lock[1] == wanted), free[0])  # (the closest lock)
            taken.add(key)
            opened.append((alias, mode, writes_it))
        for alias, mode, writes_it in opened:
            if writes_it and mode == READ:
                raise SQLError(ER_TABLE_NOT_LOCKED_FOR_WRITE, alias)
        named_tables = {(schema, table.lower()) for schema, table, _ in named}
        for (schema, lowered), table in touched.items():  # (those the text does not name: by name)
            if (schema, lowered) in named_tables:
                continue
            modes = [mode for _, mode in self._locks(schema, table)]
            if (schema, lowered) in self.under_views:
                modes.append(self.under_views[(schema, lowered)])
            if not modes:
                raise SQLError(ER_TABLE_NOT_LOCKED, table)
            if (schema, lowered) in written and WRITE not in modes:
                raise SQLError(ER_TABLE_NOT_LOCKED_FOR_WRITE, table)

    def check_ddl(self, sql: str, database: str | None) -> None:
        """CREATE / DROP / ALTER / TRUNCATE / RENAME TABLE and CREATE / DROP INDEX: a new table
        1100, an existing one as a write (1099 READ-locked, 1100 not locked); other DDL
        (databases, views, accounts) is not checked. CREATE TEMPORARY TABLE: under WRITE locks
        the table is the session's to use unlocked (`temporary`), under READ locks only 1235."""
        t = Tokens(sql)
        verb = t.next().upper
        if verb == "CREATE":
            if t.accept_word("OR"):
                t.expect_word("REPLACE")
            if t.accept_word("TEMPORARY"):
                if self.all_read:
                    raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE TEMPORARY TABLE under LOCK TABLES ... READ")
                t.expect_word("TABLE")
                if t.accept_word("IF"):
                    t.expect_word("NOT")
                    t.expect_word("EXISTS")
                schema, name = _table(t, database)
                self.temporary.add((schema, name.lower()))
                return
            if t.accept_word("TABLE"):
                if t.accept_word("IF"):
                    t.expect_word("NOT")
                    t.expect_word("EXISTS")
                raise SQLError(ER_TABLE_NOT_LOCKED, _table(t, database)[1])
            t.accept_word("UNIQUE", "FULLTEXT", "SPATIAL")
            if t.accept_word("INDEX"):
                self._index_target(t, database)
            return
        if verb == "DROP":
            if t.accept_word("TEMPORARY"):
                return
            if t.accept_word("INDEX"):
                self._index_target(t, database)
                return
            if not t.accept_word("TABLE", "TABLES"):
                return
            if t.accept_word("IF"):
                t.expect_word("EXISTS")
            self._names(t, database)
            return
        if verb == "ALTER":
            t.accept_word("ONLINE")
            t.accept_word("IGNORE")
            if t.accept_word("TABLE"):
                self.check_write(*_table(t, database))
            return
        if verb == "TRUNCATE":
            t.accept_word("TABLE")
            self.check_write(*_table(t, database))
            return
        if verb == "RENAME" and t.accept_word("TABLE", "TABLES"):
            self._names(t, database, "TO")

    def check_show(self, sql: str, database: str | None) -> None:
        """SHOW CREATE TABLE reads its table (1100 when not locked); DESCRIBE, SHOW COLUMNS /
        INDEX and the other SHOW statements are answered whatever is locked, as MariaDB's."""
        t = Tokens(sql)
        if t.accept_word("SHOW") and t.accept_word("CREATE") and t.accept_word("TABLE"):
            self.check_read(*_table(t, database))

    def _index_target(self, t: Tokens, database: str | None) -> None:
        """CREATE / DROP INDEX name ... ON table: the table, as a write."""
        while not t.at_end():
            if t.next().is_word("ON"):
                self.check_write(*_table(t, database))
                return

    def _names(self, t: Tokens, database: str | None, between: str | None = None) -> None:
        """A list of tables (`a, b` or RENAME's `a TO b, ...`), each as a write."""
        while not t.at_end():
            self.check_write(*_table(t, database))
            if between is not None and t.accept_word(between):
                _table(t, database)
            if not t.accept_op(","):
                return
