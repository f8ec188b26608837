"""Triggers against a live MariaDB 10.11: CREATE / DROP TRIGGER, their errors and notes, what the
writes they fire leave (affected rows and the tables' rows), SHOW TRIGGERS / SHOW CREATE TRIGGER /
information_schema.TRIGGERS, the binlog's CREATE / DROP TRIGGER text (DEFINER spelled out as
MariaDB writes it), and the replicas of ours (a MariaDB replica and our slave), which run the
statements and their triggers again, as statement-format replication does. Then the real tools:
mariadb-dump --triggers of ours loaded into MariaDB and of MariaDB into ours, and
percona-toolkit's pt-online-schema-change altering a table under writes, against ours with a slave."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import (
    answer_differences,
    assert_same_rows,
    ok_answer,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

PT_OSC = shutil.which("pt-online-schema-change")
DUMP = shutil.which("mariadb-dump") or shutil.which("mysqldump")
CLIENT = shutil.which("mariadb") or shutil.which("mysql")

SETUP = [
    "CREATE DATABASE trg CHARACTER SET latin1",
    "CREATE USER app@'%' IDENTIFIED BY 'pw'",
    "GRANT ALL ON trg.* TO app@'%'",
    "CREATE TABLE trg.t (id INT PRIMARY KEY, a INT, s VARCHAR(20))",
    "CREATE TABLE trg.audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(40), k INT, v INT)",
    "CREATE TABLE trg.copy (id INT AUTO_INCREMENT PRIMARY KEY, a INT, s VARCHAR(20))",
    "CREATE TABLE trg.stamps (id INT PRIMARY KEY, at DATETIME, day DATE, secs BIGINT,"
    " made TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)",
]

# (statement, its answer compared) on one connection to trg, as root
STEPS = [
    "CREATE DEFINER=app@'%' TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW "
    "INSERT INTO audit (id, what, k, v) VALUES (NEW.id * 100, 'insert', NEW.id, NEW.a)",
    "CREATE DEFINER='app'@'%' TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW BEGIN "
    "INSERT INTO audit (id, what, k, v) VALUES (NEW.id * 100 + 1, CONCAT('was ', OLD.s), OLD.id, OLD.a); "
    "DELETE FROM audit WHERE id = OLD.id * 100 + 50; END",
    "CREATE DEFINER=`app`@`%` TRIGGER t_bu0 BEFORE UPDATE ON t FOR EACH ROW PRECEDES t_bu "
    "REPLACE INTO audit (id, what, k, v) VALUES (OLD.id * 100 + 50, 'first', OLD.id, NEW.a)",
    # pt-online-schema-change's three triggers, as it writes them
    "CREATE DEFINER=app@'%' TRIGGER `pt_osc_trg_t_ins` AFTER INSERT ON `trg`.`t` FOR EACH ROW "
    "REPLACE INTO `trg`.`copy` (`id`, `a`, `s`) VALUES (NEW.`id`, NEW.`a`, NEW.`s`)",
    "CREATE DEFINER=app@'%' TRIGGER `pt_osc_trg_t_upd` AFTER UPDATE ON `trg`.`t` FOR EACH ROW BEGIN "
    "DELETE IGNORE FROM `trg`.`copy` WHERE !(OLD.`id` <=> NEW.`id`) AND `trg`.`copy`.`id` <=> OLD.`id`;"
    "REPLACE INTO `trg`.`copy` (`id`, `a`, `s`) VALUES (NEW.`id`, NEW.`a`, NEW.`s`);END",
    "CREATE DEFINER=app@'%' TRIGGER `pt_osc_trg_t_del` AFTER DELETE ON `trg`.`t` FOR EACH ROW "
    "DELETE IGNORE FROM `trg`.`copy` WHERE `trg`.`copy`.`id` <=> OLD.`id`",
    "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'it''s')",
    "UPDATE t SET a = a + 1, s = CONCAT(s, '+') WHERE id >= 2",
    "UPDATE t SET id = 7 WHERE id = 3",
    "REPLACE INTO t VALUES (2, 99, 'again')",
    "DELETE FROM t WHERE id = 1",
    "INSERT INTO audit (what) VALUES ('after the triggers')",
    # the statement's time in a trigger (a replica's: the master's)
    "SET timestamp = 1700000000",
    "CREATE DEFINER=app@'%' TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW "
    "INSERT INTO stamps (id, at, day, secs) VALUES (OLD.id, NOW(), CURDATE(), UNIX_TIMESTAMP())",
    "DELETE FROM t WHERE id = 7",
    "SET timestamp = DEFAULT",
    # a table the statement reads that its triggers write: 1442 once one fires, not before
    "INSERT INTO t SELECT id + 50, 0, 'sel' FROM audit WHERE id = 100",
    "INSERT INTO t SELECT id, 0, '' FROM audit WHERE id < 0",
    "DELETE t FROM t JOIN copy ON copy.id = t.id WHERE t.id = 2",
    "UPDATE t, copy SET t.a = t.a + 1 WHERE copy.id = t.id AND t.id = 2",
    # IGNORE leaves out the statement's own rows that meet a key, not its triggers' (1062)
    "INSERT IGNORE INTO t VALUES (7, 0, 'dup'), (9, 9, 'nine')",
    "INSERT IGNORE INTO t VALUES (1, 0, 'x')",
    # MariaDB's errors and notes
    "CREATE DEFINER=app@'%' TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW DELETE FROM audit",
    "CREATE DEFINER=app@'%' TRIGGER IF NOT EXISTS t_ai AFTER INSERT ON t FOR EACH ROW DELETE FROM audit",
    "CREATE OR REPLACE DEFINER=app@'%' TRIGGER IF NOT EXISTS t_x AFTER INSERT ON t FOR EACH ROW DELETE FROM audit",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER DELETE ON t FOR EACH ROW INSERT INTO audit (k) VALUES (NEW.id)",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON t FOR EACH ROW INSERT INTO audit (k) VALUES (OLD.id)",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON t FOR EACH ROW INSERT INTO audit (k) VALUES (NEW.nope)",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON t FOR EACH ROW SET NEW.a = 1",
    "CREATE DEFINER=app@'%' TRIGGER t_x BEFORE INSERT ON t FOR EACH ROW SET OLD.a = 1",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON t FOR EACH ROW FOLLOWS nope DELETE FROM audit",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON nope FOR EACH ROW DELETE FROM audit",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON mysql.user FOR EACH ROW DELETE FROM audit",
    "CREATE DEFINER=app@'%' TRIGGER t_x AFTER INSERT ON test.t FOR EACH ROW DELETE FROM audit",
    "DROP TRIGGER nope",
    "DROP TRIGGER IF EXISTS nope",
    "CREATE DEFINER=app@'%' TRIGGER t_loop AFTER DELETE ON t FOR EACH ROW INSERT INTO t VALUES (OLD.id + 1000, 0, '')",
    "DELETE FROM t WHERE id = 2",
    "DROP TRIGGER t_loop",
    "DROP TRIGGER trg.t_bu0",
    "UPDATE t SET a = 0",
]

LISTED = [
    "SELECT TRIGGER_SCHEMA, TRIGGER_NAME, EVENT_MANIPULATION, EVENT_OBJECT_TABLE, ACTION_ORDER, ACTION_STATEMENT, "
    "ACTION_ORIENTATION, ACTION_TIMING, ACTION_REFERENCE_OLD_ROW, ACTION_REFERENCE_NEW_ROW, SQL_MODE, DEFINER, "
    "DATABASE_COLLATION "
    "FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'trg' ORDER BY TRIGGER_NAME",
    "SELECT * FROM trg.t ORDER BY id",
    "SELECT * FROM trg.audit ORDER BY id",
    "SELECT * FROM trg.copy ORDER BY id",
    "SELECT * FROM trg.stamps ORDER BY id",
]


def _told(answers: list[tuple]) -> list[tuple]:
    """The answers with 1062's value of a row a trigger wrote left out: ours names it '?'."""
    return [(*a[:3], re.sub(r"Duplicate entry '[^']*'", "Duplicate entry '?'", a[3])) if a[1] == "error" else a
            for a in answers]


