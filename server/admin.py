"""The admin statements every server answers itself (master and slave alike).

Contract
- `Admin.handlers` maps a statement's first keyword to a coroutine
  `handler(session, sql, keyword) -> result | None`; None means "not mine, let the engine run
  it" (SHOW TABLES, SELECT ... FROM t, CREATE TABLE ...). Results are protocol `OK` /
  `ResultSet` values (the session stamps the status flags).
- Statements: SHOW [GLOBAL|SESSION] VARIABLES|STATUS [LIKE|WHERE], SHOW [FULL] PROCESSLIST,
  SHOW PLUGINS, SHOW GRANTS, SHOW WARNINGS|ERRORS, SHOW MASTER STATUS where the role does not
  answer it (a server without binlog: no row), SET (system and user variables, NAMES and
  CHARACTER SET also as items of a multi-assignment SET, TRANSACTION, PASSWORD; an expression
  is evaluated by the engine, system variables in it included), SET STATEMENT var = value [, ...]
  FOR statement (the session values for that statement only, the earlier ones restored however
  it ends; MariaDB's 1229 and 1971 refusals; MaxScale wraps its cluster commands in it), SELECT of @@vars / @vars / DATABASE() ... without a
  table, USE, KILL, CREATE USER, DROP USER, GRANT, REVOKE, INSTALL PLUGIN, UNINSTALL PLUGIN,
  FLUSH STATUS|PRIVILEGES|TABLES|LOGS|HOSTS, FLUSH TABLES WITH READ LOCK / UNLOCK TABLES (the
  session holds the engine's writer lock: no other write and no commit until it unlocks or
  disconnects, as a backup's consistent point needs), SHUTDOWN (sets the server's shutdown request),
  SIGNAL / RESIGNAL (server/conditions.py), HELP (its form checked, then 1235: no help tables).
- The account statements (CREATE / ALTER / DROP USER, GRANT, REVOKE, SHOW CREATE USER) are
  `UserStatements`' (server/user_statements.py), routed from `handlers`; each replicates as a
  fully qualified statement (`after_user_change`), which a slave applies through
  `apply_user_statement`. SHOW GRANTS lists every level.
- Privileges: SET GLOBAL needs ALL (or SUPER); INSTALL/UNINSTALL PLUGIN and user statements
  need ALL, SUPER or CREATE USER; USE needs a privilege in the database (server/privileges.py); KILL of another user's session needs ALL/SUPER/CONNECTION
  ADMIN; SHOW PROCESSLIST lists everyone only with PROCESS (or ALL/SUPER).
  Errors are mysqld's codes from protocol/errors.py.
"""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from engine.coltypes import ColumnType, held_value, varchar
from protocol.auth import hash_to_text, native_password_hash
from protocol.charsets import charset_named, collation_number, default_collation, introduced_charset
from protocol.errors import (
    ER_BAD_DB_ERROR,
    ER_BASE64_DECODE_ERROR,
    ER_COLLATION_CHARSET_MISMATCH,
    ER_CONNECTION_KILLED,
    ER_GLOBAL_VARIABLE,
    ER_INCORRECT_GLOBAL_LOCAL_VAR,
    ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT,
    ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_GTID_DOMAIN_ID_SEQ_NO,
    ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_SQL_LOG_BIN,
    ER_KILL_DENIED_ERROR,
    ER_NO_SUCH_THREAD,
    ER_NOT_SUPPORTED_YET,
    ER_OPTION_PREVENTS_STATEMENT,
    ER_PARSE_ERROR,
    ER_QUERY_INTERRUPTED,
    ER_SET_STATEMENT_NOT_SUPPORTED,
    SQLError,
)
from protocol.events import EventFramingError, EventType, event_type, split_events
from protocol.messages import (
    CHARSET_BINARY,
    CHARSET_UTF8MB4_GENERAL_CI,
    MASTER_STATUS_COLUMNS,
    OK,
    ColumnDefinition,
    ColumnFlag,
    FieldType,
    ResultSet,
    column,
    show_text,
)
from server import conditions, routines, sql_prepared
from server.columns import result_column
from server.plugins import SHOW_PLUGINS_COLUMNS
from server.privileges import set_global_needs
from server.processlist import processlist, shown_user
from server.sql import Tokens, head, parse_error, top_level_cuts
from server.user_statements import USER_ADMIN, UserStatements, hash_text, string_literal
from server.users import ALL, SUPER, Account
from server.variables import DEFAULT, Assignment, Double, Scope, like_matcher, select_value

if TYPE_CHECKING:
    from server.listener import Server
    from server.session import ClientSession

Handler = Callable[["ClientSession", str, str], Awaitable[Any]]



def _variable_columns(table: str) -> tuple[ColumnDefinition, ...]:
    """SHOW VARIABLES / STATUS's columns as MariaDB describes them: information_schema's `table`
    (SESSION_STATUS ...), VARIABLE_NAME VARCHAR(64) and VARIABLE_VALUE VARCHAR(4096), NOT NULL."""
    flags = ColumnFlag.NOT_NULL | ColumnFlag.NO_DEFAULT_VALUE
    return tuple(column(name, length=chars * 4, charset=CHARSET_UTF8MB4_GENERAL_CI, flags=flags,
                        schema="information_schema", table=table, org_table=table, org_name=org_name)
                 for name, org_name, chars in (("Variable_name", "VARIABLE_NAME", 64),
                                               ("Value", "VARIABLE_VALUE", 4096)))


# SHOW [GLOBAL | SESSION] VARIABLES | STATUS -> its columns
_VAR_COLUMNS = {(scope, what): _variable_columns(f"{scope}_{what}")
                for scope in ("GLOBAL", "SESSION") for what in ("VARIABLES", "STATUS")}
# SHOW WARNINGS / SHOW ERRORS, described as MariaDB's: VARCHAR(7), INT UNSIGNED(4), VARCHAR(512)
_DIAGNOSTIC_COLUMNS = (
    column("Level", length=7 * 4, charset=CHARSET_UTF8MB4_GENERAL_CI, flags=ColumnFlag.NOT_NULL, decimals=39),
    column("Code", FieldType.LONG, 4, flags=ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.BINARY),
    column("Message", length=512 * 4, charset=CHARSET_UTF8MB4_GENERAL_CI, flags=ColumnFlag.NOT_NULL, decimals=39),
)
_OK = OK()

