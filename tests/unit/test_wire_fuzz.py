"""Seeded fuzzing of every protocol entry point: only RemoteProtocolError may escape.

Golden packets (the MariaDB capture plus our own encodings) are mutated (bit flips, random
bytes, insertions, deletions, truncations, splices, interesting length bytes) and random data is
added; each input goes to a message decoder, `decode_command`, or a ServerConnection /
ClientConnection in one of its live states, delivered in random pieces.
"""

from __future__ import annotations

import pickle
import random
import time
from collections.abc import Callable
from pathlib import Path

from protocol.auth import make_salt
from protocol.connection import (
    NEED_DATA,
    ClientConnection,
    ClientState,
    ConnectionClosed,
    ServerConnection,
    ServerState,
)
from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.messages import (
    EOF,
    ERR,
    OK,
    AuthSwitchRequest,
    ColumnDefinition,
    Handshake,
    HandshakeResponse,
    ResultSet,
    column,
    decode_command,
    decode_text_row,
)
from protocol.packets import PacketDecoder, decode_lenenc_bytes, encode_packet
from protocol.position import BinlogPosition
from protocol.semisync_wire import encode_ack
from tests.support.pcap import mysql_packets

SEED = 0x5E4157
INPUTS = 100_000
CAPTURE = Path(__file__).resolve().parents[3] / "shared" / "interop" / "mariadb-semisync-replica-connect.pcap"
SALT = make_salt(bytes(range(20)))
INTERESTING = [0x00, 0x01, 0x7F, 0x80, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF]


