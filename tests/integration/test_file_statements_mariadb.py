"""The server's own files against a live MariaDB 10.11 (server/file_statements.py,
server/load_data.py): SELECT ... INTO OUTFILE of a table of every column type with the default
options, CSV options (OPTIONALLY ENCLOSED BY, LINES STARTING BY, CRLF), no escape character,
an ambiguous FIELDS TERMINATED BY and CHARACTER SET utf8mb4, byte for byte and with the file's
mode, the answer's row count and warnings (1287, 1475, 1366); INTO DUMPFILE (raw bytes, NULL as
a zero byte, 1172 at the third row); 1086 for a file that exists, 1064 for a second INTO, 1083
for a two-character ENCLOSED BY (the file made empty first). LOAD DATA INFILE of those
files: the rows, the duplicate key (1062, nothing loaded), IGNORE and REPLACE, strict mode's
errors and IGNORE's warnings, a column list leaving out a column without a default (one 1364
warning, the implicit default), user variables in the column list and SET, a missing file
(13); the loaded rows then reach a MariaDB replica
and our slave through our binlog. secure_file_priv (a directory, its subdirectories, paths
outside and relative ones: 1290; read-only, 1238) and the FILE privilege (1227 for OUTFILE,
1045 for LOAD DATA INFILE) as MariaDB answers them, and our default (NULL: every file refused).
`mariadb-dump --tab` writes the same .txt files from ours as from MariaDB (and the same .sql
but for its header), and `mariadb-import` (with and without --local) loads them back. Our slave
of a MariaDB master applies its LOAD DATA [LOCAL] INFILE, logged as its file's events
(Begin_load_query, Append_block, Execute_load_query, Delete_file), and logs the rows for a
MariaDB replica of its own; killed in the middle of a load it loads the file once.

Left out: LOAD XML (1235 here), a SET expression reading a column of the row (1235), a master's
load that failed part-way into a non-transactional table (the slave stops with 1235), and
REPLACE of a row by an identical one (MariaDB counts no deletion; our REPLACE statement does)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import ok_answer, reference_ours_and_replicas

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE f CHARACTER SET utf8mb4",
    "CREATE TABLE f.t (id INT PRIMARY KEY, ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, bi BIGINT UNSIGNED, "
    "dc DECIMAL(10,3), fl FLOAT, db DOUBLE, bt BIT(5), yr YEAR, d DATE, dt DATETIME(3), ts TIMESTAMP(6) NULL, "
    "tm TIME(2), ch CHAR(4), vc VARCHAR(20), bn BINARY(3), vb VARBINARY(10), tx TEXT, bl BLOB, "
    "en ENUM('x','y'), st SET('a','b')) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO f.t VALUES "
    "(1, -128, 65535, -8388608, 18446744073709551615, -1.5, 1.25, 1.5e10, b'101', 2024, '2020-02-29', "
    "'2020-01-02 03:04:05.123', '2020-01-01 00:00:00.000001', '-01:02:03.5', 'ab', 'a\\tb\\nc\\\\d', 'ab', "
    "X'00410a09FF', 'h\u00e9llo,\"x\"', 'q\"\\',', 'x', 'a,b'), "
    "(2, 0, 0, 0, 0, 0, -0.5, -0.1, b'0', 1901, '1000-01-01', NULL, NULL, '838:59:59', '', '', NULL, '', '', "
    "NULL, NULL, ''), "
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
    "NULL, NULL, NULL, NULL)",
    "CREATE TABLE f.u LIKE f.t",
    "CREATE TABLE f.v (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(3)) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE f.s (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(10), dt DATE) DEFAULT CHARSET=utf8mb4",
]

STATEMENTS = [
    "SELECT * FROM f.t INTO OUTFILE 'FILES/a.txt'",
    "SELECT * FROM f.t INTO OUTFILE 'FILES/a.txt'",
    "SELECT * FROM f.t INTO OUTFILE 'FILES/b.csv' FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
    "LINES STARTING BY '>' TERMINATED BY '\\r\\n'",
    "SELECT * INTO OUTFILE 'FILES/c.csv' FIELDS TERMINATED BY ',' ENCLOSED BY '\"' ESCAPED BY '' FROM f.t",
    "SELECT * FROM f.t INTO OUTFILE 'FILES/d.txt' FIELDS ESCAPED BY ''",
    "SELECT * FROM f.t ORDER BY id DESC INTO OUTFILE 'FILES/e.txt' CHARACTER SET utf8mb4 "
    "FIELDS TERMINATED BY 'n' LINES TERMINATED BY ''",
    "SELECT id, 1.5, 'x', NULL, id * 2, CONCAT(vc, '|') FROM f.t INTO OUTFILE 'FILES/g.txt' COLUMNS TERMINATED BY '|'",
    "SELECT 1 INTO OUTFILE 'FILES/k.txt' FROM DUAL INTO @a",
    "SELECT 1 INTO OUTFILE 'FILES/l.txt' FIELDS ENCLOSED BY 'ab'",
    "SELECT vb FROM f.t WHERE id = 1 INTO DUMPFILE 'FILES/h.bin'",
    "SELECT id, vc FROM f.t WHERE id < 3 INTO DUMPFILE 'FILES/i.bin'",
    "SELECT id FROM f.t INTO DUMPFILE 'FILES/j.bin'",
    "LOAD DATA INFILE 'FILES/a.txt' INTO TABLE f.u",
    "SELECT * FROM f.u ORDER BY id",
    "LOAD DATA INFILE 'FILES/a.txt' INTO TABLE f.u",
    "LOAD DATA INFILE 'FILES/a.txt' IGNORE INTO TABLE f.u",
    "DELETE FROM f.u WHERE id = 2",
    "UPDATE f.u SET ti = 1",
    "LOAD DATA INFILE 'FILES/b.csv' REPLACE INTO TABLE f.u FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
    "LINES STARTING BY '>' TERMINATED BY '\\r\\n'",
    "SELECT * FROM f.u ORDER BY id",
    "LOAD DATA INFILE 'FILES/missing.txt' INTO TABLE f.u",
    "SELECT 1, 'x', 2 INTO OUTFILE 'FILES/bad.txt'",
    "LOAD DATA INFILE 'FILES/bad.txt' INTO TABLE f.v",
    "SELECT 5, 6, 'abcdef' INTO OUTFILE 'FILES/long.txt'",
    "LOAD DATA INFILE 'FILES/long.txt' INTO TABLE f.v",
    "LOAD DATA INFILE 'FILES/long.txt' IGNORE INTO TABLE f.v",
    "SELECT 7 INTO OUTFILE 'FILES/short.txt'",
    "LOAD DATA INFILE 'FILES/short.txt' INTO TABLE f.v",
    "LOAD DATA INFILE 'FILES/short.txt' INTO TABLE f.v (id)",
    "LOAD DATA INFILE 'FILES/g.txt' IGNORE INTO TABLE f.v FIELDS TERMINATED BY '|' IGNORE 1 LINES",
    "SELECT * FROM f.v ORDER BY id",
    "SELECT 1, 'x', '03/04/2020', 5 UNION SELECT 2, NULL, '31/12/1999', 6 INTO OUTFILE 'FILES/set.txt'",
    "LOAD DATA INFILE 'FILES/set.txt' INTO TABLE f.s (id, @s, @d, n) "
    "SET s = CONCAT(IFNULL(@s, 'null'), '!'), dt = STR_TO_DATE(@d, '%d/%m/%Y')",
    "SELECT * FROM f.s ORDER BY id",
    "LOAD DATA INFILE 'FILES/set.txt' REPLACE INTO TABLE f.s (id, @a, @b, @c, @e) SET n = @c + 100",
    "SELECT @a, @b, @c, @e",
    "LOAD DATA INFILE 'FILES/set.txt' INTO TABLE f.s (id, @a) SET nope = 1",
]


def answers(port: int, files, statements, database: str = "f") -> list[tuple]:
    """Each statement's answer (its rows, the OK's count, info and warnings, or the error), the
    directory's name written FILES; the session's database is f (whose character set LOAD DATA
    reads a file in) unless another is named."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True, database=database)
    out: list[tuple] = []
    try:
        for sql in statements:
            answer = ok_answer(conn, sql.replace("FILES", str(files)))
            if answer[0] == "error":
                answer = (*answer[:2], answer[2].replace(str(files), "FILES"))
            out.append((sql, *answer))
    finally:
        conn.close()
    return out


