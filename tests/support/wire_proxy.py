"""A loopback TCP proxy between a replica and its master that sees (and can hold) the bytes.

`WireProxy(target_port)` listens on a free port and forwards each accepted connection to
127.0.0.1:target_port, in its own thread. It records, in `journal` (shared with the test, in
order), every semi-sync ack the replica sends (client->server packets with sequence id 0 whose
payload starts with 0xEF, decoded with protocol.semisync_wire). `hold()` makes it keep the
master->replica bytes instead of forwarding them; `release()` sends everything held in ONE
write, so the replica receives a burst of events together. `corrupt_next()` flips the last
byte of the next master->replica chunk (an event's CRC32 when the chunk ends with an event
packet). `cut()` closes every connection.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from protocol.semisync_wire import decode_ack


class WireProxy:
    def __init__(self, target_port: int, journal: list[tuple[Any, ...]] | None = None,
                 lock: threading.RLock | None = None) -> None:
        self.target_port = target_port
        self.journal: list[tuple[Any, ...]] = journal if journal is not None else []
        self.lock = lock or threading.RLock()
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(16)
        self.port = self._server.getsockname()[1]
        self._holding = False
        self._corrupt = False
        self._held: list[tuple[socket.socket, bytes]] = []
        self._conns: list[socket.socket] = []
        self._closed = False
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True, name="wire-proxy").start()

    def record(self, *entry: Any) -> None:
        with self.lock:
            self.journal.append((time.monotonic(), *entry))

    def acks(self) -> list[Any]:
        with self.lock:
            return [e[2] for e in self.journal if e[1] == "ack"]

    # -- control --------------------------------------------------------------------------------
    def hold(self) -> None:
        with self.lock:
            self._holding = True

    def release(self) -> int:
        """Forward what was held, one write per connection; returns the number of bytes."""
        with self.lock:
            self._holding = False
            held, self._held = self._held, []
        by_sock: dict[socket.socket, bytearray] = {}
        for sock, data in held:
            by_sock.setdefault(sock, bytearray()).extend(data)
        total = 0
        for sock, buffered in by_sock.items():
            try:
                sock.sendall(bytes(buffered))
                total += len(buffered)
            except OSError:
                pass
        return total

    def corrupt_next(self) -> None:
        with self.lock:
            self._corrupt = True

    def held_bytes(self) -> int:
        with self.lock:
            return sum(len(d) for _, d in self._held)

    def cut(self) -> None:
        for s in list(self._conns):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self._conns.clear()

    def close(self) -> None:
        self._closed = True
        self._server.close()
        self.cut()

    # -- plumbing -------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            self.connections += 1
            self._conns += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, self._client_bytes), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, self._server_bytes), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, on_data: Callable[[socket.socket, bytes, bytearray], bool]) -> None:
        buf = bytearray()
        while True:
            try:
                data = src.recv(1 << 16)
            except OSError:
                data = b""
            if not data:
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            if on_data(dst, data, buf):
                try:
                    dst.sendall(data)
                except OSError:
                    return

    def _acks_noted(self, data: bytes, buf: bytearray) -> Iterator[bytes]:
        """The whole packets `data` completes in `buf`, each ack among them noted in the journal."""
        buf += data
        for packet in whole_packets(buf):
            if is_ack(packet):
                self.record("ack", decode_ack(packet[4:]).position)
            yield packet

    def _corrupted(self, data: bytes) -> bytes:
        """`data` with its last byte flipped when `corrupt_next` asked for it (once)."""
        with self.lock:
            corrupt, self._corrupt = self._corrupt, False
        if not corrupt:
            return data
        data = data[:-1] + bytes([data[-1] ^ 0xFF])
        self.record("corrupted", len(data))
        return data

    def _client_bytes(self, dst: socket.socket, data: bytes, buf: bytearray) -> bool:
        """Replica -> master: note the acks (whole packets only), always forward."""
        for _ in self._acks_noted(data, buf):
            pass
        return True

    def _server_bytes(self, dst: socket.socket, data: bytes, buf: bytearray) -> bool:
        """Master -> replica: forward, or keep while holding; corrupt one chunk when asked."""
        data = self._corrupted(data)
        with self.lock:
            if self._holding:
                self._held.append((dst, data))
                return False
        try:
            dst.sendall(data)
        except OSError:
            pass
        return False


def whole_packets(buf: bytearray) -> Iterator[bytes]:
    """Take every complete MySQL packet (4-byte header included) off the front of `buf`."""
    while len(buf) >= 4:
        length = int.from_bytes(buf[:3], "little")
        if len(buf) < 4 + length:
            return
        packet = bytes(buf[: 4 + length])
        del buf[: 4 + length]
        yield packet


def is_ack(packet: bytes) -> bool:
    """A semi-sync ack: sequence id 0, payload starting with 0xEF."""
    return packet[3] == 0 and packet[4:5] == b"\xef"
