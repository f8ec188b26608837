"""Point-in-time recovery with `semisync binlog --sql`: a MariaDB ROW binlog (binlog_row_metadata=
FULL) of DDL, inserts, updates and deletes on tables of many column types, replayed up to a moment
in the middle with `--sql --stop-datetime T | mariadb` into a fresh MariaDB, gives the same tables
as MariaDB's own `mariadb-binlog --stop-datetime T | mariadb`; and the whole binlog too. Without
column names (binlog_row_metadata=NO_LOG) inserts replay positionally and an UPDATE is refused
with a message naming the setting."""

from __future__ import annotations

import datetime
import shutil
import subprocess
import sys
import time

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = pytest.mark.skipif(
    not (mariadb_available() and shutil.which("mariadb") and shutil.which("mariadb-binlog")),
    reason="needs mariadb-server, the mariadb client and mariadb-binlog",
)
SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
DATABASES = ("pitr", "pitr2", "pitr3")

TABLES = """
CREATE TABLE pitr.types (
  id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mu MEDIUMINT UNSIGNED,
  i INT, bu BIGINT UNSIGNED, bs BIGINT, de DECIMAL(12,4), du DECIMAL(5,2) UNSIGNED, f FLOAT, d DOUBLE,
  vc VARCHAR(40) CHARACTER SET utf8mb4, ch CHAR(5) CHARACTER SET latin1, tx TEXT, bl BLOB, vb VARBINARY(10),
  dt DATE, dtm DATETIME(6), ts TIMESTAMP(3) NULL DEFAULT NULL, tm TIME(2), y YEAR, e ENUM('a','b','c'),
  st SET('x','y','z'), bt BIT(10))
;CREATE TABLE pitr.nopk (a INT, b VARCHAR(10))
;CREATE TABLE pitr2.parent (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB
;CREATE TABLE pitr2.child (id INT PRIMARY KEY, parent_id INT, v DOUBLE,
  FOREIGN KEY (parent_id) REFERENCES pitr2.parent (id) ON DELETE CASCADE) ENGINE=InnoDB
;CREATE TABLE pitr3.plain (id INT PRIMARY KEY, u BIGINT UNSIGNED, f FLOAT, d DOUBLE, de DECIMAL(10,3),
  dt DATETIME(6), da DATE, y YEAR, bt BIT(10), bl BLOB, vc VARCHAR(20) CHARACTER SET utf8mb4)
"""
# The part of the workload our own server stores and compares as MariaDB does (its engine's
# TIMESTAMP / TIME / ENUM / SET comparisons differ, and it stores utf8mb4 only, ignoring a
# `_latin1` introducer): replayed into our master too.
PLAIN = [
    "INSERT INTO pitr3.plain VALUES (1, 18446744073709551615, 1.1, 0.1, -12.5, '2024-01-02 03:04:05.678901', "
    "'2024-02-29', 1999, b'11', X'00FF', 'é ''q'' ;'), (2, 0, -3.25, 1e300, 0.001, NULL, NULL, 2155, NULL, NULL, NULL), "
    "(3, 7, 0, -0.5, 5, '2000-01-01 00:00:00', '2000-01-01', 2000, b'1', X'', '')",
    "UPDATE pitr3.plain SET vc = 'changed', f = f * 2 WHERE id = 1",
    "DELETE FROM pitr3.plain WHERE id = 3",
]
PLAIN_2 = ["UPDATE pitr3.plain SET d = d / 2 WHERE id = 2", "INSERT INTO pitr3.plain (id) VALUES (9)"]
ROW = ("INSERT INTO pitr.types (ti, tu, si, mu, i, bu, bs, de, du, f, d, vc, ch, tx, bl, vb, dt, dtm, ts, tm, y, e, st, bt) "
       "VALUES ({n}, 250, -300, 16000000, -{n}00000, 18446744073709551615, -9223372036854775808, -1234.5678, 999.99, "
       "1.1, -2.5e-300, 'hé ''{n}'' ;\\\\', 'ab', 'text {n}', X'00FF27225C0A{n:02X}', X'0001', '2024-02-29', "
       "'2024-03-01 12:34:56.123456', '2024-03-10 02:30:00.5', '-838:59:59', 2024, 'b', 'x,z', b'1010101010')")