def run_all(server, statements) -> None:
    for sql in statements:
        server.query(sql)


def rows(server, sql: str) -> list[tuple]:
    return [tuple(row) for row in server.query(sql)]


def written(files) -> dict[str, tuple[int, bytes]]:
    return {path.name: (path.stat().st_mode, path.read_bytes()) for path in sorted(files.iterdir())}


def directories(tmp_path):
    mine, theirs = tmp_path / "ours-files", tmp_path / "mariadb-files"
    for path in (mine, theirs):
        path.mkdir()
        os.chmod(path, 0o777)
    return mine, theirs


def test_outfile_and_load_data_infile_as_mariadb_and_replicated(tmp_path):
    mine, theirs = directories(tmp_path)
    with reference_ours_and_replicas(tmp_path, our_slave=True, master_args=[f"--secure-file-priv={mine}"]) as (
            reference, ours, replicas):
        for server in (reference, ours):
            run_all(server, SETUP)
        expected = answers(reference.port, theirs, STATEMENTS)
        got = answers(ours.port, mine, STATEMENTS)
        for want, have in zip(expected, got, strict=True):
            assert have == want
        files = written(theirs)
        assert set(files) >= {"a.txt", "b.csv", "c.csv", "d.txt", "e.txt", "g.txt", "h.bin", "i.bin", "j.bin"}
        assert files["h.bin"] == (0o100644, b"\0A\n\t\xff")
        assert written(mine) == files
        for table in ("u", "v", "s"):  # the binlog's statements give both replicas the loaded rows
            sql = f"SELECT * FROM f.{table} ORDER BY id"
            loaded = rows(ours, sql)
            assert loaded == rows(reference, sql)
            for replica in replicas:
                wait_for(lambda q=sql, r=loaded, s=replica: rows(s, q) == r, 90, message=f"a replica's f.{table}")


