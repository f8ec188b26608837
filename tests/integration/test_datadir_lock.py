"""A second server on a running server's datadir is refused, as a second mariadbd on a locked
datadir is: it exits at its start with a message naming the datadir, having written nothing,
and the running server goes on (its engine's files are its process's alone: `engine.connections`'
header)."""

from __future__ import annotations

import pytest

from tests.support.daemons import Daemon


def test_a_second_server_on_a_running_server_s_datadir_exits_naming_it(tmp_path):
    datadir = tmp_path / "master"
    first = Daemon("master", datadir, ["--server-id=1"]).start()
    second = Daemon("master", datadir, ["--server-id=2"])
    second.log = tmp_path / "second.log"
    try:
        first.query("CREATE DATABASE d")
        first.query("CREATE TABLE d.t (id INT PRIMARY KEY)")
        first.query("INSERT INTO d.t VALUES (1)")
        binlogs = first.query("SHOW BINARY LOGS")
        with pytest.raises(RuntimeError, match="did not start"):
            second.start(timeout=60)
        assert second.proc is not None and second.proc.wait(10) == 1
        log = second.log.read_text()
        assert f"the engine's files in {datadir / 'db'} are locked by another process" in log
        assert "is another server running on this datadir?" in log
        # the first server goes on, its binlog as it was
        assert first.query("SHOW BINARY LOGS") == binlogs
        first.query("INSERT INTO d.t VALUES (2)")
        assert first.query("SELECT id FROM d.t ORDER BY id") == [(1,), (2,)]
    finally:
        second.stop()
        first.stop()
