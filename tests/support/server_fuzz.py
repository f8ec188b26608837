"""Fuzz a live server over TCP: mutated packets before and after login, every command byte.

    python -m tests.support.server_fuzz --packets 1000000 --seed 1

starts a `semisync master` and a `semisync slave` replicating from it (real processes, this
worktree's code), fuzzes both at once from many connections, and prints what it saw. The
integration test (tests/integration/test_server_live_fuzz.py) runs a shorter round.

What counts as a pass, for every packet sent:
- the answer is well-formed MySQL: an ERR, an OK / EOF / result set (a mutation can still be
  a valid command), COM_STATISTICS's text, an auth switch during login -- each one decoded by
  `protocol/`, which raises on anything malformed -- or the connection is closed;
- it comes within REPLY_TIMEOUT (else: a hang); ERR 1105 (our own bug) is a failure too;
- at the end both daemons still run, and their logs have no "unexpected error" traceback.

Mutations are seeded (`random.Random(seed + worker)`), so a failure replays with its seed:
- after login (most packets): a command byte from 0x00 to 0xFF in turn (COM_STMT_* included),
  a body from a small valid corpus or random bytes, then bit flips, insertions, deletions,
  truncation or garbage, with correct framing (the session goes on); or broken framing (a wrong
  sequence id, a length that lies, a packet cut short, a declared size past max_allowed_packet),
  after which the fuzzer half-closes and reads until the server closes; or a pipelined burst;
- the binary protocol, valid then mutated: each connection prepares a few statements, then
  (besides the command bytes in turn) sends COM_STMT_EXECUTE (typed parameters of every kind,
  NULLs, with and without a read-only cursor), COM_STMT_FETCH, COM_STMT_SEND_LONG_DATA,
  COM_STMT_RESET, COM_STMT_CLOSE and COM_STMT_PREPARE built valid against those statement ids,
  half of them mutated. Answers are checked to the byte: the prepare answer and its definitions,
  binary result sets (every row decoded by its column definitions), cursor fetches; a
  COM_STMT_CLOSE or COM_STMT_SEND_LONG_DATA whose fixed fields are whole must get no answer;
- before login: a valid HandshakeResponse (random user, database, attributes, auth plugin)
  mutated the same ways, then half-close.
The fuzz account has no privilege (USAGE), so no packet can shut the server down or write.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from protocol.binary import (
    COM_STMT_CLOSE,
    COM_STMT_EXECUTE,
    COM_STMT_FETCH,
    COM_STMT_PREPARE,
    COM_STMT_SEND_LONG_DATA,
    CURSOR_TYPE_READ_ONLY,
    ComStmtClose,
    ComStmtExecute,
    ComStmtFetch,
    ComStmtPrepare,
    ComStmtReset,
    ComStmtSendLongData,
    ParamType,
    PrepareOK,
    decode_binary_row,
    encode_execute_params,
)
from protocol.connection import NEED_DATA, ClientConnection, LoginOK, _ResultReader
from protocol.errors import ProtocolError
from protocol.messages import (
    EOF,
    ERR,
    OK,
    AuthSwitchRequest,
    Capability,
    ColumnDefinition,
    ComBinlogDump,
    ComRegisterSlave,
    FieldType,
    HandshakeResponse,
    ResultSet,
    ServerStatus,
    is_eof_packet,
)
from protocol.packets import decode_lenenc_int, encode_packet

REPLY_TIMEOUT = 30.0
FUZZ_USER, FUZZ_PASSWORD = "fuzz", "fuzzpw"
_MORE = int(ServerStatus.MORE_RESULTS_EXISTS)
_STATISTICS = 0x09
_QUIT = 0x01

_SQL = [b"SELECT 1", b"SELECT @@version", b"SHOW VARIABLES LIKE 'max%'", b"SELECT * FROM d.t", b"SET @a = 1",
        b"SHOW PROCESSLIST", b"SELECT 1; SELECT 2", b"BEGIN", b"COMMIT", b"SHOW MASTER STATUS",
        b"INSERT INTO d.t VALUES (1)", b"SET GLOBAL max_connections = 1", b"SELECT 'x' ", b"KILL 1",
        b"SHOW SLAVE STATUS", b"SELECT ?", b"/*!50000 SELECT 1 */", b"SHOW GRANTS", b"USE d", b""]
_BODIES: dict[int, list[bytes]] = {
    0x02: [b"d", b"mysql", b"nope", b""],
    0x03: _SQL,
    0x04: [b"t\x00", b"t\x00%"],
    0x0C: [(1).to_bytes(4, "little"), (0xFFFFFFFF).to_bytes(4, "little")],
    0x12: [ComBinlogDump(4, 0, 77, "mysql-bin.000001").encode()[1:]],
    0x14: [ComRegisterSlave(77, "h", "u", "p", 3306, 0, 0).encode()[1:]],
    0x16: _SQL,
    0x17: [bytes([1, 0, 0, 0, 0, 1, 0, 0, 0]), bytes([1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 3, 0]) + bytes(8)],
    0x18: [bytes([1, 0, 0, 0, 0, 0]) + b"data"],
    0x19: [(1).to_bytes(4, "little")],
    0x1A: [(1).to_bytes(4, "little")],
    0x1B: [b"\x00\x00", b"\x01\x00"],
    0x1C: [(1).to_bytes(4, "little") + (1).to_bytes(4, "little")],
    0x1E: [bytes(10) + b"mysql-bin.000001"],
}


@dataclass
class Stats:
    packets: int = 0
    connections: int = 0
    answers: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)

    def saw(self, kind: str) -> None:
        self.answers[kind] = self.answers.get(kind, 0) + 1

    def fail(self, what: str) -> None:
        if len(self.failures) < 50:
            self.failures.append(what)
        else:
            self.failures[-1] = f"... and more (last: {what})"


class Malformed(Exception):
    pass


# -- mutations ------------------------------------------------------------------------------------


def mutate_body(rng: random.Random, body: bytes) -> bytes:
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        if op == 0 and data:  # bit flips
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif op == 1:  # insert random bytes
            at = rng.randint(0, len(data))
            data[at:at] = rng.randbytes(rng.randint(1, 32))
        elif op == 2 and data:  # delete a range
            at = rng.randrange(len(data))
            del data[at : at + rng.randint(1, 16)]
        elif op == 3:  # truncate
            del data[rng.randint(0, len(data)) :]
        elif op == 4:  # garbage tail
            data += rng.randbytes(rng.randint(1, 64))
        elif op == 5:  # interesting bytes
            if data:
                data[rng.randrange(len(data))] = rng.choice((0x00, 0xFF, 0xFE, 0xFB, 0xFC, 0xFD, 0x7F, 0x80))
        else:  # replace with random bytes
            data = bytearray(rng.randbytes(rng.randint(0, 48)))
    return bytes(data)


def broken_framing(rng: random.Random, payload: bytes, seq: int) -> bytes:
    """One packet whose framing breaks the rules (after it the fuzzer half-closes)."""
    op = rng.randrange(5)
    if op == 0:  # wrong sequence id
        return encode_packet(payload, (seq + rng.randint(1, 255)) & 0xFF)[0]
    if op == 1:  # a length longer than the bytes that follow
        n = min(len(payload) + rng.randint(1, 1 << 16), 0xFFFFFE)
        return (n | seq << 24).to_bytes(4, "little") + payload
    if op == 2:  # a length shorter than the payload: the rest reads as the next packet
        n = rng.randint(0, max(0, len(payload) - 1))
        return (n | seq << 24).to_bytes(4, "little") + payload
    if op == 3:  # cut short, header included
        wire = encode_packet(payload, seq)[0]
        return wire[: rng.randint(0, len(wire) - 1)]
    # a size past any limit, or a 16 MiB chunk that announces a continuation
    n = rng.choice((0xFFFFFF, 0xFFFFFE, 1 << 23))
    return (n | seq << 24).to_bytes(4, "little") + rng.randbytes(rng.randint(0, 4096))


def command_packet(rng: random.Random, byte: int) -> bytes:
    corpus = _BODIES.get(byte)
    body = rng.choice(corpus) if corpus and rng.random() < 0.8 else rng.randbytes(rng.randint(0, 24))
    if rng.random() < 0.85:
        body = mutate_body(rng, body)
    return bytes((byte,)) + body


# -- the binary protocol: valid commands against prepared ids, then mutated ------------------------

_PS_SQL = [b"SELECT ?", b"SELECT ? + 1, CONCAT(?, 'x'), ?", b"SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3",
           b"SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?", b"SET @a = ?", b"INSERT INTO d.t VALUES (?)", b"DO ?"]
_PARAM_TYPES = [FieldType.TINY, FieldType.SHORT, FieldType.LONG, FieldType.LONGLONG, FieldType.INT24, FieldType.YEAR,
                FieldType.FLOAT, FieldType.DOUBLE, FieldType.NEWDECIMAL, FieldType.VAR_STRING, FieldType.STRING,
                FieldType.BLOB, FieldType.DATE, FieldType.DATETIME, FieldType.TIMESTAMP, FieldType.TIME, FieldType.NULL]
_INT_BITS: dict[int, int] = {FieldType.TINY: 8, FieldType.SHORT: 16, FieldType.YEAR: 16, FieldType.INT24: 32, FieldType.LONG: 32,
             FieldType.LONGLONG: 64}


def _param_value(rng: random.Random, ptype: ParamType) -> object:
    import datetime
    import decimal

    t = ptype.type
    if t in _INT_BITS:
        bits = _INT_BITS[t]
        return rng.randrange(1 << bits) if ptype.unsigned else rng.randrange(-(1 << bits - 1), 1 << bits - 1)
    if t in (FieldType.FLOAT, FieldType.DOUBLE):
        return rng.choice((0.0, -1.5, 1e300 if t == FieldType.DOUBLE else 3.25, rng.uniform(-1e6, 1e6)))
    if t == FieldType.NEWDECIMAL:
        return decimal.Decimal(rng.choice(("0", "-12.30", "99999999999999999999.99", "1e-5")))
    if t in (FieldType.VAR_STRING, FieldType.STRING, FieldType.BLOB):
        return rng.randbytes(rng.randint(0, 40))
    if t == FieldType.DATE:
        return datetime.date(rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28))
    if t in (FieldType.DATETIME, FieldType.TIMESTAMP):
        return datetime.datetime(rng.randint(1, 9999), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                                 rng.randint(0, 59), rng.randint(0, 59), rng.choice((0, rng.randrange(10**6))))
    if t == FieldType.TIME:
        return rng.choice((-1, 1)) * datetime.timedelta(days=rng.randint(0, 34), seconds=rng.randrange(86400),
                                                        microseconds=rng.choice((0, rng.randrange(10**6))))
    return None


@dataclass
class Prepared:
    """One connection's statement ids (from the server's prepare answers): parameter counts, and
    the column definitions of each open cursor (to decode what COM_STMT_FETCH returns)."""

    params: dict[int, int] = field(default_factory=dict)
    cursors: dict[int, list[ColumnDefinition]] = field(default_factory=dict)


def stmt_command(rng: random.Random, prepared: Prepared) -> bytes:
    """A valid COM_STMT_* command against one of the connection's statement ids (or a new prepare)."""
    if not prepared.params or rng.random() < 0.1:
        return ComStmtPrepare(rng.choice(_PS_SQL)).encode()
    if prepared.cursors and rng.random() < 0.5:  # an open cursor: read it on
        return ComStmtFetch(rng.choice(list(prepared.cursors)), rng.choice((0, 1, 2, 100))).encode()
    stmt_id = rng.choice(list(prepared.params))
    count = prepared.params[stmt_id]
    roll = rng.random()
    if roll < 0.55:
        types = [ParamType(t, rng.random() < 0.3 and t in _INT_BITS) for t in rng.choices(_PARAM_TYPES, k=count)]
        values = [None if rng.random() < 0.15 else _param_value(rng, t) for t in types]
        flags = CURSOR_TYPE_READ_ONLY if rng.random() < 0.3 else 0
        return ComStmtExecute(stmt_id, flags, 1, encode_execute_params(types, values)).encode()
    if roll < 0.7:
        return ComStmtFetch(stmt_id, rng.choice((0, 1, 2, 100))).encode()
    if roll < 0.85:
        return ComStmtSendLongData(stmt_id, rng.randint(0, count), rng.randbytes(rng.randint(0, 64))).encode()
    if roll < 0.95:
        return ComStmtReset(stmt_id).encode()
    return ComStmtClose(stmt_id).encode()


