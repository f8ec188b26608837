"""The dump tools a DBA points at a master and its slaves, against ours and a stock MariaDB 10.11:
mydumper / myloader (Debian's 0.10.1) both ways, the coordinates its metadata file records on a
master and on a slave, and `mariadb-dump`'s `--gtid --master-data=1`, `--dump-slave`,
`--all-databases --routines --events --triggers` and `--tab` (a new slave of ours and a new
MariaDB replica seeded from a `--master-data=1` dump under load: test_mariadb_dump.py).

It found: a view dumped from ours could not be loaded into another database (myloader -B: 1050,
SHOW CREATE VIEW named the view with its database whatever the session's); mydumper's metadata
of our slave recorded no GTID (it reads SHOW ALL SLAVES STATUS once SELECT
@@default_master_connection answers, which was 1193).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    mariadb_and_ours,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.slow,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available() or shutil.which("mariadb-dump") is None,
                       reason="needs Debian's mariadb-server and mariadb-client"),
]
needs_mydumper = pytest.mark.skipif(shutil.which("mydumper") is None or shutil.which("myloader") is None,
                                    reason="needs Debian's mydumper")

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), k INT, KEY kk (k))",
    "INSERT INTO d.t (v, k) VALUES ('a', 1), ('b''s', 2), (NULL, 3), ('tab\\there é€😀', 4)",
    "CREATE TABLE d.big (id INT PRIMARY KEY, s VARCHAR(50), x DECIMAL(10,2), dt DATETIME, bl BLOB)",
    "INSERT INTO d.big WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM q WHERE n < 700) "
    "SELECT n, CONCAT('s', n), n / 7, '2024-01-01 00:00:00' + INTERVAL n MINUTE, UNHEX(MD5(n)) FROM q",
    "CREATE VIEW vv AS SELECT id, v FROM t",  # (in d: the view reads the t of its own database)
]
ROWS = ("SELECT * FROM {db}.t ORDER BY id", "SELECT * FROM {db}.big ORDER BY id", "SELECT * FROM {db}.vv ORDER BY id")
# the account our views name as their DEFINER (the one that made them: root from anywhere), which
# a MariaDB the dump is loaded into needs (else 1449 reading them)
DEFINER = ["CREATE USER IF NOT EXISTS root@'%'", "GRANT ALL ON *.* TO root@'%' WITH GRANT OPTION"]


def _setup(server, statements=SETUP) -> None:
    for sql in statements:
        server.query(sql, "d" if sql.startswith("CREATE VIEW") else None)


def _rows(server, db: str) -> list[list[tuple]]:
    return [server.query(q.format(db=db)) for q in ROWS]


def _mydumper(port: int, out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["mydumper", "-h", "127.0.0.1", "-P", str(port), "-u", "root", "-o", str(out), *args],
                          capture_output=True, text=True, timeout=300)


def _myloader(port: int, source: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["myloader", "-h", "127.0.0.1", "-P", str(port), "-u", "root", "-d", str(source), *args],
                          capture_output=True, text=True, timeout=300)


def _myloaded(target, dump: Path, db: str) -> subprocess.CompletedProcess:
    """myloader of `dump` into `db` (-e: binlogged, which myloader's own default is not). Ours
    takes two threads. A stock MariaDB target takes one: InnoDB answers two threads' INSERTs
    into one table with deadlocks (1213) that myloader 0.10 does not retry, three loads in a row
    under a loaded CI machine."""
    threads = "1" if isinstance(target, MariaDBServer) else "2"
    return _myloader(target.port, dump, "-B", db, "-t", threads, "-e")


def _replicated(*replicas) -> None:
    for server in replicas:
        wait_for(lambda s=server: rows_or_none(s, "SELECT COUNT(*) FROM d.big") == [(700,)], 60,
                 message=lambda s=server: f"{s} to replicate the tables")


def _metadata(out: Path) -> dict[str, dict[str, str]]:
    """mydumper's metadata file as {section: {key: value}} (SHOW MASTER STATUS, SHOW SLAVE STATUS)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in (out / "metadata").read_text().splitlines():
        if line.startswith("SHOW "):
            current = sections.setdefault(line.rstrip(":"), {})
        elif line.startswith("\t") and current is not None:
            key, _, value = line.strip().partition(":")
            current[key] = value.strip()
    return sections


@needs_mydumper
def test_mydumper_of_ours_loads_into_mariadb_and_ours_and_mariadbs_into_ours(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours), \
            MariaDBServer(tmp_path / "replica", server_id=2, extra=OUR_SERVER_CHARSET) as replica:
        ours.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
        ours.query(f"GRANT REPLICATION SLAVE ON *.* TO {REPL_USER}@'%'")
        attach(replica.port, ours.port)
        for server in (reference, ours):
            _setup(server, [*DEFINER, *SETUP])
        dumps = {}
        for name, server in (("ours", ours), ("mdb", reference)):
            dumps[name] = tmp_path / f"dump-{name}"
            done = _mydumper(server.port, dumps[name], "-B", "d", "-G", "-E", "-R", "-r", "200", "-t", "2")
            assert done.returncode == 0 and "CRITICAL" not in done.stderr, done.stderr
        # the metadata's coordinates are the master's own at the dump (no writes meanwhile)
        master = _metadata(dumps["ours"])["SHOW MASTER STATUS"]
        (file, position, *_), = ours.query("SHOW MASTER STATUS")
        assert master == {"Log": file, "Pos": str(position), "GTID": ours.query("SELECT @@gtid_binlog_pos")[0][0]}
        assert set(_metadata(dumps["mdb"])["SHOW MASTER STATUS"]) == set(master)
        assert sorted(p.name for p in dumps["ours"].iterdir()) == sorted(p.name for p in dumps["mdb"].iterdir())
        want = _rows(reference, "d")
        assert _rows(ours, "d") == want
        for target in (reference, ours):
            for name, dump in dumps.items():
                loaded = _myloaded(target, dump, f"from_{name}")
                assert loaded.returncode == 0 and "CRITICAL" not in loaded.stderr, (target, name, loaded.stderr)
                assert _rows(target, f"from_{name}") == want, (target, name)
                # the view reads the tables of the database it was loaded into
                target.query(f"INSERT INTO from_{name}.t (v) VALUES ('new')")
                assert target.query(f"SELECT COUNT(*) FROM from_{name}.vv") == [(5,)]
        # what myloader wrote into ours (on its binary connection: the blobs' bytes, the text's
        # UTF-8) reaches a MariaDB replica of ours alike
        for name in dumps:
            want = _rows(ours, f"from_{name}")
            wait_for(lambda n=name, want=want: [rows_or_none(replica, q.format(db=f"from_{n}")) for q in ROWS] == want,
                     60, message=lambda: f"the replica to hold what myloader loaded: {replica.query('SHOW SLAVE STATUS')}")


@needs_mydumper
def test_mydumpers_metadata_of_our_slave_is_a_mariadb_replicas(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_, ours, (replica, slave)):
        _setup(ours)
        _replicated(replica, slave)
        sections = []
        for server in (replica, slave):
            out = tmp_path / f"dump-{server.port}"
            done = _mydumper(server.port, out, "-B", "d")
            assert done.returncode == 0 and "CRITICAL" not in done.stderr, done.stderr
            sections.append(_metadata(out)["SHOW SLAVE STATUS"])
        (file, position, *_), = ours.query("SHOW MASTER STATUS")
        gtid = ours.query("SELECT @@gtid_binlog_pos")[0][0]
        # (the MariaDB replica's GTID is its @@gtid_current_pos, which its own start-up
        # transactions, binlogged under its server_id, move on; ours has none)
        assert {**sections[0], "GTID": gtid} == sections[1] == {
            "Connection name": "", "Host": "127.0.0.1", "Log": file, "Pos": str(position), "GTID": gtid}


def _dump(port: int, *args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(["mariadb-dump", "-h127.0.0.1", f"-P{port}", "-uroot", *args], capture_output=True,
                          encoding="utf-8", errors="surrogateescape", timeout=300, cwd=cwd)  # (blobs' bytes)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _load(port: int, text: str) -> None:
    done = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-uroot"], input=text, capture_output=True,
                          encoding="utf-8", errors="surrogateescape", timeout=300)
    assert done.returncode == 0, done.stderr


_REPLICATION_LINE = re.compile(r"^(-- )?(CHANGE MASTER|SET GLOBAL gtid_slave_pos|STOP ALL SLAVES|START ALL SLAVES)")


def test_mariadb_dump_gtid_master_data_and_dump_slave_write_the_coordinates_a_mariadb_replica_gets(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_, ours, (replica, slave)):
        _setup(ours)
        _replicated(replica, slave)
        (file, position, *_), = ours.query("SHOW MASTER STATUS")
        gtid = ours.query("SELECT @@gtid_binlog_pos")[0][0]
        dumped = _dump(ours.port, "--gtid", "--master-data=1", "--single-transaction", "--databases", "d")
        assert [line for line in dumped.splitlines() if _REPLICATION_LINE.match(line)] == [
            "CHANGE MASTER TO MASTER_USE_GTID=slave_pos;",
            f"-- CHANGE MASTER TO MASTER_LOG_FILE='{file}', MASTER_LOG_POS={position};",
            f"SET GLOBAL gtid_slave_pos='{gtid}';"]
        # --dump-slave: the master's coordinates the slave has applied, as from a MariaDB replica
        for args in (["--dump-slave=1"], ["--dump-slave=2", "--gtid", "--include-master-host-port",
                                          "--apply-slave-statements"]):
            theirs, mine = (_dump(server.port, *args, "--databases", "d") for server in (replica, slave))
            lines = [line for line in mine.splitlines() if _REPLICATION_LINE.match(line)]
            assert lines == [line for line in theirs.splitlines() if _REPLICATION_LINE.match(line)]
            assert f"MASTER_LOG_FILE='{file}', MASTER_LOG_POS={position};" in "\n".join(lines)
            assert slave.query("SHOW SLAVE STATUS")[0][10:12] == ("Yes", "Yes")  # running again


def test_mariadb_dump_of_all_databases_with_routines_events_triggers_and_tab_load_as_from_mariadb(tmp_path):
    files = {"mdb": tmp_path / "tab-mdb", "ours": tmp_path / "tab-ours"}
    for where in files.values():
        where.mkdir()
    with mariadb_and_ours(tmp_path, mariadb_extra=[*OUR_SERVER_CHARSET, f"--secure-file-priv={tmp_path}"]) as (
            reference, _):
        ours = Daemon("master", tmp_path / "ours-files", ["--server-id=1", f"--secure-file-priv={tmp_path}"]).start()
        try:
            for server in (reference, ours):
                _setup(server, [*DEFINER, *SETUP])
            dumped = _dump(ours.port, "--all-databases", "--routines", "--events", "--triggers")
            for target in (MariaDBServer(tmp_path / "fresh-mdb", extra=OUR_SERVER_CHARSET),
                           Daemon("master", tmp_path / "fresh-ours", ["--server-id=3"])):
                target.start()
                try:
                    _setup(target, DEFINER)
                    _load(target.port, dumped)
                    assert _rows(target, "d") == _rows(reference, "d")
                finally:
                    target.stop()
            for name, server in (("mdb", reference), ("ours", ours)):
                _dump(server.port, f"--tab={files[name]}", "d", "t", "big")
            for table in ("t", "big"):
                assert (files["ours"] / f"{table}.txt").read_bytes() == (files["mdb"] / f"{table}.txt").read_bytes()
                assert (files["ours"] / f"{table}.sql").exists()
        finally:
            ours.stop()
