"""LOCK TABLES / UNLOCK TABLES: what the session holding table locks may run, as MariaDB 10.11
answers it, and what the other sessions meet.

Contract
- `parse(sql, database)` reads `LOCK TABLE[S] name [[AS] alias] lock_type [, ...]` (lock_type:
  READ [LOCAL] | [LOW_PRIORITY] WRITE | WRITE CONCURRENT) into {(schema, lower-case table):
  READ or WRITE}; a table named twice keeps WRITE. No database and an unqualified name: 1046.
- The holder's statements are checked before they run (`TableLocks.check_access` with the
  engine's `Access` of a SELECT or DML statement, `check_ddl` for table DDL): a table it reads or
  writes that is not locked 1100, a write to a READ-locked table 1099 (the written table before
  the read ones, as MariaDB opens them). Tables are matched by name: a locked table read under an
  alias is answered here (MariaDB wants the alias itself locked, 1100). SHOW CREATE TABLE reads
  its table (`check_show`; DESCRIBE and SHOW COLUMNS / INDEX do not). Temporary tables and statements
  without tables are not checked.
- The other sessions: while the holder's locks are all READ it holds the engine's writer lock,
  as FLUSH TABLES WITH READ LOCK does (`ClientSession.hold_writer`): every other session's
  writes wait (MariaDB's READ lock holds back the writes of the locked tables only; never a
  wrong answer, a longer wait), their reads go on. WRITE locks are checked for the holder only:
  the engine's one writer cannot be the holder's between its statements (its autocommit writes
  commit through the group commit, which needs it), so other sessions' reads see the last
  committed rows and their writes run (MariaDB makes them wait). Under READ locks the holder
  writes no temporary table either (1223, as under FLUSH TABLES WITH READ LOCK: its writes too
  would need the engine's writer; MariaDB lets them run).
- LOCK TABLES ends the session's transaction (an implicit commit) and its earlier locks; UNLOCK
  TABLES ends the locks and commits a transaction begun under them; BEGIN / START TRANSACTION
  and the session's end release them too (`ClientSession.unlock_tables`).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.lexer import Token
from protocol.errors import (
    ER_NO_DB_ERROR,
    ER_TABLE_NOT_LOCKED,
    ER_TABLE_NOT_LOCKED_FOR_WRITE,
    SQLError,
)
from server.sql import Tokens

READ = "READ"
WRITE = "WRITE"

TableKey = tuple[str, str]  # (schema, lower-case table name)


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
    """LOCK TABLE[S] ...: {(schema, lower-case name): (name as written, READ or WRITE)}."""
    t = Tokens(sql)
    t.expect_word("LOCK")
    t.expect_word("TABLE", "TABLES")
    locked: dict[TableKey, tuple[str, str]] = {}
    while True:
        schema, name = _table(t, database)
        if t.accept_word("AS") or (_is_alias(t.peek())):
            t.name()
        if t.accept_word("READ"):
            t.accept_word("LOCAL")
            mode = READ
        else:
            t.accept_word("LOW_PRIORITY")
            t.expect_word("WRITE")
            t.accept_word("CONCURRENT")
            mode = WRITE
        key = (schema, name.lower())
        if locked.get(key, ("", READ))[1] != WRITE:
            locked[key] = (name, mode)
        if not t.accept_op(","):
            break
    t.expect_end()
    return locked


def _is_alias(tok: Token | None) -> bool:
    return tok is not None and (tok.kind == "QUOTED" or tok.kind == "WORD" and not tok.is_word(
        "READ", "WRITE", "LOW_PRIORITY"))


class TableLocks:
    """One session's LOCK TABLES: {(schema, lower-case table): (name, READ or WRITE)}."""

    __slots__ = ("tables",)

    def __init__(self, tables: dict[TableKey, tuple[str, str]]) -> None:
        self.tables = tables

    @property
    def all_read(self) -> bool:
        return all(mode == READ for _, mode in self.tables.values())

    def _mode(self, schema: str, table: str) -> str | None:
        held = self.tables.get((schema, table.lower()))
        return None if held is None else held[1]

    def check_write(self, schema: str, table: str) -> None:
        mode = self._mode(schema, table)
        if mode is None:
            raise SQLError(ER_TABLE_NOT_LOCKED, table)
        if mode == READ:
            raise SQLError(ER_TABLE_NOT_LOCKED_FOR_WRITE, table)

    def check_read(self, schema: str, table: str) -> None:
        if self._mode(schema, table) is None:
            raise SQLError(ER_TABLE_NOT_LOCKED, table)

    def check_access(self, writes: Iterable[tuple[str, str, str]], reads: Iterable[tuple[str, str, str]]) -> None:
        """A SELECT's or DML's tables (`engine.results.Access`'s writes and reads)."""
        for _verb, schema, table in writes:
            self.check_write(schema, table)
        for schema, table, _column in reads:
            self.check_read(schema, table)

    def check_ddl(self, sql: str, database: str | None) -> None:
        """CREATE / DROP / ALTER / TRUNCATE / RENAME TABLE and CREATE / DROP INDEX: a new table
        1100, an existing one as a write (1099 READ-locked, 1100 not locked); TEMPORARY tables
        and other DDL (databases, views, accounts) are not checked."""
        t = Tokens(sql)
        verb = t.next().upper
        if verb == "CREATE":
            if t.accept_word("OR"):
                t.expect_word("REPLACE")
            if t.accept_word("TEMPORARY"):
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
