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
