"""Semi-sync replication over TLS in both directions with MariaDB 10.11, through a loopback
proxy that records every byte, so the test sees that the rows never cross in the clear:
- our master -> a stock MariaDB replica with CHANGE MASTER TO ... MASTER_SSL=1, MASTER_SSL_CA:
  the rows arrive and our master's Rpl_semi_sync_master_yes_tx grows by every transaction;
- a stock MariaDB master (--ssl-cert/--ssl-key) -> our slave with MASTER_SSL=1, MASTER_SSL_CA,
  MASTER_SSL_VERIFY_SERVER_CERT=1: the rows arrive and MariaDB's yes_tx grows (our acks travel
  over TLS); SHOW SLAVE STATUS shows Master_SSL_Allowed = Yes."""

from __future__ import annotations

import pytest

from server.tls import certificate_files
from tests.support.daemons import Daemon, wait_for
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.wire_proxy import WireProxy

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
    pytest.mark.timeout(240),
]

SECRET = "plaintext-never-on-the-wire"
ROWS = 20


class RecordingProxy(WireProxy):
    """Forwards both directions unchanged and keeps every byte."""

    def __init__(self, target_port: int) -> None:
        self.seen = bytearray()
        super().__init__(target_port)

    def _client_bytes(self, dst, data, buf) -> bool:
        with self.lock:
            self.seen += data
        return True

    def _server_bytes(self, dst, data, buf) -> bool:
        with self.lock:
            self.seen += data
        try:
            dst.sendall(data)
        except OSError:
            pass
        return False


def write_rows(execute) -> None:
    execute("CREATE DATABASE d")
    execute("CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(64))")
    for i in range(ROWS):
        execute(f"INSERT INTO d.t VALUES ({i}, '{SECRET}-{i}')")


def test_our_master_to_a_mariadb_replica_over_tls(tmp_path):
    master = Daemon("master", tmp_path / "master", ["--rpl-semi-sync-master-timeout=30000"]).start()
    proxy = RecordingProxy(master.port)
    replica = None
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw' REQUIRE SSL")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
        replica = MariaDBServer(tmp_path / "replica", server_id=2, log_bin=None,
                                extra=["--rpl-semi-sync-slave-enabled=ON"]).start()
        replica.execute_all([
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={proxy.port}, MASTER_USER='repl', "
            f"MASTER_PASSWORD='replpw', MASTER_LOG_FILE='mysql-bin.000001', MASTER_LOG_POS=4, "
            f"MASTER_USE_GTID=no, MASTER_SSL=1, MASTER_SSL_CA='{master.datadir / 'ca.pem'}', "
            f"MASTER_SSL_VERIFY_SERVER_CERT=1, MASTER_CONNECT_RETRY=1",
            "START SLAVE",
        ])
        wait_for(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                 60, message=lambda: f"the replica connected: {replica.query('SHOW SLAVE STATUS')}")
        before = int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        write_rows(master.query)
        wait_for(lambda: replica.query("SELECT COUNT(*) FROM d.t")[0][0] == ROWS, 60,
                 message=lambda: f"rows on the replica: {replica.query('SHOW SLAVE STATUS')}")
        yes = int(master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        assert yes - before >= ROWS  # every insert acked (DDL too)
        assert master.status("Rpl_semi_sync_master_no_tx")["Rpl_semi_sync_master_no_tx"] == "0"
        status = replica.connect().cursor()
        status.execute("SHOW SLAVE STATUS")
        row = dict(zip([d[0] for d in status.description], status.fetchone(), strict=True))
        assert row["Master_SSL_Allowed"] == "Yes" and row["Slave_IO_Running"] == "Yes"
        with proxy.lock:
            assert SECRET.encode() not in proxy.seen and len(proxy.seen) > 1000
    finally:
        proxy.close()
        if replica is not None:
            replica.stop()
        master.stop()


def test_a_mariadb_master_to_our_slave_over_tls(tmp_path):
    files = certificate_files(tmp_path, None, None, None)
    source = MariaDBServer(tmp_path / "source", extra=[
        "--rpl-semi-sync-master-timeout=30000",
        f"--ssl-cert={files.cert}", f"--ssl-key={files.key}", f"--ssl-ca={files.ca}",
    ]).start()
    proxy = RecordingProxy(source.port)
    slave = None
    try:
        source.execute_all([
            "CREATE USER repl@'%' IDENTIFIED BY 'replpw' REQUIRE SSL",
            "GRANT REPLICATION SLAVE ON *.* TO repl@'%'",
            "SET GLOBAL rpl_semi_sync_master_enabled = ON",
        ])
        slave = Daemon("slave", tmp_path / "slave", ["--server-id=5", "--rpl-semi-sync-slave-enabled=ON"]).start()
        slave.query(
            f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={proxy.port}, MASTER_USER='repl', "
            f"MASTER_PASSWORD='replpw', MASTER_LOG_FILE='master-bin.000001', MASTER_LOG_POS=4, "
            f"MASTER_SSL=1, MASTER_SSL_CA='{files.ca}', MASTER_SSL_VERIFY_SERVER_CERT=1, MASTER_CONNECT_RETRY=1")
        slave.query("START SLAVE")
        wait_for(lambda: source.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                 60, message=lambda: f"our slave connected: {slave.tail()}")
        before = int(source.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        write_rows(lambda sql: source.execute_all([sql]))
        wait_for(lambda: slave.query("SELECT COUNT(*) FROM d.t")[0][0] == ROWS, 60,
                 message=lambda: f"rows on our slave:\n{slave.tail()}")
        yes = int(source.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"])
        assert yes - before >= ROWS
        assert source.status("Rpl_semi_sync_master_no_tx")["Rpl_semi_sync_master_no_tx"] == "0"
        conn = slave.connect()
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE STATUS")
            row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
        conn.close()
        assert row["Master_SSL_Allowed"] == "Yes" and row["Master_SSL_CA_File"] == str(files.ca)
        assert row["Master_SSL_Verify_Server_Cert"] == "Yes" and row["Slave_IO_Running"] == "Yes"
        with proxy.lock:
            assert SECRET.encode() not in proxy.seen and len(proxy.seen) > 1000
    finally:
        proxy.close()
        if slave is not None:
            slave.stop()
        source.stop()
