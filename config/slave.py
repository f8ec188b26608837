"""SlaveConfig: every option of `semisync slave` (../shared/INTERFACE.md), typed and checked.

`master_heartbeat_period` defaults to half of `slave_net_timeout` (WL#342), so it is always a
number of seconds once the model is built (0 = heartbeats disabled). `server_id` is required;
that it differs from the master's is checked when connecting, not here.
"""

from __future__ import annotations

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
    option,
    parse_basename,
    parse_bool,
    parse_optional_host,
    parse_seconds,
    parse_text,
)

MAX_SECONDS = 31536000  # one year, mysqld's limit for slave_net_timeout and MASTER_CONNECT_RETRY


def _heartbeat(value: Any) -> float:
    return parse_seconds(value, 0.001, 4294967, zero_disables=True)


def _timeout(value: Any) -> float:
    return parse_seconds(value, 0.001, MAX_SECONDS)


class SlaveConfig(DaemonConfig):
    datadir: DataDir = option(
        Path("./data/slave"),
        metavar="PATH",
        shown="./data/slave",
        help="relay logs, master.info, relay-log.info, the applied database",
    )
    bind_address: BindAddress = option("127.0.0.1", metavar="ADDR", help=BIND_HELP)
    port: Port = option(
        3307, metavar="N", help="the slave's own MySQL protocol port (reads, admin)"
    )
    server_id: ServerId = option(
        metavar="N",
        help="this server's id, 1-4294967295; must differ from the master's",
    )
    root_password: Password = option("", metavar="TEXT", help=ROOT_PASSWORD_HELP)
    root_password_file: PasswordFile = option(None, metavar="PATH", help=ROOT_PASSWORD_FILE_HELP)
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
    rpl_semi_sync_slave_enabled: Annotated[bool, checked(parse_bool)] = option(
        False,
        metavar="BOOL",
        help="semi-sync on the slave side (ON|OFF|1|0|TRUE|FALSE)",
    )
    sync_relay_log: Count = option(
        1,
        metavar="N",
        help="fsync the relay log every N events; an ack is only sent for a durable event",
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
    require_secure_transport: Annotated[bool, checked(parse_bool)] = option(
        False, metavar="BOOL", help=REQUIRE_SECURE_TRANSPORT_HELP
    )

    @field_validator("master_heartbeat_period", mode="before")
    @classmethod
    def _half_the_net_timeout(cls, value: Any, info: ValidationInfo) -> Any:
        """Unset means slave_net_timeout / 2, as MySQL computes it (never below 1 ms)."""
        if value is not None:
            return value
        return max(info.data.get("slave_net_timeout", 60.0) / 2, 0.001)
