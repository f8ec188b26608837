"""The server's own system and status variables (those of mysqld that clients and dashboards
read), registered on a `Server` at construction. A role or a plugin may replace any of them
(e.g. the master's `log_bin` ON) by adding a variable of the same name afterwards.
"""

from __future__ import annotations

import resource
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from engine.catalog import COLLATION_CHARSETS, SERVER_COLLATION, default_collation
from engine.connections import PAGE_CACHE_BYTES, PAGE_SIZE
from engine.infoschema import COLLATIONS
from engine.results import UNFOLLOWED_SQL_MODES
from engine.session import READ_COMMITTED, REPEATABLE_READ
from protocol.charsets import charset_named, collation_charset
from protocol.errors import (
    ER_INCORRECT_GLOBAL_LOCAL_VAR,
    ER_NOT_SUPPORTED_YET,
    ER_UNKNOWN_CHARACTER_SET,
    ER_UNKNOWN_COLLATION,
    ER_UNKNOWN_LOCALE,
    ER_WARN_CANT_DROP_DEFAULT_KEYCACHE,
    WARN_OPTION_BELOW_LIMIT,
    SQLError,
)
from protocol.events import SQL_MODES
from server.connection_control import (
    DEFAULT_FAILED_CONNECTIONS_THRESHOLD,
    DEFAULT_MIN_CONNECTION_DELAY_MS,
    MAX_CONNECTION_DELAY_MS,
)
from server.prepared import PreparedStatements
from server.variables import (
    Bounds,
    Diagnostic,
    Scope,
    SystemVariable,
    check_bool,
    check_double,
    check_enum,
    check_int,
    check_str,
    display,
)

if TYPE_CHECKING:
    from server.listener import Server
    from server.session import ClientSession

G, S, B = Scope.GLOBAL, Scope.SESSION, Scope.BOTH
_BINLOG_FORMATS = check_enum("MIXED", "STATEMENT", "ROW")


def check_binlog_format(value: Any) -> str:
    """binlog_format, as SET takes it: the binlog holds statements only (`master.events`), so
    STATEMENT is what it writes and what a session (pt-table-checksum's) may ask for; ROW, and
    MIXED (rows for a statement unsafe as one), it cannot honour: 1235, never a setting that
    says otherwise than what is logged. A value of no format is 1231, as MariaDB's."""
    chosen = _BINLOG_FORMATS(value)
    if chosen != "STATEMENT":
        raise SQLError(ER_NOT_SUPPORTED_YET, f"binlog_format {chosen}")
    return chosen
ISOLATION = ("READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE")
SQL_MODE = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"
_ULONG = 2**32 - 1


def _autocommit_get(session: ClientSession) -> bool:
    es = session.engine_session
    return bool(es.autocommit) if es is not None else True


def _autocommit_set(session: ClientSession, value: Any) -> None:
    es = session.engine_session
    if es is not None:
        es.autocommit = bool(value)


def _timestamp_set(session: ClientSession, value: Any) -> None:
    """SET timestamp = n fixes the session's NOW() (and the binlog's time of its statements);
    0 or DEFAULT gives the clock back (MariaDB's)."""
    session.sysvars["timestamp"] = value or None
    es = session.engine_session
    if es is not None:
        es.fixed_time = int(value) if value else None
        es.fixed_micros = int(Decimal(str(value)) % 1 * 1_000_000) if value else 0  # NOW(6)'s fraction


def _fk_checks_get(session: ClientSession) -> bool:
    es = session.engine_session
    return bool(es.foreign_key_checks) if es is not None else True


def _fk_checks_set(session: ClientSession, value: Any) -> None:
    es = session.engine_session
    if es is not None:
        es.foreign_key_checks = bool(value)


def _collation_database_get(session: ClientSession) -> str:
    """@@collation_database: the engine session's (its default database's, or as SET)."""
    es = session.engine_session
    return es.collation_database if es is not None else SERVER_COLLATION


def _collation_database_set(session: ClientSession, value: Any) -> None:
    es = session.engine_session
    if es is not None:
        es.collation_database = value


def _charset_database_get(session: ClientSession) -> str:
    collation = _collation_database_get(session)
    return COLLATION_CHARSETS.get(collation) or collation.split("_", 1)[0]


def _charset_database_set(session: ClientSession, value: Any) -> None:
    _collation_database_set(session, default_collation(value))


def _session_only(name: str) -> Callable[[Any], None]:
    """on_set of a global value MariaDB never sets (1238)."""
    def refuse(value: Any) -> None:
        raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, name, "SESSION")

    return refuse


def _engine_flag(attr: str) -> dict[str, Any]:
    """session_get / session_set of a session flag the engine session keeps (ON without one)."""
    def get(session: ClientSession) -> bool:
        es = session.engine_session
        return bool(getattr(es, attr)) if es is not None else True

    def set_(session: ClientSession, value: Any) -> None:
        if session.engine_session is not None:
            setattr(session.engine_session, attr, bool(value))

    return {"session_get": get, "session_set": set_}


def _isolation_set(session: ClientSession, value: Any) -> None:
    """transaction_isolation / tx_isolation (one setting, two names) -> the engine session.
    The engine has two levels: REPEATABLE-READ (a snapshot per transaction) and READ-COMMITTED
    (the newest committed data per statement); SERIALIZABLE runs as REPEATABLE-READ (writers are
    serialized by the engine's single writer anyway), READ-UNCOMMITTED as READ-COMMITTED."""
    session.sysvars["transaction_isolation"] = session.sysvars["tx_isolation"] = value
    apply_isolation(session)