def answered(command: bytes) -> bool:
    """Whether the server answers this command packet: a COM_STMT_CLOSE or COM_STMT_SEND_LONG_DATA
    whose fixed fields are whole gets no answer (mysqld's rule); everything else gets one."""
    if command[:1] == bytes((COM_STMT_CLOSE,)):
        return len(command) < 5
    if command[:1] == bytes((COM_STMT_SEND_LONG_DATA,)):
        return len(command) < 7
    return True


_LOGIN_CAPS = int(Capability.CLIENT_PROTOCOL_41 | Capability.CLIENT_SECURE_CONNECTION | Capability.CLIENT_LONG_PASSWORD
                  | Capability.CLIENT_PLUGIN_AUTH | Capability.CLIENT_CONNECT_ATTRS | Capability.CLIENT_CONNECT_WITH_DB
                  | Capability.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)


def login_payload(rng: random.Random, salt: bytes) -> bytes:
    from protocol.auth import scramble_native_password

    caps = _LOGIN_CAPS
    caps ^= rng.getrandbits(32) if rng.random() < 0.2 else 0
    login = HandshakeResponse(
        capabilities=caps & 0xFFFFFFFF,
        user=rng.choice((FUZZ_USER, "root", "nobody", "x" * 300, "")),
        auth_response=scramble_native_password(FUZZ_PASSWORD, salt) if rng.random() < 0.7 else rng.randbytes(20),
        database=rng.choice((None, "d", "nope")) if caps & Capability.CLIENT_CONNECT_WITH_DB else None,
        auth_plugin_name=rng.choice(("mysql_native_password", "caching_sha2_password", "dialog")),
        attributes={"_client_name": "fuzz", "k": "v" * rng.randint(0, 300)} if caps & Capability.CLIENT_CONNECT_ATTRS else None,
    )
    return login.encode()


