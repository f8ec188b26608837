"""The failover and switchover planner, sans-IO: observed servers in, a plan or a refusal out.

Contract (the order of MaxScale's mariadbmon and MariaDB's rpl_semi_sync_fail_over.test, read,
not copied):
- The input is what `cli/failover_cmd.py` observed over SQL, one `ServerState` per address of
  `--servers`; nothing here touches a socket or a clock, so every decision is unit-tested.
- Failover (the master is gone): every reachable server that replicates is a candidate unless
  it cannot take over safely (its applier stopped with an error, its relay log unreadable, no
  binlog, no GTID position). The candidate is the one that holds every other fit server's
  GTIDs, the most received (`Gtid_IO_Pos` merged with `@@gtid_current_pos`) first, then the
  most applied, then the first in `--servers` order. "Holds" compares, per domain and
  server_id, the highest seq_no in `@@gtid_binlog_state` and the applied and received
  positions (gtid_strict_mode: seq_nos only grow), so an errant transaction of another server
  is seen even under a higher seq_no. Every other reachable server's GTIDs must be held by the
  candidate; otherwise the whole plan is refused and no server changes state.
- A reachable server that replicates from nobody is the master: with every replica following
  it there is nothing to do (a second run, or a master that is alive), otherwise the replicas a
  first run left behind are repointed to it, and a former master that came back (replicating
  from nobody, followed by nobody) rejoins it by `current_pos` when it holds no GTID the master
  lacks (a crashed master restarted with --init-rpl-role SLAVE has cut its unacked tail). Without one, a failover refuses while the master
  its replicas name answers, or a replica's IO thread is still connected (the master is alive:
  that is a switchover).
- Switchover (everything alive): the candidate must replicate from the current master with both
  threads running, and no replica may hold a GTID the master lacks, except the master's own
  (its server_id): servers are observed one after the other while clients still write, so a
  replica can be ahead of what was read from the master a moment before (the catch-up waits on
  the position read after the writes stopped). The plan makes the master read-only, waits until
  the candidate applied the master's `@@gtid_binlog_pos` (read when the plan runs, after
  read_only is ON), promotes it, repoints the other replicas, and makes the old master a semi-sync replica of the new one by
  `current_pos`. When the wait fails, the old master gets its writes back and nothing else
  changed.
- read_only does not stop every writer: an account with READ_ONLY ADMIN (SUPER, ALL) writes
  past it (MariaDB 10.11, and our server). So once read_only is ON, and before the old master's
  `@@gtid_binlog_pos` is read, every client connection there is killed (`KickWriters`, as
  MaxScale's mariadbmon kicks out the users that bypass read_only) and the step waits until
  they are gone from SHOW PROCESSLIST. The rule is every connection but the step's own, the
  replication dumps (`Binlog Dump`, which the candidate and the other replicas still read
  from) and the server's own threads, not only those of privileged accounts: after read_only
  the others cannot write anyway, the switchover moves the clients to the new master, and a
  connection's account (a role, a proxy, a grant changed mid-run) is not worth judging. A
  connection inside its commit finishes that commit before it goes, so its GTID is in the
  position the catch-up reads. When they do not go within the wait timeout, the step fails
  and the old master gets its writes back. A client that connects anew after the kill could
  still write: the catch-up reads `@@gtid_binlog_pos` again once the candidate applied it and
  fails (undone as well) when it moved. A former master that came back and is rejoined
  (`read_only` ON first) has its clients kicked the same way before it starts replicating,
  so none of them writes an errant transaction into the replica it becomes.
- A delayed candidate (SQL_Delay, MASTER_DELAY): a failover must apply everything it received
  before promoting it, so when it has not, the delay is lifted first (`LiftDelay`: STOP SLAVE,
  then CHANGE MASTER TO MASTER_DELAY = 0 with RELAY_LOG_FILE / RELAY_LOG_POS at its SQL
  thread's position, which keeps a MariaDB replica's relay log, then START SLAVE SQL_THREAD),
  then the wait. A switchover keeps the delay (a planned move: the old master is alive and read
  only while the candidate catches up, up to --wait-timeout, undone past it); its plan notes it.
- Promotion is `STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF;
  SET GLOBAL rpl_semi_sync_master_enabled = ON; SET GLOBAL rpl_semi_sync_slave_enabled = OFF`;
  a repointed replica gets `STOP SLAVE; CHANGE MASTER TO ..., MASTER_USE_GTID = slave_pos;
  START SLAVE` (INTERFACE.md, "Roles, GTIDs and failover").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.gtid import Gtid, GtidPosition

# MariaDB's relay log errors: ER_SLAVE_RELAY_LOG_READ_FAILURE, ER_SLAVE_RELAY_LOG_WRITE_FAILURE
RELAY_LOG_ERRORS = frozenset({1594, 1595})


@dataclass(frozen=True, slots=True, order=True)
class Address:
    host: str
    port: int

    @classmethod
    def parse(cls, text: str, default_port: int = 3306) -> Address:
        host, sep, port = text.strip().rpartition(":")
        if not sep:
            host, port = port, str(default_port)
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{text!r} is not HOST:PORT")
        return cls(host, int(port))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Replica:
    """The server's default replication connection, from SHOW ALL SLAVES STATUS."""

    master: Address
    master_server_id: int | None = None
    io_running: str = "No"  # Yes / No / Connecting
    sql_running: bool = False
    using_gtid: str = "No"  # No / Slave_Pos / Current_Pos
    io_pos: GtidPosition = field(default_factory=GtidPosition)
    io_errno: int = 0
    io_error: str = ""
    sql_errno: int = 0
    sql_error: str = ""
    sql_delay: int = 0  # SQL_Delay (MASTER_DELAY)