PHASE_1 = [
    "CREATE DATABASE pitr", "CREATE DATABASE pitr2", "CREATE DATABASE pitr3", *TABLES.split("\n;"), *PLAIN,
    *(ROW.format(n=n) for n in range(1, 6)),
    "INSERT INTO pitr.types (id) VALUES (100)",  # every other column NULL
    "INSERT INTO pitr.nopk VALUES (1, 'dup'), (1, 'dup'), (2, 'two')",
    "INSERT INTO pitr2.parent VALUES (1, 'p1'), (2, 'p2')",
    "INSERT INTO pitr2.child VALUES (10, 1, 0.1), (11, 1, 1e20), (20, 2, -0.0)",
    "UPDATE pitr.types SET f = f * 3, vc = CONCAT(vc, 'ü'), tu = 7, ts = NULL WHERE id = 2",
    "UPDATE pitr.nopk SET b = 'one' WHERE a = 1 LIMIT 1",
    "DELETE FROM pitr.types WHERE id = 3",
    "ALTER TABLE pitr.types ADD COLUMN extra INT DEFAULT 5",
    "SET time_zone = '+05:00'",
    "UPDATE pitr.types SET dtm = NOW(), extra = 6 WHERE id = 4",
    "START TRANSACTION", "INSERT INTO pitr.nopk VALUES (3, 'tx')", "UPDATE pitr.nopk SET a = 30 WHERE a = 3", "COMMIT",
]
PHASE_2 = [
    "DELETE FROM pitr2.parent WHERE id = 1",  # the child rows go by ON DELETE CASCADE
    "UPDATE pitr.types SET bu = 1, e = 'c' WHERE id > 1",
    "DELETE FROM pitr.nopk WHERE a = 1 LIMIT 1",
    "DROP TABLE pitr.nopk",
    "INSERT INTO pitr.types (id, vc) VALUES (200, 'late')",
    *PLAIN_2,
]


def mariadb_client(server: MariaDBServer) -> list[str]:
    return ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{server.port}", "-uroot", "--binary-mode"]


def tables(server: MariaDBServer) -> dict[str, list[tuple]]:
    """Every table of the workload's databases: its rows in primary key (or full row) order."""
    out: dict[str, list[tuple]] = {}
    for db in DATABASES:
        for (name,) in server.query(f"SELECT table_name FROM information_schema.tables WHERE table_schema = '{db}'"):
            out[f"{db}.{name}"] = sorted(server.query(f"SELECT * FROM `{db}`.`{name}`"), key=repr)
    return out