# -- reading answers ------------------------------------------------------------------------------


async def read_packet(reader: asyncio.StreamReader) -> tuple[int, bytes] | None:
    try:
        head = await asyncio.wait_for(reader.readexactly(4), REPLY_TIMEOUT)
        n = int.from_bytes(head[:3], "little")
        body = await asyncio.wait_for(reader.readexactly(n), REPLY_TIMEOUT)
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    except TimeoutError:
        raise Malformed(f"no answer within {REPLY_TIMEOUT}s (hang)") from None
    if n == 0xFFFFFF:
        raise Malformed("a 16 MiB answer packet")
    return head[3], body


def check_err(payload: bytes) -> str:
    err = ERR.decode(payload)
    if err.code == 1105:
        raise Malformed(f"ERR 1105 (a bug of ours): {err.message}")
    return f"ERR {err.code}"


async def read_answer(reader: asyncio.StreamReader, caps: int, command: int | None,
                      prepared: Prepared | None = None, sent: bytes = b"") -> str:
    """One command's whole answer; its kind ('closed' when the server closed instead).
    `command` None: not known (after a packet that lied about its length). `sent` is the
    command packet (for the statement id of a COM_STMT_EXECUTE / FETCH)."""
    if command in (COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_FETCH):
        return await _read_binary_answer(reader, caps, command, prepared or Prepared(), sent)
    kind = ""
    seq = 1  # a well-framed command carried sequence id 0: its answer counts on from 1

    def in_sequence(packet: tuple[int, bytes]) -> bytes:
        nonlocal seq
        if command is not None and packet[0] != seq:
            raise Malformed(f"answer packet with sequence id {packet[0]}, expected {seq}")
        seq = (seq + 1) & 0xFF
        return packet[1]

    while True:
        packet = await read_packet(reader)
        if packet is None:
            return kind or "closed"
        payload = in_sequence(packet)
        try:
            head = payload[:1]
            if head == b"\xff":
                return check_err(payload)
            if command is None and _looks_prepared(payload):
                # a COM_STMT_PREPARE the server read out of a packet that lied about its length:
                # the prepare answer's first packet starts with 0x00 as an OK does
                await _read_prepare_blocks(PrepareOK.decode(payload), caps, lambda: _next(reader, in_sequence))
                return "prepared"
            if head == b"\x00":
                status = OK.decode(payload, caps).status
                kind = "OK"
            elif head == b"\xfe" and len(payload) < 9:
                EOF.decode(payload)
                return "EOF"
            elif command in (_STATISTICS, None) and payload.startswith(b"Uptime: "):
                return "statistics"
            else:
                result = _ResultReader(payload, caps)
                done = None
                while done is None:
                    packet = await read_packet(reader)
                    if packet is None:
                        raise Malformed("closed inside a result set")
                    done = result.feed(in_sequence(packet))
                if isinstance(done, ERR):
                    return check_err(packet[1])
                assert isinstance(done, ResultSet)
                status, kind = done.status, "result set"
        except ProtocolError as exc:
            raise Malformed(f"answer {payload[:32].hex()}: {exc.message}") from None
        if not status & _MORE:
            return kind


