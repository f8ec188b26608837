"""protocol.events' GTID events and protocol.gtid against a live MariaDB 10.11: every GTID,
GTID_LIST and BINLOG_CHECKPOINT event of binlogs MariaDB writes (a standalone DDL, transactions,
a non-transactional statement, a group commit, a row-lock wait, XA, a two-phase ALTER, another
domain and server_id, several files) decodes to what `mariadb-binlog` prints and re-encodes byte
for byte; the binlog state rebuilt from the events is MariaDB's `@@gtid_binlog_state` and each
GTID_LIST is the state before its file; GTID lists parse (or fail) as `SET GLOBAL gtid_slave_pos`;
gtid_strict_mode refuses what MariaDB refuses, with its words; and `find_dump_start`, fed the
master's own files, agrees with what a MariaDB replica connecting by GTID gets (started, or the
1236 it shows in Last_IO_Error) and with the ERR packet a raw COM_BINLOG_DUMP gets;
@@gtid_current_pos, BINLOG_GTID_POS() and MASTER_GTID_WAIT() answer as ours."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import threading
import time

import pymysql
import pytest

from protocol.errors import RemoteProtocolError
from protocol.events import (
    FL_DDL,
    FL_START_ALTER,
    FL_TRANSACTIONAL,
    FL_WAITED,
    BinlogCheckpoint,
    EventType,
    Gtid,
    GtidList,
    MariaGtid,
    decode_event,
    encode_body_event,
    split_events,
)
from protocol.gtid import (
    BinlogFileGtids,
    BinlogState,
    GtidPosition,
    binlog_gtid_pos,
    current_pos,
    find_dump_start,
    gtid_wait_reached,
    parse_connect_state,
    parse_gtid_list,
)
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.unit.test_gtid import DUPLICATES, NOT_PARSED, PARSED

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"), reason="needs mariadb-server"),
]

MASTER_ID, DOMAIN = 7, 3
GTID_LINE = re.compile(r"end_log_pos (\d+) .*\tGTID (\d+-\d+-\d+)(.*)$")
CHECKPOINT_LINE = re.compile(r"end_log_pos (\d+) .*\tBinlog checkpoint (\S+)$")


def _workload(m: MariaDBServer) -> None:
    m.execute_all([
        "CREATE DATABASE d",
        "CREATE TABLE d.t (a INT PRIMARY KEY, b INT) ENGINE=InnoDB",
        "CREATE TABLE d.m (a INT) ENGINE=MyISAM",
        "INSERT INTO d.t VALUES (1, 0)",
        "INSERT INTO d.m VALUES (1)",
    ])
    # a row-lock wait (FL_WAITED)
    c1, c2 = m.connect(), m.connect()
    c1.cursor().execute("BEGIN")
    c1.cursor().execute("UPDATE d.t SET b = 1 WHERE a = 1")
    waiter = threading.Thread(target=lambda: c2.cursor().execute("UPDATE d.t SET b = 2 WHERE a = 1"))
    waiter.start()
    deadline = time.monotonic() + 30
    while not m.query("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS")[0][0]:
        assert time.monotonic() < deadline, "the second UPDATE never waited"
        time.sleep(0.05)
    c1.cursor().execute("COMMIT")
    waiter.join()
    c1.close()
    c2.close()
    # a group commit of three (FL_GROUP_COMMIT_ID), then XA PREPAREs and XA COMMITs grouped
    m.execute_all(["SET GLOBAL binlog_commit_wait_usec = 10000000", "SET GLOBAL binlog_commit_wait_count = 3"])
    for stmts in (
        lambda i: [f"INSERT INTO d.t VALUES ({10 + i}, 0)"],
        lambda i: [f"XA START 'g{i}'", f"INSERT INTO d.t VALUES ({20 + i}, 0)", f"XA END 'g{i}'", f"XA PREPARE 'g{i}'"],
        lambda i: [f"XA COMMIT 'g{i}'"],
    ):
        threads = [threading.Thread(target=m.execute_all, args=(stmts(i),)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    m.execute_all(["SET GLOBAL binlog_commit_wait_count = 0"])
    m.execute_all([
        "FLUSH BINARY LOGS",
        "SET SESSION binlog_alter_two_phase = 1",
        "ALTER TABLE d.t ADD COLUMN c INT",
    ])
    m.execute_all(["SET SESSION gtid_domain_id = 5", "SET SESSION server_id = 9", "INSERT INTO d.t VALUES (40, 0, 0)"])
    m.execute_all(["SET SESSION gtid_seq_no = 100", "INSERT INTO d.t VALUES (41, 0, 0)", "FLUSH BINARY LOGS",
                   "INSERT INTO d.t VALUES (42, 0, 0)"])


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    m = MariaDBServer(tmp_path_factory.mktemp("gtid-master"), server_id=MASTER_ID, binlog_format="MIXED",
                      extra=[f"--gtid-domain-id={DOMAIN}"])
    m.start()
    try:
        _workload(m)
        yield m
    finally:
        m.stop()


def _events(path):
    """(end offset, event) of every event of a binlog file."""
    data = path.read_bytes()
    for at, raw in split_events(data, 4):
        yield at + len(raw), bytes(raw)


def test_every_gtid_event_decodes_as_mariadb_binlog_prints_it_and_reencodes(master):
    files = master.binlog_files()
    assert len(files) == 3
    seen_flags, state = set(), BinlogState()
    for path in files:
        printed = subprocess.run(["mariadb-binlog", str(path)], capture_output=True, text=True, check=True).stdout
        gtid_lines = {int(m[1]): (m[2], m[3]) for m in map(GTID_LINE.search, printed.splitlines()) if m}
        checkpoints = {int(m[1]): m[2] for m in map(CHECKPOINT_LINE.search, printed.splitlines()) if m}
        gtid_lists = 0
        for end, raw in _events(path):
            if raw[4] not in (EventType.GTID_EVENT, EventType.GTID_LIST_EVENT, EventType.BINLOG_CHECKPOINT_EVENT):
                continue
            ev = decode_event(raw, checksum=True)
            h = ev.header
            assert encode_body_event(ev.body, timestamp=h.timestamp, server_id=h.server_id, log_pos=h.log_pos,
                                     flags=h.flags, checksum=True) == raw
            body = ev.body
            if isinstance(body, MariaGtid):
                gtid, rest = gtid_lines.pop(end)
                assert body.gtid(h.server_id) == gtid
                assert (f" cid={body.commit_id}" in rest) == (body.commit_id is not None)
                assert (" ddl" in rest, " trans" in rest, " waited" in rest) == (
                    bool(body.flags2 & FL_DDL), bool(body.flags2 & FL_TRANSACTIONAL), bool(body.flags2 & FL_WAITED))
                assert ("START ALTER" in rest) == bool(body.flags_extra & FL_START_ALTER)
                assert ("COMMIT ALTER" in rest) == (body.sa_seq_no is not None)
                if body.sa_seq_no is not None:
                    assert f"COMMIT ALTER id= {body.sa_seq_no}" in rest
                seen_flags.add((body.flags2, body.flags_extra))
                state.update(Gtid(body.domain_id, h.server_id, body.seq_no), strict=True)
            elif isinstance(body, GtidList):
                gtid_lists += 1
                assert GtidList.of(body.gtids) == body
                # the state before this file: the same GTIDs, each domain's most recent last in it
                assert sorted(map(str, body.gtids)) == sorted(map(str, state.gtid_list()))
                assert BinlogState(body.gtids) == state
            else:
                assert isinstance(body, BinlogCheckpoint) and checkpoints.pop(end) == body.file
        assert gtid_lists == 1 and not gtid_lines and not checkpoints
    (binlog_state, binlog_pos), = master.query("SELECT @@gtid_binlog_state, @@gtid_binlog_pos")
    assert (str(state), str(state.binlog_pos())) == (binlog_state, binlog_pos)
    # the combinations the workload made MariaDB write
    assert {0x29, 0x0C, 0x08, 0x0E, 0x1C, 0x4E, 0x8F} <= {f for f, _ in seen_flags}
    assert {0x01, 0x02, 0x04} <= {x for _, x in seen_flags}


def test_binlog_gtid_pos_at_every_event_as_mariadb(master):
    asked = []
    for path in master.binlog_files():
        # the file's GTID_LIST counts even for a position before it (pos 4)
        gtid_list = next(decode_event(raw, checksum=True).body.gtids for _, raw in _events(path)
                         if raw[4] == EventType.GTID_LIST_EVENT)
        before, start = [], 4
        for end, raw in _events(path):
            asked.append((path.name, start, binlog_gtid_pos(gtid_list, before)))
            if raw[4] == EventType.GTID_EVENT:
                ev = decode_event(raw, checksum=True)
                before.append(Gtid(ev.body.domain_id, ev.header.server_id, ev.body.seq_no))
            start = end
    conn = master.connect()
    try:
        cur = conn.cursor()
        for name, pos, ours in asked:
            cur.execute("SELECT BINLOG_GTID_POS(%s, %s)", (name, pos))
            # the same GTIDs; MariaDB lists them in its hash's order, we by domain
            assert GtidPosition.parse(cur.fetchone()[0]) == ours, (name, pos)
    finally:
        conn.close()


def _mariadb_error(m: MariaDBServer, sql: str):
    try:
        m.execute_all([sql])
        return None
    except pymysql.MySQLError as e:
        return e.args[0], e.args[1]


@pytest.mark.parametrize("text", [t for t, _ in PARSED] + NOT_PARSED + [t for t, _ in DUPLICATES])
def test_gtid_lists_parse_as_set_global_gtid_slave_pos(master, text):
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t")
    theirs = _mariadb_error(master, f"SET GLOBAL gtid_slave_pos = '{escaped}'")
    try:
        ours = str(GtidPosition.parse(text))
    except RemoteProtocolError as e:
        assert theirs == (e.code, e.message)
        return
    assert theirs is None
    assert master.query("SELECT @@gtid_slave_pos")[0][0] == ours


def test_current_pos_as_mariadb(master):
    (binlog_state,), = master.query("SELECT @@gtid_binlog_state")
    state = BinlogState(parse_gtid_list(binlog_state))
    own = state.most_recent(DOMAIN)
    assert own.server_id == MASTER_ID and state.most_recent(5).server_id == 9
    for slave_pos in ("", "5-1-50", f"{DOMAIN}-8-{own.seq_no + 1}", f"{DOMAIN}-8-{own.seq_no}",
                      f"{DOMAIN}-{MASTER_ID}-1,5-9-0", "9-9-9"):
        master.execute_all([f"SET GLOBAL gtid_slave_pos = '{slave_pos}'"])
        (theirs,), = master.query("SELECT @@gtid_current_pos")
        assert str(current_pos(state, GtidPosition.parse(slave_pos), MASTER_ID)) == theirs, slave_pos


def test_master_gtid_wait_condition_as_mariadb(master):
    for slave_pos in ("", "3-7-5,4-1-10"):
        master.execute_all([f"SET GLOBAL gtid_slave_pos = '{slave_pos}'"])
        for wanted in ("", "6-1-0", "3-7-1", "3-7-5", "3-7-6", "3-9-5", "4-1-10,3-7-5", "4-1-11", "3-7-1,3-7-2",
                       "3-7-200"):
            (theirs,), = master.query(f"SELECT MASTER_GTID_WAIT('{wanted}', 0)")
            ours = gtid_wait_reached(parse_gtid_list(wanted), GtidPosition.parse(slave_pos))
            assert theirs == (0 if ours else -1), (slave_pos, wanted)


def test_strict_mode_refuses_as_mariadb(master):
    state = BinlogState()
    for path in master.binlog_files():
        for _, raw in _events(path):
            if raw[4] == EventType.GTID_EVENT:
                ev = decode_event(raw, checksum=True)
                state.update(Gtid(ev.body.domain_id, ev.header.server_id, ev.body.seq_no))
    conn = master.connect()
    try:
        conn.cursor().execute("SET GLOBAL gtid_strict_mode = 1")
        for server_id, seq_no in ((MASTER_ID, 1), (MASTER_ID, state.most_recent(DOMAIN).seq_no), (9, 2)):
            cur = conn.cursor()
            cur.execute(f"SET SESSION server_id = {server_id}")
            with pytest.raises(pymysql.MySQLError) as theirs:
                cur.execute(f"SET SESSION gtid_seq_no = {seq_no}")
            with pytest.raises(RemoteProtocolError) as ours:
                state.update(Gtid(DOMAIN, server_id, seq_no), strict=True)
            assert theirs.value.args[:2] == (ours.value.code, ours.value.message)
    finally:
        conn.cursor().execute("SET GLOBAL gtid_strict_mode = 0")
        conn.close()


def test_com_binlog_dump_by_gtid_is_refused_as_mariadb_refuses_it(master):
    """A raw COM_BINLOG_DUMP with @slave_connect_state: the ERR packet MariaDB sends, and ours."""
    (binlog_state,), = master.query("SELECT @@gtid_binlog_state")
    state = BinlogState(parse_gtid_list(binlog_state))
    files = [BinlogFileGtids(p.name, next(decode_event(raw, checksum=True).body.gtids for _, raw in _events(p)
                                          if raw[4] == EventType.GTID_LIST_EVENT)) for p in master.binlog_files()]
    for connect_state in ("x", "0-1-1,0-2-2", f"{DOMAIN}-{MASTER_ID}-999", f"{DOMAIN}-8-1"):
        conn = master.connect()
        try:
            cur = conn.cursor()
            cur.execute("SET @master_binlog_checksum = 'CRC32'")
            cur.execute("SET @mariadb_slave_capability = 4")
            cur.execute("SET @slave_connect_state = %s", (connect_state,))
            conn._execute_command(0x12, struct.pack("<IHI", 4, 0, 55))  # COM_BINLOG_DUMP
            with pytest.raises(pymysql.MySQLError) as theirs:
                conn._read_packet()
        finally:
            conn.close()
        with pytest.raises(RemoteProtocolError) as ours:
            find_dump_start(files, parse_connect_state(connect_state), state)
        assert theirs.value.args[:2] == (ours.value.code, ours.value.message)


def _replica_outcome(replica: MariaDBServer, master: MariaDBServer, request: str, strict: bool, caught_up: str) -> str | None:
    """The replica's 1236 text, or None once it received everything (Gtid_IO_Pos = `caught_up`)."""
    replica.execute_all([
        "STOP SLAVE", "RESET SLAVE ALL", f"SET GLOBAL gtid_slave_pos = '{request}'",
        f"SET GLOBAL gtid_strict_mode = {int(strict)}",
        f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='root', "
        "MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1",
        "START SLAVE IO_THREAD",
    ])
    deadline = time.monotonic() + 60
    while True:
        conn = replica.connect()
        try:
            cur = conn.cursor(pymysql.cursors.DictCursor)
            cur.execute("SHOW SLAVE STATUS")
            row = cur.fetchone()
        finally:
            conn.close()
        if row["Last_IO_Errno"]:
            assert row["Last_IO_Errno"] == 1236
            prefix = "Got fatal error 1236 from master when reading data from binary log: '"
            assert row["Last_IO_Error"].startswith(prefix)
            return row["Last_IO_Error"][len(prefix):-1]
        if row["Slave_IO_Running"] == "Yes" and str(GtidPosition.parse(row["Gtid_IO_Pos"])) == caught_up:
            return None  # received everything up to the master's last GTID of each domain
        assert time.monotonic() < deadline, row
        time.sleep(0.1)


