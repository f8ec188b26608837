"""Typed MySQL client/server messages: handshake, commands, responses, text result sets.

Each wire format is declared once below with `construct`, fields in wire order (MySQL 4.1+
protocol; MariaDB's extended capabilities where MariaDB puts them). Every message is a frozen
dataclass with `encode(...) -> bytes` (the packet *payload*, framing is `protocol.packets`) and a
`decode(payload, ...)` classmethod. Text is carried as `str`; bytes that are not UTF-8 survive a
decode/encode round trip (surrogateescape), so re-encoding a decoded packet gives the same bytes.

Contracts:
- `decode` raises only `RemoteProtocolError` (the peer sent a malformed packet); trailing bytes
  after a format's last field are malformed. Command-level errors are non-fatal (`fatal=False`):
  the server answers them with the carried ERR and keeps the connection.
- `encode` raises only `LocalProtocolError` (we built a value the format cannot carry).
- A few hot formats (OK, text rows) are also written by hand; those functions are the compiled
  form of the declaration next to them, and tests check that both give the same bytes.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import construct as c

from protocol.auth import NATIVE_PASSWORD_PLUGIN
from protocol.errors import (
    ER_HANDSHAKE_ERROR,
    ER_MALFORMED_PACKET,
    ER_UNKNOWN_ERROR,
    LocalProtocolError,
    MySQLError,
    RemoteProtocolError,
    SQLError,
)
from protocol.packets import (
    MAX_PAYLOAD,
    NULL_MARKER,
    LenencBytes,
    LenencInt,
    decode_lenenc_bytes,
    decode_lenenc_int,
    decode_text,
    encode_lenenc_bytes,
    encode_lenenc_int,
    encode_packet,
    encode_text,
)


class Capability(enum.IntFlag):
    """Capability flags of the handshake (include/mysql_com.h); bit 0 is MariaDB's CLIENT_MYSQL."""

    CLIENT_LONG_PASSWORD = 1 << 0
    CLIENT_FOUND_ROWS = 1 << 1
    CLIENT_LONG_FLAG = 1 << 2
    CLIENT_CONNECT_WITH_DB = 1 << 3
    CLIENT_NO_SCHEMA = 1 << 4
    CLIENT_COMPRESS = 1 << 5
    CLIENT_ODBC = 1 << 6
    CLIENT_LOCAL_FILES = 1 << 7
    CLIENT_IGNORE_SPACE = 1 << 8
    CLIENT_PROTOCOL_41 = 1 << 9
    CLIENT_INTERACTIVE = 1 << 10
    CLIENT_SSL = 1 << 11
    CLIENT_IGNORE_SIGPIPE = 1 << 12
    CLIENT_TRANSACTIONS = 1 << 13
    CLIENT_RESERVED = 1 << 14
    CLIENT_SECURE_CONNECTION = 1 << 15
    CLIENT_MULTI_STATEMENTS = 1 << 16
    CLIENT_MULTI_RESULTS = 1 << 17
    CLIENT_PS_MULTI_RESULTS = 1 << 18
    CLIENT_PLUGIN_AUTH = 1 << 19
    CLIENT_CONNECT_ATTRS = 1 << 20
    CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA = 1 << 21
    CLIENT_CAN_HANDLE_EXPIRED_PASSWORDS = 1 << 22
    CLIENT_SESSION_TRACK = 1 << 23
    CLIENT_DEPRECATE_EOF = 1 << 24
    CLIENT_OPTIONAL_RESULTSET_METADATA = 1 << 25
    CLIENT_ZSTD_COMPRESSION = 1 << 26
    CLIENT_QUERY_ATTRIBUTES = 1 << 27
    CLIENT_MULTI_FACTOR_AUTH = 1 << 28
    CLIENT_CAPABILITY_EXTENSION = 1 << 29
    CLIENT_SSL_VERIFY_SERVER_CERT = 1 << 30
    CLIENT_REMEMBER_OPTIONS = 1 << 31

    CLIENT_MYSQL = 1 << 0  # MariaDB's name for bit 0: "not a MariaDB peer, no extended caps"


# MariaDB's extended capabilities (the greeting's and the login's last four filler bytes, read
# when the server clears CLIENT_MYSQL): MARIADB_CLIENT_EXTENDED_METADATA is bit 3 there (bit 35
# of the 64-bit capabilities). A negotiated one is kept in a connection's `capabilities` as
# `EXTENDED_METADATA`, above the 32 protocol bits.
MARIADB_CLIENT_EXTENDED_METADATA = 1 << 3
EXTENDED_METADATA = MARIADB_CLIENT_EXTENDED_METADATA << 32
# MARIADB_CLIENT_STMT_BULK_OPERATIONS, bit 2 there: the client may send COM_STMT_BULK_EXECUTE
# (`protocol.binary`); negotiated, kept as `STMT_BULK_OPERATIONS`.
MARIADB_CLIENT_STMT_BULK_OPERATIONS = 1 << 2
STMT_BULK_OPERATIONS = MARIADB_CLIENT_STMT_BULK_OPERATIONS << 32


class ServerStatus(enum.IntFlag):
    IN_TRANS = 1 << 0
    AUTOCOMMIT = 1 << 1
    MORE_RESULTS_EXISTS = 1 << 3
    NO_GOOD_INDEX_USED = 1 << 4
    NO_INDEX_USED = 1 << 5
    CURSOR_EXISTS = 1 << 6
    LAST_ROW_SENT = 1 << 7
    DB_DROPPED = 1 << 8
    NO_BACKSLASH_ESCAPES = 1 << 9
    METADATA_CHANGED = 1 << 10
    QUERY_WAS_SLOW = 1 << 11
    PS_OUT_PARAMS = 1 << 12
    IN_TRANS_READONLY = 1 << 13
    SESSION_STATE_CHANGED = 1 << 14


class FieldType(enum.IntEnum):
    DECIMAL = 0
    TINY = 1
    SHORT = 2
    LONG = 3
    FLOAT = 4
    DOUBLE = 5
    NULL = 6
    TIMESTAMP = 7
    LONGLONG = 8
    INT24 = 9
    DATE = 10
    TIME = 11
    DATETIME = 12
    YEAR = 13
    NEWDATE = 14
    VARCHAR = 15
    BIT = 16
    TIMESTAMP2 = 17
    DATETIME2 = 18
    TIME2 = 19
    JSON = 245
    NEWDECIMAL = 246
    ENUM = 247
    SET = 248
    TINY_BLOB = 249
    MEDIUM_BLOB = 250
    LONG_BLOB = 251
    BLOB = 252
    VAR_STRING = 253
    STRING = 254
    GEOMETRY = 255


