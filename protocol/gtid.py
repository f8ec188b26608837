"""MariaDB global transaction IDs (`domain-server_id-seq`) as values, sans-IO.

Contract (MariaDB 10.11's sql/rpl_gtid.cc and sql/sql_repl.cc, read, not copied; every wording
and edge case below was checked against a real MariaDB 10.11: tests/unit/test_gtid.py holds the
recorded answers, tests/integration/test_gtid_mariadb.py asks a live server again):
- `parse_gtid_list(text)`: a comma-separated list as MariaDB reads it: numbers may have leading
  spaces or tabs, a `+` and leading zeros; domain and server_id fit 32 bits, seq_no 64; nothing
  may follow a number but `-`, `,` or the end (no trailing space). The empty string is the empty
  list. Anything else is the client's error ER_INCORRECT_GTID_STATE (1941).
- `GtidPosition`: at most one GTID per domain (`@@gtid_slave_pos`, `@@gtid_binlog_pos`,
  `@@gtid_current_pos`, a dump's `@slave_connect_state`); a second GTID of a domain is
  ER_DUPLICATE_GTID_DOMAIN (1943). Printed sorted by domain, as MariaDB prints it.
- `BinlogState`: a binlog's state (`@@gtid_binlog_state`, what a GTID_LIST event lists): per
  domain the last seq_no of every server_id, the domain's most recent GTID, and the counter its
  next own GTID is numbered from. `update(gtid, strict=True)` refuses a seq_no not above the
  domain's most recent one with ER_GTID_STRICT_OUT_OF_ORDER (1950), changing nothing.
- `current_pos(binlog_state, slave_pos, server_id)`: `@@gtid_current_pos`.
- `gtid_wait_reached(wanted, slave_pos)`: when MASTER_GTID_WAIT() returns 0.
- `binlog_gtid_pos(gtid_list, gtids_before)`: what BINLOG_GTID_POS(file, pos) answers (the same
  GTIDs; MariaDB prints them in its hash's order, a `GtidPosition` by domain).
- `find_dump_start(...)`: where a dump by GTID starts (check_slave_start_position, then
  gtid_find_binlog_file): the file, newest first, whose GTID_LIST (the state before the file)
  shows that everything after the requested GTIDs is in it or later, and a `StartFilter` that
  decides, GTID by GTID, which event groups the dump skips until each domain's requested GTID.
  A request the binlog cannot serve is refused with code 1236 and sql_repl.cc's text (not
  in the binlog, diverged, purged, a hole under the slave's strict mode), which the dump sends
  as its ERR packet; `parse_connect_state` refuses a malformed `@slave_connect_state` with
  1941/1943, as a COM_BINLOG_DUMP to MariaDB gets.
Errors are `RemoteProtocolError`s carrying MySQL's error (not fatal): the values come from a
client statement or a slave's request.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from protocol.errors import (
    ER_DUPLICATE_GTID_DOMAIN,
    ER_GTID_DUMP_BINLOG_HOLE,
    ER_GTID_DUMP_DIVERGED,
    ER_GTID_DUMP_NOT_IN_BINLOG,
    ER_GTID_DUMP_PURGED,
    ER_GTID_STRICT_OUT_OF_ORDER,
    ER_INCORRECT_GTID_STATE,
    MySQLError,
    RemoteProtocolError,
)
from protocol.events import Gtid

__all__ = [
    "BinlogFileGtids",
    "BinlogState",
    "DumpStart",
    "Gtid",
    "GtidPosition",
    "StartFilter",
    "binlog_gtid_pos",
    "current_pos",
    "find_dump_start",
    "gtid_wait_reached",
    "parse_connect_state",
    "parse_gtid_list",
]

_U32_MAX = 0xFFFF_FFFF
_U64_MAX = 0xFFFF_FFFF_FFFF_FFFF
_MAX_LIST_LEN = (1 << 28) - 1  # the count field of a GTID_LIST event
_DIGITS = frozenset("0123456789")


def _refused(error: MySQLError, *args: object) -> RemoteProtocolError:
    """The client's or the slave's request broke a GTID rule: MySQL's error, the session goes on."""
    return RemoteProtocolError(error.format(*args), error=error, fatal=False)