PRIVILEGE_SETUP = ["CREATE DATABASE p", "CREATE TABLE p.t (id INT PRIMARY KEY)", "INSERT INTO p.t VALUES (1), (2)",
                   "CREATE USER nofile@'%' IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON p.* TO nofile@'%'",
                   "CREATE USER withfile@'%'", "GRANT SELECT, INSERT ON p.* TO withfile@'%'",
                   "GRANT FILE ON *.* TO withfile@'%'"]
PRIVILEGE_STATEMENTS = [
    "SELECT @@secure_file_priv = 'FILES/'",
    "SET GLOBAL secure_file_priv = ''",
    "SELECT * FROM p.t INTO OUTFILE 'FILES/in.txt'",
    "SELECT * FROM p.t INTO OUTFILE 'FILES/../outside.txt'",
    "SELECT * FROM p.t INTO OUTFILE 'FILES/nodir/x.txt'",
    "SELECT * FROM p.t INTO OUTFILE '/tmp/x.txt'",
    "SELECT * FROM p.t INTO OUTFILE 'relative.txt'",
    "LOAD DATA INFILE 'FILES/in.txt' IGNORE INTO TABLE p.t",
    "LOAD DATA INFILE '/etc/hostname' INTO TABLE p.t",
    "LOAD DATA INFILE 'relative.txt' INTO TABLE p.t",
]