@dataclass(frozen=True, slots=True)
class ServerState:
    address: Address
    reachable: bool
    unreachable_reason: str = ""
    server_id: int = 0
    read_only: bool = False
    log_bin: bool = True
    binlog_pos: GtidPosition = field(default_factory=GtidPosition)
    binlog_state: tuple[Gtid, ...] = ()  # @@gtid_binlog_state: the last GTID of each server_id
    current_pos: GtidPosition = field(default_factory=GtidPosition)
    slave_pos: GtidPosition = field(default_factory=GtidPosition)
    replica: Replica | None = None

    def known(self) -> GtidPosition:
        """Every GTID the server holds, received or applied: per domain the higher of
        `Gtid_IO_Pos` and `@@gtid_current_pos`."""
        out = self.current_pos
        for g in self.replica.io_pos if self.replica else ():
            have = out.get(g.domain_id)
            if have is None or g.seq_no > have.seq_no:
                out = out.with_gtid(g)
        return out

    def held(self) -> dict[tuple[int, int], int]:
        """(domain, server_id) -> the highest seq_no the server holds from that server_id: its
        binlog state, applied and received positions. Under gtid_strict_mode a domain's seq_nos
        only grow, so a GTID is held when its server_id's seq_no here is at least as high."""
        out: dict[tuple[int, int], int] = {}
        received = self.replica.io_pos if self.replica else GtidPosition()
        for g in (*self.binlog_state, *self.current_pos, *self.slave_pos, *received):
            key = (g.domain_id, g.server_id)
            out[key] = max(out.get(key, 0), g.seq_no)
        return out


@dataclass(frozen=True, slots=True)
class Credentials:
    user: str
    password: str


# -- steps --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Run:
    """Run these statements on `server`, in order; `shown` is what is printed (no password)."""

    server: Address
    why: str
    statements: tuple[str, ...]
    shown: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class WaitApplied:
    """`SELECT MASTER_GTID_WAIT(position, timeout)` on `server` must answer 0."""

    server: Address
    why: str
    position: GtidPosition


@dataclass(frozen=True, slots=True)
class LiftDelay:
    """`server` applies what it received without its MASTER_DELAY: `STOP SLAVE`, then its
    SQL thread's relay log position read from SHOW SLAVE STATUS, `CHANGE MASTER TO
    MASTER_DELAY = 0, RELAY_LOG_FILE = .., RELAY_LOG_POS = ..` at that position (without them
    MariaDB's CHANGE MASTER TO purges the relay log: what it received and had not applied
    would be lost), `START SLAVE SQL_THREAD` (the master is gone)."""

    server: Address
    why: str