# ---------------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------------
def _number(text: str, at: int, limit: int) -> tuple[int, int]:
    """One unsigned number at `at` as MariaDB's my_strtoll10 reads it: (value, index after)."""
    n = len(text)
    while at < n and text[at] in " \t":
        at += 1
    if at < n and text[at] == "+":
        at += 1
    start = at
    while at < n and text[at] in _DIGITS:
        at += 1
    if at == start:
        raise _refused(ER_INCORRECT_GTID_STATE)
    value = int(text[start:at])
    if value > limit:
        raise _refused(ER_INCORRECT_GTID_STATE)
    return value, at


def parse_gtid_list(text: str) -> tuple[Gtid, ...]:
    """The GTIDs of a comma-separated list, in the order written (see the module's contract)."""
    if text == "":
        return ()
    out: list[Gtid] = []
    at, n = 0, len(text)
    while True:
        if len(out) >= _MAX_LIST_LEN:
            raise _refused(ER_INCORRECT_GTID_STATE)
        domain, at = _number(text, at, _U32_MAX)
        if at >= n or text[at] != "-":
            raise _refused(ER_INCORRECT_GTID_STATE)
        server_id, at = _number(text, at + 1, _U32_MAX)
        if at >= n or text[at] != "-":
            raise _refused(ER_INCORRECT_GTID_STATE)
        seq_no, at = _number(text, at + 1, _U64_MAX)
        out.append(Gtid(domain, server_id, seq_no))
        if at == n:
            return tuple(out)
        if text[at] != ",":
            raise _refused(ER_INCORRECT_GTID_STATE)
        at += 1


# ---------------------------------------------------------------------------------------------
# Positions: one GTID per domain
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GtidPosition:
    """At most one GTID per domain; immutable. `str()` is MariaDB's form (sorted by domain)."""

    _by_domain: dict[int, Gtid] = field(default_factory=dict)

    @classmethod
    def of(cls, gtids: Iterable[Gtid]) -> GtidPosition:
        by_domain: dict[int, Gtid] = {}
        for g in gtids:
            old = by_domain.get(g.domain_id)
            if old is not None:
                raise _refused(ER_DUPLICATE_GTID_DOMAIN, g, old, g.domain_id)
            by_domain[g.domain_id] = g
        return cls(by_domain)

    @classmethod
    def parse(cls, text: str) -> GtidPosition:
        """A position as `SET GLOBAL gtid_slave_pos = '...'` takes it (1941, 1943)."""
        return cls.of(parse_gtid_list(text))

    def get(self, domain_id: int) -> Gtid | None:
        return self._by_domain.get(domain_id)

    def with_gtid(self, gtid: Gtid) -> GtidPosition:
        """This position with `gtid` as its domain's GTID (replacing the one there)."""
        return GtidPosition({**self._by_domain, gtid.domain_id: gtid})

    def without(self, domain_id: int) -> GtidPosition:
        return GtidPosition({d: g for d, g in self._by_domain.items() if d != domain_id})

    @property
    def domains(self) -> frozenset[int]:
        return frozenset(self._by_domain)

    def __iter__(self) -> Iterator[Gtid]:
        return iter(sorted(self._by_domain.values(), key=lambda g: g.domain_id))

    def __len__(self) -> int:
        return len(self._by_domain)

    def __bool__(self) -> bool:
        return bool(self._by_domain)

    def __str__(self) -> str:
        by_domain = self._by_domain
        if len(by_domain) == 1:  # the usual one domain: nothing to sort (the applier's meta per transaction)
            for g in by_domain.values():
                return str(g)
        return ",".join(str(g) for g in self)

    def __hash__(self) -> int:
        return hash(tuple(self))