def test_dump_start_agrees_with_a_mariadb_replica(master, tmp_path):
    files = []
    for path in master.binlog_files():
        first = next(decode_event(raw, checksum=True).body for _, raw in _events(path) if raw[4] == EventType.GTID_LIST_EVENT)
        files.append(BinlogFileGtids(path.name, first.gtids))
    (binlog_state,), = master.query("SELECT @@gtid_binlog_state")
    state = BinlogState(parse_gtid_list(binlog_state))
    last = state.most_recent(DOMAIN)
    requests = [
        (f"{DOMAIN}-{MASTER_ID}-{last.seq_no + 50}", False),  # not in the binlog
        (f"{DOMAIN}-8-1", False),  # diverged
        (f"{DOMAIN}-{MASTER_ID}-{last.seq_no - 1}", False),  # fine, domain 5 from its start
        (f"{DOMAIN}-{MASTER_ID}-{last.seq_no}", True),  # fine
        ("5-9-50", True),  # a hole below 5-9-100 under strict mode
        ("5-9-50", False),
        (str(state.binlog_pos()), True),  # up to date
    ]
    with MariaDBServer(tmp_path / "replica", server_id=30, log_bin=None) as replica:
        for request, strict in requests:
            try:
                start = find_dump_start(files, GtidPosition.parse(request), state, slave_strict_mode=strict)
                ours = None
                # a strict-mode hole is found while streaming: walk the files from the start
                for path in master.binlog_files()[[f.name for f in files].index(start.file):]:
                    for _, raw in _events(path):
                        if raw[4] == EventType.GTID_EVENT:
                            ev = decode_event(raw, checksum=True)
                            start.filter.skip(Gtid(ev.body.domain_id, ev.header.server_id, ev.body.seq_no))
            except RemoteProtocolError as e:
                assert e.code == 1236
                ours = e.message
            assert _replica_outcome(replica, master, request, strict, str(state.binlog_pos())) == ours, request
