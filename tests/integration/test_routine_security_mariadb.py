"""Stored routines' privileges and security against a live MariaDB 10.11, replayed as root and as
accounts on a stock MariaDB (binlog on, binlog_format STATEMENT) and on our master, each answer
(error code, SQLSTATE and message, or the rows) MariaDB's:

- EXECUTE wanted for CALL and for a stored function's call (1370), held globally, on the
  database or on the routine: GRANT / REVOKE ... ON PROCEDURE | FUNCTION db.r (1144, 1305, 1403,
  a grantor without GRANT OPTION 1370), SHOW GRANTS' routine lines, mysql.procs_priv;
- automatic_sp_privileges: CREATE PROCEDURE / FUNCTION grants its account EXECUTE and ALTER
  ROUTINE on it, DROP takes them again;
- SQL SECURITY DEFINER (the default): the body runs with the definer's privileges (a caller with
  EXECUTE only reads and writes through it; the definer needs EXECUTE on the routine too and is
  named in 1370 / 1142, a definer that does not exist 1449) and CURRENT_USER() is the definer;
  SQL SECURITY INVOKER
  checks the caller;
- log_bin_trust_function_creators: CREATE FUNCTION none of DETERMINISTIC, NO SQL, READS SQL DATA
  1418 for every account (after 1304), then 1419 without SUPER; such a function's call under
  binlog_format STATEMENT 1418; SET GLOBAL (SUPER or BINLOG ADMIN) / SHOW of the variable.

Then the same procedure run by an account with EXECUTE only on ours, replicated to a MariaDB
replica and to our slave: the rows it wrote and the routine grants are the master's. And
automatic_sp_privileges on the replicas: CREATE PROCEDURE / FUNCTION replayed grants the
routine's definer where it exists there, DROP takes every account's grants on the routine, as
on MariaDB's replica.
"""

from __future__ import annotations

import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    assert_same_rows,
    differences,
    mariadb_and_ours,
    reference_ours_and_replicas,
    replay,
    rows_or_none,
)

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="mariadbd not installed"),
]

ACCOUNTS = ("d", "e", "c", "g", "h")
PEEK = ("CREATE DEFINER=d@'%' PROCEDURE rp.peek(IN k INT)\n"
        "BEGIN SELECT v, CURRENT_USER() FROM secret WHERE id = k; INSERT INTO audit (n) VALUES (k); END")
SETUP = (
    "CREATE DATABASE rp",
    "CREATE TABLE rp.secret (id INT PRIMARY KEY, v VARCHAR(10))",
    "INSERT INTO rp.secret VALUES (1, 'a'), (2, 'b')",
    "CREATE TABLE rp.audit (id INT AUTO_INCREMENT PRIMARY KEY, n INT)",
    "CREATE TABLE rp.pub (id INT PRIMARY KEY)",
    *(f"CREATE USER {user}@'%' IDENTIFIED BY 'pw'" for user in ACCOUNTS),
    "GRANT SELECT, INSERT, EXECUTE ON rp.* TO d@'%'",  # the definer (who needs EXECUTE too)
    "GRANT SELECT ON rp.pub TO e@'%'",  # the caller: no privilege on secret / audit
    "GRANT CREATE ROUTINE ON rp.* TO c@'%'",
    "GRANT SELECT ON rp.audit TO c@'%'",
    PEEK,
    "CREATE DEFINER=d@'%' PROCEDURE rp.peek_inv(IN k INT) SQL SECURITY INVOKER SELECT v FROM secret WHERE id = k",
    "CREATE DEFINER=d@'%' PROCEDURE rp.wr() UPDATE secret SET v = 'x'",
    "CREATE DEFINER=d@'%' FUNCTION rp.fv(k INT) RETURNS VARCHAR(10) READS SQL DATA"
    " RETURN (SELECT v FROM secret WHERE id = k)",
    "CREATE DEFINER=d@'%' FUNCTION rp.fu() RETURNS VARCHAR(80) DETERMINISTIC RETURN CURRENT_USER()",
    "CREATE DEFINER=d@'%' FUNCTION rp.fi(k INT) RETURNS VARCHAR(10) READS SQL DATA SQL SECURITY INVOKER"
    " RETURN (SELECT v FROM secret WHERE id = k)",
    "CREATE DEFINER=c@'%' FUNCTION rp.fc(k INT) RETURNS VARCHAR(10) READS SQL DATA"
    " RETURN (SELECT v FROM secret WHERE id = k)",
    "CREATE DEFINER=nobody@'%' PROCEDURE rp.orphan() SELECT 1",
    "CREATE DEFINER=g@'%' PROCEDURE rp.gp() SELECT 1",
)
PROCS_PRIV = "SELECT Host, Db, User, Routine_name, Routine_type, Proc_priv FROM mysql.procs_priv" \
             " WHERE User IN ('g', 'h', 'c') ORDER BY User, Routine_type, Routine_name"