def _looks_prepared(payload: bytes) -> bool:
    """A COM_STMT_PREPARE_OK with definitions to follow (12 bytes: 0x00, id, columns, params, a
    zero filler, warnings), not an OK packet: an OK that long would carry a zero byte inside
    its info text, which the server never sends."""
    return len(payload) == 12 and payload[0] == 0 and payload[9] == 0 and payload[5:9] != b"\x00" * 4


async def _next(reader: asyncio.StreamReader, in_sequence) -> bytes:
    packet = await read_packet(reader)
    if packet is None:
        raise Malformed("closed inside an answer")
    return in_sequence(packet)


async def _read_prepare_blocks(answer: PrepareOK, caps: int, next_payload) -> None:
    """The parameter and column definition blocks after a COM_STMT_PREPARE_OK, each decoded."""
    for block in (answer.num_params, len(answer.columns)):
        for _ in range(block):
            ColumnDefinition.decode(await next_payload())
        if block and not caps & Capability.CLIENT_DEPRECATE_EOF:
            EOF.decode(await next_payload())


async def _read_binary_answer(reader: asyncio.StreamReader, caps: int, command: int, prepared: Prepared,
                              sent: bytes) -> str:
    """The answer to COM_STMT_PREPARE / EXECUTE / FETCH: ERR, OK, the prepare answer with its
    definition blocks, a binary result set (rows decoded by their column definitions) or a
    cursor's rows; each packet in sequence and decoded by `protocol/`."""
    deprecate_eof = bool(caps & Capability.CLIENT_DEPRECATE_EOF)
    seq = 1
    stmt_id = int.from_bytes(sent[1:5], "little") if len(sent) >= 5 else -1

    async def next_payload() -> bytes:
        nonlocal seq
        packet = await read_packet(reader)
        if packet is None:
            raise Malformed("closed inside an answer")
        if packet[0] != seq:
            raise Malformed(f"answer packet with sequence id {packet[0]}, expected {seq}")
        seq = (seq + 1) & 0xFF
        return packet[1]

    def end_of_block(payload: bytes) -> int:
        """The status of the packet closing a block (EOF, or OK-0xFE under DEPRECATE_EOF)."""
        return OK.decode(payload, caps).status if deprecate_eof else EOF.decode(payload).status

    packet = await read_packet(reader)
    if packet is None:
        return "closed"
    if packet[0] != 1:
        raise Malformed(f"answer packet with sequence id {packet[0]}, expected 1")
    seq = 2
    first = packet[1]
    try:
        if first[:1] == b"\xff":
            return check_err(first)
        if command == COM_STMT_PREPARE:
            answer = PrepareOK.decode(first)
            await _read_prepare_blocks(answer, caps, next_payload)
            prepared.params[answer.statement_id] = answer.num_params
            return "prepared"
        if command == COM_STMT_FETCH:
            columns = prepared.cursors.get(stmt_id)
            payload = first
            while not is_eof_packet(payload, deprecate_eof):
                if payload[:1] == b"\xff":
                    return check_err(payload)
                if columns is None:
                    raise Malformed(f"rows fetched from statement {stmt_id}, which has no cursor open")
                decode_binary_row(payload, columns)
                payload = await next_payload()
            status = end_of_block(payload)
            if not status & ServerStatus.CURSOR_EXISTS:
                raise Malformed("a fetch answer without SERVER_STATUS_CURSOR_EXISTS")
            if status & ServerStatus.LAST_ROW_SENT:
                prepared.cursors.pop(stmt_id, None)
            return "fetched"
        if first[:1] == b"\x00":
            OK.decode(first, caps)
            return "OK"
        count, end = decode_lenenc_int(first)
        if not count or end != len(first):
            raise Malformed(f"bad column count packet {first[:9].hex()}")
        columns = [ColumnDefinition.decode(await next_payload()) for _ in range(count)]
        cursor = bool(len(sent) > 5 and sent[5] & CURSOR_TYPE_READ_ONLY)
        if cursor or not deprecate_eof:
            status = end_of_block(await next_payload())
            if cursor:
                if not status & ServerStatus.CURSOR_EXISTS:
                    raise Malformed("a cursor opened without SERVER_STATUS_CURSOR_EXISTS")
                prepared.cursors[stmt_id] = columns
                return "cursor"
        while True:
            payload = await next_payload()
            if is_eof_packet(payload, deprecate_eof):
                end_of_block(payload)
                return "binary result set"
            if payload[:1] == b"\xff":
                return check_err(payload)
            decode_binary_row(payload, columns)
    except ProtocolError as exc:
        raise Malformed(f"answer to command {command:#x}: {exc.message}") from None


