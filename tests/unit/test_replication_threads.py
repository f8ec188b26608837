"""The replica's replication threads as the processlist lists them (a MariaDB replica's
"system user" Slave_IO / Slave_SQL rows, each with a connection id of the server, only while it
runs; KILL of one stops that thread)."""

from __future__ import annotations

import itertools
import time
from types import SimpleNamespace

from engine import Engine, StatementContext
from semisync.interface import BinlogRelayIODelegate
from server import processlist
from slave.master_info import MasterInfo
from slave.replication import Replication
from tests.support.net import free_port


async def _replication(tmp_path, engine: Engine, ids) -> Replication:
    # a master nobody listens on: the IO thread keeps trying to connect
    return Replication(
        datadir=tmp_path / "slave", server_id=2, relay_basename="relay-bin", sync_relay_log=1,
        net_timeout=60, defaults=MasterInfo(host="127.0.0.1", port=free_port(), connect_retry=60),
        engine=engine, delegate=BinlogRelayIODelegate(), table_columns=lambda db, table: None,
        make_context=lambda **kw: StatementContext(**kw), apply_user_statement=None,
        thread_id=lambda: next(ids),
    )


async def test_threads_take_connection_ids_while_they_run_and_kill_stops_one(tmp_path):
    engine = await Engine.open(tmp_path / "db", readers=1)
    ids = itertools.count(7)
    rep = await _replication(tmp_path, engine, ids)
    try:
        assert rep.threads() == []
        await rep.start()
        threads = rep.threads()
        # the IO thread first, as a MariaDB replica starts them
        assert [(t[0], t[1]) for t in threads] == [(7, "Slave_IO"), (8, "Slave_SQL")]
        assert threads[1][3] == "Slave has read all relay log; waiting for more updates"
        assert await rep.kill_thread(99) is False
        assert await rep.kill_thread(8) is True  # the SQL thread, as STOP SLAVE SQL_THREAD
        assert not rep.sql_running and rep.io_running
        assert [t[:2] for t in rep.threads()] == [(7, "Slave_IO")]
        await rep.start()  # a new SQL thread, a new id
        assert [t[:2] for t in rep.threads()] == [(7, "Slave_IO"), (9, "Slave_SQL")]
        assert await rep.kill_thread(7) is True
        assert [t[:2] for t in rep.threads()] == [(9, "Slave_SQL")]
        await rep.stop()
        assert rep.threads() == []
    finally:
        await rep.stop()
        await engine.close()


def test_processlist_lists_the_threads_as_system_user_rows_among_the_sessions():
    now = time.monotonic()
    session = SimpleNamespace(user="root", peer="127.0.0.1:5000", database="d", command="Query", since=now,
                              state="", info="SHOW PROCESSLIST")
    role = SimpleNamespace(system_threads=lambda: [(3, "Slave_IO", now - 5, "Waiting for master to send event"),
                                                   (4, "Slave_SQL", now - 5, "Slave has read all relay log; "
                                                    "waiting for more updates")])
    server = SimpleNamespace(sessions={9: session}, role=role)
    rows = processlist.processlist(server, full=False).rows  # type: ignore[arg-type]
    assert [row[:5] + row[6:] for row in rows] == [
        (3, "system user", "", None, "Slave_IO", "Waiting for master to send event", None, "0.000"),
        (4, "system user", "", None, "Slave_SQL", "Slave has read all relay log; waiting for more updates", None,
         "0.000"),
        (9, "root", "127.0.0.1:5000", "d", "Query", "", "SHOW PROCESSLIST", "0.000"),
    ]
    assert rows[0][5] == 5
    assert [row[:2] for row in processlist.infoschema_rows(server)] == [  # type: ignore[arg-type]
        (3, "system user"), (4, "system user"), (9, "root")]
    # an account without PROCESS: its own sessions only
    assert [row[0] for row in processlist.infoschema_rows(server, "root")] == [9]  # type: ignore[arg-type]
