"""1,000 databases on our master and two of our slaves (real processes): a transaction writing
three of them is rolled back (nothing left anywhere), then committed (all there, on both slaves);
a join across three, and the databases' foreign keys, work although a connection holds at most
ATTACH_LIMIT files at once."""

from __future__ import annotations

import time

import pymysql
import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import master_with_slaves, wait_applied

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="the fixtures' clients need Debian's MariaDB packages"),
]

N = 1000
WRITTEN = (7, 500, 993)


def test_a_thousand_databases_and_a_transaction_across_three(tmp_path):
    with master_with_slaves(tmp_path) as (master, slaves):
        conn = master.connect()
        cur = conn.cursor()
        started = time.monotonic()
        for i in range(N):
            cur.execute(f"CREATE DATABASE db{i:04d}")
        for i in WRITTEN:
            cur.execute(f"CREATE TABLE db{i:04d}.t (id INT PRIMARY KEY, v VARCHAR(10))")
        print(f"{N} databases created in {time.monotonic() - started:.1f}s")
        cur.execute("SHOW DATABASES LIKE 'db%'")
        assert len(cur.fetchall()) == N

        def write_three():
            conn.begin()
            for i in WRITTEN:
                cur.execute(f"INSERT INTO db{i:04d}.t VALUES (1, 'v{i}')")
            for i in range(20):  # reads of more databases than a connection holds, in between
                cur.execute(f"SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'db{i:04d}'")

        write_three()
        conn.rollback()
        for i in WRITTEN:
            cur.execute(f"SELECT * FROM db{i:04d}.t")
            assert cur.fetchall() == ()
        write_three()
        conn.commit()
        join = ("SELECT a.v, b.v, c.v FROM db0007.t a JOIN db0500.t b ON b.id = a.id JOIN db0993.t c ON c.id = a.id")
        cur.execute(join)
        assert cur.fetchall() == (("v7", "v500", "v993"),)
        for slave in slaves:
            wait_applied(master, slave, timeout=300)
            assert len(slave.query("SHOW DATABASES LIKE 'db%'")) == N
            assert slave.query(join) == [("v7", "v500", "v993")]
    # a restart keeps them all (each database is its own file, attached on demand)
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    try:
        assert len(master.query("SHOW DATABASES LIKE 'db%'")) == N
        with pytest.raises(pymysql.err.IntegrityError):
            master.query("INSERT INTO db0500.t VALUES (1, 'dup')")
        assert master.query("SELECT v FROM db0993.t") == [("v993",)]
    finally:
        master.stop()