async def drain_until_closed(reader: asyncio.StreamReader, stats: Stats, caps: int, login: bool) -> None:
    """After a half-close: every answer until the server closes must be well-formed (what
    follows a packet that lied about its length reads as more packets: any answer may come)."""
    while login:
        packet = await read_packet(reader)
        if packet is None:
            stats.saw("closed")
            return
        payload = packet[1]
        try:
            if payload[:1] == b"\xff":
                stats.saw(check_err(payload))
            elif payload[:1] == b"\x00":
                OK.decode(payload, caps)
                stats.saw("OK")
                login = False  # a login that survived its mutation: commands may follow
            elif payload[:1] == b"\xfe":
                AuthSwitchRequest.decode(payload)
                stats.saw("auth switch")
            else:
                raise Malformed(f"unexpected packet {payload[:32].hex()} during login")
        except ProtocolError as exc:
            raise Malformed(f"packet {payload[:32].hex()}: {exc.message}") from None
    while True:
        kind = await read_answer(reader, caps, None)
        stats.saw(kind)
        if kind == "closed":
            return


# -- one connection -------------------------------------------------------------------------------


async def _open(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, bytes]:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), REPLY_TIMEOUT)
    greeting = await read_packet(reader)
    if greeting is None or greeting[1][:1] != b"\x0a":
        writer.close()
        raise Malformed(f"bad greeting {greeting!r:.80}")
    return reader, writer, greeting[1]


