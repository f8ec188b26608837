"""`semisync binlog`'s filters select the events `mariadb-binlog` 10.11 selects with the same
options on a stock MariaDB's binlogs (two files, two GTID domains, ROW and STATEMENT events, a
statement touching two databases): `--start-datetime`/`--stop-datetime` in the local time zone
(a zone that is not UTC), `--database`, GTID-list `--start-position`/`--stop-position`, and
`--gtid` ranges equal to the positions that mean the same; `--transactions` gives the
transactions mariadb-binlog shows (GTID, first and end offset, tables, rows) on MariaDB's files
and BEGIN..XID groups on our writer's; a damaged file with a filter still names the damage,
exits non-zero and prints the selected events before it."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli import binlog_cmd
from cli.binlog_filters import selection_of
from pipeline import decode
from tests.integration.test_binlog_cli import statements, write_binlogs
from tests.support.mariadb import MariaDBServer, mariadb_available

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available() or not shutil.which("mariadb-binlog"),
                       reason="needs mariadb-server and mariadb-binlog"),
]

SEMISYNC = [sys.executable, "-c", "from cli.main import main; main()"]
TZ = "Asia/Kolkata"  # UTC+05:30: a datetime read as UTC would select other events
BASE = int(time.time()) // 100 * 100 + 10 * 86400  # event times after the files' own events
WORKLOAD = [
    f"SET timestamp = {BASE}",
    "CREATE DATABASE a", "CREATE DATABASE b",
    "CREATE TABLE a.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
    "CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
    f"SET timestamp = {BASE + 100}",
    "INSERT INTO a.t VALUES (1, 'x')",
    "USE b",
    "INSERT INTO a.t VALUES (2, 'y')",
    "SET binlog_format = STATEMENT",
    "INSERT INTO a.t VALUES (3, 'z')",
    "USE a",
    "INSERT INTO b.t VALUES (3, 'z')",
    "SET binlog_format = ROW",
    f"SET timestamp = {BASE + 200}",
    "BEGIN", "INSERT INTO a.t VALUES (4, 'p')", "INSERT INTO b.t VALUES (4, 'q'), (5, 'r')",
    "UPDATE a.t SET v = 'w' WHERE id < 3", "COMMIT",
    "UPDATE b.t JOIN a.t USING (id) SET b.t.v = 'both', a.t.v = 'both'",  # one statement, two databases
    "SET gtid_domain_id = 1",
    f"SET timestamp = {BASE + 300}",
    "INSERT INTO b.t VALUES (6, 'r')",
    "DELETE FROM a.t WHERE id = 1",
    "SET gtid_domain_id = 0",
    "FLUSH BINARY LOGS",
    f"SET timestamp = {BASE + 400}",
    "INSERT INTO a.t VALUES (6, 's')",
    "DROP TABLE b.t",
]
END_LOG_POS = re.compile(rb"^#\d{6} +\d+:\d\d:\d\d server id \d+  end_log_pos (\d+) ")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    server = MariaDBServer(tmp_path_factory.mktemp("filters") / "m", binlog_format="ROW", server_id=7)
    server.start()
    try:
        with server.connect() as conn, conn.cursor() as cur:
            for sql in WORKLOAD:
                cur.execute(sql)
    finally:
        server.stop()
    found = server.binlog_files()
    assert len(found) == 2
    return [str(f) for f in found]


def local(seconds: int) -> str:
    """A time as a local DATETIME in TZ."""
    env_tz = os.environ.get("TZ")
    os.environ["TZ"] = TZ
    time.tzset()
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))
    finally:
        if env_tz is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = env_tz
        time.tzset()


def theirs(args: list[str], files: list[str]) -> list[int]:
    """The end offsets of the events mariadb-binlog prints."""
    out = subprocess.run(["mariadb-binlog", "--no-defaults", *args, *files], capture_output=True, check=True,
                         env={**os.environ, "TZ": TZ}).stdout
    return [int(m.group(1)) for line in out.splitlines() if (m := END_LOG_POS.match(line))]


def ours(args: list[str], files: list[str]) -> list[dict]:
    proc = subprocess.run([*SEMISYNC, "binlog", "--json", *args, *files], capture_output=True, text=True,
                          env={**os.environ, "TZ": TZ})
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


CASES = [
    ["--start-datetime", local(BASE + 150)],
    ["--stop-datetime", local(BASE + 250)],
    ["--start-datetime", local(BASE + 100), "--stop-datetime", local(BASE + 300)],
    ["--stop-datetime", local(BASE + 400)],  # in the second file: reading ends there
    ["-d", "a"],
    ["--database", "b"],
    ["-d", "b", "--start-datetime", local(BASE + 200)],
    ["--start-position", "0-7-7"],
    ["--stop-position", "0-7-6"],
    ["--start-position", "0-7-7", "--stop-position", "0-7-8"],
    ["--start-position", "1-7-1"],
    ["--start-position", "0-7-3,1-7-1", "--stop-position", "0-7-5,1-7-2"],
    ["--stop-position", "1-7-1"],
    ["-d", "a", "--start-position", "0-7-4", "--stop-position", "0-7-10"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(a) for a in CASES])
def test_filters_select_the_events_mariadb_binlog_selects(files, args):
    expected = theirs(args, files)
    got = ours(args, files)
    assert [e["log_pos"] for e in got] == expected
    assert 0 < len(expected) < len(theirs([], files)) or args == ["--stop-datetime", local(BASE + 400)]


@pytest.mark.parametrize("text", [
    local(BASE + 150), local(BASE + 150).replace(" ", "T"), local(BASE + 150).replace("-", "").replace(" ", "").replace(":", ""),
    local(BASE + 150)[2:].replace("-", "/"),
])
def test_datetime_forms_mariadb_accepts_mean_the_same_moment(files, text):
    assert [e["log_pos"] for e in ours(["--start-datetime", text], files)] == theirs(["--start-datetime", local(BASE + 150)], files)


def test_bad_datetimes_and_gtids_are_refused_like_mariadb_binlog(files):
    for args in (["--start-datetime", "2024-01-01"], ["--stop-datetime", "yesterday"],
                 ["--start-position", "0-7"], ["--gtid", "0-1-9..0-1-5"], ["--gtid", "x"]):
        proc = subprocess.run([*SEMISYNC, "binlog", *args, *files], capture_output=True, text=True)
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stdout)
        assert "Invalid value" in proc.stderr, proc.stderr
    day = subprocess.run(["mariadb-binlog", "--no-defaults", "--start-datetime=2024-01-01", *files], capture_output=True, text=True)
    assert day.returncode != 0 and "Incorrect date and time argument" in day.stderr
    proc = subprocess.run([*SEMISYNC, "binlog", "--gtid", "0-7-3", "--start-position", "0-7-1", *files], capture_output=True, text=True)
    assert proc.returncode == 2 and "cannot be combined" in proc.stderr


@pytest.mark.parametrize("gtid, start, stop", [
    ("0-7-5..0-7-8", "0-7-4", "0-7-8"),
    ("0-7-7", "0-7-6", "0-7-7"),
    ("1-7-2..", "1-7-1", None),
    ("..0-7-6", None, "0-7-6"),
    ("0-7-3..0-7-5,1-7-2..1-7-2", "0-7-2,1-7-1", "0-7-5,1-7-2"),
    ("1-7-2,0-7-9..", "0-7-8,1-7-1", None),
])
def test_gtid_ranges_are_the_positions_that_mean_the_same(files, gtid, start, stop):
    args = [*(["--start-position", start] if start else []), *(["--stop-position", stop] if stop else [])]
    got = ours(["--gtid", gtid], files)
    assert [e["log_pos"] for e in got] == theirs(args, files)
    assert {e["gtid"] for e in got if "gtid" in e}  # the selected transactions carry their GTIDs


def test_a_gtid_range_open_at_its_end_is_read_to_the_end_beside_a_closed_one(files):
    got = ours(["--gtid", "1-7-2,0-7-9.."], files)
    assert sorted({e["gtid"] for e in got if "gtid" in e}) == ["0-7-10", "0-7-11", "0-7-12", "0-7-9", "1-7-2"]
    outside = [e["log_pos"] for e in ours([], files) if "gtid" not in e]
    assert [e["log_pos"] for e in got if "gtid" not in e] == outside


@pytest.fixture(scope="module")
def our_files(tmp_path_factory):
    """Our master's binlog (GTIDs written as MariaDB writes them), two files."""
    from tests.support.daemons import Daemon

    base = tmp_path_factory.mktemp("ours")
    master = Daemon("master", base / "master", ["--server-id=5"]).start()
    try:
        master.query("CREATE DATABASE a")
        master.query("CREATE TABLE a.t (id INT PRIMARY KEY, v VARCHAR(20))")
        for i in range(5):
            master.query(f"INSERT INTO a.t VALUES ({i}, 'v{i}')")
        master.query("FLUSH BINARY LOGS")
        conn = master.connect()
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("UPDATE a.t SET v = 'x' WHERE id < 3")
            cur.execute("SAVEPOINT s")  # binlogged inside the transaction (Django's atomic blocks)
            cur.execute("INSERT INTO a.t VALUES (9, 'undone')")
            cur.execute("ROLLBACK TO SAVEPOINT s")
            cur.execute("RELEASE SAVEPOINT s")
            cur.execute("DELETE FROM a.t WHERE id = 4")
            cur.execute("COMMIT")
        conn.close()
    finally:
        master.stop()
    found = sorted(str(p) for p in (base / "master").rglob("*.0*") if p.is_file() and p.name[-6:].isdigit())
    assert len(found) >= 2
    return found