def test_secure_file_priv_and_the_file_privilege_as_mariadb(tmp_path):
    mine, theirs = directories(tmp_path)
    (mine / "sub").mkdir()
    (theirs / "sub").mkdir()
    reference = MariaDBServer(tmp_path / "mdb", extra=[f"--secure-file-priv={theirs}"])
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1", f"--secure-file-priv={mine}"])
    plain = Daemon("master", tmp_path / "plain", ["--server-id=2"])  # the default: NULL
    try:
        for server in (reference.start(), ours.start()):
            run_all(server, PRIVILEGE_SETUP)
        expected = answers(reference.port, theirs, PRIVILEGE_STATEMENTS, "p")
        assert expected[0][2] == ((1,),) and expected[2][1:3] == (2, ())
        assert [answer[2] for answer in expected[3:7]] == [1290] * 4
        assert answers(ours.port, mine, PRIVILEGE_STATEMENTS, "p") == expected
        per_account = []
        for server, files in ((reference, theirs), (ours, mine)):
            seen = []
            for user, password in (("nofile", "pw"), ("withfile", "")):
                conn = pymysql.connect(host="127.0.0.1", port=server.port, user=user, password=password,
                                       database="p", autocommit=True)
                with conn.cursor() as cur:
                    for sql in (f"SELECT * FROM t INTO OUTFILE '{files}/sub/{user}.txt'",
                                f"LOAD DATA INFILE '{files}/in.txt' IGNORE INTO TABLE t"):
                        try:
                            seen.append((user, cur.execute(sql)))
                        except pymysql.MySQLError as exc:
                            seen.append((user, exc.args))
                conn.close()
            per_account.append(seen)
        assert per_account[0][:2] == [
            ("nofile", (1227, "Access denied; you need (at least one of) the FILE privilege(s) for this operation")),
            ("nofile", (1045, "Access denied for user 'nofile'@'%' (using password: YES)"))]
        assert per_account[1] == per_account[0]
        assert written(mine / "sub") == written(theirs / "sub")
        plain.start()
        run_all(plain, PRIVILEGE_SETUP[:3])
        assert rows(plain, "SELECT @@secure_file_priv") == [(None,)]
        for sql in (f"SELECT * FROM p.t INTO OUTFILE '{tmp_path}/x.txt'",
                    f"LOAD DATA INFILE '{theirs}/in.txt' INTO TABLE p.t"):
            with pytest.raises(pymysql.MySQLError) as refused:
                plain.query(sql)
            assert refused.value.args[0] == 1290
    finally:
        plain.stop()
        ours.stop()
        reference.stop()


@pytest.mark.skipif(shutil.which("mariadb-dump") is None or shutil.which("mariadb-import") is None,
                    reason="needs Debian's mariadb-client")
def test_mariadb_dump_tab_and_mariadb_import_round_trip(tmp_path):
    mine, theirs = directories(tmp_path)
    reference = MariaDBServer(tmp_path / "mdb", extra=[f"--secure-file-priv={theirs}"])
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1", f"--secure-file-priv={mine}"])
    loaded = []
    try:
        for server, files in ((reference.start(), theirs), (ours.start(), mine)):
            run_all(server, [*SETUP[:3], "CREATE TABLE f.w (k INT, v VARCHAR(5)) DEFAULT CHARSET=utf8mb4",
                                "INSERT INTO f.w VALUES (1, 'x'), (2, NULL)", "CREATE DATABASE g CHARACTER SET utf8mb4",
                                "CREATE TABLE g.t LIKE f.t", "CREATE TABLE g.w LIKE f.w"])
            login = ["-h127.0.0.1", f"-P{server.port}", "-uroot"]
            subprocess.run(["mariadb-dump", *login, f"--tab={files}", "f"], check=True, capture_output=True, timeout=60)
            tables = [str(files / "t.txt"), str(files / "w.txt")]
            for local in ([], ["--local"]):
                run_all(server, ["TRUNCATE g.t", "TRUNCATE g.w"])
                done = subprocess.run(["mariadb-import", *login, *local, "g", *tables], check=True,
                                      capture_output=True, text=True, timeout=60)
                assert "g.t: Records: 3  Deleted: 0  Skipped: 0  Warnings: 0" in done.stdout
                loaded.append([rows(server, f"SELECT * FROM g.{t} ORDER BY 1") for t in ("t", "w")])
        assert loaded[0][0] == rows(reference, "SELECT * FROM f.t ORDER BY 1")
        assert loaded[0] == loaded[1] == loaded[2] == loaded[3]
        for name in ("t.txt", "w.txt"):
            assert (mine / name).read_bytes() == (theirs / name).read_bytes(), name
        for name in ("t.sql", "w.sql"):  # (but for the server's version and the time in the header)
            def body(path):
                return [line for line in path.read_text().splitlines()
                        if not line.startswith(("-- Server version", "-- Dump completed"))]
            assert body(mine / name) == body(theirs / name), name
    finally:
        ours.stop()
        reference.stop()