class ColumnFlag(enum.IntFlag):
    NOT_NULL = 1
    PRI_KEY = 2
    UNIQUE_KEY = 4
    MULTIPLE_KEY = 8
    BLOB = 16
    UNSIGNED = 32
    ZEROFILL = 64
    BINARY = 128
    ENUM = 256
    AUTO_INCREMENT = 512
    TIMESTAMP = 1024
    SET = 2048
    NO_DEFAULT_VALUE = 4096
    ON_UPDATE_NOW = 8192
    PART_KEY = 16384
    NUM = 32768


CHARSET_UTF8_GENERAL_CI = 33
CHARSET_UTF8MB4_GENERAL_CI = 45
CHARSET_BINARY = 63

COM_SLEEP = 0x00
COM_QUIT = 0x01
COM_INIT_DB = 0x02
COM_QUERY = 0x03
COM_PROCESS_KILL = 0x0C
COM_PING = 0x0E
COM_BINLOG_DUMP = 0x12
COM_REGISTER_SLAVE = 0x15
COM_BINLOG_DUMP_GTID = 0x1E

BINLOG_DUMP_NON_BLOCK = 1
BINLOG_SEND_ANNOTATE_ROWS_EVENT = 2  # MariaDB: send ANNOTATE_ROWS (skipped for a dump that does not ask)
BINLOG_THROUGH_GTID = 4  # COM_BINLOG_DUMP_GTID: a GTID set follows the position

OK_HEADER = 0x00
EOF_HEADER = 0xFE
ERR_HEADER = 0xFF
AUTH_SWITCH_HEADER = 0xFE
LOCAL_INFILE_HEADER = 0xFB


@dataclass(frozen=True, slots=True)
class LocalInfileRequest:
    """The server's request for a LOAD DATA LOCAL INFILE's file: 0xFB and the file's name as the
    statement wrote it (not NUL-terminated); the client answers with the file's bytes in
    packets and an empty packet."""

    filename: str

    def encode(self) -> bytes:
        return bytes((LOCAL_INFILE_HEADER,)) + self.filename.encode("utf-8", "surrogateescape")


_text = decode_text
_raw = encode_text


_PARSE_ERRORS = (c.ConstructError, ValueError, IndexError, TypeError, OverflowError, KeyError)


def _parse(fmt: c.Construct, payload: bytes, what: str, error: MySQLError, fatal: bool) -> Any:
    try:
        return fmt.parse(payload)
    except _PARSE_ERRORS as exc:
        raise RemoteProtocolError(f"malformed {what}: {exc}", error=error, fatal=fatal) from None


def _build(fmt: c.Construct, value: dict[str, Any], what: str) -> bytes:
    try:
        return fmt.build(value)
    except _PARSE_ERRORS as exc:
        raise LocalProtocolError(f"cannot encode {what}: {exc}") from None


def _cstring(require: bool = True) -> c.Construct:
    return c.NullTerminated(c.GreedyBytes, require=require)


def _has(flag: int):
    return lambda this: bool(this.capabilities & flag)


# ---------------------------------------------------------------------------------------------
# Connection phase

HANDSHAKE_V10 = c.Struct(
    "protocol_version" / c.Const(10, c.Int8ul),
    "server_version" / _cstring(),
    "connection_id" / c.Int32ul,
    "salt_1" / c.Bytes(8),
    "filler" / c.Const(b"\x00"),
    "capabilities_lower" / c.Int16ul,
    "charset" / c.Int8ul,
    "status" / c.Int16ul,
    "capabilities_upper" / c.Int16ul,
    "salt_length" / c.Int8ul,  # len(salt) + 1 with CLIENT_PLUGIN_AUTH, else 0
    "reserved" / c.Const(bytes(6)),
    # MySQL: 4 more reserved zero bytes. MariaDB (CLIENT_MYSQL clear): extended capabilities.
    "mariadb_capabilities" / c.Int32ul,
    # Salt bytes 9.., NUL-terminated, at least 13 bytes in all.
    "salt_2" / c.Bytes(lambda this: max(13, this.salt_length - 8)),
    "auth_plugin_name"
    / c.If(
        lambda this: this.capabilities_upper << 16 & Capability.CLIENT_PLUGIN_AUTH,
        _cstring(require=False),
    ),
    c.Terminated,
)


@dataclass(frozen=True, slots=True)
class Handshake:
    """The server greeting (Protocol::HandshakeV10)."""

    server_version: str
    connection_id: int
    salt: bytes
    capabilities: int
    charset: int = CHARSET_UTF8_GENERAL_CI
    status: int = ServerStatus.AUTOCOMMIT
    auth_plugin_name: str = NATIVE_PASSWORD_PLUGIN
    mariadb_capabilities: int = 0

    def encode(self) -> bytes:
        plugin_auth = bool(self.capabilities & Capability.CLIENT_PLUGIN_AUTH)
        salt_2 = self.salt[8:] + b"\x00"
        salt_2 += bytes(13 - len(salt_2)) if len(salt_2) < 13 else b""
        return _build(
            HANDSHAKE_V10,
            dict(
                server_version=_raw(self.server_version),
                connection_id=self.connection_id,
                salt_1=self.salt[:8],
                capabilities_lower=self.capabilities & 0xFFFF,
                charset=self.charset,
                status=self.status,
                capabilities_upper=self.capabilities >> 16 & 0xFFFF,
                salt_length=len(self.salt) + 1 if plugin_auth else 0,
                mariadb_capabilities=self.mariadb_capabilities,
                salt_2=salt_2,
                auth_plugin_name=_raw(self.auth_plugin_name) if plugin_auth else None,
            ),
            "handshake",
        )

    @classmethod
    def decode(cls, payload: bytes) -> Handshake:
        if payload[:1] == bytes((ERR_HEADER,)):
            raise RemoteProtocolError("server refused the connection: " + repr(ERR.decode(payload)),
                                      error=ER_HANDSHAKE_ERROR)
        v = _parse(HANDSHAKE_V10, payload, "handshake", ER_HANDSHAKE_ERROR, True)
        capabilities = v.capabilities_lower | v.capabilities_upper << 16
        salt_2 = v.salt_2
        if v.salt_length:
            salt_2 = salt_2[: v.salt_length - 9]
        else:
            salt_2 = salt_2.rstrip(b"\x00")
        return cls(
            server_version=_text(v.server_version),
            connection_id=v.connection_id,
            salt=v.salt_1 + salt_2,
            capabilities=capabilities,
            charset=v.charset,
            status=v.status,
            auth_plugin_name=_text(v.auth_plugin_name) if v.auth_plugin_name is not None else "",
            mariadb_capabilities=v.mariadb_capabilities,
        )


