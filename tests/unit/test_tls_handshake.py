"""The SSLRequest exchange of both sans-IO sides, in memory, and the TLS channel of the server
shell over memory buffers (server/tls.py) with a generated certificate."""

from __future__ import annotations

import ssl

import pytest

from protocol.auth import make_salt, native_password_hash
from protocol.connection import (
    ClientConnection,
    LoginOK,
    ServerConnection,
    TlsRequest,
    TlsUpgrade,
)
from protocol.errors import RemoteProtocolError
from protocol.messages import OK, Capability, HandshakeResponse, SslRequest
from server.tls import TlsChannel, certificate_files, client_context, server_context

SALT = make_salt(bytes(range(1, 21)))


def test_ssl_request_golden_bytes():
    wire = SslRequest(Capability.CLIENT_PROTOCOL_41, 1 << 24, 45).encode()
    assert wire == bytes.fromhex("000a0000" "00000001" "2d") + bytes(19) + bytes(4)
    assert len(wire) == 32
    assert SslRequest.decode(wire).capabilities == Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_SSL
    with pytest.raises(RemoteProtocolError):
        SslRequest.decode(wire + b"\x00")


def test_an_ssl_request_filler_is_read_past_whatever_it_holds():
    # go-sql-driver/mysql 1.5 leaves the greeting's bytes in it; mysqld reads no filler
    wire = SslRequest(Capability.CLIENT_PROTOCOL_41, 1 << 24, 45).encode()
    garbage = wire[:9] + b".11.99-MariaDB-semi" + wire[28:]
    assert SslRequest.decode(garbage) == SslRequest.decode(wire)
    login = HandshakeResponse(Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_SECURE_CONNECTION, "root").encode()
    assert HandshakeResponse.decode(login[:9] + bytes(range(1, 20)) + login[28:]).user == "root"


def test_sequence_ids_of_an_upgraded_login():
    server = ServerConnection(7, "10.11.99-semisync", SALT, tls=True)
    client = ClientConnection("repl", "pw", tls=True)
    client.receive_data(server.greeting())
    assert isinstance(client.next_event(), TlsUpgrade)
    request = client.data_to_send()
    assert request[3] == 1 and len(request) == 4 + 32  # sequence id 1, the 32-byte head
    server.receive_data(request + b"\x16\x03\x01")  # the TLS ClientHello may come right behind
    event = server.next_event()
    assert isinstance(event, TlsRequest) and event.unread == b"\x16\x03\x01"
    assert event.capabilities & Capability.CLIENT_SSL
    client.tls_established()
    login = client.data_to_send()
    assert login[3] == 2
    server.receive_data(login)
    event = server.next_event()
    assert isinstance(event, HandshakeResponse) and event.user == "repl"
    assert server.verify_password(native_password_hash("pw"))
    answer = server.send(OK())
    assert answer[3] == 3
    client.receive_data(answer)
    assert isinstance(client.next_event(), LoginOK)


def test_no_ssl_request_unless_offered_and_only_one():
    server = ServerConnection(7, "v", SALT)  # TLS not offered
    greeting = server.greeting()
    client = ClientConnection("u", "", tls=True)
    client.receive_data(greeting)
    with pytest.raises(RemoteProtocolError, match="doesn't support"):
        client.next_event()
    server.receive_data(b"\x20\x00\x00\x01" + SslRequest(Capability.CLIENT_PROTOCOL_41).encode())
    with pytest.raises(RemoteProtocolError):
        server.next_event()
    server = ServerConnection(8, "v", SALT, tls=True)
    server.greeting()
    request = b"\x20\x00\x00\x01" + SslRequest(Capability.CLIENT_PROTOCOL_41).encode()
    server.receive_data(request)
    assert isinstance(server.next_event(), TlsRequest)
    server.receive_data(b"\x20\x00\x00\x02" + SslRequest(Capability.CLIENT_PROTOCOL_41).encode())
    with pytest.raises(RemoteProtocolError):
        server.next_event()


def test_tls_channels_over_memory(tmp_path):
    files = certificate_files(tmp_path, None, None, None)
    server = TlsChannel(server_context(files), server_side=True)
    client = TlsChannel(client_context(files.ca, True), server_side=False, server_hostname="localhost")
    client.start()
    to_server = client.outgoing()
    while not (server.handshake_done and client.handshake_done):
        assert server.receive(to_server) == b""
        if out := server.outgoing():
            client.receive(out)
        to_server = client.outgoing()
    if to_server:
        assert server.receive(to_server) == b""  # the client's Finished
    if tickets := server.outgoing():
        client.receive(tickets)
    big = bytes(range(256)) * 2000
    assert server.receive(client.encrypt(big)) == big
    assert client.receive(server.encrypt(b"pong")) == b"pong"
    assert server.cipher and server.version.startswith("TLSv1.")
    with pytest.raises(ssl.SSLError):
        TlsChannel(server_context(files), server_side=True).receive(b"\x16\x03\x01\x00\x05hello")


def test_ssl_options_are_refused_at_start_when_unusable(tmp_path):
    from pydantic import ValidationError

    from config.master import MasterConfig

    files = certificate_files(tmp_path, None, None, None)
    config = MasterConfig(ssl_cert=files.cert, ssl_key=files.key, ssl_ca=files.ca)
    assert config.ssl_cert == files.cert and not config.require_secure_transport
    with pytest.raises(ValidationError, match="go together"):
        MasterConfig(ssl_cert=files.cert)
    with pytest.raises(ValidationError, match="cannot be loaded"):
        MasterConfig(ssl_cert=files.cert, ssl_key=tmp_path / "missing.pem")
    with pytest.raises(ValidationError, match="--ssl-ca"):
        MasterConfig(ssl_ca=files.key)