@dataclass(frozen=True, slots=True)
class CatchUp:
    """Read `source`'s `@@gtid_binlog_pos` when this step runs (after it turned read-only and
    its writers were kicked), wait as `WaitApplied` until `server` applied it, then read it
    again: it must not have moved (nobody wrote there meanwhile)."""

    server: Address
    why: str
    source: Address


@dataclass(frozen=True, slots=True)
class KickWriters:
    """`KILL CONNECTION` every client connection of `server` (`kicked` of its SHOW PROCESSLIST,
    see the module's contract), then wait until they are gone."""

    server: Address
    why: str


Step = Run | LiftDelay | WaitApplied | CatchUp | KickWriters

# SHOW PROCESSLIST's Command of the connections a kick leaves alone: replication dumps and the
# server's own threads (MariaDB's replica threads, event scheduler, background daemons).
NOT_CLIENTS = frozenset({"binlog dump", "daemon", "slave_io", "slave_sql", "slave_worker"})


def kicked(processlist: Sequence[tuple[int, str, str]], own_id: int) -> list[int]:
    """The ids to kill among SHOW PROCESSLIST's (Id, User, Command) rows: every client
    connection but `own_id`."""
    return [cid for cid, user, command in processlist
            if cid != own_id and command.lower() not in NOT_CLIENTS and user != "system user"]


@dataclass(frozen=True, slots=True)
class Plan:
    """`steps` in order. When a step before `undo_before` fails, `undo` runs (the steps done so
    far changed nothing that cannot be put back: the old master turned read-only); from the
    promotion on nothing is undone (two writable masters would be worse than a stopped run)."""

    new_master: Address
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    undo: tuple[Run, ...] = ()
    undo_before: int = 0

    @property
    def nothing_to_do(self) -> bool:
        return not self.steps


@dataclass(frozen=True, slots=True)
class Refusal:
    reason: str


# -- SQL ----------------------------------------------------------------------------------------
def quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


PROMOTE = (
    "STOP SLAVE",
    "RESET SLAVE ALL",
    "SET GLOBAL read_only = OFF",
    "SET GLOBAL rpl_semi_sync_master_enabled = ON",
    "SET GLOBAL rpl_semi_sync_slave_enabled = OFF",
)


def _promote(server: Address) -> Run:
    return Run(server, "promote to master", PROMOTE, PROMOTE)


def _change_master(master: Address, creds: Credentials, use_gtid: str, password: str) -> str:
    return (
        f"CHANGE MASTER TO MASTER_HOST = {quote(master.host)}, MASTER_PORT = {master.port}, "
        f"MASTER_USER = {quote(creds.user)}, MASTER_PASSWORD = {quote(password)}, "
        f"MASTER_USE_GTID = {use_gtid}"
    )


def _replicate_from(server: Address, master: Address, creds: Credentials, *, use_gtid: str,
                    why: str, before: tuple[str, ...] = ("STOP SLAVE",),
                    after: tuple[str, ...] = ("START SLAVE",)) -> Run:
    def build(password: str) -> tuple[str, ...]:
        return (*before, _change_master(master, creds, use_gtid, password), *after)

    return Run(server, why, build(creds.password), build("****"))


# -- checks -------------------------------------------------------------------------------------
def missing_from(have: GtidPosition, other: GtidPosition) -> Gtid | None:
    """The first GTID of `other` that `have` does not hold: its domain absent, a lower seq_no,
    or the same seq_no logged by another server (diverged). None when `have` holds them all."""
    for g in other:
        mine = have.get(g.domain_id)
        if mine is None or mine.seq_no < g.seq_no or (mine.seq_no == g.seq_no and mine != g):
            return g
    return None


def lacking(holder: ServerState, other: ServerState) -> Gtid | None:
    """A GTID `other` holds (by server_id, see `ServerState.held`) that `holder` does not: an
    errant transaction of `other`, or `holder` behind it. None when `holder` has everything."""
    have = holder.held()
    for (domain, server_id), seq_no in sorted(other.held().items()):
        if have.get((domain, server_id), 0) < seq_no:
            return Gtid(domain, server_id, seq_no)
    return None