def binlog_gtid_pos(gtid_list: Iterable[Gtid], gtids_before: Iterable[Gtid]) -> GtidPosition:
    """BINLOG_GTID_POS(file, pos): the file's GTID_LIST (whatever `pos`, 4 included), then each
    GTID event of the file that starts before `pos`, the last of each domain kept (sql_repl.cc's
    gtid_state_from_pos)."""
    by_domain: dict[int, Gtid] = {}
    for g in (*gtid_list, *gtids_before):
        by_domain[g.domain_id] = g
    return GtidPosition(by_domain)


def current_pos(binlog_state: BinlogState, slave_pos: GtidPosition, server_id: int) -> GtidPosition:
    """`@@gtid_current_pos`: per domain, `slave_pos`'s GTID, or the binlog's most recent one when
    we logged it ourselves (`server_id`) with a higher seq_no; a binlog GTID another server
    logged (a replicated one) does not count."""
    by_domain = {g.domain_id: g for g in slave_pos}
    for own in binlog_state.binlog_pos():
        applied = by_domain.get(own.domain_id)
        if own.server_id == server_id and (applied is None or own.seq_no > applied.seq_no):
            by_domain[own.domain_id] = own
    return GtidPosition(by_domain)


def gtid_wait_reached(wanted: Iterable[Gtid], slave_pos: GtidPosition) -> bool:
    """MASTER_GTID_WAIT(list)'s condition: `@@gtid_slave_pos` has, in every listed GTID's domain,
    a seq_no at least as high, whoever logged it (seq_no 0 is always reached; the binlog's own
    GTIDs do not count). `wanted` is `parse_gtid_list`'s: a domain may repeat."""
    for w in wanted:
        applied = slave_pos.get(w.domain_id)
        if w.seq_no > (applied.seq_no if applied is not None else 0):
            return False
    return True


def parse_connect_state(text: str) -> GtidPosition:
    """A dump's `@slave_connect_state`: a malformed one ends COM_BINLOG_DUMP with the parser's
    1941 or 1943, as mysqld answers it."""
    return GtidPosition.parse(text)


# ---------------------------------------------------------------------------------------------
# A binlog's state
# ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Domain:
    last_seq: dict[int, int] = field(default_factory=dict)  # server_id -> its last seq_no
    last: Gtid | None = None  # the most recent GTID logged in the domain
    counter: int = 0  # the largest seq_no seen: the next own GTID is counter + 1


