"""TLS on the MySQL protocol port, against real clients: a master started without any --ssl-*
option makes its CA and certificate in the datadir (keys 0600), `mariadb --ssl` and PyMySQL
with `ssl=` log in over TLS and see `Ssl_cipher`; a REQUIRE SSL account is refused in the
clear (1045) and let in over TLS, and its requirement reaches a slave; require_secure_transport
refuses every clear login (3159); a TLS failure during the handshake costs the server nothing."""

from __future__ import annotations

import shutil
import socket
import stat
import subprocess

import pymysql
import pytest

from tests.support.daemons import Daemon, wait_for

CLEAR = {"ssl_disabled": True}  # PyMySQL would otherwise use TLS when the server offers it


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    base = tmp_path_factory.mktemp("tls")
    master = Daemon("master", base / "master", []).start()
    slave = None
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'rpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        slave = Daemon("slave", base / "slave", ["--server-id=2", "--master-host=127.0.0.1",
                                                 f"--master-port={master.port}", "--master-user=repl",
                                                 "--master-password=rpw"]).start()
        yield master, slave
    finally:
        if slave is not None:
            slave.stop()
        master.stop()


def ssl_status(conn) -> dict[str, str]:
    with conn.cursor() as cur:
        cur.execute("SHOW STATUS LIKE 'Ssl_%'")
        return dict(cur.fetchall())


def test_certificates_are_generated_in_the_datadir(cluster):
    master, _ = cluster
    for name in ("ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem"):
        assert stat.S_IMODE((master.datadir / name).stat().st_mode) == 0o600, name
    rows = dict(master.query("SHOW VARIABLES LIKE '%ssl%'"))
    assert rows["have_ssl"] == "YES"
    assert rows["ssl_cert"] == str(master.datadir / "server-cert.pem")
    assert rows["ssl_ca"] == str(master.datadir / "ca.pem")
    assert rows["version_ssl_library"].startswith("OpenSSL")


def test_pymysql_with_the_generated_ca(cluster):
    master, _ = cluster
    conn = master.connect(ssl_ca=str(master.datadir / "ca.pem"), ssl_verify_identity=True)
    try:
        status = ssl_status(conn)
        assert status["Ssl_cipher"] and status["Ssl_version"].startswith("TLSv1.")
        with conn.cursor() as cur:  # answers larger than one TLS record
            cur.execute("SELECT REPEAT('x', 300000)")
            assert len(cur.fetchone()[0]) == 300000
    finally:
        conn.close()
    clear = master.connect(**CLEAR)
    try:
        assert ssl_status(clear) == {"Ssl_cipher": "", "Ssl_version": ""}
        # SHOW GLOBAL STATUS shows the asking connection's cipher too, as MariaDB 10.11
        with clear.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Ssl_cipher'")
            assert cur.fetchall() == (("Ssl_cipher", ""),)
    finally:
        clear.close()
    conn = master.connect(ssl_ca=str(master.datadir / "ca.pem"))
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW GLOBAL STATUS LIKE 'Ssl_cipher'")
            assert cur.fetchone()[1]
    finally:
        conn.close()


@pytest.mark.skipif(not shutil.which("mariadb"), reason="needs the mariadb client")
@pytest.mark.parametrize("options", [["--ssl", "--ssl-verify-server-cert=0"], ["--ssl-ca={ca}"]],
                         ids=["ssl", "ssl-ca"])
