"""MariaDB 10.11's own command-line tools against a stock MariaDB and against our master, the
same data on both: `mariadb-check` / `-analyze` / `-optimize` / `-repair`, `mariadb-show`,
`mariadb-import` and `mariadb-slap`, their output and exit status compared, and the rows they
write followed to a MariaDB replica and to our slave.

It found: `mariadb-slap` stopped at its first CREATE TABLE (the C client sends a statement's
terminating NUL, which MariaDB's lexer reads as the end of the text: ours answered 1064) and,
past it, at `id serial` (SERIAL's UNIQUE key was not made: 1075); `mariadb-show -v` / `--count`
printed N/A for every table's columns (COM_FIELD_LIST was an unknown command, 1047);
`mariadb-import --local --replace` stored a value strict mode refuses (LOAD DATA LOCAL ...
REPLACE is not IGNORE: MariaDB fails it with 1265 and stores nothing); COM_FIELD_LIST on an
autocommit=0 connection began a transaction and counted a Com_select (mysqld_list_fields does
neither).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pymysql
import pytest
from pymysql.constants import COMMAND
from pymysql.protocol import FieldDescriptorPacket

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    OUR_SERVER_CHARSET,
    both_answer,
    mariadb_and_ours,
    reference_ours_and_replicas,
    rows_or_none,
)

TOOLS = ("mariadb-check", "mariadb-analyze", "mariadb-optimize", "mariadb-repair", "mariadb-show",
         "mariadb-import", "mariadb-slap")

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available() or any(shutil.which(t) is None for t in TOOLS),
                       reason="needs Debian's mariadb-server and mariadb-client"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(20), k INT, KEY kk (k))",
    "INSERT INTO d.t (v, k) VALUES ('a', 1), ('b', 2), ('c', 3)",
    "CREATE TABLE d.u (a INT PRIMARY KEY, b TEXT NOT NULL, c DECIMAL(5,2) DEFAULT 1.5, dt TIMESTAMP NULL DEFAULT NULL)",
    "INSERT INTO d.u (a, b) VALUES (1, 'x')",
    "CREATE VIEW d.vv AS SELECT id, v FROM d.t",
    "CREATE DATABASE e",
    "CREATE TABLE e.w (id INT PRIMARY KEY)",
]
# the schemas MariaDB has and ours has not (mysql's own tables, sys, performance_schema)
_SYSTEM = re.compile(r"^\|?\s*(mysql|sys|performance_schema)(\.|\s|$)")


def _tool(name: str, port: int, *args: str, cwd: Path | None = None) -> tuple[int, str]:
    proc = subprocess.run([name, "-h127.0.0.1", f"-P{port}", "-uroot", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)
    return proc.returncode, (proc.stdout + proc.stderr).replace(str(port), "PORT")


def _ours_only(output: str) -> list[str]:
    """A check tool's lines without those of MariaDB's system schemas (a table's line and the
    note / status lines under it)."""
    kept: list[str] = []
    skipping = False
    for line in output.splitlines():
        if re.match(r"^(note|status|error|warning|Error)\s+:", line):
            if not skipping:
                kept.append(line)
            continue
        skipping = bool(_SYSTEM.match(line))
        if not skipping:
            kept.append(line)
    return kept


def test_check_analyze_optimize_and_repair_tools_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        for tool in ("mariadb-check", "mariadb-analyze", "mariadb-optimize", "mariadb-repair"):
            for args in (["--databases", "d"], ["--all-databases"], ["--auto-repair", "--all-databases"],
                         ["--check-upgrade", "--all-databases"], ["d", "t", "u"], ["--databases", "d", "nosuch"]):
                theirs, mine = _tool(tool, reference.port, *args), _tool(tool, ours.port, *args)
                assert (mine[0], _ours_only(mine[1])) == (theirs[0], _ours_only(theirs[1])), (tool, args)


def test_the_table_maintenance_statements_answer_as_mariadb(tmp_path):
    # (the VIEW forms are mariadb-upgrade's; they were a 1064)
    queries = ["CHECK TABLE t, u QUICK", "CHECK TABLE t FOR UPGRADE", "CHECK TABLE nosuch", "ANALYZE LOCAL TABLE t, u",
               "ANALYZE TABLE t PERSISTENT FOR ALL", "OPTIMIZE NO_WRITE_TO_BINLOG TABLE t", "REPAIR TABLE t USE_FRM",
               "REPAIR TABLE vv", "CHECK VIEW vv", "CHECK VIEW t", "CHECK VIEW nosuch", "CHECK VIEW vv, t FOR UPGRADE",
               "CHECK VIEW vv QUICK", "REPAIR VIEW vv", "REPAIR VIEW t", "REPAIR NO_WRITE_TO_BINLOG VIEW vv",
               "REPAIR VIEW vv, t FROM MYSQL", "REPAIR VIEW nosuch", "CHECKSUM TABLE t QUICK"]
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        theirs, mine = both_answer(reference, ours, SETUP, queries)
    assert [(q, a) for (q, a), (_, b) in zip(mine, theirs, strict=True) if a != b] == []


def test_mariadb_show_lists_databases_tables_columns_keys_and_counts_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, ours):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        for args in ([], ["d"], ["d", "t"], ["-k", "d", "t"], ["--keys", "d", "u"], ["--count", "d"],
                     ["-v", "d"], ["-v", "-v", "d"], ["--count", "d", "t"], ["d", "t", "k%"], ["d", "%u%"],
                     ["nosuch"], ["d", "nosuch"]):
            theirs, mine = _tool("mariadb-show", reference.port, *args), _tool("mariadb-show", ours.port, *args)
            assert (mine[0], [line for line in mine[1].splitlines() if not _SYSTEM.match(line)]) == \
                (theirs[0], [line for line in theirs[1].splitlines() if not _SYSTEM.match(line)]), args
        # --status: SHOW TABLE STATUS, whose sizes and times are the storage engine's own
        code, shown = _tool("mariadb-show", ours.port, "--status", "d")
        assert code == 0 and all(f"| {name} " in shown for name in ("t", "u", "vv"))


def test_mariadb_import_loads_the_same_rows_as_into_mariadb_and_its_replicas_get_them(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    (files / "t.txt").write_text("1\tx\t10\n2\ty\t20\n3\tz\t30\n")
    (files / "u.txt").write_text("1,p\n5,q\n")
    (files / "bad.txt").write_text("7\tz\n8,q\n")  # (8,q: no INT, one field for two columns)
    runs = [
        ["--local", "imp", "t.txt"],
        ["--local", "--replace", "--fields-terminated-by=,", "--columns=a,b", "imp", "u.txt"],
        ["--local", "--ignore", "imp", "t.txt"],
        ["--local", "imp", "bad.txt"],
        ["--local", "--replace", "imp", "bad.txt"],  # strict mode: 1265, nothing stored
        ["--local", "--delete", "--lock-tables", "--use-threads=2", "imp", "t.txt", "u.txt"],
        ["--local", "--force", "imp", "nosuch.txt", "t.txt"],
        ["--local", "--ignore-lines=1", "--fields-optionally-enclosed-by=\"", "--replace", "imp", "t.txt"],
    ]
    tables = ("SELECT * FROM imp.t ORDER BY id", "SELECT * FROM imp.u ORDER BY a", "SELECT * FROM imp.bad ORDER BY a")
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for server in (reference, ours):
            server.query("CREATE DATABASE imp")
            server.query("CREATE TABLE imp.t (id INT PRIMARY KEY, v VARCHAR(10), k INT)")
            server.query("CREATE TABLE imp.u (a INT PRIMARY KEY, b TEXT)")
            server.query("CREATE TABLE imp.bad (a INT, b TEXT)")
        for args in runs:
            theirs = _tool("mariadb-import", reference.port, *args, cwd=files)
            mine = _tool("mariadb-import", ours.port, *args, cwd=files)
            # (the lines of --use-threads' loads in any order)
            assert (mine[0], sorted(mine[1].splitlines())) == (theirs[0], sorted(theirs[1].splitlines())), args
            assert [ours.query(q) for q in tables] == [reference.query(q) for q in tables], args
        for replica in replicas:
            for q in tables:
                wait_for(lambda r=replica, q=q: rows_or_none(r, q) == ours.query(q), 60,
                         message=lambda r=replica: f"{r} to hold the imported rows")


def _slap(port: int, *args: str) -> tuple[int, str]:
    return _tool("mariadb-slap", port, *args)


# each run but the first keeps its schema (--no-drop), which a second iteration would make again
SLAP_RUNS = [
    ["--auto-generate-sql", "--concurrency=4", "--iterations=2", "--number-of-queries=200", "--create-schema=s0"],
    ["--no-drop", "--auto-generate-sql", "--concurrency=4", "--number-of-queries=200", "--create-schema=s1"],
    ["--auto-generate-sql", "--auto-generate-sql-load-type=write", "--auto-generate-sql-add-autoincrement",
     "--concurrency=3", "--number-of-queries=90", "--commit=5", "--create-schema=s2", "--no-drop"],
    ["--auto-generate-sql", "--auto-generate-sql-load-type=update", "--auto-generate-sql-add-autoincrement",
     "--auto-generate-sql-secondary-indexes=2", "--number-int-cols=2", "--number-char-cols=2", "--concurrency=2",
     "--number-of-queries=60", "--create-schema=s3", "--no-drop"],
    ["--auto-generate-sql", "--auto-generate-sql-load-type=key", "--auto-generate-sql-guid-primary",
     "--auto-generate-sql-write-number=50", "--concurrency=2", "--number-of-queries=40", "--create-schema=s4",
     "--no-drop"],
    ["--no-drop", "--create-schema=s5", "--delimiter=;", "--concurrency=3",
     "--create=CREATE TABLE a (id INT PRIMARY KEY AUTO_INCREMENT, v INT); INSERT INTO a (v) VALUES (1)",
     "--query=INSERT INTO a (v) VALUES (2); SELECT COUNT(*) FROM a; UPDATE a SET v = v + 1 WHERE id = 1",
     "--pre-query=SELECT 1", "--post-query=SELECT 2"],
]


def test_mariadb_slap_runs_to_the_end_and_the_replicas_get_the_masters_rows(tmp_path):
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, ours, replicas):
        for args in SLAP_RUNS:
            code, out = _slap(ours.port, *args)
            assert code == 0 and "Benchmark" in out and "mariadb-slap:" not in out, (args, out)
        for args in SLAP_RUNS[2:]:  # (MariaDB's own runs of the mixed load may hit an InnoDB deadlock)
            code, out = _slap(reference.port, *args)
            assert code == 0 and "mariadb-slap:" not in out, (args, out)
        # (the UUID() columns of --auto-generate-sql-secondary-indexes and -guid-primary are left out:
        # a statement-based binlog's replica computes its own, as a MariaDB replica of a MariaDB
        # master with binlog_format=STATEMENT does, after the master's note 1592)
        queries = ["SELECT * FROM s1.t1 ORDER BY intcol1, charcol1", "SELECT * FROM s2.t1 ORDER BY id",
                   "SELECT id, intcol1, intcol2, charcol1, charcol2 FROM s3.t1 ORDER BY id",
                   "SELECT intcol1, charcol1 FROM s4.t1 ORDER BY intcol1, charcol1", "SELECT * FROM s5.a ORDER BY id"]
        assert ours.query("SELECT v FROM s5.a WHERE id = 1") == reference.query("SELECT v FROM s5.a WHERE id = 1")
        for replica in replicas:
            for q in queries:
                want = ours.query(q)
                assert want, q
                wait_for(lambda r=replica, q=q, want=want: rows_or_none(r, q) == want, 90,
                         message=lambda r=replica, q=q: f"{r} to hold the master's rows of {q}")
            wait_for(lambda r=replica: rows_or_none(r, "SHOW DATABASES LIKE 's0'") == [], 60,
                     message=lambda r=replica: f"{r} to drop s0 as the master did")


def _field_list(port: int, table: bytes, user: str = "root") -> tuple:
    """COM_FIELD_LIST of `table` in d on an autocommit=0 connection (PyMySQL's wire, as
    mysql_list_fields sends it): the column names or the error, then @@in_transaction and the
    session's Com_select."""
    conn = pymysql.connect(host="127.0.0.1", port=port, user=user, password="", database="d", autocommit=False)
    try:
        conn._execute_command(COMMAND.COM_FIELD_LIST, table + b"\0")
        names: list[str] | tuple = []
        try:
            while not (packet := conn._read_packet()).is_eof_packet():
                names.append(FieldDescriptorPacket(packet._data, conn.encoding).name)
        except pymysql.MySQLError as exc:
            names = exc.args[:1]
        with conn.cursor() as cur:
            cur.execute("SELECT @@in_transaction")
            (in_transaction,), = cur.fetchall()
            cur.execute("SHOW SESSION STATUS LIKE 'Com_select'")
            (_, selects), = cur.fetchall()
        return names, in_transaction, selects
    finally:
        conn.close()


def test_field_list_begins_no_transaction_and_counts_no_select(tmp_path):
    setup = ["CREATE DATABASE d", "CREATE TABLE d.t (a INT, b TEXT)", "CREATE VIEW d.v AS SELECT b FROM d.t",
             "CREATE TABLE d.u (c INT)", "CREATE USER 'nobody'@'%'", "GRANT SELECT ON d.u TO 'nobody'@'%'"]
    with mariadb_and_ours(tmp_path) as (reference, ours):
        answers = []
        for server in (reference, ours):
            for sql in setup:
                server.query(sql)
            answers.append([_field_list(server.port, b"t"), _field_list(server.port, b"v"),
                            _field_list(server.port, b"nosuch"), _field_list(server.port, b"t", "nobody")])
    assert answers[0][0] == answers[1][0] == (["a", "b"], 0, "1")  # (a view's counts a Com_select on MariaDB)
    assert [a[:2] for a in answers[1]] == [a[:2] for a in answers[0]]