def unfit(server: ServerState) -> str | None:
    """Why a replica cannot take over safely, or None."""
    replica = server.replica
    assert replica is not None
    if replica.io_errno in RELAY_LOG_ERRORS or replica.sql_errno in RELAY_LOG_ERRORS:
        errno, error = (replica.io_errno, replica.io_error) if replica.io_errno in RELAY_LOG_ERRORS \
            else (replica.sql_errno, replica.sql_error)
        return f"its relay log is unreadable (error {errno}: {error})"
    if replica.sql_errno:
        return f"its applier stopped with error {replica.sql_errno}: {replica.sql_error}"
    if not replica.sql_running:
        return "its applier (Slave_SQL_Running) is not running"
    if not server.log_bin:
        return "it writes no binlog (log_bin OFF)"
    if replica.using_gtid.lower() == "no" and not server.known():
        return "it replicates by file and position and has no GTID position"
    return None


def _follows(server: ServerState, master: ServerState) -> bool:
    replica = server.replica
    if replica is None:
        return False
    return replica.master == master.address or (
        replica.master_server_id is not None and replica.master_server_id == master.server_id
        and replica.io_running == "Yes")


def _diverged(candidate: ServerState, others: Sequence[ServerState]) -> Refusal | None:
    for other in others:
        gtid = lacking(candidate, other)
        if gtid is not None:
            return Refusal(
                f"{other.address} has GTID {gtid} that the candidate {candidate.address} "
                f"lacks (diverged, or an errant transaction; the candidate holds "
                f"{candidate.known() or 'nothing'}): promoting would lose or diverge transactions")
    return None


def _unreachable_notes(servers: Sequence[ServerState]) -> tuple[str, ...]:
    return tuple(f"{s.address}: unreachable ({s.unreachable_reason}), left alone"
                 for s in servers if not s.reachable)


def _repoint(master: ServerState, others: Sequence[ServerState], creds: Credentials) -> list[Step]:
    """Every one of `others` not following `master` yet, by GTID (`slave_pos`)."""
    return [
        _replicate_from(s.address, master.address, creds, use_gtid="slave_pos",
                        why=f"replicate from {master.address} by GTID")
        for s in others if not (s.replica is not None and s.replica.master == master.address)
    ]


# -- failover -----------------------------------------------------------------------------------
def plan_failover(servers: Sequence[ServerState], creds: Credentials,
                  named_masters: Sequence[ServerState] = ()) -> Plan | Refusal:
    """The master is gone: promote the most advanced replica (see the module's contract).
    `named_masters`: the observed state of the masters the replicas name that are not in
    `servers`."""
    reachable = [s for s in servers if s.reachable]
    if not reachable:
        return Refusal("no server is reachable: " + "; ".join(
            f"{s.address}: {s.unreachable_reason}" for s in servers))
    notes = _unreachable_notes(servers)
    masters = [s for s in reachable if s.replica is None]
    replicas = [s for s in reachable if s.replica is not None]
    if masters:
        return _after_promotion(masters, replicas, creds, notes)

    named = {s.replica.master for s in replicas if s.replica is not None}
    by_address = {s.address: s for s in (*named_masters, *servers)}
    for address in sorted(named):
        state = by_address.get(address)
        if state is not None and state.reachable:
            return Refusal(f"the master {address} is alive: use `semisync switchover`")
    connected = [s for s in replicas if s.replica is not None and s.replica.io_running == "Yes"]
    if connected:
        return Refusal(f"{connected[0].address}'s IO thread is still connected to its master "
                       f"{connected[0].replica.master if connected[0].replica else '?'}: the master "
                       "is alive, use `semisync switchover`")

    fit, reasons = [], []
    for s in replicas:
        why = unfit(s)
        if why is None:
            fit.append(s)
        else:
            reasons.append(f"{s.address}: {why}")
    if not fit:
        return Refusal("no candidate is safe to promote: " + "; ".join(reasons))

    order = {s.address: i for i, s in enumerate(servers)}
    candidate = _most_advanced(fit, order)
    if isinstance(candidate, Refusal):
        return candidate
    others = [s for s in replicas if s is not candidate]
    diverged = _diverged(candidate, others)
    if diverged is not None:
        return diverged

    assert candidate.replica is not None
    steps: list[Step] = []
    received = candidate.replica.io_pos
    if received and not received_applied(candidate):
        if candidate.replica.sql_delay:
            steps.append(LiftDelay(candidate.address, f"lift its MASTER_DELAY ({candidate.replica.sql_delay} s): "
                                                      "apply what it received now"))
        steps.append(WaitApplied(candidate.address, "apply the relay log to its end", received))
    steps.append(_promote(candidate.address))
    steps.extend(_repoint(candidate, others, creds))
    notes += tuple(f"{s.address}: not a candidate: {why}" for s, why in
                   ((s, unfit(s)) for s in others) if why)
    for address in sorted(named):
        notes += (f"the old master {address}: rejoin it as a replica of {candidate.address} "
                  "(restart with --init-rpl-role SLAVE, then CHANGE MASTER TO ... "
                  "MASTER_USE_GTID = slave_pos)",)
    return Plan(candidate.address, tuple(steps), notes)


