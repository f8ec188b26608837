"""ANALYZE / CHECK / OPTIMIZE / REPAIR TABLE and SHOW OPEN TABLES against a live MariaDB 10.11:
MariaDB's rows per table (OPTIMIZE's note that InnoDB recreates instead, REPAIR's that InnoDB
cannot, ANALYZE ... PERSISTENT's engine-independent statistics), a table that does not exist or
a view (but for CHECK) an Error row and 'Operation failed' instead of a statement error, a table
named twice 1066, NO_WRITE_TO_BINLOG / LOCAL, TABLES and the trailing options accepted. Each
statement runs on a stock MariaDB and on our master and the answers are compared. ANALYZE /
OPTIMIZE / REPAIR binlogged as MariaDB binlogs them (a GTID of their own, whatever their rows
say; not with NO_WRITE_TO_BINLOG / LOCAL; CHECK never), so the GTIDs number alike, and a MariaDB
replica of ours and our slave apply them.

Left out: SHOW OPEN TABLES without FROM (MariaDB lists its table cache, mysql.* included; here
every table of every database)."""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours, reference_ours_and_replicas

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.e (id INT PRIMARY KEY, v VARCHAR(5))",
    "CREATE VIEW d.vv AS SELECT id FROM d.e",
]

QUERIES = [
    "ANALYZE TABLE e",
    "CHECK TABLE e",
    "OPTIMIZE TABLE e",
    "REPAIR TABLE e",
    "OPTIMIZE NO_WRITE_TO_BINLOG TABLE e",
    "REPAIR NO_WRITE_TO_BINLOG TABLE e QUICK",
    "REPAIR LOCAL TABLE e EXTENDED USE_FRM",
    "ANALYZE TABLES e",
    "ANALYZE TABLE e PERSISTENT FOR ALL",
    "ANALYZE TABLE e PERSISTENT FOR COLUMNS (id) INDEXES (PRIMARY)",
    "CHECK TABLE e FOR UPGRADE",
    "ANALYZE TABLE nosuch",
    "CHECK TABLE e, nosuch",
    "REPAIR TABLE nosuch.t",
    "OPTIMIZE TABLE e, e",
    "REPAIR TABLE e, d.e",
    "CHECK TABLE vv",
    "ANALYZE TABLE vv",
    "OPTIMIZE TABLE vv",
    "REPAIR TABLE vv",
    "REPAIR TABLE",
    "SHOW OPEN TABLES FROM d",
    "SHOW OPEN TABLES IN d LIKE 'v%'",
    "SHOW OPEN TABLES FROM d WHERE `Table` = 'e'",
]


def test_table_maintenance_answers_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("OPTIMIZE TABLE e, e", ("error", 1066, "42000", "Not unique table/alias: 'e'")) in theirs
        assert ours == theirs


LOGGED = [
    "ANALYZE TABLE e", "ANALYZE NO_WRITE_TO_BINLOG TABLE e", "OPTIMIZE TABLE e", "OPTIMIZE LOCAL TABLE e",
    "REPAIR TABLE e QUICK", "REPAIR NO_WRITE_TO_BINLOG TABLE e", "CHECK TABLE e", "ANALYZE TABLE nosuch",
    "ANALYZE TABLE e PERSISTENT FOR ALL", "REPAIR VIEW vv", "INSERT INTO e VALUES (1, 'a')",
]


def _logged(server) -> list[tuple[str, object]]:
    """The binlog's GTID and QUERY events after the setup, as (type, info): a GTID by its seq_no
    past the first's."""
    (name, *_), = server.query("SHOW MASTER STATUS")
    events = [(row[2], row[5]) for row in server.query(f"SHOW BINLOG EVENTS IN '{name}'") if row[2] in ("Gtid", "Query")]
    first = next(int(info.split("-")[-1]) for kind, info in events if kind == "Gtid")
    return [(kind, int(info.split("-")[-1]) - first if kind == "Gtid" else info) for kind, info in events]


def test_analyze_optimize_repair_binlogged_as_mariadb_and_replicated(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True, reference_log_bin="master-bin") as (
            reference, ours, replicas):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
            server.query("FLUSH BINARY LOGS")
            conn = server.connect("d")
            try:
                for sql in LOGGED:
                    with conn.cursor() as cur:
                        cur.execute(sql)
            finally:
                conn.close()
        theirs, mine = _logged(reference), _logged(ours)
        gtid = ours.query("SELECT @@gtid_binlog_pos")[0][0]
        for replica in replicas:
            wait_for(lambda r=replica: r.query("SELECT @@gtid_slave_pos")[0][0] == gtid, 60,
                     message=lambda r=replica: f"{r} to apply up to {gtid}: {r.query('SHOW SLAVE STATUS')}")
            assert replica.query("SELECT * FROM d.e") == [(1, "a")]
    assert ("Query", "use `d`; ANALYZE TABLE e") in theirs
    assert mine == theirs
