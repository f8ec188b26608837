"""Durable acks, against a stock MariaDB 10.11 semi-sync master seen through a wire proxy.

- No ack leaves the slave before the fsync that makes the acked event durable: the slave's
  relay log fsync is wrapped (it notes which relay file and how many bytes were durable) and
  the proxy notes every ack packet on the wire, in one journal; each ack's event (found in the
  relay log by its master log_pos) must be inside an fsync that came before the ack.
- Several flagged events arriving together cost one fsync and one (cumulative) ack: the proxy
  holds the master's bytes while five transactions commit concurrently (each waits for its
  ack), then releases them in one write. MariaDB then counts all five as acknowledged.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from protocol.events import decode_header
from tests.integration.test_slave_mariadb_master import caught_up, slave_config, start_master
from tests.support.mariadb import mariadb_available
from tests.support.slave_daemon import SlaveThread, wait_until
from tests.support.wire_proxy import WireProxy

pytestmark = [
    pytest.mark.mariadb,
    pytest.mark.skipif(not mariadb_available(), reason="needs Debian's mariadb-server"),
]


class FsyncRecorder:
    """Wraps os.fsync for the relay log: after each fsync, journal (relay file, durable size)."""

    def __init__(self, proxy: WireProxy) -> None:
        self.proxy = proxy

    def __call__(self, fd: int) -> None:
        os.fsync(fd)
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        self.proxy.record("fsync", name, os.fstat(fd).st_size)


def relay_events(datadir) -> dict[int, tuple[str, int]]:
    """master log_pos -> (relay file, end offset of that event in the relay file)."""
    where: dict[int, tuple[str, int]] = {}
    for path in sorted(datadir.glob("relay-bin.0*")):
        data = path.read_bytes()
        offset = 4
        while offset + 19 <= len(data):
            h = decode_header(data, offset)
            offset += h.event_size
            if h.log_pos and h.server_id == 1:
                where[h.log_pos] = (path.name, offset)
    return where


def entries(proxy: WireProxy, kind: str, since: int = 0) -> list[tuple]:
    with proxy.lock:
        return [e for e in proxy.journal[since:] if e[1] == kind]


def test_no_ack_before_the_fsync_of_the_acked_event(tmp_path):
    master = start_master(tmp_path, "ROW")
    proxy = WireProxy(master.port)
    try:
        config = slave_config(tmp_path, master, master_port=proxy.port)
        with SlaveThread(config, fsync=FsyncRecorder(proxy)) as slave:
            wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                       what="semi-sync client")
            before = master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]
            conn = master.connect()
            with conn.cursor() as cur:
                for i in range(25):
                    cur.execute(f"INSERT INTO d.t (v, maybe) VALUES ('durable {i}', {i})")
            conn.close()
            after = master.status("Rpl_semi_sync_master_yes_tx")["Rpl_semi_sync_master_yes_tx"]
            assert int(after) - int(before) == 25
            wait_until(lambda: caught_up(master, slave), what="caught up")
        where = relay_events(tmp_path / "slave")
        with proxy.lock:
            journal = list(proxy.journal)
        acks = [(i, e[2]) for i, e in enumerate(journal) if e[1] == "ack"]
        assert len(acks) >= 25
        for i, position in acks:
            relay_file, end = where[position.pos]
            covering = [e for e in journal[:i] if e[1] == "fsync" and e[2] == relay_file and e[3] >= end]
            assert covering, f"ack {position} (relay {relay_file}:{end}) was sent before any fsync covering it"
    finally:
        proxy.close()
        master.stop()


def test_events_arriving_together_cost_one_fsync_and_one_ack(tmp_path):
    master = start_master(tmp_path, "STATEMENT")
    proxy = WireProxy(master.port)
    try:
        config = slave_config(tmp_path, master, master_port=proxy.port, master_heartbeat_period=30)
        with SlaveThread(config, fsync=FsyncRecorder(proxy)) as slave:
            wait_until(lambda: master.status("Rpl_semi_sync_master_clients")["Rpl_semi_sync_master_clients"] == "1",
                       what="semi-sync client")
            wait_until(lambda: caught_up(master, slave), what="caught up")
            before = master.status("Rpl_semi_sync_master_%")
            proxy.hold()
            start_pos = int(master.query("SHOW MASTER STATUS")[0][1])

            def commit(i: int) -> None:
                conn = master.connect()
                with conn.cursor() as cur:
                    cur.execute(f"INSERT INTO d.t (v, maybe) VALUES ('burst {i}', {i})")
                conn.close()

            writers = [threading.Thread(target=commit, args=(i,)) for i in range(5)]
            for w in writers:
                w.start()
            wait_until(lambda: master.status("Rpl_semi_sync_master_wait_sessions")["Rpl_semi_sync_master_wait_sessions"] == "5",
                       timeout=8, what="five commits waiting for their ack")
            end_pos = int(master.query("SHOW MASTER STATUS")[0][1])
            assert end_pos > start_pos
            # Let the dump thread push every event of the five transactions into the proxy.
            time.sleep(0.5)
            with proxy.lock:
                mark = len(proxy.journal)
            assert proxy.held_bytes() > 0
            proxy.release()
            for w in writers:
                w.join(15)
            wait_until(lambda: caught_up(master, slave), what="caught up after the burst")
            time.sleep(0.3)
            fsyncs = entries(proxy, "fsync", mark)
            acks = entries(proxy, "ack", mark)
            assert len(fsyncs) == 1, fsyncs
            assert len(acks) == 1, acks
            assert acks[0][2].pos == end_pos
            after = master.status("Rpl_semi_sync_master_%")
            assert int(after["Rpl_semi_sync_master_yes_tx"]) - int(before["Rpl_semi_sync_master_yes_tx"]) == 5
            assert after["Rpl_semi_sync_master_no_tx"] == before["Rpl_semi_sync_master_no_tx"]
    finally:
        proxy.close()
        master.stop()
