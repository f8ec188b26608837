"""The pipeline's Spark jobs: events, audit, stats. Run by `semisync pipeline ...` or by
`spark-submit [--master URL] pipeline/jobs.py events|audit|stats ...` (same arguments, same
results: `main(argv)` below is both).

- events FILE_OR_GLOB... --out DIR: every event (the `binlog` source's rows) as Parquet.
- audit --binlogs GLOB --relay-logs NAME=GLOB... [--min-slaves N] --out DIR: the master's binlog
  grouped into transactions (BEGIN..XID/COMMIT, or a standalone statement; a MariaDB GTID event
  only opens the group), each looked up in every slave's logs by its GTID when it has one (the
  slave's relay log or its own binlog: a GTID is kept through replication, positions are not),
  or by (master server id, master binlog file, end position): a relay log keeps the master's
  log_pos, and the master's file name comes from the ROTATE events the master sent (server id =
  the master's). One Parquet row per
  transaction (DIR/transactions) and DIR/summary.json
  {"transactions", "replicated": {NAME: n}, "missing": {NAME: [[file, end_pos], ...]},
  "under_replicated"}; a transaction held by fewer than N slaves (default 1) is under-replicated.
  Exit status 1 when any slave misses a transaction.
- stats FILE_OR_GLOB... [--relay-logs NAME=GLOB...] --out DIR: commits per second, statement mix
  per table, transaction sizes (Parquet, DIR/<name>), and DIR/chart.png (commit rate and
  replication coverage over time).

Spark is quiet (log level ERROR, no progress bar), each stage prints one progress line on stderr,
and the local defaults suit a 2-core machine (few shuffle partitions, 1 GiB driver).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `spark-submit pipeline/jobs.py`: make the checkout importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from binlog.rows import TABLE_IN_SQL
from pipeline.source import register

QUERY, XID, ROTATE, TABLE_MAP, GTID = 2, 16, 4, 19, 162
ROWS_TYPES = (23, 24, 25, 30, 31, 32)
ROWS_KIND = {23: "INSERT", 30: "INSERT", 24: "UPDATE", 31: "UPDATE", 25: "DELETE", 32: "DELETE"}
ROWS_STMT_END_F = 1
FL_STANDALONE = 1  # a GTID event's flags2: the group has no BEGIN
LOCAL_CONF = {
    "spark.ui.showConsoleProgress": "false",
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "4",
    "spark.default.parallelism": "4",
    "spark.driver.memory": "1g",
    "spark.sql.adaptive.enabled": "true",
    # The JVM and its Python workers talk over Unix sockets instead of loopback TCP: the `binlog`
    # source hands the JVM about 210 bytes per event, and a Unix socket moves them for about
    # two thirds of the CPU (measured: 800 MB took 0.37-0.38 s of CPU against 0.56-0.59 s).
    "spark.python.unix.domain.socket.enabled": "true",
}
# The driver JVM's options (in local mode the tasks run in it):
# - Spark reads every value of the Arrow batches the `binlog` source hands it once, after its
#   own isNullAt and within the batch's length: Arrow's Java vectors need not check bounds and
#   nulls again on every get() (a sixth to a tenth of the JVM's time reading the source).
# - C2 compilation only: with tiered compilation the JIT kept compiling Spark's own planning and
#   scheduling code through ten reads of the benchmark's 200 MiB, 0.1-0.2 us of CPU per event
#   (a tenth of all of it); without, that falls to about 0.03 after a few reads. The pipeline's
#   tests ran no slower (121 s against 141 s before).
DRIVER_JAVA_OPTIONS = (
    "-Darrow.enable_unsafe_memory_access=true",
    "-Darrow.enable_null_check_for_get=false",
    "-XX:-TieredCompilation",
)
_LOG4J = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
# a failed task is reported once, by the driver, as the job's error
logger.executor.name = org.apache.spark.executor.Executor
logger.executor.level = off
logger.tasks.name = org.apache.spark.scheduler.TaskSetManager
logger.tasks.level = off
"""


class Progress:
    """One line per job stage on stderr: `semisync pipeline audit [2/4] grouping ... (1.2 s)`."""

    def __init__(self, job: str, stages: int, out: Any = None) -> None:
        self.job, self.stages, self.n = job, stages, 0
        self.out = out or sys.stderr
        self.t0 = time.monotonic()

    def stage(self, what: str) -> None:
        self.n += 1
        print(f"semisync pipeline {self.job} [{self.n}/{self.stages}] {what} ({time.monotonic() - self.t0:.1f} s)",
              file=self.out, flush=True)


