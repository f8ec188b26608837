"""The binary protocol against real clients: our master with two of our slaves (semi-sync),
all three real processes.

- mysql-connector-python `cursor(prepared=True)` (pure Python; its C extension where it loads)
  writes and reads a table of many column types, bytes with every byte value and NULLs; both
  slaves hold the same rows (the binlog carries the statements with their values inlined).
- sysbench oltp_point_select, oltp_write_only, oltp_read_write in the default --db-ps-mode
  (server-side prepared statements): 0 errors, the master counted COM_STMT_EXECUTEs, and the
  master and both slaves are equal after each workload.
- Bad input: a statement id never prepared (1243), wrong parameters (1210), malformed packets
  (1835), max_prepared_stmt_count (1461): MySQL's error, the connection and the data intact.
"""

from __future__ import annotations

import datetime
import decimal
import re
import shutil
import socket
import subprocess
from functools import partial

import pymysql
import pytest

from protocol.binary import decode_binary_row
from protocol.messages import ColumnDefinition
from tests.support.daemons import Daemon
from tests.support.slave_daemon import slave_status, wait_until

mysql_connector = pytest.importorskip("mysql.connector")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

SYSBENCH = shutil.which("sysbench")


def _start(tmp_path) -> tuple[Daemon, list[Daemon]]:
    master = Daemon("master", tmp_path / "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=10000",
    ]).start()
    # made before any slave follows: semi-sync off, then on again (with wait_no_slave the first
    # commit would wait out the whole 10 s timeout for a slave that is not there yet)
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
    master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
    master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    slaves = [
        Daemon("slave", tmp_path / f"slave{i}", [
            f"--server-id={10 + i}", "--master-host=127.0.0.1", f"--master-port={master.port}",
            "--master-user=repl", "--master-password=replpw", "--rpl-semi-sync-slave-enabled=ON",
            "--master-connect-retry=1", "--master-heartbeat-period=0.5",
        ]).start()
        for i in (1, 2)
    ]
    return master, slaves


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    master, slaves = _start(tmp_path_factory.mktemp("prepared"))
    try:
        yield master, slaves
    finally:
        for d in (*slaves, master):
            d.stop()


def caught_up(master: Daemon, slave: Daemon) -> bool:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    st = slave_status(slave.port)
    return st.get("Relay_Master_Log_File") == file and int(st.get("Exec_Master_Log_Pos") or 0) == int(pos)


def converge(master: Daemon, slaves: list[Daemon]) -> None:
    for s in slaves:
        wait_until(partial(caught_up, master, s), timeout=120, what=f"slave on {s.port} caught up")


def connector(port: int, use_pure: bool = True, database: str | None = None):
    conn = mysql_connector.connect(host="127.0.0.1", port=port, user="root", password="", database=database,
                                   use_pure=use_pure, autocommit=True)
    # The pure-Python connector leaves Nagle on: its COM_STMT_CLOSE (no answer) before the next
    # prepare is held unacked by the server's delayed ACK, so the prepare waits ~40 ms for it.
    # TCP_NODELAY changes no byte on the wire, only when the segments leave.
    sock = getattr(getattr(conn, "_socket", None), "sock", None)
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def connector_flavours() -> list[bool]:
    """Pure Python always; the C extension where it loads on this machine."""
    try:
        import _mysql_connector  # noqa: F401
    except ImportError:
        return [True]
    return [True, False]


def read_all(port: int, sql: str, use_pure: bool = True) -> list[tuple]:
    conn = connector(port, use_pure)
    try:
        cur = conn.cursor(prepared=True)
        cur.execute(sql)
        return list(cur.fetchall())
    finally:
        conn.close()


# -- mysql-connector-python, prepared -----------------------------------------------------------

