"""The GTIDs of this server's binlog: its live state, rebuilt from the files, and the events
every binlog file starts with.

Contract
- `BinlogGtids` owns the binlog's live `BinlogState` (one object for the server's life: dump
  filters read it as it grows; RESET MASTER clears it in place), `domain_id`
  (@@global.gtid_domain_id) and `strict_mode` (@@gtid_strict_mode, read by the applier). The
  group commit (master/commit.py) numbers each client transaction `domain-server_id-next seq`
  (the committing session's @@session.gtid_domain_id, @@session.server_id; @@session.gtid_seq_no
  for its next one when set, `own_gtid`) and keeps a replicated transaction's
  origin GTID, recording every GTID it writes in the state as it appends it; a group whose
  binlog write fails puts the state back (`snapshot()` / `restore()`), so a GTID the binlog
  lacks is never in the state. A replicated GTID out of its domain's order is recorded as it
  comes (the applier's strict check refuses it before it gets here).
- `header_events(name, previous)`: what follows the FORMAT_DESCRIPTION of every new binlog
  file, as MariaDB 10.11 writes it: GTID_LIST with the state before the file (an empty list
  padded with two zero bytes), then BINLOG_CHECKPOINT naming the oldest file crash recovery may
  need: the file before (`previous`) on a rotation, whose last group is not in the engine yet,
  else the new file itself; after a rotation, the next group written starts with a
  BINLOG_CHECKPOINT naming the new file (`take_checkpoint`).
- `read_binlog_state(directory, names)`: the state at the end of the binlog: the newest file
  with a GTID_LIST, its list then every GTID event in it and in the files after it. Files from
  before GTIDs (no GTID_LIST, no GTID event) count for nothing.
- `file_gtid_lists(directory, names)`: each file's GTID_LIST (`BinlogFileGtids`, what
  find_dump_start reads); `gtids_in(path, end)`: the GTIDs of a file's GTID events before `end`
  (BINLOG_GTID_POS).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from binlog.reader import file_checksum, iter_events
from protocol.errors import ER_GTID_STRICT_OUT_OF_ORDER, RemoteProtocolError, SQLError
from protocol.events import (
    BinlogCheckpoint,
    EventType,
    Gtid,
    GtidList,
    MariaGtid,
    decode_event,
    event_type,
)
from protocol.gtid import BinlogFileGtids, BinlogState

# (type_code, body bytes, timestamp, flags): binlog.writer.EventSpec
EventSpec = tuple[int, bytes, int, int]


class BinlogGtids:
    def __init__(self, state: BinlogState | None = None, *, domain_id: int = 0, strict_mode: bool = True,
                 clock: Callable[[], float] = time.time) -> None:
        self.state = BinlogState() if state is None else state
        self.domain_id = domain_id
        self.strict_mode = strict_mode
        self._clock = clock
        self.checkpoint_due: str | None = None  # a file whose own BINLOG_CHECKPOINT is still to come

    def domain_for(self, session: Any) -> int:
        """The domain a session's own transactions get: its @@session.gtid_domain_id."""
        value = _session_value(session, "gtid_domain_id")
        return self.domain_id if value is None else int(value)

    def own_gtid(self, session: Any, server_id: int) -> Gtid:
        """The GTID of a session's own next binlog transaction, recorded in the state, as
        MariaDB numbers it: @@session.gtid_domain_id - @@session.server_id (else `server_id`) -
        @@session.gtid_seq_no when the session set it (mariadb-binlog's output does; taken once:
        the session's value goes back to 0; under gtid_strict_mode a number not above the
        domain's last is 1950, the check SET made, again at write time), else the domain's next."""
        sysvars = getattr(session, "sysvars", None)  # (`_session_value`'s, read once per GTID)
        if not isinstance(sysvars, dict):
            return self.state.next_gtid(self.domain_id, server_id)
        domain_id = sysvars.get("gtid_domain_id")
        domain_id = self.domain_id if domain_id is None else int(domain_id)
        session_server_id = sysvars.get("server_id")
        if session_server_id is not None:
            server_id = int(session_server_id)
        seq_no = sysvars.get("gtid_seq_no")
        if not seq_no:
            return self.state.next_gtid(domain_id, server_id)
        session.sysvars["gtid_seq_no"] = 0
        gtid = Gtid(domain_id, server_id, int(seq_no))
        self.state.update(gtid, strict=self.strict_mode)
        return gtid

    def check_seq_no(self, session: Any, seq_no: int, server_id: int) -> None:
        """SET gtid_seq_no under gtid_strict_mode: a number not above the domain's last GTID
        is refused then (1950), as MariaDB refuses it (`server_id`: the server's own)."""
        if seq_no and self.strict_mode:
            try:
                self.state.check_strict(Gtid(self.domain_for(session), _server_id_for(session, server_id), seq_no))
            except RemoteProtocolError as exc:  # the client's SET, not a peer's event: an ERR
                raise SQLError(ER_GTID_STRICT_OUT_OF_ORDER, message=str(exc)) from None

    def snapshot(self) -> BinlogState:
        return self.state.copy()

    def restore(self, snapshot: BinlogState) -> None:
        """Back to `snapshot` in place (the live object stays the one every reader holds)."""
        self.state.restore(snapshot)

    def reset(self) -> None:
        """RESET MASTER: the binlog holds no GTID any more."""
        self.state.clear()

    def header_events(self, name: str, previous: str | None) -> list[EventSpec]:
        now = int(self._clock())
        self.checkpoint_due = name if previous is not None else None
        return [
            (EventType.GTID_LIST_EVENT, GtidList.of(self.state.gtid_list()).encode(), now, 0),
            (EventType.BINLOG_CHECKPOINT_EVENT, BinlogCheckpoint(previous or name).encode(), now, 0),
        ]

    def take_checkpoint(self) -> EventSpec | None:
        """After a rotation, the BINLOG_CHECKPOINT naming the new file, once: the first group
        written after it carries it first (every group of the file before is in the engine
        then, as MariaDB writes it once that file's transactions are committed)."""
        name, self.checkpoint_due = self.checkpoint_due, None
        if name is None:
            return None
        return (EventType.BINLOG_CHECKPOINT_EVENT, BinlogCheckpoint(name).encode(), int(self._clock()), 0)


