"""The Spark pipeline end to end, on one session-scoped SparkSession (local[2]):

- `events` on binlogs of a stock MariaDB 10.11 (STATEMENT and ROW, several files), of
  `BinlogWriter` and of our master daemon gives exactly the rows of `semisync binlog --json`;
- `audit` on a MariaDB master with two MariaDB replicas (real relay logs), one of them stopped
  for the last K transactions: exactly those K are missing for it, none for the other;
- the streaming source, fed binlogs while they are written (events half-written at every moment,
  a new file midway), stopped and restarted from its checkpoint, has every event exactly once;
- `spark-submit --master local[2] pipeline/jobs.py audit` gives the same result as the job run
  in-process; `stats` and the errors for bad paths;
- the benchmark (bench/pipeline_bench.py) runs, on a small history, and records its table.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from binlog import BinlogWriter, iter_events, read_index
from pipeline.decode import flat_row
from pipeline.workload import SERVER_VERSION, write_history
from protocol.events import LOG_EVENT_ARTIFICIAL_F, EventType, Rotate, encode_event
from tests.integration.test_binlog_mariadb import WORKLOAD, semisync_json
from tests.support.mariadb import MariaDBServer, mariadb_available

pyspark = pytest.importorskip("pyspark")

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
needs_mariadb = pytest.mark.skipif(not mariadb_available(), reason="needs mariadb-server")


@pytest.fixture(scope="session")
def spark():
    from pipeline.jobs import spark_session

    session = spark_session("local[2]", app="semisync-pipeline-tests", conf={"spark.sql.shuffle.partitions": "2"})
    yield session
    session.stop()


def parquet_rows(spark, path) -> list[dict]:
    rows = [flat_row(r.asDict(recursive=True)) for r in spark.read.parquet(str(path)).collect()]
    return sorted(rows, key=lambda r: (r["file"], r["pos"]))


def events_equal_semisync_binlog_json(spark, files: list[Path], out: Path) -> list[dict]:
    from pipeline.jobs import events_job

    assert events_job(spark, [str(f) for f in files], str(out)) == 0
    ours = parquet_rows(spark, out)
    theirs = sorted(semisync_json(*files), key=lambda r: (r["file"], r["pos"]))
    assert len(ours) == len(theirs)
    for mine, ref in zip(ours, theirs, strict=True):
        assert mine == ref
    return ours


# ---------------------------------------------------------------------------------------------
# events
# ---------------------------------------------------------------------------------------------
@needs_mariadb
@pytest.mark.parametrize("binlog_format", ["STATEMENT", "ROW"])
def test_events_of_mariadb_binlogs_are_the_rows_of_semisync_binlog_json(spark, tmp_path, binlog_format):
    server = MariaDBServer(tmp_path / "m", binlog_format=binlog_format, server_id=11)
    server.start()
    try:
        server.execute_all(WORKLOAD)
    finally:
        server.stop()
    files = server.binlog_files()
    assert len(files) >= 3
    rows = events_equal_semisync_binlog_json(spark, files, tmp_path / "events")
    types = {r["type"] for r in rows}
    assert {"GTID_EVENT", "QUERY_EVENT", "XID_EVENT", "ROTATE_EVENT", "GTID_LIST_EVENT"} <= types
    assert ("TABLE_MAP_EVENT" in types) is (binlog_format == "ROW")
    assert any(r.get("query") == "INSERT INTO shop.orders (item, qty) VALUES ('caf\u00e9 \u2615', 2), ('x', 5)"
               or r.get("query", "").startswith("INSERT INTO shop.orders (item, qty) VALUES ('caf\u00e9") for r in rows)


def test_events_of_binlog_writer_files_and_a_big_file_split_in_ranges(spark, tmp_path):
    write_history(tmp_path / "row", transactions=600, max_size=60_000, ddl_every=40)
    write_history(tmp_path / "stmt", transactions=600, row_format=False, checksum=False, max_size=1 << 30)
    files = sorted((tmp_path / "row").glob("master-bin.0*")) + sorted((tmp_path / "stmt").glob("master-bin.0*"))
    events_equal_semisync_binlog_json(spark, files, tmp_path / "events")
    # the one big STATEMENT file, in byte ranges cut at event boundaries
    from pipeline.jobs import read_events

    big = str(tmp_path / "stmt" / "master-bin.000001")
    df = read_events(spark, [big], maxPartitionBytes="20000")
    assert df.rdd.getNumPartitions() > 3
    rows = sorted((flat_row(r.asDict()) for r in df.collect()), key=lambda r: r["pos"])
    assert rows == semisync_json(big)


def test_events_of_our_master_daemons_binlog(spark, tmp_path):
    from tests.support.daemons import Daemon

    master = Daemon("master", tmp_path / "master", ["--server-id=5"]).start()
    try:
        master.query("CREATE DATABASE shop")
        master.query("CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20))")
        for i in range(20):
            master.query(f"INSERT INTO shop.t VALUES ({i}, 'v{i}')")
        master.query("FLUSH BINARY LOGS")
        conn = master.connect()
        with conn.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("UPDATE shop.t SET v = 'x' WHERE id < 5")
            cur.execute("DELETE FROM shop.t WHERE id = 7")
            cur.execute("COMMIT")
        conn.close()
    finally:
        master.stop()
    files = sorted(p for p in (tmp_path / "master").rglob("*.0*") if p.is_file() and p.name[-6:].isdigit())
    assert len(files) >= 2, list((tmp_path / "master").rglob("*"))
    rows = events_equal_semisync_binlog_json(spark, files, tmp_path / "events")
    delete = next(r for r in rows if r.get("query") == "DELETE FROM shop.t WHERE id = 7")
    update = next(r for r in rows if r.get("query") == "UPDATE shop.t SET v = 'x' WHERE id < 5")
    # the GTID our master wrote for the transaction, on each of its events
    assert delete["gtid"] == update["gtid"] == f"0-5-{2 + 20 + 1}"


def test_a_path_matching_nothing_or_a_file_that_is_not_a_binlog_is_a_clear_error(spark, tmp_path):
    from pipeline.jobs import error_line, read_events

    with pytest.raises(Exception) as info:
        read_events(spark, [str(tmp_path / "nothing-*.0*")]).count()
    assert error_line(info.value) == f"binlog source: {str(tmp_path / 'nothing-*.0*')!r} matches no file"
    text = tmp_path / "notes.000001"
    text.write_text("not a binlog\n")
    with pytest.raises(Exception) as info:
        read_events(spark, [str(text)]).count()
    assert error_line(info.value) == f"binlog source: {text}: at offset 0: not a binlog file (bad magic number)"


# ---------------------------------------------------------------------------------------------
# audit
# ---------------------------------------------------------------------------------------------
def _caught_up(replica: MariaDBServer, master_file: str, master_pos: int) -> bool:
    conn = replica.connect()
    try:
        with conn.cursor() as cur:
            cur.execute("SHOW SLAVE STATUS")
            row = cur.fetchone()
            names = [d[0] for d in cur.description]
    finally:
        conn.close()
    status = dict(zip(names, row, strict=True))
    return status["Master_Log_File"] == master_file and int(status["Read_Master_Log_Pos"]) >= master_pos


def _wait_caught_up(replica: MariaDBServer, master: MariaDBServer, timeout: float = 60) -> None:
    file, pos = master.query("SHOW MASTER STATUS")[0][:2]
    deadline = time.monotonic() + timeout
    while not _caught_up(replica, file, int(pos)):
        assert time.monotonic() < deadline, f"replica did not catch up to {file}:{pos}"
        time.sleep(0.1)


@needs_mariadb
def test_audit_reports_exactly_the_transactions_a_stopped_slave_missed(spark, tmp_path):
    from pipeline.jobs import audit_job

    k = 4
    master = MariaDBServer(tmp_path / "master", binlog_format="ROW", server_id=1).start()
    replicas = {
        name: MariaDBServer(tmp_path / name, server_id=sid, log_bin=None,
                            extra=[f"--relay-log={tmp_path / name / 'relay-bin'}", "--relay-log-purge=OFF"]).start()
        for name, sid in (("a", 2), ("b", 3))
    }
    try:
        for replica in replicas.values():
            replica.query(
                f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='root', "
                "MASTER_PASSWORD='', MASTER_LOG_FILE='master-bin.000001', MASTER_LOG_POS=4, MASTER_USE_GTID=no"
            )
            replica.query("START SLAVE")
        master.execute_all([
            "CREATE DATABASE shop",
            "CREATE TABLE shop.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
            *[f"INSERT INTO shop.t VALUES ({i}, {i})" for i in range(10)],
            "FLUSH BINARY LOGS",
            "UPDATE shop.t SET v = v + 1 WHERE id < 5",
        ])
        for replica in replicas.values():
            _wait_caught_up(replica, master)
        replicas["b"].query("STOP SLAVE")
        missed = []
        for i in range(k):
            master.query(f"INSERT INTO shop.t VALUES ({100 + i}, 0)")
            file, pos = master.query("SHOW MASTER STATUS")[0][:2]
            missed.append([file, int(pos)])
        _wait_caught_up(replicas["a"], master)
    finally:
        for server in (master, *replicas.values()):
            server.stop()
    relay = {name: [str(tmp_path / name / "relay-bin.0*")] for name in replicas}
    out = tmp_path / "audit"
    assert audit_job(spark, [str(master.datadir / "master-bin.0*")], relay, 2, str(out)) == 1
    summary = json.loads((out / "summary.json").read_text())
    total = 2 + 10 + 1 + k  # CREATE DATABASE, CREATE TABLE, inserts, update, the last k
    assert summary["transactions"] == total
    assert summary["missing"] == {"a": [], "b": missed}
    assert summary["replicated"] == {"a": total, "b": total - k}
    assert summary["under_replicated"] == k
    rows = spark.read.parquet(str(out / "transactions")).collect()
    assert sorted(r.statements for r in rows) == sorted([1] * total)
    assert {tuple(sorted(r.holders)) for r in rows} == {("a", "b"), ("a",)}


@needs_mariadb
def test_audit_matches_by_gtid_the_binlog_a_replica_writes_where_positions_differ(spark, tmp_path):
    """A replica's own binlog (log_slave_updates) holds the master's transactions under their
    GTIDs at other offsets, in files named by the replica: the audit finds them by GTID."""
    from pipeline.jobs import audit_job

    k = 3
    master = MariaDBServer(tmp_path / "master", binlog_format="ROW", server_id=1).start()
    replica = MariaDBServer(tmp_path / "r", server_id=2, log_bin="replica-bin", binlog_format="ROW",
                            extra=["--log-slave-updates"]).start()
    try:
        master.execute_all(["CREATE DATABASE shop", "CREATE TABLE shop.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB"])
        replica.execute_all(["CREATE DATABASE local_only"])  # the replica's own: shifts its offsets
        replica.query(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={master.port}, MASTER_USER='root', "
                      "MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos")
        replica.query("START SLAVE")
        master.execute_all([*[f"INSERT INTO shop.t VALUES ({i}, {i})" for i in range(6)], "FLUSH BINARY LOGS",
                            "UPDATE shop.t SET v = v + 1 WHERE id < 3"])
        wanted = master.query("SELECT @@gtid_binlog_pos")[0][0]
        deadline = time.monotonic() + 60
        while replica.query("SELECT @@gtid_slave_pos")[0][0] != wanted:  # applied, so in its binlog
            assert time.monotonic() < deadline, f"replica did not apply up to {wanted}"
            time.sleep(0.1)
        replica.query("STOP SLAVE")
        missed = []
        for i in range(k):
            master.query(f"INSERT INTO shop.t VALUES ({100 + i}, 0)")
            file, pos = master.query("SHOW MASTER STATUS")[0][:2]
            missed.append([file, int(pos)])
    finally:
        master.stop()
        replica.stop()
    out = tmp_path / "audit"
    slaves = {"r": [str(replica.datadir / "replica-bin.0*")]}
    assert audit_job(spark, [str(master.datadir / "master-bin.0*")], slaves, 1, str(out)) == 1
    summary = json.loads((out / "summary.json").read_text())
    total = 2 + 6 + 1 + k
    assert summary["transactions"] == total
    assert summary["missing"] == {"r": missed}
    assert summary["replicated"] == {"r": total - k}
    rows = spark.read.parquet(str(out / "transactions")).collect()
    assert all(r.gtid is not None and r.gtid.startswith("0-1-") for r in rows)


def test_audit_on_our_master_and_two_of_our_slaves_one_stopped_for_the_last_k(spark, tmp_path):
    from pipeline.jobs import audit_job
    from tests.support.daemons import Daemon

    k = 3
    master = Daemon("master", tmp_path / "master", ["--server-id=1", "--max-binlog-size=4096"]).start()
    slaves: dict[str, Daemon] = {}
    try:
        master.query("CREATE USER 'repl'@'%' IDENTIFIED BY 'replpw'")
        master.query("GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'")
        for name, sid in (("a", 2), ("b", 3)):
            slaves[name] = Daemon("slave", tmp_path / name, [
                f"--server-id={sid}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=repl", "--master-password=replpw", "--master-connect-retry=1",
                "--relay-log-purge=OFF",  # the audit reads every relay file, applied or not
            ]).start()
        master.query("CREATE DATABASE app")
        master.query("CREATE TABLE app.t (id INT PRIMARY KEY, v INT)")
        for i in range(30):
            master.query(f"INSERT INTO app.t VALUES ({i}, {i})")
        for slave in slaves.values():
            _wait_caught_up(slave, master)
        slaves["b"].stop()
        for i in range(k):
            master.query(f"UPDATE app.t SET v = v + 1 WHERE id = {i}")
        _wait_caught_up(slaves["a"], master)
    finally:
        for daemon in (*slaves.values(), master):
            daemon.stop()
    relay = {name: [str(p) for p in sorted((tmp_path / name).rglob("relay-bin.0*"))] for name in slaves}
    assert all(relay.values()), relay
    # the last k commits (the master rotates every 4 KiB: SHOW MASTER STATUS may name the next file)
    master_events = semisync_json(*sorted((tmp_path / "master").glob("mysql-bin.0*")))
    missed = [[Path(r["file"]).name, r["pos"] + r["size"]] for r in master_events if r["type"] == "XID_EVENT"][-k:]
    assert len({f for f, _ in missed}) >= 1 and len(missed) == k
    out = tmp_path / "audit"
    assert audit_job(spark, [str(tmp_path / "master" / "mysql-bin.0*")], relay, 1, str(out)) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["missing"] == {"a": [], "b": missed}
    assert summary["replicated"]["a"] == summary["transactions"] == summary["replicated"]["b"] + k
    assert summary["under_replicated"] == 0


# ---------------------------------------------------------------------------------------------
# relay logs made from a master's binlog (what an IO thread writes), for spark-submit and stats
# ---------------------------------------------------------------------------------------------
def relay_log_of(master_dir: Path, relay_dir: Path, transactions: int | None = None) -> None:
    """A relay log holding the master's events as a slave receives them: its own FD, the
    master's fake ROTATE, then the master's events unchanged, up to `transactions` XIDs."""
    names = read_index(master_dir, "master-bin")
    with BinlogWriter(relay_dir, "relay-bin", server_id=2, checksum=True, max_size=50_000, server_version=SERVER_VERSION) as w:
        w.append_raw(encode_event(EventType.ROTATE_EVENT, Rotate(4, names[0]).encode(), timestamp=0, server_id=1,
                                  log_pos=0, flags=LOG_EVENT_ARTIFICIAL_F, checksum=True))
        commits = 0
        for name in names:
            for _, raw in iter_events(master_dir / name):
                if raw[4] in (EventType.XID_EVENT, EventType.QUERY_EVENT) and b"BEGIN" not in raw[19:]:
                    commits += 1
                    if transactions is not None and commits > transactions:
                        return
                w.append_raw(raw)
                w.flush()


def spark_submit() -> str:
    return shutil.which("spark-submit") or str(Path(pyspark.__file__).parent / "bin" / "spark-submit")


def test_spark_submit_runs_the_same_audit_with_the_same_result(spark, tmp_path):
    from pipeline.jobs import audit_job

    txns = write_history(tmp_path / "m", transactions=300, max_size=30_000, ddl_every=100)
    relay_log_of(tmp_path / "m", tmp_path / "a")
    relay_log_of(tmp_path / "m", tmp_path / "b", transactions=290)
    binlogs = str(tmp_path / "m" / "master-bin.0*")
    relay = {"a": [str(tmp_path / "a" / "relay-bin.0*")], "b": [str(tmp_path / "b" / "relay-bin.0*")]}
    assert audit_job(spark, [binlogs], relay, 1, str(tmp_path / "inproc")) == 1
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [spark_submit(), "--master", "local[2]", str(ROOT / "pipeline" / "jobs.py"), "audit", "--binlogs", binlogs,
         "--relay-logs", f"a={relay['a'][0]}", "--relay-logs", f"b={relay['b'][0]}", "--out", str(tmp_path / "submitted")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=400,
    )
    # spark-submit hands the Python driver's stderr to its stdout
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-3000:]
    lines = [line for line in output.splitlines() if line.startswith("semisync pipeline audit [")]
    assert len(lines) == 4 and "300 transactions, 10 missing" in lines[-1], output[-3000:]
    inproc = json.loads((tmp_path / "inproc" / "summary.json").read_text())
    assert json.loads((tmp_path / "submitted" / "summary.json").read_text()) == inproc
    assert inproc["missing"]["b"] == [[t.end.file, t.end.pos] for t in txns[-10:]]
    assert inproc["missing"]["a"] == [] and inproc["transactions"] == 300

    def table(name):
        return sorted(tuple(r) for r in spark.read.parquet(str(tmp_path / name / "transactions"))
                      .select("master_file", "end_pos", "timestamp", "statements", "holders").collect())
    assert table("submitted") == table("inproc")


# ---------------------------------------------------------------------------------------------
# stats
# ---------------------------------------------------------------------------------------------
def test_stats_commit_rate_statement_mix_sizes_and_chart(spark, tmp_path):
    from pipeline.jobs import stats_job

    txns = write_history(tmp_path / "m", transactions=400, rate=50, statements_per_transaction=2, ddl_every=100)
    relay_log_of(tmp_path / "m", tmp_path / "a", transactions=350)
    out = tmp_path / "stats"
    assert stats_job(spark, [str(tmp_path / "m" / "master-bin.0*")], {"a": [str(tmp_path / "a" / "relay-bin.0*")]}, str(out)) == 0
    per_second = sorted(tuple(r) for r in spark.read.parquet(str(out / "commits_per_second"))
                        .select("timestamp", "commits", "held_a").collect())
    assert [c for _, c, _ in per_second] == [50] * 8
    assert [t for t, _, _ in per_second] == sorted({t.timestamp for t in txns})
    assert sum(h for _, _, h in per_second) == 350
    mix = {(r.table, r.kind): r.statements for r in spark.read.parquet(str(out / "statement_mix")).collect()}
    assert sum(v for (table, kind), v in mix.items() if kind in ("INSERT", "UPDATE", "DELETE")) == sum(
        t.statements for t in txns if t.statements == 2)
    assert {table for table, _ in mix} >= {"shop.orders", "shop.customers", "shop.items"}
    assert sum(v for (_, kind), v in mix.items() if kind == "CREATE") == 4
    sizes = spark.read.parquet(str(out / "transaction_sizes")).collect()
    assert len(sizes) == 400 and all(r.bytes > 0 and r.events >= 2 for r in sizes)
    png = (out / "chart.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


# ---------------------------------------------------------------------------------------------
# streaming
# ---------------------------------------------------------------------------------------------
class Feeder(threading.Thread):
    """Copies finished binlog files into `target` in random pieces (so events are half-written
    at any moment), one file after the other, as a master appending and rotating does. Halfway
    through (in the middle of an event, most likely) it sets `halfway` and waits for `resume`."""

    def __init__(self, files: list[Path], target: Path, seed: int = 1) -> None:
        super().__init__(daemon=True)
        self.files, self.target = files, target
        self.rng = random.Random(seed)
        self.halfway, self.resume = threading.Event(), threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            total = sum(f.stat().st_size for f in self.files)
            written = 0
            for src in self.files:
                data = src.read_bytes()
                with open(self.target / src.name, "wb", buffering=0) as out:
                    at = 0
                    while at < len(data):
                        n = self.rng.randrange(1, 1500)
                        out.write(data[at : at + n])
                        at += n
                        written += n
                        if not self.halfway.is_set() and written > total // 2:
                            self.halfway.set()
                            self.resume.wait(300)
                        time.sleep(0.002)
        except BaseException as e:  # reported by the test
            self.error = e


def test_streaming_source_tails_growing_binlogs_and_restarts_from_its_checkpoint(spark, tmp_path):
    write_history(tmp_path / "src", transactions=2500, max_size=200_000, ddl_every=300)
    files = sorted((tmp_path / "src").glob("master-bin.0*"))
    assert len(files) >= 3
    live = tmp_path / "live"
    live.mkdir()
    feeder = Feeder(files, live)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"

    def start():
        stream = spark.readStream.format("binlog").load(str(live))
        return (stream.writeStream.format("parquet").option("checkpointLocation", str(checkpoint))
                .trigger(processingTime="300 milliseconds").start(str(out)))

    query = start()
    feeder.start()
    assert feeder.halfway.wait(120)
    query.processAllAvailable()  # everything up to the half-written event
    query.stop()
    first_run = spark.read.parquet(str(out)).count()
    feeder.resume.set()
    query = start()  # from the checkpoint, while the feeder writes the rest
    feeder.join(120)
    assert not feeder.is_alive() and feeder.error is None
    query.processAllAvailable()
    query.stop()
    assert 0 < first_run
    got = spark.read.parquet(str(out)).select("file", "pos", "type", "log_pos", "query", "xid").collect()
    expected = []
    for src in files:
        expected += [{**r, "file": str(live / src.name)} for r in semisync_json(src)]
    keys = sorted((r.file, r.pos) for r in got)
    assert len(keys) == len(set(keys)), "an event was delivered twice"
    assert keys == sorted((r["file"], r["pos"]) for r in expected)
    by_key = {(r["file"], r["pos"]): r for r in expected}
    for r in got:
        ref = by_key[(r.file, r.pos)]
        assert (r.type, r.log_pos, r.query, r.xid) == (ref["type"], ref["log_pos"], ref.get("query"), ref.get("xid"))
    assert first_run < len(keys)


def test_streaming_source_on_our_master_while_it_writes_every_event_once_after_a_restart(spark, tmp_path):
    from tests.support.daemons import Daemon

    master = Daemon("master", tmp_path / "master", ["--server-id=5", "--max-binlog-size=4096"]).start()
    halfway, resume = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            conn = master.connect()
            with conn.cursor() as cur:
                for i in range(240):
                    cur.execute(f"INSERT INTO shop.t VALUES ({i}, 'row {i}')")
                    if i == 120:
                        halfway.set()
                        resume.wait(300)
            conn.close()
        except BaseException as e:  # reported by the test
            errors.append(e)

    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    pattern = str(tmp_path / "master" / "mysql-bin.0*")

    def start():
        return (spark.readStream.format("binlog").load(pattern).writeStream.format("parquet")
                .option("checkpointLocation", str(checkpoint)).trigger(processingTime="300 milliseconds")
                .start(str(out)))

    try:
        master.query("CREATE DATABASE shop")
        master.query("CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20))")
        writer_thread = threading.Thread(target=write, daemon=True)
        query = start()
        writer_thread.start()
        assert halfway.wait(120)
        query.processAllAvailable()
        query.stop()
        first_run = spark.read.parquet(str(out)).count()
        resume.set()
        query = start()
        writer_thread.join(120)
        assert not writer_thread.is_alive() and not errors, errors
    finally:
        resume.set()
        master.stop()
    query.processAllAvailable()
    query.stop()
    files = sorted((tmp_path / "master").glob("mysql-bin.0*"))
    assert len(files) >= 3
    expected = sorted((r["file"], r["pos"]) for r in semisync_json(*files))
    got = sorted((r.file, r.pos) for r in spark.read.parquet(str(out)).select("file", "pos").collect())
    assert len(got) == len(set(got)), "an event was delivered twice"
    assert got == expected
    assert 0 < first_run < len(got)


def test_benchmark_times_the_source_and_one_process_on_the_same_files_and_records_both(tmp_path):
    """bench/pipeline_bench.py (200 MiB by default; its numbers are bench/RESULTS.md's) on 2 MiB:
    one run times the Spark source (with and without CRC32 checks), its decoder alone and
    `semisync binlog --json` over the same files, checks that they counted the same events, and
    writes events/s and MB/s of each into the results file's pipeline section, leaving the other
    sections alone. Speed is not asserted here."""
    results = tmp_path / "RESULTS.md"
    results.write_text("# Benchmark results\n\n## other\n\nkept\n")
    proc = subprocess.run(
        [sys.executable, "bench/pipeline_bench.py", "--mb", "2", "--dir", str(tmp_path / "data"), "--runs", "1",
         "--warmups", "1", "--record", str(results)],
        cwd=ROOT, capture_output=True, text=True, timeout=400,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = results.read_text()
    assert text.startswith("# Benchmark results\n\n## other\n\nkept\n")
    section = text[text.index("## pipeline") :]
    assert "fast path: the C scanner" in section
    readers = ("`binlog` source on local[2] |", "`binlog` source on local[2], no CRC32 check |",
               "the source's decoder alone, 1 process |", "`semisync binlog --json`, 1 process |")
    for reader in readers:
        row = next(line for line in section.splitlines() if line.startswith(f"| {reader}"))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert float(cells[2].replace(",", "")) > 0 and float(cells[3]) > 0, row  # events/s, MB/s
