"""`semisync failover` and `semisync switchover`: observe the servers over SQL, plan, run the plan.

The decisions are `cli/failover_plan.py`'s (sans-IO); this module is its shell: it asks each
server what a DBA would (@@server_id, @@read_only, @@log_bin, @@gtid_binlog_pos,
@@gtid_current_pos, @@gtid_slave_pos, SHOW ALL SLAVES STATUS), runs the plan's statements one by
one, printing each, and prints the topology it finds afterwards. A `KickWriters` step kills
with `KILL CONNECTION` (1094, a connection already gone, is fine) and polls SHOW PROCESSLIST
until the killed connections are gone, within --wait-timeout. A `LiftDelay` step reads the
candidate's relay log position after its STOP SLAVE and names it in the CHANGE MASTER TO. Nothing is changed when the
planner refuses or with `--dry-run`. A failed step stops the run at once and says which servers
were already changed. A server that cannot be connected to counts as gone; one that answers a
query with an error stops the run before anything changes (a live master must never be taken for
a dead one). Exit status: 0 done (or nothing to do), 1 refused or failed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

import click

from cli.client import Client, ClientError
from cli.failover_plan import (
    Address,
    CatchUp,
    Credentials,
    KickWriters,
    LiftDelay,
    Plan,
    Refusal,
    Replica,
    Run,
    ServerState,
    Step,
    WaitApplied,
    kicked,
    plan_failover,
    plan_switchover,
    quote,
)
from protocol.errors import ProtocolError
from protocol.gtid import GtidPosition, parse_gtid_list

ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_NO_SUCH_THREAD = 1094  # KILL of a connection that already ended


class StepFailed(Exception):
    pass


class Session:
    """The connection settings shared by every server of one run."""

    def __init__(self, user: str, password: str, connect_timeout: float, wait_timeout: float) -> None:
        self.user, self.password = user, password
        self.connect_timeout, self.wait_timeout = connect_timeout, wait_timeout

    def connect(self, address: Address, *, waiting: bool = False) -> Client:
        timeout = self.wait_timeout + self.connect_timeout if waiting else self.connect_timeout
        return Client(address.host, address.port, self.user, self.password, timeout=timeout)


# -- observation --------------------------------------------------------------------------------
def _variable(client: Client, name: str, lacking: list[str]) -> str | None:
    try:
        _, rows = client.query(f"SELECT @@{name}")
    except ClientError as exc:
        if exc.code != ER_UNKNOWN_SYSTEM_VARIABLE:
            raise
        lacking.append(f"@@{name}")
        return None
    value = rows[0][0] if rows else None
    return None if value is None else str(value)


def _position(text: str | None) -> GtidPosition:
    return GtidPosition.parse(text.strip()) if text and text.strip() else GtidPosition()


def _flag(text: str | None) -> bool:
    return str(text).upper() in ("1", "ON", "YES")


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _replica(client: Client, lacking: list[str]) -> Replica | None:
    try:
        rows = client.rows_as_dicts("SHOW ALL SLAVES STATUS")
    except ClientError:
        lacking.append("SHOW ALL SLAVES STATUS")
        rows = client.rows_as_dicts("SHOW SLAVE STATUS")
    rows = [r for r in rows if not r.get("Connection_name")]
    if not rows:
        return None
    row = rows[0]
    for column in ("Gtid_IO_Pos", "Using_Gtid"):
        if column not in row:
            lacking.append(f"SHOW SLAVE STATUS column {column}")
    master_id = _int(row.get("Master_Server_Id"))
    return Replica(
        master=Address(str(row.get("Master_Host") or ""), _int(row.get("Master_Port"))),
        master_server_id=master_id or None,
        io_running=str(row.get("Slave_IO_Running") or "No"),
        sql_running=_flag(row.get("Slave_SQL_Running")),
        using_gtid=str(row.get("Using_Gtid") or "No"),
        io_pos=_position(row.get("Gtid_IO_Pos")),
        io_errno=_int(row.get("Last_IO_Errno")),
        io_error=str(row.get("Last_IO_Error") or ""),
        sql_errno=_int(row.get("Last_SQL_Errno")),
        sql_error=str(row.get("Last_SQL_Error") or ""),
        sql_delay=_int(row.get("SQL_Delay")),
    )


def observe(session: Session, address: Address) -> tuple[ServerState, list[str]]:
    """The server's state, and the variables/statements/columns it lacks."""
    lacking: list[str] = []
    try:
        client = session.connect(address)
    except ClientError as exc:
        return ServerState(address, reachable=False, unreachable_reason=str(exc)), lacking
    try:
        with client:
            state = ServerState(
                address,
                reachable=True,
                server_id=_int(_variable(client, "server_id", lacking)),
                read_only=_flag(_variable(client, "read_only", lacking)),
                log_bin=_flag(_variable(client, "log_bin", lacking) or "ON"),
                binlog_pos=_position(_variable(client, "gtid_binlog_pos", lacking)),
                binlog_state=parse_gtid_list((_variable(client, "gtid_binlog_state", lacking) or "").strip()),
                current_pos=_position(_variable(client, "gtid_current_pos", lacking)),
                slave_pos=_position(_variable(client, "gtid_slave_pos", lacking)),
                replica=_replica(client, lacking),
            )
    except ClientError as exc:
        if exc.code is None:  # the connection broke: the server is gone
            return ServerState(address, reachable=False, unreachable_reason=str(exc)), lacking
        # It answers, but not what is needed to decide: never take it for a dead server.
        raise click.ClickException(f"{address} answered with an error: {exc} (nothing was changed)") from None
    except ProtocolError as exc:
        raise click.ClickException(f"{address} answered a GTID value that cannot be read: {exc} "
                                   "(nothing was changed)") from None
    return state, lacking


