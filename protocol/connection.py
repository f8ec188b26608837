"""Both sides of a MySQL connection as sans-IO state machines (bytes in, events out; h11-style).

`ServerConnection` is what the master (and the slave's own admin port) runs per client socket;
`ClientConnection` is what the slave's IO task runs against its master. Each side has one
transition table below (`SERVER_TRANSITIONS`, `CLIENT_TRANSITIONS`); a transition not in the
table raises `LocalProtocolError` when our code asked for it and `RemoteProtocolError` when the
peer's packet caused it.

Usage (server shell):
    conn = ServerConnection(connection_id, version, salt)
    write(conn.greeting())
    loop: conn.receive_data(await read())   # b"" = the peer closed
          while (event := conn.next_event()) is not NEED_DATA: ... write(conn.send(OK())) ...
Usage (client shell): feed bytes, call `next_event()`, and after every call write whatever
`data_to_send()` returns (the client answers the greeting and auth switches by itself).

TLS (server side, `tls=True`): the greeting offers CLIENT_SSL; a client may answer with an
SSLRequest (the first 32 bytes of a login, CLIENT_SSL set, sequence id 1): `next_event()` returns
`TlsRequest` with the bytes received after it (the start of the client's TLS handshake). The shell
then runs TLS on the socket and feeds the decrypted bytes; the real login follows with sequence
id 2 (its answer 3). One SSLRequest per connection; none when CLIENT_SSL was not offered.
Client side (`tls=True`): the greeting yields `TlsUpgrade` with the SSLRequest in
`data_to_send()`; the shell writes it, runs the TLS handshake, then calls `tls_established()`,
which queues the login. A server that does not offer CLIENT_SSL is refused (ER_HANDSHAKE_ERROR).

Sequence ids (who may use which):
- handshake: greeting 0, login 1, the server's answer 2 (an auth switch adds a round trip).
- a command starts at 0; its response packets follow at 1, 2, ...; the next command starts at 0.
- LOAD DATA LOCAL INFILE: the server's file request (`request_local_infile`, state LOCAL_INFILE),
  the client's file packets and its empty packet, then the statement's answer continue the
  command's sequence.
- a binlog dump: event packets continue the sequence of the COM_BINLOG_DUMP exchange. With the
  semi-sync header, after an event whose header asks for an ack (`EF 01`) the master's next
  packet restarts at sequence id 1 (MariaDB's flush_net resets the counter and the replica, which
  writes its ack at 0 on the same counter, then expects 1); acks always carry sequence id 0.
A peer that breaks these rules gets `RemoteProtocolError(ER_NET_PACKETS_OUT_OF_ORDER)`.

Concurrency: while DUMPING, one task may call `send_event` while another reads acks with
`receive_data`/`next_event`; the two share no sequence counter (acks always carry 0).

Errors: after a fatal `RemoteProtocolError` from `next_event()` the server side may still
`send(ERR...)` once (then it is CLOSED). A non-fatal one (malformed command) leaves the server
waiting to send the response to that command, normally `ERR.from_exception(exc)`.

Packet size limits (server side; checked on a packet's header, before its body is buffered):
- before the login succeeds, `PRE_AUTH_MAX_PACKET` (a login or auth switch response larger
  than any valid one is ER_HANDSHAKE_ERROR, fatal): an unauthenticated peer can make us hold
  at most that much;
- logged in, `max_packet` (the server's max_allowed_packet): ER_NET_PACKET_TOO_LARGE, fatal;
- while DUMPING, `DUMP_INPUT_MAX_PACKET`: only a semi-sync ack or COM_QUIT may arrive.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from protocol.auth import (
    NATIVE_PASSWORD_PLUGIN,
    SALT_LENGTH,
    scramble_native_password,
    verify_native_password,
)
from protocol.binary import (
    BINARY_RESPONSES,
    BinaryResultSet,
    BinaryRowEncoder,
    BinaryRows,
    PrepareOK,
    ResultHead,
)
from protocol.charsets import Charset
from protocol.errors import (
    ER_HANDSHAKE_ERROR,
    ER_NET_PACKET_TOO_LARGE,
    ER_NET_PACKETS_OUT_OF_ORDER,
    ER_NET_READ_ERROR,
    ER_NOT_SUPPORTED_AUTH_MODE,
    ER_UNKNOWN_COM_ERROR,
    LocalProtocolError,
    RemoteProtocolError,
)
from protocol.messages import (
    AUTH_SWITCH_HEADER,
    EOF,
    EOF_HEADER,
    ERR,
    ERR_HEADER,
    LOCAL_INFILE_HEADER,
    MARIADB_CLIENT_EXTENDED_METADATA,
    MARIADB_CLIENT_STMT_BULK_OPERATIONS,
    OK,
    SSL_REQUEST_SIZE,
    AuthSwitchRequest,
    AuthSwitchResponse,
    Capability,
    ColumnDefinition,
    ComBinlogDump,
    ComInitDB,
    Command,
    ComPing,
    ComQuery,
    ComQuit,
    ComRegisterSlave,
    FieldList,
    Handshake,
    HandshakeResponse,
    LocalInfileRequest,
    ResultSet,
    ServerStatus,
    SslRequest,
    decode_command,
    decode_text_row,
    encode_ok,
    is_eof_packet,
)
from protocol.packets import (
    HEADER_SIZE,
    MAX_PAYLOAD,
    PacketDecoder,
    decode_lenenc_int,
    encode_packet,
    frame_payloads,
    pack_header,
)
from protocol.position import BinlogPosition
from protocol.semisync_wire import (
    ACK_MAX_LEN,
    ACK_POSITION_AT,
    ACK_POSITION_LEN,
    SEMI_SYNC_ACK_REQUESTED,
    SEMI_SYNC_MAGIC,
    SemiSyncAck,
    decode_ack,
    encode_ack,
)

try:  # the compiled twin of `ServerConnection.send_events` (protocol/_framing.c), where built
    from protocol._framing import frame_events as _native_frame_events
except ImportError:
    _native_frame_events = None

# ---------------------------------------------------------------------------------------------
# Events


class _NeedData:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA: Any = _NeedData()
"""`next_event()` found no complete event in the bytes received so far."""


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The peer closed the connection (or sent COM_QUIT, which is reported first)."""


@dataclass(frozen=True, slots=True)
class LoginOK:
    """The client is logged in. `handshake` is the server greeting, `capabilities` the
    negotiated set (what both sides announced)."""

    ok: OK
    handshake: Handshake
    capabilities: int


@dataclass(frozen=True, slots=True)
class LocalInfileData:
    """A piece of the file a LOAD DATA LOCAL asked for (`ServerConnection.request_local_infile`)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class LocalInfileEnd:
    """The client sent the whole file (its empty packet); the server owes the statement's answer."""


@dataclass(frozen=True, slots=True)
class TlsRequest:
    """The client asked to switch to TLS (SSLRequest). `unread` are the bytes that came after it:
    the start of the TLS handshake, for the shell's TLS layer."""

    capabilities: int
    unread: bytes


@dataclass(frozen=True, slots=True)
class TlsUpgrade:
    """Client side: the SSLRequest is in `data_to_send()`; write it, run the TLS handshake on
    the socket, then call `tls_established()` (which queues the login)."""


