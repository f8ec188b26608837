"""Privilege checks as MariaDB 10.11 makes them, for sessions whose account lacks ALL PRIVILEGES.

Contract
- A session whose account holds ALL PRIVILEGES never reaches this module: `ClientSession`
  keeps `privileges = None` for it and tests that one attribute, so the hot path (sysbench,
  root) pays nothing -- no authorizer, no second parse -- except for a statement that may call a
  stored function (`engine.routines.may_call`): a SQL SECURITY DEFINER function's body reads as
  its definer whoever calls it (`check_definers`).
- `Privileges.check(sql, first)` runs before the engine sees an engine statement (SELECT, DML,
  DDL, SHOW/DESCRIBE answered from the catalog, LOCK TABLES). It raises the `SQLError` MariaDB
  raises, or returns a `Verdict`: whether a locking read may lock, and which rows of a SHOW
  listing the account may see. `check_database` guards USE, COM_INIT_DB and the handshake's db.
- Finding the tables a SELECT or DML statement touches is not done by parsing it: the engine
  (`engine.session.Session.access`) compiles its SQLite translation (EXPLAIN, never run) under
  SQLite's authorizer, which reports every table and column read or written whatever the
  statement's shape -- WITH, UNION, subqueries, derived tables, joins, INSERT ... SELECT,
  multi-table UPDATE/DELETE -- cached per translation. A table the statement reads is a table
  SQLite reports, so no shape of ours can hide one. What SQLite cannot see is decided here on
  MySQL's terms: the verb's privileges on its target (REPLACE needs INSERT and DELETE; ON
  DUPLICATE KEY UPDATE, INSERT and UPDATE), DDL, SHOW, USE, LOCK TABLES (small token scans:
  their grammar is names in fixed places).
- Order, as MariaDB: table-level privileges of every table first (1142, naming every privilege
  missing on the first denied table in the statement's text, in mysqld's privilege order), then
  the columns a statement reads of a table it writes (1143: SELECT on the column), so
  `UPDATE t SET a = 1` needs UPDATE only and `... WHERE id = 1` also SELECT.
- A SELECT or DML the engine cannot plan (unknown table or column, a shape it lacks) is checked
  on the names it mentions after FROM/JOIN/INTO/UPDATE first: an account learns nothing about
  tables it may not see (1142 before 1146 or 1054, as MariaDB); the engine's error otherwise.
- Views: reading a SQL SECURITY DEFINER view (the default) wants SELECT on the view, not on
  the tables it reads (`_definer_views`); an INVOKER view's tables are checked as the
  statement's own. performance_schema tables, inlined as empty subqueries SQLite never reports,
  are found in the statement's names (`_performance_schema_reads`).
- Stored functions a SELECT or DML calls: EXECUTE on each (1370) once the tables are checked; a
  SQL SECURITY DEFINER function's body reads its tables as its definer (SELECT wanted of the
  definer, 1142 naming it), not as the caller, like a DEFINER view's; an INVOKER function's are
  read as the account calling it. A function called in another's body is called in that body's
  security context: EXECUTE on it is wanted of the outer function's definer where that is SQL
  SECURITY DEFINER (of the innermost such), else of the statement's account. Inside a DEFINER
  procedure `acting` is the definer's account.
- Locking reads: MariaDB 10.11 lets an account with SELECT run SELECT ... FOR UPDATE / LOCK IN
  SHARE MODE (MySQL 8.0 also wants UPDATE, DELETE or LOCK TABLES). The engine locks with its one
  writer lock, not row locks, so such a read would stall every writer of every table; an account
  that holds none of UPDATE, DELETE, LOCK TABLES on every table the read locks gets it as a
  plain read (allowed, as MariaDB; it locks nothing, which it could not use to write anyway).
- Error hosts, as MariaDB 10.11 words them: 1142/1143 name the client's address; 1044 the
  account's host, except SHOW CREATE DATABASE (the client's address).
- Temporary tables (engine/temporary.py): CREATE TEMPORARY TABLE wants CREATE TEMPORARY TABLES
  on the database (1044 without it), DROP TEMPORARY TABLE nothing, and the session's own
  temporary tables want no privilege once made, as MariaDB's.
- Column-level privileges are not kept: GRANT on columns answers 1235 (server/admin.py).
- `set_global_needs(name)`: the privileges SET GLOBAL of a variable needs (MariaDB 10.11's split
  of SUPER: CONNECTION ADMIN, BINLOG ADMIN, REPLICATION MASTER/SLAVE ADMIN, READ_ONLY ADMIN).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import perfschema, routines
from engine.lexer import SyntaxError_, Token, extract, mysql_ident, tokenize
from engine.routines import Routine
from protocol.errors import (
    ER_BINLOG_CREATE_ROUTINE_NEED_SUPER,
    ER_COLUMNACCESS_DENIED_ERROR,
    ER_DBACCESS_DENIED_ERROR,
    ER_NO_SUCH_USER,
    ER_PROCACCESS_DENIED_ERROR,
    ER_TABLEACCESS_DENIED_ERROR,
    SQLError,
)
from server.users import ALL, ORDER, SUPER, Account

if TYPE_CHECKING:
    from engine.results import Access
    from server.session import ClientSession

INFORMATION_SCHEMA = "information_schema"
# The privileges a DML verb needs on the table it writes.
_VERB_NEEDS: dict[str, tuple[str, ...]] = {
    "INSERT": ("INSERT",), "REPLACE": ("INSERT", "DELETE"), "UPDATE": ("UPDATE",), "DELETE": ("DELETE",),
    "LOAD": ("INSERT",),
}
_LOCKERS = ("UPDATE", "DELETE", "LOCK TABLES")
_COLUMN_PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "REFERENCES")
# Words after which a statement names a table (the fallback scan of an unplannable statement).
_TABLE_WORDS = frozenset({"FROM", "JOIN", "INTO", "UPDATE", "TABLE"})


# What SET GLOBAL of a variable needs besides ALL, as MariaDB 10.11 checks it: the privilege
# 10.5 split out of SUPER (or SUPER), SUPER alone for a variable not named here; read_only
# wants READ_ONLY ADMIN, SUPER is not enough.
_SET_GLOBAL_NEEDS: dict[str, tuple[str, ...]] = {
    "read_only": ("READ_ONLY ADMIN",),
    **dict.fromkeys(("connect_timeout", "init_connect", "max_connect_errors", "max_connections"),
                    (SUPER, "CONNECTION ADMIN")),
    **dict.fromkeys(("binlog_format", "max_binlog_size", "sync_binlog", "sql_log_bin",
                     "log_bin_trust_function_creators"), (SUPER, "BINLOG ADMIN")),
    **dict.fromkeys(("gtid_domain_id", "server_id"), (SUPER, "REPLICATION MASTER ADMIN")),
    **dict.fromkeys(("gtid_slave_pos", "gtid_strict_mode", "relay_log_purge", "slave_commit_wait_usec",
                      "slave_net_timeout"),
                    (SUPER, "REPLICATION SLAVE ADMIN")),
}
_SET_GLOBAL_PREFIXES = (("rpl_semi_sync_master_", (SUPER, "REPLICATION MASTER ADMIN")),
                        ("rpl_semi_sync_slave_", (SUPER, "REPLICATION SLAVE ADMIN")))


def set_global_needs(name: str) -> tuple[str, ...]:
    """The privileges, one of which SET GLOBAL `name` (lower case) needs, in 1227's order."""
    needs = _SET_GLOBAL_NEEDS.get(name)
    if needs is None:
        needs = next((n for prefix, n in _SET_GLOBAL_PREFIXES if name.startswith(prefix)), (SUPER,))
    return needs