def describe(state: ServerState) -> str:
    if not state.reachable:
        return f"{state.address}  unreachable ({state.unreachable_reason})"
    head = (f"{state.address}  server_id {state.server_id}  read_only "
            f"{'ON' if state.read_only else 'OFF'}  gtid_binlog_pos {state.binlog_pos or '-'}")
    r = state.replica
    if r is None:
        return f"{head}  master (replicates from nobody)"
    errors = "".join(f"  Last_{kind}_Errno {errno}" for kind, errno in
                     (("IO", r.io_errno), ("SQL", r.sql_errno)) if errno)
    return (f"{head}  replica of {r.master}  IO {r.io_running}  SQL "
            f"{'Yes' if r.sql_running else 'No'}  Using_Gtid {r.using_gtid}  Gtid_IO_Pos "
            f"{r.io_pos or '-'}  gtid_slave_pos {state.slave_pos or '-'}{errors}")


def observe_all(session: Session, addresses: Sequence[Address]) -> list[ServerState]:
    states = []
    for address in addresses:
        state, lacking = observe(session, address)
        states.append(state)
        if lacking:
            click.echo(f"warning: {address} lacks {', '.join(lacking)}", err=True)
    return states


# -- execution ----------------------------------------------------------------------------------
def _query_one(client: Client, sql: str) -> str | None:
    _, rows = client.query(sql)
    return None if not rows or rows[0][0] is None else str(rows[0][0])


def _wait_applied(session: Session, server: Address, position: GtidPosition) -> None:
    sql = f"SELECT MASTER_GTID_WAIT({quote(str(position))}, {session.wait_timeout:g})"
    click.echo(f"    {sql}")
    with session.connect(server, waiting=True) as client:
        answer = _query_one(client, sql)
    if answer != "0":
        raise StepFailed(f"{server} did not apply {position} within {session.wait_timeout:g} s "
                         f"(MASTER_GTID_WAIT answered {answer})")


def _lift_delay(session: Session, server: Address) -> None:
    """`LiftDelay`: the relay log position is read once the SQL thread stopped, so the SQL
    thread goes on from exactly where it stopped (an older position would apply twice)."""
    with session.connect(server) as client:
        click.echo("    STOP SLAVE")
        client.query("STOP SLAVE")
        rows = client.rows_as_dicts("SHOW SLAVE STATUS")
        if not rows or not rows[0].get("Relay_Log_File"):
            raise StepFailed(f"{server} shows no relay log position (SHOW SLAVE STATUS)")
        relay_file, relay_pos = str(rows[0]["Relay_Log_File"]), _int(rows[0].get("Relay_Log_Pos"))
        for sql in (f"CHANGE MASTER TO MASTER_DELAY = 0, RELAY_LOG_FILE = {quote(relay_file)}, "
                    f"RELAY_LOG_POS = {relay_pos}", "START SLAVE SQL_THREAD"):
            click.echo(f"    {sql}")
            client.query(sql)


def _processlist(client: Client) -> list[tuple[int, str, str]]:
    return [(_int(r.get("Id")), str(r.get("User") or ""), str(r.get("Command") or ""))
            for r in client.rows_as_dicts("SHOW PROCESSLIST")]