async def _login(reader, writer, greeting: bytes) -> ClientConnection:
    conn = ClientConnection(FUZZ_USER, FUZZ_PASSWORD)
    conn.receive_data(encode_packet(greeting, 0)[0])
    while True:
        event = conn.next_event()
        out = conn.data_to_send()
        if out:
            writer.write(out)
        if isinstance(event, LoginOK):
            return conn
        if event is not NEED_DATA:
            raise Malformed(f"login failed: {event!r:.120}")
        data = await asyncio.wait_for(reader.read(65536), REPLY_TIMEOUT)
        if not data:
            raise Malformed("closed during a valid login")
        conn.receive_data(data)


def _half_close(writer: asyncio.StreamWriter) -> None:
    try:
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass


async def pre_login_round(rng: random.Random, port: int, stats: Stats, sent: list[int]) -> None:
    reader, writer, greeting = await _open(port)
    try:
        from protocol.messages import Handshake

        salt = Handshake.decode(greeting).salt
        payload = login_payload(rng, salt)
        if rng.random() < 0.6:
            wire = encode_packet(mutate_body(rng, payload), 1)[0]
        else:
            wire = broken_framing(rng, payload, 1)
        writer.write(wire)
        sent[0] += 1
        _half_close(writer)
        await drain_until_closed(reader, stats, _LOGIN_CAPS, login=True)
    finally:
        writer.close()