def spark_session(master: str | None = "local[*]", app: str = "semisync-pipeline",
                  conf: dict[str, str] | None = None) -> SparkSession:
    """A quiet SparkSession with the `binlog` source registered (an existing one is reused, e.g.
    under spark-submit, where `master` None leaves the submitted master alone)."""
    log4j = Path(tempfile.gettempdir()) / "semisync-pipeline-log4j2.properties"
    if not log4j.exists():
        log4j.write_text(_LOG4J)
    builder = SparkSession.builder.appName(app)
    if master:
        builder = builder.master(master)
    for key, value in {**LOCAL_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    java_options = " ".join([f"-Dlog4j2.configurationFile=file:{log4j}", *DRIVER_JAVA_OPTIONS])
    builder = builder.config("spark.driver.extraJavaOptions", java_options)
    # the Python workers import pipeline.source: give them the driver's import path
    root = str(Path(__file__).resolve().parents[1])
    path = os.environ.get("PYTHONPATH", "")
    if root not in path.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, path) if p)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    return spark


def read_events(spark: SparkSession, paths: Sequence[str], **options: str) -> DataFrame:
    reader = spark.read.format("binlog").option("paths", json.dumps(list(paths)))
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


# ---------------------------------------------------------------------------------------------
# events
# ---------------------------------------------------------------------------------------------
def events_job(spark: SparkSession, paths: Sequence[str], out: str) -> int:
    progress = Progress("events", 2)
    progress.stage(f"reading {', '.join(paths)}")
    df = read_events(spark, paths)
    df.write.mode("overwrite").parquet(out)
    count = spark.read.parquet(out).count()
    progress.stage(f"wrote {count} events to {out}")
    return 0


# ---------------------------------------------------------------------------------------------
# transactions (audit, stats)
# ---------------------------------------------------------------------------------------------
def transactions(events: DataFrame) -> DataFrame:
    """The master's transactions: one row per group that ends with an XID, a COMMIT/ROLLBACK
    query or a standalone statement, with master_file (base name), end_pos, server_id,
    timestamp, gtid, statements, events and bytes."""
    q = F.upper(F.trim(F.col("query")))
    is_query = F.col("type_code") == QUERY
    is_begin = is_query & (q == "BEGIN")
    is_commit = (F.col("type_code") == XID) | (is_query & q.isin("COMMIT", "ROLLBACK"))
    before = Window.partitionBy("file").orderBy("pos").rowsBetween(Window.unboundedPreceding, -1)
    marked = events.select(
        "file", "pos", "size", "type_code", "server_id", "timestamp", "gtid", "query", "rows_flags",
        F.when(is_begin, F.lit("B")).when(is_commit, F.lit("E")).alias("marker"),
        (is_query & ~is_begin & ~is_commit).alias("is_statement_query"),
        is_commit.alias("is_commit"),
    ).withColumn("open", F.last("marker", ignorenulls=True).over(before) == "B")
    # a statement outside BEGIN..COMMIT is a transaction of its own, but in a GTID group the
    # group decides: it ends with its last event (the GTID of every event of a group is known)
    after = Window.partitionBy("file").orderBy("pos")
    standalone = F.col("is_statement_query") & ~F.coalesce(F.col("open"), F.lit(False)) & F.col("gtid").isNull()
    group_end = F.col("gtid").isNotNull() & ~F.coalesce(F.lead("gtid").over(after) == F.col("gtid"), F.lit(False))
    ended = marked.withColumn("is_end", F.col("is_commit") | standalone | group_end).withColumn(
        "txn", F.coalesce(F.sum(F.col("is_end").cast("int")).over(before), F.lit(0))
    )
    statement = F.col("is_statement_query") | (
        F.col("type_code").isin(*ROWS_TYPES) & ((F.col("rows_flags").bitwiseAND(ROWS_STMT_END_F)) != 0)
    )
    end_value = lambda c: F.max(F.when(F.col("is_end"), c))  # noqa: E731
    return (
        ended.groupBy("file", "txn")
        .agg(
            F.max(F.col("is_end").cast("int")).alias("complete"),
            end_value(F.col("pos") + F.col("size")).alias("end_pos"),
            end_value(F.col("server_id")).alias("server_id"),
            end_value(F.col("timestamp")).alias("timestamp"),
            F.max("gtid").alias("gtid"),
            F.sum(statement.cast("int")).alias("statements"),
            F.count(F.lit(1)).alias("events"),
            F.sum("size").alias("bytes"),
        )
        .where(F.col("complete") == 1)
        .select(
            F.element_at(F.split("file", "/"), -1).alias("master_file"), "end_pos", "server_id",
            "timestamp", "gtid", "statements", "events", "bytes",
        )
    )


