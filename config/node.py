"""NodeConfig: every option of the one server (../shared/INTERFACE.md, "Roles, GTIDs and failover").

Every daemon is one server with a source side (binlog, dump sessions, semi-sync master plugin)
and a replica side (IO task, relay log, applier, semi-sync slave plugin), so one model holds the
union of the options of `semisync master` and `semisync slave`; each command is a preset of it
that changes only defaults (config/master.py, config/slave.py): `--master-host` on a master
makes it a replica too, `--rpl-semi-sync-master-*` on a slave are used once it is promoted.

Names and defaults are MySQL 5.7's (`rpl_semi_sync_master_*`); the loader also accepts the
MySQL 8 spellings `rpl_semi_sync_source_*` / `rpl_semi_sync_replica_*` in files and the
environment. `master_heartbeat_period` defaults to half of `slave_net_timeout` (WL#342), so it
is always a number of seconds once the model is built (0 = heartbeats disabled). That a
replica's `server_id` differs from its master's is checked when connecting, not here.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any

from pydantic import ValidationInfo, field_validator

from config.daemon import (
    BIND_HELP,
    MAX_CONNECT_ERRORS_HELP,
    METRICS_HELP,
    REQUIRE_SECURE_TRANSPORT_HELP,
    ROOT_PASSWORD_FILE_HELP,
    ROOT_PASSWORD_HELP,
    SSL_CA_HELP,
    SSL_CERT_HELP,
    SSL_GENERATED,
    SSL_KEY_HELP,
    BindAddress,
    ConnectErrors,
    Count,
    DaemonConfig,
    DataDir,
    OptionalPath,
    Password,
    PasswordFile,
    Port,
    ServerId,
)
from config.values import (
    checked,
    integer,
    one_of,
    option,
    parse_basename,
    parse_bool,
    parse_optional_host,
    parse_seconds,
    parse_text,
)

# slave_commit_wait_usec (slave.applier.Applier._gather): its default and its limit (one second)
DEFAULT_COMMIT_WAIT_USEC = 5000
MAX_COMMIT_WAIT_USEC = 1_000_000
MAX_SECONDS = 31536000  # one year, mysqld's limit for slave_net_timeout and MASTER_CONNECT_RETRY
Bool = Annotated[bool, checked(parse_bool)]


class BinlogChecksum(enum.StrEnum):
    NONE = "NONE"
    CRC32 = "CRC32"


class WaitPoint(enum.StrEnum):
    """When a committing session waits for the slaves' acks (WL#6355's rpl_semi_sync_master_wait_point)."""

    AFTER_SYNC = "AFTER_SYNC"  # after the binlog fsync, before the engine commit (lossless)
    AFTER_COMMIT = "AFTER_COMMIT"  # after the engine commit, before the client's OK


class InitRplRole(enum.StrEnum):
    """The role a server takes up at start (MariaDB 10.11.9's --init-rpl-role, MDEV-33465): what
    crash recovery does with the binlog tail the engine never committed (master/recovery.py)."""

    MASTER = "MASTER"  # keep it: replay it into the engine (the server goes on as the master)
    SLAVE = "SLAVE"  # cut it off: it rejoins as a slave of the master that replaced it


class BinlogErrorAction(enum.StrEnum):
    """What the master does when the engine cannot commit a group already in the binlog
    (MySQL's binlog_error_action; master/commit.py). A failed binlog write itself is always
    undone and fails its group, whatever this says: unlike MySQL's IGNORE_ERROR, binary logging
    is never turned off."""

    ABORT_SERVER = "ABORT_SERVER"  # log and stop; the binlog is replayed into the engine at restart
    IGNORE_ERROR = "IGNORE_ERROR"  # go on: replay the group from the binlog before the next one


def parse_secure_file_priv(value: Any) -> str | None:
    """secure_file_priv: None (unset or NULL: disabled), "" (any directory) or a directory."""
    if value is None or (isinstance(value, str) and value.strip().upper() == "NULL"):
        return None
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, str):
        return str(Path(value.strip()).expanduser()) if value.strip() else ""
    raise ValueError("allowed a directory, empty or NULL")


def _heartbeat(value: Any) -> float:
    return parse_seconds(value, 0.001, 4294967, zero_disables=True)


def _timeout(value: Any) -> float:
    return parse_seconds(value, 0.001, MAX_SECONDS)


class NodeConfig(DaemonConfig):
    """The union of both presets' options; the defaults are the master preset's."""

    datadir: DataDir = option(
        Path("./data/master"),
        metavar="PATH",
        shown="./data/master",
        help="binlogs, relay logs, master.info, the embedded database, users",
    )
    bind_address: BindAddress = option("127.0.0.1", metavar="ADDR", help=BIND_HELP)
    port: Port = option(3306, metavar="N", help="MySQL protocol port (clients and slaves)")
    server_id: ServerId = option(1, metavar="N", help="this server's id, 1-4294967295")
    root_password: Password = option("", metavar="TEXT", help=ROOT_PASSWORD_HELP)
    root_password_file: PasswordFile = option(None, metavar="PATH", help=ROOT_PASSWORD_FILE_HELP)
    read_only: Bool = option(
        False,
        metavar="BOOL",
        help="refuse client writes (1290) while ON; the replica's applier is never refused; "
        "SET GLOBAL read_only changes it at run time",
    )
    secure_file_priv: Annotated[str | None, checked(parse_secure_file_priv)] = option(
        None,
        metavar="DIR",
        shown="NULL (disabled)",
        help="where SELECT ... INTO OUTFILE / DUMPFILE and LOAD DATA INFILE (the server's own "
        "files, FILE privilege) may read and write: DIR = files in it or below it (it must exist "
        "at start), empty = any directory the daemon's user reaches, NULL = none (1290), the "
        "default: such files are the daemon's own, beside a datadir holding every row and the "
        "password hashes, so they are opened only where an operator says. A relative name is "
        "the datadir's, as MariaDB's (a bare one in DATADIR/<database>/, which has no such "
        "directories here). Read-only at run time (@@secure_file_priv)",
    )
    log_bin: Annotated[str, checked(parse_basename)] = option(
        "mysql-bin",
        metavar="NAME",
        help="binlog basename: files NAME.000001..., index NAME.index",
    )
    max_binlog_size: Annotated[int, integer(4096, 1073741824)] = option(
        1073741824,
        metavar="BYTES",
        help="rotate after this size, 4096-1073741824 (K/M/G suffixes)",
    )
    sync_binlog: Count = option(
        1,
        metavar="N",
        help="fsync the binlog every N commit groups (0 = leave it to the OS)",
    )
    binlog_error_action: Annotated[BinlogErrorAction, one_of(BinlogErrorAction)] = option(
        BinlogErrorAction.ABORT_SERVER,
        metavar="ABORT_SERVER|IGNORE_ERROR",
        help="engine commit failing after the binlog write: stop the server (the binlog is "
        "replayed at restart) or go on, replaying the group from the binlog before the next "
        "group. A failed binlog write is always undone and fails its group (1026); unlike "
        "MySQL's IGNORE_ERROR, binary logging is never turned off",
    )
    binlog_checksum: Annotated[BinlogChecksum, one_of(BinlogChecksum)] = option(
        BinlogChecksum.CRC32,
        metavar="NONE|CRC32",
        help="checksum of every binlog event",
    )
    log_slave_updates: Bool = option(
        True,
        metavar="BOOL",
        help="write the transactions the applier replicates to this server's own binlog "
        "(with their original server_id), so that its replicas get them too",
    )
    gtid_domain_id: Annotated[int, integer(0, 4294967295)] = option(
        0,
        metavar="N",
        help="the domain of the GTIDs this server's own transactions get, 0-4294967295 "
        "(SET GLOBAL/SESSION gtid_domain_id changes it at run time)",
    )
    gtid_strict_mode: Bool = option(
        True,
        metavar="BOOL",
        help="refuse a replicated GTID out of order or a duplicate one (MariaDB's 1950 stops "
        "the applier); SET GLOBAL gtid_strict_mode changes it at run time",
    )
    init_rpl_role: Annotated[InitRplRole, one_of(InitRplRole)] = option(
        InitRplRole.MASTER,
        metavar="MASTER|SLAVE",
        help="at start, what recovery does with binlog transactions the engine never committed "
        "(under AFTER_SYNC: never acked): MASTER replays them into the engine, SLAVE truncates "
        "them from the binlog, for a crashed master rejoining as a slave of its successor",
    )
    rpl_semi_sync_master_enabled: Bool = option(
        False,
        metavar="BOOL",
        help="semi-sync on the master side (ON|OFF|1|0|TRUE|FALSE)",
    )
    rpl_semi_sync_master_timeout: Count = option(
        10000,
        metavar="MS",
        help="wait this long for acks before falling back to async",
    )
    rpl_semi_sync_master_wait_for_slave_count: Annotated[int, integer(1, 65535)] = option(
        1,
        metavar="N",
        help="acks needed before a commit returns, 1-65535",
    )
    rpl_semi_sync_master_wait_no_slave: Bool = option(
        True,
        metavar="BOOL",
        help="keep semi-sync on while fewer slaves than needed are connected",
    )
    rpl_semi_sync_master_wait_point: Annotated[WaitPoint, one_of(WaitPoint)] = option(
        WaitPoint.AFTER_SYNC,
        metavar="AFTER_SYNC|AFTER_COMMIT",
        help="wait for acks before (AFTER_SYNC) or after (AFTER_COMMIT) the engine commit",
    )
    rpl_semi_sync_master_trace_level: Count = option(
        32,
        metavar="N",
        help="debug trace bits: 1 general, 16 detail, 32 net wait, 64 function",
    )
    master_host: Annotated[str | None, checked(parse_optional_host)] = option(
        None,
        metavar="HOST",
        help="replicate from this master at once; without it, wait for CHANGE MASTER TO + START SLAVE",
    )
    master_port: Annotated[int, integer(1, 65535)] = option(
        3306, metavar="N", help="the master's port"
    )
    master_user: Annotated[str, checked(parse_text)] = option(
        "repl",
        metavar="USER",
        help="replication user on the master",
    )
    master_password: Password = option("", metavar="TEXT", help="password of --master-user")
    master_password_file: PasswordFile = option(
        None, metavar="PATH", help="read --master-user's password from the first line of this file",
    )
    slave_net_timeout: Annotated[float, checked(_timeout)] = option(
        60.0,
        metavar="SECONDS",
        shown="60",
        help="reconnect when nothing (event or heartbeat) arrived for this long",
    )
    master_heartbeat_period: Annotated[float, checked(_heartbeat)] = option(
        None,
        metavar="SECONDS",
        shown="slave_net_timeout / 2",
        help="heartbeat interval asked of the master; 0 disables; range [0.001, 4294967]",
    )
    master_connect_retry: Annotated[float, checked(_timeout)] = option(
        60.0,
        metavar="SECONDS",
        shown="60",
        help="wait between reconnect attempts",
    )
    rpl_semi_sync_slave_enabled: Bool = option(
        False,
        metavar="BOOL",
        help="semi-sync on the slave side (ON|OFF|1|0|TRUE|FALSE)",
    )
    sync_relay_log: Count = option(
        1,
        metavar="N",
        help="fsync the relay log every N events; an ack is only sent for a durable event",
    )
    relay_log_purge: Bool = option(
        True,
        metavar="BOOL",
        help="delete each relay log file once the SQL thread applied all of it (ON|OFF|1|0)",
    )
    slave_commit_wait_usec: Annotated[int, integer(0, MAX_COMMIT_WAIT_USEC)] = option(
        DEFAULT_COMMIT_WAIT_USEC,
        metavar="USEC",
        help="a replicated transaction that wakes the idle SQL thread waits up to this long for the next "
        "ones, applied and committed with it as one batch (visibility only: acks never wait for the SQL "
        "thread); 0 applies each at once; 0-1000000",
    )
    relay_log: Annotated[str, checked(parse_basename)] = option(
        "relay-bin",
        metavar="NAME",
        help="relay log basename: files NAME.000001..., index NAME.index",
    )
    metrics_port: Port = option(0, metavar="N", help=METRICS_HELP, shown="0 (off)")
    max_connect_errors: ConnectErrors = option(100, metavar="N", help=MAX_CONNECT_ERRORS_HELP)
    ssl_cert: OptionalPath = option(None, metavar="PATH", help=SSL_CERT_HELP, shown=SSL_GENERATED)
    ssl_key: OptionalPath = option(None, metavar="PATH", help=SSL_KEY_HELP, shown=SSL_GENERATED)
    ssl_ca: OptionalPath = option(None, metavar="PATH", help=SSL_CA_HELP, shown=SSL_GENERATED)
    require_secure_transport: Bool = option(
        False, metavar="BOOL", help=REQUIRE_SECURE_TRANSPORT_HELP
    )

    @field_validator("master_heartbeat_period", mode="before")
    @classmethod
    def _half_the_net_timeout(cls, value: Any, info: ValidationInfo) -> Any:
        """Unset means slave_net_timeout / 2, as MySQL computes it (never below 1 ms)."""
        if value is not None:
            return value
        return max(info.data.get("slave_net_timeout", 60.0) / 2, 0.001)