STEPS: tuple[tuple[str, str], ...] = (
    ("root", "USE rp"), ("e", "USE rp"), ("c", "USE rp"),
    # EXECUTE wanted
    ("e", "CALL rp.peek(1)"), ("e", "SELECT fu()"), ("e", "SELECT fv(1) FROM pub"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.peek TO e@'%'"),
    ("root", "GRANT EXECUTE ON FUNCTION fv TO e@'%'"),
    ("root", "GRANT EXECUTE ON FUNCTION rp.fu TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.peek_inv TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.wr TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.orphan TO e@'%'"),
    ("root", "GRANT EXECUTE ON FUNCTION rp.fc TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.gp TO e@'%'"),
    # DEFINER: the definer's privileges and CURRENT_USER(); INVOKER: the caller's
    ("e", "SELECT * FROM secret"),
    ("e", "CALL peek(1)"), ("e", "CALL rp.peek(2)"),
    ("e", "CALL peek_inv(1)"),
    ("e", "CALL wr()"),
    ("e", "CALL orphan()"), ("e", "CALL gp()"),
    ("e", "SELECT fv(2), fu()"),
    ("e", "SELECT fv(1) FROM pub"),
    ("e", "SELECT fi(1)"),
    ("e", "SELECT fc(1)"),
    ("root", "SELECT fc(1)"), ("root", "CALL wr()"), ("root", "SELECT fv(1), fu()"),
    ("root", "GRANT EXECUTE ON FUNCTION rp.fi TO e@'%'"),
    ("e", "SELECT fi(1)"),
    ("root", "SELECT n FROM audit ORDER BY id"),
    ("root", "SELECT v FROM secret ORDER BY id"),
    # REVOKE, and the grants refused
    ("root", "REVOKE EXECUTE ON PROCEDURE rp.peek FROM e@'%'"),
    ("e", "CALL rp.peek(1)"),
    ("root", "REVOKE EXECUTE ON PROCEDURE rp.peek FROM e@'%'"),
    ("root", "GRANT SELECT ON PROCEDURE rp.peek TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rp.nope TO e@'%'"),
    ("root", "GRANT EXECUTE ON FUNCTION rp.peek TO e@'%'"),
    # SHOW GRANTS and mysql.procs_priv
    ("root", "GRANT EXECUTE, ALTER ROUTINE ON PROCEDURE rp.peek TO g@'%'"),
    ("root", "GRANT EXECUTE ON FUNCTION rp.fv TO g@'%' WITH GRANT OPTION"),
    ("root", "GRANT ALL ON PROCEDURE rp.PEEK_INV TO h@'%'"),
    ("root", "SHOW GRANTS FOR g@'%'"), ("root", "SHOW GRANTS FOR h@'%'"),
    ("root", PROCS_PRIV),
    ("g", "GRANT EXECUTE ON FUNCTION rp.fv TO h@'%'"),
    ("g", "GRANT EXECUTE ON PROCEDURE rp.peek TO h@'%'"),
    ("root", "SHOW GRANTS FOR h@'%'"),
    # automatic_sp_privileges
    ("c", "CREATE PROCEDURE mine() SELECT COUNT(*) FROM audit"),
    ("root", "SHOW GRANTS FOR c@'%'"),
    ("c", "CALL mine()"),
    ("c", "GRANT EXECUTE ON PROCEDURE rp.mine TO e@'%'"),
    ("c", "DROP PROCEDURE mine"),
    ("root", "SHOW GRANTS FOR c@'%'"),
    ("c", "DROP PROCEDURE peek"),
    # log_bin_trust_function_creators
    ("root", "SELECT @@global.log_bin_trust_function_creators, @@global.automatic_sp_privileges"),
    ("c", "CREATE FUNCTION cf() RETURNS INT RETURN 1"),
    ("c", "CREATE FUNCTION cf() RETURNS INT DETERMINISTIC RETURN 1"),
    ("root", "CREATE FUNCTION cf() RETURNS INT RETURN 1"),
    ("root", "SET GLOBAL log_bin_trust_function_creators = ON"),
    ("root", "SHOW GLOBAL VARIABLES LIKE 'log_bin_trust_function_creators'"),
    ("c", "CREATE FUNCTION cf() RETURNS INT RETURN 1"),
    ("c", "CREATE FUNCTION cf() RETURNS INT RETURN 1"),
    ("root", PROCS_PRIV),
    ("c", "SET GLOBAL log_bin_trust_function_creators = OFF"),
    ("root", "SET GLOBAL log_bin_trust_function_creators = OFF"),
    ("c", "CREATE FUNCTION cf() RETURNS INT RETURN 1"),
    ("root", "SELECT cf()"),  # (binlog_format STATEMENT)
    ("root", "SET GLOBAL automatic_sp_privileges = OFF"),
    ("c", "CREATE PROCEDURE mine2() SELECT 1"),
    ("c", "CALL mine2()"),
    ("root", "SET GLOBAL automatic_sp_privileges = ON"),
)


def test_routine_privileges_and_security_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as servers:
        theirs, mine = (replay(server, SETUP, STEPS, dict.fromkeys(ACCOUNTS, "pw")) for server in servers)
    assert differences(STEPS, theirs, mine) == ""
    codes = {a[1] for a in theirs if a[0] == "error"}
    assert {1370, 1142, 1449, 1144, 1305, 1403, 1418, 1419, 1304} <= codes, codes


def test_definer_procedure_of_an_execute_only_account_replicates(tmp_path):
    setup = (*SETUP[:SETUP.index(PEEK) + 1],)  # the tables, the accounts and rp.peek
    grant = "GRANT EXECUTE ON PROCEDURE rp.peek TO e@'%'"
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            for sql in (*setup, grant):
                server.query(sql)
            conn = server.connect("rp", user="e", password="pw")
            try:
                with conn.cursor() as cur:
                    for k in (1, 2, 2):
                        cur.execute(f"CALL peek({k})")
            finally:
                conn.close()
        assert_same_rows(reference, ours, replicas, "SELECT id, n FROM rp.audit ORDER BY id")
        want = ours.query("SHOW GRANTS FOR e@'%'")
        assert any("ON PROCEDURE `rp`.`peek`" in row[0] for row in want)
        assert want == reference.query("SHOW GRANTS FOR e@'%'")
        for replica in replicas:
            wait_for(lambda r=replica: r.query("SHOW GRANTS FOR e@'%'") == want, 60,
                     message=lambda r=replica: f"{r} to hold the routine grant")


# what automatic_sp_privileges does on a replica, as MariaDB's SQL thread: CREATE PROCEDURE /
# FUNCTION grants the routine's DEFINER EXECUTE and ALTER ROUTINE where that account exists there
# (not the account the master granted them to: ROOTS' definer d gets them on the replicas only),
# DROP takes every account's grants on it, the replicated GRANT's too
REPLICATED_ROUTINES = (
    "CREATE DATABASE rg",
    "CREATE TABLE rg.mark (id INT PRIMARY KEY)",
    *(f"CREATE USER {user}@'%' IDENTIFIED BY 'pw'" for user in ("c", "d", "e")),
    "GRANT CREATE ROUTINE ON rg.* TO c@'%'",
    "SET GLOBAL log_bin_trust_function_creators = ON",  # (c's CREATE FUNCTION, without SUPER)
)
CREATES = (
    ("c", "CREATE PROCEDURE cp() SELECT 1"),
    ("c", "CREATE FUNCTION cf() RETURNS INT DETERMINISTIC RETURN 1"),
    ("root", "CREATE DEFINER=d@'%' PROCEDURE rg.dp() SELECT 2"),
    ("root", "CREATE DEFINER=nobody@'%' PROCEDURE rg.np() SELECT 3"),
    ("root", "GRANT EXECUTE ON PROCEDURE rg.dp TO e@'%'"),
    ("root", "GRANT EXECUTE ON PROCEDURE rg.np TO e@'%'"),
    ("root", "GRANT SELECT ON rg.mark TO e@'%'"),
)
DROPS = (
    ("c", "DROP PROCEDURE cp"),
    ("root", "DROP PROCEDURE rg.dp"),
    ("root", "DROP FUNCTION IF EXISTS rg.cf"),
)
ROUTINE_GRANTS = ("SELECT Host, Db, User, Routine_name, Routine_type, Proc_priv, Grantor FROM mysql.procs_priv"
                  " WHERE Db = 'rg' ORDER BY User, Routine_type, Routine_name")
TABLE_GRANTS = "SELECT Host, Db, User, Table_name, Table_priv, Grantor FROM mysql.tables_priv WHERE Db = 'rg'"


def test_routine_grants_on_replicas_follow_create_and_drop_as_mariadbs(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (_, ours, replicas):
        for sql in REPLICATED_ROUTINES:
            ours.query(sql)
        conns = {"root": ours.connect("rg"), "c": ours.connect("rg", user="c", password="pw")}
        seen = []
        try:
            for mark, steps in enumerate((CREATES, DROPS)):
                for who, sql in steps:
                    with conns[who].cursor() as cur:
                        cur.execute(sql)
                ours.query(f"INSERT INTO rg.mark VALUES ({mark})")
                for replica in replicas:
                    wait_for(lambda r=replica, m=mark: rows_or_none(r, f"SELECT id FROM rg.mark WHERE id = {m}") == [(m,)],
                             60, message=lambda r=replica: f"{r} to apply the routine statements")
                seen.append([server.query(ROUTINE_GRANTS) for server in (ours, *replicas)])
            tables = [replica.query(TABLE_GRANTS) for replica in replicas]
        finally:
            for conn in conns.values():
                conn.close()
    assert tables[0] == tables[1] and tables[0], tables  # (the grantor of a replicated GRANT too)
    (master, theirs, mine), (master_after, theirs_after, mine_after) = seen
    assert mine == theirs, (theirs, mine)
    assert mine_after == theirs_after, (theirs_after, mine_after)
    assert {row[2] for row in theirs} == {"c", "d", "e"} and {row[2] for row in master} == {"c", "e"}, seen
    assert theirs_after == [row for row in theirs if row[3] == "np"], seen
    assert master_after == [row for row in master if row[3] == "np"], seen


# a stored function called in another's body: EXECUTE on it is wanted of the account the outer
# body runs as (its definer for SQL SECURITY DEFINER, the caller for INVOKER), not of the caller
NESTED_SETUP = (
    "CREATE DATABASE nf",
    *(f"CREATE USER {user}@'%' IDENTIFIED BY 'pw'" for user in ("d", "e", "k")),
    "CREATE DEFINER=d@'%' FUNCTION nf.inner_f() RETURNS INT DETERMINISTIC RETURN 7",
    "CREATE DEFINER=d@'%' FUNCTION nf.outer_f() RETURNS INT DETERMINISTIC RETURN inner_f() + 1",
    "CREATE DEFINER=k@'%' FUNCTION nf.outer_k() RETURNS INT DETERMINISTIC RETURN nf.outer_f() + 10",
    "CREATE DEFINER=d@'%' FUNCTION nf.outer_inv() RETURNS INT DETERMINISTIC SQL SECURITY INVOKER"
    " RETURN inner_f() + 2",
    "GRANT EXECUTE ON FUNCTION nf.outer_f TO d@'%'",
    "GRANT EXECUTE ON FUNCTION nf.outer_f TO e@'%'",
    "GRANT EXECUTE ON FUNCTION nf.outer_inv TO e@'%'",
    "GRANT EXECUTE ON FUNCTION nf.outer_k TO e@'%'",
    "GRANT EXECUTE ON FUNCTION nf.outer_k TO k@'%'",
)
NESTED_STEPS: tuple[tuple[str, str], ...] = (
    ("e", "USE nf"), ("root", "USE nf"),
    ("e", "SELECT outer_f()"),  # the definer d lacks EXECUTE on inner_f
    ("root", "SELECT outer_f()"),
    ("root", "GRANT EXECUTE ON FUNCTION nf.inner_f TO d@'%'"),
    ("e", "SELECT outer_f()"),  # e itself has none on inner_f
    ("root", "SELECT outer_f(), outer_f() + 1"),
    ("e", "SELECT outer_inv()"),  # INVOKER: e's own EXECUTE
    ("e", "SELECT outer_k()"),  # k lacks EXECUTE on outer_f
    ("root", "GRANT EXECUTE ON FUNCTION nf.outer_f TO k@'%'"),
    ("e", "SELECT outer_k()"),
    ("k", "SELECT outer_k()"),
    ("root", "GRANT EXECUTE ON FUNCTION nf.inner_f TO e@'%'"),
    ("e", "SELECT outer_inv(), inner_f()"),
    ("root", "REVOKE EXECUTE ON FUNCTION nf.inner_f FROM d@'%'"),
    ("e", "SELECT outer_inv()"),
    ("e", "SELECT outer_k()"),
    ("root", "SELECT outer_k()"),
)


def test_a_function_called_in_a_function_is_checked_as_its_body_runs_as_mariadbs(tmp_path):
    with mariadb_and_ours(tmp_path) as servers:
        theirs, mine = (replay(server, NESTED_SETUP, NESTED_STEPS, dict.fromkeys(("d", "e", "k"), "pw"))
                        for server in servers)
    assert differences(NESTED_STEPS, theirs, mine) == ""
    assert sum(a[0] == "error" for a in theirs) >= 3 and any(a[0] == "rows" for a in theirs), theirs