def apply_isolation(session: ClientSession, level: str | None = None) -> None:
    """The engine session's level: `level` (SET TRANSACTION without a scope: the next
    transaction's), or the session's transaction_isolation (REPEATABLE-READ by default)."""
    es = session.engine_session
    if es is not None:
        level = level or session.sysvars.get("transaction_isolation", REPEATABLE_READ)
        es.isolation = REPEATABLE_READ if level in ("REPEATABLE-READ", "SERIALIZABLE") else READ_COMMITTED


def _isolation() -> list[SystemVariable]:
    """transaction_isolation and tx_isolation, one setting in two names (MariaDB 10.11 has
    tx_isolation only; 11.1 adds the other as its alias): a SET of either, global or session,
    changes both, so a session started after SET GLOBAL tx_isolation takes that level.
    REPEATABLE-READ by default, InnoDB's (a transaction's reads see one snapshot, taken at
    its first read)."""
    check = check_enum(*ISOLATION)
    level = SystemVariable("transaction_isolation", REPEATABLE_READ, B, dynamic=True, check=check,
                           session_set=_isolation_set)

    def set_level(value: str) -> None:
        level.value = value

    alias = SystemVariable("tx_isolation", None, B, dynamic=True, check=check, session_set=_isolation_set,
                           getter=lambda: level.value, on_set=set_level, default=REPEATABLE_READ)
    return [level, alias]


def _last_insert_id(session: ClientSession) -> int:
    es = session.engine_session
    return int(getattr(es, "last_insert_id", 0) or 0) if es is not None else 0


def _session_server_id(session: ClientSession) -> int:
    value = session.sysvars.get("server_id")
    return int(value) if value is not None else session.server.variables.get("server_id", None, G)


def _set_session_server_id(session: ClientSession, value: Any) -> None:
    session.sysvars["server_id"] = value


def _set_select_limit(session: ClientSession, value: Any) -> None:
    session.sysvars["sql_select_limit"] = value
    session.take_select_limit()


def _set_read_only(server: Server, value: bool) -> None:
    """SET GLOBAL read_only: the role's guard (client writes refused with 1290) on or off."""
    try:
        server.role.read_only = value
    except AttributeError:
        raise SQLError(ER_INCORRECT_GLOBAL_LOCAL_VAR, "read_only", "read only") from None


def _packet_below_buffer(server: Server, packet: int | None, buffer: int | None) -> list[Diagnostic]:
    """1708 when SET GLOBAL leaves max_allowed_packet below net_buffer_length (MariaDB's
    check_max_allowed_packet / check_net_buffer_length), the one set given, the other read."""
    if packet is None:
        packet = server.variables.get("max_allowed_packet", None, G)
    if buffer is None:
        buffer = server.variables.get("net_buffer_length", None, G)
    if packet >= buffer:
        return []
    return [("Warning", WARN_OPTION_BELOW_LIMIT.code,
             WARN_OPTION_BELOW_LIMIT.format("max_allowed_packet", "net_buffer_length"))]


def _charset_names(value: Any) -> str:
    return check_str(value).lower()


def _client_charset(value: Any, variable: str = "character_set_client") -> str:
    """character_set_client / _results: one of the character sets a connection's text is
    converted for (protocol.charsets: 1115 for another, as MariaDB's for an unknown one), by name
    or by a collation's number (mariadb-binlog's SET @@session.character_set_client=N)."""
    if isinstance(value, int) and not isinstance(value, bool):
        found = collation_charset(value)
        if found is None:
            raise SQLError(ER_UNKNOWN_CHARACTER_SET, value)
        return found[0].name
    return charset_named(check_str(value), variable).name


def _set_sql_mode(session: ClientSession, value: Any) -> None:
    session.sysvars["sql_mode"] = value
    session.engine_sql_mode()


def _set_auto_increment(name: str) -> Callable[[ClientSession, Any], None]:
    def set_session(session: ClientSession, value: Any) -> None:
        session.sysvars[name] = value
        session.engine_auto_increment()
    return set_session


def _set_connection_charset(name: str) -> Callable[[ClientSession, Any], None]:
    def set_session(session: ClientSession, value: Any) -> None:
        session.sysvars[name] = value
        if name == "character_set_results":
            session.results_collation = None  # its default collation, as MariaDB's
        session.charsets_changed()
    return set_session


# collation ids (what mariadb-binlog's SET @@session.collation_connection=N writes) -> names
_COLLATION_IDS = {number: name for name, _charset, number, *_rest in COLLATIONS}


