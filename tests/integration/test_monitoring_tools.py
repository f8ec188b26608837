"""What monitoring tools read, run against our master: percona-toolkit's pt-variable-advisor
(its `SHOW /*40003 GLOBAL*/ VARIABLES` was 1064: a comment after SHOW hid the statement's second
word), pt-mysql-summary (stopped at its query cache section without the Qcache_* counters, and
at Com_prepare_sql), and prometheus-mysqld-exporter's global_variables collector, which exports
the InnoDB variables tools look at (`SELECT @@innodb_buffer_pool_size` was 1193): read only,
the engine's own values where it has them, MariaDB 10.11's defaults (compared with a live one)
where they say what the engine does too; and the exporter's default collectors with mysql.user and
the perf_schema ones scraping without an error (INNODB_CMP / INNODB_CMPMEM were 1109,
performance_schema's tables and mysql.user 1146), what they read compared with MariaDB."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

import pymysql
import pytest

from tests.integration.test_operability import scrape
from tests.support.daemons import Daemon, wait_for
from tests.support.failover import REPL_PASSWORD, REPL_USER, attach
from tests.support.mariadb import MariaDBServer, mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours
from tests.support.net import free_port

pytestmark = [pytest.mark.timeout(300)]

needs_mariadb = pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed")
PT_ADVISOR, PT_SUMMARY = shutil.which("pt-variable-advisor"), shutil.which("pt-mysql-summary")
EXPORTER = shutil.which("prometheus-mysqld-exporter")


@pytest.fixture(scope="module")
def master(tmp_path_factory):
    server = Daemon("master", tmp_path_factory.mktemp("mon") / "master", ["--server-id=1"]).start()
    try:
        yield server
    finally:
        server.stop()


@needs_mariadb
def test_innodb_variables_as_mariadb_answers_them(tmp_path):
    queries = [
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_file_per_table', 'innodb_default_row_format',"
        " 'innodb_stats_on_metadata', 'innodb_autoinc_lock_mode')",
        "SELECT @@innodb_page_size IN (4096, 16384), @@innodb_buffer_pool_size > 0,"
        " @@global.innodb_flush_log_at_trx_commit IN (1, 2)",
        "SET GLOBAL innodb_page_size = 8192",
        "SHOW /*40003 GLOBAL*/ VARIABLES LIKE 'innodb_file_per_table'",
        "SHOW GLOBAL STATUS LIKE 'Qcache_hits'",
    ]
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = both_answer(reference, ours, ["CREATE DATABASE d"], queries)
        assert mine == theirs
        # a page cache and page size of the engine's own, fsync at commit as the daemon runs it
        assert ours.query("SELECT @@innodb_buffer_pool_size, @@innodb_page_size") == [(33554432, 4096)]
        assert ours.query("SELECT @@innodb_flush_log_at_trx_commit") == [(2,)]  # synchronous NORMAL


@pytest.mark.skipif(PT_ADVISOR is None or PT_SUMMARY is None, reason="needs percona-toolkit (Makefile APT_PACKAGES)")
def test_pt_variable_advisor_and_pt_mysql_summary_run_to_the_end(master):
    assert PT_ADVISOR is not None and PT_SUMMARY is not None  # (skipped otherwise)
    advisor = subprocess.run([PT_ADVISOR, f"h=127.0.0.1,P={master.port},u=root", "--no-version-check"],
                             capture_output=True, text=True, timeout=120)
    assert advisor.returncode == 0, advisor.stderr
    assert "innodb_flush_log_at_trx_commit-1" in advisor.stdout  # it read the InnoDB variables
    summary = subprocess.run([PT_SUMMARY, "--host=127.0.0.1", f"--port={master.port}", "--user=root"],
                             capture_output=True, text=True, timeout=120)
    assert summary.returncode == 0, summary.stderr
    assert "# Query cache" in summary.stdout and "# The End" in summary.stdout
    assert "arithmetic expression" not in summary.stderr


@pytest.mark.skipif(EXPORTER is None, reason="exporter not installed (make test installs it)")
def test_mysqld_exporter_exports_the_innodb_variables(master):
    assert EXPORTER is not None  # (skipped otherwise)
    web = free_port()
    proc = subprocess.Popen(
        [EXPORTER, f"--web.listen-address=127.0.0.1:{web}", "--collect.global_variables",
         "--collect.info_schema.processlist", "--collect.info_schema.tables"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "DATA_SOURCE_NAME": f"root:@(127.0.0.1:{master.port})/"})
    try:
        metrics = wait_for(lambda: scrape(web), timeout=30, message="mysqld_exporter to answer")
        assert metrics["mysql_up"] == 1
        assert metrics["mysql_global_variables_innodb_buffer_pool_size"] == 33554432
        assert metrics["mysql_global_variables_innodb_file_per_table"] == 1
        errors = {name: value for name, value in metrics.items()
                  if name.startswith("mysql_exporter_scrape_errors_total") and value}
        assert errors == {}
    finally:
        proc.terminate()
        proc.wait(20)
    with pymysql.connect(host="127.0.0.1", port=master.port, user="root") as conn:
        assert conn.thread_id() > 0


@needs_mariadb
def test_what_the_exporter_reads_as_mariadb_answers_it(tmp_path):
    """INNODB_CMP / INNODB_CMPMEM (were 1109, as INNODB_METRICS): a row of zeros per compressed page size, as for
    tables never compressed (MariaDB's rows past our 4 KiB pages left out); performance_schema
    (1146): MariaDB's tables with the schema OFF, its default, each empty; mysql.user (1146): the
    view over the accounts; SHOW GLOBAL STATUS / VARIABLES counted in Com_show_status /
    Com_show_variables (were not counted)."""
    setup = ["CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY)", "CREATE USER mon@'%' IDENTIFIED BY 'pw'",
             "GRANT PROCESS, REPLICATION CLIENT, SELECT ON *.* TO mon@'%'"]
    queries = [
        # INNODB_METRICS (was 1109): every counter MariaDB has, as with its monitors never enabled
        "SELECT NAME, SUBSYSTEM, TYPE, COMMENT FROM information_schema.INNODB_METRICS",
        "SELECT * FROM information_schema.INNODB_METRICS WHERE NAME = 'metadata_table_handles_opened'",
        # a column's name compared without regard to case (found nothing)
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'INNODB_METRICS'"
        " AND column_name IN ('status', 'enabled')",
        "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 't' AND column_name = 'ID'",
        "SELECT * FROM information_schema.INNODB_CMP WHERE page_size <= 4096",
        "SELECT * FROM information_schema.INNODB_CMPMEM_RESET WHERE page_size <= 4096",
        "SELECT * FROM information_schema.INNODB_CMP_PER_INDEX",
        "SELECT COUNT(*), SUM(COUNT_STAR) FROM performance_schema.events_statements_summary_by_digest",
        "SELECT OBJECT_SCHEMA, OBJECT_NAME, COUNT_READ FROM performance_schema.table_io_waits_summary_by_table",
        "SELECT * FROM performance_schema.memory_summary_global_by_event_name",
        "SELECT * FROM performance_schema.no_such_table",
        "SELECT user, host, Password, Select_priv, Process_priv, Repl_slave_priv, Repl_client_priv,"
        " Delete_history_priv, ssl_type, max_questions, max_user_connections, plugin, authentication_string,"
        " password_expired, is_role, max_statement_time FROM mysql.user WHERE user = 'mon'",
        "SHOW SESSION STATUS LIKE 'Com_show_status'",
        "SHOW GLOBAL STATUS LIKE 'Com_show_stat%'",
        "SHOW SESSION STATUS LIKE 'Com_show_status'",
        "SHOW GLOBAL VARIABLES LIKE 'no_such_variable'",
        "SHOW SESSION STATUS LIKE 'Com_show_variables'",
    ]
    with mariadb_and_ours(tmp_path) as (reference, ours):
        theirs, mine = both_answer(reference, ours, setup, queries)
        assert mine == theirs
        assert ours.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_page_size', 'Innodb_buffer_pool_pages_total')"
                          ) == [("Innodb_buffer_pool_pages_total", "8192"), ("Innodb_page_size", "4096")]


def _one_lock_wait(server) -> dict[str, str]:
    """A write waiting 0.3 s or more for another transaction's; the status after it."""
    shown = "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_row_lock_current_waits', 'Innodb_row_lock_waits')"
    for sql in ("CREATE DATABASE d", "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)", "INSERT INTO d.t VALUES (1, 0)"):
        server.query(sql)
    holder, waiter = server.connect("d"), server.connect("d")
    try:
        with holder.cursor() as cur:
            cur.execute("BEGIN")
            cur.execute("UPDATE t SET v = v + 1 WHERE id = 1")
        blocked = threading.Thread(target=waiter.cursor().execute, args=("UPDATE t SET v = v + 1 WHERE id = 1",))
        blocked.start()
        wait_for(lambda: server.query(shown) == [("Innodb_row_lock_current_waits", "1"), ("Innodb_row_lock_waits", "1")],
                 timeout=10, message="the write to wait")
        time.sleep(0.3)
        holder.commit()
        blocked.join(10)
        return dict(server.query("SHOW GLOBAL STATUS LIKE 'Innodb_row_lock%'"))
    finally:
        holder.close()
        waiter.close()


@needs_mariadb
def test_lock_waits_counted_as_mariadbs_row_lock_waits(tmp_path):
    """Innodb_row_lock_* (were absent): a write waiting for another transaction's, counted with
    its milliseconds, as MariaDB counts the same wait for InnoDB's row lock."""
    with mariadb_and_ours(tmp_path) as (reference, ours):
        for status in (_one_lock_wait(reference), _one_lock_wait(ours)):
            assert (status["Innodb_row_lock_current_waits"], status["Innodb_row_lock_waits"]) == ("0", "1")
            assert 300 <= int(status["Innodb_row_lock_time"]) == int(status["Innodb_row_lock_time_max"]) < 10000
            assert status["Innodb_row_lock_time_avg"] == status["Innodb_row_lock_time"]


ACKS = ("Rpl_semi_sync_master_get_ack", "Rpl_semi_sync_master_request_ack")


def _acks_counted(master, slave) -> list[tuple[str, ...]]:
    """A semi-sync pair: the master's ack counters after three acked transactions, then after
    FLUSH LOCAL STATUS on both servers."""
    master.query(f"CREATE USER {REPL_USER}@'%' IDENTIFIED BY '{REPL_PASSWORD}'")
    master.query(f"GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {REPL_USER}@'%'")
    master.query("CREATE DATABASE d")
    master.query("CREATE TABLE d.t (id INT PRIMARY KEY)")
    master.query("SET GLOBAL rpl_semi_sync_master_enabled = 1")
    slave.query("SET GLOBAL rpl_semi_sync_slave_enabled = 1")
    attach(slave.port, master.port)
    wait_for(lambda: master.status("Rpl_semi_sync_master_clients") == {"Rpl_semi_sync_master_clients": "1"},
             timeout=30, message="the slave to connect with semi-sync")
    for n in range(3):
        master.query(f"INSERT INTO d.t VALUES ({n})")
    counted = []
    for flush in (False, True):
        if flush:
            master.query("FLUSH LOCAL STATUS")
            slave.query("FLUSH LOCAL STATUS")
        shown = master.status("Rpl_semi_sync_master_%ack")
        counted.append(tuple(shown[name] for name in ACKS))
    return counted


@needs_mariadb
def test_semi_sync_acks_counted_as_mariadb_counts_them(tmp_path):
    """Rpl_semi_sync_master_get_ack / _request_ack (were absent): one per acked transaction,
    left by FLUSH STATUS, on a MariaDB pair and on ours alike."""
    answers = []
    for kind in ("mariadb", "ours"):
        if kind == "mariadb":
            master, slave = MariaDBServer(tmp_path / "mdb-m"), MariaDBServer(tmp_path / "mdb-s", server_id=2)
        else:
            master = Daemon("master", tmp_path / "ours-m", ["--server-id=1"])
            slave = Daemon("slave", tmp_path / "ours-s", ["--server-id=2"])
        try:
            master.start()
            slave.start()
            answers.append(_acks_counted(master, slave))
        finally:
            slave.stop()
            master.stop()
    assert answers[1] == answers[0] == [("3", "3")] * 2


PERF_SCHEMA_COLLECTORS = ("tableiowaits", "indexiowaits", "tablelocks", "eventsstatements", "eventswaits",
                          "file_events", "file_instances", "memory_events")


@pytest.mark.skipif(EXPORTER is None, reason="exporter not installed (make test installs it)")
def test_mysqld_exporter_default_and_dba_collectors_scrape_without_errors(master):
    """The exporter's default collectors (global_status, global_variables, slave_status,
    info_schema.innodb_cmp / innodb_cmpmem, query_response_time) with mysql.user and its
    privileges, info_schema.innodb_metrics and the perf_schema collectors: no scrape error, and their metrics where there
    are rows to make them from."""
    assert EXPORTER is not None  # (skipped otherwise)
    web = free_port()
    proc = subprocess.Popen(
        [EXPORTER, f"--web.listen-address=127.0.0.1:{web}", "--collect.mysql.user", "--collect.mysql.user.privileges",
         "--collect.info_schema.innodb_metrics", *(f"--collect.perf_schema.{name}" for name in PERF_SCHEMA_COLLECTORS)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "DATA_SOURCE_NAME": f"root:@(127.0.0.1:{master.port})/"})
    try:
        metrics = wait_for(lambda: scrape(web), timeout=30, message="mysqld_exporter to answer")
        assert metrics["mysql_up"] == 1
        errors = {name: value for name, value in metrics.items()
                  if name.startswith("mysql_exporter_scrape_errors_total") and value}
        assert errors == {}
        for page_size in ("1024", "2048", "4096"):
            assert metrics[f'mysql_info_schema_innodb_cmp_compress_ops_total{{"page_size": "{page_size}"}}'] == 0
            assert metrics[f'mysql_info_schema_innodb_cmpmem_pages_used_total{{"buffer_pool": "0", "page_size": "{page_size}"}}'] == 0
        root = '{"hostmask": "%", "mysql_user": "root"}'
        assert metrics[f"mysql_mysql_max_connections{root}"] == 0
        assert metrics['mysql_global_status_innodb_page_size'] == 4096
        assert metrics['mysql_global_status_commands_total{"command": "admin_commands"}'] >= 1  # its pings
        assert metrics['mysql_global_status_commands_total{"command": "show_status"}'] >= 1
    finally:
        proc.terminate()
        proc.wait(20)