EVERY_BYTE = bytes(range(256))
ROWS = [
    (1, -128, 255, -(2**63) + 1, 2**63 - 1, decimal.Decimal("-12345678.90"), 0.1, 1e300,
     datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 23, 59, 59, 999999),
     datetime.timedelta(hours=838, minutes=59, seconds=59), "héllo 'wörld' \\ \n", EVERY_BYTE),
    (2, 0, 0, 0, 0, decimal.Decimal("0.00"), -2.5, -1e-300,
     datetime.date(1000, 1, 1), datetime.datetime(1970, 1, 1, 0, 0, 0, 1),
     datetime.timedelta(seconds=1, microseconds=500000), "", b"\xff\x00"),
    (3, None, None, None, None, None, None, None, None, None, None, None, None),
]
COLUMNS = ("id INT PRIMARY KEY, t TINYINT, tu TINYINT UNSIGNED, b BIGINT, bb BIGINT, n DECIMAL(10,2), "
           "f DOUBLE, g DOUBLE, d DATE, dt DATETIME(6), tm TIME(6), s VARCHAR(100), blob_ BLOB")


def test_connector_prepared_round_trip_of_many_types_reaches_both_slaves(cluster):
    master, slaves = cluster
    for use_pure in connector_flavours():
        table = f"p.types_{'pure' if use_pure else 'cext'}"
        master.query("CREATE DATABASE IF NOT EXISTS p")
        master.query(f"CREATE TABLE {table} ({COLUMNS})")
        conn = connector(master.port, use_pure)
        cur = conn.cursor(prepared=True)
        marks = ", ".join("?" * len(ROWS[0]))
        for row in ROWS:
            cur.execute(f"INSERT INTO {table} VALUES ({marks})", row)
        # every byte value, alone, as a parameter of an UPDATE (the binlog must carry it)
        for byte in range(256):
            cur.execute(f"UPDATE {table} SET blob_ = ? WHERE id = ?", (EVERY_BYTE + bytes((byte,)), 2))
            cur.execute(f"SELECT blob_ FROM {table} WHERE id = ?", (2,))
            assert cur.fetchall() == [(EVERY_BYTE + bytes((byte,)),)]
        cur.execute(f"UPDATE {table} SET blob_ = ? WHERE id = ?", (b"\xff\x00", 2))
        cur.execute(f"SELECT * FROM {table} WHERE id >= ? ORDER BY id", (1,))
        got = cur.fetchall()
        conn.close()
        assert [r[0] for r in got] == [1, 2, 3]
        assert got == ROWS  # every value exactly as written, with its Python type
        converge(master, slaves)
        on_master = read_all(master.port, f"SELECT * FROM {table} ORDER BY id", use_pure)
        for s in slaves:
            assert read_all(s.port, f"SELECT * FROM {table} ORDER BY id", use_pure) == on_master


def test_connector_prepared_exact_decimal_date_and_time(cluster):
    """DECIMAL as Decimal with its scale, DATE as date, TIME as timedelta, valid UTF-8 bytes in a
    BLOB as bytes: the binary rows follow the column definitions, which come from the schema."""
    master, _ = cluster
    master.query("CREATE DATABASE IF NOT EXISTS p")
    master.query("CREATE TABLE IF NOT EXISTS p.exact (id INT PRIMARY KEY, n DECIMAL(10,2), d DATE, tm TIME(6), "
                 "b BLOB)")
    conn = connector(master.port)
    cur = conn.cursor(prepared=True)
    # bytes that are valid UTF-8 come as a STRING parameter (the connector sends bytes so): the
    # BLOB column makes them binary
    want = (decimal.Decimal("12.30"), datetime.date(2024, 1, 2), datetime.timedelta(hours=5, microseconds=7),
            b"\x00abc")
    cur.execute("INSERT INTO p.exact VALUES (?, ?, ?, ?, ?)", (1, *want))
    cur.execute("SELECT n, d, tm, b FROM p.exact WHERE id = ?", (1,))
    row = cur.fetchone()
    conn.close()
    assert row == want


# -- the raw protocol: cursors, long data, bad input ---------------------------------------------

COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA = 0x16, 0x17, 0x18
COM_STMT_CLOSE, COM_STMT_RESET, COM_STMT_FETCH = 0x19, 0x1A, 0x1C
LONGLONG, BLOB = 8, 252
CURSOR_EXISTS, LAST_ROW_SENT = 0x40, 0x80


def raw_conn(master: Daemon) -> pymysql.connections.Connection:
    return master.connect()


