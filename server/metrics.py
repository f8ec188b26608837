"""Prometheus endpoint of one daemon (`--metrics-port`), served from the daemon's own event loop.

Contract
- Names follow prometheus mysqld_exporter so that existing dashboards work unchanged:
  every numeric global status variable as `mysql_global_status_<name lower case>`, every numeric
  global system variable as `mysql_global_variables_<name lower case>` (ON/OFF, YES/NO as 1/0),
  and numeric `SHOW SLAVE STATUS` columns as `mysql_slave_status_<column lower case>`.
- Our own typed series live in `SemisyncMetrics` (commit wait histogram, per-slave ack latency and
  acked position, OFF/ON transitions); the role that observes those facts feeds them.
- Each daemon has its own `CollectorRegistry` (never the process-global one), so two daemons in
  one process (tests) never mix their series.
- Scrapes run on the event loop (a tiny HTTP/1.1 responder on asyncio), so the collector reads
  the server's state from the only thread that changes it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger("semisync.metrics")

_TRUTHY = {"ON": 1.0, "YES": 1.0, "TRUE": 1.0, "OFF": 0.0, "NO": 0.0, "FALSE": 0.0}


def numeric(value: Any) -> float | None:
    """The number a MySQL variable value stands for, or None if it is not numeric."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        text = value.strip()
        upper = text.upper()
        if upper in _TRUTHY:
            return _TRUTHY[upper]
        try:
            return float(text)
        except ValueError:
            return None
    return None


class MySQLCollector(Collector):
    """Collects the mysqld_exporter-style series from callables returning name -> value maps."""

    def __init__(
        self,
        status: Callable[[], Mapping[str, Any]],
        variables: Callable[[], Iterable[tuple[str, Any]]],
        slave_status: Callable[[], Mapping[str, Any] | None] | None = None,
    ) -> None:
        self._status = status
        self._variables = variables
        self._slave_status = slave_status

    def collect(self) -> Iterable[GaugeMetricFamily]:
        yield from self._families("mysql_global_status_", self._status().items(), "Generic metric from SHOW GLOBAL STATUS.")
        yield from self._families("mysql_global_variables_", self._variables(), "Generic gauge metric from SHOW GLOBAL VARIABLES.")
        if self._slave_status is not None:
            row = self._slave_status()
            if row:
                yield from self._families("mysql_slave_status_", row.items(), "Generic metric from SHOW SLAVE STATUS.")

    @staticmethod
    def _families(prefix: str, items: Iterable[tuple[str, Any]], doc: str) -> Iterable[GaugeMetricFamily]:
        seen: set[str] = set()
        for name, value in items:
            number = numeric(value)
            metric = prefix + name.lower()
            if number is None or metric in seen:
                continue
            seen.add(metric)
            yield GaugeMetricFamily(metric, doc, value=number)


class SemisyncMetrics:
    """Typed series of our own, beyond what mysqld_exporter shows."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.commit_wait = Histogram(
            "semisync_commit_wait_seconds",
            "Time a commit group waited for semi-sync acks.",
            buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=registry,
        )
        self.ack_latency = Histogram(
            "semisync_slave_ack_latency_seconds",
            "Time from sending an ack-requested event to a slave until its ack arrived.",
            ["server_id"],
            buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5),
            registry=registry,
        )
        self.acked_pos = Gauge(
            "semisync_slave_acked_pos", "Offset of the latest position acked by a slave.", ["server_id"], registry=registry
        )
        self.acked_file = Gauge(
            "semisync_slave_acked_file_sequence",
            "Sequence number of the binlog file of the latest position acked by a slave.",
            ["server_id"],
            registry=registry,
        )
        self.transitions = Counter(
            "semisync_status_transitions", "Semi-sync status switches, by the state switched to.", ["to"], registry=registry
        )


class MetricsServer:
    """`GET /metrics` on `bind:port`, answered from the event loop."""

    def __init__(self, registry: CollectorRegistry, bind: str, port: int) -> None:
        self.registry = registry
        self.bind = bind
        self.port = port
        self._server: asyncio.base_events.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.bind, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("metrics on http://%s:%d/metrics", self.bind, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
            method, _, rest = request.partition(b" ")
            path = rest.split(b" ", 1)[0].split(b"?", 1)[0]
            if method not in (b"GET", b"HEAD"):
                status, body, ctype = "405 Method Not Allowed", b"only GET\n", "text/plain"
            elif path == b"/metrics":
                status, body, ctype = "200 OK", generate_latest(self.registry), CONTENT_TYPE_LATEST
            elif path in (b"/", b""):
                status, body, ctype = "200 OK", b'<a href="/metrics">/metrics</a>\n', "text/html"
            else:
                status, body, ctype = "404 Not Found", b"not found\n", "text/plain"
            head = f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            writer.write(head.encode() + (body if method != b"HEAD" else b""))
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()


def build_registry(
    status: Callable[[], Mapping[str, Any]],
    variables: Callable[[], Iterable[tuple[str, Any]]],
    slave_status: Callable[[], Mapping[str, Any] | None] | None = None,
) -> tuple[CollectorRegistry, SemisyncMetrics]:
    """A fresh registry for one daemon with the mysqld_exporter-style collector and our series."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MySQLCollector(status, variables, slave_status))
    return registry, SemisyncMetrics(registry)