def _kick_writers(session: Session, server: Address) -> None:
    """KILL CONNECTION every client connection (`kicked`), then wait until SHOW PROCESSLIST
    lists none of them: one inside its commit ends once that commit is done."""
    with session.connect(server) as client:
        own_id = _int(_query_one(client, "SELECT CONNECTION_ID()"))
        ids = kicked(_processlist(client), own_id)
        for cid in ids:
            click.echo(f"    KILL CONNECTION {cid}")
            try:
                client.query(f"KILL CONNECTION {cid}")
            except ClientError as exc:
                if exc.code != ER_NO_SUCH_THREAD:
                    raise
        deadline = time.monotonic() + session.wait_timeout
        while ids:
            ids = sorted(set(ids) & {cid for cid, _, _ in _processlist(client)})
            if not ids:
                break
            if time.monotonic() > deadline:
                raise StepFailed(f"connections {', '.join(map(str, ids))} of {server} were still there "
                                 f"{session.wait_timeout:g} s after KILL CONNECTION")
            time.sleep(0.1)
    click.echo(f"    SHOW PROCESSLIST: no client connection left but this one ({own_id})")


def _binlog_pos(session: Session, server: Address) -> GtidPosition:
    with session.connect(server) as client:
        return _position(_query_one(client, "SELECT @@gtid_binlog_pos"))


def _catch_up(session: Session, step: CatchUp) -> None:
    position = _binlog_pos(session, step.source)
    click.echo(f"    {step.source}: SELECT @@gtid_binlog_pos -> {position or 'empty'}")
    if position:
        _wait_applied(session, step.server, position)
    after = _binlog_pos(session, step.source)
    if after != position:
        raise StepFailed(f"{step.source} wrote past read_only while {step.server} caught up "
                         f"(@@gtid_binlog_pos {position or 'empty'} became {after}): a client with "
                         "READ_ONLY ADMIN connected again")


def run_step(session: Session, step: Step) -> None:
    if isinstance(step, Run):
        with session.connect(step.server) as client:
            for sql, shown in zip(step.statements, step.shown, strict=True):
                click.echo(f"    {shown}")
                client.query(sql)
    elif isinstance(step, LiftDelay):
        _lift_delay(session, step.server)
    elif isinstance(step, WaitApplied):
        _wait_applied(session, step.server, step.position)
    elif isinstance(step, CatchUp):
        _catch_up(session, step)
    elif isinstance(step, KickWriters):
        _kick_writers(session, step.server)


def print_plan(plan: Plan) -> None:
    for n, step in enumerate(plan.steps, 1):
        click.echo(f"[{n}/{len(plan.steps)}] {step.server}: {step.why}")
        if isinstance(step, Run):
            for shown in step.shown:
                click.echo(f"    {shown}")
        elif isinstance(step, LiftDelay):
            click.echo("    STOP SLAVE; CHANGE MASTER TO MASTER_DELAY = 0, RELAY_LOG_FILE = <its Relay_Log_File>, "
                       "RELAY_LOG_POS = <its Relay_Log_Pos>; START SLAVE SQL_THREAD")
        elif isinstance(step, WaitApplied):
            click.echo(f"    SELECT MASTER_GTID_WAIT('{step.position}', timeout)")
        elif isinstance(step, KickWriters):
            click.echo("    KILL CONNECTION of every client connection in SHOW PROCESSLIST (not this one, "
                       "not Binlog Dump), then wait until they are gone")
        else:
            click.echo(f"    SELECT @@gtid_binlog_pos on {step.source}, then MASTER_GTID_WAIT(it, timeout), "
                       "then @@gtid_binlog_pos again: unchanged")


def execute(session: Session, plan: Plan) -> None:
    done: list[str] = []
    for n, step in enumerate(plan.steps, 1):
        click.echo(f"[{n}/{len(plan.steps)}] {step.server}: {step.why}")
        try:
            run_step(session, step)
        except (ClientError, StepFailed) as exc:
            changed = ", ".join(done) or "none"
            failure = f"step {n} failed on {step.server}: {exc} (steps done before it: {changed})"
            if n <= plan.undo_before:
                failure += "; " + undo(session, plan)
            raise StepFailed(failure) from None
        done.append(f"{n} ({step.server}: {step.why})")


def undo(session: Session, plan: Plan) -> str:
    """Put back what the steps before the promotion changed; say how that went."""
    for step in plan.undo:
        click.echo(f"[undo] {step.server}: {step.why}")
        try:
            run_step(session, step)
        except ClientError as exc:
            return f"undoing failed on {step.server}: {exc}: run {'; '.join(step.shown)} there by hand"
    return "undone: " + ", ".join(f"{s.server}: {s.why}" for s in plan.undo)