@dataclass(frozen=True, slots=True)
class BinlogPacket:
    """One event packet of a binlog dump: the payload after the 0x00 OK byte (still holding
    the semi-sync header `EF <flag>` when the dump is semi-sync)."""

    payload: bytes


# The semi-sync ack packet and header are declared in protocol.semisync_wire.
SEMISYNC_MAGIC = SEMI_SYNC_MAGIC
SEMISYNC_FLAG_ACK_REQUESTED = SEMI_SYNC_ACK_REQUESTED


def _ack_requested(header: bytes) -> bool:
    return len(header) >= 2 and header[0] == SEMISYNC_MAGIC and bool(header[1] & SEMISYNC_FLAG_ACK_REQUESTED)


def _dump_seq_ok(seq: int, expected: int, after_ack_request: bool) -> bool:
    """A dump packet's sequence id: the next one, or 1 after an event that asked for an ack (the
    master restarts its sequence once the slave has written its ack, sequence id 0)."""
    return seq == expected or (after_ack_request and seq == 1)


# ---------------------------------------------------------------------------------------------
# State machines


BinaryResponse = PrepareOK | BinaryResultSet | BinaryRows


class ServerState(enum.Enum):
    __hash__ = object.__hash__  # identity, as Enum equality is: cheap table lookups

    GREETING = "greeting"  # greeting() not called yet
    AWAIT_LOGIN = "await_login"  # greeting sent, waiting for the HandshakeResponse
    AUTHENTICATING = "authenticating"  # login received; the shell decides: OK, ERR or switch
    AWAIT_AUTH_SWITCH = "await_auth_switch"  # AuthSwitchRequest sent
    COMMAND = "command"  # waiting for a command (sequence id 0)
    RESPONDING = "responding"  # a command was received; the shell owes its response
    DUMPING = "dumping"  # sending binlog events; receiving acks
    LOCAL_INFILE = "local_infile"  # a LOAD DATA LOCAL file asked for: the client sends it
    ERROR = "error"  # the peer broke the protocol; one ERR may still be sent
    CLOSED = "closed"


class ClientState(enum.Enum):
    __hash__ = object.__hash__  # identity, as Enum equality is: cheap table lookups

    AWAIT_GREETING = "await_greeting"
    AUTHENTICATING = "authenticating"  # login sent; waiting for OK/ERR/auth switch
    READY = "ready"  # logged in, no command outstanding
    AWAIT_RESPONSE = "await_response"  # a command was sent
    DUMPING = "dumping"  # COM_BINLOG_DUMP sent: receiving events, sending acks
    CLOSED = "closed"


class Trigger(enum.Enum):
    __hash__ = object.__hash__  # identity, as Enum equality is: cheap table lookups

    GREET = "greet"
    RECV_LOGIN = "recv_login"
    RECV_TLS_REQUEST = "recv_tls_request"
    SEND_AUTH_SWITCH = "send_auth_switch"
    RECV_AUTH_SWITCH = "recv_auth_switch"
    RECV_AUTH_SWITCH_RESPONSE = "recv_auth_switch_response"
    SEND_LOGIN = "send_login"
    SEND_OK = "send_ok"
    SEND_ERR = "send_err"
    SEND_RESPONSE = "send_response"  # a final OK/ERR/EOF/result set
    SEND_MORE = "send_more"  # a result with MORE_RESULTS_EXISTS: more follow
    RECV_OK = "recv_ok"
    RECV_ERR = "recv_err"
    RECV_RESPONSE = "recv_response"
    RECV_MORE = "recv_more"
    SEND_COMMAND = "send_command"
    RECV_COMMAND = "recv_command"
    SEND_QUIT = "send_quit"
    RECV_QUIT = "recv_quit"
    SEND_DUMP = "send_dump"
    START_DUMP = "start_dump"
    SEND_EVENT = "send_event"
    RECV_EVENT = "recv_event"
    SEND_DUMP_END = "send_dump_end"
    RECV_DUMP_END = "recv_dump_end"
    SEND_ACK = "send_ack"
    RECV_ACK = "recv_ack"
    SEND_INFILE_REQUEST = "send_infile_request"
    RECV_INFILE_DATA = "recv_infile_data"
    RECV_INFILE_END = "recv_infile_end"
    PEER_BROKE_RULES = "peer_broke_rules"
    PEER_CLOSED = "peer_closed"


S, T, C = ServerState, Trigger, ClientState

SERVER_TRANSITIONS: dict[tuple[ServerState, Trigger], ServerState] = {
    (S.GREETING, T.GREET): S.AWAIT_LOGIN,
    (S.GREETING, T.SEND_ERR): S.CLOSED,  # refuse instead of greeting (too many connections)
    (S.AWAIT_LOGIN, T.SEND_ERR): S.CLOSED,
    (S.AWAIT_LOGIN, T.RECV_LOGIN): S.AUTHENTICATING,
    (S.AWAIT_LOGIN, T.RECV_TLS_REQUEST): S.AWAIT_LOGIN,  # the real login follows, encrypted
    (S.AUTHENTICATING, T.SEND_AUTH_SWITCH): S.AWAIT_AUTH_SWITCH,
    (S.AWAIT_AUTH_SWITCH, T.RECV_AUTH_SWITCH_RESPONSE): S.AUTHENTICATING,
    (S.AUTHENTICATING, T.SEND_OK): S.COMMAND,
    (S.AUTHENTICATING, T.SEND_ERR): S.CLOSED,
    (S.COMMAND, T.RECV_COMMAND): S.RESPONDING,
    (S.COMMAND, T.RECV_QUIT): S.CLOSED,
    (S.RESPONDING, T.SEND_RESPONSE): S.COMMAND,
    (S.RESPONDING, T.SEND_MORE): S.RESPONDING,
    (S.RESPONDING, T.START_DUMP): S.DUMPING,
    (S.DUMPING, T.SEND_EVENT): S.DUMPING,
    (S.DUMPING, T.RECV_ACK): S.DUMPING,
    (S.DUMPING, T.SEND_DUMP_END): S.COMMAND,
    (S.DUMPING, T.RECV_QUIT): S.CLOSED,
    (S.RESPONDING, T.SEND_INFILE_REQUEST): S.LOCAL_INFILE,
    (S.LOCAL_INFILE, T.RECV_INFILE_DATA): S.LOCAL_INFILE,
    (S.LOCAL_INFILE, T.RECV_INFILE_END): S.RESPONDING,
    (S.ERROR, T.SEND_ERR): S.CLOSED,
}
# From every live state: the peer may break the rules or go away.
for _s in S:
    if _s is not S.CLOSED:
        SERVER_TRANSITIONS[(_s, T.PEER_BROKE_RULES)] = S.ERROR
        SERVER_TRANSITIONS[(_s, T.PEER_CLOSED)] = S.CLOSED

