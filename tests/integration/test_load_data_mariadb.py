"""LOAD DATA LOCAL INFILE against a live MariaDB 10.11 (`server/load_data.py`): the same files
loaded through PyMySQL (local_infile) into both servers give the same rows, counts, info
("Records: r  Deleted: d  Skipped: s  Warnings: w") and warnings: quoted fields with the
terminator inside, doubled and escaped quotes, \\N, IGNORE n LINES, rows with too few or too
many fields, duplicate keys (skipped: LOCAL is IGNORE unless REPLACE), REPLACE with a column list
and LINES STARTING BY, IGNORE n LINES counting a first line without the prefix, \\N for NOT NULL
columns, an impossible date; a missing file (the client sends nothing: 0 rows), an unknown table, a load inside a transaction that is rolled back, a
client that did not allow LOCAL and a server with local_infile OFF (4166). The loaded rows then reach a MariaDB replica of our
master through the binlog, and the `mariadb` client's --local-infile loads a file too.

Left out: LOAD DATA without LOCAL (the server's own files), LOAD XML, user variables and SET
(1235 here); warnings for a row whose fields are all consumed by an unterminated quote."""

from __future__ import annotations

import shutil
import subprocess

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import ok_answer, reference_ours_and_replica

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

FILES = {
    "a.csv": 'id,v,n\n1,"a,b",10\n2,\\N,\n3,"q""x",30,extra\n4\n5,"e\\"x",50\n',
    "b.tsv": "\\N\t2020-01-01\n5\t\\N\n6\t2021-02-30\n",
    "c.txt": "xx 1;\"o'k\";7|xx 2;NULL;8|junk|xx 3;\\N;\\N|",
    "d.txt": "first line|xx 7;h;70|no prefix|xx 8;i;80|",
}


def statements(files) -> list[str]:
    a, b, c, d = (files / name for name in FILES)
    csv = "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES"
    return [
        f"LOAD DATA LOCAL INFILE '{a}' INTO TABLE t {csv}",
        f"LOAD DATA LOCAL INFILE '{a}' IGNORE INTO TABLE t {csv}",
        f"LOAD DATA LOCAL INFILE '{a}' INTO TABLE t {csv}",
        "SELECT * FROM t ORDER BY id",
        f"LOAD DATA LOCAL INFILE '{b}' INTO TABLE u",
        "SELECT * FROM u",
        f"LOAD DATA LOCAL INFILE '{c}' REPLACE INTO TABLE t FIELDS TERMINATED BY ';' ENCLOSED BY '\"' "
        "LINES STARTING BY 'xx ' TERMINATED BY '|' (id, v, n)",
        f"LOAD DATA LOCAL INFILE '{d}' INTO TABLE t FIELDS TERMINATED BY ';' "
        "LINES STARTING BY 'xx ' TERMINATED BY '|' IGNORE 1 LINES (id, v, n)",
        "SELECT * FROM t ORDER BY id",
        f"LOAD DATA LOCAL INFILE '{files / 'missing.csv'}' INTO TABLE t",
        f"LOAD DATA LOCAL INFILE '{a}' INTO TABLE nope",
        "BEGIN",
        "DELETE FROM t WHERE id = 1",
        f"LOAD DATA LOCAL INFILE '{a}' INTO TABLE t {csv}",
        "ROLLBACK",
        "SELECT count(*) FROM t",
        f"LOAD DATA LOCAL INFILE '{a}' INTO TABLE t {csv}",
    ]


def answers(port: int, files) -> list[tuple]:
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="ld", autocommit=True,
                           local_infile=True)
    out: list[tuple] = []
    try:
        for sql in statements(files):
            answer = ok_answer(conn, sql)
            out.append((sql, *answer[:2]) if answer[0] == "error" else (sql, *answer))
    finally:
        conn.close()
    plain = pymysql.connect(host="127.0.0.1", port=port, user="root", database="ld", autocommit=True)
    try:
        with plain.cursor() as cur, pytest.raises(pymysql.MySQLError) as refused:
            cur.execute(f"LOAD DATA LOCAL INFILE '{files / 'a.csv'}' INTO TABLE t")
        out.append(("without local_infile", refused.value.args))
        with plain.cursor() as cur:
            cur.execute("SET GLOBAL local_infile = OFF")
        conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database="ld", autocommit=True,
                               local_infile=True)
        with conn.cursor() as cur, pytest.raises(pymysql.MySQLError) as refused:
            cur.execute(f"LOAD DATA LOCAL INFILE '{files / 'a.csv'}' INTO TABLE t")
        conn.close()
        out.append(("local_infile OFF", refused.value.args))
        with plain.cursor() as cur:
            cur.execute("SET GLOBAL local_infile = ON")
    finally:
        plain.close()
    return out


SETUP = [
    "CREATE DATABASE ld",
    "CREATE TABLE ld.t (id INT PRIMARY KEY, v VARCHAR(10), n INT)",
    "CREATE TABLE ld.u (id INT NOT NULL, d DATE NOT NULL)",
]


def test_load_data_local_as_mariadb_and_replicated(tmp_path):
    files = tmp_path / "files"
    files.mkdir()
    for name, text in FILES.items():
        (files / name).write_text(text)
    with reference_ours_and_replica(tmp_path) as (reference, ours, replica):
        for server in (reference, ours):
            for sql in SETUP:
                server.query(sql)
        expected = answers(reference.port, files)
        assert expected[0][1:5] == (5, (), b"/Records: 5  Deleted: 0  Skipped: 0  Warnings: 4", 4)
        assert expected[-2] == ("without local_infile", (4166, "The used command is not allowed because the "
                                "MariaDB server or client has disabled the local infile capability"))
        assert expected[-1] == ("local_infile OFF", expected[-2][1])
        assert answers(ours.port, files) == expected
        # the mariadb client's --local-infile
        for port in (reference.port, ours.port):
            subprocess.run([shutil.which("mariadb") or "mariadb", "-h127.0.0.1", f"-P{port}", "-uroot", "--local-infile=1",
                            "ld", "-e", f"LOAD DATA LOCAL INFILE '{files / 'b.tsv'}' INTO TABLE u"],
                           check=True, capture_output=True, timeout=60)
        want = [tuple(row) for row in reference.query("SELECT * FROM ld.u")]
        assert [tuple(row) for row in ours.query("SELECT * FROM ld.u")] == want
        for table in ("t", "u"):  # the binlog's statements give a MariaDB replica the same rows
            rows = [tuple(row) for row in ours.query(f"SELECT * FROM ld.{table} ORDER BY 1, 2")]
            wait_for(lambda t=table, r=rows: [tuple(x) for x in replica.query(f"SELECT * FROM ld.{t} ORDER BY 1, 2")] == r,
                     90, message=f"the replica's ld.{table}")
