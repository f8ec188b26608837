"""Issue 13, item 6 without sockets: datadir modes, password files, the command line rewrite,
host blocking and failed-login delays (server/files.py, config/, cli/daemon_options.py,
server/connection_control.py)."""

from __future__ import annotations

import logging
import os
import stat
import sys

import pytest

from cli import daemon_options
from config.loader import ConfigError, load_master_config, load_slave_config
from server.connection_control import HOST_CACHE_SIZE, MAX_TRACKED_ACCOUNTS, ConnectionControl
from server.files import secure_datadir


@pytest.fixture
def restore_umask():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_secure_datadir_tightens_what_is_looser_and_new_files_are_private(tmp_path, caplog, restore_umask):
    caplog.set_level(logging.WARNING, logger="semisync.server")
    datadir = tmp_path / "master"
    (datadir / "db").mkdir(parents=True)
    os.chmod(datadir, 0o755)
    os.chmod(datadir / "db", 0o750)
    for name, m in (("users.json", 0o644), ("mysql-bin.000001", 0o640), ("db/app.sqlite", 0o604),
                    ("master.info", 0o600), ("already-strict", 0o400)):
        (datadir / name).write_text("x")
        os.chmod(datadir / name, m)
    outside = tmp_path / "outside"
    outside.write_text("not ours")
    os.chmod(outside, 0o644)
    (datadir / "link").symlink_to(outside)

    changed = secure_datadir(datadir)

    assert sorted(p.relative_to(datadir).as_posix() for p in changed) == [
        ".", "db", "db/app.sqlite", "mysql-bin.000001", "users.json"]
    assert mode(datadir) == mode(datadir / "db") == 0o700
    assert all(mode(datadir / n) == 0o600 for n in ("users.json", "mysql-bin.000001", "db/app.sqlite", "master.info"))
    assert mode(datadir / "already-strict") == 0o400
    assert mode(outside) == 0o644  # a symlink is never followed
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert f"{datadir / 'users.json'} had mode 0644" in warned and "changed to 0600" in warned
    # from now on every file and directory the process creates is private, whatever it asks for
    (datadir / "new.json").write_text("{}")
    fd = os.open(datadir / "relay-bin.000001", os.O_WRONLY | os.O_CREAT, 0o666)
    os.close(fd)
    (datadir / "newdir").mkdir()
    assert mode(datadir / "new.json") == mode(datadir / "relay-bin.000001") == 0o600
    assert mode(datadir / "newdir") == 0o700
    assert secure_datadir(tmp_path / "fresh") == [] and mode(tmp_path / "fresh") == 0o700


def test_passwords_from_files(tmp_path):
    secret = tmp_path / "root.pw"
    secret.write_text("s3cret pass\nsecond line ignored\n")
    assert load_master_config({"root_password_file": str(secret)}, None, {}).root_password == "s3cret pass"
    env = {"SEMISYNC_ROOT_PASSWORD_FILE": str(secret), "SEMISYNC_MASTER_PASSWORD_FILE": str(secret)}
    slave = load_slave_config({"server_id": "2"}, None, env)
    assert slave.root_password == slave.master_password == "s3cret pass"
    empty = tmp_path / "empty"
    empty.write_text("")
    assert load_master_config({"root_password_file": str(empty)}, None, {}).root_password == ""
    with pytest.raises(ConfigError, match="^semisync master: --root-password and --root-password-file are both set: keep one$"):
        load_master_config({"root_password_file": str(secret), "root_password": "x"}, None, {})
    with pytest.raises(ConfigError, match="^semisync slave: --master-password-file: cannot read .*nope: No such file"):
        load_slave_config({"server_id": "2", "master_password_file": str(tmp_path / "nope")}, None, {})