def relay_positions(events: DataFrame, master_ids: list[int]) -> DataFrame:
    """(server_id, master_file, end_pos) of every event of the masters in a slave's relay log:
    the master file is named by the last ROTATE the master sent before the event."""
    from_master = F.col("server_id").isin(*master_ids)
    order = Window.orderBy("file", "pos").rowsBetween(Window.unboundedPreceding, 0)
    rotate = F.when((F.col("type_code") == ROTATE) & from_master, F.col("next_file"))
    return (
        events.select("file", "pos", "type_code", "server_id", "log_pos", "next_file")
        .withColumn("master_file", F.last(rotate, ignorenulls=True).over(order))
        .where(from_master & (F.col("type_code") != ROTATE) & (F.col("log_pos") > 0) & F.col("master_file").isNotNull())
        .select("server_id", "master_file", F.col("log_pos").alias("end_pos"))
        .distinct()
    )


def held_gtids(events: DataFrame) -> DataFrame:
    """The GTIDs of the transactions a slave's logs hold whole: the group's XID or COMMIT/ROLLBACK
    is there, or, for a standalone GTID (no BEGIN), its statement (a relay log cut inside a
    transaction does not hold it)."""
    q = F.upper(F.trim(F.col("query")))
    is_query = F.col("type_code") == QUERY
    flag = lambda c: F.max(c.cast("int"))  # noqa: E731
    groups = events.where(F.col("gtid").isNotNull()).groupBy("gtid").agg(
        flag((F.col("type_code") == XID) | (is_query & (q.isin("COMMIT", "ROLLBACK") | q.startswith("XA ")))).alias("ended"),
        F.max(F.when(F.col("type_code") == GTID, F.get_json_object("details", "$.flags2").cast("int")
                     .bitwiseAND(FL_STANDALONE))).alias("standalone"),
        flag(is_query & (q == "BEGIN")).alias("began"),
        flag(is_query & (q != "BEGIN")).alias("statement"),
    )
    whole = (F.col("ended") == 1) | ((F.col("standalone") == FL_STANDALONE) & (F.col("began") == 0) & (F.col("statement") == 1))
    return groups.where(whole).select("gtid")


def holders(spark: SparkSession, txns: DataFrame, relay_logs: dict[str, list[str]]) -> DataFrame:
    """`txns` with `holders` (names of the slaves whose logs hold the transaction): found by its
    GTID (a whole group in the slave's relay log or binlog), or by its master position (a relay
    log keeps the master's log_pos; a group that a relay log's rotation split across two files
    is found this way)."""
    master_ids = [r.server_id for r in txns.select("server_id").distinct().collect()]
    out = txns
    for name, paths in relay_logs.items():
        events = read_events(spark, paths).cache()
        held = relay_positions(events, master_ids).withColumn(f"_pos_{name}", F.lit(name))
        by_gtid = held_gtids(events).withColumn(f"_gtid_{name}", F.lit(name))
        out = out.join(held, ["server_id", "master_file", "end_pos"], "left").join(by_gtid, ["gtid"], "left")
        out = out.withColumn(f"_held_{name}", F.coalesce(F.col(f"_gtid_{name}"), F.col(f"_pos_{name}"))) \
            .drop(f"_pos_{name}", f"_gtid_{name}")
    names = [F.col(f"_held_{name}") for name in relay_logs]
    holder_list = F.filter(F.array(*names), lambda x: x.isNotNull()) if names else F.array().cast("array<string>")
    return out.withColumn("holders", holder_list).drop(*[f"_held_{name}" for name in relay_logs]).withColumn(
        "holder_count", F.size("holders")
    )


def _file_order(name: str) -> tuple[str, int]:
    stem, _, seq = name.rpartition(".")
    return (stem, int(seq)) if seq.isdigit() else (name, 0)


