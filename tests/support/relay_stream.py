"""The master's side of a relay log test: events with consecutive log_pos, as a dump sends them."""

from __future__ import annotations

from protocol.events import (
    LOG_EVENT_ARTIFICIAL_F,
    FormatDescription,
    Query,
    Rotate,
    Xid,
    encode_body_event,
)

MASTER = "master-bin.000001"


class Stream:
    """The master's side: events with consecutive log_pos in MASTER, as a dump sends them."""

    def __init__(self, start: int = 4) -> None:
        self.pos = start

    def event(self, body, *, artificial: bool = False, server_id: int = 1) -> bytes:
        if artificial:
            return encode_body_event(body, timestamp=0, server_id=server_id, log_pos=0,
                                     flags=LOG_EVENT_ARTIFICIAL_F, checksum=True)
        size = len(encode_body_event(body, timestamp=1, server_id=server_id, log_pos=0, checksum=True))
        self.pos += size
        return encode_body_event(body, timestamp=1, server_id=server_id, log_pos=self.pos, checksum=True)

    def start(self) -> list[bytes]:
        fd = FormatDescription(server_version="10.11.19-MariaDB-log")
        fd_event = encode_body_event(fd, timestamp=1, server_id=1, log_pos=0, checksum=True)
        return [self.event(Rotate(self.pos, MASTER), artificial=True), fd_event]

    def transaction(self, n: int) -> list[bytes]:
        return [
            self.event(Query(db="d", query="BEGIN")),
            self.event(Query(db="d", query=f"INSERT INTO t VALUES ({n})")),
            self.event(Xid(n)),
        ]
