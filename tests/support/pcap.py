"""Read MySQL packets out of a libpcap capture, in pure Python (golden-bytes tests).

`mysql_packets(path)` returns every MySQL packet of every TCP connection in the capture, in
capture order: direction ("C->S" / "S->C"), sequence id, payload (continuation chunks joined)
and the capture time of the segment that carried the packet's first byte.

Supported: classic pcap (both byte orders, micro- and nanosecond timestamps) and pcapng (one
link type for all interfaces); link types Ethernet (with 802.1Q tags), Linux cooked SLL and
SLL2, BSD loopback/null (both byte orders) and raw IP; IPv4 (unfragmented) and IPv6 (no extension headers); TCP. Each direction's
byte stream is rebuilt in sequence-number order (retransmitted and overlapping bytes once).
The client is the side that sent the SYN; without a handshake in the capture, the side whose
port is `server_port` (or the lower port) is the server.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

from protocol.packets import PacketDecoder

LINKTYPE_NULL = 0
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
LINKTYPE_LOOP = 108
LINKTYPE_LINUX_SLL = 113
LINKTYPE_LINUX_SLL2 = 276
LINKTYPE_IPV4 = 228
LINKTYPE_IPV6 = 229

_MAGICS = {
    b"\xd4\xc3\xb2\xa1": ("<", 1e-6),
    b"\xa1\xb2\xc3\xd4": (">", 1e-6),
    b"\x4d\x3c\xb2\xa1": ("<", 1e-9),
    b"\xa1\xb2\x3c\x4d": (">", 1e-9),
}
ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
ETHERTYPE_VLAN = (0x8100, 0x88A8)
TCP_SYN = 0x02
TCP_ACK = 0x10


class PcapError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class TcpSegment:
    time: float
    src: tuple[str, int]
    dst: tuple[str, int]
    seq: int
    flags: int
    payload: bytes


@dataclass(frozen=True, slots=True)
class CapturedPacket:
    direction: str  # "C->S" or "S->C"
    seq: int
    payload: bytes
    time: float
    connection: tuple[tuple[str, int], tuple[str, int]] = (("", 0), ("", 0))  # (client, server)


def read_records(path: str | Path) -> tuple[int, list[tuple[float, bytes]]]:
    """(link type, [(timestamp, frame bytes)]) of a pcap or pcapng file."""
    data = Path(path).read_bytes()
    if data[:4] == PCAPNG_SHB:
        return _read_pcapng(data)
    if len(data) < 24:
        raise PcapError("too short for a pcap global header")
    magic = data[:4]
    if magic not in _MAGICS:
        raise PcapError(f"neither pcap nor pcapng (magic {magic.hex()})")
    endian, resolution = _MAGICS[magic]
    linktype = struct.unpack_from(endian + "I", data, 20)[0] & 0x0FFFFFFF
    records = []
    pos = 24
    rec = struct.Struct(endian + "IIII")
    while pos + 16 <= len(data):
        sec, frac, incl, _orig = rec.unpack_from(data, pos)
        pos += 16
        if pos + incl > len(data):
            raise PcapError("truncated pcap record")
        records.append((sec + frac * resolution, data[pos : pos + incl]))
        pos += incl
    return linktype, records


PCAPNG_SHB = b"\x0a\x0d\x0d\x0a"
_PCAPNG_IDB, _PCAPNG_SPB, _PCAPNG_EPB = 1, 3, 6
_IF_TSRESOL = 9


def _read_pcapng(data: bytes) -> tuple[int, list[tuple[float, bytes]]]:
    """pcapng: section headers, interface descriptions (link type, timestamp resolution),
    enhanced and simple packet blocks; every interface must have the same link type."""
    endian = "<"
    interfaces: list[tuple[int, float]] = []  # (link type, seconds per timestamp unit)
    records: list[tuple[float, bytes]] = []
    pos = 0
    while pos + 12 <= len(data):
        if data[pos : pos + 4] == PCAPNG_SHB:
            endian = "<" if data[pos + 8 : pos + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            interfaces = []
        btype, blen = struct.unpack_from(endian + "II", data, pos)
        if blen < 12 or pos + blen > len(data):
            raise PcapError(f"bad pcapng block length {blen} at {pos}")
        body = data[pos + 8 : pos + blen - 4]
        if btype == _PCAPNG_IDB:
            linktype = struct.unpack_from(endian + "H", body, 0)[0]
            resolution = 1e-6
            opt = 8
            while opt + 4 <= len(body):
                code, olen = struct.unpack_from(endian + "HH", body, opt)
                if code == 0:
                    break
                if code == _IF_TSRESOL and olen >= 1:
                    v = body[opt + 4]
                    resolution = 2.0 ** -(v & 0x7F) if v & 0x80 else 10.0**-v
                opt += 4 + (olen + 3) // 4 * 4
            interfaces.append((linktype, resolution))
        elif btype == _PCAPNG_EPB:
            iface, high, low, caplen = struct.unpack_from(endian + "IIII", body, 0)
            if iface >= len(interfaces):
                raise PcapError(f"packet on undeclared interface {iface}")
            records.append(((high << 32 | low) * interfaces[iface][1], body[20 : 20 + caplen]))
        elif btype == _PCAPNG_SPB:
            (origlen,) = struct.unpack_from(endian + "I", body, 0)
            records.append((0.0, body[4 : 4 + origlen]))
        pos += blen
    linktypes = {lt for lt, _ in interfaces}
    if len(linktypes) != 1:
        raise PcapError(f"need exactly one link type, found {sorted(linktypes)}")
    return linktypes.pop(), records


def _ip_payload(linktype: int, frame: bytes) -> tuple[int, bytes] | None:
    """(IP version, IP packet) from one link-layer frame, or None if it carries no IP."""
    if linktype == LINKTYPE_ETHERNET:
        ethertype = struct.unpack_from(">H", frame, 12)[0]
        off = 14
        while ethertype in ETHERTYPE_VLAN:
            ethertype = struct.unpack_from(">H", frame, off + 2)[0]
            off += 4
        body = frame[off:]
    elif linktype == LINKTYPE_LINUX_SLL:
        ethertype = struct.unpack_from(">H", frame, 14)[0]
        body = frame[16:]
    elif linktype == LINKTYPE_LINUX_SLL2:
        ethertype = struct.unpack_from(">H", frame, 0)[0]
        body = frame[20:]
    elif linktype in (LINKTYPE_NULL, LINKTYPE_LOOP):
        family_le = struct.unpack_from("<I", frame, 0)[0]
        family_be = struct.unpack_from(">I", frame, 0)[0]
        family = family_be if linktype == LINKTYPE_LOOP else min(family_le, family_be)
        body = frame[4:]
        # AF_INET is 2 everywhere; AF_INET6 is 10, 24, 28 or 30 depending on the OS.
        ethertype = ETHERTYPE_IPV4 if family == 2 else ETHERTYPE_IPV6 if family in (10, 24, 28, 30) else 0
    elif linktype in (LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6):
        body = frame
        ethertype = ETHERTYPE_IPV4 if body[:1] and body[0] >> 4 == 4 else ETHERTYPE_IPV6
    else:
        raise PcapError(f"unsupported link type {linktype}")
    if ethertype == ETHERTYPE_IPV4:
        return 4, body
    if ethertype == ETHERTYPE_IPV6:
        return 6, body
    return None


def _tcp_segment(time: float, version: int, ip: bytes) -> TcpSegment | None:
    if version == 4:
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack_from(">H", ip, 2)[0]
        proto = ip[9]
        frag = struct.unpack_from(">H", ip, 6)[0]
        if proto != 6 or frag & 0x3FFF:
            return None
        src_ip = ".".join(str(b) for b in ip[12:16])
        dst_ip = ".".join(str(b) for b in ip[16:20])
        tcp = ip[ihl:total] if total else ip[ihl:]
    else:
        next_header = ip[6]
        if next_header != 6:
            return None
        plen = struct.unpack_from(">H", ip, 4)[0]
        src_ip = ip[8:24].hex(":", 2)
        dst_ip = ip[24:40].hex(":", 2)
        tcp = ip[40 : 40 + plen]
    sport, dport, seq, _ack, off_flags = struct.unpack_from(">HHIIH", tcp, 0)
    data_off = (off_flags >> 12) * 4
    return TcpSegment(time, (src_ip, sport), (dst_ip, dport), seq, off_flags & 0x3F, bytes(tcp[data_off:]))


def tcp_segments(path: str | Path) -> list[TcpSegment]:
    linktype, records = read_records(path)
    out = []
    for time, frame in records:
        ip = _ip_payload(linktype, frame)
        if ip is None:
            continue
        seg = _tcp_segment(time, *ip)
        if seg is not None:
            out.append(seg)
    return out


@dataclass
class _Stream:
    """One direction of one TCP connection, rebuilt in sequence-number order."""

    isn: int | None = None  # sequence number of the first data byte
    segments: list[tuple[int, float, bytes]] = field(default_factory=list)

    def add(self, seg: TcpSegment) -> None:
        if seg.flags & TCP_SYN:
            self.isn = (seg.seq + 1) & 0xFFFFFFFF
        if seg.payload:
            self.segments.append((seg.seq, seg.time, seg.payload))

    def assemble(self) -> tuple[bytes, list[tuple[int, float]]]:
        """(stream bytes, [(offset, time)] where each segment's new bytes start)."""
        if not self.segments:
            return b"", []
        base = self.isn if self.isn is not None else min(s for s, _, _ in self.segments)
        # Relative offsets modulo 2**32 handle wrap-around of the sequence space.
        ordered = sorted(((s - base) & 0xFFFFFFFF, t, p) for s, t, p in self.segments)
        data = bytearray()
        marks = []
        for off, time, payload in ordered:
            end = off + len(payload)
            if end <= len(data):
                continue  # retransmission of bytes we have
            if off > len(data):
                raise PcapError(f"gap in the TCP stream at offset {len(data)} (capture lost bytes)")
            marks.append((len(data), time))
            data += payload[len(data) - off :]
        return bytes(data), marks


def _time_at(marks: list[tuple[int, float]], offset: int) -> float:
    lo, hi = 0, len(marks) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if marks[mid][0] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return marks[lo][1]


def _split(data: bytes, marks: list[tuple[int, float]], direction: str, conn) -> list[CapturedPacket]:
    decoder = PacketDecoder(max_packet=1 << 32)
    out = []
    offset = 0
    decoder.feed(data)
    while True:
        start = offset
        packet = decoder.next_packet()
        if packet is None:
            break
        offset += len(packet.payload) + 4 * packet.chunks
        out.append(CapturedPacket(direction, packet.seq, packet.payload, _time_at(marks, start), conn))
    return out


def mysql_packets(path: str | Path, server_port: int | None = None) -> list[CapturedPacket]:
    """Every MySQL packet in the capture, both directions, in capture order."""
    streams: dict[tuple, _Stream] = {}
    clients: set[tuple[str, int]] = set()
    for seg in tcp_segments(path):
        if seg.flags & TCP_SYN and not seg.flags & TCP_ACK:
            clients.add(seg.src)
        streams.setdefault((seg.src, seg.dst), _Stream()).add(seg)
    out: list[CapturedPacket] = []
    for (src, dst), stream in streams.items():
        if src in clients:
            client, server = src, dst
        elif dst in clients:
            client, server = dst, src
        elif server_port is not None:
            client, server = (src, dst) if dst[1] == server_port else (dst, src)
        else:
            client, server = (src, dst) if dst[1] < src[1] else (dst, src)
        direction = "C->S" if src == client else "S->C"
        data, marks = stream.assemble()
        out.extend(_split(data, marks, direction, (client, server)))
    out.sort(key=lambda p: p.time)  # stable: each direction keeps its stream order
    return out