# ---------------------------------------------------------------------------------------------
# audit
# ---------------------------------------------------------------------------------------------
def audit_job(spark: SparkSession, binlogs: Sequence[str], relay_logs: dict[str, list[str]],
              min_slaves: int, out: str) -> int:
    progress = Progress("audit", 4)
    progress.stage(f"grouping the master's binlog {', '.join(binlogs)} into transactions")
    txns = transactions(read_events(spark, binlogs)).cache()
    progress.stage(f"looking transactions up in the relay logs of {', '.join(relay_logs) or 'no slave'}")
    result = holders(spark, txns, relay_logs)
    result.write.mode("overwrite").parquet(os.path.join(out, "transactions"))
    progress.stage("summarising")
    rows = spark.read.parquet(os.path.join(out, "transactions")).select(
        "master_file", "end_pos", "holders", "holder_count"
    ).collect()
    rows.sort(key=lambda r: (_file_order(r.master_file), r.end_pos))
    missing_by_slave = {
        name: [[r.master_file, r.end_pos] for r in rows if name not in r.holders] for name in relay_logs
    }
    summary = {
        "transactions": len(rows),
        "replicated": {name: sum(1 for r in rows if name in r.holders) for name in relay_logs},
        "missing": missing_by_slave,
        "under_replicated": sum(1 for r in rows if r.holder_count < min_slaves),
        "min_slaves": min_slaves,
    }
    Path(out).mkdir(parents=True, exist_ok=True)
    Path(out, "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    missing = sum(len(v) for v in missing_by_slave.values())
    progress.stage(
        f"{summary['transactions']} transactions, {missing} missing on slaves, "
        f"{summary['under_replicated']} under-replicated: {out}/summary.json"
    )
    return 1 if missing else 0


# ---------------------------------------------------------------------------------------------
# stats
# ---------------------------------------------------------------------------------------------


def statement_mix(events: DataFrame) -> DataFrame:
    """(table, kind, statements): row events by the TABLE_MAP that names their table id; query
    events by their first keyword and the table after it (BEGIN/COMMIT left out)."""
    table_maps = Window.partitionBy("file", "table_id").orderBy("pos").rowsBetween(Window.unboundedPreceding, 0)
    named = F.when(F.col("type_code") == TABLE_MAP, F.concat_ws(".", "db", "table"))
    rows_kind = F.create_map(*[x for k, v in ROWS_KIND.items() for x in (F.lit(k), F.lit(v))])
    rows = (
        events.where(F.col("type_code").isin(TABLE_MAP, *ROWS_TYPES))
        .withColumn("tbl", F.last(named, ignorenulls=True).over(table_maps))
        .where(F.col("type_code").isin(*ROWS_TYPES) & ((F.col("rows_flags").bitwiseAND(ROWS_STMT_END_F)) != 0))
        .select(F.col("tbl").alias("table"), rows_kind[F.col("type_code")].alias("kind"))
    )
    q = F.upper(F.trim(F.col("query")))
    name = F.regexp_replace(F.regexp_extract("query", TABLE_IN_SQL, 1), "`", "")
    queries = events.where((F.col("type_code") == QUERY) & ~q.isin("BEGIN", "COMMIT", "ROLLBACK")).select(
        F.when(name == "", F.lit(None))
        .when(name.contains(".") | F.coalesce(F.col("db"), F.lit("")).eqNullSafe(""), name)
        .otherwise(F.concat_ws(".", "db", name))
        .alias("table"),
        F.upper(F.regexp_extract("query", r"^\s*(\w+)", 1)).alias("kind"),
    )
    return rows.unionByName(queries).groupBy("table", "kind").agg(F.count(F.lit(1)).alias("statements"))


def stats_job(spark: SparkSession, paths: Sequence[str], relay_logs: dict[str, list[str]], out: str) -> int:
    progress = Progress("stats", 4)
    progress.stage(f"reading {', '.join(paths)}")
    events = read_events(spark, paths).cache()
    txns = holders(spark, transactions(events), relay_logs).cache()
    progress.stage("commits per second and transaction sizes")
    per_second = txns.groupBy("timestamp").agg(
        F.count(F.lit(1)).alias("commits"),
        F.sum("statements").alias("statements"),
        F.sum("bytes").alias("bytes"),
        *[F.sum(F.array_contains("holders", name).cast("int")).alias(f"held_{name}") for name in relay_logs],
    ).orderBy("timestamp")
    per_second.write.mode("overwrite").parquet(os.path.join(out, "commits_per_second"))
    txns.select("master_file", "end_pos", "timestamp", "gtid", "statements", "events", "bytes", "holder_count") \
        .write.mode("overwrite").parquet(os.path.join(out, "transaction_sizes"))
    progress.stage("statement mix per table")
    statement_mix(events).orderBy(F.desc("statements")).write.mode("overwrite").parquet(
        os.path.join(out, "statement_mix")
    )
    seconds = spark.read.parquet(os.path.join(out, "commits_per_second")).orderBy("timestamp").collect()
    chart = os.path.join(out, "chart.png")
    draw_chart(seconds, list(relay_logs), chart)
    progress.stage(f"{sum(r.commits for r in seconds)} commits over {len(seconds)} s: {chart}")
    return 0


def draw_chart(seconds: list[Any], slaves: list[str], path: str) -> None:
    """Commit rate over time, and the share of each second's commits each slave holds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (rate, coverage) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    t0 = seconds[0].timestamp if seconds else 0
    by_second = {r.timestamp: r for r in seconds}
    span: Sequence[int] = range(t0, (seconds[-1].timestamp + 1) if seconds else t0)  # no commits: 0
    if len(span) > 100_000:  # a long history: only the seconds that have commits
        span = [r.timestamp for r in seconds]
    xs = [t - t0 for t in span]
    rate.plot(xs, [by_second[t].commits if t in by_second else 0 for t in span], color="tab:blue")
    rate.set_ylim(bottom=0)
    rate.set_ylabel("commits/s")
    rate.set_title("commit rate")
    for name in slaves:
        share = [100.0 * getattr(by_second[t], f"held_{name}") / by_second[t].commits if t in by_second else float("nan")
                 for t in span]
        coverage.plot(xs, share, label=name, marker=".", markersize=3)
    coverage.set_ylim(-5, 105)
    coverage.set_ylabel("% of commits in relay log")
    coverage.set_xlabel(f"seconds since {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(t0))} UTC")
    coverage.set_title("replication coverage" if slaves else "replication coverage (no relay logs given)")
    if slaves:
        coverage.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# command line (spark-submit pipeline/jobs.py ...; `semisync pipeline` parses the same way)
# ---------------------------------------------------------------------------------------------
def parse_relay_logs(values: Sequence[str]) -> dict[str, list[str]]:
    """NAME=GLOB options -> {NAME: [GLOB, ...]} (a name given twice gets both globs)."""
    out: dict[str, list[str]] = {}
    for value in values:
        name, sep, pattern = value.partition("=")
        if not sep or not name or not pattern:
            raise ValueError(f"--relay-logs {value!r}: expected NAME=GLOB")
        out.setdefault(name, []).append(pattern)
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pipeline/jobs.py", description="semisync Spark jobs")
    parser.add_argument("--master", default=None, help="Spark master (default: spark-submit's, else local[*])")
    sub = parser.add_subparsers(dest="job", required=True)
    events = sub.add_parser("events")
    events.add_argument("paths", nargs="+")
    events.add_argument("--out", required=True)
    audit = sub.add_parser("audit")
    audit.add_argument("--binlogs", required=True, action="append")
    audit.add_argument("--relay-logs", action="append", default=[])
    audit.add_argument("--min-slaves", type=int, default=1)
    audit.add_argument("--out", required=True)
    stats = sub.add_parser("stats")
    stats.add_argument("paths", nargs="+")
    stats.add_argument("--relay-logs", action="append", default=[])
    stats.add_argument("--out", required=True)
    return parser


def run(job: str, spark: SparkSession, args: dict[str, Any]) -> int:
    if job == "events":
        return events_job(spark, args["paths"], args["out"])
    relay = parse_relay_logs(args.get("relay_logs", []))
    if job == "audit":
        return audit_job(spark, args["binlogs"], relay, args["min_slaves"], args["out"])
    return stats_job(spark, args["paths"], relay, args["out"])


_OUR_ERRORS = re.compile(r"(?:BinlogSourceError|BinlogFileError): (.+)")


def error_line(e: BaseException) -> str:
    """One line for a failed job: our error's message (raised on the driver or in a task, where
    Spark wraps it with tracebacks), else the exception's last line."""
    text = str(e)
    if m := _OUR_ERRORS.search(text):
        return m.group(1).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("SQLSTATE")]
    return lines[-1] if lines else type(e).__name__


def run_cli(job: str, master: str | None, args: dict[str, Any], prog: str) -> int:
    """Run a job in a new session; a failure is one line on stderr and exit status 2."""
    spark = spark_session(master)
    try:
        return run(job, spark, args)
    except Exception as e:  # a job's failure, reported as one line, not a JVM stack
        print(f"{prog}: error: {error_line(e)}", file=sys.stderr)
        return 2
    finally:
        spark.stop()


def main(argv: Sequence[str] | None = None) -> int:
    args = vars(build_parser().parse_args(argv))
    try:
        parse_relay_logs(args.get("relay_logs", []))
    except ValueError as e:
        print(f"pipeline/jobs.py: error: {e}", file=sys.stderr)
        return 2
    submitted = os.environ.get("PYSPARK_GATEWAY_PORT") is not None
    master = args.pop("master") or (None if submitted else "local[*]")
    return run_cli(args.pop("job"), master, args, "pipeline/jobs.py")


if __name__ == "__main__":
    sys.exit(main())
