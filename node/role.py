"""`NodeRole`: one server holding both replication roles at once (server/role.py is the seam).

Contract
- Every server is a source and a replica (../shared/INTERFACE.md, "Roles, GTIDs and
  failover"): the source side (`master.role.MasterRole`: group commit, binlog, dump sessions,
  ack receiver) and the replica side (`slave.role.SlaveRole`: IO task, relay log, applier) are
  attached to the same server and live as long as it does. Which of them is in use is a matter
  of configuration at run time (CHANGE MASTER TO / START SLAVE, a replica connecting), never of
  which command started the server.
- Statements go to the side that claims their keyword. Where both sides know a statement the
  split is fixed here: SHOW SLAVE HOSTS / SHOW REPLICAS, SHOW MASTER STATUS, SHOW BINARY LOGS,
  SHOW BINLOG EVENTS, FLUSH BINARY LOGS, PURGE, RESET MASTER, ROLLBACK and BINLOG_GTID_POS are
  the source's; SHOW SLAVE STATUS, CHANGE MASTER TO, START/STOP/RESET SLAVE and MASTER_POS_WAIT
  the replica's.
- Commits of client sessions (and their CREATE USER, GRANT ... statements) go through the
  source's group commit, so whatever a client writes on any server is in that server's binlog.
  A user statement the applier replays (`Server.apply_user_statement`, no client session) is
  not binlogged here: what the replica side replicates reaches this binlog through the
  applier's own commit path (log_slave_updates), with the origin's server_id.
  Commands (COM_REGISTER_SLAVE, COM_BINLOG_DUMP) are the source's.
- `read_only` is the server's global read_only (SET GLOBAL read_only, @@read_only, the
  `--read-only` preset: OFF on a master, ON on a slave): while ON the shell refuses client
  writes with 1290 (every user, SUPER included, as our slaves always did); the applier is never
  refused (it does not pass through the client path). `log_slave_updates` is shown as
  @@log_slave_updates (not dynamic, as in mysqld), `init_rpl_role` (the role recovery prepared
  the server for at start, MASTER or SLAVE) as the read-only @@init_rpl_role (MariaDB 10.11 has
  the option only: its @@init_rpl_role is 1193).
- System and status variables are both sides' (their names do not overlap), and
  `gtid_current_pos`, which needs both (the source's binlog state, the replica's
  gtid_slave_pos).
- Life cycle: start the source side (ack receiver), then the replica side (its replication
  state); shutdown in the other order: the applier stops committing before the group commit
  drains.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from master.role import MasterRole
from protocol.gtid import GtidPosition, current_pos
from server.role import Role
from server.session import ClientSession
from server.sql import Tokens
from server.variables import SystemVariable
from slave.role import SlaveRole

if TYPE_CHECKING:
    from server.listener import Server

# Keywords both sides claim, decided by the statement's next word.
_SHOW_SLAVE = frozenset({"SHOW SLAVE", "SHOW REPLICA"})


class NodeRole(Role):
    name = "node"

    def __init__(self, source: MasterRole, replica: SlaveRole, *, read_only: bool, log_slave_updates: bool,
                 init_rpl_role: str = "MASTER") -> None:
        self.source = source
        self.replica = replica
        self.read_only = read_only
        self.log_slave_updates = log_slave_updates
        self.init_rpl_role = init_rpl_role
        self.CLAIMS = source.CLAIMS | replica.CLAIMS
        # a dump by GTID may start after what this server applied without logging it
        source.slave_pos = replica.gtid_slave_pos

    def attach(self, server: Server) -> None:
        super().attach(server)
        self.source.attach(server)
        self.replica.attach(server)

    # -- variables ----------------------------------------------------------------------------

    def system_variables(self) -> Iterable[SystemVariable]:
        return (
            *self.source.system_variables(),
            *self.replica.system_variables(),
            SystemVariable("log_slave_updates", self.log_slave_updates),
            SystemVariable("init_rpl_role", self.init_rpl_role),
            SystemVariable("gtid_current_pos", "", getter=lambda: str(self.gtid_current_pos())),
        )

    def gtid_current_pos(self) -> GtidPosition:
        """`@@gtid_current_pos`: the replica's applied GTIDs, or per domain the binlog's most
        recent one when this server logged it itself (protocol.gtid.current_pos)."""
        return current_pos(self.source.gtid_binlog_state(), self.replica.gtid_slave_pos(), self.source.server_id)

    def status_variables(self) -> Mapping[str, Any]:
        return {**self.source.status_variables(), **self.replica.status_variables()}

    # -- replication threads and tables -------------------------------------------------------

    def system_threads(self) -> list[tuple[int, str, float, str]]:
        return self.replica.system_threads()

    async def kill_thread(self, connection_id: int) -> bool:
        return await self.replica.kill_thread(connection_id)

    def semisync_slaves(self) -> list[tuple]:
        return self.source.semisync_slaves()

    # -- statements ---------------------------------------------------------------------------

    def side(self, sql: str, keyword: str) -> Role:
        """The side that executes a claimed statement."""
        if keyword in _SHOW_SLAVE:
            t = Tokens(sql)
            t.next()
            t.next()
            return self.source if t.accept_word("HOSTS") else self.replica
        return self.source if self.source.claims(keyword) else self.replica

    async def execute(self, session: ClientSession, sql: str, keyword: str) -> Any:
        return await self.side(sql, keyword).execute(session, sql, keyword)

    def commit(self, session: ClientSession, txn: Any) -> Awaitable[None]:
        return self.source.commit(session, txn)

    @property
    def commits_now(self) -> bool:  # type: ignore[override]
        return self.source.commits_now

    def commit_now(self, session: ClientSession, txn: Any) -> Awaitable[None]:
        return self.source.commit_now(session, txn)

    async def after_user_change(self, session: ClientSession, statement: str) -> None:
        if isinstance(session, ClientSession):  # not a statement the applier replays
            await session.committing(self.source.after_user_change(session, statement))

    async def handle_command(self, session: ClientSession, cmd: Any) -> bool:
        return await self.source.handle_command(session, cmd)

    # -- life cycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        await self.source.start()
        await self.replica.start()

    async def shutdown(self, deadline: float) -> None:
        await self.replica.shutdown(deadline)
        await self.source.shutdown(deadline)