class BinlogState:
    """The GTIDs a binlog holds: per domain, the last GTID of each server_id (mutable; `copy()`)."""

    def __init__(self, gtids: Iterable[Gtid] = ()) -> None:
        self._domains: dict[int, _Domain] = {}
        for g in gtids:
            self.update(g)

    def copy(self) -> BinlogState:
        other = BinlogState()
        other._domains = {d: _Domain(dict(e.last_seq), e.last, e.counter) for d, e in self._domains.items()}
        return other

    # -- changes ----------------------------------------------------------------------------
    def restore(self, snapshot: BinlogState) -> None:
        """Become `snapshot` again, in place (a group whose binlog write failed is forgotten)."""
        self._domains = snapshot.copy()._domains

    def clear(self) -> None:
        """Nothing logged any more (RESET MASTER)."""
        self._domains = {}

    def check_strict(self, gtid: Gtid) -> None:
        """gtid_strict_mode: `gtid` must come after its domain's most recent GTID (1950)."""
        d = self._domains.get(gtid.domain_id)
        if d is not None and d.last is not None and d.last.seq_no >= gtid.seq_no:
            raise _refused(ER_GTID_STRICT_OUT_OF_ORDER, gtid, d.last)

    def update(self, gtid: Gtid, *, strict: bool = False) -> None:
        """`gtid` was logged: it becomes its server's last and its domain's most recent."""
        if strict:
            self.check_strict(gtid)
        d = self._domains.setdefault(gtid.domain_id, _Domain())
        d.last_seq[gtid.server_id] = gtid.seq_no
        d.last = gtid
        d.counter = max(d.counter, gtid.seq_no)

    def next_gtid(self, domain_id: int, server_id: int) -> Gtid:
        """The GTID our next own transaction gets in `domain_id`, recorded as logged."""
        d = self._domains.get(domain_id)
        gtid = Gtid(domain_id, server_id, d.counter + 1 if d is not None else 1)
        self.update(gtid)
        return gtid

    def bump_seq_no(self, domain_id: int, seq_no: int) -> None:
        """A GTID seen but not logged (a replica without log_slave_updates): number ours after it."""
        d = self._domains.setdefault(domain_id, _Domain())
        d.counter = max(d.counter, seq_no)

    # -- reading ----------------------------------------------------------------------------
    def find(self, domain_id: int, server_id: int) -> Gtid | None:
        d = self._domains.get(domain_id)
        seq = None if d is None else d.last_seq.get(server_id)
        return None if seq is None else Gtid(domain_id, server_id, seq)

    def most_recent(self, domain_id: int) -> Gtid | None:
        d = self._domains.get(domain_id)
        return None if d is None else d.last

    def gtid_list(self) -> tuple[Gtid, ...]:
        """Every (domain, server_id)'s last GTID, domains in order, each domain's most recent
        GTID last within it: the list of a GTID_LIST event and `@@gtid_binlog_state`."""
        out: list[Gtid] = []
        for domain_id in sorted(self._domains):
            d = self._domains[domain_id]
            if d.last is None:
                continue
            out += [Gtid(domain_id, s, q) for s, q in d.last_seq.items() if s != d.last.server_id]
            out.append(d.last)
        return tuple(out)

    def binlog_pos(self) -> GtidPosition:
        """The most recent GTID of each domain (`@@gtid_binlog_pos`)."""
        return GtidPosition({dom: d.last for dom, d in self._domains.items() if d.last is not None})

    def __str__(self) -> str:
        return ",".join(str(g) for g in self.gtid_list())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BinlogState) and self.gtid_list() == other.gtid_list()

    __hash__ = None  # type: ignore[assignment]


# ---------------------------------------------------------------------------------------------
# Where a dump by GTID starts
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BinlogFileGtids:
    """A binlog file and the GTID_LIST after its format description (the binlog state before
    the file; None for a file without one)."""

    name: str
    gtid_list: tuple[Gtid, ...] | None


@dataclass(slots=True)
class _Wanted:
    gtid: Gtid
    own_slave_pos: bool = False  # the GTID we last applied as a replica: it may not be in our binlog
    on_empty_domain: bool = False  # a domain our binlog had nothing of when the dump started


class StartFilter:
    """Per domain, the GTID a dump starts after: `skip(gtid)` for each GTID event, in binlog
    order, says whether its event group is skipped (send_event_to_slave's bookkeeping)."""

    def __init__(self, wanted: dict[int, _Wanted], binlog_state: BinlogState, slave_strict_mode: bool) -> None:
        self._wanted = wanted
        self._binlog_state = binlog_state
        self._strict = slave_strict_mode

    @property
    def waiting(self) -> GtidPosition:
        """The GTIDs still to be reached (a domain leaves once its GTID went by)."""
        return GtidPosition({d: w.gtid for d, w in self._wanted.items()})

    def skip(self, gtid: Gtid) -> bool:
        w = self._wanted.get(gtid.domain_id)
        if w is None:
            return False
        if w.on_empty_domain:  # the domain turned up: the requested GTID must be in it after all
            have = self._binlog_state.find(w.gtid.domain_id, w.gtid.server_id)
            if have is None or have.seq_no < w.gtid.seq_no:
                _missing(w.gtid, self._binlog_state)
            w.on_empty_domain = False
        want = w.gtid
        skip = gtid.server_id != want.server_id or gtid.seq_no <= want.seq_no
        if gtid.server_id == want.server_id and gtid.seq_no >= want.seq_no:
            if self._strict and gtid.seq_no > want.seq_no and not w.own_slave_pos:
                raise _refused(ER_GTID_DUMP_BINLOG_HOLE, want)
            del self._wanted[gtid.domain_id]
        return skip


@dataclass(frozen=True, slots=True)
class DumpStart:
    """The file a dump by GTID starts at (from its beginning) and what it skips there."""

    file: str
    filter: StartFilter