def settle(session: Session, addresses: Sequence[Address], master: Address) -> list[ServerState]:
    """The servers once every reachable replica of `master` connected (or the wait ran out)."""
    deadline = time.monotonic() + session.wait_timeout
    while True:
        states = [observe(session, a)[0] for a in addresses]
        pending = [s for s in states if s.reachable and s.replica is not None
                   and s.replica.master == master and s.replica.io_running != "Yes"
                   and not s.replica.io_errno]
        if not pending or time.monotonic() > deadline:
            return states
        time.sleep(0.2)


def _parse_servers(text: str) -> list[Address]:
    try:
        addresses = [Address.parse(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--servers") from None
    if not addresses:
        raise click.BadParameter("no server given", param_hint="--servers")
    if len(set(addresses)) != len(addresses):
        raise click.BadParameter("a server is listed twice", param_hint="--servers")
    return addresses


def carry_out(command: str, session: Session, addresses: Sequence[Address],
              outcome: Plan | Refusal, dry_run: bool) -> None:
    if isinstance(outcome, Refusal):
        click.echo(f"semisync {command}: refused: {outcome.reason}", err=True)
        click.echo("no server was changed", err=True)
        sys.exit(1)
    for note in outcome.notes:
        click.echo(f"note: {note}")
    if outcome.nothing_to_do:
        click.echo(f"nothing to do: {outcome.new_master} is the master")
        return
    if dry_run:
        click.echo("plan (dry run: nothing is changed):")
        print_plan(outcome)
        return
    try:
        execute(session, outcome)
    except StepFailed as exc:
        click.echo(f"semisync {command}: {exc}", err=True)
        sys.exit(1)
    click.echo("new topology:")
    for state in settle(session, addresses, outcome.new_master):
        click.echo(f"  {describe(state)}")


def _common(f):
    options = [
        click.option("--servers", required=True, help="HOST:PORT,HOST:PORT,... every server of the topology"),
        click.option("--user", default="root", show_default=True, help="account with SUPER on every server"),
        click.option("--password", default="", help="its password"),
        click.option("--replication-user", default=None, help="MASTER_USER for CHANGE MASTER TO (default: --user)"),
        click.option("--replication-password", default=None, help="MASTER_PASSWORD (default: --password)"),
        click.option("--wait-timeout", default=60.0, show_default=True, type=float,
                     help="seconds to wait for a relay log to be applied"),
        click.option("--connect-timeout", default=5.0, show_default=True, type=float),
        click.option("--dry-run", is_flag=True, help="print the plan, change nothing"),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _setup(servers: str, user: str, password: str, replication_user: str | None,
           replication_password: str | None, wait_timeout: float, connect_timeout: float):
    addresses = _parse_servers(servers)
    session = Session(user, password, connect_timeout, wait_timeout)
    creds = Credentials(replication_user if replication_user is not None else user,
                        replication_password if replication_password is not None else password)
    click.echo("observed:")
    states = observe_all(session, addresses)
    for state in states:
        click.echo(f"  {describe(state)}")
    return addresses, session, creds, states


@click.command("failover")
@_common
def failover(servers: str, user: str, password: str, replication_user: str | None,
             replication_password: str | None, wait_timeout: float, connect_timeout: float,
             dry_run: bool) -> None:
    """The master is gone: promote the most advanced replica, repoint the others by GTID.

    The candidate applies everything it received first; a delayed one (MASTER_DELAY) has its
    delay lifted for that (CHANGE MASTER TO MASTER_DELAY = 0 at its relay log position)."""
    addresses, session, creds, states = _setup(servers, user, password, replication_user,
                                               replication_password, wait_timeout, connect_timeout)
    named = sorted({s.replica.master for s in states if s.replica is not None} - set(addresses))
    named_states = [observe(session, a)[0] for a in named if a.host and a.port]
    carry_out("failover", session, addresses, plan_failover(states, creds, named_states), dry_run)


@click.command("switchover")
@_common
@click.option("--new-master", required=True, help="HOST:PORT of the replica to promote")
def switchover(servers: str, user: str, password: str, replication_user: str | None,
               replication_password: str | None, wait_timeout: float, connect_timeout: float,
               dry_run: bool, new_master: str) -> None:
    """Everything alive: move the master role to --new-master, the old master becomes its replica."""
    try:
        target = Address.parse(new_master)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--new-master") from None
    addresses, session, creds, states = _setup(servers, user, password, replication_user,
                                               replication_password, wait_timeout, connect_timeout)
    carry_out("switchover", session, addresses, plan_switchover(states, target, creds), dry_run)