async def post_login_round(rng: random.Random, port: int, stats: Stats, sent: list[int], budget: int,
                           command_counter: list[int]) -> None:
    reader, writer, greeting = await _open(port)
    try:
        conn = await _login(reader, writer, greeting)
        caps = conn.capabilities
        prepared = Prepared()
        for sql in rng.sample(_PS_SQL, 3):  # statement ids to build valid binary commands on
            writer.write(encode_packet(ComStmtPrepare(sql).encode(), 0)[0])
            stats.saw(await read_answer(reader, caps, COM_STMT_PREPARE, prepared))
        while sent[0] < budget:
            byte = command_counter[0] & 0xFF
            command_counter[0] += 1
            roll = rng.random()
            if roll < 0.12:  # broken framing: the connection ends here
                writer.write(broken_framing(rng, command_packet(rng, byte), 0))
                sent[0] += 1
                _half_close(writer)
                await drain_until_closed(reader, stats, caps, login=False)
                return
            burst = rng.randint(2, 8) if roll < 0.2 else 1
            commands = [command_packet(rng, byte if i == 0 else rng.randrange(256)) for i in range(burst)]
            if rng.random() < 0.15:  # the binary protocol, valid then (half the time) mutated
                command = stmt_command(rng, prepared)
                if rng.random() < 0.5:
                    command = command[:1] + mutate_body(rng, command[1:])
                commands[0] = command
            writer.write(b"".join(encode_packet(c, 0)[0] for c in commands))
            sent[0] += burst
            for command in commands:
                if command == bytes((_QUIT,)):
                    stats.saw("quit")
                    return
                if not answered(command):
                    stats.saw("no answer (COM_STMT_CLOSE / SEND_LONG_DATA)")
                    continue
                kind = await read_answer(reader, caps, command[0], prepared, command)
                stats.saw(kind)
                if kind == "closed":
                    return
    finally:
        writer.close()