CLIENT_TRANSITIONS: dict[tuple[ClientState, Trigger], ClientState] = {
    (C.AWAIT_GREETING, T.SEND_LOGIN): C.AUTHENTICATING,
    (C.AWAIT_GREETING, T.RECV_ERR): C.CLOSED,  # the server refused before greeting
    (C.AUTHENTICATING, T.RECV_AUTH_SWITCH): C.AUTHENTICATING,
    (C.AUTHENTICATING, T.RECV_OK): C.READY,
    (C.AUTHENTICATING, T.RECV_ERR): C.CLOSED,
    (C.READY, T.SEND_COMMAND): C.AWAIT_RESPONSE,
    (C.AWAIT_RESPONSE, T.RECV_RESPONSE): C.READY,
    (C.AWAIT_RESPONSE, T.RECV_MORE): C.AWAIT_RESPONSE,
    (C.READY, T.SEND_DUMP): C.DUMPING,
    (C.DUMPING, T.RECV_EVENT): C.DUMPING,
    (C.DUMPING, T.SEND_ACK): C.DUMPING,
    (C.DUMPING, T.RECV_DUMP_END): C.READY,
    (C.READY, T.SEND_QUIT): C.CLOSED,
    (C.DUMPING, T.SEND_QUIT): C.CLOSED,
}
for _c in C:
    if _c is not C.CLOSED:
        CLIENT_TRANSITIONS[(_c, T.PEER_BROKE_RULES)] = C.CLOSED
        CLIENT_TRANSITIONS[(_c, T.PEER_CLOSED)] = C.CLOSED
del _s, _c

_REMOTE_TRIGGERS = frozenset(t for t in Trigger if t.name.startswith(("RECV_", "PEER_")))


StateT = TypeVar("StateT", ServerState, ClientState)


# the transitions of a command's receipt and an OK's answer, which `whole_command` and `send_ok`
# take without `fire`'s lookup: their state was checked just before
_COMMAND_RECEIVED = SERVER_TRANSITIONS[(S.COMMAND, T.RECV_COMMAND)]
_RESPONSE_SENT = SERVER_TRANSITIONS[(S.RESPONDING, T.SEND_RESPONSE)]
_MORE_SENT = SERVER_TRANSITIONS[(S.RESPONDING, T.SEND_MORE)]
# the states the per-command and per-event methods compare with, read once: in Python 3.11 a
# member read through its class (`S.COMMAND`) goes through the enum metaclass's `__getattr__`
# hook, some six times a global's cost, on every command
_COMMAND, _RESPONDING, _DUMPING = S.COMMAND, S.RESPONDING, S.DUMPING


class _Machine(Generic[StateT]):
    """The current state and the one table that says where a trigger leads."""

    __slots__ = ("state", "_table", "_side")

    def __init__(self, table: dict[tuple[StateT, Trigger], StateT], initial: StateT, side: str) -> None:
        self._table: dict[tuple[StateT, Trigger], StateT] = table
        self.state: StateT = initial
        self._side = side

    def fire(self, trigger: Trigger) -> None:
        new = self._table.get((self.state, trigger))
        if new is None:
            message = f"{self._side}: {trigger.value} is not allowed in state {self.state.value}"
            if trigger in _REMOTE_TRIGGERS:
                raise RemoteProtocolError(message, error=ER_UNKNOWN_COM_ERROR)
            raise LocalProtocolError(message)
        self.state = new


def _out_of_order(got: int, expected: int) -> RemoteProtocolError:
    return RemoteProtocolError(
        f"packet sequence id {got}, expected {expected}", error=ER_NET_PACKETS_OUT_OF_ORDER
    )


DEFAULT_SERVER_CAPABILITIES = (
    Capability.CLIENT_LONG_PASSWORD
    | Capability.CLIENT_FOUND_ROWS
    | Capability.CLIENT_LONG_FLAG
    | Capability.CLIENT_CONNECT_WITH_DB
    | Capability.CLIENT_NO_SCHEMA
    | Capability.CLIENT_LOCAL_FILES
    | Capability.CLIENT_IGNORE_SPACE
    | Capability.CLIENT_PROTOCOL_41
    | Capability.CLIENT_INTERACTIVE
    | Capability.CLIENT_IGNORE_SIGPIPE
    | Capability.CLIENT_TRANSACTIONS
    | Capability.CLIENT_RESERVED
    | Capability.CLIENT_SECURE_CONNECTION
    | Capability.CLIENT_MULTI_STATEMENTS
    | Capability.CLIENT_MULTI_RESULTS
    | Capability.CLIENT_PS_MULTI_RESULTS
    | Capability.CLIENT_PLUGIN_AUTH
    | Capability.CLIENT_CONNECT_ATTRS
    | Capability.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.CLIENT_DEPRECATE_EOF
)

DEFAULT_CLIENT_CAPABILITIES = (
    Capability.CLIENT_LONG_PASSWORD
    | Capability.CLIENT_LONG_FLAG
    | Capability.CLIENT_PROTOCOL_41
    | Capability.CLIENT_TRANSACTIONS
    | Capability.CLIENT_SECURE_CONNECTION
    | Capability.CLIENT_MULTI_RESULTS
    | Capability.CLIENT_PLUGIN_AUTH
    | Capability.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
    | Capability.CLIENT_CONNECT_ATTRS
)

# The capabilities a peer must share with us: without them we cannot talk.
_REQUIRED = Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_SECURE_CONNECTION
# MariaDB's extended capabilities a server connection negotiates (`messages.EXTENDED_METADATA`,
# `messages.STMT_BULK_OPERATIONS`: the same bits above the 32 protocol ones)
_EXTENDED = MARIADB_CLIENT_EXTENDED_METADATA | MARIADB_CLIENT_STMT_BULK_OPERATIONS

_OK_BYTE = b"\x00"
_MORE_RESULTS = int(ServerStatus.MORE_RESULTS_EXISTS)

# The largest packet a peer may send before it is logged in. mysqld refuses a login whose
# connection attributes exceed 65535 bytes ("impose an artificial length limit of 64k" in
# read_client_connect_attrs); every other login field is bounded by a few hundred bytes (user
# name, database and plugin names, a length-encoded auth response), so no valid login or auth
# switch response comes near 64 KiB + 1 KiB. A larger one is a bad handshake, refused on its
# header: an unauthenticated peer never makes us buffer more than this.
PRE_AUTH_MAX_PACKET = (64 << 10) + (1 << 10)
# While dumping, the only input is a semi-sync ack (EF + position + file name) or COM_QUIT.
DUMP_INPUT_MAX_PACKET = ACK_MAX_LEN
_PRE_AUTH_STATES = frozenset({ServerState.AWAIT_LOGIN, ServerState.AWAIT_AUTH_SWITCH})
_QUIT_PAYLOAD = b"\x01"  # COM_QUIT, alone (with more bytes: a malformed command)