def _gtid_events(path: Path, end: int | None = None) -> Iterator[tuple[int, Gtid | tuple[Gtid, ...]]]:
    """(type_code, GTID) of each GTID event and (type_code, list) of each GTID_LIST of a file."""
    checksum = file_checksum(path)
    for _offset, raw in iter_events(path, 4, end):
        kind = event_type(raw)
        if kind == EventType.GTID_EVENT:
            event = decode_event(raw, checksum=checksum)
            body = event.body
            assert isinstance(body, MariaGtid)
            yield kind, Gtid(body.domain_id, event.header.server_id, body.seq_no)
        elif kind == EventType.GTID_LIST_EVENT:
            body = decode_event(raw, checksum=checksum).body
            assert isinstance(body, GtidList)
            yield kind, body.gtids


def file_gtid_list(path: Path) -> tuple[Gtid, ...] | None:
    """The GTID_LIST right after a file's FORMAT_DESCRIPTION (None: a file without one)."""
    checksum = file_checksum(path)
    for _offset, raw in iter_events(path, 4):
        kind = event_type(raw)
        if kind == EventType.FORMAT_DESCRIPTION_EVENT:
            continue
        if kind != EventType.GTID_LIST_EVENT:
            return None
        body = decode_event(raw, checksum=checksum).body
        assert isinstance(body, GtidList)
        return body.gtids
    return None


def file_gtid_lists(directory: Path, names: list[str]) -> list[BinlogFileGtids]:
    return [BinlogFileGtids(name, file_gtid_list(directory / name)) for name in names]


def gtids_in(path: Path, end: int | None = None) -> list[Gtid]:
    """The GTIDs of a file's GTID events that start before `end` (None: the whole file)."""
    return [g for kind, g in _gtid_events(path, end) if isinstance(g, Gtid)]


def read_binlog_state(directory: Path, names: list[str]) -> BinlogState:
    """The binlog's state at its end (see the module's contract)."""
    present = [n for n in names if (directory / n).exists()]
    start = 0
    for i in range(len(present) - 1, -1, -1):
        if file_gtid_list(directory / present[i]) is not None:
            start = i
            break
    state = BinlogState()
    for name in present[start:]:
        for _kind, value in _gtid_events(directory / name):
            for gtid in (value,) if isinstance(value, Gtid) else value:
                state.update(gtid)
    return state


def _session_value(session: Any, name: str) -> Any:
    """@@session.`name` as the session set it (None: not set, or no client session)."""
    sysvars = getattr(session, "sysvars", None)
    return sysvars.get(name) if isinstance(sysvars, dict) else None


def _server_id_for(session: Any, server_id: int) -> int:
    """The server_id a session's own transactions carry: its @@session.server_id, else `server_id`."""
    value = _session_value(session, "server_id")
    return server_id if value is None else int(value)