def mariadb_binlog_groups(files: list[str]) -> list[dict]:
    """The GTID groups mariadb-binlog -v shows: "GTID d-s-n" opens one that its "Xid" (or, for a
    ddl GTID, its query) ends; each with its file, first offset, end, events' ends, tables, rows."""
    groups: list[dict] = []
    for path in files:
        text = subprocess.run(["mariadb-binlog", "--no-defaults", "-v", path], capture_output=True, check=True).stdout
        at: list[int] = []
        current = None
        for line in text.splitlines():
            if m := re.match(rb"^# at (\d+)$", line):
                at.append(int(m.group(1)))
            elif m := END_LOG_POS.match(line):
                start, end = at.pop(0), int(m.group(1))
                if g := re.search(rb"\tGTID (\d+-\d+-\d+)( ddl)?", line):
                    current = {"file": path, "gtid": g.group(1).decode(), "start": start, "end": end, "ends": [end],
                               "tables": [], "rows": 0, "ddl": bool(g.group(2))}
                    groups.append(current)
                elif current is not None:
                    current["end"] = end
                    current["ends"].append(end)
                    if t := re.search(rb"\tTable_map: `(\w+)`.`(\w+)`", line):
                        name = f"{t.group(1).decode()}.{t.group(2).decode()}"
                        current["tables"] += [] if name in current["tables"] else [name]
                    if b"\tXid = " in line or (current["ddl"] and b"\tQuery\t" in line):
                        current = None
            elif current is not None and re.match(rb"^### (INSERT INTO|UPDATE|DELETE FROM) ", line):
                current["rows"] += 1
    return groups