class ServerConnection:
    """The server side of one client connection (see the module docstring)."""

    def __init__(
        self,
        connection_id: int,
        server_version: str,
        salt: bytes,
        capabilities: int = DEFAULT_SERVER_CAPABILITIES,
        *,
        charset: int = 33,
        status: int = ServerStatus.AUTOCOMMIT,
        mariadb_capabilities: int = 0,
        max_packet: int = 1 << 30,
        tls: bool = False,
    ) -> None:
        if len(salt) != SALT_LENGTH or 0 in salt:
            raise LocalProtocolError("the salt must be 20 bytes without NUL")
        if tls:
            capabilities |= Capability.CLIENT_SSL
        self.tls = False  # the client switched to TLS (SSLRequest received)
        self.connection_id = connection_id
        self.server_version = server_version
        self.salt = salt
        self.server_capabilities = int(capabilities)
        self.capabilities = 0  # negotiated, known after the login packet
        self._charset = charset
        self._status = status
        self._mariadb_capabilities = mariadb_capabilities
        self._max_packet = max_packet
        self._decoder = PacketDecoder(min(max_packet, PRE_AUTH_MAX_PACKET))
        self._machine = _Machine(SERVER_TRANSITIONS, S.GREETING, "server")
        self._seq = 0  # next sequence id we send and the peer must use
        self._peer_closed = False
        self._semisync = False
        self.login: HandshakeResponse | None = None
        self.auth_response: bytes = b""  # the latest auth data (login or auth switch response)
        # The character set a COM_QUERY's text is read in (`protocol.charsets.Charset`; None:
        # UTF-8, any byte kept): the session's character_set_client, set by the session.
        self.client_charset: Charset | None = None

    @property
    def state(self) -> ServerState:
        return self._machine.state

    # -- handshake ----------------------------------------------------------------------------

    def greeting(self) -> bytes:
        """The server greeting (Handshake v10, sequence id 0)."""
        self._machine.fire(T.GREET)
        payload = Handshake(
            server_version=self.server_version,
            connection_id=self.connection_id,
            salt=self.salt,
            capabilities=self.server_capabilities,
            charset=self._charset,
            status=self._status,
            auth_plugin_name=NATIVE_PASSWORD_PLUGIN,
            mariadb_capabilities=self._mariadb_capabilities,
        ).encode()
        wire, self._seq = encode_packet(payload, 0)
        return wire

    @property
    def needs_auth_switch(self) -> bool:
        """True when the login used another plugin than mysql_native_password: send
        `auth_switch_request()` and wait for the `AuthSwitchResponse` event."""
        login = self.login
        return bool(
            login is not None
            and login.capabilities & Capability.CLIENT_PLUGIN_AUTH
            and login.auth_plugin_name not in (None, "", NATIVE_PASSWORD_PLUGIN)
        )

    def auth_switch_request(self) -> AuthSwitchRequest:
        return AuthSwitchRequest(NATIVE_PASSWORD_PLUGIN, self.salt + b"\x00")

    def verify_password(self, stored_hash: bytes) -> bool:
        """Check the client's latest auth response against SHA1(SHA1(password))."""
        return verify_native_password(self.salt, self.auth_response, stored_hash)

    # -- input --------------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes from the socket; b"" means the peer closed its side."""
        if not data:
            self._peer_closed = True
        else:
            self._decoder.feed(data)

    @property
    def drained(self) -> bool:
        """No byte received is left unread and the peer has not closed: `next_event` would
        return NEED_DATA."""
        return not self._peer_closed and self._decoder.buffered == 0

    def whole_command(self, data: bytes) -> bytes | None:
        """What `receive_data(data)` then `next_event()` read when `data` is exactly one whole
        command packet (not COM_QUIT), nothing else buffered, while the connection waits for a
        command: its payload, the connection then RESPONDING as after `next_event` returned its
        command (`decode_command` of the payload, which raises what `next_event` would); else
        None, having taken nothing (then `receive_data(data)`)."""
        if self._machine.state is not _COMMAND or self._peer_closed:
            return None
        payload = self._decoder.whole(data)
        if payload is None or payload == _QUIT_PAYLOAD:
            return None
        self._seq = 1
        self._machine.state = _COMMAND_RECEIVED  # (`fire(T.RECV_COMMAND)` from COMMAND, checked above)
        return payload

    def whole_ack(self, data: bytes) -> SemiSyncAck | None:
        """What `receive_data(data)` then `next_event()` read when `data` is exactly one whole
        packet (not COM_QUIT), nothing else buffered, while a semi-sync dump waits for acks: its
        ack, decoded and checked as `next_event` does (a malformed one raises what `next_event`
        would, the connection then as after it); else None, having taken nothing (then
        `receive_data(data)`). A slave sends one ack per read batch of the master's: this is
        how nearly every ack arrives."""
        if self._machine.state is not _DUMPING or not self._semisync or self._peer_closed:
            return None
        payload = self._decoder.whole(data)
        if payload is None or payload == _QUIT_PAYLOAD:
            return None
        return self._dump_input(payload)

    def next_event(self) -> Any:
        """The next event: NEED_DATA, HandshakeResponse, AuthSwitchResponse, a Command,
        SemiSyncAck (while dumping) or ConnectionClosed."""
        state = self._machine.state
        if state is S.CLOSED:
            return ConnectionClosed()
        if state in (S.GREETING, S.AUTHENTICATING, S.RESPONDING, S.ERROR):
            return NEED_DATA  # it is our turn to send; input waits in the buffer
        try:
            packet = self._decoder.next_packet()
        except RemoteProtocolError as exc:
            self._machine.fire(T.PEER_BROKE_RULES)
            if state in _PRE_AUTH_STATES and exc.error is ER_NET_PACKET_TOO_LARGE:
                raise RemoteProtocolError(
                    f"{exc.message} allowed before login", error=ER_HANDSHAKE_ERROR
                ) from None
            raise
        if packet is None:
            if self._peer_closed:
                if self._decoder.in_packet:
                    self._machine.fire(T.PEER_BROKE_RULES)
                    raise RemoteProtocolError("connection closed inside a packet", error=ER_NET_READ_ERROR)
                self._machine.fire(T.PEER_CLOSED)
                return ConnectionClosed()
            return NEED_DATA
        if state is S.COMMAND or state is S.DUMPING:
            expected = 0
        else:
            expected = self._seq  # (LOCAL_INFILE: the file's packets follow the request's)
        if packet.seq != expected:
            self._machine.fire(T.PEER_BROKE_RULES)
            raise _out_of_order(packet.seq, expected)
        payload = packet.payload
        if state is S.DUMPING:
            return self._dump_input(payload)
        self._seq = packet.next_seq
        if state is S.COMMAND:
            return self._command(payload)
        if state is S.LOCAL_INFILE:
            if not payload:
                self._machine.fire(T.RECV_INFILE_END)
                return LocalInfileEnd()
            self._machine.fire(T.RECV_INFILE_DATA)
            return LocalInfileData(payload)
        if state is S.AWAIT_LOGIN:
            if len(payload) == SSL_REQUEST_SIZE:
                return self._tls_request(payload)
            try:
                login = HandshakeResponse.decode(payload)
                missing = _REQUIRED & ~login.capabilities
                if missing:
                    raise RemoteProtocolError(f"client lacks {Capability(missing)!r}", error=ER_HANDSHAKE_ERROR)
            except RemoteProtocolError:
                self._machine.fire(T.PEER_BROKE_RULES)
                raise
            self._machine.fire(T.RECV_LOGIN)
            self.login = login
            self.auth_response = login.auth_response
            self.capabilities = login.capabilities & self.server_capabilities
            if not self.server_capabilities & Capability.CLIENT_LONG_PASSWORD:  # (the greeting cleared CLIENT_MYSQL: MariaDB's)
                # the extended capabilities both sides have, above the 32 protocol bits
                self.capabilities |= (login.mariadb_capabilities & self._mariadb_capabilities & _EXTENDED) << 32
            return login
        # AWAIT_AUTH_SWITCH
        self._machine.fire(T.RECV_AUTH_SWITCH_RESPONSE)
        response = AuthSwitchResponse.decode(payload)
        self.auth_response = response.data
        return response

    def _tls_request(self, payload: bytes) -> TlsRequest:
        try:
            capabilities = SslRequest.decode(payload).capabilities
        except RemoteProtocolError:
            self._machine.fire(T.PEER_BROKE_RULES)
            raise
        offered = self.server_capabilities & Capability.CLIENT_SSL
        if not offered or not capabilities & Capability.CLIENT_SSL or self.tls:
            self._machine.fire(T.PEER_BROKE_RULES)
            reason = "a second SSL request" if self.tls else "SSL request without SSL offered"
            raise RemoteProtocolError(reason, error=ER_HANDSHAKE_ERROR)
        self._machine.fire(T.RECV_TLS_REQUEST)
        self.tls = True
        return TlsRequest(capabilities, self._decoder.take_unread())

    def _command(self, payload: bytes) -> Command:
        if payload == _QUIT_PAYLOAD:
            self._machine.fire(T.RECV_QUIT)
            return ComQuit()
        self._machine.fire(T.RECV_COMMAND)
        return decode_command(payload, self.client_charset)  # a non-fatal error leaves us RESPONDING

    def _dump_input(self, payload: bytes) -> Any:
        if payload == b"\x01":
            self._machine.fire(T.RECV_QUIT)
            return ComQuit()
        if not self._semisync:
            self._machine.fire(T.PEER_BROKE_RULES)
            raise RemoteProtocolError("unexpected packet from a non-semi-sync dump client",
                                      error=ER_NET_READ_ERROR)
        try:
            ack = decode_ack(payload)
        except RemoteProtocolError:
            self._machine.fire(T.PEER_BROKE_RULES)
            raise
        self._machine.fire(T.RECV_ACK)
        return ack

    # -- output -------------------------------------------------------------------------------

    def send(self, message: OK | ERR | EOF | ResultSet | FieldList | AuthSwitchRequest | BinaryResponse) -> bytes:
        """Bytes for one response (or an auth switch request during login)."""
        state = self._machine.state
        if isinstance(message, AuthSwitchRequest):
            self._machine.fire(T.SEND_AUTH_SWITCH)
            wire, self._seq = encode_packet(message.encode(), self._seq)
            return wire
        if isinstance(message, ERR):
            trigger = T.SEND_ERR if state is not S.RESPONDING else T.SEND_RESPONSE
            if state is S.DUMPING:
                trigger = T.SEND_DUMP_END
                self._decoder.max_packet = self._max_packet
            self._machine.fire(trigger)
            wire, _ = encode_packet(message.encode(), self._seq)
            self._seq = 0
            return wire
        if state is S.AUTHENTICATING:
            if not isinstance(message, OK):
                raise LocalProtocolError(f"cannot answer a login with {type(message).__name__}")
            self._machine.fire(T.SEND_OK)
            self._decoder.max_packet = self._max_packet  # logged in: max_allowed_packet
            wire, _ = encode_packet(message.encode(self.capabilities), self._seq)
            self._seq = 0
            return wire
        more = bool(message.status & _MORE_RESULTS)
        self._machine.fire(T.SEND_MORE if more else T.SEND_RESPONSE)
        if isinstance(message, (ResultSet, FieldList, *BINARY_RESPONSES)):
            wire, seq = frame_payloads(message.payloads(self.capabilities), self._seq)
        elif isinstance(message, OK):
            wire, seq = encode_packet(message.encode(self.capabilities), self._seq)
        elif isinstance(message, EOF) and self.capabilities & Capability.CLIENT_DEPRECATE_EOF:
            # a command's EOF (my_eof: COM_SET_OPTION, COM_SHUTDOWN) is mysqld's OK-0xFE then
            ok = OK(status=message.status, warnings=message.warnings)
            wire, seq = encode_packet(ok.encode(self.capabilities, EOF_HEADER), self._seq)
        elif isinstance(message, EOF):
            wire, seq = encode_packet(message.encode(), self._seq)
        else:
            raise LocalProtocolError(f"cannot send {type(message).__name__}")
        self._seq = seq if more else 0
        return wire

    @property
    def max_packet(self) -> int:
        """The largest packet a logged-in client may send (the session's max_allowed_packet,
        fixed at connect)."""
        return self._max_packet

    def send_ok(self, affected_rows: int, last_insert_id: int, status: int, warnings: int = 0,
                info: str = "") -> bytes:
        """`send(OK(affected_rows, last_insert_id, status, warnings, info))` without the OK
        object (a statement's answer: the hottest response)."""
        if self._machine.state is not _RESPONDING:
            return self.send(OK(affected_rows, last_insert_id, status, warnings, info))
        more = status & _MORE_RESULTS
        # (`fire(T.SEND_MORE if more else T.SEND_RESPONSE)` from RESPONDING, checked above)
        self._machine.state = _MORE_SENT if more else _RESPONSE_SENT
        payload = encode_ok(affected_rows, last_insert_id, status, warnings, info)
        seq = self._seq
        if more or len(payload) >= MAX_PAYLOAD:
            wire, self._seq = encode_packet(payload, seq)
            if not more:
                self._seq = 0
            return wire
        self._seq = 0
        return pack_header(len(payload) | (seq & 0xFF) << 24) + payload  # (`encode_packet`'s framing)

    def request_local_infile(self, filename: str) -> bytes:
        """Bytes asking the client for the file of a LOAD DATA LOCAL INFILE just received (the
        0xFB packet): its packets follow as `LocalInfileData`, then `LocalInfileEnd`, after which
        the statement's OK or ERR is sent. Only to a client that set CLIENT_LOCAL_FILES."""
        if not self.capabilities & Capability.CLIENT_LOCAL_FILES:
            raise LocalProtocolError("the client did not allow LOAD DATA LOCAL (CLIENT_LOCAL_FILES)")
        self._machine.fire(T.SEND_INFILE_REQUEST)
        wire, self._seq = encode_packet(LocalInfileRequest(filename).encode(), self._seq)
        return wire

    def send_nothing(self) -> None:
        """Close a command that has no answer (COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE): back to
        waiting for a command, nothing written."""
        self._machine.fire(T.SEND_RESPONSE)
        self._seq = 0

    def send_rows(self, head: ResultHead, status: int, rows: list[bytes]) -> bytes:
        """Bytes of a result set (no cursor, no more results) answering the command just
        received: `head`'s column block and closing packet for `status` around `rows`, each row
        encoded (`BinaryRowEncoder` for the binary protocol, `messages.text_row_payloads` for
        the text one): what `send` of the same `BinaryResultSet` or `ResultSet` gives."""
        if status & _MORE_RESULTS:
            raise LocalProtocolError("send_rows answers with one result set: `send` the ones followed by more")
        self._machine.fire(T.SEND_RESPONSE)
        framed, closing = head.around(status)
        if self._seq != 1:  # (a command of 16 MiB or more: its answer starts later)
            wire, _ = frame_payloads((*head.block(status), *rows, closing), self._seq)
        else:
            wire = framed + frame_payloads((*rows, closing), head.packets + 1)[0]
        self._seq = 0
        return wire

    def send_binary_rows(self, head: ResultHead, status: int, rows: list[tuple], encoder: BinaryRowEncoder) -> bytes:
        """`send_rows(head, status, encoder.encode_rows(rows))` with the rows encoded and framed
        in the same pass (`BinaryRowEncoder.answer`, its compiled twin asked first without a
        Python call: `native_answer`). Raises what `encode_rows` raises (`UncarriedValue`), the
        connection then unchanged."""
        machine = self._machine
        if status & _MORE_RESULTS or self._seq != 1 or machine.state is not _RESPONDING:
            return self.send_rows(head, status, encoder.encode_rows(rows))  # (`send_rows` frames or refuses those)
        pair = head.arounds.get(status)
        framed, closing = head.around(status) if pair is None else pair
        native = encoder.native_answer
        wire = None if native is None else native(framed, rows, closing, head.packets + 1)
        if wire is None:  # (declined: the Python path, not asking the compiled twin again)
            wire = encoder.answer_encoded(framed, rows, closing, head.packets + 1)
        machine.state = _RESPONSE_SENT  # (`fire(T.SEND_RESPONSE)` from RESPONDING, checked above)
        self._seq = 0
        return wire

    def start_dump(self, semisync: bool) -> None:
        """Enter DUMPING after a COM_BINLOG_DUMP; with `semisync` incoming packets are acks."""
        self._machine.fire(T.START_DUMP)
        self._semisync = semisync
        self._decoder.max_packet = DUMP_INPUT_MAX_PACKET

    def send_event(self, event: bytes, header: bytes = b"") -> bytes:
        """The packet(s) carrying one binlog event: 0x00 + `header` + event.

        After an event whose semi-sync header requests an ack, the next packet restarts at
        sequence id 1 (see the module docstring).
        """
        machine = self._machine
        if machine.state is not _DUMPING:
            machine.fire(T.SEND_EVENT)  # raises: not dumping
        size = 1 + len(header) + len(event)
        seq = self._seq
        if size < MAX_PAYLOAD:  # the hot path: one packet, no copy of the payload but one
            wire = b"".join((pack_header(size | seq << 24), _OK_BYTE, header, event))
            seq = (seq + 1) & 0xFF
        else:
            wire, seq = encode_packet(b"".join((_OK_BYTE, header, event)), seq)
        self._seq = 1 if header and _ack_requested(header) else seq
        return wire

    def send_events(self, events: list[bytes], headers: list[bytes] | bytes = b"") -> bytes:
        """The packets of several binlog events back to back, in one pass: the same bytes as
        `send_event` for each in order. `headers` is one header per event, or one for all.
        Offered to the compiled twin first (`protocol._framing.frame_events`: a list of bytes
        events, bytes headers, every packet under MAX_PAYLOAD), which frames them as the loop
        below would or declines them all.

        A dump frames a whole read batch (usually a commit group) with this, then writes it."""
        machine = self._machine
        if machine.state is not _DUMPING:
            machine.fire(T.SEND_EVENT)  # raises: not dumping
        if _native_frame_events is not None:  # the compiled twin (protocol/_framing.c)
            framed = _native_frame_events(events, headers, self._seq)
            if framed is not None:
                wire, self._seq = framed
                return wire
        same = isinstance(headers, bytes | bytearray)
        if not same and len(headers) != len(events):
            raise LocalProtocolError(f"{len(events)} events, {len(headers)} headers")
        parts: list[bytes] = []
        seq = self._seq
        header = headers if same else b""
        restart = same and _ack_requested(header)
        fixed = 1 + len(header)
        for i, event in enumerate(events):
            if not same and headers[i] is not header:  # a dump's headers are mostly one object
                header = headers[i]
                fixed = 1 + len(header)
                # (`_ack_requested`, inline: twice per batch of a semi-sync dump)
                restart = fixed > 2 and header[0] == SEMISYNC_MAGIC and header[1] & SEMISYNC_FLAG_ACK_REQUESTED != 0
            size = fixed + len(event)
            if size < MAX_PAYLOAD:
                parts += (pack_header(size | seq << 24), _OK_BYTE, header, event)
                seq = (seq + 1) & 0xFF
            else:
                wire, seq = encode_packet(b"".join((_OK_BYTE, header, event)), seq)
                parts.append(wire)
            if restart:
                seq = 1
        self._seq = seq
        return b"".join(parts)

    def send_eof(self, warnings: int = 0, status: int = ServerStatus.AUTOCOMMIT) -> bytes:
        """End a BINLOG_DUMP_NON_BLOCK dump that caught up: an EOF packet, back to COMMAND."""
        self._machine.fire(T.SEND_DUMP_END)
        self._decoder.max_packet = self._max_packet
        wire, _ = encode_packet(EOF(warnings, status).encode(), self._seq)
        self._seq = 0
        return wire


