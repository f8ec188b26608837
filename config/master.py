"""MasterConfig: every option of `semisync master` (../shared/INTERFACE.md), typed and checked.

Names and defaults are MySQL 5.7's (`rpl_semi_sync_master_*`); the loader also accepts the
MySQL 8 spellings `rpl_semi_sync_source_*` in files and the environment.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated

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
from config.values import checked, integer, one_of, option, parse_basename, parse_bool


class BinlogChecksum(enum.StrEnum):
    NONE = "NONE"
    CRC32 = "CRC32"


class WaitPoint(enum.StrEnum):
    """When a committing session waits for the slaves' acks (WL#6355's rpl_semi_sync_master_wait_point)."""

    AFTER_SYNC = "AFTER_SYNC"  # after the binlog fsync, before the engine commit (lossless)
    AFTER_COMMIT = "AFTER_COMMIT"  # after the engine commit, before the client's OK


class BinlogErrorAction(enum.StrEnum):
    """What the master does when the engine cannot commit a group already in the binlog
    (MySQL's binlog_error_action; master/commit.py). A failed binlog write itself is always
    undone and fails its group, whatever this says: unlike MySQL's IGNORE_ERROR, binary logging
    is never turned off."""

    ABORT_SERVER = "ABORT_SERVER"  # log and stop; the binlog is replayed into the engine at restart
    IGNORE_ERROR = "IGNORE_ERROR"  # go on: replay the group from the binlog before the next one


class MasterConfig(DaemonConfig):
    datadir: DataDir = option(
        Path("./data/master"),
        metavar="PATH",
        shown="./data/master",
        help="binlogs, index, the embedded database, users",
    )
    bind_address: BindAddress = option("127.0.0.1", metavar="ADDR", help=BIND_HELP)
    port: Port = option(3306, metavar="N", help="MySQL protocol port (clients and slaves)")
    server_id: ServerId = option(1, metavar="N", help="this server's id, 1-4294967295")
    root_password: Password = option("", metavar="TEXT", help=ROOT_PASSWORD_HELP)
    root_password_file: PasswordFile = option(None, metavar="PATH", help=ROOT_PASSWORD_FILE_HELP)
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
    rpl_semi_sync_master_enabled: Annotated[bool, checked(parse_bool)] = option(
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
    rpl_semi_sync_master_wait_no_slave: Annotated[bool, checked(parse_bool)] = option(
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
    metrics_port: Port = option(0, metavar="N", help=METRICS_HELP, shown="0 (off)")
    max_connect_errors: ConnectErrors = option(100, metavar="N", help=MAX_CONNECT_ERRORS_HELP)
    ssl_cert: OptionalPath = option(None, metavar="PATH", help=SSL_CERT_HELP, shown=SSL_GENERATED)
    ssl_key: OptionalPath = option(None, metavar="PATH", help=SSL_KEY_HELP, shown=SSL_GENERATED)
    ssl_ca: OptionalPath = option(None, metavar="PATH", help=SSL_CA_HELP, shown=SSL_GENERATED)
    require_secure_transport: Annotated[bool, checked(parse_bool)] = option(
        False, metavar="BOOL", help=REQUIRE_SECURE_TRANSPORT_HELP
    )