def _stepped(server, setup: list[str], steps: list[str], database: str) -> list[tuple]:
    """`setup` run on the server, then (statement, `ok_answer`) of each step on one connection."""
    for sql in setup:
        server.query(sql)
    conn = server.connect(database)
    try:
        return [(sql, *ok_answer(conn, sql)) for sql in steps]
    finally:
        conn.close()


def _trigger_statements(server) -> list[str]:
    """The text of each CREATE / DROP TRIGGER in the server's binlogs."""
    found = []
    for name, _size in server.query("SHOW BINARY LOGS"):
        for row in server.query(f"SHOW BINLOG EVENTS IN '{name}'"):
            if row[2] == "Query" and " TRIGGER " in row[5].upper():
                found.append(row[5])
    return found


def _shown(server) -> list[tuple]:
    """SHOW TRIGGERS' and SHOW CREATE TRIGGER's columns that do not name the connection's
    character set or the time of creation."""
    conn = server.connect("trg")
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW TRIGGERS")
            listed = [row[:5] + row[6:8] + row[10:] for row in cur.fetchall()]
            created = []
            for row in listed:
                cur.execute(f"SHOW CREATE TRIGGER {row[0]}")
                created.append(cur.fetchone()[:3])
            cur.execute("SHOW TRIGGERS LIKE 'nope'")
            return [*listed, *created, *cur.fetchall()]
    finally:
        conn.close()


