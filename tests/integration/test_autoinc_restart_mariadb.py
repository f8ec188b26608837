"""AUTO_INCREMENT counters across a restart, as MariaDB 10.11 keeps them on InnoDB (MDEV-6076:
the largest id a row took, written with the row, so a restart never hands out an id again;
MariaDB's own suite, innodb.autoinc_persist, scenarios 1-11).

The same statements on a stock MariaDB and on our master: ids 1..3 then the 3rd deleted, a
rolled-back transaction's ids, an UPDATE raising an id then its row deleted, an INSERT ... SELECT
(its reserved interval past its last row is not kept: MariaDB's next id after a restart is the
last row's + 1), ALTER TABLE ... AUTO_INCREMENT = n, CREATE TABLE ... AUTO_INCREMENT = n,
TRUNCATE, RENAME TABLE. Both servers are restarted, cleanly and by SIGKILL, and each table's next
id (SHOW CREATE TABLE, SHOW TABLE STATUS, information_schema.TABLES) and the id an INSERT gets
are compared, before and after. Our slave applying our master's rows keeps its counters across its
restart as a MariaDB replica of the same master does, and, promoted, hands out the same next id."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    answer_differences,
    mariadb_and_ours,
    ok_answers,
    reference_ours_and_replicas,
    rows_or_none,
)

pytestmark = [
    pytest.mark.timeout(400),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

TABLES = ("t", "rb", "up", "sel", "alt", "made", "tr", "ren2")

SETUP = [
    "CREATE DATABASE d",
    # ids 1..3, the last one deleted: the next is 4, before and after a restart
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v INT) CHARSET utf8mb4",
    "INSERT INTO d.t (v) VALUES (1), (2), (3)",
    "DELETE FROM d.t WHERE id = 3",
    # a rolled-back transaction's ids are not handed out again (scenario 10)
    "CREATE TABLE d.rb (id BIGINT AUTO_INCREMENT PRIMARY KEY) CHARSET utf8mb4",
    "INSERT INTO d.rb VALUES (0), (0)",
    # an id raised by UPDATE, its row deleted (scenario 4)
    "CREATE TABLE d.up (id INT AUTO_INCREMENT PRIMARY KEY, v INT) CHARSET utf8mb4",
    "INSERT INTO d.up (v) VALUES (1), (2)",
    "UPDATE d.up SET id = 50 WHERE id = 2",
    "DELETE FROM d.up WHERE id = 50",
    # INSERT ... SELECT of 5 rows reserves 1 + 2 + 4 ids: 8 next, 6 after a restart
    "CREATE TABLE d.sel (id INT AUTO_INCREMENT PRIMARY KEY, v INT) CHARSET utf8mb4",
    "INSERT INTO d.sel (v) SELECT v FROM d.t",
    "INSERT INTO d.sel (v) SELECT v FROM d.t UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9",
    "DELETE FROM d.sel WHERE id > 3",
    # ALTER TABLE ... AUTO_INCREMENT = n lowered below the ids handed out, above the rows' (scenario 8)
    "CREATE TABLE d.alt (id INT AUTO_INCREMENT PRIMARY KEY) CHARSET utf8mb4",
    "INSERT INTO d.alt VALUES (0), (0), (300)",
    "DELETE FROM d.alt WHERE id = 300",
    "ALTER TABLE d.alt AUTO_INCREMENT = 120",
    "CREATE TABLE d.made (id INT AUTO_INCREMENT PRIMARY KEY) AUTO_INCREMENT = 1234 CHARSET utf8mb4",
    # TRUNCATE starts again at 1 (scenario 6)
    "CREATE TABLE d.tr (id INT AUTO_INCREMENT PRIMARY KEY) CHARSET utf8mb4",
    "INSERT INTO d.tr VALUES (0), (0), (0)",
    "TRUNCATE TABLE d.tr",
    # RENAME TABLE keeps the counter (scenario 7)
    "CREATE TABLE d.ren (id INT AUTO_INCREMENT PRIMARY KEY) CHARSET utf8mb4",
    "INSERT INTO d.ren VALUES (0), (0), (0), (0)",
    "DELETE FROM d.ren WHERE id = 4",
    "RENAME TABLE d.ren TO d.ren2",
]

# the rolled-back ids, on one connection (a transaction); before a kill, a commit follows them
# (MariaDB's redo log holds them once a later commit flushed it)
ROLLED_BACK = ["BEGIN", "INSERT INTO rb VALUES (0), (0)", "DELETE FROM rb WHERE id >= 2", "ROLLBACK"]
COMMIT_AFTER = ["CREATE TABLE later (id INT PRIMARY KEY)", "INSERT INTO later VALUES (1)"]

COUNTERS = [
    *(f"SHOW CREATE TABLE {name}" for name in TABLES),
    "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' ORDER BY TABLE_NAME",
]

# each table's next id taken, then the rows
INSERTS = [
    *(f"INSERT INTO {name} (id) VALUES (NULL)" for name in TABLES),
    *(f"SELECT * FROM {name} ORDER BY id" for name in TABLES),
]


def status_counters(server) -> list[tuple]:
    """SHOW TABLE STATUS's Name and Auto_increment."""
    conn = server.connect("d")
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW TABLE STATUS")
            names = [d[0] for d in cur.description]
            return sorted((row[names.index("Name")], row[names.index("Auto_increment")]) for row in cur.fetchall())
    finally:
        conn.close()


