"""The login phase of a client session (server/session.py): from the greeting to the OK that
ends the login, or the ERR that ends the connection. `ClientSession._run` awaits `log_in(self)`
under connect_timeout; True: the command loop follows. It is the session's own phase, kept in a
file of its own: it reads the session's events and sets the session's login state.

Contract
- TLS: an SSLRequest puts a `TlsChannel` between the socket and the session's connection before
  the rest of the login is read. A login in the clear of a REQUIRE SSL account gets 1045 (as
  mysqld's acl_authenticate), any clear login 3159 while require_secure_transport is ON.
- Login defences (server/connection_control.py): a handshake that ends before the login is
  answered counts against its host, a wrong password does not; a failed login of an account
  delays that account's next attempts (`_connection_control_delay`: this session sleeps, its
  connect_timeout deadline moved by the delay; nothing else waits).
- The connection past max_connections is kept for an account with SUPER or CONNECTION ADMIN
  (1040 for others).
- A logged-in session has its `account`, its `privileges` checker (None with ALL), and an
  engine session that shares its user variables and reads system variables and the
  processlist through it, with autocommit, isolation and CLIENT_FOUND_ROWS as the variables and
  the login say; a database named at login must be one the account may use and must exist
  (1049).
- COM_CHANGE_USER (`change_user`) is a login again on the logged-in connection, checked against
  the greeting's salt: the session starts again, then the login is checked; a failed one keeps
  the old account and database (answered a second late, 1047 after three), as MariaDB's.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from protocol.auth import verify_native_password
from protocol.charsets import unspoken_collation
from protocol.connection import NATIVE_PASSWORD_PLUGIN, ConnectionClosed, TlsRequest
from protocol.errors import (
    ER_ACCESS_DENIED_ERROR,
    ER_BAD_DB_ERROR,
    ER_CON_COUNT_ERROR,
    ER_NOT_SUPPORTED_AUTH_MODE,
    ER_SECURE_TRANSPORT_REQUIRED,
    ER_UNKNOWN_CHARACTER_SET,
    ER_UNKNOWN_COM_ERROR,
    RemoteProtocolError,
    SQLError,
)
from protocol.messages import ERR, OK, AuthSwitchResponse, Capability, ChangeUser, HandshakeResponse
from server.core_variables import apply_completion, apply_isolation
from server.privileges import Privileges
from server.tls import TlsChannel
from server.users import ALL, SUPER, Account
from server.variables import Scope

if TYPE_CHECKING:
    from server.session import ClientSession

log = logging.getLogger("semisync.server.session")

_MULTI = int(Capability.CLIENT_MULTI_STATEMENTS)
_CHANGE_USER_FAILED_DELAY = 1.0  # seconds a failed COM_CHANGE_USER waits before its answer


async def log_in(session: ClientSession) -> bool:
    conn = session.conn
    assert conn is not None
    server = session.server
    control = server.connection_control
    event = await session._next_event()
    if isinstance(event, TlsRequest):
        # SSLRequest: the rest of the login runs over TLS (the bytes that came with the
        # request are the start of the client's TLS handshake)
        assert server.tls_context is not None
        session.tls = TlsChannel(server.tls_context, server_side=True)
        plain = session._decrypt(event.unread) if event.unread else b""
        if plain:
            conn.receive_data(plain)
        event = await session._next_event()
    if isinstance(event, ConnectionClosed):
        return _handshake_closed(session)
    assert isinstance(event, HandshakeResponse)
    if conn.needs_auth_switch:
        session.write(conn.send(conn.auth_switch_request()))
        event = await session._next_event()
        if isinstance(event, ConnectionClosed):
            return _handshake_closed(session)
        assert isinstance(event, AuthSwitchResponse)
    login = conn.login
    assert login is not None
    await _connection_control_delay(session, login.user)
    account = server.users.match(login.user, session.host)
    general = server.query_logs.general
    if general is not None:  # mysqld's general log: the login as asked, before it is decided
        general.line(session.connection_id, "Connect", f"{login.user}@{session.host} on {login.database or ''} "
                     f"using {'SSL/TLS' if session.tls is not None else 'TCP/IP'}")
    if account is None or not conn.verify_password(account.password_hash):
        server.stats.aborted_connects += 1
        control.login_failed(login.user, session.host)
        using = "YES" if conn.auth_response else "NO"
        if general is not None:
            general.line(session.connection_id, "Connect", f"Access denied for user '{login.user}'@'{session.host}' "
                         f"(using password: {using})")
        session.write(conn.send(ERR.from_error(ER_ACCESS_DENIED_ERROR, login.user, session.host, using)))
        return False
    if session.tls is None and (
        account.require_ssl or server.variables.get("require_secure_transport", None, Scope.GLOBAL)
    ):
        # a REQUIRE SSL account in the clear is refused as a wrong password (mysqld's
        # acl_authenticate: 1045); require_secure_transport refuses every such login (3159)
        server.stats.aborted_connects += 1
        if account.require_ssl:
            error = ERR.from_error(ER_ACCESS_DENIED_ERROR, login.user, session.host, "YES" if conn.auth_response else "NO")
        else:
            error = ERR.from_error(ER_SECURE_TRANSPORT_REQUIRED)
        session.write(conn.send(error))
        return False
    control.login_succeeded(login.user, session.host)
    limit = server.variables.get("max_connections", None, Scope.GLOBAL)
    if len(server.sessions) > limit and not account.has(SUPER, "CONNECTION ADMIN"):
        # like mysqld: the connection past max_connections is kept for SUPER / CONNECTION ADMIN
        session.write(conn.send(ERR.from_error(ER_CON_COUNT_ERROR)))
        return False
    session.password_used = bool(conn.auth_response)
    _take_account(session, account, login.user)
    _open_engine_session(session)
    if login.database:
        try:
            _check_database(session, login.database)
        except SQLError as exc:
            session.write(conn.send(ERR(exc.error.code, exc.error.sqlstate, exc.message)))
            return False
        session.engine_session.database = login.database
    session._multi = bool(conn.capabilities & _MULTI)
    try:
        session.take_charset_number(login.charset)
    except SQLError as exc:
        session.write(conn.send(ERR(exc.error.code, exc.error.sqlstate, exc.message)))
        return False
    session.write(conn.send(OK(status=session.status_flags())))
    session.set_command("Sleep")
    session.state = None
    return True

def _take_account(session: ClientSession, account: Account, user: str) -> None:
    """The session logged in as `user` on `account`: its privilege checker."""
    session.account = account
    session._all_privileges = account.has(ALL)
    session.privileges = None if session._all_privileges else Privileges(session)
    session.user = user


def _open_engine_session(session: ClientSession) -> None:
    """A new engine session for the account: it shares the session's user variables and reads
    system variables and the processlist through it, autocommit and isolation as the variables
    say, CLIENT_FOUND_ROWS as the login asked."""
    server = session.server
    conn = session.conn
    assert conn is not None and conn.login is not None and session.account is not None
    engine_session = session.engine_session = server.engine.session(session.connection_id)
    engine_session.user_vars = session.user_vars  # one dict: SET @a here, @a in DML there
    engine_session.sysvar_reader = session.read_sysvar
    engine_session.sysvar_type = session.sysvar_type
    engine_session.uservar_type = session.uservar_column
    engine_session.user_text = f"{session.user}@{session.host}"
    engine_session.current_user_text = f"{session.account.user}@{session.account.host}"
    engine_session.live_reader = session.read_infoschema
    engine_session.creator_checks = session.creator_checks
    session.engine_charsets()
    session.engine_sql_mode()
    session.engine_auto_increment()
    # CLIENT_FOUND_ROWS (PyMySQL's default): UPDATE reports matched rather than changed rows.
    engine_session.found_rows = bool(conn.login.capabilities & Capability.CLIENT_FOUND_ROWS)
    if not server.variables.get("autocommit", None, Scope.GLOBAL):
        engine_session.autocommit = False
    apply_isolation(session)
    apply_completion(session)


def _check_database(session: ClientSession, database: str) -> None:
    """A database the account may use and that exists (SQLError: 1044, 1049)."""
    if session.privileges is not None:
        session.privileges.check_database(database)
    if not session.server.engine.has_database(database):
        raise SQLError(ER_BAD_DB_ERROR, database)


async def change_user(session: ClientSession, body: bytes) -> None:
    """COM_CHANGE_USER: log in again on this connection, as MariaDB's dispatch_command does it:
    the session starts again as a login's first (the transaction rolled back, user variables,
    prepared statements and session variables gone), then the login is checked: the auth
    response against the greeting's salt (mysql_native_password; another plugin is 1251 before
    anything changes: no auth switch inside a command here), the account, the database (1045,
    1044, 1049). A failed one leaves the session under its old account and database, and is
    answered a second late; after three, every COM_CHANGE_USER of the connection is 1047."""
    server = session.server
    conn = session.conn
    assert conn is not None
    try:
        request = ChangeUser.decode(body, conn.capabilities)
    except RemoteProtocolError as exc:
        session.send_error(SQLError(exc.error, message=str(exc)))
        return
    if request.auth_plugin_name not in (None, "", NATIVE_PASSWORD_PLUGIN):
        session.send_error(SQLError(ER_NOT_SUPPORTED_AUTH_MODE))
        return
    unspoken = None if request.charset is None else unspoken_collation(request.charset)
    if unspoken is not None:  # (take_charset_number's refusal, before the session is ended)
        session.send_error(SQLError(ER_UNKNOWN_CHARACTER_SET, unspoken))
        return
    before = (session.account, session._all_privileges, session.privileges, session.user)
    database = session.engine_session.database
    await session.start_again()
    account = server.users.match(request.user, session.host)
    failure: SQLError | None = None
    if session.failed_change_users >= 3:  # MariaDB's limit on guessing passwords this way
        failure = SQLError(ER_UNKNOWN_COM_ERROR)
    elif (account is None or not verify_native_password(conn.salt, request.auth_response, account.password_hash)
            or account.require_ssl and session.tls is None):
        failure = SQLError(ER_ACCESS_DENIED_ERROR, request.user, session.host,
                           "YES" if request.auth_response else "NO")
    else:
        _take_account(session, account, request.user)
        try:
            if request.database:
                _check_database(session, request.database)
        except SQLError as exc:
            failure = exc
            session.account, session._all_privileges, session.privileges, session.user = before
    if failure is None:
        session.password_used = bool(request.auth_response)
        database = request.database or None
    _open_engine_session(session)
    session.engine_session.database = database
    if request.charset is not None:  # (else the login's, from start_again)
        session.take_charset_number(request.charset)
    if failure is not None:
        session.failed_change_users += 1
        await asyncio.sleep(_CHANGE_USER_FAILED_DELAY)  # (as MariaDB's: a second per failure)
        session.send_error(failure)
    else:
        session.send_result(OK(status=session.status_flags()))


def _handshake_closed(session: ClientSession) -> bool:
    """The client closed before its login was answered: an aborted connect, counted against its
    host (max_connect_errors). False: no login."""
    session.server.stats.aborted_connects += 1
    session.server.connection_control.handshake_failed(session.host)
    return False


async def _connection_control_delay(session: ClientSession, user: str) -> None:
    """MySQL's connection_control: after repeated failed logins of 'user'@'host', wait before
    answering (this session only; the wait is added to the connect_timeout deadline)."""
    g = session.server.variables.get
    delay = session.server.connection_control.login_delay(
        user, session.host,
        g("connection_control_failed_connections_threshold", None, Scope.GLOBAL),
        g("connection_control_min_connection_delay", None, Scope.GLOBAL),
        g("connection_control_max_connection_delay", None, Scope.GLOBAL),
    )
    if delay:
        deadline = session._login_timeout.when() if session._login_timeout is not None else None
        if deadline is not None:
            session._login_timeout.reschedule(deadline + delay)  # type: ignore[union-attr]
        log.info("session %d (%s): login of %r delayed %.3f s after failed logins",
                 session.connection_id, session.peer, user[:128], delay)
        await asyncio.sleep(delay)
