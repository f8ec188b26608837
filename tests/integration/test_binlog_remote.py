"""`mariadb-binlog --read-from-remote-server` against our master reads what `mariadb-binlog`
reads from the files themselves: one file (it stops at the next file's artificial ROTATE),
`--to-last-log`, `--raw` (the files it writes equal ours byte for byte) and `--stop-never`
(killed once it printed the last event). mariadb-binlog sets `@master_binlog_checksum='NONE'`:
the first artificial ROTATE must come without a CRC32, or it prints nothing."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.support.daemons import Daemon, wait_for

pytestmark = pytest.mark.skipif(not shutil.which("mariadb-binlog"), reason="needs mariadb-binlog (mariadb-client)")

WORKLOAD = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))",
    "INSERT INTO d.t VALUES (1, 'one')",
    "FLUSH BINARY LOGS",
    "INSERT INTO d.t VALUES (2, 'two')",
    "UPDATE d.t SET v = 'uno' WHERE id = 1",
    "FLUSH BINARY LOGS",
    "DELETE FROM d.t WHERE id = 2",
]
# one line per event: "#261124 15:16:05 server id 1  end_log_pos 256 CRC32 0x... \tStart: ..."
EVENT_LINE = re.compile(r"^#\d{6} +\d+:\d\d:\d\d server id \d+  end_log_pos (\d+) .*$")


def binlog_tool(*args: str, cwd=None) -> str:
    out = subprocess.run(["mariadb-binlog", "--no-defaults", *args], capture_output=True, text=True,
                         timeout=60, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


def remote(master: Daemon) -> list[str]:
    return ["--read-from-remote-server", "--host=127.0.0.1", f"--port={master.port}", "--user=root"]


def event_lines(text: str) -> list[str]:
    """Each real event's description (artificial ROTATEs, end_log_pos 0, left out)."""
    return [line for line in text.splitlines() if (m := EVENT_LINE.match(line)) and m.group(1) != "0"]


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    daemon = Daemon("master", tmp_path_factory.mktemp("remote") / "master", []).start()
    try:
        for sql in WORKLOAD:
            daemon.query(sql)
        yield daemon
    finally:
        daemon.stop()


def files(master: Daemon) -> list[str]:
    return [row[0] for row in master.query("SHOW BINARY LOGS")]


def comparable(data: bytes) -> bytes:
    """A binlog file without what a dump changes (as MariaDB's): the FORMAT_DESCRIPTION's
    LOG_EVENT_BINLOG_IN_USE_F flag of the active file, and so the FD's CRC32."""
    fd_size = int.from_bytes(data[4 + 9 : 4 + 13], "little")
    fd = bytearray(data[4 : 4 + fd_size])
    fd[17] &= ~0x01
    return data[:4] + bytes(fd[:-4]) + data[4 + fd_size :]


def same_events(remote_text: str, local_text: str) -> bool:
    """The same text but for the active file's FORMAT_DESCRIPTION (its in-use flag)."""
    def drop_fd(text: str) -> list[str]:
        lines = text.splitlines()
        return [line for line in lines if "Start: binlog v 4" not in line and "in use or was not closed" not in line
                and not re.fullmatch(r"[A-Za-z0-9+/=]+", line)]
    return drop_fd(remote_text) == drop_fd(local_text)


def test_each_file_prints_as_the_local_file(master):
    names = files(master)
    assert len(names) == 3
    for name in names:
        remote_text = binlog_tool(*remote(master), name)
        local_text = binlog_tool(str(master.datadir / name))
        assert event_lines(remote_text), remote_text
        if name != names[-1]:
            assert remote_text == local_text, name
        else:  # the active file: its FD is sent without the in-use flag
            assert same_events(remote_text, local_text), name


def test_to_last_log_prints_every_event_of_every_file(master):
    names = files(master)
    remote_text = binlog_tool(*remote(master), "--to-last-log", names[0])
    local_text = binlog_tool(*(str(master.datadir / name) for name in names))
    assert [line.split(" CRC32")[0] for line in event_lines(remote_text)] == \
        [line.split(" CRC32")[0] for line in event_lines(local_text)]
    assert "DELETE FROM d.t WHERE id = 2" in remote_text


def test_raw_writes_files_equal_to_ours(master, tmp_path):
    names = files(master)
    binlog_tool(*remote(master), "--raw", "--to-last-log", names[0], cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    for name in names[:-1]:
        assert (tmp_path / name).read_bytes() == (master.datadir / name).read_bytes(), name
    last = names[-1]
    assert comparable((tmp_path / last).read_bytes()) == comparable((master.datadir / last).read_bytes())


@pytest.mark.parametrize("raw", [False, True], ids=["text", "raw"])
def test_stop_never_follows_new_commits(master, tmp_path, raw):
    out = tmp_path / "out.txt"
    names = files(master)
    args = ["mariadb-binlog", "--no-defaults", *remote(master), "--stop-never", names[0]]
    if raw:
        args[2:2] = ["--raw"]
    with open(out, "w") as stdout:
        proc = subprocess.Popen(args, stdout=stdout, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        master.query(f"INSERT INTO d.t VALUES ({10 + raw}, 'new')")
        last = files(master)[-1]
        if raw:
            def equal():
                got = tmp_path / last
                return got.exists() and comparable(got.read_bytes()) == comparable((master.datadir / last).read_bytes())
            wait_for(equal, 30, message=lambda: f"{last} written whole: {out.read_text()}")
        else:
            wait_for(lambda: "INSERT INTO d.t VALUES (10, 'new')" in out.read_text() and
                     out.read_text().rstrip().endswith("COMMIT/*!*/;"), 30,
                     message=lambda: f"the last event printed:\n{out.read_text()[-2000:]}")
        assert proc.poll() is None  # still following
    finally:
        proc.kill()
        proc.wait()
    if raw:
        for name in names[:-1]:
            assert (tmp_path / name).read_bytes() == (master.datadir / name).read_bytes(), name
    else:
        local_text = binlog_tool(*(str(master.datadir / name) for name in files(master)))
        assert [line.split(" CRC32")[0] for line in event_lines(out.read_text())] == \
            [line.split(" CRC32")[0] for line in event_lines(local_text)]
