"""NodeDaemon (master preset) in-process (no child process): start, serve PyMySQL, semi-sync plugin loaded,
shutdown closes the binlog and the engine."""

from __future__ import annotations

import asyncio

import pymysql

from binlog.reader import scan_file
from config.master import MasterConfig
from node.main import NodeDaemon
from semisync.interface import TransactionObserver, TransParam


class Hooks(TransactionObserver):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def before_commit(self, param: TransParam) -> None:
        self.calls.append("before_commit")

    async def after_commit(self, param: TransParam) -> None:
        self.calls.append("after_commit")

    def after_rollback(self, param: TransParam) -> None:
        self.calls.append(f"after_rollback {param.connection_id}")


async def test_master_daemon_in_process(tmp_path):
    config = MasterConfig(datadir=tmp_path / "m", port=0, bind_address="127.0.0.1", max_binlog_size=4096)
    daemon = NodeDaemon(config)
    await daemon.start()
    hooks = Hooks()
    daemon.interface.transaction.add_observer(hooks)
    try:
        assert daemon.plugin is not None and daemon.plugin.installed and not daemon.plugin.status

        def client() -> list[tuple]:
            conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE ip")
                cur.execute("CREATE TABLE ip.t (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))")
                for i in range(60):
                    cur.execute("INSERT INTO ip.t (v) VALUES (%s)", ("v" * 100 + str(i),))
                cur.execute("SET GLOBAL sync_binlog = 0")
                cur.execute("SELECT @@global.sync_binlog, @@global.max_binlog_size, @@log_bin, @@binlog_format")
                assert cur.fetchone() == (0, 4096, 1, "STATEMENT")
                cur.execute("INSERT INTO ip.t (v) VALUES ('unsynced')")
                cur.execute("SET GLOBAL sync_binlog = 1")
                conn.begin()
                cur.execute("INSERT INTO ip.t (v) VALUES ('undone')")
                conn.rollback()
                cur.execute("SHOW BINARY LOGS")
                logs = list(cur.fetchall())
            conn.close()
            return logs

        logs = await asyncio.to_thread(client)
        assert len(logs) > 1  # rotated at max_binlog_size
        assert daemon.pipeline is not None and daemon.pipeline.commits == 63
        assert hooks.calls.count("before_commit") == 63
        assert 0 < hooks.calls.count("after_commit") <= 63  # once per group
        assert [c for c in hooks.calls if c.startswith("after_rollback")] == ["after_rollback 1"]
    finally:
        await daemon.shutdown()
    assert daemon.engine is None and daemon.writer is None
    for name in sorted((tmp_path / "m").glob("mysql-bin.0*")):
        assert scan_file(name).clean


async def test_metrics_endpoint(tmp_path):
    import urllib.request

    from tests.support.net import free_port

    config = MasterConfig(datadir=tmp_path / "m", port=0, bind_address="127.0.0.1", metrics_port=free_port())
    daemon = NodeDaemon(config)
    await daemon.start()
    try:
        def scrape() -> str:
            conn = pymysql.connect(host="127.0.0.1", port=daemon.port, user="root", autocommit=True)
            with conn.cursor() as cur:
                cur.execute("CREATE DATABASE mx")
            conn.close()
            with urllib.request.urlopen(f"http://127.0.0.1:{config.metrics_port}/metrics", timeout=5) as r:
                return r.read().decode()

        text = await asyncio.to_thread(scrape)
    finally:
        await daemon.shutdown()
    assert "mysql_global_status_rpl_semi_sync_master_clients 0.0" in text
    assert "mysql_global_status_binlog_commits 1.0" in text
    assert "mysql_global_variables_sync_binlog 1.0" in text
    assert "semisync_commit_wait_seconds_count 1.0" in text
