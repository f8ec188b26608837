"""A small blocking MySQL client for the command line tools (`semisync status`, `semisync up`,
`semisync binlog --remote`).

Built on the sans-IO `protocol.connection.ClientConnection`: this module owns the socket, the
protocol object owns the rules. One statement at a time; results as (column names, rows of str); a binlog dump as its event
packets.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

from protocol.connection import NEED_DATA, BinlogPacket, ClientConnection, ConnectionClosed, LoginOK
from protocol.errors import ProtocolError
from protocol.messages import BINLOG_DUMP_NON_BLOCK, EOF, ERR, OK, ResultSet


class ClientError(Exception):
    """The server answered with an ERR packet, or the connection failed."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class Client:
    def __init__(self, host: str, port: int, user: str = "root", password: str = "", *, timeout: float = 5.0) -> None:
        self.host, self.port = host, port
        self._conn = ClientConnection(user, password, attributes={"_client_name": "semisync"})
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise ClientError(f"cannot connect to {host}:{port}: {exc.strerror or exc}") from None
        reply = self._wait()
        if isinstance(reply, ERR):
            self.close()
            raise ClientError(f"ERROR {reply.code} ({reply.sqlstate}): {reply.message}", reply.code)
        if not isinstance(reply, LoginOK):
            self.close()
            raise ClientError(f"unexpected login reply from {host}:{port}: {reply!r}")

    def _wait(self) -> Any:
        try:
            while True:
                event = self._conn.next_event()
                # The connection answers the greeting and auth switches by itself: write that
                # out before waiting for more.
                out = self._conn.data_to_send()
                if out:
                    self._sock.sendall(out)
                if event is NEED_DATA:
                    self._conn.receive_data(self._sock.recv(1 << 16))
                    continue
                if isinstance(event, ConnectionClosed):
                    raise ClientError(f"{self.host}:{self.port} closed the connection")
                return event
        except ProtocolError as exc:
            raise ClientError(f"protocol error from {self.host}:{self.port}: {exc.message}") from None
        except OSError as exc:
            raise ClientError(f"connection to {self.host}:{self.port} failed: {exc.strerror or exc}") from None

    def query(self, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one statement: (column names, rows) for a result set, ([], []) for OK."""
        try:
            self._sock.sendall(self._conn.query(sql))
        except ProtocolError as exc:
            raise ClientError(f"cannot send query: {exc.message}") from None
        except OSError as exc:
            raise ClientError(f"connection to {self.host}:{self.port} failed: {exc.strerror or exc}") from None
        reply = self._wait()
        if isinstance(reply, ERR):
            raise ClientError(f"ERROR {reply.code} ({reply.sqlstate}): {reply.message}", reply.code)
        if isinstance(reply, ResultSet):
            return [c.name for c in reply.columns], list(reply.rows)
        if isinstance(reply, OK | EOF):
            return [], []
        raise ClientError(f"unexpected reply {reply!r}")

    def rows_as_dicts(self, sql: str) -> list[dict[str, Any]]:
        columns, rows = self.query(sql)
        return [dict(zip(columns, row, strict=False)) for row in rows]

    def variables(self, sql: str) -> dict[str, Any]:
        """`SHOW ... STATUS/VARIABLES` as a name -> value mapping."""
        _, rows = self.query(sql)
        return {row[0]: row[1] for row in rows}

    def binlog_dump(self, file: str, position: int, server_id: int, flags: int) -> Iterator[bytes]:
        """COM_BINLOG_DUMP from `file` at `position`: each event as the server sends it. With
        BINLOG_DUMP_NON_BLOCK in `flags` the iteration ends where the server's binlog ends;
        without, it waits for new events as long as the server keeps the dump open."""
        try:
            if not flags & BINLOG_DUMP_NON_BLOCK:
                self._sock.settimeout(None)
            self._sock.sendall(self._conn.binlog_dump(position, flags, server_id, file))
        except ProtocolError as exc:
            raise ClientError(f"cannot send COM_BINLOG_DUMP: {exc.message}") from None
        except OSError as exc:
            raise ClientError(f"connection to {self.host}:{self.port} failed: {exc.strerror or exc}") from None
        while True:
            reply = self._wait()
            if isinstance(reply, BinlogPacket):
                yield reply.payload
            elif isinstance(reply, ERR):
                raise ClientError(f"ERROR {reply.code} ({reply.sqlstate}): {reply.message}", reply.code)
            elif isinstance(reply, OK | EOF):
                return
            else:
                raise ClientError(f"unexpected reply {reply!r} during COM_BINLOG_DUMP")

    def close(self) -> None:
        try:
            self._sock.sendall(self._conn.quit())
        except Exception:
            pass
        self._sock.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