_CONNECT_ATTR = c.Struct("key" / LenencBytes, "value" / LenencBytes)

HANDSHAKE_RESPONSE_41 = c.Struct(
    "capabilities" / c.Int32ul,
    "max_packet_size" / c.Int32ul,
    "charset" / c.Int8ul,
    "filler" / c.Padding(19),  # zeros sent, anything read: MariaDB skips them unread
    # MySQL: reserved zeros. MariaDB client (CLIENT_MYSQL clear): extended capabilities.
    "mariadb_capabilities" / c.Int32ul,
    "user" / _cstring(),
    "auth_response"
    / c.IfThenElse(
        _has(Capability.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA),
        LenencBytes,
        c.IfThenElse(
            _has(Capability.CLIENT_SECURE_CONNECTION),
            c.Prefixed(c.Int8ul, c.GreedyBytes),
            _cstring(),
        ),
    ),
    "database" / c.If(_has(Capability.CLIENT_CONNECT_WITH_DB), _cstring(require=False)),
    "auth_plugin_name" / c.If(_has(Capability.CLIENT_PLUGIN_AUTH), _cstring(require=False)),
    "attributes"
    / c.If(
        _has(Capability.CLIENT_CONNECT_ATTRS),
        c.Optional(c.Prefixed(LenencInt, c.GreedyRange(_CONNECT_ATTR))),
    ),
    c.Terminated,
)
SSL_REQUEST = c.Struct(  # the SSLRequest: the login's fixed head alone, CLIENT_SSL set
    "capabilities" / c.Int32ul,
    "max_packet_size" / c.Int32ul,
    "charset" / c.Int8ul,
    "filler" / c.Padding(19),  # zeros sent, anything read: MariaDB skips them unread
    "mariadb_capabilities" / c.Int32ul,
    c.Terminated,
)
SSL_REQUEST_SIZE = 32


@dataclass(frozen=True)
class SslRequest:
    """Client -> server: switch to TLS now; the real login follows over TLS."""

    capabilities: int
    max_packet_size: int = 1 << 24
    charset: int = CHARSET_UTF8MB4_GENERAL_CI
    mariadb_capabilities: int = 0

    def encode(self) -> bytes:
        return _build(
            SSL_REQUEST,
            dict(capabilities=self.capabilities | Capability.CLIENT_SSL, max_packet_size=self.max_packet_size,
                 charset=self.charset, mariadb_capabilities=self.mariadb_capabilities),
            "SSL request",
        )

    @classmethod
    def decode(cls, payload: bytes) -> SslRequest:
        v = _parse(SSL_REQUEST, payload, "SSL request", ER_HANDSHAKE_ERROR, True)
        return cls(v.capabilities, v.max_packet_size, v.charset, v.mariadb_capabilities)


@dataclass(frozen=True)
class HandshakeResponse:
    """The client's login packet (Protocol::HandshakeResponse41).

    `database` and `auth_plugin_name` are None when the capability that carries them is off;
    `attributes` is None when the client sent no attribute block.
    """

    capabilities: int
    user: str
    auth_response: bytes = b""
    database: str | None = None
    auth_plugin_name: str | None = NATIVE_PASSWORD_PLUGIN
    attributes: dict[str, str] | None = None
    max_packet_size: int = 1 << 24
    charset: int = CHARSET_UTF8MB4_GENERAL_CI
    mariadb_capabilities: int = 0

    def encode(self) -> bytes:
        caps = self.capabilities
        attrs = None
        if caps & Capability.CLIENT_CONNECT_ATTRS and self.attributes is not None:
            attrs = [dict(key=_raw(k), value=_raw(v)) for k, v in self.attributes.items()]
        return _build(
            HANDSHAKE_RESPONSE_41,
            dict(
                capabilities=caps,
                max_packet_size=self.max_packet_size,
                charset=self.charset,
                mariadb_capabilities=self.mariadb_capabilities,
                user=_raw(self.user),
                auth_response=self.auth_response,
                database=_raw(self.database or "") if caps & Capability.CLIENT_CONNECT_WITH_DB else None,
                auth_plugin_name=_raw(self.auth_plugin_name or "")
                if caps & Capability.CLIENT_PLUGIN_AUTH
                else None,
                attributes=attrs,
            ),
            "handshake response",
        )

    @classmethod
    def decode(cls, payload: bytes) -> HandshakeResponse:
        if len(payload) == SSL_REQUEST_SIZE:
            raise RemoteProtocolError("SSL is not supported", error=ER_HANDSHAKE_ERROR)
        if len(payload) >= 4 and not payload[1] & (Capability.CLIENT_PROTOCOL_41 >> 8):
            raise RemoteProtocolError("pre-4.1 handshake response", error=ER_HANDSHAKE_ERROR)
        v = _parse(HANDSHAKE_RESPONSE_41, payload, "handshake response", ER_HANDSHAKE_ERROR, True)
        attrs = None
        if v.attributes is not None:
            attrs = {_text(a.key): _text(a.value) for a in v.attributes}
        return cls(
            capabilities=v.capabilities,
            user=_text(v.user),
            auth_response=v.auth_response,
            database=_text(v.database) if v.database is not None else None,
            auth_plugin_name=_text(v.auth_plugin_name) if v.auth_plugin_name is not None else None,
            attributes=attrs,
            max_packet_size=v.max_packet_size,
            charset=v.charset,
            mariadb_capabilities=v.mariadb_capabilities,
        )


def _negotiated(flag: int):
    """A field present under `flag` of the capabilities passed to `parse` / `build`."""
    return lambda this: bool(this._params.capabilities & flag)


# COM_CHANGE_USER's body (after its 0x11), read with the capabilities the login negotiated:
# MariaDB's parse_com_change_user_packet
CHANGE_USER = c.Struct(
    "user" / _cstring(),
    "auth_response" / c.IfThenElse(_negotiated(Capability.CLIENT_SECURE_CONNECTION), c.Prefixed(c.Int8ul, c.GreedyBytes),
                                   _cstring()),
    "database" / _cstring(require=False),
    "charset" / c.Optional(c.Int16ul),
    "auth_plugin_name" / c.If(_negotiated(Capability.CLIENT_PLUGIN_AUTH), c.Optional(_cstring(require=False))),
    "attributes" / c.If(_negotiated(Capability.CLIENT_CONNECT_ATTRS),
                        c.Optional(c.Prefixed(LenencInt, c.GreedyRange(_CONNECT_ATTR)))),
    c.Terminated,
)