def _missing(want: Gtid, binlog_state: BinlogState) -> None:
    have = binlog_state.most_recent(want.domain_id)
    if have is not None and have.seq_no >= want.seq_no:
        raise _refused(ER_GTID_DUMP_DIVERGED, want)
    raise _refused(ER_GTID_DUMP_NOT_IN_BINLOG, want)


def _check_start(
    request: GtidPosition, binlog_state: BinlogState, slave_pos: GtidPosition, server_id: int, ignore_duplicates: bool
) -> dict[int, _Wanted]:
    """check_slave_start_position: each requested GTID against our binlog state."""
    wanted: dict[int, _Wanted] = {}
    for want in request:
        own = slave_pos.get(want.domain_id) == want
        have = binlog_state.find(want.domain_id, want.server_id)
        if have is not None and have.seq_no >= want.seq_no:
            wanted[want.domain_id] = _Wanted(want, own_slave_pos=own)
            continue
        if not own:
            recent = binlog_state.most_recent(want.domain_id)
            if recent is None:  # a domain another master serves: checked if it ever turns up
                wanted[want.domain_id] = _Wanted(want, on_empty_domain=True)
                continue
            if ignore_duplicates and recent.seq_no < want.seq_no:
                wanted[want.domain_id] = _Wanted(want)
                continue
            _missing(want, binlog_state)
        # the GTID we applied last as a replica without logging it: start after it
        mine = binlog_state.find(want.domain_id, server_id)
        recent = binlog_state.most_recent(want.domain_id)
        if mine is not None and mine.seq_no > want.seq_no:
            wanted[want.domain_id] = _Wanted(Gtid(want.domain_id, server_id, want.seq_no), own_slave_pos=True)
        elif recent is not None:
            wanted[want.domain_id] = _Wanted(recent)
        # nothing of the domain in our binlog: send whatever comes
    return wanted


def _contains_all(wanted: dict[int, _Wanted], gtid_list: Sequence[Gtid]) -> bool:
    """contains_all_slave_gtid: nothing the slave still needs is before this file."""
    for i, listed in enumerate(gtid_list):
        w = wanted.get(listed.domain_id)
        if w is None:
            return False  # the slave needs the domain from its beginning
        want = w.gtid
        if want.server_id == listed.server_id and want.seq_no <= listed.seq_no:
            if want.seq_no < listed.seq_no:
                return False
            # the domain's most recent GTID before this file is listed last in its domain
            if i + 1 < len(gtid_list) and gtid_list[i + 1].domain_id == listed.domain_id:
                return False
    return True


def find_dump_start(
    files: Sequence[BinlogFileGtids],
    request: GtidPosition,
    binlog_state: BinlogState,
    *,
    slave_pos: GtidPosition = GtidPosition(),
    server_id: int = 0,
    slave_strict_mode: bool = False,
    slave_ignore_duplicates: bool = False,
) -> DumpStart:
    """Where a dump asked for `request` (`@slave_connect_state`) starts. `files`: the binlog
    index in order, oldest first; `binlog_state`: the binlog's state now; `slave_pos`/`server_id`:
    our own `@@gtid_slave_pos` and server_id (a former replica that did not log what it applied
    can still serve from where it stopped). Raises 1236 as mysqld words it. The
    returned filter reads `binlog_state` again when a domain the binlog lacked turns up: pass the
    live state, the one the binlog writer updates."""
    wanted = _check_start(request, binlog_state, slave_pos, server_id, slave_ignore_duplicates)
    for f in reversed(files):
        if f.gtid_list is not None and not _contains_all(wanted, f.gtid_list):
            continue
        for listed in f.gtid_list or ():
            w = wanted.get(listed.domain_id)
            if w is not None and w.gtid == listed:
                del wanted[listed.domain_id]  # it is the last before this file: skip nothing
        return DumpStart(f.name, StartFilter(wanted, binlog_state, slave_strict_mode))
    raise _refused(ER_GTID_DUMP_PURGED)