def test_triggers_answer_fire_and_replicate_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        answers = [_stepped(server, SETUP, STEPS, "trg") for server in (reference, ours)]
        assert answer_differences(*[_told(a) for a in answers]) == ""
        # an account without SUPER, binlog on: 1419 for CREATE and DROP TRIGGER, its database's ALL
        # aside; its writes fire the triggers (compiled for its privilege check where none fires)
        refused = []
        for server in (reference, ours):
            conn = pymysql.connect(host="127.0.0.1", port=server.port, user="app", password="pw", database="trg")
            try:
                refused.append([ok_answer(conn, sql) for sql in (
                    "CREATE TRIGGER t_app AFTER INSERT ON t FOR EACH ROW DELETE FROM audit",
                    "CREATE DEFINER=CURRENT_USER TRIGGER t_app AFTER INSERT ON t FOR EACH ROW DELETE FROM audit",
                    "DROP TRIGGER t_ai", "DROP TRIGGER IF EXISTS nope", "INSERT INTO t VALUES (60, 6, 'app')")])
            finally:
                conn.close()
        assert refused[1] == refused[0]
        assert {answer[:2] for answer in refused[0][:4]} == {("error", 1419)}
        assert _trigger_statements(ours) == _trigger_statements(reference)
        assert _shown(ours) == _shown(reference)
        for sql in LISTED:
            assert_same_rows(reference, ours, replicas, sql)


def _dump(port: int) -> str:
    proc = subprocess.run([DUMP, "-h127.0.0.1", f"-P{port}", "-uroot", "--triggers", "--databases", "trg"],
                          capture_output=True, text=True, timeout=120, check=True)
    return proc.stdout


def _load(port: int, text: str) -> None:
    subprocess.run([CLIENT, "-h127.0.0.1", f"-P{port}", "-uroot"], input=text, capture_output=True, text=True,
                   timeout=120, check=True)