class ClientConnection:
    """The client side: logs in by itself, then runs one command at a time or a binlog dump."""

    def __init__(
        self,
        user: str,
        password: str,
        database: str | None = None,
        attributes: dict[str, str] | None = None,
        capabilities: int = DEFAULT_CLIENT_CAPABILITIES,
        *,
        charset: int = 33,
        max_packet: int = 1 << 30,
        tls: bool = False,
    ) -> None:
        self.tls = tls  # ask for TLS (SSLRequest); a server without CLIENT_SSL is refused
        self._pending_login: bytes | None = None
        self.user = user
        self.password = password
        self.database = database
        self.attributes = attributes
        self.requested_capabilities = int(capabilities) | (Capability.CLIENT_CONNECT_WITH_DB if database else 0)
        self.capabilities = 0  # negotiated after the greeting
        self.handshake: Handshake | None = None
        self._charset = charset
        self._max_packet = max_packet
        self._decoder = PacketDecoder(max_packet)
        self._machine = _Machine(CLIENT_TRANSITIONS, C.AWAIT_GREETING, "client")
        self._seq = 0  # sequence id the next packet we receive must carry
        self._outbox: list[bytes] = []
        self._peer_closed = False
        self._semisync = False
        self._after_ack_request = False
        self._result: _ResultReader | None = None
        # (file, the ack packet before its position, after it): `ack`'s template of the last file
        self._ack_parts: tuple[str, bytes, bytes] | None = None

    @property
    def state(self) -> ClientState:
        return self._machine.state

    def data_to_send(self) -> bytes:
        """Bytes the connection produced by itself (login, auth switch); write them out."""
        out = b"".join(self._outbox)
        self._outbox.clear()
        return out

    # -- input --------------------------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        if not data:
            self._peer_closed = True
        else:
            self._decoder.feed(data)

    def next_event(self) -> Any:
        """NEED_DATA, LoginOK, OK, ERR, EOF (end of a non-blocking dump), ResultSet,
        BinlogPacket (while dumping) or ConnectionClosed."""
        while True:
            state = self._machine.state
            if state is C.CLOSED:
                return ConnectionClosed()
            if state is C.READY and not self._decoder.in_packet and not self._peer_closed:
                return NEED_DATA
            try:
                packet = self._decoder.next_packet()
            except RemoteProtocolError:
                self._machine.fire(T.PEER_BROKE_RULES)
                raise
            if packet is None:
                if self._peer_closed:
                    self._machine.fire(T.PEER_CLOSED)
                    if self._decoder.in_packet:
                        raise RemoteProtocolError("connection closed inside a packet", error=ER_NET_READ_ERROR)
                    return ConnectionClosed()
                return NEED_DATA
            try:
                event = self._handle(state, packet.seq, packet.next_seq, packet.payload)
            except RemoteProtocolError:
                if self._machine.state is not C.CLOSED:
                    self._machine.fire(T.PEER_BROKE_RULES)
                raise
            if event is not None:
                return event

    def next_binlog_events(self) -> list[BinlogPacket]:
        """`next_binlog_payloads`, each as the `BinlogPacket` `next_event` returns."""
        return [BinlogPacket(payload) for payload in self.next_binlog_payloads()]

    def next_binlog_payloads(self) -> list[bytes]:
        """While DUMPING: every event packet already received, in one pass, as `next_event`
        would return them one by one (sequence ids and the semi-sync flag checked the same way),
        each as its `BinlogPacket.payload`. Stops before anything else (ERR, EOF, a packet of
        16 MiB or more, an incomplete one), which `next_event` then returns; [] when not dumping."""
        if self._machine.state is not C.DUMPING:
            return []
        packets = self._decoder.take_packets(0x00)
        if not packets:
            return []
        out = []
        expected, after_ack_request, semisync = self._seq, self._after_ack_request, self._semisync
        for seq, payload in packets:
            if not _dump_seq_ok(seq, expected, after_ack_request):
                self._machine.fire(T.PEER_BROKE_RULES)
                raise _out_of_order(seq, expected)
            expected = (seq + 1) & 0xFF
            after_ack_request = semisync and _ack_requested(payload)
            out.append(payload)
        self._seq, self._after_ack_request = expected, after_ack_request
        self._machine.fire(T.RECV_EVENT)
        return out

    def _check_seq(self, seq: int) -> None:
        if seq != self._seq:
            raise _out_of_order(seq, self._seq)

    def _handle(self, state: ClientState, seq: int, next_seq: int, payload: bytes) -> Any:
        if state is C.DUMPING:
            return self._dump_packet(seq, next_seq, payload)
        self._check_seq(seq)
        self._seq = next_seq
        if state is C.AWAIT_GREETING:
            return self._greeting(payload)
        if state is C.AUTHENTICATING:
            return self._auth_reply(payload)
        if state is C.AWAIT_RESPONSE:
            return self._response(payload)
        raise RemoteProtocolError(f"unexpected packet in state {state.value}", error=ER_NET_READ_ERROR)

    def _greeting(self, payload: bytes) -> ERR | TlsUpgrade | None:
        if payload[:1] == bytes((ERR_HEADER,)):
            err = ERR.decode(payload)
            self._machine.fire(T.RECV_ERR)
            return err
        hs = Handshake.decode(payload)
        if _REQUIRED & ~hs.capabilities:
            raise RemoteProtocolError("server lacks protocol 4.1 authentication", error=ER_HANDSHAKE_ERROR)
        self.handshake = hs
        caps = self.requested_capabilities & (hs.capabilities | Capability.CLIENT_LONG_PASSWORD)
        self.capabilities = caps
        plugin = caps & Capability.CLIENT_PLUGIN_AUTH
        login = HandshakeResponse(
            capabilities=caps,
            user=self.user,
            auth_response=scramble_native_password(self.password, hs.salt),
            database=self.database if caps & Capability.CLIENT_CONNECT_WITH_DB else None,
            auth_plugin_name=NATIVE_PASSWORD_PLUGIN if plugin else None,
            attributes=dict(self.attributes or {}) if caps & Capability.CLIENT_CONNECT_ATTRS else None,
            max_packet_size=self._max_packet,
            charset=self._charset,
        )
        if self.tls:
            if not hs.capabilities & Capability.CLIENT_SSL:
                raise RemoteProtocolError("SSL is required but the server doesn't support it",
                                          error=ER_HANDSHAKE_ERROR)
            self.capabilities = caps | Capability.CLIENT_SSL
            login = replace(login, capabilities=self.capabilities)
            self._send(SslRequest(self.capabilities, self._max_packet, self._charset).encode())
            self._pending_login = login.encode()
            return TlsUpgrade()
        self._send(login.encode())
        self._machine.fire(T.SEND_LOGIN)
        return None

    def tls_established(self) -> None:
        """The shell finished the TLS handshake: the login goes out (sequence id 2)."""
        login, self._pending_login = self._pending_login, None
        if login is None:
            raise LocalProtocolError("tls_established() without a TlsUpgrade")
        self._send(login)
        self._machine.fire(T.SEND_LOGIN)

    def _send(self, payload: bytes) -> None:
        wire, self._seq = encode_packet(payload, self._seq)
        self._outbox.append(wire)

    def _auth_reply(self, payload: bytes) -> Any:
        head = payload[:1]
        if head == b"\x00":
            ok = OK.decode(payload, self.capabilities)
            self._machine.fire(T.RECV_OK)
            self._seq = 0
            assert self.handshake is not None
            return LoginOK(ok, self.handshake, self.capabilities)
        if head == b"\xff":
            err = ERR.decode(payload)
            self._machine.fire(T.RECV_ERR)
            return err
        if head == bytes((AUTH_SWITCH_HEADER,)):
            switch = AuthSwitchRequest.decode(payload)
            if switch.plugin_name != NATIVE_PASSWORD_PLUGIN:
                raise RemoteProtocolError(
                    f"server asks for auth plugin {switch.plugin_name!r}", error=ER_NOT_SUPPORTED_AUTH_MODE
                )
            self._machine.fire(T.RECV_AUTH_SWITCH)
            self._send(scramble_native_password(self.password, switch.salt))
            return None
        raise RemoteProtocolError(f"unexpected login reply {payload[:1].hex()}", error=ER_HANDSHAKE_ERROR)

    def _response(self, payload: bytes) -> Any:
        reader = self._result
        if reader is None:
            head = payload[:1]
            if head == b"\x00":
                return self._finish(OK.decode(payload, self.capabilities))
            if head == b"\xff":
                return self._finish(ERR.decode(payload))
            if head == bytes((LOCAL_INFILE_HEADER,)):
                raise RemoteProtocolError("LOAD DATA LOCAL is not supported", error=ER_NET_READ_ERROR)
            if is_eof_packet(payload):
                return self._finish(EOF.decode(payload))
            self._result = _ResultReader(payload, self.capabilities)
            return None
        result = reader.feed(payload)
        if result is None:
            return None
        self._result = None
        return self._finish(result)

    def _finish(self, response: Any) -> Any:
        status = getattr(response, "status", 0)
        if status & ServerStatus.MORE_RESULTS_EXISTS:
            self._machine.fire(T.RECV_MORE)
        else:
            self._machine.fire(T.RECV_RESPONSE)
            self._seq = 0
        return response

    def _dump_packet(self, seq: int, next_seq: int, payload: bytes) -> Any:
        if not _dump_seq_ok(seq, self._seq, self._after_ack_request):
            raise _out_of_order(seq, self._seq)
        self._seq = next_seq
        head = payload[:1]
        if head == b"\x00":
            self._machine.fire(T.RECV_EVENT)
            self._after_ack_request = self._semisync and _ack_requested(payload[1:3])
            return BinlogPacket(payload[1:])
        if head == b"\xff":
            self._machine.fire(T.RECV_DUMP_END)
            self._seq = 0
            return ERR.decode(payload)
        if head == bytes((EOF_HEADER,)):  # end of a non-blocking dump: EOF, or OK-0xFE
            self._machine.fire(T.RECV_DUMP_END)
            self._seq = 0
            return EOF.decode(payload) if len(payload) == 5 else OK.decode(payload, self.capabilities)
        raise RemoteProtocolError(f"unexpected dump packet {payload[:8].hex()}", error=ER_NET_READ_ERROR)

    # -- commands (each returns the bytes to write) --------------------------------------------

    def command(self, command: Command) -> bytes:
        """Send any command that is answered by OK/ERR/EOF/result sets."""
        if isinstance(command, ComQuit):
            return self.quit()
        if isinstance(command, ComBinlogDump):
            raise LocalProtocolError("use binlog_dump() to start a dump")
        self._machine.fire(T.SEND_COMMAND)
        wire, self._seq = encode_packet(command.encode(), 0)
        return wire

    def query(self, sql: str) -> bytes:
        return self.command(ComQuery(sql))

    def ping(self) -> bytes:
        return self.command(ComPing())

    def init_db(self, db: str) -> bytes:
        return self.command(ComInitDB(db))

    def register_slave(
        self,
        server_id: int,
        host: str = "",
        user: str = "",
        password: str = "",
        port: int = 0,
        rpl_recovery_rank: int = 0,
        master_id: int = 0,
    ) -> bytes:
        return self.command(ComRegisterSlave(server_id, host, user, password, port, rpl_recovery_rank, master_id))

    def binlog_dump(self, position: int, flags: int, server_id: int, filename: str, semisync: bool = False) -> bytes:
        """COM_BINLOG_DUMP; the connection then yields BinlogPacket events (EOF at the end of a
        BINLOG_DUMP_NON_BLOCK dump, ERR on a dump error)."""
        self._machine.fire(T.SEND_DUMP)
        self._semisync = semisync
        self._after_ack_request = False
        wire, self._seq = encode_packet(ComBinlogDump(position, flags, server_id, filename).encode(), 0)
        return wire

    def ack(self, position: BinlogPosition) -> bytes:
        """A semi-sync ack (sequence id 0) for everything up to `position`: `ack_template`'s
        packet of its file (made once per file: the same bytes) with the position filled in."""
        if not self._semisync:
            raise LocalProtocolError("ack() outside a semi-sync dump")
        self._machine.fire(T.SEND_ACK)
        file, parts = position.file, self._ack_parts
        if parts is None or parts[0] != file:
            wire, at = self.ack_template(file)
            parts = self._ack_parts = (file, wire[:at], wire[at + ACK_POSITION_LEN:])
        try:
            return parts[1] + position.pos.to_bytes(ACK_POSITION_LEN, "little") + parts[2]
        except OverflowError:
            raise LocalProtocolError(f"semi-sync ack: position {position.pos} out of range") from None

    def ack_template(self, file: str) -> tuple[bytes, int]:
        """A whole ack packet for position 0 in `file`, and where its 8-byte little-endian
        position is: the acks a receiver thread fills in (slave/_receiver.c) without the GIL."""
        if not self._semisync:
            raise LocalProtocolError("ack_template() outside a semi-sync dump")
        wire, _ = encode_packet(encode_ack(BinlogPosition(file, 0)), 0)
        return wire, HEADER_SIZE + ACK_POSITION_AT

    def dump_state(self) -> tuple[int, bool] | None:
        """While DUMPING and between packets (nothing received and not returned), to hand the
        stream to a receiver thread that frames it itself (slave/_receiver.c,
        protocol/_dumpscan.h): the sequence id the next packet should have, and whether the
        last packet asked for an ack (the master may then restart at 1). None otherwise."""
        if self._machine.state is not C.DUMPING or self._peer_closed or self._decoder.buffered:
            return None
        return self._seq, self._after_ack_request

    def resume_dump(self, seq: int, after_ack_request: bool) -> None:
        """The stream back from a receiver thread (`dump_state`), with its state after the last
        packet the thread took; what it did not take is fed with `receive_data`."""
        if self._machine.state is not C.DUMPING:
            raise LocalProtocolError(f"resume_dump() in state {self._machine.state.value}")
        self._seq, self._after_ack_request = seq & 0xFF, after_ack_request

    def quit(self) -> bytes:
        self._machine.fire(T.SEND_QUIT)
        wire, _ = encode_packet(ComQuit().encode(), 0)
        return wire


