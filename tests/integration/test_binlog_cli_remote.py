"""`semisync binlog --remote HOST:PORT` against a MariaDB 10.11 and against our master: what it
reads over COM_BINLOG_DUMP prints exactly as `semisync binlog` prints the server's files (text,
--json, -v, --sql), across FLUSH BINARY LOGS rotations; from a given file; `--stop-never` follows
new commits and a rotation; a refused login and a file the server does not have are errors with a
non-zero exit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.daemons import ROOT, Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.net import free_port

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
WORKLOAD = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), f DOUBLE)",
    "INSERT INTO d.t VALUES (1, 'one', 1.5), (2, 'two', NULL)",
    "FLUSH BINARY LOGS",
    "UPDATE d.t SET v = 'uno' WHERE id = 1",
    "FLUSH BINARY LOGS",
    "DELETE FROM d.t WHERE id = 2",
    "INSERT INTO d.t VALUES (3, 'three', -0.25)",
]


class Peer:
    """A server with a binlog: its port and the binlog files in its datadir."""

    def __init__(self, port: int, datadir: Path, query) -> None:
        self.port, self.datadir, self.query = port, datadir, query

    def files(self) -> list[str]:
        return [str(row[0]) for row in self.query("SHOW BINARY LOGS")]


@pytest.fixture(scope="module", params=["mariadb", "ours"])
def peer(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"remote-{request.param}")
    if request.param == "mariadb":
        if not mariadb_available():
            pytest.skip("needs mariadb-server")
        server = MariaDBServer(base, binlog_format="ROW", extra=["--binlog-row-metadata=FULL"]).start()
        peer = Peer(server.port, server.datadir, server.query)
    else:
        server = Daemon("master", base / "master", []).start()
        peer = Peer(server.port, server.datadir, server.query)
    try:
        for sql in WORKLOAD:
            server.query(sql)
        yield peer
    finally:
        server.stop()


def run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SEMISYNC, "binlog", *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=ENV)


def settled(text: str) -> str:
    """Output without what a dump changes of the active file: the FORMAT_DESCRIPTION's
    LOG_EVENT_BINLOG_IN_USE_F (a dump sends it cleared, as MariaDB does)."""
    lines = []
    for line in text.splitlines():
        if "FORMAT_DESCRIPTION_EVENT" in line:
            line = line.replace("flags=0x0001", "flags=0x0000").replace('"flags":1,', '"flags":0,')
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize("fmt", [[], ["--json"], ["-v"], ["--json", "-v"], ["--sql"]], ids=["text", "json", "v", "json-v", "sql"])
def test_remote_prints_as_the_files_across_rotations(peer, fmt):
    names = peer.files()
    assert len(names) >= 3
    remote = run(["--remote", f"127.0.0.1:{peer.port}", *fmt])
    assert remote.returncode == 0, remote.stderr
    local = run([*fmt, *names], cwd=peer.datadir)  # relative names: --json's "file" is the name
    assert local.returncode == 0, local.stderr
    assert "DELETE FROM" in remote.stdout or "DELETE_ROWS" in remote.stdout or "Delete_rows" in remote.stdout
    assert settled(remote.stdout) == settled(local.stdout)
    if fmt == ["--json"]:
        assert {line.split('"file":"')[1].split('"')[0] for line in remote.stdout.splitlines()} == set(names)


def test_remote_from_a_given_file_and_position(peer):
    names = peer.files()
    remote = run(["--remote", f"127.0.0.1:{peer.port}", "--json", names[1]])
    assert remote.returncode == 0, remote.stderr
    local = run(["--json", *names[1:]], cwd=peer.datadir)
    assert settled(remote.stdout) == settled(local.stdout)
    assert f'"file":"{names[0]}"' not in remote.stdout
    # from the second event of the first file on: its FORMAT_DESCRIPTION first, as for files
    second = int(local.stdout.splitlines()[1].split('"pos":')[1].split(",")[0])
    remote = run(["--remote", f"127.0.0.1:{peer.port}", "--start-position", str(second), names[1]])
    assert remote.returncode == 0, remote.stderr
    local = run(["--start-position", str(second), *names[1:]], cwd=peer.datadir)
    assert "FORMAT_DESCRIPTION_EVENT" in remote.stdout.splitlines()[0]
    assert settled(remote.stdout) == settled(local.stdout)


def test_stop_never_follows_new_commits_and_a_rotation(peer, tmp_path):
    out = tmp_path / "out.txt"
    with open(out, "w") as stdout:
        proc = subprocess.Popen([*SEMISYNC, "binlog", "--remote", f"127.0.0.1:{peer.port}", "--stop-never"],
                                stdout=stdout, stderr=subprocess.STDOUT, env=ENV)
    try:
        wait_for(lambda: "three" in out.read_text() or "INSERT INTO d.t VALUES (3" in out.read_text()
                 or out.read_text().count("XID_EVENT") >= 3, 30, message=lambda: out.read_text()[-2000:])
        tag = f"follow_{int(time.time() * 1000)}"
        peer.query(f"CREATE TABLE d.{tag}_a (x INT)")
        wait_for(lambda: f"{tag}_a" in out.read_text(), 30, message=lambda: out.read_text()[-2000:])
        peer.query("FLUSH BINARY LOGS")
        peer.query(f"CREATE TABLE d.{tag}_b (x INT)")
        wait_for(lambda: f"{tag}_b" in out.read_text(), 30, message=lambda: out.read_text()[-2000:])
        assert proc.poll() is None  # still following
    finally:
        proc.kill()
        proc.wait()
    text = out.read_text()
    # the event after the rotation is at its offset in the new file, as the file prints it
    last = peer.files()[-1]
    local = run([last], cwd=peer.datadir).stdout
    line = next(ln for ln in text.splitlines() if f"{tag}_b" in ln)
    assert line in local.splitlines()


def test_refused_login_and_no_server_are_errors(peer):
    refused = run(["--remote", f"127.0.0.1:{peer.port}", "--user", "nobody", "--password", "x"])
    assert refused.returncode == 1
    assert re.search(r"ERROR 1045 \(28000\): Access denied for user 'nobody'", refused.stderr), refused.stderr
    nothing = run(["--remote", f"127.0.0.1:{free_port()}"])
    assert nothing.returncode == 1 and "cannot connect to 127.0.0.1:" in nothing.stderr
    missing = run(["--remote", f"127.0.0.1:{peer.port}", "nosuch-bin.000001"])
    assert missing.returncode == 1 and "ERROR 1236 (HY000)" in missing.stderr, missing.stderr
    usage = run(["--remote", f"127.0.0.1:{peer.port}", "--stop-position", "100"])
    assert usage.returncode == 2 and "--stop-position" in usage.stderr


@pytest.mark.skipif(not mariadb_available(), reason="needs mariadb-server")
def test_remote_without_checksums(tmp_path):
    """binlog_checksum=NONE: the dump asks for what the files have, and prints as they do."""
    with MariaDBServer(tmp_path / "m", binlog_format="ROW", binlog_checksum="NONE") as server:
        for sql in WORKLOAD:
            server.query(sql)
        names = [str(row[0]) for row in server.query("SHOW BINARY LOGS")]
        remote = run(["--remote", f"127.0.0.1:{server.port}", "-v"])
        assert remote.returncode == 0, remote.stderr
        local = run(["-v", *names], cwd=server.datadir)
    assert "checksum=false" in remote.stdout and "### DELETE FROM `d`.`t`" in remote.stdout
    assert settled(remote.stdout) == settled(local.stdout)