# A MariaDB master's LOAD DATA [LOCAL] INFILE reaches our slave as its file's events
# (Begin_load_query, Append_blocks, Execute_load_query; Delete_file for a failed one)
LOAD_SETUP = [
    "CREATE DATABASE l CHARACTER SET utf8mb4",
    "CREATE TABLE l.t (id INT PRIMARY KEY, s VARCHAR(40), n INT, ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP) "
    "DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE l.big (id INT AUTO_INCREMENT PRIMARY KEY, k INT, v VARCHAR(20)) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE l.m (id INT PRIMARY KEY, s VARCHAR(10)) ENGINE=MyISAM",
    "INSERT INTO l.m VALUES (1, 'kept')",
]
LOADS = [  # (LOCAL through the client, the statement); FILES is the master's secure_file_priv
    (True, "LOAD DATA LOCAL INFILE 'FILES/a.csv' INTO TABLE l.t FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' "
           "ESCAPED BY '\\\\' LINES STARTING BY '>' TERMINATED BY '\\r\\n' IGNORE 1 LINES (id, @s) "
           "SET s = UPPER(@s), n = LENGTH(@s)"),
    (False, "LOAD DATA INFILE 'FILES/big.txt' INTO TABLE l.big (k, v)"),
    (False, "LOAD DATA INFILE 'FILES/b.txt' REPLACE INTO TABLE l.t FIELDS TERMINATED BY '|' (id, s)"),
    (False, "LOAD DATA INFILE 'FILES/b.txt' IGNORE INTO TABLE l.t FIELDS TERMINATED BY '|' LINES TERMINATED BY '\\n' "
            "(id, s, @skip)"),
    (True, "LOAD DATA LOCAL INFILE 'FILES/b.txt' INTO TABLE l.t FIELDS TERMINATED BY '|' (id, s)"),
    (False, "LOAD DATA INFILE 'FILES/b.txt' INTO TABLE l.t FIELDS TERMINATED BY '|' (id, s)"),  # 1062: not logged
    (False, "LOAD DATA INFILE 'FILES/m.txt' INTO TABLE l.m"),  # 1062 at its first row: Delete_file
]


def load_files(files) -> None:
    (files / "a.csv").write_bytes(b'header\r\n>1,"x, \\"y\\""\r\nno prefix\r\n>2,\\N\r\n>3,plain\r\n')
    (files / "big.txt").write_text("".join(f"{i}\tvalue {i}\n" for i in range(20000)))  # > 128 KiB: several blocks
    (files / "b.txt").write_text("2|two\n7|seven\n")
    (files / "m.txt").write_text("1\tdup\n2\tafter\n")


def load(port: int, files, local: bool, sql: str) -> tuple:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", autocommit=True, local_infile=local)
    try:
        with conn.cursor() as cur:
            return ("ok", cur.execute(sql.replace("FILES", str(files))))
    except pymysql.MySQLError as exc:
        return ("error", exc.args[0])
    finally:
        conn.close()


LOADED = ["SELECT * FROM l.t ORDER BY id", "SELECT * FROM l.big ORDER BY id", "SELECT * FROM l.m ORDER BY id"]