def received_applied(server: ServerState) -> bool:
    """Has the server applied everything it received?"""
    assert server.replica is not None
    return missing_from(server.slave_pos, server.replica.io_pos) is None


def _most_advanced(fit: Sequence[ServerState], order: dict[Address, int]) -> ServerState | Refusal:
    """The candidate whose GTIDs contain every other fit one's: most received, then most
    applied, then first in `--servers`."""
    def rank(s: ServerState) -> tuple[int, int, int]:
        received = s.known()
        return (sum(g.seq_no for g in received), sum(g.seq_no for g in s.slave_pos), -order[s.address])

    ranked = sorted(fit, key=rank, reverse=True)
    for candidate in ranked:
        if all(lacking(candidate, s) is None for s in fit):
            return candidate
    best = ranked[0]
    other, gtid = next((s, g) for s in fit if (g := lacking(best, s)) is not None)
    return Refusal(f"no candidate holds every other one's GTIDs (diverged, or an errant "
                   f"transaction): the most advanced, {best.address} ({best.known()}), lacks "
                   f"{gtid} that {other.address} has")


def _after_promotion(masters: Sequence[ServerState], replicas: Sequence[ServerState],
                     creds: Credentials, notes: tuple[str, ...]) -> Plan | Refusal:
    """A reachable server already replicates from nobody: a finished (or half-finished)
    failover, or a master that is alive. The master is the one the replicas follow (or, when
    none does, the one holding every other's GTIDs). The replicas left behind are repointed and
    a former master that came back is rejoined as a semi-sync replica by `current_pos`, each
    only when the master holds all its GTIDs; nothing to do when all follow it already."""
    followed = [m for m in masters if any(_follows(r, m) for r in replicas)]
    if not followed:
        followed = [m for m in masters if all(lacking(m, o) is None for o in masters)]
    if len(followed) != 1:
        return Refusal("several reachable servers replicate from nobody ("
                       + ", ".join(str(m.address) for m in masters)
                       + "): which one is the master is not clear")
    master = followed[0]
    behind = [r for r in replicas if not _follows(r, master)]
    for r in behind:
        gtid = lacking(master, r)
        if gtid is not None:
            return Refusal(f"{master.address} replicates from nobody (a master), but "
                           f"{r.address} has GTID {gtid} it lacks: repointing would diverge")
    notes = (f"{master.address} is the master (server_id {master.server_id}): a failover has "
             "nothing to promote (`semisync switchover` moves the role)", *notes)
    steps = _repoint(master, behind, creds)
    for stray in (m for m in masters if m is not master):
        gtid = lacking(master, stray)
        if gtid is None:
            steps += [_read_only(stray.address, "stop writes on the former master"),
                      KickWriters(stray.address, "end its client connections (read_only binds no SUPER)"),
                      _demote(stray.address, master.address, creds,
                              why=f"rejoin as a semi-sync replica of {master.address} by GTID")]
        else:
            notes += (f"{stray.address}: replicates from nobody and has GTID {gtid} that "
                      f"{master.address} lacks: not rejoined (a crashed master restarted with "
                      "--init-rpl-role SLAVE cuts its unacknowledged tail; then run again)",)
    return Plan(master.address, tuple(steps), notes)