@pytest.mark.skipif(DUMP is None or CLIENT is None, reason="needs the mariadb client tools")
def test_mariadb_dump_with_triggers_loads_both_ways(tmp_path):
    mariadb = MariaDBServer(tmp_path / "mdb", log_bin=None).start()
    ours = Daemon("master", tmp_path / "ours", ["--server-id=1"])
    try:
        ours.start()
        for server in (mariadb, ours):
            for sql in SETUP[:1] + SETUP[3:]:
                server.query(sql)
        # made on each under the other's name, so that each dump holds what the other must load
        for server, prefix in ((mariadb, "m"), (ours, "o")):
            conn = server.connect("trg")
            try:
                with conn.cursor() as cur:
                    for sql in STEPS[:6]:
                        cur.execute(sql.replace("DEFINER=app@'%' ", "").replace("DEFINER='app'@'%' ", "")
                                    .replace("DEFINER=`app`@`%` ", "").replace("TRIGGER t_", f"TRIGGER {prefix}_")
                                    .replace("PRECEDES t_", f"PRECEDES {prefix}_").replace("`pt_osc", f"`{prefix}_pt"))
            finally:
                conn.close()
        # the definers (root@localhost / root@%): each server's own root, made on the other
        mariadb.query("CREATE USER IF NOT EXISTS root@'%'")
        mariadb.query("GRANT ALL ON *.* TO root@'%'")
        from_mariadb, from_ours = _dump(mariadb.port), _dump(ours.port)
        _load(mariadb.port, from_ours)
        _load(ours.port, from_mariadb)
        listed = ("SELECT TRIGGER_NAME, EVENT_MANIPULATION, EVENT_OBJECT_TABLE, ACTION_ORDER, ACTION_STATEMENT, "
                  "ACTION_TIMING FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'trg' ORDER BY 1")
        swapped = [tuple(c.replace("o_", "m_", 1) if isinstance(c, str) else c for c in row)
                   for row in mariadb.query(listed)]
        assert swapped == [tuple(c.replace("o_", "m_", 1) if isinstance(c, str) else c for c in row)
                           for row in ours.query(listed)]
        assert len(swapped) == 6
        for server in (mariadb, ours):  # the loaded triggers fire
            for sql in (*STEPS[6:9], STEPS[10]):
                server.query(f"/* {server} */ " + sql.replace("INTO t ", "INTO trg.t ").replace("UPDATE t ", "UPDATE trg.t ")
                             .replace("FROM t ", "FROM trg.t "))
        for sql in LISTED[1:]:
            assert ours.query(sql) == mariadb.query(sql)
    finally:
        ours.stop()
        mariadb.stop()


@pytest.mark.skipif(PT_OSC is None, reason="needs percona-toolkit (Makefile APT_PACKAGES)")
def test_pt_online_schema_change_alters_a_table_under_writes(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    daemons = [master]
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=11", "--master-host=127.0.0.1", f"--master-port={master.port}", "--master-user=repl",
            "--master-password=replpw", "--master-connect-retry=1"]).start()
        daemons.append(slave)
        master.query("CREATE DATABASE app")
        master.query("CREATE TABLE app.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), n INT, KEY ix_n (n))")
        conn = master.connect("app")
        with conn.cursor() as cur:
            for k in range(40):
                cur.execute("INSERT INTO t (v, n) VALUES " + ", ".join(f"('r{k}-{j}', {j})" for j in range(50)))
        stop = threading.Event()
        written, failed = [], []

        def writes() -> None:  # inserts, updates and deletes while the rows are copied
            writer = master.connect("app")
            try:
                with writer.cursor() as cur:
                    k = 0
                    while not stop.is_set():
                        k += 1
                        cur.execute("INSERT INTO t (v, n) VALUES (%s, %s)", (f"w{k}", k))
                        cur.execute("UPDATE t SET n = n + 1000 WHERE id = %s", (k * 7,))
                        cur.execute("DELETE FROM t WHERE id = %s", (k * 11,))
                        written.append(k)
            except pymysql.MySQLError as exc:
                failed.append(exc)
            finally:
                writer.close()

        thread = threading.Thread(target=writes)
        thread.start()
        try:
            proc = subprocess.run(
                [PT_OSC, "--execute", "--alter", "ADD COLUMN w INT NOT NULL DEFAULT 5", "--chunk-size=100",
                 "--recursion-method=none", "--no-check-replication-filters",
                 f"h=127.0.0.1,P={master.port},u=root,D=app,t=t"],
                capture_output=True, text=True, timeout=300)
        finally:
            stop.set()
            thread.join()
        assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
        assert "Successfully altered `app`.`t`." in proc.stdout
        assert written and not failed  # (writes ran while it worked, none failed)
        assert [r[0] for r in master.query("SHOW COLUMNS FROM app.t")] == ["id", "v", "n", "w"]
        assert master.query("SHOW TRIGGERS FROM app") == []
        # the rows as the writes left the old table: every one of them reached the new one
        rows = {50 * k + j + 1: (f"r{k}-{j}", j) for k in range(40) for j in range(50)}
        for k in written:
            rows[2000 + k] = (f"w{k}", k)
            if k * 7 in rows:
                rows[k * 7] = (rows[k * 7][0], rows[k * 7][1] + 1000)
            rows.pop(k * 11, None)
        assert master.query("SELECT id, v, n, w FROM app.t ORDER BY id") == [
            (i, v, n, 5) for i, (v, n) in sorted(rows.items())]
        conn.close()
        master.query("INSERT INTO app.t (v, n) VALUES ('after', 0)")  # the new table's next id
        want = master.query("SELECT * FROM app.t ORDER BY id")
        assert want[-1][1:] == ("after", 0, 5)
        for _ in range(300):
            try:
                if slave.query("SELECT * FROM app.t ORDER BY id") == want:
                    break
            except pymysql.MySQLError:
                pass
            threading.Event().wait(0.2)
        assert slave.query("SELECT * FROM app.t ORDER BY id") == want
    finally:
        for d in reversed(daemons):
            d.stop()


