"""Golden bytes from a real MariaDB 10.11 master and replica (../shared/interop/*.pcap).

The capture is replayed through both of our connection state machines: the server side must
produce the master's bytes exactly (greeting, OK packets, result sets, event packets with their
sequence ids, including the restart at 1 after each ack-requested event), and the client side
must accept the master's bytes and produce the replica's commands and acks exactly.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from protocol.connection import (
    NEED_DATA,
    BinlogPacket,
    ClientConnection,
    LoginOK,
    SemiSyncAck,
    ServerConnection,
    ServerState,
)
from protocol.messages import (
    EOF,
    OK,
    Capability,
    ColumnDefinition,
    ComBinlogDump,
    ComQuery,
    ComRegisterSlave,
    FieldType,
    Handshake,
    HandshakeResponse,
    ResultSet,
    ServerStatus,
    decode_command,
)
from protocol.packets import PacketDecoder, encode_packet
from protocol.position import BinlogPosition
from tests.support import pcap
from tests.support.pcap import CapturedPacket, mysql_packets

CAPTURE = Path(__file__).resolve().parents[3] / "shared" / "interop" / "mariadb-semisync-replica-connect.pcap"
BINLOG = "master-bin.000001"

QUERIES = [
    ("SELECT UNIX_TIMESTAMP()", ["UNIX_TIMESTAMP()"], [("1795314007",)]),
    ("SHOW VARIABLES LIKE 'SERVER_ID'", ["Variable_name", "Value"], [("server_id", "1")]),
    ("SET @master_heartbeat_period= 1000000000", None, None),
    ("SET @master_binlog_checksum= @@global.binlog_checksum", None, None),
    ("SELECT @master_binlog_checksum", ["@master_binlog_checksum"], [("CRC32",)]),
    ("SET @mariadb_slave_capability=4", None, None),
    (
        "SELECT binlog_gtid_pos('master-bin.000001',462)",
        ["binlog_gtid_pos('master-bin.000001',462)"],
        [("0-1-1",)],
    ),
]
SEMI_QUERIES = [
    (
        "SHOW VARIABLES LIKE 'rpl_semi_sync_master_enabled'",
        ["Variable_name", "Value"],
        [("rpl_semi_sync_master_enabled", "ON")],
    ),
    ("SET @rpl_semi_sync_slave= 1", None, None),
]


@pytest.fixture(scope="module")
def packets() -> list[CapturedPacket]:
    return mysql_packets(CAPTURE)


def wire(p: CapturedPacket) -> bytes:
    return encode_packet(p.payload, p.seq)[0]


def exchanges(packets: list[CapturedPacket]) -> list[tuple[CapturedPacket, list[CapturedPacket]]]:
    """Each client packet after the login with the server packets that answer it."""
    out: list[tuple[CapturedPacket, list[CapturedPacket]]] = []
    for p in packets[3:]:
        if p.direction == "C->S":
            out.append((p, []))
        else:
            out[-1][1].append(p)
    return out


# -- the pcap reader itself ---------------------------------------------------------------------


def test_capture_has_the_packets_the_decode_lists(packets):
    assert sum(p.direction == "C->S" for p in packets) == 16
    assert sum(p.direction == "S->C" for p in packets) == 55
    assert packets[0].direction == "S->C" and packets[0].seq == 0
    assert packets[1].direction == "C->S" and packets[1].seq == 1
    client, server = packets[0].connection
    assert server == ("127.0.0.1", 13306) and client == ("127.0.0.1", 43674)
    assert [p.time for p in packets] == sorted(p.time for p in packets)


def _rewrite_linktype(tmp_path: Path, linktype: int, make_frame) -> Path:
    """The same capture with every Ethernet frame rewritten for another link type."""
    data = CAPTURE.read_bytes()
    out = bytearray(data[:20] + struct.pack("<I", linktype))
    pos = 24
    while pos < len(data):
        sec, usec, incl, _ = struct.unpack_from("<IIII", data, pos)
        frame = data[pos + 16 : pos + 16 + incl]
        pos += 16 + incl
        new = make_frame(frame[14:])  # the IPv4 packet
        out += struct.pack("<IIII", sec, usec, len(new), len(new)) + new
    path = tmp_path / f"link{linktype}.pcap"
    path.write_bytes(bytes(out))
    return path


@pytest.mark.parametrize(
    "linktype,make_frame",
    [
        (pcap.LINKTYPE_LINUX_SLL, lambda ip: bytes(14) + b"\x08\x00" + ip),
        (pcap.LINKTYPE_LINUX_SLL2, lambda ip: b"\x08\x00" + bytes(18) + ip),
        (pcap.LINKTYPE_NULL, lambda ip: struct.pack("<I", 2) + ip),
        (pcap.LINKTYPE_LOOP, lambda ip: struct.pack(">I", 2) + ip),
        (pcap.LINKTYPE_RAW, lambda ip: ip),
    ],
)
def test_other_link_types_give_the_same_packets(tmp_path, packets, linktype, make_frame):
    path = _rewrite_linktype(tmp_path, linktype, make_frame)
    again = mysql_packets(path)
    assert [(p.direction, p.seq, p.payload) for p in again] == [
        (p.direction, p.seq, p.payload) for p in packets
    ]


def _pcapng_block(btype: int, body: bytes) -> bytes:
    body += bytes(-len(body) % 4)
    return struct.pack("<II", btype, len(body) + 12) + body + struct.pack("<I", len(body) + 12)


@pytest.mark.parametrize("tsresol", [6, 9])
def test_pcapng_gives_the_same_packets(tmp_path, packets, tsresol):
    linktype, records = pcap.read_records(CAPTURE)
    shb = _pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    options = struct.pack("<HHB", 9, 1, tsresol) + bytes(3) + struct.pack("<HH", 0, 0)
    idb = _pcapng_block(1, struct.pack("<HHI", linktype, 0, 65535) + options)
    out = shb + idb + _pcapng_block(2, b"obsolete packet block, skipped")  # unknown: skipped
    for t, frame in records:
        ts = round(t * 10**tsresol)
        out += _pcapng_block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(frame), len(frame)) + frame)
    path = tmp_path / "capture.pcapng"
    path.write_bytes(out)
    again = mysql_packets(path)
    assert [(p.direction, p.seq, p.payload) for p in again] == [
        (p.direction, p.seq, p.payload) for p in packets
    ]
    assert again[-1].time == pytest.approx(packets[-1].time, abs=1e-6)


def _ipv4_to_ipv6(ip: bytes) -> bytes:
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack_from(">H", ip, 2)[0]
    tcp = ip[ihl:total]
    src = bytes(15) + b"\x01" if ip[12:16] == b"\x7f\x00\x00\x01" else bytes(16)
    header = struct.pack(">IHBB", 6 << 28, len(tcp), 6, 64) + src + src
    return b"\x86\xdd" + header + tcp


def test_ipv6_and_reordered_retransmitted_segments(tmp_path, packets):
    path = _rewrite_linktype(tmp_path, pcap.LINKTYPE_LINUX_SLL2, lambda ip: _ipv4_to_ipv6(ip)[:2] + bytes(18) + _ipv4_to_ipv6(ip)[2:])
    linktype, records = pcap.read_records(path)
    # Swap two data-carrying records and duplicate one: the stream must come out the same.
    data_idx = [i for i, (_, f) in enumerate(records) if len(f) > 20 + 40 + 32]
    i, j = data_idx[3], data_idx[4]
    records[i], records[j] = records[j], records[i]
    records.insert(j + 1, records[j])
    out = bytearray(CAPTURE.read_bytes()[:20] + struct.pack("<I", linktype))
    for t, frame in records:
        out += struct.pack("<IIII", int(t), round((t % 1) * 1e6) % 1000000, len(frame), len(frame)) + frame
    path.write_bytes(bytes(out))
    again = mysql_packets(path)
    assert [(p.direction, p.seq, p.payload) for p in again] == [
        (p.direction, p.seq, p.payload) for p in packets
    ]


# -- messages ---------------------------------------------------------------------------------


def test_greeting_golden(packets):
    greeting = packets[0]
    hs = Handshake.decode(greeting.payload)
    assert hs.server_version == "5.5.5-10.11.19-MariaDB-0+deb12u1-log"
    assert hs.connection_id == 23
    assert hs.charset == 8
    assert hs.status == 0x0002
    assert hs.capabilities == 0x81FFF7FE
    assert hs.mariadb_capabilities == 0x1D
    assert hs.auth_plugin_name == "mysql_native_password"
    assert len(hs.salt) == 20 and 0 not in hs.salt
    assert Capability.CLIENT_DEPRECATE_EOF in Capability(hs.capabilities)
    assert not hs.capabilities & Capability.CLIENT_MYSQL  # a MariaDB server
    assert hs.encode() == greeting.payload


def test_handshake_response_golden(packets):
    login = packets[1]
    r = HandshakeResponse.decode(login.payload)
    assert r.user == "repl"
    assert r.capabilities == 0x8038A205
    assert len(r.auth_response) == 20
    assert r.database is None  # CLIENT_CONNECT_WITH_DB not set
    assert r.auth_plugin_name == "mysql_native_password"
    assert r.max_packet_size == 1073742715
    assert r.charset == 8
    assert r.mariadb_capabilities == 0
    assert r.attributes == {
        "_os": "debian-linux-gnu",
        "_client_name": "libmysql",
        "_pid": "26541",
        "_client_version": "10.11.19",
        "_server_host": "127.0.0.1",
        "_platform": "x86_64",
    }
    assert list(r.attributes) == ["_os", "_client_name", "_pid", "_client_version", "_server_host", "_platform"]
    assert r.encode() == login.payload


def test_commands_golden(packets):
    commands = [decode_command(p.payload) for p in packets[3:] if p.direction == "C->S" and p.payload[0] != 0xEF]
    sqls = [q for q, _, _ in QUERIES] + [q for q, _, _ in SEMI_QUERIES]
    assert [c.sql for c in commands if isinstance(c, ComQuery)] == sqls
    reg = next(c for c in commands if isinstance(c, ComRegisterSlave))
    assert reg == ComRegisterSlave(
        server_id=2, host="", user="", password="", port=13307, rpl_recovery_rank=0, master_id=0
    )
    dump = commands[-1]
    assert dump == ComBinlogDump(position=462, flags=0, server_id=2, filename=BINLOG)
    for p in packets[3:]:
        if p.direction == "C->S" and p.payload[0] != 0xEF:
            assert decode_command(p.payload).encode() == p.payload


def test_result_sets_and_oks_golden(packets):
    login_caps = HandshakeResponse.decode(packets[1].payload).capabilities
    assert OK.decode(packets[2].payload) == OK(status=ServerStatus.AUTOCOMMIT)
    answers = {decode_command(c.payload).sql: r for c, r in exchanges(packets) if c.payload[0] == 3}
    for sql, columns, rows in QUERIES + SEMI_QUERIES:
        reply = [p.payload for p in answers[sql]]
        if columns is None:
            assert len(reply) == 1 and OK.decode(reply[0]) == OK(status=ServerStatus.AUTOCOMMIT)
            assert OK.decode(reply[0]).encode() == reply[0]
            continue
        defs = [ColumnDefinition.decode(p) for p in reply[1 : 1 + len(columns)]]
        assert [d.name for d in defs] == columns
        for d, raw in zip(defs, reply[1:], strict=False):
            assert d.encode() == raw
        eof = EOF.decode(reply[-1])
        rs = ResultSet(defs, rows, status=eof.status, warnings=eof.warnings)
        assert rs.payloads(login_caps) == reply
    var = ColumnDefinition.decode(answers["SHOW VARIABLES LIKE 'SERVER_ID'"][1].payload)
    assert (var.schema, var.table, var.org_name, var.type) == (
        "information_schema", "SESSION_VARIABLES", "VARIABLE_NAME", FieldType.VAR_STRING
    )


# -- the whole conversation through our state machines ----------------------------------------


def feed(conn, data: bytes, step: int | None):
    """Deliver `data` (`step` bytes at a time) and return the one event it completes."""
    step = step or len(data)
    events = []
    for i in range(0, len(data), step):
        conn.receive_data(data[i : i + step])
        while (event := conn.next_event()) is not NEED_DATA:
            events.append(event)
    assert len(events) == 1, events
    return events[0]


@pytest.mark.parametrize("step", [None, 1])
def test_server_connection_reproduces_the_master(packets, step):
    hs = Handshake.decode(packets[0].payload)
    server = ServerConnection(
        hs.connection_id, hs.server_version, hs.salt, hs.capabilities,
        charset=hs.charset, status=hs.status, mariadb_capabilities=hs.mariadb_capabilities,
    )
    assert server.greeting() == wire(packets[0])
    login = feed(server, wire(packets[1]), step)
    assert isinstance(login, HandshakeResponse) and login.user == "repl"
    assert not server.needs_auth_switch
    assert server.send(OK()) == wire(packets[2])

    expected_answers = {q: (c, r) for q, c, r in QUERIES + SEMI_QUERIES}
    flagged_seqs_after: list[int] = []
    acks: list[BinlogPosition] = []
    previous_flagged = False
    for request, reply in exchanges(packets):
        event = feed(server, wire(request), step)
        if isinstance(event, SemiSyncAck):
            acks.append(event.position)
        elif isinstance(event, ComQuery):
            columns, rows = expected_answers[event.sql]
            if columns is None:
                response = OK(status=ServerStatus.AUTOCOMMIT)
            else:
                defs = [ColumnDefinition.decode(p.payload) for p in reply[1 : 1 + len(columns)]]
                response = ResultSet(defs, rows, status=EOF.decode(reply[-1].payload).status)
            assert server.send(response) == b"".join(wire(p) for p in reply)
        elif isinstance(event, ComRegisterSlave):
            assert server.send(OK()) == b"".join(wire(p) for p in reply)
        else:
            assert event == ComBinlogDump(462, 0, 2, BINLOG)
            server.start_dump(semisync=True)
            assert server.state is ServerState.DUMPING
        for p in reply if isinstance(event, ComBinlogDump | SemiSyncAck) else []:
            header, body = p.payload[1:3], p.payload[3:]
            if previous_flagged:
                flagged_seqs_after.append(p.seq)
            previous_flagged = header == b"\xef\x01"
            assert server.send_event(body, header) == wire(p), p
    # After the dump: the rest of the event packets follow the last ack in `exchanges`.
    assert acks == [BinlogPosition(BINLOG, pos) for pos in (668, 925, 1182, 1595)]
    assert flagged_seqs_after == [1, 1, 1, 1]
    assert server.next_event() is NEED_DATA


@pytest.mark.parametrize("step", [None, 1])
def test_client_connection_reproduces_the_replica(packets, step):
    client = ClientConnection(
        "repl", "unknown-password",
        attributes=HandshakeResponse.decode(packets[1].payload).attributes,
        capabilities=HandshakeResponse.decode(packets[1].payload).capabilities,
        charset=8, max_packet=1073742715,
    )
    client.receive_data(wire(packets[0]))
    assert client.next_event() is NEED_DATA
    login = HandshakeResponse.decode(client.data_to_send()[4:])
    expected = HandshakeResponse.decode(packets[1].payload)
    # Everything but the scramble (the password is not known) matches the real replica.
    assert login == HandshakeResponse(**{**expected.__dict__, "auth_response": login.auth_response})
    client.receive_data(wire(packets[2]))
    ok = client.next_event()
    assert isinstance(ok, LoginOK) and ok.handshake.connection_id == 23

    answers = {q: (c, r) for q, c, r in QUERIES + SEMI_QUERIES}
    events: list[BinlogPacket] = []
    for request, reply in exchanges(packets):
        command = decode_command(request.payload) if request.payload[0] != 0xEF else None
        if isinstance(command, ComQuery):
            assert client.query(command.sql) == wire(request)
        elif isinstance(command, ComRegisterSlave):
            assert client.register_slave(2, port=13307) == wire(request)
        elif isinstance(command, ComBinlogDump):
            assert client.binlog_dump(462, 0, 2, BINLOG, semisync=True) == wire(request)
        else:
            # The ack for the last flagged event we received, byte for byte.
            last = events[-1].payload
            assert last[:2] == b"\xef\x01"
            log_pos = struct.unpack_from("<I", last, 2 + 13)[0]
            assert client.ack(BinlogPosition(BINLOG, log_pos)) == wire(request)
        stream = b"".join(wire(p) for p in reply)
        step_ = step or len(stream) or 1
        got = []
        for i in range(0, len(stream), step_):
            client.receive_data(stream[i : i + step_])
            while (event := client.next_event()) is not NEED_DATA:
                got.append(event)
        for event in got:
            if isinstance(event, BinlogPacket):
                events.append(event)
                continue
            columns, rows = answers[command.sql] if isinstance(command, ComQuery) else (None, None)
            if columns is None:
                assert event == OK(status=ServerStatus.AUTOCOMMIT)
            else:
                assert isinstance(event, ResultSet)
                assert [c.name for c in event.columns] == columns and list(event.rows) == rows
    assert len(events) == 21
    assert [e.payload[:2] for e in events].count(b"\xef\x01") == 4


def test_capture_stream_fed_byte_by_byte(packets):
    """The master's whole byte stream, one byte at a time, gives the same packets."""
    stream = b"".join(wire(p) for p in packets if p.direction == "S->C")
    decoder = PacketDecoder()
    got = []
    for i in range(len(stream)):
        decoder.feed(stream[i : i + 1])
        while (p := decoder.next_packet()) is not None:
            got.append((p.seq, p.payload))
    assert got == [(p.seq, p.payload) for p in packets if p.direction == "S->C"]
