"""SQL-level prepared statements (PREPARE / EXECUTE [USING] / DEALLOCATE | DROP PREPARE /
EXECUTE IMMEDIATE) answered as MariaDB 10.11 answers them over the text protocol: rows with
their column definitions, OK with affected rows and insert ids, the errors (1243, 1210, 1064,
1065, 1295, 1461, 1970), Prepared_stmt_count and the Com_*_sql counters, inside a transaction
and with autocommit off; a statement's name is its connection's (COM_RESET_CONNECTION drops it);
an account's privileges checked when it executes. EXECUTE'd writes replicate with their values
inlined, to a MariaDB replica and to our slave alike.

Left out, where the two still differ: a select item holding a placeholder is named by the
value's literal here (`SELECT ? + 1` USING 1: '1 + 1'), '? + 1' there; a user variable's
value is typed as its literal would be (an integer variable LONG, MariaDB's LONGLONG; a string
variable VAR_STRING, MariaDB's LONG_BLOB), as is a binary string's (X'41': a string here). A PREPARE of a SELECT counts a Com_select here
(the statement that describes it), an EXECUTE MariaDB refuses while parsing (1064, 1970) counts none there."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    both_described,
    differences,
    mariadb_and_ours,
    reference_ours_and_replicas,
    replay,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.e (id INT PRIMARY KEY AUTO_INCREMENT, c ENUM('a','b','c'), v VARCHAR(5))"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.e VALUES (1,'a','a'),(2,'b','A'),(3,'c','b')",
]

QUERIES = [
    "PREPARE s FROM 'SELECT 1'",
    "EXECUTE s",
    "PREPARE s FROM 'SELECT ? + 1 AS a, ? AS b'",
    "EXECUTE s USING 1, 'x'",
    "EXECUTE s USING 1+1, CONCAT('a','b')",
    "EXECUTE s USING 1",
    "EXECUTE s",
    "SET @a = 5, @b = 'hello', @e = 1e2",
    "EXECUTE s USING @e, @nonexist",
    "PREPARE t FROM @b",
    "SET @q = 'SELECT id, v FROM e WHERE id > ? ORDER BY id'",
    "PREPARE t FROM @q",
    "EXECUTE t USING 1",
    "DEALLOCATE PREPARE t",
    "EXECUTE t USING 1",
    "DROP PREPARE t",
    "DROP PREPARE s",
    "EXECUTE s",
    "EXECUTE nosuch",
    "DEALLOCATE PREPARE nosuch",
    "PREPARE b FROM 'SELEC 1'",
    "EXECUTE b",
    "PREPARE b FROM 'SELECT * FROM nosuch'",
    "PREPARE w FROM 'INSERT INTO e (c, v) VALUES (?, ?)'",
    "EXECUTE w USING 'a', 'x'",
    "SELECT LAST_INSERT_ID()",
    "EXECUTE w USING 'z', 'x'",
    "EXECUTE w USING 'b', 'toolongvalue'",
    "PREPARE u FROM 'UPDATE e SET v = ? WHERE id >= ?'",
    "EXECUTE u USING 'q', 3",
    "SELECT * FROM e ORDER BY id",
    "EXECUTE IMMEDIATE 'SELECT ? AS a, ? AS b' USING 1, 'two'",
    "EXECUTE IMMEDIATE 'SELECT 1'",
    "EXECUTE IMMEDIATE 'SELECT ?'",
    "EXECUTE IMMEDIATE @q USING 2",
    "EXECUTE IMMEDIATE CONCAT('SELECT ', '9')",
    "PREPARE p FROM 'PREPARE x FROM ''SELECT 1'''",
    "PREPARE p FROM 'EXECUTE s'",
    "PREPARE p FROM 'DEALLOCATE PREPARE s'",
    "PREPARE p FROM 'DROP PREPARE s'",
    "EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE ''SELECT 1'''",
    "PREPARE p FROM 'SELECT 1; SELECT 2'",
    "PREPARE p FROM ''",
    "PREPARE p FROM NULL",
    "PREPARE p FROM 1",
    "PREPARE p FROM CONCAT('SELECT ', 1)",
    "SHOW STATUS LIKE 'Prepared_stmt_count'",
    "PREPARE p FROM 'SHOW TABLES'",
    "EXECUTE p",
    "PREPARE p FROM 'SET @z = ?'",
    "EXECUTE p USING 42",
    "SELECT @z",
    "PREPARE `my s` FROM 'SELECT 7'",
    "EXECUTE `my s`",
    "prepare S2 from 'select 8'",
    "execute s2",
    "PREPARE p FROM 'CREATE TABLE z (a INT)'",
    "EXECUTE p",
    "EXECUTE p",
    "PREPARE p FROM 'SELECT ? AS a'",
    "EXECUTE p USING DEFAULT",
    "EXECUTE p USING IGNORE",
    "EXECUTE p USING 1.50",
    "EXECUTE p USING DATE '2020-01-01'",
    "SHOW SESSION STATUS WHERE Variable_name IN ('Com_prepare_sql', 'Com_execute_sql', 'Com_dealloc_sql',"
    " 'Com_execute_immediate')",
    "EXECUTE p USING (SELECT 1)",
    "EXECUTE p USING 1 2",
    "EXECUTE p USING",
    "EXECUTE",
    "DEALLOCATE s",
    "EXECUTE IMMEDIATE",
    "PREPARE s FROM 'SELECT 1'",
    "PREPARE s FROM 'SELEC'",
    "EXECUTE s",
    "SET GLOBAL max_prepared_stmt_count = 4",
    "PREPARE m1 FROM 'SELECT 1'",
    "PREPARE m2 FROM 'SELECT 2'",
    "PREPARE m3 FROM 'SELECT 3'",
    "EXECUTE IMMEDIATE 'SELECT 4'",
    "PREPARE m1 FROM 'SELECT 5'",
    "EXECUTE m1",
    "SHOW STATUS LIKE 'Prepared_stmt_count'",
    "SET GLOBAL max_prepared_stmt_count = 16382",
    # a transaction, and autocommit off
    "BEGIN",
    "EXECUTE w USING 'c', 'txn'",
    "ROLLBACK",
    "SET autocommit = 0",
    "EXECUTE w USING 'c', 'kept'",
    "EXECUTE IMMEDIATE 'DELETE FROM e WHERE id = ?' USING 1",
    "COMMIT",
    "SET autocommit = 1",
    "SELECT * FROM e ORDER BY id",
]


def test_sql_prepared_statements_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_described(reference, master, SETUP, QUERIES)
    # what the comparison stands on: MariaDB's own answers for a few of the cases
    assert ("EXECUTE s USING 1", "error", 1210, "Incorrect arguments to EXECUTE") in theirs
    assert ("EXECUTE nosuch", "error", 1243, "Unknown prepared statement handler (nosuch) given to EXECUTE") in theirs
    assert ("EXECUTE IMMEDIATE 'SELECT 4'", ((4,),), [("4", 3, 0)], ()) in theirs
    differing = [(t, m) for t, m in zip(theirs, ours, strict=True) if t != m]
    assert not differing, "\n".join(f"MariaDB {t}\nours    {m}" for t, m in differing)


def test_names_are_the_connections_own(tmp_path):
    steps = [
        ("root", "PREPARE s FROM 'SELECT 1'"),
        ("u", "EXECUTE s"),
        ("u", "PREPARE s FROM 'SELECT 2'"),
        ("root", "EXECUTE s"),
        ("u", "EXECUTE s"),
        ("u", "PREPARE r FROM 'SELECT v FROM d.e WHERE id = ?'"),
        ("u", "EXECUTE r USING 1"),
        ("u", "PREPARE w FROM 'INSERT INTO d.e (c, v) VALUES (?, ?)'"),
        ("u", "EXECUTE w USING 'a', 'no'"),
        ("u", "EXECUTE IMMEDIATE 'DELETE FROM d.e WHERE id = ?' USING 1"),
        ("root", "SELECT COUNT(*) FROM d.e"),
    ]
    setup = [*SETUP, "CREATE USER u@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON d.* TO u@'%'"]
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs = replay(reference, setup, steps, {"u": "pw"})
        mine = replay(master, setup, steps, {"u": "pw"})
        after_reset = []
        for server in (reference, master):
            conn = server.connect("d")
            try:
                with conn.cursor() as cur:
                    cur.execute("PREPARE s FROM 'SELECT 1'")
                    conn._execute_command(0x1F, b"")  # COM_RESET_CONNECTION
                    conn._read_ok_packet()
                    try:
                        cur.execute("EXECUTE s")
                    except pymysql.MySQLError as exc:
                        after_reset.append(exc.args[0])
                    cur.execute("SHOW STATUS LIKE 'Prepared_stmt_count'")
                    after_reset.append(cur.fetchall())
            finally:
                conn.close()
    assert theirs[4] == ("rows", ((2,),))  # u's own s
    assert theirs[7][:2] == ("error", 1142)  # the INSERT denied at PREPARE
    assert not differences(steps, theirs, mine), differences(steps, theirs, mine)
    assert after_reset[:2] == [1243, (("Prepared_stmt_count", "0"),)]
    assert after_reset[2:] == after_reset[:2]


REPLICATED = [
    "CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, a VARCHAR(20), b DECIMAL(6,2), c DOUBLE,"
    " e DATETIME(6), f BLOB, g DATE)",
    "SET @a = 'x''y\\\\z', @n = 7, @dec = 2.5, @dbl = 1e2, @nul = NULL",
    "PREPARE s FROM 'INSERT INTO d.t (a, b, c, e, f, g) VALUES (?, ?, ?, ?, ?, ?)'",
    "EXECUTE s USING @a, @dec, @dbl, NOW(6), X'00ff', CURDATE()",
    "EXECUTE s USING 'lit', 1.5, 2e0, '2020-01-01 10:00:00.5', @nul, DATE '2021-02-03'",
    "EXECUTE s USING @n, @n, @n, TIMESTAMP '2021-02-03 04:05:06', CONCAT('a', 'b'), NULL",
    "EXECUTE IMMEDIATE 'UPDATE d.t SET a = ? WHERE id = ?' USING 'u', 2",
    "EXECUTE IMMEDIATE 'DELETE FROM d.t WHERE id = ?' USING @n",
    "EXECUTE IMMEDIATE 'INSERT INTO d.t (id, a) VALUES (?, ?)' USING 100, 'end'",
]


def test_executed_writes_replicate_alike(tmp_path):
    """The statement with its values inlined is what the binlog carries: the MariaDB replica
    and our slave store the master's rows."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_, ours, replicas):
        ours.query("CREATE DATABASE d")
        conn = ours.connect("d")
        try:
            with conn.cursor() as cur:
                for sql in REPLICATED:
                    cur.execute(sql)
        finally:
            conn.close()
        select = "SELECT id, a, b, c, e, HEX(f), g FROM d.t ORDER BY id"
        mine = ours.query(select)
        assert len(mine) == 4 and mine[-1][0] == 100
        assert mine[0][1] == "x'y\\z" and mine[0][5] == "00FF"
        for replica in replicas:
            wait_for(lambda r=replica: rows_or_none(r, "SELECT id FROM d.t WHERE id = 100") == [(100,)], 90,
                     message="the replica's last row")
            assert replica.query(select) == mine