@pytest.mark.parametrize("which, count", [("files", 14), ("our_files", 8)])
def test_every_event_of_a_transaction_carries_its_gtid(request, which, count):
    paths = request.getfixturevalue(which)
    groups = mariadb_binlog_groups(paths)
    assert len({g["gtid"] for g in groups}) == len(groups) == count
    expected = {(g["file"], end): g["gtid"] for g in groups for end in g["ends"]}
    assert {(e["file"], e["log_pos"]): e["gtid"] for e in ours([], paths) if "gtid" in e} == expected


# (ours: what the rollback to the savepoint undid is not binlogged, nor RELEASE, as MariaDB's binlog)
@pytest.mark.parametrize("which, rows, statements", [("files", 14, 16), ("our_files", 0, 9)])
def test_transactions_are_mariadb_binlogs_groups(request, which, rows, statements):
    paths = request.getfixturevalue(which)
    keys = ("gtid", "start", "end", "rows")
    groups = mariadb_binlog_groups(paths)
    expected = [{k: g[k] for k in keys} for g in groups]
    proc = subprocess.run([*SEMISYNC, "binlog", "--transactions", "--json", *paths], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [{k: t[k] for k in keys} for t in got] == expected
    for t, g in zip(got, groups, strict=True):  # the tables of its TABLE_MAPs, those its statements name
        assert t["tables"] == g["tables"] or not g["tables"]
    if which == "our_files":  # STATEMENT: CREATE DATABASE names no table, the others a.t
        assert [t["tables"] for t in got] == [[]] + [["a.t"]] * 7
    assert sum(t["rows"] for t in got) == rows  # the rows the ROW statements above change (ours: STATEMENT)
    assert sum(t["statements"] for t in got) == statements
    assert all(t["size"] == t["end"] - t["start"] for t in got)
    text = subprocess.run([*SEMISYNC, "binlog", "--transactions", *paths], capture_output=True, text=True).stdout
    assert len(text.splitlines()) == len(got)
    first = got[0]
    assert text.splitlines()[0].startswith(f"{first['gtid']}  {os.path.basename(paths[0])}:{first['start']}-{first['end']}  ")
    if which == "files":
        both = next(t for t in got if len(t["tables"]) == 2 and t["statements"] == 1)  # the two-database UPDATE
        assert both["rows"] == 4
    # from an offset past the FORMAT_DESCRIPTION: the same transactions from there on
    later = subprocess.run([*SEMISYNC, "binlog", "--transactions", "--json", "--start-position", str(got[4]["start"]),
                            paths[0]], capture_output=True, text=True).stdout
    assert [json.loads(line) for line in later.splitlines()] == [t for t in got[4:] if t["file"] == got[0]["file"]]
    # filtered: the transactions of the selected events only
    gtids = [t["gtid"] for t in got]
    picked = subprocess.run([*SEMISYNC, "binlog", "--transactions", "--json", "--gtid", f"{gtids[3]}..{gtids[4]}", *paths],
                            capture_output=True, text=True).stdout
    assert [json.loads(line)["gtid"] for line in picked.splitlines()] == gtids[3:5]


def test_transactions_of_our_writers_files_without_gtid_filters(tmp_path):
    w = write_binlogs(tmp_path, checksum=True, n=12)
    paths = [str(tmp_path / f) for f in w.files()]
    proc = subprocess.run([*SEMISYNC, "binlog", "--transactions", "--json", *paths], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    events = [json.loads(line) for line in subprocess.run([*SEMISYNC, "binlog", "--json", *paths], capture_output=True,
                                                           text=True).stdout.splitlines()]
    # two DDL statements on their own, then one GTID group per transaction: GTID .. XID
    assert [t["gtid"] for t in got] == [None, None, *(f"0-3-{i + 1}" for i in range(12))]
    assert [t["statements"] for t in got] == [1, 1] + [len(statements(0))] * 12
    for t in got[2:]:
        group = [e for e in events if e.get("gtid") == t["gtid"]]
        assert (t["start"], t["end"], t["events"]) == (group[0]["pos"], group[-1]["log_pos"], len(group))
        assert group[-1]["type"] == "XID_EVENT"


def test_a_damaged_file_with_a_filter_prints_the_selected_events_before_the_damage(files, tmp_path):
    damaged = tmp_path / "master-bin.000001"
    data = bytearray(open(files[0], "rb").read())
    cut = [e for e in ours([], files[:1]) if e["type"] == "XID_EVENT"][6]["pos"]  # an XID in the middle
    data[cut + 25] ^= 0xFF  # its body: a CRC32 mismatch
    damaged.write_bytes(bytes(data))
    proc = subprocess.run([*SEMISYNC, "binlog", "--json", "-d", "a", str(damaged)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"offset {cut}" in proc.stderr and "CRC32" in proc.stderr, proc.stderr
    printed = [json.loads(line)["log_pos"] for line in proc.stdout.splitlines()]
    assert printed == [end for end in theirs(["-d", "a"], files[:1]) if end <= cut]


@pytest.mark.parametrize("use_c", [True, False])
def test_filters_decide_the_same_when_every_batch_holds_a_few_events(files, monkeypatch, use_c):
    """Batches that end between an ANNOTATE_ROWS and its TABLE_MAPs, or inside a GTID group,
    with either fast decoder: the same lines as mariadb-binlog's selection."""
    if use_c and decode.native.LIB is None:
        pytest.skip("the C scanner is not built")
    monkeypatch.setattr(decode, "NATIVE", use_c)
    monkeypatch.setattr(decode.decode_range, "__kwdefaults__", {"verify_checksums": True, "chunk_bytes": 200})
    for args in (["-d", "a"], ["-d", "b"], ["--start-position", "0-7-3,1-7-1", "--stop-position", "0-7-5,1-7-2"]):
        opts = binlog_cmd.command.make_context("binlog", [*args, *files]).params
        selection, _, _ = selection_of(opts["start_position"], opts["stop_position"], None, None, opts["database"], ())
        out = io.BytesIO()
        for path in files:
            assert binlog_cmd.decode_file(Path(path), True, out, selection=selection) is None
        assert [json.loads(line)["log_pos"] for line in out.getvalue().splitlines()] == theirs(args, files)