def corpus() -> list[bytes]:
    out = [p.payload for p in mysql_packets(CAPTURE)]
    out += [
        OK(1, 2, 3, 4, "info").encode(),
        ERR(1146, "42S02", "no table").encode(),
        EOF().encode(),
        AuthSwitchRequest("mysql_native_password", SALT + b"\x00").encode(),
        *ResultSet([column("a"), column("b")], [("x", None), ("y" * 300, "z")]).payloads(),
        encode_ack(BinlogPosition("mysql-bin.000001", 4)),
        b"\x0c\x01\x00\x00\x00",
        b"\x1e" + bytes(30),
    ]
    return out


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(8)
        if op == 0 and buf:
            i = rng.randrange(len(buf))
            buf[i] ^= 1 << rng.randrange(8)
        elif op == 1 and buf:
            buf[rng.randrange(len(buf))] = rng.choice(INTERESTING) if rng.random() < 0.5 else rng.randrange(256)
        elif op == 2:
            i = rng.randrange(len(buf) + 1)
            buf[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 3 and buf:
            i = rng.randrange(len(buf))
            del buf[i : i + rng.randint(1, 8)]
        elif op == 4 and buf:
            del buf[rng.randrange(len(buf)) :]
        elif op == 5:
            other = rng.choice(pool)
            i = rng.randrange(len(buf) + 1)
            buf[i:] = other[rng.randrange(len(other) + 1) :]
        elif op == 6 and buf:
            i = rng.randrange(len(buf))
            buf[i : i + 1] = bytes(buf[i : i + rng.randint(1, 16)]) * 2
        else:
            buf += rng.randbytes(rng.randint(1, 4))
    return bytes(buf)


def _text_row(payload: bytes) -> object:
    return decode_text_row(payload, 1 + len(payload) % 4)


DECODERS: list[Callable[[bytes], object]] = [
    decode_command,
    Handshake.decode,
    HandshakeResponse.decode,
    AuthSwitchRequest.decode,
    OK.decode,
    ERR.decode,
    EOF.decode,
    ColumnDefinition.decode,
    _text_row,
    lambda p: decode_lenenc_bytes(p, 0),
]


# -- connections in each live state -----------------------------------------------------------


def server_after_greeting() -> tuple[ServerConnection, int]:
    server = ServerConnection(1, "5.7.44", SALT)
    server.greeting()
    return server, 1


def _logged_in() -> tuple[ServerConnection, ClientConnection]:
    server = ServerConnection(1, "5.7.44", SALT)
    client = ClientConnection("repl", "pw")
    client.receive_data(server.greeting())
    client.next_event()
    server.receive_data(client.data_to_send())
    server.next_event()
    client.receive_data(server.send(OK()))
    client.next_event()
    return server, client


def server_in_command() -> tuple[ServerConnection, int]:
    return _logged_in()[0], 0


def server_dumping() -> tuple[ServerConnection, int]:
    server, client = _logged_in()
    server.receive_data(client.binlog_dump(4, 0, 2, "mysql-bin.000001", semisync=True))
    server.next_event()
    server.start_dump(semisync=True)
    server.send_event(b"E" * 19, b"\xef\x01")
    return server, 0


def client_fresh() -> tuple[ClientConnection, int]:
    return ClientConnection("repl", "pw", attributes={"a": "b"}), 0


def client_authenticating() -> tuple[ClientConnection, int]:
    client = ClientConnection("repl", "pw")
    client.receive_data(ServerConnection(1, "5.7", SALT).greeting())
    client.next_event()
    client.data_to_send()
    return client, 2


def client_awaiting_response() -> tuple[ClientConnection, int]:
    _, client = _logged_in()
    client.query("SELECT 1")
    return client, 1


def client_dumping() -> tuple[ClientConnection, int]:
    _, client = _logged_in()
    client.binlog_dump(4, 0, 2, "mysql-bin.000001", semisync=True)
    return client, 1


CONNECTIONS = [
    server_after_greeting,
    server_in_command,
    server_dumping,
    client_fresh,
    client_authenticating,
    client_awaiting_response,
    client_dumping,
]


_PROTOTYPES: dict[Callable, tuple[bytes, int]] = {}


def fresh(make) -> tuple[ServerConnection | ClientConnection, int]:
    """A new connection in `make`'s state: built once, then copied (a login costs ~1 ms)."""
    if make not in _PROTOTYPES:
        conn, seq = make()
        _PROTOTYPES[make] = pickle.dumps(conn), seq
    blob, seq = _PROTOTYPES[make]
    return pickle.loads(blob), seq


def drive(rng: random.Random, make, payloads: list[bytes]) -> None:
    conn, seq = fresh(make)
    if rng.random() < 0.8:
        stream = b""
        for p in payloads:
            wire, seq = encode_packet(p, seq if rng.random() < 0.9 else rng.randrange(256))
            stream += wire
    else:
        stream = b"".join(payloads)
    if rng.random() < 0.1:
        stream = mutate(rng, stream, payloads)  # break the framing too
    pos = 0
    while pos < len(stream):
        step = rng.choice((1, 2, 7, 64, len(stream)))
        conn.receive_data(stream[pos : pos + step])
        pos += step
        if not pump(conn):
            return
    if rng.random() < 0.3:
        conn.receive_data(b"")
        pump(conn)


def pump(conn) -> bool:
    """Take events and answer them the way a shell would, so that later bytes reach deeper
    states; False once the connection is closed."""
    for _ in range(16):
        try:
            event = conn.next_event()
        except RemoteProtocolError as exc:
            if exc.fatal or not isinstance(conn, ServerConnection):
                raise
            conn.send(ERR.from_exception(exc))  # a malformed command: answer and go on
            continue
        if isinstance(event, ConnectionClosed):
            return False
        if isinstance(conn, ServerConnection) and conn.state in (ServerState.AUTHENTICATING, ServerState.RESPONDING):
            conn.send(OK())
        elif isinstance(conn, ClientConnection) and conn.state is ClientState.READY:
            conn.query("SELECT 1")
        if event is NEED_DATA:
            return True
    return True


def test_only_protocol_errors_escape():
    rng = random.Random(SEED)
    pool = corpus()
    started = time.monotonic()
    counts = {"decoders": 0, "connections": 0, "errors": 0}
    for n in range(INPUTS):
        base = rng.choice(pool) if rng.random() < 0.9 else rng.randbytes(rng.randint(0, 64))
        data = mutate(rng, base, pool)
        try:
            if n % 2 == 0:
                counts["decoders"] += 1
                rng.choice(DECODERS)(data)
            else:
                extra = [mutate(rng, rng.choice(pool), pool) for _ in range(rng.randint(0, 2))]
                counts["connections"] += 1
                drive(rng, rng.choice(CONNECTIONS), [data, *extra])
        except RemoteProtocolError:
            counts["errors"] += 1
        except Exception as exc:  # LocalProtocolError too: bytes from a peer are never our misuse  # pragma: no cover - a failure report
            raise AssertionError(f"input #{n} (seed {SEED:#x}) {data[:80].hex()} raised {exc!r}") from exc
    elapsed = time.monotonic() - started
    assert counts["decoders"] + counts["connections"] == INPUTS
    # Mutations must reach the parsers, not just bounce off: both outcomes happen often.
    assert INPUTS * 0.1 < counts["errors"] < INPUTS * 0.95, counts
    print(f"fuzz: {counts} in {elapsed:.1f}s")


def test_decoder_fuzz_with_random_chunk_boundaries():
    """Random framing garbage into the bare PacketDecoder: packets or RemoteProtocolError."""
    rng = random.Random(SEED + 1)
    for _ in range(2000):
        decoder = PacketDecoder(max_packet=rng.choice((16, 1 << 10, 1 << 24)))
        data = rng.randbytes(rng.randint(0, 200))
        try:
            for i in range(0, len(data), 5):
                decoder.feed(data[i : i + 5])
                while decoder.next_packet() is not None:
                    pass
        except ProtocolError:
            pass