def replay(target: MariaDBServer, producer: list[str]) -> dict[str, list[tuple]]:
    """Drop the workload's databases on `target`, pipe `producer`'s SQL into `mariadb`, read the tables."""
    target.execute_all([f"DROP DATABASE IF EXISTS {db}" for db in DATABASES])
    made = subprocess.run(producer, capture_output=True, timeout=120)
    assert made.returncode == 0, made.stderr.decode(errors="replace")
    loaded = subprocess.run(mariadb_client(target), input=made.stdout, capture_output=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr.decode(errors="replace")
    return tables(target)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    base = tmp_path_factory.mktemp("pitr")
    source = MariaDBServer(base / "source", binlog_format="ROW", extra=["--binlog-row-metadata=FULL"])
    target = MariaDBServer(base / "target", server_id=2, log_bin=None)
    try:
        source.start()
        target.start()
        conn, straddling = source.connect(), source.connect()
        try:
            with conn.cursor() as cur, straddling.cursor() as across:
                for sql in PHASE_1:
                    cur.execute(sql)
                # a transaction begun before the moment and committed after it (its GTID event has
                # the commit's time: it is after the stop, with its first statement)
                across.execute("START TRANSACTION")
                across.execute("INSERT INTO pitr3.plain (id, vc) VALUES (50, 'straddles')")
                # a moment strictly between the phases, on a second boundary (mariadb-binlog's
                # --stop-datetime has whole seconds)
                moment = datetime.datetime.fromtimestamp(int(time.time()) + 1)
                while time.time() < moment.timestamp() + 0.05:
                    time.sleep(0.05)
                across.execute("UPDATE pitr3.plain SET vc = 'straddled' WHERE id = 50")
                across.execute("COMMIT")
                for sql in PHASE_2:
                    cur.execute(sql)
        finally:
            conn.close()
            straddling.close()
        source.query("FLUSH BINARY LOGS")
        yield source, target, moment
    finally:
        source.stop()
        target.stop()


def test_stop_datetime_replay_equals_mariadb_binlogs(servers):
    source, target, moment = servers
    files = [str(p) for p in source.binlog_files()]
    stop = f"--stop-datetime={moment:%Y-%m-%d %H:%M:%S}"
    ours = replay(target, [*SEMISYNC, "binlog", "--sql", stop, *files])
    theirs = replay(target, ["mariadb-binlog", "--no-defaults", stop, *files])
    assert "pitr.nopk" in ours and len(ours["pitr.types"]) == 5, ours  # phase 1 only
    assert (50,) not in [row[:1] for row in ours["pitr3.plain"]]  # the straddling transaction is cut
    assert ours == theirs


def test_whole_binlog_replay_equals_mariadb_binlogs_and_the_source(servers):
    source, target, _ = servers
    files = [str(p) for p in source.binlog_files()]
    ours = replay(target, [*SEMISYNC, "binlog", "--sql", *files])
    theirs = replay(target, ["mariadb-binlog", "--no-defaults", *files])
    assert "pitr.nopk" not in ours and len(ours["pitr2.child"]) == 1, ours
    assert any(row[0] == 50 and row[-1] == "straddled" for row in ours["pitr3.plain"])
    assert ours == theirs == tables(source)


def test_up_to_the_moment_then_from_it_gives_the_source(servers):
    """--stop-datetime T, then --start-datetime T on top: the whole history, as the source has it."""
    source, target, moment = servers
    files = [str(p) for p in source.binlog_files()]
    at = f"{moment:%Y-%m-%d %H:%M:%S}"
    replay(target, [*SEMISYNC, "binlog", "--sql", f"--stop-datetime={at}", *files])
    rest = subprocess.run([*SEMISYNC, "binlog", "--sql", f"--start-datetime={at}", *files], capture_output=True, timeout=120)
    assert rest.returncode == 0 and b"DROP TABLE" in rest.stdout and b"CREATE DATABASE" not in rest.stdout
    loaded = subprocess.run(mariadb_client(target), input=rest.stdout, capture_output=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr.decode(errors="replace")
    assert tables(target) == tables(source)


def test_without_column_names_inserts_replay_and_an_update_is_refused(tmp_path):
    with MariaDBServer(tmp_path / "m", binlog_format="ROW") as server:
        server.execute_all(["CREATE DATABASE pitr", "CREATE TABLE pitr.t (id INT PRIMARY KEY, v VARCHAR(5))",
                            "INSERT INTO pitr.t VALUES (1, 'a'), (2, NULL)", "UPDATE pitr.t SET v = 'b' WHERE id = 1"])
        files = [str(p) for p in server.binlog_files()]
        proc = subprocess.run([*SEMISYNC, "binlog", "--sql", *files], capture_output=True)
    assert proc.returncode == 1
    assert b"INSERT INTO `pitr`.`t` VALUES (1, X'61')/*!*/;" in proc.stdout
    assert b" for pitr.t needs column names" in proc.stderr
    assert b"binlog_row_metadata=FULL" in proc.stderr


def test_stop_datetime_replay_into_our_server_gives_mariadbs_tables(servers, tmp_path):
    """`semisync binlog --sql | mariadb --force` into our server (`--force` goes on past any
    statement a target refuses); the rows it must hold are those MariaDB holds after
    `mariadb-binlog | mariadb`."""
    source, target, moment = servers
    files = [str(p) for p in source.binlog_files()]
    stop = f"--stop-datetime={moment:%Y-%m-%d %H:%M:%S}"
    theirs = replay(target, ["mariadb-binlog", "--no-defaults", stop, *files])["pitr3.plain"]
    assert len(theirs) == 2, theirs
    made = subprocess.run([*SEMISYNC, "binlog", "--sql", stop, *files], capture_output=True, timeout=120)
    assert made.returncode == 0, made.stderr.decode(errors="replace")
    ours = Daemon("master", tmp_path / "master", []).start()
    try:
        client = ["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{ours.port}", "-uroot", "--binary-mode", "--force"]
        loaded = subprocess.run(client, input=made.stdout, capture_output=True, timeout=120)
        assert sorted(ours.query("SELECT * FROM pitr3.plain"), key=repr) == theirs, loaded.stderr.decode()[-3000:]
    finally:
        ours.stop()


STATEMENTS = [
    "CREATE DATABASE pitr",
    "CREATE TABLE pitr.s (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40) CHARACTER SET utf8mb4, r DOUBLE, "
    "de DECIMAL(8,3), u BIGINT UNSIGNED, ts DATETIME)",
    "SET @x = 'héllo', @n = 42, @d = 1.5",
    "INSERT INTO pitr.s (v, r) VALUES (@x, @n + @d)",
    "INSERT INTO pitr.s (v) VALUES ('a')",
    "INSERT INTO pitr.s (v, r) VALUES ('last id', LAST_INSERT_ID())",
    "INSERT INTO pitr.s (v, r) VALUES ('rand', RAND())",
    "INSERT INTO pitr.s (v, ts) VALUES ('now', NOW())",
    "SET @big = 18446744073709551615, @dec = 12.345, @nothing = NULL, @bytes = X'00FF'",
    "INSERT INTO pitr.s (u, de, v) VALUES (@big, @dec, @nothing)",
    "INSERT INTO pitr.s (v) VALUES (HEX(@bytes))",
    "UPDATE pitr.s SET v = CONCAT(v, '!') WHERE id > 1",
    "DELETE FROM pitr.s WHERE v = 'a!'",
]


def test_statement_binlog_replay_equals_mariadb_binlogs(tmp_path):
    """A STATEMENT binlog: user variables of each type, INSERT_ID / LAST_INSERT_ID, RAND seeds and
    the statement's timestamp come back as mariadb-binlog's SETs do."""
    with MariaDBServer(tmp_path / "source", binlog_format="STATEMENT") as source, \
            MariaDBServer(tmp_path / "target", server_id=2, log_bin=None) as target:
        conn = source.connect()
        try:
            with conn.cursor() as cur:
                for sql in STATEMENTS:
                    cur.execute(sql)
        finally:
            conn.close()
        files = [str(p) for p in source.binlog_files()]
        ours = replay(target, [*SEMISYNC, "binlog", "--sql", *files])
        theirs = replay(target, ["mariadb-binlog", "--no-defaults", *files])
        assert len(ours["pitr.s"]) == 6, ours
        assert ours == theirs == tables(source)