def test_mariadb_client(cluster, options):
    master, _ = cluster
    options = [o.format(ca=master.datadir / "ca.pem") for o in options]
    out = subprocess.run(["mariadb", "--no-defaults", "-h127.0.0.1", f"-P{master.port}", "-uroot", *options,
                          "-N", "-e", "SHOW STATUS LIKE 'Ssl_cipher'"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    name, cipher = out.stdout.split()
    assert name == "Ssl_cipher" and cipher


def test_require_ssl_user(cluster):
    master, slave = cluster
    master.query("CREATE USER 'secure'@'%' IDENTIFIED BY 'spw' REQUIRE SSL")
    with pytest.raises(pymysql.OperationalError) as refused:
        master.connect(user="secure", password="spw", **CLEAR)
    assert refused.value.args[0] == 1045
    conn = master.connect(user="secure", password="spw", ssl={"ca": str(master.datadir / "ca.pem")})
    assert ssl_status(conn)["Ssl_cipher"]
    conn.close()
    assert master.query("SHOW GRANTS FOR 'secure'@'%'")[0][0].endswith(" REQUIRE SSL")
    create = master.query("SHOW CREATE USER 'secure'@'%'")[0][0]
    assert create.startswith("CREATE USER `secure`@`%` IDENTIFIED BY PASSWORD '*") and create.endswith(" REQUIRE SSL")
    # replicated with the account
    wait_for(lambda: _slave_has(slave, "secure"), 30, message="the account on the slave")
    assert slave.query("SHOW GRANTS FOR 'secure'@'%'")[0][0].endswith(" REQUIRE SSL")
    with pytest.raises(pymysql.OperationalError) as refused:
        slave.connect(user="secure", password="spw", **CLEAR)
    assert refused.value.args[0] == 1045
    master.query("ALTER USER 'secure'@'%' REQUIRE NONE")
    master.connect(user="secure", password="spw", **CLEAR).close()
    wait_for(lambda: not slave.query("SHOW GRANTS FOR 'secure'@'%'")[0][0].endswith("REQUIRE SSL"), 30,
             message="REQUIRE NONE on the slave")
    slave.connect(user="secure", password="spw", **CLEAR).close()


def _slave_has(slave: Daemon, user: str) -> bool:
    try:
        slave.query(f"SHOW GRANTS FOR '{user}'@'%'")
        return True
    except pymysql.MySQLError:
        return False


def test_require_secure_transport(cluster):
    master, _ = cluster
    master.query("SET GLOBAL require_secure_transport = ON")
    try:
        with pytest.raises(pymysql.OperationalError) as refused:
            master.connect(**CLEAR)
        assert refused.value.args[0] == 3159
        assert "insecure transport" in refused.value.args[1]
        conn = master.connect(ssl={"ca": str(master.datadir / "ca.pem")})
        conn.close()
    finally:
        conn = master.connect(ssl={"ca": str(master.datadir / "ca.pem")})
        with conn.cursor() as cur:
            cur.execute("SET GLOBAL require_secure_transport = OFF")
        conn.close()


def test_a_broken_tls_handshake_leaves_the_server_serving(cluster):
    master, _ = cluster
    with socket.create_connection(("127.0.0.1", master.port), timeout=10) as sock:
        greeting = sock.recv(4096)
        assert greeting
        # SSLRequest (CLIENT_SSL | PROTOCOL_41 | SECURE_CONNECTION), sequence id 1, then garbage
        caps = (1 << 11) | (1 << 9) | (1 << 15)
        payload = caps.to_bytes(4, "little") + (1 << 24).to_bytes(4, "little") + bytes([45]) + bytes(23)
        sock.sendall(len(payload).to_bytes(3, "little") + b"\x01" + payload + b"\x16\x03\x01\x00\x05hello")
        sock.settimeout(10)
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
    assert master.query("SELECT 1") == [(1,)]


@pytest.mark.parametrize("tls", [True, False], ids=["tls", "clear"])
def test_mysql_connector_negotiating_caching_sha2_password(cluster, tls):
    """MySQL 8 connectors start with caching_sha2_password: the server switches them to
    mysql_native_password (an auth switch), over TLS and in the clear."""
    connector = pytest.importorskip("mysql.connector")
    master, _ = cluster
    conn = connector.connect(host="127.0.0.1", port=master.port, user="root", password="", use_pure=True,
                             auth_plugin="caching_sha2_password", ssl_disabled=not tls)
    try:
        cur = conn.cursor()
        cur.execute("SHOW STATUS LIKE 'Ssl_cipher'")
        assert bool(cur.fetchall()[0][1]) is tls
    finally:
        conn.close()


def test_our_slave_over_tls_to_our_master(cluster):
    """CHANGE MASTER TO ... MASTER_SSL=1: the IO task's connection upgrades (the replication
    account then REQUIRE SSL), the setting is kept in master.info, rows keep arriving."""
    master, slave = cluster
    ca = master.datadir / "ca.pem"
    slave.query("STOP SLAVE")
    slave.query(f"CHANGE MASTER TO MASTER_SSL=1, MASTER_SSL_CA='{ca}', MASTER_SSL_VERIFY_SERVER_CERT=1")
    master.query("ALTER USER 'repl'@'%' REQUIRE SSL")
    slave.query("START SLAVE")
    master.query("CREATE DATABASE IF NOT EXISTS tls_rows")
    master.query("CREATE TABLE tls_rows.t (id INT PRIMARY KEY)")
    master.query("INSERT INTO tls_rows.t VALUES (1), (2), (3)")
    wait_for(lambda: slave.query("SELECT COUNT(*) FROM tls_rows.t") == [(3,)], 30,
             message=lambda: f"rows on the slave over TLS:\n{slave.tail()}")
    info = (slave.datadir / "master.info").read_text()
    assert "ssl=1" in info and f"ssl_ca={ca}" in info and "ssl_verify_server_cert=1" in info
    conn = slave.connect()
    with conn.cursor() as cur:
        cur.execute("SHOW SLAVE STATUS")
        row = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    conn.close()
    assert row["Master_SSL_Allowed"] == "Yes" and row["Slave_IO_Running"] == "Yes"
    assert str(row["Last_IO_Errno"]) == "0"


def test_pre_login_packet_limit_holds_over_tls(cluster):
    """After the SSLRequest the pre-login bound still applies to the decrypted stream: a login
    packet announcing 16 MiB is refused on its header (1043), over TLS."""
    import ssl

    master, _ = cluster
    raw = socket.create_connection(("127.0.0.1", master.port), timeout=10)
    try:
        raw.recv(4096)  # the greeting
        caps = (1 << 11) | (1 << 9) | (1 << 15)
        request = caps.to_bytes(4, "little") + (1 << 24).to_bytes(4, "little") + bytes([45]) + bytes(23)
        raw.sendall(len(request).to_bytes(3, "little") + b"\x01" + request)
        context = ssl.create_default_context(cafile=str(master.datadir / "ca.pem"))
        tls = context.wrap_socket(raw, server_hostname="localhost")
        tls.sendall((0xFFFFFF).to_bytes(3, "little") + b"\x02" + bytes(1000))
        answer = tls.recv(4096)
        assert answer[4] == 0xFF and int.from_bytes(answer[5:7], "little") == 1043, answer
    finally:
        raw.close()
    assert master.query("SELECT 1") == [(1,)]