def test_our_slave_applies_a_mariadb_masters_load_data_and_logs_its_rows(tmp_path):
    """Our slave (log_slave_updates) of a MariaDB master applies its LOAD DATA [LOCAL] INFILE
    logged as the file's events: the rows equal the master's (the options, SET, REPLACE and
    IGNORE, a file of several blocks with generated ids, the timestamp), a failed load changes
    nothing, and a MariaDB replica of our slave gets the same rows from our binlog; killed and
    restarted in the middle of a load's events, it loads the file once."""
    from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
    from tests.support.slave_daemon import slave_status

    files = tmp_path / "files"
    files.mkdir()
    os.chmod(files, 0o777)
    load_files(files)
    master = MariaDBServer(tmp_path / "mdb", extra=[f"--secure-file-priv={files}", "--local-infile=1"]).start()
    slave = Daemon("slave", tmp_path / "slave", [
        "--server-id=3", "--master-host=127.0.0.1", f"--master-port={master.port}",
        f"--master-user={REPL_USER}", f"--master-password={REPL_PASSWORD}", "--master-connect-retry=1"])
    replica = MariaDBServer(tmp_path / "replica", server_id=4)
    try:
        run_all(master, [f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                         f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'", *LOAD_SETUP])
        slave.start()
        replica.start()
        attach(replica.port, slave.port)
        answers = [load(master.port, files, local, sql) for local, sql in LOADS]
        assert [answer[0] for answer in answers] == ["ok"] * 5 + ["error"] * 2
        binlog = subprocess.run(["mariadb-binlog", *map(str, master.binlog_files())], capture_output=True,
                                text=True, check=True).stdout
        assert "#Append_block: file_id: 2" in binlog and "#Delete_file: file_id=" in binlog
        expected = [rows(master, sql) for sql in LOADED]
        assert len(expected[1]) == 20000 and expected[0][0][1:3] == ('X, "Y"', 6)

        def same(server) -> bool:
            return [rows(server, sql) for sql in LOADED] == expected

        wait_for(lambda: same(slave), 120,
                 message=lambda: f"our slave's rows\n{slave_status(slave.port)}\n{slave.tail()}")
        wait_for(lambda: same(replica), 120, message="the MariaDB replica of our slave")
        assert not list((tmp_path / "slave").rglob("SQL_LOAD-*"))  # each spooled file dropped

        # killed while it applies a load's events, restarted: the file loaded once, from the relay log
        run_all(master, ["TRUNCATE l.big"])
        wait_for(lambda: rows(slave, "SELECT COUNT(*) FROM l.big") == [(0,)], 60, message="the TRUNCATE")
        assert load(master.port, files, False, LOADS[1][1]) == ("ok", 20000)
        slave.kill9()
        slave.start()
        expected = [rows(master, sql) for sql in LOADED]
        wait_for(lambda: same(slave), 120,
                 message=lambda: f"our slave's rows after a restart\n{slave_status(slave.port)}\n{slave.tail()}")
        wait_for(lambda: same(replica), 120, message="the MariaDB replica after our slave's restart")
        assert int(slave_status(slave.port)["Last_SQL_Errno"]) == 0
    finally:
        replica.stop()
        slave.stop()
        master.stop()


def test_our_slave_stops_at_a_load_that_failed_part_way_on_the_master(tmp_path):
    """A load into a MyISAM table that fails after some rows keeps them on the master, logged as
    an Execute_load_query with the error: our slave stops there with 1235 rather than load a
    different set of rows."""
    from tests.support.slave_daemon import slave_status

    files = tmp_path / "files"
    files.mkdir()
    (files / "m.txt").write_text("2\tin\n1\tdup\n")
    master = MariaDBServer(tmp_path / "mdb", extra=[f"--secure-file-priv={files}"]).start()
    slave = Daemon("slave", tmp_path / "slave", [
        "--server-id=3", "--master-host=127.0.0.1", f"--master-port={master.port}",
        "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1"])
    try:
        run_all(master, ["CREATE USER repl@'%' IDENTIFIED BY 'replpw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'"])
        slave.start()
        run_all(master, LOAD_SETUP[:1] + LOAD_SETUP[3:])
        assert load(master.port, files, False, f"LOAD DATA INFILE '{files}/m.txt' INTO TABLE l.m") == ("error", 1062)
        assert rows(master, "SELECT * FROM l.m ORDER BY id") == [(1, "kept"), (2, "in")]
        wait_for(lambda: int(slave_status(slave.port)["Last_SQL_Errno"]) == 1235, 60, message="the applier's stop")
        assert "LOAD DATA INFILE that failed on the master (error 1062)" in slave_status(slave.port)["Last_SQL_Error"]
        assert rows(slave, "SELECT * FROM l.m") == [(1, "kept")]
    finally:
        slave.stop()
        master.stop()