def _demote(server: Address, master: Address, creds: Credentials, *, why: str) -> Run:
    """A former master as a semi-sync replica of `master`, from its own GTIDs (`current_pos`:
    its binlog's, as it wrote them itself)."""
    return _replicate_from(server, master, creds, use_gtid="current_pos", why=why,
                           before=("SET GLOBAL rpl_semi_sync_master_enabled = OFF",
                                   "SET GLOBAL rpl_semi_sync_slave_enabled = ON"))


def _read_only(server: Address, why: str) -> Run:
    return Run(server, why, ("SET GLOBAL read_only = ON",), ("SET GLOBAL read_only = ON",))


# -- switchover ---------------------------------------------------------------------------------
def plan_switchover(servers: Sequence[ServerState], new_master: Address,
                    creds: Credentials) -> Plan | Refusal:
    """Everything alive: move the master role to `new_master` (see the module's contract)."""
    by_address = {s.address: s for s in servers}
    candidate = by_address.get(new_master)
    if candidate is None:
        return Refusal(f"--new-master {new_master} is not one of --servers")
    if not candidate.reachable:
        return Refusal(f"--new-master {new_master} is unreachable: {candidate.unreachable_reason}")
    down = [s for s in servers if not s.reachable]
    if down:
        return Refusal(f"{down[0].address} is unreachable ({down[0].unreachable_reason}): a "
                       "switchover needs every server alive (use `semisync failover` when the "
                       "master is gone)")
    if candidate.replica is None:
        others_follow = [s for s in servers if s is not candidate and _follows(s, candidate)]
        if len(others_follow) == len(servers) - 1:
            return Plan(new_master, (), (f"{new_master} is the master already",))
        return Refusal(f"--new-master {new_master} replicates from nobody, but not every "
                       "server replicates from it")
    master = next((s for s in servers if s is not candidate and _follows(candidate, s)), None)
    if master is None:
        return Refusal(f"{new_master} replicates from {candidate.replica.master}, which is not "
                       "one of --servers")
    if master.replica is not None:
        return Refusal(f"{master.address} (the master of {new_master}) replicates from "
                       f"{master.replica.master} itself: only one master with its replicas is handled")
    if candidate.replica.io_running != "Yes":
        return Refusal(f"{new_master}'s IO thread is not connected to {master.address} "
                       f"(Slave_IO_Running {candidate.replica.io_running}"
                       + (f", error {candidate.replica.io_errno}: {candidate.replica.io_error})"
                          if candidate.replica.io_errno else ")"))
    why = unfit(candidate)
    if why is not None:
        return Refusal(f"{new_master} cannot take over: {why}")
    others = [s for s in servers if s is not candidate and s is not master]
    for s in (candidate, *others):
        gtid = lacking(master, s)
        if gtid is not None and gtid.server_id != master.server_id:
            return Refusal(f"{s.address} has GTID {gtid} that the master {master.address} "
                           "lacks (an errant transaction): fix it before a switchover")
    writable = ("SET GLOBAL read_only = OFF",)
    steps: list[Step] = [
        _read_only(master.address, "stop writes on the old master"),
        KickWriters(master.address, "end its client connections (read_only binds no SUPER)"),
        CatchUp(new_master, f"apply everything {master.address} logged", master.address),
        _promote(new_master),
        *_repoint(candidate, others, creds),
        _demote(master.address, new_master, creds,
                why=f"demote to a semi-sync replica of {new_master}"),
    ]
    notes = (f"the master {master.address} stays alive as a replica",)
    if candidate.replica.sql_delay:
        notes += (f"{new_master} applies with MASTER_DELAY {candidate.replica.sql_delay} s: the "
                  "catch-up waits for it, up to --wait-timeout (lift it first to switch over sooner)",)
    return Plan(new_master, tuple(steps), notes,
                undo=(Run(master.address, "give the old master its writes back", writable, writable),),
                undo_before=3)
