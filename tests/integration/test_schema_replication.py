"""Foreign keys through replication: our master and two of our slaves (real processes). Cascades
run again on each slave from the parent's statement; statements run with foreign_key_checks=0
(mariadb-dump's child-before-parent tables, an orphan row) carry it in the QUERY's flags2, so the
slaves apply them as the master did."""

from __future__ import annotations

import pytest

from tests.support.daemons import Daemon
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import slave_status, wait_until

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not mariadb_available(), reason="the fixtures' clients need Debian's MariaDB packages"),
]


def start_slave(tmp_path, name: str, server_id: int, master: Daemon) -> Daemon:
    return Daemon("slave", tmp_path / name, [
        f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
        "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
    ]).start()


def test_foreign_keys_replicated_to_two_slaves(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--server-id=1"]).start()
    slaves: list[Daemon] = []
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        slaves = [start_slave(tmp_path, "s1", 2, master), start_slave(tmp_path, "s2", 3, master)]
        conn = master.connect()
        cur = conn.cursor()
        cur.execute("CREATE DATABASE shop")
        cur.execute("USE shop")
        cur.execute("SET foreign_key_checks = 0")
        cur.execute("CREATE TABLE item (id INT PRIMARY KEY, oid INT, "
                    "CONSTRAINT item_order FOREIGN KEY (oid) REFERENCES orders (id) ON DELETE CASCADE)")
        cur.execute("CREATE TABLE orders (id INT PRIMARY KEY, note VARCHAR(20))")
        cur.execute("INSERT INTO item VALUES (99, 42)")  # an orphan, as a dump may load it
        cur.execute("SET foreign_key_checks = 1")
        cur.execute("INSERT INTO orders VALUES (1, 'a'), (2, 'b')")
        cur.execute("INSERT INTO item VALUES (1, 1), (2, 1), (3, 2)")
        conn.begin()
        cur.execute("DELETE FROM orders WHERE id = 1")  # cascades to items 1 and 2
        conn.commit()
        cur.execute("SELECT id, oid FROM item ORDER BY id")
        expected = cur.fetchall()
        assert expected == ((3, 2), (99, 42))
        for slave in slaves:
            end = str(master.query("SHOW MASTER STATUS")[0][1])
            wait_until(lambda s=slave, end=end: str(slave_status(s.port).get("Exec_Master_Log_Pos")) == end
                       or int(slave_status(s.port)["Last_SQL_Errno"]), timeout=60, what="slave applied everything")
            status = slave_status(slave.port)
            assert int(status["Last_SQL_Errno"]) == 0, status
            wait_until(lambda s=slave: s.query("SELECT id, oid FROM shop.item ORDER BY id") == [(3, 2), (99, 42)]
                       and s.query("SELECT id FROM shop.orders") == [(2,)], timeout=30, what="slave caught up")
            assert "CONSTRAINT `item_order` FOREIGN KEY (`oid`) REFERENCES `orders` (`id`) ON DELETE CASCADE" in (
                slave.query("SHOW CREATE TABLE shop.item")[0][1])
    finally:
        for daemon in [*slaves, master]:
            daemon.stop()