def send(conn, command: int, body: bytes) -> None:
    conn._execute_command(command, body)


def read(conn) -> bytes:
    """The next packet's payload; an ERR packet raises pymysql's error (code, message)."""
    return conn._read_packet().get_all_data()


def error_of(conn, command: int, body: bytes) -> tuple[int, str]:
    send(conn, command, body)
    with pytest.raises(pymysql.MySQLError) as info:
        read(conn)
    return info.value.args[0], info.value.args[1]


def prepare(conn, sql: str) -> tuple[int, int, int]:
    """COM_STMT_PREPARE: (statement id, columns, params); reads the definition packets."""
    send(conn, COM_STMT_PREPARE, sql.encode())
    first = read(conn)
    assert first[0] == 0 and len(first) == 12, first
    stmt_id = int.from_bytes(first[1:5], "little")
    columns, params = int.from_bytes(first[5:7], "little"), int.from_bytes(first[7:9], "little")
    for block in (params, columns):
        if block:
            for _ in range(block):
                read(conn)
            assert read(conn)[0] == 0xFE  # EOF (PyMySQL does not ask CLIENT_DEPRECATE_EOF)
    return stmt_id, columns, params


def execute_body(stmt_id: int, flags: int, types: list[int], values: list[bytes | None]) -> bytes:
    bitmap = bytearray((len(types) + 7) // 8)
    for i, v in enumerate(values):
        if v is None:
            bitmap[i // 8] |= 1 << (i % 8)
    head = stmt_id.to_bytes(4, "little") + bytes((flags,)) + (1).to_bytes(4, "little")
    if not types:
        return head
    return head + bytes(bitmap) + b"\x01" + b"".join(bytes((t, 0)) for t in types) + \
        b"".join(v for v in values if v is not None)


def status_of(eof: bytes) -> int:
    return int.from_bytes(eof[3:5], "little")


def still_fine(conn, master: Daemon) -> None:
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM p.cursor_rows")
        assert cur.fetchone() == (7,)


def test_cursor_fetch_in_pieces(cluster):
    master, _ = cluster
    master.query("CREATE DATABASE IF NOT EXISTS p")
    master.query("CREATE TABLE IF NOT EXISTS p.cursor_rows (id INT PRIMARY KEY, v VARCHAR(20))")
    master.query("INSERT INTO p.cursor_rows VALUES " + ", ".join(f"({i}, 'v{i}')" for i in range(1, 8)))
    conn = raw_conn(master)
    stmt, columns, params = prepare(conn, "SELECT id, v FROM p.cursor_rows WHERE id > ? ORDER BY id")
    assert (columns, params) == (2, 1)
    send(conn, COM_STMT_EXECUTE, execute_body(stmt, 1, [LONGLONG], [(2).to_bytes(8, "little")]))
    assert read(conn) == b"\x02"
    defs = [ColumnDefinition.decode(read(conn)), ColumnDefinition.decode(read(conn))]
    opened = read(conn)
    assert opened[0] == 0xFE and status_of(opened) & CURSOR_EXISTS  # no rows yet
    send(conn, COM_STMT_FETCH, stmt.to_bytes(4, "little") + (2).to_bytes(4, "little"))
    rows = [decode_binary_row(read(conn), defs) for _ in range(2)]
    assert rows == [(3, b"v3"), (4, b"v4")]
    end = read(conn)
    assert status_of(end) & CURSOR_EXISTS and not status_of(end) & LAST_ROW_SENT
    send(conn, COM_STMT_FETCH, stmt.to_bytes(4, "little") + (10).to_bytes(4, "little"))
    rest = [decode_binary_row(read(conn), defs) for _ in range(3)]
    assert [r[0] for r in rest] == [5, 6, 7]
    assert status_of(read(conn)) & LAST_ROW_SENT
    code, message = error_of(conn, COM_STMT_FETCH, stmt.to_bytes(4, "little") + (1).to_bytes(4, "little"))
    assert (code, message) == (1421, f"The statement ({stmt}) has no open cursor.")
    still_fine(conn, master)
    conn.close()


def test_send_long_data_appends_to_a_parameter(cluster):
    master, slaves = cluster
    master.query("CREATE DATABASE IF NOT EXISTS p")
    master.query("CREATE TABLE IF NOT EXISTS p.long_data (id INT PRIMARY KEY, v BLOB)")
    conn = raw_conn(master)
    stmt, _, params = prepare(conn, "INSERT INTO p.long_data VALUES (?, ?)")
    assert params == 2
    for chunk in (b"\xff\x00'\\", b"abc"):  # no answer to either
        conn._execute_command(COM_STMT_SEND_LONG_DATA, stmt.to_bytes(4, "little") + (1).to_bytes(2, "little") + chunk)
    send(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG, BLOB], [(1).to_bytes(8, "little")]))
    assert read(conn)[0] == 0  # OK
    assert master.query("SELECT HEX(v) FROM p.long_data WHERE id = 1") == [("FF00275C616263",)]
    # statement-based binlog: the statement with its values inlined, binary data safe for any byte
    infos = [row[5] for row in master.query("SHOW BINLOG EVENTS")]
    assert "INSERT INTO p.long_data VALUES (1, X'ff00275c616263')" in infos, infos[-5:]
    # long data for a parameter that does not exist: the next execute says so (mysqld's way)
    conn._execute_command(COM_STMT_SEND_LONG_DATA, stmt.to_bytes(4, "little") + (5).to_bytes(2, "little") + b"x")
    code, message = error_of(conn, COM_STMT_EXECUTE,
                             execute_body(stmt, 0, [LONGLONG, BLOB], [(2).to_bytes(8, "little"), b"\x01y"]))
    assert (code, message) == (1210, "Incorrect arguments to mysqld_stmt_send_long_data")
    send(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG, BLOB], [(2).to_bytes(8, "little"), b"\x01y"]))
    assert read(conn)[0] == 0
    converge(master, slaves)
    for s in slaves:
        assert s.query("SELECT id, HEX(v) FROM p.long_data ORDER BY id") == [(1, "FF00275C616263"), (2, "79")]
    conn.close()