@dataclass(frozen=True)
class ChangeUser:
    """COM_CHANGE_USER: log in again as `user` on this connection (the auth response computed
    on the connection's greeting salt)."""

    user: str
    auth_response: bytes
    database: str
    charset: int | None = None
    auth_plugin_name: str | None = None

    COMMAND = 0x11

    @classmethod
    def decode(cls, body: bytes, capabilities: int) -> ChangeUser:
        """`body`: the command's payload after its code byte."""
        try:
            v = CHANGE_USER.parse(body, capabilities=capabilities)
        except _PARSE_ERRORS as exc:
            raise RemoteProtocolError(f"malformed COM_CHANGE_USER: {exc}", error=ER_MALFORMED_PACKET) from None
        plugin = v.auth_plugin_name
        return cls(_text(v.user), v.auth_response, _text(v.database), v.charset,
                   _text(plugin) if plugin else None)

    def encode(self, capabilities: int) -> bytes:
        plugin = _raw(self.auth_plugin_name or "") if capabilities & Capability.CLIENT_PLUGIN_AUTH else None
        try:
            return bytes((self.COMMAND,)) + CHANGE_USER.build(dict(
                user=_raw(self.user), auth_response=self.auth_response, database=_raw(self.database),
                charset=self.charset, auth_plugin_name=plugin, attributes=None), capabilities=capabilities)
        except _PARSE_ERRORS as exc:
            raise LocalProtocolError(f"cannot encode COM_CHANGE_USER: {exc}") from None