def test_our_slave_of_a_row_format_mariadb_fires_no_trigger(tmp_path):
    """A ROW-format binlog carries the rows a trigger wrote in their own events: our slave applies
    them and fires no trigger of its own (MariaDB's slave_run_triggers_for_rbr=NO)."""
    master = MariaDBServer(tmp_path / "master", binlog_format="ROW").start()
    slave = None
    try:
        for sql in ("CREATE USER repl@'%' IDENTIFIED BY 'replpw'", "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
                    *SETUP):
            master.query(sql)
        for sql in STEPS[:6]:
            master.query(sql, "trg")
        slave = Daemon("slave", tmp_path / "slave", [
            "--server-id=11", "--master-host=127.0.0.1", f"--master-port={master.port}", "--master-user=repl",
            "--master-password=replpw", "--master-connect-retry=1"]).start()
        for sql in (*STEPS[6:9], STEPS[10]):
            master.query(sql, "trg")
        for sql in LISTED[1:]:
            want = master.query(sql)
            for _ in range(300):
                try:
                    if slave.query(sql) == want:
                        break
                except pymysql.MySQLError:
                    pass
                threading.Event().wait(0.2)
            assert slave.query(sql) == want
        assert len(slave.query("SHOW TRIGGERS FROM trg")) == 6
    finally:
        if slave is not None:
            slave.stop()
        master.stop()


ASSIGN_SETUP = [
    "CREATE DATABASE asg",
    "CREATE USER asg@'%'",
    "GRANT ALL ON asg.* TO asg@'%'",
    "CREATE TABLE asg.item (id INT PRIMARY KEY, name VARCHAR(20), slug VARCHAR(8) UNIQUE, qty INT,"
    " price DECIMAL(8,2), total DECIMAL(10,2), n TINYINT, was INT, created_at DATETIME, updated_at DATETIME)",
    "CREATE TABLE asg.log (id INT PRIMARY KEY, what VARCHAR(40))",
]

