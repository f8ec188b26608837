"""`semisync failover|switchover` input checks and the refusal with nothing reachable, no servers."""

from __future__ import annotations

from click.testing import CliRunner

from cli.main import cli
from tests.support.net import free_port


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_bad_servers_are_usage_errors():
    for servers in ("h:x", "h:1,h:1", ","):
        result = invoke("failover", "--servers", servers)
        assert result.exit_code == 2, result.output
        assert "--servers" in result.output
    result = invoke("switchover", "--servers", "h:1", "--new-master", "h:")
    assert result.exit_code == 2 and "--new-master" in result.output


def test_nothing_reachable_is_refused():
    ports = (free_port(), free_port())
    servers = ",".join(f"127.0.0.1:{p}" for p in ports)
    result = invoke("failover", "--servers", servers, "--connect-timeout", "2")
    assert result.exit_code == 1
    assert "refused: no server is reachable" in result.output
    assert f"127.0.0.1:{ports[0]}: cannot connect" in result.output
    result = invoke("switchover", "--servers", servers, "--new-master", f"127.0.0.1:{ports[1]}")
    assert result.exit_code == 1 and "is unreachable" in result.output


def test_a_server_that_answers_with_an_error_is_never_taken_for_a_dead_one(monkeypatch):
    from cli import failover_cmd
    from cli.client import ClientError

    class Refusing:
        def __init__(self, *args, **kw):
            pass

        def query(self, sql):
            raise ClientError("ERROR 1227 (42000): Access denied", 1227)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr(failover_cmd, "Client", Refusing)
    result = invoke("failover", "--servers", "127.0.0.1:1")
    assert result.exit_code == 1
    assert "127.0.0.1:1 answered with an error: ERROR 1227" in result.output and "nothing was changed" in result.output


class Processlist:
    """A server's SHOW PROCESSLIST for `_kick_writers`: KILL CONNECTION removes a connection
    after `lingers` more listings (a commit in flight), never one in `stuck`; 1094 for ids gone."""

    def __init__(self, rows, *, lingers=2, stuck=()):
        self.rows, self.lingers, self.stuck = list(rows), lingers, set(stuck)
        self.dying: dict[int, int] = {}
        self.statements: list[str] = []

    def client(self, *args, **kw):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def query(self, sql):
        from cli.client import ClientError

        self.statements.append(sql)
        if sql == "SELECT CONNECTION_ID()":
            return ["CONNECTION_ID()"], [(4,)]
        if sql.startswith("KILL CONNECTION "):
            cid = int(sql.rsplit(" ", 1)[1])
            if cid not in {r[0] for r in self.rows}:
                raise ClientError(f"ERROR 1094 (HY000): Unknown thread id: {cid}", 1094)
            if cid not in self.stuck:
                self.dying[cid] = self.lingers
            return [], []
        if sql.startswith("SET GLOBAL read_only"):
            return [], []
        raise AssertionError(sql)

    def rows_as_dicts(self, sql):
        assert sql == "SHOW PROCESSLIST"
        for cid in list(self.dying):
            self.dying[cid] -= 1
            if self.dying[cid] < 0:
                del self.dying[cid]
                self.rows = [r for r in self.rows if r[0] != cid]
        return [{"Id": cid, "User": user, "Command": command} for cid, user, command in self.rows]


def test_a_kick_kills_every_client_and_waits_until_they_are_gone(monkeypatch):
    from cli import failover_cmd
    from cli.failover_plan import Address, KickWriters

    server = Processlist([(1, "root", "Query"), (3, "repl", "Binlog Dump"), (4, "root", "Query"),
                          (5, "app", "Sleep")])
    real = server.query

    def query(sql):  # connection 5 ends on its own between the listing and its KILL: 1094
        if sql == "KILL CONNECTION 5":
            server.rows = [r for r in server.rows if r[0] != 5]
        return real(sql)

    server.query = query
    monkeypatch.setattr(failover_cmd, "Client", server.client)
    failover_cmd.run_step(failover_cmd.Session("root", "", 1, 5), KickWriters(Address("h", 1), "kick"))
    assert [s for s in server.statements if s.startswith("KILL")] == ["KILL CONNECTION 1", "KILL CONNECTION 5"]
    assert {r[0] for r in server.rows} == {3, 4}  # the dump and the kick's own connection stay


def test_a_connection_that_does_not_go_fails_the_switchover_and_gives_the_writes_back(monkeypatch):
    import pytest

    from cli import failover_cmd
    from cli.failover_plan import Address, KickWriters, Plan, Run

    server = Processlist([(1, "root", "Query"), (4, "root", "Query")], stuck={1})
    monkeypatch.setattr(failover_cmd, "Client", server.client)
    m = Address("h", 1)
    writable = ("SET GLOBAL read_only = OFF",)
    plan = Plan(Address("h", 2), (Run(m, "ro", ("SET GLOBAL read_only = ON",), ("SET GLOBAL read_only = ON",)),
                                  KickWriters(m, "kick")),
                undo=(Run(m, "writes back", writable, writable),), undo_before=3)
    with pytest.raises(failover_cmd.StepFailed) as failed:
        failover_cmd.execute(failover_cmd.Session("root", "", 1, 0.3), plan)
    assert "connections 1 of h:1 were still there" in str(failed.value) and "undone" in str(failed.value)
    assert server.statements[-1] == "SET GLOBAL read_only = OFF"


def test_lifting_a_delay_names_the_relay_log_position_read_after_the_stop(monkeypatch):
    """Without RELAY_LOG_FILE / RELAY_LOG_POS, MariaDB's CHANGE MASTER TO purges the relay log
    (what the candidate received would be lost); the position is the one after STOP SLAVE."""
    from cli import failover_cmd
    from cli.failover_plan import Address, LiftDelay

    class Replica:
        def __init__(self):
            self.statements: list[str] = []
            self.relay = ("relay-bin.000002", 700)  # the SQL thread moves on until it stops

        def client(self, *args, **kw):
            return self

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def query(self, sql):
            self.statements.append(sql)
            if sql == "STOP SLAVE":
                self.relay = ("relay-bin.000002", 1238)
            return [], []

        def rows_as_dicts(self, sql):
            assert sql == "SHOW SLAVE STATUS"
            return [{"Relay_Log_File": self.relay[0], "Relay_Log_Pos": self.relay[1]}]

    server = Replica()
    monkeypatch.setattr(failover_cmd, "Client", server.client)
    failover_cmd.run_step(failover_cmd.Session("root", "", 1, 5), LiftDelay(Address("h", 1), "lift"))
    assert server.statements == [
        "STOP SLAVE",
        "CHANGE MASTER TO MASTER_DELAY = 0, RELAY_LOG_FILE = 'relay-bin.000002', RELAY_LOG_POS = 1238",
        "START SLAVE SQL_THREAD",
    ]
