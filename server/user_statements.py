"""The account statements every server answers itself: CREATE / ALTER / DROP USER, GRANT,
REVOKE and SHOW CREATE USER (`Admin.handlers` routes their keywords here; `Admin` keeps SHOW
GRANTS, SET PASSWORD and the rest).

Contract
- A handler is `handler(session, sql, keyword) -> OK | None` as in server/admin.py: None means
  "not mine" (CREATE TABLE, DROP DATABASE ... go on to the engine).
- Privileges: CREATE / ALTER / DROP USER and REVOKE need ALL, SUPER or CREATE USER
  (`USER_ADMIN`); GRANT needs GRANT OPTION (or ALL); SHOW CREATE USER of another account needs
  `USER_ADMIN`.
- GRANT/REVOKE at the global (`ON *.*`), database (`ON db.*`, `ON *`) and table level (`ON db.t`,
  `ON t`), refused as MariaDB refuses them (1221, 1144, 1146, 1141, 1147; column lists: 1235).
  A user is created only by CREATE USER or by a GRANT that gives its password
  (NO_AUTO_CREATE_USER: 1133). Every change is handed to `role.after_user_change` as one fully
  qualified statement (passwords as hashes, levels qualified: a slave has no current database),
  which a slave applies through `Admin.apply_user_statement`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.auth import hash_from_text, hash_to_text, native_password_hash
from protocol.errors import (
    ER_CANNOT_USER,
    ER_ILLEGAL_GRANT_FOR_TABLE,
    ER_NO_DB_ERROR,
    ER_NO_SUCH_TABLE,
    ER_NONEXISTING_GRANT,
    ER_NONEXISTING_TABLE_GRANT,
    ER_NOT_SUPPORTED_YET,
    ER_PARSE_ERROR,
    ER_PASSWORD_NO_MATCH,
    ER_SPECIFIC_ACCESS_DENIED_ERROR,
    ER_WRONG_USAGE,
    SQLError,
)
from protocol.messages import OK, ResultSet, column
from server.sql import Tokens, unquote
from server.users import ALL, DB_PRIVILEGES, KNOWN_PRIVILEGES, SUPER, TABLE_PRIVILEGES, Account

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
        account = self.account_ref(t, session)
        t.expect_end()
        if account is not session.account:
            session.require(*USER_ADMIN)
        stmt = f"CREATE USER `{account.user}`@`{account.host}`"
        if account.password_hash:
            stmt += f" IDENTIFIED BY PASSWORD '{hash_to_text(account.password_hash)}'"
        if account.require_ssl:
            stmt += " REQUIRE SSL"
        return ResultSet((column(f"CREATE USER for {account.user}@{account.host}"),), ((stmt,),))

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
        for user, host, pw in specs:
            if users.get(user, host) is not None and not or_replace:
                continue
            account = users.create(user, host, pw)
            if require_ssl:
                users.set_require_ssl(account, True)
            await self.server.role.after_user_change(session, _create_statement(account))
        return _OK

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
        if keyword != "DROP USER":
            return None
        t, if_exists = self._user_statement(session, sql, "DROP")
        names = self._user_names(t)
        t.expect_end()
        self._refuse_missing(names, "DROP USER", if_exists)
        users = self.server.users
        for user, host in names:
            if users.get(user, host) is not None:
                users.drop(user, host)
                await self.server.role.after_user_change(session, f"DROP USER '{user}'@'{host}'")
        return _OK

    def _privileges(self, t: Tokens) -> set[str]:
        privileges: set[str] = set()
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
            if name not in KNOWN_PRIVILEGES:
                raise t.error()
            if t.accept_op("("):
                raise SQLError(ER_NOT_SUPPORTED_YET, "column privileges")
            privileges.add(name)
            if not t.accept_op(","):
                break
        return privileges

    def _on_level(self, t: Tokens, session: ClientSession, privileges: set[str]) -> tuple[str | None, str | None]:
        """`ON *.*` -> (None, None); `ON db.*` / `ON *` -> (db, None); `ON db.t` / `ON t` ->
        (db, t). The level must be able to hold `privileges`, a table must exist (mysqld's
        1221, 1144, 1146); `*` and a bare table name need a current database (1046)."""
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
        if table is None:
            if not privileges <= DB_PRIVILEGES | {ALL, "USAGE"}:
                raise SQLError(ER_WRONG_USAGE, "DB GRANT", "GLOBAL PRIVILEGES")
        else:
            if not privileges <= TABLE_PRIVILEGES | {ALL, "USAGE"}:
                raise SQLError(ER_ILLEGAL_GRANT_FOR_TABLE)
            if self.server.engine.table(db, table) is None:
                raise SQLError(ER_NO_SUCH_TABLE, db, table)
        return db, table

    async def grant(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("GRANT")
        privileges = self._privileges(t)
        db, table = self._on_level(t, session, privileges)
        if not (session.account is not None and session.account.grant_option) and not session.has_privilege(ALL):
            raise SQLError(ER_SPECIFIC_ACCESS_DENIED_ERROR, "GRANT OPTION")
        t.expect_word("TO")
        targets = self._user_specs(t)
        grant_option = False
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
            users.grant(account, privileges, grant_option, db, table)
            if db is None:
                statement = account.grants()[0]
            else:
                option = " WITH GRANT OPTION" if grant_option else ""
                statement = f"GRANT {_privilege_list(privileges)} ON {_level_name(db, table)} TO {account.name}{option}"
            await self.server.role.after_user_change(session, statement)
        return _OK

    async def revoke(self, session: ClientSession, sql: str, keyword: str) -> Any:
        session.require(*USER_ADMIN)
        t = Tokens(sql)
        t.expect_word("REVOKE")
        privileges = self._privileges(t)
        db, table = self._on_level(t, session, privileges)
        t.expect_word("FROM")
        names = self._user_names(t)
        t.expect_end()
        users = self.server.users
        for user, host in names:
            account = users.get(user, host)
            if account is None:
                raise SQLError(ER_NONEXISTING_GRANT, user, host)
            if not users.revoke(account, privileges, db, table):
                if table is None:
                    raise SQLError(ER_NONEXISTING_GRANT, user, host)
                raise SQLError(ER_NONEXISTING_TABLE_GRANT, user, host, table)
            statement = f"REVOKE {_privilege_list(privileges)} ON {_level_name(db, table)} FROM {account.name}"
            await self.server.role.after_user_change(session, statement)
        return _OK


def _privilege_list(privileges: set[str]) -> str:
    return "ALL PRIVILEGES" if ALL in privileges else ", ".join(sorted(privileges))


def _level_name(db: str | None, table: str | None) -> str:
    """The GRANT/REVOKE level as replicated: always qualified (a slave has no current db)."""
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
    try:
        return hash_from_text(text)
    except ValueError:
        raise SQLError(ER_PARSE_ERROR, f"password hash should be a 41-digit hexadecimal number near '{text}'") from None


def _create_statement(account: Account) -> str:
    stmt = f"CREATE USER {account.name}"
    if account.password_hash:
        stmt += f" IDENTIFIED BY PASSWORD '{hash_to_text(account.password_hash)}'"
    if account.require_ssl:
        stmt += " REQUIRE SSL"
    return stmt