# BEFORE triggers that assign NEW.col, as ORMs' migrations and real schemas write them
ASSIGN_STEPS = [
    "SET timestamp = 1700000000",
    "CREATE DEFINER=asg@'%' TRIGGER item_bi BEFORE INSERT ON item FOR EACH ROW BEGIN "
    "SET NEW.slug = LOWER(NEW.name); SET NEW.total = NEW.qty * NEW.price, NEW.created_at = NOW(); "
    "INSERT INTO log VALUES (NEW.id * 10, CONCAT('bi ', NEW.slug, ' ', NEW.total)); END",
    "CREATE DEFINER=asg@'%' TRIGGER item_ai AFTER INSERT ON item FOR EACH ROW "
    "INSERT INTO log VALUES (NEW.id * 10 + 1, CONCAT('ai ', NEW.slug, ' ', NEW.total))",
    "CREATE DEFINER=asg@'%' TRIGGER item_bu BEFORE UPDATE ON item FOR EACH ROW "
    "SET NEW.was = OLD.qty, NEW.updated_at = NOW(), NEW.total = NEW.qty * NEW.price",
    "CREATE DEFINER=asg@'%' TRIGGER item_au AFTER UPDATE ON item FOR EACH ROW "
    "REPLACE INTO log VALUES (NEW.id * 10 + 2, CONCAT('au ', OLD.total, ' ', NEW.total, ' ', NEW.was))",
    "INSERT INTO item (id, name, qty, price) VALUES (1, 'Apple', 3, 1.25), (2, 'PEAR', 2, 0.5)",
    "UPDATE item SET qty = qty + 10 WHERE id = 2",
    "UPDATE item SET price = 2 WHERE id = 1",
    "UPDATE item SET qty = qty WHERE id = 1",
    # the column's conversion of the assigned value: strict mode's errors, undoing the statement
    "INSERT INTO item (id, name, qty, price) VALUES (3, 'Far Too Long A Name', 1, 1)",
    "INSERT INTO item (id, name, qty, price) VALUES (3, 'apple', 1, 1)",
    "INSERT INTO item (id, name, qty, price) VALUES (4, 'ok', 1, 1), (5, 'OK', 1, 1)",
    # an UPDATE's 1062 names the value of the first row (in the key's order) meeting another
    "UPDATE item SET slug = 'PEAR' WHERE id = 1",
    "UPDATE item SET slug = IF(id = 1, 'pear', 'apple')",
    "UPDATE item SET slug = CONCAT(slug, 'x'), id = id + 1",
    "CREATE DEFINER=asg@'%' TRIGGER item_bi2 BEFORE INSERT ON item FOR EACH ROW FOLLOWS item_bi SET NEW.n = NEW.qty * 100",
    "INSERT INTO item (id, name, qty, price) VALUES (6, 'big', 2, 1)",
    "INSERT INTO item (id, name, qty, price) VALUES (8, 'a', 0, 1), (9, 'b', 3, 1)",
    "SET sql_mode = ''",
    "INSERT INTO item (id, name, qty, price) VALUES (7, 'Long Name Here', 9, 1.5)",
    "SET sql_mode = DEFAULT",
    "SET timestamp = DEFAULT",
    # MariaDB's errors at CREATE
    "CREATE DEFINER=asg@'%' TRIGGER item_x BEFORE UPDATE ON item FOR EACH ROW SET OLD.qty = 1",
    "CREATE DEFINER=asg@'%' TRIGGER item_x BEFORE DELETE ON item FOR EACH ROW SET NEW.qty = 1",
    "CREATE DEFINER=asg@'%' TRIGGER item_x BEFORE UPDATE ON item FOR EACH ROW SET NEW.nope = 1",
    "CREATE DEFINER=asg@'%' TRIGGER item_x BEFORE UPDATE ON item FOR EACH ROW SET NEW.qty = nope",
]

ASSIGN_LISTED = ["SELECT * FROM asg.item ORDER BY id", "SELECT * FROM asg.log ORDER BY id"]


