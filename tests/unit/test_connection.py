"""ServerConnection <-> ClientConnection in memory: login, commands, dumps, sequence ids,
16 MiB+ packets both directions, illegal transitions, byte-by-byte delivery."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from protocol.auth import make_salt, native_password_hash, scramble_native_password
from protocol.connection import (
    DEFAULT_CLIENT_CAPABILITIES,
    DEFAULT_SERVER_CAPABILITIES,
    DUMP_INPUT_MAX_PACKET,
    NEED_DATA,
    PRE_AUTH_MAX_PACKET,
    SERVER_TRANSITIONS,
    BinlogPacket,
    ClientConnection,
    ClientState,
    ConnectionClosed,
    LoginOK,
    SemiSyncAck,
    ServerConnection,
    ServerState,
    Trigger,
)
from protocol.errors import (
    ER_ACCESS_DENIED_ERROR,
    ER_HANDSHAKE_ERROR,
    ER_MALFORMED_PACKET,
    ER_NET_PACKET_TOO_LARGE,
    ER_NET_PACKETS_OUT_OF_ORDER,
    LocalProtocolError,
    RemoteProtocolError,
)
from protocol.messages import (
    BINLOG_DUMP_NON_BLOCK,
    EOF,
    ERR,
    EXTENDED_METADATA,
    MARIADB_CLIENT_EXTENDED_METADATA,
    OK,
    AuthSwitchRequest,
    AuthSwitchResponse,
    Capability,
    ComBinlogDump,
    ComPing,
    ComQuery,
    ComQuit,
    ComRegisterSlave,
    FieldType,
    HandshakeResponse,
    ResultSet,
    ServerStatus,
    column,
    decode_command,
)
from protocol.packets import MAX_PAYLOAD, PacketDecoder, encode_packet
from protocol.position import BinlogPosition
from protocol.semisync_wire import encode_ack

SALT = make_salt(bytes(range(40, 60)))
PASSWORD = "pw"
STORED = native_password_hash(PASSWORD)


def pump(src_bytes: bytes, dst, step: int | None = None) -> list:
    """Deliver bytes (optionally `step` at a time) and collect events until NEED_DATA."""
    events = []
    step = step or max(len(src_bytes), 1)
    for i in range(0, len(src_bytes), step):
        dst.receive_data(src_bytes[i : i + step])
        while (event := dst.next_event()) is not NEED_DATA:
            events.append(event)
            if isinstance(event, ConnectionClosed):
                return events
    return events


def login(step: int | None = None, server_caps: int | None = None, client_caps: int | None = None, **client_kw):
    kw: dict[str, Any] = {} if server_caps is None else {"capabilities": server_caps}
    server = ServerConnection(5, "5.7.44-semisync", SALT, **kw)
    ckw: dict[str, Any] = {} if client_caps is None else {"capabilities": client_caps}
    client = ClientConnection("repl", PASSWORD, **ckw, **client_kw)
    assert pump(server.greeting(), client, step) == []
    [response] = pump(client.data_to_send(), server, step)
    assert isinstance(response, HandshakeResponse)
    assert server.verify_password(STORED)
    [ok] = pump(server.send(OK()), client, step)
    assert isinstance(ok, LoginOK)
    assert server.state is ServerState.COMMAND and client.state is ClientState.READY
    return server, client


def roundtrip(server, client, command_bytes: bytes, response, step=None):
    [command] = pump(command_bytes, server, step)
    events = pump(server.send(response), client, step)
    return command, events


# -- login ------------------------------------------------------------------------------------


@pytest.mark.parametrize("step", [None, 1, 3])
def test_login_whole_and_byte_by_byte(step):
    server, client = login(step, database="shop", attributes={"_client_name": "semisync"})
    assert server.login.database == "shop"
    assert server.login.attributes == {"_client_name": "semisync"}
    assert server.login.user == "repl"
    assert client.handshake.connection_id == 5


def test_wrong_password_gets_err_and_both_close():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", "bad")
    pump(server.greeting(), client)
    [resp] = pump(client.data_to_send(), server)
    assert not server.verify_password(STORED)
    err = ERR.from_error(ER_ACCESS_DENIED_ERROR, "repl", "localhost", "YES")
    events = pump(server.send(err), client)
    assert events == [err, ConnectionClosed()]
    event = events[0]
    assert event.code == 1045 and event.sqlstate == "28000"
    assert server.state is ServerState.CLOSED and client.state is ClientState.CLOSED
    with pytest.raises(LocalProtocolError):
        client.query("SELECT 1")


def test_empty_password():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("root", "")
    pump(server.greeting(), client)
    [resp] = pump(client.data_to_send(), server)
    assert resp.auth_response == b""
    assert server.verify_password(native_password_hash(""))
    assert not server.verify_password(STORED)


def test_auth_switch_both_sides():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", PASSWORD)
    pump(server.greeting(), client)
    [resp] = pump(client.data_to_send(), server)
    # The server asks for a new scramble with a new salt (as for a client of another plugin).
    new_salt = make_salt(bytes(range(100, 120)))
    switch = server.send(AuthSwitchRequest("mysql_native_password", new_salt + b"\x00"))
    assert pump(switch, client) == []
    server.salt = new_salt
    answer = client.data_to_send()
    [switched] = pump(answer, server)
    assert switched == AuthSwitchResponse(scramble_native_password(PASSWORD, new_salt))
    assert server.verify_password(STORED)
    ok_wire = server.send(OK())
    [ok] = pump(ok_wire, client)
    assert isinstance(ok, LoginOK)
    # Sequence ids: greeting 0, login 1, switch 2, switch response 3, OK 4.
    assert (switch[3], answer[3], ok_wire[3]) == (2, 3, 4)


def test_needs_auth_switch_for_other_plugins():
    server = ServerConnection(1, "5.7", SALT)
    server.greeting()
    caps = int(Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_SECURE_CONNECTION | Capability.CLIENT_PLUGIN_AUTH)
    other = HandshakeResponse(caps, "u", b"x" * 32, None, "caching_sha2_password")
    server.receive_data(encode_packet(other.encode(), 1)[0])
    assert server.next_event() == other
    assert server.needs_auth_switch
    wire = server.send(server.auth_switch_request())
    assert wire[3] == 2 and AuthSwitchRequest.decode(wire[4:]).salt == SALT
    server.receive_data(encode_packet(scramble_native_password(PASSWORD, SALT), 3)[0])
    assert isinstance(server.next_event(), AuthSwitchResponse)
    assert server.verify_password(STORED)
    assert server.send(OK())[3] == 4


def test_client_refuses_other_auth_plugins():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", PASSWORD)
    pump(server.greeting(), client)
    pump(client.data_to_send(), server)
    with pytest.raises(RemoteProtocolError) as info:
        pump(server.send(AuthSwitchRequest("client_ed25519", b"x" * 32)), client)
    assert info.value.code == 1251


def test_server_refuses_before_greeting():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", PASSWORD)
    err = ERR(1040, "08004", "Too many connections")
    wire = server.send(err)
    assert wire[3] == 0 and server.state is ServerState.CLOSED
    assert pump(wire, client) == [err, ConnectionClosed()]


def test_client_needs_protocol_41():
    server = ServerConnection(1, "5.7", SALT, capabilities=int(Capability.CLIENT_PLUGIN_AUTH))
    client = ClientConnection("repl", PASSWORD)
    with pytest.raises(RemoteProtocolError):
        pump(server.greeting(), client)


# -- commands and responses -------------------------------------------------------------------


@pytest.mark.parametrize("deprecate_eof", [False, True])
@pytest.mark.parametrize("step", [None, 1])
def test_query_result_set(deprecate_eof, step):
    caps = ClientConnection("x", "").requested_capabilities
    if deprecate_eof:
        caps |= Capability.CLIENT_DEPRECATE_EOF
    server, client = login(client_caps=caps)
    assert bool(server.capabilities & Capability.CLIENT_DEPRECATE_EOF) == deprecate_eof
    rs = ResultSet(
        [column("id", FieldType.LONGLONG), column("name"), column("at", FieldType.DATETIME)],
        [("1", "ada", None), ("2", None, "2024-01-01 00:00:00")],
        status=ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS,
    )
    command, events = roundtrip(server, client, client.query("SELECT * FROM t"), rs, step)
    assert command == ComQuery("SELECT * FROM t")
    assert events == [rs]
    assert server.state is ServerState.COMMAND and client.state is ClientState.READY


def test_deprecate_eof_result_ending_in_a_long_ok():
    """A closing OK-0xFE longer than 9 bytes (big counters, info) still ends the rows."""
    caps = ClientConnection("x", "").requested_capabilities | Capability.CLIENT_DEPRECATE_EOF
    server, client = login(client_caps=caps)
    pump(client.query("SELECT 1"), server)
    payloads = [b"\x01", column("a").encode(), b"\x01x"]
    payloads.append(OK(2**40, 2**40, ServerStatus.AUTOCOMMIT, 3, "info").encode(header=0xFE))
    assert len(payloads[-1]) > 9
    wire = b"".join(encode_packet(p, i + 1)[0] for i, p in enumerate(payloads))
    server.send(OK())  # keep the server's side in step; its bytes are not delivered
    [event] = pump(wire, client)
    assert event == ResultSet([column("a")], [("x",)], ServerStatus.AUTOCOMMIT, 3)
    assert client.state is ClientState.READY


def test_ok_err_eof_and_next_command_restarts_at_zero():
    server, client = login()
    cmd, events = roundtrip(server, client, client.query("INSERT"), OK(3, 7, 2, 1, "Records: 3"))
    assert events == [OK(3, 7, 2, 1, "Records: 3")]
    cmd, events = roundtrip(server, client, client.ping(), ERR(1105, "HY000", "nope"))
    assert cmd == ComPing() and events == [ERR(1105, "HY000", "nope")]
    wire = client.register_slave(7, "h", "u", "p", 3307)
    assert wire[3] == 0
    cmd, events = roundtrip(server, client, wire, OK())
    assert cmd == ComRegisterSlave(7, "h", "u", "p", 3307)
    assert events == [OK()]


def test_multiple_results():
    server, client = login()
    [cmd] = pump(client.query("CALL p()"), server)
    more = ServerStatus.AUTOCOMMIT | ServerStatus.MORE_RESULTS_EXISTS
    rs = ResultSet([column("a")], [("1",)], status=more)
    first = server.send(rs)
    assert server.state is ServerState.RESPONDING
    last = server.send(OK())
    assert server.state is ServerState.COMMAND
    events = pump(first + last, client)
    assert events == [rs, OK()]
    assert client.state is ClientState.READY


def test_quit():
    server, client = login()
    events = pump(client.quit(), server)
    assert events == [ComQuit(), ConnectionClosed()]
    assert server.state is ServerState.CLOSED
    assert server.next_event() == ConnectionClosed()
    with pytest.raises(LocalProtocolError):
        server.send(OK())


def test_pipelined_command_waits_in_the_buffer():
    server, client = login()
    server.receive_data(encode_packet(b"\x03SELECT 1", 0)[0] + encode_packet(b"\x0e", 0)[0])
    assert server.next_event() == ComQuery("SELECT 1")
    assert server.next_event() is NEED_DATA  # our turn to answer
    server.send(OK())
    assert server.next_event() == ComPing()


def test_malformed_command_is_answered_and_the_connection_goes_on():
    server, client = login()
    server.receive_data(encode_packet(b"\x0c\x01\x02", 0)[0])  # COM_PROCESS_KILL, 2 bytes short
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.error is ER_MALFORMED_PACKET and not info.value.fatal
    wire = server.send(ERR.from_exception(info.value))
    assert wire[3] == 1 and ERR.decode(wire[4:]).code == 1835
    assert server.state is ServerState.COMMAND
    cmd, _ = roundtrip(server, client, client.query("SELECT 2"), OK())
    assert cmd == ComQuery("SELECT 2")


# -- sequence ids -----------------------------------------------------------------------------


def test_command_with_wrong_sequence_id():
    server, _ = login()
    server.receive_data(encode_packet(b"\x03SELECT 1", 1)[0])
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.error is ER_NET_PACKETS_OUT_OF_ORDER and info.value.code == 1156
    assert server.state is ServerState.ERROR
    wire = server.send(ERR.from_exception(info.value))
    assert ERR.decode(wire[4:]).code == 1156
    assert server.state is ServerState.CLOSED


def test_login_with_wrong_sequence_id():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", PASSWORD)
    pump(server.greeting(), client)
    wire = bytearray(client.data_to_send())
    wire[3] = 0
    with pytest.raises(RemoteProtocolError) as info:
        pump(bytes(wire), server)
    assert info.value.code == 1156


def test_response_with_wrong_sequence_id():
    server, client = login()
    pump(client.query("SELECT 1"), server)
    wire = bytearray(server.send(OK()))
    wire[3] = 2
    with pytest.raises(RemoteProtocolError) as info:
        pump(bytes(wire), client)
    assert info.value.code == 1156
    assert client.state is ClientState.CLOSED


def test_result_set_packet_out_of_order():
    server, client = login()
    pump(client.query("SELECT 1"), server)
    decoder = PacketDecoder()
    decoder.feed(server.send(ResultSet([column("a")], [("1",), ("2",)])))
    packets = []
    while (p := decoder.next_packet()) is not None:
        packets.append(p)
    packets[3], packets[4] = packets[4], packets[3]
    with pytest.raises(RemoteProtocolError) as info:
        pump(b"".join(encode_packet(p.payload, p.seq)[0] for p in packets), client)
    assert info.value.code == 1156


def test_too_large_command():
    server = ServerConnection(1, "5.7", SALT, max_packet=1024)
    client = ClientConnection("repl", PASSWORD)
    pump(server.greeting(), client)
    pump(client.data_to_send(), server)
    pump(server.send(OK()), client)
    with pytest.raises(RemoteProtocolError) as info:
        pump(client.query("x" * 2000), server)
    assert info.value.error is ER_NET_PACKET_TOO_LARGE


def test_before_login_a_packet_larger_than_any_login_is_a_bad_handshake_on_its_header():
    server = ServerConnection(1, "5.7", SALT, max_packet=64 << 20)
    server.greeting()
    # Only the header has arrived: the refusal does not wait for (or buffer) the body.
    server.receive_data((PRE_AUTH_MAX_PACKET + 1).to_bytes(3, "little") + b"\x01")
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.error is ER_HANDSHAKE_ERROR and info.value.fatal
    assert server.state is ServerState.ERROR
    assert ERR.decode(server.send(ERR.from_exception(info.value))[4:]).code == 1043
    assert server.state is ServerState.CLOSED


def test_the_largest_valid_login_fits_the_pre_auth_limit():
    # mysqld accepts connection attributes up to 65535 bytes; such a login must pass.
    attributes = {f"k{i}": "v" * 250 for i in range(255)}
    server, client = login(attributes=attributes, database="d" * 64)
    assert server.login.attributes == attributes


def test_auth_switch_response_has_the_pre_auth_limit_too():
    server = ServerConnection(1, "5.7", SALT)
    client = ClientConnection("repl", PASSWORD)
    pump(server.greeting(), client)
    pump(client.data_to_send(), server)
    server.send(server.auth_switch_request())
    with pytest.raises(RemoteProtocolError) as info:
        pump(encode_packet(b"x" * (PRE_AUTH_MAX_PACKET + 1), 3)[0], server)
    assert info.value.error is ER_HANDSHAKE_ERROR


def test_logged_in_the_limit_is_max_packet_and_while_dumping_an_ack():
    server, client = login()
    [query] = pump(client.query("x" * (PRE_AUTH_MAX_PACKET * 2)), server)
    assert len(query.sql) == PRE_AUTH_MAX_PACKET * 2
    pump(server.send(OK()), client)
    pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=True), server)
    server.start_dump(semisync=True)
    with pytest.raises(RemoteProtocolError) as info:
        server.receive_data((DUMP_INPUT_MAX_PACKET + 1).to_bytes(3, "little") + b"\x00")
        server.next_event()
    assert info.value.error is ER_NET_PACKET_TOO_LARGE
    # A non-blocking dump that ends gives the connection its max_allowed_packet back.
    server, client = login()
    pump(client.binlog_dump(4, BINLOG_DUMP_NON_BLOCK, 2, "b.000001"), server)
    server.start_dump(semisync=False)
    pump(server.send_event(b"E") + server.send_eof(), client)
    [query] = pump(client.query("y" * (DUMP_INPUT_MAX_PACKET * 4)), server)
    assert len(query.sql) == DUMP_INPUT_MAX_PACKET * 4


# -- 16 MiB+ in both directions ---------------------------------------------------------------


def test_big_query_and_big_row():
    server, client = login()
    sql = "SELECT '" + "q" * (MAX_PAYLOAD + 100) + "'"
    wire = client.query(sql)
    assert len(wire) == len(sql) + 1 + 8
    [cmd] = pump(wire, server, step=1 << 20)
    assert cmd == ComQuery(sql)
    value = "v" * (2 * MAX_PAYLOAD)
    rs = ResultSet([column("big", FieldType.LONG_BLOB)], [(value,), (None,)])
    [got] = pump(server.send(rs), client, step=(1 << 22) + 1)
    assert got == rs


def test_big_event_and_seq_restart():
    server, client = login()
    [dump] = pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=True), server)
    server.start_dump(semisync=True)
    big = bytes(range(256)) * ((MAX_PAYLOAD + 1000) // 256)
    wire = server.send_event(big, b"\xef\x01")
    # payload 0x00 EF 01 + event: two chunks at seq 1 and 2, then the restart at 1.
    assert wire[:4] == b"\xff\xff\xff\x01"
    assert wire[4 + MAX_PAYLOAD + 3] == 2
    nxt = server.send_event(b"small", b"\xef\x00")
    assert nxt[3] == 1
    events = pump(wire + nxt, client, step=1 << 21)
    assert events == [BinlogPacket(b"\xef\x01" + big), BinlogPacket(b"\xef\x00small")]
    # A packet of exactly 0xFFFFFF bytes is followed by an empty chunk.
    exact = server.send_event(b"e" * (MAX_PAYLOAD - 3), b"\xef\x00")
    assert exact[4 + MAX_PAYLOAD :] == b"\x00\x00\x00\x03"
    assert pump(exact, client) == [BinlogPacket(b"\xef\x00" + b"e" * (MAX_PAYLOAD - 3))]


# -- binlog dump ------------------------------------------------------------------------------


def test_semisync_dump_acks_and_seq_restart():
    server, client = login()
    [dump] = pump(client.binlog_dump(4, 0, 2, "mysql-bin.000001", semisync=True), server)
    assert dump == ComBinlogDump(4, 0, 2, "mysql-bin.000001")
    server.start_dump(semisync=True)
    seqs = []
    received = []
    for header in (b"\xef\x00", b"\xef\x00", b"\xef\x01", b"\xef\x00", b"\xef\x01", b"\xef\x01", b"\xef\x00"):
        wire = server.send_event(b"EVENT", header)
        seqs.append(wire[3])
        received += pump(wire, client, step=1)
        if header == b"\xef\x01":
            ack = client.ack(BinlogPosition("mysql-bin.000001", 100 + len(seqs)))
            assert ack[3] == 0
            assert pump(ack, server) == [SemiSyncAck(BinlogPosition("mysql-bin.000001", 100 + len(seqs)))]
    assert seqs == [1, 2, 3, 1, 2, 1, 1]
    assert received == [BinlogPacket(h + b"EVENT") for h in
                        (b"\xef\x00", b"\xef\x00", b"\xef\x01", b"\xef\x00", b"\xef\x01", b"\xef\x01", b"\xef\x00")]


def test_an_ack_is_its_file_s_template_with_the_position_filled_in(monkeypatch):
    """`ack` gives the bytes of the declared ack (encode_ack, framed at sequence id 0) for any
    position, a file change included, while it encodes each file's payload once (the template
    of `ack_template`); a position outside 64 bits or a bad file name is our misuse."""
    import protocol.connection as connection

    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "mysql-bin.000001", semisync=True), server)
    encoded = []
    real = connection.encode_ack

    def counting(position):
        encoded.append(position.file)
        return real(position)

    monkeypatch.setattr(connection, "encode_ack", counting)
    acks = [BinlogPosition("mysql-bin.000001", pos) for pos in (4, 255, 256, 1 << 32, (1 << 64) - 1)]
    acks += [BinlogPosition("mysql-bin.000002", 4), BinlogPosition("b" * 300 + ".000002", 0x0102030405060708)]
    for position in acks:
        assert client.ack(position) == encode_packet(real(position), 0)[0], position
    assert encoded == ["mysql-bin.000001", "mysql-bin.000002", "b" * 300 + ".000002"]
    with pytest.raises(LocalProtocolError):
        client.ack(BinlogPosition("mysql-bin.000002", 1 << 64))
    with pytest.raises(LocalProtocolError):
        client.ack(BinlogPosition("mysql-bin.000002", -1))
    with pytest.raises(LocalProtocolError):
        client.ack(BinlogPosition("bad\x00name", 4))


@pytest.mark.parametrize("semisync", [True, False])
def test_send_events_frames_a_batch_as_send_event_does_one_by_one(semisync):
    """`send_events` (a dump's one-pass framing of a read batch) gives the bytes of
    `send_event` for each event in order: sequence ids, the restart after each flagged header,
    an event over MAX_PAYLOAD split as usual, and the sequence the next packet continues from."""
    events = [b"A", b"BB" * 7, b"c" * (MAX_PAYLOAD + 5), b"d", b"e" * (MAX_PAYLOAD - 3), b"f"]
    if semisync:
        headers = [b"\xef\x00", b"\xef\x01", b"\xef\x00", b"\xef\x01", b"\xef\x01", b"\xef\x00"]
    else:
        headers = [b""] * len(events)
    one_by_one, together = login()[0], login()[0]
    for conn in (one_by_one, together):
        pump(login()[1].binlog_dump(4, 0, 2, "b.000001", semisync=semisync), conn)
        conn.start_dump(semisync=semisync)
    for rounds in range(2):  # the second batch goes on from where the first left the sequence
        expected = b"".join(one_by_one.send_event(e, h) for e, h in zip(events, headers, strict=True))
        assert together.send_events(events, headers) == expected, rounds
    same = [b"\xef\x01" if semisync else b""] * 3
    expected = b"".join(one_by_one.send_event(e, same[0]) for e in events[:3])
    assert together.send_events(events[:3], same[0]) == expected
    with pytest.raises(LocalProtocolError):
        together.send_events(events, headers[:2])
    with pytest.raises(LocalProtocolError):
        login()[0].send_events(events)  # not dumping


def test_plain_dump_counts_on_and_rejects_a_restart():
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "b.000001"), server)
    server.start_dump(semisync=False)
    wires = [server.send_event(b"E%d" % i) for i in range(3)]
    assert [w[3] for w in wires] == [1, 2, 3]
    assert pump(b"".join(wires), client) == [BinlogPacket(b"E%d" % i) for i in range(3)]
    with pytest.raises(RemoteProtocolError) as info:
        pump(encode_packet(b"\x00late", 1)[0], client)
    assert info.value.code == 1156
    with pytest.raises(LocalProtocolError):
        ClientConnection("a", "b").ack(BinlogPosition("b.000001", 4))


def test_client_tolerates_a_master_that_does_not_restart():
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=True), server)
    server.start_dump(semisync=True)
    first = server.send_event(b"A", b"\xef\x01")
    second = encode_packet(b"\x00\xef\x00B", 2)[0]  # seq 2 instead of the restart at 1
    assert pump(first + second, client) == [BinlogPacket(b"\xef\x01A"), BinlogPacket(b"\xef\x00B")]


def test_non_block_dump_ends_with_eof_and_commands_resume():
    server, client = login()
    pump(client.binlog_dump(4, BINLOG_DUMP_NON_BLOCK, 2, "b.000001"), server)
    server.start_dump(semisync=False)
    events = pump(server.send_event(b"E") + server.send_eof(), client)
    assert events == [BinlogPacket(b"E"), EOF()]
    assert server.state is ServerState.COMMAND and client.state is ClientState.READY
    cmd, events = roundtrip(server, client, client.query("SELECT 1"), OK())
    assert cmd == ComQuery("SELECT 1") and events == [OK()]


def test_dump_error_ends_the_dump():
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "nope.000001"), server)
    err = ERR(1236, "HY000", "Could not find first log file name in binary log index file")
    [event] = pump(server.send(err), client)
    assert event == err and client.state is ClientState.READY
    # ... and during a dump:
    pump(client.binlog_dump(4, 0, 2, "b.000001"), server)
    server.start_dump(semisync=False)
    assert pump(server.send_event(b"E") + server.send(err), client) == [BinlogPacket(b"E"), err]


def test_bad_ack_and_unexpected_packets_while_dumping():
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=True), server)
    server.start_dump(semisync=True)
    with pytest.raises(RemoteProtocolError):
        pump(encode_packet(b"\xef\x01\x00", 0)[0], server)
    server2, client2 = login()
    pump(client2.binlog_dump(4, 0, 2, "b.000001", semisync=True), server2)
    server2.start_dump(semisync=True)
    with pytest.raises(RemoteProtocolError) as info:
        pump(encode_packet(b"\xef" + bytes(8) + b"b.000001", 1)[0], server2)  # ack at seq 1
    assert info.value.code == 1156
    server3, client3 = login()
    pump(client3.binlog_dump(4, 0, 2, "b.000001"), server3)
    server3.start_dump(semisync=False)
    with pytest.raises(RemoteProtocolError):
        pump(encode_packet(b"\xef" + bytes(8) + b"b.000001", 0)[0], server3)
    # COM_QUIT during a dump closes cleanly.
    server4, client4 = login()
    pump(client4.binlog_dump(4, 0, 2, "b.000001"), server4)
    server4.start_dump(semisync=False)
    assert pump(client4.quit(), server4) == [ComQuit(), ConnectionClosed()]


# -- illegal transitions and closing ----------------------------------------------------------


def test_illegal_local_transitions():
    server = ServerConnection(1, "5.7", SALT)
    with pytest.raises(LocalProtocolError):
        server.send(OK())  # nothing to answer yet
    with pytest.raises(LocalProtocolError):
        server.send_event(b"E")
    with pytest.raises(LocalProtocolError):
        server.start_dump(True)
    server.greeting()
    with pytest.raises(LocalProtocolError):
        server.greeting()
    client = ClientConnection("a", "b")
    with pytest.raises(LocalProtocolError):
        client.query("SELECT 1")
    with pytest.raises(LocalProtocolError):
        ServerConnection(1, "5.7", b"short")
    s, c = login()
    pump(c.query("SELECT 1"), s)
    with pytest.raises(LocalProtocolError):
        c.query("SELECT 2")  # one command at a time
    with pytest.raises(LocalProtocolError):
        s.send_eof()  # not dumping
    with pytest.raises(LocalProtocolError):
        s.send(AuthSwitchRequest("x", b""))


def test_every_state_has_a_way_out():
    reachable = {ServerState.GREETING}
    frontier = [ServerState.GREETING]
    while frontier:
        state = frontier.pop()
        for (src, _), dst in SERVER_TRANSITIONS.items():
            if src is state and dst not in reachable:
                reachable.add(dst)
                frontier.append(dst)
    assert reachable == set(ServerState)


def test_peer_closes():
    server, client = login()
    server.receive_data(b"")
    assert server.next_event() == ConnectionClosed()
    assert server.state is ServerState.CLOSED
    client.receive_data(b"")
    assert client.next_event() == ConnectionClosed()
    s2, c2 = login()
    s2.receive_data(c2.query("SELECT 1")[:5])
    s2.receive_data(b"")
    with pytest.raises(RemoteProtocolError):
        s2.next_event()


def pump_batched(src_bytes: bytes, dst, step: int | None = None) -> list:
    """`pump`, taking event packets with `next_binlog_events` first (as the IO task reads)."""
    events: list = []
    step = step or max(len(src_bytes), 1)
    for i in range(0, len(src_bytes), step):
        dst.receive_data(src_bytes[i : i + step])
        while True:
            events += dst.next_binlog_events()
            event = dst.next_event()
            if event is NEED_DATA:
                break
            events.append(event)
            if isinstance(event, ConnectionClosed):
                return events
    return events


@pytest.mark.parametrize("semisync", [True, False])
@pytest.mark.parametrize("step", [None, 1, 7, 1 << 20])
def test_next_binlog_events_reads_what_next_event_reads_one_by_one(semisync, step):
    """The IO task's one-pass read of a dump gives the packets `next_event` gives, in order:
    the semi-sync header kept, the sequence restart after a flagged event accepted, a packet of
    16 MiB or more (chunked) and the end of the dump (ERR or EOF) left to `next_event`."""
    events = [b"A", b"BB" * 70, b"c" * (MAX_PAYLOAD + 5), b"d", b"e" * (MAX_PAYLOAD - 3), b"f", b"g" * 300]
    headers = [b"\xef\x00", b"\xef\x01", b"\xef\x00", b"\xef\x01", b"\xef\x01", b"\xef\x00", b"\xef\x01"]
    if step is not None and step < 1 << 20:  # byte by byte: the packets of 16 MiB are too slow to feed so
        events, headers = events[:2] + events[3:4] + events[5:], headers[:2] + headers[3:4] + headers[5:]
    for end in ("err", "eof"):
        got = []
        for reader in (pump, pump_batched):
            server, client = login()
            pump(client.binlog_dump(4, BINLOG_DUMP_NON_BLOCK if end == "eof" else 0, 2, "b.000001", semisync=semisync), server)
            server.start_dump(semisync=semisync)
            wire = b"".join(server.send_event(e, h if semisync else b"") for e, h in zip(events, headers, strict=True))
            tail = server.send_eof() if end == "eof" else server.send(ERR(1236, "HY000", "gone"))
            got.append(reader(wire + tail, client, step))
        assert got[0] == got[1]
        assert len(got[0]) == len(events) + 1


def test_next_binlog_events_refuses_a_sequence_id_out_of_order_as_next_event_does():
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "b.000001", semisync=False), server)
    server.start_dump(semisync=False)
    good = server.send_event(b"E1")
    bad = bytearray(server.send_event(b"E2"))
    bad[3] = 9
    client.receive_data(good + bytes(bad))
    with pytest.raises(RemoteProtocolError):
        client.next_binlog_events()
    assert client.state is ClientState.CLOSED
    assert client.next_binlog_events() == []


@pytest.mark.parametrize("server_mysql, client_ext, negotiated", [
    (False, MARIADB_CLIENT_EXTENDED_METADATA, True),
    (False, 0, False),
    (True, MARIADB_CLIENT_EXTENDED_METADATA, False),  # a greeting with CLIENT_MYSQL set offers none
])
def test_extended_metadata_is_negotiated_as_mariadb_does(server_mysql, client_ext, negotiated):
    caps = DEFAULT_SERVER_CAPABILITIES if server_mysql else DEFAULT_SERVER_CAPABILITIES & ~Capability.CLIENT_LONG_PASSWORD
    server = ServerConnection(5, "10.11.99-MariaDB", SALT, caps, mariadb_capabilities=MARIADB_CLIENT_EXTENDED_METADATA)
    server.greeting()
    login = HandshakeResponse(int(DEFAULT_CLIENT_CAPABILITIES), "u", b"", None, "mysql_native_password",
                              mariadb_capabilities=client_ext)
    server.receive_data(encode_packet(login.encode(), 1)[0])
    assert isinstance(server.next_event(), HandshakeResponse)
    assert bool(server.capabilities & EXTENDED_METADATA) is negotiated
    assert server.capabilities & 0xFFFFFFFF == int(DEFAULT_CLIENT_CAPABILITIES) & caps


# -- one whole command taken from the bytes received ----------------------------------------


def _whole_cases() -> list[tuple[str, bytes, bool]]:
    """(what, bytes received, whether a command is taken whole)."""
    execute = b"\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
    one = encode_packet(execute, 0)[0]
    return [
        ("one execute", one, True),
        ("one execute of one byte", encode_packet(b"\x17", 0)[0], True),
        ("a query", encode_packet(b"\x03SELECT 1", 0)[0], True),
        ("a malformed command", encode_packet(b"\x0c\x01\x02", 0)[0], True),
        ("COM_QUIT", encode_packet(b"\x01", 0)[0], False),
        ("COM_QUIT with a byte more", encode_packet(b"\x01\x00", 0)[0], True),
        ("two packets", one + encode_packet(b"\x0e", 0)[0], False),
        ("a packet and a part", one + one[:2], False),
        ("a part", one[:-1], False),
        ("a header only", one[:4], False),
        ("sequence id 1", encode_packet(execute, 1)[0], False),
        ("an empty packet", encode_packet(b"", 0)[0], False),
        ("a length that says more", bytes([len(execute) + 1, 0, 0, 0]) + execute, False),
        ("a length that says less", bytes([len(execute) - 1, 0, 0, 0]) + execute, False),
        ("above max_packet", encode_packet(execute + b"\x00" * 100, 0)[0], False),
    ]


@pytest.mark.parametrize("what, data, taken", _whole_cases(), ids=[c[0] for c in _whole_cases()])
def test_whole_command_reads_what_receive_data_and_next_event_read(what, data, taken):
    """`whole_command` takes a command only when `data` is exactly one whole packet of it, the
    connection then as `receive_data` + `next_event` leave it; else it takes nothing, and the
    usual path reads the same bytes as it would have."""
    server, _ = login()
    server._decoder.max_packet = 64  # (the "above max_packet" case)
    reference, _ = login()
    reference._decoder.max_packet = 64
    payload = server.whole_command(data)
    assert (payload is not None) == taken
    if taken:
        reference.receive_data(data)
        outcomes = []
        for read in (reference.next_event, lambda: decode_command(payload)):
            try:
                outcomes.append(read())
            except RemoteProtocolError as exc:
                outcomes.append((exc.error, exc.fatal))
        assert outcomes[0] == outcomes[1]
        assert server.state is reference.state is ServerState.RESPONDING
        assert server.send(OK()) == reference.send(OK())  # the answer's sequence ids too
        assert server.next_event() is NEED_DATA
    else:
        assert server.state is ServerState.COMMAND and server._decoder.buffered == 0
        events, expected = [], []
        for conn, out in ((server, events), (reference, expected)):
            conn.receive_data(data)
            try:
                out.append(conn.next_event())
            except RemoteProtocolError as exc:
                out.append((exc.error, exc.fatal))
            out.append(conn.state)
        assert events == expected


def test_whole_command_takes_nothing_while_bytes_wait_or_an_answer_is_due():
    execute = encode_packet(b"\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00", 0)[0]
    server, _ = login()
    server.receive_data(execute[:3])  # a packet begun
    assert server.whole_command(execute) is None and server._decoder.buffered == 3
    server, _ = login()
    server.receive_data(execute)
    assert server.next_event() == decode_command(execute[4:])  # RESPONDING: the answer is due
    assert server.whole_command(execute) is None and server.state is ServerState.RESPONDING
    server, _ = login()
    server.receive_data(b"")  # the peer closed its side
    assert server.whole_command(execute) is None


def test_a_command_received_whole_and_its_ok_take_the_table_s_transitions_in_their_own_frames():
    """`whole_command` and `send_ok` move the connection as the transition table says (COMMAND ->
    RESPONDING, RESPONDING -> COMMAND, and RESPONDING again for an OK with more results to come)
    without a frame of the machine's (`fire`): theirs is the one lookup their state check left."""
    execute = encode_packet(b"\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00", 0)[0]
    server, _ = login()
    frames: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            frames.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        payload = server.whole_command(execute)
        received = server.state
        more = server.send_ok(0, 0, ServerStatus.AUTOCOMMIT | ServerStatus.MORE_RESULTS_EXISTS)
        between = server.state
        last = server.send_ok(1, 0, ServerStatus.AUTOCOMMIT)
    finally:
        sys.setprofile(None)
    assert payload == execute[4:] and more and last
    assert (received, between, server.state) == (
        SERVER_TRANSITIONS[(ServerState.COMMAND, Trigger.RECV_COMMAND)],
        SERVER_TRANSITIONS[(ServerState.RESPONDING, Trigger.SEND_MORE)],
        SERVER_TRANSITIONS[(ServerState.RESPONDING, Trigger.SEND_RESPONSE)],
    ) == (ServerState.RESPONDING, ServerState.RESPONDING, ServerState.COMMAND)
    assert "fire" not in frames, frames


def _dumping(semisync: bool = True) -> ServerConnection:
    server, client = login()
    pump(client.binlog_dump(4, 0, 2, "mysql-bin.000001", semisync=semisync), server)
    server.start_dump(semisync=semisync)
    return server


def _whole_ack_cases() -> list[tuple[str, bytes, bool]]:
    """(what, bytes received on a semi-sync dump, whether an ack is taken whole)."""
    ack = encode_packet(encode_ack(BinlogPosition("mysql-bin.000001", 4321)), 0)[0]
    return [
        ("one ack", ack, True),
        ("an ack of a long position", encode_packet(encode_ack(BinlogPosition("b.000009", 1 << 40)), 0)[0], True),
        ("a bad magic", encode_packet(b"\xee" + ack[5:], 0)[0], True),
        ("too short", encode_packet(b"\xef\x01\x02", 0)[0], True),
        ("a NUL in the name", encode_packet(b"\xef" + bytes(8) + b"a\x00b", 0)[0], True),
        ("COM_QUIT", encode_packet(b"\x01", 0)[0], False),
        ("two acks", ack + ack, False),
        ("an ack and a part", ack + ack[:2], False),
        ("a part", ack[:-1], False),
        ("a header only", ack[:4], False),
        ("sequence id 1", encode_packet(ack[4:], 1)[0], False),
        ("an empty packet", encode_packet(b"", 0)[0], False),
        ("a length that says more", bytes([len(ack) - 3, 0, 0, 0]) + ack[4:], False),
        ("above the dump's input limit", encode_packet(b"\xef" + bytes(DUMP_INPUT_MAX_PACKET), 0)[0], False),
    ]


def _read_all(conn: ServerConnection, data: bytes) -> list[Any]:
    """Every event `receive_data(data)` then `next_event()` read, an error as (code, fatal), and the state."""
    out: list[Any] = []
    conn.receive_data(data)
    while True:
        try:
            event = conn.next_event()
        except RemoteProtocolError as exc:
            out.append((exc.error, exc.fatal))
            break
        out.append(event)
        if event is NEED_DATA or conn.state is ServerState.CLOSED:
            break
    return [*out, conn.state]


@pytest.mark.parametrize("what, data, taken", _whole_ack_cases(), ids=[c[0] for c in _whole_ack_cases()])
def test_whole_ack_reads_what_receive_data_and_next_event_read(what, data, taken):
    """`whole_ack` (the ack receiver's path for nearly every ack) takes a packet only when
    `data` is exactly one whole packet of a semi-sync dump's input, deciding it as `next_event`
    does (the same ack, or the same error and state); else it takes nothing, and the usual path
    reads the same bytes as it would have."""
    server, reference = _dumping(), _dumping()
    expected = _read_all(reference, data)
    try:
        got = server.whole_ack(data)
    except RemoteProtocolError as exc:
        got = (exc.error, exc.fatal)
    assert (got is not None) == taken
    if taken:
        assert got == expected[0] and server.state is reference.state
        if isinstance(got, SemiSyncAck):
            assert server.next_event() is NEED_DATA and expected[1:] == [NEED_DATA, ServerState.DUMPING]
    else:
        assert server._decoder.buffered == 0 and server.state is ServerState.DUMPING
        assert _read_all(server, data) == expected


def test_whole_ack_takes_nothing_while_bytes_wait_or_outside_a_semisync_dump():
    ack = encode_packet(encode_ack(BinlogPosition("mysql-bin.000001", 4321)), 0)[0]
    server = _dumping()
    server.receive_data(ack[:3])  # a packet begun
    assert server.whole_ack(ack) is None and server._decoder.buffered == 3
    server = _dumping(semisync=False)  # an ack there is the peer's error, on the usual path
    assert server.whole_ack(ack) is None
    server = _dumping()
    server.receive_data(b"")  # the peer closed its side
    assert server.whole_ack(ack) is None
    server, _ = login()  # not dumping
    assert server.whole_ack(ack) is None and server.state is ServerState.COMMAND


# -- a command's EOF (my_eof) ------------------------------------------------------------------


@pytest.mark.parametrize("deprecate_eof", [False, True])
def test_a_commands_eof_is_ok_0xfe_under_deprecate_eof(deprecate_eof):
    """COM_SET_OPTION and COM_SHUTDOWN end with mysqld's my_eof: an EOF packet, or under
    CLIENT_DEPRECATE_EOF an OK packet with the 0xFE header (Protocol::send_eof)."""
    caps = DEFAULT_CLIENT_CAPABILITIES | Capability.CLIENT_DEPRECATE_EOF if deprecate_eof \
        else DEFAULT_CLIENT_CAPABILITIES & ~Capability.CLIENT_DEPRECATE_EOF
    server, _ = login(client_caps=caps)
    server.receive_data(b"\x03\x00\x00\x00\x1b\x00\x00")  # COM_SET_OPTION MULTI_STATEMENTS_ON
    assert server.next_event() is not NEED_DATA
    wire = server.send(EOF(0, ServerStatus.AUTOCOMMIT))
    body = b"\xfe\x00\x00\x02\x00\x00\x00" if deprecate_eof else b"\xfe\x00\x00\x02\x00"
    assert wire == len(body).to_bytes(3, "little") + b"\x01" + body
    assert server.state is ServerState.COMMAND


@pytest.mark.parametrize("fields", [
    (0, 0, ServerStatus.AUTOCOMMIT, 0, ""),
    (1, 250, ServerStatus.AUTOCOMMIT | ServerStatus.IN_TRANS, 0, ""),
    (251, 65536, 0, 3, "Records: 3  Duplicates: 0  Warnings: 3"),
    (2**24, 2**64 - 1, ServerStatus.AUTOCOMMIT, 65535, "x" * 300),
    (1, 0, ServerStatus.AUTOCOMMIT | ServerStatus.MORE_RESULTS_EXISTS, 0, "é"),
])
def test_send_ok_is_send_of_the_ok(fields):
    """`send_ok` (a statement's answer without the OK object) gives the bytes, the sequence ids
    and the state `send(OK(...))` gives: answering a command, in a multi-result's middle, and
    during login (where it is `send` itself); then the next command and answer go on alike."""
    pairs = [login(), login()]
    for server, client in pairs:
        pump(client.query("INSERT"), server)
    (a, client_a), (b, client_b) = pairs
    wire = [a.send_ok(*fields), b.send(OK(*fields))]
    assert wire[0] == wire[1] and a.state is b.state
    if fields[2] & ServerStatus.MORE_RESULTS_EXISTS:
        wire = [wire[0] + a.send_ok(0, 0, ServerStatus.AUTOCOMMIT), wire[1] + b.send(OK())]
        assert wire[0] == wire[1]
    answers = [pump(wire[0], client_a), pump(wire[1], client_b)]
    assert answers[0] == answers[1] and answers[0][0] == OK(*fields)
    for server, client in pairs:
        pump(client.query("SELECT 1"), server)
    assert a.send_ok(*fields[:2], 0) == b.send(OK(*fields[:2], 0)) and a.state is b.state is ServerState.COMMAND
    logging_in = [ServerConnection(5, "5.7.44-semisync", SALT) for _ in range(2)]
    for server in logging_in:
        client = ClientConnection("repl", PASSWORD)
        pump(server.greeting(), client)
        pump(client.data_to_send(), server)
        assert server.verify_password(STORED)
    assert logging_in[0].send_ok(*fields[:2], ServerStatus.AUTOCOMMIT) == logging_in[1].send(
        OK(*fields[:2], ServerStatus.AUTOCOMMIT))
    assert logging_in[0].state is logging_in[1].state is ServerState.COMMAND


def test_the_per_command_methods_read_no_state_through_its_enum_class():
    """The methods a command or an event goes through compare with states read once at import
    (`_COMMAND`, `_RESPONDING`, `_DUMPING`): in Python 3.11 `S.COMMAND` goes through the enum
    metaclass's `__getattr__` hook, several times a global's cost, on every command."""
    import ast
    import inspect
    import textwrap

    from protocol.connection import ServerConnection

    for name in ("whole_command", "whole_ack", "send_ok", "send_binary_rows", "send_event", "send_events"):
        tree = ast.parse(textwrap.dedent(inspect.getsource(getattr(ServerConnection, name))))
        read = [node.attr for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "S"]
        assert not read, (name, read)
