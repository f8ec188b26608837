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