AUTH_SWITCH_REQUEST = c.Struct(
    "header" / c.Const(AUTH_SWITCH_HEADER, c.Int8ul),
    "plugin_name" / _cstring(),
    "data" / c.GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class AuthSwitchRequest:
    """Server -> client: authenticate again with `plugin_name`; `data` is the plugin's salt
    (for mysql_native_password: 20 salt bytes + NUL)."""

    plugin_name: str
    data: bytes

    @property
    def salt(self) -> bytes:
        return self.data[:-1] if self.data.endswith(b"\x00") else self.data

    def encode(self) -> bytes:
        return _build(
            AUTH_SWITCH_REQUEST, dict(plugin_name=_raw(self.plugin_name), data=self.data),
            "auth switch request",
        )

    @classmethod
    def decode(cls, payload: bytes) -> AuthSwitchRequest:
        v = _parse(AUTH_SWITCH_REQUEST, payload, "auth switch request", ER_HANDSHAKE_ERROR, True)
        return cls(_text(v.plugin_name), v.data)


@dataclass(frozen=True, slots=True)
class AuthSwitchResponse:
    """Client -> server: the raw auth data for the plugin asked by an AuthSwitchRequest."""

    data: bytes

    def encode(self) -> bytes:
        return self.data

    @classmethod
    def decode(cls, payload: bytes) -> AuthSwitchResponse:
        return cls(bytes(payload))


# ---------------------------------------------------------------------------------------------
# Commands (client -> server, sequence id 0)


def _command(code: int, *fields: c.Construct, terminated: bool = True) -> c.Struct:
    parts = ["command" / c.Const(code, c.Int8ul), *fields]
    if terminated:
        parts.append(c.Terminated)
    return c.Struct(*parts)


COM_QUIT_FORMAT = _command(COM_QUIT)
COM_PING_FORMAT = _command(COM_PING)
COM_INIT_DB_FORMAT = _command(COM_INIT_DB, "schema" / c.GreedyBytes)
COM_QUERY_FORMAT = _command(COM_QUERY, "query" / c.GreedyBytes)
COM_PROCESS_KILL_FORMAT = _command(COM_PROCESS_KILL, "connection_id" / c.Int32ul)
COM_REGISTER_SLAVE_FORMAT = _command(
    COM_REGISTER_SLAVE,
    "server_id" / c.Int32ul,
    "host" / c.Prefixed(c.Int8ul, c.GreedyBytes),
    "user" / c.Prefixed(c.Int8ul, c.GreedyBytes),
    "password" / c.Prefixed(c.Int8ul, c.GreedyBytes),
    "port" / c.Int16ul,
    "rpl_recovery_rank" / c.Int32ul,
    "master_id" / c.Int32ul,
)
COM_BINLOG_DUMP_FORMAT = _command(
    COM_BINLOG_DUMP,
    "position" / c.Int32ul,
    "flags" / c.Int16ul,
    "server_id" / c.Int32ul,
    "filename" / c.GreedyBytes,
)
COM_BINLOG_DUMP_GTID_FORMAT = _command(
    COM_BINLOG_DUMP_GTID,
    "flags" / c.Int16ul,
    "server_id" / c.Int32ul,
    "filename" / c.Prefixed(c.Int32ul, c.GreedyBytes),
    "position" / c.Int64ul,
    "gtid_data" / c.If(lambda this: this.flags & BINLOG_THROUGH_GTID, c.Prefixed(c.Int32ul, c.GreedyBytes)),
)


class Command:
    """Base of the command messages; `COMMAND` is the command byte."""

    __slots__ = ()
    COMMAND: ClassVar[int]

    def encode(self) -> bytes:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class ComQuit(Command):
    COMMAND: ClassVar[int] = COM_QUIT

    def encode(self) -> bytes:
        return b"\x01"


@dataclass(frozen=True, slots=True)
class ComPing(Command):
    COMMAND: ClassVar[int] = COM_PING

    def encode(self) -> bytes:
        return b"\x0e"


@dataclass(frozen=True, slots=True)
class ComInitDB(Command):
    COMMAND: ClassVar[int] = COM_INIT_DB
    db: str

    def encode(self) -> bytes:
        return b"\x02" + _raw(self.db)


@dataclass(frozen=True, slots=True)
class ComQuery(Command):
    COMMAND: ClassVar[int] = COM_QUERY
    sql: str

    def encode(self) -> bytes:
        # Compiled form of COM_QUERY_FORMAT.
        return b"\x03" + _raw(self.sql)


@dataclass(frozen=True, slots=True)
class ComProcessKill(Command):
    COMMAND: ClassVar[int] = COM_PROCESS_KILL
    connection_id: int

    def encode(self) -> bytes:
        return _build(COM_PROCESS_KILL_FORMAT, dict(connection_id=self.connection_id), "COM_PROCESS_KILL")


@dataclass(frozen=True, slots=True)
class ComRegisterSlave(Command):
    COMMAND: ClassVar[int] = COM_REGISTER_SLAVE
    server_id: int
    host: str = ""
    user: str = ""
    password: str = ""
    port: int = 0
    rpl_recovery_rank: int = 0
    master_id: int = 0

    def encode(self) -> bytes:
        return _build(
            COM_REGISTER_SLAVE_FORMAT,
            dict(
                server_id=self.server_id,
                host=_raw(self.host),
                user=_raw(self.user),
                password=_raw(self.password),
                port=self.port,
                rpl_recovery_rank=self.rpl_recovery_rank,
                master_id=self.master_id,
            ),
            "COM_REGISTER_SLAVE",
        )


@dataclass(frozen=True, slots=True)
class ComBinlogDump(Command):
    COMMAND: ClassVar[int] = COM_BINLOG_DUMP
    position: int
    flags: int
    server_id: int
    filename: str

    def encode(self) -> bytes:
        return _build(
            COM_BINLOG_DUMP_FORMAT,
            dict(position=self.position, flags=self.flags, server_id=self.server_id,
                 filename=_raw(self.filename)),
            "COM_BINLOG_DUMP",
        )


@dataclass(frozen=True, slots=True)
class ComBinlogDumpGtid(Command):
    """MySQL's GTID dump request; decoded so that a server can refuse it with a clear error."""

    COMMAND: ClassVar[int] = COM_BINLOG_DUMP_GTID
    flags: int
    server_id: int
    filename: str
    position: int
    gtid_data: bytes | None = None

    def encode(self) -> bytes:
        return _build(
            COM_BINLOG_DUMP_GTID_FORMAT,
            dict(flags=self.flags, server_id=self.server_id, filename=_raw(self.filename),
                 position=self.position, gtid_data=self.gtid_data),
            "COM_BINLOG_DUMP_GTID",
        )


@dataclass(frozen=True, slots=True)
class ComUnknown(Command):
    """Any other command byte (an empty packet counts as COM_SLEEP, as in mysqld)."""

    code: int
    payload: bytes = b""

    def encode(self) -> bytes:
        return bytes((self.code,)) + self.payload


def _decode_init_db(v: Any) -> Command:
    return ComInitDB(_text(v.schema))


def _decode_process_kill(v: Any) -> Command:
    return ComProcessKill(v.connection_id)


def _decode_register_slave(v: Any) -> Command:
    return ComRegisterSlave(
        server_id=v.server_id, host=_text(v.host), user=_text(v.user), password=_text(v.password),
        port=v.port, rpl_recovery_rank=v.rpl_recovery_rank, master_id=v.master_id,
    )


def _decode_binlog_dump(v: Any) -> Command:
    return ComBinlogDump(v.position, v.flags, v.server_id, _text(v.filename))


def _decode_binlog_dump_gtid(v: Any) -> Command:
    return ComBinlogDumpGtid(v.flags, v.server_id, _text(v.filename), v.position, v.gtid_data)


_COMMAND_DECODERS: dict[int, tuple[str, c.Construct, Any]] = {
    COM_INIT_DB: ("COM_INIT_DB", COM_INIT_DB_FORMAT, _decode_init_db),
    COM_PROCESS_KILL: ("COM_PROCESS_KILL", COM_PROCESS_KILL_FORMAT, _decode_process_kill),
    COM_REGISTER_SLAVE: ("COM_REGISTER_SLAVE", COM_REGISTER_SLAVE_FORMAT, _decode_register_slave),
    COM_BINLOG_DUMP: ("COM_BINLOG_DUMP", COM_BINLOG_DUMP_FORMAT, _decode_binlog_dump),
    COM_BINLOG_DUMP_GTID: ("COM_BINLOG_DUMP_GTID", COM_BINLOG_DUMP_GTID_FORMAT, _decode_binlog_dump_gtid),
}
_QUIT = ComQuit()
_PING = ComPing()


# what MariaDB's alloc_query drops from a query's end (its my_isspace characters and ';')
_QUERY_TAIL = " \t\n\v\f\r;"


def _ended_at_nul(sql: str) -> str:
    """A COM_QUERY's text as MariaDB's lexer reads it: a NUL that is its last character once
    trailing spaces and ';' are dropped ends it (a C client such as mariadb-slap sends the
    string's terminating NUL); a NUL anywhere else stays (a syntax error outside a string)."""
    body = sql.rstrip(_QUERY_TAIL)
    return body[:-1] if body.endswith("\0") else sql


def decode_command(payload: bytes, client_charset: Any = None) -> Command:
    """Decode a command packet's payload. Malformed known commands raise a non-fatal
    `RemoteProtocolError(ER_MALFORMED_PACKET)`; unknown command bytes give `ComUnknown`.
    `client_charset` (a `protocol.charsets.Charset`, None: UTF-8) is the one a COM_QUERY's
    text is read in (the connection's character_set_client)."""
    if not payload:
        return ComUnknown(COM_SLEEP)
    code = payload[0]
    if code == COM_QUERY:  # the hot path
        sql = client_charset.decode(payload[1:]) if client_charset is not None else _text(payload[1:])
        return ComQuery(_ended_at_nul(sql) if "\0" in sql else sql)
    if code == COM_QUIT or code == COM_PING:
        if len(payload) != 1:
            raise RemoteProtocolError(f"command {code:#x} carries trailing bytes",
                                      error=ER_MALFORMED_PACKET, fatal=False)
        return _QUIT if code == COM_QUIT else _PING
    entry = _COMMAND_DECODERS.get(code)
    if entry is None:
        return ComUnknown(code, bytes(payload[1:]))
    what, fmt, build = entry
    return build(_parse(fmt, payload, what, ER_MALFORMED_PACKET, False))


# ---------------------------------------------------------------------------------------------
# Responses (server -> client)

OK_PACKET = c.Struct(
    "header" / c.OneOf(c.Int8ul, (OK_HEADER, EOF_HEADER)),  # 0xFE: end of rows, DEPRECATE_EOF
    "affected_rows" / LenencInt,
    "last_insert_id" / LenencInt,
    "status" / c.Int16ul,
    "warnings" / c.Int16ul,
    # the info, length-encoded when there is one (as MariaDB sends it whatever the capabilities),
    # [+ session state changes under CLIENT_SESSION_TRACK, not interpreted]
    "info" / c.Optional(LenencBytes),
    "session_state" / c.GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class OK:
    affected_rows: int = 0
    last_insert_id: int = 0
    status: int = ServerStatus.AUTOCOMMIT
    warnings: int = 0
    info: str = ""

    def encode(self, capabilities: int = 0, header: int = OK_HEADER) -> bytes:
        """Compiled form of OK_PACKET (the hottest response): `encode_ok` of its fields."""
        return encode_ok(self.affected_rows, self.last_insert_id, self.status, self.warnings, self.info, header)

    @classmethod
    def decode(cls, payload: bytes, capabilities: int = 0) -> OK:
        """Compiled form of OK_PACKET.parse."""
        if payload[:1] not in (b"\x00", b"\xfe"):
            raise RemoteProtocolError(f"not an OK packet: {payload[:1].hex()}")
        affected, pos = decode_lenenc_int(payload, 1)
        last_id, pos = decode_lenenc_int(payload, pos)
        if affected is None or last_id is None or len(payload) < pos + 4:
            raise RemoteProtocolError("malformed OK packet")
        status, warnings = _OK_TAIL.unpack_from(payload, pos)
        info = payload[pos + 4 :]
        if info:  # length-encoded, as MariaDB sends it (session state changes are not interpreted)
            try:
                text, _ = decode_lenenc_bytes(info)
            except (RemoteProtocolError, IndexError):
                text = None
            info = text if text is not None else info  # (a server that wrote it bare)
        return cls(affected, last_id, status, warnings, _text(info))


_OK_TAIL = struct.Struct("<HH")  # status, warnings
_OK_SHORT = struct.Struct("<BBBHH")  # header, affected rows and last insert id under 0xFB, status, warnings


def encode_ok(affected_rows: int, last_insert_id: int, status: int, warnings: int = 0, info: str = "",
              header: int = OK_HEADER) -> bytes:
    """OK_PACKET's payload from its fields, compiled (`OK.encode`; a command's answer also
    without the OK object: `ServerConnection.send_ok`)."""
    try:  # (a statement's usual answer: both counts one byte long, in one pack)
        if 0 <= affected_rows < 0xFB and 0 <= last_insert_id < 0xFB and 0 <= status <= 0xFFFF:
            if not info:
                return _OK_SHORT.pack(header, affected_rows, last_insert_id, status, warnings)
            if len(info) < 0xFB and info.isascii():  # (an UPDATE's "Rows matched: ...": one byte each)
                return _OK_SHORT.pack(header, affected_rows, last_insert_id, status, warnings) \
                    + bytes((len(info),)) + info.encode("ascii")
    except (struct.error, TypeError):
        pass  # (what is out of range or of no number: the error below)
    # the info text length-encoded whatever the capabilities, as MariaDB's net_send_ok
    # writes it (and libmariadb / libmysqlclient read it)
    text = encode_lenenc_bytes(_raw(info)) if info else b""
    try:
        return b"".join((
            bytes((header,)),
            encode_lenenc_int(affected_rows),
            encode_lenenc_int(last_insert_id),
            (int(status) | warnings << 16).to_bytes(4, "little"),
            text,
        ))
    except (OverflowError, TypeError, ValueError) as exc:
        raise LocalProtocolError(f"cannot encode OK: {exc}") from None

ERR_PACKET = c.Struct(
    "header" / c.Const(ERR_HEADER, c.Int8ul),
    "code" / c.Int16ul,
    "sqlstate_marker" / c.Const(b"#"),
    "sqlstate" / c.Bytes(5),
    "message" / c.GreedyBytes,
)
# Before a client announced CLIENT_PROTOCOL_41 a server sends no SQLSTATE.
ERR_PACKET_NO_SQLSTATE = c.Struct(
    "header" / c.Const(ERR_HEADER, c.Int8ul),
    "code" / c.Int16ul,
    "message" / c.GreedyBytes,
)


@dataclass(frozen=True, slots=True)
class ERR:
    code: int
    sqlstate: str
    message: str

    @classmethod
    def from_error(cls, error: MySQLError, *args: object, message: str | None = None) -> ERR:
        return cls(error.code, error.sqlstate, message if message is not None else error.format(*args))

    @classmethod
    def from_exception(cls, exc: SQLError | Exception) -> ERR:
        """ERR for an SQLError or ProtocolError (anything with .error and .message)."""
        error = getattr(exc, "error", ER_UNKNOWN_ERROR)
        return cls(error.code, error.sqlstate, getattr(exc, "message", str(exc)))

    def encode(self) -> bytes:
        state = self.sqlstate.encode("ascii", "replace")
        if len(state) != 5:
            raise LocalProtocolError(f"SQLSTATE must be 5 characters: {self.sqlstate!r}")
        return _build(
            ERR_PACKET, dict(code=self.code, sqlstate=state, message=_raw(self.message)), "ERR"
        )

    @classmethod
    def decode(cls, payload: bytes) -> ERR:
        if payload[3:4] == b"#":
            v = _parse(ERR_PACKET, payload, "ERR packet", ER_UNKNOWN_ERROR, True)
            state = v.sqlstate.decode("ascii", "replace")
        else:
            v = _parse(ERR_PACKET_NO_SQLSTATE, payload, "ERR packet", ER_UNKNOWN_ERROR, True)
            state = "HY000"
        return cls(v.code, state, _text(v.message))


EOF_PACKET = c.Struct(
    "header" / c.Const(EOF_HEADER, c.Int8ul),
    "warnings" / c.Int16ul,
    "status" / c.Int16ul,
    c.Terminated,
)

_EOF_COMPILED = struct.Struct("<BHH")


@dataclass(frozen=True, slots=True)
class EOF:
    warnings: int = 0
    status: int = ServerStatus.AUTOCOMMIT

    def encode(self) -> bytes:
        """Compiled form of EOF_PACKET (twice in every classic result set)."""
        try:
            return _EOF_COMPILED.pack(EOF_HEADER, self.warnings, self.status)
        except struct.error as exc:
            raise LocalProtocolError(f"cannot encode EOF: {exc}") from None

    @classmethod
    def decode(cls, payload: bytes) -> EOF:
        v = _parse(EOF_PACKET, payload, "EOF packet", ER_UNKNOWN_ERROR, True)
        return cls(v.warnings, v.status)


def is_eof_packet(payload: bytes, deprecate_eof: bool = False) -> bool:
    """Does this packet end the rows? A classic EOF is header 0xFE in fewer than 9 bytes; under
    CLIENT_DEPRECATE_EOF the closing OK (header 0xFE) may be longer, but stays below 0xFFFFFF
    bytes. Either length rule tells it from a row that starts with an 8-byte lenenc length."""
    if payload[:1] != b"\xfe":
        return False
    return len(payload) < (MAX_PAYLOAD if deprecate_eof else 9)


COLUMN_DEFINITION_41 = c.Struct(
    "catalog" / LenencBytes,
    "schema" / LenencBytes,
    "table" / LenencBytes,
    "org_table" / LenencBytes,
    "name" / LenencBytes,
    "org_name" / LenencBytes,
    "fixed_length" / c.Const(0x0C, LenencInt),
    "charset" / c.Int16ul,
    "length" / c.Int32ul,
    "type" / c.Int8ul,
    "flags" / c.Int16ul,
    "decimals" / c.Int8ul,
    "filler" / c.Const(b"\x00\x00"),
    c.Terminated,
)


@dataclass(frozen=True, slots=True)
class ColumnDefinition:
    name: str
    type: int = FieldType.VAR_STRING
    charset: int = CHARSET_UTF8_GENERAL_CI
    length: int = 0
    flags: int = 0
    decimals: int = 0
    schema: str = ""
    table: str = ""
    org_table: str = ""
    org_name: str = ""
    catalog: str = "def"
    # MariaDB's extended type info, sent to a client that negotiated
    # MARIADB_CLIENT_EXTENDED_METADATA: a data type name ("uuid") and a format name ("json")
    type_name: str = ""
    format_name: str = ""

    def encode(self, extended: bool = False) -> bytes:
        """Compiled form of COLUMN_DEFINITION_41 (sent for every column of every result set);
        `extended`: with MariaDB's extended type info after the names (its length, then each
        name there is, tagged 0 for the data type, 1 for the format)."""
        try:
            return b"".join((
                encode_lenenc_bytes(_raw(self.catalog)),
                encode_lenenc_bytes(_raw(self.schema)),
                encode_lenenc_bytes(_raw(self.table)),
                encode_lenenc_bytes(_raw(self.org_table)),
                encode_lenenc_bytes(_raw(self.name)),
                encode_lenenc_bytes(_raw(self.org_name)),
                encode_lenenc_bytes(self._extended_info()) if extended else b"",
                _COLUMN_FIXED.pack(0x0C, self.charset, self.length, self.type, self.flags, self.decimals, 0),
            ))
        except struct.error as exc:
            raise LocalProtocolError(f"cannot encode column definition: {exc}") from None

    def _extended_info(self) -> bytes:
        info = b""
        if self.type_name:
            info += b"\x00" + encode_lenenc_bytes(_raw(self.type_name))
        if self.format_name:
            info += b"\x01" + encode_lenenc_bytes(_raw(self.format_name))
        return info

    @classmethod
    def decode(cls, payload: bytes) -> ColumnDefinition:
        """Compiled form of COLUMN_DEFINITION_41.parse (raises RemoteProtocolError)."""
        texts = []
        pos = 0
        for _ in range(6):
            raw, pos = decode_lenenc_bytes(payload, pos)
            if raw is None:
                raise RemoteProtocolError("NULL in a column definition")
            texts.append(_text(raw))
        if len(payload) - pos != _COLUMN_FIXED.size:
            raise RemoteProtocolError("column definition: bad fixed part length")
        fixed_len, charset, length, type_, flags, decimals, filler = _COLUMN_FIXED.unpack_from(payload, pos)
        if fixed_len != 0x0C or filler:
            raise RemoteProtocolError("column definition: bad fixed part")
        catalog, schema, table, org_table, name, org_name = texts
        return cls(
            name=name, type=type_, charset=charset, length=length, flags=flags, decimals=decimals,
            schema=schema, table=table, org_table=org_table, org_name=org_name, catalog=catalog,
        )


# The fixed tail of COLUMN_DEFINITION_41, compiled: 0x0C, charset, length, type, flags,
# decimals, 2 filler bytes.
_COLUMN_FIXED = struct.Struct("<BHIBHBH")


_NUMERIC_TYPES = frozenset({
    FieldType.DECIMAL, FieldType.TINY, FieldType.SHORT, FieldType.LONG, FieldType.FLOAT,
    FieldType.DOUBLE, FieldType.LONGLONG, FieldType.INT24, FieldType.YEAR, FieldType.NEWDECIMAL,
})


# The decimals MariaDB describes a SHOW statement's text columns with (its NOT_FIXED_DEC, 39)
SHOW_TEXT_DECIMALS = 39


def show_text(name: str, chars: int, nullable: bool = False) -> ColumnDefinition:
    """A SHOW statement's text column as MariaDB describes it: a VARCHAR of `chars` characters,
    utf8mb4, NOT NULL unless `nullable`."""
    return column(name, length=chars * 4, charset=CHARSET_UTF8MB4_GENERAL_CI, decimals=SHOW_TEXT_DECIMALS,
                  flags=0 if nullable else ColumnFlag.NOT_NULL)


def schema_text(name: str, chars: int, nullable: bool = False) -> ColumnDefinition:
    """A text column of a SHOW statement MariaDB answers from an information_schema table (SHOW
    VARIABLES, SHOW PLUGINS ...): a VARCHAR of `chars` characters, utf8mb4, without a default,
    NOT NULL unless `nullable`."""
    flags = ColumnFlag.NO_DEFAULT_VALUE | (0 if nullable else ColumnFlag.NOT_NULL)
    return column(name, length=chars * 4, charset=CHARSET_UTF8MB4_GENERAL_CI, flags=flags)


def show_number(name: str, code: int, length: int, unsigned: bool = False) -> ColumnDefinition:
    """A SHOW statement's NOT NULL integer column of `length` digits, as MariaDB describes it."""
    flags = ColumnFlag.NOT_NULL | ColumnFlag.BINARY | (ColumnFlag.UNSIGNED if unsigned else 0)
    return column(name, code, length, flags=flags)


def column(name: str, type: int = FieldType.VAR_STRING, length: int | None = None, **kw: Any) -> ColumnDefinition:
    """A column definition with the charset and flags a server would give such a column."""
    if type in _NUMERIC_TYPES:
        kw.setdefault("charset", CHARSET_BINARY)
        kw.setdefault("flags", ColumnFlag.NUM | ColumnFlag.BINARY)
        default_length = 21
    elif type in (FieldType.BLOB, FieldType.TINY_BLOB, FieldType.MEDIUM_BLOB, FieldType.LONG_BLOB):
        kw.setdefault("flags", ColumnFlag.BLOB)
        default_length = 65535
    else:
        default_length = 1024
    if type in (FieldType.DOUBLE, FieldType.FLOAT):
        kw.setdefault("decimals", 31)
    return ColumnDefinition(name, type, length=default_length if length is None else length, **kw)


# A text row: one LenencBytes per column, or the NULL marker 0xFB.
TEXT_ROW_VALUE = c.Select(c.Const(bytes((NULL_MARKER,))), LenencBytes)


def _row_value(value: object) -> bytes:
    if type(value) is str:  # the common case first
        return encode_lenenc_bytes(_raw(value))
    if value is None:
        return b"\xfb"
    return encode_lenenc_bytes(text_value(value))


def text_value(value: object) -> bytes:
    """A non-NULL value of a result row as a text row carries it (and SELECT ... INTO OUTFILE
    writes it)."""
    if isinstance(value, str):
        return _raw(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    if isinstance(value, bool):
        return b"1" if value else b"0"
    return str(value).encode()


try:  # the compiled twin of the row loops below and in protocol.binary (protocol/_rows.c)
    from protocol import _rows as _native_rows
except ImportError:  # pragma: no cover - without a C compiler
    _native_rows = None  # type: ignore[assignment]


def encode_text_row(values: Iterable[object]) -> bytes:
    """One row of a text result set (compiled form of TEXT_ROW_VALUE repeated)."""
    return b"".join(map(_row_value, values))


def text_row_payloads(rows: Sequence[Sequence[object]], width: int) -> list[bytes]:
    """The payloads of a text result set's rows of `width` values each (the compiled encoder
    takes them whole, or declines and the loop decides them)."""
    encoded = None if _native_rows is None else _native_rows.encode_text(rows, width)
    if encoded is not None:
        return encoded
    out = []
    for row in rows:
        if len(row) != width:
            raise LocalProtocolError(f"row has {len(row)} values for {width} columns")
        out.append(encode_text_row(row))
    return out


def decode_text_row(payload: bytes, columns: int) -> tuple[str | None, ...]:
    values: list[str | None] = []
    pos = 0
    for _ in range(columns):
        raw, pos = decode_lenenc_bytes(payload, pos)
        values.append(None if raw is None else _text(raw))
    if pos != len(payload):
        raise RemoteProtocolError(f"text row has {len(payload) - pos} trailing bytes")
    return tuple(values)


def _as_rows(rows: Iterable[Sequence[object]]) -> tuple[tuple[Any, ...], ...]:
    return tuple(r if type(r) is tuple else tuple(r) for r in rows)


# CLIENT_DEPRECATE_EOF as an int, for the answers' hot paths: `capabilities & Capability.X` with
# an int on the left runs the IntFlag's __rand__.
DEPRECATE_EOF = int(Capability.CLIENT_DEPRECATE_EOF)


@dataclass(frozen=True, slots=True)
class ResultSet:
    """A whole text result set. Row values: str (bytes/int/float accepted when encoding), None = NULL.

    `status` and `warnings` go into the closing EOF (or OK-with-0xFE under CLIENT_DEPRECATE_EOF).
    """

    columns: tuple[ColumnDefinition, ...]
    rows: tuple[tuple[Any, ...], ...] = ()
    status: int = ServerStatus.AUTOCOMMIT
    warnings: int = 0

    def __init__(self, columns: Iterable[ColumnDefinition | str], rows: Iterable[Sequence[object]] = (),
                 status: int = ServerStatus.AUTOCOMMIT, warnings: int = 0) -> None:
        """A column given by name is a default `ColumnDefinition` of that name; rows are stored
        as tuples."""
        cols = tuple(col if isinstance(col, ColumnDefinition) else ColumnDefinition(str(col)) for col in columns)
        object.__setattr__(self, "columns", cols)
        object.__setattr__(self, "rows", _as_rows(rows))
        object.__setattr__(self, "status", status)
        object.__setattr__(self, "warnings", warnings)

    def payloads(self, capabilities: int = 0) -> list[bytes]:
        """The packet payloads in order: column count, definitions, [EOF], rows, EOF/OK."""
        deprecate_eof = bool(capabilities & DEPRECATE_EOF)
        width = len(self.columns)
        out = [encode_lenenc_int(width)]
        extended = bool(capabilities & EXTENDED_METADATA)
        out.extend(col.encode(extended) for col in self.columns)
        if not deprecate_eof:
            out.append(EOF(self.warnings, self.status).encode())
        out.extend(text_row_payloads(self.rows, width))
        if deprecate_eof:
            out.append(OK(0, 0, self.status, self.warnings).encode(capabilities, header=EOF_HEADER))
        else:
            out.append(EOF(self.warnings, self.status).encode())
        return out


@dataclass(frozen=True, slots=True)
class FieldList:
    """COM_FIELD_LIST's answer (mysql_list_fields; `mariadb-show -v` counts a table's columns
    with it): no column count, each column's definition followed by its default value as a
    text row's value (NULL: 0xFB), then an EOF (OK-with-0xFE under CLIENT_DEPRECATE_EOF), as
    mysqld_list_fields sends them (`Protocol::SEND_DEFAULTS`)."""

    columns: tuple[ColumnDefinition, ...]
    defaults: tuple[str | None, ...]
    status: int = ServerStatus.AUTOCOMMIT
    warnings: int = 0

    def payloads(self, capabilities: int = 0) -> list[bytes]:
        extended = bool(capabilities & EXTENDED_METADATA)
        out = [col.encode(extended) + _row_value(default)
               for col, default in zip(self.columns, self.defaults, strict=True)]
        if capabilities & DEPRECATE_EOF:
            out.append(OK(0, 0, self.status, self.warnings).encode(capabilities, header=EOF_HEADER))
        else:
            out.append(EOF(self.warnings, self.status).encode())
        return out


def encode_result_set(result: ResultSet, seq: int, capabilities: int = 0) -> tuple[bytes, int]:
    """Frame a whole result set starting at sequence id `seq`: (wire bytes, next seq)."""
    parts = []
    for payload in result.payloads(capabilities):
        wire, seq = encode_packet(payload, seq)
        parts.append(wire)
    return b"".join(parts), seq


Response = OK | ERR | EOF | ResultSet


# SHOW MASTER STATUS's columns (MariaDB's four)
MASTER_STATUS_COLUMNS = (show_text("File", 512), show_number("Position", FieldType.LONGLONG, 20, unsigned=True),
                         show_text("Binlog_Do_DB", 255), show_text("Binlog_Ignore_DB", 255))