def test_bad_input_gets_mysqls_errors_and_the_connection_stays(cluster):
    master, _ = cluster
    master.query("CREATE DATABASE IF NOT EXISTS p")
    master.query("CREATE TABLE IF NOT EXISTS p.cursor_rows (id INT PRIMARY KEY, v VARCHAR(20))")
    if master.query("SELECT COUNT(*) FROM p.cursor_rows") != [(7,)]:
        master.query("DELETE FROM p.cursor_rows")
        master.query("INSERT INTO p.cursor_rows VALUES " + ", ".join(f"({i}, 'v{i}')" for i in range(1, 8)))
    conn = raw_conn(master)
    never = (999999).to_bytes(4, "little")
    for command, body, name in (
        (COM_STMT_EXECUTE, never + b"\x00\x01\x00\x00\x00", "mysqld_stmt_execute"),
        (COM_STMT_FETCH, never + (1).to_bytes(4, "little"), "mysqld_stmt_fetch"),
        (COM_STMT_RESET, never, "mysqld_stmt_reset"),
    ):
        assert error_of(conn, command, body) == (1243, f"Unknown prepared statement handler (999999) given to {name}")
    conn._execute_command(COM_STMT_CLOSE, never)  # no answer, not even for an unknown id
    still_fine(conn, master)
    # the prepare plans the statement: its syntax and its tables, as mysqld's does
    assert error_of(conn, COM_STMT_PREPARE, b"INSERT INTO p.nope VALUES (?)") == (1146, "Table 'p.nope' doesn't exist")
    assert error_of(conn, COM_STMT_PREPARE, b"UPDATE p.cursor_rows SET v = ? WHERE")[0] == 1064
    stmt, _, _ = prepare(conn, "SELECT v FROM p.cursor_rows WHERE id = ? AND v <> ?")
    # one parameter's worth for two: wrong arguments
    assert error_of(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG], [(1).to_bytes(8, "little")])) == \
        (1210, "Incorrect arguments to mysqld_stmt_execute")
    # an unknown parameter type, then bytes after the last value
    body = execute_body(stmt, 0, [LONGLONG, LONGLONG], [(1).to_bytes(8, "little"), (2).to_bytes(8, "little")])
    assert error_of(conn, COM_STMT_EXECUTE, body.replace(b"\x01\x08\x00\x08\x00", b"\x01\x08\x00\x63\x00"))[0] == 1210
    assert error_of(conn, COM_STMT_EXECUTE, body + b"\x00")[0] == 1210
    # packets shorter than their fixed fields
    for command, short in ((COM_STMT_EXECUTE, b"\x01\x00"), (COM_STMT_CLOSE, b"\x01"), (COM_STMT_FETCH, never)):
        assert error_of(conn, command, short) == (1835, "Malformed communication packet")
    # the statement still works after all that
    send(conn, COM_STMT_EXECUTE, execute_body(stmt, 0, [LONGLONG, 253], [(3).to_bytes(8, "little"), b"\x01x"]))
    assert read(conn) == b"\x01"
    read(conn), read(conn)
    assert read(conn)[2:] == b"\x02v3"  # one row: 0x00, bitmap, 'v3'
    read(conn)
    still_fine(conn, master)
    conn.close()


