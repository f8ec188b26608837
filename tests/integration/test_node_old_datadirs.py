"""Datadirs written by the two separate daemons (before `semisync master` and `semisync slave`
became presets of one server) keep working with the one server.

The old layouts are made honestly, by running the code of the last commit before the change
(`OLD_COMMIT`, taken from this repository's history with `git archive`): a master, and a slave
that replicated from it, then stopped with its SQL thread behind its IO thread (relay log events
not applied yet) while the master went on. The one server then starts both datadirs: the data is
there, and the old slave resumes from its saved position (applier and relay log) without
applying anything twice or skipping anything; it now keeps a binlog of its own.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.daemons import ROOT, Daemon, wait_for
from tests.support.slave_daemon import slave_status

pytestmark = [pytest.mark.slow]

# The last commit with separate master and slave daemons (master/main.py, slave/main.py).
OLD_COMMIT = "86839888ab980ad72e5c4aa0a4834222ef09444d"


def old_checkout(target: Path) -> Path:
    """The tree of OLD_COMMIT in `target` (a plain copy: no worktree to clean up)."""
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_COMMIT], capture_output=True)
    if archive.returncode != 0:  # a shallow clone: fetch the commit from where it was cloned
        subprocess.run(["git", "-C", str(ROOT), "fetch", "--quiet", "origin", OLD_COMMIT], capture_output=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_COMMIT], capture_output=True)
    if archive.returncode != 0:
        pytest.fail(f"commit {OLD_COMMIT} is not in this clone (a shallow clone?): "
                    f"{archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def rows(daemon: Daemon) -> list[int]:
    return sorted(k for (k,) in daemon.query("SELECT k FROM d.log"))


def test_old_master_and_slave_datadirs_start_with_the_one_server(tmp_path):
    old = old_checkout(tmp_path / "old")
    master_dir, slave_dir = tmp_path / "master", tmp_path / "slave"
    master = Daemon("master", master_dir, ["--server-id=1"], code=old).start()
    slave_args = ["--server-id=2", "--master-host=127.0.0.1", f"--master-port={master.port}",
                  "--master-user=repl", "--master-password=pw", "--master-connect-retry=0.5"]
    slave = Daemon("slave", slave_dir, slave_args, code=old)
    try:
        # --- today's layouts, written by the old code ---
        for sql in ("CREATE USER repl@'%' IDENTIFIED BY 'pw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
                    "CREATE DATABASE d", "CREATE TABLE d.log (k INT)"):  # no key: a repeat shows
            master.query(sql)
        for i in range(20):
            master.query(f"INSERT INTO d.log VALUES ({i})")
        slave.start()
        wait_for(lambda: rows(slave) == list(range(20)), message="the old slave has rows 0-19")
        slave.query("STOP SLAVE SQL_THREAD")
        for i in range(20, 30):  # received into the relay log, not applied
            master.query(f"INSERT INTO d.log VALUES ({i})")
        (file, pos, *_), = master.query("SHOW MASTER STATUS")
        wait_for(lambda: (lambda s: (s["Master_Log_File"], int(s["Read_Master_Log_Pos"])))(slave_status(slave.port))
                 == (file, pos), message="the old slave's IO thread has the master's end")
        assert rows(slave) == list(range(20))
        assert slave.stop() == 0
        for i in range(30, 40):  # the slave is down: in no relay log yet
            master.query(f"INSERT INTO d.log VALUES ({i})")
        assert master.stop() == 0
        assert not (slave_dir / "mysql-bin.index").exists()  # the old slave kept no binlog
        assert (slave_dir / "master.info").exists()

        # --- the same datadirs, the one server ---
        master = Daemon("master", master_dir, ["--server-id=1"], port=master.port).start()
        assert rows(master) == list(range(40))
        logs = [name for name, _size in master.query("SHOW BINARY LOGS")]
        assert logs == ["mysql-bin.000001", "mysql-bin.000002"]  # the old file and a new one
        for i in range(40, 50):
            master.query(f"INSERT INTO d.log VALUES ({i})")

        # The slave's binlog numbers the GTID-less transactions of its relay log (0-1-1 ...) before
        # the master, upgraded too, numbers its first own ones from 0-1-1: gtid_strict_mode would
        # stop the applier on them with 1950, as MariaDB's does after such an upgrade.
        slave = Daemon("slave", slave_dir, [*slave_args, "--gtid-strict-mode=OFF"], port=slave.port).start()
        wait_for(lambda: len(rows(slave)) >= 50, timeout=60, message=lambda: f"the slave catches up\n{slave.tail()}")
        assert rows(slave) == list(range(50))  # nothing twice, nothing skipped
        status = slave_status(slave.port)
        assert (status["Slave_IO_Running"], status["Slave_SQL_Running"], status["Last_SQL_Errno"]) == ("Yes", "Yes", "0")
        assert slave.query("SELECT @@read_only, @@log_bin") == [(1, 1)]
        (slave_file, _pos, *_), = slave.query("SHOW MASTER STATUS")  # its own binlog now
        assert slave_file.startswith("mysql-bin.") and (slave_dir / "mysql-bin.index").exists()

        # and it survives another restart at the position it stored
        assert slave.stop() == 0
        for i in range(50, 55):
            master.query(f"INSERT INTO d.log VALUES ({i})")
        slave.start()
        wait_for(lambda: len(rows(slave)) >= 55, timeout=60, message="the slave catches up again")
        assert rows(slave) == list(range(55))
    finally:
        slave.stop()
        master.stop()
