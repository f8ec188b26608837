"""The account statements every server answers itself: CREATE / ALTER / DROP USER, GRANT,
REVOKE and SHOW CREATE USER (`Admin.handlers` routes their keywords here; `Admin` keeps SHOW
GRANTS, SET PASSWORD and the rest), and the role statements as a server without roles answers
them.

Contract
- A handler is `handler(session, sql, keyword) -> OK | None` as in server/admin.py: None means
  "not mine" (CREATE TABLE, DROP DATABASE ... go on to the engine).
- Privileges: CREATE / ALTER / DROP USER need ALL, SUPER or CREATE USER (`USER_ADMIN`);
  GRANT and REVOKE need, as mysqld's check_access / check_grant, GRANT OPTION and every
  privilege they give or take, held at the global level or at the level's database or table
  (`check_grantor`: 1045, 1044, 1142); REVOKE ALL PRIVILEGES, GRANT OPTION needs CREATE USER;
  SHOW GRANTS FOR / SHOW CREATE USER of another account need SELECT on the mysql database
  (1044). ALL PRIVILEGES never includes GRANT OPTION: `GRANT OPTION` names it in a list.
- GRANT/REVOKE at the global (`ON *.*`), database (`ON db.*`, `ON *`) and table level (`ON db.t`,
  `ON t`), refused as MariaDB refuses them (1221, 1144, 1146, 1141, 1147, 1269; column
  lists: 1235).
  A user is created only by CREATE USER or by a GRANT that gives its password
  (NO_AUTO_CREATE_USER: 1133). Every change is handed to `role.after_user_change` as one fully
  qualified statement (passwords as hashes, levels qualified: a slave has no current database),
  which a slave applies through `Admin.apply_user_statement`; CREATE USER IF NOT EXISTS of an
  account that exists and DROP USER IF EXISTS of one that does not are handed on too (MariaDB
  binlogs them: a replica whose accounts differ makes or drops it).
- Roles: none exists here (CREATE ROLE is 1235), so CURRENT_ROLE() is always NULL and an
  account's default role none: SET ROLE NONE and SET DEFAULT ROLE NONE [FOR account] succeed
  and change nothing (so nothing is binlogged), a named role (SET ROLE, SET DEFAULT ROLE, GRANT
  role TO, REVOKE role FROM) is MariaDB's 1959, DROP ROLE MariaDB's answer for roles that do not
  exist (1396, or IF EXISTS notes 1976).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from engine.lexer import mysql_ident
from protocol.auth import hash_from_text, hash_to_text, native_password_hash
from protocol.errors import (
    ER_ACCESS_DENIED_ERROR,
    ER_CANNOT_USER,
    ER_DBACCESS_DENIED_ERROR,
    ER_ILLEGAL_GRANT_FOR_TABLE,
    ER_INVALID_CURRENT_USER,
    ER_INVALID_ROLE,
    ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE,
    ER_NONEXISTING_GRANT,
    ER_NONEXISTING_PROC_GRANT,
    ER_NONEXISTING_TABLE_GRANT,
    ER_NOT_SUPPORTED_YET,
    ER_PASSWD_LENGTH,
    ER_PASSWORD_NO_MATCH,
    ER_PROCACCESS_DENIED_ERROR,
    ER_REVOKE_GRANTS,
    ER_ROLE_DROP_EXISTS,
    ER_SP_DOES_NOT_EXIST,
    ER_TABLEACCESS_DENIED_ERROR,
    ER_USER_CREATE_EXISTS,
    ER_USER_DROP_EXISTS,
    ER_WRONG_USAGE,
    SQLError,
)
from protocol.messages import OK, ResultSet, column
from server.sql import Tokens, unquote
from server.users import (
    ALL,
    DB_PRIVILEGES,
    GLOBAL_PRIVILEGES,
    GRANT_OPTION,
    KNOWN_PRIVILEGES,
    ROUTINE_KINDS,
    ROUTINE_PRIVILEGES,
    SUPER,
    TABLE_PRIVILEGES,
    Account,
    command_names,
)

if TYPE_CHECKING:
    from server.listener import Server
    from server.session import ClientSession


USER_ADMIN = (ALL, SUPER, "CREATE USER")
_OK = OK()


class UserStatements:
    def __init__(self, server: Server) -> None:
        self.server = server

    def show_create_user(self, session: ClientSession, sql: str) -> ResultSet | None:
        """SHOW CREATE USER user (other SHOW CREATE ... are the engine's), worded as MariaDB's."""
        t = Tokens(sql)
        t.expect_word("SHOW")
        t.expect_word("CREATE")
        if not t.accept_word("USER"):
            return None
        account = self.shown_account(t, session)
        t.expect_end()
        stmt = f"CREATE USER `{account.user}`@`{account.host}`"
        if account.password_hash:
            stmt += f" IDENTIFIED BY PASSWORD '{hash_to_text(account.password_hash)}'"
        if account.require_ssl:
            stmt += " REQUIRE SSL"
        return ResultSet((column(f"CREATE USER for {account.user}@{account.host}"),), ((stmt,),))

    @staticmethod
    def _role_name(t: Tokens) -> tuple[str, bool]:
        """A role name (a word, `quoted` or 'string'), and whether it is NONE (any quoting, as
        MariaDB reads it)."""
        tok = t.next()
        if tok.kind not in ("WORD", "QUOTED", "STRING"):
            raise t.error()
        return tok.text, tok.text.upper() == "NONE"

    def set_role(self, t: Tokens) -> OK:
        """SET ROLE {NONE | role}: the session stays without a role; a role is 1959."""
        t.expect_word("ROLE")
        if t.peek() is not None and t.peek().is_word("DEFAULT"):  # type: ignore[union-attr]
            raise t.error()  # MariaDB's grammar has no SET ROLE DEFAULT
        name, none = self._role_name(t)
        t.expect_end()
        if not none:
            raise SQLError(ER_INVALID_ROLE, mysql_ident(name))
        return _OK

    @staticmethod
    def refuse_role_grant(t: Tokens, preposition: str) -> None:
        """GRANT role TO / REVOKE role FROM (the first token is no privilege): 1959, as no role
        exists here."""
        first, then = t.peek(), t.peek(1)
        if first is not None and then is not None and then.is_word(preposition) and first.kind != "OP" \
                and first.text.upper() not in KNOWN_PRIVILEGES:
            raise SQLError(ER_INVALID_ROLE, mysql_ident(first.text))

    def set_default_role(self, session: ClientSession, t: Tokens) -> OK:
        """SET DEFAULT ROLE {NONE | CURRENT_ROLE | role} [FOR account]: a role is 1959; another
        account's needs UPDATE on the mysql database (1044) and must exist (1960), as MariaDB."""
        t.expect_word("DEFAULT")
        t.expect_word("ROLE")
        current = t.peek() is not None and t.peek().is_word("CURRENT_ROLE")  # type: ignore[union-attr]
        name, none = self._role_name(t)
        if not (none or current):
            raise SQLError(ER_INVALID_ROLE, mysql_ident(name))
        if t.accept_word("FOR"):
            own = session.account
            assert own is not None
            if t.accept_word("CURRENT_USER"):
                if t.accept_op("("):
                    t.expect_op(")")
            else:
                user, host = self._user_host(t)
                if (user, host.lower()) != (own.user, own.host.lower()):
                    if not own.holds("UPDATE", "mysql"):
                        raise SQLError(ER_DBACCESS_DENIED_ERROR, own.user, own.host, "mysql")
                    if self.server.users.get(user, host) is None:
                        raise SQLError(ER_INVALID_CURRENT_USER)
        t.expect_end()
        return _OK

    def role_statement(self, session: ClientSession, sql: str, verb: str) -> OK:
        """CREATE ROLE (1235: no roles here) and DROP ROLE [IF EXISTS] of roles, none of which
        exists (1396 naming them, or a 1976 note each)."""
        session.require(*USER_ADMIN)
        t = Tokens(sql)
        t.expect_word(verb)
        t.expect_word("ROLE")
        if verb == "CREATE":
            raise SQLError(ER_NOT_SUPPORTED_YET, "CREATE ROLE")
        if_exists = t.accept_word("IF") is not None
        if if_exists:
            t.expect_word("EXISTS")
        names = [self._role_name(t)[0]]
        while t.accept_op(","):
            names.append(self._role_name(t)[0])
        t.expect_end()
        if not if_exists:
            raise SQLError(ER_CANNOT_USER, "DROP ROLE", ",".join(f"'{name}'" for name in names))
        return _noted(session, [SQLError(ER_ROLE_DROP_EXISTS, name) for name in names])

    def account_ref(self, t: Tokens, session: ClientSession) -> Account:
        if t.accept_word("CURRENT_USER"):
            if t.accept_op("("):
                t.expect_op(")")
            assert session.account is not None
            return session.account
        user, host = self._user_host(t)
        account = self.server.users.get(user, host)
        if account is None:
            raise SQLError(ER_NONEXISTING_GRANT, user, host)
        return account

    def shown_account(self, t: Tokens, session: ClientSession) -> Account:
        """The account of SHOW GRANTS FOR / SHOW CREATE USER: another one than the session's
        needs SELECT on the mysql database (1044), checked before the account is looked up
        (1141), as mysqld does."""
        if t.peek() is not None and t.peek().is_word("CURRENT_USER"):  # type: ignore[union-attr]
            return self.account_ref(t, session)
        own = session.account
        assert own is not None
        user, host = self._user_host(t)
        if (user, host.lower()) != (own.user, own.host.lower()) and not own.holds("SELECT", "mysql"):
            raise SQLError(ER_DBACCESS_DENIED_ERROR, own.user, own.host, "mysql")
        account = self.server.users.get(user, host)
        if account is None:
            raise SQLError(ER_NONEXISTING_GRANT, user, host)
        return account

    @staticmethod
    def _user_host(t: Tokens) -> tuple[str, str]:
        tok = t.next()
        if tok.kind not in ("WORD", "STRING", "QUOTED"):
            raise t.error()
        user = tok.text
        nxt = t.peek()
        host = "%"
        if nxt is not None and nxt.kind == "USERVAR":
            t.next()
            body = nxt.text[1:]
            host = unquote(body) if body[:1] in ("'", '"', "`") else body
        return user, host

    def _user_names(self, t: Tokens) -> list[tuple[str, str]]:
        """`user [, user ...]`: each (user, host)."""
        names = []
        while True:
            names.append(self._user_host(t))
            if not t.accept_op(","):
                return names

    def _user_specs(self, t: Tokens) -> list[tuple[str, str, bytes | None]]:
        """`user [IDENTIFIED ...] [, user [IDENTIFIED ...] ...]`: each (user, host, password
        hash or None when not given)."""
        specs = []
        while True:
            user, host = self._user_host(t)
            specs.append((user, host, self._identified(t)))
            if not t.accept_op(","):
                return specs

    @staticmethod
    def _user_statement(session: ClientSession, sql: str, verb: str) -> tuple[Tokens, bool]:
        """`<verb> USER [IF EXISTS]` of an account statement that needs `USER_ADMIN`: the
        tokens after it, and whether IF EXISTS was given."""
        session.require(*USER_ADMIN)
        t = Tokens(sql)
        t.expect_word(verb)
        t.expect_word("USER")
        if_exists = False
        if t.accept_word("IF"):
            t.expect_word("EXISTS")
            if_exists = True
        return t, if_exists

    def _refuse_missing(self, names: list[tuple[str, str]], statement: str, if_exists: bool) -> None:
        """1396 naming every account of `names` that does not exist, unless IF EXISTS."""
        users = self.server.users
        failed = [f"'{u}'@'{h}'" for u, h in names if users.get(u, h) is None]
        if failed and not if_exists:
            raise SQLError(ER_CANNOT_USER, statement, ",".join(failed))

    def _identified(self, t: Tokens) -> bytes | None:
        """`IDENTIFIED BY 'pw'`, `IDENTIFIED BY PASSWORD '*HEX'`, `IDENTIFIED WITH
        mysql_native_password [BY 'pw' | AS '*HEX']`; None when absent."""
        if not t.accept_word("IDENTIFIED"):
            return None
        if t.accept_word("WITH"):
            plugin = t.name().lower()
            if plugin != "mysql_native_password":
                raise SQLError(ER_NOT_SUPPORTED_YET, f"authentication plugin {plugin}")
            if t.accept_word("AS"):
                return hash_text(t, t.next().text)
            if not t.accept_word("BY"):
                return b""
            if t.accept_word("PASSWORD"):
                return hash_text(t, t.next().text)
            return native_password_hash(string_literal(t))
        t.expect_word("BY")
        if t.accept_word("PASSWORD"):
            if t.accept_op("("):
                h = native_password_hash(string_literal(t))
                t.expect_op(")")
                return h
            return hash_text(t, string_literal(t))
        return native_password_hash(string_literal(t))

    async def create(self, session: ClientSession, sql: str, keyword: str) -> Any:
        if keyword == "CREATE ROLE":
            return self.role_statement(session, sql, "CREATE")
        if keyword != "CREATE USER":
            return None
        session.require(*USER_ADMIN)
        t = Tokens(sql)
        t.expect_word("CREATE")
        or_replace = False
        if t.accept_word("OR"):
            t.expect_word("REPLACE")
            or_replace = True
        t.expect_word("USER")
        if_not_exists = False
        if t.accept_word("IF"):
            t.expect_word("NOT")
            t.expect_word("EXISTS")
            if_not_exists = True
        specs = [(user, host, pw or b"") for user, host, pw in self._user_specs(t)]
        require_ssl = self._require(t)
        t.expect_end()
        users = self.server.users
        failed = [f"'{u}'@'{h}'" for u, h, _ in specs if users.get(u, h) is not None]
        if failed and not or_replace and not if_not_exists:
            raise SQLError(ER_CANNOT_USER, "CREATE USER", ",".join(failed))
        notes = []
        for user, host, pw in specs:
            if users.get(user, host) is not None and not or_replace:
                notes.append(SQLError(ER_USER_CREATE_EXISTS, user, host))
                # binlogged all the same, as MariaDB's: a replica without the account makes it
                await self.server.role.after_user_change(
                    session, _create_text(f"IF NOT EXISTS '{user}'@'{host}'", pw, bool(require_ssl)))
                continue
            account = users.create(user, host, pw)
            if require_ssl:
                users.set_require_ssl(account, True)
            await self.server.role.after_user_change(session, _create_statement(account))
        return _noted(session, notes)

    @staticmethod
    def _require(t: Tokens) -> bool | None:
        """`REQUIRE SSL` (True) | `REQUIRE NONE` (False) | absent (None). X509, ISSUER, SUBJECT
        and CIPHER need client certificates, which this server does not check: 1235."""
        if not t.accept_word("REQUIRE"):
            return None
        if t.accept_word("SSL"):
            return True
        if t.accept_word("NONE"):
            return False
        raise SQLError(ER_NOT_SUPPORTED_YET, "REQUIRE other than SSL or NONE")

    async def alter(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """ALTER USER [IF EXISTS] user [IDENTIFIED ...] [, ...] [REQUIRE SSL|NONE]."""
        if keyword != "ALTER USER":
            return None
        t, if_exists = self._user_statement(session, sql, "ALTER")
        specs = self._user_specs(t)
        require_ssl = self._require(t)
        t.expect_end()
        self._refuse_missing([(user, host) for user, host, _ in specs], "ALTER USER", if_exists)
        users = self.server.users
        for user, host, pw in specs:
            account = users.get(user, host)
            if account is None:
                continue
            if pw is not None:
                users.set_password(account, pw)
            if require_ssl is not None:
                users.set_require_ssl(account, require_ssl)
            statement = f"ALTER USER {account.name}"
            if pw is not None:
                statement += f" IDENTIFIED BY PASSWORD '{hash_to_text(pw)}'"
            if require_ssl is not None:
                statement += " REQUIRE SSL" if require_ssl else " REQUIRE NONE"
            await self.server.role.after_user_change(session, statement)
        return _OK

    async def drop(self, session: ClientSession, sql: str, keyword: str) -> Any:
        if keyword == "DROP ROLE":
            return self.role_statement(session, sql, "DROP")
        if keyword != "DROP USER":
            return None
        t, if_exists = self._user_statement(session, sql, "DROP")
        names = self._user_names(t)
        t.expect_end()
        self._refuse_missing(names, "DROP USER", if_exists)
        users = self.server.users
        notes = []
        for user, host in names:
            if users.get(user, host) is not None:
                users.drop(user, host)
                await self.server.role.after_user_change(session, f"DROP USER '{user}'@'{host}'")
            else:
                notes.append(SQLError(ER_USER_DROP_EXISTS, user, host))
                # binlogged all the same, as MariaDB's: a replica that has the account drops it
                await self.server.role.after_user_change(session, f"DROP USER IF EXISTS '{user}'@'{host}'")
        return _noted(session, notes)

    def _privileges(self, t: Tokens) -> tuple[set[str], bool]:
        """The privilege list of GRANT / REVOKE (`GRANT OPTION` may be one of them), and
        whether a privilege names columns (refused with 1235 once the grantor is checked)."""
        privileges: set[str] = set()
        columns = False
        while True:
            words = [t.next().upper]
            while (tok := t.peek()) is not None and tok.kind == "WORD" and not tok.is_word("ON"):
                words.append(t.next().upper)
            name = " ".join(words)
            if name in ("ALL", "ALL PRIVILEGES"):
                name = ALL
            elif name == "REPLICATION REPLICA":
                name = "REPLICATION SLAVE"
            elif name == "BINLOG MONITOR":
                name = "REPLICATION CLIENT"
            if name not in KNOWN_PRIVILEGES and name != GRANT_OPTION:
                raise t.error()
            if t.accept_op("("):
                columns = True
                t.name()
                while t.accept_op(","):
                    t.name()
                t.expect_op(")")
            privileges.add(name)
            if not t.accept_op(","):
                break
        return privileges, columns

    def _on_level(self, t: Tokens, session: ClientSession, privileges: set[str]) -> tuple[str | None, str | None]:
        """`ON *.*` -> (None, None); `ON db.*` / `ON *` -> (db, None); `ON db.t` / `ON t` ->
        (db, t). The level must be able to hold `privileges` (mysqld's 1221, 1144); `*` and a
        bare table name need a current database (1046)."""
        t.expect_word("ON")
        t.accept_word("TABLE")
        first = None if t.accept_op("*") else t.name()
        if t.accept_op("."):
            db, table = first, None if t.accept_op("*") else t.name()
            if db is None:
                if table is not None:
                    raise t.error()
                return None, None
        else:
            db, table = session.database, first
            if db is None:
                raise SQLError(ER_NO_DB_ERROR)
        named = privileges - {ALL, "USAGE", GRANT_OPTION}
        if table is None:
            if not named <= DB_PRIVILEGES:
                raise SQLError(ER_WRONG_USAGE, "DB GRANT", "GLOBAL PRIVILEGES")
        elif not named <= TABLE_PRIVILEGES:
            raise SQLError(ER_ILLEGAL_GRANT_FOR_TABLE)
        return db, table

    def _level(self, t: Tokens, session: ClientSession, privileges: set[str],
               columns: bool) -> tuple[str | None, str | None]:
        """The level of a GRANT / REVOKE, checked in mysqld's order: the level may hold the
        privileges, the grantor may give them (`check_grantor`), the table or view exists (1146),
        column lists (1235)."""
        db, table = self._on_level(t, session, privileges)
        check_grantor(session, privileges, db, table)
        if table is not None:
            assert db is not None
            engine = self.server.engine
            if engine.table(db, table) is None and engine.view(db, table) is None:  # (a view's grants too)
                raise SQLError(ER_NO_SUCH_TABLE, db, table)
        if columns:
            raise SQLError(ER_NOT_SUPPORTED_YET, "column privileges")
        return db, table

    def _routine_level(self, t: Tokens, session: ClientSession, privileges: set[str], columns: bool,
                       revoke: bool) -> tuple[str, str, str] | None:
        """`ON PROCEDURE | FUNCTION [db.]name` -> (db, kind, name), checked in mysqld's order: the
        grantor may give the privileges (`check_routine_grantor`), the level may hold them (1144),
        a GRANT's routine exists (1305); None (nothing read) for another level."""
        if not (t.peek() is not None and t.peek().is_word("ON") and t.peek(1) is not None
                and t.peek(1).is_word(*ROUTINE_KINDS)):
            return None
        if columns:
            raise t.error()
        t.next()
        kind = t.next().upper
        first = t.name()
        if t.accept_op("."):
            db, name = first, t.name()
        elif session.database is None:
            raise SQLError(ER_NO_DB_ERROR)
        else:
            db, name = session.database, first
        check_routine_grantor(session, privileges, db, kind, name)
        if not privileges - {ALL, "USAGE", GRANT_OPTION} <= ROUTINE_PRIVILEGES:
            raise SQLError(ER_ILLEGAL_GRANT_FOR_TABLE)
        if not revoke and self.server.engine.routine(db, kind, name) is None:
            raise SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION or PROCEDURE", name)
        return db, kind, name

    async def grant(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("GRANT")
        self.refuse_role_grant(t, "TO")
        privileges, columns = self._privileges(t)
        routine = self._routine_level(t, session, privileges, columns, False)
        db, table = (None, None) if routine is not None else self._level(t, session, privileges, columns)
        t.expect_word("TO")
        targets = self._user_specs(t)
        grant_option = GRANT_OPTION in privileges
        privileges.discard(GRANT_OPTION)
        if t.accept_word("WITH"):
            t.expect_word("GRANT")
            t.expect_word("OPTION")
            grant_option = True
        t.expect_end()
        users = self.server.users
        for user, host, pw in targets:
            if users.get(user, host) is None and pw is None:
                raise SQLError(ER_PASSWORD_NO_MATCH)  # NO_AUTO_CREATE_USER, as MariaDB
        for user, host, pw in targets:
            account = users.get(user, host)
            if account is None:
                account = users.create(user, host, pw or b"")
                await self.server.role.after_user_change(session, _create_statement(account))
            elif pw is not None:
                users.set_password(account, pw)
            grantor = f"{session.user}@{session.host}"
            if routine is not None:
                users.grant_routine(account, privileges, grant_option, *routine, grantor)
            else:
                users.grant(account, privileges, grant_option, db, table, grantor)
            if routine is None and db is None:
                statement = account.grants()[0]
            else:
                option = " WITH GRANT OPTION" if grant_option else ""
                statement = f"GRANT {_privilege_list(privileges)} ON {_level_name(db, table, routine)} TO {account.name}{option}"
            await self.server.role.after_user_change(session, statement)
        return _OK

    async def revoke(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("REVOKE")
        self.refuse_role_grant(t, "FROM")
        if _revokes_everything(t):
            return await self._revoke_all(session, t)
        privileges, columns = self._privileges(t)
        routine = self._routine_level(t, session, privileges, columns, True)
        db, table = (None, None) if routine is not None else self._level(t, session, privileges, columns)
        t.expect_word("FROM")
        names = self._user_names(t)
        t.expect_end()
        users = self.server.users
        for user, host in names:
            account = users.get(user, host)
            if account is None:
                raise SQLError(ER_NONEXISTING_GRANT, user, host)
            if routine is not None:
                if not users.revoke_routine(account, privileges, *routine):
                    raise SQLError(ER_NONEXISTING_PROC_GRANT, user, host, routine[2])
            elif not users.revoke(account, privileges, db, table):
                if table is None:
                    raise SQLError(ER_NONEXISTING_GRANT, user, host)
                raise SQLError(ER_NONEXISTING_TABLE_GRANT, user, host, table)
            statement = f"REVOKE {_privilege_list(privileges)} ON {_level_name(db, table, routine)} FROM {account.name}"
            await self.server.role.after_user_change(session, statement)
        return _OK

    async def _revoke_all(self, session: ClientSession, t: Tokens) -> Any:
        """REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user [, user ...]: every privilege at every
        level and every grant option, as mysqld's mysql_revoke_all: CREATE USER is needed
        (1227); accounts that exist are emptied, and any that does not makes it 1269."""
        session.require(ALL, "CREATE USER")
        names = self._user_names(t)
        t.expect_end()
        users = self.server.users
        missing = False
        for user, host in names:
            account = users.get(user, host)
            if account is None:
                missing = True
                continue
            users.revoke_all(account)
            await self.server.role.after_user_change(session, f"REVOKE ALL PRIVILEGES, GRANT OPTION FROM {account.name}")
        if missing:
            raise SQLError(ER_REVOKE_GRANTS)
        return _OK


def _revokes_everything(t: Tokens) -> bool:
    """`ALL [PRIVILEGES] , GRANT OPTION FROM` follows (consumed when it does)."""
    start = t.i
    if t.accept_word("ALL"):
        t.accept_word("PRIVILEGES")
        if t.accept_op(",") and t.accept_word("GRANT") and t.accept_word("OPTION") and t.accept_word("FROM"):
            return True
    t.i = start
    return False


def check_grantor(session: Any, privileges: set[str], db: str | None, table: str | None) -> None:
    """May `session` GRANT / REVOKE `privileges` at this level? As mysqld's check_access and
    check_grant for SQLCOM_GRANT: the grantor needs each privilege and GRANT OPTION, held at the
    global level or (below it) at the level's database or table. Refused: a global level with
    1045, a database with 1044 (both naming the account), a table with 1142 naming what is
    missing (and the client's host)."""
    account = session.account
    assert account is not None
    held = set(GLOBAL_PRIVILEGES) if ALL in account.privileges else set(account.privileges)
    if account.grant_option:
        held.add(GRANT_OPTION)
    every = GLOBAL_PRIVILEGES if db is None else DB_PRIVILEGES if table is None else TABLE_PRIVILEGES
    wanted = (set(every) if ALL in privileges else privileges - {"USAGE"}) | {GRANT_OPTION}
    wanted -= held
    if not wanted:
        return
    if db is None:
        raise SQLError(ER_ACCESS_DENIED_ERROR, account.user, account.host,
                       "YES" if session.password_used else "NO")
    wanted -= account.database_privileges(db)
    if not wanted:
        return
    if table is None:
        raise SQLError(ER_DBACCESS_DENIED_ERROR, account.user, account.host, db)
    wanted -= account.tables.get((db, table.lower()), set())
    if wanted:
        raise SQLError(ER_TABLEACCESS_DENIED_ERROR, command_names(wanted), session.user, session.host, db, table)


def check_routine_grantor(session: Any, privileges: set[str], db: str, kind: str, name: str) -> None:
    """May `session` GRANT / REVOKE `privileges` ON PROCEDURE / FUNCTION `db`.`name`? As mysqld's
    check_grant_routine: each privilege and GRANT OPTION held globally, on the database or on a
    routine itself; else 1370 naming the first missing of EXECUTE, ALTER ROUTINE, GRANT."""
    account = session.account
    assert account is not None
    wanted = (set(ROUTINE_PRIVILEGES) if ALL in privileges else privileges - {"USAGE"}) | {GRANT_OPTION}
    missing = {p for p in wanted if not account.holds_routine(p, db, kind, name)}
    if not missing:
        return
    command = next((p for p in ("EXECUTE", "ALTER ROUTINE") if p in missing), "GRANT")
    raise SQLError(ER_PROCACCESS_DENIED_ERROR, command.lower(), account.user, account.host, f"{db}.{name}")


def _privilege_list(privileges: set[str]) -> str:
    return "ALL PRIVILEGES" if ALL in privileges else ", ".join(sorted(privileges)) or "USAGE"


def _level_name(db: str | None, table: str | None, routine: tuple[str, str, str] | None = None) -> str:
    """The GRANT/REVOKE level as replicated: always qualified (a slave has no current db); a
    routine's (db, kind, name) as `PROCEDURE db.name` / `FUNCTION db.name`."""
    if routine is not None:
        return f"{routine[1]} {mysql_ident(routine[0])}.{mysql_ident(routine[2])}"
    if db is None:
        return "*.*"
    quoted = "`" + db.replace("`", "``") + "`"
    return quoted + ".*" if table is None else quoted + ".`" + table.replace("`", "``") + "`"


def string_literal(t: Tokens) -> str:
    tok = t.next()
    if tok.kind != "STRING":
        t.i -= 1
        raise t.error()
    return tok.text


def hash_text(t: Tokens, text: str) -> bytes:
    """A mysql_native_password hash as written ('*' and 40 hex digits, or empty); a pre-4.1
    hash (16 hex digits, mysql_old_password's, which no login here checks) 1235, anything else
    MariaDB's 1372."""
    try:
        return hash_from_text(text)
    except ValueError:
        if _OLD_HASH.fullmatch(text):
            raise SQLError(ER_NOT_SUPPORTED_YET, "pre-4.1 password hashes (mysql_old_password)") from None
        raise SQLError(ER_PASSWD_LENGTH, 41) from None


_OLD_HASH = re.compile(r"[0-9A-Fa-f]{16}")


def _create_statement(account: Account) -> str:
    return _create_text(account.name, account.password_hash, account.require_ssl)


def _create_text(named: str, password_hash: bytes, require_ssl: bool) -> str:
    """CREATE USER `named` (an account, after IF NOT EXISTS if so) as the binlog carries it."""
    stmt = f"CREATE USER {named}"
    if password_hash:
        stmt += f" IDENTIFIED BY PASSWORD '{hash_to_text(password_hash)}'"
    if require_ssl:
        stmt += " REQUIRE SSL"
    return stmt


def _noted(session: ClientSession, notes: list[SQLError]) -> OK:
    """The OK of a statement that IF [NOT] EXISTS let through `notes` (SHOW WARNINGS' level
    "Note", counted in the OK)."""
    if not notes:
        return _OK
    session.diagnostics = [("Note", note.code, note.message) for note in notes]
    return OK(warnings=len(notes))