@pytest.mark.parametrize("argv, kept", [
    (["semisync", "master", "--root-password=pw1", "--port=1"], ["semisync", "master", "--port=1"]),
    (["py", "-m", "cli.main", "slave", "--root-password", "pw1", "--master_password=pw2", "--port=1"],
     ["py", "-m", "cli.main", "slave", "--port=1"]),
])
def test_command_line_passwords_move_to_the_environment(monkeypatch, argv, kept):
    calls = []
    monkeypatch.setattr(sys, "orig_argv", argv)
    monkeypatch.setattr(os, "execve", lambda path, args, env: calls.append((path, args, env)))
    passwords = {"root_password": "pw1"} | ({"master_password": "pw2"} if "slave" in argv else {})
    daemon_options.reexec_without(passwords)
    [(path, args, env)] = calls
    assert path == sys.executable and args == kept
    assert env["SEMISYNC_ROOT_PASSWORD"] == "pw1" and env.get("SEMISYNC_MASTER_PASSWORD") == passwords.get("master_password")
    assert not any("pw1" in a or "pw2" in a for a in args)


def test_no_reexec_when_the_passwords_are_not_on_this_process_command_line(monkeypatch):
    monkeypatch.setattr(sys, "orig_argv", ["pytest", "-q"])
    monkeypatch.setattr(os, "execve", lambda *a: pytest.fail("must not exec"))
    daemon_options.reexec_without({"root_password": "pw"})


def test_host_blocking_counts_handshake_errors_only():
    c = ConnectionControl()
    for _ in range(2):
        c.handshake_failed("10.0.0.7")
    c.login_failed("u", "10.0.0.7")  # a wrong password is not a handshake error
    assert not c.blocked("10.0.0.7", 3)
    c.login_succeeded("u", "10.0.0.7")  # a good login resets the host's count
    for _ in range(3):
        c.handshake_failed("10.0.0.7")
    assert c.blocked("10.0.0.7", 3) and not c.blocked("10.0.0.7", 4) and c.blocked_hosts(3) == ["10.0.0.7"]
    for _ in range(10):
        c.handshake_failed("127.0.0.1")
        c.handshake_failed("::1")
    assert not c.blocked("127.0.0.1", 1) and not c.blocked("::1", 1)  # MariaDB's is_ip_loopback
    assert c.flush_hosts() == 1 and not c.blocked("10.0.0.7", 3)
    for i in range(HOST_CACHE_SIZE + 1):
        c.handshake_failed(f"10.1.{i // 256}.{i % 256}")
    assert not c.blocked("10.1.0.0", 1) and c.blocked(f"10.1.{HOST_CACHE_SIZE // 256}.{HOST_CACHE_SIZE % 256}", 1)


def test_failed_login_delays_grow_per_account_and_reset_on_success():
    c = ConnectionControl()
    delay = lambda user="u", host="h": c.login_delay(user, host, 3, 1000, 2147483647)  # noqa: E731
    seen = []
    for _ in range(6):
        seen.append(delay())
        c.login_failed("u", "h")
    assert seen == [0, 0, 0, 1.0, 2.0, 3.0] and c.delays_generated == 3
    assert delay("u", "other host") == 0 and delay("v", "h") == 0  # per 'user'@'host'
    assert c.login_delay("u", "h", 3, 5000, 2147483647) == 5.0  # min_connection_delay
    assert c.login_delay("u", "h", 3, 1000, 2000) == 2.0  # max_connection_delay
    assert c.login_delay("u", "h", 0, 1000, 2000) == 0  # threshold 0: off
    c.login_succeeded("u", "h")
    assert delay() == 0
    for i in range(MAX_TRACKED_ACCOUNTS + 1):  # user names are the client's choice: bounded
        c.login_failed(f"user{i}", "h")
    assert len(c._failed_logins) == MAX_TRACKED_ACCOUNTS
    for _ in range(3):  # a huge user name costs no more than a real one
        c.login_failed("x" * 1_000_000, "h")
    assert c.login_delay("x" * 2_000_000, "h", 3, 1000, 2000) == 1.0
    assert max(len(user) for user, _ in c._failed_logins) == 128