# SELECT without FROM that we answer: a function call as the second word, or any '@'.
_FUNCTIONS = frozenset({
    "DATABASE", "SCHEMA", "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "VERSION",
    "CONNECTION_ID", "UNIX_TIMESTAMP", "LAST_INSERT_ID",
})
# Their result columns as MariaDB types them: DATABASE() a name of 64 characters, the account
# functions user@host of 384, LAST_INSERT_ID() and CONNECTION_ID() UNSIGNED NOT NULL; VERSION() (NOT NULL, its text's length) is typed where it is read.
_FUNCTION_TYPES = {"DATABASE": varchar(64), "SCHEMA": varchar(64),
                   **dict.fromkeys(("USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER"), varchar(384)),
                   "LAST_INSERT_ID": ColumnType(FieldType.LONGLONG, 21, 0, CHARSET_BINARY,
                                                ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.BINARY),
                   "CONNECTION_ID": ColumnType(FieldType.LONG, 10, 0, CHARSET_BINARY,
                                               ColumnFlag.NOT_NULL | ColumnFlag.UNSIGNED | ColumnFlag.BINARY),
                   "UNIX_TIMESTAMP": ColumnType(FieldType.LONGLONG, 17, 0, CHARSET_BINARY, ColumnFlag.BINARY)}
_SCOPES = {"GLOBAL": Scope.GLOBAL, "SESSION": Scope.SESSION, "LOCAL": Scope.SESSION}
_CONNECTION_ADMIN = (ALL, SUPER, "CONNECTION ADMIN")
# Session variables SET STATEMENT refuses with 1971 (MariaDB 10.11's list, sys_vars.cc NO_SET_STMT).
_NO_SET_STATEMENT = frozenset({
    "autocommit", "character_set_client", "character_set_connection", "character_set_filesystem",
    # (MariaDB takes character_set_results here; the answer is converted after the statement,
    # when the session's value is back, so it is refused rather than ignored)
    "character_set_results",
    "collation_connection", "default_master_connection", "debug_sync", "interactive_timeout", "last_insert_id",
    "log_slow_filter", "log_slow_rate_limit", "log_slow_verbosity", "min_examined_row_limit",
    "profiling", "profiling_history_size", "query_cache_type", "rand_seed1", "rand_seed2", "skip_replication",
    "slow_query_log", "sql_log_off", "tx_isolation", "transaction_isolation", "wait_timeout",
})
# statements (dispatch keyword, or its first word) that write the user store
_ACCOUNT_WRITES = frozenset({"CREATE USER", "DROP USER", "ALTER USER", "CREATE ROLE", "DROP ROLE", "GRANT", "REVOKE"})
# what a session's own GTIDs are numbered by
_SESSION_GTID = frozenset({"gtid_domain_id", "gtid_seq_no", "server_id"})
_FOR = re.compile(r"\bFOR\b", re.IGNORECASE)
# FLUSH TABLE_STATISTICS, INDEX_STATISTICS ... (a list of them)
_USER_STATISTICS = frozenset({"TABLE_STATISTICS", "INDEX_STATISTICS", "USER_STATISTICS", "CLIENT_STATISTICS"})
# FLUSH <kind> LOGS (FLUSH LOGS alone: every kind)
_LOGS_KINDS = frozenset({"LOGS", "SLOW", "GENERAL", "ERROR", "ENGINE", "RELAY"})


def _refuse_charset_variable(session: ClientSession, expression: str) -> None:
    """1235 for a user variable set to a string of characters beyond ASCII that `expression`
    may make of a literal of another character set than utf8 (one written on a latin1 or cp1251
    connection, or after `_latin1`, `_cp1251` ...): MariaDB's variable keeps that string's
    character set, which a variable here has not (its bytes would be its UTF-8). A string made
    of columns' values is utf8mb4, as here."""
    if (session.engine_session.connection_charset is not None and not expression.isascii()) \
            or any(introduced_charset(word) for word in _INTRODUCER_WORD.findall(expression)):
        raise SQLError(ER_NOT_SUPPORTED_YET, "a user variable set to a string of another character set than utf8"
                       " with characters beyond ASCII")


_INTRODUCER_WORD = re.compile(r"(?<![\w$])_\w+")


class _NotOurs(Exception):
    """A SELECT item we cannot evaluate: the engine gets the statement."""