def _compared(tmp_path, setup: list[str], steps: list[str], database: str, listed: list[str]) -> None:
    """`setup` and `steps` on a MariaDB master and ours (`_stepped`): the same answers, and the
    same rows of each of `listed` on the masters, a MariaDB replica and our slave of ours."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        answers = [_stepped(server, setup, steps, database) for server in (reference, ours)]
        differences = answer_differences(*answers)
        assert differences == "", differences
        for sql in listed:
            assert_same_rows(reference, ours, replicas, sql)


def test_before_triggers_assign_new_as_mariadbs(tmp_path):
    _compared(tmp_path, ASSIGN_SETUP, ASSIGN_STEPS, "asg", ASSIGN_LISTED)


# validation triggers: IF ... THEN SIGNAL, IF / ELSEIF / ELSE around SET NEW.col
CHECK_SETUP = [
    "CREATE DATABASE chk",
    "CREATE USER chk@'%'",
    "GRANT ALL ON chk.* TO chk@'%'",
    "CREATE TABLE chk.acct (id INT PRIMARY KEY, email VARCHAR(40), balance INT, tier VARCHAR(8),"
    " seen TIMESTAMP NOT NULL DEFAULT '2001-01-01 00:00:00' ON UPDATE CURRENT_TIMESTAMP)",
]

CHECK_STEPS = [
    "SET timestamp = 1700000000",
    "CREATE DEFINER=chk@'%' TRIGGER acct_bi BEFORE INSERT ON acct FOR EACH ROW BEGIN "
    "IF NEW.balance < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'balance can''t be negative'; "
    "ELSEIF NEW.balance IS NULL THEN SET NEW.balance = 0, NEW.tier = 'none'; "
    "ELSE IF NEW.balance >= 1000 THEN SET NEW.tier = 'gold'; ELSE SET NEW.tier = 'basic'; END IF; "
    "SET NEW.balance = NEW.balance + 1; END IF; "
    "IF NEW.email NOT LIKE '%@%' THEN SIGNAL SQLSTATE '45000'; END IF; END",
    "CREATE DEFINER=chk@'%' TRIGGER acct_bu BEFORE UPDATE ON acct FOR EACH ROW "
    "IF NEW.email <> OLD.email THEN "
    "SIGNAL SQLSTATE '23000' SET MYSQL_ERRNO = 1451, MESSAGE_TEXT = 'email is fixed'; END IF",
    "INSERT INTO acct (id, email, balance) VALUES (1, 'a@x', 10), (2, 'b@x', NULL), (3, 'c@x', 5000)",
    "INSERT INTO acct (id, email, balance) VALUES (4, 'd@x', 1), (5, 'e@x', -1)",
    "INSERT INTO acct (id, email, balance) VALUES (6, 'nope', 1)",
    "UPDATE acct SET email = 'z@x' WHERE id = 1",
    # (a row it leaves as it was fires the UPDATE triggers, its ON UPDATE column kept)
    "UPDATE acct SET balance = balance * 2",
    "BEGIN",
    "INSERT INTO acct (id, email, balance) VALUES (7, 'g@x', 7)",
    "INSERT INTO acct (id, email, balance) VALUES (8, 'h@x', -8)",
    "COMMIT",
    "CREATE DEFINER=chk@'%' TRIGGER acct_x BEFORE DELETE ON acct FOR EACH ROW SIGNAL SQLSTATE '0000A'",
    "CREATE DEFINER=chk@'%' TRIGGER acct_x BEFORE DELETE ON acct FOR EACH ROW SIGNAL SQLSTATE '00000'",
]


def test_validation_triggers_signal_as_mariadbs(tmp_path):
    _compared(tmp_path, CHECK_SETUP, CHECK_STEPS, "chk", ["SELECT * FROM chk.acct ORDER BY id"])


# triggers with control flow: writes inside IF / ELSEIF / ELSE and CASE branches (simple and
# searched, 1339 without ELSE), an INSERT ... SELECT and an ON DUPLICATE KEY UPDATE among them
FLOW_SETUP = [
    "CREATE DATABASE flow",
    "CREATE USER flow@'%'",
    "GRANT ALL ON flow.* TO flow@'%'",
    "CREATE TABLE flow.orders (id INT PRIMARY KEY, status VARCHAR(10), qty INT, note VARCHAR(20))",
    "CREATE TABLE flow.history (id INT PRIMARY KEY, what VARCHAR(40), n INT NOT NULL DEFAULT 0)",
    "CREATE TABLE flow.stock (sku INT PRIMARY KEY, n INT)",
]

FLOW_STEPS = [
    "INSERT INTO stock VALUES (1, 100), (2, 100), (3, 100), (4, 100)",
    "CREATE DEFINER=flow@'%' TRIGGER orders_bi BEFORE INSERT ON orders FOR EACH ROW "
    "CASE NEW.status WHEN 'new' THEN SET NEW.note = 'fresh'; "
    "WHEN 'paid' THEN SET NEW.note = 'paid'; INSERT INTO history (id, what) VALUES (NEW.id * 100, 'paid at once'); "
    "END CASE",
    "CREATE DEFINER=flow@'%' TRIGGER orders_au AFTER UPDATE ON orders FOR EACH ROW BEGIN "
    "IF NEW.status <> OLD.status THEN "
    "INSERT INTO history (id, what) VALUES (NEW.id * 100 + NEW.qty, CONCAT(OLD.status, '->', NEW.status)) "
    "ON DUPLICATE KEY UPDATE n = n + 1, what = CONCAT(what, '!'); "
    "ELSEIF NEW.qty > OLD.qty THEN UPDATE stock SET n = n - (NEW.qty - OLD.qty) WHERE sku = NEW.id; "
    "IF NEW.qty > 50 THEN INSERT INTO history (id, what) SELECT NEW.id * 1000 + sku, 'bulk' FROM stock "
    "WHERE sku <= NEW.id; END IF; "
    "ELSE DELETE FROM history WHERE id = NEW.id * 100; END IF; "
    "UPDATE stock SET n = n + 0 WHERE sku = 0; END",
    "CREATE DEFINER=flow@'%' TRIGGER orders_ad AFTER DELETE ON orders FOR EACH ROW BEGIN "
    "CASE WHEN OLD.qty > 10 THEN REPLACE INTO history (id, what) VALUES (OLD.id * 100 + 99, 'big gone'); "
    "WHEN OLD.qty IS NULL THEN UPDATE stock SET n = NULL WHERE sku = OLD.id; "
    "ELSE UPDATE stock SET n = n + OLD.qty WHERE sku = OLD.id; END CASE; END",
    "INSERT INTO orders (id, status, qty) VALUES (1, 'new', 5), (2, 'paid', 20), (3, 'new', NULL)",
    "INSERT INTO orders (id, status, qty) VALUES (4, 'other', 1)",
    "INSERT INTO orders (id, status, qty) VALUES (4, 'new', 1)",
    "UPDATE orders SET status = 'sent' WHERE id IN (1, 2)",
    "UPDATE orders SET status = 'done' WHERE id = 1",
    "UPDATE orders SET qty = qty + 10",
    "UPDATE orders SET qty = 60 WHERE id = 2",
    "UPDATE orders SET note = 'x' WHERE id = 4",
    "DELETE FROM orders WHERE id IN (2, 3)",
    "DELETE FROM orders",
    # a branch that writes the table whose statement fired the trigger: 1442
    "CREATE DEFINER=flow@'%' TRIGGER stock_au AFTER UPDATE ON stock FOR EACH ROW "
    "IF NEW.n < 0 THEN DELETE FROM stock WHERE sku = NEW.sku + 1; END IF",
    "UPDATE stock SET n = 1 WHERE sku = 1",
    "UPDATE stock SET n = -1 WHERE sku = 1",
    # local variables: DECLARE [DEFAULT], SET, SELECT ... INTO (1172 for more than one row)
    "CREATE DEFINER=flow@'%' TRIGGER stock_bu BEFORE UPDATE ON stock FOR EACH ROW BEGIN "
    "DECLARE opened, wanted INT DEFAULT 0; DECLARE tag VARCHAR(12); DECLARE ratio DECIMAL(6,2); "
    "SELECT COUNT(*), SUM(qty) INTO opened, wanted FROM orders WHERE id = NEW.sku; "
    "SET tag = CASE WHEN NEW.n > 50 THEN 'plenty' ELSE 'low' END, ratio = NEW.n / 3; "
    "IF opened > 0 AND NEW.n < wanted THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'not enough stock'; END IF; "
    "IF NEW.n <> OLD.n THEN SET NEW.n = NEW.n + opened; END IF; "
    "REPLACE INTO history (id, what, n) VALUES (5000 + NEW.sku, CONCAT(tag, ' ', ratio), IFNULL(wanted, -1)); END",
    "INSERT INTO orders (id, status, qty) VALUES (1, 'new', 30), (2, 'new', 5)",
    "UPDATE stock SET n = 20 WHERE sku = 1",
    "UPDATE stock SET n = 80 WHERE sku IN (1, 2, 3)",
    "UPDATE stock SET n = n WHERE sku = 4",
    "CREATE DEFINER=flow@'%' TRIGGER orders_bd BEFORE DELETE ON orders FOR EACH ROW BEGIN "
    "DECLARE seen INT; SELECT n INTO seen FROM stock WHERE sku >= OLD.id; "
    "UPDATE stock SET n = seen WHERE sku = 4; END",
    "DELETE FROM orders WHERE id = 1",
    "DELETE FROM orders WHERE id = 2",
    "INSERT INTO orders (id, status, qty) VALUES (4, 'new', 1)",
    "DELETE FROM orders WHERE id = 4",
]

FLOW_LISTED = ["SELECT * FROM flow.orders ORDER BY id", "SELECT * FROM flow.history ORDER BY id",
               "SELECT * FROM flow.stock ORDER BY sku"]


def test_triggers_with_control_flow_write_as_mariadbs(tmp_path):
    _compared(tmp_path, FLOW_SETUP, FLOW_STEPS, "flow", FLOW_LISTED)