async def worker(port: int, seed: int, stats: Stats, quota: list[int], pre_login_share: float) -> None:
    rng = random.Random(seed)
    counter = [rng.randrange(256)]
    while quota[0] > 0:
        budget = min(quota[0], rng.randint(20, 200))
        sent = [0]
        stats.connections += 1
        try:
            if rng.random() < pre_login_share:
                await pre_login_round(rng, port, stats, sent)
            else:
                await post_login_round(rng, port, stats, sent, budget, counter)
        except Malformed as exc:
            stats.fail(f"port {port} seed {seed}: {exc}")
        except (ConnectionError, OSError) as exc:
            stats.saw(f"reset ({type(exc).__name__})")
        stats.packets += sent[0]
        quota[0] -= max(1, sent[0])


async def fuzz(ports: list[int], packets: int, seed: int, workers: int = 32, pre_login_share: float = 0.2) -> Stats:
    """Send about `packets` mutated packets spread over `ports` from `workers` connections."""
    stats = Stats()
    quota = [packets]
    await asyncio.gather(*(worker(ports[i % len(ports)], seed * 1000 + i, stats, quota, pre_login_share)
                           for i in range(workers)))
    return stats


# -- the daemons ----------------------------------------------------------------------------------


def daemon_errors(daemon) -> list[str]:
    """Tracebacks of unexpected errors in a daemon's log."""
    text = daemon.log.read_text(errors="replace") if daemon.log.exists() else ""
    return [m.group(0)[:300] for m in re.finditer(r"unexpected error.*", text)]


def start_pair(tmp: Path):
    """A master and a slave replicating from it, with the fuzz account on both."""
    from tests.support.daemons import Daemon, wait_for
    from tests.support.master import make_repl_user, start_master

    master = start_master(tmp)
    make_repl_user(master)
    master.query("CREATE DATABASE d")
    master.query("CREATE TABLE d.t (id INT)")
    master.query(f"CREATE USER '{FUZZ_USER}'@'%' IDENTIFIED BY '{FUZZ_PASSWORD}'")
    slave = Daemon("slave", tmp / "slave", ["--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}",
                                            "--master-user=repl", "--master-password=replpw",
                                            "--master-connect-retry=1"]).start()
    wait_for(lambda: _has_user(slave), 60, message="the fuzz user on the slave")
    return master, slave


def _has_user(daemon) -> bool:
    import pymysql

    try:
        pymysql.connect(host="127.0.0.1", port=daemon.port, user=FUZZ_USER, password=FUZZ_PASSWORD).close()
        return True
    except pymysql.MySQLError:
        return False


def main(argv: list[str] | None = None) -> int:
    from tests.support.hostile import LegitClient, RssSampler

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--packets", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=32)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="server-fuzz-") as tmp:
        master, slave = start_pair(Path(tmp))
        try:
            started = time.monotonic()
            with (LegitClient(master.port) as legit_m, LegitClient(slave.port) as legit_s,
                  RssSampler(master.proc.pid) as rss_m, RssSampler(slave.proc.pid) as rss_s):
                stats = asyncio.run(fuzz([master.port, slave.port], args.packets, args.seed, args.workers))
            elapsed = time.monotonic() - started
            alive = master.proc.poll() is None and slave.proc.poll() is None
            bugs = daemon_errors(master) + daemon_errors(slave)
            print(f"packets {stats.packets} over {stats.connections} connections in {elapsed:.0f} s "
                  f"({stats.packets / elapsed:.0f}/s), seed {args.seed}, {args.workers} workers")
            print("answers:", dict(sorted(stats.answers.items(), key=lambda kv: -kv[1])))
            print(f"RSS master {rss_m.start >> 20} -> peak {rss_m.peak >> 20} MiB, "
                  f"slave {rss_s.start >> 20} -> peak {rss_s.peak >> 20} MiB")
            print(f"legitimate client rounds: master {legit_m.rounds}, slave {legit_s.rounds}")
            print(f"daemons alive: {alive}; unexpected errors in logs: {len(bugs)}; failures: {len(stats.failures)}")
            for line in stats.failures + bugs:
                print("  ", line)
            return 0 if alive and not bugs and not stats.failures else 1
        finally:
            master.stop()
            slave.stop()


if __name__ == "__main__":
    sys.exit(main())