class Admin:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.user_statements = UserStatements(server)
        self.handlers: dict[str, Handler] = {
            "SHOW": self.show,
            "SET": self.set_statement,
            "SELECT": self.select,
            "USE": self.use,
            "KILL": self.kill_statement,
            "CREATE": self._account_write(self.user_statements.create),
            "DROP": self._drop,
            "ALTER": self._account_write(self.user_statements.alter),
            "GRANT": self._account_write(self.user_statements.grant),
            "REVOKE": self._account_write(self.user_statements.revoke),
            "INSTALL": self.install_plugin,
            "UNINSTALL": self.uninstall_plugin,
            "FLUSH": self.flush,
            "LOCK": self.lock,
            "UNLOCK": self.unlock,
            "SHUTDOWN": self.shutdown,
            "BINLOG": self.binlog_statement,
            "PREPARE": sql_prepared.prepare,
            "EXECUTE": sql_prepared.execute,
            "DEALLOCATE": sql_prepared.deallocate,
            "CALL": routines.call,
            "HELP": self.help_statement,
            "SIGNAL": conditions.signal,
            "RESIGNAL": conditions.signal,
        }
        self._drop_account = self._account_write(self.user_statements.drop)

    async def _drop(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """DROP PREPARE (server/sql_prepared.py) or an account's DROP."""
        if keyword == "DROP PREPARE":
            return await sql_prepared.deallocate(session, sql, keyword)
        return await self._drop_account(session, sql, keyword)

    def _account_write(self, handler: Handler) -> Handler:
        """An account statement (CREATE / DROP / ALTER USER, GRANT, REVOKE) writes the user
        store: under read_only only an account with READ_ONLY ADMIN runs it (1290), as MariaDB."""
        async def guarded(session: ClientSession, sql: str, keyword: str) -> Any:
            if keyword in _ACCOUNT_WRITES or keyword.partition(" ")[0] in _ACCOUNT_WRITES:
                self._refuse_under_read_only(session)
            return await handler(session, sql, keyword)

        return guarded

    def _refuse_under_read_only(self, session: ClientSession) -> None:
        if self.server.role.read_only and not session.has_privilege(ALL, "READ_ONLY ADMIN"):
            raise SQLError(ER_OPTION_PREVENTS_STATEMENT, "--read-only")

    # -- SHOW ------------------------------------------------------------------------------------

    async def show(self, session: ClientSession, sql: str, keyword: str) -> Any:
        second = keyword.partition(" ")[2]
        if second == "MASTER" and [t.upper for t in Tokens(sql).items] == ["SHOW", "MASTER", "STATUS"]:
            # the role did not answer it: this server writes no binlog (a slave), and MariaDB
            # without log_bin answers with no row
            return ResultSet(MASTER_STATUS_COLUMNS, ())
        if second == "CREATE":
            return self.user_statements.show_create_user(session, sql)
        if second not in ("VARIABLES", "STATUS", "GLOBAL", "SESSION", "LOCAL", "PROCESSLIST",
                          "FULL", "PLUGINS", "GRANTS", "WARNINGS", "ERRORS", "COUNT"):
            return None
        t = Tokens(sql)
        t.expect_word("SHOW")
        if second == "COUNT":  # SHOW COUNT(*) WARNINGS | ERRORS: @@warning_count / @@error_count
            t.expect_word("COUNT")
            t.expect_op("(")
            t.expect_op("*")
            t.expect_op(")")
            what = t.expect_word("WARNINGS", "ERRORS")
            t.expect_end()
            errors = what == "ERRORS"
            count = sum(1 for d in session.diagnostics if d[0] == "Error" or not errors)
            return ResultSet((column(f"@@session.{'error' if errors else 'warning'}_count", FieldType.LONGLONG),),
                             ((count,),))
        scope_word = t.accept_word("GLOBAL", "SESSION", "LOCAL")
        full = t.accept_word("FULL")
        what = t.accept_word("VARIABLES", "STATUS", "PROCESSLIST", "PLUGINS", "GRANTS", "WARNINGS", "ERRORS")
        if what is None:
            return None  # SHOW FULL TABLES, SHOW FULL COLUMNS ...: the engine's
        if what in ("VARIABLES", "STATUS"):
            if full:
                raise t.error()
            match = self._show_filter(t)
            if what == "VARIABLES":
                scope = _SCOPES.get(scope_word or "")
                rows = self.server.variables.show_variables(session, scope, match)
            else:
                # Ssl_* are the asking connection's at either scope, as MariaDB shows them
                rows = self.server.variables.show_status(match, session.session_status(scope_word == "GLOBAL"))
            return ResultSet(_VAR_COLUMNS["GLOBAL" if scope_word == "GLOBAL" else "SESSION", what], tuple(rows))
        if scope_word is not None:
            raise t.error()
        if what == "PROCESSLIST":
            t.expect_end()
            return processlist(self.server, full=bool(full), user=shown_user(session))
        if full:
            raise t.error()
        if what == "PLUGINS":
            t.expect_end()
            plugins = self.server.plugins.show_rows()
            return ResultSet(SHOW_PLUGINS_COLUMNS, tuple(plugins))
        if what in ("WARNINGS", "ERRORS"):
            if what == "ERRORS":
                shown = [d for d in session.diagnostics if d[0] == "Error"]
            else:
                shown = list(session.diagnostics)
            if t.accept_word("LIMIT"):  # LIMIT [offset,] count
                first = t.integer()
                offset, count = (first, t.integer()) if t.accept_op(",") else (0, first)
                shown = shown[offset:offset + count]
            t.expect_end()
            return ResultSet(_DIAGNOSTIC_COLUMNS, tuple(shown))
        # GRANTS
        account: Account | None
        if t.accept_word("FOR"):
            account = self.user_statements.shown_account(t, session)
            t.expect_end()
        else:
            t.expect_end()
            account = session.account
        assert account is not None
        return ResultSet((show_text(f"Grants for {account.user}@{account.host}", 1024),),
                         tuple((line,) for line in account.grants()))

    def _show_filter(self, t: Tokens) -> Callable[[str], Any] | None:
        if t.at_end():
            return None
        if t.accept_word("LIKE"):
            tok = t.next()
            if tok.kind != "STRING":
                raise t.error()
            t.expect_end()
            return like_matcher(tok.text)
        t.expect_word("WHERE")
        column_name = t.name().lower()
        if column_name != "variable_name":
            raise SQLError(ER_NOT_SUPPORTED_YET, "WHERE on " + column_name)
        if t.accept_op("="):
            value = t.next().text.lower()
            t.expect_end()
            return lambda name: name.lower() == value
        if t.accept_word("LIKE"):
            pattern = t.next().text
            t.expect_end()
            return like_matcher(pattern)
        t.expect_word("IN")
        t.expect_op("(")
        wanted = set()
        while True:
            wanted.add(t.next().text.lower())
            if t.accept_op(")"):
                break
            t.expect_op(",")
        t.expect_end()
        return lambda name: name.lower() in wanted

    # -- expressions (SET right-hand sides, SELECT items) --------------------------------------

    def _value(self, session: ClientSession, t: Tokens, *, bare_words: bool, typed: bool = False) -> Any:
        """One simple expression. `bare_words`: a bare word is a string (SET x = ON). `typed` (a
        user variable's value, a select-list item): a number with a point or an exponent is the
        engine's, which types it as MariaDB (a DECIMAL, a DOUBLE); a system variable reads it as a
        float."""
        tok = t.next()
        kind = tok.kind
        if kind == "OP" and tok.text in ("-", "+"):
            value = self._value(session, t, bare_words=False, typed=typed)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise _NotOurs()
            return -value if tok.text == "-" else value
        if kind == "NUMBER":
            if not bare_words and tok.text[:2] == "0x" or typed and type(tok.value) is float:
                raise _NotOurs()  # a hybrid (a user variable's binary string: `lexer.Hybrid`), a typed number
            return tok.value
        if kind == "STRING":
            return tok.text
        if kind == "SYSVAR":
            return select_value(self._sysvar(session, tok))
        if kind == "USERVAR":
            return session.user_vars.get(str(tok.value))
        if kind == "OP" and tok.text == "(":
            value = self._value(session, t, bare_words=bare_words, typed=typed)
            t.expect_op(")")
            return value
        if kind == "WORD":
            word = tok.upper
            if t.accept_op("("):
                return self._function(session, word, t)
            if word == "NULL":
                return None
            if word in ("TRUE", "FALSE"):
                return 1 if word == "TRUE" else 0
            if word == "DEFAULT" and bare_words:
                return DEFAULT
            if word in ("CURRENT_USER",):
                return self._current_user(session)
            if bare_words:
                return tok.text
        if kind == "QUOTED" and bare_words:
            return tok.text
        raise _NotOurs()

    def _sysvar(self, session: ClientSession, tok: Any) -> Any:
        """The value of the system variable `tok` names (`@@[scope.]name`)."""
        scope_name, name = _sysvar(tok)
        scope = _SCOPES.get(scope_name) if scope_name else None
        return self.server.variables.get(name, session, scope)

    def _function(self, session: ClientSession, name: str, t: Tokens) -> Any:
        args = []
        if not t.accept_op(")"):
            while True:
                args.append(self._value(session, t, bare_words=False))
                if t.accept_op(")"):
                    break
                t.expect_op(",")
        if name in ("DATABASE", "SCHEMA") and not args:
            return session.database
        if name in ("USER", "SESSION_USER", "SYSTEM_USER") and not args:
            return f"{session.user}@{session.host}"
        if name == "CURRENT_USER" and not args:
            return self._current_user(session)
        if name == "VERSION" and not args:
            return self.server.variables.get("version", session)
        if name == "CONNECTION_ID" and not args:
            return session.connection_id
        if name == "UNIX_TIMESTAMP" and not args:  # the statement's time: SET timestamp's, else the clock's
            es = session.engine_session
            fixed = es.fixed_time if es is not None else None
            return int(time.time()) if fixed is None else fixed
        if name == "LAST_INSERT_ID" and not args:
            es = session.engine_session
            return int(getattr(es, "last_insert_id", 0) or 0)
        if name == "PASSWORD" and len(args) == 1 and isinstance(args[0], str):
            return hash_to_text(native_password_hash(args[0]))
        raise _NotOurs()

    @staticmethod
    def _current_user(session: ClientSession) -> str:
        account = session.account
        return f"{account.user}@{account.host}" if account else ""

    # -- SELECT ------------------------------------------------------------------------------------

    def claims(self, sql: str, keyword: str) -> bool:
        """Whether a handler here may answer `sql` (whose `sqltext.head` is `keyword`) in place
        of the engine."""
        first = keyword.partition(" ")[0]
        if first == "SELECT":
            return "@" in sql or keyword.partition(" ")[2] in _FUNCTIONS
        return first in self.handlers

    async def select(self, session: ClientSession, sql: str, keyword: str) -> Any:
        if not self.claims(sql, keyword):
            return None
        try:
            t = Tokens(sql)
        except SQLError:
            return None
        t.expect_word("SELECT")
        columns = []
        row = []
        types: list[ColumnType | None] = []
        try:
            while True:
                first = t.peek()
                if first is None:
                    return None
                if first.kind in ("NUMBER", "STRING"):
                    return None  # a literal among them: the engine's, which types each item as MariaDB
                start = t.i
                if first.kind == "SYSVAR":
                    raw = self._sysvar(session, t.next())
                    value = select_value(raw)
                    types.append(session.sysvar_column(raw))
                else:
                    value = self._value(session, t, bare_words=False, typed=True)
                    called = first.kind == "WORD" and (t.i == start + 3 or (
                        t.i == start + 1 and first.upper == "CURRENT_USER"))  # name() or CURRENT_USER
                    if called and first.upper == "VERSION":
                        types.append(varchar(len(value), flags=ColumnFlag.NOT_NULL))
                    else:
                        types.append(_FUNCTION_TYPES.get(first.upper) if called else None)
                if first.kind == "USERVAR" and t.i == start + 1:  # @x: typed by the value it holds
                    types[-1] = session.uservar_column(value, str(first.value) in session.user_vars)
                    if isinstance(value, Decimal):
                        value = format(value, "f")  # its own digits
                end_tok = t.peek()
                text = sql[first.pos:end_tok.pos if end_tok is not None else len(sql)].strip().rstrip(";").rstrip()
                if t.accept_word("AS"):
                    text = t.name()
                elif (alias := t.peek()) is not None and alias.kind in ("WORD", "QUOTED", "STRING") \
                        and not alias.is_word("LIMIT", "FROM"):
                    t.next()
                    text = alias.text
                columns.append(text)
                row.append(value)
                if not t.accept_op(","):
                    break
            if t.accept_word("FROM") and not t.accept_word("DUAL"):
                return None  # a table's rows: the engine's
            limit = None
            if t.accept_word("LIMIT"):
                tok = t.next()
                if tok.kind != "NUMBER":
                    return None
                limit = tok.value
            if not t.at_end():
                return None
        except _NotOurs:
            return None
        defs = tuple(_column_for(name, value) if kind is None else result_column(name, kind)
                     for name, value, kind in zip(columns, row, types, strict=True))
        rows = () if limit == 0 else (tuple(row),)
        return ResultSet(defs, rows)

    # -- SET ---------------------------------------------------------------------------------------

    def _set_transaction(self, session: ClientSession, sql: str, scope: Scope | None) -> Any:
        """SET [GLOBAL|SESSION] TRANSACTION ISOLATION LEVEL ... [, READ ONLY|READ WRITE]: the
        level goes to transaction_isolation; without a scope it is the next transaction's only
        (1568 inside a transaction), as mysqld's. Access modes are accepted as they are."""
        words = sql.upper().replace(",", " ").split()
        if "LEVEL" in words:
            level = " ".join(words[words.index("LEVEL") + 1 : words.index("LEVEL") + 3])
            value = {"READ UNCOMMITTED": "READ-UNCOMMITTED", "READ COMMITTED": "READ-COMMITTED",
                     "REPEATABLE READ": "REPEATABLE-READ"}.get(level)
            if value is None and level.startswith("SERIALIZABLE"):
                value = "SERIALIZABLE"
            if value is None:
                raise SQLError(ER_PARSE_ERROR, f"near '{level}' (an isolation level)")
            if scope is None:
                session.isolate_next_transaction(value)
                return _OK
            if scope is Scope.GLOBAL:
                session.require(ALL, SUPER)
            self.server.variables.set("transaction_isolation", value, scope, session)  # (and tx_isolation)
        return _OK

    async def set_statement(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("SET")
        second = t.peek()
        if second is not None and second.kind == "WORD":
            word = second.upper
            if word == "PASSWORD":
                return await self._set_password(session, t)
            if word == "ROLE" and not ((nxt := t.peek(1)) is not None and nxt.kind == "OP"):
                return self.user_statements.set_role(t)
            if word == "DEFAULT" and (nxt := t.peek(1)) is not None and nxt.is_word("ROLE"):
                return self.user_statements.set_default_role(session, t)
            if word == "STATEMENT" and not ((nxt := t.peek(1)) is not None and nxt.kind == "OP"):
                return await self._set_statement_for(session, sql)
            if word == "TRANSACTION" or (
                word in _SCOPES and (nxt := t.peek(1)) is not None and nxt.is_word("TRANSACTION")
            ):
                return self._set_transaction(session, sql, _SCOPES.get(word))
        # (target, value, its expression's warnings (SET @x = 1/0: 1365))
        assignments: list[tuple[Any, Any, list]] = []
        scope: Scope | None = None
        while True:
            scope_word = t.accept_word("GLOBAL", "SESSION", "LOCAL")
            if scope_word is not None:
                scope = _SCOPES[scope_word]
            tok = t.next()
            if tok.is_word("NAMES", "CHARACTER", "CHARSET") and scope_word is None and not (
                    (nxt := t.peek()) is not None and nxt.kind == "OP" and nxt.text in ("=", ":=")):
                t.i -= 1
                assignments.append((("names",), self._names(t), []))
                if t.at_end():
                    break
                t.expect_op(",")
                continue
            if tok.kind == "USERVAR":
                target: Any = ("user", tok.value)
            elif tok.kind == "SYSVAR":
                scope_name, name = _sysvar(tok)
                target = ("sys", name, _SCOPES[scope_name] if scope_name else scope)
            elif tok.kind in ("WORD", "QUOTED"):
                target = ("sys", tok.text.lower(), scope)
            else:
                raise t.error()
            t.expect_op("=", ":=")
            start = t.i
            noted: list[tuple[str, int, str]] = []
            try:
                value = self._value(session, t, bare_words=target[0] == "sys", typed=target[0] == "user")
                nxt = t.peek()
                simple = nxt is None or (nxt.kind == "OP" and nxt.text == ",")
            except _NotOurs:
                simple = False
            if not simple:  # an expression (1 + 2, NOW(), (SELECT ...)): the engine evaluates it
                t.i = start
                value = await self._evaluate(session, t, noted, typed=target[0] == "user")
            if target[0] == "user" and isinstance(value, str) and not value.isascii():
                _refuse_charset_variable(session, t.sql[t.items[start].pos:t.peek().pos if t.peek() else len(t.sql)])
            assignments.append((target, value, noted))
            if t.at_end():
                break
            t.expect_op(",")
        # Every system variable checked first, so that a bad one changes nothing; the warnings
        # in the assignments' order, each expression's before its variable's clamping (MariaDB's).
        variables = self.server.variables
        warnings: list[tuple[str, int, str]] = []
        checked: list[Any] = []
        for target, _, _ in assignments:  # an unknown name first, before any value's warning
            if target[0] == "sys":
                variables.lookup(target[1])
        try:
            for target, value, noted in assignments:
                warnings.extend(noted)
                checked.append(value if target[0] != "sys" else self._check_set(session, target, value, warnings))
        except SQLError as exc:
            exc.warnings = tuple(warnings)
            raise
        for (target, _, _), value in zip(assignments, checked, strict=True):
            if target[0] == "names":
                session.sysvars.update(value)
                session.results_collation = collation_number(value["collation_connection"])
                session.charsets_changed()
            elif target[0] == "user":
                session.user_vars[target[1]] = value
            elif target[1] == "autocommit" and target[2] is not Scope.GLOBAL:
                await self._set_autocommit(session, value.value)
            else:
                await variables.apply(value, session)
        if warnings:
            session.diagnostics = warnings
            return OK(warnings=len(warnings))
        return _OK

    def _check_set(self, session: ClientSession, target: tuple, value: Any, warnings: list) -> Assignment:
        """One `SET [scope] name = value` checked: the privileges and session conditions it
        needs, then the variable's own check (`Variables.check_set`)."""
        variables = self.server.variables
        var = variables.lookup(target[1])
        if target[2] is Scope.GLOBAL:
            session.require(ALL, *set_global_needs(var.name))
        elif var.name == "sql_log_bin":
            if value is not DEFAULT:
                var.checked(value)  # a bad value first (1231), as MariaDB
            _may_switch_sql_log_bin(session)
        elif var.name in _SESSION_GTID:
            _may_set_session_gtid(session, var.name, value)
        elif var.name == "binlog_format":
            _may_switch_binlog_format(session, value)
        return variables.check_set(var.name, value, target[2], session, warnings)

    async def _set_statement_for(self, session: ClientSession, sql: str) -> Any:
        """SET STATEMENT name = value [, ...] FOR statement: the session values for that one
        statement, the earlier ones back afterwards whatever it did (MariaDB's per-query
        variables; 1229 for a global-only variable, 1971 for one MariaDB refuses here)."""
        t, inner = self._statement_options(sql)
        variables = self.server.variables
        assignments: list[tuple[str, Any]] = []
        try:
            while True:
                tok = t.next()
                if tok.kind not in ("WORD", "QUOTED"):
                    t.i -= 1
                    raise t.error()
                t.expect_op("=", ":=")
                start = t.i
                try:
                    value = self._value(session, t, bare_words=True)
                    nxt = t.peek()
                    simple = nxt is None or (nxt.kind == "OP" and nxt.text == ",")
                except _NotOurs:
                    simple = False
                if not simple:
                    t.i = start
                    value = await self._evaluate(session, t)
                assignments.append((tok.text.lower(), value))
                if t.at_end():
                    break
                t.expect_op(",")
        except SQLError as exc:
            if exc.error is not ER_PARSE_ERROR:
                raise
            # quote the whole statement from the bad token on, as mysqld does
            raise parse_error(sql, t.items[t.i].pos if not t.at_end() else len(t.sql)) from None
        warnings: list[tuple[str, int, str]] = []  # the values' clamping, before the statement's
        checked: list[Assignment] = []
        try:
            for name, value in assignments:
                var = variables.lookup(name)
                if not var.dynamic:
                    raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, var.name, "read only")
                if not var.scope & Scope.SESSION:
                    raise SQLError(ER_GLOBAL_VARIABLE, var.name)
                if var.name in _NO_SET_STATEMENT:
                    raise SQLError(ER_SET_STATEMENT_NOT_SUPPORTED, var.name)
                if var.name == "sql_log_bin":
                    _may_switch_sql_log_bin(session)
                elif var.name in _SESSION_GTID:
                    _may_set_session_gtid(session, var.name, value)
                elif var.name == "binlog_format":
                    _may_switch_binlog_format(session, value)
                checked.append(variables.check_set(var.name, value, Scope.SESSION, session, warnings))
        except SQLError as exc:
            exc.warnings = tuple(warnings)
            raise
        saved: list[tuple[str, Any]] = []
        if warnings:  # (the earlier statement's warnings go, as for any statement raising its own)
            session.diagnostics = []
        try:
            for assignment in checked:
                name = assignment.variable.name
                before = variables.get(name, session, Scope.SESSION)
                variables.assign(assignment, session)
                saved.append((name, before))
                if name == "max_statement_time":  # the limit of this very statement
                    session.limit_statement(session.sysvars.get(name) or 0.0)
            result = await session.execute(inner)
            return _warned_first(session, result, warnings) if warnings else result
        finally:
            statement_slow_after = session.slow_after
            for name, before in reversed(saved):
                variables.set(name, before, Scope.SESSION, session)
                if name == "long_query_time":  # the statement is timed with its own value, as MariaDB's
                    session.slow_after_back, session.slow_after = session.slow_after, statement_slow_after

    @staticmethod
    def _statement_options(sql: str) -> tuple[Tokens, str]:
        """SET STATEMENT's option list (a cursor on its first name) and the statement after FOR.
        The FOR that ends the list is the first one outside a quoted value."""
        for match in _FOR.finditer(sql):
            try:
                t = Tokens(sql[:match.start()])
            except SQLError:
                continue  # this FOR is inside a quoted value
            t.expect_word("SET")
            t.expect_word("STATEMENT")
            inner = sql[match.end():]
            if t.at_end() or not inner.strip():
                raise parse_error(sql, match.start() if t.at_end() else len(sql))
            return t, inner.strip()
        raise parse_error(sql, len(sql))

    async def _evaluate(self, session: ClientSession, t: Tokens, warnings: list | None = None,
                        typed: bool = False) -> Any:
        """Evaluate the expression from the cursor to the next top-level ',' (or the end) with
        the engine (`SELECT expr`) and return its value; its warnings added to `warnings`.
        `typed` (a user variable's value): held in the result's type, as MariaDB's variable
        keeps it (`held_value`)."""
        first = t.peek()
        if first is None:
            raise t.error()
        t.i = top_level_cuts(t.items, t.i)[0]
        tok = t.peek()
        end = tok.pos if tok is not None else len(t.sql)
        # through the privilege check: `SET @a = (SELECT a FROM t)` reads t
        result = await session.evaluate_select("SELECT " + t.sql[first.pos:end].strip().rstrip(";"))
        if warnings is not None:
            warnings.extend(result.warnings)
        if not result.rows:
            return None
        if typed and result.column_types:
            return held_value(result.rows[0][0], result.column_types[0])
        return result.rows[0][0]

    async def _set_autocommit(self, session: ClientSession, on: bool) -> None:
        committed = await session.engine_session.set_autocommit(on)
        if committed is not None:  # SET autocommit=1 commits an open transaction, as in mysqld
            await session.commit(committed)

    @staticmethod
    def _names(t: Tokens) -> dict[str, str]:
        """NAMES cs [COLLATE c] / CHARACTER SET cs: the session variables it sets."""
        if t.accept_word("NAMES") is None:
            t.expect_word("CHARACTER", "CHARSET")
            if t.peek() is not None and t.peek().is_word("SET"):  # type: ignore[union-attr]
                t.next()
        tok = t.next()
        # (1115 for a character set no connection here speaks, 1231 for utf16 & co, as MariaDB's)
        cs = charset_named("utf8mb4" if tok.is_word("DEFAULT") else tok.text)
        collation = default_collation(cs)
        if t.accept_word("COLLATE"):
            collation = t.next().text.lower()
            if not collation.startswith(cs.name + "_") and collation != cs.name:
                raise SQLError(ER_COLLATION_CHARSET_MISMATCH, collation, cs.name)
        values = dict.fromkeys(("character_set_client", "character_set_connection", "character_set_results"),
                               cs.name)
        values["collation_connection"] = collation
        return values

    async def _set_password(self, session: ClientSession, t: Tokens) -> Any:
        t.expect_word("PASSWORD")
        self._refuse_under_read_only(session)
        account = session.account
        if t.accept_word("FOR"):
            account = self.user_statements.account_ref(t, session)
            if account is not session.account:
                session.require(*USER_ADMIN)
        t.expect_op("=")
        if t.accept_word("PASSWORD"):
            t.expect_op("(")
            new_hash = native_password_hash(t.next().text)
            t.expect_op(")")
        else:
            new_hash = hash_text(t, t.next().text)
        if t.accept_op(","):  # SET PASSWORD = ..., var = ... (mariadb-admin's `password`): the rest first
            rest = t.next()
            await self.set_statement(session, "SET " + t.sql[rest.pos:], "SET")
        else:
            t.expect_end()
        assert account is not None
        self.server.users.set_password(account, new_hash)
        await self.server.role.after_user_change(
            session, f"SET PASSWORD FOR {account.name} = '{hash_to_text(new_hash)}'")
        return _OK

    # -- USE / KILL --------------------------------------------------------------------------------

    async def use(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("USE")
        name = t.name()
        t.expect_end()
        return await self.use_database(session, name)

    async def use_database(self, session: ClientSession, name: str) -> Any:
        if session.privileges is not None:
            session.privileges.check_database(name)  # 1044 before 1049, as MariaDB
        if not self.server.engine.has_database(name):
            raise SQLError(ER_BAD_DB_ERROR, name)
        session.engine_session.database = name
        return _OK

    async def kill_statement(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("KILL")
        t.accept_word("HARD", "SOFT")
        query = t.accept_word("QUERY", "CONNECTION") == "QUERY"
        tok = t.next()
        if tok.kind == "NUMBER" and isinstance(tok.value, int):
            target = tok.value
        else:
            t.i -= 1
            try:
                target = self._value(session, t, bare_words=False)
            except _NotOurs:
                raise t.error() from None
            if not isinstance(target, int):
                raise t.error()
        t.expect_end()
        return await self.kill(session, target, query=query)

    async def kill(self, session: ClientSession, target_id: int, *, query: bool) -> Any:
        target = self.server.sessions.get(target_id)
        if target is None:
            # a replication thread of the role's ("system user": another user's)
            if any(t[0] == target_id for t in self.server.role.system_threads()):
                if not session.has_privilege(*_CONNECTION_ADMIN):
                    raise SQLError(ER_KILL_DENIED_ERROR, target_id)
                if await self.server.role.kill_thread(target_id):
                    return _OK
            raise SQLError(ER_NO_SUCH_THREAD, target_id)
        if target.user != session.user and not session.has_privilege(*_CONNECTION_ADMIN):
            raise SQLError(ER_KILL_DENIED_ERROR, target_id)
        if query and target is session:
            raise SQLError(ER_QUERY_INTERRUPTED)  # this very statement is the query
        if query:
            target.kill_query()
        elif target is session:
            session.kill_after_reply()
            raise SQLError(ER_CONNECTION_KILLED)
        else:
            target.kill()
        return _OK

    async def apply_user_statement(self, sql: str) -> None:
        """The slave applier's path for user statements: run as an all-privileged session."""
        session = _SystemSession(self.server)
        keyword = head(sql)
        handler = self.handlers.get(keyword.partition(" ")[0])
        if handler is None or await handler(session, sql, keyword) is None:  # type: ignore[arg-type]
            raise SQLError(ER_PARSE_ERROR, f"not a user statement: {sql[:60]}")

    # -- plugins / FLUSH ---------------------------------------------------------------------------

    async def install_plugin(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("INSTALL")
        if t.accept_word("SONAME"):
            raise SQLError(ER_NOT_SUPPORTED_YET, "INSTALL SONAME")
        t.expect_word("PLUGIN")
        name = t.name()
        t.expect_word("SONAME")
        soname = string_literal(t)
        t.expect_end()
        session.require(ALL, SUPER)
        self.server.plugins.install(name, soname)
        return _OK

    async def uninstall_plugin(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("UNINSTALL")
        t.expect_word("PLUGIN")
        name = t.name()
        t.expect_end()
        session.require(ALL, SUPER)
        self.server.plugins.uninstall(name)
        return _OK

    async def flush(self, session: ClientSession, sql: str, keyword: str) -> Any:
        t = Tokens(sql)
        t.expect_word("FLUSH")
        t.accept_word("LOCAL", "NO_WRITE_TO_BINLOG")
        what = t.next().upper
        if what == "STATUS":
            t.expect_end()
            session.require(ALL, "RELOAD")
            self.server.stats.flush()
            self.server.plugins.flush_status()
            return _OK
        if what in _LOGS_KINDS:
            return self._flush_logs(session, t, what)
        if what in _USER_STATISTICS:  # MariaDB's user statistics, never collected here (userstat OFF)
            while t.accept_op(","):
                if t.next().upper not in _USER_STATISTICS:
                    raise t.error()
            t.expect_end()
            session.require(ALL, "RELOAD")
            return _OK
        if what in ("PRIVILEGES", "TABLES", "TABLE", "HOSTS", "USER_RESOURCES", "QUERY"):
            session.require(ALL, "RELOAD")  # SUPER is not enough (MariaDB 10.11)
            if what == "HOSTS":
                self.server.connection_control.flush_hosts()
            if what == "TABLES" and t.accept_word("WITH"):
                t.expect_word("READ")
                t.expect_word("LOCK")
                t.expect_end()
                await session.lock_for_backup()
            return _OK
        return None

    def _flush_logs(self, session: ClientSession, t: Tokens, what: str) -> Any:
        """FLUSH LOGS, and FLUSH <kind> LOGS [, <kind> LOGS ...] (SLOW, GENERAL; ERROR, ENGINE
        and RELAY have nothing to reopen here, BINARY is the role's): the query logs' files
        closed and opened again (server/query_logs.py), what a DBA's log rotation asks."""
        slow = general = False
        while True:
            if what == "LOGS":
                slow = general = True
            else:
                t.expect_word("LOGS")
                slow = slow or what == "SLOW"
                general = general or what == "GENERAL"
            if t.at_end():
                break
            t.expect_op(",")
            what = t.next().upper
            if what not in _LOGS_KINDS:
                raise t.error()
        session.require(ALL, "RELOAD")
        self.server.query_logs.reopen(slow=slow, general=general)
        return _OK

    async def binlog_statement(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """BINLOG 'base64' (what mariadb-binlog prints for events it cannot write as SQL):
        SUPER or BINLOG REPLAY (1227); a FORMAT_DESCRIPTION (the first thing of its output, for
        every binlog) is taken as the format of what follows, which for a statement binlog is
        SQL: nothing to do. Row events are not applied here (1235), never half applied."""
        t = Tokens(sql)
        t.expect_word("BINLOG")
        text = string_literal(t)
        t.expect_end()
        session.require(ALL, SUPER, "BINLOG REPLAY")
        try:
            data = base64.b64decode("".join(text.split()), validate=True)
            events = [event_type(event) for _offset, event in split_events(data)]
        except (ValueError, EventFramingError):
            raise SQLError(ER_BASE64_DECODE_ERROR) from None
        if not events:
            raise SQLError(ER_BASE64_DECODE_ERROR)
        if any(kind != EventType.FORMAT_DESCRIPTION_EVENT for kind in events):
            raise SQLError(ER_NOT_SUPPORTED_YET, "BINLOG of events other than FORMAT_DESCRIPTION")
        return _OK

    async def lock(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """LOCK TABLE[S] (server/table_locks.py)."""
        await session.lock_tables(sql)
        return _OK

    async def unlock(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """UNLOCK TABLE[S]: ends this session's LOCK TABLES and FLUSH TABLES WITH READ LOCK."""
        t = Tokens(sql)
        t.expect_word("UNLOCK")
        t.expect_word("TABLE", "TABLES")
        t.expect_end()
        await session.unlock_tables()
        return _OK


    async def help_statement(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """HELP topic: MariaDB answers from its help tables (mysql.help_topic ..., which
        mariadb-install-db fills), which this server does not hold, and whose topics decide the
        answer even for an unknown one: 1235 for MariaDB's form (one name or string), else 1064."""
        t = Tokens(sql)
        t.next()
        if t.next().kind not in ("WORD", "QUOTED", "STRING"):
            t.i -= 1
            raise t.error()
        t.expect_end()
        raise SQLError(ER_NOT_SUPPORTED_YET, "HELP")

    async def shutdown(self, session: ClientSession, sql: str, keyword: str) -> Any:
        """SHUTDOWN (MariaDB's statement; `mysqladmin shutdown`): ask the daemon to stop."""
        t = Tokens(sql)
        t.expect_word("SHUTDOWN")
        if t.accept_word("WAIT"):
            for word in ("FOR", "ALL"):
                t.expect_word(word)
            t.expect_word("SLAVES", "REPLICAS")
        t.expect_end()
        session.require(ALL, SUPER, "SHUTDOWN")
        self.server.request_shutdown()
        return _OK


class _SystemSession:
    """A stand-in session with every privilege (replayed user statements), named as MariaDB's
    SQL thread is where a grant records its grantor ('<replication_slave>@')."""

    def __init__(self, server: Server) -> None:
        self.account = Account("<replication_slave>", "", privileges={ALL}, grant_option=True)
        self.user = "<replication_slave>"
        self.host = ""
        self.connection_id = 0
        self.password_used = False
        self.user_vars: dict[str, Any] = {}
        self.sysvars: dict[str, Any] = {}
        self.engine_session = None
        self.database = None

    def has_privilege(self, *privileges: str) -> bool:
        return True

    def require(self, *privileges: str) -> None:
        return None


def _sysvar(tok: Any) -> tuple[str | None, str]:
    scope_name, name = tok.value
    return scope_name, name


def _column_for(name: str, value: Any) -> Any:
    if name.upper() == "CONNECTION_ID()":
        return column(name, FieldType.LONG)
    if isinstance(value, bool) or isinstance(value, int):
        return column(name, FieldType.LONGLONG)
    if isinstance(value, Double):
        return column(name, FieldType.DOUBLE, decimals=Double.decimals)
    if isinstance(value, float):
        return column(name, FieldType.DOUBLE)
    return column(name, FieldType.VAR_STRING)


def _warned_first(session: ClientSession, result: Any, warnings: list[tuple[str, int, str]]) -> Any:
    """A statement's answer with `warnings` before its own (SET STATEMENT's clamped values):
    an engine result carries its warnings, the shell's answers leave theirs in the session's
    diagnostics area and count them in their OK or EOF."""
    if isinstance(result, (OK, ResultSet)) or result is None:
        session.diagnostics = [*warnings, *session.diagnostics]
        return replace(result if result is not None else _OK, warnings=len(session.diagnostics))
    return replace(result, warnings=(*warnings, *result.warnings))


def _may_switch_sql_log_bin(session: ClientSession) -> None:
    """SET [STATEMENT] sql_log_bin: SUPER or BINLOG ADMIN (1227), and never inside a
    transaction (1694), as MariaDB."""
    session.require(ALL, SUPER, "BINLOG ADMIN")
    es = session.engine_session
    if es is not None and es.in_transaction:
        raise SQLError(ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_SQL_LOG_BIN)


def _may_switch_binlog_format(session: ClientSession, value: Any) -> None:
    """SET [SESSION | STATEMENT] binlog_format: SUPER or BINLOG ADMIN (1227) unless set to
    DEFAULT, then never inside a transaction (1679), as MariaDB 10.11 checks it (before the
    value: `core_variables.check_binlog_format`)."""
    if value is not DEFAULT:
        session.require(ALL, SUPER, "BINLOG ADMIN")
    es = session.engine_session
    if es is not None and es.in_transaction:
        raise SQLError(ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_BINLOG_FORMAT)


def _may_set_session_gtid(session: ClientSession, name: str, value: Any) -> None:
    """SET [SESSION | STATEMENT] gtid_domain_id / gtid_seq_no / server_id: SUPER or BINLOG
    REPLAY (1227) unless set to DEFAULT, then, but for server_id, never inside a transaction
    (1953), as MariaDB 10.11 checks them."""
    if value is not DEFAULT:
        session.require(ALL, SUPER, "BINLOG REPLAY")
    es = session.engine_session
    if name != "server_id" and es is not None and es.in_transaction:
        raise SQLError(ER_INSIDE_TRANSACTION_PREVENTS_SWITCH_GTID_DOMAIN_ID_SEQ_NO)


__all__ = ["Admin"]