def counters(server) -> tuple[list[tuple], list[tuple]]:
    return ok_answers(server, [], COUNTERS), status_counters(server)


@pytest.mark.parametrize("how", ["clean", "kill"])
def test_counters_survive_a_restart_as_mariadb(tmp_path, how):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (mariadb, ours):
        before, after = [], []
        for server in (mariadb, ours):
            ok_answers(server, SETUP, ROLLED_BACK + (COMMIT_AFTER if how == "kill" else []))
            before.append(counters(server))
            if how == "clean":
                server.stop()
            elif server is mariadb:
                server.kill()
            else:
                server.kill9()
            server.start()
            after.append(counters(server))
        (theirs, their_status), (mine, my_status) = before
        assert mine == theirs, answer_differences(theirs, mine)
        assert my_status == their_status
        (theirs, their_status), (mine, my_status) = after
        assert mine == theirs, answer_differences(theirs, mine)
        assert my_status == their_status
        theirs, mine = (ok_answers(server, [], INSERTS) for server in (mariadb, ours))
        assert mine == theirs, answer_differences(theirs, mine)
        assert dict(mine)["INSERT INTO t (id) VALUES (NULL)"][0] == 1
        assert dict(mine)["SELECT * FROM t ORDER BY id"][1] == ((1, 1), (2, 2), (4, None))


PROMOTE = ["STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF"]


def test_a_restarted_slave_promoted_hands_out_the_next_id(tmp_path):
    """Our master's rows applied by a MariaDB replica and by our slave; both restarted, then made
    masters: each table's next id as the MariaDB replica's."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_reference, ours, replicas):
        for sql in SETUP:
            ours.query(sql)
        ok_answers(ours, [], ROLLED_BACK)
        ours.query("CREATE TABLE d.done (id INT PRIMARY KEY)")
        for replica in replicas:
            wait_for(lambda r=replica: rows_or_none(r, "SELECT * FROM d.done") == [], 90,
                     message=lambda r=replica: f"{r} to apply the master's statements")
        answers = []
        for replica in replicas:
            replica.stop()
            replica.start()
            answers.append((counters(replica), ok_answers(replica, PROMOTE, INSERTS)))
        (theirs, their_status), their_ids = answers[0]
        (mine, my_status), my_ids = answers[1]
        assert mine == theirs, answer_differences(theirs, mine)
        assert my_status == their_status
        assert my_ids == their_ids, answer_differences(their_ids, my_ids)
        assert dict(my_ids)["SELECT * FROM t ORDER BY id"][1] == ((1, 1), (2, 2), (4, None))