@dataclass(frozen=True, slots=True)
class Verdict:
    lock_reads: bool = True  # False: run a locking read as a plain read (see the header)
    keep: Callable[[tuple], bool] | None = None  # the rows of a SHOW listing the account sees


_ALLOWED = Verdict()
Need = tuple[str | None, str, tuple[str, ...]]  # (database, table, privileges it needs)
CREATE_TEMPORARY = "CREATE TEMPORARY TABLES"
# a stored function's call: (database, name as written, the function, the SQL SECURITY DEFINER
# function it is made in, None for the statement's account)
_Call = tuple[str, str, Routine, Routine | None]


class Privileges:
    """The checks of one session whose account lacks ALL PRIVILEGES."""

    def __init__(self, session: ClientSession, acting: Account | None = None) -> None:
        self.session = session
        # a SQL SECURITY DEFINER routine's account: whose privileges are checked, and named in errors
        self.acting = acting

    @property
    def account(self) -> Account:
        account = self.acting or self.session.account
        assert account is not None
        return account

    @property
    def user(self) -> str:
        """The user errors name: the client's, or the definer's inside its routine."""
        return self.session.user if self.acting is None else self.acting.user

    @property
    def host(self) -> str:
        """The host 1142 / 1143 name: the client's address, or the definer's host inside its routine."""
        return self.session.host if self.acting is None else self.acting.host

    def sees_database(self, db: str) -> bool:
        """information_schema.SCHEMATA lists a database the account has a privilege in, every
        one to an account with SHOW DATABASES (as SHOW DATABASES does)."""
        return self.account.sees_database(db) or self.account.holds("SHOW DATABASES", "")

    def sees_table(self, db: str, table: str) -> bool:
        return self.account.sees_table(db, table)

    def sees_columns(self, db: str, table: str) -> bool:
        """information_schema.COLUMNS lists a column the account may SELECT, INSERT, UPDATE or
        REFERENCES (mysqld's COL_ACLS); DELETE alone shows none."""
        return any(self.account.holds(p, db, table) for p in _COLUMN_PRIVILEGES)

    # -- errors -------------------------------------------------------------------------------------

    def _table_denied(self, missing: set[str] | tuple[str, ...], db: str, table: str) -> SQLError:
        named = ", ".join(sorted(missing, key=lambda p: ORDER.index(p) if p in ORDER else -1))
        return SQLError(ER_TABLEACCESS_DENIED_ERROR, named, self.user, self.host, db, table)

    def _db_denied(self, db: str, host: str | None = None) -> SQLError:
        return SQLError(ER_DBACCESS_DENIED_ERROR, self.user, host or self.account.host, db)

    def _require(self, needs: list[Need]) -> None:
        """1142 for the first (db, table, privileges) of `needs` lacking any of them; a table
        without a database (no current one) is left to the engine's 1046."""
        account = self.account
        for db, table, privileges in needs:
            if db is None:
                continue
            missing = {p for p in privileges if not account.holds(p, db, table)}
            if missing:
                raise self._table_denied(missing, db, table)

    # -- the check --------------------------------------------------------------------------------

    def check_database(self, db: str) -> None:
        """USE db / COM_INIT_DB / a handshake's database: 1044 without any privilege in it."""
        if db.lower() != INFORMATION_SCHEMA and not self.account.sees_database(db):
            raise self._db_denied(db)

    async def check(self, sql: str, first: str) -> Verdict:
        try:
            tokens = tokenize(extract(sql)[0])
        except SyntaxError_ as exc:
            raise exc.with_literals(sql) from None  # the engine's own 1064, with the literals
        words = [t.upper for t in tokens]
        if first in ("CREATE", "DROP", "ALTER", "RENAME", "TRUNCATE"):
            self._check_ddl(tokens, words)
            return _ALLOWED
        if first in ("SHOW", "DESCRIBE", "DESC", "EXPLAIN", "ANALYZE", "OPTIMIZE", "CHECK", "CHECKSUM", "REPAIR", "LOCK"):
            verdict = self._check_admin(tokens, words)
            if verdict is not None:
                return verdict
        session = self.session
        try:
            access = await session.engine_session.access(sql)
        except SQLError:
            if first == "UPDATE" and _multi_table(tokens, words, "SET"):
                # MariaDB's multi-table UPDATE wants SELECT or UPDATE on each table before it
                # opens them (then 1146, 1054 ...), the rest once it knows what is updated
                for db, table, _ in self._mentioned(tokens, words, "SELECT"):
                    if db is not None and not (self.account.holds("SELECT", db, table)
                                               or self.account.holds("UPDATE", db, table)):
                        raise self._table_denied(("SELECT",), db, table) from None
                raise
            self._require(self._mentioned(tokens, words, first))
            raise
        if access.kind == "select" or access.kind == "write":
            views, behind = await self._definer_views(tokens)
            calls = self._stored_calls(sql)
            through = await self._function_reads(calls, tokens) if calls else {}
            for reads in through.values():
                behind |= reads
            verdict = self._check_dml(sql, first, access, tokens, words, views, behind)
            for schema, name, _, context in calls:  # (as mysqld: the tables first, then each function)
                if context is None:
                    self.require_routine(schema, "FUNCTION", name, "EXECUTE")
            self._check_bodies(calls, through)  # (then each body, as it runs)
            return verdict
        return _ALLOWED

    async def check_definers(self, sql: str) -> None:
        """For an account with ALL: what each SQL SECURITY DEFINER function `sql` calls reads, as
        its definer (1142 naming it, 1449 without one); a statement that cannot be planned is left
        to the engine's error."""
        try:
            calls = [call for call in self._stored_calls(sql)
                     if call[2].security == "DEFINER" or call[3] is not None]
            through = await self._function_reads(calls, tokenize(extract(sql)[0])) if calls else {}
        except (SQLError, SyntaxError_):
            return
        self._check_bodies(calls, through)

    def _check_bodies(self, calls: list[_Call], through: dict[tuple[str, str], set[tuple[str, str]]]) -> None:
        """Each function of `calls` as it runs: a call made in a SQL SECURITY DEFINER function's
        body wants EXECUTE of that definer (1370 naming it; the statement's own calls are
        `check`'s); an INVOKER function's reads (`_function_reads`) are checked as the account
        making the call; a DEFINER one's as its definer, who needs EXECUTE on it too (1370
        naming the definer, as mysqld's check after its change of security context)."""
        for schema, name, routine, context in calls:
            caller = self if context is None else self.as_definer(context)  # (None: a definer with ALL)
            if context is not None and caller is not None:
                caller.require_routine(schema, "FUNCTION", name, "EXECUTE")
            checker = caller if routine.security == "INVOKER" else self.as_definer(routine)
            if checker is None:
                continue
            if checker is not caller:
                checker.require_routine(schema, "FUNCTION", name, "EXECUTE")
            checker._require([(db, table, ("SELECT",)) for db, table in through.get((routine.schema, routine.key), ())])

    def _stored_calls(self, sql: str) -> list[_Call]:
        """The stored functions `sql` calls, in its bodies too, once per security context: (database, name as
        written, function, the innermost SQL SECURITY DEFINER function whose body makes the
        call, or None: the statement's account makes it), as mysqld checks EXECUTE of a call
        in the context it runs in."""
        engine = self.session.engine_session.engine
        if not routines.may_call(engine.routines, sql):
            return []
        found: list[_Call] = []

        def find(schema: str, name: str) -> Routine | None:
            return engine.routine(schema, "FUNCTION", name)

        def called(schema: str, name: str, routine: Routine, within: tuple[Routine, ...]) -> None:
            context = next((outer for outer in reversed(within) if outer.security == "DEFINER"), None)
            if all(r is not routine or c is not context for _, _, r, c in found):
                found.append((schema, name, routine, context))

        routines.expand_calls(sql, find, self.session.database, called)
        return found

    async def _function_reads(self, calls: list[_Call], tokens: list[Token]
                              ) -> dict[tuple[str, str], set[tuple[str, str]]]:
        """For each function of `calls` that reads tables, by (its database, `Routine.key`): the
        tables it reads that the statement does not name, which MariaDB checks as the function
        runs (against its definer for SQL SECURITY DEFINER), not with the statement's."""
        named = {(db, name.lower()) for db, name in self._names(tokens)}
        out = {}
        for _, _, routine, _ in calls:
            if (routine.schema, routine.key) in out:
                continue
            select = routines.body_select(routine)
            if select is None:
                continue
            access = await self.session.engine_session.access(select)
            out[(routine.schema, routine.key)] = {(db, table) for db, table, _ in access.reads if (db, table.lower()) not in named}
        return out

    def as_definer(self, routine: Routine) -> Privileges | None:
        """The checks of a SQL SECURITY DEFINER routine's body: its definer's (1449 without one),
        None for a definer holding ALL."""
        definer = definer_account(self.session, routine)
        return None if definer.has(ALL) else Privileges(self.session, definer)

    def _names(self, tokens: list[Token]) -> list[tuple[str, str]]:
        """Every (database, name) the statement's words could name as a table, in its order."""
        named: dict[tuple[str, str], None] = {}
        for i, tok in enumerate(tokens):
            if tok.kind not in ("word", "ident") or (i > 0 and tokens[i - 1].text == "."):
                continue
            qualified = i + 2 < len(tokens) and tokens[i + 1].text == "." and tokens[i + 2].kind in ("word", "ident")
            db, name = (tok.text, tokens[i + 2].text) if qualified else (self.session.database, tok.text)
            if db is not None:
                named[(db, name)] = None
        return list(named)

    async def _definer_views(self, tokens: list[Token]) -> tuple[list[tuple[str, str]], set[tuple[str, str]]]:
        """The SQL SECURITY DEFINER views the statement names, and the tables read only through
        them: reading such a view wants SELECT on the view, not on what it reads (MariaDB checks
        that against the view's definer, which this server does not: a view is made by an
        account that may read its tables)."""
        engine_session = self.session.engine_session
        engine = engine_session.engine
        names = self._names(tokens)
        named = {(db, name.lower()) for db, name in names}
        views: list[tuple[str, str]] = []
        for db, name in names:
            view = engine.view(db, name)
            if view is not None and view.security == "DEFINER" and (db, view.name) not in views:
                views.append((db, view.name))
        behind: set[tuple[str, str]] = set()
        for db, name in views:
            through = await engine_session.access(f"SELECT * FROM {mysql_ident(db)}.{mysql_ident(name)}")
            behind.update((d, t) for d, t, _ in through.reads if (d, t.lower()) not in named)
        return views, behind

    def _check_dml(self, sql: str, first: str, access: Access, tokens: list[Token], words: list[str],
                   views: list[tuple[str, str]] = (), behind: set[tuple[str, str]] = frozenset()) -> Verdict:
        """`views`: the DEFINER views the statement reads (SELECT on each), `behind` the tables
        it reads only through them (no privilege wanted of the account)."""
        account = self.account
        needs: dict[tuple[str, str], set[str]] = {(db, view): {"SELECT"} for db, view in views}
        for op, db, table in access.writes:
            needs.setdefault((db, table), set()).add(op)
        target = access.target
        if target is not None:
            verb = _VERB_NEEDS.get(first, ())
            needs.setdefault(target, set()).update(verb)
            if access.upsert:
                needs[target].update(("INSERT", "UPDATE"))
        text = sql.lower()
        written = set(needs)
        if first == "DELETE" and (words[1:2] != ["FROM"] or "USING" in words):
            written = set()  # a multi-table DELETE's tables are SELECTed at the table level first
        elif target is not None and "SELECT" in words:
            # a SELECT inside the statement naming the target reads it as a table of its own
            inner = text[text.find("select"):]
            if _position(inner, target[1]) < len(inner):
                written.discard(target)
        elif target is not None and first == "UPDATE" and _multi_table(tokens, words, "SET"):
            # a multi-table UPDATE joining its target to itself reads the other copy as a table
            tables_part = text[:text.find(" set ")]
            if len(re.findall(_name_pattern(target[1]), tables_part)) > 1:
                written.discard(target)
        for db, table, _ in access.reads:
            if (db, table) not in written and (db, table) not in behind:
                needs.setdefault((db, table), set()).add("SELECT")
        for db, table in self._performance_schema_reads(tokens):
            needs.setdefault((db, table), set()).add("SELECT")
        ordered = sorted(needs.items(), key=lambda item: _position(text, item[0][1]))
        self._require([(db, table, tuple(privileges)) for (db, table), privileges in ordered])
        for db, table, col in access.reads:
            if (db, table) in written and col and not account.holds("SELECT", db, table):
                raise SQLError(ER_COLUMNACCESS_DENIED_ERROR, "SELECT", self.user, self.host,
                               col, table)
        if access.locking and not all(
                any(account.holds(p, db, table) for p in _LOCKERS) for (db, table) in needs):
            return Verdict(lock_reads=False)
        return _ALLOWED

    def _performance_schema_reads(self, tokens: list[Token]) -> list[tuple[str, str]]:
        """The performance_schema tables the statement names (as `performance_schema.t`): the translation inlines them as empty subqueries, which
        SQLite's authorizer never reports, and MariaDB wants SELECT on each (1142) but those any
        account reads (`perfschema.WORLD_READABLE`)."""
        names = self.session.engine_session.engine.schemas
        found = []
        for i, tok in enumerate(tokens[:-2]):
            if (tok.kind in ("word", "ident") and tok.text.lower() == perfschema.NAME and tok.text not in names
                    and tokens[i + 1].text == "." and tokens[i + 2].kind in ("word", "ident")
                    and (i == 0 or tokens[i - 1].text != ".")
                    and tokens[i + 2].text.lower() not in perfschema.WORLD_READABLE):
                found.append((tok.text, tokens[i + 2].text))
        return found

    # -- DDL ----------------------------------------------------------------------------------------

    @staticmethod
    def _view_name(cur: _Cursor, needs: list[Need], privileges: tuple[str, ...]) -> bool:
        """[ALGORITHM = a] [DEFINER = u] [SQL SECURITY s] VIEW v: the view's privileges added to
        `needs` (reading through it: `_definer_views`)."""
        if cur.peek() not in ("ALGORITHM", "DEFINER", "SQL", "VIEW"):
            return False
        cur.skip_to("VIEW")  # past it
        db, view = cur.table()
        needs.extend((db, view, (p,)) for p in privileges)  # denied for the first lacking, as mysqld
        return True

    def _check_ddl(self, tokens: list[Token], words: list[str]) -> None:
        default = self.session.database
        cur = _Cursor(tokens, words, default)
        needs: list[Need] = []
        if _trigger_statement(words):
            # with the binlog on, MariaDB's CREATE / DROP TRIGGER want SUPER (1419) unless
            # log_bin_trust_function_creators is ON; SUPER holds every privilege a trigger's
            # statements need (they run with no check of their own here)
            applies, trusted = self.session.creator_checks()
            if applies and not trusted:
                raise SQLError(ER_BINLOG_CREATE_ROUTINE_NEED_SUPER)
            return
        routine = routine_named(tokens, words, default)
        if routine is not None:
            # CREATE ROUTINE on the routine's database, ALTER ROUTINE on the routine to DROP it; a
            # function's 1418 / 1419 are the engine's, after its 1304 (`engine.ddl`)
            verb, kind, db, name = routine
            if db is not None and verb == "CREATE":
                self._require_db(db, "CREATE ROUTINE")
            elif db is not None:
                self.require_routine(db, kind, name, "ALTER ROUTINE")
            return
        if cur.accept("CREATE"):
            replace = cur.accept_seq("OR", "REPLACE")
            if self._view_name(cur, needs, ("CREATE VIEW", "DROP") if replace else ("CREATE VIEW",)):
                pass
            elif cur.accept("DATABASE", "SCHEMA"):
                cur.accept_seq("IF", "NOT", "EXISTS")
                self._require_db(cur.name(), "CREATE")
                return
            made_temporary = cur.accept("TEMPORARY")
            if cur.accept("TABLE"):
                cur.accept_seq("IF", "NOT", "EXISTS")
                db, table = cur.table()
                like = "LIKE" in words[cur.i:cur.i + 2] or "LIKE" in words[cur.i + 1:cur.i + 3]
                selects = "SELECT" in words[cur.i:]
                if made_temporary:  # the database's privilege (1044), whatever table has its name
                    if db is not None:
                        self._require_db(db, CREATE_TEMPORARY)
                else:
                    needs.append((db, table, ("INSERT", "CREATE") if selects and not like else ("CREATE",)))
                if like:
                    cur.skip_to("LIKE")
                    needs.append((*cur.table(), ("SELECT",)))
            else:
                cur.accept("UNIQUE", "FULLTEXT", "SPATIAL")
                if cur.accept("INDEX"):
                    cur.skip_to("ON")
                    needs.append((*cur.table(), ("INDEX",)))
        elif cur.accept("DROP"):
            if cur.accept("DATABASE", "SCHEMA"):
                cur.accept_seq("IF", "EXISTS")
                self._require_db(cur.name(), "DROP")
                return
            if cur.accept("TEMPORARY"):  # (temporary tables only: no privilege, as MariaDB's)
                return
            if cur.accept("TABLE", "TABLES", "VIEW"):
                cur.accept_seq("IF", "EXISTS")
                while True:
                    needs.append((*cur.table(), ("DROP",)))
                    if not cur.accept_op(","):
                        break
            elif cur.accept("INDEX"):
                cur.skip_to("ON")
                needs.append((*cur.table(), ("INDEX",)))
        elif cur.accept("ALTER"):
            if cur.accept("DATABASE", "SCHEMA"):  # (its name, else the current database's)
                named = cur.peek_kind() == "ident" or cur.peek_kind() == "word" and cur.peek() not in (
                    "DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "COMMENT", "UPGRADE")
                db = cur.name() if named else default
                if db is not None:
                    self._require_db(db, "ALTER")
                return
            cur.accept("ONLINE", "IGNORE")
            if self._view_name(cur, needs, ("CREATE VIEW", "DROP")):
                pass
            elif cur.accept("TABLE"):
                db, table = cur.table()
                if "RENAME" in words[cur.i:]:  # ALTER TABLE t RENAME [TO] u: RENAME TABLE's needs
                    needs.append((db, table, ("DROP", "ALTER")))
                    cur.skip_to("RENAME")
                    cur.accept("TO", "AS")
                    needs.append((*cur.table(), ("CREATE", "INSERT")))
                else:
                    needs.append((db, table, ("ALTER",)))
        elif cur.accept("RENAME"):
            cur.accept("TABLE", "TABLES")
            while True:
                needs.append((*cur.table(), ("DROP", "ALTER")))
                cur.accept("TO")
                needs.append((*cur.table(), ("CREATE", "INSERT")))
                if not cur.accept_op(","):
                    break
        elif cur.accept("TRUNCATE"):
            cur.accept("TABLE")
            needs.append((*cur.table(), ("DROP",)))
        # the session's temporary tables want no privilege once made, as MariaDB's
        self._require([need for need in needs if not self._own_temporary(need[0], need[1])])

    def _own_temporary(self, db: str | None, table: str) -> bool:
        """Is `db`.`table` the session's temporary table (engine/temporary.py)?"""
        es = self.session.engine_session
        return db is not None and es is not None and es.engine.temporary_any and es.engine.temporary_of(
            es.temporary_owner)(db, table) is not None

    def require_routine(self, db: str, kind: str, name: str, privilege: str) -> None:
        """EXECUTE / ALTER ROUTINE of a stored routine (held globally, on its database or on the
        routine): 1370 naming the routine as the statement does."""
        if not self.account.holds_routine(privilege, db, kind, name):
            raise SQLError(ER_PROCACCESS_DENIED_ERROR, privilege.lower(), self.user, self.account.host,
                           f"{db}.{name}")

    def _require_db(self, db: str, privilege: str) -> None:
        if not self.account.holds(privilege, db):
            raise self._db_denied(db)

    # -- SHOW, DESCRIBE, LOCK TABLES ----------------------------------------------------------------

    def _check_admin(self, tokens: list[Token], words: list[str]) -> Verdict | None:
        """None: not a statement answered from the catalog (SELECT-like EXPLAIN): the engine's."""
        account = self.account
        cur = _Cursor(tokens, words, self.session.database)
        if cur.accept("DESCRIBE", "DESC", "EXPLAIN"):
            if cur.peek() in ("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH"):
                return None
            return self._see_table(*cur.table(), "SELECT")
        if cur.accept("ANALYZE", "OPTIMIZE", "CHECK", "CHECKSUM", "REPAIR"):
            cur.accept("NO_WRITE_TO_BINLOG", "LOCAL")
            cur.accept("TABLE", "TABLES")
            needed = ("SELECT",) if words[0] == "CHECKSUM" else ("SELECT", "INSERT")
            needs: list[Need] = []
            while True:
                needs.append((*cur.table(), needed))
                if not cur.accept_op(","):
                    break
            if words[0] != "CHECK":
                self._require(needs)
                return _ALLOWED
            for db, table, _ in needs:  # CHECK TABLE: any privilege on the table will do, as MariaDB's
                if db is not None and not self.account.sees_table(db, table):
                    raise self._table_denied(("SELECT",), db, table)
            return _ALLOWED
        if cur.accept("LOCK"):
            cur.accept("TABLE", "TABLES")
            needs = []
            while True:
                db, table = cur.table()
                if db is not None and not account.holds("LOCK TABLES", db):
                    raise self._db_denied(db)
                needs.append((db, table, ("SELECT",)))
                while cur.peek() and cur.peek() not in (",",):
                    cur.i += 1
                if not cur.accept_op(","):
                    break
            self._require(needs)
            return _ALLOWED
        if not cur.accept("SHOW"):
            return _ALLOWED
        cur.accept("FULL", "EXTENDED")
        if cur.accept("CREATE"):
            if cur.accept("TABLE"):
                return self._see_table(*cur.table(), "SHOW")
            if cur.accept("DATABASE", "SCHEMA"):
                cur.accept_seq("IF", "NOT", "EXISTS")
                db = cur.name()
                if db.lower() != INFORMATION_SCHEMA and not account.sees_database(db):
                    raise self._db_denied(db, self.host)
            return _ALLOWED
        if cur.accept("COLUMNS", "FIELDS", "INDEX", "INDEXES", "KEYS"):
            cur.accept("FROM", "IN")
            db, table = cur.table()
            if cur.accept("FROM", "IN"):
                db = cur.name()
            return self._see_table(db, table, "SELECT")
        if cur.accept("DATABASES", "SCHEMAS"):
            if account.holds("SHOW DATABASES", ""):
                return _ALLOWED
            return Verdict(keep=lambda row: row[0] == INFORMATION_SCHEMA or account.sees_database(row[0]))
        if cur.accept("OPEN"):  # SHOW OPEN TABLES: the tables the account may see
            return Verdict(keep=lambda row: account.sees_table(row[0], row[1]))
        status = cur.accept_seq("TABLE", "STATUS")
        if status or cur.accept("TABLES"):
            db = cur.name() if cur.accept("FROM", "IN") else self.session.database
            if db is None or db.lower() == INFORMATION_SCHEMA:
                return _ALLOWED  # 1046 from the engine, or the always-visible schema
            if not account.sees_database(db) and not account.holds("SHOW DATABASES", ""):
                raise self._db_denied(db)  # (with SHOW DATABASES: the tables it sees, or the engine's 1049)
            return Verdict(keep=lambda row: account.sees_table(db, row[0]))
        return _ALLOWED

    def _see_table(self, db: str | None, table: str, command: str) -> Verdict:
        """SHOW CREATE TABLE wants any privilege on the table at any level; DESCRIBE, SHOW
        COLUMNS and SHOW INDEX want SELECT at the global or database level, or any privilege
        on the table itself (as mysqld: the database level is asked for SELECT only)."""
        if db is None or db.lower() == INFORMATION_SCHEMA:
            return _ALLOWED
        account = self.account
        if command == "SHOW":
            allowed = account.sees_table(db, table)
        else:
            allowed = account.holds("SELECT", db) or bool(account.tables.get((db, table.lower())))
        if not allowed:
            raise self._table_denied((command,), db, table)
        return _ALLOWED

    # -- the fallback scan ----------------------------------------------------------------------------

    def _mentioned(self, tokens: list[Token], words: list[str], first: str) -> list[Need]:
        """The tables a statement names after FROM/JOIN/INTO/UPDATE/TABLE (and comma lists of
        them), with the privilege each needs: the verb's for its target, SELECT otherwise."""
        ctes = {tokens[i - 1].text.lower() for i, w in enumerate(words) if w == "AS" and i > 0
                and i + 1 < len(words) and tokens[i + 1].text == "("}
        cur = _Cursor(tokens, words, self.session.database)
        needs: list[Need] = []
        verb = _VERB_NEEDS.get(first)
        targeted = False
        if first == "DELETE" and words[1:2] != ["FROM"] and "FROM" in words:
            # DELETE t1, t2 FROM ...: DELETE on the names before FROM, SELECT on every table after
            cur.i = 1
            while cur.peek_kind() in ("word", "ident") and cur.peek() != "FROM":
                db, table = cur.table()
                cur.accept_op(".")
                cur.accept_op("*")
                needs.append((db, table, ("DELETE",)))
                cur.accept_op(",")
            verb = None
        while cur.i < len(tokens):
            word = words[cur.i]
            cur.i += 1
            if word not in _TABLE_WORDS:
                continue
            while True:
                if cur.peek_kind() not in ("word", "ident") or (cur.peek() in _NOT_NAMES):
                    break
                db, table = cur.table()
                if cur.peek() == "(" and word != "INTO":
                    break  # a function call (after INTO: the column list)
                wanted: tuple[str, ...] = ("SELECT",)
                if verb is not None and not targeted and word in ("INTO", "UPDATE", "FROM"):
                    wanted, targeted = verb, True
                # (information_schema is read without a grant: its views say who may read what)
                if db is not None and table.lower() not in ctes and not (
                        db.lower() == INFORMATION_SCHEMA and wanted == ("SELECT",)):
                    needs.append((db, table, wanted))
                while cur.peek_kind() == "word" and cur.peek() not in _NOT_NAMES and cur.peek() != "":
                    cur.i += 1  # an alias
                if not cur.accept_op(","):
                    break
        return needs


# Words that end a name list in the fallback scan (never table names there).
_NOT_NAMES = frozenset({
    "SELECT", "WHERE", "SET", "VALUES", "VALUE", "ON", "USING", "JOIN", "INNER", "LEFT", "RIGHT", "CROSS",
    "NATURAL", "STRAIGHT_JOIN", "GROUP", "ORDER", "LIMIT", "HAVING", "UNION", "FOR", "LOCK", "WINDOW",
    "PARTITION", "IGNORE", "LOW_PRIORITY", "QUICK", "INTO", "FROM", "AS", "DUAL", "LATERAL", "OUTER",
    "EXCEPT", "INTERSECT", "PROCEDURE", "RETURNING",
})


def _name_pattern(name: str) -> str:
    return r"(?<![\w$])" + re.escape(name.lower()) + r"(?![\w$])"


def _position(text: str, table: str) -> int:
    """Where the statement's text first names `table` (MariaDB checks tables in text order)."""
    m = re.search(_name_pattern(table), text)
    return m.start() if m else len(text)


def _multi_table(tokens: list[Token], words: list[str], until: str) -> bool:
    """A JOIN or a comma list of tables before `until` (UPDATE a, b SET ... / a JOIN b)."""
    end = words.index(until) if until in words else len(words)
    return "JOIN" in words[:end] or any(t.kind == "op" and t.text == "," for t in tokens[:end])


_OBJECT_KINDS = ("TRIGGER", "VIEW", "PROCEDURE", "FUNCTION", "EVENT", "TABLE", "INDEX", "DATABASE", "SCHEMA",
                 "PACKAGE")


def _object_kind(words: list[str]) -> str | None:
    """The first word after CREATE / DROP / ALTER that names a kind of object."""
    return next((w for w in words[1:] if w in _OBJECT_KINDS), None)


def _trigger_statement(words: list[str]) -> bool:
    """CREATE [OR REPLACE] [DEFINER = u] TRIGGER ... or DROP TRIGGER ...: the first of these
    words after CREATE / DROP is TRIGGER."""
    return _object_kind(words) == "TRIGGER"


def definer_account(session: ClientSession, routine: Routine) -> Account:
    """The account a SQL SECURITY DEFINER routine runs as: its DEFINER's, found as MariaDB's
    acl_getroot finds it (that user and host, else the account whose host pattern matches the
    host); 1449 when there is none."""
    user, host = routines.definer_parts(routine.definer)
    users = session.server.users
    account = users.get(user, host) or users.match(user, host)
    if account is None:
        raise SQLError(ER_NO_SUCH_USER, user, host)
    return account


def routine_named(tokens: list[Token], words: list[str], database: str | None
                  ) -> tuple[str, str, str | None, str] | None:
    """CREATE ... PROCEDURE / FUNCTION or DROP PROCEDURE / FUNCTION: (CREATE or DROP, the kind,
    the routine's database (None without one), its name); None for any other statement."""
    if not words or words[0] not in ("CREATE", "DROP"):
        return None
    kind = _object_kind(words)
    if kind not in ("PROCEDURE", "FUNCTION"):
        return None
    cur = _Cursor(tokens, words, database)
    cur.skip_to(kind)
    cur.accept_seq("IF", "NOT", "EXISTS") or cur.accept_seq("IF", "EXISTS")
    db, name = cur.table()
    return words[0], kind, db, name


class _Cursor:
    """Tokens of a statement's shape, read forward; names resolve against the current db."""

    def __init__(self, tokens: list[Token], words: list[str], database: str | None) -> None:
        self.tokens = tokens
        self.words = words
        self.database = database
        self.i = 0

    def peek(self) -> str:
        if self.i >= len(self.tokens):
            return ""
        tok = self.tokens[self.i]
        return tok.upper if tok.kind == "word" else tok.text

    def peek_kind(self) -> str:
        return self.tokens[self.i].kind if self.i < len(self.tokens) else ""

    def accept(self, *words: str) -> str | None:
        if self.i < len(self.tokens) and self.words[self.i] in words and self.words[self.i]:
            self.i += 1
            return self.words[self.i - 1]
        return None

    def accept_seq(self, *words: str) -> bool:
        if tuple(self.words[self.i:self.i + len(words)]) == words:
            self.i += len(words)
            return True
        return False

    def accept_op(self, op: str) -> bool:
        if self.i < len(self.tokens) and self.tokens[self.i].kind == "op" and self.tokens[self.i].text == op:
            self.i += 1
            return True
        return False

    def skip_to(self, word: str) -> None:
        while self.i < len(self.tokens) and self.words[self.i] != word:
            self.i += 1
        self.i += 1

    def name(self) -> str:
        if self.i >= len(self.tokens):
            return ""
        tok = self.tokens[self.i]
        self.i += 1
        return tok.text

    def table(self) -> tuple[str | None, str]:
        """`name` or `db.name`; db is the current database (None without one) when unqualified."""
        first = self.name()
        if self.accept_op("."):
            return first, self.name()
        return self.database, first