class _ResultReader:
    """Collects one text result set: count, definitions, [EOF], rows, EOF / OK-with-0xFE."""

    __slots__ = ("_count", "_columns", "_rows", "_deprecate_eof", "_in_rows", "_caps")

    def __init__(self, first: bytes, capabilities: int) -> None:
        count, end = decode_lenenc_int(first)
        if count is None or count == 0 or end != len(first):
            raise RemoteProtocolError(f"bad column count packet {first[:9].hex()}", error=ER_NET_READ_ERROR)
        self._count = count
        self._columns: list[ColumnDefinition] = []
        self._rows: list[tuple] = []
        self._caps = capabilities
        self._deprecate_eof = bool(capabilities & Capability.CLIENT_DEPRECATE_EOF)
        self._in_rows = False

    def feed(self, payload: bytes) -> ResultSet | ERR | None:
        if not self._in_rows:
            if len(self._columns) < self._count:
                self._columns.append(ColumnDefinition.decode(payload))
                if len(self._columns) == self._count and self._deprecate_eof:
                    self._in_rows = True
                return None
            EOF.decode(payload)  # the EOF after the definitions
            self._in_rows = True
            return None
        if is_eof_packet(payload, self._deprecate_eof):
            if self._deprecate_eof:
                end = OK.decode(payload, self._caps)
                status, warnings = end.status, end.warnings
            else:
                eof = EOF.decode(payload)
                status, warnings = eof.status, eof.warnings
            return ResultSet(tuple(self._columns), tuple(self._rows), status, warnings)
        if payload[:1] == bytes((ERR_HEADER,)):
            return ERR.decode(payload)  # an error in the middle of the rows ends the result
        self._rows.append(decode_text_row(payload, self._count))
        return None


__all__ = [
    "CLIENT_TRANSITIONS",
    "DEFAULT_CLIENT_CAPABILITIES",
    "DEFAULT_SERVER_CAPABILITIES",
    "DUMP_INPUT_MAX_PACKET",
    "NEED_DATA",
    "PRE_AUTH_MAX_PACKET",
    "SERVER_TRANSITIONS",
    "BinlogPacket",
    "ClientConnection",
    "ClientState",
    "ConnectionClosed",
    "LoginOK",
    "SemiSyncAck",
    "ServerConnection",
    "ServerState",
    "Trigger",
]