def test_max_prepared_stmt_count(cluster):
    master, _ = cluster
    conn = raw_conn(master)
    other = raw_conn(master)
    try:
        held = int(master.status("Prepared_stmt_count")["Prepared_stmt_count"])
        master.query(f"SET GLOBAL max_prepared_stmt_count = {held + 2}")
        first, _, _ = prepare(conn, "SELECT 1")
        prepare(other, "SELECT 2")  # the limit counts every session's statements
        assert error_of(conn, COM_STMT_PREPARE, b"SELECT 3") == \
            (1461, f"Can't create more than max_prepared_stmt_count statements (current value: {held + 2})")
        conn._execute_command(COM_STMT_CLOSE, first.to_bytes(4, "little"))
        prepare(conn, "SELECT 3")
        other.close()  # a session's statements go with it
        wait_until(lambda: int(master.status("Prepared_stmt_count")["Prepared_stmt_count"]) == held + 1,
                   what="the closed session's statement released")
    finally:
        master.query("SET GLOBAL max_prepared_stmt_count = DEFAULT")
        conn.close()
    assert master.query("SELECT @@global.max_prepared_stmt_count") == [(16382,)]


# -- sysbench in its default (prepared) mode --------------------------------------------------------


def sysbench(master: Daemon, workload: str, *command: str) -> str:
    assert SYSBENCH is not None  # its tests skip without sysbench
    args = [
        SYSBENCH, workload, "--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={master.port}",
        "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", "--tables=2", "--table-size=500",
        "--threads=4", *command,
    ]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert "FATAL" not in out.stdout + out.stderr, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


def tables_equal(master: Daemon, slaves: list[Daemon]) -> None:
    for n in (1, 2):
        sql = f"SELECT id, k, c, pad FROM sbtest.sbtest{n} ORDER BY id"
        want = master.query(sql)
        assert len(want) > 0
        for s in slaves:
            assert s.query(sql) == want, f"sbtest{n} differs on the slave on port {s.port}"


@pytest.mark.skipif(SYSBENCH is None, reason="needs sysbench")
@pytest.mark.parametrize("workload", ["oltp_point_select", "oltp_write_only", "oltp_read_write"])
def test_sysbench_prepared_mode(cluster, workload):
    master, slaves = cluster
    master.query("CREATE DATABASE IF NOT EXISTS sbtest")
    sysbench(master, workload, "prepare")
    before = int(master.status("Com_stmt_execute")["Com_stmt_execute"])
    report = sysbench(master, workload, "--time=5", "run")  # the default --db-ps-mode: auto
    transactions = int(re.search(r"transactions:\s+(\d+)", report).group(1))
    errors = int(re.search(r"ignored errors:\s+(\d+)", report).group(1))
    assert transactions > 0 and errors == 0, report
    executed = int(master.status("Com_stmt_execute")["Com_stmt_execute"]) - before
    assert executed >= transactions, (executed, transactions)  # the statements were server-side prepared
    converge(master, slaves)
    tables_equal(master, slaves)
    sysbench(master, workload, "cleanup")
    converge(master, slaves)
