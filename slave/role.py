"""`SlaveRole`: the replica side of the one server (node/role.py holds it with the source side;
server/role.py is the seam).

Contract
- Client commits and read_only are the node's (a client's write, allowed once read_only is OFF,
  goes through the source side's group commit; the applier's stored position is unchanged).
- Claims the replica statements: CHANGE MASTER TO (with MASTER_USE_GTID = no | slave_pos |
  current_pos, MASTER_DELAY = 0 .. 2^31-1 (1729 past it, 1064 for a sign, a fraction cut, as
  MariaDB's), RELAY_LOG_FILE / RELAY_LOG_POS naming the SQL thread's position), START SLAVE / STOP SLAVE [IO_THREAD | SQL_THREAD], RESET SLAVE [ALL], SHOW
  SLAVE STATUS (MariaDB 10.11's columns in order, then MySQL 5.7's others), SHOW ALL SLAVES
  STATUS (MariaDB's), each also spelled REPLICA / REPLICAS, SELECT MASTER_POS_WAIT('file', pos
  [, timeout]) and SELECT MASTER_GTID_WAIT('gtid-list' [, timeout]) (both wait for the SQL
  thread; MASTER_GTID_WAIT is woken by the applier's commits, 0 reached, -1 timed out).
  Each takes MariaDB's connection name where it does, or the session's
  @@default_master_connection when it names none ('' only: the default connection; another
  is 1617). Errors are mysqld's: 1198 (running slave), 1200 (no master configured), 1064
  (syntax), 1941/1943 (a malformed GTID list).
- System variables: slave_net_timeout (dynamic, an integer as MariaDB's; a warning when it is below the heartbeat
  period), sync_relay_log, relay_log, gtid_slave_pos (SET GLOBAL only while both threads are
  stopped: 1198; the value checked first: 1941/1943; `gtid_slave_pos()` reads it);
  status variables: Slave_heartbeat_period,
  Slave_received_heartbeats, Slave_running (Rpl_semi_sync_slave_status comes from the
  semi-sync slave plugin, which the daemon loads at startup).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from binlog.show_events import EVENT_COLUMNS, binlog_event_rows
from config.node import DEFAULT_COMMIT_WAIT_USEC, MAX_COMMIT_WAIT_USEC
from protocol.errors import (
    ER_ERROR_WHEN_EXECUTING_COMMAND,
    ER_MASTER_CONNECTION_NOT_FOUND,
    ER_MASTER_DELAY_VALUE_OUT_OF_RANGE,
    ER_NOT_SUPPORTED_YET,
    ER_PARSE_ERROR,
    ER_SLAVE_MUST_STOP,
    ProtocolError,
    SQLError,
)
from protocol.gtid import GtidPosition, parse_gtid_list
from protocol.messages import OK, ColumnFlag, FieldType, ResultSet, column, show_number, show_text
from server.role import Role
from server.sql import Tokens, parse_error
from server.variables import Scope, SystemVariable, check_bool, check_int
from slave.replication import ALL_STATUS_COLUMNS, STATUS_COLUMNS, USE_GTID, Replication

if TYPE_CHECKING:
    from server.session import ClientSession

log = logging.getLogger("semisync.slave")

# CHANGE MASTER TO option -> (MasterInfo field, kind)
_CHANGE_OPTIONS = {
    "MASTER_HOST": ("host", "str"),
    "MASTER_PORT": ("port", "int"),
    "MASTER_USER": ("user", "str"),
    "MASTER_PASSWORD": ("password", "str"),
    "MASTER_LOG_FILE": ("log_file", "str"),
    "MASTER_LOG_POS": ("log_pos", "int"),
    "MASTER_HEARTBEAT_PERIOD": ("heartbeat_period", "float"),
    "MASTER_CONNECT_RETRY": ("connect_retry", "float"),
    "MASTER_SSL": ("ssl", "bool"),
    "MASTER_SSL_CA": ("ssl_ca", "str"),
    "MASTER_SSL_VERIFY_SERVER_CERT": ("ssl_verify_server_cert", "bool"),
    "MASTER_USE_GTID": ("use_gtid", "gtid_mode"),
    "MASTER_DELAY": ("sql_delay", "delay"),
    # the SQL thread's own position only (Replication.change_master): how a failover tool keeps
    # a MariaDB replica's relay log through CHANGE MASTER TO MASTER_DELAY = 0
    "RELAY_LOG_FILE": ("relay_log_file", "str"),
    "RELAY_LOG_POS": ("relay_log_pos", "int"),
}
# MariaDB's MASTER_DELAY_MAX (sql/rpl_mi.h): the largest delay, in seconds
MASTER_DELAY_MAX = (1 << 31) - 1


class SlaveRole(Role):
    name = "slave"
    CLAIMS = frozenset({
        "CHANGE MASTER", "START SLAVE", "STOP SLAVE", "RESET SLAVE", "SHOW SLAVE",
        # MariaDB 10.5+ spellings
        "START REPLICA", "STOP REPLICA", "RESET REPLICA", "SHOW REPLICA", "SHOW ALL",
        "SELECT MASTER_POS_WAIT", "SELECT MASTER_GTID_WAIT", "SHOW RELAYLOG",
    })

    def __init__(
        self, replication_factory: Any, *, sync_relay_log: int, relay_log: str, net_timeout: float,
        relay_log_purge: bool = True, commit_wait_usec: int = DEFAULT_COMMIT_WAIT_USEC,
    ) -> None:
        self._factory = replication_factory
        self.relay_log_purge = relay_log_purge
        self.commit_wait_usec = commit_wait_usec
        self.replication: Replication | None = None
        self.sync_relay_log = sync_relay_log
        self.relay_log_name = relay_log
        self.net_timeout = net_timeout

    # -- variables ---------------------------------------------------------------------------------
    def system_variables(self) -> Iterable[SystemVariable]:
        return (
            SystemVariable(
                "slave_net_timeout", dynamic=True, getter=self._net_timeout_shown, default=60,
                check=check_int(1, 31536000), on_set=self._set_net_timeout,
            ),
            SystemVariable("sync_relay_log", self.sync_relay_log),
            SystemVariable("relay_log_purge", self.relay_log_purge, Scope.GLOBAL, dynamic=True,
                           check=check_bool, on_set=self._set_relay_log_purge),
            SystemVariable("slave_commit_wait_usec", dynamic=True, getter=lambda: self.commit_wait_usec,
                           default=DEFAULT_COMMIT_WAIT_USEC, check=check_int(0, MAX_COMMIT_WAIT_USEC),
                           on_set=self._set_commit_wait_usec),
            SystemVariable("relay_log", self.relay_log_name),
            SystemVariable("relay_log_index", f"{self.relay_log_name}.index"),
            SystemVariable("relay_log_recovery", True),
            SystemVariable("relay_log_info_repository", "TABLE"),
            SystemVariable("master_info_repository", "FILE"),
            # the connection name a statement naming none means (MariaDB's multi-source; only ''
            # exists here, `_connection_name`)
            SystemVariable("default_master_connection", "", Scope.SESSION, dynamic=True, check=_connection_text),
            SystemVariable(
                "gtid_slave_pos", "", dynamic=True, check=self._check_gtid_slave_pos,
                getter=lambda: str(self.gtid_slave_pos()), on_set=self._set_gtid_slave_pos,
                settled=self._gtid_slave_pos_committed,
            ),
        )

    def gtid_slave_pos(self) -> GtidPosition:
        """`@@gtid_slave_pos`: the GTID of the last transaction the SQL thread applied, per domain."""
        rep = self.replication
        return GtidPosition() if rep is None else rep.applier.gtid_slave_pos

    def _check_gtid_slave_pos(self, value: Any) -> GtidPosition:
        """A running slave refuses first (1198, whatever the value, as MariaDB), then the value
        is parsed (1941, 1943)."""
        rep = self.replication
        if rep is not None and (rep.io_running or rep.sql_running):
            raise SQLError(ER_SLAVE_MUST_STOP)
        return _gtid_position(value)

    def _set_gtid_slave_pos(self, value: GtidPosition) -> None:
        assert self.replication is not None
        self.replication.set_gtid_slave_pos(value)

    async def _gtid_slave_pos_committed(self) -> None:
        """SET GLOBAL gtid_slave_pos answers OK once the position is committed to the engine."""
        assert self.replication is not None
        await self.replication.persisted()

    def _set_relay_log_purge(self, value: Any) -> None:
        self.relay_log_purge = bool(value)

    def _set_commit_wait_usec(self, value: Any) -> None:
        self.commit_wait_usec = int(value)

    def commit_wait(self) -> float:
        """@@slave_commit_wait_usec in seconds, as the applier reads it at each wakeup."""
        return self.commit_wait_usec / 1e6

    def _net_timeout_shown(self) -> int | float:
        """MariaDB's slave_net_timeout is an integer (SELECT @@ types it BIGINT, SHOW VARIABLES
        shows `60`); only the --slave-net-timeout option may make it a fraction of a second."""
        seconds = self.net_timeout
        return int(seconds) if seconds.is_integer() else seconds

    def _set_net_timeout(self, value: Any) -> None:
        self.net_timeout = float(value)
        rep = self.replication
        if rep is not None:
            rep.net_timeout = self.net_timeout
            if self.net_timeout < rep.info.heartbeat_period:
                log.warning(
                    "slave_net_timeout %gs is less than the heartbeat period %gs",
                    self.net_timeout, rep.info.heartbeat_period,
                )

    def status_variables(self) -> Mapping[str, Any]:
        rep = self.replication
        if rep is None:
            return {"Slave_heartbeat_period": "0.000", "Slave_received_heartbeats": 0, "Rpl_semi_sync_slave_send_ack": 0,
                    "Slave_running": "OFF"}
        return rep.status_variables()

    # -- the processlist's replication threads ------------------------------------------------------
    def system_threads(self) -> list[tuple[int, str, float, str]]:
        return self.replication.threads() if self.replication is not None else []

    async def kill_thread(self, connection_id: int) -> bool:
        return self.replication is not None and await self.replication.kill_thread(connection_id)

    # -- lifecycle ---------------------------------------------------------------------------------
    async def start(self) -> None:
        assert self.server is not None
        self.replication = self._factory(self.server)

    async def shutdown(self, deadline: float) -> None:
        if self.replication is not None:
            await self.replication.stop()

    # -- statements ------------------------------------------------------------------------------
    async def _master_pos_wait(self, rep: Replication, toks: Tokens) -> Any:
        """SELECT MASTER_POS_WAIT('file', pos [, timeout]): wait until the SQL thread has
        executed up to the master's (file, pos). 0 when reached (the count of events waited
        for is not kept), -1 on timeout, NULL when the SQL thread is not running, as MariaDB's.
        Anything else in the select list is not answered here (None: the engine's 1305)."""
        toks.expect_word("SELECT")
        start = toks.i
        toks.expect_word("MASTER_POS_WAIT")
        toks.expect_op("(")
        args: list[str | int | float] = []
        while True:
            tok = toks.next()
            if tok.kind == "STRING":
                args.append(tok.text)
            elif tok.kind == "NUMBER" and isinstance(tok.value, int | float):  # the lexer's number
                args.append(tok.value)
            else:
                return None
            if toks.accept_op(")"):
                break
            toks.expect_op(",")
        name = toks.sql[toks.items[start].pos:toks.items[toks.i - 1].pos + 1]
        if toks.accept_word("AS"):
            name = toks.name()
        if not toks.at_end() or len(args) < 2 or not isinstance(args[0], str):
            return None
        timeout = float(args[2]) if len(args) > 2 and float(args[2]) > 0 else None
        target = (_log_sequence(args[0]), int(args[1]))
        deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        result: int | None = 0
        applier = rep.applier
        with applier.urgent():
            while (_log_sequence(applier.master_file), applier.master_pos) < target:
                if not rep.sql_running:
                    result = None
                    break
                if deadline is not None and asyncio.get_running_loop().time() >= deadline:
                    result = -1
                    break
                await asyncio.sleep(0.05)
        return ResultSet((column(name, FieldType.LONGLONG),), ((result,),))

    async def _master_gtid_wait(self, rep: Replication, toks: Tokens) -> Any:
        """SELECT MASTER_GTID_WAIT('gtid-list' [, timeout]): 0 once @@gtid_slave_pos has every
        listed GTID (in each domain a seq_no at least as high), -1 after `timeout` seconds (none
        or a negative one: no limit), as MariaDB's. A malformed list is 1941/1943."""
        toks.expect_word("SELECT")
        start = toks.i
        toks.expect_word("MASTER_GTID_WAIT")
        toks.expect_op("(")
        tok = toks.next()
        if tok.kind != "STRING":
            return None
        text = tok.text
        timeout: float | None = None
        if toks.accept_op(","):
            number = toks.next()
            if number.kind != "NUMBER" or not isinstance(number.value, int | float):
                return None
            timeout = float(number.value) if float(number.value) >= 0 else None
        toks.expect_op(")")
        name = toks.sql[toks.items[start].pos:toks.items[toks.i - 1].pos + 1]
        if toks.accept_word("AS"):
            name = toks.name()
        if not toks.at_end():
            return None
        wanted = _gtid_list(text)
        reached = await rep.applier.wait_for_gtids(wanted, timeout)
        return ResultSet((column(name, FieldType.LONG),), ((0 if reached else -1,),))

    async def _show_relaylog_events(self, session: ClientSession, rep: Replication, toks: Tokens) -> Any:
        """SHOW RELAYLOG ['connection'] EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]:
        the relay log's events as SHOW BINLOG EVENTS shows a binlog's, from its first file by
        default; a file not in its index is 1220, as MariaDB's; no relay log yet, no rows."""
        toks.expect_word("SHOW")
        toks.expect_word("RELAYLOG")
        _connection_name(toks, session)
        toks.expect_word("EVENTS")
        files = rep.relay.files()
        name, start, limit, offset = toks.events_range(files[0] if files else "")
        if not files:
            return ResultSet(EVENT_COLUMNS, ())
        if name not in files:
            raise SQLError(ER_ERROR_WHEN_EXECUTING_COMMAND, "SHOW RELAYLOG EVENTS", "Could not find target log")
        rows = await asyncio.to_thread(binlog_event_rows, rep.relay.path(name), name, start, limit, offset, None)
        return ResultSet(EVENT_COLUMNS, tuple(rows))

    async def execute(self, session: ClientSession, sql: str, keyword: str) -> Any:
        rep = self.replication
        assert rep is not None
        toks = Tokens(sql)
        keyword = keyword.replace("REPLICA", "SLAVE")
        if keyword == "SELECT MASTER_POS_WAIT":
            return await self._master_pos_wait(rep, toks)
        if keyword == "SELECT MASTER_GTID_WAIT":
            return await self._master_gtid_wait(rep, toks)
        if keyword == "SHOW RELAYLOG":
            return await self._show_relaylog_events(session, rep, toks)
        if keyword in ("SHOW ALL", "SHOW SLAVE"):  # SHOW ALL SLAVES STATUS / SHOW SLAVE STATUS
            toks.expect_word("SHOW")
            every = bool(toks.accept_word("ALL"))
            toks.expect_word(*(("SLAVES", "REPLICAS") if every else ("SLAVE", "REPLICA")))
            if not every:
                _connection_name(toks, session)
            toks.expect_word("STATUS")
            toks.expect_end()
            columns, row = (ALL_STATUS_COLUMNS, rep.all_status_row()) if every else (STATUS_COLUMNS, rep.status_row())
            types = tuple(STATUS_COLUMN_TYPES.get(c, FieldType.VAR_STRING) for c in columns)
            return ResultSet(tuple(_status_column(c, t) for c, t in zip(columns, types, strict=True)),
                             (tuple(_cell(v, t) for v, t in zip(row, types, strict=True)),) if row else ())
        if keyword == "CHANGE MASTER":
            changes = _parse_change_master(toks, session)
            notes = rep.change_master(changes)
            await rep.persist_reset()
            warnings = len(notes)
            if rep.net_timeout < rep.info.heartbeat_period:
                warnings += 1
            session.diagnostics = notes
            return OK(warnings=warnings)
        if keyword in ("START SLAVE", "STOP SLAVE"):
            toks.next()
            toks.next()
            _connection_name(toks, session)
            io = sql_thread = True
            if not toks.at_end():
                threads = set()
                while True:
                    threads.add(toks.expect_word("IO_THREAD", "SQL_THREAD"))
                    if not toks.accept_op(","):
                        break
                io, sql_thread = "IO_THREAD" in threads, "SQL_THREAD" in threads
            toks.expect_end()
            if keyword == "START SLAVE":
                await rep.start(io=io, sql=sql_thread)
            else:
                await rep.stop(io=io, sql=sql_thread)
            return OK()
        if keyword == "RESET SLAVE":
            toks.next()
            toks.next()
            _connection_name(toks, session)
            all_ = bool(toks.accept_word("ALL"))
            toks.expect_end()
            rep.reset(all_, default_period=self.net_timeout / 2)
            await rep.persist_reset()
            return OK()
        return None


def _connection_name(toks: Tokens, session: ClientSession | None, creates: bool = False) -> None:
    """MariaDB's multi-source connection name after SLAVE / MASTER (none given: the session's
    @@default_master_connection, '' without a session): only the default one ('') exists here; another is 1617
    (there is none by that name) or, to make one, 1235."""
    tok = toks.peek()
    if tok is not None and tok.kind == "STRING":
        toks.next()
        name = tok.text
    else:
        name = session.server.variables.get("default_master_connection", session) if session is not None else ""
    if name:
        if creates:
            raise SQLError(ER_NOT_SUPPORTED_YET, "multi-source replication (a named master connection)")
        raise SQLError(ER_MASTER_CONNECTION_NOT_FOUND, name)


def _connection_text(value: Any) -> str:
    """SET default_master_connection's value: a string (1232 for a number, 1231 for NULL)."""
    if value is None:
        raise ValueError(value)
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _gtid_list(text: str) -> tuple[Any, ...]:
    """A client's GTID list (1941 for a malformed one, as MariaDB's)."""
    try:
        return parse_gtid_list(text)
    except ProtocolError as e:
        raise SQLError(e.error, message=e.message) from None


def _gtid_position(value: Any) -> GtidPosition:
    """SET GLOBAL gtid_slave_pos's value: a GTID list, one per domain (1941, 1943)."""
    if not isinstance(value, str):
        raise TypeError(value)
    try:
        return GtidPosition.parse(value)
    except ProtocolError as e:
        raise SQLError(e.error, message=e.message) from None


# SHOW [ALL] SLAVE[S] STATUS's numeric columns, typed as MariaDB 10.11 types them (sql/slave.cc
# show_master_info_get_fields); every other column is a string.
STATUS_COLUMN_TYPES: dict[str, int] = {
    **dict.fromkeys((
        "Master_Port", "Connect_Retry", "Last_Errno", "Skip_Counter", "Last_IO_Errno", "Last_SQL_Errno",
        "Master_Server_Id", "SQL_Delay", "SQL_Remaining_Delay", "Retried_transactions",
        "Executed_log_entries", "Slave_received_heartbeats",
    ), FieldType.LONG),
    **dict.fromkeys((
        "Read_Master_Log_Pos", "Relay_Log_Pos", "Exec_Master_Log_Pos", "Relay_Log_Space", "Until_Log_Pos",
        "Seconds_Behind_Master", "Slave_DDL_Groups", "Slave_Non_Transactional_Groups",
        "Slave_Transactional_Groups", "Max_relay_log_size", "Master_Retry_Count",
    ), FieldType.LONGLONG),
    "Slave_heartbeat_period": FieldType.DOUBLE,
}


# Each status column's width as MariaDB 10.11 describes it: a text's characters, a number's
# digits (sql/slave.cc show_master_info_get_fields); MySQL's columns MariaDB lacks as MySQL 5.7's.
STATUS_COLUMN_WIDTHS: dict[str, int] = {
    "Connection_name": 192, "Slave_SQL_State": 30, "Slave_IO_State": 30, "Master_Host": 766, "Master_User": 385,
    "Master_Port": 7, "Connect_Retry": 10, "Read_Master_Log_Pos": 10, "Relay_Log_Pos": 10, "Slave_IO_Running": 3,
    "Slave_SQL_Running": 3, "Replicate_Do_DB": 20, "Replicate_Ignore_DB": 20, "Replicate_Do_Table": 20,
    "Replicate_Ignore_Table": 23, "Replicate_Wild_Do_Table": 24, "Replicate_Wild_Ignore_Table": 28,
    "Last_Errno": 4, "Last_Error": 20, "Skip_Counter": 10, "Exec_Master_Log_Pos": 10, "Relay_Log_Space": 10,
    "Until_Condition": 6, "Until_Log_Pos": 10, "Master_SSL_Allowed": 7, "Seconds_Behind_Master": 10,
    "Master_SSL_Verify_Server_Cert": 3, "Last_IO_Errno": 4, "Last_IO_Error": 20, "Last_SQL_Errno": 4,
    "Last_SQL_Error": 20, "Master_Server_Id": 8, "Using_Gtid": 11, "Gtid_IO_Pos": 30, "Parallel_Mode": 12,
    "SQL_Delay": 10, "SQL_Remaining_Delay": 8, "Slave_SQL_Running_State": 20, "Slave_DDL_Groups": 20,
    "Slave_Non_Transactional_Groups": 20, "Slave_Transactional_Groups": 20, "Replicate_Rewrite_DB": 23,
    "Retried_transactions": 10, "Max_relay_log_size": 10, "Executed_log_entries": 10,
    "Slave_received_heartbeats": 10, "Slave_heartbeat_period": 10, "Gtid_Slave_Pos": 5,
    "Master_UUID": 36, "Master_Retry_Count": 10, "Last_IO_Error_Timestamp": 20, "Last_SQL_Error_Timestamp": 20,
    "Auto_Position": 1, "Channel_Name": 64, "Master_TLS_Version": 32,
}
_PATH_WIDTH = 512  # a file name's or a list's (FN_REFLEN), the width of every column not above


def _status_column(name: str, type_: int) -> Any:
    """A status column as MariaDB describes it: NOT NULL, a text of its width, an unsigned number
    of its digits, the heartbeat period a DOUBLE with 3 decimals."""
    width = STATUS_COLUMN_WIDTHS.get(name, _PATH_WIDTH)
    if type_ == FieldType.VAR_STRING:
        return show_text(name, width)
    if type_ == FieldType.DOUBLE:
        return column(name, type_, width, decimals=3, flags=ColumnFlag.NOT_NULL | ColumnFlag.BINARY)
    return show_number(name, type_, width, unsigned=True)


def _cell(value: Any, type_: int) -> Any:
    """A status value in its column's type; a number the status does not have is NULL."""
    if value is None:
        return None
    if type_ == FieldType.VAR_STRING:
        return str(value)
    if value == "":
        return None
    if type_ == FieldType.DOUBLE:
        return f"{float(value):.3f}"  # MariaDB prints the heartbeat period with 3 decimals
    return int(value)


def _parse_change_master(toks: Tokens, session: ClientSession | None = None) -> dict[str, Any]:
    toks.expect_word("CHANGE")
    toks.expect_word("MASTER")
    _connection_name(toks, session, creates=True)
    toks.expect_word("TO")
    changes: dict[str, Any] = {}
    while True:
        tok = toks.next()
        option = tok.upper if tok.kind == "WORD" else ""
        if option not in _CHANGE_OPTIONS:
            toks.i -= 1
            raise toks.error()
        toks.expect_op("=")
        value = toks.next()
        field, kind = _CHANGE_OPTIONS[option]
        try:
            if kind == "str":
                if value.kind != "STRING":
                    raise ValueError
                changes[field] = value.text
            elif kind == "int":
                if value.kind != "NUMBER" or not isinstance(value.value, int):
                    raise ValueError
                changes[field] = value.value
            elif kind == "gtid_mode":  # a word: no | slave_pos | current_pos
                if value.kind != "WORD" or value.upper not in USE_GTID:
                    raise ValueError
                changes[field] = USE_GTID[value.upper]
            elif kind == "delay":  # MariaDB's ulong_num: a fraction is cut, a sign is a syntax error
                if value.kind != "NUMBER" or not isinstance(value.value, int | float) or value.value < 0:
                    raise ValueError
                changes[field] = int(value.value)
            elif kind == "bool":  # 0 | 1, as mysqld's CHANGE MASTER TO grammar
                if value.kind != "NUMBER" or value.value not in (0, 1):
                    raise ValueError
                changes[field] = int(value.value)  # type: ignore[arg-type]
            else:
                if value.kind != "NUMBER":
                    raise ValueError
                changes[field] = float(value.value)  # type: ignore[arg-type]
        except ValueError:
            raise parse_error(toks.sql, value.pos) from None  # near the value and what follows
        if option == "MASTER_DELAY" and changes[field] > MASTER_DELAY_MAX:
            raise SQLError(ER_MASTER_DELAY_VALUE_OUT_OF_RANGE, changes[field], MASTER_DELAY_MAX)
        if not toks.accept_op(","):
            break
    toks.expect_end()
    period = changes.get("heartbeat_period")
    if period is not None and period != 0 and not 0.001 <= period <= 4294967:
        raise SQLError(
            ER_PARSE_ERROR,
            "The requested value for the heartbeat period is either negative or exceeds the maximum allowed (4294967 seconds).",
        )
    if "host" in changes and not changes["host"]:
        changes["host"] = None
    return changes


def _log_sequence(name: str) -> int:
    """mysql-bin.000042 -> 42 (binlog files compare by their sequence number)."""
    suffix = name.rpartition(".")[2]
    return int(suffix) if suffix.isdigit() else -1