def _collation_names(value: Any) -> str:
    """A collation by name or by its id (MariaDB's numbers; an unknown id is 1273)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _COLLATION_IDS:
            raise SQLError(ER_UNKNOWN_COLLATION, value)
        return _COLLATION_IDS[value]
    return _charset_names(value)


def _lc_time_names(value: Any) -> str:
    """lc_time_names: en_US only (by name or as locale 0, mariadb-binlog's form): the engine
    names months and days in English; another locale is refused (1649), never shown wrong."""
    if isinstance(value, (float, Decimal)):
        raise TypeError(value)  # (1232, as MariaDB's)
    if value == 0 or (isinstance(value, str) and value.lower() == "en_us"):
        return "en_US"
    raise SQLError(ER_UNKNOWN_LOCALE, display(value))


COMPLETION_TYPES = ("NO_CHAIN", "CHAIN", "RELEASE")


def _completion_set(session: ClientSession, value: Any) -> None:
    """completion_type -> the engine session: what a COMMIT / ROLLBACK without AND [NO] CHAIN
    or [NO] RELEASE is followed by."""
    session.sysvars["completion_type"] = value
    apply_completion(session)


def apply_completion(session: ClientSession) -> None:
    if session.engine_session is not None:
        session.engine_session.completion = COMPLETION_TYPES.index(session.sysvars.get("completion_type", "NO_CHAIN"))


def host_name() -> str:
    """@@hostname, which names the query logs' default files."""
    try:
        return socket.gethostname()
    except OSError:
        return "localhost"


def register(server: Server) -> None:
    v = server.variables
    hostname = host_name()
    tz = time.strftime("%Z") or "UTC"
    v.add(
        # a session's own value numbers its GTIDs and marks its events (mariadb-binlog's SET)
        SystemVariable("server_id", server.server_id, B, dynamic=True, check=check_int(1, _ULONG),
                       session_get=_session_server_id, session_set=_set_session_server_id),
        SystemVariable("port", getter=lambda: server.port),
        SystemVariable("bind_address", server.bind_address),
        SystemVariable("hostname", hostname),
        SystemVariable("datadir", str(server.datadir) + "/"),
        SystemVariable("version", server.server_version.removeprefix("5.5.5-")),
        SystemVariable("version_comment", "semisync (MySQL-style semi-synchronous replication)"),
        SystemVariable("version_compile_os", "debian-linux-gnu"),
        SystemVariable("version_compile_machine", "x86_64"),
        SystemVariable("protocol_version", 10),
        SystemVariable("license", "Apache-2.0"),
        SystemVariable("have_ssl", "YES" if server.tls_files is not None else "DISABLED"),
        SystemVariable("have_openssl", "YES" if server.tls_files is not None else "NO"),
        SystemVariable("ssl_cert", _path_text(server, "cert")),
        SystemVariable("ssl_key", _path_text(server, "key")),
        SystemVariable("ssl_ca", _path_text(server, "ca")),
        SystemVariable("version_ssl_library", ssl.OPENSSL_VERSION),
        SystemVariable("require_secure_transport", server.require_secure_transport, G, dynamic=True,
                       check=check_bool),
        SystemVariable("secure_file_priv", server.file_access.variable),  # (read-only: set at start)
        SystemVariable("local_infile", True, G, dynamic=True, check=check_bool),  # (OFF: LOAD DATA LOCAL is 4166)
        SystemVariable("socket", ""),
        SystemVariable("autocommit", True, B, dynamic=True, check=check_bool,
                       session_get=_autocommit_get, session_set=_autocommit_set),
        # a session's value is the global one at its start; SET SESSION is 1621, as MariaDB's
        SystemVariable("max_allowed_packet", server.max_allowed_packet, B, dynamic=True,
                       check=check_int(1024, 1 << 30, 1024), default=16 << 20, session_read_only=True,
                       advise=lambda value: _packet_below_buffer(server, value, None)),
        SystemVariable("net_buffer_length", 16384, B, dynamic=True, check=check_int(1024, 1 << 20, 1024),
                       session_read_only=True, advise=lambda value: _packet_below_buffer(server, None, value)),
        # the three a connection's text is converted and read by (ClientSession.charsets_changed)
        SystemVariable("character_set_client", "utf8mb4", B, dynamic=True, check=_client_charset,
                       session_set=_set_connection_charset("character_set_client")),
        SystemVariable("character_set_connection", "utf8mb4", B, dynamic=True, check=_charset_names,
                       session_set=_set_connection_charset("character_set_connection")),
        SystemVariable("character_set_results", "utf8mb4", B, dynamic=True,
                       check=lambda x: None if x is None else _client_charset(x, "character_set_results"),
                       session_set=_set_connection_charset("character_set_results")),
        SystemVariable("character_set_server", "utf8mb4", B, dynamic=True, check=_charset_names),
        # the default database's (`_collation_database_get`)
        SystemVariable("character_set_database", "utf8mb4", B, dynamic=True, check=_charset_names,
                       session_get=_charset_database_get,
                       session_set=_charset_database_set),
        SystemVariable("character_set_system", "utf8mb3"),
        SystemVariable("character_set_filesystem", "binary", B, dynamic=True, check=_charset_names),
        SystemVariable("collation_connection", "utf8mb4_general_ci", B, dynamic=True, check=_collation_names),
        SystemVariable("collation_server", "utf8mb4_general_ci", B, dynamic=True, check=_collation_names),
        SystemVariable("collation_database", "utf8mb4_general_ci", B, dynamic=True, check=_collation_names,
                       session_get=_collation_database_get, session_set=_collation_database_set),
        SystemVariable("sql_mode", SQL_MODE, B, dynamic=True, check=check_served_sql_mode,
                       session_set=_set_sql_mode),
        SystemVariable("time_zone", "SYSTEM", B, dynamic=True, check=check_str),
        SystemVariable("system_time_zone", tz),
        SystemVariable("timestamp", None, S, dynamic=True,
                       session_get=lambda s: s.sysvars.get("timestamp") or round(time.time(), 6),
                       check=check_double(0.0, 2147483647.0), session_set=_timestamp_set),
        SystemVariable("lower_case_table_names", 0),
        SystemVariable("lower_case_file_system", False),  # table names are case-sensitive here
        *_isolation(),
        SystemVariable("transaction_read_only", False, B, dynamic=True, check=check_bool),
        SystemVariable("tx_read_only", False, B, dynamic=True, check=check_bool),
        SystemVariable("wait_timeout", 28800, B, dynamic=True, check=check_int(1, 31536000)),
        SystemVariable("interactive_timeout", 28800, B, dynamic=True, check=check_int(1, 31536000)),
        SystemVariable("net_write_timeout", 60, B, dynamic=True, check=check_int(1, 31536000)),
        SystemVariable("net_read_timeout", 30, B, dynamic=True, check=check_int(1, 31536000)),
        SystemVariable("connect_timeout", 10, G, dynamic=True, check=check_int(2, 31536000)),
        SystemVariable("lock_wait_timeout", 86400, B, dynamic=True, check=check_int(0, 31536000)),
        SystemVariable("innodb_lock_wait_timeout", 50, B, dynamic=True, check=check_int(0, 100000000)),
        SystemVariable("read_only", dynamic=True, check=check_bool, getter=lambda: server.role.read_only,
                       on_set=lambda value: _set_read_only(server, value)),
        SystemVariable("log_bin", False),
        # a client's CREATE FUNCTION / TRIGGER with the binlog on (1418 / 1419): engine.ddl, server/privileges.py
        SystemVariable("log_bin_trust_function_creators", False, G, dynamic=True, check=check_bool),
        # CREATE PROCEDURE / FUNCTION grants its account EXECUTE, ALTER ROUTINE on it, DROP takes
        # every account's grants on it (server/routines.py)
        SystemVariable("automatic_sp_privileges", True, G, dynamic=True, check=check_bool),
        # MariaDB's GTID state, asked for by its clients (mariadb-dump --master-data, replicas):
        # this server writes no GTIDs, so every position is empty.
        SystemVariable("gtid_binlog_pos", "", G),
        SystemVariable("gtid_current_pos", "", G),
        SystemVariable("gtid_slave_pos", "", G),
        SystemVariable("gtid_domain_id", 0, G),
        SystemVariable("gtid_strict_mode", False, G),
        # a session variable that @@global still reads (ON), as MariaDB's
        SystemVariable("sql_log_bin", True, B, dynamic=True, check=check_bool, on_set=_session_only("sql_log_bin"),
                       **_engine_flag("sql_log_bin")),
        SystemVariable("binlog_format", "STATEMENT", B, dynamic=True, check=check_binlog_format),
        SystemVariable("binlog_checksum", "NONE"),
        SystemVariable("gtid_mode", "OFF"),
        SystemVariable("enforce_gtid_consistency", "OFF"),
        SystemVariable("gtid_domain_id", 0),
        SystemVariable("gtid_strict_mode", False),
        SystemVariable("server_uuid", _server_uuid(server)),
        SystemVariable("max_connections", 151, G, dynamic=True, check=check_int(10, 100000)),
        SystemVariable("max_connect_errors", server.max_connect_errors, G, dynamic=True,
                       check=check_int(1, 4294967295)),
        # server/prepared.py: statements prepared at once, all sessions together (MariaDB's default)
        SystemVariable("max_prepared_stmt_count", 16382, G, dynamic=True, check=check_int(0, 4294967295)),
        # MySQL's connection_control plugin (server/connection_control.py)
        SystemVariable("connection_control_failed_connections_threshold", DEFAULT_FAILED_CONNECTIONS_THRESHOLD,
                       G, dynamic=True, check=check_int(0, MAX_CONNECTION_DELAY_MS)),
        SystemVariable("connection_control_min_connection_delay", DEFAULT_MIN_CONNECTION_DELAY_MS, G,
                       dynamic=True, check=check_int(DEFAULT_MIN_CONNECTION_DELAY_MS, MAX_CONNECTION_DELAY_MS)),
        SystemVariable("connection_control_max_connection_delay", MAX_CONNECTION_DELAY_MS, G,
                       dynamic=True, check=check_int(DEFAULT_MIN_CONNECTION_DELAY_MS, MAX_CONNECTION_DELAY_MS)),
        SystemVariable("thread_handling", "one-thread-per-connection"),
        SystemVariable("init_connect", "", G, dynamic=True, check=check_str),
        SystemVariable("have_query_cache", "YES"),
        SystemVariable("performance_schema", False),
        SystemVariable("default_storage_engine", "InnoDB", B, dynamic=True, check=check_str),
        SystemVariable("storage_engine", "InnoDB", B, dynamic=True, check=check_str,
                       deprecated="default_storage_engine"),
        SystemVariable("auto_increment_increment", 1, B, dynamic=True, check=check_int(1, 65535),
                       session_set=_set_auto_increment("auto_increment_increment")),
        SystemVariable("auto_increment_offset", 1, B, dynamic=True, check=check_int(1, 65535),
                       session_set=_set_auto_increment("auto_increment_offset")),
        # the rows of a top-level SELECT without LIMIT (ClientSession._limited)
        SystemVariable("sql_select_limit", 2**64 - 1, B, dynamic=True, check=check_int(0, 2**64 - 1),
                       session_set=_set_select_limit),
        SystemVariable("sql_auto_is_null", False, B, dynamic=True, check=check_bool),
        SystemVariable("sql_safe_updates", False, B, dynamic=True, check=check_bool),
        SystemVariable("foreign_key_checks", True, B, dynamic=True, check=check_bool,
                       session_get=_fk_checks_get, session_set=_fk_checks_set),
        SystemVariable("unique_checks", True, B, dynamic=True, check=check_bool),
        SystemVariable("big_tables", False, B, dynamic=True, check=check_bool, deprecated=True),
        SystemVariable("sql_notes", True, B, dynamic=True, check=check_bool),
        SystemVariable("sql_quote_show_create", True, B, dynamic=True, check=check_bool),
        SystemVariable("group_concat_max_len", 1048576, B, dynamic=True, check=check_int(4, 1 << 30)),
        SystemVariable("max_execution_time", 0, B, dynamic=True, check=check_int(0, _ULONG)),
        # seconds, 0 = no limit; ClientSession.run_statement enforces it (1969)
        SystemVariable("max_statement_time", 0.0, B, dynamic=True, check=check_double(0.0, 31536000.0)),
        SystemVariable("session_track_schema", True, B, dynamic=True, check=check_bool),
        SystemVariable("last_insert_id", 0, S, dynamic=True, check=check_int(0, 2**64 - 1),
                       session_get=_last_insert_id),
        SystemVariable("identity", 0, S, dynamic=True, check=check_int(0, 2**64 - 1),
                       session_get=_last_insert_id),
        SystemVariable("insert_id", 0, S, dynamic=True, check=check_int(0, 2**64 - 1)),
        SystemVariable("pseudo_thread_id", 0, S, dynamic=True, check=check_int(0, _ULONG),
                       session_get=lambda s: s.sysvars.get("pseudo_thread_id") or s.connection_id),
        SystemVariable("warning_count", 0, S, session_get=lambda s: len(s.diagnostics)),
        SystemVariable("error_count", 0, S,
                       session_get=lambda s: sum(1 for d in s.diagnostics if d[0] == "Error")),
        # MariaDB's: 1 while the session is inside a transaction (read only)
        SystemVariable("in_transaction", 0, S, session_get=lambda s: int(
            s.engine_session is not None and s.engine_session.in_transaction)),
        SystemVariable("slave_net_timeout", 60, G, dynamic=True, check=check_int(1, 31536000)),
        # what mariadb-binlog's output sets before its events (`mariadb-binlog FILE | mariadb`):
        # accepted with MariaDB's checks; the engine has no behaviour they would change
        SystemVariable("pseudo_slave_mode", False, S, dynamic=True, check=check_bool),
        SystemVariable("skip_parallel_replication", False, S, dynamic=True, check=check_bool),
        SystemVariable("max_delayed_threads", 20, B, dynamic=True, check=check_int(0, 16384)),
        SystemVariable("completion_type", "NO_CHAIN", B, dynamic=True, check=check_enum(*COMPLETION_TYPES),
                       session_set=_completion_set),
        SystemVariable("check_constraint_checks", True, B, dynamic=True, check=check_bool),
        SystemVariable("sql_if_exists", False, B, dynamic=True, check=check_bool),
        SystemVariable("explicit_defaults_for_timestamp", True, B, dynamic=True, check=check_bool),
        SystemVariable("system_versioning_insert_history", False, B, dynamic=True, check=check_bool),
        SystemVariable("lc_time_names", "en_US", B, dynamic=True, check=_lc_time_names),
        *_storage_variables(server),
        *_query_log_variables(server),
        *_tuning_variables(),
    )
    v.add_status(lambda: core_status(server))


_LOG_SETTINGS = ("slow_query_log", "slow_query_log_file", "general_log", "general_log_file", "log_output")


def _query_log_variables(server: Server) -> list[SystemVariable]:
    """The slow and general query logs' variables (server/query_logs.py): setting one opens or
    closes the files as all of them now say. The session's long_query_time is kept on the
    session too (`ClientSession.slow_after`), what the end of each statement compares with."""
    logs = server.query_logs

    def reconfigure(name: str) -> Callable[[Any], None]:
        def on_set(value: Any) -> None:
            now = {n: server.variables.get(n, None, Scope.GLOBAL) for n in _LOG_SETTINGS}
            now[name] = value
            logs.configure(slow_on=now["slow_query_log"], slow_file=now["slow_query_log_file"],
                           general_on=now["general_log"], general_file=now["general_log_file"],
                           to_file="FILE" in now["log_output"].split(","))
        return on_set

    def log_file(value: Any) -> str:
        # mysqld's check: the file's directory must exist (1231), and the name is not a directory
        name = check_str(value)
        path = logs.path(name)
        if not name or path.is_dir() or not path.parent.is_dir():
            raise ValueError(name)
        return name

    def set_long_query_time(session: ClientSession, value: Any) -> None:
        session.sysvars["long_query_time"] = session.slow_after = value

    return [
        SystemVariable("slow_query_log", False, B, dynamic=True, check=check_bool, on_set=reconfigure("slow_query_log")),
        SystemVariable("slow_query_log_file", logs.default_slow_file, G, dynamic=True, check=log_file,
                       on_set=reconfigure("slow_query_log_file")),
        SystemVariable("general_log", False, G, dynamic=True, check=check_bool, on_set=reconfigure("general_log")),
        SystemVariable("general_log_file", logs.default_general_file, G, dynamic=True, check=log_file,
                       on_set=reconfigure("general_log_file")),
        SystemVariable("log_output", "FILE", G, dynamic=True, check=_log_output, on_set=reconfigure("log_output")),
        SystemVariable("long_query_time", 10.0, B, dynamic=True, check=check_double(0.0, 31536000.0),
                       session_set=set_long_query_time),
        # what the engine cannot tell (whether a plan used an index, how many rows it read):
        # only the value under which MariaDB logs as this server does
        SystemVariable("log_queries_not_using_indexes", False, B, dynamic=True,
                       check=_only_off("log_queries_not_using_indexes")),
        SystemVariable("min_examined_row_limit", 0, B, dynamic=True, check=_only_zero("min_examined_row_limit")),
        SystemVariable("log_slow_admin_statements", True, B, dynamic=True, check=check_bool),
        # ON: this session's statements stay out of the general log (`ClientSession.general_log`)
        SystemVariable("sql_log_off", False, B, dynamic=True, check=check_bool),
        # MariaDB's user statistics (TABLE_ / INDEX_ / USER_ / CLIENT_STATISTICS): never collected here
        SystemVariable("userstat", False, G, dynamic=True, check=_only_off("userstat")),
        # pre-4.1 password hashes (mysql_old_password): no login here checks them
        SystemVariable("old_passwords", False, B, dynamic=True, check=_only_off("old_passwords")),
    ]


def _log_output(value: Any) -> str:
    """log_output: FILE, NONE, or a list of them; TABLE (mysql.slow_log, mysql.general_log) is
    not kept here: 1235. An unknown or empty name is 1231, as MariaDB's set."""
    names = {item.strip().upper() for item in check_str(value).split(",")}
    if not names or not names <= {"FILE", "TABLE", "NONE"} or "" in names:
        raise ValueError(value)
    if "TABLE" in names:
        raise SQLError(ER_NOT_SUPPORTED_YET, "log_output=TABLE")
    return ",".join(name for name in ("NONE", "FILE") if name in names)


def _only_off(name: str) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if check_bool(value):
            raise SQLError(ER_NOT_SUPPORTED_YET, f"{name}=ON")
        return False
    return check


def _only_zero(name: str) -> Callable[[Any], int]:
    within = check_int(0, 2**64 - 1)

    def check(value: Any) -> int:
        if within(value):
            raise SQLError(ER_NOT_SUPPORTED_YET, f"{name} above 0")
        return 0
    return check


def _storage_variables(server: Server) -> list[SystemVariable]:
    """InnoDB's variables that monitoring tools read (mysqld_exporter, pt-mysql-summary,
    pt-variable-advisor), read only: the engine's own value where it has one (its page cache,
    page size, fsync at commit), else MariaDB 10.11's default where it is what the engine does
    too (one file per database rather than per table, but never a shared system tablespace);
    a SET is refused (1238), as the engine follows none of them."""
    synchronous = getattr(server.engine, "synchronous", "FULL")
    return [
        SystemVariable("innodb_buffer_pool_size", PAGE_CACHE_BYTES),
        SystemVariable("innodb_page_size", PAGE_SIZE),
        # FULL: every commit fsynced (1); NORMAL: written at commit, fsynced later (2)
        SystemVariable("innodb_flush_log_at_trx_commit", 1 if synchronous == "FULL" else 2),
        SystemVariable("innodb_file_per_table", True),
        SystemVariable("innodb_default_row_format", "dynamic"),
        SystemVariable("innodb_stats_on_metadata", False),
        SystemVariable("innodb_autoinc_lock_mode", 1),
    ]


_ULONGLONG = 2**64 - 1


def _tuning_variables() -> list[SystemVariable]:
    """mysqld's buffer, cache and thread sizes that a DBA's my.cnf and SET carry and monitoring
    scripts read (mysqld_exporter, pt-mysql-summary, pt-variable-advisor, mysqltuner): MariaDB
    10.11's value, range, block size, scope and dynamism each (its SHOW VARIABLES, SELECT @@
    and SET answers, clamping warnings included), and no effect here: the engine sizes none
    of these buffers and keeps no query cache (Qcache_* stay 0), key cache, thread cache or
    table cache. The read-only ones show the value a stock MariaDB 10.11 starts with."""
    def sized(name: str, value: int, low: int, high: int = _ULONGLONG, block: int = 1,
              scope: Scope = B) -> SystemVariable:
        return SystemVariable(name, value, scope, dynamic=True, check=check_int(low, high, block))

    def switch(name: str, value: bool, scope: Scope = B) -> SystemVariable:
        return SystemVariable(name, value, scope, dynamic=True, check=check_bool)

    return [
        # per-session buffers (sorting, joins, scans, in-memory temporary tables)
        sized("sort_buffer_size", 2097152, 1024),
        sized("join_buffer_size", 262144, 128, block=128),
        sized("read_buffer_size", 131072, 8192, 2147483647, 4096),
        sized("read_rnd_buffer_size", 262144, 1, 2147483647),
        sized("tmp_table_size", 16777216, 0, block=16384),
        sized("max_heap_table_size", 16777216, 16384, block=1024),
        sized("bulk_insert_buffer_size", 8388608, 0),
        sized("max_sort_length", 1024, 64, 8388608),
        sized("max_length_for_sort_data", 1024, 4, 8388608),
        sized("max_tmp_tables", 32, 1, _ULONG),
        sized("optimizer_search_depth", 62, 0, 62),
        sized("optimizer_prune_level", 2, 0, 2),
        # (not without effect: only its default is taken, `_divisions_at_four`)
        SystemVariable("div_precision_increment", 4, B, dynamic=True, check=_Refusing(0, 38, refusal=_divisions_at_four)),
        sized("log_warnings", 2, 0, _ULONG),
        switch("low_priority_updates", False),
        # the binlog's transaction caches: a transaction's statements are held in memory here
        sized("binlog_cache_size", 32768, 4096, block=4096, scope=G),
        sized("binlog_stmt_cache_size", 32768, 4096, block=4096, scope=G),
        sized("max_binlog_cache_size", _ULONGLONG - 4095, 4096, block=4096, scope=G),
        sized("max_binlog_stmt_cache_size", _ULONGLONG - 4095, 4096, block=4096, scope=G),
        # caches of threads, tables, table definitions, MyISAM keys and the query cache
        SystemVariable("thread_cache_size", 200, G, dynamic=True, check=check_int(0, 16384), default=256),
        sized("table_open_cache", 2000, 10, 1048576, scope=G),
        sized("table_definition_cache", 400, 400, 2097152, scope=G),
        SystemVariable("key_buffer_size", 134217728, G, dynamic=True, check=_Refusing(0, _ULONGLONG, 4096, refusal=_no_default_keycache)),
        sized("key_cache_block_size", 1024, 512, 16384, 512, scope=G),
        sized("myisam_sort_buffer_size", 134216704, 4096, 1152921504606846975),
        SystemVariable("query_cache_type", "OFF", B, dynamic=True, check=check_enum("OFF", "ON", "DEMAND")),
        sized("query_cache_size", 1048576, 0, block=1024, scope=G),
        sized("query_cache_limit", 1048576, 0, _ULONG, scope=G),
        sized("query_cache_min_res_unit", 4096, 0, _ULONG, 8, scope=G),
        switch("query_cache_wlock_invalidate", False),
        switch("query_cache_strip_comments", False),
        SystemVariable("concurrent_insert", "AUTO", G, dynamic=True, check=check_enum("NEVER", "AUTO", "ALWAYS")),
        SystemVariable("delay_key_write", "ON", G, dynamic=True, check=check_enum("OFF", "ON", "ALL")),
        sized("slow_launch_time", 2, 0, 31536000, scope=G),
        *_binlog_expiry(),
        # InnoDB's I/O and buffer tuning (the engine's pages: `_storage_variables`)
        sized("innodb_log_file_size", 100663296, 4194304, block=4096, scope=G),
        sized("innodb_io_capacity", 200, 100, _ULONG, scope=G),
        sized("innodb_io_capacity_max", 2000, 100, _ULONG, scope=G),
        sized("innodb_read_io_threads", 4, 1, 64, scope=G),
        sized("innodb_write_io_threads", 4, 2, 64, scope=G),
        sized("innodb_purge_threads", 4, 1, 32, scope=G),
        SystemVariable("innodb_max_dirty_pages_pct", 90.0, G, dynamic=True, check=check_double(0.0, 99.999)),
        switch("innodb_adaptive_hash_index", False, G),
        switch("innodb_stats_persistent", True, G),
        switch("innodb_strict_mode", True),
        # read only: fixed at MariaDB's start
        SystemVariable("thread_stack", 299008),
        SystemVariable("open_files_limit", _open_files_limit()),
        SystemVariable("innodb_log_buffer_size", 16777216),
        SystemVariable("innodb_flush_method", "O_DIRECT"),
        SystemVariable("innodb_doublewrite", True),
        SystemVariable("innodb_open_files", 2000),
        SystemVariable("aria_pagecache_buffer_size", 134217728),
    ]


@dataclass(frozen=True, slots=True)
class _Refusing(Bounds):
    """A `Bounds` whose value, once fitted (and warned of), may still be refused: `refusal`
    gives the SQLError for a value SET may not store, else None."""

    refusal: Callable[[int], SQLError | None] = lambda value: None

    def fitted(self, name: str, value: Any, warnings: list[Diagnostic], strict: bool) -> Any:
        fitted = Bounds.fitted(self, name, value, warnings, strict)
        refused = self.refusal(fitted)
        if refused is not None:
            raise refused
        return fitted


def _no_default_keycache(size: int) -> SQLError | None:
    """key_buffer_size 0: MariaDB keeps its default key cache (1438)."""
    return SQLError(ER_WARN_CANT_DROP_DEFAULT_KEYCACHE) if size == 0 else None


def _divisions_at_four(increment: int) -> SQLError | None:
    """div_precision_increment: the engine divides with MariaDB's default scale increment, 4
    (engine/decimal_math.py, and the types of / in engine/exprtypes.py); another is 1235."""
    return SQLError(ER_NOT_SUPPORTED_YET, f"div_precision_increment={increment}") if increment != 4 else None


_DAY = 86400


def _binlog_expiry() -> list[SystemVariable]:
    """binlog_expire_logs_seconds and expire_logs_days, one setting in two units as MariaDB
    10.6+ keeps it (SET of either changes both); the master purges by it (master/role.py)."""
    seconds = SystemVariable("binlog_expire_logs_seconds", 0, G, dynamic=True, check=check_int(0, 99 * _DAY))

    def set_days(days: float) -> None:
        seconds.value = int(days * _DAY)

    days = SystemVariable("expire_logs_days", 0.0, G, dynamic=True, check=check_double(0.0, 99.0),
                          getter=lambda: seconds.value / _DAY, on_set=set_days)
    return [seconds, days]


def _open_files_limit() -> int:
    """The process's file descriptor limit (mysqld shows the one it got)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else _ULONG


def _path_text(server: Server, which: str) -> str | None:
    files = server.tls_files
    path = getattr(files, which) if files is not None else None
    return str(path) if path is not None else None


def _server_uuid(server: Server) -> str:
    import uuid

    path = server.datadir / "auto.cnf"
    try:
        for line in path.read_text().splitlines():
            if line.startswith("server-uuid="):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    value = str(uuid.uuid4())
    try:
        path.write_text(f"[auto]\nserver-uuid={value}\n")
    except OSError:
        pass
    return value


# Com_* counters mysqld shows even when zero, keyed by the dispatch keyword that counts them.
_COM = {
    "Com_admin_commands": (), "Com_begin": ("BEGIN", "START TRANSACTION"), "Com_commit": ("COMMIT",),
    "Com_rollback": ("ROLLBACK",), "Com_select": ("SELECT",), "Com_insert": ("INSERT",),
    "Com_update": ("UPDATE",), "Com_delete": ("DELETE",), "Com_replace": ("REPLACE",),
    "Com_set_option": ("SET",), "Com_show_variables": ("SHOW VARIABLES",),
    "Com_show_status": ("SHOW STATUS",), "Com_show_processlist": ("SHOW PROCESSLIST",),
    "Com_change_db": ("USE",), "Com_create_table": ("CREATE TABLE",), "Com_drop_table": ("DROP TABLE",),
    "Com_alter_table": ("ALTER TABLE",), "Com_create_db": ("CREATE DATABASE", "CREATE SCHEMA"),
    "Com_drop_db": ("DROP DATABASE", "DROP SCHEMA"), "Com_create_user": ("CREATE USER",),
    "Com_drop_user": ("DROP USER",), "Com_grant": ("GRANT",), "Com_kill": ("KILL",),
    "Com_show_master_status": ("SHOW MASTER",), "Com_show_slave_status": ("SHOW SLAVE",),
    "Com_change_master": ("CHANGE MASTER",), "Com_slave_start": ("START SLAVE",),
    "Com_slave_stop": ("STOP SLAVE",), "Com_install_plugin": ("INSTALL PLUGIN",),
    "Com_uninstall_plugin": ("UNINSTALL PLUGIN",), "Com_flush": ("FLUSH",),
    "Com_show_binlogs": ("SHOW BINARY",), "Com_truncate": ("TRUNCATE",),
    "Com_prepare_sql": ("PREPARE",), "Com_execute_sql": ("EXECUTE",), "Com_dealloc_sql": ("DEALLOCATE", "DROP PREPARE"),
    "Com_execute_immediate": ("EXECUTE IMMEDIATE",),
    # the binary protocol's commands (server/prepared.py counts them)
    "Com_stmt_prepare": (), "Com_stmt_execute": (), "Com_stmt_fetch": (), "Com_stmt_reset": (),
    "Com_stmt_send_long_data": (), "Com_stmt_close": (),
}


# Dispatch keyword (two words, else the first) -> its Com_ counter.
COM_BY_KEYWORD = {key: name for name, keys in _COM.items() for key in keys}


def core_status(server: Server) -> dict[str, Any]:
    st = server.stats
    sessions = server.sessions
    running = sum(1 for s in sessions.values() if s.busy)
    com = st.com
    out: dict[str, Any] = {
        "Uptime": server.uptime,
        "Uptime_since_flush_status": server.uptime,
        "Threads_connected": len(sessions),
        # the query cache: none here (query_cache_size 0), so empty and never hit
        **dict.fromkeys(("Qcache_free_blocks", "Qcache_free_memory", "Qcache_hits", "Qcache_inserts",
                         "Qcache_lowmem_prunes", "Qcache_not_cached", "Qcache_queries_in_cache",
                         "Qcache_total_blocks"), 0),
        "Threads_running": max(running, 1),
        "Threads_created": st.connections,
        "Threads_cached": 0,
        "Connections": st.connections,
        "Max_used_connections": st.max_used_connections,
        "Aborted_connects": st.aborted_connects,
        "Aborted_clients": st.aborted_clients,
        "Questions": st.questions,
        "Queries": st.questions,
        "Bytes_received": st.bytes_received,
        "Bytes_sent": st.bytes_sent,
        "Slow_queries": st.slow_queries,
        "Open_tables": 0,
        "Opened_tables": 0,
        "Table_locks_waited": 0,
        # the engine's pages and its page cache (innodb_page_size, innodb_buffer_pool_size)
        "Innodb_page_size": PAGE_SIZE,
        "Innodb_buffer_pool_pages_total": PAGE_CACHE_BYTES // PAGE_SIZE,
        **_lock_waits(server),
        "Connection_control_delay_generated": server.connection_control.delays_generated,
        "Ssl_cipher": "",  # the asking session's (ClientSession.session_status); "" elsewhere
        "Ssl_version": "",
        "Prepared_stmt_count": PreparedStatements.held(server),
        "Max_statement_time_exceeded": st.max_statement_time_exceeded,
    }
    for name in _COM:
        out[name] = com.get(name, 0)
    return out


def _lock_waits(server: Server) -> dict[str, int]:
    """Innodb_row_lock_*: the waits for the engine's one writer lock, the lock a write waits for
    where InnoDB would wait for a row's (INNODB_LOCK_WAITS lists the same waits); times in
    milliseconds, as InnoDB's."""
    lock = server.engine.writer_lock
    waited_ms = int(lock.wait_seconds * 1000)
    return {
        "Innodb_row_lock_current_waits": lock.waiting(),
        "Innodb_row_lock_time": waited_ms,
        "Innodb_row_lock_time_avg": waited_ms // lock.waits if lock.waits else 0,
        "Innodb_row_lock_time_max": int(lock.longest_wait * 1000),
        "Innodb_row_lock_waits": lock.waits,
    }


# what the combination modes add to themselves (SQL_MODES: the names in bit order, how SELECT
# @@sql_mode lists them)
_DB_LIKE = ("PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "NO_KEY_OPTIONS", "NO_TABLE_OPTIONS", "NO_FIELD_OPTIONS")
_COMBINED = {
    "ANSI": ("REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE"),
    "TRADITIONAL": ("STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE",
                    "ERROR_FOR_DIVISION_BY_ZERO", "NO_AUTO_CREATE_USER", "NO_ENGINE_SUBSTITUTION"),
    "POSTGRESQL": _DB_LIKE, "MSSQL": _DB_LIKE, "DB2": _DB_LIKE,
    "ORACLE": (*_DB_LIKE, "NO_AUTO_CREATE_USER", "SIMULTANEOUS_ASSIGNMENT"),
    "MAXDB": (*_DB_LIKE, "NO_AUTO_CREATE_USER"),
    "MYSQL323": ("HIGH_NOT_PRECEDENCE",), "MYSQL40": ("HIGH_NOT_PRECEDENCE",),
}
_MODE_ORDER = {name: i for i, name in enumerate(SQL_MODES)}


def sql_mode_bits(modes: str) -> int:
    """A canonical sql_mode list (`check_sql_mode`'s) as its bits, as Q_SQL_MODE_CODE carries them."""
    return sum(1 << _MODE_ORDER[name] for name in modes.split(",") if name in _MODE_ORDER)


def check_served_sql_mode(value: Any) -> str:
    """SET sql_mode (`check_sql_mode`), but 1235 for a mode the engine does not follow
    (UNFOLLOWED_SQL_MODES, alone or through ANSI, ORACLE, MYSQL40 ...)."""
    modes = check_sql_mode(value)
    refused = [mode for mode in UNFOLLOWED_SQL_MODES if mode in modes.split(",")]
    if refused:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"sql_mode {refused[0]}")
    return modes


def check_sql_mode(value: Any) -> str:
    """SET sql_mode: names (any case, empty items skipped) or the modes' bit mask (SQL_MODES'
    order, mariadb-binlog's form) -> MariaDB's canonical list, each once, combination modes
    expanded; an unknown name or bit is ValueError (1231)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < 1 << len(SQL_MODES):
            raise ValueError(value)
        value = ",".join(name for bit, name in enumerate(SQL_MODES) if value >> bit & 1)
    modes: set[str] = set()
    for item in check_str(value).split(","):
        if not item:
            continue
        name = item.upper()
        if name not in _MODE_ORDER:
            raise ValueError(item)
        modes.add(name)
        modes.update(_COMBINED.get(name, ()))
    return ",".join(sorted(modes, key=_MODE_ORDER.__getitem__))
