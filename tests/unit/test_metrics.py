"""The Prometheus exporter: mysqld_exporter names, ON/OFF as 1/0, served over HTTP from the loop."""

from __future__ import annotations

import asyncio

from prometheus_client.parser import text_string_to_metric_families

from server.metrics import MetricsServer, build_registry, numeric


def test_numeric_values_as_mysqld_exporter_reads_them():
    assert numeric("ON") == 1.0 and numeric("off") == 0.0 and numeric("Yes") == 1.0
    assert numeric(7) == 7.0 and numeric("12.5") == 12.5 and numeric(True) == 1.0
    assert numeric("AFTER_SYNC") is None and numeric(None) is None and numeric("") is None


def _samples(text: str) -> dict[str, float]:
    return {s.name: s.value for fam in text_string_to_metric_families(text) for s in fam.samples}


async def test_endpoint_serves_status_variables_and_slave_status():
    status = {"Rpl_semi_sync_master_clients": 2, "Rpl_semi_sync_master_status": "ON", "Uptime": "12"}
    variables = [("rpl_semi_sync_master_enabled", "ON"), ("rpl_semi_sync_master_wait_point", "AFTER_SYNC"), ("server_id", 1)]
    slave = {"Slave_IO_Running": "Yes", "Seconds_Behind_Master": None, "Read_Master_Log_Pos": 1234}
    registry, ours = build_registry(lambda: status, lambda: variables, lambda: slave)
    ours.commit_wait.observe(0.002)
    ours.ack_latency.labels(server_id="2").observe(0.001)
    ours.transitions.labels(to="off").inc()
    server = MetricsServer(registry, "127.0.0.1", 0)
    await server.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        response = await reader.read()
        writer.close()
    finally:
        await server.stop()
    head, _, body = response.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    got = _samples(body.decode())
    assert got["mysql_global_status_rpl_semi_sync_master_clients"] == 2
    assert got["mysql_global_status_rpl_semi_sync_master_status"] == 1
    assert got["mysql_global_variables_rpl_semi_sync_master_enabled"] == 1
    assert got["mysql_global_variables_server_id"] == 1
    assert "mysql_global_variables_rpl_semi_sync_master_wait_point" not in got
    assert got["mysql_slave_status_slave_io_running"] == 1
    assert got["mysql_slave_status_read_master_log_pos"] == 1234
    assert "mysql_slave_status_seconds_behind_master" not in got
    assert got["semisync_commit_wait_seconds_count"] == 1
    assert got["semisync_status_transitions_total"] == 1


async def test_unknown_path_is_404():
    registry, _ = build_registry(dict, list)
    server = MetricsServer(registry, "127.0.0.1", 0)
    await server.start()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /nope HTTP/1.1\r\n\r\n")
        response = await reader.read()
        writer.close()
    finally:
        await server.stop()
    assert response.startswith(b"HTTP/1.1 404")
